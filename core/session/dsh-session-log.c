/* dsh-session-log.c — the append-only JSON-lines session log: strict line parsing, crash-tail
 * repair on load, locked and synced appends, and the folds that are the session's only state.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-session-log.h"
#include "dsh-session-fold-private.h"
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

/**
 * DshSessionLog:
 *
 * A session's append-only JSON-lines event log. Its state is a fold over its events; appends hold
 * an exclusive flock(2) and are synced before they return. All methods are thread-safe.
 *
 * Since: 0.1
 */

/**
 * DshSessionEvent:
 *
 * One line of a session log after its header: immutable and reference counted.
 *
 * Since: 0.1
 */

/**
 * DshSessionEventKind:
 * @DSH_SESSION_EVENT_SANDBOX_MODE: `sandbox/mode`
 * @DSH_SESSION_EVENT_APPROVAL_POLICY: `approval/policy`
 * @DSH_SESSION_EVENT_PERMISSION_PRESET: `permissionPresets/preset`
 * @DSH_SESSION_EVENT_APPROVAL_ASKED: `approval/asked`
 * @DSH_SESSION_EVENT_APPROVAL_DECIDED: `approval/decided`
 * @DSH_SESSION_EVENT_TURN_START: `turn/start`
 * @DSH_SESSION_EVENT_TURN_END: `turn/end`
 * @DSH_SESSION_EVENT_FOREIGN: any other type: kept, never folded
 *
 * What an event's type means to this library.
 *
 * Since: 0.1
 */

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

/**
 * dsh_session_event_ref:
 * @event: an event
 *
 * Returns: (transfer full): @event
 *
 * Since: 0.1
 */
DshSessionEvent *
dsh_session_event_ref (DshSessionEvent *event)
{
  g_return_val_if_fail (event != NULL, NULL);
  g_atomic_ref_count_inc (&event->ref);
  return event;
}

/**
 * dsh_session_event_unref:
 * @event: (nullable) (transfer full): an event
 *
 * Drops a reference; the last one frees @event.
 *
 * Since: 0.1
 */
void
dsh_session_event_unref (DshSessionEvent *event)
{
  if (event == NULL || !g_atomic_ref_count_dec (&event->ref))
    return;
  json_object_unref (event->object);
  g_free (event);
}

/**
 * dsh_session_event_get_kind:
 * @event: an event
 *
 * Returns: what the event's type means to this library (%DSH_SESSION_EVENT_FOREIGN for any other)
 *
 * Since: 0.1
 */
DshSessionEventKind
dsh_session_event_get_kind (const DshSessionEvent *event)
{
  return event->kind;
}

/**
 * dsh_session_event_get_type_name:
 * @event: an event
 *
 * Returns: (transfer none): the `type` string as written, e.g. `sandbox/mode`
 *
 * Since: 0.1
 */
const char *
dsh_session_event_get_type_name (const DshSessionEvent *event)
{
  return event->type;
}

/**
 * dsh_session_event_get_data:
 * @event: an event
 *
 * Returns: (transfer none): the `data` object, shared: never modify it
 *
 * Since: 0.1
 */
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

/**
 * dsh_session_event_get_string:
 * @event: an event
 * @member: a member of the event's `data`
 *
 * Returns: (transfer none) (nullable): `data[member]` when it is a string, else %NULL
 *
 * Since: 0.1
 */
const char *
dsh_session_event_get_string (const DshSessionEvent *event, const char *member)
{
  return object_get_string (event->data, member);
}

/**
 * dsh_session_event_get_time:
 * @event: an event
 *
 * Returns: (transfer none): the `time` string (ISO 8601)
 *
 * Since: 0.1
 */
const char *
dsh_session_event_get_time (const DshSessionEvent *event)
{
  return event->time;
}

/**
 * dsh_session_event_get_line:
 * @event: an event
 *
 * Returns: the event's 1-based line in the file (the header is line 1)
 *
 * Since: 0.1
 */
guint
dsh_session_event_get_line (const DshSessionEvent *event)
{
  return event->line;
}

/**
 * dsh_session_event_to_json:
 * @event: an event
 *
 * Returns: (transfer full): the event's line as an object: `{type, data, time}`
 *
 * Since: 0.1
 */
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

