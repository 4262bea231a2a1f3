/*
 * conn.h - the engine's connection and request-slot state, and the narrow
 * interface between the worker loop and the protocols (HTTP/1.1 and
 * HTTP/2) that run over a connection. Internal to src/engine/.
 *
 * The worker owns scheduling, outcomes and the connection lifecycle; a
 * protocol owns the bytes. A protocol is handed requests in slots and
 * reports back through the eng_* functions below: a slot ends exactly once,
 * as done, failed or refused.
 */
#ifndef PACER_ENGINE_CONN_H
#define PACER_ENGINE_CONN_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/sched.h"
#include "engine/worker.h"
#include "proto/h1req.h"

typedef struct slot {
    uint64_t intended;   /* when the schedule meant it to be sent */
    uint64_t sent;       /* first byte written (0 = not yet) */
    uint64_t written;    /* last byte written (0 = not yet, or not tracked: HTTP/3) */
    uint64_t ready;      /* when it became sendable: intended, or when its connection had room */
    uint64_t first_byte; /* first byte of the response seen (0 = not yet) */
    uint64_t ctime;      /* connect (+TLS) time if this request opened its connection, else 0 */
    uint64_t obeg;       /* HTTP/1.1: offset of its first byte in the connection's output */
    uint64_t body;       /* HTTP/2: response body bytes so far */
    size_t body_off;     /* HTTP/2: request body bytes sent so far */
    const char *req_body; /* HTTP/2: the request body being sent */
    size_t req_body_len;
    int32_t stream_id;   /* HTTP/2 */
    int32_t status;      /* HTTP/2: from :status */
    uint32_t tmpl;       /* which request (pc_run.tmpls) */
    uint32_t olen;       /* HTTP/1.1: its bytes (0: sent as part of another's batch) */
    bool head;           /* HEAD: no body in the response */
    uint8_t retries;     /* times re-sent after the server refused it */
    bool used;
} slot;

/* A growable buffer: what a script's response() is handed, a script's
 * request body over HTTP/2. */
typedef struct sbuf {
    char *p;
    size_t len, cap;
    bool cut; /* bytes past sbuf_add's max were left out */
} sbuf;

typedef struct conn conn;

/* What a protocol does with a connection. */
typedef struct proto_ops {
    const char *name; /* "http/1.1", "h2" */
    /* Requests answered in any order, each on its own stream, so a
     * connection takes a new one whenever it has room (HTTP/2). false:
     * answered in order on one byte stream; in closed loop a pipelined
     * batch goes out again only once all of it is answered (HTTP/1.1). */
    bool multiplexed;
    /* The protocol's own per-connection state (conn.ps), made when a
     * connection first speaks it and kept across its reconnections (freed
     * when the connection changes protocol, and at the end): NULL on out
     * of memory. Nothing outside the protocol looks inside. */
    void *(*state_new)(const conn *c);
    void (*state_free)(void *st);
    /* The transport is ready (TCP / TLS done): set up, e.g. send SETTINGS.
     * 0 or a negative errno (the connection then fails). */
    int (*start)(conn *c, uint64_t now);
    /* How many requests the connection may have in flight right now. */
    uint32_t (*capacity)(const conn *c);
    /* Take the request in slot s (allocated and counted); write nothing yet. */
    void (*submit)(conn *c, slot *s);
    /* Write what is pending. May end the connection through eng_*. */
    void (*flush)(conn *c, uint64_t now);
    /* Bytes read from the transport. May end the connection. Returns how
     * many it consumed: the rest (an unfinished HTTP/1.1 header line,
     * bounded by the protocol) is handed back in front of the next read. */
    size_t (*input)(conn *c, const char *buf, size_t len, uint64_t now);
    /* The peer closed the connection. Ends it one way or another. */
    void (*eof)(conn *c, uint64_t now);
    /* s has run out of time: give up on it (HTTP/1.1 has to close the
     * connection, HTTP/2 resets the stream). */
    void (*timeout)(conn *c, slot *s, uint64_t now);
    /* The connection is being closed: drop protocol state. */
    void (*reset)(conn *c);
    /* Optional (NULL: none). The time eng_timer asked for has come
     * (QUIC's loss detection, ACK delay, idle timeout): handle it, write
     * what it brings. */
    void (*expire)(conn *c, uint64_t now);
    /* Optional. The protocol's own handshake is still running (QUIC's TLS
     * is inside the protocol): the connection failing now is a failed
     * connect, not a dropped connection. */
    bool (*connecting)(const conn *c);
    /* Optional. Bytes of the response being read that nobody will look
     * at (HTTP/1.1: the rest of a body when no script reads bodies), which
     * the transport may drop unread (net_ops.discard), and, once it has,
     * how many went by. */
    uint64_t (*skippable)(const conn *c);
    void (*skip)(conn *c, size_t n, uint64_t now);
    /* Optional. The transport's read failed with errno err: end the
     * connection with the protocol's words for it (QUIC: what an ICMP
     * port unreachable means). NULL: strerror(err). */
    void (*read_error)(conn *c, int err, uint64_t now);
} proto_ops;

