/*
 * test_slo.c - service-level objectives (src/report/slo.c): parsing of
 * every metric and operator, every error message, evaluation against
 * synthetic results (percentiles as the report computes them, boundaries,
 * the error share, closed loop, rates) and the printed PASS/FAIL lines.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/units.h"
#include "report/slo.h"
#include "stats/hdr.h"
#include "stats/stats.h"
#include "unit.h"

/* ---- helpers ------------------------------------------------------------ */

/* Parse expr, which must succeed and leave err alone. */
#define PARSE_OK(expr, s)                                                      \
    do {                                                                       \
        char pe_[256];                                                         \
        memset(pe_, 'X', sizeof pe_);                                          \
        pe_[sizeof pe_ - 1] = 0;                                               \
        CHECK_EQ_I64(slo_parse((expr), (s), pe_, sizeof pe_), 0);              \
        CHECK(pe_[0] == 'X' && strlen(pe_) == sizeof pe_ - 1);                 \
    } while (0)

/* Parse expr, which must fail with -EINVAL and exactly this message. */
#define PARSE_ERR(expr, want)                                                  \
    do {                                                                       \
        char ee_[1024];                                                        \
        pc_slo es_;                                                            \
        memset(ee_, 'X', sizeof ee_);                                          \
        CHECK_EQ_I64(slo_parse((expr), &es_, ee_, sizeof ee_), -EINVAL);       \
        CHECK(memchr(ee_, 0, sizeof ee_) != NULL);                             \
        CHECK_EQ_STR(ee_, (want));                                             \
    } while (0)

/* Parse a single objective and evaluate it: v gets the verdict, and
 * slo_eval's result must agree with it (with and without a verdict array). */
#define EVAL1(expr, rate, res, v)                                              \
    do {                                                                       \
        pc_slo vs_;                                                            \
        PARSE_OK((expr), &vs_);                                                \
        CHECK_EQ_I64(vs_.n, 1);                                                \
        bool va_ = slo_eval(&vs_, (rate), (res), &(v));                        \
        CHECK(va_ == (v).pass);                                                \
        CHECK(slo_eval(&vs_, (rate), (res), NULL) == va_);                     \
        CHECK(memchr((v).shown, 0, sizeof (v).shown) != NULL);                 \
    } while (0)

/* Expect one objective's verdict: pass/fail and the exact shown text. */
#define EXPECT(expr, rate, res, want_pass, want_shown)                         \
    do {                                                                       \
        pc_verdict xv_;                                                        \
        EVAL1((expr), (rate), (res), xv_);                                     \
        if (xv_.pass != (want_pass)) {                                         \
            snprintf(unit_msg, sizeof unit_msg, "%s:%d: '%s' %s (measured %s), want %s", \
                     __FILE__, __LINE__, (expr), xv_.pass ? "passed" : "failed", \
                     xv_.shown, (want_pass) ? "pass" : "fail");                \
            unit_failed_now = 1;                                               \
            return;                                                            \
        }                                                                      \
        CHECK_EQ_STR(xv_.shown, (want_shown));                                 \
    } while (0)

/* The reference results: corrected latencies 1..1000 ns (each its own hdr
 * slot, so percentiles are exact), uncorrected 2..2000 ns in steps of 2;
 * 1000 responses of which 10 non-2xx, 5 read errors, 3 timeouts, 2 never
 * sent (1010 requests, 20 failed), 4 failed connection attempts, 10 s. */
static int make_results(pc_results *r)
{
    memset(r, 0, sizeof *r);
    if (stats_init(&r->st) < 0)
        return -1;
    for (int64_t i = 1; i <= 1000; i++) {
        if (!hdr_record(&r->st.latency, i) || !hdr_record(&r->st.latency_u, 2 * i))
            return -1;
    }
    r->st.completed = 1000;
    r->st.non2xx = 10;
    r->st.status[200] = 990;
    r->st.status[500] = 10;
    r->st.err[PC_ERR_READ] = 5;
    r->st.err[PC_ERR_TIMEOUT] = 3;
    r->st.never_sent = 2;
    r->st.connect_errors = 4;
    r->st.scheduled = 1010;
    r->duration_ns = 10000000000ull;
    return 0;
}

/* slo_print into a heap string. */
static char *print_str(const pc_slo *s, double rate, const pc_results *r, const char *who,
                       bool *all)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    if (!f)
        return NULL;
    *all = slo_print(f, s, rate, r, who);
    fclose(f);
    return buf;
}

/* ---- parsing ------------------------------------------------------------ */

static void test_parse_percentiles(void)
{
    pc_slo s;

    PARSE_OK("p50<=1ms", &s);
    CHECK_EQ_I64(s.n, 1);
    CHECK(s.v[0].metric == SLO_PCT);
    CHECK(s.v[0].op == SLO_LE);
    CHECK(!s.v[0].uncorrected);
    CHECK(!s.v[0].percent);
    CHECK(s.v[0].pct == 50.0);
    CHECK(s.v[0].value == 1e6);
    CHECK_EQ_STR(s.v[0].text, "p50<=1ms");
    CHECK_EQ_STR(s.text, "p50<=1ms");

    PARSE_OK("p99.9<250us", &s);
    CHECK(s.v[0].metric == SLO_PCT);
    CHECK(s.v[0].op == SLO_LT);
    CHECK(s.v[0].pct == 99.9);
    CHECK(s.v[0].value == 250000.0);

    PARSE_OK("p100>=1.5s", &s);
    CHECK(s.v[0].metric == SLO_PCT);
    CHECK(s.v[0].op == SLO_GE);
    CHECK(s.v[0].pct == 100.0);
    CHECK(s.v[0].value == 1500000000.0);

    PARSE_OK("p99.99>100ns", &s);
    CHECK(s.v[0].op == SLO_GT);
    CHECK(s.v[0].pct == 99.99);
    CHECK(s.v[0].value == 100.0);

    PARSE_OK("p0.001<=1ms", &s);
    CHECK(s.v[0].pct == 0.001);

    PARSE_OK("up99<=3ms", &s);
    CHECK(s.v[0].metric == SLO_PCT);
    CHECK(s.v[0].uncorrected);
    CHECK(s.v[0].pct == 99.0);
    CHECK(s.v[0].value == 3e6);
    CHECK_EQ_STR(s.v[0].text, "up99<=3ms");
}

