#!/usr/bin/env bash
# tests/run.sh - runs every test and ends with one summary line,
# "N passed, N failed, N skipped": cmocka unit tests (counted per test), the
# kernel library's own tests, and the end-to-end scripts (counted per check).
# A skip (cmocka's skip(), lib.sh's `skip`: "ok - NAME # SKIP REASON") is
# counted apart: a check that could not run here has not passed.
# tests/run.sh SCRIPT... runs only those e2e scripts, counted the same way.
#
# By default (make test) it also runs a sanitizer subset: the unit tests and
# the e2e scripts in SAN_SUBSET against the ASan/UBSan build (bin-asan/), and
# each fuzz target briefly over its seed corpus.  BV_VARIANT=asan (make
# test-asan) runs the whole suite against the sanitizer build instead.  A
# sanitizer report anywhere (also in a child process whose exit status a
# check never sees) is a failure: reports go to files, one directory per
# script, and each script is checked for them afterwards.
#
# Lanes: the jobs (each e2e script, each unit binary, the kernels' tests, the
# fuzz pass) run BV_TEST_JOBS at a time (default 2; 1 runs them one after
# the other), longest first.  CI's machine has 2 vCPUs and one script keeps
# about 1.25 of them busy on average (builds, then single-CPU measuring), so
# two lanes take the suite from 33 to about 20 minutes.  Each job's output
# goes to its own file and is printed whole, with its "# NAME: N s" line,
# when the job ends; the counts are summed at the end.  A script whose
# checks cannot share the machine with another test (timings that a second
# lane's load moves past what the check allows) carries the line
#     # run.sh: alone
# and runs before the lanes start, with nothing of this suite beside it.
set -u
cd "$(dirname "$0")/.."
lanes=${BV_TEST_JOBS:-2}
case "$lanes" in '' | *[!0-9]* | 0) echo "tests/run.sh: BV_TEST_JOBS=$lanes: expected a number of lanes, 1 or more" >&2; exit 2 ;; esac
san=$(mktemp -d /tmp/bv-sanitizer-XXXXXX)
work=$(mktemp -d /tmp/bv-run-XXXXXX) # per job: its output, its counts
# one cache of this repository's release builds for the scripts that build
# them all (lib.sh: share_release_builds)
export BV_RELEASE_CACHE=$(mktemp -d /tmp/bv-release-cache-XXXXXX)
trap 'rm -rf "$work" "$san" "$BV_RELEASE_CACHE"' EXIT

# ---- one job: these run in a subshell whose stdout is the job's file ------
passed=0 failed=0 skipped=0 log= jsan=

count_cmocka() { # a cmocka binary's output in $log
	local p f s
	p=$(grep -E '^\[  PASSED  \] [0-9]+ test' "$log" | awk '{s+=$4} END {print s+0}')
	f=$(grep -E '^\[  FAILED  \] [0-9]+ test' "$log" | awk '{s+=$4} END {print s+0}')
	s=$(grep -E '^\[  SKIPPED \] [0-9]+ test' "$log" | awk '{s+=$4} END {print s+0}')
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
}

