/* dsh-cmd-serve.c — "dsh-sandbox serve": the command's answers for harnesses that keep one
 * process, in any language. One JSON request per stdin line, one JSON response per stdout line,
 * in order, until stdin ends:
 *
 *   {"id": 1, "method": "confine", "params": {"argv": ["bash", "-c", "make"], "mode": "..."}}
 *   {"id": 1, "result": { ...ConfinedArgv... }}
 *   {"id": 2, "error": {"code": "SANDBOX_UNAVAILABLE", "message": "..."}}
 *
 * Methods: probe (the probe document), confine (the ConfinedArgv document; params as the
 * confine command's options), reload (start a new generation of providers now), policy.resolve,
 * policy.context, describe and session.* (what the commands of those names print), classify
 * (what exec would say about a run the client spawned itself), escalate (one turn of the session
 * in which the server asks the client itself: {"method": "approval.request", "params": request}
 * on stdout, answered by the client's next line {"result": "<outcome>"}; {"mode", "outcome",
 * "callId"} when granted). A provider per workspace is kept between calls, so its selection is
 * made once: a confine costs microseconds, not a process. The providers belong to a generation
 * (dsh-serve-generation.c) that a change in a module directory replaces; each keeps at most
 * DSH_SANDBOX_SERVE_PROVIDERS (default 64), the least recently used dropped first, so a
 * long-lived server's memory does not grow with the workspaces it has seen. Confines that
 * arrive faster than one thread answers them are answered on DSH_SANDBOX_SERVE_THREADS threads
 * (default 2, the reading thread one of them; dsh-serve-pipeline.c), their answers still in
 * request order; every other method waits for the confines before it and runs alone. Schemas:
 * serve-request, serve-response and one per result.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-cli.h"
#include "dsh-cli-environment.h"
#include "dsh-cli-session.h"
#include "dsh-json-strict-private.h"
#include "dsh-roots-private.h"
#include "dsh-serve-confined.h"
#include "dsh-serve-generation.h"
#include "dsh-serve-pipeline.h"
#include "dsh-serve-request.h"

/* How many workspaces' providers a generation keeps; the least recently used is dropped beyond
 * it (its next call rescans and re-probes, helped by the probe cache). */
#define DSH_SERVE_DEFAULT_PROVIDERS 64

static gboolean
read_capacity (guint *out_capacity, GError **error)
{
  const char *text = g_getenv ("DSH_SANDBOX_SERVE_PROVIDERS");
  guint64 value;

  *out_capacity = DSH_SERVE_DEFAULT_PROVIDERS;
  if (text == NULL || *text == '\0')
    return TRUE;
  if (!g_ascii_string_to_unsigned (text, 10, 1, G_MAXUINT, &value, NULL))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "DSH_SANDBOX_SERVE_PROVIDERS must be a whole number of providers, at least "
                   "1 (not \"%s\")", text);
      return FALSE;
    }
  *out_capacity = (guint) value;
  return TRUE;
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

/* How many threads answer confines a client sends faster than one answers them: two where
 * there are two cores, else one (all on the main thread). */
static gboolean
read_threads (guint *out_threads, GError **error)
{
  const char *text = g_getenv ("DSH_SANDBOX_SERVE_THREADS");
  guint64 value;

  *out_threads = MIN (g_get_num_processors (), 2);
  if (text == NULL || *text == '\0')
    return TRUE;
  if (!g_ascii_string_to_unsigned (text, 10, 1, 16, &value, NULL))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "DSH_SANDBOX_SERVE_THREADS must be a whole number of threads from 1 to 16 "
                   "(not \"%s\")", text);
      return FALSE;
    }
  *out_threads = (guint) value;
  return TRUE;
}

/* One response line (without its newline); takes result (NULL with an error). */
static char *
response_text (JsonNode *id, JsonNode *result, const GError *error)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  g_autoptr (JsonNode) response = NULL;

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
  return dsh_json_strict_to_string (response, FALSE);
}

