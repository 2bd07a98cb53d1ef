/* SPDX-License-Identifier: MIT */
/*
 * test_watermark.c - min_free_kbytes, the per-zone watermarks, the
 * lowmem reserves and __zone_watermark_ok(), against values worked out by
 * hand from the kernel's formulas (kernel-semantics.md §2):
 *
 *   min_free_kbytes = clamp(int_sqrt(16 * lowmem_kB), 128, 262144)
 *   pages_min = min_free_kbytes >> 2;  tmp = pages_min * M / lowmem
 *   MIN = tmp (Movable: clamp(M / 1024, 32, 128))
 *   gap = max(tmp >> 2, mult_frac(M, wsf, 10000))
 *   LOW = MIN + gap, HIGH = LOW + gap, PROMO = HIGH + gap
 *   lowmem_reserve[j] of zone i = sum(M of zones i+1..j) / ratio[i],
 *   ratio DMA 256, DMA32 256, Normal 32
 */
#include "common.h"
#include "internal.h"

#include <limits.h>
#include <stdlib.h>

struct wm {
	unsigned long min, low, high, promo;
};

static void assert_wmarks(const struct mm_sim *sim, int node, enum zone_type zt, struct wm w)
{
	struct mm_zone_info zi = zinfo(sim, node, zt);

	ck_assert_msg(zi.wmark[WMARK_MIN] == w.min && zi.wmark[WMARK_LOW] == w.low &&
			      zi.wmark[WMARK_HIGH] == w.high && zi.wmark[WMARK_PROMO] == w.promo,
		      "node %d %s: marks %lu/%lu/%lu/%lu, want %lu/%lu/%lu/%lu", node,
		      mm_zone_name(zt), zi.wmark[WMARK_MIN], zi.wmark[WMARK_LOW],
		      zi.wmark[WMARK_HIGH], zi.wmark[WMARK_PROMO], w.min, w.low, w.high, w.promo);
}

static void assert_lowmem_reserve(const struct mm_sim *sim, enum zone_type zt,
				  const unsigned long want[MAX_NR_ZONES])
{
	struct mm_zone_info zi = zinfo(sim, 0, zt);

	for (int j = 0; j < MAX_NR_ZONES; j++)
		ck_assert_msg(zi.lowmem_reserve[j] == want[j],
			      "%s lowmem_reserve[%s] = %lu, want %lu", mm_zone_name(zt),
			      mm_zone_name(j), zi.lowmem_reserve[j], want[j]);
}

/* A machine of max_order 10, pageblock_order 9, 1 node, 2 CPUs. */
static void cfg_big(struct mm_config *cfg, unsigned int min_free_kbytes, unsigned int wsf)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->nr_nodes = 1;
	cfg->cpus_per_node[0] = 2;
	cfg->max_order = 10;
	cfg->pageblock_order = 9;
	cfg->min_free_kbytes = min_free_kbytes;
	cfg->watermark_scale_factor = wsf;
}

/* ------------------------------------------------------------------------
 * One Normal zone
 * ---------------------------------------------------------------------- */

static const struct {
	unsigned long managed;
	unsigned int min_free_kbytes, wsf; /* min_free_kbytes 0: the default */
	unsigned int want_kbytes;
	struct wm want;
} single[] = {
	/*
	 * 1024 pages = 4096 kB: int_sqrt(16 * 4096) = 256 kB, pages_min 64,
	 * tmp = 64 * 1024 / 1024 = 64. wsf 10: mult_frac(1024, 10, 10000)
	 * = 10240 / 10000 = 1 < 64 >> 2 = 16, gap 16. wsf 1000: 1024000 /
	 * 10000 = 102 > 16, gap 102.
	 */
	{1024, 0, 10, 256, {64, 80, 96, 112}},
	{1024, 0, 1000, 256, {64, 166, 268, 370}},
	/*
	 * 262144 pages = 1 GiB: int_sqrt(16 * 1048576) = 4096 kB, pages_min
	 * 1024 = tmp. wsf 10: 26 * 10 + 2144 * 10 / 10000 = 262 > 256, gap
	 * 262. wsf 1000: 26 * 1000 + 2144 * 1000 / 10000 = 26214.
	 */
	{262144, 0, 10, 4096, {1024, 1286, 1548, 1810}},
	{262144, 0, 1000, 4096, {1024, 27238, 53452, 79666}},
	/*
	 * 1048576 pages = 4 GiB: int_sqrt(16 * 4194304) = 8192 kB, pages_min
	 * 2048. wsf 10: 104 * 10 + 8576 * 10 / 10000 = 1048 > 512. wsf 1000:
	 * 104000 + 857 = 104857.
	 */
	{1048576, 0, 10, 8192, {2048, 3096, 4144, 5192}},
	{1048576, 0, 1000, 8192, {2048, 106905, 211762, 316619}},
	/* Explicit 1000 kB: pages_min 250, gap max(62, 262) = 262. */
	{262144, 1000, 10, 1000, {250, 512, 774, 1036}},
	/* Explicit 65536 kB: pages_min 16384, gap max(4096, 262) = 4096. */
	{262144, 65536, 10, 65536, {16384, 20480, 24576, 28672}},
	/* Explicit 100 kB: pages_min 25, gap max(25 >> 2 = 6, 1) = 6. */
	{1024, 100, 10, 100, {25, 31, 37, 43}},
};

