#!/usr/bin/env python3
"""hostile_uploads.py - what someone with an upload token could send publish.

  hostile_uploads.py names RUN_DIR OUT.tar.gz
      a good run (RUN_DIR's logs, figures untouched) whose names are hostile:
      the op abs renamed to a <script>, the machine's CPU an <img onerror>,
      the version main's label a "onload= attribute breaking out of quotes.
      Each payload, if it ran, would set data-pwned on the page's <html>.
  hostile_uploads.py bad RUN_DIR OUT_DIR [MIB]
      traversal, symlink, truncated and forged archives of RUN_DIR's logs, and
      oversized.tar.gz: MIB (default 65) MiB of random bytes.

Used by tests/e2e/test_publish.sh (through the real server) and
test_publish_hostile.sh (straight into an incoming directory, under ASan).
"""
import io
import json
import os
import sys
import tarfile

OP = '<script>document.documentElement.setAttribute("data-pwned","op")</script>'
CPU = 'Evil CPU <img src=x onerror="document.documentElement.setAttribute(`data-pwned`,`cpu`)">'
LABEL = 'v2"onload="document.documentElement.setAttribute(`data-pwned`,`label`)'


def logs(run):
    out = {}
    for f in sorted(os.listdir(run)):
        p = os.path.join(run, f)
        if f.endswith(".json") and os.path.isfile(p):
            d = json.load(open(p))
            if d.get("schema") == "bench-versions-results":
                out[f] = d
    return out


def add(t, name, data):
    ti = tarfile.TarInfo(name)
    ti.size = len(data)
    t.addfile(ti, io.BytesIO(data))


def names(run, out):
    rid = "20990101T000000Z"
    with tarfile.open(out, "w:gz") as t:
        for f, d in logs(run).items():
            d["run"]["id"] = rid
            d["machine"]["cpu"] = CPU
            d["machine"].pop("class", None)
            if d["version"]["label"] == "main":
                d["version"]["label"] = LABEL
            d["run"]["versions"] = [LABEL if v == "main" else v for v in d["run"]["versions"]]
            for c in d["cells"]:
                if c["op"] == "abs":
                    c["op"] = OP
            add(t, "%s/%s.json" % (rid, d["version"]["label"]), json.dumps(d).encode())


def bad(run, outdir, mib):
    os.makedirs(outdir, exist_ok=True)
    rid = os.path.basename(run.rstrip("/"))
    raw = {f: open(os.path.join(run, f), "rb").read() for f in logs(run)}
    with tarfile.open(outdir + "/traversal.tar.gz", "w:gz") as t:
        add(t, rid + "/../../escaped.json", raw["main.json"])
    with tarfile.open(outdir + "/symlink.tar.gz", "w:gz") as t:
        ti = tarfile.TarInfo(rid + "/main.json")
        ti.type = tarfile.SYMTYPE
        ti.linkname = "/etc/passwd"
        t.addfile(ti)
    good = io.BytesIO()
    with tarfile.open(fileobj=good, mode="w:gz") as t:
        for f, d in raw.items():
            add(t, rid + "/" + f, d)
    open(outdir + "/truncated.tar.gz", "wb").write(good.getvalue()[: len(good.getvalue()) // 2])
    with tarfile.open(outdir + "/forged.tar.gz", "w:gz") as t:
        for f, d in raw.items():
            doc = json.loads(d)
            if f == "main.json":
                # every ok cell made to look 3x faster: its median and
                # interval, not the samples they came from
                for c in doc["cells"]:
                    if c["status"] == "ok":
                        for k in ("median_ns", "median_ns_ci_low", "median_ns_ci_high"):
                            c[k] /= 3
            add(t, rid + "/" + f, json.dumps(doc).encode())
    # random bytes do not compress: the file is as large as it says
    with open(outdir + "/oversized.tar.gz", "wb") as f:
        for _ in range(mib):
            f.write(os.urandom(1 << 20))


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "names":
        names(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 4 and sys.argv[1] == "bad":
        bad(sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 65)
    else:
        sys.exit(__doc__)
