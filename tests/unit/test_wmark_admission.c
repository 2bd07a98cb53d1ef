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

START_TEST(test_refused_then_served_floor_has_no_drift)
{
	unsigned int order = served_rows[_i].order;
	struct wmark_min_rec r = {0};
	struct mm_config cfg;
	struct mm_sim *sim;
	struct zone *z;
	uint32_t gen;

	cfg_tiny(&cfg, 1, 3, 2);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 64, 64);
	sim = sim_new_variant(&cfg, "wmark-ignore-min");
	mm_zone_pcp_disable(sim, 0, ZONE_NORMAL);
	z = &sim->node_data[0]->node_zones[ZONE_NORMAL];
	z->_watermark[WMARK_MIN] = 8;
	z->_watermark[WMARK_LOW] = 12;
	z->_watermark[WMARK_HIGH] = 16;
	z->per_cpu_zonestats[0].stat_threshold = 0;
	z->per_cpu_zonestats[0].update_threshold[NR_FREE_PAGES] = 0;
	ck_assert_uint_eq(z->lowmem_reserve[ZONE_NORMAL], 0);
	sim->serial = true;
	mm_sim_set_violation_handler(sim, wmark_min_handler, &r);
	mm_set_current_cpu(0);
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

static Suite *wmark_admission_suite(void)
{
	Suite *s = suite_create("wmark_admission");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_refused_then_served_floor_has_no_drift, 0,
			    (int)ARRAY_SIZE(served_rows));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(wmark_admission_suite());
}
