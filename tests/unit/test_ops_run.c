/* SPDX-License-Identifier: MIT */
/*
 * test_ops_run.c - every op kind, on a machine where it can act, runs:
 * its entry returns 0 and the executor counts no op skipped
 * (mm_exec_skipped()). A skip is an op that did nothing (an offline CPU,
 * a handle or mm not live, a node or zone the machine lacks); the figure
 * is what a fuzz run's statistics and a replay report, so an op that ran
 * and called itself skipped is a wrong figure. The skips themselves are
 * held by test_kswapd_ops_skip and test_fires' out-of-range rows.
 */
#include "common.h"

#define CONFIG                                                                                     \
	"config nodes=1 cpus=2 max_order=10 pageblock_order=9 watermark_scale_factor=10 "          \
	"high_fraction=0"
#define ZONES                                                                                      \
	"zone 0 DMA32 start=0 spanned=1024 present=1024 managed=1024\n"                            \
	"zone 0 Normal start=1024 spanned=2048 present=2048 managed=2048\n"
/* Normal boots with 512 of its pages, the rest deferred */
#define BASE	 " min_free_kbytes=0"
#define DEFERRED BASE " deferred_init_pages=512"
/* a min above the 3,072 pages: kswapd's node is unbalanced from boot */
#define PRESSED " min_free_kbytes=65535"
#define WOKEN	"cpu0 kswapd_wake node=0 zone=Normal order=0\n"
#define FORKED	"cpu0 fork m0\n"
#define FILLED	"cpu0 fill zone=Normal order=0 pages=16 unmovable_every=0 busy_every=0\n"
#define RANGE	"node=0 zone=Normal start=2560 pages=512"

static const struct {
	const char *kind;
	const char *config; /* appended to the config line */
	const char *ops;
} rows[] = {
	{"alloc", BASE, "cpu0 alloc a0 order=0"},
	{"free", BASE, "cpu0 alloc a0 order=0\ncpu1 free a0"},
	{"offline", BASE, "cpu1 offline"},
	{"online", BASE, "cpu1 offline\ncpu1 online"},
	{"min_free_kbytes", BASE, "cpu0 sysctl min_free_kbytes=512"},
	{"watermark_scale_factor", BASE, "cpu0 sysctl watermark_scale_factor=200"},
	{"check", BASE, "check"},
	{"drain", BASE, "cpu0 alloc a0 order=0\ncpu0 free a0\ncpu0 drain"},
	{"drain_all", BASE, "cpu0 alloc a0 order=0\ncpu0 free a0\ncpu1 drain all"},
	{"deferred_init", DEFERRED, "cpu0 deferred_init node=0 pageblocks=1"},
	{"deferred_init_complete", DEFERRED, "cpu0 deferred_init complete"},
	{"pcp_disable", BASE, "cpu0 pcp_disable node=0 zone=Normal"},
	{"pcp_enable", BASE,
	 "cpu0 pcp_disable node=0 zone=Normal\ncpu0 pcp_enable node=0 zone=Normal"},
	{"percpu_pagelist_high_fraction", BASE, "cpu0 sysctl percpu_pagelist_high_fraction=8"},
	{"pcpu_add", BASE, "cpu0 pcpu_add c1 amount=5"},
	{"pcpu_compare", BASE, "cpu0 pcpu_compare c1 rhs=3"},
	{"pcpu_set", BASE, "cpu0 pcpu_set c1 value=5"},
	{"pcpu_sync", BASE, "cpu0 pcpu_sync c1"},
	{"mmap", BASE, FORKED "cpu0 mmap m0 pages=4 type=anon"},
	{"brk", BASE, FORKED "cpu0 brk m0 pages=4"},
	{"munmap", BASE, FORKED "cpu0 mmap m0 pages=4 type=anon\ncpu0 munmap m0 pages=4 type=anon"},
	{"fork", BASE, FORKED},
	{"exit", BASE, FORKED "cpu0 exit m0"},
	{"overcommit_memory", BASE, "cpu0 sysctl overcommit_memory=2"},
	{"vmstat_fold", BASE, "cpu0 vmstat_fold"},
	{"vmstat_read", BASE, "cpu0 vmstat_read node=0 zone=Normal how=snapshot"},
	{"vmstat_refresh", BASE, "cpu0 vmstat_refresh"},
	{"kswapd_wake", BASE, "cpu0 kswapd_wake node=0 zone=Normal order=0"},
	{"kswapd_step", PRESSED, WOKEN "cpu0 kswapd_step node=0"},
	/* balanced again once the sysctl drops the marks: kswapd may sleep */
	{"kswapd_sleep", PRESSED, WOKEN "cpu0 sysctl min_free_kbytes=0\ncpu0 kswapd_sleep node=0"},
	{"stat_refresh", BASE, "cpu0 stat_refresh"},
	{"compact", BASE,
	 FILLED "cpu0 compact node=0 zone=Normal order=2 prio=sync_full mode=sync mt=movable"},
	{"kcompactd", BASE, FILLED "cpu0 kcompactd node=0 order=2"},
	{"reset_skip", BASE, "cpu0 reset_skip node=0"},
	{"fill", BASE, FILLED},
	{"free_pattern", BASE, FILLED "cpu0 free_pattern every=2 offset=0"},
	{"offline_pages", BASE, "cpu0 offline_pages " RANGE},
	{"online_pages", BASE, "cpu0 offline_pages " RANGE "\ncpu0 online_pages " RANGE},
	{"alloc_contig_range", BASE, "cpu0 alloc_contig_range " RANGE},
	{"free_contig_range", BASE,
	 "cpu0 alloc_contig_range " RANGE "\ncpu0 free_contig_range " RANGE},
	{"watermark_boost_factor", BASE, "cpu0 sysctl watermark_boost_factor=0"},
};

