#!/usr/bin/env bash
# End to end: publish against hostile input, without a server or a run (fast
# enough for the ASan/UBSan subset of make test).  A checked-in run
# (fixtures/table_width/demo) is published from its directory; then uploads
# dropped into an incoming directory: one whose names are markup, and
# traversal, symlink, truncated, forged and oversized archives
# (hostile_uploads.py), each quarantined with its reason while the published
# pages and data stay as they were; the same archive and the same run again;
# a store that is not a site store (another program's, or ours with a
# trigger added); a directory that is not a run.
source "$(dirname "$0")/lib.sh"
export TMPDIR="$TMP/tmpdir"
mkdir -p "$TMPDIR" "$TMP/in"
RUN="$TMP/20261206T105924Z" # the demo run's run.id: an upload's top directory must be its run
cp -r "$ROOT/tests/e2e/fixtures/table_width/demo" "$RUN"
SITE="$TMP/site"

"$BV" publish --site "$SITE" "$RUN" > "$TMP/out" 2> "$TMP/err"
check "a results directory: exit 0" test $? -eq 0
check "  one new run" contains "$TMP/err" "^publish: 1 new run, "
check "  the store beside the site" test -s "$SITE.sqlite" -a -s "$SITE/index.html"
check "  the run's comparison page" test "$(ls "$SITE"/compare/*.html | wc -l)" -eq 1

# ---- hostile names: published, shown as text ------------------------------------
python3 "$E2E/hostile_uploads.py" names "$RUN" "$TMP/in/0001-names.tar.gz"
"$BV" publish --site "$SITE" --incoming "$TMP/in" > "$TMP/out" 2> "$TMP/err"
check "a run with hostile names: exit 0, published" contains "$TMP/err" "^publish: 1 new run, "
# (the browser's view of them is test_publish.sh's; here: no page holds a
# payload's markup unescaped)
# (the data files hold the names as JSON strings, as they came: JSON is no
# markup, and the server sends it as application/json with nosniff)
check "no page holds a payload as markup" \
	bash -c "! grep -rlE --include='*.html' '<script>document|<img src=x|\"onload=\"document' '$SITE'"
check "the data files hold the names as JSON strings" \
	bash -c "grep -rqF '\"<script>document.documentElement' '$SITE/data'"
check "the op is on a page as escaped text" \
	bash -c "grep -rqE '(&lt;|&#60;)script(&gt;|&#62;)document.documentElement' '$SITE'"

# ---- hostile uploads: refused, each with its reason -------------------------------
state() { (cd "$SITE" && find . -type f ! -name 'quarantine*' -print0 | sort -z | xargs -0 sha256sum); }
state > "$TMP/before"
python3 "$E2E/hostile_uploads.py" bad "$RUN" "$TMP/bad" 2
for b in traversal symlink truncated forged oversized; do cp "$TMP/bad/$b.tar.gz" "$TMP/in/0002-$b.tar.gz"; done
"$BV" publish --site "$SITE" --incoming "$TMP/in" --max-upload 1M > "$TMP/out" 2> "$TMP/err"
check "bad uploads: exit 0 (listed, not failures)" test $? -eq 0
check "  five quarantined" contains "$TMP/err" ", 5 quarantined$"
check "  traversal: its '..' named" bash -c "[[ \"\$(cat '$TMP/in/quarantine/0002-traversal.tar.gz.reason')\" == *\"'..' component\"* ]]"
check "  symlink: named as a symlink" bash -c "grep -q 'is a symlink' '$TMP/in/quarantine/0002-symlink.tar.gz.reason'"
check "  truncated: said to be truncated" bash -c "grep -q 'truncated' '$TMP/in/quarantine/0002-truncated.tar.gz.reason'"
check "  forged: the cell and both numbers" contains "$TMP/in/quarantine/0002-forged.tar.gz.reason" \
	"^0002-forged.tar.gz: 20261206T105924Z/main.json: cells\[[0-9]+\] \(.*\): median_ns .* is not the median of its process_medians_ns \(.*\): a figure was changed after the run$"
check "  oversized: refused before it is read" contains "$TMP/in/quarantine/0002-oversized.tar.gz.reason" \
	"over the 1048576-byte limit"
