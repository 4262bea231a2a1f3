# libs.mk - the libraries pacer links, named once for the Makefile and
# tests/fuzz/fuzz.mk (which includes this through its own path, so it works
# on its own too): pkg-config names, and the flags to use where pkg-config
# cannot answer.
PACER_PKGS     := openssl zlib libnghttp2 luajit jansson libngtcp2 libngtcp2_crypto_gnutls \
                  libnghttp3 gnutls
PACER_LIBS_ANY := -lssl -lcrypto -lz -lnghttp2 -lluajit-5.1 -ljansson -lngtcp2 \
                  -lngtcp2_crypto_gnutls -lnghttp3 -lgnutls
