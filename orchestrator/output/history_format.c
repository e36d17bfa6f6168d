/*
 * history_format.c - the words every format of `bench-versions history` shares
 * (history_format.h): a change point in words, its bisect command, the
 * verdicts' control line, the numbers as the formats print them; and the
 * table of formats --format picks from (bv_hist_format_find), as export.c
 * holds bv_exporter's.
 */
#include <git2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "changepoint.h"
#include "common.h"
#include "history.h"
#include "history_format.h"
#include "verdict.h"

/* The versions left out just before built version j (a step spans them). */
void bv_hist_gap_before(const bv_hist *h, size_t j, bv_strv *out)
{
	if (j == 0)
		return;
	for (size_t i = h->built[j - 1] + 1; i < h->built[j]; i++)
		bv_strv_push(out, h->all[i].name);
}

/* Whether b is a commit after a with commits between them: the series
 * skipped some, and bisect can narrow a change between the two. */
static int narrowable(const bv_hist *h, const bv_version *a, const bv_version *b)
{
	if (!h->git || a->kind != BV_VERSION_GIT || b->kind != BV_VERSION_GIT)
		return 0;
	git_oid aid, bid;
	if (git_oid_fromstr(&aid, a->commit) || git_oid_fromstr(&bid, b->commit) || git_oid_equal(&aid, &bid))
		return 0;
	if (git_graph_descendant_of(h->git, &bid, &aid) != 1)
		return 0;
	git_commit *c = NULL;
	if (git_commit_lookup(&c, h->git, &bid) < 0)
		return 0;
	int child = git_commit_parentcount(c) >= 1 && git_oid_equal(git_commit_parent_id(c, 0), &aid);
	git_commit_free(c);
	return !child;
}

/* The bisect command that narrows change point cp of cell x, or NULL. */
char *bv_hist_bisect_command(const bv_hist *h, const bv_hist_cell *x, const bv_change_point *cp)
{
	const bv_version *a = bv_hist_version(h, cp->first), *b = bv_hist_version(h, cp->last + 1);
	if (!narrowable(h, a, b))
		return NULL;
	/* The cell's names quoted as a shell reads them back: a suite's op
	 * carries brackets (pack[level=9]), a glob to an unquoted shell. */
	bv_buf c = BV_BUF_INIT;
	bv_buf_printf(&c, "bench-versions bisect --good %.12s --bad %.12s", a->commit, b->commit);
	const char *opt[] = {" --bench ", " --op ", " --backend ", " --size "};
	const char *val[] = {x->bench, x->op, x->backend, x->size};
	for (int i = 0; i < 4; i++) {
		bv_buf_puts(&c, opt[i]);
		bv_shell_word(&c, val[i]);
	}
	bv_buf_printf(&c, "%s%s", h->first_parent ? " --first-parent" : "",
	              cp->direction == BV_FASTER ? " --improvement" : "");
	return bv_buf_detach(&c);
}

/* "0.1.1 (1a2b3c4d5e6f)", or the name alone when it is the short commit. */
void bv_hist_version_words(const bv_version *v, char *buf, size_t len)
{
	if (v->kind == BV_VERSION_GIT && strncmp(v->name, v->commit, strlen(v->name)))
		snprintf(buf, len, "%s (%.12s)", v->name, v->commit);
	else
		snprintf(buf, len, "%s", v->name);
}

int bv_hist_change_at(const bv_hist_cell *x, size_t j) /* a change point ends at version j */
{
	for (size_t k = 0; k < x->ncps; k++)
		if (x->cps[k].last + 1 == j)
			return 1;
	return 0;
}

void bv_hist_num(double v, char *buf, size_t len)
{
	if (isfinite(v))
		snprintf(buf, len, "%.3f", v);
	else
		snprintf(buf, len, "-");
}

static void fmt_interval(double r, double lo, double hi, char *buf, size_t len)
{
	if (!isfinite(r))
		snprintf(buf, len, "no ratio");
	else if (isfinite(lo) && isfinite(hi))
		snprintf(buf, len, "%.3f [%.3f, %.3f]", r, lo, hi);
	else
		snprintf(buf, len, "%.3f [no 95%% interval]", r);
}

/* How many of a change point's steps the single-step test called in its
 * direction.  The two tests differ: a change point is found over spans of
 * steps too (changepoint.c), so a gradual change is listed while each of
 * its steps stays inconclusive, and a listing that does not say so reads
 * as the history disagreeing with itself. */
