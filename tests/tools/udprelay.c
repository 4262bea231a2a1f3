/*
 * udprelay - a UDP relay on loopback that loses, delays or blackholes
 * datagrams on demand: the network misbehaving between a QUIC client and a
 * real QUIC server. Single-threaded, poll(2).
 *
 *   udprelay --to PORT [--port P] [--drop FRACTION] [--seed N] [--delay MS]
 *            [--queue N] [--blackhole-after N|hs] [--reorder FRACTION]
 *            [--dup FRACTION] [--corrupt FRACTION] [--stats FILE]
 *            [--max-time SECONDS]
 *
 * Listens on 127.0.0.1:P (0: a port the kernel picks); the first stdout line
 * is "udprelay: listening on 127.0.0.1:PORT". Each client address (a flow,
 * at most MAX_FLOWS) gets its own socket connected to 127.0.0.1:--to, so the
 * server's answers go back to the client they belong to.
 *
 *   --drop F     drop each datagram with probability F, in each direction
 *                (one seeded PRNG per direction: the same --seed gives the
 *                same decisions for the same sequence of datagrams)
 *   --delay MS   hold every datagram MS ms before forwarding it; at most
 *                --queue datagrams (default 10000, 32 MiB) wait, more are
 *                dropped and counted as overflow
 *   --blackhole-after N   a flow forwards nothing more, either way, once its
 *                client has sent N datagrams (datagram N+1 on)
 *   --blackhole-after hs  ... once its client has finished its handshake:
 *                the first client datagram that carries a QUIC 1-RTT (short
 *                header) packet, alone or coalesced after long header ones
 *                (the client's Handshake Finished), is still forwarded, and
 *                nothing after it either way (the server's HANDSHAKE_DONE
 *                and every response are lost)
 *   --reorder F  hold each datagram with probability F (one at a time per
 *                direction) and send it after the next datagram of its
 *                direction, or after 20 ms if none comes: the two swap
 *   --dup F      send each datagram twice with probability F
 *   --corrupt F  flip one byte (not the first: the header form stays) of
 *                each datagram with probability F; a QUIC receiver finds
 *                it by its AEAD tag and drops it
 *   (a datagram dropped is not reordered, duplicated or corrupted; the
 *   others may be several of these at once; each has its own seeded PRNG)
 *   --max-time S exit after S seconds in any case (default 600)
 *
 * SIGTERM/SIGINT end it (exit 0); at exit the stats line goes to stderr:
 *   udprelay: flows=F c2s_in=N c2s_fwd=N c2s_drop=N c2s_hole=N s2c_in=N
 *             s2c_fwd=N s2c_drop=N s2c_hole=N c2s_reorder=N c2s_dup=N
 *             c2s_corrupt=N s2c_reorder=N s2c_dup=N s2c_corrupt=N
 *             overflow=N   (one line; fwd counts each copy sent)
 * With --stats FILE the same line is kept in FILE (through a rename): at
 * start, at most every 100 ms while something changes, on SIGUSR1, at exit.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
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

#define MAX_FLOWS 64
#define MAX_DGRAM 65536
#define QUEUE_BYTES (32u << 20)
#define BURST 64 /* datagrams read from one socket per wakeup */

enum { C2S, S2C };

static struct {
    unsigned port, to;
    double drop, reorder, dup, corrupt;
    uint64_t seed;
    int64_t delay_ms, bh_after; /* bh_after: -1 none, -2 handshake */
    size_t queue_max;
    const char *stats_path;
    int64_t max_time_s;
} cfg = {0, 0, 0, 0, 0, 0, 1, 0, -1, 10000, NULL, 600};

static struct {
    uint64_t in[2], fwd[2], drop[2], hole[2], overflow, reorder[2], dup[2], corrupt[2];
} st;
static unsigned nflows;
static int stats_dirty;

struct flow {
    struct sockaddr_in client;
    int fd;      /* connected to the server */
    uint64_t sent; /* datagrams from the client */
    int hole;
};
static struct flow flows[MAX_FLOWS];

