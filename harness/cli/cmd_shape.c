/* SPDX-License-Identifier: MIT */
/*
 * cmd_shape.c - mmfuzz shape: builds the model of a real machine from its
 * /proc/zoneinfo and prints what the model computes for it in the same
 * layout, to be put beside the kernel's own numbers.
 */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_line[] = "mmfuzz shape --zoneinfo FILE --cpus N [--cpus-per-node A,B,...] "
				 "[--min-free-kbytes K] [--watermark-scale-factor F]";

struct shape_args {
	const char *zoneinfo;
	unsigned int cpus; /* 0: not given */
	const char *cpus_per_node_arg;
	unsigned int cpus_per_node[MM_MAX_NODES];
	unsigned int nr_cpus_per_node;
	unsigned int min_free_kbytes; /* 0: the kernel's default formula */
	unsigned int wsf;	      /* 0: the kernel's default */
};

static int parse_number(const char *flag, const char *s, unsigned int min, unsigned int max,
			unsigned int *out)
{
	if (!cli_parse_uint(s, min, max, out))
		return cli_usage_error("shape: %s wants a whole number in %u..%u, got '%s'", flag,
				       min, max, s);
	return 0;
}

static int parse_cpu_list(const char *s, struct shape_args *a)
{
	uint64_t v[MM_MAX_NODES];
	int n = cli_parse_list(s, 0, MM_MAX_CPUS, v, MM_MAX_NODES);

	if (n < 0)
		return cli_usage_error("shape: --cpus-per-node lists more than the model's "
				       "%d nodes: '%s'",
				       MM_MAX_NODES, s);
	if (!n)
		return cli_usage_error("shape: --cpus-per-node wants comma-separated CPU "
				       "counts (0..%d each), got '%s'",
				       MM_MAX_CPUS, s);
	for (int i = 0; i < n; i++)
		a->cpus_per_node[i] = (unsigned int)v[i];
	a->nr_cpus_per_node = (unsigned int)n;
	return 0;
}

/* The value of --name V or --name=V at argv[*i], or NULL (after a message). */
static const char *flag_once(int argc, char **argv, int *i, const char *name, bool *seen)
{
	bool missing = false;
	const char *v;

	if (*seen) {
		cli_usage_error("shape: %s given twice", name);
		return NULL;
	}
	*seen = true;
	v = cli_flag_value(argc, argv, i, name, &missing);
	if (!v)
		cli_usage_error("shape: %s needs a value (%s)", name, usage_line);
	return v;
}

static bool is_flag(const char *arg, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(arg, name, n) && (arg[n] == '\0' || arg[n] == '=');
}

static int parse_args(int argc, char **argv, struct shape_args *a)
{
	bool seen[5] = {false};
	const char *v;
	int ret;

	memset(a, 0, sizeof(*a));
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (is_flag(arg, "--zoneinfo")) {
			if (!(v = flag_once(argc, argv, &i, "--zoneinfo", &seen[0])))
				return EXIT_USAGE;
			if (!*v)
				return cli_usage_error("shape: --zoneinfo wants a file name");
			a->zoneinfo = v;
		} else if (is_flag(arg, "--cpus")) {
			if (!(v = flag_once(argc, argv, &i, "--cpus", &seen[1])))
				return EXIT_USAGE;
			if ((ret = parse_number("--cpus", v, 1, MM_MAX_CPUS, &a->cpus)))
				return ret;
		} else if (is_flag(arg, "--cpus-per-node")) {
			if (!(v = flag_once(argc, argv, &i, "--cpus-per-node", &seen[2])))
				return EXIT_USAGE;
			if ((ret = parse_cpu_list(v, a)))
				return ret;
			a->cpus_per_node_arg = v;
		} else if (is_flag(arg, "--min-free-kbytes")) {
			if (!(v = flag_once(argc, argv, &i, "--min-free-kbytes", &seen[3])))
				return EXIT_USAGE;
			/* 0 means "the default formula" to the model: leave the flag out. */
			if ((ret = parse_number("--min-free-kbytes", v, 1, INT_MAX,
						&a->min_free_kbytes)))
				return ret;
		} else if (is_flag(arg, "--watermark-scale-factor")) {
			if (!(v = flag_once(argc, argv, &i, "--watermark-scale-factor", &seen[4])))
				return EXIT_USAGE;
			/* the sysctl's own range */
			if ((ret = parse_number("--watermark-scale-factor", v, 1, 3000, &a->wsf)))
				return ret;
		} else if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			printf("usage: %s\n"
			       "  Builds the machine a /proc/zoneinfo describes (nodes, zones, "
			       "pages)\n"
			       "  and prints the model's values for it in the same layout.\n"
			       "  --cpus-per-node  CPUs of each node in the file (default: spread "
			       "evenly)\n"
			       "  --min-free-kbytes, --watermark-scale-factor  the sysctls "
			       "(default: the kernel's)\n",
			       usage_line);
			return -1;
		} else {
			return cli_usage_error("shape: unknown argument '%s' (%s)", arg,
					       usage_line);
		}
	}
	if (!a->zoneinfo)
		return cli_usage_error("shape: --zoneinfo FILE is required (%s)", usage_line);
	if (!a->cpus)
		return cli_usage_error("shape: --cpus N is required (%s)", usage_line);
	return 0;
}

