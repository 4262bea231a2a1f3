/*
 * worker.c - one load-generating thread: an epoll loop over its own
 * connections, its share of the open-loop schedule, and its statistics.
 *
 * The request lifecycle (docs/architecture.md has the picture):
 *   schedule -> backlog (FIFO of intended send times) -> a connection with
 *   room -> written (sent = first byte out) -> response parsed -> recorded
 *   as done - intended (corrected) and done - sent (uncorrected).
 * Closed loop has no schedule: a connection sends its next request (or
 * pipelined batch) the moment its last response ends, intended = now.
 *
 * Every request ends in exactly one outcome (see stats.h). Requests left
 * unanswered by a server that announced the close (Connection: close) are
 * re-sent on a new connection keeping their intended time, because the
 * server never processed them; every other failure is the request's
 * outcome.
 */
#include "engine/worker.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "engine/sched.h"
#include "proto/h1parse.h"
#include "util/clock.h"

#define MAX_EVENTS 256
#define RBUF_SIZE (256 * 1024)
#define TICK_MAX_NS 100000000ull      /* sweep and Req/Sec sample period */
#define BACKOFF_NS 50000000ull        /* wait after a failed connect */

enum { CS_CLOSED, CS_CONNECTING, CS_HANDSHAKE, CS_READY, CS_BACKOFF };
enum { P_CONNECT, P_RUN, P_DRAIN, P_DONE };

typedef struct slot {
    uint64_t intended;   /* when the schedule meant it to be sent */
    uint64_t sent;       /* first byte written (0 = not yet) */
    uint64_t first_byte; /* first byte of the response seen (0 = not yet) */
} slot;

typedef struct conn {
    net_conn nc;
    pc_worker *w;
    uint8_t state;
    bool in_ready; /* in the worker's ready queue */
    bool settled;  /* connected or failed once (start-up barrier) */
    bool reused;   /* carried at least one complete response */
    uint32_t events;
    uint32_t gen; /* bumped at every close: stale work can tell */
    uint32_t addr_idx, tries;
    uint64_t t_start; /* connect started; in CS_BACKOFF: retry time */
    uint64_t t_tcp;   /* TCP connected */
    slot *slots;      /* ring of `pipeline` in-flight requests */
    uint32_t head, count;
    uint32_t unwritten; /* trailing slots not completely written */
    size_t woff;        /* bytes of the first unwritten request already out */
    uint64_t batch_intended, batch_sent;
    h1_parser p;
    char *carry; /* an unfinished header line, kept across reads */
    uint32_t carry_len, carry_cap;
} conn;

struct pc_worker {
    pc_run *run;
    const pc_config *cfg;
    uint32_t index;
    const net_ops *ops;
    int epfd, tfd;
    bool use_pwait2;
    uint64_t tfd_armed;
    conn *conns;
    uint32_t nconns, pipeline;
    slot *slot_mem;
    char *rbuf;
    uint32_t *rq; /* ready queue of connection indexes (open loop) */
    uint32_t rq_head, rq_len;
    uint64_t *rs; /* intended times of requests to re-send */
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
    SSL_SESSION *session;
    pc_stats st;
    pc_interval *iv;       /* the interval being recorded (NULL: none) */
    uint64_t iv_end;       /* its nominal end */
    pthread_mutex_t mb;    /* guards the two lists below */
    pc_interval *iv_ready; /* finished intervals for the main thread, oldest first */
    pc_interval *iv_free;  /* reusable ones it handed back */
    char err[256];
};

static void conn_start(conn *c, uint64_t now);
static void conn_fail(conn *c, enum pc_err_kind kind, const char *why, uint64_t now);
static void flush(conn *c, uint64_t now);

/* ---- events ---------------------------------------------------------- */

