/* dsh-acl-exec.c — the Windows ACL runner: runs one command under a write-restricted token whose
 * restricting SIDs are the session SID (and the workspace SID under workspace-write) and the
 * NUL device's SID, so the command may write only where one of those SIDs is granted.
 *
 *   dsh-acl-exec.exe [--workspace-sid SID] [--write ROOT]... --session-sid SID
 *                    [--temp-dir DIR [--remove-temp-dir]] -- ARGV...
 *
 * Before it starts the command it makes sure each root carries the standing inheritable ACE of
 * the workspace SID (added only when missing), creates the private temp directory granted to the
 * session SID, and makes sure the NUL device is granted to the one SID every confined command
 * holds. The command runs in a job that kills everything left in it when the runner ends, and
 * its exit status is the runner's; an agentless call's temp directory is removed once the job is
 * empty. A bare program name is found on the command's PATH alone, never in the current
 * directory (the workspace). When the runner itself fails it prints one "dsh-acl-exec: fatal:
 * ..." line and exits 125.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef UNICODE
#define UNICODE
#endif
#include <windows.h>
#include <aclapi.h>
#include <sddl.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsh-acl-cmdline.h"
#include "dsh-acl-plan.h"
#include "dsh-acl-program.h"
#include "dsh-acl-program-search.h"
#include "dsh-acl-remove-tree.h"
#include "dsh-acl-roots.h"
#include "dsh-acl-runner-args.h"
#include "dsh-acl-runner-plan.h"

/* What a restricting SID gets on a root or the temp directory: read, write, execute, delete. */
#define GRANT_MODIFY (FILE_GENERIC_READ | FILE_GENERIC_WRITE | FILE_GENERIC_EXECUTE | DELETE)
#define GRANT_INHERIT (OBJECT_INHERIT_ACE | CONTAINER_INHERIT_ACE)

/* An agentless call's temp directory once made: a failure after that must not leave it. */
static const char *made_per_call_temp_dir;

static void __attribute__ ((noreturn, format (printf, 1, 2)))
fatal (const char *format, ...)
{
  va_list args;
  char error[600];

  if (made_per_call_temp_dir != NULL)
    (void) dsh_acl_remove_tree (made_per_call_temp_dir, error, sizeof (error));

  fputs (DSH_ACL_FATAL_PREFIX, stderr);
  va_start (args, format);
  vfprintf (stderr, format, args);
  va_end (args);
  fputc ('\n', stderr);
  fflush (stderr);
  ExitProcess (DSH_ACL_FATAL_EXIT);
}

/* "Windows error N" and the system's sentence for it, on one line. */
static const char *
describe_error (DWORD code)
{
  static char text[300];
  char message[256] = "";
  size_t len;

  FormatMessageA (FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, code, 0,
                  message, sizeof (message), NULL);
  len = strlen (message);
  while (len > 0 && (message[len - 1] == '\r' || message[len - 1] == '\n' ||
                     message[len - 1] == ' ' || message[len - 1] == '.'))
    message[--len] = '\0';
  for (char *p = message; *p != '\0'; p++)
    {
      if (*p == '\r' || *p == '\n')
        *p = ' ';
    }
  snprintf (text, sizeof (text), "Windows error %lu%s%s", (unsigned long) code,
            message[0] != '\0' ? ": " : "", message);
  return text;
}

static wchar_t *
to_wide (const char *text)
{
  int n = MultiByteToWideChar (CP_UTF8, MB_ERR_INVALID_CHARS, text, -1, NULL, 0);
  wchar_t *wide;

  if (n <= 0)
    fatal ("an argument is not valid UTF-8");
  wide = malloc ((size_t) n * sizeof (wchar_t));
  if (wide == NULL || MultiByteToWideChar (CP_UTF8, MB_ERR_INVALID_CHARS, text, -1, wide, n) != n)
    fatal ("out of memory");
  return wide;
}

