/*
 * pace.c - the worker's own pacing: how long it waits, how late it lets a
 * due request go to send several in one wake-up (the slack), and how busy
 * its thread is (CPU time of the thread / wall time), the figure that
 * certifies, with the send lag (recorder.c), that the client kept up.
 *
 * The slack: never early; a due request may be sent up to the slack late,
 * and while it is in force a pass over the events is followed by a sleep
 * that sockets cannot cut short, so that the next pass, at most the slack
 * later, reads every response that came meanwhile and sends every request
 * that fell due. --slack D fixes it; by default it adapts, accuracy first:
 * 0 while the thread is under SLACK_BUSY_HI busy (it has the CPU to send
 * each request at its time, so it does, as --slack 0); over that, grown
 * in steps of twice the gap between this thread's deadlines (and only
 * while each step up makes it less busy: see adapt()) up to
 * SLACK_CHEAP_NS, which adds at most half that to the median; past that
 * only while the thread is short of CPU (over SLACK_BUSY_SHORT: the rate
 * itself is at stake), up to slack_max(); halved while it is under
 * SLACK_BUSY_LO.
 * --spin D: the last D before each deadline are waited for by polling
 * instead of sleeping, so a thread is on time where a sleeping one wakes
 * late (the timer, the scheduler, an idle CPU's exit latency: 80 us of
 * send lag at 1,000 req/s on this project's VMs; 34 us with --spin 50us).
 * The time spun is not counted as the thread's work (busy).
 * Latency still counts from the intended time, so the lateness is in the
 * numbers; the slack in force is sampled each tick into the statistics.
 * A response read late is not late: over plain TCP its time is the
 * kernel's (net_rx_times, pace_came_at()), which also lets the thread
 * sleep through the responses between two sends (defer_reads()).
 */
#include "engine/worker_int.h"

#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

/* The adaptive slack's budgets. A pass sends what fell due since the
 * last one, so the lateness is spread evenly from 0 to the slack: its
 * median, half the slack, is added to the median latency. While the
 * thread has CPU to spare (under SLACK_BUSY_HI busy) it takes none; a
 * busier one takes up to SLACK_CHEAP_NS (+20 us on the median at most:
 * on this project's 2-core VMs a thread at 16,000 req/s spends half its
 * time waking up, docs/benchmarks.md); only one short of CPU (over
 * SLACK_BUSY_SHORT) takes up to SLACK_MAX_NS, where holding the rate is
 * worth 100 us on the median (wrk2's 1 ms batches add about 0.5 ms). */
#define SLACK_CHEAP_NS 40000ull
#define SLACK_MAX_NS 200000ull
#define SLACK_BUSY_HI 0.50
#define SLACK_BUSY_LO 0.35
#define SLACK_BUSY_SHORT 0.85
#define SLACK_HOLD 20 /* ticks (100 ms each) */
#define DEFER_MAX_NS 2000000ull

/* CPU time this thread has used, ns. */
static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;

    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) < 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void pace_start(pc_worker *w, uint64_t now)
{
    w->tick_cpu = thread_cpu_ns() - w->spun_ns;
    w->tick_wall = now;
    w->slack = w->cfg->slack_set && w->open_loop ? w->cfg->slack_ns : 0;
}

/* How long this thread has been ready to run with no CPU to run on (ns),
 * the second field of /proc/thread-self/schedstat; -1 where the kernel
 * does not keep it. */
static int64_t thread_run_delay_ns(void)
{
    char buf[128];
    unsigned long long run, wait;
    int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
    ssize_t n;

    if (fd < 0)
        return -1;
    n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    return sscanf(buf, "%llu %llu", &run, &wait) == 2 ? (int64_t)wait : -1;
}

void pace_begin(pc_worker *w, uint64_t now)
{
    w->cpu0 = thread_cpu_ns() - w->spun_ns;
    w->rdelay0 = thread_run_delay_ns();
    w->wall0 = now;
}

/* The thread's share of the run spent working, waiting for a CPU, and
 * either: a thread that never waited for the network made all the load it
 * could, whether it ran or stood in the kernel's queue (a shared machine). */
void pace_end(pc_worker *w, uint64_t now)
{
    uint64_t cpu = thread_cpu_ns() - w->spun_ns - w->cpu0;
    int64_t rd = thread_run_delay_ns();
    double wall;

    if (now <= w->wall0)
        return;
    wall = (double)(now - w->wall0);
    /* In per mille: 3 significant digits keep it exact. */
    hdr_record(&w->st.busy, (int64_t)llround((double)cpu * 1000.0 / wall));
    if (w->rdelay0 >= 0 && rd >= w->rdelay0) {
        double waited = (double)(rd - w->rdelay0), d = ((double)cpu + waited) * 1000.0 / wall;

        hdr_record(&w->st.cpu_wait, (int64_t)llround(waited * 1000.0 / wall));
        hdr_record(&w->st.demand, (int64_t)llround(d < 1000 ? d : 1000));
    }
}

