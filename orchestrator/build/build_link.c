/*
 * build_link.c - linking a build's plugin: lib/plugin.o and the library's
 * archives into plugin.so, the host-only variant (plugin-host.so, without
 * the CUDA libraries, over generated stubs) and the layouts (the same
 * objects linked again with a pad before the library).  Apart from build.c
 * because the layouts link a cached build again long after it was built
 * (bv_build_layouts), from its lib/ alone.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build.h"
#include "build_key.h"
#include "build_link.h"
#include "cache_entry.h"
#include "common.h"
#include "env.h"
#include "fs.h"
#include "proc.h"
#include "resolve.h"

/* Directory entries sorted by name (byte order, not the locale's). */
static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* The archives (*.a, regular files) directly in lib, sorted by name. */
void bv_build_archives(const char *lib, bv_strv *out)
{
	struct dirent **names = NULL;
	int n = scandir(lib, &names, NULL, by_name);
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		size_t len = strlen(name);
		char *path = bv_asprintf("%s/%s", lib, name);
		struct stat st;
		if (len > 2 && !strcmp(name + len - 2, ".a") && stat(path, &st) == 0 && S_ISREG(st.st_mode))
			bv_strv_push(out, path);
		free(path);
		free(names[i]);
	}
	free(names);
}

/* s with every occurrence of from replaced by to. */
char *bv_build_replace_all(const char *s, const char *from, const char *to)
{
	bv_buf b = BV_BUF_INIT;
	bv_buf_puts(&b, "");
	size_t n = strlen(from);
	for (const char *hit; n && (hit = strstr(s, from)); s = hit + n) {
		bv_buf_putn(&b, s, (size_t)(hit - s));
		bv_buf_puts(&b, to);
	}
	bv_buf_puts(&b, s);
	return bv_buf_detach(&b);
}

/* ---- the host-only variant ----------------------------------------------
 *
 * A library with its cuda backend links -lcublas -lcudart: loading such a
 * plugin maps libcublas and libcublasLt (hundreds of MB) and takes 120-230 ms
 * here, most of a short measuring process's life, though the process runs
 * only host cells unless a cuda cell is still sampling.  So a build whose
 * link flags name CUDA libraries also gets plugin-host.so: the same
 * lib/plugin.o and libkernels.a, linked without those libraries, the CUDA
 * functions the archive calls supplied by generated stubs that fail
 * (lib/cuda-stubs.c).  measure.c loads it in the processes that run host
 * cells only.  A build whose flags name no CUDA library has no variant: its
 * plugin.so is host-only already.
 *
 * Placement: the stubs are linked after everything else and stay
 * preemptible (a --dynamic-list), so the library's calls to them go through
 * the PLT as its calls into libcudart do in plugin.so: the PLT has the same
 * entries and every function of the library and the harness lies at the
 * same address in both (test_layouts.sh checks it), layouts included. */

/* Whether a link flag brings in a CUDA library: -lNAME or a path to
 * libNAME.so/.a, NAME one of the toolkit's (cudart, cublas, cublasLt, cuda,
 * ...).  Exact prefixes, not "cu": -lcurl is no CUDA library. */
static int cuda_lib_flag(const char *f)
{
	static const char *const libs[] = {"cuda",  "cublas", "cufft",	 "curand",     "cusparse",  "cusolver",
					   "cudnn", "cupti",  "nvrtc",	 "nvToolsExt", "nvJitLink", NULL};
	const char *name;
	if (!strncmp(f, "-l", 2)) {
		name = f + 2;
	} else if (f[0] != '-') {
		const char *slash = strrchr(f, '/');
		name = slash ? slash + 1 : f;
		if (strncmp(name, "lib", 3) || (!strstr(name, ".so") && !strstr(name, ".a")))
			return 0;
		name += 3;
	} else
		return 0;
	for (const char *const *l = libs; *l; l++)
		if (!strncmp(name, *l, strlen(*l)))
			return 1;
	return 0;
}

