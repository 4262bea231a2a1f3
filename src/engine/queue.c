/*
 * queue.c - slots, the backlog (schedule index range, re-sends, per-origin
 * queues), handing due requests to connections with room, and what was
 * never sent: the queue decides it, recorder.c files it.
 */
#include "engine/worker_int.h"

/* ---- the queues' memory ------------------------------------------------ */

/* The ready queue holds every connection at most once; each origin's queue
 * has room for every slot's re-send at once: they grow only when due
 * requests wait for another origin's connections. */
int queue_init(pc_worker *w)
{
    const pc_run *run = w->run;
    pc_queue *q = &w->q;
    uint32_t no = run->norigins;

    q->rq = calloc(w->nconns, sizeof *q->rq);
    q->oq = calloc(no, sizeof *q->oq);
    q->oq_head = calloc(no, sizeof *q->oq_head);
    q->oq_len = calloc(no, sizeof *q->oq_len);
    q->oq_cap = calloc(no, sizeof *q->oq_cap);
    q->first_tmpl = calloc(no, sizeof *q->first_tmpl);
    if (!q->rq || !q->oq || !q->oq_head || !q->oq_len || !q->oq_cap || !q->first_tmpl)
        return -ENOMEM;
    for (uint32_t t = run->ntmpl; t-- > 0;)
        q->first_tmpl[run->tmpls[t].origin] = (uint32_t)t;
    for (uint32_t o = 0; o < no; o++) {
        q->oq_cap[o] = w->nconns * w->depth + 1;
        if (!(q->oq[o] = malloc(q->oq_cap[o] * sizeof **q->oq)))
            return -ENOMEM;
    }
    return 0;
}

/* Also of a queue_init that failed half way (w->q zeroed before). */
void queue_free(pc_worker *w)
{
    pc_queue *q = &w->q;

    free(q->rq);
    for (uint32_t o = 0; q->oq && o < w->run->norigins; o++)
        free(q->oq[o]);
    free(q->oq);
    free(q->oq_head);
    free(q->oq_len);
    free(q->oq_cap);
    free(q->first_tmpl);
}

/* ---- slots ------------------------------------------------------------- */

static slot *queue_slot_alloc(conn *c)
{
    uint32_t idx = c->free_idx[--c->nfree];
    slot *s = &c->h.slots[idx];

    memset(s, 0, sizeof *s);
    s->used = true;
    c->h.count++;
    c->w->inflight++;
    return s;
}

void queue_slot_release(conn *c, slot *s)
{
    s->used = false;
    c->free_idx[c->nfree++] = slot_index(c, s);
    c->h.count--;
    c->w->inflight--;
}

/* ---- backlog --------------------------------------------------------- */

/* Which request next: round robin over the templates, or weighted
 * random (--mix random) from a per-thread xorshift generator. */
uint32_t queue_pick_tmpl(pc_worker *w)
{
    const pc_run *run = w->run;
    double x;
    uint32_t lo = 0, hi;

    if (run->ntmpl == 1)
        return 0;
    if (!w->cfg->mix_random)
        return (uint32_t)(w->rr++ % run->ntmpl);
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
    return lo;
}

/* The next template of origin o's (with one origin, simply the next): the
 * order or the mix over all of them, skipping other origins' (after 64
 * tries of --mix random, the origin's first). */
uint32_t queue_pick_tmpl_for(pc_worker *w, uint32_t o)
{
    uint32_t t = queue_pick_tmpl(w);

    for (int tries = 0; w->run->tmpls[t].origin != o; tries++)
        t = tries < 64 ? queue_pick_tmpl(w) : w->q.first_tmpl[o];
    return t;
}


/* The run's templates as a request source: each distinct request built
 * once, handed out as it is. */
static const pc_request *queue_tmpl_next(void *self, uint32_t t)
{
    return &((const pc_tmpl *)self)[t].req;
}

static const pc_reqsrc_ops tmpl_ops = {.next = queue_tmpl_next};

pc_reqsrc queue_tmpl_source(const pc_run *run)
{
    return (pc_reqsrc){.ops = &tmpl_ops, .self = run->tmpls, .batch = 1};
}

/* Queue r for its origin, at the back (due now) or the front (re-sent). */
int queue_push(pc_worker *w, resend r, bool front)
{
    uint32_t o = w->run->tmpls[r.tmpl].origin;

    if (w->q.oq_len[o] == w->q.oq_cap[o]) {
        uint32_t cap = w->q.oq_cap[o] ? w->q.oq_cap[o] * 2 : 64;
        resend *q = malloc(cap * sizeof *q);

        if (!q)
            return -ENOMEM;
        for (uint32_t i = 0; i < w->q.oq_len[o]; i++)
            q[i] = w->q.oq[o][(w->q.oq_head[o] + i) % w->q.oq_cap[o]];
        free(w->q.oq[o]);
        w->q.oq[o] = q;
        w->q.oq_head[o] = 0;
        w->q.oq_cap[o] = cap;
    }
    if (front) {
        w->q.oq_head[o] = (w->q.oq_head[o] + w->q.oq_cap[o] - 1) % w->q.oq_cap[o];
        w->q.oq[o][w->q.oq_head[o]] = r;
    } else {
        w->q.oq[o][(w->q.oq_head[o] + w->q.oq_len[o]) % w->q.oq_cap[o]] = r;
    }
    w->q.oq_len[o]++;
    w->q.oq_total++;
    return 0;
}

