/*
 * server.h - what the server under test cost over a run, as pacer's own
 * sampler (src/srvm/) measured it from /proc (--server-pid) or from the
 * server host's Prometheus exporters (--server-metrics). A pure data type,
 * beside pc_stats, so that the reports and `pacer report` need no sampler.
 *
 * Every figure is a double that is NAN when it was not measured; the
 * *_why strings then say why ("" when it was).
 */
#ifndef PACER_STATS_SERVER_H
#define PACER_STATS_SERVER_H

#include <stdint.h>

#define PC_SRV_WHY 400

/* One reporting interval (res->intervals of them, in order). */
typedef struct pc_srv_point {
    double cpu_s;          /* the server's CPU seconds in it */
    double rss_bytes;      /* its resident memory at the interval's end */
    double host_busy_s;    /* the host's busy CPU seconds in it (node-exporter) */
    double host_net_bytes; /* the host's network bytes, received + sent, in it */
} pc_srv_point;

typedef struct pc_server {
    char source[320];         /* what was sampled: "pid 123 and 4 children", "nginx (5 processes)",
                                 "http://127.0.0.1:9256/metrics (nginx)" */
    char proc_why[PC_SRV_WHY]; /* why the process figures are missing; "" when measured */
    double window_s;          /* seconds between the first and the last sample */
    double cpu_s;             /* the server's CPU seconds (user + system) over the window */
    double rss_peak;          /* the largest resident memory (bytes) a sample saw */
    double hwm;               /* VmHWM summed over the processes: their own peaks since they
                                 started (--server-pid only) */
    double threads_peak;      /* the most threads a sample saw */
    double fds_peak;          /* the most open file descriptors a sample saw */
    char host_source[320];    /* the node-exporter's URL, or "" */
    char host_why[PC_SRV_WHY]; /* why the host figures are missing ("": measured or not asked) */
    double host_cpus;         /* the host's CPUs */
    double host_busy_s;       /* busy CPU seconds (all modes but idle and iowait), all CPUs */
    double host_net_rx, host_net_tx; /* bytes over the window, every interface (loopback too) */
    double host_ctxsw;        /* context switches over the window */
    double host_mem_used_peak; /* MemTotal - MemAvailable, the largest a sample saw */
    pc_srv_point *iv;         /* per interval (heap; niv entries; NULL: none) */
    uint32_t niv;
} pc_server;

/* pc_server's figures, once: X(field, object, JSON key, how runs add up)
 * with object NULL (the "server" object) or "host", and SUM (the figures
 * of a window: CPU seconds, bytes) or MAX (peaks). server_new, the JSON
 * writer and reader and report_server_add go through it. */
#define PC_SERVER_FIELDS(X)                                      \
    X(window_s, NULL, "window_s", SUM)                           \
    X(cpu_s, NULL, "cpu_s", SUM)                                 \
    X(rss_peak, NULL, "rss_peak_bytes", MAX)                     \
    X(hwm, NULL, "vmhwm_bytes", MAX)                             \
    X(threads_peak, NULL, "threads_peak", MAX)                   \
    X(fds_peak, NULL, "fds_peak", MAX)                           \
    X(host_cpus, "host", "cpus", MAX)                            \
    X(host_busy_s, "host", "busy_cpu_s", SUM)                    \
    X(host_net_rx, "host", "net_rx_bytes", SUM)                  \
    X(host_net_tx, "host", "net_tx_bytes", SUM)                  \
    X(host_ctxsw, "host", "context_switches", SUM)               \
    X(host_mem_used_peak, "host", "mem_used_peak_bytes", MAX)

/* A pc_server with every figure NAN and no reasons (heap; NULL: out of
 * memory). server_free releases one. */
pc_server *server_new(void);
void server_free(pc_server *s);

#endif
