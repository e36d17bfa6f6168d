#!/usr/bin/env python3
"""same_cells.py OLD_DIR NEW_DIR: whether two runs' logs hold the same cells
with the same status, reason, footprint and work, per version.

A cuda cell's reason is the machine's driver's, so only its status is
compared.  Prints up to ten differences; exit 0 when there are none (and
OLD_DIR has cells), else 1.  Used by tests/e2e/test_catalog.sh against the
logs in tests/e2e/fixtures/plugin_path/, and to compare a whole matrix
before and after a change to the runner (docs/evidence/catalog-path.md).
"""
import json
import os
import sys


def cells(d):
    out = {}
    for f in sorted(os.listdir(d)):
        if f.endswith(".json"):
            doc = json.load(open(os.path.join(d, f)))
            for c in doc.get("cells", []):
                out[(doc["version"]["label"], c["bench"], c["op"], c["backend"], c["size"])] = c
    return out


def main():
    a, b = cells(sys.argv[1]), cells(sys.argv[2])
    bad = [("only in one run", k) for k in sorted(set(a) ^ set(b))]
    for k in sorted(set(a) & set(b)):
        for f in ("status", "reason", "footprint", "work"):
            if f == "reason" and k[3] == "cuda":
                continue
            if a[k].get(f) != b[k].get(f):
                bad.append((k, f, a[k].get(f), b[k].get(f)))
    for x in bad[:10]:
        print("#  ", x)
    print("# %d cells compared, %d differences" % (len(set(a) & set(b)), len(bad)))
    return 1 if bad or not a else 0


if __name__ == "__main__":
    sys.exit(main())
