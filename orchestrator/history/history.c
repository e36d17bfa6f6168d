/*
 * history.c - the history `bench-versions history` builds (history.h): the
 * series resolved and built, every step decided, the chains and the change
 * points; the pure parts the unit tests reach.  Measuring the windows and
 * the store are history_measure.c's, printing the formats' (history_format.h).
 *
 * The series is every release in reach (--releases, as `compat` lists
 * them), a range of commits A..B (oldest first; --first-parent, --every N)
 * or a list of names.  Every version is resolved, matched against the
 * compat rules and built as for `run`; one that does not build is left out
 * and the chain goes on from the last one that did (that step then spans
 * the gap, which the output says).
 *
 * Measuring (history_measure.c): windows of W consecutive versions, each
 * one bv_measure call, a step from the processes that ran both its
 * versions.
 *
 * The steps of every cell are decided together, as verdict.c decides a
 * table: each step's evidence is the anytime-valid sign test on its
 * per-process ratios (bv_change_evidence), held with the others to a
 * Benjamini-Hochberg false-discovery rate of BV_FDR, and a step is slower
 * or faster only when its interval says so too.  The change points are
 * then found over the steps (bv_hist_find_changes) and the store is asked
 * before measuring (history_measure.c; store.c) and told after
 * (bv_hist_keep_steps).
 */
#include <git2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build.h"
#include "changepoint.h"
#include "common.h"
#include "compat.h"
#include "git_util.h"
#include "history.h"
#include "locate.h"
#include "pipeline.h"
#include "proc.h"
#include "progress.h"
#include "project.h"
#include "resolve.h"
#include "semver.h"
#include "stats.h"
#include "store.h"
#include "verdict.h"

/* ---- the pure parts ------------------------------------------------------ */

size_t bv_history_every(size_t n, size_t every, size_t *keep)
{
	size_t k = 0;
	if (every < 1)
		every = 1;
	for (size_t i = 0; i < n; i += every)
		keep[k++] = i;
	if (n && keep[k - 1] != n - 1)
		keep[k++] = n - 1;
	return k;
}

size_t bv_history_windows(size_t n, size_t w, size_t *first, size_t *last)
{
	if (n < 2 || w < 2)
		return 0;
	size_t k = 0;
	for (size_t start = 0; start + 1 < n; start += w - 1, k++) {
		first[k] = start;
		last[k] = start + w - 1 < n - 1 ? start + w - 1 : n - 1;
	}
	return k;
}

int bv_history_step(const double *ra, const double *rb, size_t n, bv_step *out, double *coverage)
{
	out->ratio = out->lo = out->hi = NAN;
	out->proc_ratio = NULL;
	out->nproc = 0;
	*coverage = 0;
	double *q = bv_xcalloc(n + 1, sizeof(double));
	size_t m = 0;
	for (size_t j = 0; j < n; j++) {
		double x = ra ? (ra[j] > 0 ? rb[j] / ra[j] : NAN) : rb[j];
		if (isfinite(x) && x > 0)
			q[m++] = x;
	}
	bv_interval iv;
	if (m == 0 || bv_median_interval(q, m, 0.95, &iv) != 0) {
		free(q);
		return -1;
	}
	out->proc_ratio = q;
	out->nproc = m;
	out->ratio = iv.est;
	*coverage = iv.coverage;
	/* [min, max] of five processes covers 93.8 %: no 95 % interval. */
	if (iv.coverage >= 0.95)
		out->lo = iv.lo, out->hi = iv.hi;
	return 0;
}

