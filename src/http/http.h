/*
 * http.h - the seam between the engine and the HTTP protocols (http/h1.c,
 * http/h2.c, http/h3.c): types, the protocol table, and the few calls a
 * protocol makes back. It includes no engine header: a protocol sees its
 * connection only through http_conn and reports only through eng_*, so it
 * can be driven alone (tests/unit/http/, with a fake engine).
 *
 * The engine owns scheduling, outcomes and the connection's lifecycle; a
 * protocol owns the bytes. It is handed requests in slots and reports
 * back: a slot ends exactly once, as done, failed or refused. Its own
 * per-request state lives in its own arrays, indexed by http_slot_index.
 */
#ifndef PACER_HTTP_HTTP_H
#define PACER_HTTP_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/net.h"
#include "proto/h1req.h"
#include "proto/reqsrc.h"
#include "stats/stats.h"
#include "util/sbuf.h"

/* One request in flight: what every protocol has. */
typedef struct slot {
    uint64_t intended;   /* when the schedule meant it to be sent */
    uint64_t sent;       /* first byte written (0 = not yet): the protocol sets it */
    uint64_t written;    /* last byte written (0 = not yet, or not tracked: HTTP/3) */
    uint64_t ready;      /* when it became sendable: intended, or when its connection had room */
    uint64_t first_byte; /* first byte of the response seen (0 = not yet): eng_first_byte */
    uint64_t ctime;      /* connect (+TLS) time if this request opened its connection, else 0 */
    uint64_t wire;       /* when the kernel sent its first byte on (0 = not known): the
                          * first send stamp (net_tx_stamps) at or past tx_key */
    uint32_t tx_key;     /* the transport's byte count (tx_bytes) where the write that
                          * carries its first byte begins */
    bool tx_wait;        /* sent over a stamped transport, its stamp not yet come */
    uint32_t tmpl;       /* which request (the run's templates) */
    uint8_t retries;     /* times re-sent after the server refused it */
    uint8_t idle_refusals; /* of them, refused by a connection that had answered nothing */
    bool used;
} slot;

/* What the run tells its protocols: fixed from the options before it starts. */
typedef struct http_settings {
    size_t resp_cap;          /* response(): bytes kept per response (headers, body) */
    uint32_t h1_depth;        /* HTTP/1.1 requests in flight per connection (--pipeline) */
    uint32_t streams;         /* -m: HTTP/2 and HTTP/3 streams per connection */
    int window_bits, conn_window_bits; /* HTTP/2 flow-control windows (h2load -w, -W) */
    uint32_t h3_window, h3_conn_window; /* HTTP/3 stream and connection windows */
    uint64_t connect_timeout_ns;
    bool tls_resume;          /* offer the last TLS session when reconnecting (not --no-tls-resume) */
    const char *authority;    /* the URL's host[:port]: a script request's :authority */
    net_quic_ctx *quic_ctx;   /* QUIC's TLS credentials (HTTP/3) */
} http_settings;

/* What a protocol reads of its worker thread. */
typedef struct http_env {
    const http_settings *set;
    /* The statistics: the one way a protocol counts what only it sees
     * (header bytes, HTTP/2 resets, QUIC datagrams); outcomes go through
     * eng_* instead. */
    pc_stats *st;
    bool want_response;   /* the script has response(): hand it status, headers and body */
    bool requests_change; /* every request is new text (request()): keep a copy of its body */
} http_env;

/* What a protocol sees of its connection: the first member of the
 * engine's own (the engine reads and writes these fields too). */
typedef struct http_conn {
    net_conn nc;          /* the transport's socket */
    const net_ops *net;   /* and its operations: write through net->write */
    const http_env *env;
    bool tls;             /* its origin is https */
    const char *peer;     /* the name or address its certificate must be for */
    void *ps;             /* the protocol's own state (proto_ops.state_new) */
    slot *slots;          /* depth of them */
    uint32_t depth;       /* --pipeline (HTTP/1.1) or -m (HTTP/2, HTTP/3) */
    uint32_t count;       /* slots in use */
    uint32_t gen;         /* bumped at every close: a stale callback can tell */
    uint64_t batch_sent;  /* when the first byte of the batch being sent went out (0: none yet) */
    bool served;          /* the server said it took on a stream of this connection (HTTP/2:
                           * a GOAWAY's last-stream-id names one), though none may have been
                           * answered yet: its refusals are not a server's that processes
                           * nothing (eng_refused) */
} http_conn;

