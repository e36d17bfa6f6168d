#!/usr/bin/env bash
# End to end: faults.  Ctrl-C (SIGINT to the process group), SIGTERM and
# SIGKILL in the middle of measuring, then --resume; SIGTERM and SIGKILL in
# the middle of building; a full disk (a file size limit, and a small tmpfs where mounting
# works); an unwritable results directory; the cache deleted while
# measuring; two runs at once sharing a cache and a results directory; and a
# web server that stalls, drops the connection, lies about the length or
# sends another body (tests/e2e/fault_server.py), for release downloads and
# for KERNEL_REPO clones.
source "$(dirname "$0")/lib.sh"
own_library_builds # faults and signals while a library builds
make_fixture
plant_relu_slowdown # uncommitted: local's relu is 3x slower than main's
# Six cells: relu decides after the first 6 processes, the others (same code,
# threshold 0 so they cannot decide) sample until their budget, several
# times as long: a window where some cells have finished and some have not.
# (With --budget 1 a loaded machine's relu could finish with the rest and
# the run end before the signal: a CI run read 'complete'.)
args=(main local --ops relu,abs,neg --backends scalar --sizes 1K,4K --quick --budget 2 --threshold 0)

# logs_check DIR STATUS: every log in DIR is valid JSON, says STATUS, holds
# the 6 cells, finished in the same cells across versions; no temporary
# files; every raw runner document valid.  Prints the finished cells' count.
logs_check() {
	python3 - "$@" <<'PY'
import glob, json, os, sys
d, status = sys.argv[1:3]
logs = sorted(glob.glob(os.path.join(d, "*.json")))
assert logs, "no logs in " + d
finished = None
for p in logs:
    doc = json.load(open(p))
    assert doc["schema_version"] == "1.10", doc["schema_version"]
    assert doc["run"]["status"] == status, (p, doc["run"]["status"])
    assert len(doc["cells"]) == 6, len(doc["cells"])
    f = [i for i, c in enumerate(doc["cells"]) if c["status"] != "unfinished"]
    for i in f:
        assert doc["cells"][i]["status"] == "ok" and doc["cells"][i]["processes"] >= 6, doc["cells"][i]
    assert finished is None or f == finished, (p, f, finished)
    finished = f
left = [n for n in os.listdir(d) + os.listdir(os.path.join(d, "raw")) if ".tmp" in n]
assert not left, left
for p in glob.glob(os.path.join(d, "raw", "process-*.json")):
    json.load(open(p))
print(len(finished))
PY
}
# cache_complete CACHE: no temporary directory, and every build whole.
cache_complete() {
	local b s
	! ls -d "$1"/builds/.tmp-* "$1"/src/.tmp-* "$1"/machine/.tmp-* > /dev/null 2>&1 || return 1
	for b in "$1"/builds/*/; do [ -e "$b" ] || continue; [ -f "$b/plugin.so" ] || return 1; done
	for s in "$1"/src/*/; do [ -e "$s" ] || continue; [ -f "$s/VERSION" ] || return 1; done
}
# wait_finished ROOT: until a log under ROOT holds a finished cell (2 min at most).
wait_finished() {
	for _ in $(seq 600); do
		python3 - "$1" <<'PY' 2> /dev/null && return 0
import glob, json, sys
for p in glob.glob(sys.argv[1] + "/[0-9]*/local.json"):
    if any(c["status"] != "unfinished" for c in json.load(open(p))["cells"]):
        sys.exit(0)
sys.exit(1)
PY
		sleep 0.2
	done
	return 1
}
runners_gone() { # no bv-runner writing under $1 is left (10 s at most)
	for _ in $(seq 50); do pgrep -f "bv-runner --out $1" > /dev/null || return 0; sleep 0.2; done
	return 1
}

