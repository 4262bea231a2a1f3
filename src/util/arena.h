/*
 * arena.h - many small, never-freed-one-by-one copies (the texts of a
 * million --urls lines, the bytes of their requests) in blocks of 1 MiB
 * that never move: a few hundred allocations instead of millions, and no
 * allocator overhead per copy.
 */
#ifndef PACER_UTIL_ARENA_H
#define PACER_UTIL_ARENA_H

#include <stddef.h>

typedef struct pc_arena_block pc_arena_block;

typedef struct pc_arena {
    pc_arena_block *blocks; /* newest first */
} pc_arena;

/* A copy of n bytes of s, followed by a NUL that n does not count. NULL
 * when out of memory. Valid until arena_free. */
char *arena_dup(pc_arena *a, const char *s, size_t n);

/* Every copy released; the arena is empty (and usable) again. */
void arena_free(pc_arena *a);

#endif
