/*
 * collect.c - see collect.h.
 */
#include "engine/collect.h"

#include <stdlib.h>
#include <string.h>

#include "util/grow.h"

/* Hand one interval of `period` to the sinks of that period. */
static void deliver(collector *co, uint64_t period, const pc_interval *iv)
{
    for (int i = 0; i < co->nsinks; i++)
        if (co->sinks[i].period_ns == period)
            co->sinks[i].fn(co->sinks[i].ud, iv);
}

/* The long interval is complete: to its sinks. res->intervals counts the
 * long intervals, those the files record. */
static void flush_long(collector *co)
{
    if (!co->acc)
        return;
    deliver(co, co->long_ns, co->acc);
    co->res->intervals++;
    interval_free(co->acc);
    co->acc = NULL;
}

/* Add a short interval to the long one it belongs to. Short intervals come
 * in index order; the long one is complete with its last short one, or
 * when one of the next begins (the run ended within it). */
static void fold(collector *co, const pc_interval *iv)
{
    uint32_t li = iv->index / co->k;

    if (co->acc && co->acc->index != li)
        flush_long(co);
    if (!co->acc && !(co->acc = interval_new()))
        return;
    interval_merge(co->acc, iv);
    co->acc->index = li;
    if (iv->index % co->k == co->k - 1)
        flush_long(co);
}

static void emit_front(collector *co)
{
    pc_interval *iv = co->pend[0];

    if (iv) {
        deliver(co, co->short_ns, iv);
        if (co->k > 1)
            fold(co, iv);
        else
            co->res->intervals++;
        interval_free(iv);
    }
    memmove(co->pend, co->pend + 1, (co->npend - 1) * sizeof *co->pend);
    co->pend[co->npend - 1] = NULL;
    co->next++;
}

void collect(collector *co, bool final)
{
    for (uint32_t i = 0; i < co->nworkers; i++) {
        pc_interval *list = worker_take_intervals(co->ws[i]);

        for (pc_interval *iv = list; iv; iv = iv->next) {
            uint32_t at = iv->index - co->next;

            if (iv->index < co->next)
                continue; /* cannot happen: emitted only when complete */
            if (at >= co->npend) {
                uint32_t n = at + 8;
                pc_interval **p = realloc(co->pend, n * sizeof *p);

                if (!p)
                    continue;
                memset(p + co->npend, 0, (n - co->npend) * sizeof *p);
                co->pend = p;
                co->npend = n;
            }
            if (!co->pend[at])
                co->pend[at] = interval_new();
            if (co->pend[at])
                interval_merge(co->pend[at], iv);
        }
        worker_return_intervals(co->ws[i], list);
    }
    while (co->npend && co->pend[0] && co->pend[0]->parts >= co->nworkers)
        emit_front(co);
    if (final) {
        uint32_t last = co->npend;

        while (last && !co->pend[last - 1])
            last--;
        for (uint32_t i = 0; i < last; i++)
            emit_front(co);
        flush_long(co);
    }
}

/* Short of memory, they are placed in the last interval
 * (series_place_never_sent). */
void collect_never_sent_due(pc_results *res, const pc_worker *w, uint32_t k)
{
    uint32_t n;
    const uint64_t *v = worker_never_sent_due(w, &n);

    if (n == 0 || counts_grow(&res->never_sent_due, &res->never_sent_n, (n - 1) / k + 1) < 0)
        return;
    for (uint32_t i = 0; i < n; i++)
        res->never_sent_due[i / k] += v[i];
}

void collect_free(collector *co)
{
    for (uint32_t i = 0; i < co->npend; i++)
        interval_free(co->pend[i]);
    free(co->pend);
    interval_free(co->acc);
}
