/*
 * prep.c - see prep.h.
 */
#include "engine/prep.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

/* -c 10000 needs 10000 sockets: find out now, not as connect errors. */
int engine_check_fds(const pc_config *cfg, char *err, size_t errlen)
{
    struct rlimit rl;
    rlim_t need = (rlim_t)cfg->connections + 4 * cfg->threads + 32;

    if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
        return 0;
    if (rl.rlim_cur >= need)
        return 0;
    if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= need) {
        rl.rlim_cur = need;
        if (setrlimit(RLIMIT_NOFILE, &rl) == 0)
            return 0;
    }
    snprintf(err, errlen,
             "-c %u needs about %llu file descriptors but the limit is %llu "
             "(raise it with 'ulimit -n %llu')",
             cfg->connections, (unsigned long long)need, (unsigned long long)rl.rlim_max,
             (unsigned long long)need);
    return -EMFILE;
}

/* Whether addr (host order) can be a source here: bound once, no port. */
static int source_ok(uint32_t addr)
{
    int one = 1, rc = 0;
    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(addr)};
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

    if (fd < 0)
        return -errno;
    if (setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one) < 0 ||
        bind(fd, (struct sockaddr *)&sin, sizeof sin) < 0)
        rc = -errno;
    close(fd);
    return rc;
}

/* One source address holds at most the ~28k ports of the ephemeral range
 * toward one server address and port, and well before that the kernel's
 * search for a free port gets slow: at 18,000 connections from 127.0.0.1,
 * connect(2) itself took 27 s of system time (__inet_hash_connect, which
 * tries the even ports first). Every 127.x.y.z is the machine's own, so on
 * loopback pacer spreads the connections itself, ENGINE_SOURCE_CONNS per
 * address; below that one source (the kernel's choice) as before. */
int engine_sources(const pc_config *cfg, uint32_t *lo, uint32_t *n, bool *auto_lo, char *err,
                   size_t errlen)
{
    char a[INET_ADDRSTRLEN];
    struct in_addr ia;
    int rc;

    *lo = *n = 0;
    *auto_lo = false;
    if (!cfg->source_lo) {
        uint32_t need = (cfg->connections + ENGINE_SOURCE_CONNS - 1) / ENGINE_SOURCE_CONNS;

        /* Only a connection to 127.x.y.z binds (conn_source), and only
         * over TCP: QUIC's UDP transport binds nothing. */
        if (need > 1) {
            *lo = 0x7f000001u; /* 127.0.0.1 */
            *n = need > 254 ? 254 : need;
            *auto_lo = true;
        }
        return 0;
    }
    for (int end = 0; end < 2; end++) {
        uint32_t addr = end ? cfg->source_hi : cfg->source_lo;

        if ((rc = source_ok(addr)) < 0) {
            ia.s_addr = htonl(addr);
            inet_ntop(AF_INET, &ia, a, sizeof a);
            snprintf(err, errlen, "--source %s: %s", a,
                     rc == -EADDRNOTAVAIL ? "not an address of this machine" : strerror(-rc));
            return rc;
        }
    }
    *lo = cfg->source_lo;
    *n = cfg->source_hi - cfg->source_lo + 1;
    return 0;
}
