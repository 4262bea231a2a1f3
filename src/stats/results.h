/*
 * results.h - what one run measured: the merged statistics and how the run
 * went. Filled by the engine (engine_run), by `pacer report` from files,
 * and read by every reporter, the SLO checks and the script's done(); it
 * lives here so that none of them needs the engine.
 */
#ifndef PACER_STATS_RESULTS_H
#define PACER_STATS_RESULTS_H

#include <stdint.h>

#include "stats/server.h"
#include "stats/stats.h"

typedef struct pc_results {
    pc_stats st;              /* all workers merged */
    uint64_t duration_ns;     /* the measured period: open loop, the schedule's (-d, or until
                                 the stop); closed loop, until the last response (which
                                 may come after -d: every response counted is in it) */
    uint64_t warmup_ns;       /* length of the warm-up as run */
    uint64_t warmup_outcomes; /* requests of the warm-up, not in st */
    uint32_t goaway_retired;  /* connections not reopened after the server's GOAWAY (h2load) */
    int signal;               /* 0, or SIGINT/SIGTERM that stopped the run */
    const char *stopped_by;   /* what ended the run: "duration" (-d), "requests" (-n done),
                                 "script" (thread:stop()), "SIGINT", "SIGTERM" (static) */
    uint64_t start_mono_ns;   /* monotonic time the measured period began */
    uint64_t connect_mono_ns; /* monotonic time the workers began opening connections (hey's
                                 start of the run; 0: not known, e.g. a merged result) */
    uint64_t start_wall_ns;   /* the same moment, wall clock (ns since the epoch) */
    uint64_t start_late_ns;   /* --start-at (or an agreed start): how late this process
                                 woke for it, on its own clock */
    uint64_t connect_phase_ns; /* from connect_mono_ns until every connection was open or
                                  given up (before any agreed start; 0: not known) */
    uint32_t intervals;       /* intervals delivered to the sink */
    /* Never-sent requests by the index of the interval they were due in
     * (heap, never_sent_n entries; NULL: none, or no intervals). They are
     * known only when the run ends, so the intervals delivered to the
     * sinks do not count them: whoever keeps the series places them
     * (series_place_never_sent). */
    uint64_t *never_sent_due;
    uint32_t never_sent_n;
    /* The server's cost (--server-pid, --server-metrics; heap, NULL: not
     * asked). Its iv[] runs beside the intervals. */
    pc_server *server;
} pc_results;

/* Release what a pc_results holds (its statistics, the never-sent counts,
 * the server's figures). */
void results_free(pc_results *res);

#endif
