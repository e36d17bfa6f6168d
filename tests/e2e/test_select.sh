#!/usr/bin/env bash
# End to end: what runs, and how long.  --filter selects
# the cells measured (not rows hidden after measuring all), a filter that
# selects nothing is an input error, --dry-run builds and measures nothing
# and says the plan, the estimate leaves out cuda cells that skip without a
# GPU, and a --fail-on-slower gate over no row fails instead of passing.
source "$(dirname "$0")/lib.sh"
make_fixture

quick=(--quick --processes 6 --rounds 3 --budget 0.5)

# --filter selects: only the one cell is measured, out of the 2 ops x 2
# sizes the lists select.
"$BV" local --benches unary --ops abs,relu --backends scalar --sizes 1K,4K --filter 'unary/abs/scalar/1K' \
	"${quick[@]}" --results "$TMP/results" > "$TMP/out" 2> "$TMP/err"
rc=$?
check "--filter run exits 0" test $rc -eq 0
check "  the estimate counts the one cell" contains "$TMP/err" "^measure: 1 cell x 1 version,"
log=$(ls "$TMP"/results/[0-9]*/local.json 2> /dev/null | head -1)
check "  the log holds only the filtered cell" python3 - "$log" <<'PY'
import json, sys
cells = json.load(open(sys.argv[1]))["cells"]
keys = [(c["bench"], c["op"], c["backend"], c["size"]) for c in cells]
assert keys == [("unary", "abs", "scalar", 1024)], keys
PY
check "  the table shows it" contains "$TMP/out" "^unary +abs +scalar +1K"
check "  and no other cell" test "$(grep -cE '^unary +relu' "$TMP/out")" -eq 0

# --resume of a filtered run: the log lists the filtered cells in order,
# the runner knows them by their place in the lists' selection (relu 4K is
# the 4th of abs/relu x 1K/4K), and resuming must find each in both.
"$BV" local --benches unary --ops abs,relu --backends scalar --sizes 1K,4K --filter 'relu/scalar/4K' \
	"${quick[@]}" --results "$TMP/r2" > /dev/null 2> "$TMP/err"
