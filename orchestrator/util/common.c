/* common.c - error model, string buffers, lists and locations (see common.h). */
#include "common.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static _Thread_local char last_error[4096];

/* The message as it will be printed: whatever a site passed in (a server's
 * words, a name someone forgot to escape), no terminal control gets through.
 * Newlines stay: a message may quote a log's last lines. */
static void set_error(const char *text, size_t len)
{
	bv_buf b = BV_BUF_INIT;
	bv_buf_put_escaped(&b, text, len, 1);
	size_t n = b.len < sizeof(last_error) - 1 ? b.len : sizeof(last_error) - 1;
	memcpy(last_error, b.s ? b.s : "", n);
	last_error[n] = '\0';
	bv_buf_free(&b);
}

int bv_fail(int code, const char *fmt, ...)
{
	bv_buf b = BV_BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	bv_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	set_error(b.s ? b.s : "", b.len);
	bv_buf_free(&b);
	return code;
}

int bv_fail_context(int code, const char *fmt, ...)
{
	bv_buf b = BV_BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	bv_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	bv_buf_printf(&b, ": %s", last_error);
	set_error(b.s, b.len);
	bv_buf_free(&b);
	return code;
}

const char *bv_error_last(void) { return last_error[0] ? last_error : "unknown error"; }

void *bv_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p) {
		fprintf(stderr, "bench-versions: out of memory (%zu x %zu bytes)\n", n, size);
		abort();
	}
	return p;
}

void *bv_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		fprintf(stderr, "bench-versions: out of memory (%zu bytes)\n", n);
		abort();
	}
	return p;
}

void *bv_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q) {
		fprintf(stderr, "bench-versions: out of memory (%zu bytes)\n", n);
		abort();
	}
	return q;
}

/* ---- text from outside ------------------------------------------------- */

/* The length of the UTF-8 sequence at p (at most n bytes), 0 when it is not
 * one: overlong forms, surrogates and code points past U+10FFFF are not. */
static size_t utf8_len(const unsigned char *p, size_t n, unsigned *cp)
{
	size_t len = p[0] >= 0xf0 ? 4 : p[0] >= 0xe0 ? 3 : 2;
	if (p[0] < 0xc2 || p[0] > 0xf4 || n < len)
		return 0;
	unsigned v = p[0] & (len == 2 ? 0x1f : len == 3 ? 0x0f : 0x07);
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (p[i] & 0x3f);
	}
	if ((len == 3 && (v < 0x800 || (v >= 0xd800 && v <= 0xdfff))) || (len == 4 && (v < 0x10000 || v > 0x10ffff)))
		return 0;
	*cp = v;
	return len;
}

/* C1 controls (a terminal may take U+009B as CSI), the line and paragraph
 * separators, and the bidi overrides and isolates that reorder what is
 * shown ("Trojan Source"). */
