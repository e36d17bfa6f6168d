#!/usr/bin/env bash
# End to end: a foreign library (its own function names, no kernels.h,
# built with CMake) benchmarked through a compat rule's adapter and a recipe
# whose helper script lives in compat/ (docs/adapters.md).  Two commits, one
# with a planted slowdown in fm_tanh_array; bad adapters and recipes are
# build failures of their version only, each saying what to change.
source "$(dirname "$0")/lib.sh"
command -v cmake > /dev/null || { echo "not ok - cmake is missing (scripts/deps.sh test installs it)"; exit 1; }

# ---- the foreign library: kernels/VERSION for today's resolver, the rest
# as such a project has it.
FIX="$TMP/repo"
L="$FIX/kernels"
mkdir -p "$L/src" "$L/include"
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
git -C "$FIX" init -q -b main
git -C "$FIX" add -A
git -C "$FIX" commit -qm "fastmath 1.0.0"
# The next commit: fm_tanh_array does its loop three times.
python3 - "$L/src/fastmath.c" <<'PY'
import sys
p = sys.argv[1]; s = open(p).read()
old = "\tfor (size_t i = 0; i < n; i++)\n\t\ty[i] = tanhf(x[i]);"
assert old in s
s = s.replace(old, "\tvolatile float sink = 0;\n\tfor (int rep = 0; rep < 3; rep++)\n\t\tfor (size_t i = 0; i < n; i++)\n\t\t\tsink = y[i] = tanhf(x[i]);\n\t(void)sink;")
open(p, "w").write(s)
PY
git -C "$FIX" commit -qam "fm_tanh_array: three passes (planted slowdown)"
export KERNEL_DIR="$L"
unset KERNEL_REPO

# ---- compat/: the rule, the helper script, the adapter.
C="$TMP/compat"
mkdir -p "$C/adapters/fastmath" "$C/bad-adapter"
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
cat > "$C/adapters/fastmath/adapter.c" <<'E'
/* kernels' API over fastmath: scalar only, exp and tanh. */
#include "kernels.h"
#include "fastmath.h"

kn_status kn_backend_probe(kn_backend b)
{
	return b == KN_BACKEND_SCALAR ? KN_OK : KN_EUNSUPPORTED;
}

kn_status kn_unary_ex(kn_backend b, kn_unary_op op, const float *x, float *y, size_t n, const kn_unary_params *p)
{
	(void)p;
	if (b != KN_BACKEND_SCALAR)
		return KN_EUNSUPPORTED;
	switch (op) {
	case KN_EXP: fm_exp_array(x, y, n); return KN_OK;
	case KN_TANH: fm_tanh_array(x, y, n); return KN_OK;
	default: return KN_EUNSUPPORTED;
	}
}
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
rule() { # rule RECIPE-JSON ADAPTER
	printf '{"schema_version": 1, "rules": [{"id": "fastmath", "versions": "*", "build": %s, "adapter": "%s"}]}\n' \
		"$1" "$2" > "$C/compat.json"
}
good_recipe='["sh", "{compat}/build-fastmath.sh", "{src}", "{build}"]'
rule "$good_recipe" adapters/fastmath

export BENCH_VERSIONS_PROGRESS_SECONDS=1
args=(--benches unary --ops exp,tanh,abs --backends scalar --sizes 64K --quick --results "$TMP/results")
timeout 120 "$BV" run HEAD~1 HEAD "${args[@]}" > "$TMP/out" 2> "$TMP/err"
rc=$?
check "run over the adapter: exit 0 (exit $rc)" test $rc -eq 0
[ $rc -eq 0 ] || { sed 's/^/#   /' "$TMP/err" | tail -30; }
check "both versions built" bash -c "grep -qE 'build: HEAD~1 .*built' '$TMP/err' && grep -qE 'build: HEAD .*built' '$TMP/err'"
# unchanged: any answer that is not a call (a loaded machine can leave it
# inconclusive or unstable), never slower or faster
check "exp measured and verified (not called)" \
	bash -c "grep -qE '^unary +exp +scalar +64K .*\] (same|inconclusive|unstable)' '$TMP/out' && ! grep -E '^unary +exp ' '$TMP/out' | grep -qE 'slower|faster'"
check "tanh's planted slowdown is slower" contains "$TMP/out" "^unary +tanh +scalar +64K .* slower"
check "abs, which the adapter leaves out, is not run: n/a" contains "$TMP/out" "not run: 1 scalar cell on every version: n/a"
check "progress lines while building (not a terminal)" contains "$TMP/err" "^building HEAD(~1)?: [0-9]+ s so far \(log: .*; last line: "
grep -qE "^unary +tanh .* slower" "$TMP/out" || sed 's/^/#   /' "$TMP/out"

