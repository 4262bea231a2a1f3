/*
 * run.c - plan the run, start the workers, wait (handling SIGINT and
 * SIGTERM), merge what they measured.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netdb.h>
#include <strings.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/un.h>
#include <time.h>

#include "engine/collect.h"
#include "engine/engine.h"
#include "engine/prep.h"
#include "engine/worker.h"
#include "proto/h1req.h"
#include "util/arena.h"
#include "util/clock.h"

struct pc_engine {
    const pc_config *cfg;
    pc_run run;
    pc_origin *origins;
    uint16_t *origin_of;        /* per request spec: its origin */
    uint32_t origin_first[256]; /* per origin: its first request spec */
    SSL_CTX *ssl_ctx;
    net_quic_ctx *quic_ctx;
    pc_header *hdrs;   /* the headers every request carries */
    size_t nhdrs;
    char **lower;      /* their names lower-cased (HTTP/2) */
    char *cookie, *auth;
    pc_tmpl *tmpls;
    pc_arena h1mem;    /* the templates' HTTP/1.1 bytes, packed */
    bool want_fields;     /* the run may speak HTTP/2 or /3: prebuilt header lists */
    co_sink sinks[ENGINE_MAX_SINKS];
    int nsinks;
    const pc_reqsource *source; /* NULL: the templates */
    uint64_t long_ns; /* the longer sink period (run.interval_ns is the shorter) */
    pc_start_fn start_fn; /* NULL: start when connected (or at --start-at) */
    void *start_ud;
    pc_connect_fn connect_fn; /* NULL: nobody watches the connections open */
    void *connect_ud;
};

void engine_set_connect_hook(pc_engine *e, pc_connect_fn fn, void *ud)
{
    e->connect_fn = fn;
    e->connect_ud = ud;
}

/* Tell the connect hook how far the workers are. */
static void connect_progress(pc_engine *e, pc_worker **ws, uint32_t started, uint64_t since,
                             bool done)
{
    uint32_t opened = 0, settled = 0;

    for (uint32_t i = 0; e->connect_fn && i < started; i++) {
        uint32_t o, s;

        worker_connecting(ws[i], &o, &s);
        opened += o;
        settled += s;
    }
    if (e->connect_fn)
        e->connect_fn(e->connect_ud, opened, settled, e->cfg->connections, pc_now_ns() - since,
                      done);
}

void engine_set_start_hook(pc_engine *e, pc_start_fn fn, void *ud)
{
    e->start_fn = fn;
    e->start_ud = ud;
}

void engine_set_source(pc_engine *e, const pc_reqsource *src)
{
    e->source = src;
}

