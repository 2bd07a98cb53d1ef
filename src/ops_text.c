/* SPDX-License-Identifier: MIT */
/*
 * ops_text.c - the text form of the operation language: one op per line,
 * so a crash prints as a readable trace and regressions are stored as text
 * that outlives changes of the binary encoding. mm_print_prog() writes the
 * canonical form; mm_parse_prog() reads it back (plus comments, blank lines
 * and gfp aliases such as KERNEL).
 *
 *   config nodes=1 cpus=2 max_order=10 pageblock_order=9 min_free_kbytes=0 ...
 *   zone 0 Normal start=0 spanned=2048 present=2048 managed=2048
 *   cpu0 alloc a0 order=3 gfp=MOVABLE|DIRECT_RECLAIM|KSWAPD_RECLAIM
 *   cpu1 free a0
 *   check
 */
#include "internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name;
	unsigned int bits;
} gfp_bits[] = {
	{"DMA", MM_GFP_DMA},
	{"DMA32", MM_GFP_DMA32},
	{"HIGHMEM", MM_GFP_HIGHMEM},
	{"MOVABLE", MM_GFP_MOVABLE},
	{"RECLAIMABLE", MM_GFP_RECLAIMABLE},
	{"HIGH", MM_GFP_HIGH},
	{"DIRECT_RECLAIM", MM_GFP_DIRECT_RECLAIM},
	{"KSWAPD_RECLAIM", MM_GFP_KSWAPD_RECLAIM},
	{"THISNODE", MM_GFP_THISNODE},
	{"NOMEMALLOC", MM_GFP_NOMEMALLOC},
	{"MEMALLOC", MM_GFP_MEMALLOC},
	{"OOM", MM_GFP_OOM},
	{"COMPACT", MM_GFP_COMPACT},
};

