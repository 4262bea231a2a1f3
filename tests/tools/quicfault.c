/*
 * quicfault - a "QUIC server" on a loopback UDP port that does what real
 * servers will not: says nothing, or answers every Initial with something a
 * client cannot connect through. Single-threaded, poll(2).
 *
 *   quicfault --mode silent|reset|vn|retry [--port P] [--stats FILE] [--max-time S]
 *
 *   silent  bind the port, read every datagram, answer none (a server that
 *           is gone without the ICMP a closed port would give)
 *   reset   answer each datagram with a Stateless Reset (RFC 9000 10.3): a
 *           short header (0b01 then random bits), random bytes, a random
 *           16-byte token; 43 bytes, or 1 fewer than what it answers
 *   vn      answer each client Initial (a long header, version not 0) with a
 *           Version Negotiation packet (RFC 9000 17.2.1): the client's
 *           connection IDs swapped and only the reserved versions
 *           0x1a2a3a4a and 0x5a6a7a8a (RFC 9000 15), which no client speaks
 *   retry   answer each client Initial with a valid Retry (RFC 9000 17.2.5,
 *           its integrity tag per RFC 9001 5.8: AES-128-GCM, OpenSSL): a
 *           client takes the first, comes back with the token and gets
 *           another, which it must ignore; the handshake never ends
 *
 * Listens on 127.0.0.1:P (0: the kernel picks); the first stdout line is
 * "quicfault: listening on 127.0.0.1:PORT". SIGTERM/SIGINT end it (exit 0)
 * with the stats line on stderr:
 *   quicfault: datagrams=N initials=N answered=N
 * With --stats FILE the same line is kept in FILE (at start, at most every
 * 100 ms while it changes, at exit).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <openssl/evp.h>
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

enum mode { M_SILENT, M_RESET, M_VN, M_RETRY };

static struct {
    enum mode mode;
    unsigned port;
    const char *stats_path;
    long max_time_s;
} cfg = {M_SILENT, 0, NULL, 600};

static uint64_t n_dgrams, n_initials, n_answered, rng = 0x853c49e6748fea9bULL;

static uint64_t next_rand(void) {
    uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void stats_line(char *buf, size_t n) {
    snprintf(buf, n, "quicfault: datagrams=%" PRIu64 " initials=%" PRIu64 " answered=%" PRIu64 "\n",
             n_dgrams, n_initials, n_answered);
}

static void stats_write(void) {
    char line[256];
    stats_line(line, sizeof line);
    tool_stats_file(cfg.stats_path, line);
}

/* A long header packet with a non-zero version: p[0] has the form bit;
 * version, DCID length and DCID, SCID length and SCID follow (17.2). Sets
 * the connection IDs' offsets and lengths. */
static int parse_long(const unsigned char *p, size_t n, size_t *dcid, size_t *dl, size_t *scid,
                      size_t *sl) {
    if (n < 7 || !(p[0] & 0x80)) return -1;
    if (!(p[1] | p[2] | p[3] | p[4])) return -1; /* a Version Negotiation: never answer one */
    *dl = p[5];
    *dcid = 6;
    if (*dl > 20 || 6 + *dl + 1 > n) return -1;
    *sl = p[6 + *dl];
    *scid = 7 + *dl;
    if (*sl > 20 || *scid + *sl > n) return -1;
    return 0;
}

static size_t make_vn(const unsigned char *p, size_t n, unsigned char *out) {
    size_t dcid, dl, scid, sl, o = 0;
    static const unsigned char versions[8] = {0x1a, 0x2a, 0x3a, 0x4a, 0x5a, 0x6a, 0x7a, 0x8a};
    if (parse_long(p, n, &dcid, &dl, &scid, &sl)) return 0;
    out[o++] = 0x80 | (unsigned char)(next_rand() & 0x7f);
    memset(out + o, 0, 4); /* version 0 */
    o += 4;
    out[o++] = (unsigned char)sl; /* our DCID is the client's SCID */
    memcpy(out + o, p + scid, sl);
    o += sl;
    out[o++] = (unsigned char)dl; /* our SCID is the client's DCID */
    memcpy(out + o, p + dcid, dl);
    o += dl;
    memcpy(out + o, versions, sizeof versions);
    return o + sizeof versions;
}

static size_t make_reset(size_t n, unsigned char *out) {
    size_t len = 43;
    if (n <= 21) return 0; /* it must be shorter than what it answers, and >= 21 bytes */
    if (len >= n) len = n - 1;
    for (size_t i = 0; i < len; i++) out[i] = (unsigned char)next_rand();
    out[0] = 0x40 | (out[0] & 0x3f);
    return len;
}

/* The Retry Integrity Tag (RFC 9001 5.8): AES-128-GCM over nothing, with
 * the Retry pseudo-packet (the client's original DCID, then the Retry
 * without its tag) as associated data, under the fixed QUIC v1 key/nonce. */
