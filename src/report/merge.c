/*
 * merge.c - see merge.h.
 *
 * Files are treated as parts of one load (several machines, several
 * processes, or one run): histograms and counters add; threads,
 * connections and requested rates add; the measured period is the
 * wall-clock span covered by the files.
 */
#include "report/merge.h"
#include "report/server_cost.h"
#include "report/stages.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/hdr_codec.h"
#include "stats/hlog.h"
#include "util/file.h"
#include "util/json.h"

static int fail(char *err, size_t errlen, int rc, const char *fmt, const char *a, const char *b)
{
    snprintf(err, errlen, fmt, a, b);
    return rc;
}

static int loaded_init(pc_loaded *l)
{
    memset(l, 0, sizeof *l);
    l->cfg.interval_ns = 1000000000ull;
    l->cfg.pipeline = 1;
    return stats_init(&l->res.st);
}

void merge_free(pc_loaded *l)
{
    free((char *)l->cfg.url_text);
    free((char *)l->cfg.alpn);
    for (size_t i = 0; i < l->cfg.nreqs; i++) {
        free(l->cfg.reqs[i].method);
        free(l->cfg.reqs[i].url_text);
        free(l->cfg.reqs[i].body_sha256);
    }
    free(l->cfg.reqs);
    for (size_t i = 0; i < l->cfg.nheaders; i++) {
        free(l->cfg.headers[i].name);
        free(l->cfg.headers[i].value);
    }
    free(l->cfg.headers);
    for (size_t i = 0; i < l->cfg.nsource_cmdlines; i++)
        free(l->cfg.source_cmdlines[i]);
    free(l->cfg.source_cmdlines);
    for (size_t i = 0; i < l->ntargets; i++)
        free(l->targets[i]);
    free(l->targets);
    stats_free(&l->res.st);
    server_free(l->res.server);
    series_free(&l->series);
    memset(l, 0, sizeof *l);
}

/* ---- JSON ---------------------------------------------------------------- */

static uint64_t ju(const json_val *root, const char *path)
{
    uint64_t v = 0;

    json_uint64(json_path(root, path), &v);
    return v;
}

static double jd(const json_val *root, const char *path)
{
    double v = json_num(json_path(root, path));

    return isnan(v) ? 0 : v;
}

static const char *sha_of(const pc_reqspec *r)
{
    return r->body_sha256 ? r->body_sha256 : "";
}

/* Append a request unless an equal one is there (method NULL: unknown, an
 * older file). 0 or -ENOMEM. */
static int add_request(pc_rundesc *c, const char *method, const char *url, uint64_t body_bytes,
                       const char *sha256)
{
    pc_reqspec *r;

    for (size_t i = 0; i < c->nreqs; i++) {
        r = &c->reqs[i];
        bool same_method = r->method ? method && !strcmp(r->method, method) : !method;

        if (same_method && strcmp(r->url_text, url) == 0 && r->body_len == body_bytes &&
            strcmp(sha_of(r), sha256 ? sha256 : "") == 0)
            return 0;
    }
    r = realloc(c->reqs, (c->nreqs + 1) * sizeof *r);
    if (!r)
        return -ENOMEM;
    c->reqs = r;
    r = &r[c->nreqs];
    memset(r, 0, sizeof *r);
    r->url_text = strdup(url);
    r->method = method ? strdup(method) : NULL;
    r->body_len = body_bytes;
    r->body_sha256 = sha256 && *sha256 ? strdup(sha256) : NULL;
    r->weight = 1;
    if (!r->url_text || (method && !r->method) || (sha256 && *sha256 && !r->body_sha256)) {
        free(r->url_text);
        free(r->method);
        free(r->body_sha256);
        return -ENOMEM;
    }
    c->nreqs++;
    return 0;
}

static int add_cmdline(pc_rundesc *c, const char *s)
{
    char **v = realloc(c->source_cmdlines, (c->nsource_cmdlines + 1) * sizeof *v);

    if (!v)
        return -ENOMEM;
    c->source_cmdlines = v;
    if (!(v[c->nsource_cmdlines] = strdup(s)))
        return -ENOMEM;
    c->nsource_cmdlines++;
    return 0;
}

