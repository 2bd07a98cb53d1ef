/* SPDX-License-Identifier: MIT */
/*
 * test_highatomic.c - the highatomic reserve's life: reserved by a
 * high-order atomic allocation, counted free as nr_free_highatomic
 * (c928807f6f6b), unreserved before OOM (unreserve_highatomic_pageblock()).
 */
#include "common.h"
#include "internal.h"

/* 1024 pages, min 64 low 80; an ATOMIC order-1 request below low reserves pageblock 1. */
#define RESERVED                                                                                   \
	"config nodes=1 cpus=2 max_order=10 pageblock_order=9 min_free_kbytes=0 "                  \
	"watermark_scale_factor=10 high_fraction=0\n"                                              \
	"zone 0 Normal start=0 spanned=1024 present=1024 managed=1024\n"                           \
	"cpu0 alloc a0 order=9 gfp=MOVABLE|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"                        \
	"cpu0 alloc a1 order=8 gfp=MOVABLE|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"                        \
	"cpu0 alloc a2 order=7 gfp=MOVABLE|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"                        \
	"cpu0 alloc a3 order=5 gfp=MOVABLE|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"                        \
	"cpu0 alloc a4 order=4 gfp=MOVABLE|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"                        \
	"cpu0 alloc a5 order=1 gfp=ATOMIC\n"

static struct zone *normal(struct mm_sim *sim)
{
	return &sim->node_data[0]->node_zones[ZONE_NORMAL];
}

/* The reserve: one pageblock, its free pages counted in nr_free_highatomic. */
START_TEST(test_reserve_counts_free_highatomic)
{
	struct mm_exec *ex = mm_exec_create();
	struct mm_exec_opts o;
	struct vrec vr;
	long failed;

	mm_exec_opts_default(&o);
	ck_assert_int_eq(exec_text(ex, RESERVED "check\n", &o, &vr, &failed), 0);
	struct zone *z = normal(mm_exec_sim(ex));
	ck_assert_uint_eq(z->nr_reserved_highatomic, 512);
	ck_assert_int_eq(z->nr_free_highatomic, 78);
	ck_assert_int_eq(z->vm_stat_exact[NR_FREE_PAGES], 78);
	mm_exec_destroy(ex);
}
END_TEST

/*
 * 78 pages free, all highatomic: an order-0 GFP_KERNEL request fails both
 * marks, and before OOM the reserve goes back to MOVABLE, after which it
 * succeeds at min (78 > 64).
 */
START_TEST(test_unreserve_before_oom)
{
	struct mm_exec *ex = mm_exec_create();
	struct mm_exec_opts o;
	struct vrec vr;
	long failed;

	mm_exec_opts_default(&o);
	ck_assert_int_eq(exec_text(ex, RESERVED "cpu0 alloc a6 order=0 gfp=KERNEL\ncheck\n", &o,
				   &vr, &failed),
			 0);
	struct mm_sim *sim = mm_exec_sim(ex);
	struct zone *z = normal(sim);
	ck_assert_uint_eq(z->nr_reserved_highatomic, 0);
	ck_assert_int_eq(z->nr_free_highatomic, 0);
	ck_assert_int_eq(sim->pageblock_flags[1] & PB_MIGRATETYPE_MASK, MIGRATE_UNMOVABLE);
	struct mm_zone_info zi = zinfo(sim, 0, ZONE_NORMAL);
	ck_assert_int_eq(zi.nr_free_exact + zi.nr_pcp_pages, 77); /* a6 got its page */
	mm_exec_destroy(ex);
}
END_TEST

/* A request that may sleep but is costly gives up before the unreserve. */
START_TEST(test_costly_keeps_reserve)
{
	struct mm_exec *ex = mm_exec_create();
	struct mm_exec_opts o;
	struct vrec vr;
	long failed;

	mm_exec_opts_default(&o);
	ck_assert_int_eq(exec_text(ex, RESERVED "cpu0 alloc a6 order=4 gfp=KERNEL\ncheck\n", &o,
				   &vr, &failed),
			 0);
	ck_assert_uint_eq(normal(mm_exec_sim(ex))->nr_reserved_highatomic, 512);
	mm_exec_destroy(ex);
}
END_TEST

static Suite *highatomic_suite(void)
{
	Suite *s = suite_create("highatomic");
	TCase *tc = tcase_create("life");

	tcase_add_test(tc, test_reserve_counts_free_highatomic);
	tcase_add_test(tc, test_unreserve_before_oom);
	tcase_add_test(tc, test_costly_keeps_reserve);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(highatomic_suite());
}