check "  each said on stderr" test "$(grep -c 'quarantined: ' "$TMP/err")" -eq 5
check "  the quarantined moved out of incoming" test "$(ls "$TMP/in"/*.tar.gz | wc -l)" -eq 1
state > "$TMP/after"
check "  the published pages and data are unchanged" cmp -s "$TMP/before" "$TMP/after"
check "  nothing escaped the unpacking" test ! -e "$TMP/escaped.json" -a ! -e "$TMPDIR/escaped.json"
check "  no temporary directory left" test -z "$(ls "$TMPDIR")"
check "  the quarantine page lists them" bash -c "grep -q '0002-forged.tar.gz' '$SITE/quarantine.html'"

# ---- once ---------------------------------------------------------------------------
cp "$TMP/in/0001-names.tar.gz" "$TMP/in/0003-again.tar.gz"
cp "$TMP/in/quarantine/0002-forged.tar.gz" "$TMP/in/0004-forged-again.tar.gz"
"$BV" publish --site "$SITE" --incoming "$TMP/in" "$RUN" > "$TMP/out" 2> "$TMP/err"
check "the same archive, a refused one and a run's directory again: exit 0" test $? -eq 0
check "  nothing new; the copy counted once" contains "$TMP/err" "^publish: 0 new runs, 2 already published, 1 copy of a run already there, 1 quarantined$"
check "  the refused one keeps its first reason" contains "$TMP/in/quarantine/0004-forged-again.tar.gz.reason" \
	"the same archive was refused before: .*median_ns"
check "  two runs in the store" test "$(sqlite3 "$SITE.sqlite" 'select count(*) from runs')" -eq 2

# ---- what is not a store, not a run ---------------------------------------------------
echo "not a database" > "$TMP/notdb"
cp "$TMP/notdb" "$TMP/notdb.orig"
"$BV" publish --site "$SITE" --store "$TMP/notdb" "$RUN" > "$TMP/out" 2> "$TMP/err"
check "a store that is no SQLite file: exit 2" test $? -eq 2
check "  said, and left as it was" bash -c "grep -q 'not a site store' '$TMP/err' && cmp -s '$TMP/notdb' '$TMP/notdb.orig'"
sqlite3 "$TMP/other.db" "create table t(x); insert into t values (1);"
cp "$TMP/other.db" "$TMP/other.orig"
"$BV" publish --site "$SITE" --store "$TMP/other.db" "$RUN" > "$TMP/out" 2> "$TMP/err"
check "another program's database: exit 2" test $? -eq 2
check "  said, and left as it was" bash -c "grep -q 'an SQLite database of something else (it has tables and no bench-versions application id); it was left as it is' '$TMP/err' && cmp -s '$TMP/other.db' '$TMP/other.orig'"
# our store with a trigger another program added: it would run on every
# import (a connection of ours runs none, but the store is not ours to use)
cp "$SITE.sqlite" "$TMP/trigger.db"
sqlite3 "$TMP/trigger.db" "create trigger t after insert on runs begin delete from runs; end;"
cp "$TMP/trigger.db" "$TMP/trigger.orig"
"$BV" publish --site "$SITE" --store "$TMP/trigger.db" "$RUN" > "$TMP/out" 2> "$TMP/err"
check "a site store with a trigger added: exit 2" test $? -eq 2
check "  said, and left as it was" bash -c "grep -q \"the store holds trigger 't', which bench-versions does not create\" '$TMP/err' && cmp -s '$TMP/trigger.db' '$TMP/trigger.orig' && test ! -e '$TMP/trigger.db-wal'"
mkdir -p "$TMP/notrun"
echo '{}' > "$TMP/notrun/x.json"
"$BV" publish --site "$SITE" "$TMP/notrun" "$RUN" > "$TMP/out" 2> "$TMP/err"
check "a directory that is no run: exit 2" test $? -eq 2
check "  named, and the rest still published" bash -c "grep -q 'notrun not published' '$TMP/err' && grep -q '1 copy of a run already there' '$TMP/err'"
refused "no --site" "give the site's directory: --site DIR" publish "$RUN"
refused "nothing to publish" "nothing to publish" publish --site "$SITE"
refused "a bad --max-upload" "max-upload" publish --site "$SITE" --max-upload 10Q "$RUN"
finish
