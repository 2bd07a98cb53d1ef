/* SPDX-License-Identifier: MIT */
/*
 * test_compact_in_flight.c - the counts compact_zone() keeps under
 * threads for the checker: compact_in_flight, the passes running on the
 * zone, and compact_pass_starts, the passes begun. The threaded checks
 * judge only a pass that ran alone (compact_quiet_begin() wants
 * compact_in_flight == 1, and no pass start or reset since): a count
 * that drifts leaves them silent for the rest of the run, and nothing
 * else shows it. test_compact_threads sets the counts by hand; here
 * real passes must keep them, seen from inside each pass (the jitter
 * point right after zone->lock is taken) and after it.
 */
#include "test_taken_zone.h"

struct seen {
	struct zone *zone;
	unsigned int points, bad_in_flight, bad_starts;
	unsigned int want_starts;
};

/* Under zone->lock inside a pass: this pass alone, begun as the want_starts-th. */
static void look(void *arg)
{
	struct seen *s = arg;

	s->points++;
	if (atomic_load(&s->zone->compact_in_flight) != 1)
		s->bad_in_flight++;
	if (atomic_load(&s->zone->compact_pass_starts) != s->want_starts)
		s->bad_starts++;
}

/*
 * 1 node, 2 CPUs, a Normal zone of 256 pages in pageblocks of 32, not
 * serial; every other page free, so no order-5 block is free and the
 * zone is suitable. Three sync full passes, one after another on this
 * thread: each sees itself alone in flight and counted begun, and leaves
 * the zone with none in flight.
 */
START_TEST(test_passes_counted_in_flight)
{
	struct vrec vr;
	struct taken_zone t = taken_zone(2, 256, 2, false, &vr);
	struct zone *zone = t.zone;
	struct mm_sim *sim = t.sim;

	mm_set_migrate_src(sim, &lru_refusing);
	struct seen s = {.zone = zone};
	unsigned int starts = atomic_load(&zone->compact_pass_starts);
	for (unsigned int i = 1; i <= 3; i++) {
		s.want_starts = starts + i;
		unsigned int points = s.points;
		mm_set_jitter(sim, look, &s);
		int rc = mm_compact_zone(sim, 0, ZONE_NORMAL, 5, MM_COMPACT_PRIO_SYNC_FULL,
					 MM_MIGRATE_SYNC, MIGRATE_MOVABLE);
		mm_set_jitter(sim, NULL, NULL);
		ck_assert_int_ge(rc, 0);
		ck_assert_msg(s.points > points, "pass %u took zone->lock nowhere", i);
		ck_assert_uint_eq(atomic_load(&zone->compact_in_flight), 0);
		ck_assert_uint_eq(atomic_load(&zone->compact_pass_starts), starts + i);
	}
	ck_assert_msg(s.bad_in_flight == 0, "%u of %u points saw another count in flight",
		      s.bad_in_flight, s.points);
	ck_assert_msg(s.bad_starts == 0, "%u of %u points saw another start count", s.bad_starts,
		      s.points);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	taken_zone_destroy(&t);
}
END_TEST

static Suite *compact_in_flight_suite(void)
{
	Suite *s = suite_create("compact_in_flight");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_passes_counted_in_flight);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(compact_in_flight_suite());
}
