/*
 * notes.c - lines every report layout prints after its own, about how the
 * run went rather than what it measured: a -n run cut short by -d, and
 * connects that needed SYN retransmits or timed out (an accept backlog that
 * overflowed), reconnects that backed off, responses whose framing pacer
 * would not trust for another. One wording for the wrk, h2load and ab layouts.
 */
#include <inttypes.h>
#include <string.h>

#include "util/units.h"
#include "report/report.h"
#include "report/verdict.h"
#include "stats/hdr.h"

static void fmt_pct(const hdr_hist *h, double p, char *buf, size_t cap)
{
    units_fmt_time_us(h->total_count ? (double)hdr_value_at_percentile(h, p) / 1e3 : 0, buf, cap);
}

/* More connections than -c, and why: each one the server ended, or one
 * a timeout or an error ended, was opened again (a server counts them all,
 * e.g. nginx's accepts). Those pacer ended itself (--no-keepalive, one
 * request per connection) are its own choice and said only with the others. */
static void report_reopens(FILE *f, const pc_rundesc *run, const pc_stats *st, const char *indent)
{
    const struct {
        uint64_t n;
        const char *what;
    } why[] = {
        {st->reopen_timeout, "after a request timed out (a timeout closes its connection)"},
        {st->reopen_server, "after the server closed one"},
        {st->reopen_goaway, "after the server's GOAWAY"},
        {st->reopen_error, "after an error (see Errors)"},
        {st->reopens - st->reopen_timeout - st->reopen_server - st->reopen_goaway -
             st->reopen_error,
         "closed by pacer (its own choice)"},
    };
    char parts[400];
    size_t len = 0;

    if (st->reopens == why[4].n)
        return; /* none, or only pacer's own */
    parts[0] = '\0';
    for (size_t i = 0; i < sizeof why / sizeof why[0]; i++)
        if (why[i].n && len < sizeof parts)
            len += (size_t)snprintf(parts + len, sizeof parts - len, "%s%" PRIu64 " %s",
                                    len ? ", " : "", why[i].n, why[i].what);
    fprintf(f, "%sConnections: %" PRIu64 " opened for -c %u; %" PRIu64 " reopened: %s\n",
            indent, st->connects, run->connections, st->reopens, parts);
}

