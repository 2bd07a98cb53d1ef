/* SPDX-License-Identifier: MIT */
/*
 * stress_machine.c - the machine `mmfuzz stress` runs on: its nodes, their
 * CPUs and zones, and the distances between them.
 *
 * Built from the flags (--nodes, --cpus-per-node, --zone-pages, and here
 * --pages-per-node, where 0 pages make a memoryless node and 0 CPUs a
 * CPU-less one), or from a real machine's /proc/zoneinfo with
 * --zoneinfo FILE --cpus N, by the builder `mmfuzz shape` uses
 * (cli_zoneinfo_machine()), so a user stresses the model of their own box.
 * --distances gives the SLIT the zonelists are ordered by (the model's
 * build_zonelists(), src/topology.c); without it every remote node is at
 * 20, as the kernel assumes without a SLIT.
 */
#include "stress.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 1 GiB of page descriptors: what a stress run may simulate. */
#define MAX_TOTAL_PAGES (UINT64_C(1) << 26)

static int parse_pages(const char *s, struct stress_opts *o)
{
	int n = cli_parse_list(s, 0, UINT64_C(1) << 24, o->node_pages, MM_MAX_NODES);

	if (n < 0)
		return cli_usage_error("stress: --pages-per-node: at most %d nodes", MM_MAX_NODES);
	for (int i = 0; i < n; i++)
		if (o->node_pages[i] && o->node_pages[i] < 1024)
			n = 0;
	if (!n)
		return cli_usage_error("stress: --pages-per-node takes pages per node, each 0 (no "
				       "memory) or 1024..%llu, like 8192,0; not '%s'",
				       1ULL << 24, s);
	o->nr_node_pages = (unsigned int)n;
	return 0;
}

/*
 * A distance table: rows separated by newlines or ';', entries by commas
 * or blanks, '#' to the end of a line a comment. The layout of
 * `cat /sys/devices/system/node/node*\/distance` and of numactl -H's rows.
 */
static int parse_distance_text(const char *what, char *text, struct stress_opts *o)
{
	unsigned int rows = 0, cols = 0;
	char *line, *save;

	for (char *p = text; *p; p++)
		if (*p == ';')
			*p = '\n';
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned int n = 0;
		char *hash = strchr(line, '#'), *tok, *s2;
		if (hash)
			*hash = '\0';
		for (tok = strtok_r(line, ", \t\r", &s2); tok;
		     tok = strtok_r(NULL, ", \t\r", &s2)) {
			unsigned int v;
			if (rows == MM_MAX_NODES || n == MM_MAX_NODES)
				return cli_usage_error("stress: --distances %s: more than %d nodes",
						       what, MM_MAX_NODES);
			if (!cli_parse_uint(tok, 0, 255, &v))
				return cli_usage_error(
					"stress: --distances %s: row %u: '%s' is not "
					"a distance (0..255)",
					what, rows + 1, tok);
			o->distance[rows * MM_MAX_NODES + n++] = (uint8_t)v;
		}
		if (!n)
			continue;
		if (rows && n != cols)
			return cli_usage_error("stress: --distances %s: row %u has %u entries, "
					       "row 1 %u",
					       what, rows + 1, n, cols);
		cols = n;
		rows++;
	}
	if (!rows || rows != cols)
		return cli_usage_error("stress: --distances %s: %u rows of %u: not a square table",
				       what, rows, cols);
	o->nr_distance_nodes = rows;
	return 0;
}

/* Inline rows ("10,20;20,10") when the value starts with a digit, else a file of them. */
static int parse_distances(const char *v, struct stress_opts *o)
{
	char *text;
	size_t len;
	int ret;

	if (isdigit((unsigned char)*v)) {
		if (!(text = strdup(v)))
			return cli_usage_error("stress: out of memory");
		ret = parse_distance_text(v, text, o);
		free(text);
		return ret;
	}
	text = (char *)cli_read_file(v, &len);
	if (!text)
		return EXIT_USAGE;
	if (strlen(text) != len) {
		free(text);
		return cli_usage_error("stress: --distances %s: contains NUL bytes", v);
	}
	ret = parse_distance_text(v, text, o);
	free(text);
	return ret;
}

