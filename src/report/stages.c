/*
 * stages.c - a load shape in the reports: the schedule's line and one row
 * per stage in the wrk layout, the shape and each stage (with its own
 * encoded histogram) in the JSON result, and reading them back for
 * `pacer report`, which merges stages across runs and machines.
 *
 * A request belongs to the stage its intended send time falls in, however
 * late it was answered: a stage's latency is that of the load it offered.
 */
#include "report/stages.h"
#include "report/json_out.h"
#include "report/html.h"

#include <errno.h>
#include <math.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "stats/hdr_codec.h"
#include "util/units.h"

static const double pct_vals[] = {50, 90, 99, 99.9, 100};

double stage_from_rate(const pc_shape *sh, uint32_t i)
{
    if (sh->stages[i].step)
        return sh->stages[i].rate;
    return i ? sh->stages[i - 1].rate : sh->start_rate;
}

double stage_start_s(const pc_shape *sh, uint32_t i)
{
    uint64_t t = 0;

    for (uint32_t j = 0; j < i; j++)
        t += sh->stages[j].dur_ns;
    return (double)t / 1e9;
}

/* How long stage i ran: its duration, cut by the run's end. */
static double stage_ran_s(const pc_shape *sh, uint32_t i, double run_s)
{
    double from = stage_start_s(sh, i), to = from + (double)sh->stages[i].dur_ns / 1e9;

    if (to > run_s)
        to = run_s;
    return to > from ? to - from : 0;
}

/* The mean rate stage i asks for over the part that ran. */
static double stage_target(const pc_shape *sh, uint32_t i, double ran_s)
{
    double a = stage_from_rate(sh, i), b = sh->stages[i].rate;
    double d = (double)sh->stages[i].dur_ns / 1e9;

    if (ran_s <= 0)
        return a;
    return a + (b - a) / d * ran_s / 2;
}

/* Stage targets are the shape's, which is the whole run's: when merged
 * runs add their rates (`pacer report`), the targets add the same way. */
static double target_scale(const pc_rundesc *run)
{
    const pc_shape *sh = &run->shape;
    double run_s = (double)run->duration_ns / 1e9, sum = 0;

    for (uint32_t i = 0; i < sh->n; i++) {
        double ran = stage_ran_s(sh, i, run_s);

        sum += stage_target(sh, i, ran) * ran;
    }
    return sum > 0 && run->rate > 0 && run_s > 0 ? run->rate / (sum / run_s) : 1;
}

static double pct_us(const hdr_hist *h, double p)
{
    return h->total_count ? (double)hdr_value_at_percentile(h, p) / 1000.0 : 0;
}

static uint64_t stage_failed(const pc_stage_stats *g)
{
    return g->errors + g->never_sent + g->interrupted + g->non2xx;
}

static uint64_t stage_outcomes(const pc_stage_stats *g)
{
    return g->completed + g->errors + g->never_sent + g->interrupted;
}

/* The part of [from, from + dur) s that ran (of run_s). */
static double overlap_s(double from, double dur, double run_s)
{
    double to = from + dur < run_s ? from + dur : run_s;

    return to > from ? to - from : 0;
}

/* The mean rate of a linear a..b over dur s, over its first ran s. */
static double mean_rate(double a, double b, double dur, double ran)
{
    return ran > 0 && dur > 0 ? a + (b - a) / dur * ran / 2 : a;
}

size_t report_stage_rows(const pc_rundesc *run, const pc_results *res, report_stage_row *rows,
                         size_t cap)
{
    const pc_shape *sh = &run->shape;
    const pc_stats *st = &res->st;
    double run_s = (double)res->duration_ns / 1e9, scale = target_scale(run);
    bool steps = st->steps && st->nsteps == pc_shape_steps(sh);
    size_t n = 0;
    uint32_t base = 0;

    if (!sh->n || !st->stages || st->nstages != sh->n)
        return 0;
    for (uint32_t i = 0; i < sh->n; i++) {
        double a = stage_from_rate(sh, i), b = sh->stages[i].rate;
        double t0 = stage_start_s(sh, i), d = (double)sh->stages[i].dur_ns / 1e9;
        bool ramp = pc_stage_ramps(sh, i);

        for (uint32_t p = 0; p <= (ramp && steps ? PC_RAMP_STEPS : 0); p++) {
            report_stage_row r = {.stage = i + 1, .step = p};

            if (p == 0) {
                r.start_s = t0, r.dur_s = d, r.from_rate = a, r.rate = b;
                r.g = &st->stages[i];
            } else {
                r.start_s = t0 + d * (p - 1) / PC_RAMP_STEPS;
                r.dur_s = d / PC_RAMP_STEPS;
                r.from_rate = a + (b - a) * (p - 1) / PC_RAMP_STEPS;
                r.rate = a + (b - a) * p / PC_RAMP_STEPS;
                r.g = &st->steps[base + p - 1];
            }
            r.ran_s = overlap_s(r.start_s, r.dur_s, run_s);
            r.target = mean_rate(r.from_rate, r.rate, r.dur_s, r.ran_s) * scale;
            r.achieved = r.ran_s > 0 ? (double)r.g->completed / r.ran_s : 0;
            if (n < cap)
                rows[n] = r;
            n++;
        }
        base += ramp ? PC_RAMP_STEPS : 0;
    }
    return n;
}

