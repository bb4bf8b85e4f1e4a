#include "SystemCalls.h"

#include <errno.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#if defined(__linux__)
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

int ri_open_beneath(int folder, const char *path, int flags) {
#if defined(__linux__) && defined(SYS_openat2)
  struct open_how how = {0};
  how.flags = (unsigned long long)flags;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS;
  return (int)syscall(SYS_openat2, folder, path, &how, sizeof how);
#else
  (void)folder;
  (void)path;
  (void)flags;
  errno = ENOSYS;
  return -1;
#endif
}

int ri_rename_no_replace(int fromFolder, const char *from, int toFolder, const char *to) {
#if defined(__linux__) && defined(SYS_renameat2)
  return (int)syscall(SYS_renameat2, fromFolder, from, toFolder, to, 1 /* RENAME_NOREPLACE */);
#else
  (void)fromFolder;
  (void)from;
  (void)toFolder;
  (void)to;
  errno = ENOSYS;
  return -1;
#endif
}

void ri_release_free_memory(void) {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}
