/*
 * html_run.c - the run report as one HTML page (--html, `pacer report
 * --html`): what was run, the summary, the latency spectrum, the time
 * series, the connection set-up breakdown and the text report, built
 * with html.c. The numbers come from the same places as the text and JSON
 * reports (pc_stats, the interval series), so all three agree.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/sched.h"
#include "report/html.h"
#include "report/report.h"
#include "report/slo.h"
#include "report/stages.h"
#include "stats/hdr_codec.h"

#define CELL 200

/* A table being filled: up to ROWS rows of up to 7 cells. */
#define ROWS 24
#define COLS 7
typedef struct tbl {
    size_t ncols, nrows;
    char cell[ROWS][COLS][CELL];
    const char *ptr[ROWS * COLS];
} tbl;

/* Append a row: the cells' texts, then NULL. Cells past the first
 * t->ncols are ignored, missing ones are empty. */
static void row(tbl *t, ...)
{
    va_list ap;
    const char *s;
    size_t c = 0;

    if (t->nrows == ROWS)
        return;
    va_start(ap, t);
    while (c < t->ncols && (s = va_arg(ap, const char *)) != NULL)
        snprintf(t->cell[t->nrows][c++], CELL, "%s", s);
    va_end(ap);
    for (; c < t->ncols; c++)
        t->cell[t->nrows][c][0] = 0;
    t->nrows++;
}

static void table(html_doc *d, const char *caption, tbl *t)
{
    for (size_t r = 0; r < t->nrows; r++)
        for (size_t c = 0; c < t->ncols; c++)
            t->ptr[r * t->ncols + c] = t->cell[r][c];
    html_doc_table(d, caption, t->ncols, t->nrows, t->ptr);
}

static const char *u64(char *buf, uint64_t v)
{
    snprintf(buf, CELL, "%" PRIu64, v);
    return buf;
}

/* A latency in ms with 3 decimals, "-" when h is empty. p < 0: the max. */
static const char *ms(char *buf, const hdr_hist *h, double p)
{
    if (!h->total_count)
        snprintf(buf, CELL, "-");
    else
        snprintf(buf, CELL, "%.3f",
                 (double)(p < 0 ? hdr_max(h) : hdr_value_at_percentile(h, p)) / 1e6);
    return buf;
}

/* What was typed: the command line, or for `pacer report` the files
 * merged and the command lines recorded in them. */
static void command(html_doc *d, const pc_rundesc *run)
{
    tbl tb = {.ncols = 1}, *t = &tb;
    char *buf = NULL;
    size_t len = 0;
    FILE *m;

    if (run->cmdline) {
        html_doc_pre(d, run->cmdline);
        return;
    }
    if (!run->nsources)
        return;
    row(t, run->nsources > 1 ? "Files merged" : "File reported on", NULL);
    for (size_t i = 0; i < run->nsources; i++)
        row(t, run->sources[i], NULL);
    if (run->nsources > ROWS - 1) /* the header and ROWS - 2 files, then this */
        snprintf(t->cell[ROWS - 1][0], CELL, "... and %zu more", run->nsources - (ROWS - 2));
    table(d, NULL, t);
    if (!run->nsource_cmdlines) {
        html_doc_text(d, run->nsources > 1 ? "No command line is recorded in them."
                                           : "No command line is recorded in it.");
        return;
    }
    m = open_memstream(&buf, &len);
    for (size_t i = 0; m && i < run->nsource_cmdlines; i++)
        fprintf(m, "%s%s", i ? "\n" : "", run->source_cmdlines[i]);
    if (m && fclose(m) == 0) {
        html_doc_text(d, run->nsource_cmdlines > 1 ? "The command lines of the runs merged:"
                                                   : "The command line of the run:");
        html_doc_pre(d, buf);
    }
    free(buf);
}

/* With --slo: the verdict, then each objective against what was measured
 * (for errors, what was counted as failed). */
