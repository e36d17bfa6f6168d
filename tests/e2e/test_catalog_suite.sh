#!/usr/bin/env bash
# End to end: the bundled catalog run through the suite engine path
# (BENCH_VERSIONS_CATALOG=suite: harness/catalog.c; docs/suites-design.md,
# "Item 3: the plan", step 2) against the default path, on the same
# versions and selection: the same cells with the same statuses, reasons and
# footprints in the logs; an A/A calls nothing and a planted slowdown is
# called slower on both paths; a log of one path compares with a log of the
# other.  The repository's own releases 0.1.0 and 0.4.0 give the n/a and
# skipped cells (an op, a group and backends a release lacks; cuda without a
# device), a fixture the A/A and the planted slowdown.
source "$(dirname "$0")/lib.sh"

# same_cells DEFAULT_DIR SUITE_DIR: every version's cells, statuses,
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

# run_both NAME ARGS...: the same run on the default path ($TMP/NAME-default)
# and on the suite path ($TMP/NAME-suite); their results directories in
# $def and $cat.
run_both() {
	local name=$1
	shift
	"$BV" "$@" --results "$TMP/$name-default" > "$TMP/$name-default.out" 2> "$TMP/$name-default.err"
	check "$name: the default path exits 0" test $? -eq 0
	BENCH_VERSIONS_CATALOG=suite "$BV" "$@" --results "$TMP/$name-suite" > "$TMP/$name-suite.out" 2> "$TMP/$name-suite.err"
	check "$name: the suite path exits 0" test $? -eq 0
	def=$(ls -d "$TMP/$name-default"/[0-9]*/ | head -1) cat=$(ls -d "$TMP/$name-suite"/[0-9]*/ | head -1)
	check "$name: the default path's plugins are plugin.c's" suite_plugins "$def" NO
	check "$name: BENCH_VERSIONS_CATALOG=suite builds catalog-suite plugins (other build keys)" suite_plugins "$cat" YES
	check "$name: the same cells, statuses, reasons and footprints on both paths" same_cells "$def" "$cat"
}

# ---- the repository's releases: n/a and skipped cells ---------------------
shallow=$(git -C "$ROOT" rev-parse --is-shallow-repository 2>/dev/null || echo none)
if [ "$shallow" != false ]; then
	skip "releases 0.1.0 and 0.4.0 on both paths" "no history in this clone (shallow: $shallow)"
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
		check "releases: compare of a default-path log and a suite-path log exits 0" test $? -eq 0
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
run_both fixture 0.1.0 main steady --benches unary,binary,reduce --ops relu,abs,add,sum --backends scalar \
	--sizes 1K --quick --counts none
for path in default suite; do
	d=$def
	[ $path = suite ] && d=$cat
	"$BV" compare "$d" --format json > "$TMP/$path.json" 2> /dev/null
	check "fixture, $path path: relu is slower on main, and steady (A/A) calls nothing" python3 - "$TMP/$path.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
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
check "fixture: compare of main's default-path log with its suite-path log" \
	contains "$TMP/fixture-cross" "^unary +relu +scalar +1K .* inconclusive unpaired"

BENCH_VERSIONS_CATALOG=bogus refused "an unknown BENCH_VERSIONS_CATALOG" "BENCH_VERSIONS_CATALOG=bogus: expected 'suite'" \
	0.1.0 --ops relu --sizes 1K --quick --results "$TMP/bogus"
finish
