/*
 * site_page.c - what every page of the site shares (site_page.h): the
 * frame (doctype, the Content-Security-Policy with the hash of the one
 * inline script, the style, the navigation, the footer naming the
 * publisher), the write that leaves a file alone when its bytes are
 * unchanged, safe page names, and the small formats (times, load, links).
 *
 * Why write-if-changed: the site is rewritten whole on every publish; a
 * file whose bytes are the same keeps its mtime, so a mirror or a cache in
 * front of the server sees only what changed, and a re-publish of the same
 * store writes nothing.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "common.h"
#include "fs.h"
#include "html.h"
#include "site.h"
#include "site_page.h"

static const char css[] =
    "body{font:14px system-ui,sans-serif;color:#1f2328;margin:0;background:#fff}"
    "main{max-width:1100px;margin:0 auto;padding:16px}"
    "nav{background:#f6f8fa;border-bottom:1px solid #d8dee4;padding:8px 16px}"
    "nav a{margin-right:14px;color:#0969da;text-decoration:none}"
    "h1{font-size:20px;margin:0 0 8px}h2{font-size:16px;margin:22px 0 6px}h3{font-size:14px;margin:14px 0 "
    "4px}"
    "table{border-collapse:collapse;margin:4px 0 12px}"
    "th,td{border-bottom:1px solid #eaeef2;padding:3px 8px;text-align:left;vertical-align:top}"
    "th{background:#f6f8fa;font-weight:600}td.num{text-align:right;font-variant-numeric:tabular-nums;white-"
    "space:nowrap}"
    "a{color:#0969da}.meta,.note{color:#57606a}.note{font-size:13px}"
    ".slower{color:#cf222e}.faster{color:#1a7f37}.best{font-weight:700}"
    "code{font:12px ui-monospace,monospace;background:#f6f8fa;padding:1px 4px;border-radius:3px}"
    ".sw{display:inline-block;width:10px;height:10px;border-radius:50%;margin-right:5px}"
    ".prov{margin:4px 0 14px 14px}.prov p{margin:2px 0}"
    "select{margin-right:10px}footer{color:#57606a;font-size:12px;margin-top:30px}"
    "svg{display:block;overflow:visible}svg text{font:11px system-ui,sans-serif;fill:#57606a}"
    "svg .axis{stroke:#afb8c1}svg .grid{stroke:#eaeef2}";

void bv_site_esc(FILE *out, const char *s)
{
	bv_html_esc(out, s ? s : "");
}

void bv_site_sha256_hex(const void *data, size_t len, char out[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	if (!EVP_Digest(data, len, md, &n, EVP_sha256(), NULL) || n != 32)
		abort(); /* sha256 of memory cannot fail but for want of memory */
	for (unsigned i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
}

void bv_site_csp_init(bv_site *s)
{
	unsigned char md[EVP_MAX_MD_SIZE], b64[64];
	unsigned int n = 0;
	if (!EVP_Digest(bv_site_script, strlen(bv_site_script), md, &n, EVP_sha256(), NULL) || n != 32)
		abort();
	EVP_EncodeBlock(b64, md, 32);
	snprintf(s->csp, sizeof(s->csp),
	         "default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-%s'", b64);
}

void bv_site_page_open(bv_site_page *p)
{
	p->buf = NULL, p->len = 0;
	p->out = open_memstream(&p->buf, &p->len);
	if (!p->out)
		abort(); /* as bv_xmalloc: out of memory */
}

void bv_site_head(const bv_site *s, FILE *out, const char *title, const char *up)
{
	fprintf(out,
	        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	        "<meta http-equiv=\"Content-Security-Policy\" content=\"%s\">\n"
	        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
	        s->csp);
	bv_site_esc(out, title);
	fprintf(out, " - bench-versions results</title>\n<style>%s</style>\n</head>\n<body>\n", css);
	fprintf(out,
	        "<nav><a href=\"%sindex.html\">results</a><a href=\"%sbackends.html\">backends</a>"
	        "<a href=\"%sregressions.html\">regressions</a><a href=\"%squarantine.html\">quarantine</a>"
	        "<a href=\"%sdata/index.json\">data</a></nav>\n<main>\n<h1>",
	        up, up, up, up, up);
	bv_site_esc(out, title);
	fputs("</h1>\n", out);
}

