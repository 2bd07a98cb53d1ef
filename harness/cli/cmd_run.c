/* SPDX-License-Identifier: MIT */
/*
 * cmd_run.c - the subcommands that move a program between its forms and
 * run it: trace (binary -> text), encode (text -> binary), run, repro
 * (a crash file -> the readable trace up to the failing op, the violated
 * invariant and the re-run's verdict) and minimize (a crash file -> the
 * fewest ops that still fail the same way, as a trace).
 */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_FILES 64

struct run_args {
	const char *file;
	const char *files[MAX_FILES];
	int nr_files;
	const char *out;
	const char *dump; /* repro --dump DIR */
	const char *variant_name;
	const char *policy; /* --policy: a plugin's .so */
	const char *target; /* --target: the fuzz target a binary input came from */
	const char *shape;  /* the machine shape a binary input decoded with */
	bool strict_watermarks;
	unsigned int check_every;
	bool check_every_set;
	/* The trace's "# snapshot: FILE", loaded (state NULL: none). */
	struct mm_snapshot *snapshot;
};

/* Returns 0, an exit code after a message, or -1 after --help. */
static int parse_args(int argc, char **argv, struct run_args *a, bool allow_out)
{
	memset(a, 0, sizeof(*a));
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *v;
		bool missing = false;

		if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			cli_command_help(argv[0]);
			return -1;
		} else if ((v = cli_flag_value(argc, argv, &i, "--variant", &missing))) {
			a->variant_name = v;
		} else if ((v = cli_flag_value(argc, argv, &i, "--policy", &missing))) {
			a->policy = v;
		} else if ((v = cli_flag_value(argc, argv, &i, "--target", &missing))) {
			a->target = v;
		} else if (!strcmp(arg, "--strict-watermarks")) {
			a->strict_watermarks = true;
		} else if ((v = cli_flag_value(argc, argv, &i, "--check-every", &missing))) {
			if (!cli_parse_uint(v, 0, 1000000, &a->check_every))
				return cli_usage_error("%s: --check-every takes a number of ops "
						       "(0..1000000), not '%s'",
						       argv[0], v);
			a->check_every_set = true;
		} else if (allow_out && (v = cli_flag_value(argc, argv, &i, "-o", &missing))) {
			a->out = v;
		} else if (!strcmp(argv[0], "repro") &&
			   (v = cli_flag_value(argc, argv, &i, "--dump", &missing))) {
			a->dump = v;
		} else if (missing) {
			return cli_usage_error("%s: %s needs a value", argv[0], arg);
		} else if (arg[0] == '-' && arg[1]) {
			return cli_usage_error("%s: unknown option '%s' (try 'mmfuzz %s --help')",
					       argv[0], arg, argv[0]);
		} else if (a->nr_files < MAX_FILES) {
			a->files[a->nr_files++] = arg;
		} else {
			return cli_usage_error("%s: at most %d input files", argv[0], MAX_FILES);
		}
	}
	if (!a->nr_files)
		return cli_usage_error("%s: which file? (mmfuzz %s FILE)", argv[0], argv[0]);
	if (a->nr_files > 1 && strcmp(argv[0], "run"))
		return cli_usage_error("%s: one input file only", argv[0]);
	a->file = a->files[0];
	return 0;
}

int cmd_trace(int argc, char **argv)
{
	struct run_args a;
	struct mm_prog p;
	int ret;

	if ((ret = parse_args(argc, argv, &a, true)))
		return ret < 0 ? EXIT_CLEAN : ret;
	mm_prog_init(&p);
	if (cli_load_prog(a.file, a.target, &p, NULL))
		return EXIT_USAGE;
	FILE *out = a.out ? cli_create_new(a.out) : stdout;
	if (!out) {
		mm_prog_free(&p);
		return EXIT_USAGE;
	}
	mm_print_prog(out, &p);
	if (a.out)
		fclose(out);
	mm_prog_free(&p);
	return EXIT_CLEAN;
}

