/*
 * tcpdelay - a TCP relay that holds what clients send for a fixed time
 * before passing it on: a link's one-way delay for kernels without
 * sch_netem (test_mpi_netns.sh). Single-threaded, ppoll(2).
 *
 *   tcpdelay --to ADDR:PORT [--listen ADDR] [--port P] [--delay MS]
 *            [--proxy] [--stats FILE] [--max-time SECONDS]
 *
 * Listens on ADDR:P (default 127.0.0.1, P 0: a port the kernel picks); the
 * first stdout line is "tcpdelay: listening on ADDR:PORT". Each client
 * connection gets its own connection to --to (IPv4). Every byte a client
 * sends is written on no earlier than MS ms (default 0) after the relay
 * read it; the server's bytes go back at once. So a request's round trip
 * gains MS, as with netem's delay on the client's way out.
 *
 *   --proxy      each connection to --to begins with a PROXY protocol v1
 *                line naming the client's address and port and the one it
 *                connected to, so the server logs who really connected
 *                (nginx: listen ... proxy_protocol; $proxy_protocol_addr)
 *   --max-time S exit after S seconds in any case (default 600)
 *
 * A client's end (FIN) is passed on once what it sent before has been; the
 * server's end closes both. At most MAX_CONNS connections at once (more
 * are refused: closed at accept), each holding at most HOLD_MAX bytes (its
 * client is not read while that much waits).
 *
 * SIGTERM/SIGINT end it (exit 0); at exit the stats line goes to stderr:
 *   tcpdelay: conns=N refused=N c2s_bytes=N s2c_bytes=N min_hold_us=N
 * (min_hold_us: the shortest time a byte was held, measured; -1 if none
 * was). With --stats FILE the same line is kept in FILE (through a
 * rename): at start, on SIGUSR1, at exit.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tool_util.h"

#define MAX_CONNS 512
#define CHUNK 16384
#define HOLD_MAX (1u << 20)

static struct {
    struct sockaddr_in listen, to;
    int64_t delay_us, max_time_s;
    int proxy;
    const char *stats_path;
} cfg = {.delay_us = 0, .max_time_s = 600};

static struct {
    uint64_t conns, refused, c2s, s2c;
    int64_t min_hold_us;
} st = {.min_hold_us = -1};

struct chunk { /* client bytes, held until due */
    struct chunk *next;
    int64_t due_us, read_us;
    size_t len, off;
    unsigned char data[];
};

struct conn {
    int cfd, ufd;
    struct chunk *head, *tail;
    size_t held;        /* bytes in the chunks */
    int c_eof, u_shut;  /* the client's FIN read; passed on */
    unsigned char back[CHUNK];
    size_t back_len, back_off; /* server bytes not yet written to the client */
};
static struct conn *conns[MAX_CONNS];

static int64_t now_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void stats_line(char *buf, size_t n)
{
    snprintf(buf, n,
             "tcpdelay: conns=%" PRIu64 " refused=%" PRIu64 " c2s_bytes=%" PRIu64
             " s2c_bytes=%" PRIu64 " min_hold_us=%" PRId64 "\n",
             st.conns, st.refused, st.c2s, st.s2c, st.min_hold_us);
}

static void stats_write(void)
{
    char line[256];

    stats_line(line, sizeof line);
    tool_stats_file(cfg.stats_path, line);
}

static int usage(void)
{
    fprintf(stderr, "usage: tcpdelay --to ADDR:PORT [--listen ADDR] [--port P] [--delay MS]\n"
                    "                [--proxy] [--stats FILE] [--max-time S]\n");
    return 2;
}

static int num(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    char *end;
    long long v;

    errno = 0;
    v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* "ADDR:PORT" (IPv4) into sa; -1 if it is not one. */
static int addr_port(const char *s, struct sockaddr_in *sa)
{
    char host[64];
    const char *colon = strrchr(s, ':');
    int64_t port;

    if (!colon || (size_t)(colon - s) >= sizeof host || num(colon + 1, 1, 65535, &port) < 0)
        return -1;
    memcpy(host, s, (size_t)(colon - s));
    host[colon - s] = '\0';
    sa->sin_family = AF_INET;
    sa->sin_port = htons((uint16_t)port);
    return inet_pton(AF_INET, host, &sa->sin_addr) == 1 ? 0 : -1;
}

static int parse_args(int argc, char **argv)
{
    int64_t v;
    int have_to = 0;

    cfg.listen.sin_family = AF_INET;
    cfg.listen.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;

        if (!strcmp(a, "--proxy")) {
            cfg.proxy = 1;
            continue;
        }
        if (!val)
            return usage();
        i++;
        if (!strcmp(a, "--to") && !addr_port(val, &cfg.to))
            have_to = 1;
        else if (!strcmp(a, "--listen") && inet_pton(AF_INET, val, &cfg.listen.sin_addr) == 1)
            ;
        else if (!strcmp(a, "--port") && !num(val, 0, 65535, &v))
            cfg.listen.sin_port = htons((uint16_t)v);
        else if (!strcmp(a, "--delay") && !num(val, 0, 60000, &v))
            cfg.delay_us = v * 1000;
        else if (!strcmp(a, "--max-time") && !num(val, 1, 86400, &v))
            cfg.max_time_s = v;
        else if (!strcmp(a, "--stats"))
            cfg.stats_path = val;
        else {
            fprintf(stderr, "tcpdelay: bad option or value: %s %s\n", a, val);
            return usage();
        }
    }
    return have_to ? 0 : usage();
}

