/* test-serve.c — `dsh-sandbox serve`: one response per request line, in order, each valid
 * against schemas/serve-response.schema.json with its result valid against the method's own
 * schema; malformed, unknown and oversized requests answered with an error and the next one
 * still served; the request schema and the server agreeing on what is a request; providers
 * kept between calls and dropped by reload; the same guards as the confine command.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <glib/gstdio.h>
#include <string.h>

#include "dsh-test-util.h"
#include "dsh-test-seed-texts.h"

static const char *const bwrap_env[] = { "DSH_SANDBOX_BACKEND=bwrap", "DSH_SANDBOX_PROBE_CACHE=off",
                                         NULL };

/* Runs serve on these request lines and returns its response lines, each schema-checked. */
static GPtrArray *
serve (const char *const *env, const char *cwd, const char *const *requests)
{
  g_autoptr (GString) input = g_string_new (NULL);
  const char *argv[] = { dsh_test_cli (), "serve", NULL };
  g_auto (DshTestRun) run = { 0 };
  g_auto (GStrv) lines = NULL;
  GPtrArray *responses = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);

  for (gsize i = 0; requests[i] != NULL; i++)
    g_string_append_printf (input, "%s\n", requests[i]);
  dsh_test_run (&run, argv, env, cwd, input->str);
  if (run.exit_code != 0)
    g_error ("serve exited %d: %s", run.exit_code, run.err);
  g_assert_cmpstr (run.err, ==, "");
  lines = g_strsplit (run.out, "\n", -1);
  for (gsize i = 0; lines[i] != NULL && lines[i][0] != '\0'; i++)
    {
      g_ptr_array_add (responses,
                       dsh_test_parse_valid_json (lines[i], "serve-response.schema.json"));
    }
  return responses;
}

static JsonObject *
response (GPtrArray *responses, guint i)
{
  g_assert_cmpuint (i, <, responses->len);
  return json_node_get_object (responses->pdata[i]);
}

static const char *
error_code (GPtrArray *responses, guint i)
{
  JsonObject *r = response (responses, i);

  if (!json_object_has_member (r, "error"))
    return NULL;
  return json_object_get_string_member (json_object_get_object_member (r, "error"), "code");
}

/* The result, re-serialised and checked against schema. */
static JsonObject *
result (GPtrArray *responses, guint i, const char *schema)
{
  JsonObject *r = response (responses, i);
  JsonNode *node = json_object_get_member (r, "result");
  g_autofree char *text = NULL;

  if (node == NULL)
    g_error ("response %u is an error: %s", i,
             json_object_get_string_member (json_object_get_object_member (r, "error"),
                                            "message"));
  text = json_to_string (node, FALSE);
  if (schema != NULL)
    dsh_test_assert_valid_json (text, schema);
  return json_node_get_object (node);
}

static void
test_methods (void)
{
  g_autofree char *ws = dsh_test_scratch_dir ("serve");
  g_autofree char *confine = g_strdup_printf ("{\"id\":2,\"method\":\"confine\",\"params\":"
                                              "{\"argv\":[\"sh\",\"-c\",\"make test\"],"
                                              "\"mode\":\"workspace-write\",\"workspace\":\"%s\"}}",
                                              ws);
  const char *requests[] = {
    "{\"id\":1,\"method\":\"probe\"}",
    confine,
    "{\"id\":\"three\",\"method\":\"reload\",\"params\":{}}",
    "{\"method\":\"confine\",\"params\":{\"argv\":[\"true\"]}}",
    NULL,
  };
  g_autoptr (GPtrArray) responses = NULL;
  JsonArray *argv;
  guint n;

  if (!dsh_test_require_bwrap ())
    return;
  responses = serve (bwrap_env, ws, requests);
  g_assert_cmpuint (responses->len, ==, 4);

  g_assert_cmpint (json_object_get_int_member (response (responses, 0), "id"), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (result (responses, 0, "probe.schema.json"),
                                                  "selected"), ==, "bwrap");

  argv = json_object_get_array_member (result (responses, 1, "confined-argv.schema.json"),
                                       "argv");
  n = json_array_get_length (argv);
  g_assert_cmpstr (json_array_get_string_element (argv, n - 3), ==, "sh");
  g_assert_cmpstr (json_array_get_string_element (argv, n - 1), ==, "make test");

  g_assert_cmpstr (json_object_get_string_member (response (responses, 2), "id"), ==, "three");
  g_assert_true (json_object_get_boolean_member (result (responses, 2, NULL), "reloaded"));

  /* No id: a null one; no mode or workspace: read-only in the server's directory. */
  g_assert_true (json_object_get_null_member (response (responses, 3), "id"));
  result (responses, 3, "confined-argv.schema.json");
  dsh_test_remove_tree (ws);
}

/* serve writes its confine answers itself: the same document the confine command prints,
 * whatever bytes the argv holds, under each kind of id (a number, a string, none). */
static void
test_confine_same_as_command (void)
{
  g_autofree char *ws = dsh_test_scratch_dir ("serve");
  const char *nasty = "quote \" backslash \\ tab\t\x01\x1f\x7f snowman \xe2\x98\x83 </x>";
  /* The same argv as JSON text (json-glib would write the control characters raw). */
  const char *argv_json = "[\"sh\",\"-c\",\"quote \\\" backslash \\\\ tab\\t\\u0001\\u001f"
                          "\\u007f snowman \xe2\x98\x83 </x>\"]";
  g_autofree char *by_number = NULL;
  g_autofree char *by_string = NULL;
  g_autofree char *by_other = NULL;
  const char *command[] = { dsh_test_cli (), "confine", "--mode", "workspace-write",
                            "--workspace", ws, "--", "sh", "-c", nasty, NULL };
  g_auto (DshTestRun) run = { 0 };
  g_autoptr (JsonNode) expected = NULL;
  g_autoptr (GPtrArray) responses = NULL;

  if (!dsh_test_require_bwrap ())
    return;
  by_number = g_strdup_printf ("{\"id\":7,\"method\":\"confine\",\"params\":{\"argv\":%s,"
                               "\"mode\":\"workspace-write\",\"workspace\":\"%s\"}}",
                               argv_json, ws);
  by_string = g_strdup_printf ("{\"id\":\"a\\\"b\",\"method\":\"confine\",\"params\":"
                               "{\"argv\":%s,\"mode\":\"workspace-write\",\"workspace\":\"%s\"}}",
                               argv_json, ws);
  by_other = g_strdup_printf ("{\"method\":\"confine\",\"params\":{\"argv\":%s,"
                              "\"mode\":\"workspace-write\",\"workspace\":\"%s\"}}",
                              argv_json, ws);
  {
    const char *requests[] = { by_number, by_string, by_other, NULL };

    responses = serve (bwrap_env, ws, requests);
  }
  dsh_test_run (&run, command, bwrap_env, ws, NULL);
  g_assert_cmpint (run.exit_code, ==, 0);
  expected = json_from_string (run.out, NULL);
  g_assert_nonnull (expected);

  g_assert_cmpuint (responses->len, ==, 3);
  g_assert_cmpint (json_object_get_int_member (response (responses, 0), "id"), ==, 7);
  g_assert_cmpstr (json_object_get_string_member (response (responses, 1), "id"), ==, "a\"b");
  g_assert_true (json_object_get_null_member (response (responses, 2), "id"));
  for (guint i = 0; i < responses->len; i++)
    {
      /* Each line was checked against the response schema as it came (re-serialising the
       * result here would write its control characters raw). */
      result (responses, i, NULL);
      g_assert_true (json_node_equal (json_object_get_member (response (responses, i), "result"),
                                      expected));
    }
  dsh_test_remove_tree (ws);
}

