/*
 * suite.h - a project's benchmark suite on the orchestrator's side
 * (harness/plugin/bv_suite.h is the API a suite is written in, docs/suites-design.md
 * how the parts fit): where the suite is, its part of a build's key, and the
 * description of its cells made from the versions' builds.
 *
 * A suite's cells are known only once the versions are built: each build's
 * plugin describes the benchmarks its version has (bv-runner --describe),
 * and the run's description is the union of them, written to the results
 * directory as suite.json and registered (harness/common/suite_file.c) before any
 * cell is planned.  So the checks of the selection that run before the
 * builds leave a suite's names alone (bv_suite_dir set), and are made again
 * once it is registered (bv_suite_describe).  bisect and history build
 * without bv_run_versions and call the same function after their builds;
 * their runners get the same arguments (bv_suite_runner_args, which
 * bv_measure and the counts add to every bv-runner command line).
 */
#ifndef BV_SUITE_ORCH_H
#define BV_SUITE_ORCH_H

#include <stddef.h>

#include "common.h"
#include "plan.h"
#include "resolve.h"

/* The suite's directory (absolute, in the working tree of the repository
 * the project file is in), or NULL: the project names none.  The opened
 * repository's project once there is one (bv_repo_open), else the one
 * around KERNEL_DIR or the current directory (bv_project_here), so that a
 * command's checks before it opens the repository agree with its builds. */
const char *bv_suite_dir(void);

/* A suite build's part of a build key: harness/plugin/bv_suite.h and
 * harness/plugin/suite_plugin.c of this checkout, and every regular file under the
 * suite's directory (sorted, labelled with its path there, by content). */
int bv_suite_key(bv_buf *b);

/* The suite's .c files at the top of its directory, sorted by name (byte
 * order), as absolute paths.  BV_EINPUT when the directory cannot be read
 * or holds none. */
int bv_suite_sources(bv_strv *out);

/* After the builds, for every command that measures what it built (run
 * and report through bv_run_versions, bisect, history): nothing without a
 * project suite; else bv-runner --describe over the plugins of the
 * versions that built, each version's description checked and merged in
 * the order of vs (a version whose build failed, or whose plugin describes
 * no suite, is left out).
 *
 * The first call of a command writes the union to DIR/suite.json and
 * registers it here (bv_suite_file_load).  A later call (bisect's next
 * commit, report's second run) registers nothing: its versions must agree
 * with every version described before (a benchmark they add is theirs
 * alone, not measured by this command), and DIR/suite.json is a copy of
 * the registered description, the one their runners read.
 *
 * Then the selection is settled against the registered suite: without
 * --benches, the suite's group; --benches naming anything else is refused
 * (a suite build has no catalog), and the selection must name cells.
 * BV_EINPUT for descriptions that disagree (the message names the two
 * versions), BV_ERUN when no version built. */
int bv_suite_describe(const bv_version *vs, size_t n, const char *dir, bv_measure_opts *mo);

/* DIR/suite.json, where bv_suite_describe writes the run's description, or
 * DIR/raw/suite.json where a version's label is "suite" (its log is
 * DIR/suite.json); malloc'd. */
char *bv_suite_description_path(const bv_version *vs, size_t n, const char *dir);
/* --benches naming anything but the suite's group (name): BV_EINPUT, as
 * bv_suite_describe refuses it (a suite build has no catalog); else 0. */
int bv_suite_benches_check(const bv_measure_opts *mo, const char *name);

/* --suite-file F --suite-hash H for a bv-runner command line, once a
 * description is registered (nothing otherwise): the runner registers the
 * same cells, so the cells' indices agree. */
void bv_suite_runner_args(bv_strv *argv);

#endif
