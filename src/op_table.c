/* SPDX-License-Identifier: MIT */
/*
 * op_table.c - the op language as a table: one row per op kind with its
 * trace name and fields, its binary slot and packing, where a stress run
 * may run it, and its entry point. The binary form (ops.c), the text form
 * (op_line.c) and mm_apply_op() (exec.c) follow the rows; adding an op is
 * a row here, its entry point in its subsystem's file, and its test.
 *
 * The binary packing stays bespoke per slot: the fuzzers' catch times and
 * seeds depend on every byte decoding as it always has. A slot's decoder
 * reads the CPU byte first (CHECK has none), then the fields:
 *
 *   opcode (mod 64)  0-25 alloc  26-47 free  48-50 offline  51-53 online
 *   54-56 sysctl  57-59 drain  60-61 deferred_init  62 pcp  63 prefix
 *   sub (mod 16)     0 check  1-7 counters (seeds 003, 004)
 *   8-11 vmstat and kswapd (seed 002; 11 stat_refresh)  12-15 compaction (seed 001)
 *
 * The range ops (offline_pages, online_pages, alloc_contig_range,
 * free_contig_range) took vmstat_refresh's unused node bits after sub 10:
 * kswapd's byte 3 | w << 2 read as vmstat_refresh for every w, and the
 * encoder writes w = 0. It still does; w 1..63 now names a range op and
 * reads two more bytes, so only inputs with such a byte decode differently.
 *
 * Every opcode and sub byte has an owner now. A new slot would change how
 * some existing inputs decode: take a value a slot decodes twice (how 3 of
 * vmstat_read reads as estimate), or a second prefix, and say so.
 */
#include "internal.h"

#include <stddef.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

_Static_assert(sizeof(struct mm_op) <= 16, "an op is at most 16 bytes: programs hold thousands");

/* The opcode ranges */
#define OPC_ALLOC    0
#define OPC_FREE     26
#define OPC_OFFLINE  48
#define OPC_ONLINE   51
#define OPC_SYSCTL   54
#define OPC_DRAIN    57
#define OPC_DEFERRED 60
#define OPC_PCP	     62

/* The sub bytes after OPC_CHECK */
#define SUB_CHECK	  0
#define SUB_PCPU_ADD	  1
#define SUB_PCPU_CMP	  2
#define SUB_PCPU_SET	  3
#define SUB_MMAP	  4
#define SUB_FORK	  5
#define SUB_EXIT	  6
#define SUB_OVERCOMMIT	  7
#define SUB_VMSTAT_FOLD	  8
#define SUB_VMSTAT_READ	  9
#define SUB_KSWAPD	  10
#define SUB_STAT_REFRESH  11
#define SUB_COMPACT	  12
#define SUB_KCOMPACTD	  13
#define SUB_FILL	  14
#define SUB_ALLOC_COMPACT 15

#define rd8  _mm_rd8
#define rd16 _mm_rd16
#define wr8  _mm_wr8
#define wr16 _mm_wr16

static unsigned int rd_cpu(struct mm_decoder *d)
{
	return rd8(d) % d->ncpus;
}

/* The prefix and sub byte of a sub op, then its CPU byte */
static void wr_sub(struct mm_encoder *e, unsigned int sub, const struct mm_op *op)
{
	wr8(e, OPC_CHECK);
	wr8(e, sub);
	wr8(e, op->cpu);
}

static bool fits_s16(int32_t v)
{
	return v >= INT16_MIN && v <= INT16_MAX;
}

/* ------------------------------------------------------------------------
 * The buddy family: allocations, frees, hotplug, the watermark sysctls
 * ---------------------------------------------------------------------- */

/* A gfp mask the kernel would accept: drop the bits a bad combination adds. */
static unsigned int gfp_normalize(unsigned int gfp)
{
	gfp &= MM_GFP_ALL;
	if (gfp & MM_GFP_DMA)
		gfp &= ~MM_GFP_DMA32;
	if (gfp & (MM_GFP_DMA | MM_GFP_DMA32))
		gfp &= ~MM_GFP_HIGHMEM;
	if (gfp & MM_GFP_MOVABLE)
		gfp &= ~MM_GFP_RECLAIMABLE;
	return gfp;
}

/* An alloc's fields (the CPU byte first); after SUB_ALLOC_COMPACT it may direct-compact. */
static int decode_alloc(struct mm_decoder *d, struct mm_op *op)
{
	const struct mm_config *cfg = &d->prog->cfg;
	unsigned int node;

	op->kind = MM_OP_ALLOC;
	op->cpu = (uint16_t)rd_cpu(d);
	op->alloc.order = (uint8_t)(rd8(d) % (cfg->max_order + 1));
	op->alloc.gfp = (uint16_t)(gfp_normalize(rd16(d)) |
				   (d->sub == SUB_ALLOC_COMPACT ? MM_GFP_COMPACT : 0));
	node = rd8(d);
	op->alloc.node = (int8_t)(node ? (int)((node - 1) % cfg->nr_nodes) : -1);
	return _mm_live_add(d->prog, d->prog->nr_allocs);
}

static int encode_alloc(struct mm_encoder *e, const struct mm_op *op)
{
	if (op->alloc.gfp & MM_GFP_COMPACT) {
		wr_sub(e, SUB_ALLOC_COMPACT, op);
	} else {
		wr8(e, OPC_ALLOC);
		wr8(e, op->cpu);
	}
	wr8(e, op->alloc.order);
	wr16(e, op->alloc.gfp & ~MM_GFP_COMPACT);
	wr8(e, op->alloc.node < 0 ? 0u : (unsigned int)op->alloc.node + 1);
	return _mm_live_add(&e->live, e->next_alloc++) ? -3 : 0;
}

/* A free names a live allocation by its position from the newest: nothing live, no op. */
static int decode_free(struct mm_decoder *d, struct mm_op *op)
{
	unsigned int pick;

	op->kind = MM_OP_FREE;
	op->cpu = (uint16_t)rd_cpu(d);
	pick = rd16(d);
	if (!d->prog->nr_live)
		return 1;
	op->free.handle = _mm_live_take(d->prog, pick);
	return 0;
}

static int encode_free(struct mm_encoder *e, const struct mm_op *op)
{
	struct mm_prog *live = &e->live;
	unsigned int idx = 0;

	while (idx < live->nr_live && live->live[idx] != op->free.handle)
		idx++;
	if (idx == live->nr_live || live->nr_live > 65536)
		return -1;
	wr8(e, OPC_FREE);
	wr8(e, op->cpu);
	wr16(e, live->nr_live - 1 - idx);
	_mm_live_take(live, live->nr_live - 1 - idx);
	return 0;
}

static int decode_cpu_offline(struct mm_decoder *d, struct mm_op *op)
{
	op->kind = MM_OP_CPU_OFFLINE;
	op->cpu = (uint16_t)rd_cpu(d);
	return 0;
}

static int decode_cpu_online(struct mm_decoder *d, struct mm_op *op)
{
	op->kind = MM_OP_CPU_ONLINE;
	op->cpu = (uint16_t)rd_cpu(d);
	return 0;
}

