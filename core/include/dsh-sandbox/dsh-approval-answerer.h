/* dsh-approval-answerer.h — the interface of whatever answers approval requests: a terminal
 * prompt, a harness callback, an automation bridge.
 *
 * An answerer either answers (one of the four outcomes) or delegates to the next answerer in
 * the service's chain. Compose one terminal answerer per deployment: the order of sibling
 * answerers is not a policy mechanism, and the "never" policy is decided by the service before
 * any answerer runs.
 *
 * The contract (DshApprovalService enforces the fail-closed side of it):
 *   - answer_async() finishes exactly once, by calling callback in the thread-default main
 *     context, possibly before answer_async() returns;
 *   - cancellable is cancelled when the question no longer needs an answer (the caller gave
 *     up, or the service decided otherwise); a later answer is discarded;
 *   - answer_finish() returns DSH_APPROVAL_ANSWER_OUTCOME with *out_outcome set, or
 *     DSH_APPROVAL_ANSWER_DELEGATE, or DSH_APPROVAL_ANSWER_FAILED with error set. A failure,
 *     an outcome outside the vocabulary or a missing implementation all make the question
 *     "unavailable": an answerer can never fail a question open.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gio/gio.h>

#include "dsh-approval-request.h"
#include "dsh-approval-vocabulary.h"
#include "dsh-api.h"

G_BEGIN_DECLS

typedef enum {
  /* Zero, so a forgotten initialisation reads as a failure, never as an answer. */
  DSH_APPROVAL_ANSWER_FAILED = 0,
  DSH_APPROVAL_ANSWER_DELEGATE,
  DSH_APPROVAL_ANSWER_OUTCOME,
} DshApprovalAnswer;

#define DSH_TYPE_APPROVAL_ANSWERER (dsh_approval_answerer_get_type ())
DSH_API
G_DECLARE_INTERFACE (DshApprovalAnswerer, dsh_approval_answerer, DSH, APPROVAL_ANSWERER, GObject)

struct _DshApprovalAnswererInterface {
  GTypeInterface g_iface;

  void               (*answer_async)  (DshApprovalAnswerer  *self,
                                       DshApprovalRequest   *request,
                                       GCancellable         *cancellable,
                                       GAsyncReadyCallback   callback,
                                       gpointer              user_data);
  /* The default implementation reads a GTask finished with dsh_approval_task_return_*(). */
  DshApprovalAnswer  (*answer_finish) (DshApprovalAnswerer  *self,
                                       GAsyncResult         *result,
                                       DshApprovalOutcome   *out_outcome,
                                       GError              **error);

  gpointer padding[8];
};

DSH_API
void               dsh_approval_answerer_answer_async  (DshApprovalAnswerer  *self,
                                                        DshApprovalRequest   *request,
                                                        GCancellable         *cancellable,
                                                        GAsyncReadyCallback   callback,
                                                        gpointer              user_data);
DSH_API
DshApprovalAnswer  dsh_approval_answerer_answer_finish (DshApprovalAnswerer  *self,
                                                        GAsyncResult         *result,
                                                        DshApprovalOutcome   *out_outcome,
                                                        GError              **error);

/* For answerers built on GTask and the default answer_finish. */
DSH_API
void               dsh_approval_task_return_outcome    (GTask                *task,
                                                        DshApprovalOutcome    outcome);
DSH_API
void               dsh_approval_task_return_delegate   (GTask                *task);

G_END_DECLS
