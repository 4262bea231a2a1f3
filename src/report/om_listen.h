/*
 * om_listen.h - the tiny HTTP listener behind --metrics-listen: one
 * thread of its own (never a load worker: the load threads never wait on
 * it) that answers GET /metrics with a page a callback writes, and treats
 * every client as hostile:
 *
 *   - at most OML_MAX_CLIENTS connections at once; one more is answered
 *     503 (best effort, never waited on) and closed at once;
 *   - a request head of at most OML_REQ_MAX bytes (431 past it), read and
 *     answered within OML_CLIENT_NS of the connect, or the connection is
 *     closed: a client that connects and sends nothing, or reads nothing,
 *     holds one slot for that long and never the thread;
 *   - GET only (405 with Allow: GET), /metrics only (404), a malformed
 *     request line 400; one response per connection (Connection: close).
 *
 * Sockets are non-blocking and polled; nothing a client sends can crash or
 * stall the thread.
 */
#ifndef PACER_REPORT_OM_LISTEN_H
#define PACER_REPORT_OM_LISTEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define OML_MAX_CLIENTS 8
#define OML_REQ_MAX 4096
#define OML_CLIENT_NS 2000000000ull

typedef struct oml oml;

/* What a client's first len bytes ask for (pure; in need not be
 * NUL-terminated): OML_MORE, no blank line yet and under OML_REQ_MAX;
 * OML_TOO_LARGE, none within OML_REQ_MAX bytes; else by the request line,
 * "METHOD SP TARGET SP HTTP/1.D": OML_BAD (not one), OML_METHOD (not
 * GET), OML_PATH (not /metrics, with or without a query), OML_PAGE. */
typedef enum { OML_MORE, OML_TOO_LARGE, OML_BAD, OML_METHOD, OML_PATH, OML_PAGE } oml_ask;
oml_ask oml_request(const char *in, size_t len);

/* The page's body and content type, written on the listener thread for
 * each GET /metrics: 0 with *body a malloc'd buffer of *len bytes (freed
 * by the listener), or a negative errno (the client gets a 500). */
typedef int (*oml_page_fn)(void *ud, char **body, size_t *len, const char **ctype);

/* ADDR:PORT (a.b.c.d:P, [v6]:P or NAME:P; PORT 1..65535) into *ss.
 * 0, -EINVAL (malformed; why in err), or another negative errno
 * (the name did not resolve; why in err). resolve false: the syntax alone
 * (the command line's check). */
int oml_parse_addr(const char *s, bool resolve, struct sockaddr_storage *ss, socklen_t *len,
                   char *err, size_t errlen);

/* Bind and listen on addr (ADDR:PORT) and start the thread. 0, or a
 * negative errno with one line in err ("127.0.0.1:9100: Address already
 * in use"); *out is NULL then. */
int oml_start(oml **out, const char *addr, oml_page_fn page, void *ud, char *err,
              size_t errlen);

/* Connections refused for want of a slot, so far (any thread). */
uint64_t oml_refused(const oml *l);

/* Stop the thread, close every socket, free. NULL is fine. */
void oml_stop(oml *l);

#endif
