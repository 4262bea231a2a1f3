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
#include <stddef.h>
#include <stdint.h>

#include "stats/hdr.h"

/* Latencies are recorded in nanoseconds, 1 ns to 24 h, 3 significant digits. */
#define STATS_LAT_HIGHEST 86400000000000LL

/*
 * The error kinds, once: X(KIND, name, label). name is the kind's name in
 * the reports and the JSON result (pc_err_name), label its row in the HTML
 * report's summary.
 *   CONNECT   could not connect / TLS handshake failed (per attempt)
 *   READ      reset or closed by the server before the response ended
 *   WRITE     could not send the request
 *   TIMEOUT   no complete response within --timeout
 *   PROTOCOL  the response was not valid HTTP
 */
#define PC_ERR_KIND_LIST(X)                                                                  \
    X(CONNECT, "connect", "Connect errors")                                                  \
    X(READ, "read", "Errors: read")                                                          \
    X(WRITE, "write", "Errors: write")                                                       \
    X(TIMEOUT, "timeout", "Timed out")                                                       \
    X(PROTOCOL, "protocol", "Errors: protocol")

#define PC_ERR_ENUM_(kind, name, label) PC_ERR_##kind,
enum pc_err_kind { PC_ERR_KIND_LIST(PC_ERR_ENUM_) PC_ERR_KINDS };
#undef PC_ERR_ENUM_

#define STATS_MAX_STATUS 1000 /* every three-digit code, valid or not (RFC 9110 15) */

/* One request's timings (ab's -g file, hey's -o csv), nanoseconds. */
typedef struct pc_reqrec {
    uint64_t start; /* monotonic: when its connection (if it opened one) or its write began */
    uint64_t ctime, dtime, wait;
    uint64_t write; /* first to last byte of the request written; UINT64_MAX: not known
                       (HTTP/3, or answered before it was all written) */
    int status; /* the response's status code */
} pc_reqrec;

/* Per distinct request (--urls): counts (16 bytes a URL; the latency,
 * when kept, is pc_stats.url_lat). */
typedef struct pc_url_stats {
    uint64_t completed, errors;
} pc_url_stats;
/* Per stage of a load shape (--stages), and per ramp row (a stage whose
 * rate moves, in PC_RAMP_STEPS rows of equal time): the requests whose
 * intended send time falls in it, their outcomes, corrected latency, and
 * for those sent, the uncorrected latency and pacer's own send lag (what
 * the verdict judges each stage and row by). */
typedef struct pc_stage_stats {
    uint64_t completed, non2xx, errors, never_sent, interrupted;
    hdr_hist latency;
    hdr_hist latency_u;
    hdr_hist send_lag;
} pc_stage_stats;
#define STATS_WHY_LEN 160
/* CONNECTION_CLOSE codes counted one by one: transport 0x0..0x10 (0..16),
 * a TLS alert 0x1xx (17), application (HTTP/3) 0x100..0x110 (18..34),
 * any other transport (35) or application (36) code. */
#define STATS_QUIC_CLOSE_N 37
/* Per-URL latency costs one histogram per URL per thread (2 significant
 * digits from 1 us: about 30 KiB); above this many URLs only their counts
 * are kept, so memory stays bounded whatever the size of --urls. */
#define STATS_URL_LATENCY_MAX 1000

