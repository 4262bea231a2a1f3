/*
 * serve_worker.c - one worker thread of `pacer serve`: an edge-triggered
 * epoll loop over its listener and its connections.
 *
 * Responses are never copied: each connection keeps a ring of pending
 * responses that point into the prebuilt headers and the shared body, and
 * sends them with one sendmsg per batch. The ring is the bounded output
 * buffer: when it is full the connection is not read (or parsed) any more
 * until it drains, so a client that pipelines faster than it reads is held
 * back by TCP instead of by server memory.
 *
 * --delay and --capacity give each response a time before which it is not
 * sent. Those times never decrease within a connection, so pipelined
 * responses stay in order by sending the ring strictly front to back; a
 * per-thread min-heap of connections (util/heap.h), keyed by the time
 * their first pending response becomes due, drives one timerfd.
 */
#include "serve/serve_int.h"
#include "util/clock.h"
#include "util/heap.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <unistd.h>

#define RING 64                 /* pending responses per connection */
#define ACCEPT_MAX 65536        /* accepts per wakeup: a full queue (BACKLOG), bounded */
#define MAX_EVENTS 256
#define CHUNK_LINE_MAX 4096     /* chunk size plus extensions */
#define ROUNDS_MAX 32           /* read/parse/send rounds per turn (fairness) */
#define LINGER_NS 2000000000ull /* how long a closing connection is drained */
#define ACCEPT_RETRY_NS 100000000ull

/* epoll data for the fds that are not connections (whose data is a
 * pointer, never this small). */
enum { TAG_STOP = 1, TAG_LISTEN, TAG_TIMER };

enum parse_state {
    ST_HEAD,        /* reading a request head */
    ST_BODY,        /* discarding a Content-Length body */
    ST_CHUNK_SIZE,  /* reading a chunk-size line */
    ST_CHUNK_DATA,  /* discarding chunk data */
    ST_CHUNK_END,   /* the CRLF after chunk data */
    ST_TRAILER,     /* trailer lines up to the blank line */
};

struct out_item {
    const char *hdr;
    const char *body;
    size_t hdr_len;
    size_t body_len;
    uint64_t ready_ns; /* not sent before this time; 0: at once */
};

struct conn {
    int fd;
    uint8_t state;      /* enum parse_state */
    bool can_read;      /* edge seen and the socket not drained yet */
    bool read_eof;      /* the client shut down its side */
    bool closing;       /* no more requests: close once the ring drains */
    bool lingering;     /* shut down our side, discarding input until EOF */
    bool linger_wait;   /* the client may still be sending: wait for EOF */
    bool in_again;      /* on the loop's list to resume next turn */
    /* The request being read, answered once its body is consumed. */
    uint16_t req_status;
    uint8_t req_mode;   /* enum serve_conn_mode */
    bool req_head;
    uint64_t body_left;
    /* Input: unparsed bytes are in[in_off..in_len); scan is how far past
     * in_off a line search already looked. */
    uint32_t in_off, in_len, scan;
    /* Output ring: out_sent bytes of the first item are already sent. */
    uint32_t out_head, out_count;
    size_t out_sent;
    pc_heap_node hn; /* in the loop's heap while a deadline is set */
    uint64_t linger_deadline;
    struct conn *prev, *next; /* live list; next also links free/dead */
    struct conn *again_next;
    struct out_item ring[RING];
    char in[SERVE_MAX_HEAD];
};

struct serve_loop {
    struct serve_worker *w;
    const struct serve_shared *sh;
    int epfd, timerfd;
    bool sched;            /* --delay or --capacity in effect */
    uint64_t next_slot;    /* --capacity: earliest time of the next response */
    uint64_t armed;        /* absolute expiry the timerfd is set to; 0: none */
    bool accept_paused;    /* out of fds: listener off until accept_resume */
    uint64_t accept_resume;
    struct conn *live;     /* open connections */
    struct conn *free_list;
    struct conn *dead;     /* closed this turn; reused only after it */
    struct conn *again;    /* ran out of rounds; resume next turn */
    size_t nlive;
    pc_heap heap;          /* connections by deadline (util/heap.h): room for
                            * every live one is reserved as it opens */
};

/* The time a response to a request completed now may be sent. --capacity
 * hands out send slots interval_ns apart in arrival order (first come,
 * first served, no credit for idle time); --delay is added after. Both keep
 * the result non-decreasing, which keeps pipelined responses in order. */
