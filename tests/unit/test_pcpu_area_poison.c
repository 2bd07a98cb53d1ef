/* SPDX-License-Identifier: MIT */
/*
 * test_pcpu_area_poison.c - a cached per-cpu area is poisoned for ASan
 * while nobody owns it, and the part of it past what its next owner asked
 * for stays poisoned: a loop that walks one CPU past the machine reads
 * poison, and ASan reports it, where it would read stale locals of an
 * earlier, larger owner.
 *
 * Built without ASan (the gcc and tsan presets), the same test still
 * holds the cache's reuse: the area comes back zeroed, to the caller that
 * fits it.
 */
#include "common.h"
#include "internal.h"

#ifdef MM_ASAN
#define assert_poisoned(p, want)                                                                   \
	ck_assert_msg(!!__asan_address_is_poisoned(p) == (want), "%s is %spoisoned", #p,           \
		      (want) ? "not " : "")
#else
#define assert_poisoned(p, want) ((void)(p))
#endif

/* Larger than any area the machine's own counters cache. */
#define BIG 4096u

START_TEST(test_cached_area_poisoned_past_request)
{
	struct mm_config cfg;
	struct mm_sim *sim;
	unsigned char *p, *q;
	size_t bytes;

	cfg_tiny(&cfg, 2, 3, 2);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 256, 256);
	sim = sim_new(&cfg);
	p = __alloc_percpu_gfp(sim, BIG);
	ck_assert_ptr_nonnull(p);
	memset(p, 0xa5, 2 * BIG);
	free_percpu(sim, p);
	/* kept for reuse, owned by nobody */
	assert_poisoned(p, true);
	assert_poisoned(p + 2 * BIG - 1, true);

	/* only the cached big area fits half of it: it comes back */
	q = __alloc_percpu_gfp(sim, BIG / 2);
	ck_assert_ptr_eq(q, p);
	bytes = 2 * (BIG / 2);
	for (size_t i = 0; i < bytes; i++)
		ck_assert_uint_eq(q[i], 0);
	assert_poisoned(q, false);
	assert_poisoned(q + bytes - 1, false);
	assert_poisoned(q + bytes, true);
	assert_poisoned(q + 2 * BIG - 1, true);
	free_percpu(sim, q);
	mm_sim_destroy(sim);
}
END_TEST

static Suite *pcpu_area_poison_suite(void)
{
	Suite *s = suite_create("pcpu_area_poison");
	TCase *tc = tcase_create("pcpu_area_poison");

	tcase_add_test(tc, test_cached_area_poisoned_past_request);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(pcpu_area_poison_suite());
}
