#!/usr/bin/env bash
# tests/valgrind.sh - valgrind memcheck over the main paths of the normal
# build (bin/): list, compat, compare of logs, and a quick run of one small
# cell with its runner processes (--trace-children: bv-runner and the
# children it forks; make, cc and git are skipped).  Each process logs to its
# own file; any error or definitely lost block fails the check.  Builds are
# made once without valgrind first, so the run under it only measures.
# Run by `make valgrind`; results in docs/reliability.md.
source "$(dirname "$0")/e2e/lib.sh"
command -v valgrind > /dev/null || { echo "not ok - valgrind is not installed (apt-get install valgrind)"; exit 1; }
make_fixture
VG="$TMP/vg"
mkdir -p "$VG"
# --timeout: a step under memcheck runs 20-50x slower than the default allows.
args=(--benches unary --ops abs --backends scalar --sizes 1K --quick --processes 6 --rounds 3 --timeout 600)

# memcheck NAME CMD...: the command under memcheck, then its logs checked
memcheck() {
	local name=$1
	shift
	rm -f "$VG"/*
	valgrind --tool=memcheck --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
		--show-leak-kinds=definite --trace-children=yes \
		--trace-children-skip='*/make,*/cc,*/gcc,*/ld,*/as,*/git,*/sh,*/bash,*/python3,*/uname,*/nproc,*/patch' \
		--suppressions="$ROOT/tests/sanitizer/valgrind.supp" \
		--log-file="$VG/%p.log" "$@" > "$TMP/out" 2> "$TMP/err"
	local rc=$? logs bad
	logs=$(ls "$VG" | wc -l)
	bad=$(grep -lE 'ERROR SUMMARY: [1-9]|definitely lost: [1-9]' "$VG"/*.log)
	if [ $rc -ne 99 ] && [ -z "$bad" ]; then
		ok "memcheck: $name: clean in $logs process(es) (exit $rc)"
	else
		not_ok "memcheck: $name (exit $rc)"
		for f in $bad; do sed 's/^/#   /' "$f" | grep -vE '^#   ==[0-9]+== *$' | head -60; done
	fi
}

"$BV" 0.1.0 main "${args[@]}" --results "$TMP/warm" > /dev/null 2>&1
check "warm-up run without valgrind (builds, calibration)" test $? -eq 0
memcheck "list benches" "$BV" list benches
memcheck "list versions" "$BV" list versions
memcheck "compat" "$BV" compat
memcheck "run (orchestrator and runner)" "$BV" 0.1.0 main "${args[@]}" --results "$TMP/results"
check "run under memcheck still measured" contains "$TMP/out" "^unary +abs +scalar +1K +[0-9.]+ [nu]s"
logs=("$TMP"/results/*/*.json)
memcheck "compare of logs, every format" sh -c 'for f in table markdown csv json html; do "$0" compare "$@" --format $f || exit 1; done' "$BV" "${logs[@]}"
memcheck "compare: a malformed log" "$BV" compare "$ROOT/tests/fuzz/corpus/results_log/finding-size-1e300"
finish
