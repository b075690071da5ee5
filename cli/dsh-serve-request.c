/* dsh-serve-request.c — reading one "dsh-sandbox serve" request strictly: anything the
 * protocol does not define is refused, never ignored, so a client's typo cannot silently
 * confine under a default it did not mean.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-serve-request.h"

#include <poll.h>
#include <string.h>

#include "dsh-json-strict-private.h"

G_DEFINE_QUARK (dsh-serve-error-quark, dsh_serve_error)

const char *
dsh_serve_error_code_name (DshServeError code)
{
  switch (code)
    {
    case DSH_SERVE_ERROR_PARSE_ERROR:
      return "PARSE_ERROR";
    case DSH_SERVE_ERROR_INVALID_REQUEST:
      return "INVALID_REQUEST";
    case DSH_SERVE_ERROR_UNKNOWN_METHOD:
      return "UNKNOWN_METHOD";
    default:
      return "UNKNOWN";
    }
}

typedef struct {
  const char *name;
  DshServeMethod method;
  /* The parameters it takes, NULL-terminated. */
  const char *params[8];
  /* Those it cannot do without, NULL-terminated. */
  const char *required[4];
} MethodSpec;

static const MethodSpec methods[] = {
  { "probe", DSH_SERVE_METHOD_PROBE, { NULL }, { NULL } },
  { "confine", DSH_SERVE_METHOD_CONFINE,
    { "argv", "mode", "workspace", "session", "writableRoots", NULL },
    { "argv", NULL } },
  { "reload", DSH_SERVE_METHOD_RELOAD, { NULL }, { NULL } },
  { "policy.resolve", DSH_SERVE_METHOD_POLICY_RESOLVE, { "session", "mode", NULL }, { NULL } },
  { "policy.context", DSH_SERVE_METHOD_POLICY_CONTEXT, { "session", NULL }, { NULL } },
  { "escalate", DSH_SERVE_METHOD_ESCALATE,
    { "session", "argv", "mode", "sandboxPermissions", "justification", "callId", NULL },
    { "argv", "session", "callId", NULL } },
  { "classify", DSH_SERVE_METHOD_CLASSIFY,
    { "backend", "mode", "exitStatus", "stderr", "stderrBase64", "session", "escalated", NULL },
    { "backend", "mode", "exitStatus", NULL } },
  { "session.new", DSH_SERVE_METHOD_SESSION_NEW, { "session", "cwd", "preset", NULL },
    { "session", NULL } },
  { "session.show", DSH_SERVE_METHOD_SESSION_SHOW, { "session", NULL }, { "session", NULL } },
  { "session.setMode", DSH_SERVE_METHOD_SESSION_SET_MODE, { "session", "mode", NULL },
    { "session", "mode", NULL } },
  { "session.setApproval", DSH_SERVE_METHOD_SESSION_SET_APPROVAL,
    { "session", "approvalPolicy", NULL }, { "session", "approvalPolicy", NULL } },
  { "session.setPreset", DSH_SERVE_METHOD_SESSION_SET_PRESET, { "session", "preset", NULL },
    { "session", "preset", NULL } },
  { "describe", DSH_SERVE_METHOD_DESCRIBE, { "tool", "session", NULL }, { NULL } },
};

static gboolean
invalid (GError **error, const char *format, ...) G_GNUC_PRINTF (2, 3);

static gboolean
invalid (GError **error, const char *format, ...)
{
  va_list args;

  va_start (args, format);
  g_propagate_error (error, g_error_new_valist (DSH_SERVE_ERROR,
                                                DSH_SERVE_ERROR_INVALID_REQUEST, format, args));
  va_end (args);
  return FALSE;
}

static gboolean
is_listed (const char *const *names, const char *name)
{
  for (gsize i = 0; names[i] != NULL; i++)
    {
      if (g_str_equal (names[i], name))
        return TRUE;
    }
  return FALSE;
}

/* Every member of object must be one of names. */
static gboolean
check_members (JsonObject *object, const char *const *names, const char *where, GError **error)
{
  g_autoptr (GList) members = json_object_get_members (object);

  for (GList *l = members; l != NULL; l = l->next)
    {
      if (!is_listed (names, l->data))
        return invalid (error, "unknown member \"%s\" in %s", (const char *) l->data, where);
    }
  return TRUE;
}