START_TEST(test_op_that_acts_is_not_skipped)
{
	struct mm_exec *ex = mm_exec_create();
	struct mm_exec_opts o;
	struct vrec vr;
	char text[1024];
	long failed;

	snprintf(text, sizeof(text), "%s%s\n%s%s\n", CONFIG, rows[_i].config, ZONES, rows[_i].ops);
	mm_exec_opts_default(&o);
	ck_assert_int_eq(exec_text(ex, text, &o, &vr, &failed), 0);
	ck_assert_msg(vr.n == 0, "%s: %s", rows[_i].kind, vr.first);
	ck_assert_msg(mm_exec_skipped(ex) == 0, "%s: %lu ops counted skipped", rows[_i].kind,
		      mm_exec_skipped(ex));
	mm_exec_destroy(ex);
}
END_TEST

/* The table names every op kind `mmfuzz ops` lists, once. */
START_TEST(test_rows_cover_every_op_kind)
{
	for (unsigned int k = 0; k < MM_NR_OP_KINDS; k++) {
		size_t i = 0;
		while (i < ARRAY_SIZE(rows) && strcmp(rows[i].kind, mm_op_name(k)))
			i++;
		ck_assert_msg(i < ARRAY_SIZE(rows), "no row runs op kind '%s'", mm_op_name(k));
	}
	ck_assert_uint_eq(ARRAY_SIZE(rows), MM_NR_OP_KINDS);
}
END_TEST

/*
 * mm_apply_op()'s contract: 0, or 1 for a skipped op, whoever built the
 * op. The decoder and the parser keep vm.overcommit_memory to 0..2; a
 * caller's op with 3 is refused by the sysctl (-1) and counts one skip,
 * the policy unchanged. So does an op kind past the table.
 */
START_TEST(test_refused_op_counts_one_skip)
{
	struct mm_config cfg;
	struct mm_sim *sim;
	struct mm_op op = {.kind = MM_OP_SET_OVERCOMMIT, .cpu = 0, .sysctl = {.value = 3}};

	cfg_tiny(&cfg, 1, 3, 2);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 64, 64);
	sim = sim_new(&cfg);
	ck_assert_int_eq(mm_overcommit_policy(sim), MM_OVERCOMMIT_GUESS);
	ck_assert_int_eq(mm_apply_op(sim, &op, NULL, 0, 0), 1);
	ck_assert_int_eq(mm_overcommit_policy(sim), MM_OVERCOMMIT_GUESS);
	op.sysctl.value = MM_OVERCOMMIT_NEVER;
	ck_assert_int_eq(mm_apply_op(sim, &op, NULL, 0, 0), 0);
	ck_assert_int_eq(mm_overcommit_policy(sim), MM_OVERCOMMIT_NEVER);
	op.kind = MM_NR_OP_KINDS;
	ck_assert_int_eq(mm_apply_op(sim, &op, NULL, 0, 0), 1);
	mm_sim_destroy(sim);
}
END_TEST

static Suite *ops_run_suite(void)
{
	Suite *s = suite_create("ops_run");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_op_that_acts_is_not_skipped, 0, (int)ARRAY_SIZE(rows));
	tcase_add_test(tc, test_rows_cover_every_op_kind);
	tcase_add_test(tc, test_refused_op_counts_one_skip);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(ops_run_suite());
}