static int encode_hotplug(struct mm_encoder *e, const struct mm_op *op)
{
	wr8(e, op->kind == MM_OP_CPU_OFFLINE ? OPC_OFFLINE : OPC_ONLINE);
	wr8(e, op->cpu);
	return 0;
}

/*
 * which (mod 3), then a u16: min_free_kbytes as is, wsf 1 + v % 3000, the
 * fraction v % 64. Fractions 1..7 were refused values decoded as 0: they
 * now name watermark_boost_factor, (v >> 6) * 15 (0, 15, ... 15345; the
 * default 15000 at v >> 6 = 1000), so only such inputs decode differently.
 */
static const uint8_t sysctl_kinds[3] = {MM_OP_SET_MIN_FREE_KBYTES, MM_OP_SET_WSF,
					MM_OP_SET_HIGH_FRACTION};
#define BOOST_FACTOR_STEP 15

static int decode_sysctl(struct mm_decoder *d, struct mm_op *op)
{
	unsigned int which, v;

	op->cpu = (uint16_t)rd_cpu(d);
	which = rd8(d) % 3;
	v = rd16(d);
	op->kind = sysctl_kinds[which];
	op->sysctl.value = which == 0 ? v : which == 1 ? 1 + v % 3000 : (v % 64 < 8 ? 0 : v % 64);
	if (which == 2 && v % 64 >= 1 && v % 64 < 8) {
		op->kind = MM_OP_SET_BOOST_FACTOR;
		op->sysctl.value = (v >> 6) * BOOST_FACTOR_STEP;
	}
	return 0;
}

static int encode_sysctl(struct mm_encoder *e, const struct mm_op *op)
{
	unsigned int which = 0, v = op->sysctl.value;

	if (op->kind == MM_OP_SET_BOOST_FACTOR) {
		if (v % BOOST_FACTOR_STEP)
			return -1;
		wr8(e, OPC_SYSCTL);
		wr8(e, op->cpu);
		wr8(e, 2);
		wr16(e, (v / BOOST_FACTOR_STEP) << 6 | 1);
		return 0;
	}
	while (sysctl_kinds[which] != op->kind)
		which++;
	if (which == 1)
		v--;
	if (v > 0xffff || (which == 2 && v >= 64))
		return -1;
	wr8(e, OPC_SYSCTL);
	wr8(e, op->cpu);
	wr8(e, which);
	wr16(e, v);
	return 0;
}

static int decode_check(struct mm_decoder *d, struct mm_op *op)
{
	(void)d;
	op->kind = MM_OP_CHECK;
	return 0;
}

static int encode_check(struct mm_encoder *e, const struct mm_op *op)
{
	(void)op;
	wr8(e, OPC_CHECK);
	wr8(e, SUB_CHECK);
	return 0;
}

/* ------------------------------------------------------------------------
 * The pcp family: drains, deferred init, a zone's pcp lists
 * ---------------------------------------------------------------------- */

/* v: bit 0 all */
static int decode_drain(struct mm_decoder *d, struct mm_op *op)
{
	op->cpu = (uint16_t)rd_cpu(d);
	op->kind = rd8(d) & 1 ? MM_OP_DRAIN_ALL : MM_OP_DRAIN_LOCAL;
	return 0;
}

static int encode_drain(struct mm_encoder *e, const struct mm_op *op)
{
	wr8(e, OPC_DRAIN);
	wr8(e, op->cpu);
	wr8(e, op->kind == MM_OP_DRAIN_ALL);
	return 0;
}

/* v: bit 0 complete, node = v >> 1; a step: pageblocks - 1 (mod 16) */
static int decode_deferred(struct mm_decoder *d, struct mm_op *op)
{
	unsigned int v;

	op->cpu = (uint16_t)rd_cpu(d);
	v = rd8(d);
	op->kind = v & 1 ? MM_OP_DEFERRED_COMPLETE : MM_OP_DEFERRED_STEP;
	if (op->kind == MM_OP_DEFERRED_STEP) {
		op->pcp.node = (int16_t)((v >> 1) % d->prog->cfg.nr_nodes);
		op->pcp.pageblocks = (uint8_t)(1 + rd8(d) % 16);
	}
	return 0;
}

static int encode_deferred(struct mm_encoder *e, const struct mm_op *op)
{
	bool step = op->kind == MM_OP_DEFERRED_STEP;

	if (step && (op->pcp.pageblocks < 1 || op->pcp.pageblocks > 16 || op->pcp.node < 0 ||
		     op->pcp.node > 127))
		return -1;
	wr8(e, OPC_DEFERRED);
	wr8(e, op->cpu);
	wr8(e, step ? (unsigned int)op->pcp.node << 1 : 1);
	if (step)
		wr8(e, op->pcp.pageblocks - 1u);
	return 0;
}

/* v: bit 0 enable, node (bits 1-3), zone (v >> 4, mod 4) */
static int decode_pcp(struct mm_decoder *d, struct mm_op *op)
{
	unsigned int v;

	op->cpu = (uint16_t)rd_cpu(d);
	v = rd8(d);
	op->kind = v & 1 ? MM_OP_PCP_ENABLE : MM_OP_PCP_DISABLE;
	op->pcp.node = (int16_t)(((v >> 1) & 7) % d->prog->cfg.nr_nodes);
	op->pcp.zone = (uint8_t)((v >> 4) % (MAX_NR_ZONES - 1));
	return 0;
}

static int encode_pcp(struct mm_encoder *e, const struct mm_op *op)
{
	if (op->pcp.zone >= MAX_NR_ZONES - 1 || op->pcp.node < 0 || op->pcp.node > 7)
		return -1;
	wr8(e, OPC_PCP);
	wr8(e, op->cpu);
	wr8(e, (op->kind == MM_OP_PCP_ENABLE) | (unsigned int)op->pcp.node << 1 |
		       (unsigned int)op->pcp.zone << 4);
	return 0;
}

/* ------------------------------------------------------------------------
 * The counter family (seeds 003, 004)
 * ---------------------------------------------------------------------- */

/* counter (mod 16), value (s16), batch */
static int decode_pcpu_add_cmp(struct mm_decoder *d, struct mm_op *op)
{
	op->kind = d->sub == SUB_PCPU_ADD ? MM_OP_PCPU_ADD : MM_OP_PCPU_COMPARE;
	op->cpu = (uint16_t)rd_cpu(d);
	op->counter.counter = (uint8_t)(rd8(d) % MM_MAX_PCPU_COUNTERS);
	op->counter.value = (int16_t)rd16(d);
	op->counter.batch = (uint8_t)rd8(d);
	return 0;
}

static int encode_pcpu_add_cmp(struct mm_encoder *e, const struct mm_op *op)
{
	if (op->counter.counter >= MM_MAX_PCPU_COUNTERS || !fits_s16(op->counter.value))
		return -1;
	wr_sub(e, op->kind == MM_OP_PCPU_ADD ? SUB_PCPU_ADD : SUB_PCPU_CMP, op);
	wr8(e, op->counter.counter);
	wr16(e, (uint32_t)op->counter.value & 0xffff);
	wr8(e, op->counter.batch);
	return 0;
}

