#ifndef REFERENCE_IMAGES_CLIBCRYPTO_SHIM_H
#define REFERENCE_IMAGES_CLIBCRYPTO_SHIM_H
// OpenSSL's libcrypto, for SHA-256 (it uses the CPU's SHA instructions where present) and
// HMAC-SHA256 (the S3 store's Signature Version 4).
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

// Initialises libcrypto without its exit-time cleanup. The coordinator hashes images on
// background threads while the process exits (Swift Testing runs end with exit()); OpenSSL's
// own atexit handler would free its locks under those threads and crash them.
static inline int ri_openssl_init_without_atexit(void) {
  return OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL);
}
#endif
