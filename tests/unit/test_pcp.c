/* SPDX-License-Identifier: MIT */
/*
 * test_pcp.c - the per-cpu page lists against values worked out by hand
 * from the kernel's formulas (kernel-semantics.md §4 and §10, 6.7+):
 *
 *   zone_batchsize: b = min(M >> 10, 256) / 4, at least 1;
 *                   b = rounddown_pow_of_two(b + b / 2) - 1; the caller
 *                   takes max(1, b)
 *   zone_highsize:  max(total / nr_split_cpus, 4 * batch), total = the low
 *                   mark (high_min), M / 8 (high_max), or M / fraction for
 *                   both; nr_split_cpus = online CPUs of the zone's node,
 *                   all online CPUs when the node has none
 *   nr_pcp_alloc:   high = min(clamp(high, high_min, high_max) + batch',
 *                   high_max); order 0: batch' = batch << alloc_factor,
 *                   capped at max(high - count - batch, batch), and
 *                   alloc_factor++ (up to 5) when batch' fitted; order > 0:
 *                   max(batch >> order, 2) blocks
 *   nr_pcp_free:    count >= high flushes clamp(free_count, batch,
 *                   high - batch); a run of high-order frees flushes
 *                   min(count, batch << 5)
 *
 * plus drains (cpu dead, local, all, zone_pcp_disable), deferred init
 * and the conservation of pages with pcp lists in the count.
 */
#include "common.h"
#include "internal.h"

#include <stdlib.h>

/* ------------------------------------------------------------------------
 * Helpers
 * ---------------------------------------------------------------------- */

struct blk {
	long long pfn;
	uint32_t owner, gen;
	unsigned int order;
	int cpu; /* the allocating CPU */
};

static uint32_t next_owner = 1;

static struct blk alloc_gfp(struct mm_sim *sim, int cpu, unsigned int order, unsigned int gfp)
{
	struct blk b = {.owner = next_owner++, .order = order, .cpu = cpu};

	mm_set_current_cpu(cpu);
	b.pfn = mm_alloc_pages(sim, order, gfp, -1, b.owner, &b.gen);
	ck_assert_msg(b.pfn >= 0, "order-%u allocation on cpu %d failed", order, cpu);
	return b;
}

/* Movable: the machine's pageblocks are all movable, so no block changes type. */
static struct blk alloc_on(struct mm_sim *sim, int cpu, unsigned int order)
{
	return alloc_gfp(sim, cpu, order, MM_GFP_MOVABLE);
}

static void free_on(struct mm_sim *sim, int cpu, const struct blk *b)
{
	mm_set_current_cpu(cpu);
	mm_free_pages(sim, (uint64_t)b->pfn, b->order, b->owner, b->gen);
}

static void assert_pcp(const struct mm_sim *sim, int node, enum zone_type zt, int cpu, int count,
		       int high)
{
	struct mm_pcp_info pi = pcpinfo(sim, node, zt, cpu);

	ck_assert_msg(pi.count == count && pi.high == high,
		      "node %d %s cpu %d: count %d high %d, want count %d high %d", node,
		      mm_zone_name(zt), cpu, pi.count, pi.high, count, high);
}

/* The zone's sizing (mm_zone_info) and every CPU's pageset carry it. */
static void assert_sizing(const struct mm_sim *sim, int node, enum zone_type zt, int batch,
			  int high_min, int high_max)
{
	struct mm_zone_info zi = zinfo(sim, node, zt);

	ck_assert_msg(zi.pcp_batch == batch && zi.pcp_high_min == high_min &&
			      zi.pcp_high_max == high_max,
		      "node %d %s (%d CPUs): batch/high_min/high_max %d/%d/%d, want %d/%d/%d", node,
		      mm_zone_name(zt), mm_num_online_cpus(sim), zi.pcp_batch, zi.pcp_high_min,
		      zi.pcp_high_max, batch, high_min, high_max);
	for (unsigned int cpu = 0; cpu < mm_nr_cpus(sim); cpu++) {
		struct mm_pcp_info pi = pcpinfo(sim, node, zt, (int)cpu);
		ck_assert_msg(pi.batch == batch && pi.high_min == high_min &&
				      pi.high_max == high_max,
			      "node %d %s cpu %u: batch/high_min/high_max %d/%d/%d, want %d/%d/%d",
			      node, mm_zone_name(zt), cpu, pi.batch, pi.high_min, pi.high_max,
			      batch, high_min, high_max);
	}
}

static void cfg_machine(struct mm_config *cfg, unsigned int nr_nodes, const unsigned int *cpus,
			unsigned int min_free_kbytes)
{
	mm_config_init(cfg);
	cfg->nr_nodes = nr_nodes;
	for (unsigned int n = 0; n < nr_nodes; n++)
		cfg->cpus_per_node[n] = cpus[n];
	cfg->max_order = 10;
	cfg->pageblock_order = 9;
	cfg->min_free_kbytes = min_free_kbytes;
	cfg->watermark_scale_factor = 10;
}

/*
 * Machine R, most tests' machine: 1 node, 2 CPUs, one Normal zone of
 * 65536 pages, min_free_kbytes 1024, wsf 10.
 *   pages_min = 1024 >> 2 = 256 = min
 *   gap = max(256 >> 2 = 64, mult_frac(65536, 10, 10000) = 6 * 10 +
 *         5536 * 10 / 10000 = 65) = 65: low 321, high 386
 *   batch: 65536 >> 10 = 64, / 4 = 16, rounddown_pow2(16 + 8 = 24) - 1 = 15
 *   high_min = max(321 / 2 = 160, 4 * 15 = 60) = 160
 *   high_max = max(65536 / 8 / 2 = 4096, 60) = 4096
 * With fraction 256 both are max(65536 / 256 / 2 = 128, 60) = 128.
 */
#define R_MANAGED  65536
#define R_BATCH	   15
#define R_HIGH_MIN 160
#define R_HIGH_MAX 4096

static struct mm_sim *sim_r_fraction(unsigned int fraction)
{
	static const unsigned int cpus[] = {2};
	struct mm_config cfg;

	cfg_machine(&cfg, 1, cpus, 1024);
	cfg.percpu_pagelist_high_fraction = fraction;
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, R_MANAGED, R_MANAGED);
	return sim_new(&cfg);
}

static struct mm_sim *sim_r(void)
{
	struct mm_sim *sim = sim_r_fraction(0);

	assert_sizing(sim, 0, ZONE_NORMAL, R_BATCH, R_HIGH_MIN, R_HIGH_MAX);
	return sim;
}

static long nr_free(const struct mm_sim *sim)
{
	return zinfo(sim, 0, ZONE_NORMAL).nr_free_exact;
}

/* ------------------------------------------------------------------------
 * 1. Sizing policies
 * ---------------------------------------------------------------------- */

