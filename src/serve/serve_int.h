/*
 * serve_int.h - what the files of `pacer serve` share with each other and
 * with their unit tests; not part of pacer's API.
 *
 *   serve.c         options, listening sockets, threads, signals, totals
 *   serve_http.c    request-head parsing and the prebuilt response headers
 *   serve_worker.c  one thread's epoll loop: connections, pacing, timers
 */
#ifndef PACER_SERVE_SERVE_INT_H
#define PACER_SERVE_SERVE_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longest request line plus headers (and longest trailer section) accepted;
 * it is also the size of each connection's input buffer. */
#define SERVE_MAX_HEAD (64 * 1024)

/* Statuses a response can carry: 200..599 (1xx is answered with 200). */
#define SERVE_STATUS_MIN 200
#define SERVE_STATUS_MAX 599
#define SERVE_NSTATUS (SERVE_STATUS_MAX - SERVE_STATUS_MIN + 1)

/* How a response ends the exchange, which decides its Connection header. */
enum serve_conn_mode {
    SERVE_KEEP,   /* HTTP/1.1 persistent: no Connection header */
    SERVE_CLOSE,  /* "Connection: close", and the server closes after it */
    SERVE_KEEP10, /* HTTP/1.0 that asked for keep-alive: say so explicitly */
    SERVE_NMODES
};

/* What the server needs to know about one request head. */
struct serve_req {
    int status;               /* status to answer with, from the path */
    bool head;                /* HEAD: headers only */
    bool http10;              /* HTTP/1.0 client */
    bool keep_alive;          /* the connection persists after the response */
    bool chunked;             /* body in chunked transfer coding */
    bool expect_continue;     /* "Expect: 100-continue" */
    uint64_t content_length;  /* body length when not chunked */
};

/* Resumable search for the blank line ending a request head in buf[0..len).
 * *scan is where the previous search stopped (0 the first time). Returns 1
 * and sets *end to the offset just past the blank line, or 0 when more
 * bytes are needed (with *scan advanced so the next call does not rescan). */
int serve_http_head_end(const char *buf, size_t len, size_t *scan, size_t *end);

/* Parse a complete request head buf[0..len) (as delimited by
 * serve_http_head_end). Returns 0, or -EINVAL for anything malformed or
 * unsupported, which the caller answers with 400. */
int serve_http_parse_head(const char *buf, size_t len, struct serve_req *req);

/* Parse a chunk-size line (without its '\n'; a trailing '\r' is allowed).
 * Returns 0 with *size set, or -EINVAL. */
int serve_http_chunk_size(const char *line, size_t len, uint64_t *size);

/* Every response header the server can send, built once at startup. */
struct serve_responses {
    char *arena;
    const char *hdr[SERVE_NSTATUS][SERVE_NMODES];
    uint32_t hdr_len[SERVE_NSTATUS][SERVE_NMODES];
    size_t body_len[SERVE_NSTATUS]; /* --size, or 0 for body-less statuses */
};

int serve_responses_init(struct serve_responses *r, size_t body_size);
void serve_responses_free(struct serve_responses *r);

/* The fixed answers that do not depend on the path. */
extern const char serve_resp_400[];
extern const size_t serve_resp_400_len;
extern const char serve_resp_100[];
extern const size_t serve_resp_100_len;

/* Read-only state every worker shares. */
struct serve_shared {
    const struct serve_responses *resp;
    const char *body;          /* --size printable bytes */
    uint64_t delay_ns;         /* --delay */
    uint64_t interval_ns;      /* per-thread spacing from --capacity; 0: none */
    int stop_fd;               /* eventfd: readable once the server stops */
    int fail_fd;               /* eventfd a worker writes on a fatal error */
    bool tcp;                  /* set TCP_NODELAY on accepted sockets */
    bool shared_listener;      /* one listener for all threads: EPOLLEXCLUSIVE */
};

struct serve_loop;

/* One worker thread. serve.c fills sh and listen_fd, calls
 * serve_worker_init, runs serve_worker_run on a thread, joins it, reads the
 * counters and calls serve_worker_fini. */
struct serve_worker {
    const struct serve_shared *sh;
    int listen_fd;
    uint64_t requests;         /* complete, well-formed requests read */
    uint64_t connections;      /* connections accepted */
    struct serve_loop *loop;   /* private to serve_worker.c */
};

int serve_worker_init(struct serve_worker *w);
void *serve_worker_run(void *arg);
void serve_worker_fini(struct serve_worker *w);

#endif
