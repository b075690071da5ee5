/* dsh-cmd-exec.c — "dsh-sandbox exec": run a command confined under a per-call policy, stream
 * its stdio, pass its exit status through, and say plainly when it never ran (125) or when the
 * sandbox denied it (the denial marker, then the escalation hint when a retry could be
 * approved). With --sandbox-permissions, one approved escalation runs this one command under
 * a wider mode.
 *
 * The steps, in order (any refusal before step 6 means nothing ran):
 *   1. options: usage errors, escalation argument pairing, the approver command;
 *   2. the policy: from the session (mode, cwd) or from --mode/--workspace;
 *   3. the turn: with a session, turn/start now and turn/end at the end;
 *   4. the report file, opened before anything runs;
 *   5. the escalation: widening, then the approval sequence (the audit pair is the session's);
 *   6. the run: confined, or the raw argv under danger-full-access.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-cli.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "dsh-approver.h"
#include "dsh-cli-session.h"
#include "dsh-exec-report.h"

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
  char **command;

  /* What the options resolved to. */
  DshApprovalPolicy call_policy;
  DshSandboxMode requested_mode;
  DshCommandApprover *approver;
  DshSessionLog *session;
  DshApprovalService *approval;
  DshSandboxPolicy *policy;
  char *turn_id;
  int report_fd;
  DshExecReport report;
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
  g_clear_object (&exec->approver);
  g_clear_object (&exec->session);
  g_clear_object (&exec->approval);
  g_clear_pointer (&exec->policy, dsh_sandbox_policy_free);
  g_free (exec->turn_id);
  if (exec->report_fd >= 0)
    close (exec->report_fd);
  dsh_exec_report_clear (&exec->report);
}

/* ---- the report ---------------------------------------------------------------------------- */

/* The report file is opened before anything runs: a report that cannot be written must stop
 * the command, not be lost after it. */
static gboolean
open_report (Exec *exec, GError **error)
{
  if (exec->report_path == NULL)
    return TRUE;
  exec->report_fd = open (exec->report_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (exec->report_fd < 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "cannot open the report file: %s", g_strerror (saved));
      return FALSE;
    }
  return TRUE;
}

static void
write_report (Exec *exec)
{
  g_autoptr (JsonNode) node = NULL;
  g_autoptr (JsonGenerator) generator = json_generator_new ();
  g_autofree char *text = NULL;
  gsize len = 0;

  if (exec->report_fd < 0)
    return;
  node = dsh_exec_report_to_json (&exec->report);
  json_generator_set_root (generator, node);
  json_generator_set_pretty (generator, TRUE);
  text = json_generator_to_data (generator, &len);
  for (gsize done = 0; done < len;)
    {
      gssize n = write (exec->report_fd, text + done, len - done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          g_printerr ("dsh-sandbox: warning: cannot write the report file: %s\n",
                      g_strerror (errno));
          return;
        }
      done += (gsize) n;
    }
  (void) write (exec->report_fd, "\n", 1);
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
      exec->report.command_ran)
    g_printerr ("dsh-sandbox: warning: cannot end the turn in the session log: %s\n",
                error->message);
  g_clear_pointer (&exec->turn_id, g_free);
}

