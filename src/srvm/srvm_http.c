/*
 * srvm_http.c - the sampler's HTTP/1.1 GET: one blocking request on a
 * fresh plain TCP connection, the whole exchange under one deadline, the
 * page size capped. An exporter is a peer like any other: its answer is
 * checked, never trusted. See srvm_int.h.
 */
#include "srvm/srvm_int.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <netinet/in.h>
#include <sys/socket.h>

#include "util/hex.h"

int srvm_url_parse(const char *arg, srvm_url *u, char *err, size_t errlen)
{
    const char *p = arg, *hend, *pstart;
    size_t hl;

    memset(u, 0, sizeof *u);
    if (strlen(arg) >= sizeof u->text)
        goto bad;
    snprintf(u->text, sizeof u->text, "%s", arg);
    if (strncasecmp(p, "http://", 7) != 0) {
        snprintf(err, errlen, "--server-metrics '%s': an http:// URL of an exporter, e.g. "
                              "http://127.0.0.1:9100/metrics", arg);
        return -EINVAL;
    }
    p += 7;
    if (*p == '[') {
        if (!(hend = strchr(p, ']')))
            goto bad;
        hl = (size_t)(hend - p - 1);
        if (hl == 0 || hl >= sizeof u->host)
            goto bad;
        memcpy(u->host, p + 1, hl);
        p = hend + 1;
    } else {
        hl = strcspn(p, ":/?#");
        if (hl == 0 || hl >= sizeof u->host)
            goto bad;
        memcpy(u->host, p, hl);
        p += hl;
    }
    for (size_t i = 0; u->host[i]; i++)
        if (!isalnum((unsigned char)u->host[i]) && !strchr(".-_:%", u->host[i]))
            goto bad;
    snprintf(u->port, sizeof u->port, "80");
    if (*p == ':') {
        size_t pl = strspn(p + 1, "0123456789");
        long port = pl && pl < 6 ? strtol(p + 1, NULL, 10) : 0;

        if (port < 1 || port > 65535)
            goto bad;
        snprintf(u->port, sizeof u->port, "%ld", port);
        p += 1 + pl;
    }
    pstart = p;
    if (*p && *p != '/' && *p != '#')
        goto bad;
    for (; *p && *p != '#'; p++)
        if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 0x7f)
            goto bad;
    if ((size_t)(p - pstart) >= sizeof u->path)
        goto bad;
    if (p > pstart)
        snprintf(u->path, sizeof u->path, "%.*s", (int)(p - pstart), pstart);
    else
        snprintf(u->path, sizeof u->path, "/metrics");
    if (*p == '#') {
        /* URL#GROUP: one process-exporter group; never sent (a fragment). */
        size_t gl = strlen(p + 1);

        if (gl == 0 || gl >= sizeof u->group)
            goto bad;
        for (size_t i = 1; p[i]; i++)
            if ((unsigned char)p[i] <= ' ' || (unsigned char)p[i] >= 0x7f)
                goto bad;
        memcpy(u->group, p + 1, gl + 1);
    }
    return 0;
bad:
    snprintf(err, errlen, "--server-metrics '%s': not an http://HOST[:PORT][/PATH][#GROUP] URL",
             arg);
    return -EINVAL;
}

static uint64_t mono_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Wait for ev on fd until deadline: 1 ready, 0 timed out, -1 error. */
static int wait_fd(int fd, short ev, uint64_t deadline)
{
    for (;;) {
        struct pollfd p = {.fd = fd, .events = ev};
        uint64_t now = mono_ns();
        int r;

        if (now >= deadline)
            return 0;
        r = poll(&p, 1, (int)((deadline - now + 999999) / 1000000));
        if (r > 0)
            return 1;
        if (r < 0 && errno != EINTR)
            return -1;
    }
}

static void why_errno(char *why, size_t n, int e)
{
    snprintf(why, n, "%s", strerror(e));
    why[0] = (char)tolower((unsigned char)why[0]);
}

static int resolve(srvm_url *u, char *why, size_t n)
{
    struct addrinfo hints, *ai = NULL;
    int r;

    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    if ((r = getaddrinfo(u->host, u->port, &hints, &ai)) != 0 || !ai) {
        snprintf(why, n, "cannot resolve %s: %s", u->host, gai_strerror(r));
        return -1;
    }
    memcpy(&u->addr, ai->ai_addr, ai->ai_addrlen);
    u->addrlen = ai->ai_addrlen;
    freeaddrinfo(ai);
    return 0;
}

