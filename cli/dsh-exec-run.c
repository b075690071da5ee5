/* dsh-exec-run.c — the run step of exec: dsh_run() does the call; here its marker is printed
 * after the command's stderr and the report is written.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-exec-run.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


void
dsh_exec_run_init (DshExecRun *run)
{
  memset (run, 0, sizeof (*run));
  run->report_fd = -1;
  dsh_exec_report_init (&run->report);
}

void
dsh_exec_run_clear (DshExecRun *run)
{
  if (run->report_fd >= 0)
    close (run->report_fd);
  run->report_fd = -1;
  dsh_exec_report_clear (&run->report);
}

gboolean
dsh_exec_run_open_report (DshExecRun *run, const char *path, GError **error)
{
  struct stat st;
  int saved;

  if (path == NULL)
    return TRUE;
  /* dsh-sandbox writes the report unconfined, so a symlink or FIFO a confined command left at
   * that path must not redirect or stall the write: no following, no blocking, regular files
   * only. */
  run->report_fd = open (path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
  if (run->report_fd < 0)
    {
      saved = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
                   "cannot open the report file: %s",
                   saved == ELOOP   ? "it is a symbolic link"
                   : saved == ENXIO ? "it is not a regular file"
                                    : g_strerror (saved));
      return FALSE;
    }
  if (fstat (run->report_fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                           "cannot open the report file: it is not a regular file");
      close (run->report_fd);
      run->report_fd = -1;
      return FALSE;
    }
  if (ftruncate (run->report_fd, 0) != 0 ||
      fcntl (run->report_fd, F_SETFL, fcntl (run->report_fd, F_GETFL) & ~O_NONBLOCK) != 0)
    {
      saved = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved),
                   "cannot open the report file: %s", g_strerror (saved));
      close (run->report_fd);
      run->report_fd = -1;
      return FALSE;
    }
  return TRUE;
}

static void
write_report (DshExecRun *run)
{
  g_autofree char *text = NULL;
  gsize len;

  if (run->report_fd < 0)
    return;
  text = dsh_exec_report_to_text (&run->report);
  len = strlen (text);
  for (gsize done = 0; done < len;)
    {
      ssize_t n = write (run->report_fd, text + done, len - done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          g_printerr ("dsh-sandbox warning: cannot write the report file: %s\n",
                      g_strerror (errno));
          return;
        }
      done += (gsize) n;
    }
}

int
dsh_exec_run_refuse (DshExecRun *run, DshOutcome outcome, const char *message)
{
  run->report.outcome = outcome;
  run->report.command_ran = FALSE;
  run->report.exit_code = 0;
  run->report.term_signal = 0;
  g_free (run->report.detail);
  run->report.detail = g_strdup (message);
  write_report (run);
  return dsh_cli_fail ("%s", message);
}

int
dsh_exec_run_finish (DshExecRun *run, DshRunResult *result, const char *hint)
{
  DshExecReport *report = &run->report;

  g_clear_pointer (&report->result, dsh_run_result_free);
  report->result = result;
  report->mode = result->mode;
  if (!result->command_ran)
    return dsh_exec_run_refuse (run, result->outcome, result->error->message);
  report->outcome = result->outcome;
  report->exit_code = result->exit_code;
  report->term_signal = result->term_signal;
  if (result->marker != NULL)
    {
      /* After the command's own stderr, which was streamed unchanged. */
      fprintf (stderr, "%s\n", result->marker);
      g_ptr_array_add (report->markers, g_strdup (result->marker));
      if (hint != NULL)
        {
          fprintf (stderr, "%s\n", hint);
          g_ptr_array_add (report->markers, g_strdup (hint));
        }
      fflush (stderr);
    }
  report->command_ran = TRUE;
  write_report (run);
  return report->exit_code;
}

int
dsh_exec_run_command (DshExecRun *run, const char *const *command,
                      const DshSandboxPolicy *policy)
{
  DshCliRunOptions options;
  DshRunResult *result;

  dsh_cli_run_options_init (&options);
  options.options.spelled_workspace = run->spelled_workspace;
  result = dsh_run (command, policy, &options.options);
  dsh_cli_run_options_clear (&options);
  return dsh_exec_run_finish (run, result, NULL);
}