static uint64_t ready_time(struct serve_loop *lp)
{
    uint64_t t;

    if (!lp->sched)
        return 0;
    t = pc_now_ns();
    if (lp->sh->interval_ns) {
        if (lp->next_slot < t)
            lp->next_slot = t;
        t = lp->next_slot;
        lp->next_slot += lp->sh->interval_ns;
    }
    return t + lp->sh->delay_ns;
}

/* Queue a response; the caller checked the ring has room (can_parse). */
static void push(struct conn *c, const char *hdr, size_t hdr_len, const char *body,
                 size_t body_len, uint64_t ready_ns)
{
    struct out_item *it = &c->ring[(c->out_head + c->out_count) % RING];

    it->hdr = hdr;
    it->hdr_len = hdr_len;
    it->body = body;
    it->body_len = body_len;
    it->ready_ns = ready_ns;
    c->out_count++;
}

/* The request (head and body) is fully read: queue its response, due at
 * ready_time(), with the header prebuilt for its status and Connection. */
static void finish_request(struct serve_loop *lp, struct conn *c)
{
    const struct serve_responses *r = lp->sh->resp;
    int i = c->req_status - SERVE_STATUS_MIN;
    size_t body_len = c->req_head ? 0 : r->body_len[i];

    push(c, r->hdr[i][c->req_mode], r->hdr_len[i][c->req_mode], lp->sh->body, body_len,
         ready_time(lp));
    lp->w->requests++;
    if (c->req_mode == SERVE_CLOSE)
        c->closing = true;
    c->state = ST_HEAD;
    c->scan = 0;
}

/* 400 and close. It goes after the responses already queued; the bytes
 * left unparsed make the close linger so the client gets to read it. */
static void bad_request(struct conn *c)
{
    push(c, serve_resp_400, serve_resp_400_len, NULL, 0, 0);
    c->closing = true;
}

/* Whether the ring has room for what the next parsing step may queue: a
 * new request may need "100 Continue" and its response. */
static bool can_parse(const struct conn *c)
{
    return !c->closing && c->out_count + (c->state == ST_HEAD ? 2u : 1u) <= RING;
}

/* A request head is complete at p[0..end): note how to answer it and what
 * body follows. */
static void start_request(struct serve_loop *lp, struct conn *c, const char *p, size_t end)
{
    struct serve_req req;

    if (serve_http_parse_head(p, end, &req) < 0) {
        bad_request(c);
        return;
    }
    c->in_off += (uint32_t)end;
    c->req_status = (uint16_t)req.status;
    c->req_head = req.head;
    c->req_mode = !req.keep_alive ? SERVE_CLOSE : req.http10 ? SERVE_KEEP10 : SERVE_KEEP;
    if (req.chunked) {
        c->state = ST_CHUNK_SIZE;
    } else if (req.content_length > 0) {
        c->state = ST_BODY;
        c->body_left = req.content_length;
    } else {
        finish_request(lp, c);
        return;
    }
    if (req.expect_continue)
        push(c, serve_resp_100, serve_resp_100_len, NULL, 0, 0);
}

/* Consume what the input buffer holds: complete requests are answered in
 * order, bodies and trailers discarded. Stops when more bytes are needed,
 * the ring is full, or the connection is closing. Every way the buffer
 * could fill up without progress is a 400, so a read always has room. */
