#ifndef REFERENCE_IMAGES_CLIBPNG_SHIM_H
#define REFERENCE_IMAGES_CLIBPNG_SHIM_H
// libpng, used only by the benchmarks as the baseline decoder (through its simplified
// png_image API, which reports errors without longjmp crossing Swift frames).
#include <png.h>
#endif
