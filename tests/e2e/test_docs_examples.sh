#!/usr/bin/env bash
# End to end: every `bench-versions ...` example in README.md and docs/**/*.md
# runs as written.  The examples are about this project, so
# they run in a clone of this very repository (its real history: releases
# 0.1.0 to 0.14.x through kernels/VERSION, no tags), on branch main, with the
# files the examples name (results directories, budgets.json, ...) made
# beforehand from real runs.  To stay fast, a command that measures gets
# --quick --budget 0.5 and a small cell selection where it does not narrow
# itself; each must exit with the status its page implies (0 unless listed in
# EXPECT), and where the page shows what it prints, print that (shown.py
# below: the table's header and the shown rows it selects, with their n/a and
# new; error lines word for word).  Commands that cannot run here are in SKIP
# with the reason and count as skips, never as passes.  A synopsis line
# (placeholders in capitals, [optional] parts, a|b choices) is not an example.
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
mkdir -p "$TMP/shown"
python3 - "$ROOT" "$TMP/shown" > "$TMP/examples" <<'PY'
import glob, os, re, sys
root, shown_dir = sys.argv[1], sys.argv[2]
files = [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "**", "*.md"), recursive=True))
cmd = re.compile(r"^(\$ )?([A-Z_]+=\S+ )*(bin/)?bench-versions( |$)")
synopsis = re.compile(r"\[|\||\.\.\.|\b(?!HEAD\b)[A-Z][A-Z_]{2,}\b(?!=)|\b[A-Z]+\.json\b")

# The output a page shows for the example whose command is lines[i:n]:
# after a "$ " command, the rest of its block up to the next "$ " line (the
# README's demo, report.md's error); else, when the command ends its block,
# the next block if it is a plain ``` (or ```text) fence holding no command,
# with nothing but blank lines between (kernels.md's tables).  [] if none.
def shown_output(lines, i, n, fenced):
    def block_line(k):  # lines[k] as a line of the command's block, or None
        if k >= len(lines):
            return None
        if fenced:
            return None if lines[k].lstrip().startswith("```") else lines[k]
        l = lines[k]
        if l.startswith("    "):
            return l[4:]
        if l.startswith("\t"):
            return l[1:]
        return "" if not l.strip() else None
    k, rest = n, []
    while block_line(k) is not None:
        rest.append(block_line(k))
        k += 1
    if lines[i].lstrip().startswith("$ "):
        out = []
        for t in rest:
            if t.startswith("$ "):
                break
            out.append(t)
        while out and not out[-1].strip():
            out.pop()
        if out:
            return out
    if any(t.strip() for t in rest):
        return []
    if fenced:
        k += 1  # the closing fence
    while k < len(lines) and not lines[k].strip():
        k += 1
    if k >= len(lines) or lines[k].strip() not in ("```", "```text"):
        return []
    out = []
    for l in lines[k + 1:]:
        if l.lstrip().startswith("```"):
            break
        if cmd.match(l):
            return []
        out.append(l)
    return out

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
                where = "%s:%d" % (os.path.relpath(path, root), i + 1)
                out = shown_output(lines, i, n, fence)
                shown = ""
                if out:
                    shown = os.path.join(shown_dir, where.replace("/", "_"))
                    open(shown, "w").write("\n".join(out) + "\n")
                print("%s\t%s\t%s" % (where, full, shown))
        i = n
    in_block = False
PY

# ---- what a page shows an example prints -----------------------------------------
# Where a page shows an example's output (above: after a "$ " command, or
# in the plain fence right after it), the run must print it, as far as a
# narrowed run on another machine can: the comparison table's header word
# for word, every shown row the narrowed selection holds (bench, op,
# backend, size), each with the marks no measurement decides (n/a: the
# version lacks the op; new, vanished), and every error line
# ("bench-versions: ...") word for word.  Times, ratios and the measured
# verdicts (same, faster, ...) vary with the machine and are not compared.
cat > "$TMP/shown.py" <<'PY'
import re, shlex, sys
# shown.py SHOWN OUT CMD: what the page shows (SHOWN) against what the
# narrowed command CMD printed (OUT: its stdout and stderr).  Prints what it
# checked on the first line, then one "#   " line per difference; exit 1 on
# a difference, 3 when the shown output holds nothing it knows how to check.
shown = open(sys.argv[1]).read().split("\n")
out = open(sys.argv[2], errors="replace").read().split("\n")
cmd = sys.argv[3]
norm = lambda l: " ".join(l.replace("|", " ").split())
size_re = re.compile(r"^\d+[KMG]?$|^\d+(x\d+)+$")
# The deterministic marks of a row: a version without the op (n/a), the
# op new in a version or gone from it.  Every other verdict is measured.
FIXED = ("n/a", "new", "vanished")

