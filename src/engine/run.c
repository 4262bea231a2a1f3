/*
 * run.c - plan the run, start the workers, wait (handling SIGINT and
 * SIGTERM), merge what they measured.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netdb.h>
#include <nghttp2/nghttp2.h>
#include <strings.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/un.h>
#include <time.h>

#include "engine/engine.h"
#include "engine/worker.h"
#include "proto/h1req.h"
#include "util/clock.h"

struct pc_engine {
    const pc_config *cfg;
    pc_run run;
    pc_addr *addrs;
    char *request;
    SSL_CTX *ssl_ctx;
    nghttp2_nv *nva;   /* HTTP/2 request header list */
    size_t nvlen;
    char **nv_names;   /* lower-cased copies of the user's header names */
    pc_interval_fn on_interval;
    void *on_interval_ud;
};

/* Merges the workers' intervals by index and emits them in order. */
typedef struct collector {
    pc_engine *e;
    pc_worker **ws;
    uint32_t nworkers;
    uint32_t next;      /* index of the next interval to emit */
    pc_interval **pend; /* pend[i]: merged interval next + i, or NULL */
    uint32_t npend;
    pc_results *res;
} collector;

static int resolve(pc_engine *e, char *err, size_t errlen)
{
    const pc_config *cfg = e->cfg;
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res, *ai;
    uint32_t n = 0;
    int rc;

    if (cfg->unix_path) {
        struct sockaddr_un *un;

        e->addrs = calloc(1, sizeof *e->addrs);
        if (!e->addrs)
            return -ENOMEM;
        un = (struct sockaddr_un *)&e->addrs[0].sa;
        un->sun_family = AF_UNIX;
        strncpy(un->sun_path, cfg->unix_path, sizeof un->sun_path - 1);
        e->addrs[0].len = sizeof *un;
        snprintf(e->addrs[0].text, sizeof e->addrs[0].text, "unix:%.70s", cfg->unix_path);
        e->run.naddrs = 1;
        return 0;
    }
    rc = getaddrinfo(cfg->url.host, cfg->url.port, &hints, &res);
    if (rc != 0) {
        snprintf(err, errlen, "cannot resolve '%s': %s", cfg->url.host, gai_strerror(rc));
        return -EHOSTUNREACH;
    }
    for (ai = res; ai; ai = ai->ai_next)
        n++;
    e->addrs = calloc(n, sizeof *e->addrs);
    if (!e->addrs) {
        freeaddrinfo(res);
        return -ENOMEM;
    }
    n = 0;
    for (ai = res; ai; ai = ai->ai_next) {
        pc_addr *a = &e->addrs[n++];
        char host[INET6_ADDRSTRLEN] = "?";

        memcpy(&a->sa, ai->ai_addr, ai->ai_addrlen);
        a->len = ai->ai_addrlen;
        if (ai->ai_family == AF_INET6) {
            inet_ntop(AF_INET6, &((struct sockaddr_in6 *)ai->ai_addr)->sin6_addr, host, sizeof host);
            snprintf(a->text, sizeof a->text, "[%s]:%s", host, cfg->url.port);
        } else {
            inet_ntop(AF_INET, &((struct sockaddr_in *)ai->ai_addr)->sin_addr, host, sizeof host);
            snprintf(a->text, sizeof a->text, "%s:%s", host, cfg->url.port);
        }
    }
    freeaddrinfo(res);
    e->run.naddrs = n;
    return 0;
}

/* -c 10000 needs 10000 sockets: find out now, not as connect errors. */
static int check_fds(const pc_config *cfg, char *err, size_t errlen)
{
    struct rlimit rl;
    rlim_t need = (rlim_t)cfg->connections + 4 * cfg->threads + 32;

    if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
        return 0;
    if (rl.rlim_cur >= need)
        return 0;
    if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= need) {
        rl.rlim_cur = need;
        if (setrlimit(RLIMIT_NOFILE, &rl) == 0)
            return 0;
    }
    snprintf(err, errlen,
             "-c %u needs about %llu file descriptors but the limit is %llu "
             "(raise it with 'ulimit -n %llu')",
             cfg->connections, (unsigned long long)need, (unsigned long long)rl.rlim_max,
             (unsigned long long)need);
    return -EMFILE;
}

