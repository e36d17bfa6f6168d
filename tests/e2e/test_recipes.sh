#!/usr/bin/env bash
# End to end: a foreign library (its own function names, no kernels.h,
# built with CMake) built by a compat rule's recipe whose helper script
# lives in the compat directory (docs/compat.md, build recipes), and
# measured by its project's suite.  Bad recipes are build failures of their
# version only, each saying what to change; a rule that still names an
# adapter (retired) stops every command before anything is built, saying
# what replaced it (docs/adapters.md).
source "$(dirname "$0")/lib.sh"
command -v cmake > /dev/null || { echo "not ok - cmake is missing (scripts/deps.sh test installs it)"; exit 1; }

# ---- the foreign library, at its repository's root: a VERSION file, a
# project file naming its suite (bench/suite, read from the working tree).
L="$TMP/fastmath"
mkdir -p "$L/src" "$L/include" "$L/bench/suite"
echo 1.0.0 > "$L/VERSION"
cat > "$L/CMakeLists.txt" <<'E'
cmake_minimum_required(VERSION 3.10)
project(fastmath C)
add_library(fastmath STATIC src/fastmath.c src/fastmath_avx2.c)
target_include_directories(fastmath PUBLIC include)
# the AVX2 path alone is compiled for AVX2 (docs/adapters.md, per-ISA code)
set_source_files_properties(src/fastmath_avx2.c PROPERTIES COMPILE_OPTIONS "-mavx2;-mfma")
E
cat > "$L/include/fastmath.h" <<'E'
#include <stddef.h>
void fm_exp_array(const float *x, float *y, size_t n);
void fm_tanh_array(const float *x, float *y, size_t n);
const float *fm_table(unsigned i);
#ifdef __AVX2__
void fm_exp_array_avx2(const float *x, float *y, size_t n); /* needs AVX2 and FMA */
#endif
E
cat > "$L/src/fastmath_avx2.c" <<'E'
#include <immintrin.h>
#include <math.h>
#include "fastmath.h"
/* exp eight at a time: expf per lane, through AVX2 loads and stores (what
 * matters here is that it is AVX2 code the header hides without it). */
void fm_exp_array_avx2(const float *x, float *y, size_t n)
{
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		float t[8];
		_mm256_storeu_ps(t, _mm256_loadu_ps(x + i));
		for (int k = 0; k < 8; k++)
			t[k] = expf(t[k]);
		_mm256_storeu_ps(y + i, _mm256_loadu_ps(t));
	}
	for (; i < n; i++)
		y[i] = expf(x[i]);
}
E
cat > "$L/src/fastmath.c" <<'E'
#include <math.h>
#include "fastmath.h"
void fm_exp_array(const float *x, float *y, size_t n)
{
	for (size_t i = 0; i < n; i++)
		y[i] = expf(x[i]);
}
void fm_tanh_array(const float *x, float *y, size_t n)
{
	for (size_t i = 0; i < n; i++)
		y[i] = tanhf(x[i]);
}
/* A table, as math libraries have: code built without -fPIC addresses it
 * absolutely (R_X86_64_32S), which no shared object can hold. */
static float table[256];
const float *fm_table(unsigned i)
{
	return &table[i & 255];
}
E
cat > "$L/bench-versions.json" <<'E'
{"schema_version": 1, "name": "fastmath", "dir": ".", "suite": "bench/suite"}
E
# The suite of the recipe checks: exp and tanh through fastmath.c alone
# (what every recipe below builds), unchecked: what is measured is not
# the point here.
cat > "$TMP/plain.c" <<'E'
#include <bv_suite.h>
#include "fastmath.h"
typedef struct arrays { size_t n; float *x, *y; } arrays;
static int setup(bvs_ctx *c)
{
	arrays *s = bvs_alloc(c, sizeof(*s));
	if (!s)
		return bvs_fail(c, "out of memory");
	s->n = (size_t)bvs_param_int(c, "size");
	if (!(s->x = bvs_alloc(c, s->n * sizeof(float))) || !(s->y = bvs_alloc(c, s->n * sizeof(float))))
		return bvs_fail(c, "out of memory");
	for (size_t i = 0; i < s->n; i++)
		s->x[i] = (float)bvs_uniform(c, -10, 10);
	bvs_set_state(c, s);
	return BVS_OK;
}
static int exp_run(bvs_ctx *c) { arrays *s = bvs_state(c); fm_exp_array(s->x, s->y, s->n); return BVS_OK; }
static int tanh_run(bvs_ctx *c) { arrays *s = bvs_state(c); fm_tanh_array(s->x, s->y, s->n); return BVS_OK; }
static const bvs_benchmark benchmarks[] = {
	{.name = "exp", .params = "size=16K", .setup = setup, .run = exp_run},
	{.name = "tanh", .params = "size=16K", .setup = setup, .run = tanh_run},
	{0},
};
BVS_SUITE("fastmath", benchmarks)
E
cp "$TMP/plain.c" "$L/bench/suite/fastmath.c"
git -C "$L" init -q -b main
git -C "$L" add -A
git -C "$L" commit -qm "fastmath 1.0.0"
echo "fastmath: fast math." > "$L/README"
git -C "$L" add README
git -C "$L" commit -qm "a README" # a second commit: bisect and history need two
cd "$L"
unset KERNEL_DIR KERNEL_REPO BENCH_VERSIONS_PROJECT