/* ---- the log's own fold ------------------------------------------------------------------ */

/* What the log's events fold to, kept up to date as lines are consumed and appended, so that
 * neither a query nor an append folds the whole history again. Everything here is derived
 * from the file's lines in order; the fold cache stores exactly this. */
typedef struct {
  /* Open turns' ids, most recent last ("" for a turn/start without an id); owned. */
  GPtrArray *open_turns;
  /* The last sandbox/mode, approval/policy and permissionPresets/preset values, or NULL. */
  char *mode;
  char *policy;
  char *preset;
} SessionFold;

static void
session_fold_init (SessionFold *fold)
{
  fold->open_turns = g_ptr_array_new_with_free_func (g_free);
  fold->mode = fold->policy = fold->preset = NULL;
}

static void
session_fold_clear (SessionFold *fold)
{
  g_clear_pointer (&fold->open_turns, g_ptr_array_unref);
  g_clear_pointer (&fold->mode, g_free);
  g_clear_pointer (&fold->policy, g_free);
  g_clear_pointer (&fold->preset, g_free);
}

static void
session_fold_copy (SessionFold *to, const SessionFold *from)
{
  session_fold_init (to);
  for (guint i = 0; i < from->open_turns->len; i++)
    g_ptr_array_add (to->open_turns, g_strdup (from->open_turns->pdata[i]));
  to->mode = g_strdup (from->mode);
  to->policy = g_strdup (from->policy);
  to->preset = g_strdup (from->preset);
}

static gboolean
session_fold_find_turn (const SessionFold *fold, const char *id, guint *index)
{
  for (guint i = fold->open_turns->len; i > 0; i--)
    {
      if (g_str_equal (fold->open_turns->pdata[i - 1], id))
        {
          *index = i - 1;
          return TRUE;
        }
    }
  return FALSE;
}

/* The same rule as turn_fold_step: FALSE for crash residue, which is not part of the fold. */
static gboolean
session_fold_accepts (const SessionFold *fold, const DshSessionEvent *event)
{
  const char *id = dsh_session_event_get_string (event, "id");
  guint index;

  switch (event->kind)
    {
    case DSH_SESSION_EVENT_TURN_END:
      return id == NULL ? fold->open_turns->len > 0 : session_fold_find_turn (fold, id, &index);
    case DSH_SESSION_EVENT_APPROVAL_ASKED:
    case DSH_SESSION_EVENT_APPROVAL_DECIDED:
      return fold->open_turns->len > 0;
    default:
      return TRUE;
    }
}

static gboolean
session_fold_step (SessionFold *fold, const DshSessionEvent *event)
{
  const char *id = dsh_session_event_get_string (event, "id");
  guint index;

  if (!session_fold_accepts (fold, event))
    return FALSE;
  switch (event->kind)
    {
    case DSH_SESSION_EVENT_TURN_START:
      g_ptr_array_add (fold->open_turns, g_strdup (id != NULL ? id : ""));
      break;
    case DSH_SESSION_EVENT_TURN_END:
      if (id == NULL)
        g_ptr_array_remove_index (fold->open_turns, fold->open_turns->len - 1);
      else if (session_fold_find_turn (fold, id, &index))
        g_ptr_array_remove_index (fold->open_turns, index);
      break;
    case DSH_SESSION_EVENT_SANDBOX_MODE:
      g_free (fold->mode);
      fold->mode = g_strdup (dsh_session_event_get_string (event, "mode"));
      break;
    case DSH_SESSION_EVENT_APPROVAL_POLICY:
      g_free (fold->policy);
      fold->policy = g_strdup (dsh_session_event_get_string (event, "policy"));
      break;
    case DSH_SESSION_EVENT_PERMISSION_PRESET:
      g_free (fold->preset);
      fold->preset = g_strdup (dsh_session_event_get_string (event, "preset"));
      break;
    default:
      break;
    }
  return TRUE;
}

/* FNV-1a over the committed bytes: cheap to extend by each appended line, and enough to tell
 * a cached prefix from a file whose prefix changed. */
#define PREFIX_HASH_INIT G_GUINT64_CONSTANT (0xcbf29ce484222325)

