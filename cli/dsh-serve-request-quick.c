/* dsh-serve-request-quick.c — the quick way to read serve's most frequent request, a confine
 * of plain strings, without a JSON tree: one pass over the line into the request's fields.
 *
 * It only ever says yes or "not mine": anything it is not sure it reads exactly as the general
 * way (dsh-serve-request.c) would — an escape in a member name, a number that is not a plain
 * integer, a member twice, another method, any error — it leaves to the general way, which then
 * accepts or refuses with its own words. The fuzz target holds the two to the same answer.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-serve-request.h"

#include <string.h>

typedef struct {
  const char *p;
  const char *end;
} Cursor;

static void
skip_space (Cursor *c)
{
  while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
    c->p++;
}

static gboolean
take (Cursor *c, char expected)
{
  skip_space (c);
  if (c->p >= c->end || *c->p != expected)
    return FALSE;
  c->p++;
  return TRUE;
}

static int
hex4 (const char *p)
{
  int value = 0;

  for (int i = 0; i < 4; i++)
    {
      int digit = g_ascii_xdigit_value (p[i]);

      if (digit < 0)
        return -1;
      value = value * 16 + digit;
    }
  return value;
}

/* A string at the cursor (already valid UTF-8, checked once for the whole line), its escapes
 * decoded into a new string; NULL for anything unusual: a raw control character, an escaped NUL,
 * a lone surrogate. */
static char *
read_string (Cursor *c)
{
  const char *start;
  GString *out = NULL;

  skip_space (c);
  if (c->p >= c->end || *c->p != '"')
    return NULL;
  start = ++c->p;
  for (;;)
    {
      const char *run = c->p;

      while (c->p < c->end && *c->p != '"' && *c->p != '\\' && (guchar) *c->p >= 0x20)
        c->p++;
      if (c->p >= c->end || (guchar) *c->p < 0x20)
        break;
      if (*c->p == '"')
        {
          char *text;

          if (out == NULL)
            text = g_strndup (start, (gsize) (c->p - start));
          else
            {
              g_string_append_len (out, run, c->p - run);
              text = g_string_free (g_steal_pointer (&out), FALSE);
            }
          c->p++;
          return text;
        }

      /* An escape. */
      if (out == NULL)
        out = g_string_sized_new ((gsize) (c->p - start) + 16);
      g_string_append_len (out, run, c->p - run);
      if (c->end - c->p < 2)
        break;
      switch (c->p[1])
        {
        case '"': g_string_append_c (out, '"'); break;
        case '\\': g_string_append_c (out, '\\'); break;
        case '/': g_string_append_c (out, '/'); break;
        case 'b': g_string_append_c (out, '\b'); break;
        case 'f': g_string_append_c (out, '\f'); break;
        case 'n': g_string_append_c (out, '\n'); break;
        case 'r': g_string_append_c (out, '\r'); break;
        case 't': g_string_append_c (out, '\t'); break;
        case 'u':
          {
            gunichar unit;
            int high, low;

            if (c->end - c->p < 6 || (high = hex4 (c->p + 2)) <= 0 ||
                (high >= 0xDC00 && high <= 0xDFFF))
              goto unusual;
            unit = (gunichar) high;
            if (high >= 0xD800 && high <= 0xDBFF)
              {
                if (c->end - c->p < 12 || c->p[6] != '\\' || c->p[7] != 'u' ||
                    (low = hex4 (c->p + 8)) < 0xDC00 || low > 0xDFFF)
                  goto unusual;
                unit = 0x10000 + (((gunichar) high - 0xD800) << 10) + ((gunichar) low - 0xDC00);
                c->p += 6;
              }
            g_string_append_unichar (out, unit);
            c->p += 6;
            continue;
          }
        default:
          goto unusual;
        }
      c->p += 2;
    }
unusual:
  if (out != NULL)
    g_string_free (out, TRUE);
  return NULL;
}

/* A member name: plain characters only (an escaped name is the general way's to read). */
static gboolean
read_name (Cursor *c, const char **out_name, gsize *out_len)
{
  skip_space (c);
  if (c->p >= c->end || *c->p != '"')
    return FALSE;
  *out_name = ++c->p;
  while (c->p < c->end && *c->p != '"' && *c->p != '\\' && (guchar) *c->p >= 0x20)
    c->p++;
  if (c->p >= c->end || *c->p != '"')
    return FALSE;
  *out_len = (gsize) (c->p - *out_name);
  c->p++;
  return take (c, ':');
}

static gboolean
name_is (const char *name, gsize len, const char *expected)
{
  return strlen (expected) == len && memcmp (name, expected, len) == 0;
}

/* ["...", ...] of strings only; NULL for anything else. */
static GStrv
read_strings (Cursor *c)
{
  g_autoptr (GPtrArray) strings = g_ptr_array_new_with_free_func (g_free);

  if (!take (c, '['))
    return NULL;
  skip_space (c);
  if (c->p < c->end && *c->p == ']')
    c->p++;
  else
    {
      do
        {
          char *text = read_string (c);

          if (text == NULL)
            return NULL;
          g_ptr_array_add (strings, text);
        }
      while (take (c, ','));
      if (!take (c, ']'))
        return NULL;
    }
  g_ptr_array_set_free_func (strings, NULL);
  g_ptr_array_add (strings, NULL);
  return (GStrv) g_ptr_array_free (g_steal_pointer (&strings), FALSE);
}