/* Writes one response line; takes result (NULL with an error). */
static void
respond (JsonNode *id, JsonNode *result, const GError *error)
{
  g_autofree char *text = response_text (id, result, error);

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

/* {"notice": text} when there is one, else {}; takes notice. */
static JsonNode *
notice_result (char *notice)
{
  g_autofree char *owned = notice;
  JsonObject *object = json_object_new ();
  JsonNode *node = json_node_init_object (json_node_alloc (), object);

  if (owned != NULL)
    json_object_set_string_member (object, "notice", owned);
  json_object_unref (object);
  return node;
}

static JsonNode *
session_switch (const char *session, DshCliSessionSwitch kind, const char *value,
                GError **error)
{
  char *notice = NULL;

  if (!dsh_cli_session_switch (session, kind, value, &notice, error))
    return NULL;
  return notice_result (notice);
}

/* On any thread: confines run on the pipeline's workers too. *warnings: the sentences for
 * extra roots left out, or NULL. */
static DshConfinedArgv *
confine (DshServeGeneration *generation, const DshServeRequest *request, GStrv *warnings,
         GError **error)
{
  g_autoptr (DshSandboxPolicy) policy = NULL;
  g_autoptr (DshLocalProvider) provider = NULL;
  DshConfinedArgv *confined;

  *warnings = NULL;
  policy = dsh_cli_confine_policy (request->mode, request->workspace, request->session,
                                   (const char *const *) request->writable_roots, error);
  if (policy == NULL)
    return NULL;
  provider = dsh_serve_generation_dup_provider (generation, policy);
  confined = dsh_sandbox_provider_confine (DSH_SANDBOX_PROVIDER (provider),
                                           (const char *const *) request->argv, policy, error);
  if (confined != NULL)
    *warnings = dsh_roots_left_out_warnings (policy);
  return confined;
}

/* The ConfinedArgv document, with its warnings; takes neither. */
static JsonNode *
confined_json (DshConfinedArgv *confined, const char *const *warnings)
{
  JsonNode *json = dsh_confined_argv_to_json (confined);

  dsh_cli_add_warnings (json, warnings);
  return json;
}

/* The answer to a confine (without its newline), appended to out (empty), written without a
 * JSON tree when it can be (the most frequent call: not an error, an id of the usual kinds).
 * out is a buffer its caller keeps from one confine to the next: no answer-sized allocation
 * per confine (glibc sweeps its small free chunks before each large one). */
static void
confine_answer (DshServeGeneration *generation, const DshServeRequest *request, GString *out)
{
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) warnings = NULL;
  g_autoptr (DshConfinedArgv) confined = confine (generation, request, &warnings, &error);
  g_autofree char *text = NULL;

  if (confined != NULL && warnings == NULL &&
      dsh_serve_confined_append (out, request->id, confined))
    return;
  g_string_truncate (out, 0);
  text = confined == NULL
           ? response_text (request->id, NULL, error)
           : response_text (request->id,
                            confined_json (confined, (const char *const *) warnings), NULL);
  g_string_append (out, text);
}

/* confine_answer() on the reading thread, written at once. */
static void
write_confine_answer (DshServeGeneration *generation, const DshServeRequest *request,
                      GString *buffer)
{
  g_string_truncate (buffer, 0);
  confine_answer (generation, request, buffer);
  g_string_append_c (buffer, '\n');
  fwrite (buffer->str, 1, buffer->len, stdout);
  fflush (stdout);
}

static JsonNode *
handle (DshServeGenerations *generations, DshServeGeneration *generation,
        const DshServeRequest *request, GError **error)
{
  g_autoptr (DshSandboxPolicy) policy = NULL;
  g_autoptr (DshConfinedArgv) confined = NULL;
  g_auto (GStrv) warnings = NULL;
  g_autoptr (DshSessionLog) session = NULL;
  g_autofree char *text = NULL;
  JsonNode *value;

  switch (request->method)
    {
    case DSH_SERVE_METHOD_PROBE:
      return dsh_local_provider_describe (dsh_serve_generation_provider (generation, NULL));

    case DSH_SERVE_METHOD_CONFINE:
      confined = confine (generation, request, &warnings, error);
      return confined != NULL ? confined_json (confined, (const char *const *) warnings) : NULL;

    case DSH_SERVE_METHOD_RELOAD:
      /* A provider lifetime is the unit of hot reload: the next call starts a new one. */
      dsh_serve_generations_renew (generations);
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

    case DSH_SERVE_METHOD_CLASSIFY:
      return dsh_serve_classify (request, generation, error);

    case DSH_SERVE_METHOD_SESSION_NEW:
      session = dsh_cli_session_new (request->session, request->cwd, request->preset, error);
      if (session == NULL)
        return NULL;
      value = json_node_init_string (json_node_alloc (), dsh_session_log_get_id (session));
      return object_with ("id", value);

    case DSH_SERVE_METHOD_SESSION_SHOW:
      return dsh_cli_session_show_json (request->session, error);

    case DSH_SERVE_METHOD_SESSION_SET_MODE:
      return session_switch (request->session, DSH_CLI_SESSION_SWITCH_MODE, request->mode, error);

    case DSH_SERVE_METHOD_SESSION_SET_APPROVAL:
      return session_switch (request->session, DSH_CLI_SESSION_SWITCH_APPROVAL,
                             request->approval_policy, error);

    case DSH_SERVE_METHOD_SESSION_SET_PRESET:
      return session_switch (request->session, DSH_CLI_SESSION_SWITCH_PRESET, request->preset,
                             error);

    case DSH_SERVE_METHOD_DESCRIBE:
      text = dsh_cli_describe (request->tool != NULL ? request->tool : "bash", request->session,
                               error);
      if (text == NULL)
        return NULL;
      value = json_node_init_string (json_node_alloc (), text);
      return object_with ("text", value);

    default:
      g_assert_not_reached ();
    }
}

