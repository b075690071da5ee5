/* dsh-approver.h — what "dsh-sandbox exec" composes to ask for an escalation: the interactive
 * prompt on the controlling terminal, or the library's DshCommandAnswerer for --approver CMD.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <dsh-sandbox.h>

G_BEGIN_DECLS

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
DshApprovalAnswerer *dsh_cli_compose_answerer (DshCommandAnswerer  *approver);

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
