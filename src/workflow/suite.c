/*
 * suite.c - `pacer suite [--json FILE] [--html FILE] SUITE_FILE`: a matrix
 * of targets x profiles, run profile by profile, printed as
 * http2benchmark prints its matrices, then as one table.
 *
 * The file (target and profile lines) is read by suite_file.c. Each run
 * is the command line `pacer PROFILE-OPTIONS TARGET-OPTIONS URL`, parsed
 * by the same parser as `pacer URL`; every run is parsed before the first
 * starts, so a typo costs nothing.
 */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "util/units.h"
#include "report/html.h"
#include "report/outputs.h"
#include "report/json_out.h"
#include "report/report.h"
#include "report/server_cost.h"
#include "report/slo.h"
#include "stats/hdr.h"
#include "util/json.h"
#include "workflow/suite_file.h"
#include "workflow/workflow.h"

typedef struct run {
    const suite_item *target, *profile;
    char **argv;   /* "pacer", profile words, target options, URL */
    int argc;
    pc_config cfg;
    bool parsed;
    pc_results res;
    bool done;
    bool slo_pass;
} run;

typedef struct suite {
    suite_file file;
    run *runs;
    int nruns;
} suite;

/* Parse one run's command line; its error, if any, becomes one line
 * naming the profile and target. */
static int parse_run(run *r, FILE *err)
{
    char *msg = NULL, *nl;
    size_t len = 0;
    FILE *mem = open_memstream(&msg, &len);
    int rc;

    if (!mem)
        return -1;
    rc = cli_parse(r->argc, r->argv, &r->cfg, mem, mem);
    fclose(mem);
    if (rc != CLI_RUN) {
        /* The parser's last line is its one-line reason ("pacer: ..."). */
        while (len && msg[len - 1] == '\n')
            msg[--len] = 0;
        nl = strrchr(msg, '\n');
        nl = nl ? nl + 1 : msg;
        if (strncmp(nl, "pacer: ", 7) == 0)
            nl += 7;
        fprintf(err, "pacer: profile '%s', target '%s': %s\n", r->profile->name, r->target->name,
                rc == CLI_EXIT ? "--help/--version do not belong in a suite" : nl);
        cli_free(&r->cfg);
        free(msg);
        return -1;
    }
    free(msg);
    r->parsed = true;
    return 0;
}

/* Build and parse every run's command line. */
static int plan(suite *S, FILE *err)
{
    S->runs = calloc((size_t)(S->file.ntargets * S->file.nprofiles), sizeof *S->runs);
    if (!S->runs)
        return -1;
    for (int p = 0; p < S->file.nprofiles; p++)
        for (int t = 0; t < S->file.ntargets; t++) {
            run *r = &S->runs[S->nruns++];
            const suite_item *tg = &S->file.targets[t], *pf = &S->file.profiles[p];
            int k = 0;
            const char *bad;

            r->target = tg;
            r->profile = pf;
            r->argv = calloc((size_t)(pf->nwords + tg->nwords + 2), sizeof *r->argv);
            if (!r->argv)
                return -1;
            r->argv[k++] = "pacer";
            for (int i = 0; i < pf->nwords; i++)
                r->argv[k++] = pf->words[i];
            for (int i = 1; i < tg->nwords; i++)
                r->argv[k++] = tg->words[i];
            r->argv[k++] = tg->words[0];
            r->argc = k;
            if (parse_run(r, err) < 0)
                return -1;
            if (r->cfg.out.json_path)
                bad = "--json";
            else if (r->cfg.out.html_path)
                bad = "--html";
            else if (r->cfg.metrics.listen)
                bad = "--metrics-listen";
            else
                bad = wf_no_run_files(&r->cfg);
            if (bad && strcmp(bad, "--urls") != 0) {
                fprintf(err, "pacer: profile '%s', target '%s': %s is not allowed in a suite "
                             "(pacer suite --json/--html write all runs)\n",
                        pf->name, tg->name, bad);
                return -1;
            }
            if (r->cfg.nscript_args) {
                fprintf(err, "pacer: target '%s': only options may follow the URL\n", tg->name);
                return -1;
            }
        }
    return 0;
}

/* MB = 2^20 bytes, as wrk's Transfer/sec and every other pacer output. */
static double mbps(const pc_results *r)
{
    double secs = (double)r->duration_ns / 1e9;

    return secs > 0 ? (double)r->st.bytes_read / 1048576.0 / secs : 0;
}