static int add_target(pc_loaded *l, const char *t)
{
    char **v;

    for (size_t i = 0; i < l->ntargets; i++)
        if (strcmp(l->targets[i], t) == 0)
            return 0;
    if (!(v = realloc(l->targets, (l->ntargets + 1) * sizeof *v)))
        return -ENOMEM;
    l->targets = v;
    if (!(v[l->ntargets] = strdup(t)))
        return -ENOMEM;
    l->ntargets++;
    return 0;
}

/* "POST http://host/b (http/1.1, body 5 bytes, sha256 2cf24dba5fb0a30e)" */
static void describe_request(const pc_reqspec *r, const char *protocol, char *buf, size_t cap)
{
    char body[96] = "";

    if (r->body_len)
        snprintf(body, sizeof body, ", body %zu bytes, sha256 %.16s", r->body_len, sha_of(r));
    snprintf(buf, cap, "%s%s%s (%s%s)", r->method ? r->method : "", r->method ? " " : "",
             r->url_text, protocol, body);
}

/* What was run, as the file recorded it: the requests (config.requests;
 * older files: urls[], or config.url), the command line(s), the protocol
 * asked for, the -H headers. */
static int load_what_ran(const json_val *root, pc_loaded *l)
{
    const json_val *reqs = json_path(root, "config.requests"), *v;
    const char *s;
    uint64_t n;
    int rc = 0;

    if (!reqs || !json_len(reqs))
        reqs = json_get(root, "urls");
    for (size_t i = 0; rc == 0 && i < json_len(reqs); i++) {
        const json_val *e = json_at(reqs, i);

        n = 0;
        json_uint64(json_get(e, "body_bytes"), &n);
        if ((s = json_str(json_get(e, "url"))))
            rc = add_request(&l->cfg, json_str(json_get(e, "method")), s, n,
                             json_str(json_get(e, "body_sha256")));
    }
    if (rc == 0 && !l->cfg.nreqs)
        rc = add_request(&l->cfg, json_str(json_path(root, "config.method")), l->cfg.url_text, 0,
                         NULL);
    /* A file lists the first REPORT_JSON_URLS requests; older ones all. */
    n = 0;
    json_uint64(json_path(root, "config.requests_total"), &n);
    l->cfg.nreqs_total = n > l->cfg.nreqs ? (size_t)n : l->cfg.nreqs;
    if (rc == 0 && (s = json_str(json_path(root, "config.cmdline"))))
        rc = add_cmdline(&l->cfg, s);
    v = json_path(root, "config.source_cmdlines");
    for (size_t i = 0; rc == 0 && i < json_len(v); i++)
        if ((s = json_str(json_at(v, i))))
            rc = add_cmdline(&l->cfg, s);
    s = json_str(json_path(root, "config.protocol"));
    l->cfg.h2 = s && strcmp(s, "h2") == 0;
    l->cfg.h3 = s && strcmp(s, "h3") == 0;
    snprintf(l->protocol, sizeof l->protocol, "%s", s ? s : "http/1.1");
    if (rc == 0 && (s = json_str(json_path(root, "config.alpn")))) {
        if (!(l->cfg.alpn = strdup(s)))
            rc = -ENOMEM;
        snprintf(l->protocol + strlen(l->protocol), sizeof l->protocol - strlen(l->protocol),
                 ", alpn %s", s);
    }
    for (size_t i = 0; rc == 0 && i < l->cfg.nreqs; i++) {
        char t[1024];

        describe_request(&l->cfg.reqs[i], l->protocol, t, sizeof t);
        rc = add_target(l, t);
    }
    l->cfg.streams = (uint32_t)ju(root, "config.streams");
    if (l->cfg.streams == 0)
        l->cfg.streams = 1;
    l->cfg.warmup_ns = (uint64_t)(jd(root, "config.warmup_s") * 1e9);
    l->cfg.batch_latency = json_bool(json_path(root, "config.batch_latency"));
    v = json_path(root, "config.tls_resume"); /* absent in older files: on */
    l->cfg.no_tls_resume = json_type_of(v) == JSON_BOOL && !json_bool(v);
    v = json_path(root, "config.headers");
    if (rc == 0 && json_len(v) && !(l->cfg.headers = calloc(json_len(v), sizeof *l->cfg.headers)))
        rc = -ENOMEM;
    for (size_t i = 0; rc == 0 && i < json_len(v); i++) {
        const char *colon;
        pc_header *h = &l->cfg.headers[l->cfg.nheaders];

        if (!(s = json_str(json_at(v, i))) || !(colon = strchr(s, ':')))
            continue;
        h->name = strndup(s, (size_t)(colon - s));
        h->value = strdup(colon + 1 + strspn(colon + 1, " "));
        l->cfg.nheaders++;
        if (!h->name || !h->value)
            rc = -ENOMEM;
    }
    return rc;
}

