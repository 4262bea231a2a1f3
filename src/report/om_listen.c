/*
 * om_listen.c - see om_listen.h.
 */
#include "report/om_listen.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/clock.h"

#define OML_BACKLOG 16

typedef struct oml_client {
    int fd; /* -1: a free slot */
    uint64_t deadline;
    char in[OML_REQ_MAX];
    size_t inlen;
    char *out; /* the response being written (NULL: still reading) */
    size_t outlen, outoff;
} oml_client;

struct oml {
    int lfd;
    int wake[2]; /* a byte on wake[1] stops the thread */
    pthread_t th;
    oml_page_fn page;
    void *ud;
    atomic_uint_least64_t refused;
    oml_client c[OML_MAX_CLIENTS];
};

int oml_parse_addr(const char *s, bool resolve, struct sockaddr_storage *ss, socklen_t *len,
                   char *err, size_t errlen)
{
    char host[256];
    const char *colon, *h = s, *port;
    size_t hlen;
    char *end;
    unsigned long p;
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE | AI_NUMERICSERV};
    struct addrinfo *ai = NULL;
    int rc;

    if (s[0] == '[') {
        const char *close = strchr(s, ']');

        if (!close || close[1] != ':')
            goto bad;
        h = s + 1;
        hlen = (size_t)(close - h);
        port = close + 2;
    } else {
        if (!(colon = strrchr(s, ':')) || memchr(s, ':', (size_t)(colon - s)))
            goto bad;
        hlen = (size_t)(colon - s);
        port = colon + 1;
    }
    if (hlen == 0 || hlen >= sizeof host || port[0] < '0' || port[0] > '9')
        goto bad;
    errno = 0;
    p = strtoul(port, &end, 10);
    if (*end || errno || p < 1 || p > 65535)
        goto bad;
    memcpy(host, h, hlen);
    host[hlen] = '\0';
    if (!resolve)
        return 0;
    if ((rc = getaddrinfo(host, port, &hints, &ai)) != 0 || !ai) {
        snprintf(err, errlen, "--metrics-listen %s: %s", s, gai_strerror(rc));
        return -EADDRNOTAVAIL;
    }
    memcpy(ss, ai->ai_addr, ai->ai_addrlen);
    *len = ai->ai_addrlen;
    freeaddrinfo(ai);
    return 0;
bad:
    snprintf(err, errlen, "--metrics-listen wants ADDR:PORT (127.0.0.1:9464, [::1]:9464), "
                          "not '%s'", s);
    return -EINVAL;
}

static void client_close(oml_client *c)
{
    if (c->fd >= 0)
        close(c->fd);
    free(c->out);
    c->fd = -1;
    c->out = NULL;
    c->inlen = c->outlen = c->outoff = 0;
}

/* A response for c, written as the socket takes it; body may be NULL. */
static void respond(oml_client *c, const char *status, const char *extra, const char *ctype,
                    const char *body, size_t blen)
{
    char head[512];
    int n = snprintf(head, sizeof head,
                     "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s"
                     "Connection: close\r\n\r\n",
                     status, ctype, blen, extra);

    if (n < 0 || (size_t)n >= sizeof head || !(c->out = malloc((size_t)n + blen))) {
        client_close(c);
        return;
    }
    memcpy(c->out, head, (size_t)n);
    if (blen)
        memcpy(c->out + n, body, blen);
    c->outlen = (size_t)n + blen;
    c->outoff = 0;
}

static void respond_text(oml_client *c, const char *status, const char *extra)
{
    char body[128];
    int n = snprintf(body, sizeof body, "%s\n", status);

    respond(c, status, extra, "text/plain; charset=utf-8", body, (size_t)n);
}

/* Where the head ends in in[0..len) (past its blank line), or 0. */
static size_t head_end(const char *in, size_t len)
{
    for (size_t i = 0; i + 1 < len; i++) {
        if (in[i] != '\n')
            continue;
        if (in[i + 1] == '\n')
            return i + 2;
        if (i + 2 < len && in[i + 1] == '\r' && in[i + 2] == '\n')
            return i + 3;
    }
    return 0;
}