struct item { /* a delayed datagram */
    struct item *next;
    int64_t due_us;
    int dir, flow, pass; /* pass: forwarded even once its flow is a hole */
    size_t len;
    unsigned char data[];
};
static struct item *q_head, *q_tail;
static size_t q_len, q_bytes;
static uint64_t rng[2];
/* The PRNGs of the other faults, per direction: reorder, dup, corrupt
 * (and the byte to flip). Apart from rng, so --drop's decisions stay
 * what they were for a seed. */
enum { F_REORDER, F_DUP, F_CORRUPT, F_N };
static uint64_t frng[F_N][2];
/* A datagram held to be sent after the next one of its direction. */
static struct held {
    int on, flow, pass;
    int64_t due_us;
    size_t len;
    unsigned char data[MAX_DGRAM];
} held[2];

static int64_t now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* splitmix64: small, seeded, good enough for loss decisions */
static uint64_t next_rand(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int chance(uint64_t *s, double f) {
    if (f <= 0) return 0;
    return (double)(next_rand(s) >> 11) * (1.0 / 9007199254740992.0) < f;
}

static int lose(int dir) { return chance(&rng[dir], cfg.drop); }

static void stats_line(char *buf, size_t n) {
    snprintf(buf, n,
             "udprelay: flows=%u c2s_in=%" PRIu64 " c2s_fwd=%" PRIu64 " c2s_drop=%" PRIu64
             " c2s_hole=%" PRIu64 " s2c_in=%" PRIu64 " s2c_fwd=%" PRIu64 " s2c_drop=%" PRIu64
             " s2c_hole=%" PRIu64 " c2s_reorder=%" PRIu64 " c2s_dup=%" PRIu64
             " c2s_corrupt=%" PRIu64 " s2c_reorder=%" PRIu64 " s2c_dup=%" PRIu64
             " s2c_corrupt=%" PRIu64 " overflow=%" PRIu64 "\n",
             nflows, st.in[C2S], st.fwd[C2S], st.drop[C2S], st.hole[C2S], st.in[S2C],
             st.fwd[S2C], st.drop[S2C], st.hole[S2C], st.reorder[C2S], st.dup[C2S],
             st.corrupt[C2S], st.reorder[S2C], st.dup[S2C], st.corrupt[S2C], st.overflow);
}

static void stats_write(void) {
    char line[512];
    stats_dirty = 0;
    stats_line(line, sizeof line);
    tool_stats_file(cfg.stats_path, line);
}

static int usage(void) {
    fprintf(stderr, "usage: udprelay --to PORT [--port P] [--drop FRACTION] [--seed N] [--delay MS]\n"
                    "                [--queue N] [--blackhole-after N|hs] [--reorder FRACTION]\n"
                    "                [--dup FRACTION] [--corrupt FRACTION] [--stats FILE] [--max-time S]\n");
    return 2;
}

static int num(const char *s, int64_t lo, int64_t hi, int64_t *out) {
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

static int parse_args(int argc, char **argv) {
    int64_t v;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!val) return usage();
        i++;
        if (!strcmp(a, "--to") && !num(val, 1, 65535, &v)) cfg.to = (unsigned)v;
        else if (!strcmp(a, "--port") && !num(val, 0, 65535, &v)) cfg.port = (unsigned)v;
        else if (!strcmp(a, "--seed") && !num(val, 0, INT64_MAX, &v)) cfg.seed = (uint64_t)v;
        else if (!strcmp(a, "--delay") && !num(val, 0, 60000, &v)) cfg.delay_ms = v;
        else if (!strcmp(a, "--queue") && !num(val, 1, 1000000, &v)) cfg.queue_max = (size_t)v;
        else if (!strcmp(a, "--max-time") && !num(val, 1, 86400, &v)) cfg.max_time_s = v;
        else if (!strcmp(a, "--stats")) cfg.stats_path = val;
        else if (!strcmp(a, "--blackhole-after") && !strcmp(val, "hs")) cfg.bh_after = -2;
        else if (!strcmp(a, "--blackhole-after") && !num(val, 0, INT64_MAX, &v)) cfg.bh_after = v;
        else if (!strcmp(a, "--drop") || !strcmp(a, "--reorder") || !strcmp(a, "--dup") ||
                 !strcmp(a, "--corrupt")) {
            char *end;
            double f = strtod(val, &end);
            if (end == val || *end || !(f >= 0 && f <= 1)) {
                fprintf(stderr, "udprelay: %s wants a fraction in [0, 1], not '%s'\n", a, val);
                return 2;
            }
            if (!strcmp(a, "--drop")) cfg.drop = f;
            else if (!strcmp(a, "--reorder")) cfg.reorder = f;
            else if (!strcmp(a, "--dup")) cfg.dup = f;
            else cfg.corrupt = f;
        } else {
            fprintf(stderr, "udprelay: bad option or value: %s %s\n", a, val);
            return usage();
        }
    }
    if (!cfg.to) {
        fprintf(stderr, "udprelay: --to PORT is required\n");
        return usage();
    }
    return 0;
}

