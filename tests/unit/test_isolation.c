/* SPDX-License-Identifier: MIT */
/*
 * test_isolation.c - page isolation and memory offlining (src/isolation.c):
 * offline_pages / online_pages, their binary slot, and the INV-ISOLATE-*
 * checks (the variants that break them are in corpus/variants/).
 */
#include "common.h"

#include <errno.h>

#include "internal.h"

/* One Normal zone of 4 pageblocks of 512 pages, 2 CPUs. */
#define MACHINE                                                                                    \
	"config nodes=1 cpus=2 max_order=10 pageblock_order=9 min_free_kbytes=0 "                  \
	"watermark_scale_factor=10 high_fraction=0\n"                                              \
	"zone 0 Normal start=0 spanned=2048 present=2048 managed=2048\n"

#define MOVABLE_ALLOC "gfp=MOVABLE|DIRECT_RECLAIM|KSWAPD_RECLAIM"

struct run {
	struct mm_exec *ex;
	struct vrec vr;
	long violations, failed_op;
};

static struct mm_sim *run_text(struct run *r, const char *text)
{
	struct mm_exec_opts o;

	r->ex = mm_exec_create();
	ck_assert_ptr_nonnull(r->ex);
	mm_exec_opts_default(&o);
	r->violations = exec_text(r->ex, text, &o, &r->vr, &r->failed_op);
	return mm_exec_sim(r->ex);
}

/* A free pageblock goes offline: managed, present, free and the watermarks follow; then back. */
START_TEST(test_offline_online_free_block)
{
	struct run r;
	struct mm_sim *sim = run_text(&r, MACHINE "cpu0 offline_pages node=0 zone=Normal "
						  "start=1536 pages=512\n"
						  "check\n");
	struct mm_zone_info zi = zinfo(sim, 0, ZONE_NORMAL);

	ck_assert_msg(r.violations == 0, "%s", r.vr.first);
	ck_assert_uint_eq(mm_exec_skipped(r.ex), 0);
	ck_assert_uint_eq(zi.managed, 1536);
	ck_assert_uint_eq(zi.present, 1536);
	ck_assert_int_eq(zi.nr_free_exact, 1536);
	/* min_free_kbytes 0: the kernel's formula, int_sqrt(1536 * 4 * 16) = 313 KB -> 78 pages */
	ck_assert_uint_eq(zi.wmark[WMARK_MIN], 78);
	for (uint64_t pfn = 1536; pfn < 2048; pfn++)
		ck_assert_int_eq(sim->mem_map[pfn].state, PG_RESERVED);
	mm_exec_destroy(r.ex);

	sim = run_text(&r, MACHINE "cpu0 offline_pages node=0 zone=Normal start=1536 pages=512\n"
				   "cpu1 online_pages node=0 zone=Normal start=1024 pages=1024\n"
				   "check\n");
	zi = zinfo(sim, 0, ZONE_NORMAL);
	ck_assert_msg(r.violations == 0, "%s", r.vr.first);
	ck_assert_uint_eq(mm_exec_skipped(r.ex), 0);
	ck_assert_uint_eq(zi.managed, 2048);
	ck_assert_int_eq(zi.nr_free_exact, 2048);
	/* undo merged the block back: two order-10 blocks, as at boot */
	ck_assert_uint_eq(zi.nr_free[10], 2);
	ck_assert_int_eq(sim->pageblock_flags[3] & PB_MIGRATETYPE_MASK, MIGRATE_MOVABLE);
	mm_exec_destroy(r.ex);
}
END_TEST

/*
 * online_pages_range() frees the onlined pageblock whole (the largest
 * aligned chunks), so onlining block 3 merges exactly once: the undo puts
 * it back beside its free buddy, block 2. Freed in smaller pieces, the
 * pieces would merge with each other first.
 */
START_TEST(test_online_frees_the_block_whole)
{
	struct run r;
	struct mm_sim *sim = run_text(&r, MACHINE "cpu0 offline_pages node=0 zone=Normal "
						  "start=1536 pages=512\n");
	struct mm_op online = {
		.kind = MM_OP_ONLINE_PAGES,
		.cpu = 1,
		.range = {.start = 1536, .pages = 512, .node = 0, .zone = ZONE_NORMAL}};
	unsigned long long merges = sim_stats(sim).merges;

	ck_assert_msg(r.violations == 0, "%s", r.vr.first);
	ck_assert_int_eq(mm_apply_op(sim, &online, NULL, 0, 0), 0);
	ck_assert_uint_eq(sim_stats(sim).merges - merges, 1);
	ck_assert_uint_eq(zinfo(sim, 0, ZONE_NORMAL).nr_free[10], 2);
	mm_exec_destroy(r.ex);
}
END_TEST

/* A movable allocation in the range moves out; its handle follows it, and its free is clean. */
START_TEST(test_offline_migrates_movable)
{
	struct run r;
	struct mm_sim *sim = run_text(&r, MACHINE "cpu0 alloc a0 order=2 " MOVABLE_ALLOC "\n"
						  "cpu0 offline_pages node=0 zone=Normal "
						  "start=0 pages=1024\n"
						  "check\n");
	struct mm_zone_info zi = zinfo(sim, 0, ZONE_NORMAL);
	unsigned int moved = 0;

	ck_assert_msg(r.violations == 0, "%s", r.vr.first);
	ck_assert_uint_eq(mm_exec_skipped(r.ex), 0);
	ck_assert_uint_eq(zi.managed, 1024);
	ck_assert_int_eq(zi.nr_free_exact, 1024 - 4);
	for (uint64_t pfn = 1024; pfn < 2048; pfn++)
		moved += sim->mem_map[pfn].state == PG_ALLOC && sim->mem_map[pfn].order == 2;
	ck_assert_uint_eq(moved, 1);
	mm_exec_destroy(r.ex);

	sim = run_text(&r, MACHINE "cpu0 alloc a0 order=2 " MOVABLE_ALLOC "\n"
				   "cpu0 offline_pages node=0 zone=Normal start=0 pages=1024\n"
				   "cpu0 free a0\n"
				   "cpu0 drain\n"
				   "check\n");
	zi = zinfo(sim, 0, ZONE_NORMAL);
	ck_assert_msg(r.violations == 0, "%s", r.vr.first);
	ck_assert_uint_eq(mm_exec_skipped(r.ex), 0);
	ck_assert_int_eq(zi.nr_free_exact, 1024);
	mm_exec_destroy(r.ex);
}
END_TEST

