#!/usr/bin/env bash
# End to end: one bad cell never costs the others.  A working tree whose neg
# crashes, whose sqrt hangs, whose log allocates and touches 1 GiB (sigmoid
# the same through a shared anonymous mapping, tanh through a memfd) and
# whose relu is 3x slower; the table shows each as the cell's status and the rest
# of the matrix is measured.  Its exp leaves a setsid'd process behind
# holding every descriptor it inherited, then crashes: the run still ends,
# and that process with it.  Also: the same build twice (A/A), isolated
# mode, pinning and thread counts recorded, rates and peaks as units.
source "$(dirname "$0")/lib.sh"
make_fixture

# The escapee's argv[0] is a path under $TMP: pgrep finds this test's alone.
ESCAPEE="$TMP/bv-escapee"
python3 - "$FIX/kernels/src/scalar.c" "$ESCAPEE" <<'PY'
import sys
p, escapee = sys.argv[1:3]; s = open(p).read()
neg = "\tcase KN_NEG:\n"
sqrt = "\tcase KN_SQRT:\n"
exp = "\tcase KN_EXP:\n"
assert neg in s and sqrt in s and exp in s, "fixture: the neg/sqrt/exp cases moved; update the planted faults"
s = s.replace(neg, neg + "\t\t*(volatile float *)0 = 1.0f; /* planted crash */\n")
# A new session leaves the measuring child's process group; sleep keeps the
# result pipe and bv-runner's stdout and stderr open.
s = s.replace("#include <string.h>\n", "#include <string.h>\n#include <unistd.h>\n", 1)
s = s.replace(exp, exp + "\t\tif (fork() == 0) { /* planted escapee */\n"
	"\t\t\tsetsid();\n"
	"\t\t\texecl(\"/bin/sleep\", \"%s\", \"987654\", (char *)0);\n"
	"\t\t\t_exit(127);\n"
	"\t\t}\n"
	"\t\t*(volatile float *)0 = 1.0f;\n" % escapee)
s = s.replace(sqrt, sqrt + "\t\tfor (volatile int spin = 1; spin;) /* planted hang */\n\t\t\t;\n")
# A hog: 1 GiB allocated and touched, unchecked (malloc's NULL is written
# through, as a kernel that never expected to run out would).
log = "\tcase KN_LOG:\n"
assert log in s, "fixture: the log case moved; update the planted hog"
s = s.replace("#include <string.h>\n", "#include <string.h>\n#include <stdlib.h>\n", 1)
s = s.replace(log, log + "\t\t{ /* planted hog */\n"
	"\t\t\tchar *volatile big = malloc((size_t)1 << 30);\n"
	"\t\t\tmemset(big, 1, (size_t)1 << 30);\n"
	"\t\t\ty[0] = big[4096];\n"
	"\t\t}\n")
# The same 1 GiB through shared mappings, which RLIMIT_DATA does not count:
# anonymous (sigmoid) and a memfd (tanh).  Unmapped after each call, so an
# unlimited run holds 1 GiB at a time, not one per call.
sigmoid, tanh = "\tcase KN_SIGMOID:\n", "\tcase KN_TANH:\n"
assert sigmoid in s and tanh in s, "fixture: the sigmoid/tanh cases moved; update the planted shared hogs"
s = s.replace("#include <string.h>\n", "#include <string.h>\n#include <sys/mman.h>\n", 1)
s = s.replace(sigmoid, sigmoid + "\t\t{ /* planted shared hog */\n"
	"\t\t\tchar *big = mmap(0, (size_t)1 << 30, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);\n"
	"\t\t\tif (big != MAP_FAILED) {\n"
	"\t\t\t\tmemset(big, 1, (size_t)1 << 30);\n"
	"\t\t\t\tmunmap(big, (size_t)1 << 30);\n"
	"\t\t\t}\n"
	"\t\t}\n")
s = s.replace(tanh, tanh + "\t\t{ /* planted memfd hog */\n"
	"\t\t\tint fd = memfd_create(\"bv-hog\", 0);\n"
	"\t\t\tchar *big = fd >= 0 && ftruncate(fd, (off_t)1 << 30) == 0\n"
	"\t\t\t\t? mmap(0, (size_t)1 << 30, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;\n"
	"\t\t\tif (big != MAP_FAILED) {\n"
	"\t\t\t\tmemset(big, 1, (size_t)1 << 30);\n"
	"\t\t\t\tmunmap(big, (size_t)1 << 30);\n"
	"\t\t\t}\n"
	"\t\t\tif (fd >= 0)\n"
	"\t\t\t\tclose(fd);\n"
	"\t\t}\n")
relu = "\tcase KN_RELU:\n\t\tfor (i = 0; i < n; i++)"
assert relu in s, "fixture: the relu loop moved; update the planted slowdown"
s = s.replace(relu, "\tcase KN_RELU:\n\t\tfor (int rep = 0; rep < 3; rep++)\n\t\tfor (i = 0; i < n; i++)")
open(p, "w").write(s)
PY

