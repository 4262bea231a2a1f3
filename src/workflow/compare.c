/*
 * compare.c - `pacer compare [options] URL_A URL_B [URL...]`.
 *
 * The same load against each target, interleaved A B A B ... for --rounds
 * rounds, so drift on a noisy machine (thermal, neighbours, page cache)
 * falls on every target alike. Each target's rounds are merged without
 * loss (histograms add); the table shows each target beside the first,
 * with the ratio, and the spread of its per-round throughput; a verdict
 * per metric says whether it differs from the first beyond the rounds'
 * spread (docs/methodology.md, "Compare's verdict").
 */
#include <inttypes.h>
#include <signal.h>
#include <math.h>
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
#include "workflow/workflow.h"

typedef struct target {
    const char *url;
    char label[24];       /* A, B, ... */
    pc_config cfg;
    pc_results total;     /* all rounds merged */
    double *rps;          /* per round */
    double *lat[4];       /* per round: corrected p50, p90, p99, p99.9 (ns; NAN: no sample) */
    uint32_t rounds_run;
} target;

/* The metrics the verdict judges: throughput, then latency percentiles. */
#define NJUDGED 5
static const double judged_pct[4] = {50, 90, 99, 99.9};
static const char *const judged_key[NJUDGED] = {"requests_per_sec", "latency_p50", "latency_p90",
                                                "latency_p99", "latency_p99_9"};
/* The rule's constants (docs/methodology.md, "Compare's verdict"). */
#define VERDICT_MIN_ROUNDS 3
#define VERDICT_MIN_EFFECT 0.05

enum verdict { V_NOT_JUDGED, V_SAME, V_FASTER, V_SLOWER };

typedef struct judged {
    enum verdict v;
    double lo, hi;  /* the per-round ratio X/A, least and greatest */
    const char *why; /* V_NOT_JUDGED: why not */
} judged;

/* Round r's value of metric m (NAN: none). */
static double round_value(const target *t, int m, uint32_t r)
{
    return m == 0 ? t->rps[r] : t->lat[m - 1][r];
}

/* X against A on metric m. X is faster only when, in every round, it beat
 * A's value of the same round by the minimum effect (a ratio at least
 * 1.05, latency at most 1/1.05), and its rounds' range lies wholly beyond
 * A's (every round of X faster than every round of A): a difference
 * beyond both the paired one and the round-to-round spread. */
static judged judge(const target *a, const target *x, int m)
{
    judged j = {V_NOT_JUDGED, INFINITY, 0, NULL};
    uint32_t n = a->rounds_run < x->rounds_run ? a->rounds_run : x->rounds_run;
    double amin = INFINITY, amax = -INFINITY, xmin = INFINITY, xmax = -INFINITY;
    bool up = true, down = true; /* every round: X's value above / below A's by the effect */

    if (n < VERDICT_MIN_ROUNDS)
        j.why = "fewer than 3 rounds";
    for (uint32_t r = 0; r < n; r++) {
        double va = round_value(a, m, r), vx = round_value(x, m, r), q;

        if (isnan(va) || isnan(vx) || !(va > 0) || !(vx > 0)) {
            j.why = m ? "a round without latency samples" : "a round without responses";
            j.lo = j.hi = NAN;
            return j;
        }
        q = vx / va;
        j.lo = fmin(j.lo, q);
        j.hi = fmax(j.hi, q);
        up = up && q >= 1 + VERDICT_MIN_EFFECT;
        down = down && q <= 1 / (1 + VERDICT_MIN_EFFECT);
        amin = fmin(amin, va), amax = fmax(amax, va);
        xmin = fmin(xmin, vx), xmax = fmax(xmax, vx);
    }
    if (j.why || !n) {
        if (!n)
            j.lo = j.hi = NAN;
        return j;
    }
    up = up && xmin > amax;
    down = down && xmax < amin;
    /* Throughput: higher is faster; latency: lower is. */
    if (up || down)
        j.v = (up == (m == 0)) ? V_FASTER : V_SLOWER;
    else
        j.v = V_SAME;
    return j;
}

/* "B faster", "A faster", "no clear difference", "not judged". */
static const char *verdict_text(const judged *j, const target *a, const target *x, char *buf,
                                size_t cap)
{
    if (j->v == V_FASTER || j->v == V_SLOWER)
        snprintf(buf, cap, "%s faster", (j->v == V_FASTER ? x : a)->label);
    else
        snprintf(buf, cap, "%s", j->v == V_SAME ? "no clear difference" : "not judged");
    return buf;
}