static void test_parse_mean_max(void)
{
    pc_slo s;

    PARSE_OK("mean>100ms", &s);
    CHECK(s.v[0].metric == SLO_MEAN);
    CHECK(s.v[0].op == SLO_GT);
    CHECK(!s.v[0].uncorrected);
    CHECK(s.v[0].value == 1e8);

    PARSE_OK("max<=2s", &s);
    CHECK(s.v[0].metric == SLO_MAX_LAT);
    CHECK(s.v[0].op == SLO_LE);
    CHECK(!s.v[0].uncorrected);
    CHECK(s.v[0].value == 2e9);

    PARSE_OK("umean<1ms", &s);
    CHECK(s.v[0].metric == SLO_MEAN);
    CHECK(s.v[0].op == SLO_LT);
    CHECK(s.v[0].uncorrected);
    CHECK(s.v[0].value == 1e6);

    PARSE_OK("umax>=1s", &s);
    CHECK(s.v[0].metric == SLO_MAX_LAT);
    CHECK(s.v[0].op == SLO_GE);
    CHECK(s.v[0].uncorrected);
    CHECK(s.v[0].value == 1e9);
}

static void test_parse_errors_rate(void)
{
    pc_slo s;

    PARSE_OK("errors<=5", &s);
    CHECK(s.v[0].metric == SLO_ERRORS);
    CHECK(s.v[0].op == SLO_LE);
    CHECK(!s.v[0].percent);
    CHECK(!s.v[0].uncorrected);
    CHECK(s.v[0].value == 5.0);

    PARSE_OK("errors<0.1%", &s);
    CHECK(s.v[0].metric == SLO_ERRORS);
    CHECK(s.v[0].op == SLO_LT);
    CHECK(s.v[0].percent);
    CHECK(s.v[0].value == 0.1 / 100);
    CHECK_EQ_STR(s.v[0].text, "errors<0.1%");

    PARSE_OK("errors<=0", &s);
    CHECK(s.v[0].value == 0.0);
    PARSE_OK("errors<=100%", &s);
    CHECK(s.v[0].percent);
    CHECK(s.v[0].value == 1.0);

    PARSE_OK("rate>=1000", &s);
    CHECK(s.v[0].metric == SLO_RATE);
    CHECK(s.v[0].op == SLO_GE);
    CHECK(!s.v[0].percent);
    CHECK(s.v[0].value == 1000.0);

    PARSE_OK("rate>99.5%", &s);
    CHECK(s.v[0].metric == SLO_RATE);
    CHECK(s.v[0].op == SLO_GT);
    CHECK(s.v[0].percent);
    CHECK(s.v[0].value == 99.5 / 100);

    PARSE_OK("rate>=12.5", &s);
    CHECK(s.v[0].value == 12.5);
}

static void test_parse_every_operator(void)
{
    static const struct {
        const char *expr;
        enum slo_op op;
    } tab[] = {
        {"p99<=1ms", SLO_LE}, {"p99<1ms", SLO_LT},        {"p99>=1ms", SLO_GE},
        {"p99>1ms", SLO_GT},  {"errors<=1", SLO_LE},      {"errors<1", SLO_LT},
        {"rate>=1", SLO_GE},  {"rate>1", SLO_GT},         {"rate<=1%", SLO_LE},
        {"max<1s", SLO_LT},   {"mean>=1us", SLO_GE},      {"umax>1us", SLO_GT},
    };
    pc_slo s;

    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
        PARSE_OK(tab[i].expr, &s);
        CHECK_EQ_I64(s.n, 1);
        CHECK_EQ_I64(s.v[0].op, tab[i].op);
        CHECK_EQ_STR(s.v[0].text, tab[i].expr);
    }
}

static void test_parse_values_in_ns(void)
{
    static const struct {
        const char *expr;
        double ns;
    } tab[] = {
        {"p99<=250us", 250000.0},     {"p99<=100ms", 100000000.0}, {"p99<=1.5s", 1500000000.0},
        {"p99<=100ns", 100.0},        {"p99<=0.5us", 500.0},       {"p99<=1.001ms", 1001000.0},
        {"p99<=2m", 120000000000.0},  {"p99<=0ms", 0.0},           {"max<=.5s", 500000000.0},
    };
    pc_slo s;

    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
        PARSE_OK(tab[i].expr, &s);
        CHECK_NEAR(s.v[0].value, tab[i].ns, 0);
    }
}

static void test_parse_blanks_and_text(void)
{
    pc_slo s;

    PARSE_OK(" p99 <= 100 ms ,\terrors <= 0.1 % , rate >= 99 %\t", &s);
    CHECK_EQ_I64(s.n, 3);
    CHECK_EQ_STR(s.text, "p99<=100ms,errors<=0.1%,rate>=99%");
    CHECK_EQ_STR(s.v[0].text, "p99<=100ms");
    CHECK_EQ_STR(s.v[1].text, "errors<=0.1%");
    CHECK_EQ_STR(s.v[2].text, "rate>=99%");
    CHECK(s.v[0].metric == SLO_PCT && s.v[0].pct == 99.0 && s.v[0].value == 1e8);
    CHECK(s.v[1].metric == SLO_ERRORS && s.v[1].percent && s.v[1].value == 0.1 / 100);
    CHECK(s.v[2].metric == SLO_RATE && s.v[2].percent && s.v[2].value == 99.0 / 100);

    /* Blanks inside a number or a name are removed too. */
    PARSE_OK("p9 9.9 < = 2 5 0 u s", &s);
    CHECK_EQ_STR(s.text, "p99.9<=250us");
    CHECK(s.v[0].pct == 99.9 && s.v[0].op == SLO_LE && s.v[0].value == 250000.0);

    /* The documented example. */
    PARSE_OK("p99<=100ms,p99.9<=250ms,errors<=0.1%,rate>=99%", &s);
    CHECK_EQ_I64(s.n, 4);
    CHECK_EQ_STR(s.text, "p99<=100ms,p99.9<=250ms,errors<=0.1%,rate>=99%");
    CHECK(s.v[1].pct == 99.9 && s.v[1].value == 2.5e8);

    /* Re-parsing the normalised text gives the same objectives. */
    pc_slo t;
    PARSE_OK(" up50 < 1s , umean>=2 us,max > 3 ms,errors<7 ", &s);
    PARSE_OK(s.text, &t);
    CHECK_EQ_I64(t.n, s.n);
    CHECK_EQ_STR(t.text, s.text);
    for (size_t i = 0; i < s.n; i++) {
        CHECK(t.v[i].metric == s.v[i].metric && t.v[i].op == s.v[i].op);
        CHECK(t.v[i].uncorrected == s.v[i].uncorrected && t.v[i].percent == s.v[i].percent);
        CHECK(t.v[i].pct == s.v[i].pct && t.v[i].value == s.v[i].value);
        CHECK_EQ_STR(t.v[i].text, s.v[i].text);
    }
}

