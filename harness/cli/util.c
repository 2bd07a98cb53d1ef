/* SPDX-License-Identifier: MIT */
/*
 * util.c - input loading and error conventions shared by the subcommands.
 */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

double cli_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int cli_usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("mmfuzz: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_USAGE;
}

uint8_t *cli_read_file(const char *path, size_t *len)
{
	struct stat st;
	FILE *f = fopen(path, "rb");
	uint8_t *buf;

	if (!f) {
		cli_usage_error("%s: cannot open: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
		cli_usage_error("%s: not a regular file", path);
		fclose(f);
		return NULL;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		cli_usage_error("%s: out of memory", path);
		fclose(f);
		return NULL;
	}
	*len = fread(buf, 1, (size_t)st.st_size, f);
	if (ferror(f) || *len != (size_t)st.st_size) {
		cli_usage_error("%s: read error", path);
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	buf[*len] = '\0';
	return buf;
}

bool cli_is_text(const uint8_t *data, size_t len)
{
	/*
	 * All printable ASCII lines: a trace, so a trace without its config
	 * line (a typo, a cut) is an error, never a binary input.
	 */
	for (size_t i = 0; i < len; i++)
		if ((data[i] < 0x20 || data[i] > 0x7e) && data[i] != '\n' && data[i] != '\t' &&
		    data[i] != '\r')
			return false;
	return len > 0;
}

const char *cli_flag_value(int argc, char **argv, int *i, const char *name, bool *missing)
{
	size_t n = strlen(name);
	const char *arg = argv[*i];

	if (strncmp(arg, name, n))
		return NULL;
	if (arg[n] == '=')
		return arg + n + 1;
	if (arg[n])
		return NULL;
	if (*i + 1 >= argc) {
		*missing = true;
		return NULL;
	}
	return argv[++*i];
}

bool cli_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *v)
{
	uint64_t x = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || x > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return false;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	if (x < lo || x > hi)
		return false;
	*v = x;
	return true;
}

bool cli_parse_uint(const char *s, unsigned int lo, unsigned int hi, unsigned int *v)
{
	uint64_t x;

	if (!cli_parse_u64(s, lo, hi, &x))
		return false;
	*v = (unsigned int)x;
	return true;
}

int cli_parse_list(const char *s, uint64_t lo, uint64_t hi, uint64_t *v, unsigned int max)
{
	unsigned int n = 0;

	for (const char *p = s;; p++) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char num[32];

		if (!len || len >= sizeof(num))
			return 0;
		if (n == max)
			return -1;
		memcpy(num, p, len);
		num[len] = '\0';
		if (!cli_parse_u64(num, lo, hi, &v[n++]))
			return 0;
		if (!comma)
			return (int)n;
		p = comma;
	}
}

bool cli_parse_seconds(const char *s, double lo, double hi, double *v)
{
	size_t digits = strspn(s, "0123456789");
	char *end;

	/* decimal digits with one optional fraction: strtod alone takes "0x10", "inf", "1e3" */
	if (s[digits] == '.')
		digits += 1 + strspn(s + digits + 1, "0123456789");
	if (!digits || s[digits] || !strcmp(s, "."))
		return false;
	errno = 0;
	double x = strtod(s, &end);
	if (errno || *end || !(x >= lo && x <= hi))
		return false;
	*v = x;
	return true;
}

/* The fuzz_<x> directory a crash file sits in, if it names a target: a static buffer. */
static const char *target_of_path(const char *path)
{
	static char name[64];
	struct mm_limits lim;

	for (const char *s = strstr(path, "fuzz_"); s; s = strstr(s + 1, "fuzz_")) {
		size_t n = strcspn(s, "/");
		if (s[n] != '/' || n >= sizeof(name) || (s != path && s[-1] != '/'))
			continue;
		memcpy(name, s, n);
		name[n] = '\0';
		if (!mm_limits_for_target(name, &lim))
			return name;
	}
	return NULL;
}

int cli_load_prog(const char *path, const char *target, struct mm_prog *p, const char **used)
{
	struct mm_limits lim;
	size_t len;
	uint8_t *data;
	char err[256];
	int ret = 0;

	if (!target)
		target = target_of_path(path);
	if (target && mm_limits_for_target(target, &lim)) {
		cli_usage_error("unknown fuzz target '%s' (fuzz_buddy, fuzz_pcp, ...)", target);
		return -1;
	}
	data = cli_read_file(path, &len);
	if (!data)
		return -1;
	if (used)
		*used = cli_is_text(data, len) ? NULL : target ? target : "the default limits";
	if (cli_is_text(data, len)) {
		if (mm_parse_prog((char *)data, p, err, sizeof(err))) {
			/* a fuzz input of printable bytes alone is rare: say why it was a trace */
			bool config = !strncmp((char *)data, "config ", 7) ||
				      strstr((char *)data, "\nconfig ");
			cli_usage_error("%s: %s%s", path, err,
					config ? ""
					       : " (a file of printable text is read as a trace)");
			ret = -1;
		}
	} else if (mm_decode(data, len, target ? &lim : NULL, p)) {
		cli_usage_error("%s: out of memory", path);
		ret = -1;
	}
	free(data);
	return ret;
}

int cli_variant(const char *flag_value)
{
	const char *name = flag_value ? flag_value : getenv("MMFUZZ_VARIANT");
	int v = mm_variant_lookup(name);

	if (v == MM_VARIANT_UNKNOWN)
		cli_usage_error("unknown variant '%s' (see 'mmfuzz variants')", name);
	return v;
}

int cli_policy(const char *flag_value)
{
	const char *path = flag_value ? flag_value : getenv("MMFUZZ_POLICY");
	char err[1024];

	if (!path || !path[0])
		return EXIT_CLEAN;
	if (mm_policy_plugin_load(path, err, sizeof(err)) < 0)
		return cli_usage_error("policy plugin: %s", err);
	/* which rules are the plugin's, on stderr: the results stay comparable */
	fprintf(stderr, "mmfuzz: policy %s:", path);
	for (size_t i = 0; i < mm_policy_hook_count(); i++)
		if (mm_policy_plugin_defines(i))
			fprintf(stderr, " %s", mm_policy_hook_name(i));
	fputc('\n', stderr);
	return EXIT_CLEAN;
}

FILE *cli_create_new(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
	FILE *f;

	if (fd < 0) {
		cli_usage_error("%s: %s", path,
				errno == EEXIST ? "exists already; not overwriting it"
						: strerror(errno));
		return NULL;
	}
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		cli_usage_error("%s: %s", path, strerror(errno));
	}
	return f;
}