static const char *const judged_row[NJUDGED] = {"Requests/sec", "Latency p50", "Latency p90",
                                                "Latency p99", "Latency p99.9"};

static void print_verdicts(FILE *f, const target *ts, size_t n)
{
    uint32_t rounds = ts[0].rounds_run;

    for (size_t i = 1; i < n; i++)
        if (ts[i].rounds_run < rounds)
            rounds = ts[i].rounds_run;
    for (size_t i = 1; i < n; i++) {
        fprintf(f, "\nVerdict, %s against %s (%u round%s; faster: in every round by 5%% or more, "
                   "and beyond the rounds' spread):\n",
                ts[i].label, ts[0].label, rounds, rounds == 1 ? "" : "s");
        for (int m = 0; m < NJUDGED; m++) {
            judged j = judge(&ts[0], &ts[i], m);
            char v[64];

            fprintf(f, "  %-14s %s", judged_row[m], verdict_text(&j, &ts[0], &ts[i], v, sizeof v));
            if (j.v == V_NOT_JUDGED)
                fprintf(f, " (%s)\n", j.why);
            else
                fprintf(f, " (%s/%s by round %.2fx-%.2fx)\n", ts[i].label, ts[0].label, j.lo, j.hi);
        }
    }
}

static void target_label(size_t i, char *buf, size_t cap)
{
    if (i < 26)
        snprintf(buf, cap, "%c", (char)('A' + i));
    else
        snprintf(buf, cap, "T%zu", i + 1);
}

/* "1.23ms (1.90x)" beside the first target's value. */
static void cell_ratio(char *buf, size_t cap, const char *shown, double v, double base, bool first)
{
    if (first || !(base > 0))
        snprintf(buf, cap, "%s", shown);
    else
        snprintf(buf, cap, "%s (%.2fx)", shown, v / base);
}

enum { ROW_REQ, ROW_RPS, ROW_SPREAD, ROW_MBS, ROW_ERR, ROW_CONNERR, ROW_NON2XX, ROW_P50, ROW_P90,
       ROW_P99, ROW_P999, ROW_MAX, ROW_SRV_RPC, ROW_SRV_RSS, ROWS };

/* One unit per row, named in the row (a row is one quantity across the
 * targets): MB = 2^20 bytes as in wrk's Transfer/sec, latency in ms. */
static const char *const row_name[ROWS] = {
    "Requests", "Requests/sec", "  per round (min-max)", "Transfer/sec (MB)", "Errors",
    "Connect errors", "Non-2xx or 3xx", "Latency p50 (ms)", "Latency p90 (ms)",
    "Latency p99 (ms)", "Latency p99.9 (ms)", "Latency max (ms)",
    "Requests per server CPU-s", "Server peak RSS (MB)"};

/* The measured value behind each row, for ratios (NAN: no ratio). */
static double row_value(const target *t, int row)
{
    const pc_stats *st = &t->total.st;
    double secs = (double)t->total.duration_ns / 1e9;
    static const double pcts[] = {50, 90, 99, 99.9};

    switch (row) {
    case ROW_REQ:
        return (double)st->completed;
    case ROW_RPS:
        return report_rate(&t->total);
    case ROW_MBS:
        return secs > 0 ? (double)st->bytes_read / secs : 0;
    case ROW_P50:
    case ROW_P90:
    case ROW_P99:
    case ROW_P999:
        return (double)hdr_value_at_percentile(&st->latency, pcts[row - ROW_P50]);
    case ROW_MAX:
        return (double)hdr_max(&st->latency);
    case ROW_SRV_RPC:
        return report_server_rps_per_cpu(&t->total);
    case ROW_SRV_RSS:
        return t->total.server ? t->total.server->rss_peak : NAN;
    }
    return NAN;
}

