/* dsh-run.c — one whole confined call without GObject: resolve and check the writable roots
 * once and pin them, choose a backend that loads nothing from where confined commands write,
 * confine, spawn with stdio only, stream, classify runner failure before denial, and name the
 * denial with its marker. (The result's boxed GType is in dsh-boxed-types.c.)
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-run.h"
#include "dsh-run-private.h"
#include "dsh-roots-private.h"

#include <stdio.h>
#include <string.h>

#include "dsh-config.h"
#include "dsh-error.h"
#include "dsh-first-step-private.h"
#include "dsh-roots.h"
#include "dsh-spawn-private.h"
#include "dsh-texts.h"

/**
 * DshRunOptions:
 * @spelled_workspace: (nullable): the workspace as the caller spelled it, checked for planted
 *   symlinks before a `workspace-write` run; %NULL: the policy's workspace root
 * @session_created: (nullable): with a session, its ISO 8601 creation time: a symlink on the way
 *   to the workspace made since then is refused
 * @backend_dirs: (nullable) (array zero-terminated=1) (element-type filename): where the backend
 *   modules are; %NULL: the installed ones (`DSH_SANDBOX_BACKEND` and `DSH_SANDBOX_BACKEND_DIR`
 *   apply on top)
 * @helper_dirs: (nullable) (array zero-terminated=1) (element-type filename): where the modules'
 *   helper programs are; %NULL: the installed ones
 * @probe_cache: (nullable) (type filename): a cross-process cache of probe results, so that a
 *   new process need not probe again; %NULL: none. One a confined command could write is never
 *   used.
 * @uninstalled_build_file: (nullable) (type filename): the executable of an uninstalled
 *   development build, whose build tree stays trusted for modules and helpers even under `/tmp`
 *   or the temporary directory; never set it for an installed copy
 * @forward_signals: forward `SIGINT`, `SIGTERM`, `SIGHUP` and `SIGQUIT` to the command while it
 *   runs
 *
 * How dsh_run() runs a command. Zero-initialise it for the installed defaults and set what
 * differs; the padding at its end leaves room for options added later.
 *
 * Since: 0.1
 */

/**
 * DshRunResult:
 * @outcome: what happened
 * @command_ran: %FALSE when the command never ran (no usable backend, a refused root, a runner
 *   failure): @error says why, and nothing the command asked for took effect
 * @exit_code: the command's exit status, 128+N when signal N ended it
 * @term_signal: the signal that ended the command, else 0
 * @mode: the mode the command ran (or would have run) under
 * @backend: (nullable): the backend that confined the command; %NULL when nothing was confined
 *   (`danger-full-access`, or no usable backend)
 * @enforcement: how completely that backend enforces the mode on this host
 * @enforcement_reasons: (nullable) (array zero-terminated=1): why the enforcement is what it is
 * @marker: (nullable): on a denial, the marker line to show after the command's own stderr
 * @error: (nullable): why the command never ran, with the exact text to show
 *   (%DSH_SANDBOX_ERROR_UNAVAILABLE, %DSH_SANDBOX_ERROR_ROOT_REFUSED,
 *   %DSH_SANDBOX_ERROR_RUNNER_FAILURE); %NULL when it ran
 * @warnings: (nullable) (array zero-terminated=1): since 0.2, what the call did not do that its
 *   policy asked for, a sentence each: an extra writable root left out for being no directory
 *   (its command's denial there would otherwise read as if it had it); %NULL for none
 *
 * What dsh_run() did.
 *
 * Since: 0.1
 */

/**
 * dsh_run_result_copy:
 * @result: a result
 *
 * Returns: (transfer full): a copy of @result
 *
 * Since: 0.1
 */
DshRunResult *
dsh_run_result_copy (const DshRunResult *result)
{
  DshRunResult *copy;

  g_return_val_if_fail (result != NULL, NULL);

  copy = g_memdup2 (result, sizeof (*result));
  copy->backend = g_strdup (result->backend);
  copy->enforcement_reasons = g_strdupv (result->enforcement_reasons);
  copy->marker = g_strdup (result->marker);
  copy->error = result->error != NULL ? g_error_copy (result->error) : NULL;
  copy->warnings = g_strdupv (result->warnings);
  return copy;
}

