#!/usr/bin/env python3
"""publish_scale.py - many shared runs made from one real run, for measuring
`bench-versions publish` at scale (tests/measurement/publish_scale.sh).

    publish_scale.py TEMPLATE_DIR OUT_DIR [--runs N] [--first J] [--classes K]
                     [--span S] [--seed SEED] [--jobs J] [--level L]

TEMPLATE_DIR is one real run's results directory (results/<id>/, two or more
versions: the baseline's log and one compared version's log are used).
OUT_DIR gets runs J .. J+N-1 (default 0 .. 999) as the server stores uploads:
`<msec>-<request id>.tar.gz`, each the archive `share` makes of a run
(`<run.id>/<label>.json`, ustar, gzip).  Run j is the same whatever else is
generated (its own seeded generator), so `--first 1000 --runs 1` adds the
1001st run of the same series.

What varies, and why publish cannot tell the runs from real ones:
- K machine classes (default 10): machine.class, machine.cpu,
  calibration.isa (avx512f or avx2), simd_isa, cores/cpus, hostname differ per
  class, so each class is its own class key too.
- The versions: releases 0.1.0 .. 0.12.0; run j compares two or three of
  them (mostly consecutive, the newest release out at its time and the one or
  two before; sometimes an older pair), the oldest as the baseline.
  version.label/name/kernel_version, run.versions/baseline and every cell's
  change.baseline agree.
- The figures: each cell's times are the template's scaled by a factor of
  (class, release, cell): the class's speed (simd slower on avx2, blas its
  own), each release's steps (small jitter; some releases regress or improve
  an op or a backend on some classes by 15-60 %, some of them undone in the
  next release), and 1 % of noise per run.  Every per-process number is
  scaled by the same factor (samples_ns, process_medians_ns, the median and
  its interval), so median_ns is still the median of process_medians_ns;
  change.ratio, its process_ratios and its interval are scaled by the ratio
  of the two versions' factors, so the ratio is still the median of its
  process ratios, and a planted regression is called slower by compare.
- The load: most runs quiet, some loaded (the process loadavg and the
  calibration's load average scaled), so publish's quiet/loaded has both.
- run.id: a timestamp, 6 hours apart per run (unique), created a few seconds
  after.

Python standard library only; deterministic for a seed; 1000 runs of the
60-cell, 2-version template in about 20-40 s on 2 cores (--jobs 2).
"""
import argparse
import gzip
import hashlib
import io
import json
import math
import os
import random
import sys
import tarfile
import time
from multiprocessing import Pool

RELEASES = ["0.%d.0" % i for i in range(1, 13)]

# CPU models the classes take in turn (ISA: what calibration.isa records).
CPUS = [
    ("AMD EPYC 9654 96-Core Processor", "avx512f", 192, "epyc9654"),
    ("Intel(R) Xeon(R) Platinum 8480+", "avx512f", 112, "xeon8480"),
    ("AMD Ryzen 9 7950X 16-Core Processor", "avx512f", 32, "ryzen7950x"),
    ("Intel(R) Core(TM) i7-12700K", "avx2", 20, "i7-12700k"),
    ("AMD Ryzen 9 5950X 16-Core Processor", "avx2", 32, "ryzen5950x"),
    ("Intel(R) Xeon(R) CPU E5-2686 v4 @ 2.30GHz", "avx2", 4, "xeon2686v4"),
    ("AMD EPYC 7763 64-Core Processor", "avx2", 16, "epyc7763"),
    ("Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz", "avx512f", 8, "xeon6338"),
    ("Intel(R) Core(TM) i5-8250U CPU @ 1.60GHz", "avx2", 8, "i5-8250u"),
    ("AMD EPYC 9R14 96-Core Processor", "avx512f", 4, "epyc9r14"),
]
ENC = json.JSONEncoder(check_circular=False).encode  # the documents are trees
LOADS = (0.4, 1.3, 250.0)  # the highest process loadavg of a run: quiet, quiet, loaded


def die(msg):
    sys.stderr.write("publish_scale.py: %s\n" % msg)
    sys.exit(2)


# ---- the template ----------------------------------------------------------

SCALED = ("median_ns", "median_ns_ci_low", "median_ns_ci_high", "process_medians_ns", "samples_ns")
INVERSE = ("gbps", "gflops", "pct_copy_bandwidth", "pct_peak_flops")
CHANGE_SCALED = ("ratio", "ratio_ci_low", "ratio_ci_high", "process_ratios")


