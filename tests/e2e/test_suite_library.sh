#!/usr/bin/env bash
# End to end (what the bundled catalog needs of the suite API,
# for any library): BVS_LIBRARY's hooks and a suite cell's footprint.  A
# tiny library, tags 1.0 and 1.1, says which ISA it dispatches to and
# counts what it allocates; 1.1 can be forced onto an ISA, 1.0 cannot.
# The logs must carry each version's ISA, each cell's bvs_alloc bytes and
# the library's own peak; --simd-isa must reach the library, and a version
# that cannot be forced must say so by name.
source "$(dirname "$0")/lib.sh"

LIB="$TMP/quill"
mkdir -p "$LIB/include" "$LIB/src" "$LIB/bench/suite"
printf '%s\n' 'BUILD ?= build' 'lib:' \
	'	mkdir -p $(BUILD)' \
	'	$(CC) -O2 -fPIC -Iinclude -c src/quill.c -o $(BUILD)/quill.o' \
	'	ar rcs $(BUILD)/libquill.a $(BUILD)/quill.o' > "$LIB/Makefile"
cat > "$LIB/include/quill.h" <<'E'
#include <stddef.h>
/* y = 2 x, through a scratch buffer of n doubles the library keeps */
int ql_scale(const double *x, double *y, size_t n);
int ql_halve(const double *x, double *y, size_t n);
const char *ql_isa(void);
size_t ql_peak_bytes(void); /* the most held since ql_peak_reset */
void ql_peak_reset(void);
E
cat > "$LIB/src/quill.c" <<'E'
#include <stdlib.h>
#include <string.h>
#include "quill.h"
static double *scratch;
static size_t held, peak;
const char *ql_forced;
const char *ql_isa(void) { return ql_forced ? ql_forced : "generic"; }
size_t ql_peak_bytes(void) { return peak; }
void ql_peak_reset(void) { peak = held; }
int ql_halve(const double *x, double *y, size_t n)
{
	for (size_t i = 0; i < n; i++)
		y[i] = x[i] / 2;
	return 0;
}
int ql_scale(const double *x, double *y, size_t n)
{
	if (!scratch) {
		scratch = malloc(n * sizeof(double));
		if (!scratch)
			return -1;
		held += n * sizeof(double);
		if (held > peak)
			peak = held;
	}
	for (size_t i = 0; i < n; i++)
		scratch[i] = 2 * x[i];
	memcpy(y, scratch, n * sizeof(double));
	return 0;
}
E
cat > "$LIB/bench-versions.json" <<'E'
{"schema_version": 1, "name": "quill", "dir": ".", "version": {"tag": ""}, "suite": "bench/suite"}
E
cat > "$LIB/bench/suite/quill.c" <<'E'
#include <bv_suite.h>
#include <stdio.h>
#include <string.h>
#include "quill.h"

typedef struct state { double *x, *y; size_t n; } state;