static void conn_parse(struct serve_loop *lp, struct conn *c)
{
    while (can_parse(c)) {
        const char *p = c->in + c->in_off;
        size_t avail = c->in_len - c->in_off, n, end, scan;
        uint64_t size;

        switch (c->state) {
        case ST_HEAD:
            /* RFC 9112 2.2: ignore empty lines before a request line. */
            while (avail > 0 && (p[0] == '\n' || (p[0] == '\r' && avail > 1 && p[1] == '\n'))) {
                n = p[0] == '\n' ? 1 : 2;
                p += n;
                avail -= n;
                c->in_off += (uint32_t)n;
                c->scan = 0;
            }
            if (avail == 0)
                return;
            scan = c->scan;
            if (!serve_http_head_end(p, avail, &scan, &end)) {
                c->scan = (uint32_t)scan;
                if (avail >= SERVE_MAX_HEAD) {
                    bad_request(c);
                    continue;
                }
                return;
            }
            c->scan = 0;
            start_request(lp, c, p, end);
            break;
        case ST_BODY:
        case ST_CHUNK_DATA:
            if (avail == 0)
                return;
            n = avail < c->body_left ? avail : (size_t)c->body_left;
            c->in_off += (uint32_t)n;
            c->body_left -= n;
            if (c->body_left == 0) {
                if (c->state == ST_BODY)
                    finish_request(lp, c);
                else
                    c->state = ST_CHUNK_END;
            }
            break;
        case ST_CHUNK_END:
            if (avail == 0 || (p[0] == '\r' && avail < 2))
                return;
            if (p[0] == '\n') {
                n = 1;
            } else if (p[0] == '\r' && p[1] == '\n') {
                n = 2;
            } else {
                bad_request(c);
                continue;
            }
            c->in_off += (uint32_t)n;
            c->state = ST_CHUNK_SIZE;
            break;
        case ST_CHUNK_SIZE:
        case ST_TRAILER: {
            size_t limit = c->state == ST_CHUNK_SIZE ? CHUNK_LINE_MAX : SERVE_MAX_HEAD - 1;
            const char *nl = memchr(p + c->scan, '\n', avail - c->scan);

            if (!nl) {
                c->scan = (uint32_t)avail;
                if (avail <= limit)
                    return;
                bad_request(c);
                continue;
            }
            n = (size_t)(nl - p);
            c->scan = 0;
            if (c->state == ST_CHUNK_SIZE) {
                if (n > limit || serve_http_chunk_size(p, n, &size) < 0) {
                    bad_request(c);
                    continue;
                }
                c->in_off += (uint32_t)(n + 1);
                if (size == 0) {
                    c->state = ST_TRAILER;
                } else {
                    c->state = ST_CHUNK_DATA;
                    c->body_left = size;
                }
            } else {
                c->in_off += (uint32_t)(n + 1);
                if (n == 0 || (n == 1 && p[0] == '\r'))
                    finish_request(lp, c);
            }
            break;
        }
        default:
            bad_request(c);
            break;
        }
    }
}

/* One recv into the input buffer, compacting it first. Returns the bytes
 * read, 0 when there is nothing more for now (EAGAIN, or EOF noted in
 * read_eof), or -errno. A short read means the socket is drained: with
 * edge-triggered epoll any later data raises a new event. */
static int conn_read(struct conn *c)
{
    size_t space;
    ssize_t n;

    if (c->in_off > 0) {
        memmove(c->in, c->in + c->in_off, c->in_len - c->in_off);
        c->in_len -= c->in_off;
        c->in_off = 0;
    }
    space = SERVE_MAX_HEAD - c->in_len;
    if (space == 0)
        return -ENOBUFS; /* conn_parse rules this out */
    do
        n = recv(c->fd, c->in + c->in_len, space, 0);
    while (n < 0 && errno == EINTR);
    if (n > 0) {
        c->in_len += (uint32_t)n;
        if ((size_t)n < space)
            c->can_read = false;
        return (int)n;
    }
    c->can_read = false;
    if (n == 0) {
        c->read_eof = true;
        return 0;
    }
    return (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -errno;
}

/* Send the due responses at the front of the ring, in as few sendmsg
 * calls as the socket allows. Stops at the first response not due yet
 * (returns 0) or at EAGAIN (returns 1; the edge-triggered EPOLLOUT resumes
 * it). Returns -errno for a connection to close. */
static int conn_flush(struct conn *c)
{
    uint64_t now = 0;

    while (c->out_count > 0) {
        struct iovec iov[2 * RING];
        struct msghdr msg;
        size_t left;
        ssize_t r;
        int n = 0;

        for (uint32_t k = 0; k < c->out_count; k++) {
            const struct out_item *it = &c->ring[(c->out_head + k) % RING];
            size_t o = k == 0 ? c->out_sent : 0;

            if (it->ready_ns) {
                if (!now)
                    now = pc_now_ns();
                if (it->ready_ns > now)
                    break;
            }
            if (o < it->hdr_len) {
                iov[n].iov_base = (void *)(it->hdr + o);
                iov[n++].iov_len = it->hdr_len - o;
                o = 0;
            } else {
                o -= it->hdr_len;
            }
            if (o < it->body_len) {
                iov[n].iov_base = (void *)(it->body + o);
                iov[n++].iov_len = it->body_len - o;
            }
        }
        if (n == 0)
            return 0;
        memset(&msg, 0, sizeof msg);
        msg.msg_iov = iov;
        msg.msg_iovlen = (size_t)n;
        r = sendmsg(c->fd, &msg, MSG_NOSIGNAL);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return (errno == EAGAIN || errno == EWOULDBLOCK) ? 1 : -errno;
        }
        /* Retire what went out; a partial write loops once more so that
         * EAGAIN, which arms the EPOLLOUT edge, is what stops us. */
        left = (size_t)r;
        while (left > 0) {
            const struct out_item *it = &c->ring[c->out_head];
            size_t rest = it->hdr_len + it->body_len - c->out_sent;

            if (left < rest) {
                c->out_sent += left;
                break;
            }
            left -= rest;
            c->out_sent = 0;
            c->out_head = (c->out_head + 1) % RING;
            c->out_count--;
        }
    }
    return 0;
}

