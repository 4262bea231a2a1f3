/*
 * test_grow.c - grow_array (util/grow.h) and hex_digit (util/hex.h).
 */
#include "util/grow.h"
#include "util/hex.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

/* Room starts at first and doubles until want fits; the contents stay. */
static void test_grow_doubles_from_first(void)
{
    uint32_t *v = NULL;
    size_t cap = 0;

    CHECK(grow_array(&v, &cap, 1, 4, sizeof *v) == 0);
    CHECK_EQ_U64(cap, 4);
    for (uint32_t i = 0; i < 4; i++)
        v[i] = i + 1;
    CHECK(grow_array(&v, &cap, 4, 4, sizeof *v) == 0); /* fits: unchanged */
    CHECK_EQ_U64(cap, 4);
    CHECK(grow_array(&v, &cap, 5, 4, sizeof *v) == 0);
    CHECK_EQ_U64(cap, 8);
    CHECK(grow_array(&v, &cap, 33, 4, sizeof *v) == 0);
    CHECK_EQ_U64(cap, 64);
    for (uint32_t i = 0; i < 4; i++)
        CHECK_EQ_U64(v[i], i + 1);
    free(v);
}

/* A size that cannot be had leaves the array and its room as they were. */
static void test_grow_overflow_unchanged(void)
{
    char *b = NULL;
    size_t cap = 0;

    CHECK(grow_array(&b, &cap, 10, 16, 1) == 0);
    memcpy(b, "abc", 4);
    char *was = b;
    CHECK(grow_array(&b, &cap, SIZE_MAX, 16, 1) == -ENOMEM);
    CHECK(grow_array(&b, &cap, SIZE_MAX / 4, 16, 8) == -ENOMEM);
    CHECK(b == was);
    CHECK_EQ_U64(cap, 16);
    CHECK_EQ_STR(b, "abc");
    free(b);
}

static void test_hex_digit(void)
{
    const char *digits = "0123456789abcdef", *upper = "ABCDEF";

    for (int i = 0; i < 16; i++)
        CHECK_EQ_I64(hex_digit((unsigned char)digits[i]), i);
    for (int i = 0; i < 6; i++)
        CHECK_EQ_I64(hex_digit((unsigned char)upper[i]), 10 + i);
    for (int c = 0; c < 256; c++)
        if (!strchr("0123456789abcdefABCDEF", c) || c == 0)
            CHECK_EQ_I64(hex_digit((unsigned char)c), -1);
}

int main(void)
{
    RUN(test_grow_doubles_from_first);
    RUN(test_grow_overflow_unchanged);
    RUN(test_hex_digit);
    return unit_done();
}
