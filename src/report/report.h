/*
 * report.h - text reports (the JSON result: json_out.h).
 */
#ifndef PACER_REPORT_REPORT_H
#define PACER_REPORT_REPORT_H

#include <stdio.h>

#include "report/rundesc.h"
#include "stats/results.h"
#include "report/series.h"

/* "Running 10s test @ URL" and the threads/connections line, printed
 * before the run starts, as wrk does. */
void report_wrk_header(FILE *f, const pc_rundesc *run);

/* The rest of wrk's report (wrk2's latency block under -R), line for line,
 * then pacer's additions after "Transfer/sec:" (status codes, outcomes,
 * error causes, rate shortfall). */
void report_wrk(FILE *f, const pc_rundesc *run, const pc_results *res);

/* h2load's layout (--format h2load): the header before the run, the
 * report after. */
void report_h2load_header(FILE *f, const pc_rundesc *run);
void report_h2load(FILE *f, const pc_rundesc *run, const pc_results *res);

/* ApacheBench's layout (--format ab), and its -g and -e files. */
void report_ab_header(FILE *f, const pc_rundesc *run);
void report_ab(FILE *f, const pc_rundesc *run, const pc_results *res);
int report_ab_gnuplot(FILE *f, const pc_results *res);
int report_ab_csv(FILE *f, const pc_results *res);

/* hey's layout (--format hey; hey prints nothing before the run), and
 * its -o csv: a row per request on f (the rows -g records; needs -n),
 * pacer's notes on note. Returns 0, or -1 when f failed. */
void report_hey(FILE *f, const pc_rundesc *run, const pc_results *res);
int report_hey_csv(FILE *f, FILE *note, const pc_rundesc *run, const pc_results *res);

/* ab's "Completed N requests" lines (every N, cfg->ab_heartbeat) on f, as
 * intervals come in (an interval sink; ud: a pc_ab_progress). */
typedef struct pc_ab_progress {
    FILE *f;
    uint64_t every, done, next;
} pc_ab_progress;
struct pc_interval;
void report_ab_progress(void *ud, const struct pc_interval *iv);

/* How the run went, one line each when it matters (every layout, after
 * its own lines; indent: "  " or "pacer: "): a -n run cut short by -d, and
 * connects that needed SYN retransmits or timed out. */
void report_notes(FILE *f, const pc_rundesc *run, const pc_results *res, const char *indent);

/* "<label>N scheduled = N completed + N timed out + N errors + N never sent"
 * (+ N interrupted), without the newline: every outcome accounted for. */
void report_outcomes(FILE *f, const pc_stats *st, const char *label);

/* Send lag under this much is scheduling noise, whatever the latency. */
#define REPORT_LAG_FLOOR_NS 20000.0
/* The run was limited by the client: the verdict (report/verdict.h,
 * docs/methodology.md "Who limited the run") blames it. */
bool report_client_limited(const pc_rundesc *run, const pc_results *res);
/* "Send lag (pacer's own): ..." (the wrk layout, after Transfer/sec): a
 * run with a schedule (-R) only. */
void report_send_lag(FILE *f, const pc_rundesc *run, const pc_results *res, const char *indent);
/* Who limited the run, when the report can tell (every layout prints it
 * after the send lag; the HTML page at its top): report_judge's verdict. */
void report_verdict(FILE *f, const pc_rundesc *run, const pc_results *res, const char *indent);

/* Responses per second of the measured period (wrk's Requests/sec). */
double report_rate(const pc_results *res);

/* The protocol(s) the connections spoke: "h2", "http/1.1", or "mixed". */
const char *report_protocol(const pc_stats *st);

/* The QUIC lines (packets, RTT) of an HTTP/3 run; nothing for others. */
void report_quic(FILE *f, const pc_stats *st);
/* Whether st has any QUIC figure (the JSON's "quic" object is written). */
bool report_has_quic(const pc_stats *st);

/* The percentile distribution file the HdrHistogram plotter reads (ms). */
int report_hgrm(FILE *f, const pc_results *res);

#endif
