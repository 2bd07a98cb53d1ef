/* SPDX-License-Identifier: MIT */
/*
 * test_op_checks.c - mm_apply_op() runs an op "with the cheap checks that
 * follow it": what the op touched is checked at the op, not only at the
 * next full scan. The end-of-run scan would see the same broken state, so
 * only where a violation is reported tells a missing per-op check apart;
 * it is what a repro's trace points at. Each row breaks a count behind the
 * checker's back, runs one op that touches it, and wants the violation
 * reported by that op.
 */
#include "common.h"
#include "internal.h"

static struct zone *normal(struct mm_sim *sim)
{
	return &sim->node_data[0]->node_zones[ZONE_NORMAL];
}

/* One node, 2 CPUs, a Normal zone of 1024 pages, as the executor runs it. */
static struct mm_sim *op_sim(void)
{
	struct mm_config cfg;
	struct mm_sim *sim;

	cfg_tiny(&cfg, 2, 10, 9);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 1024, 1024);
	sim = sim_new(&cfg);
	sim->serial = true;
	mm_set_current_cpu(0);
	return sim;
}

/* An allocation, then its free: each checks the zone it took from or gave to. */
START_TEST(test_alloc_and_free_check_their_zone)
{
	struct mm_sim *sim = op_sim();
	struct mm_handle h[1];
	struct mm_op alloc = {.kind = MM_OP_ALLOC,
			      .alloc = {.order = 3, .node = -1, .gfp = MM_GFP_KERNEL}};
	struct mm_op free_op = {.kind = MM_OP_FREE, .free = {.handle = 0}};
	struct vrec vr;

	sim_record(sim, &vr);
	normal(sim)->vm_stat_exact[NR_FREE_PAGES] += 1;
	ck_assert_int_eq(mm_apply_op(sim, &alloc, h, 1, 0), 0);
	ck_assert_int_ge(h[0].pfn, 0);
	ck_assert_msg(vrec_has(&vr, "INV-BUDDY-NRFREE"), "%u reports after the alloc", vr.n);
	normal(sim)->vm_stat_exact[NR_FREE_PAGES] -= 1;

	sim_record(sim, &vr);
	normal(sim)->vm_stat_exact[NR_FREE_PAGES] += 1;
	ck_assert_int_eq(mm_apply_op(sim, &free_op, h, 1, 1), 0);
	ck_assert_msg(vrec_has(&vr, "INV-BUDDY-NRFREE"), "%u reports after the free", vr.n);
	normal(sim)->vm_stat_exact[NR_FREE_PAGES] -= 1;
	mm_sim_destroy(sim);
}
END_TEST

static Suite *op_checks_suite(void)
{
	Suite *s = suite_create("op_checks");
	TCase *tc = tcase_create("ops");

	tcase_add_test(tc, test_alloc_and_free_check_their_zone);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(op_checks_suite());
}