/* Each bad line gets its error, and the line after it is served all the same. */
/* An extra root that is no directory is left out, and the answer says so, where a client reads
 * it: serve's stderr is nobody's. One that exists gets no warnings member. */
static void
test_confine_says_left_out_root (void)
{
  g_autofree char *ws = dsh_test_scratch_dir ("serve");
  g_autofree char *missing = g_build_filename (ws, "..", "serve-missing-cache", NULL);
  g_autofree char *present = dsh_test_scratch_dir ("serve-cache");
  g_autofree char *left_out = g_strdup_printf (
    "{\"id\":1,\"method\":\"confine\",\"params\":{\"argv\":[\"true\"],"
    "\"mode\":\"workspace-write\",\"workspace\":\"%s\",\"writableRoots\":[\"%s\"]}}", ws,
    missing);
  g_autofree char *granted = g_strdup_printf (
    "{\"id\":2,\"method\":\"confine\",\"params\":{\"argv\":[\"true\"],"
    "\"mode\":\"workspace-write\",\"workspace\":\"%s\",\"writableRoots\":[\"%s\"]}}", ws,
    present);
  const char *requests[] = { left_out, granted, NULL };
  g_autoptr (GPtrArray) responses = NULL;
  JsonObject *first;
  JsonArray *warnings, *argv;
  gboolean granted_present = FALSE;

  if (!dsh_test_require_bwrap ())
    return;
  responses = serve (bwrap_env, ws, requests);
  g_assert_cmpuint (responses->len, ==, 2);
  first = result (responses, 0, "confined-argv.schema.json");
  warnings = json_object_get_array_member (first, "warnings");
  g_assert_cmpuint (json_array_get_length (warnings), ==, 1);
  g_assert_nonnull (strstr (json_array_get_string_element (warnings, 0),
                            "is no directory, so this call left it out"));
  g_assert_nonnull (strstr (json_array_get_string_element (warnings, 0),
                            "serve-missing-cache"));
  argv = json_object_get_array_member (first, "argv");
  for (guint k = 0; k < json_array_get_length (argv); k++)
    g_assert_null (strstr (json_array_get_string_element (argv, k), "serve-missing-cache"));

  g_assert_false (json_object_has_member (result (responses, 1, "confined-argv.schema.json"),
                                          "warnings"));
  argv = json_object_get_array_member (result (responses, 1, NULL), "argv");
  for (guint k = 0; k < json_array_get_length (argv); k++)
    granted_present |= g_str_equal (json_array_get_string_element (argv, k), present);
  g_assert_true (granted_present);
  dsh_test_remove_tree (present);
  dsh_test_remove_tree (ws);
}