/* The adaptive slack's next value, from the thread's busy fraction and
 * its CPU time per response over the last tick. A step up that did not
 * cut the CPU time per response by a tenth (the time goes into the
 * requests, e.g. a script's request(), not into wake-ups) is taken back,
 * and no step up is tried for SLACK_HOLD ticks. */
/* The most the adaptive slack grows to: SLACK_MAX_NS, and no more than
 * the time this thread takes to send an eighth as many requests as its
 * connections hold (-c x --pipeline or -m): a pass's requests hold their
 * connections until a later pass reads the responses (a few passes when
 * the server is slow), so a longer slack would leave due requests
 * without a connection. */
static uint64_t slack_max(const pc_worker *w)
{
    double cap = (double)w->nconns * (double)w->depth * w->sc.period_ns / 8;

    return cap < (double)SLACK_MAX_NS ? (uint64_t)cap : SLACK_MAX_NS;
}

static uint64_t adapt(pc_worker *w, double busy, double cost)
{
    uint64_t s = w->slack, step = 2 * (uint64_t)w->sc.period_ns, max = slack_max(w);

    if (busy <= SLACK_BUSY_SHORT && max > SLACK_CHEAP_NS)
        max = SLACK_CHEAP_NS;

    if (step < 50000)
        step = 50000; /* a first step the CPU time can tell from noise */
    if (w->slack_prev < s && !(cost < w->cost_prev * 0.9)) {
        s = w->slack_prev;
        w->slack_hold = SLACK_HOLD;
    } else if (busy > SLACK_BUSY_HI && w->slack_hold == 0 && s < max) {
        w->slack_prev = s;
        w->cost_prev = cost;
        s = s + (s > step ? s : step);
        return s < max ? s : max;
    } else if (busy < SLACK_BUSY_LO) {
        s = s / 2 < 1000 ? 0 : s / 2;
    }
    if (w->slack_hold)
        w->slack_hold--;
    w->slack_prev = s;
    return s;
}

void pace_tick(pc_worker *w, uint64_t now)
{
    uint64_t cpu, done = w->st.completed;

    if (w->phase != P_RUN || !w->open_loop || now <= w->tick_wall)
        return;
    cpu = thread_cpu_ns() - w->spun_ns;
    /* The warm-up's end resets the count. */
    if (done < w->tick_done)
        w->tick_done = 0;
    if (!w->cfg->slack_set && done > w->tick_done)
        w->slack = adapt(w, (double)(cpu - w->tick_cpu) / (double)(now - w->tick_wall),
                         (double)(cpu - w->tick_cpu) / (double)(done - w->tick_done));
    w->tick_cpu = cpu;
    w->tick_wall = now;
    w->tick_done = done;
    if (w->warm_reset && now > w->measure_start)
        hdr_record(&w->st.slack, (int64_t)w->slack);
}

/* Wait for events until `deadline` (absolute, ns). epoll_pwait2 takes a
 * nanosecond timeout; on kernels without it a timerfd does the same. */
static int sleep_events(pc_worker *w, struct epoll_event *ev, uint64_t deadline, uint64_t now)
{
    uint64_t d = deadline > now ? deadline - now : 0;
    int n;

    if (w->use_pwait2) {
        struct timespec ts = {.tv_sec = (time_t)(d / 1000000000u),
                              .tv_nsec = (long)(d % 1000000000u)};

        n = epoll_pwait2(w->epfd, ev, MAX_EVENTS, &ts, NULL);
        if (n >= 0 || errno != ENOSYS)
            return n;
        w->use_pwait2 = false;
    }
    if (d == 0)
        return epoll_wait(w->epfd, ev, MAX_EVENTS, 0);
    if (w->tfd_armed != deadline) {
        struct itimerspec its = {.it_value = {.tv_sec = (time_t)(deadline / 1000000000u),
                                              .tv_nsec = (long)(deadline % 1000000000u)}};

        timerfd_settime(w->tfd, TFD_TIMER_ABSTIME, &its, NULL);
        w->tfd_armed = deadline;
    }
    return epoll_wait(w->epfd, ev, MAX_EVENTS, -1);
}

/* How long the end of a wait is polled (--spin): only while a rate runs,
 * when a deadline is a send's. Never unasked: polling takes a CPU's time
 * from whatever shares it (on one machine, the server under test). */
