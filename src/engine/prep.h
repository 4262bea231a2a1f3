/*
 * prep.h - what engine_prepare checks and builds before any connection:
 * the file descriptor limit.
 */
#ifndef PACER_ENGINE_PREP_H
#define PACER_ENGINE_PREP_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"

/* -c 10000 needs 10000 sockets: find out now (raising the soft limit when
 * the hard one allows), not as connect errors. 0 or -EMFILE (why in err). */
int engine_check_fds(const pc_config *cfg, char *err, size_t errlen);

#endif
