/*
 * wrk.c - the wrk / wrk2 report. The lines up to "Transfer/sec:" are an
 * interface (scripts and blog posts parse them): their widths and units
 * follow wrk's and wrk2's output exactly. Everything pacer adds comes
 * after, so those parsers keep working.
 */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "report/server_cost.h"
#include "util/units.h"
#include "report/json_out.h"
#include "report/report.h"
#include "report/stages.h"
#include "report/verdict.h"
#include "stats/hdr.h"

typedef char *(*fmt_fn)(double, char *, size_t);

/* URL lines in the report at most; the JSON has every URL. */
#define REPORT_URL_LINES 20

/* wrk's column printer: a value followed by up to two unit letters, padded
 * so that the numbers line up whatever the unit. */
static void print_units(FILE *f, double v, fmt_fn fmt, int width)
{
    char msg[64];
    size_t len;
    int pad = 2;

    fmt(v, msg, sizeof msg);
    len = strlen(msg);
    if (len >= 1 && isalpha((unsigned char)msg[len - 1]))
        pad--;
    if (len >= 2 && isalpha((unsigned char)msg[len - 2]))
        pad--;
    width -= pad;
    fprintf(f, "%*.*s%.*s", width, width, msg, pad, "  ");
}

static void print_stats_row(FILE *f, const char *name, const hdr_hist *h, double scale, fmt_fn fmt)
{
    double mean = hdr_mean(h) / scale;
    double sd = hdr_stddev(h) / scale;
    double max = h->total_count ? (double)hdr_max(h) / scale : 0;
    double within = h->total_count ? hdr_fraction_within(h, (mean - sd) * scale,
                                                         (mean + sd) * scale)
                                   : 0;

    fprintf(f, "    %-10s", name);
    print_units(f, mean, fmt, 8);
    print_units(f, sd, fmt, 10);
    print_units(f, max, fmt, 9);
    fprintf(f, "%8.2f%%\n", within);
}

static double pct_us(const hdr_hist *h, double p)
{
    return h->total_count ? (double)hdr_value_at_percentile(h, p) / 1000.0 : 0;
}

/* wrk2's block: eight percentiles, then the full spectrum (values in ms). */
static void print_hdr_block(FILE *f, const char *title, const hdr_hist *h)
{
    static const double ps[] = {50, 75, 90, 99, 99.9, 99.99, 99.999, 100};

    fprintf(f, "  Latency Distribution (HdrHistogram - %s)\n", title);
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
        fprintf(f, "%7.3f%%", ps[i]);
        print_units(f, pct_us(h, ps[i]), units_fmt_time_us, 10);
        fputc('\n', f);
    }
    fprintf(f, "\n  Detailed Percentile spectrum:\n");
    hdr_percentiles_print(h, f, 5, 1e6, HDR_FMT_CLASSIC);
    fprintf(f, "----------------------------------------------------------\n");
}

/* wrk's closed-loop block: 50/75/90/99. */
static void print_wrk_block(FILE *f, const hdr_hist *h)
{
    static const double ps[] = {50, 75, 90, 99};

    fprintf(f, "  Latency Distribution\n");
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
        fprintf(f, "%7.0f%%", ps[i]);
        print_units(f, pct_us(h, ps[i]), units_fmt_time_us, 10);
        fputc('\n', f);
    }
}

static void fmt_duration(uint64_t ns, char *buf, size_t cap)
{
    /* wrk prints whole units ("30s", "2m"); sub-second runs exist here. */
    if (ns < 1000000000ull)
        snprintf(buf, cap, "%" PRIu64 "ms", (uint64_t)(ns / 1000000));
    else if (ns % 1000000000ull)
        snprintf(buf, cap, "%.2fs", (double)ns / 1e9);
    else if (ns % 60000000000ull == 0 && ns >= 60000000000ull)
        snprintf(buf, cap, "%" PRIu64 "m", (uint64_t)(ns / 60000000000ull));
    else
        snprintf(buf, cap, "%" PRIu64 "s", (uint64_t)(ns / 1000000000ull));
}

double report_rate(const pc_results *res)
{
    double secs = (double)res->duration_ns / 1e9;

    return secs > 0 ? (double)res->st.completed / secs : 0;
}

const char *report_protocol(const pc_stats *st)
{
    if (st->h2_conns && st->h1_conns)
        return "mixed";
    if (st->quic_conns)
        return "h3";
    return st->h2_conns ? "h2" : "http/1.1";
}

