# lib.sh - shared by the end-to-end tests: checks that print TAP-like lines
# (counted by tests/run.sh) and a fixture repository built from kernels/.
set -u
# A script started with SIGINT ignored (behind & by a non-interactive shell,
# under nohup, by a CI runner that starts its jobs so) could not check what
# Ctrl-C does: a non-interactive shell cannot restore a signal that was
# ignored when it started, and every child inherits it.  Such a script starts
# again at once with SIGINT at its default (coreutils' env --default-signal),
# so the suite passes however it was started.  SigIgn's last hex digit holds
# signals 1-4; SIGINT (2) is its second bit.  BV_SIGINT_RESET marks the
# restarted process alone (never a second restart), and goes at once: a
# script it starts with SIGINT ignored decides for itself.
if [ -n "${BV_SIGINT_RESET:-}" ]; then
	unset BV_SIGINT_RESET
else
	sigign=$(awk '/^SigIgn/ {print $2}' /proc/$$/status 2> /dev/null)
	if [ -n "$sigign" ] && (((16#${sigign: -1} >> 1) & 1)); then
		BV_SIGINT_RESET=1 exec env --default-signal=INT bash "$0" "$@"
	fi
fi
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
E2E="$ROOT/tests/e2e" # the scripts' helpers (png_colours.py, servers)
# BV_BIN_DIR=bin-asan runs the same checks against the sanitizer build.
BV="$ROOT/${BV_BIN_DIR:-bin}/bench-versions"
TMP=$(mktemp -d /tmp/bv-e2e-XXXXXX)
[ -n "${KEEP_TMP:-}" ] || trap 'rm -rf "$TMP"' EXIT
export BENCH_VERSIONS_CACHE="$TMP/cache"
# The tables the checks read are the whole ones: a COLUMNS from the shell
# that started the suite would fit them to its width (test_table_width sets
# its own).
unset COLUMNS
# share_release_builds: the scripts that build this repository's releases
# (test_releases_build, test_docs_examples' compat --build) share one cache
# for the whole of tests/run.sh (BV_RELEASE_CACHE, made and removed there), so
# each release is built once per suite, not once per script.  Run alone, a
# script keeps its own cache.  The key of a cached build hashes the harness,
# compat rules, sources and compiler (docs/architecture.md), so a hit is a
# build of the same inputs by this very suite.
share_release_builds() {
	[ -n "${BV_RELEASE_CACHE:-}" ] && [ -d "$BV_RELEASE_CACHE" ] && export BENCH_VERSIONS_CACHE="$BV_RELEASE_CACHE"
	return 0
}
# Built libraries too are the suite's: libs/ (and objs/, the catalog's
# version-independent objects) of every script's cache is a link to
# BV_RELEASE_CACHE's, so the fixture's 0.1.0, main and working tree are
# built once per suite, not once per script.  Their keys hash the tree,
# patches, recipe, compiler, build environment and tools (docs/cli/cache.md),
# so a hit is a library built from the same inputs by this very suite; what
# each script builds itself is its plugins, with its harness side.  A script
# about building the library (a fault or a signal during the build, make's
# flags, the processes a build starts) calls own_library_builds first.  Run
# alone, a script keeps its own cache whole.
if [ -n "${BV_RELEASE_CACHE:-}" ] && [ -d "$BV_RELEASE_CACHE" ]; then
	mkdir -p "$BV_RELEASE_CACHE/libs" "$BV_RELEASE_CACHE/objs" "$BENCH_VERSIONS_CACHE"
	ln -s "$BV_RELEASE_CACHE/libs" "$BENCH_VERSIONS_CACHE/libs"
	ln -s "$BV_RELEASE_CACHE/objs" "$BENCH_VERSIONS_CACHE/objs"
fi
own_library_builds() {
	rm -f "$BENCH_VERSIONS_CACHE/libs" "$BENCH_VERSIONS_CACHE/objs"
}
export GIT_AUTHOR_NAME=fixture GIT_AUTHOR_EMAIL=fixture@example.invalid
export GIT_COMMITTER_NAME=fixture GIT_COMMITTER_EMAIL=fixture@example.invalid
failures=0

# chrome ARGS...: headless Chromium with a fresh profile per load and its
# background services off (a net-log check counts only the requests a page
# made), at most 120 s; its messages go to $TMP/chromium.log.
chrome() {
	local profile
	profile=$(mktemp -d "$TMP/chromium-XXXXXX")
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
		--disable-background-networking --disable-component-update --disable-sync --no-first-run \
		--disable-extensions --user-data-dir="$profile" "$@" 2>> "$TMP/chromium.log"
}

ok() { echo "ok - $1"; }
not_ok() { echo "not ok - $1"; failures=$((failures + 1)); }
# skip NAME REASON: a check that cannot run here (no GPU, mount not permitted).
# TAP's directive, so tests/run.sh counts it as skipped, never as passed.
skip() { echo "ok - $1 # SKIP $2"; }
# history_missing NAME REASON: a check that needs this repository's history,
# in a clone without it (shallow, or a single commit).  A skip on a
# developer's machine; a failure under CI (CI set, as CI services set it),
# where "every release still builds" is what compat/ exists for and a
# shallow checkout must not hide it.
history_missing() {
	if [ -n "${CI:-}" ] && [ "$CI" != false ] && [ "$CI" != 0 ]; then
		not_ok "$1 (CI=$CI, and this clone lacks the history it needs: $2; clone the whole history: git fetch --unshallow)"
	else
		skip "$1" "$2"
	fi
}
# check NAME COMMAND...: passes when the command succeeds
check() { local name=$1; shift; if "$@"; then ok "$name"; else not_ok "$name"; fi; }
contains() { grep -qE -- "$2" "$1"; }

# A repository holding a copy of this checkout's kernel library at kernels/,
# with release 0.1.0 as its first commit.
# The fixture's library leaves its cuda backend out (its Makefile's default
# CUDA=auto becomes CUDA=0): nvcc takes 10-40 s of a 2-core machine per
# build, and most scripts build several versions of a library whose cuda
# cells they never ask for.  `make_fixture cuda` keeps it, for the scripts
# about cuda (test_compare, test_host_plugin, test_output_details);
# test_releases_build builds every release with it, as users do.
make_fixture() {
	FIX="$TMP/repo"
	mkdir -p "$FIX"
	cp -r "$ROOT/kernels" "$FIX/kernels"
	rm -rf "$FIX/kernels/build"
	if [ "${1:-}" != cuda ]; then
		sed -i 's/^CUDA    ?= auto$/CUDA    ?= 0/' "$FIX/kernels/Makefile"
		grep -q '^CUDA    ?= 0$' "$FIX/kernels/Makefile" || { echo "make_fixture: kernels/Makefile has no 'CUDA    ?= auto' line to turn off" >&2; exit 1; }
	fi
	echo 0.1.0 > "$FIX/kernels/VERSION"
	git -C "$FIX" init -q -b main
	git -C "$FIX" add -A
	git -C "$FIX" commit -qm "kernels 0.1.0"
	export KERNEL_DIR="$FIX/kernels"
	unset KERNEL_REPO
}

# plant_slowdown CASE TIMES: the fixture's working tree gets the scalar loop
# of CASE (KN_RELU, KN_TANH, ...) done TIMES times, a slowdown no noise can
# hide (the caller commits it); plant_relu_slowdown: relu, three times.
plant_slowdown() {
	python3 - "$FIX/kernels/src/scalar.c" "$1" "$2" <<'PY'
import sys
p, case, times = sys.argv[1:4]
s = open(p).read()
head = "\tcase %s:\n\t\tfor (i = 0; i < n; i++)" % case
assert head in s, "fixture: the %s loop moved; update the planted slowdown" % case
s = s.replace(head, "\tcase %s:\n\t\tfor (int rep = 0; rep < %s; rep++)\n\t\tfor (i = 0; i < n; i++)" % (case, times))
open(p, "w").write(s)
PY
}
plant_relu_slowdown() { plant_slowdown KN_RELU 3; }

# refused NAME PATTERN ARGS...: bench-versions ARGS exits 2 within
# $refused_within seconds (default 30), saying PATTERN on stderr; the
# stderr is left in $TMP/err, and shown when PATTERN is not in it.
refused() {
	local name=$1 pattern=$2
	shift 2
	timeout -k 2 "${refused_within:-30}" "$BV" "$@" > /dev/null 2> "$TMP/err"
	local rc=$?
	check "$name: exit 2 (exit $rc)" test $rc -eq 2
	check "$name: says '$pattern'" contains "$TMP/err" "$pattern"
	contains "$TMP/err" "$pattern" || sed 's/^/#   /' "$TMP/err"
}

# interrupted_run OUT ERR UNTIL CMD...: starts CMD in a process group of its
# own (job control, as a terminal starts a job), stdout to OUT and stderr to
# ERR; once `UNTIL ERR PID` returns (a command that waits until it is time
# to interrupt; its status is left in $ready), sends SIGINT to the whole
# group, as Ctrl-C does, and waits for CMD.  Returns CMD's exit status.
interrupted_run() {
	local out=$1 err=$2 until=$3
	shift 3
	set -m
	"$@" > "$out" 2> "$err" &
	local pid=$!
	set +m
	"$until" "$err" "$pid"
	ready=$?
	kill -INT -- -"$pid" 2> /dev/null
	wait "$pid"
}

# suite_merge_helper DIR: DIR/merge, a small program that merges bv-runner
# --describe's per-version descriptions as bench-versions does
# (bv_suite_desc_merge): merge DESCRIBE.json OUT.json LABEL...  Its compiler's
# messages go to DIR/cc.err.
suite_merge_helper() {
	cat > "$1/merge.c" <<'C'
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include "suite_file.h"
int main(int argc, char **argv)
{
	FILE *f = fopen(argv[1], "r");
	static char buf[1 << 20];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	cJSON *d = cJSON_Parse(buf), *into = NULL;
	char err[1024];
	for (int i = 3; i < argc; i++)
		if (bv_suite_desc_merge(&into, argv[3], cJSON_GetObjectItem(cJSON_GetObjectItem(d, "versions"), argv[i]),
					argv[i], err, sizeof(err))) {
			fprintf(stderr, "%s\n", err);
			return 1;
		}
	FILE *o = fopen(argv[2], "w");
	fputs(cJSON_Print(into), o);
	fclose(o);
	return 0;
}
C
	local o="$ROOT/build/harness/common"
	cc -std=c11 -D_GNU_SOURCE -I"$ROOT/harness/common" -I"$ROOT/harness/plugin" -o "$1/merge" "$1/merge.c" "$o/suite_file.o" \
		"$o/ops_file.o" "$o/benches.o" "$o/expr.o" -lcjson -lm \
		2> "$1/cc.err"
}
# suite_file_hash FILE: the FNV-1a digest bv-runner's --suite-hash takes.
suite_file_hash() {
	python3 -c '
import sys
h = 0xcbf29ce484222325
for b in open(sys.argv[1], "rb").read():
    h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
print("%016x" % h)' "$1"
}

finish() { exit $((failures > 0)); }
