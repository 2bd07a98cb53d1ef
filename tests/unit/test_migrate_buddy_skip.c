/* SPDX-License-Identifier: MIT */
/*
 * test_migrate_buddy_skip.c - the migration scanner steps over free pages
 * (isolate_migratepages_block(), mm/compaction.c 6.x), over a grid of free
 * block orders and places, request orders and modes.
 *
 * The rule, for a block of movable LRU pages and free (buddy) blocks only:
 * a free block's head is stepped over whole (low_pfn += 2^order - 1, for
 * 0 < order <= MAX_ORDER; an order-0 one is just passed) and is no
 * isolation failure; every LRU page is isolated. An async direct pass
 * (skip_on_failure) works in cc->order-aligned chunks: reaching the next
 * chunk with pages isolated ends the round. Any other pass isolates up to
 * COMPACT_CLUSTER_MAX pages or the block's end. A free block's tail taken
 * for a failure would, async direct, put the chunk's pages back and move
 * to the next chunk.
 *
 * The zone: pfns [0, 256), 32-page pageblocks, every page a movable fill
 * page; a row frees a block of order 0 to 3 at an aligned place in block
 * 0 and runs one isolate_migratepages() round from pfn 0 (the free
 * scanner at 96) at request order 1 to 3 (no fast search below order 4).
 */
#include "common.h"
#include "internal.h"

#define BLOCK 32u

/* The rule above, written out: the pfns one round isolates from block 0. */
static unsigned int isolate_rule(bool skip_on_failure, int order, uint64_t free_pfn,
				 unsigned int free_order, uint32_t *out)
{
	uint64_t chunk = UINT64_C(1) << order, next_skip = chunk;
	unsigned int n = 0;

	for (uint64_t pfn = 0; pfn < BLOCK; pfn++) {
		if (skip_on_failure && pfn >= next_skip) {
			if (n)
				break;
			next_skip = (pfn / chunk + 1) * chunk;
		}
		if (pfn == free_pfn) {
			pfn += (UINT64_C(1) << free_order) - 1;
			continue;
		}
		out[n++] = (uint32_t)pfn;
		if (n >= COMPACT_CLUSTER_MAX)
			break;
	}
	return n;
}

static void apply(struct mm_sim *sim, struct mm_op op)
{
	ck_assert_int_eq(mm_apply_op(sim, &op, NULL, 0, 0), 0);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static void run_row(int mode, bool direct, int order, unsigned int free_order, uint64_t free_pfn)
{
	struct mm_config cfg;
	struct mm_sim *sim;
	uint32_t isolated[256], want[BLOCK];
	unsigned int nwant;
	struct vrec vr;

	cfg_tiny(&cfg, 1, 6, 5);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 256, 256);
	sim = sim_new_buddy_only(&cfg);
	sim->serial = true; /* as the executor runs compaction */
	mm_set_current_cpu(0);
	apply(sim,
	      (struct mm_op){.kind = MM_OP_FILL,
			     .fill = {.node = -1, .zone = ZONE_NORMAL, .order = 0, .pages = 256}});
	ck_assert_uint_eq(mm_fill_live(sim), 256);
	/* the fill pool's blocks in pfn order: slot i holds pfn i */
	for (uint64_t pfn = free_pfn; pfn < free_pfn + (UINT64_C(1) << free_order); pfn++) {
		struct mm_handle *h = &sim->compact->fill[pfn];

		ck_assert_int_eq(h->pfn, (long long)pfn);
		mm_free_pages(sim, pfn, 0, OWNER_FILL | (uint32_t)pfn, h->gen);
		h->pfn = -1;
	}
	ck_assert_int_eq(sim->mem_map[free_pfn].state, PG_BUDDY);
	ck_assert_uint_eq(sim->mem_map[free_pfn].order, free_order);
	nwant = isolate_rule(direct && mode == MM_MIGRATE_ASYNC, order, free_pfn, free_order, want);

	struct compact_control cc = {
		.zone = &sim->node_data[0]->node_zones[ZONE_NORMAL],
		.order = order,
		.search_order = order,
		.migratetype = MIGRATE_MOVABLE,
		.mode = mode,
		.direct_compaction = direct,
		.migrate_pfn = 0,
		.whole_zone = true, /* from the zone start: compact_zone() would say so */
		.free_pfn = 96,
		.fast_found_pfn = COMPACT_NO_PFN,
		.migratepages = isolated,
	};
	sim_record(sim, &vr);
	compact_check_pass_begin(&cc);
	isolate_migratepages(&cc);
	qsort(isolated, cc.nr_migratepages, sizeof(isolated[0]), cmp_u32);
	bool same = cc.nr_migratepages == nwant;
	for (unsigned int i = 0; same && i < nwant; i++)
		same = isolated[i] == want[i];
	ck_assert_msg(same,
		      "%s%s order %d, a free order-%u block at %llu: %lu pages isolated from "
		      "%u, want %u from %u",
		      mode == MM_MIGRATE_ASYNC ? "async" : "sync light", direct ? " direct" : "",
		      order, free_order, (unsigned long long)free_pfn, cc.nr_migratepages,
		      cc.nr_migratepages ? isolated[0] : 0, nwant, nwant ? want[0] : 0);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	putback_movable_pages(&cc);
	ck_assert_msg(mm_check_full(sim) == 0, "%s", vr.first);
	mm_sim_destroy(sim);
}

/* _i: the mode (async direct, sync light direct, async kcompactd); each order and place a row. */
START_TEST(test_migrate_scanner_steps_over_free_blocks)
{
	static const struct {
		int mode;
		bool direct;
	} modes[] = {
		{MM_MIGRATE_ASYNC, true},
		{MM_MIGRATE_SYNC_LIGHT, true},
		{MM_MIGRATE_ASYNC, false},
	};

	for (int order = 1; order <= PAGE_ALLOC_COSTLY_ORDER; order++)
		for (unsigned int fo = 0; fo <= 3; fo++)
			for (uint64_t at = 0; at < BLOCK; at += UINT64_C(1) << fo)
				run_row(modes[_i].mode, modes[_i].direct, order, fo, at);
}
END_TEST

static Suite *migrate_buddy_skip_suite(void)
{
	Suite *s = suite_create("migrate_buddy_skip");
	TCase *tc = tcase_create("isolate_migratepages_block");

	tcase_add_loop_test(tc, test_migrate_scanner_steps_over_free_blocks, 0, 3);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(migrate_buddy_skip_suite());
}
