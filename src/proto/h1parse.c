/*
 * h1parse.c - see h1parse.h.
 *
 * Framing decisions (RFC 9112 section 6.3), in order:
 *   HEAD request, 1xx, 204, 304           -> no body
 *   Transfer-Encoding ending in chunked    -> chunked
 *   Transfer-Encoding ending otherwise     -> close-delimited
 *   Content-Length                         -> that many bytes
 *   nothing                                -> close-delimited
 * Transfer-Encoding wins over Content-Length, but a response carrying both
 * (or carrying Transfer-Encoding at all in HTTP/1.0) is one RFC 9112 says
 * "ought to be handled as an error": its body is still read as chunked,
 * and keep_alive is forced false, because whatever the server believes the
 * framing to be is no longer something the next response can rely on.
 *
 * Lines are found with memchr and validated afterwards in a single tight
 * loop per line; body bytes are never inspected.
 */
#include "proto/h1parse.h"

#include <string.h>

#include "util/hex.h"

enum {
    ST_STATUS = 0, /* must be 0: h1_init zeroes the struct */
    ST_HEADER,
    ST_BODY_LEN,
    ST_CHUNK_SIZE,
    ST_CHUNK_DATA,
    ST_CHUNK_END,
    ST_TRAILER,
    ST_BODY_CLOSE,
    ST_DONE,
    ST_ERROR,
};

/* Chunk extensions are never needed by a load generator, so a chunk-size
 * line gets a small fixed bound rather than the whole header budget. */
#define CHUNK_LINE_MAX 4096u

