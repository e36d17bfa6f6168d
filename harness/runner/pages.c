/*
 * pages.c - every page of a loaded plugin read before it is timed
 * (pages.h says why).
 */
#include "pages.h"

#include <link.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22 /* Linux 5.14; older kernels say EINVAL */
#endif

typedef struct want {
	uintptr_t addr; /* an address inside the object */
	long pages;
	int found;
} want;

static int holds(const struct dl_phdr_info *info, uintptr_t addr)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t a = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && addr >= a && addr - a < ph->p_memsz)
			return 1;
	}
	return 0;
}

static int map_one(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	want *w = data;
	if (!holds(info, w->addr))
		return 0;
	w->found = 1;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		/* A writable segment's zero-filled tail (.bss) is left out: it is
		 * no file's, and a plugin's can be megabytes (a suite's parsed
		 * declarations), 15-30 ms of faults a process for memory that
		 * the code writes before it reads. */
		size_t bytes = ph->p_flags & PF_W ? ph->p_filesz : ph->p_memsz;
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_R) || !bytes)
			continue;
		uintptr_t a = (info->dlpi_addr + ph->p_vaddr) & ~(page - 1);
		uintptr_t e = (info->dlpi_addr + ph->p_vaddr + bytes + page - 1) & ~(page - 1);
		w->pages += (long)((e - a) / page);
		/* The pages into the page tables in one call where the kernel
		 * can (fewer faults than one a page); that alone is not enough:
		 * a page mapped so, but not yet read by an ordinary load, still
		 * made every masked load an assist (measured: 190x on
		 * tests/e2e/test_pages.sh's fixture).  One ordinary read a page
		 * is what takes the assist away, and maps what madvise did not. */
		(void)madvise((void *)a, e - a, MADV_POPULATE_READ);
		for (; a < e; a += page)
			(void)*(volatile const char *)a;
	}
	return 1;
}

long bv_map_object_pages(const void *addr)
{
	want w = {(uintptr_t)addr, 0, 0};
	if (!addr)
		return -1;
	dl_iterate_phdr(map_one, &w);
	return w.found ? w.pages : -1;
}
