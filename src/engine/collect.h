/*
 * collect.h - the main thread's side of the intervals (engine-internal):
 * the workers' intervals merged by index and handed to the sinks in order.
 *
 * Sinks use one period or two, the longer a multiple k of the shorter: the
 * workers record intervals of the shorter one (run.interval_ns), and the
 * collector adds k of them up into each long one, so that a live view's
 * ticks and the files' reporting intervals come from the same samples and
 * the reporting intervals are what they would be without the view.
 */
#ifndef PACER_ENGINE_COLLECT_H
#define PACER_ENGINE_COLLECT_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/engine.h"
#include "engine/worker.h"

typedef struct co_sink {
    pc_interval_fn fn;
    void *ud;
    uint64_t period_ns;
} co_sink;

typedef struct collector {
    const co_sink *sinks;
    int nsinks;
    uint64_t short_ns, long_ns; /* the two periods (equal: one) */
    uint32_t k;                 /* short intervals per long one, >= 1 */
    pc_worker **ws;
    uint32_t nworkers;
    uint32_t next;      /* index of the next short interval to emit */
    pc_interval **pend; /* pend[i]: merged interval next + i, or NULL */
    uint32_t npend;
    pc_interval *acc;   /* the long interval being added up (k > 1) */
    pc_results *res;    /* res->intervals counts the long intervals */
} collector;

/* Take what the workers finished, merge by index, emit what is complete
 * (every worker contributed), or everything when the run is over. */
void collect(collector *co, bool final);

/* res->never_sent_due += the worker's, by long interval (the worker
 * counts them by short interval). */
void collect_never_sent_due(pc_results *res, const pc_worker *w, uint32_t k);

/* Free what the collector still holds (a run that ended early). */
void collect_free(collector *co);

#endif
