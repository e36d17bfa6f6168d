#!/usr/bin/env bash
# End to end: what a user gets for bad input and failed builds.
source "$(dirname "$0")/lib.sh"
make_fixture
git -C "$FIX" branch feature-fast
args=(--benches unary --ops abs --backends scalar --sizes 1K --quick --processes 6 --rounds 3 --results "$TMP/results")

"$BV" featur-fast "${args[@]}" > /dev/null 2> "$TMP/err"; rc=$?
check "unknown version exits 2" test $rc -eq 2
check "unknown version names what was tried and the nearest match" contains "$TMP/err" "unknown version 'featur-fast': tried .*nearest: .*feature-fast"

"$BV" main --x "${args[@]}" > /dev/null 2> "$TMP/err"; rc=$?
check "unknown option exits 2" test $rc -eq 2

# Option values are checked (orchestrator/cli/options.c): a bad one is a usage
# error naming the option, the value and what was expected, found before
# anything is resolved or built, never a silent 0 or a number cut short.
bad_option() { # NAME PATTERN ARGS...: exit 2 within 20 s, saying PATTERN (refused, lib.sh), nothing built
	refused_within=20 refused "$@"
	check "$1: nothing built" test ! -e "$BENCH_VERSIONS_CACHE/builds"
}
bad_option "--threshold abc" "--threshold 'abc': expected a number from 0 to 1000 percent" main "${args[@]}" --threshold abc
bad_option "--threshold=abc" "--threshold 'abc': expected a number" main "${args[@]}" --threshold=abc
bad_option "--timeout 5minutes" "--timeout '5minutes': expected a duration in seconds, or a number with ms, s, m or h" \
	main "${args[@]}" --timeout 5minutes
bad_option "--seed xyz" "--seed 'xyz': expected a whole number from 0 to 18446744073709551615" main "${args[@]}" --seed xyz
bad_option "--processes 1e3" "--processes '1e3': expected a whole number from 1 to 1000" main "${args[@]}" --processes 1e3
# A 95 % interval needs 6 processes (docs/measurement.md): fewer is refused
# with the minimum named, not measured into a one-point "interval".
bad_option "--processes 1" "--processes 1: a 95% interval for the median needs at least 6 processes" \
	main "${args[@]}" --processes 1
bad_option "--max-processes 5" "--max-processes 5: a 95% interval for the median needs at least 6 processes \(with 5, \[min, max\] covers 93.8%\)" \
	main --benches unary --ops abs --backends scalar --sizes 1K --quick --max-processes 5 --results "$TMP/results"
bad_option "report --processes 1" "--processes 1: a 95% interval for the median needs at least 6" \
	report --baseline main --candidate main --processes 1
bad_option "--budget nan" "--budget 'nan': expected a duration" main "${args[@]}" --budget nan
bad_option "--threads ''" "--threads '': expected a whole number" main "${args[@]}" --threads ''
bad_option "report --seed xyz" "--seed 'xyz': expected a whole number" report --baseline main --candidate main --seed xyz
bad_option "report --default-slowdown 5%" "--default-slowdown '5%': expected a number from 0 to 1000000 percent" \
	report --baseline main --candidate main --default-slowdown 5%
bad_option "bisect --threshold abc" "--threshold 'abc': expected a number" bisect --good main --bad main \
	--bench unary --op abs --backend scalar --size 1K --threshold abc
bad_option "compare --threshold abc" "--threshold 'abc': expected a number" compare --threshold abc "$TMP/none.json"
bad_option "cache trim --older-than 5days" "--older-than '5days': expected a number" cache trim --older-than 5days
bad_option "cache trim --max-size 2X" "--max-size '2X': expected a size" cache trim --max-size 2X
bad_option "a flag given a value" "--quick takes no value" main "${args[@]}" --quick=yes
bad_option "an option without its value" "--timeout needs a value" main --timeout
"$BV" main "${args[@]}" --threshold 0 --timeout=30s --seed=12 --budget=1 --processes=6 > /dev/null 2> "$TMP/err"; rc=$?
check "--opt=value works as --opt value does (exit $rc)" test $rc -eq 0
check "  and the values reach the log" python3 - "$(ls "$TMP"/results/[0-9]*/main.json | head -1)" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))["method"]
assert m["timeout_s"] == 30 and m["seed"] == 12 and m["threshold"] == 0 and m["max_processes"] == 6, m
PY
rm -rf "$TMP/results"

# bv-runner loads at most 16 versions in one process: 17 are refused at once,
# before anything is resolved or built (not after every build, as "measuring
# process 1 exited with status 2").
seventeen=()
for i in $(seq 17); do seventeen+=(main); done
start=$(date +%s)
BENCH_VERSIONS_CACHE="$TMP/cache17" timeout -k 2 20 "$BV" "${seventeen[@]}" "${args[@]:0:${#args[@]}-2}" \
	--results "$TMP/r17" > /dev/null 2> "$TMP/err"