/* Far above any machine's zoneinfo; stops a wrong path such as /dev/zero. */
#define ZONEINFO_MAX_BYTES (64u << 20)

/*
 * Reads to EOF rather than by the file's size, which cli_read_file() uses:
 * /proc/zoneinfo itself reports size 0. Returns NULL after one line.
 */
static char *read_zoneinfo(const char *who, const char *path)
{
	FILE *f = fopen(path, "rb");
	size_t len = 0, cap = 0, n;
	char *buf = NULL, *b;

	if (!f) {
		cli_usage_error("%s: %s: cannot open: %s", who, path, strerror(errno));
		return NULL;
	}
	do {
		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 65536;
			if (cap > ZONEINFO_MAX_BYTES + 1) {
				cli_usage_error("%s: %s: larger than %u MB: not a zoneinfo", who,
						path, ZONEINFO_MAX_BYTES >> 20);
				goto fail;
			}
			if (!(b = realloc(buf, cap))) {
				cli_usage_error("%s: %s: out of memory", who, path);
				goto fail;
			}
			buf = b;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
	} while (n);
	if (ferror(f)) {
		/* a directory opens, and fails here with EISDIR */
		cli_usage_error("%s: %s: cannot read: %s", who, path, strerror(errno));
		goto fail;
	}
	fclose(f);
	buf[len] = '\0';
	if (strlen(buf) != len) {
		cli_usage_error("%s: %s: contains NUL bytes: not a zoneinfo", who, path);
		free(buf);
		return NULL;
	}
	return buf;

fail:
	free(buf);
	fclose(f);
	return NULL;
}

/*
 * The machine a zoneinfo file describes, with nr_cpus CPUs split as
 * cpus_per_node says (NULL: evenly): what `mmfuzz shape` prints and what
 * `mmfuzz stress --zoneinfo` runs. *nr_zones (if not NULL): the zones of
 * the kernel that wrote it. Returns 0, or EXIT_USAGE after one line
 * naming who and the flag or file at fault.
 */
int cli_zoneinfo_machine(const char *who, const char *path, unsigned int nr_cpus,
			 const unsigned int *cpus_per_node, unsigned int nr_cpus_per_node,
			 struct mm_config *cfg, unsigned int *nr_zones)
{
	char err[256], *text = read_zoneinfo(who, path);
	int ret;

	if (!text)
		return EXIT_USAGE;
	ret = mm_config_from_zoneinfo(text, nr_cpus, cpus_per_node, nr_cpus_per_node, cfg, err,
				      sizeof(err));
	if (nr_zones)
		*nr_zones = mm_zoneinfo_nr_zones(text);
	free(text);
	if (ret == MM_ZONEINFO_ECPUS)
		return cli_usage_error("%s: %s: %s", who,
				       cpus_per_node ? "--cpus-per-node" : "--cpus", err);
	if (ret)
		return cli_usage_error("%s: %s: %s", who, path, err);
	return 0;
}

/*
 * A finding of the dump, not an error of the model: a note on stderr, the
 * exit status kept (INV-ZONEINFO-STALE-MANAGED).
 */
static void print_finding(const struct mm_violation *v, void *arg)
{
	char line[512];

	(void)arg;
	mm_violation_format(v, line, sizeof(line));
	fprintf(stderr, "mmfuzz shape: finding: %s\n", line);
}

/* With the machine's min_free_kbytes given, marks that differ are the dump's staleness. */
static void check_stale_marks(struct mm_sim *sim, const char *path)
{
	char *text = read_zoneinfo("shape", path);

	if (!text)
		return;
	mm_sim_set_violation_handler(sim, print_finding, NULL);
	mm_zoneinfo_check_marks(sim, text);
	free(text);
}

int cmd_shape(int argc, char **argv)
{
	struct shape_args a;
	struct mm_config cfg;
	struct mm_sim *sim;
	unsigned int nr_zones;
	int ret;

	ret = parse_args(argc, argv, &a);
	if (ret)
		return ret < 0 ? EXIT_CLEAN : ret;
	ret = cli_zoneinfo_machine("shape", a.zoneinfo, a.cpus,
				   a.cpus_per_node_arg ? a.cpus_per_node : NULL, a.nr_cpus_per_node,
				   &cfg, &nr_zones);
	if (ret)
		return ret;
	if (a.min_free_kbytes)
		cfg.min_free_kbytes = a.min_free_kbytes;
	if (a.wsf)
		cfg.watermark_scale_factor = a.wsf;

	sim = mm_sim_create();
	if (!sim || mm_sim_init(sim, &cfg, -1)) {
		mm_sim_destroy(sim);
		/* The config is valid here: only the memmap, a descriptor per pfn, can fail. */
		return cli_usage_error("shape: out of memory for %llu page descriptors",
				       (unsigned long long)mm_config_max_pfn(&cfg));
	}
	mm_print_zoneinfo_zones(stdout, sim, nr_zones);
	if (a.min_free_kbytes)
		check_stale_marks(sim, a.zoneinfo);
	mm_sim_destroy(sim);
	if (fflush(stdout) || ferror(stdout))
		return cli_usage_error("shape: cannot write the output");
	return EXIT_CLEAN;
}
