/* dsh-local-provider-private.h — the local provider is a GObject face on a DshBackendSelector;
 * its JSON description (dsh-local-provider-describe.c) reads the selector's state, and is kept
 * apart so that a consumer without JSON does not load json-glib.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dsh-backend-selector-private.h"
#include "dsh-local-provider.h"

G_BEGIN_DECLS

struct _DshLocalProvider {
  DshSandboxProvider parent_instance;

  DshBackendSelector *selector;
};

/* A provider around an already configured selector, taking ownership of it. */
DshLocalProvider *dsh_local_provider_new_for_selector (DshBackendSelector *selector);

G_END_DECLS
