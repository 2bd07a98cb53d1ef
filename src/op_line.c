/* SPDX-License-Identifier: MIT */
/*
 * op_line.c - one op's trace line, formatted and parsed from its row of
 * the op table (src/op_table.c), so every op has the same grammar:
 *
 *   cpuN VERB [TAG] key=value ...
 *
 * with the arguments in any order. An argument whose value says what it
 * is may drop its key, and the canonical form drops it: a handle "a3"
 * (handle=a3), a counter "c0", an mm "m1", a flag "admin". Kinds that
 * share a verb differ by their keys ("sysctl min_free_kbytes=N") or a tag
 * word ("drain all", "deferred_init complete").
 */
#include "internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

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

/* An snprintf that appends: o->n counts what was wanted, as snprintf does. */
struct out {
	char *buf;
	size_t len;
	size_t n;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	size_t at = o->n < o->len ? o->n : o->len;
	int r;

	va_start(ap, fmt);
	r = vsnprintf(o->buf + at, o->len - at, fmt, ap);
	va_end(ap);
	if (r > 0)
		o->n += (size_t)r;
}

static void put_gfp(struct out *o, unsigned int gfp)
{
	bool first = true;

	if (!gfp)
		put(o, "0");
	for (size_t i = 0; i < ARRAY_SIZE(gfp_bits); i++) {
		if (!(gfp & gfp_bits[i].bits))
			continue;
		put(o, "%s%s", first ? "" : "|", gfp_bits[i].name);
		first = false;
	}
}

static int64_t field_get(const struct mm_op *op, const struct mm_op_field *f)
{
	const uint8_t *p = (const uint8_t *)op + f->off;
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;

	switch (f->size) {
	case 1:
		memcpy(&u8, p, 1);
		return f->is_signed ? (int64_t)(int8_t)u8 : u8;
	case 2:
		memcpy(&u16, p, 2);
		return f->is_signed ? (int64_t)(int16_t)u16 : u16;
	case 4:
		memcpy(&u32, p, 4);
		return f->is_signed ? (int64_t)(int32_t)u32 : u32;
	default:
		return 0;
	}
}

static void field_set(struct mm_op *op, const struct mm_op_field *f, int64_t v)
{
	uint8_t *p = (uint8_t *)op + f->off;
	uint8_t u8 = (uint8_t)v;
	uint16_t u16 = (uint16_t)v;
	uint32_t u32 = (uint32_t)v;

	if (f->size == 1)
		memcpy(p, &u8, 1);
	else if (f->size == 2)
		memcpy(p, &u16, 2);
	else if (f->size == 4)
		memcpy(p, &u32, 4);
}

static const char *verb_of(const struct mm_op_desc *d)
{
	return d->verb ? d->verb : d->name;
}

int mm_format_op(const struct mm_op *op, uint32_t handle, char *buf, size_t len)
{
	struct out o = {buf, len, 0};
	const struct mm_op_desc *d;

	if (len)
		buf[0] = '\0';
	if (op->kind >= MM_NR_OP_KINDS) {
		put(&o, "# unknown op kind %u", op->kind);
		return (int)o.n;
	}
	d = &mm_op_descs[op->kind];
	if (!d->no_cpu)
		put(&o, "cpu%u ", op->cpu);
	put(&o, "%s", verb_of(d));
	if (d->tag)
		put(&o, " %s", d->tag);
	for (unsigned int i = 0; i < d->nr_fields; i++) {
		const struct mm_op_field *f = &d->fields[i];
		int64_t v = field_get(op, f);

		if (f->hide_dflt && v == f->dflt)
			continue;
		v -= f->bias;
		put(&o, " ");
		if (!f->bare)
			put(&o, "%s=", f->key);
		switch (f->type) {
		case MM_FIELD_HANDLE:
			put(&o, "a%lld", f->size ? (long long)v : (long long)handle);
			break;
		case MM_FIELD_INDEX:
			put(&o, "%c%lld", f->prefix, (long long)v);
			break;
		case MM_FIELD_FLAG:
			put(&o, "%s", f->key);
			break;
		case MM_FIELD_ZONE:
			put(&o, "%s", mm_zone_name((enum zone_type)v));
			break;
		case MM_FIELD_ENUM:
			if (v >= 0 && v < f->nr_names)
				put(&o, "%s", f->names[v]);
			else
				put(&o, "%lld", (long long)v);
			break;
		case MM_FIELD_GFP:
			put_gfp(&o, (unsigned int)v);
			break;
		default:
			put(&o, "%lld", (long long)v);
			break;
		}
	}
	return (int)o.n;
}

