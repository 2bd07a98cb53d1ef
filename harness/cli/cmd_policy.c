/* SPDX-License-Identifier: MIT */
/*
 * cmd_policy.c - mmfuzz policy: compile a policy plugin (a C file defining
 * policy functions by their kernel names) into the shared object --policy
 * and MMFUZZ_POLICY load, and list the hooks a plugin may define.
 */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MMFUZZ_INCLUDE_DIR
#define MMFUZZ_INCLUDE_DIR "src"
#endif

static const char usage_line[] = "mmfuzz policy build FILE.c [-o FILE.so] | mmfuzz policy hooks";

/* FILE.c -> FILE.so */
static int default_output(const char *src, char *out, size_t len)
{
	size_t n = strlen(src);

	if (n < 3 || strcmp(src + n - 2, ".c"))
		return cli_usage_error("policy build: %s: not a .c file (name the output with -o)",
				       src);
	if (n + 2 > len)
		return cli_usage_error("policy build: %s: name too long", src);
	memcpy(out, src, n - 2);
	strcpy(out + n - 2, ".so");
	return 0;
}

static int build(const char *src, const char *out)
{
	const char *cc = getenv("CC") && getenv("CC")[0] ? getenv("CC") : "cc";
	const char *args[] = {
		cc,	   "-std=c11", "-D_GNU_SOURCE",		"-O2", "-Wall", "-Wextra",
		"-shared", "-fPIC",    "-I" MMFUZZ_INCLUDE_DIR, src,   "-o",	out,
		NULL};
	int status;
	pid_t pid;

	if (access(src, R_OK))
		return cli_usage_error("policy build: %s: cannot read it", src);
	for (size_t i = 0; args[i]; i++)
		printf("%s%s", i ? " " : "", args[i]);
	putchar('\n');
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return cli_usage_error("policy build: cannot fork");
	if (!pid) {
		execvp(cc, (char *const *)args);
		fprintf(stderr, "mmfuzz: policy build: cannot run %s\n", cc);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		return cli_usage_error("policy build: %s failed on %s (its messages above)", cc,
				       src);
	printf("built %s: run it with --policy %s (or MMFUZZ_POLICY=%s)\n", out, out, out);
	return EXIT_CLEAN;
}

static int hooks(void)
{
	puts("Hooks a policy plugin may define (signatures: struct mm_policy in internal.h):");
	for (size_t i = 0; i < mm_policy_hook_count(); i++)
		printf("  %s\n", mm_policy_hook_name(i));
	return EXIT_CLEAN;
}

int cmd_policy(int argc, char **argv)
{
	const char *src = NULL, *out = NULL;
	char outbuf[4096];
	int ret;

	if (argc < 2)
		return cli_usage_error("policy: build or hooks? (%s)", usage_line);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return cli_command_help(argv[0]);
	if (!strcmp(argv[1], "hooks") && argc == 2)
		return hooks();
	if (strcmp(argv[1], "build"))
		return cli_usage_error("policy: unknown subcommand '%s' (%s)", argv[1], usage_line);
	for (int i = 2; i < argc; i++) {
		bool missing = false;
		const char *v = cli_flag_value(argc, argv, &i, "-o", &missing);

		if (missing)
			return cli_usage_error("policy build: -o needs a value");
		if (v)
			out = v;
		else if (argv[i][0] == '-' && argv[i][1])
			return cli_usage_error("policy build: unknown option '%s' (%s)", argv[i],
					       usage_line);
		else if (src)
			return cli_usage_error("policy build: one source file only");
		else
			src = argv[i];
	}
	if (!src)
		return cli_usage_error("policy build: which file? (%s)", usage_line);
	if (!out) {
		if ((ret = default_output(src, outbuf, sizeof(outbuf))))
			return ret;
		out = outbuf;
	}
	return build(src, out);
}