static guint64
prefix_hash_update (guint64 hash, const char *data, gsize length)
{
  const guchar *p = (const guchar *) data;

  for (gsize i = 0; i < length; i++)
    hash = (hash ^ p[i]) * G_GUINT64_CONSTANT (0x100000001b3);
  return hash;
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

/**
 * dsh_session_events_last_mode:
 * @events: (element-type DshSessionEvent): a session's events
 * @out_mode: (out): the last `sandbox/mode`
 *
 * Returns: %TRUE with @out_mode set; %FALSE when the events never set a mode
 *
 * Since: 0.1
 */
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

/**
 * dsh_session_events_last_approval_policy:
 * @events: (element-type DshSessionEvent): a session's events
 * @out_policy: (out): the last `approval/policy`
 *
 * Returns: %TRUE with @out_policy set; %FALSE when the events never set a policy
 *
 * Since: 0.1
 */
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

/**
 * dsh_session_events_last_preset:
 * @events: (element-type DshSessionEvent): a session's events
 *
 * Returns: (transfer none) (nullable): the last recorded `permissionPresets/preset` name
 *
 * Since: 0.1
 */
const char *
dsh_session_events_last_preset (GPtrArray *events)
{
  const DshSessionEvent *event;

  g_return_val_if_fail (events != NULL, NULL);
  event = last_of_kind (events, DSH_SESSION_EVENT_PERMISSION_PRESET);
  return event != NULL ? dsh_session_event_get_string (event, "preset") : NULL;
}

/**
 * dsh_session_events_has_open_turn:
 * @events: (element-type DshSessionEvent): a session's events
 *
 * Returns: %TRUE when some `turn/start` has no matching `turn/end` yet
 *
 * Since: 0.1
 */
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

/**
 * dsh_session_events_turn_is_open:
 * @events: (element-type DshSessionEvent): a session's events
 * @turn_id: a turn's id
 *
 * Returns: %TRUE when the turn with this id is open
 *
 * Since: 0.1
 */
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
  /* Out-of-turn residue dropped (part of the fold), and a torn last line dropped (not). */
  guint dropped;
  guint torn;
  /* Lines consumed so far (header included), and the byte offset just past the last one. */
  guint lines;
  goffset committed;
  /* The fold of the events, and the hash of the committed bytes. */
  SessionFold fold;
  guint64 hash;
  /* Where this log's fold is cached (NULL: not cached). */
  char *fold_cache;
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
  session_fold_clear (&self->fold);
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
  session_fold_init (&self->fold);
  self->hash = PREFIX_HASH_INIT;
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
  SessionFold fold;

  session_fold_copy (&fold, &self->fold);

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
          session_fold_clear (&fold);
          return session_log_error (error, self->name, line_no, local_error);
        }

      if (self->header == NULL && header == NULL)
        {
          if (!validate_header (object, &local_error))
            {
              session_fold_clear (&fold);
              return session_log_error (error, self->name, line_no, local_error);
            }
          header = g_steal_pointer (&object);
        }
      else
        {
          event = event_from_object (object, line_no, &local_error);
          if (event == NULL)
            {
              session_fold_clear (&fold);
              return session_log_error (error, self->name, line_no, local_error);
            }
          if (session_fold_step (&fold, event))
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

  if (self->header == NULL && header == NULL)
    {
      session_fold_clear (&fold);
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_SESSION_LOG,
                   "%s: no complete session header (empty or torn file)", self->name);
      return FALSE;
    }

  if (header != NULL)
    self->header = g_steal_pointer (&header);
  g_ptr_array_extend_and_steal (self->events, g_steal_pointer (&fresh));
  session_fold_clear (&self->fold);
  self->fold = fold;
  self->hash = prefix_hash_update (self->hash, buf, pos);
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
  self->hash = prefix_hash_update (self->hash, line, length);
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
  return object_get_string (self->header, "id");
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
  return object_get_string (self->header, "cwd");
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
  return object_get_string (self->header, "created");
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

/* ---- the fold cache: a copy of the fold of a prefix of the file, never the truth -------- */

#define FOLD_CACHE_VERSION 1

