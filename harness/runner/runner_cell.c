/*
 * runner_cell.c - one cell in one runner process: measure_cell runs every
 * version's check in a child of its own, then the timing child, with the
 * machine's state taken around it, and writes the cell's entry;
 * count_cell is --count's one cell of one version under callgrind.  What
 * the cell's stages do is in runner_check.c and runner_timing.c, their
 * children in runner_limits.c.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <valgrind/callgrind.h>

#include "runner_internal.h"

/* ---- one cell --------------------------------------------------------- */

static int dropped(char **drops, int ndrops, long index, const char *label)
{
	char key[256];
	snprintf(key, sizeof(key), "%ld:%s", index, label);
	for (int i = 0; i < ndrops; i++)
		if (strcmp(drops[i], key) == 0)
			return 1;
	return 0;
}

/* The machine's state before and after a cell's timing, [before, after]
 * each: what was running beside it, and what a fixed copy and a fixed
 * compute chain achieved (trust.h). */
static cJSON *state_object(const bv_state *before, const bv_state *after)
{
	cJSON *o = cJSON_CreateObject();
	/* Rounded to what a probe of a few ms can tell (three decimals): the
	 * logs carry one state per process and cell. */
	double v[2];
	v[0] = before->load1, v[1] = after->load1;
	cJSON_AddItemToObject(o, "loadavg", cJSON_CreateDoubleArray(v, 2));
	v[0] = before->running, v[1] = after->running;
	cJSON_AddItemToObject(o, "running", cJSON_CreateDoubleArray(v, 2));
	v[0] = round(before->gbps * 1e3) / 1e3, v[1] = round(after->gbps * 1e3) / 1e3;
	cJSON_AddItemToObject(o, "probe_gbps", cJSON_CreateDoubleArray(v, 2));
	v[0] = round(before->compute_ns * 1e3) / 1e3, v[1] = round(after->compute_ns * 1e3) / 1e3;
	cJSON_AddItemToObject(o, "probe_compute_ns", cJSON_CreateDoubleArray(v, 2));
	return o;
}