int bv_history_step_state(const bv_usual *u, double threshold, const double *ra, const double *rb,
                          const double *gbps, const double *compute_ns, const double *running, size_t n,
                          bv_step *out, double *coverage, char **state)
{
	*state = NULL;
	if (!gbps && !compute_ns && !running)
		return 0; /* logs without the machine's state */
	size_t m = 0;
	double *q = bv_xcalloc(n + 1, sizeof(double)), *g = bv_xcalloc(n + 1, sizeof(double));
	double *c = bv_xcalloc(n + 1, sizeof(double)), *r = bv_xcalloc(n + 1, sizeof(double));
	for (size_t j = 0; j < n; j++) {
		/* the quotients bv_history_step takes, each with its trial's state */
		double x = ra ? (ra[j] > 0 ? rb[j] / ra[j] : NAN) : rb[j];
		if (!(isfinite(x) && x > 0))
			continue;
		q[m] = x;
		g[m] = gbps ? gbps[j] : 0; /* 0: not read (verdict.c) */
		c[m] = compute_ns ? compute_ns[j] : 0;
		r[m] = running ? running[j] : 0;
		m++;
	}
	bv_change ch;
	memset(&ch, 0, sizeof(ch));
	ch.proc_ratio = q, ch.nproc = m;
	ch.proc_gbps = g, ch.proc_compute_ns = c, ch.proc_running = r;
	double *use = bv_xcalloc(m + 1, sizeof(double));
	size_t k = bv_change_split_by_state(&ch, threshold, u, use);
	int rc = 0;
	if (ch.state_dependent) {
		bv_step fresh;
		double cov = 0;
		if (bv_history_step(NULL, use, k, &fresh, &cov) == 0) {
			free(out->proc_ratio);
			out->proc_ratio = fresh.proc_ratio, out->nproc = fresh.nproc;
			out->ratio = fresh.ratio, out->lo = fresh.lo, out->hi = fresh.hi;
			*coverage = cov;
		}
		if (ch.unstable) /* an estimate at the usual state, nothing to judge it by */
			out->lo = out->hi = NAN, *coverage = 0;
		*state = bv_asprintf("the step followed the machine's state: %.3f in %zu process%s at its usual "
		                     "state, %.3f in %zu disturbed ones; %s",
		                     ch.level_usual, ch.n_usual, ch.n_usual == 1 ? "" : "es", ch.level_disturbed,
		                     ch.n_disturbed,
		                     ch.unstable ? "too few usual ones to judge it: unstable (measured again by "
		                                   "the next history)"
		                                 : "judged on the usual ones");
		rc = ch.unstable ? 2 : 1;
	}
	free(use), free(q), free(g), free(c), free(r);
	return rc;
}

void bv_history_chain(const bv_step *s, size_t n, double *ratio, double *lo, double *hi)
{
	/* A cell that is new in the series (an op or backend a later release
	 * added) has no steps before its first version: its chain starts there,
	 * at 1, and is NaN before. */
	size_t a = 0;
	while (a < n && !(isfinite(s[a].ratio) && s[a].ratio > 0))
		a++;
	if (a == n)
		a = 0; /* no step at all: the first version only */
	for (size_t j = 0; j < a; j++)
		ratio[j] = lo[j] = hi[j] = NAN;
	ratio[a] = lo[a] = hi[a] = 1.0;
	double r = 1.0, down = 0, up = 0; /* log half-widths squared, summed */
	for (size_t j = a; j < n; j++) {
		const bv_step *st = &s[j];
		r = isfinite(r) && isfinite(st->ratio) && st->ratio > 0 ? r * st->ratio : NAN;
		int iv = isfinite(st->lo) && isfinite(st->hi) && st->lo > 0 && st->hi >= st->ratio &&
		         st->lo <= st->ratio;
		if (iv && isfinite(down)) {
			double d = log(st->ratio / st->lo), u = log(st->hi / st->ratio);
			down += d * d, up += u * u;
		} else {
			down = up = NAN;
		}
		ratio[j + 1] = r;
		lo[j + 1] = isfinite(r) && isfinite(down) ? r * exp(-sqrt(down)) : NAN;
		hi[j + 1] = isfinite(r) && isfinite(up) ? r * exp(sqrt(up)) : NAN;
	}
}

/* ---- the history --------------------------------------------------------- */

bv_version *bv_hist_version(const bv_hist *h, size_t j)
{
	return &h->all[h->built[j]];
}

