#!/usr/bin/env bash
# tests/gpu/check.sh - the cuda backend on a real GPU, in one run of a few
# minutes, from the repository's root with gpu-bundle/ beside it (make
# gpu-bundle builds it here; the device tool carries it there):
#
#   OUT=DIR bash tests/gpu/check.sh        (OUT defaults to ./gpu-check-out)
#
#   1. environment: the GPU, driver, nvcc, compilers, CPU and its ISA
#   2. kernels:     the kernels' tests, every cuda op against the host paths
#   3. speed:       the cuda targets (kernels/bench/speed_cuda.cu)
#   4. releases:    bench-versions on two releases, --backends cuda,simd
#   5. A/A:         a release against the same code in another tree: nothing
#                   called
#   6. planted:     a release against cuda relu launched three times: cuda
#                   relu slower (and only it), its simd cell not
#
# Steps 4-6 measure the cuda cells as every cell is measured, through the
# catalog suite (harness/plugin/catalog.c): each version's setup makes its device
# buffers, and in the timing child the versions share the first one's
# through the suite's shared slot (bvs_alloc_shared), as they share host
# inputs.  The A/A says whether that sharing leaves nothing between two
# builds of one code; the planted step that a change still shows.
#
# Each step is pass, fail or skip (a skip says why: no device, no compiler),
# in $OUT/gpu-check.json and $OUT/gpu-check.log, and each step's output,
# each comparison's JSON and the logs of one run in
# $OUT/gpu-check-detail.tar.gz, to keep in tests/measurement/logs/.  Without
# a GPU (this repository's CI) the device's parts skip and everything else
# runs: tests/e2e/test_gpu_check.sh runs it so.  Exit 0 when nothing failed.
#
# On the device tool: make gpu-bundle here, then run with
#   command "OUT=$OUT bash tests/gpu/check.sh", carry ["gpu-bundle"],
#   timeout_s 600 (the comparisons stop by GPU_CHECK_BUDGET, 480 s)
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
B=$ROOT/gpu-bundle
OUT=${OUT:-$ROOT/gpu-check-out}
mkdir -p "$OUT"
LOG=$OUT/gpu-check.log
: > "$LOG"
WORK=$(mktemp -d /tmp/bv-gpu-check-XXXXXX)
STEPS=$WORK/steps.tsv
: > "$STEPS"
# The device tool brings back at most 8 files from $OUT: the log and the
# summary as they are, everything else (each step's output, each
# comparison's JSON, one run's logs) packed, also when the script stops
# early.
D=$WORK/detail
mkdir -p "$D"
trap 'tar -czf "$OUT/gpu-check-detail.tar.gz" -C "$WORK" detail 2> /dev/null; rm -rf "$WORK"' EXIT
T0=$(date +%s)
# the device machine gives a command 10 minutes; the three comparisons get
# what the steps before them left of 8 (GPU_CHECK_BUDGET seconds)
BUDGET=${GPU_CHECK_BUDGET:-480}
case $BUDGET in
'' | *[!0-9]*) echo "gpu check: GPU_CHECK_BUDGET=$BUDGET: expected whole seconds" | tee -a "$LOG" >&2; exit 2 ;;
esac

say() { echo "$*" | tee -a "$LOG"; }
# step NAME STATUS DETAIL: one line of the summary
step() {
	printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$(($(date +%s) - ${STEP_T0:-$T0}))" "$3" >> "$STEPS"
	say "== $1: $2${3:+ ($3)}"
}
begin() { STEP_T0=$(date +%s); say ""; say "== $1"; }

if [ ! -f "$B/MANIFEST" ]; then
	echo "gpu check: no gpu-bundle/ here (make gpu-bundle builds it; carry it with the tree)" | tee -a "$LOG" >&2
	exit 2
fi

