/*
 * env.c - secrets out of the environment, and the environment each child
 * gets (see env.h).
 *
 * Everything this tool starts runs code from the versions under test: make
 * reads the library's Makefile, a compat recipe is that library's build, and
 * bv-runner loads the library itself.  None of it may learn the upload token,
 * so the token is taken out of the environment before anything starts, and
 * every child gets an environment built for it instead of ours (as git's
 * run-command.c does), each an allow-list: the build tools what changes what
 * they make (the user's CC, CFLAGS, PKG_CONFIG_PATH, ...: in the build key
 * too) and what they need to run, bv-runner what the library reads.
 *
 * unsetenv() alone is not enough: it drops the pointer, but the text stays in
 * the block the kernel gave us at exec, which /proc/PID/environ shows to any
 * process of the same user (a Makefile can read its parent's).  So a secret's
 * text is overwritten there.  What the tool does not need is dropped: the
 * token unless the command is `share`, and every secret-looking variable no
 * code of ours reads (GITHUB_TOKEN, CI_JOB_TOKEN, AWS_SECRET_ACCESS_KEY, ...).
 * What it may still need (the token in share, a proxy URL with a password,
 * a repository URL with one, an ssh agent) is moved to a heap copy:
 * getenv() still finds it, /proc/PID/environ does not.
 *
 * A heap copy is in /proc/PID/mem, which a process of the same user may read
 * (ptrace access) while we are dumpable: a kernel or a Makefile could scan
 * its ancestors' memory for it.  So while the process holds a secret's value
 * it is not dumpable (PR_SET_DUMPABLE 0: /proc/PID/mem, environ, maps and
 * fd become root's, and no core dump is written); the build workers, forked
 * copies, inherit that, and whatever they exec (make, bv-runner) is dumpable
 * again, holding no secret.
 */
#include "common.h"
#include "env.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>

extern char **environ;

static char *token;

/* Overwrites the value of NAME=VALUE where it lies. */
static void wipe_value(char *entry)
{
	char *eq = strchr(entry, '=');
	if (eq)
		memset(eq + 1, 'x', strlen(eq + 1));
}

/* The secret-looking variables that code in this process reads: libcurl a
 * proxy's URL (*_proxy, with its password), libgit2 and libcurl the
 * repository and release index URLs (KERNEL_REPO, KERNEL_RELEASES, perhaps
 * with a password), libssh2 the ssh agent's socket; and the tool's own
 * settings.  Every other one is dropped. */
static int needed(const char *entry)
{
	const char *eq = strchr(entry, '=');
	size_t n = eq ? (size_t)(eq - entry) : strlen(entry);
	static const char *const names[] = {"KERNEL_REPO", "KERNEL_RELEASES", "SSH_AUTH_SOCK", "GPG_AGENT_INFO", NULL};
	for (const char *const *w = names; *w; w++)
		if (n == strlen(*w) && !strncmp(entry, *w, n))
			return 1;
	return (n > 6 && !strncasecmp(entry + n - 6, "_proxy", 6)) || !strncmp(entry, "BENCH_VERSIONS_", 15);
}

/* An agent's socket is a path any process of ours finds in /tmp anyway: not
 * a value to hide by making the process undumpable. */
static int value_secret(const char *entry)
{
	return strncmp(entry, "SSH_AUTH_SOCK=", 14) && strncmp(entry, "GPG_AGENT_INFO=", 15);
}

void bv_secrets_guard(void) { prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); }

void bv_secrets_take(int keep_token)
{
	int held = 0;
	/* The token: into memory for share, out of the environment. */
	for (char **e = environ; e && *e; e++)
		if (!strncmp(*e, "BENCH_VERSIONS_TOKEN=", 21)) {
			if (!token && keep_token)
				token = bv_strdup(*e + 21);
			wipe_value(*e);
		}
	unsetenv("BENCH_VERSIONS_TOKEN");
	held |= token != NULL;
	/* Other secrets: those we read stay ours, but only in copies /proc
	 * does not show; the rest go. */
	for (char **e = environ; e && *e;) {
		if (!bv_env_is_secret(*e)) {
			e++;
			continue;
		}
		char *old = *e;
		if (needed(old)) {
			*e++ = bv_strdup(old); /* never freed: the environment owns it now */
			held |= value_secret(old);
		} else {
			/* Out of the array, the later entries moved up. */
			char **d = e;
			do
				d[0] = d[1];
			while (*d++);
		}
		wipe_value(old);
	}
	if (held)
		bv_secrets_guard();
}

