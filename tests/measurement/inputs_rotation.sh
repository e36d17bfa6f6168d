#!/usr/bin/env bash
# inputs_rotation.sh - what --inputs N does to a data-dependent branch
# (docs/measurement.md reports it): release 0.1.0's
# scalar relu is a compare-and-jump on mixed-sign data.  At 1K elements one
# buffer is learned by the branch predictor; at 64K it is not.  For each N,
# one run times both sizes in the same processes, and the ratio of their
# per-element times (1K over 64K, within the run: drift between runs
# cancels) says how much of the branch's cost the small cell hides.
#
#   tests/measurement/inputs_rotation.sh [N...]     (default: 1 8 64)
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BV=${BV:-$ROOT/bin/bench-versions}
WORK=$(mktemp -d /tmp/bv-inputs-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
[ $# -gt 0 ] || set -- 1 8 64
cd "$ROOT"
isa=$(grep -qw avx512f /proc/cpuinfo && echo AVX-512 || { grep -qw avx2 /proc/cpuinfo && echo AVX2 || echo "no AVX2"; })
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs, $isa; load average $(cut -d' ' -f1 /proc/loadavg)"
for n in "$@"; do
	"$BV" 0.1.0 --benches unary --ops relu --backends scalar --sizes 1K,64K --inputs "$n" \
		--results "$WORK/r$n" > /dev/null 2> "$WORK/err$n"
	python3 - "$n" "$WORK/r$n" <<'PY'
import glob, json, sys
n, d = sys.argv[1], sys.argv[2]
(p,) = glob.glob(d + "/[0-9]*/0.1.0.json")
cells = {c["size"]: c for c in json.load(open(p))["cells"]}
per = {s: cells[s]["median_ns"] / s for s in (1024, 65536)}
print("--inputs %-3s relu scalar: 1K %.2f ns/element (%s sets), 64K %.2f ns/element (%s sets); 1K/64K %.3f"
      % (n, per[1024], cells[1024].get("input_sets", 1), per[65536], cells[65536].get("input_sets", 1),
         per[1024] / per[65536]))
PY
done
