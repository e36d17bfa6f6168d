/*
 * measure_session.c - the helpers on a measure call's state
 * (measure_session.h) that every file of the measure stage uses: which
 * versions measure, how many cells are still sampling, where a version's
 * log goes, and freeing it all.
 */
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "backends.h"
#include "benches.h"
#include "build.h"
#include "child.h"
#include "common.h"
#include "env.h"
#include "fs.h"
#include "json.h"
#include "machine.h"
#include "measure_session.h"
#include "ops_file.h"
#include "plan.h"
#include "proc.h"
#include "progress.h"
#include "resolve.h"
#include "results.h"
#include "shard.h"
#include "stats.h"
#include "status.h"
#include "suite.h"
#include "table.h"
#include "trust.h"
#include "verdict.h"

int bv_ms_measurable(const bv_version *v) { return v->plugin && !v->build_error; }

size_t bv_ms_count_active(const session *s)
{
	size_t k = 0;
	for (size_t c = 0; c < s->ncells; c++)
		k += s->cells[c].active;
	return k;
}

void bv_ms_session_free(session *s)
{
	if (s->probe_fd >= 0)
		close(s->probe_fd);
	s->probe_fd = -1;
	for (size_t c = 0; c < s->ncells; c++) {
		cstate *cs = &s->cells[c];
		for (size_t i = 0; i < s->n; i++) {
			vstate *v = &cs->v[i];
			for (int t = 0; t < s->max_trials; t++)
				free(v->samples[t]);
			free(v->samples), free(v->nsamples), free(v->med), free(v->ratio), free(v->layout), free(v->state), free(v->proc);
			free(v->reason);
		}
		for (size_t i = 0; cs->prior && i < s->n; i++)
			cJSON_Delete(cs->prior[i]);
		free(cs->prior);
		free(cs->v), free(cs->bench), free(cs->op), free(cs->backend);
	}
	free(s->cells);
	free(s->layout);
	for (size_t i = 0; s->simd_isa && i < s->n; i++)
		free(s->simd_isa[i]);
	free(s->simd_isa);
	free(s->raw);
	free(s->created);
	cJSON_Delete(s->resumed);
	cJSON_Delete(s->machine);
	cJSON_Delete(s->calib);
	cJSON_Delete(s->plan);
}

size_t bv_ms_count_finished(const session *s)
{
	size_t k = 0;
	for (size_t c = 0; c < s->ncells; c++)
		k += !s->cells[c].active;
	return k;
}

char *bv_ms_log_path(const char *dir, const bv_version *v) { return bv_asprintf("%s/%s.json", dir, v->label); }
