/* SPDX-License-Identifier: MIT */
/*
 * bench.c - mmfuzz bench: prints what the model costs. Not a test: there
 * are no thresholds, only figures.
 *
 *  - the page descriptor size;
 *  - buddy alloc+free pairs/s at orders 0, 3 and 9 on a 1-node machine
 *    (64K pages of Normal), next to glibc malloc/free of the same sizes in
 *    the same pattern: a batch of N blocks allocated, then freed in a fixed
 *    shuffled order, so the model splits on the way down and merges on the
 *    way back;
 *  - the seeds, counted on one thread playing every CPU (exact counts, one
 *    timed pass, not --seconds): seed 000's zone->lock trips per pcp
 *    sizing; seed 003's vm_committed_as folds on a brk loop, batch 2 * ncpus
 *    (variant pcpu-batch-2ncpu) against the policy's; seed 004's per-cpu
 *    allocations and list locks per fork, init_many against the variant
 *    rss-counters-one-by-one; seed 001's compaction table (migrate and free
 *    scanned, isolated, migrate success/failure, scan efficiency, cost) on
 *    a usemem-like workload, the fixed model beside each compaction variant
 *    (bench_compaction.c);
 *  - the per-input reset: mm_sim_init() of the machines the fuzz targets
 *    decode, and the bytes it writes;
 *  - executor throughput: fixed-seed random 512-byte inputs decoded and run
 *    by mm_exec_run(), as fuzz_common.c does per input, without sanitizers
 *    when built with the release preset;
 *  - the same inputs under each fuzz target's machine shape, their cost by
 *    the CPU count of the machine they decode to (the sanitized figure:
 *    the dev preset's mmfuzz).
 *
 * Every measurement repeats one deterministic round until --seconds have
 * passed. The per-op counts (zone-lock acquisitions, splits, merges, ops,
 * reset bytes) are taken from the first round, so they are the same on
 * every run and with --quick; only the times vary. The correct model is
 * measured, and the seeds' variants by name: MMFUZZ_VARIANT is ignored.
 */
#include "cli.h"

#include <limits.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BENCH_SEED	    UINT64_C(0x6d6d66757a7a0001)
#define BENCH_PAGES	    65536u /* the buddy machine: 256 MiB of Normal */
#define BENCH_GFP	    MM_GFP_HIGHUSER_MOVABLE
#define BENCH_INPUTS	    256u /* random fuzz inputs per executor round */
#define BENCH_INPUT_LEN	    512u
#define BENCH_SECONDS	    0.5
#define BENCH_QUICK_SECONDS 0.05
#define BENCH_MAX_SECONDS   3600.0

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define BENCH_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define BENCH_SANITIZED 1
#endif
#endif

/* Keeps a value (and every store before it) alive past the optimizer. */
#define keep(p) __asm__ __volatile__("" : : "r"(p) : "memory")

static unsigned long violations;

static void count_violation(const struct mm_violation *v, void *arg)
{
	char line[512];

	(void)arg;
	if (!violations++) {
		mm_violation_format(v, line, sizeof(line));
		fprintf(stderr, "mmfuzz: bench: the correct model reported %s\n", line);
	}
}

/* Runs round(ctx) until seconds have passed (at least once); returns the time. */
static double time_rounds(void (*round)(void *), void *ctx, double seconds, unsigned long *rounds)
{
	unsigned long n = 0;
	double t0 = cli_now(), t;

	do {
		round(ctx);
		n++;
		t = cli_now() - t0;
	} while (t < seconds);
	*rounds = n;
	return t;
}

/* ------------------------------------------------------------------------
 * Buddy alloc+free pairs against glibc malloc/free
 * ---------------------------------------------------------------------- */

struct pairs_ctx {
	struct mm_sim *sim;
	unsigned int order, n;
	const uint32_t *perm; /* the free order */
	long long *pfn;
	uint32_t *gen;
	void **ptr;
	size_t bytes;
	unsigned long failed;
};

static void model_round(void *arg)
{
	struct pairs_ctx *c = arg;

	for (unsigned int i = 0; i < c->n; i++) {
		c->pfn[i] = mm_alloc_pages(c->sim, c->order, BENCH_GFP, -1, i, &c->gen[i]);
		c->failed += c->pfn[i] < 0;
	}
	for (unsigned int k = 0; k < c->n; k++) {
		uint32_t i = c->perm[k];
		if (c->pfn[i] >= 0)
			mm_free_pages(c->sim, (uint64_t)c->pfn[i], c->order, i, c->gen[i]);
	}
}

static void malloc_round(void *arg)
{
	struct pairs_ctx *c = arg;

	for (unsigned int i = 0; i < c->n; i++) {
		c->ptr[i] = malloc(c->bytes);
		c->failed += !c->ptr[i];
		keep(c->ptr[i]);
	}
	for (unsigned int k = 0; k < c->n; k++)
		free(c->ptr[c->perm[k]]);
}

static void bench_machine(struct mm_config *cfg)
{
	mm_config_init(cfg);
	cfg->zones[0][ZONE_NORMAL] =
		(struct mm_zone_config){0, BENCH_PAGES, BENCH_PAGES, BENCH_PAGES};
}

