#!/usr/bin/env bash
# End to end: the counts under Valgrind (orchestrator/measure/counts.c) when what
# they rest on is wrong.  A cached count that changed after it was written
# (its Ir doubled, another cell's entry copied over it) is made again, never
# shown as the "why"; a process the counted code started and that left its
# group (setsid, SIGTERM ignored) does not outlive the run; a Valgrind that
# never answers --version neither hangs the run nor outlives a killed
# bench-versions; and one that exits 0 writing nothing is said as such, not
# as a crash, and not cached.  A tiny suite project, two versions whose
# tiny_sum is the same code (identical counts); 1.1's tiny_squares does
# three times the work.
source "$(dirname "$0")/lib.sh"
if [ "${BV_BIN_DIR:-bin}" != bin ]; then
	skip "the counts' faults" "$BV_BIN_DIR: a sanitizer build's runner cannot run under Valgrind"
	finish
fi

LIB="$TMP/tiny"
mkdir -p "$LIB/include" "$LIB/src" "$LIB/bench/suite"
printf '%s\n' 'BUILD ?= build' 'lib:' \
	'	mkdir -p $(BUILD)' \
	'	$(CC) -O2 -fPIC -Iinclude -c src/tiny.c -o $(BUILD)/tiny.o' \
	'	ar rcs $(BUILD)/libtiny.a $(BUILD)/tiny.o' > "$LIB/Makefile"
cat > "$LIB/include/tiny.h" <<'E'
#include <stddef.h>
double tiny_sum(const double *x, size_t n);
double tiny_squares(const double *x, size_t n);
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

double tiny_squares(const double *x, size_t n)
{
	double s = 0;
	for (int rep = 0; rep < 1; rep++)
		for (size_t i = 0; i < n; i++)
			s += x[i] * x[i];
	return s;
}
E
cat > "$LIB/bench-versions.json" <<'E'
{"schema_version": 1, "name": "tiny", "dir": ".", "version": {"tag": ""}, "suite": "bench/suite"}
E
# total: the sum; twice: the sum twice (another cell, other counts); grow:
# the squares, three times the work in 1.1 (a change, so compare shows its
# counts);
# linger: the sum, its setup leaving a process that leaves its session,
# ignores SIGTERM and writes its pid to linger.pids.
cat > "$LIB/bench/suite/suite.c" <<E
#include <bv_suite.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include "tiny.h"

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
	return BVS_OK;
}

static int setup_linger(bvs_ctx *c)
{
	if (fork() == 0) {
		setsid();
		signal(SIGTERM, SIG_IGN);
		FILE *f = fopen("$TMP/linger.pids", "a");
		if (f)
			fprintf(f, "%d\n", (int)getpid()), fclose(f);
		for (;;)
			pause();
	}
	return setup(c);
}

static int run_sum(bvs_ctx *c)
{
	state *s = bvs_state(c);
	s->out = tiny_sum(s->x, s->n);
	return BVS_OK;
}

static int run_twice(bvs_ctx *c)
{
	state *s = bvs_state(c);
	s->out = tiny_sum(s->x, s->n) + tiny_sum(s->x, s->n);
	return BVS_OK;
}

static int run_squares(bvs_ctx *c)
{
	state *s = bvs_state(c);
	s->out = tiny_squares(s->x, s->n);
	return BVS_OK;
}

static const bvs_benchmark benchmarks[] = {
	{.name = "total", .params = "size=16K", .setup = setup, .run = run_sum},
	{.name = "twice", .params = "size=16K", .setup = setup, .run = run_twice},
	{.name = "grow", .params = "size=16K", .setup = setup, .run = run_squares},
	{.name = "linger", .params = "size=1K", .setup = setup_linger, .run = run_sum},
	{0},
};
BVS_SUITE("tiny", benchmarks)
E
git -C "$LIB" init -q -b main
git -C "$LIB" add -A
git -C "$LIB" commit -qm "tiny 1.0"
git -C "$LIB" tag 1.0
sed -i 's/rep < 1;/rep < 3;/' "$LIB/src/tiny.c"
git -C "$LIB" commit -qam "tiny 1.1: tiny_squares does three times the work"
git -C "$LIB" tag 1.1
cd "$LIB"
unset KERNEL_DIR KERNEL_REPO BENCH_VERSIONS_COMPAT BENCH_VERSIONS_PROJECT BENCH_VERSIONS_OPS BV_VALGRIND