void bv_hist_free(bv_hist *h)
{
	for (size_t c = 0; c < h->ncells; c++) {
		bv_hist_cell *x = &h->cells[c];
		for (size_t i = 0; x->steps && i + 1 < h->nv; i++) {
			bv_step_free(&x->steps[i].s);
			free(x->steps[i].why);
			free(x->steps[i].state);
		}
		free(x->steps), free(x->chain), free(x->clo), free(x->chi), free(x->cps), free(x->key);
	}
	free(h->cells);
	bv_plan_free(&h->plan);
	for (size_t i = 0; i < h->nresolved; i++)
		bv_version_free(&h->all[i]);
	free(h->all);
	free(h->built);
	bv_strv_free(&h->notes);
	free(h->dir);
	free(h->method);
	if (h->lockfd >= 0)
		close(h->lockfd);
	bv_compat_free(h->compat);
	bv_repo_free(h->repo);
	bv_store_close(h->store);
	free(h->cls);
}

/* ---- the series ---------------------------------------------------------- */

/* One end of a range, as a commit (bv_resolve's rules: a release number,
 * a tag, any git revision). */
static int range_end(bv_hist *h, const char *name, const char *which, char hex[41])
{
	bv_version v = {0};
	int rc = bv_resolve(h->repo, name, &v);
	if (rc == 0 && v.kind != BV_VERSION_GIT)
		rc = bv_fail(BV_EINPUT,
		             "%s end '%s' of the range is not a commit of %s (a range walks git history)",
		             which, name, bv_repo_describe(h->repo));
	if (rc == 0)
		snprintf(hex, 41, "%s", v.commit);
	bv_version_free(&v);
	return rc;
}

/* A..B: A and the commits B reaches and A does not, oldest first, as full
 * commit ids in *out. */
static int range_series(bv_hist *h, bv_strv *out)
{
	const char *dots = strstr(h->range, "..");
	char *a = bv_strdup(h->range);
	a[dots - h->range] = '\0';
	const char *b = dots + 2;
	int rc = 0;
	if (!*a || !*b)
		rc = bv_fail(BV_EINPUT, "'%s': a range needs both ends, A..B", h->range);
	if (rc == 0 && !h->git)
		rc = bv_fail(BV_EINPUT, "a range A..B needs a git repository: %s", bv_repo_describe(h->repo));
	char ahex[41] = "", bhex[41] = "";
	if (rc == 0)
		rc = range_end(h, a, "the first", ahex);
	if (rc == 0)
		rc = range_end(h, b, "the last", bhex);
	git_oid aid, bid;
	if (rc == 0) {
		git_oid_fromstr(&aid, ahex), git_oid_fromstr(&bid, bhex);
		if (git_oid_equal(&aid, &bid))
			rc = bv_fail(BV_EINPUT, "'%s' is empty: %s and %s are the same commit %.12s",
			             h->range, a, b, ahex);
	}
	if (rc == 0) {
		int desc = git_graph_descendant_of(h->git, &bid, &aid);
		if (desc < 0)
			rc = bv_git_fail(BV_ERUN, "comparing the ends of the range");
		else if (desc == 0)
			rc = bv_fail(
			    BV_EINPUT,
			    "'%s' is empty: %s (%.12s) is not an ancestor of %s (%.12s); a history runs "
			    "from an older commit to a newer one",
			    h->range, a, ahex, b, bhex);
	}
	/* git rev-list b ^a, oldest first: the walk bisect takes (git_util.c) */
	git_oid *ids = NULL;
	size_t n = 0;
	if (rc == 0)
		rc = bv_git_walk(h->git, &bid, &aid, 1, h->first_parent, 1, &ids, &n);
	if (rc == 0) {
		bv_strv_push(out, ahex);
		for (size_t i = 0; i < n; i++) {
			char hex[41];
			git_oid_tostr(hex, sizeof(hex), &ids[i]);
			bv_strv_push(out, hex);
		}
	}
	free(ids);
	free(a);
	return rc;
}

/* The names of the series, before --every. */
static int series_names(bv_hist *h, bv_strv *out, int *commits)
{
	*commits = 0;
	if (h->range) {
		*commits = 1;
		return range_series(h, out);
	}
	if (h->releases) {
		bv_known_release *rel = NULL;
		size_t n = 0;
		int rc = bv_releases_in_reach(h->repo, 0, &rel, &n);
		for (size_t i = 0; rc == 0 && i < n; i++)
			bv_strv_push(out, rel[i].version);
		bv_known_releases_free(rel, n);
		return rc;
	}
	for (size_t i = 0; i < h->nnames; i++)
		bv_strv_push(out, h->names[i]);
	return 0;
}

