/*
 * h1req.h - HTTP/1.1 request bytes, built once per distinct request and
 * then only copied (or written straight from this buffer) per request.
 */
#ifndef PACER_PROTO_H1REQ_H
#define PACER_PROTO_H1REQ_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "proto/reqsrc.h"

/* Build "METHOD path HTTP/1.1", a Host header (unless the user gave one),
 * the user's headers in order, Content-Length when body_len > 0, the blank
 * line and the body. *out is heap memory owned by the caller. Returns 0 or
 * -ENOMEM. */
int h1req_build(const char *method, const char *path, const char *hostport, const pc_header *hdrs,
                size_t nhdrs,
                const char *body, size_t body_len, char **out, size_t *out_len);

/* One HTTP/1.1 request taken apart (spans into the parsed text). */
#define H1REQ_MAX_HEADERS 64
typedef struct h1req_parsed {
    const char *method, *target;
    size_t method_len, target_len;
    struct {
        const char *name, *value;
        size_t nlen, vlen;
    } h[H1REQ_MAX_HEADERS];
    size_t nh;
    const char *body;
    size_t body_len;
} h1req_parsed;

/* Is p[0..n) one or more well-formed HTTP/1.1 requests (RFC 9112), as a
 * script's request() or wrk.format() text must be before any protocol
 * sends it: each a request line "token SP target SP HTTP/d.d CRLF" (the
 * target printable, no blank), header lines "token: value CRLF" (a name
 * of tchars only, a value with no CR, LF, NUL or other control byte but
 * HTAB), no obs-fold, at most H1REQ_MAX_HEADERS of them (what HTTP/2 and
 * HTTP/3 take apart), a blank line, then exactly Content-Length bytes of
 * body (one Content-Length, digits only, not with Transfer-Encoding), and
 * nothing after the last request. 0, or -EINVAL with the first fault in
 * why[0..cap) (its words, naming the header). */
int h1req_check(const char *p, size_t n, char *why, size_t cap);

/* Parse the first request in p[0..n) (a script's request text, to send
 * it over HTTP/2). Returns the bytes it took, or -EINVAL. */
long h1req_parse(const char *p, size_t n, h1req_parsed *out);

/* A header field of an HTTP/2 or HTTP/3 request (spans, not copies). */
typedef pc_field h1req_field;
#define H1REQ_MAX_FIELDS (H1REQ_MAX_HEADERS + 4)

/* Whether a header (its name lower-cased: low[0..nlen)) is left out of
 * an HTTP/2 or HTTP/3 request: the connection-specific ones (RFC 9113
 * 8.2.2, RFC 9114 4.2), Host (it becomes :authority), and TE unless it is
 * "trailers". */
bool h1req_field_dropped(const char *low, size_t nlen, const char *value, size_t vlen);

/* A parsed request as HTTP/2 or HTTP/3 header fields: :method, :scheme,
 * :authority (its Host header, else `authority`), :path, then its headers
 * with their names lower-cased into names[0..cap), those
 * h1req_field_dropped says left out; headers that do not fit in names are
 * dropped. out holds H1REQ_MAX_FIELDS. Returns the count. */
size_t h1req_fields(const h1req_parsed *r, const char *scheme, const char *authority,
                    h1req_field *out, char *names, size_t cap);

#endif
