#!/usr/bin/env bash
# End to end, the input-sets rotation: --inputs N gives elementwise ops and
# reductions N input sets, the same values in N orders, each call taking the
# next, in every version alike; the logs say how many each cell had, and a
# resume with another N is refused.
source "$(dirname "$0")/lib.sh"
make_fixture
args=(main local --benches unary,memory --ops relu,copy --backends scalar --sizes 1K --quick --budget 1)
"$BV" "${args[@]}" --inputs 8 --results "$TMP/r" > "$TMP/out" 2> "$TMP/err"
rc=$?
check "run --inputs 8: exit 0 ($rc)" test $rc -eq 0
[ $rc -eq 0 ] || tail -5 "$TMP/err" | sed 's/^/#   /'
run=$(ls -d "$TMP"/r/[0-9]*/ | head -1)
check "the log says the method's inputs and each cell's sets: relu 8, copy (not rotated) one" python3 - "$run/main.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["method"]["inputs"] == 8, d["method"]
cells = {c["op"]: c for c in d["cells"]}
assert cells["relu"]["status"] == "ok" and cells["relu"]["input_sets"] == 8, cells["relu"]
assert cells["copy"]["status"] == "ok" and "input_sets" not in cells["copy"], cells["copy"]
PY
check "every measuring process cycled relu's 8 sets" python3 - "$run"/raw/process-*.json <<'PY'
import json, sys
for p in sys.argv[1:]:
    for c in json.load(open(p))["cells"]:
        want = 8 if c["op"] == "relu" else 1
        assert c["input_sets"] == want, (p, c["op"], c["input_sets"])
PY
"$BV" "${args[@]}" --results "$TMP/r1" > /dev/null 2>&1
check "without --inputs: one set, said as 1 in the method" python3 -c '
import glob, json, sys
(p,) = glob.glob(sys.argv[1] + "/[0-9]*/main.json")
d = json.load(open(p))
assert d["method"]["inputs"] == 1 and all("input_sets" not in c for c in d["cells"]), d["method"]' "$TMP/r1"
refused "--inputs 0" "--inputs" "${args[@]}" --inputs 0
refused "--inputs 65" "--inputs" "${args[@]}" --inputs 65
refused "a resume with other inputs" "--inputs differs: 8 there, 4 now" "${args[@]}" --inputs 4 --resume "$run"
"$(dirname "$BV")/bv-runner" --inputs 0 --out "$TMP/x.json" a=/nonexistent.so 2> "$TMP/runner.err"
rc=$?
check "bv-runner --inputs 0: exit 2, saying the range ($rc)" \
	bash -c "[ $rc -eq 2 ] && grep -q 'a whole number from 1 to 64' '$TMP/runner.err'"
finish