static void
test_bad_requests (void)
{
  g_autofree char *long_line = g_strnfill (1024 * 1024 + 10, ' ');
  const char *requests[] = {
    "not json",
    "[1, 2]",
    "{\"id\":1,\"method\":\"probe\",\"id\":2}",
    "{\"id\":2,\"method\":\"nope\"}",
    "{\"id\":3,\"method\":\"probe\",\"extra\":true}",
    "{\"id\":4,\"method\":\"probe\",\"params\":{\"argv\":[\"x\"]}}",
    "{\"id\":5,\"method\":\"confine\"}",
    "{\"id\":6,\"method\":\"confine\",\"params\":{\"argv\":[]}}",
    "{\"id\":7,\"method\":\"confine\",\"params\":{\"argv\":[\"\"]}}",
    "{\"id\":8,\"method\":\"confine\",\"params\":{\"argv\":[\"true\",1]}}",
    "{\"id\":9,\"method\":\"confine\",\"params\":{\"argv\":[\"true\"],\"mode\":\"read-0nly\"}}",
    "{\"id\":10,\"method\":\"confine\",\"params\":{\"argv\":[\"true\"],"
    "\"mode\":\"danger-full-access\"}}",
    "{\"id\":11,\"method\":\"confine\",\"params\":{\"argv\":[\"true\"],\"workspace\":\"rel\"}}",
    "{\"id\":1.5,\"method\":\"probe\"}",
    "{\"id\":true,\"method\":\"probe\"}",
    "{\"id\":12,\"method\":7}",
    long_line,
    "   ",
    "{\"id\":13,\"method\":\"reload\"}",
    NULL,
  };
  const char *expected[] = {
    "PARSE_ERROR", "PARSE_ERROR", "PARSE_ERROR", "UNKNOWN_METHOD", "INVALID_REQUEST",
    "INVALID_REQUEST", "INVALID_REQUEST", "INVALID_REQUEST", "INVALID_REQUEST",
    "INVALID_REQUEST", "INVALID_ARGUMENT", "INVALID_ARGUMENT", "INVALID_ARGUMENT",
    "INVALID_REQUEST", "INVALID_REQUEST", "INVALID_REQUEST", "PARSE_ERROR",
    /* the blank line is skipped */
    NULL,
  };
  g_autoptr (GPtrArray) responses = serve (bwrap_env, NULL, requests);

  g_assert_cmpuint (responses->len, ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i + 1 < G_N_ELEMENTS (expected); i++)
    {
      if (g_strcmp0 (error_code (responses, i), expected[i]) != 0)
        g_error ("response %u: expected %s, got %s", i, expected[i],
                 error_code (responses, i) ? error_code (responses, i) : "a result");
    }
  /* Where the id could be read, it is echoed with the error. */
  g_assert_cmpint (json_object_get_int_member (response (responses, 3), "id"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (response (responses, 10), "id"), ==, 9);
  g_assert_true (json_object_get_null_member (response (responses, 0), "id"));
  g_assert_true (json_object_get_boolean_member (result (responses, 17, NULL), "reloaded"));
}

/* The request schema and the server agree: what one accepts, the other does not refuse as a
 * malformed request, and the other way round. */
static void
test_schema_agrees (void)
{
  const char *valid[] = {
    "{\"method\":\"probe\"}",
    "{\"id\":null,\"method\":\"reload\",\"params\":{}}",
    "{\"id\":\"x\",\"method\":\"confine\",\"params\":{\"argv\":[\"a\",\"\"],\"mode\":\"zzz\"}}",
    "{\"method\":\"policy.resolve\",\"params\":{\"mode\":\"read-only\"}}",
    "{\"method\":\"policy.context\"}",
    "{\"method\":\"escalate\",\"params\":{\"session\":\"/nonexistent/s.jsonl\",\"argv\":[\"a\"],"
    "\"callId\":\"c\"}}",
    "{\"method\":\"classify\",\"params\":{\"backend\":\"bwrap\",\"mode\":\"read-only\","
    "\"exitStatus\":1,\"stderr\":\"x\"}}",
    "{\"method\":\"classify\",\"params\":{\"backend\":\"zzz\",\"mode\":\"zzz\","
    "\"exitStatus\":255,\"stderrBase64\":\"AAE=\",\"escalated\":true,\"session\":\"/no\"}}",
    "{\"method\":\"session.new\",\"params\":{\"session\":\"/nonexistent/s\",\"cwd\":\"/no\","
    "\"preset\":\"p\"}}",
    "{\"method\":\"session.show\",\"params\":{\"session\":\"/nonexistent/s\"}}",
    "{\"method\":\"session.setMode\",\"params\":{\"session\":\"/no\",\"mode\":\"zzz\"}}",
    "{\"method\":\"session.setApproval\",\"params\":{\"session\":\"/no\","
    "\"approvalPolicy\":\"zzz\"}}",
    "{\"method\":\"session.setPreset\",\"params\":{\"session\":\"/no\",\"preset\":\"zzz\"}}",
    "{\"method\":\"describe\"}",
    "{\"method\":\"describe\",\"params\":{\"tool\":\"zsh\",\"session\":\"/no\"}}",
    NULL,
  };
  const char *invalid[] = {
    "{\"id\":1}",
    "{\"method\":\"probe\",\"params\":{\"x\":1}}",
    "{\"method\":\"confine\",\"params\":{\"argv\":[\"a\"],\"cwd\":\"/\"}}",
    "{\"method\":\"confine\",\"params\":{\"argv\":[\"a\"],\"mode\":1}}",
    "{\"method\":\"confine\",\"params\":{\"argv\":\"a\"}}",
    "{\"method\":\"confine\",\"params\":[]}",
    "{\"method\":\"policy.context\",\"params\":{\"mode\":\"read-only\"}}",
    "{\"method\":\"policy.resolve\",\"params\":{\"workspace\":\"/\"}}",
    "{\"method\":\"escalate\",\"params\":{\"argv\":[\"a\"],\"callId\":\"c\"}}",
    "{\"method\":\"escalate\",\"params\":{\"session\":\"s\",\"argv\":[\"a\"]}}",
    "{\"method\":\"escalate\",\"params\":{\"session\":\"s\",\"argv\":[\"a\"],\"callId\":\"\"}}",
    "{\"method\":\"escalate\",\"params\":{\"session\":\"s\",\"callId\":\"c\"}}",
    "{\"method\":\"classify\",\"params\":{\"mode\":\"read-only\",\"exitStatus\":1}}",
    "{\"method\":\"classify\",\"params\":{\"backend\":\"b\",\"exitStatus\":1}}",
    "{\"method\":\"classify\",\"params\":{\"backend\":\"b\",\"mode\":\"read-only\"}}",
    "{\"method\":\"classify\",\"params\":{\"backend\":\"b\",\"mode\":\"read-only\","
    "\"exitStatus\":256}}",
    "{\"method\":\"classify\",\"params\":{\"backend\":\"b\",\"mode\":\"read-only\","
    "\"exitStatus\":-1}}",
    "{\"method\":\"classify\",\"params\":{\"backend\":\"b\",\"mode\":\"read-only\","
    "\"exitStatus\":1,\"stderr\":\"x\",\"stderrBase64\":\"eA==\"}}",
    "{\"method\":\"classify\",\"params\":{\"backend\":\"b\",\"mode\":\"read-only\","
    "\"exitStatus\":1,\"stderrBase64\":\"eA=\"}}",
    "{\"method\":\"classify\",\"params\":{\"backend\":\"b\",\"mode\":\"read-only\","
    "\"exitStatus\":1,\"stderrBase64\":\"e A=\"}}",
    "{\"method\":\"classify\",\"params\":{\"backend\":\"b\",\"mode\":\"read-only\","
    "\"exitStatus\":1,\"escalated\":\"yes\"}}",
    "{\"method\":\"classify\",\"params\":{\"backend\":\"b\",\"mode\":\"read-only\","
    "\"exitStatus\":1.5}}",
    "{\"method\":\"session.new\"}",
    "{\"method\":\"session.new\",\"params\":{\"session\":\"s\",\"mode\":\"read-only\"}}",
    "{\"method\":\"session.show\",\"params\":{}}",
    "{\"method\":\"session.setMode\",\"params\":{\"session\":\"s\"}}",
    "{\"method\":\"session.setApproval\",\"params\":{\"session\":\"s\",\"policy\":\"ask\"}}",
    "{\"method\":\"session.setPreset\",\"params\":{\"preset\":\"p\"}}",
    "{\"method\":\"describe\",\"params\":{\"tool\":1}}",
    "{\"method\":\"describe\",\"params\":{\"mode\":\"read-only\"}}",
    NULL,
  };
  g_autoptr (GPtrArray) accepted = NULL;
  g_autoptr (GPtrArray) refused = NULL;

  accepted = serve (bwrap_env, NULL, valid);
  for (guint i = 0; valid[i] != NULL; i++)
    {
      const char *code = error_code (accepted, i);

      dsh_test_assert_valid_json (valid[i], "serve-request.schema.json");
      g_assert_true (code == NULL || (!g_str_equal (code, "PARSE_ERROR") &&
                                      !g_str_equal (code, "INVALID_REQUEST") &&
                                      !g_str_equal (code, "UNKNOWN_METHOD")));
    }
  refused = serve (bwrap_env, NULL, invalid);
  for (guint i = 0; invalid[i] != NULL; i++)
    {
      g_assert_false (dsh_test_json_validates (invalid[i], "serve-request.schema.json"));
      g_assert_cmpstr (error_code (refused, i), ==, "INVALID_REQUEST");
    }
}

/* Modules are loaded once per provider lifetime; reload starts a new one at once (without
 * waiting for the server to notice the change by itself), so a module taken away is gone for
 * the next call and nothing is confined without a backend. */
static void
test_reload_rescans (void)
{
  g_autofree char *dir = dsh_test_scratch_dir ("serve-modules");
  /* The server's workspace (its current directory) must not hold the modules: they would be
   * refused as planted by a confined command. */
  g_autofree char *ws = dsh_test_scratch_dir ("serve-ws");
  g_autofree char *module = NULL;
  g_autofree char *copy = NULL;
  g_autofree char *dir_env = g_strdup_printf ("DSH_SANDBOX_BACKEND_DIR=%s", dir);
  const char *env[] = { dir_env, "DSH_SANDBOX_PROBE_CACHE=off", "DSH_SANDBOX_BACKEND", NULL };
  g_autoptr (GSubprocessLauncher) launcher = NULL;
  g_autoptr (GSubprocess) server = NULL;
  g_autoptr (GDataInputStream) out = NULL;
  g_autoptr (GError) error = NULL;
  GOutputStream *in;
  const char *steps[][2] = {
    { "{\"id\":1,\"method\":\"confine\",\"params\":{\"argv\":[\"true\"]}}", "result" },
    { NULL, NULL }, /* the module is removed here */
    { "{\"id\":3,\"method\":\"reload\"}", "result" },
    { "{\"id\":4,\"method\":\"confine\",\"params\":{\"argv\":[\"true\"]}}", "SANDBOX_UNAVAILABLE" },
  };

  module = dsh_test_module_path ("fake-alpha");
  copy = dsh_test_copy_module (module, dir);
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE |
                                        G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  dsh_test_launcher_set_env (launcher, env);
  g_subprocess_launcher_set_cwd (launcher, ws);
  server = g_subprocess_launcher_spawn (launcher, &error, dsh_test_cli (), "serve", NULL);
  g_assert_no_error (error);
  in = g_subprocess_get_stdin_pipe (server);
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (server));

  for (guint i = 0; i < G_N_ELEMENTS (steps); i++)
    {
      g_autofree char *line = NULL;
      g_autofree char *request = NULL;
      g_autoptr (JsonNode) node = NULL;
      JsonObject *r;

      if (steps[i][0] == NULL)
        {
          g_assert_cmpint (g_remove (copy), ==, 0);
          continue;
        }
      request = g_strconcat (steps[i][0], "\n", NULL);
      g_assert_true (g_output_stream_write_all (in, request, strlen (request), NULL, NULL,
                                                &error));
      g_assert_no_error (error);
      line = g_data_input_stream_read_line_utf8 (out, NULL, NULL, &error);
      g_assert_no_error (error);
      g_assert_nonnull (line);
      node = dsh_test_parse_valid_json (line, "serve-response.schema.json");
      r = json_node_get_object (node);
      if (g_str_equal (steps[i][1], "result"))
        g_assert_true (json_object_has_member (r, "result"));
      else
        g_assert_cmpstr (json_object_get_string_member (
                           json_object_get_object_member (r, "error"), "code"), ==,
                         steps[i][1]);
    }
  g_assert_true (g_output_stream_close (in, NULL, &error));
  g_assert_true (g_subprocess_wait_check (server, NULL, &error));
  g_assert_no_error (error);
  dsh_test_remove_tree (dir);
  dsh_test_remove_tree (ws);
}