const char *bv_secret_token(void) { return token; }

void bv_secret_token_drop(void)
{
	if (token) {
		explicit_bzero(token, strlen(token));
		free(token);
		token = NULL;
	}
}

/* Whether name (up to its '=') contains word, ignoring case. */
static int name_has(const char *entry, size_t n, const char *word)
{
	size_t w = strlen(word);
	for (size_t i = 0; i + w <= n; i++)
		if (!strncasecmp(entry + i, word, w))
			return 1;
	return 0;
}

static int name_ends(const char *entry, size_t n, const char *suffix)
{
	size_t w = strlen(suffix);
	return n >= w && !strncasecmp(entry + n - w, suffix, w);
}

/* scheme://user:password@host: a URL that carries its password. */
static int url_with_password(const char *value)
{
	for (const char *p = strstr(value, "://"); p; p = strstr(p + 3, "://")) {
		const char *auth = p + 3;
		size_t n = strcspn(auth, "/?#@ \t");
		if (auth[n] == '@' && memchr(auth, ':', n))
			return 1;
	}
	return 0;
}

int bv_env_is_secret(const char *entry)
{
	/* Names, not a list of every service's variables: what CI systems and
	 * cloud tools call their secrets (GITHUB_TOKEN, CI_JOB_TOKEN,
	 * AWS_SECRET_ACCESS_KEY, NPM_TOKEN, DOCKER_PASSWORD, *_API_KEY, ...). */
	static const char *const words[] = {"TOKEN", "SECRET", "PASSW", "CREDENTIAL", "PRIVATE_KEY", "API_KEY",
					    "APIKEY", "ACCESS_KEY", NULL};
	static const char *const names[] = {"SSH_AUTH_SOCK", "GPG_AGENT_INFO", NULL};
	const char *eq = strchr(entry, '=');
	size_t n = eq ? (size_t)(eq - entry) : strlen(entry);
	for (const char *const *w = words; *w; w++)
		if (name_has(entry, n, *w))
			return 1;
	for (const char *const *w = names; *w; w++)
		if (n == strlen(*w) && !strncmp(entry, *w, n))
			return 1;
	if (name_ends(entry, n, "_KEY") || name_ends(entry, n, "_AUTH"))
		return 1;
	return eq && url_with_password(eq + 1);
}

/* What bv-runner and the library it loads may read: the search path, the
 * locale, where temporary files go, the thread counts (set by run), the
 * library's own knobs (KN_*), the CUDA runtime's and the dynamic loader's
 * settings, and the sanitizers' and valgrind's options (the test suite runs
 * the runner under both). */
static int name_is(const char *entry, size_t n, const char *name)
{
	return n == strlen(name) && !strncmp(entry, name, n);
}

/* Whether NAME=VALUE's name is one of names or begins with one of prefixes
 * (an entry without '=' is no variable). */
static int listed(const char *entry, const char *const *names, const char *const *prefixes)
{
	const char *eq = strchr(entry, '=');
	if (!eq)
		return 0;
	size_t n = (size_t)(eq - entry);
	for (const char *const *w = names; *w; w++)
		if (name_is(entry, n, *w))
			return 1;
	for (const char *const *w = prefixes; *w; w++)
		if (!strncmp(entry, *w, strlen(*w)))
			return 1;
	return 0;
}

