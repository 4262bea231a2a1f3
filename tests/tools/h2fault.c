/*
 * h2fault - a cleartext HTTP/2 (h2c, prior knowledge) test server that
 * misbehaves on demand. Single-threaded, epoll, nghttp2 server sessions.
 *
 *   h2fault --port 0 [--mode MODE] [--every N] [--max-streams N]
 *           [--delay D_MS] [--size BYTES] [--stats FILE]
 *
 * Listens on 127.0.0.1 only; the first stdout line is
 * "h2fault: listening on http://127.0.0.1:PORT/". Runs until SIGTERM/SIGINT,
 * then prints the stats line to stderr and exits 0:
 *   h2fault: requests=R connections=C max_concurrent=M violations=V
 *            goaways=G rsts=S refused=F            (one line)
 * With --stats FILE the same line is also kept in FILE (rewritten through a
 * rename once the server has been idle for 1 ms after a change, at least
 * every 100 ms under load, and at exit).
 *
 * Modes: ok, goaway, goaway0, rst, refuse, max1, nowindow, stall, winupdate0,
 * bigframe, http1, nostatus, clen-short, clen-long, badclen, badname (see usage()).
 */
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <nghttp2/nghttp2.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tool_util.h"

#define MAX_CONNS 1024          /* more are accepted and closed at once */
#define MAX_OPEN_PER_CONN 10000 /* streams beyond it get REFUSED_STREAM */
#define OUT_HIGH (64 * 1024)    /* stop serializing / reading above this */
#define DRAIN_MS 1000           /* linger after our FIN before close() */

enum mode { M_OK, M_GOAWAY, M_RST, M_REFUSE, M_MAX1, M_NOWINDOW, M_STALL, M_WINUPDATE0,
            M_BIGFRAME, M_HTTP1, M_GOAWAY0, M_NOSTATUS, M_CLEN_SHORT, M_CLEN_LONG, M_BADCLEN,
            M_BADNAME };
static const char *const mode_names[] = {"ok", "goaway", "rst", "refuse", "max1",
                                         "nowindow", "stall", "winupdate0", "bigframe",
                                         "http1", "goaway0", "nostatus", "clen-short",
                                         "clen-long", "badclen", "badname"};

static struct {
    enum mode mode;
    uint64_t every, size;
    int64_t max_streams, delay_ms; /* -1: not given */
    const char *stats_path;
    unsigned port;
    int64_t rst_code; /* the error code rst / goaway0 send; -1: the mode's default */
} cfg = {M_OK, 0, 100, -1, -1, NULL, 0, -1};

static struct {
    uint64_t requests, connections, max_concurrent, violations, goaways, rsts, refused;
} stats;
static int stats_dirty;
static int64_t stats_written_ms;

struct conn;
struct stream {
    struct conn *c;
    int32_t id;
    uint64_t index, sent; /* global request number; body bytes produced */
    int refused, handled, queued;
    int64_t deadline; /* us */
    struct stream *prev, *next;   /* the connection's streams */
    struct stream *qprev, *qnext; /* the delay queue */
};
struct conn {
    int fd, acked, draining, dead;
    int hung; /* a bad frame was sent: read and discard, send nothing more */
    nghttp2_session *s;
    uint8_t *out;
    size_t outlen, outoff, outcap;
    uint32_t events;
    struct stream *streams;
    uint64_t open, done;
    int32_t max_sid, goaway_sid, max_answered;
    int64_t drain_deadline;
    struct conn *prev, *next;
};

static int ep = -1;
static struct conn *conns, *dead_conns;
static unsigned nconns, ndraining;
static struct stream *dq_head, *dq_tail; /* FIFO: constant delay => sorted */
static uint64_t req_index;
static nghttp2_session_callbacks *cbs;
static nghttp2_option *opt;
static int listen_tag, sig_tag; /* epoll data.ptr markers */

static int64_t now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}
static int64_t now_ms(void) { return now_us() / 1000; }

static void stats_line(char *buf, size_t n) {
    snprintf(buf, n,
             "h2fault: requests=%" PRIu64 " connections=%" PRIu64 " max_concurrent=%" PRIu64
             " violations=%" PRIu64 " goaways=%" PRIu64 " rsts=%" PRIu64 " refused=%" PRIu64 "\n",
             stats.requests, stats.connections, stats.max_concurrent, stats.violations,
             stats.goaways, stats.rsts, stats.refused);
}

