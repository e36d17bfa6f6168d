#!/usr/bin/env bash
# End to end: machine classes side by side (docs/results-format.md, "Machine
# classes").  This machine is one class, so the second class is made from the
# logs of one real run with the machine fields rewritten: the ratios, the
# verdicts and the report's judgement are the real ones, only the machine a
# log says it ran on differs.  One real run of three versions: 0.1.0, main
# (relu planted three times slower) and steady (0.1.0's code again, an A/A).
# Class X gets main as its candidate (NOT READY), class Y gets steady (READY).
source "$(dirname "$0")/lib.sh"
make_fixture
plant_relu_slowdown
echo 0.1.1 > "$FIX/kernels/VERSION"
git -C "$FIX" commit -qam "relu: three passes (planted slowdown)"
git -C "$FIX" branch steady HEAD~1

"$BV" 0.1.0 main steady --benches unary --ops relu,abs --backends scalar --sizes 1K --quick \
	--results "$TMP/results" > "$TMP/run.out" 2> "$TMP/run.err"
check "the real run exits 0" test $? -eq 0
run=$(ls -d "$TMP"/results/[0-9]*/ | head -1)

# derive DIR CANDIDATE CPU ISA [CLASS]: a run directory of 0.1.0 and
# CANDIDATE's log (relabelled cand), on a machine of that CPU and ISA.
derive() {
	python3 - "$run" "$@" <<'PY'
import json, os, sys
run, out, cand, cpu, isa = sys.argv[1:6]
cls = sys.argv[6] if len(sys.argv) > 6 else None
os.makedirs(out, exist_ok=True)
for src, label in (("0.1.0", "0.1.0"), (cand, "cand")):
    d = json.load(open(os.path.join(run, src + ".json")))
    m = d["machine"]
    m["cpu"], m["hostname"], m["gpu"] = cpu, "host-" + isa, None
    m["calibration"]["isa"] = isa
    if cls:
        m["class"] = cls
    d["version"]["simd_isa"] = isa.split("+")[0].rstrip("f")
    d["version"]["label"] = label
    d["run"]["versions"] = ["0.1.0", "cand"]
    json.dump(d, open(os.path.join(out, label + ".json"), "w"), indent=1)
PY
}
XEON="Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz"
EPYC="AMD EPYC 7763 64-Core Processor"
derive "$TMP/x" main "$XEON" avx512f
derive "$TMP/y" steady "$EPYC" avx2+fma
X=avx512-Xeon-8375C Y=avx2-EPYC-7763

"$BV" compare "$TMP/x" "$TMP/y" > "$TMP/table" 2> "$TMP/err"
check "compare of two classes exits 0" test $? -eq 0
check "the table has a column group per class, each against its own baseline" \
	contains "$TMP/table" "0\.1\.0@$X +cand@$X +cand@$X/0\.1\.0@$X \[95% CI\]( +why)? +0\.1\.0@$Y +cand@$Y +cand@$Y/0\.1\.0@$Y \[95% CI\]"
# the A/A ratio of class Y lies either side of 1 (0.98 as well as 1.02)
check "relu is slower in class X and same in class Y, in one row" \
	contains "$TMP/table" "^unary +relu +scalar +1K .* [2-4]\.[0-9]{3} \[[0-9., ]+\] slower .* (0\.9|1\.0)[0-9]{2} \[[0-9., ]+\] (same|inconclusive)"
check "each class has its own verdicts line" test "$(grep -cE "^(verdicts: )?($X|$Y): [0-9]+ comparisons decided together" "$TMP/table")" -eq 2

