/*
 * heap.c - the deadline min-heap (heap.h).
 */
#include "util/heap.h"

#include <errno.h>
#include <stdlib.h>

static void heap_place(pc_heap *h, uint32_t i, pc_heap_node *n)
{
    h->v[i] = n;
    n->idx = i;
}

/* Move the node at i towards the root until its parent is not later. */
static void heap_up(pc_heap *h, uint32_t i)
{
    pc_heap_node *n = h->v[i];

    while (i > 0) {
        uint32_t p = (i - 1) / 2;

        if (h->v[p]->key <= n->key)
            break;
        heap_place(h, i, h->v[p]);
        i = p;
    }
    heap_place(h, i, n);
}

/* Move the node at i towards the leaves until no child is earlier. */
static void heap_down(pc_heap *h, uint32_t i)
{
    pc_heap_node *n = h->v[i];

    for (;;) {
        uint32_t l = 2 * i + 1, m;

        if (l >= h->len || l < i) /* l < i: past UINT32_MAX */
            break;
        m = l + 1 < h->len && h->v[l + 1]->key < h->v[l]->key ? l + 1 : l;
        if (n->key <= h->v[m]->key)
            break;
        heap_place(h, i, h->v[m]);
        i = m;
    }
    heap_place(h, i, n);
}

void pc_heap_free(pc_heap *h)
{
    free(h->v); /* the nodes are not touched: they may be freed already */
    pc_heap_init(h);
}

int pc_heap_reserve(pc_heap *h, uint32_t n)
{
    pc_heap_node **v;
    uint32_t cap;

    if (n <= h->cap)
        return 0;
    if (n == PC_HEAP_NONE)
        return -ENOMEM; /* an index must never be PC_HEAP_NONE */
    cap = h->cap ? h->cap : 16;
    while (cap < n)
        cap = cap > PC_HEAP_NONE / 2 ? PC_HEAP_NONE - 1 : cap * 2;
    v = realloc(h->v, (size_t)cap * sizeof *v);
    if (!v)
        return -ENOMEM;
    h->v = v;
    h->cap = cap;
    return 0;
}

int pc_heap_set(pc_heap *h, pc_heap_node *n, uint64_t key)
{
    uint64_t old = n->key;

    if (!pc_heap_has(h, n)) {
        if (h->len == h->cap && pc_heap_reserve(h, h->len + 1) < 0)
            return -ENOMEM;
        n->key = key;
        heap_place(h, h->len++, n);
        heap_up(h, n->idx);
        return 0;
    }
    n->key = key;
    if (key < old)
        heap_up(h, n->idx);
    else if (key > old)
        heap_down(h, n->idx);
    return 0;
}

void pc_heap_remove(pc_heap *h, pc_heap_node *n)
{
    uint32_t i = n->idx;
    pc_heap_node *last;

    if (!pc_heap_has(h, n))
        return;
    n->idx = PC_HEAP_NONE;
    last = h->v[--h->len];
    if (i == h->len)
        return;
    /* The last entry fills the hole, then finds its place either way. */
    heap_place(h, i, last);
    heap_up(h, i);
    heap_down(h, last->idx);
}

pc_heap_node *pc_heap_pop(pc_heap *h)
{
    pc_heap_node *n = pc_heap_top(h);

    if (n)
        pc_heap_remove(h, n);
    return n;
}
