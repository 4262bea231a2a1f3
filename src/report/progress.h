/*
 * progress.h - the live progress line on stderr during a run.
 *
 *   [##########..........]  5.0s/10s  4,998 req/s  p50 1.21ms  p99 3.40ms  errors 0
 *
 * One update per reporting interval (--interval), from the engine's
 * merged intervals: elapsed against -d (or responses against -n), the
 * last interval's rate and corrected p50/p99, errors so far. On a terminal
 * the line is rewritten in place and erased before the report; otherwise
 * (--progress into a file or pipe) each update is its own line. During
 * --warmup a terminal shows "warming up for T". Stdout is never touched.
 */
#ifndef PACER_REPORT_PROGRESS_H
#define PACER_REPORT_PROGRESS_H

#include <stdbool.h>
#include <stdio.h>

#include "config.h"
#include "stats/interval.h"
#include "stats/results.h"

typedef struct pc_progress pc_progress;

/* Whether this run shows progress: --progress, or stderr is a terminal
 * and not --quiet. */
bool progress_wanted(const pc_config *cfg);

/* A progress line for one run (label, e.g. "round 2/3 B", may be NULL).
 * res is the results struct the engine fills (for the start time). NULL on
 * OOM or when progress_wanted() is false. */
pc_progress *progress_new(const pc_config *cfg, const pc_results *res, const char *label, FILE *f);

/* The engine's interval sink (ud = the pc_progress). */
void progress_on_interval(void *ud, const pc_interval *iv);

/* Erase the line (terminal) and free. NULL is fine. */
void progress_end(pc_progress *p);

#endif
