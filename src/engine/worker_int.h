/*
 * worker_int.h - what the parts of a worker share: the pc_worker state and
 * the functions one part calls in another (recorder.c, queue.c, events.c,
 * conn.c, worker.c). Not for use outside src/engine/.
 */
#ifndef PACER_ENGINE_WORKER_INT_H
#define PACER_ENGINE_WORKER_INT_H

#include "engine/worker.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <netdb.h>
#include <unistd.h>

#include <ctype.h>
#include <strings.h>

#include "engine/conn.h"
#include "engine/sched.h"
#include "proto/h1req.h"
#include "util/clock.h"
#include "util/grow.h"

#define MAX_EVENTS 256
#define RBUF_SIZE (256 * 1024)
#define TICK_MAX_NS 100000000ull /* sweep and Req/Sec sample period */
#define BACKOFF_NS 50000000ull   /* wait after a failed connect */
#define RECONNECT_BACKOFF_NS 10000000ull /* first wait after connections fail in a row */
#define CONNECT_IDLE_NS 1000000000ull /* the connect phase ends once none settled for this long */
#define CONNECT_BATCH 64 /* connects started between two looks at what came back */
/* Re-sends of a request the server refused: at most MAX_RETRIES after
 * refusals by connections that had answered nothing (a server that
 * processes nothing), MAX_RETRIES_ALL in all (one that answers others: a
 * GOAWAY refuses up to -m - 1 streams, and the re-send can land on another
 * connection about to go away, as often as not against a server that
 * ends each connection after a few requests). */
#define MAX_RETRIES 3
#define MAX_RETRIES_ALL 15

enum { P_CONNECT, P_RUN, P_DRAIN, P_DONE };

typedef struct resend {
    uint64_t intended;
    uint32_t tmpl;
    uint8_t retries;      /* times refused */
    uint8_t idle_refusals; /* of them, by a connection that had answered nothing */
} resend;

/* What queue.c keeps (queue_init, queue_free); the others only read a
 * length. */
typedef struct pc_queue {
    uint32_t *rq; /* ready queue of connection indexes (open loop) */
    uint32_t rq_head, rq_len;
    /* Due requests waiting for a connection, one queue per origin (one
     * origin: one queue): re-sends at the front, then the schedule's
     * requests as they are taken out of k_disp..k_due. */
    resend **oq;
    uint32_t *oq_head, *oq_len, *oq_cap;
    uint64_t oq_total;
    uint32_t *first_tmpl; /* per origin: one of its templates */
} pc_queue;

struct pc_worker {
    pc_run *run;
    const pc_config *cfg;
    uint32_t index;
    int epfd, tfd;
    bool use_pwait2;
    uint64_t tfd_armed;
    conn *conns;
    uint32_t nconns, depth;
    slot *slot_mem;
    uint32_t *idx_mem;
    char *rbuf;
    uint32_t pref_addr;

