/*
 * h1parse.h - incremental, zero-copy HTTP/1.1 response parser (RFC 9112).
 *
 * The engine keeps a per-connection read buffer and calls h1_feed() on the
 * bytes it holds; h1_feed() says how many it consumed. Bytes not consumed
 * must be presented again, at the start of the next call, followed by newly
 * read data. In the line phases (status line, header lines, chunk-size
 * lines, trailer lines) only whole lines are consumed, so every header is
 * handed to on_header in one piece as pointers into the caller's buffer;
 * body bytes are consumed as they arrive and never re-presented.
 *
 * Bytes held back are always fewer than max_header_bytes: a line that is
 * still unfinished when it could no longer fit is an error at once, so a
 * read buffer of max_header_bytes never fills up with an unfinished line.
 *
 * The input is hostile: every byte of the head is validated, every length
 * is bounded, nothing is allocated, and no input can make the parser read
 * outside [buf, buf + len).
 */
#ifndef PACER_PROTO_H1PARSE_H
#define PACER_PROTO_H1PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
    H1_NEED_MORE = 0,    /* all bytes that can be consumed were; call again with more */
    H1_DONE = 1,         /* a final response ended; *consumed stops at its last byte */
    /* Errors, each distinct so the engine can count them by kind. After
     * one the parser is stuck on it until h1_begin(); the connection must
     * be closed, as its framing can no longer be trusted. */
    H1_E_STATUS = -1,    /* malformed status line (not "HTTP/1.x DDD[ reason]") */
    H1_E_HEADER = -2,    /* malformed header line (no colon, bad name, obs-fold, bare CR...) */
    H1_E_TOO_BIG = -3,   /* status line + headers (or trailers) exceed max_header_bytes */
    H1_E_LENGTH = -4,    /* invalid/conflicting Content-Length */
    H1_E_CHUNK = -5,     /* bad chunk-size line, no CRLF after chunk data, size overflow */
    H1_E_TRUNCATED = -6, /* from h1_eof: connection closed before the response ended */
    H1_E_UPGRADE = -7,   /* 101 Switching Protocols (not supported) */
};

typedef struct h1_parser {
    /* Set by h1_init, may be changed between responses. */
    /* Default 65536. Bounds the status line + headers of the final response
     * together with any 1xx responses before it (so an endless stream of
     * 1xx cannot go on forever); the trailers separately; a chunk-size line
     * to the smaller of this and 4096 bytes. */
    uint32_t max_header_bytes;
    void *ud;                  /* passed to callbacks */

    /* Optional callbacks; NULL = not called (the default, fast path).
     * Pointers are into the caller's buffer and valid only during the call.
     * A non-zero return aborts h1_feed, which returns that value; use
     * values that cannot be confused with H1_* codes (e.g. -100 and below).
     * The bytes handed to the aborting callback count as consumed. */

    /* Each header of the final response, value trimmed of OWS; then each
     * trailer, after on_headers_done. Never called for 1xx responses. */
    int (*on_header)(void *ud, const char *name, size_t nlen,
                     const char *value, size_t vlen);
    /* Once, when the final response's head is complete, before any body;
     * status, content_length, chunked and keep_alive are set by then. */
    int (*on_headers_done)(void *ud);
    /* Decoded body bytes (chunk framing removed), never an empty piece. */
    int (*on_body)(void *ud, const char *p, size_t len);

    /* Results for the current response, valid once headers_done. */
    int status;             /* e.g. 200 */
    int version_minor;      /* x of HTTP/1.x: 0 or 1 (any digit accepted; >= 1 is 1.1) */
    int64_t content_length; /* -1 if absent or overridden by Transfer-Encoding */
    bool chunked;           /* Transfer-Encoding ends in chunked */
    /* Both Transfer-Encoding: chunked and Content-Length, a request-smuggling
     * shape (RFC 9112 6.3, 11.2): read as chunked, keep_alive false. */
    bool chunked_with_length;
    bool keep_alive;        /* after H1_DONE: may the connection carry another request? */
    bool headers_done;
    uint64_t header_bytes;  /* status line + headers of the final response, plus 1xx ones */
    uint64_t body_bytes;    /* decoded body bytes so far */
    uint64_t wire_bytes;    /* all bytes consumed for this response (as h1_feed returns) */

    /* Private state: only h1parse.c touches these. */
    uint8_t st_;
    bool head_req_, interim_, cl_seen_, te_seen_, conn_close_, conn_keep_;
    int err_;
    uint32_t held_;         /* bytes held back at the last return, known to hold no LF */
    uint64_t trailer_bytes_;
    uint64_t remain_;       /* body or chunk bytes still to come */
} h1_parser;

/* Zero every field, set max_header_bytes to 65536 and get ready for a
 * response to a non-HEAD request (as h1_begin(p, false)). */
void h1_init(h1_parser *p);

/* Start parsing a new response on the same connection: clears results and
 * state, keeps max_header_bytes, ud and the callbacks. head_request: the
 * request was HEAD, so the response has no body whatever its headers say.
 * Call it after every H1_DONE before feeding the next response's bytes. */
void h1_begin(h1_parser *p, bool head_request);

/* Parse buf[0..len). Sets *consumed (always) to the bytes used; the rest
 * must be presented again at the start of the next call. Returns
 * H1_NEED_MORE, H1_DONE (for a Content-Length or chunked body *consumed
 * ends exactly at the response's last byte; what follows may be a
 * pipelined response), an H1_E_* code, or a callback's abort value.
 * 1xx interim responses are skipped within the call (101 is H1_E_UPGRADE).
 * A close-delimited body is consumed whole and only h1_eof ends it. Once
 * done or failed it returns the same result again, consuming nothing. */
int h1_feed(h1_parser *p, const char *buf, size_t len, size_t *consumed);

/* The peer closed the connection. Returns H1_DONE if that ends a
 * close-delimited body (keep_alive is then false) or the response had
 * already ended, H1_E_TRUNCATED if a response was in progress (including
 * a partial status line held back unconsumed), H1_NEED_MORE if no byte of a
 * response had arrived (an idle close; the engine decides what it means). */
int h1_eof(h1_parser *p);

/* Body bytes that may be passed over unseen now: what is left of a
 * Content-Length body or of the current chunk, when on_body is not set
 * (nobody reads the bytes); 0 otherwise. */
uint64_t h1_skippable(const h1_parser *p);
/* n (1..h1_skippable()) body bytes went by unseen (the transport dropped
 * them): counted as h1_feed would count them. H1_DONE when they end the
 * response, else H1_NEED_MORE. */
int h1_skip(h1_parser *p, uint64_t n);

/* Whether any byte of this response has arrived: consumed, or presented
 * and held back as an unfinished line. A status line arrives as a whole,
 * so "consumed" alone would miss a response cut inside its first line. */
bool h1_started(const h1_parser *p);

/* Human text for an H1_* code ("malformed status line"); never NULL.
 * Codes from no H1_* constant (callback aborts) give "aborted by callback". */
const char *h1_strerror(int code);

#endif
