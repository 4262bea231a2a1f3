/*
 * cli.h - the command line of `pacer [options] URL`.
 */
#ifndef PACER_CLI_CLI_H
#define PACER_CLI_CLI_H

#include <stdio.h>

#include "config.h"

enum {
    CLI_RUN = 0,   /* cfg is complete: run it */
    CLI_EXIT = 1,  /* help or version was printed: exit 0 */
};

/* Parse argv into *cfg. Returns CLI_RUN, CLI_EXIT, or -EINVAL after
 * printing one line "pacer: <what is wrong>" to err (exit code 2).
 * Help and version text go to out. */
int cli_parse(int argc, char **argv, pc_config *cfg, FILE *out, FILE *err);

/* The same for a subcommand's command line (PC_MODE_*): compare takes
 * several URLs (cfg->targets), capacity needs --slo and chooses -R. */
int cli_parse_mode(int mode, int argc, char **argv, pc_config *cfg, FILE *out, FILE *err);

/* Where the text report goes: stdout, or stderr when an output file is
 * "-" (stdout carries that file). */
FILE *cli_text_stream(const pc_config *cfg);

/* Release what cli_parse allocated. */
void cli_free(pc_config *cfg);

/* The usage text (also `pacer --help`). */
void cli_usage(FILE *f);

/* The long names of pacer's options (aliases too), i = 0, 1, ... until
 * NULL: what the docs must list. */
const char *cli_long_option(size_t i);

#endif