/* The protocols, each defined by its own file. */
extern const proto_ops proto_h1;
extern const proto_ops proto_h2;
extern const proto_ops proto_h3;

/* Why a connection that had opened ended, as the reopen count says it
 * (pc_stats reopens): pacer's own choice unless something else is known. */
enum { CONN_END_NONE,    /* never opened, or already counted */
       CONN_END_CLIENT,  /* pacer closed it: --no-keepalive, the run's end, a persona's rule */
       CONN_END_SERVER,  /* the server closed it (Connection: close, HTTP/1.0, an idle close) */
       CONN_END_GOAWAY,  /* HTTP/2 GOAWAY */
       CONN_END_TIMEOUT, /* a request on it timed out (--timeout closes the connection) */
       CONN_END_ERROR    /* a read, write or protocol error */
};
/* c's connection ends for why (CONN_END_*), if it was open and no cause is known yet. */
void conn_ended(conn *c, int why);

struct conn {
    net_conn nc;
    const net_ops *net; /* the transport's operations */
    pc_worker *w;
    const proto_ops *proto;
    uint8_t state;
    bool in_ready; /* in the worker's ready queue */
    uint64_t room_at; /* when it last came to have room (the send lag's start) */
    bool settled;  /* connected or failed once (start-up barrier) */
    bool reused;   /* carried at least one complete response */
    bool draining; /* takes no new request (GOAWAY, Connection: close) */
    bool goaway;   /* the server sent GOAWAY on this connection */
    uint8_t ended; /* why its last connection ended (CONN_END_*): counted when it reopens */
    SSL_SESSION *session; /* its newest TLS session, offered when it reconnects (wrk, h2load) */
    uint16_t origin; /* which origin's pool (--urls with several origins) */
    uint32_t events;
    uint32_t gen; /* bumped at every close: stale work can tell */
    uint64_t done_total; /* measured responses over all its reconnections */
    uint32_t fails;      /* connections in a row that ended in an error before a response */
    uint32_t addr_idx, tries; /* address in use; addresses tried in this round */
    bool last_try;      /* this failure would be the same on any address: back off */
    uint64_t t_start; /* connect started; in CS_BACKOFF: retry time */
    uint64_t t_tcp;   /* TCP connected */
    slot *slots;      /* depth slots */
    uint32_t depth;   /* --pipeline (HTTP/1.1) or -m (HTTP/2) */
    uint32_t count;   /* slots in use */
    uint32_t *free_idx; /* stack of unused slot indexes */
    uint32_t nfree;
    bool fresh;         /* no request sent on this connection yet */
    uint64_t *spoke;    /* the protocol counter (pc_stats h1_conns, h2_conns) it was counted
                         * in when it opened: warmup_end counts it again (NULL: none yet) */
    bool opening;       /* counted in the worker's `opening` (no request yet) */
    uint64_t conn_time; /* how long connecting (TCP + TLS) took */
    uint64_t wake_at;   /* delay(): no request before this time (0: none) */
    uint64_t timer_at;  /* the protocol's eng_timer: call expire then (0: none) */
    /* The batch a connection sends at once (--pipeline, --batch-latency):
     * the first one's intended time, and when its first byte went out. */
    uint64_t batch_intended, batch_sent;
    char *carry; /* input the protocol left unconsumed, kept across reads */
    uint32_t carry_len, carry_cap;
    void *ps;                 /* the protocol's own state (proto_ops.state_new) */
    const proto_ops *ps_of;   /* whose state ps is */
};

enum { CS_CLOSED, CS_CONNECTING, CS_HANDSHAKE, CS_READY, CS_BACKOFF,
       CS_RETIRED /* ended by the server's GOAWAY, never reopened (h2load) */ };

/* ---- what the protocols call ------------------------------------------ */

/* s got a complete response with this status and body length. Frees s. */
void eng_done(conn *c, slot *s, int status, uint64_t body_len, uint64_t now);
/* s's request, from the thread's request source (its template, or the
 * script's text, checked here for every protocol: h1req_check). NULL: s
 * failed and is recorded (a script error, or text that is not valid
 * HTTP/1.1, with the fault): the protocol sends nothing for it. A request
 * that is part of another's pipelined batch (a script's request() returned
 * several) has no bytes of its own (h1 NULL). */
const pc_request *eng_request(conn *c, slot *s);
/* Whether every request is new text (a script's request()): HTTP/2 keeps
 * a copy of its body per stream. */
bool eng_requests_change(const conn *c);
/* Does the script want response(), and deliver it: the status, the
 * headers ("name\0value\0" pairs) and the body the protocol buffered
 * (both emptied for the next response). */
bool eng_wants_response(const conn *c);
void eng_script_response(conn *c, int status, sbuf *hdrs, sbuf *body);
/* Append to b, keeping at most max bytes (more is dropped: bounded memory
 * beats a complete huge body). 0 or -ENOMEM. */
int sbuf_add(sbuf *b, const char *p, size_t n, size_t max);
#define SBUF_REQUEST_MAX (16u << 20) /* a script's request body over HTTP/2 */
/* s's request body (HTTP/2, HTTP/3), which must stay until it is sent:
 * a template's is stable and kept where it is; a request()'s (q->transient)
 * is copied into b, the slot's own buffer (NULL: none could be had). false:
 * out of memory, and s has failed. */
