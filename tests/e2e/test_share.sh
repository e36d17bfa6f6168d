#!/usr/bin/env bash
# End to end: bench-versions share.  One real quick run makes the results
# directory; a report.html beside its logs stands for an exported report.
# Every case uploads it to tests/e2e/upload_server.py (python3's standard
# library, on loopback, started and stopped here) in one of its modes: a
# server that stores and verifies, one that fails then recovers, fails
# always, stalls, drops the connection, sends less than it announced,
# refuses, redirects or floods.  After every case the results directory must
# be exactly as it was, and the token must never show up in any output, in
# the results or in what the server logged.
source "$(dirname "$0")/lib.sh"
make_fixture

"$BV" local --benches unary --ops abs --backends scalar --sizes 1K --quick --results "$TMP/results" \
	> "$TMP/run.out" 2> "$TMP/run.err"
check "a real run for the results to share" test $? -eq 0
RUN=$(ls -d "$TMP"/results/[0-9]*/ | head -1)
RUN=${RUN%/}
NAME=$(basename "$RUN")
"$BV" compare "$RUN/local.json" --format html > "$RUN/report.html"
check "the run has a log, raw/ and a report" test -s "$RUN/local.json" -a -d "$RUN/raw" -a -s "$RUN/report.html"

TOKEN="bvt-$(python3 -c 'import secrets; print(secrets.token_hex(16))')"
# Nothing of the caller's: no default token file, no token in the environment.
export HOME="$TMP/home" TMPDIR="$TMP/tmpdir"
unset XDG_CONFIG_HOME BENCH_VERSIONS_TOKEN
mkdir -p "$HOME" "$TMPDIR"

# ---- the server ----------------------------------------------------------
SRV_PID=
stop_server() {
	if [ -n "$SRV_PID" ]; then
		kill "$SRV_PID" 2> /dev/null
		wait "$SRV_PID" 2> /dev/null
	fi
	SRV_PID=
}
trap 'stop_server; [ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT
start_server() { # MODE
	stop_server
	cat "$TMP/srv.log" >> "$TMP/srv.all" 2> /dev/null
	rm -rf "$TMP/store" "$TMP/port"
	mkdir -p "$TMP/store"
	: > "$TMP/srv.log"
	UPLOAD_TOKEN="$TOKEN" python3 "$ROOT/tests/e2e/upload_server.py" "$1" "$TMP/port" "$TMP/store" \
		"$TMP/srv.log" 2>> "$TMP/srv.err" &
	SRV_PID=$!
	for _ in $(seq 200); do [ -s "$TMP/port" ] && break; sleep 0.05; done
	PORT=$(cat "$TMP/port")
	URL="http://127.0.0.1:$PORT/runs/"
	STORED="$TMP/store/$NAME.tar.gz"
}
requests() { grep -c '^n=' "$TMP/srv.log"; }

