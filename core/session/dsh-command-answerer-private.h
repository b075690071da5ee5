/* dsh-command-answerer-private.h — what the approver command needs from the platform: handing
 * it the request on its stdin, and reading the start of a file it runs without hanging on one
 * that is not a regular file. dsh-command-answerer-unix.c and dsh-command-answerer-windows.c
 * answer them.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Before the spawn: arranges for the approver's stdin to deliver text (launcher was made with
 * G_SUBPROCESS_FLAGS_STDOUT_PIPE). */
gboolean dsh_approver_stdin_prepare (GSubprocessLauncher *launcher,
                                     const char          *text,
                                     GError             **error);

/* After the spawn: whatever of text the prepared stdin still has to carry. */
void     dsh_approver_stdin_deliver (GSubprocess         *process,
                                     const char          *text);

/* Before the approver is killed early (a timeout, a withdrawn question): whatever it started
 * and still waits for is killed, where the platform can find it (Linux). */
void     dsh_approver_stop_descendants (GSubprocess   *process);

/* Reads up to size bytes from the start of path when it is a regular file: how many, or -1. */
gssize   dsh_approver_read_head     (const char          *path,
                                     char                *buf,
                                     gsize                size);

G_END_DECLS
