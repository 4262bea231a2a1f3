/*
 * h2load.c - h2load's report layout (--format h2load), with the median,
 * p95 and p99 columns newer h2load versions print. Suite scripts collect
 * its "finished in" and "requests:" lines, so those follow h2load exactly.
 *
 * Where pacer measures differently, the rows say what pacer has: "time for
 * request" is the corrected latency (from the intended send time; the same
 * as h2load's in closed loop), "time to 1st byte" is per request, and
 * "req/s" is per connection over the measured period, as h2load's per
 * client.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "report/server_cost.h"
#include "report/report.h"
#include "report/stages.h"

/* h2load's util::format_duration: 134us, 8.78ms, 1.08s. */
static void fmt_dur(double us, char *buf, size_t cap)
{
    if (us >= 1e6)
        snprintf(buf, cap, "%.2fs", us / 1e6);
    else if (us >= 1e3)
        snprintf(buf, cap, "%.2fms", us / 1e3);
    else
        snprintf(buf, cap, "%.0fus", us);
}

/* h2load's util::utos_funit: 1024-based with two decimals. */
static void fmt_bytes(double n, char *buf, size_t cap)
{
    static const char *const u[] = {"", "K", "M", "G", "T"};
    int i = 0;

    while (n >= 1024 && i < 4) {
        n /= 1024;
        i++;
    }
    if (i == 0)
        snprintf(buf, cap, "%.0f", n);
    else
        snprintf(buf, cap, "%.2f%s", n, u[i]);
}

typedef void (*fmt_fn)(double, char *, size_t);

static void fmt_num(double v, char *buf, size_t cap)
{
    snprintf(buf, cap, "%.2f", v);
}

/* One row: min max mean sd +/-sd median p95 p99. scale turns the
 * histogram's unit into the formatter's (ns -> us: 1000). */
static void row(FILE *f, const char *label, const hdr_hist *h, double scale, fmt_fn fmt)
{
    char b[8][32];
    double mean = hdr_mean(h), sd = hdr_stddev(h);
    bool any = h->total_count > 0;
    double within = any ? hdr_fraction_within(h, mean - sd, mean + sd) : 0;

    fmt(any ? (double)hdr_min(h) / scale : 0, b[0], sizeof b[0]);
    fmt(any ? (double)hdr_max(h) / scale : 0, b[1], sizeof b[1]);
    fmt(mean / scale, b[2], sizeof b[2]);
    fmt(sd / scale, b[3], sizeof b[3]);
    fmt(any ? (double)hdr_value_at_percentile(h, 50) / scale : 0, b[4], sizeof b[4]);
    fmt(any ? (double)hdr_value_at_percentile(h, 95) / scale : 0, b[5], sizeof b[5]);
    fmt(any ? (double)hdr_value_at_percentile(h, 99) / scale : 0, b[6], sizeof b[6]);
    fprintf(f, "%s%10s  %10s  %10s  %10s%9.2f%%  %10s  %10s  %10s\n", label, b[0], b[1], b[2],
            b[3], within, b[4], b[5], b[6]);
}

void report_h2load_header(FILE *f, const pc_rundesc *run)
{
    fprintf(f, "starting benchmark...\n");
    for (uint32_t i = 0; i < run->threads; i++) {
        uint32_t n = run->connections / run->threads + (i < run->connections % run->threads);

        fprintf(f, "spawning thread #%u: %u total client(s).", i, n);
        if (run->requests)
            /* -n is split over the threads so that it adds up (run.c). */
            fprintf(f, " %" PRIu64 " total requests\n",
                    run->requests / run->threads + (i < run->requests % run->threads));
        else if (run->rate > 0)
            fprintf(f, " %.2f requests/s\n", run->rate / run->threads);
        else
            fprintf(f,
                    " Timing-based test with %gs of warm-up time and %gs of main duration for "
                    "measurements.\n",
                    (double)run->warmup_ns / 1e9, (double)run->duration_ns / 1e9);
    }
    fflush(f);
}

