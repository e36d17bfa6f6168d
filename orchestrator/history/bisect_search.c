/*
 * bisect_search.c - the search of `bench-versions bisect`: the ends
 * resolved and checked, the state file opened (keyed by the range, the cell
 * and the measuring options), good against bad confirmed, then git bisect's
 * walk one step at a time or, with --parallel K, K evenly spaced commits a
 * round (here, or as one Slurm job array), and the first bad commit
 * measured against its parent.  Each step itself is bisect_step.c's; the
 * graph and the rules are bisect.c's.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bisect.h"
#include "bisect_search.h"
#include "bisect_step.h"
#include "common.h"
#include "compat.h"
#include "fs.h"
#include "json.h"
#include "project.h"
#include "resolve.h"
#include "slurm.h"
#include "suite.h"

/* The repository, and good and bad as exact commits: good must be a proper
 * ancestor of bad, or there is no range to walk. */
int bv_bisect_open_ends(bv_bisect_ctx *x, const bv_bisect_args *a, bv_bisect_walk *w)
{
	int rc = bv_repo_open(&x->repo);
	if (rc == 0 && !(x->git = bv_repo_git(x->repo)))
		rc = bv_fail(BV_EINPUT, "bisect needs a git repository: %s", bv_repo_describe(x->repo));
	bv_version ends[2] = {{0}};
	const char *names[2] = {a->good_name, a->bad_name};
	for (int i = 0; rc == 0 && i < 2; i++) {
		rc = bv_resolve(x->repo, names[i], &ends[i]);
		if (rc == 0 && ends[i].kind != BV_VERSION_GIT)
			rc = bv_fail(BV_EINPUT, "%s is not a commit of %s (bisect walks git history)", names[i],
				     bv_repo_describe(x->repo));
		if (rc == 0)
			fprintf(stderr, "resolve: %-12s -> commit %.12s, %s %s [%s]\n", names[i], ends[i].commit,
				bv_project_current()->name, ends[i].kernel_version, ends[i].rule);
	}
	snprintf(w->good_hex, sizeof(w->good_hex), "%s", ends[0].commit);
	snprintf(w->bad_hex, sizeof(w->bad_hex), "%s", ends[1].commit);
	if (rc == 0) {
		git_oid_fromstr(&w->good_id, w->good_hex);
		git_oid_fromstr(&w->bad_id, w->bad_hex);
		int desc = git_graph_descendant_of(x->git, &w->bad_id, &w->good_id);
		if (git_oid_equal(&w->good_id, &w->bad_id))
			rc = bv_fail(BV_EINPUT, "good and bad are the same commit %.12s: nothing to bisect",
				     w->good_hex);
		else if (desc < 0)
			rc = bv_fail(BV_ERUN, "comparing %s and %s: %s", a->good_name, a->bad_name,
				     git_error_last() ? git_error_last()->message : "libgit2 error");
		else if (desc == 0)
			rc = bv_fail(BV_EINPUT, "good %s (%.12s) is not an ancestor of bad %s (%.12s)",
				     a->good_name, w->good_hex, a->bad_name, w->bad_hex);
	}
	for (int i = 0; i < 2; i++)
		bv_version_free(&ends[i]);
	/* the compat rules every build needs (the ends' first, with a suite) */
	if (rc == 0)
		rc = bv_compat_load(bv_compat_path(), &x->compat);
	return rc;
}

/* A project suite (suite.h): its cells are what the builds describe, so the
 * ends are built first, described and registered (bv_suite_describe, as
 * run does after its builds), and only then is the one cell settled.  The
 * description the runners read is kept in a directory of this bisect's
 * own, removed at its end. */
