/*
 * h1fault - an HTTP/1.1 test server that misbehaves on demand (plain TCP,
 * or TLS with a self-signed certificate made in memory at startup).
 * Single-threaded, epoll (edge-triggered), non-blocking sockets, bounded
 * buffers; timers are epoll_wait timeouts, the thread never sleeps.
 *
 *   h1fault --port 0 --mode MODE [--every N] [--delay D_MS] [--size BYTES]
 *           [--stats FILE] [--tls] [--max-conns N]
 *
 * Listens on 127.0.0.1 only; the first stdout line (flushed) is
 * "h1fault: listening on http://127.0.0.1:PORT/" (https:// with TLS).
 * Runs until SIGTERM/SIGINT, then prints "h1fault: requests=R connections=C"
 * to stderr and exits 0. With --stats FILE the same "requests=R
 * connections=C" line is kept in FILE (rewritten through a rename once the
 * server has been idle for 1 ms after a change, at least every 100 ms under
 * load, at startup and at exit).
 *
 * requests counts complete, valid request heads; connections counts
 * accepted connections (those over --max-conns are closed at once and not
 * counted). The fault applies to every N-th request (--every, counted over
 * all connections, from 1); the others get the normal response. For
 * tls-fail, --every counts connections instead.
 *
 * See usage() for the modes and the exact bytes each one sends.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tool_util.h"

#define IN_CAP (64 * 1024)        /* input buffer = max request head */
#define OUT_CAP (32 * 1024)       /* output buffer per connection */
#define PAD_TOTAL (1024 * 1024)   /* huge-headers: bytes of X-Pad lines */
#define PAD_LINE 1024             /* "X-Pad: " + 1015 x 'a' + CRLF */
#define MAX_CHUNK 8192            /* endless-chunked: largest chunk */
#define MAX_SIZE (1ULL << 40)     /* --size limit (cl-long doubles it) */
#define LINGER_MS 2000            /* after our FIN: drain input, then close */
#define RESET_WAIT_MS 1000        /* wait for the peer to ack before RST */
#define ROUNDS 64                 /* progress rounds per turn (fairness) */
#define STATS_MAX_MS 100          /* stats file: at least this often */

static const char TLS_GARBAGE[] = "h1fault: this is not a TLS ServerHello\r\n";

enum mode {
    M_OK, M_STALL, M_SLOW_BODY, M_RESET, M_CLOSE_MID, M_GARBAGE, M_HUGE,
    M_ENDLESS, M_BAD_CHUNK, M_CL_LONG, M_CL_SHORT, M_HTTP10, M_CONN_CLOSE,
    M_CONTINUE, M_TLS_FAIL, M_TLS_OK, M_SILENT_CLOSE, M_CHUNKED_CL, M_COUNT
};
static const char *const mode_names[M_COUNT] = {
    "ok", "stall", "slow-body", "reset-after-headers", "close-mid-body",
    "garbage-status", "huge-headers", "endless-chunked", "bad-chunk", "cl-long",
    "cl-short", "http10-close", "conn-close", "continue", "tls-fail", "tls-ok",
    "silent-close", "chunked-cl",
};

static struct {
    enum mode mode;
    uint64_t every, size;
    int64_t delay_ms; /* -1: the mode's default */
    const char *stats_path;
    unsigned port;
    bool tls;
    int max_conns;
    int status; /* ok mode's status code (any 000-999) */
    bool alpn_h2; /* --alpn-h2: choose h2 in ALPN, answer in HTTP/1.1 all the same */
} cfg = {M_OK, 1, 100, -1, NULL, 0, false, 1000, 200, false};

enum phase {
    PH_TLS_FAIL,  /* tls-fail: wait for the ClientHello */
    PH_READ,      /* wait for / parse a request head */
    PH_BODY,      /* discard the request body */
    PH_STALL,     /* stall: wait before answering */
    PH_SEND,      /* generate and send the response */
    PH_HANG,      /* stay open silently; discard input until EOF */
    PH_LINGER,    /* FIN sent; discard input until EOF or LINGER_MS */
    PH_RESET_WAIT /* wait until the peer acked what we sent, then RST */
};
enum after { AF_KEEP, AF_CLOSE, AF_RESET, AF_HANG };

/* What to send for one request; generated lazily into the output buffer. */
struct plan {
    char head[512];
    size_t head_len, head_off;
    uint64_t pad_left; /* huge-headers: X-Pad bytes still to generate */
    bool pad_end;      /* the CRLF that ends the padded head */
    uint64_t body_left;
    bool last_chunk;   /* chunked-cl: "\r\n0\r\n\r\n" after the body */
    uint64_t pace_ms;  /* slow-body: one body byte every pace_ms */
    bool endless;      /* endless-chunked */
    uint64_t chunk_ms; /* 0: as fast as the socket takes */
    size_t chunk;
    uint64_t delay_ms; /* stall before anything */
    enum after after;
};

struct conn {
    int fd, idx;
    SSL *ssl;
    bool hs_done, dead, readable, writable, peer_eof, again;
    enum phase phase;
    uint64_t deadline; /* ms, 0: none */
    uint64_t reset_limit;
    char *in;
    size_t in_len;
    char *out;
    size_t out_off, out_len;
    uint64_t req_body_left;
    struct plan p;
    struct conn *next_dead;
};

static int g_ep, g_lfd, g_sfd;
static struct conn **g_conns;
static int g_nconns;
static struct conn *g_dead;
static SSL_CTX *g_ctx;
static bool g_listen_paused;
static uint64_t g_listen_resume;
static uint64_t g_requests, g_connections;
static bool g_stats_dirty;
static uint64_t g_stats_written;

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* A deadline d ms from now that is never early: now_ms() truncates, so the
 * extra millisecond covers the part of this one already gone. */
