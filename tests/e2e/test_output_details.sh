#!/usr/bin/env bash
# End to end: small things a newcomer meets in the output and the docs:
# the docs stand alone, the cache says what its entries are,
# a machine without a GPU is not told to upgrade its driver.
source "$(dirname "$0")/lib.sh"
make_fixture cuda
export BENCH_VERSIONS_CACHE="$TMP/cache"

# The docs are read on a fresh clone, where nothing outside the repository
# exists: no citation of a path above it (`../shared/...`).
# A relative link is resolved from its page's directory (docs/cli's
# ../../tests/... is inside; docs' ../../x is not).
check "README and docs cite no file outside the repository" python3 - "$ROOT" <<'PY'
import glob, os, re, sys
root = os.path.realpath(sys.argv[1])
pages = [os.path.join(root, "README.md")] + glob.glob(os.path.join(root, "docs", "**", "*.md"), recursive=True)
bad = []
for page in pages:
    for n, line in enumerate(open(page), 1):
        if "../shared/" in line:
            bad.append("%s:%d: ../shared/" % (page, n))
        for target in re.findall(r"\]\(([^)#\s]+)", line):
            if re.match(r"[a-z]+:", target) or target.startswith("/"):
                continue
            where = os.path.realpath(os.path.join(os.path.dirname(page), target))
            if os.path.commonpath([where, root]) != root:
                bad.append("%s:%d: %s" % (page, n, target))
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY

# One small run builds 0.1.0 into an empty cache; its cuda cell is skipped
# here unless the machine has a GPU.
"$BV" 0.1.0 --quick --ops abs --backends scalar,cuda --sizes 1K --results "$TMP/r" > "$TMP/out" 2> "$TMP/err"
check "a small run exits 0" test $? -eq 0

"$BV" cache show > "$TMP/show" 2>&1
check "cache show: a build says its version and the name it was built as" \
	contains "$TMP/show" '^builds +[0-9a-f]{40} +[0-9.]+[KMB] +.* ago +kernels 0\.1\.0, built as 0\.1\.0$'
check "cache show: a build's log says the same" \
	contains "$TMP/show" '^builds +[0-9a-f]{40}\.log +[0-9.]+[KMB] +.* ago +kernels 0\.1\.0, built as 0\.1\.0$'
check "cache show: a source tree says its version" \
	contains "$TMP/show" '^src +[0-9a-f]{40} +[0-9.]+[KMB] +.* ago +kernels 0\.1\.0$'
check "cache show: the calibration has no version column" contains "$TMP/show" '^machine +[^ ]+ +[0-9.]+[KMB] +[0-9]+ ?[a-z]+ ago$'
# A build from before the version file: said unknown, not guessed.
rm "$TMP"/cache/builds/*/version.json
"$BV" cache show > "$TMP/show2" 2>&1
check "cache show: a build without its version file says unknown" \
	contains "$TMP/show2" '^builds +[0-9a-f]{40} +[0-9.]+[KMB] +.* ago +unknown$'

# The simd backend's ISA: what the runner saw each version dispatch to, the
# rule of kernels/src/simd.c applied to this CPU's flags.
want=$(python3 -c '
f = set(next(l for l in open("/proc/cpuinfo") if l.startswith("flags")).split(":")[1].split())
print("avx512" if {"avx512f", "avx512dq", "avx512vl", "avx512bw"} <= f else "avx2" if {"avx2", "fma"} <= f else "generic")')
check "the runner records the ISA each version's simd backend dispatched to" python3 - "$want" "$TMP"/r/[0-9]*/raw/process-*.json <<'PY'
import json, sys
want = sys.argv[1]
for f in sys.argv[2:]:
    d = json.load(open(f))
    assert [v["simd_isa"] for v in d["versions"]] == [want], (f, d["versions"])
PY
# The readers show a log's version.simd_isa: in the table's, markdown's and
# HTML's header and in the comparison JSON; one line when all agree.
log=$(ls "$TMP"/r/[0-9]*/0.1.0.json)
mkdir -p "$TMP/isa"
python3 - "$log" "$TMP/isa" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for name, isa in (("a", "avx2"), ("b", "avx512")):
    d["version"]["simd_isa"] = isa
    d["version"]["label"] = name
    json.dump(d, open(f"{sys.argv[2]}/{name}.json", "w"))
# A log from before the runner reported it: no key at all.
del d["version"]["simd_isa"]
d["version"]["label"] = "old"
json.dump(d, open(f"{sys.argv[2]}/old.json", "w"))
PY
# kn_simd_isa's names (kernels/src/simd.c, kernels.h): avx512, avx2, or
# generic where there is no usable vector unit.
check "a fresh log records the simd ISA the runner saw" python3 -c "
import json, sys; assert json.load(open(sys.argv[1]))['version']['simd_isa'] in ('avx512', 'avx2', 'generic'), sys.argv[1]" "$log"
"$BV" compare "$TMP/isa/b.json" > "$TMP/isa/one.out" 2>&1
check "table: the simd ISA above the header" bash -c "grep -qE '^simd ISA: avx512$' '$TMP/isa/one.out' && grep -A1 '^simd ISA' '$TMP/isa/one.out' | grep -qE '^bench +op '"
"$BV" compare "$TMP/isa/a.json" "$TMP/isa/b.json" > "$TMP/isa/two.out" 2>&1
check "table: versions on different ISAs are each named" contains "$TMP/isa/two.out" '^simd ISA: a avx2, b avx512$'
"$BV" compare "$TMP/isa/b.json" --format markdown > "$TMP/isa/md" 2>&1
check "markdown: the simd ISA above the table" contains "$TMP/isa/md" '^_simd ISA:_ avx512$'
"$BV" compare "$TMP/isa/b.json" --format html > "$TMP/isa/html" 2>&1
check "html: the simd ISA under the versions" contains "$TMP/isa/html" '<p class="simd">simd ISA: avx512</p>'
"$BV" compare "$TMP/isa/a.json" "$TMP/isa/b.json" --format json > "$TMP/isa/json" 2>&1
check "json: each version's simd_isa" python3 -c "
import json, sys; d = json.load(open(sys.argv[1]))
assert [v['simd_isa'] for v in d['versions']] == ['avx2', 'avx512'], d['versions']" "$TMP/isa/json"
"$BV" compare "$TMP/isa/old.json" > "$TMP/isa/old.out" 2>&1
check "a log that does not say: no simd line" bash -c "! grep -q '^simd ISA' '$TMP/isa/old.out'"

