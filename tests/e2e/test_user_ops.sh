#!/usr/bin/env bash
# End to end: user-defined ops (docs/user-ops.md).  An ops file adds a unary
# "sin" and a binary "hypot" calling functions the library gained in its
# second commit (kx_sin, kx_hypot in src/extra.c), and a "cube" whose
# function kx_cube no commit defines: it is n/a (a weak reference, no link
# failure: what a release that lacks an op's function shows), the others
# run and their outputs are checked against the file's reference (one build:
# the key holds the ops' functions, not their references); a wrong reference makes the cell
# `wrong result`; `list benches` shows the ops; a bad file is exit 2
# naming the file, the op and the key.
source "$(dirname "$0")/lib.sh"
make_fixture

cat > "$FIX/kernels/src/extra.c" <<'C'
#include <math.h>
#include "kernels.h"
kn_status kx_sin(kn_backend b, const float *x, float *y, size_t n)
{
	if (b != KN_BACKEND_SCALAR)
		return KN_EUNSUPPORTED;
	for (size_t i = 0; i < n; i++)
		y[i] = sinf(x[i]);
	return KN_OK;
}
kn_status kx_hypot(kn_backend b, const float *x, const float *x2, float *y, size_t n)
{
	if (b != KN_BACKEND_SCALAR)
		return KN_EUNSUPPORTED;
	for (size_t i = 0; i < n; i++)
		y[i] = hypotf(x[i], x2[i]);
	return KN_OK;
}
C
python3 - "$FIX/kernels/Makefile" <<'PY'
import sys
p = sys.argv[1]; s = open(p).read()
head = "ifdef WITH_CUDA\n  OBJS += $(BUILD)/cuda.o"
assert head in s, "fixture: the Makefile's OBJS moved; update this test"
s = s.replace(head, "OBJS += $(BUILD)/extra.o\n" + head, 1)
open(p, "w").write(s)
PY
git -C "$FIX" add -A
git -C "$FIX" commit -qm "extra: kx_sin, kx_hypot"
git -C "$FIX" tag second

ops="$TMP/ops.json"
write_ops() { # write_ops SIN_REFERENCE
	cat > "$ops" <<JSON
{ "schema_version": 1,
  "ops": [
    { "name": "sin", "group": "unary", "function": "kx_sin", "lo": -3.14159, "hi": 3.14159,
      "max_ulp": 4, "flops": 10, "reference": "$1", "note": "sinf of the library" },
    { "name": "hypot", "group": "binary", "function": "kx_hypot", "lo": -100, "hi": 100,
      "max_ulp": 2, "flops": 4, "reference": "sqrt(a*a + b*b)" },
    { "name": "cube", "group": "unary", "function": "kx_cube", "lo": -2, "hi": 2,
      "max_ulp": 1, "reference": "x^3" } ] }
JSON
}
write_ops "sin(x)"
export BENCH_VERSIONS_OPS="$ops"

"$BV" list benches > "$TMP/list" 2> "$TMP/err"
check "list benches exits 0" test $? -eq 0
check "  unary lists sin among its ops" contains "$TMP/list" "^  ops: abs .* sin( |$)"
check "  marked user-defined with its function" contains "$TMP/list" "user-defined ops: sin \(kx_sin\)"
check "  binary lists hypot" contains "$TMP/list" "user-defined ops: hypot \(kx_hypot\)"

