/* dsh-session-log.c — the session log object: loading a file or memory with its crash tail
 * repaired, creating a file with its header synced, and the queries on the fold it keeps.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-session-log-private.h"
#include "dsh-session-event-private.h"
#include "dsh-roots-private.h"

#include <glib/gstdio.h>
#include <string.h>

#include "dsh-error.h"

/**
 * DshSessionLog:
 *
 * A session's append-only JSON-lines event log. Its state is a fold over its events; appends hold
 * an exclusive file lock (flock(2); LockFileEx() on Windows) and are synced before they return. All methods are thread-safe.
 *
 * Since: 0.1
 */

/* ---- the log object ---------------------------------------------------------------------- */

G_DEFINE_FINAL_TYPE (DshSessionLog, dsh_session_log, G_TYPE_OBJECT)

static void
dsh_session_log_finalize (GObject *object)
{
  DshSessionLog *self = DSH_SESSION_LOG (object);

  g_mutex_clear (&self->lock);
  g_free (self->path);
  g_free (self->name);
  g_clear_pointer (&self->header, json_object_unref);
  g_clear_pointer (&self->events, g_ptr_array_unref);
  dsh_session_fold_clear (&self->fold);
  g_free (self->fold_cache);
  G_OBJECT_CLASS (dsh_session_log_parent_class)->finalize (object);
}

static void
dsh_session_log_class_init (DshSessionLogClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = dsh_session_log_finalize;
}

static void
dsh_session_log_init (DshSessionLog *self)
{
  g_mutex_init (&self->lock);
  self->events = g_ptr_array_new_with_free_func ((GDestroyNotify) dsh_session_event_unref);
  dsh_session_fold_init (&self->fold);
  self->hash = DSH_SESSION_LOG_HASH_INIT;
}

DshSessionLog *
dsh_session_log_new_for_file (const char *path, const DshSessionFileInfo *info)
{
  DshSessionLog *self = g_object_new (DSH_TYPE_SESSION_LOG, NULL);

  self->path = g_strdup (path);
  self->name = g_strdup (path);
  self->known = *info;
  return self;
}

void
dsh_session_file_info_settle (DshSessionFileInfo *info)
{
  gint64 now = g_get_real_time ();
  gint64 changed = info->change_sec * G_USEC_PER_SEC + info->change_nsec / 1000;
  gint64 modified = info->modify_sec * G_USEC_PER_SEC + info->modify_nsec / 1000;

  gboolean whole_seconds = info->change_nsec == 0 && info->modify_nsec == 0;

  info->settled = now - MAX (changed, modified) >=
                  (whole_seconds ? DSH_SESSION_TIME_GRANULE_USEC : DSH_SESSION_TIME_TICK_USEC);
}

guint64
dsh_session_log_hash_update (guint64 hash, const char *data, gsize length)
{
  const guchar *p = (const guchar *) data;

  for (gsize i = 0; i < length; i++)
    hash = (hash ^ p[i]) * G_GUINT64_CONSTANT (0x100000001b3);
  return hash;
}

static gboolean
session_log_error (GError **error, const char *name, guint line, GError *cause)
{
  g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_SESSION_LOG, "%s:%u: %s", name, line,
               cause->message);
  g_error_free (cause);
  return FALSE;
}

/* A crash leaves a prefix of a line, or zeroes where its data should be; a line that closes its
 * object was written whole, whatever its content. */
static gboolean
looks_torn (const char *line, gsize length)
{
  if (memchr (line, '\0', length) != NULL)
    return TRUE;
  while (length > 0 && g_ascii_isspace (line[length - 1]))
    length--;
  return length == 0 || line[length - 1] != '}';
}

