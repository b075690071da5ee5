/* dsh-approval-service-private.h — what a call of this library asks the approval service
 * besides a decision: whether its chain holds anyone who would see a session's question.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dsh-approval-service.h"

G_BEGIN_DECLS

/* TRUE when an answerer of the chain would be asked for session's requests: one of every
 * session, or one scoped to this one. Says nothing about what it would answer. */
gboolean dsh_approval_service_has_answerer_for (DshApprovalService *self,
                                                DshSessionLog      *session);

G_END_DECLS
