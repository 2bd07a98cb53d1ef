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
 *
 * A failure can need state from before that window: blocks allocated
 * earlier, counters' locals, pcp contents. So at the start and at each
 * quiesce point whose checks passed, the recorder also keeps a snapshot
 * of the machine (src/snapshot.c) and the blocks the threads hold, and
 * every thread logs each op it runs from there on. The trace is then that
 * whole window, written beside the snapshot it starts from: its first
 * allocations are the held blocks, adopted rather than run.
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

/* A recorded op, read back; also the window's log entry. */
struct stress_logged {
	uint64_t seq, alloc_seq;
	struct mm_op op;
};

/*
 * The window's log: read only at quiesce points and after the threads are
 * joined, so a plain array the owner grows. A window longer than its
 * share of STRESS_LOG_MAX is given up, not grown without bound.
 */
static void log_op(struct stress_thread *t, uint64_t seq, const struct mm_op *op,
		   uint64_t alloc_seq)
{
	struct stress_run *run = t->run;
	size_t max = STRESS_LOG_MAX / (run->nr_threads ? run->nr_threads : 1);

	if (t->log_lost || !run->snap)
		return;
	if (t->nr_log == t->cap_log) {
		size_t cap = t->cap_log ? 2 * t->cap_log : 1024;
		struct stress_logged *l =
			cap <= (max > 4096 ? max : 4096) ? realloc(t->log, cap * sizeof(*l)) : NULL;
		if (!l) {
			t->log_lost = true;
			return;
		}
		t->log = l;
		t->cap_log = cap;
	}
	t->log[t->nr_log++] = (struct stress_logged){seq, alloc_seq, *op};
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
	log_op(t, seq, op, alloc_seq);
	stress_offline_op(t, op);
}

/* Returns false if the slot was empty or rewritten while it was read. */
static bool read_rec(const struct stress_rec *r, struct stress_logged *out)
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
	uint64_t x = ((const struct stress_logged *)a)->seq,
		 y = ((const struct stress_logged *)b)->seq;

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
	unsigned int nr_held; /* the first allocations: blocks held at the snapshot */
};

/* A block a thread held at the last quiesce point, and the CPU it ran as (-1: an LRU's). */
struct stress_held {
	struct stress_block b;
	int cpu;
};

struct stress_snap {
	struct mm_snapshot s;
	bool valid;
	struct stress_held *held; /* by alloc_seq */
	size_t nr_held, cap_held;
	unsigned long taken;
	double longest, total; /* seconds */
};

/*
 * Records in sequence order to a program: held blocks first, as
 * allocations a0.. that the replay adopts from the snapshot; then the
 * window, records before cutoff only if they name no block. A free names
 * its allocation by the alloc's sequence number: held blocks' come before
 * the window's, so one sorted array maps both to handles.
 */
static int build_prog(struct stress_run *run, struct stress_logged *all, size_t n, uint64_t cutoff,
		      const struct stress_held *held, size_t nr_held, struct merged *m)
{
	uint64_t *alloc_seqs = calloc(n + nr_held + 1, sizeof(*alloc_seqs));
	size_t nr_allocs = 0;

	if (!alloc_seqs)
		return -1;
	if (n)
		qsort(all, n, sizeof(*all), by_seq);
	mm_prog_init(&m->prog);
	m->prog.cfg = run->cfg;
	for (size_t i = 0; i < nr_held; i++) {
		struct mm_op op = {.kind = MM_OP_ALLOC,
				   .cpu = (uint16_t)(held[i].cpu > 0 ? held[i].cpu : 0)};
		op.alloc.order = held[i].b.order;
		op.alloc.node = -1;
		alloc_seqs[nr_allocs++] = held[i].b.alloc_seq;
		if (mm_prog_push(&m->prog, &op))
			goto fail;
	}
	m->nr_held = (unsigned int)nr_held;
	for (size_t i = 0; i < n; i++) {
		struct stress_logged *r = &all[i];
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
			goto fail;
	}
	free(alloc_seqs);
	return 0;
fail:
	free(alloc_seqs);
	return -1;
}

