/* SPDX-License-Identifier: MIT */
/*
 * test_decisions.c - decision tables: each rule the model implements as a
 * decision, over the full grid of its inputs, against the rule written out
 * here from the kernel source (mm/page_alloc.c, mm/compaction.c,
 * mm/vmscan.c, 6.3-6.10). The rule is stated in this file, never taken from
 * src/: a table row that disagrees names the inputs.
 */
#include "common.h"
#include "internal.h"

/* One node of nr_cpus CPUs, one Normal zone of pages pages (cfg_tiny's marks). */
static struct mm_sim *one_zone_sim(unsigned int nr_cpus, unsigned int max_order,
				   unsigned int pageblock_order, uint64_t pages)
{
	struct mm_config cfg;

	cfg_tiny(&cfg, nr_cpus, max_order, pageblock_order);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, pages, pages);
	return sim_new(&cfg);
}

/* ------------------------------------------------------------------------
 * gfp -> alloc flags (gfp_to_alloc_flags(), __gfp_pfmemalloc_flags())
 * ---------------------------------------------------------------------- */

/* The kernel's code, as it reads (6.3+), for the bits the model has. */
static unsigned int kernel_alloc_flags(unsigned int gfp, unsigned int order)
{
	unsigned int f = ALLOC_WMARK_MIN | ALLOC_CPUSET;

	if (gfp & MM_GFP_HIGH)
		f |= ALLOC_MIN_RESERVE;
	if (gfp & MM_GFP_KSWAPD_RECLAIM)
		f |= ALLOC_KSWAPD;
	if (!(gfp & MM_GFP_DIRECT_RECLAIM)) {
		if (!(gfp & MM_GFP_NOMEMALLOC)) {
			f |= ALLOC_NON_BLOCK;
			if (order > 0)
				f |= ALLOC_HIGHATOMIC;
		}
		if (f & ALLOC_MIN_RESERVE)
			f &= ~(unsigned int)ALLOC_CPUSET;
	}
	unsigned int reserve = 0;
	if (!(gfp & MM_GFP_NOMEMALLOC)) {
		if (gfp & MM_GFP_MEMALLOC)
			reserve = ALLOC_NO_WATERMARKS;
		else if (gfp & MM_GFP_OOM)
			reserve = ALLOC_OOM;
	}
	return reserve ? reserve | (f & ALLOC_KSWAPD) : f;
}

static const unsigned int reserve_bits[] = {MM_GFP_HIGH,	   MM_GFP_KSWAPD_RECLAIM,
					    MM_GFP_DIRECT_RECLAIM, MM_GFP_NOMEMALLOC,
					    MM_GFP_MEMALLOC,	   MM_GFP_OOM};
static const unsigned int zone_bits[] = {0,
					 MM_GFP_DMA,
					 MM_GFP_DMA32,
					 MM_GFP_MOVABLE,
					 MM_GFP_RECLAIMABLE,
					 MM_GFP_HIGHMEM | MM_GFP_MOVABLE,
					 MM_GFP_MOVABLE | MM_GFP_RECLAIMABLE};

static unsigned int grid_gfp(unsigned int row)
{
	unsigned int gfp = 0;

	for (unsigned int b = 0; b < ARRAY_SIZE(reserve_bits); b++)
		if (row & (1u << b))
			gfp |= reserve_bits[b];
	return gfp;
}

START_TEST(test_alloc_flags_table)
{
	for (unsigned int row = 0; row < 1u << ARRAY_SIZE(reserve_bits); row++)
		for (unsigned int order = 0; order <= 3; order++) {
			unsigned int gfp = grid_gfp(row);
			ck_assert_msg(_mm_oracle_alloc_flags(gfp, order) ==
					      kernel_alloc_flags(gfp, order),
				      "gfp %#x order %u: oracle %#x, kernel %#x", gfp, order,
				      _mm_oracle_alloc_flags(gfp, order),
				      kernel_alloc_flags(gfp, order));
		}
	/* gfp_zone() and gfp_migratetype() */
	static const int zone[] = {ZONE_NORMAL, ZONE_DMA,     ZONE_DMA32, ZONE_NORMAL,
				   ZONE_NORMAL, ZONE_MOVABLE, ZONE_NORMAL};
	static const int mt[] = {MIGRATE_UNMOVABLE, MIGRATE_UNMOVABLE,	 MIGRATE_UNMOVABLE,
				 MIGRATE_MOVABLE,   MIGRATE_RECLAIMABLE, MIGRATE_MOVABLE,
				 MIGRATE_MOVABLE};
	for (unsigned int i = 0; i < ARRAY_SIZE(zone_bits); i++) {
		ck_assert_int_eq(_mm_oracle_gfp_zone(zone_bits[i]), zone[i]);
		ck_assert_int_eq(_mm_oracle_gfp_migratetype(zone_bits[i]), mt[i]);
	}
}
END_TEST

/*
 * The allocator's own derivation over the same grid: every slow path runs
 * INV-ALLOC-FLAGS and INV-ALLOC-ZONE against the table checked above. The
 * min_free_kbytes of the machine puts every zone below low, so every
 * allocation takes the slow path.
 */
START_TEST(test_alloc_flags_model)
{
	struct mm_config cfg;
	struct vrec vr;

	cfg_tiny(&cfg, 2, 6, 5);
	cfg.min_free_kbytes = 65536;
	cfg.watermark_scale_factor = 10;
	cfg_zone(&cfg, 0, ZONE_DMA, 0, 256, 256);
	cfg_zone(&cfg, 0, ZONE_DMA32, 256, 256, 256);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 512, 256, 256);
	cfg_zone(&cfg, 0, ZONE_MOVABLE, 768, 256, 256);
	struct mm_sim *sim = sim_new(&cfg);
	sim->serial = true;
	sim_record(sim, &vr);
	mm_set_current_cpu(0);
	for (unsigned int row = 0; row < 1u << ARRAY_SIZE(reserve_bits); row++)
		for (unsigned int z = 0; z < ARRAY_SIZE(zone_bits); z++)
			for (unsigned int order = 0; order <= 1; order++) {
				unsigned int gfp = grid_gfp(row) | zone_bits[z];
				uint32_t gen;
				long long pfn = mm_alloc_pages(sim, order, gfp, 0, 1, &gen);
				if (pfn >= 0)
					mm_free_pages(sim, (uint64_t)pfn, order, 1, gen);
				ck_assert_msg(!vrec_has(&vr, "INV-ALLOC-FLAGS") &&
						      !vrec_has(&vr, "INV-ALLOC-ZONE"),
					      "gfp %#x order %u: %s", gfp, order, vr.first);
			}
	mm_sim_destroy(sim);
}
END_TEST

/* ------------------------------------------------------------------------
 * Fallback order and the steal decision (find_suitable_fallback())
 * ---------------------------------------------------------------------- */

/* fallbacks[] of mm/page_alloc.c, and can_steal_fallback() */
static const int kernel_fallbacks[3][2] = {
	[MIGRATE_UNMOVABLE] = {MIGRATE_RECLAIMABLE, MIGRATE_MOVABLE},
	[MIGRATE_MOVABLE] = {MIGRATE_RECLAIMABLE, MIGRATE_UNMOVABLE},
	[MIGRATE_RECLAIMABLE] = {MIGRATE_UNMOVABLE, MIGRATE_MOVABLE},
};