static int runner_needs(const char *entry)
{
	static const char *const names[] = {"PATH", "HOME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "LD_LIBRARY_PATH",
					    NULL};
	static const char *const prefixes[] = {"LC_", "OPENBLAS_", "OMP_", "GOMP_", "KN_", "CUDA_", "NVIDIA_",
					       "VALGRIND_", NULL};
	if (listed(entry, names, prefixes))
		return 1;
	const char *eq = strchr(entry, '=');
	size_t n = eq ? (size_t)(eq - entry) : 0;
	return n >= 11 && !strncmp(eq - 11, "SAN_OPTIONS", 11); /* ASAN_, UBSAN_, LSAN_... */
}

/* What a build reads that changes what it makes.  Builds get these, and their
 * values are in the build key (bv_build_env_key, build.c): a build cached
 * with CUDA=0 or CFLAGS=-O0 is not the build made without them.  The
 * compiler and its flags (the names make, cmake and gcc read), the CUDA and
 * BLAS switches of this repository's kernels/Makefile, the paths gcc and
 * pkg-config search, and CMake's cache variables from the environment. */
static const char *const build_keyed_names[] = {
    "CC",        "CXX",        "CPP",         "CFLAGS",       "CXXFLAGS",         "CPPFLAGS",
    "LDFLAGS",   "LDLIBS",     "AR",          "ARFLAGS",      "RANLIB",           "NM",
    "MAKE",      "NVCC",       "NVFLAGS",     "NVCCFLAGS",    "CUDAFLAGS",        "CUDA",
    "CUDA_HOME", "CUDA_PATH",  "BLAS",        "CPATH",        "C_INCLUDE_PATH",   "CPLUS_INCLUDE_PATH",
    "LIBRARY_PATH", "GCC_EXEC_PREFIX", "COMPILER_PATH", "PKG_CONFIG_PATH", "PKG_CONFIG_LIBDIR",
    "PKG_CONFIG_SYSROOT_DIR", "SOURCE_DATE_EPOCH", NULL};

/* BENCH_VERSIONS_BUILD_ENV: the names (comma- or space-separated) of the
 * user's own variables a build recipe reads; they reach builds and are in
 * the key as the list's are.  Whether entry's name is one of them. */
/* The next name of BENCH_VERSIONS_BUILD_ENV's list from p (separators
 * skipped), its length in *k; NULL at the end. */
static const char *next_name(const char *p, size_t *k)
{
	if (!p)
		return NULL;
	p += strspn(p, ", \t");
	*k = strcspn(p, ", \t");
	return *k ? p : NULL;
}

static int user_build_var(const char *entry, size_t n)
{
	size_t k = 0;
	for (const char *p = next_name(getenv("BENCH_VERSIONS_BUILD_ENV"), &k); p; p = next_name(p + k, &k))
		if (k == n && !strncmp(p, entry, n))
			return 1;
	return 0;
}

int bv_env_build_keyed(const char *entry)
{
	const char *eq = strchr(entry, '=');
	if (!eq || bv_env_is_secret(entry))
		return 0;
	size_t n = (size_t)(eq - entry);
	for (const char *const *w = build_keyed_names; *w; w++)
		if (name_is(entry, n, *w))
			return 1;
	/* CMake's parallel level changes how fast, not what */
	if (!strncmp(entry, "CMAKE_", 6) && !name_is(entry, n, "CMAKE_BUILD_PARALLEL_LEVEL"))
		return 1;
	return user_build_var(entry, n);
}

/* What a build gets: what is in its key, the runner's list (the search
 * path, home, locale, temporary files, the sanitizers' options), who runs
 * it, and what changes only how fast or how it prints (a compiler cache's
 * settings, CMake's parallel level, the terminal).  Not the rest of ours:
 * an outer make's MAKEFLAGS (its command-line variables would reach the
 * library's make unseen by the key), KERNEL_*, BENCH_VERSIONS_*, or
 * anything a Makefile could read and we could not account for. */
