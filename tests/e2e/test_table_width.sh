#!/usr/bin/env bash
# End to end: the comparison table fits a terminal.  Two comparisons kept as
# logs under fixtures/table_width/ (compare re-renders them, with the counts
# their counts.json holds, in a second): `make demo`'s (0.1.0 main local,
# unary abs,exp,relu,tanh at 64K and 1M, --quick) and docs/suites.md's
# walk-through (lumen 1.0.0 1.1.0 1.2.0, --quick).  Each is rendered at 80
# and 120 columns, once with COLUMNS set and once in a pseudo-terminal of
# that width (TIOCGWINSZ, colours on): no line may be longer, and nothing
# the --wide table says may be lost: every cell's ratio, interval and
# verdict is in the table, every counts' sentence and machine-state or
# layout detail in a numbered note, every note referred to by a cell.
source "$(dirname "$0")/lib.sh"
FIXTURES="$ROOT/tests/e2e/fixtures/table_width"

cat > "$TMP/tty_run.py" <<'PY'
# tty_run.py WIDTH OUT ERR CMD...: CMD's stdout through a pseudo-terminal WIDTH
# columns wide (its stderr to ERR), written to OUT without the tty's \r.
import fcntl, os, pty, struct, sys, termios
width, out, err, cmd = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
pid, fd = pty.fork()
if pid == 0:
    # the size is set on the child's own side before it starts: no race
    fcntl.ioctl(1, termios.TIOCSWINSZ, struct.pack("HHHH", 50, width, 0, 0))
    e = os.open(err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(e, 2)
    os.environ.pop("COLUMNS", None)
    os.execv(cmd[0], cmd)
data = b""
while True:
    try:
        chunk = os.read(fd, 65536)
    except OSError:  # EIO: the child closed its side
        break
    if not chunk:
        break
    data += chunk
_, status = os.waitpid(pid, 0)
open(out, "wb").write(data.replace(b"\r\n", b"\n"))
sys.exit(os.waitstatus_to_exitcode(status))
PY

cat > "$TMP/fits.py" <<'PY'
# fits.py WIDTH NARROW WIDE JSON: NARROW fits WIDTH and keeps what WIDE says.
import collections, json, re, sys
width, narrow, wide, js = int(sys.argv[1]), open(sys.argv[2]).read(), open(sys.argv[3]).read(), json.load(open(sys.argv[4]))
narrow = re.sub(r"\x1b\[[0-9;]*m", "", narrow)  # colours take no column
bad = [l for l in narrow.splitlines() if len(l) > width]
assert not bad, "%d lines longer than %d, the first: %r" % (len(bad), width, bad[0])
cell = re.compile(r"\d+\.\d{3} \[[^\]]*\] (?:same|slower|faster|inconclusive|unstable)")
a, b = collections.Counter(cell.findall(narrow)), collections.Counter(cell.findall(wide))
assert a == b and a, "ratios and verdicts differ from --wide: missing %s, extra %s" % (b - a, a - b)
# the notes, each joined back from its wrapped lines
notes, last = {}, None
for l in narrow.splitlines():
    m = re.match(r"^\[(\d+)\] (.*)$", l)
    if m:
        last = m.group(1)
        notes[last] = m.group(2)
    elif last and l.startswith("    "):
        notes[last] += " " + l.strip()
    else:
        last = None
text = "\n".join(notes.values())
whys = [c["counts"]["text"] for r in js["rows"] for c in r["changes"] if c.get("counts") and c.get("ratio") is not None]
missing = [w for w in whys if w not in text]
assert not missing, "counts' sentences in no note: %s" % missing[:3]
# the details a wide cell carries after its verdict: in a note too
details = re.findall(r"layout \[[0-9.]+, [0-9.]+\]|usual [0-9.]+ x\d+, disturbed [0-9.]+ x\d+|[0-9.]+ while disturbed \(\d+ set aside\)", wide)
missing = [d for d in details if d not in text]
assert not missing, "details in no note: %s" % missing[:3]
refs = set(re.findall(r"\[(\d+)\]$", narrow, re.M)) | set(re.findall(r"  (?:why: )?[a-z ]*\[(\d+)\](?:  |$)", narrow, re.M))
assert refs == set(notes), "cells refer to notes %s, the notes are %s" % (sorted(refs), sorted(notes))
print("%d cells, %d notes, %d counts' sentences" % (sum(a.values()), len(notes), len(whys)))
PY

for fx in demo suite; do
	dir="$FIXTURES/$fx"
	"$BV" compare "$dir" --wide > "$TMP/$fx.wide" 2> "$TMP/$fx.err"
	check "$fx: compare --wide exits 0 (exit $?)" test $? -eq 0
	"$BV" compare "$dir" --format json > "$TMP/$fx.json" 2> /dev/null
	"$BV" compare "$dir" --format json --wide > "$TMP/$fx.wide.json" 2> /dev/null
	check "$fx: --wide leaves the JSON as it is" cmp -s "$TMP/$fx.json" "$TMP/$fx.wide.json"
	check "$fx: --wide has no why column and no notes (all in the cells)" \
		bash -c "! grep -qE '^bench .* why( |\$)|^\[[0-9]+\] ' '$TMP/$fx.wide'"
	# the layout before notes does not fit: the checks below can fail
	check "$fx: the --wide table is wider than 120 columns" \
		bash -c "awk 'length > 120 { n++ } END { exit !n }' '$TMP/$fx.wide'"
	env -u COLUMNS "$BV" compare "$dir" > "$TMP/$fx.plain" 2> /dev/null
	check "$fx: not a terminal, no COLUMNS: one table, its header first" \
		bash -c "[ \$(grep -cE '^bench +op +backend +size ' '$TMP/$fx.plain') -eq 1 ]"
	check "$fx: ... and it keeps what --wide says" python3 "$TMP/fits.py" 100000 "$TMP/$fx.plain" "$TMP/$fx.wide" "$TMP/$fx.json"
	for w in 80 120; do
		COLUMNS=$w "$BV" compare "$dir" > "$TMP/$fx.$w" 2> /dev/null
		check "$fx, COLUMNS=$w: fits, every verdict and note kept" \
			python3 "$TMP/fits.py" $w "$TMP/$fx.$w" "$TMP/$fx.wide" "$TMP/$fx.json"
		python3 "$TMP/tty_run.py" $w "$TMP/$fx.pty$w" "$TMP/$fx.pty$w.err" "$BV" compare "$dir"
		check "$fx, a $w-column terminal: exit 0 (exit $?)" test $? -eq 0
		check "$fx, a $w-column terminal: fits, every verdict and note kept" \
			python3 "$TMP/fits.py" $w "$TMP/$fx.pty$w" "$TMP/$fx.wide" "$TMP/$fx.json"
		check "$fx, a $w-column terminal: the verdicts are painted" grep -q $'\e\\[3[123]m' "$TMP/$fx.pty$w"
		python3 "$TMP/tty_run.py" $w "$TMP/$fx.ptywide$w" /dev/null "$BV" compare "$dir" --wide
		check "$fx, a $w-column terminal, --wide: not fitted" \
			bash -c "sed 's/\x1b\[[0-9;]*m//g' '$TMP/$fx.ptywide$w' | awk 'length > $w { n++ } END { exit !n }'"
	done
done
# two versions fit 120 columns as one table; three, one block per version
check "demo at 120: one block per compared version, each with its header" \
	bash -c "[ \$(grep -cE '^bench +op +backend +size +0\.1\.0 +(main|local) +(main|local)/0\.1\.0 \[95% CI\] +why$' '$TMP/demo.120') -eq 2 ]"
"$BV" compare "$FIXTURES/demo/0.1.0.json" "$FIXTURES/demo/main.json" > /dev/null 2>&1 # (warm)
check "demo at 120, two versions: the relu cells say code (the work fell, the time further) and a note" \
	contains "$TMP/demo.120" "^unary +relu +scalar +64K +[0-9.]+ us +[0-9.]+ us +0\.[0-9]{3} \[[0-9., ]+\] faster +code \[[0-9]+\]$"
check "demo: a note names its cell and versions" \
	contains "$TMP/demo.120" "^\[1\] unary relu scalar 64K, main vs 0\.1\.0: instr \+20\.0 % \(kn_scalar_unary_ex"
check "demo: identical sentences share one note, naming both versions" \
	contains "$TMP/demo.plain" "^\[[0-9]+\] unary relu scalar 1M, main and local vs 0\.1\.0: instr "
check "suite at 120: its one bench said once, then one block per version without it" \
	bash -c "grep -qx 'bench: lumen' '$TMP/suite.120' && [ \$(grep -cE '^op +backend +size +1\.0\.0 +1\.[12]\.0 +1\.[12]\.0/1\.0\.0 \[95% CI\] +why$' '$TMP/suite.120') -eq 2 ]"
check "suite at 80 columns: a few lines per cell" contains "$TMP/suite.80" "^  1\.2\.0/1\.0\.0: [0-9.]+ \[[0-9., ]+\] "

# markdown and HTML: a why column and the notes under the table
"$BV" compare "$FIXTURES/demo" --format markdown > "$TMP/demo.md" 2> /dev/null
check "markdown: a why column per compared version" \
	contains "$TMP/demo.md" '^\| bench \| op \| backend \| size \| 0\.1\.0 \| main \| main/0\.1\.0 \\\[95% CI\\\] \| why \| local \|'
check "markdown: the why word and its note" \
	bash -c "grep -qE '^\| unary \| relu \| scalar \| 64K \| .* \*\*faster\*\* \| code \\\\\[1\\\\\] \|' '$TMP/demo.md' &&
		 grep -qE '^\* \\\\\[1\\\\\] unary relu scalar 64K, main vs 0\.1\.0: instr \+20\.0 %' '$TMP/demo.md'"
check "markdown: no counts' sentence in a cell" bash -c "! grep -E '^\|' '$TMP/demo.md' | grep -q 'the time moved'"
"$BV" compare "$FIXTURES/demo" --format html > "$TMP/demo.html" 2> /dev/null
check "HTML: a why column and the notes" \
	bash -c "grep -q '<th>why</th>' '$TMP/demo.html' && grep -q '<td class=\"why\">code \[1\]</td>' '$TMP/demo.html' &&
		 grep -q '<p class=\"note\">\[1\] unary relu scalar 64K, main vs 0.1.0&#58; instr +20.0 %' '$TMP/demo.html'"
finish
