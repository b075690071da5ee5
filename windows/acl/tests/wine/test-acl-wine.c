/* test-acl-wine.c — smoke tests of the cross-built ACL backend under Wine: the DLL loads and
 * works through a host table, and the runner parses its argv, refuses bad input with its one
 * fatal line and 125, passes exit codes through, hands the command its argv exactly, and its job
 * kills a stray child when it ends, and the command inherits no handle but its standard ones;
 * private temp directories go when their call (agentless) or their provider (a session) ends;
 * a bare program name is found on PATH only, never in the working directory.
 *
 * Wine implements neither restricting SIDs nor file ACL checks, so nothing here asserts that a
 * write was denied: windows/README.md lists what only a real Windows machine can show.
 *
 *   test-acl-wine RUNNER CHILD DLL   (paths as meson gives them; /x/y means Z:\x\y)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef UNICODE
#define UNICODE
#endif
#include <windows.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsh-acl-cmdline.h"
#include "dsh-acl-plan.h"
#include "dsh-backend.h"

static const char *runner;
static const char *child;
static const char *dll;
static int failures;
static int checks;

static void
check (int ok, const char *format, ...)
{
  va_list args;

  checks++;
  printf ("%s %d - ", ok ? "ok" : "not ok", checks);
  va_start (args, format);
  vprintf (format, args);
  va_end (args);
  putchar ('\n');
  fflush (stdout);
  if (!ok)
    failures++;
}

/* Meson hands over host paths; under Wine the host's / is drive Z:. */
static char *
windows_path (const char *path)
{
  char *out = malloc (strlen (path) + 3);

  if (path[0] == '/')
    {
      strcpy (out, "Z:");
      strcat (out, path);
    }
  else
    strcpy (out, path);
  for (char *p = out; *p != '\0'; p++)
    {
      if (*p == '/')
        *p = '\\';
    }
  return out;
}

static wchar_t *
wide (const char *text)
{
  int n = MultiByteToWideChar (CP_UTF8, 0, text, -1, NULL, 0);
  wchar_t *w = malloc ((size_t) n * sizeof (wchar_t));

  MultiByteToWideChar (CP_UTF8, 0, text, -1, w, n);
  return w;
}

typedef struct {
  DWORD status;
  char out[65536];
  char err[8192];
} Run;

static void
read_all (HANDLE pipe, char *buf, size_t size)
{
  size_t used = 0;
  DWORD n;

  while (used + 1 < size && ReadFile (pipe, buf + used, (DWORD) (size - used - 1), &n, NULL) &&
         n > 0)
    used += n;
  buf[used] = '\0';
}

/* Runs argv (encoded as the core would) in cwd (NULL: this test's own) with stdout and stderr
 * captured. */
static int
run_in (const char *const *argv, const char *cwd, Run *result)
{
  SECURITY_ATTRIBUTES inherit = { .nLength = sizeof (inherit), .bInheritHandle = TRUE };
  STARTUPINFOW startup = { .cb = sizeof (startup) };
  PROCESS_INFORMATION process;
  HANDLE out_read, out_write, err_read, err_write, null_in;
  const char *error = NULL;
  char *line = dsh_acl_cmdline_encode (argv, &error);
  wchar_t *wline;
  wchar_t *wcwd = cwd != NULL ? wide (cwd) : NULL;

  memset (result, 0, sizeof (*result));
  if (line == NULL)
    {
      printf ("# cannot encode the command line: %s\n", error);
      return -1;
    }
  wline = wide (line);
  CreatePipe (&out_read, &out_write, &inherit, 0);
  CreatePipe (&err_read, &err_write, &inherit, 0);
  SetHandleInformation (out_read, HANDLE_FLAG_INHERIT, 0);
  SetHandleInformation (err_read, HANDLE_FLAG_INHERIT, 0);
  null_in = CreateFileW (L"NUL", GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, &inherit,
                         OPEN_EXISTING, 0, NULL);
  startup.dwFlags = STARTF_USESTDHANDLES;
  startup.hStdInput = null_in;
  startup.hStdOutput = out_write;
  startup.hStdError = err_write;
  if (!CreateProcessW (NULL, wline, NULL, NULL, TRUE, 0, NULL, wcwd, &startup, &process))
    {
      printf ("# cannot start %s: error %lu\n", argv[0], GetLastError ());
      return -1;
    }
  CloseHandle (out_write);
  CloseHandle (err_write);
  CloseHandle (null_in);
  read_all (out_read, result->out, sizeof (result->out));
  read_all (err_read, result->err, sizeof (result->err));
  WaitForSingleObject (process.hProcess, 60000);
  GetExitCodeProcess (process.hProcess, &result->status);
  CloseHandle (process.hProcess);
  CloseHandle (process.hThread);
  CloseHandle (out_read);
  CloseHandle (err_read);
  free (wcwd);
  free (wline);
  free (line);
  return 0;
}

static int
run (const char *const *argv, Run *result)
{
  return run_in (argv, NULL, result);
}

/* ---- the DLL ---------------------------------------------------------------------------- */