/* Returns 0, or -1 after a message when the model could not serve the batch. */
static int bench_pairs(double seconds)
{
	static const struct {
		unsigned int order, batch;
		bool pcp; /* false: zone_pcp_disable, every block through zone->lock */
	} rows[] = {{0, 4096, true},
		    {0, 4096, false},
		    {3, 1024, true},
		    {3, 1024, false},
		    {9, 64, false}};
	struct mm_config cfg;
	struct mm_sim *sim = mm_sim_create();
	uint32_t *perm = malloc(4096 * sizeof(*perm));
	long long *pfn = malloc(4096 * sizeof(*pfn));
	uint32_t *gen = malloc(4096 * sizeof(*gen));
	void **ptr = malloc(4096 * sizeof(*ptr));
	int ret = 0;

	if (!sim || !perm || !pfn || !gen || !ptr) {
		fprintf(stderr, "mmfuzz: bench: out of memory\n");
		ret = -1;
		goto out;
	}
	bench_machine(&cfg);
	mm_sim_set_violation_handler(sim, count_violation, NULL);
#ifdef __GLIBC__
	/* Freed memory stays in the heap and 2 MiB blocks come from it too. */
	mallopt(M_TRIM_THRESHOLD, INT_MAX);
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
#endif
	mm_set_current_cpu(0);

	printf("alloc+free pairs: 1 node, 1 CPU, Normal %u pages, gfp HIGHUSER_MOVABLE;\n"
	       "path pcp: orders <= 3 through the per-cpu lists; buddy: the lists disabled;\n"
	       "a batch of N blocks allocated, then freed in a fixed shuffled order; glibc\n"
	       "malloc/free of the same bytes, heap kept (no trim, no mmap per block)\n",
	       BENCH_PAGES);
	printf("%5s %5s %9s %5s  %14s %8s  %14s %8s  %11s  %8s %11s %11s\n", "order", "path",
	       "bytes", "N", "model Mpairs/s", "ns/pair", "glibc Mpairs/s", "ns/pair",
	       "model/glibc", "locks/op", "splits/pair", "merges/pair");
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		struct pairs_ctx c = {
			.sim = sim,
			.order = rows[r].order,
			.n = rows[r].batch,
			.perm = perm,
			.pfn = pfn,
			.gen = gen,
			.ptr = ptr,
			.bytes = (size_t)4096 << rows[r].order,
		};
		uint64_t seed = BENCH_SEED + r;
		struct mm_stats st;
		unsigned long model_rounds, malloc_rounds;

		/* Fisher-Yates: the same free order for the model and glibc. */
		for (uint32_t i = 0; i < c.n; i++)
			perm[i] = i;
		for (uint32_t i = c.n - 1; i > 0; i--) {
			uint32_t j = (uint32_t)(mm_splitmix64(&seed) % (i + 1));
			uint32_t t = perm[i];
			perm[i] = perm[j];
			perm[j] = t;
		}

		if (mm_sim_init(sim, &cfg, -1)) {
			fprintf(stderr, "mmfuzz: bench: cannot build the bench machine\n");
			ret = -1;
			goto out;
		}
		if (!rows[r].pcp)
			mm_zone_pcp_disable(sim, 0, ZONE_NORMAL);
		/* The first round, untimed, gives the counts (and warms the caches). */
		model_round(&c);
		mm_sim_stats(sim, &st);
		if (c.failed) {
			fprintf(stderr,
				"mmfuzz: bench: %lu of %u order-%u allocations failed on the "
				"bench machine\n",
				c.failed, c.n, c.order);
			ret = -1;
			goto out;
		}
		double t_model = time_rounds(model_round, &c, seconds, &model_rounds);
		malloc_round(&c);
		double t_malloc = time_rounds(malloc_round, &c, seconds, &malloc_rounds);
		if (c.failed) {
			fprintf(stderr, "mmfuzz: bench: malloc(%zu) failed\n", c.bytes);
			ret = -1;
			goto out;
		}

		double pairs_model = (double)model_rounds * c.n;
		double pairs_malloc = (double)malloc_rounds * c.n;
		double ns_model = t_model * 1e9 / pairs_model;
		double ns_malloc = t_malloc * 1e9 / pairs_malloc;
		printf("%5u %5s %9zu %5u  %14.2f %8.1f  %14.2f %8.1f  %10.2fx  %8.3f %11.3f "
		       "%11.3f\n",
		       c.order,
		       c.order > 3   ? "-"
		       : rows[r].pcp ? "pcp"
				     : "buddy",
		       c.bytes, c.n, pairs_model / t_model / 1e6, ns_model,
		       pairs_malloc / t_malloc / 1e6, ns_malloc, ns_model / ns_malloc,
		       (double)st.zone_lock_acquisitions / (2.0 * c.n), (double)st.splits / c.n,
		       (double)st.merges / c.n);
	}
out:
	mm_sim_destroy(sim);
	free(perm);
	free(pfn);
	free(gen);
	free(ptr);
	return ret;
}

/* ------------------------------------------------------------------------
 * Seed 000: pcp sizing left from deferred init, counted in zone->lock trips
 * ---------------------------------------------------------------------- */

#define S0_NODES       2u
#define S0_CPUS	       64u	  /* per node */
#define S0_PAGES       (1u << 20) /* Normal per node: 4 GiB */
#define S0_BOOT_PAGES  32768u	  /* initialised at boot: 128 MiB, as early boot sees */
#define S0_WORKING_SET 96u	  /* order-0 pages each CPU holds, then frees */
#define S0_ROUNDS      4u