START_TEST(test_single_zone_wmarks)
{
	const unsigned long none[MAX_NR_ZONES] = {0};
	struct mm_config cfg;
	struct mm_sim *sim;

	cfg_big(&cfg, single[_i].min_free_kbytes, single[_i].wsf);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, single[_i].managed, single[_i].managed);
	sim = sim_new(&cfg);
	ck_assert_uint_eq(mm_sim_min_free_kbytes(sim), single[_i].want_kbytes);
	assert_wmarks(sim, 0, ZONE_NORMAL, single[_i].want);
	/* Normal's ratio is 32 but no zone above it has pages. */
	assert_lowmem_reserve(sim, ZONE_NORMAL, none);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * An empty Movable zone: not lowmem, min = clamp(0 / 1024, 32, 128) = 32,
 * tmp = 0 and gap = max(0, 0) = 0, so 32/32/32/32, as /proc/zoneinfo
 * prints it. An empty DMA zone: tmp = 0 and no reserve.
 */
START_TEST(test_empty_zones)
{
	const unsigned long none[MAX_NR_ZONES] = {0};
	struct mm_config cfg;
	struct mm_sim *sim;

	cfg_big(&cfg, 0, 10);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 1024, 1024);
	sim = sim_new(&cfg);
	assert_wmarks(sim, 0, ZONE_MOVABLE, (struct wm){32, 32, 32, 32});
	assert_wmarks(sim, 0, ZONE_DMA, (struct wm){0, 0, 0, 0});
	assert_lowmem_reserve(sim, ZONE_DMA, none);
	mm_sim_destroy(sim);
}
END_TEST

/* ------------------------------------------------------------------------
 * Several zones: the proportional min and lowmem_reserve
 * ---------------------------------------------------------------------- */

/* DMA [0, 4096) with 4000 managed, DMA32 65536 pages, Normal 131072 pages. */
static void cfg_three_zones(struct mm_config *cfg)
{
	cfg_big(cfg, 0, 10);
	cfg_zone(cfg, 0, ZONE_DMA, 0, 4096, 4000);
	cfg_zone(cfg, 0, ZONE_DMA32, 4096, 65536, 65536);
	cfg_zone(cfg, 0, ZONE_NORMAL, 69632, 131072, 131072);
}

/*
 * lowmem = 4000 + 65536 + 131072 = 200608 pages = 802432 kB;
 * int_sqrt(16 * 802432 = 12838912) = 3583 (3583^2 = 12837889,
 * 3584^2 = 12845056); pages_min = 3583 >> 2 = 895.
 *   DMA:    tmp = 895 * 4000 / 200608 = 3580000 / 200608 = 17;
 *           gap = max(17 >> 2 = 4, 40000 / 10000 = 4) = 4
 *   DMA32:  tmp = 895 * 65536 / 200608 = 58654720 / 200608 = 292;
 *           gap = max(73, 6 * 10 + 5536 * 10 / 10000 = 65) = 73
 *   Normal: tmp = 895 * 131072 / 200608 = 117309440 / 200608 = 584;
 *           gap = max(146, 13 * 10 + 1072 * 10 / 10000 = 131) = 146
 */
START_TEST(test_three_zone_wmarks)
{
	struct mm_config cfg;
	struct mm_sim *sim;

	cfg_three_zones(&cfg);
	sim = sim_new(&cfg);
	ck_assert_uint_eq(mm_sim_min_free_kbytes(sim), 3583);
	assert_wmarks(sim, 0, ZONE_DMA, (struct wm){17, 21, 25, 29});
	assert_wmarks(sim, 0, ZONE_DMA32, (struct wm){292, 365, 438, 511});
	assert_wmarks(sim, 0, ZONE_NORMAL, (struct wm){584, 730, 876, 1022});
	mm_sim_destroy(sim);
}
END_TEST

/*
 * DMA (ratio 256):   [DMA32] = 65536 / 256 = 256,
 *                    [Normal] = (65536 + 131072) / 256 = 768, Movable and
 *                    Device add nothing: 768.
 * DMA32 (ratio 256): [Normal] = 131072 / 256 = 512, then 512.
 * Normal (ratio 32): [Movable] = 0 / 32 = 0.
 * A zone's own and lower entries stay 0.
 */
