/*
 * common.h - the pieces every stage uses: one error model, a growable string
 * buffer, filesystem helpers and process spawning.
 *
 * Error model (as in libgit2): a function returns 0 on success or a negative
 * BV_E* code; the message is set with bv_fail() and read with bv_error_last().
 * The code decides the exit status: input errors exit 2, failures to build or
 * run exit 3.  A message never holds a terminal control (bv_fail escapes
 * them); a name from outside in it goes through bv_escape() as well, so it
 * cannot forge a line either.
 */
#ifndef BV_COMMON_H
#define BV_COMMON_H

#include <stdarg.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

enum { BV_EINPUT = -2, BV_ERUN = -3, BV_EINTR = -4 };
enum { BV_EXIT_OK = 0, BV_EXIT_REGRESSION = 1, BV_EXIT_USAGE = 2, BV_EXIT_FAILED = 3 };

int bv_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prefixes the current message with context: "building 0.1.0: <message>". */
int bv_fail_context(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *bv_error_last(void);
int bv_exit_code(int err);
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
 * come back as they were).  The one quoting function: issue 33. */
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

/* ---- filesystem ------------------------------------------------------- */
int bv_mkdir_p(const char *path);
/* Makes base/rel (base must exist), each component of rel a directory of its
 * own: a symbolic link there is an input error, never written through (a
 * run's raw/ linked elsewhere carried its documents out of the run). */
int bv_mkdir_inside(const char *base, const char *rel);
int bv_rm_rf(const char *path);
int bv_exists(const char *path);
int bv_is_dir(const char *path);
/* Opens a file named by the user or a compat rule for reading: a regular
 * file only (a FIFO, device, socket or directory is an input error naming
 * the path and what it is, found without blocking), close-on-exec. */
int bv_open_regular(const char *path, int *fd, struct stat *st);
/* What a file is, for a message: "a FIFO", "a symlink", "a character
 * device", ... (lstat's or fstat's st_mode). */
const char *bv_file_kind(mode_t mode);
/* Reads a whole regular file (at most max bytes) into *out, NUL-terminated
 * (bv_open_regular's checks). */
int bv_read_file(const char *path, size_t max, char **out, size_t *len);
/* Writes via a temporary file and rename(), so readers never see half a file. */
int bv_write_file_atomic(const char *path, const char *data, size_t len);
/* write(2) until all of data is written (short writes and EINTR go on);
 * 0, or -1 with errno set. */
int bv_write_all(int fd, const void *data, size_t len);
/* Copies a directory tree of regular files, skipping names for which
 * skip(name) is true (NULL: skip nothing). */
int bv_copy_tree(const char *from, const char *to, int (*skip)(const char *name));
/* The same, each regular file a hard link where the file system allows
 * (else a copy): for trees nobody writes into afterwards, only adds to or
 * replaces files in (the library cache: build.c). */
int bv_link_tree(const char *from, const char *to);
/* mkdtemp under dir with the given prefix; returns a malloc'd path. */
char *bv_mkdtemp_in(const char *dir, const char *prefix);
/* A relative path that cannot leave where it starts by its spelling: not
 * empty, not absolute, no ".." component, no control characters or spaces. */
int bv_path_lexically_inside(const char *rel);
/* Whether FULL, resolved through symlinks, lies strictly inside ROOT
 * (resolved too): 1 with its real path in real (PATH_MAX bytes), else 0
 * (also when either cannot be resolved).  What compat rules and project
 * files name must not lead out of their directory by a link. */
int bv_path_inside(const char *root, const char *full, char *real);

/* ---- secrets and children's environments (env.c) --------------------- */
/* First thing in main: BENCH_VERSIONS_TOKEN out of the environment (into
 * memory when keep_token: the command is share), every secret-looking
 * variable out of the block /proc/PID/environ shows, so no child can read
 * them from us, and those no code here reads dropped; while the process
 * holds one it is not dumpable (bv_secrets_guard). */
void bv_secrets_take(int keep_token);
/* The process is not dumpable from now on: no process of the same user
 * reads its memory (/proc/PID/mem) or environment, and no core dump is
 * written.  Before a secret is read into memory. */
void bv_secrets_guard(void);
/* BENCH_VERSIONS_TOKEN as it was at start; NULL when it was not set or the
 * command is not share. */
const char *bv_secret_token(void);
/* Overwrites (explicit_bzero) and frees that copy, once it is used. */
void bv_secret_token_drop(void);
/* Whether NAME=VALUE looks like a secret: a name with TOKEN, SECRET,
 * PASSWORD, CREDENTIAL, API_KEY... in it, an ssh agent's socket, or a URL
 * with user:password@ in the value. */
int bv_env_is_secret(const char *entry);