/*
 * Every CPU in turn allocates a working set of order-0 pages and frees it,
 * on the deferred-init machine after deferred init completed. One thread
 * runs all CPUs, so the counts are exact and the same every run.
 */
static int seed000_row(struct mm_sim *sim, const char *variant, long long *pfn, uint32_t *gen)
{
	struct mm_config cfg;
	struct mm_stats st;
	struct mm_pcp_info pi;
	int v = mm_variant_lookup(variant);
	unsigned long long page_ops = 0, failed = 0;

	mm_config_init(&cfg);
	cfg.nr_nodes = S0_NODES;
	for (unsigned int n = 0; n < S0_NODES; n++) {
		cfg.cpus_per_node[n] = S0_CPUS;
		cfg.zones[n][ZONE_NORMAL] = (struct mm_zone_config){(uint64_t)n * S0_PAGES,
								    S0_PAGES, S0_PAGES, S0_PAGES};
	}
	cfg.deferred_init_pages = S0_BOOT_PAGES;
	if (v == MM_VARIANT_UNKNOWN) {
		fprintf(stderr, "mmfuzz: bench: this model has no variant '%s'\n", variant);
		return -1;
	}
	if (mm_sim_init(sim, &cfg, v)) {
		fprintf(stderr, "mmfuzz: bench: cannot build the seed 000 machine\n");
		return -1;
	}
	mm_deferred_init_complete(sim);
	mm_sim_stats(sim, &st);
	unsigned long long locks0 = st.zone_lock_acquisitions;
	double t0 = cli_now();
	for (unsigned int r = 0; r < S0_ROUNDS; r++) {
		for (unsigned int cpu = 0; cpu < S0_NODES * S0_CPUS; cpu++) {
			mm_set_current_cpu((int)cpu);
			for (unsigned int i = 0; i < S0_WORKING_SET; i++) {
				pfn[i] = mm_alloc_pages(sim, 0, MM_GFP_KERNEL, -1, i, &gen[i]);
				failed += pfn[i] < 0;
			}
			for (unsigned int i = 0; i < S0_WORKING_SET; i++)
				if (pfn[i] >= 0)
					mm_free_pages(sim, (uint64_t)pfn[i], 0, i, gen[i]);
			page_ops += 2 * S0_WORKING_SET;
		}
	}
	double t = cli_now() - t0;
	mm_sim_stats(sim, &st);
	mm_pcp_info(sim, 0, ZONE_NORMAL, 0, &pi);
	if (failed) {
		fprintf(stderr, "mmfuzz: bench: %llu allocations failed on the seed 000 machine\n",
			failed);
		return -1;
	}
	unsigned long long locks = st.zone_lock_acquisitions - locks0;
	printf("%-34s %5d %8d %8d %12.1f %12.1f %10.1f\n",
	       variant ? variant : "fixed (3e8fc0075e24)", pi.batch, pi.high_min, pi.high_max,
	       1000.0 * (double)locks / (double)page_ops,
	       (double)(st.pcp_pages_refilled + st.pcp_pages_flushed) /
		       (double)(st.pcp_refills + st.pcp_bulk_frees),
	       t * 1e9 / (double)page_ops);
	return 0;
}

static int bench_seed000(void)
{
	struct mm_sim *sim = mm_sim_create();
	long long pfn[S0_WORKING_SET];
	uint32_t gen[S0_WORKING_SET];
	int ret;

	if (!sim)
		return cli_usage_error("bench: out of memory");
	mm_sim_set_violation_handler(sim, count_violation, NULL);
	printf("seed 000: pcp sizing after deferred init; %u nodes x %u CPUs, Normal %u pages per\n"
	       "node, %u initialised at boot; each CPU allocates %u order-0 pages and frees\n"
	       "them, %u rounds (one thread plays every CPU: exact counts)\n",
	       S0_NODES, S0_CPUS, S0_PAGES, S0_BOOT_PAGES, S0_WORKING_SET, S0_ROUNDS);
	printf("%-34s %5s %8s %8s %12s %12s %10s\n", "model", "batch", "high_min", "high_max",
	       "locks/1000op", "pages/lock", "ns/op");
	ret = seed000_row(sim, NULL, pfn, gen);
	if (!ret)
		ret = seed000_row(sim, "pcp-no-recalc-after-deferred-init", pfn, gen);
	if (!ret)
		ret = seed000_row(sim, "pcp-high-equals-batch", pfn, gen);
	mm_sim_destroy(sim);
	return ret;
}

/* ------------------------------------------------------------------------
 * Seed 003: the vm_committed_as batch, counted in folds on a brk loop
 * ---------------------------------------------------------------------- */

/*
 * The model's totalram is the machine's managed pages, and each one costs a
 * 16-byte descriptor: the seed's 128 GB would be 512 MiB of memmap. 16 GiB
 * (64 MiB) is the smallest power of two whose NEVER batch at 64 CPUs,
 * RAM / 64 / 256 = 256, is above the brk size; at 4 or 8 GiB it is 2 * ncpus
 * again (max() floors it at 128) and the two rows would be the same.
 */
#define S3_PAGES     (1u << 22)	 /* Normal: 16 GiB */
#define S3_BRK_PAGES 200u	 /* 800 KB per call */
#define S3_ROUNDS    250u	 /* +200/-200 pairs per CPU */
#define S3_SEED_RAM  (1ul << 25) /* the seed's example: 128 GB in pages */

