/*
 * json_out.c - the JSON result document. Everything the text report says,
 * plus the encoded histograms (so files merge without loss) and the time
 * series. Latencies are microseconds (doubles) and say so; counts are
 * integers; times are seconds.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


#include "report/server_cost.h"
#include "report/json_out.h"
#include "report/report.h"
#include "report/verdict.h"
#include "report/slo.h"
#include "report/stages.h"
#include "stats/hdr_codec.h"
#include "util/json.h"
#include "net/sha256.h"

static const char *const pct_keys[] = {"50", "75", "90", "99", "99.9", "99.99", "99.999", "100"};
static const double pct_vals[] = {50, 75, 90, 99, 99.9, 99.99, 99.999, 100};

void report_json_hist(json_w *w, const char *key, const hdr_hist *h)
{
    char *b64 = NULL;
    bool any = h->total_count > 0;

    json_w_key(w, key);
    json_w_obj_begin(w);
    json_w_kint(w, "count", h->total_count);
    json_w_kdouble(w, "min", any ? (double)hdr_min(h) / 1e3 : 0);
    json_w_kdouble(w, "mean", hdr_mean(h) / 1e3);
    json_w_kdouble(w, "stdev", hdr_stddev(h) / 1e3);
    json_w_kdouble(w, "max", any ? (double)hdr_max(h) / 1e3 : 0);
    json_w_key(w, "percentiles");
    json_w_obj_begin(w);
    for (size_t i = 0; i < sizeof pct_vals / sizeof pct_vals[0]; i++)
        json_w_kdouble(w, pct_keys[i],
                       any ? (double)hdr_value_at_percentile(h, pct_vals[i]) / 1e3 : 0);
    json_w_obj_end(w);
    if (hdrc_encode_base64(h, &b64) == 0)
        json_w_kstr(w, "histogram", b64);
    else
        json_w_kstr(w, "histogram", NULL);
    free(b64);
    json_w_obj_end(w);
}

/* The body's SHA-256 in hex ("" without a body): two runs with different
 * bodies must not read the same. */
static void body_sha256(const pc_reqspec *r, char hex[65])
{
    hex[0] = 0;
    if (r->body_sha256 && r->body_sha256[0])
        snprintf(hex, 65, "%s", r->body_sha256);
    else if (r->body_len && r->body)
        pc_sha256_hex(r->body, r->body_len, hex);
}

/* What identifies a request: method, URL, body size and hash. */
static void w_request(json_w *w, const pc_reqspec *r)
{
    char hex[65];

    body_sha256(r, hex);
    json_w_kstr(w, "method", r->method);
    json_w_kstr(w, "url", r->url_text);
    json_w_kuint(w, "body_bytes", r->body_len);
    json_w_kstr(w, "body_sha256", hex[0] ? hex : NULL);
}

uint32_t report_top_urls(const pc_stats *st, uint32_t *top, uint32_t max)
{
    uint32_t n = 0;

    /* Kept sorted, busiest first; an equal count stays behind the earlier
     * URL, so ties keep the file's order. */
    for (uint32_t i = 0; st->urls && i < st->nurls; i++) {
        uint64_t c = st->urls[i].completed;
        uint32_t j;

        if (n == max && c <= st->urls[top[n - 1]].completed)
            continue;
        j = n < max ? n++ : n - 1;
        for (; j > 0 && st->urls[top[j - 1]].completed < c; j--)
            top[j] = top[j - 1];
        top[j] = i;
    }
    return n;
}

