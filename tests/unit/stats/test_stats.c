/*
 * test_stats.c - pc_stats: reset (the end of --warmup) and merge, and the
 * table of its fields (PC_STATS_FIELDS) that drives both.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"
#include "unit.h"

static void test_reset_empties_histograms(void)
{
    pc_stats s;
    char *buf = NULL;
    size_t len = 0;
    FILE *f;

    CHECK(stats_init(&s) == 0);
    for (int i = 1; i <= 1000; i++) {
        hdr_record(&s.latency, i * 1000);
        hdr_record(&s.rps, i);
    }
    s.completed = 1000;
    s.status[200] = 1000;
    stats_reset(&s);
    CHECK_EQ_I64(s.latency.total_count, 0);
    CHECK_EQ_I64(s.rps.total_count, 0);
    CHECK_EQ_I64(s.completed, 0);
    CHECK_EQ_I64(s.status[200], 0);
    CHECK_EQ_I64(hdr_max(&s.latency), 0);
    /* A stale total over zeroed counts made the percentile iterator spin. */
    f = open_memstream(&buf, &len);
    CHECK(hdr_percentiles_print(&s.latency, f, 5, 1e6, HDR_FMT_CLASSIC) == 0);
    fclose(f);
    free(buf);
    hdr_record(&s.latency, 5000);
    CHECK_EQ_I64(s.latency.total_count, 1);
    CHECK_EQ_I64(hdr_value_at_percentile(&s.latency, 50), hdr_highest_equivalent(&s.latency, 5000));
    stats_free(&s);
}

static void test_merge_adds(void)
{
    pc_stats a, b;

    CHECK(stats_init(&a) == 0);
    CHECK(stats_init(&b) == 0);
    hdr_record(&a.latency, 100);
    hdr_record(&b.latency, 200);
    hdr_record(&b.latency, 300);
    a.completed = 1;
    b.completed = 2;
    b.err[PC_ERR_TIMEOUT] = 4;
    b.scheduled = 6;
    a.scheduled = 1;
    stats_why(&b, PC_ERR_TIMEOUT, "slow");
    stats_merge(&a, &b);
    CHECK_EQ_I64(a.latency.total_count, 3);
    CHECK_EQ_I64(a.completed, 3);
    CHECK_EQ_I64(stats_outcomes(&a), 7);
    CHECK_EQ_I64(a.scheduled, 7);
    CHECK_EQ_STR(a.why[PC_ERR_TIMEOUT], "slow");
    stats_free(&a);
    stats_free(&b);
}

/* Every byte of pc_stats that is not padding belongs to exactly one row of
 * the table: a field added to pc_stats and not to the table fails here. */
static void test_table_covers_every_field(void)
{
    static unsigned char seen[sizeof(pc_stats)];
    pc_stats s;
    unsigned char *b = (unsigned char *)&s;

    memset(seen, 0, sizeof seen);
    memset(&s, 0xff, sizeof s);
#if defined(__has_builtin)
#if __has_builtin(__builtin_clear_padding)
#define HAVE_CLEAR_PADDING 1
    __builtin_clear_padding(&s);
#endif
#endif
    for (size_t i = 0; i < pc_stats_nfields; i++) {
        const pc_stats_field *f = &pc_stats_fields[i];

        CHECK(f->off + f->size <= sizeof s);
        CHECK(f->elem && f->size % f->elem == 0);
        for (size_t j = f->off; j < f->off + f->size; j++) {
            if (seen[j]) {
                snprintf(unit_msg, sizeof unit_msg, "%s overlaps another row", f->name);
                unit_failed_now = 1;
                return;
            }
            seen[j] = 1;
            b[j] = 0;
        }
    }
    for (size_t j = 0; j < sizeof s; j++) {
#ifdef HAVE_CLEAR_PADDING
        bool missing = b[j] != 0;
#else
        /* Padding cannot be told apart: an uncovered aligned 8 bytes is a field. */
        bool missing = j % 8 == 0 && j + 8 <= sizeof s && !memchr(seen + j, 1, 8);
#endif
        if (missing) {
            const char *after = "the start";
            size_t end = 0;

            for (size_t i = 0; i < pc_stats_nfields; i++) {
                const pc_stats_field *f = &pc_stats_fields[i];

                if (f->off + f->size <= j && f->off + f->size >= end) {
                    end = f->off + f->size;
                    after = f->name;
                }
            }
            snprintf(unit_msg, sizeof unit_msg,
                     "byte %zu of pc_stats is in no row of PC_STATS_FIELDS (a field after %s?)",
                     j, after);
            unit_failed_now = 1;
            return;
        }
    }
}

/* A value no other element of any field has: field i, element j, stats s. */
static uint64_t val(size_t i, size_t j, int seed)
{
    return (uint64_t)seed * 1000000 + i * 1000 + j + 1;
}

