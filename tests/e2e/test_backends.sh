#!/usr/bin/env bash
# End to end: the backend view (run/compare --vs-backend B, docs/cli/run.md
# "The backend view").  One run of two versions over a CPU matrix of three
# benches and three backends: every other backend's time over scalar's,
# paired by process, agrees with the quotient of the same run's per-backend
# medians and with a second, ordinary run's; simd is called faster where it
# is ten times faster; each ratio is the median of the logs' per-process
# quotients, paired by process id; the view is in every format; bad input (a reference no
# cell has, one the selection leaves out, logs that cannot be paired, a
# damaged process_ids) is refused or said, never guessed.
# Alone in tests/run.sh: with a second lane and another suite beside it (load
# 6-7 on 2 vCPUs) the view's cells ended at their budget with 6 processes,
# under the 10 that the check asks of a cell's view.
# run.sh: alone
source "$(dirname "$0")/lib.sh"
make_fixture
sel=(--benches unary,binary,reduce --ops relu,axpy,dot --backends scalar,simd,blas --sizes 64K --quick)
"$BV" 0.1.0 local "${sel[@]}" --vs-backend scalar --format json --results "$TMP/r" > "$TMP/view.json" 2> "$TMP/err"
rc=$?
check "run --vs-backend exits 0" test $rc -eq 0
[ $rc -eq 0 ] || tail -5 "$TMP/err"
"$BV" 0.1.0 local "${sel[@]}" --format json --results "$TMP/r2" > "$TMP/plain.json" 2> /dev/null
check "an ordinary run of the same matrix exits 0" test $? -eq 0

check "the view: every other backend over scalar, per version, agreeing with the medians of this run and of an ordinary one" \
	python3 - "$TMP/view.json" "$TMP/plain.json" <<'PY'
import json, sys
v, plain = (json.load(open(p)) for p in sys.argv[1:3])
assert v["schema_version"] == "1.8" and plain["backends"] is None and plain["vs"] is None
b = v["backends"]
assert b["reference"] == "scalar" and "decided together" in b["summary"], b
cells = {(c["version"], c["op"], c["backend"]): c for c in b["cells"]}
# relu has no blas backend (n/a: left out); axpy and dot have simd and blas
want = {(ver, op, be) for ver in ("0.1.0", "local") for op, be in
        (("relu", "simd"), ("axpy", "simd"), ("axpy", "blas"), ("dot", "simd"), ("dot", "blas"))}
assert set(cells) == want, sorted(cells)
def medians(doc):
    m = {}
    for r in doc["rows"]:
        for x in r["results"]:
            if x["status"] == "ok":
                m[(x["version"], r["op"], r["backend"])] = x["median_ns"]
    return m
mv, mp = medians(v), medians(plain)
for (ver, op, be), c in cells.items():
    assert c["ratio"] is not None and c["processes"] >= 10, c
    assert c["ratio_ci_low"] <= c["ratio"] <= c["ratio_ci_high"], c
    # The medians' quotients, of this run and of an ordinary one, are
    # unpaired (each backend's own median over processes), so they need not
    # be the ratio: on 2-us cells (simd relu at 64K) they were 10-17 % off
    # it on a quiet machine, 43 % with a CI suite beside it (0.103 against
    # 0.148).  Within 2x: a view that paired the wrong cells is off by far
    # more (relu's simd is 11x scalar); the exact check from the logs
    # (below) is the one that catches any other pairing.
    for m in (mv, mp):
        q = m[(ver, op, be)] / m[(ver, op, "scalar")]
        assert 1 / 2 < c["ratio"] / q < 2, (c, q)
    if c["ratio_ci_high"] < 0.5:
        assert c["verdict"] == "faster", c                  # a clear win is called
    assert c["verdict"] in ("faster", "slower", "same", "inconclusive"), c
