#!/usr/bin/env python3
"""runner_split_aa.py WORK PAIRS: the report of runner_split_aa.sh, from the
runs it kept in WORK (res-SIDE-N/, the results directories; table-SIDE-N.json,
the tables as JSON; SIDE old or new, N 1..PAIRS).  Run again by hand on a
directory kept with KEEP_TMP=1.

Each run's time of a cell is the geometric mean of its two versions' median_ns
(`local local`: the same code twice), read from the per-version logs as
same_cells.py reads them.  Pair p is old run p and new run p, measured one
after the other; its ratio for a cell is new/old.  Per cell: the geometric mean
of the pairs' ratios, their range (lowest, highest: an order-statistic
interval for the median ratio, of coverage 1 - 2^(1-PAIRS)) and a 95 %
bootstrap interval resampling the pairs.  Overall: the geometric mean over
cells, with its bootstrap interval over the pairs (a pair is the unit: its
cells ran in the same minutes, on the same machine state) and the range of
the pairs' own overall ratios.  For scale, the same overall ratio between two
runs of one side (old run N / old run 1, new run N / new run 1): what the
machine alone moves between runs.  Then each run's A/A verdicts (a `slower`
or `faster` between `local` and `local` is a false call).  Exit 0, or 1 when
no cell was measured in every run.
"""
import glob
import json
import math
import os
import random
import sys


def run_times(work, side, n):
    """{cell: geometric mean of the two versions' median_ns} of one run."""
    per = {}
    for path in glob.glob(os.path.join(work, f"res-{side}-{n}", "*", "*.json")):
        if os.path.islink(os.path.dirname(path)):  # latest/, the run's directory again
            continue
        doc = json.load(open(path))
        if not isinstance(doc, dict) or "version" not in doc or "cells" not in doc:
            continue
        for c in doc["cells"]:
            m = c.get("median_ns")
            if c.get("status") == "ok" and m:
                per.setdefault((c["bench"], c["op"], c["backend"], c["size"]), []).append(m)
    return {k: gm(v) for k, v in per.items() if len(v) == 2}


def verdicts(work, side, n):
    """(number of slower/faster calls, the calls), or (None, why)."""
    try:
        d = json.load(open(os.path.join(work, f"table-{side}-{n}.json")))
    except (OSError, ValueError) as e:
        return None, f"no table ({e})"
    called = [f"{r['bench']} {r['op']} {r['backend']} {size(r['size'])} {c['verdict']} {c.get('ratio', 0):.3f}"
              for r in d["rows"] for c in r.get("changes", []) if c.get("verdict") in ("slower", "faster")]
    return len(called), called


def gm(xs):
    return math.exp(sum(map(math.log, xs)) / len(xs))


def size(s):
    if not isinstance(s, int):
        return str(s)
    for u, k in (("M", 1 << 20), ("K", 1 << 10)):
        if s >= k and s % k == 0:
            return f"{s // k}{u}"
    return str(s)


def main():
    work, pairs = sys.argv[1], int(sys.argv[2])
    old = [run_times(work, "old", i) for i in range(1, pairs + 1)]
    new = [run_times(work, "new", i) for i in range(1, pairs + 1)]
    cells = sorted(set.intersection(*(set(r) for r in old + new)))
    if not cells:
        print(f"no cell measured in every run: see {work}")
        return 1
    ratio = [[new[p][c] / old[p][c] for c in cells] for p in range(pairs)]
    rng = random.Random(1)
    draws = [[rng.randrange(pairs) for _ in range(pairs)] for _ in range(4000)]

    def boot(stat):
        vals = sorted(stat(idx) for idx in draws)
        return vals[int(0.025 * len(vals))], vals[int(0.975 * len(vals)) - 1]

    print(f"| cell | old ns | new ns | new/old, geomean of {pairs} | range over the pairs | 95 % bootstrap |")
    print("|---|---:|---:|---:|---|---|")
    outside = 0
    for j, c in enumerate(cells):
        rs = [ratio[p][j] for p in range(pairs)]
        lo, hi = boot(lambda idx: gm([rs[i] for i in idx]))
        outside += not lo <= 1 <= hi
        o, n = gm([old[p][c] for p in range(pairs)]), gm([new[p][c] for p in range(pairs)])
        print(f"| {c[0]} {c[1]} {c[2]} {size(c[3])} | {o:.4g} | {n:.4g} | {gm(rs):.4f} | "
              f"[{min(rs):.4f}, {max(rs):.4f}] | [{lo:.4f}, {hi:.4f}] |")

    def overall(idx):
        return gm([gm([ratio[i][j] for i in idx]) for j in range(len(cells))])

    lo, hi = boot(overall)
    per_pair = [gm(ratio[p]) for p in range(pairs)]
    print()
    print(f"overall new/old over {len(cells)} cells: {overall(range(pairs)):.4f}, 95 % bootstrap over the "
          f"{pairs} pairs [{lo:.4f}, {hi:.4f}]; the pairs' own: {', '.join(f'{x:.4f}' for x in per_pair)} "
          f"(range [{min(per_pair):.4f}, {max(per_pair):.4f}])")
    print(f"cells whose own bootstrap interval leaves out 1: {outside} of {len(cells)} "
          f"(intervals from {pairs} pairs are coarse and each cell's is at 95 %: some by chance)")
    for side, runs in (("old", old), ("new", new)):
        drift = [gm([runs[k][c] / runs[0][c] for c in cells]) for k in range(1, pairs)]
        print(f"for scale, {side} run N / {side} run 1 over the same cells, N = 2..{pairs}: "
              + ", ".join(f"{x:.4f}" for x in drift))
    for side in ("old", "new"):
        for i in range(1, pairs + 1):
            n, called = verdicts(work, side, i)
            print(f"A/A {side} run {i}: " + (called if n is None else
                  f"{n} slower/faster" + (": " + "; ".join(called) if called else "")))
    print("verdict: " + ("no shift beyond the run's interval (the overall interval holds 1)" if lo <= 1 <= hi
                         else f"a shift: the overall interval [{lo:.4f}, {hi:.4f}] leaves out 1"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
