#!/usr/bin/env bash
# End to end: a library made here (a real git
# repository, three release tags), benchmarked through a suite written as
# docs/suites.md says, the files taken from that page: a double-precision
# function, a function over bytes with a `level` parameter, two variants of
# one function selected by a parameter, a function only the later tags
# have, and a release whose output changed beyond tolerance.  Then what a
# suite may do wrong, each costing only its own version or cell.
source "$(dirname "$0")/lib.sh"
t0=$(date +%s)

LIB="$TMP/lumen"
mkdir -p "$LIB/include" "$LIB/src"
cat > "$LIB/include/lumen.h" <<'E'
/* lumen: a small numeric and byte library (a fixture of bench-versions' tests). */
#include <stddef.h>
void lm_exp(const double *x, double *y, size_t n);
size_t lm_pack(const unsigned char *in, size_t n, unsigned char *out, int level);
enum { LM_DOT_SIMPLE, LM_DOT_UNROLLED };
float lm_dot(const float *a, const float *b, size_t n, int method);
E
cat > "$LIB/src/exp.c" <<'E'
#include <math.h>
#include "lumen.h"
void lm_exp(const double *x, double *y, size_t n)
{
	for (size_t i = 0; i < n; i++)
		y[i] = exp(x[i]);
}
E
cat > "$LIB/src/pack.c" <<'E'
#include "lumen.h"
/* LZ77 in two-byte tokens: (0, literal) or (length 3..255, distance);
 * level sets the window, 16 x level bytes back. */