# ---- running share -------------------------------------------------------
# share ARGS...: output in $TMP/out and $TMP/err (and kept in all-output),
# exit status in $rc, wall time in $secs.
share() {
	local t0
	t0=$(date +%s.%N)
	"$BV" share "$@" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	secs=$(python3 -c "print($(date +%s.%N) - $t0)")
	cat "$TMP/out" "$TMP/err" >> "$TMP/all-output"
}
snap() {
	(cd "$RUN" && find . -printf '%y %m %s %T@ %p\n' | LC_ALL=C sort &&
		find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
}
snap > "$TMP/snap.before"
unchanged() { snap > "$TMP/snap.now" && cmp -s "$TMP/snap.before" "$TMP/snap.now"; }
no_temp_left() { test -z "$(ls -A "$TMPDIR")"; }
lt() { python3 -c "import sys; sys.exit(not ($1 < $2))"; }

# same_as_run ARCHIVE DIR: unpacks ARCHIVE with python's tarfile; exactly
# DIR's files, byte for byte, under one top directory named after DIR, in
# sorted order, regular files and directories only.
same_as_run() {
	python3 - "$1" "$2" <<'PY'
import os, sys, tarfile
arc, run = sys.argv[1:3]
top = os.path.basename(run)
got = {}
with tarfile.open(arc, "r:gz") as t:
    members = t.getmembers()
    for m in members:
        assert m.name == top or m.name.startswith(top + "/"), m.name
        assert m.isfile() or m.isdir(), (m.name, m.type)
        assert m.uid == 0 and m.gid == 0 and m.uname == "" and m.gname == "", m.name
        if m.isfile():
            got[m.name[len(top) + 1:]] = t.extractfile(m).read()
names = [m.name.encode() for m in members]
assert names == sorted(names), "entries not in sorted order"
want = {}
for dp, dn, fn in os.walk(run):
    for f in fn:
        p = os.path.join(dp, f)
        want[os.path.relpath(p, run)] = open(p, "rb").read()
assert got.keys() == want.keys(), sorted(got.keys() ^ want.keys())
for k in want:
    assert got[k] == want[k], k
assert "report.html" in got and "local.json" in got and any(k.startswith("raw/") for k in got)
PY
}

# ---- a good upload -------------------------------------------------------
start_server ok
BENCH_VERSIONS_TOKEN="$TOKEN" share "$RUN" --url "$URL"
check "ok: exit 0" test $rc -eq 0
check "ok: prints the URL the server returned" contains "$TMP/out" "^uploaded: http://127\.0\.0\.1:$PORT/runs/$NAME\.tar\.gz \(HTTP 201\)$"
check "ok: one PUT to <url>/<run>.tar.gz" test "$(grep -c "^n=1 PUT /runs/$NAME\.tar\.gz " "$TMP/srv.log")" -eq 1
check "ok: the server saw the right token, the sha256 header matched" contains "$TMP/srv.log" " auth=ok len=[0-9]+ sha=ok type=application/gzip run=$NAME$"
check "ok: says where the token came from, not what it is" contains "$TMP/err" "^share: token from BENCH_VERSIONS_TOKEN$"
check "ok: what arrived unpacks to exactly the run's files, byte for byte" same_as_run "$STORED" "$RUN"
sha=$(sha256sum "$STORED" | cut -d' ' -f1)
check "ok: the sha256 printed is the one of what arrived" contains "$TMP/err" "sha256 $sha$"
check "ok: results unchanged" unchanged
cp "$STORED" "$TMP/first.tar.gz"

# ---- determinism and --output --------------------------------------------
share "$RUN" --output "$TMP/a.tar.gz"
check "output alone: packs without a token or a server (exit 0)" test $rc -eq 0
check "output alone: nothing uploaded" test "$(requests)" -eq 1
sleep 1.1
share "$RUN" --output "$TMP/b.tar.gz"
check "output: the same run packs to the same bytes, a second later" cmp -s "$TMP/a.tar.gz" "$TMP/b.tar.gz"
check "output: the same bytes as were uploaded" cmp -s "$TMP/a.tar.gz" "$TMP/first.tar.gz"
check "output: no temporary file left beside it" test "$(ls "$TMP" | grep -c 'tar\.gz\.tmp-')" -eq 0
share "$RUN" --output "$RUN/share.tar.gz"
check "output inside the results: refused (exit 2)" test $rc -eq 2
check "output inside the results: says why" contains "$TMP/err" "inside the results directory"
check "output inside the results: results unchanged" unchanged

# ---- tokens --------------------------------------------------------------
printf '%s\n' "$TOKEN" > "$TMP/token"
chmod 600 "$TMP/token"
start_server ok
share "$RUN" --url "$URL" --token-file "$TMP/token"
check "token file 0600: exit 0, the server saw the token" test $rc -eq 0 -a "$(grep -c ' auth=ok ' "$TMP/srv.log")" -eq 1
chmod 644 "$TMP/token"
share "$RUN" --url "$URL" --token-file "$TMP/token"
check "token file 0644: refused (exit 2)" test $rc -eq 2
check "token file 0644: says so and how to fix it" contains "$TMP/err" "permissions 0644 are too open.*chmod 600"
check "token file 0644: nothing uploaded" test "$(requests)" -eq 1
mkdir -p "$HOME/.config/bench-versions"
install -m 600 "$TMP/token" "$HOME/.config/bench-versions/token"
share "$RUN" --url "$URL"
check "default token file: used when nothing else is given" test $rc -eq 0 -a "$(requests)" -eq 2
check "default token file: named as the source" contains "$TMP/err" "token from .*/\.config/bench-versions/token"
rm -rf "$HOME/.config"
share "$RUN" --url "$URL"
check "no token anywhere: exit 2 with where to put one" test $rc -eq 2
check "no token: message" contains "$TMP/err" "no token: set BENCH_VERSIONS_TOKEN"
share "$RUN" --url "$URL" --token "$TOKEN"
check "--token on the command line: refused (exit 2)" test $rc -eq 2
check "--token: explains why" contains "$TMP/err" "no --token option.*visible to every user"
share "$RUN" --url "$URL" --token="$TOKEN"
check "--token=VALUE: refused too" test $rc -eq 2
BENCH_VERSIONS_TOKEN= share "$RUN" --url "$URL"
check "an empty BENCH_VERSIONS_TOKEN: exit 2, said" test $rc -eq 2
check "empty token message" contains "$TMP/err" "set but empty"
BENCH_VERSIONS_TOKEN="two words" share "$RUN" --url "$URL"
check "a token with a space: exit 2" test $rc -eq 2
check "tokens refused before any request" test "$(requests)" -eq 2
BENCH_VERSIONS_TOKEN="wrong-$TOKEN" share "$RUN" --url "$URL"
check "wrong token: the server's 401 is exit 2 at once" test $rc -eq 2 -a "$(requests)" -eq 3
check "wrong token: names the status and the server's message" contains "$TMP/err" "refused: HTTP 401 Unauthorized: missing or wrong bearer token \(check the token"
share "$RUN" --url "$URL" --no-token
check "--no-token: sends no Authorization header" test $rc -eq 2
check "--no-token: the server saw none" contains "$TMP/srv.log" "^n=4 .* auth=none "
check "tokens: results unchanged" unchanged

# ---- the URL -------------------------------------------------------------
share "$RUN" --url "http://example.invalid/up/" --no-token
check "http:// to another host: refused (exit 2)" test $rc -eq 2
check "http:// elsewhere: says why" contains "$TMP/err" "unencrypted; use https://, or --insecure-http"
share "$RUN" --url "http://user:hunter2@127.0.0.1:$PORT/runs/" --no-token
check "a password in the URL: refused (exit 2)" test $rc -eq 2
check "a password in the URL: not echoed" test "$(grep -c hunter2 "$TMP/err")" -eq 0
share "$RUN" --url "ftp://127.0.0.1/x" --no-token
check "ftp://: refused (exit 2)" test $rc -eq 2
start_server ok
BENCH_VERSIONS_TOKEN="$TOKEN" share "$RUN" --url "http://127.0.0.1:$PORT/exact/name.tgz"
check "a URL not ending in / is used as it is" test $rc -eq 0
check "exact URL: the PUT went there" contains "$TMP/srv.log" "^n=1 PUT /exact/name\.tgz "

# ---- servers that refuse -------------------------------------------------
for code in 401 403 413; do
	start_server "reject-$code"
	BENCH_VERSIONS_TOKEN="$TOKEN" share "$RUN" --url "$URL" --retries 3 --backoff 0
	check "reject-$code: exit 2" test $rc -eq 2
	check "reject-$code: no retry" test "$(requests)" -eq 1
	check "reject-$code: names the status" contains "$TMP/err" "refused: HTTP $code "
	check "reject-$code: results unchanged" unchanged
done
check "reject: the token the server echoed is cut out" contains "$TMP/err" "you sent Authorization: Bearer \[token\]"
start_server redirect
BENCH_VERSIONS_TOKEN="$TOKEN" share "$RUN" --url "$URL" --retries 3 --backoff 0
check "redirect: not followed (exit 2, one request)" test $rc -eq 2 -a "$(requests)" -eq 1
check "redirect: says where to and why not" contains "$TMP/err" "redirect to http://198\.51\.100\.7/elsewhere; share follows no redirects"

# ---- servers that fail ---------------------------------------------------
start_server fail-2
BENCH_VERSIONS_TOKEN="$TOKEN" share "$RUN" --url "$URL" --retries 3 --backoff 0
check "fail-2: retried and uploaded (exit 0)" test $rc -eq 0 -a "$(requests)" -eq 3
check "fail-2: each retry said" test "$(grep -c 'HTTP status 500; retrying in' "$TMP/err")" -eq 2
check "fail-2: what arrived is the run" same_as_run "$STORED" "$RUN"

start_server always-500
BENCH_VERSIONS_TOKEN="$TOKEN" share "$RUN" --url "$URL" --retries 2 --backoff 0
check "always-500: exit 3 after 1 + 2 attempts" test $rc -eq 3 -a "$(requests)" -eq 3
check "always-500: names the status, the server's message and the attempts" contains "$TMP/err" "failed: HTTP 500 Internal Server Error: storage backend unavailable \(gave up after 3 attempts\)"
check "always-500: results unchanged" unchanged

start_server retry-after-2
BENCH_VERSIONS_TOKEN="$TOKEN" share "$RUN" --url "$URL" --retries 2 --backoff 0
check "retry-after: uploaded on the second attempt" test $rc -eq 0 -a "$(requests)" -eq 2
check "retry-after: waited the 2 s the server asked for" lt 2 "$secs"
check "retry-after: said so" contains "$TMP/err" "the server asked for 2 s \(Retry-After\)"

start_server stall
BENCH_VERSIONS_TOKEN="$TOKEN" share "$RUN" --url "$URL" --retries 1 --timeout 2 --backoff 0
check "stall: exit 3 after 2 attempts" test $rc -eq 3 -a "$(requests)" -eq 2
check "stall: a clear timeout message" contains "$TMP/err" "timed out: nothing moved for 2 s \(--timeout 2\) \(gave up after 2 attempts\)"
check "stall: bounded time (2 x 2 s timeouts, < 12 s)" lt "$secs" 12
check "stall: results unchanged" unchanged

start_server drop
BENCH_VERSIONS_TOKEN="$TOKEN" share "$RUN" --url "$URL" --retries 1 --backoff 0
check "drop: a half answer is not success (exit 3, retried)" test $rc -eq 3 -a "$(requests)" -eq 2
check "drop: says the connection closed mid-answer" contains "$TMP/err" "connection closed in the middle of the server's answer"

start_server short-body
BENCH_VERSIONS_TOKEN="$TOKEN" share "$RUN" --url "$URL" --retries 1 --backoff 0
check "short-body: less than Content-Length is a failure (exit 3, retried)" test $rc -eq 3 -a "$(requests)" -eq 2
check "short-body: says what was missing" contains "$TMP/err" "transfer closed with [0-9]+ bytes remaining"

start_server flood
BENCH_VERSIONS_TOKEN="$TOKEN" share "$RUN" --url "$URL" --retries 1 --backoff 0
check "flood: an endless answer is cut off (exit 3)" test $rc -eq 3
check "flood: says so" contains "$TMP/err" "answer is larger than 1024 KiB"

stop_server
BENCH_VERSIONS_TOKEN="$TOKEN" share "$RUN" --url "$URL" --retries 1 --backoff 0
check "no server: exit 3 after retrying" test $rc -eq 3
check "no server: curl's reason and the attempts" contains "$TMP/err" "(Connection refused|Couldn't connect).*\(gave up after 2 attempts\)"
check "failures: results unchanged" unchanged

# ---- what is never packed --------------------------------------------------
start_server ok
cp -a "$RUN" "$TMP/copy"
COPY="$TMP/copy"
ln -s /etc/passwd "$COPY/passwd"
BENCH_VERSIONS_TOKEN="$TOKEN" share "$COPY" --url "$URL"
check "a symlink in the results: refused (exit 2)" test $rc -eq 2
check "symlink: named" contains "$TMP/err" "copy/passwd is a symlink: share packs regular files only"
rm "$COPY/passwd"
mkfifo "$COPY/raw/pipe"
BENCH_VERSIONS_TOKEN="$TOKEN" timeout 20 "$BV" share "$COPY" --url "$URL" > "$TMP/out" 2> "$TMP/err"
rc=$?
cat "$TMP/out" "$TMP/err" >> "$TMP/all-output"
check "a fifo: refused at once, never opened (exit 2)" test $rc -eq 2
check "fifo: named" contains "$TMP/err" "raw/pipe is a FIFO"
rm "$COPY/raw/pipe"
truncate -s 2G "$COPY/huge.bin"
BENCH_VERSIONS_TOKEN="$TOKEN" share "$COPY" --url "$URL"
check "2 GiB of results: refused before reading (exit 2)" test $rc -eq 2 -a "$(python3 -c "print(int($secs < 10))")" -eq 1
check "too large: says the limit" contains "$TMP/err" "huge.bin: refused: with it the results hold more than 1024 MiB"
rm "$COPY/huge.bin"
echo "env: BENCH_VERSIONS_TOKEN=$TOKEN" > "$COPY/raw/runner.env"
BENCH_VERSIONS_TOKEN="$TOKEN" share "$COPY" --url "$URL"
check "results holding the token: refused (exit 2)" test $rc -eq 2
check "token in the results: the file is named" contains "$TMP/err" "raw/runner.env holds the upload token"
rm "$COPY/raw/runner.env"
# A log compare would refuse (here a cell twice) is not shared, even beside good ones.
log=$(ls "$COPY"/*.json | head -1)
cp "$log" "$TMP/log.keep"
python3 - "$log" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["cells"].append(d["cells"][0])
json.dump(d, open(sys.argv[1], "w"))
PY
BENCH_VERSIONS_TOKEN="$TOKEN" share "$COPY" --url "$URL"
check "a results log compare would refuse: not shared (exit 2)" test $rc -eq 2
check "broken log: the file and the cell are named" contains "$TMP/err" "$(basename "$log"): cells\[[0-9]+\] \(.*\): the same cell as cells\[0\]"
cp "$TMP/log.keep" "$log"
check "refused packs: nothing uploaded" test "$(requests)" -eq 0
share "$TMP/results" --url "$URL" --no-token
check "the results root instead of one run: exit 2" test $rc -eq 2
check "results root: says to name one run" contains "$TMP/err" "holds no results log .*name one run's directory"
share "$TMP/nonexistent" --url "$URL" --no-token
check "a missing directory: exit 2" test $rc -eq 2
share
check "no arguments: usage error (exit 2)" test $rc -eq 2
share "$RUN"
check "neither --url nor --output: usage error (exit 2)" test $rc -eq 2
share "$RUN" --url "$URL" --retries many
check "a bad --retries: usage error (exit 2)" test $rc -eq 2
"$BV" share --help > "$TMP/out"
check "--help exits 0 and shows the usage" contains "$TMP/out" "^usage: bench-versions share RESULTS_DIR"

# ---- secrets -------------------------------------------------------------
check "the results were never changed" unchanged
check "no temporary archive left in TMPDIR" no_temp_left
check "the token is in no output of any case" test "$(grep -cF -- "$TOKEN" "$TMP/all-output")" -eq 0
check "the token is in no file of the results" test -z "$(grep -rlF -- "$TOKEN" "$RUN")"
cat "$TMP/srv.log" >> "$TMP/srv.all"
touch "$TMP/srv.err"
check "the server saw the token (so the checks below can fail)" contains "$TMP/srv.all" " auth=ok "
check "the token is in nothing the server logged" test -z "$(grep -lF -- "$TOKEN" "$TMP/srv.all" "$TMP/srv.err")"
finish
