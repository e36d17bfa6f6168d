/*
 * progress.h - what a long stage tells the user while it works.
 *
 * On a terminal (stderr is a tty) one status line is redrawn in place:
 * "build: 2/5 done, 2 running (0.1.0, main), ETA 14s"; lines for finished
 * items are printed above it and stay.  Elsewhere (logs, CI, tests) only the
 * finished items' lines are printed, one per line, as before.  Colour only on
 * a terminal and never when NO_COLOR is set (https://no-color.org).
 */
#ifndef BV_PROGRESS_H
#define BV_PROGRESS_H

#include <stddef.h>

typedef struct bv_progress bv_progress;

/* A stage of `total` items ("build", "measure"); never NULL. */
bv_progress *bv_progress_new(const char *stage, size_t total);
/* An item began: it is shown as running until bv_progress_done. */
void bv_progress_begin(bv_progress *p, const char *item);
/* An item finished; line (without newline) is printed and kept. */
void bv_progress_done(bv_progress *p, const char *item, const char *line);
/* A plain line that is not an item (a warning); keeps the status line. */
void bv_progress_note(bv_progress *p, const char *line);
/* Counts from a stage that keeps its own (see bv_progress_fn). */
void bv_progress_set(bv_progress *p, size_t done, size_t total, const char *current);
/* Clears the status line and frees p. */
void bv_progress_end(bv_progress *p);

/* For a stage that reports progress through a callback (measure.c can take
 * one: ctx is the bv_progress, current what it is working on now). */
typedef void (*bv_progress_fn)(void *ctx, size_t done, size_t total, const char *current);
void bv_progress_callback(void *ctx, size_t done, size_t total, const char *current);

/* Whether ANSI colour may be written to stderr: a terminal, NO_COLOR unset. */
int bv_progress_colour(void);
/* "\033[31mtext\033[0m" when colour is on, else text; static buffer per slot. */
const char *bv_progress_paint(const char *colour, const char *text);

/* Seconds between the lines a long step prints where stderr is no
 * terminal (a build, the counts): BENCH_VERSIONS_PROGRESS_SECONDS, default
 * 30, 0: none. */
long bv_progress_interval(void);

#endif
