/*
 * test_heap.c - the deadline min-heap (util/heap.h).
 *
 * Every test checks the heap's shape after each step (each entry's idx is
 * its place, no parent later than its child) and what it hands out against
 * a plain reference: the keys of the nodes that are in it, whose minimum
 * the top must have. Random runs mix every operation with many equal keys.
 */
#include "util/heap.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "unit.h"

typedef struct item {
    int tag;
    pc_heap_node hn;
} item;

/* The heap's invariants: indexes agree, and the min-heap order holds. */
static bool heap_ok(const pc_heap *h)
{
    if (h->len > h->cap)
        return false;
    for (uint32_t i = 0; i < h->len; i++) {
        if (h->v[i]->idx != i)
            return false;
        if (i > 0 && h->v[(i - 1) / 2]->key > h->v[i]->key)
            return false;
    }
    return true;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* The earliest key among the items in the heap, UINT64_MAX if none. */
static uint64_t ref_min(const pc_heap *h, const item *it, int n)
{
    uint64_t m = UINT64_MAX;

    for (int i = 0; i < n; i++)
        if (pc_heap_has(h, &it[i].hn) && it[i].hn.key < m)
            m = it[i].hn.key;
    return m;
}

static int ref_count(const pc_heap *h, const item *it, int n)
{
    int k = 0;

    for (int i = 0; i < n; i++)
        k += pc_heap_has(h, &it[i].hn);
    return k;
}

static void test_empty(void)
{
    pc_heap h;
    item a = {.tag = 1}, b = {.tag = 2}, z = {0}; /* zero-filled nodes: in no heap */

    pc_heap_init(&h);
    CHECK(pc_heap_top(&h) == NULL);
    CHECK(pc_heap_pop(&h) == NULL);
    pc_heap_remove(&h, &a.hn); /* in no heap: nothing */
    CHECK(!pc_heap_has(&h, &a.hn));
    CHECK_EQ_I64(h.len, 0);
    CHECK_EQ_I64(pc_heap_set(&h, &a.hn, 5), 0);
    CHECK(pc_heap_top(&h) == &a.hn);
    CHECK(PC_HEAP_ENTRY(pc_heap_top(&h), item, hn)->tag == 1);
    CHECK(pc_heap_pop(&h) == &a.hn);
    CHECK(!pc_heap_has(&h, &a.hn));
    CHECK(pc_heap_pop(&h) == NULL);
    /* A zero-filled node whose idx 0 names another's place is not in h. */
    CHECK_EQ_I64(pc_heap_set(&h, &b.hn, 9), 0);
    CHECK(!pc_heap_has(&h, &z.hn));
    pc_heap_remove(&h, &z.hn);
    CHECK(pc_heap_top(&h) == &b.hn && h.len == 1);
    CHECK_EQ_I64(pc_heap_set(&h, &z.hn, 3), 0); /* pushed, not taken for b */
    CHECK_EQ_I64(h.len, 2);
    CHECK(pc_heap_pop(&h) == &z.hn);
    CHECK(pc_heap_pop(&h) == &b.hn);
    pc_heap_free(&h);
    pc_heap_free(&h); /* twice is fine: it was reset */
}

/* Random keys pushed, then popped: the same keys, in sorted order. */
static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

static void test_pop_order_matches_sort(void)
{
    enum { N = 2000 };
    static item it[N];
    static uint64_t want[N];
    pc_heap h;

    pc_heap_init(&h);
    for (int i = 0; i < N; i++) {
        want[i] = rnd() % 500; /* many equal keys */
        CHECK_EQ_I64(pc_heap_set(&h, &it[i].hn, want[i]), 0);
    }
    CHECK(heap_ok(&h));
    CHECK(h.cap >= N); /* it grew from nothing */
    qsort(want, N, sizeof *want, cmp_u64);
    for (int i = 0; i < N; i++) {
        pc_heap_node *n = pc_heap_pop(&h);

        CHECK(n != NULL);
        CHECK_EQ_U64(n->key, want[i]);
        CHECK(!pc_heap_has(&h, n));
        if (i % 97 == 0)
            CHECK(heap_ok(&h));
    }
    CHECK(pc_heap_pop(&h) == NULL);
    pc_heap_free(&h);
}

static void test_update_earlier_and_later(void)
{
    item it[8] = {{0}};
    pc_heap h;

    pc_heap_init(&h);
    for (int i = 0; i < 8; i++) {
        it[i].tag = i;
        CHECK_EQ_I64(pc_heap_set(&h, &it[i].hn, 100 + 10 * (uint64_t)i), 0);
    }
    CHECK(pc_heap_top(&h) == &it[0].hn);
    /* The last becomes the earliest. */
    CHECK_EQ_I64(pc_heap_set(&h, &it[7].hn, 1), 0);
    CHECK(heap_ok(&h));
    CHECK(pc_heap_top(&h) == &it[7].hn);
    /* The earliest becomes the latest: the next one comes up. */
    CHECK_EQ_I64(pc_heap_set(&h, &it[7].hn, 1000), 0);
    CHECK(heap_ok(&h));
    CHECK(pc_heap_top(&h) == &it[0].hn);
    CHECK_EQ_I64(pc_heap_set(&h, &it[0].hn, 500), 0);
    CHECK(heap_ok(&h));
    CHECK(pc_heap_top(&h) == &it[1].hn);
    CHECK_EQ_I64(h.len, 8); /* re-keyed, not added twice */
    /* The same key again changes nothing. */
    CHECK_EQ_I64(pc_heap_set(&h, &it[1].hn, 110), 0);
    CHECK(pc_heap_top(&h) == &it[1].hn);
    static const int order[] = {1, 2, 3, 4, 5, 6, 0, 7};
    for (int i = 0; i < 8; i++) {
        pc_heap_node *n = pc_heap_pop(&h);

        CHECK(n != NULL);
        CHECK_EQ_I64(PC_HEAP_ENTRY(n, item, hn)->tag, order[i]);
    }
    pc_heap_free(&h);
}

static void test_remove_from_middle(void)
{
    enum { N = 31 };
    item it[N] = {{0}};
    pc_heap h;

    pc_heap_init(&h);
    for (int i = 0; i < N; i++) {
        CHECK_EQ_I64(pc_heap_set(&h, &it[i].hn, (uint64_t)(N - i)), 0);
    }
    /* Every third one, wherever it sits (leaves, inner nodes, the root). */
    for (int i = 0; i < N; i += 3) {
        pc_heap_remove(&h, &it[i].hn);
        CHECK(!pc_heap_has(&h, &it[i].hn));
        CHECK(heap_ok(&h));
    }
    pc_heap_remove(&h, &it[0].hn); /* again: nothing */
    CHECK_EQ_I64(h.len, N - (N + 2) / 3);
    uint64_t last = 0;
    for (pc_heap_node *n; (n = pc_heap_pop(&h));) {
        int i = (int)(PC_HEAP_ENTRY(n, item, hn) - it);

        CHECK(i % 3 != 0);
        CHECK(n->key >= last);
        last = n->key;
    }
    pc_heap_free(&h);
}

static void test_equal_keys(void)
{
    enum { N = 50 };
    item it[N] = {{0}};
    bool seen[N] = {false};
    pc_heap h;

    pc_heap_init(&h);
    for (int i = 0; i < N; i++) {
        CHECK_EQ_I64(pc_heap_set(&h, &it[i].hn, 7), 0);
    }
    pc_heap_remove(&h, &it[N / 2].hn);
    CHECK(heap_ok(&h));
    for (int i = 0; i < N - 1; i++) {
        pc_heap_node *n = pc_heap_pop(&h);
        int k;

        CHECK(n != NULL);
        CHECK_EQ_U64(n->key, 7);
        k = (int)(PC_HEAP_ENTRY(n, item, hn) - it);
        CHECK(k != N / 2 && !seen[k]); /* each one once */
        seen[k] = true;
    }
    CHECK(pc_heap_top(&h) == NULL);
    pc_heap_free(&h);
}

/* Every operation at random against the reference. */
static void test_random_against_reference(void)
{
    enum { N = 64, STEPS = 20000 }; /* 6 levels deep; the reference is O(N) a step */
    static item it[N];
    pc_heap h;

    pc_heap_init(&h);
    for (int i = 0; i < N; i++)
    for (int s = 0; s < STEPS; s++) {
        item *x = &it[rnd() % N];
        uint64_t r = rnd() % 10;

        if (r < 5) {
            CHECK_EQ_I64(pc_heap_set(&h, &x->hn, rnd() % 1000), 0);
        } else if (r < 7) {
            pc_heap_remove(&h, &x->hn);
        } else {
            uint64_t m = ref_min(&h, it, N);
            pc_heap_node *n = pc_heap_pop(&h);

            if (m == UINT64_MAX) {
                CHECK(n == NULL);
            } else {
                CHECK(n != NULL);
                CHECK_EQ_U64(n->key, m);
            }
        }
        CHECK_EQ_I64(h.len, ref_count(&h, it, N));
        if (h.len)
            CHECK_EQ_U64(pc_heap_top(&h)->key, ref_min(&h, it, N));
        if (s % 101 == 0)
            CHECK(heap_ok(&h));
    }
    pc_heap_free(&h);
    for (int i = 0; i < N; i++)
        CHECK(!pc_heap_has(&h, &it[i].hn)); /* free let go of them */
    CHECK_EQ_I64(pc_heap_set(&h, &it[5].hn, 1), 0); /* and h is as new */
    CHECK(pc_heap_pop(&h) == &it[5].hn && pc_heap_top(&h) == NULL);
    pc_heap_free(&h);
}

/* Reserved room is there; growth keeps every entry. */
static void test_reserve_and_growth(void)
{
    enum { N = 1000 };
    static item it[N];
    pc_heap h;

    pc_heap_init(&h);
    CHECK_EQ_I64(pc_heap_reserve(&h, 100), 0);
    CHECK(h.cap >= 100);
    CHECK_EQ_I64(pc_heap_reserve(&h, 10), 0); /* never shrinks */
    CHECK(h.cap >= 100);
    CHECK(pc_heap_reserve(&h, PC_HEAP_NONE) < 0); /* no such index */
    CHECK(h.cap >= 100 && h.len == 0);
    for (int i = 0; i < N; i++) {
        CHECK_EQ_I64(pc_heap_set(&h, &it[i].hn, (uint64_t)(i * 7919 % N)), 0);
    }
    CHECK_EQ_I64(h.len, N);
    CHECK(heap_ok(&h));
    for (int i = 0; i < N; i++) {
        pc_heap_node *n = pc_heap_pop(&h);

        CHECK(n != NULL);
        CHECK_EQ_U64(n->key, (uint64_t)i); /* 7919 is prime: a permutation */
    }
    pc_heap_free(&h);
}

int main(void)
{
    RUN(test_empty);
    RUN(test_pop_order_matches_sort);
    RUN(test_update_earlier_and_later);
    RUN(test_remove_from_middle);
    RUN(test_equal_keys);
    RUN(test_random_against_reference);
    RUN(test_reserve_and_growth);
    return unit_done();
}
