#!/usr/bin/env bash
# End to end: bisect over a real history of 64 commits with one planted
# slowdown, through the real binary: it must name the planted commit in about
# log2(64) builds, say so as JSON, reuse every measurement the second time,
# refuse a range with no slowdown, follow first parents through a merge, go
# on after an interruption and find a speed-up with --improvement.
source "$(dirname "$0")/lib.sh"
make_fixture
git -C "$FIX" tag good

# The slowdown: plant_relu_slowdown (lib.sh), relu doing its loop 3 times.
# A harmless commit: mostly a note outside the library (same library tree,
# so its build is a cache hit), every eighth a comment in scalar.c (a new
# tree: a real build).  Both kinds are what a real history is made of.
harmless() { # N
	if [ $(($1 % 8)) -eq 0 ]; then
		echo "/* note $1: nothing changes */" >> "$FIX/kernels/src/scalar.c"
	else
		mkdir -p "$FIX/notes" && echo "note $1" > "$FIX/notes/$1.txt"
	fi
	git -C "$FIX" add -A && git -C "$FIX" commit -qm "note $1"
}
N=64 PLANTED_AT=41
for i in $(seq 1 $N); do
	if [ "$i" -eq $PLANTED_AT ]; then
		plant_relu_slowdown && git -C "$FIX" commit -qam "relu: three passes (planted slowdown)"
		planted=$(git -C "$FIX" rev-parse HEAD)
	else
		harmless "$i"
	fi
	[ "$i" -eq $((PLANTED_AT - 1)) ] && git -C "$FIX" tag before
done

cell=(--bench unary --op relu --backend scalar --size 64K --quick)
start=$(date +%s)
"$BV" bisect --good good --bad main "${cell[@]}" --format json > "$TMP/b1.json" 2> "$TMP/b1.err"
rc=$?
check "bisect exits 0" test $rc -eq 0
[ $rc -eq 0 ] || tail -20 "$TMP/b1.err"
check "bisect names the planted commit, lists its steps and stays within log2(N)+3 builds" \
	python3 - "$TMP/b1.json" "$planted" "$N" <<'PY'
import json, math, sys
doc = json.load(open(sys.argv[1])); planted = sys.argv[2]; n = int(sys.argv[3])
assert doc["status"] == "found", doc["status"]
f = doc["first_bad"]
assert f["commit"] == planted, (f["commit"], planted)
assert f["subject"] == "relu: three passes (planted slowdown)" and f["author"] == "fixture" and f["date"]
# The planted commit holds the whole 3x: against bad it is about the same.
# Loaded CI machines put --quick point ratios at 1.26 with an interval
# reaching below 1, so the bound is half-way (in log) between 1 and 3.
assert f["vs_good"]["ci_low"] > 1.5 and 0.67 < f["vs_bad"]["ratio"] < 1.5 and f["vs_bad"]["ci_low"] < 1.25, f
assert f["vs_parent"]["verdict"] == "slower", f["vs_parent"]
assert doc["bad_vs_good"]["ci_low"] > 1.5
steps = doc["steps"]
assert 1 <= len(steps) <= math.ceil(math.log2(n)) + 3, len(steps)
for s in steps:
    assert len(s["commit"]) == 40 and s["verdict"] in ("good", "bad", "skip") and s["reused"] is False
    if s["verdict"] != "skip":
        assert s["vs_good"]["ci_low"] <= s["vs_good"]["ratio"] <= s["vs_good"]["ci_high"]
assert planted in [s["commit"] for s in steps]
b = doc["builds"]
assert b["total"] <= math.log2(n) + 3 + 2, b
assert doc["measurements"]["taken"] >= len(steps) and doc["measurements"]["reused"] == 0
PY
echo "# first bisect: $(( $(date +%s) - start )) s"

"$BV" bisect --good good --bad main "${cell[@]}" > "$TMP/b2.out" 2> "$TMP/b2.err"
rc=$?
check "second bisect exits 0 and names the same commit" contains "$TMP/b2.out" "^first slower commit: $planted"
check "second bisect measures nothing and says it reused every measurement" \
	contains "$TMP/b2.out" "builds: 0 .*measured 0, reused [1-9][0-9]* measurements?"
check "text output lists the steps with ratios and verdicts" \
	contains "$TMP/b2.out" "^  1 +[0-9a-f]{12}  [0-9.]+ \[[0-9.]+, [0-9.]+\] +(good|bad)"

