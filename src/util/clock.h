/*
 * clock.h - the one clock pacer measures with: CLOCK_MONOTONIC in
 * nanoseconds. Wall-clock time labels output files, and is the clock the
 * kernel stamps packets with (SO_TIMESTAMPNS, SO_TIMESTAMPING), which
 * pc_mono_of_real brings onto the monotonic clock.
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

/* CLOCK_REALTIME in nanoseconds, 0 if it cannot be read. */
static inline uint64_t pc_real_ns(void)
{
    struct timespec ts;

    if (clock_gettime(CLOCK_REALTIME, &ts) < 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A kernel timestamp `real` (CLOCK_REALTIME ns) on the monotonic clock:
 * as long before mono_now as it is before real_now, the two clocks read
 * together (never in the future, never before 0). */
static inline uint64_t pc_mono_of_real(uint64_t real, uint64_t mono_now, uint64_t real_now)
{
    uint64_t age = real_now > real ? real_now - real : 0;

    return mono_now > age ? mono_now - age : 0;
}

#endif