static int setup(bvs_ctx *c)
{
	size_t n = (size_t)bvs_param_int(c, "size");
	state *s = bvs_alloc(c, sizeof(*s));
	if (!s || !(s->x = bvs_alloc(c, n * sizeof(double))) || !(s->y = bvs_alloc(c, n * sizeof(double))))
		return bvs_fail(c, "out of memory");
	for (size_t i = 0; i < n; i++)
		s->x[i] = bvs_uniform(c, -1, 1);
	s->n = n;
	bvs_set_state(c, s);
	return BVS_OK;
}
static int run(bvs_ctx *c)
{
	state *s = bvs_state(c);
	return ql_scale(s->x, s->y, s->n) ? bvs_fail(c, "ql_scale failed") : BVS_OK;
}
static int check(bvs_ctx *c)
{
	state *s = bvs_state(c);
	bvs_output(c, s->y, s->n, BVS_F64);
	return BVS_OK;
}
/* halve, checked by a test of the suite's own: 2 y gives x back exactly. */
static int run_halve(bvs_ctx *c)
{
	state *s = bvs_state(c);
	return ql_halve(s->x, s->y, s->n) ? bvs_fail(c, "ql_halve failed") : BVS_OK;
}
static int check_halve(bvs_ctx *c)
{
	state *s = bvs_state(c);
	for (size_t i = 0; i < s->n; i++)
		if (2 * s->y[i] != s->x[i])
			return bvs_wrong(c, "2 y[%zu] = %.17g is not x[%zu] = %.17g", i, 2 * s->y[i], i, s->x[i]);
	return BVS_OK;
}
/* bvs_wrong is check's alone: from setup it is a failure of the suite. */
static int wrong_setup(bvs_ctx *c) { return bvs_wrong(c, "not mine to say"); }
/* A setup whose reason holds a terminal escape and a byte that is no UTF-8. */
static int hostile(bvs_ctx *c) { return bvs_fail(c, "no \033[31mred\033[0m, no \377 byte"); }
/* bvs_alloc_shared: the first version's setup in a timing process writes
 * the buffer; a later version's finds it written, and says what it found
 * (a failure, so that the test can read it in the log).  The bytes are
 * the same in every version, as a shared buffer's must be. */
static int shared_setup(bvs_ctx *c)
{
	int fill = -1;
	char *b = bvs_alloc_shared(c, 64, &fill);
	if (!b)
		return bvs_fail(c, "out of memory");
	if (fill)
		snprintf(b, 64, "written by an earlier setup");
	else
		return bvs_fail(c, "shared: fill %d, found '%s' as 1.%d", fill, b, BVS_VERSION_MINOR);
	return BVS_OK;
}
/* Against docs/suites.md: a shared buffer filled with what this version
 * makes.  Every version but the first would be timed on the first's. */
static int unshared_setup(bvs_ctx *c)
{
	int fill = -1;
	char *b = bvs_alloc_shared(c, 64, &fill);
	if (!b)
		return bvs_fail(c, "out of memory");
	if (fill)
		snprintf(b, 64, "made by 1.%d", BVS_VERSION_MINOR);
	return BVS_OK;
}
/* A reason over several lines: each line break is a control character,
 * written as '?' as every other (a raw one would break the table's note
 * and the log's one line per reason). */
static int multiline(bvs_ctx *c) { return bvs_wrong(c, "a\nb\tc\rd"); }
/* Against docs/suites.md: 1.1's setup fills the shared input it was told
 * to leave as the first version made it (fill 0), and writes it otherwise
 * in its own check too, so its output differs from 1.0.0's: the documented
 * failure names the shared buffers, not the differing output they caused. */
static int fill_setup(bvs_ctx *c)
{
	int fill = -1;
	double *x = bvs_alloc_shared(c, 64 * sizeof(double), &fill);
	if (!x)
		return bvs_fail(c, "out of memory");
	for (int i = 0; i < 64; i++)
		x[i] = BVS_VERSION_MINOR ? 2.0 * i : (double)i;
	bvs_set_state(c, x);
	return BVS_OK;
}
static int fill_check(bvs_ctx *c)
{
	bvs_output(c, bvs_state(c), 64, BVS_F64);
	return BVS_OK;
}
static int nothing(bvs_ctx *c) { (void)c; return BVS_OK; }
static const bvs_benchmark benchmarks[] = {
	{.name = "scale", .params = "size=4K", .setup = setup, .run = run, .check = check},
	{.name = "hostile", .setup = hostile, .run = run},
	{.name = "halve", .params = "size=4K", .setup = setup, .run = run_halve, .check = check_halve},
	{.name = "misplaced", .setup = wrong_setup, .run = run},
	{.name = "shared", .setup = shared_setup, .run = nothing},
	{.name = "unshared", .setup = unshared_setup, .run = nothing},
	{.name = "multiline", .run = nothing, .check = multiline},
	{.name = "shared_fill", .setup = fill_setup, .run = nothing, .check = fill_check},
	{0},
};
BVS_SUITE("quill", benchmarks)