/* Resolve one origin's addresses (once, before the run). */
static int resolve(pc_engine *e, const pc_url *url, pc_origin *o, char *err, size_t errlen)
{
    const pc_config *cfg = e->cfg;
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res, *ai;
    char host[256], port[16];
    uint32_t n = 0;
    int rc;

    if (cfg->unix_path) {
        struct sockaddr_un *un;

        o->addrs = calloc(1, sizeof *o->addrs);
        if (!o->addrs)
            return -ENOMEM;
        un = (struct sockaddr_un *)&o->addrs[0].sa;
        un->sun_family = AF_UNIX;
        strncpy(un->sun_path, cfg->unix_path, sizeof un->sun_path - 1);
        o->addrs[0].len = sizeof *un;
        snprintf(o->addrs[0].text, sizeof o->addrs[0].text, "unix:%.70s", cfg->unix_path);
        o->naddrs = 1;
        return 0;
    }
    if (cfg->connect_to) {
        /* --connect-to HOST:PORT: another address, the URL's Host kept. */
        const char *colon = strrchr(cfg->connect_to, ':');
        size_t hl = (size_t)(colon - cfg->connect_to);

        if (hl >= sizeof host || !colon) {
            snprintf(err, errlen, "invalid --connect-to '%s'", cfg->connect_to);
            return -EINVAL;
        }
        memcpy(host, cfg->connect_to, hl);
        host[hl] = '\0';
        if (hl > 2 && host[0] == '[' && host[hl - 1] == ']') {
            memmove(host, host + 1, hl - 2);
            host[hl - 2] = '\0';
        }
        snprintf(port, sizeof port, "%s", colon + 1);
    } else {
        snprintf(host, sizeof host, "%s", url->host);
        snprintf(port, sizeof port, "%s", url->port);
    }
    rc = getaddrinfo(host, port, &hints, &res);
    if (rc != 0) {
        snprintf(err, errlen, "cannot resolve '%s': %s", host, gai_strerror(rc));
        return -EHOSTUNREACH;
    }
    for (ai = res; ai; ai = ai->ai_next)
        n++;
    o->addrs = calloc(n, sizeof *o->addrs);
    if (!o->addrs) {
        freeaddrinfo(res);
        return -ENOMEM;
    }
    n = 0;
    for (ai = res; ai; ai = ai->ai_next) {
        pc_addr *a = &o->addrs[n++];
        char ip[INET6_ADDRSTRLEN] = "?";

        memcpy(&a->sa, ai->ai_addr, ai->ai_addrlen);
        a->len = ai->ai_addrlen;
        if (ai->ai_family == AF_INET6) {
            inet_ntop(AF_INET6, &((struct sockaddr_in6 *)ai->ai_addr)->sin6_addr, ip, sizeof ip);
            snprintf(a->text, sizeof a->text, "[%s]:%s", ip, port);
        } else {
            inet_ntop(AF_INET, &((struct sockaddr_in *)ai->ai_addr)->sin_addr, ip, sizeof ip);
            snprintf(a->text, sizeof a->text, "%s:%s", ip, port);
        }
    }
    freeaddrinfo(res);
    o->naddrs = n;
    return 0;
}

static void nv(pc_field *v, const char *name, const char *value)
{
    *v = (pc_field){.name = name, .nlen = strlen(name), .value = value, .vlen = strlen(value)};
}

/* The headers every request carries: -H, then what the shaping flags add
 * (Host override, Content-Type, Cookie, Authorization, Connection: close),
 * unless a -H already set that header. */
static int build_headers(pc_engine *e)
{
    const pc_config *cfg = e->cfg;
    size_t cap = cfg->nheaders + 5, n = 0, clen = 0;
    bool have[5] = {false};
    static const char *const names[5] = {"Host", "Content-Type", "Cookie", "Authorization",
                                         "Connection"};

    e->hdrs = calloc(cap, sizeof *e->hdrs);
    if (!e->hdrs)
        return -ENOMEM;
    for (size_t i = 0; i < cfg->nheaders; i++) {
        e->hdrs[n++] = cfg->headers[i];
        for (int k = 0; k < 5; k++)
            have[k] = have[k] || strcasecmp(cfg->headers[i].name, names[k]) == 0;
    }
    if (cfg->host && !have[0])
        e->hdrs[n++] = (pc_header){.name = "Host", .value = (char *)cfg->host};
    if (cfg->content_type && !have[1])
        e->hdrs[n++] = (pc_header){.name = "Content-Type", .value = (char *)cfg->content_type};
    if (cfg->ncookies && !have[2]) {
        for (size_t i = 0; i < cfg->ncookies; i++)
            clen += strlen(cfg->cookies[i]) + 2;
        e->cookie = malloc(clen + 1);
        if (!e->cookie)
            return -ENOMEM;
        e->cookie[0] = '\0';
        for (size_t i = 0; i < cfg->ncookies; i++) {
            if (i)
                strcat(e->cookie, "; ");
            strcat(e->cookie, cfg->cookies[i]);
        }
        e->hdrs[n++] = (pc_header){.name = "Cookie", .value = e->cookie};
    }
    if (cfg->auth_b64 && !have[3]) {
        size_t len = strlen(cfg->auth_b64) + 8;

        e->auth = malloc(len);
        if (!e->auth)
            return -ENOMEM;
        snprintf(e->auth, len, "Basic %s", cfg->auth_b64);
        e->hdrs[n++] = (pc_header){.name = "Authorization", .value = e->auth};
    }
    if (cfg->no_keepalive && !have[4])
        e->hdrs[n++] = (pc_header){.name = "Connection", .value = "close"};
    e->nhdrs = n;
    return 0;
}