static void wire_send(int dir, int fi, int lfd, const unsigned char *p, size_t n) {
    ssize_t w;
    if (dir == C2S) w = send(flows[fi].fd, p, n, 0);
    else w = sendto(lfd, p, n, 0, (struct sockaddr *)&flows[fi].client, sizeof flows[fi].client);
    /* A refused or full send is the network losing it: counted as forwarded
     * all the same (the relay did its part), like a router would. */
    (void)w;
    st.fwd[dir]++;
}

/* The held datagram of dir goes out (after the one that passed it). */
static void release_held(int dir, int lfd) {
    if (!held[dir].on) return;
    held[dir].on = 0;
    if (!flows[held[dir].flow].hole || held[dir].pass)
        wire_send(dir, held[dir].flow, lfd, held[dir].data, held[dir].len);
    else
        st.hole[dir]++;
}

/* A datagram on its way out: maybe a byte flipped, maybe held to swap
 * with the next one, maybe sent twice. */
static void send_to(int dir, int fi, int lfd, const unsigned char *p, size_t n, int pass) {
    static unsigned char tmp[MAX_DGRAM];
    if (n > 1 && chance(&frng[F_CORRUPT][dir], cfg.corrupt)) {
        memcpy(tmp, p, n);
        tmp[1 + next_rand(&frng[F_CORRUPT][dir]) % (n - 1)] ^= 0x5a;
        p = tmp;
        st.corrupt[dir]++;
    }
    if (!held[dir].on && chance(&frng[F_REORDER][dir], cfg.reorder)) {
        held[dir] = (struct held){.on = 1, .flow = fi, .pass = pass, .due_us = now_us() + 20000, .len = n};
        memcpy(held[dir].data, p, n);
        st.reorder[dir]++;
        return;
    }
    wire_send(dir, fi, lfd, p, n);
    if (chance(&frng[F_DUP][dir], cfg.dup)) {
        wire_send(dir, fi, lfd, p, n);
        st.dup[dir]++;
    }
    release_held(dir, lfd);
}

static void enqueue(int dir, int fi, const unsigned char *p, size_t n, int pass) {
    if (q_len >= cfg.queue_max || q_bytes + n > QUEUE_BYTES) {
        st.overflow++;
        return;
    }
    struct item *it = malloc(sizeof *it + n);
    if (!it) {
        st.overflow++;
        return;
    }
    it->next = NULL;
    it->due_us = now_us() + cfg.delay_ms * 1000;
    it->dir = dir;
    it->flow = fi;
    it->pass = pass;
    it->len = n;
    memcpy(it->data, p, n);
    if (q_tail) q_tail->next = it;
    else q_head = it;
    q_tail = it;
    q_len++;
    q_bytes += n;
}

/* Send what is due; constant delay keeps the FIFO sorted by due time. */
static void flush_due(int lfd) {
    int64_t now = now_us();
    while (q_head && q_head->due_us <= now) {
        struct item *it = q_head;
        q_head = it->next;
        if (!q_head) q_tail = NULL;
        q_len--;
        q_bytes -= it->len;
        if (!flows[it->flow].hole || it->pass) send_to(it->dir, it->flow, lfd, it->data, it->len, it->pass);
        else st.hole[it->dir]++;
        free(it);
        stats_dirty = 1;
    }
}

