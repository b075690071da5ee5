/* dsh-cmd-exec.c — "dsh-sandbox exec": run a command confined under a per-call policy, stream
 * its stdio, pass its exit status through, and say plainly when it never ran (125) or when the
 * sandbox denied it (the denial marker, then the escalation hint when a retry could be
 * approved). With --sandbox-permissions, one approved escalation runs this one command under
 * a wider mode.
 *
 * The steps, in order (any refusal before step 6 means nothing ran):
 *   1. options: usage errors, escalation argument pairing, the approver command;
 *   2. the policy: from the session (mode, cwd) or from --mode/--workspace, and an approver
 *      out of reach of what this workspace's confined commands may write;
 *   3. the turn: with a session, turn/start now and turn/end at the end;
 *   4. the report file, opened before anything runs;
 *   5. the escalation: widening, then the approval sequence (the audit pair is the session's);
 *   6. the run: confined, or the raw argv under danger-full-access.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-cli.h"

#include "dsh-approver.h"
#include "dsh-cli-session.h"
#include "dsh-exec-run.h"

typedef struct {
  /* Options. */
  char *mode;
  char *workspace;
  char *session_path;
  char *approval_policy;
  char *approver_command;
  char *sandbox_permissions;
  char *justification;
  char *report_path;
  char **writable_roots;
  char **command;

  /* What the options resolved to. */
  DshApprovalPolicy call_policy;
  DshSandboxMode requested_mode;
  DshCommandAnswerer *approver;
  DshSessionLog *session;
  DshApprovalService *approval;
  DshSandboxPolicy *policy;
  char *turn_id;
  /* This exec's id as a tool call: the approval request and its audit pair carry it. */
  char *call_id;
  DshExecRun run;
} Exec;

static void
exec_clear (Exec *exec)
{
  g_free (exec->mode);
  g_free (exec->workspace);
  g_free (exec->session_path);
  g_free (exec->approval_policy);
  g_free (exec->approver_command);
  g_free (exec->sandbox_permissions);
  g_free (exec->justification);
  g_free (exec->report_path);
  g_strfreev (exec->writable_roots);
  g_clear_object (&exec->approver);
  g_clear_object (&exec->session);
  g_clear_object (&exec->approval);
  g_clear_pointer (&exec->policy, dsh_sandbox_policy_free);
  g_free (exec->turn_id);
  g_free (exec->call_id);
  dsh_exec_run_clear (&exec->run);
}

/* ---- the turn ------------------------------------------------------------------------------ */

/* Closes this exec's turn. After a refusal the one "dsh-sandbox:" line is already out (and
 * usually names the same broken log), so only a command that ran gets a warning. */
static void
end_turn (Exec *exec)
{
  g_autoptr (GError) error = NULL;

  if (exec->turn_id == NULL)
    return;
  if (!dsh_session_log_end_turn (exec->session, exec->turn_id, &error) &&
      exec->run.report.command_ran)
    g_printerr ("dsh-sandbox: warning: cannot end the turn in the session log: %s\n",
                error->message);
  g_clear_pointer (&exec->turn_id, g_free);
}

/* A refusal closes the turn once its report is written. */
static void
end_turn_on_refusal (DshExecRun *run, gpointer user_data)
{
  end_turn (user_data);
}

/* ---- 1. options ---------------------------------------------------------------------------- */

static gboolean
check_options (Exec *exec, GError **error)
{
  guint timeout = 0;

  if (exec->command == NULL || exec->command[0] == NULL || exec->command[0][0] == '\0')
    {
      g_set_error_literal (error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                           "no command given: put it after \"--\"");
      return FALSE;
    }
  /* Both directions and a non-empty justification, with the texts the model knows. */
  if (!dsh_escalation_validate_args (exec->sandbox_permissions, exec->justification, error))
    return FALSE;
  if (exec->sandbox_permissions != NULL &&
      !dsh_escalation_target_from_string (exec->sandbox_permissions, &exec->requested_mode,
                                          error))
    return FALSE;

  exec->call_policy = DSH_APPROVAL_POLICY_ASK;
  if (exec->approval_policy != NULL &&
      !dsh_approval_policy_from_string (exec->approval_policy, &exec->call_policy, error))
    return FALSE;

  if (!dsh_cli_check_workspace_without_session (exec->workspace, exec->session_path, error))
    return FALSE;

  if (exec->approver_command != NULL)
    {
      if (!dsh_command_answerer_timeout_from_env (&timeout, error))
        return FALSE;
      exec->approver = dsh_command_answerer_new (exec->approver_command, timeout, error);
      if (exec->approver == NULL)
        return FALSE;
    }
  return TRUE;
}

