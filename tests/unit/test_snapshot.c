/* SPDX-License-Identifier: MIT */
/*
 * test_snapshot.c - machine snapshots (src/snapshot.c): a machine that
 * random programs left in some state survives take, write, read and
 * restore whole (its bytes and what the public queries read), passes the
 * executor's full scan, and a replay adopts the blocks held outside it.
 * A corrupt, truncated or foreign file is refused with one line.
 */
#include "common.h"

#define NR_PROGS 24

static void random_bytes(struct rng *r, uint8_t *buf, size_t len)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)rng_next(r);
}

/* s through a file and back: what mmfuzz stress writes and mmfuzz run reads. */
static void through_file(const struct mm_snapshot *s, struct mm_snapshot *out)
{
	char err[200] = "";
	FILE *f = tmpfile();
	long n;

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(mm_snapshot_write(s, f), 0);
	n = ftell(f);
	ck_assert_int_gt(n, 0);
	uint8_t *buf = malloc((size_t)n);
	ck_assert_ptr_nonnull(buf);
	rewind(f);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	ck_assert_msg(mm_snapshot_read(buf, (size_t)n, out, err, sizeof(err)) == 0, "read: %s",
		      err);
	free(buf);
}

/* What the public queries read of a, b: every zone, CPU, counter and mm. */
static void assert_same_state(struct mm_sim *a, struct mm_sim *b, const struct mm_config *cfg)
{
	unsigned int nr_cpus = mm_config_nr_cpus(cfg);

	for (unsigned int n = 0; n < cfg->nr_nodes; n++) {
		for (int zt = 0; zt < ZONE_DEVICE; zt++) {
			struct mm_zone_info x, y;
			if (mm_zone_info(a, (int)n, zt, &x))
				continue;
			ck_assert_int_eq(mm_zone_info(b, (int)n, zt, &y), 0);
			ck_assert_int_eq(x.nr_free_exact, y.nr_free_exact);
			ck_assert_int_eq(x.nr_free_pages, y.nr_free_pages);
			ck_assert_int_eq(x.nr_pcp_pages, y.nr_pcp_pages);
			ck_assert_int_eq(x.pcp_batch, y.pcp_batch);
			for (int w = 0; w < NR_WMARK; w++)
				ck_assert_uint_eq(x.wmark[w], y.wmark[w]);
			for (unsigned int o = 0; o < MM_NR_PAGE_ORDERS; o++)
				ck_assert_uint_eq(x.nr_free[o], y.nr_free[o]);
			ck_assert_uint_eq(mm_zone_drift_mark(a, (int)n, zt),
					  mm_zone_drift_mark(b, (int)n, zt));
			for (unsigned int c = 0; c < nr_cpus; c++) {
				struct mm_pcp_info p, q;
				if (mm_pcp_info(a, (int)n, zt, (int)c, &p))
					continue;
				ck_assert_int_eq(mm_pcp_info(b, (int)n, zt, (int)c, &q), 0);
				ck_assert_mem_eq(&p, &q, sizeof(p));
				ck_assert_int_eq(mm_zone_free_diff(a, (int)n, zt, (int)c),
						 mm_zone_free_diff(b, (int)n, zt, (int)c));
			}
		}
	}
	for (unsigned int c = 0; c < nr_cpus; c++)
		ck_assert_int_eq(mm_cpu_is_online(a, (int)c), mm_cpu_is_online(b, (int)c));
	for (unsigned int i = 0; i < MM_MAX_PCPU_COUNTERS; i++) {
		ck_assert_int_eq(mm_pcpu_read(a, i), mm_pcpu_read(b, i));
		for (unsigned int c = 0; c < nr_cpus; c++)
			ck_assert_int_eq(mm_pcpu_local(a, i, (int)c), mm_pcpu_local(b, i, (int)c));
	}
	ck_assert_uint_eq(mm_fill_live(a), mm_fill_live(b));
	ck_assert_int_eq(mm_vm_committed_read(a), mm_vm_committed_read(b));
	ck_assert_int_eq(mm_pcpu_live_allocs(a), mm_pcpu_live_allocs(b));
	ck_assert_uint_eq(mm_pcpu_counters_listed(a), mm_pcpu_counters_listed(b));
	for (int m = 0; m < MM_MAX_MMS; m++) {
		ck_assert_int_eq(mm_mm_live(a, m), mm_mm_live(b, m));
		for (int t = 0; mm_mm_live(a, m) && t < NR_MM_COUNTERS; t++)
			for (unsigned int c = 0; c < nr_cpus; c++)
				ck_assert_int_eq(mm_rss_local(a, m, t, (int)c),
						 mm_rss_local(b, m, t, (int)c));
	}
}