bool report_has_quic(const pc_stats *st)
{
    uint64_t any = st->quic_conns | st->quic_sent | st->quic_recv | st->quic_lost | st->quic_pto |
                   st->quic_resets | st->quic_goaway | st->quic_srtt.total_count |
                   st->quic_min_rtt.total_count;

    for (int i = 0; i < STATS_QUIC_CLOSE_N; i++)
        any |= st->quic_close[i];
    return any != 0;
}

void report_quic(FILE *f, const pc_stats *st)
{
    if (!st->quic_conns)
        return;
    /* Datagrams; losses are pacer's own packets its QUIC stack declared
     * lost (the sender's view: not the server's packets, not a datagram of
     * ACKs alone, which nothing acknowledges). */
    fprintf(f, "QUIC datagrams: %" PRIu64 " sent, %" PRIu64 " received; pacer's packets declared lost "
               "by its QUIC stack %" PRIu64 " (%.2f%% of sent)\n",
            st->quic_sent, st->quic_recv, st->quic_lost,
            st->quic_sent ? 100.0 * (double)st->quic_lost / (double)st->quic_sent : 0);
    if (st->quic_srtt.total_count)
        fprintf(f, "QUIC RTT: smoothed %.2fms, min %.2fms, PTOs %" PRIu64 "\n",
                hdr_mean(&st->quic_srtt) / 1e6, (double)hdr_min(&st->quic_min_rtt) / 1e6,
                st->quic_pto);
}

void report_wrk_header(FILE *f, const pc_rundesc *run)
{
    char d[32];

    fmt_duration(run->duration_ns, d, sizeof d);
    if (!run->requests)
        fprintf(f, "Running %s test @ %s\n", d, run->url_text);
    else if (run->duration_set)
        fprintf(f, "Running %" PRIu64 " requests (at most %s) @ %s\n", run->requests, d,
                run->url_text);
    else
        fprintf(f, "Running %" PRIu64 " requests @ %s\n", run->requests, run->url_text);
    fprintf(f, "  %u threads and %u connections", run->threads, run->connections);
    if (run->h2 || run->h3)
        fprintf(f, " (HTTP/%d, %u stream%s each)", run->h3 ? 3 : 2, run->streams,
                run->streams == 1 ? "" : "s");
    fputc('\n', f);
    fflush(f);
}

static void print_status_codes(FILE *f, const pc_stats *st)
{
    bool first = true;

    for (int i = 0; i < STATS_MAX_STATUS; i++) {
        if (!st->status[i])
            continue;
        fprintf(f, "%s%d %" PRIu64, first ? "  Status codes: " : ", ", i, st->status[i]);
        first = false;
    }
    if (st->status_other) {
        fprintf(f, "%sother %" PRIu64, first ? "  Status codes: " : ", ", st->status_other);
        first = false;
    }
    if (!first)
        fputc('\n', f);
}

void report_outcomes(FILE *f, const pc_stats *st, const char *label)
{
    uint64_t errors = 0;

    for (int k = 0; k < PC_ERR_KINDS; k++)
        if (k != PC_ERR_TIMEOUT)
            errors += st->err[k];
    fprintf(f,
            "%s%" PRIu64 " scheduled = %" PRIu64 " completed + %" PRIu64 " timed out + %" PRIu64
            " errors + %" PRIu64 " never sent",
            label, st->scheduled, st->completed, st->err[PC_ERR_TIMEOUT], errors,
            st->never_sent);
    if (st->interrupted)
        fprintf(f, " + %" PRIu64 " interrupted", st->interrupted);
}

/* How many connections the server closed after a response, after how
 * many responses each (a result file read back has no distribution), and
 * what the last response said. */