/* Whether an undefined symbol is one the CUDA libraries define: the runtime
 * (cuda*, __cuda* from nvcc's registration code), the driver (cuInit, ...:
 * cu and a capital), the toolkit's libraries. */
static int cuda_symbol(const char *name)
{
	static const char *const prefixes[] = {"cuda",	 "__cuda",    "cublas", "cufft", "curand", "cusparse",
					       "cusolver", "cudnn",    "cupti",  "nvrtc", "nvtx",   "nvJitLink", NULL};
	for (const char *const *p = prefixes; *p; p++)
		if (!strncmp(name, *p, strlen(*p)))
			return 1;
	return name[0] == 'c' && name[1] == 'u' && name[2] >= 'A' && name[2] <= 'Z';
}

/* A stub's definition: what the real function returns when there is no
 * device, in the type the caller reads. */
static void stub_for(bv_buf *b, const char *name)
{
	size_t len = strlen(name);
	int driver = name[2] >= 'A' && name[2] <= 'Z'; /* cuGetErrorString returns a CUresult */
	int text = !driver && len > 6 &&
		   (!strcmp(name + len - 6, "String") || !strcmp(name + len - 4, "Name")) &&
		   (strstr(name, "GetError") || strstr(name, "GetStatus"));
	if (!strcmp(name, "__cudaRegisterFatBinary"))
		/* void **: the module handle; NULL, as no kernel is registered */
		bv_buf_printf(b, "void **%s() { return 0; }\n", name);
	else if (!strncmp(name, "__cudaRegister", 14) || !strncmp(name, "__cudaUnregister", 16))
		bv_buf_printf(b, "void %s() {}\n", name);
	else if (text)
		bv_buf_printf(b, "const char *%s() { return bv_not_loaded; }\n", name);
	else if (!strncmp(name, "cuda", 4) || !strncmp(name, "__cuda", 6) || driver)
		/* cudaErrorStubLibrary / CUDA_ERROR_STUB_LIBRARY (both 34): what
		 * these are.  Not "no device", which a library may reword (kernels
		 * 0.7.2 says "no GPU on this machine"): the reason must say the
		 * stubs answered.  Nonzero also makes __cudaPushCallConfiguration
		 * skip the launch. */
		bv_buf_printf(b, "int %s() { return 34; }\n", name);
	else
		/* CUBLAS_STATUS_NOT_INITIALIZED; nonzero is failure in every
		 * toolkit library's status enum */
		bv_buf_printf(b, "int %s() { return 1; }\n", name);
}

/* The link flags without their CUDA libraries in *out; returns how many
 * were dropped. */
static int host_flags(const char *flags, char **out)
{
	bv_strv words = BV_STRV_INIT;
	bv_strv_split(&words, flags);
	bv_buf b = BV_BUF_INIT;
	bv_buf_puts(&b, "");
	int dropped = 0;
	for (size_t i = 0; i < words.n; i++) {
		if (cuda_lib_flag(words.v[i]))
			dropped++;
		else
			bv_buf_printf(&b, "%s%s", b.len ? " " : "", words.v[i]);
	}
	bv_strv_free(&words);
	*out = bv_buf_detach(&b);
	return dropped;
}

static int link_with(const char *lib, int pad, int host, const char *out, const char *log);

/* lib/cuda-stubs.o and lib/cuda-stubs.list: a stub for each CUDA symbol the
 * harness and library leave undefined once linked without the CUDA
 * libraries (nm -D --undefined-only of a trial link; only unversioned
 * names, a versioned one came from a library that stays).  Returns the
 * exit status of the failing step (> 0), or < 0 with an error. */
