/*
 * conn.h - the engine's connection state. What a protocol sees of it (the
 * slots, the transport, its own state) is its first member, http_conn
 * (http/http.h: the seam between the engine and the protocols, whose eng_*
 * calls the engine defines in events.c and conn.c). Internal to
 * src/engine/.
 */
#ifndef PACER_ENGINE_CONN_H
#define PACER_ENGINE_CONN_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/sched.h"
#include "engine/worker.h"
#include "http/http.h"
#include "proto/h1req.h"
#include "util/heap.h"

typedef struct conn conn;

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
    http_conn h;        /* what its protocol sees: first, so conn_of finds the rest */
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
    uint64_t done_total; /* measured responses over all its reconnections */
    uint32_t fails;      /* connections in a row that ended in an error before a response */
    uint32_t addr_idx, tries; /* address in use; addresses tried in this round */
    uint32_t timer_pass; /* the wake_due pass that last expired its timer */
    bool last_try;      /* this failure would be the same on any address: back off */
    bool fresh;         /* no request sent on this connection yet */
    bool opening;       /* counted in the worker's `opening` (no request yet) */
    uint64_t t_start; /* connect started; in CS_BACKOFF: retry time */
    uint64_t t_tcp;   /* TCP connected */
    uint32_t *free_idx; /* stack of unused slot indexes */
    uint32_t nfree;
    uint64_t *spoke;    /* the protocol counter (pc_stats h1_conns, h2_conns) it was counted
                         * in when it opened: rec_warmup_end counts it again (NULL: none yet) */
    uint64_t conn_time; /* how long connecting (TCP + TLS) took */
    uint64_t wake_at;   /* delay(): no request before this time (0: none) */
    uint64_t timer_at;  /* the protocol's eng_timer: call expire then (0: none) */
    pc_heap_node timer_hn, wake_hn; /* timer_at's and wake_at's entries in w->due (wake.c) */
    /* The batch a connection sends at once (--pipeline, --batch-latency):
     * the first one's intended time, and when its first byte went out. */
    uint64_t batch_intended; /* (h.batch_sent: when its first byte went out) */
    char *carry; /* input the protocol left unconsumed, kept across reads */
    uint32_t carry_len, carry_cap;
    const proto_ops *ps_of;   /* whose state h.ps is (proto_ops.state_new) */
};

enum { CS_CLOSED, CS_CONNECTING, CS_HANDSHAKE, CS_READY, CS_BACKOFF,
       CS_RETIRED /* ended by the server's GOAWAY, never reopened (h2load) */ };

/* The engine's connection a protocol's http_conn belongs to. */
static inline conn *conn_of(http_conn *h)
{
    return (conn *)h; /* its first member */
}

/* Slot index of s in c. */
static inline uint32_t slot_index(const conn *c, const slot *s)
{
    return http_slot_index(&c->h, s);
}

#endif
