/* SPDX-License-Identifier: MIT */
/*
 * test_boost.c - watermark boosting (boost_watermark() on a fallback steal,
 * the kswapd wake it asks for, balance_pgdat() taking it back), the
 * ALLOC_NOFRAGMENT pass and its retry, and decay_pcp_high(), each with the
 * invariant that guards it: INV-BOOST-BOUND, INV-BOOST-DECAY,
 * INV-NOFRAG-RETRY and INV-PCP-HIGH-RANGE.
 */
#include "common.h"
#include "internal.h"

#define GFP_MOV (MM_GFP_MOVABLE | MM_GFP_KERNEL)
#define NPAGES	256

static struct zone *normal(struct mm_sim *sim)
{
	return &sim->node_data[0]->node_zones[ZONE_NORMAL];
}

/*
 * A Normal zone of 256 pages at pfn base (with a DMA32 zone of 256 below
 * it when base is 256), pageblocks of 8, pcp lists off. Every Normal page
 * allocated movable, then every other one freed: 128 free order-0 pages,
 * no two buddies, four in each MOVABLE pageblock. Then the marks come up
 * (min_free_kbytes 128; on one zone min 32, low 40, high 48, so that the
 * boost bound is max(8, 48 * 15000 / 10000) = 72).
 */
static struct mm_sim *fragmented_at(uint64_t base, uint32_t *gens)
{
	struct mm_config cfg;
	struct mm_sim *sim;

	cfg_tiny(&cfg, 1, 4, 3);
	if (base)
		cfg_zone(&cfg, 0, ZONE_DMA32, 0, base, base);
	cfg_zone(&cfg, 0, ZONE_NORMAL, base, NPAGES, NPAGES);
	sim = sim_new_buddy_only(&cfg);
	mm_set_current_cpu(0);
	for (uint32_t i = 0; i < NPAGES; i++)
		ck_assert_int_eq(mm_alloc_pages(sim, 0, GFP_MOV, -1, i, &gens[i]),
				 (long long)(base + i));
	for (uint32_t i = 1; i < NPAGES; i += 2)
		mm_free_pages(sim, base + i, 0, i, gens[i]);
	mm_set_min_free_kbytes(sim, 128);
	sim->serial = true;
	return sim;
}

static struct mm_sim *fragmented(uint32_t *gens)
{
	struct mm_sim *sim = fragmented_at(0, gens);

	ck_assert_uint_eq(normal(sim)->_watermark[WMARK_HIGH], 48);
	return sim;
}

/*
 * An unmovable request finds no unmovable block: the no-fallback pass
 * fails (no fallback block of a pageblock or more), the retry steals a
 * MOVABLE pageblock (4 free of 8: it claims the block), the zone's boost
 * rises by a pageblock, and GFP_KERNEL's ALLOC_KSWAPD has rmqueue() wake
 * kswapd on a node otherwise balanced. A kswapd run takes the boost back.
 */
