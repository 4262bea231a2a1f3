/*
 * hdr_codec.c - HdrHistogram V2 compressed encoding and base64 (see
 * hdr_codec.h for the format and the decoder's rules).
 */
#include "stats/hdr_codec.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define INNER_HEADER_LEN 40
#define OUTER_HEADER_LEN 8
#define VARINT_MAX 9
/* Inflated data is streamed through a window this big. */
#define INFLATE_WINDOW 16384

/* The 0xf0 bits of a cookie encode a word size; Java ignores them. */
#define COOKIE_BASE_MASK (~UINT32_C(0xf0))

/* ---- big-endian helpers ------------------------------------------------- */

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static void put_be64(uint8_t *p, uint64_t v)
{
    put_be32(p, (uint32_t)(v >> 32));
    put_be32(p + 4, (uint32_t)v);
}

static uint32_t get_be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) |
           (uint32_t)p[3];
}

static uint64_t get_be64(const uint8_t *p)
{
    return ((uint64_t)get_be32(p) << 32) | get_be32(p + 4);
}

/* ---- ZigZag LEB128-64b9B ------------------------------------------------ */

size_t hdrc_zigzag_encode(int64_t v, uint8_t *out)
{
    /* ZigZag: 0, -1, 1, -2, ... -> 0, 1, 2, 3, ... */
    uint64_t u = ((uint64_t)v << 1) ^ (uint64_t)(v < 0 ? -1 : 0);
    size_t n = 0;
    while (n < 8) {
        if (u < 0x80) {
            out[n++] = (uint8_t)u;
            return n;
        }
        out[n++] = (uint8_t)((u & 0x7f) | 0x80);
        u >>= 7;
    }
    /* After 8 groups of 7 bits, 8 bits remain; the ninth byte holds them
     * all and has no continuation bit. */
    out[n++] = (uint8_t)u;
    return n;
}

size_t hdrc_zigzag_decode(const uint8_t *in, size_t n, int64_t *v)
{
    uint64_t u = 0;
    size_t i = 0;
    for (;;) {
        if (i >= n)
            return 0;
        uint8_t b = in[i];
        if (i == 8) {
            u |= (uint64_t)b << 56;
            i++;
            break;
        }
        u |= (uint64_t)(b & 0x7f) << (7 * i);
        i++;
        if (!(b & 0x80))
            break;
    }
    /* Undo ZigZag without signed overflow. */
    uint64_t mag = u >> 1;
    *v = (u & 1) ? (int64_t)~mag : (int64_t)mag;
    return i;
}

/* ---- base64 ------------------------------------------------------------- */

static const char b64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Value of a base64 character, -1 when it is not in the alphabet. */
static int b64_value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

size_t hdrc_base64_encoded_len(size_t n)
{
    size_t groups = n / 3 + (n % 3 != 0);
    if (groups > SIZE_MAX / 4)
        return SIZE_MAX;
    return groups * 4;
}

int hdrc_base64_encode(const uint8_t *in, size_t n, char *out, size_t cap)
{
    size_t need = hdrc_base64_encoded_len(n);
    if (need == SIZE_MAX || cap < need + 1)
        return -ENOSPC;
    size_t o = 0, i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t w = ((uint32_t)in[i] << 16) | ((uint32_t)in[i + 1] << 8) | in[i + 2];
        out[o++] = b64_alphabet[(w >> 18) & 63];
        out[o++] = b64_alphabet[(w >> 12) & 63];
        out[o++] = b64_alphabet[(w >> 6) & 63];
        out[o++] = b64_alphabet[w & 63];
    }
    size_t rest = n - i;
    if (rest > 0) {
        uint32_t w = (uint32_t)in[i] << 16;
        if (rest == 2)
            w |= (uint32_t)in[i + 1] << 8;
        out[o++] = b64_alphabet[(w >> 18) & 63];
        out[o++] = b64_alphabet[(w >> 12) & 63];
        out[o++] = rest == 2 ? b64_alphabet[(w >> 6) & 63] : '=';
        out[o++] = '=';
    }
    out[o] = '\0';
    return 0;
}

