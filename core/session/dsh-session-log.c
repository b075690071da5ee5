/* dsh-session-log.c — the append-only JSON-lines session log: strict line parsing, crash-tail
 * repair on load, locked and synced appends, and the folds that are the session's only state.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-session-log.h"
#include "dsh-roots-private.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dsh-error.h"
#include "dsh-vocabulary-private.h"
#include "dsh-json-strict-private.h"

/* ---- events ------------------------------------------------------------------------------ */

struct _DshSessionEvent {
  gatomicrefcount ref;
  DshSessionEventKind kind;
  guint line;
  /* The whole envelope as read or written; type, data and time point into it. */
  JsonObject *object;
  const char *type;
  JsonObject *data;
  const char *time;
};

/* GLib's boxed-type macro converts to a transparent union, which -Wpedantic rejects. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
G_DEFINE_BOXED_TYPE (DshSessionEvent, dsh_session_event, dsh_session_event_ref,
                     dsh_session_event_unref)
#pragma GCC diagnostic pop

DshSessionEvent *
dsh_session_event_ref (DshSessionEvent *event)
{
  g_return_val_if_fail (event != NULL, NULL);
  g_atomic_ref_count_inc (&event->ref);
  return event;
}

void
dsh_session_event_unref (DshSessionEvent *event)
{
  if (event == NULL || !g_atomic_ref_count_dec (&event->ref))
    return;
  json_object_unref (event->object);
  g_free (event);
}

DshSessionEventKind
dsh_session_event_get_kind (const DshSessionEvent *event)
{
  return event->kind;
}

const char *
dsh_session_event_get_type_name (const DshSessionEvent *event)
{
  return event->type;
}

JsonObject *
dsh_session_event_get_data (const DshSessionEvent *event)
{
  return event->data;
}

static const char *
object_get_string (JsonObject *object, const char *member)
{
  JsonNode *node = json_object_get_member (object, member);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

const char *
dsh_session_event_get_string (const DshSessionEvent *event, const char *member)
{
  return object_get_string (event->data, member);
}

const char *
dsh_session_event_get_time (const DshSessionEvent *event)
{
  return event->time;
}

guint
dsh_session_event_get_line (const DshSessionEvent *event)
{
  return event->line;
}

JsonNode *
dsh_session_event_to_json (const DshSessionEvent *event)
{
  g_autoptr (JsonNode) node = json_node_new (JSON_NODE_OBJECT);

  /* The object is sealed (immutable) from the moment it was read or written. */
  json_node_set_object (node, event->object);
  return json_node_copy (node);
}

static const struct {
  const char *type;
  DshSessionEventKind kind;
} known_types[] = {
  { DSH_SESSION_EVENT_TYPE_SANDBOX_MODE, DSH_SESSION_EVENT_SANDBOX_MODE },
  { DSH_SESSION_EVENT_TYPE_APPROVAL_POLICY, DSH_SESSION_EVENT_APPROVAL_POLICY },
  { DSH_SESSION_EVENT_TYPE_PERMISSION_PRESET, DSH_SESSION_EVENT_PERMISSION_PRESET },
  { DSH_SESSION_EVENT_TYPE_APPROVAL_ASKED, DSH_SESSION_EVENT_APPROVAL_ASKED },
  { DSH_SESSION_EVENT_TYPE_APPROVAL_DECIDED, DSH_SESSION_EVENT_APPROVAL_DECIDED },
  { DSH_SESSION_EVENT_TYPE_TURN_START, DSH_SESSION_EVENT_TURN_START },
  { DSH_SESSION_EVENT_TYPE_TURN_END, DSH_SESSION_EVENT_TURN_END },
};

static DshSessionEventKind
kind_of_type (const char *type)
{
  for (guint i = 0; i < G_N_ELEMENTS (known_types); i++)
    {
      if (g_str_equal (type, known_types[i].type))
        return known_types[i].kind;
    }
  return DSH_SESSION_EVENT_FOREIGN;
}

static gboolean
is_turn_scoped (DshSessionEventKind kind)
{
  return kind == DSH_SESSION_EVENT_APPROVAL_ASKED || kind == DSH_SESSION_EVENT_APPROVAL_DECIDED;
}

/* ---- validation (shared by load and append, so a value refused on append is refused on
 * load and the other way round) -------------------------------------------------------------- */