/* A point's percentiles from its histograms, which is what they were
 * computed from when written and what a merge adds up. */
static void point_percentiles(pc_point *p)
{
    hdr_hist h;

    if (p->hist && hdrc_decode_base64(p->hist, strlen(p->hist), &h) == 0) {
        p->p50 = hdr_value_at_percentile(&h, 50);
        p->p90 = hdr_value_at_percentile(&h, 90);
        p->p99 = hdr_value_at_percentile(&h, 99);
        p->p999 = hdr_value_at_percentile(&h, 99.9);
        p->max = h.total_count ? hdr_max(&h) : 0;
        hdr_free(&h);
    }
    if (p->hist_u && hdrc_decode_base64(p->hist_u, strlen(p->hist_u), &h) == 0) {
        p->u_p50 = hdr_value_at_percentile(&h, 50);
        p->u_p99 = hdr_value_at_percentile(&h, 99);
        hdr_free(&h);
    }
}

/* An interval's latency in ns from its key: "p99_us", or "p99" as files
 * written before the keys named their unit (us either way). */
static int64_t point_us(const json_val *e, const char *key)
{
    char k[48];
    size_t n = strlen(key);
    double v = json_num(json_get(e, key));

    if (isnan(v) && n > 3 && n - 3 < sizeof k && strcmp(key + n - 3, "_us") == 0) {
        memcpy(k, key, n - 3);
        k[n - 3] = 0;
        v = json_num(json_get(e, k));
    }
    return isnan(v) || v < 0 ? 0 : (int64_t)llround(v * 1e3);
}

/* One point of intervals.series[], its fields as pc_point_fields lists
 * them (the histograms point into the document). */
static void read_point(const json_val *e, pc_point *p)
{
    for (size_t i = 0; i < pc_point_nfields; i++) {
        const pc_point_field *f = &pc_point_fields[i];
        char *at = (char *)p + f->off;
        uint64_t u;
        int64_t ns;
        double d;
        char *s;

        switch (f->kind) {
        case PC_PF_SECS:
            d = jd(e, f->key);
            memcpy(at, &d, sizeof d);
            break;
        case PC_PF_COUNT:
            u = ju(e, f->key);
            memcpy(at, &u, sizeof u);
            break;
        case PC_PF_RATE: /* made from the others */
            break;
        case PC_PF_US:
            ns = point_us(e, f->key);
            memcpy(at, &ns, sizeof ns);
            break;
        case PC_PF_B64:
            s = (char *)json_str(json_get(e, f->key));
            memcpy(at, &s, sizeof s);
            break;
        }
    }
}

/* Add the base64 histogram at path (if any) into h. */
static int add_b64(hdr_hist *h, const json_val *v, const char *what, char *err, size_t errlen)
{
    const char *b64 = json_str(v);
    hdr_hist t;

    if (!b64)
        return 0;
    if (hdrc_decode_base64(b64, strlen(b64), &t) < 0)
        return fail(err, errlen, -EINVAL, "invalid histogram in %s%s", what, "");
    hdr_add(h, &t);
    hdr_free(&t);
    return 0;
}

