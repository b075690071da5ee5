/* fuzz-serve.c — libFuzzer target for "dsh-sandbox serve" as a whole: the input is its stdin,
 * every method included, run through the command's own loop and handler with a provider whose
 * only backend is a fake module (a sole candidate is never probed, so nothing is spawned).
 * Every non-blank line gets exactly one response line, in order: a JSON object with the id
 * the request carried and exactly one of "result" and "error" (a known code, a UTF-8 message);
 * a confined argv ends with exactly the argv the request asked for. An escalation asks the
 * client first: that question is one strict JSON line, the input's next line that is not blank
 * is the answer, and only exactly {"result": "allowed-once"} there grants.
 *
 * The session methods write their logs, so serve runs in the scratch directory (with "ws" and
 * "logs" in it, emptied before each input), and an input naming a session by an absolute path
 * or through ".." is not run at all: nothing is written outside the scratch directory.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "dsh-cli.h"
#include "dsh-json-strict-private.h"
#include "dsh-serve-request.h"
#include "fuzz-target.h"
#include "fuzz-util.h"

static const char *const error_codes[] = {
  "PARSE_ERROR", "INVALID_REQUEST", "UNKNOWN_METHOD", "SANDBOX_UNAVAILABLE", "RUNNER_FAILURE",
  "INVALID_ARGUMENT", "MODULE_REFUSED", "FS_SANDBOX_DENIED", "SESSION_LOG", "ESCALATION_REFUSED",
  "APPROVAL", "ROOT_REFUSED", "FAILED", NULL
};

static char *in_path;
static char *out_path;
static const char *const scratch_entries[] = { "backends", "requests", "responses", "ws", "logs",
                                               NULL };

static void
setup (void)
{
  const char *scratch = fuzz_scratch_dir ();
  g_autofree char *modules = g_build_filename (scratch, "backends", NULL);
  g_autofree char *module = g_build_filename (modules, "libdsh-backend-fake-alpha.so", NULL);
  g_autofree char *contents = NULL;
  g_autoptr (GError) error = NULL;
  gsize length;

  /* A private copy: the selector refuses modules a confined command could have written. */
  g_assert_cmpint (g_mkdir (modules, 0700), ==, 0);
  if (!g_file_get_contents (FUZZ_FAKE_BACKEND, &contents, &length, &error))
    g_error ("the fake backend is missing: %s", error->message);
  fuzz_write_file (module, contents, (gssize) length);
  g_setenv ("DSH_SANDBOX_BACKEND_DIR", modules, TRUE);
  g_setenv ("DSH_SANDBOX_PROBE_CACHE", "off", TRUE);
  g_setenv ("DSH_SANDBOX_FOLD_CACHE", "off", TRUE);
  g_unsetenv ("DSH_SANDBOX_BACKEND");
  g_unsetenv ("DSH_SANDBOX_CONFIG");
  in_path = g_build_filename (scratch, "requests", NULL);
  out_path = g_build_filename (scratch, "responses", NULL);
  for (guint i = 3; scratch_entries[i] != NULL; i++)
    {
      g_autofree char *dir = g_build_filename (scratch, scratch_entries[i], NULL);

      g_assert_cmpint (g_mkdir (dir, 0700), ==, 0);
    }
}

/* Removes what the previous input's sessions left, so that each input starts alike. */
static void
empty_dir (const char *path, gboolean top)
{
  g_autoptr (GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      if (top && g_strv_contains (scratch_entries, name))
        {
          if (g_strv_contains (scratch_entries + 3, name))
            empty_dir (child, FALSE);
          continue;
        }
      if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
        {
          empty_dir (child, FALSE);
          g_rmdir (child);
        }
      else
        g_unlink (child);
    }
}

