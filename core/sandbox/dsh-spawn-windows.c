/* dsh-spawn-windows.c — runs a command on Windows and watches its stderr: stdin and stdout pass
 * straight through (or are NUL for probes), stderr comes through an anonymous pipe, is passed on
 * to ours as it comes and a copy is kept for classification; probes are killed at their
 * deadline.
 *
 * The command inherits exactly three handles, its stdin, stdout and stderr, named in an explicit
 * handle list: whatever else this process holds open, inheritable or not, never reaches it.
 * Windows has no signals to forward: Ctrl+C and Ctrl+Break reach every process of the console,
 * the command included, so while it runs they are only kept from ending this process before it.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-spawn-private.h"

#include "dsh-files-windows-private.h"

#include <string.h>

#include "dsh-windows-command-line-private.h"
#include "dsh-windows-paths-private.h"

/* Classification needs the runner's first lines and any denial text: the copy keeps the head
 * and the last bytes of a flood, where a denial usually comes. */
#define CAPTURE_LIMIT (1024 * 1024)
#define CAPTURE_TAIL (64 * 1024)
#define RELAY_CHUNK (64 * 1024)
#define RELAY_PIPE_SIZE (1024 * 1024)
/* After the command exits, output from a straggler holding stderr open is read this long. */
#define DRAIN_AFTER_EXIT_MS 200
/* TerminateProcess needs an exit code: the command's status when its deadline killed it. */
#define KILLED_EXIT_CODE 1

typedef struct {
  HANDLE pipe;
  HANDLE echo; /* our stderr, or NULL */
  GString *captured;
  guint8 *tail;
  gsize tail_next;
  gboolean tail_full;
} Relay;

static void
relay_keep (Relay *relay, const guint8 *data, gsize len)
{
  gsize to_head = relay->captured->len < CAPTURE_LIMIT
                    ? MIN (len, CAPTURE_LIMIT - relay->captured->len)
                    : 0;

  g_string_append_len (relay->captured, (const char *) data, (gssize) to_head);
  for (gsize i = to_head; i < len; i++)
    {
      relay->tail[relay->tail_next] = data[i];
      relay->tail_next = (relay->tail_next + 1) % CAPTURE_TAIL;
      relay->tail_full = relay->tail_full || relay->tail_next == 0;
    }
}

static DWORD WINAPI
relay_thread (void *data)
{
  Relay *relay = data;
  g_autofree guint8 *buffer = g_malloc (RELAY_CHUNK);
  DWORD n;

  while (ReadFile (relay->pipe, buffer, RELAY_CHUNK, &n, NULL) && n > 0)
    {
      /* Stderr is never rewritten: the bytes go on as they came. */
      for (DWORD done = 0, w = 0; relay->echo != NULL && done < n; done += w)
        {
          if (!WriteFile (relay->echo, buffer + done, n - done, &w, NULL) || w == 0)
            break;
        }
      relay_keep (relay, buffer, n);
    }
  return 0;
}

/* Head and tail, on separate lines so that no line is made of both. */
static void
relay_finish (Relay *relay)
{
  if (!relay->tail_full && relay->tail_next == 0)
    return;
  g_string_append_c (relay->captured, '\n');
  if (relay->tail_full)
    g_string_append_len (relay->captured, (const char *) relay->tail + relay->tail_next,
                         (gssize) (CAPTURE_TAIL - relay->tail_next));
  g_string_append_len (relay->captured, (const char *) relay->tail, (gssize) relay->tail_next);
}

static BOOL WINAPI
outlive_console_break (DWORD event)
{
  return event == CTRL_C_EVENT || event == CTRL_BREAK_EVENT;
}

static gboolean
fail (GError **error, GSpawnError code, const char *program, const char *what, DWORD win32)
{
  g_autofree char *shown = g_utf8_make_valid (program, -1);
  g_autofree char *why = win32 != 0 ? dsh_windows_error_text (win32) : NULL;

  g_set_error (error, G_SPAWN_ERROR, code, "cannot execute \"%s\": %s%s%s", shown, what,
               why != NULL ? ": " : "", why != NULL ? why : "");
  return FALSE;
}