def table(lines):
    """(header tokens, {row key: row tokens}) of the first comparison table;
    its why columns are not compared (a narrowed run may have no counts, so
    none), and the numbered notes under it ("[1] unary relu ...") are not
    rows"""
    head, rows = None, {}
    for l in lines:
        t = norm(l).split()
        if t[:4] == ["bench", "op", "backend", "size"]:
            if head is not None:
                break  # a second table (the backend view): the first is enough
            head = [w for w in t if w != "why"]
        elif head is not None and len(t) >= 5 and re.match(r"^[a-z_0-9]+$", t[0]) and size_re.match(t[3]):
            rows.setdefault(tuple(t[:4]), t[4:])
    return head, rows

# The narrowed command's selection: which of the page's rows it prints.
args = shlex.split(cmd)
sel = {}
for k, a in enumerate(args):
    for opt in ("--benches", "--ops", "--backends", "--sizes", "--filter"):
        if a == opt and k + 1 < len(args):
            sel[opt] = args[k + 1]
        elif a.startswith(opt + "="):
            sel[opt] = a[len(opt) + 1:]
partial = any(a in ("--only-changes", "--shard") or a.startswith("--shard=") for a in args)

def selected(key):
    b, o, be, sz = key
    for opt, v in zip(("--benches", "--ops", "--backends", "--sizes"), key):
        if opt in sel and v not in sel[opt].split(","):
            return False
    return "--filter" not in sel or re.search(sel["--filter"], "/".join(key)) is not None

checked, bad = [], []
real = {norm(l) for l in out}
# error lines: as shown, word for word
errors = [norm(l) for l in shown if l.startswith("bench-versions: ")]
for e in errors:
    if e not in real:
        bad.append("shown but not printed: %s" % e)
if errors:
    checked.append("%d error line%s" % (len(errors), "s"[:len(errors) > 1]))
head, rows = table(shown)
if head:
    rhead, rrows = table(out)
    if rhead != head:
        bad.append("the table's header: shown '%s', printed '%s'" % (" ".join(head), " ".join(rhead or ["(none)"])))
    checked.append("header")
    want = [k for k in rows if selected(k)] if not partial else []
    fixed = 0
    for k in want:
        if k not in rrows:
            bad.append("row '%s' shown but not printed" % " ".join(k))
            continue
        marks = [w for w in rows[k] if w in FIXED]
        got = [w for w in rrows[k] if w in FIXED]
        if marks != got:
            bad.append("row '%s': shown %s, printed %s" % (" ".join(k), " ".join(marks) or "no n/a or new",
                                                           " ".join(got) or "no n/a or new"))
        fixed += bool(marks)
    if rows and not want and not partial:
        bad.append("none of the %d rows shown is in the narrowed selection (%s): narrow it otherwise"
                   % (len(rows), ", ".join("%s %s" % kv for kv in sel.items()) or "everything"))
    checked.append("%d of %d rows%s" % (len(want), len(rows), ", %d with n/a or new" % fixed if fixed else ""))
if not checked:
    print("nothing to check")
    sys.exit(3)
print("output: " + ", ".join(checked))
for b in bad:
    print("#   " + b)
sys.exit(1 if bad else 0)
PY