struct trip {
	struct mm_exec *ex, *ex2;
	struct mm_sim *back, *copy;
	struct mm_prog check;
	unsigned int progs, with_mms, with_locals, with_fill;
};

/*
 * p runs on the model and leaves the machine in some state; its snapshot,
 * written and read back, restores a machine whose own snapshot is the
 * same bytes, that the queries read alike, and that the executor's full
 * scan passes.
 */
static void round_trip(struct trip *t, const struct mm_prog *p, const char *name)
{
	struct mm_snapshot s, s2, s3;
	struct mm_exec_opts o;
	struct vrec vr;
	long failed;

	mm_exec_opts_default(&o);
	o.check_every = 0;
	o.stop_on_violation = false;
	o.on_violation = vrec_handler;
	o.arg = &vr;
	vrec_init(&vr);
	ck_assert_int_ge(mm_exec_run(t->ex, p, &o, &failed), 0);
	ck_assert_msg(vr.n == 0, "%s fails on the model: %s", name, vr.first);
	struct mm_sim *sim = mm_exec_sim(t->ex);
	unsigned int nr_cpus = mm_config_nr_cpus(&p->cfg);
	mm_set_current_cpu(0);

	mm_snapshot_init(&s);
	mm_snapshot_init(&s2);
	mm_snapshot_init(&s3);
	ck_assert_int_eq(mm_snapshot_take(&s, sim), 0);
	through_file(&s, &s2);
	ck_assert_uint_eq(s2.state_len, s.state_len);
	ck_assert_int_eq(mm_snapshot_restore(t->back, &s2, -1), 0);
	ck_assert_int_eq(mm_snapshot_take(&s3, t->back), 0);
	ck_assert_uint_eq(s3.state_len, s.state_len);
	ck_assert_msg(!memcmp(s3.state, s.state, s.state_len),
		      "%s: the restored machine's state differs", name);
	assert_same_state(sim, t->back, &p->cfg);
	/* mm_sim_copy(): the same walk, in memory */
	ck_assert_int_eq(mm_sim_copy(t->copy, sim), 0);
	ck_assert_int_eq(mm_snapshot_take(&s3, t->copy), 0);
	ck_assert_msg(s3.state_len == s.state_len && !memcmp(s3.state, s.state, s.state_len),
		      "%s: the copied machine's state differs", name);
	t->progs++;
	t->with_fill += mm_fill_live(sim);
	for (int m = 0; m < MM_MAX_MMS; m++)
		t->with_mms += mm_mm_live(sim, m);
	for (unsigned int c = 0; c < nr_cpus; c++) {
		for (unsigned int k = 0; k < MM_MAX_PCPU_COUNTERS; k++)
			t->with_locals += mm_pcpu_local(sim, k, (int)c) != 0;
		for (int m = 0; m < MM_MAX_MMS; m++)
			for (int i = 0; mm_mm_live(sim, m) && i < NR_MM_COUNTERS; i++)
				t->with_locals += mm_rss_local(sim, m, i, (int)c) != 0;
	}

	/* The executor from the snapshot: its full scan passes, as the original's did. */
	t->check.cfg = p->cfg;
	t->check.nr_ops = 0;
	ck_assert_int_eq(mm_prog_push(&t->check, &(struct mm_op){.kind = MM_OP_CHECK}), 0);
	mm_exec_opts_default(&o);
	o.snapshot = &s2;
	o.on_violation = vrec_handler;
	o.arg = &vr;
	ck_assert_int_ge(mm_exec_run(t->ex2, &t->check, &o, &failed), 0);
	ck_assert_msg(vr.n == 0, "%s: the full scan of the restored machine: %s", name, vr.first);
	mm_snapshot_free(&s);
	mm_snapshot_free(&s2);
	mm_snapshot_free(&s3);
}

/*
 * Random programs (every op kind the decoder makes: allocations, frees,
 * drains, hotplug, sysctls, deferred init) and the corpus's counter,
 * compaction and system traces (mms, counters' locals, the fill pool).
 */
