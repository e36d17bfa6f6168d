#!/usr/bin/env bash
# The source layout's rules (scripts/layout.py; docs/architecture.md,
# "Layout rules"), on this tree, and each on a copy with the break it
# names planted, so that every rule is seen to fail.
source "$(dirname "$0")/lib.sh"

python3 "$ROOT/scripts/layout.py" "$ROOT" > "$TMP/out" 2>&1
rc=$?
check "this tree keeps every layout rule (exit $rc)" test $rc -eq 0
[ $rc -eq 0 ] || sed 's/^/#   /' "$TMP/out"

plant() { # NAME RULE-PATTERN: copies the tree, runs the planting commands on stdin, expects the rule broken
	local copy="$TMP/$1"  # kernels/ too: docs/kernels.md links into it (rule 7)
	mkdir -p "$copy"
	cp -r "$ROOT/orchestrator" "$ROOT/harness" "$ROOT/kernels" "$ROOT/docs" "$ROOT/tests" "$ROOT/README.md" \
		"$ROOT/Makefile" "$copy/"
	(cd "$copy" && bash -e) || { not_ok "$1: planting failed"; return; }
	python3 "$ROOT/scripts/layout.py" "$copy" > "$TMP/$1.out" 2>&1
	local r=$?
	check "$1: refused (exit $r)" test $r -eq 1
	check "$1: says '$2'" contains "$TMP/$1.out" "$2"
}
plant "the harness including an orchestrator header" "rule 1: harness/common/stats.c includes orchestrator/compare/merge.h" <<'E'
sed -i '0,/#include "stats.h"/s//#include "stats.h"\n#include "merge.h"/' harness/common/stats.c
E
plant "a stage taking the command line" "rule 2: orchestrator/measure/pipeline.c:[0-9]+: takes the command line" <<'E'
printf '\nint bv_pipeline_argv(int argc, char **argv);\nint bv_pipeline_argv(int argc, char **argv) { return argc + (argv != 0); }\n' >> orchestrator/measure/pipeline.c
E
plant "two modules including each other" "rule 3: an include cycle between modules: (locate -> project -> locate|project -> locate -> project)" <<'E'
sed -i '0,/#include "git_util.h"/s//#include "git_util.h"\n#include "locate.h"/' orchestrator/fetch/project.c
grep -q '#include "project.h"' orchestrator/fetch/locate.h
E
# a family is one module: a stage that includes cli.h depends on every command
plant "a stage including the commands' header" "rule 3: an include cycle between modules: merge -> cli -> merge" <<'E'
sed -i '0,/#include "common.h"/s//#include "cli.h"\n#include "common.h"/' orchestrator/compare/merge.c
E
plant "a module without a header" "rule 4: orchestrator/util/orphan.c has no header of its own" <<'E'
printf '#include "common.h"\n\nint bv_orphan(void);\nint bv_orphan(void) { return 0; }\n' > orchestrator/util/orphan.c
E
plant "a header of no module" "rule 4: orchestrator/util/types.h belongs to no module" <<'E'
printf '#ifndef BV_TYPES_H\n#define BV_TYPES_H\ntypedef int bv_types_int;\n#endif\n' > orchestrator/util/types.h
E
plant "a family's file without the family's header" "rule 4: orchestrator/output/export_csv.c belongs to the family export but does not include its header export.h" <<'E'
grep -q '#include "export.h"' orchestrator/output/export_csv.c
sed -i '/#include "export.h"/d' orchestrator/output/export_csv.c
E
# a long function: 101 lines from its name to its brace, the signature on
# two lines (the count missed those once)
long_fn() { # NAME: a function of 101 lines, on stdout
	printf '\nint %s(int a,\n\tint b);\nint %s(int a,\n\tint b)\n{\n' "$1" "$1"
	for i in $(seq 1 96); do printf '\ta += b * %d;\n' "$i"; done
	printf '\treturn a;\n}\n'
}
plant "a function over 100 lines the docs do not name" "rule 5: orchestrator/compare/merge.c:[0-9]+: bv_planted_long is 101 lines, and docs/architecture.md's \"Long functions\" does not say why" <<E
$(declare -f long_fn)
long_fn bv_planted_long >> orchestrator/compare/merge.c
E
plant "eleven functions over 100 lines" "rule 5: [0-9]+ functions over 100 lines \(at most 10\)" <<E
$(declare -f long_fn)
for i in \$(seq 1 11); do long_fn bv_planted_long_\$i >> orchestrator/compare/merge.c; done
E
plant "a README over 150 lines" "rule 6: README.md has 1[0-9][0-9] lines \(at most 150\)" <<'E'
while [ "$(wc -l < README.md)" -le 150 ]; do echo "more prose" >> README.md; done
E
# text moved from README.md into docs/ with its link unchanged: the path
# was relative to the README
plant "a link whose path did not move with its text" "rule 7: docs/project.md:[0-9]+: the link docs/measurement.md names docs/docs/measurement.md, which does not exist" <<'E'
printf '\nSee [the method](docs/measurement.md).\n' >> docs/project.md
E
plant "a link to a heading that is not there" "rule 7: docs/project.md:[0-9]+: the link cli/run.md#no-such-section: docs/cli/run.md has no heading whose anchor is #no-such-section" <<'E'
printf '\nSee [run](cli/run.md#no-such-section).\n' >> docs/project.md
E
# a reference to a request, in a doc and in a comment wrapped over two
# lines; the words are printed, so this script holds none itself
plant "a reference to a request in a doc" "rule 8: docs/project.md:[0-9]+: \"[Ii]ssue 12\" names a request" <<'E'
printf '\nThe cache (%s %d) keeps every build.\n' "iss""ue" 12 >> docs/project.md
E
plant "a reference wrapped across two comment lines" "rule 8: orchestrator/compare/merge.c:[0-9]+: \"[Ii]ssues 7\" names a request" <<'E'
printf '\n/* The join of two logs (%s\n * %d, part 2). */\n' "iss""ues" 7 >> orchestrator/compare/merge.c
E
plant "a reference in a test script" "rule 8: tests/e2e/test_cache.sh:[0-9]+: \"[I]SSUE 3\" names a request" <<'E'
printf '# %s %d: the cache\n' "ISS""UE" 3 >> tests/e2e/test_cache.sh
E
# plan once: a stage that plans, or selects its cells, from the options
# instead of taking the command's plan; a command that plans twice; and a
# name in a comment or a message, which is no call
plant "a stage planning for itself" "rule 9: orchestrator/measure/shard.c:[0-9]+: plans from the options \(bv_plan_build\)" <<'E'
printf '\nint bv_shard_replan(const bv_measure_opts *o, bv_plan *p);\nint bv_shard_replan(const bv_measure_opts *o, bv_plan *p)\n{\n\treturn bv_plan_build(o, NULL, 0, p);\n}\n' >> orchestrator/measure/shard.c
E
plant "a stage selecting its cells again" "rule 9: orchestrator/measure/measure.c:[0-9]+: selects the plan's cells again \(bv_plan_cells\)" <<'E'
printf '\nlong bv_measure_cells(const bv_measure_opts *o, bv_cell **c);\nlong bv_measure_cells(const bv_measure_opts *o, bv_cell **c)\n{\n\tchar err[64];\n\treturn bv_plan_cells(o, c, NULL, err, sizeof(err));\n}\n' >> orchestrator/measure/measure.c
E
plant "a command planning twice" "rule 9: orchestrator/cli/cmd_plan.c plans on 2 lines \([0-9]+, [0-9]+\)" <<'E'
grep -q 'bv_plan_build(' orchestrator/cli/cmd_plan.c
printf '\nint bv_plan_again(bv_measure_opts *o, bv_plan *p);\nint bv_plan_again(bv_measure_opts *o, bv_plan *p)\n{\n\treturn bv_plan_build(o, NULL, 0, p);\n}\n' >> orchestrator/cli/cmd_plan.c
E
check "a planner's name in a comment or a message is no call" python3 - "$ROOT/scripts/layout.py" "$TMP" <<'PY'
import os, subprocess, sys
root, copy = os.path.join(os.path.dirname(sys.argv[1]), ".."), os.path.join(sys.argv[2], "named")
os.makedirs(copy)
for d in ("orchestrator", "harness", "kernels", "docs", "tests", "README.md"):
    subprocess.run(["cp", "-r", os.path.join(root, d), copy], check=True)