# ---- 1. environment
begin environment
say "$(cat "$B/MANIFEST")"
say "started $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -srm), $(ldd --version 2>&1 | head -1)"
say "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) CPUs, $(grep -o -m1 -w 'avx512f' /proc/cpuinfo || grep -o -m1 -w avx2 /proc/cpuinfo || echo 'no avx2')"
gpu=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1)
say "gpu: ${gpu:-none (nvidia-smi found none)}"
ls /dev/nvidia0 > /dev/null 2>&1 && say "/dev/nvidia0 present" || say "/dev/nvidia0 absent"
NVCC=$(command -v nvcc || { test -x /usr/local/cuda/bin/nvcc && echo /usr/local/cuda/bin/nvcc; } || true)
say "nvcc: ${NVCC:-none}${NVCC:+ ($("$NVCC" --version | tail -1))}"
CC_FOUND=$(command -v cc || command -v gcc || true)
say "cc: ${CC_FOUND:-none}${CC_FOUND:+ ($("$CC_FOUND" --version | head -1))}"
if ! command -v make > /dev/null; then
	mkdir -p "$WORK/tools" && cp "$B/tools/make" "$WORK/tools/make" && export PATH=$WORK/tools:$PATH
	say "make: none on PATH; the bundle's ($(make --version | head -1))"
else
	say "make: $(make --version | head -1)"
fi
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name(0) if torch.cuda.is_available() else "no device")' 2>/dev/null | sed 's/^/python: /' | tee -a "$LOG"
step environment pass "${gpu:-no GPU}"

# ---- the bundle's programs and libraries, unpacked beside each other
STAGE=$WORK/stage
mkdir -p "$STAGE/bin"
tar -C "$STAGE" -xzf "$B/libs.tar.gz"
cp "$B/bin/bench-versions" "$B/bin/bv-runner" "$STAGE/bin/"
BV=$STAGE/bin/bench-versions
missing=$(ldd "$BV" "$STAGE/bin/bv-runner" 2>&1 | grep 'not found' | sort -u)
[ -z "$missing" ] || say "the tool's libraries: $missing"
# cuBLAS and the runtime the kernels link: the toolkit's (the rpath the
# kernels' Makefile writes), else where this machine keeps them (a toolkit
# elsewhere, or the Python wheels'); the bundle's cmocka beside them
CUDA_LIBS=
if ldd "$B/kernels/test_kernels" | grep -q 'libcublas.*not found'; then
	for d in /usr/local/cuda/lib64 /usr/local/cuda-*/lib64 /usr/lib/x86_64-linux-gnu \
		$(python3 -c 'import nvidia, os; p = nvidia.__path__[0]; print(" ".join(os.path.join(r) for r, _, f in os.walk(p) if any(x.startswith("libcublas.so") for x in f)))' 2>/dev/null); do
		if ls "$d"/libcublas.so.* > /dev/null 2>&1; then CUDA_LIBS=$d; break; fi
	done
	say "cuBLAS: not at the kernels' rpath; using ${CUDA_LIBS:-none found}"
fi
KLIB=$STAGE/lib${CUDA_LIBS:+:$CUDA_LIBS}

# ---- 2. the kernels' tests (every cuda op against the other paths when a
# device is there; the "unavailable, with a reason" path when not)
begin kernels
LD_LIBRARY_PATH=$KLIB timeout 300 "$B/kernels/test_kernels" > "$D/kernels-tests.log" 2>&1
rc=$?
tail -5 "$D/kernels-tests.log" | tee -a "$LOG"
device=0
grep -q 'cuda: device present' "$D/kernels-tests.log" && device=1
skipped=$(grep -c '^\[  SKIPPED \]' "$D/kernels-tests.log")
if [ $rc -ne 0 ]; then
	grep -E '^\[  (FAILED|ERROR) \]|^\[  FAILED  \]' "$D/kernels-tests.log" | head -20 | tee -a "$LOG"
	step kernels fail "exit $rc"
elif [ $device = 1 ]; then
	step kernels pass "with the device; $skipped skipped"
else
	step kernels pass "no device: host paths only, the cuda ops' 'unavailable' checked; $skipped skipped"
	step kernels-device skip "no CUDA device: $(grep -m1 -o 'cuda: no[^"]*' "$D/kernels-tests.log" || echo 'none')"
fi

