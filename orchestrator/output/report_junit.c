/*
 * report_junit.c - the release-readiness report as JUnit XML, the format CI
 * systems read: a testsuite "build" with one testcase per version, then one
 * testsuite per bench group with one testcase per cell.  A blocking cell
 * (regression, wrong result, crash, vanished, build failed) is a <failure>
 * whose type is its status; cells neither version ran, or that could not be
 * compared, are <skipped>; warnings and improvements pass, with the reason
 * in <system-out>.
 *
 * Strings from logs are escaped for XML and made valid UTF-8 (an XML parser
 * refuses a whole file for one bad byte).
 */
#include <stdlib.h>
#include <string.h>

#include "benches.h"
#include "common.h"
#include "report.h"
#include "table.h"

/* Length of the valid UTF-8 sequence at p, or 0. */
static size_t utf8_len(const unsigned char *p)
{
	size_t n = p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 && p[0] < 0xe0 ? 2 : 0;
	for (size_t i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

static void xml(FILE *out, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		if (*p >= 0x80) {
			size_t n = utf8_len(p);
			if (n)
				fwrite(p, 1, n, out), p += n - 1;
			else
				fputc('?', out);
		} else if (*p == '&')
			fputs("&amp;", out);
		else if (*p == '<')
			fputs("&lt;", out);
		else if (*p == '>')
			fputs("&gt;", out);
		else if (*p == '"')
			fputs("&quot;", out);
		else if (*p == '\'')
			fputs("&apos;", out);
		else if (*p == '\n' || *p == '\t')
			fputc(*p, out);
		else if (*p < 0x20 || *p == 0x7f)
			fputc('?', out);
		else
			fputc(*p, out);
	}
}

static int is_skipped(bv_cell_status s) { return s == BV_CELL_NOT_RUN || s == BV_CELL_UNCOMPARED; }

int bv_report_junit(const bv_report *r, FILE *out)
{
	const bv_table *t = &r->table;
	size_t failures = 0, skipped = 0;
	for (size_t k = 0; k < r->ncells; k++) {
		failures += bv_cell_status_blocks(r->cells[k].status);
		skipped += is_skipped(r->cells[k].status);
	}
	int built[2] = {!r->env[0].build_failed, !r->env[1].build_failed};
	/* A report with no comparable cell at all fails as a whole, so a
	 * CI system that only counts failures does not read it as green. */
	int empty = !r->ready && failures == 0 && built[0] && built[1];
	size_t build_fail = !built[0] + !built[1];
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"bench-versions report: ", out);
	xml(out, t->labels[1]), fputs(" vs ", out), xml(out, t->labels[0]);
	fprintf(out, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\">\n", r->ncells + 2 + empty,
		failures + build_fail + empty, skipped);

	fprintf(out, "  <testsuite name=\"build\" tests=\"%d\" failures=\"%zu\" errors=\"0\" skipped=\"0\">\n",
		2 + empty, build_fail + empty);
	for (int i = 0; i < 2; i++) {
		fprintf(out, "    <testcase classname=\"bench-versions.build\" name=\"%s ", i ? "candidate" : "baseline");
		xml(out, t->labels[i]), fputc('"', out);
		if (built[i]) {
			fputs("/>\n", out);
			continue;
		}
		fputs(">\n      <failure type=\"build failed\" message=\"", out);
		xml(out, t->labels[i]), fputs(" did not build\">", out), xml(out, r->env[i].build_error);
		fputs("</failure>\n    </testcase>\n", out);
	}
	if (empty) {
		fputs("    <testcase classname=\"bench-versions.build\" name=\"comparison\">\n      <failure "
		      "type=\"not compared\" message=\"",
		      out);
		xml(out, r->nreasons ? r->reasons[0] : "nothing compared");
		fputs("\"/>\n    </testcase>\n", out);
	}
	fputs("  </testsuite>\n", out);

	for (size_t g = 0; g < r->ngroups; g++) {
		const bv_report_group *grp = &r->groups[g];
		size_t n = 0, f = 0, s = 0;
		for (int st = 0; st < BV_CELL_NSTATUS; st++) {
			n += grp->counts[st];
			f += bv_cell_status_blocks((bv_cell_status)st) ? grp->counts[st] : 0;
			s += is_skipped((bv_cell_status)st) ? grp->counts[st] : 0;
		}
		fputs("  <testsuite name=\"", out), xml(out, grp->bench);
		fprintf(out, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\">\n", n, f, s);
		for (size_t k = 0; k < r->ncells; k++) {
			const bv_report_cell *c = &r->cells[k];
			if (strcmp(c->row->bench, grp->bench))
				continue;
			char name[256], size[32];
			bv_size_format(c->row->size, size, sizeof(size));
			snprintf(name, sizeof(name), "%s/%s/%s/%s", c->row->bench, c->row->op, c->row->backend, size);
			fputs("    <testcase classname=\"bench-versions.", out), xml(out, c->row->bench);
			fputs("\" name=\"", out), xml(out, name), fputs("\">\n", out);
			char *sum = bv_report_cell_summary(c);
			if (bv_cell_status_blocks(c->status)) {
				fputs("      <failure type=\"", out), xml(out, bv_cell_status_name(c->status));
				fputs("\" message=\"", out), xml(out, sum), fputs("\">", out);
				xml(out, bv_cell_status_name(c->status)), fputs(": ", out), xml(out, sum);
				fputs("</failure>\n", out);
			} else if (is_skipped(c->status)) {
				fputs("      <skipped message=\"", out), xml(out, sum), fputs("\"/>\n", out);
			} else {
				fputs("      <system-out>", out), xml(out, bv_cell_status_name(c->status));
				fputs(": ", out), xml(out, sum), fputs("</system-out>\n", out);
			}
			free(sum);
			fputs("    </testcase>\n", out);
		}
		fputs("  </testsuite>\n", out);
	}
	fputs("</testsuites>\n", out);
	return ferror(out) ? bv_fail(BV_ERUN, "cannot write the JUnit report") : 0;
}