/* ALPN wire format from "h2,http/1.1". Returns the length, or -EINVAL. */
static int alpn_wire(const char *list, unsigned char *out, size_t cap, bool *has_h2, bool *has_h1)
{
    size_t n = 0;
    const char *p = list;

    *has_h2 = *has_h1 = false;
    while (*p) {
        size_t len = strcspn(p, ",");

        if (len == 0 || len > 255 || n + 1 + len > cap)
            return -EINVAL;
        out[n++] = (unsigned char)len;
        memcpy(out + n, p, len);
        n += len;
        if (len == 2 && memcmp(p, "h2", 2) == 0)
            *has_h2 = true;
        if (len == 8 && memcmp(p, "http/1.1", 8) == 0)
            *has_h1 = true;
        p += len;
        if (*p == ',')
            p++;
    }
    return n ? (int)n : -EINVAL;
}

static void nv(nghttp2_nv *v, const char *name, const char *value)
{
    v->name = (uint8_t *)name;
    v->namelen = strlen(name);
    v->value = (uint8_t *)value;
    v->valuelen = strlen(value);
    v->flags = NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE;
}

/* The HTTP/2 header list, built once: pseudo-headers first, the user's
 * headers lower-cased, minus those HTTP/2 forbids (connection-specific)
 * and Host, which becomes :authority. */
static int build_h2_request(pc_engine *e)
{
    const pc_config *cfg = e->cfg;
    const char *authority = cfg->url.hostport;
    size_t n = 0;

    e->nva = calloc(4 + cfg->nheaders, sizeof *e->nva);
    e->nv_names = calloc(cfg->nheaders + 1, sizeof *e->nv_names);
    if (!e->nva || !e->nv_names)
        return -ENOMEM;
    for (size_t i = 0; i < cfg->nheaders; i++)
        if (strcasecmp(cfg->headers[i].name, "Host") == 0)
            authority = cfg->headers[i].value;
    nv(&e->nva[n++], ":method", "GET");
    nv(&e->nva[n++], ":scheme", cfg->url.tls ? "https" : "http");
    nv(&e->nva[n++], ":authority", authority);
    nv(&e->nva[n++], ":path", cfg->url.path);
    for (size_t i = 0; i < cfg->nheaders; i++) {
        static const char *const banned[] = {"host", "connection", "keep-alive",
                                             "proxy-connection", "transfer-encoding", "upgrade"};
        char *low = strdup(cfg->headers[i].name);
        bool skip = false;

        if (!low)
            return -ENOMEM;
        for (char *q = low; *q; q++)
            *q = (char)tolower((unsigned char)*q);
        e->nv_names[i] = low;
        for (size_t b = 0; b < sizeof banned / sizeof banned[0]; b++)
            skip = skip || strcmp(low, banned[b]) == 0;
        if (strcmp(low, "te") == 0 && strcasecmp(cfg->headers[i].value, "trailers") != 0)
            skip = true;
        if (!skip)
            nv(&e->nva[n++], low, cfg->headers[i].value);
    }
    e->nvlen = n;
    e->run.h2_nva = e->nva;
    e->run.h2_nvlen = n;
    return 0;
}

static bool is_ip_literal(const char *host)
{
    unsigned char buf[sizeof(struct in6_addr)];

    return inet_pton(AF_INET, host, buf) == 1 || inet_pton(AF_INET6, host, buf) == 1;
}

