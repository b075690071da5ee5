/* dsh-landlock-uapi.h — the Landlock kernel interface, as both Linux launchers use it: the
 * Landlock launcher to confine a command, the bubblewrap launcher to hold its command's writes
 * to the mounts it checked. Spelled out here because Debian 12's <linux/landlock.h> stops at
 * ABI 2; the values are fixed kernel ABI, and the syscall numbers are the same on every
 * architecture (the unified table from 424 on). Plain C, libc only.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif
#ifndef __NR_landlock_add_rule
#define __NR_landlock_add_rule 445
#endif
#ifndef __NR_landlock_restrict_self
#define __NR_landlock_restrict_self 446
#endif

#define LL_CREATE_RULESET_VERSION (1U << 0)
#define LL_RULE_PATH_BENEATH 1

#define LL_FS_EXECUTE (1ULL << 0)
#define LL_FS_WRITE_FILE (1ULL << 1)
#define LL_FS_READ_FILE (1ULL << 2)
#define LL_FS_READ_DIR (1ULL << 3)
#define LL_FS_REMOVE_DIR (1ULL << 4)
#define LL_FS_REMOVE_FILE (1ULL << 5)
#define LL_FS_MAKE_CHAR (1ULL << 6)
#define LL_FS_MAKE_DIR (1ULL << 7)
#define LL_FS_MAKE_REG (1ULL << 8)
#define LL_FS_MAKE_SOCK (1ULL << 9)
#define LL_FS_MAKE_FIFO (1ULL << 10)
#define LL_FS_MAKE_BLOCK (1ULL << 11)
#define LL_FS_MAKE_SYM (1ULL << 12)
#define LL_FS_REFER (1ULL << 13)    /* ABI 2 */
#define LL_FS_TRUNCATE (1ULL << 14) /* ABI 3 */
#define LL_FS_IOCTL_DEV (1ULL << 15) /* ABI 5 */

/* Rights that mean something on a non-directory; the kernel refuses others on a file rule. */
#define LL_FS_FILE_RIGHTS \
  (LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE | LL_FS_TRUNCATE | LL_FS_IOCTL_DEV)

struct ll_ruleset_attr {
  uint64_t handled_access_fs;
  uint64_t handled_access_net; /* ABI 4; never set: network is out of scope */
  uint64_t scoped;             /* ABI 6 */
};

#define LL_SCOPE_SIGNAL (1ULL << 1) /* ABI 6 */

struct ll_path_beneath_attr {
  uint64_t allowed_access;
  int32_t parent_fd;
} __attribute__ ((packed));

/* Every file-system right the running ABI knows; rights of newer ABIs than this file knows stay
 * unhandled (the kernel would reject them anyway). */
static inline uint64_t
dsh_landlock_handled_rights (long abi)
{
  uint64_t rights = LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE | LL_FS_READ_DIR |
                    LL_FS_REMOVE_DIR | LL_FS_REMOVE_FILE | LL_FS_MAKE_CHAR | LL_FS_MAKE_DIR |
                    LL_FS_MAKE_REG | LL_FS_MAKE_SOCK | LL_FS_MAKE_FIFO | LL_FS_MAKE_BLOCK |
                    LL_FS_MAKE_SYM;

  if (abi >= 2)
    rights |= LL_FS_REFER;
  if (abi >= 3)
    rights |= LL_FS_TRUNCATE;
  if (abi >= 5)
    rights |= LL_FS_IOCTL_DEV;
  return rights;
}

/* Reading everywhere: device ioctls come with it (device policy is out of scope). */
static inline uint64_t
dsh_landlock_read_rights (uint64_t handled)
{
  return handled & (LL_FS_EXECUTE | LL_FS_READ_FILE | LL_FS_READ_DIR | LL_FS_IOCTL_DEV);
}

/* Everything beneath a writable directory except creating device nodes: a caller running as
 * root could otherwise mknod a disk there and write the host through it. */
static inline uint64_t
dsh_landlock_write_rights (uint64_t handled)
{
  return handled & ~(LL_FS_MAKE_CHAR | LL_FS_MAKE_BLOCK);
}

/* The running kernel's Landlock ABI, or -1 with errno set when it has none to offer. */
static inline long
dsh_landlock_abi (void)
{
  return syscall (__NR_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
}