gboolean
dsh_session_log_consume_lines (DshSessionLog *self, const char *buf, gsize length,
                               gsize *out_consumed, GError **error)
{
  g_autoptr (GPtrArray) fresh = g_ptr_array_new_with_free_func (
    (GDestroyNotify) dsh_session_event_unref);
  g_autoptr (JsonObject) header = NULL;
  guint lines = self->lines;
  guint dropped = 0;
  gsize pos = 0;
  DshSessionFold fold;

  dsh_session_fold_copy (&fold, &self->fold);

  while (pos < length)
    {
      const char *start = buf + pos;
      const char *newline = memchr (start, '\n', length - pos);
      g_autoptr (JsonObject) object = NULL;
      g_autoptr (DshSessionEvent) event = NULL;
      GError *local_error = NULL;
      gboolean syntax_error;
      guint line_no = lines + 1;

      /* No newline: the last append never completed. */
      if (newline == NULL)
        break;

      object = dsh_session_line_parse (start, (gsize) (newline - start), &syntax_error,
                                       &local_error);
      if (object == NULL)
        {
          /* An unparsable last line that never closes its object (or holds the zeroes a crash
           * can leave where data should be) is a torn append too; a complete line that will not
           * parse, here or anywhere else, is damage that we refuse to guess around — and never
           * cut. */
          if (syntax_error && (gsize) (newline - buf) + 1 == length &&
              looks_torn (start, (gsize) (newline - start)))
            {
              g_clear_error (&local_error);
              break;
            }
          dsh_session_fold_clear (&fold);
          return session_log_error (error, self->name, line_no, local_error);
        }

      if (self->header == NULL && header == NULL)
        {
          if (!dsh_session_header_validate (object, &local_error))
            {
              dsh_session_fold_clear (&fold);
              return session_log_error (error, self->name, line_no, local_error);
            }
          header = g_steal_pointer (&object);
        }
      else
        {
          event = dsh_session_event_new_from_object (object, line_no, &local_error);
          if (event == NULL)
            {
              dsh_session_fold_clear (&fold);
              return session_log_error (error, self->name, line_no, local_error);
            }
          if (dsh_session_fold_step (&fold, event))
            g_ptr_array_add (fresh, g_steal_pointer (&event));
          else
            {
              /* Nothing else is dropped: only what the turn structure proves is residue. */
              g_warning ("%s:%u: dropping \"%s\" outside an open turn (crash residue)",
                         self->name, line_no, dsh_session_event_get_type_name (event));
              dropped++;
            }
        }

      lines++;
      pos = (gsize) (newline - buf) + 1;
    }

  if (self->header == NULL && header == NULL)
    {
      dsh_session_fold_clear (&fold);
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_SESSION_LOG,
                   "%s: no complete session header (empty or torn file)", self->name);
      return FALSE;
    }

  if (header != NULL)
    self->header = g_steal_pointer (&header);
  g_ptr_array_extend_and_steal (self->events, g_steal_pointer (&fresh));
  dsh_session_fold_clear (&self->fold);
  self->fold = fold;
  self->hash = dsh_session_log_hash_update (self->hash, buf, pos);
  self->lines = lines;
  self->dropped += dropped;
  self->committed += (goffset) pos;
  *out_consumed = pos;
  return TRUE;
}

gboolean
dsh_session_log_consume_all (DshSessionLog *self, const char *buf, gsize length, GError **error)
{
  gsize consumed;

  if (!dsh_session_log_consume_lines (self, buf, length, &consumed, error))
    return FALSE;
  if (consumed < length)
    {
      g_info ("%s: dropping a torn last line (%" G_GSIZE_FORMAT " bytes)", self->name,
              length - consumed);
      self->torn = 1;
    }
  return TRUE;
}

/**
 * dsh_session_log_parse:
 * @name: what error messages call the content
 * @contents: (array length=length) (element-type guint8): log content
 * @length: how many bytes @contents holds
 * @error: return location for a #GError
 *
 * Parses log content from memory: for tests, fuzzing and tools that received a log over a pipe.
 * Appends to such a log fail.
 *
 * Returns: (transfer full): the log, or %NULL with @error set
 *
 * Since: 0.1
 */
DshSessionLog *
dsh_session_log_parse (const char *name, const char *contents, gsize length, GError **error)
{
  g_autoptr (DshSessionLog) self = g_object_new (DSH_TYPE_SESSION_LOG, NULL);

  g_return_val_if_fail (contents != NULL || length == 0, NULL);

  self->name = g_strdup (name != NULL ? name : "(memory)");
  if (!dsh_session_log_consume_all (self, contents != NULL ? contents : "", length, error))
    return NULL;
  return g_steal_pointer (&self);
}


/**
 * dsh_session_log_load:
 * @path: (type filename): an existing log
 * @error: return location for a #GError
 *
 * Loads a log and repairs a crash's tail in memory (loading never writes the file).
 *
 * Returns: (transfer full): the log, or %NULL with @error set (naming the line at fault)
 *
 * Since: 0.1
 */
