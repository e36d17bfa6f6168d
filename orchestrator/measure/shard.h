/*
 * shard.h - one comparison over many machines: the matrix cut into N
 * deterministic slices (shards) of about equal expected time (the cut:
 * plan.h), each measured by its own `run --shard I/N` with every version
 * (so every ratio is still paired inside one process), and the shard logs
 * joined again into the run they would have been (docs/scale-out.md).
 *
 * What makes shards one run is their plan: the versions' build keys, the
 * matrix's cells and the options that shape a number, hashed into a plan id
 * that every shard log records with I/N.  The join refuses shards of
 * different plans (naming the field that differs), a missing shard and a
 * shard given twice, before any table is made.
 */
#ifndef BV_SHARD_H
#define BV_SHARD_H

#include <cjson/cJSON.h>
#include <stddef.h>

#include "merge.h"
#include "plan.h"
#include "resolve.h"
#include "table.h"

/* Shards one plan may have: far more than any cluster's array, small enough
 * that a plan's JSON stays a few MB. */
#define BV_SHARDS_MAX 10000

/* "I/N" (--shard): whole decimal numbers, 1 <= I <= N <= BV_SHARDS_MAX,
 * nothing else; BV_EINPUT saying what was expected otherwise. */
int bv_shard_parse(const char *text, int *index, int *count);

/* The plan a shard belongs to, as its logs record it ("shard" block,
 * docs/results-format.md), is built with the plan (planner.h): {"id",
 * "index", "count", "versions": [{label, name, build_key}], "cells":
 * ["bench/op/backend/size", ... every cell of the unsharded matrix, in
 * order], "method": {...options that shape a number}}.  The id is a hash of
 * versions, cells, method and count (not of index: every shard of a plan
 * has the same id). */
/* The id of a plan block's fields, recomputed (a log's recorded id must
 * equal it): 16 hex digits. */
void bv_plan_id(const cJSON *plan, char out[17]);

/* Whether path (a run's directory, or one log) holds shard logs: 1 yes, 0
 * no (unreadable, or not a log, is 0: the caller's own loader says why). */
int bv_path_is_shard(const char *path);

/* The shards' logs joined into the run they would have been: one document
 * per version (the baseline first, as the run had them), each with every
 * cell of the plan in the plan's order, one run id, and a "shard" block
 * saying what was joined.  dirs: each shard's results directory, in any
 * order.  BV_EINPUT, naming it, for a dir that is not a shard, shards of
 * different plans (which field differs), a shard missing ("shard 2/3
 * missing") or given twice, a log that is truncated or not one of the
 * plan's (its id does not match its fields, cells not its shard's).
 * *docs (n of them) and the array are the caller's (cJSON_Delete, free). */
int bv_shards_join(char *const *dirs, size_t ndirs, cJSON ***docs, size_t *n);

/* The same, one version at a time, for a caller that keeps no more than
 * one version's logs in memory: open checks the shards as one plan (all of
 * the refusals above but those about a log of a later version, which
 * bv_shards_version makes as it loads them) and says how many versions;
 * bv_shards_version(j, v, &doc) joins version v (0 = the baseline) from
 * every shard's log of it.  close frees what is left. */
typedef struct bv_shards bv_shards;
int bv_shards_open(char *const *dirs, size_t ndirs, bv_shards **j, size_t *nversions);
int bv_shards_version(bv_shards *j, size_t v, cJSON **doc);
void bv_shards_close(bv_shards *j);

/* Joins the shards (bv_shards_join) and merges them into one table as one
 * run's logs are merged (bv_merge_docs): the same rows, columns and
 * verdicts, decided together over every cell of every shard.  This is what
 * `compare SHARD_DIR...` calls, and what a driver of shards (Slurm, a CI
 * matrix) calls once its shards are in. */
int bv_merge_shards(char *const *dirs, size_t ndirs, const bv_merge_opts *o, bv_table *out);

/* Writes the joined logs into out_dir (new or empty, else BV_EINPUT; made
 * as needed; <label>.json each, as a run writes them), so the joined run can be compared, reported on, saved
 * as a baseline or shared like any other run. *paths (n) for the caller. */
int bv_shards_write(char *const *dirs, size_t ndirs, const char *out_dir, char ***paths, size_t *n);

/* Whether a version label read from a log can be a file name: 1-250
 * letters, digits, '.', '_', '-', not starting with '.' (what resolve.c
 * makes labels of); a hostile "../x" is not. */
int bv_label_is_file_name(const char *l);

#endif
