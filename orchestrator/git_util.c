/* git_util.c - see git_util.h. */
#include <git2.h>

#include "common.h"
#include "git_util.h"

int bv_git_fail(int code, const char *what)
{
	const git_error *e = git_error_last();
	return bv_fail(code, "%s: %s", what, e && e->message ? e->message : "unknown libgit2 error");
}
