#!/usr/bin/env bash
# End to end: one comparison cut into shards (run --shard I/N), measured
# shard by shard and joined by compare, gives the table one run gives: the
# same cells, versions and verdicts, decided as one family.  A shard that is
# missing, given twice, of another plan or cut short is refused (exit 2)
# naming it.  Kept small (two cells, --quick): a shard's measuring is one
# run's, tested elsewhere; what is new here is the cut and the join.
source "$(dirname "$0")/lib.sh"
make_fixture
cd "$FIX" || exit 1
plant_relu_slowdown
git commit -qam "relu: three passes (planted slowdown)"
R="$TMP/results"
# 0.1.0 twice: an A/A pair (one build, the same tree); main: relu slower.
vers=(0.1.0 0.1.0 main)
sel=(--quick --budget 1 --benches unary --ops relu,abs --backends scalar --sizes 1K)

# ---- bad input, refused before anything is built ------------------------------
refused "--shard 0/3" "--shard '0/3': I must be 1 to 3" run "${vers[@]}" "${sel[@]}" --shard 0/3
refused "--shard 4/3" "--shard '4/3': I must be 1 to 3" run "${vers[@]}" "${sel[@]}" --shard 4/3
refused "--shard x" "--shard 'x': expected I/N" run "${vers[@]}" "${sel[@]}" --shard x
refused "--shard 1/3x" "--shard '1/3x': expected I/N" run "${vers[@]}" "${sel[@]}" --shard 1/3x
refused "--shard with --save-baseline" "one shard is not a run" run "${vers[@]}" "${sel[@]}" --shard 1/2 --save-baseline x
refused "plan --shards 0" "--shards '0': expected a whole number from 1 to" plan "${vers[@]}" "${sel[@]}" --shards 0
refused "plan without --shards" "--shards N is needed" plan "${vers[@]}" "${sel[@]}"

# ---- one run, and the same comparison in 2, 3 and 5 shards ----------------------
"$BV" run "${vers[@]}" "${sel[@]}" --results "$R/one" --format json > "$TMP/one.json" 2> "$TMP/one.err"
rc=$?
check "the unsharded run exits 0 (exit $rc)" test $rc -eq 0
[ $rc -eq 0 ] || tail -5 "$TMP/one.err" | sed 's/^/# /'
for n in 2 3 5; do
	dirs=()
	for i in $(seq 1 $n); do
		"$BV" run "${vers[@]}" "${sel[@]}" --shard "$i/$n" --results "$R/n$n" > /dev/null 2> "$TMP/s$n-$i.err"
		rc=$?
		[ $rc -eq 0 ] || { not_ok "shard $i/$n exits 0 (exit $rc)"; tail -5 "$TMP/s$n-$i.err" | sed 's/^/# /'; }
		dirs+=("$(sed -n 's/^results: //p' "$TMP/s$n-$i.err")")
	done
	printf '%s\n' "${dirs[@]}" > "$TMP/dirs$n"
	"$BV" compare "${dirs[@]}" --format json > "$TMP/join$n.json" 2> "$TMP/join$n.err"
	rc=$?
	check "compare of the $n shards exits 0 (exit $rc)" test $rc -eq 0
	[ $rc -eq 0 ] || sed 's/^/# /' "$TMP/join$n.err"
	check "$n shards joined equal one run: cells, versions, verdicts" python3 - "$TMP/one.json" "$TMP/join$n.json" <<'PY'
import json, sys
one, joined = (json.load(open(p)) for p in sys.argv[1:3])
def shape(doc):
    rows = [(r["bench"], r["op"], r["backend"], r["size"]) for r in doc["rows"]]
    verdicts = {}
    for r in doc["rows"]:
        for c in r["changes"]:
            verdicts[(r["op"], c["version"])] = c["verdict"]
    return rows, [v["label"] for v in doc["versions"]], verdicts
r1, v1, d1 = shape(one)
r2, v2, d2 = shape(joined)
assert r1 == r2, (r1, r2)
assert v1 == v2 == ["0.1.0", "0.1.0-2", "main"], (v1, v2)
for d in (d1, d2):
    assert d[("relu", "main")] == "slower", d          # the planted slowdown
    for key in (("relu", "0.1.0-2"), ("abs", "0.1.0-2"), ("abs", "main")):
        assert d[key] not in ("slower", "faster"), (key, d)  # A/A and unchanged
    for c in [c for r in joined["rows"] for c in r["changes"]]:
        assert c["mode"] == "paired" and c["between_runs"] is False, c
# one family: every comparison of every shard decided together (four; a
# cell the machine changed under, `unstable`, is not judged and not counted)
def judged(doc):
    return 4 - sum(1 for r in doc["rows"] for c in r["changes"] if c["verdict"] == "unstable")
