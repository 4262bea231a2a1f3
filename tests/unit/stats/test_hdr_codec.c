/*
 * test_hdr_codec.c - unit tests for src/stats/hdr_codec.c.
 *
 * Encoded strings and expected numbers marked V1..V8 are from
 * tests/data/hdrhistogram/vectors.txt. The encoder is tested by round
 * trip (decode(encode(h)) equals h) and by agreeing with the vectors' data,
 * never byte for byte (see the CAVEAT there).
 */
#include "stats/hdr_codec.h"
#include "stats/hdr.h"
#include "unit.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <zlib.h>

static const char V1_STR[] =
    "HISTFAAAACl4nJNpmSzMwMBgyAABzFCaEURcm7yEwf4DROA8/4I5jNM7mJgAlWkH9g==";
static const char V2_STR[] =
    "HISTFAAAAP94nJNpmSzMwCByigECmKE0I4i4NnkJg/0HiMB5/gVzGD8aM/3lZ7rPyTSbjektC9N7FqaHzEzbmZi2wh"
    "CEvZKRaSYj02wwiYng4tFM3lDoC2dhhwh5UyZlJlUMjClCmgpMEUUmQSZ+IBZEojFFCMvQRwUxenmZ2MGQFUqz4+CT"
    "o4I2pg4dFdQylZWJkYkZCaPyMEUIydPLjMHrssFixuB12XD0HRAwMsFJgkwilZHJHHKmjzp41MFDOjhYmFiQEUEmMW"
    "qGsvKBd8Fwd/Co/waTC9jYOMAIiSJRhLbKh5x9Q87Bo/YNbfsoM4CPhw+IIJAkxnDXN+QcTIpyAPnGh6k=";
static const char V3_STR[] = "HISTFAAAACl4nJNpmSzMwMDAxQABzFCaEUzOmNZg/wEi0NzIyPSYlWmpGBMAh4gG4A==";
static const char V4_LINE5[] =
    "HISTFAAAAEV42pNpmSzMwMCgyAABTBDKT4GBgdnNYMcCBvsPEBEJISEuATEZMQ4uASkhIR4nrxg9v2lMaxhvMekILGZk"
    "KmcCAEf2CsI=";
static const char V6A_STR[] = "HISTFAAAACV4nJNpmSzMwMDAwQABzFCaEUrp2H+AsI4zMh1lZEpkAgBdIQSk";
static const char V6B_STR[] = "HISTFAAAAC14nJNpmSzMwMDAywABzFCaEURcm7yEwf4DRGCpMlMskyvTZWam+4xMAKW6B74=";

/* ---- helpers ------------------------------------------------------------ */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
    /* xorshift64* */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dull;
}

static int decode_str(const char *s, hdr_hist *h)
{
    return hdrc_decode_base64(s, strlen(s), h);
}

/* base64 text -> binary, heap. */
static uint8_t *unbase64(const char *s, size_t *n)
{
    size_t len = strlen(s);
    uint8_t *b = malloc(len / 4 * 3 + 1);
    if (!b)
        return NULL;
    if (hdrc_base64_decode(s, len, b, len / 4 * 3, n) != 0) {
        free(b);
        return NULL;
    }
    return b;
}

static void be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static void be64(uint8_t *p, uint64_t v)
{
    be32(p, (uint32_t)(v >> 32));
    be32(p + 4, (uint32_t)v);
}

/* Builds an inner V2 encoding (40-byte header, then the given varints) into
 * buf (room for 40 + 9 * nvals); returns its length. payload_len == -1 means
 * "the true payload length". */
static size_t make_inner(uint8_t *buf, uint32_t cookie, int32_t payload_len, int32_t sigfigs,
                         int64_t lowest, int64_t highest, const int64_t *vals, size_t nvals)
{
    size_t p = 40;
    for (size_t i = 0; i < nvals; i++)
        p += hdrc_zigzag_encode(vals[i], buf + p);
    be32(buf, cookie);
    be32(buf + 4, (uint32_t)(payload_len == -1 ? (int32_t)(p - 40) : payload_len));
    be32(buf + 8, 0);
    be32(buf + 12, (uint32_t)sigfigs);
    be64(buf + 16, (uint64_t)lowest);
    be64(buf + 24, (uint64_t)highest);
    double one = 1.0;
    uint64_t bits;
    memcpy(&bits, &one, 8);
    be64(buf + 32, bits);
    return p;
}

/* Wraps inner bytes: outer cookie, deflated length (dlen_adjust added to
 * the true length), zlib at the given level. Heap, *n bytes. */
static uint8_t *make_outer(const uint8_t *inner, size_t inner_len, int level, uint32_t cookie,
                           int32_t dlen_adjust, size_t *n)
{
    uLong bound = compressBound((uLong)inner_len);
    uint8_t *out = malloc(8 + bound);
    if (!out)
        return NULL;
    uLongf dlen = bound;
    if (compress2(out + 8, &dlen, inner, (uLong)inner_len, level) != Z_OK) {
        free(out);
        return NULL;
    }
    be32(out, cookie);
    be32(out + 4, (uint32_t)((int32_t)dlen + dlen_adjust));
    *n = 8 + dlen;
    return out;
}

/* Builds the encoding of a synthetic inner payload and decodes it. */
static int decode_synthetic(uint32_t cookie, int32_t payload_len, int32_t sigfigs, int64_t lowest,
                            int64_t highest, const int64_t *vals, size_t nvals, int level,
                            hdr_hist *h)
{
    uint8_t inner[40 + 9 * 16];
    if (nvals > 16)
        return -999;
    size_t il = make_inner(inner, cookie, payload_len, sigfigs, lowest, highest, vals, nvals);
    size_t n;
    uint8_t *enc = make_outer(inner, il, level, HDRC_COOKIE_V2_COMPRESSED, 0, &n);
    if (!enc)
        return -998;
    int rc = hdrc_decode(enc, n, h);
    free(enc);
    return rc;
}

