#!/usr/bin/env bash
# A difference the code does not have: a constant that only masked loads
# read, alone on its page (harness/runner/pages.h).  bv-runner times in a forked
# child, which starts with the plugins' pages unmapped; a masked load with
# an all-zero mask never maps its page, and every execution takes a
# microcode assist.  Version 1 of the fixture library reads its constant
# only that way; version 2 runs the same loop and also reads the constant
# once with a plain load, which maps the page.  Each plugin's pages mapped
# before timing, the two read alike; without that, version 1 read 178-198x
# slower (AMD EPYC Zen 5; a SLEEF release's log 36x; docs/measurement.md,
# "Pages read before timing").  The loads are AVX-512's masked vbroadcastss,
# as SLEEF's: skipped on a CPU without AVX-512F.
source "$(dirname "$0")/lib.sh"
RUNNER="$ROOT/${BV_BIN_DIR:-bin}/bv-runner"
W="$TMP/pages"
mkdir -p "$W"
if ! grep -qw avx512f /proc/cpuinfo; then
	skip "a masked load's page, read before timing" "this CPU has no AVX-512F"
	finish
fi

# ---- the library, two versions ------------------------------------------
for v in 1 2; do
	cat > "$W/ml$v.c" <<C
#include <immintrin.h>
#include <stddef.h>
/* 64 KiB, 64 KiB aligned: no other data in the 64 KiB-aligned window
 * the kernel maps around an ordinary access (fault-around) */
__attribute__((aligned(65536))) const float ml_lone[16384] = {1.0f};
/* n masked loads (AVX-512 vbroadcastss with a mask register, as a SIMD
 * math library's special-case path) from the lone constant, with a mask
 * that is all zero (from the data, so the compiler keeps the loads) */
__attribute__((target("avx512f"))) float ml_sum(const int *mask, size_t n)
{
	__m256 acc = _mm256_setzero_ps();
#if $v == 2
	acc = _mm256_set1_ps(ml_lone[mask[1]] * 0.0f); /* one plain load: the page mapped */
#endif
	for (size_t i = 0; i < n; i++) {
		__m512 v = _mm512_setzero_ps();
		__asm__ volatile("kmovw %1, %%k1\n\tvbroadcastss %2, %0%{%%k1%}"
				 : "+v"(v)
				 : "r"(mask[i % 16]), "m"(ml_lone[16 * (i % 64)])
				 : "k1");
		acc = _mm256_add_ps(acc, _mm512_castps512_ps256(v));
	}
	float o[8];
	_mm256_storeu_ps(o, acc);
	return o[0];
}
C
done
cat > "$W/suite.c" <<'C'
#include <bv_suite.h>
#include <stddef.h>
float ml_sum(const int *mask, size_t n);
static int *mask;
static volatile float sink;
static int setup(bvs_ctx *c)
{
	int fill;
	mask = bvs_alloc_shared(c, 16 * sizeof(int), &fill); /* zeroed */
	return mask ? BVS_OK : bvs_fail(c, "out of memory");
}
static int run(bvs_ctx *c)
{
	sink = ml_sum(mask, (size_t)bvs_param_int(c, "size"));
	return BVS_OK;
}
static const bvs_benchmark benchmarks[] = {
	{.name = "masked", .params = "size=256", .setup = setup, .run = run},
	{0},
};
BVS_SUITE("ml", benchmarks)
C
build() { # VERSION OUT.so
	cc -std=c11 -O2 -shared -fPIC -I"$ROOT/harness/plugin" -DBVS_VERSION_MAJOR="$1" -DBVS_VERSION_MINOR=0 \
		-DBVS_VERSION_PATCH=0 -o "$2" "$ROOT/harness/plugin/suite_plugin.c" "$W/suite.c" "$W/ml$1.c" -lm 2>> "$W/cc.err"
}
check "version 1's plugin builds" build 1 "$W/p1.so"
check "version 2's plugin builds" build 2 "$W/p2.so"
sed 's/^/#   /' "$W/cc.err"

"$RUNNER" --describe --out "$W/desc.json" 1.0.0="$W/p1.so" 2.0.0="$W/p2.so" 2> "$W/describe.err"
suite_merge_helper "$W"
check "the descriptions merge" "$W/merge" "$W/desc.json" "$W/suite.json" 1.0.0 2.0.0
hash=$(suite_file_hash "$W/suite.json")

# Three runner processes, each timing both versions side by side; each
# process's median ratio of version 1 over version 2.
for k in 1 2 3; do
	"$RUNNER" --out "$W/run$k.json" --seed $k --rounds 9 --sample-us 300 --timeout 60 --suite-file "$W/suite.json" \
		--suite-hash "$hash" --benches ml 1.0.0="$W/p1.so" 2.0.0="$W/p2.so" 2> "$W/run$k.err"
	check "bv-runner, process $k: exit 0" test $? -eq 0
done
ratios() {
	python3 - "$W"/run[123].json <<'PY'
import json, statistics, sys
out = []
for f in sys.argv[1:]:
    c = json.load(open(f))["cells"][0]
    t = {v["label"]: statistics.median(v["samples_ns"]) for v in c["versions"]}
    out.append(t["1.0.0"] / t["2.0.0"])
print(" ".join("%.3f" % r for r in out))
# the same code: within a factor of 1.5 (the assist made it several times)
sys.exit(0 if all(1 / 1.5 < r < 1.5 for r in out) else 1)
PY
}
check "a constant only masked loads read costs no more than one a plain load maps: $(ratios)" ratios
finish