/* A QUIC variable-length integer (RFC 9000 16) at p[*o], or -1. */
static int64_t varint(const unsigned char *p, size_t n, size_t *o) {
    if (*o >= n) return -1;
    size_t len = (size_t)1 << (p[*o] >> 6);
    if (n - *o < len) return -1;
    uint64_t v = p[*o] & 0x3f;
    for (size_t i = 1; i < len; i++) v = v << 8 | p[*o + i];
    *o += len;
    return (int64_t)v;
}

/* Does the datagram carry a 1-RTT packet: a short header first, or after
 * coalesced long header packets (RFC 9000 12.2), each skipped by its
 * Length? Long header types as QUIC v1 numbers them (v2's are rotated). */
static int carries_1rtt(const unsigned char *p, size_t n) {
    size_t o = 0;
    while (o < n) {
        if (!(p[o] & 0x80)) return 1;
        if (n - o < 7) return 0;
        uint32_t ver = (uint32_t)p[o + 1] << 24 | (uint32_t)p[o + 2] << 16 | (uint32_t)p[o + 3] << 8 | p[o + 4];
        int type = (p[o] >> 4) & 3;
        if (ver == 0x6b3343cf) type = (type + 3) & 3; /* v2: 1 Initial, 2 0-RTT, 3 Handshake */
        if (ver == 0 || type == 3) return 0;          /* Version Negotiation, Retry */
        size_t q = o + 5;
        q += 1 + p[q];                                 /* DCID */
        if (q >= n) return 0;
        q += 1 + p[q];                                 /* SCID */
        if (type == 0) {                               /* Initial: its token */
            int64_t tl = varint(p, n, &q);
            if (tl < 0 || (uint64_t)tl > n - q) return 0;
            q += (size_t)tl;
        }
        int64_t len = varint(p, n, &q);
        if (len < 0 || (uint64_t)len > n - q) return 0;
        o = q + (size_t)len;
    }
    return 0;
}

/* One datagram arrived in direction dir on flow fi: decide its fate. */
static void relay(int dir, int fi, int lfd, const unsigned char *p, size_t n) {
    struct flow *f = &flows[fi];
    int last = 0; /* forward this one, then nothing more */
    st.in[dir]++;
    stats_dirty = 1;
    if (dir == C2S && !f->hole) {
        f->sent++;
        if (cfg.bh_after >= 0 && f->sent > (uint64_t)cfg.bh_after) f->hole = 1;
        if (cfg.bh_after == -2 && carries_1rtt(p, n)) last = 1;
    }
    if (f->hole) {
        st.hole[dir]++;
        return;
    }
    if (last) f->hole = 1;
    if (lose(dir)) {
        st.drop[dir]++;
        return;
    }
    if (cfg.delay_ms > 0) enqueue(dir, fi, p, n, last);
    else send_to(dir, fi, lfd, p, n, last);
}

static int flow_of(const struct sockaddr_in *a, struct pollfd *pfds) {
    for (unsigned i = 0; i < nflows; i++)
        if (flows[i].client.sin_port == a->sin_port && flows[i].client.sin_addr.s_addr == a->sin_addr.s_addr)
            return (int)i;
    if (nflows == MAX_FLOWS) return -1;
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    struct sockaddr_in srv = {.sin_family = AF_INET, .sin_port = htons((uint16_t)cfg.to),
                              .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (fd < 0 || connect(fd, (struct sockaddr *)&srv, sizeof srv) != 0) {
        if (fd >= 0) close(fd);
        return -1;
    }
    flows[nflows] = (struct flow){.client = *a, .fd = fd};
    pfds[2 + nflows] = (struct pollfd){.fd = fd, .events = POLLIN};
    return (int)nflows++;
}

static unsigned char buf[MAX_DGRAM];

static void read_clients(int lfd, struct pollfd *pfds) {
    for (int k = 0; k < BURST; k++) {
        struct sockaddr_in a;
        socklen_t al = sizeof a;
        ssize_t n = recvfrom(lfd, buf, sizeof buf, 0, (struct sockaddr *)&a, &al);
        if (n < 0) return;
        int fi = flow_of(&a, pfds);
        if (fi < 0) {
            st.in[C2S]++;
            st.overflow++;
            continue;
        }
        relay(C2S, fi, lfd, buf, (size_t)n);
    }
}

static void read_server(int fi, int lfd) {
    for (int k = 0; k < BURST; k++) {
        ssize_t n = recv(flows[fi].fd, buf, sizeof buf, 0);
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return;
            continue; /* ECONNREFUSED: the server's port is closed; read on */
        }
        relay(S2C, fi, lfd, buf, (size_t)n);
    }
}

