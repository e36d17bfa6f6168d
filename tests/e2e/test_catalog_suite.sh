#!/usr/bin/env bash
# End to end: the bundled catalog run through the suite engine path (the
# default since issue 32's step 4: harness/catalog.c; docs/suites-design.md,
# "Item 3: the plan") against the path before it, plugin.c alone
# (BENCH_VERSIONS_CATALOG=plugin), on the same versions and selection: the
# same cells with the same statuses, reasons and footprints in the logs; an
# A/A calls nothing and a planted slowdown is called slower on both paths; a
# log of one path compares with a log of the other.  The repository's own
# releases 0.1.0 and 0.4.0 give the n/a and skipped cells (an op, a group
# and backends a release lacks; cuda without a device), a fixture the A/A
# and the planted slowdown; on the fixture, step 3: --inputs N (the same
# input_sets per cell on both paths, the byte cap included) and an ops
# file's user ops (the same statuses; a planted wrong reference is `wrong
# result` on both).
source "$(dirname "$0")/lib.sh"

# same_cells PLUGIN_DIR SUITE_DIR: every version's cells, statuses,
# reasons, footprints and work equal in the two runs' logs.
same_cells() {
	python3 - "$1" "$2" <<'PY'
import json, os, sys
def cells(d):
    out = {}
    for f in sorted(os.listdir(d)):
        if f.endswith(".json"):
            doc = json.load(open(os.path.join(d, f)))
            for c in doc.get("cells", []):
                out[(doc["version"]["label"], c["bench"], c["op"], c["backend"], c["size"])] = c
    return out
a, b = cells(sys.argv[1]), cells(sys.argv[2])
bad = [("only in one run", k) for k in set(a) ^ set(b)]
for k in sorted(set(a) & set(b)):
    for f in ("status", "reason", "footprint", "work"):
        if a[k].get(f) != b[k].get(f):
            bad.append((k, f, a[k].get(f), b[k].get(f)))
for x in bad[:10]:
    print("#  ", x)
sys.exit(1 if bad or not a else 0)
PY
}

