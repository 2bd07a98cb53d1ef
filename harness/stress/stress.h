/* SPDX-License-Identifier: MIT */
/*
 * stress.h - the pieces of `mmfuzz stress` shared by its files: the run
 * options, the workload mix table, the per-thread state, the flight
 * recorder and the host (pinning, NUMA placement).
 *
 *   cmd_stress.c     flags, the monitor (quiesce points, progress, the end), summary, --bench
 *   stress_thread.c  the mix table, worker and service threads, the transfer queues
 *   stress_record.c  the flight recorder, the trace it writes and its replay, the watchdog
 *   stress_host.c    --pin and, with libnuma, node placement
 *   stress_lru.c     the reclaimable pool kswapd reclaims from (--hold)
 *   stress_jitter.c  --jitter: random delays at zone->lock boundaries
 *   stress_counters.c the counter ops: their ledger, per-op drift, exact sums
 *   stress_machine.c the machine: its nodes, zones and distances, or --zoneinfo's
 *   stress_offline.c what offlining and hotplug rely on, and the isolation service
 *   stress_compact.c compaction: the LRU lends it sources, direct compaction, kcompactd
 */
#ifndef MMFUZZ_STRESS_H
#define MMFUZZ_STRESS_H

#include "cli.h"

#include <pthread.h>
#include <stdatomic.h>

#define EXIT_WATCHDOG 3 /* stress: no progress for --watchdog seconds */

#define STRESS_RECORD_K	    256u /* ops each thread's flight recorder keeps */
#define STRESS_CHUNK_BYTES  256u /* random bytes decoded at a time */
#define STRESS_MAX_HANDLES  256u /* allocs one chunk can decode to: each takes a byte at least */
#define STRESS_POOL_MAX	    32u	 /* blocks a worker keeps across chunks */
#define STRESS_POOL_CAP	    (STRESS_POOL_MAX + STRESS_MAX_HANDLES)
#define STRESS_HOLD_DEFAULT 33u	   /* percent of the memory the workers hold at most */
#define STRESS_LRU_MAX	    65536u /* blocks a node's LRU holds at most */
#define STRESS_INBOX	    128u   /* blocks waiting to be freed by another CPU */
#define STRESS_MAX_THREADS  (MM_MAX_CPUS + 8)
#define STRESS_OFFLINED_MAX 4u /* ranges the isolation service keeps offline at once */
#define STRESS_LOG_MAX	    (UINT32_C(1) << 22) /* ops all threads log between quiesce points */

/* ------------------------------------------------------------------------
 * The workload mix: one entry per mechanism
 * ---------------------------------------------------------------------- */

struct stress_thread;
struct stress_run;
struct stress_logged; /* stress_record.c */

/* A block a thread holds: what freeing it needs, and the flight recorder's name for it. */
struct stress_block {
	long long pfn;
	uint32_t gen;
	uint32_t owner; /* the alloc handle number: the stamp's owner */
	uint64_t alloc_seq;
	uint8_t order;
};

enum stress_mix_kind {
	/* Admits decoded ops of one kind on the workers, at its weight's share. */
	MIX_WORKER_OP,
	/* A thread of its own that runs one step per its share of all ops. */
	MIX_SERVICE,
};

struct stress_mix_entry {
	const char *name; /* the --weights key */
	const char *what; /* one line for --help and the docs */
	unsigned int weight;
	enum stress_mix_kind kind;
	uint8_t op_kind; /* MIX_WORKER_OP: the decoded enum mm_op_kind it admits */
	/*
	 * MIX_WORKER_OP: runs a decoded op as the worker's CPU on block b (an
	 * alloc fills it; b->owner is its handle). Returns 0 when done (a freed
	 * or handed-over block is no longer this thread's), 1 when the core
	 * skipped it. MIX_SERVICE: one step, op and b NULL.
	 */
	int (*run)(struct stress_thread *t, struct mm_op *op, struct stress_block *b);
};

#define STRESS_MIX_MAX 32

/* Allocation orders of the worker mix. */
enum stress_orders {
	ORDERS_MIXED, /* mostly order 0..3, a tenth of high orders */
	ORDERS_ZERO,  /* order 0 only: what the pcp lists will serve */
	ORDERS_HIGH,  /* half of them order 4..max_order: zone->lock and splits */
};

