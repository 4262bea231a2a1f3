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
#include "engine/worker_int.h"
#include "dist/shard.h"

static void on_event(conn *c, uint32_t ev)
{
    uint64_t now = pc_now_ns();

    check_warmup(c->w, now);
    /* The kernel's send stamps make a socket EPOLLERR until they are taken
     * (epoll is level-triggered): take them, in any state; an event that
     * was only that is done. */
    if ((ev & EPOLLERR) && c->h.nc.tx_ts && conn_tx_collect(c) > 0 && !(ev &= ~(uint32_t)EPOLLERR))
        return;
    switch (c->state) {
    case CS_CONNECTING: {
        int rc = net_connect_result(&c->h.nc);

        if (rc < 0)
            conn_connect_failed(c, strerror(-rc), now);
        else
            conn_tcp_connected(c, now);
        break;
    }
    case CS_HANDSHAKE:
        conn_handshake(c, now);
        break;
    case CS_READY:
        if (ev & (EPOLLIN | EPOLLERR | EPOLLHUP))
            conn_readable(c);
        else if (ev & EPOLLOUT)
            c->proto->flush(&c->h, now);
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
        uint32_t gen = c->h.gen;

        switch (c->state) {
        case CS_CONNECTING:
        case CS_HANDSHAKE:
            if (now - c->t_start >= w->cfg->connect_timeout_ns) {
                bool tls = c->state == CS_HANDSHAKE;

                w->st.connect_timeouts++;
                w->st.handshake_timeouts += tls;
                c->last_try = true; /* no quick retry: back off */
                conn_connect_failed(c, tls ? "TLS handshake timed out (the TCP connection was up)"
                                      : "connect timed out",
                               now);
            }
            break;
        case CS_BACKOFF:
            if (now >= c->t_start && (w->phase == P_RUN || w->phase == P_CONNECT))
                conn_start(c, now);
            break;
        case CS_CLOSED:
            /* Closed for lack of work; work came back (a re-send in its
             * origin's queue, or due requests not yet taken). */
            if (w->phase == P_RUN && (w->q.oq_len[c->origin] || w->k_disp < w->k_due))
                conn_start(c, now);
            break;
        case CS_READY:
            for (uint32_t j = 0; j < c->h.depth && c->h.count && c->h.gen == gen; j++) {
                slot *s = &c->h.slots[j];
                uint64_t since = s->sent ? s->sent : s->intended;

                if (s->used && now >= since + to)
                    c->proto->timeout(&c->h, s, now);
            }
            if (c->h.gen == gen) {
                conn_after_io(c, now);
                if (c->h.gen == gen && c->state == CS_READY)
                    c->proto->flush(&c->h, now);
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
    pace_tick(w, now);
    w->next_tick = now + w->tick_ns;
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

/* Whether c is still opening: its TCP connect or its handshake (TLS, or a
 * protocol's own, QUIC's) not done. */
static bool still_connecting(const conn *c)
{
    return c->state == CS_CONNECTING || c->state == CS_HANDSHAKE ||
           (c->state == CS_READY && c->proto && c->proto->connecting && c->proto->connecting(&c->h));
}

static void begin_drain(pc_worker *w, uint64_t now)
{
    uint64_t stop = w->stop;

    w->phase = P_DRAIN;
    w->stopped_ns = stop;
    queue_drain(w, stop);
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

        /* An attempt still opening is abandoned with the run, and counted:
         * the report says what connecting was waiting for. */
        if (c->state == CS_CONNECTING)
            w->st.connect_pending++;
        else if (still_connecting(c))
            w->st.handshake_pending++;
        for (uint32_t j = 0; j < c->h.depth && c->h.count; j++) {
            slot *s = &c->h.slots[j];

            if (!s->used)
                continue;
            if (warm(w, s->intended))
                w->warm_outcomes++;
            else if (interrupted)
                rec_interrupted(w, s);
            else
                rec_failed(w, s, PC_ERR_TIMEOUT, now);
            if (!interrupted && !warm(w, s->intended))
                stats_why(&w->st, PC_ERR_TIMEOUT, "no response within --timeout");
            queue_slot_release(c, s);
        }
        conn_close(c);
    }
    if (w->last_done > w->measure_start && w->st.completed)
        w->st.last_response_us = (w->last_done - w->measure_start) / 1000;
    /* Requests refused during the drain came back to the backlog, too late
     * to be sent again: they were never sent (their only outcome). */
    queue_drain(w, w->stopped_ns ? w->stopped_ns : now);
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

/* End the measured period at t, if that is sooner (never before it began). */
static void stop_at(pc_worker *w, uint64_t t)
{
    if (t < w->stop)
        w->stop = t > w->measure_start ? t : w->measure_start;
}

/* What is due in w->due (wake.c): protocol timers expire there; a
 * connection whose delay() is over gets its requests here (one left over
 * once the run has ended is dropped: queue_closed_fill would send nothing). */
static void wake_due(pc_worker *w, uint64_t now)
{
    conn *c;

    wake_begin(w);
    while ((c = wake_next(w, now)))
        if (w->phase == P_RUN)
            queue_closed_fill(c, now);
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
        /* Timers that are due first (a QUIC connection's loss, ACK and
         * idle timers): a connection left unserviced, as while every
         * worker waits for --start-at or mpirun's start, is brought up to
         * date (or found closed, and reopened) before a request is handed
         * to it, not after. */
        if (w->next_wake && now >= w->next_wake)
            wake_due(w, now);
        if (w->phase == P_RUN) {
            uint64_t s = atomic_load_explicit(&run->stop_ns, memory_order_relaxed);

            if (s)
                stop_at(w, s);
            check_warmup(w, now);
            while (w->iv && now >= w->iv_end && w->iv_end <= w->stop)
                iv_publish(w, w->iv_end);
            if (w->open_loop) {
                advance_schedule(w, now < w->stop ? now : w->stop - 1);
                queue_dispatch(w);
            }
            /* thread:stop(), or a script error: this thread is done. */
            if (w->stop > now && src_stopped(w)) {
                stop_at(w, now);
                w->script_stop = true;
            }
            /* -n: every request created and answered: the run is over. */
            if (w->quota && w->inflight == 0 && queue_backlog_len(w) == 0 &&
                (w->open_loop ? w->k_due >= w->k_end : w->created >= w->quota))
                w->stop = now;
            /* -n, every connection retired after GOAWAY (h2load): nothing
             * more can be sent; the requests left are not done. */
            if (w->quota && w->retired == w->nconns && w->inflight == 0)
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
            /* The next send, at most the slack late (pace.c). */
            if (w->open_loop && w->k_due < w->k_end && w->q.rq_len)
                deadline = min_u64(deadline, sched_time(&w->sc, w->k_due) + w->slack);
        } else {
            deadline = min_u64(deadline, w->drain_end);
        }
        if (w->next_wake)
            deadline = min_u64(deadline, w->next_wake);
        n = pace_wait(w, ev, deadline, now);
        if (n < 0 && errno != EINTR) {
            snprintf(w->err, sizeof w->err, "epoll: %s", strerror(errno));
            finish(w, pc_now_ns(), true);
            return;
        }
        if (n > 0) {
            w->woke = pc_now_ns();
            handle_events(w, ev, n);
            w->woke = 0;
        }
    }
}

/* What the main thread may read while this worker connects. */
static void publish_connects(pc_worker *w)
{
    atomic_store_explicit(&w->pub_opened, (uint32_t)w->st.connects, memory_order_relaxed);
    atomic_store_explicit(&w->pub_settled, w->settled, memory_order_relaxed);
}

/* Open every connection (wrk2 staggers them; pacer does not), CONNECT_BATCH
 * at a time with what came back handled in between, so each connect is
 * timed from its own connect(2) and the live view can count them; then
 * wait until each has connected or failed: at most --connect-timeout, and
 * no longer than CONNECT_IDLE_NS after the last one settled, so a server
 * that drops the SYNs or never answers the handshake does not hold the
 * clock back by the connect timeout. Connections still opening then carry
 * on during the run (counted in connect_late; those still opening when it
 * ends, in finish). A SYN retransmit (1 s) that gets in is a settle. */
static void connect_phase(pc_worker *w)
{
    struct epoll_event ev[MAX_EVENTS];
    uint64_t now = pc_now_ns(), until = now + w->cfg->connect_timeout_ns, last = now;
    uint32_t settled = 0, started = 0;

    w->phase = P_CONNECT;
    w->next_tick = now + w->tick_ns;
    while (w->settled < w->nconns && now < until && now - last < CONNECT_IDLE_NS &&
           !atomic_load_explicit(&w->run->stop_ns, memory_order_relaxed)) {
        uint64_t deadline = min_u64(min_u64(until, last + CONNECT_IDLE_NS), w->next_tick);
        int n;

        for (uint32_t b = 0; b < CONNECT_BATCH && started < w->nconns; b++)
            conn_start(&w->conns[started++], pc_now_ns());
        if (started < w->nconns) {
            deadline = now; /* only what is there already: then the next batch */
            last = now;
        }
        n = pace_wait(w, ev, w->next_wake ? min_u64(deadline, w->next_wake) : deadline, now);

        if (n > 0)
            handle_events(w, ev, n);
        now = pc_now_ns();
        if (w->next_wake && now >= w->next_wake)
            wake_due(w, now);
        if (now >= w->next_tick)
            tick(w, now);
        if (w->settled != settled) {
            settled = w->settled;
            last = now;
        }
        publish_connects(w);
    }
    for (uint32_t i = started; i < w->nconns; i++)
        conn_start(&w->conns[i], now); /* stopped or timed out first: still opened */
    for (uint32_t i = 0; i < w->nconns; i++)
        w->st.connect_late += still_connecting(&w->conns[i]);
    publish_connects(w);
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
    if (w->src.ops->bind)
        w->src.ops->bind(w->src.self);
    connect_phase(w);

    pthread_mutex_lock(&run->lock);
    run->ready++;
    run->opened += (uint32_t)w->st.connects;
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
        /* One schedule over every worker of the run (all shards), at the
         * shape's rate (constant -R, stages, Poisson): this one sends its
         * requests n = g + k*G (dist/shard.h). */
        sched_init_run(&w->sc, start, &cfg->shape, shard_total_rate(cfg), shard_workers(cfg),
                       shard_worker(cfg, w->index));
        w->k_end = sched_count_limit(&w->sc, w->end);
        w->k_meas = sched_count_before(&w->sc, w->measure_start);
        /* -n counts the measured requests: the warm-up's k_meas first. */
        if (w->quota && w->k_end > w->k_meas + w->quota)
            w->k_end = w->k_meas + w->quota;
    }
    w->phase = P_RUN;
    /* Stopped while connecting: nothing is sent. */
    pace_start(w, pc_now_ns());
    if (w->warm_reset)
        pace_begin(w, pc_now_ns());
    for (uint32_t i = 0; !atomic_load(&run->stop_ns) && i < w->nconns; i++)
        conn_after_io(&w->conns[i], pc_now_ns());
    run_loop(w);
    pace_end(w, pc_now_ns());
    atomic_store(&w->done, true);
    atomic_fetch_add(&run->finished, 1);
    return NULL;
}

bool worker_seize(pc_worker *w, uint64_t stuck_since, uint64_t now)
{
    if (atomic_load(&w->done) || !w->src.ops->seize ||
        !w->src.ops->seize(w->src.self, stuck_since))
        return false;
    /* The worker thread is inside one call into Lua and will never touch
     * its data again: end its run from here, every request accounted for
     * (those in flight as interrupted). */
    if (w->phase == P_RUN) {
        uint64_t s = atomic_load(&w->run->stop_ns);

        stop_at(w, s && s < now ? s : now);
        begin_drain(w, now);
    }
    if (w->phase != P_DONE)
        finish(w, now, true);
    w->seized = true;
    atomic_store(&w->done, true);
    atomic_fetch_add(&w->run->finished, 1);
    return true;
}

void worker_interrupt(pc_worker *w)
{
    if (w->src.ops->interrupt)
        w->src.ops->interrupt(w->src.self);
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

/* What the thread's protocols read of it (http_env): the run's settings,
 * its statistics, and what its request source wants. */
static void set_env(pc_worker *w)
{
    w->env = (http_env){.set = &w->run->http,
                        .st = &w->st,
                        .want_response = w->src.wants_response,
                        .requests_change = w->src.per_call};
}

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
    w->depth = run->http.h1_depth > cfg->streams ? run->http.h1_depth : cfg->streams;
    w->open_loop = cfg->rate > 0;
    w->rng = 0x9e3779b97f4a7c15ull * (index + 1);
    if (cfg->requests)
        w->quota = cfg->requests / cfg->threads + (index < cfg->requests % cfg->threads);
    /* --urls round robin: one sequence over the whole run (every thread of
     * every shard), each worker starting where its share of it begins. */
    w->rr = cfg->requests ? shard_first(shard_total_requests(cfg), shard_workers(cfg),
                                        shard_worker(cfg, index))
                          : shard_worker(cfg, index);
    w->tick_ns = min_u64(TICK_MAX_NS, cfg->timeout_ns / 10);
    if (w->tick_ns < 1000000)
        w->tick_ns = 1000000;
    w->addrs = run->addrs;
    w->naddrs = run->naddrs;
    w->src = queue_tmpl_source(run);
    set_env(w);
    w->epfd = -1;
    w->tfd = -1;
    w->use_pwait2 = true;
    if (stats_init(&w->st) < 0 || (run->ntmpl > 1 && stats_init_urls(&w->st, run->ntmpl) < 0) ||
        (cfg->shape.n && stats_init_stages(&w->st, cfg->shape.n, pc_shape_steps(&cfg->shape)) < 0) ||
        ((cfg->out.gnuplot_path || cfg->format == PC_FORMAT_HEY_CSV) &&
         stats_init_recs(&w->st, w->quota) < 0))
        goto fail;
    w->conns = calloc(nconns, sizeof *w->conns);
    w->slot_mem = calloc((size_t)nconns * w->depth, sizeof *w->slot_mem);
    w->idx_mem = calloc((size_t)nconns * w->depth, sizeof *w->idx_mem);
    w->rbuf = malloc(RBUF_SIZE);
    if (!w->conns || !w->slot_mem || !w->idx_mem || !w->rbuf || queue_init(w) < 0 || wake_init(w) < 0)
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
        /* Several origins: the connections are shared out among them. */
        c->origin = (uint16_t)(i % run->norigins);
        c->h.net = http_transport(run->proto, run->origins[c->origin].tls);
        c->h.env = &w->env;
        c->h.tls = run->origins[c->origin].tls;
        c->h.peer = run->origins[c->origin].tls_name;
        c->h.nc.fd = -1;
        c->h.depth = w->depth;
        c->h.slots = &w->slot_mem[(size_t)i * w->depth];
        c->free_idx = &w->idx_mem[(size_t)i * w->depth];
        for (uint32_t j = 0; j < w->depth; j++)
            c->free_idx[j] = w->depth - 1 - j;
        c->nfree = w->depth;
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
            conn *c = &w->conns[i];

            conn_close(c);
            net_tls_session_free(c->session);
            free(c->carry);
            if (c->ps_of)
                c->ps_of->state_free(c->h.ps);
        }
    }
    if (w->epfd >= 0)
        close(w->epfd);
    if (w->tfd >= 0)
        close(w->tfd);
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
    queue_free(w);
    free(w->ns_due);
    pc_heap_free(&w->due);
    free(w);
}

void worker_connecting(pc_worker *w, uint32_t *opened, uint32_t *settled)
{
    *opened = atomic_load_explicit(&w->pub_opened, memory_order_relaxed);
    *settled = atomic_load_explicit(&w->pub_settled, memory_order_relaxed);
}

const pc_stats *worker_stats(const pc_worker *w)
{
    return &w->st;
}

uint64_t worker_warmup_outcomes(const pc_worker *w)
{
    return w->warm_outcomes;
}

uint32_t worker_retired(const pc_worker *w)
{
    return w->retired;
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

int worker_set_source(pc_worker *w, const pc_reqsrc *src)
{
    w->src = *src;
    set_env(w);
    return src->addr ? conn_connect_to(w, src->addr) : 0;
}

const char *worker_error(const pc_worker *w)
{
    return w->err[0] ? w->err : NULL;
}