/* decode(encode(h)) must equal h, via both the binary and the text form. */
static int round_trip_ok(const hdr_hist *h)
{
    uint8_t *bin = NULL;
    size_t n = 0;
    char *text = NULL;
    hdr_hist d1, d2;
    int ok = 0;
    memset(&d1, 0, sizeof d1);
    memset(&d2, 0, sizeof d2);
    if (hdrc_encode(h, &bin, &n) != 0)
        goto out;
    if (hdrc_encode_base64(h, &text) != 0)
        goto out;
    if (strncmp(text, "HISTFAA", 7) != 0)
        goto out;
    if (hdrc_decode(bin, n, &d1) != 0 || decode_str(text, &d2) != 0)
        goto out;
    if (d1.lowest != h->lowest || d1.highest != h->highest || d1.sigfigs != h->sigfigs ||
        d1.counts_len != h->counts_len)
        goto out;
    if (!hdr_equal(&d1, h) || !hdr_equal(&d2, h))
        goto out;
    if (memcmp(d1.counts, h->counts, (size_t)h->counts_len * sizeof *h->counts) != 0)
        goto out;
    /* Slot 0 is ambiguous (see hdr_codec.h): with lowest >= 2 a decoded
     * slot-0-only histogram reports max 2^unit_magnitude - 1 even when only
     * zeros were recorded. */
    int64_t want_max = hdr_max(h);
    if (h->total_count > 0 && want_max == 0)
        want_max = (INT64_C(1) << h->unit_magnitude) - 1;
    if (d1.total_count != h->total_count || hdr_max(&d1) != want_max ||
        hdr_min(&d1) != hdr_min(h))
        goto out;
    ok = 1;
out:
    free(bin);
    free(text);
    hdr_free(&d1);
    hdr_free(&d2);
    return ok;
}

/* ---- base64 and ZigZag (V8) ---------------------------------------------- */

static void test_base64_v8(void)
{
    static const struct {
        const char *plain, *b64;
    } v[] = {
        {"any carnal pleasur", "YW55IGNhcm5hbCBwbGVhc3Vy"},
        {"any carnal pleasure.", "YW55IGNhcm5hbCBwbGVhc3VyZS4="},
        {"any carnal pleasure", "YW55IGNhcm5hbCBwbGVhc3VyZQ=="},
        {"Man", "TWFu"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        char enc[64];
        size_t pl = strlen(v[i].plain);
        CHECK_EQ_I64(hdrc_base64_encoded_len(pl), strlen(v[i].b64));
        CHECK_EQ_I64(hdrc_base64_encode((const uint8_t *)v[i].plain, pl, enc, sizeof enc), 0);
        CHECK_EQ_STR(enc, v[i].b64);
        uint8_t dec[64];
        size_t n = 99;
        size_t bl = strlen(v[i].b64);
        CHECK_EQ_I64(hdrc_base64_decode(v[i].b64, bl, dec, bl / 4 * 3, &n), 0);
        CHECK_EQ_I64(n, pl);
        CHECK(memcmp(dec, v[i].plain, pl) == 0);
    }
    CHECK_EQ_I64(hdrc_base64_encoded_len(0), 0);
    CHECK_EQ_I64(hdrc_base64_encoded_len(1), 4);
    CHECK_EQ_I64(hdrc_base64_encoded_len(3), 4);
    CHECK_EQ_I64(hdrc_base64_encoded_len(4), 8);
    CHECK_EQ_I64(hdrc_base64_encoded_len(SIZE_MAX), SIZE_MAX);
    char e[8];
    CHECK_EQ_I64(hdrc_base64_encode((const uint8_t *)"", 0, e, 1), 0);
    CHECK_EQ_STR(e, "");
    /* Room for the text but not the NUL. */
    CHECK_EQ_I64(hdrc_base64_encode((const uint8_t *)"Man", 3, e, 4), -ENOSPC);
    CHECK_EQ_I64(hdrc_base64_encode((const uint8_t *)"Man", 3, e, 5), 0);
}

static void test_base64_decode_rejects(void)
{
    uint8_t out[64];
    size_t n = 7;
    /* input_len % 4 != 0, input_len < 4 */
    CHECK_EQ_I64(hdrc_base64_decode("TWFu", 3, out, sizeof out, &n), -EINVAL);
    CHECK_EQ_I64(n, 0);
    CHECK_EQ_I64(hdrc_base64_decode("TWFuT", 5, out, sizeof out, &n), -EINVAL);
    CHECK_EQ_I64(hdrc_base64_decode("", 0, out, sizeof out, &n), -EINVAL);
    CHECK_EQ_I64(hdrc_base64_decode("TW", 2, out, sizeof out, &n), -EINVAL);
    /* out_len != input_len / 4 * 3: less room is refused, even when the
     * padded result would fit. */
    CHECK_EQ_I64(hdrc_base64_decode("TWFu", 4, out, 2, &n), -ENOSPC);
    CHECK_EQ_I64(hdrc_base64_decode("TQ==", 4, out, 2, &n), -ENOSPC);
    CHECK_EQ_I64(hdrc_base64_decode("TQ==", 4, out, 3, &n), 0);
    CHECK_EQ_I64(n, 1);
    CHECK_EQ_I64(out[0], 'M');
    /* Characters outside the alphabet, misplaced padding. */
    CHECK_EQ_I64(hdrc_base64_decode("TW u", 4, out, sizeof out, &n), -EINVAL);
    CHECK_EQ_I64(hdrc_base64_decode("TW-u", 4, out, sizeof out, &n), -EINVAL);
    CHECK_EQ_I64(hdrc_base64_decode("TW\0u", 4, out, sizeof out, &n), -EINVAL);
    CHECK_EQ_I64(hdrc_base64_decode("TWFu\n", 5, out, sizeof out, &n), -EINVAL);
    CHECK_EQ_I64(hdrc_base64_decode("TW=u", 4, out, sizeof out, &n), -EINVAL);
    CHECK_EQ_I64(hdrc_base64_decode("T===", 4, out, sizeof out, &n), -EINVAL);
    CHECK_EQ_I64(hdrc_base64_decode("====", 4, out, sizeof out, &n), -EINVAL);
    CHECK_EQ_I64(hdrc_base64_decode("TQ==TWFu", 8, out, sizeof out, &n), -EINVAL);
    CHECK_EQ_I64(hdrc_base64_decode("\xc3\xa9xx", 4, out, sizeof out, &n), -EINVAL);
    CHECK_EQ_I64(n, 0);
}

static void test_base64_round_trip_all_bytes(void)
{
    uint8_t in[256], back[258];
    char text[400];
    for (int i = 0; i < 256; i++)
        in[i] = (uint8_t)(255 - i);
    for (size_t len = 1; len <= 256; len++) {
        CHECK_EQ_I64(hdrc_base64_encode(in, len, text, sizeof text), 0);
        size_t tl = strlen(text), n = 0;
        CHECK_EQ_I64(tl, hdrc_base64_encoded_len(len));
        CHECK_EQ_I64(hdrc_base64_decode(text, tl, back, sizeof back, &n), 0);
        CHECK_EQ_I64(n, len);
        CHECK(memcmp(in, back, len) == 0);
    }
}

static void test_zigzag_v8(void)
{
    static const struct {
        int64_t v;
        size_t n;
        uint8_t b[9];
    } v[] = {
        {0, 1, {0x00}},
        {-1, 1, {0x01}},
        {1, 1, {0x02}},
        {-1000, 2, {0xcf, 0x0f}},
        {10000, 3, {0xa0, 0x9c, 0x01}},
        {INT64_MIN, 9, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
        {INT64_MAX, 9, {0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
        {63, 1, {0x7e}},
        {-64, 1, {0x7f}},
        {64, 2, {0x80, 0x01}},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        uint8_t b[16];
        memset(b, 0xaa, sizeof b);
        CHECK_EQ_I64(hdrc_zigzag_encode(v[i].v, b), v[i].n);
        CHECK(memcmp(b, v[i].b, v[i].n) == 0);
        CHECK_EQ_I64(b[v[i].n], 0xaa);
        int64_t back = 12345;
        CHECK_EQ_I64(hdrc_zigzag_decode(b, v[i].n, &back), v[i].n);
        CHECK_EQ_I64(back, v[i].v);
        /* Cut short by one byte: not a value. */
        back = 12345;
        CHECK_EQ_I64(hdrc_zigzag_decode(b, v[i].n - 1, &back), 0);
        CHECK_EQ_I64(back, 12345);
    }
    /* Round trip over magnitudes, both signs (test_zig_zag_codec's values
     * and everything between). */
    for (int bit = 0; bit < 64; bit++) {
        /* Wrapping arithmetic: bit 63 gives INT64_MIN and its neighbours. */
        uint64_t base = UINT64_C(1) << bit;
        int64_t cands[] = {(int64_t)base, (int64_t)(base - 1), (int64_t)(0 - base),
                           (int64_t)(1 - base), (int64_t)(UINT64_C(0x7fffffffffffffff) - base)};
        for (size_t j = 0; j < sizeof cands / sizeof cands[0]; j++) {
            uint8_t b[9];
            int64_t back;
            size_t n = hdrc_zigzag_encode(cands[j], b);
            CHECK(n >= 1 && n <= 9);
            CHECK_EQ_I64(hdrc_zigzag_decode(b, n, &back), n);
            CHECK_EQ_I64(back, cands[j]);
        }
    }
    /* The 9th byte is taken whole even with its top bit set; the decoder
     * never reads a 10th. */
    uint8_t ten[10] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
    int64_t v9;
    CHECK_EQ_I64(hdrc_zigzag_decode(ten, 10, &v9), 9);
    CHECK_EQ_I64(v9, INT64_C(1) << 62); /* u = 0x80 << 56 = 2^63: zigzag 2^62 */
}

/* ---- vectors ------------------------------------------------------------ */

static void test_v1_c_encoder_quirk(void)
{
    /* First prove the vector carries the quirk: inflated, its header's
     * payload_len is 49 = 40 + 9 while only 9 payload bytes follow. */
    size_t n = 0;
    uint8_t *bin = unbase64(V1_STR, &n);
    CHECK(bin != NULL);
    CHECK_EQ_I64(n, 49);
    CHECK_EQ_I64(bin[8], 0x78);
    CHECK_EQ_I64(bin[9], 0x9c);
    uint8_t inner[256];
    uLongf il = sizeof inner;
    CHECK_EQ_I64(uncompress(inner, &il, bin + 8, (uLong)(n - 8)), Z_OK);
    CHECK_EQ_I64(il, 49);
    CHECK_EQ_I64(((uint32_t)inner[4] << 24) | ((uint32_t)inner[5] << 16) |
                     ((uint32_t)inner[6] << 8) | inner[7],
                 49);

    hdr_hist h;
    CHECK_EQ_I64(hdrc_decode(bin, n, &h), 0);
    free(bin);
    CHECK_EQ_I64(h.lowest, 1);
    CHECK_EQ_I64(h.highest, 3600000000LL);
    CHECK_EQ_I64(h.sigfigs, 3);
    CHECK_EQ_I64(h.counts_len, 23552);
    CHECK_EQ_I64(h.total_count, 10001);
    CHECK_EQ_I64(h.counts[1000], 10000);
    CHECK_EQ_I64(h.counts[17909], 1);
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 30), 1000);
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 99), 1000);
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 99.99), 1000);
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 99.999), 100007935);
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 100), 100007935);
    CHECK(fabs((double)hdr_value_at_percentile(&h, 99.999) - 1e8) <= 1e8 * 0.001);
    CHECK_EQ_I64(hdr_min(&h), 1000);
    CHECK_EQ_I64(hdr_max(&h), 100007935);

    /* Same as recording the data. */
    hdr_hist r;
    CHECK_EQ_I64(hdr_init(&r, 1, 3600000000LL, 3), 0);
    CHECK(hdr_record_n(&r, 1000, 10000));
    CHECK(hdr_record(&r, 100000000));
    CHECK(hdr_equal(&h, &r));
    /* And the text form gives the same. */
    hdr_hist t;
    CHECK_EQ_I64(decode_str(V1_STR, &t), 0);
    CHECK(hdr_equal(&t, &r));
    CHECK(round_trip_ok(&h));
    hdr_free(&t);
    hdr_free(&r);
    hdr_free(&h);
}

