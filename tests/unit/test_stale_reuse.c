/* SPDX-License-Identifier: MIT */
/*
 * test_stale_reuse.c - a machine booted in a sim that held a larger one
 * runs as it would in a fresh sim. A fuzz target boots every input in
 * the same sim: the buffers keep their largest size, and mm_sim_init()
 * resets the new machine's part only, so everything past it (the CPUs
 * past nr_cpus, the pagesets past the populated zones, the nodes past
 * nr_nodes, the memmap past max_pfn) holds the last machine's values. In
 * a unit test's fresh sim those reads would be past an allocation, where
 * ASan reports them; in a fuzz run nothing would. Here, after the boot,
 * every such byte is overwritten with a value no machine writes (online
 * CPUs, thresholds past the kernel's 125, pfns past max_pfn), and each
 * program's outcome is compared with a fresh sim's: the violations, the
 * op that found the first, the skipped ops, and the machine as its /proc
 * files print it (zoneinfo, pagetypeinfo, vmstat: every zone's counters,
 * marks, pagesets and free lists). Not the snapshot's bytes: those hold
 * struct padding, which no allocation path keeps to one value yet. A loop bound one past the
 * machine (a `cpu <= nr_cpus`) reads the poison and shows as a difference, or a crash.
 */
#include "common.h"
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROGS_PER_TARGET 64
#define POISON		 0xa5

/* The largest machine the test grows the buffers with: 8 nodes of 32 CPUs. */
static void big_config(struct mm_config *cfg)
{
	cfg_tiny(cfg, 32, 6, 5);
	cfg->nr_nodes = 8;
	for (unsigned int n = 0; n < 8; n++) {
		cfg->cpus_per_node[n] = 32;
		cfg_zone(cfg, n, ZONE_DMA32, 4096 * n, 1024, 1024);
		cfg_zone(cfg, n, ZONE_NORMAL, 4096 * n + 1024, 3072, 3072);
	}
}

/* Overwrites what lies past the booted machine in the sim's reused buffers. */
static void poison_past_the_machine(void *arg)
{
	struct mm_sim *sim = mm_exec_sim(arg);
	size_t zones = 0;

	for (unsigned int n = 0; n < sim->nr_nodes; n++)
		for (int zt = 0; zt < MAX_NR_ZONES; zt++)
			zones += sim->cfg.zones[n][zt].present != 0;
	size_t slots = zones * sim->nr_cpus;

	for (unsigned int c = sim->nr_cpus; c < MM_MAX_CPUS; c++) {
		atomic_store(&sim->cpu_online[c], true);
		sim->cpu_to_node[c] = (int)sim->nr_nodes;
	}
	for (unsigned int n = sim->nr_nodes; n < MM_MAX_NODES; n++)
		atomic_store(&sim->node_nr_online[n], 1000);
	memset(sim->pcp_buf + slots, POISON, (sim->pcp_cap - slots) * sizeof(*sim->pcp_buf));
	memset(sim->zonestat_buf + slots, POISON,
	       (sim->zonestat_cap - slots) * sizeof(*sim->zonestat_buf));
	memset(sim->cpu_stats + sim->nr_cpus, POISON,
	       (sim->cpu_stats_cap - sim->nr_cpus) * sizeof(*sim->cpu_stats));
	memset(sim->mem_map + sim->max_pfn, POISON,
	       (sim->memmap_cap - sim->max_pfn) * sizeof(*sim->mem_map));
	size_t blocks = (size_t)(sim->max_pfn >> sim->pageblock_order) + 1;
	memset(sim->pageblock_flags + blocks, POISON, sim->pb_cap - blocks);
	for (unsigned int n = 0; n < sim->nr_nodes; n++) {
		struct pglist_data *pgdat = sim->node_data[n];
		unsigned int i = 0;
		while (pgdat->zonelist[i])
			i++;
		/* past the NULL: the last machine's zones, here a node that is not */
		for (i++; i <= MM_MAX_ZONEREFS; i++)
			pgdat->zonelist[i] = &sim->pgdat_buf[0].node_zones[MAX_NR_ZONES - 1];
	}
}

struct outcome {
	long violations, failed_op;
	unsigned long skipped;
	char *text; /* the /proc files */
	size_t len;
};

static void ignore_violation(const struct mm_violation *v, void *arg)
{
	(void)v;
	(void)arg;
}

static void run(struct mm_exec *ex, const struct mm_prog *p, bool poison, struct outcome *o)
{
	struct mm_exec_opts opts;

	mm_exec_opts_default(&opts);
	opts.check_every = 16;
	opts.on_violation = ignore_violation;
	opts.arg = ex;
	opts.on_boot = poison ? poison_past_the_machine : NULL;
	o->violations = mm_exec_run(ex, p, &opts, &o->failed_op);
	o->skipped = mm_exec_skipped(ex);
	free(o->text);
	FILE *f = open_memstream(&o->text, &o->len);
	ck_assert_ptr_nonnull(f);
	mm_print_zoneinfo(f, mm_exec_sim(ex));
	mm_print_pagetypeinfo(f, mm_exec_sim(ex));
	mm_print_vmstat(f, mm_exec_sim(ex));
	ck_assert_int_eq(fclose(f), 0);
}