DshSessionLog *
dsh_session_log_load (const char *path, GError **error)
{
  g_autoptr (DshSessionLog) self = NULL;
  g_autoptr (DshSessionFile) file = NULL;
  g_autofree char *contents = NULL;
  DshSessionFileInfo info;
  gsize length = 0;

  g_return_val_if_fail (path != NULL, NULL);

  file = dsh_session_file_open (path, DSH_SESSION_FILE_READ, &info, error);
  if (file == NULL)
    return NULL;
  contents = dsh_session_file_read_from (file, 0, &length, error);
  g_clear_pointer (&file, dsh_session_file_close);
  if (contents == NULL)
    return NULL;

  self = dsh_session_log_new_for_file (path, &info);
  /* Loading never writes: the repair lives in memory until the next append. */
  if (!dsh_session_log_consume_all (self, contents, length, error))
    return NULL;
  return g_steal_pointer (&self);
}

/**
 * dsh_session_log_create:
 * @path: (type filename): where the log goes; an existing file is refused
 * @cwd: (type filename): the session's working directory, made absolute against the current
 *   directory and otherwise kept as spelled
 * @error: return location for a #GError
 *
 * Creates a log with a fresh id, @cwd and the creation time; the header is synced before this
 * returns. No events are written: pinning defaults is the presets' job.
 *
 * Returns: (transfer full): the new log, or %NULL with @error set
 *
 * Since: 0.1
 */
DshSessionLog *
dsh_session_log_create (const char *path, const char *cwd, GError **error)
{
  return dsh_session_log_create_with_roots (path, cwd, NULL, error);
}

/**
 * dsh_session_log_create_with_roots:
 * @path: (type filename): where the log goes; an existing file is refused
 * @cwd: (type filename): the session's working directory
 * @extra_writable_roots: (array zero-terminated=1) (nullable): absolute extra writable roots,
 *   pinned into the header and immutable like the cwd
 * @error: return location for a #GError
 *
 * dsh_session_log_create() with extra writable roots.
 *
 * Returns: (transfer full): the new log, or %NULL with @error set
 *
 * Since: 0.1
 */
DshSessionLog *
dsh_session_log_create_with_roots (const char *path,
                                   const char *cwd,
                                   const char *const *extra_writable_roots,
                                   GError **error)
{
  g_autoptr (DshSessionLog) self = NULL;
  g_autoptr (JsonObject) header = json_object_new ();
  g_autofree char *absolute = NULL;
  g_autofree char *created = dsh_session_time_now ();
  g_autofree char *id = g_uuid_string_random ();
  g_autofree char *line = NULL;
  g_autoptr (DshSessionFile) file = NULL;
  GError *local_error = NULL;
  gboolean syntax_error;
  gsize length;
  DshSessionFileInfo info;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (cwd != NULL, NULL);

  if (*cwd == '\0' || !g_utf8_validate (cwd, -1, NULL))
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                   "a session cwd must be a non-empty UTF-8 path");
      return NULL;
    }
  /* Absolute against the current directory, but not lexically normalised: "a/link/../b" must
   * keep meaning what chdir would reach when the policy canonicalises it. */
  absolute = dsh_absolute_path_as_spelled (cwd);

  json_object_set_string_member (header, "id", id);
  json_object_set_string_member (header, "cwd", absolute);
  json_object_set_string_member (header, "created", created);
  if (extra_writable_roots != NULL && extra_writable_roots[0] != NULL)
    {
      JsonArray *roots = json_array_new ();

      for (gsize i = 0; extra_writable_roots[i] != NULL; i++)
        json_array_add_string_element (roots, extra_writable_roots[i]);
      json_object_set_array_member (header, "writableRoots", roots);
    }
  line = dsh_session_line_from_object (header, &length);

  /* What we write must load: check the line with the reader's own rules first. */
  g_clear_pointer (&header, json_object_unref);
  header = dsh_session_line_parse (line, length - 1, &syntax_error, &local_error);
  if (header == NULL || !dsh_session_header_validate (header, &local_error))
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                   "cannot write a valid session header: %s", local_error->message);
      g_error_free (local_error);
      return NULL;
    }

  file = dsh_session_file_create (path, error);
  if (file == NULL)
    return NULL;
  if (!dsh_session_file_append (file, line, length, "write the session header", error) ||
      !dsh_session_file_query (file, &info, error))
    {
      g_clear_pointer (&file, dsh_session_file_close);
      g_unlink (path);
      return NULL;
    }
  g_clear_pointer (&file, dsh_session_file_close);
  dsh_session_sync_directory_of (path);

  self = dsh_session_log_new_for_file (path, &info);
  self->header = g_steal_pointer (&header);
  self->lines = 1;
  self->committed = (goffset) length;
  self->hash = dsh_session_log_hash_update (self->hash, line, length);
  return g_steal_pointer (&self);
}