/**
 * dsh_run_result_free:
 * @result: (nullable) (transfer full): a result
 *
 * Since: 0.1
 */
void
dsh_run_result_free (DshRunResult *result)
{
  if (result == NULL)
    return;
  g_free (result->backend);
  g_strfreev (result->enforcement_reasons);
  g_free (result->marker);
  g_clear_error (&result->error);
  g_strfreev (result->warnings);
  g_free (result);
}

/* ---- the trust checks ---------------------------------------------------------------------- */

/* Is root /tmp or the temp directory (canonical)? */
static gboolean
is_temp_root (const char *root)
{
  g_autofree char *tmpdir = NULL;

  if (g_str_equal (root, "/tmp"))
    return TRUE;
  tmpdir = dsh_canonical_path (g_get_tmp_dir ());
  return g_str_equal (root, tmpdir);
}

/* Everything a confined command of this workspace may write, where no module, helper or runner
 * may come from. An uninstalled build (build_file, else NULL) under /tmp or the temp directory
 * still trusts its own tree there (a development build; installed modules never live there);
 * beneath the workspace or an extra root it does not: a call granting that root would let its
 * command replace the modules the next call loads. */
static GStrv
untrusted_roots (const DshSandboxPolicy *policy, const char *build_file)
{
  g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();
  g_auto (GStrv) roots = NULL;

  /* A workspace of / would leave no trusted file at all (and workspace-write refuses it). */
  if (policy == NULL || g_str_equal (policy->workspace_root, "/"))
    return g_strv_builder_end (builder);

  roots = dsh_writable_roots_widest (policy);
  for (gsize i = 0; roots[i] != NULL; i++)
    {
      if (i > 0 && build_file != NULL && dsh_path_is_beneath (build_file, roots[i]) &&
          is_temp_root (roots[i]))
        continue;
      g_strv_builder_add (builder, roots[i]);
    }
  return g_strv_builder_end (builder);
}

DshBackendSelector *
dsh_run_new_selector (const DshSandboxPolicy *policy, const DshRunOptions *options)
{
  static const DshRunOptions defaults = { 0 };
  const char *installed_backend_dirs[] = { DSH_BACKEND_DIR, NULL };
  const char *installed_helper_dirs[] = { DSH_HELPER_DIR, NULL };
  DshBackendSelector *selector;

  if (options == NULL)
    options = &defaults;
  selector = dsh_backend_selector_new (options->backend_dirs != NULL ? options->backend_dirs
                                                                     : installed_backend_dirs,
                                       options->helper_dirs != NULL ? options->helper_dirs
                                                                    : installed_helper_dirs);
  if (options->probe_cache != NULL)
    dsh_backend_selector_set_probe_cache (selector, options->probe_cache);
  /* A confined command may write there: nothing that runs unconfined (a module, a helper, a
   * runner) may come from there. The roots are canonical already. */
  dsh_backend_selector_take_untrusted_roots (
    selector, untrusted_roots (policy, options->uninstalled_build_file));
  return selector;
}

/* ---- the spawn ----------------------------------------------------------------------------- */

extern char **environ;

/* What steers this one call — which backend, where its modules and probe cache are, how long its
 * approver may take — is no part of the command's environment: a dsh-sandbox the command runs
 * is another call, inside this sandbox's view of the host, and selects for that view itself.
 * Nor may it trust the probe cache, which records what passed in the caller's view (bwrap
 * cannot run inside either backend), so it probes. The deployment configuration
 * (DSH_SANDBOX_CONFIG) stays: its policy holds for nested calls too. */
static const char *const call_only_variables[] = {
  "DSH_SANDBOX_BACKEND",
  "DSH_SANDBOX_BACKEND_DIR",
  "DSH_SANDBOX_PROBE_CACHE",
  "DSH_SANDBOX_APPROVER_TIMEOUT",
};

static char nested_probe_cache[] = "DSH_SANDBOX_PROBE_CACHE=off";

