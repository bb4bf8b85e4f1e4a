#ifndef REFERENCE_IMAGES_CLIBDEFLATE_SHIM_H
#define REFERENCE_IMAGES_CLIBDEFLATE_SHIM_H
// libdeflate: whole-buffer inflate, several times faster than zlib's streaming one when the
// output size is known, as it is for PNG image data.
#include <libdeflate.h>
#endif
