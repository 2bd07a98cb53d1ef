/* SPDX-License-Identifier: MIT */
/*
 * cmd_tables.c - the tables, listed: the variants (src/policy.c),
 * tab-separated name, target and what each breaks, or with --markdown the
 * index table of docs/variants.md, which ctest compares with the file; and
 * the op kinds (src/op_table.c), each with its line in a trace.
 */
#include "cli.h"

#include <stdio.h>
#include <string.h>

/* What proves the variant is caught, by its kind */
static void print_proof(const struct mm_variant *v)
{
	switch (v->kind) {
	case MM_VARIANT_BUG:
		printf("`corpus/variants/%s.txt`", v->name);
		break;
	case MM_VARIANT_RACE:
		printf("no trace: the ctest `stress/variant/%s`", v->name);
		break;
	default:
		printf("no trace: a figure of `mmfuzz bench` and `test_variant_figures`");
		break;
	}
}

int cmd_variants(int argc, char **argv)
{
	bool markdown = false;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--markdown"))
			markdown = true;
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("usage: mmfuzz variants [--markdown]\n"
			       "  Lists each variant: name, what catches it, what it breaks.\n"
			       "  --markdown  the index table of docs/variants.md\n");
			return EXIT_CLEAN;
		} else {
			return cli_usage_error(
				"variants: unknown option '%s' (try 'mmfuzz variants "
				"--help')",
				argv[i]);
		}
	}
	if (markdown)
		printf("| Variant | Kind | Caught by | From | Proof |\n"
		       "| --- | --- | --- | --- | --- |\n");
	for (size_t i = 0; i < mm_variant_count(); i++) {
		const struct mm_variant *v = mm_variant_at(i);
		if (!markdown) {
			printf("%s\t%s\t%s\n", v->name, v->target, v->breaks);
			continue;
		}
		printf("| `%s` | %s | %s | %s | ", v->name, mm_variant_kind_name(v->kind),
		       v->target, v->origin);
		print_proof(v);
		printf(" |\n");
	}
	return EXIT_CLEAN;
}

int cmd_ops(int argc, char **argv)
{
	char line[256];

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))
		return cli_command_help("ops");
	if (argc > 1)
		return cli_usage_error("ops: unknown option '%s' (try 'mmfuzz ops --help')",
				       argv[1]);
	for (unsigned int k = 0; k < MM_NR_OP_KINDS; k++) {
		mm_op_usage(k, line, sizeof(line));
		printf("%s\t%s\n", mm_op_name(k), line);
	}
	return EXIT_CLEAN;
}
