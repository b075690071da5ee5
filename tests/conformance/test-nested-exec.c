/* test-nested-exec.c — what of dsh-sandbox's own environment a confined command inherits,
 * through the real `dsh-sandbox exec` once per Linux backend: the variables that steer one call
 * (backend, module directory, probe cache, approver timeout) stay with that call, the deployment
 * configuration reaches the command, and a dsh-sandbox the command runs selects a backend for
 * the sandbox's view of the host by itself.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <glib/gstdio.h>
#include <string.h>

#include "dsh-test-linux.h"

static const char *backend;

typedef struct {
  char *base;
  char *ws;
  char *config;
  char *outer_cache;
  char *report_path;
} Fixture;

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  (void) data;
  f->base = dsh_test_scratch_dir ("nested");
  f->ws = dsh_test_make_dir (f->base, "ws");
  f->config = dsh_test_make_file (f->base, "config.json", "{}\n");
  f->outer_cache = g_build_filename (f->base, "outer-probe-cache.ini", NULL);
  f->report_path = g_build_filename (f->base, "report.json", NULL);
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  (void) data;
  dsh_test_remove_tree (f->base);
  g_free (f->base);
  g_free (f->ws);
  g_free (f->config);
  g_free (f->outer_cache);
  g_free (f->report_path);
}

/* `dsh-sandbox exec --mode workspace-write` of command with every variable of ours set for the
 * call (and DSH_SANDBOX_CONFIG when with_config); returns the outer report's outcome. */
static char *
exec_with_our_variables (Fixture *f, gboolean with_config, const char *const *command,
                         DshTestRun *run)
{
  g_autofree char *backend_env = g_strdup_printf ("DSH_SANDBOX_BACKEND=%s", backend);
  g_autofree char *dir_env = g_strdup_printf ("DSH_SANDBOX_BACKEND_DIR=%s",
                                              dsh_test_getenv_required ("DSH_TEST_BACKEND_DIR"));
  g_autofree char *cache_env = g_strdup_printf ("DSH_SANDBOX_PROBE_CACHE=%s", f->outer_cache);
  g_autofree char *config_env = with_config ? g_strdup_printf ("DSH_SANDBOX_CONFIG=%s", f->config)
                                            : g_strdup ("DSH_SANDBOX_CONFIG");
  const char *env[] = { backend_env, dir_env, cache_env, "DSH_SANDBOX_APPROVER_TIMEOUT=60",
                        config_env, NULL };
  const char *options[] = { "--mode", "workspace-write", "--workspace", f->ws, NULL };
  const DshTestExec exec = { .options = options, .report_path = f->report_path, .env = env,
                             .cwd = f->ws, .backend = backend };
  g_autoptr (JsonNode) report = dsh_test_exec (run, &exec, command);

  return g_strdup (json_object_get_string_member (json_node_get_object (report), "outcome"));
}

/* Whether a line of text starts with prefix (or, with whole, is exactly it). */
static gboolean
has_line (const char *text, const char *prefix, gboolean whole)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);

  for (gsize i = 0; lines[i] != NULL; i++)
    if (whole ? g_str_equal (lines[i], prefix) : g_str_has_prefix (lines[i], prefix))
      return TRUE;
  return FALSE;
}

/* The command sees none of the call's own variables, the probe cache off, and the deployment
 * configuration — on the lean exec path and (with a configuration) on the full one. */
static void
test_environment (Fixture *f, gconstpointer data)
{
  const char *command[] = { "env", NULL };

  (void) data;
  for (int with_config = 0; with_config <= 1; with_config++)
    {
      g_auto (DshTestRun) run = { 0 };
      g_autofree char *config_line = g_strdup_printf ("DSH_SANDBOX_CONFIG=%s", f->config);
      g_autofree char *outcome = exec_with_our_variables (f, with_config, command, &run);

      g_assert_cmpint (run.exit_code, ==, 0);
      g_assert_cmpstr (outcome, ==, "completed");
      g_assert_false (has_line (run.out, "DSH_SANDBOX_BACKEND=", FALSE));
      g_assert_false (has_line (run.out, "DSH_SANDBOX_BACKEND_DIR=", FALSE));
      g_assert_false (has_line (run.out, "DSH_SANDBOX_APPROVER_TIMEOUT=", FALSE));
      g_assert_true (has_line (run.out, "DSH_SANDBOX_PROBE_CACHE=off", TRUE));
      g_assert_false (has_line (run.out, "DSH_SANDBOX_PROBE_CACHE=/", FALSE));
      g_assert_cmpint (has_line (run.out, config_line, TRUE), ==, with_config);
    }
}

/* A nested exec chooses for the sandbox's view itself: bwrap cannot run inside either backend
 * on this kernel, so forcing the outer call's backend on it (or trusting the outer call's probe
 * cache) leaves a nested call under bwrap no runner. Landlock stacks. */
static void
test_nested_exec_selects_for_itself (Fixture *f, gconstpointer data)
{
  g_autofree char *inner_report = g_build_filename (f->ws, "inner.json", NULL);
  const char *command[] = { dsh_test_cli (), "exec", "--mode", "read-only", "--workspace", f->ws,
                            "--report", inner_report, "--", "sh", "-c", "echo nested ran",
                            NULL };
  g_auto (DshTestRun) run = { 0 };
  g_autofree char *outcome = NULL;
  g_autofree char *inner_text = NULL;
  g_autoptr (JsonNode) inner = NULL;

  (void) data;
  outcome = exec_with_our_variables (f, FALSE, command, &run);
  g_assert_cmpint (run.exit_code, ==, 0);
  g_assert_cmpstr (outcome, ==, "completed");
  g_assert_cmpstr (run.out, ==, "nested ran\n");

  inner_text = dsh_test_read_file (inner_report);
  g_assert_nonnull (inner_text);
  inner = dsh_test_parse_json (inner_text);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (inner), "outcome"), ==,
                   "completed");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  backend = dsh_test_getenv_required ("DSH_SANDBOX_BACKEND");

#define ADD(path, fn) \
  g_test_add (dsh_test_backend_case_path ("nested-exec", backend, path), Fixture, NULL, fixture_set_up, \
              fn, fixture_tear_down)
  ADD ("environment", test_environment);
  ADD ("selects-for-itself", test_nested_exec_selects_for_itself);
#undef ADD
  return g_test_run ();
}
