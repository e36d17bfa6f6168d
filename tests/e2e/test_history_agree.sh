#!/usr/bin/env bash
# End to end: a history whose change-point test lists a
# change that no single step's own test called (a gradual change over two
# steps) must say so on the change's line, in the control line's counts and
# in history.json, instead of reading as a history that disagrees with
# itself.  The steps come from the store: measured once for real, then their
# stored ratios set to a gradual change (two steps of 0.95 in 4 processes
# each: neither alone can be called, a sign test over 4 processes is at
# best p = 0.125; their product, 0.90 with tight intervals, is past the band).
source "$(dirname "$0")/lib.sh"
make_fixture
A=$(git -C "$FIX" rev-parse HEAD)
for i in 1 2; do
	echo "/* history agree $i */" >> "$FIX/kernels/src/scalar.c"
	git -C "$FIX" commit -qam "note $i"
done
B=$(git -C "$FIX" rev-parse HEAD~1) C=$(git -C "$FIX" rev-parse HEAD)
cells=(--benches unary --ops relu --backends scalar --sizes 64K --quick --layouts 1 --store "$TMP/s.sqlite" --results "$TMP/results")
"$BV" history "$A" "$B" "$C" "${cells[@]}" > "$TMP/h1.out" 2> "$TMP/h1.err"
rc=$?
check "a first history measures the two steps (exit $rc)" test $rc -eq 0
[ $rc -eq 0 ] || tail -20 "$TMP/h1.err" | sed 's/^/#   /'

check "the two stored steps are made a gradual change" python3 - "$TMP/s.sqlite" <<'PY'
import sqlite3, struct, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT rowid FROM steps WHERE cell LIKE 'unary/relu/scalar/64K%'").fetchall()
assert len(rows) == 2, rows
for (rid,) in rows:
    db.execute("UPDATE steps SET ratio = 0.95, lo = 0.94, hi = 0.96, nproc = 4, proc_ratio = ?, "
               "verdict = 'inconclusive', p = 0.125 WHERE rowid = ?",
               (struct.pack("<4d", 0.945, 0.95, 0.95, 0.955), rid))
db.commit()
PY

"$BV" history "$A" "$B" "$C" "${cells[@]}" > "$TMP/h2.out" 2> "$TMP/h2.err"
rc=$?
check "the second history takes both steps from the store (exit $rc)" \
	bash -c "[ $rc -eq 0 ] && grep -q 'every step from the store' '$TMP/h2.err' && ! grep -qE '^measure: ' '$TMP/h2.err'"
sed 's/^/#   /' "$TMP/h2.out"
check "the gradual change is listed and says no step was called alone" \
	contains "$TMP/h2.out" "^  unary/relu/scalar/64K: .* faster \(gradual, over 2 steps: no step called alone\)$"
check "the control line counts steps called alone and changes listed apart" \
	contains "$TMP/h2.out" "; 0 steps called alone; 1 change listed \(1 where the steps alone were not all called: the change-point test over spans\)"
check "no step is counted inconclusive outside the listed change" \
	bash -c "! grep -q '^inconclusive: ' '$TMP/h2.out'"
"$BV" history "$A" "$B" "$C" "${cells[@]}" --format json > "$TMP/h2.json" 2> /dev/null
check "history.json: each step's own verdict beside the change that holds it" python3 - "$TMP/h2.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
steps = d["cells"][0]["steps"]
assert [s["verdict"] for s in steps] == ["inconclusive", "inconclusive"], steps
assert [s["change_point"] for s in steps] == ["faster", "faster"], steps
(ch,) = d["changes"]
assert ch["direction"] == "faster" and ch["steps"] == 2 and ch["steps_called"] == 0, ch
assert d["called"] == 0, d["called"]
PY
finish
