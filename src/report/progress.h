/*
 * progress.h - live progress on stderr during a run.
 *
 * On a terminal, a view redrawn in place ten times a second, from the
 * engine's ticks (short intervals that add up to the reporting intervals,
 * so the view changes nothing that is recorded):
 *
 *   [######..............] 3.1s/10.00s  6.9s left  stage 2/3 (1500 req/s)
 *   req/s  1498 now  target 1500 (100%)  1190 average  15490 done
 *   latency now  p50 1.19ms  p99 3.02ms  max 5.10ms  (last 1.0s)
 *   latency so far  p50 1.21ms  p99 3.40ms  max 9.87ms
 *   status  200: 15488  503: 2
 *   errors 3  timeout 2  read 1
 *     <=  1.00ms |##########          | 9120
 *     ...
 *
 * elapsed against -d (or requests ended against -n), under a load shape
 * the stage the schedule is in and what it asks for; the rate of the last
 * second against what the schedule asked for over that second (-R, or the
 * shape's mean there); corrected percentiles of the last second and of
 * everything so far, responses by status code, failed requests by cause
 * and a small latency histogram. `connecting N connections...` is shown
 * before the connections open. No line is wider than the terminal (its
 * size is read at every redraw, so a resize is followed): a line too wide
 * leaves out whole fields, never part of one; nor is the view taller; it
 * is erased before the report.
 *
 * Not a terminal (--progress into a file or pipe), or TERM=dumb: one line
 * per reporting interval (--interval), never rewritten, no escapes:
 *
 *   [##########..........] 5.0s/10.00s  4998 req/s  p50 1.21ms  p99 3.40ms  errors 0
 *
 * (under a shape, after the elapsed time, "stage 2/3" and after the rate,
 * "target N": the interval's own).
 *
 * Stdout is never touched.
 */
#ifndef PACER_REPORT_PROGRESS_H
#define PACER_REPORT_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "stats/interval.h"
#include "stats/results.h"

typedef struct pc_progress pc_progress;

/* Whether this run shows progress: --progress, or stderr is a terminal
 * and not --quiet / --no-progress. */
bool progress_wanted(const pc_config *cfg);

/* Progress for one run (label, e.g. "round 2/3 B", may be NULL). res is
 * the results struct the engine fills (for the start time). On a terminal
 * `connecting N connections...` is drawn at once. NULL on OOM or when
 * progress_wanted() is false. */
pc_progress *progress_new(const pc_config *cfg, const pc_results *res, const char *label, FILE *f);

/* The interval period to ask the engine for: a tick that divides
 * cfg->interval_ns (about 100 ms) on a terminal, cfg->interval_ns
 * otherwise. */
uint64_t progress_period_ns(const pc_progress *p);

/* The label the next lines start with (NULL: none), e.g. under mpirun
 * how many ranks' figures a line holds. */
void progress_set_label(pc_progress *p, const char *label);

/* The engine's interval sink (ud = the pc_progress). */
void progress_on_interval(void *ud, const pc_interval *iv);

/* The engine's connect hook (ud = the pc_progress): "connecting:
 * 12000/18000 open, 1.20s" in place on a terminal; otherwise a line a
 * second while they open, and the last one for a connect phase that took
 * a second or -c of 1000 or more. */
void progress_on_connect(void *ud, uint32_t opened, uint32_t settled, uint32_t total,
                         uint64_t elapsed_ns, bool done);

/* Erase the view (terminal) and free. NULL is fine. */
void progress_end(pc_progress *p);

#endif
