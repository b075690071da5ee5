/* dsh-local-provider-private.h — the local provider is a GObject face on a DshBackendSelector;
 * its JSON description (dsh-local-provider-describe.c) reads the selector's state, and is kept
 * apart so that a consumer without JSON does not load json-glib.
 *
 * The selector belongs to a generation: reloading (by hand, or by the module watch) makes a new
 * one with the same configuration, and a call holds the generation it started on to its end, so
 * that the old generation's modules are closed only when its last call is over.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dsh-backend-selector-private.h"
#include "dsh-local-provider.h"

G_BEGIN_DECLS

typedef struct {
  gatomicrefcount ref;
  /* 1 for the provider's first generation, one more for each reload. */
  guint number;
  DshBackendSelector *selector;
} DshProviderGeneration;

struct _DshLocalProvider {
  DshSandboxProvider parent_instance;

  /* Guards current (swapped by a reload, on any thread) and watch. */
  GMutex lock;
  DshProviderGeneration *current;

  /* The module watch (dsh-local-provider-watch.c, on GIO), ended before anything else. */
  gpointer watch;
  GDestroyNotify watch_free;
};

/* A provider around an already configured selector, taking ownership of it. */
DshLocalProvider      *dsh_local_provider_new_for_selector (DshBackendSelector *selector);

/* The current generation, for one call: hold it until the call is done with its selector. */
DshProviderGeneration *dsh_local_provider_acquire       (DshLocalProvider      *self);
/* The last release of a generation closes its modules. */
void                   dsh_provider_generation_release  (DshProviderGeneration *generation);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (DshProviderGeneration, dsh_provider_generation_release)

G_END_DECLS
