/*
 * serve_http.c - the HTTP/1.1 side of `pacer serve`: parsing request heads
 * and chunk-size lines, and the response headers, built once at startup so
 * answering a request copies no bytes (see serve_int.h).
 *
 * The parser is strict where leniency would let a request be read two ways
 * (Content-Length with Transfer-Encoding, conflicting lengths, obs-fold,
 * whitespace before the colon) and lenient where it costs nothing (bare LF
 * line ends, any method, any HTTP/1.x minor version).
 */
#include "serve/serve_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/hex.h"

const char serve_resp_400[] = "HTTP/1.1 400 Bad Request\r\n"
                              "Server: pacer-serve\r\n"
                              "Content-Length: 0\r\n"
                              "Content-Type: text/plain\r\n"
                              "Connection: close\r\n"
                              "\r\n";
const size_t serve_resp_400_len = sizeof serve_resp_400 - 1;
const char serve_resp_100[] = "HTTP/1.1 100 Continue\r\n\r\n";
const size_t serve_resp_100_len = sizeof serve_resp_100 - 1;

/* RFC 9110 token characters: what methods and header names are made of. */
static bool is_tchar(unsigned char c)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
        return true;
    switch (c) {
    case '!': case '#': case '$': case '%': case '&': case '\'': case '*':
    case '+': case '-': case '.': case '^': case '_': case '`': case '|':
    case '~':
        return true;
    default:
        return false;
    }
}

/* Case-insensitive comparison of a counted string with a literal. */
static bool eq_nocase(const char *s, size_t n, const char *lit)
{
    return strlen(lit) == n && strncasecmp(s, lit, n) == 0;
}

int serve_http_head_end(const char *buf, size_t len, size_t *scan, size_t *end)
{
    size_t i = *scan;

    while (i < len) {
        const char *nl = memchr(buf + i, '\n', len - i);
        size_t k;

        if (!nl) {
            *scan = len;
            return 0;
        }
        k = (size_t)(nl - buf);
        /* A line end followed by an empty line ("\n" or "\r\n"). When the
         * bytes after this '\n' have not arrived yet, resume here. */
        if (k + 1 >= len || (buf[k + 1] == '\r' && k + 2 >= len)) {
            *scan = k;
            return 0;
        }
        if (buf[k + 1] == '\n') {
            *end = k + 2;
            return 1;
        }
        if (buf[k + 1] == '\r' && buf[k + 2] == '\n') {
            *end = k + 3;
            return 1;
        }
        i = k + 1;
    }
    *scan = len;
    return 0;
}

/* Take the next line of a complete head: returns its start and sets *n to
 * its length without the "\n" or "\r\n"; NULL when no line end is left. */
static const char *take_line(const char **pp, const char *end, size_t *n)
{
    const char *l = *pp;
    const char *nl = memchr(l, '\n', (size_t)(end - l));

    if (!nl)
        return NULL;
    *pp = nl + 1;
    *n = (size_t)(nl - l);
    if (*n > 0 && l[*n - 1] == '\r')
        (*n)--;
    return l;
}

/* The status a request target asks for: /status/NNN (also in absolute form,
 * with or without a query) gives NNN for 200..599 and 200 for 1xx, which a
 * final response cannot carry; anything else is 200. */
static int status_for_target(const char *t, size_t n)
{
    const char *q;
    int s;

    if (n > 7 && strncasecmp(t, "http://", 7) == 0) {
        t += 7;
        n -= 7;
    } else if (n > 8 && strncasecmp(t, "https://", 8) == 0) {
        t += 8;
        n -= 8;
    } else {
        goto path;
    }
    q = memchr(t, '/', n);
    if (!q)
        return 200;
    n -= (size_t)(q - t);
    t = q;
path:
    if (n < 11 || memcmp(t, "/status/", 8) != 0 || (n > 11 && t[11] != '?'))
        return 200;
    if (t[8] < '0' || t[8] > '9' || t[9] < '0' || t[9] > '9' || t[10] < '0' || t[10] > '9')
        return 200;
    s = (t[8] - '0') * 100 + (t[9] - '0') * 10 + (t[10] - '0');
    if (s < SERVE_STATUS_MIN || s > SERVE_STATUS_MAX)
        return 200;
    return s;
}

/* Content-Length: 1 to 18 digits and nothing else, so it cannot overflow. */
static int parse_length(const char *v, size_t n, uint64_t *out)
{
    uint64_t x = 0;

    if (n == 0 || n > 18)
        return -EINVAL;
    for (size_t i = 0; i < n; i++) {
        if (v[i] < '0' || v[i] > '9')
            return -EINVAL;
        x = x * 10 + (uint64_t)(v[i] - '0');
    }
    *out = x;
    return 0;
}

