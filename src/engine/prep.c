/*
 * prep.c - see prep.h.
 */
#include "engine/prep.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

/* -c 10000 needs 10000 sockets: find out now, not as connect errors. */
int engine_check_fds(const pc_config *cfg, char *err, size_t errlen)
{
    struct rlimit rl;
    rlim_t need = (rlim_t)cfg->connections + 4 * cfg->threads + 32;

    if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
        return 0;
    if (rl.rlim_cur >= need)
        return 0;
    if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= need) {
        rl.rlim_cur = need;
        if (setrlimit(RLIMIT_NOFILE, &rl) == 0)
            return 0;
    }
    snprintf(err, errlen,
             "-c %u needs about %llu file descriptors but the limit is %llu "
             "(raise it with 'ulimit -n %llu')",
             cfg->connections, (unsigned long long)need, (unsigned long long)rl.rlim_max,
             (unsigned long long)need);
    return -EMFILE;
}
