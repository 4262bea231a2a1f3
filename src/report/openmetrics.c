/*
 * openmetrics.c - see openmetrics.h.
 */
#include "report/openmetrics.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "dist/shard.h"
#include "engine/sched.h"
#include "report/om_listen.h"
#include "util/clock.h"

#define OM_CTYPE "application/openmetrics-text; version=1.0.0; charset=utf-8"

const int64_t om_bucket_le_ns[OM_NBUCKETS] = {
    100000,    200000,    500000,    1000000,    2000000,    5000000,
    10000000,  20000000,  50000000,  100000000,  200000000,  500000000,
    1000000000, 2000000000, 5000000000, 10000000000,
};
/* The same boundaries in seconds, as the le labels spell them. */
static const char *const le_text[OM_NBUCKETS] = {
    "0.0001", "0.0002", "0.0005", "0.001", "0.002", "0.005", "0.01", "0.02",
    "0.05",   "0.1",    "0.2",    "0.5",   "1.0",   "2.0",   "5.0",  "10.0",
};

/* A histogram as the page has it. */
typedef struct om_hist {
    uint64_t le[OM_NBUCKETS];
    uint64_t count;
    double sum_s;
} om_hist;

/* What one page shows: the running totals, or the run's own at the end. */
typedef struct om_snap {
    uint64_t status[STATS_MAX_STATUS], status_other;
    uint64_t err[PC_ERR_KINDS], connect_errors;
    uint64_t completed, errors, never_sent, interrupted;
    om_hist lat, lag;
    double elapsed_s;
    double target_rate; /* < 0: none (closed loop) */
    uint32_t stage, nstages; /* stage 1-based; nstages 0: no --stages */
    bool ended;
} om_snap;

struct om_metrics {
    const pc_config *cfg;
    const pc_results *res;
    oml *lis;
    char run_id[33];
    /* The main thread's: */
    om_snap acc;
    pc_interval *sum; /* every interval so far, added up */
    bool shaped;
    sched sc;
    double scale;
    /* Shared with the listener, under mu: */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    om_snap snap;
    bool final_served;
};

void om_buckets(const hdr_hist *h, const int64_t *le, size_t n, uint64_t *out)
{
    uint64_t sum = 0;
    size_t b = 0;

    for (int32_t i = 0; i < h->counts_len && b < n; i++) {
        int64_t c = h->counts[i];

        if (!c)
            continue;
        while (b < n && hdr_value_at_index(h, i) > le[b])
            out[b++] = sum;
        sum += (uint64_t)c;
    }
    while (b < n)
        out[b++] = sum;
}

static void hist_of(om_hist *o, const hdr_hist *h)
{
    om_buckets(h, om_bucket_le_ns, OM_NBUCKETS, o->le);
    o->count = (uint64_t)h->total_count;
    o->sum_s = hdr_mean(h) * (double)h->total_count / 1e9;
}

static void make_run_id(char *id)
{
    uint8_t r[16];

    if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
        /* No entropy yet (early boot): the clock and pid, unique enough
         * to tell runs apart. */
        uint64_t a = pc_now_ns(), b = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);

        memcpy(r, &a, 8);
        memcpy(r + 8, &b, 8);
    }
    for (size_t i = 0; i < sizeof r; i++)
        snprintf(id + 2 * i, 3, "%02x", r[i]);
}

static int page_cb(void *ud, char **body, size_t *len, const char **ctype)
{
    *ctype = OM_CTYPE;
    return om_page(ud, body, len);
}

int om_start(om_metrics **out, const pc_config *cfg, const pc_results *res, char *err,
             size_t errlen)
{
    om_metrics *m = calloc(1, sizeof *m);
    pthread_condattr_t ca;
    int rc;

    *out = NULL;
    if (!m || !(m->sum = interval_new())) {
        free(m);
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    m->cfg = cfg;
    m->res = res;
    make_run_id(m->run_id);
    m->acc.target_rate = cfg->rate > 0 ? cfg->rate : -1;
    m->acc.nstages = cfg->rate > 0 ? cfg->shape.n : 0;
    m->acc.stage = m->acc.nstages ? 1 : 0;
    if (cfg->rate > 0 && pc_shape_active(&cfg->shape)) {
        double whole = shard_total_rate(cfg);

        sched_init_run(&m->sc, 0, &cfg->shape, whole, 1, 0);
        m->shaped = true;
        m->scale = whole > 0 ? cfg->rate / whole : 1;
        m->acc.target_rate = sched_rate_at(&m->sc, 0) * m->scale;
    }
    m->snap = m->acc;
    pthread_mutex_init(&m->mu, NULL);
    /* om_stop's wait is on the monotonic clock, as pc_now_ns. */
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&m->cv, &ca);
    pthread_condattr_destroy(&ca);
    if ((rc = oml_start(&m->lis, cfg->metrics.listen, page_cb, m, err, errlen)) < 0) {
        om_stop(m);
        return rc;
    }
    *out = m;
    return 0;
}

