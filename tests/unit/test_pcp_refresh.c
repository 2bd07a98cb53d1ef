/* SPDX-License-Identifier: MIT */
/*
 * test_pcp_refresh.c - what the pcp lists owe to events outside the free
 * path: vm.stat_refresh decays every online CPU's high (6.7+
 * refresh_cpu_vm_stats(true) from vmstat_refresh()); a cacheinfo update
 * sets PCPF_FREE_HIGH_BATCH from the CPU's cache slice (6.10
 * zone_pcp_update_cacheinfo()), which lets the lists keep a batch of
 * high-order frees; INV-PCP-FREE-HIGH-BATCH holds the flag to that rule.
 */
#include "common.h"
#include "internal.h"

static struct zone *normal(struct mm_sim *sim)
{
	return &sim->node_data[0]->node_zones[ZONE_NORMAL];
}

/*
 * One Normal zone of the given pages, nr_cpus CPUs, pcp lists on, serial;
 * the cache slice and deferred init as given.
 */
static struct mm_sim *machine(unsigned int nr_cpus, uint64_t pages, unsigned int slice_kb,
			      uint64_t deferred)
{
	struct mm_config cfg;
	struct mm_sim *sim;

	cfg_tiny(&cfg, nr_cpus, 10, 9);
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, pages, pages);
	cfg.cache_slice_kb = slice_kb;
	cfg.deferred_init_pages = deferred;
	sim = sim_new(&cfg);
	mm_set_current_cpu(0);
	sim->serial = true;
	return sim;
}

static struct mm_sim *pcp_machine(unsigned int nr_cpus)
{
	return machine(nr_cpus, 4096, 0, 0);
}

/* The rule of decay_pcp_high() with empty lists: high - high / 8, at least high_min. */
static int decayed(int high, int high_min)
{
	int h = high - (high >> 3);

	return h > high_min ? h : high_min;
}

/*
 * vm.stat_refresh written on CPU 0 decays the high of every online CPU,
 * not only the writer's: CPU 1 and 2 from high_max; CPU 3, offline, is
 * left alone (schedule_on_each_cpu() runs on the online CPUs).
 */
