/* SPDX-License-Identifier: MIT */
/*
 * ops.c - the binary form of the operation language: bytes -> program
 * (total: every byte string is a valid program) and program -> bytes.
 *
 * Layout: a 32-byte machine header, then ops, each an opcode byte and its
 * arguments. Bytes past the end read as zero, so a truncated input is a
 * shorter program, never an error. Free ops name a live allocation by its
 * position among the allocations not yet freed, so the decoder resolves
 * handles statically and the text form can name them ("a3").
 */
#include "internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define HDR_LEN 32

enum {
	HDR_NODES = 0,
	HDR_CPUS = 1, /* 8 bytes, one per node: see decode_cpus() */
	HDR_ORDERS = 9,
	HDR_ZONE_SIZE = 10, /* 4 x u16: DMA, DMA32, Normal, Movable */
	HDR_RESERVED = 18,  /* 4 x u8 */
	HDR_START_PFN = 22,
	HDR_MIN_FREE = 23, /* u16, 0: the kernel's default */
	HDR_WSF = 25,	   /* u16, 0: 10 */
	HDR_HIGH_FRACTION = 27,
	HDR_DEFERRED = 28, /* pageblocks of each node's top zone initialised at boot; 0: off */
};

/*
 * Opcode byte, mod 64: allocs and frees weighted up; a full check is rare
 * because the executor runs one at the end anyway.
 */
#define OPC_ALLOC    0
#define OPC_FREE     26
#define OPC_OFFLINE  48
#define OPC_ONLINE   51
#define OPC_SYSCTL   54
#define OPC_DRAIN    57
#define OPC_DEFERRED 60
#define OPC_PCP	     62
#define OPC_CHECK    63 /* a prefix: the next byte, mod 8, picks CHECK (0) or an op below */
#define OPC_MOD	     64

/*
 * After OPC_CHECK, the sub byte (mod 16); 1-7 are the counter ops (seeds 003, 004).
 * Each takes the CPU byte first, as every op does.
 *   1 pcpu_add      counter, amount (s16), batch (0: default)
 *   2 pcpu_compare  counter, rhs (s16), batch
 *   3 pcpu_set/sync v: bit 0 sync, counter = v >> 1; set: value (s16)
 *   4 mmap/munmap   v: bit 0 munmap, bit 1 brk, bit 2 admin, bits 3-4 type; mm, pages (u16)
 *   5 fork          child, v: parent (v % 9, 8: none) + 9 * fail (v / 9 % 7)
 *   6 exit          mm
 *   7 overcommit    policy (v % 3)
 */
#define SUB_CHECK      0
#define SUB_PCPU_ADD   1
#define SUB_PCPU_CMP   2
#define SUB_PCPU_SET   3
#define SUB_MMAP       4
#define SUB_FORK       5
#define SUB_EXIT       6
#define SUB_OVERCOMMIT 7
/*
 * 8-11: the vmstat and kswapd ops (seed 002); 12-15: the compaction ops
 * (seed 001). A sub byte no op owns decodes to nothing.
 *   8  vmstat_fold
 *   9  vmstat_read   v: how (v & 3, 3: estimate), node (v >> 2 & 7), zone (v >> 5)
 *   10 kswapd        v: 0 wake, 1 step, 2 sleep, 3 refresh (v & 3), node (v >> 2);
 *                    wake: w: order (w & 15), zone (w >> 4)
 */
#define SUB_VMSTAT_FIRST  8
#define SUB_VMSTAT_FOLD	  8
#define SUB_VMSTAT_READ	  9
#define SUB_KSWAPD	  10
#define SUB_COMPACT_FIRST 12
#define SUB_MOD		  16
/*
 * The compaction ops (seed 001), after the CPU byte:
 *  12 compact     v: node (bit 0), zone (bits 1-2, as the header's zones),
 *                 prio (bits 3-4, mod 3), mode (bits 5-6, mod 3), movable (bit 7); order
 *  13 kcompactd   v: bit 0 reset_skip, node = v >> 1; kcompactd: order
 *  14 fill        v: bit 0 free_pattern; fill: zone (bits 1-2), node + 1 (bits 3-4,
 *                 0: the CPU's), order (bits 5-6); pages - 1; unmovable_every |
 *                 busy_every << 4. free_pattern: every - 1 | offset << 4 (offset mod every)
 *  15 alloc       an alloc (as OPC_ALLOC) that may direct-compact (MM_GFP_COMPACT)
 */
#define SUB_COMPACT	  12
#define SUB_KCOMPACTD	  13
#define SUB_FILL	  14
#define SUB_ALLOC_COMPACT 15

void mm_limits_default(struct mm_limits *lim)
{
	lim->max_nodes = 2;
	lim->max_cpus_per_node = 4;
	lim->max_total_pages = 1024;
	lim->max_ops = 2048;
}

/*
 * Each fuzz target's machine shape, stated once: the targets decode with
 * it and mmfuzz replays their crash files with it. Small zones keep the
 * per-input reset cheap; the CPU counts are what each subsystem is about.
 */
