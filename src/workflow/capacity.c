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
 *
 * A percentile is only as good as the samples above it: a step lasts at
 * least long enough for each percentile objective to rest on SAMPLES_ABOVE
 * of them (p99: 1000 samples, p99.9: 10000), and a step that still has
 * fewer (requests that failed leave no latency) decides nothing: it is
 * inconclusive and ends the search.
 */
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
#include "report/slo.h"
#include "stats/hdr.h"
#include "util/clock.h"
#include "util/json.h"
#include "workflow/workflow.h"

#define MAX_STEPS 64
/* Latency samples a percentile must have above it to be used: the count
 * above it is then within about +-60% (2 sigma, Poisson) of its true
 * value, e.g. p99 from 1000 samples lies between the true p98.2 and p99.5
 * (95% of the time). */
#define SAMPLES_ABOVE 10

typedef struct step {
    double rate, achieved;
    bool pass;
    bool inconclusive;      /* an objective lacked samples and none failed */
    uint64_t duration_ns;   /* -d, or longer for the samples a percentile needs */
    uint64_t errors, completed;
    size_t short_obj;       /* inconclusive: the objective that lacked samples */
    uint64_t short_have;    /* ... the samples it had */
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

/* The latency samples objective o needs: SAMPLES_ABOVE above its
 * percentile, SAMPLES_ABOVE / (1 - q); 0 when any number will do (mean,
 * max, errors, rate). */
static uint64_t samples_needed(const pc_objective *o)
{
    if (o->metric != SLO_PCT || o->pct >= 100)
        return 0;
    /* less a hair, so that 100 - 99.9 in binary still gives 10000 */
    return (uint64_t)ceil(SAMPLES_ABOVE * 100.0 / (100.0 - o->pct) - 1e-6);
}

/* The most samples any objective needs; *which (may be NULL) gets its index. */
static uint64_t slo_samples(const pc_slo *slo, size_t *which)
{
    uint64_t most = 0;

    for (size_t i = 0; i < slo->n; i++)
        if (samples_needed(&slo->v[i]) > most) {
            most = samples_needed(&slo->v[i]);
            if (which)
                *which = i;
        }
    return most;
}

/* How long a step at rate lasts: -d, or long enough that the schedule
 * creates the samples the SLO needs (whole tenths of a second). */
static uint64_t step_duration(const pc_config *cfg, double rate)
{
    double need_s = (double)slo_samples(cfg->slo, NULL) / rate;
    uint64_t ns = (uint64_t)(ceil(need_s * 10 - 1e-9) * 1e8);

    return ns > cfg->duration_ns ? ns : cfg->duration_ns;
}

/* Latency columns in ms (one unit per column, rows printed as they come). */
static void fmt_lat(const hdr_hist *h, double p, char *buf, size_t cap)
{
    if (!h->total_count)
        snprintf(buf, cap, "-");
    else
        snprintf(buf, cap, "%.3f", (double)(p > 100 ? hdr_max(h) : hdr_value_at_percentile(h, p)) / 1e6);
}

static void print_row(FILE *f, size_t i, const step *s)
{
    char p50[32], p99[32], p999[32], max[32];

    fmt_lat(&s->latency, 50, p50, sizeof p50);
    fmt_lat(&s->latency, 99, p99, sizeof p99);
    fmt_lat(&s->latency, 99.9, p999, sizeof p999);
    fmt_lat(&s->latency, 101, max, sizeof max);
    fprintf(f, "%4zu  %12.2f  %12.2f  %10s  %10s  %10s  %10s  %8" PRIu64 "  %s\n", i + 1, s->rate,
            s->achieved, p50, p99, p999, max, s->errors,
            s->pass ? "PASS" : s->inconclusive ? "INCONCLUSIVE" : "FAIL");
    fflush(f);
}

static void print_head(FILE *f)
{
    fprintf(f, "%4s  %12s  %12s  %10s  %10s  %10s  %10s  %8s  %s\n", "Step", "Rate", "Achieved",
            "p50(ms)", "p99(ms)", "p99.9(ms)", "Max(ms)", "Errors", "SLO");
}

/* Under mpirun, rank 0 searches and the other ranks run each step it
 * orders (their share of it, merged as every run is): its time budget,
 * its signals and its view of each step decide for all. */
typedef struct order {
    int32_t run; /* 0: the search is over */
    double rate;
    uint64_t duration_ns;
} order;

/* Rank 0's order to the others (alone: nothing); -1 when it cannot be given. */
static int give_order(bool run, double rate, uint64_t duration_ns)
{
    order o = {.run = run, .rate = rate, .duration_ns = duration_ns};

    return wf_agree(&o, sizeof o, 0);
}

/* A rank other than 0: each step rank 0 orders, until it says the search
 * is over. Returns the exit code of this rank's own failure, if any. */
static int follow(const pc_config *cfg)
{
    int code = PC_EXIT_OK;

    for (;;) {
        order o = {0};
        pc_config c = *cfg;
        pc_results res;
        int rc;

        /* Rank 0 pauses between steps and prints the row first. */
        if (wf_agree(&o, sizeof o, cfg->wf.pause_ns) < 0)
            return PC_EXIT_RUNTIME;
        if (!o.run)
            return code;
        c.rate = o.rate;
        c.duration_ns = o.duration_ns;
        if ((rc = wf_run_once(&c, NULL, &res)) == PC_EXIT_OK)
            results_free(&res);
        else if (code == PC_EXIT_OK)
            code = rc;
    }
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
    bool decided_fail = false;

    c.rate = rate;
    c.duration_ns = step_duration(S->cfg, rate);
    memset(s, 0, sizeof *s);
    s->duration_ns = c.duration_ns;
    snprintf(label, sizeof label, "step %zu, %.2f req/s", S->n + 1, rate);
    if (give_order(true, rate, c.duration_ns) < 0) {
        *code = PC_EXIT_RUNTIME;
        return -1;
    }
    *code = wf_run_once(&c, label, &res);
    if (*code != PC_EXIT_OK)
        return -1;
    s->rate = rate;
    s->achieved = report_rate(&res);
    s->completed = res.st.completed;
    snprintf(s->why, sizeof s->why, "%s", res.st.why[PC_ERR_CONNECT][0] ? res.st.why[PC_ERR_CONNECT] : "no response");
    s->errors = stats_failed(&res.st);
    s->pass = slo_eval(S->cfg->slo, rate, &res, s->v);
    /* An objective short of samples decides nothing: the step fails on
     * the others, or else is inconclusive. */
    for (size_t i = 0; i < S->cfg->slo->n; i++) {
        const pc_objective *o = &S->cfg->slo->v[i];
        const hdr_hist *h = o->uncorrected ? &res.st.latency_u : &res.st.latency;
        uint64_t have = (uint64_t)h->total_count;

        if (have >= samples_needed(o)) {
            decided_fail = decided_fail || !s->v[i].pass;
        } else if (!s->inconclusive) {
            s->inconclusive = true;
            s->short_obj = i;
            s->short_have = have;
        }
    }
    if (decided_fail)
        s->inconclusive = false;
    if (s->inconclusive)
        s->pass = false;
    if (hdr_init(&s->latency, 1, STATS_LAT_HIGHEST, 3) < 0) {
        results_free(&res);
        *code = PC_EXIT_RUNTIME;
        return -1;
    }
    hdr_add(&s->latency, &res.st.latency);
    if ((mem = open_memstream(&buf, &len))) {
        pc_rundesc desc;

        wf_rundesc(&desc, &c);
        report_json(mem, &desc, &res, NULL);
        fclose(mem);
        s->json = buf;
    }
    S->signal = res.signal;
    results_free(&res);
    if (S->signal) {
        /* An interrupted step decides nothing and is not shown. */
        fprintf(S->text, "  (step %zu at %.2f req/s interrupted)\n", S->n + 1, rate);
        hdr_free(&s->latency);
        free(s->json);
        return -1;
    }
    print_row(S->text, S->n, s);
    if (s->duration_ns > S->cfg->duration_ns) {
        char d[32], d0[32];
        size_t w = 0;
        uint64_t need = slo_samples(S->cfg->slo, &w);

        units_fmt_time_us((double)s->duration_ns / 1e3, d, sizeof d);
        units_fmt_time_us((double)S->cfg->duration_ns / 1e3, d0, sizeof d0);
        fprintf(S->text, "      (step %zu ran %s, not -d %s: %s needs %" PRIu64
                         " latency samples)\n",
                S->n + 1, d, d0, S->cfg->slo->v[w].text, need);
    }
    if (s->inconclusive)
        fprintf(S->text, "      (step %zu is inconclusive: %s needs %" PRIu64
                         " latency samples, it had %" PRIu64 ")\n",
                S->n + 1, S->cfg->slo->v[s->short_obj].text,
                samples_needed(&S->cfg->slo->v[s->short_obj]), s->short_have);
    fflush(S->text);
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
    char d[32], longer[160] = "";
    size_t w = 0;
    uint64_t need = slo_samples(cfg->slo, &w);
    unsigned threads = cfg->threads * wf_processes();

    units_fmt_time_us((double)cfg->duration_ns / 1e3, d, sizeof d);
    if (need)
        snprintf(longer, sizeof longer, " (longer below %.2f req/s: %s needs %" PRIu64
                                        " latency samples)",
                 (double)need / ((double)cfg->duration_ns / 1e9), cfg->slo->v[w].text, need);
    snprintf(buf, cap,
             "steps of %s%s, %u thread%s, %u connection%s, from %.2f req/s (max %.2f), "
             "x2 then bisect to %.3g%%",
             d, longer, threads, threads == 1 ? "" : "s", cfg->connections,
             cfg->connections == 1 ? "" : "s", cfg->wf.start_rate, cfg->wf.max_rate,
             cfg->wf.precision * 100);
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
    char err[256], shape[512];

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
        char desc[2048];

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
        snprintf(err, sizeof err, "%.2f req/s %s", sorted[i]->rate,
                 sorted[i]->pass ? "PASS" : sorted[i]->inconclusive ? "INCONCLUSIVE" : "FAIL");
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
        json_w_kbool(&o.w, "inconclusive", s->inconclusive);
        json_w_key(&o.w, "objectives");
        report_json_objectives(&o.w, cfg->slo, s->v);
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
    char answer[2048], reason[512], shape[512], stop[384], *table = NULL;
    size_t table_len = 0;
    FILE *mem;
    const step *first_fail = NULL, *dead = NULL, *vague = NULL;

    if ((rc = wf_parse(PC_MODE_CAPACITY, argc, argv, &cfg)) >= 0)
        return rc;
    step_ns = cfg.warmup_ns + step_duration(&cfg, cfg.wf.start_rate);
    if (step_duration(&cfg, cfg.wf.start_rate) > cfg.duration_ns && step_ns > cfg.wf.max_time_ns) {
        char d[32], m[32];
        size_t w = 0;
        uint64_t need = slo_samples(cfg.slo, &w);

        units_fmt_time_us((double)step_ns / 1e3, d, sizeof d);
        units_fmt_time_us((double)cfg.wf.max_time_ns / 1e3, m, sizeof m);
        fprintf(stderr,
                "pacer: %s needs %" PRIu64 " latency samples a step: %s at --start-rate %.2f, "
                "more than --max-time %s (raise --start-rate or --max-time)\n",
                cfg.slo->v[w].text, need, d, cfg.wf.start_rate, m);
        cli_free(&cfg);
        return PC_EXIT_USAGE;
    }
    if (!wf_leader()) {
        wf_hold_signals();
        code = follow(&cfg);
        cli_free(&cfg);
        return code;
    }
    memset(&S, 0, sizeof S);
    S.cfg = &cfg;
    S.text = cli_text_stream(&cfg);
    wf_hold_signals();
    step_shape(&cfg, shape, sizeof shape);
    fprintf(S.text, "Capacity search @ %s\n  SLO %s; %s\n", cfg.url_text, cfg.slo->text, shape);
    print_head(S.text);

    /* Every step runs warm-up + duration, then drains for at most --timeout. */
    t0 = pc_now_ns();
    rate = cfg.wf.start_rate;
    for (;;) {
        step_ns = cfg.warmup_ns + step_duration(&cfg, rate);
        if (S.n == MAX_STEPS) {
            why_stop = "the step limit";
            break;
        }
        if (S.n && pc_now_ns() - t0 + cfg.wf.pause_ns + step_ns > cfg.wf.max_time_ns) {
            why_stop = "--max-time";
            break;
        }
        if (S.n && (S.signal = wf_pause(cfg.wf.pause_ns)))
            break;
        if (run_step(&S, rate, &code) < 0)
            break;
        if (S.steps[S.n - 1].completed == 0) {
            /* A target that does not answer has no capacity to find. */
            dead = &S.steps[S.n - 1];
            break;
        }
        if (S.steps[S.n - 1].inconclusive) {
            /* Too few samples to say either way: going on would guess. */
            const step *v = vague = &S.steps[S.n - 1];

            snprintf(stop, sizeof stop,
                     "an inconclusive step at %.2f req/s (%s needs %" PRIu64
                     " latency samples, it had %" PRIu64 ", %" PRIu64 " requests failed)",
                     v->rate, cfg.slo->v[v->short_obj].text,
                     samples_needed(&cfg.slo->v[v->short_obj]), v->short_have, v->errors);
            why_stop = stop;
            break;
        }
        if (S.steps[S.n - 1].pass) {
            lo = rate;
            if (hi == 0) {
                if (rate >= cfg.wf.max_rate) {
                    why_stop = "--max-rate";
                    break;
                }
                rate = fmin(rate * 2, cfg.wf.max_rate);
                continue;
            }
        } else {
            hi = rate;
            first_fail = &S.steps[S.n - 1];
            if (lo == 0)
                break; /* not even the start rate */
        }
        if ((hi - lo) / lo <= cfg.wf.precision)
            break;
        rate = midpoint(lo, hi);
    }
    if (give_order(false, 0, 0) < 0 && code == PC_EXIT_OK)
        code = PC_EXIT_RUNTIME;
    if (code != PC_EXIT_OK && !S.signal)
        goto out;
    /* The lowest failing rate explains the answer. */
    for (size_t i = 0; i < S.n; i++)
        if (!S.steps[i].pass && !S.steps[i].inconclusive &&
            (!first_fail || S.steps[i].rate <= first_fail->rate))
            first_fail = &S.steps[i];
    reason[0] = 0;
    if (first_fail)
        why_failed(cfg.slo, first_fail, reason, sizeof reason);
    if (dead)
        snprintf(answer, sizeof answer, "Capacity: unknown: no response at %.2f req/s (%s)",
                 dead->rate, dead->why);
    else if (lo == 0 && vague) {
        /* At the yield of samples this step had, the -d that would do. */
        double need = (double)samples_needed(&cfg.slo->v[vague->short_obj]);
        double d = vague->short_have ? (double)vague->duration_ns / 1e9 * need /
                                           (double)vague->short_have
                                     : 0;
        char dd[32];

        units_fmt_time_us(ceil(d * 10) * 1e5, dd, sizeof dd);
        snprintf(answer, sizeof answer, "Capacity: unknown: stopped by %s; try %s%s%s", stop,
                 d > 0 ? "-d " : "a longer -d", d > 0 ? dd : "", d > 0 ? " or longer" : "");
    }
    else if (lo == 0 && S.n)
        /* A lower rate helps a server that could not keep up; one that did
         * was slow for another reason. */
        snprintf(answer, sizeof answer, "Capacity: the SLO fails already at %.2f req/s (%s); %s",
                 S.steps[0].rate, reason,
                 S.steps[0].achieved < 0.99 * S.steps[0].rate
                     ? "try a lower --start-rate"
                 : cfg.warmup_ns ? "the server kept up with that rate, so its latency there is "
                                   "not from overload: a lower --start-rate is unlikely to help"
                                 : "the server kept up with that rate, so its latency there is "
                                   "not from overload: try --warmup (if the first requests were "
                                   "slow) rather than a lower --start-rate");
    else if (lo == 0)
        snprintf(answer, sizeof answer, "Capacity: unknown (stopped before the first step ended)");
    else if (hi == 0)
        snprintf(answer, sizeof answer, "Capacity: sustains at least %.2f req/s with %s (%s%s)", lo,
                 cfg.slo->text,
                 why_stop ? (strcmp(why_stop, "--max-rate") == 0 ? "reached --max-rate"
                                                                  : "search stopped by ")
                          : "search interrupted",
                 why_stop && strcmp(why_stop, "--max-rate") ? why_stop : "");
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
    if (cfg.out.json_path &&
        write_json(&S, cfg.out.json_path, lo, answer) < 0)
        code = PC_EXIT_RUNTIME;
    if (cfg.out.html_path && write_html(&S, cfg.out.html_path, table ? table : "", answer) < 0)
        code = PC_EXIT_RUNTIME;
    code = pc_exit_code(code, S.signal, dead != NULL, lo == 0);
out:
    for (size_t i = 0; i < S.n; i++) {
        hdr_free(&S.steps[i].latency);
        free(S.steps[i].json);
    }
    free(table);
    cli_free(&cfg);
    return code;
}
