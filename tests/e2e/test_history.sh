#!/usr/bin/env bash
# End to end: `history` over a real range of commits with one planted relu
# slowdown: the change point is found at the planted commit and nowhere
# else, abs has none, every chain is the product of its steps, --every 2
# names the bisect command that narrows the skipped commits, and bad input
# (an empty or backward range, one version, nothing that builds) is refused.
source "$(dirname "$0")/lib.sh"
make_fixture
# The cuda and blas backends are not what this is about, and nvcc alone
# takes ~40 s a build here: the fixture's library is built without them
# (its Makefile takes CUDA=0 and BLAS=0 from the environment).
export CUDA=0 BLAS=0

# Five versions, two library trees (two builds: the fixture's library takes
# ~10 s of CPU a build, and a third build took this script past 40 s on two
# loaded cores): notes outside kernels/ keep the library's tree, so their
# steps are A/A steps between versions of one build, measured as any other.
note() { mkdir -p "$FIX/notes" && echo "note $1" > "$FIX/notes/$1.txt" && git -C "$FIX" add -A && git -C "$FIX" commit -qm "note $1"; }
note 1
before=$(git -C "$FIX" rev-parse HEAD)
plant_relu_slowdown && git -C "$FIX" commit -qam "relu: three passes (planted slowdown)"
planted=$(git -C "$FIX" rev-parse HEAD)
note 3
note 4

cells=(--benches unary --ops relu,abs --backends scalar --sizes 64K --quick --processes 12 --results "$TMP/results")
start=$(date +%s)
"$BV" history HEAD~4..HEAD "${cells[@]}" --format json > "$TMP/h.json" 2> "$TMP/h.err"
rc=$?
check "history exits 0" test $rc -eq 0
[ $rc -eq 0 ] || tail -20 "$TMP/h.err"
check "history: the relu change at the planted commit, none for abs, chains are products of steps" \
	python3 - "$TMP/h.json" "$before" "$planted" <<'PY'
import json, math, sys
doc = json.load(open(sys.argv[1])); before, planted = sys.argv[2], sys.argv[3]
assert doc["schema"] == "bench-versions-history" and doc["schema_version"] == 1
assert doc["series"]["kind"] == "range" and len(doc["versions"]) == 5, doc["versions"]
assert [v["commit"] for v in doc["versions"]][1:3] == [before, planted]
ch = doc["changes"]
assert len(ch) == 1, ch
c = ch[0]
assert c["cell"] == "unary/relu/scalar/64K" and c["direction"] == "slower", c
assert c["from_commit"] == before and c["to_commit"] == planted, c
assert c["ci_low"] > 1.5, c
assert c["bisect"] is None, c  # adjacent commits: nothing to narrow
cells = {x["cell"]: x for x in doc["cells"]}
assert set(cells) == {"unary/relu/scalar/64K", "unary/abs/scalar/64K"}, set(cells)
for x in cells.values():
    assert len(x["steps"]) == 4 and len(x["chain"]) == 5
    assert x["chain"][0]["ratio"] == 1
    p = 1.0
    for s, link in zip(x["steps"], x["chain"][1:]):
        p *= s["ratio"]
        assert math.isclose(link["ratio"], p, rel_tol=1e-9), (link, p)
        assert link["ci_low"] <= link["ratio"] <= link["ci_high"], link
for s in cells["unary/abs/scalar/64K"]["steps"]:
    assert s["verdict"] not in ("slower", "faster"), s
relu = cells["unary/relu/scalar/64K"]["steps"]
assert relu[1]["verdict"] == "slower" and relu[1]["from"] == before[:12], relu[1]
assert all(s["verdict"] not in ("slower", "faster") for i, s in enumerate(relu) if i != 1), relu
assert cells["unary/relu/scalar/64K"]["chain"][4]["ratio"] > 1.5
# undecided steps (past the band, called by neither a step nor a change
# point) and unstable ones are counted, never left silent
thr = doc["threshold"]
def held(x, i):
    return any(c["cell"] == x["cell"] and c["first_step"] <= i <= c["last_step"] for c in ch)
undecided = sum(1 for x in cells.values() for i, s in enumerate(x["steps"])
                if s["verdict"] == "inconclusive" and (s["ratio"] > 1 + thr or s["ratio"] < 1 / (1 + thr))
                and not held(x, i))