    bool open_loop;
    sched sc;
    uint64_t k_disp, k_due, k_end, k_meas;
    uint64_t measure_start, end, stop, drain_end;
    int phase;
    bool warm_reset;
    uint64_t tick_ns, next_tick, rps_t, rps_completed;
    uint32_t inflight, settled;
    _Atomic uint32_t pub_opened, pub_settled; /* st.connects, settled: the main thread's copy */
    uint64_t warm_outcomes, stopped_ns;
    uint64_t last_done;  /* time of the last measured response */
    bool script_stop;    /* thread:stop() or a script error ended this thread */
    _Atomic bool done;   /* the run loop has ended (or the worker was seized) */
    bool seized;         /* taken over by the main thread while stuck in Lua */
    uint64_t quota;   /* -n: requests this thread creates in all, 0 = no limit */
    uint64_t created; /* requests created (closed loop) */
    uint64_t rr;      /* round-robin position over the templates */
    uint32_t opening; /* connections opening or open without a request yet */
    uint32_t retired; /* connections ended by GOAWAY and not reopened (h2load) */
    uint32_t starting; /* inside conn_start (a connect that fails there is retried later) */
    pc_reqsrc src;    /* where requests come from: the templates, or a script */
    const char *text_ok; /* the source's lasting request text, checked (eng_request) */
    uint64_t next_wake; /* earliest entry of due (a timer or delay()), 0 = none */
    pc_heap due;        /* the connections' deadlines (wake.c) */
    uint32_t wake_pass; /* wake_due calls so far */
    pc_queue q;       /* queue.c's: connections with room, requests waiting */
    pc_addr *addrs;   /* where to connect (the run's, or setup()'s thread.addr) */
    uint32_t naddrs;
    pc_addr own_addr;
    uint64_t rng;     /* xorshift state for --mix random */
    pc_stats st;
    http_env env;          /* what its protocols read (set_env) */
    pc_interval *iv;       /* the interval being recorded (NULL: none) */
    uint64_t iv_end;       /* its nominal end */
    pthread_mutex_t mb;    /* guards the two lists below */
    pc_interval *iv_ready; /* finished intervals for the main thread, oldest first */
    pc_interval *iv_free;  /* reusable ones it handed back */
    uint64_t *ns_due;      /* never-sent requests by the interval they were due in */
    uint32_t ns_n;         /* entries in ns_due */
    uint64_t woke;         /* when the events being handled were returned (0: none) */
    uint64_t wait_start;   /* when this thread last began to wait for events */
    bool rx_untimed;       /* a connection's reads lack the kernel's receive time */
    uint64_t cpu0, wall0;  /* the thread's CPU time and the time when measuring began */
    int64_t rdelay0;       /* ... and its run delay then (-1: the kernel does not say) */
    uint64_t tick_cpu, tick_wall; /* the same at the last tick (the adaptive slack's) */
    uint64_t slack;        /* how late a due request may be sent now (pace.c) */
    uint64_t slack_prev;   /* the adaptive slack before its last step */
    double cost_prev;      /* CPU ns per response before that step */
    uint64_t tick_done;    /* responses counted at the last tick */
    uint32_t slack_hold;   /* ticks before the next step up may be tried */
    uint64_t spun_ns;      /* CPU time spent polling out --spin (not work: pace.c) */
    char err[256];
};


/* A request intended before the measured period: the warm-up's. */
static inline bool warm(const pc_worker *w, uint64_t intended)
{
    return intended < w->measure_start;
}

/* Requests due and not yet on a connection. */
static inline uint64_t queue_backlog_len(const pc_worker *w)
{
    return (w->k_due - w->k_disp) + w->q.oq_total;
}

/* conn.c */
int conn_connect_to(pc_worker *w, const char *addr); /* "ip:port": its connections go there */
void conn_after_io(conn *c, uint64_t now);
/* conn.c: c is readable: read (or drop, a body nobody reads) and hand the
 * bytes to its protocol, then refill. */
void conn_readable(conn *c);
void conn_close(conn *c);
void conn_start(conn *c, uint64_t now);
void conn_connect_failed(conn *c, const char *why, uint64_t now);
void conn_handshake(conn *c, uint64_t now);
/* The connection failed: every request in flight gets `kind`; reconnect
 * (eng_conn_fail, for the engine's own callers). */
void conn_fail(conn *c, enum pc_err_kind kind, const char *why, uint64_t now);
/* Close the connection (nothing in flight), and open a new one. */
void conn_recycle(conn *c, uint64_t now);
void conn_tcp_connected(conn *c, uint64_t now);
/* events.c: take the kernel's send stamps waiting for c (net_tx_stamps)
 * and give each request they cover its wire time: how many came, or
 * -errno. */
int conn_tx_collect(conn *c);

/* c is counted among the worker's connections opening (no request yet),
 * or no longer. Shared state kept in step, so inline: conn.c opens,
 * queue.c hands the first request. */
