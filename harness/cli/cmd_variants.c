/* SPDX-License-Identifier: MIT */
/*
 * cmd_variants.c - lists the bug switches: name, the fuzz target that
 * should catch it, and what it breaks.
 */
#include "cli.h"

#include <stdio.h>

int cmd_variants(int argc, char **argv)
{
	(void)argv;
	if (argc > 1)
		return cli_usage_error("variants takes no arguments");
	for (size_t i = 0; i < mm_variant_count(); i++) {
		const struct mm_variant *v = mm_variant_at(i);
		printf("%s\t%s\t%s\n", v->name, v->target, v->breaks);
	}
	return EXIT_CLEAN;
}
