/* SPDX-License-Identifier: MIT */
/*
 * cmd_stress.c - mmfuzz stress: real threads, one per simulated CPU, on
 * one shared machine, under ThreadSanitizer or on a big NUMA box.
 *
 * The calling thread is the monitor. Every --quiesce-ms it raises the
 * quiesce flag, waits until every thread has parked, runs mm_check_full()
 * and the exact conservation check (per zone: NR_FREE_PAGES plus the pages
 * the threads hold equals managed), and lets them go. It prints progress,
 * ends the run after --duration or at the first violation, and then
 * either frees what the threads held and checks once more, or writes the
 * flight recorder's trace and replays it. Not a benchmark, except for
 * --bench, which prints figures and checks nothing.
 *
 * Exit status: 0 clean, 1 a violation, 2 bad usage, 3 the watchdog fired.
 */
#include "stress.h"
#include "stress_json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define DEFAULT_THREADS	   2u
#define DEFAULT_ZONE_PAGES 8192u
#define DEFAULT_DURATION   30.0
#define DEFAULT_QUIESCE_MS 500u
#define DEFAULT_WATCHDOG_S 10u
#define DEFAULT_BENCH_SECS 3.0
#define PROGRESS_EVERY	   2.0
#define MONITOR_TICK_NS	   (20 * 1000 * 1000)

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define STRESS_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define STRESS_SANITIZED 1
#endif
#endif

/* libnuma caches each node's CPU mask for the life of the process. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libnuma\n";
}

/* A clean run stays quiet about the suppression above. */
const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
	return "print_suppressions=0";
}

static void usage(FILE *f)
{
	fputs("usage: mmfuzz stress [--threads N] [--nodes N] [--cpus-per-node A,B,...]\n"
	      "         [--zone-pages P] [--duration S] [--seed X] [--variant V] [--policy P.so]\n"
	      "         [--weights KEY=W,...] [--mix default|pcp|zone-lock] [--pin]\n"
	      "         [--quiesce-ms M] [--watchdog S] [--out DIR] [--deferred-init P]\n"
	      "         [--hold PCT] [--jitter SEED] [--bench] [--json FILE]\n"
	      "         [--pages-per-node A,B,...] [--distances ROWS|FILE]\n"
	      "         [--zoneinfo FILE --cpus N]\n"
	      "Runs one thread per simulated CPU on one shared machine: allocs, frees, frees\n"
	      "on another CPU, pcp drains, hotplug, sysctl writes, pcp disabling, deferred\n"
	      "init; full checks at quiesce points.\n"
	      "  --threads N        simulated CPUs, one thread each (default 2, or one per node)\n"
	      "  --nodes N          simulated NUMA nodes, 1..64 (default 1)\n"
	      "  --cpus-per-node L  CPUs of each node, e.g. 64,64,0,128 (overrides the even\n"
	      "                     split; 0: a CPU-less node)\n"
	      "  --pages-per-node L each node's Normal zone, e.g. 8192,0 (0: a memoryless\n"
	      "                     node; default --zone-pages each)\n"
	      "  --distances D      node distances: rows like 10,21;21,10, or a file of rows\n"
	      "                     (cat /sys/devices/system/node/node*/distance); default\n"
	      "                     10 local, 20 remote\n"
	      "  --zoneinfo FILE    the nodes and zones of a real machine's /proc/zoneinfo,\n"
	      "  --cpus N           with N CPUs (as mmfuzz shape builds it)\n"
	      "  --zone-pages P     pages per zone: node 0 has DMA32 and Normal, the others\n"
	      "                     Normal (default 8192)\n"
	      "  --duration S       seconds to run (default 30)\n"
	      "  --seed X           seeds each thread's op stream (default 1)\n"
	      "  --variant V        run a variant (default: $MMFUZZ_VARIANT or none)\n"
	      "  --policy P.so      a policy plugin (default: $MMFUZZ_POLICY or none)\n"
	      "  --weights K=W,...  the workload mix; keys:\n",
	      f);
	for (unsigned int e = 0; e < stress_mix_len; e++)
		fprintf(f, "                       %-12s %3u  %s\n", stress_mix_default[e].name,
			stress_mix_default[e].weight, stress_mix_default[e].what);
	fputs("  --mix M            default; pcp (order-0 allocs and frees of its own blocks);\n"
	      "                     zone-lock (high orders, remote frees); --weights applies "
	      "after\n"
	      "  --pin              pin thread i to host CPU i (with libnuma: per node)\n"
	      "  --quiesce-ms M     full check every M ms (default 500; 0: only at the end)\n"
	      "  --watchdog S       no progress for S s: dump the threads, exit 3 (default 10;\n"
	      "                     0: off)\n"
	      "  --out DIR          where a failing run writes its trace (default .)\n"
	      "  --json FILE        also write the summary as JSON (docs/results-json.md)\n"
	      "  --jitter SEED      random yields and sleeps at zone->lock boundaries,\n"
	      "                     seeded (0: off, the default)\n"
	      "  --hold PCT         the workers hold up to PCT% of the memory (default 33);\n"
	      "                     above 33%, blocks on a per-node LRU that kswapd\n"
	      "                     reclaims, so zones sit at their watermarks\n"
	      "  --deferred-init P  initialise only P pages of each node's highest zone at\n"
	      "                     boot; a thread initialises the rest during the run\n"
	      "  --bench            print ops/s at 1 and N threads for the pcp and zone-lock\n"
	      "                     mixes (build the release preset); checks nothing\n"
	      "  --test-stall S     test hook: worker 0 stops after S s (proves the watchdog)\n"
	      "  --test-stall-replay  test hook: the replay of a violation's trace stops\n"
	      "                     (proves the watchdog bounds it)\n"
	      "  --test-break BUG   test hook: plant BUG (takedown, pcp-disable, hotplug-thresh,\n"
	      "                     hotplug-mark)\n"
	      "Exit status: 0 clean, 1 a violation, 2 bad usage, 3 the watchdog fired.\n",
	      f);
}

