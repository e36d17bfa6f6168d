#!/usr/bin/env bash
# End to end, the harness side of benchmark suites (harness/plugin/bv_suite.h,
# docs/suites-design.md) without the orchestrator: a tiny library in two
# versions and a suite, compiled against each as bench-versions would
# (harness/plugin/suite_plugin.c + the suite, -DBVS_VERSION_*, linked with that
# version's library); bv-runner --describe on both; their descriptions
# merged by bv_suite_desc_merge (a small helper); bv-runner measuring the
# merged suite with --suite-file/--suite-hash.  The cells: a double-precision
# function with a variant (ok in both), one whose output moved past its
# tolerance in version 2 against a reference (wrong result, naming the
# element) and one with no reference (wrong result against version 1's
# output), a benchmark only version 2 has (n/a in 1), a setup that crashes
# (that cell alone), a byte compressor with a level (u8 output, its work),
# and a broken suite (--describe exit 3 naming the version).
source "$(dirname "$0")/lib.sh"
RUNNER="$ROOT/${BV_BIN_DIR:-bin}/bv-runner"
H="$ROOT/harness/plugin" # the suite runtime and bv_suite.h
W="$TMP/suite"
mkdir -p "$W"

# ---- the library, two versions -----------------------------------------
cat > "$W/tl.h" <<'C'
#include <stddef.h>
#include <stdint.h>
double tl_exp(double x);
void tl_scale(double *y, const double *x, size_t n);
size_t tl_pack(uint8_t *out, const uint8_t *in, size_t n, int level);
#if TL_VERSION >= 2
double tl_cube(double x);
#endif
void tl_ulps_d(double *y, const double *x, size_t n, int k);
void tl_ulps_f(float *y, const float *x, size_t n, int k);
C
for v in 1 2; do
	cat > "$W/tl$v.c" <<C
#include <math.h>
#define TL_VERSION $v
#include "tl.h"
double tl_exp(double x) { return exp(x); }
/* version 2 adds a little: past any tolerance of 0 ulp */
void tl_scale(double *y, const double *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		y[i] = 2 * x[i] + (TL_VERSION == 2 && i >= 17 ? 1e-3 : 0);
}
/* run-length bytes: level 9 looks further (the same output here) */
size_t tl_pack(uint8_t *out, const uint8_t *in, size_t n, int level)
{
	size_t o = 0;
	for (size_t i = 0; i < n;) {
		size_t r = 1;
		while (i + r < n && in[i + r] == in[i] && r < (level > 5 ? 255u : 16u))
			r++;
		out[o++] = (uint8_t)r, out[o++] = in[i];
		i += r;
	}
	return o;
}
#if TL_VERSION >= 2
double tl_cube(double x) { return x * x * x; }
#endif
/* y = x, but element 3 one ulp below it (a 1-ulp result, as a math
 * library's); version 2 moves it k ulps further down */
void tl_ulps_d(double *y, const double *x, size_t n, int k)
{
	for (size_t i = 0; i < n; i++)
		y[i] = x[i];
	y[3] = nextafter(x[3], -INFINITY);
	for (int j = 0; TL_VERSION == 2 && j < k; j++)
		y[3] = nextafter(y[3], -INFINITY);
}
void tl_ulps_f(float *y, const float *x, size_t n, int k)
{
	for (size_t i = 0; i < n; i++)
		y[i] = x[i];
	y[3] = nextafterf(x[3], -INFINITY);
	for (int j = 0; TL_VERSION == 2 && j < k; j++)
		y[3] = nextafterf(y[3], -INFINITY);
}
C
done

# ---- the suite -----------------------------------------------------------
cat > "$W/suite.c" <<'C'
#include <bv_suite.h>
#include <math.h>
#include <string.h>
#define TL_VERSION BVS_VERSION_MAJOR
#include "tl.h"

typedef struct st { double *x, *y; size_t n; uint8_t *in, *out; size_t packed; } st;

