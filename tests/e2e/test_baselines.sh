#!/usr/bin/env bash
# End to end: saved baselines, results/latest, --only-changes and colour:
# the pull-request workflow Criterion and critcmp users
# know: save a run as a named baseline on main, compare a later run with it,
# post only what changed.
# Alone in tests/run.sh: with a second lane and another suite beside it (load
# 6-7 on 2 vCPUs) run --only-changes's planted 3x relu slowdown at --budget
# 0.5 was not called slower.
# run.sh: alone
source "$(dirname "$0")/lib.sh"
make_fixture
cd "$FIX" || exit 1
plant_relu_slowdown
git add -A && git commit -qm "relu slower"
R="$TMP/results"
cell=(--quick --budget 0.5 --backends scalar --sizes 1K --results "$R")

# ---- --save-baseline NAME --------------------------------------------------------
"$BV" 0.1.0 local --ops abs,relu "${cell[@]}" --save-baseline main > "$TMP/a.out" 2> "$TMP/a.err"
rc=$?
check "run --save-baseline exits 0 (exit $rc)" test $rc -eq 0
[ $rc -eq 0 ] || tail -5 "$TMP/a.err" | sed 's/^/# /'
runA=$(sed -n 's/^results: //p' "$TMP/a.err")
check "the run's logs are kept as results/baselines/main/" \
	cmp -s "$runA/local.json" "$R/baselines/main/local.json"
check "... every version's log" cmp -s "$runA/0.1.0.json" "$R/baselines/main/0.1.0.json"
check "... and only the logs (no raw/)" test ! -e "$R/baselines/main/raw"
check "the run says where the baseline is" contains "$TMP/a.err" "^baseline: main saved in $R/baselines/main"
check "no temporary directory stays behind" bash -c '! ls -A "$1" | grep -q "^\."' _ "$R/baselines"

# ---- results/latest ----------------------------------------------------------------
check "results/latest is a symlink" test -L "$R/latest"
check "... relative, to the newest run" test "$(readlink "$R/latest")" = "$(basename "$runA")"
check "no temporary link stays behind" bash -c '! ls -A "$1" | grep -q "^\.latest"' _ "$R"
"$BV" compare --results "$R" latest > "$TMP/latest.out" 2>&1
check "compare latest exits 0" test $? -eq 0
"$BV" compare "$runA" > "$TMP/runA.out" 2>&1
check "compare latest is compare of the newest run's directory" cmp -s "$TMP/latest.out" "$TMP/runA.out"
"$BV" report --from latest --results "$R" --out "$TMP/rep" --print text > "$TMP/rep.out" 2>&1
check "report --from latest reads the newest run (exit 0 or 1: a verdict)" \
	bash -c '[ "$1" -le 1 ] && grep -qE "READY: candidate local against baseline 0.1.0" "$2"' _ $? "$TMP/rep.out"

# ---- bad names: usage errors before anything is built -------------------------------
for bad in ../x a/b .hidden .. "$(printf 'a\tb')" "$(printf 'x%.0s' {1..65})"; do
	"$BV" local --ops abs "${cell[@]}" --save-baseline "$bad" > "$TMP/bad.out" 2>&1
	rc=$?
	check "--save-baseline '$bad' is a usage error (exit $rc) saying what a name may hold" \
		bash -c '[ "$1" -eq 2 ] && grep -qF "expected 1 to 64 letters, digits" "$2"' _ $rc "$TMP/bad.out"
done
"$BV" local --ops abs "${cell[@]}" --save-baseline '' > "$TMP/empty.out" 2>&1
check "--save-baseline '' is a usage error (exit 2)" \
	bash -c '[ "$1" -eq 2 ] && grep -qF "expected a non-empty value" "$2"' _ $? "$TMP/empty.out"
"$BV" local --ops abs "${cell[@]}" --save-baseline v0.2.0_pr-12 --dry-run > "$TMP/good.out" 2>&1
check "a name of letters, digits, '.', '_' and '-' is taken (a dry run: exit 0)" \
	bash -c '[ "$1" -eq 0 ] && ! grep -q "baseline name" "$2"' _ $? "$TMP/good.out"
