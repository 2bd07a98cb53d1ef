/* SPDX-License-Identifier: MIT */
/*
 * common.h - helpers shared by the unit tests: a fixed-seed PRNG, machine
 * builders, a violation recorder and the Check main loop. Header-only:
 * every tests/unit/test_*.c is its own executable.
 */
#ifndef MMFUZZ_TEST_COMMON_H
#define MMFUZZ_TEST_COMMON_H

#include "mmcore.h"

#include <check.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------------------
 * splitmix64: deterministic, so a failure replays with the same seed
 * ---------------------------------------------------------------------- */

struct rng {
	uint64_t s;
};

static inline uint64_t rng_next(struct rng *r)
{
	return mm_splitmix64(&r->s);
}

/* Uniform enough in [0, n) for test inputs; n > 0. */
static inline unsigned int rng_below(struct rng *r, unsigned int n)
{
	return (unsigned int)(rng_next(r) % n);
}

/* ------------------------------------------------------------------------
 * Machines
 * ---------------------------------------------------------------------- */

/*
 * One node, nr_cpus CPUs, no zones yet. Watermarks are all zero with
 * min_free_kbytes 1 (pages_min = 1 >> 2 = 0) and watermark_scale_factor 1
 * (gap = managed * 1 / 10000 = 0 below 10000 pages): on a tiny machine the
 * watermark check then only asks for free > 2^order - 1.
 */
static inline void cfg_tiny(struct mm_config *cfg, unsigned int nr_cpus, unsigned int max_order,
			    unsigned int pageblock_order)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->nr_nodes = 1;
	cfg->cpus_per_node[0] = nr_cpus;
	cfg->max_order = max_order;
	cfg->pageblock_order = pageblock_order;
	cfg->min_free_kbytes = 1;
	cfg->watermark_scale_factor = 1;
}

static inline void cfg_zone(struct mm_config *cfg, unsigned int node, enum zone_type zt,
			    uint64_t start, uint64_t spanned, uint64_t managed)
{
	cfg->zones[node][zt] = (struct mm_zone_config){start, spanned, spanned, managed};
}

/* Builds cfg into a new sim; fails the test if the machine is refused. */
static inline struct mm_sim *sim_new(const struct mm_config *cfg)
{
	char err[160] = "";
	struct mm_sim *sim;

	ck_assert_msg(mm_config_validate(cfg, err, sizeof(err)) == 0, "config refused: %s", err);
	sim = mm_sim_create();
	ck_assert_ptr_nonnull(sim);
	ck_assert_int_eq(mm_sim_init(sim, cfg, -1), 0);
	return sim;
}

/*
 * A machine whose pcp lists are off (zone_pcp_disable on every zone):
 * every free reaches the buddy at once, as tests of the buddy rules need.
 */
static inline struct mm_sim *sim_new_buddy_only(const struct mm_config *cfg)
{
	struct mm_sim *sim = sim_new(cfg);

	for (unsigned int n = 0; n < cfg->nr_nodes; n++)
		for (int zt = 0; zt < ZONE_DEVICE; zt++)
			mm_zone_pcp_disable(sim, (int)n, (enum zone_type)zt);
	return sim;
}

static inline struct mm_zone_info zinfo(const struct mm_sim *sim, int node, enum zone_type zt)
{
	struct mm_zone_info zi;

	ck_assert_int_eq(mm_zone_info(sim, node, zt, &zi), 0);
	return zi;
}

/* Builds cfg into a new sim with the variant of that name (which must exist). */
static inline struct mm_sim *sim_new_variant(const struct mm_config *cfg, const char *variant)
{
	int v = mm_variant_lookup(variant);
	struct mm_sim *sim;

	ck_assert_msg(v >= 0, "no variant '%s'", variant);
	sim = mm_sim_create();
	ck_assert_ptr_nonnull(sim);
	ck_assert_int_eq(mm_sim_init(sim, cfg, v), 0);
	return sim;
}