static void row_text(const target *t, int row, char *buf, size_t cap)
{
    const pc_stats *st = &t->total.st;
    uint64_t errors = stats_outcomes(st) - st->completed;
    double v = row_value(t, row), lo = INFINITY, hi = 0;

    switch (row) {
    case ROW_REQ:
        snprintf(buf, cap, "%" PRIu64, st->completed);
        break;
    case ROW_RPS:
        snprintf(buf, cap, "%.2f", v);
        break;
    case ROW_SPREAD:
        for (uint32_t r = 0; r < t->rounds_run; r++) {
            lo = fmin(lo, t->rps[r]);
            hi = fmax(hi, t->rps[r]);
        }
        snprintf(buf, cap, "%.0f-%.0f", t->rounds_run ? lo : 0, hi);
        break;
    case ROW_MBS:
        snprintf(buf, cap, "%.2f", v / 1048576.0);
        break;
    case ROW_ERR:
        snprintf(buf, cap, "%" PRIu64, errors);
        break;
    case ROW_CONNERR:
        snprintf(buf, cap, "%" PRIu64, st->connect_errors);
        break;
    case ROW_NON2XX:
        snprintf(buf, cap, "%" PRIu64, st->non2xx);
        break;
    case ROW_SRV_RPC:
    case ROW_SRV_RSS: {
        char rpc[32], rss[32];

        report_server_cells(&t->total, rpc, rss, sizeof rpc);
        snprintf(buf, cap, "%s", row == ROW_SRV_RPC ? rpc : rss);
        break;
    }
    default:
        if (st->latency.total_count)
            snprintf(buf, cap, "%.3f", v / 1e6);
        else
            snprintf(buf, cap, "-");
        break;
    }
}

/* The server's rows only when its cost was measured (--server-pid,
 * --server-metrics). */
static bool any_server(const target *ts, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (ts[i].total.server)
            return true;
    return false;
}

static void print_table(FILE *f, target *ts, size_t n)
{
    size_t ncols = n + 1;
    int rows = any_server(ts, n) ? ROWS : ROW_SRV_RPC;
    char **cells = calloc(ROWS + 1, ncols * sizeof *cells);
    char buf[128], shown[96];

    if (!cells)
        return;
    cells[0] = strdup("");
    for (size_t i = 0; i < n; i++)
        cells[1 + i] = strdup(ts[i].label);
    for (int r = 0; r < rows; r++) {
        cells[(r + 1) * ncols] = strdup(row_name[r]);
        for (size_t i = 0; i < n; i++) {
            row_text(&ts[i], r, shown, sizeof shown);
            /* A ratio needs two measured values (latency: samples on both). */
            bool none = isnan(row_value(&ts[i], r)) ||
                        (r >= ROW_P50 && (!ts[i].total.st.latency.total_count ||
                                          !ts[0].total.st.latency.total_count));

            cell_ratio(buf, sizeof buf, shown, row_value(&ts[i], r), row_value(&ts[0], r),
                       i == 0 || none);
            cells[(r + 1) * ncols + 1 + i] = strdup(buf);
        }
    }
    wf_table(f, ncols, 1, (size_t)rows + 1, cells);
    if (rows == ROWS)
        for (size_t i = 0; i < n; i++)
            report_server_note(f, &ts[i].total, ts[i].label);
}

/* The verdict of target i against the first, per metric. */
static void write_json_verdict(json_w *w, const target *ts, size_t i)
{
    json_w_key(w, "verdict");
    json_w_obj_begin(w);
    json_w_kstr(w, "against", ts[0].label);
    json_w_kdouble(w, "min_effect", VERDICT_MIN_EFFECT);
    for (int m = 0; m < NJUDGED; m++) {
        judged j = judge(&ts[0], &ts[i], m);
        char v[64];

        json_w_key(w, judged_key[m]);
        json_w_obj_begin(w);
        json_w_kstr(w, "verdict", verdict_text(&j, &ts[0], &ts[i], v, sizeof v));
        json_w_key(w, "faster");
        if (j.v == V_FASTER || j.v == V_SLOWER)
            json_w_str(w, (j.v == V_FASTER ? &ts[i] : &ts[0])->label);
        else
            json_w_null(w);
        if (isnan(j.lo) || j.lo == INFINITY) {
            json_w_key(w, "ratio_min");
            json_w_null(w);
            json_w_key(w, "ratio_max");
            json_w_null(w);
        } else {
            json_w_kdouble(w, "ratio_min", j.lo);
            json_w_kdouble(w, "ratio_max", j.hi);
        }
        if (j.why)
            json_w_kstr(w, "why", j.why);
        json_w_obj_end(w);
    }
    json_w_obj_end(w);
}

