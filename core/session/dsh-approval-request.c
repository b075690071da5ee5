/* dsh-approval-request.c — the immutable, reference-counted approval request.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-approval-request.h"

/**
 * DshApprovalRequest:
 *
 * One question put to the approval chain: which tool asks, why, for which session, and whatever
 * the asking tool wants a person to see.
 *
 * Since: 0.1
 */

struct _DshApprovalRequest {
  gatomicrefcount ref;
  char *id;
  char *tool_name;
  char *reason;
  char *session_id;
  char *call_id;
  JsonObject *details;
};

/* GLib's boxed-type macro converts to a transparent union, which -Wpedantic rejects. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
G_DEFINE_BOXED_TYPE (DshApprovalRequest, dsh_approval_request, dsh_approval_request_ref,
                     dsh_approval_request_unref)
#pragma GCC diagnostic pop

static JsonObject *copy_object (JsonObject *object);

/* json_node_copy() shares an object or array with the original; this copies all the way down. */
static JsonNode *
copy_node (JsonNode *node)
{
  JsonNode *copy;

  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_OBJECT:
      copy = json_node_alloc ();
      json_node_take_object (json_node_init (copy, JSON_NODE_OBJECT),
                             copy_object (json_node_get_object (node)));
      return copy;
    case JSON_NODE_ARRAY:
      {
        JsonArray *source = json_node_get_array (node);
        JsonArray *array = json_array_sized_new (json_array_get_length (source));

        for (guint i = 0; i < json_array_get_length (source); i++)
          json_array_add_element (array, copy_node (json_array_get_element (source, i)));
        copy = json_node_alloc ();
        json_node_take_array (json_node_init (copy, JSON_NODE_ARRAY), array);
        return copy;
      }
    case JSON_NODE_VALUE:
    case JSON_NODE_NULL:
    default:
      return json_node_copy (node);
    }
}

static JsonObject *
copy_object (JsonObject *object)
{
  JsonObject *copy = json_object_new ();
  g_autoptr (GList) members = json_object_get_members (object);

  for (GList *l = members; l != NULL; l = l->next)
    json_object_set_member (copy, l->data, copy_node (json_object_get_member (object, l->data)));
  return copy;
}

/**
 * dsh_approval_request_new:
 * @id: the id shared by the request's `approval/asked` and `approval/decided` events
 * @tool_name: the asking tool
 * @reason: the question, self-contained
 * @session_id: the asking session's id
 * @call_id: (nullable): the asking tool's id of the call the question is about
 * @details: (nullable): facts for a human, copied; they can never replace the other members
 *
 * Requests are made by #DshApprovalService, which assigns the id; answerers only read them.
 *
 * Returns: (transfer full): a new request
 *
 * Since: 0.1
 */
DshApprovalRequest *
dsh_approval_request_new (const char *id,
                          const char *tool_name,
                          const char *reason,
                          const char *session_id,
                          const char *call_id,
                          JsonObject *details)
{
  DshApprovalRequest *request;

  g_return_val_if_fail (id != NULL && tool_name != NULL && reason != NULL, NULL);
  g_return_val_if_fail (session_id != NULL, NULL);

  request = g_new0 (DshApprovalRequest, 1);
  g_atomic_ref_count_init (&request->ref);
  request->id = g_strdup (id);
  request->tool_name = g_strdup (tool_name);
  request->reason = g_strdup (reason);
  request->session_id = g_strdup (session_id);
  request->call_id = g_strdup (call_id);
  /* A private deep copy: the caller may keep changing its object, answerers see a snapshot. */
  if (details != NULL)
    request->details = copy_object (details);
  return request;
}

/**
 * dsh_approval_request_ref:
 * @request: a request
 *
 * Returns: (transfer full): @request
 *
 * Since: 0.1
 */
DshApprovalRequest *
dsh_approval_request_ref (DshApprovalRequest *request)
{
  g_return_val_if_fail (request != NULL, NULL);
  g_atomic_ref_count_inc (&request->ref);
  return request;
}

