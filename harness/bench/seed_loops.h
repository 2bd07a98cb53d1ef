/* SPDX-License-Identifier: MIT */
/*
 * seed_loops.h - the loops of seeds 003 (brk) and 004 (fork), with their
 * machines, shared by mmfuzz bench (which prints their figures) and
 * tests/variants/test_variant_figures.c (which checks them), so the figure
 * the test checks is the figure the bench prints.
 */
#ifndef MMFUZZ_SEED_LOOPS_H
#define MMFUZZ_SEED_LOOPS_H

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

/* Seed 003's machine: one node of ncpus CPUs and S3_PAGES of Normal. */
void bench_brk_config(struct mm_config *cfg, unsigned int ncpus);
/* vm.overcommit_memory=2 and an empty mm m0: the loop's machine. 0, or -1 if refused. */
int bench_brk_setup(struct mm_sim *sim);
/*
 * will-it-scale's brk loop, one thread playing every CPU: each of ncpus
 * CPUs in turn grows m0 by pages and shrinks it back, rounds times.
 * Returns the brk calls made, or -1 when the machine skipped one.
 */
long bench_brk_loop(struct mm_sim *sim, unsigned int ncpus, unsigned int rounds,
		    unsigned int pages);

#define S4_NODES	2u
#define S4_CPUS		64u    /* per node: the seed's 128-thread machine */
#define S4_PAGES	65536u /* Normal per node */
#define S4_PARENT_PAGES 64u    /* the parent's anon pages: copied at fork */
#define S4_TOUCH_PAGES	8u     /* the child faults these in, then exits */
#define S4_FORKS	20000u

/* Seed 004's machine: S4_NODES nodes of S4_CPUS CPUs and S4_PAGES of Normal each. */
void bench_spawn_config(struct mm_config *cfg);
/* The parent, m0, with S4_PARENT_PAGES anon pages. 0, or -1 if refused. */
int bench_spawn_setup(struct mm_sim *sim);
/*
 * unixbench's spawn, one thread playing every CPU: forks times, m0 forks
 * m1 on one CPU, and m1 touches S4_TOUCH_PAGES pages and exits on the
 * next. Returns 0, or -1 when the machine skipped an op.
 */
int bench_spawn_loop(struct mm_sim *sim, unsigned int forks);

#endif
