#!/usr/bin/env bash
# End to end: the host-only plugin.  Where the kernels library builds its cuda
# backend (nvcc present), every plugin links libcublas and libcudart, whose
# loading alone takes 120-230 ms per measuring process here; each build then
# also holds plugin-host.so, linked without them, and the processes that run
# host cells load that one (orchestrator/build/build.c, measure.c).  Checked: the
# variant exists and needs no CUDA library, its code lies where the full
# plugin's does (layouts too), its stubs answer the cuda probe with a reason
# instead of crashing, and a run still gives the planted verdicts and reports
# the cuda cells from the full plugins (skipped with the device's own reason
# on a machine without a GPU).
source "$(dirname "$0")/lib.sh"
make_fixture cuda
git -C "$FIX" tag a
plant_relu_slowdown
git -C "$FIX" commit -qam "relu: three passes (planted slowdown)"
git -C "$FIX" tag slow

"$BV" a slow --benches unary --ops abs,relu --backends scalar,simd,cuda --sizes 1K --quick --layouts 2 \
	--results "$TMP/results" --format json > "$TMP/out.json" 2> "$TMP/err"
check "run exits 0" test $? -eq 0
builds=$(ls -d "$BENCH_VERSIONS_CACHE"/builds/*/)
cuda_builds=0
for b in $builds; do grep -q -- '-lcudart' "$b/lib/plugin-link-flags" && cuda_builds=$((cuda_builds + 1)); done

if [ "$cuda_builds" -eq 0 ]; then
	# No nvcc: the library leaves its cuda backend out and plugin.so is
	# host-only already; no variant is made and host cells load plugin.so.
	check "without the cuda backend no build has a host-only variant" \
		test "$(ls "$BENCH_VERSIONS_CACHE"/builds/*/plugin-host*.so 2>/dev/null | wc -l)" -eq 0
else
	check "each build has plugin-host.so and its layout" \
		test "$(ls "$BENCH_VERSIONS_CACHE"/builds/*/plugin-host.so "$BENCH_VERSIONS_CACHE"/builds/*/plugin-host-L1.so | wc -l)" -eq 4
	for b in $builds; do
		host="$b/plugin-host.so"
		check "$(basename "$b"): plugin.so needs libcublas, plugin-host.so does not" \
			bash -c "readelf -d '$b/plugin.so' | grep -q 'NEEDED.*libcublas' && ! readelf -d '$host' | grep -q 'NEEDED.*libcu'"
		check "$(basename "$b"): plugin-host.so leaves no CUDA symbol undefined" \
			bash -c "! nm -D --undefined-only '$host' | grep -E ' (__)?cu(da|blas)'"
		check "$(basename "$b"): the stubs define what the library calls" \
			bash -c "nm -D --defined-only '$host' | grep -qw cudaGetDeviceCount && nm -D --defined-only '$host' | grep -qw __cudaRegisterFatBinary"
	done
	check "the host-only variants place every function as the full plugins do, layouts included" \
		python3 - $builds <<'PY'
import subprocess, sys
def text(so):
    out = subprocess.run(["nm", so], capture_output=True, text=True, check=True).stdout
    return {f[2]: int(f[0], 16) for f in (l.split() for l in out.splitlines()) if len(f) == 3 and f[1] in "tT"}
for d in sys.argv[1:]:
    for full, host in (("plugin.so", "plugin-host.so"), ("plugin-L1.so", "plugin-host-L1.so")):
        a, b = text(d + full), text(d + host)
        assert "lookup" in a and "kn_scalar_binary" in a, (full, sorted(a)[:20])
        moved = [k for k in a if k.startswith(("kn_", "run_", "lookup", "bv_plugin_get")) and a[k] != b.get(k)]
        assert not moved, (d, host, moved[:5])
PY
	# The runner dlopens with RTLD_NOW: a symbol left unresolved would fail
	# here.  Asked for a cuda cell, the stubs say why instead of crashing.
	b=$(echo $builds | cut -d' ' -f1)
	"$ROOT/${BV_BIN_DIR:-bin}/bv-runner" --out "$TMP/probe.json" --benches unary --ops abs --backends cuda \
		--sizes 1K A="$b/plugin-host.so" B="$b/plugin-host-L1.so" 2> "$TMP/probe.err"
	check "a runner loads the host-only plugins (RTLD_NOW)" test $? -eq 0
	check "their cuda probe reports unavailable with the stubs' reason" python3 - "$TMP/probe.json" <<'PY'
import json, os, sys
cells = json.load(open(sys.argv[1]))["cells"]
assert len(cells) == 1, cells
for v in cells[0]["versions"]:
    assert v["status"] == "skipped", v
    # The stubs' own words, on every machine: they answer "stub library",
    # which no library rewords as "no GPU" (kernels 0.7.3).
    assert "the cuda backend is not loaded in this measuring process" in v["reason"], v
PY
fi

run=$(ls -d "$TMP"/results/[0-9]*/ | head -1)
check "verdicts: relu slower, abs same, cuda reported from the full plugins" python3 - "$TMP/out.json" <<'PY'
import json, sys
rows = {(r["op"], r["backend"]): r for r in json.load(open(sys.argv[1]))["rows"]}
for be in ("scalar", "simd"):
    # unchanged: not called (inconclusive when a loaded machine puts the
    # estimate past the band: docs/measurement.md)
    assert rows[("abs", be)]["changes"][0]["verdict"] in ("same", "inconclusive", "unstable"), rows[("abs", be)]["changes"]
# The planted 3x: slower; or, on a loaded CI machine under --quick, the
# whole interval past 2x but its evidence short of the run's control (seen
# once: 4.378 [3.521, 4.472], p 0.02 in 8 processes, held).  What this test
# is about is where the numbers come from, not the verdict's power.
relu = rows[("relu", "scalar")]["changes"][0]
assert relu["verdict"] == "slower" or (relu["verdict"] == "inconclusive" and relu["ci_low"] > 2), relu
for op in ("abs", "relu"):
    for r in rows[(op, "cuda")]["results"]:
        # skipped (no GPU) with the device's own reason, or measured on a GPU;
        # never the host-only stubs' answer
        assert r["status"] in ("skipped", "ok"), r
        assert r["status"] == "ok" or (r["reason"] and "not loaded in this measuring process" not in r["reason"]), r
PY
check "the cuda cells ran in one process of their own; every other process ran host cells only" \
	python3 - "$run" <<'PY'
import glob, json, os, sys
kinds = []
for p in sorted(glob.glob(os.path.join(sys.argv[1], "raw", "process-*.json")),
                key=lambda p: int(p.rsplit("-", 1)[1].split(".")[0])):
    be = {c["backend"] == "cuda" for c in json.load(open(p))["cells"]}
    assert len(be) == 1, (p, be)  # never both kinds in one process
    kinds.append(be.pop())
# without a GPU the first check settles them: one process, the first trial's
assert kinds.count(True) >= 1 and kinds[0] is True, kinds
assert kinds.count(False) >= 6, kinds
PY
finish
