#!/usr/bin/env bash
# backend_view.sh - the proof run for the backend view: `--vs-backend`
# over the whole CPU matrix of one version (every bench, op and size, the
# scalar, simd and blas backends), checked cell by cell against the
# per-backend medians: the view's paired ratio against the quotient of the
# two backends' medians over processes (unpaired, what a user would divide by
# hand), and its verdict against where that quotient lies.
#
#   tests/measurement/backend_view.sh [VERSION [REF [run options...]]]
#     default: local simd --quick
#   PLAIN=1 also runs the same matrix without --vs-backend (an ordinary run)
#   and checks the view against that run's medians too (twice the time).
#
# Writes one line per compared cell and a summary to $OUT (default
# tests/measurement/logs/backend-view-<date>.tsv; JSON=1: the run's JSON
# beside it); prints the
# summary.  The machine's load is recorded before and after.  Not part of
# `make test` (the whole matrix takes 30-60 minutes with --quick).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BV=${BV:-$ROOT/bin/bench-versions}
VERSION=${1:-local}
REF=${2:-simd}
shift 2 2> /dev/null || shift $#
[ $# -gt 0 ] || set -- --quick
OUT=${OUT:-$ROOT/tests/measurement/logs/backend-view-$(date -u +%Y%m%dT%H%M%SZ).tsv}
WORK=$(mktemp -d /tmp/bv-backend-view-XXXXXX)
mkdir -p "$(dirname "$OUT")"
export KERNEL_DIR=${KERNEL_DIR:-$ROOT/kernels}
sel=(--backends scalar,simd,blas --results "$WORK/results")

load() { cut -d' ' -f1-3 /proc/loadavg; }
commit=$(git -C "$ROOT" rev-parse --short HEAD) # the tool's, before anything runs
l0=$(load) t0=$(date +%s)
"$BV" "$VERSION" "${sel[@]}" --vs-backend "$REF" --format json "$@" > "$WORK/view.json" 2> "$WORK/view.err"
rc=$?
l1=$(load) t1=$(date +%s)
if [ $rc -ne 0 ]; then
	echo "backend_view: the run failed (exit $rc):" >&2
	tail -5 "$WORK/view.err" >&2
	exit 1
fi
plain=
if [ -n "${PLAIN:-}" ]; then
	"$BV" "$VERSION" "${sel[@]}" --format json "$@" > "$WORK/plain.json" 2> "$WORK/plain.err" || {
		echo "backend_view: the ordinary run failed" >&2
		exit 1
	}
	plain=$WORK/plain.json
fi
l2=$(load) t2=$(date +%s)
[ -z "${JSON:-}" ] || cp "$WORK/view.json" "${OUT%.tsv}.json"

python3 - "$WORK/view.json" "$OUT" "$REF" "$VERSION" "$*" "$l0" "$l1" "$l2" \
	"$((t1 - t0))" "$((t2 - t1))" "$commit" \
	"$(grep -m1 -o 'avx512f' /proc/cpuinfo || echo avx2)" "$plain" <<'PY'
import json, statistics, sys
view, out, ref, version, opts, l0, l1, l2, s1, s2, commit, isa, plain = sys.argv[1:14]
v = json.load(open(view))
def medians(doc):
    m = {}
    for r in doc["rows"]:
        for x in r["results"]:
            if x["status"] == "ok" and x["median_ns"]:
                m[(r["bench"], r["op"], r["size"], r["backend"])] = x["median_ns"]
    return m
mv = medians(v)
mp = medians(json.load(open(plain))) if plain else None
b = v["backends"]
assert b and b["reference"] == ref, "no backend view in the run's JSON"
rows, devs, pdevs, bad = [], [], [], []
agree = called = 0
for c in b["cells"]:
    if c["ratio"] is None:
        continue
    key = (c["bench"], c["op"], c["size"])
    q = mv[key + (c["backend"],)] / mv[key + (ref,)]
    dev = c["ratio"] / q
    devs.append(abs(dev - 1))
    pq = pdev = None
    if mp and key + (c["backend"],) in mp and key + (ref,) in mp:
        pq = mp[key + (c["backend"],)] / mp[key + (ref,)]
        pdev = c["ratio"] / pq
        pdevs.append(abs(pdev - 1))
    # the verdict against the quotient: a called change must lie on the
    # quotient's side of 1; a `same` must have a quotient near 1
    verdict = c["verdict"]
    called += verdict in ("faster", "slower")
    ok = ((verdict == "faster" and q < 1) or (verdict == "slower" and q > 1) or
          (verdict == "same" and 0.9 < q < 1.1) or verdict == "inconclusive")
    agree += ok
    if not ok or abs(dev - 1) > 0.25:
        bad.append((c["bench"], c["op"], c["backend"], c["size"], c["ratio"], q, verdict))
    rows.append((c["bench"], c["op"], c["backend"], c["size"], c["ratio"], c["ratio_ci_low"],
                 c["ratio_ci_high"], c["processes"], verdict, q, dev, pq, pdev))
n = len(rows)
def share(xs, lim):
    return sum(x <= lim for x in xs) / len(xs) if xs else float("nan")
with open(out, "w") as f:
    f.write("# backend view vs %s, version %s, options %s, tool %s, %s; load %s before, %s after the view, %s after the plain run; %s s (view) + %s s (plain)\n"
            % (ref, version, opts, commit, isa, l0, l1, l2, s1, s2))
    f.write("bench\top\tbackend\tsize\tratio\tlo\thi\tprocesses\tverdict\tmedian_quotient\tratio_over_quotient\tplain_quotient\tratio_over_plain\n")
    for r in rows:
        f.write("\t".join("" if x is None else ("%.4f" % x if isinstance(x, float) else str(x)) for x in r) + "\n")
summary = [
    "backend view vs %s over the CPU matrix of %s (%s; %s): %d paired ratios, %d called faster or slower" % (ref, version, opts, isa, n, called),
    "  ratio / the same run's median quotient: median |dev| %.1f %%, within 10 %%: %.0f %%, within 25 %%: %.0f %%, largest %.1f %%"
    % (100 * statistics.median(devs), 100 * share(devs, 0.10), 100 * share(devs, 0.25), 100 * max(devs)),
]
if pdevs:
    summary.append("  ratio / an ordinary run's median quotient: median |dev| %.1f %%, within 10 %%: %.0f %%, within 25 %%: %.0f %%, largest %.1f %%"
                   % (100 * statistics.median(pdevs), 100 * share(pdevs, 0.10), 100 * share(pdevs, 0.25), 100 * max(pdevs)))
summary.append("  verdicts on the quotient's side (faster < 1 < slower, same within 10 %%): %d of %d" % (agree, n))
summary.append("  load %s before, %s after; %s s" % (l0, l1, s1))
for x in bad[:20]:
    summary.append("  off: %s/%s/%s/%s ratio %.3f, quotient %.3f, %s" % x)
with open(out, "a") as f:
    for s in summary:
        f.write("# " + s + "\n")
print("\n".join(summary))
print("log: " + out)
PY
rm -rf "$WORK"
