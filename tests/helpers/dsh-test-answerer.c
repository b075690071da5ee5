/* dsh-test-answerer.c — an approval answerer for tests that answers at once and keeps the last
 * request.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-test-answerer.h"

#include <gio/gio.h>

static void
dsh_test_answerer_answer_async (DshApprovalAnswerer *answerer,
                                DshApprovalRequest *request,
                                GCancellable *cancellable,
                                GAsyncReadyCallback callback,
                                gpointer user_data)
{
  DshTestAnswerer *self = DSH_TEST_ANSWERER (answerer);
  g_autoptr (GTask) task = g_task_new (self, NULL, callback, user_data);
  JsonObject *details = dsh_approval_request_get_details (request);

  self->calls++;
  g_free (self->last_call_id);
  self->last_call_id = g_strdup (dsh_approval_request_get_call_id (request));
  g_free (self->last_reason);
  self->last_reason = g_strdup (dsh_approval_request_get_reason (request));
  g_clear_pointer (&self->last_details, g_free);
  if (details != NULL)
    {
      g_autoptr (JsonNode) node = json_node_init_object (json_node_alloc (), details);

      self->last_details = json_to_string (node, FALSE);
    }
  dsh_approval_task_return_outcome (task, self->outcome);
}

static void
dsh_test_answerer_iface_init (DshApprovalAnswererInterface *iface)
{
  iface->answer_async = dsh_test_answerer_answer_async;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (DshTestAnswerer, dsh_test_answerer, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (DSH_TYPE_APPROVAL_ANSWERER,
                                                      dsh_test_answerer_iface_init))

static void
dsh_test_answerer_finalize (GObject *object)
{
  DshTestAnswerer *self = DSH_TEST_ANSWERER (object);

  g_free (self->last_call_id);
  g_free (self->last_reason);
  g_free (self->last_details);
  G_OBJECT_CLASS (dsh_test_answerer_parent_class)->finalize (object);
}

static void
dsh_test_answerer_class_init (DshTestAnswererClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = dsh_test_answerer_finalize;
}

static void
dsh_test_answerer_init (DshTestAnswerer *self)
{
}

DshTestAnswerer *
dsh_test_answerer_new (DshApprovalOutcome outcome)
{
  DshTestAnswerer *self = g_object_new (DSH_TYPE_TEST_ANSWERER, NULL);

  self->outcome = outcome;
  return self;
}