static void w_config(json_w *w, const pc_rundesc *cfg)
{
    const pc_reqspec *one = cfg->nreqs == 1 ? &cfg->reqs[0] : NULL;
    char hex[65] = "";

    json_w_key(w, "config");
    json_w_obj_begin(w);
    json_w_kstr(w, "cmdline", cfg->cmdline);
    json_w_kstr(w, "url", cfg->url_text);
    /* The request, when there is one; config.requests lists them all. */
    if (one)
        body_sha256(one, hex);
    json_w_kstr(w, "method", one ? one->method : NULL);
    json_w_key(w, "body_bytes");
    if (one)
        json_w_uint(w, one->body_len);
    else
        json_w_null(w);
    json_w_kstr(w, "body_sha256", hex[0] ? hex : NULL);
    /* The first REPORT_JSON_URLS of the list (what tells two runs of one
     * --urls file apart), and how many there were. */
    json_w_key(w, "requests");
    json_w_arr_begin(w);
    for (size_t i = 0; i < cfg->nreqs && i < REPORT_JSON_URLS; i++) {
        json_w_obj_begin(w);
        w_request(w, &cfg->reqs[i]);
        json_w_obj_end(w);
    }
    json_w_arr_end(w);
    json_w_kuint(w, "requests_total", cfg->nreqs_total > cfg->nreqs ? cfg->nreqs_total : cfg->nreqs);
    json_w_kstr(w, "mode", cfg->rate > 0 ? "constant-rate" : "closed-loop");
    json_w_kstr(w, "protocol", cfg->h3 ? "h3" : cfg->h2 ? "h2" : "http/1.1");
    json_w_kstr(w, "alpn", cfg->alpn);
    json_w_kstr(w, "script", cfg->script_path);
    json_w_kuint(w, "streams", cfg->streams);
    json_w_kuint(w, "threads", cfg->threads);
    json_w_kuint(w, "connections", cfg->connections);
    json_w_kdouble(w, "duration_s", (double)cfg->duration_ns / 1e9);
    json_w_key(w, "rate");
    if (cfg->rate > 0)
        json_w_double(w, cfg->rate);
    else
        json_w_null(w);
    json_w_key(w, "request_count");
    if (cfg->requests)
        json_w_uint(w, cfg->requests);
    else
        json_w_null(w);
    json_w_kdouble(w, "timeout_s", (double)cfg->timeout_ns / 1e9);
    json_w_kdouble(w, "connect_timeout_s", (double)cfg->connect_timeout_ns / 1e9);
    json_w_kdouble(w, "warmup_s", (double)cfg->warmup_ns / 1e9);
    report_json_shape(w, cfg);
    json_w_key(w, "slack_s"); /* null: adaptive */
    if (cfg->slack_set)
        json_w_double(w, (double)cfg->slack_ns / 1e9);
    else
        json_w_null(w);
    json_w_kdouble(w, "spin_s", (double)cfg->spin_ns / 1e9);
    json_w_kuint(w, "pipeline", cfg->pipeline);
    json_w_kbool(w, "batch_latency", cfg->batch_latency);
    json_w_kbool(w, "tls_resume", !cfg->no_tls_resume);
    json_w_kdouble(w, "interval_s", (double)cfg->interval_ns / 1e9);
    json_w_key(w, "shard");
    if (cfg->shard_count) {
        json_w_obj_begin(w);
        json_w_kuint(w, "index", cfg->shard_index);
        json_w_kuint(w, "count", cfg->shard_count);
        json_w_obj_end(w);
    } else {
        json_w_null(w);
    }
    if (cfg->nsources) {
        json_w_key(w, "sources");
        json_w_arr_begin(w);
        for (size_t i = 0; i < cfg->nsources; i++)
            json_w_str(w, cfg->sources[i]);
        json_w_arr_end(w);
        json_w_key(w, "source_cmdlines");
        json_w_arr_begin(w);
        for (size_t i = 0; i < cfg->nsource_cmdlines; i++)
            json_w_str(w, cfg->source_cmdlines[i]);
        json_w_arr_end(w);
    }
    json_w_key(w, "headers");
    json_w_arr_begin(w);
    for (size_t i = 0; i < cfg->nheaders; i++) {
        char line[1024];

        snprintf(line, sizeof line, "%s: %s", cfg->headers[i].name,
                 pc_header_is_secret(cfg->headers[i].name, strlen(cfg->headers[i].name))
                     ? "REDACTED"
                     : cfg->headers[i].value);
        json_w_str(w, line);
    }
    json_w_arr_end(w);
    json_w_obj_end(w);
}

/* An MPI run: the ranks, their hosts, how far apart they started. */
static void w_dist(json_w *w, const pc_dist_desc *d)
{
    json_w_key(w, "distributed");
    json_w_obj_begin(w);
    json_w_kuint(w, "ranks", d->ranks);
    json_w_key(w, "hosts");
    json_w_arr_begin(w);
    for (uint32_t i = 0; i < d->ranks; i++)
        json_w_str(w, d->hosts[i]);
    json_w_arr_end(w);
    json_w_key(w, "start_late_us");
    json_w_arr_begin(w);
    for (uint32_t i = 0; i < d->ranks; i++)
        json_w_double(w, d->late_us[i]);
    json_w_arr_end(w);
    json_w_key(w, "clock_offset_us");
    json_w_arr_begin(w);
    for (uint32_t i = 0; i < d->ranks; i++)
        json_w_double(w, d->clock_us[i]);
    json_w_arr_end(w);
    json_w_key(w, "clock_error_us");
    json_w_arr_begin(w);
    for (uint32_t i = 0; i < d->ranks; i++)
        json_w_double(w, d->clock_err_us ? d->clock_err_us[i] : 0);
    json_w_arr_end(w);
    json_w_kdouble(w, "start_skew_us", d->start_skew_us);
    json_w_obj_end(w);
}

