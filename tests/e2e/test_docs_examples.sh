#!/usr/bin/env bash
# End to end: every `bench-versions ...` example in README.md and docs/**/*.md
# runs as written (issue 15 item 2).  The examples are about this project, so
# they run in a clone of this very repository (its real history: releases
# 0.1.0 to 0.14.x through kernels/VERSION, no tags), on branch main, with the
# files the examples name (results directories, budgets.json, ...) made
# beforehand from real runs.  To stay fast, a command that measures gets
# --quick --budget 0.5 and a small cell selection where it does not narrow
# itself; each must exit with the status its page implies (0 unless listed in
# EXPECT).  Commands that cannot run here are in SKIP with the reason and
# count as skips, never as passes.  A synopsis line (placeholders in capitals,
# [optional] parts, a|b choices) is not an example.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/slurm_cluster.sh"
slurm_down=
# The cluster (if an example started one) stops before lib.sh's $TMP goes.
trap 'slurm_cluster_stop; [ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT

# ---- the examples --------------------------------------------------------------
# Code blocks (``` fences) and indented blocks; a command starts at the
# block's own indentation (deeper lines are output, like the resume hint in
# run.md), may start with "$ ", "bin/" or VAR=value, and continues over
# lines ending in "\".
python3 - "$ROOT" > "$TMP/examples" <<'PY'
import glob, os, re, sys
root = sys.argv[1]
files = [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "**", "*.md"), recursive=True))
cmd = re.compile(r"^(\$ )?([A-Z_]+=\S+ )*(bin/)?bench-versions( |$)")
synopsis = re.compile(r"\[|\||\.\.\.|\b(?!HEAD\b)[A-Z][A-Z_]{2,}\b(?!=)|\b[A-Z]+\.json\b")
for path in files:
    lines = open(path).read().split("\n")
    fence, prev_blank = False, True
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith("```"):
            fence = not fence
            i += 1
            continue
        if fence:
            text, ok = line, True
        elif (line.startswith("    ") or line.startswith("\t")) and (prev_blank or in_block):
            text, ok = line[4:] if line.startswith("    ") else line[1:], True
        else:
            text, ok = "", False
        in_block = ok and not fence
        prev_blank = line.strip() == ""
        n = i + 1
        if ok and cmd.match(text):
            full = text
            while full.endswith("\\") and n < len(lines):
                full = full[:-1].rstrip() + " " + lines[n].strip()
                n += 1
            full = re.sub(r"^\$ ", "", full)
            full = re.sub(r"\s+#\s.*$", "", full)  # a trailing comment: not part of the command
            args = re.sub(r"^([A-Z_]+=\S+ )*(bin/)?bench-versions", "", full)
            args = re.sub(r"\s+#.*$", "", args)  # a trailing comment
            # quoted text (a --filter regex) is the example's, not synopsis
            if not synopsis.search(re.sub(r"'[^']*'", "", args)):
                print("%s:%d\t%s" % (os.path.relpath(path, root), i + 1, full))
        i = n
    in_block = False
PY

# Examples that cannot run here, by their text: the reason is reported.
declare -A SKIP=(
	["bench-versions 1.2 2.0 local --benches unary --ops exp,tanh,sin --backends scalar --sizes 64K"]="runs in the walk-through's own library (fastmath), not in this repository: tests/e2e/test_foreign.sh builds that library from the page and runs this very command"
	["bench-versions 1.0.0 1.1.0 1.2.0 --quick"]="runs in docs/suites.md's walk-through library (lumen), not in this repository: tests/e2e/test_suites.sh builds that library and runs this very command"
	["bench-versions 1.0.0 1.2.0 --ops dot --backends unrolled --quick"]="runs in docs/suites.md's walk-through library (lumen): tests/e2e/test_suites.sh runs it there"
	["bench-versions 1.0.0 1.2.0 --ops dot --vs-backend simple --quick"]="runs in docs/suites.md's walk-through library (lumen): tests/e2e/test_suites.sh runs it there"
	["bench-versions 1.0.0 1.2.0 --ops 'pack[level=9]' --quick"]="runs in docs/suites.md's walk-through library (lumen): tests/e2e/test_suites.sh runs it there"
	["bench-versions bisect --good v1.0.0 --bad v1.2.0 --bench lumen --op dot --backend unrolled --size 64K --quick"]="runs in docs/suites.md's walk-through library (lumen): tests/e2e/test_suites.sh runs it there"
	["bench-versions history v1.0.0..v1.2.0 --ops dot --quick"]="runs in docs/suites.md's walk-through library (lumen): tests/e2e/test_suites.sh runs it there"
	["bench-versions 1.0.0 1.2.0 --ops pack --vs level=1 --quick"]="runs in docs/suites.md's walk-through library (lumen): tests/e2e/test_suites.sh runs it there"
	["bench-versions share results/20260301T101500Z --url https://bench.example.org/runs/"]="uploads to a real server with a real token (tests/e2e/test_share.sh runs share against a local server)"
)
# Exit status an example's page implies, when not 0.
declare -A EXPECT=(
	["bench-versions bisect --good v0.2.0 --bad main --bench unary --op relu --backend scalar --size 64K"]=2
)