# ---- the compat directory, outside the repository: the rule and its
# helper scripts.
C="$TMP/compat"
mkdir -p "$C"
export BENCH_VERSIONS_COMPAT="$C/compat.json"
cat > "$C/build-fastmath.sh" <<'E'
#!/bin/sh
# build-fastmath.sh SRC BUILD: the library's own CMake build, its archive
# into BUILD (the link contract: every *.a there is linked).
set -e
cmake -S "$1" -B "$2/cmake" -DCMAKE_BUILD_TYPE=Release -DCMAKE_POSITION_INDEPENDENT_CODE=ON > /dev/null
cmake --build "$2/cmake" > /dev/null
cp "$2/cmake/libfastmath.a" "$2/"
sleep 1
E
# The bad-input cases build with cc directly (fast); PIC decides whether
# the archive can go into a plugin.  Debian's cc makes PIE code by default,
# which links: -fno-pic is what a toolchain without that default gives.
cat > "$C/build-cc.sh" <<'E'
#!/bin/sh
set -e
cc -O2 ${PIC:--fPIC} -I"$1/include" -c "$1/src/fastmath.c" -o "$2/fastmath.o"
ar rcs "$2/libfastmath.a" "$2/fastmath.o"
E
rule() { # rule RECIPE-JSON
	printf '{"schema_version": 1, "rules": [{"id": "fastmath", "versions": "*", "build": %s}]}\n' "$1" > "$C/compat.json"
}
good_recipe='["sh", "{compat}/build-fastmath.sh", "{src}", "{build}"]'
cc_recipe='["sh", "{compat}/build-cc.sh", "{src}", "{build}"]'

# ---- a rule that still names an adapter: refused before anything is built
# by every command that reads the rules, naming the file, the rule and
# what replaced it.  The adapter directory is one a rule of old could name
# (a source in it), so it is the key alone that is refused.
mkdir -p "$C/adapter"
echo '/* an adapter of old */' > "$C/adapter/adapter.c"
printf '%s\n' '{"schema_version": 1, "rules": [{"id": "fastmath", "versions": "*",' \
	'"build": ["sh", "{compat}/build-fastmath.sh", "{src}", "{build}"], "adapter": "adapter"}]}' > "$C/compat.json"
retired="$C/compat\.json: rule 0 \('fastmath'\): \"adapter\" is retired: describe the library's benchmarks as a suite instead \(a project file's \"suite\"\); docs/adapters\.md shows how to move an adapter to a suite"
refused "compat with a rule naming an adapter" "$retired" compat
refused "compat --build with a rule naming an adapter" "$retired" compat --build HEAD
check "... refused before building: no build line" bash -c "! grep -qE '^build|FAILED|builds' '$TMP/err'"
refused "run with a rule naming an adapter" "$retired" run HEAD --quick --results "$TMP/never"
# (the results directory itself is made when the options are read: empty)
check "... refused before building: nothing built, no run in the results" \
	bash -c "! grep -q '^build' '$TMP/err' && ! ls '$BENCH_VERSIONS_CACHE'/builds/*.log > /dev/null 2>&1 && test -z \"\$(ls -A '$TMP/never' 2> /dev/null)\""
refused "bisect with a rule naming an adapter" "$retired" \
	bisect --good HEAD~1 --bad HEAD --bench fastmath --op exp --backend default --size 16K --quick
refused "history with a rule naming an adapter" "$retired" history HEAD~1..HEAD --quick
check "... none of them built anything" bash -c "! ls '$BENCH_VERSIONS_CACHE'/builds/*.log > /dev/null 2>&1"

