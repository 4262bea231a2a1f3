/*
 * rundesc.h - what a report says about the run it reports on: the command
 * line, the requests, the load's shape (threads, connections, duration,
 * rate) and the report's own switches (-L, -U, the layout, --slo).
 *
 * The reporters (report.h, outputs.h, html.h) read this and nothing else
 * about the run. A live run's is made from its pc_config (rundesc_of);
 * `pacer report` fills one from the result files it merges (merge.h), so
 * neither side builds the other's structure.
 *
 * A pc_rundesc owns nothing: its pointers are into the pc_config it was
 * made from, or into the pc_loaded that merge.c filled (merge_free
 * releases them), which outlive it.
 */
#ifndef PACER_REPORT_RUNDESC_H
#define PACER_REPORT_RUNDESC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

struct pc_slo;

/* A run spread over MPI ranks, as rank 0 merged it (src/mpi/): what the
 * JSON's "distributed" says. Arrays have ranks entries. */
typedef struct pc_dist_desc {
    uint32_t ranks;
    const char *const *hosts;  /* each rank's host name */
    const double *late_us;     /* how late each rank started, on its own clock */
    const double *clock_us;    /* each rank's wall clock minus rank 0's (estimated from a
                                  round trip; the error is within half of it) */
    const double *clock_err_us; /* ... that half: the best of the rounds' (us) */
    double start_skew_us;      /* max - min over the ranks of late_us + clock_us */
} pc_dist_desc;

typedef struct pc_rundesc {
    /* What was run */
    const char *cmdline;     /* as typed; NULL for `pacer report` (it names the sources) */
    const char *url_text;    /* the URL as given (`pacer report`: the first file's) */
    pc_url url;              /* parsed (the ab and h2load layouts); zeroed by `pacer report` */
    const char *host;        /* --host, which ab names as the server */
    pc_reqspec *reqs;        /* the distinct requests (`pacer report`: those its files list) */
    size_t nreqs;
    size_t nreqs_total;      /* how many the run had (a result file lists REPORT_JSON_URLS) */
    pc_header *headers;      /* -H, in order */
    size_t nheaders;
    const char *script_path; /* -s FILE */
    const char *run_id;      /* --metrics-listen: the id its samples carry; NULL: none */
    /* The load's shape */
    uint32_t threads;
    uint32_t connections;
    uint64_t duration_ns;    /* -d */
    bool duration_set;       /* -d given (with -n an upper bound) */
    uint64_t requests;       /* -n; 0: by duration */
    double rate;             /* -R; 0: closed loop (`pacer report`: the rates added) */
    uint64_t warmup_ns;
    pc_shape shape;          /* --stages, -R A..B, --arrival, --seed (n = 0: none) */
    uint64_t slack_ns;       /* --slack */
    bool slack_set;          /* --slack given; otherwise the slack adapted */
    uint64_t spin_ns;        /* --spin */
    uint64_t timeout_ns;
    uint64_t connect_timeout_ns;
    uint64_t interval_ns;    /* the time series' interval */
    bool h2;
    bool h3;
    const char *alpn;        /* --alpn, as given */
    uint32_t streams;        /* -m */
    uint32_t pipeline;
    bool batch_latency;      /* -B */
    bool strict_length;      /* --strict-length (ab's Length failures) */
    bool no_tls_resume;      /* --tls-resume off (ab, hey, h2load): no session offered */
    /* What the report shows */
    int format;              /* PC_FORMAT_* */
    bool latency;            /* -L */
    bool u_latency;          /* -U */
    bool ab_no_confidence;   /* ab -S: Connection Times without mean[+/-sd] and median */
    bool ab_no_percentiles;  /* ab -d: no "Percentage of the requests served" table */
    bool peer_follows_redirects; /* hey without -disable-redirects: say when 3xx came back */
    bool hdr_layout;         /* wrk2's latency block even without -R (`pacer report`) */
    const struct pc_slo *slo; /* --slo; NULL: none */
    uint32_t shard_index;    /* --shard I/N (count 0: not a shard) */
    uint32_t shard_count;
    const pc_dist_desc *dist; /* an MPI run's merged report; NULL: none */
    /* `pacer report`: the files merged and the command lines recorded in them */
    const char *const *sources;
    size_t nsources;
    char **source_cmdlines;
    size_t nsource_cmdlines;
} pc_rundesc;

/* The description of the run cfg asks for (pointers into cfg). */
void rundesc_of(pc_rundesc *d, const pc_config *cfg);

#endif
