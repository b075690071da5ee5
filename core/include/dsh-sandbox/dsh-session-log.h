/* dsh-session-log.h — a session's append-only JSON-lines event log and the folds that are its
 * only state.
 *
 * File format (one JSON object per line, UTF-8, each line ends with "\n"):
 *   line 1   header  {"id": "<uuid>", "cwd": "<absolute dir, immutable>", "created": "<ISO 8601>"}
 *   line 2.. events  {"type": "<type>", "data": {...}, "time": "<ISO 8601>"}
 *
 * Event types this library gives meaning to (schemas/session-event.schema.json):
 *   sandbox/mode              {mode: read-only | workspace-write | danger-full-access}
 *   approval/policy           {policy: ask | never}
 *   permissionPresets/preset  {preset: <table name, never "custom">}
 *   approval/asked            {id, toolName, reason, callId, ...}   turn-scoped, log-only
 *   approval/decided          {id, outcome, ...}            turn-scoped, log-only
 *   turn/start                {id?}
 *   turn/end                  {id?}
 * Any other well-formed type (a harness sharing the file) is kept verbatim and never folded.
 *
 * State is a fold over the events: nothing here caches "the current mode". The in-memory event
 * array is the file's content (after crash-tail repair), not a mirror of any state.
 *
 * Crash-tail repair on load (in memory only; loading never writes the file):
 *   - a torn last line (no trailing newline, or a last line that never closes its object or
 *     holds the zeroes a crash can leave) is dropped; a complete line that will not parse is
 *     damage, an error like any malformed line, and is never cut;
 *   - turn-scoped events outside an open turn are crash residue: dropped with a g_warning;
 *   - anything else that is malformed (a bad middle line, a bad header, a `sandbox/mode` or
 *     `approval/policy` value outside its vocabulary) fails the load with an error naming the line.
 * The torn bytes are physically removed only by the next append, under an exclusive flock(2) and
 * only after re-reading the tail, so bytes another writer committed are never touched; no
 * successfully appended line is ever dropped or rewritten.
 *
 * Appends write one line with O_APPEND under flock(LOCK_EX), then fdatasync; any failure (ENOSPC,
 * EIO, a short write) is a DSH_SANDBOX_ERROR_SESSION_LOG error, the partial bytes are cut back and
 * the event is not part of the log. Lines other processes appended since the load are folded in
 * before an append, so folds after an append see every committed event. Any other program that
 * appends to the file must hold the same flock(LOCK_EX) while it writes. All methods are
 * thread-safe.
 *
 * Reading is strict (RFC 8259, UTF-8, nesting <= 64, no duplicate member names, integers within
 * 64 bits, times in RFC 3339 with an offset) so that every JSON reader sees the same line.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib-object.h>
#include <json-glib/json-glib.h>

#include "dsh-approval-vocabulary.h"
#include "dsh-mode.h"
#include "dsh-api.h"

G_BEGIN_DECLS

typedef enum {
  DSH_SESSION_EVENT_SANDBOX_MODE,
  DSH_SESSION_EVENT_APPROVAL_POLICY,
  DSH_SESSION_EVENT_PERMISSION_PRESET,
  DSH_SESSION_EVENT_APPROVAL_ASKED,
  DSH_SESSION_EVENT_APPROVAL_DECIDED,
  DSH_SESSION_EVENT_TURN_START,
  DSH_SESSION_EVENT_TURN_END,
  /* Any other type: kept, written back never, folded never. */
  DSH_SESSION_EVENT_FOREIGN,
} DshSessionEventKind;

#define DSH_SESSION_EVENT_TYPE_SANDBOX_MODE      "sandbox/mode"
#define DSH_SESSION_EVENT_TYPE_APPROVAL_POLICY   "approval/policy"
#define DSH_SESSION_EVENT_TYPE_PERMISSION_PRESET "permissionPresets/preset"
#define DSH_SESSION_EVENT_TYPE_APPROVAL_ASKED    "approval/asked"
#define DSH_SESSION_EVENT_TYPE_APPROVAL_DECIDED  "approval/decided"
#define DSH_SESSION_EVENT_TYPE_TURN_START        "turn/start"
#define DSH_SESSION_EVENT_TYPE_TURN_END          "turn/end"

