/* SPDX-License-Identifier: MIT */
/*
 * test_pcp_flush.c - the checks of a pcp flush (free_pcppages_bulk()) at
 * their edges, where no correct flush goes:
 *
 *   INV-PCP-FLUSH: asked for expect pages, a flush frees whole blocks of
 *   order <= PAGE_ALLOC_COSTLY_ORDER until expect is met: at least expect,
 *   at most expect + 7 (a last order-3 block taken for one page).
 *
 *   INV-PCP-FLUSH-MT: a flushed page goes to the free list of its
 *   pageblock's migratetype as it is now; under pcp-stale-migratetype
 *   (before 51bb1a4093cc) of the type the block had when the page was
 *   listed, and of no other type.
 */
#include "common.h"
#include "internal.h"

/* The bound over a grid: ok iff expect <= freed <= expect + 2^3 - 1. */
START_TEST(test_flush_count_bound)
{
	static const int expects[] = {1, 2, 7, 8, 31, 63, 1000};

	for (size_t i = 0; i < ARRAY_SIZE(expects); i++) {
		int expect = expects[i];

		for (int freed = expect - 2; freed <= expect + 10; freed++) {
			bool want = freed >= expect && freed <= expect + 7;

			ck_assert_msg(_mm_pcp_flush_count_ok(expect, freed) == want,
				      "asked %d, freed %d: %s, want %s", expect, freed,
				      want ? "refused" : "accepted", want ? "accepted" : "refused");
		}
	}
}
END_TEST

#define GFP_MOV (MM_GFP_MOVABLE | MM_GFP_KERNEL)

/*
 * Two CPUs, one Normal zone of 65536 pages (pcp batch 15), with or
 * without the variant; violations recorded in vr.
 */
static struct mm_sim *flush_sim(const char *variant, struct vrec *vr)
{
	struct mm_config cfg;
	struct mm_sim *sim;

	cfg_tiny(&cfg, 2, 10, 9);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 65536, 65536);
	sim = variant ? sim_new_variant(&cfg, variant) : sim_new(&cfg);
	sim_record(sim, vr);
	mm_set_current_cpu(0);
	return sim;
}

static struct page *page_at(struct mm_sim *sim, long long pfn)
{
	return &sim->mem_map[pfn];
}

/* An order-0 movable page for cpu0: the first one refills its pcp list. */
static long long alloc_movable(struct mm_sim *sim, uint32_t *gen)
{
	long long pfn = mm_alloc_pages(sim, 0, GFP_MOV, -1, 1, gen);

	ck_assert_int_ge(pfn, 0);
	return pfn;
}

/* Frees it to cpu0's pcp list, where it waits. */
static void free_to_pcp(struct mm_sim *sim, long long pfn, uint32_t gen)
{
	mm_free_pages(sim, (uint64_t)pfn, 0, 1, gen);
	ck_assert_int_eq(page_at(sim, pfn)->state, PG_PCP);
}

/* No violation on the way, the full scan clean. */
static void assert_clean_destroy(struct mm_sim *sim, const struct vrec *vr)
{
	ck_assert_msg(vr->n == 0, "%s", vr->first);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}

/*
 * What stealing a whole block does (try_to_claim_block()): its free pages
 * refiled from old_mt to new_mt, then the block retyped, under zone->lock.
 */
static void retype_block(struct mm_sim *sim, long long pfn, int old_mt, int new_mt)
{
	struct zone *z = &sim->node_data[0]->node_zones[ZONE_NORMAL];
	uint64_t start = (uint64_t)pfn & ~((UINT64_C(1) << sim->pageblock_order) - 1);

	zone_lock(z);
	__move_freepages_block(z, start, old_mt, new_mt);
	set_pageblock_migratetype(sim, start, new_mt);
	zone_unlock(z);
}

static const char *const both[] = {NULL, "pcp-stale-migratetype"};

/* A zone_highsize() policy below the kernel's 4 * batch floor: two batches. */
static int highsize_two_batches(unsigned long total_pages, int batch, int nr_split_cpus)
{
	(void)total_pages;
	(void)nr_split_cpus;
	return batch << 1;
}

