/* proc.c - running child processes without a shell: argv in, status out. */
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int bv_run(char *const argv[], const char *cwd, const char *log)
{
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	if (cwd)
		posix_spawn_file_actions_addchdir_np(&fa, cwd);
	if (log) {
		posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0644);
		posix_spawn_file_actions_adddup2(&fa, 1, 2);
	}
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	pid_t pid;
	int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0)
		return bv_fail(BV_ERUN, "cannot start %s: %s", argv[0], strerror(rc));
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return bv_fail(BV_ERUN, "waiting for %s: %s", argv[0], strerror(errno));
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

int bv_run_capture(char *const argv[], size_t max, char **out)
{
	*out = NULL;
	int fds[2];
	if (pipe(fds) != 0)
		return bv_fail(BV_ERUN, "pipe: %s", strerror(errno));
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	posix_spawn_file_actions_addclose(&fa, fds[0]);
	posix_spawn_file_actions_addclose(&fa, fds[1]);
	pid_t pid;
	int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (rc != 0) {
		close(fds[0]);
		return bv_fail(BV_ERUN, "cannot start %s: %s", argv[0], strerror(rc));
	}
	/* Read everything (so the child never blocks on a full pipe), keep max. */
	bv_buf b = BV_BUF_INIT;
	char chunk[4096];
	for (;;) {
		ssize_t r = read(fds[0], chunk, sizeof(chunk));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if (b.len < max)
			bv_buf_putn(&b, chunk, (size_t)r < max - b.len ? (size_t)r : max - b.len);
	}
	close(fds[0]);
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			bv_buf_free(&b);
			return bv_fail(BV_ERUN, "waiting for %s: %s", argv[0], strerror(errno));
		}
	*out = bv_buf_detach(&b);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}
