/* dsh-acl-runner-args.c — parsing `[--workspace-sid SID] [--write ROOT]... --session-sid SID
 * [--temp-dir DIR [--remove-temp-dir]] -- ARGV...` strictly: every option once (--write repeatable), nothing unknown,
 * nothing missing.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-acl-runner-args.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsh-acl-roots.h"
#include "dsh-acl-compiler.h"
#include "dsh-acl-program.h"
#include "dsh-acl-sid.h"

static int
fail (DshAclRunnerArgs *args, const char *format, ...) PRINTF_LIKE (2, 3);

static int
fail (DshAclRunnerArgs *args, const char *format, ...)
{
  va_list ap;

  va_start (ap, format);
  vsnprintf (args->error, sizeof (args->error), format, ap);
  va_end (ap);
  return -1;
}

/* Takes the value of option argv[*i] into *slot, once. */
static int
take_value (DshAclRunnerArgs *args, const char *const *argv, size_t *i, const char **slot)
{
  const char *option = argv[*i];

  if (argv[*i + 1] == NULL)
    return fail (args, "%s needs a value", option);
  if (slot != NULL && *slot != NULL)
    return fail (args, "%s was given twice", option);
  (*i)++;
  if (slot != NULL)
    *slot = argv[*i];
  return 0;
}

static int
check_sid (DshAclRunnerArgs *args, const char *option, const char *sid)
{
  if (sid != NULL && !dsh_acl_sid_is_valid (sid))
    return fail (args, "%s \"%s\" is not a SID of the form S-1-5-21-a-b-c-d", option, sid);
  return 0;
}

/* The session's grant goes only to a directory named as the backend names them, never to an
 * existing directory of the user's that a wrong argument happens to name. */
static int
is_private_temp_name (const char *path)
{
  const char *base = path;
  size_t len;

  for (const char *p = path; *p != '\0'; p++)
    {
      if (*p == '\\' || *p == '/')
        base = p + 1;
    }
  len = strlen (base);
  if (strncmp (base, "dsh-acl-", 8) != 0 || len != 8 + 32)
    return 0;
  for (const char *p = base + 8; *p != '\0'; p++)
    {
      if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
        return 0;
    }
  return 1;
}

static int
check_roots (DshAclRunnerArgs *args, const char *profile)
{
  for (size_t r = 0; r < args->n_write_roots; r++)
    {
      const char *refusal = dsh_acl_root_refusal (args->write_roots[r], profile);

      if (refusal != NULL)
        return fail (args, "refusing to grant write access to %s: %s", args->write_roots[r],
                     refusal);
    }
  if (args->temp_dir != NULL)
    {
      const char *refusal = dsh_acl_root_refusal (args->temp_dir, profile);

      if (refusal == NULL && !is_private_temp_name (args->temp_dir))
        refusal = "its name is not dsh-acl- and 32 hex digits, as the backend makes them";
      if (refusal != NULL)
        return fail (args, "refusing the temp directory %s: %s", args->temp_dir, refusal);
    }
  return 0;
}

/* Everything after the options is checked once they are all known. */
static int
check_complete (DshAclRunnerArgs *args, const char *profile)
{
  char null_device_sid[DSH_ACL_SID_SIZE];

  if (args->command == NULL)
    return fail (args, "no command given: put it after \"--\"");
  if (args->command[0] == NULL || args->command[0][0] == '\0')
    return fail (args, "the command after \"--\" is empty");
  if (dsh_acl_program_is_batch (args->command[0]))
    return fail (args, "%s " DSH_ACL_BATCH_REFUSAL, args->command[0]);
  if (args->session_sid == NULL)
    return fail (args, "--session-sid is required");
  if (args->n_write_roots > 0 && args->workspace_sid == NULL)
    return fail (args, "--write needs --workspace-sid: the grant is made to that SID");
  if (check_sid (args, "--session-sid", args->session_sid) != 0 ||
      check_sid (args, "--workspace-sid", args->workspace_sid) != 0)
    return -1;
  if (args->workspace_sid != NULL && strcmp (args->workspace_sid, args->session_sid) == 0)
    return fail (args, "the workspace SID and the session SID must differ");
  dsh_acl_null_device_sid (null_device_sid);
  if (strcmp (args->session_sid, null_device_sid) == 0 ||
      (args->workspace_sid != NULL && strcmp (args->workspace_sid, null_device_sid) == 0))
    return fail (args, "%s is the NUL device's SID, which every confined command holds",
                 null_device_sid);
  if (args->remove_temp_dir && args->temp_dir == NULL)
    return fail (args, "--remove-temp-dir needs --temp-dir");
  return check_roots (args, profile);
}

int
dsh_acl_runner_args_parse (DshAclRunnerArgs *args, const char *const *argv, const char *profile)
{
  size_t argc = 0;

  memset (args, 0, sizeof (*args));
  while (argv[argc] != NULL)
    argc++;
  args->write_roots = calloc (argc + 1, sizeof (char *));
  if (args->write_roots == NULL)
    return fail (args, "out of memory");

  for (size_t i = 1; i < argc && args->command == NULL; i++)
    {
      const char *arg = argv[i];
      int rc;

      if (strcmp (arg, "--") == 0)
        {
          args->command = argv + i + 1;
          continue;
        }
      if (strcmp (arg, "--workspace-sid") == 0)
        rc = take_value (args, argv, &i, &args->workspace_sid);
      else if (strcmp (arg, "--session-sid") == 0)
        rc = take_value (args, argv, &i, &args->session_sid);
      else if (strcmp (arg, "--temp-dir") == 0)
        rc = take_value (args, argv, &i, &args->temp_dir);
      else if (strcmp (arg, "--remove-temp-dir") == 0)
        {
          rc = args->remove_temp_dir ? fail (args, "%s was given twice", arg) : 0;
          args->remove_temp_dir = 1;
        }
      else if (strcmp (arg, "--write") == 0)
        {
          rc = take_value (args, argv, &i, NULL);
          if (rc == 0)
            args->write_roots[args->n_write_roots++] = argv[i];
        }
      else
        rc = fail (args, "unknown option \"%s\"", arg);
      if (rc != 0)
        return -1;
    }
  return check_complete (args, profile);
}

void
dsh_acl_runner_args_clear (DshAclRunnerArgs *args)
{
  free (args->write_roots);
  args->write_roots = NULL;
}
