/* dsh-serve-confined.c — serve's answer to a confine, written straight into one line of text:
 * the same document dsh_confined_argv_to_json() describes, without building a JSON tree and
 * generating it again, which cost serve more than the confine itself.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-serve-confined.h"

#include "dsh-json-writer.h"

#include <string.h>

static void
append_strv_member (GString *out, const char *name, const char *const *strv, gboolean first)
{
  if (!first)
    g_string_append_c (out, ',');
  g_string_append_c (out, '"');
  g_string_append (out, name);
  g_string_append (out, "\":[");
  for (gsize i = 0; strv != NULL && strv[i] != NULL; i++)
    {
      if (i > 0)
        g_string_append_c (out, ',');
      dsh_json_append_string (out, strv[i]);
    }
  g_string_append_c (out, ']');
}

/* A whole number in decimal, without printf (which allocated, on every answer). */
static void
append_integer (GString *out, gint64 value)
{
  char digits[24];
  char *p = digits + sizeof digits;
  guint64 magnitude = value < 0 ? (guint64) 0 - (guint64) value : (guint64) value;

  do
    {
      *--p = (char) ('0' + magnitude % 10);
      magnitude /= 10;
    }
  while (magnitude != 0);
  if (value < 0)
    *--p = '-';
  g_string_append_len (out, p, digits + sizeof digits - p);
}

/* An id of the kinds clients send (a whole number, a string, null), else FALSE. */
static gboolean
append_id (GString *out, JsonNode *id)
{
  if (id == NULL || JSON_NODE_HOLDS_NULL (id))
    {
      g_string_append (out, "null");
      return TRUE;
    }
  if (!JSON_NODE_HOLDS_VALUE (id))
    return FALSE;
  switch (json_node_get_value_type (id))
    {
    case G_TYPE_INT64:
      append_integer (out, json_node_get_int (id));
      return TRUE;
    case G_TYPE_STRING:
      dsh_json_append_string (out, json_node_get_string (id));
      return TRUE;
    default:
      return FALSE;
    }
}

/* The dialect's part of an answer: its denial texts and runner-failure rules. */
static void
append_dialect (GString *out, DshConfinedArgv *confined)
{
  GPtrArray *rules = dsh_confined_argv_get_runner_failure_rules (confined);

  append_strv_member (out, "denialSignatures", dsh_confined_argv_get_denial_signatures (confined),
                      FALSE);
  append_strv_member (out, "denialExclusions", dsh_confined_argv_get_denial_exclusions (confined),
                      FALSE);
  g_string_append (out, ",\"runnerFailureRules\":[");
  for (guint i = 0; i < rules->len; i++)
    {
      const DshRunnerFailureRule *rule = rules->pdata[i];
      gboolean first = TRUE;

      g_string_append (out, i > 0 ? ",{" : "{");
      if (rule->allowed_exit_codes != NULL)
        {
          g_string_append (out, "\"allowedExitCodes\":[");
          for (guint j = 0; j < rule->allowed_exit_codes->len; j++)
            {
              if (j > 0)
                g_string_append_c (out, ',');
              append_integer (out, g_array_index (rule->allowed_exit_codes, int, j));
            }
          g_string_append_c (out, ']');
          first = FALSE;
        }
      append_strv_member (out, "fatalSignatures", (const char *const *) rule->fatal_signatures,
                          first);
      if (rule->informational_lines != NULL)
        append_strv_member (out, "informationalLines",
                            (const char *const *) rule->informational_lines, FALSE);
      g_string_append_c (out, '}');
    }
  g_string_append_c (out, ']');
}

/* Do a and b hold the very same dialect? The results of one backend share theirs, immutable;
 * with both alive, the same addresses are the same memory. */
static gboolean
same_dialect (DshConfinedArgv *a, DshConfinedArgv *b)
{
  return dsh_confined_argv_get_denial_signatures (a) ==
           dsh_confined_argv_get_denial_signatures (b) &&
         dsh_confined_argv_get_denial_exclusions (a) ==
           dsh_confined_argv_get_denial_exclusions (b) &&
         dsh_confined_argv_get_runner_failure_rules (a) ==
           dsh_confined_argv_get_runner_failure_rules (b);
}

/* The dialect text of the last answer, with a result of that dialect held so that its memory
 * stays what the text was written from: most of an answer, and the same for every confine of
 * one backend. */
static GMutex last_dialect_lock;
static DshConfinedArgv *last_dialect_of;
static GString *last_dialect_text;

static void
append_dialect_as_last (GString *out, DshConfinedArgv *confined)
{
  g_mutex_lock (&last_dialect_lock);
  if (last_dialect_of == NULL || !same_dialect (last_dialect_of, confined))
    {
      g_clear_object (&last_dialect_of);
      if (last_dialect_text == NULL)
        last_dialect_text = g_string_new (NULL);
      g_string_truncate (last_dialect_text, 0);
      append_dialect (last_dialect_text, confined);
      last_dialect_of = g_object_ref (confined);
    }
  g_string_append_len (out, last_dialect_text->str, (gssize) last_dialect_text->len);
  g_mutex_unlock (&last_dialect_lock);
}

gboolean
dsh_serve_confined_append (GString *out, JsonNode *id, DshConfinedArgv *confined)
{
  g_string_append (out, "{\"id\":");
  if (!append_id (out, id))
    return FALSE;
  g_string_append (out, ",\"result\":{");
  append_strv_member (out, "argv", dsh_confined_argv_get_argv (confined), TRUE);
  g_string_append (out, ",\"enforcement\":");
  dsh_json_append_string (out,
                          dsh_enforcement_to_string (dsh_confined_argv_get_enforcement (confined)));
  append_strv_member (out, "enforcementReasons", dsh_confined_argv_get_reasons (confined), FALSE);
  g_string_append (out, ",\"backend\":");
  dsh_json_append_string (out, dsh_confined_argv_get_backend (confined));
  append_dialect_as_last (out, confined);
  g_string_append (out, "}}");
  return TRUE;
}
