#!/usr/bin/env bash
# publish_scale.sh - `bench-versions publish` at scale: N shared runs (default
# 1000) from K machine classes (default 10), made by publish_scale.py from one
# real run, published into an empty site; then one more run, published again.
# Not part of `make test` (it times things, and takes minutes).
#
#   tests/measurement/publish_scale.sh [N [K]]
#     TEMPLATE=DIR  the real run the N runs are made from (a results directory
#                   of two or more versions).  Default: made here, once per
#                   work directory, by a real run of this checkout's kernels/
#                   (a fixture repository as tests/e2e/lib.sh's make_fixture
#                   makes it, VERSION 0.1.0 then 0.1.1):
#                     bench-versions 0.1.0 main --benches unary,reduce \
#                       --ops abs,relu,exp,tanh,sum,max,dot,norm_l2 \
#                       --backends scalar,simd,blas --sizes 1K,64K,1M --quick --budget 1
#                   60 cells (blas only where the bench has it), 2 versions,
#                   logs of about 225 and 425 KB: about 2 minutes.
#     WORK=DIR      the work directory (default a new /tmp/bv-publish-scale-XXXXXX)
#     KEEP=1        keep the work directory (the site, the store, the uploads)
#     JOBS=J        the generator's processes (default 2)
#     TARGET_A_S, TARGET_B_S, TARGET_C_BYTES: the targets (60, 5, 2000000)
#
# Uses bin/bench-versions as built (`make` first); builds nothing itself.
# Prints the machine (CPU model, nproc, ISA, the load average before and
# after: other work on the machine lengthens every time here, so say it
# beside the figures), then:
#   (a) the first publish of all N runs into an empty site: wall, user, sys, max RSS
#   (b) one more run generated and published again
#   (c) the largest file under the site, the site's total size and file count
#   (d) the store's size (SITE.sqlite, with its -wal if one is left)
# and exits 1 when a target is missed: (a) <= 60 s (on 2 cores), (b) <= 5 s,
# (c) the largest file <= 2 MB; also 1 when publish fails or does not import
# every run (a generated run publish refuses is the generator's bug).
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BV="$ROOT/bin/bench-versions"
GEN="$ROOT/tests/measurement/publish_scale.py"
N=${1:-1000}
K=${2:-10}
TARGET_A_S=${TARGET_A_S:-60}
TARGET_B_S=${TARGET_B_S:-5}
TARGET_C_BYTES=${TARGET_C_BYTES:-2000000}
[ -x "$BV" ] || { echo "publish_scale.sh: $BV is not built (run make first)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "publish_scale.sh: /usr/bin/time is needed (apt-get install time)" >&2; exit 2; }

WORK=${WORK:-$(mktemp -d /tmp/bv-publish-scale-XXXXXX)}
mkdir -p "$WORK"
[ -n "${KEEP:-}" ] || trap 'rm -rf "$WORK"' EXIT
export GIT_AUTHOR_NAME=fixture GIT_AUTHOR_EMAIL=fixture@example.invalid
export GIT_COMMITTER_NAME=fixture GIT_COMMITTER_EMAIL=fixture@example.invalid
export BENCH_VERSIONS_CACHE="$WORK/cache"

load() { cut -d' ' -f1-3 /proc/loadavg; }
cpu=$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
isa=$(grep -qw avx512f /proc/cpuinfo && echo avx512f || { grep -qw avx2 /proc/cpuinfo && echo avx2 || echo "no avx2"; })
load_before=$(load)

# ---- the template -------------------------------------------------------
if [ -z "${TEMPLATE:-}" ]; then
	TEMPLATE=$(ls -d "$WORK"/template/[0-9]*/ 2> /dev/null | head -1)
	if [ -z "$TEMPLATE" ]; then
		echo "# making the template: a real run of 60 cells, 2 versions (about 2 minutes)" >&2
		FIX="$WORK/repo"
		rm -rf "$FIX"
		mkdir -p "$FIX"
		cp -r "$ROOT/kernels" "$FIX/kernels"
		rm -rf "$FIX/kernels/build"
		sed -i 's/^CUDA    ?= auto$/CUDA    ?= 0/' "$FIX/kernels/Makefile"
		echo 0.1.0 > "$FIX/kernels/VERSION"
		git -C "$FIX" init -q -b main && git -C "$FIX" add -A && git -C "$FIX" commit -qm "kernels 0.1.0" &&
			git -C "$FIX" tag 0.1.0 && echo 0.1.1 > "$FIX/kernels/VERSION" &&
			git -C "$FIX" commit -qam "kernels 0.1.1" || { echo "publish_scale.sh: cannot make the fixture" >&2; exit 2; }
		KERNEL_DIR="$FIX/kernels" "$BV" 0.1.0 main --benches unary,reduce \
			--ops abs,relu,exp,tanh,sum,max,dot,norm_l2 --backends scalar,simd,blas --sizes 1K,64K,1M \
			--quick --budget 1 --results "$WORK/template" > "$WORK/template.out" 2> "$WORK/template.err" ||
			{ echo "publish_scale.sh: the template run failed:" >&2; tail -5 "$WORK/template.err" >&2; exit 2; }
		TEMPLATE=$(ls -d "$WORK"/template/[0-9]*/ | head -1)
	fi
fi
TEMPLATE=${TEMPLATE%/}

SITE="$WORK/site"
IN="$WORK/incoming"
rm -rf "$SITE" "$SITE.sqlite" "$SITE.sqlite-wal" "$SITE.sqlite-shm" "$IN"
fail=0
miss() { echo "MISSED: $*"; fail=1; }

# ---- the uploads --------------------------------------------------------
t0=$(date +%s.%N)
python3 "$GEN" "$TEMPLATE" "$IN" --runs "$N" --classes "$K" --jobs "${JOBS:-2}" 2> "$WORK/gen.err" ||
	{ cat "$WORK/gen.err" >&2; echo "publish_scale.sh: the generator failed" >&2; exit 2; }
gen_s=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
in_bytes=$(du -sb "$IN" | cut -f1)

# publish_timed NAME: publish the incoming directory, timed; its figures in
# WALL USER SYS RSS, its stderr in $WORK/NAME.err.
publish_timed() {
	/usr/bin/time -f '%e %U %S %M' -o "$WORK/$1.time" \
		"$BV" publish --site "$SITE" --incoming "$IN" > "$WORK/$1.out" 2> "$WORK/$1.err"
	local rc=$?
	read -r WALL USER SYS RSS < <(tail -1 "$WORK/$1.time")
	if [ $rc -ne 0 ]; then
		miss "publish ($1) exited $rc:"
		tail -5 "$WORK/$1.err"
	fi
}

# (a) all N into an empty site
publish_timed first
grep -q "^publish: $N new runs\?, 0 already published, 0 copies of a run already there, 0 quarantined$" "$WORK/first.err" ||
	miss "the first publish did not import all $N runs: $(grep '^publish:' "$WORK/first.err" | tail -3)"
a_wall=$WALL a_user=$USER a_sys=$SYS a_rss=$RSS

# (b) one more
python3 "$GEN" "$TEMPLATE" "$IN" --first "$N" --runs 1 --classes "$K" --jobs 1 2>> "$WORK/gen.err" ||
	{ echo "publish_scale.sh: the generator failed" >&2; exit 2; }
publish_timed again
grep -q "^publish: 1 new run, $N already published, 0 copies of a run already there, 0 quarantined$" "$WORK/again.err" ||
	miss "publishing one more run did not import just it: $(grep '^publish:' "$WORK/again.err" | tail -3)"
b_wall=$WALL b_user=$USER b_sys=$SYS b_rss=$RSS

# (c) the site, (d) the store
read -r big_bytes big_path < <(find "$SITE" -type f -printf '%s %P\n' | sort -n | tail -1)
[ -n "${big_bytes:-}" ] || { big_bytes=0 big_path="(no file)"; miss "the site holds no file"; }
site_bytes=$(du -sb "$SITE" | cut -f1)
site_files=$(find "$SITE" -type f | wc -l)
store_bytes=$(stat -c %s "$SITE.sqlite")
wal_bytes=$(stat -c %s "$SITE.sqlite-wal" 2> /dev/null || echo 0)
load_after=$(load)

ok() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }' && echo ok || echo MISSED; }
ra=$(ok "$a_wall" "$TARGET_A_S")
rb=$(ok "$b_wall" "$TARGET_B_S")
rc_=$(ok "$big_bytes" "$TARGET_C_BYTES")
[ "$ra" = ok ] || miss "(a) the first publish took $a_wall s, over $TARGET_A_S s"
[ "$rb" = ok ] || miss "(b) publishing one more run took $b_wall s, over $TARGET_B_S s"
[ "$rc_" = ok ] || miss "(c) the largest file, $big_path, is $big_bytes bytes, over $TARGET_C_BYTES"

