/* dsh-json-strict.c — strict JSON reading: an iterative RFC 8259 syntax checker (no tree,
 * bounded depth) in front of json-glib, so the session log and the configuration accept exactly
 * what every other JSON reader would read the same way.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-json-strict-private.h"

#include <string.h>

#include "dsh-error.h"

typedef enum {
  EXPECT_VALUE,
  EXPECT_VALUE_OR_CLOSE,        /* right after '[' */
  EXPECT_KEY_OR_CLOSE,          /* right after '{' */
  EXPECT_KEY,                   /* after ',' inside an object */
  EXPECT_COLON,
  AFTER_VALUE,
} ScanState;

typedef struct {
  const guchar *text;
  gsize length;
  gsize pos;
} Scanner;

static gboolean
fail (Scanner *s, GError **error, const char *what)
{
  g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
               "invalid JSON at column %" G_GSIZE_FORMAT ": %s", s->pos + 1, what);
  return FALSE;
}

static void
skip_whitespace (Scanner *s)
{
  while (s->pos < s->length &&
         (s->text[s->pos] == ' ' || s->text[s->pos] == '\t' || s->text[s->pos] == '\n' ||
          s->text[s->pos] == '\r'))
    s->pos++;
}

static int
hex4 (Scanner *s)
{
  int value = 0;

  if (s->length - s->pos < 4)
    return -1;
  for (int i = 0; i < 4; i++)
    {
      int digit = g_ascii_xdigit_value ((char) s->text[s->pos + i]);

      if (digit < 0)
        return -1;
      value = value * 16 + digit;
    }
  s->pos += 4;
  return value;
}

/* At the opening quote; leaves pos after the closing quote. */
static gboolean
scan_string (Scanner *s, GError **error)
{
  s->pos++;
  while (s->pos < s->length)
    {
      guchar c = s->text[s->pos];

      if (c == '"')
        {
          s->pos++;
          return TRUE;
        }
      if (c < 0x20)
        return fail (s, error, "control character in a string");
      if (c != '\\')
        {
          s->pos++;
          continue;
        }

      s->pos++;
      if (s->pos >= s->length)
        break;
      c = s->text[s->pos];
      if (c == 'u')
        {
          int unit;

          s->pos++;
          unit = hex4 (s);
          if (unit < 0)
            return fail (s, error, "bad \\u escape");
          if (unit == 0)
            return fail (s, error, "escaped NUL in a string");
          if (unit >= 0xDC00 && unit <= 0xDFFF)
            return fail (s, error, "lone low surrogate escape");
          if (unit >= 0xD800 && unit <= 0xDBFF)
            {
              int low;

              if (s->length - s->pos < 2 || s->text[s->pos] != '\\' || s->text[s->pos + 1] != 'u')
                return fail (s, error, "lone high surrogate escape");
              s->pos += 2;
              low = hex4 (s);
              if (low < 0xDC00 || low > 0xDFFF)
                return fail (s, error, "lone high surrogate escape");
            }
          continue;
        }
      if (strchr ("\"\\/bfnrt", c) == NULL || c == '\0')
        return fail (s, error, "bad escape");
      s->pos++;
    }
  return fail (s, error, "unterminated string");
}

static gboolean
scan_digits (Scanner *s)
{
  gsize start = s->pos;

  while (s->pos < s->length && g_ascii_isdigit (s->text[s->pos]))
    s->pos++;
  return s->pos > start;
}

