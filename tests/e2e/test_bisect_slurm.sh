#!/usr/bin/env bash
# End to end: `bisect --slurm --parallel 3` on a real Slurm cluster.
# A history of 16 commits with one planted relu slowdown (as
# test_bisect.sh makes its 64): each round's 3 candidates are one job array
# on a single-host cluster (slurm_cluster.sh), and the planted commit must
# be named in fewer rounds than the log2(16) = 4 steps of the sequential
# bisect.  A second bisect reuses every measurement and submits nothing.
# Bad input (--parallel 0, --slurm without --parallel, sbatch missing, a
# partition sbatch does not know) is refused with exit 2 before any build.  --parallel 4 without --slurm (the same walk here)
# goes on from the same state.  Where Slurm cannot start here, the checks that need
# it are skipped with the reason.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/slurm_cluster.sh"
trap 'slurm_cluster_stop; [ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT
t_start=$SECONDS

make_fixture
git -C "$FIX" tag good
# Harmless commits are notes outside the library (the same library tree: a
# cache hit), so the whole walk needs two builds and stays fast.
N=16 PLANTED_AT=11
for i in $(seq 1 $N); do
	if [ "$i" -eq $PLANTED_AT ]; then
		plant_relu_slowdown && git -C "$FIX" commit -qam "relu: three passes (planted slowdown)"
		planted=$(git -C "$FIX" rev-parse HEAD)
	else
		mkdir -p "$FIX/notes" && echo "note $i" > "$FIX/notes/$i.txt"
		git -C "$FIX" add -A && git -C "$FIX" commit -qm "note $i"
	fi
done
cd "$FIX" || exit 1
cell=(--good good --bad main --bench unary --op relu --backend scalar --size 64K --quick)
export NO_COLOR=1

# ---- refused, before anything is built ---------------------------------------
refused "--parallel 0" "--parallel" bisect "${cell[@]}" --slurm --parallel 0
refused "--slurm without --parallel" "--slurm needs --parallel K" bisect "${cell[@]}" --slurm
refused "--partition without --slurm" "--partition is an option of --slurm" bisect "${cell[@]}" --parallel 2 --partition x
refused "--slurm-task alone" "go together" bisect "${cell[@]}" --slurm-task 1
refused "a hostile --slurm-commits" "not a full commit id" bisect "${cell[@]}" --slurm-task 1 \
	--slurm-task-out "$TMP/t" --slurm-commits '../../x;rm'
PATH=/nonexistent-bin "$BV" bisect "${cell[@]}" --slurm --parallel 3 > /dev/null 2> "$TMP/err"
rc=$?
check "bisect --slurm with sbatch not on PATH: exit 2 (exit $rc)" test $rc -eq 2
check "bisect --slurm with sbatch not on PATH: says so" contains "$TMP/err" "sbatch not found on PATH"

# ---- the cluster -------------------------------------------------------------
t0=$SECONDS
if ! slurm_cluster_start; then
	skip "a single-host Slurm cluster" "$slurm_why"
	finish
fi
ok "a single-host Slurm cluster started ($((SECONDS - t0)) s)"

# An unknown partition: sbatch --test-only refuses it before any build.
BENCH_VERSIONS_CACHE="$TMP/pf-cache" "$BV" bisect "${cell[@]}" --slurm --parallel 3 --partition no-such-part \
	> /dev/null 2> "$TMP/pf.err"
rc=$?
check "bisect --slurm with an unknown partition: exit 2 (exit $rc)" test $rc -eq 2
check "... with sbatch's words" contains "$TMP/pf.err" "sbatch --test-only failed .*[Pp]artition"
check "... before anything is built" test -z "$(ls -A "$TMP/pf-cache/builds" 2> /dev/null)"

t0=$SECONDS
"$BV" bisect "${cell[@]}" --slurm --parallel 3 --format json > "$TMP/b1.json" 2> "$TMP/b1.err"
rc=$?
check "bisect --slurm --parallel 3: exit 0 (exit $rc, $((SECONDS - t0)) s)" test $rc -eq 0
[ $rc -eq 0 ] || sed 's/^/#   /' "$TMP/b1.err" | tail -30
check "bisect --slurm --parallel 3 names the planted commit in fewer rounds than log2(16) steps" \
	python3 - "$TMP/b1.json" "$planted" "$N" <<'PY'
import json, math, sys
doc = json.load(open(sys.argv[1])); planted = sys.argv[2]; n = int(sys.argv[3])
assert doc["status"] == "found", doc["status"]
assert doc["first_bad"]["commit"] == planted, (doc["first_bad"]["commit"], planted)
assert doc["first_bad"]["vs_parent"]["verdict"] == "slower", doc["first_bad"]["vs_parent"]
assert 1 <= doc["rounds"] < math.log2(n), doc["rounds"]
steps = doc["steps"]
assert planted in [s["commit"] for s in steps]
assert all(s["reused"] is False for s in steps)
assert doc["measurements"]["taken"] >= len(steps), doc["measurements"]
PY
echo "# rounds: $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["rounds"], "rounds,", len(d["steps"]), "commits measured")' "$TMP/b1.json" 2> /dev/null)"
check "the rounds were Slurm job arrays" contains "$TMP/b1.err" "slurm: submitted job [0-9]+: 3 shards"

t0=$SECONDS
"$BV" bisect "${cell[@]}" --slurm --parallel 3 > "$TMP/b2.out" 2> "$TMP/b2.err"
rc=$?
check "second bisect --slurm: exit 0, the same commit ($((SECONDS - t0)) s)" contains "$TMP/b2.out" "^first slower commit: $planted"
check "second bisect --slurm: measures nothing, reuses every measurement" \
	contains "$TMP/b2.out" "builds: 0 .*measured 0, reused [1-9][0-9]* measurements?"
check "second bisect --slurm: submits nothing" bash -c "! grep -q 'slurm: submitted' '$TMP/b2.err'"

# --parallel without --slurm: the same K-ary walk here, one candidate after
# another, from the same state (K = 4 takes other commits: only those are new).
t0=$SECONDS
"$BV" bisect "${cell[@]}" --parallel 4 --format json > "$TMP/b3.json" 2> "$TMP/b3.err"
rc=$?
check "bisect --parallel 4 here: exit 0 ($((SECONDS - t0)) s)" test $rc -eq 0
check "bisect --parallel 4 here: the same commit, reusing what the Slurm rounds measured" \
	python3 - "$TMP/b3.json" "$planted" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["status"] == "found" and doc["first_bad"]["commit"] == sys.argv[2], doc["status"]
assert doc["measurements"]["reused"] >= 2, doc["measurements"]
assert any(s["reused"] for s in doc["steps"]) and any(not s["reused"] for s in doc["steps"])
PY
check "bisect --parallel 4 here: nothing submitted" bash -c "! grep -q 'slurm: submitted' '$TMP/b3.err'"
echo "# test_bisect_slurm.sh: $((SECONDS - t_start)) s"
finish
