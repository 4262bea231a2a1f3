/*
 * live.c - see live.h.
 *
 * A message is one interval: a fixed head, the status codes that occur
 * (code, count pairs), the corrected latency histogram and the send lag's
 * (hdr_codec's binary form). Only what the progress line and view, and
 * --metrics-listen's page, show travels.
 */
#include "mpi/live.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/openmetrics.h"
#include "report/progress.h"
#include "stats/hdr_codec.h"
#include "util/clock.h"
#include "util/grow.h"

#define LIVE_TAG 17
#define LIVE_WAIT_NS 100000000ull /* for the others' interval, at most */
#define LIVE_NAP_NS 1000000L
#define LIVE_SLACK_NS 10000000000ull /* a probed message, or the last ones, to come */

/* The interval's counters but the per-code ones, which follow the head. */
#define HEAD_COUNT(f, dim) uint64_t f dim;
#define HEAD_CODES(f, dim)
#define HEAD(kind, f, dim) HEAD_##kind(f, dim)
typedef struct live_head {
    uint32_t index, nstatus;
    uint64_t hist_len, lag_len;
    PC_INTERVAL_COUNTERS(HEAD)
} live_head;
#undef HEAD
#undef HEAD_CODES
#undef HEAD_COUNT

/* The head's counters from an interval, and back. */
#define SKIP_CODES(f)
#define FROM_COUNT(f) memcpy(&h->f, &iv->f, sizeof h->f);
#define FROM(kind, f, dim) FROM_##kind(f)
#define FROM_CODES SKIP_CODES
static void head_from(live_head *h, const pc_interval *iv)
{
    PC_INTERVAL_COUNTERS(FROM)
}
#define TO_COUNT(f) memcpy(&iv->f, &h->f, sizeof h->f);
#define TO(kind, f, dim) TO_##kind(f)
#define TO_CODES SKIP_CODES
static void head_to(pc_interval *iv, const live_head *h)
{
    PC_INTERVAL_COUNTERS(TO)
}
#undef TO_CODES
#undef TO
#undef TO_COUNT
#undef FROM_CODES
#undef FROM
#undef FROM_COUNT
#undef SKIP_CODES


typedef struct live_status {
    uint64_t code, count;
} live_status;

typedef struct live_send {
    void *req;
    uint8_t *buf;
} live_send;

struct mlive {
    pc_mpi *m;
    int rank, size;
    bool on;
    uint64_t wait_ns;
    /* rank 0 */
    pc_progress *prog;
    om_metrics *om;
    pc_interval **head, **tail; /* per rank, in index order */
    uint64_t *got;
    /* the others */
    uint64_t sent;
    live_send *sends;
    size_t nsends, capsends;
};

mlive *mlive_new(pc_mpi *m, int rank, int size, const pc_config *whole, const pc_results *res)
{
    mlive *l = calloc(1, sizeof *l);

    if (!l)
        return NULL;
    l->m = m;
    l->rank = rank;
    l->size = size;
    l->wait_ns = whole->interval_ns / 10 < LIVE_WAIT_NS ? whole->interval_ns / 10 : LIVE_WAIT_NS;
    if (rank != 0)
        return l;
    l->head = calloc((size_t)size, sizeof *l->head);
    l->tail = calloc((size_t)size, sizeof *l->tail);
    l->got = calloc((size_t)size, sizeof *l->got);
    if (!l->head || !l->tail || !l->got) {
        mlive_free(l);
        return NULL;
    }
    l->prog = progress_new(whole, res, NULL, stderr);
    l->on = l->prog != NULL;
    return l;
}

void mlive_set_metrics(mlive *l, om_metrics *om)
{
    if (l->rank != 0)
        return;
    l->om = om;
    l->on = l->prog || om;
}

bool mlive_wanted(const mlive *l)
{
    return l->on;
}

void mlive_set_on(mlive *l, bool on)
{
    if (l->rank != 0)
        l->on = on;
}

uint64_t mlive_sent(const mlive *l)
{
    return l ? l->sent : 0;
}

