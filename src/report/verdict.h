/*
 * verdict.h - who limited a run, decided once (verdict.c) for every line
 * that says it: the verdict every layout prints after the send lag, the
 * wrk layout's "Requested rate ... but achieved ..." note, the JSON's
 * "diagnosis" and client.limited. docs/methodology.md ("Who limited the
 * run") has the decision table, row by row.
 */
#ifndef PACER_REPORT_VERDICT_H
#define PACER_REPORT_VERDICT_H

#include "report/rundesc.h"
#include "stats/results.h"

enum report_by {
    REPORT_BY_NONE,        /* nothing to say: the rate was reached, or a closed loop ran freely */
    REPORT_BY_SERVER,      /* saturated, refused streams, sent GOAWAY, latency rose with the rate */
    REPORT_BY_CLIENT,      /* pacer's own lag or busy threads explain what was measured */
    REPORT_BY_CONNECTIONS, /* too few connections for the server's latency (raise -c) */
    REPORT_BY_ERRORS,      /* failed requests, or none answered */
    REPORT_BY_UNKNOWN      /* short of the rate, and nothing measured explains it */
};

/* The decision table's rows (docs/methodology.md), in the order they are tried. */
enum report_rule {
    REPORT_RULE_NONE,
    REPORT_RULE_NO_RESPONSE,
    REPORT_RULE_WENT_QUIET,
    REPORT_RULE_CONNECTS_FAILED,
    REPORT_RULE_FAILED,
    REPORT_RULE_H2_REFUSED,
    REPORT_RULE_SATURATED,
    REPORT_RULE_CLIENT_BUSY,
    REPORT_RULE_CLIENT_LAG,
    REPORT_RULE_CONNECTIONS,
    REPORT_RULE_SOME_FAILED,
    REPORT_RULE_UNEXPLAINED,
    REPORT_RULE_KNEE,
    REPORT_RULE_CLOSED_BUSY,
    REPORT_RULE_CLIENT_STALL
};

typedef struct report_judgement {
    enum report_by by;
    enum report_rule rule;
    char verdict[768];   /* the verdict line without indent or newline ("": none) */
    char rate_note[768]; /* what follows "Requested rate R req/s but achieved X (P%): " */
    double rate;         /* the rate the whole run asked for (0: closed loop) */
    double achieved;     /* what it achieved */
    bool short_of_rate;  /* achieved < 0.99 rate: the wrk layout prints the rate note */
} report_judgement;

/* Judge the run (the text in j as the reports print it). */
void report_judge(const pc_rundesc *run, const pc_results *res, report_judgement *j);

/* "server", "client", "connections", "errors", "none", "unknown". */
const char *report_by_name(enum report_by by);

#endif