static gboolean
is_file (const char *path)
{
  g_autofree wchar_t *wide = dsh_windows_wide (path, NULL);
  DWORD attributes = wide != NULL ? GetFileAttributesW (wide) : INVALID_FILE_ATTRIBUTES;

  return attributes != INVALID_FILE_ATTRIBUTES && (attributes & FILE_ATTRIBUTE_DIRECTORY) == 0;
}

/* The program to start: a name with a directory as it is, else the first match on PATH (with
 * .exe or .com when it names no extension), never the current directory. Batch files are
 * refused: cmd.exe splits their command line by rules of its own. */
static char *
find_program (const char *name, GError **error)
{
  g_autofree char *base = g_path_get_basename (name);
  const char *dot = strrchr (base, '.');
  const char *path = g_getenv ("PATH");
  g_auto (GStrv) dirs = NULL;

  /* As Windows will open the name: "run.bat." and "run.bat " are run.bat. */
  if (dsh_windows_program_is_batch (name))
    {
      fail (error, G_SPAWN_ERROR_FAILED, name,
            "batch files are not run directly: cmd.exe would split their arguments by other "
            "rules than the ones they were quoted for",
            0);
      return NULL;
    }
  if (strpbrk (name, "\\/:") != NULL)
    {
      char *full = dsh_windows_full_path (name);

      if (full != NULL && is_file (full))
        return full;
      g_free (full);
      fail (error, G_SPAWN_ERROR_NOENT, name, "no such file", 0);
      return NULL;
    }
  dirs = g_strsplit (path != NULL ? path : "", ";", -1);
  for (gsize i = 0; dirs[i] != NULL; i++)
    {
      static const char *const suffixes[] = { "", ".exe", ".com" };

      if (dsh_windows_path_root_length (dirs[i]) == 0)
        continue; /* a relative PATH entry names the current directory's contents */
      for (guint s = dot != NULL ? 0 : 1; s < G_N_ELEMENTS (suffixes); s++)
        {
          g_autofree char *file = g_strconcat (name, suffixes[s], NULL);
          g_autofree char *candidate = g_build_filename (dirs[i], file, NULL);

          if (is_file (candidate))
            return g_steal_pointer (&candidate);
        }
    }
  fail (error, G_SPAWN_ERROR_NOENT, name, "not found on PATH", 0);
  return NULL;
}

/* A copy of handle the command may inherit, or NUL (opened for access) when there is none. */
static HANDLE
inheritable (HANDLE handle, DWORD access)
{
  SECURITY_ATTRIBUTES inherit = { sizeof inherit, NULL, TRUE };
  HANDLE copy = NULL;

  if (handle != NULL && handle != INVALID_HANDLE_VALUE &&
      DuplicateHandle (GetCurrentProcess (), handle, GetCurrentProcess (), &copy, 0, TRUE,
                       DUPLICATE_SAME_ACCESS))
    return copy;
  return CreateFileW (L"NUL", access, FILE_SHARE_READ | FILE_SHARE_WRITE, &inherit, OPEN_EXISTING,
                      0, NULL);
}

/* "NAME=value" strings as one UTF-16 block, each ended by a NUL and the whole by another. */
static wchar_t *
environment_block (char *const *envp)
{
  g_autoptr (GArray) block = g_array_new (FALSE, FALSE, sizeof (wchar_t));
  const wchar_t end = 0;

  for (gsize i = 0; envp[i] != NULL; i++)
    {
      g_autofree wchar_t *wide = dsh_windows_wide (envp[i], NULL);

      if (wide == NULL || wide[0] == 0)
        continue;
      g_array_append_vals (block, wide, (guint) wcslen (wide) + 1);
    }
  g_array_append_val (block, end);
  if (block->len == 1)
    g_array_append_val (block, end);
  return (wchar_t *) g_array_free (g_steal_pointer (&block), FALSE);
}