static char *
to_utf8 (const wchar_t *wide)
{
  int n = WideCharToMultiByte (CP_UTF8, WC_ERR_INVALID_CHARS, wide, -1, NULL, 0, NULL, NULL);
  char *text;

  if (n <= 0)
    fatal ("the command line is not valid UTF-16");
  text = malloc ((size_t) n);
  if (text == NULL ||
      WideCharToMultiByte (CP_UTF8, WC_ERR_INVALID_CHARS, wide, -1, text, n, NULL, NULL) != n)
    fatal ("out of memory");
  return text;
}

static PSID
parse_sid (const char *text)
{
  wchar_t *wide = to_wide (text);
  PSID sid = NULL;

  if (!ConvertStringSidToSidW (wide, &sid))
    fatal ("cannot use the SID %s: %s", text, describe_error (GetLastError ()));
  free (wide);
  return sid;
}

/* The profile directory the root rules protect, or NULL when the environment names none. */
static char *
profile_directory (void)
{
  wchar_t buf[MAX_PATH + 1];
  DWORD n = GetEnvironmentVariableW (L"USERPROFILE", buf, MAX_PATH + 1);

  return n > 0 && n <= MAX_PATH ? to_utf8 (buf) : NULL;
}

/* Opens a directory itself, never what a symlink or junction in its place points to. */
static HANDLE
open_directory (const char *path, DWORD access)
{
  wchar_t *wide = to_wide (path);
  HANDLE handle = CreateFileW (wide, access, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                               NULL, OPEN_EXISTING,
                               FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT, NULL);
  BY_HANDLE_FILE_INFORMATION info;

  free (wide);
  if (handle == INVALID_HANDLE_VALUE)
    fatal ("cannot open %s: %s", path, describe_error (GetLastError ()));
  if (!GetFileInformationByHandle (handle, &info))
    fatal ("cannot inspect %s: %s", path, describe_error (GetLastError ()));
  if ((info.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) != 0)
    fatal ("%s is a symbolic link or junction, not a directory", path);
  if ((info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) == 0)
    fatal ("%s is not a directory", path);
  return handle;
}

/* The path Windows itself has for an open object (\\?\C:\...), with short names, substituted
 * drives and other spellings resolved; NULL when it has none. */