static int build_needs(const char *entry)
{
	static const char *const names[] = {"USER", "LOGNAME", "TERM", "SHELL", "CMAKE_BUILD_PARALLEL_LEVEL", NULL};
	static const char *const prefixes[] = {"CCACHE_", NULL};
	return bv_env_build_keyed(entry) || runner_needs(entry) || listed(entry, names, prefixes);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

char *bv_build_env_key(void)
{
	size_t n = 0, k = 0;
	for (char **e = environ; e && *e; e++)
		n++;
	const char **keyed = bv_xcalloc(n + 1, sizeof(char *));
	for (char **e = environ; e && *e; e++)
		if (bv_env_build_keyed(*e))
			keyed[k++] = *e;
	qsort(keyed, k, sizeof(char *), by_name);
	bv_buf b = BV_BUF_INIT;
	for (size_t i = 0; i < k; i++)
		bv_buf_printf(&b, "env %zu %s\n", strlen(keyed[i]), keyed[i]);
	free(keyed);
	return b.s ? b.s : bv_strdup("");
}

int bv_build_env_check(void)
{
	size_t k = 0;
	for (const char *p = next_name(getenv("BENCH_VERSIONS_BUILD_ENV"), &k); p; p = next_name(p + k, &k)) {
		int ok = !(p[0] >= '0' && p[0] <= '9');
		for (size_t i = 0; i < k && ok; i++)
			ok = (p[i] >= 'A' && p[i] <= 'Z') || (p[i] >= 'a' && p[i] <= 'z') || (p[i] >= '0' && p[i] <= '9') ||
			     p[i] == '_';
		if (!ok)
			return bv_fail(BV_EINPUT,
			               "BENCH_VERSIONS_BUILD_ENV: \"%.*s\" is not a variable's name (names of the "
			               "variables a build recipe reads, separated by commas: docs/compat.md)",
			               (int)(k > 64 ? 64 : k), p);
		char *entry = bv_asprintf("%.*s=", (int)k, p);
		int secret = bv_env_is_secret(entry);
		free(entry);
		if (secret)
			return bv_fail(BV_EINPUT,
			               "BENCH_VERSIONS_BUILD_ENV: %.*s looks like a secret; builds never get one "
			               "(rename the variable your recipe reads)",
			               (int)(k > 64 ? 64 : k), p);
	}
	return 0;
}

/* What sbatch (and so the shards' jobs: it exports its environment to them),
 * squeue and scancel get: the runner's list, Slurm's own client settings
 * (SLURM_CONF, SLURM_CLUSTERS; SBATCH_* are the user's defaults for sbatch's
 * options, an account or a QOS), and what makes a shard's bench-versions
 * resolve, build and measure exactly what this process would: the library
 * (KERNEL_*), the cache and home (BENCH_VERSIONS_*; the token is a secret
 * and never passes), the compiler and its flags (they are in the build key),
 * NO_COLOR and the identity a job runs under.  Not SQUEUE_* and the like:
 * they would change the output slurm.c parses. */
static int slurm_needs(const char *entry)
{
	static const char *const names[] = {"USER", "LOGNAME", "SLURM_CONF", "SLURM_CLUSTERS", "XDG_CACHE_HOME",
					    "NO_COLOR", NULL};
	static const char *const prefixes[] = {"SBATCH_", "KERNEL_", "BENCH_VERSIONS_", NULL};
	/* the runner's, what a build's key holds (the shards' keys), and these */
	return runner_needs(entry) || bv_env_build_keyed(entry) || listed(entry, names, prefixes);
}

char **bv_child_environ(char *const *env, bv_child_env kind)
{
	size_t n = 0;
	while (env && env[n])
		n++;
	char **out = bv_xmalloc((n + 1) * sizeof(char *));
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (bv_env_is_secret(env[i])) /* BENCH_VERSIONS_TOKEN too, should it be back */
			continue;
		if (kind == BV_ENV_BUILD && !build_needs(env[i]))
			continue;
		if (kind == BV_ENV_RUNNER && !runner_needs(env[i]))
			continue;
		if (kind == BV_ENV_SLURM && !slurm_needs(env[i]))
			continue;
		out[k++] = env[i];
	}
	out[k] = NULL;
	return out;
}