/* resolve -> compat for the series, labels unique. */
int bv_hist_resolve(bv_hist *h)
{
	int rc = bv_repo_open(&h->repo);
	if (rc)
		return rc;
	h->git = bv_repo_git(h->repo);
	bv_strv names = {0};
	int commits = 0;
	rc = series_names(h, &names, &commits);
	size_t *keep = bv_xcalloc(names.n + 1, sizeof(size_t));
	size_t nkeep = rc == 0 ? bv_history_every(names.n, (size_t)h->every, keep) : 0;
	if (rc == 0 && nkeep < 2)
		rc = bv_fail(BV_EINPUT, "%s %zu %s in reach: a history needs two at least",
		             h->releases ? "only" : "the series has", nkeep,
		             h->releases ? bv_plural((long long)nkeep, "release", "releases")
		                         : bv_plural((long long)nkeep, "version", "versions"));
	h->all = bv_xcalloc(nkeep + 1, sizeof(bv_version));
	for (size_t k = 0; rc == 0 && k < nkeep; k++) {
		bv_version *v = &h->all[k];
		rc = bv_resolve(h->repo, names.v[keep[k]], v);
		if (rc)
			break;
		h->nresolved++;
		if (commits) { /* short ids: the names of a range's commits */
			free(v->name), free(v->label);
			v->name = bv_asprintf("%.12s", v->commit);
			v->label = bv_strdup(v->name);
		}
		for (size_t j = 0; j < k; j++)
			if (!strcmp(h->all[j].label, v->label)) {
				char *l = bv_asprintf("%s-%zu", v->label, k + 1);
				free(v->label);
				v->label = l;
			}
		fprintf(stderr, "resolve: %-12s -> %s %.12s, %s %s [%s]\n", v->name,
		        v->kind == BV_VERSION_LOCAL     ? "tree"
		        : v->kind == BV_VERSION_RELEASE ? "tarball"
		                                        : "commit",
		        v->kind == BV_VERSION_LOCAL     ? v->tree
		        : v->kind == BV_VERSION_RELEASE ? v->tree + strlen("release-")
		                                        : v->commit,
		        bv_project_current()->name, v->kernel_version, v->rule);
	}
	h->nall = h->nresolved;
	if (rc == 0 && names.n != nkeep)
		bv_strv_pushf(&h->notes,
		              "--every %d: %zu of the %zu versions of the series kept (both ends always)",
		              h->every, nkeep, names.n);
	free(keep);
	bv_strv_free(&names);
	if (rc == 0)
		rc = bv_compat_load(bv_compat_path(), &h->compat);
	for (size_t i = 0; rc == 0 && i < h->nall; i++) {
		bv_semver sv;
		if (bv_semver_parse(h->all[i].kernel_version, &sv) == 0)
			rc = bv_compat_match(h->compat, &sv, &h->all[i].shims);
	}
	if (rc == 0 && bv_interrupted())
		rc = bv_fail_interrupted();
	return rc;
}

/* The results directory, made and held before anything is built (as run's). */
int bv_hist_open_results(bv_hist *h)
{
	char *root = NULL;
	int rc = 0;
	if (h->cli.results_root)
		root = bv_strdup(h->cli.results_root);
	else
		rc = bv_results_default(&root);
	if (rc == 0) {
		h->dir = bv_results_dir_new(root);
		rc = h->dir ? 0 : BV_ERUN;
	}
	free(root);
	if (rc == 0)
		rc = bv_results_dir_claim(h->dir, &h->lockfd);
	return rc;
}

/* Builds every version of the series; those that do not build are left out
 * (said in the notes), the chain goes on from the last that did.  Versions
 * with one build key (commits that leave the library's tree alone: most of
 * a range) are built once: built side by side they would each make the same
 * build, neither finding the other's in the cache yet. */
