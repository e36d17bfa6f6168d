#!/usr/bin/env bash
# End to end: secrets stay with bench-versions.  The upload token (and
# anything else that looks like a secret) must never reach the code the tool
# builds and runs: the kernel library's Makefile (make, cc, patch, a compat
# recipe) and bv-runner, which loads the library.  The fixture's Makefile
# writes its environment while the library builds, and a constructor in the
# library writes the measuring process's environment when bv-runner loads it;
# neither may hold a secret, and the runner's holds only what it needs.
#
# Their memory neither: the Makefile and the library's
# constructor each run a scanner that reads every ancestor's environment and
# memory (/proc/PID/mem, region by region as /proc/PID/maps lists them), up
# to this script, and finds no secret's value.  bench-versions drops what it
# does not need, and is not dumpable (its memory unreadable) while it holds
# a secret it needs (a proxy's password here).
source "$(dirname "$0")/lib.sh"
make_fixture
# The system one: a python3 in root's home (pyenv) is not for nobody (below).
PY3=/usr/bin/python3
[ -x "$PY3" ] || PY3=$(command -v python3)

# scan.py LABEL TMP: appends one JSON line per ancestor of its parent (up to
# this script, $$) to TMP/scan-LABEL: its pid and name, whether its
# environment and memory could be read (bytes read, or "denied") and which
# secrets are in either.  The values to look for are in TMP/secret-values,
# in no environment the tool sees.
echo $$ > "$TMP/stop-pid"
cat > "$TMP/scan.py" <<'SCAN'
import json, os, struct, sys
label, tmp = sys.argv[1], sys.argv[2]
secrets = dict(l.rstrip("\n").split("=", 1) for l in open(tmp + "/secret-values") if "=" in l)
stop = int(open(tmp + "/stop-pid").read())
def ppid(pid):
    s = open("/proc/%d/stat" % pid).read()
    return int(s[s.rindex(")") + 2:].split()[1])