/* The fields merged by hand, and what this file fills them with. */
static const char *const by_hand[] = {"urls",    "nurls",  "url_latency", "url_lat", "recs",  "nrecs",
                                      "caprecs", "stages", "nstages",     "steps", "nsteps"};

/* Every field of s a value of its own (s stats_init'ed). */
static int fill(pc_stats *s, int seed)
{
    for (size_t i = 0; i < pc_stats_nfields; i++) {
        const pc_stats_field *f = &pc_stats_fields[i];
        char *p = stats_field(s, f);

        switch (f->kind) {
        case PC_SK_HIST_NS:
        case PC_SK_HIST_RATE:
            if (!hdr_record_n((hdr_hist *)p, (int64_t)val(i, 0, seed), (int64_t)(i + seed)))
                return -1;
            break;
        case PC_SK_SUM:
        case PC_SK_MAX:
            for (size_t j = 0; j < f->size / 8; j++)
                ((uint64_t *)p)[j] = val(i, j, seed);
            break;
        case PC_SK_FIRST:
        case PC_SK_FIRST_EACH:
            for (size_t j = 0; j < f->size / f->elem; j++)
                snprintf(p + j * f->elem, f->elem, "s%d %s %zu", seed, f->name, j);
            break;
        case PC_SK_FIRST_LEN:
            *(int64_t *)p = (int64_t)val(i, 0, seed);
            break;
        case PC_SK_KEEP:
        case PC_SK_HAND:
            break;
        }
    }
    /* by_hand: two URLs, two of three request records */
    if (stats_init_urls(s, 2) < 0 || stats_init_recs(s, 3) < 0)
        return -1;
    for (uint32_t u = 0; u < 2; u++) {
        s->urls[u].completed = (uint64_t)seed * 10 + u;
        s->urls[u].errors = (uint64_t)seed * 100 + u;
        hdr_record_n(&s->url_lat[u], 1000 * (seed + 1), seed + u);
    }
    s->nrecs = 2;
    for (size_t r = 0; r < 2; r++)
        s->recs[r].start = (uint64_t)seed * 10 + r;
    /* three stages of a load shape, and two ramp rows */
    if (stats_init_stages(s, 3, 2) < 0)
        return -1;
    for (uint32_t g = 0; g < 5; g++) {
        pc_stage_stats *x = g < 3 ? &s->stages[g] : &s->steps[g - 3];

        hdr_record_n(&x->latency_u, 1000 * (seed + 1), seed + g + 1);
        hdr_record_n(&x->send_lag, 100 * (seed + 1), seed + g + 2);
        x->completed = (uint64_t)seed * 10 + g;
        x->non2xx = (uint64_t)seed * 20 + g;
        x->errors = (uint64_t)seed * 30 + g;
        x->never_sent = (uint64_t)seed * 40 + g;
        x->interrupted = (uint64_t)seed * 50 + g;
        hdr_record_n(&x->latency, 2000 * (seed + 1), seed + g);
    }
    return 0;
}

static bool is_by_hand(const char *name)
{
    for (size_t i = 0; i < sizeof by_hand / sizeof by_hand[0]; i++)
        if (strcmp(by_hand[i], name) == 0)
            return true;
    return false;
}

