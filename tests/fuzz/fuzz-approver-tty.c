/* fuzz-approver-tty.c — libFuzzer target for the terminal approver's text: how a typed line
 * becomes an answer, and the question it shows for a request whose command, modes and
 * justification come from a confined command's context.
 *
 * Input: the typed line, then '\n', then one flag byte and the request's NUL-separated fields:
 * tool name, reason, requestedMode, standingMode, justification, then command arguments. Flag
 * bits say which details are present: 0x01 command, 0x02 requestedMode, 0x04 standingMode,
 * 0x08 justification; 0x10 makes the command a string instead of an array, 0x20 makes each
 * present mode and the justification a number. An argument starting with byte 1, 2, 3 or 4 is
 * a number, a null, an array or an object instead of a string.
 *
 * Asserted: a line is an answer exactly when, not overlong, it is y, yes, n or no in any letter
 * case with spaces, tabs, newlines, form feeds or carriage returns around, and nothing else (no
 * NUL), and the answer is that word's; the question is valid
 * UTF-8 with no control character but newline (C0, DEL, C1) and no bidirectional control, and
 * it reads as the question.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <string.h>

#include "dsh-approver-tty-text.h"
#include "fuzz-target.h"
#include "fuzz-util.h"

#define MAX_ARGS 8

static gboolean
is_space (char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

/* The rule, written again from its statement: all the bytes (a NUL included) without white
 * space at either end, compared with each word in any ASCII letter case. */
static gboolean
expected_answer (const char *line, gsize length, gboolean overlong, DshApprovalOutcome *outcome)
{
  static const struct { const char *word; DshApprovalOutcome outcome; } words[] = {
    { "y", DSH_APPROVAL_OUTCOME_ALLOWED_ONCE }, { "yes", DSH_APPROVAL_OUTCOME_ALLOWED_ONCE },
    { "n", DSH_APPROVAL_OUTCOME_REJECTED },     { "no", DSH_APPROVAL_OUTCOME_REJECTED },
  };
  gsize start = 0, end = length;

  if (overlong)
    return FALSE;
  while (start < end && is_space (line[start]))
    start++;
  while (end > start && is_space (line[end - 1]))
    end--;
  for (gsize i = 0; i < G_N_ELEMENTS (words); i++)
    if (strlen (words[i].word) == end - start &&
        g_ascii_strncasecmp (line + start, words[i].word, end - start) == 0)
      {
        *outcome = words[i].outcome;
        return TRUE;
      }
  return FALSE;
}

static void
check_line (const char *line, gsize length)
{
  /* As the terminal loop keeps it: the first DSH_TTY_LINE_LIMIT bytes, and whether more came. */
  gboolean overlong = length > DSH_TTY_LINE_LIMIT;
  gsize kept = overlong ? DSH_TTY_LINE_LIMIT : length;
  DshApprovalOutcome outcome = DSH_APPROVAL_OUTCOME_UNAVAILABLE;
  DshApprovalOutcome expected = DSH_APPROVAL_OUTCOME_UNAVAILABLE;
  gboolean answered = dsh_tty_answer_from_line (line, kept, overlong, &outcome);

  g_assert_cmpint (answered, ==, expected_answer (line, kept, overlong, &expected));
  if (answered)
    g_assert_cmpint (outcome, ==, expected);
  else
    g_assert_cmpint (outcome, ==, DSH_APPROVAL_OUTCOME_UNAVAILABLE);
}

static gboolean
is_bidi_control (gunichar c)
{
  return c == 0x061C || c == 0x200E || c == 0x200F || (c >= 0x202A && c <= 0x202E) ||
         (c >= 0x2066 && c <= 0x2069);
}

static void
assert_displayable (const char *prompt)
{
  g_assert_true (g_utf8_validate (prompt, -1, NULL));
  for (const char *p = prompt; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      g_assert_true (c == '\n' || c >= 0x20);
      g_assert_true (c < 0x7F || c > 0x9F);
      g_assert_false (is_bidi_control (c));
    }
  g_assert_true (g_str_has_prefix (prompt, "\ndsh-sandbox: approval requested for "));
  g_assert_true (g_str_has_suffix (prompt, "? [y/n] "));
}

static JsonNode *
argument_node (const char *arg)
{
  switch (arg[0])
    {
    case 1:
      return json_node_init_int (json_node_alloc (), (gint64) strlen (arg));
    case 2:
      return json_node_init_null (json_node_alloc ());
    case 3:
      return json_node_init_array (json_node_alloc (), json_array_new ());
    case 4:
      return json_node_init_object (json_node_alloc (), json_object_new ());
    default:
      return json_node_init_string (json_node_alloc (), arg);
    }
}

static void
set_text (JsonObject *details, const char *member, const char *text, guint8 flags)
{
  if (flags & 0x20)
    json_object_set_int_member (details, member, (gint64) strlen (text));
  else
    json_object_set_string_member (details, member, text);
}

static void
check_prompt (const uint8_t *data, size_t size)
{
  guint8 flags = size > 0 ? data[0] : 0;
  g_autoptr (GPtrArray) fields = fuzz_split_fields (size > 0 ? data + 1 : data,
                                                    size > 0 ? size - 1 : 0, 5 + MAX_ARGS);
  g_autoptr (JsonObject) details = json_object_new ();
  g_autoptr (DshApprovalRequest) request = NULL;
  g_autofree char *prompt = NULL;
  const char *field[5] = { "", "", "", "", "" };

  for (guint i = 0; i < 5 && i < fields->len; i++)
    field[i] = g_ptr_array_index (fields, i);

  if (flags & 0x01)
    {
      if (flags & 0x10)
        json_object_set_string_member (details, "command", field[0]);
      else
        {
          JsonArray *command = json_array_new ();

          for (guint i = 5; i < fields->len; i++)
            json_array_add_element (command, argument_node (g_ptr_array_index (fields, i)));
          json_object_set_array_member (details, "command", command);
        }
    }
  if (flags & 0x02)
    set_text (details, "requestedMode", field[2], flags);
  if (flags & 0x04)
    set_text (details, "standingMode", field[3], flags);
  if (flags & 0x08)
    set_text (details, "justification", field[4], flags);

  request = dsh_approval_request_new ("fuzz-1", field[0], field[1], "fuzz-session", NULL,
                                      details);
  prompt = dsh_tty_format_prompt (request);
  assert_displayable (prompt);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const uint8_t *newline = memchr (data, '\n', size);
  size_t line_length = newline != NULL ? (size_t) (newline - data) : size;

  check_line ((const char *) data, line_length);
  if (newline != NULL)
    check_prompt (newline + 1, size - line_length - 1);
  return 0;
}