/* Slot index of s in c: what a protocol indexes its own per-slot arrays by. */
static inline uint32_t http_slot_index(const http_conn *c, const slot *s)
{
    return (uint32_t)(s - c->slots);
}

/* s's first byte goes out now, with the write that begins at the
 * transport's byte count `at` (c->nc.tx_bytes before that write): the
 * protocols' one way to mark a request sent. Where the kernel stamps sends
 * (nc.tx_ts) the engine then gives s its wire time from the stamp (eng_wrote). */
static inline void http_mark_sent(http_conn *c, slot *s, uint64_t now, uint64_t at)
{
    s->sent = now;
    s->wire = 0;
    s->tx_key = (uint32_t)at;
    s->tx_wait = c->nc.tx_ts;
    if (!c->batch_sent) /* --batch-latency: the batch went out with its first */
        c->batch_sent = now;
}

/* Whether the Server header is still wanted (ab reports it): until one is known. */
static inline bool http_want_server(const http_conn *c)
{
    return !c->env->st->server[0];
}

/* How a protocol reaches its server. */
enum { HTTP_OVER_TCP,  /* a byte stream: plain TCP, or TLS when the origin is https */
       HTTP_OVER_QUIC  /* datagrams on a connected UDP socket; TLS inside the protocol */
};

/* One protocol: a row of the table (http/table.c) and what it does with a connection. */
typedef struct proto_ops {
    const char *name;  /* its ALPN id, and the name reports print: "http/1.1", "h2", "h3" */
    int transport;     /* HTTP_OVER_* */
    /* May be spoken in clear without ALPN when asked for (h2c, --h2). */
    bool prior_knowledge;
    /* Requests answered in any order, each on its own stream, so a
     * connection takes a new one whenever it has room (HTTP/2, HTTP/3).
     * false: answered in order on one byte stream; in closed loop a
     * pipelined batch goes out again only once all of it is answered
     * (HTTP/1.1). */
    bool multiplexed;
    /* The protocol's own per-connection state (http_conn.ps), made when a
     * connection first speaks it and kept across its reconnections (freed
     * when the connection changes protocol, and at the end): NULL on out
     * of memory. Nothing outside the protocol looks inside. */
    void *(*state_new)(const http_conn *c);
    void (*state_free)(void *st);
    /* The transport is ready (TCP / TLS done): set up, e.g. send SETTINGS.
     * 0 or a negative errno (the connection then fails). */
    int (*start)(http_conn *c, uint64_t now);
    /* How many requests the connection may have in flight right now. */
    uint32_t (*capacity)(const http_conn *c);
    /* Take the request in slot s (allocated and counted); write nothing yet. */
    void (*submit)(http_conn *c, slot *s);
    /* Write what is pending. May end the connection through eng_*. */
    void (*flush)(http_conn *c, uint64_t now);
    /* Bytes read from the transport. May end the connection. Returns how
     * many it consumed: the rest (an unfinished HTTP/1.1 header line,
     * bounded by the protocol) is handed back in front of the next read. */
    size_t (*input)(http_conn *c, const char *buf, size_t len, uint64_t now);
    /* The peer closed the connection. Ends it one way or another. */
    void (*eof)(http_conn *c, uint64_t now);
    /* s has run out of time: give up on it (HTTP/1.1 has to close the
     * connection, HTTP/2 resets the stream). */
    void (*timeout)(http_conn *c, slot *s, uint64_t now);
    /* The connection is being closed: drop protocol state. */
    void (*reset)(http_conn *c);
    /* Optional (NULL: none). The time eng_timer asked for has come
     * (QUIC's loss detection, ACK delay, idle timeout): handle it, write
     * what it brings. */
    void (*expire)(http_conn *c, uint64_t now);
    /* Optional. The protocol's own handshake is still running (QUIC's TLS
     * is inside the protocol): the connection failing now is a failed
     * connect, not a dropped connection. */
    bool (*connecting)(const http_conn *c);
    /* Optional. Bytes of the response being read that nobody will look
     * at (HTTP/1.1: the rest of a body when no script reads bodies), which
     * the transport may drop unread (net_ops.discard), and, once it has,
     * how many went by. */
    uint64_t (*skippable)(const http_conn *c);
    void (*skip)(http_conn *c, size_t n, uint64_t now);
    /* Optional. The transport's read failed with errno err: end the
     * connection with the protocol's words for it (QUIC: what an ICMP
     * port unreachable means). NULL: strerror(err). */
    void (*read_error)(http_conn *c, int err, uint64_t now);
} proto_ops;

/* ---- the table (http/table.c) ------------------------------------------ */