quick=(--quick --processes 6 --rounds 3 --budget 0.3 --backends scalar --sizes 1K)
"$BV" second --benches unary,binary --ops sin,hypot,cube --jobs 2 "${quick[@]}" --results "$TMP/r1" > "$TMP/out" 2> "$TMP/err"
rc=$?
check "a run over the user ops exits 0 (exit $rc)" test $rc -eq 0
[ $rc -eq 0 ] || sed 's/^/#   /' "$TMP/err" | tail -20
dir=$(ls -d "$TMP"/r1/*/ 2> /dev/null | head -1)
check "  sin and hypot ok (checked against the references), cube n/a" python3 - "$dir" <<'PY'
import json, sys, os
cells = json.load(open(os.path.join(sys.argv[1], "second.json")))["cells"]
got = {c["op"]: c["status"] for c in cells}
assert got == {"sin": "ok", "hypot": "ok", "cube": "n/a"}, got
PY

# The reference decides: cos(x) for sin is not what kx_sin computes.
write_ops "cos(x)"
"$BV" second --benches unary --ops sin "${quick[@]}" --results "$TMP/r2" > "$TMP/out" 2> "$TMP/err"
dir=$(ls -d "$TMP"/r2/*/ 2> /dev/null | head -1)
check "a wrong reference: the cell is wrong result" python3 - "$dir" <<'PY'
import json, sys, os
cells = json.load(open(os.path.join(sys.argv[1], "second.json")))["cells"]
assert [c["status"] for c in cells] == ["wrong result"], [(c["op"], c["status"]) for c in cells]
PY

# Bad files: exit 2 naming the file, the op and the key.
write_ops "sinn(x)"
refused "an unknown function in a reference" "ops file $ops: op 'sin': key 'reference': .*column 1: unknown function 'sinn'" \
	list benches
python3 - "$ops" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["ops"][0]["reference"] = "sin(x)"; d["ops"][1]["speed"] = 1
json.dump(d, open(sys.argv[1], "w"))
PY
refused "an unknown key" "ops file $ops: op 'hypot': unknown key 'speed'" second --ops hypot --quick
python3 - "$ops" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); del d["ops"][1]["speed"]; d["ops"][1]["name"] = "add"
json.dump(d, open(sys.argv[1], "w"))
PY
refused "a built-in op's name" "op 'add': key 'name': the binary group has a built-in op" list benches
python3 - "$ops" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["ops"][1]["name"] = "hypot"; d["ops"][0]["lo"] = 4
json.dump(d, open(sys.argv[1], "w"))
PY
refused "lo above hi" "op 'sin': keys 'lo', 'hi': lo \(4\) must be below hi" list benches
python3 - "$ops" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["ops"][0]["lo"] = -1; d["ops"][0]["function"] = "x); evil("
json.dump(d, open(sys.argv[1], "w"))
PY
refused "a function that is no C identifier" "op 'sin': key 'function': 'x\); evil\(' is no C identifier" list benches
# the commands that never read the registry are not stopped by a broken ops file
BENCH_VERSIONS_CACHE="$TMP/cache-of-none" "$BV" cache show > /dev/null 2> "$TMP/err"
check "a broken ops file does not stop cache show" test $? -eq 0 -a ! -s "$TMP/err"
"$BV" run --help > /dev/null 2> "$TMP/err"
check "... nor a subcommand's --help" test $? -eq 0 -a ! -s "$TMP/err"
# \u0000 in a string cut it short there (the function
# fm_bench_my\u0000...  was fm_bench_my): refused naming the key.
python3 - "$ops" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["ops"][0]["function"] = "kx_sin\u0000; evil()"
json.dump(d, open(sys.argv[1], "w"))
PY
refused "a NUL in a string" "ops file $ops: key 'function' at line 1, column [0-9]+: its string holds \\\\u0000" list benches
# A FIFO as the ops file: every command reading the registry waited
# for a writer for ever; refused within 10 s (a hang fails the check).
mkfifo "$TMP/ops.fifo"
export BENCH_VERSIONS_OPS="$TMP/ops.fifo"
for cmd in "list benches" "second --dry-run --quick" "compare $TMP/r1"; do
	# shellcheck disable=SC2086 # the words of cmd are its arguments
	refused_within=10 refused "an ops file that is a FIFO: $cmd" "ops file $TMP/ops\.fifo: it is a FIFO, not a regular file" $cmd
done
unset BENCH_VERSIONS_OPS
"$BV" list benches > "$TMP/list" 2> /dev/null
check "without an ops file no user op is listed" test "$(grep -c 'user-defined' "$TMP/list")" -eq 0
finish