size_t bv_hist_steps_agreeing(const bv_hist_cell *x, const bv_change_point *cp)
{
	size_t n = 0;
	for (size_t i = cp->first; i <= cp->last; i++)
		n += x->steps[i].s.verdict == cp->direction;
	return n;
}

static size_t changes_beyond_steps(const bv_hist *h)
{
	size_t n = 0;
	for (size_t c = 0; c < h->ncells; c++)
		for (size_t k = 0; k < h->cells[c].ncps; k++) {
			const bv_change_point *cp = &h->cells[c].cps[k];
			n += bv_hist_steps_agreeing(&h->cells[c], cp) < cp->last - cp->first + 1;
		}
	return n;
}

void bv_hist_change_line_of(const bv_hist *h, const bv_hist_cell *x, const bv_change_point *cp,
                            bv_hist_change_line *l)
{
	size_t span = cp->last - cp->first + 1, agree = bv_hist_steps_agreeing(x, cp);
	l->why[0] = '\0';
	if (span == 1 && agree == 0)
		snprintf(l->why, sizeof(l->why), " (its step alone: %s; the change-point test called it)",
		         x->steps[cp->first].s.verdict ? bv_verdict_name(x->steps[cp->first].s.verdict) : "no verdict");
	else if (span > 1 && agree == 0)
		snprintf(l->why, sizeof(l->why), " (gradual, over %zu steps: no step called alone)", span);
	else if (span > 1 && agree < span)
		snprintf(l->why, sizeof(l->why), " (gradual, over %zu steps: %zu called alone)", span, agree);
	bv_hist_version_words(bv_hist_version(h, cp->first), l->from, sizeof(l->from));
	bv_hist_version_words(bv_hist_version(h, cp->last + 1), l->to, sizeof(l->to));
	fmt_interval(cp->ratio, cp->lo, cp->hi, l->size, sizeof(l->size));
	bv_strv gap = {0};
	for (size_t j = cp->first + 1; j <= cp->last + 1; j++)
		bv_hist_gap_before(h, j, &gap);
	l->gap[0] = '\0';
	if (gap.n)
		snprintf(l->gap, sizeof(l->gap), " (the change spans %zu %s that did not build)", gap.n,
		         bv_plural((long long)gap.n, "version", "versions"));
	bv_strv_free(&gap);
}

size_t bv_hist_count_changes(const bv_hist *h)
{
	size_t n = 0;
	for (size_t c = 0; c < h->ncells; c++)
		n += h->cells[c].ncps;
	return n;
}

void bv_hist_control_line(const bv_hist *h, FILE *out)
{
	fprintf(out,
	        "%zu %s of %zu %s decided together at a %g%% false-discovery rate (Benjamini-Hochberg over "
	        "anytime-valid sign tests against the %.1f%% band); %zu %s alone; %zu %s listed",
	        h->tested, bv_plural((long long)h->tested, "step", "steps"), h->ncells,
	        bv_plural((long long)h->ncells, "cell", "cells"), BV_FDR * 100, h->cli.mo.threshold * 100,
	        h->called, h->called == 1 ? "step called" : "steps called", bv_hist_count_changes(h),
	        bv_plural((long long)bv_hist_count_changes(h), "change", "changes"));
	size_t beyond = changes_beyond_steps(h);
	if (beyond)
		fprintf(out, " (%zu where the steps alone were not all called: the change-point test over spans)",
		        beyond);
	if (h->inconclusive)
		fprintf(out,
		        "; %zu inconclusive past the band outside the listed changes (not decided in %d processes "
		        "at most: measure again "
		        "with more%s)",
		        h->inconclusive, h->cli.mo.max_processes,
		        h->cli.mo.quick ? ", without --quick or with a larger --max-processes" : ", --max-processes");
	if (h->unstable)
		fprintf(out, "; %zu unstable (the machine changed under %s)", h->unstable,
		        h->unstable == 1 ? "it" : "them");
	fputc('\n', out);
}

static const bv_hist_format formats[] = {
    {"table", bv_hist_write_table},
    {"json", bv_hist_write_json},
    {"markdown", bv_hist_write_markdown},
    {"html", bv_hist_write_html},
};
#define NFORMATS (sizeof(formats) / sizeof(formats[0]))

const bv_hist_format *bv_hist_format_find(const char *name)
{
	for (size_t i = 0; i < NFORMATS; i++)
		if (!strcmp(formats[i].name, name))
			return &formats[i];
	return NULL;
}

const char *const *bv_hist_format_list(void)
{
	static const char *names[NFORMATS + 1];
	for (size_t i = 0; i < NFORMATS; i++)
		names[i] = formats[i].name;
	return names;
}
