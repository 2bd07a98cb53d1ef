/* SPDX-License-Identifier: MIT */
#include "cli.h"

int cmd_shape(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return cli_usage_error("shape: not built yet");
}