/*
 * A movable block that ends where the range ends moves like any other
 * (do_migrate_range() refuses only a block reaching past the range): a
 * whole pageblock of order 9 at pfn 0, and the range that pageblock.
 */
START_TEST(test_offline_migrates_block_at_range_end)
{
	struct run r;
	struct mm_sim *sim = run_text(&r, MACHINE "cpu0 alloc a0 order=9 " MOVABLE_ALLOC "\n"
						  "cpu0 offline_pages node=0 zone=Normal "
						  "start=0 pages=512\n"
						  "check\n");
	struct mm_zone_info zi = zinfo(sim, 0, ZONE_NORMAL);
	unsigned int moved = 0;

	ck_assert_msg(r.violations == 0, "%s", r.vr.first);
	ck_assert_int_eq(sim->mem_map[0].state, PG_RESERVED);
	ck_assert_uint_eq(mm_exec_skipped(r.ex), 0);
	ck_assert_uint_eq(zi.managed, 1536);
	for (uint64_t pfn = 512; pfn < 2048; pfn += 512)
		moved += sim->mem_map[pfn].state == PG_ALLOC && sim->mem_map[pfn].order == 9;
	ck_assert_uint_eq(moved, 1);
	ck_assert_int_eq(zi.nr_free_exact, 1536 - 512);
	mm_exec_destroy(r.ex);
}
END_TEST

/*
 * do_migrate_range()'s target comes from the range's own zone when it
 * passes the min mark as an allocation of class zone 0 would: the zone's
 * lowmem reserve against allocations aimed at higher zones does not
 * count. ZONE_DMA [0, 128) under a DMA32 zone of 8192 pages keeps
 * 8192 / 256 = 32 pages from DMA32 allocations. DMA filled, every fifth
 * fill page freed: more free pages than min plus the range's fill pages
 * (each move takes one), no more than min + 32. Each target passes min and
 * would fail min + 32: the offline must succeed, its pages moved within
 * DMA.
 */
#define DMA_UNDER_DMA32                                                                            \
	"config nodes=1 cpus=1 max_order=5 pageblock_order=4 min_free_kbytes=0 "                   \
	"watermark_scale_factor=10 high_fraction=0\n"                                              \
	"zone 0 DMA start=0 spanned=128 present=128 managed=128\n"                                 \
	"zone 0 DMA32 start=128 spanned=8192 present=8192 managed=8192\n"                          \
	"cpu0 fill zone=DMA order=0 pages=128 unmovable_every=0 busy_every=0\n"                    \
	"cpu0 free_pattern every=5 offset=1\n"                                                     \
	"cpu0 drain\n"

static unsigned int allocated_in(const struct mm_sim *sim, uint64_t start, uint64_t end)
{
	unsigned int n = 0;

	for (uint64_t pfn = start; pfn < end; pfn++)
		n += sim->mem_map[pfn].state == PG_ALLOC;
	return n;
}

START_TEST(test_offline_target_ignores_the_lowmem_reserve)
{
	struct run r;
	struct mm_sim *sim = run_text(&r, DMA_UNDER_DMA32 "check\n");
	const struct zone *dma = &sim->node_data[0]->node_zones[ZONE_DMA];
	unsigned int in_range = allocated_in(sim, 0, 16), outside = allocated_in(sim, 16, 128);
	long free_pages = zone_page_state(dma, NR_FREE_PAGES);

	ck_assert_int_eq(dma->lowmem_reserve[ZONE_DMA32], 32);
	ck_assert_msg(free_pages > (long)wmark_pages(dma, WMARK_MIN) + (long)in_range &&
			      free_pages <= (long)wmark_pages(dma, WMARK_MIN) + 32,
		      "%ld free pages, min %lu: outside the reserve's window", free_pages,
		      wmark_pages(dma, WMARK_MIN));
	ck_assert_uint_gt(in_range, 0);
	mm_exec_destroy(r.ex);

	sim = run_text(&r, DMA_UNDER_DMA32 "cpu0 offline_pages node=0 zone=DMA start=0 pages=16\n"
					   "check\n");
	ck_assert_msg(r.violations == 0, "%s", r.vr.first);
	ck_assert_uint_eq(mm_exec_skipped(r.ex), 0);
	ck_assert_uint_eq(zinfo(sim, 0, ZONE_DMA).managed, 112);
	ck_assert_uint_eq(allocated_in(sim, 16, 128), outside + in_range);
	mm_exec_destroy(r.ex);
}
END_TEST

/*
 * An unmovable allocation fails the offline: the range is undone to
 * MOVABLE, nothing leaves the zone, the free pages are all counted again.
 */
START_TEST(test_offline_unmovable_fails_and_undoes)
{
	struct run r;
	struct mm_sim *sim = run_text(&r, MACHINE "cpu0 alloc a0 order=0 " MOVABLE_ALLOC "\n"
						  "cpu0 alloc a1 order=0 gfp=DIRECT_RECLAIM\n"
						  "cpu0 offline_pages node=0 zone=Normal "
						  "start=0 pages=2048\n"
						  "check\n");
	struct mm_zone_info zi = zinfo(sim, 0, ZONE_NORMAL);

	ck_assert_msg(r.violations == 0, "%s", r.vr.first);
	ck_assert_uint_eq(mm_exec_skipped(r.ex), 1);
	ck_assert_uint_eq(zi.managed, 2048);
	ck_assert_uint_eq(zi.present, 2048);
	ck_assert_int_eq(zi.nr_free_exact + zi.nr_pcp_pages, 2046);
	for (unsigned int b = 0; b < 4; b++)
		ck_assert_int_ne(sim->pageblock_flags[b] & PB_MIGRATETYPE_MASK, MIGRATE_ISOLATE);
	mm_exec_destroy(r.ex);
}
END_TEST