commit=$(git -C "$ROOT" rev-parse --short HEAD 2> /dev/null)
mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1e6 }'; }
{
	echo "# publish at scale: $N runs, $K classes; bench-versions at $commit$(git -C "$ROOT" diff --quiet HEAD -- orchestrator 2> /dev/null || echo ' (+ uncommitted changes)')"
	echo "# machine: $cpu, $(nproc) cpus, $isa; load average before $load_before, after $load_after"
	echo "# template: $TEMPLATE ($(ls "$TEMPLATE"/*.json | wc -l) logs); uploads: $(mb "$in_bytes") made in $gen_s s"
	printf '%-36s %-56s %-14s %s\n' "measure" "figure" "target" "result"
	printf '%-36s %-56s %-14s %s\n' "(a) first publish, $N runs" "$a_wall s wall ($a_user user, $a_sys sys), ${a_rss} KB RSS" "<= $TARGET_A_S s" "$ra"
	printf '%-36s %-56s %-14s %s\n' "(b) one more run, publish again" "$b_wall s wall ($b_user user, $b_sys sys), ${b_rss} KB RSS" "<= $TARGET_B_S s" "$rb"
	printf '%-36s %-56s %-14s %s\n' "(c) largest file under the site" "$big_bytes bytes ($big_path)" "<= $TARGET_C_BYTES" "$rc_"
	printf '%-36s %-56s %-14s %s\n' "    the site" "$site_bytes bytes ($(mb "$site_bytes")) in $site_files files" "" ""
	printf '%-36s %-56s %-14s %s\n' "(d) the store" "$store_bytes bytes ($(mb "$store_bytes")), wal $wal_bytes" "" ""
} | tee "$WORK/summary.txt"
if [ -n "${KEEP:-}" ]; then
	echo "# kept: $WORK (site $SITE, store $SITE.sqlite, uploads $IN)"
else
	echo "# the work directory is removed (KEEP=1 keeps it)"
fi
exit $fail
