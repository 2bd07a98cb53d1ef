/* SPDX-License-Identifier: MIT */
/*
 * bench_compaction.c - the seed 001 table of `mmfuzz bench`: a usemem-like
 * fragmentation workload run on the correct model and on each compaction
 * variant, printed in the seed's layout (mmtests' compaction rows). Each
 * round fills the Normal zone with order-0 pages (mostly movable, some
 * unmovable and some pinned), frees half of them scattered, asks for THP
 * blocks through direct compaction, runs kcompactd, frees the THPs and lets
 * kswapd sleep (the skip bits reset). One thread drives the executor, so
 * every count is exact and the same on every run; they are measured, not
 * stored.
 */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define C1_DMA_PAGES	4095u  /* DMA from pfn 1: an unaligned zone start, as on x86 */
#define C1_NORMAL_PAGES 28672u /* 112 MiB */
#define C1_ROUNDS	8u
#define C1_FILLS	112u /* 256 order-0 pages each: the Normal zone */
#define C1_THPS		16u  /* order-9 allocations per round */
#define C1_THP_ORDER	9u

static const char *const variants[] = {
	NULL,
	"compaction-fast-find-marks-skip",
	"compaction-fast-find-no-mark",
	"compaction-aligned-only-skip-test",
};
#define NR_COLUMNS (sizeof(variants) / sizeof(variants[0]))

struct column {
	struct mm_compact_stats st;
	unsigned long violations;
	unsigned long long thp_ok;
	double seconds;
};

static int push(struct mm_prog *p, struct mm_op op)
{
	return mm_prog_push(p, &op);
}

/* The workload as a program for the executor, which lends compaction its handles. */
static int build_workload(struct mm_prog *p)
{
	struct mm_config *cfg = &p->cfg;
	unsigned int handle = 0;
	int err = 0;

	mm_config_init(cfg);
	cfg->cpus_per_node[0] = 2;
	cfg->zones[0][ZONE_DMA] =
		(struct mm_zone_config){1, C1_DMA_PAGES, C1_DMA_PAGES, C1_DMA_PAGES};
	cfg->zones[0][ZONE_NORMAL] = (struct mm_zone_config){1 + C1_DMA_PAGES, C1_NORMAL_PAGES,
							     C1_NORMAL_PAGES, C1_NORMAL_PAGES};
	for (unsigned int r = 0; r < C1_ROUNDS && !err; r++) {
		uint16_t cpu = (uint16_t)(r & 1);
		/* usemem: anon pages, a few unmovable (page tables, slab) and pinned ones */
		for (unsigned int i = 0; i < C1_FILLS; i++)
			err |= push(p, (struct mm_op){.kind = MM_OP_FILL,
						      .cpu = (uint16_t)(i & 1),
						      .fill = {.node = -1,
							       .zone = ZONE_NORMAL,
							       .pages = 256,
							       .unmovable_every = 13,
							       .busy_every = 61}});
		err |= push(p, (struct mm_op){.kind = MM_OP_DRAIN_ALL, .cpu = cpu});
		/* processes exit: half the pool, scattered */
		err |= push(p, (struct mm_op){.kind = MM_OP_FREE_PATTERN,
					      .cpu = cpu,
					      .pattern = {.every = 2, .offset = (uint8_t)(r & 1)}});
		err |= push(p, (struct mm_op){.kind = MM_OP_DRAIN_ALL, .cpu = cpu});
		for (unsigned int i = 0; i < C1_THPS; i++)
			err |= push(p, (struct mm_op){.kind = MM_OP_ALLOC,
						      .cpu = (uint16_t)(i & 1),
						      .alloc = {.order = C1_THP_ORDER,
								.node = -1,
								.gfp = MM_GFP_HIGHUSER_MOVABLE |
								       MM_GFP_COMPACT}});
		err |= push(p, (struct mm_op){.kind = MM_OP_KCOMPACTD,
					      .cpu = cpu,
					      .compact.order = C1_THP_ORDER});
		for (unsigned int i = 0; i < C1_THPS; i++)
			err |= push(p, (struct mm_op){.kind = MM_OP_FREE,
						      .cpu = cpu,
						      .free.handle = handle + i});
		handle += C1_THPS;
		/* the rest exits; kswapd goes to sleep and flushes the skip bits */
		err |= push(p, (struct mm_op){
				       .kind = MM_OP_FREE_PATTERN, .cpu = cpu, .pattern.every = 1});
		err |= push(p, (struct mm_op){.kind = MM_OP_RESET_SKIP, .cpu = cpu});
	}
	return err ? -1 : 0;
}

static void count(const struct mm_violation *v, void *arg)
{
	(void)v;
	(*(unsigned long *)arg)++;
}

