/* test-linux-selection.c — which Linux backend the real `dsh-sandbox` picks: a working bwrap
 * first, Landlock when bwrap is missing or fails its probe, Landlock when forced, and nothing
 * (fail closed) when neither works. The runners are made to fail for real with seccomp.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define _GNU_SOURCE

#include <glib/gstdio.h>
#include <string.h>

#include "dsh-test-linux.h"

/* Ways to break a runner for real. */
#define BREAK_BWRAP "EPERM", "clone"
#define BREAK_LANDLOCK "ENOSYS", "landlock_create_ruleset,landlock_add_rule,landlock_restrict_self"

static gboolean
require_both_backends (void)
{
  return dsh_test_require_landlock () && dsh_test_require_bwrap ();
}

/* Runs the CLI with `args`, optionally under dsh-test-deny-syscalls with each errno/syscalls
 * pair in `deny` (NULL-terminated pairs). The cross-process probe cache is off unless `cache`
 * names its file. */
static void
run_cli_cached (const char *backend_override,
                const char *cache,
                const char *const *deny,
                const char *const *args,
                DshTestRun *run)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new_with_free_func (NULL);
  g_autofree char *override_env = g_strdup_printf ("DSH_SANDBOX_BACKEND=%s",
                                                   backend_override ? backend_override : "");
  g_autofree char *cache_env = g_strdup_printf ("DSH_SANDBOX_PROBE_CACHE=%s",
                                                cache ? cache : "off");
  const char *env[] = { backend_override ? override_env : "DSH_SANDBOX_BACKEND", cache_env,
                        NULL };

  for (gsize i = 0; deny != NULL && deny[i] != NULL; i += 2)
    dsh_test_add_deny_syscalls (argv, deny[i], deny[i + 1]);
  g_ptr_array_add (argv, (char *) dsh_test_cli ());
  for (gsize i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);
  dsh_test_run (run, (const char *const *) argv->pdata, env, "/", NULL);
}

static void
run_cli (const char *backend_override,
         const char *const *deny,
         const char *const *args,
         DshTestRun *run)
{
  run_cli_cached (backend_override, NULL, deny, args, run);
}

static JsonNode *
probe (const char *backend_override, const char *const *deny)
{
  g_auto (DshTestRun) run = { 0 };
  const char *args[] = { "probe", "--json", NULL };
  JsonNode *node;

  run_cli (backend_override, deny, args, &run);
  node = dsh_test_parse_json (run.out);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
  return node;
}

static const char *
selected (JsonNode *probe_node)
{
  return json_object_get_string_member_with_default (json_node_get_object (probe_node),
                                                     "selected", NULL);
}

static void
test_prefers_bwrap (void)
{
  g_autoptr (JsonNode) node = NULL;

  if (!require_both_backends ())
    return;

  node = probe (NULL, NULL);
  g_assert_cmpstr (selected (node), ==, "bwrap");
  g_assert_cmpstr (dsh_test_candidate_string (node, "landlock", "status"), ==, "not-needed");
}

static void
test_falls_back_to_landlock (void)
{
  const char *deny[] = { BREAK_BWRAP, NULL };
  g_autoptr (JsonNode) node = NULL;
  g_auto (DshTestRun) run = { 0 };
  g_autofree char *ws = dsh_test_scratch_dir ("selection");
  g_autofree char *file = g_build_filename (ws, "file", NULL);
  const char *args[] = { "exec", "--mode", "read-only", "--workspace", ws, "--",
                         dsh_test_getenv_required ("DSH_TEST_FILEOP"), "write", file, NULL };

  if (!require_both_backends ())
    return;

  node = probe (NULL, deny);
  g_assert_cmpstr (selected (node), ==, "landlock");
  g_assert_cmpstr (dsh_test_candidate_string (node, "bwrap", "status"), ==, "unusable");
  g_assert_cmpstr (dsh_test_candidate_string (node, "bwrap", "probe"), ==, "failed");
  g_assert_nonnull (strstr (dsh_test_candidate_string (node, "bwrap", "reason"), "bwrap: "));
  g_assert_cmpstr (dsh_test_candidate_string (node, "landlock", "probe"), ==, "passed");

  /* And it really confines with Landlock, in Landlock's dialect. */
  run_cli (NULL, deny, args, &run);
  g_assert_cmpint (run.exit_code, ==, 1);
  g_assert_nonnull (strstr (run.err, "Permission denied"));
  g_assert_nonnull (strstr (run.err, "[sandbox: file access denied under read-only mode]"));
  g_assert_false (g_file_test (file, G_FILE_TEST_EXISTS));
  dsh_test_remove_tree (ws);
}

