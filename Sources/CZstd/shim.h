#ifndef REFERENCE_IMAGES_CZSTD_SHIM_H
#define REFERENCE_IMAGES_CZSTD_SHIM_H
// Zstandard, for the compressed objects of Xcode result bundles (`Data/data.<id>`).
#include <zstd.h>
#endif
