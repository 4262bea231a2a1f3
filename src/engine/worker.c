/*
 * worker.c - one load-generating thread: an epoll loop over its own
 * connections, its share of the open-loop schedule, and its statistics.
 *
 * The request lifecycle (docs/architecture.md has the picture):
 *   schedule -> backlog (FIFO of intended send times) -> a connection with
 *   room -> the protocol writes it (sent = first byte out) -> the protocol
 *   reports the response -> recorded as done - intended (corrected) and
 *   done - sent (uncorrected).
 * Closed loop has no schedule: a connection sends its next request the
 * moment it has room (HTTP/1.1 pipelining: the next batch once the last
 * response of the batch is in, as wrk), intended = now.
 *
 * Every request ends in exactly one outcome (see stats.h). Requests the
 * server did not process (HTTP/2 REFUSED_STREAM or GOAWAY, requests behind
 * an HTTP/1.1 Connection: close) go back to the front of the backlog with
 * their intended time, a bounded number of times; every other failure is
 * the request's outcome.
 *
 * Protocols (proto_h1.c, proto_h2.c) report through eng_* (conn.h); those
 * only record and release. What happens next to the connection (refill,
 * reopen) is decided here, after the protocol has returned: never from
 * inside a protocol library's callback.
 */
#include "engine/worker.h"

#include <errno.h>
#include <openssl/ssl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <netdb.h>
#include <unistd.h>

#include <ctype.h>
#include <nghttp2/nghttp2.h>
#include <strings.h>

#include "engine/conn.h"
#include "engine/sched.h"
#include "proto/h1req.h"
#include "script/script.h"
#include "util/clock.h"
#include "util/grow.h"

#define MAX_EVENTS 256
#define RBUF_SIZE (256 * 1024)
#define TICK_MAX_NS 100000000ull /* sweep and Req/Sec sample period */
#define BACKOFF_NS 50000000ull   /* wait after a failed connect */
#define RECONNECT_BACKOFF_NS 10000000ull /* first wait after connections fail in a row */
#define MAX_RETRIES 3            /* re-sends of a request the server refused */

enum { P_CONNECT, P_RUN, P_DRAIN, P_DONE };

typedef struct resend {
    uint64_t intended;
    uint16_t tmpl;
    uint8_t retries;
} resend;

struct pc_worker {
    pc_run *run;
    const pc_config *cfg;
    uint32_t index;
    int epfd, tfd;
    bool use_pwait2;
    uint64_t tfd_armed;
    conn *conns;
    uint32_t nconns, depth;
    slot *slot_mem;
    uint32_t *idx_mem;
    char *rbuf;
    uint32_t *rq; /* ready queue of connection indexes (open loop) */
    uint32_t rq_head, rq_len;
    resend *rs; /* requests to send again, oldest first */
    uint32_t rs_head, rs_len, rs_cap;
    uint32_t pref_addr;

    bool open_loop;
    sched sc;
    uint64_t k_disp, k_due, k_end, k_meas;
    uint64_t measure_start, end, stop, drain_end;
    int phase;
    bool warm_reset;
    uint64_t tick_ns, next_tick, rps_t, rps_completed;
    uint32_t inflight, settled;
    uint64_t warm_outcomes, stopped_ns;
    uint64_t last_done;  /* time of the last measured response */
    bool script_stop;    /* thread:stop() or a script error ended this thread */
    _Atomic bool done;   /* the run loop has ended (or the worker was seized) */
    bool seized;         /* taken over by the main thread while stuck in Lua */
    uint64_t quota;   /* -n: requests this thread creates in all, 0 = no limit */
    uint64_t created; /* requests created (closed loop) */
    uint64_t rr;      /* round-robin position over the templates */
    uint32_t opening; /* connections opening or open without a request yet */
    pc_tscript *ts;   /* the Lua script's state, or NULL */
    bool lua_req, lua_resp, lua_delay;
    pc_tmpl own;      /* the script's request when it has no request() */
    bool use_own;
    uint64_t next_wake; /* earliest delay() wake-up, 0 = none */
    nghttp2_nv nv[H1REQ_MAX_HEADERS + 4]; /* a script request as HTTP/2 */
    char nvnames[8192];                    /* its header names, lower-cased */
    sbuf *sb_mem;     /* conn->sb arrays (scripts over HTTP/2) */
    /* Several origins (--urls): a queue of due requests per origin. */
    resend **oq;
    uint32_t *oq_head, *oq_len, *oq_cap;
    uint64_t oq_total;
    uint16_t *first_tmpl; /* per origin: one of its templates */
    pc_addr *addrs;   /* where to connect (the run's, or setup()'s thread.addr) */
    uint32_t naddrs;
    pc_addr own_addr;
    uint64_t rng;     /* xorshift state for --mix random */
    SSL_SESSION *session;
    pc_stats st;
    pc_interval *iv;       /* the interval being recorded (NULL: none) */
    uint64_t iv_end;       /* its nominal end */
    pthread_mutex_t mb;    /* guards the two lists below */
    pc_interval *iv_ready; /* finished intervals for the main thread, oldest first */
    pc_interval *iv_free;  /* reusable ones it handed back */
    uint64_t *ns_due;      /* never-sent requests by the interval they were due in */
    uint32_t ns_n;         /* entries in ns_due */
    char err[256];
};

static void conn_start(conn *c, uint64_t now);
static void after_io(conn *c, uint64_t now);
static void opening(conn *c, bool on);

const pc_run *conn_run(const conn *c)
{
    return c->w->run;
}

/* ---- events ---------------------------------------------------------- */

static void set_events(conn *c, uint32_t ev)
{
    struct epoll_event e = {.events = ev, .data.ptr = c};

    if (ev == c->events)
        return;
    epoll_ctl(c->w->epfd, c->events ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, c->nc.fd, &e);
    c->events = ev;
}

void eng_want_write(conn *c, bool on)
{
    if (c->state == CS_READY)
        set_events(c, on ? (EPOLLIN | EPOLLOUT) : EPOLLIN);
}

/* ---- outcomes -------------------------------------------------------- */

static bool warm(const pc_worker *w, uint64_t intended)
{
    return intended < w->measure_start;
}

/* Every latency sample goes to the run totals and to the current interval,
 * so that the intervals add up to the totals exactly. uncorrected < 0:
 * there is none. */
static void rec_latency(pc_worker *w, int64_t corrected, int64_t uncorrected)
{
    hdr_record(&w->st.latency, corrected);
    if (w->iv)
        hdr_record(&w->iv->latency, corrected);
    if (uncorrected >= 0) {
        hdr_record(&w->st.latency_u, uncorrected);
        if (w->iv)
            hdr_record(&w->iv->latency_u, uncorrected);
    }
}

static void record_done(pc_worker *w, const slot *s, uint64_t now, int status, uint64_t body)
{
    uint64_t sent = s->sent ? s->sent : s->intended;
    bool ok = status >= 200 && status < 400;

    if (warm(w, s->intended)) {
        w->warm_outcomes++;
        return;
    }
    w->st.completed++;
    w->last_done = now;
    if (w->st.doc_len < 0)
        w->st.doc_len = (int64_t)body;
    else if ((uint64_t)w->st.doc_len != body)
        w->st.length_differs++;
    hdr_record(&w->st.conn_req, (int64_t)s->ctime);
    if (w->st.nrecs < w->st.caprecs)
        w->st.recs[w->st.nrecs++] = (pc_reqrec){
            .start = sent - s->ctime,
            .ctime = s->ctime,
            .dtime = now - sent,
            .wait = s->first_byte >= sent ? s->first_byte - sent : 0,
        };
    hdr_record(&w->st.total_req, (int64_t)(s->ctime + now - sent));
    if (s->first_byte >= sent && now >= s->first_byte)
        hdr_record(&w->st.processing, (int64_t)(now - s->first_byte));
    if (w->st.urls) {
        w->st.urls[s->tmpl].completed++;
        if (w->st.url_latency)
            hdr_record(&w->st.urls[s->tmpl].latency, (int64_t)(now - s->intended));
    }
    if (status >= 0 && status < STATS_MAX_STATUS)
        w->st.status[status]++;
    else
        w->st.status_other++;
    w->st.non2xx += !ok;
    if (w->iv) {
        w->iv->completed++;
        w->iv->non2xx += !ok;
    }
    if (!w->cfg->batch_latency || w->depth < 2)
        rec_latency(w, (int64_t)(now - s->intended), (int64_t)(now - sent));
    if (s->first_byte >= sent)
        hdr_record(&w->st.ttfb, (int64_t)(s->first_byte - sent));
}