static int make_stubs(const char *lib, const char *log)
{
	char *probe = bv_asprintf("%s/host-probe.so", lib);
	int status = link_with(lib, 0, 2, probe, log);
	char *text = NULL;
	if (status == 0) {
		char *nm = getenv("NM") && *getenv("NM") ? getenv("NM") : "nm";
		char *argv[] = {nm, "-D", "--undefined-only", probe, NULL};
		status = bv_run_capture(argv, 1 << 20, &text);
	}
	unlink(probe);
	free(probe);
	if (status) {
		free(text);
		return status;
	}
	bv_buf c = BV_BUF_INIT, list = BV_BUF_INIT;
	bv_buf_puts(&c, "/* Generated by bench-versions (orchestrator/build/build_link.c) for plugin-host.so,\n"
			" * which is loaded without the CUDA libraries: no cuda cell runs in its\n"
			" * processes, and these say why if one is asked. */\n"
			"static const char bv_not_loaded[] = \"the cuda backend is not loaded in this measuring process\";\n");
	bv_buf_puts(&list, "{\n");
	for (char *line = text, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		/* "                 U name" (a weak reference, w, may stay NULL) */
		char type = 0, name[256];
		/* Names go into C source: a C identifier or nothing (the library
		 * is untrusted, and an ELF name may be any bytes). */
		if (sscanf(line, " %c %255s", &type, name) != 2 || type != 'U' ||
		    strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != strlen(name) ||
		    !cuda_symbol(name))
			continue;
		stub_for(&c, name);
		bv_buf_printf(&list, "\t%s;\n", name);
	}
	bv_buf_puts(&list, "};\n");
	free(text);
	char *src = bv_asprintf("%s/cuda-stubs.c", lib), *obj = bv_asprintf("%s/cuda-stubs.o", lib);
	char *lpath = bv_asprintf("%s/cuda-stubs.list", lib);
	status = bv_write_file_atomic(src, c.s, c.len);
	if (status == 0)
		status = bv_write_file_atomic(lpath, list.s, list.len);
	if (status == 0) {
		/* -w: the stubs are declared without prototypes on purpose (any
		 * arguments; none is read). */
		char *argv[] = {(char *)bv_build_cc(), "-std=c11", "-O2", "-fPIC", "-w", "-c", src, "-o", obj, NULL};
		status = bv_run(argv, NULL, log, BV_ENV_BUILD);
	}
	bv_buf_free(&c), bv_buf_free(&list);
	free(src), free(obj), free(lpath);
	return status;
}

/* Links lib/plugin.o and the library into out, with `pad` bytes of code
 * that never runs between them (layout 0 has none): everything of the
 * library then sits `pad` bytes further on, and so do the alignments of its
 * loops and branches against cache lines and fetch blocks.
 *
 * The pad starts a page (the anchor), so the library's code begins at the
 * same offset in a page in every version's plugin, whatever the harness in
 * front of it compiles to.  Without it the library moved with it: a
 * version's plugin.c without an op, or a harness side with one more
 * function (#if a compat rule's define), shifted every loop of the library
 * behind it, and an unchanged function came out 6-14 % faster or slower
 * from placement alone (tests/e2e/test_foreign.sh's exp, Intel Xeon
 * AVX-512).  What moves the library's code now is the library's own.
 * host: 1, the
 * host-only variant (without the CUDA libraries, with the stubs); 2, the
 * same without the stubs (make_stubs's trial link).  Returns the compiler's
 * exit status, or < 0 with an error. */
