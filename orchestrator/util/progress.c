/* progress.c - a status line on a terminal, plain lines elsewhere (progress.h). */
#include "progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

struct bv_progress {
	char *stage;
	size_t total, done;
	bv_strv running; /* items begun and not done, in start order */
	char *current;   /* from bv_progress_set */
	double t0;
	int tty;
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int bv_progress_colour(void)
{
	const char *nc = getenv("NO_COLOR");
	return isatty(2) && !(nc && *nc);
}

const char *bv_progress_paint(const char *colour, const char *text)
{
	static char buf[4][256];
	static int slot;
	if (!bv_progress_colour())
		return text;
	char *b = buf[slot++ % 4];
	snprintf(b, sizeof(buf[0]), "\033[%sm%s\033[0m", colour, text);
	return b;
}

bv_progress *bv_progress_new(const char *stage, size_t total)
{
	bv_progress *p = bv_xcalloc(1, sizeof(*p));
	p->stage = bv_strdup(stage);
	p->total = total;
	p->t0 = now();
	/* TERM=dumb cannot move the cursor back: plain lines there too. */
	const char *term = getenv("TERM");
	p->tty = isatty(2) && !(term && !strcmp(term, "dumb"));
	return p;
}

static void clear(const bv_progress *p)
{
	if (p->tty)
		fputs("\r\033[K", stderr);
}

static void draw(const bv_progress *p)
{
	if (!p->tty)
		return;
	bv_buf b = BV_BUF_INIT;
	bv_buf_printf(&b, "%s: %zu/%zu done", p->stage, p->done, p->total);
	if (p->running.n) {
		bv_buf_printf(&b, ", %zu running (", p->running.n);
		for (size_t i = 0; i < p->running.n; i++)
			bv_buf_printf(&b, "%s%s", i ? ", " : "", p->running.v[i]);
		bv_buf_puts(&b, ")");
	} else if (p->current)
		bv_buf_printf(&b, ", %s", p->current);
	double el = now() - p->t0;
	if (p->done && p->done < p->total)
		bv_buf_printf(&b, ", ETA %.0fs", el / (double)p->done * (double)(p->total - p->done));
	else
		bv_buf_printf(&b, ", %.0fs", el);
	/* Never wider than a usual terminal: a wrapped line cannot be redrawn. */
	if (b.len > 79)
		b.s[79] = '\0';
	fprintf(stderr, "\r\033[K%s", b.s);
	fflush(stderr);
	bv_buf_free(&b);
}

void bv_progress_begin(bv_progress *p, const char *item)
{
	bv_strv_push(&p->running, item);
	draw(p);
}

void bv_progress_done(bv_progress *p, const char *item, const char *line)
{
	for (size_t i = 0; i < p->running.n; i++)
		if (!strcmp(p->running.v[i], item)) {
			free(p->running.v[i]);
			memmove(&p->running.v[i], &p->running.v[i + 1], (p->running.n - i) * sizeof(char *));
			p->running.n--;
			break;
		}
	p->done++;
	bv_progress_note(p, line);
}

void bv_progress_note(bv_progress *p, const char *line)
{
	clear(p);
	fprintf(stderr, "%s\n", line);
	draw(p);
	fflush(stderr);
}

void bv_progress_set(bv_progress *p, size_t done, size_t total, const char *current)
{
	p->done = done, p->total = total;
	free(p->current);
	p->current = current ? bv_strdup(current) : NULL;
	draw(p);
}

void bv_progress_callback(void *ctx, size_t done, size_t total, const char *current)
{
	bv_progress_set(ctx, done, total, current);
}

void bv_progress_end(bv_progress *p)
{
	if (!p)
		return;
	clear(p);
	fflush(stderr);
	bv_strv_free(&p->running);
	free(p->current);
	free(p->stage);
	free(p);
}

long bv_progress_interval(void)
{
	const char *env = getenv("BENCH_VERSIONS_PROGRESS_SECONDS");
	char *end;
	long s = env && *env ? strtol(env, &end, 10) : 30;
	if (env && *env && (*end || s < 0))
		s = 30; /* not a number: the default, as no option is at stake */
	if (s > 86400)
		s = 86400; /* a day: larger values would overflow the deadline's arithmetic */
	return s;
}