/* The per-run line's p99, in wrk's units. */
static void fmt_p99(const pc_results *r, char *buf, size_t cap)
{
    if (r->st.latency.total_count)
        units_fmt_time_us((double)hdr_value_at_percentile(&r->st.latency, 99) / 1e3, buf, cap);
    else
        snprintf(buf, cap, "-");
}

/* The first finished run of r's profile: the server columns' ratios are
 * against it (the suite file's first target). */
static const run *profile_base(const suite *S, const run *r)
{
    for (int i = 0; i < S->nruns; i++)
        if (S->runs[i].done && S->runs[i].profile == r->profile)
            return &S->runs[i];
    return r;
}

/* "v (0.50x)" against the base's value, or v alone (the base itself, or
 * a value missing on either). */
static void with_ratio(char *buf, size_t cap, const char *shown, double v, double base, bool first)
{
    if (first || isnan(v) || !(base > 0))
        snprintf(buf, cap, "%s", shown);
    else
        snprintf(buf, cap, "%s (%.2fx)", shown, v / base);
}

static void print_table(FILE *f, const suite *S)
{
    enum { NC_MAX = 10 };
    size_t nrows = 1;
    bool server = false;
    int nc = 8;
    char **cells = calloc((size_t)(S->nruns + 1) * NC_MAX, sizeof *cells);
    /* One unit per column: the table's p99 is in ms whatever its size. */
    static const char *const head[NC_MAX] = {"target", "profile", "duration", "req/s", "MB/s",
                                             "failures", "p99(ms)", "SLO",
                                             "req/server-CPU-s", "server RSS(MB)"};

    if (!cells)
        return;
    for (int i = 0; i < S->nruns; i++)
        server |= S->runs[i].done && S->runs[i].res.server;
    if (server)
        nc = NC_MAX;
    for (int c = 0; c < nc; c++)
        cells[c] = strdup(head[c]);
    for (int i = 0; i < S->nruns; i++) {
        const run *r = &S->runs[i];
        char buf[NC_MAX][96];
        double secs = (double)r->res.duration_ns / 1e9;

        if (!r->done)
            continue;
        snprintf(buf[0], 96, "%s", r->target->name);
        snprintf(buf[1], 96, "%s", r->profile->name);
        snprintf(buf[2], 96, "%.2fs", secs);
        snprintf(buf[3], 96, "%.2f", report_rate(&r->res));
        snprintf(buf[4], 96, "%.2f", mbps(&r->res));
        snprintf(buf[5], 96, "%" PRIu64, stats_failed(&r->res.st));
        if (r->res.st.latency.total_count)
            snprintf(buf[6], 96, "%.3f",
                     (double)hdr_value_at_percentile(&r->res.st.latency, 99) / 1e6);
        else
            snprintf(buf[6], 96, "-");
        snprintf(buf[7], 96, "%s", !r->cfg.slo ? "-" : r->slo_pass ? "PASS" : "FAIL");
        if (server) {
            const run *b = profile_base(S, r);
            char rpc[32], rss[32], brpc[32], brss[32];

            report_server_cells(&r->res, rpc, rss, sizeof rpc);
            report_server_cells(&b->res, brpc, brss, sizeof brpc);
            with_ratio(buf[8], 96, rpc, report_server_rps_per_cpu(&r->res),
                       report_server_rps_per_cpu(&b->res), b == r);
            with_ratio(buf[9], 96, rss, r->res.server ? r->res.server->rss_peak : NAN,
                       b->res.server ? b->res.server->rss_peak : NAN, b == r);
        }
        for (int c = 0; c < nc; c++)
            cells[nrows * (size_t)nc + (size_t)c] = strdup(buf[c]);
        nrows++;
    }
    wf_table(f, (size_t)nc, 2, nrows, cells);
    if (server)
        for (int i = 0; i < S->nruns; i++)
            if (S->runs[i].done) {
                char who[160];

                snprintf(who, sizeof who, "%s / %s", S->runs[i].profile->name,
                         S->runs[i].target->name);
                report_server_note(f, &S->runs[i].res, who);
            }
}