/* The session methods and describe answer what the session and describe commands print, and
 * classify what exec would say: a bwrap denial gets the marker, and the hint only in a session
 * that may still ask and not after the approved retry; bytes arrive intact through base64. */
static void
test_session_describe_classify (void)
{
  g_autofree char *dir = dsh_test_scratch_dir ("serve");
  /* The logs beside the sessions' cwd, out of their commands' reach. */
  g_autofree char *cwd = g_build_filename (dir, "ws", NULL);
  g_autofree char *log = g_build_filename (dir, "s.jsonl", NULL);
  g_autofree char *cli_log = g_build_filename (dir, "c.jsonl", NULL);
  g_autofree char *new_req = g_strdup_printf ("{\"id\":1,\"method\":\"session.new\",\"params\":"
                                              "{\"session\":\"%s\",\"cwd\":\"%s\"}}",
                                              log, cwd);
  g_autofree char *never = g_strdup_printf ("{\"method\":\"session.setApproval\",\"params\":"
                                            "{\"session\":\"%s\",\"approvalPolicy\":\"never\"}}",
                                            log);
  g_autofree char *mode = g_strdup_printf ("{\"method\":\"session.setMode\",\"params\":"
                                           "{\"session\":\"%s\",\"mode\":\"read-only\"}}", log);
  g_autofree char *show = g_strdup_printf ("{\"method\":\"session.show\",\"params\":"
                                           "{\"session\":\"%s\"}}", log);
  g_autofree char *preset = g_strdup_printf ("{\"method\":\"session.setPreset\",\"params\":"
                                             "{\"session\":\"%s\",\"preset\":\"workspace-write\"}}",
                                             log);
  g_autofree char *denied = g_strdup_printf ("{\"method\":\"classify\",\"params\":"
                                             "{\"backend\":\"bwrap\",\"mode\":\"read-only\","
                                             "\"exitStatus\":1,\"session\":\"%s\","
                                             "\"stderr\":\"sh: 1: cannot create f: Read-only "
                                             "file system\\n\"}}", log);
  g_autofree char *retried = g_strdup_printf ("{\"method\":\"classify\",\"params\":"
                                              "{\"backend\":\"bwrap\",\"mode\":\"read-only\","
                                              "\"exitStatus\":1,\"session\":\"%s\","
                                              "\"escalated\":true,\"stderr\":\"Read-only file "
                                              "system\"}}", log);
  const char *requests[] = {
    new_req, never, mode, show, preset,
    denied, /* 5: ask again, so the hint follows */
    retried,
    /* 7: bytes that are no UTF-8 around the dialect, and no session: no hint */
    "{\"method\":\"classify\",\"params\":{\"backend\":\"bwrap\",\"mode\":\"workspace-write\","
    "\"exitStatus\":1,\"stderrBase64\":\"/wBSZWFkLW9ubHkgZmlsZSBzeXN0ZW0K\"}}",
    "{\"method\":\"classify\",\"params\":{\"backend\":\"bwrap\",\"mode\":\"read-only\","
    "\"exitStatus\":0,\"stderr\":\"Read-only file system\"}}",
    "{\"method\":\"classify\",\"params\":{\"backend\":\"nonesuch\",\"mode\":\"read-only\","
    "\"exitStatus\":1}}",
    "{\"method\":\"describe\",\"params\":{\"tool\":\"bash\"}}",
    NULL,
  };
  g_autoptr (GPtrArray) responses = NULL;
  g_auto (DshTestRun) run = { 0 };
  g_autofree char *show_text = NULL;
  JsonObject *r;

  if (!dsh_test_require_bwrap ())
    return;
  g_assert_cmpint (g_mkdir (cwd, 0755), ==, 0);
  responses = serve (bwrap_env, dir, requests);
  g_assert_cmpuint (responses->len, ==, 11);
  result (responses, 0, "serve-session-new.schema.json");

  /* The same notices as the command, from the same starting point. */
  {
    const char *cli_new[] = { "session", "new", cli_log, "--cwd", cwd, NULL };
    const char *cli_never[] = { "session", "set-approval", cli_log, "never", NULL };
    const char *cli_preset[] = { "session", "set-preset", cli_log, "workspace-write", NULL };
    g_autofree char *expected = NULL;

    dsh_test_run_cli (&run, cli_new, bwrap_env, dir);
    g_assert_cmpint (run.exit_code, ==, 0);
    dsh_test_run_cli (&run, cli_never, bwrap_env, dir);
    expected = g_strdup_printf ("%s\n", json_object_get_string_member (
                                          result (responses, 1, "serve-notice.schema.json"),
                                          "notice"));
    g_assert_cmpstr (run.out, ==, expected);
    g_assert_cmpstr (expected, ==, SEED_APPROVAL_POLICY_CHANGED ("ask", "never") "\n");
    g_assert_cmpuint (json_object_get_size (result (responses, 2, "serve-notice.schema.json")),
                      ==, 0);
    dsh_test_run_cli (&run, cli_preset, bwrap_env, dir);
    g_free (expected);
    expected = g_strdup_printf ("%s\n", json_object_get_string_member (
                                          result (responses, 4, "serve-notice.schema.json"),
                                          "notice"));
    g_assert_cmpstr (run.out, ==, expected);
    g_assert_cmpstr (expected, ==, SEED_APPROVAL_POLICY_CHANGED ("never", "ask") "\n");
  }
  r = result (responses, 3, "session-show.schema.json");
  g_assert_cmpstr (json_object_get_string_member (r, "approvalPolicy"), ==, "never");
  show_text = json_to_string (responses->pdata[3], FALSE);

  r = result (responses, 5, "serve-classify.schema.json");
  g_assert_cmpstr (json_object_get_string_member (r, "outcome"), ==, "denied");
  g_assert_cmpstr (json_object_get_string_member (r, "marker"), ==,
                   SEED_DENIAL_MARKER ("read-only"));
  g_assert_cmpstr (json_object_get_string_member (r, "hint"), ==,
                   SEED_ESCALATION_HINT ("command"));
  r = result (responses, 6, "serve-classify.schema.json");
  g_assert_cmpstr (json_object_get_string_member (r, "outcome"), ==, "denied");
  g_assert_false (json_object_has_member (r, "hint"));
  r = result (responses, 7, "serve-classify.schema.json");
  g_assert_cmpstr (json_object_get_string_member (r, "marker"), ==,
                   SEED_DENIAL_MARKER ("workspace-write"));
  g_assert_false (json_object_has_member (r, "hint"));
  /* Exit status alone decides nothing, and the dialect alone neither. */
  r = result (responses, 8, "serve-classify.schema.json");
  g_assert_cmpstr (json_object_get_string_member (r, "outcome"), ==, "completed");
  g_assert_cmpstr (error_code (responses, 9), ==, "INVALID_ARGUMENT");

  {
    const char *cli_describe[] = { "describe", "bash", NULL };
    g_autofree char *expected = NULL;

    dsh_test_run_cli (&run, cli_describe, bwrap_env, dir);
    expected = g_strdup_printf ("%s\n", json_object_get_string_member (
                                          result (responses, 10, "serve-text.schema.json"),
                                          "text"));
    g_assert_cmpstr (run.out, ==, expected);
    g_assert_cmpstr (expected, ==,
                     SEED_BASH_DESCRIPTION_BASE "\n\n" SEED_BASH_ESCALATION_PARAGRAPH "\n");
  }
  dsh_test_remove_tree (dir);
}