static gboolean
require_string (JsonObject *object, const char *member, gboolean required, gboolean non_empty,
                GError **error)
{
  JsonNode *node = json_object_get_member (object, member);

  if (node == NULL)
    {
      if (!required)
        return TRUE;
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                   "missing \"%s\"", member);
      return FALSE;
    }
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                   "\"%s\" is not a string", member);
      return FALSE;
    }
  if (non_empty && *json_node_get_string (node) == '\0')
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                   "\"%s\" is empty", member);
      return FALSE;
    }
  return TRUE;
}

/* "YYYY-MM-DDThh:mm:ss[.fff](Z|+hh:mm)": the RFC 3339 shape the schema states (GLib alone
 * would also take week dates and ordinal dates, which other readers would not). */
static gboolean
has_rfc3339_shape (const char *t)
{
  static const char shape[] = "dddd-dd-ddTdd:dd:dd";
  gsize i;

  for (i = 0; shape[i] != '\0'; i++)
    {
      if (shape[i] == 'd' ? !g_ascii_isdigit (t[i]) : t[i] != shape[i])
        return FALSE;
    }
  t += i;
  if (*t == '.')
    {
      if (!g_ascii_isdigit (*++t))
        return FALSE;
      while (g_ascii_isdigit (*t))
        t++;
    }
  if (g_str_equal (t, "Z"))
    return TRUE;
  return (t[0] == '+' || t[0] == '-') && g_ascii_isdigit (t[1]) && g_ascii_isdigit (t[2]) &&
         t[3] == ':' && g_ascii_isdigit (t[4]) && g_ascii_isdigit (t[5]) && t[6] == '\0';
}

static gboolean
validate_time (const char *time, GError **error)
{
  g_autoptr (GDateTime) parsed = NULL;

  /* The shape first; GLib then checks the ranges (month 13, hour 25). An explicit offset is
   * required: a local time would mean different instants to different readers. */
  if (has_rfc3339_shape (time))
    parsed = g_date_time_new_from_iso8601 (time, NULL);
  if (parsed == NULL)
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                   "\"time\" is not an RFC 3339 date-time with an offset");
      return FALSE;
    }
  return TRUE;
}

static gboolean
validate_data (DshSessionEventKind kind, JsonObject *data, GError **error)
{
  DshSandboxMode mode;
  DshApprovalPolicy policy;
  DshApprovalOutcome outcome;

  switch (kind)
    {
    case DSH_SESSION_EVENT_SANDBOX_MODE:
      /* The invariant: a forged mode outside the closed vocabulary is refused, not ignored. */
      return require_string (data, "mode", TRUE, FALSE, error) &&
             dsh_sandbox_mode_from_string (object_get_string (data, "mode"), &mode, error);

    case DSH_SESSION_EVENT_APPROVAL_POLICY:
      return require_string (data, "policy", TRUE, FALSE, error) &&
             dsh_approval_policy_from_string (object_get_string (data, "policy"), &policy, error);

    case DSH_SESSION_EVENT_PERMISSION_PRESET:
      if (!require_string (data, "preset", TRUE, TRUE, error))
        return FALSE;
      if (g_str_equal (object_get_string (data, "preset"), DSH_PERMISSION_PRESET_CUSTOM))
        {
          g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                       "\"custom\" is a derived preset and can never be selected");
          return FALSE;
        }
      return TRUE;

    case DSH_SESSION_EVENT_APPROVAL_ASKED:
      return require_string (data, "id", TRUE, TRUE, error) &&
             require_string (data, "toolName", TRUE, FALSE, error) &&
             require_string (data, "reason", TRUE, FALSE, error);

    case DSH_SESSION_EVENT_APPROVAL_DECIDED:
      return require_string (data, "id", TRUE, TRUE, error) &&
             require_string (data, "outcome", TRUE, FALSE, error) &&
             dsh_approval_outcome_from_string (object_get_string (data, "outcome"), &outcome,
                                               error);

    case DSH_SESSION_EVENT_TURN_START:
    case DSH_SESSION_EVENT_TURN_END:
      return require_string (data, "id", FALSE, TRUE, error);

    case DSH_SESSION_EVENT_FOREIGN:
    default:
      return TRUE;
    }
}

