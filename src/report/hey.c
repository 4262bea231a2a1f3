/*
 * hey.c - hey's report layout (--format hey, `pacer hey`) and its -o csv
 * rows, from pacer's measurements.
 *
 * The layout is hey's (rakyll/hey requester/print.go) byte for byte: the
 * same headings, tabs, "%4.4f secs" numbers, the eleven-bucket histogram
 * with bars of at most 40 squares, the 10% .. 99% distribution, the blank
 * lines. The numbers are pacer's, and where hey measures something pacer
 * does not, the line says "not measured" instead of printing a number:
 *
 *   Slowest, Fastest, Average, the histogram and the distribution: the
 *     latency from each request's intended send time (pacer's corrected
 *     latency; in a closed loop, as hey runs without -q, that is from the
 *     moment the request could be sent, as hey's). Timed-out requests are in
 *     it at the latency they had reached; hey leaves failures out.
 *   Requests/sec: requests finished (responses and errors, as hey counts
 *     them) per second of the measured period.
 *   Total data, Size/request: response body bytes (hey: Content-Length).
 *   DNS+dialup: connect (+ TLS handshake) per request, 0 on a reused
 *     connection, as hey's; pacer resolves the name once, before the run.
 *   DNS-lookup, req write: not measured (the second is inside resp wait:
 *     pacer's wait starts at the request's first byte written).
 *   resp wait: first byte written to first byte of the response.
 *   resp read: first byte of the response to its last.
 *
 * hey's "(average, fastest, slowest)" columns are printed in that order
 * (hey 0.1.4 printed the total's fastest and slowest on DNS+dialup; fixed
 * upstream). pacer's own lines (outcomes, notes) follow hey's layout.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/units.h"
#include "report/server_cost.h"
#include "report/report.h"
#include "report/stages.h"

#define NS_PER_S 1e9

/* hey's formatNumber: "%4.4f". */
static void secs(FILE *f, double ns)
{
    fprintf(f, "%4.4f", ns / NS_PER_S);
}

/* A Details line: average, fastest, slowest of h. */
static void detail(FILE *f, const char *label, const hdr_hist *h)
{
    if (h->total_count <= 0) {
        fprintf(f, "  %s:\t NaN secs,  NaN secs,  NaN secs\n", label); /* nothing measured */
        return;
    }
    fprintf(f, "  %s:\t", label);
    secs(f, hdr_mean(h));
    fputs(" secs, ", f);
    secs(f, (double)hdr_min(h));
    fputs(" secs, ", f);
    secs(f, (double)hdr_max(h));
    fputs(" secs\n", f);
}

/* hey's histogram: 11 marks from fastest to slowest, each counting the
 * values above the previous mark and up to it, bars scaled to the largest
 * count (40 squares). A slot of the HdrHistogram counts at its median
 * equivalent value, the slots of the fastest and the slowest at the first
 * and the last mark. */
static void histogram(FILE *f, const hdr_hist *h)
{
    enum { BC = 10 };
    double lo = (double)hdr_min(h), hi = (double)hdr_max(h), mark[BC + 1];
    int64_t count[BC + 1] = {0}, max = 0;

    if (h->total_count <= 0)
        return;
    for (int i = 0; i < BC; i++)
        mark[i] = lo + (hi - lo) / BC * i;
    mark[BC] = hi;
    for (int32_t i = 0; i < h->counts_len; i++) {
        double v;
        int b = 0;

        if (!h->counts[i])
            continue;
        if (i == hdr_counts_index(h, h->min_value))
            v = lo; /* the fastest: the first mark, as in hey */
        else if (i == hdr_counts_index(h, h->max_value))
            v = hi;
        else
            v = (double)hdr_median_equivalent(h, hdr_value_at_index(h, i));
        v = v < lo ? lo : v > hi ? hi : v;
        while (b < BC && v > mark[b])
            b++;
        count[b] += h->counts[i];
    }
    for (int i = 0; i <= BC; i++)
        max = count[i] > max ? count[i] : max;
    for (int i = 0; i <= BC; i++) {
        int64_t bar = max ? (count[i] * 40 + max / 2) / max : 0;

        fprintf(f, "  %4.3f [%" PRId64 "]\t|", mark[i] / NS_PER_S, count[i]);
        while (bar-- > 0)
            fputs("\xe2\x96\xa0", f); /* U+25A0, hey's barChar */
        fputc('\n', f);
    }
}