for doc in (one, joined):
    assert doc["error_control"]["comparisons"] == judged(doc) >= 3, doc["error_control"]
# (a loaded machine may stop a cell at its time budget: that note is the
# budget's, not the join's)
assert not [n for n in joined["notes"] if not n.startswith("budget: ")], joined["notes"]
PY
done
check "an empty shard (more shards than cells) says so and exits 0" \
	grep -qE "^shard: 5/5: 0 cells of the plan \(more shards than cells" "$TMP/s5-5.err"

# ---- plan: the same cut and plan id as the shards' logs --------------------------
"$BV" plan "${vers[@]}" "${sel[@]}" --shards 3 --format json > "$TMP/plan.json" 2> "$TMP/plan.err"
check "plan --format json exits 0" test $? -eq 0
check "plan JSON: the shards' cells, build keys and the plan id the shard logs record" \
	python3 - "$TMP/plan.json" $(cat "$TMP/dirs3") <<'PY'
import json, sys, os
plan = json.load(open(sys.argv[1]))
assert plan["schema"] == "bench-versions-plan" and plan["count"] == 3
assert [v["label"] for v in plan["versions"]] == ["0.1.0", "0.1.0-2", "main"]
assert all(len(v["build_key"]) == 40 for v in plan["versions"])
cells = [c for s in plan["shards"] for c in s["cells"]]
assert sorted(cells) == ["unary/abs/scalar/1K", "unary/relu/scalar/1K"], cells
assert plan["shards"][1]["argv"][-2:] == ["--shard", "2/3"]
for i, d in enumerate(sys.argv[2:]):
    log = json.load(open(os.path.join(d, "main.json")))
    assert log["shard"]["id"] == plan["plan"], (log["shard"]["id"], plan["plan"])
    assert log["shard"]["index"] == i + 1 and log["shard"]["count"] == 3
    got = ["%s/%s/%s/1K" % (c["bench"], c["op"], c["backend"]) for c in log["cells"]]
    assert got == plan["shards"][i]["cells"], (got, plan["shards"][i])
PY
"$BV" plan "${vers[@]}" "${sel[@]}" --shards 2 > "$TMP/plan.txt" 2> /dev/null
check "plan's text names each shard with its time" contains "$TMP/plan.txt" "^shard 2/2: 1 cell, expected [0-9.]+s"
check "... and the command per shard" contains "$TMP/plan.txt" "bench-versions run 0.1.0 0.1.0 main --quick .* --shard I/2"

# ---- what the join refuses ----------------------------------------------------
mapfile -t d3 < "$TMP/dirs3"
mapfile -t d2 < "$TMP/dirs2"
refused "a missing shard" "shard 2/3 missing" compare "${d3[0]}" "${d3[2]}"
refused "a shard given twice" "shard 1/3 given twice" compare "${d3[0]}" "${d3[0]}" "${d3[1]}" "${d3[2]}"
refused "a shard of another count" "differ in the shard count" compare "${d3[0]}" "${d2[1]}" "${d3[2]}"
# A foreign shard: the last of five shards of another plan (--threshold 2),
# empty, so nothing is measured for it.
"$BV" run "${vers[@]}" "${sel[@]}" --threshold 2 --shard 5/5 --results "$R/foreign" > /dev/null 2> "$TMP/f.err"
foreign=$(sed -n 's/^results: //p' "$TMP/f.err")
mapfile -t d5 < "$TMP/dirs5"
refused "a shard of another plan" "is not a shard of the plan of .* differ in the method's threshold: 0.02 in .*, 0.01 in " \
	compare "${d5[@]:0:4}" "$foreign"
refused "a shard with a plain run" "compare joins shard directories only with each other" \
	compare "${d2[@]}" "$(ls -d "$R"/one/2*/ | head -1)"
refused "report --from one shard" "a shard of a run .*join the shards first" report --from "${d2[0]}"
cp -r "${d2[1]}" "$TMP/cut"
head -c 300 "${d2[1]}/main.json" > "$TMP/cut/main.json"
refused "a shard log cut short" "$TMP/cut/main.json" compare "${d2[0]}" "$TMP/cut"

# ---- the joined run written out is a run like any other -----------------------
"$BV" compare "${d2[@]}" --join-to "$TMP/joined" > "$TMP/j.out" 2> /dev/null
check "--join-to writes one log per version" test -f "$TMP/joined/0.1.0.json" -a -f "$TMP/joined/main.json"
"$BV" compare "$TMP/joined" > "$TMP/j2.out" 2> /dev/null
check "the written join compares as the join does" cmp -s "$TMP/j.out" "$TMP/j2.out"
refused "--join-to a directory with logs in it" "--join-to $TMP/joined: not empty" compare "${d2[@]}" --join-to "$TMP/joined"
finish
