/* SPDX-License-Identifier: MIT */
/*
 * standalone_main.c - replays inputs through a fuzz target without
 * libFuzzer (gcc builds): each argument is a file or a directory of files.
 * Arguments starting with '-' are libFuzzer flags and are ignored, so the
 * same command line works for both builds.
 */
#include "fuzz_common.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f) {
		fprintf(stderr, "%s: cannot open: %s\n", path, strerror(errno));
		return -1;
	}
	do {
		if (len == cap) {
			cap = cap ? cap * 2 : 4096;
			uint8_t *b = realloc(buf, cap);
			if (!b) {
				fprintf(stderr, "%s: out of memory\n", path);
				free(buf);
				fclose(f);
				return -1;
			}
			buf = b;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	if (ferror(f)) {
		fprintf(stderr, "%s: read error\n", path);
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Replays a directory's regular files in name order: the same order every run. */
static int replay_dir(const char *path, unsigned long *count)
{
	DIR *d = opendir(path);
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	int ret = 0;

	if (!d) {
		fprintf(stderr, "%s: cannot open: %s\n", path, strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			char **nn = realloc(names, cap * sizeof(*nn));
			if (!nn) {
				ret = -1;
				break;
			}
			names = nn;
		}
		size_t len = strlen(path) + strlen(e->d_name) + 2;
		names[n] = malloc(len);
		if (!names[n]) {
			ret = -1;
			break;
		}
		snprintf(names[n++], len, "%s/%s", path, e->d_name);
	}
	closedir(d);
	if (names)
		qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		if (!ret && !stat(names[i], &st) && S_ISREG(st.st_mode)) {
			ret = replay_file(names[i]);
			(*count)++;
		}
		free(names[i]);
	}
	free(names);
	return ret;
}

int main(int argc, char **argv)
{
	unsigned long count = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (argv[i][0] == '-')
			continue;
		if (stat(argv[i], &st)) {
			fprintf(stderr, "%s: cannot open: %s\n", argv[i], strerror(errno));
			return 2;
		}
		if (S_ISDIR(st.st_mode) ? replay_dir(argv[i], &count) : replay_file(argv[i]))
			return 2;
		if (!S_ISDIR(st.st_mode))
			count++;
	}
	printf("replayed %lu inputs, no violation\n", count);
	return 0;
}