/* A request that got no response. Timeouts and never-sent requests are
 * recorded in the latency histograms at the latency they had reached,
 * a lower bound of the truth: leaving them out is how tools hide stalls. */
static void record_failed(pc_worker *w, const slot *s, int kind, uint64_t now)
{
    if (warm(w, s->intended)) {
        w->warm_outcomes++;
        return;
    }
    if (kind == PC_ERR_TIMEOUT) {
        rec_latency(w, (int64_t)(now - s->intended),
                    (int64_t)(now - (s->sent ? s->sent : s->intended)));
        w->st.lower_bound++;
        if (w->iv)
            w->iv->timeouts++;
    }
    if (w->iv)
        w->iv->errors++;
    if (w->st.urls)
        w->st.urls[s->tmpl].errors++;
    w->st.err[kind]++;
}

/* A never-sent request is known as such only when the run ends, long after
 * the interval it was due in was handed on: it is counted by that
 * interval's index, for the series to place (worker_never_sent_due; one
 * there was no room for is placed in the last interval). */
static void never_sent_due(pc_worker *w, uint64_t intended, uint64_t count)
{
    uint64_t i = (intended - w->measure_start) / w->run->interval_ns;

    if (w->iv && i > w->iv->index)
        i = w->iv->index;
    if (counts_grow(&w->ns_due, &w->ns_n, (uint32_t)i + 1) < 0)
        return;
    w->ns_due[i] += count;
}

static void record_never_sent(pc_worker *w, uint64_t intended, uint64_t now)
{
    if (warm(w, intended)) {
        w->warm_outcomes++;
        return;
    }
    w->st.never_sent++;
    w->st.lower_bound++;
    if (w->run->interval_ns)
        never_sent_due(w, intended, 1);
    rec_latency(w, (int64_t)(now > intended ? now - intended : 0), -1);
}

/* The schedule's requests [k, end) were never sent: counted in bulk, one
 * latency slot and one interval at a time. All the requests of a chunk
 * fall in the same histogram slot (the first, earliest, is recorded alone
 * so the exact max and min stay right), so the result is the same as one
 * at a time, and a backlog of 10^9 requests costs thousands of steps, not
 * 10^9 (-R 1G against a slow server once took 13 s to end). */
static void never_sent_range(pc_worker *w, uint64_t k, uint64_t end, uint64_t now)
{
    const sched *sc = &w->sc;

    while (k < end) {
        uint64_t t = sched_time(sc, k), k2, n;
        int64_t lat = now > t ? (int64_t)(now - t) : 0;

        if (t < w->measure_start) {
            k2 = sched_count_before(sc, w->measure_start);
            k2 = k2 > end ? end : k2 > k ? k2 : k + 1;
            w->warm_outcomes += k2 - k;
            k = k2;
            continue;
        }
        /* Later requests have smaller latencies: the chunk is those whose
         * latency stays in lat's slot (intended <= now - lowest). */
        k2 = lat == 0 ? end
                      : sched_count_before(sc, now - (uint64_t)hdr_lowest_equivalent(
                                                        &w->st.latency, lat) + 1);
        if (w->run->interval_ns) {
            uint64_t iv = (t - w->measure_start) / w->run->interval_ns;
            uint64_t b = sched_count_before(sc, w->measure_start + (iv + 1) * w->run->interval_ns);

            k2 = b < k2 ? b : k2;
        }
        k2 = k2 > end ? end : k2 > k ? k2 : k + 1;
        n = k2 - k;
        w->st.never_sent += n;
        w->st.lower_bound += n;
        if (w->run->interval_ns)
            never_sent_due(w, t, n);
        rec_latency(w, lat, -1);
        if (n > 1) {
            uint64_t tl = sched_time(sc, k2 - 1);
            int64_t last = now > tl ? (int64_t)(now - tl) : 0;

            hdr_record_n(&w->st.latency, lat, (int64_t)n - 2);
            if (w->iv)
                hdr_record_n(&w->iv->latency, lat, (int64_t)n - 2);
            rec_latency(w, last, -1);
        }
        k = k2;
    }
}

static resend backlog_take(pc_worker *w);

/* Everything still queued at the end was never sent: one outcome each. */
static void drain_backlog(pc_worker *w, uint64_t now)
{
    while (w->rs_len || w->oq_total)
        record_never_sent(w, backlog_take(w).intended, now);
    never_sent_range(w, w->k_disp, w->k_due, now);
    w->k_disp = w->k_due;
}

/* ---- slots ------------------------------------------------------------- */

static slot *slot_alloc(conn *c)
{
    uint32_t idx = c->free_idx[--c->nfree];
    slot *s = &c->slots[idx];

    memset(s, 0, sizeof *s);
    s->used = true;
    c->fifo[(c->fifo_head + c->count) % c->depth] = idx;
    c->count++;
    c->w->inflight++;
    return s;
}

static void slot_release(conn *c, slot *s)
{
    s->used = false;
    c->free_idx[c->nfree++] = slot_index(c, s);
    c->count--;
    c->w->inflight--;
    if (c->count == 0)
        c->fifo_head = 0;
}

/* ---- backlog --------------------------------------------------------- */

/* Which request next: round robin over the templates, or weighted
 * random (--mix random) from a per-thread xorshift generator. */
static uint16_t pick_tmpl(pc_worker *w)
{
    const pc_run *run = w->run;
    double x;
    uint32_t lo = 0, hi;

    if (run->ntmpl == 1)
        return 0;
    if (!w->cfg->mix_random)
        return (uint16_t)(w->rr++ % run->ntmpl);
    w->rng ^= w->rng << 13;
    w->rng ^= w->rng >> 7;
    w->rng ^= w->rng << 17;
    x = (double)(w->rng >> 11) / 9007199254740992.0 * run->total_weight;
    hi = run->ntmpl - 1;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;

        if (x < run->tmpls[mid].cum_weight)
            hi = mid;
        else
            lo = mid + 1;
    }
    return (uint16_t)lo;
}

static uint64_t backlog_len(const pc_worker *w)
{
    return w->rs_len + (w->k_due - w->k_disp) + w->oq_total;
}

/* Queue r for its origin, at the back (due now) or the front (re-sent). */
static int oq_push(pc_worker *w, resend r, bool front)
{
    uint32_t o = w->run->tmpls[r.tmpl].origin;

    if (w->oq_len[o] == w->oq_cap[o]) {
        uint32_t cap = w->oq_cap[o] ? w->oq_cap[o] * 2 : 64;
        resend *q = malloc(cap * sizeof *q);

        if (!q)
            return -ENOMEM;
        for (uint32_t i = 0; i < w->oq_len[o]; i++)
            q[i] = w->oq[o][(w->oq_head[o] + i) % w->oq_cap[o]];
        free(w->oq[o]);
        w->oq[o] = q;
        w->oq_head[o] = 0;
        w->oq_cap[o] = cap;
    }
    if (front) {
        w->oq_head[o] = (w->oq_head[o] + w->oq_cap[o] - 1) % w->oq_cap[o];
        w->oq[o][w->oq_head[o]] = r;
    } else {
        w->oq[o][(w->oq_head[o] + w->oq_len[o]) % w->oq_cap[o]] = r;
    }
    w->oq_len[o]++;
    w->oq_total++;
    return 0;
}

static resend oq_pop(pc_worker *w, uint32_t o)
{
    resend r = w->oq[o][w->oq_head[o]];

    w->oq_head[o] = (w->oq_head[o] + 1) % w->oq_cap[o];
    w->oq_len[o]--;
    w->oq_total--;
    return r;
}

static resend backlog_take(pc_worker *w)
{
    resend r;

    if (w->rs_len) {
        r = w->rs[w->rs_head];
        w->rs_head = (w->rs_head + 1) % w->rs_cap;
        w->rs_len--;
        return r;
    }
    for (uint32_t o = 0; w->oq_total && o < w->run->norigins; o++)
        if (w->oq_len[o])
            return oq_pop(w, o);
    r.intended = sched_time(&w->sc, w->k_disp++);
    r.retries = 0;
    r.tmpl = pick_tmpl(w);
    return r;
}

