/* dsh-cli.h — what the dsh-sandbox subcommands share: the entry-point shape, the exit codes and
 * the one-line "dsh-sandbox:" error reporting.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <stdio.h>

#include <dsh-sandbox.h>

#include "dsh-backend-selector-private.h"
#include "dsh-exec-options.h"

G_BEGIN_DECLS

/* The command never ran: usage error, unavailable, runner failure, escalation refused. */
#define DSH_EXIT_NOT_RUN 125

/* Every subcommand: argv[0] is the subcommand's name; returns the process exit status. */
typedef int (*DshCommandFunc) (int argc, char **argv);

/* Prints exactly one "dsh-sandbox: <message>" line on stderr and returns DSH_EXIT_NOT_RUN. */
int                dsh_cli_fail             (const char *format,
                                             ...) G_GNUC_PRINTF (1, 2);
int                dsh_cli_fail_error       (const GError *error);

/* A path or word from argv, safe to put in a one-line error message. */
const char        *dsh_cli_printable        (const char     *text);

/* The subcommand argv[1] names for command ("session", "policy"), or NULL when there is none
 * to run: then *out_status is the exit status, after the usage error for none named or usage
 * and the command's environment printed for --help (dsh-cli-subcommand.c, dsh-sandbox-full
 * only). */
const char        *dsh_cli_subcommand       (int             argc,
                                             char          **argv,
                                             const char     *command,
                                             const char     *usage,
                                             int            *out_status);
/* The usage error for sub, a subcommand command does not have. */
int                dsh_cli_fail_unknown_subcommand (const char *command,
                                                    const char *sub);

/* Opens /dev/null on any of descriptors 0–2 that the caller left closed. */
void               dsh_cli_ensure_standard_fds (void);

/* Library warnings print as one "dsh-sandbox warning: ..." line, never as the refusal line. */
void               dsh_cli_install_log_writer (void);

/* Is this the uninstalled build's command (found next to the build tree's modules)? */
gboolean           dsh_cli_running_uninstalled (void);

/* Tells the library this process's executable, which no call's writable roots may hold (a
 * command could replace it, and the user's next call would run its code unconfined), and with
 * from_front (the full command) the dsh-sandbox command users run, which hands over to it. The
 * library cannot take /proc/self/exe itself: in a harness's process that is the harness's own
 * interpreter. Call it first in main(). */
void               dsh_cli_protect_own_code    (gboolean        from_front);

/* How this command runs a call: the modules and helpers next to an uninstalled build (whose
 * tree stays trusted even under /tmp), else under the installed libdir/libexecdir; the per-user
 * probe cache unless DSH_SANDBOX_PROBE_CACHE says otherwise; signals forwarded. */
typedef struct {
  DshRunOptions options;
  char *exe;
  GStrv backend_dirs;
  GStrv helper_dirs;
  char *probe_cache;
} DshCliRunOptions;

void               dsh_cli_run_options_init  (DshCliRunOptions *self);
void               dsh_cli_run_options_clear (DshCliRunOptions *self);

/* The backend selector a run with those options would use, refusing any module beneath what a
 * confined command of workspace_root may write, if given (the commands that confine without
 * running wrap it in a provider). */
DshBackendSelector *dsh_cli_new_selector    (const char     *workspace_root);
/* The same for a call's policy: its extra roots count too, and trust is judged on the roots it
 * pinned (dsh_roots_pin()) when it has them. NULL: nothing is untrusted. */
DshBackendSelector *dsh_cli_new_selector_for_policy (const DshSandboxPolicy *policy);
/* The same as a DshLocalProvider (dsh-cli-provider.c, dsh-sandbox-full only). */
DshLocalProvider  *dsh_cli_new_provider     (const char     *workspace_root);
DshLocalProvider  *dsh_cli_new_provider_for_policy (const DshSandboxPolicy *policy);

/* Cuts argv at the first "--": returns what follows it (NULL without one) and leaves the
 * options part in argv[0..*argc). */
char             **dsh_cli_split_command    (int            *argc,
                                             char          **argv);

/* Parses the options part; any leftover operand is an error naming it. */
gboolean           dsh_cli_parse_options    (GOptionContext *context,
                                             int             argc,
                                             char          **argv,
                                             GError        **error);

/* The current directory as the caller spells it ($PWD when it names this directory). */
char              *dsh_cli_default_workspace (void);

/* --mode (default read-only) and --workspace (default the current directory, else an existing
 * absolute UTF-8 directory), made canonical. *out_spelled_workspace (if given) receives the
 * workspace as spelled, the default included, for the planted-symlink check. */
DshSandboxPolicy  *dsh_cli_resolve_policy   (const char     *mode_text,
                                             const char     *workspace,
                                             char          **out_spelled_workspace,
                                             GError        **error);

/* Prints a JSON node, pretty, with a trailing newline, to stdout (dsh-sandbox-full only: the
 * front does not link json-glib). */
void               dsh_cli_print_json       (JsonNode       *node);

/* The plain exec, once the front has parsed its options; command is non-empty. */
int dsh_cmd_exec_plain (const DshExecOptions *options, char **command);
int dsh_cmd_probe    (int argc, char **argv);
int dsh_cmd_confine  (int argc, char **argv);

int dsh_cmd_exec     (int argc, char **argv);
int dsh_cmd_session  (int argc, char **argv);
int dsh_cmd_policy   (int argc, char **argv);
int dsh_cmd_describe (int argc, char **argv);
int dsh_cmd_serve    (int argc, char **argv);

G_END_DECLS