with open(os.path.join(copy, "orchestrator", "measure", "shard.c"), "a") as f:
    f.write('\n/* not bv_plan_build(o, vs, n, p) nor\n * bv_plan_cells(o, c, NULL, e, 1) */\n'
            'const char *bv_shard_said(void);\nconst char *bv_shard_said(void) { return "bv_plan_build(x)"; }\n')
out = subprocess.run([sys.executable, sys.argv[1], copy], capture_output=True, text=True).stdout
assert "rule 9" not in out, out
PY
# a file over 1,000 lines, and a command over 500 (comment lines count)
plant "a source file over 1,000 lines" "rule 10: orchestrator/util/fs.c has 1[0-9]{3} lines, and a source file has at most 1000" <<'E'
n=$(wc -l < orchestrator/util/fs.c); for i in $(seq "$n" 1000); do echo "/* planted line $i */"; done >> orchestrator/util/fs.c
E
plant "a command over 500 lines" "rule 10: orchestrator/cli/cmd_list.c has 501 lines, and a command has at most 500" <<'E'
n=$(wc -l < orchestrator/cli/cmd_list.c); for i in $(seq "$n" 500); do echo "/* planted line $i */"; done >> orchestrator/cli/cmd_list.c
E
plant "a harness file over 1,000 lines" "rule 10: harness/common/stats.c has 1001 lines" <<'E'
n=$(wc -l < harness/common/stats.c); for i in $(seq "$n" 1000); do echo "/* planted line $i */"; done >> harness/common/stats.c
E
# the folders: a file outside them, a command elsewhere, a header away from
# its .c, a folder the architecture page does not name
plant "a file at orchestrator/'s top" "rule 11: orchestrator/stray.c is not in one of orchestrator/'s folders" <<'E'
printf '#include "stray.h"\n' > orchestrator/stray.c
printf '#ifndef BV_STRAY_H\n#define BV_STRAY_H\n#endif\n' > orchestrator/stray.h
E
plant "a command outside cli/" "rule 11: orchestrator/util/cmd_list.c is a command, and commands live in orchestrator/cli/" <<'E'
mv orchestrator/cli/cmd_list.c orchestrator/util/
E
plant "an output format outside output/" "rule 11: orchestrator/compare/export_csv.c is an output format, and output formats live in orchestrator/output/" <<'E'
mv orchestrator/output/export_csv.c orchestrator/compare/
E
plant "a header away from its .c" "rule 11: orchestrator/util/merge.h is not beside its orchestrator/compare/merge.c" <<'E'
mv orchestrator/compare/merge.h orchestrator/util/
E
plant "a folder the architecture page does not name" "rule 11: orchestrator/share/ is not named in docs/architecture.md's \"Folders\"" <<'E'
sed -i 's|orchestrator/share/|orchestrator/sharing/|g' docs/architecture.md
E
# harness/'s three products: a file outside them, and a plugin's file
# linked into the CLI
plant "a file at harness/'s top" "rule 11: harness/stray.c is not in one of harness/'s products" <<'E'
printf 'int bv_stray;\n' > harness/stray.c
E
plant "a plugin's file linked into a program" "rule 11: harness/plugin/catalog.c is in the plugin's folder, but the Makefile links it into a program" <<'E'
sed -i 's|^HARNESS_HOST := |HARNESS_HOST := harness/plugin/catalog.c |' Makefile
E
plant "a runner's file the runner does not link" "rule 11: harness/runner/pages.c is in bv-runner's folder, but the Makefile does not link it" <<'E'
sed -i 's|\$(OBJ)/harness/runner/pages.o ||' Makefile
E
check "no request named in a fixture, nor in a word that ends in 'issue'" python3 - "$ROOT/scripts/layout.py" "$TMP" <<'PY'
import os, subprocess, sys
root, copy = os.path.join(os.path.dirname(sys.argv[1]), ".."), os.path.join(sys.argv[2], "fixtures")
os.makedirs(copy)
for d in ("orchestrator", "harness", "kernels", "docs", "tests", "README.md"):
    subprocess.run(["cp", "-r", os.path.join(root, d), copy], check=True)
