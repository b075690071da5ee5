/* dsh-backend-fake-host-private.h — a backend host whose program and helper lookups,
 * environment and probe results are answers set in advance: it runs any backend's logic on any
 * machine (confine --target-os and the backends' unit tests) without touching the system.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dsh-backend-host-private.h"

G_BEGIN_DECLS

typedef struct {
  /* First member: what the module reports lands in call, as with the real host. */
  DshBackendCall call;
  GHashTable *programs;
  GHashTable *helpers;
  GHashTable *environment;
  gboolean probe_starts;
  int probe_exit_status;
  char *probe_stderr;
  /* Every argv spawn_probe was asked to run (element type GStrv). */
  GPtrArray *probes;
  /* Whether the module called set_enforcement, and the DshBackendEnforcement it passed, as
   * passed: call.enforcement holds what the core makes of it. */
  gboolean enforcement_set;
  int32_t backend_enforcement;
  /* The real call's set_enforcement, which the fake's records before calling. */
  void (*call_set_enforcement) (DshBackendHost *host, int32_t enforcement);
} DshBackendFakeHost;

/* Knows no program, helper or variable; a probe fails to start. */
DshBackendFakeHost *dsh_backend_fake_host_new         (void);
void                dsh_backend_fake_host_free        (DshBackendFakeHost *self);
/* What find_program (name) answers; path NULL makes it absent again. */
void                dsh_backend_fake_host_set_program (DshBackendFakeHost *self,
                                                       const char         *name,
                                                       const char         *path);
void                dsh_backend_fake_host_set_helper  (DshBackendFakeHost *self,
                                                       const char         *name,
                                                       const char         *path);
void                dsh_backend_fake_host_set_env     (DshBackendFakeHost *self,
                                                       const char         *name,
                                                       const char         *value);
/* How every later probe ends: not started, or with exit_status and that stderr. */
void                dsh_backend_fake_host_set_probe   (DshBackendFakeHost *self,
                                                       gboolean            starts,
                                                       int                 exit_status,
                                                       const char         *stderr_text);
/* Forgets what the last call reported (argv, error, enforcement, reasons, probes) and the
 * module instance it was given. */
void                dsh_backend_fake_host_reset       (DshBackendFakeHost *self);
DshBackendHost     *dsh_backend_fake_host_get_host    (DshBackendFakeHost *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (DshBackendFakeHost, dsh_backend_fake_host_free)

G_END_DECLS