/* One template: HTTP/1.1 bytes, and the HTTP/2 header list (pseudo-headers
 * first, header names lower-cased, connection-specific headers dropped as
 * HTTP/2 forbids them, Host turned into :authority). */
static int build_tmpl(pc_engine *e, const pc_reqspec *r, pc_tmpl *t)
{
    const pc_config *cfg = e->cfg;
    const char *authority = r->origin->hostport;
    pc_field *v;
    char *h1;
    size_t n = 0;
    int rc;

    rc = h1req_build(r->method, r->path, r->origin->hostport, e->hdrs, e->nhdrs, r->body,
                     r->body_len, &h1, &t->req.h1_len);
    if (rc < 0)
        return rc;
    t->req.h1 = arena_dup(&e->h1mem, h1, t->req.h1_len);
    free(h1);
    if (!t->req.h1)
        return -ENOMEM;
    t->req.built = true;
    t->req.head = strcmp(r->method, "HEAD") == 0;
    t->req.body = r->body;
    t->req.body_len = r->body_len;
    /* Without HTTP/2 or /3 the header list is never used (NULL: a protocol
     * makes it from the h1 bytes): 300 bytes a URL not spent. */
    if (!e->want_fields)
        return 0;
    v = calloc(5 + e->nhdrs, sizeof *v);
    if (!v)
        return -ENOMEM;
    t->req.fields = v;
    for (size_t i = 0; i < e->nhdrs; i++)
        if (strcasecmp(e->hdrs[i].name, "Host") == 0)
            authority = e->hdrs[i].value;
    nv(&v[n++], ":method", r->method);
    nv(&v[n++], ":scheme", r->origin->tls ? "https" : "http");
    nv(&v[n++], ":authority", authority);
    nv(&v[n++], ":path", r->path);
    for (size_t i = 0; i < e->nhdrs; i++) {
        const char *low = e->lower[i], *val = e->hdrs[i].value;

        if (!h1req_field_dropped(low, strlen(low), val, strlen(val)))
            nv(&v[n++], low, val);
    }
    (void)cfg;
    t->req.nfields = n;
    return 0;
}

static int build_requests(pc_engine *e)
{
    const pc_config *cfg = e->cfg;
    double sum = 0;
    int rc;

    if ((rc = build_headers(e)) < 0)
        return rc;
    e->lower = calloc(e->nhdrs + 1, sizeof *e->lower);
    if (!e->lower)
        return -ENOMEM;
    for (size_t i = 0; i < e->nhdrs; i++) {
        e->lower[i] = strdup(e->hdrs[i].name);
        if (!e->lower[i])
            return -ENOMEM;
        for (char *q = e->lower[i]; *q; q++)
            *q = (char)tolower((unsigned char)*q);
    }
    e->tmpls = calloc(cfg->nreqs, sizeof *e->tmpls);
    if (!e->tmpls)
        return -ENOMEM;
    for (size_t i = 0; i < cfg->nreqs; i++) {
        if ((rc = build_tmpl(e, &cfg->reqs[i], &e->tmpls[i])) < 0)
            return rc;
        sum += cfg->reqs[i].weight;
        e->tmpls[i].cum_weight = sum;
        e->tmpls[i].origin = e->origin_of[i];
    }
    e->run.tmpls = e->tmpls;
    e->run.ntmpl = (uint32_t)cfg->nreqs;
    e->run.total_weight = sum;
    return 0;
}

/* The distinct origins of the requests, each resolved once; templates
 * learn which pool their requests go to. */
