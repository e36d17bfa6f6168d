/*
 * history_text.c - `bench-versions history` as a text table (--format table,
 * the default): one row per cell, one column per version, then the
 * changes, the undecided steps, the control line and the notes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "history.h"
#include "history_format.h"
#include "stats.h"

/* The undecided steps, a line each (at most 10), so that a change the
 * history could not decide is named, not left to the chain. */
static void inconclusive_lines(const bv_hist *h, FILE *out)
{
	size_t shown = 0;
	double thr = h->cli.mo.threshold;
	for (size_t c = 0; c < h->ncells; c++)
		for (size_t i = 0; i + 1 < h->nv; i++) {
			const bv_hist_step *st = &h->cells[c].steps[i];
			if (!bv_hist_undecided(&h->cells[c], i, thr) || shown++ >= 10)
				continue;
			char lo[32], hi[32];
			bv_hist_num(st->s.lo, lo, sizeof(lo)), bv_hist_num(st->s.hi, hi, sizeof(hi));
			fprintf(out, "inconclusive: %s, %s -> %s: %.3f [%s, %s] in %zu processes\n",
			        h->cells[c].key, bv_hist_version(h, i)->label,
			        bv_hist_version(h, i + 1)->label, st->s.ratio, lo, hi, st->s.nproc);
		}
	if (shown > 10)
		fprintf(out, "inconclusive: %zu more (history.json has every step)\n", shown - 10);
}

int bv_hist_write_table(const bv_hist *h, FILE *out)
{
	size_t kw = 4;
	for (size_t c = 0; c < h->ncells; c++)
		kw = strlen(h->cells[c].key) > kw ? strlen(h->cells[c].key) : kw;
	size_t *w = bv_xcalloc(h->nv, sizeof(size_t));
	fprintf(out, "%-*s", (int)kw, "cell");
	for (size_t j = 0; j < h->nv; j++) {
		w[j] = strlen(bv_hist_version(h, j)->label) > 7 ? strlen(bv_hist_version(h, j)->label) : 7;
		fprintf(out, "  %*s", (int)w[j], bv_hist_version(h, j)->label);
	}
	fprintf(out, "\n");
	for (size_t c = 0; c < h->ncells; c++) {
		const bv_hist_cell *x = &h->cells[c];
		fprintf(out, "%-*s", (int)kw, x->key);
		for (size_t j = 0; j < h->nv; j++) {
			char num[32], cellbuf[40];
			bv_hist_num(x->chain[j], num, sizeof(num));
			snprintf(cellbuf, sizeof(cellbuf), "%s%s", num, bv_hist_change_at(x, j) ? "*" : "");
			fprintf(out, "  %*s", (int)w[j], cellbuf);
		}
		fprintf(out, "\n");
	}
	free(w);
	fprintf(
	    out,
	    "(each version's time over %s's, the product of the paired steps; a cell new later starts at 1 "
	    "at its first version; * a change point)\n",
	    bv_hist_version(h, 0)->label);
	fprintf(out, "\nchanges:%s\n", bv_hist_count_changes(h) ? "" : " none");
	for (size_t c = 0; c < h->ncells; c++) {
		const bv_hist_cell *x = &h->cells[c];
		for (size_t k = 0; k < x->ncps; k++) {
			const bv_change_point *cp = &x->cps[k];
			bv_hist_change_line l;
			bv_hist_change_line_of(h, x, cp, &l);
			fprintf(out, "  %s: %s -> %s: %s %s%s%s\n", x->key, l.from, l.to, l.size,
			        bv_verdict_name(cp->direction), l.gap, l.why);
			char *cmd = bv_hist_bisect_command(h, x, cp);
			if (cmd)
				fprintf(out, "    narrow it: %s\n", cmd);
			free(cmd);
		}
	}
	fprintf(out, "\n");
	inconclusive_lines(h, out);
	bv_hist_control_line(h, out);
	fprintf(out, "windows: %zu of up to %d versions, overlapping by one\n", h->nwindows, h->window);
	for (size_t i = 0; i < h->notes.n; i++)
		fprintf(out, "note: %s\n", h->notes.v[i]);
	for (size_t c = 0; c < h->ncells; c++)
		for (size_t i = 0; i + 1 < h->nv; i++)
			for (int k = 0; k < 2; k++) {
				const char *why = k ? h->cells[c].steps[i].state : h->cells[c].steps[i].why;
				if (why)
					fprintf(out, "note: %s, %s -> %s: %s\n", h->cells[c].key,
					        bv_hist_version(h, i)->label,
					        bv_hist_version(h, i + 1)->label, why);
			}
	return 0;
}