extern const struct stress_mix_entry stress_mix_default[];
extern const unsigned int stress_mix_len;

/* ------------------------------------------------------------------------
 * Options and the run
 * ---------------------------------------------------------------------- */

struct stress_opts {
	unsigned int threads; /* = simulated CPUs */
	unsigned int nodes;
	unsigned int cpus_per_node[MM_MAX_NODES];
	uint64_t zone_pages;
	double duration;
	uint64_t seed;
	int variant;
	unsigned int weights[STRESS_MIX_MAX];
	enum stress_orders orders;
	bool pin;
	unsigned int quiesce_ms; /* 0: only at the end */
	unsigned int watchdog_s; /* 0: off */
	const char *out_dir;
	uint64_t deferred_init; /* pages of each node's highest zone initialised at boot (0: all) */
	unsigned int hold_pct;	/* percent of the memory the workers hold at most (--hold) */
	uint64_t jitter;	/* --jitter seed (0: off) */
	double test_stall;	/* test hook: worker 0 stops after this many seconds (0: never) */
	bool test_stall_replay; /* test hook: the flight recorder's replay stops at its first op */
	bool quiet;		/* no progress lines (--bench) */
	/* The machine flags of stress_machine.c. */
	const char *zoneinfo;		   /* --zoneinfo FILE: a real machine's nodes and zones */
	unsigned int zoneinfo_cpus;	   /* --cpus N (0: not given) */
	unsigned int nr_node_pages;	   /* --pages-per-node: entries given (0: --zone-pages) */
	uint64_t node_pages[MM_MAX_NODES]; /* each node's Normal zone (0: memoryless) */
	unsigned int nr_distance_nodes;	   /* --distances: rows given (0: 10 local, 20 remote) */
	uint8_t distance[MM_MAX_NODES * MM_MAX_NODES];
	struct mm_config *machine; /* --zoneinfo's, built once by stress_machine_resolve() */
	int test_break; /* test hook --test-break: enum stress_break, a bug a check must catch */
};

/* One flight recorder slot: words, so the watchdog can read them racily but atomically. */
struct stress_rec {
	uint64_t seq;	    /* 0: empty or being written */
	uint64_t op[2];	    /* the struct mm_op's bytes, in two words */
	uint64_t alloc_seq; /* ALLOC: its own seq; FREE: the seq of the alloc */
};

enum stress_state {
	ST_STARTING,
	ST_RUNNING,
	ST_PARKED,
	ST_OFFLINE, /* a worker waiting for its CPU to come back */
	ST_DONE,
};

struct stress_thread {
	struct stress_run *run;
	pthread_t tid;
	unsigned int idx;
	int cpu;  /* simulated CPU; a service thread runs as whichever CPU its op names */
	int node; /* simulated node: where its state lives */
	const struct stress_mix_entry *service; /* NULL for a worker */
	int svc_zone; /* a service's own state: the zone it disabled, the steps that found none */
	uint64_t rng;
	uint64_t last_seq; /* this thread's last op sequence number */

	/* The chunk being run: ops decoded from random bytes, and their handles. */
	struct mm_prog prog;
	unsigned int next_op;
	uint32_t next_alloc;
	struct stress_block chunk[STRESS_MAX_HANDLES]; /* by alloc handle; pfn -1: not held */
	/* What mm_apply_op() reads and writes, indexed by a block's owner. */
	struct mm_handle scratch[STRESS_MAX_HANDLES];

	/* Blocks kept across chunks. */
	struct stress_block pool[STRESS_POOL_CAP];
	unsigned int nr_pool;
	uint64_t pool_pages;

	/* Blocks other threads handed over; only the owner takes them out. */
	pthread_mutex_t inbox_lock;
	struct stress_block inbox[STRESS_INBOX];
	unsigned int nr_inbox;
	atomic_uint inbox_hint;

	/* Mix accounting: ops each entry ran on this thread. */
	unsigned long long mix_ran[STRESS_MIX_MAX];
	unsigned long long mix_total;

	/* Read by the monitor and the watchdog while the thread runs. */
	atomic_ullong ops, skipped, alloc_fail, remote_sent, remote_freed, offline_waits;
	atomic_int state;

