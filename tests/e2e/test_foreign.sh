#!/usr/bin/env bash
# End to end, issue 18's acceptance: a C library bench-versions did not grow
# up with, laid out as such a project is (the library at the repository's
# root, a CMake build, release tags `release-1.2` and `2.0`, no VERSION file,
# no kernels.h, its own function names), compared through what
# docs/adapters.md walks a new user through: a project file, a compat rule
# with a build recipe and an adapter.  No wrapper repository, no patch
# creating files.  2.0 plants a 3x slowdown in fm_tanh_array.
source "$(dirname "$0")/lib.sh"
command -v cmake > /dev/null || { echo "not ok - cmake is missing (scripts/deps.sh test installs it)"; exit 1; }

LIB="$TMP/fastmath"
mkdir -p "$LIB/include" "$LIB/src"
cat > "$LIB/CMakeLists.txt" <<'E'
cmake_minimum_required(VERSION 3.13)
project(fastmath VERSION 1.2 LANGUAGES C)
add_library(fastmath STATIC src/fm_exp.c src/fm_tanh.c)
target_include_directories(fastmath PUBLIC include)
E
cat > "$LIB/include/fastmath.h" <<'E'
#include <stddef.h>
void fm_exp_array(const float *x, float *y, size_t n);
void fm_tanh_array(const float *x, float *y, size_t n);
E
cat > "$LIB/src/fm_exp.c" <<'E'
#include <math.h>
#include "fastmath.h"
void fm_exp_array(const float *x, float *y, size_t n)
{
	for (size_t i = 0; i < n; i++)
		y[i] = expf(x[i]);
}
E
cat > "$LIB/src/fm_tanh.c" <<'E'
#include <math.h>
#include "fastmath.h"
void fm_tanh_array(const float *x, float *y, size_t n)
{
	for (size_t i = 0; i < n; i++)
		y[i] = tanhf(x[i]);
}
E
git -C "$LIB" init -q -b main
git -C "$LIB" add -A
git -C "$LIB" commit -qm "fastmath 1.2"
git -C "$LIB" tag release-1.2
# 2.0: tanh does its loop three times; exp is untouched.
cat > "$LIB/src/fm_tanh.c" <<'E'
#include <math.h>
#include "fastmath.h"
void fm_tanh_array(const float *x, float *y, size_t n)
{
	volatile float sink = 0;
	for (int rep = 0; rep < 3; rep++)
		for (size_t i = 0; i < n; i++)
			sink = y[i] = tanhf(x[i]);
	(void)sink;
}
E
sed -i 's/VERSION 1.2/VERSION 2.0/' "$LIB/CMakeLists.txt"
git -C "$LIB" commit -qam "fastmath 2.0"
git -C "$LIB" tag 2.0

# What the user adds, as docs/adapters.md says: the project file at the
# root, the compat rule, its recipe's helper and the adapter under bench/.
mkdir -p "$LIB/bench/adapter"
cat > "$LIB/bench-versions.json" <<'E'
{
  "schema_version": 1,
  "name": "fastmath",
  "dir": ".",
  "version": { "file": "CMakeLists.txt", "regex": "project\\(fastmath VERSION ([0-9]+\\.[0-9]+(\\.[0-9]+)?)" },
  "releases": "^(release-)?([0-9]+\\.[0-9]+(\\.[0-9]+)?)$",
  "compat": "bench/compat.json"
}
E
cat > "$LIB/bench/compat.json" <<'E'
{
  "schema_version": 1,
  "rules": [
    {
      "id": "fastmath",
      "versions": "*",
      "build": ["sh", "{compat}/build.sh", "{src}", "{build}"],
      "adapter": "adapter",
      "note": "fastmath's own CMake build; the adapter maps kn_unary_ex's exp and tanh to it"
    }
  ]
}
E
cat > "$LIB/bench/build.sh" <<'E'
#!/bin/sh
# build.sh SRC BUILD: fastmath's CMake build, position-independent (the
# archive goes into a shared plugin), its archive left in BUILD.
set -e
cmake -S "$1" -B "$2/cmake" -DCMAKE_BUILD_TYPE=Release -DCMAKE_POSITION_INDEPENDENT_CODE=ON > /dev/null
cmake --build "$2/cmake" > /dev/null
cp "$2/cmake/libfastmath.a" "$2/"
E
cat > "$LIB/bench/adapter/adapter.c" <<'E'
/* The kernels API over fastmath: the scalar backend, exp and tanh. */
#include "kernels.h"
#include "fastmath.h"