static const struct {
	const char *name;
	unsigned int max_nodes, max_cpus_per_node;
	uint64_t max_total_pages;
} target_shapes[] = {
	{"fuzz_buddy", 2, 4, 1024},
	{"fuzz_pcp", 2, 8, 1024}, /* the lists are per (zone, cpu) */
	{"fuzz_counters", 2, 8, 1024},
	{"fuzz_vmstat", 2, 128, 1024}, /* 1 to 256 CPUs: the drift grows with them */
	/*
	 * 16 pageblocks of the seeds' 16 pages: the scanners cross a zone in a
	 * few hundred steps; two CPUs leave pcp pages in their way.
	 */
	{"fuzz_compaction", 1, 2, 256},
};

int mm_limits_for_target(const char *target, struct mm_limits *lim)
{
	mm_limits_default(lim);
	for (size_t i = 0; target && i < sizeof(target_shapes) / sizeof(target_shapes[0]); i++) {
		if (!strcmp(target, target_shapes[i].name)) {
			lim->max_nodes = target_shapes[i].max_nodes;
			lim->max_cpus_per_node = target_shapes[i].max_cpus_per_node;
			lim->max_total_pages = target_shapes[i].max_total_pages;
			return 0;
		}
	}
	return -1;
}

const char *mm_target_at(size_t i)
{
	return i < sizeof(target_shapes) / sizeof(target_shapes[0]) ? target_shapes[i].name : NULL;
}

void mm_prog_init(struct mm_prog *p)
{
	memset(p, 0, sizeof(*p));
}

void mm_prog_free(struct mm_prog *p)
{
	free(p->ops);
	free(p->live);
	memset(p, 0, sizeof(*p));
}

int mm_prog_push(struct mm_prog *p, const struct mm_op *op)
{
	if (p->nr_ops == p->cap_ops) {
		unsigned int cap = p->cap_ops ? p->cap_ops * 2 : 256;
		struct mm_op *ops = realloc(p->ops, cap * sizeof(*ops));
		if (!ops)
			return -1;
		p->ops = ops;
		p->cap_ops = cap;
	}
	p->ops[p->nr_ops++] = *op;
	if (op->kind == MM_OP_ALLOC)
		p->nr_allocs++;
	return 0;
}

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

/* ------------------------------------------------------------------------
 * Decoding
 * ---------------------------------------------------------------------- */

struct reader {
	const uint8_t *data;
	size_t len, pos;
};

static unsigned int rd8(struct reader *r)
{
	return r->pos < r->len ? r->data[r->pos++] : (r->pos++, 0u);
}

static unsigned int rd16(struct reader *r)
{
	unsigned int lo = rd8(r);
	return lo | (rd8(r) << 8);
}

static unsigned int hdr8(const uint8_t *d, size_t len, size_t i)
{
	return i < len ? d[i] : 0;
}

static unsigned int hdr16(const uint8_t *d, size_t len, size_t i)
{
	return hdr8(d, len, i) | (hdr8(d, len, i + 1) << 8);
}

static const enum zone_type hdr_zones[4] = {ZONE_DMA, ZONE_DMA32, ZONE_NORMAL, ZONE_MOVABLE};

/*
 * A node's CPU count: below 128 the byte picks among the first 16 (the
 * shapes most bugs show on, cheap to reset), from 128 among them all. A
 * target with at most 16 CPUs a node sees v % max either way.
 */
#define COMMON_CPUS_PER_NODE 16

static unsigned int decode_cpus(unsigned int v, unsigned int max)
{
	unsigned int common = max < COMMON_CPUS_PER_NODE ? max : COMMON_CPUS_PER_NODE;

	return v < 128 ? 1 + v % common : 1 + (v - 128) % max;
}

static unsigned int encode_cpus(unsigned int cpus)
{
	return cpus <= COMMON_CPUS_PER_NODE ? cpus - 1 : 128 + cpus - 1;
}

static void decode_config(const uint8_t *d, size_t len, const struct mm_limits *lim,
			  struct mm_config *cfg)
{
	uint64_t size[MM_MAX_NODES][4] = {{0}};
	uint64_t total = 0;

	memset(cfg, 0, sizeof(*cfg));
	cfg->nr_nodes = 1 + hdr8(d, len, HDR_NODES) % lim->max_nodes;
	for (unsigned int n = 0; n < cfg->nr_nodes; n++)
		cfg->cpus_per_node[n] =
			decode_cpus(hdr8(d, len, HDR_CPUS + n), lim->max_cpus_per_node);

	unsigned int ob = hdr8(d, len, HDR_ORDERS);
	cfg->max_order = MM_MAX_PAGE_ORDER - (ob & 7);
	if (cfg->max_order < 3)
		cfg->max_order = 3;
	cfg->pageblock_order = cfg->max_order - ((ob >> 3) & 1 ? 0 : 1);

	/* One size per zone type; DMA and DMA32 exist on node 0 only, as on x86-64. */
	uint64_t raw[4];
	for (int i = 0; i < 4; i++)
		raw[i] = hdr16(d, len, HDR_ZONE_SIZE + 2 * (size_t)i);
	if (!raw[0] && !raw[1] && !raw[2] && !raw[3])
		raw[2] = UINT64_C(1) << cfg->max_order;
	for (unsigned int n = 0; n < cfg->nr_nodes; n++) {
		for (int i = n ? 2 : 0; i < 4; i++) {
			size[n][i] = raw[i];
			total += raw[i];
		}
	}
	if (total > lim->max_total_pages)
		for (unsigned int n = 0; n < cfg->nr_nodes; n++)
			for (int i = 0; i < 4; i++)
				size[n][i] = size[n][i] * lim->max_total_pages / total;

