/* dsh-approval-service.h — the one-shot approval service: asks a chain of answerers inside a
 * session's open turn, writes the audit pair around every decision, and fails closed.
 *
 *   request  -> refused (error) outside an open turn, nothing appended
 *            -> approval/asked {id, toolName, reason, callId} (a failed append: error, no answer)
 *            -> decide: policy "never"            -> rejected, before any answerer runs
 *                       caller cancels first      -> cancelled (a late answer is discarded)
 *                       first answerer that answers (scoped ones see only their session)
 *                       none / failure / junk     -> unavailable
 *            -> approval/decided {id, outcome}       (a failed append: error, never a grant)
 *
 * allowed-once is the only grant and covers exactly one action; nothing is remembered. The
 * policy (ask | never) is folded from the session's `approval/policy` events on every request.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "dsh-approval-answerer.h"
#include "dsh-approval-request.h"
#include "dsh-approval-vocabulary.h"
#include "dsh-session-log.h"
#include "dsh-api.h"

G_BEGIN_DECLS

#define DSH_TYPE_APPROVAL_SERVICE (dsh_approval_service_get_type ())
DSH_API
G_DECLARE_FINAL_TYPE (DshApprovalService, dsh_approval_service, DSH, APPROVAL_SERVICE, GObject)

/* The deployment default policy is "ask". */
DSH_API
DshApprovalService *dsh_approval_service_new                (void);

/* The policy of a session that never recorded one. */
DSH_API
DshApprovalPolicy   dsh_approval_service_get_default_policy (DshApprovalService *self);
DSH_API
void                dsh_approval_service_set_default_policy (DshApprovalService *self,
                                                             DshApprovalPolicy   policy);

/* Answerers are asked in chain order. scope (nullable): the session this answerer owns; it then
 * sees only that session's requests. Returns a handle (> 0) for removal. */
DSH_API
guint               dsh_approval_service_add_answerer       (DshApprovalService  *self,
                                                             DshApprovalAnswerer *answerer,
                                                             DshSessionLog       *scope);
/* Puts the answerer at the head of the chain; it still cannot beat "never". */
DSH_API
guint               dsh_approval_service_prepend_answerer   (DshApprovalService  *self,
                                                             DshApprovalAnswerer *answerer,
                                                             DshSessionLog       *scope);
DSH_API
void                dsh_approval_service_remove_answerer    (DshApprovalService  *self,
                                                             guint                handle);

/* The session's last `approval/policy`, else the default. */
DSH_API
DshApprovalPolicy   dsh_approval_service_get_policy         (DshApprovalService  *self,
                                                             DshSessionLog       *session);
/* "never" when either the session or the call says so: a call can narrow, never widen. */
DSH_API
DshApprovalPolicy   dsh_approval_service_effective_policy   (DshApprovalService  *self,
                                                             DshSessionLog       *session,
                                                             DshApprovalPolicy    call_policy);

/* Appends exactly one `approval/policy` event. *out_notice (nullable) receives the notice the
 * host injects for the model when the effective policy changed, else NULL. */
DSH_API
gboolean            dsh_approval_service_set_policy         (DshApprovalService  *self,
                                                             DshSessionLog       *session,
                                                             DshApprovalPolicy    policy,
                                                             char               **out_notice,
                                                             GError             **error);

/* Asks for one decision (see the top of this file). call_policy: DSH_APPROVAL_POLICY_NEVER
 * decides "rejected" for this call whatever the session says; ASK defers to the session.
 * call_id is the asking tool's id of its call (required): the request and the approval/asked
 * event carry it, so several calls in one turn can tell their audit pairs apart.
 * details (nullable) are facts for the answerers, not logged. Answerers run in the
 * thread-default main context of the caller. */
DSH_API
void                dsh_approval_service_request_async      (DshApprovalService  *self,
                                                             DshSessionLog       *session,
                                                             DshApprovalPolicy    call_policy,
                                                             const char          *tool_name,
                                                             const char          *call_id,
                                                             const char          *reason,
                                                             JsonObject          *details,
                                                             GCancellable        *cancellable,
                                                             GAsyncReadyCallback  callback,
                                                             gpointer             user_data);
/* TRUE with *out_outcome the decision; FALSE with error when no decision could be made or
 * logged (then *out_outcome is "unavailable" and nothing was granted). */
DSH_API
gboolean            dsh_approval_service_request_finish     (DshApprovalService  *self,
                                                             GAsyncResult        *result,
                                                             DshApprovalOutcome  *out_outcome,
                                                             GError             **error);
/* The same, iterating a private main context until the decision is made. */
DSH_API
gboolean            dsh_approval_service_request            (DshApprovalService  *self,
                                                             DshSessionLog       *session,
                                                             DshApprovalPolicy    call_policy,
                                                             const char          *tool_name,
                                                             const char          *call_id,
                                                             const char          *reason,
                                                             JsonObject          *details,
                                                             GCancellable        *cancellable,
                                                             DshApprovalOutcome  *out_outcome,
                                                             GError             **error);

G_END_DECLS
