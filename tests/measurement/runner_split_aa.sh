#!/usr/bin/env bash
# runner_split_aa.sh - whether a change to bv-runner's code (moved between
# files, main and its option parser rewritten) shifted what it measures: the
# same cells measured by the tool built at OLD and by this checkout's build,
# alternately (old, new, old, new, ...: each pair close in time, so a drift of
# the machine falls on both sides of it), each run an A/A (`local local`,
# the same code under two names).
#
#   tests/measurement/runner_split_aa.sh [OLD [PAIRS [bench-versions options...]]]
#     OLD    the commit to compare with (default 503cf1f, before the split)
#     PAIRS  old/new pairs of runs (default 4)
#     options: the cells and the method (default: --benches unary,reduce
#            --ops abs,exp,tanh,sum,dot --backends scalar,simd
#            --sizes 1K,16K,256K,1M --quick --processes 6 --counts none: 40
#            cells, no Valgrind counts (minutes each on a 16M cell), each run
#            under a minute once both caches hold the builds)
#   e.g. tests/measurement/runner_split_aa.sh 503cf1f 4
#
# OLD is built in a temporary `git worktree add --detach` (removed at the
# end), or taken as built from OLD_TREE=DIR (a checkout of OLD, left alone);
# the new side is this checkout's build (`make all` first).  Both measure
# this checkout's kernels/ (`local`), each with a cache of its own in the
# work directory (WORK_DIR=DIR: that one, its caches reused; its earlier
# runs' logs are removed first).
#
# It prints the CPU model and ISA (avx512f/avx2 from /proc/cpuinfo), the
# 1-minute load average at the start, after each run and at the end (other
# work on the machine widens every interval: say so beside the figures), then
# runner_split_aa.py's report: per cell the paired ratio new/old over the
# pairs (geometric mean, the range over the pairs, a 95 % bootstrap interval
# resampling the pairs), overall the geometric mean over cells with its
# interval, what the machine alone moves between two runs of one side, and
# each side's own A/A verdicts (local vs local should call nothing).  The
# verdict line says whether the overall interval holds 1.  KEEP_TMP=1 keeps
# the runs' logs (runner_split_aa.py WORK PAIRS reads them again).  Not part
# of `make test`; docs/evidence/runner-split.md reports a run.
set -eu
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OLD=${1:-503cf1f}
PAIRS=${2:-4}
shift $(($# < 2 ? $# : 2))
if [ $# -gt 0 ]; then
	OPTS=("$@")
else
	OPTS=(--benches unary,reduce --ops abs,exp,tanh,sum,dot --backends scalar,simd --sizes 1K,16K,256K,1M --quick
		--processes 6 --counts none)
fi
case "$PAIRS" in '' | *[!0-9]* | 0) echo "runner_split_aa.sh: PAIRS '$PAIRS': expected a number, 1 or more" >&2; exit 2 ;; esac

WORK=${WORK_DIR:-$(mktemp -d /tmp/bv-runner-split-XXXXXX)}
mkdir -p "$WORK"
rm -rf "$WORK"/res-* "$WORK"/table-* "$WORK"/err-*
OLD_BUILT=${OLD_TREE:-$WORK/old}
# KEEP_TMP=1 keeps the runs' logs in WORK (the old worktree goes either way);
# so does a report that fails, to be read again.
cleanup() {
	[ -n "${OLD_TREE:-}" ] || git -C "$ROOT" worktree remove --force "$WORK/old" 2> /dev/null || true
	if [ "${KEEP_TMP:-0}" = 1 ] || [ -n "${WORK_DIR:-}" ]; then echo "# kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
export GIT_AUTHOR_NAME=fixture GIT_AUTHOR_EMAIL=fixture@example.invalid
export GIT_COMMITTER_NAME=fixture GIT_COMMITTER_EMAIL=fixture@example.invalid
unset KERNEL_REPO KERNEL_DIR

load_now() { cut -d' ' -f1 /proc/loadavg; }

echo "# runner_split_aa.sh $OLD $PAIRS ${OPTS[*]}"
echo "# cpu: $(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cpus"
flags=$(grep -m1 '^flags' /proc/cpuinfo)
isa=none
case " $flags " in *" avx2 "*) isa=avx2 ;; esac
case " $flags " in *" avx512f "*) isa="avx512f (and avx2)" ;; esac
echo "# isa: $isa"
echo "# load at start (1-minute): $(load_now)"

[ -n "${OLD_TREE:-}" ] || git -C "$ROOT" worktree add -q --detach "$WORK/old" "$OLD"
if [ "$(git -C "$OLD_BUILT" rev-parse HEAD)" != "$(git -C "$ROOT" rev-parse "$OLD^{commit}")" ]; then
	echo "runner_split_aa.sh: $OLD_BUILT is not at $OLD" >&2
	exit 2
fi
echo "# building old ($(git -C "$OLD_BUILT" rev-parse --short HEAD)) and new ($(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD -- harness orchestrator Makefile || echo ', with uncommitted changes'))"
make -s -j2 -C "$OLD_BUILT" all > "$WORK/old-build.log" 2>&1
make -s -j2 -C "$ROOT" all > "$WORK/new-build.log" 2>&1

# run SIDE N: one A/A run of SIDE's tool, from this checkout (so `local` is
# its kernels/ for both tools); the table as JSON, the logs in res-SIDE-N.
run() {
	local side=$1 n=$2 bv
	[ "$side" = old ] && bv="$OLD_BUILT/bin/bench-versions" || bv="$ROOT/bin/bench-versions"
	(cd "$ROOT" && BENCH_VERSIONS_CACHE="$WORK/cache-$side" "$bv" run local local "${OPTS[@]}" \
		--results "$WORK/res-$side-$n" --format json > "$WORK/table-$side-$n.json" 2> "$WORK/err-$side-$n.txt") ||
		true # exit 1 would be a false call, which the report counts
	echo "# $side run $n: $(date -u +%H:%M:%S), load $(load_now)"
}
for i in $(seq 1 "$PAIRS"); do
	run old "$i"
	run new "$i"
done
echo "# load at end (1-minute): $(load_now)"

echo
python3 "$ROOT/tests/measurement/runner_split_aa.py" "$WORK" "$PAIRS" || KEEP_TMP=1
