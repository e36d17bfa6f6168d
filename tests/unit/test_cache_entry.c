/* test_cache_entry.c - sealed cache entries (orchestrator/build/cache_entry.c): a
 * sealed entry checks as intact and its files are read-only; any change
 * (a byte, a file added or removed, a FIFO or symbolic link in place of a
 * file, the entry itself a link, its seal edited or gone) is damage, said
 * how; a discarded entry is gone, a link's target left alone; a held entry
 * cannot be claimed by trim, a free one can. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cache_entry.h"
#include "common.h"
#include "fs.h"
#include "tests.h"

/* dir/e: lib/libx.a, lib/link-flags, src/a.c; sealed. */
static char *sealed_entry(const char *dir)
{
	char *e = bv_asprintf("%s/e", dir), *lib = bv_asprintf("%s/lib", e), *src = bv_asprintf("%s/src", e);
	assert_int_equal(bv_mkdir_p(lib), 0);
	assert_int_equal(bv_mkdir_p(src), 0);
	test_write(lib, "libx.a", "!<arch>\nnot really\n");
	test_write(lib, "link-flags", "-lm\n");
	test_write(src, "a.c", "int a;\n");
	assert_int_equal(bv_entry_seal(e), 0);
	free(lib), free(src);
	return e;
}

static int intact(const char *e, const char *want_why)
{
	char *why = NULL;
	int ok = bv_entry_check(e, &why);
	if (!ok && want_why && (!why || !strstr(why, want_why)))
		fail_msg("damage said as '%s', expected '%s'", why ? why : "(nothing)", want_why);
	free(why);
	return ok;
}

static void a_sealed_entry_is_intact_and_read_only(void **state)
{
	(void)state;
	char *dir = test_tmpdir(), *e = sealed_entry(dir);
	assert_true(intact(e, NULL));
	char *a = bv_asprintf("%s/lib/libx.a", e), *seal = bv_asprintf("%s/" BV_SEAL_FILE, e);
	struct stat st;
	assert_int_equal(stat(a, &st), 0);
	assert_int_equal(st.st_mode & 0222, 0);
	assert_int_equal(stat(seal, &st), 0);
	assert_int_equal(st.st_mode & 0222, 0);
	bv_rm_rf(dir);
	free(a), free(seal), free(e), free(dir);
}

/* Each damage, on a fresh entry. */
static void every_change_is_damage_said_how(void **state)
{
	(void)state;
	static const struct {
		const char *shell, *why;
	} cases[] = {
	    {"chmod u+w lib/libx.a && echo planted >> lib/libx.a", "differ from those it was sealed with"},
	    {"chmod u+w lib/libx.a && printf '!<arch>\\nnot reallz\\n' > lib/libx.a", "differ from those"},
	    {"echo extra > lib/extra.o", "differ from those"},
	    {"rm -f src/a.c", "differ from those"},
	    {"mkdir lib/more", "differ from those"},
	    {"rm -f lib/libx.a && mkfifo lib/libx.a", "lib/libx.a is a FIFO"},
	    {"rm -f lib/libx.a && ln -s /etc/hostname lib/libx.a", "lib/libx.a is a symlink"},
	    {"chmod u+w SEAL && echo 'bench-versions seal 1 0000000000000000000000000000000000000000' > SEAL",
	     "differ from those"},
	    {"chmod u+w SEAL && echo garbage > SEAL", "its seal is not one bench-versions writes"},
	    {"rm -f SEAL", "its seal cannot be read"},
	    {"rm -f SEAL && mkfifo SEAL", "its seal cannot be read"},
	    {"chmod u+w lib/libx.a && chmod +x lib/libx.a", "differ from those"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *dir = test_tmpdir(), *e = sealed_entry(dir);
		char *cmd = bv_asprintf("cd '%s' && %s", e, cases[i].shell);
		assert_int_equal(system(cmd), 0);
		if (intact(e, cases[i].why))
			fail_msg("'%s' went unnoticed", cases[i].shell);
		bv_rm_rf(dir);
		free(cmd), free(e), free(dir);
	}
}

static void a_linked_or_missing_entry_is_damage_and_discarded_alone(void **state)
{
	(void)state;
	char *dir = test_tmpdir(), *e = sealed_entry(dir);
	char *elsewhere = bv_asprintf("%s/elsewhere", dir);
	assert_int_equal(rename(e, elsewhere), 0);
	assert_int_equal(symlink(elsewhere, e), 0);
	assert_false(intact(e, "it is a symlink, not a directory"));
	bv_entry_discard(e);
	struct stat st;
	assert_int_equal(lstat(e, &st), -1);
	assert_true(intact(elsewhere, NULL)); /* what it pointed to: untouched */
	assert_false(intact(e, "cannot be read"));
	bv_entry_discard(elsewhere);
	assert_int_equal(lstat(elsewhere, &st), -1);
	char *fifo = bv_asprintf("%s/fifo", dir);
	assert_int_equal(mkfifo(fifo, 0644), 0);
	assert_false(intact(fifo, "it is a FIFO, not a directory"));
	assert_true(bv_entry_hold(fifo) < 0); /* never blocks on it */
	bv_rm_rf(dir);
	free(fifo), free(elsewhere), free(e), free(dir);
}

/* A hold in another process (a run) keeps trim's claim off; once it is
 * gone, the claim succeeds. */
static void a_held_entry_cannot_be_claimed(void **state)
{
	(void)state;
	char *dir = test_tmpdir(), *e = sealed_entry(dir);
	int go[2], done[2];
	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(done), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char c = 0;
		int fd = bv_entry_hold(e);
		ssize_t w = write(go[1], &c, 1);
		ssize_t r = read(done[0], &c, 1);
		(void)w, (void)r;
		_exit(fd >= 0 ? 0 : 1);
	}
	char c;
	assert_int_equal(read(go[0], &c, 1), 1);
	errno = 0;
	assert_int_equal(bv_entry_claim(e), -1);
	assert_int_equal(errno, EWOULDBLOCK);
	assert_int_equal(write(done[1], &c, 1), 1);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(status, 0);
	int fd = bv_entry_claim(e);
	assert_true(fd >= 0);
	close(fd);
	close(go[0]), close(go[1]), close(done[0]), close(done[1]);
	bv_rm_rf(dir);
	free(e), free(dir);
}

int test_cache_entry(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(a_sealed_entry_is_intact_and_read_only),
	    cmocka_unit_test(every_change_is_damage_said_how),
	    cmocka_unit_test(a_linked_or_missing_entry_is_damage_and_discarded_alone),
	    cmocka_unit_test(a_held_entry_cannot_be_claimed),
	};
	return test_run_group("cache entries", tests, NULL, NULL);
}
