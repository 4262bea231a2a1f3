/*
 * verdict.c - who limited the run, decided once for every line that says
 * it (verdict.h). A run is judged by its parts: the whole run at a
 * constant rate, or each stage of a load shape and each tenth of a ramp
 * (the stage table's rows), every part on its own numbers: its target and
 * achieved rate, its latency, its send lag. The server's signals are
 * weighed first (streams refused, latency that rose with the rate while
 * -c's requests were all in flight); the client is blamed only when its
 * own lag or busy threads can explain the shortfall; otherwise the
 * verdict says what was seen and blames no one. docs/methodology.md, "Who
 * limited the run", is the table.
 */
#include "report/verdict.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "report/report.h"
#include "report/stages.h"
#include "stats/hdr.h"
#include "util/units.h"

/* One part of the run as the verdict judges it. */
typedef struct unit {
    char name[96];      /* "stage 3 (2000 req/s)", "step 1.9 (1600..1800 req/s)"; "": the run */
    double target;      /* req/s asked for */
    double achieved;    /* req/s completed */
    double expected;    /* requests asked for: the schedule's own (each has one outcome) */
    uint64_t completed;
    const hdr_hist *lat, *lat_u, *lag;
} unit;

typedef struct judge {
    const pc_rundesc *run;
    const pc_results *res;
    const pc_stats *st;
    uint64_t slots;     /* requests -c allows in flight */
    uint32_t depth;     /* per connection */
    bool h2;
    double busy;        /* the busiest thread's fraction not spent waiting for the network:
                         * working, or ready with no CPU (schedstat); 0..1 (-1: not measured) */
    double cpu_wait;    /* the most of it a thread spent waiting for a CPU, 0..1 (0: not measured) */
    unit *u;
    size_t n;
    double base_u;      /* uncorrected p50 of the lowest-target part (ns; INFINITY: one part) */
    const unit *base;
} judge;

static double pct(const hdr_hist *h, double p)
{
    return h->total_count ? (double)hdr_value_at_percentile(h, p) : 0;
}

static void fmt_ns(double ns, char *buf, size_t cap)
{
    units_fmt_time_us(ns / 1e3, buf, cap);
}

static void say(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *buf, size_t cap, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, cap, fmt, ap);
    va_end(ap);
}

/* The part's send lag p99 less the largest slack in force (ns): lateness
 * within the slack was pacer's choice. */
static double lag_beyond(const judge *J, const unit *u)
{
    double p99 = pct(u->lag, 99), slack = J->st->slack.total_count ? (double)hdr_max(&J->st->slack) : 0;

    return p99 > slack ? p99 - slack : 0;
}

/* The part fell short of its target: by 1% (the whole run: of -R over
 * the measured period), and a stage or row by more than 2 of its own
 * requests (the ones the schedule put in it, which Poisson arrivals make
 * vary from its target x time; a request or two at its edges). */
static bool fell_short(const judge *J, const unit *u)
{
    if (u->target <= 0)
        return false;
    if (J->n == 1 && !u->name[0])
        return u->achieved < u->target * 0.99;
    return (double)u->completed + 2 < u->expected * 0.99;
}

/* Little's law: the requests the part's target needs in flight at its
 * mean uncorrected latency. */
static double need(const unit *u)
{
    return u->target * hdr_mean(u->lat_u) / 1e9;
}

static bool full(const judge *J, const unit *u)
{
    return need(u) > (double)J->slots * 0.9;
}

/* The requests the part kept in flight on average (Little: achieved x W)
 * came to -c's limit: the server held every slot. 80%: the time a
 * response spends in pacer before the next send is outside W. A client
 * too slow to send leaves slots idle, however long its responses waited
 * to be read. */
static bool slots_held(const judge *J, const unit *u)
{
    return u->achieved * hdr_mean(u->lat_u) / 1e9 >= (double)J->slots * 0.8;
}

