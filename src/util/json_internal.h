/*
 * json_internal.h - what util/json.c needs from the writer in json_w.c.
 */
#ifndef PACER_UTIL_JSON_INTERNAL_H
#define PACER_UTIL_JSON_INTERNAL_H

#include "util/json.h"

/* Write text, a valid JSON number literal (not checked), as a value: how
 * json_w_value copies an integer literal exactly that no C type holds. */
void json__w_raw(json_w *w, const char *text);

#endif
