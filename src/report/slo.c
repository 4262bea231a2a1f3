/*
 * slo.c - see slo.h.
 */
#include "report/slo.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/units.h"
#include "report/report.h"
#include "stats/hdr.h"

/* Whether s starts as a plain decimal ("12", "1.5", ".5", "+2", "1e3"):
 * strtod also takes white space, a minus sign, hex, inf and nan. */
static bool plain_decimal(const char *s)
{
    if (*s == '+')
        s++;
    if (!(isdigit((unsigned char)*s) || (*s == '.' && isdigit((unsigned char)s[1]))))
        return false;
    return !strpbrk(s, "xX");
}

/* Split "p99<=100ms" into metric, op and value text. */
static int parse_one(const char *s, pc_objective *o, char *err, size_t errlen)
{
    char metric[32], value[32];
    const char *op = strpbrk(s, "<>");
    size_t mlen;
    char *end;

    memset(o, 0, sizeof *o);
    if (strlen(s) >= sizeof o->text) {
        snprintf(err, errlen, "--slo objective too long (max %zu characters): '%.40s...'",
                 sizeof o->text - 1, s);
        return -EINVAL;
    }
    snprintf(o->text, sizeof o->text, "%s", s);
    if (strncmp(s, "stage", 5) == 0 && isdigit((unsigned char)s[5])) {
        unsigned long n = strtoul(s + 5, &end, 10);

        if (*end != ':' || n < 1 || n > PC_MAX_STAGES) {
            snprintf(err, errlen, "invalid --slo objective '%s': a stage is stageN:OBJECTIVE, N from 1",
                     s);
            return -EINVAL;
        }
        o->stage = (uint32_t)n;
        s = end + 1;
        op = strpbrk(s, "<>");
    }
    if (!op) {
        snprintf(err, errlen, "invalid --slo objective '%s': expected e.g. p99<=100ms", s);
        return -EINVAL;
    }
    mlen = (size_t)(op - s);
    if (mlen == 0 || mlen >= sizeof metric) {
        snprintf(err, errlen, "invalid --slo objective '%s': missing metric (p99, max, errors, rate...)", s);
        return -EINVAL;
    }
    memcpy(metric, s, mlen);
    metric[mlen] = 0;
    if (op[1] == '=') {
        o->op = op[0] == '<' ? SLO_LE : SLO_GE;
        op += 2;
    } else {
        o->op = op[0] == '<' ? SLO_LT : SLO_GT;
        op += 1;
    }
    if (!*op || strlen(op) >= sizeof value) {
        snprintf(err, errlen, "invalid --slo objective '%s': missing value", s);
        return -EINVAL;
    }
    snprintf(value, sizeof value, "%s", op);

    const char *m = metric;
    bool latency = true;

    if (strcmp(m, "errors") == 0) {
        o->metric = SLO_ERRORS;
        latency = false;
    } else if (strcmp(m, "rate") == 0) {
        o->metric = SLO_RATE;
        latency = false;
    } else {
        if (m[0] == 'u' && m[1]) {
            o->uncorrected = true;
            m++;
        } else if (strncmp(m, "lag_", 4) == 0) {
            o->lag = true;
            m += 4;
        }
        if (strcmp(m, "mean") == 0) {
            o->metric = SLO_MEAN;
        } else if (strcmp(m, "max") == 0) {
            o->metric = SLO_MAX_LAT;
        } else if (m[0] == 'p' && (isdigit((unsigned char)m[1]))) {
            o->metric = SLO_PCT;
            errno = 0;
            o->pct = strtod(m + 1, &end);
            if (!plain_decimal(m + 1) || *end || errno || !(o->pct > 0 && o->pct <= 100)) {
                snprintf(err, errlen, "invalid --slo percentile '%s' (above p0, up to p100, e.g. p99.9)",
                         metric);
                return -EINVAL;
            }
        } else {
            snprintf(err, errlen,
                     "unknown --slo metric '%s' (p99, p99.9, mean, max, up99/umean/umax, lag_p99/lag_max, errors, rate)",
                     metric);
            return -EINVAL;
        }
    }
    if (o->stage && (o->metric == SLO_RATE || o->uncorrected || o->lag)) {
        snprintf(err, errlen,
                 "invalid --slo objective '%s': a stage has corrected latency and errors "
                 "objectives (p99, mean, max, errors)",
                 o->text);
        return -EINVAL;
    }
    if (latency) {
        uint64_t ns;
        size_t vl = strlen(value);

        if (isdigit((unsigned char)value[vl - 1]) || value[vl - 1] == '.') {
            snprintf(err, errlen, "invalid --slo objective '%s': latency needs a unit (us, ms, s)", s);
            return -EINVAL;
        }
        if (units_parse_duration(value, &ns) < 0) {
            snprintf(err, errlen, "invalid --slo objective '%s': bad latency '%s' (e.g. 250us, 100ms, 1s)",
                     s, value);
            return -EINVAL;
        }
        o->value = (double)ns;
        return 0;
    }
    size_t vl = strlen(value);

    if (value[vl - 1] == '%') {
        o->percent = true;
        value[vl - 1] = 0;
    }
    errno = 0;
    o->value = strtod(value, &end);
    if (!plain_decimal(value) || *end || errno || !isfinite(o->value) || o->value < 0 ||
        (o->percent && o->value > 100)) {
        snprintf(err, errlen, "invalid --slo objective '%s': bad number '%s'", s, op);
        return -EINVAL;
    }
    if (o->percent)
        o->value /= 100;
    return 0;
}

