/*
 * test_verdict.c - report_judge (report/verdict.c), row by row of the
 * decision table in docs/methodology.md ("Who limited the run"), on
 * synthetic results: each row's conditions, whom it names, and that the
 * verdict line, the rate note and client.limited say the same.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "report/stages.h"
#include "report/verdict.h"
#include "stats/hdr.h"
#include "stats/stats.h"
#include "unit.h"

#define MS 1000000
#define US 1000

static pc_rundesc run;
static pc_results res;

/* A 2 s run of -t2 -c conns at -R rate (0: closed loop), nothing recorded. */
static int setup(double rate, uint32_t conns)
{
    memset(&run, 0, sizeof run);
    memset(&res, 0, sizeof res);
    run.threads = 2;
    run.connections = conns;
    run.streams = 1;
    run.pipeline = 1;
    run.rate = rate;
    run.duration_ns = 2000000000ull;
    res.duration_ns = run.duration_ns;
    return stats_init(&res.st);
}

/* n values v into h. */
static void rec(hdr_hist *h, int64_t v, int64_t n)
{
    hdr_record_n(h, v, n);
}

/* The threads' busy fractions (per mille). */
static void busy(int64_t a, int64_t b)
{
    rec(&res.st.busy, a, 1);
    rec(&res.st.busy, b, 1);
}

/* completed requests at corrected lat, uncorrected lat_u, lag each;
 * never_sent more; scheduled the sum. */
static void outcomes(uint64_t completed, uint64_t never_sent, int64_t lat, int64_t lat_u, int64_t lag)
{
    res.st.completed = completed;
    res.st.never_sent = never_sent;
    res.st.scheduled = completed + never_sent;
    rec(&res.st.latency, lat, (int64_t)completed);
    rec(&res.st.latency_u, lat_u, (int64_t)completed);
    rec(&res.st.send_lag, lag, (int64_t)completed);
}

static report_judgement J;

static void judge(void)
{
    report_judge(&run, &res, &J);
}

static void done(void)
{
    stats_free(&res.st);
}

/* Row 1: no response at all. */
static void test_no_response(void)
{
    CHECK(setup(1000, 50) == 0);
    outcomes(0, 2000, 0, 0, 0);
    judge();
    CHECK_EQ_I64(J.rule, REPORT_RULE_NO_RESPONSE);
    CHECK_EQ_STR(report_by_name(J.by), "errors");
    CHECK(J.short_of_rate);
    CHECK_EQ_STR(J.rate_note, "no response was received");
    done();
}

/* Row 2: responses stopped 0.8 s into the 2 s run; what was due after
 * them is named, with the connects' cause, not the client's lag (which
 * row 7 would weigh against the fast latency measured before). */
static void test_went_quiet(void)
{
    CHECK(setup(1000, 10) == 0);
    outcomes(800, 1190, 1 * MS, 200 * US, 2 * MS);
    busy(20, 30);
    res.st.last_response_us = 800000;
    res.st.err[PC_ERR_TIMEOUT] = 10;
    res.st.scheduled += 10;
    res.st.connect_errors = 40;
    snprintf(res.st.why[PC_ERR_CONNECT], sizeof res.st.why[0], "127.0.0.1:8080: Connection refused");
    judge();
    CHECK_EQ_I64(J.rule, REPORT_RULE_WENT_QUIET);
    CHECK_EQ_I64(J.by, REPORT_BY_ERRORS);
    CHECK_EQ_STR(J.rate_note, "responses stopped at 0.80s: 1190 requests could not be sent (40 "
                              "connects failed: 127.0.0.1:8080: Connection refused), 10 in flight "
                              "got no response (10 timed out) (see Errors)");
    CHECK(strstr(J.verdict, "No response came after 0.80s of the 2.00s run") == J.verdict);
    CHECK(!report_client_limited(&run, &res));
    /* Responses until near the end: not this row (the lag's, here). */
    res.st.last_response_us = 1900000;
    judge();
    CHECK(J.rule != REPORT_RULE_WENT_QUIET);
    /* A file from before the field (0): not this row either. */
    res.st.last_response_us = 0;
    judge();
    CHECK(J.rule != REPORT_RULE_WENT_QUIET);
    done();
}