/* Builds an event from a line's object; the object is referenced, not copied. */
static DshSessionEvent *
event_from_object (JsonObject *object, guint line, GError **error)
{
  g_autoptr (DshSessionEvent) event = NULL;
  JsonNode *data;
  const char *type;

  if (!require_string (object, "type", TRUE, TRUE, error) ||
      !require_string (object, "time", TRUE, FALSE, error))
    return NULL;
  type = object_get_string (object, "type");

  data = json_object_get_member (object, "data");
  if (data == NULL || !JSON_NODE_HOLDS_OBJECT (data))
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                   "\"data\" is missing or not an object");
      return NULL;
    }
  if (!validate_time (object_get_string (object, "time"), error))
    return NULL;

  event = g_new0 (DshSessionEvent, 1);
  g_atomic_ref_count_init (&event->ref);
  event->kind = kind_of_type (type);
  event->line = line;
  event->object = json_object_ref (object);
  event->type = type;
  event->data = json_node_get_object (data);
  event->time = object_get_string (object, "time");

  if (!validate_data (event->kind, event->data, error))
    {
      g_prefix_error (error, "%s event: ", type);
      return NULL;
    }
  return g_steal_pointer (&event);
}

/* ---- strict line parsing ----------------------------------------------------------------- */

/* Returns the line's object. A syntax error is reported with *syntax_error set, so the caller
 * can tell a torn line (always a syntax error: a prefix of an object never closes) from a
 * well-formed line with bad content. */
static JsonObject *
parse_line (const char *text, gsize length, gboolean *syntax_error, GError **error)
{
  return dsh_json_strict_parse_object (text, length, "a line must be a JSON object",
                                       syntax_error, error);
}

/* ---- turns ------------------------------------------------------------------------------- */

/* The open turns while folding, most recent last; ids are borrowed from the events ("" for a
 * turn/start without an id). */
typedef struct {
  GPtrArray *open;
} TurnFold;

static void
turn_fold_init (TurnFold *fold)
{
  fold->open = g_ptr_array_new ();
}

static void
turn_fold_clear (TurnFold *fold)
{
  g_clear_pointer (&fold->open, g_ptr_array_unref);
}

static gboolean
turn_fold_find (TurnFold *fold, const char *id, guint *index)
{
  for (guint i = fold->open->len; i > 0; i--)
    {
      if (g_str_equal (g_ptr_array_index (fold->open, i - 1), id))
        {
          *index = i - 1;
          return TRUE;
        }
    }
  return FALSE;
}

/* Applies an event; FALSE means it is crash residue (a turn-scoped event or a turn/end with no
 * open turn to belong to) and must not become part of the log's events. */
static gboolean
turn_fold_step (TurnFold *fold, const DshSessionEvent *event)
{
  const char *id = dsh_session_event_get_string (event, "id");
  guint index;

  switch (event->kind)
    {
    case DSH_SESSION_EVENT_TURN_START:
      g_ptr_array_add (fold->open, (gpointer) (id != NULL ? id : ""));
      return TRUE;

    case DSH_SESSION_EVENT_TURN_END:
      if (id == NULL)
        {
          if (fold->open->len == 0)
            return FALSE;
          g_ptr_array_remove_index (fold->open, fold->open->len - 1);
          return TRUE;
        }
      if (!turn_fold_find (fold, id, &index))
        return FALSE;
      g_ptr_array_remove_index (fold->open, index);
      return TRUE;

    case DSH_SESSION_EVENT_APPROVAL_ASKED:
    case DSH_SESSION_EVENT_APPROVAL_DECIDED:
      return fold->open->len > 0;

    default:
      return TRUE;
    }
}

static void
turn_fold_events (TurnFold *fold, GPtrArray *events)
{
  for (guint i = 0; i < events->len; i++)
    turn_fold_step (fold, g_ptr_array_index (events, i));
}

/* ---- folds ------------------------------------------------------------------------------- */

static const DshSessionEvent *
last_of_kind (GPtrArray *events, DshSessionEventKind kind)
{
  for (guint i = events->len; i > 0; i--)
    {
      const DshSessionEvent *event = g_ptr_array_index (events, i - 1);

      if (event->kind == kind)
        return event;
    }
  return NULL;
}

