/* SPDX-License-Identifier: MIT */
/*
 * ops_text.c - the text form of the operation language: one op per line,
 * so a crash prints as a readable trace and regressions are stored as text
 * that outlives changes of the binary encoding. mm_print_prog() writes the
 * canonical form; mm_parse_prog() reads it back (plus comments, blank lines
 * and gfp aliases such as KERNEL). The machine's lines are here; an op's
 * line follows its row of the op table (src/op_line.c).
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

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

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
	if (cfg->cache_slice_kb)
		fprintf(f, " cache_slice_kb=%u", cfg->cache_slice_kb);
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

/* handle: the allocation number of an ALLOC op */
static void print_op(FILE *f, const struct mm_op *op, unsigned int handle)
{
	char line[512];

	mm_format_op(op, handle, line, sizeof(line));
	fprintf(f, "%s\n", line);
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

/* Splits "key=value"; returns the value or NULL when the key differs. */
static const char *kv(const char *tok, const char *key)
{
	size_t n = strlen(key);

	return !strncmp(tok, key, n) && tok[n] == '=' ? tok + n + 1 : NULL;
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
				if (n >= MM_MAX_NODES || !_mm_parse_u64(t, &x) || x > MM_MAX_CPUS)
					PERR(ps, "bad cpus list '%s'", v);
				cfg->cpus_per_node[n++] = (unsigned int)x;
			}
			if (n == 1)
				for (unsigned int k = 1; k < MM_MAX_NODES; k++)
					cfg->cpus_per_node[k] = cfg->cpus_per_node[0];
			continue;
		}
		if ((v = kv(tok[i], "deferred_init_pages"))) {
			if (!_mm_parse_u64(v, &x) || x > UINT32_MAX)
				PERR(ps, "bad number in '%s'", tok[i]);
			cfg->deferred_init_pages = x;
			continue;
		}
		const char *keys[] = {"nodes",
				      "max_order",
				      "pageblock_order",
				      "min_free_kbytes",
				      "watermark_scale_factor",
				      "high_fraction",
				      "cache_slice_kb"};
		unsigned int *dst[] = {&cfg->nr_nodes,
				       &cfg->max_order,
				       &cfg->pageblock_order,
				       &cfg->min_free_kbytes,
				       &cfg->watermark_scale_factor,
				       &cfg->percpu_pagelist_high_fraction,
				       &cfg->cache_slice_kb};
		size_t k;
		for (k = 0; k < ARRAY_SIZE(keys); k++)
			if ((v = kv(tok[i], keys[k])))
				break;
		if (k == ARRAY_SIZE(keys))
			PERR(ps, "unknown config field '%s'", tok[i]);
		if (!_mm_parse_u64(v, &x) || x > UINT32_MAX)
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
	if (ntok != 7 || !_mm_parse_u64(tok[1], &node) || node >= cfg->nr_nodes)
		PERR(ps, "expected 'zone NODE NAME start= spanned= present= managed='");
	for (zt = 0; zt < MAX_NR_ZONES; zt++)
		if (!strcmp(tok[2], mm_zone_name(zt)))
			break;
	if (zt == MAX_NR_ZONES)
		PERR(ps, "unknown zone '%s'", tok[2]);
	for (int i = 0; i < 4; i++) {
		const char *v = kv(tok[3 + i], keys[i]);
		if (!v || !_mm_parse_u64(v, &vals[i]))
			PERR(ps, "expected %s=NUMBER, got '%s'", keys[i], tok[3 + i]);
	}
	cfg->zones[node][zt] = (struct mm_zone_config){vals[0], vals[1], vals[2], vals[3]};
	ps->have_zone = true;
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

static int parse_op(struct parser *ps, char **tok, int ntok)
{
	struct mm_op op;
	char why[200];
	int ret;

	if (!ps->have_zone)
		PERR(ps, "ops must follow a config line and its zone lines");
	if (_mm_parse_op_words(tok, ntok, &ps->prog->cfg, ps->prog->nr_allocs, &op, why,
			       sizeof(why)))
		PERR(ps, "%s", why);
	if (op.kind == MM_OP_FREE && (ret = mark_freed(ps, op.free.handle)))
		return ret;
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