static int run_column(struct mm_exec *ex, const struct mm_prog *p, const char *variant,
		      struct column *c)
{
	struct mm_exec_opts o;
	struct mm_sim *sim;
	long failed;

	mm_exec_opts_default(&o);
	o.variant = bench_variant(variant);
	if (o.variant == MM_VARIANT_UNKNOWN)
		return -1;
	o.stop_on_violation = false; /* the variants' rescans are counted, the run goes on */
	o.on_violation = count;
	o.arg = &c->violations;
	double t0 = cli_now();
	if (mm_exec_run(ex, p, &o, &failed) < 0) {
		fprintf(stderr, "mmfuzz: bench: cannot build the seed 001 machine\n");
		return -1;
	}
	c->seconds = cli_now() - t0;
	sim = mm_exec_sim(ex);
	mm_sim_compact_stats(sim, &c->st);
	/* A THP allocation that failed was skipped at its free. */
	c->thp_ok = (unsigned long long)C1_ROUNDS * C1_THPS - mm_exec_skipped(ex);
	return 0;
}

static void row(const char *name, const struct column *c, double (*get)(const struct column *),
		const char *fmt)
{
	printf("%-32s", name);
	for (size_t i = 0; i < NR_COLUMNS; i++)
		printf(fmt, get(&c[i]));
	putchar('\n');
}

#define GETTER(field)                                                                              \
	static double get_##field(const struct column *c)                                          \
	{                                                                                          \
		return (double)c->st.field;                                                        \
	}
GETTER(pgmigrate_success)
GETTER(pgmigrate_fail)
GETTER(compact_isolated)
GETTER(compact_migrate_scanned)
GETTER(compact_free_scanned)
GETTER(compact_stall)
GETTER(compact_success)
GETTER(compact_fail)
GETTER(compact_daemon_wake)
GETTER(compact_block_rescans)

static double get_efficiency(const struct column *c)
{
	return mm_compact_scan_efficiency(&c->st);
}

static double get_cost(const struct column *c)
{
	return mm_compact_cost(&c->st);
}

static double get_thp(const struct column *c)
{
	return (double)c->thp_ok;
}

static double get_violations(const struct column *c)
{
	return (double)c->violations;
}

static double get_ms(const struct column *c)
{
	return c->seconds * 1e3;
}

int bench_compaction(unsigned long *correct_violations)
{
	struct mm_exec *ex = mm_exec_create();
	struct column c[NR_COLUMNS];
	struct mm_prog p;
	int ret = -1;

	mm_prog_init(&p);
	memset(c, 0, sizeof(c));
	if (!ex || build_workload(&p))
		goto out;
	for (size_t i = 0; i < NR_COLUMNS; i++)
		if (run_column(ex, &p, variants[i], &c[i]))
			goto out;
	printf("seed 001: compaction on a usemem-like workload; 1 node x 2 CPUs, DMA %u pages from "
	       "pfn 1,\nNormal %u pages, 2 MiB pageblocks; %u rounds of: fill Normal (1/13 "
	       "unmovable,\n1/61 pinned), free half, %u order-%u THP allocations with direct "
	       "compaction,\nkcompactd, free all, kswapd sleeps (skip bits reset)\n",
	       C1_DMA_PAGES, C1_NORMAL_PAGES, C1_ROUNDS, C1_THPS, C1_THP_ORDER);
	printf("%-32s%16s%16s%16s%16s\n", "", "fixed", "ff-marks-skip", "ff-no-mark",
	       "aligned-only");
	row("Ops Page migrate success", c, get_pgmigrate_success, "%16.0f");
	row("Ops Page migrate failure", c, get_pgmigrate_fail, "%16.0f");
	row("Ops Compaction pages isolated", c, get_compact_isolated, "%16.0f");
	row("Ops Compaction migrate scanned", c, get_compact_migrate_scanned, "%16.0f");
	row("Ops Compaction free scanned", c, get_compact_free_scanned, "%16.0f");
	row("Ops Compact scan efficiency", c, get_efficiency, "%16.2f");
	row("Ops Compaction cost", c, get_cost, "%16.2f");
	row("Ops Compact stall", c, get_compact_stall, "%16.0f");
	row("Ops Compact success", c, get_compact_success, "%16.0f");
	row("Ops Compact fail", c, get_compact_fail, "%16.0f");
	row("Ops Kcompactd wake", c, get_compact_daemon_wake, "%16.0f");
	row("pageblock re-entries per pass", c, get_compact_block_rescans, "%16.0f");
	row("THP allocations that succeeded", c, get_thp, "%16.0f");
	row("violations (INV-)", c, get_violations, "%16.0f");
	row("time (ms)", c, get_ms, "%16.1f");
	*correct_violations = c[0].violations;
	ret = 0;
out:
	mm_prog_free(&p);
	mm_exec_destroy(ex);
	return ret;
}