static void test_parse_max_objectives(void)
{
    char expr[600] = "";
    pc_slo s;

    for (int i = 0; i < SLO_MAX; i++)
        strcat(expr, i ? ",p9<1s" : "p9<1s");
    PARSE_OK(expr, &s);
    CHECK_EQ_I64(s.n, SLO_MAX);
    for (int i = 0; i < SLO_MAX; i++)
        CHECK(s.v[i].metric == SLO_PCT && s.v[i].pct == 9.0 && s.v[i].value == 1e9);
    strcat(expr, ",p9<1s");
    PARSE_ERR(expr, "too many --slo objectives (max 32)");
}

/* ---- parse errors ------------------------------------------------------- */

static void test_err_missing_op(void)
{
    PARSE_ERR("p99", "invalid --slo objective 'p99': expected e.g. p99<=100ms");
    PARSE_ERR("p99=100ms", "invalid --slo objective 'p99=100ms': expected e.g. p99<=100ms");
    PARSE_ERR("p99<=1ms,errors", "invalid --slo objective 'errors': expected e.g. p99<=100ms");
}

static void test_err_missing_metric(void)
{
    PARSE_ERR("<=5ms", "invalid --slo objective '<=5ms': missing metric (p99, max, errors, rate...)");
    PARSE_ERR(">1", "invalid --slo objective '>1': missing metric (p99, max, errors, rate...)");
}

static void test_err_missing_value(void)
{
    PARSE_ERR("p99<=", "invalid --slo objective 'p99<=': missing value");
    PARSE_ERR("p99<", "invalid --slo objective 'p99<': missing value");
    PARSE_ERR("errors >= ", "invalid --slo objective 'errors>=': missing value");
    PARSE_ERR("rate>", "invalid --slo objective 'rate>': missing value");
}

#define UNKNOWN(m) \
    "unknown --slo metric '" m "' (p99, p99.9, mean, max, up99/umean/umax, lag_p99/lag_max, errors, rate)"

static void test_err_unknown_metric(void)
{
    PARSE_ERR("latency<=5ms", UNKNOWN("latency"));
    PARSE_ERR("p<=5ms", UNKNOWN("p"));
    PARSE_ERR("u<=5ms", UNKNOWN("u"));
    PARSE_ERR("uerrors<=5", UNKNOWN("uerrors"));
    PARSE_ERR("urate>=5", UNKNOWN("urate"));
    PARSE_ERR("uup99<=5ms", UNKNOWN("uup99"));
    PARSE_ERR("Mean<=5ms", UNKNOWN("Mean"));
    PARSE_ERR("p-1<=5ms", UNKNOWN("p-1"));
    /* 'p' not followed by a digit is not taken for a percentile. */
    PARSE_ERR("pabc<=5ms", UNKNOWN("pabc"));
    PARSE_ERR("p.5<=5ms", UNKNOWN("p.5"));
    PARSE_ERR("lag_<=5ms", UNKNOWN("lag_"));
    PARSE_ERR("lag_errors<=5", UNKNOWN("lag_errors"));
    PARSE_ERR("ulag_p99<=5ms", UNKNOWN("ulag_p99"));
}

#define BADPCT(m) "invalid --slo percentile '" m "' (above p0, up to p100, e.g. p99.9)"

static void test_err_bad_percentile(void)
{
    PARSE_ERR("p0<=5ms", BADPCT("p0"));
    PARSE_ERR("p0.0<=5ms", BADPCT("p0.0"));
    PARSE_ERR("p101<=5ms", BADPCT("p101"));
    PARSE_ERR("p100.1<=5ms", BADPCT("p100.1"));
    PARSE_ERR("p99abc<=5ms", BADPCT("p99abc"));
    PARSE_ERR("p99.9.9<=5ms", BADPCT("p99.9.9"));
    PARSE_ERR("p1e-400<=5ms", BADPCT("p1e-400"));
    PARSE_ERR("up0<=5ms", BADPCT("up0"));
    PARSE_ERR("up101<=5ms", BADPCT("up101"));
}

static void test_err_latency_unit(void)
{
    PARSE_ERR("p99<=100", "invalid --slo objective 'p99<=100': latency needs a unit (us, ms, s)");
    PARSE_ERR("p99<=1.", "invalid --slo objective 'p99<=1.': latency needs a unit (us, ms, s)");
    PARSE_ERR("max>0", "invalid --slo objective 'max>0': latency needs a unit (us, ms, s)");
    PARSE_ERR("umean<=2.5", "invalid --slo objective 'umean<=2.5': latency needs a unit (us, ms, s)");
}

#define BADLAT(o, v) \
    "invalid --slo objective '" o "': bad latency '" v "' (e.g. 250us, 100ms, 1s)"

static void test_err_bad_latency(void)
{
    PARSE_ERR("p99<=100xs", BADLAT("p99<=100xs", "100xs"));
    PARSE_ERR("p99<=ms", BADLAT("p99<=ms", "ms"));
    PARSE_ERR("p99<=-5ms", BADLAT("p99<=-5ms", "-5ms"));
    PARSE_ERR("p99<=5%", BADLAT("p99<=5%", "5%"));
    PARSE_ERR("p99<=5msx", BADLAT("p99<=5msx", "5msx"));
    PARSE_ERR("mean<=1e30s", BADLAT("mean<=1e30s", "1e30s"));
    PARSE_ERR("p99<=<5ms", BADLAT("p99<=<5ms", "<5ms"));
    PARSE_ERR("p99<=>5ms", BADLAT("p99<=>5ms", ">5ms"));
}

#define BADNUM(o, v) "invalid --slo objective '" o "': bad number '" v "'"

