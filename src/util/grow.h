/*
 * grow.h - arrays that grow on demand: one that doubles (grow_array, the
 * buffers and lists built up an entry at a time), and a zero-filled array
 * of counters (counts_grow).
 */
#ifndef PACER_UTIL_GROW_H
#define PACER_UTIL_GROW_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Make the array at *pp (a pointer to any object type; *cap elements of
 * elem bytes) hold at least want, its room doubled from first (> 0) until
 * it does: few reallocations however it grows. 0, or -ENOMEM (also on
 * overflow) with the array and *cap unchanged. The pointer is read and
 * written through memcpy, so that any T ** may be passed. */
static inline int grow_array(void *pp, size_t *cap, size_t want, size_t first, size_t elem)
{
    size_t n = *cap ? *cap : first;
    void *p, *q;

    if (want <= *cap)
        return 0;
    while (n < want) {
        if (n > SIZE_MAX / 2)
            return -ENOMEM;
        n *= 2;
    }
    if (n > SIZE_MAX / elem)
        return -ENOMEM;
    memcpy(&p, pp, sizeof p);
    if (!(q = realloc(p, n * elem)))
        return -ENOMEM;
    memcpy(pp, &q, sizeof q);
    *cap = n;
    return 0;
}

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
