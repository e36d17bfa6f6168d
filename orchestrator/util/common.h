/*
 * common.h - the pieces every module uses: one error model, a growable string
 * buffer, escaping, allocation, lists of strings and locations (common.c).
 * The filesystem (fs.h), children's environments (env.h) and processes
 * (proc.h) have headers of their own, which a file names when it uses them.
 *
 * Error model (as in libgit2): a function returns 0 on success or a negative
 * BV_E* code; the message is set with bv_fail() and read with bv_error_last().
 * The code decides the exit status (bv_exit_code, proc.h): input errors exit
 * 2, failures to build or run exit 3.  A message never holds a terminal
 * control (bv_fail escapes them); a name from outside in it goes through
 * bv_escape() as well, so it cannot forge a line either.
 */
#ifndef BV_COMMON_H
#define BV_COMMON_H

#include <stdarg.h>
#include <stddef.h>

enum { BV_EINPUT = -2, BV_ERUN = -3, BV_EINTR = -4 };
enum { BV_EXIT_OK = 0, BV_EXIT_REGRESSION = 1, BV_EXIT_USAGE = 2, BV_EXIT_FAILED = 3 };

int bv_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prefixes the current message with context: "building 0.1.0: <message>". */
int bv_fail_context(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *bv_error_last(void);
/* one when n is 1, else many: "1 cell", "2 cells", "0 cells". */
const char *bv_plural(long long n, const char *one, const char *many);

/* ---- string buffer ---------------------------------------------------- */
typedef struct bv_buf {
	char *s; /* always NUL-terminated once anything was added */
	size_t len, cap;
} bv_buf;
#define BV_BUF_INIT {NULL, 0, 0}

void bv_buf_puts(bv_buf *b, const char *s);
void bv_buf_putn(bv_buf *b, const char *s, size_t n);
void bv_buf_printf(bv_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void bv_buf_vprintf(bv_buf *b, const char *fmt, va_list ap);
/* Hands the string over to the caller (never NULL) and resets b. */
char *bv_buf_detach(bv_buf *b);
/* Appends s as one word a POSIX shell reads back as s, for a command a
 * person pastes (a resume line, a report's reproduce line, a history's
 * bisect line): plain when every byte is in a conservative set (no `~`,
 * which a shell expands at a word's start or after `=` and `:`), else in
 * single quotes, each ' as '\'' (so spaces, quotes, newlines and globs
 * come back as they were).  The tool's one shell quoting
 * function. */
void bv_shell_word(bv_buf *b, const char *s);
void bv_buf_free(bv_buf *b);

/* ---- text from outside --------------------------------------------------
 * Names from archives, repositories, results logs, release indexes and
 * servers reach the terminal and error messages.  Escaped, they can neither
 * drive the terminal (ESC sequences, CR, a C1 control) nor forge a line: a
 * control character, a C1 control, a Unicode bidi or line separator and a
 * byte that is not UTF-8 become \xNN (each byte); printable text, UTF-8
 * included, stays as it is. */
char *bv_escape(const char *s);
/* The same, keeping newlines and tabs: the tail of a build log has lines. */
char *bv_escape_lines(const char *s);
void bv_buf_put_escaped(bv_buf *b, const char *s, size_t n, int keep_lines);

char *bv_strdup(const char *s);
char *bv_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Allocations that cannot fail: out of memory ends the process with a
 * message (abort), as git's xmalloc does; nothing here can go on without. */
void *bv_xmalloc(size_t n);
void *bv_xcalloc(size_t n, size_t size);
void *bv_xrealloc(void *p, size_t n);

/* A list of owned strings, NULL-terminated for use as argv. */
typedef struct bv_strv {
	char **v;
	size_t n, cap;
} bv_strv;
#define BV_STRV_INIT {NULL, 0, 0}
void bv_strv_push(bv_strv *sv, const char *s);
void bv_strv_pushf(bv_strv *sv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Splits s on whitespace and appends each word. */
void bv_strv_split(bv_strv *sv, const char *s);
void bv_strv_free(bv_strv *sv);

/* ---- locations -------------------------------------------------------- */
/* The program as it was invoked, for a command printed to be pasted back
 * (how to resume): argv[0] as given (./bin/bench-versions, or
 * bench-versions when the shell found it on PATH); main.c sets it. */
void bv_program_set(const char *argv0);
/* "bench-versions 0.1.0-dev (commit 3f2a...)": what made a log or a site */
void bv_tool_version_set(const char *v);
const char *bv_tool_version(void);
const char *bv_program(void);
/* The directory holding harness/ and compat/ (the source tree, or
 * PREFIX/share/bench-versions once installed; BENCH_VERSIONS_HOME overrides). */
const char *bv_home(void);
/* 1 when this program runs from the source tree (bin/ beside harness/),
 * 0 when installed: the defaults of locate.c differ. */
int bv_from_source_tree(void);
/* The directory holding bv-runner (bin/ or PREFIX/libexec/bench-versions). */
const char *bv_libexec(void);
/* $BENCH_VERSIONS_CACHE, else $XDG_CACHE_HOME/bench-versions, else ~/.cache/... */
const char *bv_cache_dir(void);

#endif
