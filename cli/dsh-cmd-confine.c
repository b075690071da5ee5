/* dsh-cmd-confine.c — "dsh-sandbox confine": the ConfinedArgv JSON for a command, for harnesses
 * that spawn it themselves. With --session, the mode and workspace come from the session, as
 * for exec, but nothing is appended (confining runs nothing) beyond what a resumed session
 * lacks at its first use. With --target-os naming another OS, that OS's backend logic runs
 * with a fake host and the answer is marked as a preview.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-backend-fake-host-private.h"
#include "dsh-module-loader-private.h"
#include "dsh-cli.h"
#include "dsh-cli-environment.h"
#include "dsh-cli-session.h"
#include "dsh-config.h"
#include "dsh-roots-private.h"

const DshBackendDescriptor *dsh_backend_seatbelt_describe (void);
const DshBackendDescriptor *dsh_backend_acl_describe (void);

/* An OS whose backend confine --target-os can preview from another host. */
typedef struct {
  /* The --target-os word, and host_machine.system() on that OS. */
  const char *os;
  const char *system;
  /* The backend that OS would select, and its descriptor when its logic is linked in here. */
  const char *backend;
  DshBackendDescribeFunc describe;
  /* What that OS's host would answer: name and value pairs, NULL-terminated. Nothing else
   * exists there: no other program, helper or variable, and no probe starts. */
  const char *const *programs;
  const char *const *helpers;
  const char *const *environment;
  /* Variables that OS's host would have, answered with this host's own directory for them. */
  void (*add_host_environment) (DshBackendFakeHost *fake);
} PreviewTarget;

static const char *const macos_programs[] = { "sandbox-exec", "/usr/bin/sandbox-exec", NULL };
/* The runner sits beside the DLL there; its name stands for its path. */
static const char *const windows_helpers[] = { "dsh-acl-exec.exe", "dsh-acl-exec.exe", NULL };

/* The temp area and the profile directory the Windows backend plans with: this host's spellings
 * stand in for the target's. */
static void
add_windows_environment (DshBackendFakeHost *fake)
{
  dsh_backend_fake_host_set_env (fake, "TEMP", g_get_tmp_dir ());
  dsh_backend_fake_host_set_env (fake, "USERPROFILE", g_get_home_dir ());
}

static const PreviewTarget preview_targets[] = {
  { .os = "linux", .system = "linux", .backend = "bwrap" },
  { .os = "macos", .system = "darwin", .backend = "seatbelt",
    .describe = dsh_backend_seatbelt_describe, .programs = macos_programs },
  { .os = "windows", .system = "windows", .backend = "acl",
    .describe = dsh_backend_acl_describe, .helpers = windows_helpers,
    .add_host_environment = add_windows_environment },
};

static const PreviewTarget *
find_preview_target (const char *os, GError **error)
{
  for (gsize i = 0; i < G_N_ELEMENTS (preview_targets); i++)
    {
      if (g_str_equal (os, preview_targets[i].os))
        return &preview_targets[i];
    }
  g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
               "unknown --target-os \"%s\": expected linux, macos or windows",
               dsh_cli_printable (os));
  return NULL;
}

static void
add_answers (DshBackendFakeHost *fake, const char *const *pairs,
             void (*set) (DshBackendFakeHost *, const char *, const char *))
{
  for (gsize i = 0; pairs != NULL && pairs[i] != NULL && pairs[i + 1] != NULL; i += 2)
    set (fake, pairs[i], pairs[i + 1]);
}

/* One confine by desc on the fake host, within a provider lifetime that is this call: a backend
 * with per-provider state gets it made and freed here. */
static DshConfinedArgv *
preview_confine_once (DshBackendFakeHost *fake,
                      const DshBackendDescriptor *desc,
                      const char *const *command,
                      const DshSandboxPolicy *policy,
                      GError **error)
{
  DshBackendModule module = { .name = (char *) desc->name, .descriptor = desc };
  DshConfinedArgv *confined = NULL;

  g_mutex_init (&module.instance_lock);
  if (!dsh_backend_module_bind_instance (&module, &fake->call))
    g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_UNAVAILABLE,
                 "backend \"%s\" could not confine the command: %s", desc->name,
                 fake->call.error != NULL ? fake->call.error : "no reason given");
  else if (dsh_backend_call_confine (&fake->call, desc->name, desc, command, policy, error))
    confined = dsh_confined_argv_new_take (dsh_backend_call_to_confinement (&fake->call,
                                                                            desc->name, desc));
  if (module.instance != NULL)
    desc->instance_free (module.instance);
  g_mutex_clear (&module.instance_lock);
  return confined;
}