int stress_machine_flag(int argc, char **argv, int *i, struct stress_opts *o, bool *missing)
{
	const char *v;

	if ((v = cli_flag_value(argc, argv, i, "--zoneinfo", missing))) {
		if (!*v)
			return cli_usage_error("stress: --zoneinfo wants a file name");
		o->zoneinfo = v;
		return 0;
	}
	if ((v = cli_flag_value(argc, argv, i, "--cpus", missing))) {
		if (!cli_parse_uint(v, 1, MM_MAX_CPUS, &o->zoneinfo_cpus))
			return cli_usage_error("stress: --cpus must be 1..%d, not '%s'",
					       MM_MAX_CPUS, v);
		return 0;
	}
	if ((v = cli_flag_value(argc, argv, i, "--pages-per-node", missing)))
		return parse_pages(v, o);
	if ((v = cli_flag_value(argc, argv, i, "--distances", missing)))
		return parse_distances(v, o);
	return -1;
}

/* --zoneinfo: the file's nodes, --cpus (or --threads) CPUs split as --cpus-per-node says. */
static int resolve_zoneinfo(struct stress_opts *o, bool cpus_listed)
{
	struct mm_config *cfg = calloc(1, sizeof(*cfg));
	unsigned int cpus = o->zoneinfo_cpus ? o->zoneinfo_cpus : o->threads;
	int ret;

	if (!cfg)
		return cli_usage_error("stress: out of memory");
	ret = cli_zoneinfo_machine("stress", o->zoneinfo, cpus,
				   cpus_listed ? o->cpus_per_node : NULL,
				   cpus_listed ? o->nodes : 0, cfg, NULL);
	if (ret) {
		free(cfg);
		return ret;
	}
	o->machine = cfg;
	o->nodes = cfg->nr_nodes;
	o->threads = 0;
	for (unsigned int n = 0; n < cfg->nr_nodes; n++) {
		o->cpus_per_node[n] = cfg->cpus_per_node[n];
		o->threads += cfg->cpus_per_node[n];
	}
	if (mm_config_max_pfn(cfg) > MAX_TOTAL_PAGES)
		return cli_usage_error("stress: %s: the machine spans %llu pages, more than the "
				       "%llu a stress run simulates",
				       o->zoneinfo, (unsigned long long)mm_config_max_pfn(cfg),
				       (unsigned long long)MAX_TOTAL_PAGES);
	return 0;
}

int stress_machine_resolve(struct stress_opts *o, bool threads_set, bool nodes_set,
			   bool cpus_listed, bool bench)
{
	int ret;

	/* cmd_stress.c's resolve_cpus() ran: a listed split (cpus_listed) sums to threads. */
	if (o->zoneinfo_cpus && (threads_set || cpus_listed) && o->zoneinfo_cpus != o->threads)
		return cli_usage_error("stress: --cpus %u but --threads or --cpus-per-node give %u",
				       o->zoneinfo_cpus, o->threads);
	if (o->zoneinfo) {
		if (bench)
			return cli_usage_error("stress: --bench runs its own 1-node machine, not "
					       "--zoneinfo's");
		if (nodes_set || o->nr_node_pages)
			return cli_usage_error("stress: --zoneinfo gives the nodes and their "
					       "pages: drop --nodes and --pages-per-node");
		if (!o->zoneinfo_cpus && !threads_set && !cpus_listed)
			return cli_usage_error("stress: --zoneinfo needs --cpus N: the CPUs "
					       "are not in the file");
		if ((ret = resolve_zoneinfo(o, cpus_listed)))
			return ret;
	} else if (o->zoneinfo_cpus && !threads_set && !cpus_listed) {
		/* --cpus without --zoneinfo: the same as --threads (a listed split stays) */
		o->threads = o->zoneinfo_cpus;
		for (unsigned int n = 0; n < o->nodes; n++)
			o->cpus_per_node[n] = o->threads / o->nodes + (n < o->threads % o->nodes);
	}
	if (o->nr_node_pages && o->nr_node_pages != o->nodes)
		return cli_usage_error("stress: --pages-per-node names %u nodes, the machine has "
				       "%u",
				       o->nr_node_pages, o->nodes);
	if (o->nr_distance_nodes && o->nr_distance_nodes != o->nodes)
		return cli_usage_error("stress: --distances has %u rows, the machine %u nodes",
				       o->nr_distance_nodes, o->nodes);
	return 0;
}

