#!/usr/bin/env bash
# End to end: a C library bench-versions did not grow
# up with, laid out as such a project is (the library at the repository's
# root, a CMake build, release tags `release-1.2` and `2.0`, no VERSION file,
# no kernels.h, its own function names), compared through what
# docs/adapters.md walks a user moving from an adapter through: a project
# file naming a suite, and a compat rule with a build recipe (no adapter:
# retired).  No wrapper repository, no patch creating files.  2.0 plants a
# 3x slowdown in fm_tanh_array.
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
# 2.0: tanh does its loop three times; exp is untouched; fm_sin_array is new.
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
cat > "$LIB/src/fm_sin.c" <<'E'
#include <math.h>
#include "fastmath.h"
void fm_sin_array(const float *x, float *y, size_t n)
{
	for (size_t i = 0; i < n; i++)
		y[i] = sinf(x[i]);
}
E
echo "void fm_sin_array(const float *x, float *y, size_t n);" >> "$LIB/include/fastmath.h"
sed -i -e 's/VERSION 1.2/VERSION 2.0/' -e 's|src/fm_tanh.c)|src/fm_tanh.c src/fm_sin.c)|' "$LIB/CMakeLists.txt"
git -C "$LIB" add -A
git -C "$LIB" commit -qam "fastmath 2.0"
git -C "$LIB" tag 2.0

# What the user adds: the four files of docs/adapters.md's walk-through,
# taken from the page as written there (its ```LANG file=PATH blocks).
check "docs/adapters.md's walk-through gives the four files" python3 - "$ROOT/docs/adapters.md" "$LIB" <<'PY'
import os, re, sys
text, lib = open(sys.argv[1]).read(), sys.argv[2]
blocks = re.findall(r"^```\w+ file=(\S+)\n(.*?)^```$", text, re.S | re.M)
for path, body in blocks:
    os.makedirs(os.path.dirname(os.path.join(lib, path)) or lib, exist_ok=True)
    open(os.path.join(lib, path), "w").write(body)
names = sorted(p for p, _ in blocks)
sys.exit(names != ["bench-versions.json", "bench/build.sh", "bench/compat.json", "bench/suite/fastmath.c"])
PY
git -C "$LIB" add -A
git -C "$LIB" commit -qm "bench-versions: project file, compat rule, suite"
check "the library has no VERSION file and no kernels.h" \
	bash -c "! git -C '$LIB' ls-files | grep -qE '(^|/)(VERSION|kernels\.h)$'"

cd "$LIB"
unset KERNEL_DIR KERNEL_REPO BENCH_VERSIONS_COMPAT BENCH_VERSIONS_PROJECT
"$BV" list versions > "$TMP/list" 2>&1
check "list versions: 1.2.0 from tag release-1.2" contains "$TMP/list" "^1\.2\.0\s+\(release: tag release-1\.2, commit [0-9a-f]{12}\)"
check "list versions: 2.0.0 from tag 2.0" contains "$TMP/list" "^2\.0\.0\s+\(release: tag 2\.0, commit [0-9a-f]{12}\)"
grep -q "tag release-1.2" "$TMP/list" || sed 's/^/#   /' "$TMP/list"