# ---- Ctrl-C while measuring, then --resume -----------------------------------
# A shell started in the background by a non-interactive one ignores SIGINT,
# and so does every child (the tool keeps an ignored SIGINT ignored, as nohup
# wants): lib.sh starts such a script again with SIGINT at its default, so
# the checks below hold however the suite was started.
sigign=$(awk '/^SigIgn/ {print $2}' /proc/$$/status)
check "SIGINT is not ignored by this shell (lib.sh restores it)" test $(((16#${sigign: -1} >> 1) & 1)) -eq 0
# interrupted_run (lib.sh) gives the run its own process group, as a
# terminal does; the signal goes to the whole group, as Ctrl-C's does.
int_finished() { wait_finished "$TMP/int"; } # ERR PID: not needed
interrupted_run "$TMP/int.out" "$TMP/int.err" int_finished "$BV" "${args[@]}" --results "$TMP/int"
rc=$?
check "SIGINT: the run reaches a finished cell" test "$ready" -eq 0
dir=$(ls -d "$TMP"/int/[0-9]*/ | head -1)
dir=${dir%/}
check "SIGINT: exits 130" test $rc -eq 130
check "SIGINT: says it was interrupted and how to resume" \
	bash -c "grep -q 'interrupted (SIGINT)' '$TMP/int.err' && grep -qE '^  $BV run main local .* --resume $dir$' '$TMP/int.err'"
n=$(logs_check "$dir" interrupted)
check "SIGINT: the logs are valid JSON, marked interrupted" test -n "$n"
check "SIGINT: some cells finished ($n of 6), some did not" test "${n:-0}" -ge 1 -a "${n:-6}" -lt 6
check "SIGINT: the cache holds no partial entry" cache_complete "$BENCH_VERSIONS_CACHE"
check "SIGINT: no measuring process is left" runners_gone "$dir"
cp -r "$dir" "$TMP/int-before"
before=$(ls "$dir"/raw/process-*.json | wc -l)

"$BV" run "${args[@]}" --resume "$dir" > "$TMP/res.out" 2> "$TMP/res.err"
rc=$?
check "resume: exits 0" test $rc -eq 0
check "resume: nothing rebuilt" test "$(grep -c 'cached, nothing rebuilt' "$TMP/res.err")" -eq 2
check "resume: says it reused the $n finished cells" contains "$TMP/res.err" "^resume: $dir: $n of 6 cells reused"
check "resume: the logs are complete" test "$(logs_check "$dir" complete)" = 6
check "resume: the table has every cell" test "$(grep -cE '^unary +(relu|abs|neg) +scalar' "$TMP/res.out")" -eq 6
check "resume: relu is still found slower" contains "$TMP/res.out" "^unary +relu +scalar +1K .* slower"
check "resume: finished cells are kept as measured and not measured again" python3 - "$TMP/int-before" "$dir" "$before" <<'PY'
import glob, json, os, re, sys
old, new, before = sys.argv[1], sys.argv[2], int(sys.argv[3])
for p in glob.glob(old + "/*.json"):
    a = json.load(open(p)); b = json.load(open(os.path.join(new, os.path.basename(p))))
    done = [i for i, c in enumerate(a["cells"]) if c["status"] != "unfinished"]
    for i in done:
        assert a["cells"][i] == b["cells"][i], (p, i)
    assert b["run"]["created"] == a["run"]["created"] and len(b["run"]["resumed"]) == 1
    assert b["run"]["id"] == a["run"]["id"] == os.path.basename(new)
    assert b["method"]["processes_started"] > a["method"]["processes_started"]
# The resumed run's processes (numbered on from the earlier ones) measured
# only the cells that had not finished.
later = [p for p in glob.glob(new + "/raw/process-*.json") if int(re.findall(r"\d+", os.path.basename(p))[0]) > before]
assert later, "the resume started no process"
for p in later:
    idx = {c["index"] for c in json.load(open(p))["cells"]}
    assert not idx & set(done), (p, idx, done)
PY
"$BV" run "${args[@]}" --resume "$dir" > /dev/null 2> "$TMP/res2.err"
check "resume of a complete run measures nothing" \
	bash -c "grep -q '6 of 6 cells reused' '$TMP/res2.err' && grep -q '^measure: 0 processes started' '$TMP/res2.err'"

# ---- a resume with another plan is refused, before anything builds -------------
resume_refused() { # NAME PATTERN ARGS...: run ARGS: exit 2, the pattern on stderr, nothing built
	local name=$1 pattern=$2
	shift 2
	"$BV" run "$@" > /dev/null 2> "$TMP/ref.err"
	local rc=$?
	check "resume refused: $name: exits 2" test $rc -eq 2
	check "resume refused: $name: says why" contains "$TMP/ref.err" "$pattern"
	check "resume refused: $name: builds nothing" test "$(grep -c '^build:' "$TMP/ref.err")" -eq 0
}
resume_refused "other sizes" "its cells differ .* 6 there, 3 now" main local --ops relu,abs,neg --backends scalar --sizes 1K --quick --budget 2 --threshold 0 --resume "$dir"
resume_refused "other versions" "it compared main local, this command names main main-2" main main --ops relu,abs,neg --backends scalar --sizes 1K,4K --quick --budget 2 --threshold 0 --resume "$dir"
resume_refused "other options" "--budget differs: 2 there, 5 now" "${args[@]}" --budget 5 --resume "$dir"
resume_refused "another simd ISA" "--simd-isa differs: not given there, generic now" "${args[@]}" --simd-isa generic --resume "$dir"
resume_refused "no such directory" "--resume $TMP/nope: not a results directory" "${args[@]}" --resume "$TMP/nope"

# ---- SIGTERM to bench-versions alone, while measuring ----------------------
"$BV" "${args[@]}" --results "$TMP/term" > /dev/null 2> "$TMP/term.err" &
pid=$!
check "SIGTERM: the run reaches a finished cell" wait_finished "$TMP/term"
kill -TERM "$pid"
wait "$pid"
rc=$?
dir=$(ls -d "$TMP"/term/[0-9]*/ | head -1)
dir=${dir%/}
check "SIGTERM: exits 143" test $rc -eq 143
check "SIGTERM: says so" contains "$TMP/term.err" "interrupted \(SIGTERM\)"
check "SIGTERM: reaches the measuring process too (none is left)" runners_gone "$dir"
n=$(logs_check "$dir" interrupted)
check "SIGTERM: the logs are valid, with $n finished cells" test "${n:-0}" -ge 1

# ---- SIGKILL while measuring: the logs on disk are still valid ---------------
"$BV" "${args[@]}" --results "$TMP/kill" > /dev/null 2> "$TMP/kill.err" &
pid=$!
check "SIGKILL: the run reaches a finished cell" wait_finished "$TMP/kill"
dir=$(ls -d "$TMP"/kill/[0-9]*/ | head -1)
dir=${dir%/}
"$BV" run "${args[@]}" --resume "$dir" > /dev/null 2> "$TMP/busy.err"
rc=$?
check "a resume of a run still writing is refused (exit 2)" test $rc -eq 2
check "and says another run is writing there" contains "$TMP/busy.err" "another bench-versions run is writing there now"
kill -KILL "$pid"
wait "$pid" 2> /dev/null
check "SIGKILL: the measuring process dies with it" runners_gone "$dir"
n=$(logs_check "$dir" running)
check "SIGKILL: the logs are valid JSON with $n finished cells" test "${n:-0}" -ge 1
"$BV" run "${args[@]}" --resume "$dir" > /dev/null 2> "$TMP/kill2.err"
rc=$?
check "SIGKILL: the resume completes the run, reusing the cells" \
	bash -c "test $rc -eq 0 && grep -q ': $n of 6 cells reused' '$TMP/kill2.err' && test \"\$(grep -c 'cached, nothing rebuilt' '$TMP/kill2.err')\" -eq 2"
check "SIGKILL: the resumed logs are complete" test "$(logs_check "$dir" complete)" = 6

# ---- SIGTERM while building: no half build stays -----------------------------
export BENCH_VERSIONS_CACHE="$TMP/c-build"
"$BV" "${args[@]}" --results "$TMP/tb" > /dev/null 2> "$TMP/tb.err" &
pid=$!
for _ in $(seq 300); do ls -d "$TMP"/c-build/builds/.tmp-*/ > /dev/null 2>&1 && break; sleep 0.1; done
kill -TERM "$pid"
wait "$pid"
rc=$?
check "SIGTERM while building: exits 143" test $rc -eq 143
check "SIGTERM while building: says nothing was measured" contains "$TMP/tb.err" "nothing was measured yet"
check "SIGTERM while building: no temporary directory in the cache" cache_complete "$TMP/c-build"
check "SIGTERM while building: no build process is left" bash -c "! pgrep -f '[B]UILD=$TMP/c-build' > /dev/null"
check "SIGTERM while building: no empty results directory" test -z "$(ls -A "$TMP/tb" 2> /dev/null)"
export BENCH_VERSIONS_CACHE="$TMP/cache"

# ---- SIGKILL while building: no build process outlives the run -----------------
# local's build gets a slow step while the flag file exists: a sleep under a
# shell under make, as a real step (a compiler, a code generator) would be.
# Its argv[0] is a path under $TMP, so pgrep finds this test's alone; the
# build workers (copies of bench-versions) carry --results $TMP/kb.  The
# step runs before any object is compiled (an order-only prerequisite of
# them all): after the archive's objects it waited for a whole library
# build, nvcc included, five times (about 60 s of this script).
cp "$(command -v sleep)" "$TMP/bv-slow-step"
python3 - "$FIX/kernels/Makefile" "$TMP" <<'PY'
import sys
p, tmp = sys.argv[1:3]; s = open(p).read()
assert "\nOBJS :=" in s, "fixture: the library's OBJS moved; update the slow step"
s += ("\n$(OBJS): | bv-slow-gate\n.PHONY: bv-slow-gate\nbv-slow-gate:\n"
      "\tif [ -e %s/slow ]; then %s/bv-slow-step 987653; fi; true\n" % (tmp, tmp))
open(p, "w").write(s)
PY
touch "$TMP/slow"
builds_gone() { # no slow step and no build worker of this run (10 s at most)
	for _ in $(seq 50); do
		pgrep -f "$TMP/bv-slow-step" > /dev/null || pgrep -f -- "--results $TMP/kb" > /dev/null || return 0
		sleep 0.2
	done
	return 1
}
kb=(main local --ops abs --backends scalar --sizes 1K --quick --budget 1)
BENCH_VERSIONS_CACHE="$TMP/c-kb" "$BV" "${kb[@]}" --results "$TMP/kb" > /dev/null 2> "$TMP/kb.err" &
pid=$!
slow_step() { pgrep -f "^$TMP/bv-slow-step 987653" > /dev/null; }
for _ in $(seq 600); do slow_step && break; sleep 0.1; done
check "SIGKILL while building: the build reaches its slow step" slow_step
kill -KILL "$pid"
wait "$pid" 2> /dev/null
check "SIGKILL while building: no build worker, make or step of it is left" builds_gone
rm -f "$TMP/slow"
dir=$(ls -d "$TMP"/kb/[0-9]*/ | head -1)
dir=${dir%/}
BENCH_VERSIONS_CACHE="$TMP/c-kb" timeout -k 5 300 "$BV" run "${kb[@]}" --resume "$dir" > /dev/null 2> "$TMP/kb2.err"
rc=$?
check "SIGKILL while building: the directory is not held by a leftover" bash -c "! grep -q 'writing there now' '$TMP/kb2.err'"
check "SIGKILL while building: --resume builds and measures (exit $rc)" test $rc -eq 0
# A regression leaves them: end them here, by their ids.
for p in $(pgrep -f "$TMP/bv-slow-step") $(pgrep -f -- "--results $TMP/kb"); do kill -KILL "$p" 2> /dev/null; done
check "SIGKILL while building: the cache is whole" cache_complete "$TMP/c-kb"

# ---- bisect and compat --build: their builds die with them too ---------------
# Both built in their own process once, so a SIGTERM left make and its step
# running (no handler forwarded it) and a SIGKILL orphaned them.  A branch
# whose library has the slow step: bisect builds it as its bad end; compat
# --build builds local, which has it in the working tree.
left_of() { # PATTERN: no slow step and no process whose argv has PATTERN (10 s)
	for _ in $(seq 50); do
		pgrep -f "$TMP/bv-slow-step" > /dev/null || pgrep -f -- "$1" > /dev/null || return 0
		sleep 0.2
	done
	return 1
}
git -C "$FIX" worktree add -q -b slow-step "$TMP/wt-slow" main
cp "$FIX/kernels/Makefile" "$TMP/wt-slow/kernels/Makefile"
git -C "$TMP/wt-slow" commit -qam "a slow build step"
bk=(bisect --good main --bad slow-step --bench unary --op abs --backend scalar --size 1K --quick)
cck=(compat local --build)
for sig in TERM KILL; do
	touch "$TMP/slow"
	BENCH_VERSIONS_CACHE="$TMP/c-bk-$sig" "$BV" "${bk[@]}" > /dev/null 2> "$TMP/bk-$sig.err" &
	pid=$!
	for _ in $(seq 900); do slow_step && break; sleep 0.1; done
	check "SIG$sig while bisect builds: the build reaches its slow step" slow_step
	kill -$sig "$pid"
	wait "$pid" 2> /dev/null
	rc=$?
	[ $sig = TERM ] && check "SIGTERM while bisect builds: exits 143 and says it was interrupted" \
		bash -c "test $rc -eq 143 && grep -q 'interrupted' '$TMP/bk-$sig.err'"
	check "SIG$sig while bisect builds: no build worker, make or step of it is left" left_of "--bad slow-step"
	check "SIG$sig while bisect builds: the cache holds no partial entry" cache_complete "$TMP/c-bk-$sig"

	BENCH_VERSIONS_CACHE="$TMP/c-ck-$sig" "$BV" "${cck[@]}" > /dev/null 2> "$TMP/ck-$sig.err" &
	pid=$!
	for _ in $(seq 900); do slow_step && break; sleep 0.1; done
	check "SIG$sig while compat --build builds: the build reaches its slow step" slow_step
	kill -$sig "$pid"
	wait "$pid" 2> /dev/null
	rc=$?
	[ $sig = TERM ] && check "SIGTERM while compat --build builds: exits 143" test $rc -eq 143
	check "SIG$sig while compat --build builds: no build worker, make or step of it is left" left_of "compat local --build"
	check "SIG$sig while compat --build builds: the cache holds no partial entry" cache_complete "$TMP/c-ck-$sig"
	rm -f "$TMP/slow"
	for p in $(pgrep -f "$TMP/bv-slow-step") $(pgrep -f -- "--bad slow-step") $(pgrep -f -- "compat local --build"); do
		kill -KILL "$p" 2> /dev/null
	done
done
git -C "$FIX" worktree remove --force "$TMP/wt-slow"
git -C "$FIX" checkout -q -- kernels/Makefile

# ---- a full disk ---------------------------------------------------------------
# A file size limit (works anywhere): runner documents (a few KiB) fit, the
# logs (about 16 KiB at the end) do not.
(ulimit -f 10 && exec "$BV" "${args[@]}" --results "$TMP/fsize") > /dev/null 2> "$TMP/fsize.err"
rc=$?
dir=$(ls -d "$TMP"/fsize/[0-9]*/ | head -1)
dir=${dir%/}
check "file size limit: exits 3" test $rc -eq 3
check "file size limit: names the log it could not write" contains "$TMP/fsize.err" "cannot write $dir/[a-z]+\.json: File too large"
check "file size limit: the logs on disk are valid or absent, no temporary files" python3 - "$dir" <<'PY'
import glob, json, os, sys
# "failed" too: the run's last write marks it so, and a log small enough
# for the limit (the baseline's, without a change block) gets it on disk.
# Never "complete": whichever write the limit bites (an intermediate one,
# or only the final one, after the baseline's log was written as complete:
# the flake an outside review saw once in two runs), no log of a run that
# could not write all of its logs may say so (measure.c rewrites them as
# failed).
for p in glob.glob(sys.argv[1] + "/*.json"):
    assert json.load(open(p))["run"]["status"] in ("running", "failed"), p
assert not [n for n in os.listdir(sys.argv[1]) if ".tmp" in n]
PY
check "file size limit: the cache holds no partial entry" cache_complete "$BENCH_VERSIONS_CACHE"
mkdir -p "$TMP/mnt"
if mount -t tmpfs -o size=256k tmpfs "$TMP/mnt" 2> /dev/null; then
	trap 'umount "$TMP/mnt" 2>/dev/null; umount "$TMP/ro" 2>/dev/null; [ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT
	# Leave about 40 KiB: room for some runner documents, not for the run.
	head -c $((216 * 1024)) /dev/zero > "$TMP/mnt/filler" 2> /dev/null
	"$BV" "${args[@]}" --results "$TMP/mnt/r" > /dev/null 2> "$TMP/enospc.err"
	rc=$?
	check "full disk (tmpfs): exits 3" test $rc -eq 3
	check "full disk (tmpfs): names the file it could not write" contains "$TMP/enospc.err" "cannot write $TMP/mnt/r/[^ ]+: No space left on device"
	check "full disk (tmpfs): logs valid or absent, no temporary files" python3 - "$TMP/mnt/r" <<'PY'
import glob, json, os, sys
for p in glob.glob(sys.argv[1] + "/[0-9]*/*.json") + glob.glob(sys.argv[1] + "/[0-9]*/raw/*.json"):
    json.load(open(p))
for root, dirs, files in os.walk(sys.argv[1]):
    assert not [n for n in files if ".tmp" in n], (root, files)
PY
	# Completely full: found before anything is built.
	rm -rf "$TMP/mnt/r"
	head -c $((1024 * 1024)) /dev/zero >> "$TMP/mnt/filler" 2> /dev/null
	"$BV" "${args[@]}" --results "$TMP/mnt/r" > /dev/null 2> "$TMP/full.err"
	rc=$?
	check "completely full disk: exits 3 before building" test $rc -eq 3 -a "$(grep -c '^build:' "$TMP/full.err")" -eq 0
	check "completely full disk: says the results directory is not writable" contains "$TMP/full.err" "results directory not writable: cannot write .*: No space left on device"
	check "completely full disk: leaves no empty results directory" test -z "$(ls -A "$TMP/mnt/r")"
	umount "$TMP/mnt"
else
	skip "full disk (tmpfs) and completely full disk" "mount -t tmpfs is not permitted here"
fi

# ---- an unwritable results directory: found before anything is built --------
echo "a file" > "$TMP/afile"
"$BV" "${args[@]}" --results "$TMP/afile/results" > /dev/null 2> "$TMP/unw.err"
rc=$?
check "results under a regular file: exits 3" test $rc -eq 3
check "results under a regular file: says why, naming the path" contains "$TMP/unw.err" "cannot create directory $TMP/afile/results: Not a directory"
check "results under a regular file: nothing built or measured" test "$(grep -cE '^(build|measure):' "$TMP/unw.err")" -eq 0
mkdir -p "$TMP/ro"
if mount --bind -o ro "$TMP/ro" "$TMP/ro" 2> /dev/null && ! touch "$TMP/ro/x" 2> /dev/null; then
	"$BV" "${args[@]}" --results "$TMP/ro" > /dev/null 2> "$TMP/ro.err"
	rc=$?
	check "read-only results directory: exits 3 before building" test $rc -eq 3 -a "$(grep -c '^build:' "$TMP/ro.err")" -eq 0
	check "read-only results directory: says why" contains "$TMP/ro.err" "cannot create a results directory in $TMP/ro: Read-only file system"
	umount "$TMP/ro"
else
	umount "$TMP/ro" 2> /dev/null
	skip "read-only results directory" "mount --bind is not permitted here"
fi

# ---- the cache deleted while measuring ---------------------------------------
cp -a "$TMP/cache" "$TMP/c-del"
BENCH_VERSIONS_CACHE="$TMP/c-del" "$BV" "${args[@]}" --results "$TMP/del" > /dev/null 2> "$TMP/del.err" &
pid=$!
check "cache deleted: the run reaches a finished cell" wait_finished "$TMP/del"
rm -rf "$TMP/c-del"
wait "$pid"
rc=$?
dir=$(ls -d "$TMP"/del/[0-9]*/ | head -1)
dir=${dir%/}
check "cache deleted: exits 3" test $rc -eq 3
check "cache deleted: says the build is gone and why that may be" contains "$TMP/del.err" "build .*plugin.so is gone: was the cache \($TMP/c-del\) removed while measuring\?"
n=$(logs_check "$dir" failed)
check "cache deleted: the logs keep the $n finished cells" test "${n:-0}" -ge 1

# ---- two runs at once: one cache, one results directory ----------------------
# (tests/e2e/test_cache.sh starts two on an empty cache; here both measure
# at once and start in the same second, so their directories would collide.)
small=(main local --ops relu,abs --backends scalar --sizes 1K --quick --budget 1)
cp -a "$TMP/cache" "$TMP/c-conc"
export BENCH_VERSIONS_CACHE="$TMP/c-conc"
"$BV" "${small[@]}" --results "$TMP/conc" > "$TMP/ca.out" 2> "$TMP/ca.err" & pa=$!
"$BV" "${small[@]}" --results "$TMP/conc" > "$TMP/cb.out" 2> "$TMP/cb.err" & pb=$!
wait $pa; rca=$?
wait $pb; rcb=$?
check "concurrent runs: both exit 0" test $rca -eq 0 -a $rcb -eq 0
check "concurrent runs: each has its own results directory" test "$(ls -d "$TMP"/conc/[0-9]*/ | wc -l)" -eq 2
check "concurrent runs: every log valid and complete" python3 - "$TMP/conc" <<'PY'
import glob, json, sys
logs = glob.glob(sys.argv[1] + "/[0-9]*/*.json")
assert len(logs) == 4, logs
for p in logs:
    d = json.load(open(p))
    assert d["run"]["status"] == "complete" and [c["status"] for c in d["cells"]] == ["ok", "ok"], p
PY
check "concurrent runs: the shared cache is whole" cache_complete "$TMP/c-conc"
export BENCH_VERSIONS_CACHE="$TMP/cache"

# ---- network faults ----------------------------------------------------------
SRV="$TMP/srv"
mkdir -p "$SRV"
cp -r "$FIX/kernels" "$TMP/rel"
git -C "$FIX" checkout -q -- kernels # the planted slowdown stays out of the release
echo 0.2.0 > "$TMP/rel/VERSION"
make -s -C "$TMP/rel" dist
mv "$TMP/rel/kernels-0.2.0.tar.gz" "$SRV/"
sha=$(sha256sum "$SRV/kernels-0.2.0.tar.gz" | cut -d' ' -f1)
for mode in ok stall drop short wrong empty; do
	printf '{"schema":"bench-versions-releases","schema_version":"1.0","releases":[{"version":"0.2.0","url":"/%s/kernels-0.2.0.tar.gz","sha256":"%s"}]}\n' \
		"$mode" "$sha" > "$SRV/$mode.json"
done
python3 "$ROOT/tests/e2e/fault_server.py" "$TMP/port" "$SRV" > "$TMP/srv.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; umount "$TMP/mnt" 2>/dev/null; umount "$TMP/ro" 2>/dev/null; [ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT
for _ in $(seq 100); do [ -s "$TMP/port" ] && break; sleep 0.1; done
URL="http://127.0.0.1:$(cat "$TMP/port")"
export BENCH_VERSIONS_NET_TIMEOUT=1
quick=(--quick --ops abs --backends scalar --sizes 1K --results "$TMP/net")

# net_fails NAME MODE-OF-TARBALL INDEX-MODE PATTERN REQUESTS: the download fails
# in bounded time with the message, the server saw REQUESTS tries, the
# cache keeps nothing of the release.
net_fails() {
	local name=$1 tmode=$2 imode=$3 pattern=$4 tries=$5 cache="$TMP/c-net-$1"
	: > "$TMP/srv.log"
	local start=$(date +%s)
	BENCH_VERSIONS_CACHE="$cache" KERNEL_RELEASES="$URL/$imode/$tmode.json" "$BV" 0.2.0 "${quick[@]}" > /dev/null 2> "$TMP/net.err"
	local rc=$? took=$(($(date +%s) - start))
	check "$name: exits 2 or 3" test $rc -eq 2 -o $rc -eq 3
	check "$name: says why" contains "$TMP/net.err" "$pattern"
	contains "$TMP/net.err" "$pattern" || sed 's/^/#   /' "$TMP/net.err" | tail -8 # what it said instead
	check "$name: gives up in bounded time (${took}s)" test $took -lt 30
	check "$name: $tries request(s) to the server" test "$(grep -c "kernels-0.2.0.tar.gz\|$tmode.json" "$TMP/srv.log")" -eq "$tries"
	check "$name: nothing of the release in the cache" bash -c "! ls -d '$cache'/src/release-* '$cache'/src/.tmp-* > /dev/null 2>&1"
	cp "$TMP/net.err" "$TMP/net-$tmode-$imode.err"
}
net_fails "stalled tarball" stall ok "$URL/stall/kernels-0.2.0.tar.gz: nothing moved for 1 s.* \(gave up after retries\) \(BENCH_VERSIONS_NET_TIMEOUT" 4
net_fails "stalled index" ok stall "release index \(KERNEL_RELEASES\): $URL/stall/ok.json: nothing moved for 1 s" 3
net_fails "dropped mid-body" drop ok "$URL/drop/kernels-0.2.0.tar.gz: transfer closed with [0-9]+ bytes remaining to read \(gave up after retries\)" 4
net_fails "shorter than its Content-Length" short ok "$URL/short/kernels-0.2.0.tar.gz: transfer closed with 1000 bytes remaining to read" 4
net_fails "empty reply" empty ok "$URL/empty/kernels-0.2.0.tar.gz: Empty reply from server \(gave up after retries\)" 4
net_fails "another body than the index's sha256" wrong ok "sha256 mismatch: expected $sha, got [0-9a-f]{64} \(nothing kept\)" 2
check "retries are announced, with their backoff" \
	bash -c "grep -q 'download: $URL/stall/kernels-0.2.0.tar.gz: nothing moved for 1 s; retrying in 1 s' '$TMP/net-stall-ok.err' && grep -q 'retrying in 2 s' '$TMP/net-stall-ok.err'"

# KERNEL_REPO on a server that accepts and then says nothing, or hangs up.
for mode in stall empty; do
	start=$(date +%s)
	BENCH_VERSIONS_CACHE="$TMP/c-git-$mode" KERNEL_REPO="$URL/$mode/repo.git" "$BV" main "${quick[@]}" > /dev/null 2> "$TMP/git-$mode.err"
	rc=$? took=$(($(date +%s) - start))
	check "git clone, $mode: exits 2 or 3" test $rc -eq 2 -o $rc -eq 3
	check "git clone, $mode: gives up in bounded time (${took}s)" test $took -lt 15
	check "git clone, $mode: leaves no half clone" test -z "$(ls -A "$TMP/c-git-$mode/repos" 2> /dev/null)"
done
check "git clone, stall: says the server was silent, and for how long" contains "$TMP/git-stall.err" \
	"cloning KERNEL_REPO: 127.0.0.1:[0-9]+: nothing for 1 s while waiting for data \(BENCH_VERSIONS_NET_TIMEOUT\)"
check "git clone, empty reply: says so" contains "$TMP/git-empty.err" "cloning KERNEL_REPO: .*(EOF|closed|empty)"
finish