static int setup_x(bvs_ctx *c)
{
	st *s = bvs_alloc(c, sizeof(st));
	long long n = bvs_param_int(c, "size");
	if (!s || n < 1)
		return bvs_fail(c, "size %lld", n);
	s->n = (size_t)n;
	s->x = bvs_alloc(c, s->n * sizeof(double));
	s->y = bvs_alloc(c, s->n * sizeof(double));
	if (!s->x || !s->y)
		return bvs_fail(c, "out of memory");
	for (size_t i = 0; i < s->n; i++)
		s->x[i] = bvs_uniform(c, -2, 2);
	bvs_set_state(c, s);
	bvs_work(c, 16.0 * (double)n, 20.0 * (double)n, (double)n);
	return BVS_OK;
}

static int run_exp(bvs_ctx *c)
{
	st *s = bvs_state(c);
	for (size_t i = 0; i < s->n; i++)
		s->y[i] = tl_exp(s->x[i]);
	return BVS_OK;
}
static int check_exp(bvs_ctx *c)
{
	st *s = bvs_state(c);
	double *want = bvs_alloc(c, s->n * sizeof(double));
	for (size_t i = 0; i < s->n; i++)
		want[i] = exp(s->x[i]);
	bvs_output(c, s->y, s->n, BVS_F64);
	bvs_reference(c, want, s->n);
	return BVS_OK;
}

static int run_scale(bvs_ctx *c)
{
	st *s = bvs_state(c);
	tl_scale(s->y, s->x, s->n);
	return BVS_OK;
}
static int check_scale(bvs_ctx *c)
{
	st *s = bvs_state(c);
	double *want = bvs_alloc(c, s->n * sizeof(double));
	for (size_t i = 0; i < s->n; i++)
		want[i] = 2 * s->x[i];
	bvs_output(c, s->y, s->n, BVS_F64);
	bvs_reference(c, want, s->n);
	return BVS_OK;
}
/* the same call, no reference: only the comparison between versions */
static int check_drift(bvs_ctx *c)
{
	st *s = bvs_state(c);
	bvs_output(c, s->y, s->n, BVS_F64);
	return BVS_OK;
}

#if !BVS_VERSION_LT(2, 0, 0)
static int run_cube(bvs_ctx *c)
{
	st *s = bvs_state(c);
	for (size_t i = 0; i < s->n; i++)
		s->y[i] = tl_cube(s->x[i]);
	return BVS_OK;
}
#endif

static int setup_crash(bvs_ctx *c)
{
	(void)c;
	*(volatile int *)(uintptr_t)8 = 1;
	return BVS_OK;
}
static int run_nothing(bvs_ctx *c) { (void)c; return BVS_OK; }

static int setup_pack(bvs_ctx *c)
{
	st *s = bvs_alloc(c, sizeof(st));
	s->n = (size_t)bvs_param_int(c, "size");
	s->in = bvs_alloc(c, s->n);
	s->out = bvs_alloc(c, 2 * s->n);
	for (size_t i = 0; i < s->n; i++)
		s->in[i] = (uint8_t)(bvs_random(c) % 3 == 0 ? 7 : i / 64);
	bvs_set_state(c, s);
	bvs_work(c, (double)s->n, 0, 0);
	return BVS_OK;
}
static int run_pack(bvs_ctx *c)
{
	st *s = bvs_state(c);
	s->packed = tl_pack(s->out, s->in, s->n, (int)bvs_param_int(c, "level"));
	return BVS_OK;
}
static int check_pack(bvs_ctx *c)
{
	st *s = bvs_state(c);
	bvs_output(c, s->out, s->packed, BVS_U8);
	return BVS_OK;
}

/* ulps: the exactness of both checks to the last bit.  Element 3 is a
 * double whose bit pattern, made a double itself, rounds to a multiple of
 * 512: its neighbour once read 512 ulps away, and 1..9 ulps read 0. */
