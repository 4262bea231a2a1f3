/*
 * sbuf.h - a growable byte buffer with a cap: what a script's response()
 * is handed (headers, body), a script's request body over HTTP/2 or /3.
 */
#ifndef PACER_UTIL_SBUF_H
#define PACER_UTIL_SBUF_H

#include <stdbool.h>
#include <stddef.h>

typedef struct sbuf {
    char *p;
    size_t len, cap;
    bool cut; /* bytes past sbuf_add's max were left out */
} sbuf;

/* Append to b, keeping at most max bytes in all (more is dropped and b->cut
 * set: bounded memory beats a complete huge body). 0 or -ENOMEM. */
int sbuf_add(sbuf *b, const char *p, size_t n, size_t max);

/* Empty b for the next use (its memory is kept). */
static inline void sbuf_clear(sbuf *b)
{
    b->len = 0;
    b->cut = false;
}

#endif