static int build_origins(pc_engine *e, char *err, size_t errlen)
{
    const pc_config *cfg = e->cfg;
    uint32_t n = 0;
    int rc;

    e->origins = calloc(256, sizeof *e->origins);
    e->origin_of = calloc(cfg->nreqs, sizeof *e->origin_of);
    if (!e->origins || !e->origin_of)
        return -ENOMEM;
    for (size_t i = 0; i < cfg->nreqs; i++) {
        const pc_url *u = cfg->reqs[i].origin;
        uint32_t j = i ? e->origin_of[i - 1] : 0; /* most often the line before's */

        if (j >= n || u != cfg->reqs[e->origin_first[j]].origin)
            for (j = 0; j < n; j++) {
                const pc_url *v = cfg->reqs[e->origin_first[j]].origin;

                if (u == v || (u->tls == v->tls && strcmp(u->host, v->host) == 0 &&
                               strcmp(u->port, v->port) == 0))
                    break;
            }
        if (j == n) {
            const char *name = cfg->host ? cfg->host : u->host;

            if (n == 256) {
                snprintf(err, errlen, "--urls: at most 256 origins");
                return -EINVAL;
            }
            e->origin_first[n] = (uint32_t)i;
            if ((rc = resolve(e, u, &e->origins[n], err, errlen)) < 0)
                return rc;
            e->origins[n].tls = u->tls;
            e->origins[n].tls_name = name;
            n++;
        }
        e->origin_of[i] = (uint16_t)j;
    }
    if (n > 1 && cfg->connect_to) {
        snprintf(err, errlen, "--connect-to needs the URLs of --urls to share one origin");
        return -EINVAL;
    }
    if (n > 1 && cfg->connections < cfg->threads * n) {
        snprintf(err, errlen,
                 "%u origins in --urls need -c of at least %u (threads x origins): each "
                 "origin has its own connections",
                 n, cfg->threads * n);
        return -EINVAL;
    }
    e->run.origins = e->origins;
    e->run.norigins = n;
    e->run.addrs = e->origins[0].addrs;
    e->run.naddrs = e->origins[0].naddrs;
    return 0;
}

int engine_prepare(const pc_config *cfg, pc_engine **out, char *err, size_t errlen)
{
    pc_engine *e = calloc(1, sizeof *e);
    int rc;

    *out = e;
    if (!e)
        return -ENOMEM;
    e->cfg = cfg;
    e->run.cfg = cfg;
    rc = engine_check_fds(cfg, err, errlen);
    if (rc < 0)
        return rc;
    if ((rc = build_origins(e, err, errlen)) < 0)
        return rc;
    if ((rc = engine_sources(cfg, &e->run.src_lo, &e->run.src_n, &e->run.src_auto, err, errlen)) < 0)
        return rc;

    /* The protocol asked for, a row of the table: ALPN may change it below. */
    e->run.proto = http_wanted(cfg->h2, cfg->h3);
    e->want_fields = e->run.proto->multiplexed || cfg->alpn;
    e->run.http.h1_depth = cfg->pipeline;
    {
        /* What response() is handed is buffered per response in flight:
         * 1 MiB each at most, and 256 MiB over all of them, so -c does not
         * multiply the memory a script can take (64 KiB at least). */
        uint64_t inflight = (uint64_t)cfg->connections * cfg->streams; /* -m is 1 unless multiplexed */
        uint64_t cap = (256ull << 20) / (inflight ? inflight : 1);

        e->run.http.resp_cap = cap > (1u << 20) ? (1u << 20) : cap < (64u << 10) ? (64u << 10) : cap;
    }
    if ((rc = build_requests(e)) < 0)
        return rc;
    bool any_tls = false;

    for (uint32_t i = 0; i < e->run.norigins; i++)
        any_tls = any_tls || e->origins[i].tls;
    if (e->run.proto->transport == HTTP_OVER_QUIC) {
        /* QUIC's TLS is GnuTLS, inside the protocol: no OpenSSL context. */
        e->quic_ctx = net_quic_ctx_new(cfg->verify, cfg->cacert, err, errlen);
        if (!e->quic_ctx)
            return -EPROTO;
        e->run.http.quic_ctx = e->quic_ctx;
    } else if (any_tls) {
        unsigned char alpn[256];
        const char *list = cfg->alpn ? cfg->alpn : e->run.proto->name;
        int alen = http_alpn_wire(list, alpn, sizeof alpn, &e->run.proto, &e->run.alpn_h1_ok);

        if (alen < 0) {
            snprintf(err, errlen, "invalid --alpn list '%s'", list);
            return -EINVAL;
        }
        e->ssl_ctx = net_tls_ctx_new(cfg->verify, cfg->cacert, alpn, (size_t)alen,
                                     !cfg->no_tls_resume, err, errlen);
        if (!e->ssl_ctx)
            return -EPROTO;
        e->run.ssl_ctx = e->ssl_ctx;
    }
    /* What its protocols are told. */
    e->run.http.streams = cfg->streams;
    e->run.http.window_bits = cfg->window_bits;
    e->run.http.conn_window_bits = cfg->conn_window_bits;
    e->run.http.h3_window = cfg->h3_window;
    e->run.http.h3_conn_window = cfg->h3_conn_window;
    e->run.http.connect_timeout_ns = cfg->connect_timeout_ns;
    e->run.http.tls_resume = !cfg->no_tls_resume;
    e->run.http.authority = cfg->url.hostport;
    return 0;
}