/* The key of a field the JSON has from stats.h's table (PC_SJ_TABLE), if its path
 * is in section. */
static const char *table_key(const pc_stats_field *f, const char *section)
{
    size_t n = strlen(section);

    if (f->json != PC_SJ_TABLE || strncmp(f->path, section, n) != 0 || f->path[n] != '.')
        return NULL;
    return f->path + n + 1;
}

/* The table's counters in section, in its order: from the one after the
 * key `after` (NULL: the first) through the key `through` (NULL: the last). */
static void w_counters(json_w *w, const pc_stats *st, const char *section, const char *after,
                       const char *through)
{
    bool on = !after;

    for (size_t i = 0; i < pc_stats_nfields; i++) {
        const pc_stats_field *f = &pc_stats_fields[i];
        const char *key =
            f->kind == PC_SK_SUM || f->kind == PC_SK_MAX ? table_key(f, section) : NULL;

        if (!key)
            continue;
        if (on)
            json_w_kuint(w, key, *(const uint64_t *)stats_cfield(st, f));
        if (on && through && strcmp(key, through) == 0)
            break;
        if (after && strcmp(key, after) == 0)
            on = true;
    }
}

/* HTTP/3's "quic" object: the table's counters and RTT histograms, the
 * RTTs and handshake time in ms, CONNECTION_CLOSE by code. */
static void w_quic(json_w *w, const pc_stats *st)
{
    char k[24];

    json_w_key(w, "quic");
    json_w_obj_begin(w);
    w_counters(w, st, "quic", NULL, NULL);
    for (size_t i = 0; i < pc_stats_nfields; i++) {
        const pc_stats_field *f = &pc_stats_fields[i];
        const char *key =
            f->kind == PC_SK_HIST_NS || f->kind == PC_SK_HIST_RATE ? table_key(f, "quic") : NULL;

        if (key)
            report_json_hist(w, key, stats_cfield(st, f));
    }
    if (st->quic_srtt.total_count) {
        json_w_kdouble(w, "smoothed_rtt_ms", hdr_mean(&st->quic_srtt) / 1e6);
        json_w_kdouble(w, "min_rtt_ms", (double)hdr_min(&st->quic_min_rtt) / 1e6);
    }
    if (st->tls.total_count)
        json_w_kdouble(w, "handshake_ms_mean", hdr_mean(&st->tls) / 1e6);
    json_w_key(w, "connection_close");
    json_w_obj_begin(w);
    for (int i = 0; i < STATS_QUIC_CLOSE_N; i++)
        if (st->quic_close[i])
            json_w_kuint(w, stats_quic_close_key(i, k, sizeof k), st->quic_close[i]);
    json_w_obj_end(w);
    json_w_obj_end(w);
}

/* One point of the series, its fields as pc_point_fields lists them. */
static void w_point(json_w *w, const pc_point *p)
{
    for (size_t i = 0; i < pc_point_nfields; i++) {
        const pc_point_field *f = &pc_point_fields[i];
        const char *at = (const char *)p + f->off;
        uint64_t u;
        int64_t ns;
        double d;
        const char *s;

        switch (f->kind) {
        case PC_PF_SECS:
            memcpy(&d, at, sizeof d);
            json_w_kdouble(w, f->key, d);
            break;
        case PC_PF_COUNT:
            memcpy(&u, at, sizeof u);
            json_w_kuint(w, f->key, u);
            break;
        case PC_PF_RATE:
            memcpy(&u, at, sizeof u);
            json_w_kdouble(w, f->key, p->length_s > 0 ? (double)u / p->length_s : 0);
            break;
        case PC_PF_US:
            memcpy(&ns, at, sizeof ns);
            json_w_kdouble(w, f->key, (double)ns / 1e3);
            break;
        case PC_PF_B64:
            memcpy(&s, at, sizeof s);
            json_w_kstr(w, f->key, s);
            break;
        }
    }
}

