/*
 * persona_wrk.c - `pacer wrk ...` and `pacer wrk2 ...`: pacer's own
 * command line is wrk's and wrk2's (closed loop; -R for wrk2's constant
 * throughput), with one letter moved back: -T is wrk's timeout there
 * (pacer's -T is ab's Content-Type, still --content-type). wrk2 refuses
 * to run without -R, as wrk2 does.
 */
#include <string.h>

#include "cli/cli_int.h"
#include "cli/persona.h"

/* pacer's table, copied once with -T moved (wrk_tables_init). */
static cli_opt wrk_opts[MAX_OPTS];
static void wrk_usage(FILE *f);
static void wrk2_usage(FILE *f);
static cli_table wrk_table = {wrk_opts, 0, wrk_usage, "pacer wrk", false};
static cli_table wrk2_table = {wrk_opts, 0, wrk2_usage, "pacer wrk2", false};

static void wrk_tables_init(void)
{
    size_t n = cli_pacer_table.n;

    if (wrk_table.n)
        return;
    memcpy(wrk_opts, cli_pacer_table.opts, n * sizeof *wrk_opts);
    for (size_t i = 0; i < n; i++) {
        if (wrk_opts[i].letter == 'T') {
            wrk_opts[i].letter = 0;
            wrk_opts[i].take = take_content_type; /* no hint about wrk's -T here */
        }
        else if (strcmp(wrk_opts[i].name, "timeout") == 0)
            wrk_opts[i].letter = 'T';
    }
    wrk_table.n = wrk2_table.n = n;
}

static void usage_as(FILE *f, const char *name, const cli_table *t)
{
    fprintf(f, "Usage: pacer %s <options> <url> [--] [script args]\n"
               "  wrk's options (pacer's own, with -T the timeout as in wrk):\n",
            name);
    print_options(t, f);
    fputs("\n"
          "  Numeric arguments may include a SI unit (1k, 1M, 1G)\n"
          "  Time arguments may include a time unit (2ms, 2s, 2m, 2h)\n",
          f);
}

static void wrk_usage(FILE *f)
{
    usage_as(f, "wrk", &wrk_table);
}

static void wrk2_usage(FILE *f)
{
    usage_as(f, "wrk2", &wrk2_table);
}

static void wrk_defaults(pc_config *cfg)
{
    (void)cfg;
    wrk_tables_init();
}

static int wrk2_finish(pc_config *cfg, FILE *err)
{
    if (cfg->rate <= 0)
        return cli_bad(err, "wrk2: Throughput MUST be specified with the --rate or -R option (a "
                            "closed loop is `pacer wrk ...`)");
    return 0;
}

const cli_persona persona_wrk = {
    .name = "wrk",
    .table = &wrk_table,
    .defaults = wrk_defaults,
    .summary = "wrk's command line (closed loop), wrk's report",
};

const cli_persona persona_wrk2 = {
    .name = "wrk2",
    .table = &wrk2_table,
    .defaults = wrk_defaults,
    .finish = wrk2_finish,
    .summary = "wrk2's command line (-R required: constant throughput), wrk2's report",
};
