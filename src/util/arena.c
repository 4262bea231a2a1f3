/*
 * arena.c - see arena.h.
 */
#include "util/arena.h"

#include <stdlib.h>
#include <string.h>

#define ARENA_BLOCK (1u << 20)

struct pc_arena_block {
    pc_arena_block *next;
    size_t used, cap;
    char data[];
};

char *arena_dup(pc_arena *a, const char *s, size_t n)
{
    pc_arena_block *b = a->blocks;
    char *p;

    if (!b || b->cap - b->used < n + 1) {
        size_t cap = n + 1 > ARENA_BLOCK ? n + 1 : ARENA_BLOCK;

        if (!(b = malloc(sizeof *b + cap)))
            return NULL;
        b->next = a->blocks, b->used = 0, b->cap = cap;
        a->blocks = b;
    }
    p = b->data + b->used;
    memcpy(p, s, n);
    p[n] = 0;
    b->used += n + 1;
    return p;
}

void arena_free(pc_arena *a)
{
    for (pc_arena_block *b = a->blocks, *next; b; b = next) {
        next = b->next;
        free(b);
    }
    a->blocks = NULL;
}
