#!/usr/bin/env bash
# aa_matrix.sh - whole-matrix A/A: identical code under two names, every cell
# of the chosen groups, RUNS times, counting every verdict that is not
# `same`.  The bar: default settings, 5 runs with zero
# `slower`/`faster` cells while the machine runs a looping `make -j2` of
# something else; with --quick, at least 9 of 10 runs with zero.
#
#   tests/measurement/aa_matrix.sh RUNS LOAD [bench-versions options...]
#     LOAD: none, or make (a copy of kernels/ rebuilt with make -j2 in a loop
#           for the whole experiment: the "parallel build beside CI" case)
#   e.g. tests/measurement/aa_matrix.sh 10 make --quick --backends scalar,simd,blas
#
# The tool is a snapshot of this checkout's HEAD built into the work
# directory, so later edits to the checkout do not change a running proof.
# Per run it appends one line to $OUT (default
# tests/measurement/logs/aa-<date>.tsv): run, seconds, comparisons, changes
# called, cells each cell's own interval would have called (held by the
# run-wide control), noisy cells, load average at the start and the end.
# Not part of `make test` (it runs for hours); docs/measurement.md reports it.
source "$(dirname "$0")/lib.sh"
RUNS=${1:?runs}
LOAD=${2:?none or make}
shift 2
OPTS=("$@")
proof_env aa
OUT=${OUT:-$ROOT/tests/measurement/logs/aa-$(date -u +%Y%m%dT%H%M%SZ).tsv}
mkdir -p "$(dirname "$OUT")"
proof_tool

# The fixture: a, and aa = a plus a comment (identical code, another tree).
proof_fixture "a" a
if [ "$FIX_NEW" = 1 ]; then
	echo "/* identical code, another tree */" >> "$FIX/kernels/src/scalar.c"
	git -C "$FIX" commit -qam "aa: comment only" && git -C "$FIX" tag aa
fi
proof_load "$LOAD"

[ -s "$OUT" ] || printf 'run\tseconds\tcomparisons\tcalled\theld\tnoisy\tload_start\tload_end\tcommit\tload\toptions\n' > "$OUT"
commit=$COMMIT
for run in $(seq 1 "$RUNS"); do
	l0=$(load_now)
	t0=$(date +%s)
	"$BV" a aa "${OPTS[@]}" --results "$WORK/results" --format json > "$WORK/run-$run.json" 2> "$WORK/run-$run.err" || true
	t1=$(date +%s)
	l1=$(load_now)
	python3 - "$WORK/run-$run.json" "$run" $((t1 - t0)) "$l0" "$l1" "$commit" "$LOAD" "${OPTS[*]}" >> "$OUT" <<'PY'
import json, sys
path, run, secs, l0, l1, commit, load, opts = sys.argv[1:]
try:
    d = json.load(open(path))
except Exception as e:
    print(f"{run}\t{secs}\terror: {e}\t\t\t\t{l0}\t{l1}\t{commit}\t{load}\t{opts}")
    sys.exit(0)
called = held = noisy = 0
for r in d["rows"]:
    for c in r["changes"]:
        if c.get("ratio") is None:
            continue
        if c["verdict"] in ("slower", "faster"):
            called += 1
            print(f"# run {run}: {r['bench']} {r['op']} {r['backend']} {r['size']} {c['verdict']} "
                  f"{c['ratio']:.3f} [{c['ci_low']:.3f}, {c['ci_high']:.3f}] p={c.get('p_value')}", file=sys.stderr)
        held += bool(c.get("held"))
        noisy += bool(c.get("noisy"))
ec = d.get("error_control", {})
print(f"{run}\t{secs}\t{ec.get('comparisons', 0)}\t{called}\t{held}\t{noisy}\t{l0}\t{l1}\t{commit}\t{load}\t{opts}")
PY
	tail -1 "$OUT"
done
