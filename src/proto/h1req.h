/*
 * h1req.h - HTTP/1.1 request bytes, built once per distinct request and
 * then only copied (or written straight from this buffer) per request.
 */
#ifndef PACER_PROTO_H1REQ_H
#define PACER_PROTO_H1REQ_H

#include <stddef.h>

#include "config.h"

/* Build "METHOD path HTTP/1.1", a Host header (unless the user gave one),
 * the user's headers in order, Content-Length when body_len > 0, the blank
 * line and the body. *out is heap memory owned by the caller. Returns 0 or
 * -ENOMEM. */
int h1req_build(const char *method, const pc_url *url, const pc_header *hdrs, size_t nhdrs,
                const char *body, size_t body_len, char **out, size_t *out_len);

#endif
