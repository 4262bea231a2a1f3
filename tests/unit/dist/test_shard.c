/*
 * test_shard.c - unit tests for src/dist/shard.h: a run split over N
 * shards adds up exactly to the run as given, and the shards' schedules
 * together are the one-machine schedule.
 */
#include "dist/shard.h"
#include "engine/sched.h"
#include "unit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define NS 1000000000ull

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

/* The parts of every worker add up, and each worker's first index is the
 * sum of the parts before it. */
static void test_parts_add_up(void)
{
    for (uint64_t total = 0; total < 200; total++)
        for (uint64_t parts = 1; parts < 20; parts++) {
            uint64_t sum = 0;

            for (uint64_t g = 0; g < parts; g++) {
                CHECK_EQ_U64(shard_first(total, parts, g), sum);
                sum += shard_part(total, parts, g);
            }
            CHECK_EQ_U64(sum, total);
            CHECK_EQ_U64(shard_first(total, parts, parts), total);
        }
}

/* A shard's share, split over its threads the way the engine splits -c and
 * -n (share/T, one more for the first share%T), gives every thread exactly
 * its part as worker I*T+t of the whole run; the shares add up. */
static void test_share_split_is_the_workers_part(void)
{
    for (uint64_t total = 6; total < 300; total += 7)
        for (uint32_t n = 1; n <= 5; n++)
            for (uint32_t t = 1; t <= 4; t++) {
                uint64_t sum = 0, G = (uint64_t)n * t;

                if (total < G)
                    continue;
                for (uint32_t i = 0; i < n; i++) {
                    uint64_t share = shard_share(total, n, t, i);

                    for (uint32_t k = 0; k < t; k++)
                        CHECK_EQ_U64(share / t + (k < share % t),
                                     shard_part(total, G, (uint64_t)i * t + k));
                    sum += share;
                }
                CHECK_EQ_U64(sum, total);
            }
}

/* The union of every shard's schedule (N x T workers at the whole rate,
 * worker g = I*T + t) is the schedule of one worker at that rate: the same
 * intended times, each once, over the same -d. */
static void check_union(double rate, uint32_t n, uint32_t t, uint64_t dur_ns)
{
    const uint64_t start = 987654321012345ull;
    sched one;
    uint64_t want, got = 0, *all;

    sched_init(&one, start, rate, 1, 0);
    want = sched_count_before(&one, start + dur_ns);
    all = calloc(want + 1, sizeof *all);
    if (!all) {
        unit_failed_now = 1;
        return;
    }
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t k = 0; k < t; k++) {
            pc_config cfg = {.threads = t, .shard = {.index = i, .count = n, .total_rate = rate}};
            sched s;
            uint64_t m;

            sched_init(&s, start, shard_total_rate(&cfg), shard_workers(&cfg),
                       shard_worker(&cfg, k));
            m = sched_count_before(&s, start + dur_ns);
            for (uint64_t j = 0; j < m && got <= want; j++)
                all[got++] = sched_time(&s, j);
        }
    if (got != want) {
        snprintf(unit_msg, sizeof unit_msg, "R=%g %ux%u: %llu requests in the shards, %llu in one",
                 rate, n, t, (unsigned long long)got, (unsigned long long)want);
        unit_failed_now = 1;
        free(all);
        return;
    }
    qsort(all, got, sizeof *all, cmp_u64);
    for (uint64_t j = 0; j < want; j++)
        if (all[j] != sched_time(&one, j)) {
            snprintf(unit_msg, sizeof unit_msg, "R=%g %ux%u: request %llu at %llu, want %llu", rate,
                     n, t, (unsigned long long)j, (unsigned long long)(all[j] - start),
                     (unsigned long long)(sched_time(&one, j) - start));
            unit_failed_now = 1;
            break;
        }
    free(all);
}

static void test_union_of_shards_is_one_schedule(void)
{
    check_union(900, 3, 1, 3 * NS);
    if (unit_failed_now)
        return;
    check_union(1000, 3, 2, 3 * NS);
    if (unit_failed_now)
        return;
    check_union(333.3, 4, 3, 2 * NS + 12345);
    if (unit_failed_now)
        return;
    check_union(7, 5, 2, 10 * NS);
}

/* shard_apply: the whole run's figures are kept, the shares add up. */
static void test_apply_shares_add_up(void)
{
    uint64_t c = 0, n = 0;
    double r = 0;

    for (uint32_t i = 0; i < 3; i++) {
        pc_config cfg = {.threads = 2, .connections = 20, .requests = 3001, .rate = 900};
        char err[256];

        CHECK_EQ_I64(shard_apply(&cfg, i, 3, err, sizeof err), 0);
        CHECK_EQ_U64(cfg.shard.total_connections, 20);
        CHECK_EQ_U64(cfg.shard.total_requests, 3001);
        CHECK_NEAR(cfg.shard.total_rate, 900, 0);
        CHECK_EQ_U64(shard_total_requests(&cfg), 3001);
        c += cfg.connections;
        n += cfg.requests;
        r += cfg.rate;
    }
    CHECK_EQ_U64(c, 20);
    CHECK_EQ_U64(n, 3001);
    CHECK_NEAR(r, 900, 1e-9);
}

/* Too few connections (or requests) for every worker: refused, saying why. */
static void test_apply_refuses_too_few(void)
{
    pc_config cfg = {.threads = 2, .connections = 5, .rate = 0};
    pc_config cfg2 = {.threads = 1, .connections = 6, .requests = 2};
    char err[256];

    CHECK_EQ_I64(shard_apply(&cfg, 0, 3, err, sizeof err), -EINVAL);
    CHECK(strstr(err, "at least 6"));
    CHECK_EQ_I64(shard_apply(&cfg2, 0, 3, err, sizeof err), -EINVAL);
    CHECK(strstr(err, "-n 2"));
}