/* The struct stays valid until the end of the turn (dead list): events
 * already fetched for it see fd -1 and are skipped. */
static void conn_close(struct serve_loop *lp, struct conn *c)
{
    /* --capacity: responses that will never be sent give their send slots
     * back, so a client that gave up (closed) does not leave a backlog
     * that delays the next client: the queue is of live requests only. */
    if (lp->sh->interval_ns && c->out_count) {
        uint64_t now = pc_now_ns(), unsent = 0;

        for (uint32_t k = 0; k < c->out_count; k++)
            if (c->ring[(c->out_head + k) % RING].ready_ns > now)
                unsent++;
        lp->next_slot -= unsent * lp->sh->interval_ns;
        if (lp->next_slot < now)
            lp->next_slot = now;
    }
    pc_heap_remove(&lp->heap, &c->hn);
    close(c->fd);
    c->fd = -1;
    if (c->prev)
        c->prev->next = c->next;
    else
        lp->live = c->next;
    if (c->next)
        c->next->prev = c->prev;
    lp->nlive--;
    c->next = lp->dead;
    lp->dead = c;
}

/* Close after the last response. Closing a socket with unread input makes
 * the kernel send RST, which can destroy the response before the client
 * reads it; so our side is shut down first and, if the client may still
 * be sending (unparsed bytes, or more arriving), input is discarded until
 * its EOF or LINGER_NS, whichever comes first. */
static void conn_linger(struct serve_loop *lp, struct conn *c)
{
    if (!c->lingering) {
        c->lingering = true;
        c->linger_wait = c->in_len > c->in_off;
        c->linger_deadline = pc_now_ns() + LINGER_NS;
        shutdown(c->fd, SHUT_WR);
    }
    for (int i = 0; i < ROUNDS_MAX; i++) {
        ssize_t n = recv(c->fd, c->in, SERVE_MAX_HEAD, 0);

        if (n > 0) {
            c->linger_wait = true;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
            conn_close(lp, c);
            return;
        }
        break;
    }
    if (!c->linger_wait || pc_now_ns() >= c->linger_deadline) {
        conn_close(lp, c);
        return;
    }
    (void)pc_heap_set(&lp->heap, &c->hn, c->linger_deadline);
}

/* Move a connection forward after an event or a timer: parse what is
 * buffered, read while there is room, send what is due, and repeat while
 * sending made room for more. ROUNDS_MAX bounds one turn so a single fast
 * client cannot starve the others; the rest waits on the again list. */
static void conn_run(struct serve_loop *lp, struct conn *c)
{
    int rounds = 0, blocked = 0;

    if (c->lingering) {
        conn_linger(lp, c);
        return;
    }
    for (;;) {
        bool full;
        int r;

        if (++rounds > ROUNDS_MAX) {
            if (!c->in_again) {
                c->in_again = true;
                c->again_next = lp->again;
                lp->again = c;
            }
            break;
        }
        conn_parse(lp, c);
        if (c->can_read && !c->read_eof && can_parse(c)) {
            r = conn_read(c);
            if (r < 0) {
                conn_close(lp, c);
                return;
            }
            if (r > 0)
                continue;
        }
        full = !c->closing && !can_parse(c);
        blocked = conn_flush(c);
        if (blocked < 0) {
            conn_close(lp, c);
            return;
        }
        if (full && can_parse(c) && (c->in_len > c->in_off || c->can_read))
            continue;
        break;
    }
    if (c->out_count == 0) {
        pc_heap_remove(&lp->heap, &c->hn);
        if (c->closing)
            conn_linger(lp, c);
        else if (c->read_eof)
            conn_close(lp, c);
        return;
    }
    /* Blocked on the socket: EPOLLOUT resumes it. Otherwise the first
     * response was not due when conn_flush looked (it may be by now, in
     * which case the timer loop picks it up at once). */
    if (blocked)
        pc_heap_remove(&lp->heap, &c->hn);
    else
        (void)pc_heap_set(&lp->heap, &c->hn, c->ring[c->out_head].ready_ns);
}

