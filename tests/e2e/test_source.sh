#!/usr/bin/env bash
# Source rules a compiler flag cannot hold, checked over the tree:
# - every allocation in orchestrator/ goes through the bv_x* helpers
#   (common.c), which end the process with a message when memory runs out;
#   a raw malloc/calloc/realloc whose NULL nobody checks is a crash far from
#   its cause (an outside review counted 49 of them);
# - no command file calls another command's function: a driver of the
#   stages depends on pipeline.c, not on cmd_run.c.
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

raw=$(grep -nE '(^|[^A-Za-z0-9_])(malloc|calloc|realloc)\(' orchestrator/*/*.c | grep -v '^orchestrator/util/common.c:' |
	grep -vE '^[^:]+:[0-9]+:\s*(/?\*|//)')
check "orchestrator/: no raw malloc, calloc or realloc outside common.c${raw:+ (found: $(echo "$raw" | head -3 | tr '\n' ' '))}" \
	test -z "$raw"

# The functions each command file defines that are not static...
cross=""
for f in orchestrator/cli/cmd_*.c; do
	for fn in $(grep -oE '^[a-z_ ]+\*?\s*(bv_[a-z_0-9]+)\(' "$f" | grep -v '^static' | grep -oE 'bv_[a-z_0-9]+'); do
		[ "$fn" = "bv_cmd_${f#orchestrator/cli/cmd_}" ] && continue
		case "$fn" in bv_cmd_*) continue ;; esac
		# ...used by another file than main.c: a dependency on a command.
		users=$(grep -lw "$fn" orchestrator/*/*.c | grep -v -e "^$f\$" -e '^orchestrator/cli/main.c$')
		[ -n "$users" ] && cross="$cross $fn($f <- $users)"
	done
done
check "no command file's function is used by another file${cross:+ (found:$cross)}" test -z "$cross"

# Every word the tool prints as a verdict, or beside one, is defined where the
# verdicts are: docs/measurement.md, from "**Verdict.**" to the next
# paragraph of the method (`unconfirmed` was once in the output
# and, to a new user, on no page).  The words come from the code that prints
# them, so the next new one fails here until it is defined there.
words=$(python3 - <<'PY'
import glob, re
lit = re.compile(r'"((?:[^"\\\n]|\\.)*)"')  # C string literals, left to right
def body(path, head):  # a function's text: its head to the first "}" in column 0
    t = open(path).read()
    i = t.index(head)
    return t[i:t.index("\n}", i)]
words = set()
# bv_verdict_name's verdicts, and those set by name (bisect's good, bad and
# skip are its own, defined in docs/bisect.md)
words |= set(lit.findall(body("harness/common/stats.c", "const char *bv_verdict_name")))
for f in glob.glob("orchestrator/*/*.c"):
    if not f.endswith("cmd_bisect.c"):
        words |= set(re.findall(r'verdict = "([a-z]+)"', open(f).read()))
        # the modes a ratio that is not paired names ("paired" is never shown)
        for line in open(f):
            if "->mode = " in line:
                words |= set(lit.findall(line)) - {"paired"}
# the qualifiers after a verdict (", noisy")
for x in lit.findall(body("orchestrator/output/export_notes.c", "void bv_format_short_qualifiers")):
    m = re.match(r", ([a-z]+)", x)
    if m:
        words.add(m.group(1))
print(" ".join(sorted(words)))
PY
)
section=$(awk '/^\*\*Verdict\.\*\*/ { on = 1; print; next } on && /^\*\*/ { exit } on' docs/measurement.md)
undefined=""
for w in $words; do
	grep -qE "\`$w[\` ]" <<< "$section" || undefined="$undefined $w"
done
check "words found in the code ($(echo $words | wc -w): $(echo $words))" test "$(echo $words | wc -w)" -ge 8
check "every verdict word the tool prints is defined under **Verdict.** in docs/measurement.md${undefined:+ (not:$undefined)}" \
	test -z "$undefined"

# Every option the tool gives bv-runner is one bv-runner's table takes: the
# two sides are built apart (the runner without the orchestrator), so a
# renamed option would otherwise show only as a measuring process that
# exits 2.  The options are the "--name" literals the files that start
# bv-runner put into its argv (not Valgrind's --x=y, nor a tool's
# --version); the truth is `bv-runner --help`, printed from its table.
given=$(grep -ohE '"--[a-z][a-z-]*"' orchestrator/measure/measure_process.c orchestrator/measure/counts_make.c \
	orchestrator/build/build_plugin.c orchestrator/build/suite.c | tr -d '"' | sort -u |
	grep -vx -e --version -e --count-timeout)
taken=$("$(dirname "$BV")/bv-runner" --help 2>&1 | grep -oE '^ +--[a-z][a-z-]*' | tr -d ' ' | sort -u)
unknown=$(comm -23 <(echo "$given") <(echo "$taken") | tr '\n' ' ')
check "options the tool gives bv-runner found ($(echo $given | wc -w))" test "$(echo $given | wc -w)" -ge 20
check "every option the tool gives bv-runner is in bv-runner's table${unknown:+ (not: $unknown)}" test -z "$unknown"
exit $((failures > 0))