static int write_json(const char *path, const pc_config *cfg, target *ts, size_t n)
{
    wf_json o;

    if (wf_json_begin(&o, path, "pacer-compare/1") < 0)
        return -1;
    json_w_kuint(&o.w, "rounds", cfg->wf.rounds);
    json_w_key(&o.w, "targets");
    json_w_arr_begin(&o.w);
    for (size_t i = 0; i < n; i++) {
        pc_rundesc desc;

        wf_rundesc(&desc, &ts[i].cfg);
        json_w_obj_begin(&o.w);
        json_w_kstr(&o.w, "label", ts[i].label);
        json_w_kstr(&o.w, "url", ts[i].url);
        json_w_key(&o.w, "requests_per_sec_by_round");
        json_w_arr_begin(&o.w);
        for (uint32_t r = 0; r < ts[i].rounds_run; r++)
            json_w_double(&o.w, ts[i].rps[r]);
        json_w_arr_end(&o.w);
        if (i > 0)
            write_json_verdict(&o.w, ts, i);
        json_w_key(&o.w, "result");
        report_json_obj(&o.w, &desc, &ts[i].total, NULL);
        json_w_obj_end(&o.w);
    }
    json_w_arr_end(&o.w);
    return wf_json_end(&o);
}

static int write_html(const char *path, const pc_config *cfg, target *ts, size_t n,
                      const char *table_text)
{
    char title[256], shape[160];
    html_doc *d = html_doc_new("pacer compare");
    html_chart *spec, *spec_u, *rounds;

    if (!d)
        return -1;
    wf_describe(cfg, shape, sizeof shape);
    snprintf(title, sizeof title, "%zu targets, %u rounds of %s each, interleaved", n, cfg->wf.rounds,
             shape);
    html_doc_text(d, title);
    html_doc_pre(d, table_text);
    spec = html_doc_chart(d, "Latency by percentile (corrected)", "Percentile", HTML_PERCENTILE,
                          "Latency (ms)", HTML_LOG);
    spec_u = html_doc_chart(d, "Latency by percentile (uncorrected)", "Percentile", HTML_PERCENTILE,
                            "Latency (ms)", HTML_LOG);
    rounds = html_doc_chart(d, "Requests/sec by round", "Round", HTML_LINEAR, "Requests/sec",
                            HTML_LINEAR);
    for (size_t i = 0; i < n; i++) {
        char name[300];
        double *x = calloc(ts[i].rounds_run + 1, sizeof *x);

        snprintf(name, sizeof name, "%s %s", ts[i].label, ts[i].url);
        html_chart_spectrum(spec, name, &ts[i].total.st.latency, 1e6);
        html_chart_spectrum(spec_u, name, &ts[i].total.st.latency_u, 1e6);
        for (uint32_t r = 0; x && r < ts[i].rounds_run; r++)
            x[r] = r + 1;
        if (x)
            html_chart_series(rounds, name, ts[i].rounds_run, x, ts[i].rps);
        free(x);
    }
    return wf_html_write(path, d);
}