static void test_v2_corrected(void)
{
    hdr_hist h;
    CHECK_EQ_I64(decode_str(V2_STR, &h), 0);
    CHECK_EQ_I64(h.lowest, 1);
    CHECK_EQ_I64(h.highest, 3600000000LL);
    CHECK_EQ_I64(h.sigfigs, 3);
    CHECK_EQ_I64(h.total_count, 20000);
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 30), 1000);
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 50), 1000);
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 75), 50003967);
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 90), 80019455);
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 99), 98041855);
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 99.999), 100007935);
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 100), 100007935);
    CHECK_EQ_I64(hdr_max(&h), 100007935);

    hdr_hist r;
    CHECK_EQ_I64(hdr_init(&r, 1, 3600000000LL, 3), 0);
    for (int i = 0; i < 10000; i++)
        CHECK(hdr_record_corrected(&r, 1000, 10000));
    CHECK(hdr_record_corrected(&r, 100000000, 10000));
    CHECK(hdr_equal(&h, &r));
    CHECK(round_trip_ok(&h));
    hdr_free(&r);
    hdr_free(&h);
}

static void test_v3_three_values(void)
{
    hdr_hist h;
    CHECK_EQ_I64(decode_str(V3_STR, &h), 0);
    CHECK_EQ_I64(h.lowest, 1);
    CHECK_EQ_I64(h.highest, 10000000);
    CHECK_EQ_I64(h.sigfigs, 3);
    CHECK_EQ_I64(h.bucket_count, 14);
    CHECK_EQ_I64(h.sub_bucket_count, 2048);
    CHECK_EQ_I64(h.total_count, 3);
    static const int64_t lo[3] = {139520, 187008, 477440}, hi[3] = {139647, 187135, 477695};
    int found = 0;
    for (int32_t i = 0; i < h.counts_len; i++) {
        if (h.counts[i] == 0)
            continue;
        CHECK(found < 3);
        CHECK_EQ_I64(h.counts[i], 1);
        CHECK_EQ_I64(hdr_value_at_index(&h, i), lo[found]);
        CHECK_EQ_I64(hdr_highest_equivalent(&h, hdr_value_at_index(&h, i)), hi[found]);
        found++;
    }
    CHECK_EQ_I64(found, 3);
    CHECK_NEAR(hdr_mean(&h), 268074.667, 0.0005);
    CHECK_NEAR(hdr_stddev(&h), 149397.390, 0.0005);
    CHECK_EQ_I64(hdr_max(&h), 477695);
    CHECK_EQ_I64(hdr_min(&h), 139520);
    CHECK(round_trip_ok(&h));
    hdr_free(&h);
}