# ---- 3. the cuda speed targets
begin speed
LD_LIBRARY_PATH=$KLIB timeout 300 "$B/kernels/speed_cuda" > "$D/speed-cuda.txt" 2>&1
rc=$?
tee -a "$LOG" < "$D/speed-cuda.txt"
case $rc in
0) step speed pass "$(tail -1 "$D/speed-cuda.txt")" ;;
77) step speed skip "$(grep -m1 unavailable "$D/speed-cuda.txt")" ;;
*) step speed fail "exit $rc: $(tail -1 "$D/speed-cuda.txt")" ;;
esac

# ---- 4-6. bench-versions on the bundle's clone: the tool builds each
# version here (make, cc, nvcc) and measures it
export BENCH_VERSIONS_HOME=$ROOT BENCH_VERSIONS_CACHE=$WORK/cache KERNEL_DIR=$B/repo/kernels
unset KERNEL_REPO BENCH_VERSIONS_PROJECT BENCH_VERSIONS_OPS
# the cells: elementwise at 16M, softmax, a product; cuda and one host backend
CELLS=(--benches unary,softmax,matmul --ops relu,exp,softmax,sgemm --backends cuda,simd
	--sizes 16M,1024x4096,1024x1024x1024)
[ -n "${GPU_CHECK_CELLS:-}" ] && read -r -a CELLS <<< "$GPU_CHECK_CELLS"
compare() { # NAME VERSION VERSION: one comparison, its JSON in $D/NAME.json
	local name=$1
	shift
	begin "$name"
	say "bench-versions $* ${CELLS[*]} --quick"
	# what is left of the budget, less a minute for the rest
	local left=$((BUDGET - ($(date +%s) - T0) - 60))
	if [ $left -lt 30 ]; then
		say "out of time: $((BUDGET)) s budget (GPU_CHECK_BUDGET)"
		return 124
	fi
	timeout $left "$BV" "$@" "${CELLS[@]}" --quick --counts none --jobs "$(nproc)" --results "$WORK/results-$name" --format json \
		> "$D/$name.json" 2> "$D/$name.err"
	local rc=$?
	tail -3 "$D/$name.err" | tee -a "$LOG"
	return $rc
}
# verdicts NAME: one line per cell, tab-separated: bench op backend shape
# verdict ratio statuses (comma-joined) reasons
verdicts() {
	python3 - "$D/$1.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["rows"]:
    ch = r["changes"][0] if r["changes"] else {}
    res = r["results"]
    print("\t".join(map(str, (r["bench"], r["op"], r["backend"], r["shape"], ch.get("verdict"), ch.get("ratio"),
          ",".join(x["status"] for x in res), "; ".join(x["reason"] or "" for x in res)))))
PY
}
# the run's own logs: the machine they name and each cell's device bytes
run_facts() { # NAME
	python3 - "$WORK/results-$1" <<'PY'
import glob, json, sys
for f in sorted(glob.glob(sys.argv[1] + "/*/*.json")):
    try:
        d = json.load(open(f))
    except Exception:
        continue
    if not isinstance(d, dict) or "cells" not in d:
        continue
    m = d.get("machine") or {}
    dev = [c.get("footprint", {}).get("device_bytes") if isinstance(c.get("footprint"), dict) else c.get("device_bytes")
           for c in d["cells"] if c.get("backend") == "cuda"]
    print(f.split("/")[-1], "gpu:", m.get("gpu"), "cpu:", m.get("cpu"), "cuda cells' device bytes:", dev)
PY
}

if [ -z "$CC_FOUND" ] || [ -z "$NVCC" ]; then
	for s in releases aa planted; do
		step "$s" skip "the tool builds each version here: ${CC_FOUND:-no C compiler}${NVCC:-, no nvcc}"
	done
