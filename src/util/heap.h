/*
 * heap.h - a binary min-heap of deadlines whose entries know their place.
 *
 * The caller embeds a pc_heap_node in what it times (a connection) and the
 * heap holds pointers to those nodes, ordered by key (a time, in ns). Each
 * node keeps its index in the heap, so a deadline that moves or is dropped
 * costs O(log n), and whoever is woken finds only what is due: the engine's
 * connection timers (src/engine/wake.c) and serve's pending responses.
 */
#ifndef PACER_UTIL_HEAP_H
#define PACER_UTIL_HEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PC_HEAP_NONE UINT32_MAX /* a node's idx while it is in no heap */

typedef struct pc_heap_node {
    uint64_t key; /* when it is due (valid while in a heap) */
    uint32_t idx; /* its place in the heap, PC_HEAP_NONE: not in one */
} pc_heap_node;

typedef struct pc_heap { /* zero-filled: empty */
    pc_heap_node **v;
    uint32_t len, cap;
} pc_heap;

/* The struct of type T whose member M is the node n. */
#define PC_HEAP_ENTRY(n, T, M) ((T *)(void *)((char *)(n) - offsetof(T, M)))

/* Whether n is in h. A node needs no set-up: a zero-filled one is in no
 * heap (its idx names a place that holds another node, or none). */
static inline bool pc_heap_has(const pc_heap *h, const pc_heap_node *n)
{
    return n->idx < h->len && h->v[n->idx] == n;
}

static inline void pc_heap_init(pc_heap *h)
{
    h->v = NULL;
    h->len = h->cap = 0;
}

/* Its memory, leaving h empty; the nodes are the caller's (not touched,
 * so they may be freed first, and none is in h after). */
void pc_heap_free(pc_heap *h);

/* Room for n entries, so that pc_heap_set cannot fail below that. 0 or
 * -ENOMEM (h unchanged). */
int pc_heap_reserve(pc_heap *h, uint32_t n);

/* Put n in h due at key, or move it there if it is in h already. 0, or
 * -ENOMEM when h had to grow and could not (n left out). */
int pc_heap_set(pc_heap *h, pc_heap_node *n, uint64_t key);

/* Take n out of h (nothing if it is not in h). */
void pc_heap_remove(pc_heap *h, pc_heap_node *n);

/* The earliest entry (of equal keys, any one), NULL when h is empty. */
static inline pc_heap_node *pc_heap_top(const pc_heap *h)
{
    return h->len ? h->v[0] : NULL;
}

/* Take out and return the earliest entry, NULL when h is empty. */
pc_heap_node *pc_heap_pop(pc_heap *h);

#endif
