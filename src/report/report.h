/*
 * report.h - text reports.
 */
#ifndef PACER_REPORT_REPORT_H
#define PACER_REPORT_REPORT_H

#include <stdio.h>

#include "config.h"
#include "engine/engine.h"

/* "Running 10s test @ URL" and the threads/connections line, printed
 * before the run starts, as wrk does. */
void report_wrk_header(FILE *f, const pc_config *cfg);

/* The rest of wrk's report (wrk2's latency block under -R), line for line,
 * then pacer's additions after "Transfer/sec:" (status codes, outcomes,
 * error causes, rate shortfall). */
void report_wrk(FILE *f, const pc_config *cfg, const pc_results *res);

#endif
