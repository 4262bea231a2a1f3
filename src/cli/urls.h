/*
 * urls.h - the request list of --urls FILE, and the single request made
 * from the URL argument.
 */
#ifndef PACER_CLI_URLS_H
#define PACER_CLI_URLS_H

#include <stddef.h>

#include "config.h"

/* Read a file of requests, one per line:
 *     [METHOD] URL [@BODYFILE] [WEIGHT]
 * METHOD defaults to the -X method; BODYFILE is read now; WEIGHT (a
 * positive number, for --mix random) defaults to 1. Blank lines and lines
 * starting with '#' are skipped. Appends to cfg->reqs. Returns 0, or
 * -EINVAL / -errno with "FILE:LINE: reason" in err. */
int urls_load(pc_config *cfg, const char *path, const char *dflt_method, char *err,
              size_t errlen);

/* Append one request. Copies method, url_text and body. 0 or -EINVAL
 * (bad URL, reason in err) / -ENOMEM. */
int urls_add(pc_config *cfg, const char *method, const char *url_text, const char *body,
             size_t body_len, double weight, char *err, size_t errlen);

/* Read a whole file (bodies, suite files). 0 or -errno; *out is heap,
 * *len bytes followed by a NUL that *len does not count. */
int urls_read_file(const char *path, char **out, size_t *len);

void urls_free(pc_config *cfg);

#endif