START_TEST(test_round_trip)
{
	/* corpus/<folder>/<name>.txt, as read_variant_trace() reads corpus/variants/ */
	static const char *const traces[] = {
		"../counters/basic",	       "../counters/fork-failures",
		"../counters/hotplug",	       "../counters/policy-switch",
		"../counters/rss-exit-spread", "../compaction/checkerboard",
		"../compaction/busy-blocks",   "../system/two-nodes-every-family",
	};
	struct rng r = {0x5eed5a9};
	uint8_t data[2048];
	char err[200], name[64];
	struct trip t = {.ex = mm_exec_create(),
			 .ex2 = mm_exec_create(),
			 .back = mm_sim_create(),
			 .copy = mm_sim_create()};
	struct mm_prog p;

	ck_assert_ptr_nonnull(t.ex);
	ck_assert_ptr_nonnull(t.ex2);
	ck_assert_ptr_nonnull(t.back);
	ck_assert_ptr_nonnull(t.copy);
	mm_prog_init(&p);
	mm_prog_init(&t.check);
	for (int i = 0; i < NR_PROGS; i++) {
		random_bytes(&r, data, sizeof(data));
		ck_assert_int_eq(mm_decode(data, sizeof(data), NULL, &p), 0);
		snprintf(name, sizeof(name), "random program %d", i);
		round_trip(&t, &p, name);
	}
	for (size_t i = 0; i < ARRAY_SIZE(traces); i++) {
		char *text = read_variant_trace(traces[i]);
		ck_assert_msg(mm_parse_prog(text, &p, err, sizeof(err)) == 0, "%s: %s", traces[i],
			      err);
		free(text);
		round_trip(&t, &p, traces[i]);
	}
	/* the programs reached the state worth carrying */
	ck_assert_uint_gt(t.with_mms, 0);
	ck_assert_uint_gt(t.with_locals, 0);
	ck_assert_uint_gt(t.with_fill, 0);
	mm_prog_free(&p);
	mm_prog_free(&t.check);
	mm_sim_destroy(t.back);
	mm_sim_destroy(t.copy);
	mm_exec_destroy(t.ex);
	mm_exec_destroy(t.ex2);
}
END_TEST

static void cfg_small(struct mm_config *cfg)
{
	cfg_tiny(cfg, 2, 10, 9);
	cfg_zone(cfg, 0, ZONE_NORMAL, 0, 4096, 4096);
}

/*
 * A block held outside the machine (the stress test's threads hold its
 * stamp under their own owner numbers) is adopted as a0: a replay frees
 * it as its handle, and every page is back.
 */
START_TEST(test_adopted_handle)
{
	struct mm_config cfg;
	struct mm_sim *sim;
	struct mm_snapshot s;
	struct mm_exec *ex = mm_exec_create();
	struct mm_exec_opts o;
	struct vrec vr;
	struct mm_handle h = {.order = 2};
	long failed;

	cfg_small(&cfg);
	sim = sim_new(&cfg);
	long free0 = zinfo(sim, 0, ZONE_NORMAL).nr_free_exact;
	mm_set_current_cpu(1);
	h.pfn = mm_alloc_pages(sim, 2, MM_GFP_KERNEL, -1, 77, &h.gen);
	ck_assert_int_ge(h.pfn, 0);
	mm_set_current_cpu(0);
	mm_snapshot_init(&s);
	ck_assert_int_eq(mm_snapshot_take(&s, sim), 0);
	ck_assert_int_eq(mm_snapshot_set_handles(&s, &h, 1), 0);

	mm_exec_opts_default(&o);
	o.snapshot = &s;
	ck_assert_int_eq(exec_text(ex,
				   "config nodes=1 cpus=2 max_order=10 pageblock_order=9\n"
				   "zone 0 Normal start=0 spanned=4096 present=4096 managed=4096\n"
				   "cpu1 alloc a0 order=2\n"
				   "cpu0 alloc a1 order=0\n"
				   "cpu1 free a0\n"
				   "cpu0 free a1\n"
				   "cpu0 drain all\n",
				   &o, &vr, &failed),
			 0);
	/* a0 was adopted, not allocated: the drain brings back every page */
	mm_set_current_cpu(0);
	ck_assert_int_eq(zinfo(mm_exec_sim(ex), 0, ZONE_NORMAL).nr_free_exact +
				 zinfo(mm_exec_sim(ex), 0, ZONE_NORMAL).nr_pcp_pages,
			 free0);
	mm_snapshot_free(&s);
	mm_sim_destroy(sim);
	mm_exec_destroy(ex);
}
END_TEST