static void
test_forced_landlock (void)
{
  g_autoptr (JsonNode) node = NULL;
  JsonObject *enforcement;

  if (!require_both_backends ())
    return;

  node = probe ("landlock", NULL);
  g_assert_cmpstr (selected (node), ==, "landlock");
  g_assert_cmpstr (dsh_test_candidate_string (node, "bwrap", "status"), ==, "excluded");
  enforcement = json_object_get_object_member (json_node_get_object (node), "enforcement");
  for (int i = 0; i < 2; i++)
    {
      JsonObject *mode = json_object_get_object_member (enforcement,
                                                        i ? "workspace-write" : "read-only");

      g_assert_cmpstr (json_object_get_string_member (mode, "enforcement"), ==, "partial");
      g_assert_cmpuint (json_array_get_length (json_object_get_array_member (mode, "reasons")),
                        >=, 1);
    }
}

/* Without Landlock in the kernel, forcing it is "unavailable" up front — the module's check
 * refuses — not a runner failure, and nothing runs. */
static void
test_no_landlock_is_unavailable (void)
{
  const char *deny[] = { BREAK_LANDLOCK, NULL };
  const char *both[] = { BREAK_LANDLOCK, BREAK_BWRAP, NULL };
  g_autofree char *ws = dsh_test_scratch_dir ("selection");
  g_autofree char *marker = g_build_filename (ws, "ran", NULL);
  const char *args[] = { "exec", "--mode", "workspace-write", "--workspace", ws, "--",
                         dsh_test_getenv_required ("DSH_TEST_FILEOP"), "write", marker, NULL };
  g_autoptr (JsonNode) node = NULL;

  if (!require_both_backends ())
    return;

  node = probe ("landlock", deny);
  g_assert_null (selected (node));
  g_assert_nonnull (strstr (dsh_test_candidate_string (node, "landlock", "reason"),
                            "does not enforce Landlock"));

  for (int i = 0; i < 2; i++)
    {
      g_auto (DshTestRun) run = { 0 };

      /* Forced Landlock, then the whole chain with both runners broken. */
      run_cli (i == 0 ? "landlock" : NULL, i == 0 ? deny : both, args, &run);
      g_assert_cmpint (run.exit_code, ==, 125);
      g_assert_true (g_str_has_prefix (run.err, "dsh-sandbox: " UNAVAILABLE_TEXT ("workspace-write")
                                                " Cause: "));
      g_assert_nonnull (strstr (run.err, "does not enforce Landlock"));
      dsh_test_assert_one_line (run.err, "dsh-sandbox: ", NULL);
      g_assert_false (g_file_test (marker, G_FILE_TEST_EXISTS));
    }
  dsh_test_remove_tree (ws);
}

/* However the kernel says "no Landlock" — not built in (ENOSYS), disabled at boot (EOPNOTSUPP),
 * refused by a container's seccomp profile (EPERM) — forcing it fails closed with 125, and the
 * probe's reason names the errno. */
static void
test_no_landlock_names_errno (void)
{
  const char *errnos[] = { "ENOSYS", "EOPNOTSUPP", "EPERM" };
  g_autofree char *ws = dsh_test_scratch_dir ("selection");
  g_autofree char *marker = g_build_filename (ws, "ran", NULL);
  const char *args[] = { "exec", "--mode", "workspace-write", "--workspace", ws, "--",
                         dsh_test_getenv_required ("DSH_TEST_FILEOP"), "write", marker, NULL };

  if (!dsh_test_require_landlock ())
    return;

  for (gsize i = 0; i < G_N_ELEMENTS (errnos); i++)
    {
      const char *deny[] = { errnos[i], "landlock_create_ruleset", NULL };
      g_autofree char *named = g_strdup_printf ("failed with %s, ", errnos[i]);
      g_autoptr (JsonNode) node = probe ("landlock", deny);
      g_auto (DshTestRun) run = { 0 };

      g_assert_null (selected (node));
      g_assert_nonnull (strstr (dsh_test_candidate_string (node, "landlock", "reason"), named));

      run_cli ("landlock", deny, args, &run);
      dsh_test_assert_never_ran (&run, marker);
      g_assert_true (g_str_has_prefix (run.err,
                                       "dsh-sandbox: " UNAVAILABLE_TEXT ("workspace-write")));
    }
  dsh_test_remove_tree (ws);
}