/* v: bit 0 sync, counter = v >> 1; set: value (s16) */
static int decode_pcpu_set(struct mm_decoder *d, struct mm_op *op)
{
	unsigned int v;

	op->cpu = (uint16_t)rd_cpu(d);
	v = rd8(d);
	op->counter.counter = (uint8_t)((v >> 1) % MM_MAX_PCPU_COUNTERS);
	op->kind = v & 1 ? MM_OP_PCPU_SYNC : MM_OP_PCPU_SET;
	if (op->kind == MM_OP_PCPU_SET)
		op->counter.value = (int16_t)rd16(d);
	return 0;
}

static int encode_pcpu_set(struct mm_encoder *e, const struct mm_op *op)
{
	bool sync = op->kind == MM_OP_PCPU_SYNC;

	if (op->counter.counter >= MM_MAX_PCPU_COUNTERS ||
	    (sync ? op->counter.value != 0 : !fits_s16(op->counter.value)))
		return -1;
	wr_sub(e, SUB_PCPU_SET, op);
	wr8(e, (unsigned int)op->counter.counter << 1 | sync);
	if (!sync)
		wr16(e, (uint32_t)op->counter.value & 0xffff);
	return 0;
}

/* v: bit 0 munmap, bit 1 brk, bit 2 admin, bits 3-4 type; mm (mod 8), pages (u16) */
static int decode_mmap(struct mm_decoder *d, struct mm_op *op)
{
	unsigned int v;

	op->cpu = (uint16_t)rd_cpu(d);
	v = rd8(d);
	op->kind = v & 1 ? MM_OP_MUNMAP : v & 2 ? MM_OP_BRK : MM_OP_MMAP;
	if (op->kind != MM_OP_BRK) /* a brk is anonymous: its row has no type */
		op->mm.type = (uint8_t)((v >> 3) & 3);
	op->mm.admin = op->kind != MM_OP_MUNMAP && (v & 4);
	op->mm.mm = (uint8_t)(rd8(d) % MM_MAX_MMS);
	op->mm.pages = (uint16_t)rd16(d);
	return 0;
}

static int encode_mmap(struct mm_encoder *e, const struct mm_op *op)
{
	bool unmap = op->kind == MM_OP_MUNMAP, brk = op->kind == MM_OP_BRK;
	unsigned int type = brk ? MM_ANONPAGES : op->mm.type;

	if (op->mm.mm >= MM_MAX_MMS || type >= NR_MM_COUNTERS || op->mm.admin > 1 ||
	    (unmap && op->mm.admin))
		return -1;
	wr_sub(e, SUB_MMAP, op);
	wr8(e, unmap | brk << 1 | (unsigned int)op->mm.admin << 2 | type << 3);
	wr8(e, op->mm.mm);
	wr16(e, op->mm.pages);
	return 0;
}

/* child (mod 8), v: parent (v % 9, 8: none) + 9 * fail (v / 9 % 7) */
static int decode_fork(struct mm_decoder *d, struct mm_op *op)
{
	unsigned int v;

	op->kind = MM_OP_FORK;
	op->cpu = (uint16_t)rd_cpu(d);
	op->mm.mm = (uint8_t)(rd8(d) % MM_MAX_MMS);
	v = rd8(d);
	op->mm.parent = (uint8_t)(v % 9 == 8 ? 0 : v % 9 + 1);
	op->mm.fail = (uint8_t)(v / 9 % (MM_FORK_FAIL_MAX + 1));
	return 0;
}

static int encode_fork(struct mm_encoder *e, const struct mm_op *op)
{
	if (op->mm.mm >= MM_MAX_MMS || op->mm.parent > MM_MAX_MMS || op->mm.fail > MM_FORK_FAIL_MAX)
		return -1;
	wr_sub(e, SUB_FORK, op);
	wr8(e, op->mm.mm);
	wr8(e, (op->mm.parent ? op->mm.parent - 1u : 8u) + 9u * op->mm.fail);
	return 0;
}

static int decode_exit(struct mm_decoder *d, struct mm_op *op)
{
	op->kind = MM_OP_EXIT;
	op->cpu = (uint16_t)rd_cpu(d);
	op->mm.mm = (uint8_t)(rd8(d) % MM_MAX_MMS);
	return 0;
}

static int encode_exit(struct mm_encoder *e, const struct mm_op *op)
{
	if (op->mm.mm >= MM_MAX_MMS)
		return -1;
	wr_sub(e, SUB_EXIT, op);
	wr8(e, op->mm.mm);
	return 0;
}

static int decode_overcommit(struct mm_decoder *d, struct mm_op *op)
{
	op->kind = MM_OP_SET_OVERCOMMIT;
	op->cpu = (uint16_t)rd_cpu(d);
	op->sysctl.value = rd8(d) % 3;
	return 0;
}

static int encode_overcommit(struct mm_encoder *e, const struct mm_op *op)
{
	if (op->sysctl.value > MM_OVERCOMMIT_NEVER)
		return -1;
	wr_sub(e, SUB_OVERCOMMIT, op);
	wr8(e, op->sysctl.value);
	return 0;
}

/* ------------------------------------------------------------------------
 * The vmstat family (seed 002)
 * ---------------------------------------------------------------------- */

/* The ops that are their CPU byte alone: the row that owns the sub byte */
static int decode_cpu_only(struct mm_decoder *d, struct mm_op *op)
{
	op->kind = (uint8_t)d->sub_kind;
	op->cpu = (uint16_t)rd_cpu(d);
	return 0;
}

static int encode_cpu_only(struct mm_encoder *e, const struct mm_op *op)
{
	wr_sub(e, mm_op_descs[op->kind].sub, op);
	return 0;
}

/* v: how (v & 3, 3: estimate), node (v >> 2 & 7), zone (v >> 5, mod 4) */
static int decode_vmstat_read(struct mm_decoder *d, struct mm_op *op)
{
	unsigned int v;

	op->kind = MM_OP_VMSTAT_READ;
	op->cpu = (uint16_t)rd_cpu(d);
	v = rd8(d);
	op->vmstat.how = (uint8_t)((v & 3) % (MM_VMSTAT_READ_MAX + 1));
	op->vmstat.node = (int16_t)(((v >> 2) & 7) % d->prog->cfg.nr_nodes);
	op->vmstat.zone = (uint8_t)((v >> 5) % (MAX_NR_ZONES - 1));
	return 0;
}

static int encode_vmstat_read(struct mm_encoder *e, const struct mm_op *op)
{
	if (op->vmstat.how > MM_VMSTAT_READ_MAX || op->vmstat.node < 0 || op->vmstat.node > 7 ||
	    op->vmstat.zone >= MAX_NR_ZONES - 1)
		return -1;
	wr_sub(e, SUB_VMSTAT_READ, op);
	wr8(e, op->vmstat.how | (unsigned int)op->vmstat.node << 2 |
		       (unsigned int)op->vmstat.zone << 5);
	return 0;
}

/* v: 0 wake, 1 step, 2 sleep, 3 vmstat_refresh (v & 3), node (v >> 2); wake: order, zone */
static const uint8_t kswapd_kinds[4] = {MM_OP_KSWAPD_WAKE, MM_OP_KSWAPD_STEP, MM_OP_KSWAPD_SLEEP,
					MM_OP_VMSTAT_REFRESH};