/* d is the merge of stats filled with seed a (0: fresh) and then seed b. */
static void check_merged(const pc_stats *d, int a, int b)
{
    for (size_t i = 0; i < pc_stats_nfields; i++) {
        const pc_stats_field *f = &pc_stats_fields[i];
        const char *p = stats_cfield(d, f);
        int first = a ? a : b;
        char want[256];

        switch (f->kind) {
        case PC_SK_HIST_NS:
        case PC_SK_HIST_RATE: {
            const hdr_hist *h = (const hdr_hist *)p;

            if (h->total_count != (int64_t)((a ? i + a : 0) + i + b) ||
                hdr_max(h) != hdr_highest_equivalent(h, (int64_t)val(i, 0, b > a ? b : a))) {
                snprintf(unit_msg, sizeof unit_msg, "%s: %lld values, max %lld", f->name,
                         (long long)h->total_count, (long long)hdr_max(h));
                unit_failed_now = 1;
                return;
            }
            break;
        }
        case PC_SK_SUM:
            for (size_t j = 0; j < f->size / 8; j++) {
                uint64_t v = ((const uint64_t *)p)[j], w = (a ? val(i, j, a) : 0) + val(i, j, b);

                if (v != w) {
                    snprintf(unit_msg, sizeof unit_msg, "%s[%zu] == %llu, want %llu", f->name,
                             j, (unsigned long long)v, (unsigned long long)w);
                    unit_failed_now = 1;
                    return;
                }
            }
            break;
        case PC_SK_FIRST:
        case PC_SK_FIRST_EACH:
            for (size_t j = 0; j < f->size / f->elem; j++) {
                snprintf(want, sizeof want, "s%d %s %zu", first, f->name, j);
                want[f->elem - 1 < sizeof want ? f->elem - 1 : sizeof want - 1] = 0;
                CHECK_EQ_STR(p + j * f->elem, want);
            }
            break;
        case PC_SK_FIRST_LEN:
            CHECK_EQ_I64(*(const int64_t *)p, (int64_t)val(i, 0, first));
            break;
        case PC_SK_MAX: {
            uint64_t va = a ? val(i, 0, a) : 0, vb = val(i, 0, b);

            CHECK_EQ_U64(*(const uint64_t *)p, va > vb ? va : vb);
            break;
        }
        case PC_SK_KEEP:
        case PC_SK_HAND:
            if (!is_by_hand(f->name)) {
                snprintf(unit_msg, sizeof unit_msg,
                         "%s is merged by hand: check it in test_stats.c", f->name);
                unit_failed_now = 1;
                return;
            }
            break;
        }
    }
    /* by_hand */
    CHECK_EQ_I64(d->nurls, 2);
    CHECK(d->url_latency);
    for (uint32_t u = 0; u < 2; u++) {
        CHECK_EQ_I64(d->urls[u].completed, (a ? a * 10 + u : 0) + b * 10 + u);
        CHECK_EQ_I64(d->urls[u].errors, (a ? a * 100 + u : 0) + b * 100 + u);
        CHECK_EQ_I64(d->url_lat[u].total_count, (a ? a + u : 0) + b + u);
    }
    CHECK_EQ_I64(d->nstages, 3);
    CHECK_EQ_I64(d->nsteps, 2);
    for (uint32_t g = 0; g < 5; g++) {
        const pc_stage_stats *x = g < 3 ? &d->stages[g] : &d->steps[g - 3];

        CHECK_EQ_I64(x->latency_u.total_count, (a ? a + g + 1 : 0) + b + g + 1);
        CHECK_EQ_I64(x->send_lag.total_count, (a ? a + g + 2 : 0) + b + g + 2);

        CHECK_EQ_I64(x->completed, (a ? a * 10 + g : 0) + b * 10 + g);
        CHECK_EQ_I64(x->non2xx, (a ? a * 20 + g : 0) + b * 20 + g);
        CHECK_EQ_I64(x->errors, (a ? a * 30 + g : 0) + b * 30 + g);
        CHECK_EQ_I64(x->never_sent, (a ? a * 40 + g : 0) + b * 40 + g);
        CHECK_EQ_I64(x->interrupted, (a ? a * 50 + g : 0) + b * 50 + g);
        CHECK_EQ_I64(x->latency.total_count, (a ? a + g : 0) + b + g);
    }
    CHECK_EQ_I64(d->nrecs, a ? 4 : 2);
    CHECK(d->caprecs >= d->nrecs);
    for (size_t r = 0; r < d->nrecs; r++)
        CHECK_EQ_I64(d->recs[r].start, (uint64_t)((a && r < 2) ? a : b) * 10 + r % 2);
}

/* Every field, set to a value of its own in two stats, merged: sums add,
 * the first string and document length win (an empty one takes the other's),
 * histograms add, per-URL results and request records add up. */
static void test_merge_every_field(void)
{
    pc_stats a, b, c;

    CHECK(stats_init(&a) == 0 && stats_init(&b) == 0 && stats_init(&c) == 0);
    CHECK(fill(&a, 1) == 0);
    CHECK(fill(&b, 2) == 0);
    stats_merge(&a, &b);
    check_merged(&a, 1, 2);
    if (unit_failed_now)
        return;
    stats_merge(&c, &b); /* into a fresh one: everything of b's */
    check_merged(&c, 0, 2);
    stats_free(&a);
    stats_free(&b);
    stats_free(&c);
}

/* After a reset every field reads as a fresh one's, and the allocations
 * (histograms, per-URL results, the record array) are still there. */