else
	if compare releases 0.14.0 0.14.1; then
		verdicts releases | tee "$D/releases.txt" | tee -a "$LOG"
		run_facts releases | tee -a "$LOG" > "$D/releases-facts.txt"
		cp -r "$WORK"/results-releases/*/ "$D/releases-run" 2> /dev/null
		bad=$(awk -F'\t' '$3 == "simd" && $7 != "ok,ok"' "$D/releases.txt")
		if [ -n "$bad" ]; then
			step releases fail "a simd cell did not run: $bad"
		elif [ $device = 1 ] && awk -F'\t' '$3 == "cuda" && $7 != "ok,ok"' "$D/releases.txt" | grep -q .; then
			step releases fail "a cuda cell did not run with a device: $(awk -F'\t' '$3 == "cuda" && $7 != "ok,ok"' "$D/releases.txt" | head -1)"
		elif [ $device = 1 ] && ! grep -q 'gpu: [^N]' "$D/releases-facts.txt"; then
			step releases fail "the logs do not name the GPU (machine.gpu is null): $(head -1 "$D/releases-facts.txt")"
		elif [ $device = 0 ] && awk -F'\t' '$3 == "cuda" && ($7 != "skipped,skipped" || $8 !~ /no CUDA device/)' "$D/releases.txt" | grep -q .; then
			step releases fail "a cuda cell without a device is not skipped for that reason: $(awk -F'\t' '$3 == "cuda" && ($7 != "skipped,skipped" || $8 !~ /no CUDA device/)' "$D/releases.txt" | head -1)"
		else
			step releases pass "$(grep -c . "$D/releases.txt") cells; $(awk -F'\t' '$5 == "slower" || $5 == "faster"' "$D/releases.txt" | wc -l) called"
		fi
	else
		step releases fail "bench-versions exited $?: $(tail -1 "$D/releases.err")"
	fi

	if compare aa 0.14.1 aa; then
		verdicts aa | tee "$D/aa.txt" | tee -a "$LOG"
		called=$(awk -F'\t' '$5 == "slower" || $5 == "faster"' "$D/aa.txt")
		if [ -n "$called" ]; then
			step aa fail "the same code called changed: $called"
		else
			step aa pass "$(awk -F'\t' '$6 != "None"' "$D/aa.txt" | wc -l) comparisons, none called"
		fi
	else
		step aa fail "bench-versions exited $?: $(tail -1 "$D/aa.err")"
	fi

	if compare planted 0.14.1 planted; then
		verdicts planted | tee "$D/planted.txt" | tee -a "$LOG"
		others=$(awk -F'\t' '!($2 == "relu" && $3 == "cuda") && ($5 == "slower" || $5 == "faster")' "$D/planted.txt")
		relu=$(awk -F'\t' '$2 == "relu" && $3 == "cuda"' "$D/planted.txt")
		if [ -n "$others" ]; then
			step planted fail "a cell the plant does not touch was called: $others"
		elif [ $device = 1 ] && ! awk -F'\t' '$2 == "relu" && $3 == "cuda" && $5 == "slower"' "$D/planted.txt" | grep -q .; then
			step planted fail "cuda relu, launched three times, not called slower: $relu"
		elif [ $device = 1 ]; then
			step planted pass "cuda relu slower: $relu"
		else
			step planted pass "host cells untouched, none called; cuda relu: n/a without a device"
			step planted-device skip "no CUDA device: the planted slowdown's verdict needs one"
		fi
	else
		step planted fail "bench-versions exited $?: $(tail -1 "$D/planted.err")"
	fi
fi

# ---- the summary
(python3 - "$STEPS" "$OUT/gpu-check.json" "$(($(date +%s) - T0))" <<'PY'
import json, sys
steps = [dict(zip(("step", "status", "seconds", "detail"), l.rstrip("\n").split("\t", 3))) for l in open(sys.argv[1])]
for s in steps:
    s["seconds"] = int(s["seconds"])
n = {k: sum(s["status"] == k for s in steps) for k in ("pass", "fail", "skip")}
json.dump({"schema": "bv-gpu-check/1", "seconds": int(sys.argv[3]), "steps": steps, **n}, open(sys.argv[2], "w"), indent=1)
print(f"gpu check: {n['pass']} passed, {n['fail']} failed, {n['skip']} skipped in {sys.argv[3]} s")
PY
) | tee -a "$LOG"
fails=$(awk -F'\t' '$2 == "fail"' "$STEPS" | wc -l)
[ "$fails" -eq 0 ]
