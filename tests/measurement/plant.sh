#!/usr/bin/env bash
# plant.sh - sensitivity in every group: planted slowdowns of 1, 2 and 3 %
# in unary, binary, reduce, softmax and matmul, each detected how often.
#
#   tests/measurement/plant.sh RUNS LOAD PERCENTS [bench-versions options...]
#     LOAD: none, or make (a copy of kernels/ rebuilt with make -j2 in a loop)
#     PERCENTS: e.g. 1,2,3
#   e.g. tests/measurement/plant.sh 5 none 1,2,3 --benches unary,binary,reduce,softmax,matmul --backends scalar,simd,blas
#
# The plant is made at the library's public entry points (kernels/src/api.c),
# so it is the same for every backend and group: before doing the real call,
# each entry point does the same call on the middle P % of the work (elements,
# rows of a softmax, rows of a matrix product; the harness's sgemm/sgemv use
# beta 0, so the result is unchanged).  That is P % more work of the very
# kind the cell measures.  The baseline `a` has the same wrappers with 0 %
# (the percent is a variable in .data), so `a` and slowP have byte-identical
# machine code: a first version, which planted into the untouched library,
# moved code and had placement alone call scalar mul 2.0x slower and simd
# sgemm 64^3 0.83x faster.  Every cell of a planted group should then come out
# `slower`; the script counts how often, per group and size, and writes one
# line per (run, percent, group, size) to $OUT (default
# tests/measurement/logs/plant-<date>.tsv).  The tool is a snapshot of HEAD,
# as in aa_matrix.sh.  Not part of `make test`.
source "$(dirname "$0")/lib.sh"
RUNS=${1:?runs}
LOAD=${2:?none or make}
PCTS=${3:?percents, e.g. 1,2,3}
shift 3
OPTS=("$@")
proof_env plant
OUT=${OUT:-$ROOT/tests/measurement/logs/plant-$(date -u +%Y%m%dT%H%M%SZ).tsv}
mkdir -p "$(dirname "$OUT")"
proof_tool

