#!/usr/bin/env bash
# proof.sh - measures how often the harness gets the verdict right: the A/A
# false-alarm rate and the sensitivity to planted 3 % and 2 % slowdowns.
#
#   tests/measurement/proof.sh [RUNS] [bench-versions options...]
#   e.g. tests/measurement/proof.sh 20              (default settings)
#        tests/measurement/proof.sh 20 --quick
#
# It builds a fixture repository from this checkout's kernels/ with four
# commits and compares each with `a`, RUNS times:
#   a       the library as it is
#   aa      a comment-only change: identical code under another version label
#   slow3   abs and exp redo their first 3 % of elements: 3 % more work
#   slow2   the same with 2 %
# and counts the verdicts: aa/a should be "same" in every cell, slow3/a and
# slow2/a "slower" in the abs and exp cells.  Not part of `make test` (it runs
# for many minutes); docs/measurement.md reports its figures.
source "$(dirname "$0")/lib.sh"
RUNS=${1:-20}
shift || true
OPTS=("$@")
proof_env proof
proof_tool

proof_fixture "a: the library as it is" a
if [ "$FIX_NEW" = 1 ]; then
	plant() { # PERCENT: abs and exp redo their first PERCENT % of elements
		python3 - "$FIX/kernels/src/scalar.c" "$1" <<'PY'
import sys
p, pct = sys.argv[1], sys.argv[2]
s = open(p).read()
for op, body in (("KN_ABS", "y[i] = fabsf(x[i]);"), ("KN_EXP", "y[i] = expf(x[i]);")):
    head = "\tcase %s:\n\t\tfor (i = 0; i < n; i++)\n\t\t\t%s\n" % (op, body)
    assert head in s, "proof: the %s loop moved; update the plant" % op
    s = s.replace(head, head + "\t\tfor (i = 0; i < n * %s / 100; i++) /* planted */\n\t\t\t%s\n" % (pct, body))
open(p, "w").write(s)
PY
	}
	echo "/* identical code, another tree */" >> "$FIX/kernels/src/scalar.c"
	git -C "$FIX" commit -qam "aa: comment only" && git -C "$FIX" tag aa
	git -C "$FIX" checkout -q a
	plant 3 && git -C "$FIX" commit -qam "slow3" && git -C "$FIX" tag slow3
	git -C "$FIX" checkout -q a
	plant 2 && git -C "$FIX" commit -qam "slow2" && git -C "$FIX" tag slow2
	git -C "$FIX" checkout -q main
fi

# Each comparison is a run of its own, two versions, as a user would type it:
#   bench-versions a aa       every unary op and size (the A/A cells)
#   bench-versions a slow3    abs and exp, every size
#   bench-versions a slow2    abs and exp, every size
mkdir -p "$WORK/runs"
start=$(date +%s)
for i in $(seq 1 "$RUNS"); do
	for v in aa slow3 slow2; do
		out="$WORK/runs/$v-$i.json"
		[ -s "$out" ] && continue
		ops=abs,exp
		[ $v = aa ] && ops=abs,neg,sqrt,exp,relu
		"$BV" a $v --benches unary --ops $ops --backends scalar --results "$WORK/results" \
			--format json "${OPTS[@]}" > "$out.tmp" 2> "$WORK/runs/$v-$i.err"
		mv "$out.tmp" "$out"
	done
	echo "run $i/$RUNS done ($(( $(date +%s) - start )) s)" >&2
done

python3 - "$WORK/runs" "$RUNS" "${OPTS[*]:-}" "$WORK/results" <<'PY'
import json, sys, os, statistics, glob
d, runs, opts, results = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
tally = {}
secs = []
for i in range(1, runs + 1):
  for name in ("aa", "slow3", "slow2"):
    doc = json.load(open(os.path.join(d, "%s-%d.json" % (name, i))))
    for row in doc["rows"]:
        for ch in row["changes"]:
            v = ch["version"]
            planted = v != "aa" and row["op"] in ("abs", "exp")
            if v != "aa" and not planted:
                continue
            key = (v, row["op"] if planted else "all", row["size"])
            t = tally.setdefault(key, {"n": 0, "slower": 0, "same": 0, "faster": 0, "ratios": []})
            t["n"] += 1
            t[ch["verdict"]] = t.get(ch["verdict"], 0) + 1
            t["ratios"].append(ch["ratio"])
def show(rows, want):
    for key in sorted(rows):
        t = rows[key]
        r = sorted(t["ratios"])
        print("%-6s %-4s %9s  %3d  %s %3d/%-3d = %5.1f%%   ratio median %.4f, range %.4f-%.4f" % (
            key[0], key[1], key[2], t["n"], want, t[want], t["n"], 100.0 * t[want] / t["n"],
            statistics.median(r), r[0], r[-1]))
print("options: %s; %d runs" % (opts or "(defaults)", runs))
print("version op   size  cells verdict")
aa = {k: v for k, v in tally.items() if k[0] == "aa"}
show(aa, "same")
tot = sum(t["n"] for t in aa.values()); same = sum(t["same"] for t in aa.values())
print("A/A: same in %d/%d cells = %.1f%%" % (same, tot, 100.0 * same / tot))
for v in ("slow3", "slow2"):
    rows = {k: t for k, t in tally.items() if k[0] == v}
    show(rows, "slower")
    tot = sum(t["n"] for t in rows.values()); sl = sum(t["slower"] for t in rows.values())
    print("%s: slower in %d/%d comparisons = %.1f%%" % (v, sl, tot, 100.0 * sl / tot))
# The budget: seconds each cell took, all versions together, per size.
spent = {}
for log in glob.glob(os.path.join(results, "*", "a.json")):
    for c in json.load(open(log))["cells"]:
        if c["status"] == "ok":
            spent.setdefault(c["size"], []).append((c["measure_s"], c["processes"]))
for size in sorted(spent):
    s = sorted(x[0] for x in spent[size]); p = sorted(x[1] for x in spent[size])
    print("budget %9d: %d cells, seconds median %.1f max %.1f; processes median %d range %d-%d" % (
        size, len(s), statistics.median(s), s[-1], statistics.median(p), p[0], p[-1]))
PY