static const struct {
	const char *name;
	unsigned int bits;
} gfp_aliases[] = {
	{"KERNEL", MM_GFP_KERNEL},
	{"ATOMIC", MM_GFP_ATOMIC},
	{"NOWAIT", MM_GFP_NOWAIT},
	{"HIGHUSER_MOVABLE", MM_GFP_HIGHUSER_MOVABLE},
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static void print_gfp(FILE *f, unsigned int gfp)
{
	bool first = true;

	if (!gfp) {
		fputc('0', f);
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(gfp_bits); i++) {
		if (!(gfp & gfp_bits[i].bits))
			continue;
		fprintf(f, "%s%s", first ? "" : "|", gfp_bits[i].name);
		first = false;
	}
}

void mm_print_config(FILE *f, const struct mm_config *cfg)
{
	fprintf(f, "config nodes=%u cpus=", cfg->nr_nodes);
	for (unsigned int n = 0; n < cfg->nr_nodes; n++)
		fprintf(f, "%s%u", n ? "," : "", cfg->cpus_per_node[n]);
	fprintf(f,
		" max_order=%u pageblock_order=%u min_free_kbytes=%u watermark_scale_factor=%u "
		"high_fraction=%u",
		cfg->max_order, cfg->pageblock_order, cfg->min_free_kbytes,
		cfg->watermark_scale_factor, cfg->percpu_pagelist_high_fraction);
	if (cfg->deferred_init_pages)
		fprintf(f, " deferred_init_pages=%llu",
			(unsigned long long)cfg->deferred_init_pages);
	fputc('\n', f);
	for (unsigned int n = 0; n < cfg->nr_nodes; n++) {
		for (int z = 0; z < MAX_NR_ZONES; z++) {
			const struct mm_zone_config *zc = &cfg->zones[n][z];
			if (!zc->spanned)
				continue;
			fprintf(f, "zone %u %s start=%llu spanned=%llu present=%llu managed=%llu\n",
				n, mm_zone_name(z), (unsigned long long)zc->start_pfn,
				(unsigned long long)zc->spanned, (unsigned long long)zc->present,
				(unsigned long long)zc->managed);
		}
	}
}

static const char *const vmstat_reads[MM_VMSTAT_READ_MAX + 1] = {"estimate", "snapshot", "safe"};

/* handle: the allocation number of an ALLOC op */
static void print_op(FILE *f, const struct mm_op *op, unsigned int handle)
{
	switch (op->kind) {
	case MM_OP_ALLOC:
		fprintf(f, "cpu%u alloc a%u order=%u gfp=", op->cpu, handle, op->order);
		print_gfp(f, op->gfp);
		if (op->node >= 0)
			fprintf(f, " node=%d", op->node);
		break;
	case MM_OP_FREE:
		fprintf(f, "cpu%u free a%u", op->cpu, op->arg);
		break;
	case MM_OP_CPU_OFFLINE:
		fprintf(f, "cpu%u offline", op->cpu);
		break;
	case MM_OP_CPU_ONLINE:
		fprintf(f, "cpu%u online", op->cpu);
		break;
	case MM_OP_SET_MIN_FREE_KBYTES:
		fprintf(f, "cpu%u sysctl min_free_kbytes=%u", op->cpu, op->arg);
		break;
	case MM_OP_SET_WSF:
		fprintf(f, "cpu%u sysctl watermark_scale_factor=%u", op->cpu, op->arg);
		break;
	case MM_OP_CHECK:
		fputs("check", f);
		break;
	case MM_OP_DRAIN_LOCAL:
		fprintf(f, "cpu%u drain", op->cpu);
		break;
	case MM_OP_DRAIN_ALL:
		fprintf(f, "cpu%u drain all", op->cpu);
		break;
	case MM_OP_DEFERRED_STEP:
		fprintf(f, "cpu%u deferred_init node=%d pageblocks=%u", op->cpu, op->node, op->arg);
		break;
	case MM_OP_DEFERRED_COMPLETE:
		fprintf(f, "cpu%u deferred_init complete", op->cpu);
		break;
	case MM_OP_PCP_DISABLE:
	case MM_OP_PCP_ENABLE:
		fprintf(f, "cpu%u %s node=%d zone=%s", op->cpu,
			op->kind == MM_OP_PCP_DISABLE ? "pcp_disable" : "pcp_enable", op->node,
			mm_zone_name((enum zone_type)op->arg));
		break;
	case MM_OP_SET_HIGH_FRACTION:
		fprintf(f, "cpu%u sysctl percpu_pagelist_high_fraction=%u", op->cpu, op->arg);
		break;
	case MM_OP_PCPU_ADD:
	case MM_OP_PCPU_COMPARE:
		fprintf(f, "cpu%u %s c%d %s=%d", op->cpu,
			op->kind == MM_OP_PCPU_ADD ? "pcpu_add" : "pcpu_compare", op->node,
			op->kind == MM_OP_PCPU_ADD ? "amount" : "rhs", (int32_t)op->arg);
		if (op->gfp)
			fprintf(f, " batch=%u", op->gfp);
		break;
	case MM_OP_PCPU_SET:
		fprintf(f, "cpu%u pcpu_set c%d value=%d", op->cpu, op->node, (int32_t)op->arg);
		break;
	case MM_OP_PCPU_SYNC:
		fprintf(f, "cpu%u pcpu_sync c%d", op->cpu, op->node);
		break;
	case MM_OP_MMAP:
	case MM_OP_MUNMAP:
		if (op->gfp & MM_MMAP_BRK)
			fprintf(f, "cpu%u brk m%d pages=%u", op->cpu, op->node, op->arg);
		else
			fprintf(f, "cpu%u %s m%d pages=%u type=%s", op->cpu,
				op->kind == MM_OP_MMAP ? "mmap" : "munmap", op->node, op->arg,
				mm_rss_type_name(op->order));
		if (op->gfp & MM_MMAP_ADMIN)
			fputs(" admin", f);
		break;
	case MM_OP_FORK:
		fprintf(f, "cpu%u fork m%d", op->cpu, op->node);
		if (op->arg)
			fprintf(f, " parent=m%u", op->arg - 1);
		if (op->order == MM_FORK_FAIL_DUP_MMAP)
			fputs(" fail=dup_mmap", f);
		else if (op->order)
			fprintf(f, " fail=alloc%u", op->order);
		break;
	case MM_OP_EXIT:
		fprintf(f, "cpu%u exit m%d", op->cpu, op->node);
		break;
	case MM_OP_SET_OVERCOMMIT:
		fprintf(f, "cpu%u sysctl overcommit_memory=%u", op->cpu, op->arg);
		break;
	case MM_OP_VMSTAT_FOLD:
		fprintf(f, "cpu%u vmstat_fold", op->cpu);
		break;
	case MM_OP_VMSTAT_REFRESH:
		fprintf(f, "cpu%u vmstat_refresh", op->cpu);
		break;
	case MM_OP_VMSTAT_READ:
		fprintf(f, "cpu%u vmstat_read node=%d zone=%s how=%s", op->cpu, op->node,
			mm_zone_name((enum zone_type)op->arg), vmstat_reads[op->order % 3]);
		break;
	case MM_OP_KSWAPD_WAKE:
		fprintf(f, "cpu%u kswapd_wake node=%d zone=%s order=%u", op->cpu, op->node,
			mm_zone_name((enum zone_type)op->arg), op->order);
		break;
	case MM_OP_KSWAPD_STEP:
	case MM_OP_KSWAPD_SLEEP:
		fprintf(f, "cpu%u %s node=%d", op->cpu,
			op->kind == MM_OP_KSWAPD_STEP ? "kswapd_step" : "kswapd_sleep", op->node);
		break;
	default:
		if (!_mm_print_compaction_op(f, op))
			fprintf(f, "# unknown op kind %u", op->kind);
		break;
	}
	fputc('\n', f);
}

void mm_print_op(FILE *f, const struct mm_prog *p, unsigned int i)
{
	unsigned int handle = 0;

	for (unsigned int j = 0; j < i; j++)
		handle += p->ops[j].kind == MM_OP_ALLOC;
	print_op(f, &p->ops[i], handle);
}

void mm_print_prog(FILE *f, const struct mm_prog *p)
{
	unsigned int handle = 0;

	fputs("# mmfuzz trace v1\n", f);
	mm_print_config(f, &p->cfg);
	for (unsigned int i = 0; i < p->nr_ops; i++) {
		print_op(f, &p->ops[i], handle);
		handle += p->ops[i].kind == MM_OP_ALLOC;
	}
}

/* ------------------------------------------------------------------------
 * Parsing
 * ---------------------------------------------------------------------- */

struct parser {
	struct mm_prog *prog;
	char *err;
	size_t errlen;
	unsigned int line;
	bool have_config, have_zone;
	uint8_t *freed; /* per handle: freed already */
	unsigned int freed_cap;
};

#define PERR(ps, ...)                                                                              \
	do {                                                                                       \
		int _n = snprintf((ps)->err, (ps)->errlen, "line %u: ", (ps)->line);               \
		if (_n >= 0 && (size_t)_n < (ps)->errlen)                                          \
			snprintf((ps)->err + _n, (ps)->errlen - (size_t)_n, __VA_ARGS__);          \
		return -1;                                                                         \
	} while (0)

/* Parses a decimal number into *v; returns false on junk or overflow. */
static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	if (errno || *end)
		return false;
	*v = x;
	return true;
}

