/*
 * sha256.c - see sha256.h.
 */
#include "net/sha256.h"

#include <openssl/evp.h>
#include <stdio.h>

void pc_sha256_hex(const void *p, size_t n, char hex[65])
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;

    hex[0] = 0;
    if (EVP_Digest(p, n, md, &len, EVP_sha256(), NULL) != 1)
        return;
    for (unsigned int i = 0; i < len && i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", md[i]);
}
