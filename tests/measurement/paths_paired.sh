#!/usr/bin/env bash
# paths_paired.sh - the bundled catalog's two paths measured side by side in
# one process: the same version built as the catalog suite (the default,
# harness/catalog.c) and as plugin.c alone (BENCH_VERSIONS_CATALOG=plugin),
# handed to one bv-runner as two "versions", so every ratio below is paired
# (same process, alternating rounds).  What differs between the paths:
# the call path (the suite's trampoline and catalog.c's run: two calls
# more), and where the inputs are (the runner's shared buffers, or the
# suite's bvs_alloc_shared ones).  Not part of `make test`;
# docs/suites-design.md ("What differs between the paths") reports it.
#
#   tests/measurement/paths_paired.sh [PROCESSES] [bv-runner selection...]
#   e.g. tests/measurement/paths_paired.sh 12 --benches unary,binary,reduce,matmul \
#            --ops relu,exp,add,sum,gemv --backends scalar,simd --sizes 1K,64K,64x64
#
# Prints per cell the median over processes of each process's median
# suite/plugin ratio, with the lowest and highest process.
source "$(dirname "$0")/lib.sh"
N=${1:-12}
shift || true
SEL=("$@")
[ ${#SEL[@]} -gt 0 ] || SEL=(--benches unary,binary,reduce,matmul --ops relu,exp,add,sum,gemv
	--backends scalar,simd --sizes 1K,64K,64x64)
proof_env paths
proof_tool
export KERNEL_DIR="$ROOT/kernels"
# one build of `local` per path (a tiny run builds it; its log names the build)
plugin_of() { # PATH_NAME -> the plugin.so of local's build on that path
	BENCH_VERSIONS_CATALOG=$1 "$BV" local --benches unary --ops relu --backends scalar --sizes 1K --quick \
		--counts none --results "$WORK/build-$1" > /dev/null 2>&1 || { echo "building on the $1 path failed" >&2; exit 3; }
	local key
	key=$(python3 -c 'import glob, json, sys
(p,) = glob.glob(sys.argv[1] + "/[0-9]*/local.json")
print(json.load(open(p))["version"]["build"]["key"])' "$WORK/build-$1")
	echo "$BENCH_VERSIONS_CACHE/builds/$key/plugin.so"
}
P=$(plugin_of plugin)
S=$(plugin_of suite)
RUNNER="$TOOL/bin/bv-runner"
echo "# $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs, $(grep -qw avx512f /proc/cpuinfo && echo AVX-512 || echo AVX2); load $(load_now); commit $COMMIT"
for i in $(seq 1 "$N"); do
	"$RUNNER" --out "$WORK/p$i.json" --rounds 15 "${SEL[@]}" plugin="$P" suite="$S" 2>> "$WORK/runner.err" ||
		{ echo "bv-runner failed: $WORK/runner.err" >&2; exit 3; }
done
echo "# load at the end $(load_now)"
python3 - "$WORK" <<'PY'
import glob, json, statistics as st, sys
r = {}
for f in glob.glob(sys.argv[1] + "/p*.json"):
    for c in json.load(open(f))["cells"]:
        vs = {v["label"]: v.get("samples_ns") for v in c["versions"]}
        if vs.get("plugin") and vs.get("suite"):
            k = (c["bench"], c["op"], c["backend"], c["size"])
            r.setdefault(k, []).append(st.median(b / a for a, b in zip(vs["plugin"], vs["suite"])))
def shown(size):
    # the runner's size: an element count, or a shape packed as benches.c's
    # SHAPE2/SHAPE3 (dimensions << 48, then 16 bits a dimension)
    nd = size >> 48
    if not nd:
        for unit, n in (("M", 1 << 20), ("K", 1 << 10)):
            if size >= n and size % n == 0:
                return "%d%s" % (size // n, unit)
        return str(size)
    dims = [(size >> 32) & 0xFFFF, (size >> 16) & 0xFFFF, size & 0xFFFF][:nd]
    return "x".join(map(str, dims))
print("bench\top\tbackend\tsize\tsuite/plugin\tlowest\thighest\tprocesses")
for k in sorted(r):
    v = sorted(r[k])
    print(*k[:3], shown(k[3]), "%.3f" % st.median(v), "%.3f" % v[0], "%.3f" % v[-1], len(v), sep="\t")
PY
