/* dsh-session-log-append.c — appending to the session log: under an exclusive file lock, after
 * folding in what other writers committed and cutting a torn tail, one line validated as a load
 * will read it, synced before the call returns.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-session-log-private.h"
#include "dsh-session-event-private.h"

#include <string.h>

#include "dsh-error.h"
#include "dsh-vocabulary-private.h"

static gboolean
same_file_state (const DshSessionFileInfo *a, const DshSessionFileInfo *b)
{
  return a->size == b->size && a->change_sec == b->change_sec &&
         a->change_nsec == b->change_nsec && a->modify_sec == b->modify_sec &&
         a->modify_nsec == b->modify_nsec;
}

/* Under the file lock: folds in whatever other writers committed since our load, and cuts a
 * torn tail a crashed writer left (every live writer holds this lock while writing, so bytes
 * past the last complete line belong to nobody). */
static gboolean
catch_up (DshSessionLog *self, DshSessionFile *file, GError **error)
{
  g_autofree char *tail = NULL;
  DshSessionFileInfo info;
  gsize length = 0;
  gsize consumed = 0;

  if (!dsh_session_file_query (file, &info, error))
    return FALSE;
  if (info.volume != self->known.volume || info.index != self->known.index)
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_SESSION_LOG,
                   "%s: the session log was replaced since it was loaded", self->name);
      return FALSE;
    }
  if (info.size < self->committed)
    {
      /* Someone cut committed events: the log is no longer what we folded. Fail closed. */
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_SESSION_LOG,
                   "%s: the session log shrank below its committed length", self->name);
      return FALSE;
    }
  /* Its times moved since we last knew it: someone else wrote it. Another writer only adds
   * lines under this lock, but a harness rewriting the log in place keeps its inode and may
   * keep its size, and our event must not extend a fold of bytes the file no longer holds.
   * Times that were not settled when we read them may not have moved for such a write. */
  if (!(same_file_state (&info, &self->known) && self->known.settled) &&
      !dsh_session_file_prefix_hashes_to (file, self->committed, self->hash))
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_SESSION_LOG,
                   "%s: the session log was rewritten since it was loaded", self->name);
      return FALSE;
    }
  if (info.size == self->committed)
    return TRUE;

  tail = dsh_session_file_read_from (file, self->committed, &length, error);
  if (tail == NULL)
    return FALSE;
  if (!dsh_session_log_consume_lines (self, tail, length, &consumed, error))
    return FALSE;
  if (consumed < length)
    {
      g_info ("%s: cutting a torn last line (%" G_GSIZE_FORMAT " bytes) before appending",
              self->name, length - consumed);
      if (!dsh_session_file_truncate (file, self->committed, "cut the torn tail", error))
        return FALSE;
    }
  return TRUE;
}

/* Append-time checks that depend on the log's current turn structure. */
static gboolean
check_turn_scope (DshSessionLog *self, const DshSessionEvent *event, GError **error)
{
  /* The rule loading applies: what a reload would drop as crash residue is refused here. */
  if (dsh_session_fold_accepts (&self->fold, event))
    return TRUE;
  if (dsh_session_event_is_turn_scoped (event))
    g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                 "%s outside an open turn: the approval audit pair must be turn-enclosed "
                 "(a bare event between turns is crash residue on reload)",
                 dsh_session_event_get_type_name (event));
  else
    g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                 "turn/end for a turn that is not open");
  return FALSE;
}

/* Stamps the envelope with the time and renders it as the line a later load will read. The
 * line is validated exactly as that load will: a value refused on load is refused here, and
 * nothing json-glib generates that the strict reader would reject (say a NaN, or invalid
 * UTF-8) ever reaches the file. */
