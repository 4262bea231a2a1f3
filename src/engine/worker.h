/*
 * worker.h - one load-generating thread (internal to the engine).
 *
 * A worker owns an epoll instance, its connections, its share of the
 * schedule and its statistics. Nothing is shared with other workers while
 * running; the run struct it reads is written before the workers start,
 * except for the atomics it polls once per loop iteration.
 */
#ifndef PACER_ENGINE_WORKER_H
#define PACER_ENGINE_WORKER_H

#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "config.h"
#include "http/http.h"
#include "net/net.h"
#include "proto/reqsrc.h"
#include "stats/interval.h"
#include "stats/stats.h"

typedef struct pc_addr {
    struct sockaddr_storage sa;
    socklen_t len;
    char text[80]; /* for messages: "127.0.0.1:8080", "[::1]:80", "unix:/p" */
} pc_addr;

/* Where one origin (scheme, host, port) of the run's requests is. */
typedef struct pc_origin {
    pc_addr *addrs;
    uint32_t naddrs;
    const char *tls_name; /* name or IP literal the certificate must be for */
    bool tls;
} pc_origin;

/* One distinct request, built once: the HTTP/1.1 bytes and the HTTP/2
 * header list and body, as the template request source hands them out. */
typedef struct pc_tmpl {
    pc_request req;     /* h1 and fields allocated by the engine */
    double cum_weight;  /* running sum of weights (--mix random) */
    uint16_t origin;    /* index into pc_run.origins */
} pc_tmpl;

/* What all workers read: set up by the engine before they start. */
typedef struct pc_run {
    const pc_config *cfg;
    pc_addr *addrs;      /* origin 0's addresses (the whole run's when it has one) */
    uint32_t naddrs;
    pc_origin *origins;  /* --urls with several origins: a connection pool each */
    uint32_t norigins;
    pc_tmpl *tmpls;      /* the distinct requests */
    uint32_t ntmpl;
    double total_weight;
    const proto_ops *proto; /* the protocol asked for (http_wanted: --h3, --h2, ALPN's h2) */
    bool alpn_h1_ok;     /* http/1.1 is acceptable when the server refuses it over TLS */
    http_settings http;  /* what its protocols are told (h1_depth, resp_cap, QUIC's TLS, ...) */
    uint64_t interval_ns; /* reporting interval; 0 = none */
    SSL_CTX *ssl_ctx;    /* NULL for plain http */
    uint32_t src_lo, src_n; /* source addresses, round robin (engine_sources): host order */
    bool src_auto;       /* ... chosen by pacer, for 127.x.y.z targets only */

    /* Start barrier: workers count themselves ready once every connection
     * is open (or has failed), then wait for start_ns to be published. */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    uint32_t ready;
    uint32_t opened;   /* connections open when their workers were ready */
    uint64_t start_ns; /* 0 until published */

    _Atomic uint64_t stop_ns;  /* stop dispatching at this time (SIGINT) */
    _Atomic int abort_now;     /* second signal: drop everything in flight */
    _Atomic uint32_t finished; /* workers done */
} pc_run;

typedef struct pc_worker pc_worker;

/* Create worker `index` owning `nconns` connections; `rate` is the total
 * -R (0 = closed loop). Returns NULL on out-of-memory. */
pc_worker *worker_new(pc_run *run, uint32_t index, uint32_t nconns);
void worker_free(pc_worker *w);
/* Thread entry point (arg is the pc_worker). */
void *worker_main(void *arg);
/* After the thread has been joined. */
const pc_stats *worker_stats(const pc_worker *w);
/* While it connects, from another thread: connections opened and settled
 * (opened or failed) so far, of its own. */
void worker_connecting(pc_worker *w, uint32_t *opened, uint32_t *settled);
uint64_t worker_warmup_outcomes(const pc_worker *w);
/* Connections the server ended with GOAWAY and the worker did not reopen. */
uint32_t worker_retired(const pc_worker *w);
/* Never-sent requests by the index of the interval they were due in
 * (*n entries; NULL when none, or without intervals). */
const uint64_t *worker_never_sent_due(const pc_worker *w, uint32_t *n);
/* Last time the worker dispatched from its schedule (end of the measured period). */
uint64_t worker_stopped_ns(const pc_worker *w);
/* Time of the worker's last measured response (0: none). */
uint64_t worker_last_done_ns(const pc_worker *w);
/* A worker stuck in one call into Lua since before stuck_since: end its
 * run from the calling (main) thread, its requests in flight counted as
 * interrupted (true); its thread is then neither joined nor freed. */
bool worker_seize(pc_worker *w, uint64_t stuck_since, uint64_t now);
bool worker_seized(const pc_worker *w);
/* Make a call the worker's request source is in return (a signal). */
void worker_interrupt(pc_worker *w);
bool worker_done(const pc_worker *w);
/* Whether thread:stop() or a script error ended the worker's run. */
bool worker_script_stopped(const pc_worker *w);
/* The intervals the worker has finished since the last call, oldest
 * first (any thread; takes the worker's mailbox lock briefly). */
pc_interval *worker_take_intervals(pc_worker *w);
/* Hand intervals back for reuse (they are reset here). */
void worker_return_intervals(pc_worker *w, pc_interval *list);
/* Take the requests from src instead of the run's templates (before the
 * worker starts), and connect where it says (src->addr). 0, or -EINVAL
 * for an address that is not "ip:port". */
int worker_set_source(pc_worker *w, const pc_reqsrc *src);
/* Set when the worker could not start (out of fds, epoll failure); a reason is in err. */
const char *worker_error(const pc_worker *w);

#endif
