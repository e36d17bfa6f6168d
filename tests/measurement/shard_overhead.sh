#!/usr/bin/env bash
# shard_overhead.sh - what sharding adds to a comparison of the full matrix,
# apart from the measuring itself: `plan` (resolve the versions, cut the
# matrix) and the join of the N shards' logs by `compare` (load, check,
# join, merge, decide every verdict together, print the table).  The bar:
# both together under 1 s.  docs/scale-out.md reports it.
#
#   [PROCS=P] tests/measurement/shard_overhead.sh [SHARDS [VERSION...]]
#     default: 8 shards of 0.1.0 main (this repository's own history);
#     PROCS: processes per cell, 10 (default: what the default method's
#     cells take when their interval decides at once) to 60 (its most)
#
# Measuring the full matrix takes an hour, so the shards' logs are made up
# here from the plan itself: every cell of the default matrix, in the cut
# plan gives, each with PROCS processes of 21 rounds (the default method),
# each process's median, ratio and machine state, as a real log has them.
# The tool is this checkout's bin/bench-versions (make all first).  Prints
# one line per step, with the load average, and the total; then the join's
# own share: compare of the same logs already joined (--join-to) into one
# run's directory.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BV=${BV:-$ROOT/bin/bench-versions}
N=${1:-8}
shift || true
[ $# -gt 0 ] || set -- 0.1.0 main
WORK=$(mktemp -d /tmp/bv-shard-overhead-XXXXXX)
if [ -n "${KEEP:-}" ]; then echo "work directory (kept): $WORK"; else trap 'rm -rf "$WORK"' EXIT; fi
export BENCH_VERSIONS_CACHE=${BENCH_VERSIONS_CACHE:-$WORK/cache}
cd "$ROOT"

now() { date +%s.%N; }
t0=$(now)
"$BV" plan "$@" --shards "$N" --format json > "$WORK/plan.json" 2> "$WORK/plan.err"
t1=$(now)

python3 - "$WORK/plan.json" "$WORK" <<'PY'
import json, os, random, sys
plan = json.load(open(sys.argv[1]))
work = sys.argv[2]
rng = random.Random(17)
def packed(size):
    dims = [int(d) for d in size.split("x")]
    if len(dims) == 1:
        return dims[0]
    n = (len(dims) << 48) | (dims[0] << 32) | (dims[1] << 16)
    return n | (dims[2] if len(dims) == 3 else 0)
def count(s):
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(s[:-1]) * mult[s[-1]] if s[-1] in mult else int(s)
labels = [v["label"] for v in plan["versions"]]
block = {"id": plan["plan"], "index": 0, "count": plan["count"],
         "versions": [{"label": v["label"], "name": v["name"], "build_key": v["build_key"]} for v in plan["versions"]],
         "cells": plan["cells"], "method": plan["method"]}
procs, rounds = int(os.environ.get("PROCS", "10")), 21
lo, hi = procs // 3, procs - 1 - procs // 3  # an interval around the median, as the loader wants
for s in plan["shards"]:
    d = os.path.join(work, "shard-%d" % s["index"])
    os.makedirs(d)
    block["index"] = s["index"]
    for k, label in enumerate(labels):
        cells = []
        for key in s["cells"]:
            bench, op, backend, size = key.split("/")
            size = packed(size) if "x" in size else count(size)
            med = rng.uniform(1e3, 1e6)
            samples = [[med * rng.uniform(0.98, 1.02) for _ in range(rounds)] for _ in range(procs)]
            medians = sorted(sorted(r)[rounds // 2] for r in samples)
            cell = {"bench": bench, "op": op, "backend": backend, "size": size, "status": "ok",
                    "processes": procs, "samples": procs * rounds, "median_ns": medians[procs // 2],
                    "median_ns_ci_low": medians[lo], "median_ns_ci_high": medians[hi],
                    "process_medians_ns": medians, "samples_ns": samples}
            if k > 0:
                ratios = [rng.uniform(0.99, 1.01) for _ in range(procs)]
                r = sorted(ratios)
                state = [{"loadavg": [1.0, 1.1], "running": [2, 2], "probe_gbps": [10.0, 10.5],
                          "probe_compute_ns": [0.3, 0.31]} for _ in range(procs)]
                cell["change"] = {"baseline": labels[0], "mode": "paired", "ratio": r[procs // 2],
                                  "ratio_ci_low": r[lo], "ratio_ci_high": r[hi], "coverage": 0.95,
                                  "processes": procs, "process_ratios": ratios, "process_state": state}
            cells.append(cell)
        doc = {"schema": "bench-versions-results", "schema_version": "1.5",
               "run": {"id": "shard-%d" % s["index"], "status": "complete", "baseline": labels[0],
                       "versions": labels},
               "version": {"label": label, "name": label, "kernel_version": "0.1.0"},
               "machine": {"hostname": "node%d" % s["index"], "cpu": "synthetic"},
               "method": dict(plan["method"], processes_started=procs),
               "shard": block, "cells": cells}
        json.dump(doc, open(os.path.join(d, label + ".json"), "w"))
PY

t2=$(now)
"$BV" compare "$WORK"/shard-* > "$WORK/table" 2> "$WORK/compare.err"
t3=$(now)
"$BV" compare "$WORK"/shard-* --join-to "$WORK/joined" > /dev/null 2>&1
t4=$(now)
"$BV" compare "$WORK/joined" > /dev/null 2>&1
t5=$(now)
cells=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["cells"]))' "$WORK/plan.json")
mb=$(cat "$WORK"/shard-*/*.json | wc -c | awk '{printf "%.0f", $1 / 1e6}')
python3 - "$t0" "$t1" "$t2" "$t3" "$t4" "$t5" "$cells" "$N" "$mb" "$(cut -d' ' -f1-3 /proc/loadavg)" "$(nproc)" <<'PY'
import sys
t0, t1, t2, t3, t4, t5 = (float(x) for x in sys.argv[1:7])
cells, n, mb, load, cpus = sys.argv[7:12]
print("plan:  %.3f s (%s cells, %s shards)" % (t1 - t0, cells, n))
print("join:  %.3f s (compare of the %s shard directories, %s MB of logs)" % (t3 - t2, n, mb))
print("total: %.3f s; load average %s on %s CPUs" % ((t1 - t0) + (t3 - t2), load, cpus))
print("of which the join's own: %.3f s (compare of the same logs as one run's directory: %.3f s)"
      % ((t3 - t2) - (t5 - t4), t5 - t4))
PY