static gboolean
scan_number (Scanner *s, GError **error)
{
  gsize start = s->pos;
  gboolean integer = TRUE;

  if (s->text[s->pos] == '-')
    s->pos++;
  if (s->pos < s->length && s->text[s->pos] == '0')
    s->pos++;
  else if (!scan_digits (s))
    return fail (s, error, "bad number");

  if (s->pos < s->length && s->text[s->pos] == '.')
    {
      integer = FALSE;
      s->pos++;
      if (!scan_digits (s))
        return fail (s, error, "bad fraction");
    }
  if (s->pos < s->length && (s->text[s->pos] == 'e' || s->text[s->pos] == 'E'))
    {
      integer = FALSE;
      s->pos++;
      if (s->pos < s->length && (s->text[s->pos] == '+' || s->text[s->pos] == '-'))
        s->pos++;
      if (!scan_digits (s))
        return fail (s, error, "bad exponent");
    }

  /* json-glib silently wraps integers beyond 64 bits (99999999999999999999 reads as -1):
   * such a number would mean one thing here and another to every other reader. */
  if (integer)
    {
      g_autofree char *digits = g_strndup ((const char *) s->text + start, s->pos - start);

      if (!g_ascii_string_to_signed (digits, 10, G_MININT64, G_MAXINT64, NULL, NULL))
        return fail (s, error, "integer out of the 64-bit range");
    }
  return TRUE;
}

static gboolean
scan_literal (Scanner *s, GError **error)
{
  static const char *const literals[] = { "true", "false", "null" };

  for (guint i = 0; i < G_N_ELEMENTS (literals); i++)
    {
      gsize len = strlen (literals[i]);

      if (s->length - s->pos >= len && memcmp (s->text + s->pos, literals[i], len) == 0)
        {
          s->pos += len;
          return TRUE;
        }
    }
  return fail (s, error, "unexpected character");
}

gboolean
dsh_json_strict_check (const char *text, gsize length, guint max_depth, GError **error)
{
  Scanner s = { (const guchar *) text, length, 0 };
  g_autofree char *stack = g_malloc (max_depth + 1);
  guint depth = 0;
  ScanState state = EXPECT_VALUE;

  /* g_utf8_validate_len() also refuses a raw NUL byte. */
  if (!g_utf8_validate_len (text, length, NULL))
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                   "invalid JSON: not UTF-8 (or contains a NUL byte)");
      return FALSE;
    }

  for (;;)
    {
      guchar c;

      skip_whitespace (&s);
      if (s.pos >= s.length)
        break;
      c = s.text[s.pos];

      switch (state)
        {
        case EXPECT_VALUE:
        case EXPECT_VALUE_OR_CLOSE:
          if (c == ']' && state == EXPECT_VALUE_OR_CLOSE)
            {
              depth--;
              s.pos++;
              state = AFTER_VALUE;
            }
          else if (c == '{' || c == '[')
            {
              if (depth >= max_depth)
                return fail (&s, error, "nesting too deep");
              stack[depth++] = (char) c;
              s.pos++;
              state = c == '{' ? EXPECT_KEY_OR_CLOSE : EXPECT_VALUE_OR_CLOSE;
            }
          else if (c == '"')
            {
              if (!scan_string (&s, error))
                return FALSE;
              state = AFTER_VALUE;
            }
          else if (c == '-' || g_ascii_isdigit (c))
            {
              if (!scan_number (&s, error))
                return FALSE;
              state = AFTER_VALUE;
            }
          else
            {
              if (!scan_literal (&s, error))
                return FALSE;
              state = AFTER_VALUE;
            }
          break;

        case EXPECT_KEY_OR_CLOSE:
        case EXPECT_KEY:
          if (c == '}' && state == EXPECT_KEY_OR_CLOSE)
            {
              depth--;
              s.pos++;
              state = AFTER_VALUE;
            }
          else if (c == '"')
            {
              if (!scan_string (&s, error))
                return FALSE;
              state = EXPECT_COLON;
            }
          else
            return fail (&s, error, "expected a member name");
          break;

        case EXPECT_COLON:
          if (c != ':')
            return fail (&s, error, "expected ':'");
          s.pos++;
          state = EXPECT_VALUE;
          break;

        case AFTER_VALUE:
          if (depth == 0)
            return fail (&s, error, "trailing characters after the value");
          if (c == ',')
            state = stack[depth - 1] == '{' ? EXPECT_KEY : EXPECT_VALUE;
          else if ((c == '}' && stack[depth - 1] == '{') || (c == ']' && stack[depth - 1] == '['))
            depth--;
          else
            return fail (&s, error, "expected ',' or a closing bracket");
          s.pos++;
          break;

        default:
          g_assert_not_reached ();
        }
    }

  if (state != AFTER_VALUE || depth != 0)
    return fail (&s, error, "unexpected end of data");
  return TRUE;
}

