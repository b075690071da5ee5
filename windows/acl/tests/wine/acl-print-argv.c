/* acl-print-argv.c — a tiny Windows program the Wine smoke tests run through the ACL runner.
 * Its argv comes from the C runtime's own split of its command line, so what it prints is what
 * any ordinary program would have received.
 *
 *   acl-print-argv --print ARG...     each ARG as "arg:<hex of its UTF-8>", one per line
 *   acl-print-argv --exit N           exits with status N
 *   acl-print-argv --print-env NAME   "env:<value>"
 *   acl-print-argv --print-self       "self:<the path of the file it runs from>"
 *   acl-print-argv --spawn-stray      starts itself sleeping, prints "pid:N" and exits at once
 *   acl-print-argv --sleep MS         sleeps
 *   acl-print-argv --set-event VALUE  sets the event whose handle value it was given, if it has it
 *   acl-print-argv --fill-temp        leaves files, a read-only one and directories in %TEMP%, and
 *                                     a stray child holding a file open there; prints "env:TEMP"
 *                                     and the stray's "pid:N"
 *   acl-print-argv --hold FILE        creates FILE, keeps it open without delete sharing, sleeps
 *   acl-print-argv --try-breakaway    starts itself with CREATE_BREAKAWAY_FROM_JOB and prints
 *                                     "breakaway:started" or "breakaway:refused:<error>"
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef UNICODE
#define UNICODE
#endif
#include <windows.h>

#include <stdio.h>
#include <stdlib.h>
#include <wchar.h>

static void
print_hex (const wchar_t *arg)
{
  char utf8[4096];
  int n = WideCharToMultiByte (CP_UTF8, 0, arg, -1, utf8, sizeof (utf8), NULL, NULL);

  fputs ("arg:", stdout);
  for (int i = 0; i + 1 < n; i++)
    printf ("%02x", (unsigned char) utf8[i]);
  fputc ('\n', stdout);
}

static int
spawn_stray (void)
{
  wchar_t self[MAX_PATH];
  wchar_t line[MAX_PATH + 32];
  STARTUPINFOW startup = { .cb = sizeof (startup) };
  PROCESS_INFORMATION process;

  GetModuleFileNameW (NULL, self, MAX_PATH);
  swprintf (line, MAX_PATH + 32, L"\"%ls\" --sleep 120000", self);
  /* No standard handles, no console: it must not keep its parent's pipes open, so that only
   * the job can end it before its sleep does. */
  startup.dwFlags = STARTF_USESTDHANDLES;
  if (!CreateProcessW (self, line, NULL, NULL, FALSE, DETACHED_PROCESS, NULL, NULL, &startup,
                       &process))
    {
      fprintf (stderr, "acl-print-argv: cannot start the stray child: %lu\n", GetLastError ());
      return 2;
    }
  printf ("pid:%lu\n", (unsigned long) process.dwProcessId);
  return 0;
}

static int
create_file (const wchar_t *path, DWORD attributes)
{
  HANDLE file = CreateFileW (path, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, attributes, NULL);
  DWORD written;

  if (file == INVALID_HANDLE_VALUE)
    return 0;
  WriteFile (file, "residue\n", 8, &written, NULL);
  CloseHandle (file);
  return 1;
}

static int
hold (const wchar_t *path)
{
  HANDLE file = CreateFileW (path, GENERIC_WRITE, FILE_SHARE_READ, NULL, CREATE_ALWAYS, 0, NULL);

  if (file == INVALID_HANDLE_VALUE)
    return 2;
  Sleep (120000);
  return 0;
}