/*
 * Without a snapshot, the window is the suffix of the global history that
 * every thread still holds: from the newest "oldest record" among the
 * threads whose ring has wrapped. State ops from before it are kept too:
 * nothing between them and the window names a block they could reorder
 * against.
 */
static int merge_records(struct stress_run *run, struct merged *m)
{
	size_t cap = (size_t)run->nr_threads * STRESS_RECORD_K, n = 0;
	struct stress_logged *all = calloc(cap ? cap : 1, sizeof(*all));
	uint64_t cutoff = 0;
	int ret;

	if (!all)
		return -1;
	for (unsigned int i = 0; i < run->nr_threads; i++) {
		struct stress_thread *t = run->t[i];
		unsigned long long nr = atomic_load_explicit(&t->nr_rec, memory_order_acquire);
		if (nr > STRESS_RECORD_K) {
			struct stress_logged oldest;
			if (read_rec(&t->rec[nr % STRESS_RECORD_K], &oldest) && oldest.seq > cutoff)
				cutoff = oldest.seq;
		}
		for (unsigned int k = 0; k < STRESS_RECORD_K && k < nr; k++)
			if (read_rec(&t->rec[k], &all[n]))
				n++;
	}
	ret = build_prog(run, all, n, cutoff, NULL, 0, m);
	free(all);
	return ret;
}

/* With a snapshot: every op each thread logged since it was taken. */
static int merge_window(struct stress_run *run, struct merged *m)
{
	const struct stress_snap *sn = run->snap;
	size_t n = 0;
	int ret;

	for (unsigned int i = 0; i < run->nr_threads; i++)
		n += run->t[i]->nr_log;
	struct stress_logged *all = calloc(n ? n : 1, sizeof(*all));
	if (!all)
		return -1;
	n = 0;
	for (unsigned int i = 0; i < run->nr_threads; i++) {
		if (run->t[i]->nr_log)
			memcpy(all + n, run->t[i]->log, run->t[i]->nr_log * sizeof(*all));
		n += run->t[i]->nr_log;
	}
	ret = build_prog(run, all, n, 0, sn->held, sn->nr_held, m);
	free(all);
	return ret;
}

/* Is the whole window since the snapshot logged? */
static bool window_complete(const struct stress_run *run)
{
	if (!run->snap || !run->snap->valid)
		return false;
	for (unsigned int i = 0; i < run->nr_threads; i++)
		if (run->t[i]->log_lost)
			return false;
	return true;
}

/* ------------------------------------------------------------------------
 * The snapshot at each quiesce point
 * ---------------------------------------------------------------------- */

static int hold(struct stress_snap *sn, const struct stress_block *b, int cpu)
{
	if (sn->nr_held == sn->cap_held) {
		size_t cap = sn->cap_held ? 2 * sn->cap_held : 256;
		struct stress_held *h = realloc(sn->held, cap * sizeof(*h));
		if (!h)
			return -1;
		sn->held = h;
		sn->cap_held = cap;
	}
	sn->held[sn->nr_held++] = (struct stress_held){*b, cpu};
	return 0;
}

static int by_alloc_seq(const void *a, const void *b)
{
	uint64_t x = ((const struct stress_held *)a)->b.alloc_seq;
	uint64_t y = ((const struct stress_held *)b)->b.alloc_seq;

	return x < y ? -1 : x > y;
}