gboolean
dsh_session_events_last_mode (GPtrArray *events, DshSandboxMode *out_mode)
{
  const DshSessionEvent *event;

  g_return_val_if_fail (events != NULL, FALSE);
  event = last_of_kind (events, DSH_SESSION_EVENT_SANDBOX_MODE);
  /* Every stored sandbox/mode passed validation, so parsing cannot fail here. */
  return event != NULL &&
         dsh_sandbox_mode_from_string (dsh_session_event_get_string (event, "mode"), out_mode,
                                       NULL);
}

gboolean
dsh_session_events_last_approval_policy (GPtrArray *events, DshApprovalPolicy *out_policy)
{
  const DshSessionEvent *event;

  g_return_val_if_fail (events != NULL, FALSE);
  event = last_of_kind (events, DSH_SESSION_EVENT_APPROVAL_POLICY);
  return event != NULL &&
         dsh_approval_policy_from_string (dsh_session_event_get_string (event, "policy"),
                                          out_policy, NULL);
}

const char *
dsh_session_events_last_preset (GPtrArray *events)
{
  const DshSessionEvent *event;

  g_return_val_if_fail (events != NULL, NULL);
  event = last_of_kind (events, DSH_SESSION_EVENT_PERMISSION_PRESET);
  return event != NULL ? dsh_session_event_get_string (event, "preset") : NULL;
}

gboolean
dsh_session_events_has_open_turn (GPtrArray *events)
{
  TurnFold fold;
  gboolean open;

  g_return_val_if_fail (events != NULL, FALSE);
  turn_fold_init (&fold);
  turn_fold_events (&fold, events);
  open = fold.open->len > 0;
  turn_fold_clear (&fold);
  return open;
}

gboolean
dsh_session_events_turn_is_open (GPtrArray *events, const char *turn_id)
{
  TurnFold fold;
  guint index;
  gboolean open;

  g_return_val_if_fail (events != NULL, FALSE);
  g_return_val_if_fail (turn_id != NULL, FALSE);
  turn_fold_init (&fold);
  turn_fold_events (&fold, events);
  open = turn_fold_find (&fold, turn_id, &index);
  turn_fold_clear (&fold);
  return open;
}

/* ---- the log object ---------------------------------------------------------------------- */

struct _DshSessionLog {
  GObject parent_instance;

  GMutex lock;
  /* NULL for a log parsed from memory. */
  char *path;
  /* The name used in messages: the path, or the caller's name for a parsed log. */
  char *name;
  /* Identity of the file loaded, so an append never lands in a file that replaced it. */
  dev_t dev;
  ino_t ino;

  JsonObject *header;
  GPtrArray *events;
  guint dropped;
  /* Lines consumed so far (header included), and the byte offset just past the last one. */
  guint lines;
  goffset committed;
};

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
}

static gboolean
validate_header (JsonObject *header, GError **error)
{
  const char *cwd;

  if (!require_string (header, "id", TRUE, TRUE, error) ||
      !require_string (header, "cwd", TRUE, TRUE, error) ||
      !require_string (header, "created", TRUE, FALSE, error))
    {
      g_prefix_error (error, "session header: ");
      return FALSE;
    }
  cwd = object_get_string (header, "cwd");
  /* A relative cwd would name a different workspace for every process that reads it. */
  if (!g_path_is_absolute (cwd))
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                   "session header: \"cwd\" is not an absolute path");
      return FALSE;
    }
  if (!validate_time (object_get_string (header, "created"), error))
    {
      g_prefix_error (error, "session header: \"created\": ");
      return FALSE;
    }
  /* Pinned at creation like the cwd: absolute paths only. */
  if (json_object_has_member (header, "writableRoots"))
    {
      JsonNode *node = json_object_get_member (header, "writableRoots");
      JsonArray *array = JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;

      for (guint i = 0; array != NULL && i < json_array_get_length (array); i++)
        {
          JsonNode *element = json_array_get_element (array, i);

          if (!JSON_NODE_HOLDS_VALUE (element) ||
              json_node_get_value_type (element) != G_TYPE_STRING ||
              !g_path_is_absolute (json_node_get_string (element)) ||
              !g_utf8_validate (json_node_get_string (element), -1, NULL))
            array = NULL;
        }
      if (array == NULL)
        {
          g_set_error_literal (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                               "session header: \"writableRoots\" must be an array of "
                               "absolute paths");
          return FALSE;
        }
    }
  return TRUE;
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