/* The command never ran: one "dsh-sandbox:" line, the report, exit 125. */
static int
refuse (Exec *exec, DshOutcome outcome, const char *message)
{
  exec->report.outcome = outcome;
  exec->report.command_ran = FALSE;
  g_free (exec->report.detail);
  exec->report.detail = g_strdup (message);
  write_report (exec);
  end_turn (exec);
  return dsh_cli_fail ("%s", message);
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

  /* The session's cwd is its workspace, immutable; a second root would contradict it. */
  if (exec->session_path != NULL && exec->workspace != NULL)
    {
      g_set_error_literal (error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                           "--workspace cannot be combined with --session: the session's cwd is "
                           "its workspace");
      return FALSE;
    }

  if (exec->approver_command != NULL)
    {
      if (!dsh_approver_timeout_from_env (&timeout, error))
        return FALSE;
      exec->approver = dsh_command_approver_new (exec->approver_command, timeout, error);
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
  g_autoptr (DshPolicyService) service = NULL;
  DshSandboxMode mode;

  presets = dsh_cli_load_presets (error);
  if (presets == NULL)
    return FALSE;
  exec->approval = dsh_approval_service_new ();
  dsh_approval_service_set_default_policy (exec->approval,
                                           dsh_permission_presets_get_default_approval_policy (
                                             presets));

  if (exec->session_path == NULL)
    {
      /* Sessionless: --mode and --workspace, as before there were sessions. */
      exec->policy = dsh_cli_resolve_policy (exec->mode, exec->workspace, error);
      return exec->policy != NULL;
    }

  if (exec->mode != NULL && !dsh_sandbox_mode_from_string (exec->mode, &mode, error))
    return FALSE;
  exec->session = dsh_cli_load_session (exec->session_path, error);
  if (exec->session == NULL)
    return FALSE;
  /* --mode with a session is the explicit mode of this call (as for "policy resolve"): it
   * outranks the session's last sandbox/mode, and escalation widens from it. */
  service = dsh_cli_new_policy_service (presets);
  exec->policy = exec->mode != NULL
                   ? dsh_policy_service_resolve_with_mode (service, exec->session, mode)
                   : dsh_policy_service_resolve (service, exec->session);
  return exec->policy != NULL;
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

  exec->report.requested_mode = dsh_sandbox_mode_to_string (exec->requested_mode);
  /* No point opening a terminal for a request that cannot widen, has no session to be asked
   * for, or will be rejected under "never" before any answerer runs. */
  if (exec->session != NULL &&
      dsh_escalation_is_strictly_wider (exec->policy->mode, exec->requested_mode) &&
      dsh_approval_service_effective_policy (exec->approval, exec->session, exec->call_policy) ==
        DSH_APPROVAL_POLICY_ASK)
    answerer = dsh_cli_compose_answerer (exec->approver);

  ok = dsh_cli_escalate (exec->approval, exec->session, exec->call_policy, answerer,
                         exec->policy->mode, exec->requested_mode, exec->justification,
                         (const char *const *) exec->command, exec->policy->workspace_root, mode,
                         &asked, &outcome, error);
  if (asked)
    exec->report.approval_outcome = dsh_approval_outcome_to_string (outcome);
  return ok;
}

/* ---- 6. the run ---------------------------------------------------------------------------- */

/* After a denial: the marker, then the hint when a retry with a wider mode could still be
 * approved — never under "never", never without a session or anyone to ask, never when no
 * wider mode exists. */
static void
print_denial (Exec *exec, DshSandboxMode mode)
{
  char *marker = dsh_text_denial_marker (mode);
  DshApprovalPolicy policy;
  gboolean channel;

  fprintf (stderr, "%s\n", marker);
  g_ptr_array_add (exec->report.markers, marker);

  policy = dsh_approval_service_effective_policy (exec->approval, exec->session,
                                                  exec->call_policy);
  channel = exec->approver != NULL || dsh_tty_approver_available ();
  if (dsh_escalation_could_be_approved (mode, policy, exec->session != NULL, channel))
    {
      char *hint = dsh_text_escalation_hint ("command");

      fprintf (stderr, "%s\n", hint);
      g_ptr_array_add (exec->report.markers, hint);
    }
  fflush (stderr);
}

static int
run_unconfined (Exec *exec)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GString) captured = g_string_new (NULL);

  if (!dsh_cli_spawn_streaming ((const char *const *) exec->command, &exec->report.exit_code,
                                &exec->report.term_signal, captured, &error))
    {
      /* Without a runner, dsh-sandbox is the one that failed to start the command. */
      g_autofree char *text = g_strdup_printf ("cannot run the command: %s", error->message);

      return refuse (exec, DSH_OUTCOME_RUNNER_FAILURE, text);
    }

  exec->report.command_ran = TRUE;
  exec->report.outcome = DSH_OUTCOME_COMPLETED;
  write_report (exec);
  return exec->report.exit_code;
}