static void print_server_closes(FILE *f, const pc_stats *st)
{
    uint64_t n = st->server_closes, h10 = st->close_http10, other = st->close_other;
    uint64_t hdr = n - (h10 + other <= n ? h10 + other : n);
    const hdr_hist *h = &st->close_after;
    int64_t lo = h->total_count ? hdr_min(h) : 0, hi = h->total_count ? hdr_max(h) : 0;
    char why[200];

    fprintf(f, "  Server closed %" PRIu64 " connection%s", n, n == 1 ? "" : "s");
    if (lo == 1 && hi == 1)
        fprintf(f, " after %s first response", n == 1 ? "its" : "their");
    else if (lo && lo == hi)
        fprintf(f, " after %" PRId64 " responses%s", lo, n == 1 ? "" : " each");
    else if (lo)
        fprintf(f, " after %" PRId64 "-%" PRId64 " responses (median %" PRId64 ")", lo, hi,
                hdr_value_at_percentile(h, 50));
    if (hdr == n)
        snprintf(why, sizeof why, "the last response said Connection: close");
    else if (h10 == n)
        snprintf(why, sizeof why, "HTTP/1.0 responses without keep-alive");
    else if (other == n)
        snprintf(why, sizeof why, "a body ended by the close, or an answer before the request was sent");
    else
        snprintf(why, sizeof why,
                 "%" PRIu64 " said Connection: close, %" PRIu64 " HTTP/1.0 without keep-alive, %" PRIu64
                 " other",
                 hdr, h10, other);
    if (lo == 1 && hi == 1)
        fprintf(f, " (%s: no keep-alive)\n", why);
    else if (lo > 1 && lo == hi)
        fprintf(f, " (%s: a limit of requests per connection; keep-alive until then)\n", why);
    else if (lo > 1)
        fprintf(f, " (%s; keep-alive until then)\n", why);
    else
        fprintf(f, " (%s)\n", why);
}

static void print_outcomes(FILE *f, const pc_stats *st)
{
    report_outcomes(f, st, "  Outcomes: ");
    fputc('\n', f);
    if (st->lower_bound)
        fprintf(f,
                "  Latency includes %" PRIu64
                " timed-out or never-sent requests at the latency they had reached (a lower bound)\n",
                st->lower_bound);
    for (int k = 0; k < PC_ERR_KINDS; k++) {
        uint64_t n = k == PC_ERR_CONNECT ? st->connect_errors : st->err[k];

        if (n || (k == PC_ERR_PROTOCOL && st->why[k][0]))
            fprintf(f, "  Errors: %s %" PRIu64 "%s%s%s\n", pc_err_name(k), n,
                    st->why[k][0] ? " (" : "", st->why[k], st->why[k][0] ? ")" : "");
    }
    if (st->server_closes)
        print_server_closes(f, st);
    if (st->resent)
        fprintf(f, "  Re-sent on a new connection: %" PRIu64
                   " requests the server closed without answering\n",
                st->resent);
    if (st->conn_drops)
        fprintf(f, "  Connections dropped with no request in flight: %" PRIu64 "%s%s%s\n",
                st->conn_drops, st->drop_why[0] ? " (" : "", st->drop_why,
                st->drop_why[0] ? ")" : ""); /* a result file has no cause */
    if (st->idle_closes)
        fprintf(f, "  Idle keep-alive connections closed by the server unannounced: %" PRIu64 "\n",
                st->idle_closes);
}

/* Say when -R was not reached, and why: the verdict's reason
 * (report/verdict.c decides both, so the note and the verdict agree;
 * docs/methodology.md, "Why -R was not reached", "Who limited the run"). */
static void print_shortfall(FILE *f, const pc_rundesc *run, const pc_results *res)
{
    report_judgement j;

    report_judge(run, res, &j);
    if (!j.short_of_rate)
        return;
    fprintf(f, "  Requested rate %.2f req/s but achieved %.2f (%.1f%%): %s\n", j.rate, j.achieved,
            100.0 * j.achieved / j.rate, j.rate_note);
}

