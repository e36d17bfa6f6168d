#!/usr/bin/env python3
"""site_fixture.py - a publish store (the schema of `bench-versions publish`,
orchestrator/publish/site_store.c) filled from results logs, for working on
and measuring the site (orchestrator/publish/site*.c) without an import.

    python3 tests/measurement/site_fixture.py OUT.sqlite [RESULTS_DIR]...
        [--classes N] [--runs-per-class N] [--hostile]

Each RESULTS_DIR (default: the checked-in tests/e2e/fixtures/table_width/
demo and suite) is one run; it is copied to N machine classes (another
class name and CPU each, times scaled per class) and N runs per class
(another run id and created time, times jittered), so 10 classes x 100 runs
is the site's scale target.  A cell's `change` block gives the changes row
(verdict from its interval: above 1.01 slower, below 0.99 faster).
--hostile adds a class, a version label, an op and a quarantined upload
whose names are markup ('<script>alert(1)</script>', '"onload="alert(1)'),
to check the pages escape them.
"""
import argparse
import glob
import hashlib
import json
import os
import math
import random
import sqlite3
import struct
import sys

# The schema text for text as site_store.c's migrations write it: a
# store is opened only when its objects' SQL is what the migrations make.
SCHEMA = (
    "CREATE TABLE archives ("
    " sha256 TEXT PRIMARY KEY, source TEXT NOT NULL, bytes INTEGER NOT NULL, seen TEXT NOT NULL,"
    " status TEXT NOT NULL, run TEXT, reason TEXT);"
    "CREATE TABLE runs ("
    " key TEXT PRIMARY KEY, id TEXT NOT NULL, created TEXT NOT NULL, class TEXT NOT NULL,"
    " cpu TEXT NOT NULL, isa TEXT NOT NULL, gpu TEXT NOT NULL, hostname TEXT, cpus INTEGER,"
    " tool TEXT, baseline TEXT NOT NULL, method TEXT NOT NULL, load_max REAL, loaded INTEGER,"
    " imported TEXT NOT NULL, page TEXT NOT NULL);"
    "CREATE TABLE versions ("
    " run TEXT NOT NULL, label TEXT NOT NULL, pos INTEGER NOT NULL, name TEXT, kind TEXT,"
    " commit_id TEXT, kernel_version TEXT, PRIMARY KEY (run, label));"
    "CREATE TABLE cells ("
    " run TEXT NOT NULL, version TEXT NOT NULL, bench TEXT NOT NULL, op TEXT NOT NULL,"
    " backend TEXT NOT NULL, size INTEGER NOT NULL, shape TEXT NOT NULL, status TEXT NOT NULL,"
    " reason TEXT, median_ns REAL, lo_ns REAL, hi_ns REAL,"
    " PRIMARY KEY (run, version, bench, op, backend, size));"
    "CREATE INDEX cells_by_cell ON cells (bench, op, backend, size);"
    "CREATE TABLE changes ("
    " run TEXT NOT NULL, version TEXT NOT NULL, baseline TEXT NOT NULL, bench TEXT NOT NULL,"
    " op TEXT NOT NULL, backend TEXT NOT NULL, size INTEGER NOT NULL, ratio REAL, lo REAL, hi REAL,"
    " verdict TEXT NOT NULL, mode TEXT NOT NULL,"
    " PRIMARY KEY (run, version, bench, op, backend, size));"
    # the second migration: a working tree's tree hash
    "ALTER TABLE versions ADD COLUMN tree TEXT;"
    # the third: a paired change's per-process ratios
    "ALTER TABLE changes ADD COLUMN proc_ratio BLOB;"
)

HOSTILE = '<script>alert(1)</script>'
HOSTILE_ATTR = '"onload="alert(1)'
HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DIRS = [os.path.join(HERE, '..', 'e2e', 'fixtures', 'table_width', d) for d in ('demo', 'suite')]


def load_run(d):
    logs = {}
    for p in sorted(glob.glob(os.path.join(d, '*.json'))):
        doc = json.load(open(p))
        if doc.get('schema') == 'bench-versions-results':
            logs[doc['version']['label']] = doc
    return logs


def method_line(m):
    return (f"{m.get('mode', '?')}, {m.get('min_processes', '?')}-{m.get('max_processes', '?')} processes, "
            f"{m.get('rounds', '?')} rounds, {round(100 * m.get('confidence', 0.95))} % intervals")


def verdict(lo, hi):
    if lo is not None and lo > 1.01:
        return 'slower'
    if hi is not None and hi < 0.99:
        return 'faster'
    return 'same'


def ratios_blob(ratios):
    """changes.proc_ratio as site_store.c writes it: little-endian doubles,
    NULL unless every one is a finite number > 0."""
    if not ratios or not all(isinstance(r, (int, float)) and math.isfinite(r) and r > 0 for r in ratios):
        return None
    return struct.pack('<%dd' % len(ratios), *ratios)