/* What target's backend returns for the command under policy, as its host would answer. */
static DshConfinedArgv *
preview_confine (const PreviewTarget *target,
                 const char *const *command,
                 const DshSandboxPolicy *policy,
                 GError **error)
{
  g_autoptr (DshBackendFakeHost) fake = dsh_backend_fake_host_new ();
  const DshBackendDescriptor *desc;

  if (target->describe == NULL)
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_UNAVAILABLE,
                   "the %s backend's logic (%s) is not built into this dsh-sandbox: there is "
                   "nothing to preview for --target-os %s", target->os, target->backend,
                   target->os);
      return NULL;
    }
  add_answers (fake, target->programs, dsh_backend_fake_host_set_program);
  add_answers (fake, target->helpers, dsh_backend_fake_host_set_helper);
  add_answers (fake, target->environment, dsh_backend_fake_host_set_env);
  if (target->add_host_environment != NULL)
    target->add_host_environment (fake);
  desc = target->describe ();
  if (desc->check != NULL && (desc->check (dsh_backend_fake_host_get_host (fake)) != 0 ||
                              fake->call.error != NULL))
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_UNAVAILABLE,
                   "backend \"%s\" refused the preview host: %s", desc->name,
                   fake->call.error != NULL ? fake->call.error : "no reason given");
      return NULL;
    }
  dsh_backend_fake_host_reset (fake);
  return preview_confine_once (fake, desc, command, policy, error);
}

/* The policy of this call and the workspace as spelled (for the planted-symlink check). */
static DshSandboxPolicy *
resolve_policy (const char *mode_text,
                const char *workspace,
                const char *session_path,
                const char *const *requested_roots,
                char **out_spelled_workspace,
                char **out_session_created,
                GError **error)
{
  g_autoptr (DshPermissionPresets) presets = NULL;
  g_autoptr (DshSessionLog) session = NULL;
  g_autoptr (DshSandboxPolicy) policy = NULL;

  if (!dsh_cli_check_workspace_without_session (workspace, session_path, error))
    return NULL;
  presets = dsh_cli_load_presets (error);
  if (presets == NULL)
    return NULL;
  if (session_path == NULL)
    {
      /* Sessionless: the deployment's extra roots, then this call's. */
      policy = dsh_cli_resolve_policy (mode_text, workspace, out_spelled_workspace, error);
      if (policy == NULL || !dsh_cli_join_extra_roots (policy, presets, requested_roots, error))
        return NULL;
      return g_steal_pointer (&policy);
    }

  policy = dsh_cli_resolve_session_policy (presets, session_path, mode_text, requested_roots,
                                           &session, error);
  if (policy == NULL)
    return NULL;
  *out_spelled_workspace = g_strdup (dsh_session_log_get_cwd (session));
  *out_session_created = g_strdup (dsh_session_log_get_created (session));
  return g_steal_pointer (&policy);
}

/* A sessionless workspace-write policy for --mode and --workspace, with the deployment's extra
 * roots and these, its roots resolved and pinned by one walk of the workspace as spelled, where
 * dsh_cli_resolve_policy() would check and resolve it first and the roots' walk then resolve it
 * again. NULL for any other call and for anything refused, which the general way then refuses
 * in its own words: only a success is taken from here. */
static DshSandboxPolicy *
pin_workspace_write (const char *mode_text,
                     const char *workspace,
                     const char *const *requested_roots)
{
  g_autoptr (DshPermissionPresets) presets = NULL;
  g_autoptr (DshSandboxPolicy) policy = NULL;
  DshSandboxMode mode;

  if (mode_text == NULL || !dsh_sandbox_mode_from_string (mode_text, &mode, NULL) ||
      mode != DSH_SANDBOX_MODE_WORKSPACE_WRITE || workspace == NULL ||
      !g_path_is_absolute (workspace) || !g_utf8_validate (workspace, -1, NULL) ||
      (presets = dsh_cli_load_presets (NULL)) == NULL)
    return NULL;
  /* The root stands for the spelling until the walk replaces it. */
  policy = dsh_sandbox_policy_new (mode, workspace, NULL);
  if (!dsh_cli_join_extra_roots (policy, presets, requested_roots, NULL) ||
      !dsh_roots_pin_walked (policy, workspace, NULL))
    return NULL;
  return g_steal_pointer (&policy);
}

