#!/usr/bin/env bash
# End to end: bisect and history on a project with a benchmark
# suite (docs/suites.md, "Bisect and history with a suite").  A small
# library made here, six commits (1.0.0 to 1.0.5 in its VERSION), a suite of
# two benchmarks: sum, and scale (1.0.1 on: n/a in 1.0.0).  The fourth
# commit makes sum do its loop three times.  bisect must name that commit,
# history must put sum's step there and call scale unchanged, and a suite
# that a commit declares otherwise must be refused naming both commits.
source "$(dirname "$0")/lib.sh"
t0=$(date +%s)

LIB="$TMP/wave"
mkdir -p "$LIB/include" "$LIB/src" "$LIB/bench/suite" "$LIB/bench/odd"
cat > "$LIB/include/wave.h" <<'E'
#include <stddef.h>
double wv_sum(const double *x, size_t n);
void wv_scale(double *x, size_t n, double a);
E
sum() { # PASSES: the sum's loop, done PASSES times (the same result)
	cat > "$LIB/src/sum.c" <<E
#include "wave.h"
double wv_sum(const double *x, size_t n)
{
	volatile double r = 0;
	for (int pass = 0; pass < $1; pass++) {
		double s = 0;
		for (size_t i = 0; i < n; i++)
			s += x[i];
		r = s;
	}
	return r;
}
E
}
sum 1
cat > "$LIB/src/scale.c" <<'E'
#include "wave.h"
void wv_scale(double *x, size_t n, double a)
{
	for (size_t i = 0; i < n; i++)
		x[i] *= a;
}
E
printf '%s\n' 'BUILD ?= build' 'lib:' \
	'	mkdir -p $(BUILD)' \
	'	$(CC) -O2 -fPIC -Iinclude -c src/sum.c -o $(BUILD)/sum.o' \
	'	$(CC) -O2 -fPIC -Iinclude -c src/scale.c -o $(BUILD)/scale.o' \
	'	ar rcs $(BUILD)/libwave.a $(BUILD)/sum.o $(BUILD)/scale.o' > "$LIB/Makefile"
cat > "$LIB/bench-versions.json" <<'E'
{ "schema_version": 1, "name": "wave", "dir": ".", "suite": "bench/suite" }
E
# The suite: SCALE_PARAMS is how scale is declared (the odd suite below
# declares it otherwise in one version).
suite() { # DIR SCALE_PARAMS_LINES
	cat > "$LIB/bench/$1/wave.c" <<E
#include <bv_suite.h>
#include "wave.h"

typedef struct state {
	double *x, out;
	size_t n;
} state;

static int setup(bvs_ctx *c)
{
	state *s = bvs_alloc(c, sizeof(*s));
	size_t n = (size_t)bvs_param_int(c, "size");
	if (!s || !(s->x = bvs_alloc(c, n * sizeof(double))))
		return bvs_fail(c, "out of memory");
	for (size_t i = 0; i < n; i++)
		s->x[i] = bvs_uniform(c, -1, 1);
	s->n = n;
	bvs_set_state(c, s);
	return BVS_OK;
}
static int run_sum(bvs_ctx *c)
{
	state *s = bvs_state(c);
	s->out = wv_sum(s->x, s->n);
	return BVS_OK;
}
static int check_sum(bvs_ctx *c)
{
	state *s = bvs_state(c);
	bvs_output(c, &s->out, 1, BVS_F64);
	return BVS_OK;
}
#if BVS_VERSION_LT(1, 0, 1)
#define run_scale NULL /* scale is benchmarked from 1.0.1 on */
#else
static int run_scale(bvs_ctx *c)
{
	state *s = bvs_state(c);
	wv_scale(s->x, s->n, 1.0);
	return BVS_OK;
}
#endif
$2
static const bvs_benchmark benchmarks[] = {
	{.name = "sum", .params = "size=16K", .setup = setup, .run = run_sum, .check = check_sum, .rel_tol = 1e-12},
	{.name = "scale", .params = SCALE_PARAMS, .setup = setup, .run = run_scale},
	{0},
};
BVS_SUITE("wave", benchmarks)
E
}
suite suite '#define SCALE_PARAMS "size=16K"'
# The odd suite: 1.0.3 alone declares scale with another size.
suite odd '#if BVS_VERSION_MAJOR == 1 && BVS_VERSION_MINOR == 0 && BVS_VERSION_PATCH == 3
#define SCALE_PARAMS "size=32K"
#else
#define SCALE_PARAMS "size=16K"
#endif'
cat > "$LIB/bench-odd.json" <<'E'
{ "schema_version": 1, "name": "wave", "dir": ".", "suite": "bench/odd" }
E

echo 1.0.0 > "$LIB/VERSION"
git -C "$LIB" init -q -b main
git -C "$LIB" add -A
git -C "$LIB" commit -qm "wave 1.0.0"
c=("$(git -C "$LIB" rev-parse HEAD)")
for i in 1 2 3 4 5; do
	echo "1.0.$i" > "$LIB/VERSION"
	if [ $i -eq 3 ]; then
		sum 3
		msg="sum: three passes (planted slowdown)"
	else
		echo "note $i" > "$LIB/NOTES"
		msg="wave 1.0.$i: a note"
	fi
	git -C "$LIB" add -A && git -C "$LIB" commit -qm "$msg"
	c+=("$(git -C "$LIB" rev-parse HEAD)")
done
planted=${c[3]}