/* The largest value a field takes on cfg's machine */
static int64_t field_max(const struct mm_op_field *f, const struct mm_config *cfg)
{
	switch (f->type) {
	case MM_FIELD_NODE:
		return cfg ? (int64_t)cfg->nr_nodes - 1 : MM_MAX_NODES - 1;
	case MM_FIELD_ORDER:
		return cfg && cfg->max_order < f->max ? cfg->max_order : f->max;
	case MM_FIELD_ZONE:
		return ZONE_DEVICE - 1;
	case MM_FIELD_ENUM:
		return f->nr_names - 1;
	default:
		return f->max;
	}
}

/* What a field takes, as "0..10", "a|b|c" or "c0..c15"; in a usage line a node is "N" */
static void put_range(struct out *o, const struct mm_op_field *f, const struct mm_config *cfg,
		      bool usage)
{
	switch (f->type) {
	case MM_FIELD_NODE:
		if (usage)
			put(o, "N");
		else
			put(o, "0..%lld", (long long)field_max(f, cfg));
		break;
	case MM_FIELD_ZONE:
		put(o, "NAME");
		break;
	case MM_FIELD_GFP:
		put(o, "FLAGS");
		break;
	case MM_FIELD_HANDLE:
		put(o, "aN");
		break;
	case MM_FIELD_FLAG:
		put(o, "%s", f->key);
		break;
	case MM_FIELD_ENUM:
		for (unsigned int i = 0; i < f->nr_names; i++)
			put(o, "%s%s", i ? "|" : "", f->names[i]);
		break;
	case MM_FIELD_INDEX:
		put(o, "%c%lld..%c%lld", f->prefix, (long long)f->min, f->prefix,
		    (long long)f->max);
		break;
	default:
		put(o, "%lld..%lld", (long long)f->min, (long long)field_max(f, cfg));
		break;
	}
}

int _mm_op_usage(const struct mm_op_desc *d, const struct mm_config *cfg, char *buf, size_t len)
{
	struct out o = {buf, len, 0};

	if (len)
		buf[0] = '\0';
	put(&o, "%s%s", d->no_cpu ? "" : "cpuN ", verb_of(d));
	if (d->tag)
		put(&o, " %s", d->tag);
	for (unsigned int i = 0; i < d->nr_fields; i++) {
		const struct mm_op_field *f = &d->fields[i];
		put(&o, " %s", f->optional ? "[" : "");
		if (!f->bare)
			put(&o, "%s=", f->key);
		put_range(&o, f, cfg, true);
		if (f->optional)
			put(&o, "]");
	}
	return (int)o.n;
}

int mm_op_usage(unsigned int kind, char *buf, size_t len)
{
	if (kind >= MM_NR_OP_KINDS)
		return snprintf(buf, len, "?");
	return _mm_op_usage(&mm_op_descs[kind], NULL, buf, len);
}

bool _mm_parse_u64(const char *s, uint64_t *v)
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

/* A gfp mask: flag names and aliases joined by '|', or a number. NULL, or the reason. */
static const char *parse_gfp(const char *s, unsigned int *gfp, char *why, size_t whylen)
{
	char buf[256];
	uint64_t v;

	*gfp = 0;
	if (_mm_parse_u64(s, &v)) {
		if (v & ~(uint64_t)(MM_GFP_ALL | MM_GFP_COMPACT)) {
			snprintf(why, whylen, "gfp value %s has unknown bits", s);
			return why;
		}
		*gfp = (unsigned int)v;
		return NULL;
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
		if (i == ARRAY_SIZE(gfp_aliases)) {
			snprintf(why, whylen, "unknown gfp flag '%s'", t);
			return why;
		}
		*gfp |= gfp_aliases[i].bits;
	}
	return NULL;
}