# suite_plugins DIR YES|NO: every version of the run in DIR was measured
# with a catalog-suite plugin (its build exports bvs_suite_def), or none was.
suite_plugins() {
	local want=$2 key n=0
	for key in $(python3 -c 'import json, os, sys
d = sys.argv[1]
for f in sorted(os.listdir(d)):
    if f.endswith(".json"):
        print(json.load(open(os.path.join(d, f)))["version"]["build"]["key"])' "$1"); do
		n=$((n + 1))
		if nm -D "$BENCH_VERSIONS_CACHE/builds/$key/plugin.so" 2>/dev/null | grep -q ' bvs_suite_def$'; then
			[ "$want" = YES ] || return 1
		else
			[ "$want" = NO ] || return 1
		fi
	done
	[ $n -gt 0 ]
}

# run_both NAME ARGS...: the same run on the plugin path ($TMP/NAME-plugin:
# BENCH_VERSIONS_CATALOG=plugin) and on the suite path, the default
# ($TMP/NAME-suite); their results directories in $def and $cat.
run_both() {
	local name=$1
	shift
	BENCH_VERSIONS_CATALOG=plugin "$BV" "$@" --results "$TMP/$name-plugin" > "$TMP/$name-plugin.out" 2> "$TMP/$name-plugin.err"
	check "$name: the plugin path exits 0" test $? -eq 0
	"$BV" "$@" --results "$TMP/$name-suite" > "$TMP/$name-suite.out" 2> "$TMP/$name-suite.err"
	check "$name: the suite path (the default) exits 0" test $? -eq 0
	def=$(ls -d "$TMP/$name-plugin"/[0-9]*/ | head -1) cat=$(ls -d "$TMP/$name-suite"/[0-9]*/ | head -1)
	check "$name: BENCH_VERSIONS_CATALOG=plugin builds plugin.c's plugins" suite_plugins "$def" NO
	check "$name: the default builds catalog-suite plugins (other build keys)" suite_plugins "$cat" YES
	check "$name: the same cells, statuses, reasons and footprints on both paths" same_cells "$def" "$cat"
}

# ---- the repository's releases: n/a and skipped cells ---------------------
shallow=$(git -C "$ROOT" rev-parse --is-shallow-repository 2>/dev/null || echo none)
if [ "$shallow" != false ]; then
	history_missing "releases 0.1.0 and 0.4.0 on both paths" "no history in this clone (shallow: $shallow)"
else
	(
		export KERNEL_DIR="$ROOT/kernels"
		unset KERNEL_REPO BENCH_VERSIONS_COMPAT
		share_release_builds
		run_both releases 0.1.0 0.4.0 --benches unary,binary,reduce,matmul --ops relu,tanh,add,max,sum,gemv \
			--backends scalar,simd,blas,cuda --sizes 1K,64x64 --quick --counts none
		# what the comparison of the statuses covers: each kind of n/a of
		# 0.1.0 (a shim's op, a group, a backend), ok cells of 0.4.0, cuda
		for p in "^unary +tanh +scalar +1K +n/a +[0-9.]+ [mun]?s +new" "binary +add +scalar +1K +n/a +[0-9.]+ [mun]?s +new" \
			"matmul +gemv +simd +64x64 +n/a +[0-9.]+ [mun]?s +new"; do
			check "releases: the suite path's table has '$p'" contains "$TMP/releases-suite.out" "$p"
		done
		check "releases: the cuda cells say why they did not run" contains "$TMP/releases-suite.out" "^not run: [0-9]+ cuda cells"
		check "releases: 0.1.0 lacks tanh (n/a from the library's first call)" python3 - "$cat/0.1.0.json" <<'PY'
import json, sys
c = [c for c in json.load(open(sys.argv[1]))["cells"] if c["op"] == "tanh" and c["backend"] == "scalar"][0]
assert c["status"] == "n/a" and "107" in c["reason"], c
PY
		# a log of either path compares with the other's
		"$BV" compare "$def/0.1.0.json" "$cat/0.4.0.json" > "$TMP/cross" 2> "$TMP/cross.err"
		check "releases: compare of a plugin-path log and a suite-path log exits 0" test $? -eq 0
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
run_both fixture 0.1.0 main steady --benches unary,binary,reduce,memory --ops relu,abs,add,sum,copy,mycopy,cube \
	--backends scalar --sizes 1K --inputs 16 --quick --counts none
# same_input_sets PLUGIN_DIR SUITE_DIR: every version log's and every
# measuring process's input_sets per cell equal on the two paths
same_input_sets() {
	python3 - "$1" "$2" <<'PY'
import glob, json, os, sys
def sets(d):
    logs, procs = {}, {}
    for f in glob.glob(os.path.join(d, "*.json")):
        doc = json.load(open(f))
        for c in doc.get("cells", []):
            logs[(doc["version"]["label"], c["op"], c["size"])] = c.get("input_sets", 1)
    for f in glob.glob(os.path.join(d, "raw", "process-*.json")):
        for c in json.load(open(f))["cells"]:
            procs.setdefault((c["op"], c["size"]), set()).add(c["input_sets"])
    return logs, procs
(la, pa), (lb, pb) = sets(sys.argv[1]), sets(sys.argv[2])
for x, y in ((la, lb), (pa, pb)):
    if x != y or not x:
        print("#  ", sorted(set(x.items()) ^ set(y.items()))[:10])
        sys.exit(1)
PY
}
check "fixture: every cell's input_sets the same on both paths, in the logs and every process" same_input_sets "$def" "$cat"
check "fixture: ... relu, abs, add, sum, mycopy: 16 sets; copy one; cube n/a" python3 - "$cat/main.json" <<'PY'
import json, sys
got = {c["op"]: (c["status"], c.get("input_sets", 1)) for c in json.load(open(sys.argv[1]))["cells"]}
want = {op: ("ok", 16) for op in ("relu", "abs", "add", "sum", "mycopy")}
want.update(copy=("ok", 1), cube=("n/a", 1))
assert got == want, got
PY
for path in plugin suite; do
	d=$def
	[ $path = suite ] && d=$cat
	"$BV" compare "$d" --format json > "$TMP/$path.json" 2> /dev/null
	check "fixture, $path path: relu is slower on main, and steady (A/A) calls nothing" python3 - "$TMP/$path.json" <<'PY'
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
done
# each path's log against the other's: the same version, unpaired
"$BV" compare "$def/main.json" "$cat/main.json" > "$TMP/fixture-cross" 2> /dev/null
check "fixture: compare of main's plugin-path log with its suite-path log" \
	contains "$TMP/fixture-cross" "^unary +relu +scalar +1K .* inconclusive unpaired"

# 1M elements: relu and sum keep all 16 sets (4 MiB a set), add 9 (8 MiB a
# set: BV_INPUT_SETS_BYTES beside set 0)
run_both large main --benches unary,binary,reduce --ops relu,add,sum --backends scalar --sizes 1M --inputs 16 \
	--quick --counts none
check "1M: every cell's input_sets the same on both paths, in the logs and every process" same_input_sets "$def" "$cat"
check "1M: ... relu 16, sum 16, add 9 (the byte cap)" python3 - "$cat/main.json" <<'PY'
import json, sys
got = {c["op"]: c.get("input_sets", 1) for c in json.load(open(sys.argv[1]))["cells"]}
assert got == {"relu": 16, "sum": 16, "add": 9}, got
PY
# a reference that does not match what the function computes
write_ops "x + 1"
for path in plugin suite; do
	env=()
	[ $path = plugin ] && env=(BENCH_VERSIONS_CATALOG=plugin)
	env "${env[@]}" "$BV" main --benches unary --ops mycopy --backends scalar --sizes 1K --quick --counts none \
		--results "$TMP/wrong-$path" > "$TMP/wrong-$path.out" 2> "$TMP/wrong-$path.err"
	echo $? > "$TMP/wrong-$path.rc"
	check "a wrong user op, $path path: wrong result, saying the element" python3 - "$TMP/wrong-$path" <<'PY'
import glob, json, sys
(p,) = glob.glob(sys.argv[1] + "/[0-9]*/main.json")
(c,) = json.load(open(p))["cells"]
assert c["status"] == "wrong result" and "element" in c["reason"], c
PY
done
check "a wrong user op: the same exit status on both paths ($(cat "$TMP"/wrong-plugin.rc), $(cat "$TMP"/wrong-suite.rc))" \
	cmp -s "$TMP"/wrong-plugin.rc "$TMP"/wrong-suite.rc
check "a wrong user op: the same reason on both paths" python3 - "$TMP"/wrong-plugin "$TMP"/wrong-suite <<'PY'
import glob, json, sys
r = [json.load(open(glob.glob(d + "/[0-9]*/main.json")[0]))["cells"][0]["reason"] for d in sys.argv[1:]]
assert r[0] == r[1], r
PY
unset BENCH_VERSIONS_OPS

BENCH_VERSIONS_CATALOG=bogus refused "an unknown BENCH_VERSIONS_CATALOG" "BENCH_VERSIONS_CATALOG=bogus: expected 'suite'.*or 'plugin'" \
	0.1.0 --ops relu --sizes 1K --quick --results "$TMP/bogus"
finish
