/* SPDX-License-Identifier: MIT */
/*
 * procfs.c - the model's state in the files a kernel developer asks a bug
 * reporter for: /proc/buddyinfo, /proc/pagetypeinfo and the free-page and
 * compaction lines of /proc/vmstat, in the kernel's layouts (mm/vmstat.c's
 * frag_show_print(), pagetypeinfo_showfree_print(),
 * pagetypeinfo_showblockcount_print(), vmstat_show(); 6.x). zoneinfo is in
 * zoneinfo.c. Read-only: the caller quiesces the machine.
 */
#include "internal.h"

/* Every populated zone; the kernel's files list the zones with present pages. */
#define for_each_populated_zone(sim, z)                                                            \
	for_each_zone(sim, z)                                                                      \
		if (populated_zone(z))

void mm_print_buddyinfo(FILE *f, const struct mm_sim *csim)
{
	struct mm_sim *sim = (struct mm_sim *)csim;

	for_each_populated_zone(sim, z)
	{
		fprintf(f, "Node %d, zone %8s ", z->node, mm_zone_name(z->type));
		for (unsigned int o = 0; o <= sim->max_order; o++)
			fprintf(f, "%6lu ", z->free_area[o].nr_free);
		fputc('\n', f);
	}
}

/* Blocks on one free list: walked, not taken from a counter the model keeps. */
static unsigned long free_list_length(struct mm_sim *sim, const struct free_area *area, int mt)
{
	unsigned long n = 0;

	for (uint32_t pfn = area->head[mt]; pfn != PFN_NIL; pfn = pfn_to_page(sim, pfn)->lru.next)
		n++;
	return n;
}

void mm_print_pagetypeinfo(FILE *f, const struct mm_sim *csim)
{
	struct mm_sim *sim = (struct mm_sim *)csim;

	fprintf(f, "Page block order: %u\n", sim->pageblock_order);
	fprintf(f, "Pages per block:  %lu\n\n", 1UL << sim->pageblock_order);
	fprintf(f, "%-43s ", "Free pages count per migrate type at order");
	for (unsigned int o = 0; o <= sim->max_order; o++)
		fprintf(f, "%6u ", o);
	fputc('\n', f);
	for_each_populated_zone(sim, z)
	{
		for (int mt = 0; mt < MIGRATE_TYPES; mt++) {
			fprintf(f, "Node %4d, zone %8s, type %12s ", z->node, mm_zone_name(z->type),
				mm_migratetype_name(mt));
			for (unsigned int o = 0; o <= sim->max_order; o++)
				fprintf(f, "%6lu ", free_list_length(sim, &z->free_area[o], mt));
			fputc('\n', f);
		}
	}

	fprintf(f, "\n%-23s", "Number of blocks type ");
	for (int mt = 0; mt < MIGRATE_TYPES; mt++)
		fprintf(f, "%12s ", mm_migratetype_name(mt));
	fputc('\n', f);
	for_each_populated_zone(sim, z)
	{
		unsigned long count[MIGRATE_TYPES] = {0};
		uint64_t step = UINT64_C(1) << sim->pageblock_order;
		/* pagetypeinfo_showblockcount_print(): every block the zone spans the start of */
		uint64_t pfn = z->zone_start_pfn & ~(step - 1);

		for (; pfn < zone_end_pfn(z); pfn += step) {
			uint64_t first = pfn < z->zone_start_pfn ? z->zone_start_pfn : pfn;
			count[get_pfnblock_migratetype(sim, first)]++;
		}
		fprintf(f, "Node %d, zone %8s ", z->node, mm_zone_name(z->type));
		for (int mt = 0; mt < MIGRATE_TYPES; mt++)
			fprintf(f, "%12lu ", count[mt]);
		fputc('\n', f);
	}
}

void mm_print_vmstat(FILE *f, const struct mm_sim *sim)
{
	struct mm_compact_stats cs;
	long nr_free = 0;

	for (unsigned int n = 0; n < sim->nr_nodes; n++)
		for (int zt = 0; zt < MAX_NR_ZONES; zt++) {
			struct mm_zone_info zi;
			if (!mm_zone_info(sim, (int)n, zt, &zi))
				nr_free += zi.nr_free_pages;
		}
	mm_sim_compact_stats(sim, &cs);
	/* The global counter is the zones' estimates summed, as /proc/vmstat shows it. */
	fprintf(f, "nr_free_pages %ld\n", nr_free);
	fprintf(f, "pgmigrate_success %llu\n", cs.pgmigrate_success);
	fprintf(f, "pgmigrate_fail %llu\n", cs.pgmigrate_fail);
	fprintf(f, "compact_migrate_scanned %llu\n", cs.compact_migrate_scanned);
	fprintf(f, "compact_free_scanned %llu\n", cs.compact_free_scanned);
	fprintf(f, "compact_isolated %llu\n", cs.compact_isolated);
	fprintf(f, "compact_stall %llu\n", cs.compact_stall);
	fprintf(f, "compact_fail %llu\n", cs.compact_fail);
	fprintf(f, "compact_success %llu\n", cs.compact_success);
	fprintf(f, "compact_daemon_wake %llu\n", cs.compact_daemon_wake);
	fprintf(f, "compact_daemon_migrate_scanned %llu\n", cs.compact_daemon_migrate_scanned);
	fprintf(f, "compact_daemon_free_scanned %llu\n", cs.compact_daemon_free_scanned);
}