# ---- the clone and the files the examples name -------------------------------------
CL="$TMP/clone"
git clone -q "$ROOT" "$CL"
git -C "$CL" checkout -q -B main # the examples' `main`: this checkout's commit
git -C "$CL" branch -q my-branch # compat.md names it
mkdir -p "$CL/bin" "$TMP/home/src" "$TMP/path"
ln -s "$BV" "$CL/bin/bench-versions"    # README's bin/bench-versions
ln -s "$BV" "$TMP/path/bench-versions"  # the docs' bench-versions on PATH
git clone -q "$CL" "$TMP/home/src/kernels" # list.md's KERNEL_REPO=~/src/kernels
# The clone is the tool's home too, so that results/ (where runs write by
# default) is the clone's, as the examples expect; it gets this checkout's
# harness and compat rules, the ones the binary under test goes with.
rm -rf "$CL/harness" "$CL/compat"
cp -r "$ROOT/harness" "$ROOT/compat" "$CL/"
export BENCH_VERSIONS_HOME="$CL"
export HOME="$TMP/home" PATH="$TMP/path:$PATH" KERNEL_DIR="$CL/kernels" NO_COLOR=1
unset KERNEL_RELEASES BENCH_VERSIONS_TOKEN
share_release_builds # compat --build: test_releases_build builds the same releases
cell=(--quick --budget 0.5 --ops abs --backends scalar --sizes 1K)
cd "$CL" || exit 1
# run_into DIR VERSION...: a real run whose results directory is renamed DIR
run_into() {
	local dir=$1
	shift
	"$BV" "$@" "${cell[@]}" --results "$TMP/prep" > "$TMP/prep.out" 2>&1 || { cat "$TMP/prep.out"; return 1; }
	mkdir -p "$(dirname "$dir")"
	mv "$(ls -d "$TMP"/prep/[0-9]*/)" "$dir" # not latest (a symlink to it)
	rm -rf "$TMP/prep" # and its latest
}
check "setup: a run for the compare and report examples" run_into results/20260101T120000Z 0.1.0 main
check "setup: a second run" run_into results/20260108T090000Z main
# compare.md's shards: the two shards of one comparison (the second empty:
# the narrow selection has one cell), as CI jobs leave them
check "setup: shard 1/2" run_into results/shards/1 0.1.0 main --shard 1/2
check "setup: shard 2/2" run_into results/shards/2 0.1.0 main --shard 2/2
mkdir -p old ci artifacts
cp results/20260101T120000Z/main.json old/main.json
# base and new: main measured by the same run (a CI gate on unchanged code passes)
cp results/20260101T120000Z/main.json base.json
cp results/20260101T120000Z/main.json new.json
cp -r results/20260101T120000Z results/20261122T144147Z
# compare --baseline main and compare latest: a saved baseline and the
# newest run, as run --save-baseline and every finished run leave them
mkdir -p results/baselines
cp -r results/20260101T120000Z results/baselines/main
ln -sfn 20260108T090000Z results/latest
# budgets.json: report.md's own example
python3 - "$ROOT/docs/cli/report.md" <<'PY' > budgets.json
import re, sys
print(re.search(r"```json\n(.*?)```", open(sys.argv[1]).read(), re.S).group(1))
PY
cp budgets.json ci/budgets.json