int slo_parse(const char *expr, pc_slo *out, char *err, size_t errlen)
{
    char buf[512], *save = NULL, *tok;
    size_t n = 0;

    memset(out, 0, sizeof *out);
    /* Blanks are allowed anywhere ("p99 <= 100ms, errors <= 1%"). */
    for (const char *p = expr; *p; p++) {
        if (*p == ' ' || *p == '\t')
            continue;
        if ((unsigned char)*p < ' ' || *p == 0x7f) {
            snprintf(err, errlen, "invalid --slo expression: control character at offset %zu",
                     (size_t)(p - expr));
            return -EINVAL;
        }
        if (n + 1 >= sizeof buf) {
            snprintf(err, errlen, "--slo expression too long (max %zu characters)", sizeof buf - 1);
            return -EINVAL;
        }
        buf[n++] = *p;
    }
    buf[n] = 0;
    if (!n) {
        snprintf(err, errlen, "empty --slo expression (e.g. 'p99<=100ms,errors<=0.1%%')");
        return -EINVAL;
    }
    snprintf(out->text, sizeof out->text, "%s", buf);
    if (buf[0] == ',' || buf[n - 1] == ',' || strstr(buf, ",,")) {
        snprintf(err, errlen, "invalid --slo expression '%s': empty objective", out->text);
        return -EINVAL;
    }
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (out->n == SLO_MAX) {
            snprintf(err, errlen, "too many --slo objectives (max %d)", SLO_MAX);
            return -EINVAL;
        }
        if (parse_one(tok, &out->v[out->n], err, errlen) < 0)
            return -EINVAL;
        out->n++;
    }
    return 0;
}

void slo_format_value(const pc_objective *o, double v, char *buf, size_t cap)
{
    switch (o->metric) {
    case SLO_PCT:
    case SLO_MEAN:
    case SLO_MAX_LAT:
        units_fmt_time_us(v / 1e3, buf, cap);
        break;
    case SLO_ERRORS:
        if (o->percent)
            snprintf(buf, cap, "%.3g%%", v * 100);
        else
            snprintf(buf, cap, "%.0f", v);
        break;
    case SLO_RATE:
        if (o->percent)
            snprintf(buf, cap, "%.2f%%", v * 100);
        else
            snprintf(buf, cap, "%.2f req/s", v);
        break;
    }
}

static bool holds(enum slo_op op, double measured, double limit)
{
    switch (op) {
    case SLO_LE:
        return measured <= limit;
    case SLO_LT:
        return measured < limit;
    case SLO_GE:
        return measured >= limit;
    case SLO_GT:
        return measured > limit;
    }
    return false;
}

static void eval_one(const pc_objective *o, double rate, const pc_results *res, pc_verdict *v)
{
    const pc_stats *st = &res->st;
    const hdr_hist *h = o->lag ? &st->send_lag : o->uncorrected ? &st->latency_u : &st->latency;
    const pc_stage_stats *g = NULL;
    double achieved = report_rate(res);
    char num[48];

    memset(v, 0, sizeof *v);
    if (o->stage) {
        if (!st->stages || o->stage > st->nstages) {
            snprintf(v->shown, sizeof v->shown, "n/a: the run has no stage %u", o->stage);
            v->none = true;
            return;
        }
        g = &st->stages[o->stage - 1];
        h = &g->latency;
    }
    switch (o->metric) {
    case SLO_PCT:
    case SLO_MEAN:
    case SLO_MAX_LAT:
        if (!h->total_count) {
            snprintf(v->shown, sizeof v->shown, "no responses");
            v->none = true;
            v->pass = false;
            return;
        }
        v->measured = o->metric == SLO_PCT    ? (double)hdr_value_at_percentile(h, o->pct)
                      : o->metric == SLO_MEAN ? hdr_mean(h)
                                              : (double)hdr_max(h);
        break;
    case SLO_ERRORS: {
        /* Every request that did not end in a 2xx/3xx response. In closed
         * loop a failed connection attempt is a request that could not be
         * made (at a rate, the requests it delayed are counted already). */
        uint64_t extra = rate > 0 ? 0 : st->connect_errors;
        uint64_t all = stats_outcomes(st) + extra, failed = stats_failed(st) + extra;

        if (g) {
            all = g->completed + g->errors + g->never_sent + g->interrupted;
            failed = g->errors + g->never_sent + g->interrupted + g->non2xx;
        }
        if (o->percent) {
            v->measured = all ? (double)failed / (double)all : 0;
            slo_format_value(o, v->measured, num, sizeof num);
            snprintf(v->shown, sizeof v->shown, "%s (%" PRIu64 " of %" PRIu64 ")", num, failed,
                     all);
            v->pass = holds(o->op, v->measured, o->value);
            return;
        }
        v->measured = (double)failed;
        break;
    }
    case SLO_RATE:
        if (o->percent) {
            if (rate <= 0) {
                snprintf(v->shown, sizeof v->shown, "n/a: a share of the rate needs -R");
                v->none = true;
                v->pass = false;
                return;
            }
            v->measured = achieved / rate;
            slo_format_value(o, v->measured, num, sizeof num);
            snprintf(v->shown, sizeof v->shown, "%s (%.2f of %.2f req/s)", num, achieved, rate);
            v->pass = holds(o->op, v->measured, o->value);
            return;
        }
        v->measured = achieved;
        break;
    }
    slo_format_value(o, v->measured, v->shown, sizeof v->shown);
    v->pass = holds(o->op, v->measured, o->value);
}

