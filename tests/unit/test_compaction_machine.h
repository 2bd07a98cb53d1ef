/* SPDX-License-Identifier: MIT */
/*
 * test_compaction_machine.h - the machine the compaction decision tables
 * (test_compaction_fast_find.c, _free_scan.c, _migrate_block.c) build
 * their free lists on: one node, one CPU, one Normal zone [0, pages), no
 * pcp (frees reach the buddy at once), serial as the executor runs
 * compaction, every page taken by movable fill blocks of fill_order.
 */
#ifndef TEST_COMPACTION_MACHINE_H
#define TEST_COMPACTION_MACHINE_H

#include "common.h"
#include "internal.h"

static inline struct mm_sim *compaction_table_machine(unsigned int max_order,
						      unsigned int pageblock_order,
						      unsigned int fill_order, uint64_t pages)
{
	struct mm_op fill = {.kind = MM_OP_FILL,
			     .fill = {.node = -1,
				      .zone = ZONE_NORMAL,
				      .order = (uint8_t)fill_order,
				      .pages = (uint16_t)(pages >> fill_order)}};
	struct mm_config cfg;
	struct mm_sim *sim;

	cfg_tiny(&cfg, 1, max_order, pageblock_order);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, pages, pages);
	sim = sim_new(&cfg);
	mm_zone_pcp_disable(sim, 0, ZONE_NORMAL);
	sim->serial = true;
	ck_assert_int_eq(mm_apply_op(sim, &fill, NULL, 0, 0), 0);
	ck_assert_uint_eq(mm_fill_live(sim), pages >> fill_order);
	return sim;
}

#endif
