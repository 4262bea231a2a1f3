/*
 * sha256.h - a SHA-256 digest in hex (OpenSSL's EVP underneath), so the
 * result files can identify a request body without holding it.
 */
#ifndef PACER_NET_SHA256_H
#define PACER_NET_SHA256_H

#include <stddef.h>

/* hex receives 64 hex digits and a NUL; "" on failure. */
void pc_sha256_hex(const void *p, size_t n, char hex[65]);

#endif