/* Every block the threads hold: handles, pools, inboxes, the LRUs (quiesced). */
static int collect_held(struct stress_run *run, struct stress_snap *sn)
{
	int bad = 0;

	sn->nr_held = 0;
	for (unsigned int i = 0; i < run->nr_workers; i++) {
		struct stress_thread *t = run->t[i];
		for (unsigned int k = 0; k < STRESS_MAX_HANDLES; k++)
			if (t->chunk[k].pfn >= 0)
				bad |= hold(sn, &t->chunk[k], t->cpu);
		for (unsigned int k = 0; k < t->nr_pool; k++)
			bad |= hold(sn, &t->pool[k], t->cpu);
		pthread_mutex_lock(&t->inbox_lock);
		for (unsigned int k = 0; k < t->nr_inbox; k++)
			bad |= hold(sn, &t->inbox[k], t->cpu);
		pthread_mutex_unlock(&t->inbox_lock);
	}
	for (unsigned int n = 0; run->lru_budget && n < run->cfg.nr_nodes; n++) {
		struct stress_lru *l = &run->lru[n];
		pthread_mutex_lock(&l->lock);
		for (unsigned int k = 0; k < l->n; k++)
			bad |= hold(sn, &l->b[(l->head + k) % l->cap], -1);
		pthread_mutex_unlock(&l->lock);
	}
	if (sn->nr_held)
		qsort(sn->held, sn->nr_held, sizeof(*sn->held), by_alloc_seq);
	return bad;
}

int stress_record_quiesced(struct stress_run *run)
{
	struct stress_snap *sn = run->snap;
	double t0 = cli_now();

	if (!sn) {
		sn = calloc(1, sizeof(*sn));
		if (!sn)
			return -1;
		mm_snapshot_init(&sn->s);
		run->snap = sn;
	}
	sn->valid = !collect_held(run, sn) && !mm_snapshot_take(&sn->s, run->sim);
	for (unsigned int i = 0; i < run->nr_threads; i++) {
		run->t[i]->nr_log = 0;
		run->t[i]->log_lost = false;
	}
	double t = cli_now() - t0;
	sn->taken++;
	sn->total += t;
	if (t > sn->longest)
		sn->longest = t;
	return sn->valid ? 0 : -1;
}

void stress_record_summary(const struct stress_run *run)
{
	const struct stress_snap *sn = run->snap;

	if (!sn || !sn->taken)
		return;
	printf("snapshots: %lu taken (start and quiesce points), %.2f ms mean, the longest "
	       "%.2f ms, %.1f MiB each\n",
	       sn->taken, sn->total / (double)sn->taken * 1000, sn->longest * 1000,
	       (double)sn->s.state_len / (1024 * 1024));
}

void stress_record_destroy(struct stress_run *run)
{
	for (unsigned int i = 0; i < run->nr_threads; i++)
		if (run->t[i])
			free(run->t[i]->log);
	if (run->snap) {
		mm_snapshot_free(&run->snap->s);
		free(run->snap->held);
		free(run->snap);
		run->snap = NULL;
	}
}

/* dir/stress-SEED-PID-TIME[-K].ext, created: never an old file. */
static int create_new(const struct stress_run *run, const char *stamp, unsigned int k,
		      const char *ext, char *path, size_t len)
{
	char suffix[16] = "";

	if (k)
		snprintf(suffix, sizeof(suffix), "-%u", k);
	snprintf(path, len, "%s/stress-%llx-%ld-%s%s.%s", run->o.out_dir ? run->o.out_dir : ".",
		 (unsigned long long)run->o.seed, (long)getpid(), stamp, suffix, ext);
	return open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
}

/*
 * A new trace in dir named after the seed, the pid and the time, and with
 * snap_path the snapshot beside it under the same name; never an old file.
 */