static uint64_t spin_for(const pc_worker *w)
{
    return w->open_loop && w->phase == P_RUN ? w->cfg->spin_ns : 0;
}

/* Poll until `until`: the events, when `ev`, or the clock alone. What
 * it cost is the thread's CPU time, not the wall time (a thread that
 * waited for a CPU meanwhile did not spin), so busy never goes below 0. */
static int spin_until(pc_worker *w, struct epoll_event *ev, uint64_t until)
{
    uint64_t cpu0 = thread_cpu_ns(), now = pc_now_ns();
    int n = 0;

    while (now < until) {
        if (ev && (n = epoll_wait(w->epfd, ev, MAX_EVENTS, 0)) != 0)
            break;
        now = pc_now_ns();
    }
    w->spun_ns += thread_cpu_ns() - cpu0;
    return n;
}

/* As sleep_events, with the last --spin of the wait polled. */
static int wait_events(pc_worker *w, struct epoll_event *ev, uint64_t deadline, uint64_t now)
{
    uint64_t spin = spin_for(w);
    int n;

    if (!spin || deadline <= now)
        return sleep_events(w, ev, deadline, now);
    if (deadline - now > spin && (n = sleep_events(w, ev, deadline - spin, now)) != 0)
        return n;
    return spin_until(w, ev, deadline);
}

/* When what was just read on c came: the kernel's receive time where the
 * transport has it (net_rx_times), so that a response read a pass late
 * does not count the wait as latency; never later than now, never before
 * this thread last began to wait (every request in flight was sent
 * before then, so no response reads as earlier than its request). */
uint64_t pace_came_at(const pc_worker *w, const conn *c, uint64_t now)
{
    uint64_t real = c->h.nc.rx_real ? pc_real_ns() : 0, t;

    if (!real)
        return now;
    t = pc_mono_of_real(c->h.nc.rx_real, now, real);
    return t > w->wait_start ? t : w->wait_start < now ? w->wait_start : now;
}

/* Under a rate, when every connection's reads carry the kernel's receive
 * time (net_rx_times), a response waiting in its socket has the latency
 * it came with, however late it is read: the thread need not wake for it.
 * It then sleeps until its next deadline (a send, at most the slack late;
 * the tick), no socket cutting it short, so a request costs one wake-up,
 * not two (one to send, one to read), and reads every response that came
 * meanwhile in that pass. Not when a due request waits for a connection
 * to have room (a response frees it), none has room, or the deadline is
 * over DEFER_MAX_NS away (a low rate: wake-ups are few anyway, and
 * connection events are not held back long). */
static bool defer_reads(const pc_worker *w, uint64_t deadline, uint64_t now)
{
    return w->open_loop && !w->rx_untimed && w->phase == P_RUN && w->q.rq_len &&
           queue_backlog_len(w) == 0 && deadline > now && deadline - now <= DEFER_MAX_NS;
}

/* Sleep until `until` (absolute), whatever the sockets do; the last
 * --spin of it on the clock. */
static void sleep_until(pc_worker *w, uint64_t until)
{
    uint64_t spin = spin_for(w), wake = until > spin ? until - spin : 0;
    struct timespec ts = {.tv_sec = (time_t)(wake / 1000000000u),
                          .tv_nsec = (long)(wake % 1000000000u)};

    if (!spin || wake > pc_now_ns())
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
        }
    if (spin)
        spin_until(w, NULL, until);
}

int pace_wait(pc_worker *w, struct epoll_event *ev, uint64_t deadline, uint64_t pass)
{
    uint64_t until = pass + w->slack, now = pc_now_ns();
    int n;

    w->wait_start = now;
    if (defer_reads(w, deadline, now)) {
        /* With a slack, as below: at most the slack after this pass began,
         * but not before the next send is due (deadline - slack) when that
         * is later: nothing else needs this thread before then. */
        if (w->slack && deadline - w->slack > until)
            until = deadline - w->slack;
        if (!w->slack || until > deadline)
            until = deadline;
        if (until > now)
            sleep_until(w, until);
        return epoll_wait(w->epfd, ev, MAX_EVENTS, 0);
    }
    if (!w->slack || w->phase != P_RUN)
        return wait_events(w, ev, deadline, now);
    /* At most the slack after this pass began (never past the deadline):
     * no socket wakes the thread before then. */
    if (until > deadline)
        until = deadline;
    if (until > now)
        sleep_until(w, until);
    n = epoll_wait(w->epfd, ev, MAX_EVENTS, 0);
    if (n != 0)
        return n;
    /* Nothing came: wait as without slack, woken by the first event. */
    return wait_events(w, ev, deadline, pc_now_ns());
}