int hdrc_base64_decode(const char *in, size_t n, uint8_t *out, size_t cap, size_t *outlen)
{
    *outlen = 0;
    if (n < 4 || n % 4 != 0)
        return -EINVAL;
    if (cap < n / 4 * 3)
        return -ENOSPC;

    /* Validate everything first so that nothing is written for bad text. */
    size_t pad = 0;
    if (in[n - 1] == '=')
        pad = in[n - 2] == '=' ? 2 : 1;
    for (size_t i = 0; i < n - pad; i++)
        if (b64_value((unsigned char)in[i]) < 0)
            return -EINVAL;

    size_t o = 0;
    for (size_t i = 0; i < n; i += 4) {
        bool last = i + 4 == n;
        int a = b64_value((unsigned char)in[i]);
        int b = b64_value((unsigned char)in[i + 1]);
        int c = last && pad == 2 ? 0 : b64_value((unsigned char)in[i + 2]);
        int d = last && pad >= 1 ? 0 : b64_value((unsigned char)in[i + 3]);
        uint32_t w = ((uint32_t)a << 18) | ((uint32_t)b << 12) | ((uint32_t)c << 6) | (uint32_t)d;
        out[o++] = (uint8_t)(w >> 16);
        if (!(last && pad == 2))
            out[o++] = (uint8_t)(w >> 8);
        if (!(last && pad >= 1))
            out[o++] = (uint8_t)w;
    }
    *outlen = o;
    return 0;
}

/* ---- geometry guard ------------------------------------------------------ */

/* Mirrors hdr_init's arithmetic (including the floating-point log2 of
 * lowest), so the size can be checked before anything is allocated. */
int64_t hdrc_geometry_counts_len(int64_t lowest, int64_t highest, int sigfigs)
{
    if (lowest < 1 || sigfigs < 1 || sigfigs > 5 || lowest > highest / 2)
        return -1;
    int64_t single_unit_limit = 2;
    for (int i = 0; i < sigfigs; i++)
        single_unit_limit *= 10;
    int32_t mag = 0;
    while ((INT64_C(1) << mag) < single_unit_limit)
        mag++;
    int32_t half_mag = (mag > 1 ? mag : 1) - 1;
    int32_t unit = (int32_t)(log((double)lowest) / log(2));
    if (unit + half_mag > 61)
        return -1;
    int64_t sub_bucket_count = INT64_C(1) << (half_mag + 1);
    int64_t untrackable = sub_bucket_count << unit;
    int64_t buckets = 1;
    while (untrackable <= highest) {
        if (untrackable > INT64_MAX / 2) {
            buckets++;
            break;
        }
        untrackable <<= 1;
        buckets++;
    }
    return (buckets + 1) * (sub_bucket_count / 2);
}

/* ---- encoder ------------------------------------------------------------ */

int hdrc_encode(const hdr_hist *h, uint8_t **out, size_t *len)
{
    int rc = 0;
    uint8_t *inner = NULL, *outer = NULL;
    *out = NULL;
    *len = 0;

    if (!h || !h->counts || h->counts_len <= 0) {
        rc = -EINVAL;
        goto out;
    }

    /* Encode up to the last occupied slot; trailing empty slots carry no
     * information (every reader sizes counts[] from the geometry). */
    int32_t end = 0;
    for (int32_t i = 0; i < h->counts_len; i++) {
        if (h->counts[i] < 0) {
            rc = -EINVAL;
            goto out;
        }
        if (h->counts[i] != 0)
            end = i + 1;
    }

    size_t cap = INNER_HEADER_LEN + (size_t)end * VARINT_MAX;
    inner = malloc(cap);
    if (!inner) {
        rc = -ENOMEM;
        goto out;
    }

    size_t p = INNER_HEADER_LEN;
    for (int32_t i = 0; i < end;) {
        int64_t c = h->counts[i];
        if (c != 0) {
            p += hdrc_zigzag_encode(c, inner + p);
            i++;
            continue;
        }
        int32_t run = 0;
        while (i < end && h->counts[i] == 0) {
            run++;
            i++;
        }
        p += hdrc_zigzag_encode(-(int64_t)run, inner + p);
    }
    size_t payload_len = p - INNER_HEADER_LEN;
    if (payload_len > INT32_MAX) {
        rc = -EINVAL;
        goto out;
    }

    double ratio = 1.0;
    uint64_t ratio_bits;
    memcpy(&ratio_bits, &ratio, sizeof ratio_bits);
    put_be32(inner, HDRC_COOKIE_V2);
    put_be32(inner + 4, (uint32_t)payload_len);
    put_be32(inner + 8, 0); /* normalizing_index_offset */
    put_be32(inner + 12, (uint32_t)h->sigfigs);
    put_be64(inner + 16, (uint64_t)h->lowest);
    put_be64(inner + 24, (uint64_t)h->highest);
    put_be64(inner + 32, ratio_bits);

    uLong bound = compressBound((uLong)p);
    outer = malloc(OUTER_HEADER_LEN + (size_t)bound);
    if (!outer) {
        rc = -ENOMEM;
        goto out;
    }
    uLongf dlen = bound;
    int zr = compress2(outer + OUTER_HEADER_LEN, &dlen, inner, (uLong)p, Z_DEFAULT_COMPRESSION);
    if (zr == Z_MEM_ERROR) {
        rc = -ENOMEM;
        goto out;
    }
    if (zr != Z_OK || dlen > INT32_MAX) {
        rc = -EINVAL;
        goto out;
    }
    put_be32(outer, HDRC_COOKIE_V2_COMPRESSED);
    put_be32(outer + 4, (uint32_t)dlen);
    *out = outer;
    *len = OUTER_HEADER_LEN + (size_t)dlen;
    outer = NULL;
out:
    free(inner);
    free(outer);
    return rc;
}

