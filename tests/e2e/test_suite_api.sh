#!/usr/bin/env bash
# End to end, bv_suite.h's API 1.1 (docs/suites.md, "API versions") on the
# harness side, without the orchestrator: plugins compiled as
# orchestrator/build/build.c compiles a suite's (each file apart, merged with
# cc -r, linked with the version's library), then bv-runner --describe and
# a measuring run.  The API's version macros; the header's own example,
# compiled; a suite of two files registering benchmarks with BVS_BENCHMARK
# beside a 1.0 array, with init and fini, typed statuses, bvs_param_ll, a
# typo'd parameter, a reason said from a thread, a benchmark only version 2
# has (compiled out of 1: n/a); bvs_do_not_optimize keeping a pure call;
# and suites built against other versions of the header (1.0 loads; 1.2 and
# 2.0 are refused, naming both versions).
source "$(dirname "$0")/lib.sh"
RUNNER="$ROOT/${BV_BIN_DIR:-bin}/bv-runner"
H="$ROOT/harness/plugin" # the suite runtime and bv_suite.h
W="$TMP/api"
mkdir -p "$W"
CFLAGS="-std=c11 -O2 -fPIC -shared" # orchestrator/build/build.c's plugin_cflags

# ---- the header ----------------------------------------------------------------
cat > "$W/version.c" <<'C'
#include <bv_suite.h>
#if BVS_API_VERSION_MAJOR != 1 || BVS_API_VERSION_MINOR != 1
#error "bv_suite.h is not API 1.1"
#endif
/* the library's version, a separate thing, is still the build's */
#if BVS_VERSION_LT(3, 0, 0) || !BVS_VERSION_LT(3, 0, 1)
#error "BVS_VERSION_LT"
#endif
_Static_assert(BVS_API_VERSION == 0x10001, "BVS_SUITE writes major << 16 | minor");
C
check "bv_suite.h says API 1.1 (BVS_API_VERSION_MAJOR/_MINOR), beside the library's BVS_VERSION_*" \
	cc -std=c11 -I"$H" -DBVS_VERSION_MAJOR=3 -DBVS_VERSION_MINOR=0 -DBVS_VERSION_PATCH=0 -fsyntax-only "$W/version.c"

# The header's example, between its markers, compiles as written (warnings
# are errors) and describes its one benchmark.
sed -n '/^ \* ---- example (/,/^ \* ---- end of the example ----$/p' "$H/bv_suite.h" | sed '1d;$d' |
	sed -E 's/^ \*( {5})?//' > "$W/example.c"
check "bv_suite.h has an example between its markers" grep -q 'BVS_SUITE(' "$W/example.c"
printf '%s\n' '#include <stddef.h>' 'void mylib_exp(const double *x, double *y, size_t n);' > "$W/mylib.h"
printf '%s\n' '#include <math.h>' '#include "mylib.h"' \
	'void mylib_exp(const double *x, double *y, size_t n) { for (size_t i = 0; i < n; i++) y[i] = exp(x[i]); }' \
	> "$W/mylib.c"
example() { # the example's warnings are errors, the runtime's are not its
	local v="-DBVS_VERSION_MAJOR=1 -DBVS_VERSION_MINOR=0 -DBVS_VERSION_PATCH=0"
	cc $CFLAGS -Wall -Wextra -Werror -I"$H" -I"$W" $v -c "$W/example.c" -o "$W/example.o" 2> "$W/example.err" &&
		cc $CFLAGS -I"$H" $v -o "$W/example.so" "$H/suite_plugin.c" "$W/example.o" "$W/mylib.c" -lm \
			2>> "$W/example.err" &&
		"$RUNNER" --describe --out "$W/example.json" 1.0.0="$W/example.so" 2>> "$W/example.err" &&
		python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["versions"]["1.0.0"]
sys.exit(0 if d["suite"] == "mylib" and [b["name"] for b in d["benchmarks"]] == ["exp"] else 1)' "$W/example.json"
}
check "bv_suite.h's example compiles with -Wall -Wextra -Werror and describes mylib/exp" example
sed 's/^/#   /' "$W/example.err"