/*
 * alloc_contig_range drains the pcp lists after isolating (they stay on),
 * moves the movable block out and takes the pageblock; free_contig_range
 * gives it back through the pcp list.
 */
START_TEST(test_contig_range)
{
	struct run r;
	struct mm_sim *sim = run_text(&r, MACHINE "cpu0 alloc a0 order=0 " MOVABLE_ALLOC "\n"
						  "cpu1 alloc a1 order=2 " MOVABLE_ALLOC "\n"
						  "cpu0 free a0\n"
						  "cpu1 alloc_contig_range node=0 zone=Normal "
						  "start=0 pages=512\n"
						  "check\n");
	struct mm_zone_info zi = zinfo(sim, 0, ZONE_NORMAL);

	ck_assert_msg(r.violations == 0, "%s", r.vr.first);
	ck_assert_uint_eq(mm_exec_skipped(r.ex), 0);
	ck_assert_uint_eq(zi.managed, 2048);
	ck_assert_int_eq(zi.nr_pcp_pages, 0);
	ck_assert_int_eq(zi.nr_free_exact, 2048 - 512 - 4);
	for (uint64_t pfn = 0; pfn < 512; pfn++)
		ck_assert_int_eq(sim->mem_map[pfn].state, PG_ALLOC);
	ck_assert_int_eq(sim->pageblock_flags[0] & PB_MIGRATETYPE_MASK, MIGRATE_MOVABLE);
	mm_exec_destroy(r.ex);

	sim = run_text(&r, MACHINE "cpu1 alloc_contig_range node=0 zone=Normal start=512 "
				   "pages=512\n"
				   "cpu0 free_contig_range node=0 zone=Normal start=0 pages=2048\n"
				   "cpu0 free_contig_range node=0 zone=Normal start=0 pages=2048\n"
				   "cpu0 drain\n"
				   "check\n");
	zi = zinfo(sim, 0, ZONE_NORMAL);
	ck_assert_msg(r.violations == 0, "%s", r.vr.first);
	ck_assert_uint_eq(mm_exec_skipped(r.ex), 1); /* the second free finds nothing */
	ck_assert_int_eq(zi.nr_free_exact, 2048);
	ck_assert_uint_eq(zi.nr_free[10], 2);
	mm_exec_destroy(r.ex);
}
END_TEST

/*
 * Onlining what is online, or an offline range twice, is a skip; so is
 * offlining a whole zone, every present page (the model keeps each zone
 * populated), and a range wider than what is left present.
 */
START_TEST(test_range_skips)
{
	struct run r;

	run_text(&r, MACHINE "cpu0 offline_pages node=0 zone=Normal start=0 pages=2048\n"
			     "cpu0 online_pages node=0 zone=Normal start=0 pages=512\n"
			     "cpu0 offline_pages node=0 zone=Normal start=512 pages=512\n"
			     "cpu0 offline_pages node=0 zone=Normal start=512 pages=512\n"
			     "cpu0 offline_pages node=0 zone=Normal start=0 pages=2048\n"
			     "check\n");
	ck_assert_msg(r.violations == 0, "%s", r.vr.first);
	ck_assert_uint_eq(mm_exec_skipped(r.ex), 4);
	ck_assert_uint_eq(zinfo(mm_exec_sim(r.ex), 0, ZONE_NORMAL).present, 1536);
	mm_exec_destroy(r.ex);
}
END_TEST

/* A pageblock isolated by another caller (CMA, say), its free pages on the ISOLATE lists. */
static void hold_isolated(struct zone *z, uint64_t pfn)
{
	zone_lock(z);
	move_freepages_block_isolate(z, pfn, MIGRATE_ISOLATE);
	zone_unlock(z);
}

/* ... and given back, its free pages merged again. */
static void release_isolated(struct zone *z, uint64_t pfn)
{
	zone_lock(z);
	move_freepages_block_isolate(z, pfn, MIGRATE_MOVABLE);
	putback_pageblock_buddy(z, pfn);
	zone_unlock(z);
}

/*
 * online_pages() onlines a pageblock only if it is offline: every page
 * reserved and the block isolated, as offline_pages() left it. Neither
 * alone will do. Row 0: a block memblock reserved at boot (managed 1536
 * of 2048: block 3 all PG_RESERVED, still MOVABLE). Row 1: block 3 online
 * and free but held isolated by another caller. Onlining block 3 is a
 * skip in both, and the block is left as it was.
 */
START_TEST(test_online_wants_reserved_and_isolated)
{
	static const char boot_reserved[] =
		"config nodes=1 cpus=2 max_order=10 pageblock_order=9 min_free_kbytes=0 "
		"watermark_scale_factor=10 high_fraction=0\n"
		"zone 0 Normal start=0 spanned=2048 present=2048 managed=1536\n";
	struct run r;
	struct vrec vr;
	struct mm_sim *sim = run_text(&r, _i ? MACHINE : boot_reserved);
	struct zone *z = &sim->node_data[0]->node_zones[ZONE_NORMAL];
	struct mm_op op = {.kind = MM_OP_ONLINE_PAGES,
			   .range = {.start = 1536, .pages = 512, .node = 0, .zone = ZONE_NORMAL}};
	struct mm_zone_info before;

	if (_i)
		hold_isolated(z, 1536);
	before = zinfo(sim, 0, ZONE_NORMAL);
	sim_record(sim, &vr);
	ck_assert_int_eq(mm_apply_op(sim, &op, NULL, 0, 0), 1);
	ck_assert_msg(vr.n == 0, "%u reports, the first %s", vr.n, vr.first);
	ck_assert_int_eq(get_pfnblock_migratetype(sim, 1536),
			 _i ? MIGRATE_ISOLATE : MIGRATE_MOVABLE);
	ck_assert_int_eq(sim->mem_map[2047].state, _i ? PG_FREE_TAIL : PG_RESERVED);
	ck_assert_uint_eq(zinfo(sim, 0, ZONE_NORMAL).present, before.present);
	ck_assert_uint_eq(zinfo(sim, 0, ZONE_NORMAL).managed, before.managed);
	ck_assert_int_eq(zinfo(sim, 0, ZONE_NORMAL).nr_free_exact, before.nr_free_exact);
	if (_i)
		release_isolated(z, 1536);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_exec_destroy(r.ex);
}
END_TEST