static resend queue_pop(pc_worker *w, uint32_t o)
{
    resend r = w->q.oq[o][w->q.oq_head[o]];

    w->q.oq_head[o] = (w->q.oq_head[o] + 1) % w->q.oq_cap[o];
    w->q.oq_len[o]--;
    w->q.oq_total--;
    return r;
}

/* The schedule's next due request (k_disp < k_due), made now: due
 * requests stay a count until a connection takes one, so a backlog of 10^9
 * costs nothing until the run ends (queue_never_sent_range counts them in bulk). */
static resend queue_next_due(pc_worker *w)
{
    return (resend){.intended = sched_time(&w->sc, w->k_disp++), .tmpl = queue_pick_tmpl(w)};
}

/* One request never sent: its latency is how late it is by now. */
static void queue_never_sent(pc_worker *w, uint64_t intended, uint64_t now)
{
    int64_t lat = (int64_t)(now > intended ? now - intended : 0);

    rec_never_sent(w, intended, lat, lat, 1);
}

/* The oldest request waiting for origin o, in *r: its queue first (re-sends
 * at its front), then the schedule's due requests in order; those for
 * other origins join their origins' queues on the way. */
bool queue_take_for(pc_worker *w, uint32_t o, resend *r, uint64_t now)
{
    if (w->q.oq_len[o]) {
        *r = queue_pop(w, o);
        return true;
    }
    while (w->k_disp < w->k_due) {
        resend d = queue_next_due(w);

        if (w->run->tmpls[d.tmpl].origin == o) {
            *r = d;
            return true;
        }
        if (queue_push(w, d, false) < 0)
            queue_never_sent(w, d.intended, now); /* no memory to hold it for its origin */
    }
    return false;
}

/* Any waiting request (queue_backlog_len() > 0): the queues' first, else the
 * next due. For outcomes that need no connection (never sent, a connect
 * that failed under -n). */
resend queue_take(pc_worker *w)
{
    for (uint32_t o = 0; w->q.oq_total && o < w->run->norigins; o++)
        if (w->q.oq_len[o])
            return queue_pop(w, o);
    return queue_next_due(w);
}

void queue_ready_push(conn *c)
{
    pc_worker *w = c->w;

    if (c->in_ready || !w->open_loop)
        return;
    w->q.rq[(w->q.rq_head + w->q.rq_len) % w->nconns] = (uint32_t)(c - w->conns);
    w->q.rq_len++;
    c->in_ready = true;
}

bool queue_has_room(const conn *c)
{
    /* thread:stop() or a script error: this thread sends nothing more. */
    if (src_stopped(c->w))
        return false;
    return c->state == CS_READY && !c->draining && c->h.count < c->proto->capacity(&c->h);
}

static void queue_enqueue(conn *c, resend r)
{
    slot *s = queue_slot_alloc(c);

    if (c->h.count == 1) {
        c->batch_intended = r.intended;
        c->h.batch_sent = 0;
    }
    s->intended = r.intended;
    /* Sendable at its time, or, if no connection had room then, once this
     * one had: the rest of the wait until its first byte is pacer's own. */
    s->ready = r.intended > c->room_at ? r.intended : c->room_at;
    s->retries = r.retries;
    s->idle_refusals = r.idle_refusals;
    s->tmpl = r.tmpl;
    if (c->fresh) {
        s->ctime = c->conn_time;
        c->fresh = false;
        conn_opening(c, false);
    }
    /* --no-keepalive: one request per connection. */
    if (c->w->cfg->no_keepalive)
        c->draining = true;
    c->proto->submit(&c->h, s);
}

/* Take the next connection off the ready queue. */
static conn *queue_ready_pop(pc_worker *w)
{
    conn *c = &w->conns[w->q.rq[w->q.rq_head]];

    w->q.rq_head = (w->q.rq_head + 1) % w->nconns;
    w->q.rq_len--;
    c->in_ready = false;
    return c;
}

/* Hand waiting requests to connections with room, oldest first, each
 * connection taking its own origin's. A pass over the ready connections
 * that hands nothing on ends it (what waits is for origins whose
 * connections are full or not open). */
