/* dsh-classify.c — runner failure first (exit gate, informational exclusions, a fatal
 * signature on one remaining line), then denial (a dialect signature on a line no denial
 * exclusion takes out), else completed.
 * Exit status alone never proves a runner failure. (dsh_classify_result() is DshConfinedArgv's
 * face of this, in dsh-confined-argv.c.)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-confinement-private.h"

#include <string.h>

/**
 * DshOutcome:
 * @DSH_OUTCOME_COMPLETED: the command ran; its exit status is its own
 * @DSH_OUTCOME_DENIED: the sandbox denied an access
 * @DSH_OUTCOME_RUNNER_FAILURE: the runner failed before running the command
 * @DSH_OUTCOME_UNAVAILABLE: no backend could enforce the policy: nothing ran
 * @DSH_OUTCOME_ESCALATION_REFUSED: an escalation was refused: nothing ran
 * @DSH_OUTCOME_ROOT_REFUSED: a writable root was refused: nothing ran
 * @DSH_OUTCOME_INVALID_ARGUMENT: the call itself was malformed (no command, a workspace root
 *   that is not absolute, a mode outside the vocabulary): nothing ran. Since 0.2; before, such
 *   a call ended %DSH_OUTCOME_UNAVAILABLE
 *
 * How one call ended.
 *
 * Since: 0.1
 */

/**
 * dsh_outcome_to_string:
 * @outcome: an outcome
 *
 * Returns: (transfer none): the outcome's name: `completed`, `denied`, `runner-failure`,
 *   `unavailable`, `escalation-refused`, `root-refused` or `invalid-argument`
 *
 * Since: 0.1
 */
const char *
dsh_outcome_to_string (DshOutcome outcome)
{
  switch (outcome)
    {
    case DSH_OUTCOME_COMPLETED:
      return "completed";
    case DSH_OUTCOME_DENIED:
      return "denied";
    case DSH_OUTCOME_RUNNER_FAILURE:
      return "runner-failure";
    case DSH_OUTCOME_UNAVAILABLE:
      return "unavailable";
    case DSH_OUTCOME_ESCALATION_REFUSED:
      return "escalation-refused";
    case DSH_OUTCOME_ROOT_REFUSED:
      return "root-refused";
    case DSH_OUTCOME_INVALID_ARGUMENT:
      return "invalid-argument";
    default:
      g_return_val_if_reached (NULL);
    }
}

/* Case-insensitive substring search on bytes; stderr need not be UTF-8. Only where the
 * needle's first byte stands (found by memchr, in either case) is the rest compared: the
 * head of a failing command's stderr is a megabyte, and a runner has a dozen signatures. */
static gboolean
contains_ignore_case (const char *haystack, gsize haystack_len, const char *needle)
{
  gsize needle_len = strlen (needle);
  char lower;
  char upper;
  const char *p;
  const char *end;

  if (needle_len == 0 || needle_len > haystack_len)
    return FALSE;
  lower = g_ascii_tolower (needle[0]);
  upper = g_ascii_toupper (needle[0]);
  end = haystack + (haystack_len - needle_len) + 1; /* where a match can start, exclusive */
  for (p = haystack; p < end; p++)
    {
      const char *at_lower = memchr (p, lower, (gsize) (end - p));
      const char *at_upper = upper != lower && at_lower != p
                               ? memchr (p, upper, (gsize) ((at_lower != NULL ? at_lower : end) - p))
                               : NULL;

      p = at_upper != NULL ? at_upper : at_lower;
      if (p == NULL)
        return FALSE;
      if (g_ascii_strncasecmp (p, needle, needle_len) == 0)
        return TRUE;
    }
  return FALSE;
}

static gboolean
is_informational (const DshRunnerFailureRule *rule, const char *line, gsize len)
{
  for (gsize i = 0; rule->informational_lines != NULL && rule->informational_lines[i]; i++)
    {
      const char *info = rule->informational_lines[i];

      if (strlen (info) == len && g_ascii_strncasecmp (info, line, len) == 0)
        return TRUE;
    }
  return FALSE;
}

static gboolean
exit_code_allowed (const DshRunnerFailureRule *rule, int exit_code)
{
  if (exit_code == 0)
    return FALSE;
  if (rule->allowed_exit_codes == NULL || rule->allowed_exit_codes->len == 0)
    return TRUE;
  for (guint i = 0; i < rule->allowed_exit_codes->len; i++)
    {
      if (g_array_index (rule->allowed_exit_codes, int, i) == exit_code)
        return TRUE;
    }
  return FALSE;
}