static void stats_write(void) {
    char line[512];
    stats_dirty = 0;
    stats_written_ms = now_ms();
    stats_line(line, sizeof line);
    tool_stats_file(cfg.stats_path, line);
}

static void dq_push(struct stream *s) {
    s->qprev = dq_tail;
    s->qnext = NULL;
    if (dq_tail) dq_tail->qnext = s;
    else dq_head = s;
    dq_tail = s;
    s->queued = 1;
}

static void dq_unlink(struct stream *s) {
    if (!s->queued) return;
    if (s->qprev) s->qprev->qnext = s->qnext;
    else dq_head = s->qnext;
    if (s->qnext) s->qnext->qprev = s->qprev;
    else dq_tail = s->qprev;
    s->queued = 0;
}

static void stream_free(struct stream *s) {
    dq_unlink(s);
    if (s->prev) s->prev->next = s->next;
    else s->c->streams = s->next;
    if (s->next) s->next->prev = s->prev;
    free(s);
}

/* ---- nghttp2 callbacks ---- */

/* The DATA a response carries: SIZE, except clen-short's, a fifth of the
 * content-length it declares. clen-long declares a fifth of SIZE. */
static uint64_t body_size(void) { return cfg.mode == M_CLEN_SHORT ? cfg.size / 5 : cfg.size; }

static ssize_t body_read(nghttp2_session *session, int32_t id, uint8_t *buf, size_t len,
                         uint32_t *flags, nghttp2_data_source *src, void *ud) {
    (void)session, (void)id, (void)ud;
    struct stream *s = src->ptr;
    if (cfg.mode == M_NOWINDOW) return NGHTTP2_ERR_DEFERRED; /* never resumed */
    uint64_t left = body_size() - s->sent;
    size_t n = left < len ? (size_t)left : len;
    memset(buf, 'x', n);
    s->sent += n;
    if (s->sent == body_size()) *flags |= NGHTTP2_DATA_FLAG_EOF;
    return (ssize_t)n;
}

#define NV(n, v) {(uint8_t *)(n), (uint8_t *)(v), strlen(n), strlen(v), NGHTTP2_NV_FLAG_NONE}

static void respond(struct conn *c, struct stream *s) {
    char clen[24];
    snprintf(clen, sizeof clen, "%" PRIu64, cfg.mode == M_CLEN_LONG ? cfg.size / 5 : cfg.size);
    /* nghttp2 checks none of what a server sends: nostatus leaves out
     * :status, badclen's content-length is no number (RFC 9113 8.1.1). */
    nghttp2_nv nva[] = {NV(":status", "200"), NV("content-length", cfg.mode == M_BADCLEN ? "1x" : clen),
                        NV("server", "h2fault")};
    if (cfg.mode == M_BADNAME) /* an unknown pseudo-header, with an escape sequence in it */
        nva[2] = (nghttp2_nv)NV(":x\x1b[31m", "1");
    nghttp2_nv *first = cfg.mode == M_NOSTATUS ? nva + 1 : nva;
    nghttp2_data_provider prd;
    prd.source.ptr = s;
    prd.read_callback = body_read;
    int body = body_size() > 0 || cfg.mode == M_NOWINDOW;
    if (s->id > c->max_answered) c->max_answered = s->id;
    if (nghttp2_submit_response(c->s, s->id, first, (size_t)(nva + 3 - first), body ? &prd : NULL) != 0)
        nghttp2_submit_rst_stream(c->s, NGHTTP2_FLAG_NONE, s->id, NGHTTP2_INTERNAL_ERROR);
}

/* The request on stream s is complete (END_STREAM received). */
/* Bytes nghttp2 would never send: queued after what it already produced. */
static void out_raw(struct conn *c, const void *p, size_t n) {
    if (c->outlen + n > c->outcap) {
        size_t cap = (c->outlen + n) * 2;
        uint8_t *b = realloc(c->out, cap);
        if (!b) return;
        c->out = b;
        c->outcap = cap;
    }
    memcpy(c->out + c->outlen, p, n);
    c->outlen += n;
}