"$BV" compare "$TMP/x" "$TMP/y" --format json > "$TMP/json"
check "JSON: classes, versions[].class and every change against its class's baseline" python3 - "$TMP/json" "$X" "$Y" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); X, Y = sys.argv[2:4]
assert d["schema_version"] == "1.8"
assert [c["name"] for c in d["classes"]] == [X, Y], d["classes"]
assert d["classes"][1]["cpu"].startswith("AMD EPYC 7763") and d["classes"][1]["isa"] == "avx2+fma"
assert [c["baseline"] for c in d["classes"]] == ["0.1.0@" + X, "0.1.0@" + Y]
assert [v["class"] for v in d["versions"]] == [X, X, Y, Y]
relu = [r for r in d["rows"] if r["op"] == "relu"][0]
ch = {c["version"]: c for c in relu["changes"]}
assert set(ch) == {"cand@" + X, "cand@" + Y}, ch.keys()   # no ratio for a class's baseline
assert ch["cand@" + X]["baseline"] == "0.1.0@" + X and ch["cand@" + X]["verdict"] == "slower"
assert ch["cand@" + Y]["baseline"] == "0.1.0@" + Y and ch["cand@" + Y]["verdict"] != "slower"
assert ch["cand@" + Y]["paired"] is True   # paired inside its own run, never pooled
PY
for f in markdown csv html; do
	"$BV" compare "$TMP/x" "$TMP/y" --format $f > "$TMP/out.$f" 2>/dev/null
	# HTML escapes '@' (&#64;)
	check "$f: both classes' candidates" test $? -eq 0 -a "$(grep -oE "cand(@|&#64;)($X|$Y)" "$TMP/out.$f" | sort -u | wc -l)" -eq 2
done
check "csv: relu slower in class X only" \
	test "$(grep -cE "^unary,relu,scalar,1024,cand@$X,.*,slower," "$TMP/out.csv")" -eq 1 -a \
	"$(grep -cE "^unary,relu,scalar,1024,cand@$Y,.*,slower," "$TMP/out.csv")" -eq 0

# Two logs of two classes (the old "another machine" case): no ratio, and why.
"$BV" compare "$TMP/x/0.1.0.json" "$TMP/y/cand.json" > "$TMP/lone" 2>&1
check "a class of one log: no ratio across classes, a note says why" \
	contains "$TMP/lone" "^note: class $Y has one version only \(cand\): no ratio, since ratios are never formed across machine classes"

# report: READY only when every class is; the blocking class is named.
"$BV" report --from "$TMP/x" "$TMP/y" --baseline 0.1.0 --candidate cand --formats none > "$TMP/rep" 2> "$TMP/err"
check "report of a READY and a NOT READY class exits 1" test $? -eq 1
check "report names the blocking class and its cell" \
	contains <(head -1 "$TMP/rep") "^NOT READY: class $X blocks: unary relu scalar 1K (2|3)\.[0-9]+x \[[0-9., ]+\] slower: "
check "the READY class does not block" test "$(grep -c "NOT READY: class $Y" "$TMP/rep")" -eq 0
check "each class is judged on its own" contains "$TMP/rep" "^READY: candidate cand@?.* against baseline 0.1.0|^READY: candidate cand against baseline 0.1.0"
derive "$TMP/y2" steady "AMD EPYC 9654 96-Core Processor" avx512f
"$BV" report --from "$TMP/y" "$TMP/y2" --baseline 0.1.0 --candidate cand --out "$TMP/rep2" > "$TMP/rep" 2> "$TMP/err"
check "report of two READY classes exits 0" test $? -eq 0
check "report says every class is ready" contains "$TMP/rep" "^READY: every class is ready \($Y, avx512-EPYC-9654\)"
check "each class's report files in OUT/CLASS" test -f "$TMP/rep2/$Y/report.xml" -a -f "$TMP/rep2/avx512-EPYC-9654/report.md"

# Bad input: one name for two machine classes is refused, naming both;
# the logs are left as they were.
derive "$TMP/n1" main "$XEON" avx512f ci-x86
derive "$TMP/n2" steady "$EPYC" avx2+fma ci-x86
sum=$(cat "$TMP"/n1/*.json "$TMP"/n2/*.json | md5sum)
refused "compare refuses one class name for two CPUs, naming both" \
	"class name ci-x86 names two machine classes: cpu 'Intel\(R\) Xeon.*8375C.*and cpu 'AMD EPYC 7763" \
	compare "$TMP/n1" "$TMP/n2"
refused "report refuses one class name for two CPUs" "class name ci-x86 names two machine classes" \
	report --from "$TMP/n1" "$TMP/n2" --baseline 0.1.0 --candidate cand --formats none
check "nothing lost: the logs are unchanged" test "$(cat "$TMP"/n1/*.json "$TMP"/n2/*.json | md5sum)" = "$sum"
refused "report refuses two runs of one class" "both runs are of class $X" \
	report --from "$TMP/x" "$TMP/x" --baseline 0.1.0 --candidate cand --formats none
# A shard alone is a slice of a run, in a report of classes as anywhere.
mkdir -p "$TMP/shard"
python3 - "$TMP/y" "$TMP/shard" <<'PY'
import json, os, sys
for f in ("0.1.0.json", "cand.json"):
    d = json.load(open(os.path.join(sys.argv[1], f)))
    d["shard"] = {"id": "0123456789abcdef", "index": 1, "count": 2}
    json.dump(d, open(os.path.join(sys.argv[2], f), "w"))
PY
refused "report of classes refuses a shard" "a shard of a run" \
	report --from "$TMP/x" "$TMP/shard" --baseline 0.1.0 --candidate cand --formats none
# A class name from a log is hostile input: it becomes a directory name.
derive "$TMP/evil" main "$XEON" avx512f
python3 - "$TMP/evil/cand.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["machine"]["class"] = "../../x"; json.dump(d, open(sys.argv[1], "w"))
PY
refused "a class name that is not a plain name is refused, naming the log" "evil/cand.json: machine.class is not a class name" \
	compare "$TMP/x" "$TMP/evil"
# One class (the same machine kind under its given and derived names) is
# one run's table, as before.
derive "$TMP/x2" main "$XEON" avx512f
"$BV" compare "$TMP/x" "$TMP/x2" --format json > "$TMP/json" 2>/dev/null
check "logs of one class are one table without classes" python3 -c "import json,sys; d=json.load(open('$TMP/json')); assert d['classes'] is None" 
finish
