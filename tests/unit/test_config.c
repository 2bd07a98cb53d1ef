/* SPDX-License-Identifier: MIT */
/*
 * test_config.c - mm_config_validate(): every machine the model cannot
 * build is refused with the line that says why, and mm_sim_init()
 * refuses it too. The parsers (ops.c, ops_text.c, the CLI) build their
 * machines through it, so its messages are what a user sees for a bad
 * machine description. Each row breaks one field of a good machine.
 */
#include "common.h"

/* 1 node, 2 CPUs, DMA32 [0, 1024) and Normal [1024, 2048): valid. */
static void good(struct mm_config *cfg)
{
	mm_config_default(cfg);
}

static void no_nodes(struct mm_config *c)
{
	c->nr_nodes = 0;
}

static void too_many_nodes(struct mm_config *c)
{
	c->nr_nodes = MM_MAX_NODES + 1;
}

static void no_cpus(struct mm_config *c)
{
	c->cpus_per_node[0] = 0;
}

static void too_many_cpus(struct mm_config *c)
{
	c->cpus_per_node[0] = MM_MAX_CPUS + 1;
}

static void order_zero(struct mm_config *c)
{
	c->max_order = 0;
}

static void order_too_big(struct mm_config *c)
{
	c->max_order = MM_MAX_PAGE_ORDER + 1;
}

static void pageblock_too_small(struct mm_config *c)
{
	c->pageblock_order = c->max_order - 2;
}

static void pageblock_too_big(struct mm_config *c)
{
	c->pageblock_order = c->max_order + 1;
}

static void wsf_zero(struct mm_config *c)
{
	c->watermark_scale_factor = 0;
}

static void wsf_too_big(struct mm_config *c)
{
	c->watermark_scale_factor = 3001;
}

static void fraction_too_small(struct mm_config *c)
{
	c->percpu_pagelist_high_fraction = 7;
}

static void managed_over_present(struct mm_config *c)
{
	c->zones[0][ZONE_NORMAL].managed = c->zones[0][ZONE_NORMAL].present + 1;
}

static void present_over_spanned(struct mm_config *c)
{
	c->zones[0][ZONE_NORMAL].present = c->zones[0][ZONE_NORMAL].spanned + 1;
}

static void device_zone(struct mm_config *c)
{
	c->zones[0][ZONE_DEVICE] = (struct mm_zone_config){4096, 512, 512, 512};
}

static void pfn_too_high(struct mm_config *c)
{
	c->zones[0][ZONE_MOVABLE] =
		(struct mm_zone_config){UINT64_C(0xffffffff) - 512, 512, 512, 0};
}

static void zones_overlap(struct mm_config *c)
{
	c->zones[0][ZONE_NORMAL].start_pfn = 512;
}

static void nothing_managed(struct mm_config *c)
{
	c->zones[0][ZONE_DMA32].managed = 0;
	c->zones[0][ZONE_NORMAL].managed = 0;
}

static const struct {
	void (*breaks)(struct mm_config *c);
	const char *says;
} rows[] = {
	{no_nodes, "nodes must be 1..64, not 0"},
	{too_many_nodes, "nodes must be 1..64, not 65"},
	{no_cpus, "the machine needs 1..1024 CPUs, not 0"},
	{too_many_cpus, "the machine needs 1..1024 CPUs, not 1025"},
	{order_zero, "max_order must be 1..10, not 0"},
	{order_too_big, "max_order must be 1..10, not 11"},
	{pageblock_too_small, "pageblock_order must be max_order-1 or max_order (9 or 10), not 8"},
	{pageblock_too_big, "pageblock_order must be max_order-1 or max_order (9 or 10), not 11"},
	{wsf_zero, "watermark_scale_factor must be 1..3000, not 0"},
	{wsf_too_big, "watermark_scale_factor must be 1..3000, not 3001"},
	{fraction_too_small, "percpu_pagelist_high_fraction must be 0 or >= 8, not 7"},
	{managed_over_present, "node 0 zone Normal: need managed <= present <= spanned"},
	{present_over_spanned, "node 0 zone Normal: need managed <= present <= spanned"},
	{device_zone, "node 0: the Device zone is modelled empty"},
	{pfn_too_high, "node 0 zone Movable: pfns must stay below 2^32-1"},
	{zones_overlap, "node 0 zone Normal overlaps node 0 zone DMA32"},
	{nothing_managed, "the machine has no managed pages"},
};

START_TEST(test_config_refused)
{
	struct mm_config cfg;
	struct mm_sim *sim;
	char err[160] = "";

	good(&cfg);
	ck_assert_int_eq(mm_config_validate(&cfg, err, sizeof(err)), 0);
	ck_assert_str_eq(err, "");
	rows[_i].breaks(&cfg);
	ck_assert_int_eq(mm_config_validate(&cfg, err, sizeof(err)), -1);
	ck_assert_str_eq(err, rows[_i].says);
	/* no buffer for the reason: still refused */
	ck_assert_int_eq(mm_config_validate(&cfg, NULL, 0), -1);
	sim = mm_sim_create();
	ck_assert_ptr_nonnull(sim);
	ck_assert_int_eq(mm_sim_init(sim, &cfg, -1), -1);
	mm_sim_destroy(sim);
}
END_TEST

static Suite *config_suite(void)
{
	Suite *s = suite_create("config");
	TCase *tc = tcase_create("validate");

	tcase_add_loop_test(tc, test_config_refused, 0, (int)ARRAY_SIZE(rows));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(config_suite());
}
