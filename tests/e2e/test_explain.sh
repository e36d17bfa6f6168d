#!/usr/bin/env bash
# End to end: why a cell changed (orchestrator/measure/counts.c).  Each side's cell
# is run once under Valgrind's callgrind and the counts are put beside the
# verdict: code that moved but did not change (never-run bytes appended to
# api.c, before scalar.c in the link) has the same instructions and misses,
# and a `slower`/`faster` of it says "placement or machine, not the code";
# a planted 3 % more work in the scalar relu loop is +3 % instructions in
# the function that holds the loop; 0.1 % more (a few instructions per
# thousand elements of a 1M loop) is reported too.  The counts are the same
# run after run and under load; a missing Valgrind, a version that crashes
# under it and a call too slow for it are statuses beside the verdict, never
# a failed run.
source "$(dirname "$0")/lib.sh"
# A sanitizer build's runner cannot run under Valgrind (make test-asan):
# there a changed row says "not counted: ... sanitizer build" (test_export).
if [ "${BV_BIN_DIR:-bin}" != bin ]; then
	skip "why a cell changed (Valgrind's counts)" "$BV_BIN_DIR: a sanitizer build's runner cannot run under Valgrind"
	finish
fi
make_fixture
K="$FIX/kernels/src"
git -C "$FIX" tag base
# never-run bytes after api.c's code: scalar.c's code moves, its bytes do not
cat >> "$K/api.c" <<'C'

/* fixture: never run; moves the code linked after this file */
__attribute__((used, noinline)) void kn_fixture_pad(void) { __asm__ volatile(".skip 416, 0x90"); }
C
git -C "$FIX" commit -qam "pad 416 bytes" && git -C "$FIX" tag pad
# relu's loop over the middle PART of its elements again after the full loop
plant() { # TAG PART-EXPRESSION
	git -C "$FIX" checkout -q base
	python3 - "$K/scalar.c" "$2" <<'PY'
import sys
p, part = sys.argv[1], sys.argv[2]
s = open(p).read()
head = "\tcase KN_RELU:\n\t\tfor (i = 0; i < n; i++)\n\t\t\ty[i] = relu1(x[i]);\n"
assert head in s, "fixture: the relu loop moved; update test_explain.sh"
s = s.replace(head, head + "\t\tfor (i = n / 2; i < n / 2 + (%s); i++)\n\t\t\ty[i] = relu1(x[i]);\n" % part)
open(p, "w").write(s)
PY
	git -C "$FIX" commit -qam "$1" && git -C "$FIX" tag "$1"
}
plant relu3 "n * 3 / 100"
plant relu01 "n / 1000"
# a version that dies under Valgrind only (Valgrind preloads its vgpreload_*.so)
git -C "$FIX" checkout -q base
python3 - "$K/scalar.c" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
head = "\tcase KN_RELU:\n"
s = s.replace(head, head + "\t\tif (getenv(\"LD_PRELOAD\") && strstr(getenv(\"LD_PRELOAD\"), \"vgpreload\"))\n\t\t\tabort();\n", 1)
if "#include <stdlib.h>" not in s:
    s = "#include <stdlib.h>\n" + s
if "#include <string.h>" not in s:
    s = "#include <string.h>\n" + s
open(p, "w").write(s)
PY
git -C "$FIX" commit -qam "dies under valgrind" && git -C "$FIX" tag vgcrash
git -C "$FIX" checkout -q base

# ---- every host cell counted: the kinds, the sizes of the changes ----------
"$BV" base pad relu3 relu01 --benches unary --ops relu --backends scalar,simd --sizes 1M --quick \
	--counts all --format json --results "$TMP/res" > "$TMP/all.json" 2> "$TMP/all.err"
rc=$?
check "run --counts all: exit 0 (exit $rc)" test $rc -eq 0
[ $rc -eq 0 ] || tail -5 "$TMP/all.err" | sed 's/^/#   /'
cat > "$TMP/why.py" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
def change(version, backend):
    for r in doc["rows"]:
        if r["op"] == "relu" and r["backend"] == backend:
            for c in r["changes"]:
                if c["version"] == version:
                    return c
    raise SystemExit("no change for %s %s" % (version, backend))