/* A signed decimal (no "+", no base prefix) */
static bool parse_s64(const char *s, int64_t *v)
{
	uint64_t x;
	bool neg = *s == '-';

	if (!_mm_parse_u64(s + neg, &x) || x > INT64_MAX)
		return false;
	*v = neg ? -(int64_t)x : (int64_t)x;
	return true;
}

/* A field's value from its text; false when it is not one the field takes. */
static bool parse_value(const struct mm_op_field *f, const char *s, const struct mm_config *cfg,
			int64_t *v, char *why, size_t whylen)
{
	unsigned int gfp;
	int i;

	switch (f->type) {
	case MM_FIELD_GFP:
		if (parse_gfp(s, &gfp, why, whylen))
			return false;
		*v = gfp;
		return true;
	case MM_FIELD_ZONE:
		for (i = 0; i < ZONE_DEVICE; i++)
			if (!strcmp(s, mm_zone_name((enum zone_type)i)))
				break;
		if (i == ZONE_DEVICE) {
			snprintf(why, whylen, "unknown zone '%s'", s);
			return false;
		}
		*v = i;
		return true;
	case MM_FIELD_ENUM:
		for (i = 0; i < f->nr_names; i++)
			if (!strcmp(s, f->names[i]))
				break;
		*v = i;
		break;
	case MM_FIELD_FLAG:
		*v = !strcmp(s, "1") ? 1 : !strcmp(s, "0") ? 0 : -1;
		break;
	case MM_FIELD_HANDLE:
	case MM_FIELD_INDEX:
		if (*s != (f->type == MM_FIELD_HANDLE ? 'a' : f->prefix) || !parse_s64(s + 1, v) ||
		    s[1] == '-')
			*v = -1;
		if (f->type == MM_FIELD_HANDLE && *v >= 0 && *v <= UINT32_MAX)
			return true;
		break;
	default:
		if (!parse_s64(s, v))
			*v = f->min - 1;
		break;
	}
	if (*v >= f->min && *v <= field_max(f, cfg))
		return true;
	struct out o = {why, whylen, 0};
	put(&o, "%s must be ", f->key);
	put_range(&o, f, cfg, false);
	return false;
}

/* Does the line name d's tag, or, for a row without one, only keys d has? */
static bool row_fits(const struct mm_op_desc *d, char **args, int nargs)
{
	for (int i = 0; i < nargs; i++) {
		const char *eq = strchr(args[i], '=');
		unsigned int j;
		if (d->tag && !strcmp(args[i], d->tag))
			return true;
		if (d->tag || !eq)
			continue;
		for (j = 0; j < d->nr_fields; j++)
			if (strlen(d->fields[j].key) == (size_t)(eq - args[i]) &&
			    !strncmp(args[i], d->fields[j].key, (size_t)(eq - args[i])))
				break;
		if (j == d->nr_fields)
			return false;
	}
	return !d->tag;
}

/* The row a line means: its verb's, picked by a tag word or by the keys given */
static const struct mm_op_desc *pick_row(const char *verb, char **args, int nargs)
{
	const struct mm_op_desc *first = NULL;

	/* the rows with a tag first: "drain all" is not "drain" with an odd argument */
	for (int tagged = 1; tagged >= 0; tagged--) {
		for (unsigned int k = 0; k < MM_NR_OP_KINDS; k++) {
			const struct mm_op_desc *d = &mm_op_descs[k];
			if (!d->tag != !tagged || strcmp(verb_of(d), verb))
				continue;
			if (row_fits(d, args, nargs))
				return d;
			if (!first && !d->tag)
				first = d;
		}
	}
	return first;
}