static uint64_t after_ms(uint64_t d)
{
    return now_ms() + d + 1;
}

static void usage(FILE *f)
{
    fprintf(f,
        "usage: h1fault --port PORT --mode MODE [--every N] [--delay D_MS]\n"
        "               [--size BYTES] [--stats FILE] [--tls] [--max-conns N]\n"
        "\n"
        "An HTTP/1.1 server on 127.0.0.1 that misbehaves on demand. The first\n"
        "stdout line is \"h1fault: listening on http://127.0.0.1:PORT/\" (https\n"
        "with TLS); SIGTERM/SIGINT -> \"h1fault: requests=R connections=C\" on\n"
        "stderr, exit 0.\n"
        "\n"
        "  --port PORT     0 = pick one (default 0)\n"
        "  --every N       fault every N-th request, counted over all\n"
        "                  connections (tls-fail: every N-th connection);\n"
        "                  the others are answered normally (default 1 = all)\n"
        "  --delay D_MS    stall / slow-body pace / endless-chunked interval\n"
        "                  (default 100; endless-chunked 10, 0 = as fast as\n"
        "                  the socket takes)\n"
        "  --size BYTES    response body size (default 100)\n"
        "  --stats FILE    keep \"requests=R connections=C\" in FILE\n"
        "  --tls           serve any mode over TLS (self-signed EC P-256\n"
        "                  certificate for localhost/127.0.0.1, ALPN http/1.1)\n"
        "  --alpn-h2       with --tls: choose h2 in ALPN, then answer in HTTP/1.1\n"
        "  --status CODE   ok mode answers \"HTTP/1.1 CODE Status\" (000-999,\n"
        "                  default 200)\n"
        "  --max-conns N   open connections at most; more are closed at once\n"
        "                  (default 1000)\n"
        "\n"
        "Normal response (CL = --size, body = CL x 'a'):\n"
        "  HTTP/1.1 200 OK\\r\\nContent-Type: text/plain\\r\\n"
        "Content-Length: CL\\r\\n[Connection: close|keep-alive\\r\\n]\\r\\nBODY\n"
        "  (Connection: close when the request asked for it or is HTTP/1.0\n"
        "  without keep-alive, and then the connection is closed; keep-alive for\n"
        "  an HTTP/1.0 keep-alive request; HEAD gets no body.)\n"
        "Modes:\n"
        "  ok                   normal responses; keep-alive, pipelining\n"
        "  stall                nothing for D_MS, then the normal response\n"
        "  slow-body            normal head, then one body byte every D_MS\n"
        "  reset-after-headers  normal head, no body, then RST (SO_LINGER 0)\n"
        "  close-mid-body       normal head, size/2 body bytes, then FIN\n"
        "  garbage-status       \"HTTX/9.9 abc nonsense\\r\\n\\r\\n\", then FIN\n"
        "  huge-headers         HTTP/1.1 200 OK, Content-Type, Content-Length,\n"
        "                       1024 lines \"X-Pad: \" + 1015 x 'a' + CRLF (1 MiB),\n"
        "                       CRLF, body\n"
        "  endless-chunked      HTTP/1.1 200 OK, Content-Type: text/plain,\n"
        "                       Transfer-Encoding: chunked, CRLF, then chunks\n"
        "                       \"<hex size>\\r\\n\" + size x 'a' + \"\\r\\n\" forever\n"
        "                       (chunk size = --size clamped to 1..8192), one\n"
        "                       every D_MS, never more than the socket takes\n"
        "  bad-chunk            chunked head, then \"zz\\r\\n\"; then silence\n"
        "                       (the connection stays open)\n"
        "  cl-long              normal head with Content-Length: size*2, size\n"
        "                       body bytes, then silence (stays open)\n"
        "  cl-short             normal head with Content-Length: size/2, size\n"
        "                       body bytes; the connection is kept\n"
        "  http10-close         \"HTTP/1.0 200 OK\\r\\nContent-Type: text/plain"
        "\\r\\n\\r\\n\" + body, FIN\n"
        "  conn-close           normal response with Connection: close, FIN\n"
        "  silent-close         normal response that does not announce a close\n"
        "                       (no Connection: close), then FIN; pipelined\n"
        "                       requests behind it are dropped unanswered\n"
        "  chunked-cl           HTTP/1.1 200 OK, Content-Type, Transfer-Encoding:\n"
        "                       chunked, Content-Length: size/2, CRLF, one chunk\n"
        "                       of size x 'a', the last chunk; the connection is\n"
        "                       kept (a request-smuggling shape, RFC 9112 6.3)\n"
        "  continue             \"HTTP/1.1 100 Continue\\r\\n\\r\\n\" as soon as the\n"
        "                       head is read, then the normal response\n"
        "  tls-fail             answers the ClientHello with \"h1fault: this is\n"
        "                       not a TLS ServerHello\\r\\n\", then FIN\n"
        "  tls-ok               ok over TLS (same as --mode ok --tls)\n"
        "Normal responses also answer \"Expect: 100-continue\" (with a body) with\n"
        "a 100 Continue first. Bad requests get 400 (501 for Transfer-Encoding,\n"
        "431 for a head over 64 KiB) with Connection: close.\n");
}

/* ---- stats ------------------------------------------------------------ */

static void stats_write(void)
{
    g_stats_dirty = false;
    g_stats_written = now_ms();
    char line[128];
    snprintf(line, sizeof line, "requests=%" PRIu64 " connections=%" PRIu64 "\n", g_requests,
             g_connections);
    tool_stats_file(cfg.stats_path, line);
}