typedef struct {
  DshBackendHost host;
  const char *argv[64];
  size_t argc;
  int32_t enforcement;
  size_t n_reasons;
  char error[512];
} MiniHost;

static void
mini_push_arg (DshBackendHost *host, const char *arg)
{
  MiniHost *mini = host->host_data;

  if (mini->argc < 63)
    mini->argv[mini->argc++] = _strdup (arg);
}

static void
mini_set_error (DshBackendHost *host, const char *message)
{
  snprintf (((MiniHost *) host->host_data)->error, 512, "%s", message);
}

static void
mini_set_enforcement (DshBackendHost *host, int32_t enforcement)
{
  ((MiniHost *) host->host_data)->enforcement = enforcement;
}

static void
mini_add_reason (DshBackendHost *host, const char *reason)
{
  ((MiniHost *) host->host_data)->n_reasons++;
}

static const char *
mini_find (DshBackendHost *host, const char *name)
{
  return strcmp (name, DSH_ACL_RUNNER) == 0 ? runner : NULL;
}

/* The temp area the module sees, when a test chooses one. */
static const char *mini_temp;

static const char *
mini_get_env (DshBackendHost *host, const char *name)
{
  if (mini_temp != NULL && (strcmp (name, "TEMP") == 0 || strcmp (name, "TMP") == 0))
    return mini_temp;
  return getenv (name);
}

/* The host table over mini, with the module's instance made for it; returns the instance. */
static void *
mini_host_init (MiniHost *mini, const DshBackendDescriptor *desc)
{
  mini->host.abi_major = DSH_BACKEND_ABI_MAJOR;
  mini->host.abi_minor = DSH_BACKEND_ABI_MINOR;
  mini->host.host_data = mini;
  mini->host.push_arg = mini_push_arg;
  mini->host.set_error = mini_set_error;
  mini->host.set_enforcement = mini_set_enforcement;
  mini->host.add_reason = mini_add_reason;
  mini->host.find_program = mini_find;
  mini->host.find_helper = mini_find;
  mini->host.get_env = mini_get_env;
  mini->host.instance = desc->instance_new (&mini->host);
  return mini->host.instance;
}

static void
test_dll (void)
{
  wchar_t *path = wide (dll);
  HMODULE module = LoadLibraryW (path);
  DshBackendDescribeFunc describe;
  const DshBackendDescriptor *desc;
  const char *argv[] = { "cmd.exe", "/c", "ver", NULL };
  const DshBackendPolicy policy = { .mode = DSH_BACKEND_MODE_READ_ONLY,
                                    .workspace_root = "C:\\work", .session_id = "s" };
  MiniHost mini = { 0 };
  void *instance;

  check (module != NULL, "the DLL loads (error %lu)", module == NULL ? GetLastError () : 0);
  if (module == NULL)
    return;
  describe = (DshBackendDescribeFunc) (void (*) (void)) GetProcAddress (module,
                                                                      "dsh_backend_acl_describe");
  check (describe != NULL, "it exports dsh_backend_acl_describe");
  check (GetProcAddress (module, "dsh_acl_plan") == NULL &&
           GetProcAddress (module, "dsh_backend_describe") == NULL,
         "it exports none of its internals");
  if (describe == NULL)
    return;
  desc = describe ();
  check (desc->abi_major == 1 && desc->abi_minor == DSH_BACKEND_ABI_MINOR &&
           strcmp (desc->name, "acl") == 0 && desc->os == DSH_BACKEND_OS_WINDOWS,
         "its descriptor is this header's ABI, named acl, for Windows");

  instance = mini_host_init (&mini, desc);
  check (desc->confine (&mini.host, &policy, argv) == 0 && mini.argc == 7 &&
           strcmp (mini.argv[0], runner) == 0 && strcmp (mini.argv[1], "--session-sid") == 0 &&
           strcmp (mini.argv[3], "--") == 0 && strcmp (mini.argv[6], "ver") == 0 &&
           mini.enforcement == DSH_BACKEND_ENFORCEMENT_PARTIAL && mini.n_reasons == 1,
         "confine() through a host table gives the runner argv (%s)", mini.error);
  desc->instance_free (instance);
  FreeLibrary (module);
  free (path);
}

/* ---- the runner ------------------------------------------------------------------------- */

static const char session_sid[] = "S-1-5-21-11-22-33-44";
static const char workspace_sid[] = "S-1-5-21-55-66-77-88";

/* Exactly one line, the fatal one. */
static int
is_one_fatal_line (const char *err)
{
  const char *newline = strchr (err, '\n');

  return strncmp (err, DSH_ACL_FATAL_PREFIX, strlen (DSH_ACL_FATAL_PREFIX)) == 0 &&
         newline != NULL && newline[1] == '\0';
}