/* Sends that are done give their buffers back; wait: every one. */
static int reap(mlive *l, bool wait)
{
    size_t keep = 0;
    int rc = 0;

    if (wait)
        mpi_set_deadline(l->m, pc_now_ns() + LIVE_SLACK_NS);
    for (size_t i = 0; i < l->nsends; i++) {
        int done = rc < 0 ? 0 : mpi_send_done(l->m, &l->sends[i].req, wait);

        if (done < 0)
            rc = done;
        if (done == 1)
            free(l->sends[i].buf);
        else
            l->sends[keep++] = l->sends[i];
    }
    l->nsends = keep;
    return rc;
}

/* A rank but 0: this interval to rank 0. */
static void send_interval(mlive *l, const pc_interval *iv)
{
    live_head h = {.index = iv->index};
    uint8_t *hist = NULL, *lag = NULL, *buf;
    size_t hlen = 0, llen = 0, len, at;

    reap(l, false);
    if (grow_array(&l->sends, &l->capsends, l->nsends + 1, 16, sizeof *l->sends) < 0)
        return;
    if (hdrc_encode(&iv->latency, &hist, &hlen) < 0)
        return;
    if (hdrc_encode(&iv->send_lag, &lag, &llen) < 0) {
        free(hist);
        return;
    }
    head_from(&h, iv);
    for (int c = 0; c < STATS_MAX_STATUS; c++)
        h.nstatus += iv->status[c] != 0;
    h.hist_len = hlen;
    h.lag_len = llen;
    len = sizeof h + h.nstatus * sizeof(live_status) + hlen + llen;
    if (!(buf = malloc(len))) {
        free(hist);
        free(lag);
        return;
    }
    memcpy(buf, &h, sizeof h);
    at = sizeof h;
    for (int c = 0; c < STATS_MAX_STATUS; c++)
        if (iv->status[c]) {
            live_status st = {(uint64_t)c, iv->status[c]};

            memcpy(buf + at, &st, sizeof st);
            at += sizeof st;
        }
    memcpy(buf + at, hist, hlen);
    memcpy(buf + at + hlen, lag, llen);
    free(hist);
    free(lag);
    if (mpi_send_start(l->m, buf, len, 0, LIVE_TAG, &l->sends[l->nsends].req) < 0) {
        free(buf);
        return;
    }
    l->sends[l->nsends++].buf = buf;
    l->sent++;
}

/* A message back into an interval (NULL: not one of ours, or no memory). */
static pc_interval *decode(const uint8_t *buf, size_t len)
{
    live_head h;
    pc_interval *iv;
    hdr_hist lat;
    size_t at = sizeof h;

    if (len < sizeof h)
        return NULL;
    memcpy(&h, buf, sizeof h);
    if (h.nstatus > STATS_MAX_STATUS || h.hist_len > len || h.lag_len > len ||
        len != sizeof h + h.nstatus * sizeof(live_status) + h.hist_len + h.lag_len ||
        !(iv = interval_new()))
        return NULL;
    iv->index = h.index;
    head_to(iv, &h);
    for (uint32_t i = 0; i < h.nstatus; i++, at += sizeof(live_status)) {
        live_status st;

        memcpy(&st, buf + at, sizeof st);
        if (st.code < STATS_MAX_STATUS)
            iv->status[st.code] = st.count;
    }
    if (hdrc_decode(buf + at, (size_t)h.hist_len, &lat) == 0) {
        hdr_add(&iv->latency, &lat);
        hdr_free(&lat);
    }
    if (hdrc_decode(buf + at + h.hist_len, (size_t)h.lag_len, &lat) == 0) {
        hdr_add(&iv->send_lag, &lat);
        hdr_free(&lat);
    }
    return iv;
}

