#!/usr/bin/env bash
# suite_overhead.sh - the suite API's call path against a direct call of a
# ~1 us library function (docs/suites.md reports
# it): PROCS processes (default 40) of suite_overhead.c, each its median
# ratio (API / direct) over 31 alternated rounds of 300 calls; the median
# over the processes with its 95 % order-statistic interval, the ISA and
# the load average.  Not part of `make test`.
#
#   tests/measurement/suite_overhead.sh [PROCS]
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PROCS=${1:-40}
WORK=$(mktemp -d /tmp/bv-suite-overhead-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
CC=${CC:-cc}
# The library: a dependent chain of multiply-adds, ~1 us at 800 steps.
cat > "$WORK/ovh.c" <<'E'
float ovh_work(float a, int n)
{
	for (int i = 0; i < n; i++)
		a = a * 0.9999f + 0.0001f;
	return a;
}
E
# The suite: one benchmark whose run calls it.
cat > "$WORK/suite.c" <<'E'
#include <bv_suite.h>
float ovh_work(float a, int n);
static int setup(bvs_ctx *c)
{
	float *a = bvs_alloc(c, sizeof(float));
	if (!a)
		return bvs_fail(c, "out of memory");
	*a = 1.0f;
	bvs_set_state(c, a);
	return BVS_OK;
}
static int run(bvs_ctx *c)
{
	float *a = bvs_state(c);
	*a = ovh_work(*a, 800);
	return BVS_OK;
}
static const bvs_benchmark benchmarks[] = {{.name = "work", .setup = setup, .run = run}, {0}};
BVS_SUITE("ovh", benchmarks)
E
# The flags a suite plugin is built with (orchestrator/build/build.c: plugin_cflags).
FLAGS="-std=c11 -O2 -fPIC -I$ROOT/harness/plugin -DBVS_VERSION_MAJOR=1 -DBVS_VERSION_MINOR=0 -DBVS_VERSION_PATCH=0"
$CC $FLAGS -c "$WORK/ovh.c" -o "$WORK/ovh.o"
ar rcs "$WORK/libovh.a" "$WORK/ovh.o"
$CC $FLAGS "$ROOT/tests/measurement/suite_overhead.c" "$ROOT/harness/plugin/suite_plugin.c" "$WORK/suite.c" \
	"$WORK/libovh.a" -lm -o "$WORK/ovh"
for i in $(seq "$PROCS"); do "$WORK/ovh"; done > "$WORK/ratios"
isa=$(grep -qw avx512f /proc/cpuinfo && echo AVX-512 || { grep -qw avx2 /proc/cpuinfo && echo AVX2 || echo "no AVX2"; })
python3 - "$WORK/ratios" "$isa" "$(cut -d' ' -f1 /proc/loadavg)" "$(nproc)" <<'PY'
import math, sys
rows = [tuple(map(float, l.split())) for l in open(sys.argv[1])]
r = sorted(x for x, _ in rows)
n = len(r)
# 95 % order-statistic interval of the median: ranks n/2 -+ 1.96 sqrt(n)/2
k = max(0, int(math.floor(n / 2 - 1.96 * math.sqrt(n) / 2)))
lo, hi = r[k], r[min(n - 1, n - 1 - k)]
med = (r[(n - 1) // 2] + r[n // 2]) / 2
one = sorted(t for _, t in rows)[n // 2]
print("suite API / direct call: %.4f [%.4f, %.4f] over %d processes (31 rounds of 300 calls each); "
      "one call %.2f us; %s, %s CPUs, load average %s" % (med, lo, hi, n, one / 1e3, sys.argv[2], sys.argv[4], sys.argv[3]))
PY
