#!/usr/bin/env bash
# bisect_kary.sh - rounds and builds of `bisect --parallel K` (K = 1..4)
# against the sequential bisect, on the fixture of tests/e2e/test_bisect.sh:
# 64 commits after `good`, the relu slowdown planted at commit 41, harmless
# commits between (notes, and every eighth a comment in scalar.c: a new
# library tree, a real build).
#
#   tests/measurement/bisect_kary.sh            (PROOF_DIR=... to keep the work directory)
#   KS="1 2 3 4" BV=path/to/bench-versions
#
# Each bisect starts from an empty cache of its own (no build and no state
# shared between them), so its builds are its own.  --parallel K runs here
# one candidate after another: the rounds and builds are what --slurm
# --parallel K does (the same walk; --slurm spreads a round over K nodes),
# and the time is not (K measurements a round in series).  Prints one line
# per bisect: the commit named, rounds, candidates measured, builds (new),
# seconds; and the load averages before and after.  Not part of `make test`.
source "$(dirname "$0")/lib.sh"
proof_env bisect-kary
BV=${BV:-$ROOT/bin/bench-versions}
KS=${KS:-1 2 3 4}
proof_fixture "kernels 0.1.0" good
echo 0.1.0 > "$FIX/kernels/VERSION"
git -C "$FIX" commit -qam "version" || true
git -C "$FIX" tag -f good > /dev/null
N=64 PLANTED_AT=41
if [ "$FIX_NEW" = 1 ]; then
	for i in $(seq 1 $N); do
		if [ "$i" -eq $PLANTED_AT ]; then
			python3 - "$FIX/kernels/src/scalar.c" <<'PY'
import sys
p = sys.argv[1]; s = open(p).read()
head = "\tcase KN_RELU:\n\t\tfor (i = 0; i < n; i++)"
assert head in s, "fixture: the relu loop moved"
s = s.replace(head, "\tcase KN_RELU:\n\t\tfor (int rep = 0; rep < 3; rep++)\n\t\tfor (i = 0; i < n; i++)")
open(p, "w").write(s)
PY
			git -C "$FIX" commit -qam "relu: three passes (planted slowdown)"
		elif [ $((i % 8)) -eq 0 ]; then
			echo "/* note $i: nothing changes */" >> "$FIX/kernels/src/scalar.c"
			git -C "$FIX" commit -qam "note $i"
		else
			mkdir -p "$FIX/notes" && echo "note $i" > "$FIX/notes/$i.txt"
			git -C "$FIX" add -A && git -C "$FIX" commit -qm "note $i"
		fi
	done
fi
planted=$(git -C "$FIX" log --format=%H --grep='planted slowdown' -1)
cd "$FIX"
cell=(--good good --bad main --bench unary --op relu --backend scalar --size 64K --quick)
echo "# $(date -u +%FT%TZ) tool $(git -C "$ROOT" rev-parse --short HEAD), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# planted $planted"
printf '%-14s %-8s %6s %10s %12s %6s\n' walk named rounds measured builds seconds
for k in seq $KS; do
	export BENCH_VERSIONS_CACHE="$WORK/cache-$k"
	rm -rf "$BENCH_VERSIONS_CACHE"
	par=()
	[ "$k" = seq ] || par=(--parallel "$k")
	t0=$SECONDS
	"$BV" bisect "${cell[@]}" "${par[@]}" --format json > "$WORK/k-$k.json" 2> "$WORK/k-$k.err" || true
	python3 - "$WORK/k-$k.json" "$planted" "$k" $((SECONDS - t0)) <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"{sys.argv[3]:<14} failed: {e}"); sys.exit(0)
named = "right" if d["status"] == "found" and d["first_bad"]["commit"] == sys.argv[2] else d["status"]
walk = "sequential" if sys.argv[3] == "seq" else f"--parallel {sys.argv[3]}"
b = d["builds"]
print(f"{walk:<14} {named:<8} {d['rounds']:>6} {len(d['steps']):>10} {b['total']:>5} ({b['new']:>2} new) {sys.argv[4]:>6}")
PY
done
echo "# done $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
