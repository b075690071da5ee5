/* seatbelt-expected-defines.h — the profile parameters both Seatbelt suites expect, spelled out:
 * the workspace-write roots /Users/me/ws, /tmp and /var/folders/zz/abc/T when none of them holds
 * a repository (none exists on this host), so their git parameters name paths beneath
 * /dev/null, which match nothing. /tmp and /var are /private's on macOS.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <stddef.h>

static const char *const workspace_write_defines[] = {
  "-DWRITABLE_ROOT_0=/Users/me/ws",
  "-DWRITABLE_ROOT_0_GIT=/dev/null/.git",
  "-DWRITABLE_ROOT_0_GIT_HOOKS=/dev/null/.git/hooks",
  "-DWRITABLE_ROOT_0_GIT_CONFIG=/dev/null/.git/config",
  "-DWRITABLE_ROOT_0_GIT_CONFIG_WORKTREE=/dev/null/.git/config.worktree",
  "-DWRITABLE_ROOT_0_GIT_COMMONDIR=/dev/null/.git/commondir",
  "-DWRITABLE_ROOT_0_HEAD=/dev/null/HEAD",
  "-DWRITABLE_ROOT_1=/private/tmp",
  "-DWRITABLE_ROOT_1_GIT=/dev/null/.git",
  "-DWRITABLE_ROOT_1_GIT_HOOKS=/dev/null/.git/hooks",
  "-DWRITABLE_ROOT_1_GIT_CONFIG=/dev/null/.git/config",
  "-DWRITABLE_ROOT_1_GIT_CONFIG_WORKTREE=/dev/null/.git/config.worktree",
  "-DWRITABLE_ROOT_1_GIT_COMMONDIR=/dev/null/.git/commondir",
  "-DWRITABLE_ROOT_1_HEAD=/dev/null/HEAD",
  "-DWRITABLE_ROOT_2=/private/var/folders/zz/abc/T",
  "-DWRITABLE_ROOT_2_GIT=/dev/null/.git",
  "-DWRITABLE_ROOT_2_GIT_HOOKS=/dev/null/.git/hooks",
  "-DWRITABLE_ROOT_2_GIT_CONFIG=/dev/null/.git/config",
  "-DWRITABLE_ROOT_2_GIT_CONFIG_WORKTREE=/dev/null/.git/config.worktree",
  "-DWRITABLE_ROOT_2_GIT_COMMONDIR=/dev/null/.git/commondir",
  "-DWRITABLE_ROOT_2_HEAD=/dev/null/HEAD",
  NULL,
};