# ---- a library, two versions ------------------------------------------------------
cat > "$W/tl.h" <<'C'
#include <stddef.h>
double tl_sum(const double *x, size_t n);
/* pure: a call whose result nothing reads may be deleted */
double tl_norm(const double *x, size_t n) __attribute__((pure));
void tl_scale(double *y, const double *x, size_t n, double a);
#if TL_VERSION >= 2
double tl_max(const double *x, size_t n);
#endif
C
for v in 1 2; do
	cat > "$W/tl$v.c" <<C
#include <math.h>
#define TL_VERSION $v
#include "tl.h"
double tl_sum(const double *x, size_t n) { double s = 0; for (size_t i = 0; i < n; i++) s += x[i]; return s; }
double tl_norm(const double *x, size_t n) { double s = 0; for (size_t i = 0; i < n; i++) s += x[i] * x[i]; return sqrt(s); }
void tl_scale(double *y, const double *x, size_t n, double a) { for (size_t i = 0; i < n; i++) y[i] = a * x[i]; }
#if TL_VERSION >= 2
double tl_max(const double *x, size_t n) { double m = x[0]; for (size_t i = 1; i < n; i++) m = x[i] > m ? x[i] : m; return m; }
#endif
C
done

# ---- the suite: two files ---------------------------------------------------------
cat > "$W/api.h" <<'C'
#include <stddef.h>
typedef struct st { double *x, *y, out; size_t n; } st;
bvs_status api_setup(bvs_ctx *c); /* a.c; b.c's benchmarks use it too */
C
cat > "$W/a.c" <<'C'
/* API 1.1 as a suite writes it: typed statuses, bvs_param_ll, BVS_BENCHMARK
 * beside a 1.0 array, init and fini, bvs_do_not_optimize. */
#include <bv_suite.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define TL_VERSION BVS_VERSION_MAJOR
#include "tl.h"
#include "api.h"

_Static_assert(BVS_SKIPPED == BVS_SKIP && BVS_FAILED == BVS_FAIL, "1.0's names are the same statuses");
_Static_assert(sizeof(bvs_status) == sizeof(int), "a status is an int");

/* init and fini, each a line in $API_LOG: "VERSION init" */
static int inited;
static void note(const char *what)
{
	const char *path = getenv("API_LOG");
	FILE *f = path ? fopen(path, "a") : NULL;
	if (f)
		fprintf(f, "%d %s\n", BVS_VERSION_MAJOR, what), fclose(f);
}
static bvs_status init(void)
{
	inited = 1;
	note("init");
	return BVS_OK;
}
static void fini(void)
{
	inited = 0;
	note("fini");
}

bvs_status api_setup(bvs_ctx *c)
{
	long long n;
	bvs_status s = bvs_param_ll(c, "size", &n);
	if (s != BVS_OK)
		return s;
	if (!inited)
		return bvs_fail(c, "init did not run before setup");
	st *p = bvs_alloc(c, sizeof(st));
	double *x = bvs_alloc(c, (size_t)n * sizeof(double)), *y = bvs_alloc(c, (size_t)n * sizeof(double));
	if (!p || !x || !y)
		return bvs_fail(c, "out of memory");
	for (long long i = 0; i < n; i++)
		x[i] = bvs_uniform(c, -1, 1);
	*p = (st){x, y, 0, (size_t)n};
	bvs_set_state(c, p);
	return BVS_OK;
}

/* 1.0's style: int, in the array */
static int arr_run(bvs_ctx *c)
{
	st *s = bvs_state(c);
	s->out = tl_sum(s->x, s->n);
	return BVS_OK;
}
static const bvs_benchmark benchmarks[] = {
	{.name = "arr", .params = "size=1K", .setup = api_setup, .run = arr_run},
	{0},
};
BVS_SUITE("api", benchmarks, .init = init, .fini = fini)

static bvs_status sum_run(bvs_ctx *c)
{
	st *s = bvs_state(c);
	s->out = tl_sum(s->x, s->n);
	return BVS_OK;
}
BVS_BENCHMARK(sum, .params = "size=1K", .setup = api_setup, .run = sum_run)