/* A plain integer in the 64-bit range (no fraction, exponent, leading zero or "-0"). */
static gboolean
read_integer (Cursor *c, gint64 *out)
{
  const char *start;
  char digits[24];
  gsize len;

  skip_space (c);
  start = c->p;
  if (c->p < c->end && *c->p == '-')
    c->p++;
  if (c->p >= c->end || !g_ascii_isdigit (*c->p) || (*c->p == '0' && c->p > start))
    return FALSE;
  if (*c->p == '0' && c->p + 1 < c->end && g_ascii_isdigit (c->p[1]))
    return FALSE;
  while (c->p < c->end && g_ascii_isdigit (*c->p))
    c->p++;
  if (c->p < c->end && (*c->p == '.' || *c->p == 'e' || *c->p == 'E'))
    return FALSE;
  len = (gsize) (c->p - start);
  if (len >= sizeof digits)
    return FALSE;
  memcpy (digits, start, len);
  digits[len] = '\0';
  return g_ascii_string_to_signed (digits, 10, G_MININT64, G_MAXINT64, out, NULL);
}

static JsonNode *
read_id (Cursor *c)
{
  gint64 number;
  char *text;

  skip_space (c);
  if (c->p >= c->end)
    return NULL;
  if (*c->p == '"')
    {
      JsonNode *node;

      if ((text = read_string (c)) == NULL)
        return NULL;
      node = json_node_init_string (json_node_alloc (), text);
      g_free (text);
      return node;
    }
  if (c->end - c->p >= 4 && memcmp (c->p, "null", 4) == 0)
    {
      c->p += 4;
      return json_node_new (JSON_NODE_NULL);
    }
  if (!read_integer (c, &number))
    return NULL;
  return json_node_init_int (json_node_alloc (), number);
}

/* A plain string member, not seen before in this object. */
static gboolean
read_string_once (Cursor *c, char **slot)
{
  return *slot == NULL && (*slot = read_string (c)) != NULL;
}

static gboolean
read_params (Cursor *c, DshServeRequest *request)
{
  if (!take (c, '{'))
    return FALSE;
  skip_space (c);
  if (c->p < c->end && *c->p == '}')
    {
      c->p++;
      return TRUE;
    }
  do
    {
      const char *name;
      gsize len;

      if (!read_name (c, &name, &len))
        return FALSE;
      if (name_is (name, len, "argv"))
        {
          if (request->argv != NULL || (request->argv = read_strings (c)) == NULL)
            return FALSE;
        }
      else if (name_is (name, len, "writableRoots"))
        {
          if (request->writable_roots != NULL ||
              (request->writable_roots = read_strings (c)) == NULL)
            return FALSE;
        }
      else if (name_is (name, len, "mode"))
        {
          if (!read_string_once (c, &request->mode))
            return FALSE;
        }
      else if (name_is (name, len, "workspace"))
        {
          if (!read_string_once (c, &request->workspace))
            return FALSE;
        }
      else if (name_is (name, len, "session"))
        {
          if (!read_string_once (c, &request->session))
            return FALSE;
        }
      else
        return FALSE;
    }
  while (take (c, ','));
  return take (c, '}');
}

static gboolean
read_request (Cursor *c, DshServeRequest *request)
{
  gboolean seen_method = FALSE, seen_params = FALSE;

  if (!take (c, '{'))
    return FALSE;
  do
    {
      const char *name;
      gsize len;

      if (!read_name (c, &name, &len))
        return FALSE;
      if (name_is (name, len, "id"))
        {
          if (request->id != NULL || (request->id = read_id (c)) == NULL)
            return FALSE;
        }
      else if (name_is (name, len, "method"))
        {
          g_autofree char *method = NULL;

          if (seen_method || (method = read_string (c)) == NULL ||
              !g_str_equal (method, "confine"))
            return FALSE;
          seen_method = TRUE;
        }
      else if (name_is (name, len, "params"))
        {
          if (seen_params || !read_params (c, request))
            return FALSE;
          seen_params = TRUE;
        }
      else
        return FALSE;
    }
  while (take (c, ','));
  if (!take (c, '}'))
    return FALSE;
  skip_space (c);
  if (c->p != c->end || !seen_method)
    return FALSE;

  /* What the general way would refuse. */
  if (request->argv == NULL || request->argv[0] == NULL || request->argv[0][0] == '\0')
    return FALSE;
  for (gsize i = 0; request->writable_roots != NULL && request->writable_roots[i] != NULL; i++)
    {
      if (!g_path_is_absolute (request->writable_roots[i]))
        return FALSE;
    }
  if (request->id == NULL)
    request->id = json_node_new (JSON_NODE_NULL);
  request->method = DSH_SERVE_METHOD_CONFINE;
  return TRUE;
}

gboolean
dsh_serve_request_parse_quick (const char *line, gsize length, DshServeRequest *request)
{
  Cursor c = { line, line + length };

  memset (request, 0, sizeof (*request));
  /* Valid UTF-8 without a NUL byte, as the general way's syntax check demands. */
  if (!g_utf8_validate_len (line, length, NULL) || !read_request (&c, request))
    {
      dsh_serve_request_clear (request);
      memset (request, 0, sizeof (*request));
      return FALSE;
    }
  return TRUE;
}
