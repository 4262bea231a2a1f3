/*
 * persona_wrk.c - `pacer wrk ...` and `pacer wrk2 ...`: pacer's own
 * command line is wrk's and wrk2's (closed loop; -R for wrk2's constant
 * throughput), so both run pacer's table as it is.
 */
#include "cli/cli_int.h"
#include "cli/persona.h"

const cli_persona persona_wrk = {
    .name = "wrk",
    .table = &cli_pacer_table,
    .summary = "wrk's command line (closed loop), wrk's report",
};

const cli_persona persona_wrk2 = {
    .name = "wrk2",
    .table = &cli_pacer_table,
    .summary = "wrk2's command line (-R: constant throughput), wrk2's report",
};