static void test_v4_line5_java_level9(void)
{
    size_t n = 0;
    uint8_t *bin = unbase64(V4_LINE5, &n);
    CHECK(bin != NULL);
    CHECK_EQ_I64(bin[8], 0x78);
    CHECK_EQ_I64(bin[9], 0xda); /* BEST_COMPRESSION */
    free(bin);

    hdr_hist h;
    CHECK_EQ_I64(decode_str(V4_LINE5, &h), 0);
    CHECK_EQ_I64(h.lowest, 20000);
    CHECK_EQ_I64(h.highest, 3600000000000LL);
    CHECK_EQ_I64(h.sigfigs, 2);
    CHECK_EQ_I64(h.unit_magnitude, 14);
    CHECK_EQ_I64(h.counts_len, 2816);
    CHECK_EQ_I64(h.total_count, 741);
    CHECK_EQ_I64(hdr_max(&h), 2768895);
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 50), 344063);
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 90), 376831);
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 99), 409599);
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 99.9), 1769471);
    CHECK_EQ_I64(hdr_value_at_percentile(&h, 100), 2768895);
    CHECK(round_trip_ok(&h));
    hdr_free(&h);
}

static void test_v6_other_ports(void)
{
    hdr_hist h;
    CHECK_EQ_I64(decode_str(V6A_STR, &h), 0);
    CHECK_EQ_I64(h.lowest, 1);
    CHECK_EQ_I64(h.highest, 300);
    CHECK_EQ_I64(h.sigfigs, 3);
    CHECK_EQ_I64(h.total_count, 3);
    CHECK_EQ_I64(hdr_count_at_value(&h, 100), 1);
    CHECK_EQ_I64(hdr_count_at_value(&h, 200), 1);
    CHECK_EQ_I64(hdr_count_at_value(&h, 250), 1);
    hdr_hist r;
    CHECK_EQ_I64(hdr_init(&r, 1, 300, 3), 0);
    CHECK(hdr_record(&r, 100) && hdr_record(&r, 200) && hdr_record(&r, 250));
    CHECK(hdr_equal(&h, &r));
    CHECK(round_trip_ok(&h));
    hdr_free(&r);
    hdr_free(&h);

    CHECK_EQ_I64(decode_str(V6B_STR, &h), 0);
    CHECK_EQ_I64(h.highest, 3600000000LL);
    CHECK_EQ_I64(h.sigfigs, 3);
    CHECK_EQ_I64(h.total_count, 5);
    static const int64_t lows[5] = {2470, 2566, 2638, 3108, 3334};
    int k = 0;
    for (int32_t i = 0; i < h.counts_len; i++) {
        if (!h.counts[i])
            continue;
        CHECK(k < 5);
        CHECK_EQ_I64(h.counts[i], 1);
        CHECK_EQ_I64(hdr_value_at_index(&h, i), lows[k]);
        k++;
    }
    CHECK_EQ_I64(k, 5);
    CHECK_EQ_I64(hdr_max(&h), 3335);
    CHECK_EQ_I64(hdr_init(&r, 1, 3600000000LL, 3), 0);
    static const int64_t rec[5] = {3335, 3108, 2638, 2567, 2470};
    for (int i = 0; i < 5; i++)
        CHECK(hdr_record(&r, rec[i]));
    CHECK(hdr_equal(&h, &r));
    hdr_free(&r);
    hdr_free(&h);
}

/* Java writes a lone empty slot as 0, C as -1; zlib levels differ. */
static void test_lone_zero_both_ways_and_levels(void)
{
    const int64_t java[] = {-5, 7, 0, 3, -2, 1};  /* slots 5:7, 6:-, 7:3, 10:1 */
    const int64_t c[] = {-5, 7, -1, 3, -2, 1};
    const int levels[] = {0, 1, 6, 9, Z_DEFAULT_COMPRESSION};
    for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++) {
        hdr_hist a, b;
        CHECK_EQ_I64(decode_synthetic(HDRC_COOKIE_V2, -1, 3, 1, 1000000, java, 6, levels[l], &a),
                     0);
        CHECK_EQ_I64(decode_synthetic(HDRC_COOKIE_V2, -1, 3, 1, 1000000, c, 6, levels[l], &b), 0);
        CHECK(hdr_equal(&a, &b));
        CHECK_EQ_I64(a.total_count, 11);
        CHECK_EQ_I64(a.counts[5], 7);
        CHECK_EQ_I64(a.counts[6], 0);
        CHECK_EQ_I64(a.counts[7], 3);
        CHECK_EQ_I64(a.counts[10], 1);
        CHECK_EQ_I64(hdr_max(&a), 10);
        CHECK_EQ_I64(hdr_min(&a), 5);
        hdr_free(&a);
        hdr_free(&b);
    }
    /* The V1 quirk in general: payload_len counting the header too. */
    hdr_hist q;
    CHECK_EQ_I64(decode_synthetic(HDRC_COOKIE_V2, 40 + 5, 3, 1, 1000000, java, 6, 9, &q), 0);
    CHECK_EQ_I64(q.total_count, 11);
    hdr_free(&q);
    /* Empty payload: an empty histogram. */
    CHECK_EQ_I64(decode_synthetic(HDRC_COOKIE_V2, -1, 2, 1000, 1000000000, NULL, 0, 6, &q), 0);
    CHECK_EQ_I64(q.total_count, 0);
    CHECK_EQ_I64(q.lowest, 1000);
    CHECK_EQ_I64(hdr_max(&q), 0);
    hdr_free(&q);
    /* Java's cookie word-size bits are ignored, as Java does. */
    CHECK_EQ_I64(decode_synthetic(0x1c849303u, -1, 3, 1, 1000000, c, 6, 6, &q), 0);
    CHECK_EQ_I64(q.total_count, 11);
    hdr_free(&q);
}