/**
 * dsh_approval_request_unref:
 * @request: (nullable) (transfer full): a request
 *
 * Drops a reference; the last one frees @request.
 *
 * Since: 0.1
 */
void
dsh_approval_request_unref (DshApprovalRequest *request)
{
  g_return_if_fail (request != NULL);
  if (!g_atomic_ref_count_dec (&request->ref))
    return;
  g_free (request->id);
  g_free (request->tool_name);
  g_free (request->reason);
  g_free (request->session_id);
  g_free (request->call_id);
  g_clear_pointer (&request->details, json_object_unref);
  g_free (request);
}

/**
 * dsh_approval_request_get_id:
 * @request: a request
 *
 * Returns: (transfer none): the id shared by the request's audit pair
 *
 * Since: 0.1
 */
const char *
dsh_approval_request_get_id (const DshApprovalRequest *request)
{
  g_return_val_if_fail (request != NULL, NULL);
  return request->id;
}

/**
 * dsh_approval_request_get_tool_name:
 * @request: a request
 *
 * Returns: (transfer none): the asking tool
 *
 * Since: 0.1
 */
const char *
dsh_approval_request_get_tool_name (const DshApprovalRequest *request)
{
  g_return_val_if_fail (request != NULL, NULL);
  return request->tool_name;
}

/**
 * dsh_approval_request_get_reason:
 * @request: a request
 *
 * Returns: (transfer none): the question, e.g. `escalate sandbox to workspace-write: WHY`
 *
 * Since: 0.1
 */
const char *
dsh_approval_request_get_reason (const DshApprovalRequest *request)
{
  g_return_val_if_fail (request != NULL, NULL);
  return request->reason;
}

/**
 * dsh_approval_request_get_session_id:
 * @request: a request
 *
 * Returns: (transfer none): the asking session's id
 *
 * Since: 0.1
 */
const char *
dsh_approval_request_get_session_id (const DshApprovalRequest *request)
{
  g_return_val_if_fail (request != NULL, NULL);
  return request->session_id;
}

/**
 * dsh_approval_request_get_call_id:
 * @request: a request
 *
 * Returns: (transfer none) (nullable): the id of the tool call the question is about
 *
 * Since: 0.1
 */
const char *
dsh_approval_request_get_call_id (const DshApprovalRequest *request)
{
  g_return_val_if_fail (request != NULL, NULL);
  return request->call_id;
}

/**
 * dsh_approval_request_get_details:
 * @request: a request
 *
 * Returns: (transfer none) (nullable): the tool's facts for a human, shared: never modify them
 *
 * Since: 0.1
 */
JsonObject *
dsh_approval_request_get_details (const DshApprovalRequest *request)
{
  g_return_val_if_fail (request != NULL, NULL);
  return request->details;
}

/**
 * dsh_approval_request_to_json:
 * @request: a request
 *
 * Returns: (transfer full): `{id, toolName, reason, sessionId, callId?, ...details}`
 *   (`schemas/approval-request.schema.json`)
 *
 * Since: 0.1
 */
JsonNode *
dsh_approval_request_to_json (const DshApprovalRequest *request)
{
  JsonObject *object;
  JsonNode *node;

  g_return_val_if_fail (request != NULL, NULL);

  object = json_object_new ();
  json_object_set_string_member (object, "id", request->id);
  json_object_set_string_member (object, "toolName", request->tool_name);
  json_object_set_string_member (object, "reason", request->reason);
  json_object_set_string_member (object, "sessionId", request->session_id);
  if (request->call_id != NULL)
    json_object_set_string_member (object, "callId", request->call_id);
  if (request->details != NULL)
    {
      JsonObjectIter iter;
      const char *member;
      JsonNode *value;

      json_object_iter_init (&iter, request->details);
      while (json_object_iter_next (&iter, &member, &value))
        {
          /* A tool's extra facts can never pose as the audited fields. */
          if (!json_object_has_member (object, member))
            json_object_set_member (object, member, json_node_copy (value));
        }
    }

  node = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (node, object);
  return node;
}
