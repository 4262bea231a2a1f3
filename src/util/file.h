/*
 * file.h - opening an input file so that its errors say what happened.
 */
#ifndef PACER_UTIL_FILE_H
#define PACER_UTIL_FILE_H

#include <stdio.h>

/* fopen(path, mode) for reading a file: a directory fails here, with errno
 * EISDIR ("Is a directory"), instead of at the first read as an I/O error
 * (or as an empty file). NULL with errno set on failure. */
FILE *pc_fopen_read(const char *path, const char *mode);

#endif
