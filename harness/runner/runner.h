/*
 * runner.h - what bench-versions must know of bv-runner (runner_main.c) before it
 * starts one: its limits, so a command that cannot work is refused before
 * anything is resolved or built, not after every build by a runner that
 * exits 2.
 */
#ifndef BV_RUNNER_H
#define BV_RUNNER_H

/* Versions one measuring process loads and alternates (its arrays are
 * this big).  --isolated runs one version per process and is not bound. */
#define BV_RUNNER_MAX_VERSIONS 16

#endif
