#!/usr/bin/env bash
# test_calibration.sh - the machine's calibration (its copy bandwidth and
# FLOP peak, for --units rate|peak) is measured again when it is stale:
# too old, from before times and loads were recorded, below what the run's
# own bandwidth probes reach, or when asked (--recalibrate).  A reported
# `939% of copy bw` came from one taken once on a loaded machine and kept
# for good.
source "$(dirname "$0")/lib.sh"
make_fixture
RUN=(local --quick --benches unary --ops abs --backends scalar --sizes 1K --units peak --results "$TMP/results")

"$BV" "${RUN[@]}" > "$TMP/1.out" 2> "$TMP/1.err"
check "a first run calibrates, once" contains "$TMP/1.err" 'calibrate: measuring .*\(once\)'
CAL=$(ls "$BENCH_VERSIONS_CACHE"/machine/*.json 2>/dev/null | head -1)
check "the calibration is stored" test -s "${CAL:-/nonexistent}"
check "it records when and at what load" python3 -c '
import json, sys, time
c = json.load(open(sys.argv[1]))
assert abs(c["measured_at"] - time.time()) < 600, c
# null: the load could not be read (machine.c), never a 0 that reads as quiet
assert "load_average" in c, c
assert c["load_average"] is None or (type(c["load_average"]) in (int, float) and c["load_average"] >= 0), c
assert c["cpus"] >= 1, c' "${CAL:-/nonexistent}"

"$BV" "${RUN[@]}" > "$TMP/2.out" 2> "$TMP/2.err"
check "a second run reuses it" bash -c '! grep -q "calibrate:" "$1"' _ "$TMP/2.err"

# plant NAME COPY_GBPS MEASURED_AT LOAD: a stored calibration as another
# run on a slower (or loaded) day would have left it.
plant() {
	python3 - "$CAL" "$2" "$3" "$4" <<'PY'
import json, sys
path, copy, at, load = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4]
c = json.load(open(path))
c["copy_gbps"] = copy
if at == "none":
    c.pop("measured_at", None), c.pop("load_average", None)
else:
    c["measured_at"] = float(at)
    c["load_average"] = float(load)
json.dump(c, open(path, "w"))
PY
}
copy_now() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["copy_gbps"])' "$CAL"; }

plant old 0.5 1500000000 0.1
"$BV" "${RUN[@]}" > "$TMP/3.out" 2> "$TMP/3.err"
check "a calibration months old is measured again" contains "$TMP/3.err" 'calibrate: measuring .*days old'
check "and replaced" python3 -c 'import sys; assert float(sys.argv[1]) > 0.5' "$(copy_now)"

plant older 0.5 none 0
"$BV" "${RUN[@]}" > "$TMP/4.out" 2> "$TMP/4.err"
check "one from before times were recorded is measured again" contains "$TMP/4.err" 'does not say when'

# Fresh and quiet, but a tenth of what the machine does: the run's own
# probes (16 MiB copies between cells) reach far more.
plant low 0.05 "$(date +%s)" 0
"$BV" "${RUN[@]}" --format json > "$TMP/5.json" 2> "$TMP/5.err"
check "one below what the probes reach is measured again" contains "$TMP/5.err" 'bandwidth probes reached .* above the stored copy bandwidth 0\.1'
check "and the run's log has the new one" python3 -c '
import glob, json, os, sys
logs = sorted(glob.glob(sys.argv[1] + "/[0-9]*/local.json"), key=os.path.getmtime)
c = json.load(open(logs[-1]))["machine"]["calibration"]
assert c["copy_gbps"] > 0.05, c' "$TMP/results"

"$BV" "${RUN[@]}" --recalibrate > "$TMP/6.out" 2> "$TMP/6.err"
check "--recalibrate measures again" contains "$TMP/6.err" 'calibrate: measuring .*\(--recalibrate\)'

echo '{"copy_gbps": ' > "$CAL"
"$BV" "${RUN[@]}" > "$TMP/7.out" 2> "$TMP/7.err"
check "a broken stored file is measured again, not fatal" contains "$TMP/7.err" 'calibrate: measuring'
check "and the run completes" contains "$TMP/7.out" 'abs'
exit "$failures"
