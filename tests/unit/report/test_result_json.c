/*
 * test_result_json.c - the JSON result (json_out.c) read back by `pacer
 * report` (merge.c): every pc_stats field the document carries comes back
 * as it was, as stats.h's table of fields says.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/merge.h"
#include "report/json_out.h"
#include "stats/stats.h"
#include "unit.h"
#include "util/json.h"

/* A value no other element of any field has. */
static uint64_t val(size_t i, size_t j)
{
    return 1000000 + i * 1000 + j + 1;
}

/* The fields the document has in forms of their own (PC_SJ_HAND), checked
 * one by one below, and the ones it only writes (PC_SJ_OUT). */
static const char *const by_hand[] = {"rps",    "err",      "why",    "status", "status_other",
                                      "non2xx", "h1_conns", "stages", "nstages", "steps",
                                      "nsteps", "quic_close"};
static const char *const written[] = {"urls", "nurls", "url_latency", "url_lat"};

static bool listed(const char *const *v, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i], name) == 0)
            return true;
    return false;
}

/* Every field a value of its own, where the document can carry it: the
 * values that are read back from others are made to agree with them. */
static int fill(pc_stats *s)
{
    for (size_t i = 0; i < pc_stats_nfields; i++) {
        const pc_stats_field *f = &pc_stats_fields[i];
        char *p = stats_field(s, f);

        switch (f->kind) {
        case PC_SK_HIST_NS:
        case PC_SK_HIST_RATE:
            if (!hdr_record_n((hdr_hist *)p, (int64_t)val(i, 0), (int64_t)i + 1) ||
                !hdr_record_n((hdr_hist *)p, (int64_t)val(i, 0) * 7, 2))
                return -1;
            break;
        case PC_SK_SUM:
        case PC_SK_MAX:
            for (size_t j = 0; j < f->size / 8; j++)
                ((uint64_t *)p)[j] = val(i, j);
            break;
        case PC_SK_FIRST:
        case PC_SK_FIRST_EACH:
            for (size_t j = 0; j < f->size / f->elem; j++)
                snprintf(p + j * f->elem, f->elem, "%s %zu \"quoted\"", f->name, j);
            break;
        case PC_SK_FIRST_LEN:
            *(int64_t *)p = (int64_t)val(i, 0);
            break;
        case PC_SK_KEEP:
        case PC_SK_HAND:
            break;
        }
    }
    s->err[PC_ERR_CONNECT] = 0; /* unused: connect_errors counts them */
    s->non2xx = s->status_other;
    for (int c = 0; c < STATS_MAX_STATUS; c++)
        if (!(c >= 200 && c < 400))
            s->non2xx += s->status[c];
    s->h1_conns = s->connects - s->h2_conns; /* "protocol": "mixed" */
    if (stats_init_urls(s, 2) < 0)
        return -1;
    for (uint32_t u = 0; u < 2; u++) {
        s->urls[u].completed = 10 + u;
        s->urls[u].errors = 20 + u;
        hdr_record_n(&s->url_lat[u], 5000 * (u + 1), 3 + u);
    }
    /* Stage 1 ramps (0..100): its PC_RAMP_STEPS rows too. */
    if (stats_init_stages(s, 2, PC_RAMP_STEPS) < 0)
        return -1;
    for (uint32_t g = 0; g < 2 + PC_RAMP_STEPS; g++) {
        pc_stage_stats *x = g < 2 ? &s->stages[g] : &s->steps[g - 2];

        x->completed = 30 + g, x->non2xx = 40 + g, x->errors = 50 + g;
        x->never_sent = 60 + g, x->interrupted = 70 + g;
        hdr_record_n(&x->latency, 7000 * (g + 1), 5 + g);
        hdr_record_n(&x->latency_u, 3000 * (g + 1), 4 + g);
        hdr_record_n(&x->send_lag, 100 * (g + 1), 3 + g);
    }
    return 0;
}

static bool same_hist(const hdr_hist *a, const hdr_hist *b)
{
    return a->total_count == b->total_count && hdr_min(a) == hdr_min(b) &&
           hdr_max(a) == hdr_max(b) &&
           hdr_value_at_percentile(a, 50) == hdr_value_at_percentile(b, 50);
}

