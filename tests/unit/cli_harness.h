/*
 * cli_harness.h - run a command line through pacer's parser in a unit test:
 * pacer's own (persona NULL, in a subcommand's mode) or a persona's, with
 * stdout and stderr captured. One parse at a time, its results in r.
 */
#ifndef PACER_TESTS_CLI_HARNESS_H
#define PACER_TESTS_CLI_HARNESS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/persona.h"

static struct {
    int rc;
    pc_config cfg;
    char *argv[64];
    int argc;
    char *out, *err; /* what the parse printed */
    size_t outlen, errlen;
    int live;
} r;

static void harness_reset(void)
{
    if (r.live)
        cli_free(&r.cfg);
    for (int i = 0; i < r.argc; i++)
        free(r.argv[i]);
    free(r.out);
    free(r.err);
    memset(&r, 0, sizeof r);
}

/* Parse argv0 + args (NULL-terminated) as persona p, or as pacer's own
 * command line in mode (PC_MODE_*) when p is NULL; fills r. The arguments
 * are copies: the parser may rewrite them (Unicode dashes). */
static int harness_parse(const cli_persona *p, int mode, const char *argv0,
                         const char *const *args)
{
    FILE *out, *err;

    harness_reset();
    r.argv[r.argc++] = strdup(argv0);
    for (; *args && r.argc < 63; args++)
        r.argv[r.argc++] = strdup(*args);
    r.argv[r.argc] = NULL;
    out = open_memstream(&r.out, &r.outlen);
    err = open_memstream(&r.err, &r.errlen);
    if (!out || !err)
        abort();
    r.rc = p ? persona_parse(p, r.argc, r.argv, &r.cfg, out, err)
             : mode == PC_MODE_RUN ? cli_parse(r.argc, r.argv, &r.cfg, out, err)
                                   : cli_parse_mode(mode, r.argc, r.argv, &r.cfg, out, err);
    r.live = 1;
    fclose(out);
    fclose(err);
    return r.rc;
}

#endif