size_t lm_pack(const unsigned char *in, size_t n, unsigned char *out, int level)
{
	size_t win = 16u * (size_t)level, o = 0;
	for (size_t i = 0; i < n;) {
		size_t best = 0, dist = 0;
		for (size_t d = 1; d <= win && d <= i; d++) {
			size_t l = 0;
			while (l < 255 && i + l < n && in[i + l] == in[i + l - d])
				l++;
			if (l > best)
				best = l, dist = d;
		}
		if (best >= 3) {
			out[o++] = (unsigned char)best, out[o++] = (unsigned char)dist;
			i += best;
		} else {
			out[o++] = 0, out[o++] = in[i++];
		}
	}
	return o;
}
E
dot() { # REPEATS: the unrolled loop, done REPEATS times (the same sum)
	cat > "$LIB/src/dot.c" <<E
#include "lumen.h"
float lm_dot(const float *a, const float *b, size_t n, int method)
{
	if (method == LM_DOT_SIMPLE) {
		float s = 0;
		for (size_t i = 0; i < n; i++)
			s += a[i] * b[i];
		return s;
	}
	volatile float r = 0;
	for (int rep = 0; rep < $1; rep++) {
		float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
		size_t i = 0;
		for (; i + 4 <= n; i += 4) {
			s0 += a[i] * b[i], s1 += a[i + 1] * b[i + 1];
			s2 += a[i + 2] * b[i + 2], s3 += a[i + 3] * b[i + 3];
		}
		for (; i < n; i++)
			s0 += a[i] * b[i];
		r = (s0 + s1) + (s2 + s3);
	}
	return r;
}
E
}
dot 1
cat > "$LIB/Makefile" <<'E'
BUILD ?= build
OBJ = $(patsubst src/%.c,$(BUILD)/%.o,$(wildcard src/*.c))
lib: $(BUILD)/liblumen.a
$(BUILD)/%.o: src/%.c include/lumen.h
	@mkdir -p $(BUILD)
	$(CC) -O2 -fPIC -Iinclude -c $< -o $@
$(BUILD)/liblumen.a: $(OBJ)
	ar rcs $@ $^
E
echo 1.0.0 > "$LIB/VERSION"
git -C "$LIB" init -q -b main
git -C "$LIB" add -A
git -C "$LIB" commit -qm "lumen 1.0.0"
git -C "$LIB" tag v1.0.0
# 1.1.0: lm_sincos is new.
cat > "$LIB/src/sincos.c" <<'E'
#include <math.h>
#include "lumen.h"
void lm_sincos(const double *x, double *s, double *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		s[i] = sin(x[i]), c[i] = cos(x[i]);
}
E
echo "void lm_sincos(const double *x, double *s, double *c, size_t n);" >> "$LIB/include/lumen.h"
echo 1.1.0 > "$LIB/VERSION"
git -C "$LIB" add -A
git -C "$LIB" commit -qm "lumen 1.1.0: sincos"
git -C "$LIB" tag v1.1.0
# 1.2.0: exp in single precision (faster, wrong beyond 1 ulp of a double),
# and the unrolled dot three times over (a planted 3x slowdown).
sed -i 's/y\[i\] = exp(x\[i\]);/y[i] = (double)expf((float)x[i]);/' "$LIB/src/exp.c"
dot 3
echo 1.2.0 > "$LIB/VERSION"
git -C "$LIB" commit -qam "lumen 1.2.0: a faster exp, dot rewritten"
git -C "$LIB" tag v1.2.0

# What the user adds: the files of docs/suites.md's walk-through, as written.
check "docs/suites.md's walk-through gives the project file and the suite" python3 - "$ROOT/docs/suites.md" "$LIB" <<'PY'
import os, re, sys
text, lib = open(sys.argv[1]).read(), sys.argv[2]
blocks = re.findall(r"^```\w+ file=(\S+)\n(.*?)^```$", text, re.S | re.M)
for path, body in blocks:
    os.makedirs(os.path.dirname(os.path.join(lib, path)) or lib, exist_ok=True)
    open(os.path.join(lib, path), "w").write(body)
sys.exit(sorted(p for p, _ in blocks) != ["bench-versions.json", "bench/suite/lumen.c"])
PY

cd "$LIB"
unset KERNEL_DIR KERNEL_REPO BENCH_VERSIONS_COMPAT BENCH_VERSIONS_PROJECT BENCH_VERSIONS_OPS
example=$(grep -m1 '^bench-versions 1\.0\.0 1\.1\.0 1\.2\.0' "$ROOT/docs/suites.md")
check "docs/suites.md shows the comparison" test -n "$example"
read -r -a args <<< "${example#bench-versions }"
timeout 600 "$BV" "${args[@]}" --wide --results "$TMP/results" > "$TMP/out" 2> "$TMP/err"
rc=$?
echo "# walk-through: $(($(date +%s) - t0)) s"
check "the walk-through's comparison exits 0 (exit $rc)" test $rc -eq 0
[ $rc -eq 0 ] || sed 's/^/#   /' "$TMP/err" | tail -30
sed 's/^/#   /' "$TMP/out"
# Unchanged code is `same`, or a difference the counts pin on placement
# (the archive around it changed: sincos joined it in 1.1.0), never a
# change of the code (the counts' rule, for suite cells too).
# (or inconclusive, or unstable: not called either way; what the counts
# say of such a row is only a note)
SAME='([0-9.]+ \[[0-9., ]+\] (same|inconclusive|unstable \([^)]*\))[, a-z]*(; same instructions and misses: placement or machine, not the code)?|[0-9.]+ \[[0-9., ]+\] (faster|slower|inconclusive)[, a-z]*; same instructions and misses: placement or machine, not the code)'
check "exp (double precision) is same on 1.1.0 (or placement) and wrong result on 1.2.0" \
	bash -c "grep -qE '^lumen +exp +default +64K +[0-9.]+ us +[0-9.]+ us +$SAME +wrong result ' '$TMP/out'"
check "the wrong result names the first differing element and its error, in the table" \
	contains "$TMP/out" "1\.2\.0.*element [0-9]+ of 65536.*ulp"
check "pack at both levels (bytes) is same on both later releases (or placement, by the counts)" \
	bash -c "[ \$(grep -cE '^lumen +pack\[level=(1|9)\] +default +16K +[0-9.]+ [mu]?s +[0-9.]+ [mu]?s +$SAME +[0-9.]+ [mu]?s +$SAME *\$' '$TMP/out') -eq 2 ]"
check "dot's simple variant is same (or placement), its unrolled one slower on 1.2.0 only, the counts naming lm_dot" \
	bash -c "grep -qE '^lumen +dot +simple +64K +[0-9.]+ us +[0-9.]+ us +$SAME +[0-9.]+ us +$SAME *\$' '$TMP/out' &&
		 grep -qE '^lumen +dot +unrolled +64K +[0-9.]+ us +[0-9.]+ us +$SAME +[0-9.]+ us +(2|3)\.[0-9]{3} \[[0-9.]+, [0-9.]+\] slower; instr \+(19|20)[0-9]\.[0-9] % \(lm_dot \+' '$TMP/out'"
check "sincos: n/a on 1.0.0, new on the later ones" \
	contains "$TMP/out" "^lumen +sincos +default +64K +n/a .*new.*new"
run=$(ls -d "$TMP"/results/[0-9]*/ | head -1)
check "the run keeps the suite's merged description" python3 - "$run/suite.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
names = [b["name"] for b in d["benchmarks"]]
assert d["suite"] == "lumen" and names == ["exp", "pack", "dot", "sincos"], names
PY
check "the logs keep the cells' identity: bench lumen, op with its parameters" python3 - "$run/1.2.0.json" <<'PY'
import json, sys
cells = {(c["bench"], c["op"], c["backend"]) for c in json.load(open(sys.argv[1]))["cells"]}
want = {("lumen", "exp", "default"), ("lumen", "pack[level=1]", "default"), ("lumen", "pack[level=9]", "default"),
        ("lumen", "dot", "simple"), ("lumen", "dot", "unrolled"), ("lumen", "sincos", "default")}
assert cells == want, cells
PY

# The page's selection examples, as written.
for ex in "$(grep -m1 '^bench-versions 1\.0\.0 1\.2\.0 --ops dot' "$ROOT/docs/suites.md")" \
	  "$(grep -m1 "^bench-versions 1\.0\.0 1\.2\.0 --ops 'pack" "$ROOT/docs/suites.md")"; do
	eval "set -- ${ex#bench-versions }"
	"$BV" "$@" --results "$TMP/sel" > "$TMP/sel.out" 2> "$TMP/sel.err"
	rc=$?
	n=$(grep -cE '^lumen ' "$TMP/sel.out")
	check "'$ex': exit 0 and one row (exit $rc, $n rows)" test $rc -eq 0 -a "$n" -eq 1
	[ $rc -eq 0 ] || tail -5 "$TMP/sel.err" | sed 's/^/#   /'
done

# The variants compared with each other, as the page shows.
ex=$(grep -m1 '^bench-versions 1\.0\.0 1\.2\.0 --ops dot --vs-backend' "$ROOT/docs/suites.md")
eval "set -- ${ex#bench-versions }"
"$BV" "$@" --results "$TMP/vs" > "$TMP/vs.out" 2> "$TMP/vs.err"
rc=$?
check "'$ex': exit 0 ($rc)" test $rc -eq 0
check "... unrolled is faster than simple on 1.0.0, told apart" \
	contains "$TMP/vs.out" "^  1\.0\.0 +lumen/dot/64K +unrolled, 0\.[0-9]{3} \[[0-9.]+, [0-9.]+\] of simple's time"

# Bisect and history over the walk-through's tags, as the page shows them:
# dot's unrolled variant is three times slower from 1.2.0 on.
ex=$(grep -m1 '^bench-versions bisect --good v1\.0\.0 ' "$ROOT/docs/suites.md")
check "docs/suites.md shows a bisect with the suite" test -n "$ex"
eval "set -- ${ex#bench-versions }"
"$BV" "$@" > "$TMP/bisect.out" 2> "$TMP/bisect.err"
rc=$?
check "'$ex': exit 0 ($rc)" test $rc -eq 0
check "... names 1.2.0's commit as the first slower one, slower than its parent" \
	bash -c "grep -q '^first slower commit: $(git -C "$LIB" rev-parse 'v1.2.0^{commit}')\$' '$TMP/bisect.out' &&
		 grep -qE '^  vs parent [0-9a-f]{12}: [0-9.]+ \[[0-9.]+, [0-9.]+\] slower' '$TMP/bisect.out'"
grep -q "^first slower" "$TMP/bisect.out" || sed 's/^/#   /' "$TMP/bisect.out" "$TMP/bisect.err" | tail -20
ex=$(grep -m1 '^bench-versions history v1\.0\.0\.\.v1\.2\.0 ' "$ROOT/docs/suites.md")
check "docs/suites.md shows a history with the suite" test -n "$ex"
eval "set -- ${ex#bench-versions }"
"$BV" "$@" --results "$TMP/hist" > "$TMP/hist.out" 2> "$TMP/hist.err"
rc=$?
check "'$ex': exit 0 ($rc)" test $rc -eq 0
sed 's/^/#   /' "$TMP/hist.out"
check "... one change: dot's unrolled variant, slower from 1.1.0 to 1.2.0; simple has none" \
	python3 - "$(ls "$TMP"/hist/*/history.json | head -1)" "$(git -C "$LIB" rev-parse 'v1.1.0^{commit}')" \
	"$(git -C "$LIB" rev-parse 'v1.2.0^{commit}')" <<'PY'
import json, sys
doc, before, after = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
ch = doc["changes"]
assert len(ch) == 1 and ch[0]["cell"] == "lumen/dot/unrolled/64K" and ch[0]["direction"] == "slower", ch
assert ch[0]["from_commit"] == before and ch[0]["to_commit"] == after, ch[0]
assert {x["cell"] for x in doc["cells"]} == {"lumen/dot/simple/64K", "lumen/dot/unrolled/64K"}, doc["cells"]
PY
# Any parameter as the compared one (--vs level=1), as the page shows:
# pack's level 9 searches a window nine times level 1's, about 3x the time.
ex=$(grep -m1 '^bench-versions 1\.0\.0 1\.2\.0 --ops pack --vs level=1' "$ROOT/docs/suites.md")
check "docs/suites.md shows --vs level=1" test -n "$ex"
eval "set -- ${ex#bench-versions }"
"$BV" "$@" --results "$TMP/vsl" > "$TMP/vsl.out" 2> "$TMP/vsl.err"
rc=$?
check "'$ex': exit 0 ($rc)" test $rc -eq 0
sed -n '/^levels vs/,$p' "$TMP/vsl.out" | sed 's/^/#   /'
check "... pack[level=9] is slower than level=1 in both versions, by 2-4.9x, its interval past 1" \
	bash -c "[ \$(grep -cE '^  1\.(0|2)\.0 +lumen/pack\[level=9\]/default/16K +[2-4]\.[0-9]{3} \[([2-4]\.|1\.[1-9])[0-9]*, [0-9.]+\] slower' '$TMP/vsl.out') -eq 2 ]"
check "... and level=1 the fastest level of pack, in both" \
	bash -c "[ \$(grep -cE '^  1\.(0|2)\.0 +lumen/pack/default/16K +level=1, 0\.[0-9]{3} \[[0-9., ]+\] of level=9.s time' '$TMP/vsl.out') -eq 2 ]"

# ---- a changed output with no reference: checked against the baseline's
# The working tree's lm_pack writes its tokens the other way round (distance
# first): the same compression, other bytes.  pack has no reference, so only
# the comparison with the baseline version's output can tell.
sed -i 's/out\[o++\] = (unsigned char)best, out\[o++\] = (unsigned char)dist;/out[o++] = (unsigned char)dist, out[o++] = (unsigned char)best;/' "$LIB/src/pack.c"
git -C "$LIB" diff --quiet -- src/pack.c && echo "# the sed above changed nothing"
"$BV" 1.2.0 local --ops pack --quick --results "$TMP/res-local" > "$TMP/local.out" 2> "$TMP/local.err"
rc=$?
check "a changed byte output, no reference: exit 0 ($rc)" test $rc -eq 0
check "... pack[level=9] is wrong result on local, against 1.2.0's output" \
	contains "$TMP/local.out" "^lumen +pack\[level=9\] +default +16K +[0-9.]+ [mu]?s +wrong result"
check "... naming the first differing element" \
	contains "$TMP/local.out" "note: wrong result: lumen/pack\[level=9\]/default/16K on local: output differs from 1\.2\.0's at element [0-9]+ of [0-9]+"
grep -q "output differs" "$TMP/local.out" || sed 's/^/#   /' "$TMP/local.out" "$TMP/local.err" | tail -20
git -C "$LIB" checkout -q -- src/pack.c

# ---- what a suite may do wrong: each costs its own cell, or says which
# benchmark breaks the rules.  Another suite of the same repository, named
# by a project file of its own (BENCH_VERSIONS_PROJECT).
mkdir -p "$LIB/bench/bad"
cat > "$LIB/bench-bad.json" <<'E'
{ "schema_version": 1, "name": "lumen", "dir": ".", "suite": "bench/bad" }
E
cat > "$LIB/bench/bad/bad.c" <<'E'
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bv_suite.h>
#include "lumen.h"
static int fine_run(bvs_ctx *c) { (void)c; return BVS_OK; }
static int crash(bvs_ctx *c) { (void)c; raise(SIGSEGV); return BVS_OK; }
/* Code that kills the measuring process (its child's parent): in each
 * version's check, and in the timing only (the check's one call passes). */
static int kill_parent(bvs_ctx *c) { (void)c; kill(getppid(), SIGKILL); return BVS_OK; }
static int kill_parent_later(bvs_ctx *c)
{
	static int calls;
	(void)c;
	if (++calls > 1)
		kill(getppid(), SIGKILL);
	return BVS_OK;
}
static int hang(bvs_ctx *c) { (void)c; for (volatile int i = 0;; i++) ; return BVS_OK; }
static int hog(bvs_ctx *c) /* a leak that never stops, each page touched */
{
	(void)c;
	for (;;) /* as a program that never checks malloc does */
		memset(malloc(1 << 20), 1, 1 << 20);
	return BVS_OK;
}
static int no_isa(bvs_ctx *c) { return bvs_skip(c, "this CPU has no AVX-1024"); }
static int out_fine(bvs_ctx *c) { static const unsigned char b[4] = {1, 2, 3, 4}; bvs_output(c, b, 4, BVS_U8); return BVS_OK; }
static const bvs_benchmark benchmarks[] = {
	{.name = "fine", .run = fine_run, .check = out_fine},
	/* early: the cells before them in a killed process are measured
	 * again in the next (a hang's timeout each time) */
	{.name = "kills_runner", .setup = kill_parent, .run = fine_run},
	{.name = "kills_runner_timed", .run = kill_parent_later},
	{.name = "fine_after", .run = fine_run, .check = out_fine},
	{.name = "setup_crashes", .setup = crash, .run = fine_run},
	{.name = "setup_hangs", .setup = hang, .run = fine_run},
	{.name = "setup_hogs", .setup = hog, .run = fine_run},
	{.name = "check_crashes", .run = fine_run, .check = crash},
	{.name = "needs_isa", .setup = no_isa, .run = fine_run},
	{0},
};
BVS_SUITE("bad", benchmarks)
E
BENCH_VERSIONS_PROJECT="$LIB/bench-bad.json" timeout 300 "$BV" 1.1.0 1.2.0 --quick --timeout 5 --memory-limit 256M \
	--results "$TMP/res-bad" > "$TMP/bad.out" 2> "$TMP/bad.err"
rc=$?
check "a suite whose setups crash, hang, exhaust memory and kill the measuring process: the run goes on (exit $rc)" test $rc -eq 0
sed 's/^/#   /' "$TMP/bad.out" | head -12
[ $rc -eq 0 ] || tail -5 "$TMP/bad.err" | sed 's/^/#   /'
check "... fine is measured" contains "$TMP/bad.out" "^bad +fine +default +1 +[0-9.]+ [mun]?s +[0-9.]+ [mun]?s"
check "... and so is fine_after, a cell after the ones that killed the measuring process" \
	contains "$TMP/bad.out" "^bad +fine_after +default +1 +[0-9.]+ [mun]?s +[0-9.]+ [mun]?s"
check "... the cells whose code killed the measuring process are crashed in the table" \
	bash -c "grep -qE '^bad +kills_runner +default +1 +crashed +crashed' '$TMP/bad.out' && grep -qE '^bad +kills_runner_timed +default +1 +crashed +crashed' '$TMP/bad.out'"
check "... and the run never stopped on it (no 'measuring process N exited')" \
	bash -c "! grep -q 'measuring process [0-9]* exited' '$TMP/bad.err'"
check "... saying which cell the killed measuring process was in" \
	contains "$TMP/bad.err" "^measure: measuring process [0-9]+ was killed by signal 9 \(Killed\) in cell bad/kills_runner/default/1"
bad=$(ls -d "$TMP"/res-bad/[0-9]*/ | head -1)
check "... each bad cell has its own status and reason, both versions" python3 - "$bad/1.1.0.json" "$bad/1.2.0.json" <<'PY'
import json, sys
for log in sys.argv[1:]:
    cells = {c["op"]: (c["status"], c.get("reason") or "") for c in json.load(open(log))["cells"]}
    want = {"setup_crashes": ("crashed", "signal 11"), "setup_hangs": ("timeout", "5"),
            "setup_hogs": ("out of memory", ""), "check_crashes": ("crashed", "signal 11"), "fine": ("ok", ""),
            "needs_isa": ("skipped", "this CPU has no AVX-1024"), "fine_after": ("ok", ""),
            "kills_runner": ("crashed", "the benchmark killed the measuring process (signal 9"),
            "kills_runner_timed": ("crashed", "the benchmark killed the measuring process (signal 9")}
    for op, (st, why) in want.items():
        got = cells.get(op)
        assert got and got[0] == st and why in got[1], (op, got, st, why)
PY

# A measuring process that dies outside any cell (here its plugin, loaded,
# kills it before the first cell) is the runner's own failure: the run
# stops, saying so, as before; no cell is blamed.
mkdir -p "$LIB/bench/dies"
printf '{ "schema_version": 1, "name": "lumen", "dir": ".", "suite": "bench/dies" }\n' > "$LIB/bench-dies.json"
cat > "$LIB/bench/dies/dies.c" <<'E'
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bv_suite.h>
/* At load in a measuring process (its arguments hold --only), not in the
 * one that describes the suite. */
__attribute__((constructor)) static void die_at_load(void)
{
	char cmd[8192] = "";
	FILE *f = fopen("/proc/self/cmdline", "r");
	size_t n = f ? fread(cmd, 1, sizeof(cmd) - 1, f) : 0;
	if (f)
		fclose(f);
	for (size_t i = 0; i < n; i++)
		cmd[i] = cmd[i] ? cmd[i] : ' ';
	if (strstr(cmd, " --only "))
		kill(getpid(), SIGKILL);
}
static int fine_run(bvs_ctx *c) { (void)c; return BVS_OK; }
static const bvs_benchmark benchmarks[] = {{.name = "fine", .run = fine_run}, {0}};
BVS_SUITE("dies", benchmarks)
E
BENCH_VERSIONS_PROJECT="$LIB/bench-dies.json" timeout 300 "$BV" 1.1.0 1.2.0 --quick --results "$TMP/res-dies" \
	> "$TMP/dies.out" 2> "$TMP/dies.err"
rc=$?
check "a measuring process killed outside any cell: the run stops, exit 3 (exit $rc)" test $rc -eq 3
check "... saying the measuring process's status, as a failure of its own, no cell named" \
	bash -c "grep -q 'measuring process 1 exited with status 137' '$TMP/dies.err' && ! grep -q 'was killed by signal 9 .* in cell' '$TMP/dies.err'"
grep -q 'measuring process 1 exited' "$TMP/dies.err" || tail -5 "$TMP/dies.err" | sed 's/^/#   /'

# The rules a suite must keep, each refused naming the benchmark: two
# benchmarks with one name, a parameter without values, one with more than
# 64, a benchmark of more than 4096 cells.
broken() { # NAME PARAMS-LINE PATTERN: a suite whose benchmarks array is PARAMS-LINE
	cat > "$LIB/bench/bad/bad.c" <<E
#include <bv_suite.h>
static int run(bvs_ctx *c) { (void)c; return BVS_OK; }
static const bvs_benchmark benchmarks[] = {
	$2
	{0},
};
BVS_SUITE("bad", benchmarks)
E
	BENCH_VERSIONS_PROJECT="$LIB/bench-bad.json" timeout 60 "$BV" 1.1.0 1.2.0 --quick --results "$TMP/res-broken" \
		> "$TMP/broken.out" 2> "$TMP/broken.err"
	local rc=$?
	check "$1: refused, not measured (exit $rc)" test $rc -ne 0 -a $rc -ne 1
	check "$1: says '$3'" contains "$TMP/broken.err" "$3"
	contains "$TMP/broken.err" "$3" || tail -5 "$TMP/broken.err" | sed 's/^/#   /'
}
broken "two benchmarks with one name" '{.name = "x", .run = run}, {.name = "x", .run = run},' "benchmark.*x.*(twice|duplicate|more than once)"
broken "a parameter without values" '{.name = "x", .params = "level=", .run = run},' "x.*level"
values=$(seq -s, 1 65)
broken "a parameter with 65 values" "{.name = \"x\", .params = \"level=$values\", .run = run}," "x.*level.*64"
broken "a benchmark of more than 4096 cells (16 x 16 x 17)" "{.name = \"x\", .params = \"a=$(seq -s, 1 16) b=$(seq -s, 1 16) c=$(seq -s, 1 17)\", .run = run}," "x.*4096"

finish