typedef struct ust { void *x, *y; size_t n; int f32, k; } ust;
static int setup_ulps(bvs_ctx *c)
{
	ust *s = bvs_alloc(c, sizeof(ust));
	s->n = 64, s->f32 = !strcmp(bvs_param(c, "type"), "f32"), s->k = (int)bvs_param_int(c, "k");
	s->x = bvs_alloc(c, s->n * sizeof(double)), s->y = bvs_alloc(c, s->n * sizeof(double));
	for (size_t i = 0; i < s->n; i++) {
		double v = i == 3 ? -0x1.47dfeb01aeeffp-2 : bvs_uniform(c, -1, -0.25);
		if (s->f32)
			((float *)s->x)[i] = (float)v;
		else
			((double *)s->x)[i] = v;
	}
	bvs_set_state(c, s);
	/* pertype: one setup for several benchmarks, asking which; a float
	 * accepts 8 ulps, a double 1 (its .max_ulp says 0) */
	if (!strcmp(bvs_benchmark_name(c), "pertype"))
		bvs_tolerance(c, s->f32 ? 8 : 1, 0);
	return BVS_OK;
}
static int run_ulps(bvs_ctx *c)
{
	ust *s = bvs_state(c);
	if (s->f32)
		tl_ulps_f(s->y, s->x, s->n, s->k);
	else
		tl_ulps_d(s->y, s->x, s->n, s->k);
	return BVS_OK;
}
static int check_ulps_noref(bvs_ctx *c)
{
	ust *s = bvs_state(c);
	bvs_output(c, s->y, s->n, s->f32 ? BVS_F32 : BVS_F64);
	return BVS_OK;
}
static int check_ulps(bvs_ctx *c)
{
	ust *s = bvs_state(c);
	double *want = bvs_alloc(c, s->n * sizeof(double));
	for (size_t i = 0; i < s->n; i++)
		want[i] = s->f32 ? ((float *)s->x)[i] : ((double *)s->x)[i];
	bvs_reference(c, want, s->n);
	return check_ulps_noref(c);
}

static const bvs_benchmark benchmarks[] = {
	{.name = "exp", .params = "size=1K,4K variant=plain,again", .setup = setup_x, .run = run_exp,
	 .check = check_exp, .max_ulp = 1},
	{.name = "scale", .params = "size=256", .setup = setup_x, .run = run_scale, .check = check_scale},
	{.name = "drift", .params = "size=256", .setup = setup_x, .run = run_scale, .check = check_drift},
#if !BVS_VERSION_LT(2, 0, 0)
	{.name = "cube", .params = "size=1K", .setup = setup_x, .run = run_cube},
#endif
	{.name = "crash", .params = "size=1K", .setup = setup_crash, .run = run_nothing},
	{.name = "pack", .params = "size=4K level=1,9", .setup = setup_pack, .run = run_pack, .check = check_pack},
	{.name = "ulps", .params = "size=64 type=f64,f32 k=1,2,8", .setup = setup_ulps, .run = run_ulps,
	 .check = check_ulps, .max_ulp = 1},
	{.name = "ulps_noref", .params = "size=64 type=f64,f32 k=1,2,8", .setup = setup_ulps, .run = run_ulps,
	 .check = check_ulps_noref, .max_ulp = 1},
	{.name = "pertype", .params = "size=64 type=f64,f32 k=1,2,8", .setup = setup_ulps, .run = run_ulps,
	 .check = check_ulps_noref},
	{0},
};
BVS_SUITE("tl", benchmarks)
C

build() { # VERSION SUITE.c OUT.so
	cc -std=c11 -O1 -shared -fPIC -I"$H" -I"$W" -DBVS_VERSION_MAJOR="$1" -DBVS_VERSION_MINOR=0 \
		-DBVS_VERSION_PATCH=0 -o "$3" "$H/suite_plugin.c" "$2" "$W/tl$1.c" -lm 2> "$W/cc.err"
}
check "version 1's plugin builds" build 1 "$W/suite.c" "$W/p1.so"
check "version 2's plugin builds" build 2 "$W/suite.c" "$W/p2.so"
sed 's/^/#   /' "$W/cc.err"