/* Row 2: the server went away; the requests left waited for connects. */
static void test_connects_failed(void)
{
    CHECK(setup(1000, 50) == 0);
    outcomes(1000, 1000, 1 * MS, 1 * MS, 10 * US);
    res.st.connect_errors = 7;
    judge();
    CHECK_EQ_I64(J.rule, REPORT_RULE_CONNECTS_FAILED);
    CHECK_EQ_I64(J.by, REPORT_BY_ERRORS);
    CHECK_EQ_STR(J.rate_note, "1000 requests were never sent: 7 connects failed (see Errors)");
    done();
}

/* Row 3: a twentieth or more failed or timed out (before Little's law). */
static void test_failed(void)
{
    CHECK(setup(1000, 50) == 0);
    outcomes(1700, 0, 100 * MS, 100 * MS, 10 * US);
    res.st.err[PC_ERR_TIMEOUT] = 300;
    res.st.scheduled = 2000;
    judge();
    CHECK_EQ_I64(J.rule, REPORT_RULE_FAILED);
    CHECK_EQ_I64(J.by, REPORT_BY_ERRORS);
    CHECK_EQ_STR(J.rate_note, "300 of 2000 requests failed or timed out (see Errors)");
    done();
}

/* Row 4: refused streams are the server's, in a closed loop too, where
 * the send lag once blamed the client. */
static void test_refused_streams(void)
{
    CHECK(setup(0, 4) == 0);
    run.streams = 50;
    outcomes(20000, 0, 2 * MS, 2 * MS, 1 * MS); /* a lag half the latency */
    res.st.h2_conns = 4;
    res.st.h2_refused = 5877;
    busy(100, 120);
    judge();
    CHECK_EQ_I64(J.rule, REPORT_RULE_H2_REFUSED);
    CHECK_EQ_STR(report_by_name(J.by), "server");
    CHECK(strstr(J.verdict, "refused 5877 streams (REFUSED_STREAM") != NULL);
    CHECK(!report_client_limited(&run, &res));
    done();
    /* Open loop, short: GOAWAY named. */
    CHECK(setup(1000, 4) == 0);
    outcomes(1500, 500, 2 * MS, 2 * MS, 10 * US);
    res.st.h2_goaway = 3;
    judge();
    CHECK_EQ_I64(J.rule, REPORT_RULE_H2_REFUSED);
    CHECK(strstr(J.rate_note, "sent 3 GOAWAY") != NULL);
    done();
}

/* Row 5: a constant rate the server cannot carry: its latency grew
 * (from 100 us to 33 ms) with -c's requests in flight. */
static void test_saturated_constant(void)
{
    CHECK(setup(2000, 50) == 0);
    outcomes(3000, 1000, 60 * MS, 33 * MS, 300 * US);
    rec(&res.st.latency_u, 100 * US, 20);
    busy(20, 20);
    judge();
    CHECK_EQ_I64(J.rule, REPORT_RULE_SATURATED);
    CHECK_EQ_I64(J.by, REPORT_BY_SERVER);
    CHECK(strncmp(J.rate_note, "the server is saturated at about 1500 req/s", 43) == 0);
    CHECK(strstr(J.verdict, "The server, not the client, limited this run: it is saturated at "
                            "about 1500 req/s of the 2000 asked") == J.verdict);
    CHECK(!report_client_limited(&run, &res));
    done();
}

/* Row 6: a thread always busy explains the shortfall. */
static void test_client_busy(void)
{
    CHECK(setup(3000, 20) == 0);
    run.threads = 1;
    outcomes(2000, 4000, 500 * MS, 200 * US, 400 * MS);
    rec(&res.st.busy, 1000, 1);
    judge();
    CHECK_EQ_I64(J.rule, REPORT_RULE_CLIENT_BUSY);
    CHECK_EQ_I64(J.by, REPORT_BY_CLIENT);
    CHECK(strstr(J.verdict, "The client, not the server, limited this run: a thread was busy 100% "
                            "of the time and sent late") == J.verdict);
    CHECK_EQ_STR(J.rate_note, "the client could not keep up (see Send lag above)");
    CHECK(report_client_limited(&run, &res));
    done();
}

/* Row 7: idle threads that woke late, by a lag that is a fair part of
 * the latency measured, and a rate not reached. */