	/* The flight recorder. */
	struct stress_rec rec[STRESS_RECORD_K];
	atomic_ullong nr_rec;
	bool placed; /* allocated with numa_alloc_onnode */

	/* Every op since the last quiesce point (the snapshot's window); only the owner appends. */
	struct stress_logged *log;
	size_t nr_log, cap_log;
	bool log_lost; /* the window outgrew STRESS_LOG_MAX: no snapshot replay for it */

	/* A worker holds it while its op runs; the hotplug service, to take its CPU offline. */
	pthread_mutex_t cpu_lock;
};

/* A zone of the machine, for pfn -> zone when counting held pages. */
struct stress_zone {
	int node;
	enum zone_type type;
	uint64_t start, end;
};

struct stress_host;

/* A node's reclaimable blocks, oldest first: a ring under its lock. */
struct stress_lru {
	pthread_mutex_t lock;
	struct stress_block *b;
	unsigned int head, n, cap;
	uint8_t *isolated; /* per slot: compaction holds the block (stress_compact.c) */
};

struct stress_run {
	struct stress_opts o;
	const struct stress_mix_entry *mix;
	unsigned int mix_len;
	unsigned int worker_weight; /* the sum of the MIX_WORKER_OP weights */
	unsigned int total_weight;  /* the sum of all weights */
	struct mm_config cfg;
	struct mm_sim *sim;
	struct stress_host *host;
	struct stress_zone zones[MM_MAX_NODES * MAX_NR_ZONES];
	unsigned int nr_zones;
	uint64_t managed_pages;
	struct stress_lru lru[MM_MAX_NODES];
	uint64_t lru_budget; /* pages the LRUs may hold (0: off) */
	int32_t *lru_slot;   /* by pfn: the LRU slot of the block there, -1 (stress_compact.c) */
	atomic_ullong lru_pages;
	atomic_uint jitter_threads; /* threads that drew a jitter stream */
	atomic_uint lru_rotor;	    /* the next worker kswapd hands a block to */

	struct stress_thread *t[STRESS_MAX_THREADS];
	unsigned int nr_threads, nr_workers; /* workers are t[0..nr_workers) */

	atomic_bool stop;
	pthread_barrier_t start;
	double t0;

	/* Quiesce points: the monitor raises q_req; every thread parks until q_gen moves. */
	pthread_mutex_t q_lock;
	pthread_cond_t q_resume, q_parked_cond;
	atomic_bool q_req;
	unsigned int q_parked, q_active, q_gen;
	atomic_ulong quiesce_checks;
	double quiesce_longest;

	/* Violations: counted from any thread; the first is kept and printed. */
	pthread_mutex_t v_lock;
	unsigned long nr_violations;
	char first_violation[512];
	atomic_bool violated;

	/* Watchdog. */
	pthread_t watchdog;
	atomic_bool watchdog_stop;
	bool watchdog_started;
	atomic_ulong replay_ops; /* the replay's progress, once the threads are done */
	bool replaying;

	/* stress_counters.c: the ground truth beside the counters */
	struct stress_counters *counters;
	atomic_uint hotplug_seq; /* odd while a hotplug op runs */
	/*
	 * stress_offline.c: the services run their steps one at a time
	 * (svc_lock, as mem_hotplug_lock and cpus_write_lock order them in the
	 * kernel), and the ground truth of what hotplug and pcp disabling did:
	 * the CPUs the hotplug service took offline and the zones (run->zones
	 * indexes) the pcp-disable service left disabled, under a sequence
	 * count that is odd while a pcp-disable step runs.
	 */
	pthread_mutex_t svc_lock;
	atomic_uint pcp_off_seq, pcp_off_nr;
	atomic_bool pcp_off[MM_MAX_NODES * MAX_NR_ZONES];
	bool cpu_off[MM_MAX_CPUS];
	bool step_hotplug; /* the step under svc_lock took a CPU off- or online */
	bool cpu_locks;	   /* a service runs as a worker's CPU: workers take cpu_lock */
	unsigned long drift_before[MM_MAX_NODES * MAX_NR_ZONES];
	unsigned long boost_before[MM_MAX_NODES * MAX_NR_ZONES]; /* watermark_boost, same time */
	int8_t threshold_before[MM_MAX_NODES * MAX_NR_ZONES];	 /* for --test-break */
	struct {
		unsigned int z;
		uint64_t start, pages;
	} offlined[STRESS_OFFLINED_MAX]; /* the isolation service's offline ranges */
	unsigned int nr_offlined;

