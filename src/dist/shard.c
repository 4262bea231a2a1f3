/*
 * shard.c - see shard.h.
 */
#include "dist/shard.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A decimal u32 that is all of [s, end). */
static int parse_u32(const char *s, const char *end, uint32_t *v)
{
    uint64_t n = 0;

    if (s == end)
        return -EINVAL;
    for (; s < end; s++) {
        if (!isdigit((unsigned char)*s))
            return -EINVAL;
        n = n * 10 + (uint64_t)(*s - '0');
        if (n > 1000000)
            return -EINVAL;
    }
    *v = (uint32_t)n;
    return 0;
}

/* I/N, each a decimal of at most 7 digits. A malformed part is named; an
 * index past the last shard gets the range of N's shards, and the one
 * spelling it can mean only when it is I == N, the last shard counted from
 * 1 (3/2 is no shard of 2, so nothing is suggested). */
int shard_parse(const char *arg, uint32_t *index, uint32_t *count, char *err, size_t errlen)
{
    const char *slash = strchr(arg, '/');

    if (!slash) {
        snprintf(err, errlen, "invalid --shard '%s': no '/' (I/N: shard I of N, I from 0, e.g. 0/3)",
                 arg);
        return -EINVAL;
    }
    if (parse_u32(arg, slash, index) < 0) {
        snprintf(err, errlen, "invalid --shard '%s': the index before '/' must be a whole number "
                 "from 0 (I/N, e.g. 0/3)", arg);
        return -EINVAL;
    }
    if (parse_u32(slash + 1, slash + strlen(slash), count) < 0 || *count == 0) {
        snprintf(err, errlen, "invalid --shard '%s': the count after '/' must be a whole number "
                 "from 1 to 1000000 (I/N, e.g. 0/3)", arg);
        return -EINVAL;
    }
    if (*index >= *count) {
        char range[64];

        if (*count == 1)
            snprintf(range, sizeof range, "the only shard of 1 is 0/1");
        else if (*count == 2)
            snprintf(range, sizeof range, "the shards of 2 are 0/2 and 1/2");
        else
            snprintf(range, sizeof range, "the shards of %u are 0/%u to %u/%u", *count, *count,
                     *count - 1, *count);
        if (*index == *count && *count > 1)
            snprintf(err, errlen, "--shard %s: I counts from 0: %s (counted from 1, %s is %u/%u)",
                     arg, range, arg, *count - 1, *count);
        else if (*index == *count)
            snprintf(err, errlen, "--shard %s: I counts from 0: %s", arg, range);
        else
            snprintf(err, errlen, "--shard %s: there is no shard %u of %u (I counts from 0: %s)",
                     arg, *index, *count, range);
        return -EINVAL;
    }
    return 0;
}

int shard_apply(pc_config *cfg, uint32_t index, uint32_t count, char *err, size_t errlen)
{
    uint64_t G = (uint64_t)count * cfg->threads;

    if (count == 0 || index >= count) {
        snprintf(err, errlen, "shard %u of %u does not exist", index, count);
        return -EINVAL;
    }
    if (cfg->connections < G) {
        snprintf(err, errlen,
                 "-c %u cannot be split over %u shards x %u threads: every worker needs a "
                 "connection (-c at least %llu, or fewer threads)",
                 cfg->connections, count, cfg->threads, (unsigned long long)G);
        return -EINVAL;
    }
    if (cfg->requests && cfg->requests < G) {
        snprintf(err, errlen,
                 "-n %llu cannot be split over %u shards x %u threads (at least %llu)",
                 (unsigned long long)cfg->requests, count, cfg->threads, (unsigned long long)G);
        return -EINVAL;
    }
    cfg->shard.index = index;
    cfg->shard.count = count;
    cfg->shard.total_connections = cfg->connections;
    cfg->shard.total_requests = cfg->requests;
    cfg->shard.total_rate = cfg->rate;
    cfg->connections = (uint32_t)shard_share(cfg->connections, count, cfg->threads, index);
    cfg->requests = shard_share(cfg->requests, count, cfg->threads, index);
    cfg->rate = cfg->rate / count;
    return 0;
}

/* "[.frac]": nanoseconds from a fraction of a second; *p moves past it. */
static uint64_t parse_frac(const char **p)
{
    uint64_t ns = 0, scale = 100000000;

    if (**p != '.')
        return 0;
    for ((*p)++; isdigit((unsigned char)**p); (*p)++) {
        ns += (uint64_t)(**p - '0') * scale;
        scale /= 10;
    }
    return ns;
}

/* YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM), or a space for the T. */
static int parse_iso(const char *s, uint64_t *ns)
{
    struct tm tm = {0};
    int y, mo, d, h, mi, sec, n = 0, oh = 0, om = 0, sign = 0;
    const char *p;
    uint64_t frac;
    time_t t;

    if (sscanf(s, "%4d-%2d-%2d%*1[T ]%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &sec, &n) != 6 || !n)
        return -EINVAL;
    p = s + n;
    frac = parse_frac(&p);
    if (*p == 'Z' && !p[1]) {
        sign = 0;
    } else if ((*p == '+' || *p == '-') && sscanf(p + 1, "%2d:%2d", &oh, &om) == 2 &&
               strlen(p) == 6) {
        sign = *p == '+' ? 1 : -1;
    } else {
        return -EINVAL;
    }
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60 || oh > 23 ||
        om > 59 || y < 1970)
        return -EINVAL;
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = sec;
    t = timegm(&tm) - (time_t)sign * (oh * 3600 + om * 60);
    if (t < 0)
        return -EINVAL;
    *ns = (uint64_t)t * 1000000000ull + frac;
    return 0;
}

int shard_parse_time(const char *arg, uint64_t *ns)
{
    const char *p = arg;
    uint64_t sec = 0;

    if (strchr(arg, '-') || strchr(arg, ':'))
        return parse_iso(arg, ns);
    if (!isdigit((unsigned char)*p))
        return -EINVAL;
    for (; isdigit((unsigned char)*p); p++) {
        sec = sec * 10 + (uint64_t)(*p - '0');
        if (sec > 100000000000ull)
            return -EINVAL;
    }
    *ns = sec * 1000000000ull + parse_frac(&p);
    return *p ? -EINVAL : 0;
}

int shard_check_start(uint64_t start_ns, uint64_t now_ns, uint64_t connect_ns, char *err,
                      size_t errlen)
{
    if (start_ns + connect_ns < now_ns) {
        snprintf(err, errlen,
                 "--start-at is %.1f s in the past (more than --connect-timeout, %.1f s): the "
                 "connections could not open before it",
                 (double)(now_ns - start_ns) / 1e9, (double)connect_ns / 1e9);
        return -EINVAL;
    }
    if (start_ns > now_ns + 86400ull * 1000000000ull) {
        snprintf(err, errlen, "--start-at is %.0f s ahead, more than a day (seconds since the "
                              "epoch, not milliseconds?)",
                 (double)(start_ns - now_ns) / 1e9);
        return -EINVAL;
    }
    return 0;
}

void shard_rank_path(char *dst, size_t cap, const char *path, int rank)
{
    const char *base = strrchr(path, '/'), *dot;

    base = base ? base + 1 : path;
    dot = strrchr(base, '.');
    if (!dot || dot == base)
        snprintf(dst, cap, "%s.rank-%d", path, rank);
    else
        snprintf(dst, cap, "%.*s.rank-%d%s", (int)(dot - path), path, rank, dot);
}