/* Consumes complete lines of buf (the file's bytes from self->committed on) into the log.
 * Transactional: on error nothing changes. *out_consumed is the length of the accepted prefix;
 * the rest, if any, is a torn tail. Caller holds the lock (or owns a fresh object). */
static gboolean
consume_lines (DshSessionLog *self, const char *buf, gsize length, gsize *out_consumed,
               GError **error)
{
  g_autoptr (GPtrArray) fresh = g_ptr_array_new_with_free_func (
    (GDestroyNotify) dsh_session_event_unref);
  g_autoptr (JsonObject) header = NULL;
  guint lines = self->lines;
  guint dropped = 0;
  gsize pos = 0;
  TurnFold fold;

  turn_fold_init (&fold);
  turn_fold_events (&fold, self->events);

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

      object = parse_line (start, (gsize) (newline - start), &syntax_error, &local_error);
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
          turn_fold_clear (&fold);
          return session_log_error (error, self->name, line_no, local_error);
        }

      if (self->header == NULL && header == NULL)
        {
          if (!validate_header (object, &local_error))
            {
              turn_fold_clear (&fold);
              return session_log_error (error, self->name, line_no, local_error);
            }
          header = g_steal_pointer (&object);
        }
      else
        {
          event = event_from_object (object, line_no, &local_error);
          if (event == NULL)
            {
              turn_fold_clear (&fold);
              return session_log_error (error, self->name, line_no, local_error);
            }
          if (turn_fold_step (&fold, event))
            g_ptr_array_add (fresh, g_steal_pointer (&event));
          else
            {
              /* Nothing else is dropped: only what the turn structure proves is residue. */
              g_warning ("%s:%u: dropping \"%s\" outside an open turn (crash residue)",
                         self->name, line_no, event->type);
              dropped++;
            }
        }

      lines++;
      pos = (gsize) (newline - buf) + 1;
    }
  turn_fold_clear (&fold);

  if (self->header == NULL && header == NULL)
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_SESSION_LOG,
                   "%s: no complete session header (empty or torn file)", self->name);
      return FALSE;
    }

  if (header != NULL)
    self->header = g_steal_pointer (&header);
  g_ptr_array_extend_and_steal (self->events, g_steal_pointer (&fresh));
  self->lines = lines;
  self->dropped += dropped;
  self->committed += (goffset) pos;
  *out_consumed = pos;
  return TRUE;
}

static gboolean
consume_all (DshSessionLog *self, const char *buf, gsize length, GError **error)
{
  gsize consumed;

  if (!consume_lines (self, buf, length, &consumed, error))
    return FALSE;
  if (consumed < length)
    {
      g_info ("%s: dropping a torn last line (%" G_GSIZE_FORMAT " bytes)", self->name,
              length - consumed);
      self->dropped++;
    }
  return TRUE;
}

DshSessionLog *
dsh_session_log_parse (const char *name, const char *contents, gsize length, GError **error)
{
  g_autoptr (DshSessionLog) self = g_object_new (DSH_TYPE_SESSION_LOG, NULL);

  g_return_val_if_fail (contents != NULL || length == 0, NULL);

  self->name = g_strdup (name != NULL ? name : "(memory)");
  if (!consume_all (self, contents != NULL ? contents : "", length, error))
    return NULL;
  return g_steal_pointer (&self);
}

static gboolean
io_error (GError **error, int saved_errno, const char *name, const char *what)
{
  g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_SESSION_LOG, "%s: cannot %s: %s", name,
               what, g_strerror (saved_errno));
  return FALSE;
}

/* Reads from fd's current position to EOF. */
static char *
read_to_end (int fd, gsize *out_length, const char *name, GError **error)
{
  g_autoptr (GByteArray) bytes = g_byte_array_new ();
  guint8 chunk[65536];

  for (;;)
    {
      ssize_t n = read (fd, chunk, sizeof chunk);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          io_error (error, errno, name, "read the session log");
          return NULL;
        }
      if (n == 0)
        break;
      g_byte_array_append (bytes, chunk, (guint) n);
    }
  *out_length = bytes->len;
  g_byte_array_append (bytes, (const guint8 *) "", 1);
  return (char *) g_byte_array_free (g_steal_pointer (&bytes), FALSE);
}

