/*
 * clock.h - the one clock pacer measures with: CLOCK_MONOTONIC in
 * nanoseconds. Wall-clock time is used only to label output files.
 */
#ifndef PACER_UTIL_CLOCK_H
#define PACER_UTIL_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t pc_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