/* Runs a counter/mm op of a seed's machine; a skipped op voids the figures. */
static int seed_apply(struct mm_sim *sim, const struct mm_op *op, const char *seed)
{
	if (mm_apply_op(sim, op, NULL, 0, 0)) {
		fprintf(stderr, "mmfuzz: bench: the seed %s machine skipped an op (kind %u)\n",
			seed, op->kind);
		return -1;
	}
	return 0;
}

/*
 * Every CPU in turn runs a brk of +200 pages and one of -200, S3_ROUNDS
 * times, on one mm, under OVERCOMMIT_NEVER: will-it-scale's brk loop, one
 * thread playing every CPU, so the counts are exact and the same every run.
 */
static int seed003_row(struct mm_sim *sim, unsigned int ncpus, const char *variant)
{
	struct mm_config cfg;
	struct mm_counter_stats c0, c1;
	int v = mm_variant_lookup(variant);
	struct mm_op op = {.kind = MM_OP_SET_OVERCOMMIT, .sysctl.value = MM_OVERCOMMIT_NEVER};
	unsigned long long calls = 0;

	if (v == MM_VARIANT_UNKNOWN) {
		fprintf(stderr, "mmfuzz: bench: this model has no variant '%s'\n", variant);
		return -1;
	}
	mm_config_init(&cfg);
	cfg.cpus_per_node[0] = ncpus;
	cfg.zones[0][ZONE_NORMAL] = (struct mm_zone_config){0, S3_PAGES, S3_PAGES, S3_PAGES};
	if (mm_sim_init(sim, &cfg, v)) {
		fprintf(stderr,
			"mmfuzz: bench: cannot build the seed 003 machine (%u CPUs, Normal %u "
			"pages)\n",
			ncpus, S3_PAGES);
		return -1;
	}
	if (seed_apply(sim, &op, "003"))
		return -1;
	op = (struct mm_op){.kind = MM_OP_FORK, .mm.mm = 0}; /* m0, no parent */
	if (seed_apply(sim, &op, "003") || !mm_mm_live(sim, 0)) {
		fprintf(stderr, "mmfuzz: bench: the seed 003 machine refused the mm\n");
		return -1;
	}
	int batch = mm_vm_committed_as_batch(sim);
	mm_sim_counter_stats(sim, &c0);
	double t0 = cli_now();
	for (unsigned int r = 0; r < S3_ROUNDS; r++) {
		for (unsigned int cpu = 0; cpu < ncpus; cpu++) {
			struct mm_op grow = {
				.kind = MM_OP_BRK, .cpu = (uint16_t)cpu, .mm.pages = S3_BRK_PAGES};
			struct mm_op shrink = {.kind = MM_OP_MUNMAP,
					       .cpu = (uint16_t)cpu,
					       .mm = {.pages = S3_BRK_PAGES, .type = MM_ANONPAGES}};
			if (seed_apply(sim, &grow, "003") || seed_apply(sim, &shrink, "003"))
				return -1;
			calls += 2;
		}
	}
	double t = cli_now() - t0;
	mm_sim_counter_stats(sim, &c1);
	op = (struct mm_op){.kind = MM_OP_EXIT, .mm.mm = 0};
	if (seed_apply(sim, &op, "003"))
		return -1;
	unsigned long long adds = c1.committed_adds - c0.committed_adds;
	if (c1.vm_enough_refused != c0.vm_enough_refused || adds != calls) {
		fprintf(stderr,
			"mmfuzz: bench: the seed 003 machine refused %llu of %llu brk calls "
			"(%llu charged)\n",
			c1.vm_enough_refused - c0.vm_enough_refused, calls, adds);
		return -1;
	}
	unsigned long long folds = c1.committed_folds - c0.committed_folds;
	unsigned long long locks = (c1.pcpu_folds - c0.pcpu_folds) + (c1.pcpu_sums - c0.pcpu_sums) +
				   (c1.list_lock_acquisitions - c0.list_lock_acquisitions);
	printf("%-34s %5u %6d %14.1f %14.1f %9.1f\n", variant ? variant : "policy batch (3.11+)",
	       ncpus, batch, 1000.0 * (double)folds / (double)calls,
	       1000.0 * (double)locks / (double)calls, t * 1e9 / (double)calls);
	return 0;
}