static int load_json(const char *path, const json_val *root, pc_loaded *l, char *err,
                     size_t errlen)
{
    pc_stats *st = &l->res.st;
    const json_val *v, *series;
    const char *s;
    int rc;

    s = json_str(json_get(root, "schema"));
    if (!s || strcmp(s, "pacer-result/1") != 0)
        return fail(err, errlen, -EINVAL, "%s: not a pacer result (no \"schema\": \"pacer-result/1\")%s",
                    path, "");
    s = json_str(json_path(root, "config.url"));
    l->cfg.url_text = strdup(s ? s : path);
    l->cfg.threads = (uint32_t)ju(root, "config.threads");
    l->cfg.connections = (uint32_t)ju(root, "config.connections");
    l->cfg.duration_ns = (uint64_t)(jd(root, "config.duration_s") * 1e9);
    l->cfg.rate = jd(root, "config.rate");
    l->cfg.timeout_ns = (uint64_t)(jd(root, "config.timeout_s") * 1e9);
    l->cfg.connect_timeout_ns = (uint64_t)(jd(root, "config.connect_timeout_s") * 1e9);
    l->cfg.slack_set = json_type_of(json_path(root, "config.slack_s")) == JSON_NUM;
    l->cfg.slack_ns = (uint64_t)(jd(root, "config.slack_s") * 1e9);
    l->cfg.spin_ns = (uint64_t)llround(jd(root, "config.spin_s") * 1e9);
    l->cfg.pipeline = (uint32_t)ju(root, "config.pipeline");
    if (l->cfg.pipeline == 0)
        l->cfg.pipeline = 1;
    if (jd(root, "config.interval_s") > 0)
        l->cfg.interval_ns = (uint64_t)(jd(root, "config.interval_s") * 1e9);
    l->have_config = l->have_outcomes = true;
    l->test_file = path;
    if (load_what_ran(root, l) < 0)
        return fail(err, errlen, -ENOMEM, "out of memory%s%s", "", "");

    l->res.start_wall_ns = (uint64_t)(jd(root, "start_epoch_s") * 1e9);
    l->res.duration_ns = (uint64_t)(jd(root, "duration_s") * 1e9);
    l->res.start_late_ns = (uint64_t)(jd(root, "start_late_us") * 1e3);
    l->res.warmup_outcomes = ju(root, "requests.warmup_discarded");
    /* The plain counters and histograms (stats.h's table), then the
     * fields the document has in forms of their own. */
    for (size_t i = 0; i < pc_stats_nfields; i++) {
        const pc_stats_field *f = &pc_stats_fields[i];
        char p[128];

        if (f->json != PC_SJ_TABLE)
            continue;
        if (f->kind == PC_SK_SUM || f->kind == PC_SK_MAX) {
            *(uint64_t *)stats_field(st, f) = ju(root, f->path);
            continue;
        }
        snprintf(p, sizeof p, "%s.histogram", f->path);
        if ((rc = add_b64(stats_field(st, f), json_path(root, p), path, err, errlen)) < 0)
            return rc;
    }
    for (int k = PC_ERR_READ; k < PC_ERR_KINDS; k++) {
        char p[64];

        snprintf(p, sizeof p, "errors.%s", pc_err_name(k));
        st->err[k] = ju(root, p);
    }
    for (int i = 0; i < STATS_QUIC_CLOSE_N; i++) {
        char k[24], p[64];

        snprintf(p, sizeof p, "quic.connection_close.%s", stats_quic_close_key(i, k, sizeof k));
        st->quic_close[i] = ju(root, p);
    }
    for (int k = 0; k < PC_ERR_KINDS; k++) {
        char p[64];

        snprintf(p, sizeof p, "errors.causes.%s", pc_err_name(k));
        stats_why(st, k, json_str(json_path(root, p)));
    }
    v = json_get(root, "status_codes");
    for (size_t i = 0; i < json_len(v); i++) {
        const char *k = json_key_at(v, i);
        uint64_t n = 0;
        char *end;
        long code = strtol(k, &end, 10);

        json_uint64(json_at(v, i), &n);
        /* "0".."999" (a server may send 000), or "other" */
        if (end != k && !*end && code >= 0 && code < STATS_MAX_STATUS)
            st->status[code] += n;
        else
            st->status_other += n;
        if (!(code >= 200 && code < 400))
            st->non2xx += n;
    }
    /* The protocol the connections spoke (the reports print it). */
    s = json_str(json_get(root, "protocol"));
    if (s && strcmp(s, "mixed") == 0 && st->connects > st->h2_conns)
        st->h1_conns = st->connects - st->h2_conns;
    if ((rc = add_b64(&st->rps, json_path(root, "thread_rate.histogram"), path, err, errlen)) < 0)
        return rc;
    {
        char why[256];

        if (report_stages_load(root, &l->cfg.shape, st, why, sizeof why) < 0)
            return fail(err, errlen, -EINVAL, "%s: %s", path, why);
    }

    if (report_server_load(root, &l->res) < 0)
        return fail(err, errlen, -ENOMEM, "out of memory%s%s", "", "");
    series = json_path(root, "intervals.series");
    l->series.interval_s = (double)l->cfg.interval_ns / 1e9;
    for (size_t i = 0; i < json_len(series); i++) {
        const json_val *e = json_at(series, i);
        pc_point p = {0};

        read_point(e, &p);
        point_percentiles(&p);
        if (series_add_point(&l->series, &p) < 0)
            return -ENOMEM;
    }
    return 0;
}

