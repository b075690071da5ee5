/* dsh-approver-tty-text.c — the terminal prompt's text and its reading of a typed line.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-approver-tty-text.h"

#include <string.h>

/* ---- showing untrusted text ---------------------------------------------------------------- */

/* The model's prose is shown up to this many characters (the audit log keeps all of it): a
 * longer one could scroll the command off the screen. */
#define SHOWN_TEXT_LIMIT 500

/* Characters a terminal shows as nothing or as blank space, besides U+0020: with them, text
 * could draw lines of its own that look like the prompt's. */
static gboolean
is_blank_looking (gunichar c)
{
  switch (g_unichar_type (c))
    {
    case G_UNICODE_CONTROL:
    case G_UNICODE_FORMAT:        /* bidirectional controls, zero-width characters */
    case G_UNICODE_SPACE_SEPARATOR:
    case G_UNICODE_LINE_SEPARATOR:
    case G_UNICODE_PARAGRAPH_SEPARATOR:
    case G_UNICODE_UNASSIGNED:
    case G_UNICODE_PRIVATE_USE:
    case G_UNICODE_SURROGATE:
      return c != 0x0020;
    default:
      /* Letters and symbols that render blank: Hangul fillers, the blank Braille pattern. */
      return c == 0x115F || c == 0x1160 || c == 0x3164 || c == 0xFFA0 || c == 0x2800 ||
             c == 0x180E;
    }
}

/* Text from the model (argv, justification) is shown with every control character, every
 * bidirectional control and every other character that renders blank escaped, so it can
 * neither drive the terminal nor reorder what the person reads. A space that follows a space
 * is escaped too: runs of blanks are how text wraps onto lines of its own at the terminal's
 * width and draws a prompt there ("command: ls") that is not the command that would run. */
static void
append_visible (GString *out, const char *text)
{
  g_autofree char *valid = g_utf8_make_valid (text, -1);
  gunichar previous = 0;

  for (const char *p = valid; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (is_blank_looking (c) || (c == 0x0020 && previous == 0x0020))
        g_string_append_printf (out, "\\u{%04X}", c);
      else
        g_string_append_unichar (out, c);
      previous = c;
    }
}

/* The model's prose: runs of spaces read as one (they carry no meaning in a sentence), shown
 * up to SHOWN_TEXT_LIMIT characters, escaped as append_visible() does. */
static void
append_prose (GString *out, const char *text)
{
  g_autofree char *valid = g_utf8_make_valid (text, -1);
  g_autoptr (GString) collapsed = g_string_new (NULL);
  glong length;

  for (const char *p = valid; *p != '\0'; p++)
    {
      if (*p == ' ' && collapsed->len > 0 && collapsed->str[collapsed->len - 1] == ' ')
        continue;
      g_string_append_c (collapsed, *p);
    }
  length = g_utf8_strlen (collapsed->str, -1);
  if (length > SHOWN_TEXT_LIMIT)
    {
      g_autofree char *head = g_utf8_substring (collapsed->str, 0, SHOWN_TEXT_LIMIT);

      append_visible (out, head);
      g_string_append_printf (out, " [%ld more characters not shown]",
                              length - SHOWN_TEXT_LIMIT);
      return;
    }
  append_visible (out, collapsed->str);
}

/* An argument as a shell would need it typed: bare when that is unambiguous, else quoted. */
static char *
shell_word (const char *arg)
{
  static const char safe[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                             "_@%+=:,./-";

  if (*arg != '\0' && strspn (arg, safe) == strlen (arg))
    return g_strdup (arg);
  return g_shell_quote (arg);
}

/* The string node holds, else NULL: the details may hold anything JSON can. */
static const char *
string_node (JsonNode *node)
{
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

/* Each string of words shell-quoted and shown visibly, one space apart (a non-string as ''). */
static void
append_words (GString *out, JsonArray *words)
{
  for (guint i = 0; i < json_array_get_length (words); i++)
    {
      const char *word = string_node (json_array_get_element (words, i));
      g_autofree char *quoted = shell_word (word != NULL ? word : "");

      if (i > 0)
        g_string_append_c (out, ' ');
      append_visible (out, quoted);
    }
}

static const char *
detail_string (DshApprovalRequest *request, const char *member)
{
  JsonObject *details = dsh_approval_request_get_details (request);

  if (details == NULL)
    return NULL;
  return string_node (json_object_get_member (details, member));
}

char *
dsh_tty_format_prompt (DshApprovalRequest *request)
{
  JsonObject *details = dsh_approval_request_get_details (request);
  JsonArray *command = NULL;
  const char *requested = detail_string (request, "requestedMode");
  const char *standing = detail_string (request, "standingMode");
  const char *justification = detail_string (request, "justification");
  GString *out = g_string_new (NULL);

  if (details != NULL && json_object_has_member (details, "command") &&
      JSON_NODE_HOLDS_ARRAY (json_object_get_member (details, "command")))
    command = json_object_get_array_member (details, "command");

  g_string_append (out, "\ndsh-sandbox: approval requested for ");
  append_visible (out, dsh_approval_request_get_tool_name (request));
  g_string_append (out, "\n");
  /* The model's prose first: whatever it looks like, the lines that follow it, right above the
   * question, are the command and the mode as they are. */
  g_string_append (out, justification != NULL ? "  justification:  " : "  reason:         ");
  append_prose (out, justification != NULL ? justification
                                           : dsh_approval_request_get_reason (request));
  g_string_append (out, "\n");
  if (command != NULL)
    {
      g_string_append (out, "  command:        ");
      append_words (out, command);
      g_string_append (out, "\n");
    }
  if (requested != NULL)
    {
      g_string_append (out, "  requested mode: ");
      append_visible (out, requested);
      if (standing != NULL)
        {
          g_string_append (out, " (standing mode: ");
          append_visible (out, standing);
          g_string_append (out, ")");
        }
      g_string_append (out, "\n");
    }
  /* What a workspace-write grant opens besides the workspace and the temp areas. */
  if (details != NULL && json_object_has_member (details, "extraWritableRoots") &&
      JSON_NODE_HOLDS_ARRAY (json_object_get_member (details, "extraWritableRoots")))
    {
      JsonArray *extra = json_object_get_array_member (details, "extraWritableRoots");

      g_string_append (out, "  also writable:  ");
      append_words (out, extra);
      g_string_append (out, "\n");
    }
  if (requested != NULL)
    {
      g_string_append (out, "Run this command once under ");
      append_visible (out, requested);
      g_string_append (out, "? [y/n] ");
    }
  else
    g_string_append (out, "Allow this once? [y/n] ");
  return g_string_free (out, FALSE);
}

/* ---- reading a typed line ------------------------------------------------------------------ */

gboolean
dsh_tty_answer_from_line (const char         *line,
                          gsize               length,
                          gboolean            overlong,
                          DshApprovalOutcome *out_outcome)
{
  g_autofree char *word = NULL;

  /* A NUL would end the word early: "y<NUL>anything" is not "y". */
  if (memchr (line, '\0', length) != NULL)
    return FALSE;
  word = g_ascii_strdown (line, (gssize) length);
  g_strstrip (word);
  if (!overlong && (g_str_equal (word, "y") || g_str_equal (word, "yes")))
    {
      *out_outcome = DSH_APPROVAL_OUTCOME_ALLOWED_ONCE;
      return TRUE;
    }
  if (!overlong && (g_str_equal (word, "n") || g_str_equal (word, "no")))
    {
      *out_outcome = DSH_APPROVAL_OUTCOME_REJECTED;
      return TRUE;
    }
  return FALSE;
}
