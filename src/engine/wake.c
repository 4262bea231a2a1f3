/*
 * wake.c - a worker's connection deadlines: each connection's protocol
 * timer (eng_timer: a QUIC connection's loss, ACK and idle timers) and its
 * delay() wake-up, in one min-heap per worker (util/heap.h). A wake-up
 * takes out only the entries that are due, so its cost does not grow with
 * the connections a worker holds; w->next_wake is the earliest entry (a
 * timer's entry may be earlier than its timer_at: see wake_timer).
 */
#include "engine/worker_int.h"

int wake_init(pc_worker *w)
{
    /* Room for both of every connection's entries: wake_timer and
     * wake_delay never need memory once the run has begun. */
    return pc_heap_reserve(&w->due, 2 * w->nconns);
}

static void wake_set(pc_worker *w, pc_heap_node *n, uint64_t at)
{
    if (at)
        (void)pc_heap_set(&w->due, n, at); /* cannot fail: see wake_init */
    else
        pc_heap_remove(&w->due, n);
    w->next_wake = w->due.len ? pc_heap_top(&w->due)->key : 0;
}

/* A protocol moves its timer on nearly every packet (QUIC's loss and ACK
 * timers), mostly later. Only an earlier time, or a first one, moves the
 * entry now; a later one leaves it where it is until it comes up, when
 * wake_due moves it to timer_at: one step through the heap per expiry,
 * not one per packet. */
void wake_timer(conn *c, uint64_t when)
{
    pc_worker *w = c->w;

    c->timer_at = when;
    if (!when || !pc_heap_has(&w->due, &c->timer_hn) || when < c->timer_hn.key)
        wake_set(w, &c->timer_hn, when);
}

void wake_delay(conn *c, uint64_t when)
{
    c->wake_at = when;
    wake_set(c->w, &c->wake_hn, when);
}

/* The connection whose entry n is (each lies in one of w->conns). */
static conn *due_conn(pc_worker *w, const pc_heap_node *n)
{
    return &w->conns[((const char *)n - (const char *)w->conns) / sizeof *w->conns];
}

/* c's protocol timer is due: hand it over (once per wake_due: one that
 * its expire sets again at or before now waits for the next turn). Its
 * entry stays in place meanwhile, and moves once, to the timer expire
 * sets (eng_timer), or goes if there is none: not out and back in. */
static void wake_expire(conn *c, uint64_t now)
{
    c->timer_pass = c->w->wake_pass;
    c->timer_at = 0;
    if (c->state == CS_READY)
        c->proto->expire(&c->h, now);
    wake_set(c->w, &c->timer_hn, c->timer_at);
}

void wake_begin(pc_worker *w)
{
    w->wake_pass++;
}

conn *wake_next(pc_worker *w, uint64_t now)
{
    pc_heap_node *n;

    while ((n = pc_heap_top(&w->due)) && n->key <= now) {
        conn *c = due_conn(w, n);

        if (n == &c->timer_hn) {
            if (c->timer_at > now)
                wake_set(w, n, c->timer_at); /* moved later meanwhile */
            else if (c->timer_pass == w->wake_pass)
                break;
            else
                wake_expire(c, now);
            continue;
        }
        /* Its delay() is over. Its protocol's timer first when that is due
         * too, so a request goes to a connection brought up to date. */
        pc_heap_remove(&w->due, n);
        w->next_wake = w->due.len ? pc_heap_top(&w->due)->key : 0;
        if (c->timer_at && c->timer_at <= now && c->timer_pass != w->wake_pass)
            wake_expire(c, now);
        return c;
    }
    return NULL;
}
