/* dsh-backend-host-private.h — one call into a backend module: the host table the module sees
 * and everything it reports back during that call.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

#include "dsh-backend.h"
#include "dsh-confinement-private.h"
#include "dsh-mode.h"
#include "dsh-policy.h"

G_BEGIN_DECLS

/* What one lookup of a program or a helper found, by the name the module asked for. */
typedef struct {
  gboolean helper;
  char *name;
  char *path;
} DshBackendLookup;

typedef struct {
  /* First member: modules receive &call->host. */
  DshBackendHost host;

  const char *const *helper_dirs;
  /* Programs and helpers found beneath these are not used: confined commands may write there. */
  const char *const *untrusted_roots;
  /* The strings of argv. */
  GStringChunk *arg_chunk;
  GPtrArray *argv;
  char *error;
  DshEnforcement enforcement;
  GPtrArray *reasons;
  /* Strings handed to the module stay alive until the call is cleared. */
  GPtrArray *strings;
  /* The programs and helpers handed to the module (borrowed from strings): the runner files
   * what it reports depends on. */
  GPtrArray *programs;
  /* Every lookup that found something in this call (DshBackendLookup), and, when set, the
   * lookups of an earlier call of the same provider (its check()) that answer again instead of
   * a second search; a call with those records none of its own. */
  GPtrArray *lookups;
  const GPtrArray *remembered;
  /* Descriptors the module's first step kept for its runner (ascending), closed with the call. */
  GArray *kept_fds;
  /* Why the last lookup that found a file refused it (an untrusted owner or mode), for the
   * error the module then reports. */
  char *lookup_refusal;
} DshBackendCall;

void  dsh_backend_call_init   (DshBackendCall     *call,
                               const char *const  *helper_dirs,
                               const char *const  *untrusted_roots);

/* Is path (made canonical) beneath one of roots? */
gboolean dsh_backend_path_is_untrusted (const char        *path,
                                        const char *const *roots);
void  dsh_backend_call_clear  (DshBackendCall     *call);

/* Runs descriptor's confine() on an initialised call (name is the backend's, for messages) and
 * checks that the result wraps, never passes through; on success call->argv and call->reasons
 * are NULL-terminated. DSH_SANDBOX_ERROR_UNAVAILABLE otherwise. */
gboolean dsh_backend_call_confine (DshBackendCall             *call,
                                   const char                 *name,
                                   const DshBackendDescriptor *descriptor,
                                   const char *const          *argv,
                                   const DshSandboxPolicy     *policy,
                                   GError                    **error);

/* A copy of descriptor's dialect: its denial signatures and exclusions, its runner-failure
 * rules. */
DshDialect     *dsh_backend_descriptor_dialect_new     (const DshBackendDescriptor *descriptor);

/* The result of a successful dsh_backend_call_confine() with descriptor's dialect and rules,
 * taking call's argv and reasons. */
DshConfinement *dsh_backend_call_to_confinement (DshBackendCall             *call,
                                                 const char                 *name,
                                                 const DshBackendDescriptor *descriptor);

/* The same in a dialect of descriptor's made before, shared (a reference is taken). */
DshConfinement *dsh_backend_call_to_confinement_in (DshBackendCall *call,
                                                    const char     *name,
                                                    DshDialect     *dialect);

/* A program from the system directories first, then PATH; NULL when absent. */
char    *dsh_backend_find_program (const char *name);

/* How long a functional probe may take before it is killed and counted as failed. */
#define DSH_PROBE_TIMEOUT_MS 10000

/* Runs argv with stdin and stdout on /dev/null, stderr captured, killed after timeout_ms.
 * Returns FALSE when it could not start; else *exit_code is its status (128+N for a signal). */
gboolean dsh_backend_run_probe (const char *const *argv,
                                guint              timeout_ms,
                                int               *exit_code,
                                char             **stderr_text,
                                GError           **error);

G_END_DECLS