static bool kernel_can_steal(unsigned int order, unsigned int pageblock_order, int mt)
{
	return order >= pageblock_order || order >= pageblock_order / 2 ||
	       mt == MIGRATE_RECLAIMABLE || mt == MIGRATE_UNMOVABLE;
}

START_TEST(test_fallback_table)
{
	struct mm_sim *sim = one_zone_sim(1, 10, 9, 2048);
	struct zone *z = &sim->node_data[0]->node_zones[ZONE_NORMAL];

	for (unsigned int order = 0; order <= 10; order++) {
		struct free_area saved = z->free_area[order];
		for (int mt = 0; mt < MIGRATE_PCPTYPES; mt++)
			for (unsigned int lists = 0; lists < 8;
			     lists++) /* which types hold blocks */
				for (int only = 0; only < 2; only++) {
					for (int t = 0; t < MIGRATE_TYPES; t++)
						z->free_area[order].head[t] =
							(lists & (1u << t)) && t < MIGRATE_PCPTYPES
								? 1
								: PFN_NIL;
					z->free_area[order].nr_free = lists ? 1 : 0;
					bool steal = false, can = kernel_can_steal(order, 9, mt);
					int want = -1;
					for (int i = 0; i < 2 && want < 0; i++) {
						int f = kernel_fallbacks[mt][i];
						if ((lists & (1u << f)) && (!only || can))
							want = f;
					}
					int got =
						find_suitable_fallback(z, order, mt, only, &steal);
					ck_assert_msg(
						got == want,
						"order %u mt %d lists %#x only %d: %d, want %d",
						order, mt, lists, only, got, want);
					if (got >= 0)
						ck_assert_msg(
							steal == can,
							"order %u mt %d: can_steal %d, want %d",
							order, mt, steal, can);
				}
		z->free_area[order] = saved;
	}
	mm_sim_destroy(sim);
}
END_TEST

/* ------------------------------------------------------------------------
 * free_high (free_unref_page_commit(), 6.7+)
 * ---------------------------------------------------------------------- */

START_TEST(test_free_high_table)
{
	struct mm_config cfg;
	struct vrec vr;

	/* 1 CPU, 64 Ki pages of Normal: batch 15, far above the high mark */
	cfg_tiny(&cfg, 1, 10, 9);
	cfg.min_free_kbytes = 0; /* the kernel's default */
	cfg.watermark_scale_factor = 10;
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 65536, 65536);
	struct mm_sim *sim = sim_new(&cfg);
	struct zone *z = &sim->node_data[0]->node_zones[ZONE_NORMAL];
	struct per_cpu_pages *pcp = &z->per_cpu_pageset[0];

	sim_record(sim, &vr);
	mm_set_current_cpu(0);
	for (unsigned int order = 0; order <= 3; order++)
		for (int prev = 0; prev < 2; prev++)
			for (int fc = 13; fc <= 16; fc++) {
				uint32_t gen;
				long long pfn =
					mm_alloc_pages(sim, order, MM_GFP_KERNEL, 0, 1, &gen);
				ck_assert(pfn >= 0);
				/* the inputs, set after the allocation (which halves free_count) */
				pcp->flags = prev ? PCPF_PREV_FREE_HIGH_ORDER : 0;
				pcp->free_count = (short)fc;
				pcp->high = pcp->high_max = 30000;
				pcp->high_min = 1000;
				int before = pcp->count;
				/* the rule: order 1..3 after a high-order free, a batch freed */
				bool free_high =
					order >= 1 && order <= 3 && prev && fc >= pcp->batch;
				mm_free_pages(sim, (uint64_t)pfn, order, 1, gen);
				int want = before + (1 << order);
				if (free_high) {
					int n = pcp->batch << 5;
					want -= want < n ? want : n;
				}
				ck_assert_msg(
					pcp->count == want,
					"order %u prev %d free_count %d: count %d, want %d (%s)",
					order, prev, fc, pcp->count, want,
					free_high ? "free_high" : "kept");
				/* nr_pcp_high(): free_high lowers high by batch << 5, to high_min
				 */
				int want_high = free_high ? 30000 - (pcp->batch << 5) : 30000;
				ck_assert_int_eq(pcp->high, want_high < 1000 ? 1000 : want_high);
				ck_assert_int_eq(!!(pcp->flags & PCPF_PREV_FREE_HIGH_ORDER),
						 order >= 1 && order <= 3);
				mm_drain_local_pages(sim);
			}
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	mm_sim_destroy(sim);
}
END_TEST

/* ------------------------------------------------------------------------
 * Compaction deferral (defer_compaction() and friends)
 * ---------------------------------------------------------------------- */

START_TEST(test_defer_table)
{
	struct mm_sim *sim = one_zone_sim(1, 6, 5, 256);
	struct zone *z = &sim->node_data[0]->node_zones[ZONE_NORMAL];

	for (unsigned int shift = 0; shift <= COMPACT_MAX_DEFER_SHIFT; shift++)
		for (unsigned int considered = 0; considered <= (1u << shift); considered++)
			for (int failed = 0; failed <= 7; failed++)
				for (int order = 0; order <= 6; order++) {
					/* compaction_deferred() */
					z->compact_defer_shift = shift;
					z->compact_considered = considered;
					z->compact_order_failed = failed;
					bool deferred = compaction_deferred(z, order);
					bool want =
						order >= failed && considered + 1 < (1u << shift);
					ck_assert_msg(deferred == want,
						      "deferred(shift %u considered %u failed %d "
						      "order %d) = %d",
						      shift, considered, failed, order, deferred);
					unsigned int c = order < failed ? considered
							 : considered + 1 >= (1u << shift)
								 ? (1u << shift)
								 : considered + 1;
					ck_assert_uint_eq(z->compact_considered, c);

					/* compaction_restarting() */
					z->compact_considered = considered;
					ck_assert_int_eq(compaction_restarting(z, order),
							 order >= failed && shift == 6 &&
								 considered >= 64);

					/* defer_compaction() */
					defer_compaction(z, order);
					ck_assert_uint_eq(z->compact_considered, 0);
					ck_assert_uint_eq(z->compact_defer_shift,
							  shift < 6 ? shift + 1 : 6);
					ck_assert_int_eq(z->compact_order_failed,
							 order < failed ? order : failed);

					/* compaction_defer_reset() */
					for (int ok = 0; ok < 2; ok++) {
						z->compact_defer_shift = shift;
						z->compact_considered = considered;
						z->compact_order_failed = failed;
						compaction_defer_reset(z, order, ok);
						ck_assert_uint_eq(z->compact_considered,
								  ok ? 0 : considered);
						ck_assert_uint_eq(z->compact_defer_shift,
								  ok ? 0 : shift);
						ck_assert_int_eq(z->compact_order_failed,
								 order >= failed ? order + 1
										 : failed);
					}
				}
	mm_sim_destroy(sim);
}
END_TEST

/*
 * compaction_suitable(): order-0 free above (low for costly orders, else
 * min) + 2 << order, and for a costly order a fragmentation index outside
 * [0, 500]: 0 with no free block, -1000 with a block of the order free,
 * else 1000 - (1000 + free pages * 1000 / 2^order) / free blocks.
 */
static int kernel_fragindex(const unsigned long *nr_free, unsigned int order)
{
	unsigned long total = 0, pages = 0, suitable = 0;

	for (unsigned int o = 0; o <= 6; o++) {
		total += nr_free[o];
		pages += nr_free[o] << o;
		suitable += o >= order ? nr_free[o] << (o - order) : 0;
	}
	if (!total)
		return 0;
	if (suitable)
		return -1000;
	return (int)(1000 - (1000 + pages * 1000 / (1UL << order)) / total);
}