/**
 * dsh_session_log_get_path:
 * @self: a #DshSessionLog
 *
 * Returns: (transfer none) (nullable) (type filename): the log's file, %NULL for a parsed log
 *
 * Since: 0.1
 */
const char *
dsh_session_log_get_path (DshSessionLog *self)
{
  g_return_val_if_fail (DSH_IS_SESSION_LOG (self), NULL);
  return self->path;
}

/**
 * dsh_session_log_get_id:
 * @self: a #DshSessionLog
 *
 * Returns: (transfer none): the session's id
 *
 * Since: 0.1
 */
/* The header is immutable after load/create, so its strings are safe to hand out unlocked. */
const char *
dsh_session_log_get_id (DshSessionLog *self)
{
  g_return_val_if_fail (DSH_IS_SESSION_LOG (self), NULL);
  return dsh_session_object_get_string (self->header, "id");
}

/**
 * dsh_session_log_get_cwd:
 * @self: a #DshSessionLog
 *
 * Returns: (transfer none) (type filename): the session's working directory, as recorded
 *
 * Since: 0.1
 */
const char *
dsh_session_log_get_cwd (DshSessionLog *self)
{
  g_return_val_if_fail (DSH_IS_SESSION_LOG (self), NULL);
  return dsh_session_object_get_string (self->header, "cwd");
}

/**
 * dsh_session_log_get_created:
 * @self: a #DshSessionLog
 *
 * Returns: (transfer none): the session's creation time (ISO 8601)
 *
 * Since: 0.1
 */
const char *
dsh_session_log_get_created (DshSessionLog *self)
{
  g_return_val_if_fail (DSH_IS_SESSION_LOG (self), NULL);
  return dsh_session_object_get_string (self->header, "created");
}

/**
 * dsh_session_log_dup_extra_writable_roots:
 * @self: a #DshSessionLog
 *
 * Returns: (transfer full) (array zero-terminated=1) (nullable): the extra writable roots pinned
 *   at creation, or %NULL when none were
 *
 * Since: 0.1
 */
GStrv
dsh_session_log_dup_extra_writable_roots (DshSessionLog *self)
{
  g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();
  JsonNode *node;

  g_return_val_if_fail (DSH_IS_SESSION_LOG (self), NULL);

  node = json_object_get_member (self->header, "writableRoots");
  if (node == NULL)
    return NULL;
  /* Checked when the header was read. */
  for (guint i = 0; i < json_array_get_length (json_node_get_array (node)); i++)
    g_strv_builder_add (builder, json_array_get_string_element (json_node_get_array (node), i));
  return g_strv_builder_end (builder);
}

/**
 * dsh_session_log_header_to_json:
 * @self: a #DshSessionLog
 *
 * Returns: (transfer full): the header line's object
 *
 * Since: 0.1
 */
JsonNode *
dsh_session_log_header_to_json (DshSessionLog *self)
{
  g_autoptr (JsonNode) node = json_node_new (JSON_NODE_OBJECT);

  g_return_val_if_fail (DSH_IS_SESSION_LOG (self), NULL);
  json_node_set_object (node, self->header);
  return json_node_copy (node);
}

static gpointer
copy_event_ref (gconstpointer event, gpointer user_data)
{
  return dsh_session_event_ref ((DshSessionEvent *) event);
}

/**
 * dsh_session_log_dup_events:
 * @self: a #DshSessionLog
 *
 * Returns: (transfer container) (element-type DshSessionEvent): a snapshot of the events; fold
 *   over it
 *
 * Since: 0.1
 */