static char *
final_path (HANDLE handle)
{
  DWORD n = GetFinalPathNameByHandleW (handle, NULL, 0, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
  wchar_t *buf;
  char *path;

  if (n == 0)
    return NULL;
  buf = malloc ((n + 1) * sizeof (wchar_t));
  if (buf == NULL)
    fatal ("out of memory");
  if (GetFinalPathNameByHandleW (handle, buf, n + 1, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS) == 0)
    {
      free (buf);
      return NULL;
    }
  path = to_utf8 (buf);
  free (buf);
  return path;
}

/* The directory at path as Windows spells it once opened, or NULL when it cannot be opened. */
static char *
opened_directory (const char *path)
{
  wchar_t *wide = to_wide (path);
  HANDLE handle;
  char *opened;

  handle = CreateFileW (wide, FILE_READ_ATTRIBUTES,
                        FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                        OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
  free (wide);
  if (handle == INVALID_HANDLE_VALUE)
    return NULL;
  opened = final_path (handle);
  CloseHandle (handle);
  return opened;
}

/* The profile directory as Windows spells it once opened, or as the environment does. */
static char *
resolved_profile (void)
{
  char *profile = profile_directory ();
  char *resolved;

  if (profile == NULL)
    return NULL;
  resolved = opened_directory (profile);
  if (resolved == NULL)
    return profile;
  free (profile);
  return resolved;
}

/* The rules the arguments passed, again on what was really opened: a short name, a substituted
 * drive or another spelling must not smuggle in a drive root or the profile directory. */
static void
check_opened (HANDLE handle, const char *path, const char *profile)
{
  char *opened = final_path (handle);
  const char *refusal;

  if (opened == NULL)
    fatal ("cannot tell which directory %s is: %s", path, describe_error (GetLastError ()));
  refusal = dsh_acl_root_refusal (opened, profile);
  if (refusal != NULL)
    fatal ("refusing to grant write access to %s (%s): %s", path, opened, refusal);
  free (opened);
}

/* Does dacl already allow sid at least mask, with these inheritance flags? */
static BOOL
has_grant (PACL dacl, PSID sid, ACCESS_MASK mask, BYTE inherit)
{
  for (DWORD i = 0; dacl != NULL && i < dacl->AceCount; i++)
    {
      ACCESS_ALLOWED_ACE *ace;

      if (!GetAce (dacl, i, (void **) &ace) || ace->Header.AceType != ACCESS_ALLOWED_ACE_TYPE)
        continue;
      if ((ace->Header.AceFlags & INHERIT_ONLY_ACE) != 0 ||
          (ace->Header.AceFlags & GRANT_INHERIT) != inherit)
        continue;
      if ((ace->Mask & mask) == mask && EqualSid ((PSID) &ace->SidStart, sid))
        return TRUE;
    }
  return FALSE;
}

/* Adds the grant of sid to the object behind handle unless it is there already: a standing ACE
 * is written once, not on every call. Setting an inheritable ACE on a directory carries it to
 * what the directory already holds. */
static void
ensure_grant (HANDLE handle, const char *what, PSID sid, ACCESS_MASK mask, BYTE inherit)
{
  PSECURITY_DESCRIPTOR descriptor = NULL;
  PACL dacl = NULL, new_dacl = NULL;
  EXPLICIT_ACCESSW access = { 0 };
  DWORD rc;

  rc = GetSecurityInfo (handle, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL, &dacl,
                        NULL, &descriptor);
  if (rc != ERROR_SUCCESS)
    fatal ("cannot read the ACL of %s: %s", what, describe_error (rc));
  if (has_grant (dacl, sid, mask, inherit))
    {
      LocalFree (descriptor);
      return;
    }
  access.grfAccessPermissions = mask;
  access.grfAccessMode = GRANT_ACCESS;
  access.grfInheritance = inherit == GRANT_INHERIT ? SUB_CONTAINERS_AND_OBJECTS_INHERIT
                                                   : NO_INHERITANCE;
  access.Trustee.TrusteeForm = TRUSTEE_IS_SID;
  access.Trustee.TrusteeType = TRUSTEE_IS_UNKNOWN;
  access.Trustee.ptstrName = (LPWSTR) sid;
  rc = SetEntriesInAclW (1, &access, dacl, &new_dacl);
  if (rc != ERROR_SUCCESS)
    fatal ("cannot build the ACL of %s: %s", what, describe_error (rc));
  rc = SetSecurityInfo (handle, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL, new_dacl,
                        NULL);
  if (rc != ERROR_SUCCESS)
    fatal ("cannot grant %s: %s", what, describe_error (rc));
  LocalFree (new_dacl);
  LocalFree (descriptor);
}

static void
grant_directory (const char *path, PSID sid, const char *profile)
{
  HANDLE handle = open_directory (path, READ_CONTROL | WRITE_DAC);

  check_opened (handle, path, profile);
  ensure_grant (handle, path, sid, GRANT_MODIFY, GRANT_INHERIT);
  CloseHandle (handle);
}

/* The shared temp area the private temp directory is made in, as Windows spells it once opened;
 * NULL without a temp directory, or when its parent cannot be opened (making the directory then
 * fails, named). */
static char *
opened_temp_area (const char *temp_dir)
{
  char *area = temp_dir != NULL ? dsh_acl_temp_area (temp_dir) : NULL;
  char *opened;

  if (area == NULL)
    return NULL;
  opened = opened_directory (area);
  free (area);
  return opened;
}

/* A root is granted unless it is the shared temp area under another spelling: the planner
 * withholds that area by how TEMP spells it, and a short name in TEMP (C:\Users\RUNNER~1\...)
 * hides it from that check. Its standing grant would reach every other program's temp files
 * and every session's private temp directory. */
static void
grant_root (const char *path, PSID sid, const char *profile, const char *temp_area)
{
  HANDLE handle = open_directory (path, READ_CONTROL | WRITE_DAC);
  char *opened = final_path (handle);
  const char *refusal;

  if (opened == NULL)
    fatal ("cannot tell which directory %s is: %s", path, describe_error (GetLastError ()));
  /* The rules, and that a junction planted on the way since the core resolved the root did not
   * lead the open elsewhere (the standing grant would land there). */
  refusal = dsh_acl_opened_root_refusal (path, opened, profile);
  if (refusal != NULL)
    fatal ("refusing to grant write access to %s (%s): %s", path, opened, refusal);
  if (!dsh_acl_is_temp_area (opened, temp_area))
    ensure_grant (handle, path, sid, GRANT_MODIFY, GRANT_INHERIT);
  free (opened);
  CloseHandle (handle);
}

/* The private temp directory: new on a session's first call, its own on every later one. */
static void
prepare_temp_dir (const char *path, PSID session_sid, const char *profile)
{
  wchar_t *wide = to_wide (path);

  if (!CreateDirectoryW (wide, NULL) && GetLastError () != ERROR_ALREADY_EXISTS)
    fatal ("cannot create the temp directory %s: %s", path, describe_error (GetLastError ()));
  grant_directory (path, session_sid, profile);
  /* Programs find their temp area here instead of the shared one. */
  if (!SetEnvironmentVariableW (L"TEMP", wide) || !SetEnvironmentVariableW (L"TMP", wide))
    fatal ("cannot set TEMP: %s", describe_error (GetLastError ()));
  free (wide);
}

/* Shells and tools write to NUL even under read-only. The device is one object for the whole
 * machine: its grant goes to the one fixed SID, so it is written once, not once per session. */
static void
grant_null_device (PSID null_device_sid)
{
  HANDLE handle = CreateFileW (L"\\\\.\\NUL", READ_CONTROL | WRITE_DAC,
                               FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_EXISTING, 0, NULL);

  if (handle == INVALID_HANDLE_VALUE)
    fatal ("cannot open the NUL device to grant it: %s", describe_error (GetLastError ()));
  /* Specific rights: generic ones are mapped when stored and would never be found again. */
  ensure_grant (handle, "the NUL device", null_device_sid, FILE_GENERIC_READ | FILE_GENERIC_WRITE,
                0);
  CloseHandle (handle);
}

/* Objects the command creates (pipes, its own threads) are granted to the session SID as well,
 * or the restricted token could not write what it made. */
static void
extend_default_dacl (HANDLE token, PSID session_sid)
{
  TOKEN_DEFAULT_DACL *current = NULL;
  TOKEN_DEFAULT_DACL updated;
  EXPLICIT_ACCESSW access = { 0 };
  PACL new_dacl = NULL;
  DWORD size = 0;
  DWORD rc;

  GetTokenInformation (token, TokenDefaultDacl, NULL, 0, &size);
  current = malloc (size > 0 ? size : 1);
  if (current == NULL || !GetTokenInformation (token, TokenDefaultDacl, current, size, &size))
    fatal ("cannot read the token's default ACL: %s", describe_error (GetLastError ()));
  access.grfAccessPermissions = GENERIC_ALL;
  access.grfAccessMode = GRANT_ACCESS;
  access.grfInheritance = NO_INHERITANCE;
  access.Trustee.TrusteeForm = TRUSTEE_IS_SID;
  access.Trustee.TrusteeType = TRUSTEE_IS_UNKNOWN;
  access.Trustee.ptstrName = (LPWSTR) session_sid;
  rc = SetEntriesInAclW (1, &access, current->DefaultDacl, &new_dacl);
  if (rc != ERROR_SUCCESS)
    fatal ("cannot build the token's default ACL: %s", describe_error (rc));
  updated.DefaultDacl = new_dacl;
  if (!SetTokenInformation (token, TokenDefaultDacl, &updated, sizeof (updated)))
    fatal ("cannot set the token's default ACL: %s", describe_error (GetLastError ()));
  LocalFree (new_dacl);
  free (current);
}

static HANDLE
restricted_token (const DshAclRunnerPlan *plan, PSID session_sid)
{
  SID_AND_ATTRIBUTES restricting[3] = { { NULL, 0 } };
  HANDLE token, restricted;

  for (size_t i = 0; i < plan->n_restricting_sids; i++)
    restricting[i].Sid = parse_sid (plan->restricting_sids[i]);

  if (!OpenProcessToken (GetCurrentProcess (),
                         TOKEN_DUPLICATE | TOKEN_QUERY | TOKEN_ASSIGN_PRIMARY |
                           TOKEN_ADJUST_DEFAULT | TOKEN_ADJUST_SESSIONID,
                         &token))
    fatal ("cannot open the runner's token: %s", describe_error (GetLastError ()));
  /* Privileges such as backup and restore would bypass every ACL: none are kept. */
  if (!CreateRestrictedToken (token, DISABLE_MAX_PRIVILEGE | WRITE_RESTRICTED, 0, NULL, 0, NULL,
                              (DWORD) plan->n_restricting_sids, restricting, &restricted))
    fatal ("cannot create the write-restricted token: %s", describe_error (GetLastError ()));
  CloseHandle (token);
  for (size_t i = 0; i < plan->n_restricting_sids; i++)
    LocalFree (restricting[i].Sid);
  extend_default_dacl (restricted, session_sid);
  return restricted;
}

/* A job that kills whatever is still in it when its last handle closes: the runner's end. */
static HANDLE
kill_on_close_job (void)
{
  JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits = { 0 };
  HANDLE job = CreateJobObjectW (NULL, NULL);

  if (job == NULL)
    fatal ("cannot create the job object: %s", describe_error (GetLastError ()));
  limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
  if (!SetInformationJobObject (job, JobObjectExtendedLimitInformation, &limits,
                                sizeof (limits)))
    fatal ("cannot make the job kill on close: %s", describe_error (GetLastError ()));
  return job;
}

/* The command inherits its standard handles and nothing else the runner may hold: an attribute
 * list names exactly those, made inheritable. Returns how many distinct handles there are. */
static DWORD
standard_handles (HANDLE handles[3])
{
  const DWORD which[] = { STD_INPUT_HANDLE, STD_OUTPUT_HANDLE, STD_ERROR_HANDLE };
  DWORD n = 0;

  for (int i = 0; i < 3; i++)
    {
      HANDLE handle = GetStdHandle (which[i]);
      int seen = 0;

      if (handle == NULL || handle == INVALID_HANDLE_VALUE)
        continue;
      for (DWORD j = 0; j < n; j++)
        seen |= handles[j] == handle;
      if (seen)
        continue;
      if (!SetHandleInformation (handle, HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT))
        fatal ("cannot pass standard handle %d to the command: %s", i,
               describe_error (GetLastError ()));
      handles[n++] = handle;
    }
  return n;
}

static LPPROC_THREAD_ATTRIBUTE_LIST
inherit_only (HANDLE handles[3], DWORD n)
{
  LPPROC_THREAD_ATTRIBUTE_LIST list;
  SIZE_T size = 0;

  InitializeProcThreadAttributeList (NULL, 1, 0, &size);
  list = malloc (size);
  if (list == NULL || !InitializeProcThreadAttributeList (list, 1, 0, &size))
    fatal ("cannot prepare the handle list: %s", describe_error (GetLastError ()));
  if (n > 0 && !UpdateProcThreadAttribute (list, 0, PROC_THREAD_ATTRIBUTE_HANDLE_LIST, handles,
                                           n * sizeof (HANDLE), NULL, NULL))
    fatal ("cannot limit the handles the command inherits: %s",
           describe_error (GetLastError ()));
  return list;
}

static int
is_file (const char *path, void *data)
{
  wchar_t *wide = to_wide (path);
  DWORD attributes = GetFileAttributesW (wide);

  free (wide);
  return attributes != INVALID_FILE_ATTRIBUTES && (attributes & FILE_ATTRIBUTE_DIRECTORY) == 0;
}

/* PATH as the command gets it (the runner's own environment), "" when it has none. */
static char *
command_path (const char *program)
{
  DWORD n = GetEnvironmentVariableW (L"PATH", NULL, 0);
  wchar_t *wide;
  char *path;

  if (n == 0)
    {
      path = strdup ("");
      if (path == NULL)
        fatal ("out of memory");
      return path;
    }
  wide = malloc ((size_t) n * sizeof (wchar_t));
  if (wide == NULL || GetEnvironmentVariableW (L"PATH", wide, n) >= n)
    fatal ("cannot read PATH: %s", describe_error (GetLastError ()));
  if (WideCharToMultiByte (CP_UTF8, WC_ERR_INVALID_CHARS, wide, -1, NULL, 0, NULL, NULL) <= 0)
    fatal ("PATH is not valid UTF-16: %s cannot be looked up on it", program);
  path = to_utf8 (wide);
  free (wide);
  return path;
}

/* The file to start for program, as lpApplicationName: NULL for a name with a directory or a
 * drive, which CreateProcess opens as given; else the first match on PATH. Left to
 * CreateProcess, a bare name is looked up in the runner's directory and its current directory
 * (the workspace, where an earlier confined command could have planted git.exe) before PATH. */
static wchar_t *
program_to_start (const char *program)
{
  char *path, *found = NULL;
  wchar_t *wide;
  int rc;

  if (!dsh_acl_program_is_bare (program))
    return NULL;
  path = command_path (program);
  rc = dsh_acl_program_search (program, path, is_file, NULL, &found);
  free (path);
  if (rc < 0)
    fatal ("out of memory");
  if (rc > 0)
    fatal ("cannot find %s on PATH (the current directory is not searched)", program);
  /* The name passed the batch-file rule; what is started must too. */
  if (dsh_acl_program_is_batch (found))
    fatal ("cannot run %s (%s): it " DSH_ACL_BATCH_REFUSAL, program, found);
  wide = to_wide (found);
  free (found);
  return wide;
}

static DWORD
run_command (HANDLE token, HANDLE job, const char *const *command)
{
  STARTUPINFOEXW startup_ex = { .StartupInfo.cb = sizeof (startup_ex) };
  STARTUPINFOW *startup = &startup_ex.StartupInfo;
  HANDLE inherited[3];
  DWORD n_inherited = standard_handles (inherited);
  PROCESS_INFORMATION process;
  const char *error = NULL;
  char *line = dsh_acl_cmdline_encode (command, &error);
  wchar_t *wide_program, *wide_line;
  DWORD status;

  if (line == NULL)
    fatal ("cannot write the command line: %s", error);
  wide_program = program_to_start (command[0]);
  wide_line = to_wide (line);
  if (wcslen (wide_line) > DSH_ACL_CMDLINE_MAX)
    fatal ("the command line is longer than Windows allows");
  startup->dwFlags = STARTF_USESTDHANDLES;
  startup->hStdInput = GetStdHandle (STD_INPUT_HANDLE);
  startup->hStdOutput = GetStdHandle (STD_OUTPUT_HANDLE);
  startup->hStdError = GetStdHandle (STD_ERROR_HANDLE);
  startup_ex.lpAttributeList = inherit_only (inherited, n_inherited);
  /* Suspended until it is in the job, so nothing it starts can escape the job. */
  if (!CreateProcessAsUserW (token, wide_program, wide_line, NULL, NULL, n_inherited > 0,
                             CREATE_SUSPENDED | EXTENDED_STARTUPINFO_PRESENT, NULL, NULL,
                             startup, &process))
    fatal ("cannot start %s: %s", command[0], describe_error (GetLastError ()));
  DeleteProcThreadAttributeList (startup_ex.lpAttributeList);
  free (startup_ex.lpAttributeList);
  if (!AssignProcessToJobObject (job, process.hProcess))
    {
      DWORD code = GetLastError ();

      TerminateProcess (process.hProcess, DSH_ACL_FATAL_EXIT);
      fatal ("cannot put the command in the job: %s", describe_error (code));
    }
  if (ResumeThread (process.hThread) == (DWORD) -1)
    {
      DWORD code = GetLastError ();

      TerminateProcess (process.hProcess, DSH_ACL_FATAL_EXIT);
      fatal ("cannot resume the command: %s", describe_error (code));
    }
  CloseHandle (process.hThread);
  if (WaitForSingleObject (process.hProcess, INFINITE) != WAIT_OBJECT_0 ||
      !GetExitCodeProcess (process.hProcess, &status))
    fatal ("cannot wait for the command: %s", describe_error (GetLastError ()));
  CloseHandle (process.hProcess);
  free (wide_line);
  free (wide_program);
  free (line);
  return status;
}

/* Ends whatever the command left in the job and waits until it is gone (a bounded while), so
 * that nothing still writes into what is removed next. */
static void
empty_job (HANDLE job)
{
  JOBOBJECT_BASIC_ACCOUNTING_INFORMATION accounting;

  TerminateJobObject (job, DSH_ACL_FATAL_EXIT);
  for (int i = 0; i < 500; i++)
    {
      if (!QueryInformationJobObject (job, JobObjectBasicAccountingInformation, &accounting,
                                      sizeof (accounting), NULL) ||
          accounting.ActiveProcesses == 0)
        return;
      Sleep (10);
    }
}

/* After the command ran its status is the runner's, so a temp directory that cannot be removed
 * is told on one line, never as the runner's failure. */
static void
remove_temp_dir (const char *path)
{
  char error[600];

  if (dsh_acl_remove_tree (path, error, sizeof (error)) != 0)
    {
      fprintf (stderr, "dsh-acl-exec: warning: the temp directory stays: %s\n", error);
      fflush (stderr);
    }
}

int
main (void)
{
  char *cmdline = to_utf8 (GetCommandLineW ());
  char **argv = dsh_acl_cmdline_decode (cmdline);
  char *profile = resolved_profile ();
  DshAclRunnerArgs args;
  DshAclRunnerPlan plan;
  PSID session_sid;
  char *temp_area;
  HANDLE token, job;
  DWORD status;

  if (argv == NULL)
    fatal ("out of memory");
  if (dsh_acl_runner_args_parse (&args, (const char *const *) argv, profile) != 0)
    fatal ("%s", args.error);
  if (dsh_acl_runner_plan (&plan, &args) != 0)
    fatal ("out of memory");

  session_sid = parse_sid (args.session_sid);
  temp_area = opened_temp_area (args.temp_dir);
  for (size_t i = 0; i < plan.n_grants; i++)
    {
      const DshAclGrant *grant = &plan.grants[i];
      PSID sid = parse_sid (grant->sid);

      switch (grant->kind)
        {
        case DSH_ACL_GRANT_ROOT:
          grant_root (grant->path, sid, profile, temp_area);
          break;
        case DSH_ACL_GRANT_TEMP_DIR:
          if (args.remove_temp_dir)
            made_per_call_temp_dir = grant->path;
          prepare_temp_dir (grant->path, sid, profile);
          break;
        case DSH_ACL_GRANT_NULL_DEVICE:
          grant_null_device (sid);
          break;
        }
      LocalFree (sid);
    }
  free (temp_area);

  token = restricted_token (&plan, session_sid);
  job = kill_on_close_job ();
  status = run_command (token, job, args.command);
  if (args.remove_temp_dir)
    {
      empty_job (job);
      remove_temp_dir (args.temp_dir);
    }
  /* Closing the job ends whatever the command left running. */
  CloseHandle (job);
  CloseHandle (token);
  LocalFree (session_sid);
  dsh_acl_runner_plan_clear (&plan);
  dsh_acl_runner_args_clear (&args);
  return (int) status;
}
