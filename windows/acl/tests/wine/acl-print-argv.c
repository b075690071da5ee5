/* acl-print-argv.c — a tiny Windows program the Wine smoke tests run through the ACL runner.
 * Its argv comes from the C runtime's own split of its command line, so what it prints is what
 * any ordinary program would have received.
 *
 *   acl-print-argv --print ARG...     each ARG as "arg:<hex of its UTF-8>", one per line
 *   acl-print-argv --exit N           exits with status N
 *   acl-print-argv --print-env NAME   "env:<value>"
 *   acl-print-argv --spawn-stray      starts itself sleeping, prints "pid:N" and exits at once
 *   acl-print-argv --sleep MS         sleeps
 *   acl-print-argv --set-event VALUE  sets the event whose handle value it was given, if it has it
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
  if (argc == 2 && wcscmp (argv[1], L"--spawn-stray") == 0)
    return spawn_stray ();
  if (argc == 3 && wcscmp (argv[1], L"--set-event") == 0)
    {
      HANDLE event = (HANDLE) (UINT_PTR) wcstoull (argv[2], NULL, 10);

      printf ("set-event:%s\n", SetEvent (event) ? "done" : "failed");
      return 0;
    }
  if (argc == 3 && wcscmp (argv[1], L"--sleep") == 0)
    {
      Sleep ((DWORD) wcstoul (argv[2], NULL, 10));
      return 0;
    }
  fprintf (stderr, "acl-print-argv: unknown mode\n");
  return 2;
}