dir=$(ls -d "$TMP"/r2/*/ 2> /dev/null | head -1)
check "a filter on a later cell measures it" python3 - "$dir/local.json" <<'PY'
import json, sys
cells = json.load(open(sys.argv[1]))["cells"]
keys = [(c["op"], c["size"], c["status"]) for c in cells]
assert keys == [("relu", 4096, "ok")], keys
PY
"$BV" local --benches unary --ops abs,relu --backends scalar --sizes 1K,4K --filter 'relu/scalar/4K' \
	"${quick[@]}" --resume "$dir" > /dev/null 2> "$TMP/err"
check "--resume of a filtered run reuses its cell" contains "$TMP/err" "1 of 1 cell reused"
"$BV" local --benches unary --ops abs,relu --backends scalar --sizes 1K,4K "${quick[@]}" --resume "$dir" \
	> /dev/null 2> "$TMP/err"
check "--resume without the filter is refused" contains "$TMP/err" "its cells differ .*--filter.*1 there, 4 now"
"$BV" local --benches unary --ops abs,relu --backends scalar --sizes 1K,4K --filter 'relu/scalar/4K' \
	"${quick[@]}" --resume "$dir" --dry-run > "$TMP/out" 2> "$TMP/err"
check "--dry-run --resume checks the plan and says it" test $? -eq 0 -a "$(grep -c '^cells: 1$' "$TMP/out")" -eq 1
"$BV" local --benches unary --ops abs,relu --backends scalar --sizes 1K,4K "${quick[@]}" --resume "$dir" --dry-run \
	> /dev/null 2> "$TMP/err"
check "  and refuses a plan that differs (exit 2)" test $? -eq 2

# A filter that matches no cell: exit 2 before anything is built.
rm -rf "$TMP/cache"
"$BV" local --benches unary --ops abs --filter '^gemm/' "${quick[@]}" --results "$TMP/none" > /dev/null 2> "$TMP/err"
rc=$?
check "--filter matching no cell exits 2" test $rc -eq 2
check "  naming the filter and the list" contains "$TMP/err" "--filter '\^gemm/' matches no cell.*bench-versions list benches"
check "  and builds nothing" test ! -e "$TMP/cache/builds"
check "  and leaves no results directory" test ! -e "$TMP/none"

# --dry-run: the plan, nothing built or measured.
"$BV" local 0.1.0 --benches unary --ops abs,relu --backends scalar,cuda --sizes 1K "${quick[@]}" --dry-run \
	--results "$TMP/dry" > "$TMP/out" 2> "$TMP/err"
rc=$?
check "--dry-run exits 0" test $rc -eq 0
check "  says the versions" contains "$TMP/out" "^versions: 2"
check "  says the builds to make" test "$(grep -c 'to build$' "$TMP/out")" -eq 2
check "  says the cells, grouped" contains "$TMP/out" "^cells: 4"
check "  one line per op and backend" contains "$TMP/out" "^  unary/abs/scalar: 1K$"
check "  builds nothing" test -z "$(ls -A "$TMP/cache/builds" 2> /dev/null)"
check "  makes no results directory" test ! -e "$TMP/dry"
if [ -e /dev/nvidia0 ] || [ -e /proc/driver/nvidia/gpus ]; then
	skip "  the estimate leaves out cuda cells without a GPU" "an NVIDIA GPU is visible"
else
	# 2 host cells x 0.5 s: the 2 cuda cells skip at once and cost nothing.
	check "  the estimate leaves out cuda cells without a GPU" \
		contains "$TMP/out" "^measure: 4 cells x 2 versions, measuring budget about 1s .*2 cuda cells not counted"
fi
"$BV" local --benches unary --ops abs --backends scalar --sizes 1K "${quick[@]}" --dry-run --format json \
	> "$TMP/json" 2> /dev/null
check "--dry-run --format json" python3 - "$TMP/json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["cells"] == ["unary/abs/scalar/1K"], d["cells"]
assert d["versions"][0]["name"] == "local"
assert d["estimate"]["cells"] == 1 and d["estimate"]["measuring_s"] == 0.5, d["estimate"]
PY

# A run past ten minutes says so on a terminal, before the builds, with the
# ways to narrow it.  An 11-minute budget on one cell estimates 660 s; the
# cell still stops at its 6 processes, so the run itself is short.
if script -qec true /dev/null > /dev/null 2>&1; then
	script -qec "$(printf '%q ' "$BV" local --benches unary --ops abs --backends scalar --sizes 1K \
		--quick --processes 6 --rounds 3 --budget 11m --results "$TMP/long")" /dev/null > "$TMP/tty" 2>&1
	check "a long run is said on a terminal, with how to narrow it" \
		contains "$TMP/tty" "note:.* measuring will take about 11m 00s; narrow it with --benches.*--filter.*--quick"
	"$BV" local --benches unary --ops abs --backends scalar --sizes 1K --quick --processes 6 --rounds 3 \
		--budget 11m --results "$TMP/long2" > /dev/null 2> "$TMP/err"
	check "  not in a log file (stderr not a terminal)" test "$(grep -c 'measuring will take' "$TMP/err")" -eq 0
else
	skip "a long run is said on a terminal, with how to narrow it" "no script(1) to give it a terminal"
fi

# compare: a gate whose filter matches no row checks nothing: exit 2.
"$BV" compare "$log" "$log" --filter '^gemm/' --fail-on-slower > /dev/null 2> "$TMP/err"
rc=$?
check "compare --filter matching no row with --fail-on-slower exits 2" test $rc -eq 2
check "  and says why" contains "$TMP/err" "matches no row, so --fail-on-slower would check nothing"
"$BV" compare "$log" "$log" --filter '^unary/abs/' --fail-on-slower > /dev/null 2>&1
check "  a filter that matches still gates (exit 0)" test $? -eq 0

finish