void engine_free(pc_engine *e)
{
    if (!e)
        return;
    for (size_t i = 0; e->origins && i < e->run.norigins; i++)
        free(e->origins[i].addrs);
    free(e->origins);
    free(e->origin_of);
    for (size_t i = 0; e->tmpls && i < e->cfg->nreqs; i++)
        free((void *)e->tmpls[i].req.fields);
    arena_free(&e->h1mem);
    free(e->tmpls);
    for (size_t i = 0; e->lower && i < e->nhdrs; i++)
        free(e->lower[i]);
    free(e->lower);
    free(e->hdrs);
    free(e->cookie);
    free(e->auth);
    if (e->ssl_ctx)
        net_tls_ctx_free(e->ssl_ctx);
    net_quic_ctx_free(e->quic_ctx);
    free(e);
}

/* Sinks may ask for two periods, the longer a multiple of the shorter:
 * the workers record intervals of the shorter one, and the collector adds
 * them up into the longer one (a live view's ticks, within the reporting
 * intervals of the files). */
int engine_add_interval_sink(pc_engine *e, uint64_t interval_ns, pc_interval_fn fn, void *ud)
{
    uint64_t lo = e->nsinks ? e->run.interval_ns : interval_ns;
    uint64_t hi = e->nsinks ? e->long_ns : interval_ns;

    if (!interval_ns || e->nsinks == ENGINE_MAX_SINKS)
        return -EINVAL;
    if (interval_ns < lo)
        lo = interval_ns;
    if (interval_ns > hi)
        hi = interval_ns;
    if (hi % lo || (interval_ns != lo && interval_ns != hi))
        return -EINVAL;
    e->run.interval_ns = lo;
    e->long_ns = hi;
    e->sinks[e->nsinks].fn = fn;
    e->sinks[e->nsinks].ud = ud;
    e->sinks[e->nsinks].period_ns = interval_ns;
    e->nsinks++;
    return 0;
}

/* A worker whose script has not returned (an endless loop in request(),
 * response(), delay()) by `limit` is given up: one second after the first
 * signal (the signal also tried to interrupt the script), or a second past
 * the run's end and drain without one. */
static void seize_stuck(pc_run *run, pc_worker **ws, uint32_t threads, uint64_t limit)
{
    uint64_t now = pc_now_ns();

    if (!ws || now < limit)
        return;
    for (uint32_t i = 0; i < threads; i++)
        if (ws[i] && !worker_done(ws[i]) && worker_seize(ws[i], now - 1000000000ull, now))
            fprintf(stderr, "pacer: thread %u: the script has not returned for a second "
                            "(an endless loop?): giving it up\n",
                    i);
    (void)run;
}