/* ------------------------------------------------------------------------
 * Flags
 * ---------------------------------------------------------------------- */

struct flags {
	struct stress_opts o;
	bool threads_set, nodes_set, cpus_set, duration_set, bench;
	const char *weights, *variant, *policy;
	const char *json; /* --json FILE: stress_json.c */
};

static int parse_cpus(const char *s, struct flags *f)
{
	uint64_t v[MM_MAX_NODES];
	int n = cli_parse_list(s, 0, MM_MAX_CPUS, v, MM_MAX_NODES);

	if (n < 0)
		return cli_usage_error("stress: --cpus-per-node: at most %d nodes", MM_MAX_NODES);
	if (!n)
		return cli_usage_error("stress: --cpus-per-node takes CPU counts (0..%d) like 4,4, "
				       "not '%s'",
				       MM_MAX_CPUS, s);
	for (int i = 0; i < n; i++)
		f->o.cpus_per_node[i] = (unsigned int)v[i];
	if (f->nodes_set && (unsigned int)n != f->o.nodes)
		return cli_usage_error("stress: --cpus-per-node names %d nodes, --nodes %u", n,
				       f->o.nodes);
	f->o.nodes = (unsigned int)n;
	f->cpus_set = true;
	return 0;
}

static int mix_index(const char *name, size_t len)
{
	for (unsigned int e = 0; e < stress_mix_len; e++)
		if (strlen(stress_mix_default[e].name) == len &&
		    !strncmp(stress_mix_default[e].name, name, len))
			return (int)e;
	return -1;
}

static int parse_weights(const char *s, struct stress_opts *o)
{
	const char *p = s;

	while (*p) {
		const char *eq = strchr(p, '='), *comma = strchr(p, ',');
		if (!comma)
			comma = p + strlen(p);
		if (!eq || eq > comma)
			return cli_usage_error("stress: --weights: '%.*s' is not KEY=WEIGHT",
					       (int)(comma - p), p);
		int e = mix_index(p, (size_t)(eq - p));
		if (e < 0) {
			char keys[512] = ""; /* every --weights key, for the message */
			for (unsigned int k = 0; k < stress_mix_len; k++)
				snprintf(keys + strlen(keys), sizeof(keys) - strlen(keys), "%s%s",
					 k ? ", " : "", stress_mix_default[k].name);
			return cli_usage_error("stress: --weights: unknown key '%.*s' (keys: %s)",
					       (int)(eq - p), p, keys);
		}
		char num[16];
		size_t len = (size_t)(comma - eq - 1);
		if (len >= sizeof(num))
			len = sizeof(num) - 1;
		memcpy(num, eq + 1, len);
		num[len] = '\0';
		if (!cli_parse_uint(num, 0, 1000, &o->weights[e]))
			return cli_usage_error(
				"stress: --weights: %s=%s: the weight must be 0..1000",
				stress_mix_default[e].name, num);
		p = *comma ? comma + 1 : comma;
	}
	return 0;
}

static void set_weight(struct stress_opts *o, const char *name, unsigned int w)
{
	int e = mix_index(name, strlen(name));

	if (e >= 0)
		o->weights[e] = w;
}