/* ---- encoder round trips ------------------------------------------------ */

static void test_round_trip_random(void)
{
    static const struct {
        int64_t lowest, highest;
        int sigfigs;
    } g[] = {
        {1, 86400000000000LL, 3}, /* pacer's */
        {1, 3600000000LL, 3},
        {1, 3600000000000LL, 2},
        {1000, 60000000000LL, 3},
        {20000, 3600000000000LL, 2},
        {1, 1000, 1},
        {1, 2, 1},
        {1, 100000, 5},
        {1, 10000000, 4},
        {1, INT64_MAX, 3},
        {INT64_C(1) << 40, INT64_MAX, 2},
    };
    for (size_t gi = 0; gi < sizeof g / sizeof g[0]; gi++) {
        for (int round = 0; round < 6; round++) {
            hdr_hist h;
            CHECK_EQ_I64(hdr_init(&h, g[gi].lowest, g[gi].highest, g[gi].sigfigs), 0);
            int nvals = round == 0 ? 1 : (int)(rng() % 3000);
            for (int i = 0; i < nvals; i++) {
                /* Log-uniform values across the whole range. */
                int bits = (int)(rng() % 64);
                int64_t v = bits == 0 ? 0 : (int64_t)(rng() >> (64 - bits) >> 1);
                if (v > h.highest)
                    v = h.highest;
                int64_t cnt = (round % 3 == 2) ? (int64_t)(rng() % 1000000000000ull) + 1 : 1;
                CHECK(hdr_record_n(&h, v, cnt));
            }
            CHECK(round_trip_ok(&h));
            hdr_free(&h);
        }
    }
}

static void test_round_trip_edges(void)
{
    hdr_hist h;
    /* Empty. */
    CHECK_EQ_I64(hdr_init(&h, 1, 86400000000000LL, 3), 0);
    CHECK(round_trip_ok(&h));
    char *text = NULL;
    CHECK_EQ_I64(hdrc_encode_base64(&h, &text), 0);
    CHECK(strncmp(text, "HISTFAA", 7) == 0);
    hdr_hist d;
    CHECK_EQ_I64(decode_str(text, &d), 0);
    CHECK_EQ_I64(d.total_count, 0);
    CHECK_EQ_I64(hdr_max(&d), 0);
    CHECK_EQ_I64(hdr_min(&d), INT64_MAX);
    free(text);
    hdr_free(&d);

    /* A single huge value: one long zero run then one count. */
    CHECK(hdr_record(&h, 86400000000000LL));
    CHECK(round_trip_ok(&h));
    /* Plus zero: a value in slot 0, a run, the top slot. */
    CHECK(hdr_record(&h, 0));
    CHECK(round_trip_ok(&h));
    hdr_free(&h);

    /* Huge values and huge counts. */
    CHECK_EQ_I64(hdr_init(&h, 1, INT64_MAX, 3), 0);
    CHECK(hdr_record_n(&h, INT64_MAX, INT64_MAX / 4));
    CHECK(hdr_record_n(&h, 1, INT64_MAX / 4));
    CHECK(hdr_record_n(&h, 1000000, INT64_MAX / 4));
    CHECK(round_trip_ok(&h));
    CHECK_EQ_I64(hdr_max(&h), INT64_MAX);
    hdr_free(&h);

    /* Alternating occupied and empty slots (every run is a lone zero), and
     * long runs of adjacent counts. */
    CHECK_EQ_I64(hdr_init(&h, 1, 1000000, 3), 0);
    for (int64_t v = 0; v < 5000; v += 2)
        CHECK(hdr_record(&h, v));
    for (int64_t v = 100000; v < 101000; v++)
        CHECK(hdr_record_n(&h, v, v));
    CHECK(round_trip_ok(&h));
    hdr_free(&h);

    /* Every slot occupied, at the largest sigfigs that decodes. */
    CHECK_EQ_I64(hdr_init(&h, 1, 10000000, 4), 0);
    for (int32_t i = 0; i < h.counts_len; i++)
        h.counts[i] = i + 1, h.total_count += i + 1;
    h.max_value = hdr_value_at_index(&h, h.counts_len - 1);
    h.min_value = 1;
    CHECK(round_trip_ok(&h));
    hdr_free(&h);
}

static void test_encoder_header(void)
{
    hdr_hist h;
    CHECK_EQ_I64(hdr_init(&h, 1000, 60000000000LL, 2), 0);
    CHECK(hdr_record_n(&h, 123456, 3));
    uint8_t *bin = NULL;
    size_t n = 0;
    CHECK_EQ_I64(hdrc_encode(&h, &bin, &n), 0);
    CHECK(n > 8);
    CHECK_EQ_I64(((uint32_t)bin[0] << 24) | ((uint32_t)bin[1] << 16) | ((uint32_t)bin[2] << 8) |
                     bin[3],
                 HDRC_COOKIE_V2_COMPRESSED);
    CHECK_EQ_I64(((uint32_t)bin[4] << 24) | ((uint32_t)bin[5] << 16) | ((uint32_t)bin[6] << 8) |
                     bin[7],
                 n - 8);
    uint8_t inner[4096];
    uLongf il = sizeof inner;
    CHECK_EQ_I64(uncompress(inner, &il, bin + 8, (uLong)(n - 8)), Z_OK);
    CHECK(il > 40);
    CHECK_EQ_I64(((uint32_t)inner[0] << 24) | ((uint32_t)inner[1] << 16) |
                     ((uint32_t)inner[2] << 8) | inner[3],
                 HDRC_COOKIE_V2);
    /* payload_len is the payload alone (not the C quirk). */
    CHECK_EQ_I64(((uint32_t)inner[4] << 24) | ((uint32_t)inner[5] << 16) |
                     ((uint32_t)inner[6] << 8) | inner[7],
                 il - 40);
    CHECK_EQ_I64(inner[15], 2);
    CHECK_EQ_I64(inner[8] | inner[9] | inner[10] | inner[11], 0);
    /* lowest 1000 = 0x3e8, conversion ratio 1.0 = 3ff0000000000000 */
    CHECK_EQ_I64(inner[22], 0x03);
    CHECK_EQ_I64(inner[23], 0xe8);
    CHECK_EQ_I64(inner[32], 0x3f);
    CHECK_EQ_I64(inner[33], 0xf0);
    free(bin);

    /* A negative count cannot be encoded. */
    h.counts[5] = -1;
    bin = (uint8_t *)&h; /* must be reset to NULL */
    CHECK_EQ_I64(hdrc_encode(&h, &bin, &n), -EINVAL);
    CHECK(bin == NULL && n == 0);
    char *text = (char *)&h;
    CHECK_EQ_I64(hdrc_encode_base64(&h, &text), -EINVAL);
    CHECK(text == NULL);
    hdr_free(&h);
    CHECK_EQ_I64(hdrc_encode(&h, &bin, &n), -EINVAL); /* freed: no counts */
}