static int
open_regular (const char *path, int flags, struct stat *st, GError **error)
{
  /* O_NONBLOCK keeps a FIFO planted at the path from hanging us; it is cleared right after. */
  int fd = open (path, flags | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

  if (fd < 0)
    {
      io_error (error, errno, path, "open the session log");
      return -1;
    }
  if (fstat (fd, st) != 0 || !S_ISREG (st->st_mode))
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_SESSION_LOG,
                   "%s: the session log is not a regular file", path);
      close (fd);
      return -1;
    }
  fcntl (fd, F_SETFL, fcntl (fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

DshSessionLog *
dsh_session_log_load (const char *path, GError **error)
{
  g_autoptr (DshSessionLog) self = NULL;
  g_autofree char *contents = NULL;
  struct stat st;
  gsize length = 0;
  int fd;

  g_return_val_if_fail (path != NULL, NULL);

  fd = open_regular (path, O_RDONLY, &st, error);
  if (fd < 0)
    return NULL;
  contents = read_to_end (fd, &length, path, error);
  close (fd);
  if (contents == NULL)
    return NULL;

  self = g_object_new (DSH_TYPE_SESSION_LOG, NULL);
  self->path = g_strdup (path);
  self->name = g_strdup (path);
  self->dev = st.st_dev;
  self->ino = st.st_ino;
  /* Loading never writes: the repair lives in memory until the next append. */
  if (!consume_all (self, contents, length, error))
    return NULL;
  return g_steal_pointer (&self);
}

static char *
now_iso8601 (void)
{
  g_autoptr (GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *seconds = g_date_time_format (now, "%Y-%m-%dT%H:%M:%S");

  return g_strdup_printf ("%s.%03dZ", seconds, g_date_time_get_microsecond (now) / 1000);
}

static char *
object_to_line (JsonObject *object, gsize *out_length)
{
  g_autoptr (JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  g_autofree char *text = NULL;
  char *line;

  json_node_set_object (node, object);
  text = dsh_json_strict_to_string (node, FALSE);
  line = g_strconcat (text, "\n", NULL);
  *out_length = strlen (line);
  return line;
}

static gboolean
write_all (int fd, const char *data, gsize length)
{
  while (length > 0)
    {
      ssize_t n = write (fd, data, length);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return FALSE;
      if (n == 0)
        {
          errno = EIO;
          return FALSE;
        }
      data += n;
      length -= (gsize) n;
    }
  return TRUE;
}

static void
sync_directory_of (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);
  int fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  /* Best effort: makes the new name durable; the header itself is already synced. */
  if (fd >= 0)
    {
      fsync (fd);
      close (fd);
    }
}

DshSessionLog *
dsh_session_log_create (const char *path, const char *cwd, GError **error)
{
  return dsh_session_log_create_with_roots (path, cwd, NULL, error);
}

DshSessionLog *
dsh_session_log_create_with_roots (const char *path,
                                   const char *cwd,
                                   const char *const *extra_writable_roots,
                                   GError **error)
{
  g_autoptr (DshSessionLog) self = NULL;
  g_autoptr (JsonObject) header = json_object_new ();
  g_autofree char *absolute = NULL;
  g_autofree char *created = now_iso8601 ();
  g_autofree char *id = g_uuid_string_random ();
  g_autofree char *line = NULL;
  GError *local_error = NULL;
  gboolean syntax_error;
  gsize length;
  struct stat st;
  int fd;

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
  line = object_to_line (header, &length);

  /* What we write must load: check the line with the reader's own rules first. */
  g_clear_pointer (&header, json_object_unref);
  header = parse_line (line, length - 1, &syntax_error, &local_error);
  if (header == NULL || !validate_header (header, &local_error))
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                   "cannot write a valid session header: %s", local_error->message);
      g_error_free (local_error);
      return NULL;
    }

  fd = open (path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0600);
  if (fd < 0)
    {
      io_error (error, errno, path, "create the session log");
      return NULL;
    }
  if (!write_all (fd, line, length) || fdatasync (fd) != 0 || fstat (fd, &st) != 0)
    {
      int saved_errno = errno;

      close (fd);
      g_unlink (path);
      io_error (error, saved_errno, path, "write the session header");
      return NULL;
    }
  close (fd);
  sync_directory_of (path);

  self = g_object_new (DSH_TYPE_SESSION_LOG, NULL);
  self->path = g_strdup (path);
  self->name = g_strdup (path);
  self->dev = st.st_dev;
  self->ino = st.st_ino;
  self->header = g_steal_pointer (&header);
  self->lines = 1;
  self->committed = (goffset) length;
  return g_steal_pointer (&self);
}

const char *
dsh_session_log_get_path (DshSessionLog *self)
{
  g_return_val_if_fail (DSH_IS_SESSION_LOG (self), NULL);
  return self->path;
}

/* The header is immutable after load/create, so its strings are safe to hand out unlocked. */
const char *
dsh_session_log_get_id (DshSessionLog *self)
{
  g_return_val_if_fail (DSH_IS_SESSION_LOG (self), NULL);
  return object_get_string (self->header, "id");
}

const char *
dsh_session_log_get_cwd (DshSessionLog *self)
{
  g_return_val_if_fail (DSH_IS_SESSION_LOG (self), NULL);
  return object_get_string (self->header, "cwd");
}

const char *
dsh_session_log_get_created (DshSessionLog *self)
{
  g_return_val_if_fail (DSH_IS_SESSION_LOG (self), NULL);
  return object_get_string (self->header, "created");
}

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

guint
dsh_session_log_get_dropped_count (DshSessionLog *self)
{
  guint dropped;

  g_return_val_if_fail (DSH_IS_SESSION_LOG (self), 0);
  g_mutex_lock (&self->lock);
  dropped = self->dropped;
  g_mutex_unlock (&self->lock);
  return dropped;
}

/* Under the file lock: folds in whatever other writers committed since our load, and cuts a
 * torn tail a crashed writer left (every live writer holds this lock while writing, so bytes
 * past the last complete line belong to nobody). */
static gboolean
catch_up (DshSessionLog *self, int fd, GError **error)
{
  g_autofree char *tail = NULL;
  struct stat st;
  gsize length = 0;
  gsize consumed = 0;

  if (fstat (fd, &st) != 0)
    return io_error (error, errno, self->name, "stat the session log");
  if (st.st_dev != self->dev || st.st_ino != self->ino)
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_SESSION_LOG,
                   "%s: the session log was replaced since it was loaded", self->name);
      return FALSE;
    }
  if (st.st_size < self->committed)
    {
      /* Someone cut committed events: the log is no longer what we folded. Fail closed. */
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_SESSION_LOG,
                   "%s: the session log shrank below its committed length", self->name);
      return FALSE;
    }
  if (st.st_size == self->committed)
    return TRUE;

  if (lseek (fd, self->committed, SEEK_SET) < 0)
    return io_error (error, errno, self->name, "seek in the session log");
  tail = read_to_end (fd, &length, self->name, error);
  if (tail == NULL)
    return FALSE;
  if (!consume_lines (self, tail, length, &consumed, error))
    return FALSE;
  if (consumed < length)
    {
      g_info ("%s: cutting a torn last line (%" G_GSIZE_FORMAT " bytes) before appending",
              self->name, length - consumed);
      if (ftruncate (fd, self->committed) != 0 || fdatasync (fd) != 0)
        return io_error (error, errno, self->name, "cut the torn tail");
    }
  return TRUE;
}

