/* SPDX-License-Identifier: MIT */
/*
 * test_kswapd_ops_skip.c - what the vmstat family's ops that name a node or
 * a zone return: 1 (the executor counts the op skipped) for a node past
 * the machine or a zone with no managed pages, and 0 when the op ran. The
 * executor adds the return to mm_exec_skipped(), so a skip must count one
 * op, not more.
 */
#include "common.h"
#include "internal.h"

static const struct {
	const char *what;
	uint8_t kind;
	int16_t node;
	uint8_t zone;
	int want;
} skip_rows[] = {
	{"wake, empty DMA", MM_OP_KSWAPD_WAKE, 0, ZONE_DMA, 1},
	{"wake, no node 1", MM_OP_KSWAPD_WAKE, 1, ZONE_NORMAL, 1},
	{"wake, node -1", MM_OP_KSWAPD_WAKE, -1, ZONE_NORMAL, 1},
	{"wake, zone past the last", MM_OP_KSWAPD_WAKE, 0, MAX_NR_ZONES, 1},
	{"wake, Normal", MM_OP_KSWAPD_WAKE, 0, ZONE_NORMAL, 0},
	{"read, empty DMA32", MM_OP_VMSTAT_READ, 0, ZONE_DMA32, 1},
	{"read, no node 1", MM_OP_VMSTAT_READ, 1, ZONE_NORMAL, 1},
	{"read, Normal", MM_OP_VMSTAT_READ, 0, ZONE_NORMAL, 0},
	{"step, no node 1", MM_OP_KSWAPD_STEP, 1, 0, 1},
	{"step, node -1", MM_OP_KSWAPD_STEP, -1, 0, 1},
	{"sleep, no node 1", MM_OP_KSWAPD_SLEEP, 1, 0, 1},
	{"sleep, node -1", MM_OP_KSWAPD_SLEEP, -1, 0, 1},
};

/* One node, one CPU, a Normal zone of 256 pages and no other. */
START_TEST(test_vmstat_op_skip_returns_one)
{
	struct mm_op op = {.kind = skip_rows[_i].kind,
			   .cpu = 0,
			   .vmstat = {.node = skip_rows[_i].node, .zone = skip_rows[_i].zone}};
	struct mm_config cfg;
	struct mm_sim *sim;
	struct vrec vr;

	cfg_tiny(&cfg, 1, 3, 2);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 256, 256);
	sim = sim_new(&cfg);
	sim->serial = true;
	sim_record(sim, &vr);
	int got = mm_apply_op(sim, &op, NULL, 0, 0);
	ck_assert_msg(got == skip_rows[_i].want, "%s: returned %d, want %d", skip_rows[_i].what,
		      got, skip_rows[_i].want);
	ck_assert_msg(vr.n == 0, "%s: %s", skip_rows[_i].what, vr.first);
	mm_sim_destroy(sim);
}
END_TEST

static Suite *kswapd_ops_skip_suite(void)
{
	Suite *s = suite_create("kswapd_ops_skip");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_vmstat_op_skip_returns_one, 0, (int)ARRAY_SIZE(skip_rows));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(kswapd_ops_skip_suite());
}