void report_notes(FILE *f, const pc_rundesc *run, const pc_results *res, const char *indent)
{
    const pc_stats *st = &res->st;

    if (run->requests && res->stopped_by && strcmp(res->stopped_by, "duration") == 0) {
        char d[32];

        units_fmt_time_us((double)run->duration_ns / 1e3, d, sizeof d);
        fprintf(f, "%sStopped by -d %s after %" PRIu64 " of %" PRIu64 " requests (-n)\n", indent,
                d, stats_outcomes(st), run->requests);
    }
    if (st->script_cut)
        fprintf(f,
                "%sScript buffers: %" PRIu64 " responses were handed to response() cut at the "
                "cap (1 MiB a response, 256 MiB over all in flight: docs/scripting.md); each "
                "still counts as a response\n",
                indent, st->script_cut);
    if (st->addr_fallbacks)
        fprintf(f,
                "%sAddress fallback: %" PRIu64 " connects failed on one of the name's addresses "
                "and went on to the next (not counted as errors%s%s)\n",
                indent, st->addr_fallbacks, st->fallback_why[0] ? "; first: " : "",
                st->fallback_why); /* a result file has no cause */
    report_reopens(f, run, st, indent);
    if (st->chunked_with_length)
        fprintf(f,
                "%s%" PRIu64 " response%s had both Transfer-Encoding: chunked and Content-Length "
                "(a request-smuggling shape; read as chunked, RFC 9112 6.3) and the connection "
                "was closed after %s\n",
                indent, st->chunked_with_length, st->chunked_with_length == 1 ? "" : "s",
                st->chunked_with_length == 1 ? "it" : "each");
    if (st->reconnect_backoffs)
        fprintf(f,
                "%sReconnects backed off %" PRIu64 " times: connections failed in a row before any "
                "response (waits doubling up to 1s); %" PRIu64 " connections opened in all\n",
                indent, st->reconnect_backoffs, st->connects);
    if (st->connect_pending || st->handshake_pending || st->connect_late) {
        char up[160] = "";

        if (st->connect_late)
            snprintf(up, sizeof up,
                     "%" PRIu64 " of %" PRIu64 " connections were not up when the clock started "
                     "(the wait ends once none has come up for 1s)",
                     st->connect_late, (uint64_t)run->connections);
        if (st->connect_pending || st->handshake_pending) {
            char tcp[64] = "", hs[64] = "";

            if (st->connect_pending)
                snprintf(tcp, sizeof tcp, "%" PRIu64 " with no SYN-ACK", st->connect_pending);
            if (st->handshake_pending)
                snprintf(hs, sizeof hs, "%" PRIu64 " with the %s handshake not finished",
                         st->handshake_pending, run->h3 ? "QUIC" : "TLS");
            fprintf(f,
                    "%sConnecting: %" PRIu64 " attempts still pending when the run ended were "
                    "abandoned (%s%s%s)%s%s\n",
                    indent, st->connect_pending + st->handshake_pending, tcp,
                    tcp[0] && hs[0] ? ", " : "", hs, up[0] ? "; " : "", up);
        }
        else
            fprintf(f, "%sConnecting: %s; they came up during the run\n", indent, up);
    }
    if (run->h3 && st->connect_timeouts) {
        char to[32];

        units_fmt_time_us((double)run->connect_timeout_ns / 1e3, to, sizeof to);
        fprintf(f, "%sQUIC handshakes: %" PRIu64 " timed out (--connect-timeout %s): the server "
                   "did not answer, or not in time\n",
                indent, st->connect_timeouts, to);
    } else if (st->connect_retrans || st->connect_timeouts > st->handshake_timeouts) {
        char p50[32], p99[32], max[32], to[32];

        fmt_pct(&st->connect, 50, p50, sizeof p50);
        fmt_pct(&st->connect, 99, p99, sizeof p99);
        fmt_pct(&st->connect, 100, max, sizeof max);
        units_fmt_time_us((double)run->connect_timeout_ns / 1e3, to, sizeof to);
        fprintf(f,
                "%sConnects: %" PRIu64 " of %" PRIu64 " needed a SYN retransmit, %" PRIu64
                " timed out (--connect-timeout %s): the server's accept backlog overflowed "
                "(nginx: listen ... backlog=N; Linux: net.core.somaxconn); connect time p50 %s, "
                "p99 %s, max %s\n",
                indent, st->connect_retrans, (uint64_t)st->connect.total_count,
                st->connect_timeouts - st->handshake_timeouts, to, p50, p99, max);
    }
    /* Many connections, or a slow start: how long they took to open. */
    if (res->connect_phase_ns && (run->connections >= 1000 || res->connect_phase_ns >= 1000000000u)) {
        char ph[32], p50[32], p99[32];

        units_fmt_time_us((double)res->connect_phase_ns / 1e3, ph, sizeof ph);
        fmt_pct(&st->connect, 50, p50, sizeof p50);
        fmt_pct(&st->connect, 99, p99, sizeof p99);
        fprintf(f, "%sConnect phase: %" PRIu64 " of %u connections open in %s (connect time p50 %s, "
                   "p99 %s)\n",
                indent, st->connects < run->connections ? st->connects : (uint64_t)run->connections,
                run->connections, ph, p50, p99);
    }
    if (!run->h3 && st->handshake_timeouts) {
        char to[32];

        units_fmt_time_us((double)run->connect_timeout_ns / 1e3, to, sizeof to);
        fprintf(f, "%sTLS handshakes: %" PRIu64 " timed out (--connect-timeout %s): the server "
                   "accepted the TCP connections but did not finish the handshake\n",
                indent, st->handshake_timeouts, to);
    }
}

