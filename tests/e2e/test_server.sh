#!/usr/bin/env bash
# End to end: server/bv-server, the receiving side of share, on a real nginx
# (Debian's, with its dav module) on loopback.  `bench-versions share`
# uploads a results directory to it: the archive lands in DIR/incoming under
# a name the server picks, byte for byte what share packed; no token, a
# wrong one, one in the wrong case, a body over --max-upload, a PUT anywhere
# but /runs/ or with a path that climbs out are all refused with nothing
# written; nothing uploaded can be read back; the site is served from
# DIR/site without its dot-files.  Bad token files stop `start` before any
# nginx runs, `stop` leaves none.  Run by root (as CI does), it also starts
# one whose DIR belongs to `nobody` (the workers must run as nobody) and one
# started by nobody.
source "$(dirname "$0")/lib.sh"

SRV="$ROOT/server/bv-server"
TOKEN="bvt-$(python3 -c 'import secrets; print(secrets.token_hex(16))')"
# Nothing of the caller's: no default token file, no token in the environment.
export HOME="$TMP/home" TMPDIR="$TMP/tmpdir"
unset XDG_CONFIG_HOME BENCH_VERSIONS_TOKEN
mkdir -p "$HOME" "$TMPDIR"

# Every DIR a server was started on; each is stopped on the way out,
# whatever happened (bv-server stop DIR is a no-op where none runs).
STARTED=()
NOBODY_TMP=
cleanup() {
	local d
	for d in ${STARTED[@]+"${STARTED[@]}"}; do "$SRV" stop "$d" > /dev/null 2>&1; done
	[ -z "$NOBODY_TMP" ] || [ -n "${KEEP_TMP:-}" ] || rm -rf "$NOBODY_TMP"
	[ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"
}
trap cleanup EXIT

# start_server DIR [ARGS...]: bv-server start on a free loopback port (a
# random high one; another if nginx finds it taken).  Sets PORT and URL;
# output in $TMP/start.out and .err, status in $rc.
start_server() {
	local dir=$1 try
	shift
	STARTED+=("$dir")
	for try in $(seq 20); do
		PORT=$((20000 + RANDOM % 40000))
		"$SRV" start "$dir" --listen "127.0.0.1:$PORT" "$@" > "$TMP/start.out" 2> "$TMP/start.err"
		rc=$?
		grep -q 'already in use' "$TMP/start.err" || break
	done
	URL="http://127.0.0.1:$PORT/runs/"
}
# alive PID: a process that is not a zombie (no init may reap a daemon here).
alive() { local s; s=$(awk '{print $3}' "/proc/$1/stat" 2> /dev/null) && [ -n "$s" ] && [ "$s" != Z ]; }
# nginx_of DIR: a live nginx whose command line names DIR's configuration.
nginx_of() {
	local p
	for p in $(pgrep -x nginx); do
		alive "$p" && tr '\0' ' ' < "/proc/$p/cmdline" 2> /dev/null | grep -qF "$1/nginx/" && return 0
	done
	return 1
}
no_nginx_of() { ! nginx_of "$1"; }
dead() { ! alive "$1"; }
all_dead() { local p; for p in "$@"; do alive "$p" && return 1; done; return 0; }
lacks_bad_tokens() { lacks qrs "$TMP/start.out" "$TMP/start.err" && lacks 'def;' "$TMP/start.out" "$TMP/start.err"; }
# workers_users PID: the users the children of PID run as, one line each.
workers_users() { local w; for w in $(pgrep -P "$1"); do stat -c %U "/proc/$w"; done | sort -u; }
not_same() { ! cmp -s "$1" "$2"; }
not_contains() { ! contains "$@"; }
lacks() { ! grep -rqF -- "$@"; } # lacks STRING FILE...: no FILE holds STRING
code() { # METHOD URL [curl args...]: the HTTP status only
	local m=$1 u=$2
	shift 2
	curl -s -o "$TMP/body" -w '%{http_code}' --path-as-is -X "$m" "$@" "$u"
}
put() { # PATH [TOKEN]: a PUT of a small body with the token, its status
	echo data | curl -s -o "$TMP/body" -w '%{http_code}' --path-as-is -T - \
		-H "Authorization: Bearer ${2:-$TOKEN}" "http://127.0.0.1:$PORT$1"
}
# tree DIR: every path under DIR with its type, size and content hash, but
# the logs (every request adds to them).
tree() {
	(cd "$1" && find . -path ./nginx/logs -prune -o -printf '%y %s %p\n' | LC_ALL=C sort &&
		find . -path ./nginx/logs -prune -o -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
}
arrived() { find "$1/incoming" -mindepth 1 | wc -l; }

# ---- a run to share: the two logs tests/e2e/fixtures/plugin_path holds --
NAME=20261206T134557Z
RUN="$TMP/results/$NAME"
mkdir -p "$RUN"
cp "$E2E/fixtures/plugin_path/"*.json "$RUN/"

# ---- bad token files: refused before anything runs -----------------------
printf '%s\n' "$TOKEN" > "$TMP/tokens"
: > "$TMP/tok.empty"
printf '%s\n' "$TOKEN" "abcdefghijklmnop qrs" > "$TMP/tok.space"
printf '%s\n' "\"$TOKEN\"" > "$TMP/tok.quote"
printf '%s\n' 'abc$def;ghijklmnopq' > "$TMP/tok.dollar"
for bad in empty space quote dollar; do
	D="$TMP/bad-$bad"
	start_server "$D" --token-file "$TMP/tok.$bad"
	check "token file ($bad): start refused (exit 1)" test $rc -eq 1
	check "token file ($bad): says what is wrong with the file" contains "$TMP/start.err" "token file '$TMP/tok\.$bad'.*(holds no token|line [0-9]+: a token may only hold)"
	check "token file ($bad): no nginx left running" no_nginx_of "$D"
	check "token file ($bad): the tokens are not printed" lacks "$TOKEN" "$TMP/start.out" "$TMP/start.err"
	check "token file ($bad): nor the bad ones" lacks_bad_tokens
done

# ---- the server ----------------------------------------------------------
DIR="$TMP/srv"
start_server "$DIR" --token-file "$TMP/tokens"
check "start: exit 0" test $rc -eq 0
check "start: says where it listens and where uploads land" contains "$TMP/start.out" "listens on 127\.0\.0\.1:$PORT: uploads to http://127\.0\.0\.1:$PORT/runs/ land in $DIR/incoming"
check "start: the layout (incoming, site, nginx/nginx.conf, tokens.map, logs, tmp)" \
	test -d "$DIR/incoming" -a -d "$DIR/site" -a -s "$DIR/nginx/nginx.conf" -a -s "$DIR/nginx/tokens.map" -a -d "$DIR/nginx/logs" -a -d "$DIR/nginx/tmp"
check "start: the generated configuration holds no token" lacks "$TOKEN" "$DIR/nginx/nginx.conf" "$TMP/start.out" "$TMP/start.err"
PID=$(cat "$DIR/nginx/nginx.pid")
check "start: nginx runs (the pid file's process)" alive "$PID"
"$SRV" status "$DIR" > "$TMP/status.out" 2>&1
check "status: running (exit 0, the pid)" test $? -eq 0 -a "$(grep -c "running: nginx pid $PID, listening on 127.0.0.1:$PORT" "$TMP/status.out")" -eq 1

# The address taken: a second server on the same port says so.
A_PORT=$PORT
"$SRV" start "$TMP/second" --listen "127.0.0.1:$A_PORT" --token-file "$TMP/tokens" > "$TMP/start.out" 2> "$TMP/start.err"
rc=$?
STARTED+=("$TMP/second")
check "port in use: start refused (exit 1)" test $rc -eq 1
check "port in use: says so" contains "$TMP/start.err" "127\.0\.0\.1:$A_PORT is already in use"
check "port in use: no nginx left for it" no_nginx_of "$TMP/second"
PORT=$A_PORT
URL="http://127.0.0.1:$PORT/runs/"
"$SRV" start "$DIR" --listen "127.0.0.1:$((PORT + 1))" --token-file "$TMP/tokens" > /dev/null 2> "$TMP/start.err"
check "already running: a second start of DIR is refused, naming the pid" test $? -eq 1 -a "$(grep -c "already runs for $DIR (nginx pid $PID)" "$TMP/start.err")" -eq 1

printf '<!doctype html><title>site</title><p>bench-versions results</p>\n' > "$DIR/site/index.html"
echo "not for you" > "$DIR/site/.hidden"
tree "$DIR" > "$TMP/tree.0"

# ---- share uploads -------------------------------------------------------
share() {
	"$BV" share "$@" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	cat "$TMP/out" "$TMP/err" >> "$TMP/all-output"
}
BENCH_VERSIONS_TOKEN="$TOKEN" share "$RUN" --url "$URL" --output "$TMP/sent.tar.gz" --retries 0
check "share: exit 0" test $rc -eq 0
check "share: HTTP 201" contains "$TMP/out" "^uploaded: http://127\.0\.0\.1:$PORT/runs/$NAME\.tar\.gz \(HTTP 201\)$"
check "share: exactly one file arrived in incoming" test "$(arrived "$DIR")" -eq 1
STORED=$(find "$DIR/incoming" -mindepth 1 | head -1)
STORED_NAME=$(basename "$STORED")
check "share: stored under the server's name, <msec>-<request id>.tar.gz, not the run's" \
	bash -c "[[ '$STORED_NAME' =~ ^[0-9]+\.[0-9]{3}-[0-9a-f]{32}\.tar\.gz$ ]]"
sha=$(sha256sum "$STORED" | cut -d' ' -f1)
check "share: what arrived has the sha256 share printed" contains "$TMP/err" "sha256 $sha$"
check "share: what arrived is the archive share packed, byte for byte" cmp -s "$STORED" "$TMP/sent.tar.gz"
check "share: nothing left in the temp directory" test -z "$(find "$DIR/nginx/tmp" -type f)"

# The rest of the checks refuse things: nothing new may appear anywhere in DIR.
tree "$DIR" > "$TMP/tree.1"
unchanged() { tree "$DIR" > "$TMP/tree.now" && cmp -s "$TMP/tree.1" "$TMP/tree.now"; }

share "$RUN" --url "$URL" --no-token --retries 0
check "no token: refused (exit 2)" test $rc -eq 2
check "no token: share names the 401 and the server's message" contains "$TMP/err" "HTTP 401.*a valid upload token is required"
check "no token: nothing new in DIR" unchanged
BENCH_VERSIONS_TOKEN="bvt-$(python3 -c 'import secrets; print(secrets.token_hex(16))')" share "$RUN" --url "$URL" --retries 0
check "wrong token: refused (exit 2, 401)" test $rc -eq 2 -a "$(grep -c 'HTTP 401' "$TMP/err")" -ge 1
check "wrong token: nothing new in DIR" unchanged
# A plain string key of an nginx map matches without regard to case: the
# token must not.
BENCH_VERSIONS_TOKEN="${TOKEN^^}" share "$RUN" --url "$URL" --retries 0
check "token in upper case: refused (exit 2, 401)" test $rc -eq 2 -a "$(grep -c 'HTTP 401' "$TMP/err")" -ge 1
check "token with a prefix or a suffix: refused" test "$(put /runs/x "x$TOKEN")" = 401 -a "$(put /runs/x "${TOKEN}x")" = 401
check "token in upper case etc.: nothing new in DIR" unchanged

# ---- PUT anywhere else, or climbing out ----------------------------------
for p in '/runs/../../etc/bv-server-x' '/runs/%2e%2e%2fbv-server-x' '/runs/..%2f..%2fbv-server-x' \
	'/runs/%2e%2e/%2e%2e/bv-server-x' '/incoming/bv-server-x' '/site/bv-server-x' '/bv-server-x' \
	'/nginx/bv-server-x' '/runs/'; do
	st=$(put "$p")
	check "PUT $p with the token: refused ($st)" test "${st:0:1}" = 4
done
check "PUTs elsewhere: nothing new in DIR" unchanged
check "PUTs elsewhere: nothing written outside DIR" test ! -e /etc/bv-server-x -a ! -e "$TMP/bv-server-x" -a ! -e /bv-server-x

# ---- nothing uploaded can be read back -----------------------------------
st=$(code GET "$URL$STORED_NAME")
check "GET /runs/<the stored name>: refused ($st)" test "${st:0:1}" = 4 -a "$(grep -c . "$TMP/body")" -le 2
check "GET /runs/<the stored name>: not the archive" not_same "$TMP/body" "$STORED"
for p in /runs/ "/runs/$NAME.tar.gz" "/incoming/$STORED_NAME" /incoming/ /nginx/nginx.conf /nginx/tokens.map; do
	st=$(code GET "http://127.0.0.1:$PORT$p")
	check "GET $p: refused ($st)" test "${st:0:1}" = 4
done
for m in DELETE MOVE COPY MKCOL POST PROPFIND; do
	st=$(code "$m" "$URL$STORED_NAME" -H "Authorization: Bearer $TOKEN")
	check "$m /runs/<the stored name> with the token: refused ($st)" test "${st:0:1}" = 4
done
check "other methods: nothing changed in DIR" unchanged

# ---- the site ------------------------------------------------------------
st=$(code GET "http://127.0.0.1:$PORT/" -D "$TMP/headers")
check "GET /: 200" test "$st" = 200
check "GET /: site/index.html" cmp -s "$TMP/body" "$DIR/site/index.html"
check "GET /: X-Content-Type-Options: nosniff" contains "$TMP/headers" "^X-Content-Type-Options: nosniff"
check "GET /: a Content-Security-Policy header that forbids framing and plugins" \
	contains "$TMP/headers" "^Content-Security-Policy: .*object-src 'none'.*frame-ancestors 'none'"
check "GET /: the header leaves scripts to the page's own policy (no script-src, no default-src)" \
	not_contains "$TMP/headers" "^Content-Security-Policy: .*(script-src|default-src)"
check "HEAD /: 200" test "$(curl -s -o /dev/null -w '%{http_code}' -I "http://127.0.0.1:$PORT/")" = 200
for p in /.hidden /%2ehidden /nginx/.hidden; do
	st=$(code GET "http://127.0.0.1:$PORT$p")
	check "GET $p: 404" test "$st" = 404 -a "$(grep -c 'not for you' "$TMP/body")" -eq 0
done
st=$(code PUT "http://127.0.0.1:$PORT/index.html" -H "Authorization: Bearer $TOKEN" --data-binary x)
check "PUT /index.html: refused ($st)" test "${st:0:1}" = 4
check "PUT /index.html: the page unchanged" unchanged

# Both policies in a real browser: a page as publish writes it (its <meta>
# policy names its one inline script's sha256) gets that script run under
# the header's policy, and a second, injected script does not run.
SCRIPT='document.getElementById("s").textContent = "script-ran";'
HASH=$(printf '%s' "$SCRIPT" | openssl dgst -sha256 -binary | base64)
cat > "$DIR/site/csp.html" <<EOF
<!doctype html><html><head>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-$HASH'">
</head><body><p id="s">no-script</p><p id="i">not-injected</p>
<script>$SCRIPT</script>
<script>document.getElementById("i").textContent = "injected-ran";</script>
</body></html>
EOF
chrome --dump-dom "http://127.0.0.1:$PORT/csp.html" > "$TMP/csp.dom"
check "browser: the page's hashed inline script runs under the header's policy" contains "$TMP/csp.dom" '<p id="s">script-ran</p>'
check "browser: a script the page's policy does not name does not run" contains "$TMP/csp.dom" '<p id="i">not-injected</p>'
rm -f "$DIR/site/csp.html"

# ---- over --max-upload ---------------------------------------------------
SMALL="$TMP/small"
start_server "$SMALL" --token-file "$TMP/tokens" --max-upload 4k
check "max-upload 4k: started" test $rc -eq 0
BENCH_VERSIONS_TOKEN="$TOKEN" share "$RUN" --url "$URL" --retries 0
check "over max-upload: refused (exit 2)" test $rc -eq 2
check "over max-upload: share names the 413 and the limit" contains "$TMP/err" "HTTP 413.*larger than this server accepts \(4k\)"
check "over max-upload: nothing in incoming, no temp file left" test "$(arrived "$SMALL")" -eq 0 -a -z "$(find "$SMALL/nginx/tmp" -type f)"

# ---- stop ----------------------------------------------------------------
WORKERS=$(pgrep -P "$PID" | tr '\n' ' ')
check "stop: the master had workers" test -n "$WORKERS"
"$SRV" stop "$DIR" > "$TMP/stop.out" 2>&1
check "stop: exit 0" test $? -eq 0
check "stop: nginx's master is gone" dead "$PID"
check "stop: its workers are gone" all_dead $WORKERS
check "stop: no nginx of DIR left" no_nginx_of "$DIR"
"$SRV" status "$DIR" > /dev/null 2>&1
check "status after stop: not running (exit 3)" test $? -eq 3
"$SRV" stop "$SMALL" > /dev/null 2>&1
check "stop (second server): no nginx of it left" no_nginx_of "$SMALL"

# ---- run by root: the workers as DIR's owner; started by a user ----------
if [ "$(id -u)" -eq 0 ] && command -v runuser > /dev/null && id nobody > /dev/null 2>&1 &&
	runuser -u nobody -- test -x "$SRV"; then
	# $TMP is root's alone (mktemp -d): nobody needs a directory it can reach.
	NOBODY_TMP=$(mktemp -d /tmp/bv-e2e-nobody-XXXXXX)
	chmod 755 "$NOBODY_TMP"
	install -m 644 "$TMP/tokens" "$NOBODY_TMP/tokens"
	OWNED="$NOBODY_TMP/owned"
	mkdir "$OWNED"
	chown nobody: "$OWNED"
	start_server "$OWNED" --token-file "$TMP/tokens"
	check "root, DIR owned by nobody: started, says the workers run as its owner" \
		test $rc -eq 0 -a "$(grep -c 'the workers run as nobody:' "$TMP/start.out")" -eq 1
	OPID=$(cat "$OWNED/nginx/nginx.pid" 2> /dev/null)
	check "root, DIR owned by nobody: the workers are nobody's" \
		test "$(workers_users "${OPID:-0}")" = nobody
	check "root, DIR owned by nobody: an upload is 201, the file nobody's" \
		test "$(put /runs/x)" = 201 -a "$(stat -c %U "$(find "$OWNED/incoming" -type f | head -1)")" = nobody
	"$SRV" stop "$OWNED" > /dev/null 2>&1

	USERS="$NOBODY_TMP/user"
	mkdir "$USERS"
	chown nobody: "$USERS"
	STARTED+=("$USERS/d")
	for try in $(seq 20); do
		PORT=$((20000 + RANDOM % 40000))
		runuser -u nobody -- env PATH=/usr/bin:/bin "$SRV" start "$USERS/d" --listen "127.0.0.1:$PORT" \
			--token-file "$NOBODY_TMP/tokens" > "$TMP/start.out" 2> "$TMP/start.err"
		rc=$?
		grep -q 'already in use' "$TMP/start.err" || break
	done
	check "started by nobody (PATH without /usr/sbin): exit 0" test $rc -eq 0
	check "started by nobody: an upload is 201" test "$(put /runs/x)" = 201 -a "$(arrived "$USERS/d")" -eq 1
	runuser -u nobody -- "$SRV" stop "$USERS/d" > /dev/null 2>&1
	check "started by nobody: stopped by nobody" no_nginx_of "$USERS/d"
else
	skip "root, DIR owned by another user; started by a user" "not root, or no runuser or nobody here"
fi

check "the token never showed up in share's output" lacks "$TOKEN" "$TMP/all-output"
check "the token never showed up in nginx's logs" lacks "$TOKEN" "$DIR/nginx/logs"

exit $((failures > 0))
