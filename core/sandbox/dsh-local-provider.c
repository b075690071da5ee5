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

static DshProviderGeneration *
generation_new (guint number, DshBackendSelector *selector)
{
  DshProviderGeneration *generation = g_new0 (DshProviderGeneration, 1);

  g_atomic_ref_count_init (&generation->ref);
  generation->number = number;
  generation->selector = selector;
  return generation;
}

void
dsh_provider_generation_release (DshProviderGeneration *generation)
{
  if (!g_atomic_ref_count_dec (&generation->ref))
    return;
  dsh_backend_selector_free (generation->selector);
  g_free (generation);
}

DshProviderGeneration *
dsh_local_provider_acquire (DshLocalProvider *self)
{
  DshProviderGeneration *generation;

  g_mutex_lock (&self->lock);
  generation = self->current;
  g_atomic_ref_count_inc (&generation->ref);
  g_mutex_unlock (&self->lock);
  return generation;
}

static DshConfinedArgv *
dsh_local_provider_confine (DshSandboxProvider *provider,
                            const char *const *argv,
                            const DshSandboxPolicy *policy,
                            GError **error)
{
  g_autoptr (DshProviderGeneration) generation = dsh_local_provider_acquire (
    DSH_LOCAL_PROVIDER (provider));
  DshConfinement *confinement = dsh_backend_selector_confine (generation->selector, argv,
                                                              policy, error);

  /* The result owns copies of everything it holds: it outlives the generation's modules. */
  return confinement != NULL ? dsh_confined_argv_new_take (confinement) : NULL;
}

/**
 * dsh_local_provider_reload:
 * @self: a #DshLocalProvider
 *
 * Starts a new generation now: the next call rescans the module directories and selects again,
 * with the same directories, overrides, probe cache and untrusted roots. Calls in flight finish
 * on the generation they started on, whose modules are closed when the last of them ends.
 *
 * Since: 0.2
 */
void
dsh_local_provider_reload (DshLocalProvider *self)
{
  DshProviderGeneration *old;

  g_return_if_fail (DSH_IS_LOCAL_PROVIDER (self));

  g_mutex_lock (&self->lock);
  old = self->current;
  self->current = generation_new (old->number + 1,
                                  dsh_backend_selector_new_like (old->selector));
  g_mutex_unlock (&self->lock);
  dsh_provider_generation_release (old);
}

/**
 * dsh_local_provider_get_generation:
 * @self: a #DshLocalProvider
 *
 * Returns: the number of the current generation: 1 for a new provider, one more after each
 *   reload (dsh_local_provider_reload(), or a change dsh_local_provider_watch_modules() saw)
 *
 * Since: 0.2
 */
guint
dsh_local_provider_get_generation (DshLocalProvider *self)
{
  guint number;

  g_return_val_if_fail (DSH_IS_LOCAL_PROVIDER (self), 0);

  g_mutex_lock (&self->lock);
  number = self->current->number;
  g_mutex_unlock (&self->lock);
  return number;
}

/**
 * dsh_local_provider_get_selected:
 * @self: a #DshLocalProvider
 * @error: return location for a #GError
 *
 * Selects the backend (once, thread-safely).
 *
 * Returns: (transfer none): the chosen backend's name (an interned string, valid for the life of
 *   the process); %NULL with %DSH_SANDBOX_ERROR_UNAVAILABLE when there is none
 *
 * Since: 0.1
 */
const char *
dsh_local_provider_get_selected (DshLocalProvider *self, GError **error)
{
  g_autoptr (DshProviderGeneration) generation = NULL;
  const char *name;

  g_return_val_if_fail (DSH_IS_LOCAL_PROVIDER (self), NULL);

  generation = dsh_local_provider_acquire (self);
  name = dsh_backend_selector_get_selected (generation->selector, "read-only", error);
  /* Backend names are interned: they outlive the generation whose module gave them. */
  return name != NULL ? g_intern_string (name) : NULL;
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
  g_autoptr (DshProviderGeneration) generation = NULL;

  g_return_val_if_fail (DSH_IS_LOCAL_PROVIDER (self), NULL);

  generation = dsh_local_provider_acquire (self);
  return dsh_backend_selector_list_backends (generation->selector);
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

  /* Under the provider's lock: a reload copies this setting into the next generation. */
  g_mutex_lock (&self->lock);
  dsh_backend_selector_set_probe_cache (self->current->selector, path);
  g_mutex_unlock (&self->lock);
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

  g_mutex_lock (&self->lock);
  dsh_backend_selector_set_untrusted_roots (self->current->selector, roots);
  g_mutex_unlock (&self->lock);
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

  /* First the watch, which may be renewing this very provider on its own thread. */
  if (self->watch != NULL)
    self->watch_free (self->watch);
  dsh_provider_generation_release (self->current);
  g_mutex_clear (&self->lock);

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
  g_mutex_init (&self->lock);
}

DshLocalProvider *
dsh_local_provider_new_for_selector (DshBackendSelector *selector)
{
  DshLocalProvider *self = g_object_new (DSH_TYPE_LOCAL_PROVIDER, NULL);

  self->current = generation_new (1, selector);
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