/* Every field is in PC_STATS_FIELDS below too. */
typedef struct pc_stats {
    hdr_hist latency;   /* corrected: done - intended send time */
    hdr_hist latency_u; /* uncorrected: done - first byte sent (the kernel's stamp where
                         * it has one, wire_lag, else when pacer wrote it) */
    hdr_hist connect;   /* TCP (or Unix) connect */
    hdr_hist tls;       /* TLS handshake */
    hdr_hist ttfb;      /* first byte written -> first byte of the response */
    hdr_hist rps;       /* per-thread requests/s, one sample per 100 ms */
    hdr_hist batch;     /* -B: one corrected sample per pipelined batch */
    hdr_hist conn_rps;  /* per connection: responses / measured period (h2load's req/s row) */
    hdr_hist conn_req;  /* per request: connect (+TLS) time if it opened its connection, else 0 */
    hdr_hist processing; /* per request: first byte of the response -> last byte */
    hdr_hist total_req; /* per request: its connect time + first byte written -> last byte (ab's Total) */
    hdr_hist send_lag;  /* per request: first byte written - when it became sendable (pacer's own lag) */
    hdr_hist wire_lag;  /* per request the kernel stamped: its send on the wire (the device) -
                         * pacer's clock when it wrote it (net_tx_times) */
    hdr_hist busy;      /* per thread: its CPU time / wall time over the run, in per mille */
    hdr_hist cpu_wait;  /* per thread: time it was ready to run but had no CPU / wall (the
                         * kernel's schedstat run delay: a shared machine), per mille */
    hdr_hist demand;    /* per thread: busy + cpu_wait, the time it did not wait for the
                         * network (what the verdict weighs), per mille */
    hdr_hist slack;     /* -R: the slack in force (pace.c), one sample per thread per tick */
    pc_url_stats *urls; /* per distinct request, when there are several */
    uint32_t nurls;
    bool url_latency;   /* url_lat kept (at most STATS_URL_LATENCY_MAX URLs) */
    hdr_hist *url_lat;  /* corrected latency per distinct request (nurls), or NULL */
    pc_stage_stats *stages; /* per stage of --stages (NULL: no stages) */
    uint32_t nstages;
    pc_stage_stats *steps;  /* per ramp row (pc_shape_steps; NULL: none) */
    uint32_t nsteps;
    pc_reqrec *recs;    /* per completed request (-g), preallocated */
    size_t nrecs, caprecs;

    uint64_t sent_early;  /* first byte written before the intended time: never (a check) */
    uint64_t script_cut;  /* responses handed to response() cut at the buffer cap */
    uint64_t scheduled;   /* requests created in the measured period */
    uint64_t completed;   /* responses received (any status) */
    uint64_t never_sent;  /* still waiting for a connection when the run stopped */
    uint64_t interrupted; /* in flight when the drain was cut short */
    uint64_t last_response_us; /* the last response's time, from the measured period's start
                                * (merged as the latest; none when completed is 0) */
    uint64_t err[PC_ERR_KINDS];   /* request outcomes by error kind (PC_ERR_CONNECT unused) */
    uint64_t connect_errors;      /* failed connect or handshake attempts */
    uint64_t connect_retrans;     /* TCP connects that needed a SYN retransmit (TCP_INFO) */
    uint64_t connect_timeouts;    /* connect attempts given up after --connect-timeout */
    uint64_t handshake_timeouts;  /* of connect_timeouts: TCP was up, the TLS handshake was not */
    uint64_t connect_late;        /* connections still connecting when the clock started */
    uint64_t connect_pending;     /* TCP connects with no answer yet when the run ended */
    uint64_t handshake_pending;   /* TLS or QUIC handshakes unfinished when the run ended */
    uint64_t reconnect_backoffs;  /* reopens delayed: connections failed in a row before a response */
    char why[PC_ERR_KINDS][STATS_WHY_LEN]; /* first reason seen per kind */
    uint64_t status[STATS_MAX_STATUS];     /* responses by status code */
    uint64_t status_other;                 /* codes >= 600 */
    uint64_t non2xx;                       /* responses outside 2xx and 3xx */
    uint64_t lower_bound; /* timeouts / never-sent recorded at their lower-bound latency */

    uint64_t bytes_read, bytes_written;
    uint64_t connects;       /* successful connections */
    uint64_t connect_attempts; /* connects that went out (SYN or first QUIC packet sent) */
    uint64_t reopens;        /* connections opened again after one had opened and ended */
    uint64_t reopen_server, reopen_goaway, reopen_timeout, reopen_error; /* of reopens, by why
                              * the last ended; the rest pacer ended itself (conn.h CONN_END_*) */
    uint64_t tls_resumed;    /* of those, TLS sessions resumed */
    uint64_t server_closes;  /* responses that ended their connection (Connection: close, HTTP/1.0) */
    uint64_t idle_closes;    /* idle keep-alive connections the server closed unannounced */
    hdr_hist close_after;    /* per server_closes: responses its connection had carried */
    uint64_t close_http10;   /* of server_closes: HTTP/1.0 without keep-alive */
    uint64_t close_other;    /* of server_closes: body ended by the close, early answer */
    uint64_t chunked_with_length; /* responses chunked with a Content-Length: pacer closed after each */
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
    uint64_t goaway_reopens;    /* connections reopened after the server's GOAWAY (h2, h3) */
    uint64_t h2_conns;          /* connections that spoke HTTP/2 */
    /* QUIC (HTTP/3): each connection's figures, added when it ends */
    uint64_t quic_conns;        /* QUIC connections that ended */
    uint64_t quic_sent, quic_recv; /* datagrams */
    uint64_t quic_lost;         /* pacer's packets its QUIC stack declared lost */
    uint64_t quic_pto;          /* probe timeouts */
    uint64_t quic_resets;       /* streams the server reset (RESET_STREAM) */
    uint64_t quic_goaway;       /* HTTP/3 GOAWAY received */
    uint64_t quic_close[STATS_QUIC_CLOSE_N]; /* CONNECTION_CLOSE received, by code (stats_quic_close_idx) */
    hdr_hist quic_srtt;         /* per connection: smoothed RTT at its end */
    hdr_hist quic_min_rtt;      /* per connection: its minimum RTT */
} pc_stats;