static gboolean
is_call_only (const char *entry)
{
  for (guint i = 0; i < G_N_ELEMENTS (call_only_variables); i++)
    {
      const char *name = call_only_variables[i];
      gsize len;

      /* Most entries differ at their first byte: passed over without a string call. */
      if (entry[0] != name[0])
        continue;
      len = strlen (name);
      if (strncmp (entry, name, len) == 0 && entry[len] == '=')
        return TRUE;
    }
  return FALSE;
}

/* Our environment without the call-only variables; the strings stay ours. */
static GPtrArray *
confined_environment (void)
{
  gsize count = 0;
  GPtrArray *envp;

  while (environ[count] != NULL)
    count++;
  /* Room for all of it and the two entries added: one allocation. */
  envp = g_ptr_array_sized_new ((guint) MIN (count + 2, G_MAXUINT));
  for (char **entry = environ; *entry != NULL; entry++)
    {
      if (!is_call_only (*entry))
        g_ptr_array_add (envp, *entry);
    }
  g_ptr_array_add (envp, nested_probe_cache);
  g_ptr_array_add (envp, NULL);
  return envp;
}

/* A confined command gets stdin, stdout and stderr and nothing else the caller held open, and
 * our environment less the call-only variables; a raw one (danger-full-access) inherits what it
 * would have without a sandbox, such as a make jobserver's descriptors. */
static gboolean
spawn (DshRunResult *result, const char *const *argv, const DshConfinement *confinement,
       const GArray *kept_fds, const DshRunOptions *options, GString *captured,
       gboolean *stderr_mid_line, GError **error)
{
  gboolean confined = confinement != NULL;
  g_autoptr (GPtrArray) envp = confined ? confined_environment () : NULL;
  const DshSpawnOptions spawn_options = {
    .forward_signals = options->forward_signals,
    .close_inherited_fds = confined,
    .keep_fds = kept_fds != NULL ? (const int *) (gpointer) kept_fds->data : NULL,
    .n_keep_fds = kept_fds != NULL ? kept_fds->len : 0,
    .envp = envp != NULL ? (char *const *) envp->pdata : NULL,
    .confinement = confinement,
    .stderr_mid_line = stderr_mid_line,
  };

  return dsh_spawn_run (argv, &spawn_options, &result->exit_code, &result->term_signal,
                        captured, error);
}

/* ---- the call ------------------------------------------------------------------------------ */

/* A newline on the stderr the command's own was streamed to, after it ended. */
static void
end_stderr_line (void)
{
  fputc ('\n', stderr);
  fflush (stderr);
}

/* The command never ran: error (taken) says why. */
static DshRunResult *
never_ran (DshRunResult *result, DshOutcome outcome, GError *error)
{
  result->outcome = outcome;
  result->command_ran = FALSE;
  result->exit_code = 0;
  result->term_signal = 0;
  result->error = error;
  return result;
}

static DshRunResult *
never_ran_literal (DshRunResult *result, DshOutcome outcome, int code, const char *text)
{
  return never_ran (result, outcome, g_error_new_literal (DSH_SANDBOX_ERROR, code, text));
}

static DshRunResult *
run_unconfined (DshRunResult *result, const char *const *argv, const DshRunOptions *options)
{
  g_autoptr (GString) captured = g_string_new (NULL);
  g_autoptr (GError) error = NULL;

  if (!spawn (result, argv, NULL, NULL, options, captured, NULL, &error))
    {
      /* Without a runner, we are the ones that failed to start the command. */
      g_autofree char *text = g_strdup_printf ("cannot run the command: %s", error->message);

      return never_ran_literal (result, DSH_OUTCOME_RUNNER_FAILURE,
                                DSH_SANDBOX_ERROR_RUNNER_FAILURE, text);
    }
  result->command_ran = TRUE;
  result->outcome = DSH_OUTCOME_COMPLETED;
  return result;
}

/* The confinement's facts the caller reports, taken from it. */
static void
take_confinement_facts (DshRunResult *result, DshConfinement *confinement)
{
  result->backend = g_steal_pointer (&confinement->backend);
  result->enforcement = confinement->enforcement;
  result->enforcement_reasons = g_steal_pointer (&confinement->reasons);
}