/* A cached selection that has gone stale can at worst end in a runner failure: bwrap passed its
 * probe and was cached, then stops working; the command must not run at all. */
static void
test_stale_probe_cache (void)
{
  const char *deny[] = { BREAK_BWRAP, NULL };
  g_autofree char *dir = dsh_test_scratch_dir ("selection");
  /* Outside the workspace: a cache the command could write is not used at all. */
  g_autofree char *cache_dir = dsh_test_scratch_dir ("selection-cache");
  g_autofree char *cache = g_build_filename (cache_dir, "probe-cache.ini", NULL);
  g_autofree char *marker = g_build_filename (dir, "ran", NULL);
  const char *probe_args[] = { "probe", "--json", NULL };
  const char *exec_args[] = { "exec", "--mode", "workspace-write", "--workspace", dir, "--",
                              dsh_test_getenv_required ("DSH_TEST_FILEOP"), "write", marker,
                              NULL };
  g_auto (DshTestRun) first = { 0 };
  g_auto (DshTestRun) run = { 0 };

  if (!require_both_backends ())
    return;

  run_cli_cached (NULL, cache, NULL, probe_args, &first);
  g_assert_cmpint (first.exit_code, ==, 0);
  g_assert_true (g_file_test (cache, G_FILE_TEST_EXISTS));

  run_cli_cached (NULL, cache, deny, exec_args, &run);
  dsh_test_assert_never_ran (&run, marker);
  g_assert_nonnull (strstr (run.err, "dsh-sandbox: " UNAVAILABLE_TEXT ("workspace-write")
                                     " Runner failure: bwrap: "));
  dsh_test_remove_tree (dir);
  dsh_test_remove_tree (cache_dir);
}

/* The cache only ever remembers that the preferred backend passed: a fallback chosen while bwrap
 * was broken is not remembered, so nothing written to the cache file (by a confined command
 * whose HOME is its workspace, say) can steer a later call to the weaker backend. */
static void
test_cache_never_remembers_a_fallback (void)
{
  const char *deny[] = { BREAK_BWRAP, NULL };
  g_autofree char *dir = dsh_test_scratch_dir ("selection");
  g_autofree char *cache = g_build_filename (dir, "probe-cache.ini", NULL);
  const char *probe_args[] = { "probe", "--json", NULL };
  g_auto (DshTestRun) broken = { 0 };
  g_auto (DshTestRun) healthy = { 0 };
  g_autoptr (JsonNode) report = NULL;

  if (!require_both_backends ())
    return;

  run_cli_cached (NULL, cache, deny, probe_args, &broken);
  g_assert_cmpint (broken.exit_code, ==, 0);
  g_assert_nonnull (strstr (broken.out, "\"selected\" : \"landlock\""));
  g_assert_false (g_file_test (cache, G_FILE_TEST_EXISTS));

  run_cli_cached (NULL, cache, NULL, probe_args, &healthy);
  g_assert_cmpint (healthy.exit_code, ==, 0);
  report = dsh_test_parse_json (healthy.out);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (report), "selected"), ==,
                   "bwrap");
  g_assert_true (g_file_test (cache, G_FILE_TEST_EXISTS));
  dsh_test_remove_tree (dir);
}

/* A helper is a file someone may execute: neither a directory of its name nor a file without
 * an execute bit is taken for the Landlock launcher, even by root, whom access() grants X_OK on
 * any file; the real launcher in a later helper directory is. */