static gboolean
read_id (JsonObject *object, DshServeRequest *request, GError **error)
{
  JsonNode *id = json_object_get_member (object, "id");

  if (id == NULL)
    {
      request->id = json_node_new (JSON_NODE_NULL);
      return TRUE;
    }
  if (JSON_NODE_HOLDS_NULL (id) ||
      (JSON_NODE_HOLDS_VALUE (id) && (json_node_get_value_type (id) == G_TYPE_STRING ||
                                      json_node_get_value_type (id) == G_TYPE_INT64)))
    {
      request->id = json_node_copy (id);
      return TRUE;
    }
  request->id = json_node_new (JSON_NODE_NULL);
  return invalid (error, "the id must be a string, an integer or null");
}

static gboolean
read_string (JsonObject *params, const char *name, char **out, GError **error)
{
  JsonNode *node = json_object_get_member (params, name);

  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return invalid (error, "the parameter \"%s\" must be a string", name);
  *out = g_strdup (json_node_get_string (node));
  return TRUE;
}

/* writableRoots (optional): the call's extra writable roots, absolute paths. */
static gboolean
read_writable_roots (JsonObject *params, DshServeRequest *request, GError **error)
{
  JsonNode *node = json_object_get_member (params, "writableRoots");
  g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();
  JsonArray *array;

  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (node))
    return invalid (error, "\"writableRoots\" must be an array of absolute paths");
  array = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);

      if (!JSON_NODE_HOLDS_VALUE (element) ||
          json_node_get_value_type (element) != G_TYPE_STRING ||
          !g_path_is_absolute (json_node_get_string (element)))
        return invalid (error, "writableRoots[%u] is not an absolute path", i);
      g_strv_builder_add (builder, json_node_get_string (element));
    }
  request->writable_roots = g_strv_builder_end (builder);
  return TRUE;
}

static gboolean
read_argv (JsonObject *params, const char *method, DshServeRequest *request, GError **error)
{
  JsonNode *node = json_object_get_member (params, "argv");
  g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();
  JsonArray *array;

  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    return invalid (error, "%s needs the parameter \"argv\", an array of strings", method);
  array = json_node_get_array (node);
  if (json_array_get_length (array) == 0)
    return invalid (error, "the command to %s is empty", method);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);

      if (!JSON_NODE_HOLDS_VALUE (element) || json_node_get_value_type (element) != G_TYPE_STRING)
        return invalid (error, "argv[%u] is not a string", i);
      g_strv_builder_add (builder, json_node_get_string (element));
    }
  request->argv = g_strv_builder_end (builder);
  if (request->argv[0][0] == '\0')
    return invalid (error, "the command to %s is empty", method);
  return TRUE;
}

static const char method_list[] =
  "probe, confine, reload, policy.resolve, policy.context, escalate, classify, session.new, "
  "session.show, session.setMode, session.setApproval, session.setPreset, describe";

static gboolean
read_int (JsonObject *params, const char *name, int minimum, int maximum, int *out,
          GError **error)
{
  JsonNode *node = json_object_get_member (params, name);
  gint64 value;

  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_INT64)
    return invalid (error, "the parameter \"%s\" must be an integer", name);
  value = json_node_get_int (node);
  if (value < minimum || value > maximum)
    return invalid (error, "the parameter \"%s\" must lie in %d..%d", name, minimum, maximum);
  *out = (int) value;
  return TRUE;
}

static gboolean
read_boolean (JsonObject *params, const char *name, gboolean *out, GError **error)
{
  JsonNode *node = json_object_get_member (params, name);

  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    return invalid (error, "the parameter \"%s\" must be true or false", name);
  *out = json_node_get_boolean (node);
  return TRUE;
}

/* Standard base64 with its padding, nothing else: a lenient decoder would classify bytes the
 * client never sent. */
static gboolean
is_strict_base64 (const char *text)
{
  gsize len = strlen (text);

  if (len % 4 != 0)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    {
      char c = text[i];

      if (c == '=' && (i >= len - 2) && (i == len - 1 || text[len - 1] == '='))
        continue;
      if (!g_ascii_isalnum (c) && c != '+' && c != '/')
        return FALSE;
    }
  return TRUE;
}