/* hey's Error distribution: "[count]\tmessage", one per cause. */
static void errors(FILE *f, const pc_stats *st)
{
    bool any = st->never_sent || st->interrupted;

    for (int k = 0; k < PC_ERR_KINDS; k++)
        any = any || st->err[k] || (k == PC_ERR_CONNECT && st->connect_errors);
    if (!any)
        return;
    fputs("Error distribution:", f);
    for (int k = 0; k < PC_ERR_KINDS; k++) {
        uint64_t n = k == PC_ERR_CONNECT ? st->connect_errors : st->err[k];

        if (n)
            fprintf(f, "\n  [%" PRIu64 "]\t%s%s%s%s", n, pc_err_name(k),
                    k == PC_ERR_CONNECT ? " (attempts)" : "", st->why[k][0] ? ": " : "",
                    st->why[k]);
    }
    if (st->never_sent)
        fprintf(f, "\n  [%" PRIu64 "]\tnever sent: no connection was free when the run stopped",
                st->never_sent);
    if (st->interrupted)
        fprintf(f, "\n  [%" PRIu64 "]\tinterrupted: in flight when the drain was cut short",
                st->interrupted);
}

/* pacer's lines after hey's layout. */
static void pacer_lines(FILE *f, const pc_rundesc *run, const pc_results *res)
{
    const pc_stats *st = &res->st;
    uint64_t redirects = 0;

    report_outcomes(f, st, "pacer: outcomes: ");
    fprintf(f, "; %" PRIu64 " connections opened (%s)\n", st->connects, report_protocol(st));
    if (st->lower_bound)
        fprintf(f,
                "pacer: latency includes %" PRIu64
                " timed-out or never-sent requests at the latency they had reached (a lower "
                "bound)\n",
                st->lower_bound);
    if (run->rate > 0 && st->latency_u.total_count) {
        char p50[32], p99[32];

        units_fmt_time_us((double)hdr_value_at_percentile(&st->latency_u, 50) / 1e3, p50,
                          sizeof p50);
        units_fmt_time_us((double)hdr_value_at_percentile(&st->latency_u, 99) / 1e3, p99,
                          sizeof p99);
        fprintf(f,
                "pacer: latency from each request's intended send time (%.2f requests/s in "
                "all); from its first byte written: p50 %s, p99 %s\n",
                run->rate, p50, p99);
    }
    report_send_lag(f, run, res, "pacer: ");
    report_verdict(f, run, res, "pacer: ");
    for (int i = 300; i < 400; i++)
        redirects += st->status[i];
    if (redirects && run->peer_follows_redirects)
        fprintf(f,
                "pacer: %" PRIu64 " responses were redirects (3xx): hey follows them, pacer "
                "does not; these figures are for the redirect responses (-disable-redirects: "
                "hey's test too)\n",
                redirects);
    report_notes(f, run, res, "pacer: ");
    report_server(f, res, "pacer: ");
    report_stages(f, run, res, "pacer: ");
    if (res->signal)
        fprintf(f, "pacer: stopped early by %s\n", pc_signal_name(res->signal));
}

