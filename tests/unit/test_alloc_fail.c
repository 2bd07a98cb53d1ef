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
 * For N = 1, 2, ...: a new mm_sim (built first from before, when given)
 * initialised from cfg with its Nth realloc() failed must be refused,
 * until an init makes fewer than N calls, which must build the machine.
 * Returns that count.
 */
static unsigned int refused_at_each_realloc(const struct mm_config *before,
					    const struct mm_config *cfg)
{
	for (unsigned int n = 1; n <= 64; n++) {
		struct mm_sim *sim = mm_sim_create();
		int ret;

		ck_assert_ptr_nonnull(sim);
		if (before)
			ck_assert_int_eq(mm_sim_init(sim, before, -1), 0);
		nr_called = 0;
		fail_nth = n;
		ret = mm_sim_init(sim, cfg, -1);
		fail_nth = 0;
		mm_sim_destroy(sim);
		if (nr_called < n) { /* no realloc left to fail: the machine is built */
			ck_assert_int_eq(ret, 0);
			return nr_called;
		}
		ck_assert_msg(ret == -1,
			      "realloc %u of the %sinit failed, yet the machine was built", n,
			      before ? "re-" : "");
	}
	ck_abort_msg("more than 64 reallocs in one init");
	return 0;
}

/*
 * A fresh machine: the memmap, the pageblock flags, the node array, then
 * compaction's free and migrate lists, its fill pool and its two
 * per-pageblock arrays, each one realloc().
 */
START_TEST(test_init_refused_at_each_realloc)
{
	struct mm_config cfg;

	cfg_small(&cfg);
	unsigned int total = refused_at_each_realloc(NULL, &cfg);
	ck_assert_msg(total >= 8, "only %u reallocs in mm_sim_init()", total);
}
END_TEST

/*
 * A machine built at 256 pages, then again at 512 in the same mm_sim:
 * the init grows the memmap, the pageblock flags and compaction's five
 * lists in place.
 */
START_TEST(test_reinit_refused_at_each_realloc)
{
	struct mm_config small, big;

	cfg_small(&small);
	big = small;
	cfg_zone(&big, 0, ZONE_NORMAL, 0, 512, 512);
	unsigned int total = refused_at_each_realloc(&small, &big);
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