/*
 * Two isolations at once, as CMA and memory offlining can have: pageblock
 * 3 held isolated by another caller (its free pages on the ISOLATE
 * lists), alloc_contig_range() of pageblock 0. The op's checks count the
 * ISOLATE-listed pages of their own range only: the other block's are
 * neither leaked from this range nor left by its undo. Clean, and block 3
 * still isolated after.
 */
START_TEST(test_other_isolated_block_not_counted)
{
	struct run r;
	struct vrec vr;
	struct mm_sim *sim = run_text(&r, MACHINE);
	struct zone *z = &sim->node_data[0]->node_zones[ZONE_NORMAL];
	struct mm_op op = {.kind = _i ? MM_OP_OFFLINE_PAGES : MM_OP_ALLOC_CONTIG,
			   .range = {.start = 0, .pages = 512, .node = 0, .zone = ZONE_NORMAL}};

	hold_isolated(z, 1536);
	ck_assert_uint_eq(z->free_area[9].head[MIGRATE_ISOLATE], 1536); /* the premise */
	sim_record(sim, &vr);
	ck_assert_int_eq(mm_apply_op(sim, &op, NULL, 0, 0), 0);
	ck_assert_msg(vr.n == 0, "op %u: %u reports, the first %s", op.kind, vr.n, vr.first);
	ck_assert_int_eq(get_pfnblock_migratetype(sim, 1536), MIGRATE_ISOLATE);
	release_isolated(z, 1536);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_exec_destroy(r.ex);
}
END_TEST

/*
 * The C API takes any range; neither decoder builds these, so range_zone()
 * is their only guard: a start or size not in whole pageblocks (one page
 * off included, which only the mask's lowest bit sees), a range
 * reaching below its zone's start (DMA32 [0, 1024), Normal [1024, 2048))
 * or past its end, a node or zone out of range, no pages. Each op skips
 * and leaves the machine as it was: the pcp page a free left on cpu0's
 * list of Normal stays there (an offlining would drain it first).
 */
static const struct {
	uint32_t start;
	uint16_t pages;
	int16_t node;
	uint8_t zone;
} bad_ranges[] = {
	{1024 + 100, 512, 0, ZONE_NORMAL}, {1024, 100, 0, ZONE_NORMAL},
	{512, 512, 0, ZONE_NORMAL},	   {512, 1024, 0, ZONE_NORMAL},
	{1536, 1024, 0, ZONE_NORMAL},	   {1024, 512, 1, ZONE_NORMAL},
	{1024, 512, -1, ZONE_NORMAL},	   {1024, 512, 0, MAX_NR_ZONES},
	{1024, 0, 0, ZONE_NORMAL},	   {1024 + 1, 512, 0, ZONE_NORMAL},
	{1024, 1, 0, ZONE_NORMAL},
};

START_TEST(test_range_refused_unless_whole_blocks_in_zone)
{
	static const unsigned int kinds[] = {MM_OP_OFFLINE_PAGES, MM_OP_ONLINE_PAGES,
					     MM_OP_ALLOC_CONTIG};
	struct run r;
	struct mm_sim *sim =
		run_text(&r, "config nodes=1 cpus=2 max_order=10 pageblock_order=9 "
			     "min_free_kbytes=0 watermark_scale_factor=10 high_fraction=0\n"
			     "zone 0 DMA32 start=0 spanned=1024 present=1024 managed=1024\n"
			     "zone 0 Normal start=1024 spanned=1024 present=1024 managed=1024\n"
			     "cpu0 alloc a0 order=0 " MOVABLE_ALLOC "\n"
			     "cpu0 free a0\n");
	long pcp = zinfo(sim, 0, ZONE_NORMAL).nr_pcp_pages;

	ck_assert_int_gt(pcp, 0); /* an offlining would drain them */
	for (size_t k = 0; k < ARRAY_SIZE(kinds); k++) {
		struct mm_op op = {.kind = kinds[k],
				   .range = {.start = bad_ranges[_i].start,
					     .pages = bad_ranges[_i].pages,
					     .node = bad_ranges[_i].node,
					     .zone = bad_ranges[_i].zone}};

		ck_assert_msg(mm_apply_op(sim, &op, NULL, 0, 0) == 1, "op %u of row %d ran",
			      op.kind, _i);
	}
	ck_assert_uint_eq(zinfo(sim, 0, ZONE_DMA32).present, 1024);
	ck_assert_uint_eq(zinfo(sim, 0, ZONE_NORMAL).present, 1024);
	ck_assert_int_eq(zinfo(sim, 0, ZONE_NORMAL).nr_pcp_pages, pcp);
	ck_assert_uint_eq(zinfo(sim, 0, ZONE_DMA32).nr_free_exact, 1024);
	ck_assert_uint_eq(zinfo(sim, 0, ZONE_NORMAL).nr_free_exact, 1024 - pcp);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_exec_destroy(r.ex);
}
END_TEST

/*
 * The slot: after sub 10, byte 3 | w << 2 is vmstat_refresh for w = 0 and
 * a range op for w 1..63, which reads a zone/size byte and a u16.
 */
START_TEST(test_range_slot)
{
	uint8_t in[32 + 13] = {[1] = 1 /* 2 CPUs */};
	struct mm_prog p;

	memcpy(in + 32, (uint8_t[]){63, 10, 0, 3, 63, 10, 1, 3 | 2 << 2, 2 | 1 << 2, 0, 0, 63, 8},
	       13);
	mm_prog_init(&p);
	ck_assert_int_eq(mm_decode(in, sizeof(in), NULL, &p), 0);
	ck_assert_uint_ge(p.nr_ops, 2);
	ck_assert_uint_eq(p.ops[0].kind, MM_OP_VMSTAT_REFRESH);
	/* w 2: x 1, online, node 0; zone index 2 (Normal), 2 pageblocks */
	if (p.nr_ops == 3) {
		ck_assert_uint_eq(p.ops[1].kind, MM_OP_ONLINE_PAGES);
		ck_assert_uint_eq(p.ops[1].range.zone, ZONE_NORMAL);
		ck_assert_uint_eq(p.ops[1].range.pages, 2u << p.cfg.pageblock_order);
		ck_assert_uint_eq(p.ops[2].kind, MM_OP_VMSTAT_FOLD);
	} else {
		/* the header's machine has too few Normal pageblocks: the op decodes to nothing */
		ck_assert_uint_eq(p.ops[1].kind, MM_OP_VMSTAT_FOLD);
	}
	mm_prog_free(&p);
}
END_TEST