/* ---- 2. the policy ------------------------------------------------------------------------- */

static gboolean
resolve_policy (Exec *exec, GError **error)
{
  g_autoptr (DshPermissionPresets) presets = NULL;

  presets = dsh_cli_load_presets (error);
  if (presets == NULL)
    return FALSE;
  exec->approval = dsh_cli_new_approval_service (presets);

  if (exec->session_path == NULL)
    {
      /* Sessionless: --mode and --workspace, as before there were sessions. */
      g_autofree char *spelled = NULL;

      exec->policy = dsh_cli_resolve_policy (exec->mode, exec->workspace, &spelled, error);
      if (exec->policy == NULL ||
          !dsh_cli_join_extra_roots (exec->policy, presets,
                                     (const char *const *) exec->writable_roots, error))
        return FALSE;
      /* From here on, the workspace as spelled, the default included. */
      g_free (exec->workspace);
      exec->workspace = g_steal_pointer (&spelled);
      return TRUE;
    }

  exec->policy = dsh_cli_resolve_session_policy (presets, exec->session_path, exec->mode,
                                                 (const char *const *) exec->writable_roots,
                                                 &exec->session, error);
  return exec->policy != NULL;
}

/* An approver a confined command of this workspace could rewrite would approve for it. */
static gboolean
check_approver (Exec *exec, GError **error)
{
  return exec->approver == NULL ||
         dsh_command_answerer_check_trusted (exec->approver, exec->policy, error);
}

/* ---- 5. the escalation --------------------------------------------------------------------- */

/* TRUE when the command may run under *mode (the standing one, or the approved wider one). */
static gboolean
escalate (Exec *exec, DshSandboxMode *mode, GError **error)
{
  g_autoptr (DshApprovalAnswerer) answerer = NULL;
  DshApprovalOutcome outcome = DSH_APPROVAL_OUTCOME_UNAVAILABLE;
  gboolean asked = FALSE;
  gboolean ok;

  *mode = exec->policy->mode;
  if (exec->sandbox_permissions == NULL)
    return TRUE;

  exec->run.report.requested_mode = dsh_sandbox_mode_to_string (exec->requested_mode);
  /* No point opening a terminal for a request that cannot widen, has no session to be asked
   * for, or will be rejected under "never" before any answerer runs. */
  if (exec->session != NULL &&
      dsh_escalation_is_strictly_wider (exec->policy->mode, exec->requested_mode) &&
      dsh_approval_service_effective_policy (exec->approval, exec->session, exec->call_policy) ==
        DSH_APPROVAL_POLICY_ASK)
    answerer = dsh_cli_compose_answerer (exec->approver);

  ok = dsh_cli_escalate (exec->approval, exec->session, exec->call_policy, answerer,
                         exec->call_id, exec->policy->mode, exec->requested_mode, exec->justification,
                         (const char *const *) exec->command, exec->policy->workspace_root, mode,
                         &asked, &outcome, error);
  if (asked)
    exec->run.report.approval_outcome = dsh_approval_outcome_to_string (outcome);
  return ok;
}

/* ---- 6. the run ---------------------------------------------------------------------------- */

/* After a denial's marker: the hint when a retry with a wider mode could still be approved —
 * never under "never", never without a session or anyone to ask, never when no wider mode
 * exists, and never after the escalated retry itself. */
static void
print_hint (DshExecRun *run, DshSandboxMode mode, gpointer user_data)
{
  Exec *exec = user_data;
  DshApprovalPolicy policy;
  gboolean channel;

  /* This call already was the one sanctioned retry: its denial is final. */
  if (exec->sandbox_permissions != NULL)
    return;
  policy = dsh_approval_service_effective_policy (exec->approval, exec->session,
                                                  exec->call_policy);
  channel = exec->approver != NULL || dsh_tty_approver_available ();
  if (dsh_escalation_could_be_approved (mode, policy, exec->session != NULL, channel))
    {
      char *hint = dsh_text_escalation_hint ("command");

      fprintf (stderr, "%s\n", hint);
      g_ptr_array_add (run->report.markers, hint);
    }
}