/* RFC 9110 tchar: the only bytes allowed in a field name. */
static const unsigned char tchar[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 1, 0, 1, 1, 1, 1, 1, 0, 0, 1, 1, 0, 1, 1, 0, /*  !"#$%&'()*+,-./ */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, /* 0-9 :;<=>? */
    0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* @A-O */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 1, /* P-Z [\]^_ */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* `a-o */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 1, 0, /* p-z {|}~ DEL */
};

/* Field values, reason phrases and chunk extensions: HTAB, SP, VCHAR and
 * obs-text. Everything else is a control byte; rejecting them catches
 * bare CR, NUL and stray LF (a caller breaking the re-present contract). */
static inline int bad_field_byte(unsigned char c)
{
    return (c < 0x20 && c != '\t') | (c == 0x7f);
}

static int bad_field_bytes(const char *s, size_t n)
{
    const uint64_t ones = 0x0101010101010101ull, highs = ones << 7;
    size_t i = 0;

    /* Validation is most of the parse cost, so eight bytes at a time: a
     * word with any byte below 0x20 or equal to 0x7f (the classic SWAR
     * "has less than" and "has zero" tests, exact for "any byte") goes to
     * the byte check, which lets HTAB through. */
    for (; i + 8 <= n; i += 8) {
        uint64_t x, del;

        memcpy(&x, s + i, 8);
        del = x ^ (ones * 0x7f);
        if ((((x - ones * 0x20) & ~x) | ((del - ones) & ~del)) & highs)
            for (size_t k = i; k < i + 8; k++)
                if (bad_field_byte((unsigned char)s[k]))
                    return 1;
    }
    for (; i < n; i++)
        if (bad_field_byte((unsigned char)s[i]))
            return 1;
    return 0;
}

static inline int is_ows(char c)
{
    return c == ' ' || c == '\t';
}

static inline int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Case-insensitive compare of s[0..n) with a lower-case literal. */
static int ieq(const char *s, size_t n, const char *lit, size_t litlen)
{
    if (n != litlen)
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];

        if (c >= 'A' && c <= 'Z')
            c += 'a' - 'A';
        if (c != (unsigned char)lit[i])
            return 0;
    }
    return 1;
}

#define IEQ(s, n, lit) ieq((s), (n), lit, sizeof(lit) - 1)

/* Next element of a comma-separated list in v[*i..n): returns its start
 * and sets *elen to its length with OWS trimmed; *i moves past the comma.
 * Empty elements are returned too (elen 0); callers decide. */
static const char *list_next(const char *v, size_t n, size_t *i, size_t *elen)
{
    size_t a = *i, b;

    while (a < n && is_ows(v[a]))
        a++;
    b = a;
    while (b < n && v[b] != ',')
        b++;
    *i = b < n ? b + 1 : n;
    while (b > a && is_ows(v[b - 1]))
        b--;
    *elen = b - a;
    return v + a;
}

/* "Content-Length: 42" and also "42, 42" (a list some intermediaries make
 * by joining duplicate fields; RFC 9110 8.6 allows it when all agree). */
static int parse_content_length(h1_parser *p, const char *v, size_t n)
{
    size_t i = 0;

    /* list_next hides an empty last element ("12,"); a length list has none. */
    if (n == 0 || v[n - 1] == ',')
        return H1_E_LENGTH;
    do {
        size_t elen;
        const char *e = list_next(v, n, &i, &elen);
        int64_t x = 0;

        if (elen == 0)
            return H1_E_LENGTH;
        for (size_t k = 0; k < elen; k++) {
            int d;

            if (!is_digit(e[k]))
                return H1_E_LENGTH;
            d = e[k] - '0';
            if (x > (INT64_MAX - d) / 10)
                return H1_E_LENGTH;
            x = x * 10 + d;
        }
        if (p->cl_seen_ && x != p->content_length)
            return H1_E_LENGTH;
        p->cl_seen_ = true;
        p->content_length = x;
    } while (i < n);
    return 0;
}

/* Only the last coding matters for framing; a later field's codings come
 * after an earlier one's, so each field simply overrides. Empty lists
 * (a bare "Transfer-Encoding:") name no coding and are ignored. */
static void parse_transfer_encoding(h1_parser *p, const char *v, size_t n)
{
    size_t i = 0;

    while (i < n) {
        size_t elen, k = 0;
        const char *e = list_next(v, n, &i, &elen);

        while (k < elen && e[k] != ';' && !is_ows(e[k]))
            k++;
        if (k == 0)
            continue;
        p->te_seen_ = true;
        p->chunked = IEQ(e, k, "chunked");
    }
}

static void parse_connection(h1_parser *p, const char *v, size_t n)
{
    size_t i = 0;

    while (i < n) {
        size_t elen;
        const char *e = list_next(v, n, &i, &elen);

        if (IEQ(e, elen, "close"))
            p->conn_close_ = true;
        else if (IEQ(e, elen, "keep-alive"))
            p->conn_keep_ = true;
    }
}

/* "HTTP/1.x DDD" then nothing or SP and a reason phrase (maybe empty). */
static int parse_status(h1_parser *p, const char *s, size_t n)
{
    int code;

    if (n < 12 || memcmp(s, "HTTP/1.", 7) != 0 || !is_digit(s[7]) ||
        s[8] != ' ' || !is_digit(s[9]) || !is_digit(s[10]) || !is_digit(s[11]))
        return H1_E_STATUS;
    if (n > 12 && (s[12] != ' ' || bad_field_bytes(s + 13, n - 13)))
        return H1_E_STATUS;
    code = (s[9] - '0') * 100 + (s[10] - '0') * 10 + (s[11] - '0');
    /* RFC 9110 15: a code outside 100..599 is invalid, and a client SHOULD
     * process the response as a 5xx: final, framed as usual, not 2xx. It
     * is kept as it came (the report shows it). */
    p->status = code;
    p->version_minor = s[7] - '0';
    if (code == 101)
        return H1_E_UPGRADE;
    p->interim_ = code >= 100 && code < 200;
    return 0;
}

/* One header or trailer line (terminator stripped). interpret: a header
 * of the final response, whose framing fields count. deliver: pass it to
 * on_header. Returns 0, an H1_E_* code or a callback's abort value. */
static int parse_field(h1_parser *p, const char *s, size_t n, bool interpret, bool deliver)
{
    size_t i = 0, nlen;
    const char *v;

    /* A leading SP/HTAB (obs-fold) or an empty name stops here too. */
    while (i < n && tchar[(unsigned char)s[i]])
        i++;
    if (i == 0 || i == n || s[i] != ':')
        return H1_E_HEADER;
    nlen = i++;
    if (bad_field_bytes(s + i, n - i))
        return H1_E_HEADER;
    while (i < n && is_ows(s[i]))
        i++;
    while (n > i && is_ows(s[n - 1]))
        n--;
    v = s + i;
    n -= i;

    if (interpret) {
        /* Dispatch on length first: most headers match none of these. */
        if (nlen == 14 && IEQ(s, nlen, "content-length")) {
            int rc = parse_content_length(p, v, n);

            if (rc)
                return rc;
        } else if (nlen == 17 && IEQ(s, nlen, "transfer-encoding")) {
            parse_transfer_encoding(p, v, n);
        } else if (nlen == 10 && IEQ(s, nlen, "connection")) {
            parse_connection(p, v, n);
        }
    }
    if (deliver && p->on_header)
        return p->on_header(p->ud, s, nlen, v, n);
    return 0;
}

/* hex [BWS] [";" ext] -- extensions are checked for control bytes only,
 * since nothing here uses them. */
static int parse_chunk_size(h1_parser *p, const char *s, size_t n)
{
    uint64_t v = 0;
    size_t i = 0;
    int d;

    for (; i < n && (d = hex_digit((unsigned char)s[i])) >= 0; i++) {
        /* Bound at INT64_MAX like Content-Length; leading zeros are free. */
        if (v > (uint64_t)INT64_MAX >> 4)
            return H1_E_CHUNK;
        v = v << 4 | (uint64_t)d;
    }
    if (i == 0)
        return H1_E_CHUNK;
    while (i < n && is_ows(s[i]))
        i++;
    if (i < n && (s[i] != ';' || bad_field_bytes(s + i, n - i)))
        return H1_E_CHUNK;
    p->remain_ = v;
    return 0;
}

/* The final head is complete: decide keep-alive and the body framing.
 * Returns H1_DONE (no body), 0 (body follows) or an abort value. */
static int head_complete(h1_parser *p)
{
    bool ka, body = !(p->head_req_ || p->status == 204 || p->status == 304);

    p->headers_done = true;
    if (p->version_minor >= 1)
        ka = !p->conn_close_;
    else
        ka = p->conn_keep_ && !p->conn_close_;
    if (p->te_seen_) {
        if (p->cl_seen_ || p->version_minor == 0)
            ka = false;
        p->chunked_with_length = p->cl_seen_ && p->chunked;
        p->content_length = -1;
    }

    if (!body)
        p->st_ = ST_DONE;
    else if (p->te_seen_)
        p->st_ = p->chunked ? ST_CHUNK_SIZE : ST_BODY_CLOSE;
    else if (p->cl_seen_) {
        p->remain_ = (uint64_t)p->content_length;
        p->st_ = p->remain_ ? ST_BODY_LEN : ST_DONE;
    } else
        p->st_ = ST_BODY_CLOSE;
    if (p->st_ == ST_BODY_CLOSE)
        ka = false;
    p->keep_alive = ka;

    if (p->on_headers_done) {
        int rc = p->on_headers_done(p->ud);

        if (rc)
            return rc;
    }
    return p->st_ == ST_DONE ? H1_DONE : 0;
}

/* A whole line s[0..n) (terminator already stripped; ll bytes on the wire
 * with it) in one of the line states. */
static int on_line(h1_parser *p, const char *s, size_t n, size_t ll)
{
    int rc;

    switch (p->st_) {
    case ST_STATUS:
        p->header_bytes += ll;
        rc = parse_status(p, s, n);
        if (rc)
            return rc;
        p->st_ = ST_HEADER;
        return 0;
    case ST_HEADER:
        p->header_bytes += ll;
        if (n == 0) {
            if (!p->interim_)
                return head_complete(p);
            /* 1xx done: its fields told us nothing about the final one. */
            p->interim_ = false;
            p->st_ = ST_STATUS;
            return 0;
        }
        return parse_field(p, s, n, !p->interim_, !p->interim_);
    case ST_CHUNK_SIZE:
        rc = parse_chunk_size(p, s, n);
        if (rc)
            return rc;
        p->st_ = p->remain_ ? ST_CHUNK_DATA : ST_TRAILER;
        return 0;
    case ST_TRAILER:
        p->trailer_bytes_ += ll;
        if (n == 0) {
            p->st_ = ST_DONE;
            return H1_DONE;
        }
        return parse_field(p, s, n, false, true);
    }
    return H1_E_STATUS; /* unreachable: only line states get here */
}

/* How many bytes the next line may take, terminator included, before it
 * breaks its limit. Always <= max_header_bytes, which is what bounds the
 * bytes the engine ever has to hold back. */
static uint64_t line_allowance(const h1_parser *p)
{
    uint64_t max = p->max_header_bytes, used;

    if (p->st_ == ST_CHUNK_SIZE)
        return max < CHUNK_LINE_MAX ? max : CHUNK_LINE_MAX;
    used = p->st_ == ST_TRAILER ? p->trailer_bytes_ : p->header_bytes;
    return used < max ? max - used : 0;
}

int h1_feed(h1_parser *p, const char *buf, size_t len, size_t *consumed)
{
    size_t pos = 0, hint;
    int rc = H1_NEED_MORE;

    if (p->st_ == ST_DONE || p->st_ == ST_ERROR) {
        *consumed = 0;
        return p->st_ == ST_DONE ? H1_DONE : p->err_;
    }
    /* The held-back bytes come first again and were already searched for
     * LF: skip them, or a server dribbling one byte per read would cost
     * O(line^2) scanning. If the caller broke the contract, an LF hidden in
     * the skipped part is still caught as a control byte by validation. */
    hint = p->held_ < len ? p->held_ : len;
    p->held_ = 0;

    while (pos < len) {
        const char *s = buf + pos;
        size_t avail = len - pos, skip = hint;

        hint = 0; /* only the first line of the call was held back */
        switch (p->st_) {
        case ST_STATUS: {
            /* Fail a non-HTTP peer now, not after max_header_bytes. Only
             * the bytes within the line's allowance are looked at, or the
             * verdict (bad status line or too big) would depend on where
             * the reads happened to split the bytes. */
            size_t k = avail < 7 ? avail : 7;

            if ((uint64_t)k > line_allowance(p))
                k = (size_t)line_allowance(p);
            if (memcmp(s, "HTTP/1.", k) != 0) {
                rc = H1_E_STATUS;
                goto out;
            }
        }
            /* fall through */
        case ST_HEADER:
        case ST_CHUNK_SIZE:
        case ST_TRAILER: {
            uint64_t allow = line_allowance(p);
            size_t n = (uint64_t)avail < allow ? avail : (size_t)allow;
            const char *lf = NULL;
            size_t ll, tl;

            if (skip < n)
                lf = memchr(s + skip, '\n', n - skip);
            if (!lf) {
                if ((uint64_t)avail >= allow)
                    rc = p->st_ == ST_CHUNK_SIZE ? H1_E_CHUNK : H1_E_TOO_BIG;
                else
                    p->held_ = (uint32_t)avail; /* < allow <= max_header_bytes */
                goto out;
            }
            ll = (size_t)(lf - s) + 1;
            tl = ll - 1;
            if (tl && s[tl - 1] == '\r')
                tl--;
            pos += ll;
            rc = on_line(p, s, tl, ll);
            if (rc)
                goto out;
            break;
        }
        case ST_BODY_LEN:
        case ST_CHUNK_DATA:
        case ST_BODY_CLOSE: {
            size_t n = avail;

            if (p->st_ != ST_BODY_CLOSE && (uint64_t)n > p->remain_)
                n = (size_t)p->remain_;
            pos += n;
            p->body_bytes += n;
            if (p->st_ != ST_BODY_CLOSE) {
                p->remain_ -= n;
                if (p->remain_ == 0) {
                    if (p->st_ == ST_BODY_LEN) {
                        p->st_ = ST_DONE;
                        rc = H1_DONE;
                    } else {
                        p->st_ = ST_CHUNK_END;
                    }
                }
            }
            if (p->on_body) {
                int crc = p->on_body(p->ud, s, n);

                if (crc) {
                    rc = crc;
                    goto out;
                }
            }
            if (rc)
                goto out;
            break;
        }
        case ST_CHUNK_END:
            if (s[0] == '\n') {
                pos += 1;
            } else if (s[0] == '\r') {
                if (avail < 2) {
                    p->held_ = 1;
                    goto out;
                }
                if (s[1] != '\n') {
                    rc = H1_E_CHUNK;
                    goto out;
                }
                pos += 2;
            } else {
                rc = H1_E_CHUNK;
                goto out;
            }
            p->st_ = ST_CHUNK_SIZE;
            break;
        default:
            rc = H1_E_STATUS; /* unreachable: DONE/ERROR handled above */
            goto out;
        }
    }
out:
    if (rc != H1_NEED_MORE && rc != H1_DONE) {
        p->st_ = ST_ERROR;
        p->err_ = rc;
        p->held_ = 0;
    }
    p->wire_bytes += pos;
    *consumed = pos;
    return rc;
}

int h1_eof(h1_parser *p)
{
    switch (p->st_) {
    case ST_DONE:
        return H1_DONE;
    case ST_ERROR:
        return p->err_;
    case ST_BODY_CLOSE:
        p->st_ = ST_DONE;
        p->keep_alive = false;
        return H1_DONE;
    default:
        if (p->wire_bytes == 0 && p->held_ == 0)
            return H1_NEED_MORE;
        p->st_ = ST_ERROR;
        p->err_ = H1_E_TRUNCATED;
        p->held_ = 0;
        return H1_E_TRUNCATED;
    }
}

uint64_t h1_skippable(const h1_parser *p)
{
    return !p->on_body && (p->st_ == ST_BODY_LEN || p->st_ == ST_CHUNK_DATA) ? p->remain_ : 0;
}

int h1_skip(h1_parser *p, uint64_t n)
{
    if (n == 0 || n > h1_skippable(p))
        return H1_NEED_MORE; /* nothing that could be passed over */
    p->body_bytes += n;
    p->wire_bytes += n;
    p->remain_ -= n;
    if (p->remain_)
        return H1_NEED_MORE;
    if (p->st_ == ST_CHUNK_DATA) {
        p->st_ = ST_CHUNK_END;
        return H1_NEED_MORE;
    }
    p->st_ = ST_DONE;
    return H1_DONE;
}

bool h1_started(const h1_parser *p)
{
    return p->wire_bytes > 0 || p->held_ > 0;
}

void h1_begin(h1_parser *p, bool head_request)
{
    uint32_t max = p->max_header_bytes;
    void *ud = p->ud;
    int (*on_header)(void *, const char *, size_t, const char *, size_t) = p->on_header;
    int (*on_headers_done)(void *) = p->on_headers_done;
    int (*on_body)(void *, const char *, size_t) = p->on_body;

    memset(p, 0, sizeof *p);
    p->max_header_bytes = max;
    p->ud = ud;
    p->on_header = on_header;
    p->on_headers_done = on_headers_done;
    p->on_body = on_body;
    p->content_length = -1;
    p->head_req_ = head_request;
}

void h1_init(h1_parser *p)
{
    memset(p, 0, sizeof *p);
    p->max_header_bytes = 65536;
    h1_begin(p, false);
}

const char *h1_strerror(int code)
{
    switch (code) {
    case H1_NEED_MORE:
        return "response incomplete";
    case H1_DONE:
        return "response complete";
    case H1_E_STATUS:
        return "malformed status line";
    case H1_E_HEADER:
        return "malformed header line";
    case H1_E_TOO_BIG:
        return "response headers too large";
    case H1_E_LENGTH:
        return "invalid Content-Length";
    case H1_E_CHUNK:
        return "malformed chunked encoding";
    case H1_E_TRUNCATED:
        return "connection closed before the response ended";
    case H1_E_UPGRADE:
        return "101 Switching Protocols is not supported";
    default:
        return "aborted by callback";
    }
}