START_TEST(test_stat_refresh_decays_every_online_cpu)
{
	struct mm_sim *sim = pcp_machine(4);
	struct zone *z = normal(sim);
	struct mm_op op = {.kind = MM_OP_STAT_REFRESH, .cpu = 0};
	struct vrec vr;

	sim_record(sim, &vr);
	ck_assert_int_eq(mm_cpu_offline(sim, 3), 0);
	int lo = z->per_cpu_pageset[1].high_min, hi = z->per_cpu_pageset[1].high_max;
	ck_assert_int_lt(lo, decayed(hi, lo));
	for (int cpu = 1; cpu < 4; cpu++)
		z->per_cpu_pageset[cpu].high = hi;
	ck_assert_int_eq(mm_apply_op(sim, &op, NULL, 0, 0), 0);
	ck_assert_int_eq(z->per_cpu_pageset[1].high, decayed(hi, lo));
	ck_assert_int_eq(z->per_cpu_pageset[2].high, decayed(hi, lo));
	ck_assert_int_eq(z->per_cpu_pageset[3].high, hi);
	/* a second write decays again */
	ck_assert_int_eq(mm_apply_op(sim, &op, NULL, 0, 0), 0);
	ck_assert_int_eq(z->per_cpu_pageset[2].high, decayed(decayed(hi, lo), lo));
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * The decay frees the pages above the new high to the buddy; the estimate
 * was exact after the fold (INV-VMSTAT-EXACT judged there), and the
 * decay's frees wait in the writer's diff, as in the kernel.
 */
START_TEST(test_stat_refresh_decay_drains_above_high)
{
	struct mm_sim *sim = pcp_machine(2);
	struct zone *z = normal(sim);
	struct per_cpu_pages *pcp = &z->per_cpu_pageset[1];
	struct mm_op op = {.kind = MM_OP_STAT_REFRESH, .cpu = 0};
	struct vrec vr;
	uint32_t gen[64];
	long long pfn[64];

	sim_record(sim, &vr);
	mm_set_current_cpu(1);
	for (int i = 0; i < 64; i++)
		pfn[i] = mm_alloc_pages(sim, 0, MM_GFP_KERNEL | MM_GFP_MOVABLE, -1, 1, &gen[i]);
	for (int i = 0; i < 64; i++)
		mm_free_pages(sim, (uint64_t)pfn[i], 0, 1, gen[i]);
	mm_set_current_cpu(0);
	int count = pcp->count, lo = pcp->high_min;
	ck_assert_int_gt(count, lo); /* the frees raised high above high_min to keep them */
	pcp->high = count;
	int want = decayed(count, lo);
	ck_assert_int_lt(want, count);
	ck_assert_int_eq(mm_apply_op(sim, &op, NULL, 0, 0), 0);
	ck_assert_int_eq(pcp->high, want);
	ck_assert_int_le(pcp->count, want);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/* ------------------------------------------------------------------------
 * PCPF_FREE_HIGH_BATCH
 * ---------------------------------------------------------------------- */

#define GFP_MOV (MM_GFP_KERNEL | MM_GFP_MOVABLE)

/* One Normal zone of 65536 pages (batch 15), 2 CPUs, the given cache slice. */
static struct mm_sim *slice_machine(unsigned int slice_kb, uint64_t deferred)
{
	return machine(2, 65536, slice_kb, deferred);
}

static bool batch_flag(struct mm_sim *sim, unsigned int cpu)
{
	return normal(sim)->per_cpu_pageset[cpu].flags & PCPF_FREE_HIGH_BATCH;
}

/*
 * At boot each CPU's flag is set iff the slice holds more than 3 batches:
 * batch 15, so 45 pages (180 KB) is not enough and 46 (184 KB) is; no
 * slice (0, cacheinfo absent) leaves it clear.
 */
START_TEST(test_cacheinfo_flag_at_boot)
{
	static const struct {
		unsigned int kb;
		bool set;
	} t[] = {{0, false}, {4, false}, {180, false}, {183, false}, {184, true}, {4096, true}};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct mm_sim *sim = slice_machine(t[i].kb, 0);
		struct vrec vr;

		sim_record(sim, &vr);
		ck_assert_int_eq(normal(sim)->per_cpu_pageset[0].batch, 15);
		for (unsigned int cpu = 0; cpu < 2; cpu++)
			ck_assert_msg(batch_flag(sim, cpu) == t[i].set, "%u KB, cpu %u: flag %d",
				      t[i].kb, cpu, batch_flag(sim, cpu));
		ck_assert_msg(vr.n == 0, "%s", vr.first);
		mm_sim_destroy(sim);
	}
}
END_TEST

/* Frees n order-1 blocks on cpu that the other CPU allocated; returns cpu's count after. */
static int order1_frees(struct mm_sim *sim, unsigned int cpu, int n)
{
	uint32_t gen[32];
	long long pfn[32];

	ck_assert_int_le(n, 32);
	mm_set_current_cpu(!cpu);
	for (int i = 0; i < n; i++) {
		pfn[i] = mm_alloc_pages(sim, 1, GFP_MOV, -1, 1, &gen[i]);
		ck_assert_int_ge(pfn[i], 0);
	}
	mm_set_current_cpu(cpu);
	for (int i = 0; i < n; i++)
		mm_free_pages(sim, (uint64_t)pfn[i], 1, 1, gen[i]);
	mm_set_current_cpu(0);
	return normal(sim)->per_cpu_pageset[cpu].count;
}

/*
 * 17 consecutive order-1 frees on a fresh CPU 0 (batch 15; free_count
 * grows by 2 a free). Without the flag: free 9 (free_count 16) flushes
 * all 18 pages, and from then on each free flushes itself: count 0. With
 * it, free_high also needs a batch on the lists: free 9 flushes the 18,
 * frees 10..16 keep theirs (count 2..14 < 15), free 17 (count 16) flushes
 * min(16, 15 << 5) = 16: count 0; after 16 frees the count is 14.
 */
START_TEST(test_free_high_batch_keeps_a_batch)
{
	struct {
		unsigned int kb;
		int frees, count;
	} t[] = {{0, 16, 0}, {0, 17, 0}, {4096, 16, 14}, {4096, 17, 0}, {4096, 9, 0}};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct mm_sim *sim = slice_machine(t[i].kb, 0);
		struct vrec vr;

		sim_record(sim, &vr);
		int count = order1_frees(sim, 0, t[i].frees);
		ck_assert_msg(count == t[i].count, "%u KB, %d frees: count %d, want %d", t[i].kb,
			      t[i].frees, count, t[i].count);
		ck_assert_msg(vr.n == 0, "%s", vr.first);
		ck_assert_uint_eq(mm_check_full(sim), 0);
		mm_sim_destroy(sim);
	}
}
END_TEST

