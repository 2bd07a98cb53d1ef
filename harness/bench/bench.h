/* SPDX-License-Identifier: MIT */
/*
 * bench.h - mmfuzz bench's parts, one file per thing measured: the
 * buddy against malloc (bench_buddy.c), the seeds (bench_pcp.c,
 * bench_vmstat.c, bench_counters.c, bench_compaction.c), and the fuzz
 * inputs' cost (bench_exec.c); bench_main.c is the command.
 */
#ifndef MMFUZZ_BENCH_H
#define MMFUZZ_BENCH_H

#include "cli.h"
#include "seed_loops.h"

#define BENCH_SEED	    UINT64_C(0x6d6d66757a7a0001)
#define BENCH_PAGES	    65536u /* the buddy machine: 256 MiB of Normal */
#define BENCH_GFP	    MM_GFP_HIGHUSER_MOVABLE
#define BENCH_INPUTS	    256u /* random fuzz inputs per executor round */
#define BENCH_INPUT_LEN	    512u
#define BENCH_SECONDS	    0.5
#define BENCH_QUICK_SECONDS 0.05
#define BENCH_MAX_SECONDS   3600.0

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define BENCH_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define BENCH_SANITIZED 1
#endif
#endif

/* Keeps a value (and every store before it) alive past the optimizer. */
#define keep(p) __asm__ __volatile__("" : : "r"(p) : "memory")

/* A seed's machine, its violations counted; NULL after a message */
struct mm_sim *bench_sim_create(void);
/* The variant a seed's row names; MM_VARIANT_UNKNOWN after a message */
int bench_variant(const char *name);
/* The correct model's violations the bench met (the first is printed) */
extern unsigned long bench_violations;
void bench_count_violation(const struct mm_violation *v, void *arg);
/* Runs round(ctx) until seconds have passed (at least once); returns the time. */
double bench_time_rounds(void (*round)(void *), void *ctx, double seconds, unsigned long *rounds);

/* The fixed-seed random fuzz inputs the executor figures run */
struct bench_inputs {
	uint8_t data[BENCH_INPUTS][BENCH_INPUT_LEN];
	struct mm_config cfg[BENCH_INPUTS];
	struct mm_limits lim;
};
int bench_make_inputs(struct bench_inputs *in);

/* bench_buddy.c: the buddy machine, 1 node of BENCH_PAGES Normal pages */
void bench_machine(struct mm_config *cfg);
int bench_pairs(double seconds);
int bench_seed000(void);			 /* bench_pcp.c */
int bench_seed002(mm_violation_fn on_violation); /* bench_vmstat.c */
int bench_seed003(void);			 /* bench_counters.c */
int bench_seed003_batch(void);			 /* bench_counters.c */
int bench_seed004(void);			 /* bench_counters.c */
/* bench_compaction.c: the seed 001 table; the correct model's violations in *correct */
int bench_compaction(unsigned long *correct_violations);
int bench_reset(const struct bench_inputs *in, double seconds);	  /* bench_exec.c */
int bench_exec(const struct bench_inputs *in, double seconds);	  /* bench_exec.c */
int bench_targets(const struct bench_inputs *in, double seconds); /* bench_exec.c */

#endif