	/* Reserved pages per zone type; a machine with none managed gets them back. */
	uint64_t reserved[4], managed = 0;
	for (int i = 0; i < 4; i++)
		reserved[i] = hdr8(d, len, HDR_RESERVED + (size_t)i);
	for (unsigned int n = 0; n < cfg->nr_nodes; n++)
		for (int i = 0; i < 4; i++)
			managed += size[n][i] > reserved[i] ? size[n][i] - reserved[i] : 0;
	for (int i = 0; !managed && i < 4; i++) {
		if (size[0][i] || (cfg->nr_nodes > 1 && size[1][i])) {
			reserved[i] = 0;
			managed = 1;
		}
	}

	uint64_t pfn = hdr8(d, len, HDR_START_PFN);
	for (unsigned int n = 0; n < cfg->nr_nodes; n++) {
		for (int i = 0; i < 4; i++) {
			struct mm_zone_config *zc = &cfg->zones[n][hdr_zones[i]];
			if (!size[n][i])
				continue;
			zc->start_pfn = pfn;
			zc->spanned = zc->present = size[n][i];
			zc->managed = size[n][i] > reserved[i] ? size[n][i] - reserved[i] : 0;
			pfn += size[n][i];
		}
	}

	cfg->min_free_kbytes = hdr16(d, len, HDR_MIN_FREE);
	unsigned int wsf = hdr16(d, len, HDR_WSF);
	cfg->watermark_scale_factor = wsf ? 1 + (wsf - 1) % 3000 : 10;
	cfg->deferred_init_pages = (uint64_t)hdr8(d, len, HDR_DEFERRED) << cfg->pageblock_order;
	unsigned int hf = hdr8(d, len, HDR_HIGH_FRACTION);
	cfg->percpu_pagelist_high_fraction = hf < 8 ? 0 : hf;
}

/* The allocations a decoded program has not freed yet, in p->live. */
static int live_add(struct mm_prog *p, uint32_t handle)
{
	if (p->nr_live == p->cap_live) {
		unsigned int cap = p->cap_live ? p->cap_live * 2 : 64;
		uint32_t *h = realloc(p->live, cap * sizeof(*h));
		if (!h)
			return -1;
		p->live = h;
		p->cap_live = cap;
	}
	p->live[p->nr_live++] = handle;
	return 0;
}

/* Picks the handle at pick's position counted from the newest; removes it. */
static uint32_t live_take(struct mm_prog *p, unsigned int pick)
{
	unsigned int idx = p->nr_live - 1 - pick % p->nr_live;
	uint32_t h = p->live[idx];

	p->live[idx] = p->live[--p->nr_live];
	return h;
}

static const uint8_t kswapd_kinds[4] = {MM_OP_KSWAPD_WAKE, MM_OP_KSWAPD_STEP, MM_OP_KSWAPD_SLEEP,
					MM_OP_VMSTAT_REFRESH};

/* The vmstat and kswapd ops (sub 8-11); returns 1 when the op decodes to nothing. */
static int decode_vmstat_op(struct reader *r, unsigned int sub, unsigned int ncpus,
			    const struct mm_config *cfg, struct mm_op *op)
{
	unsigned int v, w;

	op->cpu = (uint16_t)(rd8(r) % ncpus);
	switch (sub) {
	case SUB_VMSTAT_FOLD:
		op->kind = MM_OP_VMSTAT_FOLD;
		return 0;
	case SUB_VMSTAT_READ:
		v = rd8(r);
		op->kind = MM_OP_VMSTAT_READ;
		op->order = (uint8_t)((v & 3) % (MM_VMSTAT_READ_MAX + 1));
		op->node = (int16_t)(((v >> 2) & 7) % cfg->nr_nodes);
		op->arg = (v >> 5) % (MAX_NR_ZONES - 1);
		return 0;
	case SUB_KSWAPD:
		v = rd8(r);
		op->kind = kswapd_kinds[v & 3];
		if (op->kind != MM_OP_VMSTAT_REFRESH)
			op->node = (int16_t)((v >> 2) % cfg->nr_nodes);
		if (op->kind == MM_OP_KSWAPD_WAKE) {
			w = rd8(r);
			op->order = (uint8_t)((w & 15) % (cfg->max_order + 1));
			op->arg = (w >> 4) % (MAX_NR_ZONES - 1);
		}
		return 0;
	default:
		return 1;
	}
}

