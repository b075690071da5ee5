/* dsh-session-fold-cache.c — a session log's fold cache: a copy of the fold of a prefix of the
 * file, never the truth. Where it lives (one file per log, named by a hash of the log's
 * canonical path, in a private directory of the user), what it holds, and when it may stand in
 * for reading that prefix.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-session-fold-cache-private.h"
#include "dsh-session-log-private.h"
#include "dsh-session-event-private.h"

#include <string.h>

#include "dsh-error.h"

#include "dsh-platform-private.h"
#include "dsh-root-grants-private.h"
#include "dsh-roots.h"
#include "dsh-json-strict-private.h"
#include "dsh-vocabulary-private.h"

/* ---- where the cache lives --------------------------------------------------------------- */

char *
dsh_session_fold_cache_path (const char *log_path)
{
  g_autofree char *dir = dsh_fold_cache_dir ();
  g_autofree char *canonical = NULL;
  g_autofree char *granted = NULL;
  g_autofree char *name = NULL;
  const char *tmp = g_get_tmp_dir ();

  if (dir == NULL)
    return NULL;
  /* Shared scratch space is within every confined command's reach. */
  if (dsh_path_is_beneath (dir, "/tmp") || dsh_path_is_beneath (dir, tmp) ||
      dsh_path_is_beneath (dir, "/var/tmp") || dsh_path_is_beneath (dir, "/dev/shm"))
    return NULL;
  /* So is a directory some call granted (and what lies beneath it), whatever this call's roots:
   * a command of that call could have left a fold there for this log, as it could have
   * rewritten a log there. Nothing there is read or written; the log is read whole. (Without
   * a record nothing can be told apart, and nothing is believed either.) */
  granted = dsh_root_grants_untrusted_above (dir);
  if (granted != NULL)
    return NULL;
  if (g_mkdir_with_parents (dir, 0700) != 0 || !dsh_platform_is_private_dir (dir))
    return NULL;
  canonical = dsh_canonical_path (log_path);
  name = g_compute_checksum_for_string (G_CHECKSUM_SHA256, canonical, -1);
  return g_strdup_printf ("%s/%s.json", dir, name);
}

/* ---- what the cache holds ---------------------------------------------------------------- */

/* 2: "fine", and times only where they were settled. */
#define FOLD_CACHE_VERSION 2

static JsonNode *
string_or_null (const char *value)
{
  JsonNode *node = json_node_alloc ();

  return value != NULL ? json_node_init_string (node, value) : json_node_init_null (node);
}

/* The file's identity as the cache records it: device, inode, change and modification time
 * (volume serial number and file index on Windows). */
static void
set_identity (JsonObject *object, const DshSessionFileInfo *info)
{
  g_autofree char *dev = g_strdup_printf ("%" G_GUINT64_FORMAT, info->volume);
  g_autofree char *ino = g_strdup_printf ("%" G_GUINT64_FORMAT, info->index);
  g_autofree char *ctime_text = g_strdup_printf ("%" G_GINT64_FORMAT ".%09u", info->change_sec,
                                                 info->change_nsec);
  g_autofree char *mtime_text = g_strdup_printf ("%" G_GINT64_FORMAT ".%09u", info->modify_sec,
                                                 info->modify_nsec);

  json_object_set_string_member (object, "dev", dev);
  json_object_set_string_member (object, "ino", ino);
  json_object_set_string_member (object, "ctime", ctime_text);
  json_object_set_string_member (object, "mtime", mtime_text);
}

/* Whether the cache says the file's times are fine-grained; FALSE for anything but a boolean. */
static gboolean
get_fine (JsonObject *cache)
{
  JsonNode *node = json_object_get_member (cache, "fine");

  return node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
         json_node_get_value_type (node) == G_TYPE_BOOLEAN && json_node_get_boolean (node);
}

/* The fold of the committed bytes, and (with info) the identity of the file they came from.
 * Caller holds the lock or owns the object. */
