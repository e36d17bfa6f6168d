/*
 * measure_resume.h - --resume DIR (measure_resume.c): whether DIR's logs
 * come from the same plan, and the cells they finished taken over.
 */
#ifndef BV_MEASURE_RESUME_H
#define BV_MEASURE_RESUME_H

#include <stddef.h>

#include "plan.h"
#include "resolve.h"
#include "measure_session.h"

/* --resume: BV_EINPUT naming the difference unless dir's logs (if any) come
 * from the same versions, trees, cells (plan's: this command's) and method
 * as vs and o; after_build (1) also compares the builds and the machine;
 * plan NULL, before the builds of a project suite whose description the run
 * never wrote, leaves the cells to the check after the builds.  Takes over
 * the run's seed. */
int bv_resume_check_plan(const char *dir, const bv_version *vs, size_t n, bv_measure_opts *o, const bv_plan *plan,
			 int after_build);
/* The same for a caller that holds no plan (planner.c plans o's cells for
 * it): after_build BV_RESUME_CELLS_UNKNOWN is plan NULL above. */
#define BV_RESUME_CELLS_UNKNOWN 2
int bv_resume_check(const char *dir, const bv_version *vs, size_t n, bv_measure_opts *o, int after_build);

/* Takes over the cells every measurable version's log has finished. */
int bv_ms_resume_from(session *s);

#endif
