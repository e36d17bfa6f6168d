#!/usr/bin/env bash
# End to end: the community side.  The real server (server/bv-server: nginx
# from Debian, on loopback) receives two machine classes' runs from `share`
# (BENCH_VERSIONS_CLASS), a run whose names are hostile, and hostile
# uploads; `publish` turns what arrived into the static site, and headless
# Chromium reads the site through the same server: the index lists both
# classes, a cell's page shows both classes' series, the backends page names
# each class's fastest backend, the refused uploads are listed with their
# reasons, and names holding <script> or "onload= show as text and run
# nothing (the browser's DOM says so, not a grep of the files).  Path
# traversal, a symlink, an oversized and a truncated archive and a forged
# log are each refused with their reason, the published pages and data
# unchanged.  BV_SCREENSHOTS=DIR keeps the browser's screenshots of the
# index and of a cell's page there (docs/images/ holds the ones the docs show).
source "$(dirname "$0")/lib.sh"
make_fixture
plant_relu_slowdown
echo 0.1.5 > "$FIX/kernels/VERSION"
git -C "$FIX" commit -qam "relu: three passes (planted slowdown)"

command -v nginx > /dev/null 2>&1 || [ -x /usr/sbin/nginx ] || {
	skip "publish: the site from a real server" "nginx is not installed (make test-deps installs it)"
	finish
}

# ---- the walk-through, as docs/community.md writes it ----------------------
# Two machine classes run and share; the server receives; publish makes the
# site.  Run from the repository's top, with bench-versions on PATH, HOME
# here, and a free port for the page's 8080.
export HOME="$TMP/home" TMPDIR="$TMP/tmpdir"
mkdir -p "$HOME" "$TMP/path" "$TMPDIR"
ln -s "$BV" "$TMP/path/bench-versions"
export PATH="$TMP/path:$PATH"
unset BENCH_VERSIONS_TOKEN XDG_CONFIG_HOME
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 - "$ROOT/docs/community.md" "$PORT" > "$TMP/walk.sh" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
m = re.search(r"<!-- walk-through -->\n```sh\n(.*?)```\n<!-- end walk-through -->", text, re.S)
assert m, "docs/community.md: no walk-through block between its markers"
block = m.group(1)
assert block.startswith("PORT=8080\n"), "the walk-through's first line is no longer PORT=8080"
print("set -e")
print("PORT=%s" % sys.argv[2] + block[len("PORT=8080"):])
PY
SRV="$HOME/bench/srv"
stop_server() { [ -d "$SRV" ] && "$ROOT/server/bv-server" stop "$SRV" > /dev/null 2>&1; }
trap 'stop_server; [ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP"' EXIT
(cd "$ROOT" && bash "$TMP/walk.sh") > "$TMP/walk.out" 2> "$TMP/walk.err"
rc=$?
check "docs/community.md's walk-through runs as written: exit 0" test $rc -eq 0
[ $rc -eq 0 ] || tail -20 "$TMP/walk.err"
URL="http://127.0.0.1:$PORT"
TOKEN=$(head -1 "$HOME/bench/tokens")
check "both uploads arrived" test "$(ls "$SRV/incoming"/*.tar.gz 2> /dev/null | wc -l)" -eq 2
check "publish imported both" contains "$TMP/walk.err" "publish: 2 new runs, 0 already published"
# The docs' screenshots: the site as the walk-through leaves it
if [ -n "${BV_SCREENSHOTS:-}" ]; then
	mkdir -p "$BV_SCREENSHOTS"
	chrome --window-size=1200,1000 --hide-scrollbars --screenshot="$BV_SCREENSHOTS/site-index.png" "$URL/index.html" > /dev/null
	chrome --window-size=1200,1000 --hide-scrollbars --screenshot="$BV_SCREENSHOTS/site-cell.png" \
		"$URL/cells/unary-relu-scalar-64K.html" > /dev/null
	check "screenshots of the index and relu's page" test -s "$BV_SCREENSHOTS/site-index.png" -a -s "$BV_SCREENSHOTS/site-cell.png"
fi
RUN_A=$(readlink -f "$HOME/lab/latest")
RUN_B=$(readlink -f "$HOME/ci/latest")
export BENCH_VERSIONS_TOKEN="$TOKEN"

# A run whose names are hostile (hostile_uploads.py): an op, the machine's
# CPU and a version's label holding markup.  It is a good run otherwise, so
# it is published, and every one of its names must show as text.
python3 "$E2E/hostile_uploads.py" names "$RUN_A" "$TMP/hostile.tar.gz"
put() { # FILE: the HTTP status of a PUT with the token
	curl -s -o /dev/null -w '%{http_code}' -X PUT -H "Authorization: Bearer $TOKEN" --data-binary "@$1" \
		"$URL/runs/$(basename "$1")"
}
check "the hostile-named run is received" test "$(put "$TMP/hostile.tar.gz")" = 201