void report_wrk(FILE *f, const pc_rundesc *run, const pc_results *res)
{
    const pc_stats *st = &res->st;
    double secs = (double)res->duration_ns / 1e9;
    double rps = report_rate(res);
    uint64_t non2xx = st->non2xx;
    char buf[64], buf2[64];

    fprintf(f, "  Thread Stats%6s%11s%8s%12s\n", "Avg", "Stdev", "Max", "+/- Stdev");
    print_stats_row(f, "Latency", &st->latency, 1000.0, units_fmt_time_us);
    print_stats_row(f, "Req/Sec", &st->rps, 1.0, units_fmt_metric);
    /* wrk2's -U sets -L too: the corrected block comes first whenever the
     * uncorrected one is printed, so the first "99.000%" line is always the
     * corrected one (closed loop: one block, there is nothing to correct). */
    bool hdr = run->rate > 0 || run->hdr_layout;
    if (run->latency || (run->u_latency && hdr)) {
        if (hdr)
            print_hdr_block(f, "Recorded Latency", &st->latency);
        else
            print_wrk_block(f, &st->latency);
    }
    if (run->u_latency) {
        if (hdr)
            fputc('\n', f);
        print_hdr_block(f,
                        "Uncorrected Latency (measured without taking delayed starts into account)",
                        &st->latency_u);
    }
    units_fmt_time_us((double)res->duration_ns / 1e3, buf, sizeof buf);
    units_fmt_binary((double)st->bytes_read, buf2, sizeof buf2);
    fprintf(f, "  %" PRIu64 " requests in %s, %sB read\n", st->completed, buf, buf2);
    if (st->connect_errors || st->err[PC_ERR_READ] || st->err[PC_ERR_PROTOCOL] ||
        st->err[PC_ERR_WRITE] || st->err[PC_ERR_TIMEOUT])
        fprintf(f, "  Socket errors: connect %" PRIu64 ", read %" PRIu64 ", write %" PRIu64
                   ", timeout %" PRIu64 "\n",
                st->connect_errors, st->err[PC_ERR_READ] + st->err[PC_ERR_PROTOCOL],
                st->err[PC_ERR_WRITE], st->err[PC_ERR_TIMEOUT]);
    if (non2xx)
        fprintf(f, "  Non-2xx or 3xx responses: %" PRIu64 "\n", non2xx);
    fprintf(f, "Requests/sec: %9.2f\n", rps);
    units_fmt_binary(secs > 0 ? (double)st->bytes_read / secs : 0, buf, sizeof buf);
    fprintf(f, "Transfer/sec: %10sB\n", buf);
    report_send_lag(f, run, res, "");
    report_verdict(f, run, res, "");
    report_quic(f, st);

    /* pacer's additions: below the lines scripts grep for. */
    print_status_codes(f, st);
    print_outcomes(f, st);
    if (st->h2_conns || st->quic_conns)
        fprintf(f, "  Application protocol: %s%s\n", report_protocol(st),
                st->h1_conns ? " (some connections fell back to http/1.1)" : "");
    if (st->h2_conns) {
        char hb[32];

        units_fmt_binary((double)st->header_wire, hb, sizeof hb);
        fprintf(f,
                "  HTTP/2: headers %sB (space savings %.2f%%), RST_STREAM %" PRIu64
                ", REFUSED_STREAM %" PRIu64 ", GOAWAY %" PRIu64 "\n",
                hb,
                st->header_decoded
                    ? 100.0 * (1.0 - (double)st->header_wire / (double)st->header_decoded)
                    : 0,
                st->h2_rst, st->h2_refused, st->h2_goaway);
    }
    if (st->goaway_reopens)
        fprintf(f, "  Reopened after the server's GOAWAY: %" PRIu64 " connections (h2load would "
                   "stop those clients)\n",
                st->goaway_reopens);
    if (st->tls.total_count)
        fprintf(f, "  TLS handshakes: %" PRIu64 " (%" PRIu64 " resumed%s), mean %.2fms\n",
                (uint64_t)st->tls.total_count, st->tls_resumed,
                run->no_tls_resume ? "; session resumption off" : "", hdr_mean(&st->tls) / 1e6);
    uint32_t top[REPORT_URL_LINES], ntop = 0;

    if (st->nurls == run->nreqs) /* the busiest, as --json's urls[] */
        ntop = report_top_urls(st, top, REPORT_URL_LINES);

    for (uint32_t k = 0; k < ntop; k++) {
        uint32_t i = top[k];
        const hdr_hist *h = st->url_lat ? &st->url_lat[i] : NULL;
        char p50[32], p99[32];

        fprintf(f, "  URL %u: %s %s: %" PRIu64 " requests, %" PRIu64 " errors", i + 1,
                run->reqs[i].method, run->reqs[i].url_text, st->urls[i].completed,
                st->urls[i].errors);
        if (h) {
            units_fmt_time_us(pct_us(h, 50), p50, sizeof p50);
            units_fmt_time_us(pct_us(h, 99), p99, sizeof p99);
            fprintf(f, ", p50 %s, p99 %s", p50, p99);
        }
        fputc('\n', f);
    }
    if (ntop && st->nurls > ntop)
        fprintf(f,
                "  ... and %u more URLs (--json: the busiest %u in urls, the rest summed in "
                "urls_other)%s\n",
                st->nurls - ntop, REPORT_JSON_URLS,
                st->url_latency ? ""
                                : "; per-URL latency is kept for at most 1000 URLs: counts only");
    if (res->warmup_ns)
        fprintf(f, "  Warm-up: %.2fs first, %" PRIu64 " requests not counted above\n",
                (double)res->warmup_ns / 1e9, res->warmup_outcomes);
    report_notes(f, run, res, "  ");
    print_shortfall(f, run, res);
    report_stages(f, run, res, "  ");
    report_server(f, res, "  ");
    if (res->signal)
        fprintf(f, "  Stopped early by %s after %.2fs\n",
                pc_signal_name(res->signal), secs);
}