static DshOutcome
outcome_of_refusal (const GError *error)
{
  if (g_error_matches (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_UNAVAILABLE))
    return DSH_OUTCOME_UNAVAILABLE;
  if (g_error_matches (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_ROOT_REFUSED))
    return DSH_OUTCOME_ROOT_REFUSED;
  return DSH_OUTCOME_RUNNER_FAILURE;
}

/* A selector whose process exits after this call: exit releases it whole. Reachable from here,
 * so a leak checker does not count it. */
static DshBackendSelector *left_for_exit;

static DshRunResult *
run_confined (DshRunResult *result, const char *const *argv, const DshSandboxPolicy *policy,
              const DshRunOptions *options, gboolean exiting)
{
  /* The selector itself, not a provider: this path never starts GObject's type system. */
  g_autoptr (DshBackendSelector) owned = dsh_run_new_selector (policy, options);
  DshBackendSelector *selector = owned;
  g_autoptr (DshConfinement) confinement = NULL;
  g_autoptr (GString) captured = g_string_new (NULL);
  g_autoptr (GError) spawn_error = NULL;
  g_autofree char *detail = NULL;
  g_autofree char *runner_line = NULL;
  DshFirstStep step = { 0 };
  gboolean started = TRUE;
  gboolean stderr_mid_line = FALSE;
  const char *mode = dsh_sandbox_mode_to_string (policy->mode);
  GError *error = NULL;

  /* Closing the module and freeing what the selector found would be the last work of a
   * process about to exit, and exit does it for nothing. */
  if (exiting)
    {
      g_clear_pointer (&left_for_exit, dsh_backend_selector_free);
      left_for_exit = g_steal_pointer (&owned);
    }
  confinement = dsh_backend_selector_confine (selector, argv, policy, &error);
  if (confinement == NULL)
    return never_ran (result, outcome_of_refusal (error), error);

  take_confinement_facts (result, confinement);
  /* A process that exits after the call may have the runner's first step done here. */
  if (exiting && !dsh_first_step_take (&step, selector, (const char *const *) confinement->argv,
                                       &runner_line, &result->exit_code))
    {
      /* As the runner would have: its one line on our stderr, then its exit. */
      fprintf (stderr, "%s\n", runner_line);
      fflush (stderr);
      g_string_append (captured, runner_line);
      g_string_append_c (captured, '\n');
      result->term_signal = 0;
    }
  else
    started = spawn (result,
                     step.taken ? (const char *const *) step.call.argv->pdata
                                : (const char *const *) confinement->argv,
                     confinement, step.call.kept_fds, options, captured, &stderr_mid_line,
                     &spawn_error);
  /* Before anything of ours follows the command's own stderr. */
  dsh_first_step_finish (&step);
  if (!started)
    {
      g_autofree char *text = dsh_text_runner_failure (mode, spawn_error->message);

      return never_ran_literal (result, DSH_OUTCOME_RUNNER_FAILURE,
                                DSH_SANDBOX_ERROR_RUNNER_FAILURE, text);
    }

  result->outcome = dsh_confinement_classify (confinement, result->exit_code, captured->str,
                                              captured->len, &detail);
  if (result->outcome == DSH_OUTCOME_RUNNER_FAILURE)
    {
      g_autofree char *text = dsh_text_runner_failure (mode, detail);

      /* The runner failed before the command started: it never ran. */
      return never_ran_literal (result, DSH_OUTCOME_RUNNER_FAILURE,
                                DSH_SANDBOX_ERROR_RUNNER_FAILURE, text);
    }
  if (result->outcome == DSH_OUTCOME_DENIED)
    {
      result->marker = dsh_text_denial_marker (policy->mode);
      /* The marker is shown as a line of its own after the command's stderr: end the command's
       * last line if it did not, or the marker would be the tail of that line. */
      if (stderr_mid_line)
        end_stderr_line ();
    }
  result->command_ran = TRUE;
  return result;
}