static void objectives(html_doc *d, const pc_rundesc *run, const pc_results *res)
{
    const pc_slo *slo = run->slo;
    pc_verdict v[SLO_MAX];
    tbl tb = {.ncols = 4}, *t = &tb;
    char counted[CELL];
    char line[160];
    size_t failed = 0;
    bool all;

    if (!slo || !slo->n)
        return;
    all = slo_eval(slo, run->rate, res, v);
    html_doc_heading(d, "Service-level objectives");
    for (size_t i = 0; i < slo->n; i++)
        failed += !v[i].pass;
    if (all)
        snprintf(line, sizeof line, "SLO PASSED: all %zu objectives met", slo->n);
    else
        snprintf(line, sizeof line, "SLO FAILED: %zu of %zu objectives not met", failed, slo->n);
    html_doc_verdict(d, all, line);
    row(t, "Objective", "Measured", "Verdict", "Counted as failed", NULL);
    for (size_t i = 0; i < slo->n && t->nrows < ROWS; i++) {
        counted[0] = 0;
        if (slo->v[i].metric == SLO_ERRORS && !v[i].none)
            slo_failed_parts(counted, sizeof counted, &slo->v[i], run->rate, &res->st);
        row(t, slo->v[i].text, v[i].shown, v[i].pass ? "PASS" : "FAIL", counted, NULL);
    }
    table(d, NULL, t);
}

/* Who limited the run, in a box of its own near the top, in the words of
 * the text report (report_verdict); nothing when it says nothing. */
static int verdict_box(html_doc *d, const pc_rundesc *run, const pc_results *res)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);

    if (!m)
        return -ENOMEM;
    report_verdict(m, run, res, "");
    if (fclose(m) != 0) {
        free(buf);
        return -ENOMEM;
    }
    if (len)
        html_doc_diagnosis(d, "Who limited this run", buf);
    free(buf);
    return 0;
}

/* What was run, in one paragraph. */
static void shape(html_doc *d, const pc_rundesc *run, const pc_results *res)
{
    char line[1024], when[64] = "";
    time_t t = (time_t)(res->start_wall_ns / 1000000000ull);
    struct tm tm;
    size_t n = 0;

    if (res->start_wall_ns && gmtime_r(&t, &tm))
        strftime(when, sizeof when, ", started %Y-%m-%dT%H:%M:%SZ", &tm);
    n += (size_t)snprintf(line + n, sizeof line - n, "%u threads, %u connections, ", run->threads,
                          run->connections);
    if (run->shape.n)
        n += (size_t)snprintf(line + n, sizeof line - n, "%u stages, %.2f requests/s on average",
                              run->shape.n, run->rate);
    else if (run->rate > 0)
        n += (size_t)snprintf(line + n, sizeof line - n, "constant rate %.2f requests/s",
                              run->rate);
    else
        n += (size_t)snprintf(line + n, sizeof line - n, "closed loop");
    if (run->shape.arrival == PC_ARRIVAL_POISSON && n < sizeof line)
        n += (size_t)snprintf(line + n, sizeof line - n, ", Poisson arrivals (--seed %" PRIu64 ")",
                              run->shape.seed);
    if (n < sizeof line)
        snprintf(line + n, sizeof line - n, ", %.2f s measured, protocol %s%s.",
                 (double)res->duration_ns / 1e9, report_protocol(&res->st), when);
    html_doc_text(d, line);
    if (res->warmup_ns) {
        snprintf(line, sizeof line, "A warm-up of %.2f s came first; its %" PRIu64
                 " requests are not counted here.", (double)res->warmup_ns / 1e9,
                 res->warmup_outcomes);
        html_doc_text(d, line);
    }
    if (res->signal) {
        snprintf(line, sizeof line, "Stopped early by %s.", pc_signal_name(res->signal));
        html_doc_text(d, line);
    }
}

/* A row of the latency table: label, samples, p50, p90, p99, p99.9, max (ms). */
static void lat_row(tbl *t, const char *label, const hdr_hist *h)
{
    char n[CELL], p50[CELL], p90[CELL], p99[CELL], p999[CELL], max[CELL];

    row(t, label, u64(n, (uint64_t)h->total_count), ms(p50, h, 50), ms(p90, h, 90), ms(p99, h, 99),
        ms(p999, h, 99.9), ms(max, h, -1), NULL);
}

