/* SPDX-License-Identifier: MIT */
/*
 * brk_loop.h - seed 003's brk loop, shared by mmfuzz bench (which prints
 * its figures) and tests/variants/test_variant_figures.c (which checks
 * them), so the figure the test checks is the figure the bench prints.
 */
#ifndef MMFUZZ_BRK_LOOP_H
#define MMFUZZ_BRK_LOOP_H

#include "mmcore.h"

/*
 * The model's totalram is the machine's managed pages, and each one costs a
 * 16-byte descriptor: the seed's 128 GB would be 512 MiB of memmap. 16 GiB
 * (64 MiB) is the smallest power of two whose NEVER batch at 64 CPUs,
 * RAM / 64 / 256 = 256, is above the brk size; at 4 or 8 GiB it is 2 * ncpus
 * again (max() floors it at 128) and the two rows would be the same.
 */
#define S3_PAGES     (1u << 22) /* Normal: 16 GiB */
#define S3_BRK_PAGES 200u	/* 800 KB per call */
#define S3_ROUNDS    250u	/* +200/-200 pairs per CPU */
#define S3_CPUS_LOW  40u	/* the first row; 64 is the second */

/* vm.overcommit_memory=2 and an empty mm m0: the loop's machine. 0, or -1 if refused. */
int bench_brk_setup(struct mm_sim *sim);
/*
 * will-it-scale's brk loop, one thread playing every CPU: each of ncpus
 * CPUs in turn grows m0 by pages and shrinks it back, rounds times.
 * Returns the brk calls made, or -1 when the machine skipped one.
 */
long bench_brk_loop(struct mm_sim *sim, unsigned int ncpus, unsigned int rounds,
		    unsigned int pages);

#endif
