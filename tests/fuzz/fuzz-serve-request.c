/* fuzz-serve-request.c — libFuzzer target for the parser of "dsh-sandbox serve" request lines:
 * any bytes either parse into a request whose fields hold what the protocol promises (a
 * non-empty argv for confine, an id of an allowed type) or are refused with a protocol error,
 * never a crash.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-serve-request.h"

#include "fuzz-target.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr (GError) error = NULL;
  DshServeRequest request;

  if (dsh_serve_request_parse ((const char *) data, size, &request, &error))
    {
      g_assert_no_error (error);
      g_assert_nonnull (request.id);
      g_assert_true (JSON_NODE_HOLDS_NULL (request.id) || JSON_NODE_HOLDS_VALUE (request.id));
      if (request.method == DSH_SERVE_METHOD_CONFINE)
        {
          g_assert_nonnull (request.argv);
          g_assert_nonnull (request.argv[0]);
          g_assert_cmpstr (request.argv[0], !=, "");
        }
      else
        g_assert_null (request.argv);
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
