/* SPDX-License-Identifier: MIT */
/*
 * ops_compaction.c - the text form of the compaction ops (seed 001), which
 * src/ops_text.c hands over:
 *
 *   cpuN compact node=N zone=NAME order=K prio=P mode=M mt=T
 *   cpuN kcompactd node=N order=K
 *   cpuN reset_skip node=N
 *   cpuN fill [node=N] zone=NAME order=K pages=P unmovable_every=U busy_every=B
 *   cpuN free_pattern every=E offset=O
 *
 * P: async, sync_light, sync_full (MIN_COMPACT_PRIORITY: ignores the skip
 * bits); M: async, sync_light, sync; T: unmovable, movable. The
 * allocation that may direct-compact is an alloc with gfp=...|COMPACT.
 */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const prio_names[MM_COMPACT_NR_PRIOS] = {"sync_full", "sync_light", "async"};
static const char *const mode_names[MM_MIGRATE_NR_MODES] = {"async", "sync_light", "sync"};

/* Returns true if it printed op (a compaction op). */
bool _mm_print_compaction_op(FILE *f, const struct mm_op *op)
{
	switch (op->kind) {
	case MM_OP_COMPACT:
		fprintf(f, "cpu%u compact node=%d zone=%s order=%u prio=%s mode=%s mt=%s", op->cpu,
			op->node, mm_zone_name((enum zone_type)op->arg), op->order,
			prio_names[(op->gfp & 3) % MM_COMPACT_NR_PRIOS],
			mode_names[((op->gfp >> 2) & 3) % MM_MIGRATE_NR_MODES],
			(op->gfp >> 4) == MIGRATE_MOVABLE ? "movable" : "unmovable");
		return true;
	case MM_OP_KCOMPACTD:
		fprintf(f, "cpu%u kcompactd node=%d order=%u", op->cpu, op->node, op->order);
		return true;
	case MM_OP_RESET_SKIP:
		fprintf(f, "cpu%u reset_skip node=%d", op->cpu, op->node);
		return true;
	case MM_OP_FILL:
		fprintf(f, "cpu%u fill", op->cpu);
		if (op->node >= 0)
			fprintf(f, " node=%d", op->node);
		fprintf(f, " zone=%s order=%u pages=%u unmovable_every=%u busy_every=%u",
			mm_zone_name((enum zone_type)((op->arg >> 16) & 3)), op->order,
			op->arg & 0xffff, op->gfp & 0xff, op->gfp >> 8);
		return true;
	case MM_OP_FREE_PATTERN:
		fprintf(f, "cpu%u free_pattern every=%u offset=%u", op->cpu, op->arg, op->order);
		return true;
	default:
		return false;
	}
}

/* Every key=value of tok[2..ntok) must be one of keys; vals[i] gets key i's value. */
static int take_keys(char **tok, int ntok, const char *const *keys, int nkeys, const char **vals,
		     char *why, size_t whylen)
{
	for (int k = 0; k < nkeys; k++)
		vals[k] = NULL;
	for (int i = 2; i < ntok; i++) {
		char *eq = strchr(tok[i], '=');
		int k;
		for (k = 0; eq && k < nkeys; k++)
			if (strlen(keys[k]) == (size_t)(eq - tok[i]) &&
			    !strncmp(tok[i], keys[k], (size_t)(eq - tok[i])))
				break;
		if (!eq || k == nkeys) {
			snprintf(why, whylen, "unknown %s argument '%s'", tok[1], tok[i]);
			return -1;
		}
		vals[k] = eq + 1;
	}
	return 0;
}

