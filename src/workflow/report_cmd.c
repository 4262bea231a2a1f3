/*
 * report_cmd.c - `pacer report [options] FILE...`: merge result files
 * (report/merge.h), optionally cut a time window, then print the report
 * the run would have printed, check --slo, and write --json/--hgrm/--html.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/html.h"
#include "report/merge.h"
#include "report/outputs.h"
#include "report/json_out.h"
#include "report/report.h"
#include "report/slo.h"
#include "util/units.h"
#include "workflow/workflow.h"

static void report_usage(FILE *f)
{
    fputs("Usage: pacer report [options] FILE...\n"
          "  Merge result files (--json output or HdrHistogram interval logs) and\n"
          "  print the report the run would have printed.\n"
          "  Options:\n"
          "    -L, --latency        Print the latency distribution (default)\n"
          "    -U, --u_latency      Also print the uncorrected distribution\n"
          "        --json  <FILE>   Write the merged result as JSON ('-': stdout)\n"
          "        --hgrm  <FILE>   Write the merged percentile distribution\n"
          "        --html  <FILE>   Write the merged result as an HTML report with plots\n"
          "        --slo   <EXPR>   Check objectives on the merged result (exit 5 if one fails)\n"
          "        --from  <T>      Keep intervals starting at least T after the start\n"
          "        --to    <T>      ... and before T after the start\n"
          "        --force          Merge files of different tests (URLs, methods, bodies,\n"
          "                         protocols); the header then lists every target\n"
          "    -h, --help           Print this help\n",
          f);
}

enum { OUT_JSON, OUT_HGRM, OUT_HTML };

static int write_file(const char *path, const pc_loaded *m, int kind, char *err, size_t errlen)
{
    char *tmp = NULL;
    FILE *f = outputs_tmp_open(path, &tmp, err, errlen);
    int rc;

    if (!f)
        return -EIO;
    rc = kind == OUT_JSON   ? report_json(f, &m->cfg, &m->res, &m->series)
         : kind == OUT_HTML ? report_html(f, &m->cfg, &m->res, &m->series)
                            : report_hgrm(f, &m->res);
    if (rc < 0) {
        outputs_tmp_abort(f, tmp);
        snprintf(err, errlen, "cannot write '%s'", path);
        return rc;
    }
    return outputs_tmp_commit(f, path, tmp, err, errlen);
}

int report_main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"latency", no_argument, NULL, 'L'}, {"u_latency", no_argument, NULL, 'U'},
        {"json", required_argument, NULL, 'j'}, {"hgrm", required_argument, NULL, 'g'},
        {"html", required_argument, NULL, 'H'}, {"slo", required_argument, NULL, 's'},
        {"from", required_argument, NULL, 'f'}, {"to", required_argument, NULL, 't'},
        {"force", no_argument, NULL, 'F'},     {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *json_path = NULL, *hgrm_path = NULL, *html_path = NULL;
    uint64_t from = 0, to = UINT64_MAX;
    bool u_latency = false, window = false, force = false;
    pc_loaded m, one;
    char err[512] = "";
    FILE *text = stdout;
    pc_slo slo;
    bool have_slo = false, slo_failed;
    int c, rc, code = PC_EXIT_OK;

    optind = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":LUh", opts, NULL)) != -1) {
        switch (c) {
        case 'L':
            break;
        case 'U':
            u_latency = true;
            break;
        case 'j':
            json_path = optarg;
            break;
        case 'g':
            hgrm_path = optarg;
            break;
        case 'H':
            html_path = optarg;
            break;
        case 's':
            if (slo_parse(optarg, &slo, err, sizeof err) < 0) {
                fprintf(stderr, "pacer report: %s\n", err);
                return PC_EXIT_USAGE;
            }
            have_slo = true;
            break;
        case 'f':
        case 't':
            if (units_parse_duration(optarg, c == 'f' ? &from : &to) < 0) {
                fprintf(stderr, "pacer report: invalid time for --%s: '%s'\n",
                        c == 'f' ? "from" : "to", optarg);
                return PC_EXIT_USAGE;
            }
            window = true;
            break;
        case 'F':
            force = true;
            break;
        case 'h':
            report_usage(stdout);
            return PC_EXIT_OK;
        case ':':
            fprintf(stderr, "pacer report: option '%s' needs a value\n", argv[optind - 1]);
            return PC_EXIT_USAGE;
        default:
            fprintf(stderr, "pacer report: unknown option '%s'\n", argv[optind - 1]);
            return PC_EXIT_USAGE;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "pacer report: no file to report on (see pacer report --help)\n");
        return PC_EXIT_USAGE;
    }
    if (window && from >= to) {
        fprintf(stderr, "pacer report: --from must be before --to\n");
        return PC_EXIT_USAGE;
    }
    if ((rc = merge_load(argv[optind], &m, err, sizeof err)) < 0) {
        merge_free(&m);
        fprintf(stderr, "pacer report: %s\n", err);
        return rc == -ENOENT || rc == -EACCES ? PC_EXIT_RUNTIME : PC_EXIT_USAGE;
    }
    for (int i = optind + 1; i < argc; i++) {
        if ((rc = merge_load(argv[i], &one, err, sizeof err)) < 0 ||
            (!force && (rc = merge_same_test(&m, &one, err, sizeof err)) < 0) ||
            (rc = merge_add(&m, &one, err, sizeof err)) < 0) {
            merge_free(&one);
            merge_free(&m);
            fprintf(stderr, "pacer report: %s\n", err);
            return rc == -ENOENT || rc == -EACCES ? PC_EXIT_RUNTIME : PC_EXIT_USAGE;
        }
        merge_free(&one);
    }
    if (window && merge_window(&m, (double)from / 1e9, to == UINT64_MAX ? INFINITY : (double)to / 1e9,
                               err, sizeof err) < 0) {
        fprintf(stderr, "pacer report: %s\n", err);
        merge_free(&m);
        return PC_EXIT_USAGE;
    }
    m.cfg.latency = true;
    m.cfg.u_latency = u_latency;
    m.cfg.hdr_layout = true;
    m.cfg.slo = have_slo ? &slo : NULL;
    m.cfg.sources = (const char **)(argv + optind);
    m.cfg.nsources = (size_t)(argc - optind);
    if ((json_path && strcmp(json_path, "-") == 0) ||
        (html_path && strcmp(html_path, "-") == 0))
        text = stderr;
    if (m.have_config && m.ntargets > 1) {
        /* Several targets (--urls, or --force): name them all. */
        fprintf(text, "Report of %zu file%s, %zu targets:\n", m.cfg.nsources,
                m.cfg.nsources > 1 ? "s" : "", m.ntargets);
        for (size_t i = 0; i < m.ntargets; i++)
            fprintf(text, "  %s\n", m.targets[i]);
        fprintf(text, "  %u threads and %u connections\n", m.cfg.threads, m.cfg.connections);
    } else if (m.have_config) {
        fprintf(text, "Report of %zu file%s: %s\n", m.cfg.nsources, m.cfg.nsources > 1 ? "s" : "",
                m.cfg.url_text);
        fprintf(text, "  %u threads and %u connections\n", m.cfg.threads, m.cfg.connections);
    } else {
        fprintf(text, "Report of %zu interval log%s (latency histograms only)\n", m.cfg.nsources,
                m.cfg.nsources > 1 ? "s" : "");
    }
    report_wrk(text, &m.cfg, &m.res);
    /* The gate a CI job applies to saved results. Interval logs carry no
     * outcomes, so errors and rate are judged on what they hold. */
    slo_failed = have_slo && !slo_print(text, &slo, m.cfg.rate, &m.res, NULL);
    if (json_path && write_file(json_path, &m, OUT_JSON, err, sizeof err) < 0) {
        fprintf(stderr, "pacer report: %s\n", err);
        code = PC_EXIT_RUNTIME;
    }
    if (hgrm_path && write_file(hgrm_path, &m, OUT_HGRM, err, sizeof err) < 0) {
        fprintf(stderr, "pacer report: %s\n", err);
        code = PC_EXIT_RUNTIME;
    }
    if (html_path && write_file(html_path, &m, OUT_HTML, err, sizeof err) < 0) {
        fprintf(stderr, "pacer report: %s\n", err);
        code = PC_EXIT_RUNTIME;
    }
    merge_free(&m);
    return pc_exit_code(code, 0, false, slo_failed);
}
