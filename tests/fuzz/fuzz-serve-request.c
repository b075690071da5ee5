/* fuzz-serve-request.c — libFuzzer target for the parser of "dsh-sandbox serve" request lines:
 * any bytes either parse into a request whose fields hold what the protocol promises (a
 * non-empty argv for confine, an id of an allowed type) or are refused with a protocol error,
 * never a crash; and whatever the quick way reads, the general way reads the same.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-serve-request.h"

#include "fuzz-target.h"

static void
assert_same_strv (char **a, char **b)
{
  g_assert_true ((a == NULL) == (b == NULL));
  if (a != NULL)
    g_assert_true (g_strv_equal ((const char *const *) a, (const char *const *) b));
}

/* What the quick way read must be exactly what the general way reads. */
static void
assert_quick_agrees (const uint8_t *data, size_t size)
{
  g_autoptr (GError) error = NULL;
  DshServeRequest quick, tree;

  if (!dsh_serve_request_parse_quick ((const char *) data, size, &quick))
    {
      g_assert_null (quick.id);
      g_assert_null (quick.argv);
      return;
    }
  if (!dsh_serve_request_parse_tree ((const char *) data, size, &tree, &error))
    g_error ("the quick way accepted what the general way refuses: %s", error->message);
  g_assert_cmpint (quick.method, ==, DSH_SERVE_METHOD_CONFINE);
  g_assert_cmpint (tree.method, ==, quick.method);
  g_assert_true (json_node_equal (quick.id, tree.id));
  g_assert_cmpint (json_node_get_value_type (quick.id), ==, json_node_get_value_type (tree.id));
  assert_same_strv (quick.argv, tree.argv);
  assert_same_strv (quick.writable_roots, tree.writable_roots);
  g_assert_cmpstr (quick.mode, ==, tree.mode);
  g_assert_cmpstr (quick.workspace, ==, tree.workspace);
  g_assert_cmpstr (quick.session, ==, tree.session);
  dsh_serve_request_clear (&quick);
  dsh_serve_request_clear (&tree);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr (GError) error = NULL;
  DshServeRequest request;

  assert_quick_agrees (data, size);

  if (dsh_serve_request_parse ((const char *) data, size, &request, &error))
    {
      g_assert_no_error (error);
      g_assert_nonnull (request.id);
      g_assert_true (JSON_NODE_HOLDS_NULL (request.id) || JSON_NODE_HOLDS_VALUE (request.id));
      if (request.method == DSH_SERVE_METHOD_CONFINE || request.method == DSH_SERVE_METHOD_ESCALATE)
        {
          g_assert_nonnull (request.argv);
          g_assert_nonnull (request.argv[0]);
          g_assert_cmpstr (request.argv[0], !=, "");
        }
      else
        g_assert_null (request.argv);
      if (request.method == DSH_SERVE_METHOD_ESCALATE)
        g_assert_true (request.session != NULL && request.call_id != NULL &&
                       request.call_id[0] != '\0');
      /* classify: what it classifies is always there, bytes from base64 included. */
      if (request.method == DSH_SERVE_METHOD_CLASSIFY)
        {
          g_assert_true (request.backend != NULL && request.mode != NULL);
          g_assert_nonnull (request.stderr_bytes);
          g_assert_cmpint (request.exit_status, >=, 0);
          g_assert_cmpint (request.exit_status, <=, 255);
        }
      else
        g_assert_null (request.stderr_bytes);
      if (request.method >= DSH_SERVE_METHOD_SESSION_NEW &&
          request.method <= DSH_SERVE_METHOD_SESSION_SET_PRESET)
        g_assert_nonnull (request.session);
      if (request.method == DSH_SERVE_METHOD_SESSION_SET_MODE)
        g_assert_nonnull (request.mode);
      if (request.method == DSH_SERVE_METHOD_SESSION_SET_APPROVAL)
        g_assert_nonnull (request.approval_policy);
      if (request.method == DSH_SERVE_METHOD_SESSION_SET_PRESET)
        g_assert_nonnull (request.preset);
    }
  else
    {
      g_assert_nonnull (error);
      g_assert_true (error->domain == DSH_SERVE_ERROR);
      g_assert_true (g_utf8_validate (error->message, -1, NULL));
    }
  dsh_serve_request_clear (&request);
  return 0;
}