/* Providers are kept per workspace up to the cap, the least recently used dropped first. Each
 * new provider of a two-candidate chain probes (the probe cache is off), and each probe of the
 * fake runner leaves a line in its log: the lines count the providers made. */
static void
test_provider_cap_evicts_least_recent (void)
{
  g_autofree char *dir = dsh_test_scratch_dir ("serve-modules");
  g_autofree char *ws = dsh_test_scratch_dir ("serve-ws");
  g_autofree char *log = g_build_filename (dir, "probes.log", NULL);
  g_autofree char *alpha = dsh_test_module_path ("fake-alpha");
  g_autofree char *beta = dsh_test_module_path ("fake-beta");
  g_autofree char *alpha_copy = dsh_test_copy_module (alpha, dir);
  g_autofree char *beta_copy = dsh_test_copy_module (beta, dir);
  g_autofree char *dir_env = g_strdup_printf ("DSH_SANDBOX_BACKEND_DIR=%s", dir);
  g_autofree char *log_env = g_strdup_printf ("DSH_FAKE_LOG=%s", log);
  /* One thread: with two, confines of neighbouring requests may look their providers up in
   * either order, and the probes counted here follow that order. */
  const char *env[] = { dir_env, log_env, "DSH_SANDBOX_PROBE_CACHE=off", "DSH_SANDBOX_BACKEND",
                        "DSH_SANDBOX_SERVE_PROVIDERS=2", "DSH_SANDBOX_SERVE_THREADS=1", NULL };
  /* Workspaces a, b, a, c (drops b, the least recent), a (kept), b (made again). */
  const char *order = "abacab";
  g_autoptr (GPtrArray) requests = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) responses = NULL;
  g_autofree char *probes = NULL;

  for (const char *w = order; *w != '\0'; w++)
    {
      g_autofree char *path = g_strdup_printf ("%s/%c", ws, *w);

      g_mkdir_with_parents (path, 0700);
      g_ptr_array_add (requests,
                       g_strdup_printf ("{\"id\":%d,\"method\":\"confine\",\"params\":{\"argv\":"
                                        "[\"true\"],\"mode\":\"workspace-write\","
                                        "\"workspace\":\"%s\"}}",
                                        (int) (w - order), path));
    }
  g_ptr_array_add (requests, NULL);
  responses = serve (env, ws, (const char *const *) requests->pdata);
  g_assert_cmpuint (responses->len, ==, strlen (order));
  for (guint i = 0; i < responses->len; i++)
    result (responses, i, NULL);
  probes = dsh_test_read_file (log);
  g_assert_cmpstr (probes, ==, "alpha\nalpha\nalpha\nalpha\n");
  dsh_test_remove_tree (dir);
  dsh_test_remove_tree (ws);
}

/* Requests sent all at once are answered on two threads, and the answers are what one thread
 * writes, byte for byte and in request order: confines in three workspaces, with refusals, a
 * malformed line and other methods (which wait for the confines before them) in between. */