START_TEST(test_compaction_suitable_table)
{
	/* free block counts per order 0..6: none, all order 0, a few larger, one of order 5 */
	static const unsigned long shapes[][7] = {
		{0},
		{300, 0, 0, 0, 0, 0, 0},
		{4, 2, 60, 0, 0, 0, 0},
		{0, 0, 0, 10, 4, 0, 0},
		{8, 0, 0, 0, 0, 1, 0},
		{0, 2, 1, 0, 0, 0, 0}, /* order 4: (1000 + 8 * 1000 / 16) / 3 = 500, the edge */
	};
	struct mm_sim *sim = one_zone_sim(1, 6, 5, 256);
	struct zone *z = &sim->node_data[0]->node_zones[ZONE_NORMAL];
	struct free_area saved[7];

	memcpy(saved, z->free_area, sizeof(saved));
	long saved_free = atomic_long_read(&z->vm_stat[NR_FREE_PAGES]);
	z->_watermark[WMARK_MIN] = 10;
	z->_watermark[WMARK_LOW] = 20;
	for (int order = 1; order <= 6; order++)
		for (unsigned int sh = 0; sh < ARRAY_SIZE(shapes); sh++)
			for (long d = -1; d <= 2; d++) {
				long mark = (order > 3 ? 20 : 10) + (2L << order);
				for (unsigned int o = 0; o <= 6; o++)
					z->free_area[o].nr_free = shapes[sh][o];
				atomic_long_set(&z->vm_stat[NR_FREE_PAGES], mark + d);
				int fi = kernel_fragindex(shapes[sh], (unsigned int)order);
				bool want = mark + d > mark && !(order > 3 && fi >= 0 && fi <= 500);
				ck_assert_msg(compaction_suitable(z, order, ZONE_NORMAL) == want,
					      "order %d shape %u free mark%+ld (fragindex %d): %d",
					      order, sh, d, fi, !want);
			}
	memcpy(z->free_area, saved, sizeof(saved));
	atomic_long_set(&z->vm_stat[NR_FREE_PAGES], saved_free);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * try_to_compact_pages(): a deferred zone is skipped, except at
 * MIN_COMPACT_PRIORITY, which a costly order never reaches (6.7)
 */
START_TEST(test_compaction_deferred_prio_table)
{
	struct mm_sim *sim = one_zone_sim(1, 6, 5, 256);
	struct zone *z = &sim->node_data[0]->node_zones[ZONE_NORMAL];

	sim->serial = true;
	mm_set_current_cpu(0);
	for (int prio = MM_COMPACT_PRIO_SYNC_FULL; prio <= MM_COMPACT_PRIO_ASYNC; prio++)
		for (int deferred = 0; deferred < 2; deferred++) {
			z->compact_defer_shift = deferred ? 6 : 0;
			z->compact_considered = 0;
			z->compact_order_failed = 0;
			int rc = mm_compact_zone(sim, 0, ZONE_NORMAL, 3, prio,
						 prio == MM_COMPACT_PRIO_ASYNC
							 ? MM_MIGRATE_ASYNC
							 : MM_MIGRATE_SYNC_LIGHT,
						 MIGRATE_MOVABLE);
			bool skipped = prio > MM_COMPACT_PRIO_SYNC_FULL && deferred;
			ck_assert_msg((rc == MM_COMPACT_DEFERRED) == skipped,
				      "priority %d deferred %d: %s", prio, deferred,
				      mm_compact_result_name(rc));
			/* compaction_deferred() counts a consideration only where it is asked */
			ck_assert_uint_eq(z->compact_considered,
					  prio > MM_COMPACT_PRIO_SYNC_FULL ? 1 : 0);
		}
	/*
	 * A costly order (> 3) runs no lower than MIN_COMPACT_COSTLY_PRIORITY
	 * (sync light, should_compact_retry()): asked at sync full, a deferred
	 * zone is skipped as at sync light. A sync pass (compact_node()) is not.
	 */
	for (unsigned int order = 3; order <= 5; order++)
		for (int mode = MM_MIGRATE_SYNC_LIGHT; mode <= MM_MIGRATE_SYNC; mode++) {
			z->compact_defer_shift = 6;
			z->compact_considered = 0;
			z->compact_order_failed = 0;
			int rc = mm_compact_zone(sim, 0, ZONE_NORMAL, order,
						 MM_COMPACT_PRIO_SYNC_FULL, mode, MIGRATE_MOVABLE);
			bool skipped = order > 3 && mode != MM_MIGRATE_SYNC;
			ck_assert_msg((rc == MM_COMPACT_DEFERRED) == skipped,
				      "order %u sync full, mode %d: %s", order, mode,
				      mm_compact_result_name(rc));
		}
	mm_sim_destroy(sim);
}
END_TEST

/* ------------------------------------------------------------------------
 * kswapd: wake (wakeup_kswapd()) and sleep (kswapd_try_to_sleep())
 * ---------------------------------------------------------------------- */

#define ZONEIDX_UNSET MAX_NR_ZONES

static struct mm_sim *kswapd_sim(void)
{
	struct mm_config cfg;

	cfg_tiny(&cfg, 2, 6, 5);
	cfg.min_free_kbytes = 0; /* the kernel's default */
	cfg.watermark_scale_factor = 10;
	cfg_zone(&cfg, 0, ZONE_DMA32, 0, 1024, 1024);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 1024, 1024, 1024);
	struct mm_sim *sim = sim_new(&cfg);
	sim->serial = true;
	return sim;
}

/* Both zones' min and low marks at 0, their high marks at high, no drift mark. */
static void set_high_marks(struct mm_sim *sim, unsigned long high)
{
	for (int zt = ZONE_DMA32; zt <= ZONE_NORMAL; zt++) {
		struct zone *z = &sim->node_data[0]->node_zones[zt];
		z->_watermark[WMARK_MIN] = z->_watermark[WMARK_LOW] = 0;
		z->_watermark[WMARK_HIGH] = high;
		z->percpu_drift_mark = 0;
	}
}

/* balanced: the high marks at 0 (free > 0 passes) or above every page (fails) */
static void set_balanced(struct mm_sim *sim, bool balanced)
{
	set_high_marks(sim, balanced ? 0 : 100000);
}

START_TEST(test_kswapd_wake_table)
{
	struct mm_sim *sim = kswapd_sim();
	struct kswapd_state *k = &sim->node_data[0]->kswapd;
	struct zone *normal = &sim->node_data[0]->node_zones[ZONE_NORMAL];

	mm_set_current_cpu(0);
	for (int awake = 0; awake < 2; awake++)
		for (int hopeless = 0; hopeless < 2; hopeless++)
			for (int balanced = 0; balanced < 2; balanced++)
				for (unsigned int korder = 0; korder <= 4; korder += 2)
					for (int kzone = ZONE_DMA; kzone <= ZONEIDX_UNSET;
					     kzone += ZONEIDX_UNSET) {
						set_balanced(sim, balanced);
						*k = (struct kswapd_state){
							.awake = awake,
							.pressure = awake,
							.order = korder,
							.highest_zoneidx = kzone,
							.failures = hopeless ? 16 : 0,
						};
						wakeup_kswapd(normal, MM_GFP_KERNEL, 3,
							      ZONE_NORMAL);
						/* the request: the largest order and zone asked */
						ck_assert_uint_eq(k->order,
								  korder > 3 ? korder : 3);
						ck_assert_int_eq(k->highest_zoneidx, ZONE_NORMAL);
						/* woken unless awake, hopeless or balanced */
						bool woken = !awake && !hopeless && !balanced;
						ck_assert_msg(
							k->awake == (awake || woken),
							"awake %d hopeless %d balanced %d: %d",
							awake, hopeless, balanced, k->awake);
						ck_assert_int_eq(k->pressure, awake);
					}
	mm_sim_destroy(sim);
}
END_TEST