/* The op table says which kinds a worker may run as its own CPU: the mix must agree. */
static int check_mix_rows(void)
{
	for (unsigned int e = 0; e < stress_mix_len; e++) {
		const struct stress_mix_entry *m = &stress_mix_default[e];
		if (m->kind == MIX_WORKER_OP && !mm_op_runs_on_worker(m->op_kind)) {
			fprintf(stderr,
				"mmfuzz: stress: mix entry '%s' runs %s on a worker, which its row "
				"in src/op_table.c forbids\n",
				m->name, mm_op_name(m->op_kind));
			return EXIT_USAGE;
		}
	}
	return 0;
}

static int apply_mix(const char *name, struct stress_opts *o)
{
	for (unsigned int e = 0; e < stress_mix_len; e++)
		o->weights[e] = stress_mix_default[e].weight;
	o->orders = ORDERS_MIXED;
	if (!strcmp(name, "default"))
		return 0;
	for (unsigned int e = 0; e < stress_mix_len; e++)
		o->weights[e] = 0;
	if (!strcmp(name, "pcp")) {
		o->orders = ORDERS_ZERO;
		set_weight(o, "alloc", 50);
		set_weight(o, "free", 50);
		return 0;
	}
	if (!strcmp(name, "zone-lock")) {
		o->orders = ORDERS_HIGH;
		set_weight(o, "alloc", 50);
		set_weight(o, "free", 25);
		set_weight(o, "remote-free", 25);
		return 0;
	}
	return cli_usage_error("stress: --mix: unknown mix '%s' (default, pcp, zone-lock)", name);
}

static void defaults(struct flags *f)
{
	memset(f, 0, sizeof(*f));
	f->o.threads = DEFAULT_THREADS;
	f->o.nodes = 1;
	f->o.zone_pages = DEFAULT_ZONE_PAGES;
	f->o.duration = DEFAULT_DURATION;
	f->o.seed = 1;
	f->o.quiesce_ms = DEFAULT_QUIESCE_MS;
	f->o.hold_pct = STRESS_HOLD_DEFAULT;
	f->o.watchdog_s = DEFAULT_WATCHDOG_S;
	apply_mix("default", &f->o);
}