/* An alloc op's fields (the CPU byte first); extra_gfp: MM_GFP_COMPACT or 0. */
static int decode_alloc(struct reader *r, struct mm_prog *out, struct mm_op *op,
			unsigned int extra_gfp)
{
	unsigned int ncpus = mm_config_nr_cpus(&out->cfg), node;

	op->kind = MM_OP_ALLOC;
	op->cpu = (uint16_t)(rd8(r) % ncpus);
	op->order = (uint8_t)(rd8(r) % (out->cfg.max_order + 1));
	op->gfp = (uint16_t)(gfp_normalize(rd16(r)) | extra_gfp);
	node = rd8(r);
	op->node = (int16_t)(node ? (int)((node - 1) % out->cfg.nr_nodes) : -1);
	return live_add(out, out->nr_allocs);
}

/* The compaction ops (seed 001) after their CPU byte; see SUB_COMPACT. */
static void decode_compaction_op(struct reader *r, unsigned int sub, const struct mm_config *cfg,
				 struct mm_op *op)
{
	unsigned int v = rd8(r);

	switch (sub) {
	case SUB_COMPACT:
		op->kind = MM_OP_COMPACT;
		op->node = (int16_t)((v & 1) % cfg->nr_nodes);
		op->arg = hdr_zones[(v >> 1) & 3];
		op->gfp = (uint16_t)(((v >> 3) & 3) % MM_COMPACT_NR_PRIOS |
				     (((v >> 5) & 3) % MM_MIGRATE_NR_MODES) << 2 |
				     (v >> 7 ? MIGRATE_MOVABLE : MIGRATE_UNMOVABLE) << 4);
		op->order = (uint8_t)(rd8(r) % (cfg->max_order + 1));
		break;
	case SUB_KCOMPACTD:
		op->kind = v & 1 ? MM_OP_RESET_SKIP : MM_OP_KCOMPACTD;
		op->node = (int16_t)((v >> 1) % cfg->nr_nodes);
		if (op->kind == MM_OP_KCOMPACTD)
			op->order = (uint8_t)(rd8(r) % (cfg->max_order + 1));
		break;
	default: /* SUB_FILL */
		if (v & 1) {
			unsigned int b = rd8(r), every = 1 + (b & 15);
			op->kind = MM_OP_FREE_PATTERN;
			op->arg = every;
			op->order = (uint8_t)((b >> 4) % every);
			break;
		}
		op->kind = MM_OP_FILL;
		op->node =
			(int16_t)((v >> 3) & 3 ? (int)((((v >> 3) & 3) - 1) % cfg->nr_nodes) : -1);
		op->order = (uint8_t)((v >> 5) & 3);
		op->arg = (1 + rd8(r)) | ((v >> 1) & 3) << 16;
		op->gfp = (uint16_t)rd8(r);
		op->gfp = (uint16_t)((op->gfp & 15) | (op->gfp >> 4) << 8);
		break;
	}
}

/*
 * The ops behind the OPC_CHECK prefix; returns 1 when the op decodes to
 * nothing, -1 when memory is short.
 */
static int decode_counter_op(struct reader *r, struct mm_prog *out, struct mm_op *op)
{
	unsigned int ncpus = mm_config_nr_cpus(&out->cfg);
	unsigned int sub = rd8(r) % SUB_MOD, v;

	if (sub == SUB_CHECK) {
		op->kind = MM_OP_CHECK;
		return 0;
	}
	if (sub == SUB_ALLOC_COMPACT)
		return decode_alloc(r, out, op, MM_GFP_COMPACT);
	if (sub >= SUB_COMPACT_FIRST) {
		op->cpu = (uint16_t)(rd8(r) % ncpus);
		decode_compaction_op(r, sub, &out->cfg, op);
		return 0;
	}
	if (sub >= SUB_VMSTAT_FIRST)
		return decode_vmstat_op(r, sub, ncpus, &out->cfg, op);
	op->cpu = (uint16_t)(rd8(r) % ncpus);
	switch (sub) {
	case SUB_PCPU_ADD:
	case SUB_PCPU_CMP:
		op->kind = sub == SUB_PCPU_ADD ? MM_OP_PCPU_ADD : MM_OP_PCPU_COMPARE;
		op->node = (int16_t)(rd8(r) % MM_MAX_PCPU_COUNTERS);
		op->arg = (uint32_t)(int32_t)(int16_t)rd16(r);
		op->gfp = (uint16_t)rd8(r);
		break;
	case SUB_PCPU_SET:
		v = rd8(r);
		op->node = (int16_t)((v >> 1) % MM_MAX_PCPU_COUNTERS);
		op->kind = v & 1 ? MM_OP_PCPU_SYNC : MM_OP_PCPU_SET;
		if (op->kind == MM_OP_PCPU_SET)
			op->arg = (uint32_t)(int32_t)(int16_t)rd16(r);
		break;
	case SUB_MMAP:
		v = rd8(r);
		op->kind = v & 1 ? MM_OP_MUNMAP : MM_OP_MMAP;
		op->order = (uint8_t)((v >> 3) & 3);
		if (op->kind == MM_OP_MMAP) {
			op->gfp = (uint16_t)((v >> 1) & 3);
			if (op->gfp & MM_MMAP_BRK)
				op->order = MM_ANONPAGES;
		}
		op->node = (int16_t)(rd8(r) % MM_MAX_MMS);
		op->arg = rd16(r);
		break;
	case SUB_FORK:
		op->kind = MM_OP_FORK;
		op->node = (int16_t)(rd8(r) % MM_MAX_MMS);
		v = rd8(r);
		op->arg = v % 9 == 8 ? 0 : v % 9 + 1;
		op->order = (uint8_t)(v / 9 % (MM_FORK_FAIL_MAX + 1));
		break;
	case SUB_EXIT:
		op->kind = MM_OP_EXIT;
		op->node = (int16_t)(rd8(r) % MM_MAX_MMS);
		break;
	default:
		op->kind = MM_OP_SET_OVERCOMMIT;
		op->arg = rd8(r) % 3;
		break;
	}
	return 0;
}