static void
test_pipelined_in_order (void)
{
  g_autofree char *ws = dsh_test_scratch_dir ("serve-pipelined");
  const char *argv[] = { dsh_test_cli (), "serve", NULL };
  const char *one[] = { "DSH_SANDBOX_BACKEND=bwrap", "DSH_SANDBOX_PROBE_CACHE=off",
                        "DSH_SANDBOX_SERVE_THREADS=1", NULL };
  const char *two[] = { "DSH_SANDBOX_BACKEND=bwrap", "DSH_SANDBOX_PROBE_CACHE=off",
                        "DSH_SANDBOX_SERVE_THREADS=2", NULL };
  g_autoptr (GString) input = g_string_new (NULL);
  g_auto (DshTestRun) serial = { 0 };
  g_auto (DshTestRun) parallel = { 0 };
  g_auto (GStrv) lines = NULL;

  for (int i = 0; i < 300; i++)
    {
      g_autofree char *dir = g_strdup_printf ("%s/%c", ws, 'a' + i % 3);

      g_mkdir_with_parents (dir, 0700);
      if (i % 50 == 7)
        g_string_append (input, "{\"id\": \"broken\", \"method\": \n");
      else if (i % 50 == 21)
        g_string_append_printf (input, "{\"id\": %d, \"method\": \"probe\"}\n", i);
      else if (i % 50 == 33)
        g_string_append_printf (input, "{\"id\": %d, \"method\": \"confine\", \"params\": "
                                       "{\"argv\": [\"true\"], \"mode\": \"workspace-write\", "
                                       "\"workspace\": \"/\"}}\n", i);
      else
        g_string_append_printf (input, "{\"id\": %d, \"method\": \"confine\", \"params\": "
                                       "{\"argv\": [\"echo\", \"%d\"], \"mode\": "
                                       "\"workspace-write\", \"workspace\": \"%s\"}}\n", i, i, dir);
    }
  dsh_test_run (&serial, argv, one, ws, input->str);
  dsh_test_run (&parallel, argv, two, ws, input->str);
  g_assert_cmpint (serial.exit_code, ==, 0);
  g_assert_cmpint (parallel.exit_code, ==, 0);
  g_assert_cmpstr (parallel.err, ==, "");
  g_assert_cmpstr (parallel.out, ==, serial.out);
  lines = g_strsplit (parallel.out, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 301);
  g_assert_nonnull (strstr (lines[8], "\"id\":8,\"result\""));
  g_assert_nonnull (strstr (lines[33], "ROOT_REFUSED"));
  g_assert_nonnull (strstr (lines[7], "PARSE_ERROR"));
  dsh_test_remove_tree (ws);
}

/* A thread count outside 1..16 is refused, not guessed. */
static void
test_threads_refuses_bad_value (void)
{
  const char *argv[] = { dsh_test_cli (), "serve", NULL };
  const char *env[] = { "DSH_SANDBOX_SERVE_THREADS=0", NULL };
  g_auto (DshTestRun) run = { 0 };

  dsh_test_run (&run, argv, env, NULL, "");
  g_assert_cmpint (run.exit_code, !=, 0);
  g_assert_nonnull (strstr (run.err, "DSH_SANDBOX_SERVE_THREADS"));
}

/* A cap that is not a positive number is refused, not guessed. */
static void
test_provider_cap_refuses_bad_value (void)
{
  const char *argv[] = { dsh_test_cli (), "serve", NULL };
  const char *env[] = { "DSH_SANDBOX_SERVE_PROVIDERS=0", NULL };
  g_auto (DshTestRun) run = { 0 };

  dsh_test_run (&run, argv, env, NULL, "");
  g_assert_cmpint (run.exit_code, !=, 0);
  g_assert_nonnull (strstr (run.err, "DSH_SANDBOX_SERVE_PROVIDERS"));
}

/* policy.resolve and policy.context answer what the policy command prints. */
static void
test_policy_methods (void)
{
  g_autofree char *dir = dsh_test_scratch_dir ("serve");
  g_autofree char *ws = g_build_filename (dir, "ws", NULL);
  g_autofree char *path = dsh_test_log_path ("s.jsonl");
  g_autofree char *resolve = g_strdup_printf ("{\"id\":1,\"method\":\"policy.resolve\","
                                              "\"params\":{\"session\":\"%s\"}}", path);
  g_autofree char *explicit = g_strdup_printf ("{\"id\":2,\"method\":\"policy.resolve\","
                                               "\"params\":{\"session\":\"%s\","
                                               "\"mode\":\"read-only\"}}", path);
  g_autofree char *context = g_strdup_printf ("{\"id\":3,\"method\":\"policy.context\","
                                              "\"params\":{\"session\":\"%s\"}}", path);
  const char *new_args[] = { "session", "new", path, "--cwd", ws, "--preset", "workspace-write",
                             NULL };
  const char *context_args[] = { "policy", "context", "--session", path, NULL };
  const char *requests[] = { resolve, explicit, context, NULL };
  g_auto (DshTestRun) run = { 0 };
  g_autoptr (GPtrArray) responses = NULL;
  g_autofree char *canonical = NULL;
  g_autofree char *text_line = NULL;
  g_autofree char *expected_context = NULL;
  JsonObject *policy;

  g_assert_cmpint (g_mkdir (ws, 0700), ==, 0);
  canonical = dsh_canonical_path (ws);
  expected_context = seed_policy_context (DSH_SANDBOX_MODE_WORKSPACE_WRITE, canonical);
  dsh_test_run_cli (&run, new_args, NULL, NULL);
  g_assert_cmpint (run.exit_code, ==, 0);
  responses = serve (NULL, NULL, requests);

  policy = result (responses, 0, "policy-resolve.schema.json");
  g_assert_cmpstr (json_object_get_string_member (policy, "mode"), ==, "workspace-write");
  g_assert_cmpstr (json_object_get_string_member (policy, "workspaceRoot"), ==, canonical);
  policy = result (responses, 1, "policy-resolve.schema.json");
  g_assert_cmpstr (json_object_get_string_member (policy, "mode"), ==, "read-only");

  dsh_test_run_cli (&run, context_args, NULL, NULL);
  g_assert_cmpint (run.exit_code, ==, 0);
  text_line = g_strconcat (json_object_get_string_member (result (responses, 2, NULL), "text"),
                           "\n", NULL);
  g_assert_cmpstr (text_line, ==, run.out);
  g_assert_cmpstr (json_object_get_string_member (result (responses, 2, NULL), "text"), ==,
                   expected_context);
  dsh_test_remove_tree (dir);
}

/* A workspace root that is not UTF-8 (serve started in such a directory, a deployment whose
 * default is workspace-write) is refused as exec refuses it: naming it would put bytes that are
 * no text into the model's context and a response line no JSON parser takes. */