/* Returns 0, or an exit code (after a message; EXIT_CLEAN for --help). */
static int parse_flags(int argc, char **argv, struct flags *f)
{
	const char *mix = "default", *v;
	bool missing = false;
	int ret;

	if ((ret = check_mix_rows()))
		return ret;
	defaults(f);
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			usage(stdout);
			return -1;
		} else if (!strcmp(arg, "--test-stall-replay")) {
			f->o.test_stall_replay = true;
		} else if (!strcmp(arg, "--pin")) {
			f->o.pin = true;
		} else if (!strcmp(arg, "--bench")) {
			f->bench = true;
		} else if ((v = cli_flag_value(argc, argv, &i, "--threads", &missing))) {
			if (!cli_parse_uint(v, 1, MM_MAX_CPUS, &f->o.threads))
				return cli_usage_error("stress: --threads must be 1..%d, not '%s'",
						       MM_MAX_CPUS, v);
			f->threads_set = true;
		} else if ((v = cli_flag_value(argc, argv, &i, "--nodes", &missing))) {
			unsigned int nodes;
			if (!cli_parse_uint(v, 1, MM_MAX_NODES, &nodes))
				return cli_usage_error("stress: --nodes must be 1..%d, not '%s'",
						       MM_MAX_NODES, v);
			if (f->cpus_set && nodes != f->o.nodes)
				return cli_usage_error(
					"stress: --nodes %u but --cpus-per-node names "
					"%u nodes",
					nodes, f->o.nodes);
			f->o.nodes = nodes;
			f->nodes_set = true;
		} else if ((v = cli_flag_value(argc, argv, &i, "--cpus-per-node", &missing))) {
			if ((ret = parse_cpus(v, f)))
				return ret;
		} else if ((v = cli_flag_value(argc, argv, &i, "--zone-pages", &missing))) {
			if (!cli_parse_u64(v, 1024, UINT64_C(1) << 24, &f->o.zone_pages))
				return cli_usage_error("stress: --zone-pages must be 1024..%llu, "
						       "not '%s'",
						       1ULL << 24, v);
		} else if ((v = cli_flag_value(argc, argv, &i, "--duration", &missing))) {
			if (!cli_parse_seconds(v, 0.01, 1e7, &f->o.duration))
				return cli_usage_error("stress: --duration takes seconds (0.01 or "
						       "more), not '%s'",
						       v);
			f->duration_set = true;
		} else if ((v = cli_flag_value(argc, argv, &i, "--seed", &missing))) {
			if (!cli_parse_u64(v, 0, UINT64_MAX, &f->o.seed))
				return cli_usage_error("stress: --seed takes a number, not '%s'",
						       v);
		} else if ((v = cli_flag_value(argc, argv, &i, "--variant", &missing))) {
			f->variant = v;
		} else if ((v = cli_flag_value(argc, argv, &i, "--policy", &missing))) {
			f->policy = v;
		} else if ((v = cli_flag_value(argc, argv, &i, "--json", &missing))) {
			f->json = v;
		} else if ((v = cli_flag_value(argc, argv, &i, "--weights", &missing))) {
			f->weights = v;
		} else if ((v = cli_flag_value(argc, argv, &i, "--mix", &missing))) {
			mix = v;
		} else if ((v = cli_flag_value(argc, argv, &i, "--quiesce-ms", &missing))) {
			if (!cli_parse_uint(v, 0, 3600 * 1000, &f->o.quiesce_ms))
				return cli_usage_error("stress: --quiesce-ms takes milliseconds, "
						       "not '%s'",
						       v);
		} else if ((v = cli_flag_value(argc, argv, &i, "--watchdog", &missing))) {
			if (!cli_parse_uint(v, 0, 86400, &f->o.watchdog_s))
				return cli_usage_error("stress: --watchdog takes seconds "
						       "(0..86400), not '%s'",
						       v);
		} else if ((v = cli_flag_value(argc, argv, &i, "--out", &missing))) {
			f->o.out_dir = v;
		} else if ((v = cli_flag_value(argc, argv, &i, "--deferred-init", &missing))) {
			if (!cli_parse_u64(v, 1, UINT64_C(1) << 24, &f->o.deferred_init))
				return cli_usage_error("stress: --deferred-init takes pages "
						       "(1..%llu), not '%s'",
						       1ULL << 24, v);
		} else if ((v = cli_flag_value(argc, argv, &i, "--jitter", &missing))) {
			if (!cli_parse_u64(v, 0, UINT64_MAX, &f->o.jitter))
				return cli_usage_error("stress: --jitter takes a seed, not '%s'",
						       v);
		} else if ((v = cli_flag_value(argc, argv, &i, "--hold", &missing))) {
			if (!cli_parse_uint(v, 1, 100, &f->o.hold_pct))
				return cli_usage_error("stress: --hold takes a percentage "
						       "(1..100), not '%s'",
						       v);
		} else if ((v = cli_flag_value(argc, argv, &i, "--test-break", &missing))) {
			if ((f->o.test_break = stress_break_parse(v)) < 0)
				return cli_usage_error("stress: --test-break takes %s, not '%s'",
						       stress_break_names(), v);
		} else if ((v = cli_flag_value(argc, argv, &i, "--test-stall", &missing))) {
			if (!cli_parse_seconds(v, 0.001, 1e7, &f->o.test_stall))
				return cli_usage_error(
					"stress: --test-stall takes seconds, not '%s'", v);
		} else if ((ret = stress_machine_flag(argc, argv, &i, &f->o, &missing)) >= 0) {
			if (ret)
				return ret;
		} else if (missing) {
			return cli_usage_error("stress: %s needs a value", arg);
		} else {
			return cli_usage_error("stress: unknown option '%s' (try 'mmfuzz stress "
					       "--help')",
					       arg);
		}
		if (missing)
			return cli_usage_error("stress: %s needs a value", arg);
	}
	if ((ret = apply_mix(mix, &f->o)))
		return ret;
	if (f->weights && (ret = parse_weights(f->weights, &f->o)))
		return ret;
	/* Deferred init has nothing to do on a machine initialised whole at boot. */
	if (!f->o.deferred_init)
		set_weight(&f->o, "deferred-init", 0);
	if (!f->o.weights[mix_index("alloc", 5)])
		return cli_usage_error("stress: --weights: alloc must be above 0, or no thread "
				       "has a block to work on");
	f->o.variant = cli_variant(f->variant);
	if (f->o.variant == MM_VARIANT_UNKNOWN)
		return EXIT_USAGE;
	if ((ret = cli_policy(f->policy)))
		return ret;
	if (f->o.out_dir) {
		struct stat st;
		if (stat(f->o.out_dir, &st) || !S_ISDIR(st.st_mode))
			return cli_usage_error("stress: --out %s: not a directory", f->o.out_dir);
	}
	return 0;
}

/* The CPU split: --cpus-per-node, or --threads spread evenly, the remainder first. */
static int resolve_cpus(struct flags *f)
{
	struct stress_opts *o = &f->o;
	unsigned int sum = 0;

	if (f->cpus_set) {
		for (unsigned int n = 0; n < o->nodes; n++)
			sum += o->cpus_per_node[n];
		if (f->threads_set && sum != o->threads)
			return cli_usage_error("stress: --threads %u but --cpus-per-node adds up "
					       "to %u",
					       o->threads, sum);
		if (!sum || sum > MM_MAX_CPUS)
			return cli_usage_error("stress: --cpus-per-node must add up to 1..%d",
					       MM_MAX_CPUS);
		o->threads = sum;
		return 0;
	}
	if (!f->threads_set && o->nodes > o->threads)
		o->threads = o->nodes;
	for (unsigned int n = 0; n < o->nodes; n++)
		o->cpus_per_node[n] = o->threads / o->nodes + (n < o->threads % o->nodes);
	return 0;
}