static int mark(void) { ql_peak_reset(); return BVS_OK; }
static int peak(double *host, double *device) { *host = (double)ql_peak_bytes(); *device = 0; return BVS_OK; }
#if !BVS_VERSION_LT(1, 1, 0)
extern const char *ql_forced;
static int set_isa(const char *isa)
{
	if (strcmp(isa, "generic") && strcmp(isa, "avx2"))
		return bvs_na(NULL, "quill has no %s path", isa);
	ql_forced = strcmp(isa, "generic") ? "avx2-forced" : NULL;
	return BVS_OK;
}
#define SET_ISA set_isa
#else
#define SET_ISA NULL
#endif
BVS_LIBRARY({.isa = ql_isa, .set_isa = SET_ISA, .memory_mark = mark, .memory_peak = peak})
E
echo 1.0.0 > "$LIB/VERSION"
git -C "$LIB" init -q -b main
git -C "$LIB" add -A
git -C "$LIB" commit -qm "quill 1.0.0"
git -C "$LIB" tag v1.0.0
# 1.1.0 halves the last element wrong (a bug no reference was needed to find)
sed -i 's|y\[i\] = x\[i\] / 2;|y[i] = i + 1 == n ? x[i] : x[i] / 2;|' "$LIB/src/quill.c"
echo 1.1.0 > "$LIB/VERSION"
git -C "$LIB" commit -qam "quill 1.1.0"
git -C "$LIB" tag v1.1.0

cd "$LIB"
unset KERNEL_DIR KERNEL_REPO BENCH_VERSIONS_COMPAT BENCH_VERSIONS_PROJECT BENCH_VERSIONS_OPS
"$BV" 1.0.0 1.1.0 --quick --results "$TMP/r" > "$TMP/out" 2> "$TMP/err"
rc=$?
check "a suite with BVS_LIBRARY runs (exit $rc)" test $rc -eq 0
[ $rc -eq 0 ] || tail -20 "$TMP/err" | sed 's/^/#   /'
sed 's/^/#   /' "$TMP/out"
check "the table shows halve's wrong result on 1.1.0 with the suite's reason" \
	contains "$TMP/out" "^quill +halve +default +4K +[0-9.]+ us +wrong result"
check "... and the reason below it" contains "$TMP/out" "2 y\[4095\] = .* is not x\[4095\]"
check "a suite's reason over several lines reads as one in the table (a?b?c?d)" contains "$TMP/out" "a\?b\?c\?d"
lacks() { ! grep -qE -- "$2" "$1"; }
check "... and no part of it starts a line of its own" lacks "$TMP/out" $'^b\tc'
check "... nor is written escaped (a\\x0ab)" lacks "$TMP/out" 'a\\x0ab'
check "a later version whose setup writes a shared input fails in the table (not wrong result)" \
	contains "$TMP/out" "^quill +shared_fill +default +1 +[0-9.]+ ns +failed"
run=$(ls -d "$TMP"/r/[0-9]*/ 2>/dev/null | head -1)
check "each version's log names the ISA its library says; a shared buffer is the first setup's in the timing child, and a later version whose setup writes other bytes there fails; bvs_wrong from check is wrong result with its reason on 1.1.0 only, from setup a failure; the cell's footprint is bvs_alloc's bytes and the library's peak; a hostile reason is kept printable and UTF-8 (the log is valid JSON for any reader)" \
	python3 - "$run" <<'PY'