static JsonObject *
fold_to_object (DshSessionLog *self, const DshSessionFileInfo *info)
{
  JsonObject *object = json_object_new ();
  JsonArray *turns = json_array_new ();
  g_autoptr (JsonNode) header = json_node_new (JSON_NODE_OBJECT);
  g_autofree char *hash = NULL;

  json_object_set_int_member (object, "v", FOLD_CACHE_VERSION);
  if (info != NULL)
    {
      set_identity (object, info);
      json_object_set_boolean_member (object, "fine", self->times_fine);
    }
  json_object_set_int_member (object, "size", self->committed);
  json_object_set_int_member (object, "lines", self->lines);
  json_object_set_int_member (object, "dropped", self->dropped);
  hash = g_strdup_printf ("%016" G_GINT64_MODIFIER "x", self->hash);
  json_object_set_string_member (object, "hash", hash);
  json_node_set_object (header, self->header);
  json_object_set_member (object, "header", json_node_copy (header));
  json_object_set_member (object, "mode", string_or_null (self->fold.mode));
  json_object_set_member (object, "policy", string_or_null (self->fold.policy));
  json_object_set_member (object, "preset", string_or_null (self->fold.preset));
  for (guint i = 0; i < self->fold.open_turns->len; i++)
    json_array_add_string_element (turns, self->fold.open_turns->pdata[i]);
  json_object_set_array_member (object, "openTurns", turns);
  return object;
}

static gboolean
get_count (JsonObject *object, const char *member, gint64 max, gint64 *out)
{
  JsonNode *node = json_object_get_member (object, member);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_INT64)
    return FALSE;
  *out = json_node_get_int (node);
  return *out >= 0 && *out <= max;
}

/* NULL for JSON null; FALSE for anything but a string or null. */
static gboolean
get_string_or_null (JsonObject *object, const char *member, const char **out)
{
  JsonNode *node = json_object_get_member (object, member);

  if (node == NULL)
    return FALSE;
  if (JSON_NODE_HOLDS_NULL (node))
    {
      *out = NULL;
      return TRUE;
    }
  *out = dsh_session_object_get_string (object, member);
  return *out != NULL;
}

/* Restores a fold written by fold_to_object() into a fresh log; anything unexpected (a member
 * missing or extra, a value outside its vocabulary) refuses the whole cache. */
static gboolean
fold_from_object (DshSessionLog *self, JsonObject *object, gboolean with_identity)
{
  const char *mode_text, *policy_text, *preset, *hash_text;
  JsonNode *header, *turns;
  DshSandboxMode mode;
  DshApprovalPolicy policy;
  gint64 version, size, lines, dropped;
  guint64 hash;
  char *end;

  if (json_object_get_size (object) != (with_identity ? 15u : 10u) ||
      !get_count (object, "v", G_MAXINT, &version) || version != FOLD_CACHE_VERSION ||
      !get_count (object, "size", G_MAXINT64, &size) ||
      !get_count (object, "lines", G_MAXUINT, &lines) || lines < 1 ||
      !get_count (object, "dropped", G_MAXUINT, &dropped) ||
      (hash_text = dsh_session_object_get_string (object, "hash")) == NULL ||
      strlen (hash_text) != 16 ||
      !get_string_or_null (object, "mode", &mode_text) ||
      !get_string_or_null (object, "policy", &policy_text) ||
      !get_string_or_null (object, "preset", &preset))
    return FALSE;
  hash = g_ascii_strtoull (hash_text, &end, 16);
  if (*end != '\0' || !g_ascii_isxdigit (hash_text[0]))
    return FALSE;
  if ((mode_text != NULL && !dsh_sandbox_mode_from_string (mode_text, &mode, NULL)) ||
      (policy_text != NULL && !dsh_approval_policy_from_string (policy_text, &policy, NULL)) ||
      (preset != NULL && (*preset == '\0' || g_str_equal (preset, DSH_PERMISSION_PRESET_CUSTOM))))
    return FALSE;
  header = json_object_get_member (object, "header");
  if (header == NULL || !JSON_NODE_HOLDS_OBJECT (header) ||
      !dsh_session_header_validate (json_node_get_object (header), NULL))
    return FALSE;
  turns = json_object_get_member (object, "openTurns");
  if (turns == NULL || !JSON_NODE_HOLDS_ARRAY (turns))
    return FALSE;
  for (guint i = 0; i < json_array_get_length (json_node_get_array (turns)); i++)
    {
      JsonNode *id = json_array_get_element (json_node_get_array (turns), i);

      if (!JSON_NODE_HOLDS_VALUE (id) || json_node_get_value_type (id) != G_TYPE_STRING)
        return FALSE;
      g_ptr_array_add (self->fold.open_turns, g_strdup (json_node_get_string (id)));
    }
  self->header = json_object_ref (json_node_get_object (header));
  self->fold.mode = g_strdup (mode_text);
  self->fold.policy = g_strdup (policy_text);
  self->fold.preset = g_strdup (preset);
  self->committed = (goffset) size;
  self->lines = (guint) lines;
  self->dropped = (guint) dropped;
  self->hash = hash;
  return TRUE;
}