/* The whole run's start tells a queueing server from a slow one
 * (methodology.md, "Why -R was not reached"): responses under the midpoint
 * of the fastest and the mean, no more than twice the ramp's share, a
 * latency that grew, the connections busy. */
static bool start_queued(const judge *J, const unit *u, uint64_t *fast_out)
{
    const hdr_hist *hu = u->lat_u;
    double lat_s = hdr_mean(hu) / 1e9, mid_ns = ((double)hdr_min(hu) + lat_s * 1e9) / 2;
    uint64_t fast = hu->total_count ? (uint64_t)llround(hdr_fraction_within(hu, 0, mid_ns) / 100.0 *
                                                         (double)hu->total_count)
                                    : 0;
    double ramp = u->target > u->achieved ? (double)J->slots * u->target / (u->target - u->achieved) : 0;
    double busy = u->achieved * lat_s;

    *fast_out = fast;
    return hu->total_count && lat_s * 1e9 > 1.1 * (double)hdr_min(hu) && fast > 0 &&
           (double)fast <= ramp && busy >= (double)J->slots * 0.9;
}

/* The server's latency grew with the load: the part's uncorrected p50 at
 * least 3 times, and 0.5 ms over, the fastest it answered (its own
 * fastest, or the lowest-rate part's p50), or the run's start shows the
 * queue filling. A latency that does not depend on the load (a slow
 * backend) passes neither: there more -c raises the rate. */
static bool grew(const judge *J, const unit *u)
{
    double p50 = pct(u->lat_u, 50), ref = u->lat_u->total_count ? (double)hdr_min(u->lat_u) : 0;
    uint64_t fast;

    if (J->base_u < ref)
        ref = J->base_u;
    if (u->lat_u->total_count && p50 >= 3 * ref && p50 - ref >= 5e5)
        return true;
    return J->n == 1 && start_queued(J, u, &fast);
}

/* The client's own numbers explain the part's shortfall: a thread busy
 * over 90% of the time, or a lag p99 (beyond the slack) over the
 * scheduling noise and a tenth or more of the latency the part measured
 * of the server (its uncorrected p50; its corrected one when lower). */
static bool client_busy(const judge *J)
{
    return J->busy > 0.9;
}

/* The client stalled: its largest send lag is over STALL_NS and at least
 * half the largest corrected latency, so the tail is its own. (A stall
 * while every connection waits on a response shows in the send lag of
 * the first request only: the rest wait for room, which the lag leaves
 * out, but their corrected latency holds the stall all the same.) */
#define STALL_NS 10e6
static bool client_stalled(const pc_stats *st)
{
    double lag = st->send_lag.total_count ? (double)hdr_max(&st->send_lag) : 0;

    return lag > STALL_NS && st->latency.total_count && lag >= 0.5 * (double)hdr_max(&st->latency);
}

static bool client_lagged(const judge *J, const unit *u)
{
    double lag = lag_beyond(J, u), lat = pct(u->lat, 50), lat_u = pct(u->lat_u, 50);

    if (u->lat_u->total_count && lat_u < lat)
        lat = lat_u;
    return lag > REPORT_LAG_FLOOR_NS && lag >= 0.1 * lat;
}

/* Responses stopped well before the measured period ended (its last a
 * tenth of the period, and 0.5 s, before the end), and a twentieth or more
 * of the outcomes were left unanswered after it: never sent, timed out,
 * failed, interrupted. What was measured before that point says nothing
 * of the rest: neither pacer's lag nor -c is weighed on it. A file from
 * before last_response_us was recorded (0 with responses) is not judged
 * by it. *at_s: the last response's time. */
static bool went_quiet(const judge *J, uint64_t unanswered, uint64_t outcomes, double *at_s)
{
    const pc_stats *st = J->st;
    double period = (double)J->res->duration_ns / 1e9, last = (double)st->last_response_us / 1e6;
    double gap = period / 10 > 0.5 ? period / 10 : 0.5;

    *at_s = last;
    return st->completed && st->last_response_us && last + gap <= period &&
           unanswered * 20 >= outcomes && unanswered;
}