class Cell:
    """One template cell: what stays (static), what scales, and its
    process_state pre-serialized per load (it is not scaled by the figures)."""

    def __init__(self, d, max_load):
        self.key = (d["bench"], d["op"], d["backend"], d["size"])
        self.ok = d.get("status") == "ok"
        self.static = {k: v for k, v in d.items() if k not in SCALED and k not in INVERSE and k != "change"}
        self.scaled = {k: d[k] for k in SCALED if k in d}
        self.inverse = {k: d[k] for k in INVERSE if k in d and isinstance(d[k], (int, float))}
        ch = d.get("change")
        self.change = None
        if ch:
            self.change = {k: v for k, v in ch.items() if k not in CHANGE_SCALED and k != "process_state"}
            self.change_scaled = {k: ch[k] for k in CHANGE_SCALED if k in ch}
            st = ch.get("process_state")
            self.states = []
            for load in LOADS:
                if st is None:
                    self.states.append(None)
                    continue
                s = load / max_load if max_load > 0 else 1.0
                out = []
                for p in st:
                    q = dict(p)
                    if isinstance(p.get("loadavg"), list):
                        q["loadavg"] = [round(x * s, 2) if isinstance(x, (int, float)) else x for x in p["loadavg"]]
                    out.append(q)
                self.states.append(json.dumps(out))

    def dumps(self, f, rf, load_i, baseline):
        c = dict(self.static)
        if self.ok:
            for k, v in self.scaled.items():
                if k == "samples_ns":
                    c[k] = [[x * f for x in p] for p in v]
                elif isinstance(v, list):
                    c[k] = [x * f for x in v]
                else:
                    c[k] = v * f
            for k, v in self.inverse.items():
                c[k] = v / f
        else:
            c.update(self.scaled)
            c.update(self.inverse)
        s = ENC(c)
        if self.change is None:
            return s
        ch = dict(self.change)
        ch["baseline"] = baseline
        for k, v in self.change_scaled.items():
            ch[k] = [x * rf for x in v] if isinstance(v, list) else (v * rf if isinstance(v, (int, float)) else v)
        cs = ENC(ch)
        st = self.states[load_i]
        if st is not None:
            cs = cs[:-1] + ', "process_state": ' + st + "}"
        return s[:-1] + ', "change": ' + cs + "}"


def load_template(tdir):
    logs = {}
    for name in sorted(os.listdir(tdir)):
        if not name.endswith(".json"):
            continue
        try:
            d = json.load(open(os.path.join(tdir, name)))
        except (OSError, ValueError):
            continue
        if isinstance(d, dict) and d.get("schema") == "bench-versions-results":
            logs[d["version"]["label"]] = d
    if len(logs) < 2:
        die("%s: a template needs a run of two or more versions (LABEL.json each)" % tdir)
    any_log = next(iter(logs.values()))
    base = any_log["run"]["baseline"]
    others = [v for v in any_log["run"]["versions"] if v != base and v in logs]
    if base not in logs or not others:
        die("%s: the baseline's log and a compared version's log are needed" % tdir)
    b, o = logs[base], logs[others[0]]
    max_load = 0.0
    for d in (b, o):
        for c in d["cells"]:
            for p in (c.get("change") or {}).get("process_state") or []:
                for x in p.get("loadavg") or []:
                    if isinstance(x, (int, float)):
                        max_load = max(max_load, x)
    bcells = [Cell(c, max_load) for c in b["cells"]]
    ocells = [Cell(c, max_load) for c in o["cells"]]
    okeys = {c.key: c for c in ocells}
    pairs = [(c, okeys[c.key]) for c in bcells if c.key in okeys and okeys[c.key].change]
    if not pairs:
        die("%s: no cell of %s has a change against %s" % (tdir, others[0], base))
    return b, o, pairs


# ---- the classes and the releases -------------------------------------------


def make_classes(k, seed):
    classes = []
    for i in range(k):
        cpu, isa, cpus, short = CPUS[i % len(CPUS)]
        gen = i // len(CPUS)
        if gen:
            cpu = "%s (v%d)" % (cpu, gen + 1)  # another class key, not a copy
        r = random.Random("%s:class:%d" % (seed, i))
        classes.append({
            "name": "c%02d-%s-%s" % (i, isa.rstrip("f"), short),
            "cpu": cpu,
            "isa": isa,
            "cpus": cpus,
            "hostname": "host-%02d" % i,
            "speed": math.exp(r.uniform(-0.6, 0.6)),
            "simd": 1.0 if isa == "avx512f" else r.uniform(1.4, 1.9),
            "blas": r.uniform(0.8, 1.3),
            "loaded_share": r.choice((0.02, 0.05, 0.1, 0.3)),
            "weight": r.uniform(0.5, 2.0),
        })
    return classes