static int bench_seed003(void)
{
	static const unsigned int cpus[] = {40, 64};
	struct mm_sim *sim = mm_sim_create();
	int ret = 0;

	if (!sim) {
		fprintf(stderr, "mmfuzz: bench: out of memory\n");
		return -1;
	}
	mm_sim_set_violation_handler(sim, count_violation, NULL);
	printf("seed 003: vm_committed_as batch on a brk loop; 1 node, Normal %u pages (%u GiB;\n"
	       "the model's RAM is its managed pages: the seed's 128 GB would take 512 MiB of\n"
	       "memmap), OVERCOMMIT_NEVER; each CPU in turn brk +%u pages (800 KB) then -%u, %u\n"
	       "times, through mm_apply_op (one thread plays every CPU: exact counts). folds:\n"
	       "vm_committed_as's; locks: every percpu_counter lock (folds of any counter, sums,\n"
	       "the list lock): the model's brk faults its pages in, so the mm's anon rss counter\n"
	       "also adds +-%u at percpu_counter_batch (2 * ncpus) and folds on every call\n",
	       S3_PAGES, S3_PAGES >> 18, S3_BRK_PAGES, S3_BRK_PAGES, S3_ROUNDS, S3_BRK_PAGES);
	printf("%-34s %5s %6s %14s %14s %9s\n", "model", "CPUs", "batch", "folds/1000call",
	       "locks/1000call", "ns/call");
	for (size_t i = 0; !ret && i < sizeof(cpus) / sizeof(cpus[0]); i++) {
		ret = seed003_row(sim, cpus[i], "pcpu-batch-2ncpu");
		if (!ret)
			ret = seed003_row(sim, cpus[i], NULL);
	}
	if (!ret)
		printf("the seed's machine, 128 GB: policy batch %d at 40 CPUs, %d at 64\n"
		       "(mm_compute_batch_for); above %u, this loop never folds, as the policy "
		       "rows\n",
		       mm_compute_batch_for(40, S3_SEED_RAM, MM_OVERCOMMIT_NEVER),
		       mm_compute_batch_for(64, S3_SEED_RAM, MM_OVERCOMMIT_NEVER), S3_BRK_PAGES);
	mm_sim_destroy(sim);
	return ret;
}

/* ------------------------------------------------------------------------
 * Seed 004: per-cpu allocations and list locks per fork (unixbench spawn)
 * ---------------------------------------------------------------------- */

#define S4_NODES	2u
#define S4_CPUS		64u    /* per node: the seed's 128-thread machine */
#define S4_PAGES	65536u /* Normal per node */
#define S4_PARENT_PAGES 64u    /* the parent's anon pages: copied at fork */
#define S4_TOUCH_PAGES	8u     /* the child faults these in, then exits */
#define S4_FORKS	20000u

/*
 * m0, the parent, maps a few pages; then S4_FORKS times it forks m1 on one
 * CPU, and m1 touches a few pages and exits on the next CPU.
 */
static int seed004_row(struct mm_sim *sim, const char *variant)
{
	struct mm_config cfg;
	struct mm_counter_stats c0, c1;
	int v = mm_variant_lookup(variant);
	unsigned int ncpus = S4_NODES * S4_CPUS;
	struct mm_op op = {.kind = MM_OP_FORK, .mm.mm = 0}; /* m0, no parent */

	if (v == MM_VARIANT_UNKNOWN) {
		fprintf(stderr, "mmfuzz: bench: this model has no variant '%s'\n", variant);
		return -1;
	}
	mm_config_init(&cfg);
	cfg.nr_nodes = S4_NODES;
	for (unsigned int n = 0; n < S4_NODES; n++) {
		cfg.cpus_per_node[n] = S4_CPUS;
		cfg.zones[n][ZONE_NORMAL] = (struct mm_zone_config){(uint64_t)n * S4_PAGES,
								    S4_PAGES, S4_PAGES, S4_PAGES};
	}
	if (mm_sim_init(sim, &cfg, v)) {
		fprintf(stderr, "mmfuzz: bench: cannot build the seed 004 machine\n");
		return -1;
	}
	if (seed_apply(sim, &op, "004"))
		return -1;
	op = (struct mm_op){.kind = MM_OP_MMAP,
			    .mm = {.pages = S4_PARENT_PAGES, .type = MM_ANONPAGES}};
	if (seed_apply(sim, &op, "004"))
		return -1;
	mm_sim_counter_stats(sim, &c0);
	double t0 = cli_now();
	for (unsigned int i = 0; i < S4_FORKS; i++) {
		uint16_t cpu = (uint16_t)(i % ncpus), next = (uint16_t)((i + 1) % ncpus);
		/* m1 from m0 (arg: the parent + 1) */
		struct mm_op fk = {.kind = MM_OP_FORK, .cpu = cpu, .mm = {.mm = 1, .parent = 1}};
		struct mm_op tch = {.kind = MM_OP_MMAP,
				    .cpu = next,
				    .mm = {.mm = 1, .pages = S4_TOUCH_PAGES, .type = MM_ANONPAGES}};
		struct mm_op ex = {.kind = MM_OP_EXIT, .cpu = next, .mm.mm = 1};
		if (seed_apply(sim, &fk, "004") || seed_apply(sim, &tch, "004") ||
		    seed_apply(sim, &ex, "004"))
			return -1;
	}
	double t = cli_now() - t0;
	mm_sim_counter_stats(sim, &c1);
	unsigned long long forks = c1.forks - c0.forks, exits = c1.exits - c0.exits;
	if (forks != S4_FORKS || exits != S4_FORKS || c1.forks_failed != c0.forks_failed) {
		fprintf(stderr,
			"mmfuzz: bench: the seed 004 machine made %llu forks (%llu failed) and "
			"%llu exits of %u\n",
			forks, c1.forks_failed - c0.forks_failed, exits, S4_FORKS);
		return -1;
	}
	double n = (double)forks;
	printf("%-34s %11.2f %11.2f %11.2f %11.2f %10.0f\n", variant ? variant : "init_many (6.6+)",
	       (double)(c1.fork_pcpu_allocs - c0.fork_pcpu_allocs) / n,
	       (double)(c1.fork_list_locks - c0.fork_list_locks) / n,
	       (double)(c1.pcpu_frees - c0.pcpu_frees) / n,
	       (double)(c1.list_lock_acquisitions - c0.list_lock_acquisitions) / n, t * 1e9 / n);
	return 0;
}