static void stats_changed(void) { g_stats_dirty = true; }

/* ---- connection lifetime --------------------------------------------- */

static void conn_kill(struct conn *c)
{
    if (c->dead)
        return;
    if (c->ssl) {
        SSL_free(c->ssl); /* the socket BIO does not close the fd */
        c->ssl = NULL;
    }
    close(c->fd);
    c->dead = true;
    g_nconns--;
    g_conns[c->idx] = g_conns[g_nconns];
    g_conns[c->idx]->idx = c->idx;
    c->next_dead = g_dead;
    g_dead = c;
}

static void conn_reset(struct conn *c)
{
    struct linger l = {1, 0};
    setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
    conn_kill(c);
}

static void reap(void)
{
    while (g_dead) {
        struct conn *c = g_dead;
        g_dead = c->next_dead;
        free(c->in);
        free(c->out);
        free(c);
    }
}

/* ---- I/O: >0 bytes, 0 EOF, -1 would block, -2 error -------------------- */

static ssize_t io_ssl_result(struct conn *c, int r)
{
    switch (SSL_get_error(c->ssl, r)) {
    case SSL_ERROR_WANT_READ:
        c->readable = false;
        return -1;
    case SSL_ERROR_WANT_WRITE:
        c->writable = false;
        return -1;
    case SSL_ERROR_ZERO_RETURN:
        return 0;
    default:
        return -2;
    }
}

static ssize_t io_read(struct conn *c, void *buf, size_t n, bool raw)
{
    if (c->ssl && !raw) {
        ERR_clear_error();
        int r = SSL_read(c->ssl, buf, n > INT_MAX ? INT_MAX : (int)n);
        return r > 0 ? r : io_ssl_result(c, r);
    }
    for (;;) {
        ssize_t r = recv(c->fd, buf, n, 0);
        if (r >= 0)
            return r;
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            c->readable = false;
            return -1;
        }
        return -2;
    }
}

static ssize_t io_write(struct conn *c, const void *buf, size_t n)
{
    if (c->ssl) {
        ERR_clear_error();
        int r = SSL_write(c->ssl, buf, n > INT_MAX ? INT_MAX : (int)n);
        return r > 0 ? r : io_ssl_result(c, r);
    }
    for (;;) {
        ssize_t r = send(c->fd, buf, n, MSG_NOSIGNAL);
        if (r >= 0)
            return r;
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            c->writable = false;
            return -1;
        }
        return -2;
    }
}

/* 1 done, 0 in progress, -1 failed */
static int tls_handshake(struct conn *c)
{
    ERR_clear_error();
    int r = SSL_do_handshake(c->ssl);
    if (r == 1) {
        c->hs_done = true;
        return 1;
    }
    return io_ssl_result(c, r) == -1 ? 0 : -1;
}

/* ---- output buffer ----------------------------------------------------- */

static void out_compact(struct conn *c)
{
    if (c->out_off == c->out_len) {
        c->out_off = c->out_len = 0;
    } else if (c->out_off > 0) {
        memmove(c->out, c->out + c->out_off, c->out_len - c->out_off);
        c->out_len -= c->out_off;
        c->out_off = 0;
    }
}

static void out_put(struct conn *c, const char *s, size_t n)
{
    out_compact(c);
    if (n > OUT_CAP - c->out_len)
        n = OUT_CAP - c->out_len; /* not reached: only called with room */
    memcpy(c->out + c->out_len, s, n);
    c->out_len += n;
}

static void in_consume(struct conn *c, size_t n)
{
    if (n >= c->in_len) {
        c->in_len = 0;
        return;
    }
    memmove(c->in, c->in + n, c->in_len - n);
    c->in_len -= n;
}

/* ---- request parsing --------------------------------------------------- */

struct req {
    size_t head_len;
    uint64_t content_length;
    bool is_head, http10, close, expect100;
    const char *err; /* status for a bad request */
};

static bool ieq(const char *a, size_t alen, const char *b)
{
    return alen == strlen(b) && strncasecmp(a, b, alen) == 0;
}