assert doc["inconclusive"] == undecided, (doc["inconclusive"], undecided)
assert doc["unstable"] == sum(1 for x in cells.values() for s in x["steps"] if s["verdict"] == "unstable")
PY
[ $? -eq 0 ] || sed 's/^/#   /' "$TMP/h.json" | head -60
check "history.json is kept in the results directory" test -n "$(find "$TMP/results" -name history.json)"

# The same series again: every step comes from the store,
# nothing is measured, and the answer is the same.
"$BV" history HEAD~4..HEAD "${cells[@]}" --format json > "$TMP/h2.json" 2> "$TMP/h2.err"
rc=$?
check "again: exits 0 (exit $rc)" test $rc -eq 0
check "again: every window from the store" \
	test "$(grep -c 'every step from the store' "$TMP/h2.err")" -eq "$(grep -c '^history: window' "$TMP/h.err")"
check "again: nothing measured" bash -c "! grep -qE '^measure: |^calibrate: measuring' '$TMP/h2.err'"
check "again: the same change, the same steps" python3 - "$TMP/h.json" "$TMP/h2.json" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
key = lambda d: [(c["cell"], c["from_commit"], c["to_commit"], c["direction"]) for c in d["changes"]]
assert key(a) == key(b), (key(a), key(b))
# Each step is the one measured for its two builds: commits that leave the
# library alone share a build, so their steps share the stored one.
steps = lambda d: {x["cell"]: [round(s["ratio"], 12) for s in x["steps"]] for x in d["cells"]}
for cell, ratios in steps(b).items():
    assert all(r in steps(a)[cell] for r in ratios), (cell, ratios, steps(a)[cell])
PY
# Both streams into one file: the progress lines and the
# closing "results: DIR" (stderr) come out between whole lines of the JSON
# (stdout), never inside one.  Fully buffered, stdout went out 4 KB at a
# time, so "results:" landed in the middle of a line; the JSON here is
# bigger than that buffer, or the check could not fail.
"$BV" history HEAD~4..HEAD "${cells[@]}" --format json > "$TMP/both.out" 2>&1
check "2>&1: the JSON is bigger than stdio's buffer (else this check proves nothing)" \
	test "$(wc -c < "$TMP/h2.json")" -gt 4096
check "2>&1: no stderr line lands inside a stdout line: the rest is the JSON, whole" python3 - "$TMP/both.out" <<'PY'
import json, re, sys
lines = open(sys.argv[1]).read().split("\n")
err = re.compile(r"^(resolve|build|history|results|measure|calibrate): ")
rest = [l for l in lines if not err.match(l)]
assert any(l.startswith("results: /") for l in lines), "no whole results: line"
doc = json.loads("\n".join(rest))
assert doc["schema"] == "bench-versions-history", doc.get("schema")
PY
check "--no-store measures again" bash -c "'$BV' history HEAD~1..HEAD ${cells[*]} --no-store 2>&1 >/dev/null | grep -q '^measure: '"

# A step with no ratio that the builds decide (the fixture is built without
# cuda, so its cuda cells are not run: n/a or skipped) is kept as an absent
# step: a series whose versions lack a cell measures nothing the second time
# either, and says the same of that cell.
absent=(--benches unary --ops relu --backends scalar,cuda --sizes 64K --quick --processes 12 --results "$TMP/results" --store "$TMP/absent.sqlite")
"$BV" history HEAD~1..HEAD "${absent[@]}" > "$TMP/a1.out" 2> "$TMP/a1.err"
"$BV" history HEAD~1..HEAD "${absent[@]}" > "$TMP/a2.out" 2> "$TMP/a2.err"
check "a cell no version runs: its note says why" contains "$TMP/a1.out" "^note: unary/relu/cuda/64K, .*: (n/a|skipped)"
check "  and the same series again measures nothing" \
	bash -c "grep -q 'every step from the store' '$TMP/a2.err' && ! grep -qE '^measure: |^calibrate: measuring' '$TMP/a2.err'"
