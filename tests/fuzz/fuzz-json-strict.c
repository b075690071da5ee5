/* fuzz-json-strict.c — libFuzzer target for the strict JSON reader in front of the session log,
 * the configuration and serve: the syntax check and the parse agree (a refused syntax never
 * parses), an error is set exactly when nothing is returned, and what parses writes back to text
 * that parses to an equal tree and writes back to the same text.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <string.h>

#include <dsh-sandbox.h>

#include "dsh-json-strict-private.h"
#include "fuzz-target.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const char *text = (const char *) data;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) root = NULL;
  gboolean syntax_error = FALSE;
  gboolean well_formed;

  well_formed = dsh_json_strict_check (text, size, DSH_JSON_STRICT_MAX_DEPTH, NULL);
  /* A deeper limit never refuses what a shallower one accepted. */
  g_assert_true (!well_formed ||
                 dsh_json_strict_check (text, size, DSH_JSON_STRICT_MAX_DEPTH + 1, NULL));

  root = dsh_json_strict_parse (text, size, &syntax_error, &error);
  g_assert_true ((root == NULL) == (error != NULL));
  if (root == NULL)
    {
      g_assert_true (error->domain == DSH_SANDBOX_ERROR || error->domain == JSON_PARSER_ERROR);
      g_assert_true (g_utf8_validate (error->message, -1, NULL));
      g_assert_true (!syntax_error || !well_formed || error->domain == JSON_PARSER_ERROR);
      return 0;
    }
  g_assert_true (well_formed);
  g_assert_false (syntax_error);

  {
    g_autofree char *written = dsh_json_strict_to_string (root, FALSE);
    g_autofree char *rewritten = NULL;
    g_autoptr (GError) again_error = NULL;
    g_autoptr (JsonNode) again = NULL;

    again = dsh_json_strict_parse (written, strlen (written), &syntax_error, &again_error);
    g_assert_no_error (again_error);
    g_assert_true (json_node_equal (root, again));
    rewritten = dsh_json_strict_to_string (again, FALSE);
    g_assert_cmpstr (written, ==, rewritten);
  }
  return 0;
}