static void test_err_bad_number(void)
{
    PARSE_ERR("errors<=abc", BADNUM("errors<=abc", "abc"));
    PARSE_ERR("errors<=%", BADNUM("errors<=%", "%"));
    PARSE_ERR("errors<=5%%", BADNUM("errors<=5%%", "5%%"));
    PARSE_ERR("errors<=5ms", BADNUM("errors<=5ms", "5ms"));
    PARSE_ERR("rate>=5x", BADNUM("rate>=5x", "5x"));
    PARSE_ERR("rate>=nan", BADNUM("rate>=nan", "nan"));
    PARSE_ERR("rate>=inf", BADNUM("rate>=inf", "inf"));
    PARSE_ERR("rate>=1e999", BADNUM("rate>=1e999", "1e999"));
    PARSE_ERR("errors<=1e-400", BADNUM("errors<=1e-400", "1e-400"));
    /* strtod would take these; a plain decimal is required. */
    PARSE_ERR("errors<=0x10", BADNUM("errors<=0x10", "0x10"));
    PARSE_ERR("errors<=-0", BADNUM("errors<=-0", "-0"));
    PARSE_ERR("p0x1p6<=1ms", BADPCT("p0x1p6"));
    PARSE_ERR("errors<=\n1%", "invalid --slo expression: control character at offset 8");
}

static void test_err_percent_over_100(void)
{
    PARSE_ERR("errors<=101%", BADNUM("errors<=101%", "101%"));
    PARSE_ERR("errors<=100.001%", BADNUM("errors<=100.001%", "100.001%"));
    PARSE_ERR("rate>=150%", BADNUM("rate>=150%", "150%"));
}

static void test_err_negative(void)
{
    PARSE_ERR("errors<=-1", BADNUM("errors<=-1", "-1"));
    PARSE_ERR("errors<=-0.5%", BADNUM("errors<=-0.5%", "-0.5%"));
    PARSE_ERR("rate>=-5%", BADNUM("rate>=-5%", "-5%"));
    PARSE_ERR("rate>=-100", BADNUM("rate>=-100", "-100"));
}

#define EMPTY "empty --slo expression (e.g. 'p99<=100ms,errors<=0.1%')"

static void test_err_empty(void)
{
    PARSE_ERR("", EMPTY);
    PARSE_ERR(" ", EMPTY);
    PARSE_ERR(" \t \t", EMPTY);
}

static void test_err_empty_objective(void)
{
    PARSE_ERR(",", "invalid --slo expression ',': empty objective");
    PARSE_ERR(",p99<=1ms", "invalid --slo expression ',p99<=1ms': empty objective");
    PARSE_ERR("p99<=1ms,", "invalid --slo expression 'p99<=1ms,': empty objective");
    PARSE_ERR("p99<=1ms,,max<1s", "invalid --slo expression 'p99<=1ms,,max<1s': empty objective");
    /* Blanks are removed first, so ", ," is a double comma. */
    PARSE_ERR("p99 <= 1ms , , max < 1s",
              "invalid --slo expression 'p99<=1ms,,max<1s': empty objective");
    PARSE_ERR(" , p99<=1ms", "invalid --slo expression ',p99<=1ms': empty objective");
}

static void test_err_too_long(void)
{
    char expr[1100];
    pc_slo s;
    char err[256];

    /* 511 characters without blanks are allowed by length as an expression
     * (this one then fails as one objective over 71 characters). */
    memset(expr, 'a', 511);
    expr[511] = 0;
    memcpy(expr + 505, "<=1ms", 6);
    CHECK_EQ_I64(slo_parse(expr, &s, err, sizeof err), -EINVAL);
    CHECK(strstr(err, "expression too long") == NULL);
    CHECK(strstr(err, "--slo objective too long (max 71 characters)") != NULL);
    /* 512 are not. */
    memset(expr, 'a', 512);
    expr[512] = 0;
    PARSE_ERR(expr, "--slo expression too long (max 511 characters)");
    /* Blanks do not count. */
    memset(expr, ' ', 1000);
    memcpy(expr + 500, "p99<=1ms", 8);
    expr[1000] = 0;
    PARSE_OK(expr, &s);
    CHECK_EQ_STR(s.text, "p99<=1ms");
    /* A valid expression of exactly 511 characters: 31 objectives of
     * 16 ("p99.9999999<=1s,") then 15 ("p99.999999<=1ms"). */
    expr[0] = 0;
    for (int i = 0; i < 31; i++)
        strcat(expr, "p99.9999999<=1s,");
    strcat(expr, "p99.999999<=1ms");
    CHECK_EQ_I64(strlen(expr), 511);
    PARSE_OK(expr, &s);
    CHECK_EQ_I64(s.n, 32);
    CHECK_EQ_STR(s.text, expr);
    CHECK(s.v[31].pct == 99.999999 && s.v[31].value == 1e6);
    strcat(expr, "s");
    PARSE_ERR(expr, "--slo expression too long (max 511 characters)");
}

static void test_err_first_bad_objective_named(void)
{
    /* The reason names the objective at fault, not the first one. */
    PARSE_ERR("p99<=1ms, p99.9 <= 2 ms, errors <= 200%, rate>=1",
              BADNUM("errors<=200%", "200%"));
    PARSE_ERR("p99<=1ms,max<=5", "invalid --slo objective 'max<=5': latency needs a unit (us, ms, s)");
}

static void test_err_truncated_and_terminated(void)
{
    char err[8];
    pc_slo s;

    memset(err, 'X', sizeof err);
    CHECK_EQ_I64(slo_parse("p99", &s, err, sizeof err), -EINVAL);
    CHECK_EQ_STR(err, "invalid");
    memset(err, 'X', sizeof err);
    CHECK_EQ_I64(slo_parse("", &s, err, sizeof err), -EINVAL);
    CHECK_EQ_STR(err, "empty -");
    /* A failed parse leaves no objective counted beyond the good ones. */
    CHECK_EQ_I64(slo_parse("p99<=1ms,p0<=1ms", &s, err, sizeof err), -EINVAL);
    CHECK_EQ_I64(s.n, 1);
}

/* ---- evaluation --------------------------------------------------------- */

