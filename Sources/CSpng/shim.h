#ifndef REFERENCE_IMAGES_CSPNG_SHIM_H
#define REFERENCE_IMAGES_CSPNG_SHIM_H
#include <spng.h>
#endif