static void ready_push(conn *c)
{
    pc_worker *w = c->w;

    if (c->in_ready || !w->open_loop)
        return;
    w->rq[(w->rq_head + w->rq_len) % w->nconns] = (uint32_t)(c - w->conns);
    w->rq_len++;
    c->in_ready = true;
}

static bool has_room(const conn *c)
{
    /* thread:stop() or a script error: this thread sends nothing more. */
    if (c->w->ts && script_stopped(c->w->ts))
        return false;
    return c->state == CS_READY && !c->draining && c->count < c->proto->capacity(c);
}

static void enqueue(conn *c, resend r)
{
    slot *s = slot_alloc(c);

    if (c->count == 1) {
        c->batch_intended = r.intended;
        c->batch_sent = 0;
    }
    s->intended = r.intended;
    s->retries = r.retries;
    s->tmpl = r.tmpl;
    if (c->fresh) {
        s->ctime = c->conn_time;
        c->fresh = false;
        opening(c, false);
    }
    /* --no-keepalive: one request per connection. */
    if (c->w->cfg->no_keepalive)
        c->draining = true;
    c->proto->submit(c, s);
}

/* Take the next connection off the ready queue. */
static conn *ready_pop(pc_worker *w)
{
    conn *c = &w->conns[w->rq[w->rq_head]];

    w->rq_head = (w->rq_head + 1) % w->nconns;
    w->rq_len--;
    c->in_ready = false;
    return c;
}

/* Several origins: each connection takes from its own origin's queue. */
static void dispatch_origins(pc_worker *w, uint64_t now)
{
    bool progress = true;

    while (progress && w->oq_total && w->rq_len) {
        uint32_t n = w->rq_len;

        progress = false;
        while (n-- > 0 && w->oq_total) {
            conn *c = ready_pop(w);
            uint32_t gen = c->gen;

            if (!has_room(c))
                continue;
            if (w->oq_len[c->origin]) {
                enqueue(c, oq_pop(w, c->origin));
                c->proto->flush(c, now);
                progress = true;
            }
            if (c->gen == gen && has_room(c))
                ready_push(c);
        }
    }
}

/* Hand queued requests to connections with room, oldest first. */
static void dispatch(pc_worker *w, uint64_t now)
{
    if (w->run->norigins > 1) {
        dispatch_origins(w, now);
        return;
    }
    while (backlog_len(w) > 0 && w->rq_len > 0) {
        conn *c = ready_pop(w);
        uint32_t gen = c->gen;

        if (!has_room(c))
            continue;
        enqueue(c, backlog_take(w));
        c->proto->flush(c, now);
        if (c->gen == gen && has_room(c))
            ready_push(c);
    }
}

/* Closed loop: a connection with room sends at once. HTTP/1.1 pipelining
 * refills only an idle connection (a batch at a time, as wrk). */
static void closed_fill(conn *c, uint64_t now)
{
    pc_worker *w = c->w;
    bool any = false;

    if (w->open_loop || w->phase != P_RUN)
        return;
    if (c->proto == &proto_h1 && c->count)
        return;
    if (w->lua_delay && c->count == 0) {
        /* delay(): wait that long before this connection's next request. */
        if (!c->wake_at) {
            double ms = script_delay(w->ts);

            if (ms > 0) {
                c->wake_at = now + (uint64_t)(ms * 1e6);
                if (!w->next_wake || c->wake_at < w->next_wake)
                    w->next_wake = c->wake_at;
                return;
            }
        } else if (now < c->wake_at) {
            return;
        }
        c->wake_at = 0;
    }
    while (has_room(c)) {
        if (w->run->norigins > 1 && w->oq_len[c->origin]) {
            enqueue(c, oq_pop(w, c->origin));
        } else if (w->run->norigins == 1 && w->rs_len) {
            enqueue(c, backlog_take(w));
        } else {
            uint16_t t = pick_tmpl(w);

            if (w->quota && w->created >= w->quota)
                break;
            /* Several origins: a request of this connection's origin. */
            for (int tries = 0; w->run->norigins > 1 && w->run->tmpls[t].origin != c->origin;
                 tries++)
                t = tries < 64 ? pick_tmpl(w) : w->first_tmpl[c->origin];
            w->created++;
            /* Counted before it is handed on: the script's request() runs
             * inside, and a worker seized there still owes it an outcome. */
            if (!warm(w, now))
                w->st.scheduled++;
            enqueue(c, (resend){.intended = now, .tmpl = t});
        }
        any = true;
    }
    if (any)
        c->proto->flush(c, now);
}

/* ---- what the protocols report ----------------------------------------- */

void eng_first_byte(conn *c, slot *s, uint64_t now)
{
    (void)c;
    if (!s->first_byte)
        s->first_byte = now;
}

void eng_done(conn *c, slot *s, int status, uint64_t body_len, uint64_t now)
{
    pc_worker *w = c->w;

    c->reused = true;
    c->fails = 0;
    if (!warm(w, s->intended)) {
        c->done_total++;
        if (!c->draining)
            w->st.keepalive_responses++;
    }
    record_done(w, s, now, status, body_len);
    slot_release(c, s);
    if (c->count == 0 && w->cfg->batch_latency && w->depth > 1 && !warm(w, c->batch_intended)) {
        rec_latency(w, (int64_t)(now - c->batch_intended),
                    (int64_t)(now - (c->batch_sent ? c->batch_sent : now)));
        hdr_record(&w->st.batch, (int64_t)(now - c->batch_intended));
    }
}

void eng_failed(conn *c, slot *s, enum pc_err_kind kind, const char *why, uint64_t now)
{
    stats_why(&c->w->st, kind, why);
    record_failed(c->w, s, kind, now);
    slot_release(c, s);
}

void eng_refused(conn *c, slot *s, const char *why, uint64_t now)
{
    pc_worker *w = c->w;

    if (s->retries >= MAX_RETRIES) {
        char buf[STATS_WHY_LEN];

        snprintf(buf, sizeof buf, "%s, %d times", why, MAX_RETRIES + 1);
        eng_failed(c, s, PC_ERR_PROTOCOL, buf, now);
        return;
    }
    /* Back to the front of the line: it was due before anything queued. */
    if (w->run->norigins > 1) {
        oq_push(w, (resend){.intended = s->intended, .retries = (uint8_t)(s->retries + 1),
                            .tmpl = s->tmpl},
                true);
        if (!warm(w, s->intended))
            w->st.resent++;
        slot_release(c, s);
        return;
    }
    w->rs_head = (w->rs_head + w->rs_cap - 1) % w->rs_cap;
    w->rs[w->rs_head] =
        (resend){.intended = s->intended, .retries = (uint8_t)(s->retries + 1), .tmpl = s->tmpl};
    w->rs_len++;
    if (!warm(w, s->intended))
        w->st.resent++;
    slot_release(c, s);
}

void eng_drain(conn *c)
{
    c->draining = true;
}

const char *eng_h1_bytes(conn *c, slot *s, size_t *len, bool *head)
{
    pc_worker *w = c->w;
    const char *p;

    if (w->lua_req) {
        /* request() returns a whole pipelined batch: the batch's first
         * request carries the bytes, the others none. */
        if (c->count > 1 && c->proto == &proto_h1 && !w->open_loop) {
            *len = 0;
            *head = false;
            return NULL;
        }
        p = script_request(w->ts, len);
        *head = p && *len >= 5 && memcmp(p, "HEAD ", 5) == 0;
        return p;
    }
    if (w->use_own) {
        *len = w->own.h1_len;
        *head = w->own.head;
        return w->own.h1;
    }
    *len = w->run->tmpls[s->tmpl].h1_len;
    *head = w->run->tmpls[s->tmpl].head;
    return w->run->tmpls[s->tmpl].h1;
}

int sbuf_add(sbuf *b, const char *p, size_t n, size_t max)
{
    if (b->len + n > max)
        return 0;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        char *q;

        while (cap < b->len + n)
            cap *= 2;
        q = realloc(b->p, cap);
        if (!q)
            return -ENOMEM;
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->len, p, n);
    b->len += n;
    return 0;
}

sbuf *eng_slot_buf(conn *c, const slot *s, int which)
{
    return c->sb ? &c->sb[slot_index(c, s) * 3 + (uint32_t)which] : NULL;
}

static void nv_set(nghttp2_nv *v, const char *n, size_t nl, const char *val, size_t vl)
{
    v->name = (uint8_t *)n;
    v->namelen = nl;
    v->value = (uint8_t *)val;
    v->valuelen = vl;
    v->flags = NGHTTP2_NV_FLAG_NONE; /* nghttp2 copies them at submit */
}