check "... before anything is resolved or built" bash -c '! grep -q "^resolve:" "$1"' _ "$TMP/bad.out"
check "... and no run directory was made" test "$(ls -d "$R"/[0-9]*/ | wc -l)" -eq 1
"$BV" compare --results "$R" --baseline ../main > "$TMP/badc.out" 2>&1
check "compare --baseline with a bad name: exit 2, saying why" \
	bash -c '[ "$1" -eq 2 ] && grep -qF "baseline name '\''../main'\'': expected" "$2"' _ $? "$TMP/badc.out"

# ---- compare --baseline NAME: across runs, so inconclusive ---------------------------
"$BV" 0.1.0 --ops abs,relu "${cell[@]}" > "$TMP/b.out" 2> "$TMP/b.err"
check "a second run (exit 0)" test $? -eq 0
runB=$(sed -n 's/^results: //p' "$TMP/b.err")
check "latest moves to the newest run" test "$(readlink "$R/latest")" = "$(basename "$runB")"
"$BV" compare --results "$R" --baseline nope > "$TMP/nope.out" 2>&1
check "an unknown baseline is an input error (exit 2)" test $? -eq 2
check "... listing the saved ones" contains "$TMP/nope.out" "no baseline 'nope' in .*baselines \(saved: main\)"
"$BV" compare --results "$TMP/empty" --baseline main > "$TMP/none.out" 2>&1
check "with none saved, it says how to save one" contains "$TMP/none.out" "none saved yet; save one with: bench-versions run .* --save-baseline main"

"$BV" compare --results "$TMP/empty" latest > "$TMP/nolatest.out" 2>&1
check "compare latest before any run: exit 2, saying so" \
	bash -c '[ "$1" -eq 2 ] && grep -q "empty/latest does not exist: no run has finished" "$2"' _ $? "$TMP/nolatest.out"
"$BV" report --from latest --results "$TMP/empty" > "$TMP/nolatest2.out" 2>&1
check "report --from latest before any run: exit 2, saying so" \
	bash -c '[ "$1" -eq 2 ] && grep -q "empty/latest does not exist: no run has finished" "$2"' _ $? "$TMP/nolatest2.out"
"$BV" compare --results "$R" --baseline main > "$TMP/vs.out" 2>&1
rc=$?
check "compare --baseline main (the newest run by default) exits 0 (exit $rc)" test $rc -eq 0
"$BV" compare --results "$R" --baseline main "$runB" > "$TMP/vs2.out" 2>&1
check "... the same as naming the run" cmp -s "$TMP/vs.out" "$TMP/vs2.out"
"$BV" compare "$R/baselines/main" "$runB" > "$TMP/vs3.out" 2>&1
check "... the same as comparing the two directories" cmp -s "$TMP/vs.out" "$TMP/vs3.out"
# Two logs labelled 0.1.0: merge names each by its run (LABEL@RUN).
A=$(basename "$runA") B=$(basename "$runB")
check "the baseline's logs come first" contains "$TMP/vs.out" "^bench +op +backend +size +0\.1\.0@$A +local +local/0\.1\.0@$A \[95% CI\]( +why)? +0\.1\.0@$B +0\.1\.0@$B/0\.1\.0@$A "
check "the saved run keeps its pairing: relu slower" contains "$TMP/vs.out" "^unary +relu +scalar +1K .* slower .*inconclusive unpaired"
check "the new run against the baseline: unpaired, never called" bash -c \
	'! grep -E "^unary" "$1" | sed -E "s/.*\] (slower|faster|same|inconclusive)[^]]*$/\1/" | grep -qvx inconclusive' _ "$TMP/vs.out"
check "... and the note says it is another run" contains "$TMP/vs.out" "^note: 0\.1\.0\.json \(column 0\.1\.0@$B\) is from another run than the baseline"
"$BV" compare --results "$R" --baseline main --format json > "$TMP/vs.json" 2>&1
check "json: the new run's changes are between runs and inconclusive" python3 - "$TMP/vs.json" "0.1.0@$B" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
chs = [c for r in doc["rows"] for c in r["changes"] if c["version"] == sys.argv[2] and c.get("ratio") is not None]
assert chs and all(c["between_runs"] and c["verdict"] == "inconclusive" for c in chs), chs
PY

