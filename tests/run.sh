#!/usr/bin/env bash
# tests/run.sh - runs every test and ends with one summary line,
# "N passed, N failed": cmocka unit tests (counted per test), the kernel
# library's own tests, and the end-to-end scripts (counted per check).
set -u
cd "$(dirname "$0")/.."
passed=0 failed=0 log=$(mktemp)

count_cmocka() { # a cmocka binary's output on stdin
	local p f
	p=$(grep -E '^\[  PASSED  \] [0-9]+ test' "$log" | awk '{s+=$4} END {print s+0}')
	f=$(grep -E '^\[  FAILED  \] [0-9]+ test' "$log" | awk '{s+=$4} END {print s+0}')
	passed=$((passed + p)) failed=$((failed + f))
}

echo "== unit tests"
tests/bin/unit > "$log" 2>&1; rc=$?
cat "$log"
count_cmocka
[ $rc -ne 0 ] && [ "$(grep -c 'FAILED' "$log")" -eq 0 ] && failed=$((failed + 1)) # crashed

echo "== kernels library tests"
kb=$(mktemp -d)
make -s -C kernels test BUILD="$kb" > "$log" 2>&1; rc=$?
cat "$log"
count_cmocka
[ $rc -ne 0 ] && [ "$(grep -c 'FAILED' "$log")" -eq 0 ] && failed=$((failed + 1))
rm -rf "$kb"

for t in tests/e2e/test_*.sh; do
	echo "== $t"
	bash "$t" > "$log" 2>&1; rc=$?
	cat "$log"
	p=$(grep -c '^ok - ' "$log") f=$(grep -c '^not ok - ' "$log")
	passed=$((passed + p)) failed=$((failed + f))
	# a script that died without reporting a failure still fails
	[ $rc -ne 0 ] && [ "$f" -eq 0 ] && failed=$((failed + 1)) && echo "not ok - $t exited $rc"
done
rm -f "$log"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
