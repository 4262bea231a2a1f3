/*
 * recorder.c - every request's one outcome: responses, failures and
 * never-sent requests into the worker's statistics and current interval,
 * and the statistics' reset when the warm-up ends. It records what it is
 * handed (queue.c decides what was never sent) and calls neither queue.c
 * nor conn.c.
 */
#include "engine/worker_int.h"

/* ---- outcomes -------------------------------------------------------- */

/* The stage of --stages whose time the request was intended in (NULL:
 * no stages). A request belongs to the load it was part of, whenever it
 * was answered. */
static pc_stage_stats *rec_stage_at(pc_worker *w, uint64_t intended)
{
    return w->st.stages ? &w->st.stages[sched_stage_of(&w->sc, intended)] : NULL;
}

/* The ramp row it was intended in, the same way (NULL: its stage holds
 * its rate, or no stages). */
static pc_stage_stats *rec_step_at(pc_worker *w, uint64_t intended)
{
    int64_t i = w->st.steps ? sched_step_of(&w->sc, intended) : -1;

    return i >= 0 && (uint64_t)i < w->st.nsteps ? &w->st.steps[i] : NULL;
}

/* s's uncorrected latency at now: from when its first byte left, the
 * kernel's stamp of it where there is one (net_tx_times), else when pacer
 * wrote it, else (never sent) its intended time. */
static int64_t rec_uncorrected(const slot *s, uint64_t now)
{
    uint64_t out = s->wire ? s->wire : s->sent ? s->sent : s->intended;

    return (int64_t)(now > out ? now - out : 0);
}

/* A stage's or row's share of a request that ended: its corrected latency
 * (corr < 0: none) and, when it was sent, its uncorrected latency and send
 * lag. */
static void rec_row_latency(pc_stage_stats *g, const slot *s, uint64_t now, int64_t corr)
{
    if (!g)
        return;
    if (corr >= 0)
        hdr_record(&g->latency, corr);
    if (s->sent) {
        hdr_record(&g->send_lag, (int64_t)(s->sent > s->ready ? s->sent - s->ready : 0));
        if (corr >= 0)
            hdr_record(&g->latency_u, rec_uncorrected(s, now));
    }
}


/* Every latency sample goes to the run totals and to the current interval,
 * so that the intervals add up to the totals exactly. uncorrected < 0:
 * there is none. */
void rec_latency(pc_worker *w, int64_t corrected, int64_t uncorrected)
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

/* How long pacer itself held a sent request back (none: never sent). */
static void rec_send_lag(pc_worker *w, const slot *s)
{
    int64_t lag = (int64_t)(s->sent > s->ready ? s->sent - s->ready : 0);

    if (!s->sent)
        return;
    hdr_record(&w->st.send_lag, lag);
    if (s->wire)
        hdr_record(&w->st.wire_lag, (int64_t)(s->wire - s->sent));
    if (w->iv)
        hdr_record(&w->iv->send_lag, lag);
    w->st.sent_early += s->sent < s->intended;
}

void rec_done(pc_worker *w, const slot *s, uint64_t now, int status, uint64_t body)
{
    uint64_t sent = s->sent ? s->sent : s->intended;
    bool ok = status >= 200 && status < 400;
    pc_stage_stats *sg;

    if (warm(w, s->intended)) {
        w->warm_outcomes++;
        return;
    }
    w->st.completed++;
    w->last_done = now;
    rec_send_lag(w, s);
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
            .write = s->sent && s->written >= s->sent ? s->written - s->sent : UINT64_MAX,
            .status = status,
        };
    hdr_record(&w->st.total_req, (int64_t)(s->ctime + now - sent));
    if (s->first_byte >= sent && now >= s->first_byte)
        hdr_record(&w->st.processing, (int64_t)(now - s->first_byte));
    if (w->st.urls) {
        w->st.urls[s->tmpl].completed++;
        if (w->st.url_lat)
            hdr_record(&w->st.url_lat[s->tmpl], (int64_t)(now - s->intended));
    }
    if (status >= 0 && status < STATS_MAX_STATUS)
        w->st.status[status]++;
    else
        w->st.status_other++;
    w->st.non2xx += !ok;
    if (w->iv) {
        w->iv->completed++;
        w->iv->non2xx += !ok;
        if (status >= 0 && status < STATS_MAX_STATUS)
            w->iv->status[status]++;
        else
            w->iv->status_other++;
    }
    if (!w->cfg->batch_latency || w->depth < 2)
        rec_latency(w, (int64_t)(now - s->intended), rec_uncorrected(s, now));
    for (int r = 0; r < 2; r++)
        if ((sg = r ? rec_step_at(w, s->intended) : rec_stage_at(w, s->intended))) {
            sg->completed++;
            sg->non2xx += !ok;
            rec_row_latency(sg, s, now, (int64_t)(now - s->intended));
        }
    if (s->first_byte >= sent)
        hdr_record(&w->st.ttfb, (int64_t)(s->first_byte - sent));
}

