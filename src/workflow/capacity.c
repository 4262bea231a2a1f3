/*
 * capacity.c - `pacer capacity URL --slo EXPR [options]`: the highest
 * constant rate at which the SLO holds.
 *
 * The seeds' workflow automated: run wrk2 at 100, 200, 500... req/s and
 * see where p99 explodes. Steps are constant-rate runs of -d each (after
 * --warmup), with the same threads and connections, --pause apart. The
 * rate doubles from --start-rate until a step fails the SLO (or reaches
 * --max-rate), then the bracket [last pass, first fail] is bisected until
 * it is within --precision. --max-time bounds the whole search; a search
 * cut short says so and gives the best rate known to pass.
 */
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/units.h"
#include "report/html.h"
#include "report/outputs.h"
#include "report/report.h"
#include "report/slo.h"
#include "stats/hdr.h"
#include "util/clock.h"
#include "util/json.h"
#include "workflow/workflow.h"

#define MAX_STEPS 64

typedef struct step {
    double rate, achieved;
    bool pass;
    uint64_t errors, completed;
    char why[STATS_WHY_LEN]; /* no response at all: the first connect error */
    hdr_hist latency;       /* corrected, kept for the plots */
    pc_verdict v[SLO_MAX];
    char *json;             /* the step's result document */
} step;

typedef struct search {
    pc_config *cfg;
    step steps[MAX_STEPS];
    size_t n;
    FILE *text;
    int signal;
} search;

static void fmt_lat(const hdr_hist *h, double p, char *buf, size_t cap)
{
    if (!h->total_count)
        snprintf(buf, cap, "-");
    else
        units_fmt_time_us((double)(p > 100 ? hdr_max(h) : hdr_value_at_percentile(h, p)) / 1e3, buf, cap);
}

static void print_row(FILE *f, size_t i, const step *s)
{
    char p50[32], p99[32], p999[32], max[32];

    fmt_lat(&s->latency, 50, p50, sizeof p50);
    fmt_lat(&s->latency, 99, p99, sizeof p99);
    fmt_lat(&s->latency, 99.9, p999, sizeof p999);
    fmt_lat(&s->latency, 101, max, sizeof max);
    fprintf(f, "%4zu  %12.2f  %12.2f  %10s  %10s  %10s  %10s  %8" PRIu64 "  %s\n", i + 1, s->rate,
            s->achieved, p50, p99, p999, max, s->errors, s->pass ? "PASS" : "FAIL");
    fflush(f);
}

static void print_head(FILE *f)
{
    fprintf(f, "%4s  %12s  %12s  %10s  %10s  %10s  %10s  %8s  %s\n", "Step", "Rate", "Achieved",
            "p50", "p99", "p99.9", "Max", "Errors", "SLO");
}

/* Run one step at rate; -1 when the search must stop (error or signal). */
static int run_step(search *S, double rate, int *code)
{
    pc_config c = *S->cfg;
    step *s = &S->steps[S->n];
    pc_results res;
    char label[64];
    char *buf = NULL;
    size_t len = 0;
    FILE *mem;

    c.rate = rate;
    memset(s, 0, sizeof *s);
    snprintf(label, sizeof label, "step %zu, %.2f req/s", S->n + 1, rate);
    *code = wf_run_once(&c, label, &res);
    if (*code != PC_EXIT_OK)
        return -1;
    s->rate = rate;
    s->achieved = report_rate(&res);
    s->completed = res.st.completed;
    snprintf(s->why, sizeof s->why, "%s", res.st.why[PC_ERR_CONNECT][0] ? res.st.why[PC_ERR_CONNECT] : "no response");
    s->errors = stats_failed(&res.st);
    s->pass = slo_eval(S->cfg->slo, rate, &res, s->v);
    if (hdr_init(&s->latency, 1, STATS_LAT_HIGHEST, 3) < 0) {
        engine_results_free(&res);
        *code = PC_EXIT_RUNTIME;
        return -1;
    }
    hdr_add(&s->latency, &res.st.latency);
    if ((mem = open_memstream(&buf, &len))) {
        report_json(mem, &c, &res, NULL);
        fclose(mem);
        s->json = buf;
    }
    S->signal = res.signal;
    engine_results_free(&res);
    if (S->signal) {
        /* An interrupted step decides nothing and is not shown. */
        fprintf(S->text, "  (step %zu at %.2f req/s interrupted)\n", S->n + 1, rate);
        hdr_free(&s->latency);
        free(s->json);
        return -1;
    }
    print_row(S->text, S->n, s);
    S->n++;
    return 0;
}

