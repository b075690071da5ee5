/* test-backend-abi.c — ABI 1.1 of the backend SDK: a module built against the 1.0 header still
 * loads and confines, the 1.0 layout is unchanged, and a module's per-provider instance is made
 * once on the provider's first call, handed to every call of that provider, never shared with
 * another provider, and freed when the provider's lifetime ends.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <stddef.h>

#include "dsh-backend.h"
#include "dsh-test-util.h"
#include "sdk/abi-layout.h"

typedef struct {
  char *modules_dir;
  char *workspace;
  char *log_path;
} Fixture;

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  const char *module = data;
  g_autofree char *path = dsh_test_module_path (module);
  g_autofree char *copy = NULL;

  f->modules_dir = dsh_test_make_tmp_dir ();
  f->workspace = dsh_test_make_tmp_dir ();
  f->log_path = g_build_filename (f->workspace, "instances.log", NULL);
  copy = dsh_test_copy_module (path, f->modules_dir);
  g_setenv ("DSH_FAKE_INSTANCE_LOG", f->log_path, TRUE);
  g_unsetenv ("DSH_FAKE_INSTANCE_REFUSE");
  g_unsetenv ("DSH_SANDBOX_BACKEND");
  g_unsetenv ("DSH_SANDBOX_BACKEND_DIR");
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  g_unsetenv ("DSH_FAKE_INSTANCE_LOG");
  g_unsetenv ("DSH_FAKE_INSTANCE_REFUSE");
  g_free (f->modules_dir);
  g_free (f->workspace);
  g_free (f->log_path);
}

/* The wrapped argv of a read-only `true`, asserting success. */
static GStrv
confine_true (Fixture *f, DshLocalProvider *provider)
{
  g_autoptr (DshConfinedArgv) confined = dsh_test_confine_true (provider, f->workspace);

  return g_strdupv ((char **) dsh_confined_argv_get_argv (confined));
}

static void
assert_report_valid (JsonNode *report)
{
  g_autofree char *text = json_to_string (report, FALSE);

  dsh_test_assert_valid_json (text, "probe.schema.json");
}

static void
test_abi10_module_loads (Fixture *f, gconstpointer data)
{
  g_autoptr (DshLocalProvider) provider = dsh_test_provider_for_dir (f->modules_dir);
  g_autoptr (JsonNode) report = NULL;
  g_auto (GStrv) argv = NULL;
  JsonObject *candidate;

  g_assert_cmpstr (dsh_local_provider_get_selected (provider, NULL), ==, "fake-abi10");
  argv = confine_true (f, provider);
  g_assert_cmpstr (argv[0], ==, "/bin/sh");
  g_assert_cmpstr (argv[g_strv_length (argv) - 1], ==, "true");

  report = dsh_local_provider_describe (provider);
  assert_report_valid (report);
  candidate = dsh_test_candidate (report, "name", "fake-abi10");
  g_assert_cmpstr (json_object_get_string_member (candidate, "status"), ==, "selected");
  /* Fields a 1.0 descriptor does not have are not read (its padding holds pointers that would
   * crash a core that did), so there is no metadata to show. */
  g_assert_false (json_object_has_member (candidate, "version"));
  g_assert_false (json_object_has_member (candidate, "license"));
  g_assert_false (json_object_has_member (candidate, "origin"));
}

static void
test_layout_of_abi10_unchanged (void)
{
  DshAbiLayout old;

  dsh_abi_layout_1_0 (&old);
  g_assert_cmpuint (old.descriptor_size, ==, sizeof (DshBackendDescriptor));
  g_assert_cmpuint (old.descriptor_n_rules, ==,
                    offsetof (DshBackendDescriptor, n_runner_failure_rules));
  /* The 1.1 fields come out of the padding, which starts where it did. */
  g_assert_cmpuint (old.descriptor_reserved, ==, offsetof (DshBackendDescriptor, denial_exclusions));
  g_assert_cmpuint (old.host_size, ==, sizeof (DshBackendHost));
  g_assert_cmpuint (old.host_spawn_probe, ==, offsetof (DshBackendHost, spawn_probe));
  g_assert_cmpuint (old.host_reserved, ==, offsetof (DshBackendHost, instance));
  g_assert_cmpuint (old.policy_size, ==, sizeof (DshBackendPolicy));
  g_assert_cmpuint (old.policy_writable_roots, ==, offsetof (DshBackendPolicy, writable_roots));
  g_assert_cmpuint (old.rule_size, ==, sizeof (DshBackendFailureRule));
}