/* Does any request name a session the writes to which could leave the scratch directory? */
static gboolean
names_outside (const char *data, gsize size)
{
  const char *cursor = data;
  const char *end = data + size;

  while (cursor < end)
    {
      const char *newline = memchr (cursor, '\n', (size_t) (end - cursor));
      gsize length = (gsize) ((newline != NULL ? newline : end) - cursor);
      DshServeRequest request;
      gboolean outside;

      dsh_serve_request_parse (cursor, length, &request, NULL);
      outside = request.session != NULL &&
                (g_path_is_absolute (request.session) || strstr (request.session, "..") != NULL);
      dsh_serve_request_clear (&request);
      if (outside)
        return TRUE;
      cursor += length + 1;
    }
  return FALSE;
}

/* Runs serve with stdin from in_path and stdout into out_path. */
static void
serve (void)
{
  char *argv[] = { (char *) "serve", NULL };
  int saved_in = dup (0), saved_out = dup (1);
  int in = open (in_path, O_RDONLY | O_CLOEXEC);
  int out = open (out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

  int saved_dir;

  g_assert_true (saved_in >= 0 && saved_out >= 0 && in >= 0 && out >= 0);
  empty_dir (fuzz_scratch_dir (), TRUE);
  fflush (stdout);
  dup2 (in, 0);
  dup2 (out, 1);
  clearerr (stdin);
  saved_dir = fuzz_enter_dir (fuzz_scratch_dir ());
  g_assert_cmpint (dsh_cmd_serve (1, argv), ==, 0);
  fuzz_leave_dir (saved_dir);
  fflush (stdout);
  dup2 (saved_in, 0);
  dup2 (saved_out, 1);
  clearerr (stdin);
  close (in);
  close (out);
  close (saved_in);
  close (saved_out);
}

static gboolean
is_blank (const char *line, gsize length)
{
  for (gsize i = 0; i < length; i++)
    {
      if (!g_ascii_isspace (line[i]))
        return FALSE;
    }
  return TRUE;
}

static JsonObject *
strict_object (const char *text)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) node = NULL;
  gboolean syntax_error;

  g_assert_true (g_utf8_validate (text, -1, NULL));
  node = dsh_json_strict_parse (text, strlen (text), &syntax_error, &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
  return json_object_ref (json_node_get_object (node));
}

/* Is the response line the server's question to its client (before an escalation's answer)? */
static gboolean
is_question (const char *response)
{
  g_autoptr (JsonObject) object = strict_object (response);
  JsonObject *params;

  if (!json_object_has_member (object, "method"))
    return FALSE;
  g_assert_cmpstr (json_object_get_string_member (object, "method"), ==, "approval.request");
  g_assert_cmpuint (json_object_get_size (object), ==, 2);
  params = json_object_get_object_member (object, "params");
  g_assert_nonnull (params);
  g_assert_nonnull (json_object_get_string_member (params, "id"));
  g_assert_nonnull (json_object_get_string_member (params, "reason"));
  return TRUE;
}

/* Is the client's line exactly the answer that grants? */
static gboolean
is_grant (const char *line, gsize length)
{
  g_autoptr (JsonNode) node = NULL;
  gboolean syntax_error;
  JsonObject *object;
  JsonNode *result;

  if (line == NULL || memchr (line, '\0', length) != NULL)
    return FALSE;
  node = dsh_json_strict_parse (line, length, &syntax_error, NULL);
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return FALSE;
  object = json_node_get_object (node);
  result = json_object_get_member (object, "result");
  return json_object_get_size (object) == 1 && result != NULL && JSON_NODE_HOLDS_VALUE (result) &&
         json_node_get_value_type (result) == G_TYPE_STRING &&
         g_str_equal (json_node_get_string (result), "allowed-once");
}

/* Checks one response against the request line it answers (and the client's answer line, when
 * the server asked). */