void report_hey(FILE *f, const pc_rundesc *run, const pc_results *res)
{
    const pc_stats *st = &res->st;
    const hdr_hist *lat = &st->latency;
    double total = (double)res->duration_ns;
    uint64_t finished = st->completed;
    static const int pcts[] = {10, 25, 50, 75, 90, 95, 99};

    for (int k = 0; k < PC_ERR_KINDS; k++)
        finished += st->err[k];
    fputs("\nSummary:\n  Total:\t", f);
    secs(f, total);
    if (lat->total_count) {
        fputs(" secs\n  Slowest:\t", f);
        secs(f, (double)hdr_max(lat));
        fputs(" secs\n  Fastest:\t", f);
        secs(f, (double)hdr_min(lat));
        fputs(" secs\n  Average:\t", f);
        secs(f, hdr_mean(lat));
    } else {
        /* Nothing measured: hey's own NaN, not a made-up 0. */
        fputs(" secs\n  Slowest:\t NaN secs\n  Fastest:\t NaN secs\n  Average:\t NaN", f);
    }
    fputs(" secs\n  Requests/sec:\t", f);
    fprintf(f, "%4.4f\n  ", total > 0 ? (double)finished / (total / NS_PER_S) : 0);
    if (st->body_bytes > 0)
        fprintf(f, "\n  Total data:\t%" PRIu64 " bytes\n  Size/request:\t%" PRIu64 " bytes",
                st->body_bytes, st->completed ? st->body_bytes / st->completed : 0);
    fputs("\n\nResponse time histogram:\n", f);
    histogram(f, lat);
    fputs("\n\nLatency distribution:", f);
    for (size_t i = 0; lat->total_count && i < sizeof pcts / sizeof pcts[0]; i++) {
        fprintf(f, "\n  %d%% in ", pcts[i]);
        secs(f, (double)hdr_value_at_percentile(lat, pcts[i]));
        fputs(" secs", f);
    }
    fputs("\n\nDetails (average, fastest, slowest):\n", f);
    detail(f, "DNS+dialup", &st->conn_req);
    fputs("  DNS-lookup:\tnot measured (pacer resolves the name once, before the run)\n", f);
    fputs("  req write:\tnot measured (included in resp wait)\n", f);
    detail(f, "resp wait", &st->ttfb);
    detail(f, "resp read", &st->processing);
    fputs("\nStatus code distribution:", f);
    for (int i = 0; i < STATS_MAX_STATUS; i++)
        if (st->status[i])
            fprintf(f, "\n  [%d]\t%" PRIu64 " responses", i, st->status[i]);
    if (st->status_other)
        fprintf(f, "\n  [other]\t%" PRIu64 " responses", st->status_other);
    fputs("\n\n", f);
    errors(f, st);
    fputs("\n\n", f);
    pacer_lines(f, run, res);
}

/* hey's CSV rows come in the order requests finished. */
static int cmp_done(const void *a, const void *b)
{
    const pc_reqrec *x = a, *y = b;
    uint64_t dx = x->start + x->ctime + x->dtime, dy = y->start + y->ctime + y->dtime;

    return (dx > dy) - (dx < dy);
}

/* A duration in seconds as hey prints it, or an empty field when it was
 * not measured. */
static void csv_secs(FILE *f, uint64_t ns)
{
    if (ns != UINT64_MAX)
        fprintf(f, "%4.4f", (double)ns / NS_PER_S);
    fputc(',', f);
}

/* Numbers in seconds with hey's meanings: response-time from the request's
 * start (its connect, if it opened one) to its last byte read; DNS+dialup
 * its connect and TLS handshake (0 on a connection already open); DNS 0:
 * pacer resolves names once, before the run, so no request includes a
 * lookup (hey's too for an IP address); Request-write from its first byte
 * written to its last (empty where not known: HTTP/3); Response-delay from
 * then to the response's first byte; Response-read from there to its end;
 * offset from the start of the run (when the first connection was begun,
 * as hey's clock starts before it dials) to the request's start. */
int report_hey_csv(FILE *f, FILE *note, const pc_rundesc *run, const pc_results *res)
{
    pc_reqrec *r = res->st.recs;
    size_t n = res->st.nrecs;
    uint64_t base = res->connect_mono_ns ? res->connect_mono_ns : res->start_mono_ns;

    for (size_t i = 0; i < n; i++)
        if (r[i].start < base)
            base = r[i].start; /* a merged result: its first request */
    if (n > 1)
        qsort(r, n, sizeof *r, cmp_done);
    fputs("response-time,DNS+dialup,DNS,Request-write,Response-delay,Response-read,status-code,"
          "offset",
          f);
    for (size_t i = 0; i < n; i++) {
        uint64_t read = r[i].dtime > r[i].wait ? r[i].dtime - r[i].wait : 0;
        uint64_t write = r[i].write != UINT64_MAX && r[i].write <= r[i].wait ? r[i].write
                                                                             : UINT64_MAX;

        fprintf(f, "\n%4.4f,%4.4f,0.0000,", (double)(r[i].ctime + r[i].dtime) / NS_PER_S,
                (double)r[i].ctime / NS_PER_S);
        csv_secs(f, write);
        csv_secs(f, write != UINT64_MAX ? r[i].wait - write : r[i].wait);
        fprintf(f, "%4.4f,%d,%4.4f", (double)read / NS_PER_S, r[i].status,
                (double)(r[i].start - base) / NS_PER_S);
    }
    fputc('\n', f);
    pacer_lines(note, run, res);
    return ferror(f) ? -1 : 0;
}