"$BV" publish --site "$SRV/site" --incoming "$SRV/incoming" > "$TMP/pub.out" 2> "$TMP/pub.err"
check "publish: exit 0" test $? -eq 0
check "publish: the new run" contains "$TMP/pub.err" "1 new run, 2 already published"
check "publish: nothing quarantined" contains "$TMP/pub.err" ", 0 quarantined"
STORE="$SRV/site.sqlite"
check "the store is beside the site, not in it" test -s "$STORE" -a ! -e "$SRV/site/site.sqlite"

# ---- the same again: one run ------------------------------------------------
"$BV" share "$RUN_A" --url "$URL/runs/" > /dev/null 2>&1
"$BV" publish --site "$SRV/site" --incoming "$SRV/incoming" "$RUN_B" > "$TMP/pub2.out" 2> "$TMP/pub2.err"
check "publishing again: exit 0" test $? -eq 0
check "the same archive again and the same run from its directory add no run" \
	contains "$TMP/pub2.err" "0 new runs, 4 already published, 1 copy of a run already there"
check "the store holds three runs" test "$(sqlite3 "$STORE" 'select count(*) from runs')" = 3
# each version's tree as its log gives it (what names a working tree)
check "the store keeps each version's tree" test "$(sqlite3 "$STORE" \
	"select count(*) from versions where tree is null or length(tree) != 40")" = 0

# ---- hostile uploads: each refused with its reason, the site unchanged ------
site_state() { # every published page and data file but the quarantine's, with its sha256
	(cd "$SRV/site" && find . -type f ! -name 'quarantine*' -print0 | sort -z | xargs -0 sha256sum)
}
site_state > "$TMP/site.before"
python3 "$E2E/hostile_uploads.py" bad "$RUN_A" "$TMP/bad"
check "the server refuses an upload over its limit (413), nothing lands" \
	test "$(put "$TMP/bad/oversized.tar.gz")" = 413 -a "$(ls "$SRV/incoming"/*.tar.gz | wc -l)" -eq 4
for b in traversal symlink truncated forged; do
	check "the server receives the $b archive" test "$(put "$TMP/bad/$b.tar.gz")" = 201