/* Append-time checks that depend on the log's current turn structure. */
static gboolean
check_turn_scope (DshSessionLog *self, const DshSessionEvent *event, GError **error)
{
  TurnFold fold;
  gboolean belongs;

  /* The rule loading applies: what a reload would drop as crash residue is refused here. */
  turn_fold_init (&fold);
  turn_fold_events (&fold, self->events);
  belongs = turn_fold_step (&fold, event);
  turn_fold_clear (&fold);
  if (belongs)
    return TRUE;
  if (is_turn_scoped (event->kind))
    g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                 "%s outside an open turn: the approval audit pair must be turn-enclosed "
                 "(a bare event between turns is crash residue on reload)",
                 event->type);
  else
    g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                 "turn/end for a turn that is not open");
  return FALSE;
}

static gboolean
append_locked (DshSessionLog *self, const DshSessionEvent *event, const char *line, gsize length,
               GError **error)
{
  struct stat st;
  int fd;

  if (self->path == NULL)
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_SESSION_LOG,
                   "%s: a log parsed from memory cannot be appended to", self->name);
      return FALSE;
    }

  fd = open_regular (self->path, O_RDWR | O_APPEND, &st, error);
  if (fd < 0)
    return FALSE;
  if (flock (fd, LOCK_EX) != 0)
    {
      int saved_errno = errno;

      close (fd);
      return io_error (error, saved_errno, self->name, "lock the session log");
    }

  if (!catch_up (self, fd, error) || !check_turn_scope (self, event, error))
    {
      close (fd);
      return FALSE;
    }

  if (!write_all (fd, line, length) || fdatasync (fd) != 0)
    {
      int saved_errno = errno;

      /* The event is not part of the log: cut back whatever reached the file, so no torn or
       * unsynced line outlives the error we report. */
      if (ftruncate (fd, self->committed) == 0)
        fdatasync (fd);
      close (fd);
      return io_error (error, saved_errno, self->name, "append to the session log");
    }
  close (fd);

  self->lines++;
  self->committed += (goffset) length;
  return TRUE;
}