static void
test_helper_must_be_executable (void)
{
  g_autofree char *base = dsh_test_scratch_dir ("selection-helpers");
  g_autofree char *as_dir = g_build_filename (base, "as-dir", NULL);
  g_autofree char *as_file = g_build_filename (base, "as-file", NULL);
  g_autofree char *dir_decoy = g_build_filename (as_dir, "dsh-landlock-exec", NULL);
  g_autofree char *file_decoy = g_build_filename (as_file, "dsh-landlock-exec", NULL);
  g_auto (GStrv) backend_dirs = g_strsplit (dsh_test_getenv_required ("DSH_TEST_BACKEND_DIRS"),
                                            ":", -1);
  g_auto (GStrv) build_helpers = g_strsplit (dsh_test_getenv_required ("DSH_TEST_HELPER_DIRS"),
                                             ":", -1);
  g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();
  g_auto (GStrv) helper_dirs = NULL;
  g_autoptr (DshSandboxPolicy) policy = dsh_sandbox_policy_new (DSH_SANDBOX_MODE_READ_ONLY, "/",
                                                                NULL);
  g_autoptr (DshLocalProvider) provider = NULL;
  g_autoptr (DshConfinedArgv) confined = NULL;
  g_autoptr (GError) error = NULL;
  const char *argv[] = { "true", NULL };
  const char *launcher;

  if (!dsh_test_require_landlock ())
    return;
  g_assert_cmpint (g_mkdir (as_dir, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (as_file, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (dir_decoy, 0755), ==, 0);
  dsh_test_write_file (file_decoy, "#!/bin/sh\nexec \"$@\"\n");
  g_assert_cmpint (g_chmod (file_decoy, 0644), ==, 0);
  g_strv_builder_add_many (builder, as_dir, as_file, NULL);
  g_strv_builder_addv (builder, (const char **) build_helpers);
  helper_dirs = g_strv_builder_end (builder);

  g_setenv ("DSH_SANDBOX_BACKEND", "landlock", TRUE);
  provider = dsh_local_provider_new_for_dirs ((const char *const *) backend_dirs,
                                              (const char *const *) helper_dirs);
  confined = dsh_sandbox_provider_confine (DSH_SANDBOX_PROVIDER (provider), argv, policy, &error);
  g_unsetenv ("DSH_SANDBOX_BACKEND");
  g_assert_no_error (error);
  launcher = dsh_confined_argv_get_argv (confined)[0];
  g_assert_true (g_str_has_suffix (launcher, "/dsh-landlock-exec"));
  g_assert_false (g_str_has_prefix (launcher, base));
  dsh_test_remove_tree (base);
}

/* A launcher that is there but emptied or cut short (an operator's copy caught half-way, a
 * full disk) is refused with that cause: executed, execvp() would run it as a shell script,
 * which exits 0 or 127 as if it were the command's status, though the command never ran. */
static void
test_helper_must_be_whole (void)
{
  g_autofree char *base = dsh_test_scratch_dir ("selection-helpers-cut");
  g_autofree char *decoy = g_build_filename (base, "dsh-landlock-exec", NULL);
  g_auto (GStrv) backend_dirs = g_strsplit (dsh_test_getenv_required ("DSH_TEST_BACKEND_DIRS"),
                                            ":", -1);
  g_auto (GStrv) build_helpers = g_strsplit (dsh_test_getenv_required ("DSH_TEST_HELPER_DIRS"),
                                             ":", -1);
  g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();
  g_auto (GStrv) helper_dirs = NULL;
  g_autoptr (DshSandboxPolicy) policy = dsh_sandbox_policy_new (DSH_SANDBOX_MODE_READ_ONLY, "/",
                                                                NULL);
  g_autofree char *real = NULL;
  g_autofree char *bytes = NULL;
  gsize len = 0;
  const char *argv[] = { "true", NULL };

  if (!dsh_test_require_landlock ())
    return;
  for (gsize i = 0; real == NULL && build_helpers[i] != NULL; i++)
    {
      g_autofree char *candidate = g_build_filename (build_helpers[i], "dsh-landlock-exec", NULL);

      if (g_file_test (candidate, G_FILE_TEST_IS_EXECUTABLE))
        real = g_steal_pointer (&candidate);
    }
  g_assert_nonnull (real);
  g_assert_true (g_file_get_contents (real, &bytes, &len, NULL));
  g_strv_builder_add (builder, base);
  g_strv_builder_addv (builder, (const char **) build_helpers);
  helper_dirs = g_strv_builder_end (builder);

  /* Empty, then the first half of the real launcher. */
  for (guint i = 0; i < 2; i++)
    {
      g_autoptr (DshLocalProvider) provider = NULL;
      g_autoptr (DshConfinedArgv) confined = NULL;
      g_autoptr (GError) error = NULL;

      g_assert_true (g_file_set_contents (decoy, bytes, i == 0 ? 0 : (gssize) len / 2, NULL));
      g_assert_cmpint (g_chmod (decoy, 0755), ==, 0);
      g_setenv ("DSH_SANDBOX_BACKEND", "landlock", TRUE);
      provider = dsh_local_provider_new_for_dirs ((const char *const *) backend_dirs,
                                                  (const char *const *) helper_dirs);
      confined = dsh_sandbox_provider_confine (DSH_SANDBOX_PROVIDER (provider), argv, policy,
                                               &error);
      g_unsetenv ("DSH_SANDBOX_BACKEND");
      g_assert_null (confined);
      g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_UNAVAILABLE);
      g_assert_nonnull (strstr (error->message, "is no complete program"));
    }
  dsh_test_remove_tree (base);
}

/* A pinned backend is a sole candidate, taken without a probe: the call does not even look for
 * the default probe cache, while an unpinned one keeps it where it always does, inside the
 * record of granted roots. */
static void
test_pinned_backend_skips_probe_cache (void)
{
  g_autofree char *scratch = dsh_test_scratch_dir ("pinned-cache");
  g_autofree char *state = g_build_filename (scratch, "state", NULL);
  g_autofree char *cache = g_build_filename (state, "probe-cache-v5", NULL);
  g_autofree char *state_env = g_strdup_printf ("DSH_SANDBOX_STATE_DIR=%s", state);
  const char *args[] = { dsh_test_cli (), "exec", "--mode", "read-only", "--", "true", NULL };
  const char *pinned[] = { "DSH_SANDBOX_BACKEND=landlock", "DSH_SANDBOX_PROBE_CACHE", state_env,
                           NULL };
  const char *unpinned[] = { "DSH_SANDBOX_BACKEND", "DSH_SANDBOX_PROBE_CACHE", state_env, NULL };

  if (!require_both_backends ())
    return;
  {
    g_auto (DshTestRun) run = { 0 };

    dsh_test_run (&run, args, pinned, "/", NULL);
    g_assert_cmpint (run.exit_code, ==, 0);
    g_assert_false (g_file_test (cache, G_FILE_TEST_EXISTS));
  }
  {
    g_auto (DshTestRun) run = { 0 };

    dsh_test_run (&run, args, unpinned, "/", NULL);
    g_assert_cmpint (run.exit_code, ==, 0);
    g_assert_true (g_file_test (cache, G_FILE_TEST_IS_REGULAR));
  }
  dsh_test_remove_tree (scratch);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/linux-selection/prefers-bwrap", test_prefers_bwrap);
  g_test_add_func ("/linux-selection/helper-must-be-executable", test_helper_must_be_executable);
  g_test_add_func ("/linux-selection/helper-must-be-whole", test_helper_must_be_whole);
  g_test_add_func ("/linux-selection/falls-back-to-landlock", test_falls_back_to_landlock);
  g_test_add_func ("/linux-selection/forced-landlock", test_forced_landlock);
  g_test_add_func ("/linux-selection/no-landlock-is-unavailable", test_no_landlock_is_unavailable);
  g_test_add_func ("/linux-selection/no-landlock-names-errno", test_no_landlock_names_errno);
  g_test_add_func ("/linux-selection/stale-probe-cache", test_stale_probe_cache);
  g_test_add_func ("/linux-selection/cache-never-remembers-a-fallback",
                   test_cache_never_remembers_a_fallback);
  g_test_add_func ("/linux-selection/pinned-backend-skips-probe-cache",
                   test_pinned_backend_skips_probe_cache);

  return g_test_run ();
}