/* The connection errors a client must detect itself (RFC 9113): a
 * WINDOW_UPDATE of 0 on stream 0 (6.9), a frame over SETTINGS_MAX_FRAME_SIZE
 * (4.2). The connection then stays open and silent. */
static void send_bad_frame(struct conn *c) {
    static const uint8_t winupdate0[13] = {0, 0, 4, 0x8, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    static const uint8_t bigframe[9] = {0, 0x80, 0, 0x0, 0x1, 0, 0, 0, 1}; /* DATA, 32 KiB */
    if (cfg.mode == M_WINUPDATE0) out_raw(c, winupdate0, sizeof winupdate0);
    else out_raw(c, bigframe, sizeof bigframe);
    c->hung = 1;
}

static void request_done(struct conn *c, struct stream *s) {
    if (!s || s->refused || s->handled) return;
    s->handled = 1;
    c->done++;
    if (cfg.mode == M_WINUPDATE0 || cfg.mode == M_BIGFRAME) {
        if (!c->hung) send_bad_frame(c);
        return;
    }
    if (cfg.mode == M_GOAWAY) {
        if (c->goaway_sid) {
            if (s->id > c->goaway_sid) return; /* the GOAWAY refuses it */
        } else if (c->done >= cfg.every) {
            c->goaway_sid = s->id > c->max_answered ? s->id : c->max_answered;
            nghttp2_submit_goaway(c->s, NGHTTP2_FLAG_NONE, c->goaway_sid, NGHTTP2_NO_ERROR,
                                  NULL, 0);
        }
    }
    if (cfg.mode == M_GOAWAY0) {
        /* Every stream refused: last-stream-id 0, then close once sent. */
        if (!c->goaway_sid)
            nghttp2_submit_goaway(c->s, NGHTTP2_FLAG_NONE, 0, (uint32_t)cfg.rst_code, NULL, 0);
        c->goaway_sid = -1;
        return;
    }
    if (cfg.mode == M_RST && s->index % cfg.every == 0) {
        nghttp2_submit_rst_stream(c->s, NGHTTP2_FLAG_NONE, s->id, (uint32_t)cfg.rst_code);
        return;
    }
    if (cfg.delay_ms > 0) {
        s->deadline = now_us() + cfg.delay_ms * 1000;
        dq_push(s);
        return;
    }
    respond(c, s);
}

static int on_begin_frame(nghttp2_session *session, const nghttp2_frame_hd *hd, void *ud) {
    struct conn *c = ud;
    (void)session;
    /* A HEADERS frame on a new client stream opens a stream: count it as a
     * violation if our (acknowledged) limit is already reached. nghttp2
     * then fails the connection with PROTOCOL_ERROR. */
    if (hd->type == NGHTTP2_HEADERS && (hd->stream_id & 1) && hd->stream_id > c->max_sid) {
        c->max_sid = hd->stream_id;
        if (cfg.max_streams >= 0 && c->acked && c->open >= (uint64_t)cfg.max_streams) {
            stats.violations++;
            stats_dirty = 1;
        }
    }
    return 0;
}

static int on_begin_headers(nghttp2_session *session, const nghttp2_frame *f, void *ud) {
    struct conn *c = ud;
    int32_t id = f->hd.stream_id;
    if (f->hd.type != NGHTTP2_HEADERS || f->headers.cat != NGHTTP2_HCAT_REQUEST) return 0;
    c->open++; /* every stream nghttp2 creates is closed via on_stream_close */
    if (c->open > stats.max_concurrent) stats.max_concurrent = c->open;
    stats.requests++;
    stats_dirty = 1;
    uint64_t index = ++req_index;
    struct stream *s = c->open > MAX_OPEN_PER_CONN ? NULL : calloc(1, sizeof *s);
    if (!s) {
        nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, id, NGHTTP2_REFUSED_STREAM);
        return 0;
    }
    s->c = c;
    s->id = id;
    s->index = index;
    s->next = c->streams;
    if (c->streams) c->streams->prev = s;
    c->streams = s;
    nghttp2_session_set_stream_user_data(session, id, s);
    if (cfg.mode == M_REFUSE && index % cfg.every == 0) {
        s->refused = 1;
        nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, id, NGHTTP2_REFUSED_STREAM);
    }
    return 0;
}