/* ------------------------------------------------------------------------
 * The machine
 * ---------------------------------------------------------------------- */

static void zone_table(struct stress_run *run)
{
	for (unsigned int n = 0; n < run->cfg.nr_nodes; n++) {
		for (int z = 0; z < MAX_NR_ZONES; z++) {
			const struct mm_zone_config *zc = &run->cfg.zones[n][z];
			if (!zc->spanned)
				continue;
			run->zones[run->nr_zones++] = (struct stress_zone){
				.node = (int)n,
				.type = (enum zone_type)z,
				.start = zc->start_pfn,
				.end = zc->start_pfn + zc->spanned,
			};
			run->managed_pages += zc->managed;
		}
	}
}

/* ------------------------------------------------------------------------
 * Violations and the checks at quiesce points
 * ---------------------------------------------------------------------- */

/* Any thread, possibly inside the core under a zone lock: record and raise the flag only. */
static void on_violation(const struct mm_violation *v, void *arg)
{
	struct stress_run *run = arg;
	char line[512];
	bool first;

	mm_violation_format(v, line, sizeof(line));
	pthread_mutex_lock(&run->v_lock);
	first = !run->nr_violations++;
	if (first) {
		snprintf(run->first_violation, sizeof(run->first_violation), "%s", line);
		printf("%s\n", line);
		fflush(stdout);
	}
	pthread_mutex_unlock(&run->v_lock);
	atomic_store_explicit(&run->violated, true, memory_order_release);
	atomic_store_explicit(&run->stop, true, memory_order_release);
}

void stress_report(struct stress_run *run, const struct mm_violation *v)
{
	on_violation(v, run);
}

static unsigned long violations(struct stress_run *run)
{
	unsigned long n;

	pthread_mutex_lock(&run->v_lock);
	n = run->nr_violations;
	pthread_mutex_unlock(&run->v_lock);
	return n;
}

/*
 * The machine is quiesced: nothing moves. The core's full scan, then
 * conservation against what the threads hold (nothing, after the final
 * free): free pages in the buddy and on the pcp lists, plus held pages,
 * are the managed pages. Returns true if no new violation was reported.
 */
static bool check_quiesced(struct stress_run *run, bool final)
{
	uint64_t held[MM_MAX_NODES * MAX_NR_ZONES] = {0};
	unsigned long before = violations(run);
	double t = cli_now();

	mm_check_full(run->sim);
	if (!final) {
		stress_held_pages(run, held);
		stress_offline_check_quiesced(run);
	}
	stress_counters_check(run, final);
	for (unsigned int z = 0; z < run->nr_zones; z++) {
		struct mm_zone_info zi;
		if (mm_zone_info(run->sim, run->zones[z].node, run->zones[z].type, &zi))
			continue;
		long long have = zi.nr_free_exact + zi.nr_pcp_pages + (long long)held[z];
		if (have == (long long)zi.managed)
			continue;
		struct mm_violation v = {
			.id = "INV-STRESS-CONSERVATION",
			.node = zi.node,
			.zone = (int)zi.type,
			.cpu = -1,
			.pfn = -1,
			.expected = (long long)zi.managed,
			.actual = have,
		};
		snprintf(v.detail, sizeof(v.detail),
			 "exact free %ld + pcp %ld + pages the threads hold %llu != managed",
			 zi.nr_free_exact, zi.nr_pcp_pages, (unsigned long long)held[z]);
		on_violation(&v, run);
	}
	t = cli_now() - t;
	if (t > run->quiesce_longest)
		run->quiesce_longest = t;
	return violations(run) == before;
}

static void timed_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += MONITOR_TICK_NS;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(c, m, &ts);
}

/*
 * A quiesce point: every thread parks between two ops, the monitor
 * checks, all resume. A run that stops meanwhile (a violation, or the
 * duration over while a thread never parks) skips the checks.
 */