done
# one that came another way than the server (copied in): publish's own limit
cp "$TMP/bad/oversized.tar.gz" "$SRV/incoming/99999-oversized.tar.gz"
"$BV" publish --site "$SRV/site" --incoming "$SRV/incoming" > "$TMP/pub3.out" 2> "$TMP/pub3.err"
check "publish with bad uploads: exit 0 (they are listed, not failures)" test $? -eq 0
check "publish: five quarantined" contains "$TMP/pub3.err" ", 5 quarantined"
reason_of() { # PATTERN: the reason file of the upload whose reason says PATTERN
	grep -lE -- "$1" "$SRV/incoming/quarantine"/*.reason 2> /dev/null | head -1
}
check "traversal: refused for its '..'" test -n "$(reason_of "has a '\.\.' component")"
check "symlink: refused as a symlink" test -n "$(reason_of "is a symlink")"
check "truncated: refused as truncated" test -n "$(reason_of "truncated")"
check "forged: refused, naming the changed figure" \
	test -n "$(reason_of "median_ns .* is not the median of its process_medians_ns")"
check "oversized: refused before it is read" test -n "$(reason_of "over the 67108864-byte limit")"
check "the quarantined uploads left incoming" test "$(ls "$SRV/incoming"/*.tar.gz | wc -l)" -eq 4
site_state > "$TMP/site.after"
check "the published pages and data are unchanged" cmp -s "$TMP/site.before" "$TMP/site.after"
check "nothing escaped the unpacking" test ! -e "$TMPDIR/escaped.json" -a ! -e "$TMP/escaped.json"
check "publish left no temporary directory" test -z "$(ls "$TMPDIR" | grep bv-publish)"

# ---- the site in a browser, through the server ------------------------------
dom() { # PAGE: the DOM after the page's scripts ran, in $TMP/dom-<page's name>
	local out="$TMP/dom-$(echo "$1" | tr '/' '_')"
	chrome --virtual-time-budget=3000 --dump-dom "$URL/$1" > "$out"
	echo "$out"
}
idx=$(dom index.html)
check "chromium rendered the index" contains "$idx" "</html>"
check "the index lists both classes" bash -c "grep -q '>lab-avx512<' '$idx' && grep -q '>ci-small<' '$idx'"
cell=$(dom cells/unary-relu-scalar-64K.html)
check "relu's page shows a series for each class" \
	bash -c "[ \$(grep -o 'lab-avx512' '$cell' | wc -l) -ge 2 ] && [ \$(grep -o 'ci-small' '$cell' | wc -l) -ge 2 ]"
check "relu's page draws its chart" contains "$cell" "<svg"
# Against the store: every run that called relu slower has its row in the
# verdicts table (its own claim), and the chart's marks are the change
# points: each class's run paired 0.1.0 with the next version it measured
# (main, or the hostile run's label) in the same processes, relu there 3x
# slower, so each class whose run called it slower has one slower change
# point between the two, its ratio the median of the run's process ratios
# (changes.proc_ratio), and there is no other mark.
check "relu's page: the store's verdicts each a row, its change points each a marker" python3 - "$cell" "$STORE" <<'PY'
import html, re, sqlite3, statistics, struct, sys
dom, db = open(sys.argv[1]).read(), sqlite3.connect(sys.argv[2])
called = db.execute("select c.class, x.baseline, x.version, x.proc_ratio from changes x join runs c on c.key = x.run "
                    "where x.bench = 'unary' and x.op = 'relu' and x.backend = 'scalar' and x.size = 65536 "
                    "and x.verdict = 'slower'").fetchall()
assert db.execute("select count(*) from changes where op = 'relu' and backend = 'scalar' and size = 65536 "
                  "and version = 'main' and verdict = 'slower'").fetchone()[0] > 0, "no run called the planted slowdown slower"
table = dom.split("<h2>Paired verdicts</h2>", 1)[1].split("</table>", 1)[0]
rows = re.findall(r"<tr><td>([^<]*)</td>.*?<td class=\"(\w+)\">(\w+) \(paired\)</td></tr>", table)
classes = sorted(c[0] for c in called)
assert sorted(html.unescape(r[0]) for r in rows if r[1:] == ("slower", "slower")) == classes, (rows, classes)
titles = [html.unescape(t) for t in re.findall(r"<title>([^<]*)</title>", dom)]
marks = [t for t in titles if t.startswith("change point on ")]
assert len(marks) == len(called), (marks, called)
for cls, base, version, blob in called:
    assert blob, "no process ratios stored for %s's %s" % (cls, version)
    want = statistics.median(struct.unpack("<%dd" % (len(blob) // 8), blob))
    head = "change point on %s: %s -> " % (cls, base)
    mine = [t for t in marks if t.startswith(head) and ", slower, " in t]
    assert len(mine) == 1, (head, marks)
    got = float(re.search(r", ([0-9.]+)x \[", mine[0]).group(1))
    assert want > 2 and abs(got - want) < 0.006, (mine[0], want)
assert dom.count('fill="#cf222e"') == len(called), dom.count('fill="#cf222e"')
assert dom.count('fill="#1a7f37"') == 0, "a faster change point on relu"
PY
bk=$(dom backends.html)
# The fastest backend per class, as the browser shows it, against the store:
# relu at 64K on each class's newest version (main), the backend of least
# median in that class's run.
check "the backends page names each class's fastest backend for relu 64K" python3 - "$bk" "$STORE" <<'PY'
import re, sqlite3, sys
dom, db = open(sys.argv[1]).read(), sqlite3.connect(sys.argv[2])
section = dom.split("<h3>unary relu 64K</h3>", 1)[1].split("</table>", 1)[0]
rows = {}
for tr in re.findall(r"<tr>(.*?)</tr>", section, re.S)[1:]:
    tds = re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S)
    rows[tds[0]] = re.sub("<[^>]+>", "", tds[-3])
for cls in ("lab-avx512", "ci-small"):
    (want,) = db.execute(
        "select c.backend from cells c join runs r on r.key = c.run where r.class = ? and c.version = 'main'"
        " and c.op = 'relu' and c.size = 65536 and c.status = 'ok' order by c.median_ns limit 1", (cls,)).fetchone()
    assert rows.get(cls) == want, (cls, rows.get(cls), want, rows)
print("fastest:", rows)
PY
reg=$(dom regressions.html)
check "regressions: relu on main, for each class" bash -c "grep -q 'relu' '$reg' && grep -q 'lab-avx512' '$reg' && grep -q 'ci-small' '$reg'"
q=$(dom quarantine.html)
check "the quarantine page lists each refused upload with its reason" \
	bash -c "grep -q 'is not the median of its process_medians_ns' '$q' && grep -q 'is a symlink' '$q' && grep -q 'component' '$q'"
run_page=$(sqlite3 "$STORE" "select page from runs where id = '20990101T000000Z'")
for page in index.html cells/unary-relu-scalar-64K.html backends.html regressions.html quarantine.html "$run_page"; do
	d=$(dom "$page")
	check "$page: no hostile name ran (the DOM after load has no data-pwned)" bash -c "! grep -q 'data-pwned=' '$d'"
done
for page in index.html "$run_page"; do
	d=$(dom "$page")
	check "$page: the hostile op shows as text" contains "$d" "&lt;script&gt;document.documentElement.setAttribute"
done
hostile_cell=$(sqlite3 "$STORE" "select 1 from cells where op like '<script>%' limit 1")
check "the hostile op is a cell of the store" test "$hostile_cell" = 1
check "the hostile CPU shows as text on the index" contains "$idx" "Evil CPU &lt;img src=x onerror="
check "the hostile label shows as text on the index" contains "$idx" 'v2"onload="document'
finish