# ---- --describe ------------------------------------------------------------
"$RUNNER" --describe --out "$W/desc.json" 1.0.0="$W/p1.so" 2.0.0="$W/p2.so" 2> "$W/describe.err"
check "--describe: exit 0" test $? -eq 0
sed 's/^/#   /' "$W/describe.err"
jq_desc() { python3 - "$W/desc.json" "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
v = d["versions"]
names = lambda l: [b["name"] for b in v[l]["benchmarks"]]
ok = {
 "schema": d["schema"] == "bv-runner-describe/1" and set(v) == {"1.0.0", "2.0.0"},
 "suite": v["1.0.0"]["schema"] == "bench-versions-suite/1" and v["2.0.0"]["suite"] == "tl",
 "benchmarks": names("1.0.0") == ["exp", "scale", "drift", "crash", "pack", "ulps", "ulps_noref", "pertype"]
               and names("2.0.0") == ["exp", "scale", "drift", "cube", "crash", "pack", "ulps", "ulps_noref", "pertype"],
 "exp": v["1.0.0"]["benchmarks"][0] == {"name": "exp", "params": [
            {"name": "size", "values": ["1K", "4K"]}, {"name": "variant", "values": ["plain", "again"]}],
            "variant": "variant", "max_ulp": 1, "rel_tol": 0, "runs": True},
 "pack": v["2.0.0"]["benchmarks"][5]["params"][1] == {"name": "level", "values": ["1", "9"]}
          and v["2.0.0"]["benchmarks"][5]["variant"] is None,
}[sys.argv[2]]
sys.exit(0 if ok else 1)
PY
}
for k in schema suite benchmarks exp pack; do
	check "--describe: $k as the plugins declare it" jq_desc $k
done

# A broken suite loads, and --describe names the version and why.
sed 's/BVS_SUITE("tl", benchmarks)/BVS_SUITE("tl", benchmarks)\nconst int unused_marker = 0;/; s/"size=256", .setup = setup_x, .run = run_scale, .check = check_drift/"size=256 size=512", .setup = setup_x, .run = run_scale, .check = check_drift/' \
	"$W/suite.c" > "$W/bad.c"
check "a suite with a bad params string builds" build 2 "$W/bad.c" "$W/bad.so"
"$RUNNER" --describe --out "$W/bad.json" 1.0.0="$W/p1.so" broken="$W/bad.so" 2> "$W/bad.err"
check "--describe of a bad suite: exit 3" test $? -eq 3
check "--describe of a bad suite: names the version, benchmark and reason" \
	contains "$W/bad.err" "broken: the suite: suite tl: benchmark 'drift': .params: parameter 'size' declared twice"
sed 's/^/#   /' "$W/bad.err"

# ---- the merge -------------------------------------------------------------
suite_merge_helper "$W"
check "the merge helper builds" test -x "$W/merge"
sed 's/^/#   /' "$W/cc.err"
check "the descriptions merge" "$W/merge" "$W/desc.json" "$W/suite.json" 1.0.0 2.0.0
merged_names() { python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if [b["name"] for b in d["benchmarks"]] == ["exp", "scale", "drift", "crash", "pack", "ulps", "ulps_noref", "pertype", "cube"] else 1)' "$W/suite.json"; }
check "the merge is the union, in order of first appearance" merged_names

# ---- measuring ---------------------------------------------------------------
hash=$(suite_file_hash "$W/suite.json")
measure() { # OUT ARGS...: bv-runner on both versions
	local out=$1
	shift
	"$RUNNER" --out "$out" --rounds 3 --sample-us 200 --timeout 30 --suite-file "$W/suite.json" \
		--suite-hash "$hash" "$@" 1.0.0="$W/p1.so" 2.0.0="$W/p2.so"
}
measure "$W/run.json" --benches tl 2> "$W/run.err"
check "bv-runner on the suite: exit 0" test $? -eq 0
sed 's/^/#   /' "$W/run.err"

