/* SPDX-License-Identifier: MIT */
/*
 * bench_buddy.c - mmfuzz bench: buddy alloc+free pairs against glibc malloc/free.
 */
#include "bench.h"
#include "results.h"

#include <limits.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

void bench_machine(struct mm_config *cfg)
{
	mm_config_init(cfg);
	cfg->zones[0][ZONE_NORMAL] =
		(struct mm_zone_config){0, BENCH_PAGES, BENCH_PAGES, BENCH_PAGES};
}

/* Returns 0, or -1 after a message when the model could not serve the batch. */
int bench_pairs(double seconds)
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
	mm_sim_set_violation_handler(sim, bench_count_violation, NULL);
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
		double t_model = bench_time_rounds(model_round, &c, seconds, &model_rounds);
		malloc_round(&c);
		double t_malloc = bench_time_rounds(malloc_round, &c, seconds, &malloc_rounds);
		if (c.failed) {
			fprintf(stderr, "mmfuzz: bench: malloc(%zu) failed\n", c.bytes);
			ret = -1;
			goto out;
		}

		double pairs_model = (double)model_rounds * c.n;
		double pairs_malloc = (double)malloc_rounds * c.n;
		double ns_model = t_model * 1e9 / pairs_model;
		double ns_malloc = t_malloc * 1e9 / pairs_malloc;
		char row[64];
		snprintf(row, sizeof(row), "order %u %s", c.order,
			 c.order > 3 || !rows[r].pcp ? "buddy" : "pcp");
		results_metric("pairs", row, "model_ns_per_pair", ns_model);
		results_metric("pairs", row, "glibc_ns_per_pair", ns_malloc);
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