gboolean
dsh_session_log_append (DshSessionLog *self, const char *type, JsonObject *data, GError **error)
{
  g_autoptr (JsonObject) envelope = json_object_new ();
  g_autoptr (JsonObject) reread = NULL;
  g_autoptr (DshSessionEvent) event = NULL;
  g_autofree char *time = now_iso8601 ();
  g_autofree char *line = NULL;
  GError *local_error = NULL;
  gboolean syntax_error;
  gboolean ok;
  gsize length;

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
  json_object_set_string_member (envelope, "time", time);

  /* Validate the line exactly as a later load will read it: a value refused on load is
   * refused here, and nothing json-glib generates that the strict reader would reject (say a
   * NaN, or invalid UTF-8) ever reaches the file. */
  line = object_to_line (envelope, &length);
  reread = parse_line (line, length - 1, &syntax_error, &local_error);
  if (reread != NULL)
    event = event_from_object (reread, 0, &local_error);
  if (event == NULL)
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                   "refusing to append: %s", local_error->message);
      g_error_free (local_error);
      return FALSE;
    }

  g_mutex_lock (&self->lock);
  event->line = self->lines + 1;
  ok = append_locked (self, event, line, length, error);
  if (ok)
    {
      /* catch_up may have consumed other writers' lines: the line number is known only now. */
      event->line = self->lines;
      g_ptr_array_add (self->events, g_steal_pointer (&event));
    }
  g_mutex_unlock (&self->lock);
  return ok;
}

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

gboolean
dsh_session_log_append_approval_decided (DshSessionLog *self, const char *request_id,
                                         DshApprovalOutcome outcome, GError **error)
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
  return dsh_session_log_append (self, DSH_SESSION_EVENT_TYPE_APPROVAL_DECIDED, data, error);
}

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

gboolean
dsh_session_log_end_turn (DshSessionLog *self, const char *turn_id, GError **error)
{
  g_autoptr (JsonObject) data = json_object_new ();

  g_return_val_if_fail (turn_id != NULL, FALSE);
  json_object_set_string_member (data, "id", turn_id);
  return dsh_session_log_append (self, DSH_SESSION_EVENT_TYPE_TURN_END, data, error);
}

gboolean
dsh_session_log_has_open_turn (DshSessionLog *self)
{
  g_autoptr (GPtrArray) events = dsh_session_log_dup_events (self);

  return dsh_session_events_has_open_turn (events);
}

gboolean
dsh_session_log_turn_is_open (DshSessionLog *self, const char *turn_id)
{
  g_autoptr (GPtrArray) events = dsh_session_log_dup_events (self);

  return dsh_session_events_turn_is_open (events, turn_id);
}

gboolean
dsh_session_log_last_mode (DshSessionLog *self, DshSandboxMode *out_mode)
{
  g_autoptr (GPtrArray) events = dsh_session_log_dup_events (self);

  return dsh_session_events_last_mode (events, out_mode);
}

gboolean
dsh_session_log_last_approval_policy (DshSessionLog *self, DshApprovalPolicy *out_policy)
{
  g_autoptr (GPtrArray) events = dsh_session_log_dup_events (self);

  return dsh_session_events_last_approval_policy (events, out_policy);
}

char *
dsh_session_log_dup_last_preset (DshSessionLog *self)
{
  g_autoptr (GPtrArray) events = dsh_session_log_dup_events (self);

  return g_strdup (dsh_session_events_last_preset (events));
}