/* The threads' busy fractions, each (at most 8) or their mean and max. */
static void fmt_busy(const hdr_hist *b, char *buf, size_t cap)
{
    size_t len = 0;

    buf[0] = '\0';
    if (b->total_count > 8) {
        snprintf(buf, cap, "mean %.0f%%, max %.0f%% of %" PRId64 " threads", hdr_mean(b) / 10,
                 (double)hdr_max(b) / 10, b->total_count);
        return;
    }
    for (int64_t v = 0; v <= hdr_max(b) && len < cap; v++)
        for (int64_t n = hdr_count_at_value(b, v); n > 0 && len < cap; n--)
            len += (size_t)snprintf(buf + len, cap - len, "%s%.0f%%", len ? ", " : "",
                                    (double)v / 10);
}

bool report_client_limited(const pc_rundesc *run, const pc_results *res)
{
    report_judgement j;

    report_judge(run, res, &j);
    return j.by == REPORT_BY_CLIENT;
}

/* "; slack adaptive (p50 X, max Y)", "; slack D (--slack)", or nothing
 * (closed loop, or a result file from before the slack); then
 * "; spin D (--spin)" when it was given. */
static void fmt_slack(const pc_rundesc *run, const pc_stats *st, char *buf, size_t cap)
{
    char a[32], b[32];
    size_t n;

    buf[0] = '\0';
    if (run->rate <= 0)
        return;
    if (run->slack_set) {
        units_fmt_time_us((double)run->slack_ns / 1e3, a, sizeof a);
        snprintf(buf, cap, "; slack %s (--slack)", run->slack_ns ? a : "0");
    } else if (st->slack.total_count) {
        fmt_pct(&st->slack, 50, a, sizeof a);
        fmt_pct(&st->slack, 100, b, sizeof b);
        snprintf(buf, cap, "; slack adaptive (p50 %s, max %s)", a, b);
    }
    n = strlen(buf);
    if (run->spin_ns && n < cap) {
        units_fmt_time_us((double)run->spin_ns / 1e3, a, sizeof a);
        snprintf(buf + n, cap - n, "; spin %s (--spin)", a);
    }
}

void report_send_lag(FILE *f, const pc_rundesc *run, const pc_results *res, const char *indent)
{
    const pc_stats *st = &res->st;
    char p50[32], p99[32], max[32], busy[160], wait[200] = "", slack[128];

    if (!st->send_lag.total_count && !st->busy.total_count)
        return; /* a result file from before pacer measured it */
    if (run->rate <= 0)
        return; /* a closed loop has no schedule to be late for (a busy thread: the verdict) */
    fmt_pct(&st->send_lag, 50, p50, sizeof p50);
    fmt_pct(&st->send_lag, 99, p99, sizeof p99);
    fmt_pct(&st->send_lag, 100, max, sizeof max);
    fmt_busy(&st->busy, busy, sizeof busy);
    if (st->cpu_wait.total_count && hdr_max(&st->cpu_wait) >= 50) {
        /* a shared machine: the threads were ready to run and had no CPU */
        char w[160];

        fmt_busy(&st->cpu_wait, w, sizeof w);
        snprintf(wait, sizeof wait, ", waiting for a CPU %s", w);
    }
    fmt_slack(run, st, slack, sizeof slack);
    fprintf(f, "%sSend lag (pacer's own): p50 %s p99 %s max %s; threads busy %s%s%s\n", indent,
            p50, p99, max, busy[0] ? busy : "?", wait, slack);
    if (st->wire_lag.total_count) {
        /* The rest of the way out, from the kernel's own send stamps. */
        fmt_pct(&st->wire_lag, 50, p50, sizeof p50);
        fmt_pct(&st->wire_lag, 99, p99, sizeof p99);
        fmt_pct(&st->wire_lag, 100, max, sizeof max);
        fprintf(f, "%sTo the wire (kernel send stamps, %" PRIu64 " of %" PRIu64
                   " requests sent): p50 %s p99 %s max %s after pacer's write\n",
                indent, (uint64_t)st->wire_lag.total_count, (uint64_t)st->send_lag.total_count,
                p50, p99, max);
    }
}

void report_verdict(FILE *f, const pc_rundesc *run, const pc_results *res, const char *indent)
{
    report_judgement j;

    report_judge(run, res, &j);
    if (j.verdict[0])
        fprintf(f, "%s%s\n", indent, j.verdict);
}
