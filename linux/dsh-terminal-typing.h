/* dsh-terminal-typing.h — the ioctl requests by which a command could make a terminal read text
 * it chose, refused by both launchers' seccomp filters on any descriptor. Whatever reads that
 * terminal next (the user's shell, the harness's next command) would run the text unconfined:
 *   - TIOCSTI pushes bytes into the input queue, TIOCLINUX's paste pastes the selection;
 *   - on a virtual console, KDSKBSENT sets the text a function key types, KDSKBENT and
 *     KDSETKEYCODE remap keys onto it, KDSKBDIACR and KDSKBDIACRUC remap the accent table: the
 *     user's next keystroke types the command's text.
 * The kernel allows them on the caller's own controlling terminal: the Landlock backend's
 * command keeps the caller's, and a command of either backend can take one that is no
 * session's yet (setsid, then TIOCSCTTY). Linux 6.18 wants CAP_SYS_TTY_CONFIG besides for the
 * key and function-key tables, which the command lacks, but not for the accent table; older
 * kernels asked less.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <linux/kd.h>
#include <sys/ioctl.h>

static const unsigned int dsh_terminal_typing_requests[] = {
  TIOCSTI, TIOCLINUX, KDSKBSENT, KDSKBENT, KDSETKEYCODE, KDSKBDIACR, KDSKBDIACRUC,
};

#define DSH_N_TERMINAL_TYPING_REQUESTS \
  (sizeof dsh_terminal_typing_requests / sizeof dsh_terminal_typing_requests[0])
