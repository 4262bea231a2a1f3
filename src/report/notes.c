/*
 * notes.c - lines every report layout prints after its own, about how the
 * run went rather than what it measured: a -n run cut short by -d, and
 * connects that needed SYN retransmits or timed out (an accept backlog that
 * overflowed), reconnects that backed off. One wording for the wrk, h2load and ab layouts.
 */
#include <inttypes.h>
#include <string.h>

#include "util/units.h"
#include "report/report.h"
#include "stats/hdr.h"

static void fmt_pct(const hdr_hist *h, double p, char *buf, size_t cap)
{
    units_fmt_time_us(h->total_count ? (double)hdr_value_at_percentile(h, p) / 1e3 : 0, buf, cap);
}

void report_notes(FILE *f, const pc_rundesc *run, const pc_results *res, const char *indent)
{
    const pc_stats *st = &res->st;

    if (run->requests && res->stopped_by && strcmp(res->stopped_by, "duration") == 0) {
        char d[32];

        units_fmt_time_us((double)run->duration_ns / 1e3, d, sizeof d);
        fprintf(f, "%sStopped by -d %s after %" PRIu64 " of %" PRIu64 " requests (-n)\n", indent,
                d, stats_outcomes(st) + res->warmup_outcomes, run->requests);
    }
    if (st->addr_fallbacks)
        fprintf(f,
                "%sAddress fallback: %" PRIu64 " connects failed on one of the name's addresses "
                "and went on to the next (not counted as errors%s%s)\n",
                indent, st->addr_fallbacks, st->fallback_why[0] ? "; first: " : "",
                st->fallback_why); /* a result file has no cause */
    if (st->reconnect_backoffs)
        fprintf(f,
                "%sReconnects backed off %" PRIu64 " times: connections failed in a row before any "
                "response (waits doubling up to 1s); %" PRIu64 " connections opened in all\n",
                indent, st->reconnect_backoffs, st->connects);
    if (st->connect_retrans || st->connect_timeouts) {
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
                indent, st->connect_retrans, (uint64_t)st->connect.total_count, st->connect_timeouts,
                to, p50, p99, max);
    }
}
