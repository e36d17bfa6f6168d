#!/usr/bin/env bash
# End to end: what a user gets for bad input and failed builds.
source "$(dirname "$0")/lib.sh"
make_fixture
git -C "$FIX" branch feature-fast
args=(--benches unary --ops abs --backends scalar --sizes 1K --quick --processes 2 --rounds 3 --results "$TMP/results")

"$BV" featur-fast "${args[@]}" > /dev/null 2> "$TMP/err"; rc=$?
check "unknown version exits 2" test $rc -eq 2
check "unknown version names what was tried and the nearest match" contains "$TMP/err" "unknown version 'featur-fast': tried .*nearest: .*feature-fast"

"$BV" main --x "${args[@]}" > /dev/null 2> "$TMP/err"; rc=$?
check "unknown option exits 2" test $rc -eq 2
"$BV" "" "${args[@]}" > /dev/null 2> "$TMP/err"; rc=$?
check "empty version name exits 2" test $rc -eq 2 -a -n "$(grep 'empty version name' "$TMP/err")"
(cd "$TMP" && "$BV" 'main;touch${IFS}pwned$(touch${IFS}pwned2)' "${args[@]}" > /dev/null 2> "$TMP/err"); rc=$?
check "shell metacharacters are just an unknown name" test $rc -eq 2 -a -n "$(grep "unknown version 'main;touch" "$TMP/err")"
check "nothing in a version name is ever executed" test ! -e "$TMP/pwned" -a ! -e "$TMP/pwned2"
"$BV" 'main branch' "${args[@]}" > /dev/null 2> "$TMP/err"; rc=$?
check "a name with a space is refused" test $rc -eq 2 -a -n "$(grep 'space or control character' "$TMP/err")"
"$BV" main --benches nope > /dev/null 2> "$TMP/err"; rc=$?
check "unknown bench exits 2 and names it" test $rc -eq 2 -a -n "$(grep "unknown bench 'nope'" "$TMP/err")"
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
check "the failed version's column says build failed" contains "$TMP/out" "^unary +abs +scalar +1K +[0-9.]+ ns +build failed"
check "the build log's escapes reach the terminal escaped" contains "$TMP/err" 'this is not C \\x1b\]0;owned\\x07\\x1b\[2J'
check "no raw escape, bell or carriage return on the terminal" test "$(cat "$TMP/out" "$TMP/err" | tr -cd '\033\007\r' | wc -c)" -eq 0

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
finish