/* Matching works on lengths, not NUL-terminated strings: a NUL byte in a command's stderr must
 * not hide what follows it. */
static gboolean
rule_matches_len (const DshRunnerFailureRule *rule,
                  int exit_code,
                  const char *text,
                  gsize length,
                  char **detail)
{
  gsize pos = 0;

  if (!exit_code_allowed (rule, exit_code) || text == NULL)
    return FALSE;

  while (pos < length)
    {
      const char *line = text + pos;
      const char *end = memchr (line, '\n', length - pos);
      gsize len = end != NULL ? (gsize) (end - line) : length - pos;
      gsize trimmed = len;

      /* A CRLF line is the same line. */
      if (trimmed > 0 && line[trimmed - 1] == '\r')
        trimmed--;

      if (!is_informational (rule, line, trimmed))
        {
          for (gsize i = 0; rule->fatal_signatures != NULL && rule->fatal_signatures[i]; i++)
            {
              if (contains_ignore_case (line, trimmed, rule->fatal_signatures[i]))
                {
                  if (detail != NULL)
                    *detail = g_utf8_make_valid (line, (gssize) trimmed);
                  return TRUE;
                }
            }
        }
      pos += len + 1;
    }
  return FALSE;
}

/**
 * dsh_runner_failure_rule_matches:
 * @rule: a rule
 * @exit_code: the process's exit status (128+N for signal N)
 * @stderr_text: (nullable): what the process wrote on stderr
 * @detail: (out) (optional) (nullable) (transfer full): the matched line
 *
 * Returns: %TRUE when @rule identifies a failure of the runner itself
 *
 * Since: 0.1
 */
gboolean
dsh_runner_failure_rule_matches (const DshRunnerFailureRule *rule,
                                 int exit_code,
                                 const char *stderr_text,
                                 char **detail)
{
  return rule_matches_len (rule, exit_code, stderr_text,
                           stderr_text != NULL ? strlen (stderr_text) : 0, detail);
}

/* A line in the dialect's words, unless an exclusion says it is about something else than a
 * file (an SSH login refused, say). */
static gboolean
is_denial_line (const DshConfinement *self, const char *line, gsize len)
{
  gboolean matched = FALSE;

  for (gsize i = 0; !matched && self->denial_signatures[i] != NULL; i++)
    matched = contains_ignore_case (line, len, self->denial_signatures[i]);
  for (gsize i = 0; matched && self->denial_exclusions[i] != NULL; i++)
    matched = !contains_ignore_case (line, len, self->denial_exclusions[i]);
  return matched;
}

gboolean
dsh_confinement_is_denial_evidence (const DshConfinement *self, const char *line, gsize len)
{
  if (!is_denial_line (self, line, len))
    return FALSE;
  for (guint i = 0; i < self->runner_failure_rules->len; i++)
    {
      const DshRunnerFailureRule *rule = self->runner_failure_rules->pdata[i];

      for (gsize j = 0; rule->fatal_signatures != NULL && rule->fatal_signatures[j]; j++)
        {
          if (contains_ignore_case (line, len, rule->fatal_signatures[j]))
            return FALSE;
        }
    }
  return TRUE;
}

DshOutcome
dsh_confinement_classify (const DshConfinement *self,
                          int exit_code,
                          const char *stderr_data,
                          gsize length,
                          char **detail)
{
  g_return_val_if_fail (self != NULL, DSH_OUTCOME_COMPLETED);

  if (exit_code == 0 || stderr_data == NULL)
    return DSH_OUTCOME_COMPLETED;

  for (guint i = 0; i < self->runner_failure_rules->len; i++)
    {
      if (rule_matches_len (self->runner_failure_rules->pdata[i], exit_code, stderr_data, length,
                            detail))
        return DSH_OUTCOME_RUNNER_FAILURE;
    }

  for (gsize pos = 0; pos < length;)
    {
      const char *line = stderr_data + pos;
      const char *end = memchr (line, '\n', length - pos);
      gsize len = end != NULL ? (gsize) (end - line) : length - pos;

      if (is_denial_line (self, line, len))
        return DSH_OUTCOME_DENIED;
      pos += len + 1;
    }
  return DSH_OUTCOME_COMPLETED;
}
