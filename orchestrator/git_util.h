/*
 * git_util.h - what every module that calls libgit2 shares: one way to turn
 * libgit2's last error into the tool's (common.h: bv_fail).
 */
#ifndef BV_GIT_UTIL_H
#define BV_GIT_UTIL_H

/* bv_fail(code, "WHAT: libgit2's message"), returning code's value: a
 * failed libgit2 call says what the tool was doing and why libgit2 refused
 * (its git_error_last(), or "unknown libgit2 error" when it kept none). */
int bv_git_fail(int code, const char *what);

#endif