int bv_hist_build(bv_hist *h)
{
	size_t *same = bv_xcalloc(h->nall + 1, sizeof(size_t)); /* the first version with i's key */
	char(*keys)[41] = bv_xcalloc(h->nall + 1, sizeof(*keys));
	bv_version *uniq = bv_xcalloc(h->nall + 1, sizeof(bv_version));
	size_t *of = bv_xcalloc(h->nall + 1, sizeof(size_t)), nuniq = 0;
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < h->nall; i++) {
		rc = bv_build_key(&h->all[i], keys[i]);
		same[i] = i;
		for (size_t j = 0; rc == 0 && j < i; j++)
			if (!strcmp(keys[i], keys[j])) {
				same[i] = same[j];
				break;
			}
		if (rc == 0 && same[i] == i) {
			uniq[nuniq] = h->all[i]; /* moved back after the build */
			of[nuniq++] = i;
		}
	}
	int failures = 0;
	if (rc == 0) {
		bv_progress *pg = bv_progress_new("build", nuniq);
		rc = bv_build_versions(h->repo, uniq, nuniq, h->cli.jobs, h->lockfd, pg, &failures);
		bv_progress_end(pg);
		/* The builds replaced fields the copies shared with the originals. */
		for (size_t k = 0; k < nuniq; k++)
			h->all[of[k]] = uniq[k];
	}
	for (size_t i = 0; rc == 0 && i < h->nall; i++) {
		const bv_version *u = &h->all[same[i]];
		bv_version *v = &h->all[i];
		if (same[i] == i)
			continue;
		free(v->src_dir), free(v->build_key), free(v->plugin), free(v->build_error);
		v->src_dir = u->src_dir ? bv_strdup(u->src_dir) : NULL;
		v->build_key = u->build_key ? bv_strdup(u->build_key) : NULL;
		v->plugin = u->plugin ? bv_strdup(u->plugin) : NULL;
		v->build_error = u->build_error ? bv_strdup(u->build_error) : NULL;
		v->cached = 1;
		fprintf(stderr, "build: %-12s the same library as %s, nothing rebuilt\n", v->name, u->name);
	}
	free(same), free(keys), free(uniq), free(of);
	if (rc)
		return rc;
	h->built = bv_xcalloc(h->nall + 1, sizeof(size_t));
	for (size_t i = 0; i < h->nall; i++) {
		if (!h->all[i].build_error) {
			h->built[h->nv++] = i;
			continue;
		}
		/* the first line of the error: the log tail follows it */
		char *first = bv_strdup(h->all[i].build_error);
		first[strcspn(first, "\n")] = '\0';
		bv_strv_pushf(&h->notes, "%s did not build (%s): left out of the chain", h->all[i].name,
		              first);
		free(first);
	}
	if (h->nv < 2)
		return bv_fail(BV_ERUN, "%s of the %zu versions of the series built: a history needs two",
		               h->nv ? "only one" : "none", h->nall);
	return 0;
}

/* ---- the verdicts -------------------------------------------------------- */

/* An inconclusive step whose estimate lies past the band: a change of the
 * threshold's size or more that the processes could not decide (not a
 * step without an interval inside the band, which is a same too short of
 * processes). */
static int past_band(const bv_hist_step *st, double thr)
{
	return st->s.verdict == BV_INCONCLUSIVE && isfinite(st->s.ratio) &&
	       (st->s.ratio > 1 + thr || st->s.ratio < 1 / (1 + thr));
}

/* Step i of cell x is such a step and no change point holds it (the span
 * test can call a step the single-step test left inconclusive). */
int bv_hist_undecided(const bv_hist_cell *x, size_t i, double thr)
{
	if (!past_band(&x->steps[i], thr))
		return 0;
	for (size_t k = 0; k < x->ncps; k++)
		if (x->cps[k].first <= i && i <= x->cps[k].last)
			return 0;
	return 1;
}

/* After bv_hist_find_changes: the undecided steps. */
void bv_hist_count_undecided(bv_hist *h)
{
	h->inconclusive = 0;
	for (size_t c = 0; c < h->ncells; c++)
		for (size_t i = 0; i + 1 < h->nv; i++)
			h->inconclusive += bv_hist_undecided(&h->cells[c], i, h->cli.mo.threshold);
}

