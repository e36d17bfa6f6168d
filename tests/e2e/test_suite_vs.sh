#!/usr/bin/env bash
# End to end: the vs view along a suite op's parameter (run and
# compare --vs level=1), as the backend view is along the backend.  A tiny
# library (one tag) whose `spin` does its loop once at level 1 and three
# times at level 9, in two variants (the suite's variant parameter is named
# `method`): --vs level=1 says level=9 is slower by about 3x, its interval
# past 1, paired by process, in the table and JSON (and markdown, HTML);
# --vs method=a and --vs backend=a are --vs-backend a, word for word; each
# refusal (a parameter no selected op has, a value none has, a reference
# the selection leaves out, size, a malformed value, both options) exits 2
# saying why.
source "$(dirname "$0")/lib.sh"
t0=$(date +%s)

LIB="$TMP/spinlib"
mkdir -p "$LIB/include" "$LIB/src" "$LIB/bench/suite"
printf '%s\n' 'BUILD ?= build' 'lib:' \
	'	mkdir -p $(BUILD)' \
	'	$(CC) -O2 -fPIC -Iinclude -c src/spin.c -o $(BUILD)/spin.o' \
	'	ar rcs $(BUILD)/libspin.a $(BUILD)/spin.o' > "$LIB/Makefile"
cat > "$LIB/include/spin.h" <<'E'
#include <stddef.h>
/* reps passes of a dependent chain over x: the time is reps times one pass */
double spin(const double *x, size_t n, int reps);
E
cat > "$LIB/src/spin.c" <<'E'
#include "spin.h"
double spin(const double *x, size_t n, int reps)
{
	double acc = 0;
	for (int r = 0; r < reps; r++)
		for (size_t i = 0; i < n; i++)
			acc = acc * 0.999999 + x[i];
	return acc;
}
E
cat > "$LIB/bench-versions.json" <<'E'
{"schema_version": 1, "name": "spinlib", "dir": ".", "version": {"tag": ""}, "suite": "bench/suite"}
E
cat > "$LIB/bench/suite/suite.c" <<'E'
#include <string.h>
#include <bv_suite.h>
#include "spin.h"

typedef struct state {
	double *x, out;
	size_t n;
	int reps;
} state;

static int setup(bvs_ctx *c)
{
	state *s = bvs_alloc(c, sizeof(*s));
	if (!s || !(s->x = bvs_alloc(c, 4096 * sizeof(double))))
		return bvs_fail(c, "out of memory");
	s->n = 4096;
	for (size_t i = 0; i < s->n; i++)
		s->x[i] = bvs_uniform(c, -1, 1);
	/* level 9 does three times level 1's work */
	s->reps = bvs_param_int(c, "level") == 9 ? 3 : 1;
	bvs_set_state(c, s);
	return BVS_OK;
}
static int run(bvs_ctx *c)
{
	state *s = bvs_state(c);
	s->out = spin(s->x, s->n, s->reps);
	return BVS_OK;
}
static int check(bvs_ctx *c)
{
	state *s = bvs_state(c);
	bvs_output(c, &s->out, 1, BVS_F64);
	return BVS_OK;
}

static const bvs_benchmark benchmarks[] = {
	{.name = "spin", .params = "level=1,9 method=a,b", .variant = "method", .setup = setup, .run = run,
	 .check = check, .rel_tol = 1e-12},
	{0},
};
BVS_SUITE("spinlib", benchmarks)
E
git -C "$LIB" init -q -b main
git -C "$LIB" add -A
git -C "$LIB" commit -qm "spinlib 1.0"
git -C "$LIB" tag 1.0

cd "$LIB"
unset KERNEL_DIR KERNEL_REPO BENCH_VERSIONS_COMPAT BENCH_VERSIONS_PROJECT BENCH_VERSIONS_OPS
timeout 300 "$BV" 1.0 --quick --vs level=1 --format json --results "$TMP/r" > "$TMP/view.json" 2> "$TMP/err"
rc=$?
check "run --vs level=1: exit 0 (exit $rc)" test $rc -eq 0
[ $rc -eq 0 ] || sed 's/^/#   /' "$TMP/err" | tail -20
echo "# measured: $(($(date +%s) - t0)) s"
check "JSON: level=9 over level=1 of the same op, backend and size, about 3x, its interval past 1, slower" \
	python3 - "$TMP/view.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema_version"] == "1.8", d["schema_version"]
