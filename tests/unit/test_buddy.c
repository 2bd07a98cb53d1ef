/* SPDX-License-Identifier: MIT */
/*
 * test_buddy.c - the buddy allocator on machines small enough to work out
 * by hand: expand() on allocation, merging on free, the pageblock
 * migratetype rule of __free_one_page(), zone edges, the free-time stamp
 * checks, migratetype fallback with block stealing, and the full check on
 * a busy machine.
 *
 * Most machines here have max_order 3 and pageblock_order 2: a pageblock
 * is 4 pages, the largest block 8. Their watermarks are all 0 (see
 * cfg_tiny()), so only the buddy lists decide what an allocation gets.
 */
#include "common.h"
#include "internal.h"

#define GFP_MOV (MM_GFP_MOVABLE | MM_GFP_KERNEL) /* MIGRATE_MOVABLE, ZONE_NORMAL */
#define GFP_UNM MM_GFP_KERNEL			 /* MIGRATE_UNMOVABLE, ZONE_NORMAL */

static struct zone *zone_of(struct mm_sim *sim, int node, enum zone_type zt)
{
	return &sim->node_data[node]->node_zones[zt];
}

/* One Normal zone [start, start + spanned), all managed, max_order 3, pageblock_order 2. */
static struct mm_sim *tiny_normal(uint64_t start, uint64_t spanned)
{
	struct mm_config cfg;

	cfg_tiny(&cfg, 1, 3, 2);
	cfg_zone(&cfg, 0, ZONE_NORMAL, start, spanned, spanned);
	return sim_new_buddy_only(&cfg);
}

static long long alloc_ok(struct mm_sim *sim, unsigned int order, unsigned int gfp, uint32_t owner,
			  uint32_t *gen)
{
	long long pfn = mm_alloc_pages(sim, order, gfp, -1, owner, gen);

	ck_assert_msg(pfn >= 0, "order-%u allocation (gfp %#x) failed", order, gfp);
	return pfn;
}

/* ------------------------------------------------------------------------
 * Split and merge
 * ---------------------------------------------------------------------- */

/*
 * Zone [0, 8): one free order-3 block. Allocating order k takes pfn 0 and
 * expand() files the upper halves: order 2 at pfn 4, order 1 at pfn 2,
 * order 0 at pfn 1, down to order k. So nr_free[j] = 1 for k <= j < 3,
 * nr_free[3] = 0, NR_FREE_PAGES = 8 - 2^k, and 3 - k splits. Freeing
 * pfn 0 merges the 3 - k buddies back into the one order-3 block; an
 * order-3 block is freed a pageblock at a time (split_large_buddy(): 0@2
 * then 4@2), which is one merge.
 */
