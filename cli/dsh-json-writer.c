/* dsh-json-writer.c — JSON text for flat objects: members are strings, integers, booleans,
 * null or arrays of strings. Strings are made valid UTF-8 and escaped per RFC 8259.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-json-writer.h"

#include <string.h>

/* Bytes written as they are inside a JSON string. */
static inline gboolean
is_plain (unsigned char c)
{
  return c >= 0x20 && c != '"' && c != '\\' && c != 0x7f;
}

/* Printable ASCII but for a quote or a backslash: written as it is, and valid UTF-8. A table,
 * so that the scan of a string costs one look-up per byte. */
#define PLAIN_8(c) ((c) >= 0x20 && (c) < 0x7f && (c) != '"' && (c) != '\\')
#define PLAIN_ROW(r) PLAIN_8 (r + 0), PLAIN_8 (r + 1), PLAIN_8 (r + 2), PLAIN_8 (r + 3), \
                     PLAIN_8 (r + 4), PLAIN_8 (r + 5), PLAIN_8 (r + 6), PLAIN_8 (r + 7)
static const guint8 plain_ascii[256] = {
  PLAIN_ROW (0x00), PLAIN_ROW (0x08), PLAIN_ROW (0x10), PLAIN_ROW (0x18),
  PLAIN_ROW (0x20), PLAIN_ROW (0x28), PLAIN_ROW (0x30), PLAIN_ROW (0x38),
  PLAIN_ROW (0x40), PLAIN_ROW (0x48), PLAIN_ROW (0x50), PLAIN_ROW (0x58),
  PLAIN_ROW (0x60), PLAIN_ROW (0x68), PLAIN_ROW (0x70), PLAIN_ROW (0x78),
};
#undef PLAIN_ROW
#undef PLAIN_8

static inline gboolean
is_plain_ascii (unsigned char c)
{
  return plain_ascii[c];
}

/* Are the eight bytes of word all plain ASCII? Each test below sets a byte's high bit for
 * some byte that is not (a carry out of a 0xff byte may flag its neighbour too, which only
 * sends the word to the byte-wise look); none misses one. */
static inline gboolean
word_is_plain_ascii (guint64 word)
{
  const guint64 ones = G_GUINT64_CONSTANT (0x0101010101010101);
  const guint64 highs = ones * 0x80;
  guint64 quote = word ^ (ones * '"');
  guint64 backslash = word ^ (ones * '\\');
  guint64 below_space = (word - ones * 0x20) & ~word;
  guint64 delete_or_above = (word + ones) | word;
  guint64 is_quote = (quote - ones) & ~quote;
  guint64 is_backslash = (backslash - ones) & ~backslash;

  return ((below_space | delete_or_above | is_quote | is_backslash) & highs) == 0;
}

/* How many bytes value starts with that are written as they are: eight at a time while it can. */
static gsize
plain_prefix (const char *value, gsize len)
{
  gsize i = 0;

  for (; i + 8 <= len; i += 8)
    {
      guint64 word;

      memcpy (&word, value + i, sizeof word);
      if (!word_is_plain_ascii (word))
        break;
    }
  while (i < len && is_plain_ascii ((unsigned char) value[i]))
    i++;
  return i;
}

void
dsh_json_append_string (GString *out, const char *value)
{
  g_autofree char *made_valid = NULL;
  const unsigned char *p;
  gsize len, at;

  /* Most strings are nothing else: one scan and one copy. */
  len = strlen (value);
  if (plain_prefix (value, len) == len)
    {
      at = out->len;
      g_string_set_size (out, at + len + 2);
      out->str[at] = '"';
      memcpy (out->str + at + 1, value, len);
      out->str[at + len + 1] = '"';
      return;
    }

  if (!g_utf8_validate (value, -1, NULL))
    value = made_valid = g_utf8_make_valid (value, -1);
  g_string_append_c (out, '"');
  for (p = (const unsigned char *) value; *p != '\0'; p++)
    {
      const unsigned char *run = p;

      /* Plain runs in one copy: most strings are nothing else. */
      while (is_plain (*p))
        p++;
      if (p > run)
        g_string_append_len (out, (const char *) run, p - run);
      if (*p == '\0')
        break;
      switch (*p)
        {
        case '"':
          g_string_append (out, "\\\"");
          break;
        case '\\':
          g_string_append (out, "\\\\");
          break;
        case '\n':
          g_string_append (out, "\\n");
          break;
        case '\r':
          g_string_append (out, "\\r");
          break;
        case '\t':
          g_string_append (out, "\\t");
          break;
        default:
          g_string_append_printf (out, "\\u%04x", *p);
        }
    }
  g_string_append_c (out, '"');
}

static void
begin_member (DshJsonObject *object, const char *name)
{
  g_string_append (object->out, object->first ? "\n  " : ",\n  ");
  object->first = FALSE;
  dsh_json_append_string (object->out, name);
  g_string_append (object->out, ": ");
}

void
dsh_json_object_begin (DshJsonObject *object)
{
  object->out = g_string_new ("{");
  object->first = TRUE;
}

char *
dsh_json_object_end (DshJsonObject *object)
{
  g_string_append (object->out, object->first ? "}\n" : "\n}\n");
  return g_string_free (g_steal_pointer (&object->out), FALSE);
}

void
dsh_json_object_add_string (DshJsonObject *object, const char *name, const char *value)
{
  begin_member (object, name);
  if (value != NULL)
    dsh_json_append_string (object->out, value);
  else
    g_string_append (object->out, "null");
}

void
dsh_json_object_add_int (DshJsonObject *object, const char *name, gint64 value)
{
  begin_member (object, name);
  g_string_append_printf (object->out, "%" G_GINT64_FORMAT, value);
}

void
dsh_json_object_add_null (DshJsonObject *object, const char *name)
{
  begin_member (object, name);
  g_string_append (object->out, "null");
}

void
dsh_json_object_add_boolean (DshJsonObject *object, const char *name, gboolean value)
{
  begin_member (object, name);
  g_string_append (object->out, value ? "true" : "false");
}

void
dsh_json_object_add_strv (DshJsonObject *object, const char *name, const char *const *values)
{
  begin_member (object, name);
  g_string_append_c (object->out, '[');
  for (gsize i = 0; values != NULL && values[i] != NULL; i++)
    {
      if (i > 0)
        g_string_append (object->out, ", ");
      dsh_json_append_string (object->out, values[i]);
    }
  g_string_append_c (object->out, ']');
}