void report_stages(FILE *f, const pc_rundesc *run, const pc_results *res, const char *indent)
{
    const pc_shape *sh = &run->shape;
    static report_stage_row rows[REPORT_STAGE_ROWS_MAX];
    size_t n;

    if (sh->arrival == PC_ARRIVAL_POISSON)
        fprintf(f, "%sArrivals: Poisson, seed %" PRIu64 " (--seed %" PRIu64 " repeats the schedule)\n",
                indent, sh->seed, sh->seed);
    n = report_stage_rows(run, res, rows, REPORT_STAGE_ROWS_MAX);
    if (!n)
        return;
    fprintf(f, "%sStages (by intended send time): rates in req/s, latency corrected%s\n", indent,
            n > sh->n ? "; a ramp in rows of a tenth of it (1.1 .. 1.10)" : "");
    fprintf(f, "%s%5s %9s %15s %9s %9s %9s %9s %9s %9s %9s %8s\n", indent, "Stage", "Duration", "Rate",
            "Target", "Achieved", "p50", "p90", "p99", "p99.9", "Max", "Errors");
    for (size_t k = 0; k < n; k++) {
        const report_stage_row *r = &rows[k];
        char rate[40], dur[32], name[16];

        if (r->from_rate == r->rate)
            snprintf(rate, sizeof rate, "%.6g", r->rate);
        else
            snprintf(rate, sizeof rate, "%.6g..%.6g", r->from_rate, r->rate);
        snprintf(dur, sizeof dur, "%.2fs", r->dur_s);
        if (r->step)
            snprintf(name, sizeof name, "%u.%u", r->stage, r->step);
        else
            snprintf(name, sizeof name, "%u", r->stage);
        fprintf(f, "%s%5s %9s %15s %9.2f %9.2f", indent, name, dur, rate, r->target, r->achieved);
        for (size_t p = 0; p < sizeof pct_vals / sizeof pct_vals[0]; p++) {
            char b[32];

            units_fmt_time_us(pct_us(&r->g->latency, pct_vals[p]), b, sizeof b);
            fprintf(f, " %9s", b);
        }
        fprintf(f, " %8" PRIu64 "\n", stage_failed(r->g));
    }
}

void report_json_shape(json_w *w, const pc_rundesc *run)
{
    const pc_shape *sh = &run->shape;

    json_w_kstr(w, "arrival", sh->arrival == PC_ARRIVAL_POISSON ? "poisson" : "constant");
    json_w_key(w, "seed");
    if (sh->arrival == PC_ARRIVAL_POISSON)
        json_w_uint(w, sh->seed);
    else
        json_w_null(w);
    json_w_key(w, "stages");
    json_w_arr_begin(w);
    for (uint32_t i = 0; i < sh->n; i++) {
        json_w_obj_begin(w);
        json_w_kdouble(w, "duration_s", (double)sh->stages[i].dur_ns / 1e9);
        json_w_kdouble(w, "from_rate", stage_from_rate(sh, i));
        json_w_kdouble(w, "rate", sh->stages[i].rate);
        json_w_kbool(w, "step", sh->stages[i].step);
        json_w_obj_end(w);
    }
    json_w_arr_end(w);
}

/* A row's figures (the keys every stage and step has). */
static void json_row(json_w *w, const report_stage_row *r)
{
    json_w_kdouble(w, "start_s", r->start_s);
    json_w_kdouble(w, "duration_s", r->dur_s);
    json_w_kdouble(w, "ran_s", r->ran_s);
    json_w_kdouble(w, "from_rate", r->from_rate);
    json_w_kdouble(w, "rate", r->rate);
}

static void json_row_figures(json_w *w, const report_stage_row *r)
{
    const pc_stage_stats *g = r->g;

    json_w_kdouble(w, "target_rate", r->target);
    json_w_kdouble(w, "achieved", r->achieved);
    json_w_kuint(w, "requests", stage_outcomes(g));
    json_w_kuint(w, "completed", g->completed);
    json_w_kuint(w, "non2xx", g->non2xx);
    json_w_kuint(w, "errors", g->errors);
    json_w_kuint(w, "never_sent", g->never_sent);
    json_w_kuint(w, "interrupted", g->interrupted);
    json_w_kuint(w, "failed", stage_failed(g));
    report_json_hist(w, "latency", &g->latency);
    report_json_hist(w, "latency_uncorrected", &g->latency_u);
    report_json_hist(w, "send_lag", &g->send_lag);
}

