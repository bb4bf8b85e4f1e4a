#ifndef REFERENCE_IMAGES_CARCHIVE_SHIM_H
#define REFERENCE_IMAGES_CARCHIVE_SHIM_H
#include <archive.h>
#include <archive_entry.h>
#include <sys/stat.h>

// Swift cannot import the function-like AE_IF* macros' file-type constants
// as typed values; these re-export them.
static inline unsigned int ri_archive_filetype_regular(void) { return AE_IFREG; }
static inline unsigned int ri_archive_filetype_directory(void) { return AE_IFDIR; }
static inline unsigned int ri_archive_filetype_symlink(void) { return AE_IFLNK; }
#endif