/* A first SIGINT/SIGTERM: the run stops sending now; in-flight requests
 * are given their --timeout (a second signal aborts). `when` says where the
 * run was ("" or " while connecting"). */
static void first_signal(pc_run *run, pc_results *res, int sig, const char *when)
{
    res->signal = sig;
    atomic_store(&run->stop_ns, pc_now_ns());
    fprintf(stderr, "pacer: %s%s: stopping%s\n", sig == SIGINT ? "interrupted" : "terminated",
            when, *when ? "" : " (again to abort)");
}

/* Wait for a signal or for the workers to finish, 20 ms at a time,
 * collecting intervals meanwhile. */
static void supervise(pc_run *run, uint32_t threads, pc_results *res, collector *co,
                      pc_worker **ws)
{
    sigset_t set;
    struct timespec slice = {.tv_sec = 0, .tv_nsec = 20000000};
    const pc_config *cfg = run->cfg;
    uint64_t limit = run->start_ns + cfg->warmup_ns + cfg->duration_ns + cfg->timeout_ns +
                     2000000000ull;

    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    while (atomic_load(&run->finished) < threads) {
        int sig = sigtimedwait(&set, NULL, &slice);

        if (run->interval_ns)
            collect(co, false);
        seize_stuck(run, ws, threads, limit);
        if (sig != SIGINT && sig != SIGTERM)
            continue;
        if (!res->signal) {
            /* A script that is running is interrupted too. */
            first_signal(run, res, sig, "");
            for (uint32_t i = 0; ws && i < threads; i++)
                if (ws[i])
                    worker_interrupt(ws[i]);
            if (pc_now_ns() + 1000000000ull < limit)
                limit = pc_now_ns() + 1000000000ull;
        } else {
            atomic_store(&run->abort_now, 1);
            limit = 0;
        }
    }
}

/* The first connection error's cause, over the workers (NULL: none). */
static const char *connect_why(pc_worker **ws, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (ws[i] && worker_stats(ws[i])->why[PC_ERR_CONNECT][0])
            return worker_stats(ws[i])->why[PC_ERR_CONNECT];
    return NULL;
}

/* Everyone is connected: when does the schedule start? Now, at --start-at,
 * or when the start hook (several processes agreeing) says. A start in the
 * future is waited for here, 20 ms at a time so that a signal still stops
 * the run; *start and *wall are then that instant (monotonic, wall clock),
 * so the schedule's zero is exactly it. One already past stays the zero:
 * the requests due since then are late, and their latency says so. */
static int agree_start(pc_engine *e, pc_worker **ws, pc_results *res, const sigset_t *block, uint64_t *start,
                       uint64_t *wall, char *err, size_t errlen)
{
    const pc_config *cfg = e->cfg;
    uint64_t at = cfg->shard.start_at_ns;
    int rc, slack;

    if (e->start_fn &&
        (rc = e->start_fn(e->start_ud, e->run.opened, cfg->connections,
                          connect_why(ws, cfg->threads), &at, err, errlen)) < 0)
        return rc;
    if (!at)
        return 0;
    /* The instant on this host's monotonic clock. */
    *start = at >= *wall ? *start + (at - *wall) : *start - (*wall - at);
    *wall = at;
    /* The last 2 ms are one absolute sleep, without the default 50 us of
     * timer slack: the ranks of a run wake together. */
    slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    for (;;) {
        uint64_t now = pc_now_ns(), left = *start > now ? *start - now : 0;
        struct timespec slice = {0, (long)(left < 20000000 ? left - left / 2 : 20000000)};
        int sig;

        if (left && left <= 2000000) {
            struct timespec until = {(time_t)(*start / 1000000000u),
                                     (long)(*start % 1000000000u)};

            while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) == EINTR)
                ;
            continue;
        }
        if (!left) {
            res->start_late_ns = now - *start;
            if (slack > 0)
                prctl(PR_SET_TIMERSLACK, (unsigned long)slack, 0, 0, 0);
            return 0;
        }
        sig = sigtimedwait(block, NULL, &slice);
        if (sig == SIGINT || sig == SIGTERM) {
            first_signal(&e->run, res, sig, " while waiting for --start-at");
            *start = pc_now_ns();
            if (slack > 0)
                prctl(PR_SET_TIMERSLACK, (unsigned long)slack, 0, 0, 0);
            return 0;
        }
    }
}

