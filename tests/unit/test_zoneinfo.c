/* SPDX-License-Identifier: MIT */
/*
 * test_zoneinfo.c - the model against real machines: every
 * /proc/zoneinfo sample in tests/data/zoneinfo (NAME.txt, with its
 * .meta) is built into the model, whose watermarks, lowmem reserves and
 * pcp sizing (batch, high_min, high_max per CPU) must equal what that
 * kernel printed. Also the zoneinfo reader's errors, the printer's layout
 * and the default min_free_kbytes formula.
 */
#include "mmcore.h"

#include <check.h>
#include <glob.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef MMFUZZ_SHARED_DIR
#error "MMFUZZ_SHARED_DIR must name the shared data directory (CMakeLists.txt passes it)"
#endif

static char sample_dir[PATH_MAX];
static glob_t samples;
static int samples_status = GLOB_NOMATCH;

/* ------------------------------------------------------------------------
 * Helpers
 * ---------------------------------------------------------------------- */

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0;

	ck_assert_msg(f, "%s: cannot open", path);
	for (;;) {
		if (len + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap);
			ck_assert_msg(buf, "out of memory reading %s", path);
		}
		size_t n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
		if (n == 0)
			break;
	}
	ck_assert_msg(!ferror(f), "%s: read error", path);
	fclose(f);
	buf[len] = '\0';
	return buf;
}

