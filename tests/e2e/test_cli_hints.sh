#!/usr/bin/env bash
# End to end: what a newcomer's slips get: `help
# SUBCOMMAND` is that subcommand's help; a mistyped subcommand, option, bench,
# op or backend gets "did you mean"; a size that fits no selected op lists
# the sizes that do; a missing option is named; a bisect asked the wrong way
# round says --improvement; the resume command is the program as invoked;
# a count of one is singular.
source "$(dirname "$0")/lib.sh"
make_fixture
cell=(--benches unary --ops abs --backends scalar --sizes 1K)
quick=(--quick --processes 6 --rounds 3 --budget 0.5)

# refused NAME PATTERN ARGS...: exit 2, saying PATTERN on stderr (lib.sh).

# ---- help SUBCOMMAND ---------------------------------------------------------
for sub in run compare bisect; do
	"$BV" help "$sub" > "$TMP/help" 2>&1
	rc=$?
	"$BV" "$sub" --help > "$TMP/own" 2>&1
	check "help $sub: exit 0 (exit $rc)" test $rc -eq 0
	check "help $sub: the same text as $sub --help" cmp -s "$TMP/help" "$TMP/own"
done
"$BV" --help report > "$TMP/help" 2>&1
"$BV" report --help > "$TMP/own" 2>&1
check "--help report: the same text as report --help" cmp -s "$TMP/help" "$TMP/own"
refused "help nosuch" "no subcommand 'nosuch'; the subcommands are: run, compare, list, .*report" help nosuch

# ---- a mistyped subcommand -----------------------------------------------------
refused "comapre" "unknown version 'comapre'" comapre a.json b.json
check "comapre: did you mean the subcommand 'compare'?" contains "$TMP/err" "did you mean the subcommand 'compare'\?"
refused "lsit benches" "did you mean the subcommand 'list'\?" lsit benches
refused "an unknown version far from any subcommand" "unknown version 'nowhere'" nowhere "${cell[@]}"
check "  ... gets no subcommand hint" bash -c "! grep -q 'subcommand' '$TMP/err'"
# A version named like a typo of a subcommand is a version: no hint.
git -C "$FIX" branch lsit
"$BV" lsit "${cell[@]}" --dry-run > "$TMP/out" 2> "$TMP/err"
rc=$?
check "a branch 'lsit' resolves as a version (exit $rc)" test $rc -eq 0
check "  ... with no subcommand hint" bash -c "! grep -q 'subcommand' '$TMP/err'"

# ---- did you mean: options, benches, ops, backends ---------------------------
refused "run --quik" "unknown option --quik: did you mean --quick\?" run local --quik
refused "--quik without run" "unknown option --quik: did you mean --quick\?" local --quik
refused "run --bench (run takes --benches)" "unknown option --bench: did you mean --benches\?" local --bench unary
refused "compare --fromat" "unknown option --fromat: did you mean --format\?" compare --fromat json x.json
refused "bisect --imporvement" "unknown option --imporvement: did you mean --improvement\?" bisect --imporvement
refused "an option close to nothing" "unknown option --x \(see" local --x
refused "a mistyped option's value is never echoed" "unknown option --tokn" local --tokn=s3cret
check "  ... (s3cret is not in the message)" bash -c "! grep -q s3cret '$TMP/err'"
refused "--benches unry" "unknown bench 'unry': did you mean 'unary'\?" local --benches unry
refused "--ops ab" "unknown op 'ab': did you mean 'abs'\?" local --ops ab
refused "--backends simdd" "unknown backend 'simdd': did you mean 'simd'\?" local --backends simdd
refused "--ops xyz (close to nothing)" "unknown op 'xyz' \(see" local --ops xyz

# ---- sizes that fit no selected op ---------------------------------------------
refused "--benches matmul --sizes 1K" \
	"--sizes '1K' fits none of the selected ops; their sizes: matmul: 64x64x64 .*1024x1024 4096x4096" \
	local --benches matmul --sizes 1K