int main(int argc, char **argv) {
    if (parse_args(argc, argv)) return 2;
    rng[C2S] = cfg.seed ^ 0x6a09e667f3bcc908ULL;
    rng[S2C] = cfg.seed ^ 0xbb67ae8584caa73bULL;
    for (int f = 0; f < F_N; f++)
        for (int d = 0; d < 2; d++) frng[f][d] = cfg.seed ^ (0x3c6ef372fe94f82bULL * (uint64_t)(2 * f + d + 3));
    int sfd = tool_signalfd(SIGUSR1);
    unsigned bound = 0;
    int lfd = tool_udp_listen(cfg.port, &bound);
    if (sfd < 0 || lfd < 0) {
        fprintf(stderr, "udprelay: cannot bind 127.0.0.1:%u: %s\n", cfg.port, strerror(errno));
        return 1;
    }
    int big = 4 << 20;
    setsockopt(lfd, SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
    printf("udprelay: listening on 127.0.0.1:%u\n", bound);
    fflush(stdout);
    stats_write();

    struct pollfd pfds[2 + MAX_FLOWS];
    pfds[0] = (struct pollfd){.fd = sfd, .events = POLLIN};
    pfds[1] = (struct pollfd){.fd = lfd, .events = POLLIN};
    int64_t end = now_us() + cfg.max_time_s * 1000000, last_stats = now_us();
    int stop = 0;
    while (!stop) {
        int64_t now = now_us(), timeout = 100;
        if (q_head) {
            int64_t w = (q_head->due_us - now + 999) / 1000;
            if (w < timeout) timeout = w < 0 ? 0 : w;
        }
        for (int d = 0; d < 2; d++)
            if (held[d].on) {
                int64_t w = (held[d].due_us - now + 999) / 1000;
                if (w < timeout) timeout = w < 0 ? 0 : w;
            }
        int n = poll(pfds, 2 + nflows, (int)timeout);
        if (n < 0 && errno != EINTR) {
            perror("udprelay: poll");
            break;
        }
        if (n > 0 && (pfds[0].revents & POLLIN)) {
            struct signalfd_siginfo si;
            while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si) {
                if (si.ssi_signo == SIGUSR1) stats_write();
                else stop = 1;
            }
        }
        if (n > 0 && (pfds[1].revents & POLLIN)) read_clients(lfd, pfds);
        for (unsigned i = 0; n > 0 && i < nflows; i++)
            if (pfds[2 + i].revents & (POLLIN | POLLERR)) read_server((int)i, lfd);
        flush_due(lfd);
        now = now_us();
        for (int d = 0; d < 2; d++)
            if (held[d].on && held[d].due_us <= now) release_held(d, lfd), stats_dirty = 1;
        if (stats_dirty && now - last_stats >= 100000) {
            stats_write();
            last_stats = now;
        }
        if (now >= end) {
            fprintf(stderr, "udprelay: --max-time reached, exiting\n");
            stop = 1;
        }
    }
    char line[512];
    stats_line(line, sizeof line);
    fputs(line, stderr);
    stats_write();
    while (q_head) {
        struct item *it = q_head;
        q_head = it->next;
        free(it);
    }
    for (unsigned i = 0; i < nflows; i++) close(flows[i].fd);
    return 0;
}