static int
run (Exec *exec)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DshSandboxPolicy) effective = NULL;
  DshSandboxMode mode;
  int status;

  /* 3. The turn: every exec with a session is one turn, and the audit pair lives inside it.
   * A session log that cannot take the turn cannot take the audit either: nothing runs. */
  if (exec->session != NULL)
    {
      exec->turn_id = dsh_session_log_begin_turn (exec->session, &error);
      if (exec->turn_id == NULL)
        return dsh_cli_fail_error (error);
    }

  /* 4. */
  if (!dsh_exec_run_open_report (&exec->run, exec->report_path, &error))
    {
      end_turn (exec);
      return dsh_cli_fail_error (error);
    }

  exec->run.report.mode = exec->policy->mode;
  exec->run.report.standing_mode = exec->policy->mode;
  exec->run.report.workspace_root = exec->policy->workspace_root;
  exec->run.report.session_id = exec->policy->session_id;
  exec->call_id = g_uuid_string_random ();
  exec->run.report.call_id = exec->call_id;
  exec->run.spelled_workspace = exec->session != NULL ? dsh_session_log_get_cwd (exec->session)
                                                      : exec->workspace;
  exec->run.session_created = exec->session != NULL
                                ? dsh_session_log_get_created (exec->session)
                                : NULL;
  exec->run.after_denial = print_hint;
  exec->run.on_refusal = end_turn_on_refusal;
  exec->run.user_data = exec;

  /* 5. */
  if (!escalate (exec, &mode, &error))
    return dsh_exec_run_refuse (&exec->run, DSH_OUTCOME_ESCALATION_REFUSED, error->message);

  /* 6. The grant covers this call only: the wider mode lives in this policy copy and nowhere
   * else, so the next command is back under the standing mode. */
  effective = dsh_sandbox_policy_copy (exec->policy);
  effective->mode = mode;
  status = dsh_exec_run_command (&exec->run, (const char *const *) exec->command, effective);
  end_turn (exec);
  return status;
}

int
dsh_cmd_exec (int argc, char **argv)
{
  Exec exec = { 0 };
  const GOptionEntry entries[] = {
    { "mode", 0, 0, G_OPTION_ARG_FILENAME, &exec.mode,
      "Sandbox mode: read-only (default), workspace-write or danger-full-access; with "
      "--session, the explicit mode of this call",
      "MODE" },
    { "workspace", 0, 0, G_OPTION_ARG_FILENAME, &exec.workspace,
      "Workspace root without a session (default: the current directory)", "DIR" },
    { "session", 0, 0, G_OPTION_ARG_FILENAME, &exec.session_path,
      "The session log: mode, workspace and approval policy come from it; this exec is a turn",
      "FILE" },
    { "approval-policy", 0, 0, G_OPTION_ARG_STRING, &exec.approval_policy,
      "ask (default: the session's) or never; never wins over the session's ask", "POLICY" },
    { "approver", 0, 0, G_OPTION_ARG_STRING, &exec.approver_command,
      "Ask CMD (request JSON on stdin, one outcome word on stdout) instead of the terminal",
      "CMD" },
    { "sandbox-permissions", 0, 0, G_OPTION_ARG_STRING, &exec.sandbox_permissions,
      "Escalate this one command to MODE (workspace-write or danger-full-access) once approved",
      "MODE" },
    { "justification", 0, 0, G_OPTION_ARG_STRING, &exec.justification,
      "One sentence: why this command needs the wider mode", "TEXT" },
    { "report", 0, 0, G_OPTION_ARG_FILENAME, &exec.report_path,
      "Write a JSON report of the execution to FILE", "FILE" },
    { "writable-root", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &exec.writable_roots,
      "One more writable root under workspace-write (repeatable)", "DIR" },
    { NULL }
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("-- ARGV...");
  g_autoptr (GError) error = NULL;
  int status;

  dsh_exec_run_init (&exec.run);
  exec.command = dsh_cli_split_command (&argc, argv);
  g_option_context_add_main_entries (context, entries, NULL);
  if (!dsh_cli_parse_options (context, argc, argv, &error) ||
      !check_options (&exec, &error) || !resolve_policy (&exec, &error) ||
      !check_approver (&exec, &error))
    status = dsh_cli_fail_error (error);
  else
    status = run (&exec);

  exec_clear (&exec);
  return status;
}