/* The reserved, derived preset name: never selectable, never recorded. */
#define DSH_PERMISSION_PRESET_CUSTOM "custom"

/* ---- one event (immutable, reference counted) ------------------------------------------- */

typedef struct _DshSessionEvent DshSessionEvent;

#define DSH_TYPE_SESSION_EVENT (dsh_session_event_get_type ())

DSH_API
GType                dsh_session_event_get_type      (void) G_GNUC_CONST;
DSH_API
DshSessionEvent     *dsh_session_event_ref           (DshSessionEvent       *event);
DSH_API
void                 dsh_session_event_unref         (DshSessionEvent       *event);
DSH_API
DshSessionEventKind  dsh_session_event_get_kind      (const DshSessionEvent *event);
/* The "type" string as written, e.g. "sandbox/mode". */
DSH_API
const char          *dsh_session_event_get_type_name (const DshSessionEvent *event);
/* The "data" object. Borrowed and shared: never modify it. */
DSH_API
JsonObject          *dsh_session_event_get_data      (const DshSessionEvent *event);
/* data[member] when it is a string, else NULL. Borrowed. */
DSH_API
const char          *dsh_session_event_get_string    (const DshSessionEvent *event,
                                                      const char            *member);
/* The "time" string (ISO 8601). */
DSH_API
const char          *dsh_session_event_get_time      (const DshSessionEvent *event);
/* 1-based line in the file (the header is line 1). */
DSH_API
guint                dsh_session_event_get_line      (const DshSessionEvent *event);
/* The event as its JSON line's object (a new node; the envelope {type, data, time}). */
DSH_API
JsonNode            *dsh_session_event_to_json       (const DshSessionEvent *event);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (DshSessionEvent, dsh_session_event_unref)

/* ---- folds: pure functions over an event array (element type DshSessionEvent) ------------ */

/* The last `sandbox/mode`; FALSE when the session never set one. */
DSH_API
gboolean     dsh_session_events_last_mode            (GPtrArray          *events,
                                                      DshSandboxMode     *out_mode);
/* The last `approval/policy`; FALSE when the session never set one. */
DSH_API
gboolean     dsh_session_events_last_approval_policy (GPtrArray          *events,
                                                      DshApprovalPolicy  *out_policy);
/* The last recorded `permissionPresets/preset` name (borrowed from the event), or NULL. */
DSH_API
const char  *dsh_session_events_last_preset          (GPtrArray          *events);
/* TRUE when some `turn/start` has no matching `turn/end` yet. */
DSH_API
gboolean     dsh_session_events_has_open_turn        (GPtrArray          *events);
/* TRUE when the turn with this id is open. */
DSH_API
gboolean     dsh_session_events_turn_is_open         (GPtrArray          *events,
                                                      const char         *turn_id);

/* ---- the log ----------------------------------------------------------------------------- */

#define DSH_TYPE_SESSION_LOG (dsh_session_log_get_type ())
DSH_API
G_DECLARE_FINAL_TYPE (DshSessionLog, dsh_session_log, DSH, SESSION_LOG, GObject)

/* Creates a new log at path (refusing an existing file) with a fresh uuid id, the given cwd
 * (made absolute against the current directory, otherwise kept as spelled: it is canonicalised
 * when a policy is resolved, never lexically here) and the creation time; the header is synced
 * before this returns. No events are written: pinning defaults is the presets' job. */
DSH_API
DshSessionLog  *dsh_session_log_create     (const char     *path,
                                            const char     *cwd,
                                            GError        **error);
/* The same, pinning extra writable roots (absolute; NULL or empty for none) into the header,
 * immutable like the cwd. */
DSH_API
DshSessionLog  *dsh_session_log_create_with_roots (const char        *path,
                                                   const char        *cwd,
                                                   const char *const *extra_writable_roots,
                                                   GError           **error);
/* Loads and repairs (in memory) an existing log; see the top of this file. */
DSH_API
DshSessionLog  *dsh_session_log_load       (const char     *path,
                                            GError        **error);
/* Parses log content from memory (no file, appends fail): for tests, fuzzing and tools that
 * received a log over a pipe. name is used in error messages. */
