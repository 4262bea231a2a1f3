/*
 * srvm.c - the sampler's thread, and the figures of a run made from its
 * readings. See srvm.h.
 */
#include "srvm/srvm.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "srvm/srvm_int.h"
#include "util/grow.h"

/* One source: /proc, or one exporter; its readings in order (the start,
 * one per tick, the end). */
typedef struct srvm_source {
    bool is_proc;
    srvm_procsel sel;
    srvm_url url;
    srvm_reading *r;
    size_t n, cap;
    char groups[128]; /* process-exporter's groups, from the first good page */
} srvm_source;

/* The ticks whose times the sampler remembers (more can be pending only
 * when readings fall far behind; those are missed anyway). */
#define SRVM_TICKS 64

struct srvm {
    pthread_t th;
    bool running;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint32_t asked, taken; /* ticks signalled, ticks read */
    uint64_t tick_ns[SRVM_TICKS]; /* when tick k came: tick_ns[k % SRVM_TICKS] */
    bool stop;
    uint64_t interval_ns, timeout_ns;
    srvm_source src[1 + PC_SRV_MAX_URLS];
    size_t nsrc;
};

void srvm_reading_init(srvm_reading *r)
{
    memset(r, 0, sizeof *r);
    r->cpu_s = r->rss = r->hwm = r->threads = r->fds = r->nproc = NAN;
    r->cpus = r->busy_s = r->net_rx = r->net_tx = r->ctxsw = r->mem_used = NAN;
}

static uint64_t mono_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int srvm_check_pid(const char *arg, char *err, size_t errlen)
{
    srvm_procsel sel;

    return srvm_procsel_parse(arg, &sel, err, errlen);
}

int srvm_check_url(const char *arg, char *err, size_t errlen)
{
    srvm_url u;

    return srvm_url_parse(arg, &u, err, errlen);
}

/* Append a reading to src (a failed one when out of memory: the count of
 * readings must stay one per instant). */
static void push(srvm_source *src, const srvm_reading *r)
{
    if (grow_array(&src->r, &src->cap, src->n + 1, 16, sizeof *src->r) < 0)
        return; /* srvm_finish sees the short count and says so */
    src->r[src->n++] = *r;
}

/* Take one reading of src and file it for copies + 1 ticks (see sampler). */
static void read_source(srvm_source *src, uint64_t timeout_ns, uint32_t copies)
{
    srvm_reading r;

    if (src->is_proc) {
        srvm_proc_read("/proc", &src->sel, &r);
        r.t_ns = mono_ns();
    } else {
        char *body = NULL, why[PC_SRV_WHY] = "";
        size_t len = 0;
        uint64_t t0 = mono_ns();
        char *groups = src->groups[0] ? NULL : src->groups;

        if (srvm_http_get(&src->url, timeout_ns, &body, &len, why, sizeof why) < 0) {
            srvm_reading_init(&r);
            snprintf(r.why, sizeof r.why, "%s", why);
        } else {
            /* The exporter reads its counters while it answers: the
             * middle of the exchange is the instant they are of. */
            r.t_ns = 0;
            srvm_page_read(body, len, src->url.group, &r, groups, groups ? sizeof src->groups : 0);
        }
        free(body);
        r.t_ns = t0 + (mono_ns() - t0) / 2;
    }
    for (uint32_t k = 0; k <= copies; k++)
        push(src, &r);
}

static void read_all(srvm *s, uint32_t copies)
{
    for (size_t i = 0; i < s->nsrc; i++)
        read_source(&s->src[i], s->timeout_ns, copies);
}

/* A reading for a tick that came while the previous reading was still
 * being taken: the instant is lost, and said so. */
static void read_missed(srvm *s)
{
    srvm_reading r;

    srvm_reading_init(&r);
    r.t_ns = mono_ns();
    snprintf(r.why, sizeof r.why, "an interval ended while the previous reading was under way");
    for (size_t i = 0; i < s->nsrc; i++)
        push(&s->src[i], &r);
}