/* Every protocol pacer speaks, in the order ALPN offers them. */
extern const proto_ops *const http_protocols[];
extern const size_t http_nprotocols;
/* The protocol whose name (ALPN id) is name[0..len), or NULL. */
const proto_ops *http_find(const char *name, size_t len);
/* The protocol a run asks for: HTTP/3 (--h3), HTTP/2 (--h2, -m), or
 * HTTP/1.1; over TLS the ALPN list may ask for another (http_alpn_wire),
 * and ALPN settles it (http_choose). */
const proto_ops *http_wanted(bool h2, bool h3);
/* The ALPN list "h2,http/1.1" in wire format (length-prefixed names) into
 * out; *want becomes the multiplexed protocol it names (HTTP/2), if any,
 * else HTTP/1.1; *fallback whether it names HTTP/1.1 (acceptable when the
 * server refuses *want). The length, or -EINVAL. */
int http_alpn_wire(const char *list, unsigned char *out, size_t cap, const proto_ops **want,
                   bool *fallback);
/* The transport a connection to an origin (https or not) takes for p. */
const net_ops *http_transport(const proto_ops *p, bool tls);
/* The protocol a connection speaks once its transport is up: over a TLS
 * byte stream, the one the server chose with ALPN (alpn[0..len), none:
 * HTTP/1.1), which must be `want` unless fallback (http/1.1 acceptable);
 * in clear, `want` when it may be spoken by prior knowledge, else
 * HTTP/1.1; over QUIC, `want` (its ALPN is checked inside). NULL with the
 * reason in why. */
const proto_ops *http_choose(const proto_ops *want, bool tls, const unsigned char *alpn,
                             size_t len, bool fallback, char *why, size_t whylen);

/* ---- what the protocols call (the engine defines these) --------------- */

/* s got a complete response with this status and body length. Frees s. */
void eng_done(http_conn *c, slot *s, int status, uint64_t body_len, uint64_t now);
/* s failed; its outcome is `kind`. Frees s. */
void eng_failed(http_conn *c, slot *s, enum pc_err_kind kind, const char *why, uint64_t now);
/* The server did not process s (REFUSED_STREAM, GOAWAY, Connection: close
 * with requests behind): send it again on another connection, keeping its
 * intended time, a bounded number of times. Frees s. */
void eng_refused(http_conn *c, slot *s, const char *why, uint64_t now);
/* The first byte of s's response arrived. */
void eng_first_byte(http_conn *c, slot *s, uint64_t now);
/* s's request, from the thread's request source (its template, or the
 * script's text, checked here for every protocol: h1req_check). NULL: s
 * failed and is recorded (a script error, or text that is not valid
 * HTTP/1.1, with the fault): the protocol sends nothing for it. A request
 * that is part of another's pipelined batch (a script's request() returned
 * several) has no bytes of its own (h1 NULL). */
const pc_request *eng_request(http_conn *c, slot *s);
/* Hand the script's response() the status, the headers ("name\0value\0"
 * pairs) and the body the protocol buffered (both emptied for the next). */
void eng_script_response(http_conn *c, int status, sbuf *hdrs, sbuf *body);
/* The response's Server header (http_want_server: only until one is known). */
void eng_server(http_conn *c, const char *v, size_t n);
/* The connection failed: every request in flight gets `kind`; reconnect. */
void eng_conn_fail(http_conn *c, enum pc_err_kind kind, const char *why, uint64_t now);
/* Take no new request on c; reopen it once its last response is in. */
void eng_drain(http_conn *c);
/* Close the connection (nothing in flight), and open a new one. */
void eng_conn_recycle(http_conn *c, uint64_t now);
/* The server said GOAWAY on c (HTTP/2, HTTP/3): it ends for that reason.
 * The protocol counts the frame itself. */
void eng_goaway(http_conn *c);
/* Why a response ended its connection (eng_close_after). */
enum { ENG_CLOSE_HEADER, /* HTTP/1.1 response with Connection: close */
       ENG_CLOSE_HTTP10, /* HTTP/1.0 response without keep-alive */
       ENG_CLOSE_OTHER,  /* a body ended by the close, or an answer before
                          * the request was fully written */
       ENG_CLOSE_TE_CL   /* pacer's: chunked with a Content-Length, framing
                          * the server may not share (RFC 9112 6.3) */
};
/* The response to s, the n-th on its connection, ended the connection
 * (why: ENG_CLOSE_*): count it and take no new request. */