/* The result goes nowhere: without bvs_do_not_optimize the pure call goes. */
static bvs_status keep_run(bvs_ctx *c)
{
	st *s = bvs_state(c);
	double r = tl_norm(s->x, s->n);
#ifdef DROP_KEEP
	(void)r;
#else
	bvs_do_not_optimize(&r);
#endif
	bvs_clobber();
	return BVS_OK;
}
BVS_BENCHMARK(keep, .params = "size=1K", .setup = api_setup, .run = keep_run)

/* A typo: "sise".  1.0's bvs_param_int said -1, and the setup ran on. */
static bvs_status typo_setup(bvs_ctx *c)
{
	bvs_status s = api_setup(c);
	long long n = bvs_param_int(c, "sise");
	(void)n;
	return s;
}
BVS_BENCHMARK(typo, .params = "size=1K", .setup = typo_setup, .run = sum_run)
/* and in run: "levle", NULL in 1.0 */
static bvs_status typo_in_run_run(bvs_ctx *c)
{
	st *s = bvs_state(c);
	s->out = bvs_param(c, "levle") ? 1 : 0;
	return BVS_OK;
}
BVS_BENCHMARK(typo_in_run, .params = "size=1K", .setup = api_setup, .run = typo_in_run_run)

/* A value that is no number, read by a setup that ignores the status: the
 * cell fails all the same.  -3 is a number. */
static bvs_status badnum_setup(bvs_ctx *c)
{
	long long level = 7;
	bvs_param_ll(c, "level", &level);
	if (!strcmp(bvs_param(c, "level"), "-3") && level != -3)
		return bvs_fail(c, "level -3 read as %lld", level);
	return api_setup(c);
}
BVS_BENCHMARK(badnum, .params = "size=1K level=fast,-3", .setup = badnum_setup, .run = sum_run)

/* The reason said from a thread of the suite's own. */
static void *probe(void *c)
{
	bvs_skip(c, "the worker thread found no device");
	return NULL;
}
static bvs_status worker_setup(bvs_ctx *c)
{
	pthread_t t;
	if (pthread_create(&t, NULL, probe, c))
		return bvs_fail(c, "pthread_create failed");
	pthread_join(t, NULL);
	return BVS_SKIP;
}
BVS_BENCHMARK(worker, .params = "size=1K", .setup = worker_setup, .run = sum_run)
C
cat > "$W/b.c" <<'C'
/* The suite's second file: its own benchmarks, one of them only where the
 * library has tl_max (2.0.0): absent, n/a, before. */
#include <bv_suite.h>
#define TL_VERSION BVS_VERSION_MAJOR
#include "tl.h"
#include "api.h"

static bvs_status scale_run(bvs_ctx *c)
{
	st *s = bvs_state(c);
	tl_scale(s->y, s->x, s->n, 2);
	return BVS_OK;
}
BVS_BENCHMARK(scale, .params = "size=1K", .setup = api_setup, .run = scale_run)

#if !BVS_VERSION_LT(2, 0, 0)
static bvs_status newer_run(bvs_ctx *c)
{
	st *s = bvs_state(c);
	s->out = tl_max(s->x, s->n);
	return BVS_OK;
}
BVS_BENCHMARK(newer, .params = "size=1K", .setup = api_setup, .run = newer_run)
#endif
C

