/*
 * main.c - `pacer [options] URL` and `pacer serve ...`.
 *
 * run = parse -> prepare (all that can fail before load) -> header ->
 * engine -> report. Exit codes are listed in config.h and docs/pacer.md.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "engine/engine.h"
#include "report/merge.h"
#include "report/outputs.h"
#include "report/progress.h"
#include "report/report.h"
#include "report/slo.h"
#include "script/script.h"
#include "serve/serve.h"
#include "workflow/workflow.h"

static int run_load(int argc, char **argv)
{
    pc_config cfg;
    pc_engine *eng = NULL;
    pc_outputs *outs = NULL;
    pc_script *script = NULL;
    pc_progress *prog = NULL;
    pc_results res;
    bool slo_ok;
    char err[512] = "";
    int rc = cli_parse(argc, argv, &cfg, stdout, stderr);
    FILE *text;
    int code;

    if (rc == CLI_EXIT) {
        cli_free(&cfg);
        return PC_EXIT_OK;
    }
    if (rc < 0) {
        cli_free(&cfg);
        return PC_EXIT_USAGE;
    }
    /* With --json - (or another file to stdout), the text goes to stderr. */
    text = cli_text_stream(&cfg);
    if (engine_prepare(&cfg, &eng, err, sizeof err) < 0 ||
        outputs_open(&outs, &cfg, err, sizeof err) < 0) {
        fprintf(stderr, "pacer: %s\n", err[0] ? err : "out of memory");
        code = PC_EXIT_RUNTIME;
        goto out;
    }
    if (cfg.script_path) {
        if (script_load(&script, &cfg, err, sizeof err) < 0) {
            fprintf(stderr, "pacer: %s\n", err[0] ? err : "out of memory");
            code = PC_EXIT_SCRIPT;
            goto out;
        }
        engine_set_script(eng, script);
    }
    outputs_bind(outs, &res);
    if (outputs_want_intervals(outs))
        engine_add_interval_sink(eng, cfg.interval_ns, outputs_on_interval, outs);
    if (cfg.format == PC_FORMAT_H2LOAD)
        report_h2load_header(text, &cfg);
    else if (cfg.format == PC_FORMAT_AB)
        report_ab_header(text, &cfg);
    else
        report_wrk_header(text, &cfg);
    /* The header is out before the live view is drawn below it. */
    fflush(text);
    if ((prog = progress_new(&cfg, &res, NULL, stderr)))
        engine_add_interval_sink(eng, progress_period_ns(prog), progress_on_interval, prog);
    rc = engine_run(eng, &res, err, sizeof err);
    progress_end(prog);
    if (rc < 0) {
        fprintf(stderr, "pacer: %s\n", err[0] ? err : "run failed");
        code = pc_exit_failed(res.signal, script != NULL);
        goto out;
    }
    if (err[0])
        fprintf(stderr, "pacer: warning: %s\n", err);
    if (cfg.format == PC_FORMAT_H2LOAD)
        report_h2load(text, &cfg, &res);
    else if (cfg.format == PC_FORMAT_AB)
        report_ab(text, &cfg, &res);
    else
        report_wrk(text, &cfg, &res);
    slo_ok = !cfg.slo || slo_print(text, cfg.slo, cfg.rate, &res, NULL);
    code = PC_EXIT_OK;
    if (fflush(text) != 0 || ferror(text)) {
        /* The report itself is an output: a full disk is an error. */
        fprintf(stderr, "pacer: cannot write the report to %s: %s\n",
                text == stdout ? "stdout" : "stderr", strerror(errno));
        code = PC_EXIT_RUNTIME;
    }
    if (outputs_finish(outs, &cfg, &res, err, sizeof err) < 0) {
        fprintf(stderr, "pacer: %s\n", err);
        code = PC_EXIT_RUNTIME;
    }
    if (script && script_done(script, &res, err, sizeof err) < 0) {
        fprintf(stderr, "pacer: %s\n", err);
        code = PC_EXIT_SCRIPT;
    } else if (script && script_run_error(script)) {
        fprintf(stderr, "pacer: %s (the run stopped there)\n", script_run_error(script));
        code = PC_EXIT_SCRIPT;
    }
    code = pc_exit_code(code, res.signal, res.st.completed == 0, !slo_ok);
    results_free(&res);
out:
    outputs_free(outs);
    engine_free(eng);
    script_free(script);
    cli_free(&cfg);
    return code;
}

int main(int argc, char **argv)
{
    /* A reset peer must be an error count, not a dead process. */
    signal(SIGPIPE, SIG_IGN);
    if (argc == 2 && strcmp(argv[1], "help") == 0) {
        cli_usage(stdout);
        return PC_EXIT_OK;
    }
    if (argc > 1 && strcmp(argv[1], "serve") == 0)
        return serve_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "report") == 0)
        return report_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "compare") == 0)
        return compare_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "capacity") == 0)
        return capacity_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "suite") == 0)
        return suite_main(argc - 1, argv + 1);
    return run_load(argc, argv);
}