static int decode_range(struct mm_decoder *d, struct mm_op *op, unsigned int w);

static int decode_kswapd(struct mm_decoder *d, struct mm_op *op)
{
	unsigned int v, w;

	op->cpu = (uint16_t)rd_cpu(d);
	v = rd8(d);
	if ((v & 3) == 3 && v >> 2)
		return decode_range(d, op, v >> 2);
	op->kind = kswapd_kinds[v & 3];
	if (op->kind != MM_OP_VMSTAT_REFRESH)
		op->vmstat.node = (int16_t)((v >> 2) % d->prog->cfg.nr_nodes);
	if (op->kind == MM_OP_KSWAPD_WAKE) {
		w = rd8(d);
		op->vmstat.order = (uint8_t)((w & 15) % (d->prog->cfg.max_order + 1));
		op->vmstat.zone = (uint8_t)((w >> 4) % (MAX_NR_ZONES - 1));
	}
	return 0;
}

static int encode_kswapd(struct mm_encoder *e, const struct mm_op *op)
{
	unsigned int k = 0;
	bool wake = op->kind == MM_OP_KSWAPD_WAKE;

	while (kswapd_kinds[k] != op->kind)
		k++;
	if (op->vmstat.node < 0 || op->vmstat.node > 63 ||
	    (op->kind == MM_OP_VMSTAT_REFRESH && op->vmstat.node) ||
	    (wake && (op->vmstat.order > 15 || op->vmstat.zone >= MAX_NR_ZONES - 1)))
		return -1;
	wr_sub(e, SUB_KSWAPD, op);
	wr8(e, k | (unsigned int)op->vmstat.node << 2);
	if (wake)
		wr8(e, op->vmstat.order | (unsigned int)op->vmstat.zone << 4);
	return 0;
}

/*
 * A zone's whole pageblocks, as the header's zones place them:
 * [*first, *first + *nr) in pageblocks; false if it has none.
 */
static bool zone_blocks(const struct mm_config *cfg, unsigned int node, unsigned int zt,
			uint64_t *first, uint64_t *nr)
{
	const struct mm_zone_config *zc = &cfg->zones[node][zt];
	uint64_t pb = UINT64_C(1) << cfg->pageblock_order;
	uint64_t lo = (zc->start_pfn + pb - 1) / pb, hi = (zc->start_pfn + zc->spanned) / pb;

	if (!zc->spanned || hi <= lo)
		return false;
	*first = lo;
	*nr = hi - lo;
	return true;
}

static const uint8_t range_kinds[4] = {MM_OP_OFFLINE_PAGES, MM_OP_ONLINE_PAGES, MM_OP_ALLOC_CONTIG,
				       MM_OP_FREE_CONTIG};

/*
 * After kswapd's byte 3 | w << 2, w 1..63: x = w - 1, the kind x & 3
 * (range_kinds), node x >> 2; then b: zone (b & 3, the header's zones), pageblocks - 1 (b >> 2
 * & 3); a u16: the first pageblock (mod those that fit). Nothing when the
 * zone has too few pageblocks.
 */
static int decode_range(struct mm_decoder *d, struct mm_op *op, unsigned int w)
{
	const struct mm_config *cfg = &d->prog->cfg;
	unsigned int x = w - 1, b = rd8(d), idx = rd16(d);
	uint64_t first, nr, blocks = 1 + ((b >> 2) & 3);

	op->kind = range_kinds[x & 3];
	op->range.node = (int16_t)((x >> 2) % cfg->nr_nodes);
	op->range.zone = (uint8_t)_mm_hdr_zones[b & 3];
	if (!zone_blocks(cfg, (unsigned int)op->range.node, op->range.zone, &first, &nr) ||
	    nr < blocks)
		return 1;
	op->range.start = (uint32_t)((first + idx % (nr - blocks + 1)) << cfg->pageblock_order);
	op->range.pages = (uint16_t)(blocks << cfg->pageblock_order);
	return 0;
}

static int hdr_zone_index(unsigned int zt);

static int encode_range(struct mm_encoder *e, const struct mm_op *op)
{
	const struct mm_config *cfg = e->cfg;
	unsigned int pbo = cfg->pageblock_order, x = 0;
	int zi = hdr_zone_index(op->range.zone);
	uint64_t first, nr, blocks = (uint64_t)op->range.pages >> pbo,
			    start = op->range.start >> pbo;

	while (range_kinds[x] != op->kind)
		x++;
	if (op->range.node < 0 || op->range.node > 14 || zi < 0 ||
	    (unsigned int)op->range.node >= cfg->nr_nodes || blocks < 1 || blocks > 4 ||
	    ((op->range.start | op->range.pages) & ((1u << pbo) - 1)) ||
	    !zone_blocks(cfg, (unsigned int)op->range.node, op->range.zone, &first, &nr) ||
	    start < first || start + blocks > first + nr)
		return -1;
	x |= (unsigned int)op->range.node << 2;
	wr_sub(e, SUB_KSWAPD, op);
	wr8(e, 3 | (x + 1) << 2);
	wr8(e, (unsigned int)zi | (unsigned int)(blocks - 1) << 2);
	wr16(e, (unsigned int)(start - first));
	return 0;
}

/* ------------------------------------------------------------------------
 * The compaction family (seed 001)
 * ---------------------------------------------------------------------- */

/* v: node (bit 0), zone (bits 1-2), prio (bits 3-4, mod 3), mode (bits 5-6, mod 3), movable (bit
 * 7); order */
static int decode_compact(struct mm_decoder *d, struct mm_op *op)
{
	const struct mm_config *cfg = &d->prog->cfg;
	unsigned int v;

	op->kind = MM_OP_COMPACT;
	op->cpu = (uint16_t)rd_cpu(d);
	v = rd8(d);
	op->compact.node = (int16_t)((v & 1) % cfg->nr_nodes);
	op->compact.zone = (uint8_t)_mm_hdr_zones[(v >> 1) & 3];
	op->compact.prio = (uint8_t)(((v >> 3) & 3) % MM_COMPACT_NR_PRIOS);
	op->compact.mode = (uint8_t)(((v >> 5) & 3) % MM_MIGRATE_NR_MODES);
	op->compact.mt = v >> 7 ? MIGRATE_MOVABLE : MIGRATE_UNMOVABLE;
	op->compact.order = (uint8_t)(rd8(d) % (cfg->max_order + 1));
	return 0;
}

/* A zone type's index among the header's zones; -1 for one the header cannot name. */
static int hdr_zone_index(unsigned int zt)
{
	for (int i = 0; i < 4; i++)
		if (_mm_hdr_zones[i] == zt)
			return i;
	return -1;
}

static int encode_compact(struct mm_encoder *e, const struct mm_op *op)
{
	int zi = hdr_zone_index(op->compact.zone);
	unsigned int mt = op->compact.mt;

	if (op->compact.node < 0 || op->compact.node > 1 || zi < 0 ||
	    op->compact.prio >= MM_COMPACT_NR_PRIOS || op->compact.mode >= MM_MIGRATE_NR_MODES ||
	    (mt != MIGRATE_MOVABLE && mt != MIGRATE_UNMOVABLE))
		return -1;
	wr_sub(e, SUB_COMPACT, op);
	wr8(e, (unsigned int)op->compact.node | (unsigned int)zi << 1 |
		       (unsigned int)op->compact.prio << 3 | (unsigned int)op->compact.mode << 5 |
		       (mt == MIGRATE_MOVABLE) << 7);
	wr8(e, op->compact.order);
	return 0;
}

