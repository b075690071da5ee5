/* dsh-approval-request.h — one question put to the approval chain: which tool asks, why, for
 * which session, plus whatever the asking tool wants a human to see.
 *
 * Requests are made by DshApprovalService (it assigns the id); answerers only read them.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib-object.h>
#include <json-glib/json-glib.h>
#include "dsh-api.h"

G_BEGIN_DECLS

typedef struct _DshApprovalRequest DshApprovalRequest;

#define DSH_TYPE_APPROVAL_REQUEST (dsh_approval_request_get_type ())

DSH_API
GType                dsh_approval_request_get_type       (void) G_GNUC_CONST;

/* details (nullable) is copied; it can never replace id, toolName, reason, sessionId or
 * callId. call_id (nullable): the asking tool's id of the call the question is about. */
DSH_API
DshApprovalRequest  *dsh_approval_request_new            (const char         *id,
                                                          const char         *tool_name,
                                                          const char         *reason,
                                                          const char         *session_id,
                                                          const char         *call_id,
                                                          JsonObject         *details);
DSH_API
DshApprovalRequest  *dsh_approval_request_ref            (DshApprovalRequest *request);
DSH_API
void                 dsh_approval_request_unref          (DshApprovalRequest *request);

/* The id shared by the request's approval/asked and approval/decided events. */
DSH_API
const char          *dsh_approval_request_get_id         (const DshApprovalRequest *request);
DSH_API
const char          *dsh_approval_request_get_tool_name  (const DshApprovalRequest *request);
/* Self-contained, e.g. "escalate sandbox to workspace-write: <justification>". */
DSH_API
const char          *dsh_approval_request_get_reason     (const DshApprovalRequest *request);
/* The asking session's id. */
DSH_API
const char          *dsh_approval_request_get_session_id (const DshApprovalRequest *request);
/* The id of the tool call this question is about (the caller's; several calls of one turn
 * tell their audit pairs apart by it), or NULL. */
DSH_API
const char          *dsh_approval_request_get_call_id    (const DshApprovalRequest *request);
/* The tool's extra facts for a human (may be NULL). Borrowed and shared: never modify it. */
DSH_API
JsonObject          *dsh_approval_request_get_details    (const DshApprovalRequest *request);

/* {id, toolName, reason, sessionId, callId?, ...details} (schemas/approval-request.schema.json). */
DSH_API
JsonNode            *dsh_approval_request_to_json        (const DshApprovalRequest *request);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (DshApprovalRequest, dsh_approval_request_unref)

G_END_DECLS
