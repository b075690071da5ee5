/* dsh-local-provider.c — the provider that loads this host's backend modules: a GObject face on
 * a DshBackendSelector, which does the choosing (dsh-backend-selector.c).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-local-provider-private.h"

#include "dsh-config.h"
#include "dsh-probe-cache-private.h"

/**
 * DshLocalProvider:
 *
 * The provider that loads this host's backend modules, probes a chain of candidates in priority
 * order and caches its choice for its own lifetime.
 *
 * Since: 0.1
 */

G_DEFINE_FINAL_TYPE (DshLocalProvider, dsh_local_provider, DSH_TYPE_SANDBOX_PROVIDER)

static DshConfinedArgv *
dsh_local_provider_confine (DshSandboxProvider *provider,
                            const char *const *argv,
                            const DshSandboxPolicy *policy,
                            GError **error)
{
  DshLocalProvider *self = DSH_LOCAL_PROVIDER (provider);
  DshConfinement *confinement = dsh_backend_selector_confine (self->selector, argv, policy,
                                                              error);

  return confinement != NULL ? dsh_confined_argv_new_take (confinement) : NULL;
}

/**
 * dsh_local_provider_get_selected:
 * @self: a #DshLocalProvider
 * @error: return location for a #GError
 *
 * Selects the backend (once, thread-safely).
 *
 * Returns: (transfer none): the chosen backend's name; %NULL with %DSH_SANDBOX_ERROR_UNAVAILABLE
 *   when there is none
 *
 * Since: 0.1
 */
const char *
dsh_local_provider_get_selected (DshLocalProvider *self, GError **error)
{
  g_return_val_if_fail (DSH_IS_LOCAL_PROVIDER (self), NULL);

  return dsh_backend_selector_get_selected (self->selector, "read-only", error);
}

/**
 * dsh_local_provider_list_backends:
 * @self: a #DshLocalProvider
 *
 * Returns: (transfer full) (array zero-terminated=1): the names of the loaded, usable-looking
 *   backends for this host, in priority order
 *
 * Since: 0.1
 */
GStrv
dsh_local_provider_list_backends (DshLocalProvider *self)
{
  g_return_val_if_fail (DSH_IS_LOCAL_PROVIDER (self), NULL);

  return dsh_backend_selector_list_backends (self->selector);
}

/**
 * dsh_local_provider_set_probe_cache:
 * @self: a #DshLocalProvider
 * @path: (nullable) (type filename): a per-user file, or %NULL never to cache (the default)
 *
 * Remembers a chain's probe results in @path for a few minutes, so that short-lived processes do
 * not probe on every call. Set it before the first confine. A stale or forged entry can only skip
 * one probe, and a file beneath the untrusted roots is neither read nor written.
 *
 * Since: 0.1
 */
void
dsh_local_provider_set_probe_cache (DshLocalProvider *self, const char *path)
{
  g_return_if_fail (DSH_IS_LOCAL_PROVIDER (self));

  dsh_backend_selector_set_probe_cache (self->selector, path);
}

/**
 * dsh_local_provider_set_untrusted_roots:
 * @self: a #DshLocalProvider
 * @roots: (array zero-terminated=1) (nullable): directories confined commands may write
 *
 * Module files, helpers and runner programs found beneath @roots are refused before any of their
 * code runs, since a confined command could have planted them for the next call. Set it before the
 * first confine.
 *
 * Since: 0.1
 */
void
dsh_local_provider_set_untrusted_roots (DshLocalProvider *self, const char *const *roots)
{
  g_return_if_fail (DSH_IS_LOCAL_PROVIDER (self));

  dsh_backend_selector_set_untrusted_roots (self->selector, roots);
}

/**
 * dsh_local_provider_default_probe_cache:
 *
 * Returns: (transfer full) (nullable) (type filename): the per-user probe cache file, or %NULL
 *   when no private directory for it can be made
 *
 * Since: 0.1
 */
char *
dsh_local_provider_default_probe_cache (void)
{
  return dsh_probe_cache_default_path ();
}

static void
dsh_local_provider_finalize (GObject *object)
{
  DshLocalProvider *self = DSH_LOCAL_PROVIDER (object);

  dsh_backend_selector_free (self->selector);

  G_OBJECT_CLASS (dsh_local_provider_parent_class)->finalize (object);
}

static void
dsh_local_provider_class_init (DshLocalProviderClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = dsh_local_provider_finalize;
  DSH_SANDBOX_PROVIDER_CLASS (klass)->confine = dsh_local_provider_confine;
}

static void
dsh_local_provider_init (DshLocalProvider *self)
{
}

DshLocalProvider *
dsh_local_provider_new_for_selector (DshBackendSelector *selector)
{
  DshLocalProvider *self = g_object_new (DSH_TYPE_LOCAL_PROVIDER, NULL);

  self->selector = selector;
  return self;
}

/**
 * dsh_local_provider_new_for_dirs:
 * @backend_dirs: (array zero-terminated=1): the directories modules are loaded from
 * @helper_dirs: (array zero-terminated=1): the directories helper programs are found in
 *
 * Returns: (transfer full): a new provider for this host that looks only in these directories
 *
 * Since: 0.1
 */
DshLocalProvider *
dsh_local_provider_new_for_dirs (const char *const *backend_dirs, const char *const *helper_dirs)
{
  return dsh_local_provider_new_for_selector (dsh_backend_selector_new (backend_dirs,
                                                                        helper_dirs));
}

/**
 * dsh_local_provider_new:
 *
 * Modules come from the installed backend directory, helpers from the installed helper directory.
 * `DSH_SANDBOX_BACKEND_DIR` replaces the module directory unless the process is setuid or setgid;
 * `DSH_SANDBOX_BACKEND=name` restricts the chain to that backend (`help` lists them). A provider's
 * lifetime is the unit of reload: a new provider rescans and probes again.
 *
 * Returns: (transfer full): a new provider for this host
 *
 * Since: 0.1
 */
DshLocalProvider *
dsh_local_provider_new (void)
{
  const char *backend_dirs[] = { DSH_BACKEND_DIR, NULL };
  const char *helper_dirs[] = { DSH_HELPER_DIR, NULL };

  return dsh_local_provider_new_for_dirs (backend_dirs, helper_dirs);
}