/* v: bit 0 reset_skip, node = v >> 1; kcompactd: order */
static int decode_kcompactd(struct mm_decoder *d, struct mm_op *op)
{
	unsigned int v;

	op->cpu = (uint16_t)rd_cpu(d);
	v = rd8(d);
	op->kind = v & 1 ? MM_OP_RESET_SKIP : MM_OP_KCOMPACTD;
	op->compact.node = (int16_t)((v >> 1) % d->prog->cfg.nr_nodes);
	if (op->kind == MM_OP_KCOMPACTD)
		op->compact.order = (uint8_t)(rd8(d) % (d->prog->cfg.max_order + 1));
	return 0;
}

static int encode_kcompactd(struct mm_encoder *e, const struct mm_op *op)
{
	if (op->compact.node < 0 || op->compact.node > 127)
		return -1;
	wr_sub(e, SUB_KCOMPACTD, op);
	wr8(e, (op->kind == MM_OP_RESET_SKIP) | (unsigned int)op->compact.node << 1);
	if (op->kind == MM_OP_KCOMPACTD)
		wr8(e, op->compact.order);
	return 0;
}

/*
 * v: bit 0 free_pattern. fill: zone (bits 1-2), node + 1 (bits 3-4, 0: the
 * CPU's), order (bits 5-6); pages - 1; unmovable_every | busy_every << 4.
 * free_pattern: every - 1 | offset << 4 (offset mod every).
 */
static int decode_fill(struct mm_decoder *d, struct mm_op *op)
{
	unsigned int v, b, node;

	op->cpu = (uint16_t)rd_cpu(d);
	v = rd8(d);
	if (v & 1) {
		b = rd8(d);
		op->kind = MM_OP_FREE_PATTERN;
		op->pattern.every = (uint8_t)(1 + (b & 15));
		op->pattern.offset = (uint8_t)((b >> 4) % op->pattern.every);
		return 0;
	}
	op->kind = MM_OP_FILL;
	node = (v >> 3) & 3;
	op->fill.node = (int16_t)(node ? (int)((node - 1) % d->prog->cfg.nr_nodes) : -1);
	op->fill.order = (uint8_t)((v >> 5) & 3);
	op->fill.zone = (uint8_t)((v >> 1) & 3);
	op->fill.pages = (uint16_t)(1 + rd8(d));
	b = rd8(d);
	op->fill.unmovable_every = (uint8_t)(b & 15);
	op->fill.busy_every = (uint8_t)(b >> 4);
	return 0;
}

static int encode_fill(struct mm_encoder *e, const struct mm_op *op)
{
	int zi = hdr_zone_index(op->fill.zone);

	if (zi < 0 || op->fill.node < -1 || op->fill.node > 2 || op->fill.order > 3 ||
	    op->fill.pages < 1 || op->fill.pages > 256 || op->fill.unmovable_every > 15 ||
	    op->fill.busy_every > 15)
		return -1;
	wr_sub(e, SUB_FILL, op);
	wr8(e, (unsigned int)zi << 1 | (unsigned int)(op->fill.node + 1) << 3 |
		       (unsigned int)op->fill.order << 5);
	wr8(e, op->fill.pages - 1u);
	wr8(e, op->fill.unmovable_every | (unsigned int)op->fill.busy_every << 4);
	return 0;
}

static int encode_free_pattern(struct mm_encoder *e, const struct mm_op *op)
{
	if (op->pattern.every < 1 || op->pattern.every > 16 ||
	    op->pattern.offset >= op->pattern.every)
		return -1;
	wr_sub(e, SUB_FILL, op);
	wr8(e, 1);
	wr8(e, (op->pattern.every - 1u) | (unsigned int)op->pattern.offset << 4);
	return 0;
}

/* ------------------------------------------------------------------------
 * The fields
 * ---------------------------------------------------------------------- */

/* One field a line: the formatter would spread each over four. */
/* clang-format off */
#define AT(m) .off = offsetof(struct mm_op, m), .size = sizeof(((struct mm_op *)0)->m)
#define NUM(k, m, lo, hi) {.key = k, AT(m), .type = MM_FIELD_NUM, .min = lo, .max = hi}
#define NODE(m)		  {.key = "node", AT(m), .type = MM_FIELD_NODE, .is_signed = true}
#define ZONE(m)		  {.key = "zone", AT(m), .type = MM_FIELD_ZONE}
#define ORDER(m, hi)	  {.key = "order", AT(m), .type = MM_FIELD_ORDER, .max = hi}
#define ENUM(k, m, n)	  {.key = k, AT(m), .type = MM_FIELD_ENUM, .names = n, \
			   .nr_names = ARRAY_SIZE(n)}
#define COUNTER		  {.key = "counter", AT(counter.counter), .type = MM_FIELD_INDEX, \
			   .bare = true, .prefix = 'c', .max = MM_MAX_PCPU_COUNTERS - 1}
#define BATCH		  {.key = "batch", AT(counter.batch), .type = MM_FIELD_NUM, .min = 1, \
			   .max = 255, .optional = true, .hide_dflt = true}
#define MM		  {.key = "mm", AT(mm.mm), .type = MM_FIELD_INDEX, .bare = true, \
			   .prefix = 'm', .max = MM_MAX_MMS - 1}
#define PAGES		  NUM("pages", mm.pages, 0, 0xffff)
#define ADMIN		  {.key = "admin", AT(mm.admin), .type = MM_FIELD_FLAG, .bare = true, \
			   .max = 1, .optional = true, .hide_dflt = true}
#define S16(k, m)	  {.key = k, AT(m), .type = MM_FIELD_NUM, .is_signed = true, \
			   .min = INT16_MIN, .max = INT16_MAX}
#define NODE_OR_CPUS(m)	  {.key = "node", AT(m), .type = MM_FIELD_NODE, .is_signed = true, \
			   .optional = true, .hide_dflt = true, .dflt = -1}
#define FIELDS(a)	  .fields = a, .nr_fields = ARRAY_SIZE(a)
/* clang-format on */

static const char *const rss_names[NR_MM_COUNTERS] = {"file", "anon", "swap", "shmem"};
static const char *const fail_names[MM_FORK_FAIL_MAX + 1] = {
	"none", "alloc1", "alloc2", "alloc3", "alloc4", "alloc5", "dup_mmap"};
static const char *const how_names[MM_VMSTAT_READ_MAX + 1] = {"estimate", "snapshot", "safe"};
static const char *const prio_names[MM_COMPACT_NR_PRIOS] = {"sync_full", "sync_light", "async"};
static const char *const mode_names[MM_MIGRATE_NR_MODES] = {"async", "sync_light", "sync"};
static const char *const mt_names[2] = {"unmovable", "movable"}; /* MIGRATE_UNMOVABLE, _MOVABLE */