/* Text round trip through the binary form. */
START_TEST(test_range_round_trip)
{
	struct mm_prog p, back;
	char err[200] = "";
	uint8_t buf[256];
	long n;

	mm_prog_init(&p);
	/* A machine the binary header holds (zones of up to 1024 pages) */
	ck_assert_msg(
		mm_parse_prog("config nodes=1 cpus=2 max_order=10 pageblock_order=9 "
			      "min_free_kbytes=0 watermark_scale_factor=10 high_fraction=0\n"
			      "zone 0 Normal start=0 spanned=1024 present=1024 managed=1024\n"
			      "cpu1 offline_pages node=0 zone=Normal start=512 pages=512\n"
			      "cpu0 online_pages node=0 zone=Normal start=0 pages=1024\n"
			      "cpu1 alloc_contig_range node=0 zone=Normal start=0 pages=512\n"
			      "cpu0 free_contig_range node=0 zone=Normal start=512 pages=512\n",
			      &p, err, sizeof(err)) == 0,
		"%s", err);
	n = mm_encode(&p, buf, sizeof(buf));
	ck_assert_int_gt(n, 0);
	mm_prog_init(&back);
	ck_assert_int_eq(mm_decode(buf, (size_t)n, NULL, &back), 0);
	ck_assert_uint_eq(back.nr_ops, 4);
	for (unsigned int i = 0; i < 4; i++)
		ck_assert_mem_eq(&back.ops[i], &p.ops[i], sizeof(p.ops[i]));
	mm_prog_free(&back);
	mm_prog_free(&p);
}
END_TEST

/*
 * has_unmovable_pages(): a reserved page (memblock's, at the zone's tail:
 * managed 1792 of 2048) makes its pageblock unmovable, so offlining that
 * block fails at the isolation, before anything moves. The order-8
 * movable block at 1536 (the only free order-8 block at boot) stays where
 * it is; isolating past the reserved page would migrate it out first.
 */
START_TEST(test_offline_reserved_page_fails_first)
{
	struct run r;
	struct mm_sim *sim =
		run_text(&r, "config nodes=1 cpus=2 max_order=10 pageblock_order=9 "
			     "min_free_kbytes=0 watermark_scale_factor=10 "
			     "high_fraction=0\n"
			     "zone 0 Normal start=0 spanned=2048 present=2048 "
			     "managed=1792\n"
			     "cpu0 alloc a0 order=8 " MOVABLE_ALLOC "\n"
			     "cpu0 offline_pages node=0 zone=Normal start=1536 pages=512\n"
			     "check\n");

	ck_assert_msg(r.violations == 0, "%s", r.vr.first);
	ck_assert_int_eq(sim->mem_map[1792].state, PG_RESERVED);
	ck_assert_uint_eq(mm_exec_skipped(r.ex), 1);
	ck_assert_int_eq(sim->mem_map[1536].state, PG_ALLOC);
	ck_assert_uint_eq(sim->mem_map[1536].order, 8);
	ck_assert_uint_eq(zinfo(sim, 0, ZONE_NORMAL).managed, 1792);
	mm_exec_destroy(r.ex);
}
END_TEST

/*
 * has_unmovable_pages() likewise refuses a page deferred init has not
 * reached (PG_UNINIT): with deferred_init_pages=1024, blocks 2 and 3 are
 * uninitialised. The order-8 movable block a1 sits in block 1, block 0 is
 * free again; alloc_contig_range() of blocks 1 and 2 fails at the
 * isolation of block 2, before anything moves: a1 stays at 512 and
 * nothing is taken. Isolating past the uninitialised page would migrate
 * a1 into block 0 first. (offline_pages() refuses such a range before it
 * isolates anything: its walk_system_ram_range() test.)
 */
START_TEST(test_contig_uninit_page_fails_first)
{
	struct run r;
	struct mm_sim *sim =
		run_text(&r, "config nodes=1 cpus=2 max_order=10 pageblock_order=9 "
			     "min_free_kbytes=0 watermark_scale_factor=10 high_fraction=0 "
			     "deferred_init_pages=1024\n"
			     "zone 0 Normal start=0 spanned=2048 present=2048 managed=2048\n"
			     "cpu0 alloc a0 order=9 " MOVABLE_ALLOC "\n"
			     "cpu0 alloc a1 order=8 " MOVABLE_ALLOC "\n"
			     "cpu0 free a0\n"
			     "cpu0 alloc_contig_range node=0 zone=Normal start=512 pages=1024\n"
			     "check\n");

	ck_assert_msg(r.violations == 0, "%s", r.vr.first);
	ck_assert_int_eq(sim->mem_map[1024].state, PG_UNINIT); /* the premise */
	ck_assert_int_eq(sim->mem_map[512].state, PG_ALLOC);   /* the premise: a1 */
	ck_assert_uint_eq(sim->mem_map[512].order, 8);
	ck_assert_uint_eq(mm_exec_skipped(r.ex), 1);
	for (uint64_t pfn = 0; pfn < 512; pfn++)
		ck_assert_int_ne(sim->mem_map[pfn].state, PG_ALLOC);
	ck_assert_int_eq(zinfo(sim, 0, ZONE_NORMAL).nr_free_exact, 1024 - 256);
	mm_exec_destroy(r.ex);
}
END_TEST

/*
 * free_contig_range() frees only the pages alloc_contig_range() handed
 * out: an order-0 allocation of the executor in the range is another
 * owner's, so the op finds none of its own (-EINVAL, a skip) and the
 * page's own free is clean afterwards.
 */