static int write_json(const char *path, const char *file, const suite *S)
{
    wf_json o;

    if (wf_json_begin(&o, path, "pacer-suite/1") < 0)
        return -1;
    json_w_kstr(&o.w, "suite", file);
    json_w_key(&o.w, "runs");
    json_w_arr_begin(&o.w);
    for (int i = 0; i < S->nruns; i++) {
        const run *r = &S->runs[i];
        pc_rundesc desc;

        if (!r->done)
            continue;
        wf_rundesc(&desc, &r->cfg);
        json_w_obj_begin(&o.w);
        json_w_kstr(&o.w, "target", r->target->name);
        json_w_kstr(&o.w, "profile", r->profile->name);
        json_w_kstr(&o.w, "url", r->target->words[0]);
        json_w_key(&o.w, "args");
        json_w_arr_begin(&o.w);
        for (int k = 1; k < r->argc; k++)
            json_w_str(&o.w, r->argv[k]);
        json_w_arr_end(&o.w);
        json_w_key(&o.w, "slo_pass");
        if (r->cfg.slo)
            json_w_bool(&o.w, r->slo_pass);
        else
            json_w_null(&o.w);
        json_w_key(&o.w, "result");
        report_json_obj(&o.w, &desc, &r->res, NULL);
        json_w_obj_end(&o.w);
    }
    json_w_arr_end(&o.w);
    return wf_json_end(&o);
}

static int write_html(const char *path, const char *file, const suite *S, const char *table)
{
    html_doc *d = html_doc_new("pacer suite");
    html_chart *rps, *p99, *spec;
    char err[256], name[300];
    double *x = calloc((size_t)S->file.nprofiles, sizeof *x), *y = calloc((size_t)S->file.nprofiles, sizeof *y),
           *z = calloc((size_t)S->file.nprofiles, sizeof *z);
    const char **profiles = calloc((size_t)S->file.nprofiles, sizeof *profiles);
    int rc = -1;

    if (!d || !x || !y || !z || !profiles)
        goto out;
    for (int p = 0; p < S->file.nprofiles; p++)
        profiles[p] = S->file.profiles[p].name;
    snprintf(err, sizeof err, "%s: %d targets x %d profiles", file, S->file.ntargets,
             S->file.nprofiles);
    html_doc_text(d, err);
    html_doc_pre(d, table);
    rps = html_doc_chart(d, "Requests/sec by profile", "Profile", HTML_LINEAR, "Requests/sec",
                         HTML_LINEAR);
    p99 = html_doc_chart(d, "p99 latency by profile (corrected)", "Profile", HTML_LINEAR,
                         "Latency (ms)", HTML_LOG);
    html_chart_categories(rps, (size_t)S->file.nprofiles, profiles);
    html_chart_categories(p99, (size_t)S->file.nprofiles, profiles);
    spec = html_doc_chart(d, "Latency by percentile, each run (corrected)", "Percentile",
                          HTML_PERCENTILE, "Latency (ms)", HTML_LOG);
    for (int t = 0; t < S->file.ntargets; t++) {
        size_t n = 0;

        for (int p = 0; p < S->file.nprofiles; p++) {
            const run *r = &S->runs[p * S->file.ntargets + t];

            if (!r->done)
                continue;
            x[n] = p;
            y[n] = report_rate(&r->res);
            z[n] = r->res.st.latency.total_count
                       ? (double)hdr_value_at_percentile(&r->res.st.latency, 99) / 1e6
                       : 0;
            n++;
            snprintf(name, sizeof name, "%s / %s", S->file.targets[t].name, S->file.profiles[p].name);
            html_chart_spectrum(spec, name, &r->res.st.latency, 1e6);
        }
        html_chart_series(rps, S->file.targets[t].name, n, x, y);
        html_chart_series(p99, S->file.targets[t].name, n, x, z);
    }
    rc = wf_html_write(path, d);
    d = NULL;
out:
    if (d)
        html_doc_free(d);
    free(x);
    free(y);
    free(z);
    free(profiles);
    return rc;
}

static void suite_usage(FILE *f)
{
    fputs("Usage: pacer suite [--json FILE] [--html FILE] [--progress|--quiet] SUITE_FILE\n"
          "  SUITE_FILE lines (# starts a comment):\n"
          "    target  NAME URL [options]   a server to test (options for it alone)\n"
          "    profile NAME [options]       a load shape: any pacer run options\n"
          "  Every profile runs against every target: pacer PROFILE-OPTIONS TARGET-OPTIONS URL\n",
          f);
}

