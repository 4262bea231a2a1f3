/*
 * persona.h - other tools' command lines: `pacer ab -n 1000 -c 10 URL`,
 * `pacer h2load ...`, or pacer run through a link named ab, h2load, ...
 * (argv[0], as busybox does).
 *
 * A persona is a table of options (cli_int.h) with that tool's letters and
 * meanings, run by the same parser as pacer's own; its defaults are set
 * before its options, its finish after them (and after the URL), and the
 * shared tail (URL, checks, defaults) then serves it as it serves pacer's.
 * Adding one: a table and two functions in src/cli/persona_NAME.c, and one
 * line in persona.c's registry.
 */
#ifndef PACER_CLI_PERSONA_H
#define PACER_CLI_PERSONA_H

#include <stdio.h>

#include "config.h"

typedef struct cli_table cli_table;

typedef struct cli_persona {
    const char *name;                          /* "ab": `pacer ab ...` and a link named ab */
    const cli_table *table;                    /* its options, that tool's letters and meanings */
    void (*defaults)(pc_config *cfg);          /* the tool's defaults, set before its options */
    int (*finish)(pc_config *cfg, FILE *err);  /* after the options: the tool's own checks and
                                                  derivations; <0 after one "pacer: ..." line */
    const char *summary;                       /* one line for `pacer --help` */
} cli_persona;

/* The persona called name ("ab"; a path's last part counts, "/usr/bin/ab"),
 * or NULL. */
const cli_persona *persona_find(const char *name);

/* The personas, i = 0, 1, ... until NULL (`pacer --help` lists them). */
const cli_persona *persona_at(size_t i);

/* Parse a persona's command line into *cfg: argv[0] is its name ("ab"),
 * the options follow. Returns as cli_parse does (CLI_RUN, CLI_EXIT, or
 * -EINVAL after one line on err). */
int persona_parse(const cli_persona *p, int argc, char **argv, pc_config *cfg, FILE *out,
                  FILE *err);

#endif