static int bench_seed004(void)
{
	struct mm_sim *sim = mm_sim_create();
	int ret;

	if (!sim) {
		fprintf(stderr, "mmfuzz: bench: out of memory\n");
		return -1;
	}
	mm_sim_set_violation_handler(sim, count_violation, NULL);
	printf("seed 004: rss counters per fork (unixbench spawn); %u nodes x %u CPUs; the parent\n"
	       "maps %u anon pages, then %u times forks a child on one CPU that touches %u pages\n"
	       "and exits on the next (one thread plays every CPU: exact counts). allocs and\n"
	       "list locks: mm_init()'s at fork (the cid and the rss counters); frees and\n"
	       "locks/spawn: the whole fork + exit; ns: one fork + touch + exit\n",
	       S4_NODES, S4_CPUS, S4_PARENT_PAGES, S4_FORKS, S4_TOUCH_PAGES);
	printf("%-34s %11s %11s %11s %11s %10s\n", "model", "allocs/fork", "locks/fork",
	       "frees/spawn", "locks/spawn", "ns/fork");
	ret = seed004_row(sim, NULL);
	if (!ret)
		ret = seed004_row(sim, "rss-counters-one-by-one");
	mm_sim_destroy(sim);
	return ret;
}

/* ------------------------------------------------------------------------
 * The fuzz inputs: fixed-seed random bytes, decoded with the default limits
 * ---------------------------------------------------------------------- */

struct inputs {
	uint8_t data[BENCH_INPUTS][BENCH_INPUT_LEN];
	struct mm_config cfg[BENCH_INPUTS];
	struct mm_limits lim;
};

static int make_inputs(struct inputs *in)
{
	uint64_t seed = BENCH_SEED;
	struct mm_prog p;

	mm_limits_default(&in->lim);
	mm_prog_init(&p);
	for (unsigned int i = 0; i < BENCH_INPUTS; i++) {
		for (unsigned int b = 0; b < BENCH_INPUT_LEN; b += 8) {
			uint64_t x = mm_splitmix64(&seed);
			memcpy(&in->data[i][b], &x, 8);
		}
		if (mm_decode(in->data[i], BENCH_INPUT_LEN, &in->lim, &p)) {
			mm_prog_free(&p);
			return -1;
		}
		in->cfg[i] = p.cfg;
	}
	mm_prog_free(&p);
	return 0;
}

/* ------------------------------------------------------------------------
 * The per-input reset
 * ---------------------------------------------------------------------- */

struct reset_ctx {
	struct mm_sim *sim;
	const struct mm_config *cfg;
	unsigned int n;
	unsigned long failed;
};

static void reset_round(void *arg)
{
	struct reset_ctx *c = arg;

	for (unsigned int i = 0; i < c->n; i++)
		c->failed += mm_sim_init(c->sim, &c->cfg[i], -1) != 0;
}

/* Times mm_sim_init over cfg[0..n); prints one row. */
static int reset_row(const char *what, const struct mm_config *cfg, unsigned int n, double seconds)
{
	struct reset_ctx c = {.sim = mm_sim_create(), .cfg = cfg, .n = n};
	double pages = 0, bytes = 0, max_bytes = 0;
	unsigned long rounds;

	if (!c.sim) {
		fprintf(stderr, "mmfuzz: bench: out of memory\n");
		return -1;
	}
	/* The first round, untimed: the bytes each init writes, and buffer growth. */
	for (unsigned int i = 0; i < n; i++) {
		if (mm_sim_init(c.sim, &cfg[i], -1)) {
			fprintf(stderr, "mmfuzz: bench: cannot build a %s\n", what);
			mm_sim_destroy(c.sim);
			return -1;
		}
		double b = (double)mm_sim_reset_bytes(c.sim);
		bytes += b;
		max_bytes = b > max_bytes ? b : max_bytes;
		pages += (double)mm_config_max_pfn(&cfg[i]);
	}
	double t = time_rounds(reset_round, &c, seconds, &rounds);
	mm_sim_destroy(c.sim);
	if (c.failed) {
		fprintf(stderr, "mmfuzz: bench: mm_sim_init failed on a %s\n", what);
		return -1;
	}
	printf("%-34s %7.0f %12.0f %12.0f %10.2f %12.0f\n", what, pages / n, bytes / n, max_bytes,
	       t * 1e6 / ((double)rounds * n), (double)rounds * n / t);
	return 0;
}

static int bench_reset(const struct inputs *in, double seconds)
{
	struct mm_config big;
	char what[64];

	bench_machine(&big);
	printf("per-input reset: mm_sim_init() (mean over the machines; bytes from "
	       "mm_sim_reset_bytes())\n");
	printf("%-34s %7s %12s %12s %10s %12s\n", "machine", "pages", "reset bytes", "max bytes",
	       "us/init", "inits/s");
	snprintf(what, sizeof(what), "fuzz inputs (%u decoded)", BENCH_INPUTS);
	if (reset_row(what, in->cfg, BENCH_INPUTS, seconds))
		return -1;
	return reset_row("the buddy bench machine", &big, 1, seconds);
}

/* ------------------------------------------------------------------------
 * The executor: decode + run, per input, as the fuzz targets do
 * ---------------------------------------------------------------------- */

