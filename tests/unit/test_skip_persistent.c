/* SPDX-License-Identifier: MIT */
/*
 * test_skip_persistent.c - pageblock_skip_persistent() (mm/compaction.c
 * 6.7): a pageblock inside an allocation of pageblock_order or more is
 * left alone by the migration scanner and by the skip-bit reset, whichever
 * of the allocation's pageblocks it is. The kernel looks up the compound
 * head of the page it is given, so with pageblock_order = max_order - 1
 * the second pageblock of a max_order allocation counts as well: its first
 * page is a tail whose head is a pageblock below it. The skip-bit reset's
 * free side asks at each block's last pfn, a tail of any allocation that
 * covers the block.
 */
#include "common.h"
#include "internal.h"

/*
 * 64 pages in pageblocks of 4, max_order 3, pcp lists off. Allocated: an
 * order-3 block over pageblocks 0-1, an order-2 block filling pageblock
 * 2, an order-1 block at the start of pageblock 3; the rest free.
 */
START_TEST(test_persistent_by_compound_head)
{
	static const struct {
		uint64_t pfn;
		bool persistent; /* the pageblock lies in an allocation of order >= 2 */
	} rows[] = {
		{0, true},   /* the order-3 head */
		{4, true},   /* its second pageblock: a tail at the block's first pfn */
		{8, true},   /* a whole-pageblock allocation */
		{12, false}, /* an order-1 allocation */
		{16, false}, /* free */
		{24, false},
		/* each block's last pfn, where the skip-bit reset's free side asks */
		{3, true},   /* a tail of the order-3 block */
		{7, true},   /* the same, in its second pageblock */
		{11, true},  /* a tail of the whole-pageblock allocation */
		{13, false}, /* the order-1 allocation's tail */
		{15, false}, /* free */
	};
	struct mm_config cfg;
	struct mm_sim *sim;
	uint32_t gen, gen0;

	cfg_tiny(&cfg, 1, 3, 2);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 64, 64);
	sim = sim_new_buddy_only(&cfg);
	mm_set_current_cpu(0);
	ck_assert_int_eq(mm_alloc_pages(sim, 3, MM_GFP_KERNEL | MM_GFP_MOVABLE, 0, 0, &gen0), 0);
	ck_assert_int_eq(mm_alloc_pages(sim, 2, MM_GFP_KERNEL | MM_GFP_MOVABLE, 0, 1, &gen), 8);
	ck_assert_int_eq(mm_alloc_pages(sim, 1, MM_GFP_KERNEL | MM_GFP_MOVABLE, 0, 2, &gen), 12);
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++)
		ck_assert_msg(_mm_pageblock_skip_persistent(sim, rows[i].pfn) == rows[i].persistent,
			      "pageblock at pfn %llu: persistent %d, want %d",
			      (unsigned long long)rows[i].pfn,
			      _mm_pageblock_skip_persistent(sim, rows[i].pfn), rows[i].persistent);
	/* a second order-3 block, away from pfn 0: its second pageblock finds its own head */
	long long head = mm_alloc_pages(sim, 3, MM_GFP_KERNEL | MM_GFP_MOVABLE, 0, 3, &gen);
	ck_assert_int_ge(head, 16);
	ck_assert(_mm_pageblock_skip_persistent(sim, (uint64_t)head + 4));
	mm_free_pages(sim, 0, 3, 0, gen0); /* and with pfn 0 free */
	ck_assert(!_mm_pageblock_skip_persistent(sim, 4));
	ck_assert(_mm_pageblock_skip_persistent(sim, (uint64_t)head + 4));
	mm_sim_destroy(sim);
}
END_TEST

static Suite *skip_persistent_suite(void)
{
	Suite *s = suite_create("skip_persistent");
	TCase *tc = tcase_create("rule");

	tcase_add_test(tc, test_persistent_by_compound_head);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(skip_persistent_suite());
}
