/* dsh-cli-session.h — what the session-aware subcommands (session, policy, and exec/describe
 * with --session) share: the deployment configuration, loading a session, policy JSON.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dsh-cli.h"

G_BEGIN_DECLS

/* The deployment configuration (preset table, default mode/approval policy/preset): the JSON
 * file named by $DSH_SANDBOX_CONFIG (schemas/config.schema.json), else the built-in defaults. */
DshPermissionPresets *dsh_cli_load_presets          (GError               **error);

/* The policy service for this deployment: default mode from the configuration, fallback root
 * the current directory. */
DshPolicyService     *dsh_cli_new_policy_service    (DshPermissionPresets  *presets);

/* The approval service for this deployment: default approval policy from the configuration. */
DshApprovalService   *dsh_cli_new_approval_service  (DshPermissionPresets  *presets);

/* The deployment's presets and, when session_path is given, that session (else *out_session is
 * NULL): what the read-only subcommands (policy, describe, session show) start from. A session
 * log or configuration a confined command could write (dsh_policy_file_check_out_of_reach()) is refused,
 * as exec refuses it, so what a resumed session's first use then pins
 * (dsh_permission_presets_pin_session()) comes from out of its reach. */
gboolean              dsh_cli_load_presets_and_session (const char             *session_path,
                                                        DshPermissionPresets  **out_presets,
                                                        DshSessionLog         **out_session,
                                                        GError                **error);

/* Loads an existing session log (the file must exist; crash tails are repaired in memory). */
DshSessionLog        *dsh_cli_load_session          (const char            *path,
                                                     GError               **error);

/* Adds to policy's extra writable roots (a session's pinned ones, if any) the deployment's
 * (presets, NULL for none: give them only to sessionless calls) and those this call asks for
 * (requested, made absolute). */
gboolean              dsh_cli_join_extra_roots      (DshSandboxPolicy      *policy,
                                                     DshPermissionPresets  *presets,
                                                     const char *const     *requested,
                                                     GError               **error);

/* Sentences (NULL: none) on stderr, a `dsh-sandbox warning:` line each. */
void                  dsh_cli_print_warnings        (const char *const      *warnings);

/* Those sentences (NULL: none) as the confined argv document's "warnings" member (json: its
 * object). */
void                  dsh_cli_add_warnings          (JsonNode               *json,
                                                     const char *const      *warnings);

/* dsh_policy_file_check_out_of_reach() for $DSH_SANDBOX_CONFIG, when it is set. */
gboolean              dsh_cli_check_config_unreachable (const char         *workspace_root,
                                                        const char *const  *extra_roots,
                                                        GError            **error);

/* --workspace beside --session is refused: the session's cwd is its workspace. */
gboolean              dsh_cli_check_workspace_without_session (const char     *workspace,
                                                               const char     *session_path,
                                                               GError        **error);

/* The policy of a call that runs or confines a command with a session: mode_text (if given)
 * is this call's explicit mode and outranks the session's last one. A session log or
 * configuration a confined command could rewrite is refused. requested_roots are this
 * call's --writable-root values, joined to the session's pinned extra roots. *out_session
 * receives the loaded session. */
DshSandboxPolicy     *dsh_cli_resolve_session_policy (DshPermissionPresets  *presets,
                                                      const char            *session_path,
                                                      const char            *mode_text,
                                                      const char *const     *requested_roots,
                                                      DshSessionLog        **out_session,
                                                      GError               **error);

/* The policy of one confine call (dsh-cmd-confine.c): from the session when session_path is
 * given (mode_text is then this call's explicit mode; workspace must be NULL), else from
 * mode_text and workspace (NULL: read-only, the current directory). Refuses danger-full-access,
 * a session log or configuration a confined command could rewrite, and a planted symlink on the
 * way to a workspace-write root; requested_roots are the call's extra writable roots. */
DshSandboxPolicy     *dsh_cli_confine_policy        (const char            *mode_text,
                                                     const char            *workspace,
                                                     const char            *session_path,
                                                     const char *const     *requested_roots,
                                                     GError               **error);

/* What "policy resolve" and "policy context" print (dsh-cmd-policy.c): a call's policy, from
 * the session if given, mode_text being an explicit, approved mode; and the model-facing
 * policy context text. */
DshSandboxPolicy     *dsh_cli_policy_resolve        (const char            *session_path,
                                                     const char            *mode_text,
                                                     GError               **error);
char                 *dsh_cli_policy_context        (const char            *session_path,
                                                     GError               **error);

/* {"mode", "workspaceRoot", "sessionId"?} — schemas/policy-resolve.schema.json. */
JsonNode             *dsh_cli_policy_to_json        (const DshSandboxPolicy *policy);

/* Parses options and returns the remaining operands (argv[0], the subcommand, excluded) in
 * *out_operands; an unknown option is an error. */
gboolean              dsh_cli_parse_with_operands   (GOptionContext        *context,
                                                     int                    argc,
                                                     char                 **argv,
                                                     GStrv                 *out_operands,
                                                     GError               **error);

/* The session commands (dsh-cmd-session.c), shared with serve's session.* methods. */
/* Creates the session log path (cwd NULL: the current directory; preset NULL: the configured
 * one), refusing a cwd that is no directory and a configuration its commands could write. */
DshSessionLog        *dsh_cli_session_new           (const char            *path,
                                                     const char            *cwd,
                                                     const char            *preset,
                                                     GError               **error);

typedef enum {
  DSH_CLI_SESSION_SWITCH_MODE,
  DSH_CLI_SESSION_SWITCH_APPROVAL,
  DSH_CLI_SESSION_SWITCH_PRESET,
} DshCliSessionSwitch;

/* One switch of the session at path to value, its events appended; *out_notice receives the
 * text for the host to inject for the model when the approval policy changed, else NULL. */
gboolean              dsh_cli_session_switch        (const char            *path,
                                                     DshCliSessionSwitch    kind,
                                                     const char            *value,
                                                     char                 **out_notice,
                                                     GError               **error);

/* What "describe TOOL" prints, without its newline (dsh-cmd-describe.c); only bash is known,
 * and a session given is read. */
char                 *dsh_cli_describe              (const char            *tool,
                                                     const char            *session_path,
                                                     GError               **error);

/* What "session show --json" prints (schemas/session-show.schema.json). */
JsonNode             *dsh_cli_session_show_json     (const char            *path,
                                                     GError               **error);

G_END_DECLS