# abs is n/a in the results; the library's version as the plugin reports it
# (defaults.c's kn_version: the tree's) is 1.0.0.
run=$(ls -d "$TMP"/results/[0-9]*/ | head -1)
check "the results: abs n/a, exp and tanh ok" python3 - "$run/HEAD.json" <<'PY'
import json, sys
cells = {c["op"]: c["status"] for c in json.load(open(sys.argv[1]))["cells"]}
sys.exit(cells != {"abs": "n/a", "exp": "ok", "tanh": "ok"})
PY
check "the plugin reports kn_version 1.0.0 (defaults.c)" python3 - "$run"/raw/process-1.json <<'PY'
import json, sys
vs = json.load(open(sys.argv[1]))["versions"]
sys.exit(not vs or any(v["kernel_version"] != "1.0.0" for v in vs))
PY

# ---- the build key: editing the helper script rebuilds (--dry-run says
# whether the version's key is in the cache; nothing is built).
plan() { "$BV" run HEAD --dry-run --benches unary --ops exp --backends scalar 2> /dev/null; }
plan > "$TMP/p1"
check "the build is cached after the run" contains "$TMP/p1" "^  HEAD .*kernels 1\.0\.0, build cached"
echo 'echo "the recipe ran"' >> "$C/build-fastmath.sh"
plan > "$TMP/p2"
check "an edited helper script is a new build key (to build)" contains "$TMP/p2" "^  HEAD .*kernels 1\.0\.0, to build"
# Issue 34 item 3: the edited helper builds the library again; an edited
# adapter then relinks the plugin only, its library taken from the cache.
newest_log() { ls -t "$BENCH_VERSIONS_CACHE"/builds/*.log | head -1; }
timeout 120 "$BV" compat --build HEAD > /dev/null 2>&1
check "the edited helper: the library built again (its recipe ran)" \
	bash -c "grep -q 'the recipe ran' '$(newest_log)' && ! grep -q 'library: taken from the cache' '$(newest_log)'"
echo "/* an edit of the adapter alone */" >> "$C/adapters/fastmath/adapter.c"
timeout 120 "$BV" compat --build HEAD > "$TMP/relink" 2>&1
log=$(newest_log)
check "an edited adapter: a new build (exit 0)" contains "$TMP/relink" "^HEAD .* builds \(built\)"
check "... whose library comes from the cache: the recipe did not run" \
	bash -c "grep -q 'library: taken from the cache' '$log' && ! grep -q 'the recipe ran' '$log'"
grep -q 'library: taken' "$log" || sed 's/^/#   /' "$log" | tail -5

# ---- bad input: build failures of their version only.
cat > "$C/bad-adapter/adapter.c" <<'E'
#include "kernels.h"
#include "fastmath.h"
kn_status kn_unary_ex(kn_backend b, kn_unary_op op, const float *x, float *y, size_t n, const kn_unary_params *p)
{
	(void)b, (void)op, (void)p;
	fm_exp_array(x, y, n);
	return KN_OK;
}
E
cc_recipe='["sh", "{compat}/build-cc.sh", "{src}", "{build}"]'
rule "$cc_recipe" bad-adapter
timeout 60 "$BV" compat --build HEAD > "$TMP/b3" 2> "$TMP/e3"
rc=$?
check "an adapter without kn_backend_probe: exit 3 ($rc)" test $rc -eq 3
check "the failure names the symbol, the adapter and the docs" \
	contains "$TMP/b3" "adapter .*bad-adapter does not define kn_backend_probe.*docs/adapters.md"

rule "$cc_recipe" adapters/fastmath
# (PIC is the helper's own variable: builds get it only when it is named)
PIC=-fno-pic BENCH_VERSIONS_BUILD_ENV=PIC timeout 60 "$BV" compat --build HEAD > "$TMP/b4" 2> "$TMP/e4"
rc=$?
check "a non-PIC archive: exit 3 ($rc)" test $rc -eq 3
check "the failure says PIC, names the archive and how to fix it" \
	contains "$TMP/b4" "\{build\}/libfastmath\.a holds code that is not position-independent.*CMAKE_POSITION_INDEPENDENT_CODE=ON"
grep -q "position-independent" "$TMP/b4" || sed 's/^/#   /' "$TMP/b4" | tail -20

rule '["sh", "-c", "mkdir -p {build}"]' adapters/fastmath
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
rule '["sh", "{compat}/build-two.sh", "{src}", "{build}"]' adapters/fastmath
touch "$TMP/before-two"
sleep 0.01
timeout 60 "$BV" compat --build 1.0.0 HEAD > "$TMP/b7" 2> "$TMP/e7"
check "two archives in {build}: both versions build" test "$(grep -cE '^(1\.0\.0|HEAD) .* builds \(built\)' "$TMP/b7")" -eq 2
find "$BENCH_VERSIONS_CACHE/builds" -name plugin.so -newer "$TMP/before-two" > "$TMP/two"
check "linked as a group: the plugins leave no fm_ symbol undefined" \
	bash -c "test \$(wc -l < '$TMP/two') -eq 2 && ! xargs nm -D --undefined-only < '$TMP/two' | grep -q fm_"

printf '%s\n' '-lm /etc/passwd' > "$TMP/flags"
rule "[\"sh\", \"-c\", \"sh {compat}/build-cc.sh {src} {build}; cp $TMP/flags {build}/link-flags\"]" adapters/fastmath
timeout 60 "$BV" compat --build HEAD > "$TMP/b6" 2> "$TMP/e6"
check "link-flags naming a file outside {build}: exit 3" test $? -eq 3
check "the failure names the file" contains "$TMP/b6" "link-flags names /etc/passwd, which is not a file under \{build\}"

# Issue 34 item 1: a header the library's build generates.  The adapter
# includes fastmath_config.h, which exists only once the recipe wrote it to
# {build}/include; the adapter is compiled after the recipe, with that on
# its include path.  Without it, the failure says where headers are looked
# for.
mkdir -p "$C/gen-adapter"
cp "$C/adapters/fastmath/"*.c "$C/gen-adapter/"
sed -i '1i #include "fastmath_config.h" /* generated by the build */' "$C/gen-adapter/"*.c
rule '["sh", "-c", "sh {compat}/build-cc.sh {src} {build} && mkdir -p {build}/include && echo \"#define FASTMATH_CONFIGURED 1\" > {build}/include/fastmath_config.h"]' gen-adapter
timeout 60 "$BV" compat --build HEAD > "$TMP/b8" 2> "$TMP/e8"
rc=$?
check "a header the recipe generates in {build}/include: the adapter builds (exit $rc)" test $rc -eq 0
[ $rc -eq 0 ] || sed 's/^/#   /' "$TMP/b8" | tail -12
rule "$cc_recipe" gen-adapter
timeout 60 "$BV" compat --build HEAD > "$TMP/b9" 2> "$TMP/e9"
rc=$?
check "the same header not generated: exit 3 ($rc)" test $rc -eq 3
check "... and the failure says where the harness side looks for headers, after the recipe" \
	contains "$TMP/b9" "a header was not found: the harness side is compiled after the recipe ran, with -I \{src\} -I \{src\}/include -I \{build\} -I \{build\}/include"

# Issue 34 item 2: per-ISA code, the adapter of docs/adapters.md as written
# there: the library's AVX2 path (declared only under __AVX2__) as the simd
# backend, the rest of the harness compiled as always.
python3 - "$ROOT/docs/adapters.md" "$C" <<'PY'
import os, re, sys
text, c = open(sys.argv[1]).read(), sys.argv[2]
(body,) = re.findall(r"^```c example=simd-adapter/adapter\.c\n(.*?)^```$", text, re.S | re.M)
os.makedirs(os.path.join(c, "simd-adapter"), exist_ok=True)
open(os.path.join(c, "simd-adapter", "adapter.c"), "w").write(body)
PY
rule "$good_recipe" simd-adapter
timeout 240 "$BV" run HEAD --benches unary --ops exp --backends scalar,simd --sizes 64K --quick \
	--results "$TMP/simd" > "$TMP/simd.out" 2> "$TMP/simd.err"
rc=$?
check "the per-ISA adapter of docs/adapters.md: run exits 0 ($rc)" test $rc -eq 0
[ $rc -eq 0 ] || sed 's/^/#   /' "$TMP/simd.err" | tail -12
if grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo; then
	check "... its simd exp is measured and checked against the reference (this CPU has AVX2)" \
		contains "$TMP/simd.out" "^unary +exp +simd +64K +[0-9.]+ (us|ms)"
	check "... and the table says the simd path is avx2" contains "$TMP/simd.out" "^simd ISA: .*avx2"
else
	check "... its simd exp is skipped on this CPU without AVX2, saying why" \
		contains "$TMP/simd.out" "skipped"
fi
grep -qE "^unary +exp +simd" "$TMP/simd.out" || sed 's/^/#   /' "$TMP/simd.out"

# harness/adapter/kernels.h says it is kernels 0.14.1's API, frozen: below its
# own header comment it must be that release's include/kernels.h, line for
# line (the release's first comment line names the file; the copy's header
# replaces it).
rel=$(git -C "$ROOT" log --format=%H -S'0.14.1' -- kernels/VERSION 2> /dev/null | tail -1)
if [ -n "$rel" ] && git -C "$ROOT" cat-file -e "$rel:kernels/include/kernels.h" 2> /dev/null; then
	git -C "$ROOT" show "$rel:kernels/include/kernels.h" | tail -n +3 > "$TMP/api-0.14.1.h"
	sed -n '/^ \* What follows is the kernels API.s own documentation, unchanged\.$/,$p' "$ROOT/harness/adapter/kernels.h" |
		tail -n +4 > "$TMP/api-copy.h"
	check "harness/adapter/kernels.h is kernels 0.14.1's kernels.h below its header" \
		test -s "$TMP/api-copy.h" -a "$(wc -l < "$TMP/api-copy.h")" -gt 100
	check "  line for line" cmp -s "$TMP/api-0.14.1.h" "$TMP/api-copy.h"
else
	history_missing "harness/adapter/kernels.h is kernels 0.14.1's kernels.h" "this clone has no commit of kernels 0.14.1 (a shallow clone)"
fi

exit $failures