int hdrc_encode_base64(const hdr_hist *h, char **out)
{
    uint8_t *bin = NULL;
    size_t binlen = 0;
    char *text = NULL;
    *out = NULL;

    int rc = hdrc_encode(h, &bin, &binlen);
    if (rc < 0)
        goto out;
    size_t tlen = hdrc_base64_encoded_len(binlen);
    if (tlen == SIZE_MAX) {
        rc = -ENOMEM;
        goto out;
    }
    text = malloc(tlen + 1);
    if (!text) {
        rc = -ENOMEM;
        goto out;
    }
    rc = hdrc_base64_encode(bin, binlen, text, tlen + 1);
    if (rc < 0)
        goto out;
    *out = text;
    text = NULL;
out:
    free(bin);
    free(text);
    return rc;
}

/* ---- decoder ------------------------------------------------------------ */

struct payload_state {
    hdr_hist *h;
    int32_t idx;           /* next slot */
    int64_t total;
    int64_t budget;        /* payload bytes payload_len still allows */
};

/* Applies one payload varint. */
static int apply_varint(struct payload_state *s, int64_t v)
{
    hdr_hist *h = s->h;
    if (v < 0) {
        if (v == INT64_MIN || -v > (int64_t)(h->counts_len - s->idx))
            return -EINVAL;
        s->idx += (int32_t)(-v);
        return 0;
    }
    if (s->idx >= h->counts_len)
        return -EINVAL;
    if (v > 0) {
        if (s->total > INT64_MAX - v)
            return -EINVAL;
        s->total += v;
        h->counts[s->idx] = v;
        /* Slots ascend: the latest is the top one. As Java does, max is the
         * slot's highest equivalent value (slot 0 of a geometry with
         * lowest > 1 then reports 2^unit_magnitude - 1, not 0). */
        int64_t value = hdr_value_at_index(h, s->idx);
        h->max_value = hdr_highest_equivalent(h, value);
        if (value != 0 && value < h->min_value)
            h->min_value = value;
    }
    s->idx++;
    return 0;
}

/* Parses the 40-byte inner header and sets up s->h. */
static int start_payload(struct payload_state *s, const uint8_t *p)
{
    if ((get_be32(p) & COOKIE_BASE_MASK) != (HDRC_COOKIE_V2 & COOKIE_BASE_MASK))
        return -EINVAL;
    int32_t payload_len = (int32_t)get_be32(p + 4);
    int32_t sigfigs = (int32_t)get_be32(p + 12);
    int64_t lowest = (int64_t)get_be64(p + 16);
    int64_t highest = (int64_t)get_be64(p + 24);
    if (payload_len < 0)
        return -EINVAL;
    int64_t counts_len = hdrc_geometry_counts_len(lowest, highest, sigfigs);
    if (counts_len < 0 || counts_len > HDRC_MAX_COUNTS_LEN)
        return -EINVAL;
    int rc = hdr_init(s->h, lowest, highest, sigfigs);
    if (rc < 0)
        return rc;
    /* Belt and braces: the mirror of hdr_init's arithmetic must agree. */
    if (s->h->counts_len > HDRC_MAX_COUNTS_LEN) {
        hdr_free(s->h);
        return -EINVAL;
    }
    s->budget = payload_len;
    return 0;
}

