#!/usr/bin/env python3
"""scripts/layout.py [ROOT] - the rules of the source layout (docs/architecture.md,
"Layout rules"), checked; exit 1 naming each break.

1. The harness stands alone: nothing in harness/ includes a header of
   orchestrator/ (the runner and the plugins are built without it).
2. Only the commands take the command line: no function defined in
   orchestrator/ has an `int argc` parameter but in the commands (cmd_*.c, main.c) and
   the option parsers (options.c, run_options.c).  A stage gets what the
   command took from argv (bv_run_cli_given), never argv.
3. No include cycle between modules.  A module is one .c file and its
   header (M.c, M.h), or a family (rule 4): its members' .c files, its
   header and any header a member has of its own.  Module M depends on
   module N when a file of M includes a header of N (a header belongs to
   the module of the .c file of its name, a family's header to the family);
   the graph of modules has no cycle.  A family is one node, not one per
   member: cli.h declares every command, so a file that includes it depends
   on all of them, and the cycle check sees that.
4. Every module has a header of its own: each orchestrator/M.c has M.h, or
   belongs to a family (FAMILIES: the commands cmd_*.c and main.c, whose
   header is cli.h as git's builtin.h is; one file per export format,
   export_*.c, and one per report format, report_*.c, beside export.c and
   report.c, one per format of history, history_<format>.c, beside
   history_format.c, and one per format of bisect's answer,
   bisect_answer_*.c, beside bisect_answer.c; a stage split into files by
   what they do, build_*.c, counts_*.c, merge_*.c, resolve_*.c, slurm_*.c
   and store_*.c beside build.c, counts.c, merge.c, resolve.c, slurm.c and
   store.c, whose members share what other modules do not see through a
   header of a member's own, such as counts_make.h; and the site's pages,
   site_<kind>.c beside site.c, sharing site_page.h) and includes the
   family's header.  And every header belongs to a module (M.h to M.c, a
   family's header to the family): rule 3 could not see what depends on a
   header of no module.
5. At most LONG_MAX functions in orchestrator/ and harness/ are over 100
   lines, counted from the line that names the function (its signature may
   span lines) to its closing brace, and docs/architecture.md's "Long
   functions" names each of them (`name`) with why it stays.
6. README.md has at most README_MAX lines: what it is, the two commands, one
   table and where to go next; the rest is one link away, in docs/.
7. Every relative link in README.md and docs/**/*.md resolves: its file
   exists, and a `#anchor` into a page names one of that page's headings
   (as GitHub makes them: lower case, punctuation dropped, spaces to
   hyphens, "-1" on the second of two alike).  Text moved between pages
   keeps its links only where their relative paths were moved with it.
8. No "issue N" (nor "issues N", any case, N a number) in README.md,
   docs/**/*.md or the sources: the .c, .h, .cu, .md, .sh and .py files and
   Makefiles of harness/, orchestrator/, kernels/, tests/ and scripts/ (and
   scripts/' files without an extension), and the Makefile;
   tests/e2e/fixtures/ aside: the docs and the
   comments say what a thing is or does, not which request asked for it;
   proof runs go to docs/evidence/ with their command.  A reference wrapped
   across two comment lines counts too.
9. Plan once: a command builds its plan (the cells, their cut, the shard's
   part, the plan block: bv_plan, plan.h) once, with the planner
   (bv_plan_build, planner.c), and hands it to its stages.  Outside
   planner.c, bv_plan_build is called only by the commands (cmd_*.c) and
   the pipeline (pipeline.c), from at most one line of each file; and the
   cells are selected from the options (bv_plan_cells) only in plan.c,
   planner.c and the commands: never again in a stage (measure*.c, shard.c,
   slurm.c, pipeline.c, ...), which takes the plan's cells.  Comments and
   strings do not count.
10. Files a newcomer can read: no source file (.c, .h) of the tool, in
   orchestrator/ or harness/ (their folders included), is over FILE_MAX
   lines, and no command (cmd_*.c, main.c) over COMMAND_MAX: a command
   reads its options and calls the stages; what it computes or prints
   belongs to a module a test can reach.  kernels/ is the library being
   compared, not the tool: its files are its own releases' business.
11. Folders that show the pipeline: every file of orchestrator/ lies in one
   of the folders FOLDERS names, none at its top, and docs/architecture.md's
   "Folders" section names each folder (`orchestrator/NAME/`).  A header
   lies beside its .c file.  The commands (cmd_*.c, main.c, cli.h) are in
   cli/; an output format (export_FORMAT.c, report_FORMAT.c,
   history_FORMAT.c, bisect_answer_FORMAT.c) in output/.  harness/ is three products, a folder
   each, and the Makefile must agree: runner/ is bv-runner's alone (its .c
   files in RUNNER_OBJS, none in HARNESS_HOST, which the CLI links);
   plugin/ is compiled into each version's plugin at run time (in
   PLUGIN_SOURCES, in neither program); common/ is what more than one of
   them takes.
"""
import glob
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
orch, harness = os.path.join(root, "orchestrator"), os.path.join(root, "harness")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([\w./]+)\.h"', re.M)
broken = []