what = sys.argv[2]
def code_or_mixed(c):
    # more work is the code's, unless placement timed the cell `faster` (the
    # other way) or moved it far past the work: then "mixed", never "code"
    w = c["counts"]
    if c["verdict"] in ("slower", "faster") and w["kind"] == "mixed":
        assert ("placement or machine dominates, not the code" in w["text"]
                or "more than the counted work explains" in w["text"]), w
    else:
        assert w["kind"] == "code", (c["verdict"], w)
    if c["verdict"] == "faster":
        assert w["kind"] == "mixed", (c["verdict"], w)  # more work, less time
if what == "schema":
    assert doc["schema_version"] == "1.8", doc["schema_version"]
    assert "counted by Valgrind" in doc["counts_summary"], doc["counts_summary"]
elif what == "pad":
    w = change("pad", "scalar")["counts"]
    assert w["kind"] == "placement", w
    assert w["instructions_change"] == 0 and w["instructions"] == w["instructions_base"] > 1e6, w
elif what == "relu3":
    c = change("relu3", "scalar")
    w = c["counts"]
    code_or_mixed(c)
    assert 0.02 < w["instructions_change"] < 0.04, w
    assert w["function"] == "kn_scalar_unary_ex", w
    f = w["function_instructions"] / w["function_instructions_base"] - 1
    assert 0.02 < f < 0.05, (f, w)
    assert "kn_scalar_unary_ex +" in w["text"], w["text"]
elif what == "relu01":
    c = change("relu01", "scalar")
    w = c["counts"]
    code_or_mixed(c)
    assert 0.0005 < w["instructions_change"] < 0.002, w
    assert w["text"].startswith("instr +0.1"), w["text"]
elif what == "simd":
    # Valgrind 3.19 presents an AVX2 CPU: an AVX-512 machine's simd path is
    # not the one counted, and then the counts conclude nothing
    w = change("pad", "simd")["counts"]
    assert w["counted_isa"] == "avx2", w
    if w["timed_isa"] == "avx2":
        assert w["kind"] == "placement", w
    else:
        assert w["kind"] == "unknown" and "cannot tell" in w["text"], w
    for v in ("relu3", "relu01"):
        w = change(v, "simd")["counts"]
        assert w["instructions_change"] == 0, w  # simd.c untouched
elif what == "called":
    # no slower/faster without the counts' word beside it
    n = 0
    for r in doc["rows"]:
        for c in r["changes"]:
            if c["verdict"] in ("slower", "faster"):
                n += 1
                w = c["counts"]
                assert w is not None, (r["op"], r["backend"], r["size"], c)
                if w["kind"] == "placement":
                    assert w["text"].endswith("placement or machine, not the code"), w
    print(n)
PY
for w in schema pad relu3 relu01 simd; do
	python3 "$TMP/why.py" "$TMP/all.json" $w > "$TMP/py.out" 2>&1
	check "counts: $w" test $? -eq 0
	grep -q . "$TMP/py.out" && sed 's/^/#   /' "$TMP/py.out"