/* Is TOKEN in the comma-separated list V (case-insensitive)? */
static bool has_token(const char *v, size_t vlen, const char *token)
{
    size_t i = 0;
    while (i < vlen) {
        while (i < vlen && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
            i++;
        size_t s = i;
        while (i < vlen && v[i] != ',')
            i++;
        size_t e = i;
        while (e > s && (v[e - 1] == ' ' || v[e - 1] == '\t'))
            e--;
        if (e > s && ieq(v + s, e - s, token))
            return true;
    }
    return false;
}

/* 1: a complete head in B (r filled), 0: need more, -1: bad (r->err). */
static int parse_head(const char *b, size_t n, struct req *r)
{
    memset(r, 0, sizeof *r);
    size_t pos = 0;
    bool first = true, have_cl = false, keepalive = false;
    r->err = "400 Bad Request";
    for (;;) {
        const char *nl = memchr(b + pos, '\n', n - pos);
        if (!nl)
            return 0;
        const char *line = b + pos;
        size_t len = (size_t)(nl - line);
        pos += len + 1;
        if (len && line[len - 1] == '\r')
            len--;
        if (first) {
            first = false;
            const char *sp1 = memchr(line, ' ', len);
            const char *sp2 = memrchr(line, ' ', len);
            if (!sp1 || sp1 == line || sp2 == sp1 || sp2 == sp1 + 1)
                return -1;
            const char *ver = sp2 + 1;
            size_t vlen = (size_t)(line + len - ver);
            if (vlen != 8 || memcmp(ver, "HTTP/1.", 7) != 0 || ver[7] < '0' || ver[7] > '9')
                return -1;
            r->http10 = ver[7] == '0';
            r->is_head = sp1 - line == 4 && memcmp(line, "HEAD", 4) == 0;
            continue;
        }
        if (len == 0)
            break;
        const char *colon = memchr(line, ':', len);
        if (!colon || colon == line)
            return -1;
        size_t nlen = (size_t)(colon - line);
        const char *v = colon + 1;
        size_t vlen = (size_t)(line + len - v);
        while (vlen && (*v == ' ' || *v == '\t'))
            v++, vlen--;
        while (vlen && (v[vlen - 1] == ' ' || v[vlen - 1] == '\t'))
            vlen--;
        if (ieq(line, nlen, "content-length")) {
            uint64_t cl = 0;
            if (vlen == 0 || vlen > 15)
                return -1;
            for (size_t i = 0; i < vlen; i++) {
                if (v[i] < '0' || v[i] > '9')
                    return -1;
                cl = cl * 10 + (uint64_t)(v[i] - '0');
            }
            if (have_cl && cl != r->content_length)
                return -1;
            have_cl = true;
            r->content_length = cl;
        } else if (ieq(line, nlen, "transfer-encoding")) {
            r->err = "501 Not Implemented";
            return -1;
        } else if (ieq(line, nlen, "connection")) {
            if (has_token(v, vlen, "close"))
                r->close = true;
            if (has_token(v, vlen, "keep-alive"))
                keepalive = true;
        } else if (ieq(line, nlen, "expect")) {
            if (ieq(v, vlen, "100-continue"))
                r->expect100 = true;
        }
    }
    if (r->http10 && !keepalive)
        r->close = true;
    r->head_len = pos;
    r->err = NULL;
    return 1;
}

/* ---- responses --------------------------------------------------------- */

static void plan_head(struct plan *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void plan_head(struct plan *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(p->head, sizeof p->head, fmt, ap);
    va_end(ap);
    p->head_len = n < 0 ? 0 : (size_t)n < sizeof p->head ? (size_t)n : sizeof p->head - 1;
    p->head_off = 0;
}

static uint64_t mode_delay(void)
{
    if (cfg.delay_ms >= 0)
        return (uint64_t)cfg.delay_ms;
    return cfg.mode == M_ENDLESS ? 10 : 100;
}

static void send_begin(struct conn *c)
{
    c->phase = PH_SEND;
    c->deadline = 0;
    if (c->p.pace_ms && c->p.body_left)
        c->deadline = after_ms(c->p.pace_ms); /* the first byte after one tick */
}

static void plan_begin(struct conn *c)
{
    if (c->p.delay_ms) {
        c->phase = PH_STALL;
        c->deadline = after_ms(c->p.delay_ms);
        return;
    }
    send_begin(c);
}

/* A bad request: an error status, Connection: close, then FIN. */
static void respond_error(struct conn *c, const char *status)
{
    memset(&c->p, 0, sizeof c->p);
    plan_head(&c->p, "HTTP/1.1 %s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", status);
    c->p.after = AF_CLOSE;
    c->in_len = 0;
    send_begin(c);
}

#define H200 "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"

static void build_plan(struct conn *c, const struct req *r, bool sel)
{
    struct plan *p = &c->p;
    memset(p, 0, sizeof *p);
    enum mode m = sel ? cfg.mode : M_OK;
    if (m == M_TLS_FAIL || m == M_TLS_OK)
        m = M_OK;
    uint64_t size = cfg.size, body = r->is_head ? 0 : size;
    const char *connhdr = r->close ? "Connection: close\r\n"
                          : r->http10 ? "Connection: keep-alive\r\n" : "";
    enum after keep = r->close ? AF_CLOSE : AF_KEEP;

    if (m == M_CONTINUE || (r->expect100 && r->content_length > 0 &&
                            (m == M_OK || m == M_CONN_CLOSE)))
        out_put(c, "HTTP/1.1 100 Continue\r\n\r\n", 25);

    switch (m) {
    case M_OK:
    case M_CONTINUE:
    case M_STALL:
    case M_SLOW_BODY:
        if (cfg.status != 200 && m == M_OK)
            plan_head(p, "HTTP/1.1 %03d Status\r\nContent-Type: text/plain\r\nContent-Length: %" PRIu64
                         "\r\n%s\r\n", cfg.status, size, connhdr);
        else
            plan_head(p, H200 "Content-Length: %" PRIu64 "\r\n%s\r\n", size, connhdr);
        p->body_left = body;
        p->after = keep;
        if (m == M_STALL)
            p->delay_ms = mode_delay();
        if (m == M_SLOW_BODY)
            p->pace_ms = mode_delay();
        break;
    case M_RESET:
        plan_head(p, H200 "Content-Length: %" PRIu64 "\r\n%s\r\n", size, connhdr);
        p->after = AF_RESET;
        break;
    case M_CLOSE_MID:
        plan_head(p, H200 "Content-Length: %" PRIu64 "\r\n%s\r\n", size, connhdr);
        p->body_left = size / 2;
        p->after = AF_CLOSE;
        break;
    case M_GARBAGE:
        plan_head(p, "HTTX/9.9 abc nonsense\r\n\r\n");
        p->after = AF_CLOSE;
        break;
    case M_HUGE:
        plan_head(p, H200 "Content-Length: %" PRIu64 "\r\n%s", size, connhdr);
        p->pad_left = PAD_TOTAL;
        p->pad_end = true;
        p->body_left = body;
        p->after = keep;
        break;
    case M_ENDLESS:
        plan_head(p, H200 "Transfer-Encoding: chunked\r\n\r\n");
        p->endless = true;
        p->chunk = size < 1 ? 1 : size > MAX_CHUNK ? MAX_CHUNK : (size_t)size;
        p->chunk_ms = mode_delay();
        break;
    case M_BAD_CHUNK:
        plan_head(p, H200 "Transfer-Encoding: chunked\r\n\r\nzz\r\n");
        p->after = AF_HANG;
        break;
    case M_CL_LONG:
        plan_head(p, H200 "Content-Length: %" PRIu64 "\r\n%s\r\n", size * 2, connhdr);
        p->body_left = size;
        p->after = AF_HANG;
        break;
    case M_CL_SHORT:
        plan_head(p, H200 "Content-Length: %" PRIu64 "\r\n%s\r\n", size / 2, connhdr);
        p->body_left = size;
        p->after = keep;
        break;
    case M_HTTP10:
        plan_head(p, "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\n");
        p->body_left = size;
        p->after = AF_CLOSE;
        break;
    case M_SILENT_CLOSE:
        plan_head(p, H200 "Content-Length: %" PRIu64 "\r\n%s\r\n", size, connhdr);
        p->body_left = body;
        p->after = AF_CLOSE;
        break;
    case M_CHUNKED_CL:
        if (body)
            plan_head(p, H200 "Transfer-Encoding: chunked\r\nContent-Length: %" PRIu64 "\r\n%s\r\n%" PRIx64 "\r\n",
                      size / 2, connhdr, body);
        else
            plan_head(p, H200 "Transfer-Encoding: chunked\r\nContent-Length: %" PRIu64 "\r\n%s\r\n%s",
                      size / 2, connhdr, r->is_head ? "" : "0\r\n\r\n");
        p->body_left = body;
        p->last_chunk = body > 0;
        p->after = keep;
        break;
    case M_CONN_CLOSE:
        plan_head(p, H200 "Content-Length: %" PRIu64 "\r\nConnection: close\r\n\r\n", size);
        p->body_left = body;
        p->after = AF_CLOSE;
        break;
    default:
        break;
    }
}

static bool plan_done(const struct plan *p)
{
    return p->head_off >= p->head_len && !p->pad_left && !p->pad_end && !p->body_left &&
           !p->last_chunk && !p->endless;
}

/* Generate as much of the response as the output buffer and the pacing
 * allow. True if bytes were added. */
static bool gen(struct conn *c)
{
    struct plan *p = &c->p;
    bool added = false;
    out_compact(c);
    for (;;) {
        size_t room = OUT_CAP - c->out_len;
        char *w = c->out + c->out_len;
        if (p->head_off < p->head_len) {
            size_t n = p->head_len - p->head_off;
            if (n > room)
                n = room;
            if (!n)
                break;
            memcpy(w, p->head + p->head_off, n);
            p->head_off += n;
            c->out_len += n;
            added = true;
            continue;
        }
        if (p->pad_left) {
            if (room < PAD_LINE)
                break;
            memcpy(w, "X-Pad: ", 7);
            memset(w + 7, 'a', PAD_LINE - 9);
            memcpy(w + PAD_LINE - 2, "\r\n", 2);
            c->out_len += PAD_LINE;
            p->pad_left -= PAD_LINE < p->pad_left ? PAD_LINE : p->pad_left;
            added = true;
            continue;
        }
        if (p->pad_end) {
            if (room < 2)
                break;
            memcpy(w, "\r\n", 2);
            c->out_len += 2;
            p->pad_end = false;
            added = true;
            continue;
        }
        if (p->body_left) {
            if (p->pace_ms) {
                uint64_t now = now_ms();
                if (!room || now < c->deadline)
                    break;
                *w = 'a';
                c->out_len++;
                p->body_left--;
                c->deadline = p->body_left ? now + p->pace_ms : 0;
                added = true;
                break;
            }
            size_t n = p->body_left < room ? (size_t)p->body_left : room;
            if (!n)
                break;
            memset(w, 'a', n);
            c->out_len += n;
            p->body_left -= n;
            added = true;
            continue;
        }
        if (p->last_chunk) {
            if (room < 7)
                break;
            memcpy(w, "\r\n0\r\n\r\n", 7);
            c->out_len += 7;
            p->last_chunk = false;
            added = true;
            continue;
        }
        if (p->endless) {
            if (room < p->chunk + 32)
                break;
            if (p->chunk_ms) {
                uint64_t now = now_ms();
                if (now < c->deadline)
                    break;
                c->deadline = now + p->chunk_ms;
            }
            int h = snprintf(w, 32, "%zx\r\n", p->chunk);
            memset(w + h, 'a', p->chunk);
            memcpy(w + h + p->chunk, "\r\n", 2);
            c->out_len += (size_t)h + p->chunk + 2;
            added = true;
            if (p->chunk_ms)
                break;
            continue;
        }
        break;
    }
    return added;
}

/* The response is out (handed to the kernel): keep, close, reset or hang. */
static void response_done(struct conn *c)
{
    switch (c->p.after) {
    case AF_KEEP:
        c->phase = PH_READ;
        c->deadline = 0;
        break;
    case AF_CLOSE:
        if (c->ssl) {
            ERR_clear_error();
            SSL_shutdown(c->ssl); /* close_notify; no waiting for the peer's */
        }
        shutdown(c->fd, SHUT_WR);
        c->phase = PH_LINGER;
        c->deadline = now_ms() + LINGER_MS;
        break;
    case AF_RESET:
        c->phase = PH_RESET_WAIT;
        c->reset_limit = now_ms() + RESET_WAIT_MS;
        c->deadline = 0;
        break;
    case AF_HANG:
        c->phase = PH_HANG;
        c->deadline = 0;
        break;
    }
}

/* PH_READ: parse the next request head, if there is a complete one. */
static bool handle_request(struct conn *c)
{
    size_t skip = 0; /* empty lines before a request line are ignored */
    while (skip < c->in_len && (c->in[skip] == '\r' || c->in[skip] == '\n'))
        skip++;
    in_consume(c, skip);
    if (!c->in_len) {
        if (c->peer_eof) {
            conn_kill(c);
            return true;
        }
        return skip > 0;
    }
    struct req r;
    int st = parse_head(c->in, c->in_len, &r);
    if (st == 0) {
        if (c->in_len >= IN_CAP) {
            respond_error(c, "431 Request Header Fields Too Large");
            return true;
        }
        if (c->peer_eof) {
            conn_kill(c);
            return true;
        }
        return skip > 0;
    }
    if (st < 0) {
        respond_error(c, r.err);
        return true;
    }
    in_consume(c, r.head_len);
    g_requests++;
    stats_changed();
    build_plan(c, &r, g_requests % cfg.every == 0);
    c->req_body_left = r.content_length;
    c->phase = PH_BODY;
    return true;
}

static bool step(struct conn *c)
{
    switch (c->phase) {
    case PH_TLS_FAIL:
        if (c->in_len) {
            c->in_len = 0;
            memset(&c->p, 0, sizeof c->p);
            plan_head(&c->p, "%s", TLS_GARBAGE);
            c->p.after = AF_CLOSE;
            send_begin(c);
            return true;
        }
        if (c->peer_eof) {
            conn_kill(c);
            return true;
        }
        return false;
    case PH_READ:
        return handle_request(c);
    case PH_BODY: {
        size_t n = c->in_len;
        if (n > c->req_body_left)
            n = (size_t)c->req_body_left;
        in_consume(c, n);
        c->req_body_left -= n;
        if (!c->req_body_left) {
            plan_begin(c);
            return true;
        }
        if (c->peer_eof) {
            conn_kill(c);
            return true;
        }
        return n > 0;
    }
    case PH_STALL:
        if (now_ms() >= c->deadline) {
            send_begin(c);
            return true;
        }
        return false;
    case PH_SEND: {
        bool moved = gen(c);
        if (plan_done(&c->p) && c->out_off == c->out_len) {
            response_done(c);
            return true;
        }
        return moved;
    }
    case PH_HANG:
        if (c->peer_eof) {
            conn_kill(c);
            return true;
        }
        return false;
    case PH_LINGER:
        if (c->peer_eof || now_ms() >= c->deadline) {
            conn_kill(c);
            return true;
        }
        return false;
    case PH_RESET_WAIT: {
        int q = 0;
        uint64_t now = now_ms();
        if (ioctl(c->fd, SIOCOUTQ, &q) != 0 || q == 0 || now >= c->reset_limit) {
            conn_reset(c);
            return true;
        }
        c->deadline = now + 2;
        return false;
    }
    }
    return false;
}

static bool do_read(struct conn *c)
{
    if (c->peer_eof || !c->readable || c->phase == PH_RESET_WAIT)
        return false;
    ssize_t r;
    if (c->phase == PH_HANG || c->phase == PH_LINGER) {
        char scratch[16384];
        r = io_read(c, scratch, sizeof scratch, true);
    } else {
        if (c->in_len >= IN_CAP)
            return false;
        r = io_read(c, c->in + c->in_len, IN_CAP - c->in_len, false);
        if (r > 0)
            c->in_len += (size_t)r;
    }
    if (r == 0)
        c->peer_eof = true;
    if (r == -2)
        conn_kill(c);
    return r != -1;
}

static bool do_write(struct conn *c)
{
    if (c->out_off >= c->out_len || !c->writable)
        return false;
    ssize_t r = io_write(c, c->out + c->out_off, c->out_len - c->out_off);
    if (r > 0) {
        c->out_off += (size_t)r;
        if (c->out_off == c->out_len)
            c->out_off = c->out_len = 0;
        return true;
    }
    if (r == -2) {
        conn_kill(c);
        return true;
    }
    return false; /* would block (or a 0 write, which cannot happen) */
}

static void progress(struct conn *c)
{
    for (int round = 0; round < ROUNDS; round++) {
        if (c->dead)
            return;
        bool moved = false;
        if (c->ssl && !c->hs_done) {
            int r = tls_handshake(c);
            if (r < 0) {
                conn_kill(c);
                return;
            }
            if (r == 0)
                return;
            moved = true;
        }
        moved |= do_read(c);
        if (c->dead)
            return;
        moved |= step(c);
        if (c->dead)
            return;
        moved |= do_write(c);
        if (c->dead || !moved)
            return;
    }
    c->again = true; /* had its share; continue on the next turn */
}

/* ---- listener ---------------------------------------------------------- */

static int g_lfd_tag, g_sfd_tag; /* epoll data.ptr markers */

static void listener_interest(bool on)
{
    struct epoll_event ev = {.events = on ? EPOLLIN : 0, .data.ptr = &g_lfd_tag};
    epoll_ctl(g_ep, EPOLL_CTL_MOD, g_lfd, &ev);
    g_listen_paused = !on;
}

static void on_accept(void)
{
    for (int i = 0; i < 256; i++) {
        int fd = accept4(g_lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                listener_interest(false); /* retry in 100 ms */
                g_listen_resume = now_ms() + 100;
            }
            return;
        }
        if (g_nconns >= cfg.max_conns) {
            close(fd);
            continue;
        }
        struct conn *c = calloc(1, sizeof *c);
        char *in = malloc(IN_CAP), *out = malloc(OUT_CAP);
        if (!c || !in || !out) {
            free(c), free(in), free(out);
            close(fd);
            continue;
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        c->fd = fd;
        c->in = in;
        c->out = out;
        c->readable = c->writable = true;
        g_connections++;
        stats_changed();
        bool tls = cfg.tls;
        c->phase = PH_READ;
        if (cfg.mode == M_TLS_FAIL && g_connections % cfg.every == 0) {
            c->phase = PH_TLS_FAIL;
            tls = false;
        }
        if (tls) {
            c->ssl = SSL_new(g_ctx);
            if (!c->ssl || SSL_set_fd(c->ssl, fd) != 1) {
                if (c->ssl)
                    SSL_free(c->ssl);
                close(fd);
                free(c), free(in), free(out);
                continue;
            }
            SSL_set_accept_state(c->ssl);
        }
        struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET,
                                 .data.ptr = c};
        if (epoll_ctl(g_ep, EPOLL_CTL_ADD, fd, &ev) != 0) {
            if (c->ssl)
                SSL_free(c->ssl);
            close(fd);
            free(c), free(in), free(out);
            continue;
        }
        c->idx = g_nconns;
        g_conns[g_nconns++] = c;
        progress(c);
    }
}

/* ---- TLS setup --------------------------------------------------------- */

static int alpn_select(SSL *s, const unsigned char **out, unsigned char *outlen,
                       const unsigned char *in, unsigned int inlen, void *arg)
{
    static const unsigned char h11[] = "\x08http/1.1";
    static const unsigned char h2[] = "\x02h2"; /* --alpn-h2: chosen, then not spoken */
    (void)s;
    (void)arg;
    unsigned char *sel = NULL;
    if (SSL_select_next_proto(&sel, outlen, cfg.alpn_h2 ? h2 : h11,
                              cfg.alpn_h2 ? sizeof h2 - 1 : sizeof h11 - 1, in, inlen) ==
        OPENSSL_NPN_NEGOTIATED) {
        *out = sel;
        return SSL_TLSEXT_ERR_OK;
    }
    return SSL_TLSEXT_ERR_NOACK;
}

static SSL_CTX *tls_setup(void)
{
    EVP_PKEY *pkey = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    X509 *x = X509_new();
    SSL_CTX *ctx = NULL;
    if (!pkey || !x)
        goto fail;
    X509_set_version(x, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(x), (long)(time(NULL) & 0x7fffffff));
    X509_gmtime_adj(X509_getm_notBefore(x), -3600);
    X509_gmtime_adj(X509_getm_notAfter(x), 30L * 86400);
    X509_set_pubkey(x, pkey);
    X509_NAME *name = X509_get_subject_name(x);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)"localhost", -1,
                               -1, 0);
    X509_set_issuer_name(x, name);
    X509V3_CTX v3;
    X509V3_set_ctx_nodb(&v3);
    X509V3_set_ctx(&v3, x, x, NULL, NULL, 0);
    X509_EXTENSION *ext = X509V3_EXT_conf_nid(NULL, &v3, NID_subject_alt_name,
                                              "DNS:localhost,IP:127.0.0.1");
    if (!ext)
        goto fail;
    X509_add_ext(x, ext, -1);
    X509_EXTENSION_free(ext);
    if (!X509_sign(x, pkey, EVP_sha256()))
        goto fail;
    ctx = SSL_CTX_new(TLS_server_method());
    if (!ctx || SSL_CTX_use_certificate(ctx, x) != 1 || SSL_CTX_use_PrivateKey(ctx, pkey) != 1 ||
        SSL_CTX_check_private_key(ctx) != 1)
        goto fail;
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF | SSL_OP_NO_RENEGOTIATION);
    SSL_CTX_set_alpn_select_cb(ctx, alpn_select, NULL);
    X509_free(x);
    EVP_PKEY_free(pkey);
    return ctx;