static void test_client_lag(void)
{
    CHECK(setup(1000, 50) == 0);
    outcomes(1900, 100, 1 * MS, 300 * US, 600 * US);
    busy(50, 60);
    judge();
    CHECK_EQ_I64(J.rule, REPORT_RULE_CLIENT_LAG);
    CHECK(strstr(J.verdict, "its threads were not busy but woke late (lag p99 ") != NULL);
    CHECK(report_client_limited(&run, &res));
    done();
}

/* Row 6a: -c10 at 2000/s to a server that takes 50 ms: every slot held by
 * the responses (200/s x 50 ms = 10), and a loaded machine's send lag of
 * 10 ms, a fifth of the latency: the lag waited on free slots, it held
 * none, so -c is what bounded the rate, not the client. */
static void test_connections_held_despite_lag(void)
{
    CHECK(setup(2000, 10) == 0);
    run.threads = 1;
    res.duration_ns = run.duration_ns = 1000000000ull;
    outcomes(200, 1800, 500 * MS, 50 * MS, 10 * MS);
    busy(20, 20);
    judge();
    CHECK_EQ_I64(J.rule, REPORT_RULE_CONNECTIONS);
    CHECK_EQ_STR(report_by_name(J.by), "connections");
    CHECK(!report_client_limited(&run, &res));
    done();
}

/* Row 8: a latency that does not depend on the load (20 ms whatever),
 * too few connections for it: raise -c. */
static void test_connections(void)
{
    CHECK(setup(1000, 2) == 0);
    outcomes(200, 1800, 500 * MS, 20 * MS, 5 * US);
    busy(10, 10);
    judge();
    CHECK_EQ_I64(J.rule, REPORT_RULE_CONNECTIONS);
    CHECK_EQ_STR(report_by_name(J.by), "connections");
    CHECK(strstr(J.rate_note, "1000 req/s needs about 20 requests in flight, but -c 2 allows 2 "
                              "(raise -c)") != NULL);
    done();
}

/* Row 9: short, the connections not the limit, some failures. */
static void test_some_failed(void)
{
    CHECK(setup(1000, 50) == 0);
    outcomes(1900, 80, 1 * MS, 1 * MS, 5 * US);
    res.st.err[PC_ERR_READ] = 20;
    res.st.scheduled = 2000;
    busy(10, 10);
    judge();
    CHECK_EQ_I64(J.rule, REPORT_RULE_SOME_FAILED);
    CHECK_EQ_I64(J.by, REPORT_BY_ERRORS);
    done();
}

/* Row 10: short, and nothing measured explains it: nobody is blamed. */
static void test_unexplained(void)
{
    CHECK(setup(1000, 50) == 0);
    outcomes(1900, 100, 1 * MS, 1 * MS, 5 * US);
    busy(10, 10);
    judge();
    CHECK_EQ_I64(J.rule, REPORT_RULE_UNEXPLAINED);
    CHECK_EQ_STR(report_by_name(J.by), "unknown");
    CHECK(strstr(J.verdict, "client") == NULL || strstr(J.verdict, "limited") == NULL);
    CHECK(!report_client_limited(&run, &res));
    done();
}

/* Three steps of --stages at 1000, 1500, 2000 req/s over 1 s each. */
static int setup_stages(void)
{
    static const double rates[] = {1000, 1500, 2000};

    if (setup(1500, 50) < 0)
        return -1;
    run.duration_ns = res.duration_ns = 3000000000ull;
    run.shape.n = 3;
    for (int i = 0; i < 3; i++)
        run.shape.stages[i] = (pc_stage){.dur_ns = 1000000000ull, .rate = rates[i], .step = true};
    return stats_init_stages(&res.st, 3, 0);
}

/* A stage's counts and latencies. */
static void stage(int i, uint64_t completed, uint64_t never_sent, int64_t lat, int64_t lat_u, int64_t lag)
{
    pc_stage_stats *g = &res.st.stages[i];

    g->completed = completed;
    g->never_sent = never_sent;
    rec(&g->latency, lat, (int64_t)completed);
    rec(&g->latency_u, lat_u, (int64_t)completed);
    rec(&g->send_lag, lag, (int64_t)completed);
    res.st.completed += completed;
    res.st.never_sent += never_sent;
    res.st.scheduled += completed + never_sent;
    rec(&res.st.latency, lat, (int64_t)completed);
    rec(&res.st.latency_u, lat_u, (int64_t)completed);
    rec(&res.st.send_lag, lag, (int64_t)completed);
}