relu = cells[("local", "relu", "simd")]
assert relu["ratio"] < 0.5 and relu["verdict"] == "faster", relu
# The fastest backend of each cell: the smallest ratio to scalar (scalar's
# own is 1) against the next smallest, paired by process too.
fastest = {(f["version"], f["op"]): f for f in b["fastest"]}
assert set(fastest) == {(ver, op) for ver in ("0.1.0", "local") for op in ("relu", "axpy", "dot")}, sorted(fastest)
assert "clear fastest" in b["fastest_summary"], b["fastest_summary"]
for (ver, op), f in fastest.items():
    ratios = {"scalar": 1.0}
    ratios.update({be: c["ratio"] for (v2, o2, be), c in cells.items() if (v2, o2) == (ver, op)})
    order = sorted(ratios, key=ratios.get)
    assert [f["backend"], f["next"]] == order[:2], (f, ratios)
    assert f["ratio"] is not None and f["processes"] >= 6, f
    assert f["ratio_ci_low"] <= f["ratio"] <= f["ratio_ci_high"], f
    # the two's own ratio agrees with the quotient of their ratios to scalar
    # (both paired, but medians of quotients need not divide exactly)
    assert 1 / 1.5 < f["ratio"] / (ratios[f["backend"]] / ratios[f["next"]]) < 1.5, (f, ratios)
    assert f["clear"] == (f["verdict"] == "faster"), f
# relu: simd over scalar, 10x: a clear winner
r = fastest[("local", "relu")]
assert r["backend"] == "simd" and r["next"] == "scalar" and r["clear"], r
PY

# Exact, from the run's own logs: each ratio of the view (and of the fastest
# backends) is the median of the two cells' per-process quotients, paired by
# process id (process_ids), the processes counted; the 1.3x above only
# catches wrong cells, this catches any other pairing.
run=$(ls -d "$TMP"/r/[0-9]*/ | head -1)
check "the view's ratios are the medians of the logs' per-process quotients, paired by process id" \
	python3 - "$TMP/view.json" "$run" <<'PY'
import json, os, statistics, sys
v = json.load(open(sys.argv[1]))
logs = {}
for ver in ("0.1.0", "local"):
    d = json.load(open(os.path.join(sys.argv[2], ver + ".json")))
    logs[ver] = {(c["op"], c["backend"]): dict(zip(c["process_ids"], c["process_medians_ns"]))
                 for c in d["cells"] if c["status"] == "ok"}
def paired(ver, op, a, b):
    x, y = logs[ver][(op, a)], logs[ver][(op, b)]
    q = [x[i] / y[i] for i in x if i in y]
    return statistics.median(q), len(q)
b = v["backends"]
for c in b["cells"]:
    m, n = paired(c["version"], c["op"], c["backend"], "scalar")
    assert abs(c["ratio"] / m - 1) < 1e-9 and c["processes"] == n, (c, m, n)
for f in b["fastest"]:
    m, n = paired(f["version"], f["op"], f["backend"], f["next"])
    assert abs(f["ratio"] / m - 1) < 1e-9 and f["processes"] == n, (f, m, n)
PY

"$BV" compare "$run" --vs-backend scalar > "$TMP/table" 2> /dev/null
check "compare --vs-backend: the table has the view and its verdicts line" \
	bash -c "grep -qE '^backends vs scalar ' '$TMP/table' && grep -qE '^  local +unary/relu/simd/64K +0\.[0-9]{3} \[[0-9., ]+\] faster' '$TMP/table' && grep -qE '^backend verdicts: [0-9]+ backend comparisons decided together' '$TMP/table'"
check "the table: the fastest backend per cell" \
	bash -c "grep -qE '^fastest backend per cell ' '$TMP/table' && grep -qE '^  local +unary/relu/64K +simd, 0\.[0-9]{3} \[[0-9., ]+\] of scalar.s time' '$TMP/table' && grep -qE '^fastest backends: 6 cells with two or more backends; [0-9] with a clear fastest' '$TMP/table'"