/* The objectives that failed at a step: "p99<=100ms: 312.30ms". */
static void why_failed(const pc_slo *slo, const step *s, char *buf, size_t cap)
{
    size_t off = 0;

    buf[0] = 0;
    for (size_t i = 0; i < slo->n && off < cap; i++)
        if (!s->v[i].pass)
            off += (size_t)snprintf(buf + off, cap - off, "%s%s measured %s", off ? ", " : "",
                                    slo->v[i].text, s->v[i].shown);
}

static int cmp_rate(const void *a, const void *b)
{
    const step *x = *(const step *const *)a, *y = *(const step *const *)b;

    return (x->rate > y->rate) - (x->rate < y->rate);
}

/* "steps of 2.00s, 1 thread, 20 connections, from 250.00 req/s ..." */
static void step_shape(const pc_config *cfg, char *buf, size_t cap)
{
    char d[32];

    units_fmt_time_us((double)cfg->duration_ns / 1e3, d, sizeof d);
    snprintf(buf, cap,
             "steps of %s, %u thread%s, %u connection%s, from %.2f req/s (max %.2f), "
             "x2 then bisect to %.3g%%",
             d, cfg->threads, cfg->threads == 1 ? "" : "s", cfg->connections,
             cfg->connections == 1 ? "" : "s", cfg->start_rate, cfg->max_rate,
             cfg->precision * 100);
}

static int write_html(const search *S, const char *path, const char *table, const char *answer)
{
    const pc_config *cfg = S->cfg;
    html_doc *d = html_doc_new("pacer capacity");
    const step *sorted[MAX_STEPS];
    double x[MAX_STEPS], y[3][MAX_STEPS], ach[MAX_STEPS];
    static const double ps[3] = {50, 99, 99.9};
    static const char *const names[3] = {"p50", "p99", "p99.9"};
    html_chart *lat, *thr, *spec;
    char err[256], shape[256];

    if (!d)
        return wf_html_write(path, d);
    for (size_t i = 0; i < S->n; i++)
        sorted[i] = &S->steps[i];
    qsort(sorted, S->n, sizeof *sorted, cmp_rate);
    for (size_t i = 0; i < S->n; i++) {
        x[i] = sorted[i]->rate;
        ach[i] = sorted[i]->achieved;
        for (int k = 0; k < 3; k++)
            y[k][i] = (double)hdr_value_at_percentile(&sorted[i]->latency, ps[k]) / 1e6;
    }
    step_shape(cfg, shape, sizeof shape);
    html_doc_text(d, answer);
    {
        char desc[1024];

        snprintf(desc, sizeof desc, "%s; SLO %s; %s", cfg->url_text, cfg->slo->text, shape);
        html_doc_text(d, desc);
    }
    html_doc_pre(d, table);
    lat = html_doc_chart(d, "Latency against requested rate (corrected)", "Requested rate (req/s)",
                         HTML_LINEAR, "Latency (ms)", HTML_LOG);
    for (int k = 0; k < 3; k++)
        html_chart_series(lat, names[k], S->n, x, y[k]);
    for (size_t i = 0; i < cfg->slo->n && S->n; i++) {
        const pc_objective *o = &cfg->slo->v[i];
        double lx[2] = {x[0], x[S->n - 1]}, ly[2] = {o->value / 1e6, o->value / 1e6};

        if (o->metric == SLO_ERRORS || o->metric == SLO_RATE)
            continue;
        snprintf(err, sizeof err, "SLO %s", o->text);
        html_chart_reference(lat, err, 2, lx, ly);
    }
    thr = html_doc_chart(d, "Achieved against requested rate", "Requested rate (req/s)",
                         HTML_LINEAR, "Achieved rate (req/s)", HTML_LINEAR);
    html_chart_series(thr, "achieved", S->n, x, ach);
    html_chart_reference(thr, "requested", S->n, x, x);
    spec = html_doc_chart(d, "Latency by percentile, each step (corrected)", "Percentile",
                          HTML_PERCENTILE, "Latency (ms)", HTML_LOG);
    for (size_t i = 0; i < S->n; i++) {
        snprintf(err, sizeof err, "%.2f req/s %s", sorted[i]->rate, sorted[i]->pass ? "PASS" : "FAIL");
        html_chart_spectrum(spec, err, &sorted[i]->latency, 1e6);
    }
    return wf_html_write(path, d);
}

