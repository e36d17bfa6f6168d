#!/usr/bin/env bash
# End to end: the GPU check (tests/gpu/) on a machine without a GPU.  make
# gpu-bundle builds the bundle; it travels with the tree under 64 MiB; the
# bundle's programs find their libraries in it; check.sh, run as on the
# device machine (a copy of the tracked tree and the bundle, no .git, no
# bin/), passes every step that needs no device and counts the device's as
# skipped, each with its reason: the kernels' tests, the speed program's "no
# device", and bench-versions building two releases, an A/A pair and a
# planted cuda slowdown from the bundle's own clone.
source "$(dirname "$0")/lib.sh"

nvcc=$(command -v nvcc || { test -x /usr/local/cuda/bin/nvcc && echo /usr/local/cuda/bin/nvcc; } || true)
if [ -z "$nvcc" ]; then
	skip "the GPU check's bundle" "no nvcc here: the bundle's kernels need the cuda backend"
	finish
fi
if [ "${BV_VARIANT:-}" = asan ]; then
	skip "the GPU check's bundle" "the bundle is made of the plain build"
	finish
fi

# a copy of the repository to build the bundle in (make gpu-bundle writes
# gpu-bundle/ and build/ where it runs; the suite's checkout stays as it is)
SRC=$TMP/src
git clone -q "$ROOT" "$SRC"
# the files the suite runs on, committed or not, as the device tool sends them
(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf -) | tar -C "$SRC" -xf -
git -C "$SRC" add -A && git -C "$SRC" -c user.name=t -c user.email=t@t commit -qm "the suite's tree" > /dev/null 2>&1
# the suite's objects, newer than the copied sources: only the link and
# main.o (its commit stamp differs) are made again
if [ -d "$ROOT/build" ]; then
	cp -a "$ROOT/build" "$SRC/build" && find "$SRC/build" -type f -exec touch {} +
fi
make -C "$SRC" -s -j2 gpu-bundle > "$TMP/bundle.out" 2>&1
rc=$?
check "make gpu-bundle builds the bundle" test $rc -eq 0
[ $rc -eq 0 ] || sed 's/^/#   /' "$TMP/bundle.out" | tail -20
size=$(sed -n 's/^size: .* = \([0-9]*\) bytes.*/\1/p' "$SRC/gpu-bundle/MANIFEST")
check "the tree and the bundle travel under 64 MiB ($size bytes)" test -n "$size" -a "${size:-0}" -le 67108864
check "the bundle's programs look for their libraries beside them first" \
	test "$(readelf -d "$SRC/gpu-bundle/bin/bench-versions" | grep -c 'RPATH.*\$ORIGIN/../lib')" -eq 1
check "the bundle's kernels have the cuda backend" contains "$TMP/bundle.out" "^kernels 0\.[0-9]+\.[0-9]+, branches aa and planted"
check "the bundle's clone has the A/A and planted branches" \
	test "$(git -C "$SRC/gpu-bundle/repo" branch --list aa planted | wc -l)" -eq 2
check "the planted branch launches cuda relu three times, in cuda.cu alone" \
	test "$(git -C "$SRC/gpu-bundle/repo" diff --name-only aa~1 planted)" = "kernels/src/cuda.cu"

# the libraries: unpacked beside the programs, libgit2 is the bundle's
mkdir -p "$TMP/stage/bin"
tar -C "$TMP/stage" -xzf "$SRC/gpu-bundle/libs.tar.gz"
cp "$SRC/gpu-bundle/bin/bench-versions" "$TMP/stage/bin/"
check "unpacked, bench-versions loads the bundle's libgit2" \
	test -n "$(ldd "$TMP/stage/bin/bench-versions" | grep -E "libgit2.* => $TMP/stage/(bin/\.\./)?lib/")"
check "glibc and CUDA's libraries are not carried" \
	test -z "$(tar -tzf "$SRC/gpu-bundle/libs.tar.gz" | grep -E 'lib/(libc|libm|libstdc\+\+|libcublas|libcudart)\.so')"

# ---- the device machine's view: the tree and the bundle, nothing else
DEV=$TMP/device
mkdir -p "$DEV"
(cd "$SRC" && git ls-files -z | tar --null -T - -cf -) | tar -C "$DEV" -xf -
cp -a "$SRC/gpu-bundle" "$DEV/gpu-bundle"
check "the device's copy has no bin/ and no .git" test ! -e "$DEV/bin" -a ! -e "$DEV/.git"
# small cells: what is checked here is every step's plumbing, not speed
OUT=$TMP/out GPU_CHECK_CELLS="--benches unary --ops relu,exp --backends cuda,simd --sizes 1M" GPU_CHECK_BUDGET=1200 \
	timeout 1500 bash "$DEV/tests/gpu/check.sh" > "$TMP/check.out" 2>&1
rc=$?
check "check.sh without a GPU: exit 0 (exit $rc)" test $rc -eq 0
[ $rc -eq 0 ] || tail -30 "$TMP/check.out" | sed 's/^/#   /'
check "\$OUT holds what the device tool brings back: 3 files, no folder" \
	test "$(find "$TMP/out" -type f | wc -l)" -eq 3 -a -z "$(find "$TMP/out" -mindepth 1 -type d)"
tar -C "$TMP/out" -xzf "$TMP/out/gpu-check-detail.tar.gz"
check "its summary counts the device's steps as skipped" contains "$TMP/check.out" "^gpu check: 5 passed, 0 failed, 3 skipped in [0-9]+ s$"
check "gpu-check.json says each step and why" python3 - "$TMP/out/gpu-check.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
st = {s["step"]: s for s in d["steps"]}
assert d["schema"] == "bv-gpu-check/1", d["schema"]
want = {"environment": "pass", "kernels": "pass", "kernels-device": "skip", "speed": "skip",
        "releases": "pass", "aa": "pass", "planted": "pass", "planted-device": "skip"}
for k, v in want.items():
    assert st[k]["status"] == v, (k, st[k])
assert "no CUDA device" in st["speed"]["detail"], st["speed"]
assert "no CUDA device" in st["kernels-device"]["detail"], st["kernels-device"]
assert (d["pass"], d["fail"], d["skip"]) == (5, 0, 3), d
PY
check "the kernels' tests ran, the device comparison skipped" contains "$TMP/out/detail/kernels-tests.log" "SKIPPED.*test_cuda_device_compared"
check "the releases' comparison is in \$OUT, its cuda cells skipped for want of a device" python3 - "$TMP/out/detail/releases.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert [v["label"] for v in d["versions"]] == ["0.14.0", "0.14.1"], d["versions"]
cells = {(r["op"], r["backend"]): r for r in d["rows"]}
assert set(cells) == {("relu", "cuda"), ("relu", "simd"), ("exp", "cuda"), ("exp", "simd")}, set(cells)
for (op, b), r in cells.items():
    st = [x["status"] for x in r["results"]]
    assert st == (["skipped"] * 2 if b == "cuda" else ["ok"] * 2), (op, b, st)
PY
check "the A/A pair called nothing" contains "$TMP/out/gpu-check.log" "^== aa: pass \([0-9]+ comparisons, none called\)"
check "the planted branch: no host cell called" contains "$TMP/out/gpu-check.log" "^== planted: pass"
check "the run's logs record each cuda cell's device bytes" contains "$TMP/out/detail/releases-facts.txt" "cuda cells' device bytes: \[8388608, 8388608\]"
check "nothing was left in /tmp by the check" test -z "$(find /tmp -maxdepth 1 -name 'bv-gpu-check-*' -newer "$TMP/bundle.out" 2> /dev/null)"
finish