static void quiet_text(const judge *J, double at_s, uint64_t errs, report_judgement *j)
{
    const pc_stats *st = J->st;
    uint64_t timeouts = st->err[PC_ERR_TIMEOUT], failed = errs - timeouts;
    char sent[320] = "", conn[256] = "", rest[160] = "", kinds[128] = "";
    size_t k = 0;

    if (st->connect_errors)
        snprintf(conn, sizeof conn, "%" PRIu64 " connects failed%s%s", st->connect_errors,
                 st->why[PC_ERR_CONNECT][0] ? ": " : "", st->why[PC_ERR_CONNECT]);
    else if (st->connect_pending || st->handshake_pending)
        snprintf(conn, sizeof conn, "%" PRIu64 " connects never finished",
                 st->connect_pending + st->handshake_pending);
    else
        snprintf(conn, sizeof conn, "no connection had room: each waited on an answer");
    if (st->never_sent)
        snprintf(sent, sizeof sent, "%" PRIu64 " requests could not be sent (%s)", st->never_sent,
                 conn);
    if (timeouts)
        k += (size_t)snprintf(kinds + k, sizeof kinds - k, "%" PRIu64 " timed out", timeouts);
    if (failed && k < sizeof kinds)
        k += (size_t)snprintf(kinds + k, sizeof kinds - k, "%s%" PRIu64 " failed", k ? ", " : "",
                              failed);
    if (st->interrupted && k < sizeof kinds)
        snprintf(kinds + k, sizeof kinds - k, "%s%" PRIu64 " interrupted", k ? ", " : "",
                 st->interrupted);
    if (kinds[0])
        snprintf(rest, sizeof rest, "%s%" PRIu64 " in flight got no response (%s)",
                 sent[0] ? ", " : "", timeouts + failed + st->interrupted, kinds);
    j->by = REPORT_BY_ERRORS;
    say(j->rate_note, sizeof j->rate_note, "responses stopped at %.2fs: %s%s (see Errors)", at_s,
        sent, rest);
    say(j->verdict, sizeof j->verdict,
        "No response came after %.2fs of the %.2fs run (the server, or the path to it, stopped "
        "answering): %s%s (see Errors)",
        at_s, (double)J->res->duration_ns / 1e9, sent, rest);
}

static const char *where(const unit *u)
{
    return u->name[0] ? u->name : "the run";
}

/* ---- the parts ----------------------------------------------------------- */

static size_t build_units(judge *J, unit *u, size_t cap, report_stage_row *rows)
{
    const pc_stats *st = J->st;
    const pc_rundesc *run = J->run;
    size_t nr = report_stage_rows(run, J->res, rows, REPORT_STAGE_ROWS_MAX), n = 0;
    double secs = (double)J->res->duration_ns / 1e9;

    for (size_t k = 0; k < nr && n < cap; k++) {
        const report_stage_row *r = &rows[k];
        bool has_steps = k + 1 < nr && rows[k + 1].step;
        char rate[48];

        if ((r->step == 0 && has_steps) || r->ran_s <= 0)
            continue; /* a ramp is judged by its rows; a part that never ran, not at all */
        if (r->from_rate == r->rate)
            snprintf(rate, sizeof rate, "%.6g", r->rate);
        else
            snprintf(rate, sizeof rate, "%.6g..%.6g", r->from_rate, r->rate);
        if (r->step)
            snprintf(u[n].name, sizeof u[n].name, "step %u.%u (%s req/s)", r->stage, r->step, rate);
        else
            snprintf(u[n].name, sizeof u[n].name, "stage %u (%s req/s)", r->stage, rate);
        u[n].target = r->target;
        u[n].achieved = r->achieved;
        u[n].expected = (double)(r->g->completed + r->g->errors + r->g->never_sent + r->g->interrupted);
        u[n].completed = r->g->completed;
        u[n].lat = &r->g->latency;
        u[n].lat_u = &r->g->latency_u;
        u[n].lag = &r->g->send_lag;
        n++;
    }
    /* Rows without their own latencies (a file from before them) say
     * nothing of the parts: judge the run as a whole. */
    for (size_t i = 0; i < n; i++)
        if (u[i].completed && !u[i].lat_u->total_count && !u[i].lag->total_count)
            n = 0;
    if (n)
        return n;
    u[0] = (unit){.lat = &st->latency, .lat_u = &st->latency_u, .lag = &st->send_lag};
    u[0].target = pc_shape_active(&run->shape) && J->res->duration_ns
                      ? (double)st->scheduled / secs
                      : run->rate;
    u[0].achieved = report_rate(J->res);
    u[0].expected = u[0].target * secs;
    u[0].completed = st->completed;
    return 1;
}