int bv_bisect_suite_ends(bv_bisect_ctx *x, bv_bisect_walk *w)
{
	int rc = bv_bisect_version(x, w->good_hex, &w->good);
	if (rc == 0)
		rc = bv_bisect_version(x, w->bad_hex, &w->bad);
	for (int i = 0; rc == 0 && i < 2; i++) {
		bv_version *v = i ? w->bad : w->good;
		if (v->build_error)
			rc = bv_fail(BV_ERUN, "the %s commit %.12s does not build: %s", i ? "bad" : "good", v->commit,
				     v->build_error);
	}
	char *root = bv_asprintf("%s/bisect", bv_cache_dir());
	if (rc == 0 && !(x->suite_tmp = bv_mkdtemp_in(root, ".describe-")))
		rc = BV_ERUN;
	free(root);
	if (rc == 0) {
		bv_version two[2] = {*w->good, *w->bad}; /* shallow: only read */
		bv_measure_opts o = x->mo;           /* its selection: the suite's group */
		rc = bv_suite_describe(two, 2, x->suite_tmp, &o);
	}
	for (int i = 0; rc == 0 && i < 2; i++)
		bv_strv_push(&x->described, (i ? w->bad : w->good)->commit);
	return rc;
}

/* Good against bad first: without a clear change between them there is
 * nothing to find, and every step would be a coin toss.  A check kept in
 * the state is reused when it shows the change; else both ends are built
 * and measured (again, within the retries, while the change shows but is
 * too noisy to confirm: bv_bisect_ends_again), and the range is refused
 * unless bad moved. */
int bv_bisect_confirm_ends(bv_bisect_ctx *x, const bv_bisect_args *a, bv_bisect_walk *w)
{
	double threshold = x->mo.threshold;
	bv_bisect_ratio_parse(cJSON_GetObjectItemCaseSensitive(x->doc, "check"), &w->check);
	if (w->check.valid) {
		x->reused++;
		fprintf(stderr, "bisect: good -> bad %.3f [%.3f, %.3f] (reused)\n", w->check.est, w->check.lo,
			w->check.hi);
	}
	if (bv_bisect_moved(&w->check, threshold, a->improvement))
		return 0;
	int rc = bv_bisect_version(x, w->good_hex, &w->good);
	if (rc == 0)
		rc = bv_bisect_version(x, w->bad_hex, &w->bad);
	for (int i = 0; rc == 0 && i < 2; i++) {
		bv_version *v = i ? w->bad : w->good;
		if (v->build_error)
			rc = bv_fail(BV_ERUN, "the %s commit %.12s does not build: %s", i ? "bad" : "good",
				     v->commit, v->build_error);
	}
	for (int attempt = 0; rc == 0; attempt++) {
		bv_bisect_outcome out;
		bv_version *two[2] = {w->good, w->bad};
		rc = bv_bisect_measure(x, two, 2, attempt, &out);
		if (rc)
			break;
		for (int i = 0; rc == 0 && i < 2; i++)
			if (out.status[i] != BV_ST_OK)
				rc = bv_fail(BV_ERUN, "the %s commit %.12s failed in %s/%s/%s/%s: %s%s%s",
					     i ? "bad" : "good", two[i]->commit, a->bench, a->op, a->backend,
					     x->shape, bv_status_name(out.status[i]),
					     out.reason[i] ? ": " : "", out.reason[i] ? out.reason[i] : "");
		w->check = out.change[1];
		bv_bisect_outcome_free(&out);
		if (rc)
			break;
		const bv_bisect_ratio *c = &w->check;
		fprintf(stderr, "bisect: good -> bad %.3f [%.3f, %.3f]\n", c->est, c->lo, c->hi);
		if (!bv_bisect_ends_again(c, threshold, a->improvement) || !bv_bisect_may_retry(attempt))
			break;
	}
	if (rc == 0 && !bv_bisect_moved(&w->check, threshold, a->improvement)) {
		char r[64];
		bv_bisect_ratio_text(&w->check, r, sizeof(r));
		/* Moved the other way: the question was asked backwards. */
		const char *other = !bv_bisect_moved(&w->check, threshold, !a->improvement) ? ""
				    : a->improvement ? "; it is significantly slower: to find the commit that made it "
						       "slower, leave out --improvement"
						     : "; it is significantly faster: to find the commit that made it "
						       "faster, add --improvement";
		rc = bv_fail(BV_EINPUT,
			     "bad %.12s is not significantly %s than good %.12s in %s/%s/%s/%s: ratio %s, "
			     "threshold %g%%; nothing to bisect%s",
			     w->bad_hex, a->improvement ? "faster" : "slower", w->good_hex, a->bench, a->op,
			     a->backend, x->shape, r, threshold * 100, other);
	}
	if (rc == 0) {
		cJSON_DeleteItemFromObjectCaseSensitive(x->doc, "check");
		cJSON_AddItemToObject(x->doc, "check", bv_bisect_ratio_json(&w->check));
		rc = bv_bisect_state_save(x);
	}
	return rc;
}