static void
test_policy_methods_refuse_non_utf8_root (void)
{
  g_autofree char *dir = dsh_test_scratch_dir ("serve");
  g_autofree char *ws = g_build_filename (dir, "ws\xff", NULL);
  g_autofree char *config = g_build_filename (dir, "config.json", NULL);
  g_autofree char *config_env = g_strdup_printf ("DSH_SANDBOX_CONFIG=%s", config);
  const char *env[] = { config_env, NULL };
  const char *requests[] = {
    "{\"id\":1,\"method\":\"policy.context\",\"params\":{}}",
    "{\"id\":2,\"method\":\"policy.resolve\",\"params\":{}}",
    NULL,
  };
  const char *context_args[] = { "policy", "context", NULL };
  g_autoptr (GPtrArray) responses = NULL;
  g_auto (DshTestRun) run = { 0 };

  g_assert_cmpint (g_mkdir (ws, 0700), ==, 0);
  dsh_test_write_file (config, "{\"defaultMode\": \"workspace-write\"}\n");
  responses = serve (env, ws, requests);
  g_assert_cmpuint (responses->len, ==, 2);
  for (guint i = 0; i < 2; i++)
    {
      g_assert_cmpstr (error_code (responses, i), ==, "INVALID_ARGUMENT");
      g_assert_cmpstr (json_object_get_string_member (
                         json_object_get_object_member (response (responses, i), "error"),
                         "message"), ==,
                       "the canonical workspace path is not valid UTF-8");
    }
  dsh_test_run_cli (&run, context_args, env, ws);
  g_assert_cmpint (run.exit_code, ==, 125);
  g_assert_cmpstr (run.out, ==, "");
  g_assert_cmpstr (run.err, ==, "dsh-sandbox: the canonical workspace path is not valid UTF-8\n");
  dsh_test_remove_tree (dir);
}

/* The confine command's guards hold here too: a session log a confined command could rewrite
 * is refused. */
static void
test_guards (void)
{
  g_autofree char *dir = dsh_test_scratch_dir ("serve");
  g_autofree char *path = g_build_filename (dir, "s.jsonl", NULL);
  g_autofree char *request = g_strdup_printf ("{\"id\":1,\"method\":\"confine\",\"params\":"
                                              "{\"argv\":[\"true\"],\"session\":\"%s\"}}", path);
  const char *requests[] = { request, NULL };
  g_autoptr (GPtrArray) responses = NULL;
  g_autoptr (DshSessionLog) log = NULL;
  JsonObject *error;

  /* Made by the library: "session new" itself refuses a log inside its own cwd. */
  log = dsh_test_create_session_log (path, dir);
  responses = serve (bwrap_env, NULL, requests);
  error = json_object_get_object_member (response (responses, 0), "error");
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (json_object_get_string_member (error, "message"), "session log"));
  dsh_test_remove_tree (dir);
}

/* escalate: the server asks its own client (the next stdin line answers) and writes the audit
 * pair, with the caller's callId, inside a turn of the session; each refusal keeps exec's
 * exact text; a request without a session or callId is not a request. */
static void
test_escalate (void)
{
  g_autofree char *dir = dsh_test_scratch_dir ("serve");
  g_autofree char *ws = g_build_filename (dir, "ws", NULL);
  g_autofree char *path = g_build_filename (dir, "s.jsonl", NULL);
  const char *ids[] = { "call-A", "call-B", "call-C", "call-E" };
  g_autofree char *escalate[4] = { NULL };
  g_autofree char *not_wider = NULL;
  g_autofree char *no_call_id = NULL;
  g_autoptr (GPtrArray) responses = NULL;
  g_autoptr (DshSessionLog) log = NULL;
  g_autoptr (GPtrArray) events = NULL;
  g_autoptr (GPtrArray) call_ids = g_ptr_array_new ();
  g_autoptr (GPtrArray) outcomes = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *canonical = NULL;
  JsonObject *grant;
  guint turns = 0;

  g_assert_cmpint (g_mkdir (ws, 0700), ==, 0);
  canonical = dsh_canonical_path (ws);
  log = dsh_test_create_session_log (path, ws);
  g_assert_true (dsh_session_log_append_mode (log, DSH_SANDBOX_MODE_READ_ONLY, &error));
  g_assert_true (dsh_session_log_append_approval_policy (log, DSH_APPROVAL_POLICY_ASK, &error));
  g_assert_no_error (error);
  g_clear_object (&log);
  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    escalate[i] = g_strdup_printf (
      "{\"id\":%u,\"method\":\"escalate\",\"params\":{\"session\":\"%s\",\"argv\":[\"sh\","
      "\"-c\",\"make\"],\"sandboxPermissions\":\"workspace-write\",\"justification\":"
      "\"the build writes here\",\"callId\":\"%s\"}}", i + 1, path, ids[i]);
  not_wider = g_strdup_printf (
    "{\"id\":4,\"method\":\"escalate\",\"params\":{\"session\":\"%s\",\"argv\":[\"true\"],"
    "\"mode\":\"workspace-write\",\"sandboxPermissions\":\"workspace-write\","
    "\"justification\":\"why\",\"callId\":\"call-D\"}}", path);
  no_call_id = g_strdup_printf (
    "{\"id\":5,\"method\":\"escalate\",\"params\":{\"session\":\"%s\",\"argv\":[\"true\"],"
    "\"sandboxPermissions\":\"workspace-write\",\"justification\":\"why\"}}", path);
  {
    /* Blank lines before an answer are no answer, as they are no request. */
    const char *requests[] = {
      escalate[0], "", " \t", "{\"result\":\"allowed-once\"}",
      escalate[1], "{\"result\":\"rejected\"}",
      escalate[2], "maybe",
      not_wider, no_call_id,
      escalate[3], "{\"result\":\"cancelled\"}",
      NULL,
    };

    responses = serve (NULL, NULL, requests);
  }
  g_assert_cmpuint (responses->len, ==, 10);

  /* Each question is the approval request, with the caller's call id (the fourth comes after
   * the two refusals that asked nobody). */
  for (guint i = 0; i < 3; i++)
    {
      JsonObject *question = response (responses, 2 * i);
      JsonNode *params = json_object_get_member (question, "params");
      g_autofree char *text = json_to_string (params, FALSE);

      g_assert_cmpstr (json_object_get_string_member (question, "method"), ==,
                       "approval.request");
      dsh_test_assert_valid_json (text, "approval-request.schema.json");
      g_assert_cmpstr (json_object_get_string_member (json_node_get_object (params), "callId"),
                       ==, ids[i]);
      g_assert_cmpstr (json_object_get_string_member (json_node_get_object (params),
                                                      "workspaceRoot"), ==, canonical);
      g_assert_cmpstr (json_object_get_string_member (json_node_get_object (params), "reason"),
                       ==, SEED_REASON ("workspace-write", "the build writes here"));
    }
  grant = result (responses, 1, "serve-escalate.schema.json");
  g_assert_cmpstr (json_object_get_string_member (grant, "mode"), ==, "workspace-write");
  g_assert_cmpstr (json_object_get_string_member (grant, "outcome"), ==, "allowed-once");
  g_assert_cmpstr (json_object_get_string_member (grant, "callId"), ==, "call-A");
  g_assert_cmpstr (error_code (responses, 3), ==, "ESCALATION_REFUSED");
  g_assert_cmpstr (json_object_get_string_member (
                     json_object_get_object_member (response (responses, 3), "error"),
                     "message"), ==,
                   SEED_REJECTED ("command", "workspace-write"));
  g_assert_cmpstr (json_object_get_string_member (
                     json_object_get_object_member (response (responses, 5), "error"),
                     "message"), ==,
                   SEED_UNAVAILABLE_CHANNEL ("workspace-write"));
  /* Widening first, before anyone is asked: no question line precedes this answer. */
  g_assert_cmpstr (json_object_get_string_member (
                     json_object_get_object_member (response (responses, 6), "error"),
                     "message"), ==,
                   SEED_NOT_WIDER ("workspace-write", "workspace-write"));
  g_assert_cmpstr (error_code (responses, 7), ==, "INVALID_REQUEST");
  g_assert_cmpstr (json_object_get_string_member (
                     json_object_get_object_member (response (responses, 8), "params"),
                     "reason"), ==,
                   SEED_REASON ("workspace-write", "the build writes here"));
  g_assert_cmpstr (error_code (responses, 9), ==, "ESCALATION_REFUSED");
  g_assert_cmpstr (json_object_get_string_member (
                     json_object_get_object_member (response (responses, 9), "error"),
                     "message"), ==,
                   SEED_CANCELLED ("workspace-write"));

  /* The audit pairs, in their turns, tied to their calls. */
  log = dsh_test_load_session_log (path);
  events = dsh_session_log_dup_events (log);
  for (guint i = 0; i < events->len; i++)
    {
      DshSessionEvent *event = events->pdata[i];

      if (dsh_session_event_get_kind (event) == DSH_SESSION_EVENT_TURN_START)
        turns++;
      if (dsh_session_event_get_kind (event) == DSH_SESSION_EVENT_APPROVAL_ASKED)
        g_ptr_array_add (call_ids, (gpointer) dsh_session_event_get_string (event, "callId"));
      if (dsh_session_event_get_kind (event) == DSH_SESSION_EVENT_APPROVAL_DECIDED)
        g_ptr_array_add (outcomes, (gpointer) dsh_session_event_get_string (event, "outcome"));
    }
  g_assert_false (dsh_session_log_has_open_turn (log));
  g_assert_cmpuint (turns, ==, 5);
  g_assert_cmpuint (call_ids->len, ==, 4);
  g_assert_cmpuint (outcomes->len, ==, 4);
  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    g_assert_cmpstr (call_ids->pdata[i], ==, ids[i]);
  g_assert_cmpstr (outcomes->pdata[0], ==, "allowed-once");
  g_assert_cmpstr (outcomes->pdata[1], ==, "rejected");
  g_assert_cmpstr (outcomes->pdata[2], ==, "unavailable");
  g_assert_cmpstr (outcomes->pdata[3], ==, "cancelled");
  g_clear_pointer (&responses, g_ptr_array_unref);
  g_clear_pointer (&events, g_ptr_array_unref);
  g_clear_object (&log);

  /* A client that ends its input instead of answering: unavailable, and still audited. */
  {
    const char *requests[] = { escalate[0], NULL };
    DshSessionEvent *last;

    responses = serve (NULL, NULL, requests);
    g_assert_cmpuint (responses->len, ==, 2);
    g_assert_cmpstr (error_code (responses, 1), ==, "ESCALATION_REFUSED");
    log = dsh_test_load_session_log (path);
    events = dsh_session_log_dup_events (log);
    g_assert_cmpuint (events->len, >=, 2);
    last = events->pdata[events->len - 2];
    g_assert_cmpint (dsh_session_event_get_kind (last), ==, DSH_SESSION_EVENT_APPROVAL_DECIDED);
    g_assert_cmpstr (dsh_session_event_get_string (last, "outcome"), ==, "unavailable");
    g_assert_false (dsh_session_log_has_open_turn (log));
  }
  dsh_test_remove_tree (dir);
}