START_TEST(test_split_expand_and_merge_back)
{
	unsigned int k = (unsigned int)_i;
	struct mm_sim *sim = tiny_normal(0, 8);
	unsigned long want[4] = {0, 0, 0, 0};
	const unsigned long initial[4] = {0, 0, 0, 1};
	struct mm_stats st;
	uint32_t gen;

	assert_nr_free(sim, 0, ZONE_NORMAL, initial, 4);
	ck_assert_int_eq(alloc_ok(sim, k, GFP_MOV, 7, &gen), 0);
	for (unsigned int j = k; j < 3; j++)
		want[j] = 1;
	assert_nr_free(sim, 0, ZONE_NORMAL, want, 4);
	ck_assert_int_eq(zinfo(sim, 0, ZONE_NORMAL).nr_free_exact, 8 - (1 << k));
	mm_sim_stats(sim, &st);
	ck_assert_uint_eq(st.splits, 3 - k);
	/* The upper halves sit at pfn 2^j, each on the MOVABLE list of its order. */
	for (unsigned int j = k; j < 3; j++)
		ck_assert_uint_eq(zone_of(sim, 0, ZONE_NORMAL)->free_area[j].head[MIGRATE_MOVABLE],
				  1u << j);
	ck_assert_uint_eq(mm_check_full(sim), 0);

	mm_free_pages(sim, 0, k, 7, gen);
	assert_nr_free(sim, 0, ZONE_NORMAL, initial, 4);
	ck_assert_int_eq(zinfo(sim, 0, ZONE_NORMAL).nr_free_exact, 8);
	mm_sim_stats(sim, &st);
	ck_assert_uint_eq(st.merges, k < 3 ? 3 - k : 1);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	ck_assert_uint_eq(mm_sim_violations(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * Zone [0, 8): order 0 twice gives pfn 0 (split 3 -> 0: free 4@2, 2@1,
 * 1@0), then pfn 1 (the order-0 list's only block). Freeing pfn 0 first
 * cannot merge (its buddy pfn 1 is allocated): nr_free {1, 1, 1, 0}.
 * Freeing pfn 1 then merges 1+0 -> 0@1, +2 -> 0@2, +4 -> 0@3.
 */
START_TEST(test_free_out_of_order_restores)
{
	struct mm_sim *sim = tiny_normal(0, 8);
	const unsigned long one_free[4] = {1, 1, 1, 0};
	const unsigned long initial[4] = {0, 0, 0, 1};
	uint32_t g0, g1;

	ck_assert_int_eq(alloc_ok(sim, 0, GFP_MOV, 1, &g0), 0);
	ck_assert_int_eq(alloc_ok(sim, 0, GFP_MOV, 2, &g1), 1);
	mm_free_pages(sim, 0, 0, 1, g0);
	assert_nr_free(sim, 0, ZONE_NORMAL, one_free, 4);
	ck_assert_int_eq(zinfo(sim, 0, ZONE_NORMAL).nr_free_exact, 7);
	mm_free_pages(sim, 1, 0, 2, g1);
	assert_nr_free(sim, 0, ZONE_NORMAL, initial, 4);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	ck_assert_uint_eq(mm_sim_violations(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * Boot frees memory with FPI_TO_TAIL (__free_pages_core() since 5.10,
 * "place pages to tail"), in ascending pfn order, so the free lists of a
 * fresh zone run low pfn to high and the first allocation gets the lowest
 * pfn. Zone [0, 16) is two order-3 blocks, 0 and 8: order 3 must give 0,
 * then 8.
 */
START_TEST(test_boot_free_to_tail_lowest_pfn_first)
{
	struct mm_sim *sim = tiny_normal(0, 16);
	uint32_t g0, g1;

	ck_assert_int_eq(alloc_ok(sim, 3, GFP_MOV, 1, &g0), 0);
	ck_assert_int_eq(alloc_ok(sim, 3, GFP_MOV, 2, &g1), 8);
	mm_sim_destroy(sim);
}
END_TEST

/* ------------------------------------------------------------------------
 * The pageblock migratetype rule of __free_one_page()
 * ---------------------------------------------------------------------- */

/*
 * Zone [0, 8), pageblocks P0 = [0, 4) and P1 = [4, 8). Takes both order-2
 * blocks (pfn 0 from the split, then pfn 4), sets P0 to mt0 and P1 to
 * mt1, then frees first_pfn and the other one. At order 2 >= pageblock
 * order the buddies merge unless their types differ and one of them is
 * not mergeable (HIGHATOMIC, ISOLATE).
 */
static struct mm_sim *free_two_pageblocks(int mt0, int mt1, uint64_t first_pfn)
{
	struct mm_sim *sim = tiny_normal(0, 8);
	uint32_t gen[2];

	ck_assert_int_eq(alloc_ok(sim, 2, GFP_MOV, 0, &gen[0]), 0);
	ck_assert_int_eq(alloc_ok(sim, 2, GFP_MOV, 1, &gen[1]), 4);
	set_pageblock_migratetype(sim, 0, mt0);
	set_pageblock_migratetype(sim, 4, mt1);
	mm_free_pages(sim, first_pfn, 2, (uint32_t)(first_pfn / 4), gen[first_pfn / 4]);
	mm_free_pages(sim, first_pfn ^ 4, 2, (uint32_t)((first_pfn ^ 4) / 4),
		      gen[(first_pfn ^ 4) / 4]);
	return sim;
}

START_TEST(test_merge_blocked_highatomic_vs_movable)
{
	const unsigned long apart[4] = {0, 0, 2, 0};

	for (uint64_t first = 0; first <= 4; first += 4) {
		struct mm_sim *sim =
			free_two_pageblocks(MIGRATE_HIGHATOMIC, MIGRATE_MOVABLE, first);
		struct zone *z = zone_of(sim, 0, ZONE_NORMAL);

		assert_nr_free(sim, 0, ZONE_NORMAL, apart, 4);
		ck_assert_uint_eq(z->free_area[2].head[MIGRATE_HIGHATOMIC], 0);
		ck_assert_uint_eq(z->free_area[2].head[MIGRATE_MOVABLE], 4);
		ck_assert_int_eq(get_pfnblock_migratetype(sim, 0), MIGRATE_HIGHATOMIC);
		ck_assert_int_eq(get_pfnblock_migratetype(sim, 4), MIGRATE_MOVABLE);
		/* HIGHATOMIC free pages are in NR_FREE_PAGES: 4 + 4. */
		ck_assert_int_eq(zinfo(sim, 0, ZONE_NORMAL).nr_free_exact, 8);
		ck_assert_uint_eq(mm_check_full(sim), 0);
		mm_sim_destroy(sim);
	}
}
END_TEST

START_TEST(test_merge_blocked_isolate_vs_movable)
{
	const unsigned long apart[4] = {0, 0, 2, 0};

	for (uint64_t first = 0; first <= 4; first += 4) {
		struct mm_sim *sim = free_two_pageblocks(MIGRATE_MOVABLE, MIGRATE_ISOLATE, first);
		struct zone *z = zone_of(sim, 0, ZONE_NORMAL);

		assert_nr_free(sim, 0, ZONE_NORMAL, apart, 4);
		ck_assert_uint_eq(z->free_area[2].head[MIGRATE_MOVABLE], 0);
		ck_assert_uint_eq(z->free_area[2].head[MIGRATE_ISOLATE], 4);
		ck_assert_int_eq(get_pfnblock_migratetype(sim, 4), MIGRATE_ISOLATE);
		/* account_freepages() leaves ISOLATE out of NR_FREE_PAGES: 4, not 8. */
		ck_assert_int_eq(zinfo(sim, 0, ZONE_NORMAL).nr_free_exact, 4);
		mm_sim_destroy(sim);
	}
}
END_TEST

/*
 * The kernel's invariant (kernel-semantics.md §8): NR_FREE_PAGES ==
 * sum nr_free * 2^order minus ISOLATE pages, and free + allocated +
 * isolated == managed. With P1 isolated and both blocks free: 4 == 8 - 4
 * and 4 + 0 + 4 == 8, so a correct machine passes the full check.
 */
START_TEST(test_check_counts_isolated_pages)
{
	struct vrec vr;
	struct mm_sim *sim = free_two_pageblocks(MIGRATE_MOVABLE, MIGRATE_ISOLATE, 0);

	vrec_init(&vr);
	mm_sim_set_violation_handler(sim, vrec_handler, &vr);
	ck_assert_msg(mm_check_full(sim) == 0, "isolated free pages reported: %s", vr.first);
	mm_sim_destroy(sim);
}
END_TEST

/* Equal types merge even when not mergeable: mt == buddy_mt. */
START_TEST(test_merge_highatomic_with_highatomic)
{
	const unsigned long merged[4] = {0, 0, 0, 1};
	struct mm_sim *sim = free_two_pageblocks(MIGRATE_HIGHATOMIC, MIGRATE_HIGHATOMIC, 4);
	struct zone *z = zone_of(sim, 0, ZONE_NORMAL);

	assert_nr_free(sim, 0, ZONE_NORMAL, merged, 4);
	ck_assert_uint_eq(z->free_area[3].head[MIGRATE_HIGHATOMIC], 0);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * MOVABLE and UNMOVABLE are both mergeable: the buddies merge, and the
 * buddy's pageblock takes the type of the block being freed ("match buddy
 * type"), so both pageblocks of the order-3 block end up that type.
 */
START_TEST(test_merge_movable_with_unmovable)
{
	const unsigned long merged[4] = {0, 0, 0, 1};
	static const struct {
		uint64_t first;
		int last_mt; /* type of the block freed second */
	} c[] = {
		{0, MIGRATE_MOVABLE},	/* free P0 (UNM), then P1 (MOV): all MOVABLE */
		{4, MIGRATE_UNMOVABLE}, /* free P1 (MOV), then P0 (UNM): all UNMOVABLE */
	};

	for (size_t i = 0; i < ARRAY_SIZE(c); i++) {
		struct mm_sim *sim =
			free_two_pageblocks(MIGRATE_UNMOVABLE, MIGRATE_MOVABLE, c[i].first);
		struct zone *z = zone_of(sim, 0, ZONE_NORMAL);

		assert_nr_free(sim, 0, ZONE_NORMAL, merged, 4);
		ck_assert_uint_eq(z->free_area[3].head[c[i].last_mt], 0);
		ck_assert_int_eq(get_pfnblock_migratetype(sim, 0), c[i].last_mt);
		ck_assert_int_eq(get_pfnblock_migratetype(sim, 4), c[i].last_mt);
		ck_assert_int_eq(zinfo(sim, 0, ZONE_NORMAL).nr_free_exact, 8);
		ck_assert_uint_eq(mm_check_full(sim), 0);
		mm_sim_destroy(sim);
	}
}
END_TEST

/* ------------------------------------------------------------------------
 * Zone edges
 * ---------------------------------------------------------------------- */

/*
 * Zone [1, 16): the boot free takes the largest aligned block that fits:
 * 1@0, 2@1, 4@2, 8@3. None merges: every buddy (pfn 0 at orders 0, 1, 2)
 * is outside the zone. So nr_free {1, 1, 1, 1} and 15 free pages; an
 * order-0 allocation gets pfn 1 and freeing it leaves it alone again.
 */
START_TEST(test_unaligned_zone_start)
{
	struct mm_sim *sim = tiny_normal(1, 15);
	const unsigned long boot[4] = {1, 1, 1, 1};
	uint32_t gen;

	assert_nr_free(sim, 0, ZONE_NORMAL, boot, 4);
	ck_assert_int_eq(zinfo(sim, 0, ZONE_NORMAL).nr_free_exact, 15);
	ck_assert_uint_eq(mm_check_full(sim), 0);

	for (unsigned int order = 0; order < 3; order++) {
		/* The order-k list holds exactly the block at pfn 2^k (pfn 1 for k = 0). */
		long long pfn = alloc_ok(sim, order, GFP_MOV, order, &gen);
		ck_assert_int_eq(pfn, 1 << order);
		mm_free_pages(sim, (uint64_t)pfn, order, order, gen);
		assert_nr_free(sim, 0, ZONE_NORMAL, boot, 4);
	}
	ck_assert_int_eq(zinfo(sim, 0, ZONE_NORMAL).nr_free_exact, 15);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	ck_assert_uint_eq(mm_sim_violations(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * DMA32 [0, 4) and Normal [4, 16): DMA32 is one order-2 block at 0;
 * Normal is 4@2 and 8@3. Blocks 0@2 and 4@2 are buddies by pfn but in
 * different zones, so they never merge: not at boot, not when either is
 * freed with the other free.
 */
START_TEST(test_adjacent_zones_never_merge)
{
	struct mm_config cfg;
	struct mm_sim *sim;
	const unsigned long dma32[4] = {0, 0, 1, 0};
	const unsigned long normal[4] = {0, 0, 1, 1};
	uint32_t gn, gd;

	cfg_tiny(&cfg, 1, 3, 2);
	cfg_zone(&cfg, 0, ZONE_DMA32, 0, 4, 4);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 4, 12, 12);
	sim = sim_new_buddy_only(&cfg);
	assert_nr_free(sim, 0, ZONE_DMA32, dma32, 4);
	assert_nr_free(sim, 0, ZONE_NORMAL, normal, 4);

	ck_assert_int_eq(alloc_ok(sim, 2, GFP_MOV, 1, &gn), 4); /* Normal's order-2 block */
	ck_assert_int_eq(alloc_ok(sim, 2, MM_GFP_DMA32 | MM_GFP_KERNEL, 2, &gd), 0);
	mm_free_pages(sim, 4, 2, 1, gn);
	mm_free_pages(sim, 0, 2, 2, gd);
	assert_nr_free(sim, 0, ZONE_DMA32, dma32, 4);
	assert_nr_free(sim, 0, ZONE_NORMAL, normal, 4);

	ck_assert_int_eq(alloc_ok(sim, 2, MM_GFP_DMA32 | MM_GFP_KERNEL, 3, &gd), 0);
	mm_free_pages(sim, 0, 2, 3, gd); /* buddy 4@2 is free, in Normal */
	assert_nr_free(sim, 0, ZONE_DMA32, dma32, 4);
	assert_nr_free(sim, 0, ZONE_NORMAL, normal, 4);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	ck_assert_uint_eq(mm_sim_violations(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * The per-input reset reuses the memmap. Machine A (DMA32 [0, 8), Normal
 * [8, 16)) leaves a free DMA32 order-2 block at pfn 4 after an order-2
 * allocation at 0. Machine B (DMA32 [0, 4), Normal [4, 16)) frees DMA32's
 * 0@2 at boot, whose buddy pfn 4 still holds A's descriptor: B must see
 * pfn 4 as Normal's and not merge across its zone edge.
 */
START_TEST(test_reinit_ignores_stale_memmap)
{
	struct mm_config a, b;
	struct mm_sim *sim;
	const unsigned long dma32[4] = {0, 0, 1, 0};
	const unsigned long normal[4] = {0, 0, 1, 1};
	uint32_t gen;

	cfg_tiny(&a, 1, 3, 2);
	cfg_zone(&a, 0, ZONE_DMA32, 0, 8, 8);
	cfg_zone(&a, 0, ZONE_NORMAL, 8, 8, 8);
	sim = sim_new_buddy_only(&a);
	ck_assert_int_eq(alloc_ok(sim, 2, MM_GFP_DMA32 | MM_GFP_KERNEL, 1, &gen), 0);

	cfg_tiny(&b, 1, 3, 2);
	cfg_zone(&b, 0, ZONE_DMA32, 0, 4, 4);
	cfg_zone(&b, 0, ZONE_NORMAL, 4, 12, 12);
	ck_assert_int_eq(mm_sim_init(sim, &b, -1), 0);
	assert_nr_free(sim, 0, ZONE_DMA32, dma32, 4);
	assert_nr_free(sim, 0, ZONE_NORMAL, normal, 4);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/* ------------------------------------------------------------------------
 * Bad frees: the violation handler gets the id
 * ---------------------------------------------------------------------- */

static struct mm_sim *tiny_recorded(struct vrec *vr)
{
	struct mm_sim *sim = tiny_normal(0, 8);

	vrec_init(vr);
	mm_sim_set_violation_handler(sim, vrec_handler, vr);
	return sim;
}

START_TEST(test_double_free_reported)
{
	struct vrec vr;
	struct mm_sim *sim = tiny_recorded(&vr);
	uint32_t gen;
	long long pfn = alloc_ok(sim, 0, GFP_MOV, 5, &gen);

	mm_free_pages(sim, (uint64_t)pfn, 0, 5, gen);
	ck_assert_uint_eq(vr.n, 0);
	mm_free_pages(sim, (uint64_t)pfn, 0, 5, gen);
	ck_assert_uint_eq(vr.n, 1);
	ck_assert_str_eq(vr.id[0], "INV-FREE-BAD");
	ck_assert_uint_eq(mm_sim_violations(sim), 1);
	/* The bad free changed nothing. */
	ck_assert_int_eq(zinfo(sim, 0, ZONE_NORMAL).nr_free_exact, 8);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

START_TEST(test_stamp_mismatch_reported)
{
	struct vrec vr;
	struct mm_sim *sim = tiny_recorded(&vr);
	uint32_t gen;
	long long pfn = alloc_ok(sim, 1, GFP_MOV, 5, &gen);

	mm_free_pages(sim, (uint64_t)pfn, 1, 5, gen + 1); /* wrong generation */
	mm_free_pages(sim, (uint64_t)pfn, 1, 6, gen);	  /* wrong owner */
	ck_assert_uint_eq(vr.n, 2);
	ck_assert_str_eq(vr.id[0], "INV-PAGE-STAMP");
	ck_assert_str_eq(vr.id[1], "INV-PAGE-STAMP");
	mm_free_pages(sim, (uint64_t)pfn, 0, 5, gen); /* wrong order */
	ck_assert_uint_eq(vr.n, 3);
	ck_assert_str_eq(vr.id[2], "INV-FREE-BAD");
	/* Still allocated: 8 - 2 free. The right free then goes through. */
	ck_assert_int_eq(zinfo(sim, 0, ZONE_NORMAL).nr_free_exact, 6);
	mm_free_pages(sim, (uint64_t)pfn, 1, 5, gen);
	ck_assert_uint_eq(vr.n, 3);
	ck_assert_int_eq(zinfo(sim, 0, ZONE_NORMAL).nr_free_exact, 8);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * A stale handle: A is freed, B gets the same pfn, A is freed again. At
 * order 0 only the head's stamp tells them apart.
 */
START_TEST(test_stale_handle_reported)
{
	unsigned int order = (unsigned int)_i;
	struct vrec vr;
	struct mm_sim *sim = tiny_recorded(&vr);
	uint32_t ga, gb;
	long long a = alloc_ok(sim, order, GFP_MOV, 1, &ga);

	mm_free_pages(sim, (uint64_t)a, order, 1, ga);
	ck_assert_int_eq(alloc_ok(sim, order, GFP_MOV, 2, &gb), a);
	ck_assert_uint_ne(ga, gb);
	long free_before = zinfo(sim, 0, ZONE_NORMAL).nr_free_exact;
	mm_free_pages(sim, (uint64_t)a, order, 1, ga);
	ck_assert_uint_eq(vr.n, 1);
	ck_assert_str_eq(vr.id[0], "INV-PAGE-STAMP");
	ck_assert_int_eq(zinfo(sim, 0, ZONE_NORMAL).nr_free_exact, free_before);
	mm_free_pages(sim, (uint64_t)a, order, 2, gb);
	ck_assert_uint_eq(vr.n, 1);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/* The last violation, whole. */
static void last_violation(const struct mm_violation *v, void *arg)
{
	*(struct mm_violation *)arg = *v;
}

/*
 * A free of an order past max_order (3) at an allocated order-0 head:
 * INV-FREE-BAD at the zone, the order freed against the head's order
 * (docs/invariants.md), and the page stays allocated. Order 64 too, the
 * width of a pfn: no shift by it.
 */
START_TEST(test_free_past_max_order_reported)
{
	static const unsigned int orders[] = {4, 63, 64, 1u << 31};
	struct mm_sim *sim = tiny_normal(0, 8);
	struct mm_violation v;
	uint32_t gen;
	long long pfn = alloc_ok(sim, 0, GFP_MOV, 5, &gen);

	mm_sim_set_violation_handler(sim, last_violation, &v);
	for (size_t i = 0; i < ARRAY_SIZE(orders); i++) {
		memset(&v, 0, sizeof(v));
		mm_free_pages(sim, (uint64_t)pfn, orders[i], 5, gen);
		ck_assert_msg(v.id && !strcmp(v.id, "INV-FREE-BAD") && v.node == 0 &&
				      v.zone == ZONE_NORMAL && v.pfn == pfn &&
				      v.expected == orders[i] && v.actual == 0,
			      "order %u: %s node %d zone %d pfn %lld expected %lld actual %lld",
			      orders[i], v.id ? v.id : "nothing", v.node, v.zone, v.pfn, v.expected,
			      v.actual);
		ck_assert_int_eq(zinfo(sim, 0, ZONE_NORMAL).nr_free_exact, 7);
	}
	ck_assert_uint_eq(mm_sim_violations(sim), ARRAY_SIZE(orders));
	mm_free_pages(sim, (uint64_t)pfn, 0, 5, gen);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	ck_assert_uint_eq(mm_sim_violations(sim), ARRAY_SIZE(orders));
	mm_sim_destroy(sim);
}
END_TEST

/* Zone [0, 8) with managed 6: pfns 6 and 7 are reserved, nothing hands them out. */
START_TEST(test_free_reserved_pfn_reported)
{
	struct mm_config cfg;
	struct vrec vr;
	struct mm_sim *sim;

	cfg_tiny(&cfg, 1, 3, 2);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 8, 6);
	sim = sim_new_buddy_only(&cfg);
	vrec_init(&vr);
	mm_sim_set_violation_handler(sim, vrec_handler, &vr);
	mm_free_pages(sim, 6, 0, 0, 1);
	mm_free_pages(sim, 8, 0, 0, 1); /* past the end of the machine */
	ck_assert_uint_eq(vr.n, 2);
	ck_assert_str_eq(vr.id[0], "INV-FREE-BAD");
	ck_assert_str_eq(vr.id[1], "INV-FREE-BAD");
	ck_assert_int_eq(zinfo(sim, 0, ZONE_NORMAL).nr_free_exact, 6);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/* ------------------------------------------------------------------------
 * Migratetype fallback
 * ---------------------------------------------------------------------- */

/*
 * Zone [0, 8), everything MOVABLE. An UNMOVABLE order-0 request finds no
 * UNMOVABLE block; __rmqueue_fallback() takes the largest fallback block,
 * 0@3 on MOVABLE (fallbacks[UNM] = RECL, MOV). Order 3 >= pageblock
 * order: steal_suitable_fallback() claims the whole range, both
 * pageblocks become UNMOVABLE and expand() files 4@2, 2@1, 1@0 there.
 */
START_TEST(test_fallback_steals_whole_range)
{
	struct mm_sim *sim = tiny_normal(0, 8);
	struct zone *z = zone_of(sim, 0, ZONE_NORMAL);
	const unsigned long left[4] = {1, 1, 1, 0};
	struct mm_stats st;
	uint32_t gen;

	ck_assert_int_eq(alloc_ok(sim, 0, GFP_UNM, 1, &gen), 0);
	ck_assert_int_eq(get_pfnblock_migratetype(sim, 0), MIGRATE_UNMOVABLE);
	ck_assert_int_eq(get_pfnblock_migratetype(sim, 4), MIGRATE_UNMOVABLE);
	assert_nr_free(sim, 0, ZONE_NORMAL, left, 4);
	for (unsigned int o = 0; o < 3; o++)
		ck_assert_uint_eq(z->free_area[o].head[MIGRATE_UNMOVABLE], 1u << o);
	mm_sim_stats(sim, &st);
	ck_assert_uint_eq(st.fallbacks, 1);
	ck_assert_uint_eq(st.blocks_stolen, 1);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_free_pages(sim, 0, 0, 1, gen);
	ck_assert_int_eq(zinfo(sim, 0, ZONE_NORMAL).nr_free_exact, 8);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * Zone [0, 8). MOVABLE order 0 takes pfn 0 (free: 1@0, 2@1, 4@2), MOVABLE
 * order 2 takes pfn 4: P1 is full, P0 holds free 1@0 and 2@1. An
 * UNMOVABLE order-0 request falls back at order 1 (2@1 on MOVABLE);
 * can_steal since the requester is UNMOVABLE. In P0:
 *   free_pages = 1 + 2 = 3, movable_pages = 1 (pfn 0),
 *   alike = 4 - (3 + 1) = 0 (UNMOVABLE into a MOVABLE block),
 *   3 + 0 >= 2^(2-1) = 2: the whole pageblock moves to UNMOVABLE
 * and __rmqueue_smallest(UNMOVABLE) takes 1@0. P1 stays MOVABLE.
 */
START_TEST(test_fallback_steals_pageblock)
{
	struct mm_sim *sim = tiny_normal(0, 8);
	struct zone *z = zone_of(sim, 0, ZONE_NORMAL);
	const unsigned long left[4] = {0, 1, 0, 0};
	struct mm_stats st;
	uint32_t g0, g4, g1;

	ck_assert_int_eq(alloc_ok(sim, 0, GFP_MOV, 0, &g0), 0);
	ck_assert_int_eq(alloc_ok(sim, 2, GFP_MOV, 4, &g4), 4);
	ck_assert_int_eq(alloc_ok(sim, 0, GFP_UNM, 1, &g1), 1);
	ck_assert_int_eq(get_pfnblock_migratetype(sim, 0), MIGRATE_UNMOVABLE);
	ck_assert_int_eq(get_pfnblock_migratetype(sim, 4), MIGRATE_MOVABLE);
	assert_nr_free(sim, 0, ZONE_NORMAL, left, 4);
	ck_assert_uint_eq(z->free_area[1].head[MIGRATE_UNMOVABLE], 2);
	ck_assert_int_eq(zinfo(sim, 0, ZONE_NORMAL).nr_free_exact, 2);
	mm_sim_stats(sim, &st);
	ck_assert_uint_eq(st.blocks_stolen, 1);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_free_pages(sim, 1, 0, 1, g1);
	mm_free_pages(sim, 4, 2, 4, g4);
	mm_free_pages(sim, 0, 0, 0, g0);
	ck_assert_int_eq(zinfo(sim, 0, ZONE_NORMAL).nr_free_exact, 8);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	ck_assert_uint_eq(mm_sim_violations(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/* ------------------------------------------------------------------------
 * The full check on a busy machine
 * ---------------------------------------------------------------------- */

struct blk {
	long long pfn;
	unsigned int order;
	uint32_t owner, gen;
};

/*
 * The default machine (DMA32 + Normal, 1024 pages each), serial so the
 * admission invariant runs too: 4000 random allocations and frees of
 * orders 0-5 keep up to 96 blocks live. A correct core reports nothing,
 * and freeing everything gives each zone back all its managed pages.
 */
START_TEST(test_check_full_busy_machine)
{
	struct mm_config cfg;
	struct mm_sim *sim;
	struct vrec vr;
	struct rng r = {0x6275646479ULL};
	struct blk live[96];
	unsigned int nr_live = 0, nr_ok = 0;

	mm_config_default(&cfg);
	sim = sim_new_buddy_only(&cfg);
	sim->serial = true;
	vrec_init(&vr);
	mm_sim_set_violation_handler(sim, vrec_handler, &vr);

	for (uint32_t i = 0; i < 4000; i++) {
		mm_set_current_cpu((int)rng_below(&r, 2));
		if (nr_live < ARRAY_SIZE(live) && (nr_live == 0 || rng_below(&r, 100) < 55)) {
			struct blk *b = &live[nr_live];
			unsigned int gfp = mm_gfp_common[rng_below(&r, MM_NR_GFP_COMMON)];

			b->order = rng_below(&r, 6);
			b->owner = i;
			b->pfn = mm_alloc_pages(sim, b->order, gfp, -1, b->owner, &b->gen);
			if (b->pfn >= 0) {
				nr_live++;
				nr_ok++;
			}
		} else {
			unsigned int k = rng_below(&r, nr_live);

			mm_free_pages(sim, (uint64_t)live[k].pfn, live[k].order, live[k].owner,
				      live[k].gen);
			live[k] = live[--nr_live];
		}
		if (i % 500 == 499)
			ck_assert_msg(mm_check_full(sim) == 0, "op %u: %s", i, vr.first);
	}
	ck_assert_uint_gt(nr_ok, 1000);
	ck_assert_msg(mm_check_full(sim) == 0, "%s", vr.first);
	while (nr_live) {
		struct blk *b = &live[--nr_live];
		mm_free_pages(sim, (uint64_t)b->pfn, b->order, b->owner, b->gen);
	}
	ck_assert_msg(vr.n == 0, "%u violations, first: %s", vr.n, vr.first);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	for (enum zone_type zt = ZONE_DMA32; zt <= ZONE_NORMAL; zt++) {
		struct mm_zone_info zi = zinfo(sim, 0, zt);
		ck_assert_int_eq(zi.nr_free_exact, (long)zi.managed);
	}
	mm_sim_destroy(sim);
}
END_TEST

static Suite *buddy_suite(void)
{
	Suite *s = suite_create("buddy");
	TCase *tc = tcase_create("split-merge");

	tcase_add_loop_test(tc, test_split_expand_and_merge_back, 0, 4);
	tcase_add_test(tc, test_free_out_of_order_restores);
	tcase_add_test(tc, test_boot_free_to_tail_lowest_pfn_first);
	suite_add_tcase(s, tc);

	tc = tcase_create("pageblock-merge");
	tcase_add_test(tc, test_merge_blocked_highatomic_vs_movable);
	tcase_add_test(tc, test_merge_blocked_isolate_vs_movable);
	tcase_add_test(tc, test_check_counts_isolated_pages);
	tcase_add_test(tc, test_merge_highatomic_with_highatomic);
	tcase_add_test(tc, test_merge_movable_with_unmovable);
	suite_add_tcase(s, tc);

	tc = tcase_create("zone-edges");
	tcase_add_test(tc, test_unaligned_zone_start);
	tcase_add_test(tc, test_adjacent_zones_never_merge);
	tcase_add_test(tc, test_reinit_ignores_stale_memmap);
	suite_add_tcase(s, tc);

	tc = tcase_create("bad-free");
	tcase_add_test(tc, test_double_free_reported);
	tcase_add_test(tc, test_stamp_mismatch_reported);
	tcase_add_loop_test(tc, test_stale_handle_reported, 0, 3);
	tcase_add_test(tc, test_free_reserved_pfn_reported);
	tcase_add_test(tc, test_free_past_max_order_reported);
	suite_add_tcase(s, tc);

	tc = tcase_create("fallback");
	tcase_add_test(tc, test_fallback_steals_whole_range);
	tcase_add_test(tc, test_fallback_steals_pageblock);
	suite_add_tcase(s, tc);

	tc = tcase_create("busy");
	tcase_add_test(tc, test_check_full_busy_machine);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(buddy_suite());
}
