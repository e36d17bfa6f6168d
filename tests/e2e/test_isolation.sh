#!/usr/bin/env bash
# End to end: one bad cell never costs the others.  A working tree whose neg
# crashes, whose sqrt hangs and whose relu is 3x slower; the table shows both as cell statuses and the
# rest of the matrix is measured.  Also: the same build twice (A/A), isolated
# mode, pinning and thread counts recorded, rates and peaks as units.
source "$(dirname "$0")/lib.sh"
make_fixture

python3 - "$FIX/kernels/src/scalar.c" <<'PY'
import sys
p = sys.argv[1]; s = open(p).read()
neg = "\tcase KN_NEG:\n"
sqrt = "\tcase KN_SQRT:\n"
assert neg in s and sqrt in s, "fixture: the neg/sqrt cases moved; update the planted faults"
s = s.replace(neg, neg + "\t\t*(volatile float *)0 = 1.0f; /* planted crash */\n")
s = s.replace(sqrt, sqrt + "\t\tfor (volatile int spin = 1; spin;) /* planted hang */\n\t\t\t;\n")
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
check "the crash is the cell's status, with the signal" contains "$TMP/out" "^unary +neg +scalar +1K +[0-9.]+ ns +crashed"
check "the hang is the cell's status" contains "$TMP/out" "^unary +sqrt +scalar +1K +[0-9.]+ [nu]s +timeout"
check "the other cells are measured" contains "$TMP/out" "^unary +abs +scalar +1K +[0-9.]+ ns +[0-9.]+ ns +[01]\.[0-9]{3} \["
# Paid once: only the first process's document has the hang (later ones drop
# that version in that cell), though several processes ran.  Counted, not
# timed, so a loaded machine cannot fail it; the wall time is shown.
raw=$(ls -d "$TMP"/results/*/raw | head -1)
hung=$(grep -l '"status":[[:space:]]*"timeout"' "$raw"/process-*.json | wc -l)
procs=$(ls "$raw"/process-*.json | wc -l)
check "the hang's timeout is paid once, not in every process ($hung of $procs processes, ${took}s)" \
	test "$hung" -eq 1 -a "$procs" -ge 6
logs=$(ls -d "$TMP"/results/*/ | head -1)
check "logs give the reason" python3 - "$logs/local.json" <<'PY'
import json, sys
cells = {c["op"]: c for c in json.load(open(sys.argv[1]))["cells"]}
assert cells["neg"]["status"] == "crashed" and "signal 11" in cells["neg"]["reason"], cells["neg"]
assert cells["sqrt"]["status"] == "timeout" and "2 s" in cells["sqrt"]["reason"], cells["sqrt"]
assert cells["abs"]["status"] == "ok" and cells["abs"]["processes"] >= 6
PY

# The same build under two labels: loaded twice as two copies, and "same".
"$BV" main main --ops abs,relu --backends scalar --sizes 64K --quick --results "$TMP/results" > "$TMP/aa" 2> "$TMP/aa.err"
check "the same version twice gets two labels" contains "$TMP/aa" "^bench +op +backend +size +main +main-2 +main-2/main"
check "A/A of one build is the same in every cell" test "$(grep -cE '^unary .* same' "$TMP/aa")" -eq 2

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
check "pinning and threads are in the log" python3 - "$(ls "$TMP"/pin/*/main.json)" <<'PY'
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
