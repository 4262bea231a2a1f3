/*
 * stats.h - what one worker measured, and the merged result of a run.
 *
 * Every request the run created ends in exactly one outcome: completed
 * (a response, counted by status), an error by kind, a timeout, never sent
 * (still queued when the run stopped) or interrupted (in flight when a
 * second SIGINT cut the drain short). stats_outcomes() adds them up, and
 * the run checks that the sum equals `scheduled`.
 */
#ifndef PACER_STATS_STATS_H
#define PACER_STATS_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "stats/hdr.h"

/* Latencies are recorded in nanoseconds, 1 ns to 24 h, 3 significant digits. */
#define STATS_LAT_HIGHEST 86400000000000LL

enum pc_err_kind {
    PC_ERR_CONNECT,  /* could not connect / TLS handshake failed (per attempt) */
    PC_ERR_READ,     /* reset or closed by the server before the response ended */
    PC_ERR_WRITE,    /* could not send the request */
    PC_ERR_TIMEOUT,  /* no complete response within --timeout */
    PC_ERR_PROTOCOL, /* the response was not valid HTTP */
    PC_ERR_KINDS
};

#define STATS_MAX_STATUS 1000 /* every three-digit code, valid or not (RFC 9110 15) */

/* One request's timings (ab's -g file), nanoseconds. */
typedef struct pc_reqrec {
    uint64_t start; /* monotonic: when its connection (if it opened one) or its write began */
    uint64_t ctime, dtime, wait;
} pc_reqrec;

/* Per distinct request (--urls): counts and corrected latency. */
typedef struct pc_url_stats {
    uint64_t completed, errors;
    hdr_hist latency;
} pc_url_stats;
#define STATS_WHY_LEN 160
/* Per-URL latency costs one histogram per URL per thread (2 significant
 * digits from 1 us: about 30 KiB); above this many URLs only their counts
 * are kept, so memory stays bounded whatever the size of --urls. */
#define STATS_URL_LATENCY_MAX 1000

typedef struct pc_stats {
    hdr_hist latency;   /* corrected: done - intended send time */
    hdr_hist latency_u; /* uncorrected: done - first byte written */
    hdr_hist connect;   /* TCP (or Unix) connect */
    hdr_hist tls;       /* TLS handshake */
    hdr_hist ttfb;      /* first byte written -> first byte of the response */
    hdr_hist rps;       /* per-thread requests/s, one sample per 100 ms */
    hdr_hist batch;     /* -B: one corrected sample per pipelined batch */
    hdr_hist conn_rps;  /* per connection: responses / measured period (h2load's req/s row) */
    hdr_hist conn_req;  /* per request: connect (+TLS) time if it opened its connection, else 0 */
    hdr_hist processing; /* per request: first byte of the response -> last byte */
    hdr_hist total_req; /* per request: its connect time + first byte written -> last byte (ab's Total) */
    pc_url_stats *urls; /* per distinct request, when there are several */
    uint32_t nurls;
    bool url_latency;   /* urls[].latency kept (at most STATS_URL_LATENCY_MAX URLs) */
    pc_reqrec *recs;    /* per completed request (-g), preallocated */
    size_t nrecs, caprecs;

    uint64_t scheduled;   /* requests created in the measured period */
    uint64_t completed;   /* responses received (any status) */
    uint64_t never_sent;  /* still waiting for a connection when the run stopped */
    uint64_t interrupted; /* in flight when the drain was cut short */
    uint64_t err[PC_ERR_KINDS];   /* request outcomes by error kind (PC_ERR_CONNECT unused) */
    uint64_t connect_errors;      /* failed connect or handshake attempts */
    uint64_t connect_retrans;     /* TCP connects that needed a SYN retransmit (TCP_INFO) */
    uint64_t connect_timeouts;    /* connect attempts given up after --connect-timeout */
    uint64_t reconnect_backoffs;  /* reopens delayed: connections failed in a row before a response */
    char why[PC_ERR_KINDS][STATS_WHY_LEN]; /* first reason seen per kind */
    uint64_t status[STATS_MAX_STATUS];     /* responses by status code */
    uint64_t status_other;                 /* codes >= 600 */
    uint64_t non2xx;                       /* responses outside 2xx and 3xx */
    uint64_t lower_bound; /* timeouts / never-sent recorded at their lower-bound latency */

    uint64_t bytes_read, bytes_written;
    uint64_t connects;       /* successful connections */
    uint64_t tls_resumed;    /* of those, TLS sessions resumed */
    uint64_t server_closes;  /* responses that ended their connection (Connection: close, HTTP/1.0) */
    uint64_t idle_closes;    /* idle keep-alive connections the server closed */
    uint64_t conn_drops;     /* connections pacer closed on an error with no request in flight */
    char drop_why[STATS_WHY_LEN];
    uint64_t addr_fallbacks;      /* connects that failed on one address, then tried the next */
    char fallback_why[STATS_WHY_LEN]; /* the first of them: "ADDR: cause" */
    uint64_t resent;         /* requests re-sent after the server closed the connection unanswered */
    uint64_t header_wire;    /* response header bytes received (HTTP/2: HPACK-compressed) */
    uint64_t header_decoded; /* the same headers decoded (name + value bytes; HTTP/1.1: = wire) */
    uint64_t body_bytes;     /* response body bytes (decoded: chunk framing not counted) */
    int64_t doc_len;         /* body length of the first response (-1: none yet) */
    uint64_t length_differs; /* responses whose body length differs from doc_len */
    uint64_t keepalive_responses; /* responses after which the connection stayed open */
    char server[64];         /* the first Server header seen */
    uint64_t h1_conns;       /* connections that spoke HTTP/1.1 */
    char tls_version[16];    /* of the first TLS handshake, e.g. "TLSv1.3" */
    char tls_cipher[64];
    /* HTTP/2 */
    uint64_t h2_rst;            /* RST_STREAM received (other than REFUSED_STREAM) */
    uint64_t h2_refused;        /* REFUSED_STREAM received */
    uint64_t h2_goaway;         /* GOAWAY received */
    uint64_t h2_conns;          /* connections that spoke HTTP/2 */
} pc_stats;

/* Allocate the histograms. 0 or -ENOMEM. */
int stats_init(pc_stats *s);
/* Room for per-request records (-g). 0 or -ENOMEM. */
int stats_init_recs(pc_stats *s, size_t n);
/* Per-request-kind statistics for n distinct requests. 0 or -ENOMEM. */
int stats_init_urls(pc_stats *s, uint32_t n);
void stats_free(pc_stats *s);
/* Forget everything measured so far (end of --warmup). */
void stats_reset(pc_stats *s);
/* dst += src, histograms included. */
void stats_merge(pc_stats *dst, const pc_stats *src);
/* Record the first reason for an error kind (later ones are counted only). */
void stats_why(pc_stats *s, enum pc_err_kind k, const char *why);
/* completed + errors + never_sent + interrupted. */
uint64_t stats_outcomes(const pc_stats *s);
/* The requests that did not end in a 2xx/3xx response: errors, timeouts,
 * never sent, interrupted, other statuses (--slo errors, the workflows'
 * failures). */
uint64_t stats_failed(const pc_stats *s);

#endif
