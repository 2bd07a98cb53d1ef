/* SPDX-License-Identifier: MIT */
/*
 * test_fill_pool_slots.c - which slot the fill pool reuses once it is
 * full: a freed one (pfn -1), never a live one, and a live block at pfn 0
 * is as live as any other. A slot handed out twice loses the first
 * block's handle: nothing frees or migrates that block again.
 */
#include "test_compaction_machine.h"

static void pool_op(struct mm_sim *sim, struct mm_op op)
{
	ck_assert_int_eq(mm_apply_op(sim, &op, NULL, 0, 0), 0);
}

/*
 * 64 order-0 fill blocks, slot i holding pfn i: the pool is full (its
 * capacity is the machine's pfns). Slot k is freed, the cursor still at
 * 0, where pfn 0's live slot sits; one more block is filled: it is pfn k
 * (the only free page) and must land in slot k, every other slot still
 * holding its pfn. Then every slot is freed: all 64 pages come back.
 */
static const unsigned int freed_slot[] = {1, 5, 32, 63};

START_TEST(test_full_pool_reuses_only_freed_slots)
{
	struct mm_op refill = {.kind = MM_OP_FILL,
			       .fill = {.node = -1, .zone = ZONE_NORMAL, .order = 0, .pages = 1}};
	unsigned int k = freed_slot[_i];
	struct mm_sim *sim = compaction_table_machine(6, 5, 0, 64);
	struct compact_state *cs = sim->compact;

	for (uint32_t i = 0; i < 64; i++)
		ck_assert_int_eq(cs->fill[i].pfn, (long long)i);
	ck_assert_uint_eq(cs->fill_cursor, 0);
	pool_op(sim, (struct mm_op){.kind = MM_OP_FREE_PATTERN,
				    .pattern = {.every = 64, .offset = (uint8_t)k}});
	ck_assert_int_eq(cs->fill[k].pfn, -1);
	ck_assert_uint_eq(mm_fill_live(sim), 63);

	pool_op(sim, refill);
	ck_assert_uint_eq(mm_fill_live(sim), 64);
	for (uint32_t i = 0; i < 64; i++)
		ck_assert_msg(cs->fill[i].pfn == (long long)i,
			      "slot %u freed and refilled: slot %u holds pfn %lld", k, i,
			      cs->fill[i].pfn);

	/* every 0, which only a hand-built op can hold, frees each slot as 1 does */
	pool_op(sim, (struct mm_op){.kind = MM_OP_FREE_PATTERN, .pattern = {.every = 0}});
	ck_assert_uint_eq(mm_fill_live(sim), 0);
	ck_assert_int_eq(zinfo(sim, 0, ZONE_NORMAL).nr_free_pages, 64);
	ck_assert_uint_eq(mm_sim_violations(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

static Suite *fill_pool_slots_suite(void)
{
	Suite *s = suite_create("fill_pool_slots");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_full_pool_reuses_only_freed_slots, 0,
			    (int)ARRAY_SIZE(freed_slot));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(fill_pool_slots_suite());
}