/* What a command may leave behind in its private temp directory. */
static int
fill_temp (void)
{
  const wchar_t *temp = _wgetenv (L"TEMP");
  wchar_t path[MAX_PATH], self[MAX_PATH], line[2 * MAX_PATH + 32];
  STARTUPINFOW startup = { .cb = sizeof (startup), .dwFlags = STARTF_USESTDHANDLES };
  PROCESS_INFORMATION process;

  if (temp == NULL)
    return 2;
  swprintf (path, MAX_PATH, L"%ls\\a.txt", temp);
  if (!create_file (path, FILE_ATTRIBUTE_NORMAL))
    return 2;
  swprintf (path, MAX_PATH, L"%ls\\sub", temp);
  CreateDirectoryW (path, NULL);
  swprintf (path, MAX_PATH, L"%ls\\sub\\deeper", temp);
  CreateDirectoryW (path, NULL);
  swprintf (path, MAX_PATH, L"%ls\\sub\\deeper\\read-only.txt", temp);
  if (!create_file (path, FILE_ATTRIBUTE_READONLY))
    return 2;
  /* A stray that keeps a file open: only once the job has ended it can the file go. */
  GetModuleFileNameW (NULL, self, MAX_PATH);
  swprintf (path, MAX_PATH, L"%ls\\held.txt", temp);
  swprintf (line, 2 * MAX_PATH + 32, L"\"%ls\" --hold \"%ls\"", self, path);
  if (!CreateProcessW (self, line, NULL, NULL, FALSE, DETACHED_PROCESS, NULL, NULL, &startup,
                       &process))
    return 2;
  for (int i = 0; i < 1000 && GetFileAttributesW (path) == INVALID_FILE_ATTRIBUTES; i++)
    Sleep (10);
  printf ("env:%ls\npid:%lu\n", temp, (unsigned long) process.dwProcessId);
  return 0;
}

/* A child that leaves its parent's job would outlive the runner. */
static int
try_breakaway (void)
{
  wchar_t self[MAX_PATH], line[MAX_PATH + 32];
  STARTUPINFOW startup = { .cb = sizeof (startup) };
  PROCESS_INFORMATION process;

  GetModuleFileNameW (NULL, self, MAX_PATH);
  swprintf (line, MAX_PATH + 32, L"\"%ls\" --exit 0", self);
  if (!CreateProcessW (self, line, NULL, NULL, FALSE, CREATE_BREAKAWAY_FROM_JOB, NULL, NULL,
                       &startup, &process))
    {
      printf ("breakaway:refused:%lu\n", (unsigned long) GetLastError ());
      return 0;
    }
  WaitForSingleObject (process.hProcess, 10000);
  printf ("breakaway:started\n");
  return 0;
}

int wmain (int argc, wchar_t **argv);

int
wmain (int argc, wchar_t **argv)
{
  if (argc >= 2 && wcscmp (argv[1], L"--print") == 0)
    {
      for (int i = 2; i < argc; i++)
        print_hex (argv[i]);
      return 0;
    }
  if (argc == 3 && wcscmp (argv[1], L"--exit") == 0)
    return (int) wcstol (argv[2], NULL, 10);
  if (argc == 3 && wcscmp (argv[1], L"--print-env") == 0)
    {
      const wchar_t *value = _wgetenv (argv[2]);

      printf ("env:%ls\n", value != NULL ? value : L"");
      return 0;
    }
  if (argc == 2 && wcscmp (argv[1], L"--print-self") == 0)
    {
      wchar_t self[MAX_PATH];

      GetModuleFileNameW (NULL, self, MAX_PATH);
      printf ("self:%ls\n", self);
      return 0;
    }
  if (argc == 2 && wcscmp (argv[1], L"--spawn-stray") == 0)
    return spawn_stray ();
  if (argc == 3 && wcscmp (argv[1], L"--set-event") == 0)
    {
      HANDLE event = (HANDLE) (UINT_PTR) wcstoull (argv[2], NULL, 10);

      printf ("set-event:%s\n", SetEvent (event) ? "done" : "failed");
      return 0;
    }
  if (argc == 2 && wcscmp (argv[1], L"--try-breakaway") == 0)
    return try_breakaway ();
  if (argc == 2 && wcscmp (argv[1], L"--fill-temp") == 0)
    return fill_temp ();
  if (argc == 3 && wcscmp (argv[1], L"--hold") == 0)
    return hold (argv[2]);
  if (argc == 3 && wcscmp (argv[1], L"--sleep") == 0)
    {
      Sleep ((DWORD) wcstoul (argv[2], NULL, 10));
      return 0;
    }
  fprintf (stderr, "acl-print-argv: unknown mode\n");
  return 2;
}
