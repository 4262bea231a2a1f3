/*
 * file.c - see file.h.
 */
#include "util/file.h"

#include <errno.h>
#include <sys/stat.h>

FILE *pc_fopen_read(const char *path, const char *mode)
{
    FILE *f = fopen(path, mode);
    struct stat st;

    if (f && fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        errno = EISDIR;
        return NULL;
    }
    return f;
}
