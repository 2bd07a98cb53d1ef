/* SPDX-License-Identifier: MIT */
/*
 * test_alloc_fail.c - a machine whose buffers could not be allocated is
 * refused. The executable is linked with ld's --wrap=realloc
 * (CMakeLists.txt), so every realloc() of the library goes through
 * __wrap_realloc() below, which fails the Nth call of a window the test
 * opens. mm_sim_init() grows the memmap, the pageblock flags, the node
 * array and compaction's scratch lists with realloc(): with the Nth one
 * failed, for every N, it must return -1 (and mm_sim_destroy() free what
 * it did allocate, which LeakSanitizer checks); past the last one it must
 * succeed. A failure ignored (grow() reporting success with the old
 * buffer in place) builds a machine over a missing list.
 */
#include "common.h"

void *__real_realloc(void *p, size_t n);
void *__wrap_realloc(void *p, size_t n);

static unsigned int fail_nth;  /* 0: no window open */
static unsigned int nr_called; /* reallocs since the window opened */

void *__wrap_realloc(void *p, size_t n)
{
	if (fail_nth && ++nr_called == fail_nth)
		return NULL;
	return __real_realloc(p, n);
}

/* 256 pages in one Normal zone, pageblocks of 8: compaction's lists exist. */
static void cfg_small(struct mm_config *cfg)
{
	cfg_tiny(cfg, 2, 4, 3);
	cfg_zone(cfg, 0, ZONE_NORMAL, 0, 256, 256);
}

/*
 * A fresh machine: the memmap, the pageblock flags, the node array, then
 * compaction's free and migrate lists, its fill pool and its two
 * per-pageblock arrays, each one realloc(); every one of them failing
 * fails the init.
 */
START_TEST(test_init_refused_at_each_realloc)
{
	struct mm_config cfg;
	unsigned int n, total = 0;

	cfg_small(&cfg);
	for (n = 1; n <= 64; n++) {
		struct mm_sim *sim = mm_sim_create();
		int ret;

		ck_assert_ptr_nonnull(sim);
		nr_called = 0;
		fail_nth = n;
		ret = mm_sim_init(sim, &cfg, -1);
		fail_nth = 0;
		if (nr_called < n) { /* no realloc left to fail: the machine is built */
			ck_assert_int_eq(ret, 0);
			total = nr_called;
			mm_sim_destroy(sim);
			break;
		}
		ck_assert_msg(ret == -1, "realloc %u of the init failed, yet the machine was built",
			      n);
		mm_sim_destroy(sim);
	}
	/* the three of sim.c and the five of compaction_pool.c at least */
	ck_assert_msg(total >= 8, "only %u reallocs in mm_sim_init()", total);
	ck_assert_uint_le(n, 64);
}
END_TEST

/*
 * A machine built at 256 pages, then again at 512 in the same mm_sim:
 * the init grows the memmap, the pageblock flags and compaction's five
 * lists in place, and each grow failing fails that init too.
 */
START_TEST(test_reinit_refused_at_each_realloc)
{
	struct mm_config small, big;
	unsigned int n, total = 0;

	cfg_small(&small);
	big = small;
	cfg_zone(&big, 0, ZONE_NORMAL, 0, 512, 512);
	for (n = 1; n <= 64; n++) {
		struct mm_sim *sim = mm_sim_create();
		int ret;

		ck_assert_ptr_nonnull(sim);
		ck_assert_int_eq(mm_sim_init(sim, &small, -1), 0);
		nr_called = 0;
		fail_nth = n;
		ret = mm_sim_init(sim, &big, -1);
		fail_nth = 0;
		mm_sim_destroy(sim);
		if (nr_called < n) {
			ck_assert_int_eq(ret, 0);
			total = nr_called;
			break;
		}
		ck_assert_msg(ret == -1,
			      "realloc %u of the re-init failed, yet the machine was built", n);
	}
	ck_assert_msg(total >= 7, "only %u reallocs growing the machine", total);
}
END_TEST

static Suite *alloc_fail_suite(void)
{
	Suite *s = suite_create("alloc_fail");
	TCase *tc = tcase_create("realloc");

	tcase_add_test(tc, test_init_refused_at_each_realloc);
	tcase_add_test(tc, test_reinit_refused_at_each_realloc);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(alloc_fail_suite());
}