def text(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def name(path):
    return os.path.splitext(os.path.basename(path))[0]


def tree(d, pattern):
    """the files of d that match pattern, in d and in its folders"""
    return sorted(glob.glob(os.path.join(d, "**", pattern), recursive=True))


# orchestrator/'s files by name (M.c, M.h), wherever their folder (rule 11)
orch_path = {os.path.basename(p): p for p in tree(orch, "*.[ch]")}


def orel(f):
    """orchestrator/FOLDER/f, as the tree has it (f: M.c or M.h)"""
    return os.path.relpath(orch_path.get(f, os.path.join(orch, f)), root)


# 1. harness/ includes nothing of orchestrator/
orch_headers = {name(h) for h in tree(orch, "*.h")}
harness_headers = {name(h) for h in tree(harness, "*.h")}
for f in tree(harness, "*.[ch]"):
    for inc in INCLUDE.findall(text(f)):
        if inc in orch_headers and inc not in harness_headers:
            broken.append(f"rule 1: {os.path.relpath(f, root)} includes {orel(inc + '.h')}: "
                          "the harness is built without the orchestrator")

# 2. argv only in the commands and the option parsers
allowed = re.compile(r"^(cmd_\w+|main|options|run_options)$")
for f in tree(orch, "*.c"):
    if allowed.match(name(f)):
        continue
    for n, line in enumerate(text(f).split("\n"), 1):
        if re.search(r"\bint\s+argc\b", line):
            broken.append(f"rule 2: {os.path.relpath(f, root)}:{n}: takes the command line (int argc): "
                          "only commands and the option parsers do; pass what the command took "
                          "(bv_run_cli_given)")

# 4. every module has a header of its own: M.h, or its family's
FAMILIES = {  # family: (the .c files that are its members, its header)
    "cli": (re.compile(r"^(cmd_\w+|main)$"), "cli"),
    "export": (re.compile(r"^export(_\w+)?$"), "export"),
    "report": (re.compile(r"^report(_\w+)?$"), "report"),
    "counts": (re.compile(r"^counts(_\w+)?$"), "counts"),
    "merge": (re.compile(r"^merge(_\w+)?$"), "merge"),
    "store": (re.compile(r"^store(_\w+)?$"), "store"),
    "history_format": (re.compile(r"^history_(format|text|md|json|html)$"), "history_format"),
    "build": (re.compile(r"^build(_\w+)?$"), "build"),
    "resolve": (re.compile(r"^resolve(_\w+)?$"), "resolve"),
    "slurm": (re.compile(r"^slurm(_\w+)?$"), "slurm"),
    "bisect_answer": (re.compile(r"^bisect_answer(_\w+)?$"), "bisect_answer"),
    "site": (re.compile(r"^site(_(page|index|cells|chart|backends|regressions|quarantine|data))?$"), "site"),
}
sources = {name(c) for c in tree(orch, "*.c")}
headers = {name(h) for h in tree(orch, "*.h")}


def family(m):
    return next((fam for fam, (members, _) in FAMILIES.items() if members.match(m)), None)


for m in sorted(sources):
    fam = family(m)
    if m in headers or fam is None:
        if m not in headers:
            broken.append(f"rule 4: {orel(m + '.c')} has no header of its own: declare what it "
                          f"defines in {m}.h (or make it a member of a family in scripts/layout.py)")
        continue
    fh = FAMILIES[fam][1]
    if fh not in headers:
        broken.append(f"rule 4: {orel(m + '.c')} belongs to the family {fam}, whose header "
                      f"{fh}.h is missing")
    elif fh not in INCLUDE.findall(text(orch_path[m + ".c"])):
        broken.append(f"rule 4: {orel(m + '.c')} belongs to the family {fam} but does not include "
                      f"its header {fh}.h")

for h in sorted(headers):
    if h not in sources and not any(h == fh for _, fh in FAMILIES.values()):
        broken.append(f"rule 4: {orel(h + '.h')} belongs to no module (there is no {h}.c, and it is "
                      "no family's header): rule 3 cannot see what depends on it")

# 3. no include cycle between modules (a family is one module)
module = {m: family(m) or m for m in sources}
owner = {h: module[h] for h in headers if h in module}  # the module a header belongs to
owner.update({fh: fam for fam, (_, fh) in FAMILIES.items()})
files = {}
for m in sources:
    files.setdefault(module[m], []).append(m + ".c")
for h, mod in owner.items():
    if mod in files:
        files[mod].append(h + ".h")
deps = {}
for mod, fs in files.items():
    incs = set()
    for f in fs:
        path = orch_path.get(f)
        if path:
            incs |= set(INCLUDE.findall(text(path)))
    deps[mod] = sorted({owner[i] for i in incs if i in owner} - {mod})
state, path = {}, []


def visit(m):
    state[m] = 1
    path.append(m)
    for d in deps[m]:
        if state.get(d) == 1:
            cycle = path[path.index(d):] + [d]
            broken.append("rule 3: an include cycle between modules: " + " -> ".join(cycle))
        elif d not in state:
            visit(d)
    path.pop()
    state[m] = 2


for m in sorted(deps):
    if m not in state:
        visit(m)

# 5. long functions: few, and each one said why in the docs
LONG_LINES, LONG_MAX = 100, 10


def functions(path):
    """(name, first line, lines) of each function defined in path: a body
    opens with a "{" line of its own at column 0 (the style of every file
    here), the signature is the lines above it back to the one at column 0,
    and the body closes at the next "}" line at column 0."""
    lines = text(path).split("\n")
    for i, line in enumerate(lines):
        if line != "{":
            continue
        j = i - 1
        while j > 0 and lines[j][:1] in (" ", "\t"):
            j -= 1
        m = re.search(r"(\w+)\s*\(", lines[j])
        k = next((k for k in range(i + 1, len(lines)) if lines[k] == "}"), len(lines) - 1)
        if m:
            yield m.group(1), j + 1, k - j + 1


long_fns = []
for d in (orch, harness):
    for path in tree(d, "*.c"):
        rel = os.path.relpath(path, root)
        long_fns += [(n, rel, name, first) for name, first, n in functions(path) if n > LONG_LINES]
if len(long_fns) > LONG_MAX:
    broken.append(f"rule 5: {len(long_fns)} functions over {LONG_LINES} lines (at most {LONG_MAX}): " +
                  ", ".join(f"{rel} {name} ({n})" for n, rel, name, _ in sorted(long_fns, reverse=True)))
arch = os.path.join(root, "docs", "architecture.md")
said = text(arch).split("## Long functions", 1)[-1].split("\n## ", 1)[0] if os.path.exists(arch) else ""
for n, rel, name, first in sorted(long_fns, reverse=True):
    if f"`{name}`" not in said:
        broken.append(f"rule 5: {rel}:{first}: {name} is {n} lines, and docs/architecture.md's "
                      f"\"Long functions\" does not say why (`{name}`)")

# 6. the README fits a screen or two
README_MAX = 150
readme = os.path.join(root, "README.md")
if os.path.exists(readme):
    n = len(text(readme).splitlines())
    if n > README_MAX:
        broken.append(f"rule 6: README.md has {n} lines (at most {README_MAX}): keep what it is, the two "
                      "commands, one table and where to go next, and move the rest to the docs page "
                      "where it belongs, one link away")
else:
    broken.append("rule 6: README.md is missing")

# 7. every relative link in README.md and docs/ resolves
FENCE = re.compile(r"^\s*```")
LINK = re.compile(r"\]\(([^)\s]+)\)")


def lines_outside_code(path, keep_code=False):
    """(line number, line) of path outside fenced blocks, inline code
    removed unless keep_code (a heading's anchor keeps its code's text)"""
    fenced = False
    for n, line in enumerate(text(path).split("\n"), 1):
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            yield n, line if keep_code else re.sub(r"`[^`]*`", "", line)


anchor_cache = {}


def anchors(path):
    """the anchors GitHub makes for the headings of path (and any id= or name=)"""
    if path not in anchor_cache:
        seen, out = {}, set()
        for _, line in lines_outside_code(path, keep_code=True):
            out |= set(re.findall(r"""(?:id|name)=["']([^"']+)["']""", line))
            m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if not m:
                continue
            slug = re.sub(r"[^\w\- ]", "", m.group(1).lower()).replace(" ", "-")
            k = seen.get(slug, 0)
            seen[slug] = k + 1
            out.add(slug if k == 0 else f"{slug}-{k}")
        anchor_cache[path] = out
    return anchor_cache[path]


pages = ([readme] if os.path.exists(readme) else []) + \
    sorted(glob.glob(os.path.join(root, "docs", "**", "*.md"), recursive=True))
for page in pages:
    rel = os.path.relpath(page, root)
    for n, line in lines_outside_code(page):
        for target in LINK.findall(line):
            if re.match(r"[a-zA-Z][a-zA-Z0-9+.-]*:", target):
                continue  # a URL (https:, mailto:), not a path here
            path, _, anchor = target.partition("#")
            where = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
            if not os.path.exists(where):
                broken.append(f"rule 7: {rel}:{n}: the link {target} names {os.path.relpath(where, root)}, "
                              "which does not exist (a relative path changes when text moves between pages)")
            elif anchor and where.endswith(".md") and anchor not in anchors(where):
                broken.append(f"rule 7: {rel}:{n}: the link {target}: {os.path.relpath(where, root)} has no "
                              f"heading whose anchor is #{anchor}")

# 8. no "issue N": the docs and the code describe the product, not its history
ISSUE_REF = re.compile(r"\b(issues?)(?:[ \t]+|[ \t]*\n[ \t]*(?:#|\*|//)?[ \t]*)([0-9]+)", re.I)
SOURCE_EXT = (".c", ".h", ".cu", ".md", ".sh", ".py")


def issue_scope():
    """the files rule 8 reads: README.md, docs/, the sources, tests/ but its fixtures"""
    out = [readme] if os.path.exists(readme) else []
    out += glob.glob(os.path.join(root, "docs", "**", "*.md"), recursive=True)
    for d in ("harness", "orchestrator", "kernels", "tests", "scripts"):
        for path in glob.glob(os.path.join(root, d, "**", "*"), recursive=True):
            rel = os.path.relpath(path, root).replace(os.sep, "/")
            if rel.startswith("tests/e2e/fixtures/") or not os.path.isfile(path):
                continue
            if path.endswith(SOURCE_EXT) or os.path.basename(path) == "Makefile" or \
                    (d == "scripts" and "." not in os.path.basename(path)):
                out.append(path)
    out += [m for m in [os.path.join(root, "Makefile")] if os.path.exists(m)]
    return sorted(set(out))


for path in issue_scope():
    body = text(path)
    for m in ISSUE_REF.finditer(body):
        n = body.count("\n", 0, m.start()) + 1
        said = f"{m.group(1)} {m.group(2)}"  # as one line, a wrapped one too
        broken.append(f"rule 8: {os.path.relpath(path, root)}:{n}: \"{said}\" names a request, not "
                      "what the thing is or does: say that instead (a proof run goes to docs/evidence/ "
                      "with its command)")

# 9. plan once: one planner call per command, no stage selecting its own cells
PLANS = re.compile(r"^(cmd_\w+|pipeline)$")   # may call the planner, once each
SELECTS = re.compile(r"^(cmd_\w+|plan|planner)$")  # may select cells from the options


def code_lines(path):
    """(line number, line) of a C file with its comments and string literals
    blanked (their newlines kept), so a name in a message is not a call"""
    body = re.sub(r'/\*.*?\*/|"(?:\\.|[^"\\\n])*"|//[^\n]*',
                  lambda m: re.sub(r"[^\n]", " ", m.group(0)), text(path), flags=re.S)
    return enumerate(body.split("\n"), 1)


for f in tree(orch, "*.c"):
    m, rel = os.path.splitext(os.path.basename(f))[0], os.path.relpath(f, root)
    builds = []
    for n, line in code_lines(f):
        if re.search(r"\bbv_plan_build\s*\(", line) and not re.match(r"^\w", line):
            builds.append(n)
            if m != "planner" and not PLANS.match(m):
                broken.append(f"rule 9: {rel}:{n}: plans from the options (bv_plan_build): only a command "
                              "(cmd_*.c) or the pipeline (pipeline.c) does, once; a stage takes the plan it "
                              "is handed (bv_plan, plan.h)")
        if re.search(r"\bbv_plan_cells\s*\(", line) and not re.match(r"^\w", line) and not SELECTS.match(m):
            broken.append(f"rule 9: {rel}:{n}: selects the plan's cells again (bv_plan_cells): take them from "
                          "the plan the command built (bv_plan's cells, planner.h)")
    if PLANS.match(m) and len(builds) > 1:
        broken.append(f"rule 9: {rel} plans on {len(builds)} lines ({', '.join(map(str, builds))}): a command "
                      "builds its plan once (bv_plan_build) and hands it to every stage")
# 10. no file too long to find one's way in; a command only reads and calls
FILE_MAX, COMMAND_MAX = 1000, 500
for d in (orch, harness):
    for path in sorted(glob.glob(os.path.join(d, "**", "*.[ch]"), recursive=True)):
        n = text(path).count("\n")
        base = os.path.basename(path)
        limit = COMMAND_MAX if re.fullmatch(r"cmd_\w+\.c|main\.c", base) and path.startswith(orch) else FILE_MAX
        if n > limit:
            what = "a command" if limit == COMMAND_MAX else "a source file"
            broken.append(f"rule 10: {os.path.relpath(path, root)} has {n} lines, and {what} has at most "
                          f"{limit}: split it where its parts do different things, each file named for what "
                          "it does" + (" (a command reads its options and calls the stages; the rest "
                                       "goes to a module)" if limit == COMMAND_MAX else ""))

# 11. folders that show the pipeline, each named where a newcomer looks
FOLDERS = ("cli", "fetch", "build", "measure", "compare", "history", "output", "share", "publish", "util")
IN_FOLDER = [(re.compile(r"^(cmd_\w+|main|cli)$"), "cli", "a command"),
             (re.compile(r"^(export_\w+|report_(html|md|junit|text)|history_(format|text|md|json|html)|"
                         r"bisect_answer(_\w+)?)$"),
              "output", "an output format")]
arch_text = text(arch) if os.path.exists(arch) else ""
folders_doc = arch_text.split("\n## Folders", 1)[1].split("\n## ", 1)[0] if "\n## Folders" in arch_text else ""
for f, path in sorted(orch_path.items()):
    rel = os.path.relpath(path, root)
    parts = os.path.relpath(path, orch).split(os.sep)
    if len(parts) != 2 or parts[0] not in FOLDERS:
        broken.append(f"rule 11: {rel} is not in one of orchestrator/'s folders ({', '.join(FOLDERS)}): "
                      "put it where its stage is (docs/architecture.md, \"Folders\"); a new folder goes in "
                      "FOLDERS and that section")
        continue
    for members, want, what in IN_FOLDER:
        if members.match(os.path.splitext(f)[0]) and parts[0] != want:
            broken.append(f"rule 11: {rel} is {what}, and {what.split(' ', 1)[1]}s live in orchestrator/{want}/")
    c = orch_path.get(os.path.splitext(f)[0] + ".c")
    if f.endswith(".h") and c and os.path.dirname(c) != os.path.dirname(path):
        broken.append(f"rule 11: {rel} is not beside its {os.path.relpath(c, root)}: a header lies in "
                      "its .c file's folder")
for d in FOLDERS:
    if os.path.isdir(os.path.join(orch, d)) and f"orchestrator/{d}/" not in folders_doc:
        broken.append(f"rule 11: orchestrator/{d}/ is not named in docs/architecture.md's \"Folders\": "
                      "say what it holds there")

HARNESS_FOLDERS = ("runner", "plugin", "common")
make = text(os.path.join(root, "Makefile")) if os.path.exists(os.path.join(root, "Makefile")) else None


def make_list(var):
    """the harness/ files a Makefile variable names (with its continued lines)"""
    m = re.search(r"^" + var + r"\s*:?=((?:.*\\\n)*.*)$", make or "", re.M)
    return set(re.findall(r"harness/([\w/]+)\.[cho]\b", m.group(1))) if m else set()


lists = {v: make_list(v) for v in ("RUNNER_OBJS", "HARNESS_HOST", "PLUGIN_SOURCES")}
for path in tree(harness, "*"):
    if os.path.isdir(path):
        continue
    rel, parts = os.path.relpath(path, root), os.path.relpath(path, harness).split(os.sep)
    if len(parts) != 2 or parts[0] not in HARNESS_FOLDERS:
        broken.append(f"rule 11: {rel} is not in one of harness/'s products ({', '.join(HARNESS_FOLDERS)}): "
                      "put it with the program it goes into (docs/architecture.md, \"Folders\")")
        continue
    if make is None or not path.endswith(".c"):
        continue
    stem = os.path.splitext(os.path.relpath(path, harness))[0]
    if parts[0] == "runner" and (stem not in lists["RUNNER_OBJS"] or stem in lists["HARNESS_HOST"]):
        broken.append(f"rule 11: {rel} is in bv-runner's folder, but the Makefile does not link it into "
                      "bv-runner alone (RUNNER_OBJS, and not HARNESS_HOST)")
    if parts[0] == "plugin" and (stem in lists["RUNNER_OBJS"] or stem in lists["HARNESS_HOST"] or
                                 stem not in lists["PLUGIN_SOURCES"]):
        broken.append(f"rule 11: {rel} is in the plugin's folder, but the Makefile links it into a program "
                      "or does not install it with the plugin's sources (PLUGIN_SOURCES)")
for d in HARNESS_FOLDERS:
    if os.path.isdir(os.path.join(harness, d)) and f"harness/{d}/" not in folders_doc:
        broken.append(f"rule 11: harness/{d}/ is not named in docs/architecture.md's \"Folders\": "
                      "say what it holds there")

for b in sorted(broken, key=lambda b: b.split(":")[0]):  # by rule, each rule's in order found
    print(b)
owned = [mod for mod in files if any(f.endswith(".h") for f in files[mod])]
members = sum(1 for m in sources if family(m))
print(f"layout: {len(broken)} broken rule{'s' if len(broken) != 1 else ''} "
      f"({len(owned)} of {len(files)} modules with a header of their own; {len(sources)} .c files, "
      f"{members} of them in {len({family(m) for m in sources} - {None})} families; "
      f"{len(long_fns)} functions over {LONG_LINES} lines)")
sys.exit(1 if broken else 0)