DSH_API
DshSessionLog  *dsh_session_log_parse      (const char     *name,
                                            const char     *contents,
                                            gsize           length,
                                            GError        **error);

DSH_API
const char     *dsh_session_log_get_path    (DshSessionLog *self);
DSH_API
const char     *dsh_session_log_get_id      (DshSessionLog *self);
DSH_API
const char     *dsh_session_log_get_cwd     (DshSessionLog *self);
DSH_API
const char     *dsh_session_log_get_created (DshSessionLog *self);
/* The extra writable roots pinned at creation (a new array), or NULL when none were. */
DSH_API
GStrv           dsh_session_log_dup_extra_writable_roots (DshSessionLog *self);
/* The header line's object (a new node). */
DSH_API
JsonNode       *dsh_session_log_header_to_json (DshSessionLog *self);

/* A snapshot of the events (a new array holding references); fold over it. */
DSH_API
GPtrArray      *dsh_session_log_dup_events  (DshSessionLog *self);
/* How many lines load dropped as crash residue (torn tail + out-of-turn events). */
DSH_API
guint           dsh_session_log_get_dropped_count (DshSessionLog *self);

/* Appends one event of any type. Known types are validated first: a value outside its
 * vocabulary, a malformed data object, a reserved preset name, or a turn-scoped event outside
 * an open turn is refused (DSH_SANDBOX_ERROR_INVALID_ARGUMENT) and nothing is written. data is
 * copied; NULL means {}. Write or sync failure: DSH_SANDBOX_ERROR_SESSION_LOG. */
DSH_API
gboolean        dsh_session_log_append      (DshSessionLog *self,
                                             const char    *type,
                                             JsonObject    *data,
                                             GError       **error);

/* Typed appends. */
DSH_API
gboolean        dsh_session_log_append_mode            (DshSessionLog      *self,
                                                        DshSandboxMode      mode,
                                                        GError            **error);
DSH_API
gboolean        dsh_session_log_append_approval_policy (DshSessionLog      *self,
                                                        DshApprovalPolicy   policy,
                                                        GError            **error);
DSH_API
gboolean        dsh_session_log_append_preset          (DshSessionLog      *self,
                                                        const char         *preset,
                                                        GError            **error);
/* The audit pair. Both require an open turn (else INVALID_ARGUMENT, nothing written): a bare
 * audit event between turns would be dropped as crash residue on reload. extra (nullable) adds
 * members to data (e.g. callId, requestedMode); it cannot override id/toolName/reason/outcome. */
DSH_API
gboolean        dsh_session_log_append_approval_asked  (DshSessionLog      *self,
                                                        const char         *request_id,
                                                        const char         *tool_name,
                                                        const char         *reason,
                                                        JsonObject         *extra,
                                                        GError            **error);
DSH_API
gboolean        dsh_session_log_append_approval_decided (DshSessionLog     *self,
                                                         const char        *request_id,
                                                         DshApprovalOutcome outcome,
                                                         GError           **error);

/* Turns. begin appends `turn/start {id}` with a fresh uuid and returns that id; end appends
 * `turn/end {id}` and refuses an id that is not open. An exec is one turn. */
DSH_API
char           *dsh_session_log_begin_turn  (DshSessionLog *self,
                                             GError       **error);
DSH_API
gboolean        dsh_session_log_end_turn    (DshSessionLog *self,
                                             const char    *turn_id,
                                             GError       **error);

/* Folds over the current events (convenience wrappers of dsh_session_events_*). */
DSH_API
gboolean        dsh_session_log_has_open_turn        (DshSessionLog     *self);
DSH_API
gboolean        dsh_session_log_turn_is_open         (DshSessionLog     *self,
                                                      const char        *turn_id);
DSH_API
gboolean        dsh_session_log_last_mode            (DshSessionLog     *self,
                                                      DshSandboxMode    *out_mode);
DSH_API
gboolean        dsh_session_log_last_approval_policy (DshSessionLog     *self,
                                                      DshApprovalPolicy *out_policy);
/* A new string, or NULL. */
DSH_API
char           *dsh_session_log_dup_last_preset      (DshSessionLog     *self);

G_END_DECLS