import json, sys, glob
for f in ("1.0.0.json", "1.1.0.json"):
    d = json.load(open(sys.argv[1] + "/" + f))
    assert d["version"]["build"]["status"] == "ok", (f, d["version"]["build"])
    assert d["version"]["simd_isa"] == "generic", (f, d["version"])
    c, bad, halve, misplaced, shared, unshared, multiline, shared_fill = d["cells"]
    # bvs_alloc_shared: checked alone, each version wrote the buffer; timed
    # side by side, the version set up second found the first one's words
    # in the same memory (and said so, failing the cell on purpose)
    assert shared["status"] == "failed", shared
    got = shared["reason"]
    assert "shared: fill 0, found 'written by an earlier setup' as 1." in got, shared
    assert shared.get("footprint", shared).get("host_bytes") == 64, shared
    # a setup that writes its own version's bytes into a shared buffer: the
    # checks (each version alone) differ, so the later version fails, saying
    # why, instead of being timed on the first one's data
    if f == "1.0.0.json":
        assert unshared["status"] == "ok", unshared
    else:
        assert unshared["status"] == "failed", unshared
        assert "writes other bytes into the cell's shared buffers (bvs_alloc_shared) than 1.0.0's" in unshared["reason"], unshared
    assert misplaced["status"] == "failed" and "only check may" in misplaced["reason"], misplaced
    # a reason's line breaks and tab are control characters like any other
    assert multiline["status"] == "wrong result" and multiline["reason"] == "a?b?c?d", multiline
    # a later version that writes a shared input it must leave be: the
    # documented failure, not the wrong result its own inputs then give
    if f == "1.0.0.json":
        assert shared_fill["status"] == "ok", shared_fill
    else:
        assert shared_fill["status"] == "failed", shared_fill
        assert "its setup writes other bytes into the cell's shared buffers (bvs_alloc_shared) than 1.0.0's" in shared_fill["reason"], shared_fill
    if f == "1.0.0.json":
        assert halve["status"] == "ok", halve
    else:
        assert halve["status"] == "wrong result" and "2 y[4095] = " in halve["reason"], halve
    assert bad["op"] == "hostile" and bad["status"] == "failed" and bad["reason"] == "no ?[31mred?[0m, no ? byte", bad
    fp = c.get("footprint", c)
    # the state (3 pointers, rounded by nothing: bytes asked) and two 4K arrays of doubles
    want = 24 + 2 * 4096 * 8
    assert fp["host_bytes"] == want, (f, fp)
    assert fp["library_host_bytes"] == 4096 * 8, (f, fp)
PY
[ $? -eq 0 ] || { ls "$run"; python3 -c "import json,sys; d=json.load(open('$run/1.0.0.json')); print(d['version']); print(d['cells'][0])" 2>&1 | sed 's/^/#   /'; }

"$BV" 1.1.0 --quick --simd-isa avx2 --results "$TMP/f" > "$TMP/fout" 2> "$TMP/ferr"
rc=$?
check "--simd-isa reaches the library through set_isa (exit $rc)" test $rc -eq 0
run=$(ls -d "$TMP"/f/[0-9]*/ 2>/dev/null | head -1)
check "... and the log says the ISA the library then reports" \
	python3 -c "import json; d=json.load(open('$run/1.1.0.json')); assert d['version']['simd_isa'] == 'avx2-forced', d['version']"
check "one version alone: bvs_alloc_shared's memory is its own to write (the shared cell is measured)" \
	python3 -c "import json; c=json.load(open('$run/1.1.0.json'))['cells'][4]; assert c['op'] == 'shared' and c['status'] == 'ok', c"

"$BV" 1.0.0 1.1.0 --quick --simd-isa avx2 --results "$TMP/g" > "$TMP/gout" 2> "$TMP/gerr"
rc=$?
check "a version whose suite cannot be forced still runs (exit $rc)" test $rc -eq 0
check "... its cell is n/a there, saying why; the other version's is measured" \
	python3 - "$(ls -d "$TMP"/g/[0-9]*/ | head -1)" <<'PY'
import json, sys
old = json.load(open(sys.argv[1] + "/1.0.0.json"))["cells"][0]
new = json.load(open(sys.argv[1] + "/1.1.0.json"))["cells"][0]
assert old["status"] == "n/a" and "cannot be forced onto an ISA" in old.get("reason", ""), old
assert new["status"] == "ok", new
PY
finish
