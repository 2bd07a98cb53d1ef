/* SPDX-License-Identifier: MIT */
/*
 * test_calloc_fail.c - a machine whose zeroed buffers could not be
 * allocated is refused, as test_alloc_fail.c does for realloc(). The
 * executable is linked with ld's --wrap=calloc (CMakeLists.txt): every
 * calloc() of the library goes through __wrap_calloc() below, which fails
 * the Nth call of a window the test opens. mm_sim_init() callocs the
 * zones of each node, the percpu counters' state and each counter's
 * per-cpu area: with the Nth one failed, for every N, it must return -1
 * (and mm_sim_destroy() free what it did allocate, which LeakSanitizer
 * checks); past the last one it must succeed. A failure reported as
 * success goes on with a NULL state.
 */
#include "common.h"

void *__real_calloc(size_t nmemb, size_t size);
void *__wrap_calloc(size_t nmemb, size_t size);

static unsigned int fail_nth;  /* 0: no window open */
static unsigned int nr_called; /* callocs since the window opened */

void *__wrap_calloc(size_t nmemb, size_t size)
{
	if (fail_nth && ++nr_called == fail_nth)
		return NULL;
	return __real_calloc(nmemb, size);
}

/* 256 pages in one Normal zone, two CPUs. */
static void cfg_small(struct mm_config *cfg)
{
	cfg_tiny(cfg, 2, 4, 3);
	cfg_zone(cfg, 0, ZONE_NORMAL, 0, 256, 256);
}

START_TEST(test_init_refused_at_each_calloc)
{
	struct mm_config cfg;
	unsigned int n;

	cfg_small(&cfg);
	for (n = 1; n <= 256; n++) {
		struct mm_sim *sim = mm_sim_create();
		int ret;

		ck_assert_ptr_nonnull(sim);
		nr_called = 0;
		fail_nth = n;
		ret = mm_sim_init(sim, &cfg, -1);
		fail_nth = 0;
		mm_sim_destroy(sim);
		if (nr_called < n) { /* no calloc left to fail: the machine is built */
			ck_assert_int_eq(ret, 0);
			break;
		}
		ck_assert_msg(ret == -1, "calloc %u of the init failed, yet the machine was built",
			      n);
	}
	ck_assert_msg(n > 2 && n <= 256, "%u callocs in mm_sim_init()", n - 1);
}
END_TEST

/*
 * mm_sim_compact_stats() on a machine with no compaction state: one
 * created and never built, and one whose init was refused at each
 * calloc (the compaction state's among them). The counts are zeros, not
 * whatever the caller's buffer held: nothing compacted.
 */
static bool stats_zero(const struct mm_sim *sim)
{
	struct mm_compact_stats st;
	static const struct mm_compact_stats zero;

	memset(&st, 0xa5, sizeof(st));
	mm_sim_compact_stats(sim, &st);
	return !memcmp(&st, &zero, sizeof(st));
}

START_TEST(test_unbuilt_machine_compacts_nothing)
{
	struct mm_config cfg;
	struct mm_sim *sim = mm_sim_create();
	unsigned int n;

	ck_assert_ptr_nonnull(sim);
	ck_assert_msg(stats_zero(sim), "a machine never built has compaction counts");
	mm_sim_destroy(sim);
	cfg_small(&cfg);
	for (n = 1; n <= 256; n++) {
		int ret;

		sim = mm_sim_create();
		ck_assert_ptr_nonnull(sim);
		nr_called = 0;
		fail_nth = n;
		ret = mm_sim_init(sim, &cfg, -1);
		fail_nth = 0;
		bool zero = stats_zero(sim);
		mm_sim_destroy(sim);
		if (ret == 0)
			break;
		ck_assert_msg(zero, "init refused at calloc %u: compaction counts", n);
	}
}
END_TEST

static Suite *calloc_fail_suite(void)
{
	Suite *s = suite_create("calloc_fail");
	TCase *tc = tcase_create("calloc");

	tcase_add_test(tc, test_init_refused_at_each_calloc);
	tcase_add_test(tc, test_unbuilt_machine_compacts_nothing);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(calloc_fail_suite());
}
