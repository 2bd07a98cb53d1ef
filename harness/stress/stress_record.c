/* SPDX-License-Identifier: MIT */
/*
 * stress_record.c - the flight recorder of `mmfuzz stress` and the
 * watchdog that reads it.
 *
 * Every thread keeps its last STRESS_RECORD_K ops, each with the global
 * sequence number taken when it started. After a violation the threads'
 * records are merged in sequence order into a text trace: allocations are
 * renumbered a0, a1, ... in that order, and frees of blocks allocated
 * before the recorded window are dropped, so the trace parses and runs on
 * a fresh machine of the same shape. The deterministic executor then runs
 * it and says whether the failure reproduces without real threads.
 */
#include "stress.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------------
 * Records
 * ---------------------------------------------------------------------- */

_Static_assert(sizeof(struct mm_op) <= 2 * sizeof(uint64_t), "a record holds an op in two words");

static void pack_op(const struct mm_op *op, uint64_t w[2])
{
	w[0] = w[1] = 0;
	memcpy(w, op, sizeof(*op));
}

static void unpack_op(const uint64_t w[2], struct mm_op *op)
{
	memcpy(op, w, sizeof(*op));
}

/*
 * Only the owner writes its records; the watchdog reads them while the
 * owner may be running. Relaxed atomic words with the sequence number
 * cleared first and published last let it skip a record caught halfway.
 */
void stress_record(struct stress_thread *t, uint64_t seq, const struct mm_op *op,
		   uint64_t alloc_seq)
{
	unsigned long long n = atomic_load_explicit(&t->nr_rec, memory_order_relaxed);
	struct stress_rec *r = &t->rec[n % STRESS_RECORD_K];

	__atomic_store_n(&r->seq, 0, __ATOMIC_RELAXED);
	uint64_t w[2];

	pack_op(op, w);
	__atomic_store_n(&r->op[0], w[0], __ATOMIC_RELAXED);
	__atomic_store_n(&r->op[1], w[1], __ATOMIC_RELAXED);
	__atomic_store_n(&r->alloc_seq, alloc_seq, __ATOMIC_RELAXED);
	__atomic_store_n(&r->seq, seq, __ATOMIC_RELEASE);
	atomic_store_explicit(&t->nr_rec, n + 1, memory_order_release);
	stress_offline_op(t, op);
}

struct rec_copy {
	uint64_t seq, alloc_seq;
	struct mm_op op;
};