/* ---- interval logs --------------------------------------------------- */

static int set_b64(char **dst, const hdr_hist *h)
{
    free(*dst);
    *dst = NULL;
    return hdrc_encode_base64(h, dst);
}

static int load_hlog(const char *path, pc_loaded *l, char *err, size_t errlen)
{
    hlog_reader *r = NULL;
    hlog_entry e;
    double first = -1, end = 0;
    int rc;

    rc = hlog_reader_open_path(&r, path);
    if (rc < 0)
        return fail(err, errlen, rc, "cannot read '%s': %s", path, strerror(-rc));
    l->cfg.url_text = strdup(path);
    while ((rc = hlog_reader_next(r, &e)) == 1) {
        bool corrected = e.tag[0] == 0 || strcmp(e.tag, "corrected") == 0;
        bool uncorrected = strcmp(e.tag, "uncorrected") == 0;
        pc_point *last = l->series.n ? &l->series.v[l->series.n - 1] : NULL;

        if (!corrected && !uncorrected) {
            hdr_free(&e.h);
            continue; /* another tool's tag */
        }
        if (first < 0 || e.start_s < first)
            first = e.start_s;
        if (e.start_s + e.length_s > end)
            end = e.start_s + e.length_s;
        if (corrected) {
            hdr_add(&l->res.st.latency, &e.h);
            l->res.st.completed += (uint64_t)e.h.total_count;
        } else {
            hdr_add(&l->res.st.latency_u, &e.h);
        }
        /* The corrected and uncorrected lines of one interval share a start. */
        if (!last || fabs(last->start_s - e.start_s) > 1e-6 ||
            (corrected ? last->hist != NULL : last->hist_u != NULL)) {
            pc_point p = {.start_s = e.start_s, .length_s = e.length_s};

            if (series_add_point(&l->series, &p) < 0) {
                rc = -ENOMEM;
                hdr_free(&e.h);
                break;
            }
            last = &l->series.v[l->series.n - 1];
        }
        if (corrected) {
            last->completed = (uint64_t)e.h.total_count;
            rc = set_b64(&last->hist, &e.h);
        } else {
            rc = set_b64(&last->hist_u, &e.h);
        }
        hdr_free(&e.h);
        if (rc < 0)
            break;
        if (e.length_s > 0 && (l->series.interval_s == 0 || e.length_s < l->series.interval_s))
            l->series.interval_s = e.length_s;
    }
    if (rc < 0) {
        snprintf(err, errlen, "%s:%lu: %s", path, hlog_reader_line(r),
                 rc == -EINVAL ? "not a valid interval log line" : strerror(-rc));
        hlog_reader_close(r);
        return rc;
    }
    hlog_reader_close(r);
    if (first < 0)
        return fail(err, errlen, -EINVAL, "%s: no histogram in this file%s", path, "");
    for (size_t i = 0; i < l->series.n; i++)
        point_percentiles(&l->series.v[i]);
    l->res.start_wall_ns = (uint64_t)(first * 1e9);
    l->res.duration_ns = (uint64_t)((end - first) * 1e9);
    l->res.st.scheduled = l->res.st.completed;
    l->res.st.non2xx = 0;
    if (l->series.interval_s > 0)
        l->cfg.interval_ns = (uint64_t)llround(l->series.interval_s * 1e9);
    return 0;
}