/* ---- corrupt input ------------------------------------------------------ */

static void test_reject_truncated_base64(void)
{
    hdr_hist h;
    size_t len = strlen(V2_STR);
    for (size_t cut = 1; cut < len; cut++) {
        int rc = hdrc_decode_base64(V2_STR, len - cut, &h);
        CHECK_EQ_I64(rc, -EINVAL);
        CHECK(h.counts == NULL);
    }
    CHECK_EQ_I64(hdrc_decode_base64("", 0, &h), -EINVAL);
    CHECK_EQ_I64(hdrc_decode_base64("HISTFAA", 7, &h), -EINVAL);
    /* Whitespace (a line ending) is not base64. */
    char buf[512];
    snprintf(buf, sizeof buf, "%s\n", V3_STR);
    CHECK_EQ_I64(hdrc_decode_base64(buf, strlen(buf), &h), -EINVAL);
    snprintf(buf, sizeof buf, "%sAAAA", V6A_STR); /* garbage after: 3 bytes more */
    CHECK_EQ_I64(hdrc_decode_base64(buf, strlen(buf), &h), -EINVAL);
    snprintf(buf, sizeof buf, "%sAAAA", V3_STR); /* padding mid-text */
    CHECK_EQ_I64(hdrc_decode_base64(buf, strlen(buf), &h), -EINVAL);
    CHECK(h.counts == NULL);
}

static void test_reject_outer(void)
{
    size_t n = 0;
    uint8_t *bin = unbase64(V3_STR, &n);
    CHECK(bin != NULL);
    uint8_t *buf = malloc(n + 16);
    CHECK(buf != NULL);
    hdr_hist h;

    /* Every truncation of the binary form. */
    for (size_t k = 0; k < n; k++) {
        CHECK_EQ_I64(hdrc_decode(bin, k, &h), -EINVAL);
        CHECK(h.counts == NULL);
    }
    CHECK_EQ_I64(hdrc_decode(NULL, 0, &h), -EINVAL);
    CHECK_EQ_I64(hdrc_decode(bin, n, &h), 0);
    hdr_free(&h);

    /* Wrong outer cookies: the V1 ones, the inner one, garbage. */
    static const uint32_t bad[] = {0x1c849301u, 0x1c849302u, 0x1c849313u, 0xdeadbeefu, 0,
                                   0x1c849315u, 0x0c849314u};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memcpy(buf, bin, n);
        be32(buf, bad[i]);
        CHECK_EQ_I64(hdrc_decode(buf, n, &h), -EINVAL);
    }

    /* Deflated length beyond the data, short of it, zero, negative. */
    int32_t dl = (int32_t)(n - 8);
    int32_t lens[] = {dl + 1, dl + 1000, INT32_MAX, dl - 1, 1, 0, -1, INT32_MIN};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        memcpy(buf, bin, n);
        be32(buf + 4, (uint32_t)lens[i]);
        CHECK_EQ_I64(hdrc_decode(buf, n, &h), -EINVAL);
    }

    /* Garbage after a valid stream: outside deflated_len, and inside it
     * (after the zlib stream's end). */
    memcpy(buf, bin, n);
    memcpy(buf + n, "\0\0\0\0xyz", 7);
    CHECK_EQ_I64(hdrc_decode(buf, n + 1, &h), -EINVAL);
    CHECK_EQ_I64(hdrc_decode(buf, n + 7, &h), -EINVAL);
    be32(buf + 4, (uint32_t)(dl + 7));
    CHECK_EQ_I64(hdrc_decode(buf, n + 7, &h), -EINVAL);
    be32(buf + 4, (uint32_t)(dl + 1));
    CHECK_EQ_I64(hdrc_decode(buf, n + 1, &h), -EINVAL);

    /* Corrupt zlib: the header, the data, the Adler-32 trailer. */
    size_t spots[] = {8, 9, 12, n / 2, n - 3, n - 1};
    for (size_t i = 0; i < sizeof spots / sizeof spots[0]; i++) {
        memcpy(buf, bin, n);
        buf[spots[i]] ^= 0x55;
        CHECK(hdrc_decode(buf, n, &h) < 0);
        CHECK(h.counts == NULL);
    }

    /* Every single-bit flip anywhere: never a crash, and a success still
     * yields a usable histogram. */
    for (size_t i = 0; i < n; i++) {
        for (int b = 0; b < 8; b++) {
            memcpy(buf, bin, n);
            buf[i] ^= (uint8_t)(1u << b);
            int rc = hdrc_decode(buf, n, &h);
            CHECK(rc == 0 || rc == -EINVAL);
            if (rc == 0)
                (void)hdr_value_at_percentile(&h, 99);
            hdr_free(&h);
        }
    }
    free(buf);
    free(bin);
}