v = d["vs"]
assert v["axis"] == "parameter" and v["name"] == "level" and v["reference"] == "1", v
assert d["backends"] is None, d["backends"]  # not the backend axis
assert "level comparisons decided together" in v["summary"], v["summary"]
cells = {(c["op"], c["backend"]): c for c in v["cells"]}
assert set(cells) == {("spin[level=9]", "a"), ("spin[level=9]", "b")}, sorted(cells)
for (op, be), c in cells.items():
    assert c["value"] == "9" and c["reference_op"] == "spin[level=1]" and c["reference_backend"] == be, c
    assert 2.3 < c["ratio"] < 3.9, c
    assert c["ratio_ci_low"] > 1, c
    assert c["ratio_ci_low"] <= c["ratio"] <= c["ratio_ci_high"], c
    assert c["processes"] >= 10 and c["verdict"] == "slower", c
# the fastest level of each cell: level=1, clearly, against level=9
f = {(x["op"], x["backend"]): x for x in v["fastest"]}
assert set(f) == {("spin[level=1]", "a"), ("spin[level=1]", "b")}, sorted(f)
for x in f.values():
    assert x["value"] == "1" and x["next"] == "9" and x["next_op"] == "spin[level=9]" and x["clear"], x
PY

# The same ratios, from the logs: the median of the two cells' per-process
# quotients, paired by process id.
run=$(ls -d "$TMP"/r/[0-9]*/ | head -1)
check "the ratios are the medians of the logs' per-process quotients, paired by process id" \
	python3 - "$TMP/view.json" "$run/1.0.json" <<'PY'
import json, statistics, sys
v = json.load(open(sys.argv[1]))["vs"]
log = {(c["op"], c["backend"]): dict(zip(c["process_ids"], c["process_medians_ns"]))
       for c in json.load(open(sys.argv[2]))["cells"] if c["status"] == "ok"}
for c in v["cells"]:
    x, y = log[(c["op"], c["backend"])], log[(c["reference_op"], c["reference_backend"])]
    q = [x[i] / y[i] for i in x if i in y]
    assert abs(c["ratio"] / statistics.median(q) - 1) < 1e-9 and c["processes"] == len(q), (c, q)
PY

"$BV" compare "$run" --vs level=1 > "$TMP/table" 2> "$TMP/err"
rc=$?
check "compare --vs level=1: exit 0 (exit $rc)" test $rc -eq 0
sed 's/^/#   /' "$TMP/table" | tail -12
check "the table: levels vs level=1, level=9 slower by about 3x with its interval past 1" \
	bash -c "grep -qE '^levels vs level=1 \(each level.s time over level=1.s' '$TMP/table' &&
		 [ \$(grep -cE '^  1\.0 +spinlib/spin\[level=9\]/(a|b)/1 +(2\.[3-9]|3\.[0-8])[0-9]* \[(1\.[0-9]+|[2-9]\.[0-9]+), [0-9.]+\] slower' '$TMP/table') -eq 2 ]"
check "the table: the fastest level per cell, and the footer" \
	bash -c "grep -qE '^  1\.0 +spinlib/spin/a/1 +level=1, 0\.[0-9]{3} \[[0-9., ]+\] of level=9.s time' '$TMP/table' &&
		 grep -qE '^level verdicts: 2 level comparisons decided together' '$TMP/table' &&
		 grep -qE '^fastest levels: 2 cells with two or more levels; 2 with a clear fastest' '$TMP/table'"