int hdrc_decode(const uint8_t *buf, size_t len, hdr_hist *out)
{
    int rc = 0;
    z_stream zs;
    bool zs_live = false;
    uint8_t win[INFLATE_WINDOW];
    size_t have = 0;
    bool header_done = false, stream_end = false;
    struct payload_state s = { .h = out };

    memset(out, 0, sizeof *out);
    if (!buf || len < OUTER_HEADER_LEN) {
        rc = -EINVAL;
        goto out;
    }
    if ((get_be32(buf) & COOKIE_BASE_MASK) != (HDRC_COOKIE_V2_COMPRESSED & COOKIE_BASE_MASK)) {
        rc = -EINVAL;
        goto out;
    }
    int32_t dlen = (int32_t)get_be32(buf + 4);
    /* Exactly one stream: no room missing, nothing after it. */
    if (dlen <= 0 || (size_t)dlen != len - OUTER_HEADER_LEN) {
        rc = -EINVAL;
        goto out;
    }

    memset(&zs, 0, sizeof zs);
    int zr = inflateInit(&zs);
    if (zr != Z_OK) {
        rc = zr == Z_MEM_ERROR ? -ENOMEM : -EINVAL;
        goto out;
    }
    zs_live = true;
    zs.next_in = (Bytef *)(uintptr_t)(buf + OUTER_HEADER_LEN);
    zs.avail_in = (uInt)dlen;

    while (!stream_end) {
        /* have < INNER_HEADER_LEN before the header, < VARINT_MAX after:
         * there is always room to inflate into. */
        zs.next_out = win + have;
        zs.avail_out = (uInt)(sizeof win - have);
        zr = inflate(&zs, Z_NO_FLUSH);
        if (zr == Z_STREAM_END) {
            stream_end = true;
        } else if (zr == Z_MEM_ERROR) {
            rc = -ENOMEM;
            goto out;
        } else if (zr != Z_OK) {
            /* Z_BUF_ERROR: input exhausted before the stream's end;
             * Z_DATA_ERROR, Z_NEED_DICT, Z_STREAM_ERROR: corrupt. */
            rc = -EINVAL;
            goto out;
        }
        have = sizeof win - zs.avail_out;

        size_t pos = 0;
        if (!header_done) {
            if (have < INNER_HEADER_LEN) {
                if (stream_end) {
                    rc = -EINVAL;
                    goto out;
                }
                continue;
            }
            rc = start_payload(&s, win);
            if (rc < 0)
                goto out;
            header_done = true;
            pos = INNER_HEADER_LEN;
        }
        while (pos < have) {
            int64_t v;
            size_t n = hdrc_zigzag_decode(win + pos, have - pos, &v);
            if (n == 0)
                break;
            if ((int64_t)n > s.budget) {
                rc = -EINVAL; /* more payload than payload_len */
                goto out;
            }
            s.budget -= (int64_t)n;
            rc = apply_varint(&s, v);
            if (rc < 0)
                goto out;
            pos += n;
        }
        memmove(win, win + pos, have - pos);
        have -= pos;
    }
    /* A varint cut short by the end of the data, or bytes after the zlib
     * stream inside deflated_len. */
    if (have != 0 || zs.avail_in != 0) {
        rc = -EINVAL;
        goto out;
    }
    out->total_count = s.total;
out:
    if (zs_live)
        inflateEnd(&zs);
    if (rc < 0)
        hdr_free(out);
    return rc;
}

int hdrc_decode_base64(const char *text, size_t len, hdr_hist *out)
{
    int rc = 0;
    uint8_t *bin = NULL;
    size_t binlen = 0;

    memset(out, 0, sizeof *out);
    if (!text || len < 4 || len % 4 != 0) {
        rc = -EINVAL;
        goto out;
    }
    bin = malloc(len / 4 * 3);
    if (!bin) {
        rc = -ENOMEM;
        goto out;
    }
    rc = hdrc_base64_decode(text, len, bin, len / 4 * 3, &binlen);
    if (rc < 0)
        goto out;
    rc = hdrc_decode(bin, binlen, out);
out:
    free(bin);
    return rc;
}