/* Every step of every cell decided together, by verdict.c's rule
 * (bv_changes_decide, the one run and compare use): slower or faster only
 * when the step's interval says so and its evidence survives
 * Benjamini-Hochberg at BV_FDR over every step tested; `same` only when the
 * estimate lies inside the band with an interval; else inconclusive.  An
 * unstable step is judged on nothing (out of the family); a step with no
 * per-process ratios (none stored) is shown, never called. */
void bv_hist_decide(bv_hist *h)
{
	double thr = h->cli.mo.threshold;
	size_t cap = h->ncells * h->nv + 1, n = 0;
	bv_change *chs = bv_xcalloc(cap, sizeof(bv_change));
	bv_change **all = bv_xcalloc(cap, sizeof(bv_change *));
	bv_hist_step **of = bv_xcalloc(cap, sizeof(bv_hist_step *));
	for (size_t c = 0; c < h->ncells; c++)
		for (size_t i = 0; i + 1 < h->nv; i++) {
			bv_hist_step *st = &h->cells[c].steps[i];
			st->s.verdict = BV_NO_VERDICT;
			if (!isfinite(st->s.ratio))
				continue;
			bv_change *ch = &chs[n];
			/* A stored step keeps lo and hi only as a 95 % interval
			 * (store.h), not the coverage itself. */
			double cov = st->coverage > 0 ? st->coverage : isfinite(st->s.lo) ? 0.95 : 0;
			ch->valid = 1, ch->verdict = BV_SAME, ch->ratio = st->s.ratio;
			ch->ci_low = st->s.lo, ch->ci_high = st->s.hi, ch->coverage = cov;
			ch->processes = (int)st->s.nproc, ch->unstable = st->unstable;
			ch->controlled = st->s.nproc && !st->unstable;
			ch->p = ch->p_slower = ch->p_faster = NAN;
			if (ch->controlled)
				bv_change_evidence(ch, st->s.proc_ratio, st->s.nproc, thr);
			all[n] = ch, of[n] = st, n++;
		}
	bv_decided d = bv_changes_decide(all, n, BV_FDR, thr);
	for (size_t k = 0; k < n; k++) {
		bv_hist_step *st = of[k];
		st->s.verdict = chs[k].verdict;
		st->s.p = chs[k].p, st->p_slower = chs[k].p_slower, st->p_faster = chs[k].p_faster;
		h->unstable += chs[k].unstable;
	}
	size_t m = d.tested, called = d.called;
	free(chs), free(all), free(of);
	h->tested = m, h->called = called;
	for (size_t c = 0; c < h->ncells; c++) {
		bv_hist_cell *x = &h->cells[c];
		bv_step *s = bv_xcalloc(h->nv, sizeof(bv_step));
		for (size_t i = 0; i + 1 < h->nv; i++)
			s[i] = x->steps[i].s;
		bv_history_chain(s, h->nv - 1, x->chain, x->clo, x->chi);
		free(s);
	}
}

/* The change points of every cell, decided over the whole table at once
 * (changepoint.c: single steps and gradual spans, q shared between them). */
int bv_hist_find_changes(bv_hist *h)
{
	size_t nsteps = h->nv - 1;
	bv_step **cs = bv_xcalloc(h->ncells + 1, sizeof(*cs));
	for (size_t c = 0; c < h->ncells; c++) {
		cs[c] = bv_xcalloc(nsteps + 1, sizeof(bv_step));
		for (size_t i = 0; i < nsteps; i++)
			cs[c][i] = h->cells[c].steps[i].s; /* shallow: only read */
	}
	bv_change_point *cps = NULL;
	size_t n = 0;
	int rc = bv_changepoints_table(cs, h->ncells, nsteps, h->cli.mo.threshold, BV_FDR, &cps, &n);
	for (size_t k = 0; rc == 0 && k < n; k++) {
		bv_hist_cell *x = &h->cells[cps[k].cell];
		x->cps = bv_xrealloc(x->cps, (x->ncps + 1) * sizeof(*x->cps));
		x->cps[x->ncps++] = cps[k];
	}
	free(cps);
	for (size_t c = 0; c < h->ncells; c++)
		free(cs[c]);
	free(cs);
	return rc;
}