static void *sampler(void *arg)
{
    srvm *s = arg;

    pthread_mutex_lock(&s->mu);
    for (;;) {
        uint32_t due, missed = 0, last;

        while (!s->stop && s->asked == s->taken)
            pthread_cond_wait(&s->cv, &s->mu);
        due = s->asked - s->taken;
        last = s->asked;
        /* Several ticks pending: those that came within a tenth of an
         * interval of the last (the run's end delivers its last, short
         * interval right after the one before) share its reading; the
         * earlier ones came while a reading was under way, and are lost. */
        for (uint32_t k = s->taken + 1; k < last; k++)
            if (due > SRVM_TICKS ||
                s->tick_ns[last % SRVM_TICKS] - s->tick_ns[k % SRVM_TICKS] > s->interval_ns / 10)
                missed++;
        s->taken = s->asked;
        if (!due && s->stop)
            break;
        pthread_mutex_unlock(&s->mu);
        for (uint32_t k = 0; k < missed; k++)
            read_missed(s);
        if (due)
            read_all(s, due - 1 - missed);
        pthread_mutex_lock(&s->mu);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

int srvm_start(srvm **out, const pc_server_opts *o, uint64_t interval_ns)
{
    srvm *s = calloc(1, sizeof *s);
    char err[256];

    *out = NULL;
    if (!s)
        return -ENOMEM;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    s->interval_ns = interval_ns;
    s->timeout_ns = interval_ns / 3;
    if (s->timeout_ns > 2000000000ull)
        s->timeout_ns = 2000000000ull;
    if (s->timeout_ns < 20000000ull)
        s->timeout_ns = 20000000ull;
    /* The arguments were checked by the command line; parsed again here. */
    if (o->pid && srvm_procsel_parse(o->pid, &s->src[s->nsrc].sel, err, sizeof err) == 0)
        s->src[s->nsrc++].is_proc = true;
    for (uint32_t i = 0; i < o->nurls && i < PC_SRV_MAX_URLS; i++)
        if (srvm_url_parse(o->urls[i], &s->src[s->nsrc].url, err, sizeof err) == 0)
            s->nsrc++;
    read_all(s, 0);
    if (pthread_create(&s->th, NULL, sampler, s) == 0)
        s->running = true;
    *out = s;
    return 0;
}

void srvm_tick(srvm *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&s->mu);
    s->asked++;
    s->tick_ns[s->asked % SRVM_TICKS] = mono_ns();
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

/* The source whose figures of this kind the report shows: the first
 * with a good first and last reading, else the first that ever had one,
 * else the first that may have them (an exporter never reached may be
 * either kind). NULL: none. */
static const srvm_source *pick(const srvm *s, bool proc)
{
    const srvm_source *any = NULL, *maybe = NULL;

    for (size_t i = 0; i < s->nsrc; i++) {
        const srvm_source *c = &s->src[i];
        bool had = false, had_other = false;

        if (!c->n)
            continue;
        for (size_t k = 0; k < c->n; k++) {
            had |= proc ? c->r[k].proc : c->r[k].host;
            had_other |= proc ? c->r[k].host : c->r[k].proc;
        }
        if (proc && c->is_proc)
            had = true;
        if (had && (proc ? c->r[0].proc && c->r[c->n - 1].proc
                         : c->r[0].host && c->r[c->n - 1].host))
            return c;
        if (had && !any)
            any = c;
        if (!had && !had_other && !c->is_proc && !maybe)
            maybe = c;
    }
    return any ? any : maybe;
}

static const char *src_name(const srvm_source *c, char *buf, size_t n)
{
    if (!c->is_proc)
        return c->url.text;
    if (c->sel.pid > 0)
        snprintf(buf, n, "pid %d", c->sel.pid);
    else
        snprintf(buf, n, "process '%s'", c->sel.name);
    return buf;
}

/* Why a kind of figure is missing from c: the first failed reading among
 * the first and last (those the window needs), or what the page lacked. */
static void why_missing(const srvm_source *c, bool proc, char *why, size_t n)
{
    char nb[64];
    const char *name = src_name(c, nb, sizeof nb);
    const srvm_reading *ends[2] = {&c->r[0], &c->r[c->n - 1]};

    for (int i = 0; i < 2; i++) {
        bool ok = proc ? ends[i]->proc : ends[i]->host;

        if (!ok && ends[i]->why[0]) {
            snprintf(why, n, "%.240s: %s%.140s", name, i ? "at the end: " : "", ends[i]->why);
            return;
        }
        if (!ok) {
            snprintf(why, n, "%.240s: %s%s", name, i ? "at the end: " : "",
                     proc ? "no namedprocess_namegroup_cpu_seconds_total on the page"
                          : "no node_cpu_seconds_total on the page");
            return;
        }
    }
}

static double peak(double a, double b)
{
    return isnan(a) ? b : isnan(b) ? a : a > b ? a : b;
}

/* b - a, or NAN when either is missing or a counter went back (a
 * process of the group exited, an exporter restarted). */
static double diff(double a, double b)
{
    return isnan(a) || isnan(b) || b < a ? NAN : b - a;
}

static void fill_proc(pc_server *out, const srvm_source *c, uint32_t niv)
{
    const srvm_reading *a = &c->r[0], *b = &c->r[c->n - 1];
    char nb[64];

    if (c->is_proc) {
        double np = a->proc ? a->nproc : b->proc ? b->nproc : NAN;

        if (c->sel.pid > 0 && np > 1)
            snprintf(out->source, sizeof out->source, "pid %d and %.0f descendant%s", c->sel.pid,
                     np - 1, np > 2 ? "s" : "");
        else if (c->sel.pid > 0)
            snprintf(out->source, sizeof out->source, "pid %d", c->sel.pid);
        else if (!isnan(np))
            snprintf(out->source, sizeof out->source, "%s (%.0f process%s)", c->sel.name, np,
                     np == 1 ? "" : "es");
        else
            snprintf(out->source, sizeof out->source, "process '%s'", c->sel.name);
    } else {
        snprintf(out->source, sizeof out->source, "%.180s%s%.127s%s", src_name(c, nb, sizeof nb),
                 c->groups[0] ? " (" : "", c->groups, c->groups[0] ? ")" : "");
    }
    for (size_t k = 0; k < c->n; k++)
        if (c->r[k].proc) {
            out->rss_peak = peak(out->rss_peak, c->r[k].rss);
            out->threads_peak = peak(out->threads_peak, c->r[k].threads);
            out->fds_peak = peak(out->fds_peak, c->r[k].fds);
            out->hwm = c->r[k].hwm;
        }
    if (a->proc && b->proc) {
        out->window_s = (double)(b->t_ns - a->t_ns) / 1e9;
        out->cpu_s = diff(a->cpu_s, b->cpu_s);
        if (isnan(out->cpu_s))
            snprintf(out->proc_why, sizeof out->proc_why,
                     "%.240s: the CPU counter went back (a process exited or was replaced)",
                     src_name(c, nb, sizeof nb));
    } else {
        why_missing(c, true, out->proc_why, sizeof out->proc_why);
    }
    for (uint32_t i = 0; i < niv && i + 1 < c->n; i++)
        if (c->r[i].proc && c->r[i + 1].proc) {
            out->iv[i].cpu_s = diff(c->r[i].cpu_s, c->r[i + 1].cpu_s);
            out->iv[i].rss_bytes = c->r[i + 1].rss;
        }
}

static void fill_host(pc_server *out, const srvm_source *c, uint32_t niv)
{
    const srvm_reading *a = &c->r[0], *b = &c->r[c->n - 1];

    snprintf(out->host_source, sizeof out->host_source, "%.255s", c->url.text);
    for (size_t k = 0; k < c->n; k++)
        if (c->r[k].host) {
            out->host_mem_used_peak = peak(out->host_mem_used_peak, c->r[k].mem_used);
            out->host_cpus = c->r[k].cpus;
        }
    if (a->host && b->host) {
        if (isnan(out->window_s))
            out->window_s = (double)(b->t_ns - a->t_ns) / 1e9;
        out->host_busy_s = diff(a->busy_s, b->busy_s);
        out->host_net_rx = diff(a->net_rx, b->net_rx);
        out->host_net_tx = diff(a->net_tx, b->net_tx);
        out->host_ctxsw = diff(a->ctxsw, b->ctxsw);
        if (isnan(out->host_busy_s))
            snprintf(out->host_why, sizeof out->host_why,
                     "%.240s: the CPU counters went back (the exporter restarted?)", c->url.text);
    } else {
        why_missing(c, false, out->host_why, sizeof out->host_why);
    }
    for (uint32_t i = 0; i < niv && i + 1 < c->n; i++)
        if (c->r[i].host && c->r[i + 1].host) {
            out->iv[i].host_busy_s = diff(c->r[i].busy_s, c->r[i + 1].busy_s);
            out->iv[i].host_net_bytes = diff(c->r[i].net_rx + c->r[i].net_tx,
                                             c->r[i + 1].net_rx + c->r[i + 1].net_tx);
        }
}

static void free_sampler(srvm *s)
{
    for (size_t i = 0; i < s->nsrc; i++)
        free(s->src[i].r);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    free(s);
}

pc_server *srvm_finish(srvm *s, uint32_t niv)
{
    pc_server *out;
    const srvm_source *c;

    if (!s)
        return NULL;
    if (s->running) {
        pthread_mutex_lock(&s->mu);
        s->stop = true;
        pthread_cond_signal(&s->cv);
        pthread_mutex_unlock(&s->mu);
        pthread_join(s->th, NULL);
    }
    read_all(s, 0);
    if (!(out = server_new())) {
        free_sampler(s);
        return NULL;
    }
    if (niv && (out->iv = calloc(niv, sizeof *out->iv))) {
        out->niv = niv;
        for (uint32_t i = 0; i < niv; i++)
            out->iv[i] = (pc_srv_point){NAN, NAN, NAN, NAN};
    }
    for (size_t i = 0; i < s->nsrc; i++)
        if (s->src[i].n != 2 + (size_t)s->taken) {
            snprintf(out->proc_why, sizeof out->proc_why, "out of memory while sampling");
            snprintf(out->host_why, sizeof out->host_why, "out of memory while sampling");
            free_sampler(s);
            return out;
        }
    if ((c = pick(s, true)))
        fill_proc(out, c, out->niv);
    else
        snprintf(out->proc_why, sizeof out->proc_why,
                 "no --server-pid, and no process-exporter among --server-metrics");
    if ((c = pick(s, false)))
        fill_host(out, c, out->niv);
    free_sampler(s);
    return out;
}
