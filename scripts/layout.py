#!/usr/bin/env python3
"""scripts/layout.py [ROOT] - the rules of the source layout (docs/architecture.md,
"Layout rules"), checked; exit 1 naming each break.

1. The harness stands alone: nothing in harness/ includes a header of
   orchestrator/ (the runner and the plugins are built without it).
2. Only the commands take the command line: no function defined in
   orchestrator/ has an `int argc` parameter but in the commands (cmd_*.c, main.c) and
   the option parsers (options.c, run_options.c).  A stage gets what the
   command took from argv (bv_run_cli_given), never argv.
3. No include cycle between modules: module M (M.c) depends on module N
   when M.c or M.h includes N.h and N.c exists; the graph of modules that
   have a header of their own has no cycle.
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


# 1. harness/ includes nothing of orchestrator/
orch_headers = {name(h) for h in glob.glob(os.path.join(orch, "*.h"))}
harness_headers = {name(h) for h in glob.glob(os.path.join(harness, "*.h"))}
for f in sorted(glob.glob(os.path.join(harness, "*.[ch]"))):
    for inc in INCLUDE.findall(text(f)):
        if inc in orch_headers and inc not in harness_headers:
            broken.append(f"rule 1: {os.path.relpath(f, root)} includes orchestrator/{inc}.h: "
                          "the harness is built without the orchestrator")

# 2. argv only in the commands and the option parsers
allowed = re.compile(r"^(cmd_\w+|main|options|run_options)$")
for f in sorted(glob.glob(os.path.join(orch, "*.c"))):
    if allowed.match(name(f)):
        continue
    for n, line in enumerate(text(f).split("\n"), 1):
        if re.search(r"\bint\s+argc\b", line):
            broken.append(f"rule 2: {os.path.relpath(f, root)}:{n}: takes the command line (int argc): "
                          "only commands and the option parsers do; pass what the command took "
                          "(bv_run_cli_given)")

# 3. no include cycle between modules that have a header of their own
sources = {name(c) for c in glob.glob(os.path.join(orch, "*.c"))}
owned = {m for m in sources if os.path.exists(os.path.join(orch, m + ".h"))}
deps = {}
for m in owned:
    incs = set(INCLUDE.findall(text(os.path.join(orch, m + ".c"))))
    incs |= set(INCLUDE.findall(text(os.path.join(orch, m + ".h"))))
    deps[m] = sorted(i for i in incs if i in owned and i != m)
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


for m in sorted(owned):
    if m not in state:
        visit(m)

for b in broken:
    print(b)
print(f"layout: {len(broken)} broken rule{'s' if len(broken) != 1 else ''} "
      f"({len(owned)} modules with a header of their own, of {len(sources)})")
sys.exit(1 if broken else 0)