static DshSessionEvent *
stamp_and_render (JsonObject *envelope, char **out_line, gsize *out_length, GError **error)
{
  g_autofree char *time = dsh_session_time_now ();
  g_autofree char *line = NULL;
  g_autoptr (JsonObject) reread = NULL;
  DshSessionEvent *event = NULL;
  GError *local_error = NULL;
  gboolean syntax_error;
  gsize length;

  json_object_set_string_member (envelope, "time", time);
  line = dsh_session_line_from_object (envelope, &length);
  reread = dsh_session_line_parse (line, length - 1, &syntax_error, &local_error);
  if (reread != NULL)
    event = dsh_session_event_new_from_object (reread, 0, &local_error);
  if (event == NULL)
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                   "refusing to append: %s", local_error->message);
      g_error_free (local_error);
      return NULL;
    }
  *out_line = g_steal_pointer (&line);
  *out_length = length;
  return event;
}

static DshSessionEvent *
append_locked (DshSessionLog *self, JsonObject *envelope, GError **error)
{
  g_autoptr (DshSessionEvent) event = NULL;
  g_autoptr (DshSessionFile) file = NULL;
  g_autofree char *line = NULL;
  DshSessionFileInfo info;
  gsize length = 0;

  if (self->path == NULL)
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_SESSION_LOG,
                   "%s: a log parsed from memory cannot be appended to", self->name);
      return NULL;
    }

  file = dsh_session_file_open (self->path, DSH_SESSION_FILE_APPEND, &info, error);
  if (file == NULL || !dsh_session_file_lock (file, error))
    return NULL;

  /* The time is taken under the lock, so the file's order is the order of its times. */
  if (!catch_up (self, file, error) ||
      (event = stamp_and_render (envelope, &line, &length, error)) == NULL ||
      !check_turn_scope (self, event, error))
    return NULL;

  if (!dsh_session_file_append (file, line, length, "append to the session log", error))
    {
      /* The event is not part of the log: cut back whatever reached the file, so no torn or
       * unsynced line outlives the error we report. */
      dsh_session_file_truncate (file, self->committed, "cut back a failed append", NULL);
      return NULL;
    }

  self->lines++;
  self->committed += (goffset) length;
  self->hash = dsh_session_log_hash_update (self->hash, line, length);
  dsh_session_fold_step (&self->fold, event);
  dsh_session_event_set_line (event, self->lines);
  /* What we know of the file now is what our write left; a time that cannot be read makes
   * the next append prove the prefix again. Our write's times are as new as can be: they are
   * settled only where the file system stamps finely (probed once, before they are read). */
  if (!self->times_fine)
    self->times_fine = dsh_session_file_times_are_fine (file);
  if (dsh_session_file_query (file, &info, NULL) && info.volume == self->known.volume &&
      info.index == self->known.index)
    {
      self->known = info;
      self->known.settled = self->known.settled || self->times_fine;
    }
  else
    {
      self->known.change_sec = -1;
      self->known.settled = FALSE;
    }
  /* Still under the lock: the cache follows the file in the order writers wrote it. */
  if (self->fold_cache != NULL)
    dsh_session_log_store_fold_cache (self);
  return g_steal_pointer (&event);
}

/**
 * dsh_session_log_append:
 * @self: a #DshSessionLog
 * @type: the event's type
 * @data: (nullable): the event's data, copied; %NULL means `{}`
 * @error: return location for a #GError
 *
 * Appends one event of any type. Known types are validated first: a value outside its vocabulary,
 * a malformed data object, a reserved preset name or a turn-scoped event outside an open turn is
 * refused with %DSH_SANDBOX_ERROR_INVALID_ARGUMENT and nothing is written.
 *
 * Returns: %TRUE once the line is synced; %FALSE with @error set (%DSH_SANDBOX_ERROR_SESSION_LOG
 *   when writing failed)
 *
 * Since: 0.1
 */