if [ -e /dev/nvidia0 ]; then
	skip "cuda on a machine without a GPU says so" "this machine has a GPU"
elif grep -q 'nvcc was not found' "$TMP/out"; then
	skip "cuda on a machine without a GPU says so" "no nvcc: the cuda backend was not built"
else
	check "cuda on a machine without a GPU says so, not 'driver version is insufficient'" \
		contains "$TMP/out" '^not run: 1 cuda cell on every version: skipped: cuda: no CUDA device \(no GPU on this machine\)$'
fi

# The library's own allocations during a call (kernels 0.10.0 counts them):
# sgemm packs panels into scratch, abs allocates nothing; a version whose
# header predates the count says null (unknown), never 0.
sed -i 's/^#define KN_VERSION_MINOR .*/#define KN_VERSION_MINOR 9/' "$FIX/kernels/include/kernels.h"
git -C "$FIX" commit -qam "a header before the memory count" # main
git -C "$FIX" checkout -q HEAD~1 -- kernels/include/kernels.h  # local: today's header
"$BV" main local --quick --benches matmul,unary --ops sgemm,abs --backends simd --sizes 64x64x64,1K \
	--format json --results "$TMP/mem" > "$TMP/mem.json" 2> "$TMP/mem.err"
check "a run of sgemm and abs on two headers exits 0" test $? -eq 0
check "the log and the JSON export carry the library's workspace, null where it is not counted" \
	python3 - "$TMP/mem.json" "$TMP"/mem/[0-9]*/ <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
res = {(r["op"], x["version"]): x for r in d["rows"] for x in r["results"]}
assert res[("sgemm", "local")]["library_host_bytes"] > 0, res[("sgemm", "local")]
assert res[("abs", "local")]["library_host_bytes"] == 0, res[("abs", "local")]
assert res[("sgemm", "local")]["library_device_bytes"] == 0
for op in ("sgemm", "abs"):
    assert res[(op, "main")]["library_host_bytes"] is None, res[(op, "main")]
for v, want in (("local", int), ("main", type(None))):
    log = json.load(open(os.path.join(sys.argv[2], v + ".json")))
    for c in log["cells"]:
        assert isinstance(c["footprint"]["library_host_bytes"], want), (v, c["footprint"])
PY
"$BV" compare "$TMP"/mem/latest --units memory > "$TMP/mem.table" 2>&1
check "--units memory shows the workspace, 'not counted' for the older header" \
	contains "$TMP/mem.table" '^matmul +sgemm +simd +64x64x64 +not counted +[0-9.]+ (B|KiB) +[0-9.]+ \['
check "--units memory: abs allocates nothing" contains "$TMP/mem.table" '^unary +abs +simd +1K +not counted +0 B +[0-9.]+ \['

# --simd-isa: every version's simd backend on one path, whatever this CPU
# would choose; the log and the table's ISA line say the path that ran.
"$BV" main local --quick --ops exp --backends simd --sizes 1K --simd-isa generic --results "$TMP/isa" \
	> "$TMP/isa.out" 2> "$TMP/isa.err"
check "--simd-isa generic: exits 0" test $? -eq 0
check "--simd-isa generic: the table says the path that ran" contains "$TMP/isa.out" '^simd ISA: generic$'
check "--simd-isa generic: the logs record it, forced" python3 - "$TMP"/isa/[0-9]*/ <<'PY'
import json, os, sys
for v in ("main", "local"):
    d = json.load(open(os.path.join(sys.argv[1], v + ".json")))
    assert d["version"]["simd_isa"] == "generic", d["version"]
    assert d["method"]["simd_isa_forced"] == "generic", d["method"]
PY
if grep -qw avx512f /proc/cpuinfo; then
	"$BV" local --quick --ops exp --backends simd --sizes 1K --simd-isa avx512 --results "$TMP/isa" > "$TMP/isa.out" 2>&1
	check "--simd-isa avx512 on a CPU that has it runs it" \
		bash -c "test $? -eq 0 && grep -q '^simd ISA: avx512$' '$TMP/isa.out'"
else
	"$BV" local --quick --ops exp --backends simd --sizes 1K --simd-isa avx512 --results "$TMP/isa" > "$TMP/isa.out" 2>&1
	check "--simd-isa avx512 on a CPU without it is refused, saying why" \
		bash -c "test $? -ne 0 && grep -q 'simd-isa avx512' '$TMP/isa.out'"
fi
"$BV" local --quick --simd-isa sse --sizes 1K > /dev/null 2> "$TMP/isa.err"
check "--simd-isa sse: a usage error naming the choices" \
	bash -c "test $? -eq 2 && grep -q \"expected one of avx512|avx2|generic\" '$TMP/isa.err'"

finish