/* Set up an accepted socket, reusing a closed connection's memory (its
 * 64 KiB input buffer included) when there is one. */
static struct conn *conn_open(struct serve_loop *lp, int fd)
{
    struct epoll_event ev;
    struct conn *c = lp->free_list;

    if (pc_heap_reserve(&lp->heap, (uint32_t)lp->nlive + 1) < 0)
        return NULL;
    if (c)
        lp->free_list = c->next;
    else if (!(c = malloc(sizeof *c)))
        return NULL;
    c->fd = fd;
    c->state = ST_HEAD;
    c->can_read = c->read_eof = c->closing = false;
    c->lingering = c->linger_wait = c->in_again = false;
    c->body_left = 0;
    c->in_off = c->in_len = c->scan = 0;
    c->out_head = c->out_count = 0;
    c->out_sent = 0;
    c->hn.idx = PC_HEAP_NONE;
    /* Registered once for both directions, edge-triggered, so the loop
     * never has to modify it (no epoll_ctl per request). */
    ev.events = EPOLLIN | EPOLLOUT | EPOLLET;
    ev.data.ptr = c;
    if (epoll_ctl(lp->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
        c->next = lp->free_list;
        lp->free_list = c;
        return NULL;
    }
    c->prev = NULL;
    c->next = lp->live;
    if (lp->live)
        lp->live->prev = c;
    lp->live = c;
    lp->nlive++;
    return c;
}

static int listener_add(struct serve_loop *lp)
{
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = TAG_LISTEN};

    if (lp->sh->shared_listener)
        ev.events |= EPOLLEXCLUSIVE;
    return epoll_ctl(lp->epfd, EPOLL_CTL_ADD, lp->w->listen_fd, &ev) < 0 ? -errno : 0;
}

/* Out of file descriptors (or kernel memory): a level-triggered listener
 * would report the same pending connection forever, so take it out of the
 * loop for a while instead of spinning. */
static void pause_accept(struct serve_loop *lp)
{
    if (epoll_ctl(lp->epfd, EPOLL_CTL_DEL, lp->w->listen_fd, NULL) == 0) {
        lp->accept_paused = true;
        lp->accept_resume = pc_now_ns() + ACCEPT_RETRY_NS;
    }
}

/* Accept what is pending, until the queue is empty (EAGAIN): a client
 * that opens 18,000 connections at once fills the queue faster than one
 * batch per wakeup empties it, and the kernel drops the SYNs that find it
 * full. A listener shared by several threads takes one connection per
 * wakeup so that EPOLLEXCLUSIVE spreads them out. */
static void do_accept(struct serve_loop *lp)
{
    int batch = lp->sh->shared_listener ? 1 : ACCEPT_MAX;

    for (int i = 0; i < batch; i++) {
        int one = 1;
        int fd = accept4(lp->w->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

        if (fd < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return;
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                pause_accept(lp);
                return;
            }
            continue; /* ECONNABORTED and the like: that one is gone */
        }
        if (lp->sh->tcp)
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (!conn_open(lp, fd)) {
            close(fd);
            continue;
        }
        lp->w->connections++;
    }
}

/* Resume the connections whose first response (or linger deadline) is
 * due, and the listener after an fd shortage. */
static void run_timers(struct serve_loop *lp)
{
    pc_heap_node *n;
    uint64_t now;

    if (!lp->heap.len && !lp->accept_paused)
        return;
    now = pc_now_ns();
    if (lp->accept_paused && now >= lp->accept_resume && listener_add(lp) == 0)
        lp->accept_paused = false;
    while ((n = pc_heap_top(&lp->heap)) && n->key <= now) {
        struct conn *c = PC_HEAP_ENTRY(n, struct conn, hn);

        pc_heap_remove(&lp->heap, n);
        conn_run(lp, c);
    }
}

/* Point the timerfd at the earliest deadline, with a syscall only when
 * that changed. */