check "  and says the same of that cell" test "$(grep '^note: unary/relu/cuda' "$TMP/a1.out")" = "$(grep '^note: unary/relu/cuda' "$TMP/a2.out")"
grep -q 'every step from the store' "$TMP/a2.err" || sed 's/^/#   /' "$TMP/a1.out" "$TMP/a2.err" | tail -30

# --import: a run's paired ratios into a store of their own; a history of
# the same two versions, measured the same way, then measures nothing.
"$BV" run "$before" "$planted" "${cells[@]/$TMP\/results/$TMP/runs}" > /dev/null 2> "$TMP/r.err"
rundir=$(ls -d "$TMP"/runs/[0-9]*/ | head -1)
"$BV" history --import "$rundir" --store "$TMP/imported.sqlite" > "$TMP/i.out" 2> "$TMP/i.err"
check "--import: 2 steps (relu, abs) from the run" contains "$TMP/i.out" "^imported 2 steps from .* into $TMP/imported.sqlite"
# (run's one layout: history's default is four, another method)
"$BV" history "$before" "$planted" "${cells[@]}" --layouts 1 --store "$TMP/imported.sqlite" > "$TMP/i2.out" 2> "$TMP/i2.err"
check "--import: the history of the run's two versions measures nothing" \
	bash -c "grep -q 'every step from the store' '$TMP/i2.err' && ! grep -qE '^measure: ' '$TMP/i2.err'"
check "--import: and finds the relu change" contains "$TMP/i2.out" "unary/relu/scalar/64K.* slower"
grep -q "slower" "$TMP/i2.out" || { sed 's/^/#   /' "$TMP/i.err" "$TMP/i2.err" "$TMP/i2.out" | tail -20; }
refused "--import of no run" "no results log in it" history --import "$TMP" --store "$TMP/imported.sqlite"
# Another program's database that sets a user_version
# below the store's was switched to WAL, migrated and marked as a store
# before the refusal; now refused first, byte for byte as it was.
python3 -c 'import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); db.executescript("CREATE TABLE users(n); PRAGMA user_version=2;"); db.close()' "$TMP/foreign.db"
sum=$(sha256sum < "$TMP/foreign.db")
refused "--import into another program's database" "foreign\.db: an SQLite database of something else .*it was left as it is" \
	history --import "$rundir" --store "$TMP/foreign.db"
check "  its bytes are as they were" test "$(sha256sum < "$TMP/foreign.db")" = "$sum"
check "  and no WAL or journal beside it" test ! -e "$TMP/foreign.db-wal" -a ! -e "$TMP/foreign.db-journal"
# A store of ours with a trigger on steps: the import said "imported 2
# steps" and the trigger rewrote each as it was stored (ratio 9, slower).
# A store holding what its schema does not create is refused, untouched.
"$BV" history --import "$rundir" --store "$TMP/trigger.sqlite" > /dev/null 2>&1
python3 -c 'import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); db.executescript("CREATE TRIGGER rewrite AFTER INSERT ON steps BEGIN UPDATE steps SET ratio = 9, verdict = '"'slower'"' WHERE rowid = new.rowid; END;"); db.close()' "$TMP/trigger.sqlite"
sum=$(sha256sum < "$TMP/trigger.sqlite")
refused "--import into a store with a trigger" "trigger\.sqlite: the store holds trigger 'rewrite', which bench-versions does not create; it was left as it is" \
	history --import "$rundir" --store "$TMP/trigger.sqlite"
check "  its bytes are as they were" test "$(sha256sum < "$TMP/trigger.sqlite")" = "$sum"
check "  and no WAL or journal beside it" test ! -e "$TMP/trigger.sqlite-wal" -a ! -e "$TMP/trigger.sqlite-journal"
check "  and no step reads ratio 9" test "$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM steps WHERE ratio = 9").fetchone()[0])' "$TMP/trigger.sqlite")" = 0

# --every 2: versions 0, 2 and 4; the change lies between 0 and 2 (the
# planted commit), which are not parent and child: bisect narrows it.
"$BV" history HEAD~4..HEAD --every 2 "${cells[@]}" > "$TMP/e.out" 2> "$TMP/e.err"
rc=$?
check "history --every 2 exits 0" test $rc -eq 0
[ $rc -eq 0 ] || tail -20 "$TMP/e.err"
check "history --every 2: the table marks the change and names the bisect command over the skipped commit" \
	contains "$TMP/e.out" "narrow it: bench-versions bisect --good $(git -C "$FIX" rev-parse --short=12 HEAD~4) --bad ${planted:0:12} --bench unary --op relu --backend scalar --size 64K$"
