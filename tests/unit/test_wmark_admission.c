/* SPDX-License-Identifier: MIT */
/*
 * test_wmark_admission.c - INV-WMARK-MIN's floor for an allocation the
 * watermark check refused and the allocator served anyway: no admission
 * happened, so no vmstat drift was allowed and the floor is the reserve
 * floor itself (__zone_watermark_ok(): free - 2^order must stay at or
 * above min + lowmem_reserve), recomputed here from the marks the test
 * sets.
 */
#include "common.h"
#include "internal.h"

/* The INV-WMARK-MIN reports, and how many reports of any kind. */
struct wmark_min_rec {
	unsigned int n, n_min;
	long long expected, actual;
};

static void wmark_min_handler(const struct mm_violation *v, void *arg)
{
	struct wmark_min_rec *r = arg;

	r->n++;
	if (!strcmp(v->id, "INV-WMARK-MIN")) {
		r->n_min++;
		r->expected = v->expected;
		r->actual = v->actual;
	}
}

/*
 * One Normal zone of 64 pages, pageblocks of 4, pcp lists off, marks set
 * by hand (min 8, low 12, high 16), every NR_FREE_PAGES diff straight to
 * the atomic, so the estimate the check reads is the exact count. Serial,
 * so check_admission() runs; it runs on the buddy path, so the rows ask
 * for orders 2 and 3 (below pageblock_order a block comes through the pcp
 * lists). Each row drains exact free pages to `before` with order-0
 * allocations (each admitted at min: no report), then asks for one block
 * of `order`, which would leave free - 2^order one page below min: the
 * check refuses it, wmark-ignore-min serves it, and INV-WMARK-MIN must
 * report the floor min + lowmem_reserve[Normal] = 8 against the 7 left.
 * A drift allowance that was never taken (a stale one, or one set where
 * no admission happened) lowers the floor and hides that page.
 */
static const struct {
	unsigned int order;
	long before, after;
} served_rows[] = {
	{2, 11, 7},
	{3, 15, 7},
};

/* The machine described above, its marks boosted by boost; r records the reports. */
static struct mm_sim *served_machine(struct wmark_min_rec *r, unsigned long boost)
{
	struct mm_config cfg;
	struct mm_sim *sim;
	struct zone *z;

	cfg_tiny(&cfg, 1, 3, 2);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 64, 64);
	sim = sim_new_variant(&cfg, "wmark-ignore-min");
	mm_zone_pcp_disable(sim, 0, ZONE_NORMAL);
	z = &sim->node_data[0]->node_zones[ZONE_NORMAL];
	z->_watermark[WMARK_MIN] = 8;
	z->_watermark[WMARK_LOW] = 12;
	z->_watermark[WMARK_HIGH] = 16;
	z->watermark_boost = boost;
	z->per_cpu_zonestats[0].stat_threshold = 0;
	z->per_cpu_zonestats[0].update_threshold[NR_FREE_PAGES] = 0;
	ck_assert_uint_eq(z->lowmem_reserve[ZONE_NORMAL], 0);
	sim->serial = true;
	mm_sim_set_violation_handler(sim, wmark_min_handler, r);
	mm_set_current_cpu(0);
	return sim;
}