static void
test_refusals (void)
{
  const struct {
    const char *name;
    const char *argv[12];
  } cases[] = {
    { "no arguments", { runner, NULL } },
    { "no command", { runner, "--session-sid", session_sid, NULL } },
    { "no session SID", { runner, "--", child, "--exit", "0", NULL } },
    { "a malformed SID", { runner, "--session-sid", "S-1-1-0", "--", child, "--exit", "0", NULL } },
    { "an unknown option", { runner, "--session-sid", session_sid, "--all", "--", child, NULL } },
    { "a drive root", { runner, "--workspace-sid", workspace_sid, "--write", "C:\\",
                        "--session-sid", session_sid, "--", child, "--exit", "0", NULL } },
    { "a relative root", { runner, "--workspace-sid", workspace_sid, "--write", "work",
                           "--session-sid", session_sid, "--", child, "--exit", "0", NULL } },
    { "--write without a workspace SID", { runner, "--write", "C:\\work", "--session-sid",
                                           session_sid, "--", child, "--exit", "0", NULL } },
    { "a program that does not exist", { runner, "--session-sid", session_sid, "--",
                                         "C:\\no\\such\\program.exe", NULL } },
  };

  for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++)
    {
      Run r;
      int ran = run (cases[i].argv, &r);

      check (ran == 0 && r.status == DSH_ACL_FATAL_EXIT && is_one_fatal_line (r.err) &&
               r.out[0] == '\0',
             "the runner refuses %s with 125 and one fatal line (status %lu, stderr [%s])",
             cases[i].name, (unsigned long) r.status, r.err);
    }
}

static void
test_profile_refused (void)
{
  const char *profile = getenv ("USERPROFILE");
  const char *argv[] = { runner, "--workspace-sid", workspace_sid, "--write", profile,
                         "--session-sid", session_sid, "--", child, "--exit", "0", NULL };
  Run r;
  int ran;

  if (profile == NULL)
    {
      check (0, "USERPROFILE is set under Wine");
      return;
    }
  ran = run (argv, &r);
  check (ran == 0 && r.status == DSH_ACL_FATAL_EXIT && is_one_fatal_line (r.err) &&
           strstr (r.err, "profile directory") != NULL,
         "the runner refuses the profile directory %s ([%s])", profile, r.err);
}

/* The profile reached through another spelling: Wine's drive Z: is the host's /, so the prefix's
 * drive_c\users\NAME under Z: is the profile directory; so is PROFILE\.. \NAME. */
static void
test_profile_respelled_refused (void)
{
  const char *profile = getenv ("USERPROFILE");
  const char *prefix = getenv ("WINEPREFIX");
  const char *name = profile != NULL ? strrchr (profile, '\\') : NULL;
  char via_z[MAX_PATH], via_dots[MAX_PATH];
  const char *spellings[] = { via_z, via_dots, NULL };
  /* The first passes every rule as written and is caught once opened; the second as written. */
  const char *reasons[] = { "is the user's profile directory", "has a . or .. component" };

  if (profile == NULL || prefix == NULL || name == NULL)
    {
      check (0, "USERPROFILE and WINEPREFIX are set under Wine");
      return;
    }
  snprintf (via_z, sizeof (via_z), "Z:%s\\drive_c\\users%s", prefix, name);
  for (char *p = via_z; *p != '\0'; p++)
    {
      if (*p == '/')
        *p = '\\';
    }
  snprintf (via_dots, sizeof (via_dots), "%s\\..%s", profile, name);
  for (size_t i = 0; spellings[i] != NULL; i++)
    {
      const char *argv[] = { runner, "--workspace-sid", workspace_sid, "--write", spellings[i],
                             "--session-sid", session_sid, "--", child, "--exit", "0", NULL };
      Run r;
      int ran = run (argv, &r);

      check (ran == 0 && r.status == DSH_ACL_FATAL_EXIT && is_one_fatal_line (r.err) &&
               strstr (r.err, reasons[i]) != NULL,
             "the runner refuses the profile directory spelled %s ([%s])", spellings[i], r.err);
    }
}

static void
test_exit_codes (void)
{
  const char *codes[] = { "0", "1", "3", "42", "124", "126", "255", "256", "1000", NULL };

  for (size_t i = 0; codes[i] != NULL; i++)
    {
      const char *argv[] = { runner, "--session-sid", session_sid, "--", child, "--exit",
                             codes[i], NULL };
      Run r;
      int ran = run (argv, &r);

      check (ran == 0 && r.status == strtoul (codes[i], NULL, 10) && r.err[0] == '\0',
             "exit status %s passes through (got %lu, stderr [%s])", codes[i],
             (unsigned long) r.status, r.err);
    }
}