int
dsh_cmd_serve (int argc, char **argv)
{
  g_autoptr (GOptionContext) context = g_option_context_new (NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (GString) line = g_string_new (NULL);
  g_autoptr (GString) answer = g_string_sized_new (4096);
  g_autoptr (DshServeGenerations) generations = NULL;
  g_autoptr (DshServePipeline) pipeline = NULL;
  gboolean too_long;
  guint capacity, threads;

  dsh_cli_describe_environment (context, "serve");
  g_option_context_set_summary (context, "JSON-lines requests on stdin, responses on stdout "
                                         "(methods: probe, confine, reload, policy.resolve, "
                                         "policy.context, escalate, classify, session.new, "
                                         "session.show, session.setMode, session.setApproval, "
                                         "session.setPreset, describe). A change in a module "
                                         "directory starts a new generation of providers.");
  if (!dsh_cli_parse_options (context, argc, argv, &error) ||
      !read_capacity (&capacity, &error) || !read_threads (&threads, &error))
    return dsh_cli_fail_error (error);

  generations = dsh_serve_generations_new (capacity);
  if (threads > 1)
    pipeline = dsh_serve_pipeline_new (stdout, threads, confine_answer);
  while (dsh_serve_read_line (stdin, line, &too_long))
    {
      DshServeRequest request;
      g_autoptr (JsonNode) result = NULL;
      g_autoptr (GError) request_error = NULL;

      if (too_long)
        {
          g_set_error (&request_error, DSH_SERVE_ERROR, DSH_SERVE_ERROR_PARSE_ERROR,
                       "the request line is longer than %d bytes", DSH_SERVE_MAX_LINE);
          if (pipeline != NULL)
            dsh_serve_pipeline_drain (pipeline);
          respond (NULL, NULL, request_error);
          continue;
        }
      if (dsh_serve_line_is_blank (line))
        continue;
      if (dsh_serve_request_parse (line->str, line->len, &request, &request_error))
        {
          /* The call keeps its generation, and that generation's modules, to its end. */
          g_autoptr (DshServeGeneration) generation =
            dsh_serve_generations_acquire (generations);

          if (request.method == DSH_SERVE_METHOD_CONFINE)
            {
              /* More requests already waiting, or answers still being made: to the pipeline,
               * so both cores answer. Else here, without a hand-over between threads. */
              if (pipeline != NULL &&
                  (!dsh_serve_pipeline_is_idle (pipeline) || dsh_serve_input_pending (stdin)))
                {
                  dsh_serve_pipeline_push (pipeline, generation, &request);
                  continue;
                }
              write_confine_answer (generation, &request, answer);
              dsh_serve_request_clear (&request);
              continue;
            }
          /* Every other method runs alone, after every confine before it has been answered
           * (escalate reads stdin itself, reload changes the generation). */
          if (pipeline != NULL)
            dsh_serve_pipeline_drain (pipeline);
          result = handle (generations, generation, &request, &request_error);
        }
      else if (pipeline != NULL)
        dsh_serve_pipeline_drain (pipeline);
      respond (request.id, g_steal_pointer (&result), request_error);
      dsh_serve_request_clear (&request);
    }
  return 0;
}