START_TEST(test_three_zone_lowmem_reserve)
{
	const unsigned long dma[MAX_NR_ZONES] = {0, 256, 768, 768, 768};
	const unsigned long dma32[MAX_NR_ZONES] = {0, 0, 512, 512, 512};
	const unsigned long normal[MAX_NR_ZONES] = {0};
	struct mm_config cfg;
	struct mm_sim *sim;

	cfg_three_zones(&cfg);
	sim = sim_new(&cfg);
	assert_lowmem_reserve(sim, ZONE_DMA, dma);
	assert_lowmem_reserve(sim, ZONE_DMA32, dma32);
	assert_lowmem_reserve(sim, ZONE_NORMAL, normal);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * Adding a Movable zone of 8192 pages changes neither min_free_kbytes nor
 * lowmem (Movable is in neither), so DMA/DMA32/Normal keep their marks.
 * Movable: tmp = 895 * 8192 / 200608 = 7331840 / 200608 = 36,
 * min = clamp(8192 / 1024 = 8, 32, 128) = 32,
 * gap = max(36 >> 2 = 9, 81920 / 10000 = 8) = 9.
 * Reserves: DMA [Movable] = (196608 + 8192) / 256 = 800,
 * DMA32 [Movable] = (131072 + 8192) / 256 = 544, Normal [Movable] =
 * 8192 / 32 = 256.
 */
START_TEST(test_four_zones_with_movable)
{
	const unsigned long dma[MAX_NR_ZONES] = {0, 256, 768, 800, 800};
	const unsigned long dma32[MAX_NR_ZONES] = {0, 0, 512, 544, 544};
	const unsigned long normal[MAX_NR_ZONES] = {0, 0, 0, 256, 256};
	struct mm_config cfg;
	struct mm_sim *sim;

	cfg_three_zones(&cfg);
	cfg_zone(&cfg, 0, ZONE_MOVABLE, 200704, 8192, 8192);
	sim = sim_new(&cfg);
	ck_assert_uint_eq(mm_sim_min_free_kbytes(sim), 3583);
	assert_wmarks(sim, 0, ZONE_DMA, (struct wm){17, 21, 25, 29});
	assert_wmarks(sim, 0, ZONE_DMA32, (struct wm){292, 365, 438, 511});
	assert_wmarks(sim, 0, ZONE_NORMAL, (struct wm){584, 730, 876, 1022});
	assert_wmarks(sim, 0, ZONE_MOVABLE, (struct wm){32, 41, 50, 59});
	assert_lowmem_reserve(sim, ZONE_DMA, dma);
	assert_lowmem_reserve(sim, ZONE_DMA32, dma32);
	assert_lowmem_reserve(sim, ZONE_NORMAL, normal);
	mm_sim_destroy(sim);
}
END_TEST

static const struct {
	unsigned long movable;
	struct wm want;
} movable[] = {
	/*
	 * Normal 262144 pages: min_free_kbytes 4096, pages_min 1024,
	 * lowmem 262144 (Normal only).
	 * 8192:   tmp = 1024 * 8192 / 262144 = 32; min = clamp(8, 32, 128)
	 *         = 32; gap = max(8, 81920 / 10000 = 8) = 8
	 * 65536:  tmp = 256; min = clamp(64) = 64; gap = max(64, 6 * 10 +
	 *         5536 * 10 / 10000 = 65) = 65
	 * 262144: tmp = 1024; min = clamp(256) = 128; gap = max(256, 262)
	 *         = 262
	 * 31744:  tmp = 124; min = clamp(31) = 32, the floor's edge; gap =
	 *         max(31, 31) = 31
	 */
	{8192, {32, 40, 48, 56}},
	{31744, {32, 63, 94, 125}},
	{65536, {64, 129, 194, 259}},
	{262144, {128, 390, 652, 914}},
};

START_TEST(test_movable_min_clamp)
{
	struct mm_config cfg;
	struct mm_sim *sim;

	cfg_big(&cfg, 0, 10);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 262144, 262144);
	cfg_zone(&cfg, 0, ZONE_MOVABLE, 262144, movable[_i].movable, movable[_i].movable);
	sim = sim_new(&cfg);
	ck_assert_uint_eq(mm_sim_min_free_kbytes(sim), 4096);
	assert_wmarks(sim, 0, ZONE_NORMAL, (struct wm){1024, 1286, 1548, 1810});
	assert_wmarks(sim, 0, ZONE_MOVABLE, movable[_i].want);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * Two nodes, Normal 65536 and 196608 pages: lowmem counts both, 262144
 * pages, so min_free_kbytes 4096 and pages_min 1024 are shared out:
 *   node 0: tmp = 1024 * 65536 / 262144 = 256, gap = max(64, 65) = 65
 *   node 1: tmp = 1024 * 196608 / 262144 = 768,
 *           gap = max(192, 19 * 10 + 6608 * 10 / 10000 = 196) = 196
 */
START_TEST(test_two_node_proportional_min)
{
	struct mm_config cfg;
	struct mm_sim *sim;

	cfg_big(&cfg, 0, 10);
	cfg.nr_nodes = 2;
	cfg.cpus_per_node[1] = 2;
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 65536, 65536);
	cfg_zone(&cfg, 1, ZONE_NORMAL, 65536, 196608, 196608);
	sim = sim_new(&cfg);
	ck_assert_uint_eq(mm_sim_min_free_kbytes(sim), 4096);
	assert_wmarks(sim, 0, ZONE_NORMAL, (struct wm){256, 321, 386, 451});
	assert_wmarks(sim, 1, ZONE_NORMAL, (struct wm){768, 964, 1160, 1356});
	mm_sim_destroy(sim);
}
END_TEST

/*
 * The sysctls recompute the marks: Normal 262144 pages (4096 kB,
 * pages_min 1024).
 *   wsf 1000:             gap = 26214: 1024/27238/53452/79666
 *   min_free_kbytes 8192: pages_min 2048, gap = max(512, 26214)
 *                         = 26214: 2048/28262/54476/80690
 *   wsf 0 and 3001:       outside 1..3000, refused: unchanged
 *   wsf 3000:             gap = 78643: 2048/80691/159334/237977
 *   wsf 1 and 10:         gap = max(512, 26 or 262) = 512: 2048/2560/3072/3584
 */