static int write_json(const search *S, const char *path, double answer, const char *verdict)
{
    const pc_config *cfg = S->cfg;
    char err[256];
    wf_json o;

    if (wf_json_begin(&o, path, "pacer-capacity/1") < 0)
        return -1;
    json_w_kstr(&o.w, "url", cfg->url_text);
    json_w_kstr(&o.w, "slo", cfg->slo->text);
    json_w_key(&o.w, "capacity_rate");
    if (answer > 0)
        json_w_double(&o.w, answer);
    else
        json_w_null(&o.w);
    json_w_kstr(&o.w, "verdict", verdict);
    json_w_key(&o.w, "steps");
    json_w_arr_begin(&o.w);
    for (size_t i = 0; i < S->n; i++) {
        const step *s = &S->steps[i];
        json_val *doc = NULL;

        json_w_obj_begin(&o.w);
        json_w_kdouble(&o.w, "rate", s->rate);
        json_w_kdouble(&o.w, "achieved_rate", s->achieved);
        json_w_kbool(&o.w, "pass", s->pass);
        json_w_key(&o.w, "objectives");
        json_w_arr_begin(&o.w);
        for (size_t k = 0; k < cfg->slo->n; k++) {
            json_w_obj_begin(&o.w);
            json_w_kstr(&o.w, "objective", cfg->slo->v[k].text);
            json_w_kbool(&o.w, "pass", s->v[k].pass);
            json_w_kdouble(&o.w, "measured", s->v[k].measured);
            json_w_kstr(&o.w, "shown", s->v[k].shown);
            json_w_obj_end(&o.w);
        }
        json_w_arr_end(&o.w);
        json_w_key(&o.w, "result");
        if (s->json && json_parse(s->json, strlen(s->json), &doc, err, sizeof err) == 0)
            json_w_value(&o.w, doc);
        else
            json_w_null(&o.w);
        json_free(doc);
        json_w_obj_end(&o.w);
    }
    json_w_arr_end(&o.w);
    return wf_json_end(&o);
}

/* Midpoint of the bracket, whole req/s when that still splits it. */
static double midpoint(double lo, double hi)
{
    double m = (lo + hi) / 2, r = round(m);

    return r > lo && r < hi && m >= 100 ? r : m;
}