kn_status kn_backend_probe(kn_backend b)
{
	return b == KN_BACKEND_SCALAR ? KN_OK : KN_EUNSUPPORTED;
}

kn_status kn_unary_ex(kn_backend b, kn_unary_op op, const float *x, float *y, size_t n,
		      const kn_unary_params *params)
{
	(void)params;
	if (b != KN_BACKEND_SCALAR)
		return KN_EUNSUPPORTED;
	switch (op) {
	case KN_EXP: fm_exp_array(x, y, n); return KN_OK;
	case KN_TANH: fm_tanh_array(x, y, n); return KN_OK;
	default: return KN_EUNSUPPORTED;
	}
}
E
git -C "$LIB" add -A
git -C "$LIB" commit -qm "bench-versions: project file, compat rule, adapter"
check "the library has no VERSION file and no kernels.h" \
	bash -c "! git -C '$LIB' ls-files | grep -qE '(^|/)(VERSION|kernels\.h)$'"

cd "$LIB"
unset KERNEL_DIR KERNEL_REPO BENCH_VERSIONS_COMPAT BENCH_VERSIONS_PROJECT
"$BV" list versions > "$TMP/list" 2>&1
check "list versions: 1.2.0 from tag release-1.2" contains "$TMP/list" "^1\.2\.0\s+\(release: tag release-1\.2, commit [0-9a-f]{12}\)"
check "list versions: 2.0.0 from tag 2.0" contains "$TMP/list" "^2\.0\.0\s+\(release: tag 2\.0, commit [0-9a-f]{12}\)"
grep -q "tag release-1.2" "$TMP/list" || sed 's/^/#   /' "$TMP/list"

args=(--benches unary --ops exp,tanh,abs --backends scalar,simd --sizes 64K --quick --results "$TMP/results")
timeout 240 "$BV" 1.2 2.0 local "${args[@]}" > "$TMP/out" 2> "$TMP/err"
rc=$?
check "1.2 2.0 local: exit 0 (exit $rc)" test $rc -eq 0
[ $rc -eq 0 ] || sed 's/^/#   /' "$TMP/err" | tail -30
check "1.2 is the release tag release-1.2, version 1.2.0" contains "$TMP/err" "^resolve: 1\.2 +-> commit [0-9a-f]{12}, fastmath 1\.2\.0 .*release-1\.2"
check "2.0 is the release tag 2.0" contains "$TMP/err" "^resolve: 2\.0 +-> commit [0-9a-f]{12}, fastmath 2\.0\.0 .*tag 2\.0"
check "local is the working tree at the root, its version from CMakeLists.txt" contains "$TMP/err" "^resolve: local +-> tree [0-9a-f]{12}, fastmath 2\.0\.0 \[working tree"
check "every version built through the project's rule" test "$(grep -cE 'build: .*built' "$TMP/err")" -eq 3
check "the planted 3x tanh slowdown is slower on 2.0 and local" \
	contains "$TMP/out" "^unary +tanh +scalar +64K +[0-9.]+ (us|ms) +[0-9.]+ (us|ms) +(2|3)\.[0-9]{3} \[[0-9.]+, [0-9.]+\] slower +[0-9.]+ (us|ms) +(2|3)\.[0-9]{3} \[[0-9.]+, [0-9.]+\] slower"
check "unchanged exp is same on 2.0 and local" \
	contains "$TMP/out" "^unary +exp +scalar +64K +[0-9.]+ us +[0-9.]+ us +[01]\.[0-9]{3} \[[0-9.]+, [0-9.]+\] same +[0-9.]+ us +[01]\.[0-9]{3} \[[0-9.]+, [0-9.]+\] same"
check "abs and the simd backend, which the adapter leaves out, are n/a" \
	contains "$TMP/out" "not run: .* on every version: n/a"
grep -qE "^unary +exp .* same .* same" "$TMP/out" && grep -qE "^unary +tanh .* slower .* slower" "$TMP/out" ||
	sed 's/^/#   /' "$TMP/out"
check "nothing else is called: 2 changes" contains "$TMP/out" "^verdicts: .* 2 changes called"
finish