static const struct mm_op_field f_alloc[] = {
	{.key = "handle", .type = MM_FIELD_HANDLE, .bare = true, .prefix = 'a'},
	ORDER(alloc.order, MM_MAX_PAGE_ORDER),
	{.key = "gfp", AT(alloc.gfp), .type = MM_FIELD_GFP, .optional = true},
	NODE_OR_CPUS(alloc.node), /* absent: the CPU's node */
};
static const struct mm_op_field f_free[] = {
	{.key = "handle", AT(free.handle), .type = MM_FIELD_HANDLE, .bare = true, .prefix = 'a'},
};
static const struct mm_op_field f_min_free_kbytes[] = {
	NUM("min_free_kbytes", sysctl.value, 0, 0xffff),
};
static const struct mm_op_field f_wsf[] = {
	NUM("watermark_scale_factor", sysctl.value, 1, 3000),
};
static const struct mm_op_field f_boost_factor[] = {
	NUM("watermark_boost_factor", sysctl.value, 0, 1023 * BOOST_FACTOR_STEP),
};
static const struct mm_op_field f_high_fraction[] = {
	NUM("percpu_pagelist_high_fraction", sysctl.value, 0, UINT32_MAX),
};
static const struct mm_op_field f_overcommit[] = {
	NUM("overcommit_memory", sysctl.value, 0, MM_OVERCOMMIT_NEVER),
};
static const struct mm_op_field f_deferred[] = {
	NODE(pcp.node),
	NUM("pageblocks", pcp.pageblocks, 1, 16),
};
static const struct mm_op_field f_pcp[] = {NODE(pcp.node), ZONE(pcp.zone)};
static const struct mm_op_field f_pcpu_add[] = {COUNTER, S16("amount", counter.value), BATCH};
static const struct mm_op_field f_pcpu_compare[] = {COUNTER, S16("rhs", counter.value), BATCH};
static const struct mm_op_field f_pcpu_set[] = {COUNTER, S16("value", counter.value)};
static const struct mm_op_field f_pcpu_sync[] = {COUNTER};
static const struct mm_op_field f_mmap[] = {MM, PAGES, ENUM("type", mm.type, rss_names), ADMIN};
static const struct mm_op_field f_brk[] = {MM, PAGES, ADMIN};
static const struct mm_op_field f_munmap[] = {MM, PAGES, ENUM("type", mm.type, rss_names)};
static const struct mm_op_field f_fork[] = {
	MM,
	{.key = "parent",
	 AT(mm.parent),
	 .type = MM_FIELD_INDEX,
	 .prefix = 'm',
	 .max = MM_MAX_MMS - 1,
	 .optional = true,
	 .hide_dflt = true,
	 .bias = 1},
	{.key = "fail",
	 AT(mm.fail),
	 .type = MM_FIELD_ENUM,
	 .names = fail_names,
	 .nr_names = ARRAY_SIZE(fail_names),
	 .optional = true,
	 .hide_dflt = true},
};
static const struct mm_op_field f_mm_only[] = {MM};
static const struct mm_op_field f_vmstat_read[] = {NODE(vmstat.node), ZONE(vmstat.zone),
						   ENUM("how", vmstat.how, how_names)};
static const struct mm_op_field f_kswapd_wake[] = {NODE(vmstat.node), ZONE(vmstat.zone),
						   ORDER(vmstat.order, MM_MAX_PAGE_ORDER)};
static const struct mm_op_field f_vmstat_node[] = {NODE(vmstat.node)};
static const struct mm_op_field f_compact[] = {
	NODE(compact.node),
	ZONE(compact.zone),
	ORDER(compact.order, MM_MAX_PAGE_ORDER),
	ENUM("prio", compact.prio, prio_names),
	ENUM("mode", compact.mode, mode_names),
	ENUM("mt", compact.mt, mt_names),
};
static const struct mm_op_field f_kcompactd[] = {NODE(compact.node),
						 ORDER(compact.order, MM_MAX_PAGE_ORDER)};
static const struct mm_op_field f_compact_node[] = {NODE(compact.node)};
static const struct mm_op_field f_fill[] = {
	NODE_OR_CPUS(fill.node),
	ZONE(fill.zone),
	ORDER(fill.order, 3),
	NUM("pages", fill.pages, 1, 256),
	NUM("unmovable_every", fill.unmovable_every, 0, 15),
	NUM("busy_every", fill.busy_every, 0, 15),
};
static const struct mm_op_field f_free_pattern[] = {
	NUM("every", pattern.every, 1, 16),
	NUM("offset", pattern.offset, 0, 15),
};

static const struct mm_op_field f_range[] = {
	NODE(range.node),
	ZONE(range.zone),
	NUM("start", range.start, 0, UINT32_MAX),
	NUM("pages", range.pages, 1, 0xffff),
};

static const char *validate_range(const struct mm_op *op, const struct mm_config *cfg)
{
	uint64_t pb = UINT64_C(1) << cfg->pageblock_order, first, nr;

	if ((op->range.start | op->range.pages) & (pb - 1))
		return "start and pages must be whole pageblocks";
	if (!zone_blocks(cfg, (unsigned int)op->range.node, op->range.zone, &first, &nr) ||
	    op->range.start / pb < first ||
	    ((uint64_t)op->range.start + op->range.pages) / pb > first + nr)
		return "the range must lie inside the zone";
	return NULL;
}

static const char *validate_high_fraction(const struct mm_op *op, const struct mm_config *cfg)
{
	(void)cfg;
	return op->sysctl.value && op->sysctl.value < 8
		       ? "percpu_pagelist_high_fraction must be 0 or at least 8"
		       : NULL;
}

static const char *validate_boost_factor(const struct mm_op *op, const struct mm_config *cfg)
{
	(void)cfg;
	return op->sysctl.value % BOOST_FACTOR_STEP
		       ? "watermark_boost_factor must be a multiple of 15 (the binary form's step)"
		       : NULL;
}

static const char *validate_free_pattern(const struct mm_op *op, const struct mm_config *cfg)
{
	(void)cfg;
	return op->pattern.offset >= op->pattern.every ? "offset must be 0..every-1" : NULL;
}

/* ------------------------------------------------------------------------
 * The rows
 * ---------------------------------------------------------------------- */

#define OPCS(lo, hi) .opc_lo = lo, .opc_hi = hi, .sub = MM_OP_NO_SUB
#define SUB(s)	     .opc_lo = OPC_CHECK, .opc_hi = OPC_CHECK, .sub = s

