#!/usr/bin/env bash
# why_proof.sh - the default `run` against code that moved but did not change:
# never-run bytes appended to kernels/src/api.c (384, 416 and 448
# bytes: scalar.c and its object byte-identical, only its addresses move),
# measured as a new user would, and the same with --layouts 4.  Per run it
# counts the comparisons called slower/faster, and of those how many carry the
# counts' "placement or machine, not the code" beside them (the default must
# leave none without), and how long each took.
#
#   tests/measurement/why_proof.sh RUNS LOAD     (LOAD: none, or make)
#
# One line per run and mode to $OUT (default
# tests/measurement/logs/why-<date>.tsv).  Not part of `make test`.
source "$(dirname "$0")/lib.sh"
RUNS=${1:?runs}
LOAD=${2:?none or make}
proof_env why
OUT=${OUT:-$ROOT/tests/measurement/logs/why-$(date -u +%Y%m%dT%H%M%SZ).tsv}
mkdir -p "$(dirname "$OUT")"
proof_tool

proof_fixture "the library as it is" base
if [ "$FIX_NEW" = 1 ]; then
	for pad in 384 416 448; do
		git -C "$FIX" checkout -q base
		printf '\n__attribute__((used)) static void pad(void) { __asm__(".skip %d"); }\n' "$pad" >> "$FIX/kernels/src/api.c"
		git -C "$FIX" commit -qam "pad $pad" && git -C "$FIX" tag "pad$pad"
	done
	git -C "$FIX" checkout -q base
fi
proof_load "$LOAD"

SEL=(--benches binary --ops add,mul --backends scalar --sizes 64K,1M)
[ -s "$OUT" ] || printf 'run\tmode\tcomparisons\tcalled\texplained_placement\tunexplained\tseconds\tload_start\tload_end\tcommit\tload\n' > "$OUT"
for run in $(seq 1 "$RUNS"); do
	for mode in default layouts4; do
		extra=()
		[ "$mode" = layouts4 ] && extra=(--layouts 4 --counts none)
		l0=$(load_now)
		t0=$(date +%s.%N)
		"$BV" base pad384 pad416 pad448 "${SEL[@]}" "${extra[@]}" --results "$WORK/results" --format json \
			> "$WORK/run-$run-$mode.json" 2> "$WORK/run-$run-$mode.err" || true
		t1=$(date +%s.%N)
		l1=$(load_now)
		python3 - "$WORK/run-$run-$mode.json" "$run" "$mode" "$t0" "$t1" "$l0" "$l1" "$COMMIT" "$LOAD" >> "$OUT" <<'PY'
import json, sys
path, run, mode, t0, t1, l0, l1, commit, load = sys.argv[1:]
d = json.load(open(path))
n = called = explained = 0
for r in d["rows"]:
    for c in r["changes"]:
        n += 1
        if c["verdict"] in ("slower", "faster"):
            called += 1
            w = c.get("counts")
            if w and w["kind"] == "placement":
                explained += 1
print(f"{run}\t{mode}\t{n}\t{called}\t{explained}\t{called - explained}\t{float(t1) - float(t0):.0f}\t{l0}\t{l1}\t{commit}\t{load}")
PY
		tail -1 "$OUT"
	done
done