bool eng_h2_request(conn *c, slot *s, const void **nva, size_t *nvlen)
{
    pc_worker *w = c->w;
    const char *text, *authority = w->cfg->url.hostport;
    size_t len, n = 0, used = 0, alen = strlen(authority);
    h1req_parsed r;
    bool head;

    if (!w->ts)
        return false;
    text = eng_h1_bytes(c, s, &len, &head);
    *nva = NULL;
    if (!text || h1req_parse(text, len, &r) < 0) {
        eng_failed(c, s, PC_ERR_WRITE,
                   text ? "script request is not valid HTTP/1.1 text" : "script error in request()",
                   0);
        return true;
    }
    for (size_t i = 0; i < r.nh; i++)
        if (r.h[i].nlen == 4 && strncasecmp(r.h[i].name, "host", 4) == 0) {
            authority = r.h[i].value;
            alen = r.h[i].vlen;
        }
    nv_set(&w->nv[n++], ":method", 7, r.method, r.method_len);
    nv_set(&w->nv[n++], ":scheme", 7, w->cfg->url.tls ? "https" : "http", w->cfg->url.tls ? 5 : 4);
    nv_set(&w->nv[n++], ":authority", 10, authority, alen);
    nv_set(&w->nv[n++], ":path", 5, r.target, r.target_len);
    for (size_t i = 0; i < r.nh; i++) {
        static const char *const banned[] = {"host", "connection", "keep-alive",
                                             "proxy-connection", "transfer-encoding", "upgrade"};
        char *low = w->nvnames + used;
        bool skip = false;

        if (used + r.h[i].nlen > sizeof w->nvnames)
            break;
        for (size_t k = 0; k < r.h[i].nlen; k++)
            low[k] = (char)tolower((unsigned char)r.h[i].name[k]);
        for (size_t b = 0; b < sizeof banned / sizeof banned[0]; b++)
            skip = skip || (strlen(banned[b]) == r.h[i].nlen && memcmp(low, banned[b], r.h[i].nlen) == 0);
        if (skip)
            continue;
        used += r.h[i].nlen;
        nv_set(&w->nv[n++], low, r.h[i].nlen, r.h[i].value, r.h[i].vlen);
    }
    /* The body must outlive this call: a static request's is stable, a
     * request()'s is copied into the slot's buffer. */
    s->req_body = r.body;
    s->req_body_len = r.body_len;
    if (r.body_len && w->lua_req) {
        sbuf *b = eng_slot_buf(c, s, 0);

        if (b)
            b->len = 0;
        if (!b || sbuf_add(b, r.body, r.body_len, SBUF_REQUEST_MAX) < 0) {
            eng_failed(c, s, PC_ERR_WRITE, "out of memory", 0);
            return true;
        }
        s->req_body = b->p;
    }
    *nva = w->nv;
    *nvlen = n;
    return true;
}

void eng_script_response_slot(conn *c, slot *s, int status)
{
    sbuf *h = eng_slot_buf(c, s, 1), *b = eng_slot_buf(c, s, 2);

    script_response(c->w->ts, status, h->p, h->len, b->p, b->len);
    h->len = b->len = 0;
}

bool eng_wants_response(const conn *c)
{
    return c->w->lua_resp;
}

void eng_script_response(conn *c, int status)
{
    script_response(c->w->ts, status, c->rh.p, c->rh.len, c->rb.p, c->rb.len);
    c->rh.len = c->rb.len = 0;
}

bool eng_want_server(const conn *c)
{
    return !c->w->st.server[0];
}

void eng_server(conn *c, const char *v, size_t n)
{
    pc_stats *st = &c->w->st;

    if (!st->server[0]) {
        if (n >= sizeof st->server)
            n = sizeof st->server - 1;
        memcpy(st->server, v, n);
        st->server[n] = '\0';
        for (char *p = st->server; *p; p++)
            if ((unsigned char)*p < ' ')
                *p = '?';
    }
}

void eng_written(conn *c, size_t n)
{
    c->w->st.bytes_written += n;
}

void eng_close_after(conn *c, const slot *s)
{
    if (!warm(c->w, s->intended))
        c->w->st.server_closes++;
    c->draining = true;
}

void eng_idle_closed(conn *c)
{
    if (c->reused)
        c->w->st.idle_closes++;
}

void eng_headers(conn *c, uint64_t wire, uint64_t decoded)
{
    c->w->st.header_wire += wire;
    c->w->st.header_decoded += decoded;
}

void eng_body(conn *c, uint64_t n)
{
    c->w->st.body_bytes += n;
}

void eng_h2_event(conn *c, int ev)
{
    if (ev == H2EV_RST)
        c->w->st.h2_rst++;
    else if (ev == H2EV_REFUSED)
        c->w->st.h2_refused++;
    else if (ev == H2EV_GOAWAY)
        c->w->st.h2_goaway++;
    else
        c->w->st.h2_conns++;
}

/* ---- connection lifecycle -------------------------------------------- */

static void conn_close(conn *c)
{
    if (c->proto)
        c->proto->reset(c);
    if (c->nc.fd >= 0)
        c->net->close(&c->nc);
    c->gen++;
    opening(c, false);
    c->state = CS_CLOSED;
    c->events = 0;
    c->reused = false;
    c->draining = false;
    c->nc.want = 0;
}

static void settle(conn *c)
{
    if (!c->settled) {
        c->settled = true;
        c->w->settled++;
    }
}

/* ALPN decides the protocol over TLS; --h2 means prior knowledge in clear. */
static const proto_ops *pick_proto(conn *c, char *why, size_t whylen)
{
    const pc_run *run = c->w->run;
    const unsigned char *sel = NULL;
    unsigned int len = 0;

    if (!run->origins[c->origin].tls)
        return run->h2 ? &proto_h2 : &proto_h1;
    SSL_get0_alpn_selected(c->nc.ssl, &sel, &len);
    if (len == 2 && memcmp(sel, "h2", 2) == 0)
        return &proto_h2;
    if ((len == 8 && memcmp(sel, "http/1.1", 8) == 0) || len == 0) {
        if (!run->h2 || run->alpn_h1_ok)
            return &proto_h1;
        snprintf(why, whylen, "server refused h2 (ALPN: %s)",
                 len ? "it chose http/1.1" : "it chose no protocol");
        return NULL;
    }
    snprintf(why, whylen, "server chose an unsupported protocol with ALPN: %.*s", (int)len, sel);
    return NULL;
}

static void connect_failed(conn *c, const char *why, uint64_t now);

static void on_ready(conn *c, uint64_t now)
{
    pc_worker *w = c->w;
    char why[STATS_WHY_LEN] = "";
    int rc;

    c->proto = pick_proto(c, why, sizeof why);
    if (!c->proto) {
        c->tries = UINT32_MAX / 2; /* another address would say the same */
        connect_failed(c, why, now);
        return;
    }
    c->state = CS_READY;
    c->tries = 0;
    c->fresh = true;
    c->conn_time = now - c->t_start;
    w->pref_addr = c->addr_idx;
    w->st.connects++;
    if (c->proto == &proto_h1)
        w->st.h1_conns++;
    settle(c);
    set_events(c, EPOLLIN);
    rc = c->proto->start(c, now);
    if (rc < 0) {
        connect_failed(c, strerror(-rc), now);
        return;
    }
    after_io(c, now);
}

/* The addresses c connects to: its origin's, or the worker's. */
static const pc_addr *conn_addrs(const conn *c, uint32_t *n)
{
    const pc_worker *w = c->w;

    if (w->run->norigins > 1) {
        *n = w->run->origins[c->origin].naddrs;
        return w->run->origins[c->origin].addrs;
    }
    *n = w->naddrs;
    return w->addrs;
}