static void w_series(json_w *w, const pc_series *s, double interval_s)
{
    json_w_key(w, "intervals");
    json_w_obj_begin(w);
    json_w_kdouble(w, "length_s", interval_s);
    json_w_kstr(w, "unit", "us");
    json_w_key(w, "series");
    json_w_arr_begin(w);
    for (size_t i = 0; s && i < s->n; i++) {
        json_w_obj_begin(w);
        w_point(w, &s->v[i]);
        json_w_obj_end(w);
    }
    json_w_arr_end(w);
    json_w_obj_end(w);
}

/* An objective's metric as written ("p99.9", "umax"), and its unit in the
 * document: latency in us like every latency here, errors a count of
 * requests, rate requests/s; with % both are a fraction (0..1). */
static const char *objective_unit(const pc_objective *o, char *metric, size_t cap)
{
    const char *u = o->lag ? "lag_" : o->uncorrected ? "u" : "";

    switch (o->metric) {
    case SLO_PCT:
        snprintf(metric, cap, "%sp%.10g", u, o->pct);
        return "us";
    case SLO_MEAN:
        snprintf(metric, cap, "%smean", u);
        return "us";
    case SLO_MAX_LAT:
        snprintf(metric, cap, "%smax", u);
        return "us";
    case SLO_ERRORS:
        snprintf(metric, cap, "errors");
        return o->percent ? "fraction" : "requests";
    case SLO_RATE:
        snprintf(metric, cap, "rate");
        return o->percent ? "fraction" : "requests/s";
    }
    return "";
}

void report_json_objectives(json_w *w, const pc_slo *s, const pc_verdict *v)
{
    static const char *const ops[] = {[SLO_LE] = "<=", [SLO_LT] = "<", [SLO_GE] = ">=",
                                      [SLO_GT] = ">"};

    json_w_arr_begin(w);
    for (size_t i = 0; i < s->n; i++) {
        const pc_objective *o = &s->v[i];
        char metric[32];
        const char *unit = objective_unit(o, metric, sizeof metric);
        double scale = strcmp(unit, "us") == 0 ? 1e3 : 1; /* pc_objective keeps ns */

        json_w_obj_begin(w);
        json_w_kstr(w, "objective", o->text);
        json_w_kstr(w, "metric", metric);
        json_w_kstr(w, "op", ops[o->op]);
        json_w_kstr(w, "unit", unit);
        json_w_kdouble(w, "limit", o->value / scale);
        json_w_key(w, "measured");
        if (v[i].none)
            json_w_null(w);
        else
            json_w_double(w, v[i].measured / scale);
        json_w_kstr(w, "shown", v[i].shown);
        json_w_kbool(w, "pass", v[i].pass);
        json_w_kstr(w, "verdict", v[i].pass ? "PASS" : "FAIL");
        json_w_obj_end(w);
    }
    json_w_arr_end(w);
}

/* The --slo verdict, as the report prints it. */
static void w_slo(json_w *w, const pc_rundesc *cfg, const pc_results *res)
{
    pc_verdict v[SLO_MAX];
    bool all = slo_eval(cfg->slo, cfg->rate, res, v);
    size_t failed = 0;

    for (size_t i = 0; i < cfg->slo->n; i++)
        failed += !v[i].pass;
    json_w_key(w, "slo");
    json_w_obj_begin(w);
    json_w_kstr(w, "expression", cfg->slo->text);
    json_w_key(w, "objectives");
    report_json_objectives(w, cfg->slo, v);
    json_w_kuint(w, "failed", failed);
    json_w_kbool(w, "pass", all);
    json_w_kstr(w, "verdict", all ? "PASS" : "FAIL");
    json_w_obj_end(w);
}

