/* SPDX-License-Identifier: MIT */
/*
 * zoneinfo.c - a real machine's shape: reads /proc/zoneinfo into a
 * struct mm_config, and prints the model's zones back in the same layout, so
 * the model's watermarks and reserves can be put beside the kernel's.
 */
#include "internal.h"

#include <string.h>

/* ------------------------------------------------------------------------
 * Reading
 * ---------------------------------------------------------------------- */

enum zi_field {
	ZI_SPANNED,
	ZI_PRESENT,
	ZI_MANAGED,
	ZI_START_PFN,
	ZI_MIN, /* the marks: read for INV-ZONEINFO-STALE-MANAGED only */
	ZI_LOW,
	ZI_HIGH,
	ZI_NR_FIELDS
};

/* The keys as zoneinfo_show_print() spells them, colon included. */
static const char *const zi_field_keys[ZI_NR_FIELDS] = {
	"spanned", "present", "managed", "start_pfn:", "min", "low", "high"};

struct zi_zone {
	unsigned int header_line; /* 0: no header seen */
	unsigned int field_line[ZI_NR_FIELDS];
	uint64_t val[ZI_NR_FIELDS];
};

struct zi_parser {
	struct zi_zone zones[MM_MAX_NODES][MAX_NR_ZONES];
	struct zi_zone *cur; /* the zone whose lines follow, NULL before the first header */
	char *err;
	size_t errlen;
};

