#!/usr/bin/env bash
# --quick on a long cell: a 2x change at 1M elements is called, and identical
# code is not.  A process of the scalar tanh 1M cell takes most of a second
# with three versions, so the three budgets of a cell that looks changed
# (3 x 2 s) bought 6-9 processes, short of the 12 all beyond the band that
# the run's false-discovery control asks of one change among 26
# comparisons: it ended `inconclusive, unconfirmed` at 2.0x.  Such a cell,
# every process beyond the same edge, now samples on: from the time the
# run's other cells left unused of their budgets, else up to three budgets
# more of its own (docs/measurement.md, "Adaptive sampling with a budget").
# `aa` is 0.1.0 under another name: its column is an A/A comparison in the
# same processes, and must call nothing.
source "$(dirname "$0")/lib.sh"
make_fixture

plant_slowdown KN_TANH 2
echo 0.1.1 > "$FIX/kernels/VERSION"
git -C "$FIX" commit -qam "tanh: two passes (planted 2x slowdown)"
git -C "$FIX" branch aa "$(git -C "$FIX" rev-list --max-parents=0 HEAD)"

# Every scalar 1K cell of the unary group and the one long cell.
"$BV" 0.1.0 main aa --benches unary --backends scalar --sizes 1K,1M --filter '/1K$|^unary/tanh/scalar/1M$' \
	--quick --counts none --results "$TMP/results" > "$TMP/out" 2> "$TMP/err"
rc=$?
check "the run exits 0 (exit $rc)" test $rc -eq 0
# Called slower; or, on a machine so loaded that a process of the cell takes
# more than a second, `inconclusive` at 2x: the 12 processes the evidence
# needs then do not fit in three budgets more (6 s, 6 more processes), and
# sampling on is not granted by rule (docs/measurement.md).  Never same or
# faster.
check "the 2x tanh at 1M is called slower under --quick (or, loaded past the rule, left inconclusive at 2x)" python3 - "$TMP/out" "$TMP/results" <<'PY'
import glob, json, re, sys
row = [l for l in open(sys.argv[1]) if re.match(r"unary +tanh +scalar +1M ", l)]
m = re.search(r"[0-9.]+ ms +[0-9.]+ ms +((1\.9|2\.[0-2])[0-9]{2}) \[[0-9.]+, [0-9.]+\] ([a-z]+)", row[0]) if row else None
if not m:
    sys.exit("no 2x ratio on the row: %r" % row)
if m.group(3) == "slower":
    sys.exit(0)
log = json.load(open(sorted(glob.glob(sys.argv[2] + "/*/main.json"))[-1]))
t = [c for c in log["cells"] if (c["op"], c["shape"]) == ("tanh", "1M")][0]
per = t["measure_s"] / t["processes"]
print("# tanh 1M: %s after %d processes, %.2f s each" % (m.group(3), t["processes"], per))
sys.exit(0 if m.group(3) == "inconclusive" and per > 1.0 else 1)
PY
check "the 2x tanh at 1K is called slower" \
	contains "$TMP/out" "^unary +tanh +scalar +1K +.* +(1\.9|2\.[0-2])[0-9]{2} \[[0-9.]+, [0-9.]+\] slower "
check "the A/A column (aa/0.1.0) calls no cell" python3 - "$TMP/out" <<'PY'
import re, sys
bad = []
for line in open(sys.argv[1]):
    if not re.match(r"unary ", line):
        continue
    # the last ratio and verdict on the row are aa's
    m = re.findall(r"[0-9.]+ \[[0-9.]+, [0-9.]+\] ([a-z]+)", line)
    if len(m) != 2 or m[1] in ("slower", "faster"):
        bad.append(line.rstrip())
if bad:
    print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
# Within six budgets of its own (12 s, and the process it may overshoot),
# its first process's checks not counted.
check "the long cell took at most six budgets" python3 - "$TMP/results" <<'PY'
import glob, json, sys
log = json.load(open(sorted(glob.glob(sys.argv[1] + "/*/main.json"))[-1]))
cells = {(c["op"], c["shape"]): c for c in log["cells"]}
t = cells[("tanh", "1M")]
per = t["measure_s"] / t["processes"]
total = sum(c["measure_s"] for c in log["cells"])
print("tanh 1M: %d processes, %.2f s (%.2f s each), stopped by %s; all cells %.1f s" % (t["processes"], t["measure_s"], per, t["stopped"]["by"], total))
ok = t["measure_s"] < 12 + 3 * per
sys.exit(0 if ok else 1)
PY
[ $failures -eq 0 ] || { cat "$TMP/out"; tail -5 "$TMP/err"; }
finish
