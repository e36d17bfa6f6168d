/*
 * env.h - secrets out of our environment, and the environment each child
 * gets (env.c).
 *
 * Every child runs code from the versions under test (a Makefile, a compat
 * recipe, the library bv-runner loads), so none may learn a secret: the
 * token is taken out at start and each child gets an allow-list of ours.
 */
#ifndef BV_ENV_H
#define BV_ENV_H

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

#endif