# A range with no slowdown in it (everything before the plant) is refused.
"$BV" bisect --good good --bad before "${cell[@]}" > "$TMP/b3.out" 2> "$TMP/b3.err"
rc=$?
check "a range without a slowdown is refused with exit 2" test $rc -eq 2
check "the refusal gives the numbers" contains "$TMP/b3.err" "not significantly slower than good .*ratio [0-9.]+ \[[0-9.]+, [0-9.]+\]"
# --simd-isa (as run's) reaches the runner and keys a state of its own.
nstates=$(ls -d "$BENCH_VERSIONS_CACHE"/bisect/*/ | wc -l)
"$BV" bisect --good good --bad before "${cell[@]}" --simd-isa avx2 > /dev/null 2> "$TMP/b3i.err"
check "bisect --simd-isa avx2 measures (refused here too: exit 2)" test $? -eq 2
check "... in a state of its own" test "$(ls -d "$BENCH_VERSIONS_CACHE"/bisect/*/ | wc -l)" -eq $((nstates + 1))
check "... whose logs say the ISA was forced" python3 - "$BENCH_VERSIONS_CACHE" <<'PY'
import glob, json, sys
logs = glob.glob(sys.argv[1] + "/bisect/*/logs/*/*.json")
forced = [json.load(open(p)).get("method", {}).get("simd_isa_forced") for p in logs]
sys.exit(0 if forced.count("avx2") >= 2 and forced.count(None) >= 2 else 1)
PY
"$BV" bisect --good main --bad good "${cell[@]}" > /dev/null 2> "$TMP/b4.err"
check "good not an ancestor of bad is exit 2" test $? -eq 2
check "... and says so" contains "$TMP/b4.err" "is not an ancestor of bad"
"$BV" bisect --good good --bad no-such-rev "${cell[@]}" > /dev/null 2>&1
check "an unknown revision is exit 2" test $? -eq 2
"$BV" bisect --good good --bad main --bench unary --op relu --backend scalar --size 64K,1M > /dev/null 2>&1
check "more than one cell is exit 2" test $? -eq 2

# --first-parent through a merge: a side branch plants the slowdown and is
# merged; along first parents the merge itself is the first slow commit.
git -C "$FIX" checkout -q -b side good
harmless 101 && plant_relu_slowdown && git -C "$FIX" commit -qam "side: planted slowdown" && harmless 102
git -C "$FIX" checkout -q -b line good
harmless 201 && harmless 202
git -C "$FIX" merge -q --no-ff -m "merge side" side
merge=$(git -C "$FIX" rev-parse HEAD)
harmless 203
# Interrupted once the first step is in the state file, then run again: it
# must go on from there.  (TERM: a background job of a script ignores INT.)
"$BV" bisect --good good --bad line "${cell[@]}" --first-parent > /dev/null 2> "$TMP/int.err" &
pid=$!
line=$(git -C "$FIX" rev-parse line)
# Whether the state of good..line holds a measured step yet.
stepped() {
	python3 - "$BENCH_VERSIONS_CACHE" "$line" <<'PY'
import glob, json, sys
for p in glob.glob(sys.argv[1] + "/bisect/*/state.json"):
    try:
        d = json.load(open(p))
    except ValueError:
        continue
    if d["bad"] == sys.argv[2] and d.get("points"):
        sys.exit(0)
sys.exit(1)
PY
}
for _ in $(seq 1 300); do
	kill -0 $pid 2> /dev/null || break
	stepped && break
	sleep 0.2
done
kill -TERM $pid 2> /dev/null
wait $pid 2> /dev/null
"$BV" bisect --good good --bad line "${cell[@]}" --first-parent --format json > "$TMP/fp.json" 2> "$TMP/fp.err"
rc=$?
check "an interrupted bisect resumes from its state" contains "$TMP/fp.err" "^bisect: resuming from .*state.json \([1-9][0-9]* measurements?\)"
check "--first-parent bisect exits 0" test $rc -eq 0
[ $rc -eq 0 ] || tail -20 "$TMP/fp.err"
check "--first-parent names the merge, never a side commit" python3 - "$TMP/fp.json" "$merge" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["first_parent"] is True and doc["status"] == "found"
assert doc["first_bad"]["commit"] == sys.argv[2], doc["first_bad"]
assert doc["first_bad"]["subject"] == "merge side"
assert doc["measurements"]["reused"] >= 1, doc["measurements"]
assert all(not s["subject"].startswith("side") and s["subject"] != "note 101" for s in doc["steps"]), doc["steps"]
PY
# --improvement: a branch that takes the slowdown back out; good is the slow
# end, and the first faster commit is the fix.
git -C "$FIX" checkout -q -b fix main
harmless 301
python3 - "$FIX/kernels/src/scalar.c" <<'PY'
import sys
p = sys.argv[1]; s = open(p).read()
s = s.replace("\t\tfor (int rep = 0; rep < 3; rep++)\n", "", 1)
open(p, "w").write(s)
PY
git -C "$FIX" commit -qam "relu: one pass again" && harmless 302 && harmless 303
"$BV" bisect --good main --bad fix "${cell[@]}" --improvement --format json > "$TMP/imp.json" 2> "$TMP/imp.err"
rc=$?
check "--improvement bisect exits 0" test $rc -eq 0
[ $rc -eq 0 ] || tail -20 "$TMP/imp.err"
check "--improvement names the fix, faster than its parent" python3 - "$TMP/imp.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["direction"] == "faster" and doc["status"] == "found"
f = doc["first_bad"]
assert f["subject"] == "relu: one pass again", f
assert f["vs_good"]["ci_high"] < 0.7 and f["vs_parent"]["verdict"] == "faster", f
PY
echo "# whole test: $(( $(date +%s) - start )) s"
finish