int cmd_encode(int argc, char **argv)
{
	struct run_args a;
	struct mm_prog p;
	int ret;

	if ((ret = parse_args(argc, argv, &a, true)))
		return ret < 0 ? EXIT_CLEAN : ret;
	if (!a.out)
		return cli_usage_error("encode: where to? (mmfuzz encode TRACE.txt -o OUT)");
	mm_prog_init(&p);
	if (cli_load_prog(a.file, a.target, &p, NULL))
		return EXIT_USAGE;
	long n = mm_encode(&p, NULL, 0);
	if (n < 0) {
		mm_prog_free(&p);
		return cli_usage_error(
			"%s: the machine or an op does not fit the binary form "
			"(nodes, zone sizes, reserved pages or handles out of range)",
			a.file);
	}
	uint8_t *buf = malloc((size_t)n);
	if (!buf || mm_encode(&p, buf, (size_t)n) != n) {
		free(buf);
		mm_prog_free(&p);
		return cli_usage_error("encode: out of memory");
	}
	mm_prog_free(&p);
	/* Encoding is a build step: replacing an older encoding is intended. */
	FILE *f = fopen(a.out, "wb");
	if (!f || fwrite(buf, 1, (size_t)n, f) != (size_t)n || fclose(f)) {
		free(buf);
		return cli_usage_error("%s: cannot write", a.out);
	}
	free(buf);
	return EXIT_CLEAN;
}

struct collected {
	char first[512];
	unsigned long n;
	bool quiet;
};

static void collect(const struct mm_violation *v, void *arg)
{
	struct collected *c = arg;
	char line[512];

	mm_violation_format(v, line, sizeof(line));
	if (!c->n++)
		snprintf(c->first, sizeof(c->first), "%s", line);
	if (!c->quiet)
		printf("%s\n", line);
}

/* The executor's settings the flags ask for. */
static void exec_opts(const struct run_args *a, int variant, struct mm_exec_opts *o)
{
	mm_exec_opts_default(o);
	o->variant = variant;
	o->strict_watermarks = a->strict_watermarks;
	if (a->check_every_set)
		o->check_every = a->check_every;
	o->snapshot = a->snapshot && a->snapshot->state ? a->snapshot : NULL;
}

#define SNAPSHOT_LINE "# snapshot: "

/*
 * A stress flight recorder's trace names the machine snapshot it starts
 * from on a "# snapshot: FILE" line, FILE beside the trace. The name's
 * length, *name pointing at it in text; 0 when the trace names none.
 */
static int snapshot_name(const uint8_t *text, size_t len, const char **name)
{
	const char *at =
		cli_is_text(text, len) ? strstr((const char *)text, "\n" SNAPSHOT_LINE) : NULL;

	if (!at)
		return 0;
	*name = at + strlen("\n" SNAPSHOT_LINE);
	return (int)strcspn(*name, " \t\r\n");
}

/*
 * Loads the snapshot the trace names into a->snapshot, or leaves it empty
 * for a trace without one. Returns 0 or an exit code after one line
 * (unreadable, truncated, corrupt).
 */
static int load_snapshot(const struct run_args *a, const char *trace)
{
	size_t len, slen;
	uint8_t *text, *data;
	char path[4096], err[256];
	const char *name;
	int ret = 0, n;

	mm_snapshot_free(a->snapshot);
	text = cli_read_file(trace, &len);
	if (!text)
		return EXIT_USAGE;
	if ((n = snapshot_name(text, len, &name))) {
		const char *slash = strrchr(trace, '/');
		int dir = slash ? (int)(slash - trace + 1) : 0;
		snprintf(path, sizeof(path), "%.*s%.*s", name[0] == '/' ? 0 : dir, trace, n, name);
		data = cli_read_file(path, &slen);
		if (!data)
			ret = EXIT_USAGE;
		else if (mm_snapshot_read(data, slen, a->snapshot, err, sizeof(err)))
			ret = cli_usage_error("%s: %s", path, err);
		free(data);
	}
	free(text);
	return ret;
}

/* Writes the trace's snapshot line to f (nothing for a trace without one). */
static void copy_snapshot_line(const char *trace, FILE *f)
{
	size_t len;
	uint8_t *text = cli_read_file(trace, &len);
	const char *name;
	int n = text ? snapshot_name(text, len, &name) : 0;

	if (n)
		fprintf(f, "%s%.*s\n", SNAPSHOT_LINE, n, name);
	free(text);
}