static int link_with(const char *lib, int pad, int host, const char *out, const char *log)
{
	char *flags_path = bv_asprintf("%s/plugin-link-flags", lib), *flags = NULL;
	int rc = bv_read_file(flags_path, 4096, &flags, NULL);
	free(flags_path);
	if (rc)
		return rc;
	if (strstr(flags, "{build}")) { /* files under {build}: link_flags_check */
		char *stored = flags;
		flags = bv_build_replace_all(stored, "{build}", lib);
		free(stored);
	}
	if (host) {
		char *all = flags;
		host_flags(all, &flags);
		free(all);
	}
	bv_strv cc = BV_STRV_INIT;
	bv_strv_push(&cc, bv_build_cc());
	for (const char *const *f = plugin_cflags; *f; f++)
		bv_strv_push(&cc, *f);
	bv_strv_pushf(&cc, "%s/plugin.o", lib);
	char *user_ops = bv_asprintf("%s/user-ops.o", lib); /* user_ops.c: an ops file's table */
	if (bv_exists(user_ops))
		bv_strv_push(&cc, user_ops);
	free(user_ops);
	/* An assembler file: the anchor (its .text starts a page) and the
	 * pad, exactly these bytes (int3).  The library's objects are 16-byte
	 * aligned and pads multiples of 16, so the library starts exactly
	 * `pad` bytes into a page. */
	char *asm_path = bv_asprintf("%s.s", out); /* beside out: lib/ is sealed (bv_build) */
	char *skip = pad ? bv_asprintf("\t.skip %d, 0xcc\n", pad) : bv_strdup(""); /* as warns of .skip 0 */
	char *text = bv_asprintf("\t.text\n\t.p2align 12\n%s\t.section .note.GNU-stack,\"\",@progbits\n", skip);
	free(skip);
	if (!rc)
		rc = bv_write_file_atomic(asm_path, text, strlen(text));
	free(text);
	bv_strv_push(&cc, asm_path);
	/* The library: every archive in lib.  libkernels.a alone links as it
	 * always did (the same command, so the same addresses); several are
	 * a group, so their order does not matter. */
	bv_strv archives = BV_STRV_INIT;
	bv_build_archives(lib, &archives);
	if (archives.n == 1)
		bv_strv_push(&cc, archives.v[0]);
	else if (archives.n > 1) {
		bv_strv_push(&cc, "-Wl,--start-group");
		for (size_t i = 0; i < archives.n; i++)
			bv_strv_push(&cc, archives.v[i]);
		bv_strv_push(&cc, "-Wl,--end-group");
	}
	bv_strv_free(&archives);
	bv_strv_split(&cc, flags);
	free(flags);
	if (host == 1) {
		/* Last, so nothing of the library moves; preemptible, so the
		 * calls stay PLT calls (the placement note above); and every
		 * symbol must resolve now, not at dlopen in a measuring
		 * process. */
		char *list = bv_asprintf("%s/cuda-stubs.list", lib);
		bv_strv_pushf(&cc, "%s/cuda-stubs.o", lib);
		bv_strv_pushf(&cc, "-Wl,--dynamic-list=%s", list);
		bv_strv_push(&cc, "-Wl,-z,defs");
		free(list);
	}
	bv_strv_push(&cc, "-Wl,--exclude-libs,ALL");
	bv_strv_push(&cc, "-Wl,-Bsymbolic");
	bv_strv_push(&cc, "-o");
	bv_strv_push(&cc, out);
	int status = rc ? rc : bv_run(cc.v, NULL, log, BV_ENV_BUILD);
	bv_strv_free(&cc);
	unlink(asm_path);
	free(asm_path);
	return status;
}

int bv_build_link_plugin(const char *lib, int pad, const char *out, const char *log)
{
	return link_with(lib, pad, 0, out, log);
}

/* Whether this build's link flags name a CUDA library (it needs a host
 * variant); -1 if they cannot be read. */
static int links_cuda(const char *lib)
{
	char *path = bv_asprintf("%s/plugin-link-flags", lib), *flags = NULL, *rest = NULL;
	int rc = bv_read_file(path, 4096, &flags, NULL);
	free(path);
	if (rc)
		return -1;
	int n = host_flags(flags, &rest);
	free(flags), free(rest);
	return n > 0;
}

/* plugin-host.so in dir (the build's directory), when its library links
 * CUDA.  A variant that cannot be made is no build failure: it is said in
 * the log, and host cells then load plugin.so as before. */
void bv_build_host_variant(const char *dir, const char *log)
{
	char *lib = bv_asprintf("%s/lib", dir), *out = bv_asprintf("%s/plugin-host.so", dir);
	if (links_cuda(lib) == 1) {
		int status = make_stubs(lib, log);
		if (status == 0)
			status = link_with(lib, 0, 1, out, log);
		if (status != 0) {
			unlink(out);
			FILE *f = fopen(log, "a");
			if (f) {
				fprintf(f, "bench-versions: no host-only plugin (step exited %d); host cells load plugin.so\n",
					status);
				fclose(f);
			}
		}
	}
	free(lib), free(out);
}

