/* dsh-approver.h — the two answerers "dsh-sandbox exec" composes: an external approver command
 * (--approver CMD) and the interactive prompt on the controlling terminal.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <dsh-sandbox.h>

G_BEGIN_DECLS

/* How long an approver command may take before its answer is "unavailable". */
#define DSH_APPROVER_TIMEOUT_ENV     "DSH_SANDBOX_APPROVER_TIMEOUT"
#define DSH_APPROVER_DEFAULT_TIMEOUT 300

/* Reads DSH_SANDBOX_APPROVER_TIMEOUT (whole seconds, 1..86400), else the default. A malformed
 * value is an error, not a silent default. */
gboolean  dsh_approver_timeout_from_env (guint       *out_seconds,
                                         GError     **error);

/* Runs CMD (split like a shell would, with g_shell_parse_argv, but no shell runs) with the
 * request as one JSON document on stdin and reads one outcome word from its stdout. Anything
 * else — a spawn failure, a crash, a nonzero exit, a timeout, more or other output — fails the
 * answer, which the service turns into "unavailable". */
#define DSH_TYPE_COMMAND_APPROVER (dsh_command_approver_get_type ())
G_DECLARE_FINAL_TYPE (DshCommandApprover, dsh_command_approver, DSH, COMMAND_APPROVER, GObject)

DshCommandApprover *dsh_command_approver_new (const char  *command_line,
                                              guint        timeout_seconds,
                                              GError     **error);
/* An approver that a confined command of policy's workspace (with its extra writable roots)
 * could rewrite would answer for it: its
 * program (found on PATH now, once, when named bare; through "env NAME" too), the interpreter
 * of its "#!" line (for "#!/usr/bin/env NAME", every place PATH could find NAME), and every
 * file its arguments name must lie out of reach of every writable root such a command could
 * get — the walk to each included — else DSH_SANDBOX_ERROR_APPROVAL naming the path. */
gboolean            dsh_command_approver_check_trusted (DshCommandApprover     *self,
                                                        const DshSandboxPolicy *policy,
                                                        GError            **error);

/* Asks on /dev/tty: y/yes is allowed-once, n/no is rejected, end of input or ^C is cancelled.
 * Creating it fails when the process has no controlling terminal. */
#define DSH_TYPE_TTY_APPROVER (dsh_tty_approver_get_type ())
G_DECLARE_FINAL_TYPE (DshTtyApprover, dsh_tty_approver, DSH, TTY_APPROVER, GObject)

DshTtyApprover     *dsh_tty_approver_new     (GError     **error);
/* Whether a controlling terminal could be asked right now. */
gboolean            dsh_tty_approver_available (void);

/* ---- composing them for one exec ---------------------------------------------------------- */

/* This exec's one terminal answerer: the approver command when one was configured (already
 * built, so a malformed --approver is a usage error before anything else), else the terminal
 * prompt when there is a controlling terminal, else NULL: nobody can be asked. */
DshApprovalAnswerer *dsh_cli_compose_answerer (DshCommandApprover  *approver);

/* Runs the escalation sequence for one exec (call_id: its id) with answerer (nullable) scoped
 * to this session.
 * SIGINT, SIGTERM and SIGHUP while waiting withdraw the question (cancelled). TRUE with the
 * granted mode; FALSE with the refusal. *out_asked and *out_outcome as for dsh_escalation_approve(). */
gboolean  dsh_cli_escalate                   (DshApprovalService  *service,
                                              DshSessionLog       *session,
                                              DshApprovalPolicy    call_policy,
                                              DshApprovalAnswerer *answerer,
                                              const char          *call_id,
                                              DshSandboxMode       standing_mode,
                                              DshSandboxMode       requested_mode,
                                              const char          *justification,
                                              const char *const   *command,
                                              const char          *workspace_root,
                                              DshSandboxMode      *out_mode,
                                              gboolean            *out_asked,
                                              DshApprovalOutcome  *out_outcome,
                                              GError             **error);

G_END_DECLS
