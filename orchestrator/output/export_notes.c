/*
 * export_notes.c - what keeps a comparison table narrow: a change's cell
 * holds its ratio, interval, verdict and the short qualifiers (noisy,
 * unconfirmed, unpaired), its "why" a word (code, data, placement, machine,
 * not counted, not told), and everything longer (the counts' sentence, the
 * machine's two levels of an unstable change, the layouts' spread) is a
 * numbered note under the table.  Shared by the text, Markdown and HTML
 * tables; --wide keeps the old everything-in-the-cell layout.  Also the
 * terminal's width and a word wrap for the lines under the table.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "benches.h"
#include "common.h"
#include "counts.h"
#include "export.h"
#include "merge.h"
#include "table.h"

/* The counts' kind (counts.h) as the word a person reads beside the
 * verdict.  mixed (bv_count_weigh) is two cases: the time went the other
 * way from the counted work, which the code cannot explain ("machine":
 * placement or the machine dominates), or the same way but far further,
 * where the code's work did change and the note says the time moved more
 * than it carries ("code": a 12x faster relu that counts 37 % less modeled
 * work is the code's doing, not the machine's).  unknown is "not counted"
 * when there were no counts and "not told" when the counts ran on another
 * path than the one timed. */
const char *bv_why_word(const bv_change *ch)
{
	const bv_count_cmp *w = ch->why;
	if (!w)
		return NULL;
	if (!strcmp(w->kind, "code") || !strcmp(w->kind, "data") || !strcmp(w->kind, "placement"))
		return w->kind;
	if (!strcmp(w->kind, "mixed")) {
		int same_way = isfinite(w->cost) && w->cost != 0 && ch->ratio > 0 && ch->ratio != 1 &&
			       (ch->ratio < 1) == (w->cost < 0);
		return same_way ? "code" : "machine";
	}
	return w->text && !strncmp(w->text, "not counted", 11) ? "not counted" : "not told";
}

/* Placement explains a `same` that noise alone would not, and an
 * inconclusive estimate past the band. */
static int layout_shown(const bv_table *t, const bv_change *ch)
{
	return bv_change_not_called(ch) && bv_change_layout_bound(t, ch);
}

void bv_format_short_qualifiers(const bv_table *t, const bv_change *ch, char *buf, size_t len)
{
	/* held: the cell's own interval says changed, the run's evidence does
	 * not (verdict.c): "unconfirmed" says more than "noisy"; an
	 * inconclusive change is noisy by its definition, so that is not
	 * repeated */
	int unsure = ch->verdict == BV_INCONCLUSIVE;
	const char *noise = layout_shown(t, ch) ? "" : ch->held ? ", unconfirmed" : ch->noisy && !unsure ? ", noisy" : "";
	snprintf(buf, len, "%s%s%s", noise, ch->paired ? "" : " ", ch->paired ? "" : ch->mode);
}

/* The layouts' spread and the machine's states, as bv_format_qualifiers
 * writes them in a wide cell (lead: each part's leading punctuation) or
 * bare for a note. */
static void long_qualifiers(const bv_table *t, const bv_change *ch, int lead, char *buf, size_t len)
{
	char spread[64] = "", state[128] = "";
	if (layout_shown(t, ch))
		snprintf(spread, sizeof(spread), "%slayout [%.3f, %.3f]", lead ? ", " : "", ch->layout_lo, ch->layout_hi);
	if (ch->unstable)
		snprintf(state, sizeof(state), "%susual %.3f x%zu, disturbed %.3f x%zu%s", lead ? " (" : *spread ? "; " : "",
			 ch->level_usual, ch->n_usual, ch->level_disturbed, ch->n_disturbed, lead ? ")" : "");
	else if (ch->state_dependent)
		snprintf(state, sizeof(state), "%s%.3f while disturbed (%zu set aside)", lead || *spread ? ", " : "",
			 ch->level_disturbed, ch->n_disturbed);
	snprintf(buf, len, "%s%s", spread, state);
}

void bv_format_qualifiers(const bv_table *t, const bv_change *ch, char *buf, size_t len)
{
	char shortq[96], longq[200];
	bv_format_short_qualifiers(t, ch, shortq, sizeof(shortq));
	long_qualifiers(t, ch, 1, longq, sizeof(longq));
	/* the order the cell always had: noise, spread, state, mode */
	size_t mode = ch->paired ? strlen(shortq) : strlen(shortq) - strlen(ch->mode) - 1;
	snprintf(buf, len, "%.*s%s%s", (int)mode, shortq, longq, shortq + mode);
}

void bv_change_details(const bv_table *t, const bv_change *ch, char *buf, size_t len)
{
	char longq[200];
	long_qualifiers(t, ch, 0, longq, sizeof(longq));
	const char *why = ch->why && ch->why->text ? ch->why->text : "";
	snprintf(buf, len, "%s%s%s", longq, *longq && *why ? "; " : "", why);
}

/* A note's text for a cell shown in the table, or "" when it has none. */
static void cell_details(const bv_table *t, size_t k, size_t v, char *buf, size_t len)
{
	const bv_row *r = &t->rows[k];
	buf[0] = '\0';
	if (r->hidden || !bv_row_ran(r, t->nversions) || bv_table_is_base(t, v) || !r->changes[v].valid)
		return;
	bv_change_details(t, &r->changes[v], buf, len);
}