char *
dsh_session_log_fold_to_string (DshSessionLog *self)
{
  g_autoptr (JsonObject) object = NULL;
  gsize length;

  g_return_val_if_fail (DSH_IS_SESSION_LOG (self), NULL);
  g_mutex_lock (&self->lock);
  object = fold_to_object (self, NULL);
  g_mutex_unlock (&self->lock);
  return dsh_session_line_from_object (object, &length);
}

DshSessionLog *
dsh_session_log_parse_continuing (const char *fold, const char *contents, gsize length,
                                  GError **error)
{
  g_autoptr (DshSessionLog) self = g_object_new (DSH_TYPE_SESSION_LOG, NULL);
  g_autoptr (JsonNode) root = NULL;
  gboolean syntax_error;

  g_return_val_if_fail (fold != NULL, NULL);
  self->name = g_strdup ("(memory)");
  root = dsh_json_strict_parse (fold, strlen (fold), &syntax_error, NULL);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root) ||
      !fold_from_object (self, json_node_get_object (root), FALSE))
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_SESSION_LOG,
                   "not a session fold");
      return NULL;
    }
  if (!dsh_session_log_consume_all (self, contents != NULL ? contents : "", length, error))
    return NULL;
  return g_steal_pointer (&self);
}

/* A cache that cannot be written only costs the next load a full read. Written whole and
 * renamed into place. */
void
dsh_session_log_store_fold_cache (DshSessionLog *self)
{
  g_autoptr (JsonObject) object = NULL;
  g_autofree char *text = NULL;
  DshSessionFileInfo info = self->known;
  gsize length;

  /* The identity vouches for the content only when the file is exactly what was folded, as
   * known before a load read it (taken after, it would vouch for whatever a writer that holds
   * no lock put there meanwhile) or right after our append, and only with times that were
   * settled (a write in the same tick leaves unsettled ones as they were); otherwise a zero
   * time makes the next load check the prefix's hash. */
  if (info.size != self->committed || !info.settled)
    {
      info.change_sec = info.modify_sec = 0;
      info.change_nsec = info.modify_nsec = 0;
    }
  object = fold_to_object (self, &info);
  text = dsh_session_line_from_object (object, &length);
  dsh_session_write_private_file (self->fold_cache, text, length);
}

/* Reads a cache file only if it is a regular file of ours that nobody else can read or write. */
static JsonObject *
read_fold_cache (const char *path)
{
  g_autoptr (JsonNode) root = NULL;
  g_autofree char *text = NULL;
  gboolean syntax_error;
  gsize length;

  text = dsh_session_read_private_file (path, 1024 * 1024 + 1, &length);
  if (text == NULL)
    return NULL;
  root = dsh_json_strict_parse (text, length, &syntax_error, NULL);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return NULL;
  return json_object_ref (json_node_get_object (root));
}

static gboolean
same_string (JsonObject *a, JsonObject *b, const char *member)
{
  return g_strcmp0 (dsh_session_object_get_string (a, member),
                    dsh_session_object_get_string (b, member)) == 0;
}

static gboolean
identity_matches (JsonObject *cache, const DshSessionFileInfo *info, gboolean *exact)
{
  g_autoptr (JsonObject) file = json_object_new ();
  gint64 size;

  set_identity (file, info);
  if (!same_string (cache, file, "dev") || !same_string (cache, file, "ino") ||
      !get_count (cache, "size", G_MAXINT64, &size) || size > info->size)
    return FALSE;
  /* Same size, same change time: nothing was written since (every write moves ctime; the
   * cache keeps the times only where they were settled). */
  *exact = size == info->size && same_string (cache, file, "ctime") &&
           same_string (cache, file, "mtime");
  return TRUE;
}