/* The commits left (w->set) and the index of the next to test, skipped
 * commits left out of the pick (git bisect's rules: bisect.c); -1: none. */
static int next_pick(const bv_bisect_ctx *x, const bv_bisect_args *a, bv_bisect_walk *w, long *pick)
{
	free(w->set);
	int rc = bv_bisect_remaining(x->git, &w->cur_bad, w->goods, w->ngoods, a->first_parent, &w->set,
				     &w->nset);
	if (rc)
		return rc;
	unsigned char *skip = bv_xcalloc(w->nset + 1, 1);
	for (size_t i = 0; i < w->nset; i++)
		for (size_t k = 0; k < w->nskipped; k++)
			skip[i] |= git_oid_equal(&w->set[i], &w->skipped[k]);
	*pick = bv_bisect_pick(x->git, w->set, w->nset, &w->cur_bad, skip, a->first_parent);
	free(skip);
	return *pick < -1 ? (int)*pick : 0;
}

/* The point of commit hex: from the state when it was measured before,
 * else classified against good and bad (built here on first need: a
 * resumed bisect may not have built them) and saved at once, so an
 * interruption loses nothing. */
static int point_of(bv_bisect_ctx *x, bv_bisect_walk *w, const char *hex, bv_bisect_point *p)
{
	if (bv_bisect_point_load(x, hex, p)) {
		x->reused++;
		return 0;
	}
	memset(p, 0, sizeof(*p));
	int rc = 0;
	if (!w->good)
		rc = bv_bisect_version(x, w->good_hex, &w->good);
	if (rc == 0 && !w->bad)
		rc = bv_bisect_version(x, w->bad_hex, &w->bad);
	if (rc == 0 && (w->good->build_error || w->bad->build_error)) {
		const bv_version *broken = w->good->build_error ? w->good : w->bad;
		rc = bv_fail(BV_ERUN, "the %s commit %.12s no longer builds: %s",
			     broken == w->good ? "good" : "bad", broken->commit, broken->build_error);
	}
	if (rc == 0)
		rc = bv_bisect_classify(x, w->good, w->bad, hex, p);
	if (rc == 0)
		rc = bv_bisect_point_save(x, p);
	if (rc) {
		free(p->reason);
		p->reason = NULL;
	}
	return rc;
}

/* A step said and kept among the answer's steps (which owns p's reason). */
static void step_append(bv_bisect_walk *w, const bv_bisect_point *p)
{
	char r[64];
	bv_bisect_ratio_text(&p->vs_good, r, sizeof(r));
	fprintf(stderr, "bisect: step %zu: %.12s %s -> %s%s%s%s%s\n", w->nsteps + 1, p->commit, r,
		bv_bisect_side_name(p->side), p->reason ? " (" : "", p->reason ? p->reason : "",
		p->reason ? ")" : "", p->reused ? " [reused]" : "");
	w->steps = bv_xrealloc(w->steps, (w->nsteps + 1) * sizeof(bv_bisect_point));
	w->steps[w->nsteps++] = *p;
}

static void add_oid(git_oid **v, size_t *n, const git_oid *id)
{
	*v = bv_xrealloc(*v, (*n + 1) * sizeof(git_oid));
	(*v)[(*n)++] = *id;
}

/* A step's verdict moves the walk: bad lowers the top of the range, good
 * raises its bottom, a skip only keeps the commit out of later picks. */
static void record(bv_bisect_walk *w, const git_oid *id, const bv_bisect_point *p)
{
	step_append(w, p);
	if (p->side == BV_BISECT_BAD)
		w->cur_bad = *id;
	else if (p->side == BV_BISECT_GOOD) {
		w->goods = bv_xrealloc(w->goods, (w->ngoods + 1) * sizeof(git_oid));
		w->goods[w->ngoods++] = *id;
	} else {
		w->skipped = bv_xrealloc(w->skipped, (w->nskipped + 1) * sizeof(git_oid));
		w->skipped[w->nskipped++] = *id;
	}
}