void bv_notes_build(const bv_table *t, bv_notes *n)
{
	size_t nv = t->nversions;
	memset(n, 0, sizeof(*n));
	n->nv = nv;
	n->num = bv_xcalloc(t->nrows * nv + 1, sizeof(size_t));
	if (t->wide)
		return;
	size_t *count = bv_xcalloc(t->nrows * nv + 1, sizeof(size_t)), *first = bv_xcalloc(t->nrows * nv + 1, sizeof(size_t));
	char **details = bv_xcalloc(t->nrows * nv + 1, sizeof(char *));
	int *other_row = bv_xcalloc(t->nrows * nv + 1, sizeof(int));
	for (size_t k = 0; k < t->nrows; k++)
		for (size_t v = 0; v < nv; v++) {
			char d[2048];
			cell_details(t, k, v, d, sizeof(d));
			if (!*d)
				continue;
			/* identical texts (placement's sentence on many cells) share one note */
			size_t j = 0;
			while (j < n->n && strcmp(details[j], d))
				j++;
			if (j == n->n)
				details[n->n++] = bv_strdup(d), first[j] = k * nv + v;
			/* the versions of one row sharing it: the note names the row */
			else if (first[j] / nv != k)
				other_row[j] = 1;
			count[j]++;
			n->num[k * nv + v] = j + 1;
		}
	n->text = bv_xcalloc(n->n + 1, sizeof(char *));
	for (size_t j = 0; j < n->n; j++) {
		const bv_row *r = &t->rows[first[j] / nv];
		size_t v = first[j] % nv;
		char size[32];
		bv_size_format(r->size, size, sizeof(size));
		bv_buf who = BV_BUF_INIT;
		if (other_row[j])
			bv_buf_printf(&who, "%zu cells", count[j]);
		else {
			/* "unary tanh scalar 64K, main vs 0.1.0", or "..., main and local vs 0.1.0" */
			bv_buf_printf(&who, "%s %s %s %s,", r->bench, r->op, r->backend, size);
			for (size_t u = v, said = 0; u < nv; u++)
				if (bv_notes_of(n, first[j] / nv, u) == j + 1)
					bv_buf_printf(&who, "%s %s", !said++ ? "" : said == count[j] ? " and" : ",", t->labels[u]);
			bv_buf_printf(&who, " vs %s", t->labels[bv_table_base(t, v)]);
		}
		char *w = bv_buf_detach(&who);
		n->text[j] = bv_asprintf("%s: %s", w, details[j]);
		free(w);
		free(details[j]);
	}
	free(details), free(count), free(first), free(other_row);
}

size_t bv_notes_of(const bv_notes *n, size_t row, size_t v) { return n->num[row * n->nv + v]; }

void bv_why_cell(const bv_notes *n, const bv_row *r, size_t row, size_t v, char *buf, size_t len)
{
	const char *word = r->changes[v].valid ? bv_why_word(&r->changes[v]) : NULL;
	size_t num = bv_notes_of(n, row, v);
	char ref[32] = "";
	if (num)
		snprintf(ref, sizeof(ref), "[%zu]", num);
	snprintf(buf, len, "%s%s%s", word ? word : "", word && num ? " " : "", ref);
}

void bv_notes_free(bv_notes *n)
{
	for (size_t j = 0; j < n->n; j++)
		free(n->text[j]);
	free(n->text), free(n->num);
	memset(n, 0, sizeof(*n));
}

size_t bv_term_width(FILE *out)
{
	/* COLUMNS first, as git does: a script or a pager may say what the
	 * terminal cannot */
	const char *c = getenv("COLUMNS");
	if (c && *c) {
		char *end;
		long w = strtol(c, &end, 10);
		if (!*end && w > 0 && w < 100000)
			return (size_t)w;
	}
	struct winsize ws;
	if (isatty(fileno(out)) && ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	return 0;
}

void bv_wrap(FILE *out, const char *text, size_t width, size_t indent)
{
	size_t len = strlen(text), col = 0;
	if (!width || len <= width || indent + 8 >= width) {
		fprintf(out, "%s\n", text);
		return;
	}
	const char *p = text;
	while (*p) {
		size_t room = width - col;
		size_t rest = strlen(p);
		size_t take = rest;
		if (rest > room) {
			/* break at the last space that fits, else mid-word (a path) */
			take = room;
			while (take > 0 && p[take] != ' ')
				take--;
			if (take == 0)
				take = room;
		}
		fprintf(out, "%.*s\n", (int)take, p);
		p += take;
		while (*p == ' ')
			p++;
		if (*p)
			fprintf(out, "%*s", (int)indent, "");
		col = indent;
	}
}

/* Whether any shown change of version v has a why cell: a column no row
 * fills is left out (the Markdown and HTML tables). */
int bv_why_column(const bv_table *t, const bv_notes *n, size_t v)
{
	if (t->wide)
		return 0;
	for (size_t k = 0; k < t->nrows; k++)
		if (!t->rows[k].hidden && bv_row_ran(&t->rows[k], t->nversions) &&
		    (bv_notes_of(n, k, v) || (t->rows[k].changes[v].valid && t->rows[k].changes[v].why)))
			return 1;
	return 0;
}