/* Whether NAME=VALUE is a variable that changes what a build makes (the
 * compiler, its flags, CUDA, BLAS, CMAKE_*, the search paths, and the names
 * BENCH_VERSIONS_BUILD_ENV lists): builds get it and it is in the key. */
int bv_env_build_keyed(const char *entry);
/* Those of our environment, sorted by name, as the build key's lines
 * ("env LEN NAME=VALUE\n" each); "" when none is set.  Free it. */
char *bv_build_env_key(void);
/* BENCH_VERSIONS_BUILD_ENV holds names only, and none a secret's; 0, or
 * BV_EINPUT said. */
int bv_build_env_check(void);

/* The environment a child gets.  Every child runs code from the versions
 * under test, so none gets a secret. */
typedef enum bv_child_env {
	/* make, cc, patch, a compat recipe: an allow-list (env.c) whose values
	 * that change what is built are in the build key */
	BV_ENV_BUILD,
	BV_ENV_RUNNER, /* bv-runner, which loads the library: an allow-list (env.c) */
	/* sbatch, squeue, scancel (slurm.c): an allow-list, since sbatch passes
	 * its environment on to the shards' jobs: what Slurm's clients read and
	 * what a shard's bench-versions needs to find the same library, cache
	 * and compiler (env.c) */
	BV_ENV_SLURM,
} bv_child_env;
/* env (normally environ) filtered for kind: a NULL-terminated list of
 * pointers into env; free the list only. */
char **bv_child_environ(char *const *env, bv_child_env kind);

/* ---- processes -------------------------------------------------------- */
/* Runs argv (no shell) in cwd (NULL: ours) with the environment of kind,
 * stdout and stderr appended to log (NULL: inherited).  Returns the exit
 * status, 128+signal when killed, or a negative BV_E* when it could not be
 * started. */
int bv_run(char *const argv[], const char *cwd, const char *log, bv_child_env kind);
/* Like bv_run (a build tool's environment), but stdout is captured into *out
 * (at most max bytes kept, NUL-terminated, never NULL on success); stderr is
 * inherited. */
int bv_run_capture(char *const argv[], size_t max, char **out);
/* Like bv_run, but stdout and stderr also go through a pipe: the last max
 * bytes are kept in *tail (never NULL), so the child's last words survive a
 * log file that could not be written (a full disk). */
int bv_run_tail(char *const argv[], const char *log, size_t max, char **tail, bv_child_env kind);
/* A build's time limit, in a build worker: from bv_build_deadline_start
 * (limit_s from now; 0: none) to bv_build_deadline_end, a build tool that
 * bv_run* waits for (BV_ENV_BUILD) is killed at the deadline, with what it
 * started (this process is a subreaper), and bv_build_expired says so; a
 * step started after it is killed at once.  bv_build_limit: limit_s. */
void bv_build_deadline_start(double limit_s);
void bv_build_deadline_end(void);
int bv_build_expired(void);
double bv_build_limit(void);
/* The last n bytes of a file, for showing the end of a build log. */
char *bv_file_tail(const char *path, size_t n);

/* ---- interruption ------------------------------------------------------ */
/* SIGINT and SIGTERM set a flag (bv_interrupted) and are forwarded to the
 * children bv_run* is waiting for; the stages check the flag between steps,
 * clean up and return BV_EINTR.  A second signal ends the process at once.
 * A signal ignored at start (a background job of a script) stays ignored.
 * SIGXFSZ is ignored, so a file size limit is an EFBIG error, not a death. */
void bv_signals_install(void);
/* The signal that interrupted this process (SIGINT, SIGTERM), or 0. */
int bv_interrupted(void);
/* BV_EINTR with the message "interrupted (SIGINT)". */
int bv_fail_interrupted(void);
/* Children a signal is forwarded to (bv_run* track theirs). */
void bv_child_track(pid_t pid);
void bv_child_untrack(pid_t pid);
/* In a forked child: forget the parent's children and do not force-exit on
 * a second signal (its cleanup must run). */
void bv_child_reset(void);
/* In a forked child (a worker that does not exec), right after fork: the
 * parent's death, even by SIGKILL, reaches it as SIGTERM (so its cleanup
 * runs and its children are told), and it is a subreaper, so what those
 * leave behind comes to it (bv_kill_children).  Returns nonzero when the
 * parent (pid parent) died before this could be set: the caller exits. */
int bv_child_die_with_parent(pid_t parent);

/* ---- locations -------------------------------------------------------- */
/* The program as it was invoked, for a command printed to be pasted back
 * (how to resume): argv[0] as given (./bin/bench-versions, or
 * bench-versions when the shell found it on PATH); main.c sets it. */
void bv_program_set(const char *argv0);
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