long srvm_http_body(char *buf, size_t n, bool complete, char *why, size_t wn)
{
    char *hend = memmem(buf, n, "\r\n\r\n", 4), *p;
    int status = 0;
    long clen = -1;
    bool chunked = false;
    size_t hl, blen;

    if (n < 12 || strncmp(buf, "HTTP/1.", 7) != 0 || !isdigit((unsigned char)buf[9])) {
        snprintf(why, wn, "not an HTTP response");
        return -1;
    }
    status = atoi(buf + 9);
    if (!hend) {
        snprintf(why, wn, "response headers cut short");
        return -1;
    }
    if (status != 200) {
        snprintf(why, wn, "HTTP %d", status);
        return -1;
    }
    hl = (size_t)(hend + 4 - buf);
    for (p = memchr(buf, '\n', hl); p && p + 1 < hend; p = memchr(p + 1, '\n', (size_t)(hend - p))) {
        const char *h = p + 1;

        if (strncasecmp(h, "content-length:", 15) == 0)
            clen = strtol(h + 15, NULL, 10);
        else if (strncasecmp(h, "transfer-encoding:", 18) == 0) {
            const char *e = memchr(h, '\r', (size_t)(hend + 2 - h));

            chunked = e && memmem(h, (size_t)(e - h), "chunked", 7);
        }
    }
    blen = n - hl;
    memmove(buf, buf + hl, blen);
    if (chunked) {
        size_t in = 0, out = 0;

        for (;;) {
            size_t sz = 0, digits = 0;

            while (in < blen && hex_digit((unsigned char)buf[in]) >= 0 && digits < 8)
                sz = sz * 16 + (size_t)hex_digit((unsigned char)buf[in++]), digits++;
            while (in < blen && buf[in] != '\n')
                in++; /* chunk extensions, CR */
            if (!digits || in >= blen || sz > blen - in - 1) {
                snprintf(why, wn, "chunked body cut short or malformed");
                return -1;
            }
            in++;
            if (sz == 0)
                break;
            memmove(buf + out, buf + in, sz);
            out += sz, in += sz;
            if (in + 2 > blen || buf[in] != '\r' || buf[in + 1] != '\n') {
                snprintf(why, wn, "chunked body malformed");
                return -1;
            }
            in += 2;
        }
        return (long)out;
    }
    if (clen >= 0) {
        if ((size_t)clen > blen) {
            snprintf(why, wn, "body cut short (%zu of %ld bytes)", blen, clen);
            return -1;
        }
        return clen;
    }
    if (!complete) {
        snprintf(why, wn, "body cut short");
        return -1;
    }
    return (long)blen;
}

/* Whether buf[0..n) already holds a whole Content-Length response. */
static bool have_all(const char *buf, size_t n)
{
    const char *hend = memmem(buf, n, "\r\n\r\n", 4), *p;

    if (!hend)
        return false;
    for (p = buf; (p = memchr(p, '\n', (size_t)(hend - p))); p++)
        if (strncasecmp(p + 1, "content-length:", 15) == 0)
            return n - (size_t)(hend + 4 - buf) >= (size_t)strtol(p + 16, NULL, 10);
    return false;
}

int srvm_http_get(srvm_url *u, uint64_t timeout_ns, char **body, size_t *len, char *why,
                  size_t whylen)
{
    uint64_t deadline = mono_ns() + timeout_ns;
    char req[512], *buf = NULL;
    size_t n = 0, cap = 0, off = 0, rl;
    int fd = -1, rc = -1, w, soerr = 0;
    socklen_t sl = sizeof soerr;
    bool eof = false;
    long blen;

    *body = NULL;
    *len = 0;
    if (!u->addrlen && resolve(u, why, whylen) < 0)
        return -1;
    rl = (size_t)snprintf(req, sizeof req,
                          "GET %s HTTP/1.1\r\nHost: %s:%s\r\nUser-Agent: pacer\r\n"
                          "Accept: text/plain;version=0.0.4\r\nConnection: close\r\n\r\n",
                          u->path, u->host, u->port);
    fd = socket(u->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        why_errno(why, whylen, errno);
        goto out;
    }
    if (connect(fd, (const struct sockaddr *)&u->addr, u->addrlen) < 0 && errno != EINPROGRESS) {
        why_errno(why, whylen, errno);
        goto out;
    }
    if ((w = wait_fd(fd, POLLOUT, deadline)) <= 0) {
        snprintf(why, whylen, "no connection within %.0f ms", (double)timeout_ns / 1e6);
        goto out;
    }
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0 || soerr) {
        why_errno(why, whylen, soerr ? soerr : errno);
        goto out;
    }
    while (off < rl) {
        ssize_t s = send(fd, req + off, rl - off, MSG_NOSIGNAL);

        if (s > 0)
            off += (size_t)s;
        else if (s < 0 && errno != EAGAIN && errno != EINTR) {
            why_errno(why, whylen, errno);
            goto out;
        } else if (wait_fd(fd, POLLOUT, deadline) <= 0) {
            snprintf(why, whylen, "no answer within %.0f ms", (double)timeout_ns / 1e6);
            goto out;
        }
    }
    while (!eof) {
        ssize_t r;

        if (n + 65536 + 1 > cap) {
            size_t nc = cap ? cap * 2 : 131072;
            char *nb;

            if (nc > SRVM_PAGE_MAX + 65536 + 1)
                nc = SRVM_PAGE_MAX + 65536 + 1;
            if (n + 1 >= nc) {
                snprintf(why, whylen, "page over %u MiB", SRVM_PAGE_MAX >> 20);
                goto out;
            }
            if (!(nb = realloc(buf, nc))) {
                snprintf(why, whylen, "out of memory");
                goto out;
            }
            buf = nb, cap = nc;
        }
        r = recv(fd, buf + n, cap - n - 1, 0);
        if (r > 0) {
            n += (size_t)r;
            buf[n] = '\0'; /* the header scans stop at it, whatever came */
            if (n > SRVM_PAGE_MAX + 4096) {
                snprintf(why, whylen, "page over %u MiB", SRVM_PAGE_MAX >> 20);
                goto out;
            }
            if (have_all(buf, n))
                break;
        } else if (r == 0) {
            eof = true;
        } else if (errno == EAGAIN || errno == EINTR) {
            if ((w = wait_fd(fd, POLLIN, deadline)) <= 0) {
                snprintf(why, whylen, "%s within %.0f ms", n ? "no whole page" : "no answer",
                         (double)timeout_ns / 1e6);
                goto out;
            }
        } else {
            why_errno(why, whylen, errno);
            goto out;
        }
    }
    if (!buf) {
        snprintf(why, whylen, "closed without an answer");
        goto out;
    }
    if ((blen = srvm_http_body(buf, n, eof, why, whylen)) < 0)
        goto out;
    buf[blen] = '\0';
    *body = buf;
    *len = (size_t)blen;
    buf = NULL;
    rc = 0;
out:
    if (fd >= 0)
        close(fd);
    free(buf);
    return rc;
}