/* ---- the rows of the table ----------------------------------------------- */

static void client_text(const judge *J, const unit *u, report_judgement *j)
{
    const pc_stats *st = J->st;
    char p99[32], lat[32], lagx[96], busy[128];

    fmt_ns(pct(u->lag, 99), p99, sizeof p99);
    fmt_ns(pct(u->lat, 50), lat, sizeof lat);
    if (st->slack.total_count && hdr_max(&st->slack) > 0) {
        char beyond[32];

        fmt_ns(lag_beyond(J, u), beyond, sizeof beyond);
        snprintf(lagx, sizeof lagx, "%s, %s beyond the slack", p99, beyond);
    } else {
        snprintf(lagx, sizeof lagx, "%s", p99);
    }
    j->by = REPORT_BY_CLIENT;
    say(j->rate_note, sizeof j->rate_note, "the client could not keep up (see Send lag above)");
    if (J->cpu_wait >= 0.1)
        /* "busy" is then partly the machine's: a thread ready to run had no CPU */
        say(busy, sizeof busy, "busy or waiting for a CPU %.0f%% of the time (waiting %.0f%%: "
            "a shared machine)", J->busy * 100, J->cpu_wait * 100);
    else
        say(busy, sizeof busy, "busy %.0f%% of the time", J->busy * 100);
    if (J->run->rate <= 0)
        /* A closed loop sends as fast as answers come: a busy thread means
         * the load was what pacer could make, not what the server takes. */
        say(j->verdict, sizeof j->verdict,
            "The client, not the server, limited this run: a thread was %s, "
            "so the load was what pacer's threads could make; use more threads (-t), or more "
            "machines (pacer report merges their results)",
            busy);
    else if (J->busy > 0.5)
        say(j->verdict, sizeof j->verdict,
            "The client, not the server, limited this run: a thread was %s "
            "and sent late (lag p99 %s; latency p50 %s%s%s); use more threads (-t), --slack, or "
            "more machines (pacer report merges their results)",
            busy, lagx, lat, u->name[0] ? " at " : "", u->name);
    else
        say(j->verdict, sizeof j->verdict,
            "The client, not the server, limited this run: its threads were not busy but woke "
            "late (lag p99 %s; latency p50 %s%s%s): a loaded or virtual machine; give pacer CPUs "
            "of its own (taskset), or more machines",
            lagx, lat, u->name[0] ? " at " : "", u->name);
}

