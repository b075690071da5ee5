/* dsh-session-event.c — one line of a session log: the event, the rules every line and the
 * header meet on load and on append alike, and how a line is written.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-session-event-private.h"

#include <string.h>

#include "dsh-error.h"
#include "dsh-vocabulary-private.h"
#include "dsh-json-strict-private.h"

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

const char *
dsh_session_object_get_string (JsonObject *object, const char *member)
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
  return dsh_session_object_get_string (event->data, member);
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

gboolean
dsh_session_event_is_turn_scoped (const DshSessionEvent *event)
{
  return event->kind == DSH_SESSION_EVENT_APPROVAL_ASKED ||
         event->kind == DSH_SESSION_EVENT_APPROVAL_DECIDED;
}

void
dsh_session_event_set_line (DshSessionEvent *event, guint line)
{
  event->line = line;
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
             dsh_sandbox_mode_from_string (dsh_session_object_get_string (data, "mode"), &mode,
                                           error);

    case DSH_SESSION_EVENT_APPROVAL_POLICY:
      return require_string (data, "policy", TRUE, FALSE, error) &&
             dsh_approval_policy_from_string (dsh_session_object_get_string (data, "policy"),
                                              &policy, error);

    case DSH_SESSION_EVENT_PERMISSION_PRESET:
      if (!require_string (data, "preset", TRUE, TRUE, error))
        return FALSE;
      if (g_str_equal (dsh_session_object_get_string (data, "preset"),
                       DSH_PERMISSION_PRESET_CUSTOM))
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
             dsh_approval_outcome_from_string (dsh_session_object_get_string (data, "outcome"),
                                               &outcome, error);

    case DSH_SESSION_EVENT_TURN_START:
    case DSH_SESSION_EVENT_TURN_END:
      return require_string (data, "id", FALSE, TRUE, error);

    case DSH_SESSION_EVENT_FOREIGN:
    default:
      return TRUE;
    }
}

DshSessionEvent *
dsh_session_event_new_from_object (JsonObject *object, guint line, GError **error)
{
  g_autoptr (DshSessionEvent) event = NULL;
  JsonNode *data;
  const char *type;

  if (!require_string (object, "type", TRUE, TRUE, error) ||
      !require_string (object, "time", TRUE, FALSE, error))
    return NULL;
  type = dsh_session_object_get_string (object, "type");

  data = json_object_get_member (object, "data");
  if (data == NULL || !JSON_NODE_HOLDS_OBJECT (data))
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                   "\"data\" is missing or not an object");
      return NULL;
    }
  if (!validate_time (dsh_session_object_get_string (object, "time"), error))
    return NULL;

  event = g_new0 (DshSessionEvent, 1);
  g_atomic_ref_count_init (&event->ref);
  event->kind = kind_of_type (type);
  event->line = line;
  event->object = json_object_ref (object);
  event->type = type;
  event->data = json_node_get_object (data);
  event->time = dsh_session_object_get_string (object, "time");

  if (!validate_data (event->kind, event->data, error))
    {
      g_prefix_error (error, "%s event: ", type);
      return NULL;
    }
  return g_steal_pointer (&event);
}

gboolean
dsh_session_header_validate (JsonObject *header, GError **error)
{
  const char *cwd;

  if (!require_string (header, "id", TRUE, TRUE, error) ||
      !require_string (header, "cwd", TRUE, TRUE, error) ||
      !require_string (header, "created", TRUE, FALSE, error))
    {
      g_prefix_error (error, "session header: ");
      return FALSE;
    }
  cwd = dsh_session_object_get_string (header, "cwd");
  /* A relative cwd would name a different workspace for every process that reads it. */
  if (!g_path_is_absolute (cwd))
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                   "session header: \"cwd\" is not an absolute path");
      return FALSE;
    }
  if (!validate_time (dsh_session_object_get_string (header, "created"), error))
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

/* ---- reading and writing a line ---------------------------------------------------------- */

JsonObject *
dsh_session_line_parse (const char *text, gsize length, gboolean *syntax_error, GError **error)
{
  return dsh_json_strict_parse_object (text, length, "a line must be a JSON object",
                                       syntax_error, error);
}

char *
dsh_session_time_now (void)
{
  g_autoptr (GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *seconds = g_date_time_format (now, "%Y-%m-%dT%H:%M:%S");

  return g_strdup_printf ("%s.%03dZ", seconds, g_date_time_get_microsecond (now) / 1000);
}

char *
dsh_session_line_from_object (JsonObject *object, gsize *out_length)
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