# build OUT.so VERSION FILE...: as orchestrator/build/build.c builds a suite's
# plugin: harness/plugin/suite_plugin.c and each suite file compiled apart (the
# suite's with warnings as errors), merged by cc -r, linked with the
# version's library.
build() {
	local out=$1 v=$2 objs=() i=0 f warn
	shift 2
	: > "$W/cc.err"
	for f in "$H/suite_plugin.c" "$@"; do
		warn="-Wall -Wextra -Werror"
		[ "$f" = "$H/suite_plugin.c" ] && warn=
		cc $CFLAGS $warn -pthread -I"$H" -I"$W" -DBVS_VERSION_MAJOR="$v" -DBVS_VERSION_MINOR=0 \
			-DBVS_VERSION_PATCH=0 -c "$f" -o "$out.$i.o" 2>> "$W/cc.err" || return 1
		objs+=("$out.$i.o")
		i=$((i + 1))
	done
	cc -r -nostdlib -o "$out.o" "${objs[@]}" 2>> "$W/cc.err" &&
		cc $CFLAGS -pthread -o "$out" "$out.o" "$W/tl$v.c" -lm 2>> "$W/cc.err"
}
check "version 1's plugin builds from two files (-Wall -Wextra -Werror)" build "$W/p1.so" 1 "$W/a.c" "$W/b.c"
sed 's/^/#   /' "$W/cc.err"
check "version 2's plugin builds" build "$W/p2.so" 2 "$W/a.c" "$W/b.c"
sed 's/^/#   /' "$W/cc.err"
# BVS_BENCHMARK's registry is each plugin's own: nothing of it exported.
check "the registration (bvs_register_) is hidden in the plugin" \
	bash -c "nm -D --defined-only '$W/p1.so' | grep -q ' bv_plugin_get\$' && ! nm -D '$W/p1.so' | grep -q bvs_register_"

# bvs_do_not_optimize keeps the pure call whose result nothing reads; the
# same file without it loses the call (so this check can tell).
cc $CFLAGS -I"$H" -I"$W" -DBVS_VERSION_MAJOR=1 -DBVS_VERSION_MINOR=0 -DBVS_VERSION_PATCH=0 -c "$W/a.c" \
	-o "$W/keep.o" 2> /dev/null
cc $CFLAGS -I"$H" -I"$W" -DBVS_VERSION_MAJOR=1 -DBVS_VERSION_MINOR=0 -DBVS_VERSION_PATCH=0 -DDROP_KEEP \
	-c "$W/a.c" -o "$W/drop.o" 2> /dev/null
check "bvs_do_not_optimize(&r): the pure call tl_norm stays in the -O2 object" \
	bash -c "nm -u '$W/keep.o' | grep -qw tl_norm"
check "... and without it the compiler deletes the call (the check can fail)" \
	bash -c "[ -s '$W/drop.o' ] && ! nm -u '$W/drop.o' | grep -qw tl_norm"

# ---- --describe: every file's benchmarks, in order ------------------------------------
"$RUNNER" --describe --out "$W/desc.json" 1.0.0="$W/p1.so" 2.0.0="$W/p2.so" 2> "$W/describe.err"
check "--describe: exit 0" test $? -eq 0
sed 's/^/#   /' "$W/describe.err"
listed() { # LABEL NAME...: the version's benchmarks, in order
	python3 - "$W/desc.json" "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["versions"][sys.argv[2]]
got = [b["name"] for b in d["benchmarks"]]
if got != sys.argv[3:]: print("#   got", got)
sys.exit(0 if got == sys.argv[3:] else 1)
PY
}
A="arr sum keep typo typo_in_run badnum worker"
# shellcheck disable=SC2086
check "1.0.0 lists the array's, then a.c's and b.c's BVS_BENCHMARK lines, in order" listed 1.0.0 $A scale
# shellcheck disable=SC2086
check "2.0.0 lists newer too (compiled out of 1.0.0)" listed 2.0.0 $A scale newer

# Two files registering one name: the suite is refused, naming it.
cat > "$W/dup.c" <<'C'
#include <bv_suite.h>
#include "api.h"
static bvs_status run(bvs_ctx *c) { (void)c; return BVS_OK; }
BVS_BENCHMARK(scale, .params = "size=1K", .setup = api_setup, .run = run)
C
check "a suite with scale in two files builds" build "$W/dup.so" 1 "$W/a.c" "$W/b.c" "$W/dup.c"
"$RUNNER" --describe --out "$W/dup.json" 1.0.0="$W/p1.so" twice="$W/dup.so" 2> "$W/dup.err"
check "--describe of it: exit 3" test $? -eq 3
check "... naming the version, suite and benchmark" contains "$W/dup.err" "twice: .*suite api: benchmark 'scale' defined twice"