bool eng_keep_body(conn *c, slot *s, const pc_request *q, const char *body, size_t len, sbuf *b);
/* A script's request() text (q->h1) as HTTP/2 or HTTP/3 header fields, the
 * pseudo-headers first (scheme, the URL's authority): into f (at most
 * H1REQ_MAX_FIELDS; the names lower-cased into names, cap bytes), the parsed
 * request, its body with it, into *r. The count, or -1 when the text is not
 * HTTP/1.1 (and s has failed). */
long eng_script_fields(conn *c, slot *s, const pc_request *q, const char *scheme, h1req_field *f,
                       char *names, size_t cap, h1req_parsed *r);
/* The response's Server header (only asked for until one is known). */
void eng_server(conn *c, const char *v, size_t n);
bool eng_want_server(const conn *c);
/* s failed; its outcome is `kind`. Frees s. */
void eng_failed(conn *c, slot *s, enum pc_err_kind kind, const char *why, uint64_t now);
/* The server did not process s (REFUSED_STREAM, GOAWAY, Connection: close
 * with requests behind): send it again on another connection, keeping its
 * intended time, a bounded number of times. Frees s. */
void eng_refused(conn *c, slot *s, const char *why, uint64_t now);
/* The connection failed: every request in flight gets `kind`; reconnect. */
void eng_conn_fail(conn *c, enum pc_err_kind kind, const char *why, uint64_t now);
/* Close the connection (nothing in flight), and open a new one. */
void eng_conn_recycle(conn *c, uint64_t now);
/* Take no new request on c; reopen it once its last response is in. */
void eng_drain(conn *c);
/* n bytes of requests went out. */
void eng_written(conn *c, size_t n);
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
void eng_close_after(conn *c, const slot *s, uint64_t n, int why);
/* The server closed a connection with nothing in flight: an idle close,
 * unless a response or GOAWAY had announced it (c draining). */
void eng_idle_closed(conn *c);
/* n response body bytes arrived. */
void eng_body(conn *c, uint64_t n);
/* n body bytes of s's response came (HTTP/2, HTTP/3; s NULL: a stream no
 * slot waits on, only counted): counted, its first byte noted, and kept in
 * b (the slot's buffer for response(), NULL: none) up to the response cap.
 * 0, or -ENOMEM when b could not take them. */
int eng_body_data(conn *c, slot *s, sbuf *b, const char *p, size_t n, uint64_t now);
/* Append one response header to b as "name\0value\0" for response(), up
 * to the response cap (b NULL, or a NUL in either: nothing). 0 or -ENOMEM. */
int eng_header_pair(conn *c, sbuf *b, const char *n, size_t nl, const char *v, size_t vl);
/* The first byte of s's response arrived. */
void eng_first_byte(conn *c, slot *s, uint64_t now);
/* Want (or not) to be told when the socket is writable. */
void eng_want_write(conn *c, bool on);
/* Count response header bytes (as received, and decoded). */
void eng_headers(conn *c, uint64_t wire, uint64_t decoded);
/* Count an HTTP/2 event (RST_STREAM received, REFUSED_STREAM, GOAWAY). */
enum { H2EV_RST, H2EV_REFUSED, H2EV_GOAWAY, H2EV_CONN };
void eng_h2_event(conn *c, int ev);
/* Wake the protocol's expire at `when` (0: no timer). One per connection,
 * each call replacing the last. */
void eng_timer(conn *c, uint64_t when);
/* The handshake a protocol runs itself (QUIC's TLS) is done: counted and
 * timed as a TLS handshake, from the socket's connect. */
void eng_tls_done(conn *c, uint64_t now, bool resumed, const char *version, const char *cipher);
/* That handshake ran past --connect-timeout: a connect timeout, why
 * (NULL: "connect timed out (QUIC handshake)"). */
void eng_connect_timeout(conn *c, const char *why, uint64_t now);
/* A QUIC connection's figures since its last report; end: it ends (the
 * RTTs are then its last). */
typedef struct eng_quic_stat {
    uint64_t sent, received, lost, pto; /* datagrams, datagrams, packets declared lost, PTOs */
    uint64_t srtt_ns, min_rtt_ns;       /* 0: no RTT sample */
    bool end;
} eng_quic_stat;
void eng_quic_stats(conn *c, const eng_quic_stat *q);
/* A QUIC event: CONNECTION_CLOSE received (code: its error code, with
 * QEV_APP for an application one), a stream the server reset, GOAWAY. */
enum { QEV_CLOSE, QEV_RESET, QEV_GOAWAY };
#define QEV_APP (1ull << 62)
void eng_quic_event(conn *c, int ev, uint64_t code);

/* ---- what the protocols may read --------------------------------------- */

/* The run's request bytes (HTTP/1.1) and HTTP/2 header list. */
const pc_run *conn_run(const conn *c);
/* Slot index of s in c. */
static inline uint32_t slot_index(const conn *c, const slot *s)
{
    return (uint32_t)(s - c->slots);
}

#endif