static void summary(html_doc *d, const pc_rundesc *run, const pc_results *res)
{
    static const int order[] = {PC_ERR_TIMEOUT, PC_ERR_READ, PC_ERR_WRITE, PC_ERR_PROTOCOL,
                                PC_ERR_CONNECT};
    const pc_stats *st = &res->st;
    double secs = (double)res->duration_ns / 1e9;
    double rps = report_rate(res);
    char a[CELL], b[CELL];
    tbl tb = {.ncols = 3}, *t = &tb;

    row(t, "", "Value", "Note", NULL);
    row(t, "Requests scheduled", u64(a, st->scheduled),
        "completed + timed out + errors + never sent", NULL);
    row(t, "Completed", u64(a, st->completed), "responses, any status", NULL);
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        int k = order[i];

        row(t, pc_err_label(k), u64(a, k == PC_ERR_CONNECT ? st->connect_errors : st->err[k]),
            k == PC_ERR_CONNECT && !st->why[k][0] ? "failed connection attempts" : st->why[k],
            NULL);
    }
    row(t, "Never sent", u64(a, st->never_sent),
        "still queued when the run ended: never written to the server, no error from it",
        NULL);
    if (st->interrupted)
        row(t, "Interrupted", u64(a, st->interrupted), "in flight when the drain was cut short",
            NULL);
    row(t, "Non-2xx or 3xx responses", u64(a, st->non2xx), "", NULL);
    row(t, "Failed (all kinds)", u64(a, stats_failed(st)),
        "timed out + errors + never sent + interrupted + non-2xx/3xx: what --slo errors counts",
        NULL);
    snprintf(a, sizeof a, "%.2f", rps);
    if (run->rate > 0)
        snprintf(b, sizeof b, "requested %.2f requests/s (%.1f%% of it)", run->rate,
                 100.0 * rps / run->rate);
    else
        snprintf(b, sizeof b, "closed loop: as fast as the server answered");
    row(t, "Rate achieved (requests/s)", a, b, NULL);
    snprintf(a, sizeof a, "%.2f", secs > 0 ? (double)st->bytes_read / secs / 1048576.0 : 0);
    snprintf(b, sizeof b, "%" PRIu64 " bytes received (1 MB = 2^20 bytes, as Transfer/sec)",
             st->bytes_read);
    row(t, "Throughput (MB/s)", a, b, NULL);
    snprintf(a, sizeof a, "%.2f", secs);
    row(t, "Duration (s)", a, "the measured period", NULL);
    if (st->quic_conns) {
        snprintf(b, sizeof b, "%" PRIu64 " received; %" PRIu64 " of pacer's packets declared lost by its "
                 "QUIC stack (%.2f%% of sent; its own packets only, not the server's), %" PRIu64
                 " probe timeouts",
                 st->quic_recv, st->quic_lost,
                 st->quic_sent ? 100.0 * (double)st->quic_lost / (double)st->quic_sent : 0,
                 st->quic_pto);
        row(t, "QUIC datagrams sent", u64(a, st->quic_sent), b, NULL);
        if (st->quic_srtt.total_count) {
            snprintf(a, sizeof a, "%.3f", hdr_mean(&st->quic_srtt) / 1e6);
            snprintf(b, sizeof b, "mean of the connections' smoothed RTTs; min %.3f ms",
                     (double)hdr_min(&st->quic_min_rtt) / 1e6);
            row(t, "QUIC RTT (ms)", a, b, NULL);
        }
    }
    table(d, "Requests", t);

    t->nrows = 0;
    t->ncols = 7;
    row(t, "Latency (ms)", "Samples", "p50", "p90", "p99", "p99.9", "Max", NULL);
    lat_row(t, "Corrected (from the intended send time)", &st->latency);
    lat_row(t, st->wire_lag.total_count ? "Uncorrected (from the first byte sent: the kernel's stamp)"
                                        : "Uncorrected (from the first byte written)",
            &st->latency_u);
    if (st->send_lag.total_count)
        lat_row(t, "Send lag (pacer's own: first byte written - when it could be sent)", &st->send_lag);
    if (st->wire_lag.total_count)
        lat_row(t, "To the wire (the kernel's send stamp - first byte written)", &st->wire_lag);
    table(d, "Latency", t);
}

