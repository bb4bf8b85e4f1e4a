#ifndef REFERENCE_IMAGES_SYSTEM_CALLS_H
#define REFERENCE_IMAGES_SYSTEM_CALLS_H

/// Opens `path` relative to the folder `folder` with Linux's openat2(2), refusing any path that
/// leaves the folder or crosses a symbolic link (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS).
/// Returns -1 with errno ENOSYS where the kernel or the platform lacks openat2.
int ri_open_beneath(int folder, const char *path, int flags);

/// Renames `from` in `fromFolder` to `to` in `toFolder` unless `to` exists (Linux's
/// renameat2(2) with RENAME_NOREPLACE): -1 with errno EEXIST when it does. Returns -1 with
/// errno ENOSYS where the kernel or the platform lacks it, or EINVAL where the file system does.
int ri_rename_no_replace(int fromFolder, const char *from, int toFolder, const char *to);

/// Returns the heap's free pages to the system (glibc's malloc_trim(0)); does nothing where
/// the C library has no such call.
void ri_release_free_memory(void);

#endif