def release_factors(classes, pairs, seed):
    """vf[class][release][cell]: the cell's time at that release against
    0.1.0, per class: small steps, and the planted changes."""
    ncell = len(pairs)
    r = random.Random("%s:releases" % seed)
    ops = sorted({p[0].key[1] for p in pairs})
    backends = sorted({p[0].key[2] for p in pairs})
    steps = [[[1.0] * ncell for _ in RELEASES] for _ in classes]
    undo = []
    for ri in range(1, len(RELEASES)):
        for ci in range(len(classes)):
            for x in range(ncell):
                steps[ci][ri][x] = math.exp(r.gauss(0, 0.002))
        events = undo
        undo = []
        for _ in range(r.choice((0, 1, 1, 2))):
            by_op = r.random() < 0.6
            what = r.choice(ops if by_op else backends)
            if r.random() < 0.4:
                isa = r.choice(("avx2", "avx512f"))
                hit = [ci for ci, c in enumerate(classes) if c["isa"] == isa]
            else:
                hit = r.sample(range(len(classes)), r.randint(1, max(1, len(classes) // 2)))
            factor = r.choice((1.15, 1.25, 1.4, 1.6, 0.8, 0.7))
            events.append((by_op, what, hit, factor))
            if factor > 1 and r.random() < 0.5:
                undo.append((by_op, what, hit, 1.0 / factor))  # fixed in the next release
        for by_op, what, hit, factor in events:
            for x, (bc, _) in enumerate(pairs):
                if (bc.key[1] if by_op else bc.key[2]) == what:
                    for ci in hit:
                        steps[ci][ri][x] *= factor
    vf = []
    for ci, c in enumerate(classes):
        rows = []
        cur = [c["speed"] * (c["simd"] if bc.key[2] == "simd" else c["blas"] if bc.key[2] == "blas" else 1.0)
               for bc, _ in pairs]
        for ri in range(len(RELEASES)):
            cur = [a * s for a, s in zip(cur, steps[ci][ri])]
            rows.append(cur)
        vf.append(rows)
    return vf


# ---- one run -----------------------------------------------------------------

G = {}  # the template and tables, set before the workers fork


def run_versions(r, j, span):
    """Releases (indexes) run j compares, the baseline first."""
    out_now = 1 + int((len(RELEASES) - 1) * min(j, span - 1) / span)  # 1 .. 11
    x = r.random()
    if x < 0.45:
        return [out_now - 1, out_now]
    if x < 0.75 and out_now >= 2:
        return [out_now - 2, out_now - 1, out_now]
    k = r.choice((2, 3))
    return sorted(r.sample(range(out_now + 1), min(k, out_now + 1)))


def fake_sha(*parts):
    return hashlib.sha1(":".join(str(p) for p in parts).encode()).hexdigest()


def version_block(tmpl, label, seed):
    v = dict(tmpl["version"])
    commit = fake_sha(seed, "commit", label)
    v.update({"label": label, "name": label, "kind": "git", "rule": "release tag " + label,
              "commit": commit, "tree": fake_sha(seed, "tree", label),
              "summary": "%s kernels %s" % (commit[:7], label), "kernel_version": label})
    if isinstance(v.get("build"), dict):
        b = dict(v["build"])
        b["key"] = fake_sha(seed, "build", label)
        b["cached"] = True
        v["build"] = b
    return v


def make_run(j):
    seed, span, level, out = G["seed"], G["span"], G["level"], G["out"]
    b, o, pairs, classes, vf = G["base"], G["other"], G["pairs"], G["classes"], G["vf"]
    r = random.Random("%s:run:%d" % (seed, j))
    ci = r.choices(range(len(classes)), weights=[c["weight"] for c in classes])[0]
    c = classes[ci]
    vers = run_versions(r, j, span)
    labels = [RELEASES[v] for v in vers]
    t = G["t0"] + j * 6 * 3600 + ci
    rid = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(t))
    created = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t + 15))
    load_i = 2 if r.random() < c["loaded_share"] else r.choice((0, 1))
    noise = math.exp(r.gauss(0, 0.01))
    mach = dict(b["machine"])
    cal = dict(mach.get("calibration") or {})
    cal.update({"isa": c["isa"], "cpus": c["cpus"], "load_average": round(LOADS[load_i] * 0.8, 2)})
    mach.update({"class": c["name"], "cpu": c["cpu"], "cores": c["cpus"], "hostname": c["hostname"],
                 "calibration": cal, "gpu": None})
    run = dict(b["run"])
    run.update({"id": rid, "created": created, "status": "complete", "resumed": [], "baseline": labels[0],
                "versions": labels})
    simd_isa = "avx512" if c["isa"] == "avx512f" else "avx2"
    rows = vf[ci]
    files = []
    for k, (label, vi) in enumerate(zip(labels, vers)):
        tmpl = b if k == 0 else o
        head = {key: val for key, val in tmpl.items() if key != "cells"}
        head.update({"run": run, "machine": mach, "version": version_block(tmpl, label, seed)})
        head["version"]["simd_isa"] = simd_isa
        cells = []
        for x, (bc, oc) in enumerate(pairs):
            f = rows[vi][x] * noise
            if k == 0:
                cells.append(bc.dumps(f, 1.0, load_i, labels[0]))
            else:
                cells.append(oc.dumps(f, rows[vi][x] / rows[vers[0]][x], load_i, labels[0]))
        text = ENC(head)[:-1] + ', "cells": [' + ", ".join(cells) + "]}\n"
        files.append(("%s/%s.json" % (rid, label), text.encode()))
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        d = tarfile.TarInfo(rid)
        d.type, d.mode, d.mtime = tarfile.DIRTYPE, 0o755, t
        tar.addfile(d)
        for name, data in sorted(files):
            ti = tarfile.TarInfo(name)
            ti.size, ti.mode, ti.mtime = len(data), 0o644, t
            tar.addfile(ti, io.BytesIO(data))
    gz = gzip.compress(raw.getvalue(), compresslevel=level, mtime=0)
    name = "%d-%s.tar.gz" % ((t + 60) * 1000, fake_sha(seed, "request", j)[:32])
    tmp = os.path.join(out, "." + name + ".part")
    with open(tmp, "wb") as fh:
        fh.write(gz)
    os.rename(tmp, os.path.join(out, name))  # the server's incoming/ holds only whole uploads
    return len(gz), c["name"], labels, load_i == 2


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("template")
    ap.add_argument("out")
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--first", type=int, default=0, help="index of the first run (default 0)")
    ap.add_argument("--classes", type=int, default=10)
    ap.add_argument("--span", type=int, default=1000, help="runs over which the 12 releases come out")
    ap.add_argument("--seed", default="1")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--level", type=int, default=1, help="gzip level (default 1, fast; share packs at 6)")
    a = ap.parse_args()
    if a.runs < 0 or a.first < 0 or a.classes < 1 or a.span < 1 or a.jobs < 1:
        die("--runs/--first from 0, --classes/--span/--jobs from 1")
    os.makedirs(a.out, exist_ok=True)
    b, o, pairs = load_template(a.template)
    classes = make_classes(a.classes, a.seed)
    G.update(base=b, other=o, pairs=pairs, classes=classes, vf=release_factors(classes, pairs, a.seed),
             seed=a.seed, span=a.span, level=a.level, out=a.out, t0=1798761600)  # 2027-01-01T00:00:00Z
    start = time.time()
    idx = range(a.first, a.first + a.runs)
    if a.jobs > 1 and a.runs > 1:
        with Pool(a.jobs) as pool:
            res = list(pool.imap(make_run, idx, chunksize=8))
    else:
        res = [make_run(j) for j in idx]
    by_class = {}
    for _, cls, _, _ in res:
        by_class[cls] = by_class.get(cls, 0) + 1
    print("publish_scale.py: %d runs (%d-%d) of %d cells x 2-3 versions, %d classes, %d loaded, %.1f MB of "
          "archives in %.1f s -> %s" % (len(res), a.first, a.first + a.runs - 1, len(pairs), len(by_class),
                                          sum(1 for x in res if x[3]), sum(x[0] for x in res) / 1e6,
                                          time.time() - start, a.out), file=sys.stderr)


if __name__ == "__main__":
    main()