static JsonNode *
string_or_null (const char *value)
{
  JsonNode *node = json_node_alloc ();

  return value != NULL ? json_node_init_string (node, value) : json_node_init_null (node);
}

/* The fold of the committed bytes, and (with st) the identity of the file they came from.
 * Caller holds the lock or owns the object. */
static JsonObject *
fold_to_object (DshSessionLog *self, const struct stat *st)
{
  JsonObject *object = json_object_new ();
  JsonArray *turns = json_array_new ();
  g_autoptr (JsonNode) header = json_node_new (JSON_NODE_OBJECT);
  g_autofree char *hash = NULL;

  json_object_set_int_member (object, "v", FOLD_CACHE_VERSION);
  if (st != NULL)
    {
      g_autofree char *dev = g_strdup_printf ("%lu", (gulong) st->st_dev);
      g_autofree char *ino = g_strdup_printf ("%lu", (gulong) st->st_ino);
      g_autofree char *ctime_text = g_strdup_printf ("%lld.%09ld", (long long) st->st_ctim.tv_sec,
                                                     st->st_ctim.tv_nsec);
      g_autofree char *mtime_text = g_strdup_printf ("%lld.%09ld", (long long) st->st_mtim.tv_sec,
                                                     st->st_mtim.tv_nsec);

      json_object_set_string_member (object, "dev", dev);
      json_object_set_string_member (object, "ino", ino);
      json_object_set_string_member (object, "ctime", ctime_text);
      json_object_set_string_member (object, "mtime", mtime_text);
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
  *out = object_get_string (object, member);
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

  if (json_object_get_size (object) != (with_identity ? 14u : 10u) ||
      !get_count (object, "v", G_MAXINT, &version) || version != FOLD_CACHE_VERSION ||
      !get_count (object, "size", G_MAXINT64, &size) ||
      !get_count (object, "lines", G_MAXUINT, &lines) || lines < 1 ||
      !get_count (object, "dropped", G_MAXUINT, &dropped) ||
      (hash_text = object_get_string (object, "hash")) == NULL || strlen (hash_text) != 16 ||
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
      !validate_header (json_node_get_object (header), NULL))
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
  return object_to_line (object, &length);
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
  if (!consume_all (self, contents != NULL ? contents : "", length, error))
    return NULL;
  return g_steal_pointer (&self);
}

/* Best effort, under the file lock (or right after a load): a cache that cannot be written
 * only costs the next load a full read. Written whole and renamed into place. */
static void
store_fold_cache (DshSessionLog *self, int fd)
{
  g_autoptr (JsonObject) object = NULL;
  g_autofree char *text = NULL;
  g_autofree char *temp = NULL;
  struct stat st;
  gsize length;
  int out;

  if (fstat (fd, &st) != 0)
    return;
  /* The identity vouches for the content only when the file is exactly what was folded;
   * otherwise a zero time makes the next load check the prefix's hash. */
  if (st.st_size != self->committed)
    {
      st.st_ctim.tv_sec = st.st_mtim.tv_sec = 0;
      st.st_ctim.tv_nsec = st.st_mtim.tv_nsec = 0;
    }
  object = fold_to_object (self, &st);
  text = object_to_line (object, &length);
  temp = g_strdup_printf ("%s.XXXXXX", self->fold_cache);
  out = g_mkstemp_full (temp, O_WRONLY | O_CLOEXEC, 0600);
  if (out < 0)
    return;
  if (!write_all (out, text, length) || close (out) != 0 || g_rename (temp, self->fold_cache) != 0)
    g_unlink (temp);
}

/* Reads a cache file only if it is a regular file of ours that nobody else can write. */
static JsonObject *
read_fold_cache (const char *path)
{
  g_autoptr (JsonNode) root = NULL;
  g_autofree char *text = NULL;
  struct stat st;
  gboolean syntax_error;
  gsize length;
  int fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK);

  if (fd < 0)
    return NULL;
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode) || st.st_uid != getuid () ||
      (st.st_mode & 077) != 0 || st.st_size > 1024 * 1024)
    {
      close (fd);
      return NULL;
    }
  text = read_to_end (fd, &length, path, NULL);
  close (fd);
  if (text == NULL)
    return NULL;
  root = dsh_json_strict_parse (text, length, &syntax_error, NULL);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return NULL;
  return json_object_ref (json_node_get_object (root));
}

