#!/usr/bin/env bash
# End to end: `run --slurm` on a real Slurm cluster.  A
# single-host cluster from Debian's packages (slurm_cluster.sh: its own
# munged, slurmctld and slurmd, config and ports, stopped by their PIDs at
# the end) runs the shards of a two-version comparison as one job array;
# one shard's job is cancelled while it is queued, and the driver must
# submit it again and still give every cell, with the planted relu slowdown
# called slower.  Bad input (sbatch missing, an unknown partition, options
# that do not go together) is refused with exit 2 before anything is built.
# Ctrl-C cancels the array.  Where Slurm cannot start here (not root, the
# packages missing), the checks that need it are skipped with the reason.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/slurm_cluster.sh"
# The daemons are stopped on every way out, before lib.sh's $TMP goes.
trap 'slurm_cluster_stop; [ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT

make_fixture
git -C "$FIX" branch -q base
plant_relu_slowdown
git -C "$FIX" commit -qam "relu three times slower"
cd "$FIX" || exit 1
sel=(--quick --benches unary --ops relu,abs --backends scalar --sizes 64K,1M)
export NO_COLOR=1

# ---- refused without a cluster ----------------------------------------------
# PATH without Slurm's commands (the tool itself needs nothing else before
# it looks for sbatch: refused is not used, its timeout would not be found).
PATH=/nonexistent-bin "$BV" run base main --slurm "${sel[@]}" --results "$TMP/res-nopath" > /dev/null 2> "$TMP/err"
rc=$?
check "--slurm with sbatch not on PATH: exit 2 (exit $rc)" test $rc -eq 2
check "--slurm with sbatch not on PATH: says so" contains "$TMP/err" "sbatch not found on PATH"
BV_SLURM_BIN=/nonexistent-bin refused "--slurm with BV_SLURM_BIN lacking sbatch" "no sbatch in BV_SLURM_BIN" \
	base main --slurm "${sel[@]}" --results "$TMP/res-nopath"
check "nothing left by the refused runs" test ! -e "$TMP/res-nopath/latest"
refused "--partition without --slurm" "--partition applies to --slurm only" base main --partition x "${sel[@]}"
refused "--shard with --slurm" "--shard with --slurm" base main --slurm --shard 1/2 "${sel[@]}"
refused "--resume with --slurm" "--resume with --slurm" base main --slurm --resume "$TMP" "${sel[@]}"
refused "--shards 0" "--shards '0'" base main --slurm --shards 0 "${sel[@]}"

# ---- the cluster --------------------------------------------------------------
t0=$SECONDS
if ! slurm_cluster_start; then
	skip "a single-host Slurm cluster" "$slurm_why"
	finish
fi
# (not a check: a cluster that does not start is a skip above, never a pass)
echo "# a single-host Slurm cluster started ($((SECONDS - t0)) s)"

# An unknown partition: sbatch's own words, exit 2, before any build.
refused "unknown partition" "invalid partition" base main --slurm --partition no-such-part "${sel[@]}" \
	--results "$TMP/res-part"
check "unknown partition: nothing built" test ! -e "$BENCH_VERSIONS_CACHE/builds"
check "unknown partition: no results directory left" test -z "$(ls -A "$TMP/res-part" 2> /dev/null | grep -v latest)"

# cancel_one: once the array is queued, cancels one of its tasks (a pending
# one if any: it cannot have finished), as a failed node or a user would.
cancel_one() {
	local line t=0
	while [ $t -lt 600 ]; do
		line=$(squeue --noheader --array --format='%F_%K %T' 2> /dev/null | sort -k2,2r | head -1)
		if [ -n "$line" ]; then
			scancel "${line%% *}" && echo "${line%% *} ${line#* }" > "$TMP/cancelled"
			return
		fi
		sleep 0.1
		t=$((t + 1))
	done
}

t0=$SECONDS
cancel_one &
canceller=$!
"$BV" run base main --slurm --shards 3 "${sel[@]}" --format json --results "$TMP/res" \
	> "$TMP/out.json" 2> "$TMP/err"