oml_ask oml_request(const char *in, size_t len)
{
    size_t headlen = head_end(in, len), linelen, plen;
    const char *sp1, *sp2, *eol;

    if (!headlen)
        return len >= OML_REQ_MAX ? OML_TOO_LARGE : OML_MORE;
    eol = memchr(in, '\n', headlen);
    linelen = (size_t)(eol - in); /* head_end found one */
    if (linelen && in[linelen - 1] == '\r')
        linelen--;
    sp1 = memchr(in, ' ', linelen);
    sp2 = sp1 ? memchr(sp1 + 1, ' ', linelen - (size_t)(sp1 + 1 - in)) : NULL;
    if (!sp1 || !sp2 || sp1 == in || sp2 == sp1 + 1 || (size_t)(in + linelen - (sp2 + 1)) != 8 ||
        memcmp(sp2 + 1, "HTTP/1.", 7) != 0 || sp2[8] < '0' || sp2[8] > '9')
        return OML_BAD;
    if ((size_t)(sp1 - in) != 3 || memcmp(in, "GET", 3) != 0)
        return OML_METHOD;
    plen = (size_t)(sp2 - (sp1 + 1));
    if (plen < 8 || memcmp(sp1 + 1, "/metrics", 8) != 0 || (plen > 8 && sp1[9] != '?'))
        return OML_PATH;
    return OML_PAGE;
}

/* The refusals, by what was asked. */
static const struct {
    const char *status, *extra;
} refusal[] = {
    [OML_TOO_LARGE] = {"431 Request Header Fields Too Large", ""},
    [OML_BAD] = {"400 Bad Request", ""},
    [OML_METHOD] = {"405 Method Not Allowed", "Allow: GET\r\n"},
    [OML_PATH] = {"404 Not Found", ""},
};

/* The client's bytes so far: a response when they make a request. */
static void serve(oml *l, oml_client *c)
{
    oml_ask a = oml_request(c->in, c->inlen);
    char *body = NULL;
    size_t blen = 0;
    const char *ctype = NULL;

    if (a == OML_MORE)
        return;
    if (a != OML_PAGE) {
        respond_text(c, refusal[a].status, refusal[a].extra);
        return;
    }
    if (l->page(l->ud, &body, &blen, &ctype) < 0) {
        respond_text(c, "500 Internal Server Error", "");
        return;
    }
    respond(c, "200 OK", "", ctype, body, blen);
    free(body);
}

static void on_readable(oml *l, oml_client *c)
{
    ssize_t n = read(c->fd, c->in + c->inlen, sizeof c->in - c->inlen);

    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
        client_close(c);
        return;
    }
    if (n < 0)
        return;
    c->inlen += (size_t)n;
    serve(l, c);
}

static void on_writable(oml_client *c)
{
    ssize_t n = send(c->fd, c->out + c->outoff, c->outlen - c->outoff, MSG_NOSIGNAL);

    if (n < 0) {
        if (errno != EAGAIN && errno != EINTR)
            client_close(c);
        return;
    }
    c->outoff += (size_t)n;
    if (c->outoff == c->outlen) {
        shutdown(c->fd, SHUT_WR);
        client_close(c);
    }
}