/* The question is written like every other line: a justification holding U+001F (which
 * json-glib writes raw) still makes valid JSON, the control character escaped. */
static void
test_escalate_question_escapes (void)
{
  g_autofree char *dir = dsh_test_scratch_dir ("serve");
  g_autofree char *ws = g_build_filename (dir, "ws", NULL);
  g_autofree char *path = g_build_filename (dir, "s.jsonl", NULL);
  g_autofree char *escalate = NULL;
  g_autoptr (GPtrArray) responses = NULL;
  g_autoptr (DshSessionLog) log = NULL;
  g_autoptr (GError) error = NULL;
  JsonObject *params;

  g_assert_cmpint (g_mkdir (ws, 0700), ==, 0);
  log = dsh_test_create_session_log (path, ws);
  g_assert_true (dsh_session_log_append_mode (log, DSH_SANDBOX_MODE_READ_ONLY, &error));
  g_assert_no_error (error);
  g_clear_object (&log);
  escalate = g_strdup_printf (
    "{\"id\":1,\"method\":\"escalate\",\"params\":{\"session\":\"%s\",\"argv\":[\"true\"],"
    "\"sandboxPermissions\":\"workspace-write\",\"justification\":\"a\\u001fb\","
    "\"callId\":\"call-A\"}}", path);
  {
    const char *requests[] = { escalate, "{\"result\":\"cancelled\"}", NULL };

    /* serve() checks every line, the question included, is valid JSON. */
    responses = serve (NULL, NULL, requests);
  }
  g_assert_cmpuint (responses->len, ==, 2);
  params = json_object_get_object_member (response (responses, 0), "params");
  g_assert_cmpstr (json_object_get_string_member (params, "justification"), ==, "a\x1f" "b");
  g_assert_cmpstr (error_code (responses, 1), ==, "ESCALATION_REFUSED");
  dsh_test_remove_tree (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/serve/methods", test_methods);
  g_test_add_func ("/serve/bad-requests", test_bad_requests);
  g_test_add_func ("/serve/confine-says-left-out-root", test_confine_says_left_out_root);
  g_test_add_func ("/serve/confine-same-as-command", test_confine_same_as_command);
  g_test_add_func ("/serve/schema-agrees", test_schema_agrees);
  g_test_add_func ("/serve/reload-rescans", test_reload_rescans);
  g_test_add_func ("/serve/provider-cap/evicts-least-recent",
                   test_provider_cap_evicts_least_recent);
  g_test_add_func ("/serve/provider-cap/refuses-bad-value", test_provider_cap_refuses_bad_value);
  g_test_add_func ("/serve/pipelined/in-order", test_pipelined_in_order);
  g_test_add_func ("/serve/pipelined/refuses-bad-thread-count", test_threads_refuses_bad_value);
  g_test_add_func ("/serve/policy-methods", test_policy_methods);
  g_test_add_func ("/serve/policy-methods/refuse-non-utf8-root",
                   test_policy_methods_refuse_non_utf8_root);
  g_test_add_func ("/serve/session-describe-classify", test_session_describe_classify);
  g_test_add_func ("/serve/guards", test_guards);
  g_test_add_func ("/serve/escalate", test_escalate);
  g_test_add_func ("/serve/escalate/question-escapes", test_escalate_question_escapes);
  return g_test_run ();
}
