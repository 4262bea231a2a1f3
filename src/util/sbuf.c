/*
 * sbuf.c - the capped growable buffer (sbuf.h).
 */
#include "util/sbuf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"

int sbuf_add(sbuf *b, const char *p, size_t n, size_t max)
{
    if (b->len + n > max) {
        b->cut = true; /* counted where the script is handed it */
        return 0;
    }
    if (grow_array(&b->p, &b->cap, b->len + n, 256, 1) < 0)
        return -ENOMEM;
    memcpy(b->p + b->len, p, n);
    b->len += n;
    return 0;
}