static void test_reset_every_field(void)
{
    pc_stats s, fresh;

    CHECK(stats_init(&s) == 0 && stats_init(&fresh) == 0);
    CHECK(fill(&s, 3) == 0);
    stats_reset(&s);
    for (size_t i = 0; i < pc_stats_nfields; i++) {
        const pc_stats_field *f = &pc_stats_fields[i];

        if (f->kind == PC_SK_HIST_NS || f->kind == PC_SK_HIST_RATE) {
            const hdr_hist *h = stats_cfield(&s, f);

            CHECK(h->counts != NULL);
            CHECK_EQ_I64(h->total_count, 0);
        } else if (f->kind != PC_SK_KEEP &&
                   memcmp(stats_cfield(&s, f), stats_cfield(&fresh, f), f->size) != 0) {
            snprintf(unit_msg, sizeof unit_msg, "%s survived the reset", f->name);
            unit_failed_now = 1;
            return;
        }
    }
    CHECK_EQ_I64(s.nurls, 2);
    CHECK(s.urls && s.url_latency && s.recs);
    CHECK_EQ_I64(s.caprecs, 3);
    CHECK_EQ_I64(s.urls[1].completed + s.urls[1].errors + s.url_lat[1].total_count, 0);
    CHECK_EQ_I64(s.nstages, 3);
    CHECK(s.stages && s.stages[2].latency.counts);
    CHECK_EQ_I64(s.stages[2].completed + s.stages[2].errors + s.stages[2].latency.total_count, 0);
    CHECK_EQ_I64(s.nsteps, 2);
    CHECK_EQ_I64(s.steps[1].completed + s.steps[1].latency_u.total_count +
                     s.steps[1].send_lag.total_count + s.stages[0].send_lag.total_count,
                 0);
    stats_free(&s);
    stats_free(&fresh);
}

static void test_err_names(void)
{
    static const char *const want[PC_ERR_KINDS] = {"connect", "read", "write", "timeout",
                                                   "protocol"};

    for (int k = 0; k < PC_ERR_KINDS; k++)
        CHECK_EQ_STR(pc_err_name(k), want[k]);
}

/* CONNECTION_CLOSE codes: the transport codes 0x0..0x10 each, a TLS alert
 * (0x100..0x1ff) as one, HTTP/3's 0x100..0x110 each, the rest "other"; and
 * every bucket a key of its own (the JSON's, which pacer report reads). */
static void test_quic_close_buckets(void)
{
    char a[32], b[32];

    CHECK_EQ_I64(stats_quic_close_idx(false, 0x0), 0);
    CHECK_EQ_I64(stats_quic_close_idx(false, 0xa), 10);
    CHECK_EQ_STR(stats_quic_close_key(stats_quic_close_idx(false, 0x7), a, sizeof a), "0x7");
    CHECK_EQ_STR(stats_quic_close_key(stats_quic_close_idx(false, 0x10), a, sizeof a), "0x10");
    CHECK_EQ_STR(stats_quic_close_key(stats_quic_close_idx(false, 0x12a), a, sizeof a), "0x1xx");
    CHECK_EQ_STR(stats_quic_close_key(stats_quic_close_idx(false, 0x11), a, sizeof a), "other");
    CHECK_EQ_STR(stats_quic_close_key(stats_quic_close_idx(true, 0x100), a, sizeof a), "app:0x100");
    CHECK_EQ_STR(stats_quic_close_key(stats_quic_close_idx(true, 0x110), a, sizeof a), "app:0x110");
    CHECK_EQ_STR(stats_quic_close_key(stats_quic_close_idx(true, 0x111), a, sizeof a), "app:other");
    CHECK_EQ_STR(stats_quic_close_key(stats_quic_close_idx(true, 0x0), a, sizeof a), "app:other");
    for (int i = 0; i < STATS_QUIC_CLOSE_N; i++)
        for (int j = i + 1; j < STATS_QUIC_CLOSE_N; j++)
            CHECK(strcmp(stats_quic_close_key(i, a, sizeof a), stats_quic_close_key(j, b, sizeof b)) != 0);
}

/* A ramp's rows merge only where every part has them: a result from
 * before them (stages, no rows) drops them, or they would not add up to
 * their stage. */
static void test_merge_rows_need_every_part(void)
{
    pc_stats a, b, d;

    CHECK(stats_init(&a) == 0 && stats_init(&b) == 0 && stats_init(&d) == 0);
    CHECK(stats_init_stages(&a, 1, 10) == 0 && stats_init_stages(&b, 1, 0) == 0);
    a.stages[0].completed = a.steps[3].completed = 5;
    b.stages[0].completed = 7;
    stats_merge(&d, &a);
    CHECK_EQ_I64(d.nsteps, 10);
    CHECK_EQ_I64(d.steps[3].completed, 5);
    stats_merge(&d, &b);
    CHECK_EQ_I64(d.stages[0].completed, 12);
    CHECK_EQ_I64(d.nsteps, 0);
    CHECK(d.steps == NULL);
    stats_merge(&d, &a); /* and they stay dropped */
    CHECK_EQ_I64(d.nsteps, 0);
    stats_free(&a);
    stats_free(&b);
    stats_free(&d);
}

int main(void)
{
    RUN(test_reset_empties_histograms);
    RUN(test_merge_adds);
    RUN(test_table_covers_every_field);
    RUN(test_merge_every_field);
    RUN(test_reset_every_field);
    RUN(test_err_names);
    RUN(test_quic_close_buckets);
    RUN(test_merge_rows_need_every_part);
    return unit_done();
}