static void test_every_carried_field_round_trips(void)
{
    pc_reqspec reqs[2] = {{.method = "GET", .url_text = "http://h/a", .weight = 1},
                          {.method = "POST", .url_text = "http://h/b", .weight = 1}};
    pc_rundesc cfg = {.url_text = "http://h/a", .reqs = reqs, .nreqs = 2, .threads = 2,
                     .connections = 4, .duration_ns = 2000000000ull, .interval_ns = 1000000000ull,
                     .pipeline = 1, .streams = 1};
    pc_results res = {.duration_ns = 2000000000ull, .start_wall_ns = 1700000000000000000ull,
                      .stopped_by = "duration"};
    const char *tmp = getenv("TMPDIR");
    char path[512], err[512] = "";
    pc_loaded l;
    json_val *doc = NULL;
    const json_val *urls;
    FILE *f;
    int fd, rc;

    cfg.shape.n = 2;
    cfg.shape.stages[0] = (pc_stage){.dur_ns = 1000000000ull, .rate = 100};
    cfg.shape.stages[1] = (pc_stage){.dur_ns = 1000000000ull, .rate = 300, .step = true};
    cfg.shape.arrival = PC_ARRIVAL_POISSON;
    cfg.shape.seed = 12345;
    CHECK(stats_init(&res.st) == 0);
    CHECK(fill(&res.st) == 0);
    snprintf(path, sizeof path, "%s/pacer-result-test.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    CHECK((fd = mkstemp(path)) >= 0);
    CHECK((f = fdopen(fd, "w")) != NULL);
    CHECK(report_json(f, &cfg, &res, NULL) == 0);
    CHECK(fclose(f) == 0);
    rc = merge_load(path, &l, err, sizeof err);
    CHECK(json_parse_file(path, &doc, err, sizeof err) == 0);
    unlink(path);
    if (rc < 0) {
        snprintf(unit_msg, sizeof unit_msg, "merge_load: %.400s", err);
        unit_failed_now = 1;
        return;
    }

    for (size_t i = 0; i < pc_stats_nfields; i++) {
        const pc_stats_field *fl = &pc_stats_fields[i];
        const void *want = stats_cfield(&res.st, fl), *got = stats_cfield(&l.res.st, fl);
        bool ok = true;

        switch (fl->json) {
        case PC_SJ_TABLE:
            if (fl->kind == PC_SK_SUM || fl->kind == PC_SK_MAX)
                ok = *(const uint64_t *)got == *(const uint64_t *)want;
            else
                ok = same_hist(got, want);
            break;
        case PC_SJ_HAND:
            if (!listed(by_hand, sizeof by_hand / sizeof by_hand[0], fl->name)) {
                snprintf(unit_msg, sizeof unit_msg,
                         "%s is in the JSON in a form of its own: check it here", fl->name);
                unit_failed_now = 1;
                return;
            }
            if (fl->kind == PC_SK_KEEP) /* stages: below */
                break;
            ok = fl->kind == PC_SK_SUM || fl->kind == PC_SK_FIRST_EACH
                     ? memcmp(got, want, fl->size) == 0
                     : same_hist(got, want);
            break;
        case PC_SJ_OUT:
            ok = listed(written, sizeof written / sizeof written[0], fl->name);
            break;
        case PC_SJ_NONE:
            break;
        }
        if (!ok) {
            snprintf(unit_msg, sizeof unit_msg, "%s (%s) did not survive the JSON", fl->name,
                     fl->path);
            unit_failed_now = 1;
            return;
        }
    }
    /* What is written and not read back: the per-URL results, the
     * busiest first (URL 2 completed 11, URL 1 10), none folded. */
    urls = json_get(doc, "urls");
    CHECK_EQ_I64(json_len(urls), 2);
    {
        uint64_t n = 1;

        CHECK(json_uint64(json_path(doc, "urls_other.urls"), &n) && n == 0);
        CHECK(json_uint64(json_path(doc, "urls_other.requests"), &n) && n == 0);
    }
    for (size_t k = 0; k < 2; k++) {
        uint64_t n = 0;
        size_t u = 1 - k;

        CHECK(json_uint64(json_get(json_at(urls, k), "requests"), &n) && n == 10 + u);
        CHECK(json_uint64(json_get(json_at(urls, k), "errors"), &n) && n == 20 + u);
        CHECK(json_uint64(json_path(json_at(urls, k), "latency.count"), &n) && n == 3 + u);
    }
    /* The stages come back whole: the shape, each stage's counts and its
     * histogram, so that `pacer report` merges them. */
    CHECK_EQ_I64(l.res.st.nstages, 2);
    CHECK(l.res.st.stages != NULL);
    CHECK_EQ_I64(l.cfg.shape.n, 2);
    CHECK_EQ_U64(l.cfg.shape.seed, 12345);
    CHECK_EQ_I64(l.cfg.shape.arrival, PC_ARRIVAL_POISSON);
    CHECK(l.cfg.shape.stages[1].step && !l.cfg.shape.stages[0].step);
    CHECK_EQ_U64(l.cfg.shape.stages[1].dur_ns, 1000000000ull);
    /* ... and the ramp's rows (stages[0].steps[]), each with its own
     * uncorrected latency and send lag, as the stages have. */
    CHECK_EQ_I64(l.res.st.nsteps, PC_RAMP_STEPS);
    CHECK_EQ_I64(json_len(json_get(json_at(json_get(doc, "stages"), 0), "steps")), PC_RAMP_STEPS);
    CHECK(json_get(json_at(json_get(doc, "stages"), 1), "steps") == NULL);
    for (uint32_t g = 0; g < 2 + PC_RAMP_STEPS; g++) {
        const pc_stage_stats *a = g < 2 ? &res.st.stages[g] : &res.st.steps[g - 2];
        const pc_stage_stats *b = g < 2 ? &l.res.st.stages[g] : &l.res.st.steps[g - 2];

        CHECK_EQ_U64(b->completed, a->completed);
        CHECK_EQ_U64(b->non2xx, a->non2xx);
        CHECK_EQ_U64(b->errors, a->errors);
        CHECK_EQ_U64(b->never_sent, a->never_sent);
        CHECK_EQ_U64(b->interrupted, a->interrupted);
        CHECK(same_hist(&b->latency, &a->latency));
        CHECK(same_hist(&b->latency_u, &a->latency_u));
        CHECK(same_hist(&b->send_lag, &a->send_lag));
    }
    /* The keys written by hand from the same fields say the same. */
    {
        uint64_t n = 0, errors = 0;

        for (int k = 0; k < PC_ERR_KINDS; k++)
            errors += k == PC_ERR_TIMEOUT ? 0 : res.st.err[k];
        CHECK(json_uint64(json_path(doc, "requests.timed_out"), &n));
        CHECK_EQ_U64(n, res.st.err[PC_ERR_TIMEOUT]);
        CHECK(json_uint64(json_path(doc, "requests.errors"), &n));
        CHECK_EQ_U64(n, errors);
        CHECK_EQ_STR(json_str(json_get(doc, "protocol")), "mixed");
    }
    json_free(doc);
    merge_free(&l);
    stats_free(&res.st);
}

int main(void)
{
    RUN(test_every_carried_field_round_trips);
    return unit_done();
}