static int zi_error(struct zi_parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int zi_error(struct zi_parser *p, const char *fmt, ...)
{
	va_list ap;

	if (p->err && p->errlen) {
		va_start(ap, fmt);
		vsnprintf(p->err, p->errlen, fmt, ap);
		va_end(ap);
	}
	return MM_ZONEINFO_EBADTEXT;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static const char *skip_blanks(const char *s, const char *end)
{
	while (s < end && is_blank(*s))
		s++;
	return s;
}

/* The token at s: up to the next blank or the end of the line. */
static size_t token_len(const char *s, const char *end)
{
	size_t n = 0;

	while (s + n < end && !is_blank(s[n]))
		n++;
	return n;
}

static bool token_is(const char *s, size_t len, const char *word)
{
	return len == strlen(word) && !memcmp(s, word, len);
}

/*
 * Decimal digits only: zoneinfo prints every field we read with %lu, so a
 * sign, a base prefix or a fraction means the text is not what we think.
 */
static bool parse_u64(const char **sp, const char *end, uint64_t *out)
{
	const char *s = *sp;
	uint64_t v = 0;

	if (s == end || *s < '0' || *s > '9')
		return false;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		unsigned int d = (unsigned int)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*sp = s;
	*out = v;
	return true;
}

/* "Node N, zone NAME", NAME right-aligned in 8 columns by the kernel. */
static int parse_header(struct zi_parser *p, unsigned int lineno, const char *s, const char *end)
{
	uint64_t node;
	size_t n;
	int zt;

	s += strlen("Node");
	if (s == end || !is_blank(*s))
		goto malformed;
	s = skip_blanks(s, end);
	if (!parse_u64(&s, end, &node) || s == end || *s != ',')
		goto malformed;
	s = skip_blanks(s + 1, end);
	n = token_len(s, end);
	if (!token_is(s, n, "zone"))
		goto malformed;
	s = skip_blanks(s + n, end);
	n = token_len(s, end);
	if (!n || skip_blanks(s + n, end) != end)
		goto malformed;

	for (zt = 0; zt < MAX_NR_ZONES; zt++)
		if (token_is(s, n, mm_zone_name(zt)))
			break;
	if (zt == MAX_NR_ZONES)
		return zi_error(p,
				"line %u: unknown zone '%.*s' (the model has DMA, DMA32, Normal, "
				"Movable, Device)",
				lineno, (int)(n > 32 ? 32 : n), s);
	if (node >= MM_MAX_NODES)
		return zi_error(p, "line %u: node %llu is beyond the model's %d nodes", lineno,
				(unsigned long long)node, MM_MAX_NODES);

	p->cur = &p->zones[node][zt];
	if (p->cur->header_line)
		return zi_error(p, "line %u: node %llu zone %s appears twice (first at line %u)",
				lineno, (unsigned long long)node, mm_zone_name(zt),
				p->cur->header_line);
	p->cur->header_line = lineno;
	return 0;

malformed:
	return zi_error(p, "line %u: malformed zone header (expected \"Node N, zone NAME\")",
			lineno);
}

static int parse_field(struct zi_parser *p, unsigned int lineno, enum zi_field f, const char *s,
		       const char *end)
{
	uint64_t v;

	s = skip_blanks(s + strlen(zi_field_keys[f]), end);
	if (!parse_u64(&s, end, &v) || skip_blanks(s, end) != end)
		return zi_error(p, "line %u: '%s' needs one decimal number", lineno,
				zi_field_keys[f]);
	if (!p->cur)
		return zi_error(p, "line %u: '%s' before any \"Node N, zone NAME\" line", lineno,
				zi_field_keys[f]);
	if (p->cur->field_line[f])
		return zi_error(p, "line %u: a second '%s' line in the zone of line %u", lineno,
				zi_field_keys[f], p->cur->header_line);
	p->cur->field_line[f] = lineno;
	p->cur->val[f] = v;
	return 0;
}

static int parse_line(struct zi_parser *p, unsigned int lineno, const char *line, const char *end)
{
	const char *s = skip_blanks(line, end);
	size_t n = token_len(s, end);

	if (!n)
		return 0;
	if (token_is(s, n, "Node"))
		return parse_header(p, lineno, s, end);
	/* Whatever precedes the first zone is not zoneinfo: say so where it starts. */
	if (!p->cur)
		return zi_error(p, "line %u: not a zoneinfo line (expected \"Node N, zone NAME\")",
				lineno);
	for (int f = 0; f < ZI_NR_FIELDS; f++)
		if (token_is(s, n, zi_field_keys[f]))
			return parse_field(p, lineno, f, s, end);
	/* Stats, pagesets and the like: the model computes its own. */
	return 0;
}

/* Moves the parsed zones into cfg, checking each against its header line. */
static int zi_fill_zones(struct zi_parser *p, struct mm_config *cfg)
{
	unsigned int nr_nodes = 0;

	for (unsigned int n = 0; n < MM_MAX_NODES; n++)
		for (int zt = 0; zt < MAX_NR_ZONES; zt++)
			if (p->zones[n][zt].header_line)
				nr_nodes = n + 1;
	if (!nr_nodes)
		return zi_error(p, "no zones: not a zoneinfo (no \"Node N, zone NAME\" line)");

	for (unsigned int n = 0; n < nr_nodes; n++) {
		bool seen = false;

		for (int zt = 0; zt < MAX_NR_ZONES; zt++) {
			const struct zi_zone *z = &p->zones[n][zt];
			struct mm_zone_config *zc = &cfg->zones[n][zt];

			if (!z->header_line)
				continue;
			seen = true;
			for (int f = ZI_SPANNED; f <= ZI_MANAGED; f++)
				if (!z->field_line[f])
					return zi_error(p,
							"line %u: node %u zone %s has no '%s' line",
							z->header_line, n, mm_zone_name(zt),
							zi_field_keys[f]);
			if (z->val[ZI_MANAGED] > z->val[ZI_PRESENT] ||
			    z->val[ZI_PRESENT] > z->val[ZI_SPANNED])
				return zi_error(p,
						"line %u: node %u zone %s: need managed <= present "
						"<= spanned",
						z->header_line, n, mm_zone_name(zt));
			/*
			 * The kernel prints no start_pfn for an unpopulated zone;
			 * holding no pages, it has nothing for the model to place.
			 */
			if (!z->val[ZI_PRESENT])
				continue;
			if (!z->field_line[ZI_START_PFN])
				return zi_error(p,
						"line %u: node %u zone %s has no 'start_pfn:' line",
						z->header_line, n, mm_zone_name(zt));
			zc->start_pfn = z->val[ZI_START_PFN];
			zc->spanned = z->val[ZI_SPANNED];
			zc->present = z->val[ZI_PRESENT];
			zc->managed = z->val[ZI_MANAGED];
		}
		/* The model numbers nodes 0..N-1, as a machine without offline nodes does. */
		if (!seen)
			return zi_error(p,
					"node %u has no zones but node %u has: nodes must be "
					"numbered 0..N-1",
					n, nr_nodes - 1);
	}
	cfg->nr_nodes = nr_nodes;
	return 0;
}

static int zi_place_cpus(struct zi_parser *p, unsigned int nr_cpus,
			 const unsigned int *cpus_per_node, unsigned int nr_cpus_per_node,
			 struct mm_config *cfg)
{
	unsigned int nr_nodes = cfg->nr_nodes;

	if (nr_cpus < 1 || nr_cpus > MM_MAX_CPUS) {
		zi_error(p, "the machine needs 1..%d CPUs, not %u", MM_MAX_CPUS, nr_cpus);
		return MM_ZONEINFO_ECPUS;
	}
	if (!cpus_per_node) {
		for (unsigned int n = 0; n < nr_nodes; n++)
			cfg->cpus_per_node[n] = nr_cpus / nr_nodes + (n < nr_cpus % nr_nodes);
		return 0;
	}
	if (nr_cpus_per_node != nr_nodes) {
		zi_error(p, "%u CPU counts for the %u node%s of the zoneinfo", nr_cpus_per_node,
			 nr_nodes, nr_nodes == 1 ? "" : "s");
		return MM_ZONEINFO_ECPUS;
	}
	uint64_t sum = 0;
	for (unsigned int n = 0; n < nr_nodes; n++)
		sum += cpus_per_node[n];
	if (sum != nr_cpus) {
		zi_error(p, "the CPU counts per node sum to %llu, not %u", (unsigned long long)sum,
			 nr_cpus);
		return MM_ZONEINFO_ECPUS;
	}
	for (unsigned int n = 0; n < nr_nodes; n++)
		cfg->cpus_per_node[n] = cpus_per_node[n];
	return 0;
}

/* Every line of text into p; 0, or the first line's error. */
static int zi_parse_text(struct zi_parser *p, const char *text)
{
	unsigned int lineno = 0;

	for (const char *line = text; *line;) {
		const char *end = strchr(line, '\n');
		int ret;

		if (!end)
			end = line + strlen(line);
		ret = parse_line(p, ++lineno, line, end);
		if (ret)
			return ret;
		line = *end ? end + 1 : end;
	}
	return 0;
}

int mm_config_from_zoneinfo(const char *text, unsigned int nr_cpus,
			    const unsigned int *cpus_per_node, unsigned int nr_cpus_per_node,
			    struct mm_config *cfg, char *err, size_t errlen)
{
	/* ~2 KB: on the stack, so a parse has no allocation that could fail. */
	struct zi_parser p = {.err = err, .errlen = errlen};
	int ret;

	if (err && errlen)
		err[0] = '\0';
	/* Fields to come keep their defaults; the ones documented are pinned here. */
	mm_config_default(cfg);
	memset(cfg->zones, 0, sizeof(cfg->zones));
	memset(cfg->cpus_per_node, 0, sizeof(cfg->cpus_per_node));
	cfg->max_order = MM_MAX_PAGE_ORDER;
	cfg->pageblock_order = 9;
	cfg->min_free_kbytes = 0;
	cfg->watermark_scale_factor = 10;

	ret = zi_parse_text(&p, text);
	if (ret)
		return ret;
	ret = zi_fill_zones(&p, cfg);
	if (ret)
		return ret;
	ret = zi_place_cpus(&p, nr_cpus, cpus_per_node, nr_cpus_per_node, cfg);
	if (ret)
		return ret;
	/* Overlapping zones, pfns past the model's range, no managed memory. */
	if (mm_config_validate(cfg, err, errlen))
		return MM_ZONEINFO_EBADTEXT;
	return 0;
}

/*
 * INV-ZONEINFO-STALE-MANAGED, a finding of the kernel's, not a model bug:
 * the kernel sets a zone's marks up from the managed pages of that moment
 * (boot, a min_free_kbytes or watermark_scale_factor write, memory
 * hotplug) and nothing recomputes them when managed pages change later
 * (initrd and init memory freed). A dump taken after that shows managed
 * pages other than the ones its min/low/high came from. The model built
 * from the dump sets its marks up from the dump's managed pages (held to
 * the rule by INV-DERIVED-WMARK), so the dump's marks and the model's
 * differ exactly in that window; each zone where they do is reported, the
 * dump's mark as expected and the model's as actual.
 */
unsigned int mm_zoneinfo_check_marks(struct mm_sim *sim, const char *text)
{
	static const int mark[3] = {WMARK_MIN, WMARK_LOW, WMARK_HIGH};
	struct zi_parser p = {0};
	unsigned int stale = 0;

	if (zi_parse_text(&p, text))
		return 0;
	for (unsigned int n = 0; n < sim->cfg.nr_nodes && n < MM_MAX_NODES; n++) {
		for (int zt = 0; zt < MAX_NR_ZONES; zt++) {
			const struct zi_zone *z = &p.zones[n][zt];
			const struct zone *zone = &sim->node_data[n]->node_zones[zt];
			int w;

			if (!z->header_line || !z->val[ZI_PRESENT] || !zone->spanned_pages ||
			    !z->field_line[ZI_MIN] || !z->field_line[ZI_LOW] ||
			    !z->field_line[ZI_HIGH])
				continue;
			for (w = 0; w < 3; w++)
				if (z->val[ZI_MIN + w] != zone->_watermark[mark[w]])
					break;
			if (w == 3)
				continue;
			stale++;
			mm_report_violation(
				sim, "INV-ZONEINFO-STALE-MANAGED", (int)n, zt, -1, -1,
				(long long)z->val[ZI_MIN + w], (long long)zone->_watermark[mark[w]],
				"zoneinfo line %u: min/low/high %llu/%llu/%llu were set up from "
				"other "
				"managed pages than the %llu it shows (from those: %lu/%lu/%lu)",
				z->header_line, (unsigned long long)z->val[ZI_MIN],
				(unsigned long long)z->val[ZI_LOW],
				(unsigned long long)z->val[ZI_HIGH],
				(unsigned long long)z->val[ZI_MANAGED], zone->_watermark[WMARK_MIN],
				zone->_watermark[WMARK_LOW], zone->_watermark[WMARK_HIGH]);
		}
	}
	return stale;
}

/* ------------------------------------------------------------------------
 * Printing, in zoneinfo_show_print()'s layout
 * ---------------------------------------------------------------------- */

/*
 * Each section prints whole lines of one zone. Sections the model cannot
 * fill yet (per-node stats, vm stats, thresholds, node_unreclaimable) are
 * left out; they slot into zoneinfo_sections[] where the kernel prints them.
 */
typedef void zoneinfo_section_fn(FILE *f, const struct mm_sim *sim, const struct mm_zone_info *zi,
				 int nr_zones);

static void print_header(FILE *f, const struct mm_sim *sim, const struct mm_zone_info *zi,
			 int nr_zones)
{
	(void)nr_zones;
	(void)sim;
	fprintf(f, "Node %d, zone %8s\n", zi->node, mm_zone_name(zi->type));
}

static void print_counts(FILE *f, const struct mm_sim *sim, const struct mm_zone_info *zi,
			 int nr_zones)
{
	(void)nr_zones;
	/* mm_zone_info() has no boost; the model never boosts, but print what it holds. */
	const struct zone *z = &sim->node_data[zi->node]->node_zones[zi->type];

	fprintf(f,
		"  pages free     %lu\n"
		"        boost    %lu\n"
		"        min      %lu\n"
		"        low      %lu\n"
		"        high     %lu\n"
		"        promo    %lu\n"
		"        spanned  %llu\n"
		"        present  %llu\n"
		"        managed  %llu\n"
		"        cma      %lu\n",
		/* as zone_page_state(): a transiently negative counter reads 0 */
		zi->nr_free_pages < 0 ? 0UL : (unsigned long)zi->nr_free_pages,
		READ_ONCE(z->watermark_boost), zi->wmark[WMARK_MIN], zi->wmark[WMARK_LOW],
		zi->wmark[WMARK_HIGH], zi->wmark[WMARK_PROMO], (unsigned long long)zi->spanned,
		(unsigned long long)zi->present, (unsigned long long)zi->managed,
		0UL /* no CONFIG_CMA */);
}

/*
 * zoneinfo_show_print() prints one entry per zone the kernel was built
 * with (MAX_NR_ZONES of that kernel): 4 without CONFIG_ZONE_DEVICE.
 */
static void print_protection(FILE *f, const struct mm_sim *sim, const struct mm_zone_info *zi,
			     int nr_zones)
{
	(void)sim;
	fprintf(f, "        protection: (%ld", (long)zi->lowmem_reserve[0]);
	for (int i = 1; i < nr_zones; i++)
		fprintf(f, ", %ld", (long)zi->lowmem_reserve[i]);
	fputs(")\n", f);
}

/*
 * The kernel prints, for each online CPU, the pageset's runtime count and
 * high and its sizing (zoneinfo_show_print(), 6.7+ layout).
 */
static void print_pagesets(FILE *f, const struct mm_sim *sim, const struct mm_zone_info *zi,
			   int nr_zones)
{
	(void)nr_zones;
	fputs("  pagesets\n", f);
	for (unsigned int cpu = 0; cpu < mm_nr_cpus(sim); cpu++) {
		struct mm_pcp_info pi;

		if (!mm_cpu_is_online(sim, (int)cpu) ||
		    mm_pcp_info(sim, zi->node, zi->type, (int)cpu, &pi))
			continue;
		fprintf(f,
			"    cpu: %u\n"
			"              count:    %d\n"
			"              high:     %d\n"
			"              batch:    %d\n"
			"              high_min: %d\n"
			"              high_max: %d\n",
			cpu, pi.count, pi.high, pi.batch, pi.high_min, pi.high_max);
		fprintf(f, "  vm stats threshold: %d\n", pi.stat_threshold);
	}
}

static void print_start_pfn(FILE *f, const struct mm_sim *sim, const struct mm_zone_info *zi,
			    int nr_zones)
{
	(void)nr_zones;
	(void)sim;
	fprintf(f, "  start_pfn:           %llu\n", (unsigned long long)zi->start_pfn);
}

static const struct {
	bool populated_only; /* the kernel stops after "protection:" for an empty zone */
	zoneinfo_section_fn *print;
} zoneinfo_sections[] = {
	{false, print_header},
	{false, print_counts},
	{false, print_protection},
	/* the zone's vm stats (nr_free_pages ...) come here in the kernel's output */
	{true, print_pagesets},
	/* "  node_unreclaimable:  N" comes here */
	{true, print_start_pfn},
};

unsigned int mm_zoneinfo_nr_zones(const char *text)
{
	for (const char *line = text; *line;) {
		const char *end = strchr(line, '\n');
		const char *s;
		unsigned int n = 1;

		if (!end)
			end = line + strlen(line);
		s = skip_blanks(line, end);
		if (token_is(s, token_len(s, end), "protection:")) {
			for (; s < end; s++)
				n += *s == ',';
			return n > MAX_NR_ZONES ? MAX_NR_ZONES : n;
		}
		line = *end ? end + 1 : end;
	}
	return MAX_NR_ZONES;
}

void mm_print_zoneinfo(FILE *f, const struct mm_sim *sim)
{
	mm_print_zoneinfo_zones(f, sim, MAX_NR_ZONES);
}

void mm_print_zoneinfo_zones(FILE *f, const struct mm_sim *sim, unsigned int nr_zones)
{
	if (nr_zones < 1 || nr_zones > MAX_NR_ZONES)
		nr_zones = MAX_NR_ZONES;
	for (unsigned int n = 0; n < sim->nr_nodes; n++) {
		/* The kernel's zones are the model's first nr_zones: ZONE_DEVICE is the last. */
		for (int zt = 0; zt < (int)nr_zones; zt++) {
			struct mm_zone_info zi;

			if (mm_zone_info(sim, (int)n, zt, &zi))
				continue;
			for (size_t i = 0;
			     i < sizeof(zoneinfo_sections) / sizeof(zoneinfo_sections[0]); i++)
				if (!zoneinfo_sections[i].populated_only || zi.present)
					zoneinfo_sections[i].print(f, sim, &zi, (int)nr_zones);
		}
	}
}
