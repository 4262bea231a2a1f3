/*
 * interval.h - what was measured in one reporting interval (--interval,
 * 1 s by default): the raw material of interval logs, time series and the
 * live progress line.
 *
 * Workers record every latency sample into both their run totals and their
 * current interval, so the intervals of a run add up exactly to its totals.
 */
#ifndef PACER_STATS_INTERVAL_H
#define PACER_STATS_INTERVAL_H

#include <stdint.h>

#include "stats/hdr.h"
#include "stats/stats.h"

/*
 * The counters of an interval, once: X(kind, field, dim). dim is empty for
 * one uint64_t, [n] for an array of them. The struct below, interval_merge
 * and the message that carries an interval between MPI ranks (mpi/live.c)
 * are generated from it (interval_reset zeroes them all at once). A
 * counter that pc_stats has too (the run's total of it) has its type there
 * (checked in interval.c).
 * kind: COUNT  added up; sent as it is
 *       CODES  added up; sent only its non-zero entries (per status code)
 *   completed       responses
 *   errors          failed requests, timeouts included
 *   timeouts
 *   non2xx          responses outside 2xx/3xx
 *   bytes_read
 *   err             failed requests by kind (PC_ERR_CONNECT unused)
 *   connect_errors  failed connect or handshake attempts
 *   status          responses by status code
 *   status_other    codes >= 600
 */
#define PC_INTERVAL_COUNTERS(X)                                                              \
    X(COUNT, completed, )                                                                    \
    X(COUNT, errors, )                                                                       \
    X(COUNT, timeouts, )                                                                     \
    X(COUNT, non2xx, )                                                                       \
    X(COUNT, bytes_read, )                                                                   \
    X(COUNT, err, [PC_ERR_KINDS])                                                            \
    X(COUNT, connect_errors, )                                                               \
    X(CODES, status, [STATS_MAX_STATUS])                                                     \
    X(COUNT, status_other, )

#define PC_INTERVAL_MEMBER_(kind, field, dim) uint64_t field dim;
typedef struct pc_interval {
    struct pc_interval *next; /* for the engine's queues */
    uint32_t index;           /* 0 = the first interval of the measured period */
    uint32_t parts;           /* how many workers' intervals were merged into this one */
    uint64_t start_ns;        /* monotonic start of the interval */
    uint64_t end_ns;          /* monotonic end (the last interval ends when the run does) */
    hdr_hist latency;         /* corrected */
    hdr_hist latency_u;       /* uncorrected */
    hdr_hist send_lag;        /* pacer's own lag of the requests sent (2 significant digits) */
    PC_INTERVAL_COUNTERS(PC_INTERVAL_MEMBER_)
} pc_interval;
#undef PC_INTERVAL_MEMBER_

/* Allocate an empty interval (histograms as in stats.h). NULL on OOM. */
pc_interval *interval_new(void);
void interval_free(pc_interval *iv);
/* Empty it for reuse (keeps the allocations). */
void interval_reset(pc_interval *iv);
/* dst += src: counters and histograms add, times widen. */
void interval_merge(pc_interval *dst, const pc_interval *src);

#endif