/* Runs the file; fills the verdict. Returns an exit code. */
static int run_file(struct mm_exec *ex, const struct run_args *a, const char *file,
		    struct mm_prog *p, struct collected *c, long *failed_op, int variant,
		    const char **shape)
{
	struct mm_exec_opts o;

	if (cli_load_prog(file, a->target, p, shape))
		return EXIT_USAGE;
	int ret = load_snapshot(a, file);
	if (ret)
		return ret;
	exec_opts(a, variant, &o);
	o.on_violation = collect;
	o.arg = c;
	long n = mm_exec_run(ex, p, &o, failed_op);
	if (n < 0)
		return cli_usage_error("%s: the machine cannot be built%s", file,
				       o.snapshot ? " from its snapshot" : "");
	return n ? EXIT_VIOLATION : EXIT_CLEAN;
}

static const char *variant_name(int v)
{
	return v >= 0 ? mm_variant_at((size_t)v)->name : "none";
}

/*
 * What run, repro and minimize settle before they run: the variant, a
 * --dump directory that must not exist yet, and the policy plugin.
 * Returns 0 or an exit code after a message.
 */
static int resolve_run(const struct run_args *a, int *variant)
{
	*variant = cli_variant(a->variant_name);
	if (*variant == MM_VARIANT_UNKNOWN)
		return EXIT_USAGE;
	/* Refused before anything runs: what a run found is never overwritten. */
	if (a->dump && !access(a->dump, F_OK))
		return cli_usage_error("%s: exists already; not overwriting it", a->dump);
	return cli_policy(a->policy);
}

/*
 * Several files run one after the other on one executor, reusing its
 * machine as a fuzz target does: bugs of the per-input reset show there.
 */
int cmd_run(int argc, char **argv)
{
	struct run_args a;
	struct mm_prog p;
	struct mm_exec *ex;
	long failed_op;
	int variant, ret;

	if ((ret = parse_args(argc, argv, &a, false)))
		return ret < 0 ? EXIT_CLEAN : ret;
	if ((ret = resolve_run(&a, &variant)))
		return ret;
	ex = mm_exec_create();
	if (!ex)
		return cli_usage_error("out of memory");
	struct mm_snapshot snap;
	mm_snapshot_init(&snap);
	a.snapshot = &snap;
	mm_prog_init(&p);
	for (int i = 0; i < a.nr_files && ret != EXIT_USAGE; i++) {
		struct collected c = {0};
		int r = run_file(ex, &a, a.files[i], &p, &c, &failed_op, variant, NULL);
		if (r == EXIT_VIOLATION)
			printf("%s: violation at op %ld of %u (variant %s)\n", a.files[i],
			       failed_op, p.nr_ops, variant_name(variant));
		else if (r == EXIT_CLEAN)
			printf("%s: %u ops, no violation (variant %s)\n", a.files[i], p.nr_ops,
			       variant_name(variant));
		if (r > ret)
			ret = r;
	}
	mm_prog_free(&p);
	mm_snapshot_free(&snap);
	mm_exec_destroy(ex);
	return ret;
}

/* The files of one moment of the run, in DIR/NAME/. */
static int dump_state(struct mm_exec *ex, const struct mm_prog *p, unsigned int nr_ops,
		      const struct mm_exec_opts *o, const char *dir, const char *name)
{
	static const struct {
		const char *file;
		void (*print)(FILE *f, const struct mm_sim *sim);
	} files[] = {{"zoneinfo", mm_print_zoneinfo},
		     {"buddyinfo", mm_print_buddyinfo},
		     {"pagetypeinfo", mm_print_pagetypeinfo},
		     {"vmstat", mm_print_vmstat}};
	struct mm_prog upto = *p; /* the first nr_ops ops: the run stops there */
	struct mm_exec_opts quiet = *o;
	char path[4096];
	long failed_op;

	upto.nr_ops = nr_ops;
	quiet.on_violation = NULL;
	if (mm_exec_run(ex, &upto, &quiet, &failed_op) < 0)
		return cli_usage_error("the machine cannot be built");
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (mkdir(path, 0777))
		return cli_usage_error("%s: cannot create it", path);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s/%s", dir, name, files[i].file);
		FILE *f = cli_create_new(path);
		if (!f)
			return EXIT_USAGE;
		files[i].print(f, mm_exec_sim(ex));
		if (fclose(f))
			return cli_usage_error("%s: cannot write", path);
	}
	return 0;
}

/*
 * repro --dump DIR: the machine in the kernel's formats at the start, just
 * before the failing op and at it (the run stops at the violation), each
 * replayed from the start: the executor is deterministic.
 */
