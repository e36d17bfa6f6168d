#!/usr/bin/env bash
# bisect_proof.sh - how often `bench-versions bisect` names the right commit
# when the slowdown is small: planted 10 %, 5 % and 3 % slowdowns, each
# bisected RUNS times from scratch.
#
#   tests/measurement/bisect_proof.sh [RUNS] [bench-versions bisect options...]
#   e.g. tests/measurement/bisect_proof.sh 20              (default settings)
#        tests/measurement/bisect_proof.sh 20 --quick
#   PCTS="10 5 3" OP=exp SIZE=64K N=64 AT=41 PROOF_DIR=... to change what is planted where
#
# The fixture repository (from this checkout's kernels/) has a tag `good` and
# per planted percentage a branch `slowP` of N=64 commits on top of it: notes
# and comment-only changes, and at commit 41 the op (exp by default) redoing
# its first P % of elements, as proof.sh plants its slowdowns.  Each run
# removes the bisect states (never the builds) and bisects good..slowP on the
# op's scalar cell, then counts: the planted commit named (right), another
# commit named (wrong), a range left by skips, a refusal (exit 2: the check
# found no significant slowdown between the ends), a failure.  Not part of
# `make test` (it runs for a long time); docs/bisect.md reports its figures.
source "$(dirname "$0")/lib.sh"
RUNS=${1:-20}
shift || true
OPTS=("$@")
PCTS=${PCTS:-10 5 3}
OP=${OP:-exp}
SIZE=${SIZE:-64K}
N=${N:-64} AT=${AT:-41}
proof_env bisect-proof
proof_tool

plant() { # PERCENT: the op redoes its first PERCENT % of elements
	python3 - "$FIX/kernels/src/scalar.c" "$1" "$OP" <<'PY'
import sys
p, pct, op = sys.argv[1], sys.argv[2], sys.argv[3]
body = {"exp": "y[i] = expf(x[i]);", "abs": "y[i] = fabsf(x[i]);"}[op]
s = open(p).read()
head = "\tcase KN_%s:\n\t\tfor (i = 0; i < n; i++)\n\t\t\t%s\n" % (op.upper(), body)
assert head in s, "bisect_proof: the %s loop moved; update the plant" % op
s = s.replace(head, head + "\t\tfor (i = 0; i < n * %s / 100; i++) /* planted */\n\t\t\t%s\n" % (pct, body))
open(p, "w").write(s)
PY
}
proof_fixture "the library as it is" good
if [ "$FIX_NEW" = 1 ]; then
	for pct in $PCTS; do
		git -C "$FIX" checkout -q -b "slow$pct" good
		for i in $(seq 1 $N); do
			if [ "$i" -eq $AT ]; then
				plant "$pct" && git -C "$FIX" commit -qam "planted: $OP $pct % slower"
				git -C "$FIX" tag "planted$pct"
			elif [ $((i % 8)) -eq 0 ]; then
				echo "/* note $i */" >> "$FIX/kernels/src/scalar.c"
				git -C "$FIX" commit -qam "comment $i"
			else
				mkdir -p "$FIX/notes" && echo "$pct $i" > "$FIX/notes/$i.txt"
				git -C "$FIX" add -A && git -C "$FIX" commit -qm "note $i"
			fi
		done
	done
	git -C "$FIX" checkout -q main
fi
export KERNEL_DIR="$FIX/kernels"
unset KERNEL_REPO

mkdir -p "$WORK/runs"
start=$(date +%s)
for i in $(seq 1 "$RUNS"); do
	for pct in $PCTS; do
		out="$WORK/runs/$pct-$i.json"
		[ -s "$out" ] && continue
		rm -rf "$BENCH_VERSIONS_CACHE/bisect" # every run from scratch; builds stay cached
		set +e
		"$BV" bisect --good good --bad "slow$pct" --bench unary --op "$OP" --backend scalar --size "$SIZE" \
			--format json "${OPTS[@]}" > "$out.tmp" 2> "$WORK/runs/$pct-$i.err"
		echo "$?" > "$WORK/runs/$pct-$i.rc"
		set -e
		mv "$out.tmp" "$out"
	done
	echo "run $i/$RUNS done ($(( $(date +%s) - start )) s)" >&2
done

python3 - "$WORK/runs" "$RUNS" "${OPTS[*]:-}" "$PCTS" "$FIX" <<'PY'
import json, os, statistics, subprocess, sys
d, runs, opts, pcts, fix = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4].split(), sys.argv[5]
print("options: %s; %d runs per slowdown" % (opts or "(defaults)", runs))
print("slowdown  right  wrong  range  refused  failed   steps  builds  seconds (medians)")
for pct in pcts:
    planted = subprocess.check_output(["git", "-C", fix, "rev-parse", "planted" + pct], text=True).strip()
    t = {"right": 0, "wrong": 0, "range": 0, "refused": 0, "failed": 0}
    steps, builds, secs = [], [], []
    for i in range(1, runs + 1):
        rc = int(open(os.path.join(d, "%s-%d.rc" % (pct, i))).read())
        if rc == 2:
            t["refused"] += 1
            continue
        if rc != 0:
            t["failed"] += 1
            continue
        doc = json.load(open(os.path.join(d, "%s-%d.json" % (pct, i))))
        steps.append(len(doc["steps"])); builds.append(doc["builds"]["total"]); secs.append(doc["elapsed_s"])
        if doc["status"] != "found":
            t["range"] += 1
        elif doc["first_bad"]["commit"] == planted:
            t["right"] += 1
        else:
            t["wrong"] += 1
    med = lambda v: statistics.median(v) if v else float("nan")
    print("%5s %%   %3d/%d  %5d  %5d  %7d  %6d   %5.1f  %6.1f  %7.0f" % (
        pct, t["right"], runs, t["wrong"], t["range"], t["refused"], t["failed"], med(steps), med(builds), med(secs)))
PY