START_TEST(test_sysctl_recompute)
{
	struct mm_config cfg;
	struct mm_sim *sim;

	cfg_big(&cfg, 0, 10);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 262144, 262144);
	sim = sim_new(&cfg);
	mm_set_watermark_scale_factor(sim, 1000);
	assert_wmarks(sim, 0, ZONE_NORMAL, (struct wm){1024, 27238, 53452, 79666});
	mm_set_min_free_kbytes(sim, 8192);
	ck_assert_uint_eq(mm_sim_min_free_kbytes(sim), 8192);
	assert_wmarks(sim, 0, ZONE_NORMAL, (struct wm){2048, 28262, 54476, 80690});
	mm_set_watermark_scale_factor(sim, 0);
	mm_set_watermark_scale_factor(sim, 3001);
	assert_wmarks(sim, 0, ZONE_NORMAL, (struct wm){2048, 28262, 54476, 80690});
	/* the sysctl's range, 1..3000, takes both ends */
	mm_set_watermark_scale_factor(sim, 3000);
	assert_wmarks(sim, 0, ZONE_NORMAL, (struct wm){2048, 80691, 159334, 237977});
	mm_set_watermark_scale_factor(sim, 1);
	assert_wmarks(sim, 0, ZONE_NORMAL, (struct wm){2048, 2560, 3072, 3584});
	mm_set_watermark_scale_factor(sim, 10);
	assert_wmarks(sim, 0, ZONE_NORMAL, (struct wm){2048, 2560, 3072, 3584});
	mm_sim_destroy(sim);
}
END_TEST

/* ------------------------------------------------------------------------
 * calculate_min_free_kbytes() on machines too large to build
 * ---------------------------------------------------------------------- */

/* A sim with only the zone sizes filled in: enough for the formula. */
static struct mm_sim *fake_sim(unsigned int nr_nodes, const unsigned long managed[][MAX_NR_ZONES])
{
	struct mm_sim *sim = calloc(1, sizeof(*sim));
	struct pglist_data *pgdat = calloc(nr_nodes, sizeof(*pgdat));

	ck_assert_ptr_nonnull(sim);
	ck_assert_ptr_nonnull(pgdat);
	sim->nr_nodes = nr_nodes;
	sim->pgdat_buf = pgdat;
	for (unsigned int n = 0; n < nr_nodes; n++) {
		sim->node_data[n] = &pgdat[n];
		for (int zt = 0; zt < MAX_NR_ZONES; zt++) {
			pgdat[n].node_zones[zt].type = zt;
			pgdat[n].node_zones[zt].node = (int)n;
			atomic_long_set(&pgdat[n].node_zones[zt].managed_pages,
					(long)managed[n][zt]);
		}
	}
	return sim;
}

static void fake_sim_free(struct mm_sim *sim)
{
	free(sim->pgdat_buf);
	free(sim);
}

static const struct {
	unsigned long lowmem; /* Normal pages */
	unsigned int kbytes;
} mfk[] = {
	{1, 128},	     /* int_sqrt(16 * 4) = 8, raised to 128 */
	{255, 128},	     /* int_sqrt(16 * 1020 = 16320) = 127, raised to 128 */
	{256, 128},	     /* int_sqrt(16384) = 128 exactly */
	{4095, 511},	     /* int_sqrt(262080) = 511 (511^2 = 261121) */
	{4096, 512},	     /* 16 MB: int_sqrt(262144) = 512 */
	{32768, 1448},	     /* 128 MB: int_sqrt(2097152) = 1448 (1448^2 = 2096704) */
	{262144, 4096},	     /* 1 GB: int_sqrt(16777216) = 4096 */
	{4194304, 16384},    /* 16 GB: int_sqrt(268435456) = 16384 */
	{16777216, 32768},   /* 64 GB: int_sqrt(1073741824) = 32768 */
	{1UL << 30, 262144}, /* 4 TB: int_sqrt(2^36) = 2^18 = 262144, the cap itself */
	{1UL << 31, 262144}, /* 8 TB: int_sqrt(2^37) = 370727, capped at 262144 */
};

START_TEST(test_calculate_min_free_kbytes)
{
	unsigned long managed[1][MAX_NR_ZONES] = {{0}};
	struct mm_sim *sim;

	managed[0][ZONE_NORMAL] = mfk[_i].lowmem;
	sim = fake_sim(1, managed);
	ck_assert_uint_eq(calculate_min_free_kbytes(sim), mfk[_i].kbytes);
	fake_sim_free(sim);
}
END_TEST

/*
 * Lowmem is every zone up to Normal on every node; Movable is not in it.
 * 4096 (DMA) + 12288 (DMA32) on node 0 and 16384 (Normal) on node 1 make
 * 32768 pages: 1448 kB, whatever the 1000000 Movable pages.
 */