rc=$? took=$(( $(date +%s) - start ))
check "17 versions: exit 2 at once (exit $rc, ${took}s)" test $rc -eq 2 -a $took -le 10
check "17 versions: the message gives the limit" contains "$TMP/err" "17 versions given; at most 16 can be compared in one run"
check "17 versions: nothing resolved, built or written" \
	sh -c '! grep -q "^resolve:" "$1" && [ ! -e "$2/builds" ] && [ ! -e "$3" ]' _ "$TMP/err" "$TMP/cache17" "$TMP/r17"
"$BV" "${seventeen[@]:0:16}" --benches nope > /dev/null 2> "$TMP/err"
check "16 versions are within the limit" contains "$TMP/err" "unknown bench 'nope'"
"$BV" "${seventeen[@]}" --isolated --benches nope > /dev/null 2> "$TMP/err"
check "17 versions with --isolated (one version per process) are too" contains "$TMP/err" "unknown bench 'nope'"
"$BV" "" "${args[@]}" > /dev/null 2> "$TMP/err"; rc=$?
check "empty version name exits 2" test $rc -eq 2 -a -n "$(grep 'empty version name' "$TMP/err")"
(cd "$TMP" && "$BV" 'main;touch${IFS}pwned$(touch${IFS}pwned2)' "${args[@]}" > /dev/null 2> "$TMP/err"); rc=$?
check "shell metacharacters are just an unknown name" test $rc -eq 2 -a -n "$(grep "unknown version 'main;touch" "$TMP/err")"
check "nothing in a version name is ever executed" test ! -e "$TMP/pwned" -a ! -e "$TMP/pwned2"
"$BV" 'main branch' "${args[@]}" > /dev/null 2> "$TMP/err"; rc=$?
check "a name with a space is refused" test $rc -eq 2 -a -n "$(grep 'space or control character' "$TMP/err")"
"$BV" main --benches nope > /dev/null 2> "$TMP/err"; rc=$?
check "unknown bench exits 2 and names it" test $rc -eq 2 -a -n "$(grep "unknown bench 'nope'" "$TMP/err")"
# Every list an error points to exists, and names what was unknown.
for opt in benches ops backends sizes; do
	"$BV" main --$opt nope > /dev/null 2> "$TMP/err"
	hint=$(grep -o 'see: bench-versions list [a-z]*' "$TMP/err" | sed 's/^see: bench-versions //')
	check "--$opt nope points to a list that exists (${hint:-none})" \
		sh -c '[ -n "$1" ] && "$2" $1 > "$3" && [ -s "$3" ]' _ "$hint" "$BV" "$TMP/list"
done
"$BV" main --format yaml > /dev/null 2> "$TMP/err"; rc=$?
check "unknown format exits 2" test $rc -eq 2

# A release whose library does not compile: its column says so, the others run.
# Its compiler errors quote a line with terminal escapes (a title change, a
# screen clear): the log's tail reaches the terminal with them escaped.
printf 'this is not C \033]0;owned\007\033[2J\r\n' >> "$FIX/kernels/src/scalar.c"
echo 0.2.0 > "$FIX/kernels/VERSION"
git -C "$FIX" commit -qam "broken"
"$BV" 0.1.0 main "${args[@]}" > "$TMP/out" 2> "$TMP/err"; rc=$?
check "a failed build exits 3" test $rc -eq 3
check "a failed build shows the end of its log" contains "$TMP/err" "build: main +FAILED: building the library \(make lib\) failed; end of .*\.log:"
check "the failed version's column says build failed" contains "$TMP/out" "^unary +abs +scalar +1K +[0-9.]+ [nu]s +build failed"
check "the build log's escapes reach the terminal escaped" contains "$TMP/err" 'this is not C \\x1b\]0;owned\\x07\\x1b\[2J'
check "no raw escape, bell or carriage return on the terminal" test "$(cat "$TMP/out" "$TMP/err" | tr -cd '\033\007\r' | wc -c)" -eq 0

# Output that cannot be written (a full disk) is a failure, never exit 0.
if [ -w /dev/full ]; then
	"$BV" 0.1.0 "${args[@]}" > /dev/full 2> "$TMP/err"; rc=$?
	check "a table written to a full disk exits 3 and says so" \
		test $rc -eq 3 -a -n "$(grep 'cannot write the output' "$TMP/err")"
	"$BV" list benches > /dev/full 2> "$TMP/err"; rc=$?
	check "a list written to a full disk exits 3" test $rc -eq 3
