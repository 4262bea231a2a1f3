/*
 * grow.h - a zero-filled array of counters that grows on demand.
 */
#ifndef PACER_UTIL_GROW_H
#define PACER_UTIL_GROW_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Make *v (of *n entries) at least want entries long, the new ones 0.
 * 0, or -ENOMEM with *v and *n unchanged. */
static inline int counts_grow(uint64_t **v, uint32_t *n, uint32_t want)
{
    uint64_t *p;

    if (want <= *n)
        return 0;
    p = realloc(*v, want * sizeof *p);
    if (!p)
        return -ENOMEM;
    memset(p + *n, 0, (want - *n) * sizeof *p);
    *v = p;
    *n = want;
    return 0;
}

#endif