void eng_close_after(http_conn *c, const slot *s, uint64_t n, int why);
/* The server closed a connection with nothing in flight: an idle close,
 * unless a response or GOAWAY had announced it (c draining). */
void eng_idle_closed(http_conn *c);
/* The connection speaks the protocol now (its start): counted in
 * `counter`, the protocol's own (pc_stats h1_conns, h2_conns), again if it
 * is still open when the warm-up ends. */
void eng_speaks(http_conn *c, uint64_t *counter);
/* The protocol wrote to c's transport: where the kernel stamps sends
 * (nc.tx_ts), take the stamps that came and give the requests they cover
 * their wire time. */
void eng_wrote(http_conn *c);
/* Want (or not) to be told when the socket is writable. */
void eng_want_write(http_conn *c, bool on);
/* Wake the protocol's expire at `when` (0: no timer). One per connection,
 * each call replacing the last. */
void eng_timer(http_conn *c, uint64_t when);
/* The handshake a protocol runs itself (QUIC's TLS) is done: counted and
 * timed as a TLS handshake, from the socket's connect. */
void eng_tls_done(http_conn *c, uint64_t now, bool resumed, const char *version,
                  const char *cipher);
/* That handshake ran past --connect-timeout: a connect timeout, why
 * (NULL: "connect timed out (QUIC handshake)"). */
void eng_connect_timeout(http_conn *c, const char *why, uint64_t now);

/* ---- shared by the protocols (http/common.c) -------------------------- */

#define SBUF_REQUEST_MAX (16u << 20) /* a script's request body over HTTP/2 or /3 */

/* What HTTP/2 and HTTP/3 keep of every request, each in its own per-slot
 * array (reset at submit). */
typedef struct http_stream {
    int64_t id;           /* its stream (0 until opened) */
    int32_t status;       /* from :status, the final response's (0: none yet) */
    bool head;            /* HEAD: no body in the response */
    uint64_t body;        /* response body bytes so far */
    const char *req_body; /* the request body being sent: stays until sent */
    size_t req_body_len, body_off; /* its length, and the bytes of it sent so far */
} http_stream;

/* s's request q as HTTP/2 or HTTP/3 header fields, pseudo-headers first,
 * names lower-case, into *n: a template's list, built once (*copy false:
 * the fields last as long as the run), or a script's request() text taken
 * apart (*copy true: the fields are scratch until the next call, the
 * library must copy them). Its body goes into hs (a transient one copied
 * into body_buf, the slot's SB_REQ_BODY buffer). NULL: the request failed
 * (the text is not HTTP/1.1, out of memory), recorded with eng_failed. */
const pc_field *http_request_fields(http_conn *c, slot *s, http_stream *hs, sbuf *body_buf,
                                    const pc_request *q, size_t *n, bool *copy);
/* n body bytes of s's response came (s NULL: a stream no slot waits on,
 * only counted): counted (in hs too), its first byte noted, and kept in b
 * (the slot's buffer for response(), NULL: none) up to the response cap.
 * 0, or -ENOMEM when b could not take them. */
int http_body_data(http_conn *c, slot *s, http_stream *hs, sbuf *b, const char *p, size_t n,
                   uint64_t now);
/* Append one response header to b as "name\0value\0" for response(), up
 * to the response cap (b NULL, or a NUL in either: nothing). 0 or -ENOMEM. */
int http_header_pair(http_conn *c, sbuf *b, const char *n, size_t nl, const char *v, size_t vl);
/* Make the scratch array *p (of *cap entries of size bytes) hold at least
 * n, keeping it when it does (HTTP/2's and HTTP/3's header list for submit).
 * false: out of memory, *p and *cap unchanged. */
bool http_scratch(void **p, size_t *cap, size_t n, size_t size);
/* A protocol's three buffers per slot for a script (request body, response
 * headers, response body), made when the script needs them. */
enum { SB_REQ_BODY, SB_HEADERS, SB_BODY, SB_PER_SLOT };
/* Slot s's buffer `which` out of sb (depth * SB_PER_SLOT of them), or NULL
 * when there are none (no script needs them). */
static inline sbuf *http_slot_buf(sbuf *sb, const http_conn *c, const slot *s, int which)
{
    return sb ? &sb[http_slot_index(c, s) * SB_PER_SLOT + (uint32_t)which] : NULL;
}
/* Make them for c (NULL when neither response() nor request() needs them,
 * or on out of memory: *ok false), and free them. */
sbuf *http_slot_bufs_new(const http_conn *c, bool *ok);
void http_slot_bufs_free(sbuf *sb, uint32_t depth);

#endif