static void test_eval_percentiles_match_hdr(void)
{
    static const double pcts[] = {0.1, 1, 25, 50, 75, 90, 99, 99.9, 99.99, 100};
    pc_results r;
    pc_verdict v;
    char expr[64];

    CHECK(make_results(&r) == 0);
    for (size_t i = 0; i < sizeof pcts / sizeof pcts[0]; i++) {
        snprintf(expr, sizeof expr, "p%g<=1s", pcts[i]);
        EVAL1(expr, 100, &r, v);
        CHECK(v.pass);
        CHECK_EQ_I64((int64_t)v.measured, hdr_value_at_percentile(&r.st.latency, pcts[i]));
        CHECK(v.measured == (double)hdr_value_at_percentile(&r.st.latency, pcts[i]));
        snprintf(expr, sizeof expr, "up%g<=1s", pcts[i]);
        EVAL1(expr, 100, &r, v);
        CHECK(v.measured == (double)hdr_value_at_percentile(&r.st.latency_u, pcts[i]));
    }
    /* 1..1000 ns are exact in the histogram: the values themselves. */
    EVAL1("p50<=1s", 100, &r, v);
    CHECK_EQ_I64((int64_t)v.measured, 500);
    EVAL1("p99<=1s", 100, &r, v);
    CHECK_EQ_I64((int64_t)v.measured, 990);
    EVAL1("p99.9<=1s", 100, &r, v);
    CHECK_EQ_I64((int64_t)v.measured, 999);
    EVAL1("p100<=1s", 100, &r, v);
    CHECK_EQ_I64((int64_t)v.measured, 1000);
    EVAL1("p0.1<=1s", 100, &r, v);
    CHECK_EQ_I64((int64_t)v.measured, 1);
    EVAL1("up50<=1s", 100, &r, v);
    CHECK_EQ_I64((int64_t)v.measured, 1000);
    EVAL1("up100<=1s", 100, &r, v);
    CHECK_EQ_I64((int64_t)v.measured, 2000);
    stats_free(&r.st);
}

static void test_eval_percentile_rounds_as_report(void)
{
    pc_results r;
    pc_verdict v;
    char expr[64];

    /* 1..100 ms: the histogram keeps 3 significant digits, so p99 is the
     * top of 99 ms's slot, which is what the report prints. */
    memset(&r, 0, sizeof r);
    CHECK(stats_init(&r.st) == 0);
    for (int64_t i = 1; i <= 100; i++)
        CHECK(hdr_record(&r.st.latency, i * 1000000));
    r.st.completed = 100;
    r.duration_ns = 1000000000;
    int64_t p99 = hdr_value_at_percentile(&r.st.latency, 99);
    CHECK(p99 == hdr_highest_equivalent(&r.st.latency, 99000000));
    CHECK(p99 > 99000000);

    EVAL1("p99<=99ms", 0, &r, v);
    CHECK(v.measured == (double)p99);
    CHECK(!v.pass); /* 99 ms recorded, but the slot's top is above */
    snprintf(expr, sizeof expr, "p99<=%" PRId64 "ns", p99);
    EVAL1(expr, 0, &r, v);
    CHECK(v.pass);
    snprintf(expr, sizeof expr, "p99<%" PRId64 "ns", p99);
    EVAL1(expr, 0, &r, v);
    CHECK(!v.pass);
    /* 99 ms lies in the slot [98959360, 99024895] (65536 ns wide). */
    CHECK_EQ_I64(p99, 99024895);
    CHECK_EQ_STR(v.shown, "99.02ms");

    EVAL1("max<=1s", 0, &r, v);
    CHECK(v.measured == (double)hdr_max(&r.st.latency));
    CHECK(v.measured == (double)hdr_highest_equivalent(&r.st.latency, 100000000));
    EVAL1("mean<=1s", 0, &r, v);
    CHECK(v.measured == hdr_mean(&r.st.latency));
    stats_free(&r.st);
}

static void test_eval_boundaries(void)
{
    pc_results r;

    CHECK(make_results(&r) == 0);
    /* p50 is exactly 500 ns. */
    EXPECT("p50<=500ns", 100, &r, true, "0.50us");
    EXPECT("p50<500ns", 100, &r, false, "0.50us");
    EXPECT("p50>=500ns", 100, &r, true, "0.50us");
    EXPECT("p50>500ns", 100, &r, false, "0.50us");
    EXPECT("p50<501ns", 100, &r, true, "0.50us");
    EXPECT("p50>499ns", 100, &r, true, "0.50us");
    /* max is exactly 1000 ns = 1 us. */
    EXPECT("max<=1us", 100, &r, true, "1.00us");
    EXPECT("max<1us", 100, &r, false, "1.00us");
    EXPECT("max>=1000ns", 100, &r, true, "1.00us");
    EXPECT("max>1000ns", 100, &r, false, "1.00us");
    EXPECT("umax<=2us", 100, &r, true, "2.00us");
    EXPECT("umax<2us", 100, &r, false, "2.00us");
    /* mean is 500.5 ns; umean 1001 ns. */
    EXPECT("mean<=500ns", 100, &r, false, "0.50us");
    EXPECT("mean>500ns", 100, &r, true, "0.50us");
    EXPECT("mean<501ns", 100, &r, true, "0.50us");
    EXPECT("umean<=1001ns", 100, &r, true, "1.00us");
    EXPECT("umean<1001ns", 100, &r, false, "1.00us");
    /* errors: 20 of 1010 at a rate. */
    EXPECT("errors<=20", 100, &r, true, "20");
    EXPECT("errors<20", 100, &r, false, "20");
    EXPECT("errors>=20", 100, &r, true, "20");
    EXPECT("errors>20", 100, &r, false, "20");
    /* rate: 1000 in 10 s = 100 req/s. */
    EXPECT("rate>=100", 100, &r, true, "100.00 req/s");
    EXPECT("rate>100", 100, &r, false, "100.00 req/s");
    EXPECT("rate<=100", 100, &r, true, "100.00 req/s");
    EXPECT("rate<100", 100, &r, false, "100.00 req/s");
    EXPECT("rate>=100%", 100, &r, true, "100.00% (100.00 of 100.00 req/s)");
    EXPECT("rate>100%", 100, &r, false, "100.00% (100.00 of 100.00 req/s)");
    EXPECT("rate>=80%", 125, &r, true, "80.00% (100.00 of 125.00 req/s)");
    EXPECT("rate>80%", 125, &r, false, "80.00% (100.00 of 125.00 req/s)");
    EXPECT("rate<=80%", 125, &r, true, "80.00% (100.00 of 125.00 req/s)");
    EXPECT("rate<80%", 125, &r, false, "80.00% (100.00 of 125.00 req/s)");
    stats_free(&r.st);

    /* An error share of exactly 1%. */
    memset(&r, 0, sizeof r);
    CHECK(stats_init(&r.st) == 0);
    CHECK(hdr_record(&r.st.latency, 1000));
    r.st.completed = 100;
    r.st.non2xx = 1;
    r.st.scheduled = 100;
    r.duration_ns = 1000000000;
    EXPECT("errors<=1%", 50, &r, true, "1% (1 of 100)");
    EXPECT("errors<1%", 50, &r, false, "1% (1 of 100)");
    EXPECT("errors>=1%", 50, &r, true, "1% (1 of 100)");
    EXPECT("errors>1%", 50, &r, false, "1% (1 of 100)");
    stats_free(&r.st);
}