args=(--benches unary --ops abs,neg,sqrt --backends scalar --sizes 1K --quick --timeout 2 --results "$TMP/results")
start=$(date +%s)
"$BV" 0.1.0 local "${args[@]}" > "$TMP/out" 2> "$TMP/err"
rc=$? took=$(( $(date +%s) - start ))
check "a crashing and a hanging cell do not fail the run" test $rc -eq 0
check "the crash is the cell's status, with the signal" contains "$TMP/out" "^unary +neg +scalar +1K +[0-9.]+ [nu]s +crashed"
check "the hang is the cell's status" contains "$TMP/out" "^unary +sqrt +scalar +1K +[0-9.]+ [nu]s +timeout"
check "the other cells are measured" contains "$TMP/out" "^unary +abs +scalar +1K +[0-9.]+ [nu]s +[0-9.]+ [nu]s +[01]\.[0-9]{3} \["
# Paid once: only the first process's document has the hang (later ones drop
# that version in that cell), though several processes ran.  Counted, not
# timed, so a loaded machine cannot fail it; the wall time is shown.
raw=$(ls -d "$TMP"/results/[0-9]*/raw | head -1)
hung=$(grep -l '"status":[[:space:]]*"timeout"' "$raw"/process-*.json | wc -l)
procs=$(ls "$raw"/process-*.json | wc -l)
check "the hang's timeout is paid once, not in every process ($hung of $procs processes, ${took}s)" \
	test "$hung" -eq 1 -a "$procs" -ge 6
logs=$(ls -d "$TMP"/results/[0-9]*/ | head -1)
check "logs give the reason" python3 - "$logs/local.json" <<'PY'
import json, sys
cells = {c["op"]: c for c in json.load(open(sys.argv[1]))["cells"]}
assert cells["neg"]["status"] == "crashed" and "signal 11" in cells["neg"]["reason"], cells["neg"]
assert cells["sqrt"]["status"] == "timeout" and "2 s" in cells["sqrt"]["reason"], cells["sqrt"]
assert cells["abs"]["status"] == "ok" and cells["abs"]["processes"] >= 6
PY

# A kernel that allocates far past --memory-limit stops its own cell, as
# "out of memory", not the machine (the system's OOM killer picks any
# process); the run goes on and ends as for a crashed cell.
if [[ "${BV_BIN_DIR:-bin}" == *asan* ]]; then
	# The sanitizer's allocator reports the refusal itself (a report file,
	# exit 1) before the kernel sees the NULL.
	skip "a cell past --memory-limit is out of memory" "the ASan build's allocator reports refused allocations itself"
else
	"$BV" 0.1.0 local --benches unary --ops abs,log,sigmoid,tanh --backends scalar --sizes 1K --quick --timeout 20 \
		--memory-limit 256M --results "$TMP/oom" > "$TMP/oom.out" 2> "$TMP/oom.err"
	rc=$?
	check "a cell past --memory-limit does not fail the run (exit $rc)" test $rc -eq 0
	check "that cell is out of memory" contains "$TMP/oom.out" "^unary +log +scalar +1K +[0-9.]+ [nu]s +out of memory"
	check "a cell past it through a shared anonymous mapping is out of memory too" \
		contains "$TMP/oom.out" "^unary +sigmoid +scalar +1K +[0-9.]+ [nu]s +out of memory"
	check "... and one past it through a memfd" contains "$TMP/oom.out" "^unary +tanh +scalar +1K +[0-9.]+ [nu]s +out of memory"
	check "the other cell is measured" contains "$TMP/oom.out" "^unary +abs +scalar +1K +[0-9.]+ [nu]s +[0-9.]+ [nu]s +[01]\.[0-9]{3} \["
	check "the log says why, and the limit is recorded" python3 - "$(ls -d "$TMP"/oom/[0-9]*/ | head -1)" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1] + "local.json"))
cells = {c["op"]: c for c in doc["cells"]}
assert cells["log"]["status"] == "out of memory", cells["log"]
assert "--memory-limit (256 MiB" in cells["log"]["reason"], cells["log"]
assert cells["abs"]["status"] == "ok", cells["abs"]
for op in ("sigmoid", "tanh"):
    assert cells[op]["status"] == "out of memory", cells[op]
    assert "shared memory" in cells[op]["reason"] and "--memory-limit (256 MiB" in cells[op]["reason"], cells[op]
assert doc["method"]["memory_limit_bytes"] == 256 << 20, doc["method"]
base = {c["op"]: c for c in json.load(open(sys.argv[1] + "0.1.0.json"))["cells"]}
for op in ("log", "sigmoid", "tanh"):
    assert base[op]["status"] == "ok", base[op]