/* The walk: git bisect's, one measured step at a time, until bad alone is
 * left, only skipped commits are, or --max-steps (bv_bisect_end); the
 * commits left are the answer's range. */
int bv_bisect_sequential(bv_bisect_ctx *x, const bv_bisect_args *a, bv_bisect_walk *w)
{
	w->cur_bad = w->bad_id;
	w->goods = bv_xmalloc(sizeof(git_oid));
	w->goods[w->ngoods++] = w->good_id;
	int rc = 0;
	while (rc == 0) {
		long pick;
		rc = next_pick(x, a, w, &pick);
		if (rc)
			break;
		if ((w->status = bv_bisect_end(pick, w->nset, w->nsteps, a->max_steps))) {
			for (size_t i = 0; i < w->nset; i++) {
				w->range = bv_xrealloc(w->range, (w->nrange + 1) * sizeof(char *));
				w->range[w->nrange] = bv_xmalloc(41);
				git_oid_tostr(w->range[w->nrange++], 41, &w->set[i]);
			}
			break;
		}
		char hex[41];
		git_oid_tostr(hex, sizeof(hex), &w->set[pick]);
		int steps = (int)ceil(log2((double)w->nset));
		fprintf(stderr, "bisect: %zu %s left (about %d %s), testing %.12s\n", w->nset,
			bv_plural((long long)w->nset, "commit", "commits"), steps, bv_plural(steps, "step", "steps"), hex);
		bv_bisect_point p;
		rc = point_of(x, w, hex, &p);
		x->rounds++;
		if (rc == 0)
			record(w, &w->set[pick], &p);
	}
	return rc;
}

/* ---- bisect --parallel K: rounds of K candidates ------------------------ */

/* The round's commits hex[0..n) not in the state yet, measured as one Slurm
 * job array (one task a commit, each paired with good and bad as a step
 * here is), their points read back from the tasks' files, checked (a node's
 * file is input like any other) and saved into the state as a sequential
 * step's are.  With --slurm-cache shared every build happens here first. */
static int slurm_round(bv_bisect_ctx *x, const bv_bisect_args *a, bv_bisect_walk *w, char (*hex)[41],
                       size_t n, bv_bisect_point *pts)
{
	int rc = 0;
	char **todo = bv_xcalloc(n + 1, sizeof(char *));
	size_t *where = bv_xcalloc(n + 1, sizeof(size_t)), ntodo = 0;
	int shared = !strcmp(a->slurm_cache, "shared");
	if (shared) {
		if (!w->good)
			rc = bv_bisect_version(x, w->good_hex, &w->good);
		if (rc == 0 && !w->bad)
			rc = bv_bisect_version(x, w->bad_hex, &w->bad);
		if (rc == 0 && (w->good->build_error || w->bad->build_error))
			rc = bv_fail(BV_ERUN, "the %s commit no longer builds", w->good->build_error ? "good" : "bad");
	}
	for (size_t i = 0; rc == 0 && i < n; i++) {
		bv_version *v = NULL;
		if (shared && (rc = bv_bisect_version(x, hex[i], &v)) == 0 && v->build_error) {
			/* no task for a commit that does not build: skipped here */
			memset(&pts[i], 0, sizeof(pts[i]));
			snprintf(pts[i].commit, sizeof(pts[i].commit), "%s", hex[i]);
			pts[i].side = BV_BISECT_INCONCLUSIVE;
			pts[i].reason = bv_strdup("build failed");
			rc = bv_bisect_point_save(x, &pts[i]);
			continue;
		}
		where[ntodo] = i;
		todo[ntodo++] = hex[i];
	}
	bv_buf list = BV_BUF_INIT;
	for (size_t i = 0; i < ntodo; i++)
		bv_buf_printf(&list, "%s%s", i ? "," : "", todo[i]);
	char **dirs = NULL;
	bv_strv targs = BV_STRV_INIT;
	char *tdir = bv_asprintf("%s/slurm/round-%d-%ld-%d", x->dir, x->rounds, (long)time(NULL), (int)getpid());
	if (rc == 0 && ntodo) {
		for (size_t i = 0; i < a->task_cmd.n; i++)
			bv_strv_push(&targs, a->task_cmd.v[i]);
		bv_strv_pushf(&targs, "--slurm-commits=%s", list.s);
		bv_slurm_opts so;
		bv_slurm_init(&so);
		so.enabled = 1, so.partition = a->partition, so.time_min = a->time_min, so.cache = a->slurm_cache;
		bv_slurm_tasks_spec t = {.so = &so,
					 .threads = x->mo.threads,
					 .dir = tdir,
					 .verb = "bisect",
					 .done_file = "point.json",
					 .args = targs.v,
					 .nargs = targs.n,
					 .ntasks = (int)ntodo};
		rc = bv_slurm_tasks(&t, &dirs);
	}
	for (size_t i = 0; rc == 0 && i < ntodo; i++) {
		char *f = bv_asprintf("%s/point.json", dirs[i]);
		cJSON *doc = NULL;
		bv_bisect_point *p = &pts[where[i]];
		rc = bv_json_load(f, (size_t)1 << 20, &doc);
		if (rc == 0 && !bv_bisect_point_from_json(doc, todo[i], p))
			rc = bv_fail(BV_ERUN, "%s: not the point of %.12s", f, todo[i]);
		if (rc == 0) {
			p->reused = 0;
			x->taken += p->attempts > 0 ? p->attempts : 1;
			rc = bv_bisect_point_save(x, p);
		}
		cJSON_Delete(doc);
		free(f);
	}
	for (size_t i = 0; dirs && i < ntodo; i++)
		free(dirs[i]);
	free(dirs);
	free(tdir);
	bv_strv_free(&targs);
	bv_buf_free(&list);
	free(todo);
	free(where);
	return rc;
}

