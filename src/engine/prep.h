/*
 * prep.h - what engine_prepare checks and builds before any connection:
 * the file descriptor limit, the ALPN list's wire form.
 */
#ifndef PACER_ENGINE_PREP_H
#define PACER_ENGINE_PREP_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"

/* -c 10000 needs 10000 sockets: find out now (raising the soft limit when
 * the hard one allows), not as connect errors. 0 or -EMFILE (why in err). */
int engine_check_fds(const pc_config *cfg, char *err, size_t errlen);

/* ALPN wire format from "h2,http/1.1". Returns the length, or -EINVAL. */
int engine_alpn_wire(const char *list, unsigned char *out, size_t cap, bool *has_h2, bool *has_h1);

#endif
