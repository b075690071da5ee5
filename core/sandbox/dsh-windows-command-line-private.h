/* dsh-windows-command-line-private.h — spelling an argv as the one command line a Windows
 * program receives. Plain string logic, built and tested on every host.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The command line that hands argv, exactly, to a program that parses it the way the Microsoft
 * C runtime and CommandLineToArgvW do. NULL with G_SPAWN_ERROR_FAILED when argv is empty or
 * argv[0] cannot be spelled there (a quote, or an empty name). A new string. */
char *dsh_windows_command_line (const char *const *argv,
                                GError           **error);

G_END_DECLS