static int on_frame_recv(nghttp2_session *session, const nghttp2_frame *f, void *ud) {
    struct conn *c = ud;
    switch (f->hd.type) {
    case NGHTTP2_SETTINGS:
        if (f->hd.flags & NGHTTP2_FLAG_ACK) c->acked = 1;
        break;
    case NGHTTP2_HEADERS:
    case NGHTTP2_DATA:
        if (f->hd.flags & NGHTTP2_FLAG_END_STREAM)
            request_done(c, nghttp2_session_get_stream_user_data(session, f->hd.stream_id));
        break;
    }
    return 0;
}

static int on_frame_send(nghttp2_session *session, const nghttp2_frame *f, void *ud) {
    (void)session, (void)ud;
    if (f->hd.type == NGHTTP2_GOAWAY) stats.goaways++;
    else if (f->hd.type == NGHTTP2_RST_STREAM && f->rst_stream.error_code == NGHTTP2_REFUSED_STREAM)
        stats.refused++;
    else if (f->hd.type == NGHTTP2_RST_STREAM) stats.rsts++;
    else return 0;
    stats_dirty = 1;
    return 0;
}

static int on_stream_close(nghttp2_session *session, int32_t id, uint32_t err, void *ud) {
    struct conn *c = ud;
    (void)err;
    if (c->open) c->open--;
    struct stream *s = nghttp2_session_get_stream_user_data(session, id);
    if (s) stream_free(s);
    return 0;
}

/* ---- connections ---- */

static void conn_close(struct conn *c) {
    if (c->dead) return;
    c->dead = 1;
    close(c->fd);
    nghttp2_session_del(c->s); /* calls no callbacks: free our streams here */
    while (c->streams) stream_free(c->streams);
    free(c->out);
    if (c->prev) c->prev->next = c->next;
    else conns = c->next;
    if (c->next) c->next->prev = c->prev;
    if (c->draining) ndraining--;
    nconns--;
    c->next = dead_conns; /* freed at the end of the loop iteration */
    dead_conns = c;
}

static void conn_events(struct conn *c, uint32_t ev) {
    struct epoll_event e = {.events = ev, .data.ptr = c};
    if (ev != c->events && epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &e) == 0) c->events = ev;
}