gboolean
dsh_session_file_prefix_hashes_to (DshSessionFile *file, goffset length, guint64 hash)
{
  g_autofree char *chunk = g_malloc (1024 * 1024);
  guint64 h = DSH_SESSION_LOG_HASH_INIT;
  goffset done = 0;

  while (done < length)
    {
      gssize n = dsh_session_file_read_at (file, chunk, (gsize) MIN (length - done, 1024 * 1024),
                                           done);

      if (n <= 0)
        return FALSE;
      h = dsh_session_log_hash_update (h, chunk, (gsize) n);
      done += n;
    }
  return h == hash;
}

/* Is the file's first line exactly the header the cache holds? */
static gboolean
header_line_matches (DshSessionFile *file, JsonObject *cached)
{
  g_autofree char *head = g_malloc (65536);
  g_autoptr (JsonObject) header = NULL;
  g_autofree char *cached_line = NULL;
  g_autofree char *file_line = NULL;
  gboolean syntax_error;
  gsize length;
  gssize n;
  char *newline;

  n = dsh_session_file_read_at (file, head, 65536, 0);
  if (n <= 0 || (newline = memchr (head, '\n', (gsize) n)) == NULL)
    return FALSE;
  header = dsh_session_line_parse (head, (gsize) (newline - head), &syntax_error, NULL);
  if (header == NULL || !dsh_session_header_validate (header, NULL))
    return FALSE;
  cached_line = dsh_session_line_from_object (cached, &length);
  file_line = dsh_session_line_from_object (header, &length);
  return g_str_equal (cached_line, file_line);
}

/* Restores the cached fold into self when the cache still describes a prefix of this very
 * file; FALSE leaves self untouched for a full read. */
static gboolean
restore_fold_cache (DshSessionLog *self, DshSessionFile *file, const DshSessionFileInfo *info,
                    gboolean *out_exact)
{
  g_autoptr (JsonObject) cache = read_fold_cache (self->fold_cache);
  g_autoptr (DshSessionLog) probe = NULL;
  gboolean exact = FALSE;

  if (cache == NULL || !identity_matches (cache, info, &exact))
    return FALSE;
  probe = g_object_new (DSH_TYPE_SESSION_LOG, NULL);
  if (!fold_from_object (probe, cache, TRUE))
    return FALSE;
  if (!exact && !dsh_session_file_prefix_hashes_to (file, probe->committed, probe->hash))
    return FALSE;
  /* The header (the session's workspace) always comes from the file itself: the caller
   * judges from it whether this very cache was out of the session's reach. */
  if (!header_line_matches (file, probe->header))
    return FALSE;
  self->header = g_steal_pointer (&probe->header);
  dsh_session_fold_clear (&self->fold);
  dsh_session_fold_copy (&self->fold, &probe->fold);
  self->committed = probe->committed;
  self->lines = probe->lines;
  self->dropped = probe->dropped;
  self->hash = probe->hash;
  /* Probed on this very file (same device and inode): its times, read at open, are settled. */
  self->times_fine = get_fine (cache);
  if (self->times_fine)
    self->known.settled = TRUE;
  *out_exact = exact;
  return TRUE;
}

DshSessionLog *
dsh_session_log_load_cached (const char *path, const char *fold_cache, GError **error)
{
  g_autoptr (DshSessionLog) self = NULL;
  g_autoptr (DshSessionFile) file = NULL;
  g_autofree char *contents = NULL;
  DshSessionFileInfo info;
  gsize length = 0;
  gboolean restored;
  gboolean exact = FALSE;

  g_return_val_if_fail (path != NULL, NULL);
  if (fold_cache == NULL)
    return dsh_session_log_load (path, error);

  file = dsh_session_file_open (path, DSH_SESSION_FILE_READ, &info, error);
  if (file == NULL)
    return NULL;
  self = dsh_session_log_new_for_file (path, &info);
  self->fold_cache = g_strdup (fold_cache);

  /* Only the events after the cached prefix are read; they continue its fold exactly as
   * they would continue a full one. */
  restored = restore_fold_cache (self, file, &info, &exact);
  contents = dsh_session_file_read_from (file, restored ? self->committed : 0, &length, error);
  if (contents == NULL || !dsh_session_log_consume_all (self, contents, length, error))
    return NULL;
  /* A prefix proved by its hash while the times have settled since is stored with them, so
   * the next load need not prove it again. */
  if (!restored || length > 0 || (!exact && self->known.settled))
    dsh_session_log_store_fold_cache (self);
  return g_steal_pointer (&self);
}
