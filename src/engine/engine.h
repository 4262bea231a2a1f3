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
#include "stats/results.h"
#include "stats/stats.h"

typedef struct pc_engine pc_engine;


/* Called on the main thread for each reporting interval, merged over all
 * workers, in order, as the run goes (the last one when it ends). The
 * interval is only valid during the call. */
typedef void (*pc_interval_fn)(void *ud, const pc_interval *iv);

/* Everything that can fail before load is sent. Returns 0, or a negative
 * errno with a one-line reason in err; *out must be released with
 * engine_free() either way. */
int engine_prepare(const pc_config *cfg, pc_engine **out, char *err, size_t errlen);

/* Run the test. Returns 0 with *res filled (release with
 * results_free), or a negative errno with a reason in err. SIGINT
 * and SIGTERM stop the run early; res->signal says so. */
int engine_run(pc_engine *e, pc_results *res, char *err, size_t errlen);

struct pc_reqsource;
/* Take the requests from src (proto/reqsrc.h: a script's, from
 * script_source) instead of the templates built from the config; call
 * before engine_run. src must outlive the run. Each thread's source is
 * made while the run starts, under src's signal guard. */
void engine_set_source(pc_engine *e, const struct pc_reqsource *src);

/* Ask for merged intervals of interval_ns each (call before engine_run);
 * every sink sees every interval of its period, in order, in the order the
 * sinks were added. Sinks may use two periods, the longer a multiple of
 * the shorter (a live view's ticks and the files' reporting interval): the
 * short intervals within a long one add up to it exactly, and
 * res->intervals and res->never_sent_due count the long ones. 0, or
 * -EINVAL (a third period, one that does not divide, or more than
 * ENGINE_MAX_SINKS). */
#define ENGINE_MAX_SINKS 4
int engine_add_interval_sink(pc_engine *e, uint64_t interval_ns, pc_interval_fn fn, void *ud);

/* Called on the main thread once every worker has opened its connections
 * (or given up on them): opened of total are open. Returns 0 with
 * *start_wall_ns set to the wall-clock instant (ns since the epoch) the
 * schedule starts at (0: now), or a negative errno with a reason in err:
 * the run is abandoned before anything is sent, and engine_run fails with
 * that reason. How several processes agree on one start (src/mpi/). */
typedef int (*pc_start_fn)(void *ud, uint32_t opened, uint32_t total, const char *why,
                           uint64_t *start_wall_ns, char *err, size_t errlen);
void engine_set_start_hook(pc_engine *e, pc_start_fn fn, void *ud);

/* Called on the main thread while the connections open, every 20 ms or
 * so, and once more (done) when all are open or given up: opened and
 * settled (opened or failed) of total, elapsed since the first connect. A
 * live view's "connecting: 12000/18000". */
typedef void (*pc_connect_fn)(void *ud, uint32_t opened, uint32_t settled, uint32_t total,
                              uint64_t elapsed_ns, bool done);
void engine_set_connect_hook(pc_engine *e, pc_connect_fn fn, void *ud);

void engine_free(pc_engine *e);

#endif
