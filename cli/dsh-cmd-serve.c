/* dsh-cmd-serve.c — "dsh-sandbox serve": the command's answers for harnesses that keep one
 * process, in any language. One JSON request per stdin line, one JSON response per stdout line,
 * in order, until stdin ends:
 *
 *   {"id": 1, "method": "confine", "params": {"argv": ["bash", "-c", "make"], "mode": "..."}}
 *   {"id": 1, "result": { ...ConfinedArgv... }}
 *   {"id": 2, "error": {"code": "SANDBOX_UNAVAILABLE", "message": "..."}}
 *
 * Methods: probe (the probe document), confine (the ConfinedArgv document; params as the
 * confine command's options), reload (drop every provider, so the next call rescans the
 * modules), policy.resolve and policy.context (as the policy command: the policy document and
 * {"text": the model-facing context}). A provider per workspace is kept between calls, so its
 * selection is made once: a confine costs microseconds, not a process. Schemas: serve-request,
 * serve-response.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-cli.h"
#include "dsh-cli-session.h"
#include "dsh-json-strict-private.h"
#include "dsh-serve-request.h"

/* A longer line is answered with an error and skipped, never buffered whole. */
#define MAX_LINE (1024 * 1024)

typedef struct {
  /* workspace root ("" for probe) -> DshLocalProvider */
  GHashTable *providers;
} Server;

static DshLocalProvider *
provider_for (Server *server, const char *workspace_root)
{
  DshLocalProvider *provider = g_hash_table_lookup (server->providers,
                                                    workspace_root != NULL ? workspace_root : "");

  if (provider == NULL)
    {
      provider = dsh_cli_new_provider (workspace_root);
      g_hash_table_insert (server->providers, g_strdup (workspace_root != NULL ? workspace_root
                                                                                : ""),
                           provider);
    }
  return provider;
}

static const char *
error_code (const GError *error)
{
  if (error->domain == DSH_SERVE_ERROR)
    return dsh_serve_error_code_name (error->code);
  if (error->domain == DSH_SANDBOX_ERROR)
    return dsh_sandbox_error_code_name (error->code);
  if (error->domain == G_OPTION_ERROR)
    return "INVALID_ARGUMENT";
  return "FAILED";
}

/* Writes one response line; takes result (NULL with an error). */
static void
respond (JsonNode *id, JsonNode *result, const GError *error)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  g_autoptr (JsonNode) response = NULL;
  g_autofree char *text = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "id");
  json_builder_add_value (builder, id != NULL ? json_node_copy (id)
                                              : json_node_new (JSON_NODE_NULL));
  if (error != NULL)
    {
      g_autofree char *message = g_utf8_make_valid (error->message, -1);

      g_clear_pointer (&result, json_node_unref);

      json_builder_set_member_name (builder, "error");
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "code");
      json_builder_add_string_value (builder, error_code (error));
      json_builder_set_member_name (builder, "message");
      json_builder_add_string_value (builder, message);
      json_builder_end_object (builder);
    }
  else
    {
      json_builder_set_member_name (builder, "result");
      json_builder_add_value (builder, result);
    }
  json_builder_end_object (builder);
  response = json_builder_get_root (builder);
  text = dsh_json_strict_to_string (response, FALSE);
  printf ("%s\n", text);
  fflush (stdout);
}

/* {name: value}, taking value. */
static JsonNode *
object_with (const char *name, JsonNode *value)
{
  JsonObject *object = json_object_new ();
  JsonNode *node = json_node_init_object (json_node_alloc (), object);

  json_object_set_member (object, name, value);
  json_object_unref (object);
  return node;
}

static JsonNode *
handle (Server *server, const DshServeRequest *request, GError **error)
{
  g_autoptr (DshSandboxPolicy) policy = NULL;
  g_autoptr (DshConfinedArgv) confined = NULL;
  g_autofree char *text = NULL;
  JsonNode *value;

  switch (request->method)
    {
    case DSH_SERVE_METHOD_PROBE:
      return dsh_local_provider_describe (provider_for (server, NULL));

    case DSH_SERVE_METHOD_CONFINE:
      policy = dsh_cli_confine_policy (request->mode, request->workspace, request->session,
                                       error);
      if (policy == NULL)
        return NULL;
      confined = dsh_sandbox_provider_confine (
        DSH_SANDBOX_PROVIDER (provider_for (server, policy->workspace_root)),
        (const char *const *) request->argv, policy, error);
      return confined != NULL ? dsh_confined_argv_to_json (confined) : NULL;

    case DSH_SERVE_METHOD_RELOAD:
      /* A provider lifetime is the unit of hot reload; calls made so far are done with theirs. */
      g_hash_table_remove_all (server->providers);
      value = json_node_init_boolean (json_node_alloc (), TRUE);
      return object_with ("reloaded", value);

    case DSH_SERVE_METHOD_POLICY_RESOLVE:
      policy = dsh_cli_policy_resolve (request->session, request->mode, error);
      return policy != NULL ? dsh_cli_policy_to_json (policy) : NULL;

    case DSH_SERVE_METHOD_POLICY_CONTEXT:
      text = dsh_cli_policy_context (request->session, error);
      if (text == NULL)
        return NULL;
      value = json_node_init_string (json_node_alloc (), text);
      return object_with ("text", value);

    default:
      g_assert_not_reached ();
    }
}

/* Reads one line (without its newline) into line; FALSE at the end of input. A line over
 * MAX_LINE bytes is read to its end but kept empty, with *too_long set. */
static gboolean
read_line (FILE *in, GString *line, gboolean *too_long)
{
  int c;

  g_string_truncate (line, 0);
  *too_long = FALSE;
  while ((c = getc_unlocked (in)) != EOF && c != '\n')
    {
      if (line->len >= MAX_LINE)
        {
          *too_long = TRUE;
          g_string_truncate (line, 0);
        }
      if (!*too_long)
        g_string_append_c (line, (char) c);
    }
  return c != EOF || line->len > 0 || *too_long;
}

static gboolean
is_blank (const GString *line)
{
  for (gsize i = 0; i < line->len; i++)
    {
      if (!g_ascii_isspace (line->str[i]))
        return FALSE;
    }
  return TRUE;
}

int
dsh_cmd_serve (int argc, char **argv)
{
  g_autoptr (GOptionContext) context = g_option_context_new (NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (GString) line = g_string_new (NULL);
  Server server = { 0 };
  gboolean too_long;

  g_option_context_set_summary (context, "JSON-lines requests on stdin, responses on stdout "
                                         "(methods: probe, confine, reload, policy.resolve, "
                                         "policy.context).");
  if (!dsh_cli_parse_options (context, argc, argv, &error))
    return dsh_cli_fail_error (error);

  server.providers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  while (read_line (stdin, line, &too_long))
    {
      DshServeRequest request;
      g_autoptr (JsonNode) result = NULL;
      g_autoptr (GError) request_error = NULL;

      if (too_long)
        {
          g_set_error (&request_error, DSH_SERVE_ERROR, DSH_SERVE_ERROR_PARSE_ERROR,
                       "the request line is longer than %d bytes", MAX_LINE);
          respond (NULL, NULL, request_error);
          continue;
        }
      if (is_blank (line))
        continue;
      if (dsh_serve_request_parse (line->str, line->len, &request, &request_error))
        result = handle (&server, &request, &request_error);
      respond (request.id, g_steal_pointer (&result), request_error);
      dsh_serve_request_clear (&request);
    }
  g_hash_table_unref (server.providers);
  return 0;
}