# alive PID: a process, not a zombie (whoever reaps it may not have yet)
alive() { [ -r "/proc/$1/stat" ] && ! awk '{ exit $3 != "Z" }' "/proc/$1/stat" 2> /dev/null; }
# none_alive FILE [SECONDS]: no pid FILE lists is alive, within SECONDS (0)
none_alive() {
	local p i
	for i in $(seq 0 "${2:-0}"); do
		[ $i -eq 0 ] || sleep 1
		for p in $(cat "$1" 2> /dev/null); do alive "$p" && continue 2; done
		return 0
	done
	return 1
}
# kill_listed FILE: what a failed check left, so it does not outlive the test
kill_listed() { for p in $(cat "$1" 2> /dev/null); do kill -KILL "$p" 2> /dev/null; done; }
# why_of FILE OP: the "why" of 1.1's row for OP in the table FILE
why_of() { grep -E "^tiny +$2 " "$1"; }

if command -v valgrind > /dev/null; then
	# ---- a cached count that changed is made again, never shown ----------
	timeout 600 "$BV" 1.0 1.1 --quick --ops total,twice,grow --counts all --wide --results "$TMP/res" > "$TMP/first" 2> "$TMP/first.err"
	rc=$?
	check "run --counts all: exit 0 (exit $rc)" test $rc -eq 0
	[ $rc -eq 0 ] || tail -20 "$TMP/first.err" | sed 's/^/#   /'
	check "identical code: same instructions and misses" contains "$TMP/first" "^tiny +total .*same instructions and misses"
	dir=$(ls -d "$TMP"/res/[0-9]*/ | head -1)
	# 1.1's entries in the cache, by cell
	entry() { grep -l "\"label\":[[:space:]]*\"1.1\"" "$BENCH_VERSIONS_CACHE"/counts/*/*.json | xargs grep -l "\"cell\":[[:space:]]*\"tiny/$1/"; }
	total=$(entry total) twice=$(entry twice)
	check "the cache holds 1.1's total and twice" test -f "$total" -a -f "$twice"
	ir() { python3 -c 'import json, sys; print(int(json.load(open(sys.argv[1]))["events"]["Ir"]))' "$1"; }
	ir0=$(ir "$total")
	python3 - "$total" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["events"]["Ir"] *= 2
json.dump(d, open(sys.argv[1], "w"))
PY
	# a run of the same builds takes its counts from the cache
	again() { timeout 600 "$BV" 1.0 1.1 --quick --ops total,twice --counts all --wide --results "$TMP/res-$1" > "$TMP/$1" 2> "$TMP/$1.err"; }
	again dbl
	rc=$?
	check "Ir doubled in a cached count: run exits 0 (exit $rc)" test $rc -eq 0
	check "... the why is still 'same instructions and misses'" contains "$TMP/dbl" "^tiny +total .*same instructions and misses"
	why_of "$TMP/dbl" total | sed 's/^/#   /'
	check "... it says the entry changed and is made again" \
		contains "$TMP/dbl.err" "^counts: the cache's count of 1.1 tiny/total/default/16K .* does not match its digest .*: it is made again"
	check "... counted again under Valgrind" contains "$TMP/dbl.err" "^counts: 1 call under Valgrind"
	check "... and the entry repaired: Ir as first counted" test "$(ir "$total" 2> /dev/null)" = "$ir0"
	# another cell's entry copied over it
	cp "$twice" "$total"
	again swap
	rc=$?
	check "another cell's entry in its place: run exits 0 (exit $rc)" test $rc -eq 0
	check "... the why is still 'same instructions and misses'" contains "$TMP/swap" "^tiny +total .*same instructions and misses"
	why_of "$TMP/swap" total | sed 's/^/#   /'
	check "... it says the entry names another cell" \
		contains "$TMP/swap.err" "^counts: the cache's count of 1.1 tiny/total/default/16K .* names the cell tiny/twice/default/16K, not tiny/total/default/16K: it is made again"
	check "... and the entry repaired" test "$(ir "$total" 2> /dev/null)" = "$ir0"
	# the run's own counts.json, changed: not shown
	grow=$(why_of "$TMP/first" grow | grep -oE "instr [+-][0-9.]+ %")
	check "more work: the counts say so" test -n "$grow"
	echo "#   grow: $grow"
	python3 - "$dir/counts/counts.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["counts"]:
    if c["label"] == "1.1" and c["cell"].startswith("tiny/grow/"):
        c["events"]["Ir"] *= 2
json.dump(d, open(sys.argv[1], "w"))
PY
	"$BV" compare "$dir" --wide > "$TMP/shown" 2> "$TMP/shown.err"
	shown=$(why_of "$TMP/shown" grow | grep -oE "instr [+-][0-9.]+ %")
	check "Ir doubled in the run's counts.json: compare shows no other change than counted ('${shown:-none}')" \
		test -z "$shown" -o "$shown" = "$grow"
	check "... and says why it shows none" \
		contains "$TMP/shown.err" "^counts: counts.json's count of 1.1 tiny/grow/default/16K does not match its digest"

	# ---- a process the counted code left does not outlive the run --------
	rm -f "$TMP/linger.pids"
	timeout 600 "$BV" 1.0 1.1 --quick --ops linger --counts all --results "$TMP/res2" > "$TMP/linger" 2> "$TMP/linger.err"
	rc=$?
	check "a benchmark that leaves a setsid()'d process, --counts all: exit 0 (exit $rc)" test $rc -eq 0
	[ $rc -eq 0 ] || tail -20 "$TMP/linger.err" | sed 's/^/#   /'
	check "... its counts were made" contains "$TMP/linger.err" "^counts: 2 calls under Valgrind"
	n=$(grep -c . "$TMP/linger.pids" 2> /dev/null)
	echo "# $n lingering processes started (timing and counting)"
	check "... none of them alive once run returns" none_alive "$TMP/linger.pids"
	for p in $(cat "$TMP/linger.pids" 2> /dev/null); do
		alive "$p" && echo "#   alive: $p (parent $(awk '{print $4}' "/proc/$p/stat"); $(tr '\0' ' ' < "/proc/$p/cmdline" | cut -c1-80))"
	done
	kill_listed "$TMP/linger.pids"
	real_version=$(valgrind --version)
else
	skip "cached counts, lingering processes" "no valgrind here"
	real_version=valgrind-3.19.0
fi

# ---- a Valgrind that never answers --version ------------------------------
mkdir -p "$TMP/hang"
cat > "$TMP/hang/valgrind" <<E
#!/bin/sh
echo \$\$ >> "$TMP/hang.pids"
trap '' TERM
while :; do sleep 1; done
E
chmod +x "$TMP/hang/valgrind"
PATH="$TMP/hang:$PATH" timeout -k 5 300 "$BV" 1.0 1.1 --quick --ops total --counts all --wide --results "$TMP/res3" \
	> "$TMP/hang.out" 2> "$TMP/hang.err"
rc=$?
check "a valgrind that hangs on --version: run --counts all exits 0 (exit $rc)" test $rc -eq 0
check "... its rows say valgrind did not answer" \
	contains "$TMP/hang.out" "^tiny +total .*not counted: 1\.[01] not run: valgrind did not answer --version within [0-9]+ s"
check "... and the probe does not outlive it" none_alive "$TMP/hang.pids" 5
kill_listed "$TMP/hang.pids"
rm -f "$TMP/hang.pids"
# bench-versions killed while the probe waits: the probe dies with it
PATH="$TMP/hang:$PATH" "$BV" 1.0 1.1 --quick --ops total --counts all --results "$TMP/res4" > /dev/null 2>&1 &
pid=$!
for i in $(seq 1 1500); do [ -s "$TMP/hang.pids" ] && break; sleep 0.2; done # up to 300 s
check "the probe started" test -s "$TMP/hang.pids"
{
	kill -KILL $pid
	wait $pid
} 2> /dev/null # (no "Killed" from the shell)
check "bench-versions SIGKILLed during the probe: the fake valgrind does not outlive it" none_alive "$TMP/hang.pids" 10
kill_listed "$TMP/hang.pids"

# ---- a Valgrind that exits 0 writing nothing -------------------------------
# (no cached count of the real one: those would be taken, not made)
rm -rf "$BENCH_VERSIONS_CACHE/counts"
mkdir -p "$TMP/mute"
cat > "$TMP/mute/valgrind" <<E
#!/bin/sh
[ "\$1" = --version ] && echo "$real_version"
exit 0
E
chmod +x "$TMP/mute/valgrind"
PATH="$TMP/mute:$PATH" timeout 300 "$BV" 1.0 1.1 --quick --ops total --counts all --wide --results "$TMP/res5" \
	> "$TMP/mute.out" 2> "$TMP/mute.err"
rc=$?
check "a valgrind that exits 0 writing nothing: exit 0 (exit $rc)" test $rc -eq 0
check "... its rows say so, not 'crashed'" \
	contains "$TMP/mute.out" "^tiny +total .*not counted: 1\.[01] failed: Valgrind exited 0 without writing its counts"
why_of "$TMP/mute.out" total | sed 's/^/#   /'
if command -v valgrind > /dev/null; then
	timeout 600 "$BV" 1.0 1.1 --quick --ops total --counts all --wide --results "$TMP/res6" > "$TMP/after" 2> "$TMP/after.err"
	check "... and nothing of it cached: the real valgrind counts them" \
		contains "$TMP/after" "^tiny +total .*same instructions and misses"
fi
finish
