/*
 * proc.h - running child processes without a shell, a build's time limit,
 * and what a Ctrl-C or SIGTERM does to them (proc.c).
 *
 * Each child gets the environment env.c builds for its kind (env.h), never
 * ours as it is; a signal reaches the children we wait for, and the stages
 * see it between steps and return BV_EINTR.
 */
#ifndef BV_PROC_H
#define BV_PROC_H

#include <stddef.h>
#include <sys/types.h>

#include "env.h"

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
/* The exit status for err (0 or a BV_E* code, common.h): input errors 2,
 * failures 3, BV_EINTR 128 + the signal, as a shell reports a death by it
 * (here, not in common.c, since the signal is this module's). */
int bv_exit_code(int err);
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

#endif