static void
test_instance_per_provider_lifetime (Fixture *f, gconstpointer data)
{
  g_autoptr (DshLocalProvider) first = dsh_test_provider_for_dir (f->modules_dir);
  g_autoptr (DshLocalProvider) second = NULL;
  g_auto (GStrv) a1 = NULL;
  g_auto (GStrv) a2 = NULL;
  g_auto (GStrv) b1 = NULL;
  g_autofree char *made_first = NULL;
  g_autofree char *made_both = NULL;
  g_autofree char *freed_first = NULL;
  g_autofree char *freed_both = NULL;
  g_autofree char *second_label = NULL;
  guint n;

  dsh_test_assert_log_is (f->log_path, "");
  /* The first call (here the selection's check) makes the instance; later calls reuse it. */
  g_assert_cmpstr (dsh_local_provider_get_selected (first, NULL), ==, "hooked");
  a1 = confine_true (f, first);
  a2 = confine_true (f, first);
  g_assert_true (g_str_has_prefix (a1[3], "hooked-"));
  g_assert_cmpstr (a1[3], ==, a2[3]);
  n = (guint) g_ascii_strtoull (a1[3] + strlen ("hooked-"), NULL, 10);
  made_first = g_strdup_printf ("new %u\n", n);
  dsh_test_assert_log_is (f->log_path, made_first);

  /* A new provider (a new generation) never sees the old one's state. */
  second = dsh_test_provider_for_dir (f->modules_dir);
  b1 = confine_true (f, second);
  second_label = g_strdup_printf ("hooked-%u", n + 1);
  g_assert_cmpstr (b1[3], ==, second_label);
  made_both = g_strdup_printf ("new %u\nnew %u\n", n, n + 1);
  dsh_test_assert_log_is (f->log_path, made_both);

  /* Each ends with its own provider, the other one untouched. */
  g_clear_object (&first);
  freed_first = g_strdup_printf ("%sfree %u\n", made_both, n);
  dsh_test_assert_log_is (f->log_path, freed_first);
  g_clear_object (&second);
  freed_both = g_strdup_printf ("%sfree %u\n", freed_first, n + 1);
  dsh_test_assert_log_is (f->log_path, freed_both);
}

static gpointer
confine_in_thread (gpointer data)
{
  gpointer *args = data;

  return confine_true (args[0], args[1]);
}

static void
test_instance_made_once_across_threads (Fixture *f, gconstpointer data)
{
  g_autoptr (DshLocalProvider) provider = dsh_test_provider_for_dir (f->modules_dir);
  gpointer args[] = { f, provider };
  GThread *threads[8];
  g_auto (GStrv) first_argv = NULL;
  g_autofree char *log = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    threads[i] = g_thread_new ("confine", confine_in_thread, args);
  first_argv = g_thread_join (threads[0]);
  for (guint i = 1; i < G_N_ELEMENTS (threads); i++)
    {
      g_auto (GStrv) argv = g_thread_join (threads[i]);

      g_assert_cmpstr (argv[3], ==, first_argv[3]);
    }
  log = dsh_test_read_log (f->log_path);
  g_assert_cmpuint (dsh_test_count_lines (f->log_path), ==, 1);
  g_assert_true (g_str_has_prefix (log, "new "));
}

static void
test_instance_refused_fails_closed (Fixture *f, gconstpointer data)
{
  g_autoptr (DshLocalProvider) provider = NULL;
  g_autoptr (DshSandboxPolicy) policy = dsh_sandbox_policy_new (DSH_SANDBOX_MODE_READ_ONLY,
                                                                f->workspace, NULL);
  g_autoptr (DshConfinedArgv) confined = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) report = NULL;
  const char *argv[] = { "true", NULL };
  JsonObject *candidate;

  g_setenv ("DSH_FAKE_INSTANCE_REFUSE", "1", TRUE);
  provider = dsh_test_provider_for_dir (f->modules_dir);
  confined = dsh_sandbox_provider_confine (DSH_SANDBOX_PROVIDER (provider), argv, policy, &error);
  g_assert_null (confined);
  g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_UNAVAILABLE);

  report = dsh_local_provider_describe (provider);
  candidate = dsh_test_candidate (report, "name", "hooked");
  g_assert_cmpstr (json_object_get_string_member (candidate, "status"), ==, "unusable");
  g_assert_cmpstr (json_object_get_string_member (candidate, "reason"), ==,
                   "hooked: refused to make an instance");
}

static void
test_metadata_in_probe (Fixture *f, gconstpointer data)
{
  g_autoptr (DshLocalProvider) provider = dsh_test_provider_for_dir (f->modules_dir);
  g_autoptr (JsonNode) report = dsh_local_provider_describe (provider);
  JsonObject *candidate = dsh_test_candidate (report, "name", "hooked");

  assert_report_valid (report);
  g_assert_cmpstr (json_object_get_string_member (candidate, "version"), ==, "1.1.0");
  g_assert_cmpstr (json_object_get_string_member (candidate, "license"), ==,
                   "LGPL-2.1-or-later");
  g_assert_cmpstr (json_object_get_string_member (candidate, "origin"), ==, "dsh-sandbox tests");
}

#define ADD(path, module, func) \
  g_test_add (path, Fixture, module, fixture_set_up, func, fixture_tear_down)

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  ADD ("/backend-abi/1.0-module-loads", "fake-abi10", test_abi10_module_loads);
  g_test_add_func ("/backend-abi/1.0-layout-unchanged", test_layout_of_abi10_unchanged);
  ADD ("/backend-abi/instance/per-provider-lifetime", "hooked",
       test_instance_per_provider_lifetime);
  ADD ("/backend-abi/instance/once-across-threads", "hooked",
       test_instance_made_once_across_threads);
  ADD ("/backend-abi/instance/refused-fails-closed", "hooked", test_instance_refused_fails_closed);
  ADD ("/backend-abi/metadata-in-probe", "hooked", test_metadata_in_probe);
  return g_test_run ();
}
