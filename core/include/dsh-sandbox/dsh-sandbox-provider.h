/* dsh-sandbox-provider.h — the abstract seam: wrap an exact argv for a per-call policy, or fail
 * closed with SANDBOX_UNAVAILABLE. Silent unconfined passthrough is never legal.
 *
 * Of the three names of the chooser, this is the one callers program against: any way to
 * confine (this host's modules, another host, a test double) behind one confine() call.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib-object.h>

#include "dsh-confined-argv.h"
#include "dsh-policy.h"
#include "dsh-api.h"

G_BEGIN_DECLS

#define DSH_TYPE_SANDBOX_PROVIDER (dsh_sandbox_provider_get_type ())
DSH_API
G_DECLARE_DERIVABLE_TYPE (DshSandboxProvider, dsh_sandbox_provider, DSH, SANDBOX_PROVIDER, GObject)

struct _DshSandboxProviderClass {
  GObjectClass parent_class;

  /* The policy is fully specified and confined when this is called. */
  DshConfinedArgv *(*confine) (DshSandboxProvider     *self,
                               const char *const      *argv,
                               const DshSandboxPolicy *policy,
                               GError                **error);

  gpointer padding[8];
};

/* argv is the exact argv the caller would spawn (a shell consumer passes bash -c COMMAND), never
 * a shell string. Fails with DSH_SANDBOX_ERROR_UNAVAILABLE when no backend can enforce policy,
 * and with DSH_SANDBOX_ERROR_INVALID_ARGUMENT for an empty argv or danger-full-access (which
 * consumers run raw, without a provider). */
DSH_API
DshConfinedArgv *dsh_sandbox_provider_confine (DshSandboxProvider     *self,
                                               const char *const      *argv,
                                               const DshSandboxPolicy *policy,
                                               GError                **error);

G_END_DECLS