static void connect_failed(conn *c, const char *why, uint64_t now)
{
    pc_worker *w = c->w;
    char buf[STATS_WHY_LEN];
    uint32_t naddrs;
    const pc_addr *addrs = conn_addrs(c, &naddrs);

    conn_close(c);
    snprintf(buf, sizeof buf, "%s: %s", addrs[c->addr_idx].text, why);
    c->tries++;
    if (c->tries < naddrs) {
        /* Names resolve once; each address is tried in order. A failure
         * that another address of the name makes good is no failed connect
         * (localhost as ::1 against a server on 127.0.0.1 only): it is
         * counted apart, and the address that answers is tried first. */
        w->st.addr_fallbacks++;
        if (!w->st.fallback_why[0])
            snprintf(w->st.fallback_why, sizeof w->st.fallback_why, "%s", buf);
        c->addr_idx = (c->addr_idx + 1) % naddrs;
        conn_start(c, now);
        return;
    }
    w->st.connect_errors++;
    stats_why(&w->st, PC_ERR_CONNECT, buf);
    settle(c);
    c->tries = 0;
    c->state = CS_BACKOFF;
    /* 50 ms, doubling while the connects keep failing, up to 1 s. */
    c->t_start = now + (c->fails < 5 ? BACKOFF_NS << c->fails : 1000000000ull);
    if (c->fails++)
        w->st.reconnect_backoffs++;
}

static void do_handshake(conn *c, uint64_t now)
{
    pc_worker *w = c->w;
    char why[STATS_WHY_LEN] = "";
    int rc = c->net->handshake(&c->nc, why, sizeof why);

    if (rc == 0) {
        /* OpenSSL may run the whole handshake inside this one call when
         * the server's answers are already there (loopback), so the
         * event's time would read as 0: take the clock again. */
        now = pc_now_ns();
        if (w->run->origins[c->origin].tls) {
            hdr_record(&w->st.tls, (int64_t)(now - c->t_tcp));
            if (net_tls_resumed(&c->nc))
                w->st.tls_resumed++;
            if (!w->st.tls_version[0]) {
                snprintf(w->st.tls_version, sizeof w->st.tls_version, "%s",
                         SSL_get_version(c->nc.ssl));
                snprintf(w->st.tls_cipher, sizeof w->st.tls_cipher, "%s",
                         SSL_get_cipher_name(c->nc.ssl));
            }
        }
        on_ready(c, now);
    } else if (rc == -EAGAIN) {
        set_events(c, c->nc.want == NET_WANT_WRITE ? EPOLLOUT : EPOLLIN);
    } else {
        if (w->run->h2 && strstr(why, "no application protocol")) {
            /* A server that does not speak h2 may refuse the handshake
             * outright rather than choose http/1.1. */
            snprintf(why, sizeof why, "server refused h2 (TLS alert: no application protocol)");
            c->tries = UINT32_MAX / 2;
        }
        connect_failed(c, why[0] ? why : strerror(-rc), now);
    }
}

/* Whether the kernel had to retransmit our SYN (or the handshake's ACK)
 * before this connection was established: on loopback, the sign of a full
 * accept backlog. Unix-domain sockets have no TCP_INFO: false. */
static bool syn_retransmitted(int fd)
{
    struct tcp_info ti;
    socklen_t len = sizeof ti;

    memset(&ti, 0, sizeof ti);
    return getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) == 0 && ti.tcpi_total_retrans > 0;
}

static void on_tcp_connected(conn *c, uint64_t now)
{
    pc_worker *w = c->w;

    c->t_tcp = now;
    hdr_record(&w->st.connect, (int64_t)(now - c->t_start));
    if (syn_retransmitted(c->nc.fd))
        w->st.connect_retrans++;
    if (w->run->origins[c->origin].tls) {
        if (net_tls_attach(&c->nc, w->run->ssl_ctx, w->run->origins[c->origin].tls_name, w->session,
                           &w->session) < 0) {
            connect_failed(c, "TLS: out of memory", now);
            return;
        }
        c->state = CS_HANDSHAKE;
    }
    do_handshake(c, now);
}

static void conn_start(conn *c, uint64_t now)
{
    pc_worker *w = c->w;
    const pc_addr *a;
    int rc;

    if (c->tries == 0)
        c->addr_idx = w->run->norigins > 1 ? 0 : w->pref_addr;
    {
        uint32_t n;

        a = &conn_addrs(c, &n)[c->addr_idx];
    }
    c->t_start = now;
    c->events = 0;
    c->proto = NULL;
    opening(c, true);
    rc = net_connect(&c->nc, (const struct sockaddr *)&a->sa, a->len);
    if (rc == 0) {
        c->state = CS_CONNECTING;
        set_events(c, EPOLLIN);
        on_tcp_connected(c, now);
    } else if (rc == -EINPROGRESS) {
        c->state = CS_CONNECTING;
        set_events(c, EPOLLOUT);
    } else {
        if (rc == -EMFILE || rc == -ENFILE)
            snprintf(w->err, sizeof w->err, "out of file descriptors");
        connect_failed(c, rc == -EADDRNOTAVAIL ? "no free local port (port exhaustion)"
                                               : strerror(-rc),
                       now);
    }
}

/* Is there work for one more connection? With -n, the requests left must
 * outnumber the connections already opening, or the extra connection
 * would only be opened and closed (wrong with --no-keepalive, where each
 * request's connection is counted). */
static bool more_work(const pc_worker *w)
{
    uint64_t left;

    if (!w->quota)
        return true;
    left = backlog_len(w) + (w->open_loop ? w->k_end - w->k_due : w->quota - w->created);
    return left > w->opening;
}

static void opening(conn *c, bool on)
{
    if (c->opening != on) {
        c->opening = on;
        if (on)
            c->w->opening++;
        else
            c->w->opening--;
    }
}

void eng_conn_recycle(conn *c, uint64_t now)
{
    conn_close(c);
    if (c->w->phase == P_RUN && more_work(c->w))
        conn_start(c, now);
}

void eng_conn_fail(conn *c, enum pc_err_kind kind, const char *why, uint64_t now)
{
    if (c->count == 0) {
        /* No request to charge it to: say it happened, to the connection. */
        pc_stats *st = &c->w->st;

        st->conn_drops++;
        if (!st->drop_why[0] && why)
            snprintf(st->drop_why, sizeof st->drop_why, "%s", why);
        eng_conn_recycle(c, now);
        return;
    }
    stats_why(&c->w->st, kind, why);
    for (uint32_t i = 0; i < c->depth && c->count; i++)
        if (c->slots[i].used) {
            record_failed(c->w, &c->slots[i], kind, now);
            slot_release(c, &c->slots[i]);
        }
    /* A server that fails every connection before answering anything is
     * not hit thousands of times a second: the second failure in a row
     * waits 10 ms before reopening, doubling up to 1 s. */
    if (++c->fails >= 2 && c->w->phase == P_RUN && more_work(c->w)) {
        uint32_t sh = c->fails - 2 < 7 ? c->fails - 2 : 7;
        uint64_t wait = RECONNECT_BACKOFF_NS << sh;

        conn_close(c);
        c->w->st.reconnect_backoffs++;
        c->state = CS_BACKOFF;
        c->t_start = now + (wait < 1000000000ull ? wait : 1000000000ull);
        return;
    }
    eng_conn_recycle(c, now);
}

/* After a protocol has had its say: reopen a drained connection, or give
 * a connection with room its next requests. */
static void after_io(conn *c, uint64_t now)
{
    if (c->state != CS_READY)
        return;
    if (c->draining) {
        if (c->count == 0)
            eng_conn_recycle(c, now);
        return;
    }
    if (c->w->phase != P_RUN)
        return;
    if (c->w->open_loop) {
        if (has_room(c))
            ready_push(c);
    } else {
        closed_fill(c, now);
    }
}

/* ---- reading --------------------------------------------------------- */

static void on_readable(conn *c)
{
    pc_worker *w = c->w;
    uint32_t gen = c->gen;

    for (int rounds = 0; rounds < 16; rounds++) {
        uint32_t keep = c->carry_len;
        size_t room = RBUF_SIZE - keep;
        ssize_t n = c->net->read(&c->nc, w->rbuf + keep, room);
        uint64_t now = pc_now_ns();

        if (n > 0) {
            if (keep)
                memcpy(w->rbuf, c->carry, keep);
            c->carry_len = 0;
            if (!warm(w, now)) {
                w->st.bytes_read += (uint64_t)n;
                if (w->iv)
                    w->iv->bytes_read += (uint64_t)n;
            }
            c->proto->input(c, w->rbuf, keep + (size_t)n, now);
            if (c->gen != gen)
                return;
            if ((size_t)n < room && c->net->pending(&c->nc) == 0)
                break;
        } else if (n == 0) {
            c->proto->eof(c, now);
            if (c->gen == gen)
                eng_conn_recycle(c, now);
            return;
        } else if (n == -EAGAIN) {
            break;
        } else {
            eng_conn_fail(c, PC_ERR_READ, strerror((int)-n), now);
            return;
        }
    }
    if (c->state == CS_READY) {
        uint64_t now = pc_now_ns();

        after_io(c, now);
        if (c->gen == gen && c->state == CS_READY)
            c->proto->flush(c, now);
    }
}