/* pgdat_balanced(): one managed zone up to highest_zoneidx at its high mark, or none managed */
START_TEST(test_pgdat_balanced_table)
{
	struct mm_sim *sim = kswapd_sim(); /* DMA32 and Normal; no DMA, no Movable pages */
	struct pglist_data *pgdat = sim->node_data[0];

	mm_set_current_cpu(0);
	for (unsigned int ok = 0; ok < 4; ok++) /* bit 0: DMA32 at its mark, bit 1: Normal */
		for (int hz = ZONE_DMA; hz <= ZONE_MOVABLE; hz++) {
			set_balanced(sim, true);
			if (!(ok & 1))
				pgdat->node_zones[ZONE_DMA32]._watermark[WMARK_HIGH] = 100000;
			if (!(ok & 2))
				pgdat->node_zones[ZONE_NORMAL]._watermark[WMARK_HIGH] = 100000;
			bool want = hz == ZONE_DMA || ((ok & 1) && hz >= ZONE_DMA32) ||
				    ((ok & 2) && hz >= ZONE_NORMAL);
			ck_assert_msg(pgdat_balanced(pgdat, 0, hz) == want,
				      "DMA32 ok %u Normal ok %u highest zone %d: %d", ok & 1,
				      ok >> 1, hz, !want);
		}
	mm_sim_destroy(sim);
}
END_TEST

/*
 * kswapd_try_to_sleep(): an awake kswapd sleeps when hopeless or balanced,
 * forgetting its request. Awake with no zone asked (a wake whose request
 * a sleep cleared before the wake set awake) judges every zone.
 */
START_TEST(test_kswapd_sleep_table)
{
	struct mm_sim *sim = kswapd_sim();
	struct kswapd_state *k = &sim->node_data[0]->kswapd;

	mm_set_current_cpu(0);
	for (int awake = 0; awake < 2; awake++)
		for (int hopeless = 0; hopeless < 2; hopeless++)
			for (int balanced = 0; balanced < 2; balanced++)
				for (int kzone = ZONE_NORMAL; kzone <= ZONEIDX_UNSET;
				     kzone += ZONEIDX_UNSET - ZONE_NORMAL) {
					set_balanced(sim, balanced);
					struct kswapd_state before = {
						.awake = awake,
						.pressure = awake,
						.order = 2,
						.highest_zoneidx = kzone,
						.failures = hopeless ? 16 : 0,
					};
					*k = before;
					bool sleeps = awake && (hopeless || balanced);
					ck_assert_int_eq(_mm_kswapd_try_to_sleep(sim, 0),
							 sleeps ? 0 : 1);
					if (sleeps) {
						ck_assert(!k->awake && !k->pressure);
						ck_assert_uint_eq(k->order, 0);
						ck_assert_int_eq(k->highest_zoneidx, ZONEIDX_UNSET);
					} else {
						ck_assert(k->awake == before.awake &&
							  k->order == before.order &&
							  k->highest_zoneidx ==
								  before.highest_zoneidx);
					}
				}
	mm_sim_destroy(sim);
}
END_TEST

/*
 * Awake with no zone asked, kswapd judges every zone against its reserve
 * for the highest zone there is (MAX_NR_ZONES - 1, ZONE_DEVICE), in the
 * sleep test and in balance_pgdat(). Each zone here holds 1024 free
 * pages, its high mark 1000, and a highatomic reserve of 64 pages, none
 * of them free, which no rule counts against the mark (c928807f6f6b).
 * Row 0: no lowmem reserve, balanced by 24 pages: kswapd sleeps, and a
 * step reclaims nothing and counts no failure. Row 1: a reserve of 30
 * against ZONE_DEVICE only (ZONE_MOVABLE's is 0; a reserve grows with
 * the zone index): unbalanced by 6, so it stays awake, and a step with
 * nothing reclaimable counts a failure.
 */
START_TEST(test_kswapd_unset_zone_judges_every_zone)
{
	struct mm_sim *sim = kswapd_sim();
	struct kswapd_state *k = &sim->node_data[0]->kswapd;
	const struct kswapd_state awake = {
		.awake = true, .pressure = true, .highest_zoneidx = ZONEIDX_UNSET};
	const bool balanced = _i == 0;

	mm_set_current_cpu(0);
	set_high_marks(sim, 1000);
	for (int zt = ZONE_DMA32; zt <= ZONE_NORMAL; zt++) {
		struct zone *z = &sim->node_data[0]->node_zones[zt];
		for (int r = 0; r < MAX_NR_ZONES; r++)
			z->lowmem_reserve[r] = 0;
		z->lowmem_reserve[ZONE_DEVICE] = balanced ? 0 : 30;
		z->nr_reserved_highatomic = 64;
		ck_assert_int_eq(zone_page_state(z, NR_FREE_PAGES), 1024);
	}
	*k = awake;
	ck_assert_int_eq(_mm_kswapd_step(sim, 0), 0);
	ck_assert_uint_eq(k->failures, balanced ? 0 : 1);
	ck_assert(k->awake);
	ck_assert_int_eq(_mm_kswapd_try_to_sleep(sim, 0), balanced ? 0 : 1);
	ck_assert(k->awake == !balanced);
	mm_sim_destroy(sim);
}
END_TEST

/* ------------------------------------------------------------------------
 * Sizing rules: zone_batchsize(), zone_highsize(), the vmstat thresholds
 * ---------------------------------------------------------------------- */

START_TEST(test_batchsize_table)
{
	/*
	 * managed -> batch: min(M >> 10, 256) / 4, rounddown_pow_of_two(b + b / 2) - 1;
	 * the rows from 40960 on are the edges, where b + b / 2 first reaches 16, 32, 64
	 */
	static const struct {
		unsigned long managed;
		int batch;
	} rows[] = {
		{0, 0},	      {1023, 0},    {4096, 0},	  {8191, 0},	   {8192, 1},	{12288, 3},
		{16384, 3},   {24576, 7},   {32768, 7},	  {49152, 15},	   {65536, 15}, {98304, 31},
		{131072, 31}, {196608, 63}, {262144, 63}, {1UL << 30, 63}, {40960, 7},	{45056, 15},
		{86016, 15},  {90112, 31},  {172032, 31}, {176128, 63},
	};

	for (unsigned int i = 0; i < ARRAY_SIZE(rows); i++)
		ck_assert_msg(default_zone_batchsize(rows[i].managed) == rows[i].batch,
			      "zone_batchsize(%lu) = %d, want %d", rows[i].managed,
			      default_zone_batchsize(rows[i].managed), rows[i].batch);
	/* zone_highsize(): total / CPUs, at least 4 batches */
	for (unsigned long total = 0; total <= 4096; total += 64)
		for (int batch = 1; batch <= 63; batch = batch * 2 + 1)
			for (int cpus = 1; cpus <= 8; cpus++) {
				int want = (int)(total / (unsigned long)cpus) > 4 * batch
						   ? (int)(total / (unsigned long)cpus)
						   : 4 * batch;
				ck_assert_int_eq(default_zone_highsize(total, batch, cpus), want);
			}
}
END_TEST