/* Machines by CPU count: the O(CPUs) work (pagesets, diffs, scans) dominates past 64. */
static const unsigned int cpu_class_max[] = {4, 16, 64, 128, MM_MAX_CPUS};
#define NR_CPU_CLASSES (sizeof(cpu_class_max) / sizeof(cpu_class_max[0]))

struct exec_ctx {
	const struct inputs *in;
	struct mm_limits lim; /* the inputs' or a fuzz target's */
	struct mm_exec *ex;
	struct mm_prog prog;
	struct mm_exec_opts opts;
	unsigned long failed;
	bool count; /* the first round: sum the counts below */
	unsigned long long ops, skipped, locks, full_checks, allocs, alloc_fail;
	bool timed; /* time each input into secs[] by its cls[] */
	unsigned int cls[BENCH_INPUTS];
	double secs[NR_CPU_CLASSES];
};

static void exec_round(void *arg)
{
	struct exec_ctx *c = arg;
	long failed_op;

	for (unsigned int i = 0; i < BENCH_INPUTS; i++) {
		double t0 = c->timed ? cli_now() : 0;
		int bad = mm_decode(c->in->data[i], BENCH_INPUT_LEN, &c->lim, &c->prog) ||
			  mm_exec_run(c->ex, &c->prog, &c->opts, &failed_op) < 0;
		if (c->timed)
			c->secs[c->cls[i]] += cli_now() - t0;
		if (bad) {
			c->failed++;
			continue;
		}
		if (c->count) {
			struct mm_stats st;
			mm_sim_stats(mm_exec_sim(c->ex), &st);
			c->ops += c->prog.nr_ops;
			c->skipped += mm_exec_skipped(c->ex);
			c->locks += st.zone_lock_acquisitions;
			c->full_checks += st.full_checks;
			c->allocs += st.alloc_success;
			c->alloc_fail += st.alloc_fail;
		}
	}
}

static int bench_exec(const struct inputs *in, double seconds)
{
	struct exec_ctx c = {.in = in, .lim = in->lim, .ex = mm_exec_create(), .count = true};
	unsigned long rounds;
	int ret = 0;

	if (!c.ex) {
		fprintf(stderr, "mmfuzz: bench: out of memory\n");
		return -1;
	}
	mm_prog_init(&c.prog);
	mm_exec_opts_default(&c.opts);
	c.opts.on_violation = count_violation;

	exec_round(&c);
	c.count = false;
	double t = time_rounds(exec_round, &c, seconds, &rounds);
	if (c.failed) {
		fprintf(stderr, "mmfuzz: bench: %lu inputs could not be decoded or run\n",
			c.failed);
		ret = -1;
		goto out;
	}

	double progs = (double)rounds * BENCH_INPUTS;
	double ops = (double)c.ops;
	printf("executor: mm_decode() + mm_exec_run() per input (default limits, full check "
	       "every %u ops\nand at the end), %u random %u-byte inputs, splitmix64 seed %#llx\n",
	       c.opts.check_every, BENCH_INPUTS, BENCH_INPUT_LEN, (unsigned long long)BENCH_SEED);
	printf("%12s %12s %9s %9s %9s %9s %12s %10s\n", "inputs/s", "ops/s", "us/input",
	       "ops/input", "skipped", "locks/op", "checks/input", "allocs ok");
	printf("%12.0f %12.0f %9.2f %9.1f %8.1f%% %9.3f %12.2f %9.1f%%\n", progs / t,
	       progs * (ops / BENCH_INPUTS) / t, t * 1e6 / progs, ops / BENCH_INPUTS,
	       ops > 0 ? 100.0 * (double)c.skipped / ops : 0.0,
	       ops > 0 ? (double)c.locks / ops : 0.0, (double)c.full_checks / BENCH_INPUTS,
	       c.allocs + c.alloc_fail
		       ? 100.0 * (double)c.allocs / (double)(c.allocs + c.alloc_fail)
		       : 0.0);
out:
	mm_prog_free(&c.prog);
	mm_exec_destroy(c.ex);
	return ret;
}

/* ------------------------------------------------------------------------
 * Per fuzz target: the same inputs under each target's machine shape
 * ---------------------------------------------------------------------- */

static int bench_target(const struct inputs *in, const char *target, double seconds)
{
	struct exec_ctx c = {.in = in, .ex = mm_exec_create(), .timed = true};
	unsigned long n[NR_CPU_CLASSES] = {0}, rounds;
	int ret = 0;

	if (!c.ex || mm_limits_for_target(target, &c.lim)) {
		mm_exec_destroy(c.ex);
		fprintf(stderr, "mmfuzz: bench: cannot set up %s\n", target);
		return -1;
	}
	mm_prog_init(&c.prog);
	mm_exec_opts_default(&c.opts);
	c.opts.on_violation = count_violation;
	for (unsigned int i = 0; i < BENCH_INPUTS; i++) {
		unsigned int cpus = 0, k = 0;
		if (!mm_decode(in->data[i], BENCH_INPUT_LEN, &c.lim, &c.prog))
			cpus = mm_config_nr_cpus(&c.prog.cfg);
		while (k + 1 < NR_CPU_CLASSES && cpus > cpu_class_max[k])
			k++;
		c.cls[i] = k;
		n[k]++;
	}
	exec_round(&c); /* warm: buffers sized for the largest machine */
	memset(c.secs, 0, sizeof(c.secs));
	double t = time_rounds(exec_round, &c, seconds, &rounds);
	if (c.failed) {
		fprintf(stderr, "mmfuzz: bench: %lu %s inputs could not be decoded or run\n",
			c.failed, target);
		ret = -1;
	} else {
		printf("%-16s %9.0f %9.2f", target, (double)rounds * BENCH_INPUTS / t,
		       t * 1e6 / ((double)rounds * BENCH_INPUTS));
		for (unsigned int k = 0; k < NR_CPU_CLASSES; k++) {
			if (n[k])
				printf(" %7.1f (%3lu)", c.secs[k] * 1e6 / ((double)rounds * n[k]),
				       n[k]);
			else
				printf(" %13s", "-");
		}
		putchar('\n');
	}
	mm_prog_free(&c.prog);
	mm_exec_destroy(c.ex);
	return ret;
}