/* Decodes ops from r until its end (or max_ops) for the machine in out->cfg. */
static int decode_ops(struct reader *r, unsigned int max_ops, struct mm_prog *out)
{
	unsigned int ncpus = mm_config_nr_cpus(&out->cfg);

	out->nr_live = 0;
	while (r->pos < r->len && out->nr_ops < max_ops) {
		struct mm_op op = {0};
		unsigned int opc = rd8(r) % OPC_MOD;

		if (opc == OPC_CHECK) {
			int ret = decode_counter_op(r, out, &op);
			if (ret < 0)
				return -1;
			if (ret)
				continue;
		} else if (opc < OPC_FREE) {
			if (decode_alloc(r, out, &op, 0))
				return -1;
		} else if (opc < OPC_OFFLINE) {
			op.kind = MM_OP_FREE;
			op.cpu = (uint16_t)(rd8(r) % ncpus);
			unsigned int pick = rd16(r);
			if (!out->nr_live)
				continue; /* nothing to free: the op decodes to nothing */
			op.arg = live_take(out, pick);
		} else if (opc < OPC_SYSCTL) {
			op.kind = opc < OPC_ONLINE ? MM_OP_CPU_OFFLINE : MM_OP_CPU_ONLINE;
			op.cpu = (uint16_t)(rd8(r) % ncpus);
		} else if (opc < OPC_DRAIN) {
			static const uint8_t sysctls[3] = {MM_OP_SET_MIN_FREE_KBYTES, MM_OP_SET_WSF,
							   MM_OP_SET_HIGH_FRACTION};
			op.cpu = (uint16_t)(rd8(r) % ncpus);
			unsigned int which = rd8(r) % 3, v = rd16(r);
			op.kind = sysctls[which];
			op.arg = which == 0   ? v
				 : which == 1 ? 1 + v % 3000
					      : (v % 64 < 8 ? 0 : v % 64);
		} else if (opc < OPC_DEFERRED) {
			op.cpu = (uint16_t)(rd8(r) % ncpus);
			op.kind = rd8(r) & 1 ? MM_OP_DRAIN_ALL : MM_OP_DRAIN_LOCAL;
		} else if (opc < OPC_PCP) {
			op.cpu = (uint16_t)(rd8(r) % ncpus);
			unsigned int v = rd8(r);
			op.kind = v & 1 ? MM_OP_DEFERRED_COMPLETE : MM_OP_DEFERRED_STEP;
			if (op.kind == MM_OP_DEFERRED_STEP) {
				op.node = (int16_t)((v >> 1) % out->cfg.nr_nodes);
				op.arg = 1 + rd8(r) % 16;
			}
		} else {
			op.cpu = (uint16_t)(rd8(r) % ncpus);
			unsigned int v = rd8(r);
			op.kind = v & 1 ? MM_OP_PCP_ENABLE : MM_OP_PCP_DISABLE;
			op.node = (int16_t)(((v >> 1) & 7) % out->cfg.nr_nodes);
			op.arg = (v >> 4) % (MAX_NR_ZONES - 1);
		}
		if (mm_prog_push(out, &op))
			return -1;
	}
	return 0;
}

int mm_decode(const uint8_t *data, size_t len, const struct mm_limits *lim, struct mm_prog *out)
{
	struct mm_limits def;
	struct reader r = {data, len, HDR_LEN};

	if (!lim) {
		mm_limits_default(&def);
		lim = &def;
	}
	out->nr_ops = out->nr_allocs = 0;
	decode_config(data, len, lim, &out->cfg);
	return decode_ops(&r, lim->max_ops, out);
}

int mm_decode_ops(const uint8_t *data, size_t len, struct mm_prog *out)
{
	struct reader r = {data, len, 0};

	return decode_ops(&r, UINT_MAX, out);
}

/* ------------------------------------------------------------------------
 * Encoding
 * ---------------------------------------------------------------------- */

struct writer {
	uint8_t *buf;
	size_t len, pos;
};

static void wr8(struct writer *w, unsigned int v)
{
	if (w->buf && w->pos < w->len)
		w->buf[w->pos] = (uint8_t)v;
	w->pos++;
}

static void wr16(struct writer *w, unsigned int v)
{
	wr8(w, v & 0xff);
	wr8(w, (v >> 8) & 0xff);
}