done
dir=$(ls -d "$TMP"/res/2*/ | head -1)
dir=${dir%/}
check "counts.json kept beside the logs" test -s "$dir/counts/counts.json"
prof=$(ls "$dir"/counts/profiles/relu3/*.callgrind 2> /dev/null | head -1)
check "each call's callgrind file kept" test -s "$prof"
if command -v callgrind_annotate > /dev/null; then
	callgrind_annotate "$prof" > "$TMP/annotate" 2>&1
	check "callgrind_annotate reads it and names the kernel" contains "$TMP/annotate" "kn_scalar_unary_ex"
fi

# ---- the same counts again: a fresh count (no counts.json, no cache) under load
cp "$dir/counts/counts.json" "$TMP/first.json"
rm -rf "$dir/counts" "$BENCH_VERSIONS_CACHE/counts"
for i in 1 2; do (while :; do :; done) & done
"$BV" compare "$dir" --counts all --format json > "$TMP/again.json" 2> "$TMP/again.err"
rc=$?
kill $(jobs -p) 2> /dev/null
wait 2> /dev/null
check "compare --counts all counts again: exit 0 (exit $rc)" test $rc -eq 0
check "it counted anew, under load" contains "$TMP/again.err" "calls under Valgrind"
python3 - "$TMP/first.json" "$dir/counts/counts.json" > "$TMP/py.out" 2>&1 <<'PY'
import json, sys
a, b = (json.load(open(p))["counts"] for p in sys.argv[1:3])
key = lambda c: (c["label"], c["cell"])
a = {key(c): c for c in a}
b = {key(c): c for c in b}
assert a.keys() == b.keys() and len(a) == 8, (sorted(a), sorted(b))
for k in a:
    assert a[k]["status"] == b[k]["status"] == "ok", (k, a[k]["status"], b[k]["status"])
    assert a[k]["events"] == b[k]["events"], (k, a[k]["events"], b[k]["events"])
    assert not b[k]["cached"], k
PY
check "counts identical across two runs, the second under load" test $? -eq 0
grep -q . "$TMP/py.out" && sed 's/^/#   /' "$TMP/py.out"
# compare without --counts shows what the run's counts.json holds, counting nothing
"$BV" compare "$dir" --wide > "$TMP/shown" 2> "$TMP/shown.err"
check "compare shows the run's counts" contains "$TMP/shown" "relu +scalar +1M .*kn_scalar_unary_ex \+"
check "... and counts nothing" bash -c "! grep -q 'under Valgrind' '$TMP/shown.err'"
"$BV" compare "$dir" --format csv > "$TMP/shown.csv" 2> /dev/null
python3 - "$TMP/shown.csv" > "$TMP/py.out" 2>&1 <<'PY'
import csv, sys
rows = {(r["op"], r["backend"], r["version"]): r for r in csv.DictReader(open(sys.argv[1], newline=""))}
r = rows[("relu", "scalar", "relu3")]
assert r["counts_kind"] == "code" and 0.02 < float(r["instructions_change"]) < 0.04, r
assert r["counts"].startswith("instr +3.0"), r
assert rows[("relu", "scalar", "base")]["counts_kind"] == "", rows[("relu", "scalar", "base")]
PY
check "csv: the counts' kind, instruction change and text" test $? -eq 0
grep -q . "$TMP/py.out" && sed 's/^/#   /' "$TMP/py.out"
# a damaged counts.json is no count, and no failure
echo '{"counts": [{"label": "pad", "cell": 7}], "x"' > "$dir/counts/counts.json"
"$BV" compare "$dir" > "$TMP/dmg" 2> "$TMP/dmg.err"
rc=$?
check "a damaged counts.json: compare still exits 0 (exit $rc)" test $rc -eq 0
check "... and says the file is unreadable" contains "$TMP/dmg.err" "counts.json"

# ---- interrupted while counting: no Valgrind outlives it ---------------------
rm -rf "$dir/counts" "$BENCH_VERSIONS_CACHE/counts"
"$BV" compare "$dir" --counts all > /dev/null 2> "$TMP/int.err" &
pid=$!
for i in $(seq 1 100); do grep -q 'under Valgrind' "$TMP/int.err" && break; sleep 0.1; done
sleep 0.5
kill -TERM $pid
wait $pid
rc=$?
check "SIGTERM while counting: exit 143 (exit $rc)" test $rc -eq 143
check "... says the logs are complete and how to count the rest" contains "$TMP/int.err" "while counting under Valgrind; the run's logs are complete: bench-versions compare .* --counts changed"
sleep 0.5
# (a function, not pgrep -f in bash -c: that command line holds the pattern too)
no_valgrind() { ! ps -eo args | grep valgrind.bin | grep -qF "$BENCH_VERSIONS_CACHE"; }
check "... and leaves no Valgrind running" no_valgrind

# ---- the default run: placement is never a plain slower/faster -------------
"$BV" base pad --benches binary --ops add,mul --backends scalar --sizes 64K,1M --quick \
	--format json --results "$TMP/res2" > "$TMP/default.json" 2> "$TMP/default.err"
rc=$?
check "default run base pad: exit 0 (exit $rc)" test $rc -eq 0
n=$(python3 "$TMP/why.py" "$TMP/default.json" called 2> "$TMP/py.out")
check "every slower/faster of pad has the counts beside it" test $? -eq 0
grep -q . "$TMP/py.out" && sed 's/^/#   /' "$TMP/py.out"
echo "# default run, pad 416 bytes: ${n:-?} of 4 scalar cells called slower/faster (placement)"
dir2=$(ls -d "$TMP"/res2/2*/ | head -1)
"$BV" compare "$dir2" --wide > "$TMP/default.txt" 2>&1
check "the table: no slower/faster row without 'not the code'" \
	bash -c "! grep -E ' (slower|faster)' '$TMP/default.txt' | grep -v 'placement or machine, not the code' | grep -q ."