static int retry_tag(const unsigned char *odcid, size_t odl, const unsigned char *pkt, size_t n,
                     unsigned char tag[16]) {
    static const unsigned char key[16] = {0xbe, 0x0c, 0x69, 0x0b, 0x9f, 0x66, 0x57, 0x5a,
                                          0x1d, 0x76, 0x6b, 0x54, 0xe3, 0x68, 0xc8, 0x4e};
    static const unsigned char nonce[12] = {0x46, 0x15, 0x99, 0xd3, 0x5d, 0x63,
                                            0x2b, 0xf2, 0x23, 0x98, 0x25, 0xbb};
    unsigned char aad[256], dummy[16];
    int len, ok;
    if (1 + odl + n > sizeof aad) return -1;
    aad[0] = (unsigned char)odl;
    memcpy(aad + 1, odcid, odl);
    memcpy(aad + 1 + odl, pkt, n);
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    if (!c) return -1;
    ok = EVP_EncryptInit_ex(c, EVP_aes_128_gcm(), NULL, key, nonce) == 1 &&
         EVP_EncryptUpdate(c, NULL, &len, aad, (int)(1 + odl + n)) == 1 &&
         EVP_EncryptFinal_ex(c, dummy, &len) == 1 &&
         EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, 16, tag) == 1;
    EVP_CIPHER_CTX_free(c);
    return ok ? 0 : -1;
}

/* A Retry to a client Initial (long header type 0): our DCID is the
 * client's SCID, a fresh 8-byte SCID, a 16-byte token, the tag. */
static size_t make_retry(const unsigned char *p, size_t n, unsigned char *out) {
    size_t dcid, dl, scid, sl, o = 0;
    if (parse_long(p, n, &dcid, &dl, &scid, &sl) || (p[0] & 0x30) != 0) return 0;
    out[o++] = 0xf0 | (unsigned char)(next_rand() & 0x0f);
    memcpy(out + o, p + 1, 4); /* the client's version */
    o += 4;
    out[o++] = (unsigned char)sl;
    memcpy(out + o, p + scid, sl);
    o += sl;
    out[o++] = 8;
    for (int i = 0; i < 8; i++) out[o++] = (unsigned char)next_rand();
    for (int i = 0; i < 16; i++) out[o++] = (unsigned char)next_rand(); /* token */
    if (retry_tag(p + dcid, dl, out, o, out + o)) return 0;
    return o + 16;
}

static int parse_args(int argc, char **argv) {
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *a = argv[i], *v = argv[i + 1];
        char *end;
        if (!strcmp(a, "--mode")) {
            if (!strcmp(v, "silent")) cfg.mode = M_SILENT;
            else if (!strcmp(v, "reset")) cfg.mode = M_RESET;
            else if (!strcmp(v, "vn")) cfg.mode = M_VN;
            else if (!strcmp(v, "retry")) cfg.mode = M_RETRY;
            else {
                fprintf(stderr, "quicfault: unknown mode '%s' (silent, reset, vn, retry)\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--port")) {
            long p = strtol(v, &end, 10);
            if (*end || end == v || p < 0 || p > 65535) return 2;
            cfg.port = (unsigned)p;
        } else if (!strcmp(a, "--max-time")) {
            cfg.max_time_s = strtol(v, &end, 10);
            if (*end || end == v || cfg.max_time_s < 1) return 2;
        } else if (!strcmp(a, "--stats")) {
            cfg.stats_path = v;
        } else {
            fprintf(stderr, "quicfault: unknown option %s\n", a);
            return 2;
        }
    }
    if (argc % 2 == 0) {
        fprintf(stderr, "usage: quicfault --mode silent|reset|vn|retry [--port P] [--stats FILE] [--max-time S]\n");
        return 2;
    }
    return 0;
}

int main(int argc, char **argv) {
    if (parse_args(argc, argv)) return 2;
    rng ^= (uint64_t)now_ms();
    int sfd = tool_signalfd(0);
    unsigned bound = 0;
    int fd = tool_udp_listen(cfg.port, &bound);
    if (sfd < 0 || fd < 0) {
        fprintf(stderr, "quicfault: cannot bind 127.0.0.1:%u: %s\n", cfg.port, strerror(errno));
        return 1;
    }
    printf("quicfault: listening on 127.0.0.1:%u\n", bound);
    fflush(stdout);
    stats_write();

    static unsigned char in[65536], out[128];
    struct pollfd pfds[2] = {{.fd = sfd, .events = POLLIN}, {.fd = fd, .events = POLLIN}};
    int64_t end = now_ms() + cfg.max_time_s * 1000, last = 0;
    int stop = 0, dirty = 0;
    while (!stop && now_ms() < end) {
        int n = poll(pfds, 2, 100);
        if (n > 0 && (pfds[0].revents & POLLIN)) stop = 1;
        for (int k = 0; n > 0 && k < 64; k++) {
            struct sockaddr_in from;
            socklen_t fl = sizeof from;
            ssize_t r = recvfrom(fd, in, sizeof in, 0, (struct sockaddr *)&from, &fl);
            if (r < 0) break;
            n_dgrams++;
            dirty = 1;
            size_t dcid, dl, scid, scl, len = 0;
            int initial = parse_long(in, (size_t)r, &dcid, &dl, &scid, &scl) == 0;
            if (initial) n_initials++;
            if (cfg.mode == M_VN && initial) len = make_vn(in, (size_t)r, out);
            else if (cfg.mode == M_RETRY && initial) len = make_retry(in, (size_t)r, out);
            else if (cfg.mode == M_RESET) len = make_reset((size_t)r, out);
            if (len && sendto(fd, out, len, 0, (struct sockaddr *)&from, fl) == (ssize_t)len)
                n_answered++;
        }
        if (dirty && now_ms() - last >= 100) {
            stats_write();
            last = now_ms();
            dirty = 0;
        }
    }
    char line[256];
    stats_line(line, sizeof line);
    fputs(line, stderr);
    stats_write();
    return 0;
}