/*
 * Every field of pc_stats, once: X(kind, field, json, path). stats.c starts,
 * resets, merges and frees each field by its kind; json_out.c writes and
 * merge.c (`pacer report`) reads back the TABLE ones at their path.
 * Within a section of the JSON document the table's order is the
 * document's. To add a field: add it to pc_stats and here (test_stats.c
 * fails on a field of pc_stats this table lacks); a plain counter whose
 * path is in a section json_out.c already writes needs nothing else
 * (test_result_json.c checks it round-trips).
 *
 * kind (PC_SK_*): how the field starts, resets and merges
 *   HIST_NS    hdr_hist of nanoseconds, 1 ns to 24 h: merge adds, reset empties
 *   HIST_RATE  hdr_hist of per-second rates, 1 to 1e10
 *   SUM        uint64_t, or an array of them: merge adds (each element)
 *   FIRST      char[]: the first non-empty string wins
 *   FIRST_EACH char[n][len]: the same for each of the n strings
 *   FIRST_LEN  int64_t, -1 until known: the first known value wins
 *   KEEP       an allocation or its size: kept by reset, merged by hand
 *   HAND       merged by hand in stats_merge, zeroed by reset
 * json (PC_SJ_*): how the JSON result (docs/pacer-result.schema.json) has it
 *   TABLE  a plain value at `path` (a SUM scalar: an integer; a HIST: an
 *          object with its encoded "histogram"), written and read from here
 *   HAND   in a form of its own, written (json_out.c) and read back
 *          (merge.c) by hand; `path` says where
 *   OUT    written by hand, not read back by `pacer report`
 *   NONE   not in the document
 */
