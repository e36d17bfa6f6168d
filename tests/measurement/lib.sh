# lib.sh - what the proofs in tests/measurement/ share, sourced by each:
# their work directory and environment, the tool they measure with (a
# snapshot of HEAD), the fixture repository's first commit, and the
# "parallel build beside CI" load.  Not part of `make test`.
#
# A proof runs for an hour or more while the checkout goes on changing, so
# the tool is built from `git archive HEAD` into the work directory: later
# edits (or a rebuild of bin/) do not change a running proof, and the commit
# it records is the code it ran.
set -eu
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# proof_env NAME: WORK (PROOF_DIR, or a new /tmp/bv-NAME-XXXXXX), its own
# cache, and a git identity for the fixture's commits.
proof_env() {
	WORK=${PROOF_DIR:-$(mktemp -d "/tmp/bv-$1-XXXXXX")}
	mkdir -p "$WORK"
	export BENCH_VERSIONS_CACHE="$WORK/cache"
	export GIT_AUTHOR_NAME=fixture GIT_AUTHOR_EMAIL=fixture@example.invalid
	export GIT_COMMITTER_NAME=fixture GIT_COMMITTER_EMAIL=fixture@example.invalid
	unset KERNEL_REPO
}

# proof_tool: BV, the tool frozen at HEAD (built once per work directory).
proof_tool() {
	TOOL="$WORK/tool"
	if [ ! -x "$TOOL/bin/bench-versions" ]; then
		mkdir -p "$TOOL"
		git -C "$ROOT" archive HEAD | tar -x -C "$TOOL"
		make -s -C "$TOOL" all > /dev/null
	fi
	BV="$TOOL/bin/bench-versions"
	COMMIT=$(git -C "$ROOT" rev-parse --short HEAD)
}

# proof_fixture MESSAGE TAG: FIX, a repository holding a copy of this
# checkout's kernels/ as its first commit, tagged TAG; KERNEL_DIR points at
# it.  FIX_NEW=1 when it was made now, 0 when it existed already (a proof
# given the same PROOF_DIR goes on with the same fixture, and adds nothing).
# Not a status: set -e does not apply inside a function called as a test.
proof_fixture() {
	FIX="$WORK/repo"
	export KERNEL_DIR="$FIX/kernels"
	FIX_NEW=0
	[ ! -d "$FIX/.git" ] || return 0
	mkdir -p "$FIX"
	cp -r "$ROOT/kernels" "$FIX/kernels"
	rm -rf "$FIX/kernels/build"
	git -C "$FIX" init -q -b main
	git -C "$FIX" add -A
	git -C "$FIX" commit -qm "$1"
	git -C "$FIX" tag "$2"
	FIX_NEW=1
}

# proof_load LOAD: none, or make: a copy of kernels/ cleaned and rebuilt with
# make -j2 in a loop for as long as the proof runs (ended on exit).
proof_load() {
	case "$1" in
	none) return 0 ;;
	make) ;;
	*) echo "LOAD must be none or make, not '$1'" >&2; exit 2 ;;
	esac
	rm -rf "$WORK/loadsrc"
	cp -r "$ROOT/kernels" "$WORK/loadsrc"
	rm -rf "$WORK/loadsrc/build"
	( while :; do make -s -C "$WORK/loadsrc" BUILD="$WORK/loadbuild" clean > /dev/null 2>&1 || true
	           make -s -j2 -C "$WORK/loadsrc" BUILD="$WORK/loadbuild" lib > /dev/null 2>&1 || true; done ) &
	LOADPID=$!
	trap 'kill $LOADPID 2>/dev/null; pkill -P $LOADPID 2>/dev/null || true' EXIT
	sleep 5
}

# load_now: the 1-minute load average, for the logs.
load_now() { cut -d' ' -f1 /proc/loadavg; }