/* An interval's corrected p50, p99 and max in ms (NaN: no sample): from
 * the point's own numbers when it has them (a live run), else from its
 * histogram (points read back from JSON or an interval log). */
static void point_latency(const pc_point *p, double out[3])
{
    hdr_hist h;

    out[0] = out[1] = out[2] = NAN;
    if (p->max > 0) {
        out[0] = (double)p->p50 / 1e6;
        out[1] = (double)p->p99 / 1e6;
        out[2] = (double)p->max / 1e6;
    } else if (p->hist && hdrc_decode_base64(p->hist, strlen(p->hist), &h) == 0) {
        if (h.total_count) {
            out[0] = (double)hdr_value_at_percentile(&h, 50) / 1e6;
            out[1] = (double)hdr_value_at_percentile(&h, 99) / 1e6;
            out[2] = (double)hdr_max(&h) / 1e6;
        }
        hdr_free(&h);
    }
}

/* The errors chart, or one line when it would only draw zeros. */
static void errors_over_time(html_doc *d, const pc_rundesc *run, const pc_stats *st,
                             const pc_series *s, const double *x, double xend, double *v)
{
    const char *xl = "Time since start (s)";
    double *err = v, *tmo = v + s->n, *non2xx = v + 2 * s->n, *never = v + 3 * s->n;
    uint64_t any = 0, never_sum = 0;
    html_chart *c;
    char text[256];

    for (size_t i = 0; i < s->n; i++) {
        const pc_point *p = &s->v[i];

        err[i] = (double)p->errors;
        tmo[i] = (double)p->timeouts;
        non2xx[i] = (double)p->non2xx;
        never[i] = (double)p->never_sent;
        any |= p->errors | p->timeouts | p->non2xx;
        never_sum += p->never_sent;
    }
    if (!any) {
        uint64_t failed = stats_failed(st);

        if (!run->threads)
            snprintf(text, sizeof text, "Errors over time: not known (interval logs hold "
                                        "latency histograms only).");
        else if (!failed)
            snprintf(text, sizeof text, "No errors: 0 of %" PRIu64 " requests failed.",
                     st->scheduled);
        else
            snprintf(text, sizeof text, "No errors in any interval; %" PRIu64 " of %" PRIu64
                     " requests failed outside them (see Requests).", failed, st->scheduled);
        html_doc_text(d, text);
        return;
    }
    c = html_doc_chart(d, "Errors over time", xl, HTML_LINEAR, "Requests per interval",
                       HTML_LINEAR);
    html_chart_steps(c, "errors (all failures)", s->n, x, err, xend);
    html_chart_steps(c, "timeouts", s->n, x, tmo, xend);
    html_chart_steps(c, "non-2xx/3xx", s->n, x, non2xx, xend);
    /* Only where the points account for them (a series read back from a
     * file may not say which of its errors were never sent). */
    if (st->never_sent && never_sum == st->never_sent)
        html_chart_steps(c, "never sent (in the interval due)", s->n, x, never, xend);
}

/* The rate the schedule asked for, as a line over the measured period,
 * [0, run_s]: a point at each end of each stage (a step's start at the
 * previous stage's end, so a step is drawn as one, a ramp as a slope),
 * nothing after the end; without stages -R from 0 to the end. Scaled to
 * run->rate (merged runs add their rates). n points into x, y (room for
 * 2 * PC_MAX_STAGES + 2). */