void report_json_stages(json_w *w, const pc_rundesc *run, const pc_results *res)
{
    static report_stage_row rows[REPORT_STAGE_ROWS_MAX];
    size_t n = report_stage_rows(run, res, rows, REPORT_STAGE_ROWS_MAX);

    if (!n)
        return;
    json_w_key(w, "stages");
    json_w_arr_begin(w);
    for (size_t k = 0; k < n;) {
        const report_stage_row *r = &rows[k++];

        json_w_obj_begin(w);
        json_w_kuint(w, "stage", r->stage);
        json_row(w, r);
        json_w_kbool(w, "step", run->shape.stages[r->stage - 1].step);
        json_row_figures(w, r);
        if (k < n && rows[k].step) {
            json_w_key(w, "steps");
            json_w_arr_begin(w);
            for (; k < n && rows[k].step; k++) {
                json_w_obj_begin(w);
                json_w_kuint(w, "step", rows[k].step);
                json_row(w, &rows[k]);
                json_row_figures(w, &rows[k]);
                json_w_obj_end(w);
            }
            json_w_arr_end(w);
        }
        json_w_obj_end(w);
    }
    json_w_arr_end(w);
}

static uint64_t ju(const json_val *o, const char *key)
{
    uint64_t v = 0;

    json_uint64(json_get(o, key), &v);
    return v;
}

/* The encoded histogram at key of o added into h (none: nothing). 0 or -1. */
static int hist_load(const json_val *o, const char *key, hdr_hist *h)
{
    const char *b64 = json_str(json_get(json_get(o, key), "histogram"));
    hdr_hist v;

    if (!b64)
        return 0;
    if (hdrc_decode_base64(b64, strlen(b64), &v) < 0)
        return -1;
    hdr_add(h, &v);
    hdr_free(&v);
    return 0;
}

/* One stage's or step's figures. 0, or -1: an invalid histogram. */
static int row_load(const json_val *e, pc_stage_stats *g)
{
    g->completed = ju(e, "completed");
    g->non2xx = ju(e, "non2xx");
    g->errors = ju(e, "errors");
    g->never_sent = ju(e, "never_sent");
    g->interrupted = ju(e, "interrupted");
    return hist_load(e, "latency", &g->latency) < 0 ||
                   hist_load(e, "latency_uncorrected", &g->latency_u) < 0 ||
                   hist_load(e, "send_lag", &g->send_lag) < 0
               ? -1
               : 0;
}

int report_stages_load(const json_val *root, pc_shape *sh, pc_stats *st, char *err,
                       size_t errlen)
{
    const json_val *plan = json_path(root, "config.stages"), *got = json_get(root, "stages");
    const char *s = json_str(json_path(root, "config.arrival"));
    size_t n = json_len(plan);
    uint64_t seed;
    uint32_t base = 0;
    bool steps = true;

    memset(sh, 0, sizeof *sh);
    sh->arrival = s && strcmp(s, "poisson") == 0 ? PC_ARRIVAL_POISSON : PC_ARRIVAL_CONSTANT;
    if (json_uint64(json_path(root, "config.seed"), &seed)) {
        sh->seed = seed;
        sh->seed_set = true;
    }
    if (n > PC_MAX_STAGES || (got && json_len(got) != n)) {
        snprintf(err, errlen, "its stages do not match config.stages");
        return -EINVAL;
    }
    for (size_t i = 0; i < n; i++) {
        const json_val *e = json_at(plan, i);

        sh->stages[i].dur_ns = (uint64_t)(json_num(json_get(e, "duration_s")) * 1e9 + 0.5);
        sh->stages[i].rate = json_num(json_get(e, "rate"));
        sh->stages[i].step = json_bool(json_get(e, "step"));
        if (i == 0)
            sh->start_rate = json_num(json_get(e, "from_rate"));
    }
    sh->n = (uint32_t)n;
    if (!n || !got)
        return 0;
    /* Ramp rows when every ramp stage has its PC_RAMP_STEPS of them (a
     * file from before them has none: its stage rows are all there is). */
    for (size_t i = 0; i < n; i++)
        if (pc_stage_ramps(sh, (uint32_t)i) &&
            json_len(json_get(json_at(got, i), "steps")) != PC_RAMP_STEPS)
            steps = false;
    if (stats_init_stages(st, sh->n, steps ? pc_shape_steps(sh) : 0) < 0) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        const json_val *e = json_at(got, i);

        if (row_load(e, &st->stages[i]) < 0) {
            snprintf(err, errlen, "invalid histogram in stage %zu", i + 1);
            return -EINVAL;
        }
        if (!steps || !pc_stage_ramps(sh, (uint32_t)i))
            continue;
        for (size_t p = 0; p < PC_RAMP_STEPS; p++, base++)
            if (row_load(json_at(json_get(e, "steps"), p), &st->steps[base]) < 0) {
                snprintf(err, errlen, "invalid histogram in stage %zu step %zu", i + 1, p + 1);
                return -EINVAL;
            }
    }
    return 0;
}