/* I counts from 0: "3/3" is refused and the message says how to number. */
static void test_parse_zero_based(void)
{
    uint32_t i = 9, n = 9;
    char err[256];

    CHECK_EQ_I64(shard_parse("0/3", &i, &n, err, sizeof err), 0);
    CHECK_EQ_U64(i, 0);
    CHECK_EQ_U64(n, 3);
    CHECK_EQ_I64(shard_parse("2/3", &i, &n, err, sizeof err), 0);
    CHECK_EQ_U64(i, 2);
    CHECK_EQ_I64(shard_parse("3/3", &i, &n, err, sizeof err), -EINVAL);
    CHECK(strstr(err, "counts from 0"));
    CHECK(strstr(err, "2/3"));
    CHECK_EQ_I64(shard_parse("0/0", &i, &n, err, sizeof err), -EINVAL);
    CHECK_EQ_I64(shard_parse("1", &i, &n, err, sizeof err), -EINVAL);
    CHECK_EQ_I64(shard_parse("-1/3", &i, &n, err, sizeof err), -EINVAL);
    CHECK_EQ_I64(shard_parse("1/3x", &i, &n, err, sizeof err), -EINVAL);
    /* 3/2 is no shard of 2 counted from 0 or 1: the range, no suggestion. */
    CHECK_EQ_I64(shard_parse("3/2", &i, &n, err, sizeof err), -EINVAL);
    CHECK(strstr(err, "0/2 and 1/2"));
    CHECK(!strstr(err, "is 1/2"));
    /* 2/2 can only be the last shard counted from 1. */
    CHECK_EQ_I64(shard_parse("2/2", &i, &n, err, sizeof err), -EINVAL);
    CHECK(strstr(err, "counted from 1, 2/2 is 1/2"));
    CHECK_EQ_I64(shard_parse("1/", &i, &n, err, sizeof err), -EINVAL);
    CHECK(strstr(err, "count after '/'"));
    CHECK_EQ_I64(shard_parse("a/b", &i, &n, err, sizeof err), -EINVAL);
    CHECK(strstr(err, "index before '/'"));
    CHECK_EQ_I64(shard_parse("0/0", &i, &n, err, sizeof err), -EINVAL);
    CHECK(strstr(err, "from 1"));
}

static void test_parse_time(void)
{
    uint64_t ns = 0;

    CHECK_EQ_I64(shard_parse_time("1764590400", &ns), 0);
    CHECK_EQ_U64(ns, 1764590400ull * NS);
    CHECK_EQ_I64(shard_parse_time("1764590400.25", &ns), 0);
    CHECK_EQ_U64(ns, 1764590400ull * NS + 250000000ull);
    CHECK_EQ_I64(shard_parse_time("2025-12-01T12:00:00Z", &ns), 0);
    CHECK_EQ_U64(ns, 1764590400ull * NS);
    CHECK_EQ_I64(shard_parse_time("2025-12-01T13:00:00.5+01:00", &ns), 0);
    CHECK_EQ_U64(ns, 1764590400ull * NS + 500000000ull);
    CHECK_EQ_I64(shard_parse_time("2025-12-01 11:30:00-00:30", &ns), 0);
    CHECK_EQ_U64(ns, 1764590400ull * NS);
    CHECK_EQ_I64(shard_parse_time("2025-12-01T12:00:00", &ns), -EINVAL); /* no zone */
    CHECK_EQ_I64(shard_parse_time("2025-13-01T12:00:00Z", &ns), -EINVAL);
    CHECK_EQ_I64(shard_parse_time("12s", &ns), -EINVAL);
    CHECK_EQ_I64(shard_parse_time("", &ns), -EINVAL);
}

/* In the past by more than the connect time: refused; a little: kept. */
static void test_check_start(void)
{
    uint64_t now = 1764590400ull * NS;
    char err[256];

    CHECK_EQ_I64(shard_check_start(now + 5 * NS, now, 10 * NS, err, sizeof err), 0);
    CHECK_EQ_I64(shard_check_start(now - 5 * NS, now, 10 * NS, err, sizeof err), 0);
    CHECK_EQ_I64(shard_check_start(now - 11 * NS, now, 10 * NS, err, sizeof err), -EINVAL);
    CHECK(strstr(err, "in the past"));
    CHECK_EQ_I64(shard_check_start(now + 2 * 86400 * NS, now, 10 * NS, err, sizeof err), -EINVAL);
}

/* A rank's file beside the merged one: the rank before the extension,
 * which is the last dot of the file's own name, not of a directory. */
static void test_rank_path(void)
{
    char p[64];

    shard_rank_path(p, sizeof p, "dir/run.json", 1);
    CHECK_EQ_STR(p, "dir/run.rank-1.json");
    shard_rank_path(p, sizeof p, "run", 2);
    CHECK_EQ_STR(p, "run.rank-2");
    shard_rank_path(p, sizeof p, "a.d/run", 0);
    CHECK_EQ_STR(p, "a.d/run.rank-0");
    shard_rank_path(p, sizeof p, "a.d/.hidden", 3);
    CHECK_EQ_STR(p, "a.d/.hidden.rank-3");
    shard_rank_path(p, sizeof p, "x.tar.gz", 10);
    CHECK_EQ_STR(p, "x.tar.rank-10.gz");
}

int main(void)
{
    RUN(test_parts_add_up);
    RUN(test_share_split_is_the_workers_part);
    RUN(test_union_of_shards_is_one_schedule);
    RUN(test_apply_shares_add_up);
    RUN(test_apply_refuses_too_few);
    RUN(test_parse_zero_based);
    RUN(test_parse_time);
    RUN(test_check_start);
    RUN(test_rank_path);
    return unit_done();
}
