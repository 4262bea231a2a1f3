/*
 * main.c - `pacer [options] URL` and `pacer serve ...`.
 *
 * run = parse -> the run sequence (workflow/workflow.h: prepare, all that
 * can fail before load -> header -> engine -> report). Exit codes are
 * listed in config.h and docs/pacer.md.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/persona.h"
#include "engine/engine.h"
#include "mpi/glue.h"
#include "mpi/run.h"
#include "report/openmetrics.h"
#include "report/outputs.h"
#include "report/report.h"
#include "report/slo.h"
#include "serve/serve.h"
#include "util/file.h"
#include "workflow/workflow.h"

/* What `pacer URL` adds to the run sequence (wf_run_seq): the result
 * files, the header, the report and its --slo verdict. */
typedef struct live {
    const pc_config *cfg;
    pc_rundesc run;
    pc_outputs *outs;
    FILE *text;        /* the report's stream: stdout, or stderr with --json - */
    pc_ab_progress abp; /* ab's "Completed N requests" lines */
    om_metrics *om;     /* --metrics-listen; NULL: none */
    bool slo_ok;
} live;

static int live_prepared(void *ud, pc_engine *eng, pc_results *res, char *err, size_t errlen)
{
    live *l = ud;

    if (outputs_open(&l->outs, &l->cfg->out, l->cfg->interval_ns, err, errlen) < 0)
        return -1;
    outputs_bind(l->outs, res);
    if (outputs_want_intervals(l->outs))
        engine_add_interval_sink(eng, l->cfg->interval_ns, outputs_on_interval, l->outs);
    if (l->cfg->ab_heartbeat) {
        l->abp = (pc_ab_progress){stderr, l->cfg->ab_heartbeat, 0, 0};
        engine_add_interval_sink(eng, l->cfg->interval_ns, report_ab_progress, &l->abp);
    }
    if (l->om)
        engine_add_interval_sink(eng, l->cfg->interval_ns, om_on_interval, l->om);
    return 0;
}

static void live_starting(void *ud)
{
    live *l = ud;

    if (l->run.format == PC_FORMAT_H2LOAD)
        report_h2load_header(l->text, &l->run);
    else if (l->run.format == PC_FORMAT_AB)
        report_ab_header(l->text, &l->run);
    else if (l->run.format != PC_FORMAT_HEY && l->run.format != PC_FORMAT_HEY_CSV)
        report_wrk_header(l->text, &l->run);
    fflush(l->text); /* before the live view is drawn below it */
}

static int live_finished(void *ud, const pc_results *res)
{
    live *l = ud;
    char err[512] = "";
    int code = PC_EXIT_OK;

    om_final(l->om, res);
    if (l->run.format == PC_FORMAT_H2LOAD)
        report_h2load(l->text, &l->run, res);
    else if (l->run.format == PC_FORMAT_AB)
        report_ab(l->text, &l->run, res);
    else if (l->run.format == PC_FORMAT_HEY)
        report_hey(l->text, &l->run, res);
    else if (l->run.format == PC_FORMAT_HEY_CSV)
        report_hey_csv(l->text, stderr, &l->run, res);
    else
        report_wrk(l->text, &l->run, res);
    l->slo_ok = !l->cfg->slo || slo_print(l->text, l->cfg->slo, l->cfg->rate, res, NULL);
    if (fflush(l->text) != 0 || ferror(l->text)) {
        /* The report itself is an output: a full disk is an error. */
        fprintf(stderr, "pacer: cannot write the report to %s: %s\n",
                l->text == stdout ? "stdout" : "stderr", strerror(errno));
        code = PC_EXIT_RUNTIME;
    }
    if (outputs_finish(l->outs, &l->run, res, err, sizeof err) < 0) {
        fprintf(stderr, "pacer: %s\n", err);
        code = PC_EXIT_RUNTIME;
    }
    return code;
}

/* A run: pacer's own command line (p NULL) or persona p's. */
static int run_load(const cli_persona *p, int argc, char **argv)
{
    pc_config cfg;
    pc_results res;
    live l = {.cfg = &cfg, .slo_ok = true};
    wf_steps st = {.ud = &l, .prepared = live_prepared, .starting = live_starting,
                   .finished = live_finished};
    int rc = p ? persona_parse(p, argc, argv, &cfg, stdout, stderr)
               : cli_parse(argc, argv, &cfg, stdout, stderr);
    int code;

    if (rc == CLI_EXIT) {
        cli_free(&cfg);
        return PC_EXIT_OK;
    }
    if (rc < 0) {
        cli_free(&cfg);
        return PC_EXIT_USAGE;
    }
    if (mpi_launched() && cfg.mode == PC_MODE_RUN) {
        /* mpirun: this process is one rank's share of one run. */
        code = mpi_run_main(&cfg);
        cli_free(&cfg);
        return code;
    }
    if (cfg.shard.per_rank) {
        fprintf(stderr, "pacer: --per-rank is for a run started by mpirun (man pacer)\n");
        cli_free(&cfg);
        return PC_EXIT_USAGE;
    }
    /* With --json - (or another file to stdout), the text goes to stderr. */
    l.text = cli_text_stream(&cfg);
    rundesc_of(&l.run, &cfg);
    memset(&res, 0, sizeof res); /* the listener's sink reads it from the start */
    if (cfg.metrics.listen) {
        char err[512];

        /* Before anything is sent: an address in use costs nothing. */
        if (om_start(&l.om, &cfg, &res, err, sizeof err) < 0) {
            fprintf(stderr, "pacer: %s\n", err);
            cli_free(&cfg);
            return PC_EXIT_RUNTIME;
        }
        l.run.run_id = om_run_id(l.om);
    }
    code = wf_run_seq(&cfg, &st, &res);
    om_stop(l.om); /* the report is out */
    code = pc_exit_code(code, res.signal, res.st.completed == 0, !l.slo_ok);
    results_free(&res);
    outputs_free(l.outs);
    cli_free(&cfg);
    return code;
}

int main(int argc, char **argv)
{
    const cli_persona *p;

    /* A reset peer must be an error count, not a dead process. */
    signal(SIGPIPE, SIG_IGN);
    /* A signal that kills pacer removes the result files' temporaries. */
    pc_tmp_on_signals();
    /* A link named ab, h2load, ... (as busybox), or `pacer ab ...`. */
    if ((p = persona_find(argv[0])))
        return run_load(p, argc, argv);
    if (argc > 1 && (p = persona_find(argv[1])) && !strchr(argv[1], '/'))
        return run_load(p, argc - 1, argv + 1);
    if (argc == 2 && strcmp(argv[1], "help") == 0) {
        cli_usage(stdout);
        return PC_EXIT_OK;
    }
    if (argc > 1 && strcmp(argv[1], "serve") == 0)
        return serve_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "report") == 0)
        return report_main(argc - 1, argv + 1);
    if (argc > 1 && mpi_launched() && strcmp(argv[1], "compare") == 0)
        return mpi_workflow_main(compare_main, argc - 1, argv + 1);
    if (argc > 1 && mpi_launched() && strcmp(argv[1], "suite") == 0)
        return mpi_workflow_main(suite_main, argc - 1, argv + 1);
    if (argc > 1 && mpi_launched() && strcmp(argv[1], "capacity") == 0)
        return mpi_workflow_main(capacity_main, argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "compare") == 0)
        return compare_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "capacity") == 0)
        return capacity_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "suite") == 0)
        return suite_main(argc - 1, argv + 1);
    return run_load(NULL, argc, argv);
}
