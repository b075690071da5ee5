/* dsh-backend-selector-private.h — choosing one backend and confining with it, without GObject:
 * the state and logic behind DshLocalProvider, which the command's exec path also uses
 * directly so that it never starts GObject's type system.
 *
 * The chooser has three names, one per layer: DshSandboxProvider is the seam callers program
 * against, DshLocalProvider its GObject implementation for this host, and the selector here the
 * plain-C choosing both the provider and the exec path run on.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dsh-backend-host-private.h"
#include "dsh-confinement-private.h"
#include "dsh-module-loader-private.h"
#include "dsh-policy.h"

G_BEGIN_DECLS

typedef enum {
  PROBE_NOT_RUN,
  PROBE_SKIPPED,
  PROBE_PASSED,
  PROBE_FAILED,
  /* Passed or failed according to a matching cross-process cache entry. */
  PROBE_CACHED,
} ProbeState;

typedef struct {
  /* Borrowed from the selector's modules array. */
  DshBackendModule *module;
  ProbeState probe;
  char *probe_detail;
  /* The runner files its cheap check found (bwrap, the Landlock launcher), NULL-terminated. */
  GStrv runner_files;
  /* What its check's lookups found (DshBackendLookup), answered again to its confine() calls
   * for this selector's lifetime; NULL before the check. */
  GPtrArray *lookups;
  /* A copy of its module's dialect, made by the first confine() that needs it and shared by
   * every result from then on; NULL before. */
  DshDialect *dialect;
} Candidate;

typedef struct {
  GStrv backend_dirs;
  GStrv helper_dirs;
  char *backend_override;
  gboolean backend_dir_ignored;
  /* DSH_SANDBOX_BACKEND_DIR named backend_dirs[0]. */
  gboolean backend_dir_overridden;
  char *probe_cache_path;
  /* Beneath a directory some call granted (or, without a record, anywhere but the default). */
  gboolean probe_cache_granted;
  /* Where no module, helper or runner may come from: the caller's roots, then the directories
   * of granted_code_dirs. */
  GStrv untrusted_roots;
  /* The module and helper directories beneath a directory some call granted, asked when the
   * selector is made and again whenever the record of granted roots changed since (its stamp:
   * identity and times of its directory); a directory granted since fails every call. */
  GStrv granted_code_dirs;
  char *record_stamp;
  /* Held while the code directories are asked again, never with lock. */
  GMutex trust_lock;

  GMutex lock;
  gboolean selection_done;
  /* Selected with only the selected module opened (the head of a cached chain, or the pinned
   * backend's file): modules and candidates hold just that one until something wants the whole
   * chain. */
  gboolean only_selected_loaded;
  GPtrArray *modules;
  /* When the whole chain's directories were last listed (seconds since the epoch), or 0. */
  gint64 scanned_at;
  GPtrArray *candidates;
  Candidate *selected;
  char *selection_failure;
} DshBackendSelector;

/* The backend a DSH_SANDBOX_BACKEND value pins, or NULL for none: unset, empty, or "help" (which
 * only lists them). */
const char         *dsh_backend_override_pins              (const char        *override);

/* See dsh_local_provider_new_for_dirs(): the same directories and environment overrides. */
DshBackendSelector *dsh_backend_selector_new               (const char *const *backend_dirs,
                                                            const char *const *helper_dirs);
void                dsh_backend_selector_free              (DshBackendSelector *self);
/* A new, unselected selector with self's directories, overrides, probe cache and untrusted
 * roots: the next generation of a provider. */
DshBackendSelector *dsh_backend_selector_new_like          (DshBackendSelector *self);
/* Both before the first selection; see the DshLocalProvider setters. */
void                dsh_backend_selector_set_probe_cache   (DshBackendSelector *self,
                                                            const char         *path);
void                dsh_backend_selector_set_untrusted_roots (DshBackendSelector *self,
                                                              const char *const  *roots);
/* The same for roots that are canonical already (dsh_writable_roots()), taking them. */
void                dsh_backend_selector_take_untrusted_roots (DshBackendSelector *self,
                                                               GStrv               canonical_roots);

/* Selects once per selector lifetime, every module of the chain loaded (as a report of the
 * whole chain needs); call with self->lock held. */
void                dsh_backend_selector_select_locked     (DshBackendSelector *self);
/* Selects (thread-safely) and returns the chosen backend's name, or NULL with
 * DSH_SANDBOX_ERROR_UNAVAILABLE (naming mode in its text). */
const char         *dsh_backend_selector_get_selected      (DshBackendSelector *self,
                                                            const char         *mode,
                                                            GError            **error);
GStrv               dsh_backend_selector_list_backends     (DshBackendSelector *self);
/* The module of the backend selected so far, or NULL: borrowed, alive as long as self. */
DshBackendModule   *dsh_backend_selector_selected_module   (DshBackendSelector *self);
/* Runs the module's confine() and checks that the result wraps, never passes through; on
 * success call->argv and call->reasons are NULL-terminated. Clear call either way. */
gboolean            dsh_backend_selector_call_confine      (DshBackendSelector     *self,
                                                            DshBackendModule       *module,
                                                            const char *const      *argv,
                                                            const DshSandboxPolicy *policy,
                                                            DshBackendCall         *call,
                                                            GError                **error);
/* argv is non-empty and policy a confined mode with an absolute workspace (the caller checks,
 * as dsh_sandbox_provider_confine() does). Fails closed with DSH_SANDBOX_ERROR_UNAVAILABLE. */
DshConfinement     *dsh_backend_selector_confine           (DshBackendSelector     *self,
                                                            const char *const      *argv,
                                                            const DshSandboxPolicy *policy,
                                                            GError                **error);
/* The dialect (denial signatures and exclusions, runner-failure rules) of the loaded backend
 * name, as a confinement without argv, for classifying a run its caller spawned; NULL with
 * DSH_SANDBOX_ERROR_INVALID_ARGUMENT when no such backend is loaded. */
DshConfinement     *dsh_backend_selector_dialect           (DshBackendSelector     *self,
                                                            const char             *name,
                                                            GError                **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (DshBackendSelector, dsh_backend_selector_free)

G_END_DECLS