static size_t target_line(const pc_rundesc *run, double run_s, double *x, double *y)
{
    const pc_shape *sh = &run->shape;
    double t0 = 0, scale = 1, lam;
    size_t n = 0;
    sched sc;

    if (!sh->n || !(run_s > 0)) {
        x[0] = 0, y[0] = run->rate;
        x[1] = run_s > 0 ? run_s : 0, y[1] = run->rate;
        return 2;
    }
    sched_init_run(&sc, 0, sh, run->rate, 1, 0);
    lam = sched_expected(&sc, run_s);
    if (lam > 0 && run->rate > 0)
        scale = run->rate / (lam / run_s);
    for (uint32_t i = 0; i < sh->n && t0 < run_s; i++) {
        double dur = (double)sh->stages[i].dur_ns / 1e9, t1 = t0 + dur;
        double a = sc.seg[i].a, b = sh->stages[i].rate;

        if (t1 > run_s) {
            b = a + (b - a) * (run_s - t0) / dur;
            t1 = run_s;
        }
        x[n] = t0, y[n++] = a * scale;
        x[n] = t1, y[n++] = b * scale;
        t0 = t1;
    }
    /* A run longer than its stages holds the last rate to its end. */
    if (t0 < run_s && n) {
        x[n] = run_s, y[n] = y[n - 1];
        n++;
    }
    return n;
}

/* Each --slo latency limit as a horizontal line on a latency chart: on the
 * chart over time (corrected objectives: p50..., mean, max) from x0 to x1,
 * or a stage's own from its start to its end; on the percentile spectrum
 * (corrected and uncorrected), a pN limit up to N, a max across. */
static void slo_lines(html_chart *c, const pc_rundesc *run, bool spectrum, double x0, double x1)
{
    const pc_slo *slo = run->slo;

    for (size_t i = 0; slo && i < slo->n; i++) {
        const pc_objective *o = &slo->v[i];
        double x[2] = {x0, x1}, y[2];
        char name[96];

        if (o->lag || (o->metric != SLO_PCT && o->metric != SLO_MEAN && o->metric != SLO_MAX_LAT))
            continue;
        if (spectrum ? o->metric == SLO_MEAN || o->stage : o->uncorrected)
            continue;
        if (spectrum && o->metric == SLO_PCT) {
            if (o->pct >= 100)
                continue;
            x[1] = o->pct;
        }
        if (!spectrum && o->stage) {
            if (o->stage > run->shape.n)
                continue;
            x[0] = stage_start_s(&run->shape, o->stage - 1);
            x[1] = fmin(x1, x[0] + (double)run->shape.stages[o->stage - 1].dur_ns / 1e9);
        }
        y[0] = y[1] = o->value / 1e6;
        snprintf(name, sizeof name, "SLO %s", o->text);
        html_chart_limit(c, name, 2, x, y);
    }
}

/* The last percentile the spectra of a and b draw (html_chart_spectrum
 * leaves the closing 100% step out); 99 when both are empty. */
static double spectrum_end(const hdr_hist *a, const hdr_hist *b)
{
    const hdr_hist *h[2] = {a, b};
    double end = 0;

    for (int k = 0; k < 2; k++) {
        hdr_pct_iter it;

        hdr_pct_iter_init(&it, h[k], 5);
        while (hdr_pct_iter_next(&it))
            if (!it.is_last && it.percentile < 100 && it.percentile > end)
                end = it.percentile;
    }
    return end > 0 ? end : 99;
}

/* The largest finite value of v (0 if none). */
static double peak(const double *v, size_t n)
{
    double m = 0;

    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i]) && v[i] > m)
            m = v[i];
    return m;
}

/* The server's CPU beside the latency (--server-pid, --server-metrics):
 * per interval, in % of one core, with the host's busy CPU when a
 * node-exporter was read; an interval without a reading is a gap. */
