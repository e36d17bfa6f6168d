/*
 * pages.h - every page of a loaded plugin read before it is timed.
 *
 * bv-runner times each cell in a child it forks, and fork() does not copy
 * the page-table entries of a file-backed mapping that has no private
 * pages: the child starts with the plugins' code and constants unmapped
 * (measured through /proc/self/pagemap).  A masked load (AVX-512
 * `vbroadcastss mem{k1}`) whose mask is all zero, reading a page that no
 * ordinary load has read in this process, does not fault the page in: every
 * execution takes a slow path instead.  Measured on an AMD EPYC (Zen 5): a
 * SLEEF release whose log kept one such constant alone on its page read
 * 11 us against 0.32 us for the same code and inputs (36x, in every
 * process); tests/e2e/test_pages.sh's fixture 190x (docs/measurement.md,
 * "Pages read before timing").  Which constant sits alone on a page is an
 * accident of the link, so two builds of the same code differ by it.
 * Reading every page of every plugin in the child, before its first timed
 * call, takes that accident away.  (Mapping them with
 * madvise(MADV_POPULATE_READ) alone did not: the fixture stayed 190x.)
 */
#ifndef BV_PAGES_H
#define BV_PAGES_H

#include <stddef.h>

/* Reads every page of the loaded object that contains addr (each
 * readable PT_LOAD segment, a writable one's file-backed part) with an
 * ordinary load, after mapping them in
 * one madvise(MADV_POPULATE_READ) where the kernel has it.  Returns the
 * pages read, or -1 when addr is in no loaded object. */
long bv_map_object_pages(const void *addr);

#endif