void report_h2load(FILE *f, const pc_rundesc *run, const pc_results *res)
{
    const pc_stats *st = &res->st;
    double secs = (double)res->duration_ns / 1e9;
    uint64_t errored = 0, not_done = 0, by_class[6] = {0};
    char dur[32], rate[32], total[32], head[32], data[32];
    double savings = st->header_decoded
                         ? 100.0 * (1.0 - (double)st->header_wire / (double)st->header_decoded)
                         : 0;

    for (int k = 0; k < PC_ERR_KINDS; k++)
        errored += st->err[k];
    /* h2load's clients stop at the server's GOAWAY: the -n requests they
     * had left are in its total, failed and errored (never started). */
    if (run->requests && res->stopped_by && strcmp(res->stopped_by, "goaway") == 0 &&
        stats_outcomes(st) < run->requests)
        not_done = run->requests - stats_outcomes(st);
    /* A code outside 100..599 counts as a 5xx, as RFC 9110 15 says to
     * process it (other, from older files, likewise). */
    for (int i = 0; i < STATS_MAX_STATUS; i++)
        by_class[i >= 100 && i < 600 ? i / 100 : 5] += st->status[i];
    by_class[5] += st->status_other;
    if (st->tls_version[0]) {
        fprintf(f, "TLS Protocol: %s\n", st->tls_version);
        fprintf(f, "Cipher: %s\n", st->tls_cipher);
    }
    fprintf(f, "Application protocol: %s\n",
            st->quic_conns ? "h3" : st->h2_conns ? (run->url.tls ? "h2" : "h2c") : "http/1.1");
    fprintf(f, "\n");
    fmt_dur((double)res->duration_ns / 1e3, dur, sizeof dur);
    fmt_bytes(secs > 0 ? (double)st->bytes_read / secs : 0, rate, sizeof rate);
    fprintf(f, "finished in %s, %.2f req/s, %sB/s\n", dur,
            secs > 0 ? (double)st->completed / secs : 0, rate);
    fprintf(f,
            "requests: %" PRIu64 " total, %" PRIu64 " started, %" PRIu64 " done, %" PRIu64
            " succeeded, %" PRIu64 " failed, %" PRIu64 " errored, %" PRIu64 " timeout\n",
            st->scheduled + not_done, st->scheduled - st->never_sent, st->completed + errored,
            st->completed - st->non2xx, st->non2xx + errored + not_done, errored + not_done,
            st->err[PC_ERR_TIMEOUT]);
    fprintf(f, "status codes: %" PRIu64 " 2xx, %" PRIu64 " 3xx, %" PRIu64 " 4xx, %" PRIu64 " 5xx\n",
            by_class[2], by_class[3], by_class[4], by_class[5]);
    fmt_bytes((double)st->bytes_read, total, sizeof total);
    fmt_bytes((double)st->header_wire, head, sizeof head);
    fmt_bytes((double)st->body_bytes, data, sizeof data);
    fprintf(f,
            "traffic: %sB (%" PRIu64 ") total, %sB (%" PRIu64 ") headers (space savings %.2f%%), "
            "%sB (%" PRIu64 ") data\n",
            total, st->bytes_read, head, st->header_wire, savings, data, st->body_bytes);
    if (st->quic_conns) /* h2load's HTTP/3 build */
        fprintf(f, "UDP datagram: %" PRIu64 " sent, %" PRIu64 " received\n", st->quic_sent,
                st->quic_recv);
    fprintf(f, "                     min         max         mean         sd        +/- sd"
               "      median         p95         p99\n");
    row(f, "time for request: ", &st->latency, 1e3, fmt_dur);
    if (run->u_latency && run->rate > 0) /* -R / --rps: also from the actual send, as h2load */
        row(f, "  (uncorrected) : ", &st->latency_u, 1e3, fmt_dur);
    /* Over QUIC the UDP connect is instant: h2load's HTTP/3 build times the
     * handshake there, which pacer has as the TLS handshake. */
    row(f, "time for connect: ", st->quic_conns ? &st->tls : &st->connect, 1e3, fmt_dur);
    row(f, "time to 1st byte: ", &st->ttfb, 1e3, fmt_dur);
    row(f, "req/s           : ", &st->conn_rps, 1, fmt_num);
    if (st->never_sent || st->resent || st->h2_rst || st->h2_refused || st->h2_goaway)
        fprintf(f, "pacer: %" PRIu64 " never sent, %" PRIu64 " re-sent, RST_STREAM %" PRIu64
                   ", REFUSED_STREAM %" PRIu64 ", GOAWAY %" PRIu64 "\n",
                st->never_sent, st->resent, st->h2_rst, st->h2_refused, st->h2_goaway);
    if (res->goaway_retired)
        fprintf(f, "pacer: %u of %u clients stopped at the server's GOAWAY and were not reconnected, "
                   "as h2load's%s\n",
                res->goaway_retired, run->connections, not_done ? ": the requests they had left are failed" : "");
    if (st->goaway_reopens)
        fprintf(f, "pacer: %" PRIu64 " connections reopened after the server's GOAWAY (h2load "
                   "stops those clients instead)\n",
                st->goaway_reopens);
    report_send_lag(f, run, res, "pacer: ");
    report_verdict(f, run, res, "pacer: ");
    report_notes(f, run, res, "pacer: ");
    report_server(f, res, "pacer: ");
    report_stages(f, run, res, "pacer: ");
    if (res->signal)
        fprintf(f, "pacer: stopped early by %s\n", pc_signal_name(res->signal));
}