rule "$good_recipe"
export BENCH_VERSIONS_PROGRESS_SECONDS=1
timeout 120 "$BV" compat --build HEAD > "$TMP/b1" 2> "$TMP/e1"
rc=$?
check "a CMake recipe with a helper script: builds (exit $rc)" test $rc -eq 0
[ $rc -eq 0 ] || sed 's/^/#   /' "$TMP/b1" | tail -20
check "progress lines while building (not a terminal)" contains "$TMP/e1" "^building HEAD: [0-9]+ s so far \(log: .*; last line: "

# ---- the build key: editing the helper script rebuilds (--dry-run says
# whether the version's key is in the cache; nothing is built).
plan() { "$BV" run HEAD --dry-run 2> /dev/null; }
plan > "$TMP/p1"
check "the build is cached after the build" contains "$TMP/p1" "^  HEAD .*1\.0\.0, build cached"
echo 'echo "the recipe ran"' >> "$C/build-fastmath.sh"
plan > "$TMP/p2"
check "an edited helper script is a new build key (to build)" contains "$TMP/p2" "^  HEAD .*1\.0\.0, to build"
grep -q "to build" "$TMP/p2" || sed 's/^/#   /' "$TMP/p2"
# The edited helper builds the library again; an edited suite then
# relinks the plugin only, its library taken from the cache.
newest_log() { ls -t "$BENCH_VERSIONS_CACHE"/builds/*.log | head -1; }
timeout 120 "$BV" compat --build HEAD > /dev/null 2>&1
check "the edited helper: the library built again (its recipe ran)" \
	bash -c "grep -q 'the recipe ran' '$(newest_log)' && ! grep -q 'library: taken from the cache' '$(newest_log)'"
echo "/* an edit of the suite alone */" >> "$L/bench/suite/fastmath.c"
timeout 120 "$BV" compat --build HEAD > "$TMP/relink" 2>&1
log=$(newest_log)
check "an edited suite: a new build (exit 0)" contains "$TMP/relink" "^HEAD .* builds \(built\)"
check "... whose library comes from the cache: the recipe did not run" \
	bash -c "grep -q 'library: taken from the cache' '$log' && ! grep -q 'the recipe ran' '$log'"
grep -q 'library: taken' "$log" || sed 's/^/#   /' "$log" | tail -5
cp "$TMP/plain.c" "$L/bench/suite/fastmath.c"

# ---- bad recipes: build failures of their version only.
rule "$cc_recipe"
# (PIC is the helper's own variable: builds get it only when it is named)
PIC=-fno-pic BENCH_VERSIONS_BUILD_ENV=PIC timeout 60 "$BV" compat --build HEAD > "$TMP/b4" 2> "$TMP/e4"
rc=$?
check "a non-PIC archive: exit 3 ($rc)" test $rc -eq 3
check "the failure says PIC, names the archive and how to fix it" \
	contains "$TMP/b4" "\{build\}/libfastmath\.a holds code that is not position-independent.*CMAKE_POSITION_INDEPENDENT_CODE=ON.*docs/compat\.md, the link contract"
grep -q "position-independent" "$TMP/b4" || sed 's/^/#   /' "$TMP/b4" | tail -20

rule '["sh", "-c", "mkdir -p {build}"]'
timeout 60 "$BV" compat --build HEAD > "$TMP/b5" 2> "$TMP/e5"
check "a recipe that leaves no archive: exit 3" test $? -eq 3
check "the failure says so" contains "$TMP/b5" "the recipe left no archive \(\*\.a\) in \{build\}"

# Two archives whose order matters: libzz.a's fastmath.o calls a function
# that only libaa-hook.a, sorted before it, defines.  Linked in a group, the
# plugin has no undefined fm_ symbol left (a plain, ordered link would leave
# one for dlopen to fail on).
cat > "$C/build-two.sh" <<'E'
#!/bin/sh
set -e
printf '#include <math.h>\nfloat fm_expf_hook(float x) { return expf(x); }\n' > "$2/hook.c"
cc -O2 -fPIC -c "$2/hook.c" -o "$2/hook.o"
ar rcs "$2/libaa-hook.a" "$2/hook.o"
cc -O2 -fPIC -I"$1/include" -c "$1/src/fastmath.c" -o "$2/fastmath.o"
objcopy --redefine-sym expf=fm_expf_hook "$2/fastmath.o"
ar rcs "$2/libzz.a" "$2/fastmath.o"
E
rule '["sh", "{compat}/build-two.sh", "{src}", "{build}"]'
touch "$TMP/before-two"
sleep 0.01
timeout 60 "$BV" compat --build HEAD > "$TMP/b7" 2> "$TMP/e7"
check "two archives in {build}: the version builds" contains "$TMP/b7" "^HEAD .* builds \(built\)"
find "$BENCH_VERSIONS_CACHE/builds" -name plugin.so -newer "$TMP/before-two" > "$TMP/two"
check "linked as a group: the plugin leaves no fm_ symbol undefined" \
	bash -c "test \$(wc -l < '$TMP/two') -eq 1 && ! xargs nm -D --undefined-only < '$TMP/two' | grep -q fm_"

printf '%s\n' '-lm /etc/passwd' > "$TMP/flags"
rule "[\"sh\", \"-c\", \"sh {compat}/build-cc.sh {src} {build}; cp $TMP/flags {build}/link-flags\"]"
timeout 60 "$BV" compat --build HEAD > "$TMP/b6" 2> "$TMP/e6"
check "link-flags naming a file outside {build}: exit 3" test $? -eq 3
check "the failure names the file" contains "$TMP/b6" "link-flags names /etc/passwd, which is not a file under \{build\}"

# A header the library's build generates.  The suite includes
# fastmath_config.h, which exists only once the recipe wrote it to
# {build}/include; the suite is compiled after the recipe, with that on its
# include path.  Without it, the failure says where headers are looked for.
sed -i '1i #include "fastmath_config.h" /* generated by the build */' "$L/bench/suite/fastmath.c"
rule '["sh", "-c", "sh {compat}/build-cc.sh {src} {build} && mkdir -p {build}/include && echo \"#define FASTMATH_CONFIGURED 1\" > {build}/include/fastmath_config.h"]'
timeout 60 "$BV" compat --build HEAD > "$TMP/b8" 2> "$TMP/e8"
rc=$?
check "a header the recipe generates in {build}/include: the suite builds (exit $rc)" test $rc -eq 0
[ $rc -eq 0 ] || sed 's/^/#   /' "$TMP/b8" | tail -12
rule "$cc_recipe"
timeout 60 "$BV" compat --build HEAD > "$TMP/b9" 2> "$TMP/e9"
rc=$?
check "the same header not generated: exit 3 ($rc)" test $rc -eq 3
check "... and the failure says where the harness side looks for headers, after the recipe" \
	contains "$TMP/b9" "a header was not found: the harness side is compiled after the recipe ran, with -I \{src\} -I \{src\}/include -I \{build\} -I \{build\}/include.*docs/compat\.md, generated headers"
grep -q "a header was not found" "$TMP/b9" || sed 's/^/#   /' "$TMP/b9" | tail -12

# Per-ISA code, the suite of docs/adapters.md as written there: the
# library's AVX2 path (declared only under __AVX2__) as a variant, the rest
# of the suite compiled as always.
python3 - "$ROOT/docs/adapters.md" "$L/bench/suite/fastmath.c" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
(body,) = re.findall(r"^```c example=simd-suite/fastmath\.c\n(.*?)^```$", text, re.S | re.M)
open(sys.argv[2], "w").write(body)
PY
rule "$good_recipe"
timeout 240 "$BV" run HEAD --ops exp --backends scalar,avx2 --sizes 64K --quick \
	--results "$TMP/simd" > "$TMP/simd.out" 2> "$TMP/simd.err"
rc=$?
check "the per-ISA suite of docs/adapters.md: run exits 0 ($rc)" test $rc -eq 0
[ $rc -eq 0 ] || sed 's/^/#   /' "$TMP/simd.err" | tail -12
if grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo; then
	check "... its avx2 exp is measured and checked against the reference (this CPU has AVX2)" \
		contains "$TMP/simd.out" "^fastmath +exp +avx2 +64K +[0-9.]+ (us|ms)"
	check "... and its scalar exp too" contains "$TMP/simd.out" "^fastmath +exp +scalar +64K +[0-9.]+ (us|ms)"
	run=$(ls -d "$TMP"/simd/[0-9]*/ | head -1)
	check "... and the log says the library's path is avx2 (BVS_LIBRARY's isa)" python3 - "$run/HEAD.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(d["version"].get("simd_isa") != "avx2" or {c["status"] for c in d["cells"]} != {"ok"})
PY
else
	check "... its avx2 exp is skipped on this CPU without AVX2, saying why" \
		contains "$TMP/simd.out" "skipped"
fi
grep -qE "^fastmath +exp +avx2" "$TMP/simd.out" || sed 's/^/#   /' "$TMP/simd.out"
finish