/* classify: stderr as text or as bytes, not both. */
static gboolean
read_stderr (JsonObject *params, DshServeRequest *request, GError **error)
{
  g_autofree char *text = NULL;
  g_autofree char *encoded = NULL;
  gsize len = 0;
  guchar *bytes;

  if (!read_string (params, "stderr", &text, error) ||
      !read_string (params, "stderrBase64", &encoded, error))
    return FALSE;
  if (text != NULL && encoded != NULL)
    return invalid (error, "classify takes \"stderr\" or \"stderrBase64\", not both");
  if (encoded != NULL && !is_strict_base64 (encoded))
    return invalid (error, "the parameter \"stderrBase64\" is not standard padded base64");
  if (encoded != NULL && encoded[0] != '\0')
    {
      bytes = g_base64_decode (encoded, &len);
      request->stderr_bytes = g_bytes_new_take (bytes, len);
    }
  else if (text != NULL)
    {
      len = strlen (text);
      request->stderr_bytes = g_bytes_new_take (g_steal_pointer (&text), len);
    }
  else
    request->stderr_bytes = g_bytes_new_static ("", 0);
  return TRUE;
}

static gboolean
check_required (const MethodSpec *spec, JsonObject *params, GError **error)
{
  for (gsize i = 0; spec->required[i] != NULL; i++)
    {
      if (params == NULL || !json_object_has_member (params, spec->required[i]))
        return invalid (error, "%s needs the parameter \"%s\"", spec->name, spec->required[i]);
    }
  return TRUE;
}

/* escalate: the call it is about has a name. */
static gboolean
check_escalate (const DshServeRequest *request, GError **error)
{
  if (request->call_id == NULL || request->call_id[0] == '\0')
    return invalid (error, "escalate needs the parameter \"callId\", the caller's non-empty id "
                           "of the tool call");
  return TRUE;
}

gboolean
dsh_serve_request_parse (const char *line,
                         gsize length,
                         DshServeRequest *request,
                         GError **error)
{
  return dsh_serve_request_parse_quick (line, length, request) ||
         dsh_serve_request_parse_tree (line, length, request, error);
}

gboolean
dsh_serve_request_parse_tree (const char *line,
                              gsize length,
                              DshServeRequest *request,
                              GError **error)
{
  static const char *const top_members[] = { "id", "method", "params", NULL };
  g_autoptr (JsonObject) object = NULL;
  g_autoptr (GError) local_error = NULL;
  const MethodSpec *spec = NULL;
  JsonNode *method;
  JsonNode *params_node;
  JsonObject *params = NULL;
  gboolean syntax_error = FALSE;

  memset (request, 0, sizeof (*request));
  /* Another value than an object needs no detail: the message below already says so. */
  object = dsh_json_strict_parse_object (line, length, "", &syntax_error, &local_error);
  if (object == NULL)
    {
      g_set_error (error, DSH_SERVE_ERROR, DSH_SERVE_ERROR_PARSE_ERROR,
                   "the request is not one JSON object%s%s",
                   *local_error->message != '\0' ? ": " : "", local_error->message);
      return FALSE;
    }
  if (!read_id (object, request, error) ||
      !check_members (object, top_members, "a request", error))
    return FALSE;

  method = json_object_get_member (object, "method");
  if (method == NULL || !JSON_NODE_HOLDS_VALUE (method) ||
      json_node_get_value_type (method) != G_TYPE_STRING)
    return invalid (error, "the request needs a \"method\" string");
  for (guint i = 0; i < G_N_ELEMENTS (methods); i++)
    {
      if (g_str_equal (methods[i].name, json_node_get_string (method)))
        spec = &methods[i];
    }
  if (spec == NULL)
    {
      g_set_error (error, DSH_SERVE_ERROR, DSH_SERVE_ERROR_UNKNOWN_METHOD,
                   "no method \"%s\" (there are %s)", json_node_get_string (method),
                   method_list);
      return FALSE;
    }
  request->method = spec->method;

  params_node = json_object_get_member (object, "params");
  if (params_node != NULL && !JSON_NODE_HOLDS_OBJECT (params_node))
    return invalid (error, "\"params\" must be an object");
  if (params_node != NULL)
    {
      g_autofree char *where = g_strdup_printf ("the parameters of %s", spec->name);

      params = json_node_get_object (params_node);
      if (!check_members (params, spec->params, where, error))
        return FALSE;
    }

  if (!check_required (spec, params, error))
    return FALSE;
  if (params == NULL)
    return TRUE;
  /* check_members() has kept out what the method does not take. */
  return (!json_object_has_member (params, "argv") ||
          read_argv (params, spec->name, request, error)) &&
         (spec->method != DSH_SERVE_METHOD_CONFINE ||
          read_writable_roots (params, request, error)) &&
         read_string (params, "mode", &request->mode, error) &&
         read_string (params, "workspace", &request->workspace, error) &&
         read_string (params, "session", &request->session, error) &&
         read_string (params, "sandboxPermissions", &request->sandbox_permissions, error) &&
         read_string (params, "justification", &request->justification, error) &&
         read_string (params, "callId", &request->call_id, error) &&
         read_string (params, "backend", &request->backend, error) &&
         read_int (params, "exitStatus", 0, 255, &request->exit_status, error) &&
         (spec->method != DSH_SERVE_METHOD_CLASSIFY || read_stderr (params, request, error)) &&
         read_boolean (params, "escalated", &request->escalated, error) &&
         read_string (params, "cwd", &request->cwd, error) &&
         read_string (params, "preset", &request->preset, error) &&
         read_string (params, "approvalPolicy", &request->approval_policy, error) &&
         read_string (params, "tool", &request->tool, error) &&
         (spec->method != DSH_SERVE_METHOD_ESCALATE || check_escalate (request, error));
}

