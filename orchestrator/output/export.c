/*
 * export.c - the registry of output formats.  Each format is one file
 * (export_<name>.c) with one write function; adding a format is that file
 * and one line here.  Also the few formatting helpers the formats share, so
 * a time reads the same in a terminal, a PR comment and a report.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends.h"
#include "benches.h"
#include "common.h"
#include "counts.h"
#include "export.h"
#include "merge.h"
#include "options.h"
#include "table.h"
#include "verdict.h"

static const bv_exporter exporters[] = {
    {"table", bv_export_table}, {"markdown", bv_export_markdown}, {"csv", bv_export_csv},
    {"json", bv_export_json},   {"html", bv_export_html},
};

const bv_exporter *bv_exporter_find(const char *name)
{
	for (size_t i = 0; i < sizeof(exporters) / sizeof(exporters[0]); i++)
		if (strcmp(exporters[i].name, name) == 0)
			return &exporters[i];
	return NULL;
}

const char *const *bv_exporter_list(void)
{
	static const char *names[sizeof(exporters) / sizeof(exporters[0]) + 1];
	if (!names[0])
		for (size_t i = 0; i < sizeof(exporters) / sizeof(exporters[0]); i++)
			names[i] = exporters[i].name;
	return names;
}

const char *bv_exporter_names(void)
{
	static char names[128];
	if (!names[0])
		for (size_t i = 0; i < sizeof(exporters) / sizeof(exporters[0]); i++) {
			if (i)
				strncat(names, "|", sizeof(names) - strlen(names) - 1);
			strncat(names, exporters[i].name, sizeof(names) - strlen(names) - 1);
		}
	return names;
}

const char *const bv_colour_values[] = {"auto", "always", "never", NULL};

int bv_colour_wanted(const char *when, FILE *out)
{
	if (!strcmp(when, "always"))
		return 1;
	if (!strcmp(when, "never"))
		return 0;
	/* Escapes belong on a terminal only: a file or a pipe (a PR comment,
	 * grep) gets plain text. */
	const char *nc = getenv("NO_COLOR");
	return isatty(fileno(out)) && !(nc && *nc);
}

void bv_view_init(bv_view_opts *v)
{
	v->only_changes = 0;
	v->colour = "auto";
	v->vs_backend = NULL;
	v->vs = NULL;
	memset(&v->axis, 0, sizeof(v->axis));
	v->counts = NULL;
	v->count_timeout = 120;
	v->wide = 0;
}

/* The two options of the counts (counts.h), in both tables below. */
#define COUNTS_OPTIONS(v) \
	    BV_ENUM("--counts", &(v)->counts, "WHICH", bv_counts_values, \
		    "why cells changed: each side's call counted once under Valgrind (instructions, " \
		    "simulated cache misses, the functions that changed), beside the verdict: changed " \
		    "(run's default: cells not same), all (every host cell), none; compare shows what the " \
		    "run counted unless this is given"), \
	    BV_DURATION("--count-timeout", &(v)->count_timeout, "S", 1, 86400, \
			"one call under Valgrind (about 50x slower than native) may take this long, else its " \
			"cell says timeout (default 120 s)")

void bv_counts_table(bv_view_opts *v, bv_option *opts)
{
	const bv_option all[] = {
	    COUNTS_OPTIONS(v),
	    BV_END,
	};
	_Static_assert(sizeof(all) / sizeof(all[0]) == BV_COUNTS_OPTIONS, "BV_COUNTS_OPTIONS is wrong");
	memcpy(opts, all, sizeof(all));
}

void bv_view_table(bv_view_opts *v, bv_option *opts)
{
	const bv_option all[] = {
	    BV_FLAG("--only-changes", &v->only_changes,
		    "show only rows whose verdict is not same (slower, faster, inconclusive, unstable, "
		    "errors): for PR comments; the footer still counts every row"),
	    BV_ENUM("--color", &v->colour, "WHEN", bv_colour_values,
		    "colour the table's verdicts: auto (a terminal, unless NO_COLOR is set), always, never"),
	    BV_STRING("--vs-backend", &v->vs_backend, "B",
		      "the backend view: for each version, every backend's time over backend B's in the same "
		      "cell, paired by process, with its interval and verdict (which backend wins, by how much)"),
	    BV_STRING("--vs", &v->vs, "NAME=VALUE",
		      "the same view along any axis of a cell: backend=B is --vs-backend B (so is a suite's "
		      "variant parameter); a suite op's parameter, level=1: each other level's time over "
		      "level=1's in the same op, backend and size, paired by process, with its interval and "
		      "verdict (which value is fastest, by how much); not size"),
	    BV_FLAG("--wide", &v->wide,
		    "every detail in its cell (the counts' sentence, the machine's states, the layouts' "
		    "spread) instead of a why word and numbered notes under the table, and no fitting to "
		    "the terminal's width"),
	    COUNTS_OPTIONS(v),
	    BV_END,
	};
	_Static_assert(sizeof(all) / sizeof(all[0]) == BV_VIEW_OPTIONS, "BV_VIEW_OPTIONS is wrong");
	memcpy(opts, all, sizeof(all));
}