/* The leading number of the .meta line "KEY: N ...". */
static unsigned long meta_value(const char *meta, const char *path, const char *key)
{
	size_t klen = strlen(key);

	for (const char *line = meta; line && *line;) {
		if (!strncmp(line, key, klen) && line[klen] == ':') {
			char *end;
			unsigned long v = strtoul(line + klen + 1, &end, 10);
			ck_assert_msg(end != line + klen + 1, "%s: '%s:' has no number", path, key);
			return v;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	ck_abort_msg("%s: no '%s:' line", path, key);
	return 0;
}

/* One CPU's pageset as printed under "pagesets". */
enum {
	PCP_COUNT,
	PCP_HIGH,
	PCP_BATCH,
	PCP_HIGH_MIN,
	PCP_HIGH_MAX,
	NR_PCP_KEYS
};

struct expected_pcp {
	int line; /* 0: no "cpu: N" line for this CPU */
	bool have[NR_PCP_KEYS];
	long val[NR_PCP_KEYS];
	int stat_threshold; /* "vm stats threshold:" after the pageset; -1: none */
};

/* What the kernel printed for one zone: parsed here, apart from the code under test. */
struct expected_zone {
	int header_line; /* 0: zone not in the file */
	bool have_wmark[4];
	unsigned long wmark[4]; /* min, low, high, promo */
	int nr_prot;		/* -1: no protection line */
	long prot[MAX_NR_ZONES];
	int pagesets_line; /* 0: no "pagesets" section */
	int nr_pcp_cpus;   /* "cpu: N" lines seen */
	struct expected_pcp pcp[MM_MAX_CPUS];
};

static const char *const expected_zone_names[MAX_NR_ZONES] = {"DMA", "DMA32", "Normal", "Movable",
							      "Device"};
static const char *const wmark_keys[4] = {"min", "low", "high", "promo"};
static const char *const pcp_keys[NR_PCP_KEYS] = {
	"count:", "high:", "batch:", "high_min:", "high_max:"};

static void parse_expected(const char *text, const char *path,
			   struct expected_zone exp[MM_MAX_NODES][MAX_NR_ZONES])
{
	struct expected_zone *cur = NULL;
	struct expected_pcp *cpu = NULL; /* the pageset whose lines follow */
	char line[512];
	int lineno = 0;

	memset(exp, 0, sizeof(struct expected_zone) * MM_MAX_NODES * MAX_NR_ZONES);
	for (const char *s = text; *s;) {
		const char *eol = strchr(s, '\n');
		size_t n = eol ? (size_t)(eol - s) : strlen(s);
		char key[32], name[32];
		unsigned long v;
		int node, used;

		lineno++;
		ck_assert_msg(n < sizeof(line), "%s:%d: line too long", path, lineno);
		memcpy(line, s, n);
		line[n] = '\0';
		s += n + (eol != NULL);

		if (sscanf(line, "Node %d, zone %31s", &node, name) == 2) {
			int zt;
			for (zt = 0; zt < MAX_NR_ZONES; zt++)
				if (!strcmp(name, expected_zone_names[zt]))
					break;
			ck_assert_msg(zt < MAX_NR_ZONES && node >= 0 && node < MM_MAX_NODES,
				      "%s:%d: unexpected zone header '%s'", path, lineno, line);
			cur = &exp[node][zt];
			cur->header_line = lineno;
			cur->nr_prot = -1;
			cpu = NULL;
			continue;
		}
		if (!cur || sscanf(line, " %31s%n", key, &used) != 1)
			continue;
		if (!strcmp(key, "pagesets")) {
			ck_assert_msg(!cur->pagesets_line, "%s:%d: a second 'pagesets' in a zone",
				      path, lineno);
			cur->pagesets_line = lineno;
			continue;
		}
		if (!strcmp(key, "cpu:")) {
			int c;
			ck_assert_msg(cur->pagesets_line && sscanf(line + used, "%d", &c) == 1 &&
					      c >= 0 && c < MM_MAX_CPUS,
				      "%s:%d: bad 'cpu:' line", path, lineno);
			cpu = &cur->pcp[c];
			ck_assert_msg(!cpu->line, "%s:%d: cpu %d twice in one zone", path, lineno,
				      c);
			cpu->line = lineno;
			cpu->stat_threshold = -1;
			cur->nr_pcp_cpus++;
			continue;
		}
		if (!strcmp(key, "vm")) {
			int th;
			ck_assert_msg(cpu && sscanf(line + used, " stats threshold: %d", &th) == 1,
				      "%s:%d: bad 'vm stats threshold' line", path, lineno);
			cpu->stat_threshold = th;
			continue;
		}
		for (int k = 0; k < NR_PCP_KEYS; k++) {
			if (strcmp(key, pcp_keys[k]))
				continue;
			ck_assert_msg(cpu, "%s:%d: '%s' before any 'cpu:' line", path, lineno, key);
			ck_assert_msg(sscanf(line + used, "%ld", &cpu->val[k]) == 1,
				      "%s:%d: bad '%s' value", path, lineno, key);
			cpu->have[k] = true;
		}
		/* "node_unreclaimable:" and the like end no pageset */
		if (!strcmp(key, "protection:")) {
			const char *p = line + used;
			char *end;
			while (*p == ' ')
				p++;
			ck_assert_msg(*p == '(', "%s:%d: protection: no '('", path, lineno);
			cur->nr_prot = 0;
			do {
				ck_assert_msg(cur->nr_prot < MAX_NR_ZONES,
					      "%s:%d: more protection entries than zones", path,
					      lineno);
				cur->prot[cur->nr_prot++] = strtol(p + 1, &end, 10);
				ck_assert_msg(end != p + 1, "%s:%d: bad protection entry", path,
					      lineno);
				p = end;
			} while (*p == ',');
			ck_assert_msg(*p == ')', "%s:%d: protection: no ')'", path, lineno);
			continue;
		}
		for (int w = 0; w < 4; w++) {
			if (strcmp(key, wmark_keys[w]))
				continue;
			ck_assert_msg(sscanf(line + used, "%lu", &v) == 1, "%s:%d: bad '%s' value",
				      path, lineno, key);
			cur->wmark[w] = v;
			cur->have_wmark[w] = true;
		}
	}
}

/* Appends one mismatch to the report, so a failure lists all of them. */
static void note(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;

	if (used >= len - 1)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

struct sample {
	char *text;
	unsigned int cpus, min_free_kbytes, wsf;
	struct mm_config cfg;
};

static void load_sample(int i, struct sample *s)
{
	const char *path = samples.gl_pathv[i];
	char meta_path[PATH_MAX], err[256];
	char *meta;
	int ret;

	ck_assert_int_lt(snprintf(meta_path, sizeof(meta_path), "%.*s.meta",
				  (int)(strlen(path) - strlen(".txt")), path),
			 (int)sizeof(meta_path));
	meta = read_text(meta_path);
	s->cpus = (unsigned int)meta_value(meta, meta_path, "online cpus");
	s->min_free_kbytes = (unsigned int)meta_value(meta, meta_path, "min_free_kbytes");
	s->wsf = (unsigned int)meta_value(meta, meta_path, "watermark_scale_factor");
	free(meta);

	s->text = read_text(path);
	ret = mm_config_from_zoneinfo(s->text, s->cpus, NULL, 0, &s->cfg, err, sizeof(err));
	ck_assert_msg(ret == 0, "%s: mm_config_from_zoneinfo: %s", path, err);
	s->cfg.min_free_kbytes = s->min_free_kbytes;
	s->cfg.watermark_scale_factor = s->wsf;
}

/* Loads sample i and builds the model of its machine, as the kernel booted it. */
static struct mm_sim *sample_machine(int i, struct sample *s)
{
	struct mm_sim *sim;

	load_sample(i, s);
	sim = mm_sim_create();
	ck_assert_ptr_nonnull(sim);
	ck_assert_msg(mm_sim_init(sim, &s->cfg, -1) == 0, "%s: mm_sim_init failed",
		      samples.gl_pathv[i]);
	return sim;
}

/* ------------------------------------------------------------------------
 * The samples
 * ---------------------------------------------------------------------- */

START_TEST(test_samples_found)
{
	ck_assert_msg(samples_status == 0 && samples.gl_pathc > 0,
		      "no zoneinfo samples: %s/*.txt matches nothing; the samples live in "
		      "tests/data/zoneinfo (or the directory MMFUZZ_SHARED_DIR names)",
		      sample_dir);
}
END_TEST

/* Every min/low/high/promo and protection entry the kernel printed, exactly. */
START_TEST(test_sample_watermarks)
{
	const char *path = samples.gl_pathv[_i];
	static struct expected_zone exp[MM_MAX_NODES][MAX_NR_ZONES];
	struct sample s;
	struct mm_sim *sim;
	char report[4096] = "";
	int zones = 0;

	sim = sample_machine(_i, &s);
	parse_expected(s.text, path, exp);

	for (int n = 0; n < MM_MAX_NODES; n++) {
		for (int zt = 0; zt < MAX_NR_ZONES; zt++) {
			const struct expected_zone *e = &exp[n][zt];
			const char *zname = expected_zone_names[zt];
			struct mm_zone_info zi;

			if (!e->header_line)
				continue;
			zones++;
			ck_assert_msg(mm_zone_info(sim, n, zt, &zi) == 0,
				      "%s:%d: the model has no node %d zone %s", path,
				      e->header_line, n, zname);
			for (int w = 0; w < 4; w++) {
				ck_assert_msg(e->have_wmark[w], "%s:%d: zone has no '%s' line",
					      path, e->header_line, wmark_keys[w]);
				if (zi.wmark[w] != e->wmark[w])
					note(report, sizeof(report),
					     "\n  node %d %s %s: kernel %lu, model %lu", n, zname,
					     wmark_keys[w], e->wmark[w], zi.wmark[w]);
			}
			ck_assert_msg(e->nr_prot > 0, "%s:%d: zone has no 'protection:' line", path,
				      e->header_line);
			for (int j = 0; j < e->nr_prot; j++)
				if ((long)zi.lowmem_reserve[j] != e->prot[j])
					note(report, sizeof(report),
					     "\n  node %d %s protection[%d]: kernel %ld, model %lu",
					     n, zname, j, e->prot[j], zi.lowmem_reserve[j]);
		}
	}
	ck_assert_msg(zones > 0, "%s: no zones found by the test's own parser", path);
	ck_assert_msg(!report[0], "%s (min_free_kbytes %u, watermark_scale_factor %u):%s", path,
		      s.min_free_kbytes, s.wsf, report);
	mm_sim_destroy(sim);
	free(s.text);
}
END_TEST

/*
 * Every pageset the kernel printed: batch, high_min, high_max and the vm
 * stats threshold that follows it equal the model's on that CPU exactly. high and count are runtime
 * state: high is 0 until a CPU's list is first used (the sample's DMA zone shows 0), so the model's
 * fresh machine has high 0 and count 0 on every CPU; where the kernel's high had moved, it lies in
 * [high_min, high_max], and so does the model's once the CPU has allocated from the zone.
 */
START_TEST(test_sample_pagesets)
{
	/* movable requests: no pageblock changes type */
	static const unsigned int zone_gfp[MAX_NR_ZONES] = {
		MM_GFP_DMA | MM_GFP_MOVABLE, MM_GFP_DMA32 | MM_GFP_MOVABLE, MM_GFP_MOVABLE,
		MM_GFP_HIGHUSER_MOVABLE, MM_GFP_MOVABLE};
	const char *path = samples.gl_pathv[_i];
	static struct expected_zone exp[MM_MAX_NODES][MAX_NR_ZONES];
	struct sample s;
	struct mm_sim *sim;
	char report[4096] = "";
	int pagesets = 0;

	sim = sample_machine(_i, &s);
	parse_expected(s.text, path, exp);

	for (int n = 0; n < MM_MAX_NODES; n++) {
		for (int zt = 0; zt < MAX_NR_ZONES; zt++) {
			const struct expected_zone *e = &exp[n][zt];
			const char *zname = expected_zone_names[zt];
			struct mm_zone_info zi;

			if (!e->header_line)
				continue;
			ck_assert_int_eq(mm_zone_info(sim, n, zt, &zi), 0);
			/* the kernel prints pagesets for the populated zones, each online CPU */
			ck_assert_msg(!e->pagesets_line == !zi.present,
				      "%s:%d: node %d %s: present %llu but %s pagesets section",
				      path, e->header_line, n, zname,
				      (unsigned long long)zi.present,
				      e->pagesets_line ? "a" : "no");
			if (!e->pagesets_line)
				continue;
			pagesets++;
			ck_assert_msg(e->nr_pcp_cpus == (int)s.cpus,
				      "%s:%d: %d pagesets for %u online CPUs", path,
				      e->pagesets_line, e->nr_pcp_cpus, s.cpus);
			for (int c = 0; c < MM_MAX_CPUS; c++) {
				const struct expected_pcp *k = &e->pcp[c];
				struct mm_pcp_info pi;

				if (!k->line)
					continue;
				for (int f = 0; f < NR_PCP_KEYS; f++)
					ck_assert_msg(k->have[f], "%s:%d: cpu %d has no '%s' line",
						      path, k->line, c, pcp_keys[f]);
				ck_assert_msg(mm_pcp_info(sim, n, zt, c, &pi) == 0,
					      "%s:%d: the model has no node %d %s cpu %d", path,
					      k->line, n, zname, c);
				ck_assert_msg(k->stat_threshold >= 0,
					      "%s:%d: cpu %d has no 'vm stats threshold' line",
					      path, k->line, c);
				if (pi.stat_threshold != k->stat_threshold)
					note(report, sizeof(report),
					     "\n  node %d %s cpu %d vm stats threshold: kernel %d, "
					     "model %d",
					     n, zname, c, k->stat_threshold, pi.stat_threshold);
				if (pi.batch != k->val[PCP_BATCH] ||
				    pi.high_min != k->val[PCP_HIGH_MIN] ||
				    pi.high_max != k->val[PCP_HIGH_MAX])
					note(report, sizeof(report),
					     "\n  node %d %s cpu %d batch/high_min/high_max: "
					     "kernel "
					     "%ld/%ld/%ld, model %d/%d/%d",
					     n, zname, c, k->val[PCP_BATCH], k->val[PCP_HIGH_MIN],
					     k->val[PCP_HIGH_MAX], pi.batch, pi.high_min,
					     pi.high_max);
				if (pi.high != 0 || pi.count != 0)
					note(report, sizeof(report),
					     "\n  node %d %s cpu %d fresh: high %d count %d, want "
					     "0 "
					     "(the kernel's DMA, never used, shows high 0)",
					     n, zname, c, pi.high, pi.count);
				if (k->val[PCP_HIGH] == 0)
					continue;
				ck_assert_msg(k->val[PCP_HIGH] >= k->val[PCP_HIGH_MIN] &&
						      k->val[PCP_HIGH] <= k->val[PCP_HIGH_MAX],
					      "%s:%d: the sample's high %ld is outside "
					      "[high_min, high_max]",
					      path, k->line, k->val[PCP_HIGH]);
				/* the model's CPU uses the zone once */
				uint32_t gen;
				mm_set_current_cpu(c);
				long long pfn = mm_alloc_pages(sim, 0, zone_gfp[zt], n, 1, &gen);
				ck_assert_msg(pfn >= (long long)zi.start_pfn &&
						      pfn < (long long)(zi.start_pfn + zi.spanned),
					      "node %d %s cpu %d: allocation at pfn %lld", n, zname,
					      c, pfn);
				ck_assert_int_eq(mm_pcp_info(sim, n, zt, c, &pi), 0);
				if (pi.high < pi.high_min || pi.high > pi.high_max)
					note(report, sizeof(report),
					     "\n  node %d %s cpu %d after use: high %d outside "
					     "[%d, %d]",
					     n, zname, c, pi.high, pi.high_min, pi.high_max);
				mm_free_pages(sim, (uint64_t)pfn, 0, 1, gen);
			}
		}
	}
	ck_assert_msg(pagesets > 0, "%s: no pagesets found by the test's own parser", path);
	ck_assert_msg(!report[0], "%s (%u CPUs, min_free_kbytes %u):%s", path, s.cpus,
		      s.min_free_kbytes, report);
	mm_sim_destroy(sim);
	free(s.text);
}
END_TEST

static bool is_line_of(const char *line, const char *key)
{
	while (*line == ' ')
		line++;
	return !strncmp(line, key, strlen(key));
}

/*
 * The printer's lines are the kernel's lines: each appears verbatim in the
 * sample, in the same order. Free pages, boost and a pageset's count and
 * high are the running machine's state, not its shape, so they may differ.
 * What it prints reads back into the same machine.
 */
START_TEST(test_sample_print_layout)
{
	const char *path = samples.gl_pathv[_i];
	struct sample s;
	struct mm_config back;
	struct mm_sim *sim;
	char *out = NULL, err[256];
	size_t outlen = 0;
	FILE *f;

	sim = sample_machine(_i, &s);
	f = open_memstream(&out, &outlen);
	ck_assert_ptr_nonnull(f);
	mm_print_zoneinfo_zones(f, sim, mm_zoneinfo_nr_zones(s.text));
	fclose(f);

	const char *pos = s.text;
	int lineno = 0;
	for (char *line = out; *line;) {
		char *eol = strchr(line, '\n');
		char want[512];

		lineno++;
		ck_assert_msg(eol, "printed line %d has no newline", lineno);
		*eol = '\0';
		if (!is_line_of(line, "pages free") && !is_line_of(line, "boost") &&
		    !is_line_of(line, "count:") && !is_line_of(line, "high:")) {
			snprintf(want, sizeof(want), "%s\n", line);
			const char *hit = strstr(pos, want);
			while (hit && hit != s.text && hit[-1] != '\n')
				hit = strstr(hit + 1, want);
			ck_assert_msg(hit,
				      "%s: printed line %d '%s' is not in the sample (after "
				      "the previous one)",
				      path, lineno, line);
			pos = hit + strlen(want);
		}
		*eol = '\n';
		line = eol + 1;
	}
	ck_assert_int_gt(lineno, 0);

	ck_assert_msg(mm_config_from_zoneinfo(out, s.cpus, NULL, 0, &back, err, sizeof(err)) == 0,
		      "the printed zoneinfo does not read back: %s", err);
	ck_assert_uint_eq(back.nr_nodes, s.cfg.nr_nodes);
	ck_assert_msg(!memcmp(back.zones, s.cfg.zones, sizeof(back.zones)),
		      "the printed zoneinfo reads back as another machine");
	free(out);
	mm_sim_destroy(sim);
	free(s.text);
}
END_TEST

/*
 * The pagesets block to the character, on a machine of its own: one Normal
 * zone of 65536 pages, 2 CPUs, min_free_kbytes 1024: min 256, gap max(64,
 * 6 * 10 + 5536 * 10 / 10000 = 65) = 65, low 321; batch (65536 >> 10) / 4
 * = 16 -> rounddown_pow2(24) - 1 = 15; high_min 321 / 2 = 160, high_max
 * 65536 / 8 / 2 = 4096. One allocation on CPU 1 refills 15 pages (high
 * min(160 + 15, 4096) = 175) and keeps 14. pages free is the estimate, as
 * the kernel prints zone_page_state(): the refill takes its 15 pages one
 * at a time through CPU 1's diff (threshold 12), which folds at -13 and
 * keeps -2, so 65536 - 13 = 65523 while the exact count is 65521. Offline
 * CPUs are not printed, and the sizing is then for 1 CPU: high_min 321,
 * high_max 8192.
 */
START_TEST(test_print_pagesets)
{
	static const char want2[] = "Node 0, zone   Normal\n"
				    "  pages free     65523\n"
				    "        boost    0\n"
				    "        min      256\n"
				    "        low      321\n"
				    "        high     386\n"
				    "        promo    451\n"
				    "        spanned  65536\n"
				    "        present  65536\n"
				    "        managed  65536\n"
				    "        cma      0\n"
				    "        protection: (0, 0, 0, 0, 0)\n"
				    "  pagesets\n"
				    "    cpu: 0\n"
				    "              count:    0\n"
				    "              high:     0\n"
				    "              batch:    15\n"
				    "              high_min: 160\n"
				    "              high_max: 4096\n"
				    /* 2 * fls(2) * (1 + fls(65536 >> 15)) = 12 */
				    "  vm stats threshold: 12\n"
				    "    cpu: 1\n"
				    "              count:    14\n"
				    "              high:     175\n"
				    "              batch:    15\n"
				    "              high_min: 160\n"
				    "              high_max: 4096\n"
				    "  vm stats threshold: 12\n"
				    "  start_pfn:           0\n"
				    "Node 0, zone  Movable\n";
	static const char want1[] = "        protection: (0, 0, 0, 0, 0)\n"
				    "  pagesets\n"
				    "    cpu: 1\n"
				    "              count:    14\n"
				    "              high:     175\n"
				    "              batch:    15\n"
				    "              high_min: 321\n"
				    "              high_max: 8192\n"
				    /* one CPU online: 2 * fls(1) * (1 + fls(2)) = 6 */
				    "  vm stats threshold: 6\n"
				    "  start_pfn:           0\n"
				    "Node 0, zone  Movable\n";
	struct mm_config cfg;
	struct mm_sim *sim;
	char *out = NULL;
	size_t outlen = 0;
	uint32_t gen;
	FILE *f;

	mm_config_init(&cfg);
	cfg.cpus_per_node[0] = 2;
	cfg.min_free_kbytes = 1024;
	cfg.zones[0][ZONE_NORMAL] = (struct mm_zone_config){0, 65536, 65536, 65536};
	sim = mm_sim_create();
	ck_assert_ptr_nonnull(sim);
	ck_assert_int_eq(mm_sim_init(sim, &cfg, -1), 0);
	mm_set_current_cpu(1);
	ck_assert_int_ge(mm_alloc_pages(sim, 0, MM_GFP_MOVABLE, -1, 1, &gen), 0);

	f = open_memstream(&out, &outlen);
	ck_assert_ptr_nonnull(f);
	mm_print_zoneinfo(f, sim);
	fclose(f);
	ck_assert_msg(strstr(out, want2), "printed:\n%s\nwanted in it:\n%s", out, want2);
	/* an unpopulated zone stops after protection: Normal's is the only pagesets */
	const char *ps = strstr(out, "pagesets");
	ck_assert_ptr_nonnull(ps);
	ck_assert_ptr_null(strstr(ps + 1, "pagesets"));
	free(out);

	/* CPU 1 keeps its list while CPU 0 is offline */
	ck_assert_int_eq(mm_cpu_offline(sim, 0), 0);
	out = NULL;
	f = open_memstream(&out, &outlen);
	ck_assert_ptr_nonnull(f);
	mm_print_zoneinfo(f, sim);
	fclose(f);
	ck_assert_msg(strstr(out, want1), "printed:\n%s\nwanted in it:\n%s", out, want1);
	free(out);
	mm_sim_destroy(sim);
}
END_TEST

/* ------------------------------------------------------------------------
 * The reader on text of its own
 * ---------------------------------------------------------------------- */

/* The sample's shape, only the lines the reader needs. */
static const char sample_shape[] = "Node 0, zone      DMA\n"
				   "        spanned  4095\n"
				   "        present  3998\n"
				   "        managed  3840\n"
				   "  start_pfn:           1\n"
				   "Node 0, zone    DMA32\n"
				   "        spanned  1044480\n"
				   "        present  782336\n"
				   "        managed  772808\n"
				   "  start_pfn:           4096\n"
				   "Node 0, zone   Normal\n"
				   "        spanned  5505024\n"
				   "        present  5505024\n"
				   "        managed  196608\n"
				   "  start_pfn:           1048576\n"
				   "Node 0, zone  Movable\n"
				   "        spanned  0\n"
				   "        present  0\n"
				   "        managed  0\n"
				   "Node 0, zone   Device\n"
				   "        spanned  0\n"
				   "        present  0\n"
				   "        managed  0\n";

/* A small two-node machine for the error cases. */
static const char two_nodes[] = "Node 0, zone    DMA32\n"
				"        spanned  1024\n"
				"        present  1024\n"
				"        managed  1000\n"
				"  start_pfn:           0\n"
				"Node 1, zone   Normal\n"
				"        spanned  2048\n"
				"        present  2048\n"
				"        managed  2048\n"
				"  start_pfn:           1024\n";

static int parse(const char *text, char *err, size_t len)
{
	struct mm_config cfg;

	return mm_config_from_zoneinfo(text, 2, NULL, 0, &cfg, err, len);
}

static void expect_error(const char *text, int code, const char *needle)
{
	char err[256];
	int ret = parse(text, err, sizeof(err));

	ck_assert_msg(ret == code, "expected %d for <<%s>>, got %d (%s)", code, text, ret, err);
	ck_assert_msg(strstr(err, needle), "error for <<%s>> is '%s', wanted '%s' in it", text, err,
		      needle);
	ck_assert_msg(!strchr(err, '\n'), "error '%s' is not one line", err);
}

START_TEST(test_parse_sample_shape)
{
	struct mm_config cfg;
	char err[256];

	ck_assert_int_eq(mm_config_from_zoneinfo(sample_shape, 2, NULL, 0, &cfg, err, sizeof(err)),
			 0);
	ck_assert_uint_eq(cfg.nr_nodes, 1);
	ck_assert_uint_eq(cfg.cpus_per_node[0], 2);
	ck_assert_uint_eq(cfg.max_order, 10);
	ck_assert_uint_eq(cfg.pageblock_order, 9);
	ck_assert_uint_eq(cfg.min_free_kbytes, 0);
	ck_assert_uint_eq(cfg.watermark_scale_factor, 10);
	ck_assert_uint_eq(cfg.zones[0][ZONE_DMA].start_pfn, 1);
	ck_assert_uint_eq(cfg.zones[0][ZONE_DMA].spanned, 4095);
	ck_assert_uint_eq(cfg.zones[0][ZONE_DMA].present, 3998);
	ck_assert_uint_eq(cfg.zones[0][ZONE_DMA].managed, 3840);
	ck_assert_uint_eq(cfg.zones[0][ZONE_NORMAL].start_pfn, 1048576);
	ck_assert_uint_eq(cfg.zones[0][ZONE_NORMAL].managed, 196608);
	ck_assert_uint_eq(cfg.zones[0][ZONE_MOVABLE].spanned, 0);
	ck_assert_uint_eq(cfg.zones[0][ZONE_DEVICE].spanned, 0);
}
END_TEST

START_TEST(test_parse_garbage)
{
	expect_error("", MM_ZONEINFO_EBADTEXT, "no zones");
	expect_error("\n  \n\t\n", MM_ZONEINFO_EBADTEXT, "no zones");
	expect_error("hello world\nNode 0, zone DMA\n", MM_ZONEINFO_EBADTEXT, "line 1:");
	expect_error("\n\n\x01\x02\x7f junk\n", MM_ZONEINFO_EBADTEXT, "line 3:");
	expect_error("spanned 10\n", MM_ZONEINFO_EBADTEXT, "line 1:");
	/* headers: every way to get one wrong names its line */
	expect_error("Node x, zone DMA\n", MM_ZONEINFO_EBADTEXT, "line 1: malformed zone header");
	expect_error("Node 0 zone DMA\n", MM_ZONEINFO_EBADTEXT, "line 1: malformed zone header");
	expect_error("Node 0, zone\n", MM_ZONEINFO_EBADTEXT, "line 1: malformed zone header");
	expect_error("Node 0, zone DMA junk\n", MM_ZONEINFO_EBADTEXT, "line 1: malformed");
	expect_error("Node 0, zone  HighMem\n", MM_ZONEINFO_EBADTEXT, "line 1: unknown zone");
	expect_error("Node 64, zone DMA\n", MM_ZONEINFO_EBADTEXT, "line 1: node 64");
	expect_error("Node 99999999999999999999999, zone DMA\n", MM_ZONEINFO_EBADTEXT,
		     "line 1: malformed");
	expect_error("Node 0, zone DMA\nNode 0, zone DMA\n", MM_ZONEINFO_EBADTEXT,
		     "line 2: node 0 zone DMA appears twice (first at line 1)");
	expect_error("Node\n", MM_ZONEINFO_EBADTEXT, "line 1: malformed zone header");
	expect_error("Node 0, zones DMA\n", MM_ZONEINFO_EBADTEXT, "line 1: malformed zone header");
	/* the last line needs no newline: its error still names it */
	expect_error("Node 0, zone DMA32\n spanned 8\n spanned 9", MM_ZONEINFO_EBADTEXT,
		     "line 3: a second 'spanned' line in the zone of line 1");
}
END_TEST

/*
 * The zones a zoneinfo text's kernel had: the entries of its first
 * protection array (one per zone type, ZONE_DEVICE among them when
 * configured), at most the model's MAX_NR_ZONES; all of them when no
 * protection line says.
 */
START_TEST(test_nr_zones_from_protection)
{
	ck_assert_uint_eq(mm_zoneinfo_nr_zones("Node 0, zone DMA\n  protection: (0, 2, 3, 3)\n"),
			  4);
	ck_assert_uint_eq(mm_zoneinfo_nr_zones("  protection: (0, 1, 2, 3, 4, 5, 6)"),
			  MAX_NR_ZONES);
	ck_assert_uint_eq(mm_zoneinfo_nr_zones("Node 0, zone DMA\n  spanned 8\n  protection: (0)"),
			  1);
	ck_assert_uint_eq(mm_zoneinfo_nr_zones("Node 0, zone DMA\n  spanned 8"), MAX_NR_ZONES);
	ck_assert_uint_eq(mm_zoneinfo_nr_zones(""), MAX_NR_ZONES);
}
END_TEST

START_TEST(test_parse_bad_numbers)
{
	static const char *const bad[] = {
		"12x4", "-5", "+5", "0x10", "", "1 2", "1.5", "99999999999999999999999",
	};
	char text[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text),
			 "Node 0, zone    DMA32\n  pages free 3\n        spanned  %s\n", bad[i]);
		expect_error(text, MM_ZONEINFO_EBADTEXT, "line 3: 'spanned' needs one decimal");
		snprintf(text, sizeof(text),
			 "Node 0, zone    DMA32\n        spanned  8\n        present  8\n"
			 "        managed  8\n  start_pfn:           %s\n",
			 bad[i]);
		expect_error(text, MM_ZONEINFO_EBADTEXT, "line 5: 'start_pfn:' needs one");
	}
}
END_TEST

START_TEST(test_parse_bad_zones)
{
	expect_error("Node 0, zone DMA32\n spanned 8\n present 8\n", MM_ZONEINFO_EBADTEXT,
		     "line 1: node 0 zone DMA32 has no 'managed' line");
	expect_error("Node 0, zone DMA32\n spanned 8\n present 8\n managed 8\n",
		     MM_ZONEINFO_EBADTEXT, "line 1: node 0 zone DMA32 has no 'start_pfn:' line");
	expect_error("Node 0, zone DMA32\n spanned 8\n present 9\n managed 8\n start_pfn: 0\n",
		     MM_ZONEINFO_EBADTEXT, "line 1: node 0 zone DMA32: need managed <= present");
	expect_error("Node 0, zone DMA32\n spanned 8\n spanned 8\n", MM_ZONEINFO_EBADTEXT,
		     "line 3: a second 'spanned' line in the zone of line 1");
	/* zones, but nothing to allocate from */
	expect_error("Node 0, zone DMA32\n spanned 0\n present 0\n managed 0\n",
		     MM_ZONEINFO_EBADTEXT, "no managed pages");
	expect_error("Node 1, zone DMA32\n spanned 8\n present 8\n managed 8\n start_pfn: 0\n",
		     MM_ZONEINFO_EBADTEXT, "node 0 has no zones");
	expect_error("Node 0, zone DMA32\n spanned 8\n present 8\n managed 8\n start_pfn: 0\n"
		     "Node 0, zone Normal\n spanned 8\n present 8\n managed 8\n start_pfn: 4\n",
		     MM_ZONEINFO_EBADTEXT, "overlaps");
}
END_TEST

START_TEST(test_parse_cpus)
{
	static const unsigned int three[] = {1, 1, 1}, uneven[] = {3, 0}, short_sum[] = {1, 0};
	struct mm_config cfg;
	char err[256];

	ck_assert_int_eq(mm_config_from_zoneinfo(two_nodes, 3, NULL, 0, &cfg, err, sizeof(err)), 0);
	ck_assert_uint_eq(cfg.nr_nodes, 2);
	ck_assert_uint_eq(cfg.cpus_per_node[0], 2);
	ck_assert_uint_eq(cfg.cpus_per_node[1], 1);
	/* fewer CPUs than nodes: the last node has none, which is allowed */
	ck_assert_int_eq(mm_config_from_zoneinfo(two_nodes, 1, NULL, 0, &cfg, err, sizeof(err)), 0);
	ck_assert_uint_eq(cfg.cpus_per_node[1], 0);
	ck_assert_int_eq(mm_config_from_zoneinfo(two_nodes, 3, uneven, 2, &cfg, err, sizeof(err)),
			 0);
	ck_assert_uint_eq(cfg.cpus_per_node[0], 3);
	ck_assert_uint_eq(cfg.cpus_per_node[1], 0);

	ck_assert_int_eq(mm_config_from_zoneinfo(two_nodes, 3, three, 3, &cfg, err, sizeof(err)),
			 MM_ZONEINFO_ECPUS);
	ck_assert_msg(strstr(err, "3 CPU counts for the 2 nodes"), "%s", err);
	ck_assert_int_eq(
		mm_config_from_zoneinfo(two_nodes, 2, short_sum, 2, &cfg, err, sizeof(err)),
		MM_ZONEINFO_ECPUS);
	ck_assert_msg(strstr(err, "sum to 1, not 2"), "%s", err);
	ck_assert_int_eq(mm_config_from_zoneinfo(two_nodes, 0, NULL, 0, &cfg, err, sizeof(err)),
			 MM_ZONEINFO_ECPUS);
	ck_assert_int_eq(mm_config_from_zoneinfo(two_nodes, MM_MAX_CPUS + 1, NULL, 0, &cfg, err,
						 sizeof(err)),
			 MM_ZONEINFO_ECPUS);
	/* text errors come first: the CPUs cannot be placed on nodes not yet known */
	ck_assert_int_eq(mm_config_from_zoneinfo("junk\n", 0, NULL, 0, &cfg, err, sizeof(err)),
			 MM_ZONEINFO_EBADTEXT);
	/* a NULL err is allowed */
	ck_assert_int_eq(mm_config_from_zoneinfo("junk\n", 2, NULL, 0, &cfg, NULL, 0),
			 MM_ZONEINFO_EBADTEXT);
}
END_TEST

/*
 * min_free_kbytes 0 selects calculate_min_free_kbytes(). On the sample's
 * shape, lowmem is the managed pages of DMA, DMA32 and Normal:
 *   3840 + 772808 + 196608 = 973256 pages = 3893024 kB
 *   int_sqrt(16 * 3893024) = int_sqrt(62288384) = 7892
 *     (7892^2 = 62283664 <= 62288384 < 62299449 = 7893^2),
 * inside [128, 262144], so 7892. Then pages_min = 7892 >> 2 = 1973 and
 * DMA32's min = 1973 * 772808 / 973256 = 1566; its gap is the larger of
 * 1566 >> 2 = 391 and 772808 * 10 / 10000 = 772, so low = 2338.
 */
START_TEST(test_default_min_free_kbytes)
{
	struct mm_config cfg;
	struct mm_zone_info zi;
	struct mm_sim *sim;
	char err[256];

	ck_assert_int_eq(mm_config_from_zoneinfo(sample_shape, 2, NULL, 0, &cfg, err, sizeof(err)),
			 0);
	ck_assert_uint_eq(cfg.min_free_kbytes, 0);
	sim = mm_sim_create();
	ck_assert_ptr_nonnull(sim);
	ck_assert_int_eq(mm_sim_init(sim, &cfg, -1), 0);
	ck_assert_uint_eq(mm_sim_min_free_kbytes(sim), 7892);
	ck_assert_int_eq(mm_zone_info(sim, 0, ZONE_DMA32, &zi), 0);
	ck_assert_uint_eq(zi.wmark[WMARK_MIN], 1566);
	ck_assert_uint_eq(zi.wmark[WMARK_LOW], 2338);
	mm_sim_destroy(sim);
}
END_TEST

/* ------------------------------------------------------------------------
 * The suite
 * ---------------------------------------------------------------------- */

static Suite *zoneinfo_suite(void)
{
	Suite *s = suite_create("zoneinfo");
	TCase *tc = tcase_create("samples");
	int n = samples_status == 0 ? (int)samples.gl_pathc : 0;

	tcase_add_test(tc, test_samples_found);
	tcase_add_loop_test(tc, test_sample_watermarks, 0, n);
	tcase_add_loop_test(tc, test_sample_print_layout, 0, n);
	tcase_add_loop_test(tc, test_sample_pagesets, 0, n);
	tcase_add_test(tc, test_print_pagesets);
	suite_add_tcase(s, tc);

	tc = tcase_create("reader");
	tcase_add_test(tc, test_parse_sample_shape);
	tcase_add_test(tc, test_parse_garbage);
	tcase_add_test(tc, test_nr_zones_from_protection);
	tcase_add_test(tc, test_parse_bad_numbers);
	tcase_add_test(tc, test_parse_bad_zones);
	tcase_add_test(tc, test_parse_cpus);
	tcase_add_test(tc, test_default_min_free_kbytes);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	/* The environment wins, so a run can point at another copy of the data. */
	const char *shared = getenv("MMFUZZ_SHARED_DIR");
	char pattern[PATH_MAX + 8];
	SRunner *sr;
	int failed;

	if (!shared || !*shared)
		shared = MMFUZZ_SHARED_DIR;
	snprintf(sample_dir, sizeof(sample_dir), "%s/data/zoneinfo", shared);
	snprintf(pattern, sizeof(pattern), "%s/*.txt", sample_dir);
	samples_status = glob(pattern, 0, NULL, &samples);
	for (size_t i = 0; samples_status == 0 && i < samples.gl_pathc; i++)
		fprintf(stderr, "zoneinfo sample %zu: %s\n", i, samples.gl_pathv[i]);

	sr = srunner_create(zoneinfo_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	if (samples_status == 0)
		globfree(&samples);
	return failed != 0;
}