rc=$?
wait "$canceller"
took=$((SECONDS - t0))
check "run --slurm --shards 3: exit 0 (exit $rc, $took s)" test $rc -eq 0
[ $rc -eq 0 ] || sed 's/^/#   /' "$TMP/err"
check "a task was cancelled ($(cat "$TMP/cancelled" 2> /dev/null))" test -s "$TMP/cancelled"
check "the cancelled shard was submitted again" contains "$TMP/err" "submitted again as job [0-9]+ \(retry 1 of 2\)"
check "three shards joined" contains "$TMP/err" "3 shards joined in [0-9.]+s"
check "the builds were made once, before submitting" \
	test "$(grep -c '^build: ' "$TMP/err")" -eq 2
# The planted 3x is slower; on a loaded machine (the sanitizer build beside
# other tests) a ratio that follows the machine's state is `unstable`
# instead (verdict.c, as test_contention.sh allows), still about 3x.
check "every cell, the planted slowdown slower" python3 - "$TMP/out.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
rows = {(r["op"], r["shape"]): r for r in doc["rows"]}
want = {(op, s) for op in ("relu", "abs") for s in ("64K", "1M")}
assert set(rows) == want, sorted(rows)
for (op, s), r in rows.items():
    assert all(x["status"] == "ok" for x in r["results"]), (op, s, r["results"])
    ch = r["changes"][0]
    v = ch["verdict"]
    if op == "relu":
        assert v == "slower" or (v == "unstable" and ch["ratio"] > 2), (op, s, v, ch["ratio"])
    else:
        assert v not in ("slower", "faster"), (op, s, v)
PY
run=$(readlink -f "$TMP/res/latest")
check "the joined logs are the run's (results/latest)" test -f "$run/base.json" -a -f "$run/main.json"
check "each shard's logs are kept" test "$(ls "$run"/shards/[123]/*/*/main.json 2> /dev/null | wc -l)" -ge 3
"$BV" share "$run" --output "$TMP/run.tar.gz" > /dev/null 2> "$TMP/share.err"
rc=$?
check "the joined run packs for share (no links in it; exit $rc)" test $rc -eq 0
[ $rc -eq 0 ] || sed 's/^/#   /' "$TMP/share.err"
# The joined directory is a run like any other: compare reads it.
"$BV" compare "$run" --format json > "$TMP/cmp.json" 2> "$TMP/cmp.err"
check "compare of the joined run: the same rows" python3 - "$TMP/out.json" "$TMP/cmp.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
key = lambda d: sorted((r["op"], r["shape"], r["changes"][0]["verdict"]) for r in d["rows"])
assert key(a) == key(b), (key(a), key(b))
PY
"$BV" report --from "$run" --formats none > "$TMP/from.out" 2> "$TMP/from.err"
rc=$?
# (a relu read unstable on a loaded machine blocks too: 3x at both states)
check "report --from the joined run: NOT READY on relu, exit 1 (exit $rc)" test $rc -eq 1
[ $rc -eq 1 ] || sed 's/^/#   /' "$TMP/from.err" "$TMP/from.out"
check "no job left in the queue" test -z "$(squeue --noheader 2> /dev/null)"

# A shard whose every job is cancelled: submitted again twice, then the run
# stops (exit 3), naming the shard, with the queue left empty.
"$BV" run base main --slurm --shards 1 "${sel[@]}" --results "$TMP/res-fail" > /dev/null 2> "$TMP/err-fail" &
driver=$!
while kill -0 "$driver" 2> /dev/null; do
	for task in $(squeue --noheader --array --format='%F_%K' 2> /dev/null); do scancel "$task"; done
	sleep 0.1
done
wait "$driver"
rc=$?
check "a shard failing every time: exit 3 (exit $rc)" test $rc -eq 3
check "a shard failing every time: submitted again twice" \
	test "$(grep -c 'submitted again as job' "$TMP/err-fail")" -eq 2
check "a shard failing every time: named" contains "$TMP/err-fail" "shard 1/1 failed 3 times"
[ $rc -eq 3 ] || sed 's/^/#   /' "$TMP/err-fail"

# report --slurm: measured on the cluster, and the cells that would block
# the release measured again there (one more array) before NOT READY.
# With each node's own cache: nothing is built before submitting (the
# shards build, or here find the builds above: one host, one cache); the
# partition named and a time limit passed to sbatch.
"$BV" report --baseline base --candidate main --slurm --slurm-cache node --partition "$SLURM_PARTITION" --time 5 \
	--shards 2 "${sel[@]}" --layouts 1 --formats none --results "$TMP/res-rep" > "$TMP/rep.out" 2> "$TMP/rep.err"