/* The case: stage 3 got 1544 of 2000 req/s at p50 129 ms while
 * the whole run's p50 (mostly below the knee) is 0.3 ms and the lag p99
 * 279 us: the old rule blamed the client. Stage 3 is judged on its own. */
static void test_stages_knee_saturated(void)
{
    CHECK(setup_stages() == 0);
    stage(0, 1000, 0, 300 * US, 100 * US, 279 * US);
    stage(1, 1500, 0, 400 * US, 150 * US, 279 * US);
    stage(2, 1544, 456, 129 * MS, 33 * MS, 279 * US);
    busy(20, 20);
    judge();
    CHECK_EQ_I64(J.rule, REPORT_RULE_SATURATED);
    CHECK_EQ_I64(J.by, REPORT_BY_SERVER);
    CHECK(strstr(J.verdict, "saturated at stage 3 (2000 req/s), where it answered 1544 req/s") !=
          NULL);
    CHECK(strstr(J.rate_note, "the server is saturated at stage 3") == J.rate_note);
    CHECK(!report_client_limited(&run, &res));
    done();
}

/* Row 11: every stage got its rate, but the latency rose with it: the
 * knee is named, the client is not. */
static void test_stages_knee_only(void)
{
    CHECK(setup_stages() == 0);
    stage(0, 1000, 0, 300 * US, 100 * US, 250 * US);
    stage(1, 1500, 0, 400 * US, 150 * US, 250 * US);
    stage(2, 2000, 0, 25 * MS, 20 * MS, 250 * US);
    busy(20, 20);
    judge();
    CHECK_EQ_I64(J.rule, REPORT_RULE_KNEE);
    CHECK_EQ_I64(J.by, REPORT_BY_SERVER);
    CHECK(strstr(J.verdict, "at stage 3 (2000 req/s) (its knee)") != NULL);
    CHECK(!J.short_of_rate);
    done();
}

/* A ramp is judged by its rows: the first short one is named. */
static void test_ramp_rows(void)
{
    CHECK(setup(1000, 50) == 0);
    run.shape.n = 1;
    run.shape.stages[0] = (pc_stage){.dur_ns = 2000000000ull, .rate = 2000};
    CHECK(stats_init_stages(&res.st, 1, PC_RAMP_STEPS) == 0);
    for (int p = 0; p < PC_RAMP_STEPS; p++) {
        /* Step p asks (200p + 100) req/s for 0.2 s; above 1500 req/s the
         * server queues (33 ms) and the last step is short. */
        uint64_t asked = (uint64_t)(200 * p + 100) / 5;
        bool over = 200 * p + 100 > 1500;
        uint64_t got = p == PC_RAMP_STEPS - 1 ? asked * 3 / 4 : asked;
        pc_stage_stats *g = &res.st.steps[p];

        g->completed = got;
        g->never_sent = asked - got;
        rec(&g->latency, over ? 60 * MS : 200 * US, (int64_t)got);
        rec(&g->latency_u, over ? 33 * MS : 100 * US, (int64_t)got);
        rec(&g->send_lag, 279 * US, (int64_t)got);
        res.st.stages[0].completed += got;
        res.st.stages[0].never_sent += asked - got;
        res.st.completed += got;
        res.st.never_sent += asked - got;
        res.st.scheduled += asked;
        rec(&res.st.latency, over ? 60 * MS : 200 * US, (int64_t)got);
        rec(&res.st.latency_u, over ? 33 * MS : 100 * US, (int64_t)got);
        rec(&res.st.send_lag, 279 * US, (int64_t)got);
    }
    busy(20, 20);
    judge();
    CHECK_EQ_I64(J.rule, REPORT_RULE_SATURATED);
    CHECK(strstr(J.verdict, "saturated at step 1.10 (1800..2000 req/s)") != NULL);
    CHECK(strstr(J.verdict, "first at step 1.9 (1600..1800 req/s)") != NULL);
    CHECK(!report_client_limited(&run, &res));
    done();
}

