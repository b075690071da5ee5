/* dsh-cmd-exec.c — "dsh-sandbox exec": run a command confined under a per-call policy, stream
 * its stdio, pass its exit status through, and say plainly when it never ran (125) or when the
 * sandbox denied it (the denial marker).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-cli.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "dsh-exec-report.h"

typedef struct {
  char *mode;
  char *workspace;
  char *report_path;
  char **command;
  int report_fd;
} ExecOptions;

static void
exec_options_clear (ExecOptions *options)
{
  g_free (options->mode);
  g_free (options->workspace);
  g_free (options->report_path);
  if (options->report_fd >= 0)
    close (options->report_fd);
}

/* The report file is opened before anything runs: a report that cannot be written must stop
 * the command, not be lost after it. */
static gboolean
open_report (ExecOptions *options, GError **error)
{
  if (options->report_path == NULL)
    return TRUE;
  options->report_fd = open (options->report_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
                             0644);
  if (options->report_fd < 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "cannot open the report file: %s", g_strerror (saved));
      return FALSE;
    }
  return TRUE;
}

static void
write_report (ExecOptions *options, const DshExecReport *report)
{
  g_autoptr (JsonNode) node = NULL;
  g_autoptr (JsonGenerator) generator = json_generator_new ();
  g_autofree char *text = NULL;
  gsize len = 0;

  if (options->report_fd < 0)
    return;
  node = dsh_exec_report_to_json (report);
  json_generator_set_root (generator, node);
  json_generator_set_pretty (generator, TRUE);
  text = json_generator_to_data (generator, &len);
  for (gsize done = 0; done < len;)
    {
      gssize n = write (options->report_fd, text + done, len - done);

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
  (void) write (options->report_fd, "\n", 1);
}

/* The command never ran: one "dsh-sandbox:" line, the report, exit 125. */
static int
refuse (ExecOptions *options, DshExecReport *report, DshOutcome outcome, const char *message)
{
  report->outcome = outcome;
  report->command_ran = FALSE;
  g_free (report->detail);
  report->detail = g_strdup (message);
  write_report (options, report);
  return dsh_cli_fail ("%s", message);
}

static int
run_unconfined (ExecOptions *options, DshExecReport *report)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GString) captured = g_string_new (NULL);

  if (!dsh_cli_spawn_streaming ((const char *const *) options->command, &report->exit_code,
                                &report->term_signal, captured, &error))
    {
      /* Without a runner, dsh-sandbox is the one that failed to start the command. */
      g_autofree char *text = g_strdup_printf ("cannot run the command: %s", error->message);

      return refuse (options, report, DSH_OUTCOME_RUNNER_FAILURE, text);
    }

  report->command_ran = TRUE;
  report->outcome = DSH_OUTCOME_COMPLETED;
  write_report (options, report);
  return report->exit_code;
}

static int
run_confined (ExecOptions *options, DshExecReport *report, const DshSandboxPolicy *policy)
{
  g_autoptr (DshLocalProvider) provider = dsh_cli_new_provider ();
  g_autoptr (GString) captured = g_string_new (NULL);
  g_autoptr (GError) error = NULL;
  g_autofree char *detail = NULL;
  const char *mode = dsh_sandbox_mode_to_string (policy->mode);

  report->confined = dsh_sandbox_provider_confine (DSH_SANDBOX_PROVIDER (provider),
                                                   (const char *const *) options->command,
                                                   policy, &error);
  if (report->confined == NULL)
    return refuse (options, report,
                   g_error_matches (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_UNAVAILABLE)
                     ? DSH_OUTCOME_UNAVAILABLE
                     : DSH_OUTCOME_RUNNER_FAILURE,
                   error->message);

  if (!dsh_cli_spawn_streaming (dsh_confined_argv_get_argv (report->confined),
                                &report->exit_code, &report->term_signal, captured, &error))
    {
      g_autofree char *text = dsh_text_runner_failure (mode, error->message);

      return refuse (options, report, DSH_OUTCOME_RUNNER_FAILURE, text);
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
        return refuse (options, report, DSH_OUTCOME_RUNNER_FAILURE, text);
      }
    case DSH_OUTCOME_DENIED:
      {
        char *marker = dsh_text_denial_marker (policy->mode);

        fprintf (stderr, "%s\n", marker);
        fflush (stderr);
        g_ptr_array_add (report->markers, marker);
        break;
      }
    default:
      break;
    }

  report->command_ran = TRUE;
  write_report (options, report);
  return report->exit_code;
}

int
dsh_cmd_exec (int argc, char **argv)
{
  ExecOptions options = { .report_fd = -1 };
  const GOptionEntry entries[] = {
    { "mode", 0, 0, G_OPTION_ARG_FILENAME, &options.mode,
      "Sandbox mode: read-only (default), workspace-write or danger-full-access", "MODE" },
    { "workspace", 0, 0, G_OPTION_ARG_FILENAME, &options.workspace,
      "Workspace root (default: the current directory)", "DIR" },
    { "report", 0, 0, G_OPTION_ARG_FILENAME, &options.report_path,
      "Write a JSON report of the execution to FILE", "FILE" },
    { NULL }
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("-- ARGV...");
  g_autoptr (GError) error = NULL;
  g_autoptr (DshSandboxPolicy) policy = NULL;
  DshExecReport report;
  int status;

  options.command = dsh_cli_split_command (&argc, argv);
  g_option_context_add_main_entries (context, entries, NULL);
  if (!dsh_cli_parse_options (context, argc, argv, &error))
    return dsh_cli_fail_error (error);
  if (options.command == NULL || options.command[0] == NULL || options.command[0][0] == '\0')
    {
      exec_options_clear (&options);
      return dsh_cli_fail ("no command given: put it after \"--\"");
    }

  policy = dsh_cli_resolve_policy (options.mode, options.workspace, &error);
  if (policy == NULL || !open_report (&options, &error))
    {
      exec_options_clear (&options);
      return dsh_cli_fail_error (error);
    }

  dsh_exec_report_init (&report);
  report.mode = policy->mode;
  report.standing_mode = policy->mode;
  report.workspace_root = policy->workspace_root;

  /* danger-full-access runs the raw argv and never asks a provider. */
  if (dsh_sandbox_mode_is_confined (policy->mode))
    status = run_confined (&options, &report, policy);
  else
    status = run_unconfined (&options, &report);

  dsh_exec_report_clear (&report);
  exec_options_clear (&options);
  return status;
}