rc=$?
# A loaded machine may read relu `unstable`: 3x at both of its states,
# which blocks as any regression (report.c), so there is always a NOT READY.
check "report --slurm: NOT READY, exit 1 (exit $rc)" test $rc -eq 1
[ $rc -eq 1 ] || sed 's/^/#   /' "$TMP/rep.err" "$TMP/rep.out"
check "report --slurm: the blocking cells measured again on the cluster" \
	test "$(grep -c 'shards\{0,1\} joined in' "$TMP/rep.err")" -eq 2
check "report --slurm: relu blocks" contains "$TMP/rep.out" "relu"
check "--slurm-cache node: nothing built before submitting" test "$(grep -c '^build: ' "$TMP/rep.err")" -eq 0
check "--slurm-cache node: the shards found their builds" \
	grep -q "cached, nothing rebuilt" "$(readlink -f "$TMP/res-rep/latest")"/shards/slurm-*_1.out

# ---- hostile output from Slurm's commands ---------------------------------------
# BV_SLURM_BIN with wrappers around the real commands: sbatch says a warning
# with terminal controls before the job id, squeue adds garbage lines (controls,
# ids too long, a huge line) and a line for a task of a job that is not ours.
# The run must still finish, and no control reaches stderr.
W="$TMP/wrapped-bin"
mkdir -p "$W"
for cmd in sbatch squeue scancel scontrol; do
	real=$(command -v "$cmd")
	case $cmd in
	sbatch) printf '#!/bin/sh
printf "sbatch: warning: \033[2J\033]0;owned\007 odd\n" >&2
exec %s "$@"
' "$real" ;;
	squeue) printf '#!/bin/sh
%s "$@"
st=$?
printf "\033[31m|1|RUNNING|x\n99999999999999999999999|1|RUNNING|x\n424242|1|RUNNING|not ours\n"
head -c 200000 /dev/zero | tr "\\0" x
echo
exit $st
' "$real" ;;
	*) printf '#!/bin/sh
exec %s "$@"
' "$real" ;;
	esac > "$W/$cmd"
	chmod +x "$W/$cmd"
done
BV_SLURM_BIN="$W" "$BV" run base main --slurm --shards 2 "${sel[@]}" --results "$TMP/res-hostile" \
	> /dev/null 2> "$TMP/err-hostile"
rc=$?
check "hostile output from sbatch and squeue: exit 0 (exit $rc)" test $rc -eq 0
[ $rc -eq 0 ] || sed 's/^/#   /' "$TMP/err-hostile"
check "hostile output from sbatch and squeue: no terminal control on stderr" \
	python3 -c 'import sys; sys.exit(any(c in open(sys.argv[1], "rb").read() for c in (b"\x1b", b"\x07")))' \
	"$TMP/err-hostile"

# ---- Ctrl-C cancels the array -------------------------------------------------
# Once the array is submitted, SIGINT to the driver's process group (as a
# terminal's Ctrl-C): the jobs are cancelled and the run exits 130.
until_submitted() {
	local t=0
	while [ $t -lt 600 ]; do
		grep -q "slurm: submitted job" "$1" 2> /dev/null && return 0
		sleep 0.1
		t=$((t + 1))
	done
	return 1
}
interrupted_run "$TMP/int.out" "$TMP/int.err" until_submitted \
	"$BV" run base main --slurm --shards 2 "${sel[@]}" --budget 20 --min-processes 20 --results "$TMP/res-int"
rc=$?
check "Ctrl-C: exit 130 (exit $rc)" test $rc -eq 130
check "Ctrl-C: the jobs were cancelled (scancel)" contains "$TMP/int.err" "cancelling 1 job \(scancel\)"
check "Ctrl-C: says where the finished shards are" contains "$TMP/int.err" "of 2 shards finished; their logs are in"
[ $rc -eq 130 ] || sed 's/^/#   /' "$TMP/int.err"
gone() { local t=0; while [ -n "$(squeue --noheader 2> /dev/null)" ] && [ $t -lt 50 ]; do sleep 0.2; t=$((t + 1)); done; [ $t -lt 50 ]; }
check "Ctrl-C: no job left in the queue" gone
echo "# test_slurm: $SECONDS s in all"
finish