	/* stress_record.c: the machine at the last quiesce point, and what the threads held */
	struct stress_snap *snap;
};

/* stress_thread.c */
int stress_threads_create(struct stress_run *run, char *err, size_t errlen);
void stress_threads_destroy(struct stress_run *run);
void *stress_worker_main(void *arg);
void *stress_service_main(void *arg);
/* Appends b to to's inbox (to frees it as its CPU); false when the inbox is full. */
bool stress_inbox_push(struct stress_thread *to, const struct stress_block *b);
/* Pages each zone's threads hold (handles, pool, inboxes): call quiesced. */
void stress_held_pages(struct stress_run *run, uint64_t *held);
/* After the threads are joined: frees every block they still hold, as their CPUs. */
void stress_free_all(struct stress_run *run);
/* Ops the threads ran so far: progress for the watchdog and the services' pace. */
unsigned long long stress_total_ops(struct stress_run *run);

/* Runs op as t's CPU and records it; returns its sequence number, 0 when the core skipped it. */
uint64_t stress_apply(struct stress_thread *t, struct mm_op *op);
/* Runs the alloc op into block b (b->owner its handle): 0 when done, 1 when skipped. */
int stress_alloc_block(struct stress_thread *t, struct mm_op *op, struct stress_block *b);
/* A random online CPU for a service's op; -1 if none. */
int stress_pick_online_cpu(struct stress_thread *t);

/* cmd_stress.c: a violation the harness found, from any thread (the first stops the run). */
void stress_report(struct stress_run *run, const struct mm_violation *v);

/* stress_counters.c */
int stress_counters_init(struct stress_run *run);
void stress_counters_destroy(struct stress_run *run);
/*
 * At a quiesce point: the exact sums against the ledger, then perhaps a
 * percpu_counter_set(). final: after them every mm exits, and
 * vm_committed_as must come back to 0. Returns the violations reported.
 */
unsigned long stress_counters_check(struct stress_run *run, bool final);
int stress_run_pcpu_add(struct stress_thread *t, struct mm_op *op, struct stress_block *b);
int stress_run_pcpu_compare(struct stress_thread *t, struct mm_op *op, struct stress_block *b);
int stress_run_pcpu_sync(struct stress_thread *t, struct mm_op *op, struct stress_block *b);
int stress_run_mm_op(struct stress_thread *t, struct mm_op *op, struct stress_block *b);
int stress_run_overcommit(struct stress_thread *t, struct mm_op *op, struct stress_block *b);

/* stress_offline.c */
/* --test-break: a bug planted in what hotplug and offlining rely on, to prove a check. */
enum stress_break {
	BREAK_NONE,
	BREAK_TAKEDOWN,	      /* a CPU goes offline while its worker is in an op */
	BREAK_PCP_DISABLE,    /* a sizing write undoes zone_pcp_disable() */
	BREAK_HOTPLUG_THRESH, /* hotplug keeps the old vmstat thresholds */
	BREAK_HOTPLUG_MARK,   /* hotplug keeps the old drift marks */
};
int stress_break_parse(const char *name); /* -1 if unknown */
const char *stress_break_names(void);
/* Around taking cpu offline: its worker is between two ops (takedown_cpu()). */
void stress_takedown_begin(struct stress_run *run, int cpu);
void stress_takedown_end(struct stress_run *run, int cpu);
void stress_offline_init(struct stress_run *run);
void stress_offline_destroy(struct stress_run *run);
void stress_service_step_begin(struct stress_thread *t);
void stress_service_step_end(struct stress_thread *t);
/* From the flight recorder: an op t ran. Notes hotplug and pcp disabling; checks admissions. */
void stress_offline_op(struct stress_thread *t, const struct mm_op *op);
/* At a quiesce point (not the final one): offline CPUs' and disabled zones' lists empty. */
void stress_offline_check_quiesced(struct stress_run *run);
int stress_run_isolate(struct stress_thread *t, struct mm_op *unused, struct stress_block *b);

