#!/usr/bin/env bash
# End to end: the bundled catalog (harness/common/ops.def, built as the suite
# "kernels": harness/plugin/catalog.c) measured through the runner's one cell path.
# The repository's own releases 0.1.0 and 0.4.0 give the n/a and skipped
# cells (an op, a group and backends a release lacks; cuda without a
# device): the same cells, statuses, reasons, footprints and work as the
# logs tests/e2e/fixtures/plugin_path/ hold, which the runner's path before
# it (plugin.c alone, without catalog.c) wrote for the same selection; and
# those logs still compare.  A fixture gives an A/A and a planted slowdown,
# --inputs N (the input sets per cell, the byte cap included) and an ops
# file's user ops (a planted wrong reference is `wrong result`).
source "$(dirname "$0")/lib.sh"
OLD="$(dirname "$0")/fixtures/plugin_path"

# same_cells OLD_DIR NEW_DIR: every version's cells, statuses, reasons,
# footprints and work equal in the two runs' logs
same_cells() { python3 "$ROOT/tests/measurement/same_cells.py" "$1" "$2"; }

# run_one NAME ARGS...: the run's results directory in $cat
run_one() {
	local name=$1
	shift
	"$BV" "$@" --results "$TMP/$name" > "$TMP/$name.out" 2> "$TMP/$name.err"
	check "$name: exits 0" test $? -eq 0
	cat=$(ls -d "$TMP/$name"/[0-9]*/ | head -1)
}

# ---- the repository's releases: n/a and skipped cells ---------------------
shallow=$(git -C "$ROOT" rev-parse --is-shallow-repository 2>/dev/null || echo none)
if [ "$shallow" != false ]; then
	history_missing "releases 0.1.0 and 0.4.0 as before" "no history in this clone (shallow: $shallow)"
else
	(
		export KERNEL_DIR="$ROOT/kernels"
		unset KERNEL_REPO BENCH_VERSIONS_COMPAT
		share_release_builds
		run_one releases 0.1.0 0.4.0 --benches unary,binary,reduce,matmul --ops relu,tanh,add,max,sum,gemv \
			--backends scalar,simd,blas,cuda --sizes 1K,64x64 --quick --counts none
		# what the comparison of the statuses covers: each kind of n/a of
		# 0.1.0 (a shim's op, a group, a backend), ok cells of 0.4.0, cuda
		for p in "^unary +tanh +scalar +1K +n/a +[0-9.]+ [mun]?s +new" "binary +add +scalar +1K +n/a +[0-9.]+ [mun]?s +new" \
			"matmul +gemv +simd +64x64 +n/a +[0-9.]+ [mun]?s +new"; do
			check "releases: the table has '$p'" contains "$TMP/releases.out" "$p"
		done
		check "releases: the cuda cells say why they did not run" contains "$TMP/releases.out" "^not run: [0-9]+ cuda cells"
		check "releases: the same cells, statuses, reasons, footprints and work as the plugin path's logs" \
			same_cells "$OLD" "$cat"
		check "releases: 0.1.0 lacks tanh (n/a from the library's first call)" python3 - "$cat/0.1.0.json" <<'PY'
import json, sys
c = [c for c in json.load(open(sys.argv[1]))["cells"] if c["op"] == "tanh" and c["backend"] == "scalar"][0]
assert c["status"] == "n/a" and "107" in c["reason"], c
PY
		# a log the plugin path wrote compares with one of today's
		"$BV" compare "$OLD/0.1.0.json" "$cat/0.4.0.json" > "$TMP/cross" 2> "$TMP/cross.err"
		check "releases: compare of a plugin-path log and today's log exits 0" test $? -eq 0
		check "releases: ... and has their rows, unpaired" contains "$TMP/cross" "^unary +relu +scalar +1K +[0-9.]+ [mun]?s +[0-9.]+ [mun]?s +[0-9.]+ \[[0-9.]+, [0-9.]+\] inconclusive unpaired"
		exit $failures
	)
	failures=$((failures + $?))
fi