START_TEST(test_free_contig_range_spares_others)
{
	struct run r;
	struct mm_sim *sim = run_text(&r, MACHINE "cpu0 alloc a0 order=0 " MOVABLE_ALLOC "\n"
						  "cpu0 free_contig_range node=0 zone=Normal "
						  "start=0 pages=2048\n"
						  "check\n"
						  "cpu0 free a0\n"
						  "cpu0 drain\n"
						  "check\n");
	struct mm_zone_info zi = zinfo(sim, 0, ZONE_NORMAL);

	ck_assert_msg(r.violations == 0, "%s", r.vr.first);
	ck_assert_uint_eq(mm_exec_skipped(r.ex), 1);
	ck_assert_int_eq(zi.nr_free_exact, 2048);
	mm_exec_destroy(r.ex);
}
END_TEST

/*
 * INV-ISOLATE-MERGE is judged after the isolation and again after the
 * undo, over the range and a pageblock either side. Corrupted by hand:
 * pageblock 3 marked isolated under the free order-10 block of blocks 2
 * and 3, next to an alloc_contig_range() of block 1 (which succeeds). Both
 * points see the block spanning an isolated and another pageblock.
 */
START_TEST(test_merge_across_judged_after_undo)
{
	struct mm_config cfg;
	struct mm_sim *sim;
	struct vrec vr;
	struct mm_op op = {.kind = MM_OP_ALLOC_CONTIG,
			   .range = {.start = 512, .pages = 512, .node = 0, .zone = ZONE_NORMAL}};
	unsigned int merges = 0;

	cfg_tiny(&cfg, 1, 10, 9);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 2048, 2048);
	sim = sim_new(&cfg);
	sim->serial = true;
	mm_set_current_cpu(0);
	ck_assert_uint_eq(zinfo(sim, 0, ZONE_NORMAL).nr_free[10], 2);
	sim->pageblock_flags[3] =
		(uint8_t)((sim->pageblock_flags[3] & ~PB_MIGRATETYPE_MASK) | MIGRATE_ISOLATE);
	sim_record(sim, &vr);
	ck_assert_int_eq(mm_apply_op(sim, &op, NULL, 0, 0), 0);
	for (unsigned int i = 0; i < vr.n && i < VREC_MAX; i++)
		merges += !strcmp(vr.id[i], "INV-ISOLATE-MERGE");
	ck_assert_msg(merges == 2, "%u INV-ISOLATE-MERGE reports of %u (first %s)", merges, vr.n,
		      vr.n ? vr.first : "-");
	mm_sim_destroy(sim);
}
END_TEST

/*
 * ops run under isolate-merge-across on one node of 2 CPUs with a Normal
 * zone of `pages` pages in pageblocks of 512 (max_order 10, marks 0):
 * the reports in vr, the first failing op's index returned.
 */
static long run_merge_across(struct mm_exec *ex, unsigned int pages, const char *ops,
			     struct vrec *vr)
{
	struct mm_exec_opts o;
	long failed_op = -1;
	char text[1024];

	ck_assert_ptr_nonnull(ex);
	mm_exec_opts_default(&o);
	o.variant = mm_variant_lookup("isolate-merge-across");
	ck_assert_int_ge(o.variant, 0);
	snprintf(text, sizeof(text),
		 "config nodes=1 cpus=2 max_order=10 pageblock_order=9 min_free_kbytes=0 "
		 "watermark_scale_factor=10 high_fraction=0\n"
		 "zone 0 Normal start=0 spanned=%u present=%u managed=%u\n%s",
		 pages, pages, pages, ops);
	exec_text(ex, text, &o, vr, &failed_op);
	return failed_op;
}

/*
 * d9dddbf55667's merge (the isolate-merge-across variant): offlining the
 * first pageblock of a free order-10 block leaves its other half MOVABLE,
 * and the variant merges the two again. INV-ISOLATE-LEAK counts only the
 * range's part of an ISOLATE-listed block, so the range's free pages are
 * all listed and the report is the merge's own, INV-ISOLATE-MERGE: a leak
 * check counting the whole block would report a leak of the half outside
 * the range first, and name the wrong bug.
 */
START_TEST(test_merge_across_not_reported_as_leak)
{
	struct mm_exec *ex = mm_exec_create();
	struct vrec vr;

	run_merge_across(ex, 1024, "cpu0 offline_pages node=0 zone=Normal start=0 pages=512\n",
			 &vr);
	ck_assert_msg(vr.n > 0 && !strcmp(vr.id[0], "INV-ISOLATE-MERGE"),
		      "first report %s, want INV-ISOLATE-MERGE", vr.n ? vr.first : "-");
	ck_assert_msg(!vrec_has(&vr, "INV-ISOLATE-LEAK"), "the merge reported as a leak");
	/* the failed offline's undo, checked by the op itself */
	ck_assert_msg(vrec_has(&vr, "INV-ISOLATE-UNDO"), "the undo's NR_FREE_PAGES unchecked");
	mm_exec_destroy(ex);
}
END_TEST

/*
 * online_pages() under the same variant: block 1 of a 1024-page zone goes
 * offline while block 0 is allocated, then block 0 is freed. Onlining
 * block 1 frees it into the buddy as an isolated block, which the variant
 * merges with free block 0 (listed by its head's type, MOVABLE) while its
 * pages stay uncounted: the online op's own undo check is the first to
 * report, NR_FREE_PAGES 512 where the checker counts 1024.
 */
START_TEST(test_online_undo_checked_by_the_op)
{
	struct mm_exec *ex = mm_exec_create();
	struct vrec vr;

	ck_assert_int_eq(
		run_merge_across(ex, 1024,
				 "cpu0 alloc a0 order=9\n"
				 "cpu0 offline_pages node=0 zone=Normal start=512 pages=512\n"
				 "cpu0 free a0\n"
				 "cpu0 online_pages node=0 zone=Normal start=512 pages=512\n",
				 &vr),
		3);
	ck_assert_msg(vr.n > 0 && !strcmp(vr.id[0], "INV-ISOLATE-UNDO"),
		      "first report %s, want INV-ISOLATE-UNDO", vr.n ? vr.first : "-");
	mm_exec_destroy(ex);
}
END_TEST