bool report_stages_same(const pc_shape *a, const pc_shape *b)
{
    if (a->n != b->n || a->start_rate != b->start_rate)
        return false;
    for (uint32_t i = 0; i < a->n; i++)
        if (a->stages[i].dur_ns != b->stages[i].dur_ns || a->stages[i].rate != b->stages[i].rate ||
            a->stages[i].step != b->stages[i].step)
            return false;
    return true;
}

/* ---- the HTML page ------------------------------------------------------ */

/* Requests the shape asks for in its first t seconds. */
static double shape_lambda(const pc_shape *sh, double t)
{
    double sum = 0;

    for (uint32_t i = 0; i < sh->n && t > 0; i++) {
        double d = (double)sh->stages[i].dur_ns / 1e9, a = stage_from_rate(sh, i);
        double tau = t < d ? t : d;

        sum += a * tau + (sh->stages[i].rate - a) / d * tau * tau / 2;
        t -= tau;
    }
    return sum;
}

double report_shape_rate(const pc_rundesc *run, double from_s, double to_s)
{
    if (!run->shape.n || !(to_s > from_s))
        return run->rate;
    return (shape_lambda(&run->shape, to_s) - shape_lambda(&run->shape, from_s)) /
           (to_s - from_s) * target_scale(run);
}

void report_html_stage_marks(html_chart *c, const pc_rundesc *run, double lo, double hi)
{
    const pc_shape *sh = &run->shape;
    double x[3 * PC_MAX_STAGES], y[3 * PC_MAX_STAGES];
    size_t n = 0;

    if (sh->n < 2)
        return;
    /* One dashed line per stage boundary, broken between them. */
    for (uint32_t i = 1; i < sh->n; i++) {
        double b = stage_start_s(sh, i);

        x[n] = b, y[n++] = lo;
        x[n] = b, y[n++] = hi;
        x[n] = NAN, y[n++] = NAN;
    }
    html_chart_reference(c, "stage starts", n, x, y);
}

void report_html_stages(html_doc *d, const pc_rundesc *run, const pc_results *res)
{
    static const char *const head[] = {"Stage", "Duration", "Rate",  "Target", "Achieved",
                                       "p50",   "p99",      "p99.9", "Max",    "Errors"};
    enum { NC = sizeof head / sizeof head[0] };
    static report_stage_row rows[REPORT_STAGE_ROWS_MAX];
    static char cells[REPORT_STAGE_ROWS_MAX][NC][48];
    static const char *ptr[(REPORT_STAGE_ROWS_MAX + 1) * NC];
    size_t n = report_stage_rows(run, res, rows, REPORT_STAGE_ROWS_MAX);

    if (!n)
        return;
    html_doc_heading(d, "Stages");
    html_doc_text(d, n > run->shape.n
                         ? "Each request counts in the stage its intended send time falls in; "
                           "latency is corrected. Target is the mean rate the stage asked for. "
                           "A ramp is also shown in rows of a tenth of it (1.1 .. 1.10), where "
                           "its knee can be read."
                         : "Each request counts in the stage its intended send time falls in; "
                           "latency is corrected. Target is the mean rate the stage asked for.");
    for (size_t c = 0; c < NC; c++)
        ptr[c] = head[c];
    for (size_t k = 0; k < n; k++) {
        const report_stage_row *w = &rows[k];
        const double ps[] = {50, 99, 99.9, 100};
        char (*r)[48] = cells[k];

        if (w->step)
            snprintf(r[0], 48, "%u.%u", w->stage, w->step);
        else
            snprintf(r[0], 48, "%u", w->stage);
        snprintf(r[1], 48, "%.2fs", w->dur_s);
        if (w->from_rate == w->rate)
            snprintf(r[2], 48, "%.6g", w->rate);
        else
            snprintf(r[2], 48, "%.6g..%.6g", w->from_rate, w->rate);
        snprintf(r[3], 48, "%.2f", w->target);
        snprintf(r[4], 48, "%.2f", w->achieved);
        for (size_t p = 0; p < 4; p++)
            units_fmt_time_us(pct_us(&w->g->latency, ps[p]), r[5 + p], 48);
        snprintf(r[9], 48, "%" PRIu64, stage_failed(w->g));
        for (size_t c = 0; c < NC; c++)
            ptr[(k + 1) * NC + c] = r[c];
    }
    html_doc_table(d, "Stages", NC, n + 1, ptr);
}