/* The measured period starts: forget what the warm-up measured. Called
 * before anything is processed at or after measure_start, so nothing of
 * the measured period is lost; per-request outcomes of warm-up requests
 * never reach the statistics anyway (see warm()). */
static inline void check_warmup(pc_worker *w, uint64_t now)
{
    if (!w->warm_reset && w->phase == P_RUN && now >= w->measure_start) {
        stats_reset(&w->st);
        w->warm_reset = true;
    }
}

static void on_event(conn *c, uint32_t ev)
{
    uint64_t now = pc_now_ns();

    check_warmup(c->w, now);
    switch (c->state) {
    case CS_CONNECTING: {
        int rc = net_connect_result(&c->nc);

        if (rc < 0)
            connect_failed(c, strerror(-rc), now);
        else
            on_tcp_connected(c, now);
        break;
    }
    case CS_HANDSHAKE:
        do_handshake(c, now);
        break;
    case CS_READY:
        if (ev & (EPOLLIN | EPOLLERR | EPOLLHUP))
            on_readable(c);
        else if (ev & EPOLLOUT)
            c->proto->flush(c, now);
        break;
    default:
        break;
    }
}

/* ---- time ------------------------------------------------------------ */

/* Timeouts, connect retries and the Req/Sec sample, every tick. */
static void tick(pc_worker *w, uint64_t now)
{
    uint64_t to = w->cfg->timeout_ns;

    for (uint32_t i = 0; i < w->nconns; i++) {
        conn *c = &w->conns[i];
        uint32_t gen = c->gen;

        switch (c->state) {
        case CS_CONNECTING:
        case CS_HANDSHAKE:
            if (now - c->t_start >= w->cfg->connect_timeout_ns) {
                w->st.connect_timeouts++;
                c->tries = UINT32_MAX / 2; /* no quick retry: back off */
                connect_failed(c, "connect timed out", now);
            }
            break;
        case CS_BACKOFF:
            if (now >= c->t_start && (w->phase == P_RUN || w->phase == P_CONNECT))
                conn_start(c, now);
            break;
        case CS_CLOSED:
            /* Closed for lack of work; work came back (a re-send). */
            if (w->phase == P_RUN && w->rs_len)
                conn_start(c, now);
            break;
        case CS_READY:
            for (uint32_t j = 0; j < c->depth && c->count && c->gen == gen; j++) {
                slot *s = &c->slots[j];
                uint64_t since = s->sent ? s->sent : s->intended;

                if (s->used && now >= since + to)
                    c->proto->timeout(c, s, now);
            }
            if (c->gen == gen) {
                after_io(c, now);
                if (c->gen == gen && c->state == CS_READY)
                    c->proto->flush(c, now);
            }
            break;
        default:
            break;
        }
    }
    if (w->phase == P_RUN && now > w->measure_start) {
        uint64_t since = w->rps_t > w->measure_start ? w->rps_t : w->measure_start;

        if (now - since >= w->tick_ns / 2) {
            double r = (double)(w->st.completed - w->rps_completed) * 1e9 / (double)(now - since);

            hdr_record(&w->st.rps, (int64_t)(r + 0.5));
            w->rps_t = now;
            w->rps_completed = w->st.completed;
        }
    }
    w->next_tick = now + w->tick_ns;
}

/* Wait for events until `deadline` (absolute, ns). epoll_pwait2 takes a
 * nanosecond timeout; on kernels without it a timerfd does the same. */
static int wait_events(pc_worker *w, struct epoll_event *ev, uint64_t deadline, uint64_t now)
{
    uint64_t d = deadline > now ? deadline - now : 0;
    int n;

    if (w->use_pwait2) {
        struct timespec ts = {.tv_sec = (time_t)(d / 1000000000u),
                              .tv_nsec = (long)(d % 1000000000u)};

        n = epoll_pwait2(w->epfd, ev, MAX_EVENTS, &ts, NULL);
        if (n >= 0 || errno != ENOSYS)
            return n;
        w->use_pwait2 = false;
    }
    if (d == 0)
        return epoll_wait(w->epfd, ev, MAX_EVENTS, 0);
    if (w->tfd_armed != deadline) {
        struct itimerspec its = {.it_value = {.tv_sec = (time_t)(deadline / 1000000000u),
                                              .tv_nsec = (long)(deadline % 1000000000u)}};

        timerfd_settime(w->tfd, TFD_TIMER_ABSTIME, &its, NULL);
        w->tfd_armed = deadline;
    }
    return epoll_wait(w->epfd, ev, MAX_EVENTS, -1);
}

static void handle_events(pc_worker *w, struct epoll_event *ev, int n)
{
    for (int i = 0; i < n; i++) {
        if (ev[i].data.ptr == NULL) {
            uint64_t x;

            if (read(w->tfd, &x, sizeof x) < 0) {
                /* nothing: spurious wake-up */
            }
            w->tfd_armed = 0;
            continue;
        }
        on_event(ev[i].data.ptr, ev[i].events);
    }
}

/* ---- intervals ------------------------------------------------------- */

/* Hand the current interval to the main thread and start the next one.
 * Steady state allocates nothing: the main thread hands intervals back. */
static void iv_publish(pc_worker *w, uint64_t end)
{
    pc_interval *done = w->iv, *next;
    uint32_t index = done->index + 1;

    done->end_ns = end;
    done->parts = 1;
    done->next = NULL;
    pthread_mutex_lock(&w->mb);
    if (!w->iv_ready) {
        w->iv_ready = done;
    } else {
        pc_interval *t = w->iv_ready;

        while (t->next)
            t = t->next;
        t->next = done;
    }
    next = w->iv_free;
    if (next)
        w->iv_free = next->next;
    pthread_mutex_unlock(&w->mb);
    if (!next)
        next = interval_new();
    w->iv = next;
    if (next) {
        next->next = NULL;
        next->index = index;
        next->start_ns = end;
    }
    w->iv_end = w->measure_start + (uint64_t)(index + 1) * w->run->interval_ns;
}

pc_interval *worker_take_intervals(pc_worker *w)
{
    pc_interval *list;

    pthread_mutex_lock(&w->mb);
    list = w->iv_ready;
    w->iv_ready = NULL;
    pthread_mutex_unlock(&w->mb);
    return list;
}

void worker_return_intervals(pc_worker *w, pc_interval *list)
{
    while (list) {
        pc_interval *next = list->next;

        interval_reset(list);
        pthread_mutex_lock(&w->mb);
        list->next = w->iv_free;
        w->iv_free = list;
        pthread_mutex_unlock(&w->mb);
        list = next;
    }
}

/* ---- phases ---------------------------------------------------------- */

static void begin_drain(pc_worker *w, uint64_t now)
{
    uint64_t stop = w->stop;

    w->phase = P_DRAIN;
    w->stopped_ns = stop;
    drain_backlog(w, stop);
    w->drain_end = now + w->cfg->timeout_ns;
}

static void finish(pc_worker *w, uint64_t now, bool interrupted)
{
    double secs = (double)(w->stopped_ns - w->measure_start) / 1e9;
    uint64_t end = !w->open_loop && w->last_done > w->stopped_ns ? w->last_done : w->stopped_ns;

    /* A run shorter than half a tick took no Req/Sec sample: its one
     * sample is the whole period (never a 0 that was not measured). */
    if (w->st.rps.total_count == 0 && end > w->measure_start)
        hdr_record(&w->st.rps, (int64_t)((double)w->st.completed * 1e9 /
                                             (double)(end - w->measure_start) +
                                         0.5));

    for (uint32_t i = 0; i < w->nconns; i++) {
        conn *c = &w->conns[i];

        if (secs > 0)
            hdr_record(&w->st.conn_rps, (int64_t)((double)c->done_total / secs + 0.5));

        for (uint32_t j = 0; j < c->depth && c->count; j++) {
            slot *s = &c->slots[j];

            if (!s->used)
                continue;
            if (warm(w, s->intended))
                w->warm_outcomes++;
            else if (interrupted)
                w->st.interrupted++;
            else
                record_failed(w, s, PC_ERR_TIMEOUT, now);
            if (!interrupted && !warm(w, s->intended))
                stats_why(&w->st, PC_ERR_TIMEOUT, "no response within --timeout");
            slot_release(c, s);
        }
        conn_close(c);
    }
    /* Requests refused during the drain came back to the backlog, too late
     * to be sent again: they were never sent (their only outcome). */
    drain_backlog(w, w->stopped_ns ? w->stopped_ns : now);
    /* The last interval ends with the run; one that began at the stop and
     * saw nothing (a drain with nothing in flight) is not worth a line. */
    if (w->iv && (w->iv->start_ns < w->stop || w->iv->completed || w->iv->errors))
        iv_publish(w, now);
    w->phase = P_DONE;
}