static bool num(const char *s, unsigned long lo, unsigned long hi, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (!s || !*s || *s == '-' || *s == '+')
		return false;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

static int name_index(const char *s, const char *const *names, int n)
{
	for (int i = 0; s && i < n; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

static int zone_index(const char *s)
{
	for (int zt = 0; s && zt < ZONE_DEVICE; zt++)
		if (!strcmp(s, mm_zone_name((enum zone_type)zt)))
			return zt;
	return -1;
}

#define FAIL(...)                                                                                  \
	do {                                                                                       \
		snprintf(why, whylen, __VA_ARGS__);                                                \
		return -1;                                                                         \
	} while (0)

static int parse_compact(char **tok, int ntok, const struct mm_config *cfg, struct mm_op *op,
			 char *why, size_t whylen)
{
	static const char *const keys[] = {"node", "zone", "order", "prio", "mode", "mt"};
	static const char *const mts[] = {"unmovable", "movable"};
	const char *v[6];
	unsigned long node, order;
	int zt, prio, mode, mt;

	if (take_keys(tok, ntok, keys, 6, v, why, whylen))
		return -1;
	zt = zone_index(v[1]);
	prio = name_index(v[3], prio_names, MM_COMPACT_NR_PRIOS);
	mode = name_index(v[4], mode_names, MM_MIGRATE_NR_MODES);
	mt = name_index(v[5], mts, 2);
	if (!num(v[0], 0, cfg->nr_nodes - 1, &node) || zt < 0 ||
	    !num(v[2], 0, cfg->max_order, &order) || prio < 0 || mode < 0 || mt < 0)
		FAIL("expected 'cpuN compact node=N zone=NAME order=0..%u "
		     "prio=async|sync_light|sync_full mode=async|sync_light|sync "
		     "mt=unmovable|movable'",
		     cfg->max_order);
	op->kind = MM_OP_COMPACT;
	op->node = (int16_t)node;
	op->arg = (uint32_t)zt;
	op->order = (uint8_t)order;
	op->gfp = (uint16_t)(prio | mode << 2 | (mt ? MIGRATE_MOVABLE : MIGRATE_UNMOVABLE) << 4);
	return 0;
}

static int parse_fill(char **tok, int ntok, const struct mm_config *cfg, struct mm_op *op,
		      char *why, size_t whylen)
{
	static const char *const keys[] = {"node",	"zone", "order", "pages", "unmovable_every",
					   "busy_every"};
	const char *v[6];
	unsigned long node = 0, order, pages, ue, be;
	int zt;

	if (take_keys(tok, ntok, keys, 6, v, why, whylen))
		return -1;
	zt = zone_index(v[1]);
	if ((v[0] && !num(v[0], 0, cfg->nr_nodes - 1, &node)) || zt < 0 ||
	    !num(v[2], 0, cfg->max_order < 3 ? cfg->max_order : 3, &order) ||
	    !num(v[3], 1, 256, &pages) || !num(v[4], 0, 15, &ue) || !num(v[5], 0, 15, &be))
		FAIL("expected 'cpuN fill [node=N] zone=NAME order=0..3 pages=1..256 "
		     "unmovable_every=0..15 busy_every=0..15'");
	op->kind = MM_OP_FILL;
	op->node = v[0] ? (int16_t)node : -1;
	op->order = (uint8_t)order;
	op->arg = (uint32_t)pages | (uint32_t)zt << 16;
	op->gfp = (uint16_t)(ue | be << 8);
	return 0;
}

/*
 * Parses tok (tok[0] the CPU, tok[1] the op name) into op if it names a
 * compaction op. Returns 0 when it did, 1 when tok is not a compaction op,
 * -1 with a reason in why.
 */
int _mm_parse_compaction_op(char **tok, int ntok, const struct mm_config *cfg, struct mm_op *op,
			    char *why, size_t whylen)
{
	static const char *const node_order[] = {"node", "order"};
	static const char *const pattern[] = {"every", "offset"};
	const char *v[2];
	unsigned long a, b;

	if (!strcmp(tok[1], "compact"))
		return parse_compact(tok, ntok, cfg, op, why, whylen);
	if (!strcmp(tok[1], "fill"))
		return parse_fill(tok, ntok, cfg, op, why, whylen);
	if (!strcmp(tok[1], "kcompactd")) {
		if (take_keys(tok, ntok, node_order, 2, v, why, whylen))
			return -1;
		if (!num(v[0], 0, cfg->nr_nodes - 1, &a) || !num(v[1], 0, cfg->max_order, &b))
			FAIL("expected 'cpuN kcompactd node=N order=0..%u'", cfg->max_order);
		op->kind = MM_OP_KCOMPACTD;
		op->node = (int16_t)a;
		op->order = (uint8_t)b;
		return 0;
	}
	if (!strcmp(tok[1], "reset_skip")) {
		if (take_keys(tok, ntok, node_order, 1, v, why, whylen))
			return -1;
		if (!num(v[0], 0, cfg->nr_nodes - 1, &a))
			FAIL("expected 'cpuN reset_skip node=N'");
		op->kind = MM_OP_RESET_SKIP;
		op->node = (int16_t)a;
		return 0;
	}
	if (!strcmp(tok[1], "free_pattern")) {
		if (take_keys(tok, ntok, pattern, 2, v, why, whylen))
			return -1;
		if (!num(v[0], 1, 16, &a) || !num(v[1], 0, a - 1, &b))
			FAIL("expected 'cpuN free_pattern every=1..16 offset=0..every-1'");
		op->kind = MM_OP_FREE_PATTERN;
		op->arg = (uint32_t)a;
		op->order = (uint8_t)b;
		return 0;
	}
	return 1;
}