int engine_run(pc_engine *e, pc_results *res, char *err, size_t errlen)
{
    const pc_config *cfg = e->cfg;
    const pc_reqsource *src = e->source;
    pc_run *run = &e->run;
    pc_worker **ws = calloc(cfg->threads, sizeof *ws);
    pthread_t *tids = calloc(cfg->threads, sizeof *tids);
    sigset_t block, old;
    uint32_t started = 0;
    uint64_t stopped = 0, start, start_wall;
    bool script_stop = false;
    collector co = {.sinks = e->sinks, .nsinks = e->nsinks, .short_ns = run->interval_ns,
                    .long_ns = e->long_ns, .ws = ws, .nworkers = cfg->threads, .res = res,
                    .k = run->interval_ns ? (uint32_t)(e->long_ns / run->interval_ns) : 1};
    struct timespec wall;
    int rc = 0;

    memset(res, 0, sizeof *res);
    if (!ws || !tids || stats_init(&res->st) < 0) {
        rc = -ENOMEM;
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    pthread_mutex_init(&run->lock, NULL);
    pthread_cond_init(&run->cond, NULL);

    /* Workers inherit a mask without SIGINT/SIGTERM: only this thread
     * takes them, through sigtimedwait. */
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    /* A script's init() and first request() run here: a script that never
     * returns must still be stopped by SIGINT/SIGTERM. */
    if (src && src->guard_begin)
        src->guard_begin();

    for (uint32_t i = 0; i < cfg->threads; i++) {
        /* Connections are split so they add up exactly (wrk drops the
         * remainder of c / t). */
        uint32_t n = cfg->connections / cfg->threads + (i < cfg->connections % cfg->threads);
        pc_reqsrc ts;

        if (src) {
            if ((rc = src->thread(src->self, i, &ts, err, errlen)) < 0)
                break;
            /* A request() that returns several requests pipelines them
             * (as wrk does): connections need room for the batch. */
            if (ts.batch > run->http.h1_depth)
                run->http.h1_depth = ts.batch;
        }
        ws[i] = worker_new(run, i, n);
        if (!ws[i]) {
            rc = -ENOMEM;
            snprintf(err, errlen, "out of memory for %u connections", cfg->connections);
            break;
        }
        if (src && worker_set_source(ws[i], &ts) < 0) {
            snprintf(err, errlen, "script: invalid thread.addr '%s'", ts.addr);
            rc = -EINVAL;
            break;
        }
    }
    if (src && src->guard_end) {
        int sig = src->guard_end();

        if (sig && rc == 0) {
            rc = -EINTR;
            snprintf(err, errlen, "%s before the run started (in the script's init() or "
                                  "request())",
                     sig == SIGINT ? "interrupted" : "terminated");
        }
        if (sig)
            res->signal = sig;
    }
    res->connect_mono_ns = pc_now_ns();
    for (uint32_t i = 0; rc == 0 && i < cfg->threads; i++) {
        if (pthread_create(&tids[i], NULL, worker_main, ws[i]) != 0) {
            rc = -EAGAIN;
            snprintf(err, errlen, "cannot start thread %u", i);
            break;
        }
        started++;
    }

    /* Everyone connected (or failed): start the clock for all at once. */
    pthread_mutex_lock(&run->lock);
    while (rc == 0 && run->ready < started) {
        /* A signal while connections open (up to --connect-timeout) stops
         * the run at once instead of after the connects. */
        struct timespec slice, zero = {0, 0};
        int sig;

        clock_gettime(CLOCK_REALTIME, &slice);
        slice.tv_nsec += 20000000;
        if (slice.tv_nsec >= 1000000000) {
            slice.tv_sec++;
            slice.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&run->cond, &run->lock, &slice);
        /* Drawn without the lock: a slow terminal must not hold up a
         * worker that is ready. */
        pthread_mutex_unlock(&run->lock);
        connect_progress(e, ws, started, res->connect_mono_ns, false);
        pthread_mutex_lock(&run->lock);
        if (!res->signal && ((sig = sigtimedwait(&block, NULL, &zero)) == SIGINT || sig == SIGTERM))
            first_signal(run, res, sig, " while connecting");
    }
    pthread_mutex_unlock(&run->lock);
    start = pc_now_ns();
    res->connect_phase_ns = start - res->connect_mono_ns;
    if (rc == 0)
        connect_progress(e, ws, started, res->connect_mono_ns, true);
    clock_gettime(CLOCK_REALTIME, &wall);
    start_wall = (uint64_t)wall.tv_sec * 1000000000u + (uint64_t)wall.tv_nsec;
    if (rc == 0 && !res->signal)
        rc = agree_start(e, ws, res, &block, &start, &start_wall, err, errlen);
    if (rc < 0) {
        /* Abandoned before the start (the hook said so): nothing is sent. */
        atomic_store(&run->stop_ns, start);
        atomic_store(&run->abort_now, 1);
    }
    pthread_mutex_lock(&run->lock);
    res->start_mono_ns = start + cfg->warmup_ns;
    res->start_wall_ns = start_wall + cfg->warmup_ns;
    run->start_ns = start;
    pthread_cond_broadcast(&run->cond);
    pthread_mutex_unlock(&run->lock);
    if (rc < 0)
        atomic_store(&run->abort_now, 1);

    supervise(run, started, res, &co, rc == 0 ? ws : NULL);
    for (uint32_t i = 0; i < started; i++)
        if (!worker_seized(ws[i]))
            pthread_join(tids[i], NULL);
    if (run->interval_ns && rc == 0)
        collect(&co, true);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc < 0)
        goto out;

    for (uint32_t i = 0; i < cfg->threads; i++) {
        const char *werr = worker_error(ws[i]);

        stats_merge(&res->st, worker_stats(ws[i]));
        collect_never_sent_due(res, ws[i], co.k);
        res->warmup_outcomes += worker_warmup_outcomes(ws[i]);
        res->goaway_retired += worker_retired(ws[i]);
        if (worker_stopped_ns(ws[i]) > stopped)
            stopped = worker_stopped_ns(ws[i]);
        /* Closed loop: the responses that came after the stop are counted,
         * so the period they are divided by runs until the last of them. */
        if (!(cfg->rate > 0) && worker_last_done_ns(ws[i]) > stopped)
            stopped = worker_last_done_ns(ws[i]);
        script_stop |= worker_script_stopped(ws[i]);
        if (werr && !err[0])
            snprintf(err, errlen, "%s", werr);
    }
    res->warmup_ns = cfg->warmup_ns;
    stopped = stopped > start + cfg->warmup_ns ? stopped : start + cfg->warmup_ns;
    res->duration_ns = stopped - start - cfg->warmup_ns;
    if (res->signal)
        res->stopped_by = pc_signal_name(res->signal);
    else if (script_stop)
        res->stopped_by = "script";
    else if (cfg->requests && stats_outcomes(&res->st) >= cfg->requests)
        res->stopped_by = "requests";
    else if (cfg->requests && res->goaway_retired == cfg->connections)
        res->stopped_by = "goaway"; /* h2load: every client done at its GOAWAY */
    else
        res->stopped_by = "duration";
    if (stats_outcomes(&res->st) != res->st.scheduled)
        fprintf(stderr, "pacer: internal error: %llu requests scheduled but %llu outcomes\n",
                (unsigned long long)res->st.scheduled,
                (unsigned long long)stats_outcomes(&res->st));
out:
    collect_free(&co);
    for (uint32_t i = 0; i < cfg->threads && ws; i++)
        worker_free(ws[i]);
    free(ws);
    free(tids);
    if (rc < 0)
        results_free(res);
    return rc;
}
