/* SPDX-License-Identifier: MIT */
/*
 * test_zoneinfo.c - the model against real machines: every
 * /proc/zoneinfo sample in tests/data/zoneinfo (NAME.txt, with its
 * .meta) is built into the model, whose watermarks and lowmem reserves
 * must equal what that kernel printed. Also the zoneinfo reader's errors,
 * the printer's layout and the default min_free_kbytes formula.
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

/* What the kernel printed for one zone: parsed here, apart from the code under test. */
struct expected_zone {
	int header_line; /* 0: zone not in the file */
	bool have_wmark[4];
	unsigned long wmark[4]; /* min, low, high, promo */
	int nr_prot;		/* -1: no protection line */
	long prot[MAX_NR_ZONES];
};

static const char *const expected_zone_names[MAX_NR_ZONES] = {"DMA", "DMA32", "Normal", "Movable",
							      "Device"};
static const char *const wmark_keys[4] = {"min", "low", "high", "promo"};

static void parse_expected(const char *text, const char *path,
			   struct expected_zone exp[MM_MAX_NODES][MAX_NR_ZONES])
{
	struct expected_zone *cur = NULL;
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
			continue;
		}
		if (!cur || sscanf(line, " %31s%n", key, &used) != 1)
			continue;
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

	load_sample(_i, &s);
	parse_expected(s.text, path, exp);
	sim = mm_sim_create();
	ck_assert_ptr_nonnull(sim);
	ck_assert_msg(mm_sim_init(sim, &s.cfg, -1) == 0, "%s: mm_sim_init failed", path);

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

static bool is_line_of(const char *line, const char *key)
{
	while (*line == ' ')
		line++;
	return !strncmp(line, key, strlen(key));
}

/*
 * The printer's lines are the kernel's lines: each appears verbatim in the
 * sample, in the same order. Free pages and boost are the running
 * machine's state, not its shape, so they may differ. What it prints reads
 * back into the same machine.
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

	load_sample(_i, &s);
	sim = mm_sim_create();
	ck_assert_ptr_nonnull(sim);
	ck_assert_msg(mm_sim_init(sim, &s.cfg, -1) == 0, "%s: mm_sim_init failed", path);
	f = open_memstream(&out, &outlen);
	ck_assert_ptr_nonnull(f);
	mm_print_zoneinfo(f, sim);
	fclose(f);

	const char *pos = s.text;
	int lineno = 0;
	for (char *line = out; *line;) {
		char *eol = strchr(line, '\n');
		char want[512];

		lineno++;
		ck_assert_msg(eol, "printed line %d has no newline", lineno);
		*eol = '\0';
		if (!is_line_of(line, "pages free") && !is_line_of(line, "boost")) {
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
	expect_error("Node 8, zone DMA\n", MM_ZONEINFO_EBADTEXT, "line 1: node 8");
	expect_error("Node 99999999999999999999999, zone DMA\n", MM_ZONEINFO_EBADTEXT,
		     "line 1: malformed");
	expect_error("Node 0, zone DMA\nNode 0, zone DMA\n", MM_ZONEINFO_EBADTEXT,
		     "line 2: node 0 zone DMA appears twice (first at line 1)");
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
	suite_add_tcase(s, tc);

	tc = tcase_create("reader");
	tcase_add_test(tc, test_parse_sample_shape);
	tcase_add_test(tc, test_parse_garbage);
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