static void quiesce(struct stress_run *run, double end, unsigned long *passed)
{
	bool all;

	pthread_mutex_lock(&run->q_lock);
	atomic_store_explicit(&run->q_req, true, memory_order_release);
	while (run->q_parked < run->q_active &&
	       !atomic_load_explicit(&run->stop, memory_order_acquire)) {
		if (cli_now() >= end) {
			atomic_store_explicit(&run->stop, true, memory_order_release);
			break;
		}
		timed_wait(&run->q_parked_cond, &run->q_lock);
	}
	all = run->q_parked >= run->q_active &&
	      !atomic_load_explicit(&run->stop, memory_order_acquire);
	pthread_mutex_unlock(&run->q_lock);

	if (all) {
		bool ok = check_quiesced(run, false);
		*passed += ok;
		if (ok)
			stress_record_quiesced(run);
		atomic_fetch_add_explicit(&run->quiesce_checks, 1, memory_order_relaxed);
	}

	pthread_mutex_lock(&run->q_lock);
	run->q_parked = 0;
	atomic_store_explicit(&run->q_req, false, memory_order_release);
	run->q_gen++;
	pthread_cond_broadcast(&run->q_resume);
	pthread_mutex_unlock(&run->q_lock);
}

/* ------------------------------------------------------------------------
 * The run
 * ---------------------------------------------------------------------- */

struct stress_result {
	double elapsed;
	unsigned long long worker_ops;
	unsigned long checks, checks_passed;
	unsigned long long zone_locks; /* zone->lock acquisitions while the threads ran */
	bool final_passed;
};

static unsigned long long worker_ops(struct stress_run *run)
{
	unsigned long long n = 0;

	for (unsigned int i = 0; i < run->nr_workers; i++)
		n += atomic_load_explicit(&run->t[i]->ops, memory_order_relaxed);
	return n;
}

static void progress_line(struct stress_run *run, double now)
{
	double el = now - run->t0;
	unsigned long long ops = worker_ops(run);

	fprintf(stderr,
		"stress: %.1f s: %llu ops, %.0f ops/s, %lu quiesce checks, %lu violations\n", el,
		ops, el > 0 ? (double)ops / el : 0.0,
		atomic_load_explicit(&run->quiesce_checks, memory_order_relaxed), violations(run));
}

static void monitor(struct stress_run *run, struct stress_result *res)
{
	double end = run->t0 + run->o.duration, q = run->o.quiesce_ms / 1000.0;
	double next_q = run->t0 + q, next_p = run->t0 + PROGRESS_EVERY;
	struct timespec tick = {0, MONITOR_TICK_NS};

	mm_set_current_cpu(0);
	while (!atomic_load_explicit(&run->stop, memory_order_acquire)) {
		double now = cli_now();
		if (now >= end)
			break;
		if (q > 0 && now >= next_q) {
			quiesce(run, end, &res->checks_passed);
			next_q = cli_now() + q;
			continue;
		}
		if (!run->o.quiet && now >= next_p) {
			progress_line(run, now);
			next_p += PROGRESS_EVERY;
		}
		nanosleep(&tick, NULL);
	}
	atomic_store_explicit(&run->stop, true, memory_order_release);
	pthread_mutex_lock(&run->q_lock);
	pthread_cond_broadcast(&run->q_resume);
	pthread_mutex_unlock(&run->q_lock);
}

static const char *variant_name(int v)
{
	return v >= 0 ? mm_variant_at((size_t)v)->name : "none";
}

static void summary(struct stress_run *run, const struct stress_result *res)
{
	double el = res->elapsed > 0 ? res->elapsed : 1e-9;
	char host[256];

	stress_host_describe(run->host, host, sizeof(host));
	printf("stress: %u CPUs on %u node%s (", run->nr_workers, run->cfg.nr_nodes,
	       run->cfg.nr_nodes > 1 ? "s" : "");
	for (unsigned int n = 0; n < run->cfg.nr_nodes; n++)
		printf("%s%u", n ? "+" : "", run->cfg.cpus_per_node[n]);
	printf("), %u zones of %llu pages, variant %s, seed %#llx, %.1f s, %s\n", run->nr_zones,
	       (unsigned long long)run->o.zone_pages, variant_name(run->o.variant),
	       (unsigned long long)run->o.seed, res->elapsed, host);
	printf("%-7s %-13s %4s %4s %12s %10s %9s %10s %11s %12s %13s\n", "thread", "role", "cpu",
	       "node", "ops", "ops/s", "skipped", "alloc-fail", "remote-sent", "remote-freed",
	       "offline-waits");
	for (unsigned int i = 0; i < run->nr_threads; i++) {
		struct stress_thread *t = run->t[i];
		unsigned long long ops = atomic_load_explicit(&t->ops, memory_order_relaxed);
		char cpu[8] = "-";
		if (!t->service)
			snprintf(cpu, sizeof(cpu), "%d", t->cpu);
		printf("%-7u %-13s %4s %4d %12llu %10.0f %9llu %10llu %11llu %12llu %13llu\n", i,
		       t->service ? t->service->name : "worker", cpu, t->node, ops,
		       (double)ops / el, (unsigned long long)atomic_load(&t->skipped),
		       (unsigned long long)atomic_load(&t->alloc_fail),
		       (unsigned long long)atomic_load(&t->remote_sent),
		       (unsigned long long)atomic_load(&t->remote_freed),
		       (unsigned long long)atomic_load(&t->offline_waits));
	}
	printf("ops: %llu by the workers, %.0f ops/s, %.0f ops/s per worker thread\n",
	       res->worker_ops, (double)res->worker_ops / el,
	       (double)res->worker_ops / el / run->nr_workers);
	stress_compact_summary(run);
	printf("quiesce checks: %lu run, %lu passed, the longest %.2f ms", res->checks,
	       res->checks_passed, run->quiesce_longest * 1000);
	if (atomic_load(&run->violated))
		printf("; no final check (stopped at a violation)\n");
	else
		printf("; final check %s\n", res->final_passed ? "passed" : "FAILED");
	stress_record_summary(run);
	printf("violations: %lu\n", violations(run));
	fflush(stdout);
}