gboolean
dsh_session_log_append (DshSessionLog *self, const char *type, JsonObject *data, GError **error)
{
  g_autoptr (JsonObject) envelope = json_object_new ();
  DshSessionEvent *event;

  g_return_val_if_fail (DSH_IS_SESSION_LOG (self), FALSE);
  g_return_val_if_fail (type != NULL, FALSE);

  json_object_set_string_member (envelope, "type", type);
  if (data != NULL)
    {
      g_autoptr (JsonNode) node = json_node_new (JSON_NODE_OBJECT);

      json_node_set_object (node, data);
      json_object_set_member (envelope, "data", json_node_copy (node));
    }
  else
    json_object_set_object_member (envelope, "data", json_object_new ());

  g_mutex_lock (&self->lock);
  event = append_locked (self, envelope, error);
  if (event != NULL)
    g_ptr_array_add (self->events, event);
  g_mutex_unlock (&self->lock);
  return event != NULL;
}

/**
 * dsh_session_log_append_mode:
 * @self: a #DshSessionLog
 * @mode: the session's new mode
 * @error: return location for a #GError
 *
 * Appends `sandbox/mode`.
 *
 * Returns: %TRUE once the line is synced, else %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
dsh_session_log_append_mode (DshSessionLog *self, DshSandboxMode mode, GError **error)
{
  g_autoptr (JsonObject) data = json_object_new ();
  if (!dsh_sandbox_mode_is_valid (mode))
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                   "sandbox mode %d is outside the vocabulary", (int) mode);
      return FALSE;
    }
  json_object_set_string_member (data, "mode", dsh_sandbox_mode_to_string (mode));
  return dsh_session_log_append (self, DSH_SESSION_EVENT_TYPE_SANDBOX_MODE, data, error);
}

/**
 * dsh_session_log_append_approval_policy:
 * @self: a #DshSessionLog
 * @policy: the session's new approval policy
 * @error: return location for a #GError
 *
 * Appends `approval/policy`.
 *
 * Returns: %TRUE once the line is synced, else %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
dsh_session_log_append_approval_policy (DshSessionLog *self, DshApprovalPolicy policy,
                                        GError **error)
{
  g_autoptr (JsonObject) data = json_object_new ();
  if (!dsh_approval_policy_is_valid (policy))
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                   "approval policy %d is outside the vocabulary", (int) policy);
      return FALSE;
    }
  json_object_set_string_member (data, "policy", dsh_approval_policy_to_string (policy));
  return dsh_session_log_append (self, DSH_SESSION_EVENT_TYPE_APPROVAL_POLICY, data, error);
}

/**
 * dsh_session_log_append_preset:
 * @self: a #DshSessionLog
 * @preset: a preset's name, never `custom`
 * @error: return location for a #GError
 *
 * Appends `permissionPresets/preset`.
 *
 * Returns: %TRUE once the line is synced, else %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
dsh_session_log_append_preset (DshSessionLog *self, const char *preset, GError **error)
{
  g_autoptr (JsonObject) data = json_object_new ();

  g_return_val_if_fail (preset != NULL, FALSE);
  json_object_set_string_member (data, "preset", preset);
  return dsh_session_log_append (self, DSH_SESSION_EVENT_TYPE_PERMISSION_PRESET, data, error);
}

static JsonObject *
data_with_extra (JsonObject *extra)
{
  JsonObject *data = json_object_new ();

  if (extra != NULL)
    {
      JsonObjectIter iter;
      const char *member;
      JsonNode *node;

      json_object_iter_init (&iter, extra);
      while (json_object_iter_next (&iter, &member, &node))
        json_object_set_member (data, member, json_node_copy (node));
    }
  return data;
}

/**
 * dsh_session_log_append_approval_asked:
 * @self: a #DshSessionLog
 * @request_id: the request's id, shared with its `approval/decided`
 * @tool_name: the asking tool
 * @reason: the question's reason
 * @extra: (nullable): members added to the data (e.g. `callId`); they cannot override the others
 * @error: return location for a #GError
 *
 * Appends the first half of the audit pair. It requires an open turn.
 *
 * Returns: %TRUE once the line is synced, else %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
dsh_session_log_append_approval_asked (DshSessionLog *self, const char *request_id,
                                       const char *tool_name, const char *reason,
                                       JsonObject *extra, GError **error)
{
  g_autoptr (JsonObject) data = data_with_extra (extra);

  g_return_val_if_fail (request_id != NULL && tool_name != NULL && reason != NULL, FALSE);
  /* Set after the extras, so they can never override the audited fields. */
  json_object_set_string_member (data, "id", request_id);
  json_object_set_string_member (data, "toolName", tool_name);
  json_object_set_string_member (data, "reason", reason);
  return dsh_session_log_append (self, DSH_SESSION_EVENT_TYPE_APPROVAL_ASKED, data, error);
}