#define PC_STATS_FIELDS(X)                                                                   \
    X(HIST_NS, latency, TABLE, "latency.corrected")                                          \
    X(HIST_NS, latency_u, TABLE, "latency.uncorrected")                                      \
    X(HIST_NS, connect, TABLE, "latency.connect")                                            \
    X(HIST_NS, tls, TABLE, "latency.tls_handshake")                                          \
    X(HIST_NS, ttfb, TABLE, "latency.first_byte")                                            \
    X(HIST_NS, processing, TABLE, "latency.processing")                                      \
    X(HIST_NS, conn_req, TABLE, "latency.connect_per_request")                               \
    X(HIST_NS, total_req, TABLE, "latency.total")                                            \
    X(HIST_NS, send_lag, TABLE, "latency.send_lag")                                          \
    X(HIST_NS, wire_lag, TABLE, "latency.wire_lag")                                          \
    X(HIST_NS, batch, NONE, NULL)                                                            \
    X(HIST_RATE, busy, TABLE, "client.threads_busy")                                         \
    X(HIST_RATE, cpu_wait, TABLE, "client.threads_cpu_wait")                                 \
    X(HIST_RATE, demand, TABLE, "client.threads_demand")                                     \
    X(HIST_NS, slack, TABLE, "client.slack")                                                 \
    X(SUM, sent_early, TABLE, "client.sent_early")                                           \
    X(SUM, script_cut, TABLE, "client.script_responses_cut")                                 \
    X(HIST_RATE, rps, HAND, "thread_rate (mean, stdev, max, histogram)")                     \
    X(HIST_RATE, conn_rps, NONE, NULL)                                                       \
    X(KEEP, urls, OUT, "urls[] (requests, errors, latency)")                                 \
    X(KEEP, nurls, OUT, "urls[]")                                                            \
    X(KEEP, url_latency, OUT, "urls[].latency (null when not kept)")                         \
    X(KEEP, url_lat, OUT, "urls[].latency")                                                  \
    X(KEEP, stages, HAND, "stages[] (report/stages.c writes and reads them)")                \
    X(KEEP, nstages, HAND, "stages[]")                                                       \
    X(KEEP, steps, HAND, "stages[].steps[] (report/stages.c)")                               \
    X(KEEP, nsteps, HAND, "stages[].steps[]")                                                \
    X(KEEP, recs, NONE, NULL)                                                                \
    X(HAND, nrecs, NONE, NULL)                                                               \
    X(KEEP, caprecs, NONE, NULL)                                                             \
    X(SUM, scheduled, TABLE, "requests.scheduled")                                           \
    X(SUM, completed, TABLE, "requests.completed")                                           \
    X(SUM, never_sent, TABLE, "requests.never_sent")                                         \
    X(SUM, interrupted, TABLE, "requests.interrupted")                                       \
    X(MAX, last_response_us, TABLE, "requests.last_response_us")                             \
    X(SUM, resent, TABLE, "requests.resent")                                                 \
    X(SUM, lower_bound, TABLE, "requests.latency_lower_bounds")                              \
    X(SUM, bytes_read, TABLE, "bytes.read")                                                  \
    X(SUM, bytes_written, TABLE, "bytes.written")                                            \
    X(SUM, body_bytes, TABLE, "bytes.body")                                                  \
    X(SUM, connect_errors, TABLE, "errors.connect")                                          \
    X(SUM, err, HAND, "errors.<kind> but connect (unused); requests.timed_out, .errors")     \
    X(FIRST_EACH, why, HAND, "errors.causes.<kind>")                                         \
    X(SUM, status, HAND, "status_codes.<code>")                                              \
    X(SUM, status_other, HAND, "status_codes.other")                                         \
    X(SUM, non2xx, HAND, "status_codes: read back as the codes outside 2xx and 3xx")         \
    X(SUM, h2_conns, TABLE, "http2.connections")                                             \
    X(SUM, h2_rst, TABLE, "http2.rst_stream")                                                \
    X(SUM, h2_refused, TABLE, "http2.refused_stream")                                        \
    X(SUM, h2_goaway, TABLE, "http2.goaway")                                                 \
    X(SUM, goaway_reopens, TABLE, "http2.goaway_reopens")                                    \
    X(SUM, quic_conns, TABLE, "quic.connections")                                           \
    X(SUM, quic_sent, TABLE, "quic.packets_sent")                                            \
    X(SUM, quic_recv, TABLE, "quic.packets_received")                                        \
    X(SUM, quic_lost, TABLE, "quic.packets_lost")                                            \
    X(SUM, quic_pto, TABLE, "quic.pto_count")                                                \
    X(SUM, quic_resets, TABLE, "quic.stream_resets")                                         \
    X(SUM, quic_goaway, TABLE, "quic.goaway")                                                \
    X(SUM, quic_close, HAND, "quic.connection_close.<code>")                                 \
    X(HIST_NS, quic_srtt, TABLE, "quic.smoothed_rtt")                                        \
    X(HIST_NS, quic_min_rtt, TABLE, "quic.min_rtt")                                          \
    X(SUM, h1_conns, HAND, "protocol: \"mixed\" reads back as opened - http2.connections")  \
    X(SUM, header_wire, TABLE, "headers.wire_bytes")                                         \
    X(SUM, header_decoded, TABLE, "headers.decoded_bytes")                                   \
    X(SUM, connects, TABLE, "connections.opened")                                            \
    X(SUM, connect_attempts, TABLE, "connections.attempts")                                  \
    X(SUM, reopens, TABLE, "connections.reopened")                                           \
    X(SUM, reopen_server, TABLE, "connections.reopened_server_closed")                       \
    X(SUM, reopen_goaway, TABLE, "connections.reopened_goaway")                              \
    X(SUM, reopen_timeout, TABLE, "connections.reopened_timeout")                            \
    X(SUM, reopen_error, TABLE, "connections.reopened_error")                                \
    X(SUM, tls_resumed, TABLE, "connections.tls_resumed")                                    \
    X(SUM, server_closes, TABLE, "connections.server_closes")                                \
    X(SUM, idle_closes, TABLE, "connections.idle_closes")                                    \
    X(HIST_RATE, close_after, NONE, NULL)                                                    \
    X(SUM, close_http10, TABLE, "connections.server_closes_http10")                          \
    X(SUM, close_other, TABLE, "connections.server_closes_other")                            \
    X(SUM, chunked_with_length, TABLE, "connections.closed_chunked_with_length")             \
    X(SUM, conn_drops, TABLE, "connections.dropped")                                         \
    X(SUM, connect_retrans, TABLE, "connections.syn_retransmitted")                          \
    X(SUM, connect_timeouts, TABLE, "connections.connect_timeouts")                          \
    X(SUM, handshake_timeouts, TABLE, "connections.handshake_timeouts")                      \
    X(SUM, connect_late, TABLE, "connections.not_up_at_start")                               \
    X(SUM, connect_pending, TABLE, "connections.connects_pending_at_end")                    \
    X(SUM, handshake_pending, TABLE, "connections.handshakes_pending_at_end")                \
    X(SUM, reconnect_backoffs, TABLE, "connections.reconnect_backoffs")                      \
    X(SUM, addr_fallbacks, TABLE, "connections.address_fallbacks")                           \
    X(FIRST, drop_why, NONE, NULL)                                                           \
    X(FIRST, fallback_why, NONE, NULL)                                                       \
    X(FIRST_LEN, doc_len, NONE, NULL)                                                        \
    X(SUM, length_differs, NONE, NULL)                                                       \
    X(SUM, keepalive_responses, NONE, NULL)                                                  \
    X(FIRST, server, NONE, NULL)                                                             \
    X(FIRST, tls_version, NONE, NULL)                                                        \
    X(FIRST, tls_cipher, NONE, NULL)

