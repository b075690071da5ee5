/* fuzz-approval-request.c — libFuzzer target for the approval request an approver reads: built
 * from any id, tool name, reason, session id and extra facts (a JSON object, plus a command
 * line as exec adds), its JSON document is text every JSON reader accepts, the
 * four audited fields keep their values whatever the facts claim, every other fact survives,
 * and reading the document back and writing it again gives the same text.
 *
 * Layout: NUL-separated id, tool name, reason, session id, the facts as JSON, then the command's
 * arguments, NUL-separated.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <string.h>

#include <dsh-sandbox.h>

#include "dsh-json-strict-private.h"
#include "fuzz-target.h"
#include "fuzz-util.h"

static const char *const audited[] = { "id", "toolName", "reason", "sessionId", NULL };

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr (GPtrArray) fields = fuzz_split_fields (data, size, 64);
  char *scalars[4] = { NULL };
  g_autoptr (JsonObject) details = NULL;
  g_autoptr (JsonNode) facts = NULL;
  g_autoptr (DshApprovalRequest) request = NULL;
  g_autoptr (JsonNode) document = NULL;
  g_autoptr (JsonNode) reread = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;
  g_autofree char *again = NULL;
  gboolean syntax_error;
  JsonObject *object;

  /* The service and exec hand in UTF-8 for these (an id it made, a validated reason). */
  for (guint i = 0; i < 4; i++)
    scalars[i] = g_utf8_make_valid (i < fields->len ? g_ptr_array_index (fields, i) : "", -1);

  if (fields->len > 4)
    {
      const char *json = g_ptr_array_index (fields, 4);

      facts = dsh_json_strict_parse (json, strlen (json), &syntax_error, NULL);
    }
  details = json_object_new ();
  if (facts != NULL && JSON_NODE_HOLDS_OBJECT (facts))
    {
      JsonObjectIter iter;
      const char *member;
      JsonNode *value;

      json_object_iter_init (&iter, json_node_get_object (facts));
      while (json_object_iter_next (&iter, &member, &value))
        json_object_set_member (details, member, json_node_copy (value));
    }
  if (fields->len > 5)
    {
      JsonArray *command = json_array_new ();

      /* Exec refuses to ask about an argument that is not UTF-8 (it could not be shown). */
      for (guint i = 5; i < fields->len; i++)
        {
          g_autofree char *arg = g_utf8_make_valid (g_ptr_array_index (fields, i), -1);

          json_array_add_string_element (command, arg);
        }
      json_object_set_array_member (details, "command", command);
    }

  request = dsh_approval_request_new (scalars[0], scalars[1], scalars[2], scalars[3], "call-1",
                                      details);
  /* The request took a copy: changing the caller's object changes nothing it shows. */
  json_object_set_string_member (details, "id", "changed afterwards");

  document = dsh_approval_request_to_json (request);
  text = dsh_json_strict_to_string (document, FALSE);
  g_assert_true (g_utf8_validate (text, -1, NULL));
  reread = dsh_json_strict_parse (text, strlen (text), &syntax_error, &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (reread));
  object = json_node_get_object (reread);
  for (guint i = 0; audited[i] != NULL; i++)
    g_assert_cmpstr (json_object_get_string_member (object, audited[i]), ==, scalars[i]);

  /* Every fact but the audited names is there, unchanged. */
  if (facts != NULL && JSON_NODE_HOLDS_OBJECT (facts))
    {
      JsonObjectIter iter;
      const char *member;
      JsonNode *value;

      json_object_iter_init (&iter, json_node_get_object (facts));
      while (json_object_iter_next (&iter, &member, &value))
        {
          if (!g_strv_contains (audited, member) && !g_str_equal (member, "command"))
            g_assert_true (json_node_equal (value, json_object_get_member (object, member)));
        }
    }

  again = dsh_json_strict_to_string (reread, FALSE);
  g_assert_cmpstr (text, ==, again);
  for (guint i = 0; i < 4; i++)
    g_free (scalars[i]);
  return 0;
}