const char *om_run_id(const om_metrics *m)
{
    return m ? m->run_id : NULL;
}

static void publish(om_metrics *m, const om_snap *s)
{
    pthread_mutex_lock(&m->mu);
    m->snap = *s;
    pthread_mutex_unlock(&m->mu);
}

/* The counters an interval and the run's totals both have. */
static void snap_counts(om_snap *a, const uint64_t *status, uint64_t status_other,
                        const uint64_t *err, uint64_t connect_errors, uint64_t completed)
{
    memcpy(a->status, status, sizeof a->status);
    a->status_other = status_other;
    memcpy(a->err, err, sizeof a->err);
    a->errors = 0;
    for (int k = 0; k < PC_ERR_KINDS; k++)
        a->errors += err[k];
    a->connect_errors = connect_errors;
    a->completed = completed;
}

void om_on_interval(void *ud, const pc_interval *iv)
{
    om_metrics *m = ud;
    om_snap *a = &m->acc;
    const pc_interval *t = m->sum;

    interval_merge(m->sum, iv);
    snap_counts(a, t->status, t->status_other, t->err, t->connect_errors, t->completed);
    hist_of(&a->lat, &t->latency);
    hist_of(&a->lag, &t->send_lag);
    if (m->res->start_mono_ns && iv->end_ns > m->res->start_mono_ns)
        a->elapsed_s = (double)(iv->end_ns - m->res->start_mono_ns) / 1e9;
    if (m->shaped) {
        /* The shape's time: its zero is the schedule's start (the warm-up's). */
        double at = a->elapsed_s + (double)m->cfg->warmup_ns / 1e9;

        a->target_rate = sched_rate_at(&m->sc, at) * m->scale;
        if (a->nstages)
            a->stage = sched_stage_of(&m->sc, (uint64_t)llround(at * 1e9)) + 1;
    }
    publish(m, a);
}

void om_final(om_metrics *m, const pc_results *res)
{
    const pc_stats *st = &res->st;
    om_snap *a;

    if (!m)
        return;
    a = &m->acc;
    snap_counts(a, st->status, st->status_other, st->err, st->connect_errors, st->completed);
    a->never_sent = st->never_sent;
    a->interrupted = st->interrupted;
    if (st->latency.counts)
        hist_of(&a->lat, &st->latency);
    if (st->send_lag.counts)
        hist_of(&a->lag, &st->send_lag);
    a->elapsed_s = (double)res->duration_ns / 1e9;
    a->ended = true;
    publish(m, a);
}

void om_stop(om_metrics *m)
{
    if (!m)
        return;
    if (m->lis && m->cfg->metrics.linger_ns) {
        struct timespec until;
        uint64_t t = pc_now_ns() + m->cfg->metrics.linger_ns;

        until.tv_sec = (time_t)(t / 1000000000ull);
        until.tv_nsec = (long)(t % 1000000000ull);
        pthread_mutex_lock(&m->mu);
        while (m->snap.ended && !m->final_served &&
               pthread_cond_timedwait(&m->cv, &m->mu, &until) == 0)
            ;
        pthread_mutex_unlock(&m->mu);
    }
    oml_stop(m->lis);
    pthread_cond_destroy(&m->cv);
    pthread_mutex_destroy(&m->mu);
    interval_free(m->sum);
    free(m);
}

/* ---- the page ------------------------------------------------------ */

typedef struct page {
    char *p;
    size_t len, cap;
    bool oom;
} page;