static void encode_config(const struct mm_config *cfg, uint8_t *h)
{
	memset(h, 0, HDR_LEN);
	h[HDR_NODES] = (uint8_t)(cfg->nr_nodes - 1);
	for (unsigned int n = 0; n < cfg->nr_nodes && n < 8; n++)
		h[HDR_CPUS + n] = (uint8_t)encode_cpus(cfg->cpus_per_node[n]);
	unsigned int d = cfg->max_order - cfg->pageblock_order;
	h[HDR_ORDERS] = (uint8_t)((MM_MAX_PAGE_ORDER - cfg->max_order) | ((d == 1   ? 0u
									   : d == 0 ? 1u
										    : 2u)
									  << 3));
	uint64_t first = UINT64_MAX;
	for (int i = 0; i < 4; i++) {
		const struct mm_zone_config *zc = &cfg->zones[0][hdr_zones[i]];
		uint64_t sz = zc->spanned;
		/* Node 0 may lack Normal/Movable that other nodes have. */
		for (unsigned int n = 1; !sz && i >= 2 && n < cfg->nr_nodes; n++)
			sz = cfg->zones[n][hdr_zones[i]].spanned;
		h[HDR_ZONE_SIZE + 2 * i] = (uint8_t)(sz & 0xff);
		h[HDR_ZONE_SIZE + 2 * i + 1] = (uint8_t)((sz >> 8) & 0xff);
		uint64_t res = zc->spanned ? zc->spanned - zc->managed : 0;
		h[HDR_RESERVED + i] = (uint8_t)(res > 255 ? 255 : res);
		if (zc->spanned && zc->start_pfn < first)
			first = zc->start_pfn;
	}
	h[HDR_START_PFN] = (uint8_t)(first == UINT64_MAX ? 0 : first);
	h[HDR_MIN_FREE] = (uint8_t)(cfg->min_free_kbytes & 0xff);
	h[HDR_MIN_FREE + 1] = (uint8_t)((cfg->min_free_kbytes >> 8) & 0xff);
	unsigned int wsf = cfg->watermark_scale_factor == 10 ? 0 : cfg->watermark_scale_factor;
	h[HDR_WSF] = (uint8_t)(wsf & 0xff);
	h[HDR_WSF + 1] = (uint8_t)(wsf >> 8);
	h[HDR_HIGH_FRACTION] = (uint8_t)cfg->percpu_pagelist_high_fraction;
	h[HDR_DEFERRED] = (uint8_t)(cfg->deferred_init_pages >> cfg->pageblock_order);
}

static bool fits_s16(uint32_t arg)
{
	int32_t v = (int32_t)arg;

	return v >= INT16_MIN && v <= INT16_MAX;
}

/* The inverse of decode_vmstat_op(); returns -1 for what it cannot produce. */
static int encode_vmstat_op(struct writer *w, const struct mm_op *op)
{
	unsigned int k;

	switch (op->kind) {
	case MM_OP_VMSTAT_FOLD:
		wr8(w, OPC_CHECK);
		wr8(w, SUB_VMSTAT_FOLD);
		wr8(w, op->cpu);
		return 0;
	case MM_OP_VMSTAT_READ:
		if (op->order > MM_VMSTAT_READ_MAX || op->node < 0 || op->node > 7 ||
		    op->arg >= MAX_NR_ZONES - 1)
			return -1;
		wr8(w, OPC_CHECK);
		wr8(w, SUB_VMSTAT_READ);
		wr8(w, op->cpu);
		wr8(w, op->order | (unsigned int)op->node << 2 | op->arg << 5);
		return 0;
	default:
		for (k = 0; k < 4 && kswapd_kinds[k] != op->kind; k++)
			;
		if (k == 4 || op->node < 0 || op->node > 63 ||
		    (op->kind == MM_OP_VMSTAT_REFRESH && op->node) ||
		    (op->kind == MM_OP_KSWAPD_WAKE &&
		     (op->order > 15 || op->arg >= MAX_NR_ZONES - 1)))
			return -1;
		wr8(w, OPC_CHECK);
		wr8(w, SUB_KSWAPD);
		wr8(w, op->cpu);
		wr8(w, k | (unsigned int)op->node << 2);
		if (op->kind == MM_OP_KSWAPD_WAKE)
			wr8(w, op->order | op->arg << 4);
		return 0;
	}
}