static inline void conn_opening(conn *c, bool on)
{
    if (c->opening != on) {
        c->opening = on;
        if (on)
            c->w->opening++;
        else
            c->w->opening--;
    }
}

/* The thread's source has nothing more to send (thread:stop(), a script
 * error). */
static inline bool src_stopped(const pc_worker *w)
{
    return w->src.ops->stopped && w->src.ops->stopped(w->src.self);
}

/* pace.c */
void pace_start(pc_worker *w, uint64_t now); /* the run begins: the slack's start */
void pace_begin(pc_worker *w, uint64_t now); /* the measured period begins: busy from here */

/* The measured period starts: forget what the warm-up measured. Called
 * before anything is counted at or after measure_start (an event, the run
 * loop's turn, a request created, bytes read), so nothing of the measured
 * period is lost; per-request outcomes of warm-up requests never reach the
 * statistics anyway (see warm()). */
void rec_warmup_end(pc_worker *w, uint64_t now); /* wake.c: every connection's protocol timer and delay() wake-up, in w->due.
 * wake_timer and wake_delay set c's (0: none). A pass over what is due:
 * wake_begin, then wake_next until NULL, each call handing due protocol
 * timers to their protocol (expire) and returning the next connection
 * whose delay() is over (the caller sends its requests: worker.c). */
int wake_init(pc_worker *w); /* 0 or -ENOMEM */
void wake_timer(conn *c, uint64_t when);
void wake_delay(conn *c, uint64_t when);
void wake_begin(pc_worker *w);
conn *wake_next(pc_worker *w, uint64_t now);

/* recorder.c */
static inline void check_warmup(pc_worker *w, uint64_t now)
{
    if (!w->warm_reset && w->phase == P_RUN && now >= w->measure_start)
        rec_warmup_end(w, now);
}
void pace_end(pc_worker *w, uint64_t now);
void pace_tick(pc_worker *w, uint64_t now);
/* Wait for events until deadline; with a slack, not before the slack
 * after the pass that began at `pass` (a sleep no socket cuts short). */
int pace_wait(pc_worker *w, struct epoll_event *ev, uint64_t deadline, uint64_t pass);
/* When the bytes just read on c came (the kernel's receive time where the
 * transport has it), within [the thread's last wait start, now]. */
uint64_t pace_came_at(const pc_worker *w, const conn *c, uint64_t now);

/* queue.c */
int queue_init(pc_worker *w); /* after w->run, nconns and depth: < 0, no memory */
void queue_free(pc_worker *w);
resend queue_take(pc_worker *w);
bool queue_take_for(pc_worker *w, uint32_t origin, resend *r, uint64_t now);
void queue_closed_fill(conn *c, uint64_t now);
/* The run ends: what still waits was never sent (recorded through rec_never_sent). */
void queue_drain(pc_worker *w, uint64_t now);
void queue_dispatch(pc_worker *w); /* each send stamped with the time it is written */
bool queue_has_room(const conn *c);
int queue_push(pc_worker *w, resend r, bool front);
uint32_t queue_pick_tmpl(pc_worker *w);
uint32_t queue_pick_tmpl_for(pc_worker *w, uint32_t origin);
void queue_ready_push(conn *c);
void queue_slot_release(conn *c, slot *s);
pc_reqsrc queue_tmpl_source(const pc_run *run);

/* recorder.c */
void rec_latency(pc_worker *w, int64_t corrected, int64_t uncorrected);
void rec_done(pc_worker *w, const slot *s, uint64_t now, int status, uint64_t body);
void rec_failed(pc_worker *w, const slot *s, int kind, uint64_t now);
/* n never-sent requests of one stage, row and interval, as queue.c hands them. */
void rec_never_sent(pc_worker *w, uint64_t intended, int64_t lat, int64_t last, uint64_t n);
int64_t rec_latency_floor(const pc_worker *w, int64_t lat);
void rec_interrupted(pc_worker *w, const slot *s);

#endif