/*
 * The flag is judged against the batch of its update only. A slice of
 * 100 KB (25 pages) holds 3 boot batches while deferred init keeps the
 * zone small; once init completes the batch is 15 and the rule would
 * clear it, but nothing re-runs it (as in the kernel) until a CPU comes
 * up: then that CPU's flag is cleared and the other's stays, and the
 * checker judges that CPU's frees by the cleared flag from then on.
 */
START_TEST(test_cacheinfo_flag_follows_cpu_online)
{
	struct mm_sim *sim = slice_machine(100, 512);
	struct zone *z = normal(sim);
	struct mm_op done = {.kind = MM_OP_DEFERRED_COMPLETE, .cpu = 0};
	struct vrec vr;

	sim_record(sim, &vr);
	ck_assert_int_lt(3 * z->per_cpu_pageset[0].batch, 25);
	ck_assert(batch_flag(sim, 0) && batch_flag(sim, 1));
	ck_assert_int_eq(mm_apply_op(sim, &done, NULL, 0, 0), 0);
	ck_assert_int_eq(z->per_cpu_pageset[1].batch, 15);
	ck_assert(batch_flag(sim, 0) && batch_flag(sim, 1));
	order1_frees(sim, 0, 17); /* the frees follow the stale flag: no violation */
	ck_assert_int_eq(mm_cpu_offline(sim, 1), 0);
	ck_assert_int_eq(mm_cpu_online(sim, 1), 0);
	ck_assert(batch_flag(sim, 0) && !batch_flag(sim, 1));
	/* the checker noted the update: CPU 1's frees follow the cleared flag */
	ck_assert_int_eq(order1_frees(sim, 1, 17), 0);
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	ck_assert_uint_eq(mm_check_full(sim), 0);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * INV-PCP-FREE-HIGH-BATCH fires on a cacheinfo update that left the flag
 * off the rule, and on a free that finds or leaves it other than the
 * last update gave.
 */
START_TEST(test_free_high_batch_fires)
{
	struct mm_sim *sim = slice_machine(4096, 0);
	struct zone *z = normal(sim);
	struct per_cpu_pages *pcp = &z->per_cpu_pageset[0];
	struct vrec vr;

	sim_record(sim, &vr);
	_mm_oracle_note_cacheinfo(z, 0);
	ck_assert_uint_eq(vr.n, 0);
	pcp->flags &= (uint8_t)~PCPF_FREE_HIGH_BATCH; /* an update that cleared it */
	_mm_oracle_note_cacheinfo(z, 0);
	ck_assert_uint_eq(vr.n, 1);
	ck_assert(vrec_has(&vr, "INV-PCP-FREE-HIGH-BATCH"));
	/* the note took the rule's flag: a free with the model's (clear) one fires */
	order1_frees(sim, 0, 1);
	ck_assert_uint_eq(vr.n, 2);
	mm_sim_destroy(sim);

	sim = slice_machine(0, 0);
	sim_record(sim, &vr);
	normal(sim)->per_cpu_pageset[0].flags |= PCPF_FREE_HIGH_BATCH; /* set by nobody */
	order1_frees(sim, 0, 1);
	ck_assert(vrec_has(&vr, "INV-PCP-FREE-HIGH-BATCH"));
	mm_sim_destroy(sim);
}
END_TEST

/* The config line's cache_slice_kb: parsed, printed only when set, kept by the binary form. */
START_TEST(test_cache_slice_in_the_op_language)
{
	const char *text = "config nodes=1 cpus=2 max_order=10 pageblock_order=9 min_free_kbytes=0 "
			   "watermark_scale_factor=10 high_fraction=0 cache_slice_kb=2048\n"
			   "zone 0 Normal start=0 spanned=1024 present=1024 managed=1024\n"
			   "check\n";
	struct mm_prog p, back;
	struct mm_limits lim;
	char err[160] = "", *out = NULL;
	size_t outlen = 0;
	uint8_t buf[256];

	mm_prog_init(&p);
	mm_prog_init(&back);
	ck_assert_msg(mm_parse_prog(text, &p, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(p.cfg.cache_slice_kb, 2048);
	FILE *f = open_memstream(&out, &outlen);
	mm_print_prog(f, &p);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(out, " cache_slice_kb=2048\n"));
	free(out);
	long n = mm_encode(&p, buf, sizeof(buf));
	ck_assert_int_gt(n, 0);
	mm_limits_default(&lim);
	ck_assert_int_eq(mm_decode(buf, (size_t)n, &lim, &back), 0);
	ck_assert_uint_eq(back.cfg.cache_slice_kb, 2048);
	p.cfg.cache_slice_kb = 65536;
	ck_assert_int_ne(mm_config_validate(&p.cfg, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(strstr(err, "cache_slice_kb"));
	mm_prog_free(&p);
	mm_prog_free(&back);
}
END_TEST

/*
 * The boot's cacheinfo walk (cacheinfo_sysfs_init()) on a machine built
 * in a sim that held a larger one (the fuzz targets' per-input reset):
 * only this machine's CPUs are walked; the online marks past them are the
 * old machine's. A DMA zone of 4096 pages (batch 1) and a Normal zone of
 * 65536 (batch 15) with a 64 KB slice (16 pages): the rule sets the flag
 * on every DMA pageset (16 > 3) and on no Normal one (16 <= 45). Each row
 * boots the old machine's CPUs, then the new one's; every pageset of the
 * new machine must hold the rule's flag. A walk one CPU too far flags
 * Normal's CPU 0, the next pageset in the zones x CPUs buffer.
 */
static const unsigned int boot_after[][2] = {{1, 1}, {2, 1}, {3, 1}, {3, 2}, {4, 2}, {2, 2}};

static void two_zones(struct mm_config *cfg, unsigned int nr_cpus)
{
	cfg_tiny(cfg, nr_cpus, 10, 9);
	cfg_zone(cfg, 0, ZONE_DMA, 0, 4096, 4096);
	cfg_zone(cfg, 0, ZONE_NORMAL, 4096, 65536, 65536);
	cfg->cache_slice_kb = 64;
}

START_TEST(test_cacheinfo_boot_after_a_larger_machine)
{
	const unsigned int old_cpus = boot_after[_i][0], cpus = boot_after[_i][1];
	const unsigned long slice_pages = 64 >> 2; /* 4 KB pages */
	struct mm_config cfg;
	struct mm_sim *sim;
	struct vrec vr;

	two_zones(&cfg, old_cpus);
	sim = sim_new(&cfg);
	two_zones(&cfg, cpus);
	ck_assert_int_eq(mm_sim_init(sim, &cfg, -1), 0);
	ck_assert_uint_eq(mm_nr_cpus(sim), cpus);
	sim_record(sim, &vr);
	for (unsigned int i = 0; i < 2; i++) {
		const int zt = i ? ZONE_NORMAL : ZONE_DMA, batch = i ? 15 : 1;
		const struct zone *z = &sim->node_data[0]->node_zones[zt];
		const bool want = slice_pages > 3UL * (unsigned long)batch;

		ck_assert_ptr_nonnull(z->per_cpu_pageset);
		for (unsigned int cpu = 0; cpu < cpus; cpu++) {
			const struct per_cpu_pages *pcp = &z->per_cpu_pageset[cpu];
			bool got = pcp->flags & PCPF_FREE_HIGH_BATCH;

			ck_assert_int_eq(pcp->batch, batch);
			ck_assert_msg(got == want,
				      "%u CPUs after %u: zone %d cpu %u flag %d, the rule %d", cpus,
				      old_cpus, zt, cpu, got, want);
		}
	}
	ck_assert_msg(vr.n == 0, "%s", vr.first);
	mm_sim_destroy(sim);
}
END_TEST

static Suite *pcp_refresh_suite(void)
{
	Suite *s = suite_create("pcp_refresh");
	TCase *tc = tcase_create("stat_refresh");

	tcase_add_test(tc, test_stat_refresh_decays_every_online_cpu);
	tcase_add_test(tc, test_stat_refresh_decay_drains_above_high);
	suite_add_tcase(s, tc);
	tc = tcase_create("free_high_batch");
	tcase_add_test(tc, test_cacheinfo_flag_at_boot);
	tcase_add_test(tc, test_free_high_batch_keeps_a_batch);
	tcase_add_test(tc, test_cacheinfo_flag_follows_cpu_online);
	tcase_add_test(tc, test_free_high_batch_fires);
	tcase_add_test(tc, test_cache_slice_in_the_op_language);
	tcase_add_loop_test(tc, test_cacheinfo_boot_after_a_larger_machine, 0,
			    (int)ARRAY_SIZE(boot_after));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(pcp_refresh_suite());
}
