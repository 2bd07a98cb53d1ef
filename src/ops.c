/* SPDX-License-Identifier: MIT */
/*
 * ops.c - the binary form of the operation language: bytes -> program
 * (total: every byte string is a valid program) and program -> bytes.
 *
 * Layout: a 32-byte machine header, then ops, each an opcode byte and its
 * arguments (src/op_table.c says which). Bytes past the end read as zero, so a truncated input is a
 * shorter program, never an error. Free ops name a live allocation by its
 * position among the allocations not yet freed, so the decoder resolves
 * handles statically and the text form can name them ("a3").
 */
#include "internal.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define HDR_LEN 32
/*
 * The widest machine the header describes: one CPU byte per node, for 8
 * nodes. Fixed, not MM_MAX_*: the model's limits grew for mmfuzz stress,
 * and the fuzz inputs and corpora already written must keep their meaning.
 */
#define HDR_MAX_NODES 8u
#define HDR_MAX_CPUS  256u

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
	/*
	 * u16, cache_slice_kb. Bytes 29-30 were read by nobody before: only
	 * inputs with a byte there other than 0 decode to a different machine.
	 */
	HDR_CACHE_SLICE = 29,
};

/*
 * The ops' slots (the opcode byte mod 64, or the sub byte mod 16 after
 * the OPC_CHECK prefix) and how each packs its fields: the rows of
 * src/op_table.c, with the codecs next to them.
 */

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
	/*
	 * Every mechanism together: two nodes, mostly up to 16 CPUs each (the
	 * header's common range) and at times up to 64, zones small enough
	 * for compaction's scanners to cross.
	 */
	{"fuzz_system", 2, 64, 1024},
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

/* ------------------------------------------------------------------------
 * Decoding
 * ---------------------------------------------------------------------- */

static unsigned int hdr8(const uint8_t *d, size_t len, size_t i)
{
	return i < len ? d[i] : 0;
}

static unsigned int hdr16(const uint8_t *d, size_t len, size_t i)
{
	return hdr8(d, len, i) | (hdr8(d, len, i + 1) << 8);
}

const enum zone_type _mm_hdr_zones[4] = {ZONE_DMA, ZONE_DMA32, ZONE_NORMAL, ZONE_MOVABLE};

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
	uint64_t size[HDR_MAX_NODES][4] = {{0}};
	uint64_t total = 0;
	unsigned int max_nodes = lim->max_nodes < HDR_MAX_NODES ? lim->max_nodes : HDR_MAX_NODES;
	unsigned int max_cpus =
		lim->max_cpus_per_node < HDR_MAX_CPUS ? lim->max_cpus_per_node : HDR_MAX_CPUS;

	_mm_config_clear(cfg);
	cfg->nr_nodes = 1 + hdr8(d, len, HDR_NODES) % max_nodes;
	for (unsigned int n = 0; n < cfg->nr_nodes; n++)
		cfg->cpus_per_node[n] = decode_cpus(hdr8(d, len, HDR_CPUS + n), max_cpus);

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
			struct mm_zone_config *zc = &cfg->zones[n][_mm_hdr_zones[i]];
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
	cfg->cache_slice_kb = hdr16(d, len, HDR_CACHE_SLICE);
}

/* The allocations a decoded program has not freed yet, in p->live. */
int _mm_live_add(struct mm_prog *p, uint32_t handle)
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
uint32_t _mm_live_take(struct mm_prog *p, unsigned int pick)
{
	unsigned int idx = p->nr_live - 1 - pick % p->nr_live;
	uint32_t h = p->live[idx];

	p->live[idx] = p->live[--p->nr_live];
	return h;
}

/* The decoder of each opcode and of each sub byte, from the rows' slots. */
static mm_op_decode_fn opc_decode[OPC_MOD], sub_decode[SUB_MOD];
static uint8_t sub_kind[SUB_MOD];
static pthread_once_t dispatch_once = PTHREAD_ONCE_INIT;

/* A sub byte no row owns: its CPU byte, and nothing. */
static int decode_unowned(struct mm_decoder *d, struct mm_op *op)
{
	(void)op;
	_mm_rd8(d);
	return 1;
}

static void build_dispatch(void)
{
	for (unsigned int s = 0; s < SUB_MOD; s++)
		sub_decode[s] = decode_unowned;
	for (unsigned int k = 0; k < MM_NR_OP_KINDS; k++) {
		const struct mm_op_desc *r = &mm_op_descs[k];
		if (r->sub != MM_OP_NO_SUB && sub_decode[r->sub] == decode_unowned) {
			sub_decode[r->sub] = r->decode;
			sub_kind[r->sub] = (uint8_t)k;
		}
		for (unsigned int o = r->opc_lo; o <= r->opc_hi && o < OPC_CHECK; o++)
			opc_decode[o] = r->decode;
	}
}