"$BV" compare "$run" --vs level=1 --format markdown > "$TMP/md" 2> /dev/null
check "markdown: the view" bash -c "grep -qE '^\*\*Levels vs level=1\*\*' '$TMP/md' && grep -qE '^\| 1\.0 \| spinlib/spin\\\\\[level=9\\\\\]/a/1 \| [23]\.[0-9]{3} .* slower \|$' '$TMP/md'"
"$BV" compare "$run" --vs level=1 --format html > "$TMP/html" 2> /dev/null
# (HTML escapes '=' as &#61;)
check "html: the view" bash -c "grep -q '<h2 id=\"backends\">Levels vs level&#61;1</h2>' '$TMP/html' && grep -q 'spinlib/spin\[level&#61;9\]/a/1</td><td class=\"slower\">' '$TMP/html'"

# The backend axis three ways: --vs-backend, --vs backend=, and the suite's
# variant parameter (method), word for word.
"$BV" compare "$run" --vs-backend a > "$TMP/vb" 2> /dev/null
"$BV" compare "$run" --vs backend=a > "$TMP/vb2" 2> /dev/null
"$BV" compare "$run" --vs method=a > "$TMP/vb3" 2> /dev/null
check "--vs backend=a and --vs method=a (the variant parameter) are --vs-backend a" \
	bash -c "grep -qE '^backends vs a \(each backend.s time over a.s in the same cell and process' '$TMP/vb' &&
		 grep -qE '^  1\.0 +spinlib/spin\[level=9\]/b/1 ' '$TMP/vb' &&
		 cmp -s '$TMP/vb' '$TMP/vb2' && cmp -s '$TMP/vb' '$TMP/vb3'"
"$BV" compare "$run" --vs method=a --format json > "$TMP/vb.json" 2> /dev/null
check "JSON of the backend axis: vs and backends, the same object" python3 - "$TMP/vb.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["vs"]["axis"] == "backend" and d["vs"]["name"] == "backend" and d["vs"]["reference"] == "a", d["vs"]
assert d["backends"] == d["vs"] and {c["backend"] for c in d["backends"]["cells"]} == {"b"}, d["backends"]
PY

# Refusals: exit 2, saying why.
refused "compare: a parameter no cell has" "--vs dtype=f64: no cell here has a parameter dtype \(the ops' parameters here: level" \
	compare "$run" --vs dtype=f64
refused "compare: a value no cell has" "--vs level=3: no cell of level=3 was measured \(level here: 1, 9\)" \
	compare "$run" --vs level=3
refused "compare: size" "--vs size=1: a ratio across sizes compares different work.*--units rate" compare "$run" --vs size=1
refused "compare: a malformed value" "--vs level: expected NAME=VALUE" compare "$run" --vs level
refused "compare: both options" "--vs level=1 with --vs-backend a: give one" compare "$run" --vs level=1 --vs-backend a
# run refuses before measuring: size and malformed before anything is
# built, the suite's names once its builds describe it (cached here).
refused "run: size" "--vs size=4K: a ratio across sizes compares different work" 1.0 --quick --vs size=4K --results "$TMP/x1"
refused "run: a malformed value" "--vs level=: expected NAME=VALUE" 1.0 --quick --vs level= --results "$TMP/x2"
refused "run: a parameter no selected op has" "--vs dtype=f64: no selected op has a parameter dtype \(the selected ops' parameters: level;" \
	1.0 --quick --vs dtype=f64 --results "$TMP/x3"
refused "run: a value no selected op has" "--vs level=3: no selected op has level=3 \(level's values in the selection: 1, 9;" \
	1.0 --quick --vs level=3 --results "$TMP/x4"
refused "run: a reference the selection leaves out" "--vs level=1: no selected op has level=1 \(level's values in the selection: 9;" \
	1.0 --quick --ops 'spin[level=9]' --vs level=1 --results "$TMP/x5"
refused "run: the variant's reference the selection leaves out" "--vs method=a: no selected cell has backend a \(backends in the selection: b;" \
	1.0 --quick --backends b --vs method=a --results "$TMP/x6"
check "none of the refused runs measured anything" \
	bash -c "! ls '$TMP'/x[1-6]/*/1.0.json > /dev/null 2>&1"
echo "# test_suite_vs: $(($(date +%s) - t0)) s"
finish