/* Serialize what nghttp2 has (up to OUT_HIGH buffered) and write it. */
static void conn_flush(struct conn *c) {
    if (c->dead || c->draining) return;
    for (;;) {
        if (c->outoff == c->outlen) c->outoff = c->outlen = 0;
        while (!c->hung && c->outlen - c->outoff < OUT_HIGH) {
            const uint8_t *data;
            ssize_t n = nghttp2_session_mem_send(c->s, &data);
            if (n < 0) { conn_close(c); return; }
            if (n == 0) break;
            if (c->outoff) {
                memmove(c->out, c->out + c->outoff, c->outlen - c->outoff);
                c->outlen -= c->outoff;
                c->outoff = 0;
            }
            if (c->outlen + (size_t)n > c->outcap) {
                size_t cap = (c->outlen + (size_t)n) * 2;
                uint8_t *p = realloc(c->out, cap);
                if (!p) { conn_close(c); return; }
                c->out = p;
                c->outcap = cap;
            }
            memcpy(c->out + c->outlen, data, (size_t)n);
            c->outlen += (size_t)n;
        }
        size_t pend = c->outlen - c->outoff;
        if (!pend) break;
        ssize_t w = send(c->fd, c->out + c->outoff, pend, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        if (w < 0) { conn_close(c); return; }
        c->outoff += (size_t)w;
        if ((size_t)w < pend) break;
    }
    size_t pend = c->outlen - c->outoff;
    if (!pend && !nghttp2_session_want_read(c->s) && !nghttp2_session_want_write(c->s)) {
        /* Done (e.g. after our GOAWAY): FIN, then read and discard until the
         * peer closes (or DRAIN_MS), so no RST destroys the last response. */
        shutdown(c->fd, SHUT_WR);
        c->draining = 1;
        ndraining++;
        c->drain_deadline = now_ms() + DRAIN_MS;
        conn_events(c, EPOLLIN);
        return;
    }
    conn_events(c, (pend < OUT_HIGH ? EPOLLIN : 0) | (pend ? EPOLLOUT : 0));
}

static void conn_read(struct conn *c) {
    uint8_t buf[16384];
    for (int i = 0; i < 4; i++) {
        ssize_t n = recv(c->fd, buf, sizeof buf, 0);
        if (n == 0) { conn_close(c); return; }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        if (n < 0) { conn_close(c); return; }
        if (c->draining || c->hung) continue; /* discard */
        if (cfg.mode == M_HTTP1) {
            /* An "h2c" server that only speaks HTTP/1.1: it answers the
             * preface as a malformed request, and keeps the connection. */
            static const char r400[] = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n";
            out_raw(c, r400, sizeof r400 - 1);
            c->hung = 1;
            continue;
        }
        if (nghttp2_session_mem_recv(c->s, buf, (size_t)n) < 0) { conn_close(c); return; }
        if ((size_t)n < sizeof buf) break;
    }
    conn_flush(c);
}

static void conn_new(int fd) {
    struct conn *c = calloc(1, sizeof *c);
    int one = 1;
    if (!c) {
        close(fd);
        return;
    }
    c->fd = fd;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (nghttp2_session_server_new2(&c->s, cbs, c, opt) != 0) {
        close(fd);
        free(c);
        return;
    }
    nghttp2_settings_entry iv[2];
    size_t niv = 0;
    if (cfg.max_streams >= 0)
        iv[niv++] = (nghttp2_settings_entry){NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS,
                                             (uint32_t)cfg.max_streams};
    if (cfg.mode == M_NOWINDOW)
        iv[niv++] = (nghttp2_settings_entry){NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 0};
    if (cfg.mode != M_HTTP1) nghttp2_submit_settings(c->s, NGHTTP2_FLAG_NONE, iv, niv);
    struct epoll_event e = {.events = EPOLLIN, .data.ptr = c};
    if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e) != 0) {
        nghttp2_session_del(c->s);
        close(fd);
        free(c);
        return;
    }
    c->events = EPOLLIN;
    c->next = conns;
    if (conns) conns->prev = c;
    conns = c;
    nconns++;
    stats.connections++;
    stats_dirty = 1;
    conn_flush(c);
}

/* ---- main ---- */

static void usage(FILE *f) {
    fprintf(f,
        "usage: h2fault --port PORT [--mode MODE] [--every N] [--max-streams N]\n"
        "               [--delay D_MS] [--size BYTES] [--stats FILE]\n"
        "h2c (prior knowledge) server on 127.0.0.1; every request gets 200 + SIZE bytes\n"
        "(default 100) unless MODE says otherwise:\n"
        "  ok        well-behaved (default)\n"
        "  goaway    per connection, once N requests (--every, default 10) are complete:\n"
        "            GOAWAY(NO_ERROR, last=that stream); later streams are refused by it;\n"
        "            close after the answered ones finish\n"
        "  rst       every N-th request (default 3, counted over all connections) gets\n"
        "            RST_STREAM(INTERNAL_ERROR) instead of a response\n"
        "  refuse    every N-th request (default 3) gets RST_STREAM(REFUSED_STREAM) on arrival\n"
        "  max1      SETTINGS_MAX_CONCURRENT_STREAMS=1 (or --max-streams); counts violations\n"
        "  nowindow  SETTINGS_INITIAL_WINDOW_SIZE=0, no WINDOW_UPDATE ever; response\n"
        "            HEADERS sent, DATA never\n"
        "  stall     wait --delay ms (default 1000) before each response\n"
        "  winupdate0 after the first request: WINDOW_UPDATE(stream 0, increment 0)\n"
        "            raw, then silence (the connection stays open)\n"
        "  bigframe  after the first request: a DATA frame header of 32 KiB on stream 1,\n"
        "            over the 16 KiB maximum frame size, then silence\n"
        "  http1     answers the connection preface with an HTTP/1.1 400, then silence\n"
        "  goaway0   at a connection's first complete request: GOAWAY(last=0, NO_ERROR or\n"
        "            --rst-code), so every stream is refused; close once it is sent\n"
        "  nostatus  responses without :status (a malformed response, RFC 9113 8.3.2)\n"
        "  clen-short content-length SIZE but SIZE/5 bytes of DATA, then END_STREAM\n"
        "  clen-long content-length SIZE/5 but SIZE bytes of DATA\n"
        "  badclen   content-length \"1x\" (not a number)\n"
        "  badname   a pseudo-header \":x ESC [31m\" after the others (invalid)\n"
        "--rst-code N: the error code rst (default 2, INTERNAL_ERROR) or goaway0 (default 0,\n"
        "            NO_ERROR) sends\n"
        "--max-streams N: advertise SETTINGS_MAX_CONCURRENT_STREAMS=N in any mode;\n"
        "--delay applies to any mode. Stats line to stderr at SIGTERM/SIGINT.\n");
}