static void run_destroy(struct stress_run *run)
{
	stress_record_destroy(run);
	stress_threads_destroy(run);
	stress_counters_destroy(run);
	stress_compact_destroy(run);
	stress_lru_destroy(run);
	stress_offline_destroy(run);
	stress_host_destroy(run->host);
	mm_sim_destroy(run->sim);
	pthread_mutex_destroy(&run->q_lock);
	pthread_cond_destroy(&run->q_resume);
	pthread_cond_destroy(&run->q_parked_cond);
	pthread_mutex_destroy(&run->v_lock);
	free(run);
}

static int start_threads(struct stress_run *run)
{
	run->q_active = run->nr_threads;
	pthread_barrier_init(&run->start, NULL, run->nr_threads + 1);
	for (unsigned int i = 0; i < run->nr_threads; i++) {
		struct stress_thread *t = run->t[i];
		if (pthread_create(&t->tid, NULL,
				   t->service ? stress_service_main : stress_worker_main, t)) {
			/* The threads already started wait at the barrier for good. */
			fprintf(stderr, "mmfuzz: stress: cannot start thread %u of %u\n", i,
				run->nr_threads);
			exit(EXIT_USAGE);
		}
	}
	/*
	 * The run starts once every thread exists: creating 1024 of them takes
	 * seconds under TSan, which neither --duration nor ops/s may count. The
	 * threads read t0 only after the barrier, which orders this write.
	 */
	run->t0 = cli_now();
	pthread_barrier_wait(&run->start);
	if (stress_watchdog_start(run)) {
		fprintf(stderr, "mmfuzz: stress: cannot start the watchdog\n");
		exit(EXIT_USAGE);
	}
	return 0;
}

/* Runs one stress run with o; fills res; prints the summary unless quiet. */
static int run_stress(const struct stress_opts *o, struct stress_result *res)
{
	struct stress_run *run = calloc(1, sizeof(*run));
	char err[256];
	int ret;

	memset(res, 0, sizeof(*res));
	if (!run)
		return cli_usage_error("stress: out of memory");
	run->o = *o;
	run->mix = stress_mix_default;
	run->mix_len = stress_mix_len;
	for (unsigned int e = 0; e < run->mix_len; e++) {
		run->total_weight += o->weights[e];
		if (run->mix[e].kind == MIX_WORKER_OP)
			run->worker_weight += o->weights[e];
	}
	pthread_mutex_init(&run->q_lock, NULL);
	pthread_cond_init(&run->q_resume, NULL);
	pthread_cond_init(&run->q_parked_cond, NULL);
	pthread_mutex_init(&run->v_lock, NULL);
	if ((ret = stress_machine_config(o, &run->cfg))) {
		run_destroy(run);
		return ret;
	}
	zone_table(run);
	run->sim = mm_sim_create();
	if (!run->sim || mm_sim_init(run->sim, &run->cfg, o->variant)) {
		run_destroy(run);
		return cli_usage_error("stress: cannot build the machine (out of memory?)");
	}
	if ((ret = stress_machine_apply(o, run->sim, &run->cfg))) {
		run_destroy(run);
		return ret;
	}
	mm_sim_set_violation_handler(run->sim, on_violation, run);
	stress_jitter_init(run);
	stress_offline_init(run);
	if (stress_lru_init(run) || stress_compact_init(run) || stress_counters_init(run)) {
		run_destroy(run);
		return cli_usage_error("stress: out of memory for the LRU or the ledger");
	}
	run->host = stress_host_create(o->pin, &run->cfg, err, sizeof(err));
	if (!run->host || stress_threads_create(run, err, sizeof(err))) {
		run_destroy(run);
		return cli_usage_error("stress: %s", err);
	}

	stress_record_quiesced(run); /* the window starts with the run */
	start_threads(run);
	monitor(run, res);
	for (unsigned int i = 0; i < run->nr_threads; i++)
		pthread_join(run->t[i]->tid, NULL);
	stress_watchdog_stop(run);
	pthread_barrier_destroy(&run->start);
	res->elapsed = cli_now() - run->t0;
	res->worker_ops = worker_ops(run);
	res->checks = atomic_load(&run->quiesce_checks);
	struct mm_stats st;
	mm_sim_stats(run->sim, &st);
	res->zone_locks = st.zone_lock_acquisitions;

	if (!atomic_load(&run->violated)) {
		/* Everything goes back; then nothing may be missing. */
		stress_free_all(run);
		res->final_passed = check_quiesced(run, true);
	}
	ret = atomic_load(&run->violated) ? EXIT_VIOLATION : EXIT_CLEAN;
	if (!o->quiet) {
		summary(run, res);
		stress_json_record(run,
				   &(struct stress_json_summary){
					   res->elapsed, res->worker_ops, res->checks,
					   res->checks_passed, violations(run),
					   !atomic_load(&run->violated), res->final_passed, ret});
	}
	if (ret == EXIT_VIOLATION)
		stress_write_trace(run);
	run_destroy(run);
	return ret;
}