# ---- measuring -----------------------------------------------------------------
suite_merge_helper "$W"
check "the descriptions merge" "$W/merge" "$W/desc.json" "$W/suite.json" 1.0.0 2.0.0
hash=$(suite_file_hash "$W/suite.json")
export API_LOG="$W/init.log"
"$RUNNER" --out "$W/run.json" --rounds 3 --sample-us 200 --timeout 60 --suite-file "$W/suite.json" \
	--suite-hash "$hash" --benches api 1.0.0="$W/p1.so" 2.0.0="$W/p2.so" 2> "$W/run.err"
check "bv-runner on the suite: exit 0" test $? -eq 0
sed 's/^/#   /' "$W/run.err" | tail -20
unset API_LOG
# is OP LABEL PATTERN: the cell's "status|reason" for the version matches
is() {
	local got
	got=$(python3 - "$W/run.json" "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["cells"]:
    if c["op"] == sys.argv[2]:
        for v in c["versions"]:
            if v["label"] == sys.argv[3]:
                print(v["status"] + "|" + v.get("reason", ""))
PY
)
	echo "$got" | grep -qE -- "$3" || { echo "#   $1 $2: $got"; return 1; }
}
for l in 1.0.0 2.0.0; do
	for op in arr sum keep scale 'badnum[level=-3]'; do
		check "$op, $l: ok (init ran before its setup; -3 is a number)" is "$op" $l '^ok\|$'
	done
	check "typo, $l: failed, naming the benchmark, the typo and what it declares" is typo $l \
		"^failed\|benchmark 'typo' reads parameter 'sise', which its params do not declare \(declared: size\)\$"
	check "typo_in_run, $l: failed, read in run" is typo_in_run $l \
		"^failed\|benchmark 'typo_in_run' reads parameter 'levle', which its params do not declare \(declared: size\)\$"
	check "badnum[level=fast], $l: failed though setup went on, naming the benchmark, parameter and value" \
		is 'badnum[level=fast]' $l "^failed\|benchmark 'badnum' reads parameter 'level' as a number, but its value 'fast' is none"
	check "worker, $l: skipped, with the reason its thread gave" is worker $l '^skipped\|the worker thread found no device$'
done
check "newer, 1.0.0: n/a (its BVS_BENCHMARK compiled out)" is newer 1.0.0 '^n/a\|'
check "newer, 2.0.0: ok" is newer 2.0.0 '^ok\|$'

# A version before the suite's first benchmark (every BVS_BENCHMARK
# compiled out of it) describes none: its cells are n/a, and the run goes
# on with the versions that have them.
cat > "$W/empty.c" <<'C'
#include <bv_suite.h>
#if !BVS_VERSION_LT(1, 0, 0)
static bvs_status run(bvs_ctx *c) { (void)c; return BVS_OK; }
BVS_BENCHMARK(scale, .params = "size=1K", .run = run)
#endif
BVS_SUITE("api")
C
cp "$W/tl1.c" "$W/tl0.c" # its library: version 1's
check "a version with every benchmark compiled out builds" build "$W/p0.so" 0 "$W/empty.c"
sed 's/^/#   /' "$W/cc.err"
"$RUNNER" --describe --out "$W/desc0.json" 0.9.0="$W/p0.so" 1.0.0="$W/p1.so" 2> "$W/describe0.err"
check "--describe with it: exit 0" test $? -eq 0
sed 's/^/#   /' "$W/describe0.err"
check "... and the descriptions merge" "$W/merge" "$W/desc0.json" "$W/suite0.json" 0.9.0 1.0.0
hash0=$(suite_file_hash "$W/suite0.json")
"$RUNNER" --out "$W/run0.json" --rounds 3 --sample-us 200 --timeout 60 --suite-file "$W/suite0.json" \
	--suite-hash "$hash0" --benches api --ops scale 0.9.0="$W/p0.so" 1.0.0="$W/p1.so" 2> "$W/run0.err"