static void
test_argv_exact (void)
{
  const char *const items[] = { "plain", "with space", "", "quote\"inside", "\"", "\"\"",
                                "trailing\\", "trailing space\\", "\\\\server\\share\\",
                                "a\\\\\"b", "tab\there", "  ", "--", "--write", "C:\\",
                                "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "", NULL };
  const char *argv[64] = { runner, "--session-sid", session_sid, "--", child, "--print" };
  size_t n = 6;
  char expected[8192] = "";
  Run r;
  int ran;

  for (size_t i = 0; items[i] != NULL; i++)
    {
      size_t len = strlen (expected);

      argv[n++] = items[i];
      len += (size_t) snprintf (expected + len, sizeof (expected) - len, "arg:");
      for (const unsigned char *p = (const unsigned char *) items[i]; *p != '\0'; p++)
        len += (size_t) snprintf (expected + len, sizeof (expected) - len, "%02x", *p);
      snprintf (expected + len, sizeof (expected) - len, "\n");
    }
  argv[n] = NULL;
  /* The C runtime writes "\n" as "\r\n" on a pipe. */
  ran = run (argv, &r);
  if (ran == 0)
    {
      char *in = r.out, *out = r.out;

      for (; *in != '\0'; in++)
        {
          if (*in != '\r')
            *out++ = *in;
        }
      *out = '\0';
    }
  check (ran == 0 && r.status == 0 && strcmp (r.out, expected) == 0,
         "spaces, quotes, trailing backslashes, empty and non-ASCII arguments reach the command "
         "exactly (status %lu, stderr [%s])", (unsigned long) r.status, r.err);
  if (strcmp (r.out, expected) != 0)
    printf ("# expected:\n%s# got:\n%s", expected, r.out);
}

/* Whether process pid ends within ms; one that cannot be opened any more has ended. */
static int
ends_within (DWORD pid, DWORD ms)
{
  HANDLE process = OpenProcess (SYNCHRONIZE | PROCESS_TERMINATE, FALSE, pid);
  int ended;

  if (process == NULL)
    {
      printf ("# pid %lu cannot be opened (error %lu): it has ended\n", (unsigned long) pid,
              GetLastError ());
      return 1;
    }
  ended = WaitForSingleObject (process, ms) == WAIT_OBJECT_0;
  if (!ended)
    TerminateProcess (process, 1);
  CloseHandle (process);
  return ended;
}

static DWORD
stray_pid (const Run *r)
{
  const char *p = strstr (r->out, "pid:");

  return p != NULL ? (DWORD) strtoul (p + 4, NULL, 10) : 0;
}

static void
test_job_kills_stray (void)
{
  const char *direct[] = { child, "--spawn-stray", NULL };
  const char *confined[] = { runner, "--session-sid", session_sid, "--", child, "--spawn-stray",
                             NULL };
  Run r;
  DWORD pid;

  /* Without the runner the stray outlives its parent: what the job must change. */
  pid = run (direct, &r) == 0 ? stray_pid (&r) : 0;
  check (pid != 0 && !ends_within (pid, 2000), "a stray child outlives its parent without the "
         "runner (pid %lu)", (unsigned long) pid);
  pid = run (confined, &r) == 0 ? stray_pid (&r) : 0;
  check (r.status == 0 && pid != 0 && ends_within (pid, 20000),
         "the runner's job kills the stray child when the runner ends (pid %lu, stderr [%s])",
         (unsigned long) pid, r.err);
}

/* The job does not allow breakaway: a command cannot start a child outside it. */
static void
test_breakaway_refused (void)
{
  const char *direct[] = { child, "--try-breakaway", NULL };
  const char *confined[] = { runner, "--session-sid", session_sid, "--", child, "--try-breakaway",
                             NULL };
  Run r;
  int ran;

  /* Outside any job the flag is harmless: what the job must change. */
  ran = run (direct, &r);
  check (ran == 0 && strstr (r.out, "breakaway:started") != NULL,
         "a child started directly may use CREATE_BREAKAWAY_FROM_JOB ([%s])", r.out);
  ran = run (confined, &r);
  check (ran == 0 && r.status == 0 && strstr (r.out, "breakaway:refused:5") != NULL,
         "the command under the runner cannot break away from its job ([%s], stderr [%s])",
         r.out, r.err);
}

/* A handle the runner inherits (an event nobody else sets) must not reach the command. */
static void
test_only_standard_handles (void)
{
  SECURITY_ATTRIBUTES inherit = { .nLength = sizeof (inherit), .bInheritHandle = TRUE };
  HANDLE event = CreateEventW (&inherit, TRUE, FALSE, NULL);
  char value[32];
  const char *direct[] = { child, "--set-event", value, NULL };
  const char *confined[] = { runner, "--session-sid", session_sid, "--", child, "--set-event",
                             value, NULL };
  int ran;
  Run r;

  snprintf (value, sizeof (value), "%llu", (unsigned long long) (UINT_PTR) event);
  /* Without the runner the child inherits it: the check can see a leak. */
  ran = run (direct, &r);
  check (ran == 0 && WaitForSingleObject (event, 0) == WAIT_OBJECT_0,
         "a directly started child inherits the event and sets it ([%s])", r.out);
  ResetEvent (event);
  ran = run (confined, &r);
  check (ran == 0 && r.status == 0 && WaitForSingleObject (event, 0) == WAIT_TIMEOUT,
         "the command under the runner does not inherit it ([%s], stderr [%s])", r.out, r.err);
  CloseHandle (event);
}

static void
test_workspace_write_runs (void)
{
  char temp[MAX_PATH], root[MAX_PATH], private_temp[MAX_PATH + 64];
  const char *argv[] = { runner, "--workspace-sid", workspace_sid, "--write", root,
                         "--session-sid", session_sid, "--temp-dir", private_temp, "--", child,
                         "--print-env", "TEMP", NULL };
  char expected[MAX_PATH + 80];
  DWORD attributes;
  Run r;

  GetTempPathA (sizeof (temp), temp);
  snprintf (root, sizeof (root), "%sdsh-acl-wine-%lu", temp,
            (unsigned long) GetCurrentProcessId ());
  snprintf (private_temp, sizeof (private_temp), "%s\\dsh-acl-%s", root,
            "0123456789abcdef0123456789abcdef");
  CreateDirectoryA (root, NULL);
  snprintf (expected, sizeof (expected), "env:%s\r\n", private_temp);
  /* Run twice: the second call finds the ACE and the directory there already. */
  for (int round = 0; round < 2; round++)
    {
      int ran = run (argv, &r);

      check (ran == 0 && r.status == 0 && strcmp (r.out, expected) == 0,
             "workspace-write runs the command with its private TEMP, call %d (status %lu, "
             "stdout [%s], stderr [%s])", round + 1, (unsigned long) r.status, r.out, r.err);
    }
  attributes = GetFileAttributesA (private_temp);
  check (attributes != INVALID_FILE_ATTRIBUTES && (attributes & FILE_ATTRIBUTE_DIRECTORY),
         "the private temp directory exists");
  RemoveDirectoryA (private_temp);
  RemoveDirectoryA (root);
}

static int
exists (const char *path)
{
  return GetFileAttributesA (path) != INVALID_FILE_ATTRIBUTES;
}

/* A scratch directory beneath the temp area, as a writable root. */
static void
scratch_root (char *root, size_t size, const char *what)
{
  char temp[MAX_PATH];

  GetTempPathA (sizeof (temp), temp);
  snprintf (root, size, "%sdsh-acl-wine-%s-%lu", temp, what, (unsigned long) GetCurrentProcessId ());
  CreateDirectoryA (root, NULL);
}

/* An agentless call's temp directory is the runner's to remove once the command and whatever it
 * left running are gone: files, a read-only one, directories and a file a stray holds open. */
static void
test_per_call_temp_dir_removed (void)
{
  char root[MAX_PATH], private_temp[MAX_PATH + 64], expected[MAX_PATH + 80];
  const char *argv[] = { runner, "--workspace-sid", workspace_sid, "--write", root,
                         "--session-sid", session_sid, "--temp-dir", private_temp,
                         "--remove-temp-dir", "--", child, "--fill-temp", NULL };
  char a_file[MAX_PATH + 80];
  Run r;
  int ran;

  scratch_root (root, sizeof (root), "per-call");
  snprintf (private_temp, sizeof (private_temp), "%s\\dsh-acl-%s", root,
            "fedcba9876543210fedcba9876543210");
  snprintf (expected, sizeof (expected), "env:%s\r\n", private_temp);
  snprintf (a_file, sizeof (a_file), "%s\\a.txt", private_temp);

  /* Without --remove-temp-dir the residue stays: the check can see it. */
  argv[9] = "--";
  argv[10] = child;
  argv[11] = "--fill-temp";
  argv[12] = NULL;
  ran = run (argv, &r);
  check (ran == 0 && r.status == 0 && strstr (r.out, expected) != NULL && exists (a_file),
         "a session's call leaves its temp directory and what the command put there (status %lu, "
         "stdout [%s], stderr [%s])", (unsigned long) r.status, r.out, r.err);
  ends_within (stray_pid (&r), 20000);

  argv[9] = "--remove-temp-dir";
  argv[10] = "--";
  argv[11] = child;
  argv[12] = "--fill-temp";
  ran = run (argv, &r);
  check (ran == 0 && r.status == 0 && strstr (r.out, expected) != NULL && r.err[0] == '\0' &&
           !exists (private_temp) && exists (root),
         "an agentless call's temp directory is gone when the runner ends, and only it (status "
         "%lu, stdout [%s], stderr [%s])", (unsigned long) r.status, r.out, r.err);

  /* The runner's own failure after making it leaves nothing either. */
  argv[11] = "C:\\no\\such\\program.exe";
  argv[12] = NULL;
  ran = run (argv, &r);
  check (ran == 0 && r.status == DSH_ACL_FATAL_EXIT && is_one_fatal_line (r.err) &&
           !exists (private_temp),
         "a runner failure after making an agentless call's temp directory removes it (status "
         "%lu, stderr [%s])", (unsigned long) r.status, r.err);
  RemoveDirectoryA (root);
}

/* A confined command may hard-link a file it can read into its temp directory. Removing the
 * link must leave that file as it was: its read-only attribute belongs to the file, not to the
 * name, so clearing it to delete the link would change a file outside every root. */
static void
test_removal_leaves_linked_file (void)
{
  char root[MAX_PATH], private_temp[MAX_PATH + 64], outside[MAX_PATH + 16],
    link[MAX_PATH + 80];
  const char *argv[] = { runner, "--workspace-sid", workspace_sid, "--write", root,
                         "--session-sid", session_sid, "--temp-dir", private_temp,
                         "--remove-temp-dir", "--", child, "--print-env", "TEMP", NULL };
  DWORD attributes;
  Run r;
  int ran;

  scratch_root (root, sizeof (root), "hard-link");
  snprintf (private_temp, sizeof (private_temp), "%s\\dsh-acl-%s", root,
            "0f1e2d3c4b5a69788796a5b4c3d2e1f0");
  snprintf (outside, sizeof (outside), "%s\\kept.txt", root);
  snprintf (link, sizeof (link), "%s\\link.txt", private_temp);
  CreateDirectoryA (private_temp, NULL);
  {
    HANDLE file = CreateFileA (outside, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS,
                               FILE_ATTRIBUTE_NORMAL, NULL);

    if (file != INVALID_HANDLE_VALUE)
      CloseHandle (file);
  }
  SetFileAttributesA (outside, FILE_ATTRIBUTE_READONLY);
  check (CreateHardLinkA (link, outside, NULL) != 0,
         "a hard link to a read-only file is planted in the temp directory (error %lu)",
         (unsigned long) GetLastError ());
  ran = run (argv, &r);
  attributes = GetFileAttributesA (outside);
  check (ran == 0 && r.status == 0 && attributes != INVALID_FILE_ATTRIBUTES &&
           (attributes & FILE_ATTRIBUTE_READONLY) != 0,
         "removing the temp directory leaves a hard-linked file outside it read-only "
         "(status %lu, attributes 0x%lx, stderr [%s])", (unsigned long) r.status,
         (unsigned long) attributes, r.err);
  SetFileAttributesA (outside, FILE_ATTRIBUTE_NORMAL);
  DeleteFileA (link);
  DeleteFileA (outside);
  RemoveDirectoryA (private_temp);
  RemoveDirectoryA (root);
}

/* A batch file runs through cmd.exe, which splits the command line by rules of its own: on
 * Windows the argument "a&echo injected" runs a second command (Wine's cmd.exe did not split
 * there, so that part is Microsoft's documentation, not seen here). The runner refuses batch
 * files in every spelling Windows opens as one, and a control shows that Wine's CreateProcess
 * does start a batch file given as the program. */
static void
test_batch_file_refused (void)
{
  char dir[MAX_PATH], script[MAX_PATH + 16], spelled[MAX_PATH + 16];
  const char *suffixes[] = { "", ".", " ", "::$DATA", NULL };
  const char *argv[] = { runner, "--session-sid", session_sid, "--", spelled,
                         "a&echo injected", NULL };
  const char *control[] = { script, "a&echo injected", NULL };
  HANDLE file;
  DWORD written;
  Run r;
  int ran;

  scratch_root (dir, sizeof (dir), "batch");
  snprintf (script, sizeof (script), "%s\\run.bat", dir);
  file = CreateFileA (script, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL,
                      NULL);
  if (file != INVALID_HANDLE_VALUE)
    {
      const char text[] = "@echo batch-ran\r\n";

      WriteFile (file, text, sizeof (text) - 1, &written, NULL);
      CloseHandle (file);
    }
  ran = run (control, &r);
  check (ran == 0 && strstr (r.out, "batch-ran") != NULL,
         "control: started directly, the batch file runs (status %lu, stdout [%s])",
         (unsigned long) r.status, r.out);
  for (size_t i = 0; suffixes[i] != NULL; i++)
    {
      snprintf (spelled, sizeof (spelled), "%s%s", script, suffixes[i]);
      ran = run (argv, &r);
      check (ran == 0 && r.status == DSH_ACL_FATAL_EXIT && is_one_fatal_line (r.err) &&
               strstr (r.err, "batch file") != NULL && strstr (r.out, "batch-ran") == NULL &&
               strstr (r.out, "injected") == NULL,
             "the runner refuses the batch file [%s] and runs nothing (status %lu, stdout [%s], "
             "stderr [%s])", spelled, (unsigned long) r.status, r.out, r.err);
    }
  DeleteFileA (script);
  RemoveDirectoryA (dir);
}

/* Does out hold "self:" and then, in any case, a path ending in tail? */
static int
ran_from (const Run *r, const char *tail)
{
  const char *self = strstr (r->out, "self:");
  const char *end = self != NULL ? strchr (self, '\r') : NULL;
  size_t len = strlen (tail);

  return end != NULL && (size_t) (end - self) >= 5 + len && _strnicmp (end - len, tail, len) == 0;
}

/* A bare program name is looked up only on PATH, never in the runner's current directory (the
 * workspace, which an earlier confined command could write): Windows' own search looks there
 * before the system directories and PATH, so a planted hostname.exe or git.exe would run in
 * place of the real one. Relative, empty and "." PATH entries are skipped for the same reason;
 * a name with a directory is still used as given. */
static void
test_bare_name_searches_path_only (void)
{
  char base[MAX_PATH], cwd[MAX_PATH + 8], bin[MAX_PATH + 8], rel[MAX_PATH + 16];
  char system[MAX_PATH], real_hostname[MAX_PATH + 16];
  char planted[5][MAX_PATH + 48];
  const char *old_path = getenv ("PATH");
  char *saved_path = old_path != NULL ? _strdup (old_path) : NULL;
  char *path;
  const char *probe[] = { runner, "--session-sid", session_sid, "--", "dsh-acl-probe",
                          "--print-self", NULL };
  const char *probe_exe[] = { runner, "--session-sid", session_sid, "--", "dsh-acl-probe.exe",
                              "--print-self", NULL };
  const char *hostname[] = { runner, "--session-sid", session_sid, "--", "hostname", NULL };
  const char *nowhere[] = { runner, "--session-sid", session_sid, "--", "dsh-acl-planted",
                            "--print-self", NULL };
  const char *relative[] = { runner, "--session-sid", session_sid, "--",
                             ".\\dsh-acl-probe.exe", "--print-self", NULL };
  const char *relative_dir[] = { runner, "--session-sid", session_sid, "--",
                                 "rel/dsh-acl-planted.exe", "--print-self", NULL };
  Run r;
  int ran;

  scratch_root (base, sizeof (base), "search");
  snprintf (cwd, sizeof (cwd), "%s\\cwd", base);
  snprintf (bin, sizeof (bin), "%s\\bin", base);
  snprintf (rel, sizeof (rel), "%s\\cwd\\rel", base);
  CreateDirectoryA (cwd, NULL);
  CreateDirectoryA (bin, NULL);
  CreateDirectoryA (rel, NULL);
  /* The one on PATH, and what a confined command could have left in the working directory:
   * the same name, a system program's name, and one found nowhere else (also beneath a
   * relative PATH entry). */
  snprintf (planted[0], sizeof (planted[0]), "%s\\dsh-acl-probe.exe", bin);
  snprintf (planted[1], sizeof (planted[1]), "%s\\dsh-acl-probe.exe", cwd);
  snprintf (planted[2], sizeof (planted[2]), "%s\\hostname.exe", cwd);
  snprintf (planted[3], sizeof (planted[3]), "%s\\dsh-acl-planted.exe", cwd);
  snprintf (planted[4], sizeof (planted[4]), "%s\\dsh-acl-planted.exe", rel);
  for (size_t i = 0; i < 5; i++)
    {
      BOOL copied = CopyFileA (child, planted[i], FALSE);

      check (copied, "the probe is copied to %s (error %lu)", planted[i],
             copied ? 0ul : (unsigned long) GetLastError ());
    }

  path = malloc (strlen (bin) + (saved_path != NULL ? strlen (saved_path) : 0) + 16);
  sprintf (path, ".;;rel;%s;%s", bin, saved_path != NULL ? saved_path : "");
  SetEnvironmentVariableA ("PATH", path);

  ran = run_in (probe, cwd, &r);
  check (ran == 0 && r.status == 0 && ran_from (&r, "\\bin\\dsh-acl-probe.exe"),
         "a bare name runs the program on PATH, not the one planted in the working directory "
         "(status %lu, stdout [%s], stderr [%s])", (unsigned long) r.status, r.out, r.err);
  ran = run_in (probe_exe, cwd, &r);
  check (ran == 0 && r.status == 0 && ran_from (&r, "\\bin\\dsh-acl-probe.exe"),
         "so does a bare name with its extension (status %lu, stdout [%s], stderr [%s])",
         (unsigned long) r.status, r.out, r.err);

  GetSystemDirectoryA (system, sizeof (system));
  snprintf (real_hostname, sizeof (real_hostname), "%s\\hostname.exe", system);
  if (exists (real_hostname))
    {
      ran = run_in (hostname, cwd, &r);
      check (ran == 0 && r.status == 0 && r.out[0] != '\0' &&
               strstr (r.err, "acl-print-argv") == NULL,
             "hostname runs the system's hostname.exe, not the one planted in the working "
             "directory (status %lu, stdout [%s], stderr [%s])", (unsigned long) r.status, r.out,
             r.err);
    }
  else
    printf ("# no %s: the system program's name is not tried\n", real_hostname);

  ran = run_in (nowhere, cwd, &r);
  check (ran == 0 && r.status == DSH_ACL_FATAL_EXIT && is_one_fatal_line (r.err) &&
           strstr (r.err, "cannot find dsh-acl-planted on PATH") != NULL && r.out[0] == '\0',
         "a bare name found only in the working directory and beneath relative PATH entries "
         "fails closed and runs nothing (status %lu, stdout [%s], stderr [%s])",
         (unsigned long) r.status, r.out, r.err);

  ran = run_in (relative, cwd, &r);
  check (ran == 0 && r.status == 0 && ran_from (&r, "\\cwd\\dsh-acl-probe.exe"),
         "a name with a directory is used as given: .\\ is the working directory (status %lu, "
         "stdout [%s], stderr [%s])", (unsigned long) r.status, r.out, r.err);
  ran = run_in (relative_dir, cwd, &r);
  check (ran == 0 && r.status == 0 && ran_from (&r, "\\rel\\dsh-acl-planted.exe"),
         "and so is rel/NAME.exe (status %lu, stdout [%s], stderr [%s])",
         (unsigned long) r.status, r.out, r.err);

  SetEnvironmentVariableA ("PATH", saved_path);
  for (size_t i = 0; i < 5; i++)
    DeleteFileA (planted[i]);
  RemoveDirectoryA (rel);
  RemoveDirectoryA (cwd);
  RemoveDirectoryA (bin);
  RemoveDirectoryA (base);
  free (path);
  free (saved_path);
}

/* A root whose way leads elsewhere (scripts/cross-windows.sh makes ws\\a a link to outside) is
 * refused, not granted where the link leads: a junction a concurrent confined command planted
 * after the core resolved the root. */
static void
test_root_through_link_refused (void)
{
  const char *fixture = getenv ("DSH_ACL_WINE_LINK_FIXTURE");
  char root[MAX_PATH];
  const char *argv[] = { runner, "--workspace-sid", workspace_sid, "--write", root,
                         "--session-sid", session_sid, "--", child, "--print-env", "TEMP",
                         NULL };
  char *base;
  Run r;
  int ran;

  if (fixture == NULL)
    {
      printf ("# no DSH_ACL_WINE_LINK_FIXTURE: the root through a link is not tried\n");
      return;
    }
  base = windows_path (fixture);
  snprintf (root, sizeof (root), "%s\\ws\\a\\proj", base);
  ran = run (argv, &r);
  check (ran == 0 && r.status == DSH_ACL_FATAL_EXIT && is_one_fatal_line (r.err) &&
           strstr (r.err, "leads elsewhere") != NULL && r.out[0] == '\0',
         "a root reached through a link on the way is refused, and nothing runs (status %lu, "
         "stdout [%s], stderr [%s])", (unsigned long) r.status, r.out, r.err);
  free (base);
}

/* A session's temp directories go when its provider ends: the module's instance_free. */
static void
test_instance_free_removes_temp_dirs (void)
{
  wchar_t *path = wide (dll);
  HMODULE module = LoadLibraryW (path);
  DshBackendDescribeFunc describe =
    module != NULL ? (DshBackendDescribeFunc) (void (*) (void)) GetProcAddress (
                       module, "dsh_backend_acl_describe")
                   : NULL;
  const DshBackendDescriptor *desc = describe != NULL ? describe () : NULL;
  char root[MAX_PATH], temp_area[MAX_PATH + 16];
  const char *roots[] = { root, temp_area, NULL };
  const char *command[] = { child, "--fill-temp", NULL };
  const DshBackendPolicy policy = { .mode = DSH_BACKEND_MODE_WORKSPACE_WRITE,
                                    .workspace_root = root, .session_id = "session-1",
                                    .writable_roots = roots };
  char *temp_dir = NULL;
  MiniHost mini = { 0 };
  void *instance;
  Run r;

  check (desc != NULL, "the DLL loads for the instance test");
  if (desc == NULL)
    return;
  scratch_root (root, sizeof (root), "instance");
  snprintf (temp_area, sizeof (temp_area), "%s\\temp", root);
  CreateDirectoryA (temp_area, NULL);
  mini_temp = temp_area;
  instance = mini_host_init (&mini, desc);
  check (desc->confine (&mini.host, &policy, command) == 0,
         "a session's workspace-write call is confined (%s)", mini.error);
  mini.argv[mini.argc] = NULL;
  for (size_t i = 0; i + 1 < mini.argc; i++)
    {
      if (strcmp (mini.argv[i], "--temp-dir") == 0)
        temp_dir = _strdup (mini.argv[i + 1]);
    }
  check (temp_dir != NULL && strncmp (temp_dir, temp_area, strlen (temp_area)) == 0,
         "its temp directory is beneath the temp area (%s)", temp_dir);
  if (temp_dir == NULL || run (mini.argv, &r) != 0)
    return;
  ends_within (stray_pid (&r), 20000);
  check (r.status == 0 && exists (temp_dir),
         "after the call the session's temp directory stays for its next call (status %lu, "
         "stderr [%s])", (unsigned long) r.status, r.err);
  desc->instance_free (instance);
  check (!exists (temp_dir) && exists (temp_area),
         "when the provider ends, its instance removes the session's temp directory, and only it");
  mini_temp = NULL;
  RemoveDirectoryA (temp_area);
  RemoveDirectoryA (root);
  free (temp_dir);
  FreeLibrary (module);
  free (path);
}

int
main (int argc, char **argv)
{
  if (argc != 4)
    {
      fprintf (stderr, "usage: test-acl-wine RUNNER CHILD DLL\n");
      return 2;
    }
  runner = windows_path (argv[1]);
  child = windows_path (argv[2]);
  dll = windows_path (argv[3]);

  test_dll ();
  test_refusals ();
  test_profile_refused ();
  test_profile_respelled_refused ();
  test_exit_codes ();
  test_argv_exact ();
  test_job_kills_stray ();
  test_breakaway_refused ();
  test_only_standard_handles ();
  test_workspace_write_runs ();
  test_per_call_temp_dir_removed ();
  test_removal_leaves_linked_file ();
  test_root_through_link_refused ();
  test_batch_file_refused ();
  test_bare_name_searches_path_only ();
  test_instance_free_removes_temp_dirs ();
  printf ("1..%d\n", checks);
  return failures == 0 ? 0 : 1;
}