else
	echo "ok - output to a full disk # SKIP no /dev/full here"
fi

# --resume of a log written before a method field existed (schema 1.0 has
# no threads): the refusal says it is not recorded, not a made-up number.
"$BV" 0.1.0 "${args[@]}" --results "$TMP/old" > /dev/null 2>&1
old=$(ls -d "$TMP"/old/[0-9]*/)
python3 - "$old/0.1.0.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
del d["method"]["threads"]
json.dump(d, open(sys.argv[1], "w"))
PY
"$BV" 0.1.0 "${args[@]:0:${#args[@]}-2}" --resume "$old" > /dev/null 2> "$TMP/err"; rc=$? # args less --results
check "--resume of a log without a method field names it as not recorded" \
	test $rc -eq 2 -a -n "$(grep -e '--threads: not recorded there, 1 now' "$TMP/err")"

# A VERSION that is not a version.
echo "banana" > "$FIX/kernels/VERSION"
git -C "$FIX" commit -qam "garbage version"
"$BV" main "${args[@]}" > /dev/null 2> "$TMP/err"; rc=$?
check "garbage in VERSION is a clear input error" test $rc -eq 2 -a -n "$(grep 'does not hold a semantic version' "$TMP/err")"

# A malformed compat.json is named with its position.
home="$TMP/home"
mkdir -p "$home/compat"
cp -r "$ROOT/harness" "$home/"
printf '{"schema_version": 1,\n "rules": [ }\n' > "$home/compat/compat.json"
BENCH_VERSIONS_HOME="$home" "$BV" 0.1.0 "${args[@]}" > /dev/null 2> "$TMP/err"; rc=$?
check "malformed compat.json exits 2 naming file, line and column" \
	test $rc -eq 2 -a -n "$(grep -E 'compat/compat.json:2:[0-9]+: malformed JSON' "$TMP/err")"

# No repository at all: only local works, and the message says why.
mkdir -p "$TMP/norepo"
cp -r "$ROOT/kernels" "$TMP/norepo/kernels"
KERNEL_DIR="$TMP/norepo/kernels" "$BV" main "${args[@]}" > /dev/null 2> "$TMP/err"; rc=$?
check "outside a repository a revision is refused with the reason" \
	test $rc -eq 2 -a -n "$(grep "only 'local' is available" "$TMP/err")"

# A FIFO where a file is read (nobody writes to it: reading would wait
# forever) is refused at once, naming the path.  Bounded by timeout, so a
# regression fails here instead of hanging.
mkfifo "$TMP/log.json" "$TMP/budgets.json"
fifo_refused() { # NAME PATH COMMAND...: exit 2 within 20 s, saying PATH is a FIFO
	local name=$1 path=$2
	shift 2
	timeout -k 2 20 "$@" > /dev/null 2> "$TMP/err"
	local rc=$?
	check "a FIFO as $name: exits 2 at once (exit $rc)" test $rc -eq 2
	check "a FIFO as $name: says so, naming it" contains "$TMP/err" "$path is a FIFO, not a regular file"
}
fifo_refused "a log for compare" "$TMP/log.json" "$BV" compare "$TMP/log.json" "$TMP/log.json"
fifo_refused "a log for report --from" "$TMP/log.json" "$BV" report --from "$TMP/log.json" "$TMP/log.json"
fifo_refused "--budgets" "$TMP/budgets.json" "$BV" report --baseline 0.1.0 --candidate main --budgets "$TMP/budgets.json"
mkdir -p "$TMP/cfifo/patches" "$TMP/cfifo/shims"
mkfifo "$TMP/cfifo/patches/fix.patch" "$TMP/cfifo/shims/k.h" "$TMP/cfifo/fifo.json"
printf '{"schema_version": 1, "rules": [{"id": "p", "versions": "*", "patches": ["patches/fix.patch"]}]}\n' > "$TMP/cfifo/patch.json"
printf '{"schema_version": 1, "rules": [{"id": "i", "versions": "*", "include": "shims/k.h"}]}\n' > "$TMP/cfifo/include.json"
fifo_refused "a compat patch" "patch \"patches/fix.patch\"" env BENCH_VERSIONS_COMPAT="$TMP/cfifo/patch.json" "$BV" 0.1.0 "${args[@]}"
fifo_refused "a compat include" "\"include\" \"shims/k.h\"" env BENCH_VERSIONS_COMPAT="$TMP/cfifo/include.json" "$BV" 0.1.0 "${args[@]}"
fifo_refused "compat.json" "$TMP/cfifo/fifo.json" env BENCH_VERSIONS_COMPAT="$TMP/cfifo/fifo.json" "$BV" 0.1.0 "${args[@]}"
finish
