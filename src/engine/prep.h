/*
 * prep.h - what engine_prepare checks and builds before any connection:
 * the file descriptor limit, the source addresses.
 */
#ifndef PACER_ENGINE_PREP_H
#define PACER_ENGINE_PREP_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"

/* -c 10000 needs 10000 sockets: find out now (raising the soft limit when
 * the hard one allows), not as connect errors. 0 or -EMFILE (why in err). */
int engine_check_fds(const pc_config *cfg, char *err, size_t errlen);

/* Connections per source address past which a loopback run spreads its
 * connections over 127.0.0.1..N by itself. */
#define ENGINE_SOURCE_CONNS 2000

/* The IPv4 source addresses the connections bind to, round robin: *lo
 * (host order) and the *n after it (0: none, the kernel chooses). From
 * --source, whose two ends are checked to be this machine's (-EADDRNOTAVAIL,
 * why in err); else, when *auto_lo is set, 127.0.0.1 and as many more as
 * -c needs at ENGINE_SOURCE_CONNS each, for loopback targets only. */
int engine_sources(const pc_config *cfg, uint32_t *lo, uint32_t *n, bool *auto_lo, char *err,
                   size_t errlen);

#endif