/* The commits a K-ary round may test, oldest first: the remaining set
 * less the current bad and the commits skipped; *m is how many. */
static git_oid *kary_eligible(const bv_bisect_walk *w, size_t *m)
{
	git_oid *elig = bv_xcalloc(w->nset + 1, sizeof(git_oid));
	*m = 0;
	for (size_t i = w->nset; i-- > 0;) {
		int out = git_oid_equal(&w->set[i], &w->cur_bad);
		for (size_t k = 0; k < w->nskipped && !out; k++)
			out = git_oid_equal(&w->set[i], &w->skipped[k]);
		if (!out)
			elig[(*m)++] = w->set[i];
	}
	return elig;
}

/* A round's c points judged and the range narrowed to between the last
 * good and the first bad (bv_bisect_kary_narrow): every point becomes a
 * step (which owns its reason from then on, so have[] is cleared), the
 * inconclusive ones are skipped, and a good measured after the first bad
 * is said and not used. */
static void kary_narrow(bv_bisect_walk *w, bv_bisect_point *pts, int *have, const git_oid *ids,
                        char (*hex)[41], size_t c)
{
	bv_bisect_side *sides = bv_xcalloc(c, sizeof(*sides));
	for (size_t j = 0; j < c; j++)
		sides[j] = pts[j].side;
	long lg, fb;
	bv_bisect_kary_narrow(sides, c, &lg, &fb);
	for (size_t j = 0; j < c; j++) {
		step_append(w, &pts[j]);
		have[j] = 0; /* the steps own the reason now */
		if (sides[j] == BV_BISECT_INCONCLUSIVE)
			add_oid(&w->skipped, &w->nskipped, &ids[j]);
		else if ((long)j == fb)
			w->cur_bad = ids[j];
		else if (sides[j] == BV_BISECT_GOOD && (long)j < fb)
			add_oid(&w->goods, &w->ngoods, &ids[j]);
		else if (sides[j] == BV_BISECT_GOOD)
			fprintf(stderr, "bisect: %.12s measured good after the bad %.12s: not used "
					"(the older bad one bounds the range)\n",
				hex[j], hex[fb]);
	}
	free(sides);
}

/* The K-ary walk: each round tests K commits evenly spaced in the range
 * (bv_bisect_kary_split), here one after another or as one Slurm array,
 * then keeps the sub-range between the last good and the first bad
 * (bv_bisect_kary_narrow).  Ranges are positions in the topological order
 * of bv_bisect_remaining, which on a linear history (or --first-parent) is
 * the history itself; on one with merges the spacing is approximate and
 * the goods and bad still bound the range as git bisect's do. */