static void conn_free(int k)
{
    struct conn *c = conns[k];
    struct chunk *n;

    close(c->cfd);
    close(c->ufd);
    while (c->head) {
        n = c->head->next;
        free(c->head);
        c->head = n;
    }
    free(c);
    conns[k] = NULL;
}

/* A chunk of len bytes at data, due at due_us, appended to c's queue; -1
 * when out of memory. */
static int hold(struct conn *c, const void *data, size_t len, int64_t read_us, int64_t due_us)
{
    struct chunk *ch = malloc(sizeof *ch + len);

    if (!ch)
        return -1;
    memcpy(ch->data, data, len);
    ch->len = len;
    ch->off = 0;
    ch->read_us = read_us;
    ch->due_us = due_us;
    ch->next = NULL;
    if (c->tail)
        c->tail->next = ch;
    else
        c->head = ch;
    c->tail = ch;
    c->held += len;
    return 0;
}

/* A new client: its connection to --to (blocking: the server is near) and,
 * with --proxy, the PROXY line first in its queue. */
static void accept_one(int lfd)
{
    struct sockaddr_in peer, me;
    socklen_t pl = sizeof peer, ml = sizeof me;
    char line[128], pa[INET_ADDRSTRLEN], ma[INET_ADDRSTRLEN];
    struct conn *c;
    int cfd, ufd, k, one = 1;

    cfd = accept4(lfd, (struct sockaddr *)&peer, &pl, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (cfd < 0)
        return;
    for (k = 0; k < MAX_CONNS && conns[k]; k++)
        ;
    ufd = k < MAX_CONNS ? socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0) : -1;
    c = ufd >= 0 ? calloc(1, sizeof *c) : NULL;
    if (!c || connect(ufd, (struct sockaddr *)&cfg.to, sizeof cfg.to) != 0 ||
        fcntl(ufd, F_SETFL, O_NONBLOCK) != 0 || getsockname(cfd, (struct sockaddr *)&me, &ml) != 0) {
        st.refused++;
        free(c);
        if (ufd >= 0)
            close(ufd);
        close(cfd);
        return;
    }
    setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(ufd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    c->cfd = cfd;
    c->ufd = ufd;
    conns[k] = c;
    st.conns++;
    if (cfg.proxy) {
        inet_ntop(AF_INET, &peer.sin_addr, pa, sizeof pa);
        inet_ntop(AF_INET, &me.sin_addr, ma, sizeof ma);
        snprintf(line, sizeof line, "PROXY TCP4 %s %s %u %u\r\n", pa, ma, ntohs(peer.sin_port),
                 ntohs(me.sin_port));
        if (hold(c, line, strlen(line), -1, 0) < 0)
            conn_free(k);
    }
}

/* The client's bytes that are due, written on; -1 when the pair is done
 * (an error), 0 otherwise. */
static int flush_up(struct conn *c, int64_t now)
{
    while (c->head && c->head->due_us <= now) {
        struct chunk *ch = c->head;
        ssize_t w = send(c->ufd, ch->data + ch->off, ch->len - ch->off, MSG_NOSIGNAL);

        if (w < 0)
            return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
        if (ch->off == 0 && ch->read_us >= 0 &&
            (st.min_hold_us < 0 || now - ch->read_us < st.min_hold_us))
            st.min_hold_us = now - ch->read_us;
        ch->off += (size_t)w;
        if (ch->read_us >= 0)
            st.c2s += (uint64_t)w;
        if (ch->off < ch->len)
            return 0;
        c->head = ch->next;
        if (!c->head)
            c->tail = NULL;
        c->held -= ch->len;
        free(ch);
    }
    if (!c->head && c->c_eof && !c->u_shut) {
        shutdown(c->ufd, SHUT_WR);
        c->u_shut = 1;
    }
    return 0;
}

/* One connection's events; -1 when it is to be closed. */
static int serve_conn(struct conn *c, short cev, short uev, int64_t now)
{
    unsigned char buf[CHUNK];
    ssize_t n;

    if ((cev & POLLIN) && !c->c_eof && c->held < HOLD_MAX) {
        n = recv(c->cfd, buf, sizeof buf, 0);
        if (n == 0)
            c->c_eof = 1;
        else if (n > 0 && hold(c, buf, (size_t)n, now, now + cfg.delay_us) < 0)
            return -1;
        else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
            return -1;
    } else if (cev & (POLLERR | POLLHUP) && !(cev & POLLIN))
        return -1;
    if ((uev & POLLIN) && c->back_len == 0) {
        n = recv(c->ufd, c->back, sizeof c->back, 0);
        if (n == 0)
            return -1; /* the server's end closes both */
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
            return -1;
        if (n > 0) {
            c->back_len = (size_t)n;
            c->back_off = 0;
        }
    } else if (uev & (POLLERR | POLLHUP) && !(uev & POLLIN))
        return -1;
    if (c->back_off < c->back_len) {
        n = send(c->cfd, c->back + c->back_off, c->back_len - c->back_off, MSG_NOSIGNAL);
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
            return -1;
        if (n > 0) {
            st.s2c += (uint64_t)n;
            c->back_off += (size_t)n;
            if (c->back_off == c->back_len)
                c->back_len = c->back_off = 0;
        }
    }
    return flush_up(c, now);
}

int main(int argc, char **argv)
{
    struct pollfd pf[2 + 2 * MAX_CONNS];
    int idx[MAX_CONNS];
    struct sockaddr_in sa;
    socklen_t sl = sizeof sa;
    char addr[INET_ADDRSTRLEN], line[256];
    int lfd, sfd, one = 1;
    int64_t t0, end_us;

    if (parse_args(argc, argv) != 0)
        return 2;
    lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        bind(lfd, (struct sockaddr *)&cfg.listen, sizeof cfg.listen) != 0 || listen(lfd, 512) != 0 ||
        getsockname(lfd, (struct sockaddr *)&sa, &sl) != 0) {
        fprintf(stderr, "tcpdelay: cannot listen: %s\n", strerror(errno));
        return 1;
    }
    sfd = tool_signalfd(SIGUSR1);
    if (sfd < 0) {
        fprintf(stderr, "tcpdelay: signalfd: %s\n", strerror(errno));
        return 1;
    }
    inet_ntop(AF_INET, &sa.sin_addr, addr, sizeof addr);
    stats_write();
    printf("tcpdelay: listening on %s:%u\n", addr, ntohs(sa.sin_port));
    fflush(stdout);
    t0 = now_us();
    end_us = t0 + cfg.max_time_s * 1000000;
    for (;;) {
        int64_t now = now_us(), wake = end_us;
        struct timespec ts;
        nfds_t n = 2;

        if (now >= end_us)
            break;
        pf[0] = (struct pollfd){.fd = sfd, .events = POLLIN};
        pf[1] = (struct pollfd){.fd = lfd, .events = POLLIN};
        for (int k = 0; k < MAX_CONNS; k++) {
            struct conn *c = conns[k];

            idx[k] = -1;
            if (!c)
                continue;
            idx[k] = (int)n;
            pf[n++] = (struct pollfd){
                .fd = c->cfd,
                .events = (short)((!c->c_eof && c->held < HOLD_MAX ? POLLIN : 0) |
                                  (c->back_off < c->back_len ? POLLOUT : 0))};
            pf[n++] = (struct pollfd){
                .fd = c->ufd,
                .events = (short)((c->back_len == 0 ? POLLIN : 0) |
                                  (c->head && c->head->due_us <= now ? POLLOUT : 0))};
            if (c->head && c->head->due_us > now && c->head->due_us < wake)
                wake = c->head->due_us;
        }
        ts.tv_sec = (wake - now) / 1000000;
        ts.tv_nsec = (long)((wake - now) % 1000000) * 1000;
        if (ppoll(pf, n, &ts, NULL) < 0 && errno != EINTR)
            break;
        if (pf[0].revents & POLLIN) {
            struct signalfd_siginfo si;

            if (read(sfd, &si, sizeof si) == (ssize_t)sizeof si && si.ssi_signo != SIGUSR1)
                break;
            stats_write();
        }
        if (pf[1].revents & POLLIN)
            accept_one(lfd);
        now = now_us();
        for (int k = 0; k < MAX_CONNS; k++)
            if (conns[k] && idx[k] >= 0 &&
                serve_conn(conns[k], pf[idx[k]].revents, pf[idx[k] + 1].revents, now) < 0)
                conn_free(k);
    }
    for (int k = 0; k < MAX_CONNS; k++)
        if (conns[k])
            conn_free(k);
    stats_write();
    stats_line(line, sizeof line);
    fputs(line, stderr);
    return 0;
}
