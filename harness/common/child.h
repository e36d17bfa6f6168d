/*
 * child.h - a child's output read until the child ends, not until its pipe
 * does, and the processes it leaves behind ended.  Used by bv-runner (its
 * check and timing children run kernel code) and by bench-versions
 * (bv-runner, and the build processes).
 *
 * End of file on a pipe means that every holder of its write end is gone,
 * and a child's descendants inherit it: a kernel that forks, calls setsid()
 * and sleeps holds it open for ever, out of reach of a kill of the child's
 * process group.  So a reader here stops once the child has exited and what
 * it wrote is read (all of it is in the pipe by then), whoever else still
 * holds the write end; and a parent that is a subreaper
 * (PR_SET_CHILD_SUBREAPER) inherits such orphans and ends them with
 * bv_kill_children.
 */
#ifndef BV_CHILD_H
#define BV_CHILD_H

#include <stddef.h>
#include <sys/types.h>

/* Receives what bv_read_child reads, in order. */
typedef void (*bv_sink)(void *ctx, const char *data, size_t n);

/* Reads fd into sink until end of file, or until the child pid has exited
 * and what it wrote is read, or until deadline_ns (CLOCK_MONOTONIC; 0: no
 * deadline).  The child is not reaped: the caller's waitpid still gets its
 * status, and its pid (its process group's id) stays ours until then.
 * Returns 0, 1 when the deadline came first, or -1 with errno set. */
int bv_read_child(int fd, pid_t pid, double deadline_ns, bv_sink sink, void *ctx);

/* Looks at the child pid while it runs; nonzero: stop reading (the caller
 * kills it). */
typedef int (*bv_watch)(void *ctx, pid_t pid);

/* bv_read_child, calling watch(wctx, pid) when it starts and then every
 * watch_ms while the child runs (what a limit that no rlimit expresses
 * needs: the child's shared memory).  Returns 2 when watch said stop. */
int bv_read_child_watch(int fd, pid_t pid, double deadline_ns, bv_sink sink, void *ctx, bv_watch watch,
			void *wctx, int watch_ms);

/* Waits until the child pid has exited (it is not reaped) or deadline_ns
 * (CLOCK_MONOTONIC) has come.  Returns 0 when it exited, 1 at the
 * deadline.  A signal does not end the wait (the caller forwards it to the
 * child, which then exits). */
int bv_wait_exit(pid_t pid, double deadline_ns);

/* Kills (SIGKILL) and reaps every child of this process until none is
 * left; in a subreaper these include its descendants' orphans, each ended
 * as it is reparented.  For when no child should be alive any more (a
 * cell's end).  Returns how many it killed. */
int bv_kill_children(void);

#endif