START_TEST(test_calculate_min_free_kbytes_zones_and_nodes)
{
	unsigned long managed[2][MAX_NR_ZONES] = {{0}};
	struct mm_sim *sim;

	managed[0][ZONE_DMA] = 4096;
	managed[0][ZONE_DMA32] = 12288;
	managed[0][ZONE_MOVABLE] = 1000000;
	managed[1][ZONE_NORMAL] = 16384;
	sim = fake_sim(2, managed);
	ck_assert_uint_eq(calculate_min_free_kbytes(sim), 1448);
	fake_sim_free(sim);
}
END_TEST

/* ------------------------------------------------------------------------
 * __zone_watermark_ok()
 * ---------------------------------------------------------------------- */

/* One Normal zone of 1024 pages: a free order-10 block on the MOVABLE list. */
static struct mm_sim *wmark_sim(struct zone **z)
{
	struct mm_config cfg;
	struct mm_sim *sim;

	cfg_big(&cfg, 0, 10);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 1024, 1024);
	sim = sim_new(&cfg);
	*z = &sim->node_data[0]->node_zones[ZONE_NORMAL];
	return sim;
}

/* free == floor fails, free == floor + 1 passes: the check is free > floor. */
static void assert_floor(const struct zone *z, unsigned int order, unsigned long mark, int hz,
			 unsigned int flags, long floor)
{
	ck_assert_msg(!__zone_watermark_ok(z, order, mark, hz, flags, floor),
		      "order %u mark %lu flags %#x: free %ld passed", order, mark, flags, floor);
	ck_assert_msg(__zone_watermark_ok(z, order, mark, hz, flags, floor + 1),
		      "order %u mark %lu flags %#x: free %ld failed", order, mark, flags,
		      floor + 1);
}

static const struct {
	unsigned int flags;
	unsigned long mark;
	long floor;
} floors[] = {
	{0, 100, 100},
	{ALLOC_WMARK_LOW, 100, 100},  /* the index bits change nothing: mark is given */
	{ALLOC_MIN_RESERVE, 100, 50}, /* 100 - 100/2 */
	{ALLOC_MIN_RESERVE | ALLOC_NON_BLOCK, 100, 38}, /* 50 - 50/4 = 50 - 12 */
	{ALLOC_NON_BLOCK, 100, 100},			/* NON_BLOCK alone: no discount */
	{ALLOC_HIGHATOMIC, 100, 100},
	{ALLOC_OOM, 100, 50},					    /* 100 - 100/2 */
	{ALLOC_OOM | ALLOC_MIN_RESERVE, 100, 25},		    /* 50, then 50 - 25 */
	{ALLOC_OOM | ALLOC_MIN_RESERVE | ALLOC_NON_BLOCK, 100, 19}, /* 50, 38, 38 - 19 */
	{ALLOC_MIN_RESERVE, 101, 51},			/* 101 - 50: rounds to keep more */
	{ALLOC_MIN_RESERVE | ALLOC_NON_BLOCK, 101, 39}, /* 51 - 12 */
	{ALLOC_OOM, 7, 4},				/* 7 - 3 */
	{ALLOC_MIN_RESERVE | ALLOC_NON_BLOCK, 3, 2},	/* 3 - 1 = 2, 2 - 0 = 2 */
	{0, 0, 0},					/* mark 0: one free page passes */
};

/*
 * zone_watermark_ok_safe() pays for the snapshot only when a drift mark is
 * set and the estimate is below it (free_pages < percpu_drift_mark). CPU
 * 0's diff holds 100 freed pages' loss the estimate does not see yet (the
 * exact count has it), so a mark of 950 passes on the estimate (1024) and
 * fails on the snapshot (924): at a drift mark equal to the estimate the
 * estimate decides, one above it the snapshot does, and no mark at all
 * leaves the estimate.
 */
START_TEST(test_safe_snapshot_only_below_drift_mark)
{
	static const struct {
		long above_estimate; /* the drift mark, from the estimate; LONG_MIN: none */
		bool ok;
	} rows[] = {{LONG_MIN, true}, {-1, true}, {0, true}, {1, false}, {100, false}};
	struct zone *z;
	struct mm_sim *sim = wmark_sim(&z);
	long estimate = zone_page_state(z, NR_FREE_PAGES);
	struct vrec vr;

	ck_assert_int_eq(estimate, 1024);
	sim->serial = true;
	sim_record(sim, &vr);
	z->per_cpu_zonestats[0].vm_stat_diff[NR_FREE_PAGES] = -100;
	z->vm_stat_exact[NR_FREE_PAGES] -= 100;
	z->percpu_drift_mark = rows[_i].above_estimate == LONG_MIN
				       ? 0
				       : (unsigned long)(estimate + rows[_i].above_estimate);
	ck_assert_int_eq(zone_watermark_ok_safe(z, 0, 950, ZONE_NORMAL), rows[_i].ok);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	z->per_cpu_zonestats[0].vm_stat_diff[NR_FREE_PAGES] = 0;
	z->vm_stat_exact[NR_FREE_PAGES] += 100;
	mm_sim_destroy(sim);
}
END_TEST

