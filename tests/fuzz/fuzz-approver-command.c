/* fuzz-approver-command.c — the --approver command's answer rule: whatever an approver prints
 * and however it ends, the answer is an outcome only when it exited 0 and printed exactly one
 * outcome word (white space around it allowed, at most 256 bytes, no NUL), and then it is that
 * word's outcome; anything else fails the answer with an approval error, never a delegation.
 *
 * Each input runs the real answerer with a real approver: cat, or sh running cat and then
 * ending as byte 0 says. Layout: byte 0 below 8 is how the approver ends (0: exit 0, 1-6: that
 * exit status, 7: killed by SIGKILL) and the rest is what it prints; any other byte 0 starts
 * what it prints, and it exits 0. This is the one target that spawns: two small programs an
 * input, nothing confined, nothing from the input run.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dsh-sandbox.h>
#include "fuzz-target.h"
#include "fuzz-util.h"

/* What the answerer reads of an approver's stdout at most. */
#define ANSWER_LIMIT 256

static void
violated (const char *what, const char *detail)
{
  fprintf (stderr, "fuzz-approver-command: %s%s%s\n", what, detail != NULL ? ": " : "",
           detail != NULL ? detail : "");
  abort ();
}

/* The rule, written out independently of the answerer: TRUE with the outcome only for one of
 * the four words, surrounded by nothing but ASCII white space. */
static gboolean
expected_outcome (const char *output, gsize length, DshApprovalOutcome *outcome)
{
  static const struct {
    const char *word;
    DshApprovalOutcome outcome;
  } words[] = {
    { "allowed-once", DSH_APPROVAL_OUTCOME_ALLOWED_ONCE },
    { "rejected", DSH_APPROVAL_OUTCOME_REJECTED },
    { "cancelled", DSH_APPROVAL_OUTCOME_CANCELLED },
    { "unavailable", DSH_APPROVAL_OUTCOME_UNAVAILABLE },
  };
  gsize start = 0, end = length;

  if (length > ANSWER_LIMIT || memchr (output, '\0', length) != NULL)
    return FALSE;
  while (start < end && g_ascii_isspace (output[start]))
    start++;
  while (end > start && g_ascii_isspace (output[end - 1]))
    end--;
  for (gsize i = 0; i < G_N_ELEMENTS (words); i++)
    {
      if (strlen (words[i].word) == end - start &&
          memcmp (words[i].word, output + start, end - start) == 0)
        {
          *outcome = words[i].outcome;
          return TRUE;
        }
    }
  return FALSE;
}

typedef struct {
  gboolean done;
  DshApprovalAnswer answer;
  DshApprovalOutcome outcome;
  GError *error;
} Result;

static void
on_answer (GObject *source, GAsyncResult *async_result, gpointer user_data)
{
  Result *result = user_data;

  result->answer = dsh_approval_answerer_answer_finish (DSH_APPROVAL_ANSWERER (source),
                                                        async_result, &result->outcome,
                                                        &result->error);
  result->done = TRUE;
}

/* The command line of an approver that prints the file at path and ends as ending says. */
static char *
approver_command (const char *path, guint ending)
{
  g_autofree char *quoted = g_shell_quote (path);

  if (ending == 0)
    return g_strdup_printf ("/bin/cat %s", quoted);
  if (ending == 7)
    return g_strdup_printf ("/bin/sh -c 'cat \"$0\"; kill -KILL $$' %s", quoted);
  return g_strdup_printf ("/bin/sh -c 'cat \"$0\"; exit %u' %s", ending, quoted);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *path = g_build_filename (fuzz_scratch_dir (), "answer", NULL);
  g_autoptr (GMainContext) context = g_main_context_new ();
  g_autoptr (DshApprovalRequest) request = NULL;
  g_autoptr (DshCommandAnswerer) approver = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *command = NULL;
  DshApprovalOutcome expected = DSH_APPROVAL_OUTCOME_UNAVAILABLE;
  gboolean answers;
  Result result = { 0 };
  guint ending = 0;

  if (size > 0 && data[0] < 8)
    {
      ending = data[0];
      data++;
      size--;
    }
  fuzz_write_file (path, (const char *) data, (gssize) size);
  answers = ending == 0 && expected_outcome ((const char *) data, size, &expected);

  command = approver_command (path, ending);
  approver = dsh_command_answerer_new (command, 60, &error);
  if (approver == NULL)
    violated ("the approver command was refused", error->message);
  request = dsh_approval_request_new ("approval-1", "exec",
                                      "escalate sandbox to workspace-write: fuzzing", "session-1",
                                      NULL, NULL);

  g_main_context_push_thread_default (context);
  dsh_approval_answerer_answer_async (DSH_APPROVAL_ANSWERER (approver), request, NULL,
                                      on_answer, &result);
  while (!result.done)
    g_main_context_iteration (context, TRUE);
  g_main_context_pop_thread_default (context);

  if (answers)
    {
      if (result.answer != DSH_APPROVAL_ANSWER_OUTCOME || result.error != NULL)
        violated ("an exact answer was not taken",
                  result.error != NULL ? result.error->message : NULL);
      if (result.outcome != expected)
        violated ("the answer is not the word's outcome",
                  dsh_approval_outcome_to_string (result.outcome));
      return 0;
    }
  if (result.answer == DSH_APPROVAL_ANSWER_OUTCOME)
    violated ("output that is no exact answer was taken as one",
              dsh_approval_outcome_to_string (result.outcome));
  if (result.answer != DSH_APPROVAL_ANSWER_FAILED || result.error == NULL ||
      !g_error_matches (result.error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_APPROVAL) ||
      !g_utf8_validate (result.error->message, -1, NULL))
    violated ("a refused answer is not an approval error", NULL);
  g_clear_error (&result.error);
  return 0;
}
