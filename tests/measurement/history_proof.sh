#!/usr/bin/env bash
# history_proof.sh - the proof run for `history`: a 30-commit history
# with two planted steps (+5 % at commit 10, -20 % at commit 20) and
# noise-only commits between, and a 30-commit A/A history; how often the
# steps are found at the right commits, and how often the A/A history has any
# change point.
#
#   tests/measurement/history_proof.sh RUNS LOAD [history options...]
#     LOAD: none, or make (a copy of kernels/ rebuilt with make -j2 in a loop)
#   e.g. tests/measurement/history_proof.sh 10 none --quick
#
# The plant is plant.sh's, at kn_unary_ex only: before the real call, the
# entry point does the same call on the middle P per mille of the elements,
# P a variable in .data, so every commit has the same machine code.  P is 250
# at commit 0 (so that the history can also get faster), 312 from commit 10
# (1.312 / 1.25 = +5.0 % more work), 50 from commit 20 (1.05 / 1.312 = -20.0
# %).  A noise commit appends a comment to api.c: a new tree, a new build key
# and a new build of the same machine code, so each of its steps is a real A/A
# step measured as any other (a commit outside the library would share one
# build and one stored step).  The A/A history is commit 0 and 29 noise
# commits.  Each run is a fresh `history` (--no-store) of each series, one
# line per run and series in $OUT (default
# tests/measurement/logs/history-<date>.tsv).  Not part of `make test`.
source "$(dirname "$0")/lib.sh"
RUNS=${1:?runs}
LOAD=${2:?none or make}
shift 2
OPTS=("$@")
proof_env history
OUT=${OUT:-$ROOT/tests/measurement/logs/history-$(date -u +%Y%m%dT%H%M%SZ).tsv}
mkdir -p "$(dirname "$OUT")"
proof_tool
# The library without its cuda backend: nvcc would take most of the 59
# builds' time, and the proof measures a scalar cell.
proof_fixture "the library as it is" orig
if [ "$FIX_NEW" = 1 ]; then
	sed -i 's/^CUDA    ?= auto$/CUDA    ?= 0/' "$FIX/kernels/Makefile"
	plant() { # plant PERMILLE: api.c's kn_unary_ex does P per mille more work
		python3 - "$FIX/kernels/src/api.c" "$1" <<'PY'
import re, sys
path, pm = sys.argv[1], int(sys.argv[2])
s = open(path).read()
if "kn_planted_permille" in s:
    s = re.sub(r"kn_planted_permille_plus_1000 = \d+;", "kn_planted_permille_plus_1000 = %d;" % (1000 + pm), s)
else:
    s = s.replace("#include", "static volatile int kn_planted_permille_plus_1000 = %d;\n"
                  "#define PART(n) ((n) * (size_t)(kn_planted_permille_plus_1000 - 1000) / 1000)\n"
                  "#define AT(n) (((n) - PART(n)) / 2)\n#include" % (1000 + pm), 1)
    head = "kn_status kn_unary_ex("
    i = s.index(head)
    sig_end = s.index(")", i) + 1
    params = s[i + len(head):sig_end - 1]
    names = [re.search(r"(\w+)\s*$", q.strip()).group(1) for q in params.split(",")]
    body_end = s.index("\n}\n", sig_end) + 3
    wrapper = ("\n/* planted: a variable share of more work */\nkn_status kn_unary_ex(%s)\n{\n"
               "\tif (PART(n) > 0)\n\t\t(void)kn_unary_ex__full(b, op, x + AT(n), y + AT(n), PART(n), p);\n"
               "\treturn kn_unary_ex__full(%s);\n}\n" % (params, ", ".join(names)))
    s = s[:i] + "static kn_status kn_unary_ex__full(" + params + ")" + s[sig_end:body_end] + wrapper + s[body_end:]
open(path, "w").write(s)
PY
	}
	noise() { echo "/* noise commit $1 */" >> "$FIX/kernels/src/api.c"; git -C "$FIX" commit -qam "noise $1"; }
	plant 250
	git -C "$FIX" commit -qam "plant: 250 per mille more work" && git -C "$FIX" tag c0
	git -C "$FIX" branch aa-base c0
	for i in $(seq 1 29); do
		case $i in
		10) plant 312 && git -C "$FIX" commit -qam "step: +5 % (312 per mille)" && git -C "$FIX" tag c10 ;;
		20) plant 50 && git -C "$FIX" commit -qam "step: -20 % (50 per mille)" && git -C "$FIX" tag c20 ;;
		*) noise "$i" ;;
		esac
	done
	git -C "$FIX" branch steps
	git -C "$FIX" checkout -q aa-base
	git -C "$FIX" checkout -q -b aa
	for i in $(seq 1 29); do noise "aa-$i"; done
	git -C "$FIX" checkout -q steps
fi
proof_load "$LOAD"

[ -s "$OUT" ] || printf 'run\tseries\tsteps\tchanges\tplus5_found\tminus20_found\tother_changes\tplus5_ratio\tminus20_ratio\tseconds\tload_start\tload_end\tcommit\tload\toptions\n' > "$OUT"
c9=$(git -C "$FIX" rev-parse c10~1) c10=$(git -C "$FIX" rev-parse c10)
c19=$(git -C "$FIX" rev-parse c20~1) c20=$(git -C "$FIX" rev-parse c20)
for run in $(seq 1 "$RUNS"); do
	for series in steps aa; do
		l0=$(load_now) t0=$(date +%s)
		"$BV" history "c0..$series" --benches unary --ops relu --backends scalar --sizes 64K --no-store \
			"${OPTS[@]}" --results "$WORK/results" --format json > "$WORK/h-$run-$series.json" \
			2> "$WORK/h-$run-$series.err" || true
		l1=$(load_now) t1=$(date +%s)
		python3 - "$WORK/h-$run-$series.json" "$run" "$series" "$c9" "$c10" "$c19" "$c20" $((t1 - t0)) \
			"$l0" "$l1" "$COMMIT" "$LOAD" "${OPTS[*]}" >> "$OUT" <<'PY'
import json, sys
path, run, series, c9, c10, c19, c20, secs, l0, l1, commit, load, opts = sys.argv[1:]
try:
    d = json.load(open(path))
except Exception:
    print("\t".join([run, series, "error", "", "", "", "", "", "", secs, l0, l1, commit, load, opts]))
    sys.exit(0)
steps = len(d["versions"]) - 1
ch = d["changes"]
def at(a, b, direction):
    return [c for c in ch if c.get("from_commit") == a and c.get("to_commit") == b and c["direction"] == direction]
p5, m20 = at(c9, c10, "slower"), at(c19, c20, "faster")
other = len(ch) - len(p5) - len(m20)
print("\t".join(str(x) for x in [run, series, steps, len(ch), int(bool(p5)), int(bool(m20)), other,
                                 "%.4f" % p5[0]["ratio"] if p5 else "", "%.4f" % m20[0]["ratio"] if m20 else "",
                                 secs, l0, l1, commit, load, opts]))
PY
		tail -1 "$OUT"
	done
done
echo "written: $OUT"