check "history --every 2: one change, in relu" test "$(grep -c '^  unary/' "$TMP/e.out")" -eq 1
check "history --every 2: the relu row carries the mark" contains "$TMP/e.out" '^unary/relu/scalar/64K .*[0-9]\*'
grep -q 'narrow it' "$TMP/e.out" || sed 's/^/#   /' "$TMP/e.out"
# Markdown, for a pull request: the planted step alone (--window 2: a pair).
"$BV" history HEAD~3..HEAD~2 --window 2 "${cells[@]}" --format markdown > "$TMP/m.md" 2> "$TMP/m.err"
rc=$?
check "history --format markdown exits 0" test $rc -eq 0
check "history --format markdown: a table with the change in bold and the change listed" \
	python3 - "$TMP/m.md" "${before:0:12}" "${planted:0:12}" <<'PY'
import re, sys
md = open(sys.argv[1]).read(); a, b = sys.argv[2], sys.argv[3]
assert "| cell | %s | %s |" % (a, b) in md, md
assert re.search(r"^\| `unary/relu/scalar/64K` \| 1\.000 \| \*\*[0-9.]+\*\* \|$", md, re.M), md
assert re.search(r"^\| `unary/abs/scalar/64K` \| 1\.000 \| [0-9.]+ \|$", md, re.M), md
assert re.search(r"^- `unary/relu/scalar/64K`: %s -> %s: [0-9.]+ \[[0-9.]+, [0-9.]+\] \*\*slower\*\*$" % (a, b), md, re.M), md
assert "abs/scalar/64K`:" not in md and "narrow it" not in md, md
PY
echo "# three histories in $(($(date +%s) - start)) s"

# HTML, the timeline: the first series again, so the
# store gives every step and nothing is measured.  The page parses, has one
# chart per cell, labels the change, loads nothing, and Chromium renders it.
hstart=$(date +%s)
"$BV" history HEAD~4..HEAD "${cells[@]}" --format html > "$TMP/h.html" 2> "$TMP/hh.err"
rc=$?
check "history --format html exits 0 (exit $rc)" test $rc -eq 0
[ $rc -eq 0 ] || tail -20 "$TMP/hh.err"
hdir=$(sed -n 's/^results: //p' "$TMP/hh.err")
check "history --format html keeps the page as history.html" cmp -s "$TMP/h.html" "$hdir/history.html"
check "history --format html: parses, one svg per cell, the change labelled, nothing loaded" \
	python3 - "$TMP/h.html" "${before:0:12}" "${planted:0:12}" <<'PY'
import html, re, sys
from html.parser import HTMLParser
raw = open(sys.argv[1]).read(); before, planted = sys.argv[2], sys.argv[3]
VOID = {"meta", "br", "link", "img", "input", "hr", "col", "area", "base", "wbr", "source", "track", "embed", "param"}
class P(HTMLParser):
    def __init__(self):
        super().__init__(); self.stack = []; self.svgs = []; self.tags = set()
    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        if tag == "svg": self.svgs.append(dict(attrs))
        if tag not in VOID: self.stack.append(tag)
    def handle_startendtag(self, tag, attrs):
        self.tags.add(tag)
    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, ("unbalanced", tag, self.stack[-3:])
        self.stack.pop()