/* Row 12: a closed loop whose thread was always busy made what pacer
 * could make. */
static void test_closed_busy(void)
{
    CHECK(setup(0, 4) == 0);
    outcomes(4000, 0, 1 * MS, 1 * MS, 0);
    busy(950, 400);
    judge();
    CHECK_EQ_I64(J.rule, REPORT_RULE_CLOSED_BUSY);
    CHECK(strstr(J.verdict, "so the load was what pacer's threads could make") != NULL);
    CHECK(!J.short_of_rate);
    done();
}

/* Row 14: the rate was reached: no verdict, whatever the lag (once it
 * blamed the client on nearly every -R run of a small VM). */
static void test_none(void)
{
    CHECK(setup(1000, 50) == 0);
    outcomes(2000, 0, 340 * US, 100 * US, 300 * US);
    busy(40, 40);
    judge();
    CHECK_EQ_I64(J.rule, REPORT_RULE_NONE);
    CHECK_EQ_STR(report_by_name(J.by), "none");
    CHECK_EQ_STR(J.verdict, "");
    CHECK(!report_client_limited(&run, &res));
    /* A closed loop with idle threads: nothing either. */
    done();
    CHECK(setup(0, 50) == 0);
    outcomes(20000, 0, 2 * MS, 2 * MS, 1 * MS);
    busy(300, 300);
    judge();
    CHECK_EQ_I64(J.rule, REPORT_RULE_NONE);
    done();
}

/* Row 13: the rate was reached, but the client stalled for 400 ms (a
 * SIGSTOP, a busy host): the tail is its own, and the report says so. A
 * stall of a few milliseconds is a small VM's noise: nothing. */
static void test_client_stall(void)
{
    CHECK(setup(500, 4) == 0);
    outcomes(1800, 0, 300 * US, 250 * US, 90 * US);
    rec(&res.st.latency, 400 * MS, 200);
    rec(&res.st.send_lag, 410 * MS, 1);
    res.st.completed = res.st.scheduled = 2000;
    busy(40, 40);
    judge();
    CHECK_EQ_I64(J.rule, REPORT_RULE_CLIENT_STALL);
    CHECK_EQ_STR(report_by_name(J.by), "client");
    CHECK(strstr(J.verdict, "The latency's tail is pacer's own") != NULL);
    CHECK(!J.short_of_rate);
    done();
    CHECK(setup(500, 4) == 0);
    outcomes(2000, 0, 300 * US, 250 * US, 90 * US);
    rec(&res.st.latency, 3 * MS, 1);
    rec(&res.st.send_lag, 2800 * US, 1);
    busy(40, 40);
    judge();
    CHECK_EQ_I64(J.rule, REPORT_RULE_NONE);
    done();
}

/* Stage rows from a file without their own latencies (before they were
 * kept): the run is judged as a whole, not on empty rows. */
static void test_old_rows_whole_run(void)
{
    CHECK(setup_stages() == 0);
    res.st.stages[0].completed = 1000;
    res.st.stages[1].completed = 1500;
    res.st.stages[2].completed = 1544;
    outcomes(4044, 456, 60 * MS, 33 * MS, 200 * US);
    rec(&res.st.latency_u, 100 * US, 100);
    busy(20, 20);
    judge();
    CHECK_EQ_I64(J.rule, REPORT_RULE_SATURATED);
    CHECK(strstr(J.verdict, "it is saturated at about") != NULL);
    done();
}

int main(void)
{
    RUN(test_no_response);
    RUN(test_went_quiet);
    RUN(test_connects_failed);
    RUN(test_failed);
    RUN(test_refused_streams);
    RUN(test_saturated_constant);
    RUN(test_client_busy);
    RUN(test_client_lag);
    RUN(test_connections_held_despite_lag);
    RUN(test_connections);
    RUN(test_some_failed);
    RUN(test_unexplained);
    RUN(test_stages_knee_saturated);
    RUN(test_stages_knee_only);
    RUN(test_ramp_rows);
    RUN(test_closed_busy);
    RUN(test_client_stall);
    RUN(test_none);
    RUN(test_old_rows_whole_run);
    return unit_done();
}