/*
 * What one fuzz input costs each target, by the machine it decodes to: the
 * executor's inputs again, under each target's limits, as
 * mmfuzz_run_target() runs them (no libFuzzer: its own bookkeeping per run
 * comes on top in the targets' exec/s).
 */
static int bench_targets(const struct inputs *in, double seconds)
{
	printf("per fuzz target: the %u inputs above under each target's machine shape;\n"
	       "us/input by CPUs of the machine decoded (inputs in the class)\n",
	       BENCH_INPUTS);
	printf("%-16s %9s %9s", "target", "inputs/s", "us/input");
	for (unsigned int k = 0; k < NR_CPU_CLASSES; k++) {
		char head[24];
		snprintf(head, sizeof(head), "%u-%u CPUs", k ? cpu_class_max[k - 1] + 1 : 1,
			 cpu_class_max[k]);
		printf(" %13s", head);
	}
	putchar('\n');
	for (size_t i = 0; mm_target_at(i); i++)
		if (bench_target(in, mm_target_at(i), seconds))
			return -1;
	return 0;
}

/* ------------------------------------------------------------------------
 * The command
 * ---------------------------------------------------------------------- */

static const char usage_line[] = "mmfuzz bench [--seconds S] [--quick]";

static int parse_seconds(const char *s, double *out)
{
	if (!cli_parse_seconds(s, 1e-9, BENCH_MAX_SECONDS, out))
		return cli_usage_error("bench: --seconds wants a number of seconds in (0, %.0f], "
				       "got '%s'",
				       BENCH_MAX_SECONDS, s);
	return 0;
}

int cmd_bench(int argc, char **argv)
{
	double seconds = BENCH_SECONDS;
	bool quick = false, seconds_set = false;
	struct inputs *in;
	int ret;

	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		if (!strcmp(arg, "--seconds") || !strncmp(arg, "--seconds=", 10)) {
			const char *v = arg[9] == '=' ? arg + 10 : NULL;
			if (!v && i + 1 >= argc)
				return cli_usage_error("bench: --seconds needs a value (%s)",
						       usage_line);
			if ((ret = parse_seconds(v ? v : argv[++i], &seconds)))
				return ret;
			seconds_set = true;
		} else if (!strcmp(arg, "--quick")) {
			quick = true;
		} else if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			printf("usage: %s\n"
			       "  --seconds S  time per measurement (default %.2f)\n"
			       "  --quick      %.2f s per measurement, unless --seconds is given\n"
			       "Counts are deterministic; only the times vary.\n",
			       usage_line, BENCH_SECONDS, BENCH_QUICK_SECONDS);
			return EXIT_CLEAN;
		} else {
			return cli_usage_error("bench: unknown argument '%s' (%s)", arg,
					       usage_line);
		}
	}
	if (quick && !seconds_set)
		seconds = BENCH_QUICK_SECONDS;

	in = malloc(sizeof(*in));
	if (!in || make_inputs(in)) {
		free(in);
		return cli_usage_error("bench: out of memory");
	}
	printf("mmfuzz bench: %.2f s per measurement; counts are per op and deterministic, "
	       "times vary\n\n",
	       seconds);
#if defined(BENCH_SANITIZED) || !defined(__OPTIMIZE__)
	printf("note: this mmfuzz is built with sanitizers or without optimization (and\n"
	       "malloc may be the sanitizer's); the release preset gives the plain figures\n\n");
#endif
	printf("%-34s %zu bytes\n\n", "page descriptor (struct page)", mm_page_descriptor_size());

	ret = bench_pairs(seconds);
	if (!ret) {
		putchar('\n');
		ret = bench_seed000();
	}
	if (!ret) {
		putchar('\n');
		ret = bench_seed002(count_violation);
	}
	if (!ret) {
		putchar('\n');
		ret = bench_seed003();
	}
	if (!ret) {
		putchar('\n');
		ret = bench_seed004();
	}
	if (!ret) {
		unsigned long compaction_violations = 0;
		putchar('\n');
		ret = bench_compaction(&compaction_violations);
		violations += compaction_violations;
	}
	if (!ret) {
		putchar('\n');
		ret = bench_reset(in, seconds);
	}
	if (!ret) {
		putchar('\n');
		ret = bench_exec(in, seconds);
	}
	if (!ret) {
		putchar('\n');
		ret = bench_targets(in, seconds);
	}
	free(in);
	if (ret)
		return EXIT_USAGE;
	if (violations) {
		printf("\nthe correct model reported %lu violation(s): see the first above\n",
		       violations);
		return EXIT_VIOLATION;
	}
	return EXIT_CLEAN;
}