static int
run_confined (Exec *exec, const DshSandboxPolicy *policy)
{
  g_autoptr (DshLocalProvider) provider = dsh_cli_new_provider ();
  g_autoptr (GString) captured = g_string_new (NULL);
  g_autoptr (GError) error = NULL;
  g_autofree char *detail = NULL;
  DshExecReport *report = &exec->report;
  const char *mode = dsh_sandbox_mode_to_string (policy->mode);

  report->confined = dsh_sandbox_provider_confine (DSH_SANDBOX_PROVIDER (provider),
                                                   (const char *const *) exec->command, policy,
                                                   &error);
  if (report->confined == NULL)
    return refuse (exec,
                   g_error_matches (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_UNAVAILABLE)
                     ? DSH_OUTCOME_UNAVAILABLE
                     : DSH_OUTCOME_RUNNER_FAILURE,
                   error->message);

  if (!dsh_cli_spawn_streaming (dsh_confined_argv_get_argv (report->confined),
                                &report->exit_code, &report->term_signal, captured, &error))
    {
      g_autofree char *text = dsh_text_runner_failure (mode, error->message);

      return refuse (exec, DSH_OUTCOME_RUNNER_FAILURE, text);
    }

  report->outcome = dsh_classify_result (report->confined, report->exit_code, captured->str,
                                         &detail);
  switch (report->outcome)
    {
    case DSH_OUTCOME_RUNNER_FAILURE:
      {
        g_autofree char *text = dsh_text_runner_failure (mode, detail);

        /* The runner failed before the command started: report it as never run. */
        report->exit_code = 0;
        report->term_signal = 0;
        return refuse (exec, DSH_OUTCOME_RUNNER_FAILURE, text);
      }
    case DSH_OUTCOME_DENIED:
      print_denial (exec, policy->mode);
      break;
    default:
      break;
    }

  report->command_ran = TRUE;
  write_report (exec);
  return report->exit_code;
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
  if (!open_report (exec, &error))
    {
      end_turn (exec);
      return dsh_cli_fail_error (error);
    }

  exec->report.mode = exec->policy->mode;
  exec->report.standing_mode = exec->policy->mode;
  exec->report.workspace_root = exec->policy->workspace_root;
  exec->report.session_id = exec->policy->session_id;

  /* 5. */
  if (!escalate (exec, &mode, &error))
    return refuse (exec, DSH_OUTCOME_ESCALATION_REFUSED, error->message);

  /* 6. The grant covers this call only: the wider mode lives in this policy copy and nowhere
   * else, so the next command is back under the standing mode. */
  effective = dsh_sandbox_policy_copy (exec->policy);
  effective->mode = mode;
  exec->report.mode = mode;
  /* danger-full-access runs the raw argv and never asks a provider. */
  if (dsh_sandbox_mode_is_confined (mode))
    status = run_confined (exec, effective);
  else
    status = run_unconfined (exec);
  end_turn (exec);
  return status;
}

int
dsh_cmd_exec (int argc, char **argv)
{
  Exec exec = { .report_fd = -1 };
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
    { NULL }
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("-- ARGV...");
  g_autoptr (GError) error = NULL;
  int status;

  dsh_exec_report_init (&exec.report);
  exec.command = dsh_cli_split_command (&argc, argv);
  g_option_context_add_main_entries (context, entries, NULL);
  if (!dsh_cli_parse_options (context, argc, argv, &error) ||
      !check_options (&exec, &error) || !resolve_policy (&exec, &error))
    status = dsh_cli_fail_error (error);
  else
    status = run (&exec);

  exec_clear (&exec);
  return status;
}
