#!/usr/bin/env bash
# tests/fuzz/run.sh - runs the libFuzzer targets built in tests/bin-fuzz/.
#
#   tests/fuzz/run.sh SECONDS [TARGET...]   each target for SECONDS (make fuzz)
#   tests/fuzz/run.sh brief [TARGET...]     each target over its seed corpus
#                                           and then 3 s more (make test)
#
# The checked-in seeds (tests/fuzz/corpus/<name>/, findings included) are
# only read; what a run discovers goes to build-fuzz/corpus/<name>/ and is
# reused by the next long run.  A crash, leak, sanitizer report or broken
# invariant is saved as tests/fuzz/findings/<name>-crash-<sha1> and printed
# as "not ok".  One line per target: "ok - fuzz_<name>: N runs in S s ...".
set -u
cd "$(dirname "$0")/../.."
mode=${1:-brief}
shift || true
case "$mode" in
brief) seconds=3 ;;
*[!0-9]* | "") echo "usage: tests/fuzz/run.sh SECONDS|brief [TARGET...]" >&2; exit 2 ;;
*) seconds=$mode ;;
esac
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
	for f in tests/fuzz/fuzz_*.c; do
		n=$(basename "$f" .c)
		targets+=("${n#fuzz_}")
	done
fi
mkdir -p tests/fuzz/findings
# Absolute: fuzz_archive changes directory.
findings=$PWD/tests/fuzz/findings
# Leaks inside linked libraries (each with its reason) are not findings.
export LSAN_OPTIONS="suppressions=$PWD/tests/sanitizer/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
status=0
for t in "${targets[@]}"; do
	bin=tests/bin-fuzz/fuzz_$t
	seeds=tests/fuzz/corpus/$t
	if [ ! -x "$bin" ]; then
		echo "not ok - fuzz_$t: $bin is not built (make fuzz-build; needs clang)"
		status=1
		continue
	fi
	if [ "$mode" = brief ]; then
		work=$(mktemp -d /tmp/bv-fuzz-corpus-XXXXXX)
	else
		work=build-fuzz/corpus/$t
		mkdir -p "$work"
	fi
	dict=tests/fuzz/dict/$t.dict
	[ -e "$dict" ] && dict=(-dict="$dict") || dict=()
	# Inputs up to 64 KiB: tarballs and logs need room; the rest stay small.
	# the target's scratch directories (fuzz.h: fuzz_tmpdir), removed after
	BV_FUZZ_TMP=$(mktemp -d /tmp/bv-fuzz-tmp-XXXXXX)
	export BV_FUZZ_TMP
	"$bin" -max_total_time="$seconds" -max_len=65536 -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 "${dict[@]}" \
		-artifact_prefix="$findings/$t-" "$work" "$seeds" > "$out" 2>&1
	rc=$?
	[ "$mode" = brief ] && rm -rf "$work"
	rm -rf "$BV_FUZZ_TMP"
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out" | tail -1)
	cov=$(grep -oE 'cov: [0-9]+' "$out" | tail -1 | cut -d' ' -f2)
	corpus=$(grep -oE 'corp: [0-9]+' "$out" | tail -1 | cut -d' ' -f2)
	took=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$out" | tail -1)
	if [ $rc -eq 0 ] && [ -n "$runs" ]; then
		echo "ok - fuzz_$t: ${runs} runs in ${took:-$seconds} s, coverage ${cov:-?} edges, corpus ${corpus:-?}, no findings"
	else
		status=1
		echo "not ok - fuzz_$t: exited $rc; finding(s): $(grep -oE "$findings/$t-[a-z-]+-[0-9a-f]+" "$out" | sort -u | tr '\n' ' ')"
		grep -E 'ERROR|runtime error|invariant|SUMMARY|^    #[0-9]+ ' "$out" | head -40 | sed 's/^/#   /'
	fi
done
exit $status
