/*
 * sbuf.c - the capped growable buffer (sbuf.h).
 */
#include "util/sbuf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int sbuf_add(sbuf *b, const char *p, size_t n, size_t max)
{
    if (b->len + n > max) {
        b->cut = true; /* counted where the script is handed it */
        return 0;
    }
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        char *q;

        while (cap < b->len + n)
            cap *= 2;
        q = realloc(b->p, cap);
        if (!q)
            return -ENOMEM;
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->len, p, n);
    b->len += n;
    return 0;
}
