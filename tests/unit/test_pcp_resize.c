/* SPDX-License-Identifier: MIT */
/*
 * test_pcp_resize.c - zone_set_pageset_high_and_batch()'s early return,
 * over the grid of which outputs a resize changes.
 *
 * The kernel skips a resize only when batch, high_min and high_max all
 * equal the zone's pageset_* copy; any one of them changed must reach every
 * CPU's pageset. The grid: from a zone sized for (managed, low) = (12288,
 * 100), one resize to each of the eight combinations of changed outputs,
 * the inputs set by hand as a memory hotplug (managed) and a watermark
 * sysctl (low) leave them, then zone_pcp_update(zone, 0). The expected
 * sizing is the kernel's rule written out below, for 5 CPUs online on the
 * node: 12288 managed pages is the first with batch 3 (12287 gives 1), and
 * managed / 8 / 5 is 307 on both sides of it, so batch alone can change.
 */
#include "common.h"
#include "internal.h"

#define NR_CPUS 5

/* zone_batchsize() (CONFIG_MMU, 4K pages), then max(1, .) */
static int rule_batch(unsigned long managed)
{
	unsigned long b = managed >> 10, p = 1;

	if (b > 256) /* SZ_1M / PAGE_SIZE */
		b = 256;
	b /= 4;
	if (b < 1)
		b = 1;
	while (p * 2 <= b + b / 2) /* rounddown_pow_of_two() */
		p *= 2;
	return p - 1 > 1 ? (int)(p - 1) : 1;
}

/* zone_highsize(): the pages over the node's online CPUs, at least 4 batches */
static int rule_high(unsigned long total, int batch)
{
	unsigned long high = total / NR_CPUS;

	return high > 4UL * (unsigned long)batch ? (int)high : 4 * batch;
}

struct sizing {
	int batch, high_min, high_max;
};

/* percpu_pagelist_high_fraction 0: high_min from low, high_max from managed / 8 */
static struct sizing rule_sizing(unsigned long managed, unsigned long low)
{
	int batch = rule_batch(managed);

	return (struct sizing){batch, rule_high(low, batch), rule_high(managed / 8, batch)};
}

enum {
	CH_BATCH = 1,
	CH_MIN = 2,
	CH_MAX = 4
};

static unsigned int changed(struct sizing a, struct sizing b)
{
	return (a.batch != b.batch ? CH_BATCH : 0) | (a.high_min != b.high_min ? CH_MIN : 0) |
	       (a.high_max != b.high_max ? CH_MAX : 0);
}

static const struct resize_row {
	unsigned long managed, low;
	unsigned int changes; /* which outputs the rule moves from the base */
} rows[] = {
	{12288, 100, 0},
	{12287, 100, CH_BATCH},
	{12288, 105, CH_MIN},
	{12328, 100, CH_MAX},
	{12287, 105, CH_BATCH | CH_MIN},
	{12279, 100, CH_BATCH | CH_MAX},
	{12328, 105, CH_MIN | CH_MAX},
	{12279, 105, CH_BATCH | CH_MIN | CH_MAX},
};

static void set_inputs(struct zone *z, unsigned long managed, unsigned long low)
{
	atomic_long_set(&z->managed_pages, (long)managed);
	z->_watermark[WMARK_LOW] = low;
	zone_pcp_update(z, 0);
}

static void assert_sizing(const struct zone *z, struct sizing want, const char *what)
{
	ck_assert_msg(z->pageset_batch == want.batch && z->pageset_high_min == want.high_min &&
			      z->pageset_high_max == want.high_max,
		      "%s: the zone's sizing %d/%d/%d, the rule gives %d/%d/%d", what,
		      z->pageset_batch, z->pageset_high_min, z->pageset_high_max, want.batch,
		      want.high_min, want.high_max);
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		const struct per_cpu_pages *pcp = &z->per_cpu_pageset[cpu];
		ck_assert_msg(pcp->batch == want.batch && pcp->high_min == want.high_min &&
				      pcp->high_max == want.high_max,
			      "%s: cpu %u's pageset %d/%d/%d, the rule gives %d/%d/%d", what, cpu,
			      pcp->batch, pcp->high_min, pcp->high_max, want.batch, want.high_min,
			      want.high_max);
	}
}

START_TEST(test_resize_reaches_every_cpu)
{
	const struct resize_row *r = &rows[_i];
	const struct sizing base = rule_sizing(12288, 100), want = rule_sizing(r->managed, r->low);
	struct mm_config cfg;
	struct mm_sim *sim;
	struct zone *z;
	char what[80];

	ck_assert_int_eq(base.batch, 3);
	ck_assert_uint_eq(changed(base, want), r->changes);
	cfg_tiny(&cfg, NR_CPUS, 10, 9);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 12800, 12800);
	sim = sim_new(&cfg);
	z = &sim->node_data[0]->node_zones[ZONE_NORMAL];
	ck_assert_int_eq(sim->percpu_pagelist_high_fraction, 0);
	ck_assert_uint_eq(z->watermark_boost, 0);
	set_inputs(z, 12288, 100);
	assert_sizing(z, base, "the base");
	set_inputs(z, r->managed, r->low);
	snprintf(what, sizeof(what), "managed %lu, low %lu (changes %#x)", r->managed, r->low,
		 r->changes);
	assert_sizing(z, want, what);
	mm_sim_destroy(sim);
}
END_TEST

static Suite *pcp_resize_suite(void)
{
	Suite *s = suite_create("pcp_resize");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_resize_reaches_every_cpu, 0, (int)ARRAY_SIZE(rows));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(pcp_resize_suite());
}