START_TEST(test_threshold_table)
{
	struct mm_sim *sim = kswapd_sim();
	struct zone *z = &sim->node_data[0]->node_zones[ZONE_NORMAL];
	unsigned long saved = zone_managed_pages(z);

	/* normal: min(125, 2 * fls(CPUs) * (1 + fls(M >> 15))); 2 CPUs: fls 2 */
	static const struct {
		unsigned long managed;
		int t;
	} rows[] = {{0, 4},	  {32767, 4},	   {32768, 8},	    {65536, 12},
		    {262144, 20}, {1UL << 20, 28}, {1UL << 22, 36}, {1UL << 40, 108}};
	for (unsigned int i = 0; i < ARRAY_SIZE(rows); i++) {
		atomic_long_set(&z->managed_pages, (long)rows[i].managed);
		ck_assert_msg(calculate_normal_threshold(z) == rows[i].t,
			      "normal threshold at %lu pages: %d, want %d", rows[i].managed,
			      calculate_normal_threshold(z), rows[i].t);
	}
	atomic_long_set(&z->managed_pages, (long)saved);
	/* pressure: clamp((low - min) / CPUs, 1, 125) */
	for (unsigned long gap = 0; gap <= 300; gap += 7) {
		z->_watermark[WMARK_MIN] = 50;
		z->_watermark[WMARK_LOW] = 50 + gap;
		long t = (long)gap / 2;
		t = t < 1 ? 1 : t > 125 ? 125 : t;
		ck_assert_int_eq(calculate_pressure_threshold(z), t);
	}
	mm_sim_destroy(sim);
}
END_TEST

/*
 * When the seed's invariant judges an admission (_mm_vmstat_pressure_in_force()):
 * kswapd is in pressure and every online CPU updates NR_FREE_PAGES under the
 * threshold set_pgdat_percpu_threshold() gives, and that threshold keeps the
 * CPUs' drift within low - min. The rule, from mm/vmstat.c:
 *   normal   = min(125, 2 * fls(online) * (1 + fls(managed >> 15)))
 *   pressure = clamp((low - min) / online, 1, 125)
 *   t        = online * normal > low - min ? pressure : normal (the drift mark)
 *   judged   iff online * t <= low - min (no promise when 1 per CPU overruns)
 * The boundary low - min == online gives t = 1 and a kept promise.
 */
/* The rule's rows for one machine of `online` CPUs (fls(online) given) and 1024 pages. */
/*
 * A pressure threshold other than the kernel's, as a policy plugin may
 * propose (docs/policy-lab.md): a quarter of the kernel's, at least 1.
 * The drift mark still decides when it applies: at online * normal ==
 * low - min the normal threshold keeps the promise and stays.
 */
static int quarter_pressure(const struct zone *zone)
{
	long q = ((long)zone->_watermark[WMARK_LOW] - (long)zone->_watermark[WMARK_MIN]) /
		 (long)mm_num_online_cpus(zone->sim) / 4;

	return q < 1 ? 1 : q > 125 ? 125 : (int)q;
}

static void check_pressure_rows(struct mm_sim *sim, unsigned int online, long fls, bool quarter)
{
	struct zone *z = &sim->node_data[0]->node_zones[ZONE_NORMAL];
	long normal = 2 * fls * (1 + 0); /* fls(1024 >> 15) = 0, no cap reached */

	sim->node_data[0]->kswapd.pressure = true;
	if (quarter)
		sim->policy.pressure_threshold = quarter_pressure;
	for (long gap = 0; gap <= (long)online * normal + 2; gap++) {
		long pressure = gap / (long)online / (quarter ? 4 : 1);
		pressure = pressure < 1 ? 1 : pressure > 125 ? 125 : pressure;
		long t = (long)online * normal > gap ? pressure : normal;
		bool judged = (long)online * t <= gap;

		z->watermark_boost = 0;
		z->_watermark[WMARK_MIN] = 40;
		z->_watermark[WMARK_LOW] = 40 + (unsigned long)gap;
		for (unsigned int cpu = 0; cpu < online; cpu++) {
			z->per_cpu_zonestats[cpu].stat_threshold = (int8_t)t;
			z->per_cpu_zonestats[cpu].update_threshold[NR_FREE_PAGES] = (int8_t)t;
		}
		ck_assert_msg(_mm_vmstat_pressure_in_force(z) == judged,
			      "%u CPUs, low - min %ld, threshold %ld: judged %d, want %d", online,
			      gap, t, !judged, judged);
		/* one CPU updating under another threshold: not yet in force */
		z->per_cpu_zonestats[online - 1].update_threshold[NR_FREE_PAGES] = (int8_t)(t + 1);
		ck_assert_msg(!_mm_vmstat_pressure_in_force(z),
			      "%u CPUs, low - min %ld: judged with a CPU at %ld", online, gap,
			      t + 1);
	}
}

/* online CPUs and fls(online) */
static const struct {
	unsigned int online;
	long fls;
} pressure_cpus[] = {{1, 1}, {2, 2}, {3, 2}, {4, 3}, {8, 4}};

START_TEST(test_pressure_in_force_table)
{
	for (unsigned int c = 0; c < ARRAY_SIZE(pressure_cpus); c++) {
		struct mm_sim *sim = one_zone_sim(pressure_cpus[c].online, 6, 5, 1024);

		check_pressure_rows(sim, pressure_cpus[c].online, pressure_cpus[c].fls, false);
		mm_sim_destroy(sim);
		sim = one_zone_sim(pressure_cpus[c].online, 6, 5, 1024);
		check_pressure_rows(sim, pressure_cpus[c].online, pressure_cpus[c].fls, true);
		mm_sim_destroy(sim);
	}
}
END_TEST

/*
 * The same rows on a machine booted again in a sim that had more CPUs, as
 * a fuzzer's next input finds it: the CPUs past the new machine's keep the
 * last boot's online bits and per-cpu slots (only the machine's own are
 * reset), with thresholds of another machine. The rule reads the
 * machine's CPUs only.
 */
START_TEST(test_pressure_in_force_after_a_larger_machine)
{
	struct mm_sim *sim = one_zone_sim(16, 6, 5, 1024);

	for (unsigned int c = 0; c + 1 < ARRAY_SIZE(pressure_cpus); c++) {
		unsigned int online = pressure_cpus[c].online;
		struct mm_config cfg;
		struct zone *z;

		cfg_tiny(&cfg, online, 6, 5);
		cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 1024, 1024);
		ck_assert_int_eq(mm_sim_init(sim, &cfg, -1), 0);
		/* the premise: the first CPU past the machine still reads online */
		ck_assert(atomic_load(&sim->cpu_online[online]));
		z = &sim->node_data[0]->node_zones[ZONE_NORMAL];
		z->per_cpu_zonestats[online].stat_threshold = 126;
		z->per_cpu_zonestats[online].update_threshold[NR_FREE_PAGES] = 126;
		check_pressure_rows(sim, online, pressure_cpus[c].fls, false);
	}
	mm_sim_destroy(sim);
}
END_TEST

/* ------------------------------------------------------------------------
 * Batches of the counters and the highatomic cap
 * ---------------------------------------------------------------------- */