static void test_eval_error_share(void)
{
    pc_results r;
    pc_verdict v;

    CHECK(make_results(&r) == 0);
    /* At a rate: outcomes 1010 (1000 + 5 + 3 + 2), good 990. */
    CHECK_EQ_I64(stats_outcomes(&r.st), 1010);
    EVAL1("errors<=5%", 100, &r, v);
    CHECK(v.measured == (double)(1010 - (1000 - 10)) / 1010.0);
    CHECK_EQ_STR(v.shown, "1.98% (20 of 1010)");
    CHECK(v.pass);
    EVAL1("errors<=1%", 100, &r, v);
    CHECK(!v.pass);
    EVAL1("errors<=0", 100, &r, v);
    CHECK(v.measured == 20.0);
    CHECK(!v.pass);

    /* Closed loop: the 4 failed connection attempts are failed requests. */
    EVAL1("errors<=24", 0, &r, v);
    CHECK(v.measured == 24.0);
    CHECK(v.pass);
    CHECK_EQ_STR(v.shown, "24");
    EVAL1("errors<24", 0, &r, v);
    CHECK(!v.pass);
    EVAL1("errors<=5%", 0, &r, v);
    CHECK(v.measured == 24.0 / 1014.0);
    CHECK_EQ_STR(v.shown, "2.37% (24 of 1014)");

    /* Every kind of failure counts; interrupted too. */
    r.st.err[PC_ERR_WRITE] = 1;
    r.st.err[PC_ERR_PROTOCOL] = 2;
    r.st.interrupted = 7;
    EVAL1("errors<=30", 100, &r, v);
    CHECK(v.measured == 30.0);
    CHECK(v.pass);
    EVAL1("errors<=100%", 100, &r, v);
    CHECK_EQ_STR(v.shown, "2.94% (30 of 1020)");

    /* No failures at all. */
    r.st.non2xx = 0;
    memset(r.st.err, 0, sizeof r.st.err);
    r.st.never_sent = r.st.interrupted = 0;
    EXPECT("errors<=0", 100, &r, true, "0");
    EXPECT("errors<=0%", 100, &r, true, "0% (0 of 1000)");
    EXPECT("errors<0%", 100, &r, false, "0% (0 of 1000)");
    stats_free(&r.st);
}

static void test_eval_rate_needs_R(void)
{
    pc_results r;
    pc_verdict v;

    CHECK(make_results(&r) == 0);
    EVAL1("rate>=0%", 0, &r, v);
    CHECK(!v.pass);
    CHECK_EQ_STR(v.shown, "n/a: a share of the rate needs -R");
    EVAL1("rate<=100%", 0, &r, v);
    CHECK(!v.pass);
    CHECK_EQ_STR(v.shown, "n/a: a share of the rate needs -R");
    /* An absolute rate works in closed loop. */
    EXPECT("rate>=100", 0, &r, true, "100.00 req/s");
    EXPECT("rate>=101", 0, &r, false, "100.00 req/s");
    /* With the rate achieved at 2/3. */
    EVAL1("rate>=66%", 150, &r, v);
    CHECK(v.pass);
    CHECK(v.measured == 100.0 / 150.0);
    CHECK_EQ_STR(v.shown, "66.67% (100.00 of 150.00 req/s)");
    /* No measured period: nothing achieved. */
    r.duration_ns = 0;
    EXPECT("rate>0", 100, &r, false, "0.00 req/s");
    EXPECT("rate>=0%", 100, &r, true, "0.00% (0.00 of 100.00 req/s)");
    stats_free(&r.st);
}

static void test_eval_no_samples(void)
{
    static const char *lat[] = {"p50<=1s", "p99.9>=0ns", "mean<=1s", "max<=1s",
                                "up99<=1s", "umean<=1s", "umax>=0ns", "p100<1h"};
    pc_results r;
    pc_verdict v;

    memset(&r, 0, sizeof r);
    CHECK(stats_init(&r.st) == 0);
    for (size_t i = 0; i < sizeof lat / sizeof lat[0]; i++) {
        EVAL1(lat[i], 100, &r, v);
        CHECK(!v.pass);
        CHECK_EQ_STR(v.shown, "no responses");
    }
    /* Counts of nothing hold. */
    EXPECT("errors<=0", 100, &r, true, "0");
    EXPECT("errors<=0%", 100, &r, true, "0% (0 of 0)");
    EXPECT("rate>=0", 100, &r, true, "0.00 req/s");

    /* Corrected samples but no uncorrected ones: only u* fail. */
    CHECK(hdr_record(&r.st.latency, 5000));
    EXPECT("p99<=1s", 100, &r, true, "5.00us");
    EXPECT("up99<=1s", 100, &r, false, "no responses");
    EXPECT("umax<=1s", 100, &r, false, "no responses");
    stats_free(&r.st);
}

/* lag_*: pacer's own send lag, its own histogram (not the latency's). */
static void test_eval_send_lag(void)
{
    pc_results r;
    pc_slo s;

    CHECK(make_results(&r) == 0);
    PARSE_OK("lag_p99<=1ms", &s);
    CHECK(s.v[0].lag && !s.v[0].uncorrected && s.v[0].metric == SLO_PCT);
    EXPECT("lag_p99<=1s", 0, &r, false, "no responses");
    for (int64_t i = 1; i <= 100; i++)
        CHECK(hdr_record(&r.st.send_lag, i * 1000));
    /* 99 us as the report has it: the top of its histogram slot. */
    EXPECT("lag_p99<=100us", 0, &r, true, "99.01us");
    EXPECT("lag_p99<98us", 0, &r, false, "99.01us");
    EXPECT("lag_max>=100us", 0, &r, true, "100.03us");
    EXPECT("lag_mean<=50us", 0, &r, false, "50.50us");
    /* The latency objectives still read the latency. */
    EXPECT("p99<=1us", 0, &r, true, "0.99us");
    stats_free(&r.st);
}

