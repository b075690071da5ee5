/* dsh-exec-options.h — the options of "dsh-sandbox exec", one table for both commands: the
 * front parses with it to decide whether the plain path can run the call, and the full exec
 * parses with it to run any other.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  /* What the plain path takes. */
  char *mode;
  char *workspace;
  char *report_path;
  /* What needs sessions, approval or JSON: the full command. */
  char *session_path;
  char *approval_policy;
  char *approver_command;
  char *sandbox_permissions;
  char *justification;
  char **writable_roots;
} DshExecOptions;

void      dsh_exec_options_clear    (DshExecOptions *self);

/* Parses the options part of exec (argv[0] is "exec") into self; help: whether --help is an
 * option (the front leaves it to the full command), with help_description (nullable) printed
 * after the options. Any leftover operand is an error. */
gboolean  dsh_exec_options_parse    (DshExecOptions *self,
                                     int             argc,
                                     char          **argv,
                                     gboolean        help,
                                     const char     *help_description,
                                     GError        **error);

/* The plain path's options alone, in the forms GOption reads them ("--mode VALUE",
 * "--mode=VALUE", the last one counting), argv as dsh_exec_options_parse() takes it, with
 * exactly its answers; anything else (another option, an operand, a missing value) is FALSE,
 * for the full command to parse and report. */
gboolean  dsh_exec_options_parse_plain (DshExecOptions *self,
                                        int             argc,
                                        char          **argv);

/* Were only the plain path's options given? */
gboolean  dsh_exec_options_is_plain (const DshExecOptions *self);

G_END_DECLS
