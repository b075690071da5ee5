/* fuzz-serve.c — libFuzzer target for "dsh-sandbox serve" as a whole: the input is its stdin,
 * every method included, run through the command's own loop and handler with a provider whose
 * only backend is a fake module (a sole candidate is never probed, so nothing is spawned).
 * Every non-blank line gets exactly one response line, in order: a JSON object with the id
 * the request carried and exactly one of "result" and "error" (a known code, a UTF-8 message);
 * a confined argv ends with exactly the argv the request asked for.
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
  g_unsetenv ("DSH_SANDBOX_BACKEND");
  g_unsetenv ("DSH_SANDBOX_CONFIG");
  in_path = g_build_filename (scratch, "requests", NULL);
  out_path = g_build_filename (scratch, "responses", NULL);
}

/* Runs serve with stdin from in_path and stdout into out_path. */
static void
serve (void)
{
  char *argv[] = { (char *) "serve", NULL };
  int saved_in = dup (0), saved_out = dup (1);
  int in = open (in_path, O_RDONLY | O_CLOEXEC);
  int out = open (out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

  g_assert_true (saved_in >= 0 && saved_out >= 0 && in >= 0 && out >= 0);
  fflush (stdout);
  dup2 (in, 0);
  dup2 (out, 1);
  clearerr (stdin);
  g_assert_cmpint (dsh_cmd_serve (1, argv), ==, 0);
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

/* Checks one response against the request line it answers. */
static void
check_response (const char *request_line, gsize request_length, const char *response)
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
          g_assert_nonnull (lines[answered]);
          g_assert_cmpstr (lines[answered], !=, "");
          check_response (cursor, line_length, lines[answered]);
          answered++;
        }
      cursor += line_length + 1;
    }
  g_assert_true (lines[answered] == NULL || g_str_equal (lines[answered], ""));
  g_assert_true (lines[answered] == NULL || lines[answered + 1] == NULL);
  return 0;
}