int suite_main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", required_argument, NULL, 'j'}, {"html", required_argument, NULL, 'w'},
        {"progress", no_argument, NULL, 'P'},   {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},       {NULL, 0, NULL, 0},
    };
    const char *json_path = NULL, *html_path = NULL, *file;
    int progress = PC_PROGRESS_AUTO, c, code = PC_EXIT_OK;
    suite *S = calloc(1, sizeof *S);
    char err[512], *table = NULL;
    size_t table_len = 0;
    FILE *text, *mem;
    bool slo_failed = false, no_response = false;
    int sig = 0;

    if (!S)
        return PC_EXIT_RUNTIME;
    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'j':
            json_path = optarg;
            break;
        case 'w':
            html_path = optarg;
            break;
        case 'P':
            progress = PC_PROGRESS_ON;
            break;
        case 'q':
            progress = PC_PROGRESS_OFF;
            break;
        case 'h':
            suite_usage(stdout);
            free(S);
            return PC_EXIT_OK;
        case ':':
            fprintf(stderr, "pacer: option '%s' needs a value\n", argv[optind - 1]);
            free(S);
            return PC_EXIT_USAGE;
        default:
            fprintf(stderr, "pacer: unknown suite option '%s' (pacer suite --help; run options "
                            "go into the suite file)\n", argv[optind - 1]);
            free(S);
            return PC_EXIT_USAGE;
        }
    }
    if (argc - optind != 1) {
        suite_usage(stderr);
        fprintf(stderr, "pacer: pacer suite takes one suite file, got %d arguments\n", argc - optind);
        free(S);
        return PC_EXIT_USAGE;
    }
    file = argv[optind];
    if (suite_file_load(file, &S->file, err, sizeof err) < 0) {
        fprintf(stderr, "pacer: %s\n", err);
        code = PC_EXIT_USAGE;
        goto out;
    }
    if (plan(S, stderr) < 0) {
        code = PC_EXIT_USAGE;
        goto out;
    }
    if (json_path && html_path && strcmp(json_path, "-") == 0 && strcmp(html_path, "-") == 0) {
        fprintf(stderr, "pacer: only one output file can be '-' (stdout)\n");
        code = PC_EXIT_USAGE;
        goto out;
    }
    text = (json_path && strcmp(json_path, "-") == 0) || (html_path && strcmp(html_path, "-") == 0)
               ? stderr
               : stdout;
    wf_hold_signals();
    fprintf(text, "Suite %s: %d targets x %d profiles = %d runs\n", file, S->file.ntargets,
            S->file.nprofiles, S->nruns);
    for (int i = 0; i < S->nruns && !sig; i++) {
        run *r = &S->runs[i];
        char label[160], p99[32], shape[160];
        double secs;

        if (i % S->file.ntargets == 0) {
            wf_describe(&r->cfg, shape, sizeof shape);
            fprintf(text, "profile %s: %s\n", r->profile->name, shape);
        }
        fflush(text);
        if (progress != PC_PROGRESS_AUTO)
            r->cfg.progress = progress;
        snprintf(label, sizeof label, "%s / %s", r->profile->name, r->target->name);
        code = wf_run_once(&r->cfg, label, &r->res);
        if (code != PC_EXIT_OK)
            break;
        r->done = true;
        sig = r->res.signal;
        secs = (double)r->res.duration_ns / 1e9;
        fmt_p99(&r->res, p99, sizeof p99);
        fprintf(text, "  %s finished in %.2f seconds, %.2f req/s, %.2f MB/s, %" PRIu64
                      " failures, p99 %s",
                r->target->name, secs, report_rate(&r->res),
                mbps(&r->res), stats_failed(&r->res.st), p99);
        if (r->cfg.slo) {
            r->slo_pass = slo_eval(r->cfg.slo, r->cfg.rate, &r->res, NULL);
            fprintf(text, ", SLO %s", r->slo_pass ? "PASS" : "FAIL");
            slo_failed |= !r->slo_pass;
        }
        fputc('\n', text);
        no_response |= r->res.st.completed == 0;
    }
    if (code != PC_EXIT_OK)
        goto out;
    if ((mem = open_memstream(&table, &table_len))) {
        print_table(mem, S);
        fclose(mem);
    }
    fprintf(text, "\n%s", table ? table : "");
    fflush(text);
    if (json_path && write_json(json_path, file, S) < 0)
        code = PC_EXIT_RUNTIME;
    if (html_path && write_html(html_path, file, S, table ? table : "") < 0)
        code = PC_EXIT_RUNTIME;
    code = pc_exit_code(code, sig, no_response, slo_failed);
out:
    for (int i = 0; S->runs && i < S->nruns; i++) {
        if (S->runs[i].done)
            results_free(&S->runs[i].res);
        if (S->runs[i].parsed)
            cli_free(&S->runs[i].cfg);
        free(S->runs[i].argv);
    }
    free(S->runs);
    suite_file_free(&S->file);
    free(S);
    free(table);
    return code;
}