int merge_load(const char *path, pc_loaded *l, char *err, size_t errlen)
{
    FILE *f;
    int c, rc;

    if (loaded_init(l) < 0)
        return fail(err, errlen, -ENOMEM, "out of memory%s%s", "", "");
    f = pc_fopen_read(path, "r");
    if (!f)
        return fail(err, errlen, -errno, "cannot read '%s': %s", path, strerror(errno));
    do
        c = fgetc(f);
    while (c == ' ' || c == '\n' || c == '\r' || c == '\t');
    fclose(f);
    if (c == '{') {
        json_val *root = NULL;
        char jerr[256];

        rc = json_parse_file(path, &root, jerr, sizeof jerr);
        if (rc < 0)
            return fail(err, errlen, rc, "%s%s", jerr, ""); /* jerr names the file */
        rc = load_json(path, root, l, err, errlen);
        json_free(root);
        return rc;
    }
    return load_hlog(path, l, err, errlen);
}

int merge_load_text(const char *name, const char *text, size_t len, pc_loaded *l, char *err,
                    size_t errlen)
{
    json_val *root = NULL;
    char jerr[256];
    int rc;

    if (loaded_init(l) < 0)
        return fail(err, errlen, -ENOMEM, "out of memory%s%s", "", "");
    rc = json_parse(text, len, &root, jerr, sizeof jerr);
    if (rc < 0)
        return fail(err, errlen, rc, "%s: %s", name, jerr);
    rc = load_json(name, root, l, err, errlen);
    json_free(root);
    return rc;
}

/* ---- merging --------------------------------------------------------- */

/* Points of both series in one wall-clock grid; same-slot points add. */
static int merge_points(pc_point *a, const pc_point *b)
{
    hdr_hist ha, hb;
    int rc = 0;

    a->completed += b->completed;
    a->errors += b->errors;
    a->timeouts += b->timeouts;
    a->non2xx += b->non2xx;
    a->bytes += b->bytes;
    if (b->length_s > a->length_s)
        a->length_s = b->length_s;
    for (int u = 0; u < 2 && rc == 0; u++) {
        char **da = u ? &a->hist_u : &a->hist;
        const char *sb = u ? b->hist_u : b->hist;

        if (!sb)
            continue;
        if (!*da) {
            *da = strdup(sb);
            continue;
        }
        if (hdrc_decode_base64(*da, strlen(*da), &ha) < 0)
            return -EINVAL;
        if (hdrc_decode_base64(sb, strlen(sb), &hb) < 0) {
            hdr_free(&ha);
            return -EINVAL;
        }
        hdr_add(&ha, &hb);
        rc = set_b64(da, &ha);
        hdr_free(&ha);
        hdr_free(&hb);
    }
    point_percentiles(a);
    return rc;
}

static int cmp_point(const void *x, const void *y)
{
    const pc_point *a = x, *b = y;

    return (a->start_s > b->start_s) - (a->start_s < b->start_s);
}

int merge_same_test(const pc_loaded *a, const pc_loaded *b, char *err, size_t errlen)
{
    const char *field = NULL;
    char va[512] = "", vb[512] = "";

    if (!a->test_file || !b->test_file)
        return 0;
    if (a->cfg.nreqs != b->cfg.nreqs || a->cfg.nreqs_total != b->cfg.nreqs_total) {
        field = "URLs";
        snprintf(va, sizeof va, "%zu", a->cfg.nreqs_total);
        snprintf(vb, sizeof vb, "%zu", b->cfg.nreqs_total);
    }
    for (size_t i = 0; !field && i < a->cfg.nreqs; i++) {
        const pc_reqspec *x = &a->cfg.reqs[i], *y = &b->cfg.reqs[i];

        if (strcmp(x->url_text, y->url_text) != 0) {
            field = "URL";
            snprintf(va, sizeof va, "%s", x->url_text);
            snprintf(vb, sizeof vb, "%s", y->url_text);
        } else if (x->method && y->method && strcmp(x->method, y->method) != 0) {
            field = "method";
            snprintf(va, sizeof va, "%s", x->method);
            snprintf(vb, sizeof vb, "%s", y->method);
        } else if (x->body_len != y->body_len || strcmp(sha_of(x), sha_of(y)) != 0) {
            field = "body";
            snprintf(va, sizeof va, "%zu bytes, sha256 %.16s", x->body_len, sha_of(x));
            snprintf(vb, sizeof vb, "%zu bytes, sha256 %.16s", y->body_len, sha_of(y));
        }
    }
    if (!field && strcmp(a->protocol, b->protocol) != 0) {
        field = "protocol";
        snprintf(va, sizeof va, "%s", a->protocol);
        snprintf(vb, sizeof vb, "%s", b->protocol);
    }
    if (!field)
        return 0;
    snprintf(err, errlen,
             "%s and %s differ in their %s (%.200s vs %.200s): not the same test "
             "(--force merges them anyway)",
             a->test_file, b->test_file, field, va, vb);
    return -EINVAL;
}