static int dump_run(const struct run_args *a, const struct mm_prog *p, int variant, long failed_op)
{
	struct mm_exec_opts o;
	char name[64];
	int ret;

	if (mkdir(a->dump, 0777))
		return cli_usage_error("%s: %s", a->dump,
				       errno == EEXIST ? "exists already; not overwriting it"
						       : "cannot create it");
	struct mm_exec *ex = mm_exec_create();
	if (!ex)
		return cli_usage_error("out of memory");
	exec_opts(a, variant, &o);
	unsigned int at =
		failed_op >= 0 && failed_op < (long)p->nr_ops ? (unsigned int)failed_op : p->nr_ops;
	ret = dump_state(ex, p, 0, &o, a->dump, "start");
	snprintf(name, sizeof(name), "before-op-%u", at);
	if (!ret)
		ret = dump_state(ex, p, at, &o, a->dump, name);
	snprintf(name, sizeof(name), "at-op-%u", at);
	if (!ret && at < p->nr_ops)
		ret = dump_state(ex, p, at + 1, &o, a->dump, name);
	mm_exec_destroy(ex);
	if (!ret)
		printf("state dumped to %s/: start/, before-op-%u/%s; each has zoneinfo, "
		       "buddyinfo, "
		       "pagetypeinfo and vmstat\n",
		       a->dump, at,
		       at < p->nr_ops ? " and at-op-N/ (N: the failing op)" : " (the end)");
	return ret;
}

static int repro(int argc, char **argv, struct mm_snapshot *snap)
{
	struct run_args a;
	struct mm_prog p;
	struct collected c = {.quiet = true};
	long failed_op;
	int variant, ret;

	if ((ret = parse_args(argc, argv, &a, true)))
		return ret < 0 ? EXIT_CLEAN : ret;
	if ((ret = resolve_run(&a, &variant)))
		return ret;
	a.snapshot = snap;
	struct mm_exec *ex = mm_exec_create();
	if (!ex)
		return cli_usage_error("out of memory");
	mm_prog_init(&p);
	const char *shape = NULL;
	ret = run_file(ex, &a, a.file, &p, &c, &failed_op, variant, &shape);
	mm_exec_destroy(ex);
	if (ret == EXIT_USAGE) {
		mm_prog_free(&p);
		return ret;
	}
	printf("# repro of %s (variant %s%s%s%s%s%s)\n", a.file, variant_name(variant),
	       mm_policy_plugin_path() ? ", policy " : "",
	       mm_policy_plugin_path() ? mm_policy_plugin_path() : "",
	       a.strict_watermarks ? ", strict watermarks" : "", shape ? ", machine shape of " : "",
	       shape ? shape : "");
	mm_print_config(stdout, &p.cfg);
	if (snap->state)
		printf("# from the machine snapshot the trace names; a0..a%d are the blocks it "
		       "holds\n",
		       (int)snap->nr_handles - 1);
	unsigned int upto = ret == EXIT_VIOLATION && failed_op < (long)p.nr_ops
				    ? (unsigned int)failed_op + 1
				    : p.nr_ops;
	for (unsigned int i = 0; i < upto; i++) {
		if (ret == EXIT_VIOLATION && (long)i == failed_op)
			fputs(">>> ", stdout);
		mm_print_op(stdout, &p, i);
	}
	if (ret == EXIT_VIOLATION) {
		if (failed_op == (long)p.nr_ops)
			printf(">>> (the final full check)\n");
		printf("%s\n", c.first);
	}
	if (a.out) {
		FILE *f = cli_create_new(a.out);
		if (!f) {
			mm_prog_free(&p);
			return EXIT_USAGE;
		}
		copy_snapshot_line(a.file, f);
		mm_print_prog(f, &p);
		fclose(f);
		if (snap->state)
			printf("it starts from the machine snapshot %s names: keep that file "
			       "beside "
			       "%s\n",
			       a.file, a.out);
		printf("full trace written to %s (rerun: mmfuzz run%s%s%s%s %s)\n", a.out,
		       variant >= 0 ? " --variant " : "", variant >= 0 ? variant_name(variant) : "",
		       mm_policy_plugin_path() ? " --policy " : "",
		       mm_policy_plugin_path() ? mm_policy_plugin_path() : "", a.out);
	}
	if (a.dump) {
		int d = dump_run(&a, &p, variant, ret == EXIT_VIOLATION ? failed_op : -1);
		if (d) {
			mm_prog_free(&p);
			return d;
		}
	}
	/* The verdict is the last line, as the exit status says it: 1 reproduced, 0 not. */
	if (ret == EXIT_VIOLATION)
		printf("reproduced: %lu violation(s); the first during op %ld of %u (exit 1)\n",
		       c.n, failed_op, p.nr_ops);
	else
		printf("did not reproduce: %u ops ran clean with variant %s (exit 0)\n", p.nr_ops,
		       variant_name(variant));
	mm_prog_free(&p);
	return ret;
}