int bv_view_apply(const bv_view_opts *v, const char *format, bv_table *t)
{
	/* Only the table paints: escapes in markdown or JSON would be data. */
	t->colour = !strcmp(format, "table") && bv_colour_wanted(v->colour, stdout);
	t->wide = v->wide;
	t->width = !strcmp(format, "table") && !v->wide ? bv_term_width(stdout) : 0;
	if (v->only_changes)
		bv_table_only_changes(t);
	bv_table_note_wrong(t);
	bv_table_note_budget(t);
	return v->axis.on ? bv_table_vs(t, &v->axis) : 0;
}

int bv_view_vs(bv_view_opts *v)
{
	memset(&v->axis, 0, sizeof(v->axis));
	if (v->vs && v->vs_backend)
		return bv_fail(BV_EINPUT, "--vs %s with --vs-backend %s: give one (--vs backend=%s is --vs-backend %s)",
		               v->vs, v->vs_backend, v->vs_backend, v->vs_backend);
	if (v->vs)
		return bv_vs_parse(v->vs, &v->axis);
	return v->vs_backend ? bv_vs_backend(v->vs_backend, &v->axis) : 0;
}

int bv_view_counts(const bv_view_opts *v, bv_table *t, const char *results_dir, int counting)
{
	bv_counts_opts o = {bv_counts_parse(v->counts ? v->counts : "changed"), v->count_timeout, 0,
			    counting || v->counts != NULL};
	return bv_counts_explain(t, results_dir, &o);
}

