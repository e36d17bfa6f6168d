#!/usr/bin/env bash
# End to end: samples that survive preemption, and the machine's state per
# process.  The runner is pinned to one CPU and a busy loop pinned to the same
# CPU takes turns with it, so samples of a few ms are preempted whatever else
# the machine is doing; the logs must say that samples were re-taken and
# carry one state per process ratio.  Structure and counts only, no speeds: a
# loaded CI machine cannot fail it.
source "$(dirname "$0")/lib.sh"
make_fixture

cpu=$(taskset -pc $$ 2> /dev/null | sed 's/.*: *//; s/[-,].*//')
cpu=${cpu:-0}
# Built first, with the machine as it is: the busy loop only shares the CPU
# with the measuring.
"$BV" 0.1.0 local --ops exp --backends scalar --sizes 1M --quick --results "$TMP/warm" > /dev/null 2>&1
check "warm-up run (builds, calibration)" test $? -eq 0

taskset -c "$cpu" sh -c 'while :; do :; done' &
busy=$!
"$BV" 0.1.0 local --ops exp --backends scalar --sizes 1M --quick --pin "$cpu" --rounds 9 \
	--results "$TMP/results" > "$TMP/out" 2> "$TMP/err"
rc=$?
kill "$busy"
wait "$busy" 2> /dev/null
check "a run beside a busy loop on its CPU completes" test $rc -eq 0
logs=$(ls -d "$TMP"/results/[0-9]*/)
check "preempted samples were re-taken, and the counts are consistent" python3 - "$logs" <<'PY'
import json, sys
d = sys.argv[1]
retaken = 0
for label in ("0.1.0", "local"):
    cell = json.load(open(f"{d}/{label}.json"))["cells"][0]
    assert cell["status"] == "ok", cell
    p = cell["preempted"]
    assert set(p) == {"retaken", "kept"}, p
    assert p["retaken"] >= 0 and 0 <= p["kept"] <= cell["samples"], (p, cell["samples"])
    retaken += p["retaken"]
assert retaken > 0, "no sample re-taken though a busy loop shared the CPU"
PY
check "each process ratio has the machine's state beside it" python3 - "$logs" <<'PY'
import json, math, sys
d = sys.argv[1]
base = json.load(open(f"{d}/0.1.0.json"))["cells"][0]
assert "change" not in base
ch = json.load(open(f"{d}/local.json"))["cells"][0]["change"]
states = ch["process_state"]
assert len(states) == len(ch["process_ratios"]) == ch["processes"] >= 6, ch
for s in states:
    assert set(s) == {"loadavg", "running", "probe_gbps", "probe_compute_ns"}, s
    for k, v in s.items():
        assert isinstance(v, list) and len(v) == 2, (k, v)
        assert all(x is None or (isinstance(x, (int, float)) and math.isfinite(x) and x >= 0) for x in v), (k, v)
    assert all(x is not None and x > 0 for x in s["probe_gbps"] + s["probe_compute_ns"]), s
    assert all(x is not None and x >= 1 for x in s["running"]), s  # the runner itself
PY
# The raw runner documents carry the same, per version and per cell.
check "the runner's documents have the counts and the state" python3 - "$logs" <<'PY'
import glob, json, sys
files = glob.glob(sys.argv[1] + "/raw/process-*.json")
assert files
for f in files:
    doc = json.load(open(f))
    assert doc["threads"] == 1, doc.get("threads")
    for c in doc["cells"]:
        assert len(c["state"]["probe_gbps"]) == 2, c["state"]
        for v in c["versions"]:
            if v["status"] == "ok":
                assert v["retaken"] >= 0 and 0 <= v["contaminated"] <= len(v["samples_ns"]), v
PY
check "the logs still compare" "$BV" compare "$logs/0.1.0.json" "$logs/local.json"
finish
