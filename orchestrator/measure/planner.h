/*
 * planner.h - the plan of one command, built once (planner.c): what a run,
 * a shard, a dry run, `plan` or a history measures, from its options and
 * versions, handed to every stage that needs it (bv_plan, plan.h).
 *
 * Apart from plan.h because the plan block holds each version's build key
 * (build.h) and its id (shard.h), and both of those depend on plan.h: the
 * planner stands above them, the stages below it take its plan.
 */
#ifndef BV_PLANNER_H
#define BV_PLANNER_H

#include <stddef.h>

#include "plan.h"
#include "resolve.h"

/* o's plan: every cell its lists and --filter select (bv_plan_cells), their
 * expected times and their cut into o->shard_count shards (one when 0),
 * o->shard_index's part (every cell when 0) and, given versions (vs, n;
 * resolved and their compat rules matched: their build keys are in it) and
 * a cut, the plan block its shard logs record.  A command calls this once
 * (scripts/layout.py, rule 9) and hands *p to its stages; bv_plan_free. */
int bv_plan_build(const bv_measure_opts *o, const bv_version *vs, size_t n, bv_plan *p);

#endif