proof_fixture "the library as it is" orig
if [ "$FIX_NEW" = 1 ]; then
	for pct in 0 ${PCTS//,/ }; do
		git -C "$FIX" checkout -q orig
		python3 - "$FIX/kernels/src/api.c" "$pct" <<'PY'
import re, sys
path, pct = sys.argv[1], int(sys.argv[2])
s = open(path).read()
# name: (definition head, the partial call's arguments, the size it cuts).
# The partial call takes the *middle* P % (AT(n) = (n - PART(n)) / 2
# elements, rows or matrix rows in), so that both of its reads are cold in
# an array larger than the caches: half the array streams through them
# between the previous full call's pass over that part and the partial
# call, and half again before this full call reaches it.  In a timing loop
# every other choice leaves one read warm: the first version took the first
# P % (found in the cache by the full call right after: a planted 3 % was
# about 1 % more time at 16M elements, binary 1.011, reduce 1.011,
# tests/measurement/logs/plant-make-v1-head.tsv), the second the last P %
# (where the previous call had just ended: 1.0-2.6 % more time at 16M,
# tests/measurement/logs/plant-quiet.tsv).  The full call comes last, so the
# outputs are its own (sgemm and sgemv run with beta 0 in the harness).
plants = {
    "kn_unary_ex": ("kn_status kn_unary_ex(", "b, op, x + AT(n), y + AT(n), PART(n), p", "n"),
    "kn_binary": ("kn_status kn_binary(", "b, op, a + AT(n), x2 + AT(n), y + AT(n), PART(n)", "n"),
    "kn_reduce": ("kn_status kn_reduce(", "b, op, x + AT(n), PART(n), out", "n"),
    "kn_argreduce": ("kn_status kn_argreduce(", "b, op, x + AT(n), PART(n), out", "n"),
    "kn_dot": ("kn_status kn_dot(", "b, x + AT(n), y + AT(n), PART(n), out", "n"),
    "softmax": ("static kn_status softmax(", "b, x + AT(rows) * cols, y + AT(rows) * cols, PART(rows), cols, log_form", "rows"),
    # op(A)'s middle rows: A's middle rows, or with trans_a its middle columns.
    "kn_sgemm": ("kn_status kn_sgemm(", "b, trans_a, trans_b, PART(M), N, K, alpha, A + (trans_a ? AT(M) : AT(M) * lda), lda, B, ldb, beta, C + AT(M) * ldc, ldc", "M"),
    # A's middle rows: y's middle elements, or with trans_a x's.
    "kn_sgemv": ("kn_status kn_sgemv(", "b, trans_a, PART(M), N, alpha, A + AT(M) * lda, lda, trans_a ? x + AT(M) : x, beta, trans_a ? y : y + AT(M)", "M"),
}
# The percent is data, not code: `a` (0 %) and every slowP have the same
# machine code, so code placement cannot tell them apart (nonzero in both,
# so the variable sits in .data in both).
s = s.replace('#include', 'static volatile int kn_planted_pct_plus_1000 = %d;\n'
              '#define PART(n) ((n) * (size_t)(kn_planted_pct_plus_1000 - 1000) / 100)\n'
              '#define AT(n) (((n) - PART(n)) / 2)\n#include'
              % (1000 + pct), 1)
for name, (head, args, size) in plants.items():
    i = s.index(head)
    sig_end = s.index(")", i) + 1
    params = s[i + len(head):sig_end - 1]
    # The full call passes every parameter as it came.
    names = [re.search(r"(\w+)\s*$", q.strip()).group(1) for q in params.split(",")]
    body_end = s.index("\n}\n", sig_end) + 3
    static = "static " if head.startswith("static") else ""
    full = "%skn_status %s__full(%s)" % ("static ", name, params)
    wrapper = ("\n/* planted: %d %% more work */\n%skn_status %s(%s)\n{\n\tif (PART(%s) > 0)\n"
               "\t\t(void)%s__full(%s);\n\treturn %s__full(%s);\n}\n"
               % (pct, static, name, params, size, name, args,
                  name, ", ".join(names)))
    s = s[:i] + full + s[sig_end:body_end] + wrapper + s[body_end:]
open(path, "w").write(s)
PY
		tag=slow$pct
		[ "$pct" = 0 ] && tag=a
		git -C "$FIX" commit -qam "$tag: $pct % more work at every entry point" && git -C "$FIX" tag "$tag"
	done
	git -C "$FIX" checkout -q main
fi
proof_load "$LOAD"

# code: cells whose counts (run's default: changed cells are counted
# under Valgrind) say the instructions changed; instr: their median
# instruction change (%); both empty in logs from before.
[ -s "$OUT" ] || printf 'run\tpercent\tgroup\tsize\tcells\tslower\tsame\tfaster\tother\tmedian_ratio\tload_start\tload_end\tcommit\tload\toptions\tcode\tinstr\n' > "$OUT"
commit=$COMMIT
for run in $(seq 1 "$RUNS"); do
	for pct in ${PCTS//,/ }; do
		l0=$(load_now)
		"$BV" a "slow$pct" "${OPTS[@]}" --results "$WORK/results" --format json > "$WORK/run-$run-$pct.json" \
			2> "$WORK/run-$run-$pct.err" || true
		l1=$(load_now)
		python3 - "$WORK/run-$run-$pct.json" "$run" "$pct" "$l0" "$l1" "$commit" "$LOAD" "${OPTS[*]}" >> "$OUT" <<'PY'
import json, statistics, sys
path, run, pct, l0, l1, commit, load, opts = sys.argv[1:]
d = json.load(open(path))
groups = {}
for r in d["rows"]:
    c = r["changes"][0]
    if c.get("ratio") is None:
        continue
    g = groups.setdefault((r["bench"], r.get("shape") or str(r["size"])), [])
    w = c.get("counts") or {}
    g.append((c["verdict"], c["ratio"], w.get("kind"), w.get("instructions_change")))
for (bench, size), cells in sorted(groups.items()):
    n = len(cells)
    count = lambda v: sum(1 for x in cells if x[0] == v)
    other = n - count("slower") - count("same") - count("faster")
    med = statistics.median(x[1] for x in cells)
    code = [x[3] for x in cells if x[2] == "code"]
    instr = f"{100 * statistics.median(code):.2f}" if code else ""
    print(f"{run}\t{pct}\t{bench}\t{size}\t{n}\t{count('slower')}\t{count('same')}\t{count('faster')}\t{other}\t{med:.4f}\t{l0}\t{l1}\t{commit}\t{load}\t{opts}\t{len(code)}\t{instr}")
PY
		tail -n +2 "$OUT" | awk -F'\t' -v r="$run" -v p="$pct" '$1 == r && $2 == p' | cut -f1-10
	done
done