static void saturated_text(const judge *J, const unit *u, const unit *knee, report_judgement *j)
{
    double lat_ms = hdr_mean(u->lat_u) / 1e6, busy = u->achieved * lat_ms / 1e3;
    char p50[32], base[32], fast[32];

    j->by = REPORT_BY_SERVER;
    if (busy > (double)J->slots)
        busy = (double)J->slots;
    fmt_ns(pct(u->lat_u, 50), p50, sizeof p50);
    fmt_ns(u->lat_u->total_count ? (double)hdr_min(u->lat_u) : 0, fast, sizeof fast);
    if (!u->name[0]) {
        say(j->rate_note, sizeof j->rate_note,
            "the server is saturated at about %.0f req/s: its latency grew from %.2fms (the "
            "fastest, before its queue filled) to a mean of %.2fms with %.1f of the %" PRIu64
            " requests -c allows in flight (more -c adds latency, not rate)",
            u->achieved, (double)hdr_min(u->lat_u) / 1e6, lat_ms, busy, J->slots);
        say(j->verdict, sizeof j->verdict,
            "The server, not the client, limited this run: it is saturated at about %.0f req/s of "
            "the %.0f asked (latency p50 %s, its fastest %s, with -c's %" PRIu64
            " requests in flight); more -c adds latency, not rate",
            u->achieved, u->target, p50, fast, J->slots);
        return;
    }
    fmt_ns(J->base_u, base, sizeof base);
    say(j->rate_note, sizeof j->rate_note,
        "the server is saturated at %s, where it answered %.0f req/s with -c's %" PRIu64
        " requests in flight (more -c adds latency, not rate; see the stage rows)",
        u->name, u->achieved, J->slots);
    say(j->verdict, sizeof j->verdict,
        "The server, not the client, limited this run: saturated at %s, where it answered %.0f "
        "req/s; its latency (uncorrected p50) rose from %s at %s to %s%s%s; more -c adds "
        "latency, not rate",
        u->name, u->achieved, base, J->base->name, p50, knee && knee != u ? ", first at " : "",
        knee && knee != u ? knee->name : "");
}

static void connections_text(const judge *J, const unit *u, report_judgement *j)
{
    double lat_s = hdr_mean(u->lat_u) / 1e9;
    uint64_t fast = 0;

    (void)start_queued(J, u, &fast);
    j->by = REPORT_BY_CONNECTIONS;
    say(j->rate_note, sizeof j->rate_note,
        "at the observed mean latency of %.2fms, %.0f req/s needs about %.0f requests in flight, "
        "but -c %u%s allows %" PRIu64 " (raise -c%s)",
        lat_s * 1e3, u->target, need(u), J->run->connections,
        J->depth == 1 ? "" : J->h2 ? " with -m" : " with --pipeline", J->slots,
        J->res->warmup_ns && !fast && !u->name[0]
            ? ", unless the server is saturated: --warmup discarded the start of the run, which "
              "tells the two apart"
            : "");
    say(j->verdict, sizeof j->verdict,
        "Too few connections limited this run%s%s: the server's latency did not grow with the "
        "load (mean %.2fms), and %.0f req/s needs about %.0f requests in flight where -c allows "
        "%" PRIu64 "; raise -c",
        u->name[0] ? " at " : "", u->name, lat_s * 1e3, u->target, need(u), J->slots);
}