cJSON *measure_cell(version *vs, int nv, const bv_cell *c, long index, const settings *set,
			   char **drops, int ndrops, int checked, bv_probe *probe)
{
	double start = now_ns();
	cJSON *cell = cJSON_CreateObject();
	cJSON_AddNumberToObject(cell, "index", (double)index);
	cJSON_AddStringToObject(cell, "bench", c->bench->name);
	cJSON_AddStringToObject(cell, "op", c->op->name);
	cJSON_AddStringToObject(cell, "backend", c->backend);
	cJSON_AddNumberToObject(cell, "size", (double)c->size);
	cJSON *arr = cJSON_AddArrayToObject(cell, "versions");

	/* Each version's setup makes the cell's inputs (--inputs: its own
	 * sets, bvs_input_sets); the cell's input_sets is the most any version
	 * made, said by their checks and by the timing child. */
	cell_data d = {.c = c, .inputs = set->inputs};
	bv_cell_layout(c, &d.l);
	cJSON_AddNumberToObject(cell, "input_sets", 1);
	int made = 0;
	int needs_check = 0, suite = c->op->kind == BV_K_SUITE;
	for (int i = 0; i < nv && !checked; i++)
		needs_check |= !dropped(drops, ndrops, index, vs[i].label);
	/* A suite cell's outputs, one file per version (unlinked at once: the
	 * descriptors are all that is needed, and nothing is left behind), for
	 * the comparison with the baseline's after every check. */
	int out_fd[MAX_VERSIONS];
	for (int i = 0; i < nv; i++) {
		out_fd[i] = -1;
		if (suite && needs_check) {
			char tmp[] = "/tmp/bv-suite-out-XXXXXX";
			out_fd[i] = mkstemp(tmp);
			if (out_fd[i] >= 0)
				unlink(tmp);
		}
	}

	cJSON *entry[MAX_VERSIONS];
	version *ready[MAX_VERSIONS];
	int nready = 0;
	for (int i = 0; i < nv; i++) {
		char why[256];
		const char *st;
		cJSON *o;
		if (dropped(drops, ndrops, index, vs[i].label)) {
			o = status_object(BV_OK, NULL);
			cJSON_ReplaceItemInObject(o, "status", cJSON_CreateString("dropped"));
		} else if (checked) {
			/* Checked by an earlier process of this run: straight to timing,
			 * which still runs in a child that may crash or hang alone. */
			o = status_object(BV_OK, NULL);
		} else {
			check_job job = {&vs[i], &d, out_fd[i]};
			at_say(index, vs[i].label);
			o = in_child(check_child, &job, set->timeout_s, &st, why, sizeof(why));
			at_say(-1, NULL);
			if (!o) {
				o = cJSON_CreateObject();
				cJSON_AddStringToObject(o, "status", st);
				cJSON_AddStringToObject(o, "reason", why);
			}
		}
		cJSON_AddStringToObject(o, "label", vs[i].label);
		const cJSON *ms = cJSON_GetObjectItemCaseSensitive(o, "input_sets");
		if (cJSON_IsNumber(ms) && ms->valuedouble > made)
			made = (int)ms->valuedouble;
		cJSON_DeleteItemFromObject(o, "input_sets");
		entry[i] = o;
		cJSON_AddItemToArray(arr, o);
	}
	if (suite) /* only a suite's checks give digests (check_child) */
		suite_checks_agree(c, vs, nv, entry, out_fd);
	for (int i = 0; i < nv; i++) {
		const cJSON *s = cJSON_GetObjectItemCaseSensitive(entry[i], "status");
		if (cJSON_IsString(s) && strcmp(s->valuestring, "ok") == 0)
			ready[nready++] = &vs[i];
		if (out_fd[i] >= 0)
			close(out_fd[i]);
	}
	if (nready > 0) {
		/* in_child writes why only on failure, but msg is made either way
		 * (memcheck: an uninitialised read, unterminated on a bad day). */
		char why[256] = "";
		const char *st;
		time_job job = {ready, nready, &d, set, start};
		/* In this process, not the child: the probe's buffers stay out of
		 * fork, and the child's time is the versions' alone. */
		bv_state before, after;
		bv_state_take(probe, &before);
		at_say(index, NULL);
		cJSON *t = in_child(time_child, &job, set->timeout_s, &st, why, sizeof(why));
		at_say(-1, NULL);
		bv_state_take(probe, &after);
		cJSON_AddItemToObject(cell, "state", state_object(&before, &after));
		const char *ts = t ? cJSON_GetObjectItemCaseSensitive(t, "status")->valuestring : st;
		const cJSON *reason = t ? cJSON_GetObjectItemCaseSensitive(t, "reason") : NULL;
		char msg[512];
		snprintf(msg, sizeof(msg), "while timing: %s", cJSON_IsString(reason) ? reason->valuestring : why);
		const cJSON *samples = t ? cJSON_GetObjectItemCaseSensitive(t, "samples_ns") : NULL;
		const cJSON *pre = t ? cJSON_GetObjectItemCaseSensitive(t, "preempted") : NULL;
		for (int i = 0; i < nv; i++) {
			const char *l = vs[i].label;
			const cJSON *s = cJSON_GetObjectItemCaseSensitive(entry[i], "status");
			if (strcmp(s->valuestring, "ok") != 0)
				continue;
			if (strcmp(ts, "ok") == 0) {
				cJSON_AddItemToObject(entry[i], "samples_ns",
						      cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(samples, l), 1));
				const cJSON *p = cJSON_GetObjectItemCaseSensitive(pre, l);
				const char *keys[] = {"retaken", "contaminated"};
				for (int k = 0; k < 2; k++) {
					const cJSON *n = cJSON_GetObjectItemCaseSensitive(p, keys[k]);
					cJSON_AddNumberToObject(entry[i], keys[k], cJSON_IsNumber(n) ? n->valuedouble : 0);
				}
			} else {
				cJSON_ReplaceItemInObject(entry[i], "status", cJSON_CreateString(ts));
				cJSON_AddStringToObject(entry[i], "reason", msg);
			}
		}
		const cJSON *ms = t ? cJSON_GetObjectItemCaseSensitive(t, "input_sets") : NULL;
		if (cJSON_IsNumber(ms) && ms->valuedouble > made)
			made = (int)ms->valuedouble;
		const cJSON *reps = t ? cJSON_GetObjectItemCaseSensitive(t, "reps") : NULL;
		const cJSON *rounds = t ? cJSON_GetObjectItemCaseSensitive(t, "rounds") : NULL;
		cJSON_AddNumberToObject(cell, "reps", cJSON_IsNumber(reps) ? reps->valuedouble : 0);
		cJSON_AddNumberToObject(cell, "rounds", cJSON_IsNumber(rounds) ? rounds->valuedouble : 0);
		cJSON_Delete(t);
	}
	/* A catalog cell that no version opened (n/a, skipped, failed in
	 * every one) says the sets its setup makes (catalog.c makes them by
	 * bv_input_sets_count, from the layout). */
	if (made == 0 && catalog_cell(c))
		made = bv_input_sets_count(c, &d.l, set->inputs);
	if (made > 1)
		cJSON_ReplaceItemInObject(cell, "input_sets", cJSON_CreateNumber(made));
	cJSON_AddNumberToObject(cell, "elapsed_s", (now_ns() - start) / 1e9);
	return cell;
}

