/* dsh-acl-runner-args.h — the runner's command line, parsed and checked before anything is
 * touched: the SIDs are well formed, every root may be granted, and a command follows "--".
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <stddef.h>

typedef struct {
  const char *workspace_sid;
  const char *session_sid;
  const char *temp_dir;
  /* The temp directory is this call's alone (an agentless call): removed when the command ends. */
  int remove_temp_dir;
  /* NULL-terminated, borrowed from argv. */
  const char **write_roots;
  size_t n_write_roots;
  /* The command: the rest of argv after "--". */
  const char *const *command;
  char error[512];
} DshAclRunnerArgs;

/* Parses argv (argv[0] is the runner). profile is the user's profile directory (or NULL). 0, or
 * -1 with args->error set to a sentence; clear args either way. */
int  dsh_acl_runner_args_parse (DshAclRunnerArgs  *args,
                                const char *const *argv,
                                const char        *profile);
void dsh_acl_runner_args_clear (DshAclRunnerArgs  *args);