# status OP BACKEND SIZE LABEL: the cell's status for the version, then its reason
status() {
	python3 - "$W/run.json" "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
op, be, size, label = sys.argv[2:6]
for c in d["cells"]:
    if c["op"] == op and c["backend"] == be and c["size"] == float(size):
        for v in c["versions"]:
            if v["label"] == label:
                print(v["status"] + "|" + v.get("reason", "") + "|" + str(len(v.get("samples_ns") or [])) + "|" + json.dumps(v.get("work")))
PY
}
is() { # OP BACKEND SIZE LABEL PATTERN
	local got
	got=$(status "$1" "$2" "$3" "$4")
	echo "$got" | grep -qE -- "$5" || { echo "#   $1/$2/$3 $4: $got"; return 1; }
}
cells_are() {
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
got = sorted((c["bench"], c["op"], c["backend"], c["size"]) for c in d["cells"])
want = sorted([("tl", "exp", b, s) for b in ("plain", "again") for s in (1024, 4096)]
  + [("tl", "scale", "default", 256), ("tl", "drift", "default", 256), ("tl", "crash", "default", 1024),
     ("tl", "pack[level=1]", "default", 4096), ("tl", "pack[level=9]", "default", 4096), ("tl", "cube", "default", 1024)]
  + [("tl", "%s[type=%s][k=%d]" % (b, t, k), "default", 64) for b in ("ulps", "ulps_noref", "pertype") for k in (1, 2, 8) for t in ("f64", "f32")])
if got != want: print("#   cells:", got)
sys.exit(0 if got == want else 1)' "$W/run.json"
}
check "the cells: the variant's values are the backends, level is in the op's name" cells_are
for l in 1.0.0 2.0.0; do
	check "exp/plain/1K, $l: ok, timed" is exp plain 1024 $l '^ok\|\|3\|'
	check "exp/again/4K, $l: ok, with its work" is exp again 4096 $l '^ok\|\|3\|\{"bytes": 65536(\.0)?, "flops": 81920(\.0)?, "items": 4096(\.0)?\}'
	check "crash, $l: crashed, that cell alone" is crash default 1024 $l '^crashed\|killed by signal 11'
	check "pack[level=9], $l: ok" is 'pack[level=9]' default 4096 $l '^ok\|\|3\|'
done
check "scale, 1.0.0: ok" is scale default 256 1.0.0 '^ok\|'
check "scale, 2.0.0: wrong result against the reference, naming the element" \
	is scale default 256 2.0.0 '^wrong result\|element 17 of 256: got .*, want .* \(.* ulp; tolerance 0 ulp; worst .* ulp\)\|0\|'
check "drift, 1.0.0 (the baseline): ok" is drift default 256 1.0.0 '^ok\|'
check "drift, 2.0.0: wrong result against 1.0.0's output" \
	is drift default 256 2.0.0 "^wrong result\|output differs from 1.0.0's at element 17 of 256: .* vs .* \(.* ulp; tolerance 0 ulp\)\|0\|"
# Both checks are exact to the last bit (max_ulp 1): 1.0.0's element 3 is
# 1 ulp from the reference (ok), 2.0.0's k+1 ulps (wrong, saying k+1);
# without a reference 2.0.0 is k ulps from 1.0.0: ok at 1, wrong at 2 and 8.
# The values print with the digits that tell them apart.
for t in f64 f32; do
	for k in 1 2 8; do
		op="ulps[type=$t][k=$k]"
		check "$op, 1.0.0: ok against the reference (1 ulp, tolerance 1)" is "$op" default 64 1.0.0 '^ok\|'
		check "$op, 2.0.0: wrong against the reference by exactly $((k + 1)) ulp" \
			is "$op" default 64 2.0.0 "^wrong result\|element 3 of 64: got .*, want .* \($((k + 1)) ulp; tolerance 1 ulp; worst $((k + 1)) ulp\)"
		op="ulps_noref[type=$t][k=$k]"
		check "$op, 1.0.0: ok" is "$op" default 64 1.0.0 '^ok\|'
		if [ $k = 1 ]; then
			check "$op, 2.0.0: 1 ulp from 1.0.0's output is within tolerance" is "$op" default 64 2.0.0 '^ok\|'
		else
			check "$op, 2.0.0: wrong, exactly $k ulp from 1.0.0's output" \
				is "$op" default 64 2.0.0 "^wrong result\|output differs from 1.0.0's at element 3 of 64: .* vs .* \($k ulp; tolerance 1 ulp\)"
		fi
	done