/* The head of --count's document: the version, where it ran (the ISA, and
 * whether under Valgrind) and the cell. */
static cJSON *count_head(version *v, const bv_cell *c, long index)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "schema", "bv-count/1");
	cJSON_AddStringToObject(o, "label", v->label);
	cJSON_AddStringToObject(o, "kernel_version", v->p->kernel_version());
	const char *isa = v->p->simd_isa();
	if (isa)
		cJSON_AddStringToObject(o, "simd_isa", isa);
	else
		cJSON_AddNullToObject(o, "simd_isa");
	cJSON_AddBoolToObject(o, "on_valgrind", RUNNING_ON_VALGRIND != 0);
	cJSON_AddNumberToObject(o, "index", (double)index);
	cJSON_AddStringToObject(o, "bench", c->bench->name);
	cJSON_AddStringToObject(o, "op", c->op->name);
	cJSON_AddStringToObject(o, "backend", c->backend);
	cJSON_AddNumberToObject(o, "size", (double)c->size);
	return o;
}

/* --count: one cell of one version, the counted call alone (see the top of
 * this file).  The warm call before it does what the timing's calibration
 * and warm-up calls do (pages faulted in, lazy symbols bound, caches warm),
 * so the simulated caches see the call in the state the timed calls run
 * in.  The document says the status, the ISA the simd backend dispatched to
 * here (under Valgrind: what Valgrind presents, not the machine) and whether
 * Valgrind was there at all. */
cJSON *count_cell(version *v, const bv_cell *c, long index)
{
	cJSON *o = count_head(v, c, index);
	char reason[512] = "";
	/* The cell opened (its setup) before the simulation starts: the
	 * warm call, then the counted one, each the benchmark's run through
	 * the same trampoline the timing calls. */
	timed t = {.v = v};
	int s = suite_setup(&t, c, 1, reason, sizeof(reason));
	/* A project suite does not say its footprint: always warm (its inputs
	 * are what setup made and touched).  A catalog cell's footprint is its
	 * layout's: data more than twice the simulated LL (BV_COUNT_WARM_MAX)
	 * would leave little of itself in the caches after a pass, so such a
	 * cell gets no warm call and its counted call starts from cold caches.
	 * That halves the time of the largest cells: Valgrind runs even
	 * uninstrumented code 5-300x slower (a 16M-element simd tanh: 44 s
	 * with --tool=none, 0.13 s natively; its AVX2 gathers).  The symbols a
	 * first call would bind lazily are bound at load (counts.c sets
	 * LD_BIND_NOW), so no dynamic linker runs in a counted call either way. */
	int warm = 1;
	if (catalog_cell(c)) {
		bv_layout l;
		bv_cell_layout(c, &l);
		warm = 4.0 * (double)(l.nx + l.nx2 + l.ny + l.nwork) <= BV_COUNT_WARM_MAX;
		if (s == BV_OK && !v->p->host_memory(c->backend)) {
			/* Valgrind counts the host's side of a call only */
			s = BV_UNAVAILABLE;
			snprintf(reason, sizeof(reason), "a device backend: its work is not on the host, so not counted");
		}
	}
	cJSON_AddBoolToObject(o, "warm", warm);
	/* Valgrind simulates from here (--instr-atstart=no): the setup, the
	 * inputs and the plugin's loading ran at full speed, and the warm
	 * call's pass fills the simulated caches as it fills the real ones
	 * before the timed calls. */
	CALLGRIND_START_INSTRUMENTATION;
	if (s == BV_OK && warm)
		s = t.call.fn(&t.call, &t.args);
	if (s == BV_OK) {
		CALLGRIND_TOGGLE_COLLECT;
		s = t.call.fn(&t.call, &t.args);
		CALLGRIND_TOGGLE_COLLECT;
	}
	if (s != BV_OK && !*reason)
		snprintf(reason, sizeof(reason), "%s", v->p->last_error());
	if (t.args.cell)
		v->p->suite_close(t.args.cell);
	cJSON_AddStringToObject(o, "status", status_name(s));
	if (*reason)
		cJSON_AddStringToObject(o, "reason", reason);
	return o;
}