def add_run(db, logs, cls, cpu, rep, factor, rng, hostile):
    first = next(iter(logs.values()))
    run, machine = first['run'], first['machine']
    key = hashlib.sha256(f"{run['id']}|{cls}|{cpu}|{rep}".encode()).hexdigest()
    created = run['created'][:11] + f"{(rep // 60) % 24:02d}:{rep % 60:02d}:00Z"
    load = (machine.get('calibration') or {}).get('load_average')
    cpus = machine.get('cores') or 1
    loaded = None if load is None else int(load >= 1 + cpus / 2)
    db.execute('INSERT INTO runs VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)',
               (key, f"{run['id']}-{rep}", created, cls, cpu,
                (machine.get('calibration') or {}).get('isa', ''), machine.get('gpu') or '',
                machine.get('hostname'), cpus, run.get('tool') if rep % 3 else None, run['baseline'],
                method_line(first['method']), load, loaded, created, f"compare/{key[:16]}.html"))
    db.execute('INSERT INTO archives VALUES (?,?,?,?,?,?,?)',
               ('dir:' + key, f"results/{run['id']}", 1000, created, 'imported', key, None))
    for label, doc in logs.items():
        v = doc['version']
        shown = HOSTILE if hostile and label == run['baseline'] else label
        pos = run['versions'].index(label) if label in run['versions'] else 0
        db.execute('INSERT INTO versions VALUES (?,?,?,?,?,?,?,?)',
                   (key, shown, pos, v.get('name'), v.get('kind'), v.get('commit'), v.get('kernel_version'),
                    v.get('tree')))
        jitter = 1 + rng.uniform(-0.03, 0.03)
        for c in doc['cells']:
            op = HOSTILE_ATTR if hostile and c['op'] == 'abs' else c['op']
            ok = c['status'] == 'ok'
            f = factor * jitter
            db.execute('INSERT INTO cells VALUES (?,?,?,?,?,?,?,?,?,?,?,?)',
                       (key, shown, c['bench'], op, c['backend'], c['size'], c.get('shape', str(c['size'])),
                        c['status'], c.get('reason'),
                        c['median_ns'] * f if ok else None,
                        c.get('median_ns_ci_low', c.get('median_ns')) * f if ok else None,
                        c.get('median_ns_ci_high', c.get('median_ns')) * f if ok else None))
            ch = c.get('change')
            if ch:
                base = HOSTILE if hostile and ch['baseline'] == run['baseline'] else ch['baseline']
                mode = ch.get('mode', 'paired')
                db.execute('INSERT INTO changes VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)',
                           (key, shown, base, c['bench'], op, c['backend'], c['size'], ch.get('ratio'),
                            ch.get('ratio_ci_low'), ch.get('ratio_ci_high'),
                            verdict(ch.get('ratio_ci_low'), ch.get('ratio_ci_high')), mode,
                            ratios_blob(ch.get('process_ratios')) if mode == 'paired' else None))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('out')
    ap.add_argument('dirs', nargs='*')
    ap.add_argument('--classes', type=int, default=2)
    ap.add_argument('--runs-per-class', type=int, default=1)
    ap.add_argument('--hostile', action='store_true')
    a = ap.parse_args()
    if os.path.exists(a.out):
        os.unlink(a.out)
    db = sqlite3.connect(a.out)
    db.executescript(SCHEMA)
    db.execute('PRAGMA application_id = 0x42567369')
    db.execute('PRAGMA user_version = 3')
    rng = random.Random(1)
    runs = [load_run(d) for d in (a.dirs or DEFAULT_DIRS)]
    for k in range(a.classes):
        for rep in range(a.runs_per_class):
            for logs in runs:
                first = next(iter(logs.values()))
                cls = first['machine'].get('class') or f"x86_64-avx512-{2 + 2 * k}c"
                cpu = first['machine'].get('cpu', '') + (f" variant {k}" if k else '')
                add_run(db, logs, cls, cpu, rep, 1 + 0.4 * k, rng, False)
    if a.hostile:
        for logs in runs:
            add_run(db, logs, HOSTILE, HOSTILE_ATTR, 0, 2.0, rng, True)
        db.execute('INSERT INTO archives VALUES (?,?,?,?,?,?,?)',
                   ('ab' * 32, f"1765000000000-{HOSTILE}.tar.gz", 123, '2026-12-06T12:00:00Z', 'quarantined',
                    None, f"the archive's log {HOSTILE_ATTR}.json is not named after its version.label"))
    db.commit()
    n = db.execute('SELECT count(*) FROM runs').fetchone()[0]
    print(f"{a.out}: {n} runs", file=sys.stderr)


if __name__ == '__main__':
    main()
