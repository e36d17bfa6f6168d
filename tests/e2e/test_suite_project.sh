#!/usr/bin/env bash
# End to end: a library's own benchmark suite (harness/plugin/bv_suite.h),
# named by its project file's "suite", measured across its releases.  A
# tiny C library, tags 1.0, 1.1 and 1.2: 1.1 adds tiny_scale (the suite's
# rescale benchmark exists from 1.1 on: n/a on 1.0), 1.2 drops the type
# tiny_legacy_t, which one suite file names from 1.2 on (#if
# BVS_VERSION_LT), so 1.2's build fails naming that file and line.
source "$(dirname "$0")/lib.sh"

LIB="$TMP/tiny"
mkdir -p "$LIB/include" "$LIB/src" "$LIB/bench/suite"
# The default build: make -C SRC BUILD=DIR lib leaves DIR/libtiny.a.
printf '%s\n' 'BUILD ?= build' 'lib:' \
	'	mkdir -p $(BUILD)' \
	'	$(CC) -O2 -fPIC -Iinclude -c src/tiny.c -o $(BUILD)/tiny.o' \
	'	ar rcs $(BUILD)/libtiny.a $(BUILD)/tiny.o' > "$LIB/Makefile"
cat > "$LIB/include/tiny.h" <<'E'
#include <stddef.h>
typedef struct tiny_legacy { int unused; } tiny_legacy_t;
double tiny_sum(const double *x, size_t n);
E
cat > "$LIB/src/tiny.c" <<'E'
#include "tiny.h"
double tiny_sum(const double *x, size_t n)
{
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += x[i];
	return s;
}
E
cat > "$LIB/bench-versions.json" <<'E'
{"schema_version": 1, "name": "tiny", "dir": ".", "version": {"tag": ""}, "suite": "bench/suite"}
E
# The suite, one revision for every version: two files, compiled per
# version and merged into its plugin.
cat > "$LIB/bench/suite/suite.c" <<'E'
#include <bv_suite.h>
#include "tiny.h"

double tiny_suite_offset(void); /* extra.c */

typedef struct state {
	double *x, out;
	size_t n;
} state;

static int setup(bvs_ctx *c)
{
	size_t n = (size_t)bvs_param_int(c, "size");
	state *s = bvs_alloc(c, sizeof(*s));
	double *x = bvs_alloc(c, n * sizeof(double));
	if (!s || !x)
		return bvs_fail(c, "out of memory");
	for (size_t i = 0; i < n; i++)
		x[i] = bvs_uniform(c, -1, 1);
	s->x = x, s->n = n;
	bvs_set_state(c, s);
	bvs_work(c, 8.0 * n, (double)n, (double)n);
	return BVS_OK;
}

static int run_sum(bvs_ctx *c)
{
	state *s = bvs_state(c);
	s->out = tiny_sum(s->x, s->n) + tiny_suite_offset();
	return BVS_OK;
}

static int check_sum(bvs_ctx *c)
{
	state *s = bvs_state(c);
	bvs_output(c, &s->out, 1, BVS_F64);
	return BVS_OK;
}

#if !BVS_VERSION_LT(1, 1, 0)
static int run_scale(bvs_ctx *c)
{
	state *s = bvs_state(c);
	tiny_scale(s->x, s->n, 1.0);
	return BVS_OK;
}
#else
#define run_scale NULL /* tiny_scale is new in 1.1 */
#endif

static const bvs_benchmark benchmarks[] = {
	{.name = "total", .params = "size=16K", .setup = setup, .run = run_sum, .check = check_sum, .rel_tol = 1e-9},
	{.name = "rescale", .params = "size=16K", .setup = setup, .run = run_scale},
	{0},
};
BVS_SUITE("tiny", benchmarks)
E
cat > "$LIB/bench/suite/extra.c" <<'E'
#include <bv_suite.h>
#include "tiny.h"

double tiny_suite_offset(void) { return 0; }

#if !BVS_VERSION_LT(1, 2, 0)
static tiny_legacy_t legacy; /* gone in 1.2 */
#endif
E
git -C "$LIB" init -q -b main
git -C "$LIB" add -A
git -C "$LIB" commit -qm "tiny 1.0"
git -C "$LIB" tag 1.0
echo "void tiny_scale(double *x, size_t n, double a);" >> "$LIB/include/tiny.h"
cat >> "$LIB/src/tiny.c" <<'E'
void tiny_scale(double *x, size_t n, double a)
{
	for (size_t i = 0; i < n; i++)
		x[i] *= a;
}
E
git -C "$LIB" commit -qam "tiny 1.1: tiny_scale"
git -C "$LIB" tag 1.1
sed -i '/tiny_legacy/d' "$LIB/include/tiny.h"
git -C "$LIB" commit -qam "tiny 1.2: tiny_legacy_t is gone"
git -C "$LIB" tag 1.2
line=$(grep -n 'static tiny_legacy_t legacy' "$LIB/bench/suite/extra.c" | cut -d: -f1)

