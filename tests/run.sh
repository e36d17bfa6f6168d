#!/usr/bin/env bash
# tests/run.sh - runs every test and ends with one summary line,
# "N passed, N failed, N skipped": cmocka unit tests (counted per test), the
# kernel library's own tests, and the end-to-end scripts (counted per check).
# A skip (cmocka's skip(), lib.sh's `skip`: "ok - NAME # SKIP REASON") is
# counted apart: a check that could not run here has not passed.
# tests/run.sh SCRIPT... runs only those e2e scripts, counted the same way.
#
# By default (make test) it then runs a sanitizer subset: the unit tests and
# the e2e scripts in SAN_SUBSET against the ASan/UBSan build (bin-asan/), and
# each fuzz target briefly over its seed corpus.  BV_VARIANT=asan (make
# test-asan) runs the whole suite against the sanitizer build instead.  A
# sanitizer report anywhere (also in a child process whose exit status a
# check never sees) is a failure: reports go to files, and each script is
# checked for them afterwards.
set -u
cd "$(dirname "$0")/.."
passed=0 failed=0 skipped=0 log=$(mktemp)
san=$(mktemp -d /tmp/bv-sanitizer-XXXXXX)
# one cache of this repository's release builds for the scripts that build
# them all (lib.sh: share_release_builds)
export BV_RELEASE_CACHE=$(mktemp -d /tmp/bv-release-cache-XXXXXX)
trap 'rm -rf "$log" "$san" "$BV_RELEASE_CACHE"' EXIT

count_cmocka() { # a cmocka binary's output on stdin
	local p f s
	p=$(grep -E '^\[  PASSED  \] [0-9]+ test' "$log" | awk '{s+=$4} END {print s+0}')
	f=$(grep -E '^\[  FAILED  \] [0-9]+ test' "$log" | awk '{s+=$4} END {print s+0}')
	s=$(grep -E '^\[  SKIPPED \] [0-9]+ test' "$log" | awk '{s+=$4} END {print s+0}')
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
}