static int parse_u64(const char *s, uint64_t max, uint64_t *out) {
    char *end;
    if (!s || *s < '0' || *s > '9') return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || v > max) return -1;
    if (*end == 's' && !end[1] && v <= max / 1000) v *= 1000; /* "2s" */
    else if (*end && strcmp(end, "ms") != 0) return -1;
    *out = v;
    return 0;
}

static int parse_args(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL, *eq = strchr(a, '=');
        char name[32];
        size_t nl = eq ? (size_t)(eq - a) : strlen(a);
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            exit(0);
        }
        if (nl >= sizeof name) goto bad;
        memcpy(name, a, nl);
        name[nl] = 0;
        v = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
        if (!v) goto bad;
        uint64_t n = 0;
        int numeric = strcmp(name, "--mode") && strcmp(name, "--stats");
        if (numeric && parse_u64(v, strcmp(name, "--size") ? INT32_MAX : (1ULL << 50), &n))
            goto bad;
        if (!strcmp(name, "--port") && n <= 65535) cfg.port = (unsigned)n;
        else if (!strcmp(name, "--every") && n >= 1) cfg.every = n;
        else if (!strcmp(name, "--max-streams")) cfg.max_streams = (int64_t)n;
        else if (!strcmp(name, "--delay")) cfg.delay_ms = (int64_t)n;
        else if (!strcmp(name, "--size")) cfg.size = n;
        else if (!strcmp(name, "--rst-code")) cfg.rst_code = (int64_t)n;
        else if (!strcmp(name, "--stats")) cfg.stats_path = v;
        else if (!strcmp(name, "--mode")) {
            size_t m = 0;
            while (m < sizeof mode_names / sizeof *mode_names && strcmp(v, mode_names[m])) m++;
            if (m == sizeof mode_names / sizeof *mode_names) goto bad;
            cfg.mode = (enum mode)m;
        } else goto bad;
        continue;
    bad:
        fprintf(stderr, "h2fault: bad argument: %s%s%s\n", a, v && !eq ? " " : "", v && !eq ? v : "");
        usage(stderr);
        return -1;
    }
    if (!cfg.every) cfg.every = cfg.mode == M_GOAWAY ? 10 : 3;
    if (cfg.max_streams < 0 && cfg.mode == M_MAX1) cfg.max_streams = 1;
    if (cfg.delay_ms < 0) cfg.delay_ms = cfg.mode == M_STALL ? 1000 : 0;
    if (cfg.rst_code < 0) cfg.rst_code = cfg.mode == M_GOAWAY0 ? NGHTTP2_NO_ERROR : NGHTTP2_INTERNAL_ERROR;
    return 0;
}