static void
close_handle (HANDLE *handle)
{
  if (*handle != NULL && *handle != INVALID_HANDLE_VALUE)
    CloseHandle (*handle);
  *handle = NULL;
}

gboolean
dsh_spawn_run (const char *const *argv,
               const DshSpawnOptions *options,
               int *exit_code,
               int *term_signal,
               GString *captured,
               GError **error)
{
  SECURITY_ATTRIBUTES inherit = { sizeof inherit, NULL, TRUE };
  g_autofree char *program = NULL;
  g_autofree char *line = NULL;
  g_autofree wchar_t *wide_program = NULL;
  g_autofree wchar_t *wide_line = NULL;
  g_autofree wchar_t *wide_cwd = NULL;
  g_autofree wchar_t *env = NULL;
  g_autofree guint8 *attribute_buffer = NULL;
  g_autofree guint8 *tail = g_malloc (CAPTURE_TAIL);
  LPPROC_THREAD_ATTRIBUTE_LIST attributes = NULL;
  STARTUPINFOEXW startup = { 0 };
  PROCESS_INFORMATION process = { 0 };
  HANDLE err_read = NULL, err_write = NULL, child_in = NULL, child_out = NULL;
  HANDLE inherited[3];
  HANDLE thread;
  Relay relay = { 0 };
  SIZE_T attribute_size = 0;
  DWORD code = 0, started_error = 0;
  BOOL started;

  /* No Windows backend takes a first step that keeps descriptors for its runner. */
  if (options->n_keep_fds > 0)
    {
      g_set_error_literal (error, G_SPAWN_ERROR, G_SPAWN_ERROR_FAILED,
                           "descriptors kept for a runner are not supported here");
      return FALSE;
    }
  program = find_program (argv[0], error);
  if (program == NULL)
    return FALSE;
  /* What was found is what CreateProcess opens: it must not be a batch file either. */
  if (dsh_windows_program_is_batch (program))
    return fail (error, G_SPAWN_ERROR_FAILED, argv[0],
                 "it is a batch file, whose arguments cmd.exe would split by rules of its own",
                 0);
  line = dsh_windows_command_line (argv, error);
  if (line == NULL)
    return FALSE;
  wide_program = dsh_windows_wide (program, error);
  wide_line = wide_program != NULL ? dsh_windows_wide (line, error) : NULL;
  if (wide_line == NULL)
    return FALSE;
  if (options->cwd != NULL && (wide_cwd = dsh_windows_wide (options->cwd, error)) == NULL)
    return FALSE;
  if (options->envp != NULL)
    env = environment_block (options->envp);

  if (!CreatePipe (&err_read, &err_write, &inherit, RELAY_PIPE_SIZE))
    return fail (error, G_SPAWN_ERROR_FAILED, argv[0], "cannot create a pipe", GetLastError ());
  /* Our end stays ours. */
  SetHandleInformation (err_read, HANDLE_FLAG_INHERIT, 0);
  child_in = inheritable (options->quiet ? NULL : GetStdHandle (STD_INPUT_HANDLE), GENERIC_READ);
  child_out = inheritable (options->quiet ? NULL : GetStdHandle (STD_OUTPUT_HANDLE),
                           GENERIC_WRITE);
  inherited[0] = child_in;
  inherited[1] = child_out;
  inherited[2] = err_write;

  /* Handles 0-2 and nothing else, whatever close_inherited_fds asks: a handle list is how
   * Windows says it, and no caller of this core wants a command to inherit more. */
  InitializeProcThreadAttributeList (NULL, 1, 0, &attribute_size);
  attribute_buffer = g_malloc0 (attribute_size > 0 ? attribute_size : 1);
  attributes = (LPPROC_THREAD_ATTRIBUTE_LIST) attribute_buffer;
  if (child_in == INVALID_HANDLE_VALUE || child_out == INVALID_HANDLE_VALUE ||
      !InitializeProcThreadAttributeList (attributes, 1, 0, &attribute_size))
    {
      started_error = GetLastError ();
      attributes = NULL;
    }
  else if (!UpdateProcThreadAttribute (attributes, 0, PROC_THREAD_ATTRIBUTE_HANDLE_LIST, inherited,
                                       sizeof inherited, NULL, NULL))
    started_error = GetLastError ();

  startup.StartupInfo.cb = sizeof startup;
  startup.StartupInfo.dwFlags = STARTF_USESTDHANDLES;
  startup.StartupInfo.hStdInput = child_in;
  startup.StartupInfo.hStdOutput = child_out;
  startup.StartupInfo.hStdError = err_write;
  startup.lpAttributeList = attributes;

  if (options->forward_signals)
    SetConsoleCtrlHandler (outlive_console_break, TRUE);
  started = started_error == 0 &&
            CreateProcessW (wide_program, wide_line, NULL, NULL, TRUE,
                            EXTENDED_STARTUPINFO_PRESENT | CREATE_UNICODE_ENVIRONMENT, env,
                            wide_cwd, &startup.StartupInfo, &process);
  if (!started && started_error == 0)
    started_error = GetLastError ();
  if (!started && started_error == 0)
    started_error = ERROR_INVALID_HANDLE;
  if (attributes != NULL)
    DeleteProcThreadAttributeList (attributes);
  close_handle (&err_write);
  close_handle (&child_in);
  close_handle (&child_out);
  if (!started)
    {
      if (options->forward_signals)
        SetConsoleCtrlHandler (outlive_console_break, FALSE);
      close_handle (&err_read);
      return fail (error,
                   started_error == ERROR_FILE_NOT_FOUND ? G_SPAWN_ERROR_NOENT
                                                         : G_SPAWN_ERROR_FAILED,
                   argv[0], "CreateProcess failed", started_error);
    }
  CloseHandle (process.hThread);

  relay.pipe = err_read;
  relay.echo = options->quiet ? NULL : GetStdHandle (STD_ERROR_HANDLE);
  if (relay.echo == INVALID_HANDLE_VALUE)
    relay.echo = NULL;
  relay.captured = captured;
  relay.tail = tail;
  thread = CreateThread (NULL, 0, relay_thread, &relay, 0, NULL);
  if (thread == NULL)
    {
      DWORD why = GetLastError ();

      /* Unwatched, its deadline could not be kept nor its stderr read: it does not run. */
      TerminateProcess (process.hProcess, KILLED_EXIT_CODE);
      WaitForSingleObject (process.hProcess, INFINITE);
      CloseHandle (process.hProcess);
      close_handle (&err_read);
      if (options->forward_signals)
        SetConsoleCtrlHandler (outlive_console_break, FALSE);
      return fail (error, G_SPAWN_ERROR_FAILED, argv[0], "cannot start the stderr relay", why);
    }

  if (WaitForSingleObject (process.hProcess, options->timeout_ms > 0 ? options->timeout_ms
                                                                     : INFINITE) == WAIT_TIMEOUT)
    {
      /* Out of time: the command does not get to hang its caller. */
      TerminateProcess (process.hProcess, KILLED_EXIT_CODE);
      WaitForSingleObject (process.hProcess, INFINITE);
    }
  /* A straggler still holding stderr open gets a moment, then the read is cancelled (again,
   * should the relay have been between two reads). */
  if (WaitForSingleObject (thread, DRAIN_AFTER_EXIT_MS) == WAIT_TIMEOUT)
    {
      do
        CancelSynchronousIo (thread);
      while (WaitForSingleObject (thread, 10) == WAIT_TIMEOUT);
    }
  CloseHandle (thread);
  close_handle (&err_read);
  relay_finish (&relay);
  if (options->forward_signals)
    SetConsoleCtrlHandler (outlive_console_break, FALSE);

  GetExitCodeProcess (process.hProcess, &code);
  CloseHandle (process.hProcess);
  /* No signals: an exit code, NTSTATUS values of a crash included, is all there is. */
  *term_signal = 0;
  *exit_code = (int) code;
  return TRUE;
}