START_TEST(test_wmark_ok_reserve_floors)
{
	struct zone *z;
	struct mm_sim *sim = wmark_sim(&z);

	assert_floor(z, 0, floors[_i].mark, ZONE_NORMAL, floors[_i].flags, floors[_i].floor);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * 30 pages of highatomic reserve are unusable without ALLOC_RESERVES:
 * mark 100 then needs free - 30 > 100, floor 130. Any reserve flag
 * (HIGHATOMIC, NON_BLOCK, MIN_RESERVE, OOM) counts them again.
 */
START_TEST(test_wmark_ok_highatomic_reserve)
{
	struct zone *z;
	struct mm_sim *sim = wmark_sim(&z);

	z->nr_free_highatomic = 30; /* free highatomic pages: the 6.12+ term */
	assert_floor(z, 0, 100, ZONE_NORMAL, 0, 130);
	assert_floor(z, 0, 100, ZONE_NORMAL, ALLOC_WMARK_MIN, 130);
	assert_floor(z, 0, 100, ZONE_NORMAL, ALLOC_HIGHATOMIC, 100);
	assert_floor(z, 0, 100, ZONE_NORMAL, ALLOC_NON_BLOCK, 100);
	assert_floor(z, 0, 100, ZONE_NORMAL, ALLOC_MIN_RESERVE, 50);
	assert_floor(z, 0, 100, ZONE_NORMAL, ALLOC_OOM, 50);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * lowmem_reserve[highest_zoneidx] is added to the floor: 40 pages held
 * back from requests that could use Movable, none from Normal ones.
 * With a 30-page highatomic reserve too, mark 100, no flags:
 * free == 100 + 40 + 30 = 170 fails, 171 passes.
 */
START_TEST(test_wmark_ok_lowmem_reserve)
{
	struct zone *z;
	struct mm_sim *sim = wmark_sim(&z);

	z->lowmem_reserve[ZONE_MOVABLE] = 40;
	assert_floor(z, 0, 100, ZONE_MOVABLE, 0, 140);
	assert_floor(z, 0, 100, ZONE_NORMAL, 0, 100);
	assert_floor(z, 0, 100, ZONE_MOVABLE, ALLOC_MIN_RESERVE, 90); /* 50 + 40 */
	z->nr_free_highatomic = 30; /* free highatomic pages: the 6.12+ term */
	assert_floor(z, 0, 100, ZONE_MOVABLE, 0, 170);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * Order k first takes 2^k - 1 pages off free: mark 100 at order 2 needs
 * free - 3 > 100 (floor 103), at order 10 free - 1023 > 100 (floor
 * 1123); the zone has a free order-10 MOVABLE block, so the block test
 * passes.
 */
START_TEST(test_wmark_ok_order_unusable)
{
	struct zone *z;
	struct mm_sim *sim = wmark_sim(&z);

	assert_floor(z, 2, 100, ZONE_NORMAL, 0, 103);
	assert_floor(z, 10, 100, ZONE_NORMAL, 0, 1123);
	assert_floor(z, 2, 100, ZONE_NORMAL, ALLOC_MIN_RESERVE, 53); /* 50 + 3 */
	mm_sim_destroy(sim);
}
END_TEST

/*
 * Order > 0 also needs a free block of order >= k on a PCP-type list
 * (HIGHATOMIC counts with ALLOC_HIGHATOMIC or ALLOC_OOM). Zone [0, 8),
 * max_order 3, pageblock_order 2: after allocating 0@0 and 4@2 the free
 * blocks are 1@0 and 2@1, both MOVABLE. free_pages is passed as 1000 so
 * only the block test decides.
 */
START_TEST(test_wmark_ok_needs_free_block)
{
	struct mm_config cfg;
	struct mm_sim *sim;
	struct zone *z;
	uint32_t g0, g4;

	cfg_tiny(&cfg, 1, 3, 2);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 8, 8);
	sim = sim_new(&cfg);
	z = &sim->node_data[0]->node_zones[ZONE_NORMAL];
	ck_assert_int_eq(mm_alloc_pages(sim, 0, MM_GFP_KERNEL | MM_GFP_MOVABLE, -1, 0, &g0), 0);
	ck_assert_int_eq(mm_alloc_pages(sim, 2, MM_GFP_KERNEL | MM_GFP_MOVABLE, -1, 4, &g4), 4);

	ck_assert(__zone_watermark_ok(z, 1, 0, ZONE_NORMAL, 0, 1000));
	ck_assert(!__zone_watermark_ok(z, 2, 0, ZONE_NORMAL, 0, 1000));
	ck_assert(!__zone_watermark_ok(z, 3, 0, ZONE_NORMAL, ALLOC_OOM, 1000));

	/* Make P0 a highatomic block: its 1@0 and 2@1 move to the HIGHATOMIC lists. */
	zone_lock(z);
	__move_freepages_block(z, 0, MIGRATE_MOVABLE, MIGRATE_HIGHATOMIC);
	set_pageblock_migratetype(sim, 0, MIGRATE_HIGHATOMIC);
	zone_unlock(z);
	ck_assert_uint_eq(z->free_area[1].head[MIGRATE_HIGHATOMIC], 2);

	ck_assert(__zone_watermark_ok(z, 0, 0, ZONE_NORMAL, 0, 1000)); /* order 0: count only */
	ck_assert(!__zone_watermark_ok(z, 1, 0, ZONE_NORMAL, 0, 1000));
	ck_assert(!__zone_watermark_ok(z, 1, 0, ZONE_NORMAL, ALLOC_MIN_RESERVE | ALLOC_NON_BLOCK,
				       1000));
	ck_assert(__zone_watermark_ok(z, 1, 0, ZONE_NORMAL, ALLOC_HIGHATOMIC, 1000));
	ck_assert(__zone_watermark_ok(z, 1, 0, ZONE_NORMAL, ALLOC_OOM, 1000));
	ck_assert(!__zone_watermark_ok(z, 2, 0, ZONE_NORMAL, ALLOC_HIGHATOMIC, 1000));
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * The zones a watermark check refused are kept as bits of zone_id
 * (node * MAX_NR_ZONES + type) in 32-bit words: zone_id / 32 picks the
 * word. Only ids from 31 up tell a wrong divisor apart, so each row is a
 * machine of nodes with one zone each, the last one's id 31 or above. The
 * row's node is drained to its min mark (set by hand: 8) on the estimate
 * the check reads, with THISNODE order-0 allocations; the next one is refused at min, and under
 * wmark-ignore-min served anyway: INV-WMARK-REFUSED for that zone.
 */
static const struct {
	unsigned int nodes;
	enum zone_type zt;
	unsigned int gfp;
	unsigned int zone_id; /* of the last node's zone */
} refused_rows[] = {
	{7, ZONE_DMA32, MM_GFP_KERNEL | MM_GFP_DMA32 | MM_GFP_THISNODE, 31},
	{13, ZONE_NORMAL, MM_GFP_KERNEL | MM_GFP_THISNODE, 62},
};

struct first_where {
	unsigned int n;
	char id[40];
	int node, zone;
};

static void first_where_handler(const struct mm_violation *v, void *arg)
{
	struct first_where *f = arg;

	if (!f->n++) {
		snprintf(f->id, sizeof(f->id), "%s", v->id);
		f->node = v->node;
		f->zone = v->zone;
	}
}

START_TEST(test_refused_zone_id_high)
{
	unsigned int nodes = refused_rows[_i].nodes, node = nodes - 1;
	enum zone_type zt = refused_rows[_i].zt;
	struct first_where f = {0};
	struct mm_config cfg;
	struct mm_sim *sim;
	struct zone *z;
	uint32_t gen;

	cfg_tiny(&cfg, 1, 3, 2);
	cfg.nr_nodes = nodes;
	for (unsigned int n = 0; n < nodes; n++) {
		cfg.cpus_per_node[n] = 1;
		cfg_zone(&cfg, n, zt, 64 * n, 64, 64);
	}
	sim = sim_new_variant(&cfg, "wmark-ignore-min");
	for (unsigned int n = 0; n < nodes; n++)
		mm_zone_pcp_disable(sim, (int)n, zt);
	z = &sim->node_data[node]->node_zones[zt];
	ck_assert_uint_eq(z->zone_id, refused_rows[_i].zone_id);
	z->_watermark[WMARK_MIN] = 8;
	z->_watermark[WMARK_LOW] = 12;
	z->_watermark[WMARK_HIGH] = 16;
	/* every diff straight to the atomic: the estimate is the exact count */
	z->per_cpu_zonestats[node].stat_threshold = 0;
	z->per_cpu_zonestats[node].update_threshold[NR_FREE_PAGES] = 0;
	mm_sim_set_violation_handler(sim, first_where_handler, &f);
	mm_set_current_cpu((int)node);
	/* down to the min mark on the estimate, which the check reads */
	for (int i = 0; i < 64 && atomic_long_read(&z->vm_stat[NR_FREE_PAGES]) > 8; i++)
		ck_assert_int_ge(mm_alloc_pages(sim, 0, refused_rows[_i].gfp, (int)node, 1, &gen),
				 0);
	ck_assert_int_eq(atomic_long_read(&z->vm_stat[NR_FREE_PAGES]), 8);
	ck_assert_int_eq(z->vm_stat_exact[NR_FREE_PAGES], 8);
	ck_assert_msg(f.n == 0, "%s before the refusal", f.id);
	ck_assert_int_ge(mm_alloc_pages(sim, 0, refused_rows[_i].gfp, (int)node, 1, &gen), 0);
	ck_assert_msg(f.n >= 1, "the refused zone served with no report");
	ck_assert_str_eq(f.id, "INV-WMARK-REFUSED");
	ck_assert_int_eq(f.node, (int)node);
	ck_assert_int_eq(f.zone, zt);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * The same refusal for every zone id a machine can have: MM_MAX_NODES nodes
 * of one CPU, each with a DMA, DMA32, Normal and Movable zone (ZONE_DEVICE is
 * never populated), ids node * MAX_NR_ZONES + type, 0 to 318. Each zone in
 * turn, lowest type first on its node so that the ones below are at min
 * already and the drain takes from it alone, is drained to its min mark on
 * the estimate, and the next allocation, refused at min and served under
 * wmark-ignore-min, must report INV-WMARK-REFUSED for that zone and no
 * other. Any word or bit that mark_refused() and was_refused() do not
 * both compute as zone_id / 32 and zone_id % 32 loses some zone's bit
 * (a divisor of 31 or 33 moves ids 31, 32, 62-65, ...), or reads another's.
 */
static const unsigned int every_zone_gfp[ZONE_MOVABLE + 1] = {
	[ZONE_DMA] = MM_GFP_KERNEL | MM_GFP_DMA | MM_GFP_THISNODE,
	[ZONE_DMA32] = MM_GFP_KERNEL | MM_GFP_DMA32 | MM_GFP_THISNODE,
	[ZONE_NORMAL] = MM_GFP_KERNEL | MM_GFP_THISNODE,
	[ZONE_MOVABLE] = MM_GFP_HIGHUSER_MOVABLE | MM_GFP_THISNODE,
};

START_TEST(test_refused_every_zone_id)
{
	struct first_where f;
	struct mm_config cfg;
	struct mm_sim *sim;
	unsigned int zones = 0;
	uint32_t gen;

	cfg_tiny(&cfg, 1, 3, 2);
	cfg.nr_nodes = MM_MAX_NODES;
	for (unsigned int n = 0; n < MM_MAX_NODES; n++) {
		cfg.cpus_per_node[n] = 1;
		for (int zt = ZONE_DMA; zt <= ZONE_MOVABLE; zt++)
			cfg_zone(&cfg, n, (enum zone_type)zt, 64 * (n * 4 + (unsigned int)zt), 64,
				 64);
	}
	sim = sim_new_variant(&cfg, "wmark-ignore-min");
	mm_sim_set_violation_handler(sim, first_where_handler, &f);
	for (unsigned int n = 0; n < MM_MAX_NODES; n++) {
		mm_set_current_cpu((int)n);
		for (int zt = ZONE_DMA; zt <= ZONE_MOVABLE; zt++) {
			struct zone *z = &sim->node_data[n]->node_zones[zt];

			mm_zone_pcp_disable(sim, (int)n, (enum zone_type)zt);
			ck_assert_uint_eq(z->zone_id, n * MAX_NR_ZONES + (unsigned int)zt);
			z->_watermark[WMARK_MIN] = 8;
			z->_watermark[WMARK_LOW] = 12;
			z->_watermark[WMARK_HIGH] = 16;
			z->per_cpu_zonestats[n].stat_threshold = 0;
			z->per_cpu_zonestats[n].update_threshold[NR_FREE_PAGES] = 0;
			memset(&f, 0, sizeof(f));
			for (int i = 0; i < 64 && atomic_long_read(&z->vm_stat[NR_FREE_PAGES]) > 8;
			     i++)
				ck_assert_int_ge(
					mm_alloc_pages(sim, 0, every_zone_gfp[zt], (int)n, 1, &gen),
					0);
			ck_assert_int_eq(z->vm_stat_exact[NR_FREE_PAGES], 8);
			ck_assert_msg(f.n == 0, "node %u zone %d: %s before the refusal", n, zt,
				      f.id);
			ck_assert_int_ge(
				mm_alloc_pages(sim, 0, every_zone_gfp[zt], (int)n, 1, &gen), 0);
			ck_assert_int_eq(z->vm_stat_exact[NR_FREE_PAGES], 7);
			ck_assert_msg(
				f.n == 1 && !strcmp(f.id, "INV-WMARK-REFUSED") &&
					f.node == (int)n && f.zone == zt,
				"zone id %u (node %u zone %d): %u reports, first %s at node %d "
				"zone %d",
				z->zone_id, n, zt, f.n, f.id, f.node, f.zone);
			zones++;
		}
	}
	ck_assert_uint_eq(zones, MM_MAX_NODES * 4);
	mm_sim_destroy(sim);
}
END_TEST

static Suite *watermark_suite(void)
{
	Suite *s = suite_create("watermark");
	TCase *tc = tcase_create("setup");

	tcase_add_loop_test(tc, test_single_zone_wmarks, 0, (int)ARRAY_SIZE(single));
	tcase_add_test(tc, test_empty_zones);
	tcase_add_test(tc, test_three_zone_wmarks);
	tcase_add_test(tc, test_three_zone_lowmem_reserve);
	tcase_add_test(tc, test_four_zones_with_movable);
	tcase_add_loop_test(tc, test_movable_min_clamp, 0, (int)ARRAY_SIZE(movable));
	tcase_add_test(tc, test_two_node_proportional_min);
	tcase_add_test(tc, test_sysctl_recompute);
	suite_add_tcase(s, tc);

	tc = tcase_create("min_free_kbytes");
	tcase_add_loop_test(tc, test_calculate_min_free_kbytes, 0, (int)ARRAY_SIZE(mfk));
	tcase_add_test(tc, test_calculate_min_free_kbytes_zones_and_nodes);
	suite_add_tcase(s, tc);

	tc = tcase_create("zone_watermark_ok");
	tcase_add_loop_test(tc, test_wmark_ok_reserve_floors, 0, (int)ARRAY_SIZE(floors));
	tcase_add_test(tc, test_wmark_ok_highatomic_reserve);
	tcase_add_test(tc, test_wmark_ok_lowmem_reserve);
	tcase_add_test(tc, test_wmark_ok_order_unusable);
	tcase_add_test(tc, test_wmark_ok_needs_free_block);
	tcase_add_loop_test(tc, test_safe_snapshot_only_below_drift_mark, 0, 5);
	tcase_add_loop_test(tc, test_refused_zone_id_high, 0, (int)ARRAY_SIZE(refused_rows));
	tcase_add_test(tc, test_refused_every_zone_id);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(watermark_suite());
}