int main(int argc, char **argv) {
    if (parse_args(argc, argv)) return 2;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max && rl.rlim_cur < 4096) {
        rl.rlim_cur = rl.rlim_max < 4096 ? rl.rlim_max : 4096;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    signal(SIGPIPE, SIG_IGN);
    int sfd = tool_signalfd(0);

    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), one = 1;
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)cfg.port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t sl = sizeof sa;
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (sfd < 0 || lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
        listen(lfd, 1024) != 0 || getsockname(lfd, (struct sockaddr *)&sa, &sl) != 0) {
        fprintf(stderr, "h2fault: cannot listen on 127.0.0.1:%u: %s\n", cfg.port, strerror(errno));
        return 1;
    }
    ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event e = {.events = EPOLLIN, .data.ptr = &listen_tag};
    epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &e);
    e.data.ptr = &sig_tag;
    epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &e);

    nghttp2_session_callbacks_new(&cbs);
    nghttp2_session_callbacks_set_on_begin_frame_callback(cbs, on_begin_frame);
    nghttp2_session_callbacks_set_on_begin_headers_callback(cbs, on_begin_headers);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cbs, on_frame_recv);
    nghttp2_session_callbacks_set_on_frame_send_callback(cbs, on_frame_send);
    nghttp2_session_callbacks_set_on_stream_close_callback(cbs, on_stream_close);
    nghttp2_option_new(&opt);
    nghttp2_option_set_no_closed_streams(opt, 1); /* bound memory */
    if (cfg.mode == M_NOWINDOW) nghttp2_option_set_no_auto_window_update(opt, 1);

    printf("h2fault: listening on http://127.0.0.1:%u/\n", ntohs(sa.sin_port));
    fflush(stdout);
    stats_write();

    int stop = 0, listen_paused = 0;
    int64_t listen_resume = 0;
    struct epoll_event evs[256];
    while (!stop) {
        int64_t now = now_us(), timeout = 1000;
        if (dq_head && dq_head->deadline - now < 1000000) /* rounded up to whole ms */
            timeout = dq_head->deadline > now ? (dq_head->deadline - now + 999) / 1000 : 0;
        if ((ndraining || listen_paused) && timeout > 100) timeout = 100;
        if (stats_dirty && cfg.stats_path && timeout > 1) timeout = 1;
        int n = epoll_wait(ep, evs, 256, (int)timeout);
        if (n < 0 && errno != EINTR) {
            perror("h2fault: epoll_wait");
            break;
        }
        for (int i = 0; i < n; i++) {
            void *p = evs[i].data.ptr;
            uint32_t ev = evs[i].events;
            if (p == &sig_tag) {
                stop = 1;
            } else if (p == &listen_tag) {
                for (;;) {
                    int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
                    if (fd < 0 && errno == EINTR) continue;
                    if (fd < 0 && (errno == EMFILE || errno == ENFILE || errno == ENOMEM ||
                                   errno == ENOBUFS)) {
                        e.events = 0; /* out of fds: stop accepting for 100 ms */
                        e.data.ptr = &listen_tag;
                        epoll_ctl(ep, EPOLL_CTL_MOD, lfd, &e);
                        listen_paused = 1;
                        listen_resume = now_ms() + 100;
                    }
                    if (fd < 0) break;
                    if (nconns >= MAX_CONNS) close(fd);
                    else conn_new(fd);
                }
            } else {
                struct conn *c = p;
                if (c->dead) continue;
                if (ev & EPOLLERR) conn_close(c);
                else if (ev & (EPOLLIN | EPOLLHUP)) conn_read(c);
                if (!c->dead && (ev & EPOLLOUT)) conn_flush(c);
            }
        }
        now = now_us();
        while (dq_head && dq_head->deadline <= now) {
            struct stream *s = dq_head;
            dq_unlink(s);
            respond(s->c, s);
            conn_flush(s->c); /* may close the conn and free its streams */
        }
        now /= 1000; /* ms from here on */
        if (ndraining) {
            for (struct conn *c = conns, *next; c; c = next) {
                next = c->next;
                if (c->draining && now >= c->drain_deadline) conn_close(c);
            }
        }
        if (listen_paused && now >= listen_resume) {
            e.events = EPOLLIN;
            e.data.ptr = &listen_tag;
            epoll_ctl(ep, EPOLL_CTL_MOD, lfd, &e);
            listen_paused = 0;
        }
        while (dead_conns) {
            struct conn *c = dead_conns;
            dead_conns = c->next;
            free(c);
        }
        /* The stats file: as soon as the loop is idle for 1 ms, and at least
         * every 100 ms under continuous load (a rename costs ~0.1 ms). */
        if (stats_dirty && (n <= 0 || now - stats_written_ms >= 100)) stats_write();
    }

    char line[512];
    stats_line(line, sizeof line);
    fputs(line, stderr);
    stats_write();
    while (conns) conn_close(conns);
    while (dead_conns) {
        struct conn *c = dead_conns;
        dead_conns = c->next;
        free(c);
    }
    nghttp2_session_callbacks_del(cbs);
    nghttp2_option_del(opt);
    close(lfd);
    close(sfd);
    close(ep);
    return 0;
}