/* ------------------------------------------------------------------------
 * --bench
 * ---------------------------------------------------------------------- */

static int bench(struct flags *f)
{
	static const struct {
		const char *mix, *what;
	} mixes[] = {
		{"pcp", "order-0 allocs and frees of the thread's own blocks"},
		{"zone-lock", "half high orders (4-10), a third of the frees on another CPU"},
	};
	unsigned int n = f->threads_set ? f->o.threads : DEFAULT_THREADS;
	double secs = f->duration_set ? f->o.duration : DEFAULT_BENCH_SECS;

	printf("mmfuzz stress --bench: %.1f s per run, 1 node (DMA32 + Normal, %llu pages each), "
	       "seed %#llx, variant %s\n",
	       secs, (unsigned long long)f->o.zone_pages, (unsigned long long)f->o.seed,
	       variant_name(f->o.variant));
#ifdef STRESS_SANITIZED
	printf("warning: a sanitizer build: the figures say little (use the release preset)\n");
#endif
	printf("%-10s %-62s %7s %12s %14s %9s %s\n", "mix", "", "threads", "ops/s", "ops/s/thread",
	       "locks/op", "E");
	for (size_t m = 0; m < sizeof(mixes) / sizeof(mixes[0]); m++) {
		double ops1 = 0;
		for (unsigned int k = 0; k < 2; k++) {
			struct stress_opts o = f->o;
			struct stress_result res;
			unsigned int threads = k ? n : 1;
			int ret;

			if (k && n == 1)
				break;
			apply_mix(mixes[m].mix, &o);
			o.nodes = 1;
			o.threads = threads;
			o.cpus_per_node[0] = threads;
			o.duration = secs;
			o.quiet = true;
			if ((ret = run_stress(&o, &res)))
				return ret;
			double ops = (double)res.worker_ops / res.elapsed;
			printf("%-10s %-62s %7u %12.0f %14.0f %9.3f", k ? "" : mixes[m].mix,
			       k ? "" : mixes[m].what, threads, ops, ops / threads,
			       res.worker_ops ? (double)res.zone_locks / (double)res.worker_ops
					      : 0.0);
			if (!k)
				ops1 = ops;
			else
				printf("  E(%u) = %.2f", threads, ops / (threads * ops1));
			printf("\n");
			fflush(stdout);
		}
	}
	printf("E(N) = ops/s at N threads / (N x ops/s at 1 thread). locks/op: zone->lock\n"
	       "acquisitions per worker op; the pcp mix takes it only to refill or flush a pcp\n"
	       "list a batch at a time. The flight recorder, the global op sequence (one shared\n"
	       "cache line per op) and the quiesce checks are part of every figure.\n");
	return EXIT_CLEAN;
}

int cmd_stress(int argc, char **argv)
{
	struct flags f;
	struct stress_result res;
	int ret = parse_flags(argc, argv, &f);

	if (ret < 0)
		return EXIT_CLEAN;
	if (ret)
		return ret;
	if ((ret = resolve_cpus(&f)) ||
	    (ret = stress_machine_resolve(&f.o, f.threads_set, f.nodes_set, f.cpus_set, f.bench))) {
		stress_machine_free(&f.o);
		return ret;
	}
	if (f.json && (ret = f.bench ? cli_usage_error("stress: --json records a run, not --bench")
				     : stress_json_begin(f.json))) {
		stress_machine_free(&f.o);
		return ret;
	}
	if (f.bench)
		return bench(&f);
	ret = stress_json_end(run_stress(&f.o, &res));
	stress_machine_free(&f.o);
	return ret;
}
