/*
 * engine.h - plan a run, drive the workers, hand back merged results.
 *
 *   engine_prepare: resolve the target once, build the request bytes, set
 *                   up TLS, check file-descriptor limits (all before any
 *                   load is sent, so a mistake costs nothing);
 *   engine_run:     start one worker thread per -t, open every connection,
 *                   start the clock, run, drain, merge.
 */
#ifndef PACER_ENGINE_ENGINE_H
#define PACER_ENGINE_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "stats/interval.h"
#include "stats/stats.h"

typedef struct pc_engine pc_engine;

typedef struct pc_results {
    pc_stats st;              /* all workers merged */
    uint64_t duration_ns;     /* the measured period: open loop, the schedule's (-d, or until
                                 the stop); closed loop, until the last response (which
                                 may come after -d: every response counted is in it) */
    uint64_t warmup_ns;       /* length of the warm-up as run */
    uint64_t warmup_outcomes; /* requests of the warm-up, not in st */
    int signal;               /* 0, or SIGINT/SIGTERM that stopped the run */
    const char *stopped_by;   /* what ended the run: "duration" (-d), "requests" (-n done),
                                 "script" (thread:stop()), "SIGINT", "SIGTERM" (static) */
    uint64_t start_mono_ns;   /* monotonic time the measured period began */
    uint64_t start_wall_ns;   /* the same moment, wall clock (ns since the epoch) */
    uint32_t intervals;       /* intervals delivered to the sink */
    /* Never-sent requests by the index of the interval they were due in
     * (heap, never_sent_n entries; NULL: none, or no intervals). They are
     * known only when the run ends, so the intervals delivered to the
     * sinks do not count them: whoever keeps the series places them
     * (series_place_never_sent). */
    uint64_t *never_sent_due;
    uint32_t never_sent_n;
} pc_results;

/* Called on the main thread for each reporting interval, merged over all
 * workers, in order, as the run goes (the last one when it ends). The
 * interval is only valid during the call. */
typedef void (*pc_interval_fn)(void *ud, const pc_interval *iv);

/* Everything that can fail before load is sent. Returns 0, or a negative
 * errno with a one-line reason in err; *out must be released with
 * engine_free() either way. */
int engine_prepare(const pc_config *cfg, pc_engine **out, char *err, size_t errlen);

/* Run the test. Returns 0 with *res filled (release with
 * engine_results_free), or a negative errno with a reason in err. SIGINT
 * and SIGTERM stop the run early; res->signal says so. */
int engine_run(pc_engine *e, pc_results *res, char *err, size_t errlen);

struct pc_script;
/* Run the workers with this script (before engine_run). */
void engine_set_script(pc_engine *e, struct pc_script *s);

/* Ask for merged intervals of interval_ns each (call before engine_run);
 * every sink sees every interval, in the order they were added. All sinks
 * share one interval length. 0, or -EINVAL (a different length, or more
 * than ENGINE_MAX_SINKS). */
#define ENGINE_MAX_SINKS 4
int engine_add_interval_sink(pc_engine *e, uint64_t interval_ns, pc_interval_fn fn, void *ud);

void engine_free(pc_engine *e);
void engine_results_free(pc_results *res);

#endif