/* Decodes ops from d until its end (or max_ops) for the machine in out->cfg. */
static int decode_ops(struct mm_decoder *d, unsigned int max_ops, struct mm_prog *out)
{
	pthread_once(&dispatch_once, build_dispatch);
	d->prog = out;
	d->ncpus = mm_config_nr_cpus(&out->cfg);
	out->nr_live = 0;
	while (d->pos < d->len && out->nr_ops < max_ops) {
		struct mm_op op;
		unsigned int opc = _mm_rd8(d) % OPC_MOD;
		mm_op_decode_fn fn;
		int ret;

		if (opc == OPC_CHECK) {
			d->sub = _mm_rd8(d) % SUB_MOD;
			d->sub_kind = sub_kind[d->sub];
			fn = sub_decode[d->sub];
		} else {
			d->sub = MM_OP_NO_SUB;
			fn = opc_decode[opc];
		}
		memset(&op, 0, sizeof(op));
		ret = fn(d, &op);
		if (ret < 0)
			return -1;
		if (ret)
			continue;
		if (mm_prog_push(out, &op))
			return -1;
	}
	return 0;
}

int mm_decode(const uint8_t *data, size_t len, const struct mm_limits *lim, struct mm_prog *out)
{
	struct mm_limits def;
	struct mm_decoder d = {.data = data, .len = len, .pos = HDR_LEN};

	if (!lim) {
		mm_limits_default(&def);
		lim = &def;
	}
	out->nr_ops = out->nr_allocs = 0;
	decode_config(data, len, lim, &out->cfg);
	return decode_ops(&d, lim->max_ops, out);
}

int mm_decode_ops(const uint8_t *data, size_t len, struct mm_prog *out)
{
	struct mm_decoder d = {.data = data, .len = len};

	return decode_ops(&d, UINT_MAX, out);
}

/* ------------------------------------------------------------------------
 * Encoding
 * ---------------------------------------------------------------------- */

void _mm_wr8(struct mm_encoder *e, unsigned int v)
{
	if (e->buf && e->pos < e->len)
		e->buf[e->pos] = (uint8_t)v;
	e->pos++;
}

void _mm_wr16(struct mm_encoder *e, unsigned int v)
{
	_mm_wr8(e, v & 0xff);
	_mm_wr8(e, (v >> 8) & 0xff);
}

static void encode_config(const struct mm_config *cfg, uint8_t *h)
{
	memset(h, 0, HDR_LEN);
	h[HDR_NODES] = (uint8_t)(cfg->nr_nodes - 1);
	for (unsigned int n = 0; n < cfg->nr_nodes && n < HDR_MAX_NODES; n++)
		h[HDR_CPUS + n] = (uint8_t)encode_cpus(cfg->cpus_per_node[n]);
	unsigned int d = cfg->max_order - cfg->pageblock_order;
	h[HDR_ORDERS] = (uint8_t)((MM_MAX_PAGE_ORDER - cfg->max_order) | ((d == 1   ? 0u
									   : d == 0 ? 1u
										    : 2u)
									  << 3));
	uint64_t first = UINT64_MAX;
	for (int i = 0; i < 4; i++) {
		const struct mm_zone_config *zc = &cfg->zones[0][_mm_hdr_zones[i]];
		uint64_t sz = zc->spanned;
		/* Node 0 may lack Normal/Movable that other nodes have. */
		for (unsigned int n = 1; !sz && i >= 2 && n < cfg->nr_nodes; n++)
			sz = cfg->zones[n][_mm_hdr_zones[i]].spanned;
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
	h[HDR_CACHE_SLICE] = (uint8_t)(cfg->cache_slice_kb & 0xff);
	h[HDR_CACHE_SLICE + 1] = (uint8_t)((cfg->cache_slice_kb >> 8) & 0xff);
}

long mm_encode(const struct mm_prog *p, uint8_t *buf, size_t len)
{
	struct mm_limits lim;
	struct mm_config back;
	uint8_t hdr[HDR_LEN];
	struct mm_encoder e = {.cfg = &p->cfg, .buf = buf, .len = len};
	long ret = 0;

	/*
	 * The header must decode to exactly this machine under the widest
	 * limits a target uses (up to 256 CPUs); a target with narrower ones
	 * folds the machine into its own shape. A wider machine has no binary
	 * form (-2): its traces stay text.
	 */
	mm_limits_default(&lim);
	lim.max_nodes = HDR_MAX_NODES;
	lim.max_cpus_per_node = HDR_MAX_CPUS;
	if (p->cfg.nr_nodes > HDR_MAX_NODES)
		return -2;
	encode_config(&p->cfg, hdr);
	mm_config_init(&back); /* the decoder writes a config's used rows only */
	decode_config(hdr, HDR_LEN, &lim, &back);
	if (memcmp(&back, &p->cfg, sizeof(back)) != 0)
		return -2;
	for (int i = 0; i < HDR_LEN; i++)
		_mm_wr8(&e, hdr[i]);

	for (unsigned int i = 0; i < p->nr_ops && !ret; i++) {
		const struct mm_op *op = &p->ops[i];
		int r = op->kind < MM_NR_OP_KINDS ? mm_op_descs[op->kind].encode(&e, op) : -1;
		if (r)
			ret = r == -3 ? -3 : -2;
	}
	free(e.live.live);
	if (ret)
		return ret;
	if (buf && e.pos > len)
		return -1;
	return (long)e.pos;
}
