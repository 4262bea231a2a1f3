/* bench/floor_probe.c - the ideal client at a low rate: what any client
 * can see of one server at R requests/s, against what a closed loop on one
 * connection sees (wrk -t1 -c1's "floor").
 *
 *   floor_probe HOST PORT PATH RATE SECONDS     (RATE 0: closed loop)
 *
 * One connection, one request at a time. Paced: each request is sent at
 * its intended time (start + k / RATE), reached by polling the clock, not
 * by sleeping, so the client is never late to send; the response is read by
 * polling the socket (MSG_DONTWAIT), so the client is never late to read.
 * Latency = the response's last byte read - the intended send time. With
 * RATE 0 each request is sent the moment the previous response is read.
 * Prints "p50_ms p99_ms requests". What this client adds is two clock reads
 * and the system calls; whatever pacer's p50 at RATE has above this one's
 * is pacer's, and what this one has above the closed loop is the server's
 * (and the kernel's) for being woken for each request.
 *
 * A benchmark tool only (bench/rate_sweep.sh FLOOR=1 builds and runs it):
 * HTTP/1.1 responses with a Content-Length, no error recovery. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

/* Read one response by polling; 0 when whole, -1 on error or EOF. */
static int read_response(int fd, char *buf, size_t cap)
{
    size_t have = 0, need = 0;

    for (;;) {
        ssize_t n = recv(fd, buf + have, cap - have, MSG_DONTWAIT);

        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK))
            return -1;
        if (n < 0)
            continue;
        have += (size_t)n;
        if (!need) {
            char *end = memmem(buf, have, "\r\n\r\n", 4), *cl;

            if (!end)
                continue;
            *end = '\0';
            cl = strcasestr(buf, "\r\ncontent-length:");
            if (!cl)
                return -1;
            need = (size_t)(end + 4 - buf) + strtoull(cl + 17, NULL, 10);
            if (need > cap)
                return -1;
        }
        if (have >= need)
            return have == need ? 0 : -1;
    }
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: floor_probe HOST PORT PATH RATE SECONDS (RATE 0: closed loop)\n");
        return 2;
    }
    double rate = atof(argv[4]), secs = atof(argv[5]);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[2]))};
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    char req[512], *buf = malloc(1 << 20);
    int len = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: %s:%s\r\n\r\n", argv[3], argv[1],
                       argv[2]);
    size_t cap = (size_t)(rate > 0 ? rate * secs : 200000 * secs) + 16, n = 0;
    uint64_t *lat = malloc(cap * sizeof *lat), start, end, gap = rate > 0 ? (uint64_t)(1e9 / rate) : 0;

    if (fd < 0 || !buf || !lat || inet_pton(AF_INET, argv[1], &a.sin_addr) != 1 ||
        connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
        perror("floor_probe");
        return 1;
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    start = now_ns() + 10000000u; /* 10 ms in */
    end = start + (uint64_t)(secs * 1e9);
    while (now_ns() < start) {
    }
    for (uint64_t intended = start; intended < end && n < cap;) {
        uint64_t t;

        while ((t = now_ns()) < intended) {
        }
        if (!gap)
            intended = t;
        if (send(fd, req, (size_t)len, MSG_NOSIGNAL) != len || read_response(fd, buf, 1 << 20) < 0) {
            fprintf(stderr, "floor_probe: request %zu failed\n", n);
            return 1;
        }
        t = now_ns();
        lat[n++] = t - intended;
        intended = gap ? intended + gap : t;
    }
    qsort(lat, n, sizeof *lat, cmp_u64);
    printf("%.3f %.3f %zu\n", lat[n / 2] / 1e6, lat[n * 99 / 100] / 1e6, n);
    return 0;
}