void bv_format_time(double ns, char *buf, size_t len)
{
	if (ns < 1e3)
		snprintf(buf, len, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(buf, len, "%.2f us", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, len, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.2f s", ns / 1e9);
}

/* Bytes as people read them: 0 B, 512 B, 376 KiB, 1.5 MiB. */
static void format_bytes(double b, char *buf, size_t len)
{
	const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	int u = 0;
	while (b >= 1024 && u < 4)
		b /= 1024, u++;
	snprintf(buf, len, u == 0 || b >= 100 ? "%.0f %s" : "%.1f %s", b, unit[u]);
}

void bv_format_simd(const bv_table *t, char *buf, size_t len)
{
	buf[0] = '\0';
	int any = 0, same = 1;
	for (size_t i = 0; t->meta && i < t->nversions; i++) {
		const char *a = t->meta[i].simd_isa, *b = t->meta[0].simd_isa;
		any |= a != NULL;
		same &= a && b && !strcmp(a, b);
	}
	if (!any)
		return;
	if (same) {
		snprintf(buf, len, "%s", t->meta[0].simd_isa);
		return;
	}
	for (size_t i = 0, at = 0; i < t->nversions && at < len; i++) {
		int w = snprintf(buf + at, len - at, "%s%s %s", i ? ", " : "", t->labels[i],
				 t->meta[i].simd_isa ? t->meta[i].simd_isa : "-");
		at += w > 0 ? (size_t)w : 0;
	}
}

/* A one-point "[0.992, 0.992]" from a single process is not an interval:
 * below 95 % coverage the estimate is shown alone, saying why. */
void bv_format_ratio(const bv_change *ch, char *buf, size_t len)
{
	if (!bv_change_has_interval(ch))
		snprintf(buf, len, "%.3f [no 95%% interval: %d process%s]", ch->ratio, ch->processes,
			 ch->processes == 1 ? "" : "es");
	else if (isfinite(ch->ci_high))
		snprintf(buf, len, "%.3f [%.3f, %.3f]", ch->ratio, ch->ci_low, ch->ci_high);
	else
		snprintf(buf, len, "%.3f [%.3f, inf]", ch->ratio, ch->ci_low);
}

/* Rates are shown against the roof that binds: the share of copy bandwidth
 * or of peak FLOPs, whichever is larger. */
void bv_format_result(const bv_table *t, const bv_result *res, char *buf, size_t len)
{
	const char *units = t->units ? t->units : "time";
	int memory = res->pct_copy_bw >= res->pct_peak_flops;
	if (!strcmp(units, "rate") && (res->gbps > 0 || res->gflops > 0)) {
		if (memory)
			snprintf(buf, len, "%.1f GB/s", res->gbps);
		else
			snprintf(buf, len, "%.1f GFLOP/s", res->gflops);
	} else if (!strcmp(units, "peak") && (res->pct_copy_bw > 0 || res->pct_peak_flops > 0)) {
		snprintf(buf, len, "%.0f%% of %s", memory ? res->pct_copy_bw : res->pct_peak_flops,
		         memory ? "copy bw" : "peak FLOPs");
	} else if (!strcmp(units, "memory")) {
		/* The library's workspace in one call; a version that does not
		 * count its memory (before kernels 0.10) says so. */
		if (!isfinite(res->library_host_bytes) && !isfinite(res->library_device_bytes)) {
			snprintf(buf, len, "not counted");
			return;
		}
		char h[32], d[32];
		format_bytes(isfinite(res->library_host_bytes) ? res->library_host_bytes : 0, h, sizeof(h));
		format_bytes(isfinite(res->library_device_bytes) ? res->library_device_bytes : 0, d, sizeof(d));
		if (res->library_device_bytes > 0)
			snprintf(buf, len, "%s + %s device", h, d);
		else
			snprintf(buf, len, "%s", h);
	} else
		bv_format_time(res->median_ns, buf, len);
}

int bv_change_not_called(const bv_change *ch)
{
	return ch->verdict == BV_SAME || ch->verdict == BV_INCONCLUSIVE;
}

int bv_change_layout_bound(const bv_table *t, const bv_change *ch)
{
	return ch->layouts > 1 && ch->layout_hi >= ch->layout_lo &&
	       (ch->layout_hi > 1 + t->threshold || ch->layout_lo < 1 / (1 + t->threshold));
}

/* The backend view as text: one line per backend cell and version, after
 * the table (export_table.c; markdown and HTML have their own tables). */
static void change_text(const bv_table *t, const bv_change *ch, char *buf, size_t len)
{
	if (!ch->valid) {
		snprintf(buf, len, "%s", ch->none ? ch->none : "no ratio");
		return;
	}
	char q[96], ratio[64];
	bv_format_qualifiers(t, ch, q, sizeof(q));
	bv_format_ratio(ch, ratio, sizeof(ratio));
	snprintf(buf, len, "%s %s%s", ratio, bv_verdict_name(ch->verdict), q);
}

void bv_backend_cell_text(const bv_table *t, const bv_backend_cmp *b, char *buf, size_t len)
{
	change_text(t, &b->ch, buf, len);
}

void bv_backend_win_text(const bv_table *t, const bv_backend_win *w, char *buf, size_t len)
{
	char best[200], next[200];
	bv_vs_value(t, &t->rows[w->row], best, sizeof(best));
	bv_vs_value(t, &t->rows[w->next_row], next, sizeof(next));
	char ratio[64];
	if (w->ch.valid && w->ch.verdict == BV_FASTER) {
		bv_format_ratio(&w->ch, ratio, sizeof(ratio));
		snprintf(buf, len, "%s, %s of %s's time", best, ratio, next);
		return;
	}
	char text[200];
	change_text(t, &w->ch, text, sizeof(text));
	snprintf(buf, len, "%s or %s: not told apart (%s over %s: %s)", best, next, best, next, text);
}

void bv_export_backends_table(const bv_table *t, FILE *out)
{
	if (!t->vs.on)
		return;
	char plural[80], ref[200];
	bv_vs_plural(t, plural, sizeof(plural));
	bv_vs_ref(t, ref, sizeof(ref));
	/* The backend view's words are as they were; a parameter's cells
	 * differ in their op, so "the same cell" would not be true. */
	fprintf(out, "\n%s vs %s (each %s's time over %s's%s; below 1: faster):\n", plural, ref,
	        bv_vs_noun(t), ref, t->vs.param[0] ? ", the cell otherwise the same, in the same process" : " in the same cell and process");
	size_t wv = 7, wc = 4;
	for (size_t i = 0; i < t->nbackends; i++) {
		const bv_row *r = &t->rows[t->backends[i].row];
		char size[32];
		bv_size_format(r->size, size, sizeof(size));
		size_t l = strlen(r->bench) + strlen(r->op) + strlen(r->backend) + strlen(size) + 3;
		wc = l > wc ? l : wc;
		size_t lv = strlen(t->labels[t->backends[i].version]);
		wv = lv > wv ? lv : wv;
	}
	fprintf(out, "  %-*s  %-*s  %s\n", (int)wv, "version", (int)wc, "cell", "ratio [95% CI]  verdict");
	for (size_t i = 0; i < t->nbackends; i++) {
		const bv_backend_cmp *b = &t->backends[i];
		const bv_row *r = &t->rows[b->row];
		char size[32], cell[256], text[256];
		bv_size_format(r->size, size, sizeof(size));
		snprintf(cell, sizeof(cell), "%s/%s/%s/%s", r->bench, r->op, r->backend, size);
		bv_backend_cell_text(t, b, text, sizeof(text));
		fprintf(out, "  %-*s  %-*s  %s\n", (int)wv, t->labels[b->version], (int)wc, cell, text);
	}
	if (!t->nwins)
		return;
	fprintf(out, "\nfastest %s per cell (against the next fastest, in the same processes):\n", bv_vs_noun(t));
	for (size_t i = 0; i < t->nwins; i++) {
		const bv_backend_win *w = &t->wins[i];
		const bv_row *r = &t->rows[w->row];
		char cell[512], text[512];
		bv_vs_group(t, r, cell, sizeof(cell));
		bv_backend_win_text(t, w, text, sizeof(text));
		fprintf(out, "  %-*s  %-*s  %s\n", (int)wv, t->labels[w->version], (int)wc, cell, text);
	}
}