refused "--ops gemv --sizes 1K: only gemv's shapes" "their sizes: matmul: 1024x1024 4096x4096 \(" \
	local --benches matmul --ops gemv --sizes 1K
refused "a malformed size says what a size is" "unknown size '1Q': a size is a count of elements .* or a shape" \
	local --sizes 1Q
refused "bisect --size 1K for sgemm" "--size '1K' does not fit matmul/sgemm; its sizes: matmul: 64x64x64 " \
	bisect --good main --bad main --bench matmul --op sgemm --backend simd --size 1K

# ---- "are all needed" names the missing one --------------------------------------
refused "bisect without --size" "--size is missing \(--good, --bad" \
	bisect --good main --bad main --bench unary --op abs --backend scalar
refused "bisect with only --good" "--bad, --bench, --op, --backend, --size are missing" bisect --good main

# ---- one is singular ----------------------------------------------------------------
"$BV" local "${cell[@]}" --dry-run > "$TMP/out" 2> "$TMP/err"
check "dry run: 'measure: 1 cell x 1 version'" contains "$TMP/out" "^measure: 1 cell x 1 version, "

# ---- the resume command is the program as invoked -------------------------------
# measuring ERR PID: until the run says it measures (2 minutes at most), or
# ends; then interrupted_run (lib.sh) sends Ctrl-C's SIGINT.
measuring() {
	for _ in $(seq 600); do
		grep -q '^measure: ' "$1" 2> /dev/null && return 0
		kill -0 "$2" 2> /dev/null || return 1
		sleep 0.2
	done
	return 1
}
interrupted_run "$TMP/int1.out" "$TMP/int1" measuring "$BV" main local "${cell[@]}" "${quick[@]}" --results "$TMP/r1"
dir=$(ls -d "$TMP"/r1/[0-9]*/ | head -1)
dir=${dir%/}
check "invoked by its path: the resume command names that path" contains "$TMP/int1" "^  $BV run main local .* --resume $dir\$"
grep -q "resume" "$TMP/int1" || sed 's/^/#   /' "$TMP/int1"
# Found on PATH (argv[0] without a slash): the name alone.
interrupted_run "$TMP/int2.out" "$TMP/int2" measuring env PATH="$(dirname "$BV"):$PATH" bench-versions run main local "${cell[@]}" "${quick[@]}" \
	--results "$TMP/r2"
check "invoked from PATH: the resume command is 'bench-versions run ...'" \
	contains "$TMP/int2" "^  bench-versions run main local .* --resume $TMP/r2/"

# The pasted command goes on, and one cell's geomean is "(1 cell)".
cmd=$(sed -n 's/^  \(.* --resume .*\)$/\1/p' "$TMP/int1")
# An empty one would "run" too (bash -c "" exits 0): there must be one.
check "a resume command was printed" test -n "$cmd"
if [ -n "$cmd" ]; then
	bash -c "$cmd" > "$TMP/res.out" 2> "$TMP/res.err"
	rc=$?
else
	rc=none
fi
check "the printed resume command runs (exit $rc)" test "$rc" = 0
check "geomean over one cell: '(1 cell)'" contains "$TMP/res.out" "^geomean local/main over unary: [0-9.]+ \(1 cell\)$"

# ---- bisect asked for a slowdown where there is a speed-up --------------------------
git -C "$FIX" tag fast
plant_relu_slowdown && git -C "$FIX" commit -qam "relu: three passes (slow)"
git -C "$FIX" tag slow
git -C "$FIX" revert --no-edit HEAD > /dev/null
# It builds both ends and measures them before it can say so: 30 s, the
# limit for a refusal, is not enough on a loaded CI machine (builds of two
# releases with nvcc took 40-60 s at load 4-7).
refused_within=150 refused "bisect of a speed-up without --improvement" \
	"not significantly slower than good .*it is significantly faster: .*add --improvement" \
	bisect --good slow --bad main --bench unary --op relu --backend scalar --size 64K --quick
finish