cd "$LIB"
unset KERNEL_DIR KERNEL_REPO BENCH_VERSIONS_COMPAT BENCH_VERSIONS_PROJECT BENCH_VERSIONS_OPS
timeout 300 "$BV" 1.0 1.1 1.2 --quick --results "$TMP/results" > "$TMP/out" 2> "$TMP/err"
rc=$?
check "1.0 1.1 1.2: exit 3, a version failed to build (exit $rc)" test $rc -eq 3
[ $rc -eq 3 ] || sed 's/^/#   /' "$TMP/err" | tail -30
check "1.0 and 1.1 built with the suite" test "$(grep -cE '^build: +1\.[01] +built' "$TMP/err")" -eq 2
check "1.2's build failed, naming the suite file and line of the first error" \
	contains "$TMP/err" "^build: 1\.2 +FAILED: the suite does not compile against this version: [^ ]*/bench/suite/extra\.c:$line: error: .*tiny_legacy_t"
# unchanged: any answer that is not a call, never slower or faster
check "the unchanged total is not called on 1.1" \
	bash -c "grep -qE '^tiny +total +default +16K +[0-9.]+ [nu]s +[0-9.]+ [nu]s +[01]\.[0-9]{3} \[[0-9.]+, [0-9.]+\] (same|inconclusive|unstable)' '$TMP/out' && ! grep -E '^tiny +total ' '$TMP/out' | grep -qE 'slower|faster'"
check "rescale, new in 1.1, is n/a on 1.0" contains "$TMP/out" "^tiny +rescale +default +16K +n/a +[0-9.]+ [nu]s +new"
check "1.2's column says build failed" contains "$TMP/out" "^tiny +total .* build failed"
grep -qE "^tiny +total .* same" "$TMP/out" && grep -qE "^tiny +rescale .* n/a" "$TMP/out" || sed 's/^/#   /' "$TMP/out"
run=$(ls -d "$TMP"/results/[0-9]*/ | head -1)
check "the merged description is the run's suite.json: both benchmarks, rescale runs (on 1.1)" python3 - "$run/suite.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
b = {x["name"]: x["runs"] for x in d["benchmarks"]}
sys.exit(not (d["suite"] == "tiny" and b == {"total": True, "rescale": True}))
PY
check "total was checked and ok on 1.1" python3 - "$run/1.1.json" <<'PY'
import json, sys
cells = {c["op"]: c["status"] for c in json.load(open(sys.argv[1]))["cells"]}
sys.exit(cells.get("total") != "ok")
PY

# The selection is checked once the suite is known (the builds are cached
# now, nothing is measured): its names pass, others are refused.
refused "an op the suite does not have" "unknown op 'totl'.*did you mean 'total'" 1.0 1.1 --quick --ops totl --results "$TMP/r2"
refused "a catalog group with a suite" "--benches unary: this project's builds hold its suite 'tiny' only" \
	1.0 1.1 --quick --benches unary --results "$TMP/r2"
"$BV" 1.0 1.1 --dry-run > "$TMP/dry" 2>&1
check "--dry-run says the suite's cells come after the builds" contains "$TMP/dry" "^cells: the suite's .*, known once the versions are built"
# A suite file edited: every version builds again (its key holds the suite).
echo "/* edited */" >> "$LIB/bench/suite/extra.c"
timeout 300 "$BV" 1.0 1.1 --quick --ops total --results "$TMP/r3" > "$TMP/out3" 2> "$TMP/err3"
rc=$?
check "--ops total (a suite name only) after an edit: exit 0 (exit $rc)" test $rc -eq 0
[ $rc -eq 0 ] || sed 's/^/#   /' "$TMP/err3" | tail -20
check "an edited suite rebuilds every version" test "$(grep -cE '^build: +1\.[01] +built' "$TMP/err3")" -eq 2
# ... its plugin only: each library comes from the cache
check "... relinking its plugin only: both libraries taken from the cache" \
	test "$(ls -t "$BENCH_VERSIONS_CACHE"/builds/*.log | head -2 | xargs grep -l 'library: taken from the cache' | wc -l)" -eq 2