void report_judge(const pc_rundesc *run, const pc_results *res, report_judgement *j)
{
    static report_stage_row rows[REPORT_STAGE_ROWS_MAX];
    static unit units[REPORT_STAGE_ROWS_MAX];
    const pc_stats *st = &res->st;
    judge J = {.run = run, .res = res, .st = st, .u = units, .base_u = INFINITY};
    uint64_t errs = 0, outcomes = stats_outcomes(st), goaway = st->h2_goaway + st->quic_goaway;
    const unit *s = NULL, *knee = NULL;
    bool open = run->rate > 0;
    double quiet_at = 0;

    memset(j, 0, sizeof *j);
    J.h2 = st->h2_conns && !st->h1_conns;
    J.depth = J.h2 ? run->streams : run->pipeline;
    J.slots = (uint64_t)run->connections * (J.depth ? J.depth : 1);
    J.busy = st->demand.total_count ? (double)hdr_max(&st->demand) / 1000
             : st->busy.total_count ? (double)hdr_max(&st->busy) / 1000
                                    : -1;
    J.cpu_wait = st->cpu_wait.total_count ? (double)hdr_max(&st->cpu_wait) / 1000 : 0;
    J.n = build_units(&J, units, REPORT_STAGE_ROWS_MAX, rows);
    for (int k = 0; k < PC_ERR_KINDS; k++)
        errs += st->err[k];
    /* The lowest-rate part (the first of equals) is where the server was
     * least loaded: a later part's latency is weighed against it. */
    for (size_t i = 0; J.n > 1 && i < J.n; i++)
        if (units[i].lat_u->total_count && (!J.base || units[i].target < J.base->target))
            J.base = &units[i];
    if (J.base)
        J.base_u = pct(J.base->lat_u, 50);
    j->rate = open ? units[0].target : 0;
    if (J.n > 1 && res->duration_ns)
        j->rate = (double)st->scheduled / ((double)res->duration_ns / 1e9);
    j->achieved = report_rate(res);
    j->short_of_rate = open && j->rate > 0 && j->achieved < j->rate * 0.99;
    for (size_t i = 0; open && i < J.n; i++) {
        if (!s && fell_short(&J, &units[i]))
            s = &units[i];
        /* The knee: the first part whose latency grew against the least loaded one. */
        if (!knee && J.n > 1 && &units[i] != J.base && grew(&J, &units[i]))
            knee = &units[i];
    }
    if (open && (s || j->short_of_rate) && outcomes && st->completed == 0) {
        j->by = REPORT_BY_ERRORS, j->rule = REPORT_RULE_NO_RESPONSE;
        say(j->rate_note, sizeof j->rate_note, "no response was received");
        say(j->verdict, sizeof j->verdict, "No response was received (see Errors): nothing of the "
                                           "server was measured");
    } else if (open && (s || j->short_of_rate) &&
               went_quiet(&J, st->never_sent + errs + st->interrupted, outcomes, &quiet_at)) {
        j->rule = REPORT_RULE_WENT_QUIET;
        quiet_text(&J, quiet_at, errs, j);
    } else if (open && (s || j->short_of_rate) && st->connect_errors &&
               st->never_sent * 20 >= outcomes) {
        /* The server went away (or never let connections in). */
        j->by = REPORT_BY_ERRORS, j->rule = REPORT_RULE_CONNECTS_FAILED;
        say(j->rate_note, sizeof j->rate_note,
            "%" PRIu64 " requests were never sent: %" PRIu64 " connects failed (see Errors)",
            st->never_sent, st->connect_errors);
        say(j->verdict, sizeof j->verdict,
            "Failed connects limited this run: %" PRIu64 " requests were never sent, %" PRIu64
            " connects failed (see Errors)",
            st->never_sent, st->connect_errors);
    } else if (open && (s || j->short_of_rate) && errs * 20 >= outcomes && errs) {
        /* A twentieth or more failed: their connections were held waiting
         * on answers that never came, which Little's law would blame on -c. */
        j->by = REPORT_BY_ERRORS, j->rule = REPORT_RULE_FAILED;
        say(j->rate_note, sizeof j->rate_note,
            "%" PRIu64 " of %" PRIu64 " requests failed or timed out (see Errors)", errs, outcomes);
        say(j->verdict, sizeof j->verdict,
            "Failed requests limited this run: %" PRIu64 " of %" PRIu64
            " failed or timed out (see Errors)",
            errs, outcomes);
    } else if ((st->h2_refused || goaway) && (!open || s || j->short_of_rate)) {
        char what[256], r[128] = "", g[96] = "";

        j->by = REPORT_BY_SERVER, j->rule = REPORT_RULE_H2_REFUSED;
        if (st->h2_refused)
            snprintf(r, sizeof r, "refused %" PRIu64 " streams (REFUSED_STREAM: more at once than it allows)",
                     st->h2_refused);
        if (goaway)
            snprintf(g, sizeof g, "sent %" PRIu64 " GOAWAY (it closed connections)", goaway);
        snprintf(what, sizeof what, "%s%s%s", r, r[0] && g[0] ? " and " : "", g);
        say(j->rate_note, sizeof j->rate_note, "the server %s (see HTTP/2)", what);
        say(j->verdict, sizeof j->verdict, "The server, not the client, limited this run: it %s", what);
    } else if (s) {
        if (full(&J, s) && slots_held(&J, s) && grew(&J, s)) {
            j->rule = REPORT_RULE_SATURATED;
            saturated_text(&J, s, knee, j);
        } else if (client_busy(&J)) {
            j->rule = REPORT_RULE_CLIENT_BUSY;
            client_text(&J, s, j);
        } else if (full(&J, s) && slots_held(&J, s)) {
            /* The send lag is time a free slot waited to be used: it does
             * not hold a slot. Slots held by the responses' latency, -c's
             * worth of them, are what bounded the rate, whatever the lag. */
            j->rule = REPORT_RULE_CONNECTIONS;
            connections_text(&J, s, j);
        } else if (client_lagged(&J, s)) {
            j->rule = REPORT_RULE_CLIENT_LAG;
            client_text(&J, s, j);
        } else if (full(&J, s)) {
            j->rule = REPORT_RULE_CONNECTIONS;
            connections_text(&J, s, j);
        } else if (errs) {
            j->by = REPORT_BY_ERRORS, j->rule = REPORT_RULE_SOME_FAILED;
            say(j->rate_note, sizeof j->rate_note,
                "%" PRIu64 " of %" PRIu64 " requests failed or timed out (see Errors)", errs,
                outcomes);
            say(j->verdict, sizeof j->verdict,
                "Failed requests limited this run: %" PRIu64 " of %" PRIu64
                " failed or timed out (see Errors)",
                errs, outcomes);
        } else {
            j->by = REPORT_BY_UNKNOWN, j->rule = REPORT_RULE_UNEXPLAINED;
            say(j->rate_note, sizeof j->rate_note,
                "neither the server's latency nor pacer's send lag explains it (see Outcomes)");
            say(j->verdict, sizeof j->verdict,
                "The rate was not reached at %s, and nothing measured explains it: the server's "
                "latency did not grow, -c's requests were not all in flight, and pacer was "
                "neither busy nor late (see Outcomes)",
                where(s));
        }
    } else if (knee) {
        char a[32], b[32];

        j->by = REPORT_BY_SERVER, j->rule = REPORT_RULE_KNEE;
        fmt_ns(J.base_u, a, sizeof a);
        fmt_ns(pct(knee->lat_u, 50), b, sizeof b);
        say(j->verdict, sizeof j->verdict,
            "The server's latency rose with the rate: uncorrected p50 %s at %s, %s at %s (its "
            "knee); every part of the run got its rate",
            a, J.base->name, b, knee->name);
    } else if (client_busy(&J)) {
        j->rule = open ? REPORT_RULE_CLIENT_BUSY : REPORT_RULE_CLOSED_BUSY;
        client_text(&J, &units[0], j);
    } else if (open && client_stalled(st)) {
        char lag[32], max[32];

        j->by = REPORT_BY_CLIENT, j->rule = REPORT_RULE_CLIENT_STALL;
        fmt_ns((double)hdr_max(&st->send_lag), lag, sizeof lag);
        fmt_ns((double)hdr_max(&st->latency), max, sizeof max);
        say(j->verdict, sizeof j->verdict,
            "The latency's tail is pacer's own: the rate was reached, but a request went out %s "
            "late (send lag max) of a corrected latency max of %s, and the requests due while "
            "pacer was held up waited for it, not for the server; give pacer CPUs of its own "
            "(taskset)",
            lag, max);
    }
    if (j->short_of_rate && !j->rate_note[0])
        say(j->rate_note, sizeof j->rate_note,
            "neither the server's latency nor pacer's send lag explains it (see Outcomes)");
}

const char *report_by_name(enum report_by by)
{
    static const char *const names[] = {"none", "server", "client", "connections", "errors",
                                        "unknown"};

    return (unsigned)by < sizeof names / sizeof names[0] ? names[by] : "unknown";
}
