/*
 * serve.c - `pacer serve`: options, listening sockets, worker threads,
 * signals and the totals line (see serve.h).
 *
 * Threads: each worker runs its own epoll loop. Over TCP each has its own
 * SO_REUSEPORT listener, so the kernel spreads connections evenly by hash
 * and no two threads contend on one accept queue. A Unix-domain path can
 * only be bound once, so there all workers share one listener registered
 * with EPOLLEXCLUSIVE (one thread woken per connection).
 *
 * Signals: SIGINT and SIGTERM are blocked before the workers start (they
 * inherit the mask) and read from a signalfd by the calling thread, which
 * then writes an eventfd every worker's loop watches.
 */
#include "serve/serve.h"
#include "serve/serve_int.h"
#include "util/units.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define MAX_THREADS 256
#define MAX_SIZE (1ull << 30)
#define MAX_DELAY_NS (3600ull * 1000000000ull)
/* The largest accept queue the kernel allows: listen(2) silently caps its
 * backlog at net.core.somaxconn (4096 by default since Linux 5.4), so ask
 * for more than any setting and get the setting. A smaller queue overflows
 * when a client opens thousands of connections at once, and each dropped
 * SYN costs that connect a 1 s retransmit. */
#define BACKLOG 65535

struct opts {
    unsigned port;
    const char *bind;
    const char *unix_path;
    unsigned threads;
    uint64_t size;
    uint64_t delay_ns;
    double capacity; /* 0: unlimited */
    bool port_set, bind_set;
};

static void usage(FILE *f)
{
    fputs("usage: pacer serve [options]\n"
          "  --port N       TCP port (default 0: any free port)\n"
          "  --bind ADDR    numeric IPv4/IPv6 address (default 127.0.0.1)\n"
          "  --unix PATH    listen on a Unix-domain socket instead\n"
          "  --threads N    worker threads (default 1)\n"
          "  --size BYTES   response body size (default 1024)\n"
          "  --delay D      send each response D after its request (e.g. 10ms)\n"
          "  --capacity R   serve at most R responses/s, queueing the rest\n"
          "Paths: /status/NNN answers with status NNN; anything else 200.\n",
          f);
}