/* Splits "key=value"; returns the value or NULL when the key differs. */
static const char *kv(const char *tok, const char *key)
{
	size_t n = strlen(key);

	return !strncmp(tok, key, n) && tok[n] == '=' ? tok + n + 1 : NULL;
}

static int parse_gfp(struct parser *ps, const char *s, unsigned int *gfp)
{
	char buf[256];
	uint64_t v;

	*gfp = 0;
	if (parse_u64(s, &v)) {
		if (v & ~(uint64_t)(MM_GFP_ALL | MM_GFP_COMPACT))
			PERR(ps, "gfp value %s has unknown bits", s);
		*gfp = (unsigned int)v;
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", s);
	for (char *save = NULL, *t = strtok_r(buf, "|", &save); t; t = strtok_r(NULL, "|", &save)) {
		size_t i;
		for (i = 0; i < ARRAY_SIZE(gfp_bits); i++)
			if (!strcmp(t, gfp_bits[i].name))
				break;
		if (i < ARRAY_SIZE(gfp_bits)) {
			*gfp |= gfp_bits[i].bits;
			continue;
		}
		for (i = 0; i < ARRAY_SIZE(gfp_aliases); i++)
			if (!strcmp(t, gfp_aliases[i].name))
				break;
		if (i == ARRAY_SIZE(gfp_aliases))
			PERR(ps, "unknown gfp flag '%s'", t);
		*gfp |= gfp_aliases[i].bits;
	}
	return 0;
}

static int parse_config(struct parser *ps, char **tok, int ntok)
{
	struct mm_config *cfg = &ps->prog->cfg;
	const char *v;
	uint64_t x;

	if (ps->have_config)
		PERR(ps, "a second config line");
	if (ps->prog->nr_ops)
		PERR(ps, "config must come before the ops");
	mm_config_init(cfg);
	for (int i = 1; i < ntok; i++) {
		if ((v = kv(tok[i], "cpus"))) {
			char buf[128];
			unsigned int n = 0;
			snprintf(buf, sizeof(buf), "%s", v);
			for (char *save = NULL, *t = strtok_r(buf, ",", &save); t;
			     t = strtok_r(NULL, ",", &save)) {
				if (n >= MM_MAX_NODES || !parse_u64(t, &x) || x > MM_MAX_CPUS)
					PERR(ps, "bad cpus list '%s'", v);
				cfg->cpus_per_node[n++] = (unsigned int)x;
			}
			if (n == 1)
				for (unsigned int k = 1; k < MM_MAX_NODES; k++)
					cfg->cpus_per_node[k] = cfg->cpus_per_node[0];
			continue;
		}
		if ((v = kv(tok[i], "deferred_init_pages"))) {
			if (!parse_u64(v, &x) || x > UINT32_MAX)
				PERR(ps, "bad number in '%s'", tok[i]);
			cfg->deferred_init_pages = x;
			continue;
		}
		const char *keys[] = {"nodes",
				      "max_order",
				      "pageblock_order",
				      "min_free_kbytes",
				      "watermark_scale_factor",
				      "high_fraction"};
		unsigned int *dst[] = {&cfg->nr_nodes,
				       &cfg->max_order,
				       &cfg->pageblock_order,
				       &cfg->min_free_kbytes,
				       &cfg->watermark_scale_factor,
				       &cfg->percpu_pagelist_high_fraction};
		size_t k;
		for (k = 0; k < ARRAY_SIZE(keys); k++)
			if ((v = kv(tok[i], keys[k])))
				break;
		if (k == ARRAY_SIZE(keys))
			PERR(ps, "unknown config field '%s'", tok[i]);
		if (!parse_u64(v, &x) || x > UINT32_MAX)
			PERR(ps, "bad number in '%s'", tok[i]);
		*dst[k] = (unsigned int)x;
	}
	/* "cpus=2" with nodes=N means 2 per node; clear CPUs of absent nodes. */
	for (unsigned int k = cfg->nr_nodes; k < MM_MAX_NODES; k++)
		cfg->cpus_per_node[k] = 0;
	ps->have_config = true;
	return 0;
}

static int parse_zone(struct parser *ps, char **tok, int ntok)
{
	struct mm_config *cfg = &ps->prog->cfg;
	uint64_t node, vals[4];
	const char *keys[4] = {"start", "spanned", "present", "managed"};
	int zt;

	if (!ps->have_config)
		PERR(ps, "zone line before the config line");
	if (ps->prog->nr_ops)
		PERR(ps, "zone lines must come before the ops");
	if (ntok != 7 || !parse_u64(tok[1], &node) || node >= cfg->nr_nodes)
		PERR(ps, "expected 'zone NODE NAME start= spanned= present= managed='");
	for (zt = 0; zt < MAX_NR_ZONES; zt++)
		if (!strcmp(tok[2], mm_zone_name(zt)))
			break;
	if (zt == MAX_NR_ZONES)
		PERR(ps, "unknown zone '%s'", tok[2]);
	for (int i = 0; i < 4; i++) {
		const char *v = kv(tok[3 + i], keys[i]);
		if (!v || !parse_u64(v, &vals[i]))
			PERR(ps, "expected %s=NUMBER, got '%s'", keys[i], tok[3 + i]);
	}
	cfg->zones[node][zt] = (struct mm_zone_config){vals[0], vals[1], vals[2], vals[3]};
	ps->have_zone = true;
	return 0;
}

static int parse_cpu(struct parser *ps, const char *tok, uint16_t *cpu)
{
	uint64_t x;

	if (strncmp(tok, "cpu", 3) || !parse_u64(tok + 3, &x))
		PERR(ps, "expected cpuN, got '%s'", tok);
	if (x >= mm_config_nr_cpus(&ps->prog->cfg))
		PERR(ps, "cpu%llu does not exist (the machine has %u CPUs)", (unsigned long long)x,
		     mm_config_nr_cpus(&ps->prog->cfg));
	*cpu = (uint16_t)x;
	return 0;
}

static int parse_handle(struct parser *ps, const char *tok, uint32_t *h)
{
	uint64_t x;

	if (tok[0] != 'a' || !parse_u64(tok + 1, &x) || x > UINT32_MAX)
		PERR(ps, "expected an allocation handle aN, got '%s'", tok);
	*h = (uint32_t)x;
	return 0;
}

static int mark_freed(struct parser *ps, uint32_t h)
{
	if (h >= ps->prog->nr_allocs)
		PERR(ps, "a%u is freed before it is allocated", h);
	if (ps->prog->nr_allocs > ps->freed_cap) {
		unsigned int cap = ps->prog->nr_allocs * 2;
		uint8_t *f = realloc(ps->freed, cap);
		if (!f)
			PERR(ps, "out of memory");
		memset(f + ps->freed_cap, 0, cap - ps->freed_cap);
		ps->freed = f;
		ps->freed_cap = cap;
	}
	if (ps->freed[h])
		PERR(ps, "a%u is freed twice", h);
	ps->freed[h] = 1;
	return 0;
}

/* A signed 16-bit decimal, the range the binary form holds. */
static bool parse_s16(const char *s, int32_t *v)
{
	uint64_t x;
	bool neg = *s == '-';

	if (!parse_u64(s + neg, &x) || x > (neg ? 32768u : 32767u))
		return false;
	*v = neg ? -(int32_t)x : (int32_t)x;
	return true;
}

/* "cK" or "mK" below max */
static bool parse_index(const char *tok, char prefix, unsigned int max, int16_t *out)
{
	uint64_t x;

	if (tok[0] != prefix || !parse_u64(tok + 1, &x) || x >= max)
		return false;
	*out = (int16_t)x;
	return true;
}

/*
 *   cpuN pcpu_add cK amount=A [batch=B]   cpuN pcpu_compare cK rhs=R [batch=B]
 *   cpuN pcpu_set cK value=V              cpuN pcpu_sync cK
 *   cpuN mmap mK pages=P type=T [admin]   cpuN brk mK pages=P [admin]
 *   cpuN munmap mK pages=P type=T         cpuN exit mK
 *   cpuN fork mK [parent=mJ] [fail=allocN|dup_mmap]
 */
static int parse_counter_op(struct parser *ps, char **tok, int ntok, struct mm_op *op)
{
	const char *cmd = tok[1], *v;
	int32_t s;
	uint64_t x;

	if (!strcmp(cmd, "pcpu_add") || !strcmp(cmd, "pcpu_compare")) {
		bool add = cmd[5] == 'a';
		op->kind = add ? MM_OP_PCPU_ADD : MM_OP_PCPU_COMPARE;
		if (ntok < 4 || ntok > 5 ||
		    !parse_index(tok[2], 'c', MM_MAX_PCPU_COUNTERS, &op->node) ||
		    !(v = kv(tok[3], add ? "amount" : "rhs")) || !parse_s16(v, &s))
			PERR(ps, "expected 'cpuN %s c0..c%d %s=-32768..32767 [batch=1..255]'", cmd,
			     MM_MAX_PCPU_COUNTERS - 1, add ? "amount" : "rhs");
		op->arg = (uint32_t)s;
		if (ntok == 5) {
			if (!(v = kv(tok[4], "batch")) || !parse_u64(v, &x) || x < 1 || x > 255)
				PERR(ps, "batch must be 1..255 (absent: percpu_counter_batch)");
			op->gfp = (uint16_t)x;
		}
		return 0;
	}
	if (!strcmp(cmd, "pcpu_set") || !strcmp(cmd, "pcpu_sync")) {
		bool set = cmd[6] == 'e';
		op->kind = set ? MM_OP_PCPU_SET : MM_OP_PCPU_SYNC;
		if (ntok != (set ? 4 : 3) ||
		    !parse_index(tok[2], 'c', MM_MAX_PCPU_COUNTERS, &op->node) ||
		    (set && (!(v = kv(tok[3], "value")) || !parse_s16(v, &s))))
			PERR(ps, "expected 'cpuN pcpu_set cK value=V' or 'cpuN pcpu_sync cK'");
		op->arg = set ? (uint32_t)s : 0;
		return 0;
	}
	if (!strcmp(cmd, "mmap") || !strcmp(cmd, "brk") || !strcmp(cmd, "munmap")) {
		bool brk = cmd[0] == 'b', unmap = cmd[1] == 'u', have_type = brk;
		op->kind = unmap ? MM_OP_MUNMAP : MM_OP_MMAP;
		op->order = MM_ANONPAGES;
		op->gfp = brk ? MM_MMAP_BRK : 0;
		if (ntok < 4 || !parse_index(tok[2], 'm', MM_MAX_MMS, &op->node) ||
		    !(v = kv(tok[3], "pages")) || !parse_u64(v, &x) || x > 0xffff)
			PERR(ps, "expected 'cpuN %s m0..m%d pages=0..65535%s'", cmd, MM_MAX_MMS - 1,
			     brk     ? " [admin]"
			     : unmap ? " type=T"
				     : " type=T [admin]");
		op->arg = (uint32_t)x;
		for (int i = 4; i < ntok; i++) {
			if (!brk && (v = kv(tok[i], "type"))) {
				int t;
				for (t = 0; t < NR_MM_COUNTERS; t++)
					if (!strcmp(v, mm_rss_type_name(t)))
						break;
				if (t == NR_MM_COUNTERS)
					PERR(ps, "type must be file, anon, swap or shmem");
				op->order = (uint8_t)t;
				have_type = true;
			} else if (!unmap && !strcmp(tok[i], "admin")) {
				op->gfp |= MM_MMAP_ADMIN;
			} else {
				PERR(ps, "unknown %s argument '%s'", cmd, tok[i]);
			}
		}
		if (!have_type)
			PERR(ps, "%s needs type=file|anon|swap|shmem", cmd);
		return 0;
	}
	if (!strcmp(cmd, "fork")) {
		op->kind = MM_OP_FORK;
		if (ntok < 3 || !parse_index(tok[2], 'm', MM_MAX_MMS, &op->node))
			PERR(ps,
			     "expected 'cpuN fork mK [parent=mJ] [fail=alloc1..alloc5|dup_mmap]'");
		for (int i = 3; i < ntok; i++) {
			int16_t parent;
			if ((v = kv(tok[i], "parent"))) {
				if (!parse_index(v, 'm', MM_MAX_MMS, &parent))
					PERR(ps, "parent must be m0..m%d", MM_MAX_MMS - 1);
				op->arg = (uint32_t)parent + 1;
			} else if ((v = kv(tok[i], "fail"))) {
				if (!strcmp(v, "dup_mmap"))
					op->order = MM_FORK_FAIL_DUP_MMAP;
				else if (!strncmp(v, "alloc", 5) && parse_u64(v + 5, &x) &&
					 x >= 1 && x <= MM_FORK_FAIL_ALLOC5)
					op->order = (uint8_t)x;
				else
					PERR(ps, "fail must be alloc1..alloc5 or dup_mmap");
			} else {
				PERR(ps, "unknown fork argument '%s'", tok[i]);
			}
		}
		return 0;
	}
	if (!strcmp(cmd, "exit")) {
		op->kind = MM_OP_EXIT;
		if (ntok != 3 || !parse_index(tok[2], 'm', MM_MAX_MMS, &op->node))
			PERR(ps, "expected 'cpuN exit mK'");
		return 0;
	}
	PERR(ps, "unknown op '%s'", cmd);
}

/* "zone=NAME" of a populated-or-not zone type below ZONE_DEVICE */
static int parse_zone_arg(struct parser *ps, const char *tok, uint32_t *zt)
{
	const char *z = kv(tok, "zone");
	int t;

	if (!z)
		PERR(ps, "expected zone=NAME, got '%s'", tok);
	for (t = 0; t < ZONE_DEVICE; t++)
		if (!strcmp(z, mm_zone_name(t)))
			break;
	if (t == ZONE_DEVICE)
		PERR(ps, "unknown zone '%s'", z);
	*zt = (uint32_t)t;
	return 0;
}

static int parse_node_arg(struct parser *ps, const char *tok, int16_t *node)
{
	const char *n = kv(tok, "node");
	uint64_t x;

	if (!n || !parse_u64(n, &x) || x >= ps->prog->cfg.nr_nodes)
		PERR(ps, "expected node=0..%u, got '%s'", ps->prog->cfg.nr_nodes - 1, tok);
	*node = (int16_t)x;
	return 0;
}

/*
 *   cpuN vmstat_fold        cpuN vmstat_read node=N zone=Z how=estimate|snapshot|safe
 *   cpuN vmstat_refresh     cpuN kswapd_wake node=N zone=Z order=K
 *   cpuN kswapd_step node=N cpuN kswapd_sleep node=N
 */
static int parse_vmstat_op(struct parser *ps, char **tok, int ntok, struct mm_op *op)
{
	const char *cmd = tok[1], *v;
	uint64_t x;

	if (!strcmp(cmd, "vmstat_fold") || !strcmp(cmd, "vmstat_refresh")) {
		op->kind = cmd[7] == 'f' ? MM_OP_VMSTAT_FOLD : MM_OP_VMSTAT_REFRESH;
		if (ntok != 2)
			PERR(ps, "%s takes no arguments", cmd);
		return 0;
	}
	if (!strcmp(cmd, "vmstat_read")) {
		op->kind = MM_OP_VMSTAT_READ;
		if (ntok != 5 || parse_node_arg(ps, tok[2], &op->node) ||
		    parse_zone_arg(ps, tok[3], &op->arg))
			PERR(ps, "expected 'cpuN vmstat_read node=N zone=Z "
				 "how=estimate|snapshot|safe'");
		unsigned int how;
		for (how = 0; how <= MM_VMSTAT_READ_MAX; how++)
			if ((v = kv(tok[4], "how")) && !strcmp(v, vmstat_reads[how]))
				break;
		if (how > MM_VMSTAT_READ_MAX)
			PERR(ps, "how must be estimate, snapshot or safe");
		op->order = (uint8_t)how;
		return 0;
	}
	if (!strcmp(cmd, "kswapd_wake")) {
		op->kind = MM_OP_KSWAPD_WAKE;
		if (ntok != 5 || parse_node_arg(ps, tok[2], &op->node) ||
		    parse_zone_arg(ps, tok[3], &op->arg) || !(v = kv(tok[4], "order")) ||
		    !parse_u64(v, &x) || x > ps->prog->cfg.max_order)
			PERR(ps, "expected 'cpuN kswapd_wake node=N zone=Z order=0..%u'",
			     ps->prog->cfg.max_order);
		op->order = (uint8_t)x;
		return 0;
	}
	if (strcmp(cmd, "kswapd_step") && strcmp(cmd, "kswapd_sleep"))
		PERR(ps, "unknown op '%s'", cmd);
	op->kind = strcmp(cmd, "kswapd_step") ? MM_OP_KSWAPD_SLEEP : MM_OP_KSWAPD_STEP;
	if (ntok != 3 || parse_node_arg(ps, tok[2], &op->node))
		PERR(ps, "expected 'cpuN %s node=N'", cmd);
	return 0;
}

static int parse_op(struct parser *ps, char **tok, int ntok)
{
	struct mm_op op = {0};
	const char *v;
	uint64_t x;

	if (!ps->have_zone)
		PERR(ps, "ops must follow a config line and its zone lines");
	if (!strcmp(tok[0], "check")) {
		if (ntok != 1)
			PERR(ps, "check takes no arguments");
		op.kind = MM_OP_CHECK;
		goto push;
	}
	if (ntok < 2)
		PERR(ps, "expected 'cpuN OP ...'");
	if (parse_cpu(ps, tok[0], &op.cpu))
		return -1;
	if (!strcmp(tok[1], "alloc")) {
		uint32_t h;
		op.kind = MM_OP_ALLOC;
		op.node = -1;
		if (ntok < 3 || parse_handle(ps, tok[2], &h))
			PERR(ps, "expected 'cpuN alloc aN order=K gfp=FLAGS [node=N]'");
		if (h != ps->prog->nr_allocs)
			PERR(ps, "allocation handles are numbered in order: expected a%u, got a%u",
			     ps->prog->nr_allocs, h);
		bool have_order = false;
		for (int i = 3; i < ntok; i++) {
			if ((v = kv(tok[i], "order"))) {
				if (!parse_u64(v, &x) || x > ps->prog->cfg.max_order)
					PERR(ps, "order must be 0..%u", ps->prog->cfg.max_order);
				op.order = (uint8_t)x;
				have_order = true;
			} else if ((v = kv(tok[i], "gfp"))) {
				unsigned int gfp;
				if (parse_gfp(ps, v, &gfp))
					return -1;
				op.gfp = (uint16_t)gfp;
			} else if ((v = kv(tok[i], "node"))) {
				if (!parse_u64(v, &x) || x >= ps->prog->cfg.nr_nodes)
					PERR(ps, "node must be 0..%u", ps->prog->cfg.nr_nodes - 1);
				op.node = (int16_t)x;
			} else {
				PERR(ps, "unknown alloc argument '%s'", tok[i]);
			}
		}
		if (!have_order)
			PERR(ps, "alloc needs order=K");
	} else if (!strcmp(tok[1], "free")) {
		op.kind = MM_OP_FREE;
		if (ntok != 3 || parse_handle(ps, tok[2], &op.arg) || mark_freed(ps, op.arg))
			return -1;
	} else if (!strcmp(tok[1], "offline") || !strcmp(tok[1], "online")) {
		op.kind = tok[1][1] == 'f' ? MM_OP_CPU_OFFLINE : MM_OP_CPU_ONLINE;
		if (ntok != 2)
			PERR(ps, "%s takes no arguments", tok[1]);
	} else if (!strcmp(tok[1], "sysctl")) {
		if (ntok != 3)
			PERR(ps, "expected 'cpuN sysctl NAME=VALUE'");
		if ((v = kv(tok[2], "min_free_kbytes"))) {
			op.kind = MM_OP_SET_MIN_FREE_KBYTES;
			if (!parse_u64(v, &x) || x > 0xffff)
				PERR(ps, "min_free_kbytes must be 0..65535");
		} else if ((v = kv(tok[2], "watermark_scale_factor"))) {
			op.kind = MM_OP_SET_WSF;
			if (!parse_u64(v, &x) || x < 1 || x > 3000)
				PERR(ps, "watermark_scale_factor must be 1..3000");
		} else if ((v = kv(tok[2], "percpu_pagelist_high_fraction"))) {
			op.kind = MM_OP_SET_HIGH_FRACTION;
			if (!parse_u64(v, &x) || (x && x < 8) || x > UINT32_MAX)
				PERR(ps, "percpu_pagelist_high_fraction must be 0 or at least 8");
		} else if ((v = kv(tok[2], "overcommit_memory"))) {
			op.kind = MM_OP_SET_OVERCOMMIT;
			if (!parse_u64(v, &x) || x > MM_OVERCOMMIT_NEVER)
				PERR(ps, "overcommit_memory must be 0, 1 or 2");
		} else {
			PERR(ps, "unknown sysctl '%s'", tok[2]);
		}
		op.arg = (uint32_t)x;
	} else if (!strcmp(tok[1], "drain")) {
		op.kind = MM_OP_DRAIN_LOCAL;
		if (ntok == 3 && !strcmp(tok[2], "all"))
			op.kind = MM_OP_DRAIN_ALL;
		else if (ntok != 2)
			PERR(ps, "expected 'cpuN drain' or 'cpuN drain all'");
	} else if (!strcmp(tok[1], "deferred_init")) {
		if (ntok == 3 && !strcmp(tok[2], "complete")) {
			op.kind = MM_OP_DEFERRED_COMPLETE;
		} else {
			const char *n = ntok == 4 ? kv(tok[2], "node") : NULL;
			const char *b = ntok == 4 ? kv(tok[3], "pageblocks") : NULL;
			uint64_t y;
			if (!n || !b || !parse_u64(n, &x) || x >= ps->prog->cfg.nr_nodes ||
			    !parse_u64(b, &y) || y < 1 || y > 16)
				PERR(ps, "expected 'cpuN deferred_init node=N pageblocks=1..16' or "
					 "'cpuN deferred_init complete'");
			op.kind = MM_OP_DEFERRED_STEP;
			op.node = (int16_t)x;
			op.arg = (uint32_t)y;
		}
	} else if (!strcmp(tok[1], "pcp_disable") || !strcmp(tok[1], "pcp_enable")) {
		const char *n = ntok == 4 ? kv(tok[2], "node") : NULL;
		const char *z = ntok == 4 ? kv(tok[3], "zone") : NULL;
		int zt;
		if (!n || !z || !parse_u64(n, &x) || x >= ps->prog->cfg.nr_nodes)
			PERR(ps, "expected 'cpuN %s node=N zone=NAME'", tok[1]);
		for (zt = 0; zt < ZONE_DEVICE; zt++)
			if (!strcmp(z, mm_zone_name(zt)))
				break;
		if (zt == ZONE_DEVICE)
			PERR(ps, "unknown zone '%s'", z);
		op.kind = tok[1][4] == 'd' ? MM_OP_PCP_DISABLE : MM_OP_PCP_ENABLE;
		op.node = (int16_t)x;
		op.arg = (uint32_t)zt;
	} else if (!strncmp(tok[1], "vmstat_", 7) || !strncmp(tok[1], "kswapd_", 7)) {
		if (parse_vmstat_op(ps, tok, ntok, &op))
			return -1;
	} else {
		char why[200];
		int ret = _mm_parse_compaction_op(tok, ntok, &ps->prog->cfg, &op, why, sizeof(why));
		if (ret < 0)
			PERR(ps, "%s", why);
		if (ret && parse_counter_op(ps, tok, ntok, &op))
			return -1;
	}
push:
	if (mm_prog_push(ps->prog, &op))
		PERR(ps, "out of memory");
	return 0;
}

static int parse_line(struct parser *ps, char *line)
{
	char *tok[16];
	int ntok = 0;
	char *hash = strchr(line, '#');

	if (hash)
		*hash = '\0';
	for (char *save = NULL, *t = strtok_r(line, " \t\r", &save); t;
	     t = strtok_r(NULL, " \t\r", &save)) {
		if (ntok == 16)
			PERR(ps, "too many words");
		tok[ntok++] = t;
	}
	if (!ntok)
		return 0;
	if (!strcmp(tok[0], "config"))
		return parse_config(ps, tok, ntok);
	if (!strcmp(tok[0], "zone"))
		return parse_zone(ps, tok, ntok);
	return parse_op(ps, tok, ntok);
}

int mm_parse_prog(const char *text, struct mm_prog *out, char *err, size_t errlen)
{
	struct parser ps = {.prog = out, .err = err, .errlen = errlen};
	char cfgerr[160];
	int ret = 0;

	mm_prog_free(out);
	for (const char *s = text; *s;) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s);
		char *line = malloc(n + 1);
		if (!line) {
			snprintf(err, errlen, "out of memory");
			ret = -1;
			break;
		}
		memcpy(line, s, n);
		line[n] = '\0';
		ps.line++;
		ret = parse_line(&ps, line);
		free(line);
		if (ret)
			break;
		s += n + (nl ? 1 : 0);
	}
	if (!ret && !ps.have_zone) {
		snprintf(err, errlen, "line %u: no config and zone lines", ps.line);
		ret = -1;
	}
	if (!ret && mm_config_validate(&out->cfg, cfgerr, sizeof(cfgerr))) {
		snprintf(err, errlen, "config: %s", cfgerr);
		ret = -1;
	}
	free(ps.freed);
	return ret;
}
