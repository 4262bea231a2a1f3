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

typedef struct pc_interval {
    struct pc_interval *next; /* for the engine's queues */
    uint32_t index;           /* 0 = the first interval of the measured period */
    uint32_t parts;           /* how many workers' intervals were merged into this one */
    uint64_t start_ns;        /* monotonic start of the interval */
    uint64_t end_ns;          /* monotonic end (the last interval ends when the run does) */
    hdr_hist latency;         /* corrected */
    hdr_hist latency_u;       /* uncorrected */
    uint64_t completed;       /* responses */
    uint64_t errors;          /* failed requests, timeouts included */
    uint64_t timeouts;
    uint64_t non2xx;          /* responses outside 2xx/3xx */
    uint64_t bytes_read;
    uint64_t err[PC_ERR_KINDS];         /* failed requests by kind (PC_ERR_CONNECT unused) */
    uint64_t connect_errors;            /* failed connect or handshake attempts */
    uint64_t status[STATS_MAX_STATUS];  /* responses by status code */
    uint64_t status_other;              /* codes >= 600 */
} pc_interval;

/* Allocate an empty interval (histograms as in stats.h). NULL on OOM. */
pc_interval *interval_new(void);
void interval_free(pc_interval *iv);
/* Empty it for reuse (keeps the allocations). */
void interval_reset(pc_interval *iv);
/* dst += src: counters and histograms add, times widen. */
void interval_merge(pc_interval *dst, const pc_interval *src);

#endif