fail:
    ERR_print_errors_fp(stderr);
    SSL_CTX_free(ctx);
    X509_free(x);
    EVP_PKEY_free(pkey);
    return NULL;
}

/* ---- main -------------------------------------------------------------- */

static bool parse_u64(const char *s, uint64_t max, uint64_t *v)
{
    char *end;
    if (!s || !*s || *s == '-')
        return false;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (errno || *end || x > max)
        return false;
    *v = x;
    return true;
}

static int timeout_ms(uint64_t now)
{
    uint64_t t = 1000;
    for (int i = 0; i < g_nconns; i++) {
        struct conn *c = g_conns[i];
        if (c->again)
            return 0;
        if (c->deadline) {
            if (c->deadline <= now)
                return 0;
            if (c->deadline - now < t)
                t = c->deadline - now;
        }
    }
    if (g_listen_paused) {
        if (g_listen_resume <= now)
            return 0;
        if (g_listen_resume - now < t)
            t = g_listen_resume - now;
    }
    if (g_stats_dirty && t > 1)
        t = 1;
    return (int)t;
}

static void run_timers(uint64_t now)
{
    if (g_listen_paused && g_listen_resume <= now)
        listener_interest(true);
    /* Downwards: a kill moves the last (already visited) entry into i. */
    for (int i = g_nconns - 1; i >= 0; i--) {
        struct conn *c = g_conns[i];
        if (c->again || (c->deadline && c->deadline <= now)) {
            c->again = false;
            progress(c);
            if (!c->dead && c->deadline && c->deadline <= now)
                c->deadline = 0; /* not consumed (e.g. output full): drop */
        }
    }
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"port", required_argument, NULL, 'p'},  {"mode", required_argument, NULL, 'm'},
        {"every", required_argument, NULL, 'e'}, {"delay", required_argument, NULL, 'd'},
        {"size", required_argument, NULL, 's'},  {"stats", required_argument, NULL, 'S'},
        {"tls", no_argument, NULL, 't'},         {"max-conns", required_argument, NULL, 'c'},
        {"status", required_argument, NULL, 'C'},
        {"alpn-h2", no_argument, NULL, 'A'},
        {"help", no_argument, NULL, 'h'},        {NULL, 0, NULL, 0},
    };
    bool have_mode = false;
    int o;
    while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        uint64_t v = 0;
        switch (o) {
        case 'p':
            if (!parse_u64(optarg, 65535, &v))
                goto bad;
            cfg.port = (unsigned)v;
            break;
        case 'm': {
            int m;
            for (m = 0; m < M_COUNT && strcmp(optarg, mode_names[m]) != 0; m++)
                ;
            if (m == M_COUNT) {
                fprintf(stderr, "h1fault: unknown mode '%s'\n", optarg);
                goto bad;
            }
            cfg.mode = (enum mode)m;
            have_mode = true;
            break;
        }
        case 'e':
            if (!parse_u64(optarg, UINT64_MAX, &v) || v == 0)
                goto bad;
            cfg.every = v;
            break;
        case 'd':
            if (!parse_u64(optarg, 86400000, &v))
                goto bad;
            cfg.delay_ms = (int64_t)v;
            break;
        case 's':
            if (!parse_u64(optarg, MAX_SIZE, &v))
                goto bad;
            cfg.size = v;
            break;
        case 'S':
            cfg.stats_path = optarg;
            break;
        case 't':
            cfg.tls = true;
            break;
        case 'c':
            if (!parse_u64(optarg, 1000000, &v) || v == 0)
                goto bad;
            cfg.max_conns = (int)v;
            break;
        case 'A':
            cfg.alpn_h2 = true;
            break;
        case 'C':
            if (!parse_u64(optarg, 999, &v))
                goto bad;
            cfg.status = (int)v;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            goto bad;
        }
    }
    if (optind != argc || !have_mode)
        goto bad;
    if (cfg.mode == M_TLS_OK)
        cfg.tls = true;
    /* tls-fail serves the connections it does not fail (--every) over TLS */
    bool need_ctx = cfg.tls || (cfg.mode == M_TLS_FAIL && cfg.every > 1);
    bool https = cfg.tls || cfg.mode == M_TLS_FAIL;
    if (cfg.mode == M_TLS_FAIL)
        cfg.tls = cfg.every > 1;

    signal(SIGPIPE, SIG_IGN);
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max &&
        rl.rlim_cur < (rlim_t)cfg.max_conns + 64) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    if (need_ctx && !(g_ctx = tls_setup())) {
        fprintf(stderr, "h1fault: TLS setup failed\n");
        return 1;
    }
    g_conns = calloc((size_t)cfg.max_conns, sizeof *g_conns);
    if (!g_conns)
        return 1;

    g_lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(g_lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)cfg.port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t sl = sizeof sa;
    if (g_lfd < 0 || bind(g_lfd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
        listen(g_lfd, 1024) != 0 || getsockname(g_lfd, (struct sockaddr *)&sa, &sl) != 0) {
        fprintf(stderr, "h1fault: cannot listen on 127.0.0.1:%u: %s\n", cfg.port,
                strerror(errno));
        return 1;
    }

    g_sfd = tool_signalfd(0);
    g_ep = epoll_create1(EPOLL_CLOEXEC);
    if (g_sfd < 0 || g_ep < 0) {
        perror("h1fault: signalfd/epoll");
        return 1;
    }
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &g_lfd_tag};
    epoll_ctl(g_ep, EPOLL_CTL_ADD, g_lfd, &ev);
    ev.data.ptr = &g_sfd_tag;
    epoll_ctl(g_ep, EPOLL_CTL_ADD, g_sfd, &ev);

    stats_write();
    printf("h1fault: listening on %s://127.0.0.1:%u/\n", https ? "https" : "http",
           (unsigned)ntohs(sa.sin_port));
    fflush(stdout);

    bool stop = false;
    while (!stop) {
        struct epoll_event evs[256];
        int n = epoll_wait(g_ep, evs, 256, timeout_ms(now_ms()));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            perror("h1fault: epoll_wait");
            return 1;
        }
        for (int i = 0; i < n; i++) {
            void *ptr = evs[i].data.ptr;
            if (ptr == &g_lfd_tag) {
                on_accept();
            } else if (ptr == &g_sfd_tag) {
                struct signalfd_siginfo si;
                while (read(g_sfd, &si, sizeof si) == (ssize_t)sizeof si)
                    stop = true;
            } else {
                struct conn *c = ptr;
                uint32_t e = evs[i].events;
                if (c->dead)
                    continue;
                if (e & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
                    c->readable = true;
                if (e & (EPOLLOUT | EPOLLHUP | EPOLLERR))
                    c->writable = true;
                progress(c);
            }
        }
        uint64_t now = now_ms();
        run_timers(now);
        reap();
        if (g_stats_dirty && (n == 0 || now - g_stats_written >= STATS_MAX_MS))
            stats_write();
    }
    stats_write();
    fprintf(stderr, "h1fault: requests=%" PRIu64 " connections=%" PRIu64 "\n", g_requests,
            g_connections);
    return 0;

bad:
    usage(stderr);
    return 2;
}
