/*
 * site_quarantine.c - quarantine.html and data/quarantine.json: every
 * refused upload, with the tool's reason.  The one page a refused upload
 * changes (the data pages do not move for it), so a person who shared a run
 * can see why it is not on the others.  The reason quotes the upload (a file
 * name, a label): it is escaped like every other name.
 */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "site.h"
#include "site_page.h"

int bv_site_quarantine(bv_site *s)
{
	sqlite3_stmt *st;
	int rc = bv_site_mkdir(s, "data");
	if (!rc)
		rc = bv_site_prepare(s,
		                     "SELECT sha256, source, bytes, seen, reason FROM archives "
		                     "WHERE status = 'quarantined' ORDER BY seen DESC, sha256",
		                     &st);
	if (rc)
		return rc;
	bv_site_page p;
	bv_site_page_open(&p);
	bv_site_head(s, p.out, "Refused uploads", "");
	fputs("<p class=\"note\">Uploads that failed a check are kept aside on the server with their reason; "
	      "nothing of them is on the other pages.</p>\n",
	      p.out);
	cJSON *arr = cJSON_CreateArray();
	size_t n = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (!n++)
			fputs("<table><thead><tr><th>seen</th><th>upload</th><th>bytes</th><th>sha256</th>"
			      "<th>reason</th></tr></thead><tbody>\n",
			      p.out);
		fputs("<tr><td>", p.out), bv_site_esc(p.out, bv_site_col(st, 3));
		fputs("</td><td>", p.out), bv_site_esc(p.out, bv_site_col(st, 1));
		fprintf(p.out, "</td><td class=\"num\">%lld</td><td><code>", sqlite3_column_int64(st, 2));
		char sha[20];
		snprintf(sha, sizeof(sha), "%.16s", bv_site_col(st, 0));
		bv_site_esc(p.out, sha), fputs("</code></td><td>", p.out);
		bv_site_esc(p.out, sqlite3_column_type(st, 4) == SQLITE_NULL ? "no reason recorded"
		                                                             : bv_site_col(st, 4));
		fputs("</td></tr>\n", p.out);
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "sha256", bv_site_col(st, 0));
		cJSON_AddStringToObject(o, "source", bv_site_col(st, 1));
		cJSON_AddNumberToObject(o, "bytes", (double)sqlite3_column_int64(st, 2));
		cJSON_AddStringToObject(o, "seen", bv_site_col(st, 3));
		cJSON_AddItemToObject(o, "reason",
		                      sqlite3_column_type(st, 4) == SQLITE_NULL
		                          ? cJSON_CreateNull()
		                          : cJSON_CreateString(bv_site_col(st, 4)));
		cJSON_AddItemToArray(arr, o);
	}
	sqlite3_finalize(st);
	fputs(n ? "</tbody></table>\n" : "<p>No upload was refused.</p>\n", p.out);
	bv_site_foot(s, p.out);
	int wrc = bv_site_page_put(s, &p, "quarantine.html");
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddItemToObject(doc, "quarantined", arr);
	if (rc != SQLITE_DONE) {
		cJSON_Delete(doc);
		return wrc ? wrc : bv_site_step_error(s, "the archives");
	}
	return wrc ? (cJSON_Delete(doc), wrc) : bv_site_json_put(s, "data/quarantine.json", doc);
}