static void advance_schedule(pc_worker *w, uint64_t now)
{
    uint64_t k = sched_count_before(&w->sc, now + 1);

    if (k > w->k_end)
        k = w->k_end;
    if (k > w->k_due) {
        uint64_t from = w->k_due > w->k_meas ? w->k_due : w->k_meas;

        if (k > from)
            w->st.scheduled += k - from;
        if (w->run->norigins > 1) {
            /* Each due request joins its origin's queue at once. */
            for (uint64_t j = w->k_due; j < k; j++)
                oq_push(w, (resend){.intended = sched_time(&w->sc, j), .tmpl = pick_tmpl(w)},
                        false);
            w->k_disp = k;
        }
        w->k_due = k;
    }
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

static void run_loop(pc_worker *w)
{
    struct epoll_event ev[MAX_EVENTS];
    pc_run *run = w->run;

    for (;;) {
        uint64_t now = pc_now_ns();
        uint64_t deadline;
        int n;

        if (atomic_load_explicit(&run->abort_now, memory_order_relaxed)) {
            if (w->phase == P_RUN)
                begin_drain(w, now);
            finish(w, now, true);
            return;
        }
        if (w->phase == P_RUN) {
            uint64_t s = atomic_load_explicit(&run->stop_ns, memory_order_relaxed);

            if (s && s < w->stop)
                w->stop = s > w->measure_start ? s : w->measure_start;
            check_warmup(w, now);
            while (w->iv && now >= w->iv_end && w->iv_end <= w->stop)
                iv_publish(w, w->iv_end);
            if (w->open_loop) {
                advance_schedule(w, now < w->stop ? now : w->stop - 1);
                dispatch(w, now);
            }
            /* thread:stop(), or a script error: this thread is done. */
            if (w->ts && script_stopped(w->ts) && w->stop > now) {
                w->stop = now > w->measure_start ? now : w->measure_start;
                w->script_stop = true;
            }
            if (w->next_wake && now >= w->next_wake) {
                w->next_wake = 0;
                for (uint32_t i = 0; i < w->nconns; i++) {
                    conn *c = &w->conns[i];

                    if (!c->wake_at)
                        continue;
                    if (now >= c->wake_at)
                        closed_fill(c, now);
                    else if (!w->next_wake || c->wake_at < w->next_wake)
                        w->next_wake = c->wake_at;
                }
            }
            /* -n: every request created and answered: the run is over. */
            if (w->quota && w->inflight == 0 && backlog_len(w) == 0 &&
                (w->open_loop ? w->k_due >= w->k_end : w->created >= w->quota))
                w->stop = now;
            if (now >= w->stop)
                begin_drain(w, now);
        }
        if (now >= w->next_tick)
            tick(w, now);
        if (w->phase == P_DRAIN && (w->inflight == 0 || now >= w->drain_end)) {
            finish(w, now, false);
            return;
        }
        deadline = w->next_tick;
        if (w->phase == P_RUN) {
            deadline = min_u64(deadline, w->stop);
            if (!w->warm_reset)
                deadline = min_u64(deadline, w->measure_start);
            if (w->iv)
                deadline = min_u64(deadline, w->iv_end);
            if (w->next_wake)
                deadline = min_u64(deadline, w->next_wake);
            if (w->open_loop && w->k_due < w->k_end && w->rq_len)
                deadline = min_u64(deadline, sched_time(&w->sc, w->k_due));
        } else {
            deadline = min_u64(deadline, w->drain_end);
        }
        n = wait_events(w, ev, deadline, now);
        if (n < 0 && errno != EINTR) {
            snprintf(w->err, sizeof w->err, "epoll: %s", strerror(errno));
            finish(w, pc_now_ns(), true);
            return;
        }
        if (n > 0)
            handle_events(w, ev, n);
    }
}

/* Open every connection at once (wrk2 staggers them; pacer does not) and
 * wait until each has connected or failed, at most --timeout. */
static void connect_phase(pc_worker *w)
{
    struct epoll_event ev[MAX_EVENTS];
    uint64_t now = pc_now_ns(), until = now + w->cfg->connect_timeout_ns;

    w->phase = P_CONNECT;
    w->next_tick = now + w->tick_ns;
    for (uint32_t i = 0; i < w->nconns; i++)
        conn_start(&w->conns[i], now);
    while (w->settled < w->nconns && now < until &&
           !atomic_load_explicit(&w->run->stop_ns, memory_order_relaxed)) {
        int n = wait_events(w, ev, min_u64(until, w->next_tick), now);

        if (n > 0)
            handle_events(w, ev, n);
        now = pc_now_ns();
        if (now >= w->next_tick)
            tick(w, now);
    }
}

void *worker_main(void *arg)
{
    pc_worker *w = arg;
    pc_run *run = w->run;
    const pc_config *cfg = w->cfg;
    uint64_t start;

    /* Linux delays timer wake-ups by up to 50 us by default to batch them;
     * that delay would be latency the client adds to every paced request. */
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    if (w->ts)
        script_thread_bind(w->ts);
    connect_phase(w);

    pthread_mutex_lock(&run->lock);
    run->ready++;
    pthread_cond_broadcast(&run->cond);
    while (run->start_ns == 0)
        pthread_cond_wait(&run->cond, &run->lock);
    start = run->start_ns;
    pthread_mutex_unlock(&run->lock);

    w->measure_start = start + cfg->warmup_ns;
    w->end = w->measure_start + cfg->duration_ns;
    w->stop = w->end;
    w->warm_reset = cfg->warmup_ns == 0;
    w->rps_t = w->measure_start;
    if (w->iv) {
        w->iv->start_ns = w->measure_start;
        w->iv_end = w->measure_start + run->interval_ns;
    }
    if (w->open_loop) {
        sched_init(&w->sc, start, cfg->rate, cfg->threads, w->index);
        w->k_end = sched_count_before(&w->sc, w->end);
        w->k_meas = sched_count_before(&w->sc, w->measure_start);
        if (w->quota && w->k_end > w->quota)
            w->k_end = w->quota;
    }
    w->phase = P_RUN;
    /* Stopped while connecting: nothing is sent. */
    for (uint32_t i = 0; !atomic_load(&run->stop_ns) && i < w->nconns; i++)
        after_io(&w->conns[i], pc_now_ns());
    run_loop(w);
    atomic_store(&w->done, true);
    atomic_fetch_add(&run->finished, 1);
    return NULL;
}

bool worker_seize(pc_worker *w, uint64_t stuck_since, uint64_t now)
{
    if (atomic_load(&w->done) || !w->ts || !script_thread_seize(w->ts, stuck_since))
        return false;
    /* The worker thread is inside one call into Lua and will never touch
     * its data again: end its run from here, every request accounted for
     * (those in flight as interrupted). */
    if (w->phase == P_RUN) {
        uint64_t s = atomic_load(&w->run->stop_ns);

        s = s && s < now ? s : now;
        w->stop = s > w->measure_start ? s : w->measure_start;
        begin_drain(w, now);
    }
    if (w->phase != P_DONE)
        finish(w, now, true);
    w->seized = true;
    atomic_store(&w->done, true);
    atomic_fetch_add(&w->run->finished, 1);
    return true;
}

pc_tscript *worker_script(const pc_worker *w)
{
    return w->ts;
}

bool worker_seized(const pc_worker *w)
{
    return w->seized;
}

bool worker_done(const pc_worker *w)
{
    return atomic_load(&w->done);
}

/* ---- setup ----------------------------------------------------------- */

pc_worker *worker_new(pc_run *run, uint32_t index, uint32_t nconns)
{
    pc_worker *w = calloc(1, sizeof *w);
    const pc_config *cfg = run->cfg;
    struct epoll_event e = {.events = EPOLLIN, .data.ptr = NULL};

    if (!w)
        return NULL;
    w->run = run;
    w->cfg = cfg;
    w->index = index;
    w->nconns = nconns;
    /* A connection holds --pipeline requests over HTTP/1.1, -m streams over
     * HTTP/2; which one it speaks is known only once it is connected. */
    w->depth = run->h1_depth > cfg->streams ? run->h1_depth : cfg->streams;
    w->open_loop = cfg->rate > 0;
    w->rng = 0x9e3779b97f4a7c15ull * (index + 1);
    if (cfg->requests)
        w->quota = cfg->requests / cfg->threads + (index < cfg->requests % cfg->threads);
    w->tick_ns = min_u64(TICK_MAX_NS, cfg->timeout_ns / 10);
    if (w->tick_ns < 1000000)
        w->tick_ns = 1000000;
    w->addrs = run->addrs;
    w->naddrs = run->naddrs;
    w->epfd = -1;
    w->tfd = -1;
    w->use_pwait2 = true;
    if (stats_init(&w->st) < 0 || (run->ntmpl > 1 && stats_init_urls(&w->st, run->ntmpl) < 0) ||
        (cfg->gnuplot_path && stats_init_recs(&w->st, w->quota) < 0))
        goto fail;
    w->conns = calloc(nconns, sizeof *w->conns);
    w->slot_mem = calloc((size_t)nconns * w->depth, sizeof *w->slot_mem);
    w->idx_mem = calloc((size_t)nconns * w->depth * 2, sizeof *w->idx_mem);
    w->rbuf = malloc(RBUF_SIZE);
    w->rq = calloc(nconns, sizeof *w->rq);
    w->rs_cap = nconns * w->depth + 1;
    w->rs = calloc(w->rs_cap, sizeof *w->rs);
    if (!w->conns || !w->slot_mem || !w->idx_mem || !w->rbuf || !w->rq || !w->rs)
        goto fail;
    w->epfd = epoll_create1(EPOLL_CLOEXEC);
    w->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (w->epfd < 0 || w->tfd < 0 || epoll_ctl(w->epfd, EPOLL_CTL_ADD, w->tfd, &e) < 0)
        goto fail;
    pthread_mutex_init(&w->mb, NULL);
    if (run->interval_ns) {
        /* One recording, one spare: the main thread returns them. */
        w->iv = interval_new();
        w->iv_free = interval_new();
        if (!w->iv || !w->iv_free)
            goto fail;
    }
    if (run->norigins > 1) {
        uint32_t no = run->norigins;

        w->oq = calloc(no, sizeof *w->oq);
        w->oq_head = calloc(no, sizeof *w->oq_head);
        w->oq_len = calloc(no, sizeof *w->oq_len);
        w->oq_cap = calloc(no, sizeof *w->oq_cap);
        w->first_tmpl = calloc(no, sizeof *w->first_tmpl);
        if (!w->oq || !w->oq_head || !w->oq_len || !w->oq_cap || !w->first_tmpl)
            goto fail;
        for (uint32_t t = run->ntmpl; t-- > 0;)
            w->first_tmpl[run->tmpls[t].origin] = (uint16_t)t;
    }
    for (uint32_t i = 0; i < nconns; i++) {
        conn *c = &w->conns[i];

        c->w = w;
        /* Several origins: the connections are shared out among them. */
        c->origin = (uint16_t)(run->norigins > 1 ? i % run->norigins : 0);
        c->net = run->origins[c->origin].tls ? &net_tls_ops : &net_plain_ops;
        c->nc.fd = -1;
        c->depth = w->depth;
        c->slots = &w->slot_mem[(size_t)i * w->depth];
        c->free_idx = &w->idx_mem[(size_t)i * w->depth * 2];
        c->fifo = c->free_idx + w->depth;
        for (uint32_t j = 0; j < w->depth; j++)
            c->free_idx[j] = w->depth - 1 - j;
        c->nfree = w->depth;
        h1_init(&c->p);
    }
    return w;
fail:
    worker_free(w);
    return NULL;
}

void worker_free(pc_worker *w)
{
    if (!w || w->seized)
        return; /* seized: its thread may still run in the script: leave it all */
    if (w->conns) {
        for (uint32_t i = 0; i < w->nconns; i++) {
            conn_close(&w->conns[i]);
            free(w->conns[i].carry);
            free(w->conns[i].obuf);
            free(w->conns[i].rh.p);
            free(w->conns[i].rb.p);
            free(w->conns[i].h2);
        }
        for (size_t i = 0; w->sb_mem && i < (size_t)w->nconns * w->depth * 3; i++)
            free(w->sb_mem[i].p);
        free(w->sb_mem);
    }
    if (w->epfd >= 0)
        close(w->epfd);
    if (w->tfd >= 0)
        close(w->tfd);
    net_tls_session_free(w->session);
    stats_free(&w->st);
    interval_free(w->iv);
    for (pc_interval *l = w->iv_ready, *n; l; l = n) {
        n = l->next;
        interval_free(l);
    }
    for (pc_interval *l = w->iv_free, *n; l; l = n) {
        n = l->next;
        interval_free(l);
    }
    free(w->conns);
    free(w->slot_mem);
    free(w->idx_mem);
    free(w->rbuf);
    free(w->rq);
    free(w->rs);
    for (uint32_t o = 0; w->oq && o < w->run->norigins; o++)
        free(w->oq[o]);
    free(w->oq);
    free(w->oq_head);
    free(w->oq_len);
    free(w->oq_cap);
    free(w->first_tmpl);
    free(w->ns_due);
    free(w);
}

const pc_stats *worker_stats(const pc_worker *w)
{
    return &w->st;
}

uint64_t worker_warmup_outcomes(const pc_worker *w)
{
    return w->warm_outcomes;
}

const uint64_t *worker_never_sent_due(const pc_worker *w, uint32_t *n)
{
    *n = w->ns_n;
    return w->ns_due;
}

uint64_t worker_stopped_ns(const pc_worker *w)
{
    return w->stopped_ns;
}

uint64_t worker_last_done_ns(const pc_worker *w)
{
    return w->last_done;
}

bool worker_script_stopped(const pc_worker *w)
{
    return w->script_stop;
}

void worker_set_script(pc_worker *w, pc_tscript *ts)
{
    size_t len;

    if (w->run->h2 || w->cfg->alpn) {
        /* HTTP/2 keeps request bodies and responses per stream. */
        w->sb_mem = calloc((size_t)w->nconns * w->depth * 3, sizeof *w->sb_mem);
        for (uint32_t i = 0; w->sb_mem && i < w->nconns; i++)
            w->conns[i].sb = &w->sb_mem[(size_t)i * w->depth * 3];
    }

    w->ts = ts;
    w->lua_req = script_has_request(ts);
    w->lua_resp = script_has_response(ts);
    w->lua_delay = script_has_delay(ts);
    if (!w->lua_req) {
        /* Without request(), the request wrk.format() gives after init()
         * is built once and reused: no Lua per request. */
        w->own.h1 = (char *)script_static_request(ts, &len);
        w->own.h1_len = len;
        w->own.head = len >= 5 && memcmp(w->own.h1, "HEAD ", 5) == 0;
        w->use_own = true;
    }
}

int worker_set_addr(pc_worker *w, const char *addr)
{
    char host[80], port[16];
    const char *colon = strrchr(addr, ':');
    struct addrinfo hints = {.ai_flags = AI_NUMERICHOST, .ai_socktype = SOCK_STREAM}, *res;
    size_t hl;

    if (!colon)
        return -EINVAL;
    snprintf(w->own_addr.text, sizeof w->own_addr.text, "%s", addr);
    hl = (size_t)(colon - addr);
    if (addr[0] == '[' && hl >= 2) {
        addr++;
        hl -= 2;
    }
    if (hl >= sizeof host || strlen(colon + 1) >= sizeof port)
        return -EINVAL;
    memcpy(host, addr, hl);
    host[hl] = '\0';
    strcpy(port, colon + 1);
    if (getaddrinfo(host, port, &hints, &res) != 0)
        return -EINVAL;
    memcpy(&w->own_addr.sa, res->ai_addr, res->ai_addrlen);
    w->own_addr.len = res->ai_addrlen;
    freeaddrinfo(res);
    w->addrs = &w->own_addr;
    w->naddrs = 1;
    w->pref_addr = 0;
    return 0;
}

const char *worker_error(const pc_worker *w)
{
    return w->err[0] ? w->err : NULL;
}
