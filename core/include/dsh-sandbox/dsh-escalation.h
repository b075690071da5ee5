/* dsh-escalation.h — same-turn sandbox escalation: the strictly-wider ladder, the argument
 * pairing, and the ordered fail-closed sequence that turns one approval into one wider run.
 *
 * The sequence, in this order, before anything executes (each refusal has its own text in
 * dsh-texts.h, all DSH_SANDBOX_ERROR_ESCALATION_REFUSED):
 *   1. the target must be strictly wider than THIS call's effective mode (so a non-widening
 *      request never reaches a person);
 *   2. an approval service must be composed;
 *   3. the call must have a session (the agent) to route the question through;
 *   4. the service decides: allowed-once grants the target for this one call; rejected,
 *      cancelled and unavailable each refuse with their own text. An approval request that
 *      fails (outside a turn, an audit append that failed) refuses with its error.
 *
 * The schema-facing targets are always both wider modes: schemas are global, the effective
 * mode is per-call truth, so widening is checked here at execution and never in a schema.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "dsh-approval-service.h"
#include "dsh-mode.h"
#include "dsh-api.h"

G_BEGIN_DECLS

/* WIDER_MODES[from]: read-only -> workspace-write, danger-full-access; workspace-write ->
 * danger-full-access; danger-full-access -> nothing. Static; *n_modes may be 0. */
DSH_API
const DshSandboxMode *dsh_escalation_wider_modes       (DshSandboxMode  from,
                                                        gsize          *n_modes);
DSH_API
gboolean              dsh_escalation_is_strictly_wider (DshSandboxMode  from,
                                                        DshSandboxMode  to);
/* ESCALATION_TARGETS: workspace-write, danger-full-access, always both. */
DSH_API
const DshSandboxMode *dsh_escalation_targets           (gsize          *n_targets);
/* Strict parse of a sandbox_permissions value: one of the targets, else INVALID_ARGUMENT. */
DSH_API
gboolean              dsh_escalation_target_from_string (const char     *text,
                                                         DshSandboxMode *out_mode,
                                                         GError        **error);

/* validateEscalationArgs: each argument requires the other, and the justification must have
 * a non-whitespace character. NULL means "not given". DSH_SANDBOX_ERROR_INVALID_ARGUMENT with
 * the verbatim texts. */
DSH_API
gboolean              dsh_escalation_validate_args     (const char     *sandbox_permissions,
                                                        const char     *justification,
                                                        GError        **error);
/* An executor that does not confine has nothing to escalate, even when the argument arrives
 * unadvertised: refuses a given sandbox_permissions with the verbatim text. */
DSH_API
gboolean              dsh_escalation_check_composition (gboolean        executor_confines,
                                                        const char     *sandbox_permissions,
                                                        GError        **error);

/* Could an escalation from a command that ran under ran_mode still be approved? Not under
 * "never", not without a session or a channel, not when no wider mode exists. Decides whether
 * the hint follows a denial. */
DSH_API
gboolean              dsh_escalation_could_be_approved (DshSandboxMode    ran_mode,
                                                        DshApprovalPolicy effective_policy,
                                                        gboolean          has_session,
                                                        gboolean          has_channel);

/* Where the question goes. service and session are nullable (steps 2 and 3 refuse). */
typedef struct {
  DshApprovalService *service;
  DshSessionLog *session;
  /* The caller's own per-call policy (see dsh_approval_service_request_async). */
  DshApprovalPolicy call_policy;
  /* "bash" */
  const char *tool_name;
  /* The tool's id of this call (required once a person is asked). */
  const char *call_id;
  /* The noun of the rejected text: "command" (bash) or "operation" (fs). */
  const char *subject;
  /* Facts for the answerers (nullable). */
  JsonObject *details;
} DshEscalationChannel;

#define DSH_TYPE_ESCALATION_CHANNEL (dsh_escalation_channel_get_type ())

/* A channel on the heap that holds its own references and copies, for bindings (which cannot
 * lend borrowed pointers); C callers usually fill one on the stack. Free only what new() or
 * copy() returned. */
DSH_API
GType                 dsh_escalation_channel_get_type  (void) G_GNUC_CONST;
DSH_API
DshEscalationChannel *dsh_escalation_channel_new       (DshApprovalService         *service,
                                                        DshSessionLog              *session,
                                                        DshApprovalPolicy           call_policy,
                                                        const char                 *tool_name,
                                                        const char                 *call_id,
                                                        const char                 *subject,
                                                        JsonObject                 *details);
DSH_API
DshEscalationChannel *dsh_escalation_channel_copy      (const DshEscalationChannel *channel);
DSH_API
void                  dsh_escalation_channel_free      (DshEscalationChannel       *channel);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (DshEscalationChannel, dsh_escalation_channel_free)

/* Runs the ordered sequence. The justification must already be valid. */
DSH_API
void                  dsh_escalation_approve_async     (DshSandboxMode              effective_mode,
                                                        DshSandboxMode              requested_mode,
                                                        const char                 *justification,
                                                        const DshEscalationChannel *channel,
                                                        GCancellable               *cancellable,
                                                        GAsyncReadyCallback         callback,
                                                        gpointer                    user_data);
/* TRUE with *out_mode the granted mode (the requested one); FALSE with the refusal. When a
 * person (or the service) was asked, *out_asked is TRUE and *out_outcome the decision. */
DSH_API
gboolean              dsh_escalation_approve_finish    (GAsyncResult               *result,
                                                        DshSandboxMode             *out_mode,
                                                        gboolean                   *out_asked,
                                                        DshApprovalOutcome         *out_outcome,
                                                        GError                    **error);
/* The same, iterating a private main context. */
DSH_API
gboolean              dsh_escalation_approve           (DshSandboxMode              effective_mode,
                                                        DshSandboxMode              requested_mode,
                                                        const char                 *justification,
                                                        const DshEscalationChannel *channel,
                                                        GCancellable               *cancellable,
                                                        DshSandboxMode             *out_mode,
                                                        gboolean                   *out_asked,
                                                        DshApprovalOutcome         *out_outcome,
                                                        GError                    **error);

G_END_DECLS