ref = "is" + "sue 12"
with open(os.path.join(copy, "tests", "e2e", "fixtures", "planted.sh"), "w") as f:
    f.write("# " + ref + ": a fixture may quote a request\n")
with open(os.path.join(copy, "docs", "planted.md"), "w") as f:
    f.write("# Planted\n\nThe t" + ref + " sample.\n")
out = subprocess.run([sys.executable, sys.argv[1], copy], capture_output=True, text=True).stdout
assert "planted" not in out, out
PY
check "a link to a heading as GitHub names it resolves (code, punctuation, the second of two alike)" python3 - "$ROOT/scripts/layout.py" "$TMP" <<'PY'
import os, subprocess, sys
root, copy = os.path.join(os.path.dirname(sys.argv[1]), ".."), os.path.join(sys.argv[2], "anchors")
os.makedirs(copy)
for d in ("orchestrator", "harness", "kernels", "docs", "tests", "README.md"):
    subprocess.run(["cp", "-r", os.path.join(root, d), copy], check=True)
with open(os.path.join(copy, "docs", "planted.md"), "w") as f:
    f.write("# Planted\n\n## Comparison (`--format json`)\n\n## Notes\n\n## Notes\n\n```\n## Not a heading\n```\n\n"
            "[a](#comparison---format-json) [b](#notes-1) [c](cli/run.md#options) [d](../README.md)\n"
            "`[not a link](nowhere.md)` [e](#not-a-heading)\n")
out = subprocess.run([sys.executable, sys.argv[1], copy], capture_output=True, text=True).stdout
bad = [l for l in out.split("\n") if "planted.md" in l]
assert len(bad) == 1 and "#not-a-heading" in bad[0], out
PY
check "a function of 100 lines is not long" python3 - "$ROOT/scripts/layout.py" "$TMP" <<'PY'
import os, subprocess, sys
root, copy = os.path.join(os.path.dirname(sys.argv[1]), ".."), os.path.join(sys.argv[2], "hundred")
os.makedirs(copy)
for d in ("orchestrator", "harness", "kernels", "docs", "tests", "README.md"):
    subprocess.run(["cp", "-r", os.path.join(root, d), copy], check=True)
body = "".join("\ta += %d;\n" % i for i in range(95))
with open(os.path.join(copy, "orchestrator", "compare", "merge.c"), "a") as f:
    f.write("\nint bv_hundred(int a,\n\tint b);\nint bv_hundred(int a,\n\tint b)\n{\n" + body + "\treturn a + b;\n}\n")
out = subprocess.run([sys.executable, sys.argv[1], copy], capture_output=True, text=True).stdout
assert "bv_hundred" not in out, out
PY
finish
