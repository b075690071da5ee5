/* dsh-permission-presets.h — named bundles of the two knobs (sandbox mode, approval policy),
 * selected per session through the session log.
 *
 * The table is configuration: defaults workspace-write = (workspace-write, ask) and
 * danger-full-access = (danger-full-access, never). "custom" is reserved: it is what current()
 * reports when no entry matches, and it can never be selected or defined.
 *
 * Configuration file (JSON, schemas/config.schema.json), every member optional:
 *   {"defaultMode": "read-only", "defaultApprovalPolicy": "ask", "defaultPreset": "NAME",
 *    "presets": [{"name": "...", "mode": "...", "approvalPolicy": "..."}, ...]}
 * A "presets" member replaces the default table.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib-object.h>

#include "dsh-approval-vocabulary.h"
#include "dsh-mode.h"
#include "dsh-session-log.h"
#include "dsh-api.h"

G_BEGIN_DECLS

#define DSH_TYPE_PERMISSION_PRESETS (dsh_permission_presets_get_type ())
DSH_API
G_DECLARE_FINAL_TYPE (DshPermissionPresets, dsh_permission_presets, DSH, PERMISSION_PRESETS,
                      GObject)

/* The default table; deployment defaults read-only / ask; no default preset. */
DSH_API
DshPermissionPresets *dsh_permission_presets_new            (void);
/* An empty table (add entries with dsh_permission_presets_add). */
DSH_API
DshPermissionPresets *dsh_permission_presets_new_empty      (void);
DSH_API
DshPermissionPresets *dsh_permission_presets_new_from_json  (const char           *json,
                                                             gssize                length,
                                                             GError              **error);
DSH_API
DshPermissionPresets *dsh_permission_presets_new_from_file  (const char           *path,
                                                             GError              **error);

/* Refuses "custom", duplicates, empty names: DSH_SANDBOX_ERROR_INVALID_ARGUMENT. */
DSH_API
gboolean     dsh_permission_presets_add                 (DshPermissionPresets *self,
                                                         const char           *name,
                                                         DshSandboxMode        mode,
                                                         DshApprovalPolicy     policy,
                                                         GError              **error);
DSH_API
gboolean     dsh_permission_presets_lookup              (DshPermissionPresets *self,
                                                         const char           *name,
                                                         DshSandboxMode       *out_mode,
                                                         DshApprovalPolicy    *out_policy);
/* The names in table order. */
DSH_API
GStrv        dsh_permission_presets_dup_names           (DshPermissionPresets *self);

/* The deployment defaults a session without the knob events would run under. */
DSH_API
DshSandboxMode     dsh_permission_presets_get_default_mode            (DshPermissionPresets *self);
DSH_API
void               dsh_permission_presets_set_default_mode            (DshPermissionPresets *self,
                                                                       DshSandboxMode        mode);
DSH_API
DshApprovalPolicy  dsh_permission_presets_get_default_approval_policy (DshPermissionPresets *self);
DSH_API
void               dsh_permission_presets_set_default_approval_policy (DshPermissionPresets *self,
                                                                       DshApprovalPolicy     policy);
/* The deployment's extra writable roots for workspace-write ("extraWritableRoots", absolute,
 * "~/" expanded), pinned into each new session; NULL for none. */
DSH_API
const char *const *dsh_permission_presets_get_extra_writable_roots   (DshPermissionPresets *self);
/* The preset new sessions start with, or NULL (then only the two knobs are pinned). */
DSH_API
const char        *dsh_permission_presets_get_default_preset          (DshPermissionPresets *self);
DSH_API
gboolean           dsh_permission_presets_set_default_preset          (DshPermissionPresets *self,
                                                                       const char           *name,
                                                                       GError              **error);

/* The knobs' effective values for these events: last event ?? deployment default. */
DSH_API
DshSandboxMode     dsh_permission_presets_effective_mode            (DshPermissionPresets *self,
                                                                     GPtrArray            *events);
DSH_API
DshApprovalPolicy  dsh_permission_presets_effective_approval_policy (DshPermissionPresets *self,
                                                                     GPtrArray            *events);

/* The preset these events are under: the last recorded selection if it still matches the
 * effective knobs, else the first matching table entry, else "custom". A new string. */
DSH_API
char        *dsh_permission_presets_current             (DshPermissionPresets *self,
                                                         GPtrArray            *events);

/* Selects a preset: appends `permissionPresets/preset` first when the recorded selection
 * differs, then `sandbox/mode` and `approval/policy` each only when its effective value
 * changes. A net-zero selection appends nothing. Unknown names and "custom" are refused.
 * *out_notice (nullable) receives the notice the host injects for the model when the effective
 * approval policy changed (as dsh_approval_service_set_policy() gives it), else NULL. */
DSH_API
gboolean     dsh_permission_presets_set                 (DshPermissionPresets *self,
                                                         DshSessionLog        *session,
                                                         const char           *name,
                                                         char                **out_notice,
                                                         GError              **error);

/* Creates a session log and pins into it the preset (name, else the default preset, if any),
 * the mode and the approval policy, so later changes of the defaults never alter it. */
DSH_API
DshSessionLog *dsh_permission_presets_create_session    (DshPermissionPresets *self,
                                                         const char           *path,
                                                         const char           *cwd,
                                                         const char           *preset,
                                                         GError              **error);

/* At a resumed session's first use (a log with only its header, or one written before its
 * facts were pinned): appends the `sandbox/mode` and `approval/policy` it lacks, with the values
 * it is under now, and the default preset when that is what it is under, so later changes of
 * the defaults never alter it. A session that has them all appends nothing. Call it before a
 * resumed session's policy is used or shown to a model. */
DSH_API
gboolean       dsh_permission_presets_pin_session      (DshPermissionPresets *self,
                                                         DshSessionLog        *session,
                                                         GError              **error);

G_END_DECLS