START_TEST(test_refused_then_served_floor_has_no_drift)
{
	unsigned int order = served_rows[_i].order;
	struct wmark_min_rec r = {0};
	struct mm_sim *sim = served_machine(&r, 0);
	struct zone *z = &sim->node_data[0]->node_zones[ZONE_NORMAL];
	uint32_t gen;

	for (int i = 0; i < 64 && z->vm_stat_exact[NR_FREE_PAGES] > served_rows[_i].before; i++)
		ck_assert_int_ge(mm_alloc_pages(sim, 0, MM_GFP_KERNEL, 0, 1, &gen), 0);
	ck_assert_int_eq(z->vm_stat_exact[NR_FREE_PAGES], served_rows[_i].before);
	ck_assert_uint_eq(r.n, 0);

	ck_assert_int_ge(mm_alloc_pages(sim, order, MM_GFP_KERNEL, 0, 2, &gen), 0);
	ck_assert_int_eq(z->vm_stat_exact[NR_FREE_PAGES], served_rows[_i].after);
	ck_assert_msg(r.n_min == 1, "order %u from %ld free: %u INV-WMARK-MIN reports", order,
		      served_rows[_i].before, r.n_min);
	ck_assert_int_eq(r.expected, 8);
	ck_assert_int_eq(r.actual, served_rows[_i].after);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * The mark INV-WMARK-MIN's floor starts from, over a grid of request
 * orders, reserve bits and boosts, against the kernel's rule written out
 * here (zone_watermark_fast(), 6.10): the boost is waived only for an
 * order-0 __GFP_HIGH request at the min mark; every other request is held
 * to the boosted mark, and __zone_watermark_ok() then lowers it by half
 * for ALLOC_MIN_RESERVE and by a quarter more for ALLOC_NON_BLOCK. The
 * machine is the one above (min 8, lowmem_reserve 0, the buddy path for
 * orders 2 and 3). Each row drains exact free pages with order-0 requests
 * of its own gfp to one block plus one page under the floor, so the slow
 * path's check at min refuses the block, wmark-ignore-min serves it, and
 * INV-WMARK-MIN must report the floor against the page short of it. A
 * floor taken from the unboosted mark (the boost waived for the wrong
 * order or mark) is lower, and the short page goes unreported.
 */
static const struct {
	unsigned int order, gfp;
	unsigned long boost;
} boost_rows[] = {
	{2, MM_GFP_KERNEL, 0},
	{2, MM_GFP_KERNEL, 4},
	{3, MM_GFP_KERNEL, 4},
	{2, MM_GFP_KERNEL | MM_GFP_HIGH, 0},
	{2, MM_GFP_KERNEL | MM_GFP_HIGH, 4},
	{3, MM_GFP_KERNEL | MM_GFP_HIGH, 4},
	{2, MM_GFP_ATOMIC, 0},
	{2, MM_GFP_ATOMIC, 4},
	{3, MM_GFP_ATOMIC, 4},
};

/* The kernel's floor for a block of order > 0 at the min mark of 8. */
static long boost_row_floor(unsigned int gfp, unsigned long boost)
{
	long keep = 8 + (long)boost; /* order > 0: never the unboosted mark */

	if (gfp & MM_GFP_HIGH) {
		keep -= keep / 2;
		if (!(gfp & MM_GFP_DIRECT_RECLAIM))
			keep -= keep / 4;
	}
	return keep;
}

START_TEST(test_served_block_floor_keeps_boost)
{
	unsigned int order = boost_rows[_i].order, gfp = boost_rows[_i].gfp;
	long floor = boost_row_floor(gfp, boost_rows[_i].boost);
	long before = floor + (1L << order) - 1;
	struct wmark_min_rec r = {0};
	struct mm_sim *sim = served_machine(&r, boost_rows[_i].boost);
	struct zone *z = &sim->node_data[0]->node_zones[ZONE_NORMAL];
	uint32_t gen;

	for (int i = 0; i < 64 && z->vm_stat_exact[NR_FREE_PAGES] > before; i++)
		ck_assert_int_ge(mm_alloc_pages(sim, 0, gfp, 0, 1, &gen), 0);
	ck_assert_int_eq(z->vm_stat_exact[NR_FREE_PAGES], before);
	ck_assert_uint_eq(r.n_min, 0);
	ck_assert_uint_eq(z->watermark_boost, boost_rows[_i].boost);

	ck_assert_int_ge(mm_alloc_pages(sim, order, gfp, 0, 2, &gen), 0);
	ck_assert_int_eq(z->vm_stat_exact[NR_FREE_PAGES], floor - 1);
	ck_assert_msg(r.n_min == 1, "order %u gfp %#x boost %lu from %ld free: %u INV-WMARK-MIN",
		      order, gfp, boost_rows[_i].boost, before, r.n_min);
	ck_assert_int_eq(r.expected, floor);
	ck_assert_int_eq(r.actual, floor - 1);
	mm_sim_destroy(sim);
}
END_TEST

static Suite *wmark_admission_suite(void)
{
	Suite *s = suite_create("wmark_admission");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_refused_then_served_floor_has_no_drift, 0,
			    (int)ARRAY_SIZE(served_rows));
	tcase_add_loop_test(tc, test_served_block_floor_keeps_boost, 0,
			    (int)ARRAY_SIZE(boost_rows));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(wmark_admission_suite());
}
