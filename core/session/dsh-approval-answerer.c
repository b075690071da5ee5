/* dsh-approval-answerer.c — the answerer interface and its GTask-based default finish.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-approval-answerer.h"

#include "dsh-error.h"

/**
 * DshApprovalAnswererInterface:
 * @g_iface: the parent interface
 * @answer_async: answers or delegates; finishes exactly once
 * @answer_finish: the default reads a #GTask finished with dsh_approval_task_return_outcome() or
 *   dsh_approval_task_return_delegate()
 *
 * The virtual methods of #DshApprovalAnswerer.
 *
 * Since: 0.1
 */

/**
 * DshApprovalAnswerer:
 *
 * Whatever answers approval requests: a terminal prompt, a harness callback, an automation bridge.
 *
 * Since: 0.1
 */

/**
 * DshApprovalAnswer:
 * @DSH_APPROVAL_ANSWER_FAILED: the answerer failed (zero: an unset answer is a failure)
 * @DSH_APPROVAL_ANSWER_DELEGATE: the next answerer of the chain is asked
 * @DSH_APPROVAL_ANSWER_OUTCOME: the answerer answered
 *
 * What an answerer did with a question.
 *
 * Since: 0.1
 */

/* A GTask's integer result that means "not mine: ask the next answerer". Outcomes are small
 * and >= 0; -1 is what g_task_propagate_int() gives for an error. */
#define TASK_DELEGATE (-2)

/* Source tags are data addresses: ISO C does not convert function pointers to void *. */
static char missing_answer_async_tag;

G_DEFINE_INTERFACE (DshApprovalAnswerer, dsh_approval_answerer, G_TYPE_OBJECT)

static DshApprovalAnswer
default_answer_finish (DshApprovalAnswerer *self,
                       GAsyncResult *result,
                       DshApprovalOutcome *out_outcome,
                       GError **error)
{
  gssize value;

  if (!g_task_is_valid (result, self))
    {
      g_set_error_literal (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_APPROVAL,
                           "the answerer finished with a result that is not its own task");
      return DSH_APPROVAL_ANSWER_FAILED;
    }
  if (g_task_had_error (G_TASK (result)))
    {
      g_task_propagate_int (G_TASK (result), error);
      return DSH_APPROVAL_ANSWER_FAILED;
    }
  value = g_task_propagate_int (G_TASK (result), NULL);
  if (value == TASK_DELEGATE)
    return DSH_APPROVAL_ANSWER_DELEGATE;
  /* Range checking is the service's job: it is the one place that must not trust answerers. */
  *out_outcome = (DshApprovalOutcome) value;
  return DSH_APPROVAL_ANSWER_OUTCOME;
}

static void
dsh_approval_answerer_default_init (DshApprovalAnswererInterface *iface)
{
  iface->answer_finish = default_answer_finish;
}

/**
 * dsh_approval_answerer_answer_async:
 * @self: a #DshApprovalAnswerer
 * @request: the question
 * @cancellable: (nullable): cancelled when the question no longer needs an answer
 * @callback: (scope async): called exactly once, in the thread-default main context
 * @user_data: (closure callback): data for @callback
 *
 * Asks @self to answer @request or to delegate it to the next answerer.
 *
 * Since: 0.1
 */
void
dsh_approval_answerer_answer_async (DshApprovalAnswerer *self,
                                    DshApprovalRequest *request,
                                    GCancellable *cancellable,
                                    GAsyncReadyCallback callback,
                                    gpointer user_data)
{
  DshApprovalAnswererInterface *iface;

  g_return_if_fail (DSH_IS_APPROVAL_ANSWERER (self));
  g_return_if_fail (request != NULL);

  iface = DSH_APPROVAL_ANSWERER_GET_IFACE (self);
  if (iface->answer_async == NULL)
    {
      /* An answerer that cannot answer fails the question, through the same callback path. */
      g_task_report_new_error (self, callback, user_data, &missing_answer_async_tag,
                               DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_APPROVAL,
                               "%s does not implement answer_async", G_OBJECT_TYPE_NAME (self));
      return;
    }
  iface->answer_async (self, request, cancellable, callback, user_data);
}

/**
 * dsh_approval_answerer_answer_finish:
 * @self: a #DshApprovalAnswerer
 * @result: the result @callback received
 * @out_outcome: (out): the answer, when there is one
 * @error: return location for a #GError
 *
 * A failure, an outcome outside the vocabulary or a missing implementation make the question
 * `unavailable`: an answerer can never fail a question open.
 *
 * Returns: %DSH_APPROVAL_ANSWER_OUTCOME with @out_outcome set, %DSH_APPROVAL_ANSWER_DELEGATE, or
 *   %DSH_APPROVAL_ANSWER_FAILED with @error set
 *
 * Since: 0.1
 */
DshApprovalAnswer
dsh_approval_answerer_answer_finish (DshApprovalAnswerer *self,
                                     GAsyncResult *result,
                                     DshApprovalOutcome *out_outcome,
                                     GError **error)
{
  DshApprovalAnswererInterface *iface;
  DshApprovalOutcome outcome = DSH_APPROVAL_OUTCOME_UNAVAILABLE;
  DshApprovalAnswer answer;

  g_return_val_if_fail (DSH_IS_APPROVAL_ANSWERER (self), DSH_APPROVAL_ANSWER_FAILED);
  g_return_val_if_fail (out_outcome != NULL, DSH_APPROVAL_ANSWER_FAILED);

  *out_outcome = DSH_APPROVAL_OUTCOME_UNAVAILABLE;
  if (g_async_result_is_tagged (result, &missing_answer_async_tag))
    {
      /* The error reported for a missing answer_async. */
      g_task_propagate_boolean (G_TASK (result), error);
      return DSH_APPROVAL_ANSWER_FAILED;
    }

  iface = DSH_APPROVAL_ANSWERER_GET_IFACE (self);
  if (iface->answer_finish == NULL)
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_APPROVAL,
                   "%s does not implement answer_finish", G_OBJECT_TYPE_NAME (self));
      return DSH_APPROVAL_ANSWER_FAILED;
    }
  answer = iface->answer_finish (self, result, &outcome, error);
  if (answer == DSH_APPROVAL_ANSWER_OUTCOME)
    *out_outcome = outcome;
  return answer;
}

/**
 * dsh_approval_task_return_outcome:
 * @task: the #GTask of an answer_async() implementation
 * @outcome: the answer
 *
 * Finishes @task with an answer, for answerers that use the default answer_finish().
 *
 * Since: 0.1
 */
void
dsh_approval_task_return_outcome (GTask *task, DshApprovalOutcome outcome)
{
  g_return_if_fail (G_IS_TASK (task));
  g_task_return_int (task, (gssize) outcome);
}

/**
 * dsh_approval_task_return_delegate:
 * @task: the #GTask of an answer_async() implementation
 *
 * Finishes @task by delegating to the next answerer.
 *
 * Since: 0.1
 */
void
dsh_approval_task_return_delegate (GTask *task)
{
  g_return_if_fail (G_IS_TASK (task));
  g_task_return_int (task, TASK_DELEGATE);
}