cd "$LIB"
unset KERNEL_DIR KERNEL_REPO BENCH_VERSIONS_COMPAT BENCH_VERSIONS_PROJECT BENCH_VERSIONS_OPS

# ---- bisect: the planted commit, from the suite's cell
"$BV" bisect --good "${c[0]}" --bad main --bench wave --op sum --backend default --size 16K --quick \
	--format json > "$TMP/b.json" 2> "$TMP/b.err"
rc=$?
echo "# bisect: $(($(date +%s) - t0)) s"
check "bisect on a suite's cell exits 0 (exit $rc)" test $rc -eq 0
[ $rc -eq 0 ] || sed 's/^/#   /' "$TMP/b.err" | tail -20
check "bisect names the planted commit, slower than its parent, and measured the suite's cell" \
	python3 - "$TMP/b.json" "$planted" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1])); planted = sys.argv[2]
assert doc["status"] == "found", doc["status"]
assert doc["cell"]["bench"] == "wave" and doc["cell"]["op"] == "sum" and doc["cell"]["backend"] == "default", doc["cell"]
f = doc["first_bad"]
assert f["commit"] == planted, (f["commit"], planted)
assert f["subject"] == "sum: three passes (planted slowdown)", f["subject"]
assert doc["bad_vs_good"]["ci_low"] > 1.5, doc["bad_vs_good"]
assert f["vs_parent"]["verdict"] == "slower", f["vs_parent"]
assert planted in [s["commit"] for s in doc["steps"]]
PY
[ $? -eq 0 ] || sed 's/^/#   /' "$TMP/b.json" | head -40
check "bisect described the suite from its builds, no directory of it left behind" \
	bash -c "! ls -d '$BENCH_VERSIONS_CACHE'/bisect/.describe-* 2>/dev/null && ls '$BENCH_VERSIONS_CACHE'/bisect/*/logs/*/suite.json > /dev/null"
refused "bisect: a catalog group on a suite project" "--bench unary: this project's builds hold its suite 'wave' only" \
	bisect --good "${c[0]}" --bad main --bench unary --op relu --backend scalar --size 64K --quick
refused "bisect: an op the suite does not have" "name no cell|unknown op" \
	bisect --good "${c[0]}" --bad main --bench wave --op summ --backend default --size 16K --quick
refused "bisect --by counts on a suite project" "--by counts with a project suite .*not supported yet" \
	bisect --good "${c[0]}" --bad main --bench wave --op sum --backend default --size 16K --by counts

# ---- history: sum's step at the planted commit, scale unchanged
"$BV" history "${c[0]}..main" --quick --processes 12 --results "$TMP/results" --format json \
	> "$TMP/h.json" 2> "$TMP/h.err"
rc=$?
echo "# history: $(($(date +%s) - t0)) s"
check "history on a suite project exits 0 (exit $rc)" test $rc -eq 0
[ $rc -eq 0 ] || sed 's/^/#   /' "$TMP/h.err" | tail -20
check "history: one change, sum slower at the planted commit; scale never called; n/a before it had a run" \
	python3 - "$TMP/h.json" "${c[2]}" "$planted" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1])); before, planted = sys.argv[2], sys.argv[3]
assert len(doc["versions"]) == 6, doc["versions"]
cells = {x["cell"]: x for x in doc["cells"]}
assert set(cells) == {"wave/sum/default/16K", "wave/scale/default/16K"}, set(cells)
ch = doc["changes"]
assert len(ch) == 1, ch
assert ch[0]["cell"] == "wave/sum/default/16K" and ch[0]["direction"] == "slower", ch[0]
assert ch[0]["from_commit"] == before and ch[0]["to_commit"] == planted, ch[0]
s = cells["wave/sum/default/16K"]["steps"]
assert s[2]["verdict"] == "slower" and s[2]["ratio"] > 1.5, s[2]
assert all(x["verdict"] not in ("slower", "faster") for i, x in enumerate(s) if i != 2), s
sc = cells["wave/scale/default/16K"]["steps"]
assert all(x["verdict"] not in ("slower", "faster") for x in sc), sc
assert all(isinstance(x["ratio"], (int, float)) for x in sc[1:]), sc  # measured from 1.0.1 on
PY
[ $? -eq 0 ] || sed 's/^/#   /' "$TMP/h.json" | head -60
run=$(ls -d "$TMP"/results/[0-9]*/ 2>/dev/null | head -1)
check "history keeps the suite's merged description" python3 - "${run}suite.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(not (d["suite"] == "wave" and [b["name"] for b in d["benchmarks"]] == ["sum", "scale"]))
PY

# ---- a suite one commit declares otherwise: refused, naming both commits
export BENCH_VERSIONS_PROJECT="$LIB/bench-odd.json"
odd="benchmark 'scale' is declared differently in ${c[0]:0:12} and ${planted:0:12}"
refused_within=120 refused "history over a suite 1.0.3 declares otherwise" "$odd" \
	history "${c[0]}..main" --quick --results "$TMP/odd"
check "... and leaves no results directory" test -z "$(ls "$TMP/odd" 2> /dev/null)"
# bisect's ends agree; its first probe is the middle commit, the planted one
refused_within=120 refused "bisect reaching a commit that declares the suite otherwise" "$odd" \
	bisect --good "${c[0]}" --bad main --bench wave --op sum --backend default --size 16K --quick
unset BENCH_VERSIONS_PROJECT
echo "# total: $(($(date +%s) - t0)) s"
finish
