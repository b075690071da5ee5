/* dsh-acl-program.h — which programs the runner may start with CreateProcess.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

/* Would CreateProcess start program (a name or path) as a batch file, through cmd.exe, which
 * splits the command line by rules of its own ("a&b" runs b, "%VAR%" expands)? Its last name
 * is read as Windows opens it: a stream suffix (":x", "::$DATA") cut, trailing dots and spaces
 * dropped; then an extension beginning ".bat" or ".cmd", in any case, is a batch file. */
int dsh_acl_program_is_batch (const char *program);

/* The refusal both the planner and the runner give for one. */
#define DSH_ACL_BATCH_REFUSAL \
  "is a batch file, which CreateProcess runs through cmd.exe: cmd.exe would split its " \
  "arguments by other rules than the ones they were quoted for"