int compare_main(int argc, char **argv)
{
    pc_config cfg;
    target *ts = NULL;
    FILE *text;
    char *table = NULL;
    size_t table_len = 0;
    char shape[160], err[512];
    int code = PC_EXIT_OK, rc, sig = 0;
    bool slo_ok = true, no_response = false;

    if ((rc = wf_parse(PC_MODE_COMPARE, argc, argv, &cfg)) >= 0)
        return rc;
    text = cli_text_stream(&cfg);
    ts = calloc(cfg.wf.ntargets, sizeof *ts);
    if (!ts) {
        cli_free(&cfg);
        return PC_EXIT_RUNTIME;
    }
    for (size_t i = 0; i < cfg.wf.ntargets; i++) {
        ts[i].url = cfg.wf.targets[i];
        target_label(i, ts[i].label, sizeof ts[i].label);
        ts[i].rps = calloc(cfg.wf.rounds, sizeof *ts[i].rps);
        for (int k = 0; k < 4; k++)
            if (ts[i].rps && !(ts[i].lat[k] = calloc(cfg.wf.rounds, sizeof *ts[i].lat[k]))) {
                free(ts[i].rps);
                ts[i].rps = NULL;
            }
        if (!ts[i].rps || wf_target_config(&cfg, ts[i].url, &ts[i].cfg, err, sizeof err) < 0) {
            fprintf(stderr, "pacer: %s\n", ts[i].rps ? err : "out of memory");
            code = ts[i].rps ? PC_EXIT_USAGE : PC_EXIT_RUNTIME;
            ts[i].url = NULL;
            goto out;
        }
    }
    wf_hold_signals();
    wf_describe(&cfg, shape, sizeof shape);
    fprintf(text, "Comparing %zu targets, %u round%s of %s each, interleaved\n", cfg.wf.ntargets,
            cfg.wf.rounds, cfg.wf.rounds == 1 ? "" : "s", shape);
    fflush(text);

    for (uint32_t r = 0; r < cfg.wf.rounds && code == PC_EXIT_OK; r++) {
        for (size_t i = 0; i < cfg.wf.ntargets; i++) {
            pc_results res;
            char label[64], p99[32] = "-";

            snprintf(label, sizeof label, "round %u/%u %s", r + 1, cfg.wf.rounds, ts[i].label);
            code = wf_run_once(&ts[i].cfg, label, &res);
            if (code != PC_EXIT_OK)
                break;
            ts[i].rps[r] = report_rate(&res);
            for (int k = 0; k < 4; k++)
                ts[i].lat[k][r] = res.st.latency.total_count
                                      ? (double)hdr_value_at_percentile(&res.st.latency,
                                                                        judged_pct[k])
                                      : NAN;
            ts[i].rounds_run++;
            if (res.st.latency.total_count)
                units_fmt_time_us((double)hdr_value_at_percentile(&res.st.latency, 99) / 1e3, p99,
                                  sizeof p99);
            if (wf_leader())
                fprintf(stderr, "pacer: %s: %.2f req/s, p99 %s, %" PRIu64 " errors, %" PRIu64
                                " connect errors\n",
                        label, ts[i].rps[r], p99, stats_outcomes(&res.st) - res.st.completed,
                        res.st.connect_errors);
            if (wf_results_add(&ts[i].total, &res) < 0) {
                results_free(&res);
                code = PC_EXIT_RUNTIME;
                break;
            }
            results_free(&res);
            if (ts[i].total.signal)
                break;
        }
        if (code == PC_EXIT_OK && ts[0].total.signal)
            break;
        for (size_t i = 1; i < cfg.wf.ntargets; i++)
            if (ts[i].total.signal)
                goto report;
    }
    if (code != PC_EXIT_OK)
        goto out;
report:
    {
        FILE *mem = open_memstream(&table, &table_len);

        if (mem) {
            for (size_t i = 0; i < cfg.wf.ntargets; i++)
                fprintf(mem, "%s: %s\n", ts[i].label, ts[i].url);
            print_table(mem, ts, cfg.wf.ntargets);
            print_verdicts(mem, ts, cfg.wf.ntargets);
            fclose(mem);
        }
    }
    fputc('\n', text);
    fputs(table ? table : "", text);
    for (size_t i = 0; i < cfg.wf.ntargets; i++)
        if (ts[i].total.signal) {
            fprintf(text, "Stopped early by %s: the last round is incomplete\n",
                    pc_signal_name(ts[i].total.signal));
            break;
        }
    if (cfg.slo) {
        for (size_t i = 0; i < cfg.wf.ntargets; i++) {
            char who[300];

            snprintf(who, sizeof who, "%s (%s)", ts[i].label, ts[i].url);
            fputc('\n', text);
            slo_ok = slo_print(text, cfg.slo, cfg.rate, &ts[i].total, who) && slo_ok;
        }
    }
    fflush(text);
    if (cfg.out.json_path && write_json(cfg.out.json_path, &cfg, ts, cfg.wf.ntargets) < 0)
        code = PC_EXIT_RUNTIME;
    if (cfg.out.html_path && write_html(cfg.out.html_path, &cfg, ts, cfg.wf.ntargets, table ? table : "") < 0)
        code = PC_EXIT_RUNTIME;
    for (size_t i = 0; i < cfg.wf.ntargets; i++) {
        sig = sig ? sig : ts[i].total.signal;
        no_response |= ts[i].total.st.completed == 0;
    }
    code = pc_exit_code(code, sig, no_response, !slo_ok);
out:
    for (size_t i = 0; i < cfg.wf.ntargets; i++) {
        if (ts[i].url)
            wf_target_free(&ts[i].cfg);
        if (ts[i].total.st.latency.counts)
            results_free(&ts[i].total);
        free(ts[i].rps);
        for (int k = 0; k < 4; k++)
            free(ts[i].lat[k]);
    }
    free(ts);
    free(table);
    cli_free(&cfg);
    return code;
}