static int server_over_time(html_doc *d, const pc_results *res, const pc_series *s,
                            const double *x, double xend)
{
    const pc_server *sv = res->server;
    size_t n = s->n;
    double *cpu, *host;
    bool any_host = false;
    html_chart *c;

    if (!sv || !sv->niv)
        return 0;
    if (!(cpu = malloc(2 * n * sizeof *cpu)))
        return -ENOMEM;
    host = cpu + n;
    for (size_t i = 0; i < n; i++) {
        double len = s->v[i].length_s;
        const pc_srv_point *p = i < sv->niv ? &sv->iv[i] : NULL;

        cpu[i] = p && len > 0 ? 100.0 * p->cpu_s / len : NAN;
        host[i] = p && len > 0 ? 100.0 * p->host_busy_s / len : NAN;
        any_host |= isfinite(host[i]);
    }
    c = html_doc_chart(d, "Server CPU over time", "Time since start (s)", HTML_LINEAR,
                       "CPU (% of one core)", HTML_LINEAR);
    html_chart_steps(c, sv->source[0] ? sv->source : "server", n, x, cpu, xend);
    if (any_host)
        html_chart_steps(c, "host busy, all CPUs (node-exporter)", n, x, host, xend);
    if (isnan(sv->cpu_s) && sv->proc_why[0]) {
        char why[PC_SRV_WHY + 40];

        snprintf(why, sizeof why, "Server CPU not measured: %s", sv->proc_why);
        html_doc_text(d, why);
    }
    free(cpu);
    return 0;
}

static int over_time(html_doc *d, const pc_rundesc *run, const pc_results *res,
                     const pc_series *s)
{
    const char *xl = "Time since start (s)";
    html_chart *c;
    double *v;
    size_t n;

    html_doc_heading(d, "Over time");
    if (!s || s->n == 0) {
        html_doc_text(d, "No time series: the run delivered no interval.");
        return 0;
    }
    n = s->n;
    v = malloc((10 * n + 4 * PC_MAX_STAGES + 4) * sizeof *v);
    if (!v)
        return -ENOMEM;
    {
        double *x = v, *p50 = v + n, *p99 = v + 2 * n, *max = v + 3 * n;
        double *rate = v + 4 * n, *rest = v + 6 * n;
        double *tx = v + 10 * n, *ty = tx + 2 * PC_MAX_STAGES + 2;
        double run_s = (double)res->duration_ns / 1e9;
        size_t tn = target_line(run, run_s, tx, ty);
        /* Each interval's figures are drawn flat across it, to its end;
         * not past the measured period (what came in after an open-loop
         * schedule ended is a point of its own at the end). */
        double xend = fmin(s->v[n - 1].start_s - s->v[0].start_s + s->v[n - 1].length_s,
                           fmax(run_s, s->v[n - 1].start_s - s->v[0].start_s));
        char text[160];

        for (size_t i = 0; i < n; i++) {
            const pc_point *p = &s->v[i];
            double lat[3];

            point_latency(p, lat);
            x[i] = p->start_s - s->v[0].start_s;
            p50[i] = lat[0];
            p99[i] = lat[1];
            max[i] = lat[2];
            rate[i] = p->length_s > 0 ? (double)p->completed / p->length_s : NAN;
        }
        snprintf(text, sizeof text,
                 "%zu intervals of %.3g s; each point is an interval, placed at its start "
                 "and drawn flat across it.", n,
                 s->interval_s);
        html_doc_text(d, text);
        c = html_doc_chart(d, "Latency over time (corrected)", xl, HTML_LINEAR, "Latency (ms)",
                           HTML_LOG);
        html_chart_steps(c, "p50", n, x, p50, xend);
        html_chart_steps(c, "p99", n, x, p99, xend);
        html_chart_steps(c, "max", n, x, max, xend);
        slo_lines(c, run, false, 0, fmax(run_s, x[n - 1]));
        report_html_stage_marks(c, run, peak(p50, n) / 10, peak(max, n));
        if (server_over_time(d, res, s, x, xend) < 0) {
            free(v);
            return -ENOMEM;
        }
        c = html_doc_chart(d, "Throughput", xl, HTML_LINEAR, "Responses per second",
                           HTML_LINEAR);
        html_chart_steps(c, "completed/s", n, x, rate, xend);
        if (run->rate > 0)
            html_chart_reference(c, !run->shape.n            ? "requested (-R)"
                                    : run->shape.ramp_over_d ? "requested (-R A..B)"
                                                             : "requested (--stages)",
                                 tn, tx, ty);
        report_html_stage_marks(c, run, 0,
                                fmax(peak(rate, n), run->rate > 0 ? peak(ty, tn) : 0));
        errors_over_time(d, run, &res->st, s, x, xend, rest);
    }
    free(v);
    return 0;
}