check "--ops total selects total only" bash -c "grep -qE '^tiny +total ' '$TMP/out3' && ! grep -qE '^tiny +rescale ' '$TMP/out3'"
# A resume a suite project's run cannot take is refused before anything is
# built, with its own reason, as the catalog's is (test_hostile): it built
# every version first, then said "cannot open .../scaling_governor", the
# reason overwritten by the machine's description.
run3=$(ls -d "$TMP"/r3/[0-9]*/ | head -1)
run3=${run3%/}
builds_before=$(ls "$BENCH_VERSIONS_CACHE"/builds/*.log | wc -l)
cp -r "$run3" "$TMP/big" && printf '{}' > "$TMP/big/raw/process-2147483647.json"
refused "--resume of a suite's run with raw/process-2147483647.json" \
	"--resume: .*big/raw/process-2147483647\.json: process number past 100000000" \
	1.0 1.1 --quick --ops total --resume "$TMP/big"
check "... refused before building: no build line" bash -c "! grep -q '^build' '$TMP/err'"
cp -r "$run3" "$TMP/other-ops"
refused "--resume of a suite's run (--ops total) with --ops rescale" \
	"--resume .*other-ops: its cells differ from this command's .*1 there, 1 now" \
	1.0 1.1 --quick --ops rescale --resume "$TMP/other-ops"
check "... refused before building: no build line" bash -c "! grep -q '^build' '$TMP/err'"
refused "--resume of a suite's run (--ops total) with every op" \
	"--resume .*other-ops: its cells differ from this command's .*1 there, 2 now" \
	1.0 1.1 --quick --resume "$TMP/other-ops"
check "... refused before building: no build line" bash -c "! grep -q '^build' '$TMP/err'"
check "... and no build made by any of them" test "$(ls "$BENCH_VERSIONS_CACHE"/builds/*.log | wc -l)" -eq "$builds_before"
"$BV" 1.0 1.1 --quick --ops total --resume "$TMP/other-ops" > /dev/null 2> "$TMP/err"
check "the same run resumed with its own selection: exit 0 (exit $?), every cell reused" \
	contains "$TMP/err" "^resume: .*other-ops: 1 of 1 cell reused"
# A run in the library's checkout, no --results: its results are the
# project's (.bench-versions/results), none in this tool's results/; the
# suite's bvs_work reaches the logs, and --units rate prints rates.
"$BV" list benches > "$TMP/list0" 2>&1
check "list benches before any run here: the suite, not the bundled catalog" \
	bash -c "grep -q 'suite in $LIB/bench/suite' '$TMP/list0' && ! grep -q '^unary' '$TMP/list0'"
ls "$ROOT/results" > "$TMP/ours.before" 2> /dev/null
timeout 300 "$BV" 1.0 1.1 --quick --ops total --units rate --counts none > "$TMP/out4" 2> "$TMP/err4"
check "a run without --results: exit 0" test $? -eq 0
check "... its results in the library's checkout" test -f "$LIB/.bench-versions/results/latest/1.1.json"
ls "$ROOT/results" > "$TMP/ours.after" 2> /dev/null
check "... nothing new in the tool's own results/" cmp -s "$TMP/ours.before" "$TMP/ours.after"
check "bvs_work's bytes, flops and items in the log" python3 - "$LIB/.bench-versions/results/latest/1.1.json" <<'PY'
import json, sys
c = [c for c in json.load(open(sys.argv[1]))["cells"] if c["op"] == "total"][0]
sys.exit(0 if c["work"] == {"bytes": 8 * 16384, "flops": 16384, "items": 16384} and c.get("gbps", 0) > 0 else 1)
PY
# Counting under Valgrind says how far it is and how long is left, in a
# log too (stderr no terminal): a line once the first call is done (an
# estimate), then every BENCH_VERSIONS_PROGRESS_SECONDS (here the default).
timeout 600 "$BV" 1.0 1.1 --quick --counts all --results "$TMP/r5" > "$TMP/out5" 2> "$TMP/err5"
check "--counts all: exit 0" test $? -eq 0
check "... progress lines while counting, with what is left" \
	contains "$TMP/err5" "^counts: [0-9]+ of [0-9]+ calls under Valgrind, [0-9]+ running \([0-9]+s, about [0-9]+s left\)$"
grep -E "^counts: " "$TMP/err5" | sed 's/^/#   /'
"$BV" list benches > "$TMP/list1" 2>&1
check "list benches after a run: the suite's benchmarks and parameters" \
	bash -c "grep -qx '  ops: total rescale' '$TMP/list1' && grep -q '^  total: size=16K' '$TMP/list1' && ! grep -q '^unary' '$TMP/list1'"
sed 's/^/#   /' "$TMP/list1"
check "--units rate prints a suite cell's rate, not its time" contains "$TMP/out4" "^tiny +total +default +16K +[0-9.]+ (GB|GFLOP)/s +[0-9.]+ (GB|GFLOP)/s "
grep -qE "^tiny +total .*/s " "$TMP/out4" || sed 's/^/#   /' "$TMP/out4"
finish
