/*
 * pace.c - the worker's own pacing: how busy its thread is (CPU time of
 * the thread / wall time), the figure that certifies, with the send lag
 * (recorder.c), that the client kept up.
 */
#include "engine/worker_int.h"

#include <time.h>

/* CPU time this thread has used, ns. */
static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;

    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) < 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void pace_begin(pc_worker *w, uint64_t now)
{
    w->cpu0 = thread_cpu_ns();
    w->wall0 = now;
}

void pace_end(pc_worker *w, uint64_t now)
{
    uint64_t cpu = thread_cpu_ns() - w->cpu0;

    if (now <= w->wall0)
        return;
    /* In per mille: 3 significant digits keep it exact. */
    hdr_record(&w->st.busy, (int64_t)llround((double)cpu * 1000.0 / (double)(now - w->wall0)));
}