static int bad(const char *fmt, ...)
{
    va_list ap;

    fputs("pacer serve: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return -EINVAL;
}

/* Resolve a numeric address (brackets allowed around IPv6) and port, never
 * touching DNS. */
static int resolve(const char *addr, unsigned port, struct sockaddr_storage *ss, socklen_t *len)
{
    struct addrinfo hints, *res = NULL;
    char host[INET6_ADDRSTRLEN + 64], serv[8];
    size_t n = strlen(addr);

    if (n >= sizeof host)
        return -EINVAL;
    if (n >= 2 && addr[0] == '[' && addr[n - 1] == ']') {
        memcpy(host, addr + 1, n - 2);
        host[n - 2] = '\0';
    } else {
        memcpy(host, addr, n + 1);
    }
    snprintf(serv, sizeof serv, "%u", port);
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE;
    if (getaddrinfo(host, serv, &hints, &res) != 0 || !res)
        return -EINVAL;
    memcpy(ss, res->ai_addr, res->ai_addrlen);
    *len = res->ai_addrlen;
    freeaddrinfo(res);
    return 0;
}

/* A whole decimal number in [lo, hi] and nothing else. */
static int parse_uint(const char *s, unsigned long lo, unsigned long hi, unsigned *out)
{
    char *end;
    unsigned long v;

    if (*s < '0' || *s > '9')
        return -EINVAL;
    errno = 0;
    v = strtoul(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return -EINVAL;
    *out = (unsigned)v;
    return 0;
}

/* Returns 0 to run, 1 after --help, or -EINVAL after one line on stderr. */
static int parse_opts(int argc, char **argv, struct opts *o)
{
    static const struct option longopts[] = {
        {"port", required_argument, NULL, 'p'},
        {"bind", required_argument, NULL, 'b'},
        {"unix", required_argument, NULL, 'u'},
        {"threads", required_argument, NULL, 't'},
        {"size", required_argument, NULL, 's'},
        {"delay", required_argument, NULL, 'd'},
        {"capacity", required_argument, NULL, 'c'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct sockaddr_storage ss;
    socklen_t sslen;
    uint64_t v;
    int c;

    memset(o, 0, sizeof *o);
    o->bind = "127.0.0.1";
    o->threads = 1;
    o->size = 1024;
    optind = 0; /* glibc: full reset, the caller may have used getopt */
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'p':
            if (parse_uint(optarg, 0, 65535, &o->port) < 0)
                return bad("bad --port '%s' (want 0..65535)", optarg);
            o->port_set = true;
            break;
        case 'b':
            if (resolve(optarg, 0, &ss, &sslen) < 0)
                return bad("bad --bind '%s' (want a numeric IPv4 or IPv6 address)", optarg);
            o->bind = optarg;
            o->bind_set = true;
            break;
        case 'u':
            if (optarg[0] == '\0' || strlen(optarg) >= sizeof ((struct sockaddr_un *)0)->sun_path)
                return bad("bad --unix '%s' (empty or too long)", optarg);
            o->unix_path = optarg;
            break;
        case 't':
            if (units_parse_count(optarg, &v) < 0 || v < 1 || v > MAX_THREADS)
                return bad("bad --threads '%s' (want 1..%d)", optarg, MAX_THREADS);
            o->threads = (unsigned)v;
            break;
        case 's':
            if (units_parse_size(optarg, &v) < 0 || v > MAX_SIZE)
                return bad("bad --size '%s' (want 0..1G bytes)", optarg);
            o->size = v;
            break;
        case 'd':
            if (units_parse_duration(optarg, &v) < 0 || v > MAX_DELAY_NS)
                return bad("bad --delay '%s' (want a duration up to 1h, e.g. 10ms)", optarg);
            o->delay_ns = v;
            break;
        case 'c':
            if (units_parse_rate(optarg, &o->capacity) < 0 || !(o->capacity > 0))
                return bad("bad --capacity '%s' (want responses per second > 0)", optarg);
            break;
        case 'h':
            usage(stdout);
            return 1;
        case ':':
            return bad("option '%s' needs a value", argv[optind - 1]);
        default:
            if (optopt)
                return bad("unknown option '-%c' (see --help)", optopt);
            return bad("unknown option '%s' (see --help)", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return bad("unexpected argument '%s'", argv[optind]);
    if (o->unix_path && (o->port_set || o->bind_set))
        return bad("--unix cannot be combined with --port or --bind");
    return 0;
}

static int tcp_listener(const struct sockaddr_storage *ss, socklen_t len, bool reuseport,
                        bool do_listen)
{
    int one = 1, rc;
    int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

    if (fd < 0)
        return -errno;
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
        (reuseport && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) < 0) ||
        bind(fd, (const struct sockaddr *)ss, len) < 0 ||
        (do_listen && listen(fd, BACKLOG) < 0)) {
        rc = -errno;
        close(fd);
        return rc;
    }
    return fd;
}

/* One listener per thread. With SO_REUSEPORT any process of the same user
 * could join a port already in use without an error, so a plain bind
 * (which fails with EADDRINUSE) first claims the port, and picks it when
 * --port is 0; the reuseport group is bound right after it is released. */
static int open_tcp(const struct opts *o, int *fds)
{
    struct sockaddr_storage ss;
    socklen_t len;
    int probe, rc;

    if (resolve(o->bind, o->port, &ss, &len) < 0)
        return -EINVAL;
    if (o->threads == 1) {
        fds[0] = tcp_listener(&ss, len, false, true);
        return fds[0] < 0 ? fds[0] : 0;
    }
    probe = tcp_listener(&ss, len, false, false);
    if (probe < 0)
        return probe;
    rc = getsockname(probe, (struct sockaddr *)&ss, &len) < 0 ? -errno : 0;
    close(probe);
    if (rc < 0)
        return rc;
    for (unsigned i = 0; i < o->threads; i++) {
        fds[i] = tcp_listener(&ss, len, true, true);
        if (fds[i] < 0)
            return fds[i];
    }
    return 0;
}

/* Whether path is a socket nobody listens on any more (left by a server
 * that died), which is safe to replace. */
static bool stale_socket(const struct sockaddr_un *sun)
{
    struct stat st;
    bool stale = false;
    int fd;

    if (lstat(sun->sun_path, &st) < 0 || !S_ISSOCK(st.st_mode))
        return false;
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return false;
    if (connect(fd, (const struct sockaddr *)sun, sizeof *sun) < 0 && errno == ECONNREFUSED)
        stale = true;
    close(fd);
    return stale;
}

static int open_unix(const char *path, int *fd_out)
{
    struct sockaddr_un sun;
    int fd, rc;

    memset(&sun, 0, sizeof sun);
    sun.sun_family = AF_UNIX;
    memcpy(sun.sun_path, path, strlen(path) + 1);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    rc = bind(fd, (struct sockaddr *)&sun, sizeof sun);
    if (rc < 0 && errno == EADDRINUSE && stale_socket(&sun) && unlink(path) == 0)
        rc = bind(fd, (struct sockaddr *)&sun, sizeof sun);
    if (rc < 0) {
        rc = -errno;
        close(fd);
        return rc;
    }
    if (listen(fd, BACKLOG) < 0) {
        rc = -errno;
        close(fd);
        unlink(path);
        return rc;
    }
    *fd_out = fd;
    return 0;
}

/* The line a test reads to find the server. */
static int print_listening(const struct opts *o, int fd)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    char host[INET6_ADDRSTRLEN];
    unsigned port;

    if (o->unix_path) {
        printf("pacer serve: listening on unix:%s\n", o->unix_path);
    } else {
        if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
            return -errno;
        if (ss.ss_family == AF_INET6) {
            const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)&ss;

            inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof host);
            port = ntohs(s6->sin6_port);
            printf("pacer serve: listening on http://[%s]:%u/\n", host, port);
        } else {
            const struct sockaddr_in *s4 = (const struct sockaddr_in *)&ss;

            inet_ntop(AF_INET, &s4->sin_addr, host, sizeof host);
            port = ntohs(s4->sin_port);
            printf("pacer serve: listening on http://%s:%u/\n", host, port);
        }
    }
    return fflush(stdout) == 0 ? 0 : -EIO;
}

