#!/usr/bin/env bash
# End to end: small things a newcomer meets in the output and the docs
# (issue 15): the docs stand alone, the cache says what its entries are,
# a machine without a GPU is not told to upgrade its driver.
source "$(dirname "$0")/lib.sh"
make_fixture
export BENCH_VERSIONS_CACHE="$TMP/cache"

# The docs are read on a fresh clone, where nothing outside the repository
# exists: no citation of a path above it (`../shared/...`).
check "README and docs cite no file outside the repository" \
	bash -c "! grep -rnE '\.\./shared/|\(\.\./\.\./' '$ROOT/README.md' '$ROOT/docs'"

# One small run builds 0.1.0 into an empty cache; its cuda cell is skipped
# here unless the machine has a GPU.
"$BV" 0.1.0 --quick --ops abs --backends scalar,cuda --sizes 1K --results "$TMP/r" > "$TMP/out" 2> "$TMP/err"
check "a small run exits 0" test $? -eq 0

"$BV" cache show > "$TMP/show" 2>&1
check "cache show: a build says its version and the name it was built as" \
	contains "$TMP/show" '^builds +[0-9a-f]{40} +[0-9.]+[KMB] +.* ago +kernels 0\.1\.0, built as 0\.1\.0$'
check "cache show: a build's log says the same" \
	contains "$TMP/show" '^builds +[0-9a-f]{40}\.log +[0-9.]+[KMB] +.* ago +kernels 0\.1\.0, built as 0\.1\.0$'
check "cache show: a source tree says its version" \
	contains "$TMP/show" '^src +[0-9a-f]{40} +[0-9.]+[KMB] +.* ago +kernels 0\.1\.0$'
check "cache show: the calibration has no version column" contains "$TMP/show" '^machine +[^ ]+ +[0-9.]+[KMB] +[0-9]+ ?[a-z]+ ago$'
# A build from before the version file: said unknown, not guessed.
rm "$TMP"/cache/builds/*/version.json
"$BV" cache show > "$TMP/show2" 2>&1
check "cache show: a build without its version file says unknown" \
	contains "$TMP/show2" '^builds +[0-9a-f]{40} +[0-9.]+[KMB] +.* ago +unknown$'

if [ -e /dev/nvidia0 ]; then
	skip "cuda on a machine without a GPU says so" "this machine has a GPU"
elif grep -q 'nvcc was not found' "$TMP/out"; then
	skip "cuda on a machine without a GPU says so" "no nvcc: the cuda backend was not built"
else
	check "cuda on a machine without a GPU says so, not 'driver version is insufficient'" \
		contains "$TMP/out" '^not run: 1 cuda cell on every version: skipped: cuda: no CUDA device \(no GPU on this machine\)$'
fi

finish