int engine_prepare(const pc_config *cfg, pc_engine **out, char *err, size_t errlen)
{
    pc_engine *e = calloc(1, sizeof *e);
    char *one = NULL;
    size_t len;
    int rc;

    *out = e;
    if (!e)
        return -ENOMEM;
    e->cfg = cfg;
    e->run.cfg = cfg;
    rc = check_fds(cfg, err, errlen);
    if (rc < 0)
        return rc;
    rc = resolve(e, err, errlen);
    if (rc < 0)
        return rc;
    e->run.addrs = e->addrs;

    rc = h1req_build("GET", &cfg->url, cfg->headers, cfg->nheaders, NULL, 0, &one, &len);
    if (rc < 0)
        return rc;
    /* Pipelined requests go out straight from one buffer holding
     * `pipeline` copies: nothing is copied per request. */
    e->request = malloc(len * cfg->pipeline);
    if (!e->request) {
        free(one);
        return -ENOMEM;
    }
    for (uint32_t i = 0; i < cfg->pipeline; i++)
        memcpy(e->request + (size_t)i * len, one, len);
    free(one);
    e->run.request = e->request;
    e->run.request_len = len;
    e->run.head = false;

    e->run.h2 = cfg->h2;
    if (build_h2_request(e) < 0)
        return -ENOMEM;
    if (cfg->url.tls) {
        unsigned char alpn[256];
        const char *list = cfg->alpn ? cfg->alpn : cfg->h2 ? "h2" : "http/1.1";
        bool has_h2, has_h1;
        int alen = alpn_wire(list, alpn, sizeof alpn, &has_h2, &has_h1);

        if (alen < 0) {
            snprintf(err, errlen, "invalid --alpn list '%s'", list);
            return -EINVAL;
        }
        e->run.h2 = has_h2;
        e->run.alpn_h1_ok = has_h1;
        e->ssl_ctx = net_tls_ctx_new(cfg->verify, cfg->cacert, alpn, (size_t)alen, err, errlen);
        if (!e->ssl_ctx)
            return -EPROTO;
        e->run.ssl_ctx = e->ssl_ctx;
        e->run.sni = is_ip_literal(cfg->url.host) ? NULL : cfg->url.host;
    }
    return 0;
}

void engine_free(pc_engine *e)
{
    if (!e)
        return;
    free(e->addrs);
    free(e->request);
    free(e->nva);
    for (size_t i = 0; e->nv_names && i < e->cfg->nheaders; i++)
        free(e->nv_names[i]);
    free(e->nv_names);
    if (e->ssl_ctx)
        net_tls_ctx_free(e->ssl_ctx);
    free(e);
}

void engine_set_interval_sink(pc_engine *e, uint64_t interval_ns, pc_interval_fn fn, void *ud)
{
    e->run.interval_ns = interval_ns;
    e->on_interval = fn;
    e->on_interval_ud = ud;
}

static void emit_front(collector *co)
{
    pc_interval *iv = co->pend[0];

    if (iv) {
        if (co->e->on_interval)
            co->e->on_interval(co->e->on_interval_ud, iv);
        co->res->intervals++;
        interval_free(iv);
    }
    memmove(co->pend, co->pend + 1, (co->npend - 1) * sizeof *co->pend);
    co->pend[co->npend - 1] = NULL;
    co->next++;
}

/* Take what the workers finished, merge by index, emit what is complete
 * (every worker contributed), or everything when the run is over. */
static void collect(collector *co, bool final)
{
    for (uint32_t i = 0; i < co->nworkers; i++) {
        pc_interval *list = worker_take_intervals(co->ws[i]);

        for (pc_interval *iv = list; iv; iv = iv->next) {
            uint32_t slot = iv->index - co->next;

            if (iv->index < co->next)
                continue; /* cannot happen: emitted only when complete */
            if (slot >= co->npend) {
                uint32_t n = slot + 8;
                pc_interval **p = realloc(co->pend, n * sizeof *p);

                if (!p)
                    continue;
                memset(p + co->npend, 0, (n - co->npend) * sizeof *p);
                co->pend = p;
                co->npend = n;
            }
            if (!co->pend[slot])
                co->pend[slot] = interval_new();
            if (co->pend[slot])
                interval_merge(co->pend[slot], iv);
        }
        worker_return_intervals(co->ws[i], list);
    }
    while (co->npend && co->pend[0] && co->pend[0]->parts >= co->nworkers)
        emit_front(co);
    if (final) {
        uint32_t last = co->npend;

        while (last && !co->pend[last - 1])
            last--;
        for (uint32_t i = 0; i < last; i++)
            emit_front(co);
    }
}

void engine_results_free(pc_results *res)
{
    stats_free(&res->st);
}