# ---- saved again: replaced whole -------------------------------------------------------
"$BV" local --ops abs "${cell[@]}" --save-baseline main > "$TMP/c.out" 2> "$TMP/c.err"
check "saving under the same name again (exit 0)" test $? -eq 0
runC=$(sed -n 's/^results: //p' "$TMP/c.err")
check "the baseline is the new run's logs" cmp -s "$runC/local.json" "$R/baselines/main/local.json"
check "... and none of the old run's" test ! -e "$R/baselines/main/0.1.0.json"
check "... with no temporary directory left" bash -c '! ls -A "$1" | grep -q "^\."' _ "$R/baselines"

# ---- --only-changes -----------------------------------------------------------------------
# A copy of run A whose abs change is exactly 1 in every process: `same`
# whatever the machine's load, so what --only-changes drops is known.
cp -r "$runA" "$TMP/fixed"
python3 - "$TMP/fixed/local.json" <<'PY'
import json, sys
p = sys.argv[1]
doc = json.load(open(p))
for c in doc["cells"]:
    if c["op"] == "abs":
        ch = c["change"]
        ch.update(ratio=1.0, ratio_ci_low=0.9999, ratio_ci_high=1.0001)
        ch["process_ratios"] = [1.0] * len(ch.get("process_ratios", [1.0] * 6))
json.dump(doc, open(p, "w"))
PY
"$BV" compare "$TMP/fixed" > "$TMP/all.out" 2>&1
check "the full table has abs (same) and relu (slower)" bash -c \
	'grep -qE "^unary +abs +scalar +1K .* same" "$1" && grep -qE "^unary +relu +scalar +1K .* slower" "$1"' _ "$TMP/all.out"
"$BV" compare "$TMP/fixed" --only-changes > "$TMP/only.out" 2>&1
check "compare --only-changes exits 0" test $? -eq 0
check "... leaves out the same row" bash -c '! grep -qE "^unary +abs" "$1"' _ "$TMP/only.out"
check "... keeps the slower row" contains "$TMP/only.out" "^unary +relu +scalar +1K .* slower"
check "... says how many rows it left out" contains "$TMP/only.out" "^note: --only-changes: 1 of 2 rows shown; the other 1 are same"
check "... the verdicts footer still counts every row" \
	test "$(grep '^verdicts:' "$TMP/only.out")" = "$(grep '^verdicts:' "$TMP/all.out")"
check "... and the geomean is still over every cell (2 cells)" bash -c \
	'grep "^geomean" "$1" | cmp -s - <(grep "^geomean" "$2") && grep -q "^geomean .*(2 cells)" "$1"' _ "$TMP/only.out" "$TMP/all.out"
for f in markdown json csv html; do
	"$BV" compare "$TMP/fixed" --only-changes --format $f > "$TMP/only.$f" 2> "$TMP/only.$f.err"
	check "--only-changes --format $f: relu kept, abs left out" bash -c \
		'grep -q relu "$1" && ! grep -q "abs" "$1"' _ "$TMP/only.$f"
done
"$BV" 0.1.0 local --ops abs,relu "${cell[@]}" --only-changes > "$TMP/run-only.out" 2> "$TMP/run-only.err"
check "run --only-changes (exit 0 or 2 rows whatever the load)" contains "$TMP/run-only.out" "^note: --only-changes: [12] of 2 rows shown"
check "... the slower row is shown" contains "$TMP/run-only.out" "^unary +relu +scalar +1K .* slower"
check "... no row shown is same" bash -c '! grep -qE "^unary .*\] same" "$1"' _ "$TMP/run-only.out"

# ---- colour -----------------------------------------------------------------------------------
esc=$'\033'
"$BV" compare "$TMP/fixed" --color=always > "$TMP/col.out" 2>&1
check "--color=always: slower in red" grep -qF "${esc}[31m" "$TMP/col.out"
check "... same stays plain, aligned as without colour" bash -c \
	'sed "s/\x1b\[[0-9;]*m//g" "$1" | cmp -s - "$2"' _ "$TMP/col.out" "$TMP/all.out"