int merge_add(pc_loaded *dst, const pc_loaded *src, char *err, size_t errlen)
{
    uint64_t dend = dst->res.start_wall_ns + dst->res.duration_ns;
    uint64_t send = src->res.start_wall_ns + src->res.duration_ns;
    double step;

    if (dst->have_config && src->have_config && dst->test_file && src->test_file &&
        !report_stages_same(&dst->cfg.shape, &src->cfg.shape))
        return fail(err, errlen, -EINVAL, "%s: its load shape (--stages) differs from %s's",
                    src->test_file, dst->test_file);
    /* The last response's time counts from each file's own start: on the
     * wall clock, the later of the two, from the merged start (runs one
     * after the other, not only shards of one instant). */
    uint64_t dlast = dst->res.st.last_response_us
                         ? dst->res.start_wall_ns + dst->res.st.last_response_us * 1000
                         : 0;
    uint64_t slast = src->res.st.last_response_us
                         ? src->res.start_wall_ns + src->res.st.last_response_us * 1000
                         : 0;

    stats_merge(&dst->res.st, &src->res.st);
    dst->res.warmup_outcomes += src->res.warmup_outcomes;
    /* The server was sampled once (rank 0 under mpirun): the first file's. */
    if (!dst->res.server && src->res.server &&
        !(dst->res.server = report_server_dup(src->res.server)))
        return fail(err, errlen, -ENOMEM, "out of memory%s%s", "", "");
    if (src->res.start_wall_ns < dst->res.start_wall_ns)
        dst->res.start_wall_ns = src->res.start_wall_ns;
    dst->res.duration_ns = (send > dend ? send : dend) - dst->res.start_wall_ns;
    if (slast > dlast)
        dlast = slast;
    dst->res.st.last_response_us = dlast > dst->res.start_wall_ns
                                       ? (dlast - dst->res.start_wall_ns) / 1000
                                       : dst->res.st.last_response_us;
    dst->cfg.threads += src->cfg.threads;
    dst->cfg.connections += src->cfg.connections;
    dst->cfg.rate += src->cfg.rate;
    if (src->cfg.duration_ns > dst->cfg.duration_ns)
        dst->cfg.duration_ns = src->cfg.duration_ns;
    if (src->cfg.warmup_ns > dst->cfg.warmup_ns)
        dst->cfg.warmup_ns = src->cfg.warmup_ns;
    if (src->cfg.nreqs_total > dst->cfg.nreqs_total)
        dst->cfg.nreqs_total = src->cfg.nreqs_total;
    for (size_t i = 0; i < src->cfg.nreqs; i++) {
        const pc_reqspec *r = &src->cfg.reqs[i];

        if (add_request(&dst->cfg, r->method, r->url_text, r->body_len, r->body_sha256) < 0)
            return fail(err, errlen, -ENOMEM, "out of memory%s%s", "", "");
    }
    for (size_t i = 0; i < src->cfg.nsource_cmdlines; i++)
        if (add_cmdline(&dst->cfg, src->cfg.source_cmdlines[i]) < 0)
            return fail(err, errlen, -ENOMEM, "out of memory%s%s", "", "");
    for (size_t i = 0; i < src->ntargets; i++)
        if (add_target(dst, src->targets[i]) < 0)
            return fail(err, errlen, -ENOMEM, "out of memory%s%s", "", "");
    if (!dst->test_file && src->test_file) {
        /* dst was an interval log: the test is the first JSON file's. */
        dst->test_file = src->test_file;
        memcpy(dst->protocol, src->protocol, sizeof dst->protocol);
        dst->cfg.h2 = src->cfg.h2;
        dst->cfg.h3 = src->cfg.h3;
        dst->cfg.streams = src->cfg.streams;
        dst->cfg.timeout_ns = src->cfg.timeout_ns;
        dst->cfg.connect_timeout_ns = src->cfg.connect_timeout_ns;
        dst->cfg.pipeline = src->cfg.pipeline;
        dst->cfg.slack_set = src->cfg.slack_set;
        dst->cfg.slack_ns = src->cfg.slack_ns;
        dst->cfg.spin_ns = src->cfg.spin_ns;
        dst->cfg.batch_latency = src->cfg.batch_latency;
        dst->cfg.no_tls_resume = src->cfg.no_tls_resume;
    }
    dst->have_config = dst->have_config && src->have_config;
    dst->have_outcomes = dst->have_outcomes && src->have_outcomes;

    /* Align on the wall clock: a point joins dst's point within half an
     * interval of it, or is added as a new point. */
    step = dst->series.interval_s > 0 ? dst->series.interval_s : src->series.interval_s;
    for (size_t i = 0; i < src->series.n; i++) {
        const pc_point *p = &src->series.v[i];
        pc_point *match = NULL;

        for (size_t j = 0; j < dst->series.n; j++) {
            if (fabs(dst->series.v[j].start_s - p->start_s) < step / 2) {
                match = &dst->series.v[j];
                break;
            }
        }
        if (match ? merge_points(match, p) < 0 : series_add_point(&dst->series, p) < 0)
            return fail(err, errlen, -EINVAL, "cannot merge the time series%s%s", "", "");
    }
    if (dst->series.n > 1) /* an empty series has no array (qsort wants one) */
        qsort(dst->series.v, dst->series.n, sizeof *dst->series.v, cmp_point);
    return 0;
}