static void test_eval_all_and_verdicts(void)
{
    pc_results r;
    pc_slo s;
    pc_verdict v[SLO_MAX];

    CHECK(make_results(&r) == 0);
    PARSE_OK("p99<=1us, errors<=20, rate>=100", &s);
    CHECK(slo_eval(&s, 100, &r, v));
    CHECK(v[0].pass && v[1].pass && v[2].pass);
    CHECK(slo_eval(&s, 100, &r, NULL));
    /* Closed loop: 24 errors now. */
    CHECK(!slo_eval(&s, 0, &r, v));
    CHECK(v[0].pass && !v[1].pass && v[2].pass);
    CHECK(!slo_eval(&s, 0, &r, NULL));
    stats_free(&r.st);
}

static void test_eval_shown_units(void)
{
    pc_results r;

    memset(&r, 0, sizeof r);
    CHECK(stats_init(&r.st) == 0);
    CHECK(hdr_record(&r.st.latency, 12340000));
    CHECK(hdr_record(&r.st.latency, 1500000000));
    CHECK(hdr_record(&r.st.latency_u, 250000));
    r.st.completed = 2;
    r.duration_ns = 1000000000;
    /* As the report shows them: the top of each value's hdr slot.
     * 12.34 ms lies in [12337152, 12345343] (8192 ns wide), 250 us in
     * [249984, 250111] (128 ns wide). */
    EXPECT("p50<=1s", 0, &r, true, "12.35ms");
    EXPECT("p50<=12345343ns", 0, &r, true, "12.35ms");
    EXPECT("p50<12345343ns", 0, &r, false, "12.35ms");
    EXPECT("max<=1s", 0, &r, false, "1.50s");
    EXPECT("max<=2s", 0, &r, true, "1.50s");
    EXPECT("umax<=250us", 0, &r, false, "250.11us");
    EXPECT("umax<=250111ns", 0, &r, true, "250.11us");
    EXPECT("rate>=2", 0, &r, true, "2.00 req/s");
    stats_free(&r.st);
}

static void test_format_value(void)
{
    pc_objective lat = {.metric = SLO_PCT}, mean = {.metric = SLO_MEAN};
    pc_objective ec = {.metric = SLO_ERRORS}, ep = {.metric = SLO_ERRORS, .percent = true};
    pc_objective rc = {.metric = SLO_RATE}, rp = {.metric = SLO_RATE, .percent = true};
    char b[64];

    slo_format_value(&lat, 12340000, b, sizeof b);
    CHECK_EQ_STR(b, "12.34ms");
    slo_format_value(&mean, 500, b, sizeof b);
    CHECK_EQ_STR(b, "0.50us");
    slo_format_value(&lat, 2e9, b, sizeof b);
    CHECK_EQ_STR(b, "2.00s");
    slo_format_value(&ec, 42, b, sizeof b);
    CHECK_EQ_STR(b, "42");
    slo_format_value(&ep, 0.0052, b, sizeof b);
    CHECK_EQ_STR(b, "0.52%");
    slo_format_value(&ep, 0.123456, b, sizeof b);
    CHECK_EQ_STR(b, "12.3%");
    slo_format_value(&rc, 999.999, b, sizeof b);
    CHECK_EQ_STR(b, "1000.00 req/s");
    slo_format_value(&rp, 0.995, b, sizeof b);
    CHECK_EQ_STR(b, "99.50%");
    /* Truncated to cap, terminated. */
    slo_format_value(&rc, 123.0, b, 5);
    CHECK_EQ_STR(b, "123.");
}

/* ---- printing ----------------------------------------------------------- */

static void test_print_mixed(void)
{
    pc_results r;
    pc_slo s;
    bool all = true;
    char *out;

    CHECK(make_results(&r) == 0);
    PARSE_OK("p50<=500ns, errors<1%, rate>=100", &s);
    out = print_str(&s, 100, &r, NULL, &all);
    CHECK(out != NULL);
    CHECK(!all);
    CHECK_EQ_STR(out, "SLO:\n"
                      "  PASS  p50<=500ns  measured 0.50us\n"
                      "  FAIL  errors<1%   measured 1.98% (20 of 1010)"
                      ": 2 never sent (still queued when the run ended: never written to the server); 3 timed out; "
                      "5 read, write or protocol errors; 10 non-2xx/3xx responses\n"
                      "  PASS  rate>=100   measured 100.00 req/s\n"
                      "SLO FAILED: 1 of 3 objectives not met\n");
    free(out);
    stats_free(&r.st);
}

static void test_print_passed_with_who(void)
{
    pc_results r;
    pc_slo s;
    bool all = false;
    char *out;

    CHECK(make_results(&r) == 0);
    PARSE_OK("max<=1ms,errors<=2%", &s);
    out = print_str(&s, 100, &r, "round 2/3 B", &all);
    CHECK(out != NULL);
    CHECK(all);
    CHECK_EQ_STR(out, "SLO for round 2/3 B:\n"
                      "  PASS  max<=1ms    measured 1.00us\n"
                      "  PASS  errors<=2%  measured 1.98% (20 of 1010)"
                      ": 2 never sent (still queued when the run ended: never written to the server); 3 timed out; "
                      "5 read, write or protocol errors; 10 non-2xx/3xx responses\n"
                      "SLO PASSED: all 2 objectives met\n");
    free(out);
    stats_free(&r.st);
}