static FILE *create_trace(const struct stress_run *run, char *path, size_t len, char *snap_path,
			  FILE **snapf)
{
	const char *dir = run->o.out_dir ? run->o.out_dir : ".";
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;

	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	for (unsigned int k = 0; k < 100; k++) {
		int fd = create_new(run, stamp, k, "txt", path, len), sfd = -1;
		if (fd < 0 && errno != EEXIST)
			break;
		if (fd >= 0 && snap_path) {
			sfd = create_new(run, stamp, k, "snap", snap_path, len);
			if (sfd < 0) {
				int e = errno;
				close(fd);
				unlink(path); /* ours, empty: the pair moves to the next name */
				errno = e;
				if (e != EEXIST)
					break;
				continue;
			}
		}
		if (fd < 0)
			continue;
		FILE *f = fdopen(fd, "w");
		*snapf = sfd >= 0 ? fdopen(sfd, "wb") : NULL;
		if (f && (!snap_path || *snapf))
			return f;
		if (f)
			fclose(f);
		else
			close(fd);
		if (*snapf)
			fclose(*snapf);
		else if (sfd >= 0)
			close(sfd);
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
	struct stress_run *run;
	char line[512];
	unsigned long n;
};

static void replay_violation(const struct mm_violation *v, void *arg)
{
	struct replay_first *r = arg;

	if (!r->n++)
		mm_violation_format(v, r->line, sizeof(r->line));
}

/* The replay's progress for the watchdog; the test hook stalls it here. */
static void replay_op(void *arg)
{
	struct replay_first *r = arg;

	atomic_fetch_add_explicit(&r->run->replay_ops, 1, memory_order_relaxed);
	while (r->run->o.test_stall_replay)
		pause(); /* until the watchdog ends the process */
}

/*
 * Returns true when the executor reproduced a violation. The watchdog
 * runs again meanwhile: a replay that stops moving (a model bug the
 * threads' run left in a loop) ends the run, its trace already written.
 */
static bool replay(struct stress_run *run, const struct mm_prog *p, const char *path,
		   const struct mm_snapshot *snap)
{
	struct mm_exec *ex = mm_exec_create();
	struct replay_first first = {.run = run, .n = 0};
	struct mm_exec_opts o;
	char vflag[96] = "";
	long failed_op;

	if (!ex) {
		fprintf(stderr, "mmfuzz: stress: out of memory for the replay\n");
		return false;
	}
	mm_exec_opts_default(&o);
	o.variant = run->o.variant;
	o.on_violation = replay_violation;
	o.on_op = replay_op;
	o.arg = &first;
	o.snapshot = snap;
	if (run->o.variant >= 0)
		snprintf(vflag, sizeof(vflag), " --variant %s", variant_name(run->o.variant));
	run->replaying = true;
	if (stress_watchdog_start(run))
		fprintf(stderr, "mmfuzz: stress: cannot start the watchdog for the replay\n");
	long n = mm_exec_run(ex, p, &o, &failed_op);
	stress_watchdog_stop(run);
	run->replaying = false;
	if (n < 0)
		printf("replay: the deterministic executor cannot build the machine\n");
	else if (n > 0)
		printf("replay: reproduced in the deterministic executor: %s, during op %ld of %u\n"
		       "replay: see it with: mmfuzz repro%s %s\n",
		       first.line, failed_op, p->nr_ops, vflag, path);
	else
		printf("replay: did not reproduce in the deterministic executor (%u ops ran "
		       "clean): the failure needs the threads' interleaving%s\n",
		       p->nr_ops, snap ? "" : ", or state from before the recorded window");
	mm_exec_destroy(ex);
	return n > 0;
}

/* The snapshot's file: the machine, and the held blocks as the handles a0.. adopt. */
static int write_snapshot(struct stress_snap *sn, FILE *f)
{
	struct mm_handle *h = calloc(sn->nr_held + 1, sizeof(*h));
	int ret = -1;

	if (!h)
		return -1;
	for (size_t i = 0; i < sn->nr_held; i++)
		h[i] = (struct mm_handle){sn->held[i].b.pfn, sn->held[i].b.gen,
					  sn->held[i].b.order};
	if (!mm_snapshot_set_handles(&sn->s, h, (uint32_t)sn->nr_held))
		ret = mm_snapshot_write(&sn->s, f);
	free(h);
	return ret;
}

/*
 * One trace: the window from the snapshot (snap), or the rings' suffix
 * from a fresh machine, saying why (no_snap). Returns true when its
 * replay reproduced a violation.
 */
static bool write_trace(struct stress_run *run, bool snap, const char *no_snap)
{
	struct merged m = {0};
	char path[4096], snap_path[4096];
	FILE *f, *sf = NULL;
	bool reproduced;

	if (snap ? merge_window(run, &m) : merge_records(run, &m)) {
		fprintf(stderr, "mmfuzz: stress: out of memory merging the flight recorder\n");
		mm_prog_free(&m.prog);
		return false;
	}
	f = create_trace(run, path, sizeof(path), snap ? snap_path : NULL, &sf);
	if (!f) {
		mm_prog_free(&m.prog);
		return false;
	}
	if (snap && (write_snapshot(run->snap, sf) | fclose(sf))) {
		fprintf(stderr, "mmfuzz: stress: writing %s failed\n", snap_path);
		snap = false;
	}
	fprintf(f, "# mmfuzz stress flight recorder: seed=%#llx variant=%s threads=%u pid=%ld\n",
		(unsigned long long)run->o.seed, variant_name(run->o.variant), run->nr_threads,
		(long)getpid());
	fprintf(f, "# first violation: %s\n", run->first_violation);
	if (snap) {
		const char *base = strrchr(snap_path, '/');
		fprintf(f,
			"# every op since the last quiesce point (sequence numbers %llu..%llu),\n"
			"# from the machine as it stood there (quiesce point %lu; 0: the start):\n"
			"# snapshot: %s\n"
			"# a0..a%d are the %u blocks the threads held then: a replay adopts them\n"
			"# from the snapshot instead of allocating them; %lu frees dropped\n",
			(unsigned long long)m.first_seq, (unsigned long long)m.last_seq,
			run->snap->taken - 1, base ? base + 1 : snap_path, (int)m.nr_held - 1,
			m.nr_held, m.dropped_frees);
	} else {
		fprintf(f,
			"# ops with sequence numbers %llu..%llu, merged from the last %u of each "
			"thread;\n"
			"# %lu ops that name no block (hotplug, sysctl, pcp, deferred init) from "
			"before\n"
			"# the window kept, %lu frees of blocks\n"
			"# allocated before the window dropped (no snapshot: %s)\n",
			(unsigned long long)m.first_seq, (unsigned long long)m.last_seq,
			STRESS_RECORD_K, m.kept_state_ops, m.dropped_frees, no_snap);
	}
	mm_print_prog(f, &m.prog);
	if (fclose(f)) {
		fprintf(stderr, "mmfuzz: stress: writing %s failed\n", path);
		mm_prog_free(&m.prog);
		return false;
	}
	printf("flight recorder: %u ops written to %s%s%s\n", m.prog.nr_ops, path,
	       snap ? ", the machine at the last quiesce point to " : "", snap ? snap_path : "");
	fflush(stdout);
	reproduced = replay(run, &m.prog, path, snap ? &run->snap->s : NULL);
	mm_prog_free(&m.prog);
	return reproduced;
}

/*
 * The window from the snapshot first: the machine as it was. If that
 * replays clean, the rings' suffix from a fresh machine too: a machine
 * that never existed, but a failure it reproduces is a reproducer still.
 */
void stress_write_trace(struct stress_run *run)
{
	if (!window_complete(run)) {
		write_trace(run, false,
			    !run->snap || !run->snap->valid ? "none taken"
							    : "the window outgrew the log");
		return;
	}
	if (write_trace(run, true, NULL))
		return;
	printf("flight recorder: and the last %u ops of each thread, from a fresh machine:\n",
	       STRESS_RECORD_K);
	write_trace(run, false, "the window from the snapshot replayed clean");
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
	struct stress_logged r;
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
	       atomic_load_explicit(&run->quiesce_checks, memory_order_relaxed) +
	       atomic_load_explicit(&run->replay_ops, memory_order_relaxed);
}

/*
 * Progress is the ops the threads ran plus the quiesce checks run: a
 * thread stuck in the core, a lost wake-up at the quiesce barrier and a
 * full check that never ends all stop both. Once the threads are done,
 * the replay's ops.
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
		if (run->replaying) {
			fprintf(stderr,
				"mmfuzz: stress: watchdog: the replay made no progress for %u s "
				"(at op %lu); its trace is written above\n",
				run->o.watchdog_s,
				atomic_load_explicit(&run->replay_ops, memory_order_relaxed));
			_exit(EXIT_WATCHDOG);
		}
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
