/* dsh-local-provider.c — the provider that loads this host's backend modules: a GObject face on
 * a DshBackendSelector, which does the choosing (dsh-backend-selector.c).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-local-provider-private.h"

#include "dsh-config.h"
#include "dsh-probe-cache-private.h"

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

const char *
dsh_local_provider_get_selected (DshLocalProvider *self, GError **error)
{
  g_return_val_if_fail (DSH_IS_LOCAL_PROVIDER (self), NULL);

  return dsh_backend_selector_get_selected (self->selector, "read-only", error);
}

GStrv
dsh_local_provider_list_backends (DshLocalProvider *self)
{
  g_return_val_if_fail (DSH_IS_LOCAL_PROVIDER (self), NULL);

  return dsh_backend_selector_list_backends (self->selector);
}

void
dsh_local_provider_set_probe_cache (DshLocalProvider *self, const char *path)
{
  g_return_if_fail (DSH_IS_LOCAL_PROVIDER (self));

  dsh_backend_selector_set_probe_cache (self->selector, path);
}

void
dsh_local_provider_set_untrusted_roots (DshLocalProvider *self, const char *const *roots)
{
  g_return_if_fail (DSH_IS_LOCAL_PROVIDER (self));

  dsh_backend_selector_set_untrusted_roots (self->selector, roots);
}

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

DshLocalProvider *
dsh_local_provider_new_for_dirs (const char *const *backend_dirs, const char *const *helper_dirs)
{
  return dsh_local_provider_new_for_selector (dsh_backend_selector_new (backend_dirs,
                                                                        helper_dirs));
}

DshLocalProvider *
dsh_local_provider_new (void)
{
  const char *backend_dirs[] = { DSH_BACKEND_DIR, NULL };
  const char *helper_dirs[] = { DSH_HELPER_DIR, NULL };

  return dsh_local_provider_new_for_dirs (backend_dirs, helper_dirs);
}
