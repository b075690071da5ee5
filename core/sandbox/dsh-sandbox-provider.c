/* dsh-sandbox-provider.c — the abstract provider and the checks every implementation gets for
 * free: a confined mode, a non-empty argv, and a result or an error, never neither.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-sandbox-provider.h"

#include "dsh-error.h"
#include "dsh-texts.h"

/**
 * DshSandboxProviderClass:
 * @parent_class: the parent class
 * @confine: wraps argv for a policy that is fully specified and confined
 *
 * The virtual methods of #DshSandboxProvider.
 *
 * Since: 0.1
 */

/**
 * DshSandboxProvider:
 *
 * The abstract seam: wraps an exact argv for a per-call policy, or fails closed with
 * %DSH_SANDBOX_ERROR_UNAVAILABLE. Silent unconfined passthrough is never legal.
 *
 * Since: 0.1
 */

G_DEFINE_ABSTRACT_TYPE (DshSandboxProvider, dsh_sandbox_provider, G_TYPE_OBJECT)

static void
dsh_sandbox_provider_class_init (DshSandboxProviderClass *klass)
{
}

static void
dsh_sandbox_provider_init (DshSandboxProvider *self)
{
}

/**
 * dsh_sandbox_provider_confine:
 * @self: a #DshSandboxProvider
 * @argv: (array zero-terminated=1): the exact argv the caller would spawn (a shell consumer passes
 *   `bash -c COMMAND`), never a shell string
 * @policy: the call's policy; its mode must be confined
 * @error: return location for a #GError
 *
 * Wraps @argv for @policy. Silent unconfined passthrough is never legal: when no backend can
 * enforce @policy this fails.
 *
 * Returns: (transfer full): the argv to spawn instead, with its enforcement and classifiers; %NULL
 *   with %DSH_SANDBOX_ERROR_UNAVAILABLE when no backend can enforce @policy, or
 *   %DSH_SANDBOX_ERROR_INVALID_ARGUMENT for an empty @argv or `danger-full-access` (which
 *   consumers run raw, without a provider)
 *
 * Since: 0.1
 */
DshConfinedArgv *
dsh_sandbox_provider_confine (DshSandboxProvider *self,
                              const char *const *argv,
                              const DshSandboxPolicy *policy,
                              GError **error)
{
  DshSandboxProviderClass *klass;
  DshConfinedArgv *confined;
  g_autoptr (GError) local_error = NULL;

  g_return_val_if_fail (DSH_IS_SANDBOX_PROVIDER (self), NULL);
  g_return_val_if_fail (policy != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (argv == NULL || argv[0] == NULL || argv[0][0] == '\0')
    {
      g_set_error_literal (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                           "the command to confine is empty");
      return NULL;
    }
  if (!dsh_sandbox_mode_is_confined (policy->mode))
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                   "sandbox mode \"%s\" is not a confined mode: run the command directly "
                   "instead of asking a provider",
                   dsh_sandbox_mode_to_string (policy->mode));
      return NULL;
    }
  if (policy->workspace_root == NULL || !g_path_is_absolute (policy->workspace_root))
    {
      g_autofree char *shown = policy->workspace_root != NULL
                                 ? g_utf8_make_valid (policy->workspace_root, -1)
                                 : NULL;

      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                   "the workspace root must be an absolute path (not \"%s\")",
                   shown != NULL ? shown : "");
      return NULL;
    }

  klass = DSH_SANDBOX_PROVIDER_GET_CLASS (self);
  confined = klass->confine (self, argv, policy, &local_error);

  /* A provider that neither confines nor explains must still fail closed. */
  if (confined == NULL && local_error == NULL)
    {
      g_autofree char *text = dsh_text_unavailable_cause (
        dsh_sandbox_mode_to_string (policy->mode),
        "the sandbox provider returned no confined argv and no error");

      g_set_error_literal (&local_error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_UNAVAILABLE, text);
    }
  if (local_error != NULL)
    {
      g_clear_object (&confined);
      g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }
  return confined;
}