"$BV" compare "$run" --vs-backend scalar --format markdown > "$TMP/md" 2> /dev/null
check "markdown: the view as a table" contains "$TMP/md" '^\| local \| unary/relu/simd/64K \| 0\.[0-9]{3} \\\[.*\\\] faster \|$'
check "markdown: the fastest backend per cell" contains "$TMP/md" '^\| local \| unary/relu/64K \| simd, 0\.[0-9]{3} \\\[.*\\\] of scalar.s time \|$'
"$BV" compare "$run" --vs-backend scalar --format html > "$TMP/html" 2> /dev/null
check "html: the view as a table" bash -c "grep -q '<table class=\"backends\">' '$TMP/html' && grep -q 'unary/relu/simd/64K</td><td class=\"faster\">' '$TMP/html'"
check "html: the fastest backend per cell" bash -c "grep -q '<table class=\"fastest\">' '$TMP/html' && grep -q 'unary/relu/64K</td><td class=\"faster\">simd, ' '$TMP/html'"
"$BV" compare "$run" > "$TMP/noview" 2> /dev/null
check "without --vs-backend there is no view" test "$(grep -c '^backends vs' "$TMP/noview")" -eq 0

# bad input
"$BV" compare "$run" --vs-backend cuda > /dev/null 2> "$TMP/err"
rc=$?
check "a reference no cell has: exit 2" test $rc -eq 2
check "  naming the backends there" contains "$TMP/err" "--vs-backend cuda: no cell of backend cuda was measured \(backends here: .*scalar.*simd"
cache_before=$(ls "$BENCH_VERSIONS_CACHE/builds" | wc -l)
"$BV" 0.1.0 --backends simd,blas --ops relu --sizes 1K --quick --vs-backend scalar --results "$TMP/r3" > /dev/null 2> "$TMP/err"
rc=$?
check "run: a reference the selection leaves out is refused before anything is built (exit 2)" \
	test $rc -eq 2 -a ! -e "$TMP/r3" -a "$(ls "$BENCH_VERSIONS_CACHE/builds" | wc -l)" -eq "$cache_before"
check "  saying why" contains "$TMP/err" "--vs-backend scalar: not among --backends simd,blas"
mkdir -p "$TMP/old"
python3 - "$run" "$TMP/old" <<'PY'
import json, os, sys
for f in ("0.1.0.json", "local.json"):
    d = json.load(open(os.path.join(sys.argv[1], f)))
    d["schema_version"] = "1.6"
    for c in d["cells"]:
        c.pop("process_ids", None)
    json.dump(d, open(os.path.join(sys.argv[2], f), "w"))
PY
"$BV" compare "$TMP/old" --vs-backend scalar > "$TMP/oldt" 2> /dev/null
check "logs before schema 1.7: the view says they cannot be paired, no ratio" \
	bash -c "grep -qE '^  local +unary/relu/simd/64K +the log does not say which process measured what' '$TMP/oldt' && ! grep -qE 'simd/64K +0\.[0-9]' '$TMP/oldt'"
mkdir -p "$TMP/bad"
cp "$run"/*.json "$TMP/bad/"
python3 - "$TMP/bad/local.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = [c for c in d["cells"] if c["status"] == "ok"][0]
c["process_ids"] = c["process_ids"][:-1]
json.dump(d, open(sys.argv[1], "w"))
PY
sum_before=$(md5sum "$TMP/bad/local.json")
"$BV" compare "$TMP/bad" --vs-backend scalar > /dev/null 2> "$TMP/err"
rc=$?
check "process_ids shorter than process_medians_ns: exit 2 naming the field" \
	test $rc -eq 2 -a "$(grep -c 'process_ids.*expected an array as long as' "$TMP/err")" -ge 1
check "  and the log is left as it was" test "$(md5sum "$TMP/bad/local.json")" = "$sum_before"
finish
