/* test-json-writer.c — the exec path's small JSON writer produces text json-glib parses back to
 * the same values, whatever bytes the strings hold (quotes, control characters, invalid UTF-8).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <json-glib/json-glib.h>
#include <string.h>

#include "dsh-json-writer.h"

static void
test_round_trip (void)
{
  const char *nasty[] = {
    "", "plain", "quote \" and backslash \\", "line\nbreak\r\ttab", "\x01\x02\x1f\x7f",
    "snowman \xe2\x98\x83 and \xf0\x9f\x98\x80", "</script>", NULL,
  };
  g_autofree char *text = NULL;
  g_autoptr (JsonNode) root = NULL;
  g_autoptr (GError) error = NULL;
  DshJsonObject object;
  JsonObject *parsed;
  JsonArray *array;

  dsh_json_object_begin (&object);
  for (guint i = 0; nasty[i] != NULL; i++)
    {
      g_autofree char *name = g_strdup_printf ("s%u", i);

      dsh_json_object_add_string (&object, name, nasty[i]);
    }
  dsh_json_object_add_string (&object, "invalid", "bad \xff\xfe utf-8 \xc3");
  dsh_json_object_add_string (&object, "null", NULL);
  dsh_json_object_add_null (&object, "explicit-null");
  dsh_json_object_add_int (&object, "int", G_MININT64);
  dsh_json_object_add_boolean (&object, "yes", TRUE);
  dsh_json_object_add_strv (&object, "list", nasty);
  dsh_json_object_add_strv (&object, "empty", NULL);
  text = dsh_json_object_end (&object);

  root = json_from_string (text, &error);
  g_assert_no_error (error);
  parsed = json_node_get_object (root);
  for (guint i = 0; nasty[i] != NULL; i++)
    {
      g_autofree char *name = g_strdup_printf ("s%u", i);

      g_assert_cmpstr (json_object_get_string_member (parsed, name), ==, nasty[i]);
    }
  g_assert_true (g_utf8_validate (json_object_get_string_member (parsed, "invalid"), -1, NULL));
  g_assert_true (json_object_get_null_member (parsed, "null"));
  g_assert_true (json_object_get_null_member (parsed, "explicit-null"));
  g_assert_cmpint (json_object_get_int_member (parsed, "int"), ==, G_MININT64);
  g_assert_true (json_object_get_boolean_member (parsed, "yes"));
  array = json_object_get_array_member (parsed, "list");
  g_assert_cmpuint (json_array_get_length (array), ==, g_strv_length ((char **) nasty));
  for (guint i = 0; nasty[i] != NULL; i++)
    g_assert_cmpstr (json_array_get_string_element (array, i), ==, nasty[i]);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (parsed, "empty")), ==, 0);
}

/* Every byte value at every place of a longer plain string (the writer scans words of eight)
 * is written exactly as the byte-wise rules say. */
static void
test_every_byte_everywhere (void)
{
  const char *plain = "abcdefghijklmnopqrstuvwxyz0123456789";

  for (guint c = 1; c < 256; c++)
    for (gsize at = 0; at < strlen (plain); at++)
      {
        g_autofree char *value = g_strdup (plain);
        g_autoptr (GString) out = g_string_new (NULL);
        g_autofree char *expected = NULL;
        g_autofree char *escaped = NULL;

        value[at] = (char) c;
        dsh_json_append_string (out, value);
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
          escaped = g_strdup_printf ("%c", c);
        else if (c == '"' || c == '\\')
          escaped = g_strdup_printf ("\\%c", c);
        else if (c == '\n' || c == '\r' || c == '\t')
          escaped = g_strdup (c == '\n' ? "\\n" : c == '\r' ? "\\r" : "\\t");
        else if (c < 0x80)
          escaped = g_strdup_printf ("\\u%04x", c);
        else
          escaped = g_strdup ("\xef\xbf\xbd"); /* a lone byte above ASCII is invalid UTF-8 */
        expected = g_strdup_printf ("\"%.*s%s%s\"", (int) at, plain, escaped, plain + at + 1);
        g_assert_cmpstr (out->str, ==, expected);
      }
}

static void
test_empty_object (void)
{
  DshJsonObject object;
  g_autofree char *text = NULL;

  dsh_json_object_begin (&object);
  text = dsh_json_object_end (&object);
  g_assert_cmpstr (text, ==, "{}\n");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/json-writer/round-trip", test_round_trip);
  g_test_add_func ("/json-writer/every-byte", test_every_byte_everywhere);
  g_test_add_func ("/json-writer/empty", test_empty_object);
  return g_test_run ();
}