/* What an errors objective counted as failed, by kind, non-zero kinds only:
 * a share of never-sent requests (queued behind the connections, never
 * written) is as much a failure to --slo errors as a reset, and says so. */
void slo_failed_parts(char *buf, size_t cap, const pc_objective *o, double rate,
                         const pc_stats *st)
{
    uint64_t v[6] = {0};
    static const char *const what[6] = {
        "never sent (still queued when the run ended: never written to the server)",
        "timed out", "read, write or protocol errors", "interrupted in flight",
        "non-2xx/3xx responses", "failed connection attempts (closed loop)"};
    size_t n = 0;

    if (o->stage && st->stages && o->stage <= st->nstages) {
        const pc_stage_stats *g = &st->stages[o->stage - 1];

        v[0] = g->never_sent;
        v[2] = g->errors; /* a stage keeps its errors as one count, timeouts too */
        v[3] = g->interrupted;
        v[4] = g->non2xx;
    } else {
        v[0] = st->never_sent;
        v[1] = st->err[PC_ERR_TIMEOUT];
        v[2] = st->err[PC_ERR_READ] + st->err[PC_ERR_WRITE] + st->err[PC_ERR_PROTOCOL];
        v[3] = st->interrupted;
        v[4] = st->non2xx;
        v[5] = rate > 0 ? 0 : st->connect_errors;
    }
    buf[0] = 0;
    for (int i = 0; i < 6 && n < cap; i++)
        if (v[i])
            n += (size_t)snprintf(buf + n, cap - n, "%s%" PRIu64 " %s", n ? "; " : "", v[i],
                                  o->stage && i == 2 ? "errors or timeouts" : what[i]);
    if (!n)
        snprintf(buf, cap, "none failed");
}

bool slo_eval(const pc_slo *s, double rate, const pc_results *res, pc_verdict *v)
{
    bool all = true;

    for (size_t i = 0; i < s->n; i++) {
        pc_verdict one;

        eval_one(&s->v[i], rate, res, &one);
        all = all && one.pass;
        if (v)
            v[i] = one;
    }
    return all;
}

bool slo_print(FILE *f, const pc_slo *s, double rate, const pc_results *res, const char *who)
{
    pc_verdict v[SLO_MAX];
    bool all = slo_eval(s, rate, res, v);
    size_t failed = 0, w = 0;

    for (size_t i = 0; i < s->n; i++)
        if (strlen(s->v[i].text) > w)
            w = strlen(s->v[i].text);
    fprintf(f, "SLO%s%s:\n", who ? " for " : "", who ? who : "");
    for (size_t i = 0; i < s->n; i++) {
        char parts[512] = "";

        /* An errors objective says what it counted: never-sent requests
         * are failures to it, though no error table lists them. */
        if (s->v[i].metric == SLO_ERRORS && !v[i].none) {
            slo_failed_parts(parts, sizeof parts, &s->v[i], rate, &res->st);
            if (strcmp(parts, "none failed") == 0)
                parts[0] = '\0';
        }
        fprintf(f, "  %s  %-*s  measured %s%s%s\n", v[i].pass ? "PASS" : "FAIL", (int)w,
                s->v[i].text, v[i].shown, parts[0] ? ": " : "", parts);
        failed += !v[i].pass;
    }
    if (all)
        fprintf(f, "SLO PASSED: all %zu objectives met\n", s->n);
    else
        fprintf(f, "SLO FAILED: %zu of %zu objectives not met\n", failed, s->n);
    return all;
}
