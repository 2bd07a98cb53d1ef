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
 * buffer in place) builds a machine over a missing list. The same wrapper
 * also sums what a compacting thread's state asks for, which has a bound.
 */
#include "test_taken_zone.h"

void *__real_realloc(void *p, size_t n);
void *__wrap_realloc(void *p, size_t n);

static unsigned int fail_nth;  /* 0: no window open */
static unsigned int nr_called; /* reallocs since the window opened */
static bool counting;	       /* sum the bytes asked for into nr_bytes */
static size_t nr_bytes;

void *__wrap_realloc(void *p, size_t n)
{
	if (fail_nth && ++nr_called == fail_nth)
		return NULL;
	if (counting)
		nr_bytes += n;
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

/*
 * What a compacting thread's own state may cost. A machine has up to 1024
 * threads that compact, so each thread's lists are bounded by what a round
 * can hold, not by the machine's pages: a round isolates sources from one
 * pageblock and the free scanner overshoots by one free block of max_order
 * at most, and compact_state_thread() keeps twice that per list (free and
 * migrate pfns, the migrated pages' owners and generations: four lists of
 * uint32_t), capped at the machine's pages. The checker's two marks cost a
 * byte per pageblock, the partial last one included. Threaded passes on
 * zones of 512 to 65,536 pages (pageblocks of 32, max_order 6): the
 * reallocs of the thread's first pass, its state, must stay within that.
 */
static const uint64_t thread_zone_pages[] = {512, 4096, 65536};

START_TEST(test_thread_state_is_bounded)
{
	uint64_t pages = thread_zone_pages[_i];
	struct vrec vr;
	struct taken_zone t = taken_zone(2, pages, 2, false, &vr);
	const uint64_t pageblock = 32, max_order_block = 64;
	uint64_t list = 2 * (pageblock + max_order_block);
	size_t want;

	if (list > pages)
		list = pages;
	want = 4 * list * sizeof(uint32_t) + 2 * (pages / pageblock + 1);
	mm_set_migrate_src(t.sim, &lru_refusing);
	nr_bytes = 0;
	counting = true;
	mm_compact_zone(t.sim, 0, ZONE_NORMAL, 5, MM_COMPACT_PRIO_SYNC_FULL, MM_MIGRATE_SYNC,
			MIGRATE_MOVABLE);
	counting = false;
	ck_assert_msg(nr_bytes > 0, "%llu pages: the pass made no thread state",
		      (unsigned long long)pages);
	ck_assert_msg(nr_bytes <= want,
		      "%llu pages: the thread's state asked for %zu bytes, want at most %zu",
		      (unsigned long long)pages, nr_bytes, want);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	taken_zone_destroy(&t);
}
END_TEST

static Suite *alloc_fail_suite(void)
{
	Suite *s = suite_create("alloc_fail");
	TCase *tc = tcase_create("realloc");

	tcase_add_test(tc, test_init_refused_at_each_realloc);
	tcase_add_test(tc, test_reinit_refused_at_each_realloc);
	tcase_add_loop_test(tc, test_thread_state_is_bounded, 0,
			    (int)ARRAY_SIZE(thread_zone_pages));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(alloc_fail_suite());
}