/* The pad of layout k: 208 bytes apart, i.e. 16 bytes apart modulo a
 * 64-byte cache line (208 = 3 * 64 + 16), so four layouts put the library at
 * each 16-byte offset within a line (functions are 16-byte aligned), and at
 * different offsets within a page too. */
static int layout_pad(int k) { return 208 * k; }

const char *bv_layout_plugin(const bv_version *v, int k, char *buf, size_t len)
{
	if (k == 0 || !v->plugin) {
		snprintf(buf, len, "%s", v->plugin ? v->plugin : "");
		return buf;
	}
	const char *slash = strrchr(v->plugin, '/');
	int dir = slash ? (int)(slash - v->plugin) : 0;
	snprintf(buf, len, "%.*s/plugin-L%d.so", dir, v->plugin, k);
	return buf;
}

const char *bv_plugin_variant(const bv_version *v, int k, int host, char *buf, size_t len)
{
	const char *slash = v->plugin ? strrchr(v->plugin, '/') : NULL;
	int dir = slash ? (int)(slash - v->plugin) : 0;
	snprintf(buf, len, "%.*s/plugin-host.so", dir, v->plugin ? v->plugin : "");
	if (!host || !v->plugin || !bv_exists(buf))
		return bv_layout_plugin(v, k, buf, len);
	if (k > 0)
		snprintf(buf, len, "%.*s/plugin-host-L%d.so", dir, v->plugin, k);
	return buf;
}

int bv_build_layouts(const bv_version *v, int n)
{
	if (!v->plugin || v->build_error)
		return 0;
	const char *slash = strrchr(v->plugin, '/');
	char *dir = bv_asprintf("%.*s", slash ? (int)(slash - v->plugin) : 1, slash ? v->plugin : ".");
	char *lib = bv_asprintf("%s/lib", dir);
	char *log = bv_asprintf("%s/layouts.log", dir);
	int rc = 0;
	/* The layouts link lib/ again: only as it was built (a recipe of
	 * another version may have written through a hard link since). */
	char *why = NULL;
	if (!bv_entry_check(lib, &why)) {
		rc = bv_fail(BV_ERUN,
			     "%s's build %s was changed after it was built (lib/: %s): it is removed from the cache; "
			     "run again to build it afresh",
			     v->name, dir, why);
		bv_entry_discard(dir);
	}
	free(why);
	/* The host-only variant, where the build has one, gets the same
	 * layouts: a host cell's layout k is the full plugin's layout k. */
	char probe[4096];
	int variants = 1 + !!strcmp(bv_plugin_variant(v, 0, 1, probe, sizeof(probe)), v->plugin);
	for (int k = 1; k < n && rc == 0; k++)
		for (int host = 0; host < variants && rc == 0; host++) {
			char path[4096];
			bv_plugin_variant(v, k, host, path, sizeof(path));
			if (bv_exists(path))
				continue;
			/* Linked under a temporary name and renamed: two runs sharing
			 * the cache may link the same layout at once, and the loser's
			 * rename just replaces an identical file. */
			char *tmp = bv_asprintf("%s.tmp-%ld", path, (long)getpid());
			int status = link_with(lib, layout_pad(k), host, tmp, log);
			if (status == 0 && rename(tmp, path) != 0)
				rc = bv_fail(BV_ERUN, "cannot move %s into place: %s", path, strerror(errno));
			else if (status > 0)
				rc = bv_fail(BV_ERUN, "linking layout %d%s of %s failed; see %s", k,
					     host ? " (host-only)" : "", v->name, log);
			else if (status < 0)
				rc = status;
			unlink(tmp);
			free(tmp);
		}
	free(dir), free(lib), free(log);
	return rc;
}