START_TEST(test_steal_boosts_then_kswapd_takes_it_back)
{
	uint32_t gens[NPAGES], gen;
	struct mm_sim *sim = fragmented(gens);
	struct zone *z = normal(sim);
	struct vrec vr;

	sim_record(sim, &vr);
	ck_assert(!mm_kswapd_awake(sim, 0, NULL));
	ck_assert_int_ge(mm_alloc_pages(sim, 0, MM_GFP_KERNEL, -1, 1000, &gen), 0);
	ck_assert_uint_eq(z->watermark_boost, 8);
	ck_assert_uint_eq(sim_stats(sim).blocks_stolen, 1);
	/* rmqueue() delivered the wake and cleared the request */
	ck_assert(!(atomic_load(&z->flags) & ZONE_BOOSTED_WATERMARK));
	ck_assert(mm_kswapd_awake(sim, 0, NULL));
	/* the boost's wake asks for order 0 up to the boosted zone (rmqueue(), 6.10) */
	ck_assert_uint_eq(sim->node_data[0]->kswapd.order, 0);
	ck_assert_int_eq(sim->node_data[0]->kswapd.highest_zoneidx, ZONE_NORMAL);
	/* three more come from the claimed block; the fifth steals again */
	for (uint32_t i = 0; i < 4; i++)
		ck_assert_int_ge(mm_alloc_pages(sim, 0, MM_GFP_KERNEL, -1, 1001 + i, &gen), 0);
	ck_assert_uint_eq(z->watermark_boost, 16);
	ck_assert_int_eq(_mm_kswapd_step(sim, 0), 0);
	ck_assert_uint_eq(z->watermark_boost, 0);
	ck_assert(!(atomic_load(&z->flags) & ZONE_RECLAIM_ACTIVE));
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	/* balanced without the boost: kswapd sleeps (normal thresholds again) */
	ck_assert_int_eq(_mm_kswapd_try_to_sleep(sim, 0), 0);
	mm_check_full(sim);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * A fallback that finds a free block of a whole pageblock or more takes
 * ownership of it and boosts nothing (steal_suitable_fallback(), 6.10:
 * the boost comes after the "orders >= pageblock_order" return). Every
 * page allocated movable in order-3 blocks (a pageblock each), one freed:
 * the unmovable request's only fallback is that block, exactly
 * pageblock_order. The marks are up (high 48: a boost would be 8).
 */
START_TEST(test_whole_pageblock_steal_does_not_boost)
{
	struct mm_config cfg;
	struct mm_sim *sim;
	uint32_t gens[NPAGES / 8], gen;
	struct vrec vr;

	cfg_tiny(&cfg, 1, 4, 3);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, NPAGES, NPAGES);
	sim = sim_new_buddy_only(&cfg);
	mm_set_current_cpu(0);
	for (uint32_t i = 0; i < NPAGES / 8; i++)
		ck_assert_int_ge(mm_alloc_pages(sim, 3, GFP_MOV, -1, i, &gens[i]), 0);
	mm_free_pages(sim, 8 * 5, 3, 5, gens[5]);
	mm_set_min_free_kbytes(sim, 128);
	sim->serial = true;
	sim_record(sim, &vr);
	ck_assert_uint_eq(normal(sim)->_watermark[WMARK_HIGH], 48);
	ck_assert_int_eq(mm_alloc_pages(sim, 0, MM_GFP_MEMALLOC | MM_GFP_KERNEL, -1, 1000, &gen),
			 8 * 5);
	ck_assert_int_eq(get_pfnblock_migratetype(sim, 8 * 5), MIGRATE_UNMOVABLE);
	ck_assert_uint_eq(sim_stats(sim).blocks_stolen, 1);
	ck_assert_uint_eq(normal(sim)->watermark_boost, 0);
	ck_assert(!(atomic_load(&normal(sim)->flags) & ZONE_BOOSTED_WATERMARK));
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * kswapd awake on a node the frees since its wake balanced, with no boost:
 * balance_pgdat() has no reclaim to do (no boost to reclaim, nothing below
 * the marks), so no pass runs and no failed pass is counted.
 */
START_TEST(test_kswapd_balanced_unboosted_reclaims_nothing)
{
	uint32_t gens[NPAGES];
	struct mm_sim *sim = fragmented(gens);
	struct kswapd_state *k = &sim->node_data[0]->kswapd;

	ck_assert_uint_eq(normal(sim)->watermark_boost, 0);
	k->awake = true; /* woken while short; 128 free pages now, high is 48 */
	ck_assert_int_eq(_mm_kswapd_step(sim, 0), 0);
	ck_assert_int_eq(k->failures, 0);
	ck_assert_uint_eq(sim_stats(sim).kswapd_reclaimed, 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * balance_pgdat() takes back only the boosts it recorded, each under its
 * zone's lock, and takes no other zone's lock: the node has no DMA zone
 * (zone 0 unmanaged), nothing reclaimable (shrink_node() frees nothing),
 * and only Normal boosted, so the pass takes exactly one zone->lock.
 */
START_TEST(test_kswapd_takes_back_only_recorded_boosts)
{
	uint32_t gens[NPAGES];
	struct mm_sim *sim = fragmented(gens);
	struct kswapd_state *k = &sim->node_data[0]->kswapd;
	struct vrec vr;

	sim_record(sim, &vr);
	ck_assert(!managed_zone(&sim->node_data[0]->node_zones[ZONE_DMA]));
	normal(sim)->watermark_boost = 8; /* as one steal leaves it (test above) */
	k->awake = true;
	unsigned long long locks = sim_stats(sim).zone_lock_acquisitions;
	ck_assert_int_eq(_mm_kswapd_step(sim, 0), 0);
	ck_assert_uint_eq(normal(sim)->watermark_boost, 0);
	ck_assert_uint_eq(sim_stats(sim).kswapd_reclaimed, 0);
	/* balanced but boosted: the boost reclaim ran, found nothing, and counts as failed */
	ck_assert_int_eq(k->failures, 1);
	ck_assert_uint_eq(sim_stats(sim).zone_lock_acquisitions - locks, 1);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	mm_sim_destroy(sim);
}
END_TEST

/* Without __GFP_KSWAPD_RECLAIM the boost still happens, but nobody asks for kswapd. */
START_TEST(test_steal_without_kswapd_flag)
{
	uint32_t gens[NPAGES], gen;
	struct mm_sim *sim = fragmented(gens);
	struct zone *z = normal(sim);

	ck_assert_int_ge(mm_alloc_pages(sim, 0, MM_GFP_DIRECT_RECLAIM, -1, 1000, &gen), 0);
	ck_assert_uint_eq(z->watermark_boost, 8);
	ck_assert(!(atomic_load(&z->flags) & ZONE_BOOSTED_WATERMARK));
	ck_assert(!mm_kswapd_awake(sim, 0, NULL));
	mm_sim_destroy(sim);
}
END_TEST

/* Factor 1000: max(8, 48 * 1000 / 10000 = 4) = 8, reached at the first steal. */
START_TEST(test_boost_capped_by_factor)
{
	uint32_t gens[NPAGES], gen;
	struct mm_sim *sim = fragmented(gens);
	struct zone *z = normal(sim);
	struct vrec vr;

	sim_record(sim, &vr);
	mm_set_watermark_boost_factor(sim, 1000);
	for (uint32_t i = 0; i < 9; i++)
		ck_assert_int_ge(mm_alloc_pages(sim, 0, MM_GFP_KERNEL, -1, 1000 + i, &gen), 0);
	ck_assert_uint_eq(sim_stats(sim).blocks_stolen, 3);
	ck_assert_uint_eq(z->watermark_boost, 8);
	mm_set_watermark_boost_factor(sim, 0); /* off: the next steal leaves the boost */
	for (uint32_t i = 9; i < 13; i++)
		ck_assert_int_ge(mm_alloc_pages(sim, 0, MM_GFP_KERNEL, -1, 1000 + i, &gen), 0);
	ck_assert_uint_eq(sim_stats(sim).blocks_stolen, 4);
	ck_assert_uint_eq(z->watermark_boost, 8);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	mm_sim_destroy(sim);
}
END_TEST

/* A boost above the bound the checker recomputes (72) fires INV-BOOST-BOUND. */
START_TEST(test_boost_bound_fires)
{
	uint32_t gens[NPAGES];
	struct mm_sim *sim = fragmented(gens);
	struct vrec vr;

	sim_record(sim, &vr);
	normal(sim)->watermark_boost = 72;
	ck_assert_uint_eq(_mm_check_boost_bound(normal(sim)), 0);
	normal(sim)->watermark_boost = 73;
	ck_assert_uint_eq(_mm_check_boost_bound(normal(sim)), 1);
	ck_assert(vrec_has(&vr, "INV-BOOST-BOUND"));
	mm_sim_destroy(sim);
}
END_TEST

/*
 * The steal that grows a boost checks it at once. The sysctl is written
 * behind the checker's back (as a setter that forgot the checker's note
 * would): boost_watermark() clamps to high * 30000 / 10000 = 144, the
 * checker's bound stays 72. A boost at 72 grows to 80 in the allocation,
 * which must report INV-BOOST-BOUND before any full check runs.
 */
START_TEST(test_steal_checks_the_boost_it_grew)
{
	uint32_t gens[NPAGES], gen;
	struct mm_sim *sim = fragmented(gens);
	struct vrec vr;

	sim_record(sim, &vr);
	sim->watermark_boost_factor = 30000;
	normal(sim)->watermark_boost = 72;
	ck_assert_int_ge(mm_alloc_pages(sim, 0, MM_GFP_KERNEL, -1, 1000, &gen), 0);
	ck_assert_uint_eq(sim_stats(sim).blocks_stolen, 1);
	ck_assert_uint_eq(normal(sim)->watermark_boost, 80);
	ck_assert_msg(vrec_has(&vr, "INV-BOOST-BOUND"), "%u reports, first %s", vr.n, vr.first);
	mm_sim_destroy(sim);
}
END_TEST

/* A boost a kswapd run left on a zone it balanced fires INV-BOOST-DECAY; another zone's not. */
START_TEST(test_boost_decay_fires)
{
	uint32_t gens[NPAGES];
	struct mm_sim *sim = fragmented(gens);
	unsigned long before[MAX_NR_ZONES] = {0};
	struct vrec vr;

	sim_record(sim, &vr);
	before[ZONE_NORMAL] = 16;
	normal(sim)->watermark_boost = 0;
	ck_assert_uint_eq(_mm_check_boost_decay(sim->node_data[0], ZONE_NORMAL, before), 0);
	/* a run up to DMA32 does not touch Normal's boost */
	normal(sim)->watermark_boost = 16;
	ck_assert_uint_eq(_mm_check_boost_decay(sim->node_data[0], ZONE_DMA32, before), 0);
	ck_assert_uint_eq(_mm_check_boost_decay(sim->node_data[0], ZONE_NORMAL, before), 1);
	ck_assert(vrec_has(&vr, "INV-BOOST-DECAY"));
	mm_sim_destroy(sim);
}
END_TEST

/*
 * A MOVABLE request on the fragmented zone: its own type is free, so the
 * no-fallback pass serves it and nothing is stolen or boosted.
 */
START_TEST(test_nofrag_pass_serves_own_type)
{
	uint32_t gens[NPAGES], gen;
	struct mm_sim *sim = fragmented(gens);
	struct vrec vr;

	sim_record(sim, &vr);
	ck_assert_int_ge(mm_alloc_pages(sim, 0, GFP_MOV, -1, 1000, &gen), 0);
	ck_assert_uint_eq(sim_stats(sim).fallbacks, 0);
	ck_assert_uint_eq(normal(sim)->watermark_boost, 0);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * INV-NOFRAG-RETRY: the retry with a block the no-fallback pass could
 * take (an unmovable order-0 block for an unmovable request; a MOVABLE
 * pageblock-sized one) fires; on the fragmented zone (order-0 MOVABLE
 * blocks only) it does not, nor for a zone the pass refused.
 */
START_TEST(test_nofrag_retry_fires)
{
	uint32_t gens[NPAGES], gen;
	struct mm_sim *sim = fragmented(gens);
	struct zone *z = normal(sim);
	uint32_t refused[(MM_MAX_ZONEREFS + 31) / 32] = {0};
	struct zone **zl = sim->node_data[0]->zonelist;
	struct vrec vr;

	sim_record(sim, &vr);
	ck_assert_uint_eq(
		_mm_check_nofrag_retry(sim, zl, ZONE_NORMAL, 0, 0, MIGRATE_UNMOVABLE, refused), 0);
	/* steal one block: its three other free pages are unmovable now */
	ck_assert_int_ge(mm_alloc_pages(sim, 0, MM_GFP_KERNEL, -1, 1000, &gen), 0);
	ck_assert_uint_eq(vr.n, 0);
	ck_assert_uint_eq(
		_mm_check_nofrag_retry(sim, zl, ZONE_NORMAL, 0, 0, MIGRATE_UNMOVABLE, refused), 1);
	ck_assert(vrec_has(&vr, "INV-NOFRAG-RETRY"));
	/* a zone the pass refused at its watermark could not serve it */
	refused[z->zone_id / 32] |= 1u << (z->zone_id % 32);
	ck_assert_uint_eq(
		_mm_check_nofrag_retry(sim, zl, ZONE_NORMAL, 0, 0, MIGRATE_UNMOVABLE, refused), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * ALLOC_NOFRAGMENT's purpose: DMA32 (0..255, whole free pageblocks) below
 * a fragmented Normal (256..511, as fragmented() leaves its zone). An
 * unmovable request may not split Normal's small MOVABLE blocks in the
 * first pass, so it claims a whole DMA32 pageblock instead: no boost, no
 * fragmenting steal in Normal.
 */
START_TEST(test_nofrag_prefers_lower_zone_to_fragmenting)
{
	uint32_t gens[NPAGES], gen;
	struct mm_sim *sim = fragmented_at(NPAGES, gens);
	struct vrec vr;

	sim_record(sim, &vr);
	long long pfn = mm_alloc_pages(sim, 0, MM_GFP_KERNEL, -1, 1000, &gen);
	ck_assert_int_ge(pfn, 0);
	ck_assert_int_lt(pfn, NPAGES); /* from DMA32 */
	ck_assert_uint_eq(normal(sim)->watermark_boost, 0);
	ck_assert_int_eq(get_pfnblock_migratetype(sim, NPAGES + 1), MIGRATE_MOVABLE);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * The retry checks itself, in the allocation: as above, with DMA32's free
 * counts of the orders a pageblock claim reads lost (a buddy accounting
 * bug's state: the blocks stay listed, find_suitable_fallback() sees
 * none), so the no-fallback pass fails while DMA32 still lists whole
 * MOVABLE pageblocks. The allocation must report INV-NOFRAG-RETRY before
 * any full check.
 */
START_TEST(test_nofrag_retry_checked_in_the_allocation)
{
	uint32_t gens[NPAGES], gen;
	struct mm_sim *sim = fragmented_at(NPAGES, gens);
	struct zone *dma32 = &sim->node_data[0]->node_zones[ZONE_DMA32];
	unsigned long lost = 0;
	struct vrec vr;

	for (unsigned int o = sim->pageblock_order; o <= sim->max_order; o++) {
		lost += dma32->free_area[o].nr_free;
		dma32->free_area[o].nr_free = 0;
	}
	ck_assert_uint_gt(lost, 0);
	sim_record(sim, &vr);
	long long pfn = mm_alloc_pages(sim, 0, MM_GFP_KERNEL, -1, 1000, &gen);
	ck_assert_int_ge(pfn, NPAGES); /* the retry's steal in Normal */
	ck_assert_msg(vrec_has(&vr, "INV-NOFRAG-RETRY"), "%u reports, first %s", vr.n, vr.first);
	mm_sim_destroy(sim);
}
END_TEST

/* A free MOVABLE pageblock is a fallback the no-fallback pass may claim whole. */
START_TEST(test_nofrag_retry_fires_on_pageblock_fallback)
{
	struct mm_config cfg;
	struct mm_sim *sim;
	uint32_t refused[(MM_MAX_ZONEREFS + 31) / 32] = {0};
	struct vrec vr;

	cfg_tiny(&cfg, 1, 4, 3);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, NPAGES, NPAGES);
	sim = sim_new_buddy_only(&cfg);
	mm_set_current_cpu(0);
	sim_record(sim, &vr);
	ck_assert_uint_eq(_mm_check_nofrag_retry(sim, sim->node_data[0]->zonelist, ZONE_NORMAL, 0,
						 0, MIGRATE_UNMOVABLE, refused),
			  1);
	ck_assert(vrec_has(&vr, "INV-NOFRAG-RETRY"));
	mm_sim_destroy(sim);
}
END_TEST

/*
 * _mm_check_boost_wake() returns the violations it reported: 0 for a zone
 * whose wake flag is clear, 1 for a flag set on a zone that cannot boost
 * (64 pages, 8 pageblocks of 8 but a high mark of 0: 0 x factor < 10000).
 */
START_TEST(test_boost_wake_check_counts)
{
	struct mm_config cfg;
	struct mm_sim *sim;
	struct zone *z;
	struct vrec vr;

	cfg_tiny(&cfg, 1, 4, 3);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 64, 64);
	sim = sim_new(&cfg);
	z = normal(sim);
	sim_record(sim, &vr);
	ck_assert_uint_eq(z->_watermark[WMARK_HIGH], 0);
	ck_assert_uint_eq(_mm_check_boost_wake(z, sim->watermark_boost_factor), 0);
	ck_assert_uint_eq(vr.n, 0);
	atomic_fetch_or(&z->flags, ZONE_BOOSTED_WATERMARK);
	ck_assert_uint_eq(_mm_check_boost_wake(z, sim->watermark_boost_factor), 1);
	ck_assert(vrec_has(&vr, "INV-BOOST-WAKE"));
	mm_sim_destroy(sim);
}
END_TEST

/* ------------------------------------------------------------------------
 * decay_pcp_high()
 * ---------------------------------------------------------------------- */

/* One Normal zone of 4096 pages, 1 CPU, pcp lists on. */
static struct mm_sim *pcp_machine(void)
{
	struct mm_config cfg;
	struct mm_sim *sim;

	cfg_tiny(&cfg, 1, 10, 9);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 4096, 4096);
	sim = sim_new(&cfg);
	mm_set_current_cpu(0);
	sim->serial = true;
	return sim;
}

/*
 * high - high / 8 per decay, never below high_min, never below count -
 * batch << 5; the pages above the new high go back to the buddy.
 */
START_TEST(test_decay_pcp_high)
{
	struct mm_sim *sim = pcp_machine();
	struct zone *z = normal(sim);
	struct per_cpu_pages *pcp = &z->per_cpu_pageset[0];
	struct vrec vr;
	uint32_t gen;
	long long pfn;

	sim_record(sim, &vr);
	ck_assert_int_lt(pcp->high_min, pcp->high_max);
	/* an allocation refills the list and lifts high by a batch */
	pfn = mm_alloc_pages(sim, 0, GFP_MOV, -1, 1, &gen);
	ck_assert_int_ge(pfn, 0);
	pcp->high = pcp->high_max; /* as a long run of refills leaves it */
	int h = pcp->high, count = pcp->count, lo = pcp->high_min;
	int want = h - (h >> 3);
	if (want < count - (pcp->batch << CONFIG_PCP_BATCH_SCALE_MAX))
		want = count - (pcp->batch << CONFIG_PCP_BATCH_SCALE_MAX);
	if (want < lo)
		want = lo;
	ck_assert_int_eq(decay_pcp_high(z, 0) > 0, 1);
	ck_assert_int_eq(pcp->high, want);
	ck_assert_int_le(pcp->count, pcp->high);
	/*
	 * Decays settle at high_min, or at the first high under 8 above it,
	 * where high / 8 rounds to 0 (the kernel's arithmetic too).
	 */
	for (int i = 0; i < 64; i++)
		decay_pcp_high(z, 0);
	ck_assert(pcp->high == lo || (pcp->high > lo && pcp->high < 8));
	ck_assert_int_eq(decay_pcp_high(z, 0), pcp->high > lo);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_free_pages(sim, (uint64_t)pfn, 0, 1, gen);
	mm_sim_destroy(sim);
}
END_TEST

/* n order-0 movable pages on CPU 0, owner 1: the pcp list refills from the buddy */
static void alloc_pages_n(struct mm_sim *sim, long long *pfn, uint32_t *gen, int n)
{
	for (int i = 0; i < n; i++) {
		pfn[i] = mm_alloc_pages(sim, 0, GFP_MOV, -1, 1, &gen[i]);
		ck_assert_int_ge(pfn[i], 0);
	}
}

/*
 * The drain after the decay takes every page above the new high, down to
 * the last one: with high already at its floor (high_min, set here to one
 * below the count two frees left on the list), the decay keeps high and frees
 * exactly the one page above it (to_drain = count - high = 1 > 0).
 */
START_TEST(test_decay_drains_one_page_above_high)
{
	struct mm_sim *sim = pcp_machine();
	struct zone *z = normal(sim);
	struct per_cpu_pages *pcp = &z->per_cpu_pageset[0];
	uint32_t gen[3];
	long long pfn[3];
	struct vrec vr;

	sim_record(sim, &vr);
	alloc_pages_n(sim, pfn, gen, 3);
	pcp->high = pcp->high_max; /* room on the list for the frees */
	for (int i = 1; i < 3; i++)
		mm_free_pages(sim, (uint64_t)pfn[i], 0, 1, gen[i]);
	int count = pcp->count, high_min = pcp->high_min;
	ck_assert_int_ge(count, 2);
	pcp->high_min = pcp->high = count - 1;
	ck_assert_int_eq(decay_pcp_high(z, 0), 1);
	ck_assert_int_eq(pcp->high, count - 1);
	ck_assert_int_eq(pcp->count, count - 1);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	pcp->high_min = high_min;
	mm_free_pages(sim, (uint64_t)pfn[0], 0, 1, gen[0]);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * A high already at high_min does not decay, however many pages a resize
 * left above it: the decay only drains them. 64 pages freed onto CPU 0's
 * list beside what its refills left there, then high_min and high set to 2
 * (as a percpu_pagelist_high_fraction write would): the count term, count -
 * batch << 5, lies above 2 and must not be taken for the rule's high.
 */
START_TEST(test_decay_at_high_min_only_drains)
{
	struct mm_sim *sim = pcp_machine();
	struct zone *z = normal(sim);
	struct per_cpu_pages *pcp = &z->per_cpu_pageset[0];
	uint32_t gen[64];
	long long pfn[64];
	struct vrec vr;

	sim_record(sim, &vr);
	alloc_pages_n(sim, pfn, gen, 64);
	int high_min = pcp->high_min, high_max = pcp->high_max;
	pcp->high_max = pcp->high = 1024;
	for (int i = 0; i < 64; i++)
		mm_free_pages(sim, (uint64_t)pfn[i], 0, 1, gen[i]);
	ck_assert_int_gt(pcp->count - (pcp->batch << CONFIG_PCP_BATCH_SCALE_MAX), 2);
	pcp->high_min = pcp->high = 2;
	decay_pcp_high(z, 0);
	ck_assert_int_eq(pcp->high, 2);
	ck_assert_int_le(pcp->count, 2);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	pcp->high_min = high_min;
	pcp->high_max = pcp->high = high_max;
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/* The vmstat_fold op decays this CPU's highs (refresh_cpu_vm_stats()). */
START_TEST(test_vmstat_fold_decays)
{
	struct mm_sim *sim = pcp_machine();
	struct per_cpu_pages *pcp = &normal(sim)->per_cpu_pageset[0];

	pcp->high = pcp->high_max;
	refresh_cpu_vm_stats(sim, 0);
	ck_assert_int_lt(pcp->high, pcp->high_max);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * A decay that left high off the kernel's value, or pages above it, fires
 * INV-PCP-HIGH-RANGE, in serial runs only.
 */
START_TEST(test_pcp_high_range_fires)
{
	struct mm_sim *sim = pcp_machine();
	struct zone *z = normal(sim);
	struct per_cpu_pages *pcp = &z->per_cpu_pageset[0];
	struct vrec vr;

	sim_record(sim, &vr);
	int hi = pcp->high_max, lo = pcp->high_min;
	pcp->high = hi - (hi >> 3);
	pcp->count = 0;
	ck_assert_uint_eq(_mm_pcp_check_high_range(z, 0, hi, 0), 0);
	pcp->high = lo - 1; /* below high_min */
	ck_assert_uint_eq(_mm_pcp_check_high_range(z, 0, hi, 0), 1);
	pcp->high = lo;
	pcp->count = lo + 1; /* pages above the high not drained */
	ck_assert_uint_eq(_mm_pcp_check_high_range(z, 0, lo, lo + 1), 1);
	ck_assert(vrec_has(&vr, "INV-PCP-HIGH-RANGE"));
	/* under threads other CPUs move count and high: the check judges nothing */
	vrec_init(&vr);
	sim->serial = false;
	ck_assert_uint_eq(_mm_pcp_check_high_range(z, 0, lo, lo + 1), 0);
	ck_assert_uint_eq(vr.n, 0);
	sim->serial = true;
	pcp->count = 0;
	mm_sim_destroy(sim);
}
END_TEST

/*
 * A decay rule (struct mm_policy's decayed_pcp_high, the plugin hook) is
 * judged at each decay_pcp_high() by the kernel's rule the checker keeps:
 * one that forgets high_min, one that raises the high, and one that decays
 * by a fifth are each reported from the decay itself; the kernel's own rule
 * passes, from either start: one page above high_min, where an eighth off
 * falls below it, or high_max.
 */
static int decay_no_floor(int high, int count, int batch, int high_min)
{
	(void)count;
	(void)batch;
	(void)high_min;
	return high - (high >> 3);
}

static int decay_raises(int high, int count, int batch, int high_min)
{
	(void)count;
	(void)batch;
	(void)high_min;
	return high + 1;
}

static int decay_fifth(int high, int count, int batch, int high_min)
{
	(void)count;
	(void)batch;
	return high * 4 / 5 > high_min ? high * 4 / 5 : high_min;
}

START_TEST(test_decay_rule_judged_at_each_decay)
{
	static const struct {
		int (*rule)(int, int, int, int);
		bool from_max; /* else one above high_min */
		bool reported;
	} rows[] = {
		{decayed_pcp_high, false, false}, {decayed_pcp_high, true, false},
		{decay_no_floor, false, true},	  {decay_raises, false, true},
		{decay_raises, true, true},	  {decay_fifth, true, true},
	};
	struct mm_sim *sim = pcp_machine();
	struct zone *z = normal(sim);
	struct per_cpu_pages *pcp = &z->per_cpu_pageset[0];
	struct vrec vr;

	sim_record(sim, &vr);
	sim->policy.decayed_pcp_high = rows[_i].rule;
	int high_min = pcp->high_min, high_max = pcp->high_max;
	/* the sizing of a bigger zone: an eighth of high_min + 1 is a page or more */
	pcp->high_min = 64;
	pcp->high_max = 512;
	pcp->high = rows[_i].from_max ? pcp->high_max : pcp->high_min + 1;
	pcp->count = 0;
	decay_pcp_high(z, 0);
	pcp->high_min = high_min;
	pcp->high_max = pcp->high = high_max;
	ck_assert_msg((vr.n > 0) == rows[_i].reported, "row %d: %u reports, first %s", _i, vr.n,
		      vr.first);
	if (rows[_i].reported)
		ck_assert(vrec_has(&vr, "INV-PCP-HIGH-RANGE"));
	mm_sim_destroy(sim);
}
END_TEST

/*
 * set_reclaim_active() and clear_reclaim_active(): while balance_pgdat()
 * reclaims, ZONE_RECLAIM_ACTIVE (nr_pcp_high() keeps those zones' lists
 * short) is set on exactly the managed zones up to the wake's
 * highest_zoneidx, and on none once the pass is over. Seen from inside the
 * pass through the reclaimer a threaded run lends kswapd: a machine not
 * marked serial, with DMA present (managed or not), DMA32, Normal and
 * Movable managed, and every high mark above its zone's pages so that no
 * wake finds the node balanced.
 */
static unsigned int active_seen[MAX_NR_ZONES], reclaims_seen;

static unsigned long record_reclaim_active(void *arg, int node, unsigned long nr)
{
	struct mm_sim *sim = arg;

	(void)nr;
	reclaims_seen++;
	for (int zt = 0; zt < MAX_NR_ZONES; zt++)
		active_seen[zt] = atomic_load(&sim->node_data[node]->node_zones[zt].flags) &
				  ZONE_RECLAIM_ACTIVE;
	return 0;
}

/* Zones DMA to Movable, 64 pages of DMA (managed if dma_managed), every mark 1024. */
static struct mm_sim *four_zones(bool dma_managed)
{
	struct mm_config cfg;
	struct mm_sim *sim;

	cfg_tiny(&cfg, 1, 4, 3);
	cfg_zone(&cfg, 0, ZONE_DMA, 0, 64, dma_managed ? 64 : 0);
	cfg_zone(&cfg, 0, ZONE_DMA32, 64, 64, 64);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 128, 128, 128);
	cfg_zone(&cfg, 0, ZONE_MOVABLE, 256, 128, 128);
	sim = sim_new(&cfg);
	mm_set_current_cpu(0);
	for (int zt = 0; zt < MAX_NR_ZONES; zt++) {
		struct zone *z = &sim->node_data[0]->node_zones[zt];
		ck_assert_int_eq(managed_zone(z), zt == ZONE_DMA ? dma_managed : zt != ZONE_DEVICE);
		for (int w = 0; w < NR_WMARK; w++)
			z->_watermark[w] = 1024;
	}
	return sim;
}

START_TEST(test_reclaim_active_up_to_highest_zone)
{
	static const struct {
		bool dma_managed;
		enum zone_type highest;
	} rows[] = {
		{false, ZONE_DMA32}, {false, ZONE_NORMAL}, {false, ZONE_MOVABLE}, {true, ZONE_DMA},
		{true, ZONE_DMA32},  {true, ZONE_NORMAL},  {true, ZONE_MOVABLE},
	};
	enum zone_type highest = rows[_i].highest;
	struct mm_sim *sim = four_zones(rows[_i].dma_managed);

	mm_set_reclaimer(sim, record_reclaim_active, sim);
	wakeup_kswapd(&sim->node_data[0]->node_zones[highest], 0, 0, (int)highest);
	ck_assert(mm_kswapd_awake(sim, 0, NULL));
	reclaims_seen = 0;
	ck_assert_int_eq(_mm_kswapd_step(sim, 0), 0);
	ck_assert_uint_eq(reclaims_seen, 1);
	for (int zt = 0; zt < MAX_NR_ZONES; zt++) {
		bool want = managed_zone(&sim->node_data[0]->node_zones[zt]) && zt <= (int)highest;
		ck_assert_msg(!!active_seen[zt] == want,
			      "kswapd up to %s: %s reclaim-active %d during the pass, want %d",
			      mm_zone_name(highest), mm_zone_name((enum zone_type)zt),
			      !!active_seen[zt], want);
		ck_assert(!(atomic_load(&sim->node_data[0]->node_zones[zt].flags) &
			    ZONE_RECLAIM_ACTIVE));
	}
	mm_sim_destroy(sim);
}
END_TEST

/*
 * INV-BOOST-DECAY on the first zone: a managed DMA zone that a run up to
 * Normal leaves boosted fires; a run up to DMA32 that took DMA's boost
 * back does not, and neither does a DMA zone not managed whose boost the
 * run left where it was.
 */
START_TEST(test_boost_decay_checks_dma)
{
	unsigned long before[MAX_NR_ZONES] = {[ZONE_DMA] = 16};
	struct mm_sim *sim = four_zones(true);
	struct zone *dma = &sim->node_data[0]->node_zones[ZONE_DMA];
	struct vrec vr;

	sim_record(sim, &vr);
	dma->watermark_boost = 0;
	ck_assert_uint_eq(_mm_check_boost_decay(sim->node_data[0], ZONE_DMA32, before), 0);
	dma->watermark_boost = 16;
	ck_assert_uint_eq(_mm_check_boost_decay(sim->node_data[0], ZONE_NORMAL, before), 1);
	ck_assert(vrec_has(&vr, "INV-BOOST-DECAY"));
	mm_sim_destroy(sim);

	sim = four_zones(false);
	sim_record(sim, &vr);
	sim->node_data[0]->node_zones[ZONE_DMA].watermark_boost = 16;
	ck_assert_uint_eq(_mm_check_boost_decay(sim->node_data[0], ZONE_NORMAL, before), 0);
	before[ZONE_DMA] = 0;
	ck_assert_uint_eq(_mm_check_boost_decay(sim->node_data[0], ZONE_NORMAL, before), 1);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * A serial kswapd run up to Normal on the four-zone machine takes back a
 * boost left on the first zone, DMA, and the run's own check sees the
 * node's boosts as they were before it: no report.
 */
START_TEST(test_kswapd_takes_back_dma_boost)
{
	struct mm_sim *sim = four_zones(true);
	struct zone *dma = &sim->node_data[0]->node_zones[ZONE_DMA];
	struct vrec vr;

	sim->serial = true;
	sim_record(sim, &vr);
	dma->watermark_boost = 16;
	wakeup_kswapd(&sim->node_data[0]->node_zones[ZONE_NORMAL], 0, 0, ZONE_NORMAL);
	ck_assert(mm_kswapd_awake(sim, 0, NULL));
	ck_assert_int_eq(_mm_kswapd_step(sim, 0), 0);
	ck_assert_uint_eq(dma->watermark_boost, 0);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * pgdat_balanced() from the first zone: with DMA alone at its high mark
 * (64 free pages above a mark of 0) the node is balanced for a Normal
 * request, and with no boost anywhere wakeup_kswapd() leaves kswapd asleep.
 */
START_TEST(test_dma_alone_balances_the_node)
{
	struct mm_sim *sim = four_zones(true);
	struct zone *dma = &sim->node_data[0]->node_zones[ZONE_DMA];

	sim->serial = true;
	for (int w = 0; w < NR_WMARK; w++)
		dma->_watermark[w] = 0;
	ck_assert(pgdat_balanced(sim->node_data[0], 0, ZONE_NORMAL));
	wakeup_kswapd(&sim->node_data[0]->node_zones[ZONE_NORMAL], 0, 0, ZONE_NORMAL);
	ck_assert(!mm_kswapd_awake(sim, 0, NULL));
	mm_sim_destroy(sim);
}
END_TEST

static Suite *boost_suite(void)
{
	Suite *s = suite_create("boost");
	TCase *tc = tcase_create("boost");

	tcase_add_test(tc, test_steal_boosts_then_kswapd_takes_it_back);
	tcase_add_test(tc, test_whole_pageblock_steal_does_not_boost);
	tcase_add_test(tc, test_steal_without_kswapd_flag);
	tcase_add_test(tc, test_kswapd_balanced_unboosted_reclaims_nothing);
	tcase_add_test(tc, test_kswapd_takes_back_only_recorded_boosts);
	tcase_add_test(tc, test_boost_wake_check_counts);
	tcase_add_test(tc, test_boost_capped_by_factor);
	tcase_add_test(tc, test_boost_bound_fires);
	tcase_add_test(tc, test_steal_checks_the_boost_it_grew);
	tcase_add_test(tc, test_boost_decay_fires);
	tcase_add_test(tc, test_nofrag_pass_serves_own_type);
	tcase_add_test(tc, test_nofrag_retry_fires);
	tcase_add_test(tc, test_nofrag_prefers_lower_zone_to_fragmenting);
	tcase_add_test(tc, test_nofrag_retry_fires_on_pageblock_fallback);
	tcase_add_test(tc, test_nofrag_retry_checked_in_the_allocation);
	tcase_add_test(tc, test_decay_pcp_high);
	tcase_add_test(tc, test_decay_drains_one_page_above_high);
	tcase_add_test(tc, test_decay_at_high_min_only_drains);
	tcase_add_test(tc, test_vmstat_fold_decays);
	tcase_add_test(tc, test_pcp_high_range_fires);
	tcase_add_loop_test(tc, test_decay_rule_judged_at_each_decay, 0, 6);
	tcase_add_loop_test(tc, test_reclaim_active_up_to_highest_zone, 0, 7);
	tcase_add_test(tc, test_boost_decay_checks_dma);
	tcase_add_test(tc, test_kswapd_takes_back_dma_boost);
	tcase_add_test(tc, test_dma_alone_balances_the_node);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(boost_suite());
}