static void set_events(conn *c, uint32_t ev)
{
    struct epoll_event e = {.events = ev, .data.ptr = c};

    if (ev == c->events)
        return;
    epoll_ctl(c->w->epfd, c->events ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, c->nc.fd, &e);
    c->events = ev;
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

static void record_done(pc_worker *w, const slot *s, uint64_t now, int status)
{
    uint64_t sent = s->sent ? s->sent : s->intended;
    bool ok = status >= 200 && status < 400;

    if (warm(w, s->intended)) {
        w->warm_outcomes++;
        return;
    }
    w->st.completed++;
    if (status >= 0 && status < STATS_MAX_STATUS)
        w->st.status[status]++;
    else
        w->st.status_other++;
    w->st.non2xx += !ok;
    if (w->iv) {
        w->iv->completed++;
        w->iv->non2xx += !ok;
    }
    if (!w->cfg->batch_latency || w->pipeline < 2)
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
    w->st.err[kind]++;
}

static void record_never_sent(pc_worker *w, uint64_t intended, uint64_t now)
{
    if (warm(w, intended)) {
        w->warm_outcomes++;
        return;
    }
    w->st.never_sent++;
    w->st.lower_bound++;
    if (w->iv)
        w->iv->errors++;
    rec_latency(w, (int64_t)(now > intended ? now - intended : 0), -1);
}

/* ---- backlog --------------------------------------------------------- */

static uint64_t backlog_len(const pc_worker *w)
{
    return w->rs_len + (w->k_due - w->k_disp);
}

static uint64_t backlog_take(pc_worker *w)
{
    uint64_t t;

    if (w->rs_len) {
        t = w->rs[w->rs_head];
        w->rs_head = (w->rs_head + 1) % w->rs_cap;
        w->rs_len--;
        return t;
    }
    return sched_time(&w->sc, w->k_disp++);
}

/* Put a connection's unanswered requests back at the front of the line. */
static void requeue(conn *c)
{
    pc_worker *w = c->w;

    for (uint32_t i = c->count; i-- > 0;) {
        slot *s = &c->slots[(c->head + i) % w->pipeline];

        w->rs_head = (w->rs_head + w->rs_cap - 1) % w->rs_cap;
        w->rs[w->rs_head] = s->intended;
        w->rs_len++;
        if (!warm(w, s->intended))
            w->st.resent++;
    }
    w->inflight -= c->count;
    c->count = c->unwritten = 0;
    c->woff = 0;
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

static void enqueue(conn *c, uint64_t intended)
{
    slot *s = &c->slots[(c->head + c->count) % c->w->pipeline];

    if (c->count == 0) {
        c->batch_intended = intended;
        c->batch_sent = 0;
    }
    s->intended = intended;
    s->sent = s->first_byte = 0;
    c->count++;
    c->unwritten++;
    c->w->inflight++;
}

/* Hand queued requests to connections with room, oldest first. */
static void dispatch(pc_worker *w, uint64_t now)
{
    while (backlog_len(w) > 0 && w->rq_len > 0) {
        conn *c = &w->conns[w->rq[w->rq_head]];

        w->rq_head = (w->rq_head + 1) % w->nconns;
        w->rq_len--;
        c->in_ready = false;
        if (c->state != CS_READY || c->count >= w->pipeline)
            continue;
        enqueue(c, backlog_take(w));
        flush(c, now);
        if (c->state == CS_READY && c->count < w->pipeline)
            ready_push(c);
    }
}

/* Closed loop: an idle connection sends its next batch right away. */
static void closed_fill(conn *c, uint64_t now)
{
    pc_worker *w = c->w;

    if (w->open_loop || w->phase != P_RUN || c->state != CS_READY || c->count)
        return;
    for (uint32_t i = 0; i < w->pipeline; i++) {
        if (w->rs_len) {
            enqueue(c, backlog_take(w));
        } else {
            enqueue(c, now);
            if (!warm(w, now))
                w->st.scheduled++;
        }
    }
    flush(c, now);
}

/* ---- connection lifecycle -------------------------------------------- */

static void conn_close(conn *c)
{
    if (c->nc.fd >= 0)
        c->w->ops->close(&c->nc);
    c->gen++;
    c->state = CS_CLOSED;
    c->events = 0;
    c->carry_len = 0;
    c->reused = false;
    c->nc.want = 0;
}

static void settle(conn *c)
{
    if (!c->settled) {
        c->settled = true;
        c->w->settled++;
    }
}

static void on_ready(conn *c, uint64_t now)
{
    pc_worker *w = c->w;

    c->state = CS_READY;
    c->tries = 0;
    w->pref_addr = c->addr_idx;
    w->st.connects++;
    settle(c);
    h1_begin(&c->p, w->run->head);
    set_events(c, EPOLLIN);
    if (w->phase == P_RUN) {
        if (w->open_loop) {
            ready_push(c);
            dispatch(w, now);
        } else {
            closed_fill(c, now);
        }
    }
}

static void connect_failed(conn *c, const char *why, uint64_t now)
{
    pc_worker *w = c->w;
    char buf[STATS_WHY_LEN];

    conn_close(c);
    w->st.connect_errors++;
    snprintf(buf, sizeof buf, "%s: %s", w->run->addrs[c->addr_idx].text, why);
    stats_why(&w->st, PC_ERR_CONNECT, buf);
    c->tries++;
    if (c->tries < w->run->naddrs) {
        /* Names resolve once; each address is tried in order. */
        c->addr_idx = (c->addr_idx + 1) % w->run->naddrs;
        conn_start(c, now);
        return;
    }
    settle(c);
    c->tries = 0;
    c->state = CS_BACKOFF;
    c->t_start = now + BACKOFF_NS;
}

static void do_handshake(conn *c, uint64_t now)
{
    pc_worker *w = c->w;
    char why[STATS_WHY_LEN] = "";
    int rc = w->ops->handshake(&c->nc, why, sizeof why);

    if (rc == 0) {
        if (w->run->ssl_ctx) {
            hdr_record(&w->st.tls, (int64_t)(now - c->t_tcp));
            if (net_tls_resumed(&c->nc))
                w->st.tls_resumed++;
        }
        on_ready(c, now);
    } else if (rc == -EAGAIN) {
        set_events(c, c->nc.want == NET_WANT_WRITE ? EPOLLOUT : EPOLLIN);
    } else {
        connect_failed(c, why[0] ? why : strerror(-rc), now);
    }
}

static void on_tcp_connected(conn *c, uint64_t now)
{
    pc_worker *w = c->w;

    c->t_tcp = now;
    hdr_record(&w->st.connect, (int64_t)(now - c->t_start));
    if (w->run->ssl_ctx) {
        if (net_tls_attach(&c->nc, w->run->ssl_ctx, w->run->sni, w->session, &w->session) < 0) {
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
        c->addr_idx = w->pref_addr;
    a = &w->run->addrs[c->addr_idx];
    c->t_start = now;
    c->events = 0;
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

/* Close and, while the run goes on, open again. */
static void conn_recycle(conn *c, uint64_t now)
{
    conn_close(c);
    if (c->w->phase == P_RUN)
        conn_start(c, now);
}

/* Every request in flight on c gets `kind` as its outcome. */
static void conn_fail(conn *c, enum pc_err_kind kind, const char *why, uint64_t now)
{
    pc_worker *w = c->w;

    stats_why(&w->st, kind, why);
    for (uint32_t i = 0; i < c->count; i++)
        record_failed(w, &c->slots[(c->head + i) % w->pipeline], kind, now);
    w->inflight -= c->count;
    c->count = c->unwritten = 0;
    c->woff = 0;
    conn_recycle(c, now);
}

/* ---- writing --------------------------------------------------------- */

static void flush(conn *c, uint64_t now)
{
    pc_worker *w = c->w;
    size_t rl = w->run->request_len;

    while (c->unwritten) {
        size_t len = (size_t)c->unwritten * rl - c->woff;
        ssize_t n = w->ops->write(&c->nc, w->run->request + c->woff, len);

        if (n > 0) {
            size_t total = c->woff + (size_t)n;
            uint32_t first = c->count - c->unwritten;
            uint32_t touched = (uint32_t)((total + rl - 1) / rl);

            for (uint32_t i = 0; i < touched; i++) {
                slot *s = &c->slots[(c->head + first + i) % w->pipeline];

                if (!s->sent)
                    s->sent = now;
                if (!c->batch_sent)
                    c->batch_sent = now;
            }
            c->unwritten -= (uint32_t)(total / rl);
            c->woff = total % rl;
            w->st.bytes_written += (uint64_t)n;
        } else if (n == -EAGAIN) {
            set_events(c, c->nc.want == NET_WANT_READ ? EPOLLIN : (EPOLLIN | EPOLLOUT));
            return;
        } else {
            conn_fail(c, PC_ERR_WRITE, strerror(n == 0 ? EPIPE : (int)-n), now);
            return;
        }
    }
    set_events(c, EPOLLIN);
}

/* ---- reading --------------------------------------------------------- */

static void response_done(conn *c, uint64_t now)
{
    pc_worker *w = c->w;
    slot s = c->slots[c->head];

    c->head = (c->head + 1) % w->pipeline;
    c->count--;
    w->inflight--;
    if (c->unwritten > c->count) {
        /* The server answered before the request was fully written (an
         * early error response): stop writing it, and close after. */
        c->unwritten = c->count;
        c->woff = 0;
        c->p.keep_alive = false;
    }
    c->reused = true;
    record_done(w, &s, now, c->p.status);
    if (c->count == 0 && w->cfg->batch_latency && w->pipeline > 1 && !warm(w, c->batch_intended)) {
        rec_latency(w, (int64_t)(now - c->batch_intended),
                    (int64_t)(now - (c->batch_sent ? c->batch_sent : now)));
        hdr_record(&w->st.batch, (int64_t)(now - c->batch_intended));
    }
    if (!c->p.keep_alive) {
        if (!warm(w, s.intended))
            w->st.server_closes++;
        requeue(c);
        conn_recycle(c, now);
        if (w->open_loop)
            dispatch(w, now);
        return;
    }
    h1_begin(&c->p, w->run->head);
    if (w->open_loop) {
        if (c->count < w->pipeline)
            ready_push(c);
    } else if (c->count == 0) {
        closed_fill(c, now);
    }
}

/* Feed what was read to the parser; keep an unfinished line for later. */
static void process(conn *c, const char *buf, size_t len, uint64_t now)
{
    pc_worker *w = c->w;
    size_t off = 0, used;
    uint32_t gen = c->gen;

    while (off < len) {
        int rc;

        if (c->count == 0) {
            stats_why(&w->st, PC_ERR_PROTOCOL, "server sent data with no request outstanding");
            conn_fail(c, PC_ERR_PROTOCOL, NULL, now);
            return;
        }
        if (!c->slots[c->head].first_byte)
            c->slots[c->head].first_byte = now;
        rc = h1_feed(&c->p, buf + off, len - off, &used);
        off += used;
        if (rc == H1_DONE) {
            response_done(c, now);
            if (c->gen != gen)
                return; /* closed: the rest of the buffer died with it */
            continue;
        }
        if (rc != H1_NEED_MORE) {
            conn_fail(c, PC_ERR_PROTOCOL, h1_strerror(rc), now);
            return;
        }
        break;
    }
    if (off < len) {
        size_t rest = len - off;

        if (rest > c->carry_cap) {
            char *p = realloc(c->carry, rest);

            if (!p) {
                conn_fail(c, PC_ERR_READ, "out of memory", now);
                return;
            }
            c->carry = p;
            c->carry_cap = (uint32_t)rest;
        }
        memcpy(c->carry, buf + off, rest);
        c->carry_len = (uint32_t)rest;
    }
}

static void on_eof(conn *c, uint64_t now)
{
    pc_worker *w = c->w;
    int rc;

    if (c->count == 0) {
        if (c->reused)
            w->st.idle_closes++;
        conn_recycle(c, now);
        return;
    }
    rc = h1_eof(&c->p);
    if (rc == H1_DONE) {
        c->p.keep_alive = false;
        response_done(c, now);
        if (c->state == CS_READY)
            conn_recycle(c, now);
        return;
    }
    if (rc == H1_NEED_MORE)
        conn_fail(c, PC_ERR_READ, "connection closed by the server before the response",
                  now);
    else
        conn_fail(c, PC_ERR_READ, "connection closed by the server in the middle of a response",
                  now);
}

static void on_readable(conn *c)
{
    pc_worker *w = c->w;

    uint32_t gen = c->gen;

    for (int rounds = 0; rounds < 16; rounds++) {
        uint32_t keep = c->carry_len;
        size_t room = RBUF_SIZE - keep;
        ssize_t n = w->ops->read(&c->nc, w->rbuf + keep, room);
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
            process(c, w->rbuf, keep + (size_t)n, now);
            if (c->gen != gen)
                return;
            if ((size_t)n < room && w->ops->pending(&c->nc) == 0)
                break;
        } else if (n == 0) {
            on_eof(c, now);
            return;
        } else if (n == -EAGAIN) {
            break;
        } else {
            conn_fail(c, PC_ERR_READ, strerror((int)-n), now);
            return;
        }
    }
    if (c->state == CS_READY && c->unwritten)
        flush(c, pc_now_ns());
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
            flush(c, now);
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

        switch (c->state) {
        case CS_CONNECTING:
        case CS_HANDSHAKE:
            if (now - c->t_start >= to) {
                c->tries = w->run->naddrs; /* no quick retry: back off */
                connect_failed(c, "connect timed out", now);
            }
            break;
        case CS_BACKOFF:
            if (now >= c->t_start && (w->phase == P_RUN || w->phase == P_CONNECT))
                conn_start(c, now);
            break;
        case CS_READY:
            if (c->count) {
                const slot *s = &c->slots[c->head];
                uint64_t since = s->sent ? s->sent : s->intended;

                if (now >= since + to)
                    conn_fail(c, PC_ERR_TIMEOUT, "no response within --timeout", now);
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
    /* Whatever is still queued was never sent: one outcome each. */
    while (backlog_len(w) > 0)
        record_never_sent(w, backlog_take(w), stop);
    w->drain_end = now + w->cfg->timeout_ns;
}

static void finish(pc_worker *w, uint64_t now, bool interrupted)
{
    for (uint32_t i = 0; i < w->nconns; i++) {
        conn *c = &w->conns[i];

        for (uint32_t j = 0; j < c->count; j++) {
            const slot *s = &c->slots[(c->head + j) % w->pipeline];

            if (warm(w, s->intended))
                w->warm_outcomes++;
            else if (interrupted)
                w->st.interrupted++;
            else
                record_failed(w, s, PC_ERR_TIMEOUT, now);
        }
        if (c->count && !interrupted)
            stats_why(&w->st, PC_ERR_TIMEOUT, "no response within --timeout");
        w->inflight -= c->count;
        c->count = 0;
        conn_close(c);
    }
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
    uint64_t now = pc_now_ns(), until = now + w->cfg->timeout_ns;

    w->phase = P_CONNECT;
    w->next_tick = now + w->tick_ns;
    for (uint32_t i = 0; i < w->nconns; i++)
        conn_start(&w->conns[i], now);
    while (w->settled < w->nconns && now < until) {
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
    }
    w->phase = P_RUN;
    {
        uint64_t now = pc_now_ns();

        for (uint32_t i = 0; i < w->nconns; i++) {
            conn *c = &w->conns[i];

            if (c->state != CS_READY)
                continue;
            if (w->open_loop)
                ready_push(c);
            else
                closed_fill(c, now);
        }
    }
    run_loop(w);
    atomic_fetch_add(&run->finished, 1);
    return NULL;
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
    w->ops = run->ssl_ctx ? &net_tls_ops : &net_plain_ops;
    w->nconns = nconns;
    w->pipeline = cfg->pipeline;
    w->open_loop = cfg->rate > 0;
    w->tick_ns = min_u64(TICK_MAX_NS, cfg->timeout_ns / 10);
    if (w->tick_ns < 1000000)
        w->tick_ns = 1000000;
    w->epfd = -1;
    w->tfd = -1;
    w->use_pwait2 = true;
    if (stats_init(&w->st) < 0)
        goto fail;
    w->conns = calloc(nconns, sizeof *w->conns);
    w->slot_mem = calloc((size_t)nconns * w->pipeline, sizeof *w->slot_mem);
    w->rbuf = malloc(RBUF_SIZE);
    w->rq = calloc(nconns, sizeof *w->rq);
    w->rs_cap = nconns * w->pipeline + 1;
    w->rs = calloc(w->rs_cap, sizeof *w->rs);
    if (!w->conns || !w->slot_mem || !w->rbuf || !w->rq || !w->rs)
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
    for (uint32_t i = 0; i < nconns; i++) {
        conn *c = &w->conns[i];

        c->w = w;
        c->nc.fd = -1;
        c->slots = &w->slot_mem[(size_t)i * w->pipeline];
        h1_init(&c->p);
    }
    return w;
fail:
    worker_free(w);
    return NULL;
}

void worker_free(pc_worker *w)
{
    if (!w)
        return;
    if (w->conns) {
        for (uint32_t i = 0; i < w->nconns; i++) {
            conn_close(&w->conns[i]);
            free(w->conns[i].carry);
        }
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
    free(w->rbuf);
    free(w->rq);
    free(w->rs);
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

uint64_t worker_stopped_ns(const pc_worker *w)
{
    return w->stopped_ns;
}

const char *worker_error(const pc_worker *w)
{
    return w->err[0] ? w->err : NULL;
}