static void test_print_all_failed_closed_loop(void)
{
    pc_results r;
    pc_slo s;
    bool all = true;
    char *out;

    memset(&r, 0, sizeof r);
    CHECK(stats_init(&r.st) == 0);
    r.st.connect_errors = 3;
    PARSE_OK("p99<=1s,rate>=99%,errors<=0", &s);
    out = print_str(&s, 0, &r, "", &all);
    CHECK(out != NULL);
    CHECK(!all);
    CHECK_EQ_STR(out, "SLO for :\n"
                      "  FAIL  p99<=1s    measured no responses\n"
                      "  FAIL  rate>=99%  measured n/a: a share of the rate needs -R\n"
                      "  FAIL  errors<=0  measured 3: 3 failed connection attempts (closed loop)\n"
                      "SLO FAILED: 3 of 3 objectives not met\n");
    free(out);
    stats_free(&r.st);
}

static void test_print_agrees_with_eval(void)
{
    pc_results r;
    pc_slo s;
    pc_verdict v[SLO_MAX];
    bool all;
    char *out, line[256];

    CHECK(make_results(&r) == 0);
    PARSE_OK("p99<=1ms,up99<=1us,umean<1us,mean<1us,errors<=1%,rate>=90%", &s);
    bool want = slo_eval(&s, 100, &r, v);
    out = print_str(&s, 100, &r, NULL, &all);
    CHECK(out != NULL);
    CHECK(all == want);
    CHECK(!all);
    for (size_t i = 0; i < s.n; i++) {
        snprintf(line, sizeof line, "  %s  %-10s  measured %s", v[i].pass ? "PASS" : "FAIL",
                 s.v[i].text, v[i].shown);
        CHECK(strstr(out, line) != NULL);
    }
    CHECK(strstr(out, "SLO FAILED: 3 of 6 objectives not met\n") != NULL);
    free(out);
    stats_free(&r.st);
}

/* stageN: an objective judged on one stage of --stages: its own latency
 * histogram and its own failures, not the whole run's. */
static void test_stage_objectives(void)
{
    pc_results r;
    pc_verdict v;
    pc_slo sl;

    CHECK(make_results(&r) == 0);
    CHECK(stats_init_stages(&r.st, 2, 0) == 0);
    for (int64_t i = 1; i <= 100; i++)
        CHECK(hdr_record(&r.st.stages[1].latency, 1000000 * i)); /* 1..100 ms */
    CHECK(hdr_record(&r.st.stages[0].latency, 500));
    r.st.stages[1].completed = 100;
    r.st.stages[1].non2xx = 2;
    r.st.stages[1].errors = 3;
    r.st.stages[1].never_sent = 5;
    r.st.stages[0].completed = 1;

    PARSE_OK("stage2:p99<=100ms,stage1:errors<=0", &sl);
    CHECK_EQ_I64(sl.v[0].stage, 2);
    CHECK_EQ_I64(sl.v[0].metric, SLO_PCT);
    CHECK(sl.v[0].pct == 99);
    CHECK_EQ_STR(sl.v[0].text, "stage2:p99<=100ms");
    CHECK_EQ_I64(sl.v[1].stage, 1);
    CHECK_EQ_I64(sl.v[1].metric, SLO_ERRORS);

    /* Stage 2's p99 is ~99 ms; the whole run's is 990 ns. */
    EVAL1("stage2:p99<=95ms", 100, &r, v);
    CHECK(!v.pass);
    CHECK(v.measured > 95e6 && v.measured < 101e6);
    EVAL1("p99<=95ms", 100, &r, v);
    CHECK(v.pass);
    EVAL1("stage1:max<=1us", 100, &r, v);
    CHECK(v.pass);
    /* Stage 2's failures: 3 errors + 5 never sent + 2 non-2xx of 108. */
    EVAL1("stage2:errors<=10", 100, &r, v);
    CHECK(v.pass && v.measured == 10.0);
    EVAL1("stage2:errors<=5%", 100, &r, v);
    CHECK_EQ_STR(v.shown, "9.26% (10 of 108)");
    CHECK(!v.pass);
    EVAL1("stage1:errors<=0", 100, &r, v);
    CHECK(v.pass);
    /* A stage the run does not have cannot pass. */
    EVAL1("stage3:p99<=1s", 100, &r, v);
    CHECK(!v.pass && v.none);
    CHECK_EQ_STR(v.shown, "n/a: the run has no stage 3");

    PARSE_ERR("stage0:p99<=1ms", "invalid --slo objective 'stage0:p99<=1ms': a stage is stageN:OBJECTIVE, N from 1");
    PARSE_ERR("stage2p99<=1ms", "invalid --slo objective 'stage2p99<=1ms': a stage is stageN:OBJECTIVE, N from 1");
    PARSE_ERR("stage1:rate>=5", "invalid --slo objective 'stage1:rate>=5': a stage has corrected latency and errors objectives (p99, mean, max, errors)");
    PARSE_ERR("stage1:up99<=5ms", "invalid --slo objective 'stage1:up99<=5ms': a stage has corrected latency and errors objectives (p99, mean, max, errors)");
    stats_free(&r.st);
}

int main(void)
{
    RUN(test_parse_percentiles);
    RUN(test_stage_objectives);
    RUN(test_parse_mean_max);
    RUN(test_parse_errors_rate);
    RUN(test_parse_every_operator);
    RUN(test_parse_values_in_ns);
    RUN(test_parse_blanks_and_text);
    RUN(test_parse_max_objectives);
    RUN(test_err_missing_op);
    RUN(test_err_missing_metric);
    RUN(test_err_missing_value);
    RUN(test_err_unknown_metric);
    RUN(test_err_bad_percentile);
    RUN(test_err_latency_unit);
    RUN(test_err_bad_latency);
    RUN(test_err_bad_number);
    RUN(test_err_percent_over_100);
    RUN(test_err_negative);
    RUN(test_err_empty);
    RUN(test_err_empty_objective);
    RUN(test_err_too_long);
    RUN(test_err_first_bad_objective_named);
    RUN(test_err_truncated_and_terminated);
    RUN(test_eval_percentiles_match_hdr);
    RUN(test_eval_percentile_rounds_as_report);
    RUN(test_eval_boundaries);
    RUN(test_eval_error_share);
    RUN(test_eval_rate_needs_R);
    RUN(test_eval_no_samples);
    RUN(test_eval_all_and_verdicts);
    RUN(test_eval_shown_units);
    RUN(test_eval_send_lag);
    RUN(test_format_value);
    RUN(test_print_mixed);
    RUN(test_print_passed_with_who);
    RUN(test_print_all_failed_closed_loop);
    RUN(test_print_agrees_with_eval);
    return unit_done();
}