# Examples that cannot run here, by their text: the reason is reported.
declare -A SKIP=(
	["bench-versions 1.2 2.0 local"]="runs in docs/adapters.md's walk-through library (fastmath), not in this repository: tests/e2e/test_foreign.sh builds that library from the page and runs this very command"
	["bench-versions 1.0.0 1.1.0 1.2.0 --quick"]="runs in docs/suites.md's walk-through library (lumen), not in this repository: tests/e2e/test_suites.sh builds that library and runs this very command"
	["bench-versions 1.0.0 1.2.0 --ops dot --backends unrolled --quick"]="runs in docs/suites.md's walk-through library (lumen): tests/e2e/test_suites.sh runs it there"
	["bench-versions 1.0.0 1.2.0 --ops dot --vs-backend simple --quick"]="runs in docs/suites.md's walk-through library (lumen): tests/e2e/test_suites.sh runs it there"
	["bench-versions 1.0.0 1.2.0 --ops 'pack[level=9]' --quick"]="runs in docs/suites.md's walk-through library (lumen): tests/e2e/test_suites.sh runs it there"
	["bench-versions bisect --good v1.0.0 --bad v1.2.0 --bench lumen --op dot --backend unrolled --size 64K --quick"]="runs in docs/suites.md's walk-through library (lumen): tests/e2e/test_suites.sh runs it there"
	["bench-versions history v1.0.0..v1.2.0 --ops dot --quick"]="runs in docs/suites.md's walk-through library (lumen): tests/e2e/test_suites.sh runs it there"
	["bench-versions 1.0.0 1.2.0 --ops pack --vs level=1 --quick"]="runs in docs/suites.md's walk-through library (lumen): tests/e2e/test_suites.sh runs it there"
	["bench-versions share results/20260301T101500Z --url https://bench.example.org/runs/"]="uploads to a real server with a real token (tests/e2e/test_share.sh runs share against a local server)"
	["BENCH_VERSIONS_CLASS=lab-avx512 bench-versions 0.1.0 main --benches unary --ops abs,relu --backends scalar,simd --sizes 64K --quick --results ~/lab"]="runs in docs/community.md's walk-through, which tests/e2e/test_publish.sh runs as written against the real server"
	["BENCH_VERSIONS_CLASS=ci-small bench-versions 0.1.0 main --benches unary --ops abs,relu --backends scalar,simd --sizes 64K --quick --results ~/ci"]="runs in docs/community.md's walk-through, which tests/e2e/test_publish.sh runs as written against the real server"
	["bench-versions publish --site ~/bench/srv/site --incoming ~/bench/srv/incoming"]="runs in docs/community.md's walk-through, which tests/e2e/test_publish.sh runs as written against the real server"
)
# Exit status an example's page implies, when not 0.
declare -A EXPECT=(
	["bench-versions bisect --good v0.2.0 --bad main --bench unary --op relu --backend scalar --size 64K"]=2
	["bench-versions report --baseline 0.5.0 --candidate main --budgets typo.json"]=2
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
# report.md's typo.json: that example with its argmax written argmx
sed 's/"op": "argmax"/"op": "argmx"/' budgets.json > typo.json
grep -q argmx typo.json || echo "not ok - setup: report.md's budgets example has no \"op\": \"argmax\" to misspell"

# ---- run them --------------------------------------------------------------------
# narrow CMD: the command with a small, quick selection where it measures.
narrow() {
	local c=$1 sub extra=""
	sub=$(sed -E 's/^([A-Z_]+=[^ ]+ )*(bin\/)?bench-versions ([^ ]+).*/\3/' <<< "$c")
	case $sub in
	compare | list | compat | cache | share | publish) ;;
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
		# A changed cell is counted under Valgrind (--counts changed): a
		# model cell's call takes 25 s or more there, and kernels.md's six
		# model examples spent about 150 s of this script on it.  Each call
		# still runs under Valgrind, for at most 10 s ("not counted:
		# timeout" beyond; no page shows those columns).
		# (run and report take it; plan and history have no counts)
		[[ $sub == history || $sub == plan || $c == *--count* ]] || extra+=" --count-timeout 10"
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
while IFS=$'\t' read -r where c shown; do
	n=$((n + 1))
	# BV_DOCS_ONLY=REGEX: only the examples whose FILE:LINE matches (to try
	# a page's examples while writing it; the count check is then off)
	[ -n "${BV_DOCS_ONLY:-}" ] && ! [[ $where =~ $BV_DOCS_ONLY ]] && continue
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
	secs=$((SECONDS - t0))
	if [ $rc -ne "$want" ]; then
		not_ok "$where: $c: exit $rc, expected $want; ran: $run"
		tail -5 "$TMP/ex.err" | sed 's/^/#   /'
		continue
	fi
	if [ -z "$shown" ]; then
		ok "$where: $c (exit $rc, $secs s)"
		continue
	fi
	# The page shows what it prints: that must be what it prints (shown.py)
	cat "$TMP/ex.out" "$TMP/ex.err" > "$TMP/ex.all"
	python3 "$TMP/shown.py" "$shown" "$TMP/ex.all" "$run" > "$TMP/ex.check"
	case $? in
	0) ok "$where: $c (exit $rc, $secs s; $(head -1 "$TMP/ex.check"))" ;;
	3) not_ok "$where: $c: the page shows output with no table and no error line, which this test cannot check: show less, or teach shown.py" ;;
	*)
		not_ok "$where: $c: prints other than the page shows ($(head -1 "$TMP/ex.check")); ran: $run"
		tail -n +2 "$TMP/ex.check" | head -20
		grep -E '^(bench |bench-versions:)' "$TMP/ex.all" | head -3 | sed 's/^/#   printed: /' ;;
	esac
done < "$TMP/examples"
[ -n "${BV_DOCS_ONLY:-}" ] || check "examples found ($n)" test "$n" -ge 26
echo "# examples ran in $((SECONDS - start)) s"
finish