p = P(); p.feed(raw); p.close()
assert p.stack == [], p.stack
assert raw.startswith("<!DOCTYPE html>"), raw[:40]
assert len(p.svgs) == 2 and all(s.get("class") == "timeline" for s in p.svgs), p.svgs
assert not ({"script", "img", "link", "iframe", "object"} & p.tags), p.tags
assert "default-src 'none'" in raw and not re.search(r"(src|href)=", raw)
page = html.unescape(raw)  # bv_html_esc writes every name's '/', ':' and '>' as entities
sections = re.findall(r'<section class="cell">\s*<h2>([^<]*)</h2>(.*?)</section>', page, re.S)
assert sorted(k for k, _ in sections) == ["unary/abs/scalar/64K", "unary/relu/scalar/64K"], [k for k, _ in sections]
sec = dict(sections)
relu, abs_ = sec["unary/relu/scalar/64K"], sec["unary/abs/scalar/64K"]
# relu: one marker, labelled with its size and direction, at the planted
# commit (the label's title names both commits), a band and a point per version
m = re.findall(r'<text class="cpl slower"[^>]*>([0-9.]+)x slower<title>([^<]*)</title>', relu)
assert len(m) == 1 and float(m[0][0]) > 1.5, m
assert m[0][1].startswith(before) and ("-> " + planted) in m[0][1], m
assert len(re.findall(r'<line class="cp slower"', relu)) == 1
assert len(re.findall(r'<circle class="pt"', relu)) == 5 and '<polygon class="band"' in relu
assert re.search(r'<li class="slower">%s -> %s: [0-9.]+ \[[0-9.]+, [0-9.]+\] slower</li>' % (before, planted), relu), relu[-400:]
assert 'class="cp ' not in abs_ and "no change point" in abs_
assert "machine class</b> " in page and "false-discovery rate" in page
PY
[ $? -eq 0 ] || sed 's/^/#   /' "$TMP/h.html" | head -40
if command -v chromium > /dev/null; then
	chrome --dump-dom "file://$hdir/history.html" > "$TMP/hdom.html"
	check "chromium renders the history page: both charts in the DOM" \
		test "$(grep -o '<svg class="timeline"' "$TMP/hdom.html" | wc -l)" -eq 2
	check "chromium renders the change's label" contains "$TMP/hdom.html" '[0-9.]+x slower<title>'
	chrome --window-size=800,700 --screenshot="$TMP/hshot.png" "file://$hdir/history.html" > /dev/null
	# the chain's blue (its line and points) and the change marker's red, drawn
	read -r colours blue red <<< "$(python3 "$E2E/png_colours.py" "$TMP/hshot.png" 0969da cf222e)"
	check "chromium's screenshot of the history page is not blank ($colours colours)" test "${colours:-0}" -gt 20
	check "the screenshot shows the chains ($blue px) and the change ($red px)" \
		test "${blue:-0}" -gt 100 -a "${red:-0}" -gt 20
else
	skip "chromium renders the history page" "chromium is not installed (scripts/deps.sh test installs it)"
fi
echo "# the html history in $(($(date +%s) - hstart)) s"

# Bad input: exit 2, said plainly, nothing built.
runs=$(find "$TMP/results" -mindepth 1 -maxdepth 1 -type d | wc -l)
refused "an empty range" "is empty: .* same commit" history HEAD..HEAD "${cells[@]}"
refused "a backward range" "is not an ancestor of" history HEAD..HEAD~2 "${cells[@]}"
refused "one version" "one version .* is no history" history HEAD "${cells[@]}"
refused "no series" "no series" history "${cells[@]}"
refused "A...B" "not A...B" history HEAD~2...HEAD "${cells[@]}"
refused "--every on a list" "--every N is for a range" history HEAD~1 HEAD --every 2 "${cells[@]}"
refused "--window 1" "--window" history HEAD~1..HEAD --window 1 "${cells[@]}"
refused "--releases with a name" "one too many" history --releases HEAD "${cells[@]}"
check "bad input left no results directory behind" test "$(find "$TMP/results" -mindepth 1 -maxdepth 1 -type d | wc -l)" -eq "$runs"

# A range where nothing builds: exit 3, as run's failed builds are.
git -C "$FIX" checkout -qb broken
# (a Makefile that stops make at once: a failed compile would cost seconds)
echo '$(error broken 1)' >> "$FIX/kernels/Makefile" && git -C "$FIX" commit -qam "broken 1"
echo '$(error broken 2)' >> "$FIX/kernels/Makefile" && git -C "$FIX" commit -qam "broken 2"
"$BV" history broken~1..broken "${cells[@]}" > /dev/null 2> "$TMP/b.err"
rc=$?
check "a range where nothing builds: exit 3 (exit $rc)" test $rc -eq 3
check "a range where nothing builds: says so" contains "$TMP/b.err" "none of the 2 versions of the series built"
finish