START_TEST(test_reused_sim_runs_as_fresh)
{
	struct mm_exec *reused = mm_exec_create();
	struct mm_prog big, p;
	struct outcome fresh_out = {0}, reused_out = {0};
	uint64_t rng = 0x5eed;
	uint8_t bytes[768];
	unsigned int compared = 0;
	const char *target;

	ck_assert_ptr_nonnull(reused);
	mm_prog_init(&big);
	mm_prog_init(&p);
	big_config(&big.cfg);
	for (size_t t = 0; (target = mm_target_at(t)); t++) {
		struct mm_limits lim;

		ck_assert_int_eq(mm_limits_for_target(target, &lim), 0);
		for (unsigned int i = 0; i < PROGS_PER_TARGET; i++) {
			size_t len = 64 + mm_splitmix64(&rng) % (sizeof(bytes) - 64);
			struct mm_exec *fresh = mm_exec_create();
			struct mm_exec_opts opts;
			long failed;

			for (size_t b = 0; b < len; b++)
				bytes[b] = (uint8_t)mm_splitmix64(&rng);
			ck_assert_int_eq(mm_decode(bytes, len, &lim, &p), 0);
			/* the larger machine first: the reused sim's buffers outgrow p's */
			mm_exec_opts_default(&opts);
			ck_assert_int_ge(mm_exec_run(reused, &big, &opts, &failed), 0);

			ck_assert_ptr_nonnull(fresh);
			run(fresh, &p, false, &fresh_out);
			run(reused, &p, true, &reused_out);
			ck_assert_msg(fresh_out.violations == reused_out.violations &&
					      fresh_out.failed_op == reused_out.failed_op,
				      "%s program %u: %ld violations (first at op %ld) fresh, %ld "
				      "(op %ld) after a larger machine",
				      target, i, fresh_out.violations, fresh_out.failed_op,
				      reused_out.violations, reused_out.failed_op);
			ck_assert_msg(fresh_out.skipped == reused_out.skipped,
				      "%s program %u: %lu ops skipped fresh, %lu after a larger "
				      "machine",
				      target, i, fresh_out.skipped, reused_out.skipped);
			ck_assert_msg(
				fresh_out.len == reused_out.len &&
					!memcmp(fresh_out.text, reused_out.text, fresh_out.len),
				"%s program %u: the machine ends otherwise after a larger "
				"machine",
				target, i);
			compared++;
			mm_exec_destroy(fresh);
		}
	}
	ck_assert_uint_ge(compared, 5 * PROGS_PER_TARGET);
	free(fresh_out.text);
	free(reused_out.text);
	mm_prog_free(&big);
	mm_prog_free(&p);
	mm_exec_destroy(reused);
}
END_TEST

/*
 * The snapshot of a machine booted after a larger one holds nothing of the
 * larger one: its sim (the state's first bytes) reads no CPU past the
 * machine's online, no node past it with CPUs or a derived mark, as a
 * fresh sim's would.
 */
START_TEST(test_snapshot_leaves_out_the_last_machine)
{
	struct mm_exec *ex = mm_exec_create();
	struct mm_prog big, small;
	struct mm_exec_opts opts;
	struct mm_snapshot snap;
	struct mm_sim seen;
	long failed;

	ck_assert_ptr_nonnull(ex);
	mm_prog_init(&big);
	mm_prog_init(&small);
	mm_snapshot_init(&snap);
	big_config(&big.cfg);
	cfg_tiny(&small.cfg, 2, 6, 5);
	cfg_zone(&small.cfg, 0, ZONE_NORMAL, 0, 1024, 1024);
	mm_exec_opts_default(&opts);
	ck_assert_int_ge(mm_exec_run(ex, &big, &opts, &failed), 0);
	ck_assert_int_ge(mm_exec_run(ex, &small, &opts, &failed), 0);
	/* the premise: the sim itself still holds the larger machine there */
	ck_assert(atomic_load(&mm_exec_sim(ex)->cpu_online[2]));

	ck_assert_int_eq(mm_snapshot_take(&snap, mm_exec_sim(ex)), 0);
	ck_assert_uint_ge(snap.state_len, sizeof(seen));
	memcpy(&seen, snap.state, sizeof(seen));
	ck_assert_uint_eq(seen.nr_cpus, 2);
	for (unsigned int c = 2; c < MM_MAX_CPUS; c++)
		ck_assert_msg(!atomic_load(&seen.cpu_online[c]) && seen.cpu_to_node[c] == 0,
			      "CPU %u of the last machine in the snapshot", c);
	for (unsigned int n = 1; n < MM_MAX_NODES; n++) {
		ck_assert_msg(atomic_load(&seen.node_nr_online[n]) == 0 &&
				      !seen.derived.pressure[n],
			      "node %u of the last machine in the snapshot", n);
		for (int zt = 0; zt < MAX_NR_ZONES; zt++)
			ck_assert_msg(seen.derived.zone[n][zt].drift_mark == 0 &&
					      seen.derived.zone[n][zt].threshold == 0,
				      "node %u zone %d's derived marks in the snapshot", n, zt);
	}
	mm_snapshot_free(&snap);
	mm_prog_free(&big);
	mm_prog_free(&small);
	mm_exec_destroy(ex);
}
END_TEST

static Suite *stale_reuse_suite(void)
{
	Suite *s = suite_create("stale_reuse");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_reused_sim_runs_as_fresh);
	tcase_add_test(tc, test_snapshot_leaves_out_the_last_machine);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(stale_reuse_suite());
}