int cmd_repro(int argc, char **argv)
{
	struct mm_snapshot snap;

	mm_snapshot_init(&snap);
	int ret = repro(argc, argv, &snap);
	mm_snapshot_free(&snap);
	return ret;
}

/* The reproducer gate: a signature must come back on every one of these runs. */
#define GATE_RUNS 10

int cmd_minimize(int argc, char **argv)
{
	struct run_args a;
	struct mm_prog p;
	struct mm_exec_opts o;
	struct cli_signature want, got;
	unsigned long runs = 0;
	int variant, ret;

	if ((ret = parse_args(argc, argv, &a, true)))
		return ret < 0 ? EXIT_CLEAN : ret;
	if ((ret = resolve_run(&a, &variant)))
		return ret;
	struct mm_exec *ex = mm_exec_create();
	if (!ex)
		return cli_usage_error("out of memory");
	mm_prog_init(&p);
	if (cli_load_prog(a.file, a.target, &p, NULL)) {
		ret = EXIT_USAGE;
		goto out;
	}
	/* Dropping ops would shift which allocations the snapshot's blocks are. */
	size_t len;
	uint8_t *text = cli_read_file(a.file, &len);
	const char *name;
	bool from_snapshot = text && snapshot_name(text, len, &name);
	free(text);
	if (from_snapshot) {
		ret = cli_usage_error("minimize: %s starts from a machine snapshot; minimize takes "
				      "only traces that boot from their config (run and repro take "
				      "both)",
				      a.file);
		goto out;
	}
	exec_opts(&a, variant, &o);
	int r = cli_signature(ex, &p, &o, &want);
	if (r < 0) {
		ret = cli_usage_error("%s: the machine cannot be built", a.file);
		goto out;
	}
	if (!r) {
		printf("# %s: %u ops ran clean with variant %s: nothing to minimize (exit 0)\n",
		       a.file, p.nr_ops, variant_name(variant));
		ret = EXIT_CLEAN;
		goto out;
	}
	/* One machine reused across the runs, as libFuzzer reuses it: a reset bug shows. */
	unsigned int same = 1;
	for (int i = 1; i < GATE_RUNS; i++)
		same += cli_signature(ex, &p, &o, &got) == 1 && cli_signature_eq(&got, &want);
	if (same < GATE_RUNS) {
		printf("# flaky: %s during %s came back on %u of %d runs (exit 3)\n", want.id,
		       want.op, same, GATE_RUNS);
		ret = EXIT_FLAKY;
		goto out;
	}
	unsigned int before = p.nr_ops;
	if (cli_minimize(ex, &o, &want, &p, &runs)) {
		ret = cli_usage_error("minimize: out of memory");
		goto out;
	}
	FILE *f = a.out ? cli_create_new(a.out) : stdout;
	if (!f) {
		ret = EXIT_USAGE;
		goto out;
	}
	fprintf(f, "# minimized from %s: %s during %s (variant %s)\n", a.file, want.id, want.op,
		variant_name(variant));
	mm_print_prog(f, &p);
	if (a.out) {
		fclose(f);
		printf("# written to %s (rerun: mmfuzz run%s%s %s)\n", a.out,
		       variant >= 0 ? " --variant " : "", variant >= 0 ? variant_name(variant) : "",
		       a.out);
	}
	/* The verdict is the last line, a comment so that stdout stays a trace. */
	printf("# minimized: %u ops to %u in %lu runs; %s during %s, %d/%d replays (exit 1)\n",
	       before, p.nr_ops, runs, want.id, want.op, GATE_RUNS, GATE_RUNS);
	ret = EXIT_VIOLATION;
out:
	mm_prog_free(&p);
	mm_exec_destroy(ex);
	return ret;
}