static int invisible_control(unsigned cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029 || (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

void bv_buf_put_escaped(bv_buf *b, const char *s, size_t n, int keep_lines)
{
	const unsigned char *p = (const unsigned char *)s;
	bv_buf_putn(b, "", 0);
	for (size_t i = 0; i < n;) {
		size_t run = i;
		while (run < n && p[run] >= 0x20 && p[run] < 0x7f) /* plain ASCII: in one piece */
			run++;
		if (run > i) {
			bv_buf_putn(b, s + i, run - i);
			i = run;
			continue;
		}
		unsigned cp = 0;
		size_t len = p[i] >= 0x80 ? utf8_len(p + i, n - i, &cp) : 0;
		if (len && !invisible_control(cp)) {
			bv_buf_putn(b, s + i, len);
			i += len;
		} else if (keep_lines && (p[i] == '\n' || p[i] == '\t')) {
			bv_buf_putn(b, s + i, 1);
			i++;
		} else {
			for (size_t k = 0; k < (len ? len : 1); k++)
				bv_buf_printf(b, "\\x%02x", p[i + k]);
			i += len ? len : 1;
		}
	}
}

char *bv_escape(const char *s)
{
	bv_buf b = BV_BUF_INIT;
	bv_buf_put_escaped(&b, s ? s : "", s ? strlen(s) : 0, 0);
	return bv_buf_detach(&b);
}

char *bv_escape_lines(const char *s)
{
	bv_buf b = BV_BUF_INIT;
	bv_buf_put_escaped(&b, s ? s : "", s ? strlen(s) : 0, 1);
	return bv_buf_detach(&b);
}

char *bv_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(bv_xmalloc(n), s, n);
}

static void grow(bv_buf *b, size_t extra)
{
	if (b->len + extra + 1 <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < b->len + extra + 1)
		cap *= 2;
	b->s = bv_xrealloc(b->s, cap);
	b->cap = cap;
}

void bv_buf_putn(bv_buf *b, const char *s, size_t n)
{
	grow(b, n);
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void bv_buf_puts(bv_buf *b, const char *s) { bv_buf_putn(b, s, strlen(s)); }

void bv_buf_vprintf(bv_buf *b, const char *fmt, va_list ap)
{
	va_list copy;
	va_copy(copy, ap);
	int n = vsnprintf(NULL, 0, fmt, copy);
	va_end(copy);
	if (n < 0)
		return;
	grow(b, (size_t)n);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void bv_buf_printf(bv_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	bv_buf_vprintf(b, fmt, ap);
	va_end(ap);
}

char *bv_buf_detach(bv_buf *b)
{
	char *s = b->s ? b->s : bv_strdup("");
	b->s = NULL, b->len = b->cap = 0;
	return s;
}

void bv_shell_word(bv_buf *b, const char *s)
{
	static const char plain_set[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:=,@%+-";
	int plain = *s != '\0';
	for (const char *p = s; *p && plain; p++)
		plain = strchr(plain_set, *p) != NULL;
	if (plain) {
		bv_buf_puts(b, s);
		return;
	}
	bv_buf_putn(b, "'", 1);
	for (const char *p = s; *p; p++)
		if (*p == '\'')
			bv_buf_puts(b, "'\\''");
		else
			bv_buf_putn(b, p, 1);
	bv_buf_putn(b, "'", 1);
}

void bv_buf_free(bv_buf *b)
{
	free(b->s);
	b->s = NULL, b->len = b->cap = 0;
}

char *bv_asprintf(const char *fmt, ...)
{
	bv_buf b = BV_BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	bv_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	return bv_buf_detach(&b);
}

void bv_strv_push(bv_strv *sv, const char *s)
{
	if (sv->n + 2 > sv->cap) {
		sv->cap = sv->cap ? sv->cap * 2 : 8;
		sv->v = bv_xrealloc(sv->v, sv->cap * sizeof(char *));
	}
	sv->v[sv->n++] = bv_strdup(s);
	sv->v[sv->n] = NULL;
}

void bv_strv_pushf(bv_strv *sv, const char *fmt, ...)
{
	bv_buf b = BV_BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	bv_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	bv_strv_push(sv, b.s ? b.s : "");
	bv_buf_free(&b);
}

void bv_strv_split(bv_strv *sv, const char *s)
{
	while (*s) {
		while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
			s++;
		const char *start = s;
		while (*s && *s != ' ' && *s != '\t' && *s != '\n' && *s != '\r')
			s++;
		if (s > start) {
			char *w = bv_xmalloc((size_t)(s - start) + 1);
			memcpy(w, start, (size_t)(s - start));
			w[s - start] = '\0';
			bv_strv_push(sv, w);
			free(w);
		}
	}
}

void bv_strv_free(bv_strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL, sv->n = sv->cap = 0;
}

const char *bv_plural(long long n, const char *one, const char *many) { return n == 1 ? one : many; }

/* ---- locations -------------------------------------------------------- */

static const char *program;

void bv_program_set(const char *argv0) { program = argv0; }

/* "bench-versions" when unset or empty (an exec with no argv[0], the unit
 * tests): the name it is installed as. */
const char *bv_program(void) { return program && *program ? program : "bench-versions"; }

/* What a log's run.tool and a site's footer say made them; main sets it
 * from its version and commit (the unit tests: this default). */
static const char *tool_version = "bench-versions";
void bv_tool_version_set(const char *v) { tool_version = v; }
const char *bv_tool_version(void) { return tool_version; }

/* fs.c's bv_exists, here so that common depends on no other module (every
 * module includes common.h: scripts/layout.py, rule 3). */
static int exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

static char *exe_dir(void)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	if (n <= 0)
		return bv_strdup(".");
	path[n] = '\0';
	char *slash = strrchr(path, '/');
	if (slash)
		*slash = '\0';
	return bv_strdup(path);
}

const char *bv_home(void)
{
	static char *home;
	if (home)
		return home;
	const char *env = getenv("BENCH_VERSIONS_HOME");
	if (env && *env)
		return home = bv_strdup(env);
	char *dir = exe_dir();
	char *candidate = bv_asprintf("%s/../harness/plugin/plugin.c", dir);
	if (exists(candidate))
		home = bv_asprintf("%s/..", dir); /* running from the source tree */
	else
		home = bv_asprintf("%s/../share/bench-versions", dir);
	free(candidate);
	free(dir);
	char real[PATH_MAX];
	if (realpath(home, real)) {
		free(home);
		home = bv_strdup(real);
	}
	return home;
}

int bv_from_source_tree(void)
{
	/* The same test bv_home() makes, on the program's own place: an
	 * installed copy with BENCH_VERSIONS_HOME set is still installed. */
	static int known, source;
	if (!known) {
		char *dir = exe_dir();
		char *candidate = bv_asprintf("%s/../harness/plugin/plugin.c", dir);
		source = exists(candidate);
		free(candidate);
		free(dir);
		known = 1;
	}
	return source;
}

const char *bv_libexec(void)
{
	static char *dir;
	if (dir)
		return dir;
	char *bin = exe_dir();
	char *candidate = bv_asprintf("%s/bv-runner", bin);
	if (exists(candidate))
		dir = bin;
	else {
		dir = bv_asprintf("%s/../libexec/bench-versions", bin);
		free(bin);
	}
	free(candidate);
	return dir;
}

const char *bv_cache_dir(void)
{
	static char *dir;
	if (dir)
		return dir;
	const char *env = getenv("BENCH_VERSIONS_CACHE");
	if (env && *env)
		return dir = bv_strdup(env);
	env = getenv("XDG_CACHE_HOME");
	if (env && *env)
		return dir = bv_asprintf("%s/bench-versions", env);
	env = getenv("HOME");
	return dir = bv_asprintf("%s/.cache/bench-versions", env && *env ? env : "/tmp");
}