DshSandboxPolicy *
dsh_cli_confine_policy (const char *mode_text,
                        const char *workspace,
                        const char *session_path,
                        const char *const *requested_roots,
                        GError **error)
{
  g_autoptr (DshSandboxPolicy) policy = NULL;
  g_autofree char *spelled_workspace = NULL;
  g_autofree char *session_created = NULL;

  /* The usual call resolves its workspace by the roots' one walk; anything refused there is
   * refused by the general way below, in its own words and order. */
  if (session_path == NULL &&
      (policy = pin_workspace_write (mode_text, workspace, requested_roots)) != NULL)
    return g_steal_pointer (&policy);
  policy = resolve_policy (mode_text, workspace, session_path, requested_roots,
                           &spelled_workspace, &session_created, error);
  if (policy == NULL)
    return NULL;
  if (!dsh_sandbox_mode_is_confined (policy->mode))
    {
      g_set_error_literal (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                           "danger-full-access is not confined: spawn the command as it is");
      return NULL;
    }
  /* Resolved and checked once: the provider hands down exactly these roots. */
  if (!dsh_roots_pin (policy, spelled_workspace, session_created, error))
    return NULL;
  return g_steal_pointer (&policy);
}

int
dsh_cmd_confine (int argc, char **argv)
{
  g_autofree char *mode = NULL;
  g_autofree char *workspace = NULL;
  g_autofree char *session_path = NULL;
  g_autofree char *target_os = NULL;
  g_auto (GStrv) writable_roots = NULL;
  const GOptionEntry entries[] = {
    { "mode", 0, 0, G_OPTION_ARG_FILENAME, &mode,
      "Sandbox mode (default read-only); with --session, the explicit mode of this call", "MODE" },
    { "workspace", 0, 0, G_OPTION_ARG_FILENAME, &workspace,
      "Workspace root without a session (default: the current directory)", "DIR" },
    { "session", 0, 0, G_OPTION_ARG_FILENAME, &session_path,
      "The session log: mode and workspace come from it (no turn is appended)", "FILE" },
    { "target-os", 0, 0, G_OPTION_ARG_STRING, &target_os,
      "What that OS's backend would return (linux, macos or windows), on any host", "OS" },
    { "writable-root", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &writable_roots,
      "One more writable root under workspace-write (repeatable)", "DIR" },
    { NULL }
  };
  g_autoptr (GOptionContext) context = g_option_context_new ("-- ARGV...");
  g_autoptr (GError) error = NULL;
  g_autoptr (DshSandboxPolicy) policy = NULL;
  g_autoptr (DshLocalProvider) provider = NULL;
  g_autoptr (DshConfinedArgv) confined = NULL;
  g_autoptr (JsonNode) json = NULL;
  const PreviewTarget *target = NULL;
  gboolean preview;
  char **command;

  dsh_cli_describe_environment (context, "confine");
  command = dsh_cli_split_command (&argc, argv);
  g_option_context_add_main_entries (context, entries, NULL);
  if (!dsh_cli_parse_options (context, argc, argv, &error))
    return dsh_cli_fail_error (error);
  if (command == NULL || command[0] == NULL || command[0][0] == '\0')
    return dsh_cli_fail ("no command given: put it after \"--\"");
  for (gsize i = 0; command[i] != NULL; i++)
    {
      if (!g_utf8_validate (command[i], -1, NULL))
        return dsh_cli_fail ("argument %zu of the command is not valid UTF-8 and cannot be "
                             "written as JSON", i);
    }

  if (target_os != NULL && (target = find_preview_target (target_os, &error)) == NULL)
    return dsh_cli_fail_error (error);
  preview = target != NULL && !g_str_equal (target->system, DSH_HOST_OS);

  policy = dsh_cli_confine_policy (mode, workspace, session_path,
                                   (const char *const *) writable_roots, &error);
  if (policy == NULL)
    return dsh_cli_fail_error (error);

  if (preview)
    confined = preview_confine (target, (const char *const *) command, policy, &error);
  else
    {
      provider = dsh_cli_new_provider_for_policy (policy);
      confined = dsh_sandbox_provider_confine (DSH_SANDBOX_PROVIDER (provider),
                                               (const char *const *) command, policy, &error);
    }
  if (confined == NULL)
    return dsh_cli_fail_error (error);

  json = dsh_confined_argv_to_json (confined);
  if (preview)
    json_object_set_boolean_member (json_node_get_object (json), "preview", TRUE);
  else
    {
      /* Said twice: for whoever reads stderr, and for a harness that reads only the JSON. */
      g_auto (GStrv) warnings = dsh_roots_left_out_warnings (policy);

      dsh_cli_print_warnings ((const char *const *) warnings);
      dsh_cli_add_warnings (json, (const char *const *) warnings);
    }
  dsh_cli_print_json (json);
  return 0;
}