static int rearm(struct serve_loop *lp)
{
    struct itimerspec its;
    uint64_t want = lp->heap.len ? pc_heap_top(&lp->heap)->key : 0;

    if (lp->accept_paused && (!want || lp->accept_resume < want))
        want = lp->accept_resume;
    if (want == lp->armed)
        return 0;
    memset(&its, 0, sizeof its);
    its.it_value.tv_sec = (time_t)(want / 1000000000u);
    its.it_value.tv_nsec = (long)(want % 1000000000u);
    if (timerfd_settime(lp->timerfd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
        return -errno;
    lp->armed = want;
    return 0;
}

/* Everything a worker needs that can fail is made here, on the calling
 * thread, so a failure is reported before the server says it listens. */
int serve_worker_init(struct serve_worker *w)
{
    struct serve_loop *lp = calloc(1, sizeof *lp);
    struct epoll_event ev = {.events = EPOLLIN};
    int rc = 0;

    if (!lp)
        return -ENOMEM;
    w->loop = lp;
    lp->w = w;
    lp->sh = w->sh;
    lp->sched = w->sh->delay_ns > 0 || w->sh->interval_ns > 0;
    lp->timerfd = -1;
    lp->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (lp->epfd < 0) {
        rc = -errno;
        goto out;
    }
    lp->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (lp->timerfd < 0) {
        rc = -errno;
        goto out;
    }
    ev.data.u64 = TAG_STOP;
    if (epoll_ctl(lp->epfd, EPOLL_CTL_ADD, w->sh->stop_fd, &ev) < 0) {
        rc = -errno;
        goto out;
    }
    ev.data.u64 = TAG_TIMER;
    if (epoll_ctl(lp->epfd, EPOLL_CTL_ADD, lp->timerfd, &ev) < 0) {
        rc = -errno;
        goto out;
    }
    rc = listener_add(lp);
out:
    if (rc < 0)
        serve_worker_fini(w);
    return rc;
}

/* The thread: until the stop eventfd is readable, handle events, then
 * the again list, then due timers, then recycle what closed this turn. */
void *serve_worker_run(void *arg)
{
    struct serve_worker *w = arg;
    struct serve_loop *lp = w->loop;
    struct epoll_event ev[MAX_EVENTS];
    bool stop = false;

    while (!stop) {
        int n = epoll_wait(lp->epfd, ev, MAX_EVENTS, lp->again ? 0 : -1);
        struct conn *c, *next;

        if (n < 0) {
            if (errno == EINTR)
                continue;
            eventfd_write(lp->sh->fail_fd, 1);
            break;
        }
        for (int i = 0; i < n; i++) {
            uint64_t tag = ev[i].data.u64;

            if (tag == TAG_STOP) {
                stop = true;
            } else if (tag == TAG_LISTEN) {
                do_accept(lp);
            } else if (tag == TAG_TIMER) {
                uint64_t expirations;

                if (read(lp->timerfd, &expirations, sizeof expirations) > 0)
                    lp->armed = 0;
            } else {
                c = ev[i].data.ptr;
                if (c->fd < 0)
                    continue; /* closed earlier in this batch */
                if (ev[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))
                    c->can_read = true;
                conn_run(lp, c);
            }
        }
        /* Connections that used up their rounds last turn. Anything closed
         * this turn is still allocated (fd -1) until the dead list below
         * is recycled, so the list never points at reused memory. */
        c = lp->again;
        lp->again = NULL;
        for (; c; c = next) {
            next = c->again_next;
            c->in_again = false;
            if (c->fd >= 0)
                conn_run(lp, c);
        }
        run_timers(lp);
        if (rearm(lp) < 0) {
            eventfd_write(lp->sh->fail_fd, 1);
            break;
        }
        while ((c = lp->dead) != NULL) {
            lp->dead = c->next;
            c->next = lp->free_list;
            lp->free_list = c;
        }
    }
    return NULL;
}

static void free_conns(struct conn *c)
{
    while (c) {
        struct conn *next = c->next;

        free(c);
        c = next;
    }
}

void serve_worker_fini(struct serve_worker *w)
{
    struct serve_loop *lp = w->loop;
    struct conn *c;

    if (!lp)
        return;
    for (c = lp->live; c; c = c->next)
        close(c->fd);
    free_conns(lp->live);
    free_conns(lp->dead);
    free_conns(lp->free_list);
    pc_heap_free(&lp->heap);
    if (lp->timerfd >= 0)
        close(lp->timerfd);
    if (lp->epfd >= 0)
        close(lp->epfd);
    free(lp);
    w->loop = NULL;
}