/* Rank 0: one message from a rank into its queue (or dropped). */
static int take(mlive *l, int from, size_t len)
{
    uint8_t *buf = malloc(len ? len : 1);
    pc_interval *iv;
    int rc;

    if (!buf)
        return -ENOMEM;
    mpi_set_deadline(l->m, pc_now_ns() + LIVE_SLACK_NS);
    rc = mpi_recv(l->m, buf, len, from, LIVE_TAG);
    if (rc == 0 && from > 0 && from < l->size) {
        l->got[from]++;
        if ((iv = decode(buf, len))) {
            iv->next = NULL;
            if (l->tail[from])
                l->tail[from]->next = iv;
            else
                l->head[from] = iv;
            l->tail[from] = iv;
        }
    }
    free(buf);
    return rc;
}

/* Rank 0: every message that has come. */
static void take_ready(mlive *l)
{
    int from;
    size_t len;

    while (mpi_probe(l->m, LIVE_TAG, &from, &len) == 1)
        if (take(l, from, len) < 0)
            return;
}

/* Rank 0: whether every rank's interval index (or a later one) is here. */
static bool all_came(const mlive *l, uint32_t index)
{
    for (int k = 1; k < l->size; k++)
        if (!l->tail[k] || l->tail[k]->index < index)
            return false;
    return true;
}

static void nap(void)
{
    struct timespec t = {0, LIVE_NAP_NS};

    nanosleep(&t, NULL);
}

/* Rank 0: its own interval iv, plus each rank's same one, as one line. */
static void show_merged(mlive *l, const pc_interval *iv)
{
    uint64_t until = pc_now_ns() + l->wait_ns;
    pc_interval *sum = interval_new();
    char label[48];
    int n = 1;

    take_ready(l);
    while (!all_came(l, iv->index) && pc_now_ns() < until) {
        nap();
        take_ready(l);
    }
    if (!sum)
        return;
    interval_merge(sum, iv);
    for (int k = 1; k < l->size; k++) {
        pc_interval *x;

        while ((x = l->head[k]) && x->index <= iv->index) {
            if (x->index == iv->index) {
                /* The same instants on every rank: the shared start. */
                x->start_ns = iv->start_ns;
                x->end_ns = iv->end_ns;
                interval_merge(sum, x);
                n++;
            }
            if (!(l->head[k] = x->next))
                l->tail[k] = NULL;
            interval_free(x);
        }
    }
    sum->index = iv->index;
    if (l->prog) {
        snprintf(label, sizeof label, "%d/%d ranks", n, l->size);
        progress_set_label(l->prog, label);
        progress_on_interval(l->prog, sum);
    }
    if (l->om)
        om_on_interval(l->om, sum);
    interval_free(sum);
}

void mlive_on_interval(void *ud, const pc_interval *iv)
{
    mlive *l = ud;

    if (!l->on)
        return;
    if (l->rank == 0)
        show_merged(l, iv);
    else
        send_interval(l, iv);
}

int mlive_finish(mlive *l, const uint64_t *sent)
{
    uint64_t until = pc_now_ns() + LIVE_SLACK_NS;
    int rc = 0;

    if (!l)
        return 0;
    if (l->rank != 0)
        return reap(l, true);
    for (int k = 1; k < l->size && rc == 0; k++)
        while (l->got[k] < sent[k] && rc == 0) {
            int from;
            size_t len;
            int got = mpi_probe(l->m, LIVE_TAG, &from, &len);

            if (got == 1)
                rc = take(l, from, len);
            else if (got < 0)
                rc = got;
            else if (pc_now_ns() > until)
                rc = -ETIMEDOUT;
            else
                nap();
        }
    progress_end(l->prog);
    l->prog = NULL;
    return rc;
}

void mlive_free(mlive *l)
{
    if (!l)
        return;
    for (int k = 0; l->head && k < l->size; k++)
        while (l->head[k]) {
            pc_interval *x = l->head[k];

            l->head[k] = x->next;
            interval_free(x);
        }
    /* Sends still in flight (a run that failed) keep their buffers: MPI
     * may still read them until MPI_Finalize. */
    free(l->sends);
    progress_end(l->prog);
    free(l->head);
    free(l->tail);
    free(l->got);
    free(l);
}