static void test_reject_inner(void)
{
    hdr_hist h;
    const int64_t ok[] = {-3, 5, 1};
    memset(&h, 0x5a, sizeof h); /* garbage in: must come back zeroed */

    /* Baseline. */
    CHECK_EQ_I64(decode_synthetic(HDRC_COOKIE_V2, -1, 3, 1, 1000000, ok, 3, 6, &h), 0);
    CHECK_EQ_I64(h.total_count, 6);
    hdr_free(&h);

    /* Wrong inner cookie. */
    CHECK_EQ_I64(decode_synthetic(HDRC_COOKIE_V2_COMPRESSED, -1, 3, 1, 1000000, ok, 3, 6, &h),
                 -EINVAL);
    CHECK_EQ_I64(decode_synthetic(0x1c849301u, -1, 3, 1, 1000000, ok, 3, 6, &h), -EINVAL);
    CHECK_EQ_I64(decode_synthetic(0x1d849313u, -1, 3, 1, 1000000, ok, 3, 6, &h), -EINVAL);
    CHECK(h.counts == NULL && h.counts_len == 0);

    /* Bad geometries: sigfigs 0 or 6, lowest < 1, highest < 2 * lowest. */
    CHECK_EQ_I64(decode_synthetic(HDRC_COOKIE_V2, -1, 0, 1, 1000000, ok, 3, 6, &h), -EINVAL);
    CHECK_EQ_I64(decode_synthetic(HDRC_COOKIE_V2, -1, 6, 1, 1000000, ok, 3, 6, &h), -EINVAL);
    CHECK_EQ_I64(decode_synthetic(HDRC_COOKIE_V2, -1, -1, 1, 1000000, ok, 3, 6, &h), -EINVAL);
    CHECK_EQ_I64(decode_synthetic(HDRC_COOKIE_V2, -1, 3, 0, 1000000, ok, 3, 6, &h), -EINVAL);
    CHECK_EQ_I64(decode_synthetic(HDRC_COOKIE_V2, -1, 3, -7, 1000000, ok, 3, 6, &h), -EINVAL);
    CHECK_EQ_I64(decode_synthetic(HDRC_COOKIE_V2, -1, 3, INT64_MIN, 1000000, ok, 3, 6, &h),
                 -EINVAL);
    CHECK_EQ_I64(decode_synthetic(HDRC_COOKIE_V2, -1, 3, 1000, 1999, ok, 3, 6, &h), -EINVAL);
    CHECK_EQ_I64(decode_synthetic(HDRC_COOKIE_V2, -1, 3, 1, 1, ok, 3, 6, &h), -EINVAL);
    CHECK_EQ_I64(decode_synthetic(HDRC_COOKIE_V2, -1, 3, 1, -5, ok, 3, 6, &h), -EINVAL);
    CHECK_EQ_I64(decode_synthetic(HDRC_COOKIE_V2, -1, 3, INT64_C(1) << 60, INT64_MAX, ok, 3, 6, &h),
                 -EINVAL);
    CHECK(h.counts == NULL);

    /* A huge geometry is refused before anything is allocated: highest
     * 2^62 at 5 significant figures would be 6M slots (48 MiB). */
    CHECK_EQ_I64(decode_synthetic(HDRC_COOKIE_V2, -1, 5, 1, INT64_C(1) << 62, ok, 3, 6, &h),
                 -EINVAL);
    CHECK_EQ_I64(decode_synthetic(HDRC_COOKIE_V2, -1, 5, 1, INT64_MAX, ok, 3, 6, &h), -EINVAL);
    /* ... while the largest 4-sigfig geometry fits under the cap. */
    CHECK_EQ_I64(decode_synthetic(HDRC_COOKIE_V2, -1, 4, 1, INT64_MAX, ok, 3, 6, &h), 0);
    CHECK(h.counts_len <= HDRC_MAX_COUNTS_LEN);
    hdr_free(&h);
    /* The encoder still writes what the decoder would refuse. */
    hdr_hist big;
    CHECK_EQ_I64(hdr_init(&big, 1, INT64_C(1) << 62, 5), 0);
    CHECK(big.counts_len > HDRC_MAX_COUNTS_LEN);
    CHECK(hdr_record(&big, 12345));
    uint8_t *bin = NULL;
    size_t bn = 0;
    CHECK_EQ_I64(hdrc_encode(&big, &bin, &bn), 0);
    CHECK_EQ_I64(hdrc_decode(bin, bn, &h), -EINVAL);
    free(bin);
    hdr_free(&big);

    /* payload_len negative, or smaller than the payload. */
    CHECK_EQ_I64(decode_synthetic(HDRC_COOKIE_V2, INT32_MIN, 3, 1, 1000000, ok, 3, 6, &h), -EINVAL);
    CHECK_EQ_I64(decode_synthetic(HDRC_COOKIE_V2, -2, 3, 1, 1000000, ok, 3, 6, &h), -EINVAL);
    CHECK_EQ_I64(decode_synthetic(HDRC_COOKIE_V2, 2, 3, 1, 1000000, ok, 3, 6, &h), -EINVAL);
    CHECK_EQ_I64(decode_synthetic(HDRC_COOKIE_V2, 0, 3, 1, 1000000, ok, 3, 6, &h), -EINVAL);
    CHECK_EQ_I64(decode_synthetic(HDRC_COOKIE_V2, 3, 3, 1, 1000000, ok, 3, 6, &h), 0);
    hdr_free(&h);

    /* Counts overflowing int64 in total. */
    const int64_t ovf[] = {INT64_MAX, 1};
    CHECK_EQ_I64(decode_synthetic(HDRC_COOKIE_V2, -1, 3, 1, 1000000, ovf, 2, 6, &h), -EINVAL);
    const int64_t ovf2[] = {INT64_MAX / 2 + 1, -5, INT64_MAX / 2 + 1};
    CHECK_EQ_I64(decode_synthetic(HDRC_COOKIE_V2, -1, 3, 1, 1000000, ovf2, 3, 6, &h), -EINVAL);
    const int64_t fits[] = {INT64_MAX - 1, 1};
    CHECK_EQ_I64(decode_synthetic(HDRC_COOKIE_V2, -1, 3, 1, 1000000, fits, 2, 6, &h), 0);
    CHECK_EQ_I64(h.total_count, INT64_MAX);
    hdr_free(&h);

    /* Zero runs and counts beyond counts_len (geometry 1..1000000 s3:
     * counts_len 11264). */
    hdr_hist g;
    CHECK_EQ_I64(hdr_init(&g, 1, 1000000, 3), 0);
    int64_t cl = g.counts_len;
    hdr_free(&g);
    const int64_t run_over[] = {-(cl + 1)};
    CHECK_EQ_I64(decode_synthetic(HDRC_COOKIE_V2, -1, 3, 1, 1000000, run_over, 1, 6, &h), -EINVAL);
    const int64_t run_to_end_then_count[] = {-cl, 1};
    CHECK_EQ_I64(decode_synthetic(HDRC_COOKIE_V2, -1, 3, 1, 1000000, run_to_end_then_count, 2, 6,
                                  &h),
                 -EINVAL);
    const int64_t run_min[] = {INT64_MIN};
    CHECK_EQ_I64(decode_synthetic(HDRC_COOKIE_V2, -1, 3, 1, 1000000, run_min, 1, 6, &h), -EINVAL);
    const int64_t run_then_over[] = {-(cl - 1), 1, -1};
    CHECK_EQ_I64(decode_synthetic(HDRC_COOKIE_V2, -1, 3, 1, 1000000, run_then_over, 3, 6, &h),
                 -EINVAL);
    /* The last slot itself is fine, and so is a run ending at the end. */
    const int64_t last_slot[] = {-(cl - 1), 4};
    CHECK_EQ_I64(decode_synthetic(HDRC_COOKIE_V2, -1, 3, 1, 1000000, last_slot, 2, 6, &h), 0);
    CHECK_EQ_I64(h.counts[cl - 1], 4);
    CHECK(hdr_max(&h) >= 1000000);
    hdr_free(&h);
    const int64_t run_to_end[] = {3, -(cl - 1)};
    CHECK_EQ_I64(decode_synthetic(HDRC_COOKIE_V2, -1, 3, 1, 1000000, run_to_end, 2, 6, &h), 0);
    hdr_free(&h);
    CHECK(h.counts == NULL);
}