static void put(page *pg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(page *pg, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (pg->oom)
        return;
    for (;;) {
        va_start(ap, fmt);
        n = vsnprintf(pg->p + pg->len, pg->cap - pg->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            pg->oom = true;
            return;
        }
        if ((size_t)n < pg->cap - pg->len) {
            pg->len += (size_t)n;
            return;
        }
        size_t cap = (pg->cap + (size_t)n) * 2;
        char *p = realloc(pg->p, cap);

        if (!p) {
            pg->oom = true;
            return;
        }
        pg->p = p;
        pg->cap = cap;
    }
}

static void family(page *pg, const char *name, const char *type, const char *help)
{
    put(pg, "# TYPE %s %s\n# HELP %s %s\n", name, type, name, help);
}

/* A number as OpenMetrics reads it (never inf or nan here). */
static void put_double(page *pg, double v)
{
    put(pg, "%.9g", isfinite(v) ? v : 0);
}

static void put_hist(page *pg, const char *name, const char *id, const om_hist *h)
{
    for (int b = 0; b < OM_NBUCKETS; b++)
        put(pg, "%s_bucket{run_id=\"%s\",le=\"%s\"} %llu\n", name, id, le_text[b],
            (unsigned long long)h->le[b]);
    put(pg, "%s_bucket{run_id=\"%s\",le=\"+Inf\"} %llu\n", name, id,
        (unsigned long long)h->count);
    put(pg, "%s_count{run_id=\"%s\"} %llu\n", name, id, (unsigned long long)h->count);
    put(pg, "%s_sum{run_id=\"%s\"} ", name, id);
    put_double(pg, h->sum_s);
    put(pg, "\n");
}

static void put_one(page *pg, const char *sample, const char *id, uint64_t v)
{
    put(pg, "%s{run_id=\"%s\"} %llu\n", sample, id, (unsigned long long)v);
}

int om_page(om_metrics *m, char **body, size_t *len)
{
    om_snap *s = malloc(sizeof *s);
    page pg = {.p = malloc(8192), .cap = 8192};
    const char *id = m->run_id;
    uint64_t total;

    if (!s || !pg.p) {
        free(s);
        free(pg.p);
        return -ENOMEM;
    }
    pthread_mutex_lock(&m->mu);
    *s = m->snap;
    if (s->ended && !m->final_served) {
        m->final_served = true;
        pthread_cond_broadcast(&m->cv);
    }
    pthread_mutex_unlock(&m->mu);

    family(&pg, "pacer_run", "info", "This run: its id (the JSON result's run_id) and pacer's version.");
    put(&pg, "pacer_run_info{run_id=\"%s\",version=\"%s\"} 1\n", id, PACER_VERSION);
    family(&pg, "pacer_running", "gauge",
           "1 while the run goes on, 0 once it has ended (the figures are then the report's).");
    put_one(&pg, "pacer_running", id, s->ended ? 0 : 1);
    family(&pg, "pacer_elapsed_seconds", "gauge",
           "Measured time so far: the end of the last interval merged (at the end: the run's).");
    put(&pg, "pacer_elapsed_seconds{run_id=\"%s\"} ", id);
    put_double(&pg, s->elapsed_s);
    put(&pg, "\n");

    total = s->completed + s->errors + s->never_sent + s->interrupted;
    family(&pg, "pacer_requests", "counter",
           "Requests that ended, whatever the outcome (at the end: the JSON's requests.scheduled).");
    put_one(&pg, "pacer_requests_total", id, total);
    family(&pg, "pacer_responses", "counter",
           "Responses received, by status code (other: 600 and above).");
    for (int c = 0; c < STATS_MAX_STATUS; c++)
        if (s->status[c])
            put(&pg, "pacer_responses_total{run_id=\"%s\",code=\"%d\"} %llu\n", id, c,
                (unsigned long long)s->status[c]);
    if (s->status_other)
        put(&pg, "pacer_responses_total{run_id=\"%s\",code=\"other\"} %llu\n", id,
            (unsigned long long)s->status_other);
    family(&pg, "pacer_request_errors", "counter",
           "Requests that failed, by kind (timeout included).");
    for (int k = 0; k < PC_ERR_KINDS; k++)
        if (k != PC_ERR_CONNECT)
            put(&pg, "pacer_request_errors_total{run_id=\"%s\",kind=\"%s\"} %llu\n", id,
                pc_err_name(k), (unsigned long long)s->err[k]);
    family(&pg, "pacer_connect_errors", "counter",
           "Connect or handshake attempts that failed (attempts, not requests).");
    put_one(&pg, "pacer_connect_errors_total", id, s->connect_errors);
    if (s->ended) {
        /* Known only when the run stops: no sample before. */
        family(&pg, "pacer_never_sent", "counter",
               "Requests still waiting for a connection when the run stopped.");
        put_one(&pg, "pacer_never_sent_total", id, s->never_sent);
        family(&pg, "pacer_interrupted", "counter",
               "Requests in flight when a second signal cut the drain short.");
        put_one(&pg, "pacer_interrupted_total", id, s->interrupted);
    }
    family(&pg, "pacer_latency_seconds", "histogram",
           "Corrected latency (from the intended send time), from the HdrHistogram.");
    put_hist(&pg, "pacer_latency_seconds", id, &s->lat);
    family(&pg, "pacer_send_lag_seconds", "histogram",
           "pacer's own send lag: first byte written - when the request became sendable.");
    put_hist(&pg, "pacer_send_lag_seconds", id, &s->lag);
    if (s->target_rate >= 0) {
        family(&pg, "pacer_target_rate", "gauge",
               "Requests/s the schedule asks for now (-R, or the load shape's rate).");
        put(&pg, "pacer_target_rate{run_id=\"%s\"} ", id);
        put_double(&pg, s->target_rate);
        put(&pg, "\n");
    }
    if (s->nstages) {
        family(&pg, "pacer_stage", "gauge", "The --stages stage the schedule is in (1-based).");
        put_one(&pg, "pacer_stage", id, s->stage);
        family(&pg, "pacer_stages", "gauge", "How many stages --stages has.");
        put_one(&pg, "pacer_stages", id, s->nstages);
    }
    put(&pg, "# EOF\n");
    free(s);
    if (pg.oom) {
        free(pg.p);
        return -ENOMEM;
    }
    *body = pg.p;
    *len = pg.len;
    return 0;
}