/* compute_batch_value(): max(32, 2 * online CPUs), on every hotplug */
START_TEST(test_percpu_batch_table)
{
	struct mm_sim *sim = one_zone_sim(40, 6, 5, 256);

	for (int online = 40; online >= 1; online--) {
		int want = 2 * online > 32 ? 2 * online : 32;
		ck_assert_msg(mm_percpu_counter_batch(sim) == want, "%d CPUs: batch %d, want %d",
			      online, mm_percpu_counter_batch(sim), want);
		if (online > 1)
			ck_assert_int_eq(mm_cpu_offline(sim, online - 1), 0);
	}
	for (int online = 2; online <= 40; online++) {
		ck_assert_int_eq(mm_cpu_online(sim, online - 1), 0);
		ck_assert_int_eq(mm_percpu_counter_batch(sim), 2 * online > 32 ? 2 * online : 32);
	}
	mm_sim_destroy(sim);
}
END_TEST

/*
 * __vm_enough_memory(): ALWAYS admits; GUESS refuses more than RAM (no
 * swap) at once; NEVER admits while percpu_counter_read_positive() after
 * the charge is below RAM * 50% - the admin reserve (not for admin) -
 * min(total_vm / 32, the user reserve). 4096 pages on 1 CPU: reserves 128,
 * limit 2048, NEVER batch 32 (a smaller charge stays in the CPU's local).
 */
START_TEST(test_vm_enough_memory_table)
{
	static const long pages[] = {1,	   31,	 32,   100,  1791, 1792,
				     1919, 1920, 2047, 2048, 4096, 4097};
	static const unsigned long total_vm[] = {0, 320, 4096UL * 32};
	struct mm_sim *sim = one_zone_sim(1, 6, 5, 4096);

	mm_set_current_cpu(0);
	for (int policy = MM_OVERCOMMIT_GUESS; policy <= MM_OVERCOMMIT_NEVER; policy++) {
		ck_assert_int_eq(mm_set_overcommit_memory(sim, policy), 0);
		for (unsigned int p = 0; p < ARRAY_SIZE(pages); p++)
			for (unsigned int t = 0; t < ARRAY_SIZE(total_vm); t++)
				for (int admin = 0; admin < 2; admin++) {
					long user = (long)(total_vm[t] / 32) < 128
							    ? (long)(total_vm[t] / 32)
							    : 128;
					long allowed = 2048 - (admin ? 0 : 128) - user;
					long read = pages[p] >= 32 ? pages[p] : 0;
					bool want =
						policy == MM_OVERCOMMIT_ALWAYS ||
						(policy == MM_OVERCOMMIT_GUESS &&
						 pages[p] <= 4096) ||
						(policy == MM_OVERCOMMIT_NEVER && read < allowed);
					int got = mm_vm_enough_memory(sim, total_vm[t], pages[p],
								      admin);
					ck_assert_msg(
						(got == 0) == want,
						"policy %d pages %ld total_vm %lu admin %d: %d",
						policy, pages[p], total_vm[t], admin, got);
					if (!got)
						vm_unacct_memory(sim, pages[p]);
				}
	}
	mm_sim_destroy(sim);
}
END_TEST

/*
 * reserve_highatomic_pageblock(): a zone under 100 pages may reserve one
 * pageblock (managed / 100 + 1 pageblock = 8 pages), however many
 * high-order atomic allocations succeed below the low mark.
 */
START_TEST(test_highatomic_cap)
{
	struct mm_config cfg;
	struct vrec vr;

	cfg_tiny(&cfg, 1, 3, 3);
	cfg.min_free_kbytes =
		400; /* min 100, low 125 > 64 pages: every atomic takes the slow path */
	cfg.watermark_scale_factor = 10;
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 64, 64);
	struct mm_sim *sim = sim_new(&cfg);
	struct zone *z = &sim->node_data[0]->node_zones[ZONE_NORMAL];

	sim->serial = true;
	sim_record(sim, &vr);
	mm_set_current_cpu(0);
	for (int i = 0; i < 8; i++) {
		uint32_t gen;
		mm_alloc_pages(sim, 1, MM_GFP_ATOMIC, 0, (uint32_t)i, &gen);
	}
	ck_assert_uint_eq(z->nr_reserved_highatomic, 8);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	mm_sim_destroy(sim);
}
END_TEST

/* 16 pages in two 8-page pageblocks, no pcp; pageblock 0 taken whole (movable) */
static struct mm_sim *claim_sim(void)
{
	struct mm_config cfg;
	struct mm_sim *sim;
	uint32_t gen;

	cfg_tiny(&cfg, 1, 3, 3);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 16, 16);
	sim = sim_new_buddy_only(&cfg);
	mm_set_current_cpu(0);
	ck_assert_int_eq(mm_alloc_pages(sim, 3, MM_GFP_KERNEL | MM_GFP_MOVABLE, 0, 1, &gen), 0);
	return sim;
}

/*
 * steal_suitable_fallback() (6.10): a request that falls back into another
 * type's pageblock claims the whole block when its free pages plus the
 * pages of a compatible type are at least half the block. Compatible: for
 * a movable request its movable pages; for another request in a movable
 * block the pages neither free nor movable; between the two non-movable
 * types none (alike 0). An 8-page pageblock with n pages of its owner's
 * type allocated (so nothing compatible in every pair here): claimed iff
 * 8 - n >= 4.
 */
START_TEST(test_steal_claim_table)
{
	static const struct {
		unsigned int owner_gfp, thief_gfp;
		int owner_mt, thief_mt;
	} pairs[] = {
		{MM_GFP_KERNEL | MM_GFP_MOVABLE, MM_GFP_KERNEL, MIGRATE_MOVABLE, MIGRATE_UNMOVABLE},
		{MM_GFP_KERNEL | MM_GFP_RECLAIMABLE, MM_GFP_KERNEL, MIGRATE_RECLAIMABLE,
		 MIGRATE_UNMOVABLE},
		{MM_GFP_KERNEL, MM_GFP_KERNEL | MM_GFP_RECLAIMABLE, MIGRATE_UNMOVABLE,
		 MIGRATE_RECLAIMABLE},
	};

	for (unsigned int p = 0; p < ARRAY_SIZE(pairs); p++)
		for (unsigned int n = 1; n <= 7; n++) {
			struct mm_sim *sim = claim_sim();
			uint32_t gen;

			/* n owner pages from pageblock 1 (claiming it) */
			for (unsigned int i = 0; i < n; i++)
				ck_assert_int_eq(
					mm_alloc_pages(sim, 0, pairs[p].owner_gfp, 0, 2, &gen),
					8 + i);
			ck_assert_int_eq(get_pfnblock_migratetype(sim, 8), pairs[p].owner_mt);
			/* its free pages are the only ones: the other type falls back */
			ck_assert(mm_alloc_pages(sim, 0, pairs[p].thief_gfp, 0, 3, &gen) >= 0);
			int want = 8 - n >= 4 ? pairs[p].thief_mt : pairs[p].owner_mt;
			ck_assert_msg(get_pfnblock_migratetype(sim, 8) == want,
				      "pair %u, %u pages allocated: pageblock type %d, want %d", p,
				      n, get_pfnblock_migratetype(sim, 8), want);
			mm_sim_destroy(sim);
		}
}
END_TEST

