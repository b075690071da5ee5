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
 * {"text": the model-facing context}), escalate (one turn of the session in which the server
 * asks the client itself: {"method": "approval.request", "params": request} on stdout, answered
 * by the client's next line {"result": "<outcome>"}; {"mode", "outcome", "callId"} when
 * granted). A provider per workspace is kept between calls, so its
 * selection is made once: a confine costs microseconds, not a process. Schemas: serve-request,
 * serve-response.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-cli.h"
#include "dsh-cli-session.h"
#include "dsh-json-strict-private.h"
#include "dsh-serve-request.h"

typedef struct {
  /* workspace root ("" for probe) -> DshLocalProvider */
  GHashTable *providers;
} Server;

/* One provider per set of roots a confined command may write (workspace and extra roots): its
 * trust checks depend on them. NULL policy: the probe's, trusting everything. */
static DshLocalProvider *
provider_for (Server *server, const DshSandboxPolicy *policy)
{
  g_autofree char *extra = policy != NULL && policy->extra_writable_roots != NULL
                             ? g_strjoinv ("\n", policy->extra_writable_roots)
                             : NULL;
  g_autofree char *key = policy != NULL ? g_strdup_printf ("%s\n%s", policy->workspace_root,
                                                           extra != NULL ? extra : "")
                                        : g_strdup ("");
  DshLocalProvider *provider = g_hash_table_lookup (server->providers, key);

  if (provider == NULL)
    {
      g_autoptr (DshSandboxPolicy) unpinned = NULL;

      if (policy != NULL)
        {
          /* Trust must not depend on one call's pinned strings: the provider outlives it. */
          unpinned = dsh_sandbox_policy_copy (policy);
          g_clear_pointer (&unpinned->writable_roots, g_strfreev);
        }
      provider = dsh_cli_new_provider_for_policy (unpinned);
      g_hash_table_insert (server->providers, g_steal_pointer (&key), provider);
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
                                       (const char *const *) request->writable_roots, error);
      if (policy == NULL)
        return NULL;
      confined = dsh_sandbox_provider_confine (
        DSH_SANDBOX_PROVIDER (provider_for (server, policy)),
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

    case DSH_SERVE_METHOD_ESCALATE:
      return dsh_serve_escalate (request, stdin, stdout, error);

    default:
      g_assert_not_reached ();
    }
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
                                         "policy.context, escalate).");
  if (!dsh_cli_parse_options (context, argc, argv, &error))
    return dsh_cli_fail_error (error);

  server.providers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  while (dsh_serve_read_line (stdin, line, &too_long))
    {
      DshServeRequest request;
      g_autoptr (JsonNode) result = NULL;
      g_autoptr (GError) request_error = NULL;

      if (too_long)
        {
          g_set_error (&request_error, DSH_SERVE_ERROR, DSH_SERVE_ERROR_PARSE_ERROR,
                       "the request line is longer than %d bytes", DSH_SERVE_MAX_LINE);
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