# ---- a fixture: an A/A and a planted slowdown --------------------------------
make_fixture
plant_relu_slowdown
echo 0.1.1 > "$FIX/kernels/VERSION"
git -C "$FIX" commit -qam "relu: three passes (planted slowdown)"
git -C "$FIX" branch steady HEAD~1 # 0.1.0's tree again: an A/A
# Step 3 on the same run: --inputs 16, and an ops file's user ops: mycopy
# calls kn_copy, cube a function no version has (n/a: a weak reference).
# Both are unary, so their cells get input sets too; copy's do not.
ops="$TMP/ops.json"
write_ops() { # write_ops MYCOPY_REFERENCE
	cat > "$ops" <<JSON
{ "schema_version": 1,
  "ops": [
    { "name": "mycopy", "group": "unary", "function": "kn_copy", "lo": -10, "hi": 10,
      "max_ulp": 0, "reference": "$1" },
    { "name": "cube", "group": "unary", "function": "kx_cube", "lo": -2, "hi": 2,
      "max_ulp": 1, "reference": "x^3" } ] }
JSON
}
write_ops "x"
export BENCH_VERSIONS_OPS="$ops"
run_one fixture 0.1.0 main steady --benches unary,binary,reduce,memory --ops relu,abs,add,sum,copy,mycopy,cube \
	--backends scalar --sizes 1K --inputs 16 --quick --counts none
# same_input_sets DIR: every measuring process of the run says, per cell,
# the input_sets the version logs say
same_input_sets() {
	python3 - "$1" <<'PY'
import glob, json, os, sys
d = sys.argv[1]
logs = {}
for f in glob.glob(os.path.join(d, "*.json")):
    for c in json.load(open(f)).get("cells", []):
        if c["status"] == "ok":
            logs[(c["op"], c["size"])] = c.get("input_sets", 1)
procs = {}
for f in glob.glob(os.path.join(d, "raw", "process-*.json")):
    for c in json.load(open(f))["cells"]:
        procs.setdefault((c["op"], c["size"]), set()).add(c["input_sets"])
bad = [(k, v, procs.get(k)) for k, v in logs.items() if procs.get(k) != {v}]
if bad or not logs:
    print("#  ", bad[:10])
    sys.exit(1)
PY
}
check "fixture: every process's input_sets per cell is the logs'" same_input_sets "$cat"
check "fixture: ... relu, abs, add, sum, mycopy: 16 sets; copy one; cube n/a" python3 - "$cat/main.json" <<'PY'
import json, sys
got = {c["op"]: (c["status"], c.get("input_sets", 1)) for c in json.load(open(sys.argv[1]))["cells"]}
want = {op: ("ok", 16) for op in ("relu", "abs", "add", "sum", "mycopy")}
want.update(copy=("ok", 1), cube=("n/a", 1))
assert got == want, got
PY
"$BV" compare "$cat" --format json > "$TMP/fixture.json" 2> /dev/null
check "fixture: relu is slower on main, and steady (A/A) calls nothing" python3 - "$TMP/fixture.json" <<'PY'
import json, sys
rows = [r for r in json.load(open(sys.argv[1]))["rows"] if r["op"] in ("relu", "abs", "add", "sum")]
assert len(rows) == 4, [(r["bench"], r["op"]) for r in rows]
seen = 0
for r in rows:
    for ch in r["changes"]:
        if ch["version"] == "main" and r["op"] == "relu":
            assert ch["verdict"] == "slower", (r["op"], ch)
            seen += 1
        elif ch["version"] == "steady":
            assert ch["verdict"] not in ("slower", "faster"), (r["op"], ch)
            seen += 1
assert seen == 5, seen
PY

# 1M elements: relu and sum keep all 16 sets (4 MiB a set), add 9 (8 MiB a
# set: BV_INPUT_SETS_BYTES beside set 0)
run_one large main --benches unary,binary,reduce --ops relu,add,sum --backends scalar --sizes 1M --inputs 16 \
	--quick --counts none
check "1M: every process's input_sets per cell is the logs'" same_input_sets "$cat"
check "1M: ... relu 16, sum 16, add 9 (the byte cap)" python3 - "$cat/main.json" <<'PY'
import json, sys
got = {c["op"]: c.get("input_sets", 1) for c in json.load(open(sys.argv[1]))["cells"]}
assert got == {"relu": 16, "sum": 16, "add": 9}, got
PY
# a reference that does not match what the function computes
write_ops "x + 1"
"$BV" main --benches unary --ops mycopy --backends scalar --sizes 1K --quick --counts none \
	--results "$TMP/wrong" > "$TMP/wrong.out" 2> "$TMP/wrong.err"
check "a wrong user op: wrong result, saying the element" python3 - "$TMP/wrong" <<'PY'
import glob, json, sys
(p,) = glob.glob(sys.argv[1] + "/[0-9]*/main.json")
(c,) = json.load(open(p))["cells"]
assert c["status"] == "wrong result" and "element" in c["reason"], c
PY
unset BENCH_VERSIONS_OPS

finish