START_TEST(test_zone_batchsize_table)
{
	static const struct {
		unsigned long managed;
		int batch;
	} t[] = {
		/* 1000 >> 10 = 0, / 4 = 0 -> 1; rounddown_pow2(1 + 0) - 1 = 0 */
		{1000, 0},
		/* 3840 >> 10 = 3, / 4 = 0 -> 1 -> 0 (the sample's DMA; printed as 1) */
		{3840, 0},
		/* 4096 >> 10 = 4, / 4 = 1; rounddown_pow2(1) - 1 = 0 */
		{4096, 0},
		/* 8192 >> 10 = 8, / 4 = 2; rounddown_pow2(2 + 1 = 3) - 1 = 1 */
		{8192, 1},
		/* 12288 >> 10 = 12, / 4 = 3; rounddown_pow2(3 + 1 = 4) - 1 = 3 */
		{12288, 3},
		/* 16384 >> 10 = 16, / 4 = 4; rounddown_pow2(4 + 2 = 6) - 1 = 3 */
		{16384, 3},
		/* 32768 >> 10 = 32, / 4 = 8; rounddown_pow2(8 + 4 = 12) - 1 = 7 */
		{32768, 7},
		/* 65536 >> 10 = 64, / 4 = 16; rounddown_pow2(16 + 8 = 24) - 1 = 15 */
		{65536, 15},
		/* 131072 >> 10 = 128, / 4 = 32; rounddown_pow2(32 + 16 = 48) - 1 = 31 */
		{131072, 31},
		/* 196608 >> 10 = 192, / 4 = 48; rounddown_pow2(48 + 24 = 72) - 1 = 63 */
		{196608, 63},
		/* 262144 >> 10 = 256 (= 1MB / 4KB), / 4 = 64; rounddown_pow2(96) - 1 = 63 */
		{262144, 63},
		/* 772808 >> 10 = 754, min(754, 256) = 256 -> 63 (the sample's DMA32) */
		{772808, 63},
		/* 4M pages >> 10 = 4096, capped at 256 -> 63 */
		{4UL << 20, 63},
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		ck_assert_msg(default_zone_batchsize(t[i].managed) == t[i].batch,
			      "zone_batchsize(%lu) = %d, want %d", t[i].managed,
			      default_zone_batchsize(t[i].managed), t[i].batch);
}
END_TEST

START_TEST(test_zone_highsize_table)
{
	static const struct {
		unsigned long total;
		int batch, cpus, high;
	} t[] = {
		/* the sample (2 CPUs): DMA low 82 / 2 = 41 > 4 * 1 */
		{82, 1, 2, 41},
		/* DMA 3840 / 8 = 480, / 2 = 240 */
		{480, 1, 2, 240},
		/* DMA32 low 16770 / 2 = 8385 > 252 */
		{16770, 63, 2, 8385},
		/* DMA32 772808 / 8 = 96601, / 2 = 48300 */
		{96601, 63, 2, 48300},
		/* Normal low 4266 / 2 = 2133; 196608 / 8 = 24576, / 2 = 12288 */
		{4266, 63, 2, 2133},
		{24576, 63, 2, 12288},
		/* 1286 / 1 = 1286; 1286 / 64 = 20 < 4 * 63 = 252 -> 252 */
		{1286, 63, 1, 1286},
		{1286, 63, 64, 252},
		/* 32768 / 64 = 512 > 252 */
		{32768, 63, 64, 512},
		/* 100 / 3 = 33 < 4 * 15 = 60 -> 60; 599 / 3 = 199 > 28 */
		{100, 15, 3, 60},
		{599, 7, 3, 199},
		/* nothing to split: the floor 4 * batch */
		{0, 1, 1, 4},
		/* 4M pages / 8 = 524288 on one CPU */
		{524288, 63, 1, 524288},
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		ck_assert_msg(default_zone_highsize(t[i].total, t[i].batch, t[i].cpus) == t[i].high,
			      "zone_highsize(total %lu, batch %d, %d cpus) = %d, want %d",
			      t[i].total, t[i].batch, t[i].cpus,
			      default_zone_highsize(t[i].total, t[i].batch, t[i].cpus), t[i].high);
}
END_TEST

/*
 * One node, one Normal zone of 262144 pages, min_free_kbytes 4096:
 *   min = 4096 >> 2 = 1024; gap = max(1024 >> 2 = 256, mult_frac(262144,
 *   10, 10000) = 26 * 10 + 2144 * 10 / 10000 = 262) = 262; low = 1286
 *   batch 63 (262144 >> 10 = 256, / 4 = 64, rounddown_pow2(96) - 1); floor 252
 *   fraction 0: high_min = max(1286 / n, 252), high_max = max(32768 / n, 252)
 *   fraction 8: both max(262144 / 8 / n, 252) = 32768 / n
 */
static const struct {
	unsigned int cpus;
	int high_min, high_max; /* fraction 0 */
	int high_f8;		/* fraction 8 */
} one_node[] = {
	{1, 1286, 32768, 32768},
	{2, 643, 16384, 16384}, /* 1286 / 2 = 643 */
	{4, 321, 8192, 8192},	/* 1286 / 4 = 321 */
	{64, 252, 512, 512},	/* 1286 / 64 = 20 -> 252; 32768 / 64 = 512 */
};

START_TEST(test_sizing_one_node)
{
	const unsigned int cpus[] = {one_node[_i].cpus};
	struct mm_config cfg;
	struct mm_sim *sim;

	cfg_machine(&cfg, 1, cpus, 4096);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 262144, 262144);
	sim = sim_new(&cfg);
	ck_assert_uint_eq(zinfo(sim, 0, ZONE_NORMAL).wmark[WMARK_LOW], 1286);
	assert_sizing(sim, 0, ZONE_NORMAL, 63, one_node[_i].high_min, one_node[_i].high_max);

	ck_assert_int_eq(mm_set_high_fraction(sim, 8), 0);
	assert_sizing(sim, 0, ZONE_NORMAL, 63, one_node[_i].high_f8, one_node[_i].high_f8);
	/* 1..7 are refused, and change nothing */
	ck_assert_int_eq(mm_set_high_fraction(sim, 7), -1);
	ck_assert_int_eq(mm_set_high_fraction(sim, 1), -1);
	assert_sizing(sim, 0, ZONE_NORMAL, 63, one_node[_i].high_f8, one_node[_i].high_f8);
	ck_assert_int_eq(mm_set_high_fraction(sim, 0), 0);
	assert_sizing(sim, 0, ZONE_NORMAL, 63, one_node[_i].high_min, one_node[_i].high_max);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);

	/* The fraction set in the config sizes the machine at boot. */
	cfg.percpu_pagelist_high_fraction = 8;
	sim = sim_new(&cfg);
	assert_sizing(sim, 0, ZONE_NORMAL, 63, one_node[_i].high_f8, one_node[_i].high_f8);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * Two nodes, min_free_kbytes 2048 (pages_min 512), wsf 10:
 *   node 0 DMA32  32768 pages at 0, Normal 65536 at 32768; node 1 Normal
 *   131072 at 98304. lowmem = 32768 + 65536 + 131072 = 229376.
 *   DMA32: min = 512 * 32768 / 229376 = 73; gap = max(18, 3 * 10 + 2768 *
 *          10 / 10000 = 32) = 32; low 105; batch: 32 / 4 = 8 -> 12 -> 8 - 1 = 7,
 *          floor 28; managed / 8 = 4096
 *   N0 Normal: min = 512 * 65536 / 229376 = 146; gap = max(36, 65) = 65;
 *          low 211; batch 15, floor 60; managed / 8 = 8192
 *   N1 Normal: min = 512 * 131072 / 229376 = 292; gap = max(73, 13 * 10 +
 *          1072 * 10 / 10000 = 131) = 131; low 423; batch: 128 / 4 = 32 ->
 *          48 -> 32 - 1 = 31, floor 124; managed / 8 = 16384
 */
struct two_node_want {
	unsigned int cpus[2];
	unsigned int fraction;
	int dma32[2], n0[2], n1[2]; /* high_min, high_max */
};

static const struct two_node_want two_node[] = {
	/* 1 CPU each: the totals themselves */
	{{1, 1}, 0, {105, 4096}, {211, 8192}, {423, 16384}},
	{{1, 1}, 8, {4096, 4096}, {8192, 8192}, {16384, 16384}},
	/* 3 + 1: 105 / 3 = 35, 4096 / 3 = 1365; 211 / 3 = 70, 8192 / 3 = 2730 */
	{{3, 1}, 0, {35, 1365}, {70, 2730}, {423, 16384}},
	{{3, 1}, 8, {1365, 1365}, {2730, 2730}, {16384, 16384}},
	/*
	 * 64 + 0: node 1 has no CPUs and splits over all 64 online.
	 * 105 / 64 = 1 -> 28, 4096 / 64 = 64; 211 / 64 = 3 -> 60, 8192 / 64 =
	 * 128; 423 / 64 = 6 -> 124, 16384 / 64 = 256
	 */
	{{64, 0}, 0, {28, 64}, {60, 128}, {124, 256}},
	{{64, 0}, 8, {64, 64}, {128, 128}, {256, 256}},
};

static struct mm_sim *sim_two_nodes(const unsigned int cpus[2], unsigned int fraction)
{
	struct mm_config cfg;

	cfg_machine(&cfg, 2, cpus, 2048);
	cfg.percpu_pagelist_high_fraction = fraction;
	cfg_zone(&cfg, 0, ZONE_DMA32, 0, 32768, 32768);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 32768, 65536, 65536);
	cfg_zone(&cfg, 1, ZONE_NORMAL, 98304, 131072, 131072);
	return sim_new(&cfg);
}

static void assert_two_nodes(const struct mm_sim *sim, const int dma32[2], const int n0[2],
			     const int n1[2])
{
	assert_sizing(sim, 0, ZONE_DMA32, 7, dma32[0], dma32[1]);
	assert_sizing(sim, 0, ZONE_NORMAL, 15, n0[0], n0[1]);
	assert_sizing(sim, 1, ZONE_NORMAL, 31, n1[0], n1[1]);
}