# sanitize_env DIR: sanitizer settings for the asan build: reports go to
# DIR/<tool>.<pid> (a directory per job, so that two lanes' reports are told
# apart); leaks count (detect_leaks); library-internal reports that are not
# ours are suppressed in tests/sanitizer/*.supp, each with its reason.
sanitize_env() {
	jsan=$1
	mkdir -p "$jsan"
	# handle_*=0: a crash stays a signal.  The runner tells a crashing
	# kernel by its child's signal (test_isolation plants one in an
	# uninstrumented plugin); ASan's handler would turn it into exit 1.  Bad
	# accesses in our code are still caught by the instrumentation itself.
	export ASAN_OPTIONS="log_path=$jsan/asan:detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1:handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:handle_abort=0"
	export UBSAN_OPTIONS="log_path=$jsan/ubsan:print_stacktrace=1:halt_on_error=1"
	export LSAN_OPTIONS="suppressions=$PWD/tests/sanitizer/lsan.supp:print_suppressions=0"
}
# sanitizer_reports NAME [say-ok]: a failure per report file left since the
# last call.
sanitizer_reports() {
	local f any=0
	for f in "$jsan"/*; do
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

run_unit() { # BINARY LABEL [ARG...]
	echo "== $2"
	local start=$SECONDS bin=$1 label=$2
	shift 2
	"$bin" "$@" > "$log" 2>&1; rc=$?
	cat "$log"
	count_cmocka
	echo "# $label: $((SECONDS - start)) s"
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
	bash "$1" > "$log" 2>&1 < /dev/null; rc=$?
	cat "$log"
	count_tap
	# Where CI's 25 minutes go (a comment line: counted as nothing).
	echo "# $2: $((SECONDS - start)) s"
	# a script that died without reporting a failure still fails
	[ $rc -ne 0 ] && [ "$f" -eq 0 ] && failed=$((failed + 1)) && echo "not ok - $1 exited $rc"
}

run_kernels() {
	echo "== kernels library tests"
	local start=$SECONDS kb
	kb=$(mktemp -d)
	make -s -C kernels test BUILD="$kb" > "$log" 2>&1; rc=$?
	cat "$log"
	count_cmocka
	[ $rc -ne 0 ] && [ "$(grep -c 'FAILED' "$log")" -eq 0 ] && failed=$((failed + 1))
	rm -rf "$kb"
	echo "# kernels library tests: $((SECONDS - start)) s"
}

run_fuzz() {
	echo "== fuzz targets, briefly over their corpora"
	local start=$SECONDS
	tests/fuzz/run.sh brief > "$log" 2>&1 < /dev/null
	rc=$?
	cat "$log"
	echo "# fuzz targets: $((SECONDS - start)) s"
	count_tap
	[ $rc -ne 0 ] && [ "$f" -eq 0 ] && failed=$((failed + 1)) && echo "not ok - tests/fuzz/run.sh exited $rc"
}

# run_job ID KIND VARIANT ARG...: one line of a job list; writes its counts
# to $work/ID.counts last, so a job that left none did not finish.
run_job() {
	local id=$1 kind=$2 variant=$3 tag= t
	shift 3
	log=$work/$id.log
	if [ "$variant" = asan ]; then
		export BV_BIN_DIR=bin-asan
		sanitize_env "$san/$id"
		tag=" (ASan/UBSan)"
	fi
	case "$kind" in
	unit)
		# The ASan/UBSan build runs the groups and their tests in the
		# other order (unit --reverse): no test may lean on another's
		# having run first, and a make test shows both orders at no cost.
		if [ -n "$tag" ] && [ "${BV_VARIANT:-}" != asan ]; then
			run_unit "$1" "unit tests$tag, reversed" --reverse
		else
			run_unit "$1" "unit tests$tag"
		fi
		[ -n "$tag" ] && sanitizer_reports "unit tests$tag" say-ok ;;
	kernels)
		run_kernels
		[ -n "$tag" ] && sanitizer_reports "kernels library tests$tag" ;;
	fuzz) run_fuzz ;;
	e2e) # one script, or a chain of scripts that must not overlap
		for t in "$@"; do
			run_e2e "$t" "$t$tag"
			[ -n "$tag" ] && sanitizer_reports "$t$tag" say-ok
		done ;;
	esac
	rm -f "$log"
	echo "$passed $failed $skipped" > "$work/$id.counts"
}

# ---- the job lists and the lanes ------------------------------------------
# Seconds each job took on CI's machine, alone (tests/run.sh's "# NAME: N s"
# lines): the lanes take the longest first, so that no long job starts last.
# A job not listed counts 20 s; the figures only order the jobs.
declare -A secs=(
	[test_docs_examples]=266 [test_cache]=105 [test_cache_damage]=110 [test_faults]=100 [test_bisect]=77 [test_compat_rules]=64
	[test_report]=46 [test_share]=46 [test_releases]=43 [test_slurm]=39 [test_compare]=38
	[test_output_details]=37 [test_shards]=37 [test_gpu_check]=90 [test_explain]=76 [test_count_faults]=55 [test_build_procs]=20 [test_history_agree]=20 [test_inputs]=30
	[test_suite_project]=10 [test_server]=20 [test_recipes]=25 [test_table_width]=19 [test_suites]=55 [test_suite_history]=25 [test_suite_vs]=10 [test_suite_library]=15 [test_catalog]=70 [test_layout]=55
	[kernels]=30 [fuzz]=49 [unit]=3 [test_suite_runner]=8 [test_suite_api]=25 [test_quick_long_cells]=60 [test_pages]=5
	[test_publish]=100 [test_publish_hostile]=5
	[asan:test_faults]=122 [asan:test_hostile]=51 [asan:test_report]=51 [asan:test_share]=47
	[asan:test_compare]=45 [asan:test_export]=30 [asan:test_errors]=24 [asan:unit]=8 [asan:test_publish_hostile]=13
)
# Chains: scripts that run one after the other in one job.  The docs
# examples' `compat --build` and test_releases_build build the same
# releases into one cache (lib.sh: share_release_builds): side by side, each
# would build all of them.
declare -A chain_after=([test_releases_build]=test_docs_examples)

jobs_alone=() jobs_lanes=()
# add_job KIND VARIANT ARG...: to the alone list when a script says so.
add_job() {
	local kind=$1 variant=$2 key name est=0 a t
	shift 2
	for t in "${@:-$kind}"; do
		name=$(basename "$t" .sh)
		[ "$kind" = e2e ] || name=$kind
		key=$name
		[ "$variant" = asan ] && key=asan:$name
		est=$((est + ${secs[$key]:-20}))
	done
	a=0
	if [ "$kind" = e2e ]; then
		for t in "$@"; do grep -q '^# run.sh: alone$' "$t" 2> /dev/null && a=1; done
	fi
	if [ $a -eq 1 ]; then
		jobs_alone+=("$est $kind $variant $*")
	else
		jobs_lanes+=("$est $kind $variant $*")
	fi
}
# add_scripts VARIANT SCRIPT...: each script a job, chained ones together.
add_scripts() {
	local variant=$1 t n c first chained
	shift
	declare -A given=()
	for t in "$@"; do given[$(basename "$t" .sh)]=$t; done
	for t in "$@"; do
		n=$(basename "$t" .sh)
		first=${chain_after[$n]:-}
		[ -n "$first" ] && [ -n "${given[$first]:-}" ] && continue # runs after $first
		chained=$t
		for c in "${!chain_after[@]}"; do
			[ "${chain_after[$c]}" = "$n" ] && [ -n "${given[$c]:-}" ] && chained="$chained ${given[$c]}"
		done
		add_job e2e "$variant" $chained
	done
}

# run_lanes N NAME JOB...: the jobs, N at a time, longest first.
run_lanes() {
	local n=$1 list=$work/$2 i
	shift 2
	[ $# -gt 0 ] || return 0
	printf '%s\n' "$@" | sort -s -k1,1nr > "$list"
	echo 0 > "$list.next"
	for ((i = 0; i < n; i++)); do lane "$list" & done
	wait
}
lane() { # LIST: takes the next job until none is left
	local list=$1 k line id
	while :; do
		{
			flock 9
			k=$(< "$list.next")
			echo $((k + 1)) > "$list.next"
		} 9>> "$list.lock"
		line=$(sed -n "$((k + 1))p" "$list")
		[ -n "$line" ] || return 0
		id=$(basename "$list").$k
		# shellcheck disable=SC2086
		(run_job "$id" ${line#* }) > "$work/$id.out" 2>&1
		# whole, never interleaved with another lane's
		flock "$work/print.lock" cat "$work/$id.out"
		rm -f "$work/$id.out"
	done
}

if [ "${BV_VARIANT:-}" = asan ]; then
	variant=asan unit=tests/bin-asan/unit
else
	variant=plain unit=tests/bin/unit
fi

if [ $# -gt 0 ]; then
	# tests/run.sh SCRIPT...: only those e2e scripts, counted the same way.
	add_scripts "$variant" "$@"
else
	add_job unit "$variant" "$unit"
	add_job kernels "$variant"
	add_scripts "$variant" tests/e2e/test_*.sh
	# The default run's sanitizer subset: where hostile input meets the
	# parsers and the archive path (test_hostile unpacks its tarballs
	# through file://), and the paths with the most memory handling of their
	# own: faults (signals, resume; its LSan finding is why it is here),
	# report, share, compare, the exporters, and publish (uploads from
	# anyone with a token).  The rest (bisect, releases,
	# isolation, cache, builds of every release) runs under the sanitizers
	# in make test-asan (docs/reliability.md).
	SAN_SUBSET="tests/e2e/test_hostile.sh tests/e2e/test_errors.sh tests/e2e/test_faults.sh tests/e2e/test_report.sh
		tests/e2e/test_share.sh tests/e2e/test_compare.sh tests/e2e/test_export.sh tests/e2e/test_suite_library.sh
		tests/e2e/test_publish_hostile.sh"
	if [ "$variant" = plain ]; then
		if [ -x bin-asan/bench-versions ] && [ -x tests/bin-asan/unit ]; then
			add_job unit asan tests/bin-asan/unit
			for t in $SAN_SUBSET; do
				[ -e "$t" ] && add_job e2e asan "$t"
			done
		else
			echo "not ok - the ASan/UBSan build is missing (make test builds it: make VARIANT=asan all unit)"
			missing_asan=1
		fi
		add_job fuzz plain
	fi
fi

start=$SECONDS
run_lanes 1 alone "${jobs_alone[@]}"
run_lanes "$lanes" lanes "${jobs_lanes[@]}"
[ $# -gt 0 ] || echo "# all jobs, $lanes lane(s) (${#jobs_alone[@]} alone first): $((SECONDS - start)) s"

passed=0 failed=0 skipped=0
for list in alone lanes; do
	[ -e "$work/$list" ] || continue
	n=$(wc -l < "$work/$list")
	for ((k = 0; k < n; k++)); do
		if [ -e "$work/$list.$k.counts" ]; then
			read -r p f s < "$work/$list.$k.counts"
			passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
		else
			echo "not ok - job '$(sed -n "$((k + 1))p" "$work/$list" | cut -d' ' -f2-)' did not finish"
			failed=$((failed + 1))
		fi
	done
done
failed=$((failed + ${missing_asan:-0}))
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