static void
check_response (const char *request_line, gsize request_length, const char *response,
                gboolean question, const char *answer, gsize answer_length)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) node = NULL;
  DshServeRequest request;
  gboolean parsed, syntax_error;
  JsonObject *object;

  g_assert_true (g_utf8_validate (response, -1, NULL));
  node = dsh_json_strict_parse (response, strlen (response), &syntax_error, &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
  object = json_node_get_object (node);
  g_assert_true (json_object_has_member (object, "id"));
  g_assert_true (json_object_has_member (object, "result") !=
                 json_object_has_member (object, "error"));
  g_assert_cmpuint (json_object_get_size (object), ==, 2);

  parsed = dsh_serve_request_parse (request_line, request_length, &request, NULL);
  if (request.id != NULL)
    g_assert_true (json_node_equal (request.id, json_object_get_member (object, "id")));
  if (!parsed)
    g_assert_true (json_object_has_member (object, "error"));

  if (json_object_has_member (object, "error"))
    {
      JsonObject *failure = json_object_get_object_member (object, "error");

      g_assert_nonnull (failure);
      g_assert_true (g_strv_contains (error_codes,
                                      json_object_get_string_member (failure, "code")));
      g_assert_nonnull (json_object_get_string_member (failure, "message"));
    }
  else if (request.method == DSH_SERVE_METHOD_ESCALATE)
    {
      JsonObject *result = json_object_get_object_member (object, "result");

      /* A grant needs the question asked and exactly the granting answer. */
      g_assert_true (question && is_grant (answer, answer_length));
      g_assert_cmpstr (json_object_get_string_member (result, "outcome"), ==, "allowed-once");
      g_assert_cmpstr (json_object_get_string_member (result, "callId"), ==, request.call_id);
    }
  else if (request.method == DSH_SERVE_METHOD_CONFINE)
    {
      JsonObject *result = json_object_get_object_member (object, "result");
      JsonArray *argv = json_object_get_array_member (result, "argv");
      guint n = json_array_get_length (argv);
      guint asked = g_strv_length (request.argv);

      /* What runs ends with the command asked for, every argument as given. */
      g_assert_cmpuint (n, >=, asked);
      for (guint i = 0; i < asked; i++)
        g_assert_cmpstr (json_array_get_string_element (argv, n - asked + i), ==,
                         request.argv[i]);
    }
  dsh_serve_request_clear (&request);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *responses = NULL;
  g_auto (GStrv) lines = NULL;
  const char *cursor = (const char *) data;
  const char *end = cursor + size;
  gsize length;
  guint answered = 0;

  if (in_path == NULL)
    setup ();
  if (names_outside ((const char *) data, size))
    return 0;
  fuzz_write_file (in_path, (const char *) data, (gssize) size);
  serve ();
  g_assert_true (g_file_get_contents (out_path, &responses, &length, NULL));
  g_assert_true (length == 0 || responses[length - 1] == '\n');
  lines = g_strsplit (responses, "\n", -1);

  /* One response per non-blank request line, in order. */
  while (cursor < end)
    {
      const char *newline = memchr (cursor, '\n', (size_t) (end - cursor));
      gsize line_length = (gsize) ((newline != NULL ? newline : end) - cursor);

      if (!is_blank (cursor, line_length))
        {
          const char *request_line = cursor;
          const char *answer = NULL;
          gsize answer_length = 0;
          gboolean asked;

          g_assert_nonnull (lines[answered]);
          g_assert_cmpstr (lines[answered], !=, "");
          /* The question comes first; the client's next line that is not blank, whatever it
           * is, answers. */
          asked = is_question (lines[answered]);
          if (asked)
            {
              const char *next = cursor + line_length + 1;

              answered++;
              g_assert_nonnull (lines[answered]);
              while (next < end)
                {
                  const char *stop = memchr (next, '\n', (size_t) (end - next));
                  gsize next_length = (gsize) ((stop != NULL ? stop : end) - next);

                  if (!is_blank (next, next_length))
                    {
                      answer = next;
                      answer_length = next_length;
                      break;
                    }
                  next += next_length + 1;
                }
            }
          check_response (request_line, line_length, lines[answered], asked, answer,
                          answer_length);
          answered++;
          if (answer != NULL)
            line_length = (gsize) (answer + answer_length - cursor);
        }
      cursor += line_length + 1;
    }
  g_assert_true (lines[answered] == NULL || g_str_equal (lines[answered], ""));
  g_assert_true (lines[answered] == NULL || lines[answered + 1] == NULL);
  return 0;
}