typedef struct {
  GHashTable *seen;
  char *duplicate;
} DuplicateScan;

static void
on_object_member (JsonParser *parser, JsonObject *object, const char *name, gpointer user_data)
{
  DuplicateScan *scan = user_data;
  char *key = g_strdup_printf ("%p/%s", (void *) object, name);

  /* Every object of one parse is alive until the parse ends, so its address names it. */
  if (!g_hash_table_add (scan->seen, key) && scan->duplicate == NULL)
    scan->duplicate = g_strdup (name);
}

JsonNode *
dsh_json_strict_parse (const char *text, gsize length, gboolean *syntax_error, GError **error)
{
  g_autoptr (JsonParser) parser = NULL;
  g_autofree char *duplicate = NULL;
  DuplicateScan scan = { NULL, NULL };
  gboolean ok;

  *syntax_error = TRUE;
  if (!dsh_json_strict_check (text, length, DSH_JSON_STRICT_MAX_DEPTH, error))
    return NULL;

  parser = json_parser_new_immutable ();
  scan.seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_signal_connect (parser, "object-member", G_CALLBACK (on_object_member), &scan);
  ok = json_parser_load_from_data (parser, text, (gssize) length, error);
  g_hash_table_unref (scan.seen);
  duplicate = scan.duplicate;
  if (!ok)
    return NULL;

  *syntax_error = FALSE;
  if (duplicate != NULL)
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                   "member \"%s\" appears twice in one object", duplicate);
      return NULL;
    }
  /* json-glib reads 1e999 as infinity and writes 1e22 as "1e+22.0": a value it cannot write
   * back as JSON would make every later copy of this document (session show, a re-read)
   * unreadable, so it is refused here, where the error can name the line. */
  {
    g_autofree char *again = dsh_json_strict_to_string (json_parser_get_root (parser), FALSE);

    if (!dsh_json_strict_check (again, strlen (again), DSH_JSON_STRICT_MAX_DEPTH, NULL))
      {
        g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                     "a number cannot be represented faithfully (out of range)");
        return NULL;
      }
  }
  return json_node_ref (json_parser_get_root (parser));
}

JsonObject *
dsh_json_strict_parse_object (const char *text,
                              gsize length,
                              const char *not_object,
                              gboolean *syntax_error,
                              GError **error)
{
  g_autoptr (JsonNode) root = dsh_json_strict_parse (text, length, syntax_error, error);

  if (root == NULL)
    return NULL;
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error_literal (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                           not_object);
      return NULL;
    }
  return json_object_ref (json_node_get_object (root));
}

char *
dsh_json_strict_to_string (JsonNode *node, gboolean pretty)
{
  g_autoptr (JsonGenerator) generator = json_generator_new ();
  g_autofree char *text = NULL;
  GString *escaped;

  json_generator_set_root (generator, node);
  json_generator_set_pretty (generator, pretty);
  text = json_generator_to_data (generator, NULL);
  if (strchr (text, '\x1f') == NULL)
    return g_steal_pointer (&text);

  /* json-glib writes no control character outside a string, so each one is inside one. */
  escaped = g_string_sized_new (strlen (text) + 8);
  for (const char *p = text; *p != '\0'; p++)
    {
      if (*p == '\x1f')
        g_string_append (escaped, "\\u001f");
      else
        g_string_append_c (escaped, *p);
    }
  return g_string_free (escaped, FALSE);
}