static void test_reject_short_inflated(void)
{
    hdr_hist h;
    uint8_t inner[64];
    const int64_t ok[] = {-3, 5, 1000};
    size_t il = make_inner(inner, HDRC_COOKIE_V2, -1, 3, 1, 1000000, ok, 3);

    /* Inflated data shorter than the 40-byte header. */
    for (size_t k = 0; k < 40; k++) {
        size_t n;
        uint8_t *enc = make_outer(inner, k, 6, HDRC_COOKIE_V2_COMPRESSED, 0, &n);
        CHECK(enc != NULL);
        CHECK_EQ_I64(hdrc_decode(enc, n, &h), -EINVAL);
        free(enc);
    }
    /* Inflated payload ending inside a varint ("1000" is two bytes), with
     * payload_len claiming the full length or the cut length. */
    for (int claim = 0; claim < 2; claim++) {
        size_t cut = il - 1;
        be32(inner + 4, (uint32_t)(claim ? cut - 40 : il - 40));
        size_t n;
        uint8_t *enc = make_outer(inner, cut, 6, HDRC_COOKIE_V2_COMPRESSED, 0, &n);
        CHECK(enc != NULL);
        CHECK_EQ_I64(hdrc_decode(enc, n, &h), -EINVAL);
        free(enc);
    }
    /* A payload that is only a continuation byte, or 8 of them. */
    uint8_t raw[64];
    size_t rl = make_inner(raw, HDRC_COOKIE_V2, -1, 3, 1, 1000000, NULL, 0);
    memset(raw + rl, 0x80, 8);
    for (size_t extra = 1; extra <= 8; extra++) {
        be32(raw + 4, (uint32_t)extra);
        size_t n;
        uint8_t *enc = make_outer(raw, rl + extra, 9, HDRC_COOKIE_V2_COMPRESSED, 0, &n);
        CHECK(enc != NULL);
        CHECK_EQ_I64(hdrc_decode(enc, n, &h), -EINVAL);
        free(enc);
    }
    CHECK(h.counts == NULL);
}

/* A payload large enough to cross the decoder's inflate window, with
 * varints straddling window boundaries. */
static void test_large_payload_streaming(void)
{
    hdr_hist h;
    CHECK_EQ_I64(hdr_init(&h, 1, 100000, 4), 0); /* 2^15 sub-buckets */
    for (int32_t i = 0; i < h.counts_len; i++) {
        int64_t c = (int64_t)(rng() >> 1 >> (rng() % 63));
        if (c > INT64_MAX / h.counts_len)
            c = INT64_MAX / h.counts_len;
        if (rng() % 4 == 0)
            c = 0;
        h.counts[i] = c;
        h.total_count += c;
        if (c && hdr_value_at_index(&h, i) > h.max_value)
            h.max_value = hdr_value_at_index(&h, i);
        if (c && hdr_value_at_index(&h, i) && hdr_value_at_index(&h, i) < h.min_value)
            h.min_value = hdr_value_at_index(&h, i);
    }
    uint8_t *bin = NULL;
    size_t n = 0;
    CHECK_EQ_I64(hdrc_encode(&h, &bin, &n), 0);
    CHECK(n > 20000);
    free(bin);
    CHECK(round_trip_ok(&h));
    hdr_free(&h);
}

/* The decoder's pre-allocation size check agrees with hdr_init. */
static void test_geometry_counts_len(void)
{
    static const int64_t lows[] = {1, 2, 3, 1000, 1023, 1024, 20000, INT64_C(1) << 30,
                                   (INT64_C(1) << 48) - 1, INT64_C(1) << 51, INT64_C(1) << 52,
                                   INT64_MAX / 2, INT64_MAX, 0, -1, INT64_MIN};
    static const int64_t highs[] = {2, 3, 1000, 2047, 2048, 3600000000LL, 86400000000000LL,
                                    INT64_C(1) << 62, INT64_MAX, 0, -1, INT64_MIN};
    for (size_t i = 0; i < sizeof lows / sizeof lows[0]; i++) {
        for (size_t j = 0; j < sizeof highs / sizeof highs[0]; j++) {
            for (int s = -1; s <= 7; s++) {
                hdr_hist h;
                int rc = hdr_init(&h, lows[i], highs[j], s);
                int64_t want = rc == 0 ? h.counts_len : -1;
                hdr_free(&h);
                CHECK_EQ_I64(hdrc_geometry_counts_len(lows[i], highs[j], s), want);
            }
        }
    }
    for (int k = 0; k < 2000; k++) {
        int64_t lo = (int64_t)(rng() >> (1 + rng() % 63));
        int64_t hi = (int64_t)(rng() >> (1 + rng() % 20));
        int s = 1 + (int)(rng() % 4);
        hdr_hist h;
        int rc = hdr_init(&h, lo, hi, s);
        int64_t want = rc == 0 ? h.counts_len : -1;
        hdr_free(&h);
        CHECK_EQ_I64(hdrc_geometry_counts_len(lo, hi, s), want);
    }
    CHECK(hdrc_geometry_counts_len(1, INT64_C(1) << 62, 5) > HDRC_MAX_COUNTS_LEN);
    CHECK(hdrc_geometry_counts_len(1, INT64_MAX, 4) <= HDRC_MAX_COUNTS_LEN);
    CHECK_EQ_I64(hdrc_geometry_counts_len(1, 86400000000000LL, 3), 38912);
}

int main(void)
{
    RUN(test_geometry_counts_len);
    RUN(test_base64_v8);
    RUN(test_base64_decode_rejects);
    RUN(test_base64_round_trip_all_bytes);
    RUN(test_zigzag_v8);
    RUN(test_v1_c_encoder_quirk);
    RUN(test_v2_corrected);
    RUN(test_v3_three_values);
    RUN(test_v4_line5_java_level9);
    RUN(test_v6_other_ports);
    RUN(test_lone_zero_both_ways_and_levels);
    RUN(test_round_trip_random);
    RUN(test_round_trip_edges);
    RUN(test_encoder_header);
    RUN(test_reject_truncated_base64);
    RUN(test_reject_outer);
    RUN(test_reject_inner);
    RUN(test_reject_short_inflated);
    RUN(test_large_payload_streaming);
    return unit_done();
}