check "bv-runner with it: exit 0" test $? -eq 0
sed 's/^/#   /' "$W/run0.err" | tail -5
cp "$W/run.json" "$W/run-all.json" && cp "$W/run0.json" "$W/run.json"
check "scale, 0.9.0 (no benchmark compiled in): n/a" is scale 0.9.0 '^n/a\|'
check "scale, 1.0.0 beside it: ok" is scale 1.0.0 '^ok\|$'
cp "$W/run-all.json" "$W/run.json"
# init before the first cell a process opens, fini after the last it closes:
# per version, the lines alternate, starting with init, and end with fini.
check "init and fini: each process's init, then its fini, for both versions" python3 - "$W/init.log" <<'PY'
import sys
lines = [l.split() for l in open(sys.argv[1])]
for v in ("1", "2"):
    seq = [w for ver, w in lines if ver == v]
    ok = len(seq) >= 2 and seq == ["init", "fini"] * (len(seq) // 2)
    if not ok: print("#   version", v, seq[:12])
    if not ok: sys.exit(1)
PY

# ---- suites built against other versions of the header ------------------------
# A suite as bv_suite.h 1.0 compiled it: {abi = 1, name, benchmarks}, three
# members, and int-returning calls; written out by hand (this header is
# 1.1).  ABI is the version field as each header writes it.
cat > "$W/old.c" <<'C'
#include <stddef.h>
typedef struct bvs_ctx bvs_ctx;
typedef struct bench10 {
	const char *name, *params, *variant;
	int (*setup)(bvs_ctx *c);
	int (*run)(bvs_ctx *c);
	int (*check)(bvs_ctx *c);
	void (*teardown)(bvs_ctx *c);
	double max_ulp, rel_tol;
} bench10;
long long bvs_param_int(const bvs_ctx *c, const char *name);
static int run(bvs_ctx *c) { return bvs_param_int(c, "size") == 1024 ? 0 : 3; }
static const bench10 benchmarks[] = {{"old", "size=1K", NULL, NULL, run, NULL, NULL, 0, 0}, {0}};
const struct suite10 { int abi; const char *name; const bench10 *benchmarks; } bvs_suite_def = {ABI, "old", benchmarks};
C
old() { # OUT.so ABI
	cc $CFLAGS -I"$H" -DABI="$2" -o "$1" "$H/suite_plugin.c" "$W/old.c" -lm 2> "$W/cc.err"
}
check "a 1.0 suite object builds" old "$W/old10.so" 1
check "a 1.2 suite object builds" old "$W/old12.so" '(1 << 16 | 2)'
check "a 2.0 suite object builds" old "$W/old20.so" '(2 << 16)'
"$RUNNER" --describe --out "$W/old.json" 1.0.0="$W/old10.so" 2> "$W/old.err"
check "bv_suite.h 1.0's suite loads: --describe exit 0" test $? -eq 0
check "... and lists its benchmark" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["versions"]["1.0.0"]
sys.exit(0 if d["suite"] == "old" and [b["name"] for b in d["benchmarks"]] == ["old"] else 1)' "$W/old.json"
"$W/merge" "$W/old.json" "$W/old-suite.json" 1.0.0
"$RUNNER" --out "$W/old-run.json" --rounds 2 --sample-us 200 --timeout 60 --suite-file "$W/old-suite.json" \
	--suite-hash "$(suite_file_hash "$W/old-suite.json")" --benches old 1.0.0="$W/old10.so" 2> "$W/old-run.err"
check "... and its cell measures: ok" python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["cells"]
sys.exit(0 if [(x["op"], x["versions"][0]["status"]) for x in c] == [("old", "ok")] else 1)' "$W/old-run.json"
for v in 1.2 2.0; do
	"$RUNNER" --describe --out "$W/new.json" 1.0.0="$W/old10.so" "built$v=$W/old${v/./}.so" 2> "$W/new.err"
	check "a suite built against bv_suite.h $v: --describe exit 3" test $? -eq 3
	check "... naming the version, the suite and both API versions" contains "$W/new.err" \
		"built$v: the suite: suite 'old' was built against bv_suite.h $v; this harness loads 1\.1 "
	sed 's/^/#   /' "$W/new.err"
done
finish