void report_json_obj(json_w *wp, const pc_rundesc *cfg, const pc_results *res, const pc_series *series)
{
    const pc_stats *st = &res->st;
    double secs = (double)res->duration_ns / 1e9;
    double start = (double)res->start_wall_ns / 1e9;
    time_t t = (time_t)start;
    struct tm tm;
    char iso[64];
    uint64_t errors = 0;

    gmtime_r(&t, &tm);
    strftime(iso, sizeof iso, "%Y-%m-%dT%H:%M:%SZ", &tm);
    for (int k = 0; k < PC_ERR_KINDS; k++)
        if (k != PC_ERR_TIMEOUT)
            errors += st->err[k];

    json_w_obj_begin(wp);
    json_w_kstr(wp, "schema", "pacer-result/1");
    json_w_kstr(wp, "pacer_version", PACER_VERSION);
    w_config(wp, cfg);
    json_w_kstr(wp, "start_time", iso);
    json_w_kdouble(wp, "start_epoch_s", start);
    json_w_kdouble(wp, "duration_s", secs);
    json_w_kstr(wp, "stopped_by", res->stopped_by);
    json_w_kdouble(wp, "start_late_us", (double)res->start_late_ns / 1e3);
    json_w_kstr(wp, "run_id", cfg->run_id);
    if (cfg->dist)
        w_dist(wp, cfg->dist);

    json_w_key(wp, "requests");
    json_w_obj_begin(wp);
    w_counters(wp, st, "requests", NULL, "completed");
    json_w_kuint(wp, "timed_out", st->err[PC_ERR_TIMEOUT]);
    json_w_kuint(wp, "errors", errors);
    w_counters(wp, st, "requests", "completed", NULL);
    json_w_kuint(wp, "warmup_discarded", res->warmup_outcomes);
    json_w_obj_end(wp);

    json_w_key(wp, "rate");
    json_w_obj_begin(wp);
    json_w_key(wp, "requested");
    if (cfg->rate > 0)
        json_w_double(wp, cfg->rate);
    else
        json_w_null(wp);
    json_w_kdouble(wp, "achieved", report_rate(res));
    json_w_obj_end(wp);

    json_w_key(wp, "bytes");
    json_w_obj_begin(wp);
    w_counters(wp, st, "bytes", NULL, NULL);
    json_w_kdouble(wp, "read_per_s", secs > 0 ? (double)st->bytes_read / secs : 0);
    json_w_obj_end(wp);

    json_w_key(wp, "errors");
    json_w_obj_begin(wp);
    w_counters(wp, st, "errors", NULL, NULL);
    for (int k = PC_ERR_READ; k < PC_ERR_KINDS; k++)
        json_w_kuint(wp, pc_err_name(k), st->err[k]);
    json_w_key(wp, "causes");
    json_w_obj_begin(wp);
    for (int k = 0; k < PC_ERR_KINDS; k++)
        if (st->why[k][0])
            json_w_kstr(wp, pc_err_name(k), st->why[k]);
    json_w_obj_end(wp);
    json_w_obj_end(wp);

    json_w_key(wp, "status_codes");
    json_w_obj_begin(wp);
    for (int i = 0; i < STATS_MAX_STATUS; i++) {
        if (st->status[i]) {
            char k[16];

            snprintf(k, sizeof k, "%d", i);
            json_w_kuint(wp, k, st->status[i]);
        }
    }
    if (st->status_other)
        json_w_kuint(wp, "other", st->status_other);
    json_w_obj_end(wp);

    json_w_kstr(wp, "protocol", report_protocol(st));
    json_w_key(wp, "http2");
    json_w_obj_begin(wp);
    w_counters(wp, st, "http2", NULL, NULL);
    json_w_obj_end(wp);
    if (report_has_quic(st))
        w_quic(wp, st);
    json_w_key(wp, "headers");
    json_w_obj_begin(wp);
    w_counters(wp, st, "headers", NULL, NULL);
    json_w_kdouble(wp, "space_savings",
                   st->header_decoded
                       ? 1.0 - (double)st->header_wire / (double)st->header_decoded
                       : 0);
    json_w_obj_end(wp);
    json_w_key(wp, "connections");
    json_w_obj_begin(wp);
    w_counters(wp, st, "connections", NULL, NULL);
    json_w_key(wp, "connect_phase_s"); /* OUT: not read back, a merged result has none */
    if (res->connect_phase_ns)
        json_w_double(wp, (double)res->connect_phase_ns / 1e9);
    else
        json_w_null(wp);
    json_w_obj_end(wp);

    json_w_key(wp, "latency");
    json_w_obj_begin(wp);
    json_w_kstr(wp, "unit", "us");
    for (size_t i = 0; i < pc_stats_nfields; i++) {
        const pc_stats_field *f = &pc_stats_fields[i];
        const char *key =
            f->kind == PC_SK_HIST_NS || f->kind == PC_SK_HIST_RATE ? table_key(f, "latency") : NULL;

        if (key)
            report_json_hist(wp, key, stats_cfield(st, f));
    }
    json_w_obj_end(wp);

    /* How the client itself did: its threads' busy fractions (0..1). */
    json_w_key(wp, "client");
    json_w_obj_begin(wp);
    for (size_t i = 0; i < pc_stats_nfields; i++) {
        const pc_stats_field *f = &pc_stats_fields[i];
        const char *key =
            f->kind == PC_SK_HIST_NS || f->kind == PC_SK_HIST_RATE ? table_key(f, "client") : NULL;

        if (key)
            report_json_hist(wp, key, stats_cfield(st, f)); /* per mille / 1e3: a fraction */
    }
    w_counters(wp, st, "client", NULL, NULL);
    json_w_kbool(wp, "limited", report_client_limited(cfg, res));
    json_w_obj_end(wp);

    /* Who limited the run: the verdict line, and whom it names. */
    {
        report_judgement j;

        report_judge(cfg, res, &j);
        json_w_key(wp, "diagnosis");
        json_w_obj_begin(wp);
        json_w_kstr(wp, "by", report_by_name(j.by));
        json_w_key(wp, "text");
        if (j.verdict[0])
            json_w_str(wp, j.verdict);
        else
            json_w_null(wp);
        json_w_key(wp, "rate_note");
        if (j.short_of_rate)
            json_w_str(wp, j.rate_note);
        else
            json_w_null(wp);
        json_w_obj_end(wp);
    }

    json_w_key(wp, "thread_rate");
    json_w_obj_begin(wp);
    json_w_kstr(wp, "unit", "requests/s per thread, one sample per 100 ms");
    {
        char *b64 = NULL;

        json_w_kdouble(wp, "mean", hdr_mean(&st->rps));
        json_w_kdouble(wp, "stdev", hdr_stddev(&st->rps));
        json_w_kint(wp, "max", st->rps.total_count ? hdr_max(&st->rps) : 0);
        if (hdrc_encode_base64(&st->rps, &b64) == 0)
            json_w_kstr(wp, "histogram", b64);
        free(b64);
    }
    json_w_obj_end(wp);

    if (st->urls && cfg->nreqs == st->nurls) {
        uint32_t top[REPORT_JSON_URLS], ntop = report_top_urls(st, top, REPORT_JSON_URLS);
        uint64_t other_req = 0, other_err = 0;

        for (uint32_t i = 0; i < st->nurls; i++)
            other_req += st->urls[i].completed, other_err += st->urls[i].errors;
        json_w_key(wp, "urls");
        json_w_arr_begin(wp);
        for (uint32_t k = 0; k < ntop; k++) {
            uint32_t i = top[k];

            other_req -= st->urls[i].completed, other_err -= st->urls[i].errors;
            json_w_obj_begin(wp);
            w_request(wp, &cfg->reqs[i]);
            json_w_kdouble(wp, "weight", cfg->reqs[i].weight);
            json_w_kuint(wp, "requests", st->urls[i].completed);
            json_w_kuint(wp, "errors", st->urls[i].errors);
            if (st->url_lat)
                report_json_hist(wp, "latency", &st->url_lat[i]);
            else {
                json_w_key(wp, "latency");
                json_w_null(wp);
            }
            json_w_obj_end(wp);
        }
        json_w_arr_end(wp);
        /* The URLs not listed, summed: urls[] plus this add up to the run. */
        json_w_key(wp, "urls_other");
        json_w_obj_begin(wp);
        json_w_kuint(wp, "urls", st->nurls - ntop);
        json_w_kuint(wp, "requests", other_req);
        json_w_kuint(wp, "errors", other_err);
        json_w_obj_end(wp);
    }
    report_json_stages(wp, cfg, res);
    if (cfg->slo)
        w_slo(wp, cfg, res);
    report_server_json(wp, res);
    w_series(wp, series, (double)cfg->interval_ns / 1e9);
    json_w_obj_end(wp);
}

int report_json(FILE *f, const pc_rundesc *cfg, const pc_results *res, const pc_series *series)
{
    json_w w;

    json_w_init(&w, f, 2);
    report_json_obj(&w, cfg, res, series);
    return json_w_finish(&w) < 0 ? -EIO : 0;
}

int report_hgrm(FILE *f, const pc_results *res)
{
    return hdr_percentiles_print(&res->st.latency, f, 5, 1e6, HDR_FMT_CLASSIC);
}