# Sanitizer settings for the asan build: reports go to $san/<tool>.<pid>;
# leaks count (detect_leaks); library-internal reports that are not ours are
# suppressed in tests/sanitizer/*.supp, each with its reason.
sanitize_env() {
	# handle_*=0: a crash stays a signal.  The runner tells a crashing
	# kernel by its child's signal (test_isolation plants one in an
	# uninstrumented plugin); ASan's handler would turn it into exit 1.  Bad
	# accesses in our code are still caught by the instrumentation itself.
	export ASAN_OPTIONS="log_path=$san/asan:detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1:handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:handle_abort=0"
	export UBSAN_OPTIONS="log_path=$san/ubsan:print_stacktrace=1:halt_on_error=1"
	export LSAN_OPTIONS="suppressions=$PWD/tests/sanitizer/lsan.supp:print_suppressions=0"
}
# sanitizer_reports NAME: a failure per report file left since the last call.
sanitizer_reports() {
	local f any=0
	for f in "$san"/*; do
		[ -e "$f" ] || continue
		any=1
		echo "not ok - $1: sanitizer report $(basename "$f"):"
		sed 's/^/#   /' "$f" | head -60
		rm -f "$f"
		failed=$((failed + 1))
	done
	[ $any -eq 0 ] && [ -n "${2:-}" ] && echo "ok - $1: no sanitizer reports" && passed=$((passed + 1))
	return 0
}

run_unit() { # BINARY LABEL
	echo "== $2"
	local start=$SECONDS
	"$1" > "$log" 2>&1; rc=$?
	cat "$log"
	count_cmocka
	echo "# $2: $((SECONDS - start)) s"
	[ $rc -ne 0 ] && [ "$(grep -c 'FAILED' "$log")" -eq 0 ] && failed=$((failed + 1)) # crashed
}

# count_tap: the "ok - " / "not ok - " lines of $log; "ok - NAME # SKIP
# REASON" is a skip, not a pass.
count_tap() {
	local s
	s=$(grep -cE '^ok - .* # SKIP( |$)' "$log")
	p=$(($(grep -c '^ok - ' "$log") - s)) f=$(grep -c '^not ok - ' "$log")
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
}

run_e2e() { # SCRIPT LABEL
	echo "== $2"
	local start=$SECONDS
	bash "$1" > "$log" 2>&1; rc=$?
	cat "$log"
	count_tap
	# Where CI's 25 minutes go (a comment line: counted as nothing).
	echo "# $2: $((SECONDS - start)) s"
	# a script that died without reporting a failure still fails
	[ $rc -ne 0 ] && [ "$f" -eq 0 ] && failed=$((failed + 1)) && echo "not ok - $1 exited $rc"
}

if [ "${BV_VARIANT:-}" = asan ]; then
	export BV_BIN_DIR=bin-asan
	sanitize_env
	unit=tests/bin-asan/unit
	tag=" (ASan/UBSan)"
else
	unit=tests/bin/unit
	tag=
fi

# tests/run.sh SCRIPT...: only those e2e scripts, counted the same way.
if [ $# -gt 0 ]; then
	for t in "$@"; do
		run_e2e "$t" "$t$tag"
		[ -n "$tag" ] && sanitizer_reports "$t$tag" say-ok
	done
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ]
	exit
fi

run_unit "$unit" "unit tests$tag"
[ -n "$tag" ] && sanitizer_reports "unit tests$tag" say-ok

echo "== kernels library tests"
start=$SECONDS
kb=$(mktemp -d)
make -s -C kernels test BUILD="$kb" > "$log" 2>&1; rc=$?
cat "$log"
count_cmocka
[ $rc -ne 0 ] && [ "$(grep -c 'FAILED' "$log")" -eq 0 ] && failed=$((failed + 1))
rm -rf "$kb"
echo "# kernels library tests: $((SECONDS - start)) s"

for t in tests/e2e/test_*.sh; do
	run_e2e "$t" "$t$tag"
	[ -n "$tag" ] && sanitizer_reports "$t$tag" say-ok
done

# The default run's sanitizer subset: where hostile input meets the parsers
# and the archive path (test_hostile unpacks its tarballs through file://),
# and the paths with the most memory handling of their own: faults (signals,
# resume; its LSan finding is why it is here), report, share, compare and the
# exporters.  The rest (bisect, releases, isolation, cache, builds of every
# release) runs under the sanitizers in make test-asan (docs/reliability.md).
SAN_SUBSET="tests/e2e/test_hostile.sh tests/e2e/test_errors.sh tests/e2e/test_faults.sh tests/e2e/test_report.sh
	tests/e2e/test_share.sh tests/e2e/test_compare.sh tests/e2e/test_export.sh"
if [ -z "${BV_VARIANT:-}" ]; then
	if [ -x bin-asan/bench-versions ] && [ -x tests/bin-asan/unit ]; then
		(
			export BV_BIN_DIR=bin-asan
			sanitize_env
			run_unit tests/bin-asan/unit "unit tests (ASan/UBSan)"
			sanitizer_reports "unit tests (ASan/UBSan)" say-ok
			for t in $SAN_SUBSET; do
				[ -e "$t" ] || continue
				run_e2e "$t" "$t (ASan/UBSan)"
				sanitizer_reports "$t (ASan/UBSan)" say-ok
			done
			echo "$passed $failed $skipped" > "$log.counts"
		)
		read -r passed failed skipped < "$log.counts"
		rm -f "$log.counts"
	else
		echo "not ok - the ASan/UBSan build is missing (make test builds it: make VARIANT=asan all unit)"
		failed=$((failed + 1))
	fi
	echo "== fuzz targets, briefly over their corpora"
	start=$SECONDS
	tests/fuzz/run.sh brief > "$log" 2>&1
	rc=$?
	cat "$log"
	echo "# fuzz targets: $((SECONDS - start)) s"
	count_tap
	[ $rc -ne 0 ] && [ "$f" -eq 0 ] && failed=$((failed + 1)) && echo "not ok - tests/fuzz/run.sh exited $rc"
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