GPtrArray *
dsh_session_log_dup_events (DshSessionLog *self)
{
  GPtrArray *copy;

  g_return_val_if_fail (DSH_IS_SESSION_LOG (self), NULL);
  g_mutex_lock (&self->lock);
  copy = g_ptr_array_copy (self->events, copy_event_ref, NULL);
  g_ptr_array_set_free_func (copy, (GDestroyNotify) dsh_session_event_unref);
  g_mutex_unlock (&self->lock);
  return copy;
}

/**
 * dsh_session_log_get_dropped_count:
 * @self: a #DshSessionLog
 *
 * Returns: how many lines loading dropped as crash residue
 *
 * Since: 0.1
 */
guint
dsh_session_log_get_dropped_count (DshSessionLog *self)
{
  guint dropped;

  g_return_val_if_fail (DSH_IS_SESSION_LOG (self), 0);
  g_mutex_lock (&self->lock);
  dropped = self->dropped + self->torn;
  g_mutex_unlock (&self->lock);
  return dropped;
}

/**
 * dsh_session_log_has_open_turn:
 * @self: a #DshSessionLog
 *
 * Returns: %TRUE when some turn of the session is open
 *
 * Since: 0.1
 */
gboolean
dsh_session_log_has_open_turn (DshSessionLog *self)
{
  gboolean open;

  g_return_val_if_fail (DSH_IS_SESSION_LOG (self), FALSE);
  g_mutex_lock (&self->lock);
  open = self->fold.open_turns->len > 0;
  g_mutex_unlock (&self->lock);
  return open;
}

/**
 * dsh_session_log_turn_is_open:
 * @self: a #DshSessionLog
 * @turn_id: a turn's id
 *
 * Returns: %TRUE when the turn with this id is open
 *
 * Since: 0.1
 */
gboolean
dsh_session_log_turn_is_open (DshSessionLog *self, const char *turn_id)
{
  guint index;
  gboolean open;

  g_return_val_if_fail (DSH_IS_SESSION_LOG (self), FALSE);
  g_return_val_if_fail (turn_id != NULL, FALSE);
  g_mutex_lock (&self->lock);
  open = dsh_session_fold_find_turn (&self->fold, turn_id, &index);
  g_mutex_unlock (&self->lock);
  return open;
}

/**
 * dsh_session_log_last_mode:
 * @self: a #DshSessionLog
 * @out_mode: (out): the session's last `sandbox/mode`
 *
 * Returns: %TRUE with @out_mode set; %FALSE when the session never set a mode
 *
 * Since: 0.1
 */
gboolean
dsh_session_log_last_mode (DshSessionLog *self, DshSandboxMode *out_mode)
{
  gboolean found;

  g_return_val_if_fail (DSH_IS_SESSION_LOG (self), FALSE);
  g_mutex_lock (&self->lock);
  /* Every folded value passed validation, so parsing cannot fail here. */
  found = self->fold.mode != NULL &&
          dsh_sandbox_mode_from_string (self->fold.mode, out_mode, NULL);
  g_mutex_unlock (&self->lock);
  return found;
}

/**
 * dsh_session_log_last_approval_policy:
 * @self: a #DshSessionLog
 * @out_policy: (out): the session's last `approval/policy`
 *
 * Returns: %TRUE with @out_policy set; %FALSE when the session never set one
 *
 * Since: 0.1
 */
gboolean
dsh_session_log_last_approval_policy (DshSessionLog *self, DshApprovalPolicy *out_policy)
{
  gboolean found;

  g_return_val_if_fail (DSH_IS_SESSION_LOG (self), FALSE);
  g_mutex_lock (&self->lock);
  found = self->fold.policy != NULL &&
          dsh_approval_policy_from_string (self->fold.policy, out_policy, NULL);
  g_mutex_unlock (&self->lock);
  return found;
}

/**
 * dsh_session_log_dup_last_preset:
 * @self: a #DshSessionLog
 *
 * Returns: (transfer full) (nullable): the last recorded preset's name
 *
 * Since: 0.1
 */
char *
dsh_session_log_dup_last_preset (DshSessionLog *self)
{
  char *preset;

  g_return_val_if_fail (DSH_IS_SESSION_LOG (self), NULL);
  g_mutex_lock (&self->lock);
  preset = g_strdup (self->fold.preset);
  g_mutex_unlock (&self->lock);
  return preset;
}
