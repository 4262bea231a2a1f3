/*
 * url.h - parsing of the target URL.
 */
#ifndef PACER_CLI_URL_H
#define PACER_CLI_URL_H

#include <stddef.h>

#include "config.h"

/* Parse an http:// or https:// URL into *u. Host may be a name, an IPv4
 * literal or a bracketed IPv6 literal; the port defaults to 80/443; the
 * path and query are kept byte for byte ("/" when absent); a fragment is
 * dropped (it is never sent). Returns 0, or -EINVAL with a one-line reason
 * in err. On success u->path is heap memory: release with url_free(). */
int url_parse(const char *s, pc_url *u, char *err, size_t errlen);

void url_free(pc_url *u);

#endif