# x86-64 AddressSanitizer's shadow memory (the ASan build's processes).
ASAN_SHADOW = (0x7fff8000, 0x10007fff8000)
PAGE = 4096
# The runs of pages of [lo, hi) that are in memory or swapped out (pagemap
# bits 63 and 62): what a process reserved but never touched (the ASan
# allocator's gigabytes) is not read page by page.
def present(pagemap, lo, hi):
    runs, start, end, page = [], None, None, lo
    while page < hi:
        n = min((hi - page) // PAGE, 1 << 16)
        pagemap.seek(page // PAGE * 8)
        entries = pagemap.read(n * 8)
        if len(entries) < n * 8:
            break
        for i, (e,) in enumerate(struct.iter_unpack("<Q", entries)):
            if e >> 62:
                at = page + i * PAGE
                if end == at:
                    end += PAGE
                else:
                    if start is not None:
                        runs.append((start, end))
                    start, end = at, at + PAGE
        page += n * PAGE
    if start is not None:
        runs.append((start, end))
    return runs
def look(data, rec):
    for k, v in secrets.items():
        if v.encode() in data and k not in rec["found"]:
            rec["found"].append(k)
out = []
pid = os.getppid()
while pid > 1 and pid != stop:
    rec = {"pid": pid, "comm": open("/proc/%d/comm" % pid).read().strip(), "found": []}
    try:
        look(open("/proc/%d/environ" % pid, "rb").read(), rec)
        rec["env"] = "read"
    except OSError:
        rec["env"] = "denied"
    try:
        maps = open("/proc/%d/maps" % pid).read().splitlines()
        mem = open("/proc/%d/mem" % pid, "rb", 0)
        pagemap = open("/proc/%d/pagemap" % pid, "rb", 0)
        total = 0
        for line in maps:
            f = line.split()
            lo, hi = (int(x, 16) for x in f[0].split("-"))
            if f[1][0] != "r" or (len(f) > 5 and (f[5].startswith("/dev/") or f[5] in ("[vvar]", "[vsyscall]"))):
                continue
            if lo < ASAN_SHADOW[1] and hi > ASAN_SHADOW[0]:
                continue  # the sanitizer's shadow (terabytes) holds no bytes of the program's
            for run_lo, run_hi in present(pagemap, lo, hi):
                at, tail = run_lo, b""
                while at < run_hi:  # in chunks, each with the end of the one before
                    try:
                        mem.seek(at)
                        data = mem.read(min(run_hi - at, 1 << 24))
                    except OSError:
                        break
                    if not data:
                        break
                    total += len(data)
                    look(tail + data, rec)
                    tail, at = data[-512:], at + len(data)
        rec["mem"] = total
    except OSError:
        rec["mem"] = "denied"
    out.append(rec)
    pid = ppid(pid)
with open("%s/scan-%s" % (tmp, label), "a") as o:
    for r in out:
        o.write(json.dumps(r) + "\n")
SCAN

hex() { python3 -c 'import secrets; print(secrets.token_hex(12))'; }
TOKEN="bvt-$(hex)" GHTOKEN="ghp-$(hex)" PASSWORD="pw-$(hex)" AWSKEY="aws-$(hex)" URLPASS="urlpw-$(hex)"
declare -A secrets=([BENCH_VERSIONS_TOKEN]=$TOKEN [GITHUB_TOKEN]=$GHTOKEN [DEPLOY_PASSWORD]=$PASSWORD
	[AWS_SECRET_ACCESS_KEY]=$AWSKEY [BV_FIXTURE_URL]=$URLPASS)

# What a build can see: its environment, and its parent's (bench-versions)
# in /proc, which shows the environment a process was started with.
cat >> "$FIX/kernels/Makefile" <<MK

# planted by test_secrets.sh
\$(shell env > $TMP/build-env)
\$(shell tr '\\0' '\\n' < /proc/\$\$(awk '{print \$\$4}' /proc/\$\$PPID/stat)/environ > $TMP/parent-env)
\$(shell $PY3 $TMP/scan.py build $TMP)
MK
cat >> "$FIX/kernels/src/api.c" <<C
/* planted by test_secrets.sh: what the measuring process can see */
extern char **environ;
__attribute__((constructor)) static void planted_env_dump(void)
{
	FILE *f = fopen("$TMP/runner-env", "a");
	if (!f)
		return;
	for (char **e = environ; *e; e++)
		fprintf(f, "%s\n", *e);
	fclose(f);
}
/* planted by test_secrets.sh: the measuring process scans its ancestors'
 * memory, once a run (the first process that loads the library) */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
__attribute__((constructor)) static void planted_scan(void)
{
	int fd = open("$TMP/kernel-scan.once", O_CREAT | O_EXCL | O_WRONLY, 0600);
	if (fd < 0)
		return;
	close(fd);
	if (system("$PY3 $TMP/scan.py kernel $TMP") != 0)
		return;
}
C
git -C "$FIX" commit -qam "a library that reads its environment"

for k in "${!secrets[@]}"; do echo "$k=${secrets[$k]}"; done > "$TMP/secret-values"

# scanned NAME LABEL MEM: the scan LABEL reached bench-versions (twice for a
# build: the build worker and the main process) and found no secret in any
# ancestor; MEM: "read" when bench-versions' memory must have been read (it
# holds no secret), "denied" when it must not have been (it holds one).
scanned() {
	check "$1" python3 - "$TMP/scan-$2" "$2" "$3" <<'PY'
import json, sys
path, label, mem = sys.argv[1:4]
recs = [json.loads(l) for l in open(path)]
tool = [r for r in recs if r["comm"] == "bench-versions"]
assert len(tool) >= (2 if label == "build" else 1), recs
assert not [r for r in recs if r["found"]], [r for r in recs if r["found"]]
if mem == "read":
    assert all(isinstance(r["mem"], int) and r["mem"] > 0 for r in tool), tool
else:
    assert all(r["mem"] == "denied" and r["env"] == "denied" for r in tool), tool
PY
}

# no_leaks NAME FILE...: a check that no secret's value is in the files
no_leaks() {
	local name=$1 k found=
	shift
	for k in "${!secrets[@]}"; do
		cat "$@" 2> /dev/null | grep -qF -- "${secrets[$k]}" && found="$found $k"
	done
	if [ -z "$found" ]; then ok "$name"; else not_ok "$name (found:$found)"; fi
}

BENCH_VERSIONS_TOKEN="$TOKEN" GITHUB_TOKEN="$GHTOKEN" DEPLOY_PASSWORD="$PASSWORD" AWS_SECRET_ACCESS_KEY="$AWSKEY" \
	BV_FIXTURE_URL="https://ci:$URLPASS@example.invalid/x" BV_FIXTURE_PLAIN=plain-setting TSAN_OPTIONS=fixture-tsan \
	BENCH_VERSIONS_BUILD_ENV=BV_FIXTURE_PLAIN BV_FIXTURE_UNLISTED=unlisted MAKEFLAGS=" -- FIXTURE_MARK=1" \
	"$BV" main --benches unary --ops abs --backends scalar --sizes 1K --quick --results "$TMP/results" \
	> "$TMP/out" 2> "$TMP/err"
rc=$?
check "the run exits 0" test $rc -eq 0
check "the build's environment was written" contains "$TMP/build-env" "^PATH="
check "the build keeps the user's own setting named in BENCH_VERSIONS_BUILD_ENV" \
	contains "$TMP/build-env" "^BV_FIXTURE_PLAIN=plain-setting$"
check "... and gets no other of the user's settings, nor an outer make's variables" \
	test -z "$(grep -E '^(BV_FIXTURE_UNLISTED|BENCH_VERSIONS_|KERNEL_)|FIXTURE_MARK' "$TMP/build-env")"
no_leaks "the build never sees the token or another secret" "$TMP/build-env"
check "the build can read its parent's environment in /proc" contains "$TMP/parent-env" "^PATH="
no_leaks "and finds no secret there either" "$TMP/parent-env"
check "the measuring process's environment was written" contains "$TMP/runner-env" "^PATH="
no_leaks "the measuring process never sees the token or another secret" "$TMP/runner-env"
check "the measuring process gets only what it needs, not the user's other settings" \
	test -z "$(grep -E '^(BV_FIXTURE_|BENCH_VERSIONS_|KERNEL_)' "$TMP/runner-env")"
check "the measuring process keeps the thread counts and sanitizer options" \
	bash -c "grep -q '^OPENBLAS_NUM_THREADS=1$' '$TMP/runner-env' && grep -q '^TSAN_OPTIONS=fixture-tsan$' '$TMP/runner-env'"
log=$(ls "$TMP"/results/[0-9]*/main.json)
no_leaks "no secret in the output, the messages or the log" "$TMP/out" "$TMP/err" "$log"
if [[ "${BV_BIN_DIR:-bin}" == *asan* ]]; then
	# The sanitizer runtime reads /proc/self/environ into a buffer of its own
	# at start, before main, and keeps it: the environment as it was, there
	# for a scan of a dumpable process to find.
	why="the ASan runtime keeps a copy of the initial environment"
	skip "a build that scans its ancestors' memory and environment finds no secret" "$why"
	skip "a kernel that scans its ancestors' memory and environment finds no secret" "$why"
else
	scanned "a build that scans its ancestors' memory and environment finds no secret" build read
	scanned "a kernel that scans its ancestors' memory and environment finds no secret" kernel read
fi

# A secret the tool needs (libcurl would read the proxy's password): kept in
# memory, so the process is not dumpable; the scans find its memory and
# environment closed to them.  Another cache: the build runs again.  Root
# reads any process's memory (CAP_SYS_PTRACE), so as root the tool runs as
# nobody here: the kernel and the recipe are nobody too, the owner of the
# processes they scan, whom only the dumpable flag keeps out.
as_user=()
if [ "$(id -u)" -eq 0 ]; then
	chown -R nobody:nogroup "$TMP"
	as_user=(setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME="$TMP")
fi
PROXYPASS="proxypw-$(hex)"
echo "https_proxy=$PROXYPASS" >> "$TMP/secret-values"
rm -f "$TMP/kernel-scan.once" "$TMP/scan-build" "$TMP/scan-kernel"
BENCH_VERSIONS_CACHE="$TMP/cache2" https_proxy="http://ci:$PROXYPASS@proxy.invalid:3128" \
	BENCH_VERSIONS_TOKEN="$TOKEN" GITHUB_TOKEN="$GHTOKEN" \
	"${as_user[@]}" "$BV" main --benches unary --ops abs --backends scalar --sizes 1K --quick \
	--results "$TMP/results2" > "$TMP/out2" 2> "$TMP/err2"
rc=$?
check "with a proxy's password in the environment the run exits 0 (exit $rc${as_user:+, as nobody})" test $rc -eq 0
scanned "with a secret it needs, bench-versions' memory is closed to a build" build denied
scanned "... and to a kernel" kernel denied
finish