static DshRunResult *
run_call (const char *const *argv, const DshSandboxPolicy *policy, const DshRunOptions *options,
          gboolean exiting)
{
  static const DshRunOptions defaults = { 0 };
  g_autoptr (DshSandboxPolicy) pinned = NULL;
  DshRunResult *result = g_new0 (DshRunResult, 1);
  GError *error = NULL;

  if (options == NULL)
    options = &defaults;
  result->outcome = DSH_OUTCOME_UNAVAILABLE;
  /* The mode it would have run under, even when the call is refused below. */
  if (policy != NULL && (guint) policy->mode <= DSH_SANDBOX_MODE_DANGER_FULL_ACCESS)
    result->mode = policy->mode;
  if (policy == NULL || policy->workspace_root == NULL ||
      !g_path_is_absolute (policy->workspace_root))
    return never_ran_literal (result, DSH_OUTCOME_INVALID_ARGUMENT,
                              DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                              "the policy's workspace root is not an absolute path");
  /* Anything but a known confined mode would run the raw argv below: a mode outside the
   * vocabulary (a stale enum, a cast from a binding) is refused, never run unconfined. */
  if ((guint) policy->mode > DSH_SANDBOX_MODE_DANGER_FULL_ACCESS)
    return never_ran_literal (result, DSH_OUTCOME_INVALID_ARGUMENT,
                              DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                              "the policy's sandbox mode is not one of read-only, "
                              "workspace-write, danger-full-access");
  if (argv == NULL || argv[0] == NULL || argv[0][0] == '\0')
    return never_ran_literal (result, DSH_OUTCOME_INVALID_ARGUMENT,
                              DSH_SANDBOX_ERROR_INVALID_ARGUMENT, "no command given");

  /* The roots are resolved and checked once, here; the backend and its runner receive exactly
   * these strings. */
  pinned = dsh_sandbox_policy_copy (policy);
  if (!dsh_roots_pin (pinned, options->spelled_workspace, options->session_created, &error))
    return never_ran (result, DSH_OUTCOME_ROOT_REFUSED, error);
  result->warnings = dsh_roots_left_out_warnings (policy);
  /* danger-full-access runs the raw argv and never asks a backend. */
  if (dsh_sandbox_mode_is_confined (pinned->mode))
    return run_confined (result, argv, pinned, options, exiting);
  return run_unconfined (result, argv, options);
}

/**
 * dsh_run:
 * @argv: (array zero-terminated=1) (element-type filename): the command, non-empty; looked up on
 *   `PATH` when its first word has no slash
 * @policy: the call's policy (its extra writable roots included); it is not changed
 * @options: (nullable): how to run; %NULL: the installed defaults
 *
 * Runs one command the way `dsh-sandbox exec` does, in the current directory. Under
 * `workspace-write` the writable roots are resolved and checked once, as dsh_roots_pin() does,
 * and the backend receives exactly those strings: a refused root means the command never runs
 * (%DSH_OUTCOME_ROOT_REFUSED). A confined mode is confined by the first usable backend of this
 * host, which loads no module, helper or runner from beneath what a confined command of this
 * workspace may write; the command gets descriptors 0-2 only (a file or directory given as one
 * arrives as a pipe, so it cannot be reopened for writing) and this environment without the
 * variables that steer this call's backend choice. `danger-full-access` runs the raw argv, as if
 * without a sandbox. stdin and stdout are the caller's; stderr streams to the caller's as it
 * comes and is classified, runner failure first. A confined mode is never run unconfined: with
 * no usable backend the outcome is %DSH_OUTCOME_UNAVAILABLE with the exact text. A malformed call
 * (no command, a workspace root that is not absolute, a mode outside the vocabulary) runs
 * nothing and ends %DSH_OUTCOME_INVALID_ARGUMENT.
 *
 * Starts no GType: the leanest front end can use it.
 *
 * Returns: (transfer full): what happened, never %NULL
 *
 * Since: 0.1
 */
DshRunResult *
dsh_run (const char *const *argv, const DshSandboxPolicy *policy, const DshRunOptions *options)
{
  return run_call (argv, policy, options, FALSE);
}

DshRunResult *
dsh_run_before_exit (const char *const *argv, const DshSandboxPolicy *policy,
                     const DshRunOptions *options)
{
  return run_call (argv, policy, options, TRUE);
}