static void breakdown(html_doc *d, const pc_stats *st)
{
    static const char *const names[] = {"connect (per connection)",
                                        "TLS handshake (per connection)",
                                        "first byte (per request)"};
    static const char *const short_names[] = {"connect", "TLS handshake", "first byte"};
    const hdr_hist *h[] = {&st->connect, &st->tls, &st->ttfb};
    char a[CELL], b[CELL], c[CELL], e[CELL], f[CELL];
    tbl tb = {.ncols = 6}, *t = &tb;
    html_chart *ch;

    html_doc_heading(d, "Connection set-up and first byte");
    row(t, "Time (ms)", "Samples", "p50", "p90", "p99", "Max", NULL);
    for (size_t i = 0; i < 3; i++)
        row(t, names[i], u64(a, (uint64_t)h[i]->total_count), ms(b, h[i], 50), ms(c, h[i], 90),
            ms(e, h[i], 99), ms(f, h[i], -1), NULL);
    html_doc_text(d, "Connect: the TCP (or Unix) connect; TLS: the handshake; first byte: first "
                     "byte of the request written to first byte of the response.");
    table(d, "Set-up and first byte", t);
    ch = html_doc_chart(d, "Connect, TLS and first-byte percentiles", "Percentile",
                        HTML_PERCENTILE, "Time (ms)", HTML_LOG);
    for (size_t i = 0; i < 3; i++)
        if (h[i]->total_count)
            html_chart_spectrum(ch, short_names[i], h[i], 1e6);
}

/* The text report, as printed, in a <pre>. */
static int text_report(html_doc *d, const pc_rundesc *run, const pc_results *res)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);

    if (!m)
        return -ENOMEM;
    if (run->threads)
        report_wrk_header(m, run);
    report_wrk(m, run, res);
    if (fclose(m) != 0) {
        free(buf);
        return -ENOMEM;
    }
    html_doc_heading(d, "Text report");
    html_doc_pre(d, buf);
    free(buf);
    return 0;
}

int report_html(FILE *f, const pc_rundesc *run, const pc_results *res, const pc_series *series)
{
    const pc_stats *st = &res->st;
    char title[512];
    html_chart *c;
    html_doc *d;
    int rc;

    snprintf(title, sizeof title, "pacer: %s", run->url_text ? run->url_text : "run");
    d = html_doc_new(title);
    if (!d)
        return -ENOMEM;
    command(d, run);
    shape(d, run, res);
    rc = verdict_box(d, run, res);
    objectives(d, run, res);
    html_doc_heading(d, "Summary");
    summary(d, run, res);

    html_doc_heading(d, "Latency percentile spectrum");
    html_doc_text(d, "Corrected latency counts from each request's intended send time, so a "
                     "stalled server shows; uncorrected counts from the first byte written.");
    c = html_doc_chart(d, "Latency by percentile", "Percentile", HTML_PERCENTILE,
                       "Latency (ms)", HTML_LOG);
    html_chart_spectrum(c, "corrected", &st->latency, 1e6);
    html_chart_spectrum(c, "uncorrected", &st->latency_u, 1e6);
    slo_lines(c, run, true, 0, spectrum_end(&st->latency, &st->latency_u));

    report_html_stages(d, run, res);
    if (rc == 0)
        rc = over_time(d, run, res, series);
    breakdown(d, st);
    if (rc == 0)
        rc = text_report(d, run, res);
    if (rc == 0)
        rc = html_doc_write(d, f);
    html_doc_free(d);
    return rc;
}