/*
 * The same claim with the owner's pages in one order-2 block and n order-0
 * pages: prep_move_freepages_block() counts every page of an LRU folio
 * movable, its tail pages too. An unmovable thief in the movable block:
 * free 4 - n, movable 4 + n, alike 8 - 8 = 0: claimed iff 4 - n >= 4.
 */
START_TEST(test_steal_claim_counts_tail_pages)
{
	for (unsigned int n = 0; n <= 3; n++) {
		struct mm_sim *sim = claim_sim();
		uint32_t gen;

		ck_assert_int_eq(mm_alloc_pages(sim, 2, MM_GFP_KERNEL | MM_GFP_MOVABLE, 0, 2, &gen),
				 8);
		for (unsigned int i = 0; i < n; i++)
			ck_assert_int_eq(
				mm_alloc_pages(sim, 0, MM_GFP_KERNEL | MM_GFP_MOVABLE, 0, 2, &gen),
				12 + i);
		ck_assert(mm_alloc_pages(sim, 0, MM_GFP_KERNEL, 0, 3, &gen) >= 0);
		int want = n == 0 ? MIGRATE_UNMOVABLE : MIGRATE_MOVABLE;
		ck_assert_msg(get_pfnblock_migratetype(sim, 8) == want,
			      "an order-2 block and %u pages: pageblock type %d, want %d", n,
			      get_pfnblock_migratetype(sim, 8), want);
		mm_sim_destroy(sim);
	}
}
END_TEST

/*
 * rmqueue_buddy(): with only HIGHATOMIC blocks left, an order-0 request
 * takes one only with ALLOC_NON_BLOCK or ALLOC_OOM ("failing now is worse
 * than failing a high-order atomic later"); the rest fail, the watermark
 * check having kept the reserve out of their free count. A request that
 * may reclaim then unreserves the block before OOM
 * (unreserve_highatomic_pageblock(), force) and gets a page of it, now of
 * its own type; one that may not fails.
 */
START_TEST(test_highatomic_fallback_table)
{
	static const struct {
		unsigned int gfp;
		bool ok, unreserved;
	} rows[] = {
		{MM_GFP_KERNEL, true, true},
		{MM_GFP_KERNEL | MM_GFP_HIGH, true, true},
		{MM_GFP_NOWAIT, true, false},
		{MM_GFP_ATOMIC, true, false},
		{MM_GFP_NOWAIT | MM_GFP_NOMEMALLOC, false, false},
		{MM_GFP_KERNEL | MM_GFP_OOM, true, false},
	};

	for (unsigned int r = 0; r < ARRAY_SIZE(rows); r++) {
		struct mm_config cfg;
		uint32_t gen;

		cfg_tiny(&cfg, 1, 3, 3); /* all marks 0 */
		cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 64, 64);
		struct mm_sim *sim = sim_new_buddy_only(&cfg);
		struct zone *z = &sim->node_data[0]->node_zones[ZONE_NORMAL];

		/* pageblock 7 becomes the highatomic reserve, as reserve_highatomic_pageblock() */
		spin_lock(&z->lock);
		__move_freepages_block(z, 56, MIGRATE_MOVABLE, MIGRATE_HIGHATOMIC);
		set_pageblock_migratetype(sim, 56, MIGRATE_HIGHATOMIC);
		z->nr_reserved_highatomic = 8;
		spin_unlock(&z->lock);
		mm_set_current_cpu(0);
		for (int i = 0; i < 56; i++)
			ck_assert(mm_alloc_pages(sim, 0, MM_GFP_KERNEL, 0, 1, &gen) >= 0);
		long long pfn = mm_alloc_pages(sim, 0, rows[r].gfp, 0, 2, &gen);
		ck_assert_msg((pfn >= 56) == rows[r].ok && (pfn < 0) == !rows[r].ok,
			      "gfp %#x: pfn %lld, want %s", rows[r].gfp, pfn,
			      rows[r].ok ? "a highatomic page" : "a failure");
		ck_assert_msg((z->nr_reserved_highatomic == 0) == rows[r].unreserved &&
				      (get_pfnblock_migratetype(sim, 56) != MIGRATE_HIGHATOMIC) ==
					      rows[r].unreserved,
			      "gfp %#x: reserve %lu, pageblock type %d", rows[r].gfp,
			      z->nr_reserved_highatomic, get_pfnblock_migratetype(sim, 56));
		mm_sim_destroy(sim);
	}
}
END_TEST

/* compaction_direct_outcome(): a success consumes the flush request and resets deferral */
START_TEST(test_direct_outcome_table)
{
	struct mm_sim *sim = one_zone_sim(1, 6, 5, 256);
	struct zone *z = &sim->node_data[0]->node_zones[ZONE_NORMAL];

	sim->serial = true;
	for (int success = 0; success < 2; success++)
		for (int failed = 0; failed <= 6; failed++)
			for (unsigned int order = 1; order <= 5; order++) {
				z->compact_blockskip_flush = true;
				z->compact_defer_shift = 3;
				z->compact_considered = 5;
				z->compact_order_failed = failed;
				compaction_direct_outcome(sim, success ? z : NULL, order);
				ck_assert_int_eq(z->compact_blockskip_flush, !success);
				ck_assert_uint_eq(z->compact_defer_shift, success ? 0 : 3);
				ck_assert_uint_eq(z->compact_considered, success ? 0 : 5);
				ck_assert_int_eq(z->compact_order_failed,
						 success && (int)order >= failed ? (int)order + 1
										 : failed);
			}
	mm_sim_destroy(sim);
}
END_TEST

/*
 * alloc_flags_nofragment() (6.10, CONFIG_ZONE_DMA32): ALLOC_KSWAPD is the
 * __GFP_KSWAPD_RECLAIM bit; ALLOC_NOFRAGMENT only for a preferred Normal
 * zone, and on a machine of several nodes only if the node's DMA32 is
 * populated (one node: DMA32 is assumed there).
 */
START_TEST(test_nofragment_table)
{
	for (unsigned int nodes = 1; nodes <= 2; nodes++) {
		struct mm_config cfg;

		cfg_tiny(&cfg, 1, 3, 2);
		cfg.nr_nodes = nodes;
		cfg.cpus_per_node[1] = nodes > 1 ? 1 : 0;
		for (unsigned int n = 0; n < nodes; n++) {
			cfg_zone(&cfg, n, ZONE_DMA32, n * 128, 64, 64);
			cfg_zone(&cfg, n, ZONE_NORMAL, n * 128 + 64, 64, 64);
		}
		struct mm_sim *sim = sim_new(&cfg);
		struct zone *zones = sim->node_data[0]->node_zones;
		uint64_t present = zones[ZONE_DMA32].present_pages;
		long managed = atomic_long_read(&zones[ZONE_DMA32].managed_pages);

		for (int zt = ZONE_DMA; zt <= ZONE_MOVABLE; zt++)
			for (int dma32 = 0; dma32 < 2; dma32++)
				for (int kswapd = 0; kswapd < 2; kswapd++) {
					unsigned int gfp = MM_GFP_DIRECT_RECLAIM |
							   (kswapd ? MM_GFP_KSWAPD_RECLAIM : 0);
					zones[ZONE_DMA32].present_pages = dma32 ? present : 0;
					atomic_long_set(&zones[ZONE_DMA32].managed_pages,
							dma32 ? managed : 0);
					unsigned int want = kswapd ? ALLOC_KSWAPD : 0;
					if (zt == ZONE_NORMAL && (nodes == 1 || dma32))
						want |= ALLOC_NOFRAGMENT;
					unsigned int got = alloc_flags_nofragment(&zones[zt], gfp);
					ck_assert_msg(got == want,
						      "nodes %u zone %d DMA32 %s kswapd %d: %#x, "
						      "want %#x",
						      nodes, zt, dma32 ? "populated" : "empty",
						      kswapd, got, want);
				}
		zones[ZONE_DMA32].present_pages = present;
		atomic_long_set(&zones[ZONE_DMA32].managed_pages, managed);
		mm_sim_destroy(sim);
	}
}
END_TEST

