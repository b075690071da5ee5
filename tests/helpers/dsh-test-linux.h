/* dsh-test-linux.h — what the Linux integration suites add to dsh-test-util.h: the kernel's
 * Landlock ABI, and the unavailable text spelled out (not taken from the library).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <unistd.h>

#include "dsh-test-seccomp.h"
#include "dsh-test-util.h"

/* The exact SANDBOX_UNAVAILABLE text; compared verbatim. */
#define UNAVAILABLE_TEXT(mode) \
  "sandbox mode \"" mode "\" is requested but no sandbox backend is usable on this host; " \
  "refusing to run the command unconfined. Install bubblewrap or run a Landlock-enforcing " \
  "kernel (Linux), ensure sandbox-exec is usable (macOS), or ensure the ACL restricted-token " \
  "runner can start (Windows) \u2014 otherwise switch the consumer to danger-full-access."

/* The kernel's Landlock ABI version, or -1 (LANDLOCK_CREATE_RULESET_VERSION). */
static inline long
dsh_test_landlock_abi (void)
{
  return syscall (__NR_landlock_create_ruleset, NULL, 0, 1U);
}

/* Skips (outside CI) unless the kernel enforces Landlock. */
static inline gboolean
dsh_test_require_landlock (void)
{
  return dsh_test_require (dsh_test_landlock_abi () >= 1, "the kernel does not enforce Landlock");
}