PY
	"$BV" 0.1.0 local --ops abs --memory-limit 2X > /dev/null 2> "$TMP/oom.err"
	check "a bad --memory-limit is a usage error that says what a size is" \
		sh -c '[ $1 -eq 2 ] && grep -q -- "--memory-limit .2X.: expected a size in bytes, or a number with K, M, G or T" "$2"' \
		_ $? "$TMP/oom.err"
fi

# A kernel that leaves a process in a session of its own, holding the pipes:
# neither bv-runner's read of its child nor ours of bv-runner waits for it.
# Bounded by timeout, so a regression fails here instead of hanging.
escapees() { pgrep -f "^$ESCAPEE 987654" > /dev/null; }
start=$(date +%s)
timeout -k 5 120 "$BV" 0.1.0 local --benches unary --ops abs,exp --backends scalar --sizes 1K --quick \
	--timeout 2 --results "$TMP/escape" > "$TMP/escape.out" 2> "$TMP/escape.err"
rc=$? took=$(( $(date +%s) - start ))
check "a setsid'd process of a kernel does not hang the run (exit $rc after ${took}s)" test $rc -eq 0
check "that cell is crashed or timeout" contains "$TMP/escape.out" "^unary +exp +scalar +1K +[0-9.]+ [nu]s +(crashed|timeout)"
check "the other cell is measured" contains "$TMP/escape.out" "^unary +abs +scalar +1K +[0-9.]+ [nu]s +[0-9.]+ [nu]s +[01]\.[0-9]{3} \["
check "the logs are written" python3 - "$(ls -d "$TMP"/escape/[0-9]*/ | head -1)local.json" <<'PY'
import json, sys
cells = {c["op"]: c for c in json.load(open(sys.argv[1]))["cells"]}
assert cells["exp"]["status"] in ("crashed", "timeout"), cells["exp"]
assert cells["abs"]["status"] == "ok", cells["abs"]
PY
gone() { for _ in $(seq 25); do escapees || return 0; sleep 0.2; done; return 1; }
check "no process the kernel left survives the run" gone
# A regression leaves them: end them here, by their ids, not in later tests.
for p in $(pgrep -f "^$ESCAPEE 987654"); do kill -KILL "$p" 2> /dev/null; done

# The same build under two labels: loaded twice as two copies, and "same".
"$BV" main main --ops abs,relu --backends scalar --sizes 64K --quick --results "$TMP/results" > "$TMP/aa" 2> "$TMP/aa.err"
check "the same version twice gets two labels" contains "$TMP/aa" "^bench +op +backend +size +main +main-2 +main-2/main"
# not called in either: same, or inconclusive when load puts an estimate
# past the band, or unstable when the machine changed under it
# (docs/measurement.md): two rows, neither slower nor faster
check "A/A of one build is called in no cell" \
	bash -c "[ \$(grep -cE '^unary .* (same|inconclusive|unstable)' '$TMP/aa') -eq 2 ] && ! grep -qE '^unary .* (slower|faster)' '$TMP/aa'"

# Isolated mode: one process per version; a 3x relu slowdown survives it.
"$BV" 0.1.0 local --isolated --ops relu --backends scalar --sizes 64K --quick --format json \
	--results "$TMP/results" > "$TMP/iso" 2> "$TMP/iso.err"
check "isolated mode runs a process per version" contains "$TMP/iso.err" "measure: process 1 \(one per version\)"
check "isolated mode is named on every change" python3 - "$TMP/iso" <<'PY'
import json, sys
row = json.load(open(sys.argv[1]))["rows"][0]
ch = row["changes"][0]
assert ch["mode"] == "isolated" and ch["paired"] is False and ch["verdict"] == "slower", ch
PY

# Pinning and threads are recorded; units change what a result shows.
"$BV" main --ops abs --backends scalar --sizes 64K --quick --pin 0 --threads 2 --units rate \
	--results "$TMP/pin" > "$TMP/rate" 2>&1
check "--units rate shows bandwidth" contains "$TMP/rate" "^unary +abs +scalar +64K +[0-9.]+ GB/s"
check "pinning and threads are in the log" python3 - "$(ls "$TMP"/pin/[0-9]*/main.json)" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))["method"]
assert m["pinned_cpu"] == 0 and m["threads"] == 2, m
PY
"$BV" main --ops abs --backends scalar --sizes 64K --quick --units peak --results "$TMP/pin" > "$TMP/peak" 2>&1
check "--units peak shows the share of the machine's peak" contains "$TMP/peak" "^unary +abs +scalar +64K +[0-9]+% of copy bw"
"$BV" main --pin 100000 > /dev/null 2> "$TMP/badpin"
check "a CPU that does not exist is a usage error" test $? -eq 2
check "and says which CPUs exist" contains "$TMP/badpin" "this machine has CPUs 0-"
"$BV" main --units furlongs > /dev/null 2>&1
check "unknown units are a usage error" test $? -eq 2
finish