/* Returns false if the slot was empty or rewritten while it was read. */
static bool read_rec(const struct stress_rec *r, struct rec_copy *out)
{
	uint64_t seq = __atomic_load_n(&r->seq, __ATOMIC_ACQUIRE);
	uint64_t w[2] = {__atomic_load_n(&r->op[0], __ATOMIC_RELAXED),
			 __atomic_load_n(&r->op[1], __ATOMIC_RELAXED)};

	unpack_op(w, &out->op);
	out->alloc_seq = __atomic_load_n(&r->alloc_seq, __ATOMIC_RELAXED);
	out->seq = seq;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return seq && seq == __atomic_load_n(&r->seq, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------------------
 * The merged trace
 * ---------------------------------------------------------------------- */

static int by_seq(const void *a, const void *b)
{
	uint64_t x = ((const struct rec_copy *)a)->seq, y = ((const struct rec_copy *)b)->seq;

	return x < y ? -1 : x > y;
}

/* Hotplug, sysctl, pcp and deferred-init ops carry machine state but name no block. */
static bool is_state_op(unsigned int kind)
{
	return kind != MM_OP_ALLOC && kind != MM_OP_FREE;
}

struct merged {
	struct mm_prog prog;
	uint64_t first_seq, last_seq;
	unsigned long dropped_frees, kept_state_ops;
};

/*
 * The window is the suffix of the global history that every thread still
 * holds: from the newest "oldest record" among the threads whose ring has
 * wrapped. State ops from before it are kept too: nothing between them
 * and the window names a block they could reorder against.
 */
static int merge_records(struct stress_run *run, struct merged *m)
{
	size_t cap = (size_t)run->nr_threads * STRESS_RECORD_K, n = 0, nr_allocs = 0;
	struct rec_copy *all = calloc(cap ? cap : 1, sizeof(*all));
	uint64_t *alloc_seqs = calloc(cap ? cap : 1, sizeof(*alloc_seqs));
	uint64_t cutoff = 0;
	int ret = -1;

	if (!all || !alloc_seqs)
		goto out;
	for (unsigned int i = 0; i < run->nr_threads; i++) {
		struct stress_thread *t = run->t[i];
		unsigned long long nr = atomic_load_explicit(&t->nr_rec, memory_order_acquire);
		if (nr > STRESS_RECORD_K) {
			struct rec_copy oldest;
			if (read_rec(&t->rec[nr % STRESS_RECORD_K], &oldest) && oldest.seq > cutoff)
				cutoff = oldest.seq;
		}
		for (unsigned int k = 0; k < STRESS_RECORD_K && k < nr; k++)
			if (read_rec(&t->rec[k], &all[n]))
				n++;
	}
	qsort(all, n, sizeof(*all), by_seq);

	mm_prog_init(&m->prog);
	m->prog.cfg = run->cfg;
	for (size_t i = 0; i < n; i++) {
		struct rec_copy *r = &all[i];
		if (r->seq < cutoff) {
			if (!is_state_op(r->op.kind))
				continue;
			m->kept_state_ops++;
		}
		if (!m->first_seq)
			m->first_seq = r->seq;
		m->last_seq = r->seq;
		if (r->op.kind == MM_OP_ALLOC) {
			alloc_seqs[nr_allocs++] = r->seq;
		} else if (r->op.kind == MM_OP_FREE) {
			/* allocations are numbered in sequence order: search the seqs */
			size_t lo = 0, hi = nr_allocs;
			while (lo < hi) {
				size_t mid = (lo + hi) / 2;
				if (alloc_seqs[mid] < r->alloc_seq)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo == nr_allocs || alloc_seqs[lo] != r->alloc_seq) {
				m->dropped_frees++;
				continue;
			}
			r->op.free.handle = (uint32_t)lo;
		}
		if (mm_prog_push(&m->prog, &r->op))
			goto out;
	}
	ret = 0;
out:
	free(all);
	free(alloc_seqs);
	return ret;
}

/* A new file in dir named after the seed, the pid and the time; never an old one. */
static FILE *create_trace(const struct stress_run *run, char *path, size_t len)
{
	const char *dir = run->o.out_dir ? run->o.out_dir : ".";
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;

	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	for (unsigned int k = 0; k < 100; k++) {
		char suffix[16] = "";
		if (k)
			snprintf(suffix, sizeof(suffix), "-%u", k);
		snprintf(path, len, "%s/stress-%llx-%ld-%s%s.txt", dir,
			 (unsigned long long)run->o.seed, (long)getpid(), stamp, suffix);
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd >= 0) {
			FILE *f = fdopen(fd, "w");
			if (!f)
				close(fd);
			return f;
		}
		if (errno != EEXIST)
			break;
	}
	fprintf(stderr, "mmfuzz: stress: cannot create a trace in %s: %s\n", dir, strerror(errno));
	return NULL;
}

static const char *variant_name(int v)
{
	return v >= 0 ? mm_variant_at((size_t)v)->name : "none";
}

struct replay_first {
	char line[512];
	unsigned long n;
};

static void replay_violation(const struct mm_violation *v, void *arg)
{
	struct replay_first *r = arg;

	if (!r->n++)
		mm_violation_format(v, r->line, sizeof(r->line));
}

static void replay(const struct stress_run *run, const struct mm_prog *p, const char *path)
{
	struct mm_exec *ex = mm_exec_create();
	struct replay_first first = {.n = 0};
	struct mm_exec_opts o;
	char vflag[96] = "";
	long failed_op;

	if (!ex) {
		fprintf(stderr, "mmfuzz: stress: out of memory for the replay\n");
		return;
	}
	mm_exec_opts_default(&o);
	o.variant = run->o.variant;
	o.on_violation = replay_violation;
	o.arg = &first;
	if (run->o.variant >= 0)
		snprintf(vflag, sizeof(vflag), " --variant %s", variant_name(run->o.variant));
	long n = mm_exec_run(ex, p, &o, &failed_op);
	if (n < 0)
		printf("replay: the deterministic executor cannot build the machine\n");
	else if (n > 0)
		printf("replay: reproduced in the deterministic executor: %s, during op %ld of %u\n"
		       "replay: see it with: mmfuzz repro%s %s\n",
		       first.line, failed_op, p->nr_ops, vflag, path);
	else
		printf("replay: did not reproduce in the deterministic executor (%u ops ran "
		       "clean): "
		       "the failure needs the threads' interleaving, or state from before the "
		       "recorded window\n",
		       p->nr_ops);
	mm_exec_destroy(ex);
}

void stress_write_trace(struct stress_run *run)
{
	struct merged m = {0};
	char path[4096];
	FILE *f;

	if (merge_records(run, &m)) {
		fprintf(stderr, "mmfuzz: stress: out of memory merging the flight recorder\n");
		mm_prog_free(&m.prog);
		return;
	}
	f = create_trace(run, path, sizeof(path));
	if (!f) {
		mm_prog_free(&m.prog);
		return;
	}
	fprintf(f, "# mmfuzz stress flight recorder: seed=%#llx variant=%s threads=%u pid=%ld\n",
		(unsigned long long)run->o.seed, variant_name(run->o.variant), run->nr_threads,
		(long)getpid());
	fprintf(f, "# first violation: %s\n", run->first_violation);
	fprintf(f,
		"# ops with sequence numbers %llu..%llu, merged from the last %u of each thread;\n"
		"# %lu ops that name no block (hotplug, sysctl, pcp, deferred init) from before\n"
		"# the window kept, %lu frees of blocks\n"
		"# allocated before the window dropped\n",
		(unsigned long long)m.first_seq, (unsigned long long)m.last_seq, STRESS_RECORD_K,
		m.kept_state_ops, m.dropped_frees);
	mm_print_prog(f, &m.prog);
	if (fclose(f)) {
		fprintf(stderr, "mmfuzz: stress: writing %s failed\n", path);
		mm_prog_free(&m.prog);
		return;
	}
	printf("flight recorder: %u ops written to %s\n", m.prog.nr_ops, path);
	fflush(stdout);
	replay(run, &m.prog, path);
	mm_prog_free(&m.prog);
}

/* ------------------------------------------------------------------------
 * The watchdog
 * ---------------------------------------------------------------------- */

static const char *const state_names[] = {
	[ST_STARTING] = "starting",	    [ST_RUNNING] = "running", [ST_PARKED] = "parked",
	[ST_OFFLINE] = "offline (waiting)", [ST_DONE] = "done",
};

#define WATCHDOG_RECENT 8u

static void dump_thread(struct stress_thread *t)
{
	unsigned long long nr = atomic_load_explicit(&t->nr_rec, memory_order_acquire);
	int state = atomic_load_explicit(&t->state, memory_order_relaxed);
	struct rec_copy r;
	char line[160], cpu[16] = "-";

	if (!t->service)
		snprintf(cpu, sizeof(cpu), "%d", t->cpu);
	fprintf(stderr, "  thread %u (%s, cpu %s, node %d): %s, %llu ops, %llu skipped\n", t->idx,
		t->service ? t->service->name : "worker", cpu, t->node,
		state >= 0 && state <= ST_DONE ? state_names[state] : "?",
		(unsigned long long)atomic_load_explicit(&t->ops, memory_order_relaxed),
		(unsigned long long)atomic_load_explicit(&t->skipped, memory_order_relaxed));
	for (unsigned long long k = nr > WATCHDOG_RECENT ? nr - WATCHDOG_RECENT : 0; k < nr; k++) {
		if (!read_rec(&t->rec[k % STRESS_RECORD_K], &r))
			continue;
		mm_format_op(&r.op, (uint32_t)r.alloc_seq, line, sizeof(line));
		fprintf(stderr, "    %s #%llu %s\n", k + 1 == nr ? "last" : "    ",
			(unsigned long long)r.seq, line);
	}
}

static unsigned long long progress(struct stress_run *run)
{
	return stress_total_ops(run) +
	       atomic_load_explicit(&run->quiesce_checks, memory_order_relaxed);
}

/*
 * Progress is the ops the threads ran plus the quiesce checks run: a
 * thread stuck in the core, a lost wake-up at the quiesce barrier and a
 * full check that never ends all stop both.
 */
static void *watchdog_main(void *arg)
{
	struct stress_run *run = arg;
	unsigned long long last = progress(run);
	double since = cli_now();
	struct timespec tick = {0, 100 * 1000 * 1000};

	while (!atomic_load_explicit(&run->watchdog_stop, memory_order_acquire)) {
		nanosleep(&tick, NULL);
		unsigned long long p = progress(run);
		double now = cli_now();
		if (p != last) {
			last = p;
			since = now;
			continue;
		}
		if (now - since < run->o.watchdog_s)
			continue;
		fflush(stdout);
		fprintf(stderr,
			"mmfuzz: stress: watchdog: no progress for %u s (%llu ops, %lu "
			"quiesce checks, %.1f s into the run); the threads:\n",
			run->o.watchdog_s, stress_total_ops(run),
			atomic_load_explicit(&run->quiesce_checks, memory_order_relaxed),
			now - run->t0);
		for (unsigned int i = 0; i < run->nr_threads; i++)
			dump_thread(run->t[i]);
		fflush(stderr);
		/* The stuck threads may hold any lock: leave without running exit handlers. */
		_exit(EXIT_WATCHDOG);
	}
	return NULL;
}

int stress_watchdog_start(struct stress_run *run)
{
	if (!run->o.watchdog_s)
		return 0;
	atomic_store(&run->watchdog_stop, false);
	if (pthread_create(&run->watchdog, NULL, watchdog_main, run))
		return -1;
	run->watchdog_started = true;
	return 0;
}

void stress_watchdog_stop(struct stress_run *run)
{
	if (!run->watchdog_started)
		return;
	atomic_store_explicit(&run->watchdog_stop, true, memory_order_release);
	pthread_join(run->watchdog, NULL);
	run->watchdog_started = false;
}