# The walk-through's own command, as the page writes it (with --quick and a
# results directory of the test's).
example=$(grep -m1 -x 'bench-versions 1\.2 2\.0 local.*' "$ROOT/docs/adapters.md")
check "docs/adapters.md shows the comparison" test -n "$example"
read -r -a args <<< "${example#bench-versions }"
timeout 240 "$BV" "${args[@]}" --quick --wide --results "$TMP/results" > "$TMP/out" 2> "$TMP/err"
rc=$?
check "1.2 2.0 local: exit 0 (exit $rc)" test $rc -eq 0
[ $rc -eq 0 ] || sed 's/^/#   /' "$TMP/err" | tail -30
check "1.2 is the release tag release-1.2, version 1.2.0" contains "$TMP/err" "^resolve: 1\.2 +-> commit [0-9a-f]{12}, fastmath 1\.2\.0 .*release-1\.2"
check "2.0 is the release tag 2.0" contains "$TMP/err" "^resolve: 2\.0 +-> commit [0-9a-f]{12}, fastmath 2\.0\.0 .*tag 2\.0"
check "local is the working tree at the root, its version from CMakeLists.txt" contains "$TMP/err" "^resolve: local +-> tree [0-9a-f]{12}, fastmath 2\.0\.0 \[working tree"
check "every version built through the project's rule" test "$(grep -cE 'build: .*built' "$TMP/err")" -eq 3
check "the planted 3x tanh slowdown is slower on 2.0 and local" \
	contains "$TMP/out" "^fastmath +tanh +default +64K +[0-9.]+ (us|ms) +[0-9.]+ (us|ms) +(2|3)\.[0-9]{3} \[[0-9.]+, [0-9.]+\] slower(;[^;]*)? +[0-9.]+ (us|ms) +(2|3)\.[0-9]{3} \[[0-9.]+, [0-9.]+\] slower"
# why (counts.c): the library's own function named, across its releases
# (not with a sanitizer build: its runner cannot run under Valgrind)
[ "${BV_BIN_DIR:-bin}" = bin ] || skip "the counts name the foreign library's function" "$BV_BIN_DIR: no counts"
[ "${BV_BIN_DIR:-bin}" = bin ] && check "the counts name the foreign library's function that does 3x the work" \
	contains "$TMP/out" "^fastmath +tanh .* slower; instr \+20[0-9]\.[0-9] % \(expm1f \+200\.0 %\) .* slower; instr \+20[0-9]\.[0-9] % \(expm1f \+200\.0 %\)"
# An A/A cell: any answer that is not a call (same, noisy, inconclusive,
# unstable: a loaded machine can leave it undecided) and never slower or
# faster, on both columns.
check "unchanged exp is called neither slower nor faster on 2.0 and local" \
	bash -c "grep -qE '^fastmath +exp +default +64K +[0-9.]+ us +[0-9.]+ us +[01]\.[0-9]{3} \[[0-9.]+, [0-9.]+\] (same|inconclusive|unstable)[^ ]* .* [01]\.[0-9]{3} \[[0-9.]+, [0-9.]+\] (same|inconclusive|unstable)' '$TMP/out' && ! grep -E '^fastmath +exp ' '$TMP/out' | grep -qE '(slower|faster)'"
grep -qE "^fastmath +exp .* (same|inconclusive|unstable).* (same|inconclusive|unstable)" "$TMP/out" && grep -qE "^fastmath +tanh .* slower.* slower" "$TMP/out" ||
	sed 's/^/#   /' "$TMP/out"
check "the suite's sin, from 2.0 on: n/a on 1.2, new on 2.0 and local" \
	contains "$TMP/out" "^fastmath +sin +default +64K +n/a +[0-9.]+ (us|ms) +new +[0-9.]+ (us|ms) +new"
run=$(ls -d "$TMP"/results/[0-9]*/ | head -1)
check "every benchmark checked against its reference and ok on 2.0" python3 - "$run/2.0.json" <<'PY'
import json, sys
cells = {c["op"]: c["status"] for c in json.load(open(sys.argv[1]))["cells"]}
sys.exit(cells != {"exp": "ok", "tanh": "ok", "sin": "ok"})
PY
"$BV" compat --build > "$TMP/compat" 2>&1
check "compat --build: both releases build with the current harness (cached by the run)" \
	contains "$TMP/compat" "^2 of 2 versions build with the current harness"
check "compat: the one rule applies to both releases" \
	bash -c "grep -qE '^1\.2\.0 +1\.2\.0 +[0-9a-f]{12} +fastmath +builds' '$TMP/compat' && grep -qE '^2\.0\.0 +2\.0\.0 +[0-9a-f]{12} +fastmath +builds' '$TMP/compat'"
check "nothing else is called: 2 changes" contains "$TMP/out" "^verdicts: .* 2 changes called"
finish