START_TEST(test_sizing_two_nodes)
{
	const struct two_node_want *w = &two_node[_i];
	struct mm_sim *sim = sim_two_nodes(w->cpus, w->fraction);

	ck_assert_uint_eq(zinfo(sim, 0, ZONE_DMA32).wmark[WMARK_LOW], 105);
	ck_assert_uint_eq(zinfo(sim, 0, ZONE_NORMAL).wmark[WMARK_LOW], 211);
	ck_assert_uint_eq(zinfo(sim, 1, ZONE_NORMAL).wmark[WMARK_LOW], 423);
	assert_two_nodes(sim, w->dma32, w->n0, w->n1);
	/* the same machine through the sysctl: the other fraction, then back */
	ck_assert_int_eq(mm_set_high_fraction(sim, w->fraction ? 0 : 8), 0);
	const struct two_node_want *o = &two_node[_i ^ 1];
	assert_two_nodes(sim, o->dma32, o->n0, o->n1);
	ck_assert_int_eq(mm_set_high_fraction(sim, w->fraction), 0);
	assert_two_nodes(sim, w->dma32, w->n0, w->n1);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * 2 + 1 CPUs: DMA32 105 / 2 = 52, 4096 / 2 = 2048; N0 211 / 2 = 105,
 * 8192 / 2 = 4096; N1 on its one CPU 423 / 16384. When CPU 2 (node 1's
 * only one) goes offline, node 1 splits over the 2 online CPUs: 423 / 2 =
 * 211, 16384 / 2 = 8192; node 0 keeps its values. Online again: back.
 * Offlining CPU 1 instead: node 0 has 1 CPU: 105, 4096 and 211, 8192.
 */
START_TEST(test_sizing_hotplug)
{
	static const unsigned int cpus[2] = {2, 1};
	static const int d2[2] = {52, 2048}, n0_2[2] = {105, 4096}, n1_1[2] = {423, 16384};
	static const int n1_2[2] = {211, 8192}, d1[2] = {105, 4096}, n0_1[2] = {211, 8192};
	struct mm_sim *sim = sim_two_nodes(cpus, 0);

	assert_two_nodes(sim, d2, n0_2, n1_1);
	ck_assert_int_eq(mm_cpu_offline(sim, 2), 0);
	assert_two_nodes(sim, d2, n0_2, n1_2);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	ck_assert_int_eq(mm_cpu_online(sim, 2), 0);
	assert_two_nodes(sim, d2, n0_2, n1_1);
	ck_assert_int_eq(mm_cpu_offline(sim, 1), 0);
	assert_two_nodes(sim, d1, n0_1, n1_1);
	ck_assert_int_eq(mm_cpu_online(sim, 1), 0);
	assert_two_nodes(sim, d2, n0_2, n1_1);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/* ------------------------------------------------------------------------
 * 2. Refill and flush amounts
 * ---------------------------------------------------------------------- */

/* pcp->high starts at 0 on every CPU and moves into [high_min, high_max] on first use. */
START_TEST(test_high_starts_at_zero)
{
	struct mm_sim *sim = sim_r();
	struct blk b;

	assert_pcp(sim, 0, ZONE_NORMAL, 0, 0, 0);
	assert_pcp(sim, 0, ZONE_NORMAL, 1, 0, 0);
	/* an allocation: clamp(0, 160, 4096) = 160, + batch 15 = 175 */
	b = alloc_on(sim, 0, 0);
	assert_pcp(sim, 0, ZONE_NORMAL, 0, 14, 175);
	assert_pcp(sim, 0, ZONE_NORMAL, 1, 0, 0);
	/* a free on CPU 1: nr_pcp_high clamps 0 into [160, 4096] = 160 */
	free_on(sim, 1, &b);
	assert_pcp(sim, 0, ZONE_NORMAL, 1, 1, R_HIGH_MIN);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * The first order-0 allocation on a CPU: nr_pcp_alloc gives high =
 * min(160 + 15, 4096) = 175, max_nr_alloc = max(175 - 0 - 15, 15) = 160 >=
 * 15, so rmqueue_bulk takes 15 pages under one zone->lock and alloc_factor
 * becomes 1; one is handed out, 14 stay. The next 14 need no refill.
 */
START_TEST(test_refill_first_alloc)
{
	struct mm_sim *sim = sim_r();
	struct mm_stats st;

	st = sim_stats(sim);
	ck_assert_uint_eq(st.pcp_refills, 0);
	ck_assert_uint_eq(st.zone_lock_acquisitions, 0);
	alloc_on(sim, 0, 0);
	st = sim_stats(sim);
	ck_assert_uint_eq(st.pcp_refills, 1);
	ck_assert_uint_eq(st.pcp_pages_refilled, 15);
	ck_assert_uint_eq(st.zone_lock_acquisitions, 1);
	assert_pcp(sim, 0, ZONE_NORMAL, 0, 14, 175);
	/* NR_FREE_PAGES excludes the pcp pages */
	ck_assert_int_eq(nr_free(sim), R_MANAGED - 15);
	ck_assert_int_eq(zinfo(sim, 0, ZONE_NORMAL).nr_pcp_pages, 14);
	for (int i = 0; i < 14; i++)
		alloc_on(sim, 0, 0);
	st = sim_stats(sim);
	ck_assert_uint_eq(st.pcp_refills, 1);
	ck_assert_uint_eq(st.zone_lock_acquisitions, 1);
	assert_pcp(sim, 0, ZONE_NORMAL, 0, 0, 175);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * Refills without frees in between double (alloc_factor up to 5):
 *   refill k: batch' = 15 << f, high += batch', max = high - 0 - 15
 *   1: f 0 -> 15,  high 160 + 15 = 175,   max 160,  f -> 1
 *   2: f 1 -> 30,  high 175 + 30 = 205,   max 190,  f -> 2
 *   3: f 2 -> 60,  high 205 + 60 = 265,   max 250,  f -> 3
 *   4: f 3 -> 120, high 265 + 120 = 385,  max 370,  f -> 4
 *   5: f 4 -> 240, high 385 + 240 = 625,  max 610,  f -> 5
 *   6: f 5 -> 480, high 625 + 480 = 1105, max 1090, f stays 5
 *   7: f 5 -> 480, high 1105 + 480 = 1585
 * Then a free halves alloc_factor (5 >> 1 = 2): after a drain the next
 * refill is 15 << 2 = 60, high 1585 + 60 = 1645.
 */
START_TEST(test_refill_doubling)
{
	static const int want_pages[] = {15, 30, 60, 120, 240, 480, 480};
	static const int want_high[] = {175, 205, 265, 385, 625, 1105, 1585};
	struct mm_sim *sim = sim_r();
	unsigned long long refills = 0, pages = 0;
	unsigned int k = 0, allocs = 0;
	struct blk b = {0};

	while (k < ARRAY_SIZE(want_pages)) {
		b = alloc_on(sim, 0, 0);
		allocs++;
		struct mm_stats st = sim_stats(sim);
		if (st.pcp_refills == refills)
			continue;
		ck_assert_uint_eq(st.pcp_refills, refills + 1);
		ck_assert_msg(st.pcp_pages_refilled - pages == (unsigned long long)want_pages[k],
			      "refill %u took %llu pages, want %d", k + 1,
			      st.pcp_pages_refilled - pages, want_pages[k]);
		assert_pcp(sim, 0, ZONE_NORMAL, 0, want_pages[k] - 1, want_high[k]);
		refills = st.pcp_refills;
		pages = st.pcp_pages_refilled;
		k++;
	}
	/* 15 + 30 + 60 + 120 + 240 + 480 + 1 */
	ck_assert_uint_eq(allocs, 946);
	free_on(sim, 0, &b);
	assert_pcp(sim, 0, ZONE_NORMAL, 0, 480, 1585);
	mm_set_current_cpu(0);
	mm_drain_local_pages(sim);
	assert_pcp(sim, 0, ZONE_NORMAL, 0, 0, 1585);
	alloc_on(sim, 0, 0);
	struct mm_stats st = sim_stats(sim);
	ck_assert_uint_eq(st.pcp_refills, refills + 1);
	ck_assert_uint_eq(st.pcp_pages_refilled - pages, 60);
	assert_pcp(sim, 0, ZONE_NORMAL, 0, 59, 1645);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * Order > 0 refills max(batch >> order, 2) blocks, no alloc_factor:
 *   order 1: 15 >> 1 = 7 blocks = 14 pages, 12 left after one is taken
 *   order 2: 15 >> 2 = 3 blocks = 12 pages, 8 left
 *   order 3: 15 >> 3 = 1 -> 2 blocks = 16 pages, 8 left
 * high = min(clamp(0, 160, 4096) + 15, 4096) = 175 each time.
 */
START_TEST(test_refill_high_order)
{
	static const struct {
		unsigned int order;
		int pages, left;
	} t[] = {{1, 14, 12}, {2, 12, 8}, {3, 16, 8}};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct mm_sim *sim = sim_r();
		struct mm_stats st;

		alloc_on(sim, 1, t[i].order);
		st = sim_stats(sim);
		ck_assert_uint_eq(st.pcp_refills, 1);
		ck_assert_msg(st.pcp_pages_refilled == (unsigned long long)t[i].pages,
			      "order %u refilled %llu pages, want %d", t[i].order,
			      st.pcp_pages_refilled, t[i].pages);
		assert_pcp(sim, 0, ZONE_NORMAL, 1, t[i].left, 175);
		ck_assert_int_eq(nr_free(sim), R_MANAGED - t[i].pages);
		ck_assert_uint_eq(mm_check_full(sim), 0);
		mm_sim_destroy(sim);
	}
}
END_TEST

/*
 * A batch-1 zone (4096 pages: batch max(1, 0) = 1) caches no high-order
 * blocks: order 1 refills 1 block (batch 1 is not raised to 2).
 */
START_TEST(test_refill_batch_one)
{
	static const unsigned int cpus[] = {1};
	struct mm_config cfg;
	struct mm_sim *sim;
	struct mm_stats st;

	cfg_machine(&cfg, 1, cpus, 128);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 4096, 4096);
	sim = sim_new(&cfg);
	ck_assert_int_eq(zinfo(sim, 0, ZONE_NORMAL).pcp_batch, 1);
	alloc_on(sim, 0, 1);
	st = sim_stats(sim);
	ck_assert_uint_eq(st.pcp_pages_refilled, 2);
	ck_assert_int_eq(pcpinfo(sim, 0, ZONE_NORMAL, 0).count, 0);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/* n order-0 pages allocated on CPU 1, to be freed elsewhere. */
static struct blk *alloc_many(struct mm_sim *sim, int cpu, unsigned int order, int n)
{
	struct blk *b = calloc((size_t)n, sizeof(*b));

	ck_assert_ptr_nonnull(b);
	for (int i = 0; i < n; i++)
		b[i] = alloc_on(sim, cpu, order);
	return b;
}

/*
 * Frees on a fresh CPU 0 of pages allocated on CPU 1 (no allocation on
 * CPU 0, so free_count = frees so far):
 *   free 1: high clamp(0, 160, 4096) = 160
 *   free 160: count 160 >= 160: need_high = 160 + 15 = 175 > 160, so high
 *     175; flush clamp(160, 15, 160 - 15 = 145) = 145, count 15
 *   free 320: count 15 + 160 = 175 >= 175: need_high 320 + 15 = 335; flush
 *     clamp(320, 15, 175 - 15 = 160) = 160, count 15
 */
START_TEST(test_flush_auto_high)
{
	struct mm_sim *sim = sim_r();
	struct blk *b = alloc_many(sim, 1, 0, 320);
	struct mm_stats st0 = sim_stats(sim), st;
	long free0 = nr_free(sim);

	for (int i = 0; i < 159; i++)
		free_on(sim, 0, &b[i]);
	assert_pcp(sim, 0, ZONE_NORMAL, 0, 159, 160);
	st = sim_stats(sim);
	ck_assert_uint_eq(st.pcp_pages_flushed, st0.pcp_pages_flushed);
	ck_assert_int_eq(nr_free(sim), free0);

	free_on(sim, 0, &b[159]);
	assert_pcp(sim, 0, ZONE_NORMAL, 0, 15, 175);
	st = sim_stats(sim);
	ck_assert_uint_eq(st.pcp_pages_flushed - st0.pcp_pages_flushed, 145);
	ck_assert_uint_eq(st.pcp_drains_high - st0.pcp_drains_high, 1);
	ck_assert_uint_eq(st.pcp_bulk_frees - st0.pcp_bulk_frees, 1);
	ck_assert_int_eq(nr_free(sim), free0 + 145);

	for (int i = 160; i < 319; i++)
		free_on(sim, 0, &b[i]);
	assert_pcp(sim, 0, ZONE_NORMAL, 0, 174, 175);
	free_on(sim, 0, &b[319]);
	assert_pcp(sim, 0, ZONE_NORMAL, 0, 15, 335);
	st = sim_stats(sim);
	ck_assert_uint_eq(st.pcp_pages_flushed - st0.pcp_pages_flushed, 305);
	ck_assert_uint_eq(st.pcp_drains_high - st0.pcp_drains_high, 2);
	ck_assert_int_eq(nr_free(sim), free0 + 305);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	free(b);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * free_count counts frees since the last allocation up to batch <<
 * CONFIG_PCP_BATCH_SCALE_MAX (15 << 5 = 480) and no further, so the auto
 * high it raises (free_count + batch) stops at 495. 2000 frees on a fresh
 * CPU 0: free_count reaches 480 at the 480th and stays; high is 495 from
 * the first flush after it, each flush clamp(480, 15, 495 - 15) = 480.
 */
START_TEST(test_free_count_stops_at_its_cap)
{
	const int cap = R_BATCH << 5; /* CONFIG_PCP_BATCH_SCALE_MAX, written out */
	struct mm_sim *sim = sim_r();
	struct blk *b = alloc_many(sim, 1, 0, 2000);
	const struct per_cpu_pages *pcp =
		&sim->node_data[0]->node_zones[ZONE_NORMAL].per_cpu_pageset[0];

	for (int i = 0; i < 2000; i++) {
		free_on(sim, 0, &b[i]);
		ck_assert_msg(pcp->free_count == (i + 1 < cap ? i + 1 : cap),
			      "free %d: free_count %d, cap %d", i + 1, pcp->free_count, cap);
	}
	ck_assert_int_eq(pcpinfo(sim, 0, ZONE_NORMAL, 0).high, cap + R_BATCH);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	free(b);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * Fraction 256: high_min = high_max = 128, batch 15, so nr_pcp_high is the
 * fixed 128 and a flush is clamp(free_count, 15, 128 - 15 = 113). CPU 0 is
 * fresh; each allocation on it halves free_count.
 *   upper:  free 128 (free_count 128) -> flush 113, count 15
 *   middle: free 127 (fc 127), alloc 1 (fc 63, count 126), free 2 (count
 *           128, fc 65) -> flush 65, count 63
 *   lower:  free 127, alloc 4 (fc 63, 31, 15, 7; count 123), free 5 (count
 *           128, fc 12) -> flush 15, count 113
 */
START_TEST(test_flush_fixed_high)
{
	static const struct {
		int free1, allocs, free2, flushed, count;
	} t[] = {{128, 0, 0, 113, 15}, {127, 1, 2, 65, 63}, {127, 4, 5, 15, 113}};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct mm_sim *sim = sim_r_fraction(256);
		struct blk *b = alloc_many(sim, 1, 0, t[i].free1 + t[i].free2);
		struct mm_stats st0, st;
		int k = 0;

		assert_sizing(sim, 0, ZONE_NORMAL, R_BATCH, 128, 128);
		st0 = sim_stats(sim);
		for (int j = 0; j < t[i].free1; j++)
			free_on(sim, 0, &b[k++]);
		for (int j = 0; j < t[i].allocs; j++)
			alloc_on(sim, 0, 0);
		for (int j = 0; j < t[i].free2; j++)
			free_on(sim, 0, &b[k++]);
		st = sim_stats(sim);
		ck_assert_msg(st.pcp_pages_flushed - st0.pcp_pages_flushed ==
				      (unsigned long long)t[i].flushed,
			      "case %zu: flushed %llu, want %d", i,
			      st.pcp_pages_flushed - st0.pcp_pages_flushed, t[i].flushed);
		ck_assert_uint_eq(st.pcp_drains_high - st0.pcp_drains_high, 1);
		/* the allocations took from the list: no refill on CPU 0 */
		ck_assert_uint_eq(st.pcp_refills, st0.pcp_refills);
		assert_pcp(sim, 0, ZONE_NORMAL, 0, t[i].count, 128);
		ck_assert_uint_eq(mm_check_full(sim), 0);
		free(b);
		mm_sim_destroy(sim);
	}
}
END_TEST

/*
 * free_pcppages_bulk() empties one list before it moves to the next: it
 * leaves a list only when the count is met or the list is empty. Fraction
 * 256 (high 128, batch 15) on a fresh CPU 0: 5 order-1 frees (10 pages,
 * free_count 10, under batch so no free_high), then 118 order-0 frees
 * (the first clears PCPF_PREV_FREE_HIGH_ORDER): count 128, free_count 128,
 * flush clamp(128, 15, 113) = 113 from the order-0 list, which holds 118.
 * All 113 come from it: count 15 = 5 order-0 pages + the 5 order-1
 * blocks. A walk that left the list one page early would take an order-1
 * block instead of the last page: 114 freed, count 14.
 */
START_TEST(test_flush_bulk_stays_on_list)
{
	struct mm_sim *sim = sim_r_fraction(256);
	struct blk *b1 = alloc_many(sim, 1, 1, 5), *b0 = alloc_many(sim, 1, 0, 118);
	struct mm_stats st0 = sim_stats(sim), st;

	for (int i = 0; i < 5; i++)
		free_on(sim, 0, &b1[i]);
	assert_pcp(sim, 0, ZONE_NORMAL, 0, 10, 128);
	for (int i = 0; i < 117; i++)
		free_on(sim, 0, &b0[i]);
	assert_pcp(sim, 0, ZONE_NORMAL, 0, 127, 128);
	ck_assert_uint_eq(sim_stats(sim).pcp_pages_flushed, st0.pcp_pages_flushed);
	free_on(sim, 0, &b0[117]);
	st = sim_stats(sim);
	ck_assert_uint_eq(st.pcp_bulk_frees - st0.pcp_bulk_frees, 1);
	ck_assert_uint_eq(st.pcp_pages_flushed - st0.pcp_pages_flushed, 113);
	assert_pcp(sim, 0, ZONE_NORMAL, 0, 15, 128);
	/* a drain returns the 15 left: 128 flushed in all */
	mm_set_current_cpu(0);
	mm_drain_local_pages(sim);
	st = sim_stats(sim);
	ck_assert_uint_eq(st.pcp_pages_flushed - st0.pcp_pages_flushed, 128);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	free(b1);
	free(b0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * Consecutive order-1 frees on a fresh CPU 0 (free_count grows by 2):
 * free_high needs free_count >= batch 15 before the free and the previous
 * free high-order (no cache slice configured: PCPF_FREE_HIGH_BATCH clear).
 *   frees 1..8: free_count before 0..14: no flush, count 16
 *   free 9: free_count 16 >= 15: flush min(18, 15 << 5) = 18, count 0,
 *     high max(160 - 480, 160) = 160
 *   free 10: flush 2
 *   an order-0 free clears PCPF_PREV_FREE_HIGH_ORDER: count 1
 *   order-1 free: no free_high (previous was order 0), count 3
 *   order-1 free: free_high: flush min(5, 480) = 5, count 0
 */
START_TEST(test_flush_free_high)
{
	struct mm_sim *sim = sim_r();
	struct blk *b = alloc_many(sim, 1, 1, 12);
	struct blk z = alloc_on(sim, 1, 0);
	struct mm_stats st0 = sim_stats(sim), st;

	for (int i = 0; i < 8; i++)
		free_on(sim, 0, &b[i]);
	assert_pcp(sim, 0, ZONE_NORMAL, 0, 16, 160);
	ck_assert_uint_eq(sim_stats(sim).pcp_pages_flushed, st0.pcp_pages_flushed);
	free_on(sim, 0, &b[8]);
	assert_pcp(sim, 0, ZONE_NORMAL, 0, 0, 160);
	st = sim_stats(sim);
	ck_assert_uint_eq(st.pcp_pages_flushed - st0.pcp_pages_flushed, 18);
	free_on(sim, 0, &b[9]);
	assert_pcp(sim, 0, ZONE_NORMAL, 0, 0, 160);
	st = sim_stats(sim);
	ck_assert_uint_eq(st.pcp_pages_flushed - st0.pcp_pages_flushed, 20);

	free_on(sim, 0, &z);
	assert_pcp(sim, 0, ZONE_NORMAL, 0, 1, 160);
	free_on(sim, 0, &b[10]);
	assert_pcp(sim, 0, ZONE_NORMAL, 0, 3, 160);
	ck_assert_uint_eq(sim_stats(sim).pcp_pages_flushed - st0.pcp_pages_flushed, 20);
	free_on(sim, 0, &b[11]);
	assert_pcp(sim, 0, ZONE_NORMAL, 0, 0, 160);
	st = sim_stats(sim);
	ck_assert_uint_eq(st.pcp_pages_flushed - st0.pcp_pages_flushed, 25);
	ck_assert_uint_eq(st.pcp_drains_high - st0.pcp_drains_high, 3);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	free(b);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * A page allocated on CPU 1 and freed on CPU 0 goes to the head of CPU 0's
 * list (hot): CPU 0's next allocation gets it back, without a refill. CPU
 * 0 has its own refill of 15 (14 left) first; CPU 1's list does not move.
 */
START_TEST(test_free_other_cpu)
{
	struct mm_sim *sim = sim_r();
	struct blk b = alloc_on(sim, 1, 0), c;

	alloc_on(sim, 0, 0);
	assert_pcp(sim, 0, ZONE_NORMAL, 0, 14, 175);
	assert_pcp(sim, 0, ZONE_NORMAL, 1, 14, 175);
	free_on(sim, 0, &b);
	assert_pcp(sim, 0, ZONE_NORMAL, 0, 15, 175);
	assert_pcp(sim, 0, ZONE_NORMAL, 1, 14, 175);
	c = alloc_on(sim, 0, 0);
	ck_assert_int_eq(c.pfn, b.pfn);
	ck_assert_uint_eq(sim_stats(sim).pcp_refills, 2);
	assert_pcp(sim, 0, ZONE_NORMAL, 0, 14, 175);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * free_unref_page()'s types past the pcp ones (6.10): a page of a
 * HIGHATOMIC block is listed as movable, one of an isolated block goes
 * straight back to the buddy (51bb1a4093cc's class: never onto a pcp
 * list). The blocks are retyped by hand and no full check runs after.
 */
START_TEST(test_free_highatomic_and_isolated_blocks)
{
	struct mm_sim *sim = sim_r();
	struct blk b = alloc_on(sim, 0, 0), c = alloc_on(sim, 0, 0);
	uint8_t *flags = sim->pageblock_flags;
	size_t bb = (size_t)b.pfn >> sim->pageblock_order,
	       cb = (size_t)c.pfn >> sim->pageblock_order;
	int count = pcpinfo(sim, 0, ZONE_NORMAL, 0).count;

	flags[bb] = (uint8_t)((flags[bb] & ~PB_MIGRATETYPE_MASK) | MIGRATE_HIGHATOMIC);
	free_on(sim, 0, &b);
	ck_assert_int_eq(pcpinfo(sim, 0, ZONE_NORMAL, 0).count, count + 1);

	flags[cb] = (uint8_t)((flags[cb] & ~PB_MIGRATETYPE_MASK) | MIGRATE_ISOLATE);
	long free_before = nr_free(sim);
	free_on(sim, 0, &c);
	ck_assert_int_eq(pcpinfo(sim, 0, ZONE_NORMAL, 0).count, count + 1);
	ck_assert_int_eq(nr_free(sim), free_before); /* an isolated free page is not counted */
	mm_sim_destroy(sim);
}
END_TEST

/* ------------------------------------------------------------------------
 * 3. Drains
 * ---------------------------------------------------------------------- */

/*
 * CPU 1: 20 allocations (refill 15, then 30: 29 left after the 16th, 25
 * after the 20th) and 10 frees back (high 205, no flush): count 35. CPU 0:
 * one allocation, count 14. Offlining CPU 1 drains its 35 pages to the
 * buddy and resizes for 1 CPU: high_min max(321 / 1, 60) = 321, high_max
 * 65536 / 8 = 8192.
 */
START_TEST(test_drain_cpu_offline)
{
	struct mm_sim *sim = sim_r();
	struct blk *b = alloc_many(sim, 1, 0, 20);
	long free0;

	assert_pcp(sim, 0, ZONE_NORMAL, 1, 25, 205);
	for (int i = 0; i < 10; i++)
		free_on(sim, 1, &b[i]);
	assert_pcp(sim, 0, ZONE_NORMAL, 1, 35, 205);
	alloc_on(sim, 0, 0);
	assert_pcp(sim, 0, ZONE_NORMAL, 0, 14, 175);
	free0 = nr_free(sim);
	ck_assert_int_eq(zinfo(sim, 0, ZONE_NORMAL).nr_pcp_pages, 49);

	ck_assert_int_eq(mm_cpu_offline(sim, 1), 0);
	ck_assert_int_eq(pcpinfo(sim, 0, ZONE_NORMAL, 1).count, 0);
	ck_assert_int_eq(pcpinfo(sim, 0, ZONE_NORMAL, 0).count, 14);
	ck_assert_int_eq(zinfo(sim, 0, ZONE_NORMAL).nr_pcp_pages, 14);
	ck_assert_int_eq(nr_free(sim), free0 + 35);
	ck_assert_uint_eq(sim_stats(sim).pcp_pages_drained_offline, 35);
	assert_sizing(sim, 0, ZONE_NORMAL, R_BATCH, 321, 8192);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	/* the last CPU stays */
	ck_assert_int_eq(mm_cpu_offline(sim, 0), -1);

	ck_assert_int_eq(mm_cpu_online(sim, 1), 0);
	assert_sizing(sim, 0, ZONE_NORMAL, R_BATCH, R_HIGH_MIN, R_HIGH_MAX);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	free(b);
	mm_sim_destroy(sim);
}
END_TEST

START_TEST(test_drain_local_all)
{
	struct mm_sim *sim = sim_r();
	struct blk a = alloc_on(sim, 0, 0), b = alloc_on(sim, 1, 0);
	const unsigned long want[MM_NR_PAGE_ORDERS] = {[10] = R_MANAGED >> 10};

	assert_pcp(sim, 0, ZONE_NORMAL, 0, 14, 175);
	assert_pcp(sim, 0, ZONE_NORMAL, 1, 14, 175);
	/* drain_local_pages: the calling CPU's lists only */
	mm_set_current_cpu(0);
	mm_drain_local_pages(sim);
	ck_assert_int_eq(pcpinfo(sim, 0, ZONE_NORMAL, 0).count, 0);
	ck_assert_int_eq(pcpinfo(sim, 0, ZONE_NORMAL, 1).count, 14);
	ck_assert_int_eq(nr_free(sim), R_MANAGED - 2 - 14);
	/* drain_all_pages: every CPU */
	mm_drain_all_pages(sim);
	ck_assert_int_eq(pcpinfo(sim, 0, ZONE_NORMAL, 1).count, 0);
	ck_assert_int_eq(zinfo(sim, 0, ZONE_NORMAL).nr_pcp_pages, 0);
	ck_assert_int_eq(nr_free(sim), R_MANAGED - 2);
	ck_assert_uint_eq(sim_stats(sim).pcp_drain_all, 1);
	/* everything back: the buddy merges the zone whole again */
	free_on(sim, 0, &a);
	free_on(sim, 1, &b);
	ck_assert_int_eq(zinfo(sim, 0, ZONE_NORMAL).nr_pcp_pages, 2);
	mm_drain_all_pages(sim);
	ck_assert_int_eq(nr_free(sim), R_MANAGED);
	assert_nr_free(sim, 0, ZONE_NORMAL, want, MM_NR_PAGE_ORDERS);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * zone_pcp_disable: high_min = high_max = 0 and batch 1 on every CPU, then a
 * forced drain. A free then flushes at once (count 1 >= high 0, high <
 * batch: 1 page); an allocation refills 1 page. The zone's own sizing is
 * kept and comes back on enable; an update while disabled (fraction 256:
 * 128 / 128) waits for the enable.
 */
START_TEST(test_pcp_disable)
{
	struct mm_sim *sim = sim_r();
	struct blk a = alloc_on(sim, 0, 0), b;
	struct mm_stats st0, st;

	alloc_on(sim, 0, 0);
	alloc_on(sim, 1, 0);
	ck_assert_int_eq(zinfo(sim, 0, ZONE_NORMAL).nr_pcp_pages, 13 + 14);
	mm_zone_pcp_disable(sim, 0, ZONE_NORMAL);
	for (int cpu = 0; cpu < 2; cpu++) {
		struct mm_pcp_info pi = pcpinfo(sim, 0, ZONE_NORMAL, cpu);
		ck_assert_msg(pi.count == 0 && pi.batch == 1 && pi.high_min == 0 &&
				      pi.high_max == 0,
			      "cpu %d disabled: count %d batch %d high_min %d high_max %d", cpu,
			      pi.count, pi.batch, pi.high_min, pi.high_max);
	}
	ck_assert_int_eq(zinfo(sim, 0, ZONE_NORMAL).pcp_batch, R_BATCH);
	ck_assert_int_eq(zinfo(sim, 0, ZONE_NORMAL).nr_pcp_pages, 0);
	ck_assert_int_eq(nr_free(sim), R_MANAGED - 3);

	free_on(sim, 0, &a);
	ck_assert_int_eq(pcpinfo(sim, 0, ZONE_NORMAL, 0).count, 0);
	ck_assert_int_eq(nr_free(sim), R_MANAGED - 2);
	st0 = sim_stats(sim);
	b = alloc_on(sim, 1, 0);
	st = sim_stats(sim);
	ck_assert_uint_eq(st.pcp_pages_refilled - st0.pcp_pages_refilled, 1);
	ck_assert_int_eq(pcpinfo(sim, 0, ZONE_NORMAL, 1).count, 0);
	ck_assert_uint_eq(mm_check_full(sim), 0);

	ck_assert_int_eq(mm_set_high_fraction(sim, 256), 0);
	ck_assert_int_eq(pcpinfo(sim, 0, ZONE_NORMAL, 0).high_max, 0);
	mm_zone_pcp_enable(sim, 0, ZONE_NORMAL);
	assert_sizing(sim, 0, ZONE_NORMAL, R_BATCH, 128, 128);
	ck_assert_int_eq(mm_set_high_fraction(sim, 0), 0);
	assert_sizing(sim, 0, ZONE_NORMAL, R_BATCH, R_HIGH_MIN, R_HIGH_MAX);
	/* lists work again: a free stays on the list */
	free_on(sim, 1, &b);
	ck_assert_int_eq(pcpinfo(sim, 0, ZONE_NORMAL, 1).count, 1);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/* Disable then enable, untouched in between: exactly the sizing before. */
START_TEST(test_pcp_enable_restores)
{
	struct mm_sim *sim = sim_two_nodes(two_node[2].cpus, 0);

	mm_zone_pcp_disable(sim, 1, ZONE_NORMAL);
	assert_sizing(sim, 0, ZONE_NORMAL, 15, 70, 2730);
	ck_assert_int_eq(pcpinfo(sim, 1, ZONE_NORMAL, 3).batch, 1);
	mm_zone_pcp_enable(sim, 1, ZONE_NORMAL);
	assert_two_nodes(sim, two_node[2].dma32, two_node[2].n0, two_node[2].n1);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/* ------------------------------------------------------------------------
 * 4. Deferred struct page init
 * ---------------------------------------------------------------------- */

/*
 * Machine D: 1 node, 2 CPUs, DMA32 4096 pages at 0, Normal 262144 at 4096,
 * min_free_kbytes 0 (the default formula), wsf 10; deferred_init_pages
 * 1000 rounds up to 1024 (two pageblocks of 512) of Normal at boot.
 *
 * Boot: lowmem = 4096 + 1024 = 5120 pages = 20480 kB; int_sqrt(16 *
 * 20480 = 327680) = 572 (572^2 = 327184, 573^2 = 328329); pages_min 143.
 *   DMA32: min 143 * 4096 / 5120 = 114, gap max(28, 4) = 28, low 142;
 *          batch max(1, 0) = 1; high_min max(142 / 2, 4) = 71, high_max
 *          4096 / 8 / 2 = 256
 *   Normal: min 143 * 1024 / 5120 = 28, gap max(7, 1) = 7, low 35; batch
 *          (1024 >> 10) / 4 = 0 -> 1 -> 0, max(1, 0) = 1; high_min 35 / 2
 *          = 17, high_max 1024 / 16 = 64
 * Full: lowmem = 266240 pages = 1064960 kB; int_sqrt(17039360) = 4127
 * (4127^2 = 17032129, 4128^2 = 17040384); pages_min 1031.
 *   DMA32: min 1031 * 4096 / 266240 = 15, gap max(3, 4) = 4, low 19;
 *          high_min max(19 / 2 = 9, 4) = 9, high_max 256
 *   Normal: min 1031 * 262144 / 266240 = 1015, gap max(253, 262) = 262,
 *          low 1277; batch 63; high_min max(1277 / 2 = 638, 252) = 638,
 *          high_max 262144 / 16 = 16384
 */
static void cfg_deferred(struct mm_config *cfg, uint64_t deferred_init_pages)
{
	static const unsigned int cpus[] = {2};

	cfg_machine(cfg, 1, cpus, 0);
	cfg_zone(cfg, 0, ZONE_DMA32, 0, 4096, 4096);
	cfg_zone(cfg, 0, ZONE_NORMAL, 4096, 262144, 262144);
	cfg->deferred_init_pages = deferred_init_pages;
}

static void assert_deferred_boot(const struct mm_sim *sim)
{
	ck_assert(mm_deferred_init_pending(sim));
	ck_assert_uint_eq(mm_sim_min_free_kbytes(sim), 572);
	ck_assert_uint_eq(zinfo(sim, 0, ZONE_NORMAL).managed, 1024);
	ck_assert_uint_eq(zinfo(sim, 0, ZONE_NORMAL).wmark[WMARK_LOW], 35);
	ck_assert_uint_eq(zinfo(sim, 0, ZONE_DMA32).wmark[WMARK_LOW], 142);
	assert_sizing(sim, 0, ZONE_DMA32, 1, 71, 256);
	assert_sizing(sim, 0, ZONE_NORMAL, 1, 17, 64);
}

/* Every zone's marks and sizing (zone and every CPU) equal the reference machine's. */
static void assert_same_sizing(const struct mm_sim *sim, const struct mm_sim *ref)
{
	struct mm_zone_info a, b;

	for (int n = 0; mm_zone_info(ref, n, ZONE_DMA, &b) == 0; n++) {
		for (int zt = 0; zt < MAX_NR_ZONES; zt++) {
			ck_assert_int_eq(mm_zone_info(ref, n, zt, &b), 0);
			ck_assert_int_eq(mm_zone_info(sim, n, zt, &a), 0);
			if (!b.present)
				continue;
			ck_assert_uint_eq(a.managed, b.managed);
			for (int w = 0; w < NR_WMARK; w++)
				ck_assert_uint_eq(a.wmark[w], b.wmark[w]);
			assert_sizing(sim, n, zt, b.pcp_batch, b.pcp_high_min, b.pcp_high_max);
		}
	}
}

START_TEST(test_deferred_complete_matches_full)
{
	struct mm_config cfg;
	struct mm_sim *sim, *full;

	cfg_deferred(&cfg, 0);
	full = sim_new(&cfg);
	ck_assert(!mm_deferred_init_pending(full));
	ck_assert_uint_eq(mm_sim_min_free_kbytes(full), 4127);
	ck_assert_uint_eq(zinfo(full, 0, ZONE_NORMAL).wmark[WMARK_LOW], 1277);
	assert_sizing(full, 0, ZONE_DMA32, 1, 9, 256);
	assert_sizing(full, 0, ZONE_NORMAL, 63, 638, 16384);

	cfg_deferred(&cfg, 1000);
	sim = sim_new(&cfg);
	assert_deferred_boot(sim);
	/* deferred pages are neither free nor managed yet */
	ck_assert_int_eq(zinfo(sim, 0, ZONE_NORMAL).nr_free_exact, 1024);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	ck_assert_uint_eq(mm_deferred_init_complete(sim), 262144 - 1024);
	ck_assert(!mm_deferred_init_pending(sim));
	ck_assert_uint_eq(mm_sim_min_free_kbytes(sim), 4127);
	assert_sizing(sim, 0, ZONE_DMA32, 1, 9, 256);
	assert_sizing(sim, 0, ZONE_NORMAL, 63, 638, 16384);
	assert_same_sizing(sim, full);
	ck_assert_int_eq(zinfo(sim, 0, ZONE_NORMAL).nr_free_exact, 262144);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	/* a second complete has nothing to do */
	ck_assert_uint_eq(mm_deferred_init_complete(sim), 0);
	mm_sim_destroy(sim);
	mm_sim_destroy(full);
}
END_TEST

/*
 * defer_init()'s boot part is whole pageblocks (512 pages on machine D):
 * deferred_init_pages rounds up to the next pageblock boundary, and a
 * boundary stays where it is. Boot managed of Normal, and the deferred rest
 * mm_deferred_init_complete() then brings up.
 */
START_TEST(test_deferred_keep_rounding)
{
	static const struct {
		uint64_t keep, managed;
	} t[] = {{1, 512}, {511, 512}, {512, 512}, {513, 1024}, {1023, 1024}, {1024, 1024}};
	struct mm_config cfg;

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct mm_sim *sim;

		cfg_deferred(&cfg, t[i].keep);
		sim = sim_new(&cfg);
		ck_assert(mm_deferred_init_pending(sim));
		ck_assert_msg(zinfo(sim, 0, ZONE_NORMAL).managed == t[i].managed,
			      "deferred_init_pages %llu: Normal boots with %llu managed, want %llu",
			      (unsigned long long)t[i].keep,
			      (unsigned long long)zinfo(sim, 0, ZONE_NORMAL).managed,
			      (unsigned long long)t[i].managed);
		ck_assert_uint_eq(zinfo(sim, 0, ZONE_DMA32).managed, 4096);
		ck_assert_uint_eq(mm_deferred_init_complete(sim), 262144 - t[i].managed);
		ck_assert_uint_eq(mm_check_full(sim), 0);
		mm_sim_destroy(sim);
	}
}
END_TEST

/*
 * defer_init() defers a node's highest populated zone, whichever it is:
 * on a node whose only zone is DMA (zone index 0), that one.
 */
START_TEST(test_deferred_dma_only_node)
{
	static const unsigned int cpus[] = {2};
	struct mm_config cfg;
	struct mm_sim *sim;

	cfg_machine(&cfg, 1, cpus, 0);
	cfg_zone(&cfg, 0, ZONE_DMA, 0, 4096, 4096);
	cfg.deferred_init_pages = 1024;
	sim = sim_new(&cfg);
	ck_assert(mm_deferred_init_pending(sim));
	ck_assert_uint_eq(zinfo(sim, 0, ZONE_DMA).managed, 1024);
	ck_assert_uint_eq(mm_deferred_init_complete(sim), 3072);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * The bench shape: 2 nodes x 64 CPUs. Node 0: DMA32 65536 pages at
 * 0, Normal 196608 at 65536; node 1: Normal 262144 at 262144. 2048 pages
 * per node at boot: each Normal zone's batch is (2048 >> 10) / 4 = 0 -> 1
 * -> 0, max(1, 0) = 1; born whole it is 63 (196608 >> 10 = 192 / 4 = 48 ->
 * 72 -> 64 - 1; 262144 -> 63).
 */
START_TEST(test_deferred_two_nodes)
{
	static const unsigned int cpus[] = {64, 64};
	struct mm_config cfg;
	struct mm_sim *sim, *full;

	cfg_machine(&cfg, 2, cpus, 0);
	cfg_zone(&cfg, 0, ZONE_DMA32, 0, 65536, 65536);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 65536, 196608, 196608);
	cfg_zone(&cfg, 1, ZONE_NORMAL, 262144, 262144, 262144);
	full = sim_new(&cfg);
	ck_assert_int_eq(zinfo(full, 0, ZONE_NORMAL).pcp_batch, 63);
	ck_assert_int_eq(zinfo(full, 1, ZONE_NORMAL).pcp_batch, 63);

	cfg.deferred_init_pages = 2048;
	sim = sim_new(&cfg);
	ck_assert_uint_eq(zinfo(sim, 0, ZONE_NORMAL).managed, 2048);
	ck_assert_uint_eq(zinfo(sim, 1, ZONE_NORMAL).managed, 2048);
	ck_assert_uint_eq(zinfo(sim, 0, ZONE_DMA32).managed, 65536);
	ck_assert_int_eq(zinfo(sim, 0, ZONE_NORMAL).pcp_batch, 1);
	ck_assert_int_eq(zinfo(sim, 1, ZONE_NORMAL).pcp_batch, 1);
	/* a step on each node, allocations meanwhile */
	ck_assert_uint_eq(mm_deferred_init_step(sim, 1, 4), 2048);
	alloc_on(sim, 70, 0);
	ck_assert_uint_eq(mm_deferred_init_complete(sim), (196608 - 2048) + (262144 - 4096));
	assert_same_sizing(sim, full);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
	mm_sim_destroy(full);
}
END_TEST

/*
 * Steps: 2 pageblocks = 1024 pages each time managed (and free) grow by
 * what the step returns; sizing stays at the boot values until complete.
 */
START_TEST(test_deferred_step)
{
	struct mm_config cfg;
	struct mm_sim *sim;

	cfg_deferred(&cfg, 1000);
	sim = sim_new(&cfg);
	assert_deferred_boot(sim);
	ck_assert_uint_eq(mm_deferred_init_step(sim, 0, 2), 1024);
	ck_assert_uint_eq(zinfo(sim, 0, ZONE_NORMAL).managed, 2048);
	ck_assert_int_eq(zinfo(sim, 0, ZONE_NORMAL).nr_free_exact, 2048);
	ck_assert_uint_eq(mm_deferred_init_step(sim, 0, 3), 1536);
	ck_assert_uint_eq(zinfo(sim, 0, ZONE_NORMAL).managed, 3584);
	assert_sizing(sim, 0, ZONE_NORMAL, 1, 17, 64);
	/* no such node */
	ck_assert_uint_eq(mm_deferred_init_step(sim, 1, 1), 0);
	ck_assert_uint_eq(mm_deferred_init_step(sim, -1, 1), 0);
	/* the rest, capped at the zone's managed end: 262144 - 3584 */
	ck_assert_uint_eq(mm_deferred_init_step(sim, 0, 1000), 258560);
	ck_assert_uint_eq(zinfo(sim, 0, ZONE_NORMAL).managed, 262144);
	ck_assert_uint_eq(mm_deferred_init_step(sim, 0, 1), 0);
	ck_assert(mm_deferred_init_pending(sim));
	ck_assert_uint_eq(mm_check_full(sim), 0);
	/* nothing left to initialise, but page_alloc_init_late still resizes */
	ck_assert_uint_eq(mm_deferred_init_complete(sim), 0);
	assert_sizing(sim, 0, ZONE_DMA32, 1, 9, 256);
	assert_sizing(sim, 0, ZONE_NORMAL, 63, 638, 16384);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * pcp-no-recalc-after-deferred-init (seed 000): the watermarks are redone
 * (Normal low 1277) but the sizing stays at the boot values, and the full
 * check says so.
 */
START_TEST(test_variant_no_recalc)
{
	struct mm_config cfg;
	struct mm_sim *sim;
	struct vrec rec;

	cfg_deferred(&cfg, 1000);
	sim = sim_new_variant(&cfg, "pcp-no-recalc-after-deferred-init");
	vrec_init(&rec);
	mm_sim_set_violation_handler(sim, vrec_handler, &rec);
	assert_deferred_boot(sim);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	ck_assert_uint_eq(mm_deferred_init_complete(sim), 262144 - 1024);
	ck_assert_uint_eq(zinfo(sim, 0, ZONE_NORMAL).wmark[WMARK_LOW], 1277);
	assert_sizing(sim, 0, ZONE_DMA32, 1, 71, 256);
	assert_sizing(sim, 0, ZONE_NORMAL, 1, 17, 64);
	ck_assert_uint_gt(mm_check_full(sim), 0);
	ck_assert_msg(vrec_has(&rec, "INV-PCP-SIZING"), "%u violations, first: %s", rec.n,
		      rec.first);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * pcp-high-equals-batch: high_min = high_max = batch 15 < 4 * 15. The
 * bug's cost, as the kernel's nr_pcp_free() gives it: at high == batch
 * the flush frees clamp(free_count, batch, high - batch) = 0 pages (only
 * high < batch, a disabled or boot pageset, frees one), so CPU 0's list
 * grows past high with every free and nothing goes back to the buddy.
 */
START_TEST(test_variant_high_equals_batch)
{
	static const unsigned int cpus[] = {2};
	struct mm_config cfg;
	struct mm_sim *sim;
	struct vrec rec;
	struct mm_stats st0;
	struct blk *b;

	cfg_machine(&cfg, 1, cpus, 1024);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, R_MANAGED, R_MANAGED);
	sim = sim_new_variant(&cfg, "pcp-high-equals-batch");
	vrec_init(&rec);
	mm_sim_set_violation_handler(sim, vrec_handler, &rec);
	assert_sizing(sim, 0, ZONE_NORMAL, R_BATCH, R_BATCH, R_BATCH);
	ck_assert_uint_gt(mm_check_full(sim), 0);
	ck_assert_msg(vrec_has(&rec, "INV-PCP-HIGH-FLOOR"), "%u violations, first: %s", rec.n,
		      rec.first);

	b = alloc_many(sim, 1, 0, 2 * R_BATCH);
	st0 = sim_stats(sim);
	for (int j = 0; j < 2 * R_BATCH; j++)
		free_on(sim, 0, &b[j]);
	ck_assert_uint_eq(sim_stats(sim).pcp_pages_flushed, st0.pcp_pages_flushed);
	ck_assert_int_eq(pcpinfo(sim, 0, ZONE_NORMAL, 0).count, 2 * R_BATCH);
	free(b);
	mm_sim_destroy(sim);
}
END_TEST

/* ------------------------------------------------------------------------
 * 5. Conservation with pcp pages
 * ---------------------------------------------------------------------- */

struct zref {
	int node;
	enum zone_type zt;
	uint64_t start, end;
	long managed, allocated;
};

static struct zref *zone_of(struct zref *z, int nz, long long pfn)
{
	for (int i = 0; i < nz; i++)
		if ((uint64_t)pfn >= z[i].start && (uint64_t)pfn < z[i].end)
			return &z[i];
	ck_abort_msg("pfn %lld is in no zone", pfn);
	return NULL;
}

static void assert_conservation(const struct mm_sim *sim, const struct zref *z, int nz, int step)
{
	for (int i = 0; i < nz; i++) {
		struct mm_zone_info zi = zinfo(sim, z[i].node, z[i].zt);
		long pcp = 0;

		for (unsigned int cpu = 0; cpu < mm_nr_cpus(sim); cpu++)
			pcp += pcpinfo(sim, z[i].node, z[i].zt, (int)cpu).count;
		ck_assert_msg(pcp == zi.nr_pcp_pages,
			      "step %d node %d %s: CPUs' counts sum to %ld, zone says %ld", step,
			      z[i].node, mm_zone_name(z[i].zt), pcp, zi.nr_pcp_pages);
		ck_assert_msg(zi.nr_free_exact + zi.nr_pcp_pages + z[i].allocated == z[i].managed,
			      "step %d node %d %s: free %ld + pcp %ld + allocated %ld != managed "
			      "%ld",
			      step, z[i].node, mm_zone_name(z[i].zt), zi.nr_free_exact,
			      zi.nr_pcp_pages, z[i].allocated, z[i].managed);
	}
}

static int random_online_cpu(const struct mm_sim *sim, struct rng *r)
{
	for (;;) {
		int cpu = (int)rng_below(r, mm_nr_cpus(sim));
		if (mm_cpu_is_online(sim, cpu))
			return cpu;
	}
}

/*
 * Random allocations and frees across 4 CPUs of 2 nodes (frees mostly on
 * another CPU than the allocating one), drains and hotplug: after every
 * step NR_FREE_PAGES + pcp pages + allocated == managed in every zone, a
 * free of order <= 3 lands on the freeing CPU's list (its count grows by
 * the block, less what a flush returned, and no other CPU's count moves),
 * and the full check stays clean.
 */
START_TEST(test_conservation_busy)
{
	static const unsigned int cpus[] = {2, 2};
	static const unsigned int gfps[] = {
		MM_GFP_MOVABLE, 0, MM_GFP_RECLAIMABLE, MM_GFP_DMA32 | MM_GFP_MOVABLE, MM_GFP_KERNEL,
		MM_GFP_ATOMIC,
	};
	enum {
		STEPS = 6000
	};
	struct mm_config cfg;
	struct mm_sim *sim;
	struct rng r = {UINT64_C(0x5eed0000) + (uint64_t)_i};
	struct zref z[3];
	struct blk *live = calloc(STEPS, sizeof(*live));
	int nlive = 0, nz = 0, other_cpu_frees = 0, flushes = 0;

	ck_assert_ptr_nonnull(live);
	cfg_machine(&cfg, 2, cpus, 0);
	/* DMA32 has reserved pages at its tail: managed < spanned */
	cfg.zones[0][ZONE_DMA32] = (struct mm_zone_config){0, 8192, 8192, 8000};
	cfg_zone(&cfg, 0, ZONE_NORMAL, 8192, 16384, 16384);
	cfg_zone(&cfg, 1, ZONE_NORMAL, 24576, 16384, 16000);
	sim = sim_new(&cfg);
	for (int n = 0; n < 2; n++) {
		for (int zt = 0; zt < MAX_NR_ZONES; zt++) {
			struct mm_zone_info zi = zinfo(sim, n, zt);
			if (!zi.present)
				continue;
			z[nz++] = (struct zref){
				n, zt, zi.start_pfn, zi.start_pfn + zi.spanned, (long)zi.managed,
				0};
		}
	}
	ck_assert_int_eq(nz, 3);

	for (int step = 0; step < STEPS; step++) {
		unsigned int op = rng_below(&r, 100);

		if (op < 50 || (op < 88 && !nlive)) {
			int cpu = random_online_cpu(sim, &r);
			unsigned int o = rng_below(&r, 10);
			struct blk b = {.owner = next_owner++, .cpu = cpu};

			b.order = o < 6 ? 0 : o < 9 ? 1 + rng_below(&r, 3) : 4 + rng_below(&r, 3);
			mm_set_current_cpu(cpu);
			b.pfn = mm_alloc_pages(sim, b.order, gfps[rng_below(&r, ARRAY_SIZE(gfps))],
					       (int)rng_below(&r, 3) - 1, b.owner, &b.gen);
			if (b.pfn >= 0) {
				zone_of(z, nz, b.pfn)->allocated += 1L << b.order;
				live[nlive++] = b;
			}
		} else if (op < 88) {
			unsigned int k = rng_below(&r, (unsigned int)nlive);
			struct blk b = live[k];
			struct zref *zr = zone_of(z, nz, b.pfn);
			int cpu = random_online_cpu(sim, &r);
			int before[4], after;
			unsigned long long flushed0 = sim_stats(sim).pcp_pages_flushed, flushed;

			for (int c = 0; c < 4; c++)
				before[c] = pcpinfo(sim, zr->node, zr->zt, c).count;
			free_on(sim, cpu, &b);
			other_cpu_frees += cpu != b.cpu && b.order <= 3;
			flushed = sim_stats(sim).pcp_pages_flushed - flushed0;
			flushes += flushed > 0;
			for (int c = 0; c < 4; c++) {
				after = pcpinfo(sim, zr->node, zr->zt, c).count;
				if (c != cpu || b.order > 3) {
					ck_assert_msg(after == before[c],
						      "step %d: an order-%u free on cpu %d moved "
						      "cpu %d's count %d -> %d",
						      step, b.order, cpu, c, before[c], after);
					continue;
				}
				ck_assert_msg((long long)after == (long long)before[c] +
									  (1LL << b.order) -
									  (long long)flushed,
					      "step %d: cpu %d count %d -> %d after an order-%u "
					      "free that flushed %llu",
					      step, cpu, before[c], after, b.order, flushed);
			}
			zr->allocated -= 1L << b.order;
			live[k] = live[--nlive];
		} else if (op < 92) {
			mm_set_current_cpu(random_online_cpu(sim, &r));
			mm_drain_local_pages(sim);
		} else if (op < 94) {
			mm_drain_all_pages(sim);
		} else if (op < 97) {
			int cpu = random_online_cpu(sim, &r);
			int want = mm_num_online_cpus(sim) > 1 ? 0 : -1;

			ck_assert_int_eq(mm_cpu_offline(sim, cpu), want);
			/* page_alloc_cpu_dead: the dead CPU's lists are empty */
			for (int i = 0; i < nz && !want; i++)
				ck_assert_int_eq(pcpinfo(sim, z[i].node, z[i].zt, cpu).count, 0);
		} else {
			int cpu = (int)rng_below(&r, 4);
			int want = mm_cpu_is_online(sim, cpu) ? -1 : 0;

			ck_assert_int_eq(mm_cpu_online(sim, cpu), want);
		}
		assert_conservation(sim, z, nz, step);
		if (step % 250 == 249)
			ck_assert_uint_eq(mm_check_full(sim), 0);
	}
	/* the run exercised what it is about */
	ck_assert_int_gt(other_cpu_frees, 100);
	ck_assert_int_gt(flushes, 0);

	for (int k = 0; k < nlive; k++) {
		zone_of(z, nz, live[k].pfn)->allocated -= 1L << live[k].order;
		free_on(sim, random_online_cpu(sim, &r), &live[k]);
	}
	assert_conservation(sim, z, nz, STEPS);
	mm_drain_all_pages(sim);
	for (int i = 0; i < nz; i++) {
		struct mm_zone_info zi = zinfo(sim, z[i].node, z[i].zt);
		ck_assert_int_eq(zi.nr_pcp_pages, 0);
		ck_assert_int_eq(zi.nr_free_exact, z[i].managed);
	}
	ck_assert_uint_eq(mm_check_full(sim), 0);
	ck_assert_uint_eq(mm_sim_violations(sim), 0);
	free(live);
	mm_sim_destroy(sim);
}
END_TEST

/* ------------------------------------------------------------------------
 * The suite
 * ---------------------------------------------------------------------- */

static Suite *pcp_suite(void)
{
	Suite *s = suite_create("pcp");
	TCase *tc = tcase_create("sizing");

	tcase_add_test(tc, test_zone_batchsize_table);
	tcase_add_test(tc, test_zone_highsize_table);
	tcase_add_loop_test(tc, test_sizing_one_node, 0, (int)ARRAY_SIZE(one_node));
	tcase_add_loop_test(tc, test_sizing_two_nodes, 0, (int)ARRAY_SIZE(two_node));
	tcase_add_test(tc, test_sizing_hotplug);
	suite_add_tcase(s, tc);

	tc = tcase_create("refill-flush");
	tcase_add_test(tc, test_high_starts_at_zero);
	tcase_add_test(tc, test_refill_first_alloc);
	tcase_add_test(tc, test_refill_doubling);
	tcase_add_test(tc, test_refill_high_order);
	tcase_add_test(tc, test_refill_batch_one);
	tcase_add_test(tc, test_flush_auto_high);
	tcase_add_test(tc, test_free_count_stops_at_its_cap);
	tcase_add_test(tc, test_flush_fixed_high);
	tcase_add_test(tc, test_flush_bulk_stays_on_list);
	tcase_add_test(tc, test_flush_free_high);
	tcase_add_test(tc, test_free_other_cpu);
	tcase_add_test(tc, test_free_highatomic_and_isolated_blocks);
	suite_add_tcase(s, tc);

	tc = tcase_create("drain");
	tcase_add_test(tc, test_drain_cpu_offline);
	tcase_add_test(tc, test_drain_local_all);
	tcase_add_test(tc, test_pcp_disable);
	tcase_add_test(tc, test_pcp_enable_restores);
	suite_add_tcase(s, tc);

	tc = tcase_create("deferred");
	tcase_add_test(tc, test_deferred_complete_matches_full);
	tcase_add_test(tc, test_deferred_keep_rounding);
	tcase_add_test(tc, test_deferred_dma_only_node);
	tcase_add_test(tc, test_deferred_two_nodes);
	tcase_add_test(tc, test_deferred_step);
	tcase_add_test(tc, test_variant_no_recalc);
	tcase_add_test(tc, test_variant_high_equals_batch);
	suite_add_tcase(s, tc);

	tc = tcase_create("conservation");
	tcase_add_loop_test(tc, test_conservation_busy, 0, 3);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(pcp_suite());
}
