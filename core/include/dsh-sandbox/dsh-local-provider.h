/* dsh-local-provider.h — the provider that loads this host's backend modules, probes a chain of
 * candidates in priority order and caches its choice for its own lifetime.
 *
 * It is the GObject face of the selector (DshBackendSelector, private), which does the
 * choosing: a reference-counted, introspectable object for C and language-binding callers.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

#include "dsh-sandbox-provider.h"
#include "dsh-api.h"

G_BEGIN_DECLS

#define DSH_TYPE_LOCAL_PROVIDER (dsh_local_provider_get_type ())
DSH_API
G_DECLARE_FINAL_TYPE (DshLocalProvider, dsh_local_provider, DSH, LOCAL_PROVIDER,
                      DshSandboxProvider)

/* Modules from the installed backend directory, helpers from the installed helper directory.
 * DSH_SANDBOX_BACKEND_DIR replaces the module directories unless the process is setuid/setgid;
 * DSH_SANDBOX_BACKEND=name restricts the chain to that backend ("help" lists them). A provider
 * lifetime is the unit of hot reload: a new provider rescans and re-probes. */
DSH_API
DshLocalProvider *dsh_local_provider_new           (void);
DSH_API
DshLocalProvider *dsh_local_provider_new_for_dirs  (const char *const *backend_dirs,
                                                    const char *const *helper_dirs);

/* Remember a chain's probe results in this per-user file for a few minutes, so that short-lived
 * processes do not probe on every call (NULL: never; the default). Set it before the first
 * confine(). A stale or forged entry can only skip one probe, and a file beneath the untrusted
 * roots (see below) is neither read nor written. */
DSH_API
void              dsh_local_provider_set_probe_cache (DshLocalProvider *self,
                                                      const char       *path);
DSH_API
char             *dsh_local_provider_default_probe_cache (void);

/* Directories confined commands may write (a workspace): module files, helpers and runner
 * programs found beneath them are refused, before any of their code runs, since a confined
 * command could have planted them for the next call. Set it before the first confine(). */
DSH_API
void              dsh_local_provider_set_untrusted_roots (DshLocalProvider  *self,
                                                          const char *const *roots);

/* Selects (once, thread-safely) and returns the chosen backend's name; on failure sets
 * DSH_SANDBOX_ERROR_UNAVAILABLE and returns NULL. */
DSH_API
const char       *dsh_local_provider_get_selected  (DshLocalProvider  *self,
                                                    GError           **error);

/* The names of the loaded, usable-looking backends for this host, in priority order. */
DSH_API
GStrv             dsh_local_provider_list_backends (DshLocalProvider  *self);

/* A provider lifetime is made of generations: each scans the module directories and selects
 * once. reload() starts a new one now; calls in flight finish on theirs, whose modules are
 * closed when the last of them ends. */
DSH_API
void              dsh_local_provider_reload        (DshLocalProvider  *self);
DSH_API
guint             dsh_local_provider_get_generation (DshLocalProvider *self);

/* Opt in to hot reload: a thread of the provider's own watches its module directories and
 * starts a new generation whenever a module file there is added, replaced, changed or removed.
 * FALSE, with an error naming the directory, when one cannot be watched. */
DSH_API
gboolean          dsh_local_provider_watch_modules (DshLocalProvider  *self,
                                                    GError           **error);

/* The probe document (schemas/probe.schema.json): every candidate, refused ones with their
 * reason, each probe result, and the chosen backend with its enforcement and reasons. */
DSH_API
JsonNode         *dsh_local_provider_describe      (DshLocalProvider  *self);

G_END_DECLS
