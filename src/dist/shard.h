/*
 * shard.h - one run split over N processes (hosts), as if one machine with
 * N x T workers ran it.
 *
 * Shard I (0-based) of N, with T threads each, is workers g = I*T + t of
 * G = N*T. Every count (connections, -n) is split over the G workers so
 * that the parts add up exactly (the first total % G workers take one
 * more), and a shard's share is the sum of its workers'. The open-loop
 * schedule is interleaved over all G workers at the whole run's rate:
 * worker g sends the run's requests n = g + k*G (engine/sched.h), so the
 * union of the shards' schedules is the schedule of one machine.
 *
 * Pure arithmetic on pc_config; nothing here talks to the network or MPI.
 */
#ifndef PACER_DIST_SHARD_H
#define PACER_DIST_SHARD_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"

/* Worker g's part of total split over parts workers: total/parts, plus one
 * for the first total % parts. Sums to total over g = 0..parts-1. */
static inline uint64_t shard_part(uint64_t total, uint64_t parts, uint64_t g)
{
    return total / parts + (g < total % parts);
}

/* The index (in the whole run) of worker g's first item: the sum of the
 * parts of workers 0..g-1. */
static inline uint64_t shard_first(uint64_t total, uint64_t parts, uint64_t g)
{
    uint64_t rem = total % parts;

    return g * (total / parts) + (g < rem ? g : rem);
}

/* Shard `index` of `count` (threads workers each): the sum of its workers'
 * parts of total. */
static inline uint64_t shard_share(uint64_t total, uint32_t count, uint32_t threads,
                                   uint32_t index)
{
    uint64_t G = (uint64_t)count * threads, g0 = (uint64_t)index * threads;

    return shard_first(total, G, g0 + threads) - shard_first(total, G, g0);
}

/* How many workers the whole run has (N x T; T when not sharded). */
static inline uint32_t shard_workers(const pc_config *cfg)
{
    return cfg->threads * (cfg->shard.count ? cfg->shard.count : 1);
}

/* Worker t of this process, as numbered in the whole run. */
static inline uint32_t shard_worker(const pc_config *cfg, uint32_t t)
{
    return cfg->shard.index * cfg->threads + t;
}

/* -R of the whole run (cfg->rate is this shard's share once sharded). */
static inline double shard_total_rate(const pc_config *cfg)
{
    return cfg->shard.count ? cfg->shard.total_rate : cfg->rate;
}

/* -n of the whole run. */
static inline uint64_t shard_total_requests(const pc_config *cfg)
{
    return cfg->shard.count ? cfg->shard.total_requests : cfg->requests;
}

/* Parse "I/N" (I counts from 0: 0/3, 1/3, 2/3). 0, or -EINVAL with a
 * one-line reason in err (1-based input such as 3/3 is named as such). */
int shard_parse(const char *arg, uint32_t *index, uint32_t *count, char *err, size_t errlen);

/* Make cfg shard `index` of `count`: keep the whole run's -c, -n and -R in
 * cfg->shard and put this shard's share in cfg->connections, requests and
 * rate. Refuses (-EINVAL, reason in err) a run that cannot be split so
 * that every worker has a connection (and, with -n, a request): -c and -n
 * must be at least count x threads. count 1 is the whole run. Call once,
 * after the options are final. */
int shard_apply(pc_config *cfg, uint32_t index, uint32_t count, char *err, size_t errlen);

/* Parse a --start-at TIME: epoch seconds ("1764590400", "1764590400.25")
 * or ISO 8601 UTC or with an offset ("2026-12-01T12:00:00Z",
 * "2026-12-01T13:00:00.5+01:00"). Sets *ns (since the epoch); 0 or
 * -EINVAL. */
int shard_parse_time(const char *arg, uint64_t *ns);

/* Whether a start instant can still be kept: refused (-EINVAL, reason in
 * err) when it is in the past by more than connect_ns at now_ns (the
 * connections could not have opened before it), or more than a day ahead
 * (a typo: milliseconds for seconds). */
int shard_check_start(uint64_t start_ns, uint64_t now_ns, uint64_t connect_ns, char *err,
                      size_t errlen);

/* Where a rank's own copy of an output file goes, beside the merged one:
 * "dir/run.json" -> "dir/run.rank-1.json" (no extension: "run.rank-1"). */
void shard_rank_path(char *dst, size_t cap, const char *path, int rank);

#endif
