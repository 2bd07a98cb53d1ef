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
	HDR_CPUS = 1, /* 8 bytes, one per node */
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
#define OPC_CHECK    63
#define OPC_MOD	     64

void mm_limits_default(struct mm_limits *lim)
{
	lim->max_nodes = 2;
	lim->max_cpus_per_node = 4;
	lim->max_total_pages = 1024;
	lim->max_ops = 2048;
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

static void decode_config(const uint8_t *d, size_t len, const struct mm_limits *lim,
			  struct mm_config *cfg)
{
	uint64_t size[MM_MAX_NODES][4] = {{0}};
	uint64_t total = 0;

	memset(cfg, 0, sizeof(*cfg));
	cfg->nr_nodes = 1 + hdr8(d, len, HDR_NODES) % lim->max_nodes;
	for (unsigned int n = 0; n < cfg->nr_nodes; n++)
		cfg->cpus_per_node[n] = 1 + hdr8(d, len, HDR_CPUS + n) % lim->max_cpus_per_node;

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

/* Decodes ops from r until its end (or max_ops) for the machine in out->cfg. */
static int decode_ops(struct reader *r, unsigned int max_ops, struct mm_prog *out)
{
	unsigned int ncpus = mm_config_nr_cpus(&out->cfg);

	out->nr_live = 0;
	while (r->pos < r->len && out->nr_ops < max_ops) {
		struct mm_op op = {0};
		unsigned int opc = rd8(r) % OPC_MOD;

		if (opc == OPC_CHECK) {
			op.kind = MM_OP_CHECK;
		} else if (opc < OPC_FREE) {
			op.kind = MM_OP_ALLOC;
			op.cpu = (uint16_t)(rd8(r) % ncpus);
			op.order = (uint8_t)(rd8(r) % (out->cfg.max_order + 1));
			op.gfp = (uint16_t)gfp_normalize(rd16(r));
			unsigned int node = rd8(r);
			op.node = (int16_t)(node ? (int)((node - 1) % out->cfg.nr_nodes) : -1);
			if (live_add(out, out->nr_allocs))
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
		h[HDR_CPUS + n] = (uint8_t)(cfg->cpus_per_node[n] - 1);
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

long mm_encode(const struct mm_prog *p, uint8_t *buf, size_t len)
{
	struct mm_limits lim;
	struct mm_config back;
	uint8_t hdr[HDR_LEN];
	struct writer w = {buf, len, 0};
	struct mm_prog live = {0}; /* only its live set: the decoder's, replayed */
	uint32_t next_alloc = 0;
	long ret;

	/* The header must decode to exactly this machine under the fuzz limits. */
	mm_limits_default(&lim);
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
			wr8(&w, OPC_ALLOC);
			wr8(&w, op->cpu);
			wr8(&w, op->order);
			wr16(&w, op->gfp);
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
			goto unrepresentable;
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
