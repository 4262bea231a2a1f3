/*
 * srvm_int.h - what the sampler's files share: one reading of one source,
 * and the readers that fill it (srvm_proc.c, srvm_page.c, srvm_http.c).
 */
#ifndef PACER_SRVM_SRVM_INT_H
#define PACER_SRVM_SRVM_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sys/socket.h>

#include "stats/server.h"

/* One source's reading at one instant: counters as read (cumulative), not
 * differences. A reading that failed has neither proc nor host, and why. */
typedef struct srvm_reading {
    uint64_t t_ns; /* CLOCK_MONOTONIC, when it was read */
    bool proc;     /* the process figures below are read */
    bool host;     /* the host figures below are read */
    char why[PC_SRV_WHY];
    /* processes: --server-pid, or process-exporter's groups summed */
    double cpu_s, rss, hwm, threads, fds, nproc;
    /* the host: node-exporter */
    double cpus, busy_s, net_rx, net_tx, ctxsw, mem_used;
} srvm_reading;

/* A reading with every figure NAN and no kind. */
void srvm_reading_init(srvm_reading *r);

/* --server-pid: the processes read from /proc. A PID is that process and
 * its descendants (an nginx master and its workers); a NAME is every
 * process whose comm is NAME (its first 15 bytes, as the kernel keeps it). */
typedef struct srvm_procsel {
    int pid;          /* > 0: by PID */
    char name[16];    /* otherwise by comm */
} srvm_procsel;

int srvm_procsel_parse(const char *arg, srvm_procsel *sel, char *err, size_t errlen);

/* Read the selected processes under root (normally "/proc"): 0 with r's
 * process figures set, or -1 with r->why ("no such process"). */
int srvm_proc_read(const char *root, const srvm_procsel *sel, srvm_reading *r);

/* An exporter's page, parsed with pm_parse: 0 with r->proc (the sums of
 * namedprocess_namegroup_*, over the groups, or over the one named group
 * when group is not NULL) and/or r->host (node_*) set, or -1 with r->why.
 * groups (may be NULL) gets process-exporter's group names, comma
 * separated, cut to cap. */
int srvm_page_read(const char *text, size_t len, const char *group, srvm_reading *r, char *groups,
                   size_t cap);

/* An http:// URL as the sampler fetches it. */
typedef struct srvm_url {
    char text[256];  /* as given */
    char host[128];  /* without brackets */
    char port[8];
    char path[128];
    char group[64];  /* URL#GROUP: process-exporter's group to read ("": all) */
    struct sockaddr_storage addr;
    socklen_t addrlen; /* 0: not resolved yet */
} srvm_url;

int srvm_url_parse(const char *arg, srvm_url *u, char *err, size_t errlen);

/* The largest page the sampler takes (node-exporter's is ~60 KiB on a
 * small host, a few MiB on a large one). */
#define SRVM_PAGE_MAX (8u << 20)

/* GET u's page within timeout_ns, all of connect, send and read: 0 with
 * the body in *body (heap, NUL-terminated, *len bytes), or -1 with a
 * reason in why ("connection refused", "no answer within 333 ms",
 * "HTTP 404", "page over 8 MiB"). */
int srvm_http_get(srvm_url *u, uint64_t timeout_ns, char **body, size_t *len, char *why,
                  size_t whylen);

/* The body of the response in buf[0..n) (what was read: to the close when
 * complete, or a whole Content-Length response), moved to buf's start:
 * its length, or -1 with why ("HTTP 404", "response headers cut short").
 * Chunked bodies are decoded in place. buf[n] must be a NUL. */
long srvm_http_body(char *buf, size_t n, bool complete, char *why, size_t whylen);

#endif
