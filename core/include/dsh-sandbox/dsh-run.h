/* dsh-run.h — one whole confined call, in plain C: the trust checks, confinement by the best
 * backend of this host, the spawn with stdio only, classification and the denial marker. It
 * starts no GType, so the leanest caller can use it.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib-object.h>

#include "dsh-classify.h"
#include "dsh-policy.h"
#include "dsh-api.h"

G_BEGIN_DECLS

/* How to run: zero-initialise it ({ 0 }) for the installed defaults and set what differs. */
typedef struct {
  /* The workspace as the caller spelled it, checked for planted symlinks before a
   * workspace-write run; NULL: the policy's workspace root. */
  const char *spelled_workspace;
  /* With a session: its ISO 8601 creation time (a symlink on the way made since is refused). */
  const char *session_created;
  /* Where the backend modules and their helper programs are; NULL: the installed ones. */
  const char *const *backend_dirs;
  const char *const *helper_dirs;
  /* A cross-process cache of probe results (a file); NULL: none. */
  const char *probe_cache;
  /* The executable of an uninstalled development build, whose tree stays trusted even under
   * /tmp or the temp directory; NULL for an installed copy. */
  const char *uninstalled_build_file;
  /* Forward SIGINT, SIGTERM, SIGHUP and SIGQUIT to the command while it runs. */
  gboolean forward_signals;

  /*< private >*/
  /* Room for options added later; zero. */
  gpointer padding[8];
} DshRunOptions;

/* What happened. */
typedef struct {
  DshOutcome outcome;
  /* FALSE when the command never ran: error says why, and nothing it asked for took effect. */
  gboolean command_ran;
  /* The exit status, 128+N when signal N ended it (then term_signal is N, else 0). */
  int exit_code;
  int term_signal;
  /* The mode it ran (or would have run) under. */
  DshSandboxMode mode;
  /* The backend that confined it, its enforcement and the reasons; backend is NULL when
   * nothing was confined. */
  char *backend;
  DshEnforcement enforcement;
  GStrv enforcement_reasons;
  /* On a denial, the marker line to show after the command's own stderr (which then ends with
   * a newline: one is added when the command's last line had none); else NULL. */
  char *marker;
  /* Why the command never ran (the exact text to show); NULL when it ran. */
  GError *error;
  /* Since 0.2: what the call did not do that its policy asked for (an extra writable root left
   * out for being no directory), a sentence each for the caller's user; NULL for none. */
  GStrv warnings;
} DshRunResult;

#define DSH_TYPE_RUN_RESULT (dsh_run_result_get_type ())

DSH_API
GType         dsh_run_result_get_type (void) G_GNUC_CONST;
DSH_API
DshRunResult *dsh_run_result_copy     (const DshRunResult     *result);
DSH_API
void          dsh_run_result_free     (DshRunResult           *result);

/* Runs argv under policy in the current directory: the roots resolved and checked once, a
 * confined mode confined by the first usable backend that loads nothing from where a confined
 * command may write, the command given descriptors 0-2 only, stderr streamed and classified.
 * danger-full-access runs the raw argv. Never runs a confined mode unconfined. Never NULL. */
DSH_API
DshRunResult *dsh_run                 (const char *const      *argv,
                                       const DshSandboxPolicy *policy,
                                       const DshRunOptions    *options);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (DshRunResult, dsh_run_result_free)

G_END_DECLS
