/* SPDX-License-Identifier: MIT */
/*
 * test_deferred_ops.c - the deferred_init and deferred_complete ops say
 * whether they ran: 0 when they initialised pages (or finished the
 * deferral), 1 (skipped) when there was nothing to do. The executor's
 * statistics and the fuzz targets' skip counts rest on that answer.
 */
#include "common.h"

/* DMA32 and a deferred Normal zone on one node of two CPUs (machine D). */
static struct mm_sim *deferred_sim(uint64_t deferred_init_pages)
{
	static const unsigned int cpus[] = {2};
	struct mm_config cfg;

	mm_config_init(&cfg);
	cfg.nr_nodes = 1;
	cfg.cpus_per_node[0] = cpus[0];
	cfg.max_order = 10;
	cfg.pageblock_order = 9;
	cfg.watermark_scale_factor = 10;
	cfg_zone(&cfg, 0, ZONE_DMA32, 0, 4096, 4096);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 4096, 262144, 262144);
	cfg.deferred_init_pages = deferred_init_pages;
	return sim_new(&cfg);
}

static int step_op(struct mm_sim *sim, int node, unsigned int pageblocks)
{
	struct mm_op op = {.kind = MM_OP_DEFERRED_STEP,
			   .pcp = {.node = (int16_t)node, .pageblocks = (uint8_t)pageblocks}};

	return mm_apply_op(sim, &op, NULL, 0, 0);
}

static int complete_op(struct mm_sim *sim)
{
	struct mm_op op = {.kind = MM_OP_DEFERRED_COMPLETE};

	return mm_apply_op(sim, &op, NULL, 0, 0);
}

/* A step that initialises pages ran; one with none left, or no node, was skipped. */
START_TEST(test_deferred_step_op_skips_when_nothing_left)
{
	struct mm_sim *sim = deferred_sim(1000);

	ck_assert_int_eq(step_op(sim, 0, 2), 0);
	ck_assert_uint_eq(zinfo(sim, 0, ZONE_NORMAL).managed, 2048);
	ck_assert_int_eq(step_op(sim, 1, 2), 1); /* no such node */
	ck_assert_uint_eq(zinfo(sim, 0, ZONE_NORMAL).managed, 2048);
	/* 16 pageblocks (8192 pages) a step: 32 more bring up the other 260096 */
	for (int i = 0; i < 32; i++)
		ck_assert_int_eq(step_op(sim, 0, 16), 0);
	ck_assert_uint_eq(zinfo(sim, 0, ZONE_NORMAL).managed, 262144);
	ck_assert_int_eq(step_op(sim, 0, 16), 1);
	ck_assert_int_eq(complete_op(sim), 0); /* page_alloc_init_late() still runs */
	ck_assert_int_eq(complete_op(sim), 1);
	ck_assert_int_eq(step_op(sim, 0, 1), 1);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/* Without a deferral both ops have nothing to do. */
START_TEST(test_deferred_ops_skip_without_deferral)
{
	struct mm_sim *sim = deferred_sim(0);

	ck_assert_int_eq(step_op(sim, 0, 1), 1);
	ck_assert_int_eq(complete_op(sim), 1);
	ck_assert_uint_eq(zinfo(sim, 0, ZONE_NORMAL).managed, 262144);
	mm_sim_destroy(sim);
}
END_TEST

static Suite *deferred_ops_suite(void)
{
	Suite *s = suite_create("deferred_ops");
	TCase *tc = tcase_create("skip");

	tcase_add_test(tc, test_deferred_step_op_skips_when_nothing_left);
	tcase_add_test(tc, test_deferred_ops_skip_without_deferral);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(deferred_ops_suite());
}