/*
 * A range op whose isolation stops partway undoes what it isolated, and
 * checks that undo itself. Under the same variant: a 2048-page zone, an
 * unmovable page at pfn 1024 (stolen while [0, 1024) was taken), then
 * [512, 1536) offlined or allocated contiguously. Pageblock 1 isolates
 * (the variant merges it back with free pageblock 0), pageblock 2 refuses,
 * and the undo of [512, 1024) leaves NR_FREE_PAGES 512 short: both ops
 * report INV-ISOLATE-UNDO first, from the undo.
 */
static const char *const partial_ops[] = {"offline_pages", "alloc_contig_range"};

START_TEST(test_partial_isolation_undo_checked_by_the_op)
{
	struct mm_exec *ex = mm_exec_create();
	struct vrec vr;
	char ops[512];

	snprintf(ops, sizeof(ops),
		 "cpu0 pcp_disable node=0 zone=Normal\n"
		 "cpu0 alloc a0 order=10 gfp=MOVABLE|DIRECT_RECLAIM|KSWAPD_RECLAIM\n"
		 "cpu0 alloc a1 order=0 gfp=KERNEL\n"
		 "cpu0 free a0\n"
		 "cpu0 %s node=0 zone=Normal start=512 pages=1024\n",
		 partial_ops[_i]);
	ck_assert_int_eq(run_merge_across(ex, 2048, ops, &vr), 4);
	ck_assert_msg(vr.n > 0 && !strcmp(vr.id[0], "INV-ISOLATE-UNDO"),
		      "%s: first report %s, want INV-ISOLATE-UNDO", partial_ops[_i],
		      vr.n ? vr.first : "-");
	mm_exec_destroy(ex);
}
END_TEST

/* 32 pages in pageblocks of 4, pcp lists off, every page allocated but pfn 5 */
static struct mm_sim *sim_free_pfn5(void)
{
	struct mm_config cfg;
	struct mm_sim *sim;
	uint32_t gen[32];
	int at5 = -1;

	cfg_tiny(&cfg, 1, 3, 2);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 32, 32);
	sim = sim_new_buddy_only(&cfg);
	sim->serial = true;
	mm_set_current_cpu(0);
	for (uint32_t i = 0; i < 32; i++) {
		long long pfn =
			mm_alloc_pages(sim, 0, MM_GFP_KERNEL | MM_GFP_MOVABLE, 0, i, &gen[i]);
		ck_assert_int_ge(pfn, 0);
		if (pfn == 5)
			at5 = (int)i;
	}
	ck_assert_int_ge(at5, 0);
	mm_free_pages(sim, 5, 0, (uint32_t)at5, gen[at5]);
	return sim;
}

/* Pageblock 1 (pfns 4-7) isolated with its free pages, as start_isolate_page_range() leaves it. */
static void isolate_pageblock1(struct zone *z)
{
	zone_lock(z);
	set_pageblock_migratetype(z->sim, 4, MIGRATE_ISOLATE);
	__move_freepages_block(z, 4, MIGRATE_MOVABLE, MIGRATE_ISOLATE);
	zone_unlock(z);
}

/*
 * INV-ISOLATE-UNDO on the two states a broken undo leaves, built by hand
 * (32 pages, pageblocks of 4, every page allocated but pfn 5): pageblock
 * 1 still isolated with its free page on a MOVABLE list; then the block
 * back to MOVABLE with its one free page left on an ISOLATE list. Each is
 * reported as the undo's own failure, whatever else the lists say.
 */