done
# bvs_tolerance from a setup that asks bvs_benchmark_name: pertype's
# double accepts 1 ulp, its float 8, though .max_ulp is 0.
for k in 1 2 8; do
	check "pertype[type=f32][k=$k], 2.0.0: $k ulp from 1.0.0 within the float's own 8" \
		is "pertype[type=f32][k=$k]" default 64 2.0.0 '^ok\|'
done
check "pertype[type=f64][k=1], 2.0.0: 1 ulp within the double's own 1" is "pertype[type=f64][k=1]" default 64 2.0.0 '^ok\|'
check "pertype[type=f64][k=2], 2.0.0: wrong, saying the cell's tolerance" \
	is "pertype[type=f64][k=2]" default 64 2.0.0 "^wrong result\|output differs from 1.0.0's at element 3 of 64: .* \(2 ulp; tolerance 1 ulp\)"
# A double's got and want print with 17 digits: never alike on the page.
check "ulps f64: got and want differ as printed" python3 - "$W/run.json" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
for c in d["cells"]:
    if c["op"] == "ulps[type=f64][k=1]":
        r = [v for v in c["versions"] if v["label"] == "2.0.0"][0]["reason"]
        m = re.search(r"got (\S+), want (\S+) ", r)
        sys.exit(0 if m and m.group(1) != m.group(2) and float(m.group(1)) != float(m.group(2)) else 1)
sys.exit(1)
PY
check "cube, 1.0.0: n/a (not in that version)" is cube default 1024 1.0.0 '^n/a\|.*not in this version'
check "cube, 2.0.0: ok" is cube default 1024 2.0.0 '^ok\|\|3\|'

# The same inputs in every process: a second runner agrees (the comparison
# would fail otherwise), and --ops by the base name selects both levels.
measure "$W/run2.json" --ops pack,drift 2> "$W/run2.err"
check "--ops pack: both levels, and drift" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if sorted(c["op"] for c in d["cells"]) == ["drift", "pack[level=1]", "pack[level=9]"] else 1)' "$W/run2.json"
measure "$W/run3.json" --ops 'pack[level=1]' --sizes 1K 2> "$W/run3.err"
check "--ops 'pack[level=1]' --sizes 1K: the exact op at an explicit size" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
c = d["cells"]
sys.exit(0 if [(x["op"], x["size"], [v["status"] for v in x["versions"]]) for x in c] == [("pack[level=1]", 1024, ["ok", "ok"])] else 1)' "$W/run3.json"

# Every number bv-runner takes is parsed strictly (harness/common/numbers.h): a
# value that is not one is exit 2 naming the option and the value, before
# anything is loaded, never atoi's 0 (`--seed abc` was a random seed, and
# this runner, given a good plugin, went on to measure).
while read -r opt val; do
	rm -f "$W/bad.json"
	"$RUNNER" --out "$W/bad.json" --suite-file "$W/suite.json" --suite-hash "$hash" --benches tl --ops exp \
		--sizes 1K "$opt" "$val" 1.0.0="$W/p1.so" > /dev/null 2> "$W/badnum.err"
	rc=$?
	check "bv-runner $opt '$val': exit 2 ($rc), nothing measured" test $rc -eq 2 -a ! -e "$W/bad.json"
	check "bv-runner $opt '$val': says what was expected" grep -qF -- "bv-runner: $opt '$val': expected" "$W/badnum.err"