int bv_bisect_kary(bv_bisect_ctx *x, const bv_bisect_args *a, bv_bisect_walk *w)
{
	w->cur_bad = w->bad_id;
	w->goods = bv_xmalloc(sizeof(git_oid));
	w->goods[w->ngoods++] = w->good_id;
	int rc = 0;
	size_t K = (size_t)a->parallel;
	while (rc == 0) {
		long pick;
		rc = next_pick(x, a, w, &pick);
		if (rc)
			break;
		size_t m;
		git_oid *elig = kary_eligible(w, &m);
		if ((w->status = bv_bisect_end(m ? 0 : -1, w->nset, w->nsteps, a->max_steps))) {
			free(elig);
			for (size_t i = 0; i < w->nset; i++) {
				w->range = bv_xrealloc(w->range, (w->nrange + 1) * sizeof(char *));
				w->range[w->nrange] = bv_xmalloc(41);
				git_oid_tostr(w->range[w->nrange++], 41, &w->set[i]);
			}
			break;
		}
		size_t *idx = bv_xcalloc(K, sizeof(size_t));
		size_t c = bv_bisect_kary_split(m, (int)K, idx);
		char (*hex)[41] = bv_xcalloc(c, sizeof(*hex));
		git_oid *ids = bv_xcalloc(c, sizeof(git_oid));
		bv_bisect_point *pts = bv_xcalloc(c, sizeof(bv_bisect_point));
		int *have = bv_xcalloc(c, sizeof(int));
		bv_buf said = BV_BUF_INIT;
		for (size_t j = 0; j < c; j++) {
			ids[j] = elig[idx[j]];
			git_oid_tostr(hex[j], sizeof(hex[j]), &ids[j]);
			bv_buf_printf(&said, " %.12s", hex[j]);
		}
		x->rounds++;
		int rounds_left = (int)ceil(log((double)m + 1) / log((double)K + 1));
		fprintf(stderr, "bisect: round %d: %zu %s left (about %d %s), testing%s\n", x->rounds, w->nset,
			bv_plural((long long)w->nset, "commit", "commits"), rounds_left,
			bv_plural(rounds_left, "round", "rounds"), said.s);
		bv_buf_free(&said);
		/* what the state holds already is never measured again */
		size_t nnew = 0;
		char (*newhex)[41] = bv_xcalloc(c + 1, sizeof(*newhex));
		bv_bisect_point *newpts = bv_xcalloc(c + 1, sizeof(bv_bisect_point));
		for (size_t j = 0; j < c; j++)
			if (bv_bisect_point_load(x, hex[j], &pts[j])) {
				x->reused++;
				have[j] = 1;
			} else
				snprintf(newhex[nnew++], 41, "%s", hex[j]);
		if (a->slurm && nnew) {
			rc = slurm_round(x, a, w, newhex, nnew, newpts);
			for (size_t j = 0, k = 0; rc == 0 && j < c; j++)
				if (!have[j]) {
					pts[j] = newpts[k++];
					have[j] = 1;
				}
		} else
			for (size_t j = 0; rc == 0 && j < c; j++)
				if (!have[j] && (rc = point_of(x, w, hex[j], &pts[j])) == 0)
					have[j] = 1;
		if (rc == 0)
			kary_narrow(w, pts, have, ids, hex, c);
		for (size_t j = 0; j < c; j++)
			if (have[j])
				free(pts[j].reason);
		free(newhex), free(newpts), free(have), free(pts), free(ids), free(hex), free(idx), free(elig);
	}
	return rc;
}

/* A Slurm task of bisect --slurm: its one commit classified against good
 * and bad (built on this node when the submitting side did not), its point
 * written to OUT/point.json for the submitting side to read into the state.
 * It writes no state itself: the tasks of a round run at once. */