/* Wait for a signal or for the workers to finish, 20 ms at a time,
 * collecting intervals meanwhile. */
static void supervise(pc_run *run, uint32_t threads, pc_results *res, collector *co)
{
    sigset_t set;
    struct timespec slice = {.tv_sec = 0, .tv_nsec = 20000000};

    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    while (atomic_load(&run->finished) < threads) {
        int sig = sigtimedwait(&set, NULL, &slice);

        if (run->interval_ns)
            collect(co, false);
        if (sig != SIGINT && sig != SIGTERM)
            continue;
        if (!res->signal) {
            /* First signal: stop sending, let in-flight requests finish. */
            res->signal = sig;
            atomic_store(&run->stop_ns, pc_now_ns());
            fprintf(stderr, "pacer: %s: stopping (again to abort)\n",
                    sig == SIGINT ? "interrupted" : "terminated");
        } else {
            atomic_store(&run->abort_now, 1);
        }
    }
}

int engine_run(pc_engine *e, pc_results *res, char *err, size_t errlen)
{
    const pc_config *cfg = e->cfg;
    pc_run *run = &e->run;
    pc_worker **ws = calloc(cfg->threads, sizeof *ws);
    pthread_t *tids = calloc(cfg->threads, sizeof *tids);
    sigset_t block, old;
    uint32_t started = 0;
    uint64_t stopped = 0, start;
    collector co = {.e = e, .ws = ws, .nworkers = cfg->threads, .res = res};
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

    for (uint32_t i = 0; i < cfg->threads; i++) {
        /* Connections are split so they add up exactly (wrk drops the
         * remainder of c / t). */
        uint32_t n = cfg->connections / cfg->threads + (i < cfg->connections % cfg->threads);

        ws[i] = worker_new(run, i, n);
        if (!ws[i]) {
            rc = -ENOMEM;
            snprintf(err, errlen, "out of memory for %u connections", cfg->connections);
            break;
        }
    }
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
    while (rc == 0 && run->ready < started)
        pthread_cond_wait(&run->cond, &run->lock);
    start = pc_now_ns();
    clock_gettime(CLOCK_REALTIME, &wall);
    res->start_mono_ns = start + cfg->warmup_ns;
    res->start_wall_ns = (uint64_t)wall.tv_sec * 1000000000u + (uint64_t)wall.tv_nsec +
                         cfg->warmup_ns;
    run->start_ns = start;
    pthread_cond_broadcast(&run->cond);
    pthread_mutex_unlock(&run->lock);
    if (rc < 0)
        atomic_store(&run->abort_now, 1);

    supervise(run, started, res, &co);
    for (uint32_t i = 0; i < started; i++)
        pthread_join(tids[i], NULL);
    if (run->interval_ns && rc == 0)
        collect(&co, true);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc < 0)
        goto out;

    for (uint32_t i = 0; i < cfg->threads; i++) {
        const char *werr = worker_error(ws[i]);

        stats_merge(&res->st, worker_stats(ws[i]));
        res->warmup_outcomes += worker_warmup_outcomes(ws[i]);
        if (worker_stopped_ns(ws[i]) > stopped)
            stopped = worker_stopped_ns(ws[i]);
        if (werr && !err[0])
            snprintf(err, errlen, "%s", werr);
    }
    res->warmup_ns = cfg->warmup_ns;
    stopped = stopped > start + cfg->warmup_ns ? stopped : start + cfg->warmup_ns;
    res->duration_ns = stopped - start - cfg->warmup_ns;
    if (stats_outcomes(&res->st) != res->st.scheduled)
        fprintf(stderr, "pacer: internal error: %llu requests scheduled but %llu outcomes\n",
                (unsigned long long)res->st.scheduled,
                (unsigned long long)stats_outcomes(&res->st));
out:
    for (uint32_t i = 0; i < co.npend; i++)
        interval_free(co.pend[i]);
    free(co.pend);
    for (uint32_t i = 0; i < cfg->threads && ws; i++)
        worker_free(ws[i]);
    free(ws);
    free(tids);
    if (rc < 0)
        stats_free(&res->st);
    return rc;
}