done <<'BAD'
--seed abc
--seed -1
--seed 18446744073709551616
--rounds 3x
--rounds 0
--sample-us abc
--sample-us nan
--timeout 0
--timeout 1e999
--pin cpu0
--threads 2.5
--cell-ms -5
--inputs 1O
--probe-fd x
--memory-limit 1G
--only 0,a
--checked 0,,1
--drop 0
--drop x:1.0.0
BAD
# The rest of the command line goes through the same table (parse_options.h,
# the parser of bench-versions's commands): an unknown option, a value
# missing or a version that is not LABEL=PLUGIN is exit 2 saying which
# (an unknown option printed the usage alone), and --help lists the options.
runner_refuses() { # WHAT TEXT ARGS...: exit 2, nothing written, TEXT on stderr
	local what=$1 text=$2
	shift 2
	rm -f "$W/bad.json"
	"$RUNNER" "$@" > /dev/null 2> "$W/badopt.err"
	local rc=$?
	check "bv-runner $what: exit 2 ($rc), nothing measured" test $rc -eq 2 -a ! -e "$W/bad.json"
	check "bv-runner $what: says '$text'" grep -qF -- "$text" "$W/badopt.err"
}
runner_refuses "--seedd 3" "bv-runner: unknown option --seedd: did you mean --seed?" \
	--out "$W/bad.json" --seedd 3 1.0.0="$W/p1.so"
runner_refuses "--seed with no value" "bv-runner: --seed needs a value (--seed N)" \
	--out "$W/bad.json" 1.0.0="$W/p1.so" --seed
runner_refuses "a version without '='" "bv-runner: '$W/p1.so': expected LABEL=PLUGIN" \
	--out "$W/bad.json" "$W/p1.so"
runner_refuses "without --out" "bv-runner: no --out FILE given" 1.0.0="$W/p1.so"
"$RUNNER" --help > "$W/help.out" 2>&1
rc=$?
check "bv-runner --help: exit 0 ($rc), every option listed" bash -c '[ $1 -eq 0 ] && for o in --out --seed --rounds \
	--sample-us --timeout --pin --only --checked --drop --cell-ms --threads --inputs --memory-limit --probe-fd \
	--simd-isa --ops-file --ops-hash --suite-file --suite-hash --benches --ops --backends --sizes --calibrate \
	--count --describe --load; do grep -q -- "^  $o\b" "$2" || exit 1; done' _ $rc "$W/help.out"
# and the largest and smallest values that are numbers still run.
"$RUNNER" --out "$W/good.json" --suite-file "$W/suite.json" --suite-hash "$hash" --benches tl --ops exp --sizes 1K --seed=18446744073709551615 --rounds 1 \
	--sample-us 0.5 --timeout 1e3 --pin 0 --threads 1 --cell-ms 0 --inputs 2 --memory-limit 4000000000 \
	--only 0,1 --checked 0 --drop 1:1.0.0 1.0.0="$W/p1.so" 2> "$W/good.err"
check "bv-runner with every numeric option given a good value: exit 0" test $? -eq 0 -a -s "$W/good.json"

# The file must be the one bench-versions hashed.
"$RUNNER" --out "$W/x.json" --suite-file "$W/suite.json" --suite-hash 0000000000000000 1.0.0="$W/p1.so" 2> "$W/hash.err"
check "a suite file that changed: exit 2" test $? -eq 2
check "a suite file that changed: says so" contains "$W/hash.err" "changed during the run"
# --count on a suite cell (outside Valgrind the toggles do nothing): the
# cell opened, its run called, the document says ok.
"$RUNNER" --count --only 0 --out "$W/count.json" --suite-file "$W/suite.json" --benches tl 1.0.0="$W/p1.so" 2> /dev/null
check "--count on a suite cell: its run called, ok" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if d["status"] == "ok" and d["warm"] is True and d["on_valgrind"] is False else 1)' "$W/count.json"
finish
