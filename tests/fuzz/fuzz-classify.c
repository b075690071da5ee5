/* fuzz-classify.c — libFuzzer target for result classification, the parser of runner stderr:
 * the input is split into a rule (gate, fatal signatures, informational lines), an exit code
 * and stderr; any bytes classify into one outcome, with a valid UTF-8 detail, never a crash.
 *
 * Layout: byte 0 is the exit code; then NUL-separated fields: fatal signatures up to an empty
 * field, informational lines up to an empty field, and the rest is stderr.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <dsh-sandbox.h>
#include <string.h>

#include "fuzz-target.h"

static const char *
next_field (const char **cursor, const char *end)
{
  const char *start = *cursor;
  const char *nul = memchr (start, '\0', (size_t) (end - start));

  if (nul == NULL)
    return NULL;
  *cursor = nul + 1;
  return start;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autoptr (GPtrArray) fatal = g_ptr_array_new ();
  g_autoptr (GPtrArray) info = g_ptr_array_new ();
  g_autoptr (GPtrArray) rules = NULL;
  g_autoptr (DshConfinedArgv) confined = NULL;
  g_autofree char *stderr_text = NULL;
  g_autofree char *detail = NULL;
  const char *argv[] = { "runner", "--", "cmd", NULL };
  const char *denials[] = { "Read-only file system", "Permission denied", NULL };
  const char *exclusions[] = { "Permission denied (publickey", NULL };
  const char *cursor, *end, *field;
  const int gate[] = { 1, 125 };
  int exit_code;
  DshOutcome outcome;

  if (size == 0)
    return 0;
  exit_code = data[0];
  cursor = (const char *) data + 1;
  end = (const char *) data + size;

  while ((field = next_field (&cursor, end)) != NULL && field[0] != '\0')
    g_ptr_array_add (fatal, (gpointer) field);
  while (field != NULL && (field = next_field (&cursor, end)) != NULL && field[0] != '\0')
    g_ptr_array_add (info, (gpointer) field);
  g_ptr_array_add (fatal, NULL);
  g_ptr_array_add (info, NULL);
  stderr_text = g_strndup (cursor, (gsize) (end - cursor));

  rules = g_ptr_array_new_with_free_func ((GDestroyNotify) dsh_runner_failure_rule_free);
  g_ptr_array_add (rules, dsh_runner_failure_rule_new (exit_code % 2 ? gate : NULL, 2,
                                                      (const char *const *) fatal->pdata,
                                                      (const char *const *) info->pdata));
  confined = dsh_confined_argv_new_full (argv, "fuzz", DSH_ENFORCEMENT_FULL, NULL, denials,
                                         exclusions, rules);
  outcome = dsh_classify_result (confined, exit_code, stderr_text, &detail);

  g_assert (outcome == DSH_OUTCOME_COMPLETED || outcome == DSH_OUTCOME_DENIED ||
            outcome == DSH_OUTCOME_RUNNER_FAILURE);
  g_assert (exit_code != 0 || outcome == DSH_OUTCOME_COMPLETED);
  g_assert ((outcome == DSH_OUTCOME_RUNNER_FAILURE) == (detail != NULL));
  g_assert (detail == NULL || g_utf8_validate (detail, -1, NULL));
  return 0;
}