/* Every connection waiting: into a free slot, or refused. */
static void on_accept(oml *l)
{
    static const char busy[] = "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n"
                               "Connection: close\r\n\r\n";

    for (int i = 0; i < 64; i++) {
        int fd = accept4(l->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        oml_client *free_slot = NULL;

        if (fd < 0)
            return;
        for (int k = 0; k < OML_MAX_CLIENTS && !free_slot; k++)
            if (l->c[k].fd < 0)
                free_slot = &l->c[k];
        if (!free_slot) {
            /* Best effort: a fresh socket takes this much without waiting. */
            if (send(fd, busy, sizeof busy - 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
                /* nothing to do: it is closed either way */
            }
            close(fd);
            atomic_fetch_add(&l->refused, 1);
            continue;
        }
        free_slot->fd = fd;
        free_slot->deadline = pc_now_ns() + OML_CLIENT_NS;
    }
}

/* Until a byte comes on wake[0]; then the responses being written are
 * finished (each within its client's deadline), the rest closed. */
static void *run(void *arg)
{
    oml *l = arg;
    struct pollfd pf[2 + OML_MAX_CLIENTS];
    int at[OML_MAX_CLIENTS];
    bool stopping = false;

    for (;;) {
        uint64_t now = pc_now_ns(), next = now + 1000000000ull;
        int n = 2, timeout;

        pf[0] = (struct pollfd){.fd = stopping ? -1 : l->wake[0], .events = POLLIN};
        pf[1] = (struct pollfd){.fd = stopping ? -1 : l->lfd, .events = POLLIN};
        for (int k = 0; k < OML_MAX_CLIENTS; k++) {
            oml_client *c = &l->c[k];

            if (c->fd < 0)
                continue;
            if (now >= c->deadline || (stopping && !c->out)) {
                client_close(c);
                continue;
            }
            if (c->deadline < next)
                next = c->deadline;
            at[n - 2] = k;
            pf[n++] = (struct pollfd){.fd = c->fd, .events = c->out ? POLLOUT : POLLIN};
        }
        if (stopping && n == 2)
            break;
        timeout = (int)((next - now) / 1000000ull) + 1;
        if (poll(pf, (nfds_t)n, timeout) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (pf[0].revents) {
            stopping = true;
            continue;
        }
        for (int i = 2; i < n; i++) {
            oml_client *c = &l->c[at[i - 2]];

            if (!pf[i].revents || c->fd < 0)
                continue;
            if (c->out)
                on_writable(c);
            else if (pf[i].revents & (POLLIN | POLLHUP | POLLERR))
                on_readable(l, c);
        }
        if (pf[1].revents & POLLIN)
            on_accept(l);
    }
    return NULL;
}

int oml_start(oml **out, const char *addr, oml_page_fn page, void *ud, char *err, size_t errlen)
{
    struct sockaddr_storage ss;
    socklen_t len = 0;
    oml *l;
    sigset_t all, old;
    int one = 1, rc;

    *out = NULL;
    if ((rc = oml_parse_addr(addr, true, &ss, &len, err, errlen)) < 0)
        return rc;
    if (!(l = calloc(1, sizeof *l))) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    l->page = page;
    l->ud = ud;
    l->wake[0] = l->wake[1] = -1;
    for (int k = 0; k < OML_MAX_CLIENTS; k++)
        l->c[k].fd = -1;
    l->lfd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (l->lfd < 0 || setsockopt(l->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
        bind(l->lfd, (struct sockaddr *)&ss, len) < 0 || listen(l->lfd, OML_BACKLOG) < 0) {
        rc = -errno;
        snprintf(err, errlen, "--metrics-listen %s: %s", addr, strerror(errno));
        goto fail;
    }
    if (pipe2(l->wake, O_CLOEXEC) < 0) {
        rc = -errno;
        snprintf(err, errlen, "--metrics-listen: cannot start its thread: %s", strerror(-rc));
        goto fail;
    }
    /* The thread takes no signal: SIGINT and SIGTERM are the main
     * thread's (sigtimedwait, engine/run.c), and a process-directed one
     * delivered here would kill pacer without its report. */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = -pthread_create(&l->th, NULL, run, l);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc == 0)
        pthread_setname_np(l->th, "pacer-metrics"); /* as ps and /proc name it */
    if (rc < 0) {
        snprintf(err, errlen, "--metrics-listen: cannot start its thread: %s", strerror(-rc));
        goto fail;
    }
    *out = l;
    return 0;
fail:
    if (l->lfd >= 0)
        close(l->lfd);
    if (l->wake[0] >= 0) {
        close(l->wake[0]);
        close(l->wake[1]);
    }
    free(l);
    return rc;
}

uint64_t oml_refused(const oml *l)
{
    return l ? atomic_load(&l->refused) : 0;
}

void oml_stop(oml *l)
{
    char b = 1;

    if (!l)
        return;
    if (write(l->wake[1], &b, 1) < 0) {
        /* a pipe's first byte never fails; were it to, join would hang: */
        pthread_cancel(l->th);
    }
    pthread_join(l->th, NULL);
    for (int k = 0; k < OML_MAX_CLIENTS; k++)
        client_close(&l->c[k]);
    close(l->lfd);
    close(l->wake[0]);
    close(l->wake[1]);
    free(l);
}