/*
 * boost_watermark() (6.10): off with factor 0; not in a zone under four
 * pageblocks; not while high * factor / 10000 is 0; else the boost grows
 * by a pageblock up to max(pageblock, high * factor / 10000).
 */
START_TEST(test_boost_table)
{
	static const unsigned int factors[] = {0, 1000, 15000, 30000};
	static const unsigned long highs[] = {0, 4, 48, 1000};
	static const unsigned long starts[] = {0, 8, 70, 1496};
	struct mm_sim *sim = one_zone_sim(1, 4, 3, 256); /* pageblock 8 */
	struct zone *z = &sim->node_data[0]->node_zones[ZONE_NORMAL];
	const unsigned long pb = 8;
	long managed = atomic_long_read(&z->managed_pages);

	for (int small = 0; small < 2; small++)
		for (unsigned int f = 0; f < ARRAY_SIZE(factors); f++)
			for (unsigned int h = 0; h < ARRAY_SIZE(highs); h++)
				for (unsigned int b = 0; b < ARRAY_SIZE(starts); b++) {
					unsigned long m = small ? 4 * pb - 1 : 4 * pb;
					unsigned long max = highs[h] * factors[f] / 10000;
					bool want = factors[f] && 4 * pb <= m && max;
					unsigned long boost = starts[b];
					if (want) {
						max = max > pb ? max : pb;
						boost = boost + pb < max ? boost + pb : max;
					}
					atomic_long_set(&z->managed_pages, (long)m);
					sim->watermark_boost_factor = factors[f];
					z->_watermark[WMARK_HIGH] = highs[h];
					z->watermark_boost = starts[b];
					bool got = boost_watermark(z);
					ck_assert_msg(
						got == want && z->watermark_boost == boost,
						"managed %lu factor %u high %lu boost %lu: %d "
						"%lu, want %d %lu",
						m, factors[f], highs[h], starts[b], got,
						z->watermark_boost, want, boost);
				}
	atomic_long_set(&z->managed_pages, managed);
	z->watermark_boost = 0;
	mm_sim_destroy(sim);
}
END_TEST

/*
 * Free-list placement (__free_one_page(), buddy_merge_likely(), 6.x): a
 * block freed without FPI_TO_TAIL goes to the tail of its list when its
 * parent's buddy is free at the parent's order (order + 1), so the parent
 * may merge soon, and to the head otherwise; never to the tail at order
 * >= MAX_PAGE_ORDER - 1. The parent is the block's pfn with its order bit
 * cleared: the lower half and the upper half of a pair share it.
 *
 * The zone: [0, 128), max_order 5, every page allocated at order 0 first.
 * The block of order o sits at 0 (lower half) or s = 2^o (upper half) with
 * its buddy allocated; the parent [0, 2s)'s buddy [2s, 4s) is freed whole
 * (an order o + 1 block) or kept allocated; a second order-o block at
 * 64 + s shares the list, so head and tail differ.
 */
START_TEST(test_free_placement_table)
{
	const unsigned int max_order = 5;

	for (unsigned int o = 0; o < max_order; o++)
		for (int upper = 0; upper < 2; upper++)
			for (int parent_buddy_free = 0; parent_buddy_free < 2;
			     parent_buddy_free++) {
				struct mm_config cfg;
				uint32_t gen[128];
				uint64_t s = UINT64_C(1) << o, at = upper ? s : 0;
				bool want_tail = parent_buddy_free && o < max_order - 1;

				cfg_tiny(&cfg, 1, max_order, 4);
				cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 128, 128);
				struct mm_sim *sim = sim_new_buddy_only(&cfg);
				struct zone *z = &sim->node_data[0]->node_zones[ZONE_NORMAL];
				struct free_area *fa = &z->free_area[o];

				mm_set_current_cpu(0);
				for (int i = 0; i < 128; i++) {
					uint32_t g;
					long long pfn = mm_alloc_pages(
						sim, 0, MM_GFP_KERNEL | MM_GFP_MOVABLE, -1, 1, &g);
					ck_assert_int_ge(pfn, 0);
					gen[pfn] = g;
				}
				for (uint64_t p = 64 + s; p < 64 + 2 * s; p++)
					mm_free_pages(sim, p, 0, 1, gen[p]);
				if (parent_buddy_free)
					for (uint64_t p = 2 * s; p < 4 * s; p++)
						mm_free_pages(sim, p, 0, 1, gen[p]);
				for (uint64_t p = at; p < at + s; p++)
					mm_free_pages(sim, p, 0, 1, gen[p]);

				ck_assert_uint_eq(fa->nr_free, 2);
				uint32_t got = want_tail ? fa->tail[MIGRATE_MOVABLE]
							 : fa->head[MIGRATE_MOVABLE];
				ck_assert_msg(got == at,
					      "order %u %s half, parent's buddy %s: the block "
					      "at %llu is not at the %s (head %u, tail %u)",
					      o, upper ? "upper" : "lower",
					      parent_buddy_free ? "free" : "allocated",
					      (unsigned long long)at, want_tail ? "tail" : "head",
					      fa->head[MIGRATE_MOVABLE], fa->tail[MIGRATE_MOVABLE]);
				mm_sim_destroy(sim);
			}
}
END_TEST

static Suite *decisions_suite(void)
{
	Suite *s = suite_create("decisions");
	TCase *tc = tcase_create("tables");

	tcase_add_test(tc, test_alloc_flags_table);
	tcase_add_test(tc, test_alloc_flags_model);
	tcase_add_test(tc, test_fallback_table);
	tcase_add_test(tc, test_steal_claim_table);
	tcase_add_test(tc, test_steal_claim_counts_tail_pages);
	tcase_add_test(tc, test_free_high_table);
	tcase_add_test(tc, test_defer_table);
	tcase_add_test(tc, test_compaction_suitable_table);
	tcase_add_test(tc, test_compaction_deferred_prio_table);
	tcase_add_test(tc, test_kswapd_wake_table);
	tcase_add_test(tc, test_pgdat_balanced_table);
	tcase_add_test(tc, test_kswapd_sleep_table);
	tcase_add_loop_test(tc, test_kswapd_unset_zone_judges_every_zone, 0, 2);
	tcase_add_test(tc, test_batchsize_table);
	tcase_add_test(tc, test_threshold_table);
	tcase_add_test(tc, test_pressure_in_force_table);
	tcase_add_test(tc, test_pressure_in_force_after_a_larger_machine);
	tcase_add_test(tc, test_percpu_batch_table);
	tcase_add_test(tc, test_vm_enough_memory_table);
	tcase_add_test(tc, test_highatomic_cap);
	tcase_add_test(tc, test_highatomic_fallback_table);
	tcase_add_test(tc, test_direct_outcome_table);
	tcase_add_test(tc, test_nofragment_table);
	tcase_add_test(tc, test_boost_table);
	tcase_add_test(tc, test_free_placement_table);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(decisions_suite());
}