enum pc_stats_kind {
    PC_SK_HIST_NS,
    PC_SK_HIST_RATE,
    PC_SK_SUM,
    PC_SK_MAX, /* one uint64_t: the largest of the parts */
    PC_SK_FIRST,
    PC_SK_FIRST_EACH,
    PC_SK_FIRST_LEN,
    PC_SK_KEEP,
    PC_SK_HAND
};
enum pc_stats_json { PC_SJ_TABLE, PC_SJ_HAND, PC_SJ_OUT, PC_SJ_NONE };

/* One row of PC_STATS_FIELDS. */
typedef struct pc_stats_field {
    const char *name;   /* the member of pc_stats */
    const char *path;   /* where the JSON result has it; NULL: nowhere */
    size_t off, size;   /* the member's offset and size */
    size_t elem;        /* the size of one element (SUM: 8; FIRST_EACH: one string) */
    enum pc_stats_kind kind;
    enum pc_stats_json json;
} pc_stats_field;

extern const pc_stats_field pc_stats_fields[];
extern const size_t pc_stats_nfields;

/* The member f of s. */
static inline void *stats_field(pc_stats *s, const pc_stats_field *f)
{
    return (char *)s + f->off;
}
static inline const void *stats_cfield(const pc_stats *s, const pc_stats_field *f)
{
    return (const char *)s + f->off;
}

/* The quic_close index of a CONNECTION_CLOSE code (app: an application
 * one), and the JSON key of an index ("0x0", "0x1xx", "app:0x100", ...;
 * buf of 16 bytes at least). */
int stats_quic_close_idx(bool app, uint64_t code);
const char *stats_quic_close_key(int idx, char *buf, size_t len);

/* The error kind's name in the reports and in the JSON result ("connect",
 * "read", ...), and its label in the HTML report ("Timed out", ...). */
const char *pc_err_name(enum pc_err_kind k);
const char *pc_err_label(enum pc_err_kind k);

/* Allocate the histograms. 0 or -ENOMEM. */
int stats_init(pc_stats *s);
/* Room for per-request records (-g). 0 or -ENOMEM. */
int stats_init_recs(pc_stats *s, size_t n);
/* Per-request-kind statistics for n distinct requests. 0 or -ENOMEM. */
int stats_init_urls(pc_stats *s, uint32_t n);
/* Per-stage statistics for n stages of a load shape and its nsteps ramp
 * rows (pc_shape_steps). 0 or -ENOMEM. */
int stats_init_stages(pc_stats *s, uint32_t n, uint32_t nsteps);
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