/* One CPU's pageset of a zone; fails the test if the zone has none. */
static inline struct mm_pcp_info pcpinfo(const struct mm_sim *sim, int node, enum zone_type zt,
					 int cpu)
{
	struct mm_pcp_info pi;

	ck_assert_msg(mm_pcp_info(sim, node, zt, cpu, &pi) == 0, "node %d %s cpu %d: no pageset",
		      node, mm_zone_name(zt), cpu);
	return pi;
}

static inline struct mm_stats sim_stats(const struct mm_sim *sim)
{
	struct mm_stats st;

	mm_sim_stats(sim, &st);
	return st;
}

/* Asserts the zone's free_area[].nr_free equals want[0..nr-1] and is 0 above. */
static inline void assert_nr_free(const struct mm_sim *sim, int node, enum zone_type zt,
				  const unsigned long *want, unsigned int nr)
{
	struct mm_zone_info zi = zinfo(sim, node, zt);

	for (unsigned int o = 0; o < MM_NR_PAGE_ORDERS; o++) {
		unsigned long w = o < nr ? want[o] : 0;
		ck_assert_msg(zi.nr_free[o] == w, "%s nr_free[%u] = %lu, want %lu",
			      mm_zone_name(zt), o, zi.nr_free[o], w);
	}
}

/* ------------------------------------------------------------------------
 * Violations: a recorder for mm_sim_set_violation_handler()
 * ---------------------------------------------------------------------- */

#define VREC_MAX 16

struct vrec {
	pthread_mutex_t lock; /* the stress test reports from several threads */
	unsigned int n;
	char id[VREC_MAX][40];
	char first[256]; /* the first one, formatted */
};

static inline void vrec_init(struct vrec *r)
{
	memset(r, 0, sizeof(*r));
	pthread_mutex_init(&r->lock, NULL);
}

static inline void vrec_handler(const struct mm_violation *v, void *arg)
{
	struct vrec *r = arg;

	pthread_mutex_lock(&r->lock);
	if (r->n < VREC_MAX)
		snprintf(r->id[r->n], sizeof(r->id[0]), "%s", v->id);
	if (!r->n)
		mm_violation_format(v, r->first, sizeof(r->first));
	r->n++;
	pthread_mutex_unlock(&r->lock);
}

static inline bool vrec_has(const struct vrec *r, const char *id)
{
	for (unsigned int i = 0; i < r->n && i < VREC_MAX; i++)
		if (!strcmp(r->id[i], id))
			return true;
	return false;
}

/* Records sim's violations in vr from now on. */
static inline void sim_record(struct mm_sim *sim, struct vrec *vr)
{
	vrec_init(vr);
	mm_sim_set_violation_handler(sim, vrec_handler, vr);
}

/*
 * Parses a text program (a parse error fails the test) and runs it on ex
 * with o; the violations go to vr. Returns what mm_exec_run() returns.
 */
static inline long exec_text(struct mm_exec *ex, const char *text, struct mm_exec_opts *o,
			     struct vrec *vr, long *failed_op)
{
	struct mm_prog p;
	char err[200] = "";
	long ret;

	mm_prog_init(&p);
	ck_assert_msg(mm_parse_prog(text, &p, err, sizeof(err)) == 0, "parse: %s", err);
	o->on_violation = vrec_handler;
	o->arg = vr;
	vrec_init(vr);
	ret = mm_exec_run(ex, &p, o, failed_op);
	mm_prog_free(&p);
	return ret;
}

#ifdef MMFUZZ_SHARED_DIR
/* corpus/variants/<variant>.txt, read whole (malloc'd; a missing file fails the test). */
static inline char *read_variant_trace(const char *variant)
{
	char path[512], *buf;
	long n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/../corpus/variants/%s.txt", MMFUZZ_SHARED_DIR, variant);
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	return buf;
}
#endif

/* ------------------------------------------------------------------------
 * main()
 * ---------------------------------------------------------------------- */

static inline int run_suite(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed != 0;
}

#endif /* MMFUZZ_TEST_COMMON_H */
