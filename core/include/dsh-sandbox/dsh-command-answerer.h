/* dsh-command-answerer.h — an approval answerer that asks a program: the approver command a
 * harness or a person configured, given the request as JSON on stdin, answering with one
 * outcome word on stdout.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>

#include "dsh-approval-answerer.h"
#include "dsh-policy.h"
#include "dsh-api.h"

G_BEGIN_DECLS

/* How long an approver command may take before its answer is "unavailable". */
#define DSH_COMMAND_ANSWERER_TIMEOUT_ENV     "DSH_SANDBOX_APPROVER_TIMEOUT"
#define DSH_COMMAND_ANSWERER_DEFAULT_TIMEOUT 300

/* Reads DSH_SANDBOX_APPROVER_TIMEOUT (whole seconds, 1..86400), else the default. A malformed
 * value is an error, not a silent default. */
DSH_API
gboolean  dsh_command_answerer_timeout_from_env (guint       *out_seconds,
                                                 GError     **error);

/* Runs CMD (split like a shell would, with g_shell_parse_argv, but no shell runs) with the
 * request as one JSON document on stdin and reads one outcome word from its stdout. Anything
 * else — a spawn failure, a crash, a nonzero exit, a timeout, more or other output — fails the
 * answer, which the service turns into "unavailable". */
#define DSH_TYPE_COMMAND_ANSWERER (dsh_command_answerer_get_type ())
DSH_API
G_DECLARE_FINAL_TYPE (DshCommandAnswerer, dsh_command_answerer, DSH, COMMAND_ANSWERER, GObject)

/* timeout_seconds 0: the default. A command line that does not parse is an error. */
DSH_API
DshCommandAnswerer *dsh_command_answerer_new (const char  *command_line,
                                              guint        timeout_seconds,
                                              GError     **error);
/* An approver that a confined command of policy's workspace (with its extra writable roots)
 * could rewrite would answer for it: its program (found on PATH now, once, when named bare;
 * through "env NAME" too), the interpreter of its "#!" line (for "#!/usr/bin/env NAME", every
 * place PATH could find NAME), and every file its arguments name must lie out of reach of every
 * root of dsh_writable_roots_widest() — the walk to each included — else
 * DSH_SANDBOX_ERROR_APPROVAL naming the path. */
DSH_API
gboolean            dsh_command_answerer_check_trusted (DshCommandAnswerer     *self,
                                                        const DshSandboxPolicy *policy,
                                                        GError                **error);

G_END_DECLS
