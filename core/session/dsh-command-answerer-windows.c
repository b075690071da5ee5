/* dsh-command-answerer-windows.c — the approver command's platform part on Windows. GLib gives a
 * Windows child no file as its stdin, only a pipe: the request is written to it in the
 * background and the pipe closed, and an approver that answers without reading only makes that
 * write fail once it exits (Windows has no SIGPIPE to fear). A script's first bytes are read
 * from a file on disk only: a pipe or a device answering to the path is not read.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-command-answerer-private.h"

#include <string.h>
#include <windows.h>

gboolean
dsh_approver_stdin_prepare (GSubprocessLauncher *launcher, const char *text, GError **error)
{
  g_subprocess_launcher_set_flags (launcher,
                                   G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDIN_PIPE);
  return TRUE;
}

static void
on_closed (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_output_stream_close_finish (G_OUTPUT_STREAM (source), result, NULL);
}

static void
on_written (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autofree char *text = user_data;

  /* An approver that exited without reading it all broke the pipe: its answer still counts. */
  g_output_stream_write_all_finish (G_OUTPUT_STREAM (source), result, NULL, NULL);
  g_output_stream_close_async (G_OUTPUT_STREAM (source), G_PRIORITY_DEFAULT, NULL, on_closed,
                               NULL);
}

void
dsh_approver_stdin_deliver (GSubprocess *process, const char *text)
{
  GOutputStream *stdin_pipe = g_subprocess_get_stdin_pipe (process);
  char *copy = g_strdup (text);

  /* The stream keeps itself alive while it writes; copy lives until on_written. */
  g_output_stream_write_all_async (stdin_pipe, copy, strlen (copy), G_PRIORITY_DEFAULT, NULL,
                                   on_written, copy);
}

gssize
dsh_approver_read_head (const char *path, char *buf, gsize size)
{
  g_autofree wchar_t *wide = g_utf8_to_utf16 (path, -1, NULL, NULL, NULL);
  BY_HANDLE_FILE_INFORMATION info;
  HANDLE handle;
  DWORD n = 0;
  BOOL ok;

  if (wide == NULL)
    return -1;
  handle = CreateFileW (wide, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                        NULL, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
  if (handle == INVALID_HANDLE_VALUE)
    return -1;
  ok = GetFileType (handle) == FILE_TYPE_DISK && GetFileInformationByHandle (handle, &info) &&
       (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) == 0 &&
       ReadFile (handle, buf, (DWORD) MIN (size, G_MAXINT32), &n, NULL);
  CloseHandle (handle);
  return ok ? (gssize) n : -1;
}

void
dsh_approver_stop_descendants (GSubprocess *process)
{
  /* Only the approver itself is killed: a job object made at its start would take its
   * descendants too. */
  (void) process;
}