void queue_dispatch(pc_worker *w)
{
    uint64_t now = pc_now_ns(); /* for a request that cannot be queued (no memory) */
    bool progress = true;

    while (progress && queue_backlog_len(w) > 0 && w->q.rq_len > 0) {
        uint32_t n = w->q.rq_len;

        progress = false;
        while (n-- > 0 && queue_backlog_len(w) > 0) {
            conn *c = queue_ready_pop(w);
            uint32_t gen = c->h.gen;
            resend r;

            if (!queue_has_room(c))
                continue;
            if (queue_take_for(w, c->origin, &r, now)) {
                queue_enqueue(c, r);
                /* The time now, not the pass's: the sends before this one
                 * (and a script's request()) took time, and the first
                 * byte's time is the send lag's end and the uncorrected
                 * latency's start. */
                c->proto->flush(&c->h, pc_now_ns());
                progress = true;
            }
            if (c->h.gen == gen && queue_has_room(c))
                queue_ready_push(c);
        }
    }
}

/* Closed loop: a connection with room sends at once. HTTP/1.1 pipelining
 * refills only an idle connection (a batch at a time, as wrk). */
void queue_closed_fill(conn *c, uint64_t now)
{
    pc_worker *w = c->w;
    bool any = false;

    if (w->open_loop || w->phase != P_RUN)
        return;
    if (!c->proto->multiplexed && c->h.count)
        return;
    if (w->src.wants_delay && c->h.count == 0) {
        /* delay(): wait that long before this connection's next request. */
        if (!c->wake_at) {
            double ms = w->src.ops->delay(w->src.self);

            if (ms > 0) {
                wake_delay(c, now + (uint64_t)(ms * 1e6));
                return;
            }
        } else if (now < c->wake_at) {
            return;
        }
        wake_delay(c, 0);
    }
    while (queue_has_room(c)) {
        uint32_t before = c->h.count, gen = c->h.gen;

        if (w->q.oq_len[c->origin]) {
            queue_enqueue(c, queue_pop(w, c->origin)); /* a re-send first */
        } else {
            uint32_t t;

            if (w->quota && w->created >= w->quota)
                break;
            t = queue_pick_tmpl_for(w, c->origin);
            /* Counted before it is handed on: the script's request() runs
             * inside, and a worker seized there still owes it an outcome.
             * -n counts the measured requests: the warm-up's are extra. */
            check_warmup(w, now);
            if (!warm(w, now)) {
                w->created++;
                w->st.scheduled++;
            }
            queue_enqueue(c, (resend){.intended = now, .tmpl = t});
        }
        any = true;
        /* It failed before a byte went out (a script's text refused):
         * the next try is the next tick's or event's, so a source that
         * fails every request cannot hold the thread here. */
        if (c->h.gen != gen || c->h.count == before)
            break;
    }
    if (any)
        c->proto->flush(&c->h, now);
}

/* ---- never sent ------------------------------------------------------ */

/* The schedule's requests [k, end) were never sent: counted in bulk, one
 * latency slot and one interval at a time. All the requests of a chunk
 * fall in the same histogram slot (the first, earliest, is recorded alone
 * so the exact max and min stay right), so the result is the same as one
 * at a time, and a backlog of 10^9 requests costs thousands of steps, not
 * 10^9 (-R 1G against a slow server once took 13 s to end). */
static void queue_never_sent_range(pc_worker *w, uint64_t k, uint64_t end, uint64_t now)
{
    sched *sc = &w->sc;

    while (k < end) {
        uint64_t t = sched_time(sc, k), k2, n;
        int64_t lat = now > t ? (int64_t)(now - t) : 0, last;

        if (t < w->measure_start) {
            k2 = w->k_meas;
            k2 = k2 > end ? end : k2 > k ? k2 : k + 1;
            rec_never_sent(w, t, 0, 0, k2 - k); /* the warm-up's: counted as such */
            k = k2;
            continue;
        }
        /* Later requests have smaller latencies: the chunk is those whose
         * latency stays in lat's slot (intended <= now - lowest). */
        k2 = lat == 0 ? end
                      : sched_count_before(sc, now - (uint64_t)rec_latency_floor(w, lat) + 1);
        if (w->run->interval_ns) {
            uint64_t iv = (t - w->measure_start) / w->run->interval_ns;
            uint64_t b = sched_count_before(sc, w->measure_start + (iv + 1) * w->run->interval_ns);

            k2 = b < k2 ? b : k2;
        }
        if (w->st.stages) {
            uint64_t e = w->st.steps ? sched_step_end(sc, t) : sched_stage_end(sc, sched_stage_of(sc, t));
            uint64_t b = e == UINT64_MAX ? end : sched_count_before(sc, e);

            k2 = b < k2 ? b : k2;
        }
        k2 = k2 > end ? end : k2 > k ? k2 : k + 1;
        n = k2 - k;
        last = lat;
        if (n > 1) {
            uint64_t tl = sched_time(sc, k2 - 1);

            last = now > tl ? (int64_t)(now - tl) : 0;
        }
        rec_never_sent(w, t, lat, last, n);
        k = k2;
    }
}

/* Everything still queued at the end was never sent: one outcome each,
 * the queues' first, then the schedule's due requests in bulk. */
void queue_drain(pc_worker *w, uint64_t now)
{
    while (w->q.oq_total)
        queue_never_sent(w, queue_take(w).intended, now);
    queue_never_sent_range(w, w->k_disp, w->k_due, now);
    w->k_disp = w->k_due;
}