/* A file's bytes, each way it can be wrong: one line says which. */
START_TEST(test_bad_files)
{
	struct mm_config cfg;
	struct mm_sim *sim;
	struct mm_snapshot s, back;
	char err[200];
	char *buf = NULL;
	size_t len = 0;

	cfg_small(&cfg);
	sim = sim_new(&cfg);
	mm_snapshot_init(&s);
	mm_snapshot_init(&back);
	ck_assert_int_eq(mm_snapshot_take(&s, sim), 0);
	FILE *f = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(mm_snapshot_write(&s, f), 0);
	fclose(f);
	ck_assert_int_eq(mm_snapshot_read((uint8_t *)buf, len, &back, err, sizeof(err)), 0);

	const size_t header = (size_t)((char *)memchr(buf, '\n', len) - buf) + 1;
	struct {
		const char *what, *says;
		size_t at, len;
		char flip;
	} bad[] = {
		{"truncated", "truncated", 0, len - 100, 0},
		{"flipped byte", "checksum", header + len / 2 % (len - header), len, 1},
		{"empty", "not a machine snapshot", 0, 0, 0},
		{"other text", "not a machine snapshot", 0, 12, 0},
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		uint8_t *copy = malloc(len);
		ck_assert_ptr_nonnull(copy);
		memcpy(copy, buf, len);
		if (bad[i].flip)
			copy[bad[i].at] ^= 0x40;
		if (!strcmp(bad[i].what, "other text"))
			memcpy(copy, "config node\n", 12);
		err[0] = '\0';
		ck_assert_int_eq(mm_snapshot_read(copy, bad[i].len, &back, err, sizeof(err)), -1);
		ck_assert_msg(strstr(err, bad[i].says), "%s: '%s' does not say '%s'", bad[i].what,
			      err, bad[i].says);
		ck_assert_ptr_null(strchr(err, '\n'));
		free(copy);
	}
	/* another version of the format */
	buf[strlen("mmfuzz-snapshot ")] = '9';
	ck_assert_int_eq(mm_snapshot_read((uint8_t *)buf, len, &back, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "version"));
	free(buf);
	mm_snapshot_free(&s);
	mm_sim_destroy(sim);
}
END_TEST

/*
 * A threaded machine (mmfuzz stress's, not serial) does not keep the
 * checker's shadow of the last threshold recompute: after a CPU goes
 * offline its thresholds and drift marks are new, the shadow still the
 * boot's. The replay from its snapshot rebuilds the shadow, so the
 * executor's full scan passes (it reported INV-DERIVED-* before).
 */
START_TEST(test_threaded_shadow)
{
	struct mm_config cfg;
	struct mm_sim *sim;
	struct mm_snapshot s;
	struct mm_exec *ex = mm_exec_create();
	struct mm_exec_opts o;
	struct vrec vr;
	long failed;

	cfg_tiny(&cfg, 8, 10, 9);
	cfg.min_free_kbytes = 1024;
	cfg.watermark_scale_factor = 10;
	cfg_zone(&cfg, 0, ZONE_NORMAL, 0, 65536, 65536);
	sim = sim_new(&cfg);
	for (int cpu = 7; cpu >= 3; cpu--)
		ck_assert_int_eq(mm_cpu_offline(sim, cpu), 0);
	mm_snapshot_init(&s);
	ck_assert_int_eq(mm_snapshot_take(&s, sim), 0);
	ck_assert(s.threaded);
	mm_exec_opts_default(&o);
	o.snapshot = &s;
	ck_assert_int_eq(
		exec_text(ex,
			  "config nodes=1 cpus=8 max_order=10 pageblock_order=9\n"
			  "zone 0 Normal start=0 spanned=65536 present=65536 managed=65536\n"
			  "check\n",
			  &o, &vr, &failed),
		0);
	ck_assert_msg(vr.n == 0, "the restored machine's scan: %s", vr.first);
	mm_snapshot_free(&s);
	mm_sim_destroy(sim);
	mm_exec_destroy(ex);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("snapshot");
	TCase *tc = tcase_create("snapshot");

	tcase_add_test(tc, test_round_trip);
	tcase_add_test(tc, test_adopted_handle);
	tcase_add_test(tc, test_bad_files);
	tcase_add_test(tc, test_threaded_shadow);
	suite_add_tcase(s, tc);
	return run_suite(s);
}
