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
#include "dsh-cli-environment.h"
#include "dsh-cli-session.h"
#include "dsh-exec-call.h"
#include "dsh-execution-private.h"
#include "dsh-report-destination.h"

typedef struct {
  DshExecOptions options;
  char **command;

  /* What the options resolved to. */
  DshApprovalPolicy call_policy;
  DshSandboxMode requested_mode;
  DshCommandAnswerer *approver;
  DshSessionLog *session;
  DshApprovalService *approval;
  DshSandboxPolicy *policy;
  DshExecution *execution;
  DshExecRun run;
} Exec;

static void
exec_clear (Exec *exec)
{
  dsh_exec_options_clear (&exec->options);
  g_clear_object (&exec->approver);
  g_clear_object (&exec->session);
  g_clear_object (&exec->approval);
  g_clear_pointer (&exec->policy, dsh_sandbox_policy_free);
  g_clear_object (&exec->execution);
  dsh_exec_run_clear (&exec->run);
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
  if (!dsh_escalation_validate_args (exec->options.sandbox_permissions,
                                     exec->options.justification, error))
    return FALSE;
  if (exec->options.sandbox_permissions != NULL &&
      !dsh_escalation_target_from_string (exec->options.sandbox_permissions, &exec->requested_mode,
                                          error))
    return FALSE;

  exec->call_policy = DSH_APPROVAL_POLICY_ASK;
  if (exec->options.approval_policy != NULL &&
      !dsh_approval_policy_from_string (exec->options.approval_policy, &exec->call_policy, error))
    return FALSE;

  if (!dsh_cli_check_workspace_without_session (exec->options.workspace,
                                                exec->options.session_path, error))
    return FALSE;

  if (exec->options.approver_command != NULL)
    {
      if (!dsh_command_answerer_timeout_from_env (&timeout, error))
        return FALSE;
      exec->approver = dsh_command_answerer_new (exec->options.approver_command, timeout, error);
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

  if (exec->options.session_path == NULL)
    {
      /* Sessionless: --mode and --workspace, as before there were sessions. */
      g_autofree char *spelled = NULL;

      exec->policy = dsh_cli_resolve_policy (exec->options.mode, exec->options.workspace,
                                             &spelled, error);
      if (exec->policy == NULL ||
          !dsh_cli_join_extra_roots (exec->policy, presets,
                                     (const char *const *) exec->options.writable_roots, error))
        return FALSE;
      /* From here on, the workspace as spelled, the default included. */
      g_free (exec->options.workspace);
      exec->options.workspace = g_steal_pointer (&spelled);
      return TRUE;
    }

  exec->policy = dsh_cli_resolve_session_policy (presets, exec->options.session_path,
                                                 exec->options.mode,
                                                 (const char *const *) exec->options.writable_roots,
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

/* ---- 3.–6. the call ------------------------------------------------------------------------ */

/* This exec's one answerer: the approver command when one was configured (already built, so a
 * malformed --approver is a usage error before anything else), else the terminal prompt when
 * there is a controlling terminal, else nobody. */
static void
add_answerer (Exec *exec)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DshTtyApprover) tty = NULL;

  if (exec->approver != NULL)
    {
      dsh_execution_set_answerer (exec->execution, DSH_APPROVAL_ANSWERER (exec->approver));
      return;
    }
  /* No point opening a terminal for a request nobody will be asked. */
  if (!dsh_execution_will_ask (exec->execution))
    return;
  tty = dsh_tty_approver_new (&error);
  if (tty == NULL)
    g_debug ("no terminal to ask: %s", error->message);
  dsh_execution_set_answerer (exec->execution, (DshApprovalAnswerer *) tty);
}

static gboolean
tty_askable (gpointer user_data)
{
  return dsh_tty_approver_available ();
}

static int
run (Exec *exec)
{
  g_autoptr (GError) error = NULL;
  DshCliRunOptions options;
  int status;

  exec->execution = dsh_execution_new ((const char *const *) exec->command, exec->policy,
                                       exec->session, exec->approval);
  dsh_execution_set_call_policy (exec->execution, exec->call_policy);
  /* This process ends with the call. */
  dsh_execution_set_exits_after (exec->execution, TRUE);
  if (exec->options.sandbox_permissions != NULL)
    dsh_execution_set_escalation (exec->execution, exec->requested_mode,
                                  exec->options.justification);
  dsh_execution_set_askable_func (exec->execution, tty_askable, NULL, NULL);

  /* 3. The turn: every exec with a session is one turn, and the audit pair lives inside it.
   * A session log that cannot take the turn cannot take the audit either: nothing runs. */
  if (!dsh_execution_begin (exec->execution, &error))
    return dsh_exec_run_refuse_before_run (&exec->run, exec->options.report_path, error);

  /* 4. Dropping the execution closes its turn. */
  if (!dsh_exec_run_open_report (&exec->run, exec->options.report_path, &error))
    {
      g_clear_object (&exec->execution);
      return dsh_cli_fail_error (error);
    }

  exec->run.report.mode = exec->policy->mode;
  exec->run.report.standing_mode = exec->policy->mode;
  exec->run.report.workspace_root = exec->policy->workspace_root;
  exec->run.report.session_id = exec->policy->session_id;
  exec->run.report.call_id = dsh_execution_get_call_id (exec->execution);
  if (exec->options.sandbox_permissions != NULL)
    exec->run.report.requested_mode = dsh_sandbox_mode_to_string (exec->requested_mode);

  dsh_cli_run_options_init (&options);
  options.options.spelled_workspace = exec->session != NULL
                                        ? dsh_session_log_get_cwd (exec->session)
                                        : exec->options.workspace;
  options.options.session_created = exec->session != NULL
                                      ? dsh_session_log_get_created (exec->session)
                                      : NULL;
  dsh_execution_set_run_options (exec->execution, &options.options);
  add_answerer (exec);

  /* 5. and 6.: the escalation, then the run under the standing or the approved mode (the grant
   * covers this call only). */
  status = dsh_exec_run_execution (&exec->run, exec->execution);
  dsh_cli_run_options_clear (&options);
  return status;
}

int
dsh_cmd_exec (int argc, char **argv)
{
  Exec exec = { 0 };
  g_autofree char *environment = dsh_cli_environment_help ("exec");
  g_autoptr (GError) error = NULL;
  int status;

  dsh_exec_run_init (&exec.run);
  exec.command = dsh_cli_split_command (&argc, argv);
  if (!dsh_exec_options_parse (&exec.options, argc, argv, TRUE, environment, &error) ||
      !check_options (&exec, &error) || !resolve_policy (&exec, &error) ||
      !check_approver (&exec, &error))
    status = dsh_exec_run_refuse_before_run (&exec.run, dsh_report_option_find (argc, argv),
                                             error);
  else
    status = run (&exec);

  exec_clear (&exec);
  return status;
}
