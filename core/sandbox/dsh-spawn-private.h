/* dsh-spawn-private.h — running a command and watching its stderr: the one spawn path of both
 * exec (streaming, signals forwarded) and backend probes (quiet, bounded in time).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dsh-confinement-private.h"

G_BEGIN_DECLS

typedef struct {
  /* Working directory of the command, or NULL to inherit. */
  const char *cwd;
  /* Probes: stdin and stdout on /dev/null and stderr only captured. Otherwise stdin and stdout
   * are inherited and stderr is streamed to ours as it comes. */
  gboolean quiet;
  /* Kill the command (SIGKILL) after this long; 0 waits for ever. */
  guint timeout_ms;
  /* Forward SIGINT, SIGTERM, SIGHUP and SIGQUIT to the command while it runs. */
  gboolean forward_signals;
  /* Close every descriptor above stderr in the command: a sandbox governs what a command can
   * open, so a writable descriptor inherited from the caller would reach around it. */
  gboolean close_inherited_fds;
  /* Descriptors above stderr the command gets open all the same (ascending, close-on-exec
   * here): those a backend's first step opened for its runner. */
  const int *keep_fds;
  gsize n_keep_fds;
  /* The command's environment (NULL-terminated "NAME=value"), or NULL for ours. */
  char *const *envp;
  /* Whose denials to look for in a flood of stderr too large to keep, or NULL. */
  const DshConfinement *confinement;
  /* Set (when not NULL) to whether the stderr streamed to ours stopped in the middle of a
   * line, so that a line of ours after it can start one. */
  gboolean *stderr_mid_line;
} DshSpawnOptions;

/* Runs argv (looked up on PATH when it has no slash). A copy of its stderr, up to a limit, is
 * appended to captured. *exit_code is its exit status, 128+N for signal N (then *term_signal
 * is N, else 0). FALSE with an error only when it could not be started. */
gboolean dsh_spawn_run (const char *const     *argv,
                        const DshSpawnOptions *options,
                        int                   *exit_code,
                        int                   *term_signal,
                        GString               *captured,
                        GError               **error);

G_END_DECLS