START_TEST(test_undo_leftovers_reported)
{
	struct mm_sim *sim = sim_free_pfn5();
	struct zone *z = &sim->node_data[0]->node_zones[ZONE_NORMAL];
	struct vrec vr;

	/* still isolated, its page where the undo would have put it */
	set_pageblock_migratetype(sim, 4, MIGRATE_ISOLATE);
	sim_record(sim, &vr);
	_mm_check_undone_range(z, 4, 8, z->vm_stat_exact[NR_FREE_PAGES]);
	ck_assert_msg(vrec_has(&vr, "INV-ISOLATE-UNDO"), "isolated pageblock: %u reports", vr.n);

	/* isolated with its page, then only the pageblock's type undone */
	set_pageblock_migratetype(sim, 4, MIGRATE_MOVABLE);
	isolate_pageblock1(z);
	set_pageblock_migratetype(sim, 4, MIGRATE_MOVABLE);
	ck_assert_uint_eq(z->free_area[0].nr_free, 1);
	ck_assert_uint_eq(z->free_area[0].head[MIGRATE_ISOLATE], 5);
	sim_record(sim, &vr);
	_mm_check_undone_range(z, 4, 8, z->vm_stat_exact[NR_FREE_PAGES]);
	ck_assert_msg(vrec_has(&vr, "INV-ISOLATE-UNDO"), "a page on the ISOLATE list: %u reports",
		      vr.n);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * The cheap per-op count walks the ISOLATE lists, bounded by nr_free
 * against a cycle. An order whose only free block is isolated, with its
 * nr_free dropped and the block left listed: the walk must still count
 * the listed block (nr_free + 1 steps), or the two errors cancel and
 * INV-BUDDY-NRFREE stays quiet until a full scan.
 */
START_TEST(test_count_sees_listed_isolated_block)
{
	struct mm_sim *sim = sim_free_pfn5();
	struct zone *z = &sim->node_data[0]->node_zones[ZONE_NORMAL];
	struct vrec vr;

	isolate_pageblock1(z);
	ck_assert_uint_eq(z->free_area[0].nr_free, 1);
	ck_assert_uint_eq(z->free_area[0].head[MIGRATE_ISOLATE], 5);
	sim_record(sim, &vr);
	ck_assert_uint_eq(_mm_buddy_check_counts(z), 0);
	z->free_area[0].nr_free = 0;
	ck_assert_uint_ne(_mm_buddy_check_counts(z), 0);
	ck_assert(vrec_has(&vr, "INV-BUDDY-NRFREE"));
	z->free_area[0].nr_free = 1;
	mm_sim_destroy(sim);
}
END_TEST

/*
 * test_pages_isolated() over pages written by hand: the range passes only
 * if its walk, head by head, meets free buddy blocks in isolated
 * pageblocks that end inside it. Under threads a page freed to a pcp list
 * meanwhile fails it; a serial run's range always passes, so the failing
 * rows exist only here.
 */
#define BUD(o)                                                                                     \
	{                                                                                          \
		PG_BUDDY, o                                                                        \
	}
#define TAIL                                                                                       \
	{                                                                                          \
		PG_FREE_TAIL, 0                                                                    \
	}
#define ALLOC                                                                                      \
	{                                                                                          \
		PG_ALLOC, 0                                                                        \
	}
#define PCP                                                                                        \
	{                                                                                          \
		PG_PCP, 0                                                                          \
	}

START_TEST(test_pages_isolated_rule)
{
	static const struct {
		struct {
			uint8_t state, order;
		} pages[8];
		bool isolated;
		uint64_t end;
		int want;
	} rows[] = {
		{{BUD(2), TAIL, TAIL, TAIL, BUD(1), TAIL, BUD(0), BUD(0)}, true, 8, 0},
		{{BUD(3), TAIL, TAIL, TAIL, TAIL, TAIL, TAIL, TAIL}, true, 8, 0},
		/* the page after a block of 4: a walk that steps 8 misses it */
		{{BUD(2), TAIL, TAIL, TAIL, ALLOC, BUD(0), BUD(1), TAIL}, true, 8, -EBUSY},
		{{BUD(1), TAIL, PCP, BUD(0), BUD(2), TAIL, TAIL, TAIL}, true, 8, -EBUSY},
		{{BUD(0), BUD(0), BUD(1), TAIL, BUD(2), TAIL, TAIL, PCP}, true, 8, 0},
		{{BUD(2), TAIL, TAIL, TAIL, BUD(2), TAIL, TAIL, TAIL}, false, 8, -EBUSY},
		{{BUD(2), TAIL, TAIL, TAIL, BUD(2), TAIL, TAIL, TAIL}, true, 6, -EBUSY},
		{{BUD(2), TAIL, TAIL, TAIL, BUD(2), TAIL, TAIL, TAIL}, true, 4, 0},
	};
	struct run r;
	struct mm_sim *sim = run_text(&r, MACHINE);
	struct zone *zone = &sim->node_data[0]->node_zones[ZONE_NORMAL];

	ck_assert_msg(r.violations == 0, "%s", r.vr.first);
	for (uint64_t pfn = 0; pfn < 8; pfn++) {
		sim->mem_map[pfn].state = rows[_i].pages[pfn].state;
		sim->mem_map[pfn].order = rows[_i].pages[pfn].order;
	}
	set_pageblock_migratetype(sim, 0, rows[_i].isolated ? MIGRATE_ISOLATE : MIGRATE_MOVABLE);
	ck_assert_int_eq(test_pages_isolated(zone, 0, rows[_i].end), rows[_i].want);
	mm_exec_destroy(r.ex);
}
END_TEST

/* A misaligned or out-of-zone range is a parse error. */
START_TEST(test_range_text_refused)
{
	struct mm_prog p;
	char err[200] = "";

	mm_prog_init(&p);
	ck_assert_int_ne(mm_parse_prog(MACHINE "cpu0 offline_pages node=0 zone=Normal start=100 "
					       "pages=512\n",
				       &p, err, sizeof(err)),
			 0);
	ck_assert_ptr_nonnull(strstr(err, "whole pageblocks"));
	mm_prog_free(&p);
	mm_prog_init(&p);
	ck_assert_int_ne(mm_parse_prog(MACHINE "cpu0 offline_pages node=0 zone=Normal start=1536 "
					       "pages=1024\n",
				       &p, err, sizeof(err)),
			 0);
	ck_assert_ptr_nonnull(strstr(err, "inside the zone"));
	mm_prog_free(&p);
}
END_TEST

static Suite *isolation_suite(void)
{
	Suite *s = suite_create("isolation");
	TCase *tc = tcase_create("ops");

	tcase_add_test(tc, test_offline_online_free_block);
	tcase_add_loop_test(tc, test_pages_isolated_rule, 0, 8);
	tcase_add_test(tc, test_online_frees_the_block_whole);
	tcase_add_test(tc, test_offline_migrates_movable);
	tcase_add_test(tc, test_offline_migrates_block_at_range_end);
	tcase_add_test(tc, test_offline_target_ignores_the_lowmem_reserve);
	tcase_add_test(tc, test_offline_unmovable_fails_and_undoes);
	tcase_add_test(tc, test_offline_reserved_page_fails_first);
	tcase_add_test(tc, test_contig_uninit_page_fails_first);
	tcase_add_test(tc, test_contig_range);
	tcase_add_test(tc, test_free_contig_range_spares_others);
	tcase_add_test(tc, test_merge_across_judged_after_undo);
	tcase_add_test(tc, test_merge_across_not_reported_as_leak);
	tcase_add_test(tc, test_online_undo_checked_by_the_op);
	tcase_add_loop_test(tc, test_partial_isolation_undo_checked_by_the_op, 0,
			    (int)ARRAY_SIZE(partial_ops));
	tcase_add_test(tc, test_undo_leftovers_reported);
	tcase_add_test(tc, test_count_sees_listed_isolated_block);
	tcase_add_test(tc, test_range_skips);
	tcase_add_loop_test(tc, test_online_wants_reserved_and_isolated, 0, 2);
	tcase_add_loop_test(tc, test_other_isolated_block_not_counted, 0, 2);
	tcase_add_loop_test(tc, test_range_refused_unless_whole_blocks_in_zone, 0,
			    (int)ARRAY_SIZE(bad_ranges));
	tcase_add_test(tc, test_range_slot);
	tcase_add_test(tc, test_range_round_trip);
	tcase_add_test(tc, test_range_text_refused);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(isolation_suite());
}
