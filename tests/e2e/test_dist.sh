#!/usr/bin/env bash
# End to end: `make dist` of kernels/ gives a tarball that builds on its own,
# and that the release index path of bench-versions can use as a release.
source "$(dirname "$0")/lib.sh"

version=$(cat "$ROOT/kernels/VERSION")
cp -r "$ROOT/kernels" "$TMP/src"
rm -rf "$TMP/src/build" "$TMP/src"/kernels-*.tar.gz
make -s -C "$TMP/src" dist > "$TMP/dist.log" 2>&1
tarball="$TMP/src/kernels-$version.tar.gz"
check "make dist writes kernels-$version.tar.gz" test -s "$tarball"
check "the tarball holds exactly the library's sources under one directory" python3 - "$tarball" "$version" <<'PY'
import sys, tarfile
names = tarfile.open(sys.argv[1]).getnames()
top = "kernels-" + sys.argv[2]
assert all(n == top or n.startswith(top + "/") for n in names), names[:5]
for need in ("Makefile", "VERSION", "include/kernels.h", "src/api.c", "tests/test_kernels.c"):
    assert top + "/" + need in names, need
assert not any("/build/" in n or n.endswith((".o", ".a", ".so")) for n in names), "build outputs in the tarball"
PY
mkdir -p "$TMP/unpacked"
tar -xzf "$tarball" -C "$TMP/unpacked"
dir="$TMP/unpacked/kernels-$version"
make -s -C "$dir" lib BUILD="$TMP/out" > "$TMP/lib.log" 2>&1
check "the unpacked tarball builds the library alone" test -s "$TMP/out/libkernels.a" -a -s "$TMP/out/link-flags"
cat > "$TMP/use.c" <<'C'
#include <stdio.h>
#include <string.h>
#include "kernels.h"
int main(void)
{
	float x[3] = {-1.0f, 2.0f, -3.0f}, y[3];
	if (kn_unary(KN_BACKEND_SCALAR, KN_ABS, x, y, 3) != KN_OK || y[0] != 1.0f || y[2] != 3.0f)
		return 1;
	printf("%s\n", kn_version());
	return 0;
}
C
cc -I"$dir/include" "$TMP/use.c" "$TMP/out/libkernels.a" $(cat "$TMP/out/link-flags") -o "$TMP/use" 2> "$TMP/cc.log"
check "a program links against it with its link-flags and reports $version" test "$("$TMP/use")" = "$version"
finish