/*
 * nr_pcp_high() while kswapd reclaims the zone (ZONE_RECLAIM_ACTIVE): the
 * effective high is min(4 * batch, high). The kernel's zone_highsize()
 * never sizes a high below 4 * batch, but a policy under test may: with
 * one of two batches (batch 15 on a 65536-page zone, high 30) a free must
 * flush once the list holds 30 pages, so no free leaves more than 30 on
 * it, where 4 * batch would let it grow to 60.
 */
START_TEST(test_reclaim_active_high_is_the_smaller)
{
	struct vrec vr;
	struct mm_sim *sim = flush_sim(NULL, &vr);
	struct zone *z = &sim->node_data[0]->node_zones[ZONE_NORMAL];
	const struct per_cpu_pages *pcp = &z->per_cpu_pageset[0];
	long long pfn[50];
	uint32_t gen[50];

	sim->policy.zone_highsize = highsize_two_batches;
	zone_pcp_update(z, 0);
	ck_assert_int_eq(pcp->batch, 15);
	ck_assert_int_eq(pcp->high_min, 30);
	ck_assert_int_eq(pcp->high_max, 30);
	for (int i = 0; i < 50; i++) {
		pfn[i] = mm_alloc_pages(sim, 0, MM_GFP_KERNEL, 0, (uint32_t)i, &gen[i]);
		ck_assert_int_ge(pfn[i], 0);
	}
	mm_drain_local_pages(sim);
	ck_assert_int_eq(pcp->count, 0);
	atomic_fetch_or(&z->flags, ZONE_RECLAIM_ACTIVE);
	for (int i = 0; i < 50; i++) {
		mm_free_pages(sim, (uint64_t)pfn[i], 0, (uint32_t)i, gen[i]);
		ck_assert_msg(pcp->count <= 30, "free %d leaves %d pages on the list", i,
			      pcp->count);
	}
	atomic_fetch_and(&z->flags, ~ZONE_RECLAIM_ACTIVE);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * zone_set_pageset_high_and_batch() takes the batch zone_batchsize()
 * gives, at least 1 (max(1, zone_batchsize())): the kernel's rule yields
 * 2^n - 1 or 0, a policy under test any value, 2 included.
 */
static const int policy_batches[] = {-3, 0, 1, 2, 3, 4, 64};
static int policy_batch;

static int batchsize_of_row(unsigned long managed)
{
	(void)managed;
	return policy_batch;
}

START_TEST(test_policy_batch_at_least_one)
{
	struct vrec vr;
	struct mm_sim *sim = flush_sim(NULL, &vr);
	struct zone *z = &sim->node_data[0]->node_zones[ZONE_NORMAL];
	int want = policy_batches[_i] > 1 ? policy_batches[_i] : 1;

	policy_batch = policy_batches[_i];
	sim->policy.zone_batchsize = batchsize_of_row;
	zone_pcp_update(z, 0);
	for (unsigned int cpu = 0; cpu < sim->nr_cpus; cpu++)
		ck_assert_msg(z->per_cpu_pageset[cpu].batch == want,
			      "policy batch %d: cpu %u's batch is %d, not %d", policy_batch, cpu,
			      z->per_cpu_pageset[cpu].batch, want);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * nr_pcp_alloc() takes one block only from lists that are off (high below
 * batch); a high of exactly one batch refills a batch. Under
 * pcp-high-equals-batch (batch and high 15) the first order-0 request on
 * an empty list takes 15 pages from the buddy and hands one out.
 */
START_TEST(test_refill_at_high_equal_to_batch)
{
	struct vrec vr;
	struct mm_sim *sim = flush_sim("pcp-high-equals-batch", &vr);
	const struct per_cpu_pages *pcp =
		&sim->node_data[0]->node_zones[ZONE_NORMAL].per_cpu_pageset[0];
	uint32_t gen;

	ck_assert_int_eq(pcp->batch, 15);
	ck_assert_int_eq(pcp->high_max, 15);
	ck_assert_int_eq(pcp->count, 0);
	ck_assert_int_ge(mm_alloc_pages(sim, 0, MM_GFP_KERNEL, 0, 1, &gen), 0);
	ck_assert_int_eq(pcp->count, 14);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * With high equal to batch, nr_pcp_free() asks free_pcppages_bulk() for
 * clamp(free_count, batch, high - batch) = 0 pages. The kernel's function
 * has no early return: it takes zone->lock, frees nothing and lets go.
 * Under pcp-high-equals-batch (batch and high 15), 20 order-0 frees on a
 * drained list flush at each of the last six (count 15..20 >= 15): six
 * lock round trips, no page back to the buddy, all 20 still listed.
 */
START_TEST(test_empty_flush_takes_zone_lock)
{
	struct vrec vr;
	struct mm_sim *sim = flush_sim("pcp-high-equals-batch", &vr);
	const struct per_cpu_pages *pcp =
		&sim->node_data[0]->node_zones[ZONE_NORMAL].per_cpu_pageset[0];
	long long pfn[20];
	uint32_t gen[20];
	struct mm_stats st0, st;

	for (int i = 0; i < 20; i++) {
		pfn[i] = mm_alloc_pages(sim, 0, MM_GFP_KERNEL, 0, (uint32_t)i, &gen[i]);
		ck_assert_int_ge(pfn[i], 0);
	}
	mm_drain_local_pages(sim);
	ck_assert_int_eq(pcp->count, 0);
	st0 = sim_stats(sim);
	for (int i = 0; i < 20; i++)
		mm_free_pages(sim, (uint64_t)pfn[i], 0, (uint32_t)i, gen[i]);
	st = sim_stats(sim);
	ck_assert_int_eq(pcp->count, 20);
	ck_assert_uint_eq(st.pcp_drains_high - st0.pcp_drains_high, 6);
	ck_assert_uint_eq(st.pcp_bulk_frees - st0.pcp_bulk_frees, 6);
	ck_assert_uint_eq(st.pcp_pages_flushed - st0.pcp_pages_flushed, 0);
	ck_assert(!vrec_has(&vr, "INV-PCP-FLUSH"));
	mm_sim_destroy(sim);
}
END_TEST

/*
 * An order-0 allocation refills cpu0's list from the buddy (rmqueue_bulk():
 * a batch of MOVABLE pages stays listed) and its free lists one more
 * (free_unref_page()). Nothing retypes the block, so the variant's cached
 * types are right: the drain is clean with the variant and without.
 */
START_TEST(test_flush_without_retype_is_clean)
{
	struct vrec vr;
	struct mm_sim *sim = flush_sim(both[_i], &vr);
	uint32_t gen;
	long long pfn = alloc_movable(sim, &gen);

	ck_assert_uint_gt(pcpinfo(sim, 0, ZONE_NORMAL, 0).count, 0);
	free_to_pcp(sim, pfn, gen);
	mm_drain_all_pages(sim);
	ck_assert_uint_eq(pcpinfo(sim, 0, ZONE_NORMAL, 0).count, 0);
	assert_clean_destroy(sim, &vr);
}
END_TEST

/*
 * A page whose block was retyped while it was allocated is listed, when
 * freed, with the block's new type (free_unref_page() reads it then), and
 * the drain frees it as that type: clean with the variant and without.
 */
START_TEST(test_flush_of_page_freed_after_retype_is_clean)
{
	struct vrec vr;
	struct mm_sim *sim = flush_sim(both[_i], &vr);
	uint32_t gen;
	long long pfn = alloc_movable(sim, &gen);

	mm_drain_all_pages(sim); /* the rest of the refill goes back first */
	retype_block(sim, pfn, MIGRATE_MOVABLE, MIGRATE_UNMOVABLE);
	free_to_pcp(sim, pfn, gen);
	mm_drain_all_pages(sim);
	assert_clean_destroy(sim, &vr);
}
END_TEST

/*
 * The variant's window: the block is retyped while pages of it wait on a
 * pcp list. The drain frees them as the type they were listed with, which
 * INV-PCP-FLUSH-MT allows (it is the bug the variant models; INV-BUDDY-MT
 * sees the result at the full scan); the fixed model frees them as the new
 * type and stays clean.
 */
START_TEST(test_flush_after_retype)
{
	struct vrec vr;
	struct mm_sim *sim = flush_sim(both[_i], &vr);
	uint32_t gen;
	long long pfn = alloc_movable(sim, &gen);

	free_to_pcp(sim, pfn, gen);
	retype_block(sim, pfn, MIGRATE_MOVABLE, MIGRATE_UNMOVABLE);
	mm_drain_all_pages(sim);
	ck_assert(!vrec_has(&vr, "INV-PCP-FLUSH-MT"));
	mm_check_full(sim);
	if (both[_i])
		ck_assert_msg(vrec_has(&vr, "INV-BUDDY-MT"), "the variant's stale type unseen");
	else
		ck_assert_msg(vr.n == 0, "%s", vr.first);
	mm_sim_destroy(sim);
}
END_TEST

/* The first INV-PCP-FLUSH-MT reported, whole. */
static void keep_flush_mt(const struct mm_violation *v, void *arg)
{
	struct mm_violation *first = arg;

	if (!first->id && !strcmp(v->id, "INV-PCP-FLUSH-MT"))
		*first = *v;
}

/*
 * A cached type stale for a reason the variant does not model (here set
 * to UNMOVABLE behind the pcp's back): the drain reports INV-PCP-FLUSH-MT
 * at that pfn, expected the type at listing (MOVABLE), actual UNMOVABLE.
 */
START_TEST(test_flush_mt_fires)
{
	struct vrec vr;
	struct mm_sim *sim = flush_sim("pcp-stale-migratetype", &vr);
	struct mm_violation first = {0};
	uint32_t gen;
	long long pfn = alloc_movable(sim, &gen);

	free_to_pcp(sim, pfn, gen);
	page_at(sim, pfn)->alloc_mt = MIGRATE_UNMOVABLE;
	mm_sim_set_violation_handler(sim, keep_flush_mt, &first);
	mm_drain_all_pages(sim);
	ck_assert_msg(first.id, "no INV-PCP-FLUSH-MT for a page freed as a type it never had");
	ck_assert_int_eq(first.pfn, pfn);
	ck_assert_int_eq(first.node, 0);
	ck_assert_int_eq(first.zone, ZONE_NORMAL);
	ck_assert_int_eq(first.expected, MIGRATE_MOVABLE);
	ck_assert_int_eq(first.actual, MIGRATE_UNMOVABLE);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * One CPU, 256 Normal pages (batch 1, high 4 to 32), every page taken as
 * an order-0 movable page with its pcp lists off, which the caller turns
 * back on; gen[pfn] is each page's generation.
 */
static struct mm_sim *all_taken_256(struct vrec *vr, uint32_t gen[256])
{
	struct mm_config cfg;
	struct mm_sim *sim;
	uint32_t g;
	long long pfn;

	cfg_tiny(&cfg, 1, 3, 2);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 256, 256);
	sim = sim_new(&cfg);
	sim_record(sim, vr);
	mm_set_current_cpu(0);
	mm_zone_pcp_disable(sim, 0, ZONE_NORMAL);
	while ((pfn = mm_alloc_pages(sim, 0, GFP_MOV, -1, 1, &g)) >= 0)
		gen[pfn] = g;
	ck_assert_int_eq(zinfo(sim, 0, ZONE_NORMAL).nr_free_exact, 0);
	return sim;
}

/*
 * The pfns 0 mod 4 freed to the buddy (no two are buddies), the pcp lists
 * back on, the zone marked ZONE_BELOW_HIGH, then pfns from first on,
 * every step-th but none 0 mod 4, freed through the pcp list until it
 * flushes once; the mark holds until then.
 */
static void flush_once_marked(struct mm_sim *sim, const uint32_t gen[256], uint64_t first,
			      uint64_t step)
{
	struct zone *z = &sim->node_data[0]->node_zones[ZONE_NORMAL];

	for (uint64_t p = 0; p < 256; p += 4)
		mm_free_pages(sim, p, 0, 1, gen[p]);
	mm_zone_pcp_enable(sim, 0, ZONE_NORMAL);
	atomic_fetch_or(&z->flags, ZONE_BELOW_HIGH);
	unsigned long long drains = sim_stats(sim).pcp_drains_high;
	for (uint64_t p = first; p < 256 && sim_stats(sim).pcp_drains_high == drains; p += step) {
		if (!(p % 4))
			continue;
		ck_assert(atomic_load(&z->flags) & ZONE_BELOW_HIGH);
		mm_free_pages(sim, p, 0, 1, gen[p]);
	}
	ck_assert_uint_eq(sim_stats(sim).pcp_drains_high, drains + 1);
}

/*
 * free_unref_page_commit() (6.10): after a flush at high, a zone marked
 * ZONE_BELOW_HIGH is cleared of the mark once an order-0 watermark check
 * at the high mark passes, whatever the higher orders hold. 256 Normal
 * pages (marks 0), all taken, then flush_once_marked() with the pfns
 * 2 mod 4 through the pcp list: no page the flush frees has a free
 * buddy, so no free block of order 1 or more ever forms.
 */
START_TEST(test_flush_clears_below_high_at_order_0)
{
	struct vrec vr;
	uint32_t gen[256];
	struct mm_sim *sim = all_taken_256(&vr, gen);
	struct zone *z = &sim->node_data[0]->node_zones[ZONE_NORMAL];

	flush_once_marked(sim, gen, 2, 4);
	for (unsigned int o = 1; o <= 3; o++)
		ck_assert_uint_eq(zinfo(sim, 0, ZONE_NORMAL).nr_free[o], 0);
	ck_assert(!(atomic_load(&z->flags) & ZONE_BELOW_HIGH));
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * The other side: a flush that leaves the zone below its high mark keeps
 * the mark. As above, but min_free_kbytes 320 once every page is taken
 * (min 80, high 120 pages), and every page not 0 mod 4 freed through the
 * pcp list until it flushes: the 64 pages in the buddy and the 32 the
 * flush adds stay below high, so ZONE_BELOW_HIGH stays set.
 */
START_TEST(test_flush_below_high_keeps_the_mark)
{
	struct vrec vr;
	uint32_t gen[256];
	struct mm_sim *sim = all_taken_256(&vr, gen);
	struct zone *z = &sim->node_data[0]->node_zones[ZONE_NORMAL];

	mm_set_min_free_kbytes(sim, 320);
	ck_assert_uint_eq(z->_watermark[WMARK_HIGH], 120);
	flush_once_marked(sim, gen, 1, 1);
	ck_assert_int_lt(zinfo(sim, 0, ZONE_NORMAL).nr_free_exact, 120);
	ck_assert(atomic_load(&z->flags) & ZONE_BELOW_HIGH);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * The pcp lists back on, and pfn 0 freed to list 0 (order-0 UNMOVABLE)
 * while its block is UNMOVABLE; the block is MOVABLE again after.
 */
static void pfn0_on_list_0(struct mm_sim *sim, const uint32_t gen[256])
{
	mm_zone_pcp_enable(sim, 0, ZONE_NORMAL);
	retype_block(sim, 0, MIGRATE_MOVABLE, MIGRATE_UNMOVABLE);
	free_to_pcp(sim, 0, gen[0]);
	retype_block(sim, 0, MIGRATE_UNMOVABLE, MIGRATE_MOVABLE);
}

/*
 * drain_pages_zone() passes pindex 0 to free_pcppages_bulk(): the round
 * robin frees list 0 (order-0 UNMOVABLE) before list 1 (order-0 MOVABLE).
 * 256 Normal pages, all taken; pfn 0 freed to the pcp while its block is
 * UNMOVABLE (list 0), pfn 2 once it is MOVABLE again (list 1). Neither has
 * a free buddy, and the drain frees both as MOVABLE (the block's type now),
 * each to the head of the order-0 MOVABLE list: the last freed, 2, heads it.
 */
START_TEST(test_drain_frees_list_0_first)
{
	struct vrec vr;
	uint32_t gen[256];
	struct mm_sim *sim = all_taken_256(&vr, gen);
	struct zone *z = &sim->node_data[0]->node_zones[ZONE_NORMAL];

	pfn0_on_list_0(sim, gen);
	free_to_pcp(sim, 2, gen[2]);
	ck_assert_uint_eq(pcpinfo(sim, 0, ZONE_NORMAL, 0).count, 2);
	ck_assert_uint_eq(z->per_cpu_pageset[0].head[0], 0);
	ck_assert_uint_eq(z->per_cpu_pageset[0].head[1], 2);
	mm_drain_local_pages(sim);
	ck_assert_uint_eq(z->free_area[0].head[MIGRATE_MOVABLE], 2);
	ck_assert_uint_eq(pfn_to_page(sim, 2)->lru.next, 0);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * decay_pcp_high() passes pindex 0 too: of the pages above its new high it
 * frees list 0's first. The machine of the drain test above (batch 1,
 * high_min 4, high_max 32), cpu 0's high at high_max: pfn 0 on list 0,
 * then pfns 4, 8, ... on list 1 (no two buddies) up to 31 pages, one
 * short of the flush. The decay lowers high to 32 - 32 / 8 = 28 and frees
 * the 3 pages above it: pfn 0, then list 1's two oldest, 4 and 8.
 */
START_TEST(test_decay_frees_list_0_first)
{
	struct vrec vr;
	uint32_t gen[256];
	struct mm_sim *sim = all_taken_256(&vr, gen);
	struct zone *z = &sim->node_data[0]->node_zones[ZONE_NORMAL];
	struct per_cpu_pages *pcp = &z->per_cpu_pageset[0];

	pfn0_on_list_0(sim, gen);
	pcp->high = pcp->high_max;
	for (uint64_t p = 4; p < 256 && pcp->count + 1 < pcp->high; p += 4)
		free_to_pcp(sim, (long long)p, gen[p]);
	ck_assert_int_eq(pcp->high, 32);
	ck_assert_int_eq(pcp->count, 31);
	decay_pcp_high(z, 0);
	ck_assert_int_eq(pcp->high, 28);
	ck_assert_int_eq(pcp->count, 28);
	ck_assert_int_eq(pfn_to_page(sim, 0)->state, PG_BUDDY);
	ck_assert_int_eq(pfn_to_page(sim, 4)->state, PG_BUDDY);
	ck_assert_int_eq(pfn_to_page(sim, 8)->state, PG_BUDDY);
	ck_assert_int_eq(pfn_to_page(sim, 12)->state, PG_PCP);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	mm_sim_destroy(sim);
}
END_TEST

static Suite *pcp_flush_suite(void)
{
	Suite *s = suite_create("pcp_flush");
	TCase *tc = tcase_create("checks");

	tcase_add_test(tc, test_flush_count_bound);
	tcase_add_test(tc, test_reclaim_active_high_is_the_smaller);
	tcase_add_test(tc, test_refill_at_high_equal_to_batch);
	tcase_add_test(tc, test_empty_flush_takes_zone_lock);
	tcase_add_loop_test(tc, test_policy_batch_at_least_one, 0, (int)ARRAY_SIZE(policy_batches));
	tcase_add_loop_test(tc, test_flush_without_retype_is_clean, 0, (int)ARRAY_SIZE(both));
	tcase_add_loop_test(tc, test_flush_of_page_freed_after_retype_is_clean, 0,
			    (int)ARRAY_SIZE(both));
	tcase_add_loop_test(tc, test_flush_after_retype, 0, (int)ARRAY_SIZE(both));
	tcase_add_test(tc, test_flush_mt_fires);
	tcase_add_test(tc, test_flush_clears_below_high_at_order_0);
	tcase_add_test(tc, test_flush_below_high_keeps_the_mark);
	tcase_add_test(tc, test_drain_frees_list_0_first);
	tcase_add_test(tc, test_decay_frees_list_0_first);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(pcp_flush_suite());
}