"$BV" compare "$TMP/fixed/local.json" "$TMP/fixed/0.1.0.json" --color=always > "$TMP/col2.out" 2>&1
check "... faster in green" grep -qF "${esc}[32m" "$TMP/col2.out"
# Turned over (compare B A of a run of A and B): the first log's paired
# ratios, inverted, with the same evidence, not a ratio of medians.
"$BV" compare "$TMP/fixed/0.1.0.json" "$TMP/fixed/local.json" --format json > "$TMP/fwd.json" 2>&1
"$BV" compare "$TMP/fixed/local.json" "$TMP/fixed/0.1.0.json" --format json > "$TMP/rev.json" 2>&1
check "compare of a run's logs turned over: paired, each ratio the inverse, verdicts mirrored" python3 - "$TMP/fwd.json" "$TMP/rev.json" <<'PY'
import json, sys
fwd, rev = (json.load(open(p)) for p in sys.argv[1:])
def changes(doc):
    return {r["op"]: r["changes"][-1] for r in doc["rows"]}
f, r = changes(fwd), changes(rev)
assert set(f) == set(r) == {"abs", "relu"}, (f, r)
mirror = {"slower": "faster", "faster": "slower", "same": "same", "inconclusive": "inconclusive", "unstable": "unstable"}
for op in f:
    assert r[op]["mode"] == "paired", r[op]
    assert abs(f[op]["ratio"] * r[op]["ratio"] - 1) < 1e-9, (f[op], r[op])
    assert abs(f[op]["ci_low"] * r[op]["ci_high"] - 1) < 1e-9, (f[op], r[op])
    assert r[op]["verdict"] == mirror[f[op]["verdict"]], (f[op], r[op])
assert f["relu"]["verdict"] == "slower" and r["relu"]["verdict"] == "faster", (f["relu"], r["relu"])
PY
grep -q "was the baseline of its run; its ratios to the first log are the first log's paired ratios turned over" "$TMP/col2.out"
check "... and the table says so" test $? -eq 0
"$BV" compare --results "$R" --baseline main "$runB" --color=always > "$TMP/col3.out" 2>&1
check "... inconclusive in yellow" grep -qF "${esc}[33m" "$TMP/col3.out"
NO_COLOR=1 "$BV" compare "$TMP/fixed" --color=always > "$TMP/col4.out" 2>&1
check "... always means always (NO_COLOR yields to the flag)" grep -qF "${esc}[31m" "$TMP/col4.out"
"$BV" compare "$TMP/fixed" --color=always --format markdown > "$TMP/col5.out" 2>&1
check "... the table format only (markdown has none)" bash -c '! grep -qF "$2" "$1"' _ "$TMP/col5.out" "$esc"
"$BV" compare "$TMP/fixed" | cat > "$TMP/pipe.out"
check "auto, piped: no escapes" bash -c '! grep -qF "$2" "$1"' _ "$TMP/pipe.out" "$esc"
"$BV" compare "$TMP/fixed" --color=bogus > "$TMP/bogus.out" 2>&1
check "--color=bogus is a usage error (exit 2)" test $? -eq 2
# A terminal: script(1) gives the command a pseudo-terminal as stdout.
if command -v script > /dev/null; then
	script -qec "'$BV' compare '$TMP/fixed'" /dev/null > "$TMP/tty.out" 2>&1 < /dev/null
	check "auto on a terminal: colour" grep -qF "${esc}[31m" "$TMP/tty.out"
	NO_COLOR=1 script -qec "'$BV' compare '$TMP/fixed'" /dev/null > "$TMP/tty2.out" 2>&1 < /dev/null
	check "auto on a terminal with NO_COLOR=1: none" bash -c '! grep -qF "$2[3" "$1"' _ "$TMP/tty2.out" "$esc"
	NO_COLOR= script -qec "'$BV' compare '$TMP/fixed'" /dev/null > "$TMP/tty3.out" 2>&1 < /dev/null
	check "auto on a terminal with NO_COLOR empty: colour" grep -qF "${esc}[31m" "$TMP/tty3.out"
	script -qec "'$BV' compare '$TMP/fixed' --color=never" /dev/null > "$TMP/tty4.out" 2>&1 < /dev/null
	check "--color=never on a terminal: none" bash -c '! grep -qF "$2[3" "$1"' _ "$TMP/tty4.out" "$esc"
else
	skip "auto on a terminal" "no script(1) to make a pseudo-terminal"
fi
finish
