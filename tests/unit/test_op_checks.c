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

/* One node, 2 CPUs, a Normal zone of 1024 pages (zone id ZONE_NORMAL), as the executor runs it. */
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
	zone_by_id(sim, ZONE_NORMAL)->vm_stat_exact[NR_FREE_PAGES] += 1;
	ck_assert_int_eq(mm_apply_op(sim, &alloc, h, 1, 0), 0);
	ck_assert_int_ge(h[0].pfn, 0);
	ck_assert_msg(vrec_has(&vr, "INV-BUDDY-NRFREE"), "%u reports after the alloc", vr.n);
	zone_by_id(sim, ZONE_NORMAL)->vm_stat_exact[NR_FREE_PAGES] -= 1;

	sim_record(sim, &vr);
	zone_by_id(sim, ZONE_NORMAL)->vm_stat_exact[NR_FREE_PAGES] += 1;
	ck_assert_int_eq(mm_apply_op(sim, &free_op, h, 1, 1), 0);
	ck_assert_msg(vrec_has(&vr, "INV-BUDDY-NRFREE"), "%u reports after the free", vr.n);
	zone_by_id(sim, ZONE_NORMAL)->vm_stat_exact[NR_FREE_PAGES] -= 1;
	mm_sim_destroy(sim);
}
END_TEST

/*
 * The counter ops that move or judge vm_committed_as check it at the op
 * (_mm_committed_check(): the sum of its locals against every charge
 * made): a fork and an exit (check_shared()), a munmap, a
 * __vm_enough_memory() charge, the overcommit policy switch.
 */
static const char *const committed_ops[] = {"fork", "exit", "munmap", "vm_enough_memory",
					    "overcommit_memory=1"};

START_TEST(test_counter_ops_check_committed)
{
	struct mm_sim *sim = op_sim();
	struct percpu_counter *vc = &sim->pcc->vm_committed_as;
	struct vrec vr;

	if (_i == 1 || _i == 2) {
		ck_assert_int_eq(mm_fork(sim, 0, -1, 0), 0);
		ck_assert_int_eq(mm_mmap(sim, 0, 8, MM_ANONPAGES, 0), 0);
	}
	sim_record(sim, &vr);
	vc->count += 3;
	switch (_i) {
	case 0:
		ck_assert_int_eq(mm_fork(sim, 0, -1, 0), 0);
		break;
	case 1:
		ck_assert_int_eq(mm_exit(sim, 0), 0);
		break;
	case 2:
		ck_assert_int_eq(mm_munmap(sim, 0, 8, MM_ANONPAGES), 0);
		break;
	case 3:
		ck_assert_int_eq(mm_vm_enough_memory(sim, 0, 1, false), 0);
		break;
	default:
		ck_assert_int_eq(mm_set_overcommit_memory(sim, MM_OVERCOMMIT_ALWAYS), 0);
	}
	ck_assert_msg(vrec_has(&vr, "INV-PCPU-SUM"), "%s: %u reports after the op",
		      committed_ops[_i], vr.n);
	vc->count -= 3;
	mm_sim_destroy(sim);
}
END_TEST

/*
 * The sysctls that resize the pcp lists and move the marks run the sizing
 * checks at the op (_mm_check_sizing(): every derived quantity against the
 * kernel's rule): vm_committed_as's batch, which none of them recomputes,
 * moved behind the checker's back is INV-DERIVED-COMMIT-BATCH at once.
 */
static const struct {
	const char *what;
	uint8_t kind;
	uint32_t value;
} sysctl_rows[] = {
	{"min_free_kbytes", MM_OP_SET_MIN_FREE_KBYTES, 512},
	{"watermark_scale_factor", MM_OP_SET_WSF, 200},
	{"percpu_pagelist_high_fraction", MM_OP_SET_HIGH_FRACTION, 8},
};

START_TEST(test_sysctl_ops_check_sizing)
{
	struct mm_sim *sim = op_sim();
	struct mm_op op = {.kind = sysctl_rows[_i].kind,
			   .sysctl = {.value = sysctl_rows[_i].value}};
	struct vrec vr;

	sim_record(sim, &vr);
	sim->pcc->vm_committed_as_batch += 1;
	ck_assert_int_eq(mm_apply_op(sim, &op, NULL, 0, 0), 0);
	ck_assert_msg(vrec_has(&vr, "INV-DERIVED-COMMIT-BATCH"), "%s: %u reports after the op",
		      sysctl_rows[_i].what, vr.n);
	sim->pcc->vm_committed_as_batch -= 1;
	mm_sim_destroy(sim);
}
END_TEST

/*
 * The range ops check the zone they worked on at the op (_mm_op_range()'s
 * cheap check): its exact NR_FREE_PAGES moved behind the checker's back is
 * INV-BUDDY-NRFREE from an offline_pages and an alloc_contig_range of the
 * zone's second pageblock.
 */
static const uint8_t range_kinds[] = {MM_OP_OFFLINE_PAGES, MM_OP_ALLOC_CONTIG};

START_TEST(test_range_ops_check_their_zone)
{
	struct mm_sim *sim = op_sim();
	struct mm_op op = {.kind = range_kinds[_i],
			   .range = {.start = 512, .pages = 512, .node = 0, .zone = ZONE_NORMAL}};
	struct vrec vr;

	sim_record(sim, &vr);
	zone_by_id(sim, ZONE_NORMAL)->vm_stat_exact[NR_FREE_PAGES] += 1;
	mm_apply_op(sim, &op, NULL, 0, 0);
	ck_assert_msg(vrec_has(&vr, "INV-BUDDY-NRFREE"), "%s: %u reports after the op",
		      mm_op_name(range_kinds[_i]), vr.n);
	zone_by_id(sim, ZONE_NORMAL)->vm_stat_exact[NR_FREE_PAGES] -= 1;
	mm_sim_destroy(sim);
}
END_TEST

static Suite *op_checks_suite(void)
{
	Suite *s = suite_create("op_checks");
	TCase *tc = tcase_create("ops");

	tcase_add_test(tc, test_alloc_and_free_check_their_zone);
	tcase_add_loop_test(tc, test_counter_ops_check_committed, 0,
			    (int)ARRAY_SIZE(committed_ops));
	tcase_add_loop_test(tc, test_sysctl_ops_check_sizing, 0, (int)ARRAY_SIZE(sysctl_rows));
	tcase_add_loop_test(tc, test_range_ops_check_their_zone, 0, (int)ARRAY_SIZE(range_kinds));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(op_checks_suite());
}