int merge_window(pc_loaded *l, double from_s, double to_s, char *err, size_t errlen)
{
    double t0 = (double)l->res.start_wall_ns / 1e9, first = -1, end = 0;
    pc_stats *st = &l->res.st;
    pc_series kept = {.interval_s = l->series.interval_s};
    size_t kfirst = 0;

    stats_reset(st);
    l->cfg.shape.n = 0; /* the stage rows are the whole run's: a window has none */
    for (size_t i = 0; i < l->series.n; i++) {
        pc_point *p = &l->series.v[i];
        double rel = p->start_s - t0;
        hdr_hist h;

        if (rel < from_s - 1e-9 || rel >= to_s - 1e-9)
            continue;
        if (series_add_point(&kept, p) < 0)
            return -ENOMEM;
        if (first < 0)
            first = p->start_s, kfirst = i;
        if (p->start_s + p->length_s > end)
            end = p->start_s + p->length_s;
        st->completed += p->completed;
        st->err[PC_ERR_TIMEOUT] += p->timeouts;
        st->err[PC_ERR_READ] += p->errors - p->timeouts;
        st->non2xx += p->non2xx;
        st->bytes_read += p->bytes;
        if (p->hist && hdrc_decode_base64(p->hist, strlen(p->hist), &h) == 0) {
            hdr_add(&st->latency, &h);
            hdr_free(&h);
        }
        if (p->hist_u && hdrc_decode_base64(p->hist_u, strlen(p->hist_u), &h) == 0) {
            hdr_add(&st->latency_u, &h);
            hdr_free(&h);
        }
    }
    series_free(&l->series);
    l->series = kept;
    if (first < 0) {
        snprintf(err, errlen, "no interval starts between %.3fs and %.3fs", from_s, to_s);
        return -EINVAL;
    }
    if (st->err[PC_ERR_READ])
        stats_why(st, PC_ERR_READ, "errors of several kinds (a time window keeps only totals)");
    st->scheduled = st->completed + st->err[PC_ERR_TIMEOUT] + st->err[PC_ERR_READ];
    l->res.start_wall_ns = (uint64_t)(first * 1e9);
    l->res.duration_ns = (uint64_t)((end - first) * 1e9);
    if (l->res.server)
        report_server_window(l->res.server, kfirst, kept.n, end - first);
    l->have_outcomes = false;
    return 0;
}