void
dsh_serve_request_clear (DshServeRequest *request)
{
  g_clear_pointer (&request->id, json_node_unref);
  g_clear_pointer (&request->argv, g_strfreev);
  g_clear_pointer (&request->mode, g_free);
  g_clear_pointer (&request->workspace, g_free);
  g_clear_pointer (&request->session, g_free);
  g_clear_pointer (&request->sandbox_permissions, g_free);
  g_clear_pointer (&request->justification, g_free);
  g_clear_pointer (&request->call_id, g_free);
  g_clear_pointer (&request->writable_roots, g_strfreev);
  g_clear_pointer (&request->backend, g_free);
  g_clear_pointer (&request->stderr_bytes, g_bytes_unref);
  g_clear_pointer (&request->cwd, g_free);
  g_clear_pointer (&request->preset, g_free);
  g_clear_pointer (&request->approval_policy, g_free);
  g_clear_pointer (&request->tool, g_free);
}

/* Appends n bytes of a line unless it grew too long: then it stays empty to its end. */
static void
append_capped (GString *line, const char *bytes, gsize n, gboolean *too_long)
{
  if (*too_long)
    return;
  if (n > DSH_SERVE_MAX_LINE - line->len)
    {
      *too_long = TRUE;
      g_string_truncate (line, 0);
      return;
    }
  g_string_append_len (line, bytes, (gssize) n);
}

gboolean
dsh_serve_line_is_blank (const GString *line)
{
  for (gsize i = 0; i < line->len; i++)
    {
      if (!g_ascii_isspace (line->str[i]))
        return FALSE;
    }
  return TRUE;
}

gboolean
dsh_serve_read_line (FILE *in, GString *line, gboolean *too_long)
{
  int c;

  g_string_truncate (line, 0);
  *too_long = FALSE;
  for (;;)
    {
      char byte;

#ifdef __GLIBC__
      /* What the stream holds already, a run up to the newline at a time (getc would copy it
       * one byte at a time). */
      while (in->_IO_read_ptr < in->_IO_read_end)
        {
          const char *start = in->_IO_read_ptr;
          gsize available = (gsize) (in->_IO_read_end - start);
          const char *newline = memchr (start, '\n', available);
          gsize n = newline != NULL ? (gsize) (newline - start) : available;

          append_capped (line, start, n, too_long);
          in->_IO_read_ptr += n + (newline != NULL ? 1 : 0);
          if (newline != NULL)
            return TRUE;
        }
#endif
      /* Fills the buffer again (or reads a byte where it cannot be seen). */
      if ((c = getc_unlocked (in)) == EOF)
        return line->len > 0 || *too_long;
      if (c == '\n')
        return TRUE;
      byte = (char) c;
      append_capped (line, &byte, 1, too_long);
    }
}

gboolean
dsh_serve_input_pending (FILE *in)
{
#ifdef __GLIBC__
  struct pollfd ready = { .fd = fileno (in), .events = POLLIN };

  /* Already read into the stream's buffer, or waiting in the pipe. */
  if (in->_IO_read_ptr < in->_IO_read_end)
    return TRUE;
  return poll (&ready, 1, 0) == 1 && (ready.revents & POLLIN) != 0;
#else
  return FALSE;
#endif
}
