/* SPDX-License-Identifier: MIT */
/*
 * test_boot_free.c - what boot hands the buddy (memblock_free_all() and
 * __free_pages_core()): each zone's managed head [start, start + managed)
 * in the largest aligned blocks that fit, none above MAX_PAGE_ORDER, and
 * nothing merged further (a block's buddy inside the range would have made
 * a larger aligned block). The boot pagesets' vmstat threshold is 0, so
 * every block's NR_FREE_PAGES update folds at once: after boot the
 * estimate is the exact count, every CPU's diff is 0, and both equal the
 * managed pages. The model makes one update per range (buddy.c); the
 * counters must be the ones the blocks' updates one by one would leave.
 */
#include "common.h"

/* Blocks of each order the rule cuts [start, end) into. */
static void rule_blocks(uint64_t start, uint64_t end, unsigned int max_order,
			unsigned long want[MM_NR_PAGE_ORDERS])
{
	for (uint64_t pfn = start; pfn < end;) {
		unsigned int o = max_order;
		while (o && (pfn % (UINT64_C(1) << o) || pfn + (UINT64_C(1) << o) > end))
			o--;
		want[o]++;
		pfn += UINT64_C(1) << o;
	}
}

START_TEST(test_boot_free_grid)
{
	static const uint64_t dma32_managed[] = {1024, 1000, 777, 1};
	static const uint64_t normal_managed[] = {640, 513, 96};

	for (unsigned int max_order = 3; max_order <= 10; max_order++) {
		for (size_t a = 0; a < ARRAY_SIZE(dma32_managed); a++) {
			for (size_t b = 0; b < ARRAY_SIZE(normal_managed); b++) {
				struct mm_config cfg;
				unsigned int pb =
					max_order -
					1; /* the config allows max_order - 1 or max_order */

				cfg_tiny(&cfg, 2, max_order, pb);
				cfg_zone(&cfg, 0, ZONE_DMA32, 0, 1024, dma32_managed[a]);
				cfg_zone(&cfg, 0, ZONE_NORMAL, 1024, 640, normal_managed[b]);
				struct mm_sim *sim = sim_new(&cfg);
				const enum zone_type zt[] = {ZONE_DMA32, ZONE_NORMAL};
				const uint64_t managed[] = {dma32_managed[a], normal_managed[b]};

				for (int z = 0; z < 2; z++) {
					struct mm_zone_info zi = zinfo(sim, 0, zt[z]);
					unsigned long want[MM_NR_PAGE_ORDERS] = {0};

					rule_blocks(zi.start_pfn, zi.start_pfn + managed[z],
						    max_order, want);
					for (unsigned int o = 0; o < MM_NR_PAGE_ORDERS; o++)
						ck_assert_msg(zi.nr_free[o] == want[o],
							      "max_order %u, zone %d managed %llu: "
							      "%lu order-%u blocks, the rule %lu",
							      max_order, z,
							      (unsigned long long)managed[z],
							      zi.nr_free[o], o, want[o]);
					ck_assert_int_eq(zi.managed, managed[z]);
					ck_assert_int_eq(zi.nr_free_pages, (long)managed[z]);
					ck_assert_int_eq(zi.nr_free_exact, (long)managed[z]);
					for (int cpu = 0; cpu < 2; cpu++)
						ck_assert_int_eq(
							mm_zone_free_diff(sim, 0, zt[z], cpu), 0);
				}
				ck_assert_int_eq(mm_check_full(sim), 0);
				mm_sim_destroy(sim);
			}
		}
	}
}
END_TEST

static Suite *boot_free_suite(void)
{
	Suite *s = suite_create("boot_free");
	TCase *tc = tcase_create("grid");

	tcase_add_test(tc, test_boot_free_grid);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(boot_free_suite());
}
