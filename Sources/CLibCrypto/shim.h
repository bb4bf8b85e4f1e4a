#ifndef REFERENCE_IMAGES_CLIBCRYPTO_SHIM_H
#define REFERENCE_IMAGES_CLIBCRYPTO_SHIM_H
// OpenSSL's libcrypto, for SHA-256 (it uses the CPU's SHA instructions where present).
#include <openssl/evp.h>
#endif