/* stress_compact.c */
/* After stress_lru_init(): lends compaction the LRU's blocks. 0, or -1 out of memory. */
int stress_compact_init(struct stress_run *run);
void stress_compact_destroy(struct stress_run *run);
/* One summary line: what compaction did (passes, pages migrated, stalls, kcompactd). */
void stress_compact_summary(struct stress_run *run);
/* Under the LRU's lock: slot now holds a block, or no longer does. */
void stress_compact_lru_set(struct stress_run *run, struct stress_lru *l, unsigned int slot);
void stress_compact_lru_clear(struct stress_run *run, struct stress_lru *l, unsigned int slot);
/* Under the LRU's lock: compaction holds the block in slot (reclaim must wait). */
bool stress_compact_lru_isolated(const struct stress_lru *l, unsigned int slot);
int stress_run_compact_alloc(struct stress_thread *t, struct mm_op *op, struct stress_block *b);
int stress_run_compact_zone(struct stress_thread *t, struct mm_op *op, struct stress_block *b);
int stress_run_kcompactd(struct stress_thread *t, struct mm_op *unused, struct stress_block *b);

/* stress_jitter.c */
void stress_jitter_init(struct stress_run *run);

/* stress_lru.c */
int stress_lru_init(struct stress_run *run);
bool stress_lru_add(struct stress_run *run, const struct stress_block *b);
void stress_lru_for_each(struct stress_run *run,
			 void (*fn)(struct stress_run *run, const struct stress_block *b,
				    uint64_t *held),
			 uint64_t *held);
void stress_lru_free_all(struct stress_run *run);
void stress_lru_destroy(struct stress_run *run);

/* stress_record.c */
void stress_record(struct stress_thread *t, uint64_t seq, const struct mm_op *op,
		   uint64_t alloc_seq);
/* Writes the merged flight recorder as a trace, replays it; prints what happened. */
void stress_write_trace(struct stress_run *run);
/*
 * At the start and after each quiesce point whose checks passed: the
 * machine's snapshot and the blocks the threads hold; the window starts
 * again. 0, or -1 when out of memory (replays then boot from the config).
 */
int stress_record_quiesced(struct stress_run *run);
/* One line: the snapshots taken, the longest, their size. */
void stress_record_summary(const struct stress_run *run);
void stress_record_destroy(struct stress_run *run);
int stress_watchdog_start(struct stress_run *run);
void stress_watchdog_stop(struct stress_run *run);

/* stress_machine.c */
/* A machine flag at argv[*i]: 0 taken, -1 not one, else an exit code after a message. */
int stress_machine_flag(int argc, char **argv, int *i, struct stress_opts *o, bool *missing);
/* After every flag: --zoneinfo's machine and CPU split into o, the flags checked together. */
int stress_machine_resolve(struct stress_opts *o, bool threads_set, bool nodes_set,
			   bool cpus_listed, bool bench);
/* The machine o describes; 0 or EXIT_USAGE after a message. */
int stress_machine_config(const struct stress_opts *o, struct mm_config *cfg);
/* After mm_sim_init(): --distances, and a line naming the machine. 0 or EXIT_USAGE. */
int stress_machine_apply(const struct stress_opts *o, struct mm_sim *sim,
			 const struct mm_config *cfg);
void stress_machine_free(struct stress_opts *o);

/* stress_host.c */
struct stress_host *stress_host_create(bool pin, const struct mm_config *cfg, char *err,
				       size_t errlen);
void stress_host_destroy(struct stress_host *h);
/* Pins the calling thread for simulated CPU cpu (thread idx); returns the host CPU or -1. */
int stress_host_pin(const struct stress_host *h, unsigned int idx, int cpu, int node);
/* Zeroed memory for a simulated node's thread state; *placed says how to free it. */
void *stress_host_alloc(const struct stress_host *h, int node, size_t size, bool *placed);
void stress_host_free(void *p, size_t size, bool placed);
/* One line: what --pin did (host CPUs, nodes, libnuma or not). */
void stress_host_describe(const struct stress_host *h, char *buf, size_t len);

#endif