/* Split a comma-separated header value into tokens with the surrounding
 * whitespace removed, calling fn for each non-empty one. */
static int each_token(const char *v, size_t n, int (*fn)(const char *, size_t, void *), void *arg)
{
    size_t i = 0;

    while (i < n) {
        size_t a, b;
        int rc;

        while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
            i++;
        a = i;
        while (i < n && v[i] != ',')
            i++;
        b = i;
        while (b > a && (v[b - 1] == ' ' || v[b - 1] == '\t'))
            b--;
        if (b > a && (rc = fn(v + a, b - a, arg)) < 0)
            return rc;
    }
    return 0;
}

struct head_state {
    bool close, keep_alive;
    bool te_seen, te_chunked_last;
    bool cl_seen;
    uint64_t cl;
};

static int connection_token(const char *t, size_t n, void *arg)
{
    struct head_state *st = arg;

    if (eq_nocase(t, n, "close"))
        st->close = true;
    else if (eq_nocase(t, n, "keep-alive"))
        st->keep_alive = true;
    return 0;
}

/* Transfer codings: "chunked" must come last and only once; a body in any
 * other final coding has no length this server could find. */
static int te_token(const char *t, size_t n, void *arg)
{
    struct head_state *st = arg;

    if (st->te_chunked_last)
        return -EINVAL;
    st->te_seen = true;
    st->te_chunked_last = eq_nocase(t, n, "chunked");
    return 0;
}

static int header(struct head_state *st, struct serve_req *req, const char *name, size_t nlen,
                  const char *v, size_t vlen)
{
    uint64_t cl;

    switch (nlen) {
    case 14:
        if (!eq_nocase(name, nlen, "content-length"))
            return 0;
        if (parse_length(v, vlen, &cl) < 0 || (st->cl_seen && cl != st->cl))
            return -EINVAL;
        st->cl_seen = true;
        st->cl = cl;
        return 0;
    case 17:
        if (!eq_nocase(name, nlen, "transfer-encoding"))
            return 0;
        return each_token(v, vlen, te_token, st);
    case 10:
        if (!eq_nocase(name, nlen, "connection"))
            return 0;
        return each_token(v, vlen, connection_token, st);
    case 6:
        if (eq_nocase(name, nlen, "expect") && eq_nocase(v, vlen, "100-continue"))
            req->expect_continue = true;
        return 0;
    default:
        return 0;
    }
}

/* Request line: token SP target SP "HTTP/1." DIGIT. */
static int request_line(const char *l, size_t n, struct serve_req *req)
{
    size_t i = 0, t0;

    while (i < n && is_tchar((unsigned char)l[i]))
        i++;
    if (i == 0 || i >= n || l[i] != ' ')
        return -EINVAL;
    req->head = (i == 4 && memcmp(l, "HEAD", 4) == 0);
    t0 = ++i;
    while (i < n && (unsigned char)l[i] > ' ' && l[i] != 0x7f)
        i++;
    if (i == t0 || i >= n || l[i] != ' ')
        return -EINVAL;
    req->status = status_for_target(l + t0, i - t0);
    i++;
    if (n - i != 8 || memcmp(l + i, "HTTP/1.", 7) != 0 || l[i + 7] < '0' || l[i + 7] > '9')
        return -EINVAL;
    req->http10 = (l[i + 7] == '0');
    return 0;
}

int serve_http_parse_head(const char *buf, size_t len, struct serve_req *req)
{
    const char *p = buf, *end = buf + len, *l;
    struct head_state st = {0};
    size_t n;
    int rc;

    memset(req, 0, sizeof *req);
    l = take_line(&p, end, &n);
    if (!l || (rc = request_line(l, n, req)) < 0)
        return -EINVAL;
    while ((l = take_line(&p, end, &n)) != NULL && n > 0) {
        size_t i = 0, v0, v1;

        /* Header names are tokens glued to the colon; a leading space
         * would be obs-fold, which RFC 9112 lets servers reject. */
        while (i < n && is_tchar((unsigned char)l[i]))
            i++;
        if (i == 0 || i >= n || l[i] != ':')
            return -EINVAL;
        v0 = i + 1;
        while (v0 < n && (l[v0] == ' ' || l[v0] == '\t'))
            v0++;
        for (size_t k = v0; k < n; k++) {
            unsigned char c = (unsigned char)l[k];

            if ((c < ' ' && c != '\t') || c == 0x7f)
                return -EINVAL;
        }
        v1 = n;
        while (v1 > v0 && (l[v1 - 1] == ' ' || l[v1 - 1] == '\t'))
            v1--;
        if ((rc = header(&st, req, l, i, l + v0, v1 - v0)) < 0)
            return rc;
    }
    if (!l)
        return -EINVAL; /* no blank line: not a complete head */
    if (st.te_seen && (!st.te_chunked_last || st.cl_seen))
        return -EINVAL;
    req->chunked = st.te_seen;
    req->content_length = st.cl_seen ? st.cl : 0;
    req->keep_alive = !st.close && (!req->http10 || st.keep_alive);
    if (req->http10)
        req->expect_continue = false;
    return 0;
}

