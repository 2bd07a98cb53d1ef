/* SPDX-License-Identifier: MIT */
/*
 * test_boost_rule.c - boost_watermark()'s decision and INV-BOOST-WAKE's
 * rule over the full grid of their inputs, against the kernel's rule
 * (mm/page_alloc.c, 6.10) written out here:
 *
 *   a fallback steal boosts the zone's marks, and asks kswapd's wake,
 *   iff  vm.watermark_boost_factor != 0
 *   and  4 * pageblock_nr_pages <= zone_managed_pages(zone)
 *   and  mult_frac(high, factor, 10000) != 0, i.e. high * factor >= 10000
 *
 * The model must boost (by a pageblock) exactly there, and the checker,
 * shown a wake request, must stay silent exactly there.
 */
#include "common.h"
#include "internal.h"

#define PB 8 /* pageblock_order 3 */

static bool kernel_boosts(unsigned long managed, unsigned long high, unsigned int factor)
{
	return factor != 0 && 4 * PB <= managed && (unsigned long long)high * factor >= 10000;
}

/* Each side of every bound: managed 4 pageblocks less one page and exactly;
 * high x factor at 0, below, at and above 10000. */
static const unsigned long managed_grid[] = {4 * PB - 1, 4 * PB, 8 * PB};
static const unsigned long high_grid[] = {0, 1, 2, 3, 4};
static const unsigned int factor_grid[] = {0, 1, 2499, 2500, 3333, 3334, 5000, 9999, 10000, 15000};

START_TEST(test_boost_and_wake_grid)
{
	unsigned long managed = managed_grid[_i];
	struct mm_config cfg;
	struct mm_sim *sim;
	struct zone *z;
	struct vrec vr;
	unsigned int rows = 0, boosts = 0;

	cfg_tiny(&cfg, 1, 3, 3);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 8 * PB, managed);
	sim = sim_new(&cfg);
	z = &sim->node_data[0]->node_zones[ZONE_NORMAL];
	ck_assert_uint_eq(zone_managed_pages(z), managed);
	sim_record(sim, &vr);
	for (size_t h = 0; h < ARRAY_SIZE(high_grid); h++) {
		for (size_t f = 0; f < ARRAY_SIZE(factor_grid); f++) {
			unsigned int factor = factor_grid[f];
			bool want = kernel_boosts(managed, high_grid[h], factor);

			mm_set_watermark_boost_factor(sim, factor);
			z->_watermark[WMARK_HIGH] = high_grid[h];
			z->watermark_boost = 0;
			atomic_fetch_and(&z->flags, ~ZONE_BOOSTED_WATERMARK);

			zone_lock(z);
			bool got = boost_watermark(z);
			zone_unlock(z);
			ck_assert_msg(
				got == want && z->watermark_boost == (want ? PB : 0),
				"managed %lu high %lu factor %u: boosted %d to %lu, the kernel "
				"%s",
				managed, high_grid[h], factor, got, z->watermark_boost,
				want ? "boosts by a pageblock" : "does not boost");

			/* a wake request: silent where the kernel boosts, reported elsewhere */
			atomic_fetch_or(&z->flags, ZONE_BOOSTED_WATERMARK);
			unsigned int before = vr.n;
			ck_assert_msg(_mm_check_boost_wake(z, factor) == (want ? 0 : 1),
				      "managed %lu high %lu factor %u: INV-BOOST-WAKE %s", managed,
				      high_grid[h], factor,
				      want ? "reported a wake the kernel asks for"
					   : "missed a wake without a boost");
			ck_assert_uint_eq(vr.n - before, want ? 0 : 1);
			rows++;
			boosts += want;
		}
	}
	ck_assert_uint_eq(rows, ARRAY_SIZE(high_grid) * ARRAY_SIZE(factor_grid));
	/* the grid reaches both answers wherever the zone is large enough */
	ck_assert(managed < 4 * PB ? boosts == 0 : boosts > 0 && boosts < rows);
	mm_sim_destroy(sim);
}
END_TEST

static Suite *boost_rule_suite(void)
{
	Suite *s = suite_create("boost_rule");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_boost_and_wake_grid, 0, (int)ARRAY_SIZE(managed_grid));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(boost_rule_suite());
}
