/* SPDX-License-Identifier: MIT */
/*
 * test_pcpu_init_fail.c - __percpu_counter_init_many()'s failure contract:
 * when the per-cpu allocation fails, fbc[0].counters is NULL, so that the
 * percpu_counter_destroy_many() of the error path frees nothing. It
 * matters because dup_mm() copies the parent's mm_struct whole: a child
 * whose counters failed to initialise still holds the parent's pointer.
 */
#include "common.h"
#include "internal.h"

#include <errno.h>

static struct mm_sim *pcpu_sim(void)
{
	struct mm_config cfg;

	cfg_tiny(&cfg, 2, 10, 9);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 1024, 1024);
	return sim_new(&cfg);
}

/*
 * A child copied from a live parent (dup_mm()'s memcpy), whose init fails:
 * its destroy must free nothing and unlist nothing, and the parent's
 * counters stay usable and are freed once.
 */
START_TEST(test_failed_init_of_a_copy_frees_nothing)
{
	struct mm_sim *sim = pcpu_sim();
	struct percpu_counter parent[2], child[2];
	long live;

	mm_set_current_cpu(0);
	ck_assert_int_eq(percpu_counter_init_many(sim, parent, 5, 2), 0);
	live = sim->pcc->pcpu_live;
	memcpy(child, parent, sizeof(child));
	_mm_pcpu_fail_countdown = 1; /* the next per-cpu allocation fails */
	ck_assert_int_eq(percpu_counter_init_many(sim, child, 0, 2), -ENOMEM);
	ck_assert_int_eq(_mm_pcpu_fail_countdown, 0);
	ck_assert_msg(child[0].counters == NULL,
		      "a failed init left fbc[0].counters at the parent's area %p",
		      (void *)child[0].counters);
	percpu_counter_destroy_many(sim, child, 2); /* the error path's destroy */
	ck_assert_int_eq(sim->pcc->pcpu_live, live);
	ck_assert_ptr_nonnull(parent[0].counters);
	ck_assert_ptr_nonnull(parent[1].counters);
	percpu_counter_destroy_many(sim, parent, 2);
	ck_assert_int_eq(sim->pcc->pcpu_live, live - 1);
	mm_sim_destroy(sim);
}
END_TEST

static Suite *pcpu_init_fail_suite(void)
{
	Suite *s = suite_create("pcpu_init_fail");
	TCase *tc = tcase_create("contract");

	tcase_add_test(tc, test_failed_init_of_a_copy_frees_nothing);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(pcpu_init_fail_suite());
}