# ---- counts that cannot be made: said beside the verdict, the run goes on --
BV_VALGRIND=/nonexistent/valgrind "$BV" base relu3 --benches unary --ops relu --backends scalar --sizes 1M \
	--quick --counts all --wide > "$TMP/novg" 2> "$TMP/novg.err"
rc=$?
check "no Valgrind: exit 0 (exit $rc)" test $rc -eq 0
check "no Valgrind: the row says why there are no counts" contains "$TMP/novg" "not counted: .*/nonexistent/valgrind not found \(apt-get install valgrind"
"$BV" base vgcrash --benches unary --ops relu --backends scalar --sizes 64K --quick --counts all --wide \
	> "$TMP/crash" 2> "$TMP/crash.err"
rc=$?
check "a version that dies under Valgrind: exit 0 (exit $rc)" test $rc -eq 0
check "... its row says it crashed under Valgrind" contains "$TMP/crash" "not counted: vgcrash crashed: signal 6 \(Aborted\) under Valgrind"
"$BV" base pad --benches unary --ops exp --backends scalar --sizes 4M --quick --counts all --count-timeout 1 --wide \
	> "$TMP/slow" 2> "$TMP/slow.err"
rc=$?
check "a call too slow under Valgrind: exit 0 (exit $rc)" test $rc -eq 0
check "... its row says timeout and what to give" contains "$TMP/slow" "not counted: base timeout: no count after 1 s under Valgrind .*--count-timeout"

# ---- report: a regression of code that only moved is a warning, not a block
# (--layouts 1, so placement can move the cells; the counts must explain it)
"$BV" report --baseline base --candidate pad --benches binary --ops add,mul --backends scalar --sizes 64K,1M \
	--quick --layouts 1 --formats none --results "$TMP/res3" > "$TMP/report.txt" 2> "$TMP/report.err"
rc=$?
check "report on code that only moved: READY (exit $rc)" test $rc -eq 0
[ $rc -eq 0 ] || sed 's/^/#   /' "$TMP/report.txt" | head -20
check "report: no regression blamed on unchanged code" bash -c "! grep -E 'regression' '$TMP/report.txt' | grep -q 'placement or machine'"
n=$(grep -c 'not blocking (the two calls. counts are identical' "$TMP/report.txt")
echo "# report, pad 416 bytes, one layout: $n regression(s) of unchanged code warned, not blocked"

# ---- bisect --by counts: the commit that changed the code, not the one that moved it
# base -> pad (placement only) -> relu +3 % -> a note: the counts name the
# relu commit, deterministically, one process per version and step.
git -C "$FIX" checkout -q -b line pad
python3 - "$K/scalar.c" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
head = "\tcase KN_RELU:\n\t\tfor (i = 0; i < n; i++)\n\t\t\ty[i] = relu1(x[i]);\n"
s = s.replace(head, head + "\t\tfor (i = n / 2; i < n / 2 + n * 3 / 100; i++)\n\t\t\ty[i] = relu1(x[i]);\n")
open(p, "w").write(s)
PY
git -C "$FIX" commit -qam "relu: 3 % more" && culprit=$(git -C "$FIX" rev-parse HEAD)
echo "note" > "$FIX/NOTES" && git -C "$FIX" add -A && git -C "$FIX" commit -qm "a note"
"$BV" bisect --good base --bad line --bench unary --op relu --backend scalar --size 1M --by counts \
	--format json > "$TMP/bisect.json" 2> "$TMP/bisect.err"
rc=$?
check "bisect --by counts: exit 0 (exit $rc)" test $rc -eq 0
[ $rc -eq 0 ] || tail -5 "$TMP/bisect.err" | sed 's/^/#   /'
python3 - "$TMP/bisect.json" "$culprit" > "$TMP/py.out" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
first = d["first_bad"]
assert first["commit"] == sys.argv[2], (first, sys.argv[2])
assert d["by"] == "counts", d["by"]
assert abs(d["bad_vs_good"]["ratio"] - 1.03) < 0.005, d["bad_vs_good"]
PY
check "bisect --by counts names the commit that added the work, not the one that moved the code" test $? -eq 0
grep -q . "$TMP/py.out" && sed 's/^/#   /' "$TMP/py.out"
refused "--counts takes changed, all or none" "--counts" base pad --counts some
finish