/* The inverse of decode_counter_op(); returns -1 for what it cannot produce. */
static int encode_counter_op(struct writer *w, const struct mm_op *op)
{
	switch (op->kind) {
	case MM_OP_PCPU_ADD:
	case MM_OP_PCPU_COMPARE:
		if (op->node < 0 || op->node >= MM_MAX_PCPU_COUNTERS || !fits_s16(op->arg) ||
		    op->gfp > 0xff)
			return -1;
		wr8(w, OPC_CHECK);
		wr8(w, op->kind == MM_OP_PCPU_ADD ? SUB_PCPU_ADD : SUB_PCPU_CMP);
		wr8(w, op->cpu);
		wr8(w, (unsigned int)op->node);
		wr16(w, op->arg & 0xffff);
		wr8(w, op->gfp);
		return 0;
	case MM_OP_PCPU_SET:
	case MM_OP_PCPU_SYNC:
		if (op->node < 0 || op->node >= MM_MAX_PCPU_COUNTERS ||
		    (op->kind == MM_OP_PCPU_SET && !fits_s16(op->arg)) ||
		    (op->kind == MM_OP_PCPU_SYNC && op->arg))
			return -1;
		wr8(w, OPC_CHECK);
		wr8(w, SUB_PCPU_SET);
		wr8(w, op->cpu);
		wr8(w, (unsigned int)op->node << 1 | (op->kind == MM_OP_PCPU_SYNC));
		if (op->kind == MM_OP_PCPU_SET)
			wr16(w, op->arg & 0xffff);
		return 0;
	case MM_OP_MMAP:
	case MM_OP_MUNMAP: {
		bool unmap = op->kind == MM_OP_MUNMAP;
		if (op->node < 0 || op->node >= MM_MAX_MMS || op->arg > 0xffff ||
		    op->order >= NR_MM_COUNTERS || op->gfp > 3 || (unmap && op->gfp) ||
		    ((op->gfp & MM_MMAP_BRK) && op->order != MM_ANONPAGES))
			return -1;
		wr8(w, OPC_CHECK);
		wr8(w, SUB_MMAP);
		wr8(w, op->cpu);
		wr8(w, unmap | (unsigned int)op->gfp << 1 | (unsigned int)op->order << 3);
		wr8(w, (unsigned int)op->node);
		wr16(w, op->arg);
		return 0;
	}
	case MM_OP_FORK:
		if (op->node < 0 || op->node >= MM_MAX_MMS || op->arg > MM_MAX_MMS ||
		    op->order > MM_FORK_FAIL_MAX)
			return -1;
		wr8(w, OPC_CHECK);
		wr8(w, SUB_FORK);
		wr8(w, op->cpu);
		wr8(w, (unsigned int)op->node);
		wr8(w, (op->arg ? op->arg - 1 : 8) + 9 * op->order);
		return 0;
	case MM_OP_EXIT:
		if (op->node < 0 || op->node >= MM_MAX_MMS)
			return -1;
		wr8(w, OPC_CHECK);
		wr8(w, SUB_EXIT);
		wr8(w, op->cpu);
		wr8(w, (unsigned int)op->node);
		return 0;
	case MM_OP_SET_OVERCOMMIT:
		if (op->arg > MM_OVERCOMMIT_NEVER)
			return -1;
		wr8(w, OPC_CHECK);
		wr8(w, SUB_OVERCOMMIT);
		wr8(w, op->cpu);
		wr8(w, op->arg);
		return 0;
	default:
		return encode_vmstat_op(w, op);
	}
}

/* A zone type's index among the header's zones; -1 for one the header cannot name. */
static int hdr_zone_index(uint32_t zt)
{
	for (int i = 0; i < 4; i++)
		if (hdr_zones[i] == zt)
			return i;
	return -1;
}

/* The inverse of decode_compaction_op(); returns -1 for what it cannot produce. */
static int encode_compaction_op(struct writer *w, const struct mm_op *op)
{
	int zi = hdr_zone_index(op->kind == MM_OP_FILL ? (op->arg >> 16) & 3 : op->arg);

	switch (op->kind) {
	case MM_OP_COMPACT: {
		unsigned int prio = op->gfp & 3, mode = (op->gfp >> 2) & 3, mt = op->gfp >> 4;
		if (op->node < 0 || op->node > 1 || zi < 0 || prio >= MM_COMPACT_NR_PRIOS ||
		    mode >= MM_MIGRATE_NR_MODES ||
		    (mt != MIGRATE_MOVABLE && mt != MIGRATE_UNMOVABLE))
			return -1;
		wr8(w, OPC_CHECK);
		wr8(w, SUB_COMPACT);
		wr8(w, op->cpu);
		wr8(w, (unsigned int)op->node | (unsigned int)zi << 1 | prio << 3 | mode << 5 |
			       (mt == MIGRATE_MOVABLE) << 7);
		wr8(w, op->order);
		return 0;
	}
	case MM_OP_KCOMPACTD:
	case MM_OP_RESET_SKIP:
		if (op->node < 0 || op->node > 127)
			return -1;
		wr8(w, OPC_CHECK);
		wr8(w, SUB_KCOMPACTD);
		wr8(w, op->cpu);
		wr8(w, (op->kind == MM_OP_RESET_SKIP) | (unsigned int)op->node << 1);
		if (op->kind == MM_OP_KCOMPACTD)
			wr8(w, op->order);
		return 0;
	case MM_OP_FILL: {
		unsigned int pages = op->arg & 0xffff, ue = op->gfp & 0xff, be = op->gfp >> 8;
		if (op->node > 2 || op->order > 3 || pages < 1 || pages > 256 || (op->arg >> 18) ||
		    ue > 15 || be > 15)
			return -1;
		wr8(w, OPC_CHECK);
		wr8(w, SUB_FILL);
		wr8(w, op->cpu);
		wr8(w, (unsigned int)zi << 1 | (unsigned int)(op->node + 1) << 3 |
			       (unsigned int)op->order << 5);
		wr8(w, pages - 1);
		wr8(w, ue | be << 4);
		return 0;
	}
	case MM_OP_FREE_PATTERN:
		if (op->arg < 1 || op->arg > 16 || op->order >= op->arg)
			return -1;
		wr8(w, OPC_CHECK);
		wr8(w, SUB_FILL);
		wr8(w, op->cpu);
		wr8(w, 1);
		wr8(w, (op->arg - 1) | (unsigned int)op->order << 4);
		return 0;
	default:
		return -1;
	}
}