# ---- run them --------------------------------------------------------------------
# narrow CMD: the command with a small, quick selection where it measures.
narrow() {
	local c=$1 sub extra=""
	sub=$(sed -E 's/^([A-Z_]+=[^ ]+ )*(bin\/)?bench-versions ([^ ]+).*/\3/' <<< "$c")
	case $sub in
	compare | list | compat | cache | share) ;;
	bisect) [[ $c == *--quick* ]] || extra=" --quick" ;;
	report | *)
		[[ $sub == report && $c == *--from* ]] && { echo "$c"; return; }
		# Lists of sizes and backends keep their first element: the
		# command's own selection, fewer cells (16M cells take seconds each).
		c=$(sed -E 's/(--sizes|--backends) ([^ ,]+),[^ ]+/\1 \2/g' <<< "$c")
		# ... and the backend view's reference, which must be among them
		local vs
		vs=$(sed -nE 's/.*--vs-backend ([^ ]+).*/\1/p' <<< "$c")
		[[ -z $vs || $c != *--backends* || $c == *"--backends $vs "* || $c == *"--backends $vs" ]] ||
			c=$(sed -E "s/--backends ([^ ]+)/--backends \\1,$vs/" <<< "$c")
		[[ $c == *--quick* ]] || extra+=" --quick"
		[[ $c == *--budget\ * ]] || extra+=" --budget 0.5"
		[[ $c == *--backends* ]] || extra+=" --backends scalar"
		if [[ $c != *--filter* ]]; then
			[[ $c == *--ops* ]] || [[ $c == *--benches* && $c != *--benches\ unary* ]] || extra+=" --ops abs"
		fi
		# a --filter names no size either: the smallest unary one
		[[ $c == *--sizes* ]] || [[ $c == *--benches* && $c != *--benches\ unary* ]] || extra+=" --sizes 1K"
		;;
	esac
	# before a redirection, if any
	if [[ $c == *" > "* ]]; then
		echo "${c%% > *}$extra > ${c#* > }"
	else
		echo "$c$extra"
	fi
}

start=$SECONDS
n=0
while IFS=$'\t' read -r where c; do
	n=$((n + 1))
	if [ -n "${SKIP[$c]+x}" ]; then
		skip "$where: $c" "${SKIP[$c]}"
		continue
	fi
	# --slurm needs a Slurm cluster: a real single-host one
	# (slurm_cluster.sh, as test_slurm.sh starts), started at the first such
	# example with the partition the docs name; where it cannot start here,
	# the example is skipped with the reason.
	if [[ $c == *--slurm* ]] && [ -z "$slurm_dir" ]; then
		if [ -n "$slurm_down" ] || ! slurm_partition_name=batch slurm_cluster_start; then
			slurm_down=${slurm_down:-$slurm_why}
			skip "$where: $c" "no Slurm cluster here: $slurm_down"
			continue
		fi
	fi
	want=${EXPECT[$c]:-0}
	run=$(narrow "$c")
	t0=$SECONDS
	# a hang fails its example (exit 124) instead of the whole script; the
	# first `compat --build` builds every release of this repository (20-odd
	# builds with nvcc: 2-5 minutes on 2 loaded cores), the rest are quick
	limit=120
	[[ $c == *"compat --build"* ]] && limit=480
	timeout $limit bash -c "$run" > "$TMP/ex.out" 2> "$TMP/ex.err" < /dev/null
	rc=$?
	if [ $rc -eq "$want" ]; then
		ok "$where: $c (exit $rc, $((SECONDS - t0)) s)"
	else
		not_ok "$where: $c: exit $rc, expected $want; ran: $run"
		tail -5 "$TMP/ex.err" | sed 's/^/#   /'
	fi
done < "$TMP/examples"
check "examples found ($n)" test "$n" -ge 26
echo "# examples ran in $((SECONDS - start)) s"
finish