static gboolean
identity_matches (JsonObject *cache, const struct stat *st, gboolean *exact)
{
  g_autofree char *dev = g_strdup_printf ("%lu", (gulong) st->st_dev);
  g_autofree char *ino = g_strdup_printf ("%lu", (gulong) st->st_ino);
  g_autofree char *ctime_text = g_strdup_printf ("%lld.%09ld", (long long) st->st_ctim.tv_sec,
                                                 st->st_ctim.tv_nsec);
  g_autofree char *mtime_text = g_strdup_printf ("%lld.%09ld", (long long) st->st_mtim.tv_sec,
                                                 st->st_mtim.tv_nsec);
  gint64 size;

  if (g_strcmp0 (object_get_string (cache, "dev"), dev) != 0 ||
      g_strcmp0 (object_get_string (cache, "ino"), ino) != 0 ||
      !get_count (cache, "size", G_MAXINT64, &size) || size > st->st_size)
    return FALSE;
  /* Same size, same change time: nothing was written since (every write moves ctime). */
  *exact = size == st->st_size && g_strcmp0 (object_get_string (cache, "ctime"), ctime_text) == 0 &&
           g_strcmp0 (object_get_string (cache, "mtime"), mtime_text) == 0;
  return TRUE;
}

/* Does the file's prefix [0, length) hash to hash? */
static gboolean
prefix_hashes_to (int fd, goffset length, guint64 hash)
{
  g_autofree char *chunk = g_malloc (1024 * 1024);
  guint64 h = PREFIX_HASH_INIT;
  goffset done = 0;

  while (done < length)
    {
      ssize_t n = pread (fd, chunk, (gsize) MIN (length - done, 1024 * 1024), done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      h = prefix_hash_update (h, chunk, (gsize) n);
      done += n;
    }
  return h == hash;
}

/* Is the file's first line exactly the header the cache holds? */
static gboolean
header_line_matches (int fd, JsonObject *cached)
{
  g_autofree char *head = g_malloc (65536);
  g_autoptr (JsonObject) header = NULL;
  g_autofree char *cached_line = NULL;
  g_autofree char *file_line = NULL;
  gboolean syntax_error;
  gsize length;
  ssize_t n;
  char *newline;

  do
    n = pread (fd, head, 65536, 0);
  while (n < 0 && errno == EINTR);
  if (n <= 0 || (newline = memchr (head, '\n', (gsize) n)) == NULL)
    return FALSE;
  header = parse_line (head, (gsize) (newline - head), &syntax_error, NULL);
  if (header == NULL || !validate_header (header, NULL))
    return FALSE;
  cached_line = object_to_line (cached, &length);
  file_line = object_to_line (header, &length);
  return g_str_equal (cached_line, file_line);
}

/* Restores the cached fold into self when the cache still describes a prefix of this very
 * file; FALSE leaves self untouched for a full read. */
static gboolean
restore_fold_cache (DshSessionLog *self, int fd, const struct stat *st)
{
  g_autoptr (JsonObject) cache = read_fold_cache (self->fold_cache);
  g_autoptr (DshSessionLog) probe = NULL;
  gboolean exact = FALSE;

  if (cache == NULL || !identity_matches (cache, st, &exact))
    return FALSE;
  probe = g_object_new (DSH_TYPE_SESSION_LOG, NULL);
  if (!fold_from_object (probe, cache, TRUE))
    return FALSE;
  if (!exact && !prefix_hashes_to (fd, probe->committed, probe->hash))
    return FALSE;
  /* The header (the session's workspace) always comes from the file itself: the caller
   * judges from it whether this very cache was out of the session's reach. */
  if (!header_line_matches (fd, probe->header))
    return FALSE;
  self->header = g_steal_pointer (&probe->header);
  session_fold_clear (&self->fold);
  session_fold_copy (&self->fold, &probe->fold);
  self->committed = probe->committed;
  self->lines = probe->lines;
  self->dropped = probe->dropped;
  self->hash = probe->hash;
  return TRUE;
}

DshSessionLog *
dsh_session_log_load_cached (const char *path, const char *fold_cache, GError **error)
{
  g_autoptr (DshSessionLog) self = NULL;
  g_autofree char *contents = NULL;
  struct stat st;
  gsize length = 0;
  gboolean restored;
  int fd;

  g_return_val_if_fail (path != NULL, NULL);
  if (fold_cache == NULL)
    return dsh_session_log_load (path, error);

  fd = open_regular (path, O_RDONLY, &st, error);
  if (fd < 0)
    return NULL;
  self = g_object_new (DSH_TYPE_SESSION_LOG, NULL);
  self->path = g_strdup (path);
  self->name = g_strdup (path);
  self->dev = st.st_dev;
  self->ino = st.st_ino;
  self->fold_cache = g_strdup (fold_cache);

  /* Only the events after the cached prefix are read; they continue its fold exactly as
   * they would continue a full one. */
  restored = restore_fold_cache (self, fd, &st);
  if (lseek (fd, restored ? self->committed : 0, SEEK_SET) < 0)
    {
      io_error (error, errno, path, "seek in the session log");
      close (fd);
      return NULL;
    }
  contents = read_to_end (fd, &length, path, error);
  if (contents == NULL || !consume_all (self, contents, length, error))
    {
      close (fd);
      return NULL;
    }
  if (!restored || length > 0)
    store_fold_cache (self, fd);
  close (fd);
  return g_steal_pointer (&self);
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
  /* The rule loading applies: what a reload would drop as crash residue is refused here. */
  if (session_fold_accepts (&self->fold, event))
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

/* Stamps the envelope with the time and renders it as the line a later load will read. The
 * line is validated exactly as that load will: a value refused on load is refused here, and
 * nothing json-glib generates that the strict reader would reject (say a NaN, or invalid
 * UTF-8) ever reaches the file. */
static DshSessionEvent *
stamp_and_render (JsonObject *envelope, char **out_line, gsize *out_length, GError **error)
{
  g_autofree char *time = now_iso8601 ();
  g_autofree char *line = NULL;
  g_autoptr (JsonObject) reread = NULL;
  DshSessionEvent *event = NULL;
  GError *local_error = NULL;
  gboolean syntax_error;
  gsize length;

  json_object_set_string_member (envelope, "time", time);
  line = object_to_line (envelope, &length);
  reread = parse_line (line, length - 1, &syntax_error, &local_error);
  if (reread != NULL)
    event = event_from_object (reread, 0, &local_error);
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
  g_autofree char *line = NULL;
  gsize length = 0;
  struct stat st;
  int fd;

  if (self->path == NULL)
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_SESSION_LOG,
                   "%s: a log parsed from memory cannot be appended to", self->name);
      return NULL;
    }

  fd = open_regular (self->path, O_RDWR | O_APPEND, &st, error);
  if (fd < 0)
    return NULL;
  if (flock (fd, LOCK_EX) != 0)
    {
      int saved_errno = errno;

      close (fd);
      io_error (error, saved_errno, self->name, "lock the session log");
      return NULL;
    }

  /* The time is taken under the lock, so the file's order is the order of its times. */
  if (!catch_up (self, fd, error) ||
      (event = stamp_and_render (envelope, &line, &length, error)) == NULL ||
      !check_turn_scope (self, event, error))
    {
      close (fd);
      return NULL;
    }

  if (!write_all (fd, line, length) || fdatasync (fd) != 0)
    {
      int saved_errno = errno;

      /* The event is not part of the log: cut back whatever reached the file, so no torn or
       * unsynced line outlives the error we report. */
      if (ftruncate (fd, self->committed) == 0)
        fdatasync (fd);
      close (fd);
      io_error (error, saved_errno, self->name, "append to the session log");
      return NULL;
    }

  self->lines++;
  self->committed += (goffset) length;
  self->hash = prefix_hash_update (self->hash, line, length);
  session_fold_step (&self->fold, event);
  event->line = self->lines;
  /* Still under the lock: the cache follows the file in the order writers wrote it. */
  if (self->fold_cache != NULL)
    store_fold_cache (self, fd);
  close (fd);
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
  open = session_fold_find_turn (&self->fold, turn_id, &index);
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