/**
 * dsh_session_log_append_approval_decided:
 * @self: a #DshSessionLog
 * @request_id: the request's id
 * @outcome: the decision
 * @error: return location for a #GError
 *
 * Appends the second half of the audit pair. It requires an open turn.
 *
 * Returns: %TRUE once the line is synced, else %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
dsh_session_log_append_approval_decided (DshSessionLog *self, const char *request_id,
                                         DshApprovalOutcome outcome, GError **error)
{
  return dsh_session_log_append_approval_decided_because (self, request_id, outcome, NULL, error);
}

gboolean
dsh_session_log_append_approval_decided_because (DshSessionLog *self, const char *request_id,
                                                 DshApprovalOutcome outcome, const char *cause,
                                                 GError **error)
{
  g_autoptr (JsonObject) data = json_object_new ();

  g_return_val_if_fail (request_id != NULL, FALSE);
  if (!dsh_approval_outcome_is_valid (outcome))
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                   "approval outcome %d is outside the vocabulary", (int) outcome);
      return FALSE;
    }
  json_object_set_string_member (data, "id", request_id);
  json_object_set_string_member (data, "outcome", dsh_approval_outcome_to_string (outcome));
  if (cause != NULL)
    {
      /* The log holds JSON text, whatever bytes an answerer's error holds, and a sentence of
       * it: every later load reads the line again. */
      g_autofree char *valid = g_utf8_make_valid (cause, -1);

      if (strlen (valid) > DSH_APPROVAL_CAUSE_MAX)
        *g_utf8_find_prev_char (valid, valid + DSH_APPROVAL_CAUSE_MAX + 1) = '\0';
      json_object_set_string_member (data, "cause", valid);
    }
  return dsh_session_log_append (self, DSH_SESSION_EVENT_TYPE_APPROVAL_DECIDED, data, error);
}

/**
 * dsh_session_log_begin_turn:
 * @self: a #DshSessionLog
 * @error: return location for a #GError
 *
 * Appends `turn/start` with a fresh id. An exec is one turn.
 *
 * Returns: (transfer full): the turn's id, or %NULL with @error set
 *
 * Since: 0.1
 */
char *
dsh_session_log_begin_turn (DshSessionLog *self, GError **error)
{
  g_autoptr (JsonObject) data = json_object_new ();
  g_autofree char *id = g_uuid_string_random ();

  json_object_set_string_member (data, "id", id);
  if (!dsh_session_log_append (self, DSH_SESSION_EVENT_TYPE_TURN_START, data, error))
    return NULL;
  return g_steal_pointer (&id);
}

/**
 * dsh_session_log_end_turn:
 * @self: a #DshSessionLog
 * @turn_id: an open turn's id
 * @error: return location for a #GError
 *
 * Appends `turn/end`; an id that is not open is refused.
 *
 * Returns: %TRUE once the line is synced, else %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
dsh_session_log_end_turn (DshSessionLog *self, const char *turn_id, GError **error)
{
  g_autoptr (JsonObject) data = json_object_new ();

  g_return_val_if_fail (turn_id != NULL, FALSE);
  json_object_set_string_member (data, "id", turn_id);
  return dsh_session_log_append (self, DSH_SESSION_EVENT_TYPE_TURN_END, data, error);
}
