/*
 * stages.h - the pipeline every version flows through, one file per stage:
 *
 *   resolve.c  name -> exact tree (git revision, release number, `local`)
 *   fetch.c    tree -> source directory in the cache
 *   compat.c   kernel version -> shims from compat/compat.json
 *   build.c    source + shims + harness -> bench plugin (cached)
 *   measure.c  plugins -> paired samples in many short processes -> logs
 *   merge.c    logs -> one comparison table
 *   verdict.c  the table's verdicts, decided over all its cells together
 *   export*.c  table -> text, json, ...
 *
 * Only an umbrella now: each stage declares itself in its own header
 * (resolve.h, fetch.h, compat.h, build.h, measure.h, run_options.h,
 * pipeline.h, merge.h, verdict.h, backends.h, export.h, remote.h; the
 * table's types in table.h), which is what new code includes, so that
 * scripts/layout.py (rule 3) sees what a module depends on.  The files that
 * still include this one are listed in docs/architecture.md ("Layout
 * rules"); issue 33.
 */
#ifndef BV_STAGES_H
#define BV_STAGES_H

#include <regex.h>
#include <stddef.h>
#include <stdio.h>

#include "semver.h"
#include "stats.h"
#include "status.h"

#include "backends.h"
#include "build.h"
#include "compat.h"
#include "export.h"
#include "fetch.h"
#include "measure.h"
#include "merge.h"
#include "pipeline.h"
#include "remote.h"
#include "resolve.h"
#include "run_options.h"
#include "table.h"
#include "verdict.h"

#endif