const struct mm_op_desc mm_op_descs[MM_NR_OP_KINDS] = {
	[MM_OP_ALLOC] = {"alloc", NULL, NULL, MM_FAMILY_BUDDY, MM_STRESS_WORKER,
			 .opc_lo = OPC_ALLOC, .opc_hi = OPC_FREE - 1, .sub = SUB_ALLOC_COMPACT,
			 FIELDS(f_alloc), .decode = decode_alloc, .encode = encode_alloc,
			 .apply = _mm_op_alloc},
	[MM_OP_FREE] = {"free", NULL, NULL, MM_FAMILY_BUDDY, MM_STRESS_WORKER,
			OPCS(OPC_FREE, OPC_OFFLINE - 1), FIELDS(f_free), .decode = decode_free,
			.encode = encode_free, .apply = _mm_op_free},
	[MM_OP_CPU_OFFLINE] = {"offline", NULL, NULL, MM_FAMILY_BUDDY, MM_STRESS_SERVICE,
			       OPCS(OPC_OFFLINE, OPC_ONLINE - 1), .decode = decode_cpu_offline,
			       .encode = encode_hotplug, .apply = _mm_op_cpu_offline},
	[MM_OP_CPU_ONLINE] = {"online", NULL, NULL, MM_FAMILY_BUDDY, MM_STRESS_SERVICE,
			      .offline_ok = true, OPCS(OPC_ONLINE, OPC_SYSCTL - 1),
			      .decode = decode_cpu_online, .encode = encode_hotplug,
			      .apply = _mm_op_cpu_online},
	[MM_OP_SET_MIN_FREE_KBYTES] = {"min_free_kbytes", "sysctl", NULL, MM_FAMILY_BUDDY,
				       MM_STRESS_SERVICE, OPCS(OPC_SYSCTL, OPC_DRAIN - 1),
				       FIELDS(f_min_free_kbytes), .decode = decode_sysctl,
				       .encode = encode_sysctl,
				       .apply = _mm_op_set_min_free_kbytes},
	[MM_OP_SET_WSF] = {"watermark_scale_factor", "sysctl", NULL, MM_FAMILY_BUDDY,
			   MM_STRESS_SERVICE, OPCS(OPC_SYSCTL, OPC_DRAIN - 1), FIELDS(f_wsf),
			   .decode = decode_sysctl, .encode = encode_sysctl,
			   .apply = _mm_op_set_wsf},
	[MM_OP_CHECK] = {"check", NULL, NULL, MM_FAMILY_BUDDY, MM_STRESS_QUIESCE, .no_cpu = true,
			 SUB(SUB_CHECK), .decode = decode_check, .encode = encode_check,
			 .apply = _mm_op_check},
	[MM_OP_DRAIN_LOCAL] = {"drain", NULL, NULL, MM_FAMILY_PCP, MM_STRESS_WORKER,
			       OPCS(OPC_DRAIN, OPC_DEFERRED - 1), .decode = decode_drain,
			       .encode = encode_drain, .apply = _mm_op_drain_local},
	[MM_OP_DRAIN_ALL] = {"drain_all", "drain", "all", MM_FAMILY_PCP, MM_STRESS_WORKER,
			     OPCS(OPC_DRAIN, OPC_DEFERRED - 1), .decode = decode_drain,
			     .encode = encode_drain, .apply = _mm_op_drain_all},
	[MM_OP_DEFERRED_STEP] = {"deferred_init", NULL, NULL, MM_FAMILY_PCP, MM_STRESS_SERVICE,
				 OPCS(OPC_DEFERRED, OPC_PCP - 1), FIELDS(f_deferred),
				 .decode = decode_deferred, .encode = encode_deferred,
				 .apply = _mm_op_deferred_step},
	[MM_OP_DEFERRED_COMPLETE] = {"deferred_init_complete", "deferred_init", "complete",
				     MM_FAMILY_PCP, MM_STRESS_SERVICE,
				     OPCS(OPC_DEFERRED, OPC_PCP - 1), .decode = decode_deferred,
				     .encode = encode_deferred, .apply = _mm_op_deferred_complete},
	[MM_OP_PCP_DISABLE] = {"pcp_disable", NULL, NULL, MM_FAMILY_PCP, MM_STRESS_SERVICE,
			       OPCS(OPC_PCP, OPC_PCP), FIELDS(f_pcp), .decode = decode_pcp,
			       .encode = encode_pcp, .apply = _mm_op_pcp_disable},
	[MM_OP_PCP_ENABLE] = {"pcp_enable", NULL, NULL, MM_FAMILY_PCP, MM_STRESS_SERVICE,
			      OPCS(OPC_PCP, OPC_PCP), FIELDS(f_pcp), .decode = decode_pcp,
			      .encode = encode_pcp, .apply = _mm_op_pcp_enable},
	[MM_OP_SET_HIGH_FRACTION] = {"percpu_pagelist_high_fraction", "sysctl", NULL, MM_FAMILY_PCP,
				     MM_STRESS_SERVICE, OPCS(OPC_SYSCTL, OPC_DRAIN - 1),
				     FIELDS(f_high_fraction), .validate = validate_high_fraction,
				     .decode = decode_sysctl, .encode = encode_sysctl,
				     .apply = _mm_op_set_high_fraction},
	[MM_OP_PCPU_ADD] = {"pcpu_add", NULL, NULL, MM_FAMILY_COUNTERS, MM_STRESS_WORKER,
			    SUB(SUB_PCPU_ADD), FIELDS(f_pcpu_add), .decode = decode_pcpu_add_cmp,
			    .encode = encode_pcpu_add_cmp, .apply = _mm_op_pcpu_add},
	[MM_OP_PCPU_COMPARE] = {"pcpu_compare", NULL, NULL, MM_FAMILY_COUNTERS, MM_STRESS_WORKER,
				SUB(SUB_PCPU_CMP), FIELDS(f_pcpu_compare),
				.decode = decode_pcpu_add_cmp, .encode = encode_pcpu_add_cmp,
				.apply = _mm_op_pcpu_compare},
	[MM_OP_PCPU_SET] = {"pcpu_set", NULL, NULL, MM_FAMILY_COUNTERS, MM_STRESS_QUIESCE,
			    SUB(SUB_PCPU_SET), FIELDS(f_pcpu_set), .decode = decode_pcpu_set,
			    .encode = encode_pcpu_set, .apply = _mm_op_pcpu_set},
	[MM_OP_PCPU_SYNC] = {"pcpu_sync", NULL, NULL, MM_FAMILY_COUNTERS, MM_STRESS_WORKER,
			     SUB(SUB_PCPU_SET), FIELDS(f_pcpu_sync), .decode = decode_pcpu_set,
			     .encode = encode_pcpu_set, .apply = _mm_op_pcpu_sync},
	[MM_OP_MMAP] = {"mmap", NULL, NULL, MM_FAMILY_COUNTERS, MM_STRESS_WORKER, SUB(SUB_MMAP),
			FIELDS(f_mmap), .decode = decode_mmap, .encode = encode_mmap,
			.apply = _mm_op_mmap},
	[MM_OP_BRK] = {"brk", NULL, NULL, MM_FAMILY_COUNTERS, MM_STRESS_WORKER, SUB(SUB_MMAP),
		       FIELDS(f_brk), .decode = decode_mmap, .encode = encode_mmap,
		       .apply = _mm_op_brk},
	[MM_OP_MUNMAP] = {"munmap", NULL, NULL, MM_FAMILY_COUNTERS, MM_STRESS_WORKER, SUB(SUB_MMAP),
			  FIELDS(f_munmap), .decode = decode_mmap, .encode = encode_mmap,
			  .apply = _mm_op_munmap},
	[MM_OP_FORK] = {"fork", NULL, NULL, MM_FAMILY_COUNTERS, MM_STRESS_WORKER, SUB(SUB_FORK),
			FIELDS(f_fork), .decode = decode_fork, .encode = encode_fork,
			.apply = _mm_op_fork},
	[MM_OP_EXIT] = {"exit", NULL, NULL, MM_FAMILY_COUNTERS, MM_STRESS_WORKER, SUB(SUB_EXIT),
			FIELDS(f_mm_only), .decode = decode_exit, .encode = encode_exit,
			.apply = _mm_op_exit},
	[MM_OP_SET_OVERCOMMIT] = {"overcommit_memory", "sysctl", NULL, MM_FAMILY_COUNTERS,
				  MM_STRESS_SERVICE, SUB(SUB_OVERCOMMIT), FIELDS(f_overcommit),
				  .decode = decode_overcommit, .encode = encode_overcommit,
				  .apply = _mm_op_set_overcommit},
	[MM_OP_VMSTAT_FOLD] = {"vmstat_fold", NULL, NULL, MM_FAMILY_VMSTAT, MM_STRESS_WORKER,
			       SUB(SUB_VMSTAT_FOLD), .decode = decode_cpu_only,
			       .encode = encode_cpu_only, .apply = _mm_op_vmstat_fold},
	[MM_OP_VMSTAT_READ] = {"vmstat_read", NULL, NULL, MM_FAMILY_VMSTAT, MM_STRESS_WORKER,
			       SUB(SUB_VMSTAT_READ), FIELDS(f_vmstat_read),
			       .decode = decode_vmstat_read, .encode = encode_vmstat_read,
			       .apply = _mm_op_vmstat_read},
	[MM_OP_VMSTAT_REFRESH] = {"vmstat_refresh", NULL, NULL, MM_FAMILY_VMSTAT, MM_STRESS_SERVICE,
				  SUB(SUB_KSWAPD), .decode = decode_kswapd, .encode = encode_kswapd,
				  .apply = _mm_op_vmstat_refresh},
	[MM_OP_KSWAPD_WAKE] = {"kswapd_wake", NULL, NULL, MM_FAMILY_VMSTAT, MM_STRESS_SERVICE,
			       SUB(SUB_KSWAPD), FIELDS(f_kswapd_wake), .decode = decode_kswapd,
			       .encode = encode_kswapd, .apply = _mm_op_kswapd_wake},
	[MM_OP_KSWAPD_STEP] = {"kswapd_step", NULL, NULL, MM_FAMILY_VMSTAT, MM_STRESS_SERVICE,
			       SUB(SUB_KSWAPD), FIELDS(f_vmstat_node), .decode = decode_kswapd,
			       .encode = encode_kswapd, .apply = _mm_op_kswapd_step},
	[MM_OP_KSWAPD_SLEEP] = {"kswapd_sleep", NULL, NULL, MM_FAMILY_VMSTAT, MM_STRESS_SERVICE,
				SUB(SUB_KSWAPD), FIELDS(f_vmstat_node), .decode = decode_kswapd,
				.encode = encode_kswapd, .apply = _mm_op_kswapd_sleep},
	[MM_OP_STAT_REFRESH] = {"stat_refresh", NULL, NULL, MM_FAMILY_VMSTAT, MM_STRESS_SERVICE,
				SUB(SUB_STAT_REFRESH), .decode = decode_cpu_only,
				.encode = encode_cpu_only, .apply = _mm_op_stat_refresh},
	[MM_OP_COMPACT] = {"compact", NULL, NULL, MM_FAMILY_COMPACTION, MM_STRESS_WORKER,
			   SUB(SUB_COMPACT), FIELDS(f_compact), .decode = decode_compact,
			   .encode = encode_compact, .apply = _mm_op_compact},
	[MM_OP_KCOMPACTD] = {"kcompactd", NULL, NULL, MM_FAMILY_COMPACTION, MM_STRESS_SERVICE,
			     SUB(SUB_KCOMPACTD), FIELDS(f_kcompactd), .decode = decode_kcompactd,
			     .encode = encode_kcompactd, .apply = _mm_op_kcompactd},
	[MM_OP_RESET_SKIP] = {"reset_skip", NULL, NULL, MM_FAMILY_COMPACTION, MM_STRESS_SERVICE,
			      SUB(SUB_KCOMPACTD), FIELDS(f_compact_node),
			      .decode = decode_kcompactd, .encode = encode_kcompactd,
			      .apply = _mm_op_reset_skip},
	[MM_OP_FILL] = {"fill", NULL, NULL, MM_FAMILY_COMPACTION, MM_STRESS_SERIAL, SUB(SUB_FILL),
			FIELDS(f_fill), .decode = decode_fill, .encode = encode_fill,
			.apply = _mm_op_fill},
	[MM_OP_FREE_PATTERN] = {"free_pattern", NULL, NULL, MM_FAMILY_COMPACTION, MM_STRESS_SERIAL,
				SUB(SUB_FILL), FIELDS(f_free_pattern),
				.validate = validate_free_pattern, .decode = decode_fill,
				.encode = encode_free_pattern, .apply = _mm_op_free_pattern},
	[MM_OP_OFFLINE_PAGES] = {"offline_pages", NULL, NULL, MM_FAMILY_BUDDY, MM_STRESS_SERIAL,
				 SUB(SUB_KSWAPD), FIELDS(f_range), .validate = validate_range,
				 .decode = decode_kswapd, .encode = encode_range,
				 .apply = _mm_op_range},
	[MM_OP_ONLINE_PAGES] = {"online_pages", NULL, NULL, MM_FAMILY_BUDDY, MM_STRESS_SERIAL,
				SUB(SUB_KSWAPD), FIELDS(f_range), .validate = validate_range,
				.decode = decode_kswapd, .encode = encode_range,
				.apply = _mm_op_range},
	[MM_OP_ALLOC_CONTIG] = {"alloc_contig_range", NULL, NULL, MM_FAMILY_BUDDY, MM_STRESS_SERIAL,
				SUB(SUB_KSWAPD), FIELDS(f_range), .validate = validate_range,
				.decode = decode_kswapd, .encode = encode_range,
				.apply = _mm_op_range},
	[MM_OP_FREE_CONTIG] = {"free_contig_range", NULL, NULL, MM_FAMILY_BUDDY, MM_STRESS_SERIAL,
			       SUB(SUB_KSWAPD), FIELDS(f_range), .validate = validate_range,
			       .decode = decode_kswapd, .encode = encode_range,
			       .apply = _mm_op_range},
	[MM_OP_SET_BOOST_FACTOR] = {"watermark_boost_factor", "sysctl", NULL, MM_FAMILY_BUDDY,
				    MM_STRESS_SERVICE, OPCS(OPC_SYSCTL, OPC_DRAIN - 1),
				    FIELDS(f_boost_factor), .validate = validate_boost_factor,
				    .decode = decode_sysctl, .encode = encode_sysctl,
				    .apply = _mm_op_set_boost_factor},
};

const char *mm_op_name(unsigned int kind)
{
	return kind < MM_NR_OP_KINDS ? mm_op_descs[kind].name : NULL;
}

bool mm_op_runs_on_worker(unsigned int kind)
{
	return kind < MM_NR_OP_KINDS && mm_op_descs[kind].stress == MM_STRESS_WORKER;
}