void bv_site_foot(const bv_site *s, FILE *out)
{
	fputs("<footer>Written by ", out);
	bv_site_esc(out, s->publisher);
	fputs(" from the runs people shared.  Times are each run's own: its median over processes and "
	      "95 % interval, on its machine; a ratio is only ever one run's paired verdict against its "
	      "baseline.</footer>\n</main>\n</body>\n</html>\n",
	      out);
}

int bv_site_put(bv_site *s, const char *rel, const char *data, size_t len)
{
	char *path = bv_asprintf("%s/%s", s->dir, rel);
	char *old = NULL;
	size_t oldlen = 0;
	int rc = 0;
	/* A file as big as the new one plus one byte tells "longer" apart. */
	if (!bv_exists(path) || bv_read_file(path, len + 1, &old, &oldlen) || oldlen != len ||
	    memcmp(old, data, len))
		rc = bv_write_file_atomic(path, data, len);
	free(old), free(path);
	return rc;
}

int bv_site_mkdir(bv_site *s, const char *rel)
{
	return bv_mkdir_inside(s->dir, rel);
}

int bv_site_page_put(bv_site *s, bv_site_page *p, const char *rel)
{
	if (fclose(p->out))
		abort();
	int rc = bv_site_put(s, rel, p->buf, p->len);
	free(p->buf);
	p->buf = NULL, p->out = NULL;
	return rc;
}

int bv_site_json_put(bv_site *s, const char *rel, cJSON *doc)
{
	char *text = cJSON_PrintUnformatted(doc);
	cJSON_Delete(doc);
	if (!text)
		abort();
	bv_buf b = BV_BUF_INIT;
	bv_buf_puts(&b, text);
	bv_buf_puts(&b, "\n");
	cJSON_free(text);
	int rc = bv_site_put(s, rel, b.s, b.len);
	bv_buf_free(&b);
	return rc;
}

cJSON *bv_site_json_str(const char *s)
{
	return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

void bv_site_time(double ns, char *buf, size_t len)
{
	static const struct {
		double div;
		const char *unit;
	} units[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "us"}, {1, "ns"}};
	size_t i = 0;
	while (i < 3 && fabs(ns) < units[i].div)
		i++;
	double v = ns / units[i].div;
	snprintf(buf, len,
	         fabs(v) >= 100  ? "%.0f %s"
	         : fabs(v) >= 10 ? "%.1f %s"
	                         : "%.2f %s",
	         v, units[i].unit);
}

void bv_site_run_link(FILE *out, const bv_site_run *r, const char *up)
{
	fprintf(out, "<a href=\"%s", up);
	bv_site_esc(out, r->page);
	fputs("\">", out);
	bv_site_esc(out, r->id);
	fputs("</a>", out);
}

void bv_site_load_words(const bv_site_run *r, char *buf, size_t len)
{
	const char *w = r->loaded == 1 ? "loaded" : r->loaded == 0 ? "quiet" : "load unknown";
	if (r->has_load && r->has_cpus)
		snprintf(buf, len, "%s (load up to %.2f on %lld cpus)", w, r->load_max, r->cpus);
	else if (r->has_load)
		snprintf(buf, len, "%s (load up to %.2f)", w, r->load_max);
	else
		snprintf(buf, len, "%s", r->loaded == -1 ? "load not recorded" : w);
}

char *bv_site_safe_name(const char *raw, const char *key, int hash_hex)
{
	size_t keep = strlen(raw);
	int room = hash_hex ? 100 - 1 - hash_hex : 100;
	if (keep > (size_t)room)
		keep = (size_t)room;
	bv_buf b = BV_BUF_INIT;
	for (size_t i = 0; i < keep; i++) {
		char c = raw[i];
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		         strchr("._+-", c);
		bv_buf_putn(&b, ok && !(i == 0 && c == '.') && c ? &c : "_", 1);
	}
	if (hash_hex) {
		char hex[65];
		bv_site_sha256_hex(key, strlen(key), hex);
		bv_buf_printf(&b, "-%.*s", hash_hex, hex);
	}
	return bv_buf_detach(&b);
}

void bv_site_class_colour(size_t cls, char *buf, size_t len)
{
	/* Ten that tell apart on white and for most colour vision (Tableau 10). */
	static const char *const c[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
	                                "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
	snprintf(buf, len, "%s", c[cls % 10]);
}