int capacity_main(int argc, char **argv)
{
    pc_config cfg;
    search S;
    double lo = 0, hi = 0, rate;
    uint64_t t0, step_ns;
    int code = PC_EXIT_OK, rc;
    const char *why_stop = NULL;
    char answer[2048], reason[512], shape[256], *table = NULL;
    size_t table_len = 0;
    FILE *mem;
    const step *first_fail = NULL, *dead = NULL;

    if ((rc = wf_parse(PC_MODE_CAPACITY, argc, argv, &cfg)) >= 0)
        return rc;
    memset(&S, 0, sizeof S);
    S.cfg = &cfg;
    S.text = cli_text_stream(&cfg);
    wf_hold_signals();
    step_shape(&cfg, shape, sizeof shape);
    fprintf(S.text, "Capacity search @ %s\n  SLO %s; %s\n", cfg.url_text, cfg.slo->text, shape);
    print_head(S.text);

    /* Every step runs warm-up + duration, then drains for at most --timeout. */
    step_ns = cfg.warmup_ns + cfg.duration_ns;
    t0 = pc_now_ns();
    rate = cfg.start_rate;
    for (;;) {
        if (S.n == MAX_STEPS) {
            why_stop = "the step limit";
            break;
        }
        if (S.n && pc_now_ns() - t0 + cfg.pause_ns + step_ns > cfg.max_time_ns) {
            why_stop = "--max-time";
            break;
        }
        if (S.n && (S.signal = wf_pause(cfg.pause_ns)))
            break;
        if (run_step(&S, rate, &code) < 0)
            break;
        if (S.steps[S.n - 1].completed == 0) {
            /* A target that does not answer has no capacity to find. */
            dead = &S.steps[S.n - 1];
            break;
        }
        if (S.steps[S.n - 1].pass) {
            lo = rate;
            if (hi == 0) {
                if (rate >= cfg.max_rate) {
                    why_stop = "--max-rate";
                    break;
                }
                rate = fmin(rate * 2, cfg.max_rate);
                continue;
            }
        } else {
            hi = rate;
            first_fail = &S.steps[S.n - 1];
            if (lo == 0)
                break; /* not even the start rate */
        }
        if ((hi - lo) / lo <= cfg.precision)
            break;
        rate = midpoint(lo, hi);
    }
    if (code != PC_EXIT_OK && !S.signal)
        goto out;
    /* The lowest failing rate explains the answer. */
    for (size_t i = 0; i < S.n; i++)
        if (!S.steps[i].pass && (!first_fail || S.steps[i].rate <= first_fail->rate))
            first_fail = &S.steps[i];
    reason[0] = 0;
    if (first_fail)
        why_failed(cfg.slo, first_fail, reason, sizeof reason);
    if (dead)
        snprintf(answer, sizeof answer, "Capacity: unknown: no response at %.2f req/s (%s)",
                 dead->rate, dead->why);
    else if (lo == 0 && S.n)
        snprintf(answer, sizeof answer,
                 "Capacity: the SLO fails already at %.2f req/s (%s); try a lower --start-rate",
                 S.steps[0].rate, reason);
    else if (lo == 0)
        snprintf(answer, sizeof answer, "Capacity: unknown (stopped before the first step ended)");
    else if (hi == 0)
        snprintf(answer, sizeof answer, "Capacity: sustains at least %.2f req/s with %s (%s)", lo,
                 cfg.slo->text,
                 why_stop ? (strcmp(why_stop, "--max-rate") == 0 ? "reached --max-rate"
                                                                  : "search stopped by --max-time")
                          : "search interrupted");
    else
        snprintf(answer, sizeof answer, "Capacity: sustains %.2f req/s with %s (fails at %.2f req/s: %s)%s%s",
                 lo, cfg.slo->text, hi, reason,
                 why_stop || S.signal ? "; search stopped by " : "",
                 why_stop ? why_stop : S.signal ? "a signal" : "");
    fprintf(S.text, "%s\n", answer);
    fflush(S.text);
    if ((mem = open_memstream(&table, &table_len))) {
        print_head(mem);
        for (size_t i = 0; i < S.n; i++)
            print_row(mem, i, &S.steps[i]);
        fclose(mem);
    }
    if (cfg.json_path &&
        write_json(&S, cfg.json_path, lo, answer) < 0)
        code = PC_EXIT_RUNTIME;
    if (cfg.html_path && write_html(&S, cfg.html_path, table ? table : "", answer) < 0)
        code = PC_EXIT_RUNTIME;
    if (S.signal)
        code = S.signal == SIGINT ? PC_EXIT_SIGINT : PC_EXIT_SIGTERM;
    else if (code == PC_EXIT_OK && dead)
        code = PC_EXIT_NO_RESPONSE;
    else if (code == PC_EXIT_OK && lo == 0)
        code = PC_EXIT_SLO;
out:
    for (size_t i = 0; i < S.n; i++) {
        hdr_free(&S.steps[i].latency);
        free(S.steps[i].json);
    }
    free(table);
    cli_free(&cfg);
    return code;
}