/* A request that got no response. Timeouts and never-sent requests are
 * recorded in the latency histograms at the latency they had reached,
 * a lower bound of the truth: leaving them out is how tools hide stalls. */
void rec_failed(pc_worker *w, const slot *s, int kind, uint64_t now)
{
    pc_stage_stats *rows[2] = {rec_stage_at(w, s->intended), rec_step_at(w, s->intended)};

    if (warm(w, s->intended)) {
        w->warm_outcomes++;
        return;
    }
    for (int r = 0; r < 2; r++)
        if (rows[r]) {
            rows[r]->errors++;
            rec_row_latency(rows[r], s, now, kind == PC_ERR_TIMEOUT ? (int64_t)(now - s->intended) : -1);
        }
    rec_send_lag(w, s);
    if (kind == PC_ERR_TIMEOUT) {
        rec_latency(w, (int64_t)(now - s->intended), rec_uncorrected(s, now));
        w->st.lower_bound++;
        if (w->iv)
            w->iv->timeouts++;
    }
    if (w->iv) {
        w->iv->errors++;
        w->iv->err[kind]++;
    }
    if (w->st.urls)
        w->st.urls[s->tmpl].errors++;
    w->st.err[kind]++;
}

/* A never-sent request is known as such only when the run ends, long after
 * the interval it was due in was handed on: it is counted by that
 * interval's index, for the series to place (worker_never_sent_due; one
 * there was no room for is placed in the last interval). The queue
 * (queue.c) decides what was never sent; this files it. */
static void rec_never_sent_due(pc_worker *w, uint64_t intended, uint64_t count)
{
    uint64_t i = (intended - w->measure_start) / w->run->interval_ns;

    if (w->iv && i > w->iv->index)
        i = w->iv->index;
    if (counts_grow(&w->ns_due, &w->ns_n, (uint32_t)i + 1) < 0)
        return;
    w->ns_due[i] += count;
}

/* n never-sent requests of one stage and ramp row, at latency lat (the
 * bulk path's chunks never straddle either). */
static void rec_stage_never_sent(pc_worker *w, uint64_t intended, uint64_t lat, uint64_t n)
{
    pc_stage_stats *rows[2] = {rec_stage_at(w, intended), rec_step_at(w, intended)};

    for (int r = 0; r < 2; r++)
        if (rows[r]) {
            rows[r]->never_sent += n;
            hdr_record_n(&rows[r]->latency, (int64_t)lat, (int64_t)n);
        }
}

void rec_interrupted(pc_worker *w, const slot *s)
{
    pc_stage_stats *rows[2] = {rec_stage_at(w, s->intended), rec_step_at(w, s->intended)};

    w->st.interrupted++;
    for (int r = 0; r < 2; r++)
        if (rows[r])
            rows[r]->interrupted++;
}

/* n never-sent requests of one stage, ramp row and interval (queue.c's
 * chunks never straddle one): the first, intended at `intended`, at
 * latency lat, the last at `last`, the others in lat's histogram slot
 * (the exact max and min stay right). n == 1: one request, at lat. */
void rec_never_sent(pc_worker *w, uint64_t intended, int64_t lat, int64_t last, uint64_t n)
{
    if (warm(w, intended)) {
        w->warm_outcomes += n;
        return;
    }
    w->st.never_sent += n;
    w->st.lower_bound += n;
    if (w->run->interval_ns)
        rec_never_sent_due(w, intended, n);
    rec_latency(w, lat, -1);
    rec_stage_never_sent(w, intended, (uint64_t)lat, n);
    if (n > 1) {
        hdr_record_n(&w->st.latency, lat, (int64_t)n - 2);
        if (w->iv)
            hdr_record_n(&w->iv->latency, lat, (int64_t)n - 2);
        rec_latency(w, last, -1);
    }
}

/* The smallest latency recorded in the same histogram slot as lat: the
 * queue's never-sent chunks end where their latencies would leave it. */
int64_t rec_latency_floor(const pc_worker *w, int64_t lat)
{
    return hdr_lowest_equivalent(&w->st.latency, lat);
}

/* What describes the server rather than counts what it did (its Server
 * header, the TLS version and cipher) outlives the reset, and so do the
 * connections still open, counted again by the protocol they spoke: the
 * measured period's too. */
void rec_warmup_end(pc_worker *w, uint64_t now)
{
    char server[sizeof w->st.server], version[sizeof w->st.tls_version],
        cipher[sizeof w->st.tls_cipher];

    memcpy(server, w->st.server, sizeof server);
    memcpy(version, w->st.tls_version, sizeof version);
    memcpy(cipher, w->st.tls_cipher, sizeof cipher);
    stats_reset(&w->st);
    memcpy(w->st.server, server, sizeof server);
    memcpy(w->st.tls_version, version, sizeof version);
    memcpy(w->st.tls_cipher, cipher, sizeof cipher);
    for (uint32_t i = 0; i < w->nconns; i++)
        if (w->conns[i].state == CS_READY && w->conns[i].spoke)
            (*w->conns[i].spoke)++;
    pace_begin(w, now);
    w->warm_reset = true;
}