/* The field a word sets, and its value's text */
static const struct mm_op_field *field_of(const struct mm_op_desc *d, const char *word,
					  const char **val)
{
	const char *eq = strchr(word, '=');

	for (unsigned int j = 0; j < d->nr_fields; j++) {
		const struct mm_op_field *f = &d->fields[j];
		size_t n = strlen(f->key);
		if (eq && (size_t)(eq - word) == n && !strncmp(word, f->key, n)) {
			*val = eq + 1;
			return f;
		}
		if (eq || !f->bare)
			continue;
		if (f->type == MM_FIELD_FLAG && !strcmp(word, f->key)) {
			*val = "1";
			return f;
		}
		if ((f->type == MM_FIELD_HANDLE ? 'a' : f->prefix) == word[0] &&
		    f->type != MM_FIELD_FLAG && isdigit((unsigned char)word[1])) {
			*val = word;
			return f;
		}
	}
	return NULL;
}

#define FAIL(...)                                                                                  \
	do {                                                                                       \
		snprintf(why, whylen, __VA_ARGS__);                                                \
		return -1;                                                                         \
	} while (0)

int _mm_parse_op_words(char **tok, int ntok, const struct mm_config *cfg, uint32_t next_alloc,
		       struct mm_op *op, char *why, size_t whylen)
{
	const struct mm_op_desc *d;
	uint32_t seen = 0;
	uint64_t x;
	int at = 0;
	char usage[200];

	memset(op, 0, sizeof(*op));
	if (!strncmp(tok[0], "cpu", 3)) {
		if (!_mm_parse_u64(tok[0] + 3, &x))
			FAIL("expected cpuN, got '%s'", tok[0]);
		if (x >= mm_config_nr_cpus(cfg))
			FAIL("cpu%llu does not exist (the machine has %u CPUs)",
			     (unsigned long long)x, mm_config_nr_cpus(cfg));
		op->cpu = (uint16_t)x;
		at = 1;
		if (ntok < 2)
			FAIL("expected 'cpuN OP ...'");
	}
	d = pick_row(tok[at], tok + at + 1, ntok - at - 1);
	if (!d)
		FAIL("unknown op '%s'", tok[at]);
	if (d->no_cpu != !at)
		FAIL(at ? "%s takes no cpuN" : "expected cpuN, got '%s'", tok[at]);
	_mm_op_usage(d, cfg, usage, sizeof(usage));
	op->kind = (uint8_t)(d - mm_op_descs);
	for (unsigned int j = 0; j < d->nr_fields; j++)
		if (d->fields[j].optional)
			field_set(op, &d->fields[j], d->fields[j].dflt);
	for (int i = at + 1; i < ntok; i++) {
		const struct mm_op_field *f;
		const char *val;
		int64_t v;
		char bad[160];

		if (d->tag && !strcmp(tok[i], d->tag) && !(seen & 1u << 31)) {
			seen |= 1u << 31;
			continue;
		}
		f = field_of(d, tok[i], &val);
		if (!f)
			FAIL("unknown %s argument '%s'", verb_of(d), tok[i]);
		if (seen & 1u << (f - d->fields))
			FAIL("%s given twice", f->key);
		seen |= 1u << (f - d->fields);
		if (!parse_value(f, val, cfg, &v, bad, sizeof(bad)))
			FAIL("%s (expected '%s')", bad, usage);
		if (f->type == MM_FIELD_HANDLE && !f->size && v != next_alloc)
			FAIL("allocation handles are numbered in order: expected a%u, got a%lld",
			     next_alloc, (long long)v);
		field_set(op, f, v + f->bias);
	}
	for (unsigned int j = 0; j < d->nr_fields; j++)
		if (!d->fields[j].optional && !(seen & 1u << j))
			FAIL("%s needs %s (expected '%s')", verb_of(d), d->fields[j].key, usage);
	const char *bad = d->validate ? d->validate(op, cfg) : NULL;
	if (bad)
		FAIL("%s (expected '%s')", bad, usage);
	return 0;
}
