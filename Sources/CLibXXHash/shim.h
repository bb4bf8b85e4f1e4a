#ifndef REFERENCE_IMAGES_CLIBXXHASH_SHIM_H
#define REFERENCE_IMAGES_CLIBXXHASH_SHIM_H
// xxHash's header from the system (Debian's libxxhash-dev): `CXXHash` compiles it inline, so
// nothing links the shared library.
#include <xxhash.h>
#endif
