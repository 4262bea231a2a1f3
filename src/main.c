/*
 * main.c - `pacer [options] URL` and `pacer serve ...`.
 *
 * run = parse -> prepare (all that can fail before load) -> header ->
 * engine -> report. Exit codes are listed in config.h and docs/pacer.md.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "engine/engine.h"
#include "report/report.h"
#include "serve/serve.h"

static int run_load(int argc, char **argv)
{
    pc_config cfg;
    pc_engine *eng = NULL;
    pc_results res;
    char err[512] = "";
    int rc = cli_parse(argc, argv, &cfg, stdout, stderr);
    int code;

    if (rc == CLI_EXIT) {
        cli_free(&cfg);
        return PC_EXIT_OK;
    }
    if (rc < 0) {
        cli_free(&cfg);
        return PC_EXIT_USAGE;
    }
    if (engine_prepare(&cfg, &eng, err, sizeof err) < 0) {
        fprintf(stderr, "pacer: %s\n", err[0] ? err : "out of memory");
        code = PC_EXIT_RUNTIME;
        goto out;
    }
    report_wrk_header(stdout, &cfg);
    if (engine_run(eng, &res, err, sizeof err) < 0) {
        fprintf(stderr, "pacer: %s\n", err[0] ? err : "run failed");
        code = PC_EXIT_RUNTIME;
        goto out;
    }
    if (err[0])
        fprintf(stderr, "pacer: warning: %s\n", err);
    report_wrk(stdout, &cfg, &res);
    fflush(stdout);
    if (res.signal)
        code = res.signal == SIGINT ? PC_EXIT_SIGINT : PC_EXIT_SIGTERM;
    else if (res.st.completed == 0)
        code = PC_EXIT_NO_RESPONSE;
    else
        code = PC_EXIT_OK;
    engine_results_free(&res);
out:
    engine_free(eng);
    cli_free(&cfg);
    return code;
}

int main(int argc, char **argv)
{
    /* A reset peer must be an error count, not a dead process. */
    signal(SIGPIPE, SIG_IGN);
    if (argc > 1 && strcmp(argv[1], "serve") == 0)
        return serve_main(argc - 1, argv + 1);
    return run_load(argc, argv);
}
