/* dsh-spawn-start-private.h — starting the command's process: its descriptors 0-2, working
 * directory and signal dispositions, and nothing else of ours.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>
#include <signal.h>
#include <sys/types.h>

G_BEGIN_DECLS

typedef struct {
  /* Put on 0 and 1 of the command, or -1 to leave them as they are. */
  int stdin_fd;
  int stdout_fd;
  /* Put on 2. */
  int stderr_fd;
  /* 0 and 1 on /dev/null instead (probes). */
  gboolean null_stdio;
  /* Working directory of the command, or NULL to inherit. */
  const char *cwd;
  /* Close every descriptor above 2 in the command... */
  gboolean close_inherited_fds;
  /* ...but these (ascending, above 2, close-on-exec here), which it gets open. Linux only. */
  const int *keep_fds;
  gsize n_keep_fds;
  /* Signals the command starts with at their default disposition even if ours ignores them. */
  const sigset_t *defaults;
} DshSpawnStart;

/* Starts argv (looked up on PATH when argv[0] has no slash) with envp, as start says. Returns 0
 * with *pid set, or the errno that kept it from starting (as posix_spawnp() does). Every signal
 * this process catches starts at its default in the command, whatever ignores stay ignored, and
 * the command starts with this thread's signal mask. */
int dsh_spawn_start (pid_t *pid, const char *const *argv, char *const *envp,
                     const DshSpawnStart *start);

/* Tests: from now on, reset caught signals in the child one by one, as where the kernel cannot
 * reset them while cloning. */
void dsh_spawn_start_reset_handlers_for_testing (void);

G_END_DECLS