long mm_encode(const struct mm_prog *p, uint8_t *buf, size_t len)
{
	struct mm_limits lim;
	struct mm_config back;
	uint8_t hdr[HDR_LEN];
	struct writer w = {buf, len, 0};
	struct mm_prog live = {0}; /* only its live set: the decoder's, replayed */
	uint32_t next_alloc = 0;
	long ret;

	/*
	 * The header must decode to exactly this machine under the widest
	 * limits a target uses (up to 256 CPUs); a target with narrower ones
	 * folds the machine into its own shape.
	 */
	mm_limits_default(&lim);
	lim.max_nodes = MM_MAX_NODES;
	lim.max_cpus_per_node = MM_MAX_CPUS;
	encode_config(&p->cfg, hdr);
	decode_config(hdr, HDR_LEN, &lim, &back);
	if (memcmp(&back, &p->cfg, sizeof(back)) != 0)
		return -2;
	for (int i = 0; i < HDR_LEN; i++)
		wr8(&w, hdr[i]);

	for (unsigned int i = 0; i < p->nr_ops; i++) {
		const struct mm_op *op = &p->ops[i];
		switch (op->kind) {
		case MM_OP_ALLOC:
			if (op->gfp & MM_GFP_COMPACT) {
				wr8(&w, OPC_CHECK);
				wr8(&w, SUB_ALLOC_COMPACT);
			} else {
				wr8(&w, OPC_ALLOC);
			}
			wr8(&w, op->cpu);
			wr8(&w, op->order);
			wr16(&w, op->gfp & ~MM_GFP_COMPACT);
			wr8(&w, op->node < 0 ? 0u : (unsigned int)op->node + 1);
			if (live_add(&live, next_alloc++))
				goto nomem;
			break;
		case MM_OP_FREE: {
			unsigned int idx = 0;
			while (idx < live.nr_live && live.live[idx] != op->arg)
				idx++;
			if (idx == live.nr_live || live.nr_live > 65536)
				goto unrepresentable;
			wr8(&w, OPC_FREE);
			wr8(&w, op->cpu);
			wr16(&w, live.nr_live - 1 - idx);
			live_take(&live, live.nr_live - 1 - idx);
			break;
		}
		case MM_OP_CPU_OFFLINE:
		case MM_OP_CPU_ONLINE:
			wr8(&w, op->kind == MM_OP_CPU_OFFLINE ? OPC_OFFLINE : OPC_ONLINE);
			wr8(&w, op->cpu);
			break;
		case MM_OP_SET_MIN_FREE_KBYTES:
		case MM_OP_SET_WSF:
		case MM_OP_SET_HIGH_FRACTION: {
			unsigned int which = op->kind == MM_OP_SET_MIN_FREE_KBYTES ? 0
					     : op->kind == MM_OP_SET_WSF	   ? 1
										   : 2;
			unsigned int v = which == 0 ? op->arg : which == 1 ? op->arg - 1 : op->arg;
			if (v > 0xffff || (which == 2 && op->arg >= 64))
				goto unrepresentable;
			wr8(&w, OPC_SYSCTL);
			wr8(&w, op->cpu);
			wr8(&w, which);
			wr16(&w, v);
			break;
		}
		case MM_OP_CHECK:
			wr8(&w, OPC_CHECK);
			wr8(&w, SUB_CHECK);
			break;
		case MM_OP_DRAIN_LOCAL:
		case MM_OP_DRAIN_ALL:
			wr8(&w, OPC_DRAIN);
			wr8(&w, op->cpu);
			wr8(&w, op->kind == MM_OP_DRAIN_ALL);
			break;
		case MM_OP_DEFERRED_STEP:
			if (op->arg < 1 || op->arg > 16)
				goto unrepresentable;
			wr8(&w, OPC_DEFERRED);
			wr8(&w, op->cpu);
			wr8(&w, (unsigned int)op->node << 1);
			wr8(&w, op->arg - 1);
			break;
		case MM_OP_DEFERRED_COMPLETE:
			wr8(&w, OPC_DEFERRED);
			wr8(&w, op->cpu);
			wr8(&w, 1);
			break;
		case MM_OP_PCP_DISABLE:
		case MM_OP_PCP_ENABLE:
			if (op->arg >= MAX_NR_ZONES - 1 || op->node > 7)
				goto unrepresentable;
			wr8(&w, OPC_PCP);
			wr8(&w, op->cpu);
			wr8(&w, (op->kind == MM_OP_PCP_ENABLE) | (unsigned int)op->node << 1 |
					op->arg << 4);
			break;
		default:
			if (encode_counter_op(&w, op) && encode_compaction_op(&w, op))
				goto unrepresentable;
			break;
		}
	}
	free(live.live);
	if (buf && w.pos > len)
		return -1;
	return (long)w.pos;
unrepresentable:
	ret = -2;
	goto out;
nomem:
	ret = -3;
out:
	free(live.live);
	return ret;
}