int bv_bisect_slurm_task(bv_bisect_ctx *x, const bv_bisect_args *a, bv_bisect_walk *w)
{
	char **list = NULL;
	size_t n = 0;
	int rc = 0;
	char *copy = bv_strdup(a->task_commits);
	for (char *save = NULL, *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (strlen(t) != 40 || strspn(t, "0123456789abcdef") != 40) {
			char *e = bv_escape(t);
			rc = bv_fail(BV_EINPUT, "--slurm-commits: '%s' is not a full commit id", e);
			free(e);
			break;
		}
		list = bv_xrealloc(list, (n + 1) * sizeof(char *));
		list[n++] = t;
	}
	if (rc == 0 && (size_t)a->task > n)
		rc = bv_fail(BV_EINPUT, "--slurm-task %d: --slurm-commits names %zu", a->task, n);
	bv_bisect_point p = {0};
	if (rc == 0)
		rc = bv_bisect_version(x, w->good_hex, &w->good);
	if (rc == 0)
		rc = bv_bisect_version(x, w->bad_hex, &w->bad);
	if (rc == 0 && (w->good->build_error || w->bad->build_error))
		rc = bv_fail(BV_ERUN, "the %s commit does not build here", w->good->build_error ? "good" : "bad");
	if (rc == 0)
		rc = bv_bisect_classify(x, w->good, w->bad, list[a->task - 1], &p);
	if (rc == 0) {
		cJSON *o = bv_bisect_point_json(&p);
		char *f = bv_asprintf("%s/point.json", a->task_out);
		rc = bv_json_save(f, o);
		free(f);
		cJSON_Delete(o);
		fprintf(stderr, "bisect: task %d: %.12s -> %s\n", a->task, p.commit,
			bv_bisect_side_name(p.side));
	}
	free(p.reason);
	free(list);
	free(copy);
	return rc;
}

/* The first bad commit against its own parent: the change itself, in one
 * more paired measurement (kept in the state like the others).  A parent
 * or commit that does not build, or a cell that fails, leaves it not valid:
 * the answer stands without it. */
int bv_bisect_measure_parent(bv_bisect_ctx *x, bv_bisect_walk *w)
{
	int rc = 0;
	snprintf(w->first_hex, sizeof(w->first_hex), "%s", w->range[0]);
	for (size_t i = 0; i < w->nsteps; i++)
		if (!strcmp(w->steps[i].commit, w->first_hex))
			w->first = &w->steps[i];
	bv_bisect_commit ci;
	bv_bisect_commit_read(x->git, w->first_hex, &ci);
	snprintf(w->parent_hex, sizeof(w->parent_hex), "%s", ci.parent);
	bv_bisect_commit_free(&ci);
	const cJSON *pj = cJSON_GetObjectItemCaseSensitive(x->doc, "parent");
	const char *pc = bv_json_str(pj, "commit");
	if (pc && !strcmp(pc, w->first_hex)) {
		bv_bisect_ratio_parse(pj, &w->vs_parent);
		x->reused++;
	} else if (*w->parent_hex) {
		bv_version *pv = NULL, *fv = NULL;
		rc = bv_bisect_version(x, w->parent_hex, &pv);
		if (rc == 0)
			rc = bv_bisect_version(x, w->first_hex, &fv);
		if (rc == 0 && !pv->build_error && !fv->build_error) {
			bv_bisect_outcome out;
			bv_version *two[2] = {pv, fv};
			rc = bv_bisect_measure(x, two, 2, 0, &out);
			if (rc == 0 && out.status[0] == BV_ST_OK && out.status[1] == BV_ST_OK)
				w->vs_parent = out.change[1];
			bv_bisect_outcome_free(&out);
		}
		if (rc == 0) {
			cJSON *o = bv_bisect_ratio_json(&w->vs_parent);
			if (!cJSON_IsObject(o)) {
				cJSON_Delete(o);
				o = cJSON_CreateObject();
			}
			cJSON_AddStringToObject(o, "commit", w->first_hex);
			cJSON_AddStringToObject(o, "parent", w->parent_hex);
			cJSON_DeleteItemFromObjectCaseSensitive(x->doc, "parent");
			cJSON_AddItemToObject(x->doc, "parent", o);
			rc = bv_bisect_state_save(x);
		}
	}
	return rc;
}

/* The one cleanup path: whatever phase stopped, these free what was made
 * (both are safe on what a phase never reached). */
void bv_bisect_walk_free(bv_bisect_walk *w)
{
	for (size_t i = 0; i < w->nsteps; i++)
		free(w->steps[i].reason);
	free(w->steps);
	for (size_t i = 0; i < w->nrange; i++)
		free(w->range[i]);
	free(w->range);
	free(w->goods);
	free(w->skipped);
	free(w->set);
}
