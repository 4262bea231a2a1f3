/*
 * fuzz_hdr_decode.c - libFuzzer harness for the HdrHistogram V2 decoder.
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Isrc \
 *         tests/fuzz/fuzz_hdr_decode.c src/stats/hdr.c src/stats/hdr_codec.c \
 *         -lz -lm -o fuzz_hdr_decode
 *   ./fuzz_hdr_decode -max_total_time=60 -malloc_limit_mb=64 tests/fuzz/corpus/hdr_decode
 *
 * The first input byte picks what the rest is:
 *   0 mod 3: a binary V2 compressed encoding (hdrc_decode);
 *   1 mod 3: its base64 text (hdrc_decode_base64, hdrc_base64_decode);
 *   2 mod 3: the inflated inner encoding (header + payload), which the
 *            harness deflates (level = first byte / 3 % 10) and wraps in an
 *            outer header, so the fuzzer reaches the payload parser without
 *            having to forge zlib checksums.
 * Every input also goes through hdrc_zigzag_decode at every offset.
 * The harness aborts when:
 *   - a failed decode leaves anything in the output histogram, or returns
 *     something other than -EINVAL / -ENOMEM;
 *   - a decoded histogram's counts are negative or do not sum to its
 *     total_count, or its geometry exceeds HDRC_MAX_COUNTS_LEN;
 *   - re-encoding a decoded histogram fails, or decoding that encoding does
 *     not give back an equal histogram of the same geometry;
 *   - a ZigZag varint decodes to a value whose encoding is not the same
 *     bytes (9-byte forms aside, every value has one encoding only when
 *     minimal; non-minimal inputs must at least round-trip to the value).
 */
#include "stats/hdr.h"
#include "stats/hdr_codec.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static void check_failed_output(int rc, const hdr_hist *h)
{
    if (rc != -EINVAL && rc != -ENOMEM)
        abort();
    if (h->counts != NULL || h->counts_len != 0 || h->total_count != 0)
        abort();
}

static void check_decoded(const hdr_hist *h)
{
    if (h->counts_len <= 0 || h->counts_len > HDRC_MAX_COUNTS_LEN || !h->counts)
        abort();
    int64_t sum = 0;
    for (int32_t i = 0; i < h->counts_len; i++) {
        if (h->counts[i] < 0)
            abort();
        if (__builtin_add_overflow(sum, h->counts[i], &sum))
            abort();
    }
    if (sum != h->total_count)
        abort();
    (void)hdr_value_at_percentile(h, 99.9);
    (void)hdr_mean(h);
    if (h->total_count > 0 && hdr_max(h) < hdr_value_at_percentile(h, 50) &&
        hdr_max(h) != 0)
        abort();

    /* Re-encode and decode again: the same histogram. */
    uint8_t *bin = NULL;
    size_t n = 0;
    if (hdrc_encode(h, &bin, &n) != 0)
        abort();
    hdr_hist back;
    if (hdrc_decode(bin, n, &back) != 0)
        abort();
    if (back.lowest != h->lowest || back.highest != h->highest || back.sigfigs != h->sigfigs ||
        back.counts_len != h->counts_len || !hdr_equal(&back, h) ||
        hdr_max(&back) != hdr_max(h) || hdr_min(&back) != hdr_min(h))
        abort();
    hdr_free(&back);
    free(bin);
}

static void decode_binary(const uint8_t *d, size_t n)
{
    hdr_hist h;
    memset(&h, 0x5a, sizeof h);
    int rc = hdrc_decode(d, n, &h);
    if (rc == 0)
        check_decoded(&h);
    else
        check_failed_output(rc, &h);
    hdr_free(&h);
}

static void decode_text(const uint8_t *d, size_t n)
{
    hdr_hist h;
    memset(&h, 0x5a, sizeof h);
    int rc = hdrc_decode_base64((const char *)d, n, &h);
    if (rc == 0)
        check_decoded(&h);
    else
        check_failed_output(rc, &h);
    hdr_free(&h);

    /* The base64 layer alone: decode, re-encode, compare (modulo the
     * non-canonical trailing bits, which the decoder ignores). */
    size_t cap = n / 4 * 3;
    uint8_t *out = malloc(cap + 1);
    if (!out)
        return;
    size_t outlen = 12345;
    rc = hdrc_base64_decode((const char *)d, n, out, cap, &outlen);
    if (rc == 0) {
        if (outlen > cap || (n > 0 && outlen + 2 < cap))
            abort();
        size_t tl = hdrc_base64_encoded_len(outlen);
        if (tl != n)
            abort();
        char *text = malloc(tl + 1);
        if (!text || hdrc_base64_encode(out, outlen, text, tl + 1) != 0)
            abort();
        uint8_t *again = malloc(cap + 1);
        size_t againlen = 0;
        if (!again || hdrc_base64_decode(text, tl, again, cap, &againlen) != 0 ||
            againlen != outlen || memcmp(again, out, outlen) != 0)
            abort();
        free(again);
        free(text);
    } else if (outlen != 0 || (rc != -EINVAL && rc != -ENOSPC)) {
        abort();
    }
    free(out);
}

static void decode_inner(const uint8_t *d, size_t n, int level)
{
    uLong bound = compressBound((uLong)n);
    uint8_t *enc = malloc(8 + bound);
    if (!enc)
        return;
    uLongf dlen = bound;
    if (compress2(enc + 8, &dlen, d, (uLong)n, level) != Z_OK)
        abort();
    uint32_t c = HDRC_COOKIE_V2_COMPRESSED;
    enc[0] = (uint8_t)(c >> 24), enc[1] = (uint8_t)(c >> 16), enc[2] = (uint8_t)(c >> 8),
    enc[3] = (uint8_t)c;
    enc[4] = (uint8_t)(dlen >> 24), enc[5] = (uint8_t)(dlen >> 16), enc[6] = (uint8_t)(dlen >> 8),
    enc[7] = (uint8_t)dlen;
    decode_binary(enc, 8 + dlen);
    free(enc);
}

static void zigzag_all(const uint8_t *d, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int64_t v;
        size_t used = hdrc_zigzag_decode(d + i, n - i, &v);
        if (used == 0) {
            if (n - i >= 9)
                abort(); /* 9 bytes always make a varint */
            continue;
        }
        if (used > 9 || used > n - i)
            abort();
        uint8_t b[9];
        size_t m = hdrc_zigzag_encode(v, b);
        int64_t w;
        if (m > used || hdrc_zigzag_decode(b, m, &w) != m || w != v)
            abort();
        if (m == used && memcmp(b, d + i, m) != 0)
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t mode = data[0];
    const uint8_t *d = data + 1;
    size_t n = size - 1;
    switch (mode % 3) {
    case 0:
        decode_binary(d, n);
        break;
    case 1:
        decode_text(d, n);
        break;
    default:
        decode_inner(d, n, (mode / 3) % 10);
        break;
    }
    zigzag_all(d, n < 64 ? n : 64);
    return 0;
}