/* A load test holds many connections open; take all the fds we may. */
static void raise_nofile(void)
{
    struct rlimit rl;

    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

/* Block until SIGINT/SIGTERM (returns 0) or a worker fails (-EIO). */
static int wait_for_stop(int sigfd, int fail_fd)
{
    struct pollfd pf[2] = {{.fd = sigfd, .events = POLLIN}, {.fd = fail_fd, .events = POLLIN}};

    for (;;) {
        if (poll(pf, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        if (pf[1].revents)
            return -EIO;
        if (pf[0].revents)
            return 0;
    }
}

int serve_main(int argc, char **argv)
{
    struct opts o;
    struct serve_responses resp = {0};
    struct serve_shared sh = {.stop_fd = -1, .fail_fd = -1};
    struct serve_worker *workers = NULL;
    pthread_t *tids = NULL;
    int *lfds = NULL;
    unsigned nlisten = 0, ninit = 0, started = 0;
    char *body = NULL;
    sigset_t sigs, oldmask;
    struct sigaction ign, oldpipe;
    struct signalfd_siginfo si;
    char **args = NULL;
    int ret = 1, sigfd = -1, rc;
    bool unix_bound = false;

    /* argv[0] is the subcommand name; a caller that passes the options
     * alone (argv[0] an option) gets the name put back, as getopt skips
     * argv[0]. */
    if (argc > 0 && argv[0][0] == '-') {
        args = calloc((size_t)argc + 2, sizeof *args);
        if (!args) {
            fprintf(stderr, "pacer serve: out of memory\n");
            return 1;
        }
        args[0] = (char *)"serve";
        memcpy(args + 1, argv, (size_t)argc * sizeof *args);
        argv = args;
        argc++;
    }
    rc = parse_opts(argc, argv, &o);
    if (rc != 0) {
        free(args);
        return rc > 0 ? 0 : 2;
    }

    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &sigs, &oldmask);
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ign, &oldpipe);
    raise_nofile();

    body = malloc(o.size ? o.size : 1);
    lfds = calloc(o.threads, sizeof *lfds);
    workers = calloc(o.threads, sizeof *workers);
    tids = calloc(o.threads, sizeof *tids);
    if (!body || !lfds || !workers || !tids) {
        fprintf(stderr, "pacer serve: out of memory\n");
        goto out;
    }
    for (uint64_t i = 0; i < o.size; i++)
        body[i] = (char)('a' + i % 26);
    if ((rc = serve_responses_init(&resp, o.size)) < 0) {
        fprintf(stderr, "pacer serve: cannot build responses: %s\n", strerror(-rc));
        goto out;
    }
    sh.resp = &resp;
    sh.body = body;
    sh.delay_ns = o.delay_ns;
    if (o.capacity > 0) {
        double per_thread = o.capacity / o.threads;
        double ns = 1e9 / per_thread;

        sh.interval_ns = ns < 1 ? 1 : ns > 1e18 ? (uint64_t)1e18 : (uint64_t)llround(ns);
    }
    sh.tcp = !o.unix_path;
    sh.shared_listener = o.unix_path && o.threads > 1;
    sh.stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    sh.fail_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    sigfd = signalfd(-1, &sigs, SFD_CLOEXEC | SFD_NONBLOCK);
    if (sh.stop_fd < 0 || sh.fail_fd < 0 || sigfd < 0) {
        fprintf(stderr, "pacer serve: %s\n", strerror(errno));
        goto out;
    }

    for (unsigned i = 0; i < o.threads; i++)
        lfds[i] = -1;
    if (o.unix_path) {
        rc = open_unix(o.unix_path, &lfds[0]);
        unix_bound = rc == 0;
        nlisten = 1;
    } else {
        rc = open_tcp(&o, lfds);
        nlisten = o.threads;
    }
    if (rc < 0) {
        if (o.unix_path)
            fprintf(stderr, "pacer serve: cannot listen on unix:%s: %s\n", o.unix_path, strerror(-rc));
        else
            fprintf(stderr, "pacer serve: cannot listen on %s port %u: %s\n", o.bind, o.port,
                    strerror(-rc));
        goto out;
    }

    for (; ninit < o.threads; ninit++) {
        workers[ninit].sh = &sh;
        workers[ninit].listen_fd = lfds[sh.shared_listener ? 0 : ninit];
        if ((rc = serve_worker_init(&workers[ninit])) < 0) {
            fprintf(stderr, "pacer serve: cannot start worker: %s\n", strerror(-rc));
            goto out;
        }
    }
    for (; started < o.threads; started++) {
        if ((rc = pthread_create(&tids[started], NULL, serve_worker_run, &workers[started])) != 0) {
            fprintf(stderr, "pacer serve: cannot start thread: %s\n", strerror(rc));
            goto out;
        }
    }
    if ((rc = print_listening(&o, lfds[0])) < 0) {
        fprintf(stderr, "pacer serve: cannot write to stdout: %s\n", strerror(-rc));
        goto out;
    }
    rc = wait_for_stop(sigfd, sh.fail_fd);
    if (rc < 0)
        fprintf(stderr, "pacer serve: a worker failed: %s\n", strerror(-rc));
    else
        ret = 0;

out:
    if (started > 0) {
        uint64_t requests = 0, connections = 0;

        eventfd_write(sh.stop_fd, 1);
        for (unsigned i = 0; i < started; i++) {
            pthread_join(tids[i], NULL);
            requests += workers[i].requests;
            connections += workers[i].connections;
        }
        fprintf(stderr, "pacer serve: %llu requests, %llu connections\n",
                (unsigned long long)requests, (unsigned long long)connections);
    }
    for (unsigned i = 0; i < ninit; i++)
        serve_worker_fini(&workers[i]);
    for (unsigned i = 0; i < nlisten; i++)
        if (lfds[i] >= 0)
            close(lfds[i]);
    if (unix_bound)
        unlink(o.unix_path);
    if (sigfd >= 0) {
        /* Consume a second signal that arrived while stopping, rather than
         * have it kill the process when the mask is restored. */
        while (read(sigfd, &si, sizeof si) == sizeof si)
            ;
        close(sigfd);
    }
    if (sh.stop_fd >= 0)
        close(sh.stop_fd);
    if (sh.fail_fd >= 0)
        close(sh.fail_fd);
    serve_responses_free(&resp);
    free(tids);
    free(workers);
    free(lfds);
    free(body);
    free(args);
    sigaction(SIGPIPE, &oldpipe, NULL);
    pthread_sigmask(SIG_SETMASK, &oldmask, NULL);
    return ret;
}