/*
 * Node 0: DMA32 then Normal; every other node: Normal. Zones follow each
 * other in pfn order. --pages-per-node sizes each node's Normal zone, and
 * a node given 0 has no memory at all (node 0 then has no DMA32 either).
 */
int stress_machine_config(const struct stress_opts *o, struct mm_config *cfg)
{
	uint64_t pfn = 0;
	char err[160];

	if (o->machine) {
		*cfg = *o->machine;
	} else {
		mm_config_init(cfg);
		cfg->nr_nodes = o->nodes;
		for (unsigned int n = 0; n < o->nodes; n++) {
			uint64_t p = o->nr_node_pages ? o->node_pages[n] : o->zone_pages;
			cfg->cpus_per_node[n] = o->cpus_per_node[n];
			if (!p)
				continue;
			if (!n) {
				cfg->zones[0][ZONE_DMA32] = (struct mm_zone_config){
					pfn, o->zone_pages, o->zone_pages, o->zone_pages};
				pfn += o->zone_pages;
			}
			cfg->zones[n][ZONE_NORMAL] = (struct mm_zone_config){pfn, p, p, p};
			pfn += p;
		}
	}
	cfg->deferred_init_pages = o->deferred_init;
	if (mm_config_max_pfn(cfg) > MAX_TOTAL_PAGES)
		return cli_usage_error("stress: %llu pages in all is more than %llu: lower "
				       "--zone-pages",
				       (unsigned long long)mm_config_max_pfn(cfg),
				       (unsigned long long)MAX_TOTAL_PAGES);
	if (mm_config_validate(cfg, err, sizeof(err)))
		return cli_usage_error("stress: the machine is invalid: %s", err);
	return 0;
}

/* One line on stderr for a machine the summary's "zones of P pages" does not describe. */
static void describe(const struct stress_opts *o, const struct mm_config *cfg)
{
	unsigned int memoryless = 0, cpuless = 0, zones = 0;
	uint64_t managed = 0;

	for (unsigned int n = 0; n < cfg->nr_nodes; n++) {
		uint64_t node = 0;
		for (int z = 0; z < MAX_NR_ZONES; z++) {
			node += cfg->zones[n][z].managed;
			zones += cfg->zones[n][z].present != 0;
		}
		memoryless += !node;
		cpuless += !cfg->cpus_per_node[n];
		managed += node;
	}
	fprintf(stderr,
		"stress: the machine%s%s: %u node%s (%u memoryless, %u CPU-less), %u zones, "
		"%llu pages managed, %s\n",
		o->zoneinfo ? " of " : "", o->zoneinfo ? o->zoneinfo : "", cfg->nr_nodes,
		cfg->nr_nodes > 1 ? "s" : "", memoryless, cpuless, zones,
		(unsigned long long)managed,
		o->nr_distance_nodes ? "distances from --distances" : "every remote node at 20");
}

int stress_machine_apply(const struct stress_opts *o, struct mm_sim *sim,
			 const struct mm_config *cfg)
{
	uint8_t d[MM_MAX_NODES * MM_MAX_NODES];
	unsigned int nr = o->nr_distance_nodes;
	char err[160];

	if (!o->quiet && (o->zoneinfo || o->nr_node_pages || nr))
		describe(o, cfg);
	if (!nr)
		return 0;
	for (unsigned int a = 0; a < nr; a++)
		memcpy(&d[a * nr], &o->distance[a * MM_MAX_NODES], nr);
	if (mm_sim_set_node_distances(sim, d, nr, err, sizeof(err)))
		return cli_usage_error("stress: --distances: %s", err);
	return 0;
}

void stress_machine_free(struct stress_opts *o)
{
	free(o->machine);
	o->machine = NULL;
}
