/*
 * hex.h - the value of a hexadecimal digit (chunk sizes, in both HTTP/1.1
 * parsers: the client's and the test server's).
 */
#ifndef PACER_UTIL_HEX_H
#define PACER_UTIL_HEX_H

/* 0..15 for '0'-'9', 'a'-'f' and 'A'-'F'; -1 for any other byte. */
static inline int hex_digit(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c |= 0x20;
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

#endif
