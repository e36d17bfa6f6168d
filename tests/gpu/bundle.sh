#!/usr/bin/env bash
# tests/gpu/bundle.sh - makes gpu-bundle/, everything tests/gpu/check.sh runs
# on a GPU machine that has nvcc, its driver and a compiler but none of this
# project's Debian packages and no network (make gpu-bundle runs it, after
# linking the two programs into gpu-bundle/bin).
#
#   gpu-bundle/bin/        bench-versions and bv-runner, with DT_RPATH
#                          $ORIGIN/../lib: the libraries they link are found
#                          there first, for them alone (an LD_LIBRARY_PATH
#                          would reach the compilers they start, whose own
#                          libraries are newer there)
#   gpu-bundle/libs.tar.gz those libraries (libgit2, libcurl, cJSON,
#                          libarchive, SQLite and what they need; ICU's data
#                          alone is 31 MB, so they travel packed); glibc,
#                          libstdc++ and libgcc_s are the machine's own (newer
#                          there: these programs need nothing newer than
#                          Debian 12's), cuBLAS and the CUDA runtime too
#   gpu-bundle/kernels/    the kernels' tests and speed_cuda, built with the
#                          cuda backend (BLAS=0: OpenBLAS would be 30 MB more)
#   gpu-bundle/repo/       a clone of this repository at HEAD, with two
#                          branches: aa (a comment in cuda.cu: the same code,
#                          another tree) and planted (cuda relu launched
#                          three times)
#   gpu-bundle/tools/make  GNU make, for a machine without one
#
# It refuses a bundle that would not travel: the tracked tree plus the
# bundle must stay under 64 MiB.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
B=$ROOT/gpu-bundle
NVCC=${NVCC:-$(command -v nvcc || { test -x /usr/local/cuda/bin/nvcc && echo /usr/local/cuda/bin/nvcc; } || true)}
if [ -z "$NVCC" ]; then
	echo "gpu-bundle: nvcc not found: the bundle's kernels need the cuda backend (CUDA toolkit at /usr/local/cuda)" >&2
	exit 2
fi
for p in bench-versions bv-runner; do
	test -x "$B/bin/$p" || { echo "gpu-bundle: $B/bin/$p missing (make gpu-bundle links it)" >&2; exit 2; }
done
rm -rf "$B/kernels" "$B/repo" "$B/tools" "$B/libs.tar.gz" "$B/MANIFEST"
mkdir -p "$B/kernels" "$B/tools"

# ---- the kernels' tests and speed figures, cuda backend in
kb=$(mktemp -d /tmp/bv-gpu-kbuild-XXXXXX)
trap 'rm -rf "$kb" "${libdir:-}"' EXIT
make -s -C kernels BUILD="$kb" NVCC="$NVCC" CUDA=1 BLAS=0 -j"$(nproc)" lib "$kb/test_kernels" "$kb/speed_cuda" >&2
grep -q -- -lcublas "$kb/link-flags" || { echo "gpu-bundle: the kernels were built without cuda" >&2; exit 1; }
cp "$kb/test_kernels" "$kb/speed_cuda" "$B/kernels/"

# ---- the libraries, packed
libdir=$(mktemp -d /tmp/bv-gpu-libs-XXXXXX)
mkdir "$libdir/lib"
# the machine's own: the C library family, the C++ runtime, CUDA's
own='^(libc|libm|libdl|librt|libpthread|libresolv|libutil|ld-linux-x86-64|libstdc\+\+|libgcc_s|libcublas|libcublasLt|libcudart)\.so'
for f in "$B"/bin/* "$B"/kernels/*; do
	ldd "$f" | awk '/=> \//{print $1, $3}'
done | sort -u | while read -r name path; do
	[[ $name =~ $own ]] && continue
	cp -L "$path" "$libdir/lib/$name"
done
tar -C "$libdir" -czf "$B/libs.tar.gz" lib
cp "$(command -v make)" "$B/tools/make"

# ---- the library's history, and the two branches the check compares
git clone -q --no-hardlinks "$ROOT" "$B/repo"
git -C "$B/repo" remote remove origin
export GIT_AUTHOR_NAME=gpu-check GIT_AUTHOR_EMAIL=gpu-check@localhost GIT_COMMITTER_NAME=gpu-check \
	GIT_COMMITTER_EMAIL=gpu-check@localhost GIT_AUTHOR_DATE=2026-01-01T00:00:00Z \
	GIT_COMMITTER_DATE=2026-01-01T00:00:00Z
base=$(git -C "$B/repo" rev-parse HEAD)
git -C "$B/repo" checkout -q -b aa "$base"
echo "/* the same code, another tree (the GPU check's A/A) */" >> "$B/repo/kernels/src/cuda.cu"
git -C "$B/repo" commit -qam "aa: a comment in cuda.cu"
git -C "$B/repo" checkout -q -b planted "$base"
python3 - "$B/repo/kernels/src/cuda.cu" <<'PY'
import sys
p = sys.argv[1]; s = open(p).read()
old = "CASE(KN_ABS) CASE(KN_NEG) CASE(KN_SQRT) CASE(KN_EXP) CASE(KN_RELU) CASE(KN_LOG)"
assert old in s, "gpu-bundle: cuda.cu's unary cases moved; update the planted slowdown"
s = s.replace(old, "CASE(KN_ABS) CASE(KN_NEG) CASE(KN_SQRT) CASE(KN_EXP) CASE(KN_LOG)\n"
              "\tcase KN_RELU: /* planted: three launches */\n"
              "\t\tfor (int rep = 0; rep < 3; rep++)\n"
              "\t\t\tunary_kernel<KN_RELU><<<blocks, THREADS>>>(x, y, n, q);\n"
              "\t\tbreak;", 1)
open(p, "w").write(s)
PY
git -C "$B/repo" commit -qam "planted: cuda relu launches its kernel three times"
git -C "$B/repo" checkout -q --detach "$base"
git -C "$B/repo" gc -q --prune=now

# ---- what travels, and its size
tree=$(git ls-files -z | xargs -0 du -cb 2>/dev/null | tail -1 | cut -f1)
bundle=$(du -sb "$B" | cut -f1)
total=$((tree + bundle))
{
	echo "gpu-bundle of $(git rev-parse --short=12 HEAD) made $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -m), $(ldd --version | head -1)"
	echo "nvcc: $("$NVCC" --version | tail -1)"
	echo "kernels $(cat kernels/VERSION), branches aa and planted on $(git -C "$B/repo" rev-parse --short=12 "$base")"
	echo "size: tree $tree + bundle $bundle = $total bytes (limit 67108864)"
} > "$B/MANIFEST"
cat "$B/MANIFEST"
if [ "$total" -gt 67108864 ]; then
	echo "gpu-bundle: $total bytes with the tree: over the 64 MiB a device run carries" >&2
	exit 1
fi
