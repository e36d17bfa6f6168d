/*
 * measure.h - plugins to paired samples in many short processes, to logs
 * (measure.c, with measure_process.c, measure_stop.c, measure_log.c and
 * measure_resume.c behind it).  What bv_measure takes, bv_measure_opts, is in plan.h with
 * the cells it selects: shard.c and suite.c read it too, and neither may
 * depend on measure (it depends on them).
 */
#ifndef BV_MEASURE_H
#define BV_MEASURE_H

#include <stddef.h>

#include "plan.h"
#include "measure_resume.h" /* bv_resume_check: pipeline.c checks a resume before building */
#include "resolve.h"


/* Whether this machine can run cuda cells: an NVIDIA device or driver is
 * visible (/dev/nvidia0, /proc/driver/nvidia).  Without one the runner
 * marks them skipped at once, so they cost no measuring time. */
int bv_gpu_visible(void);

/* Measures every version that built, the cells of plan (planner.h's
 * bv_plan_build, with these versions when it is a shard's), writes
 * results_dir/<label>.json per version and returns their paths in *logs (n
 * entries, one per version).  o: the options plan was built from, or a copy
 * differing only in how evidence is held (family, series).  The logs are
 * rewritten whenever a cell finishes; on an interruption (BV_EINTR) or a
 * failure they keep what finished, for o->resume. */
int bv_measure_plan(const bv_plan *plan, const bv_version *vs, size_t n, const bv_measure_opts *o,
		    const char *results_dir, char ***logs);
/* The same for a caller that holds no plan: planner.c plans vs under o,
 * then measures (bisect's steps, each with versions of its own). */
int bv_measure(const bv_version *vs, size_t n, const bv_measure_opts *o, const char *results_dir,
	       char ***logs);

#endif
