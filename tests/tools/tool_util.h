/*
 * tool_util.h - what the test servers in tests/tools share: the --stats
 * file, written whole through a rename, a UDP socket on loopback, and the
 * signals that stop them read from a descriptor. Each
 * tool is one .c file that includes this.
 */
#ifndef PACER_TOOL_UTIL_H
#define PACER_TOOL_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

/* line (the whole stats line) into path through path.tmp and a rename, so
 * that a reader never sees half of it; nothing when path is NULL. */
static inline void tool_stats_file(const char *path, const char *line)
{
    char tmp[4200];
    size_t len = strlen(line);
    ssize_t w;
    int fd;

    if (!path || (size_t)snprintf(tmp, sizeof tmp, "%s.tmp", path) >= sizeof tmp)
        return;
    fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    w = write(fd, line, len);
    close(fd);
    if (w == (ssize_t)len)
        rename(tmp, path);
    else
        unlink(tmp);
}

/* A non-blocking UDP socket bound to 127.0.0.1:port (0: any free one), the
 * port it got in *bound; -1 (errno set) when it cannot be made. */
static inline int tool_udp_listen(unsigned port, unsigned *bound)
{
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t sl = sizeof sa;

    if (fd < 0)
        return -1;
    if (bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
        getsockname(fd, (struct sockaddr *)&sa, &sl) != 0) {
        int e = errno;

        close(fd);
        errno = e;
        return -1;
    }
    *bound = ntohs(sa.sin_port);
    return fd;
}

/* SIGTERM and SIGINT (and extra, when non-zero) blocked and readable on
 * the non-blocking signalfd returned (-1 on failure). */
static inline int tool_signalfd(int extra)
{
    sigset_t mask;

    sigemptyset(&mask);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGINT);
    if (extra)
        sigaddset(&mask, extra);
    sigprocmask(SIG_BLOCK, &mask, NULL);
    return signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
}

#endif
