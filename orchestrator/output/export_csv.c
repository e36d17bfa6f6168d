/*
 * export_csv.c - the comparison as CSV (RFC 4180) for spreadsheets and
 * scripts: one record per cell and version, the baseline's included, with
 * the numbers unrounded.  Ratio columns are empty for the baseline and where
 * no ratio was formed; verdict then says why (the status, "other machine").
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "benches.h"
#include "common.h"
#include "counts.h"
#include "export.h"
#include "table.h"
#include "verdict.h"

/* RFC 4180: a field holding a comma, quote, CR or LF is quoted, quotes
 * doubled.  Text from a log is hostile: a field a spreadsheet would read as
 * a formula (=, +, -, @ first) gets a leading apostrophe, as OWASP advises,
 * so opening the file never runs anything. */
static void field(FILE *out, const char *s, int text)
{
	if (!s)
		s = "";
	int formula = text && strchr("=+-@\t\r", s[0]) && s[0];
	if (!formula && !strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	if (formula)
		fputc('\'', out);
	for (const char *p = s; *p; p++) {
		if (*p == '"')
			fputc('"', out);
		fputc(*p, out);
	}
	fputc('"', out);
}

static void num(FILE *out, double v, int present)
{
	if (!present)
		return;
	if (isinf(v))
		fputs("inf", out);
	else
		fprintf(out, "%.9g", v);
}

static const char *const columns[] = {
    "bench",  "op",           "backend",       "size",       "version",  "status",
    "reason", "median_ns",    "ci_low_ns",     "ci_high_ns", "gb_per_s", "gflop_per_s",
    "ratio",  "ratio_ci_low", "ratio_ci_high", "verdict",    "mode",     "noisy",
    "library_host_bytes", "library_device_bytes", /* later: earlier columns keep their place */
    "counts_kind", "instructions_change", "counts", /* why the cell changed (counts.h) */
};

int bv_export_csv(const bv_table *t, FILE *out)
{
	size_t ncols = sizeof(columns) / sizeof(columns[0]);
	for (size_t c = 0; c < ncols; c++)
		fprintf(out, "%s%s", columns[c], c + 1 < ncols ? "," : "\r\n");
	for (size_t k = 0; k < t->nrows; k++) {
		const bv_row *r = &t->rows[k];
		for (size_t i = 0; i < t->nversions && !r->hidden; i++) {
			const bv_result *res = &r->results[i];
			const bv_change *ch = &r->changes[i];
			int ok = res->median_ns > 0, has = !bv_table_is_base(t, i) && ch->valid;
			field(out, r->bench, 1), fputc(',', out);
			field(out, r->op, 1), fputc(',', out);
			field(out, r->backend, 1), fputc(',', out);
			size_t d[3];
			char shape[32];
			/* 1-D sizes as element counts; shapes as 1024x4096 */
			if (bv_size_dims(r->size, d) == 1)
				fprintf(out, "%zu,", r->size);
			else
				fprintf(out, "%s,", bv_size_format(r->size, shape, sizeof(shape)));
			field(out, t->labels[i], 1), fputc(',', out);
			field(out, bv_status_name(res->status), 0), fputc(',', out);
			field(out, res->reason, 1), fputc(',', out);
			num(out, res->median_ns, ok), fputc(',', out);
			num(out, res->ci_low_ns, ok), fputc(',', out);
			num(out, res->ci_high_ns, ok), fputc(',', out);
			num(out, ok ? r->bytes / res->median_ns : 0, ok && r->bytes > 0), fputc(',', out);
			num(out, ok ? r->flops / res->median_ns : 0, ok && r->flops > 0), fputc(',', out);
			num(out, ch->ratio, has), fputc(',', out);
			/* a change without a 95 % interval has its estimate only */
			int iv = has && bv_change_has_interval(ch);
			num(out, ch->ci_low, iv), fputc(',', out);
			num(out, ch->ci_high, iv), fputc(',', out);
			field(out, bv_table_is_base(t, i) ? "" : has ? bv_verdict_name(ch->verdict) : ch->none ? ch->none : bv_status_name(res->status), 0);
			fputc(',', out);
			field(out, has ? (ch->mode ? ch->mode : "paired") : "", 0), fputc(',', out);
			fputs(has ? (ch->noisy ? "true" : "false") : "", out);
			fputc(',', out);
			num(out, res->library_host_bytes, ok && isfinite(res->library_host_bytes)), fputc(',', out);
			num(out, res->library_device_bytes, ok && isfinite(res->library_device_bytes)), fputc(',', out);
			const bv_count_cmp *w = has ? ch->why : NULL;
			field(out, w ? w->kind : "", 0), fputc(',', out);
			num(out, w ? w->instr : 0, w && isfinite(w->instr)), fputc(',', out);
			field(out, w ? w->text : "", 1);
			fputs("\r\n", out);
		}
	}
	return ferror(out) ? bv_fail(BV_ERUN, "cannot write CSV") : 0;
}
