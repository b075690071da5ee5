/* dsh-local-provider-private.h — the local provider's state, shared between its selection
 * (dsh-local-provider.c) and its JSON description (dsh-local-provider-describe.c), which is
 * kept apart so that a consumer without JSON does not load json-glib.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dsh-backend-host-private.h"
#include "dsh-local-provider.h"
#include "dsh-module-loader-private.h"

G_BEGIN_DECLS

typedef enum {
  PROBE_NOT_RUN,
  PROBE_SKIPPED,
  PROBE_PASSED,
  PROBE_FAILED,
  /* Passed or failed according to a fresh cross-process cache entry. */
  PROBE_CACHED,
} ProbeState;

typedef struct {
  /* Borrowed from the provider's modules array. */
  DshBackendModule *module;
  ProbeState probe;
  char *probe_detail;
} Candidate;

struct _DshLocalProvider {
  DshSandboxProvider parent_instance;

  GStrv backend_dirs;
  GStrv helper_dirs;
  char *backend_override;
  gboolean backend_dir_ignored;
  char *probe_cache_path;
  GStrv untrusted_roots;

  GMutex lock;
  gboolean selection_done;
  GPtrArray *modules;
  GPtrArray *candidates;
  Candidate *selected;
  char *selection_failure;
};

/* Selects once per provider lifetime; call with self->lock held. */
void      dsh_local_provider_select_locked (DshLocalProvider       *self);
/* Is this candidate outside the chain DSH_SANDBOX_BACKEND names? */
gboolean  dsh_local_provider_is_excluded   (DshLocalProvider       *self,
                                            const Candidate        *candidate);
/* Runs the module's confine() and checks that the result wraps, never passes through; on
 * success call->argv and call->reasons are NULL-terminated. Clear call either way. */
gboolean  dsh_local_provider_call_confine  (DshLocalProvider       *self,
                                            DshBackendModule       *module,
                                            const char *const      *argv,
                                            const DshSandboxPolicy *policy,
                                            DshBackendCall         *call,
                                            GError                **error);

G_END_DECLS