int serve_http_chunk_size(const char *line, size_t len, uint64_t *size)
{
    uint64_t v = 0;
    size_t i = 0;
    int d;

    if (len > 0 && line[len - 1] == '\r')
        len--;
    /* 15 hex digits keep the size below 2^60: no overflow possible. */
    while (i < len && (d = hex_digit((unsigned char)line[i])) >= 0) {
        if (i == 15)
            return -EINVAL;
        v = v * 16 + (uint64_t)d;
        i++;
    }
    if (i == 0)
        return -EINVAL;
    while (i < len && (line[i] == ' ' || line[i] == '\t'))
        i++;
    if (i < len && line[i] != ';')
        return -EINVAL;
    for (; i < len; i++) {
        unsigned char c = (unsigned char)line[i];

        if ((c < ' ' && c != '\t') || c == 0x7f)
            return -EINVAL;
    }
    *size = v;
    return 0;
}

static const char *reason(int s)
{
    switch (s) {
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 203: return "Non-Authoritative Information";
    case 204: return "No Content";
    case 205: return "Reset Content";
    case 206: return "Partial Content";
    case 300: return "Multiple Choices";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 303: return "See Other";
    case 304: return "Not Modified";
    case 307: return "Temporary Redirect";
    case 308: return "Permanent Redirect";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 402: return "Payment Required";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 406: return "Not Acceptable";
    case 407: return "Proxy Authentication Required";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 411: return "Length Required";
    case 412: return "Precondition Failed";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 415: return "Unsupported Media Type";
    case 416: return "Range Not Satisfiable";
    case 417: return "Expectation Failed";
    case 418: return "I'm a teapot";
    case 421: return "Misdirected Request";
    case 422: return "Unprocessable Content";
    case 425: return "Too Early";
    case 426: return "Upgrade Required";
    case 428: return "Precondition Required";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 451: return "Unavailable For Legal Reasons";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    case 505: return "HTTP Version Not Supported";
    case 511: return "Network Authentication Required";
    default:
        break;
    }
    switch (s / 100) {
    case 2: return "Success";
    case 3: return "Redirection";
    case 4: return "Client Error";
    default: return "Server Error";
    }
}

/* Longest header built below: status line with the longest reason, four
 * fixed headers, a 20-digit length and "Connection: keep-alive". */
#define HDR_MAX 256

int serve_responses_init(struct serve_responses *r, size_t body_size)
{
    static const char *const conn_hdr[SERVE_NMODES] = {
        [SERVE_KEEP] = "",
        [SERVE_CLOSE] = "Connection: close\r\n",
        [SERVE_KEEP10] = "Connection: keep-alive\r\n",
    };
    size_t off = 0;

    memset(r, 0, sizeof *r);
    r->arena = malloc((size_t)SERVE_NSTATUS * SERVE_NMODES * HDR_MAX);
    if (!r->arena)
        return -ENOMEM;
    for (int s = SERVE_STATUS_MIN; s <= SERVE_STATUS_MAX; s++) {
        int i = s - SERVE_STATUS_MIN;
        /* 204 and 304 carry no body and no length (RFC 9110 8.6); 205
         * carries no body, so its length is 0. */
        bool no_len = (s == 204 || s == 304);
        bool no_body = no_len || s == 205;
        char len_hdr[48] = "";

        r->body_len[i] = no_body ? 0 : body_size;
        if (!no_len)
            snprintf(len_hdr, sizeof len_hdr, "Content-Length: %zu\r\n", r->body_len[i]);
        for (int m = 0; m < SERVE_NMODES; m++) {
            char *h = r->arena + off;
            int n = snprintf(h, HDR_MAX,
                             "HTTP/1.1 %d %s\r\n"
                             "Server: pacer-serve\r\n"
                             "%s"
                             "Content-Type: text/plain\r\n"
                             "%s"
                             "\r\n",
                             s, reason(s), len_hdr, conn_hdr[m]);

            if (n < 0 || n >= HDR_MAX) {
                serve_responses_free(r);
                return -EOVERFLOW;
            }
            r->hdr[i][m] = h;
            r->hdr_len[i][m] = (uint32_t)n;
            off += (size_t)n;
        }
    }
    return 0;
}

void serve_responses_free(struct serve_responses *r)
{
    free(r->arena);
    r->arena = NULL;
}
