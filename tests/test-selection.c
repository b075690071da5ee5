/* test-selection.c — backend selection with test-only fake backends steered by the environment:
 * a sole candidate is taken without a probe, a chain is probed in priority order, the choice is
 * cached per provider (also across threads), the probe cache can spare opening the rest of
 * the chain, overrides narrow the chain, and when nothing is usable confine() fails closed with
 * the exact unavailable text.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <glib/gstdio.h>
#include <string.h>
#include <sys/time.h>
#ifdef __linux__
#include <errno.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#endif

#include "dsh-test-util.h"
#include "dsh-test-seed-texts.h"

typedef struct {
  char *modules_dir;
  /* Lines the fake runners append: one per run, probes included. */
  char *log_path;
  char *workspace;
  /* Where the probe cache goes: out of /tmp, which workspace-write calls grant. */
  char *cache_dir;
} Fixture;

/* What steers selection and the fake backends: each test starts and ends with none of it. */
static void
unset_steering (void)
{
  static const char *const names[] = {
    "DSH_SANDBOX_BACKEND", "DSH_SANDBOX_BACKEND_DIR", "DSH_FAKE_ALPHA_BROKEN",
    "DSH_FAKE_BETA_BROKEN", "DSH_FAKE_ALPHA_MISSING", "DSH_FAKE_ALPHA_RUNNER",
    "DSH_FAKE_ALPHA_PUSH",
  };

  for (gsize i = 0; i < G_N_ELEMENTS (names); i++)
    g_unsetenv (names[i]);
}

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  const char *const *names = data;

  /* Not in /tmp: once a workspace-write call has granted it, a module there is refused. */
  f->modules_dir = dsh_test_scratch_dir ("modules");
  f->workspace = dsh_test_make_tmp_dir ();
  f->cache_dir = dsh_test_scratch_dir ("probe-cache");
  f->log_path = g_build_filename (f->workspace, "probe.log", NULL);
  for (gsize i = 0; names != NULL && names[i] != NULL; i++)
    {
      g_autofree char *module = dsh_test_module_path (names[i]);
      g_autofree char *copy = dsh_test_copy_module (module, f->modules_dir);
    }
  g_setenv ("DSH_FAKE_LOG", f->log_path, TRUE);
  unset_steering ();
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  g_unsetenv ("DSH_FAKE_LOG");
  unset_steering ();
  dsh_test_remove_tree (f->modules_dir);
  g_free (f->modules_dir);
  g_free (f->log_path);
  g_free (f->workspace);
  dsh_test_remove_tree (f->cache_dir);
  g_free (f->cache_dir);
}

/* confine() fails closed, with the exact unavailable text for the mode named mode_name. */
static void
assert_fails_closed (Fixture *f, DshSandboxMode mode, const char *mode_name)
{
  g_autoptr (DshLocalProvider) provider = dsh_test_provider_for_dir (f->modules_dir);
  g_autoptr (DshSandboxPolicy) policy = dsh_sandbox_policy_new (mode, f->workspace, NULL);
  g_autoptr (DshConfinedArgv) confined = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *text = g_strdup_printf (SEED_UNAVAILABLE_FMT, mode_name);
  g_autofree char *expected = g_strdup_printf ("%s Cause: ", text);
  const char *argv[] = { "true", NULL };

  confined = dsh_sandbox_provider_confine (DSH_SANDBOX_PROVIDER (provider), argv, policy, &error);
  g_assert_null (confined);
  g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_UNAVAILABLE);
  /* The exact text, then why each candidate was not usable. */
  g_assert_true (g_str_has_prefix (error->message, expected));
  g_assert_cmpuint (strlen (error->message), >, strlen (expected));
}

/* A new provider of the fixture's modules selects `selected` after the fake runners ran what
 * `runs` lists; returns its report. */
static JsonNode *
describe_selection (Fixture *f, const char *selected, const char *runs)
{
  g_autoptr (DshLocalProvider) provider = dsh_test_provider_for_dir (f->modules_dir);

  g_assert_cmpstr (dsh_local_provider_get_selected (provider, NULL), ==, selected);
  dsh_test_assert_log_is (f->log_path, runs);
  return dsh_local_provider_describe (provider);
}

static const char *alpha_only[] = { "fake-alpha", NULL };
static const char *alpha_beta[] = { "fake-alpha", "fake-beta", NULL };
static const char *alpha_misnamed[] = { "fake-alpha", "fake-misnamed", NULL };
static const char *excluding_only[] = { "fake-excluding", NULL };
static const char *abiold_only[] = { "fake-abiold", NULL };
static const char *alpha_emptyexclusion[] = { "fake-alpha", "fake-emptyexclusion", NULL };

static void
test_sole_candidate_not_probed (Fixture *f, gconstpointer data)
{
  g_autoptr (DshLocalProvider) provider = dsh_test_provider_for_dir (f->modules_dir);
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) report = NULL;

  g_assert_cmpstr (dsh_local_provider_get_selected (provider, &error), ==, "fake-alpha");
  g_assert_no_error (error);
  dsh_test_assert_log_is (f->log_path, "");

  report = dsh_local_provider_describe (provider);
  g_assert_cmpstr (dsh_test_candidate_string (report, "fake-alpha", "probe"), ==, "skipped");
}

static void
test_chain_probed_in_priority_order (Fixture *f, gconstpointer data)
{
  g_autoptr (DshLocalProvider) provider = dsh_test_provider_for_dir (f->modules_dir);
  g_autoptr (JsonNode) report = NULL;
  g_auto (GStrv) names = dsh_local_provider_list_backends (provider);

  g_assert_cmpstr (names[0], ==, "fake-alpha");
  g_assert_cmpstr (names[1], ==, "fake-beta");
  g_assert_cmpstr (dsh_local_provider_get_selected (provider, NULL), ==, "fake-alpha");
  /* The first usable candidate ends the chain: beta is never run. */
  dsh_test_assert_log_is (f->log_path, "alpha\n");

  report = dsh_local_provider_describe (provider);
  g_assert_cmpstr (dsh_test_candidate_string (report, "fake-alpha", "probe"), ==, "passed");
  g_assert_cmpstr (dsh_test_candidate_string (report, "fake-beta", "probe"), ==, "not-run");
}

static void
test_failing_probe_falls_through (Fixture *f, gconstpointer data)
{
  g_autoptr (JsonNode) report = NULL;

  g_setenv ("DSH_FAKE_ALPHA_BROKEN", "1", TRUE);
  report = describe_selection (f, "fake-beta", "beta\n");
  g_assert_cmpstr (dsh_test_candidate_string (report, "fake-alpha", "status"), ==, "unusable");
  g_assert_cmpstr (dsh_test_candidate_string (report, "fake-alpha", "probe"), ==, "failed");
  g_assert_nonnull (strstr (dsh_test_candidate_string (report, "fake-alpha", "reason"),
                            "fake-alpha: fatal: broken by the environment"));
}

static void
test_nothing_usable_fails_closed (Fixture *f, gconstpointer data)
{
  g_setenv ("DSH_FAKE_ALPHA_BROKEN", "1", TRUE);
  g_setenv ("DSH_FAKE_BETA_BROKEN", "1", TRUE);
  assert_fails_closed (f, DSH_SANDBOX_MODE_WORKSPACE_WRITE, "workspace-write");
}

static void
test_empty_dir_fails_closed (Fixture *f, gconstpointer data)
{
  assert_fails_closed (f, DSH_SANDBOX_MODE_READ_ONLY, "read-only");
}

static void
test_override_restricts_chain (Fixture *f, gconstpointer data)
{
  g_autoptr (JsonNode) report = NULL;

  g_setenv ("DSH_SANDBOX_BACKEND", "fake-beta", TRUE);
  /* A chain of one is taken without a probe. */
  report = describe_selection (f, "fake-beta", "");
  g_assert_cmpstr (dsh_test_candidate_string (report, "fake-alpha", "status"), ==, "excluded");
}

/* A pinned backend is the only module opened: a file named for another backend is listed, not
 * loaded, so even one that could not be loaded at all is merely excluded. */
static void
test_override_opens_only_the_named_module (Fixture *f, gconstpointer data)
{
  g_autofree char *garbage = g_build_filename (f->modules_dir, "libdsh-backend-fake-gamma.so",
                                               NULL);
  g_autoptr (DshLocalProvider) provider = NULL;
  g_autoptr (JsonNode) report = NULL;
  g_autofree char *text = NULL;

  dsh_test_write_file (garbage, "not an ELF file");
  g_setenv ("DSH_SANDBOX_BACKEND", "fake-beta", TRUE);
  provider = dsh_test_provider_for_dir (f->modules_dir);
  g_assert_cmpstr (dsh_local_provider_get_selected (provider, NULL), ==, "fake-beta");
  report = dsh_local_provider_describe (provider);
  text = json_to_string (report, FALSE);
  dsh_test_assert_valid_json (text, "probe.schema.json");
  for (guint i = 0; i < 2; i++)
    {
      const char *name = i == 0 ? "fake-alpha" : "fake-gamma";

      g_assert_cmpstr (dsh_test_candidate_string (report, name, "status"), ==, "excluded");
      g_assert_cmpstr (dsh_test_candidate_string (report, name, "reason"), ==,
                       "not named by DSH_SANDBOX_BACKEND, so not loaded");
      g_assert_cmpstr (dsh_test_candidate_string (report, name, "probe"), ==, "not-run");
    }

  /* Without the override, the same directory opens every file. */
  g_unsetenv ("DSH_SANDBOX_BACKEND");
  g_clear_object (&provider);
  g_clear_pointer (&report, json_node_unref);
  provider = dsh_test_provider_for_dir (f->modules_dir);
  report = dsh_local_provider_describe (provider);
  g_assert_cmpstr (dsh_test_candidate_string (report, "fake-gamma", "status"), ==, "refused");
  g_assert_cmpstr (dsh_test_candidate_string (report, "fake-alpha", "status"), ==, "selected");
}

/* A pinned backend is found by its file name in each directory in turn, as a scan of them would
 * find it: a refused file there does not hide a good one in a later directory, the first that
 * loads is the one, and one of the same name after it is refused as a second. */
static void
test_override_takes_the_first_loadable_file (Fixture *f, gconstpointer data)
{
  g_autofree char *beta = dsh_test_module_path ("fake-beta");
  g_autofree char *second_dir = dsh_test_scratch_dir ("modules");
  g_autofree char *third_dir = dsh_test_scratch_dir ("modules");
  g_autofree char *refused = dsh_test_copy_module (beta, f->modules_dir);
  g_autofree char *good = dsh_test_copy_module (beta, second_dir);
  g_autofree char *later = dsh_test_copy_module (beta, third_dir);
  const char *dirs[] = { f->modules_dir, second_dir, third_dir, NULL };
  g_autoptr (DshLocalProvider) provider = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) report = NULL;
  JsonObject *entry;

  g_assert_cmpint (g_chmod (refused, 0664), ==, 0);
  g_setenv ("DSH_SANDBOX_BACKEND", "fake-beta", TRUE);
  provider = dsh_local_provider_new_for_dirs (dirs, NULL);
  g_assert_cmpstr (dsh_local_provider_get_selected (provider, &error), ==, "fake-beta");
  g_assert_no_error (error);

  report = dsh_local_provider_describe (provider);
  entry = dsh_test_candidate (report, "path", good);
  g_assert_cmpstr (json_object_get_string_member (entry, "status"), ==, "selected");
  g_assert_cmpstr (json_object_get_string_member (entry, "probe"), ==, "skipped");
  entry = dsh_test_candidate (report, "path", refused);
  g_assert_cmpstr (json_object_get_string_member (entry, "status"), ==, "refused");
  g_assert_nonnull (strstr (json_object_get_string_member (entry, "reason"),
                            "writable by its group"));
  entry = dsh_test_candidate (report, "path", later);
  g_assert_cmpstr (json_object_get_string_member (entry, "status"), ==, "refused");
  g_assert_nonnull (strstr (json_object_get_string_member (entry, "reason"), "already loaded"));
  g_assert_cmpstr (dsh_test_candidate_string (report, "fake-alpha", "status"), ==, "excluded");
  dsh_test_remove_tree (second_dir);
  dsh_test_remove_tree (third_dir);
}

/* A pinned name is a file name, never a path: one with a separator names no module, even where
 * the path it spells leads to one. */
static void
test_override_name_is_no_path (Fixture *f, gconstpointer data)
{
  g_autofree char *alpha = dsh_test_module_path ("fake-alpha");
  g_autofree char *sub = g_build_filename (f->modules_dir, "libdsh-backend-sub", NULL);
  g_autofree char *copy = NULL;
  g_autofree char *renamed = NULL;
  g_autoptr (DshLocalProvider) provider = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (g_mkdir (sub, 0700), ==, 0);
  copy = dsh_test_copy_module (alpha, sub);
  renamed = g_build_filename (sub, "fake-alpha." G_MODULE_SUFFIX, NULL);
  g_assert_cmpint (g_rename (copy, renamed), ==, 0);
  g_setenv ("DSH_SANDBOX_BACKEND", "sub/fake-alpha", TRUE);
  provider = dsh_test_provider_for_dir (f->modules_dir);
  g_assert_null (dsh_local_provider_get_selected (provider, &error));
  g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_UNAVAILABLE);
  g_assert_nonnull (strstr (error->message,
                            "DSH_SANDBOX_BACKEND=sub/fake-alpha names no usable backend module"));
  /* Nothing was opened, so nothing was refused either. */
  g_assert_null (strstr (error->message, "refused"));
  g_assert_cmpint (g_unlink (renamed), ==, 0);
  g_assert_cmpint (g_rmdir (sub), ==, 0);
}

/* Since the override goes by file name, a module whose descriptor names another backend is
 * refused: it could otherwise be selected as one name and be pinned as another. */
static void
test_descriptor_name_must_match_file (Fixture *f, gconstpointer data)
{
  g_autoptr (DshLocalProvider) provider = dsh_test_provider_for_dir (f->modules_dir);
  g_autoptr (JsonNode) report = NULL;

  g_assert_cmpstr (dsh_local_provider_get_selected (provider, NULL), ==, "fake-alpha");
  report = dsh_local_provider_describe (provider);
  g_assert_cmpstr (dsh_test_candidate_string (report, "fake-misnamed", "status"), ==, "refused");
  g_assert_cmpstr (dsh_test_candidate_string (report, "fake-misnamed", "reason"), ==,
                   "the descriptor names the backend \"fake-other\", but the file is named for "
                   "\"fake-misnamed\"");
}

static DshLocalProvider *
new_cached_provider (Fixture *f)
{
  g_autofree char *cache = g_build_filename (f->cache_dir, "probe-cache.ini", NULL);
  DshLocalProvider *provider = dsh_test_provider_for_dir (f->modules_dir);

  dsh_local_provider_set_probe_cache (provider, cache);
  return provider;
}

static const char *
candidate_probe (DshLocalProvider *provider, const char *name)
{
  g_autoptr (JsonNode) report = dsh_local_provider_describe (provider);

  return g_intern_string (dsh_test_candidate_string (report, name, "probe"));
}

/* The probe cache remembers the first candidate whose cheap check passes (a preferred runner
 * that is not installed is checked again on every call, cheaply), never a fallback from a
 * runner that is installed but fails its probe. */
static void
test_probe_cache_skips_missing_runners (Fixture *f, gconstpointer data)
{
  g_autofree char *cache = g_build_filename (f->cache_dir, "probe-cache.ini", NULL);

  g_setenv ("DSH_FAKE_ALPHA_MISSING", "1", TRUE);
  for (guint call = 0; call < 2; call++)
    {
      g_autoptr (DshLocalProvider) provider = new_cached_provider (f);

      g_assert_cmpstr (dsh_local_provider_get_selected (provider, NULL), ==, "fake-beta");
      g_assert_cmpstr (candidate_probe (provider, "fake-beta"), ==, call == 0 ? "passed"
                                                                              : "cached");
      g_assert_cmpstr (candidate_probe (provider, "fake-alpha"), ==, "failed");
    }
  dsh_test_assert_log_is (f->log_path, "beta\n");

  /* The preferred runner is back: the entry for the fallback does not apply to it. */
  g_unsetenv ("DSH_FAKE_ALPHA_MISSING");
  {
    g_autoptr (DshLocalProvider) provider = new_cached_provider (f);

    g_assert_cmpstr (dsh_local_provider_get_selected (provider, NULL), ==, "fake-alpha");
    g_assert_cmpstr (candidate_probe (provider, "fake-alpha"), ==, "passed");
  }

  /* Installed but broken (and no entry for it yet): probed on every call, the fallback never
   * remembered. */
  g_setenv ("DSH_FAKE_ALPHA_BROKEN", "1", TRUE);
  g_assert_true (g_remove (f->log_path) == 0);
  g_assert_true (g_remove (cache) == 0);
  for (guint call = 0; call < 2; call++)
    {
      g_autoptr (DshLocalProvider) provider = new_cached_provider (f);

      g_assert_cmpstr (dsh_local_provider_get_selected (provider, NULL), ==, "fake-beta");
      g_assert_cmpstr (candidate_probe (provider, "fake-beta"), ==, "passed");
    }
  dsh_test_assert_log_is (f->log_path, "beta\nbeta\n");
  g_assert_false (g_file_test (cache, G_FILE_TEST_EXISTS));
}

/* A probe cache beneath the untrusted roots (a confined command could forge it) is neither
 * written nor believed. */
static void
test_probe_cache_in_untrusted_root_unused (Fixture *f, gconstpointer data)
{
  g_autofree char *cache = g_build_filename (f->cache_dir, "probe-cache.ini", NULL);
  const char *untrusted[] = { f->cache_dir, NULL };

  for (guint call = 0; call < 2; call++)
    {
      g_autoptr (DshLocalProvider) provider = new_cached_provider (f);

      dsh_local_provider_set_untrusted_roots (provider, untrusted);
      g_assert_cmpstr (dsh_local_provider_get_selected (provider, NULL), ==, "fake-alpha");
      g_assert_cmpstr (candidate_probe (provider, "fake-alpha"), ==, "passed");
      g_assert_false (g_file_test (cache, G_FILE_TEST_EXISTS));
    }
  dsh_test_assert_log_is (f->log_path, "alpha\nalpha\n");
}

/* One new provider's view of the cache: "cached" when the entry was believed. */
static const char *
cached_probe_of_alpha (Fixture *f)
{
  g_autoptr (DshLocalProvider) provider = new_cached_provider (f);

  g_assert_cmpstr (dsh_local_provider_get_selected (provider, NULL), ==, "fake-alpha");
  return candidate_probe (provider, "fake-alpha");
}

/* Rewrites the stored key with one of its parts replaced, as an entry written under another
 * kernel would read. */
static void
rewrite_cached_key (const char *cache, const char *prefix, const char *replacement)
{
  g_autofree char *text = dsh_test_read_file (cache);
  char *start = strstr (text, prefix);
  char *end;
  g_autoptr (GString) forged = g_string_new (NULL);

  g_assert_nonnull (start);
  end = strchr (start, ';');
  g_assert_nonnull (end);
  g_string_append_len (forged, text, start - text);
  g_string_append (forged, replacement);
  g_string_append (forged, end);
  g_assert_true (g_file_set_contents (cache, forged->str, -1, NULL));
  g_assert_cmpint (g_chmod (cache, 0600), ==, 0);
}

static void
set_times (const char *path, gint64 seconds_ago)
{
  struct timeval times[2];

  times[0].tv_sec = times[1].tv_sec = (time_t) (g_get_real_time () / G_USEC_PER_SEC -
                                                seconds_ago);
  times[0].tv_usec = times[1].tv_usec = 0;
  g_assert_cmpint (utimes (path, times), ==, 0);
}

/* The entry does not age: it holds while what the probe depends on is unchanged (host, module
 * files, the runner file the check found), and any change to one of those invalidates it. */
static void
test_probe_cache_keyed_by_dependencies (Fixture *f, gconstpointer data)
{
  g_autofree char *cache = g_build_filename (f->cache_dir, "probe-cache.ini", NULL);
  /* Outside /tmp, which workspace-write calls grant: a runner there is no runner. */
  g_autofree char *bin = dsh_test_scratch_dir ("runner-bin");
  g_autofree char *runner = g_build_filename (bin, "dsh-fake-runner", NULL);
  g_autofree char *replacement = g_build_filename (bin, "replacement", NULL);
  g_autofree char *module = g_build_filename (f->modules_dir, "libdsh-backend-fake-alpha.so", NULL);
  g_autofree char *path = g_strdup_printf ("%s:%s", bin, g_getenv ("PATH"));
  g_autofree char *old_path = g_strdup (g_getenv ("PATH"));
  g_autofree char *entry = NULL;

  g_assert_true (g_file_set_contents (runner, "#!/bin/sh\n", -1, NULL));
  g_assert_cmpint (g_chmod (runner, 0755), ==, 0);
  g_assert_true (g_file_test (module, G_FILE_TEST_EXISTS));
  g_setenv ("PATH", path, TRUE);
  g_setenv ("DSH_FAKE_ALPHA_RUNNER", "dsh-fake-runner", TRUE);

  g_assert_cmpstr (cached_probe_of_alpha (f), ==, "passed");
  g_assert_cmpstr (cached_probe_of_alpha (f), ==, "cached");
  entry = dsh_test_read_file (cache);
  g_assert_nonnull (strstr (entry, runner));

  /* Unchanged for a year (the entry carries no time, and nothing else it names moved). */
  set_times (cache, 365 * 24 * 3600);
  g_assert_cmpstr (cached_probe_of_alpha (f), ==, "cached");

  /* The runner file touched (mtime), then its inode changed only (ctime, same mode). */
  set_times (runner, 3600);
  g_assert_cmpstr (cached_probe_of_alpha (f), ==, "passed");
  g_assert_cmpstr (cached_probe_of_alpha (f), ==, "cached");
  g_usleep (20 * 1000);
  g_assert_cmpint (g_chmod (runner, 0755), ==, 0);
  g_assert_cmpstr (cached_probe_of_alpha (f), ==, "passed");
  g_assert_cmpstr (cached_probe_of_alpha (f), ==, "cached");

  /* Rewritten with another size, then replaced by another file with the same content. */
  g_assert_true (g_file_set_contents (runner, "#!/bin/sh\n# rewritten\n", -1, NULL));
  g_assert_cmpint (g_chmod (runner, 0755), ==, 0);
  g_assert_cmpstr (cached_probe_of_alpha (f), ==, "passed");
  g_assert_cmpstr (cached_probe_of_alpha (f), ==, "cached");
  g_assert_true (g_file_set_contents (replacement, "#!/bin/sh\n# rewritten\n", -1, NULL));
  g_assert_cmpint (g_chmod (replacement, 0755), ==, 0);
  g_assert_cmpint (g_rename (replacement, runner), ==, 0);
  g_assert_cmpstr (cached_probe_of_alpha (f), ==, "passed");
  g_assert_cmpstr (cached_probe_of_alpha (f), ==, "cached");

  /* A module file of the chain touched. */
  set_times (module, 7200);
  g_assert_cmpstr (cached_probe_of_alpha (f), ==, "passed");
  g_assert_cmpstr (cached_probe_of_alpha (f), ==, "cached");

  /* An entry written under another kernel release, or another Landlock ABI. */
  rewrite_cached_key (cache, "kernel=", "kernel=0.0.0-other");
  g_assert_cmpstr (cached_probe_of_alpha (f), ==, "passed");
  g_assert_cmpstr (cached_probe_of_alpha (f), ==, "cached");
  rewrite_cached_key (cache, "landlock=", "landlock=99");
  g_assert_cmpstr (cached_probe_of_alpha (f), ==, "passed");
  g_assert_cmpstr (cached_probe_of_alpha (f), ==, "cached");

  g_setenv ("PATH", old_path, TRUE);
  dsh_test_remove_tree (bin);
}

/* Is a module named name mapped into this process (its sealed copy, "memfd:dsh-backend-NAME")? */
static gboolean
module_is_mapped (const char *name)
{
  g_autofree char *maps = dsh_test_read_file ("/proc/self/maps");
  g_autofree char *needle = g_strdup_printf ("memfd:dsh-backend-%s ", name);

  g_assert_nonnull (maps);
  return strstr (maps, needle) != NULL;
}

/* A cache entry whose candidate heads the chain lets the next provider open that module alone;
 * whatever wants the whole chain (a report, the list of backends) still gets all of it. */
static void
test_probe_cache_opens_only_the_cached_head (Fixture *f, gconstpointer data)
{

  {
    g_autoptr (DshLocalProvider) provider = new_cached_provider (f);

    g_assert_cmpstr (dsh_local_provider_get_selected (provider, NULL), ==, "fake-alpha");
    g_assert_true (module_is_mapped ("fake-beta"));
  }
  g_assert_false (module_is_mapped ("fake-alpha"));
  for (guint call = 0; call < 2; call++)
    {
      g_autoptr (DshLocalProvider) provider = new_cached_provider (f);
      g_autoptr (DshSandboxPolicy) policy = dsh_sandbox_policy_new (DSH_SANDBOX_MODE_READ_ONLY,
                                                                    "/", NULL);
      g_autoptr (DshConfinedArgv) confined = NULL;
      g_auto (GStrv) names = NULL;
      const char *argv[] = { "true", NULL };

      confined = dsh_sandbox_provider_confine (DSH_SANDBOX_PROVIDER (provider), argv, policy,
                                               NULL);
      g_assert_nonnull (confined);
      g_assert_cmpstr (dsh_confined_argv_get_backend (confined), ==, "fake-alpha");
      g_assert_true (module_is_mapped ("fake-alpha"));
      g_assert_false (module_is_mapped ("fake-beta"));

      names = dsh_local_provider_list_backends (provider);
      g_assert_cmpuint (g_strv_length (names), ==, 2);
      g_assert_cmpstr (names[0], ==, "fake-alpha");
      g_assert_cmpstr (names[1], ==, "fake-beta");
      g_assert_true (module_is_mapped ("fake-beta"));
      g_assert_cmpstr (candidate_probe (provider, "fake-alpha"), ==, "cached");
      g_assert_cmpstr (candidate_probe (provider, "fake-beta"), ==, "not-run");
      /* The selection made with one module holds once the chain is complete. */
      g_clear_object (&confined);
      confined = dsh_sandbox_provider_confine (DSH_SANDBOX_PROVIDER (provider), argv, policy,
                                               NULL);
      g_assert_cmpstr (dsh_confined_argv_get_backend (confined), ==, "fake-alpha");
    }
  dsh_test_assert_log_is (f->log_path, "alpha\n");
}

/* Opened alone from the cache, the head's module: NULL when the whole chain was opened. */
static const char *
selected_alone (Fixture *f)
{
  g_autoptr (DshLocalProvider) provider = new_cached_provider (f);
  const char *selected = dsh_local_provider_get_selected (provider, NULL);

  return module_is_mapped ("fake-beta") ? NULL : selected;
}

/* Any change to the chain's files since the entry was written (one touched, one added, one
 * removed), a failing check of the head or a forged chain opens every module again. */
static void
test_probe_cache_changed_chain_opens_all (Fixture *f, gconstpointer data)
{
  g_autofree char *cache = g_build_filename (f->cache_dir, "probe-cache.ini", NULL);
  g_autofree char *beta = g_build_filename (f->modules_dir, "libdsh-backend-fake-beta.so", NULL);
  g_autofree char *gamma = g_build_filename (f->modules_dir, "libdsh-backend-fake-gamma.so",
                                             NULL);
  g_autofree char *moved = g_build_filename (f->workspace, "libdsh-backend-fake-beta.so", NULL);
  g_autofree char *entry = NULL;

  g_assert_null (selected_alone (f));
  g_assert_cmpstr (selected_alone (f), ==, "fake-alpha");

  /* A module file of the chain that the head's call never opens, touched: a new probe. */
  set_times (beta, 3600);
  g_assert_null (selected_alone (f));
  g_assert_cmpstr (selected_alone (f), ==, "fake-alpha");
  dsh_test_assert_log_is (f->log_path, "alpha\nalpha\n");

  /* A module file added (even one that cannot load), then one removed. */
  dsh_test_write_file (gamma, "not an ELF file");
  g_assert_null (selected_alone (f));
  g_assert_null (selected_alone (f));
  g_assert_true (g_remove (gamma) == 0);
  g_assert_cmpstr (selected_alone (f), ==, "fake-alpha");
  g_assert_cmpint (g_rename (beta, moved), ==, 0);
  {
    g_autoptr (DshLocalProvider) provider = new_cached_provider (f);

    /* A chain of one now: taken without the cache, as a sole candidate. */
    g_assert_cmpstr (dsh_local_provider_get_selected (provider, NULL), ==, "fake-alpha");
    g_assert_cmpstr (candidate_probe (provider, "fake-alpha"), ==, "skipped");
  }
  /* Back in place, but renamed twice (its ctime moved): probed again, once. */
  g_assert_cmpint (g_rename (moved, beta), ==, 0);
  g_assert_null (selected_alone (f));
  g_assert_cmpstr (selected_alone (f), ==, "fake-alpha");

  /* The head's check fails: the chain is opened and the next candidate probed. */
  g_setenv ("DSH_FAKE_ALPHA_MISSING", "1", TRUE);
  {
    g_autoptr (DshLocalProvider) provider = new_cached_provider (f);

    g_assert_cmpstr (dsh_local_provider_get_selected (provider, NULL), ==, "fake-beta");
    g_assert_true (module_is_mapped ("fake-beta"));
  }
  g_unsetenv ("DSH_FAKE_ALPHA_MISSING");
  g_assert_null (selected_alone (f));
  g_assert_cmpstr (selected_alone (f), ==, "fake-alpha");

  /* A chain that lists one file twice, or the files in another order than the key: no match.
   * The same entry written with the chain as it is matches again. */
  entry = dsh_test_read_file (cache);
  g_assert_nonnull (strstr (entry, "\nchain "));
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *alpha = g_build_filename (f->modules_dir, "libdsh-backend-fake-alpha.so",
                                                 NULL);
      g_autofree char *key = g_strndup (entry, strstr (entry, "\nchain ") + 1 - entry);
      const char *first = i == 1 ? beta : alpha;
      const char *second = i == 2 ? beta : alpha;
      g_autofree char *forged = g_strdup_printf ("%schain %zu\n%s\nchain %zu\n%s\n", key,
                                                 strlen (first), first, strlen (second), second);

      g_assert_true (g_file_set_contents (cache, forged, -1, NULL));
      g_assert_cmpint (g_chmod (cache, 0600), ==, 0);
      if (i < 2)
        g_assert_null (selected_alone (f));
      else
        g_assert_cmpstr (selected_alone (f), ==, "fake-alpha");
    }
}

#ifdef __linux__
/* From here on, this process cannot read a directory: getdents fails with EPERM. */
static void
deny_directory_listing (void)
{
  struct sock_filter filter[] = {
    BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, nr)),
    BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, __NR_getdents64, 2, 0),
#ifdef __NR_getdents
    BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, __NR_getdents, 1, 0),
#else
    BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, __NR_getdents64, 1, 0),
#endif
    BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
  };
  struct sock_fprog program = { G_N_ELEMENTS (filter), filter };

  g_assert_cmpint (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), ==, 0);
  g_assert_cmpint (prctl (PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program), ==, 0);
}

/* Module directories left alone since the entry's scan are not read again: their identities
 * (recorded only for directories whose entries had not changed for a few seconds, so that a
 * coarse clock cannot hide a change) vouch for the files. The cached call succeeds where no
 * directory can be listed at all. */
static void
test_probe_cache_unchanged_dirs_not_listed (Fixture *f, gconstpointer data)
{
  g_autofree char *cache = g_build_filename (f->cache_dir, "probe-cache.ini", NULL);
  g_autofree char *entry = NULL;

  if (!g_test_subprocess ())
    {
      g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
      g_test_trap_assert_passed ();
      return;
    }

  /* Just changed, the directory's times vouch for nothing yet. */
  set_times (f->modules_dir, 0);
  g_assert_null (selected_alone (f));
  entry = dsh_test_read_file (cache);
  g_assert_null (strstr (entry, "\ndir "));

  /* Left alone long enough, a listing that finds the entry's files adds their identities... */
  set_times (f->modules_dir, 3600);
  g_assert_cmpstr (selected_alone (f), ==, "fake-alpha");
  g_clear_pointer (&entry, g_free);
  entry = dsh_test_read_file (cache);
  g_assert_nonnull (strstr (entry, "\ndir "));
  /* ...as the probe that writes a new entry does. */
  g_assert_cmpint (g_unlink (cache), ==, 0);
  g_assert_null (selected_alone (f));
  g_clear_pointer (&entry, g_free);
  entry = dsh_test_read_file (cache);
  g_assert_nonnull (strstr (entry, "\ndir "));

  deny_directory_listing ();
  {
    g_autoptr (GDir) dir = g_dir_open (f->modules_dir, 0, NULL);

    /* The filter holds: a listing finds nothing. */
    g_assert_nonnull (dir);
    g_assert_null (g_dir_read_name (dir));
  }
  g_assert_cmpstr (selected_alone (f), ==, "fake-alpha");
}

/* A file added to a directory whose times are then put back is still noticed (its ctime moved),
 * and an entry whose chain names a module file outside the module directories is never opened
 * from there, whatever directory identities it carries. */
static void
test_probe_cache_dir_identity_holds (Fixture *f, gconstpointer data)
{
  g_autofree char *cache = g_build_filename (f->cache_dir, "probe-cache.ini", NULL);
  g_autofree char *gamma = g_build_filename (f->modules_dir, "libdsh-backend-fake-gamma.so",
                                             NULL);
  g_autofree char *hooked = dsh_test_module_path ("hooked");
  g_autofree char *outside = dsh_test_copy_module (hooked, f->workspace);
  g_autofree char *instance_log = g_build_filename (f->workspace, "instances.log", NULL);
  g_autofree char *beta = g_build_filename (f->modules_dir, "libdsh-backend-fake-beta.so", NULL);
  g_autofree char *entry = NULL;
  g_autofree char *forged = NULL;
  const char *chain_at;
  const char *dirs_at;

  set_times (f->modules_dir, 3600);
  g_assert_null (selected_alone (f));
  g_assert_cmpstr (selected_alone (f), ==, "fake-alpha");

  dsh_test_write_file (gamma, "not an ELF file");
  set_times (f->modules_dir, 3600);
  g_assert_null (selected_alone (f));
  g_assert_null (selected_alone (f));
  g_assert_cmpint (g_unlink (gamma), ==, 0);
  set_times (f->modules_dir, 3600);
  g_assert_cmpint (g_unlink (cache), ==, 0);
  g_assert_null (selected_alone (f));
  g_assert_cmpstr (selected_alone (f), ==, "fake-alpha");

  /* The same entry with a head from outside the directories: listed, found wanting, and the
   * whole chain opened from the directories. */
  entry = dsh_test_read_file (cache);
  chain_at = strstr (entry, "\nchain ");
  dirs_at = strstr (entry, "\ndir ");
  g_assert_nonnull (chain_at);
  g_assert_nonnull (dirs_at);
  forged = g_strdup_printf ("%.*schain %zu\n%s\nchain %zu\n%s\n%s", (int) (chain_at + 1 - entry),
                            entry, strlen (outside), outside, strlen (beta), beta, dirs_at + 1);
  g_assert_true (g_file_set_contents (cache, forged, -1, NULL));
  g_assert_cmpint (g_chmod (cache, 0600), ==, 0);
  /* The outside module would log its instance as soon as its check ran. */
  g_setenv ("DSH_FAKE_INSTANCE_LOG", instance_log, TRUE);
  g_assert_null (selected_alone (f));
  g_unsetenv ("DSH_FAKE_INSTANCE_LOG");
  g_assert_false (g_file_test (instance_log, G_FILE_TEST_EXISTS));
}
#endif

/* The runner confine() names is the one the check found (and the probe ran): the provider does
 * not search for it again, so a runner put earlier on PATH since is not picked up by this
 * provider, only by a new one. */
static void
test_confine_names_the_checked_runner (Fixture *f, gconstpointer data)
{
  /* Outside /tmp, which workspace-write calls grant: a runner there is no runner. */
  g_autofree char *first_dir = dsh_test_scratch_dir ("runner-first");
  g_autofree char *later_dir = dsh_test_scratch_dir ("runner-later");
  g_autofree char *first = g_build_filename (first_dir, "dsh-fake-runner", NULL);
  g_autofree char *later = g_build_filename (later_dir, "dsh-fake-runner", NULL);
  g_autofree char *old_path = g_strdup (g_getenv ("PATH"));
  g_autofree char *path = g_strdup_printf ("%s:%s", first_dir, old_path);
  g_autofree char *later_path = g_strdup_printf ("%s:%s", later_dir, path);
  g_autoptr (DshSandboxPolicy) policy = dsh_sandbox_policy_new (DSH_SANDBOX_MODE_READ_ONLY, "/",
                                                                NULL);
  g_autoptr (DshLocalProvider) provider = NULL;
  const char *argv[] = { "true", NULL };

  for (guint i = 0; i < 2; i++)
    {
      const char *runner = i == 0 ? first : later;

      g_assert_true (g_file_set_contents (runner, "#!/bin/sh\n", -1, NULL));
      g_assert_cmpint (g_chmod (runner, 0755), ==, 0);
    }
  g_setenv ("PATH", path, TRUE);
  g_setenv ("DSH_FAKE_ALPHA_RUNNER", "dsh-fake-runner", TRUE);
  provider = dsh_test_provider_for_dir (f->modules_dir);
  g_assert_cmpstr (dsh_local_provider_get_selected (provider, NULL), ==, "fake-alpha");

  g_setenv ("PATH", later_path, TRUE);
  for (guint i = 0; i < 2; i++)
    {
      g_autoptr (DshLocalProvider) fresh = dsh_test_provider_for_dir (f->modules_dir);
      g_autoptr (DshConfinedArgv) confined = dsh_sandbox_provider_confine (
        DSH_SANDBOX_PROVIDER (i == 0 ? provider : fresh), argv, policy, NULL);
      const char *const *wrapped = dsh_confined_argv_get_argv (confined);

      g_assert_cmpuint (g_strv_length ((char **) wrapped), >, 3);
      g_assert_cmpstr (wrapped[3], ==, i == 0 ? first : later);
    }

  g_setenv ("PATH", old_path, TRUE);
  dsh_test_remove_tree (first_dir);
  dsh_test_remove_tree (later_dir);
}

/* A runner someone else may rewrite (group- or world-writable, or in such a directory) decides
 * what a confined call really runs: refused like such a module, with the reason, and checked
 * again on every call, since a chmod starts no new generation. */
static void
test_untrusted_runner_refused (Fixture *f, gconstpointer data)
{
  g_autofree char *dir = dsh_test_scratch_dir ("runner-untrusted");
  g_autofree char *runner = g_build_filename (dir, "dsh-fake-runner", NULL);
  g_autofree char *old_path = g_strdup (g_getenv ("PATH"));
  g_autofree char *path = g_strdup_printf ("%s:%s", dir, old_path);
  g_autoptr (DshSandboxPolicy) policy = dsh_sandbox_policy_new (DSH_SANDBOX_MODE_READ_ONLY, "/",
                                                                NULL);
  g_autoptr (DshLocalProvider) provider = NULL;
  g_autoptr (DshConfinedArgv) confined = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) report = NULL;
  const char *argv[] = { "true", NULL };

  g_assert_cmpint (g_chmod (dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (runner, "#!/bin/sh\n", -1, NULL));
  g_assert_cmpint (g_chmod (runner, 0757), ==, 0);
  g_setenv ("PATH", path, TRUE);
  g_setenv ("DSH_FAKE_ALPHA_RUNNER", "dsh-fake-runner", TRUE);

  /* Found but refused: alpha is unusable, and says why. */
  report = describe_selection (f, "fake-beta", "beta\n");
  g_assert_nonnull (strstr (dsh_test_candidate_string (report, "fake-alpha", "reason"),
                            "dsh-fake-runner is writable by others (mode 0757)"));

  /* The directory counts as the file does. */
  g_assert_cmpint (g_chmod (runner, 0755), ==, 0);
  g_assert_cmpint (g_chmod (dir, 0775), ==, 0);
  g_clear_pointer (&report, json_node_unref);
  g_unlink (f->log_path);
  report = describe_selection (f, "fake-beta", "beta\n");
  g_assert_nonnull (strstr (dsh_test_candidate_string (report, "fake-alpha", "reason"),
                            "is writable by its group (mode 0775)"));
  g_assert_cmpint (g_chmod (dir, 0755), ==, 0);

  /* Selected while trusted, then opened to others: the next call of that provider is not
   * handed the file its check found (this fake goes on without it), and is again once the mode
   * is fixed. */
  provider = dsh_test_provider_for_dir (f->modules_dir);
  g_assert_cmpstr (dsh_local_provider_get_selected (provider, NULL), ==, "fake-alpha");
  for (guint i = 0; i < 2; i++)
    {
      const char *const *wrapped;

      g_assert_cmpint (g_chmod (runner, i == 0 ? 0775 : 0755), ==, 0);
      g_clear_object (&confined);
      confined = dsh_sandbox_provider_confine (DSH_SANDBOX_PROVIDER (provider), argv, policy,
                                               &error);
      g_assert_no_error (error);
      wrapped = dsh_confined_argv_get_argv (confined);
      g_assert_cmpuint (g_strv_length ((char **) wrapped), >, 3);
      if (i == 0)
        g_assert_cmpstr (wrapped[3], ==, "fake-alpha");
      else
        g_assert_cmpstr (wrapped[3], ==, runner);
    }

  g_setenv ("PATH", old_path, TRUE);
  dsh_test_remove_tree (dir);
}

/* A runner that cannot start would not fail to: an empty one runs as an empty shell script
 * (exit 0), a cut-short ELF file crashes (139), and either status would pass for the
 * command's own. Both are refused with that cause; a script runner is a program like any. */
static void
test_cut_runner_refused (Fixture *f, gconstpointer data)
{
  g_autofree char *dir = dsh_test_scratch_dir ("runner-cut");
  g_autofree char *runner = g_build_filename (dir, "dsh-fake-runner", NULL);
  g_autofree char *old_path = g_strdup (g_getenv ("PATH"));
  g_autofree char *path = g_strdup_printf ("%s:%s", dir, old_path);
  g_autofree char *true_path = g_find_program_in_path ("true");
  g_autofree char *elf = NULL;
  gsize elf_len = 0;

  g_assert_nonnull (true_path);
  g_assert_true (g_file_get_contents (true_path, &elf, &elf_len, NULL));
  g_assert_cmpint (g_chmod (dir, 0755), ==, 0);
  g_setenv ("PATH", path, TRUE);
  g_setenv ("DSH_FAKE_ALPHA_RUNNER", "dsh-fake-runner", TRUE);

  for (guint i = 0; i < 3; i++)
    {
      g_autoptr (JsonNode) report = NULL;

      if (i == 0)
        g_assert_true (g_file_set_contents (runner, "", 0, NULL));
      else if (i == 1)
        g_assert_true (g_file_set_contents (runner, elf, (gssize) elf_len / 2, NULL));
      else
        g_assert_true (g_file_set_contents (runner, "#!/bin/sh\n", -1, NULL));
      g_assert_cmpint (g_chmod (runner, 0755), ==, 0);
      g_unlink (f->log_path);
      if (i < 2)
        {
          report = describe_selection (f, "fake-beta", "beta\n");
          g_assert_nonnull (strstr (dsh_test_candidate_string (report, "fake-alpha", "reason"),
                                    "dsh-fake-runner is no complete program"));
        }
      else
        {
          report = describe_selection (f, "fake-alpha", "alpha\n");
        }
    }

  g_setenv ("PATH", old_path, TRUE);
  dsh_test_remove_tree (dir);
}

/* A module that claims success (full enforcement by default) but pushed nothing, the command
 * unwrapped, or a runner with another command: its argv is refused, never run. */
static void
test_argv_must_wrap_the_command (Fixture *f, gconstpointer data)
{
  static const char *const pushes[] = { "nothing", "raw", "other" };
  static const char *const causes[] = { "does not wrap the command", "does not wrap the command",
                                        "does not end with the command" };
  g_autoptr (DshSandboxPolicy) policy = dsh_sandbox_policy_new (DSH_SANDBOX_MODE_READ_ONLY, "/",
                                                                NULL);
  const char *argv[] = { "echo", "hi", NULL };

  for (gsize i = 0; i < G_N_ELEMENTS (pushes); i++)
    {
      g_autoptr (DshLocalProvider) provider = dsh_test_provider_for_dir (f->modules_dir);
      g_autoptr (DshConfinedArgv) confined = NULL;
      g_autoptr (GError) error = NULL;

      g_setenv ("DSH_FAKE_ALPHA_PUSH", pushes[i], TRUE);
      confined = dsh_sandbox_provider_confine (DSH_SANDBOX_PROVIDER (provider), argv, policy,
                                               &error);
      g_assert_null (confined);
      g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_UNAVAILABLE);
      g_assert_nonnull (strstr (error->message, causes[i]));
    }
  g_unsetenv ("DSH_FAKE_ALPHA_PUSH");
}

static void
test_override_unknown_name (Fixture *f, gconstpointer data)
{
  g_autoptr (DshLocalProvider) provider = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) report = NULL;

  g_setenv ("DSH_SANDBOX_BACKEND", "no-such-backend", TRUE);
  provider = dsh_test_provider_for_dir (f->modules_dir);
  g_assert_null (dsh_local_provider_get_selected (provider, &error));
  g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_UNAVAILABLE);
  report = dsh_local_provider_describe (provider);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (report), "error"), ==,
                   "DSH_SANDBOX_BACKEND=no-such-backend names no usable backend module");
}

static void
test_override_help (Fixture *f, gconstpointer data)
{
  if (g_test_subprocess ())
    {
      g_autoptr (DshLocalProvider) provider = NULL;

      g_setenv ("DSH_SANDBOX_BACKEND", "help", TRUE);
      provider = dsh_test_provider_for_dir (f->modules_dir);
      /* help lists the choices, then the normal chain applies. */
      g_assert_cmpstr (dsh_local_provider_get_selected (provider, NULL), ==, "fake-alpha");
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stderr ("*DSH_SANDBOX_BACKEND*fake-alpha - test-only fake backend alpha*"
                             "fake-beta - test-only fake backend beta*");
}

static void
test_backend_dir_env_replaces_dirs (Fixture *f, gconstpointer data)
{
  const char *dirs[] = { "/nonexistent-dsh-modules", NULL };
  /* Out of /tmp, which the process's earlier workspace-write calls granted: an overriding
   * directory beneath a granted one is refused (test-reach-around). */
  g_autofree char *override = dsh_test_scratch_dir ("override");
  g_autofree char *module = dsh_test_module_path ("fake-alpha");
  g_autofree char *copy = dsh_test_copy_module (module, override);
  g_autoptr (DshLocalProvider) provider = NULL;

  g_setenv ("DSH_SANDBOX_BACKEND_DIR", override, TRUE);
  provider = dsh_local_provider_new_for_dirs (dirs, NULL);
  g_assert_cmpstr (dsh_local_provider_get_selected (provider, NULL), ==, "fake-alpha");
  dsh_test_remove_tree (override);
}

static void
test_selection_cached_per_provider (Fixture *f, gconstpointer data)
{
  g_autoptr (DshLocalProvider) provider = dsh_test_provider_for_dir (f->modules_dir);
  g_autoptr (DshLocalProvider) reloaded = NULL;

  g_assert_cmpstr (dsh_local_provider_get_selected (provider, NULL), ==, "fake-alpha");
  g_setenv ("DSH_FAKE_ALPHA_BROKEN", "1", TRUE);
  /* The same provider keeps its choice and probes nothing more... */
  g_assert_cmpstr (dsh_local_provider_get_selected (provider, NULL), ==, "fake-alpha");
  dsh_test_assert_log_is (f->log_path, "alpha\n");
  /* ...while a new provider lifetime rescans and re-probes. */
  reloaded = dsh_test_provider_for_dir (f->modules_dir);
  g_assert_cmpstr (dsh_local_provider_get_selected (reloaded, NULL), ==, "fake-beta");
}

static gpointer
confine_in_thread (gpointer data)
{
  DshLocalProvider *provider = data;
  g_autoptr (DshSandboxPolicy) policy = dsh_sandbox_policy_new (DSH_SANDBOX_MODE_READ_ONLY, "/",
                                                                NULL);
  const char *argv[] = { "true", NULL };
  DshConfinedArgv *confined;

  confined = dsh_sandbox_provider_confine (DSH_SANDBOX_PROVIDER (provider), argv, policy, NULL);
  return confined;
}

static void
test_selection_thread_safe (Fixture *f, gconstpointer data)
{
  g_autoptr (DshLocalProvider) provider = dsh_test_provider_for_dir (f->modules_dir);
  GThread *threads[8];

  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    threads[i] = g_thread_new ("confine", confine_in_thread, provider);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    {
      g_autoptr (DshConfinedArgv) confined = g_thread_join (threads[i]);

      g_assert_nonnull (confined);
      g_assert_cmpstr (dsh_confined_argv_get_backend (confined), ==, "fake-alpha");
    }
  /* Eight concurrent first calls, one probe. */
  dsh_test_assert_log_is (f->log_path, "alpha\n");
}

static void
test_confined_argv_outlives_provider (Fixture *f, gconstpointer data)
{
  DshLocalProvider *provider = dsh_test_provider_for_dir (f->modules_dir);
  g_autoptr (DshSandboxPolicy) policy = NULL;
  g_autoptr (DshConfinedArgv) confined = NULL;
  const char *argv[] = { "echo", "hello", NULL };
  const char *const *wrapped;
  guint n;

  policy = dsh_sandbox_policy_new (DSH_SANDBOX_MODE_WORKSPACE_WRITE, f->workspace, NULL);
  confined = dsh_sandbox_provider_confine (DSH_SANDBOX_PROVIDER (provider), argv, policy, NULL);
  g_assert_nonnull (confined);
  /* Dropping the provider closes the module; the result copied everything it needs. */
  g_object_unref (provider);

  wrapped = dsh_confined_argv_get_argv (confined);
  n = g_strv_length ((char **) wrapped);
  g_assert_cmpuint (n, >, 2);
  g_assert_cmpstr (wrapped[0], ==, "/bin/sh");
  g_assert_cmpstr (wrapped[n - 2], ==, "echo");
  g_assert_cmpstr (wrapped[n - 1], ==, "hello");
  g_assert_cmpint (dsh_confined_argv_get_enforcement (confined), ==, DSH_ENFORCEMENT_PARTIAL);
  g_assert_cmpstr (dsh_confined_argv_get_reasons (confined)[0], ==,
                   "the fake backend enforces nothing");
  g_assert_cmpstr (dsh_confined_argv_get_denial_signatures (confined)[0], ==,
                   "fake: denied by policy");
  g_assert_cmpuint (dsh_confined_argv_get_runner_failure_rules (confined)->len, ==, 1);
}

static GStrv
confined_exclusions (Fixture *f, const char *backend)
{
  g_autoptr (DshLocalProvider) provider = dsh_test_provider_for_dir (f->modules_dir);
  g_autoptr (DshConfinedArgv) confined = dsh_test_confine_true (provider, f->workspace);

  g_assert_cmpstr (dsh_confined_argv_get_backend (confined), ==, backend);
  return g_strdupv ((char **) dsh_confined_argv_get_denial_exclusions (confined));
}

/* A 1.1 module's denial exclusions reach the result; the same bytes in a 1.0 module's padding
 * are never read. */
static void
test_denial_exclusions_gated_by_abi (Fixture *f, gconstpointer data)
{
  g_auto (GStrv) exclusions = NULL;

  if (data == excluding_only)
    {
      exclusions = confined_exclusions (f, "fake-excluding");
      g_assert_cmpuint (g_strv_length (exclusions), ==, 1);
      g_assert_cmpstr (exclusions[0], ==, "fake: denied by policy (login)");
    }
  else
    {
      exclusions = confined_exclusions (f, "fake-abiold");
      g_assert_cmpuint (g_strv_length (exclusions), ==, 0);
    }
}

/* An empty exclusion would match nothing and says the module's data is wrong. */
static void
test_empty_denial_exclusion_refused (Fixture *f, gconstpointer data)
{
  g_autoptr (DshLocalProvider) provider = dsh_test_provider_for_dir (f->modules_dir);
  g_autoptr (JsonNode) report = dsh_local_provider_describe (provider);

  g_assert_cmpstr (dsh_test_candidate_string (report, "fake-emptyexclusion", "status"), ==,
                   "refused");
  g_assert_cmpstr (dsh_test_candidate_string (report, "fake-emptyexclusion", "reason"), ==,
                   "the descriptor has an empty denial exclusion");
}

static void
test_refuses_unconfined_requests (Fixture *f, gconstpointer data)
{
  g_autoptr (DshLocalProvider) provider = dsh_test_provider_for_dir (f->modules_dir);
  g_autoptr (DshSandboxPolicy) danger = NULL;
  g_autoptr (DshSandboxPolicy) relative = NULL;
  g_autoptr (DshSandboxPolicy) ro = NULL;
  g_autoptr (GError) error = NULL;
  const char *argv[] = { "true", NULL };
  const char *empty[] = { NULL };
  const char *empty_program[] = { "", NULL };

  danger = dsh_sandbox_policy_new (DSH_SANDBOX_MODE_DANGER_FULL_ACCESS, f->workspace, NULL);
  g_assert_null (dsh_sandbox_provider_confine (DSH_SANDBOX_PROVIDER (provider), argv, danger,
                                               &error));
  g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  ro = dsh_sandbox_policy_new (DSH_SANDBOX_MODE_READ_ONLY, f->workspace, NULL);
  g_assert_null (dsh_sandbox_provider_confine (DSH_SANDBOX_PROVIDER (provider), empty, ro,
                                               &error));
  g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_null (dsh_sandbox_provider_confine (DSH_SANDBOX_PROVIDER (provider), empty_program,
                                               ro, &error));
  g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  relative = dsh_sandbox_policy_new (DSH_SANDBOX_MODE_READ_ONLY, "relative/dir", NULL);
  g_assert_null (dsh_sandbox_provider_confine (DSH_SANDBOX_PROVIDER (provider), argv, relative,
                                               &error));
  g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT);
}

/* A provider that neither confines nor explains. */
typedef struct {
  DshSandboxProvider parent;
} SilentProvider;
typedef struct {
  DshSandboxProviderClass parent_class;
} SilentProviderClass;

static GType silent_provider_get_type (void);
G_DEFINE_TYPE (SilentProvider, silent_provider, DSH_TYPE_SANDBOX_PROVIDER)

static DshConfinedArgv *
silent_confine (DshSandboxProvider *self, const char *const *argv,
                const DshSandboxPolicy *policy, GError **error)
{
  return NULL;
}

static void
silent_provider_class_init (SilentProviderClass *klass)
{
  DSH_SANDBOX_PROVIDER_CLASS (klass)->confine = silent_confine;
}

static void
silent_provider_init (SilentProvider *self)
{
}

/* It still fails closed, and SANDBOX_UNAVAILABLE still carries the exact text, with the cause
 * after it. */
static void
test_silent_provider_fails_closed (void)
{
  g_autoptr (DshSandboxProvider) provider = g_object_new (silent_provider_get_type (), NULL);
  g_autoptr (DshSandboxPolicy) policy = dsh_sandbox_policy_new (DSH_SANDBOX_MODE_READ_ONLY, "/",
                                                                NULL);
  const char *expected =
    SEED_UNAVAILABLE ("read-only") " Cause: the sandbox provider returned no confined argv and "
    "no error";
  g_autoptr (GError) error = NULL;
  const char *argv[] = { "true", NULL };

  g_assert_null (dsh_sandbox_provider_confine (provider, argv, policy, &error));
  g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_UNAVAILABLE);
  g_assert_cmpstr (error->message, ==, expected);
}

#define ADD(path, names, func) \
  g_test_add (path, Fixture, names, fixture_set_up, func, fixture_tear_down)

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  ADD ("/selection/sole-candidate-not-probed", alpha_only, test_sole_candidate_not_probed);
  ADD ("/selection/chain-in-priority-order", alpha_beta, test_chain_probed_in_priority_order);
  ADD ("/selection/failing-probe-falls-through", alpha_beta, test_failing_probe_falls_through);
  ADD ("/selection/nothing-usable", alpha_beta, test_nothing_usable_fails_closed);
  ADD ("/selection/empty-dir", NULL, test_empty_dir_fails_closed);
  ADD ("/selection/override/restricts", alpha_beta, test_override_restricts_chain);
  ADD ("/selection/override/opens-only-named", alpha_beta,
       test_override_opens_only_the_named_module);
  ADD ("/selection/override/first-loadable-file", alpha_beta,
       test_override_takes_the_first_loadable_file);
  ADD ("/selection/override/name-is-no-path", alpha_beta, test_override_name_is_no_path);
  ADD ("/selection/descriptor-name-matches-file", alpha_misnamed,
       test_descriptor_name_must_match_file);
  ADD ("/selection/override/unknown", alpha_beta, test_override_unknown_name);
  ADD ("/selection/override/help", alpha_beta, test_override_help);
  ADD ("/selection/override/backend-dir", alpha_only, test_backend_dir_env_replaces_dirs);
  ADD ("/selection/cached-per-provider", alpha_beta, test_selection_cached_per_provider);
  ADD ("/selection/probe-cache/missing-runner", alpha_beta,
       test_probe_cache_skips_missing_runners);
  ADD ("/selection/probe-cache/keyed-by-dependencies", alpha_beta,
       test_probe_cache_keyed_by_dependencies);
  ADD ("/selection/probe-cache/untrusted-root", alpha_beta,
       test_probe_cache_in_untrusted_root_unused);
  ADD ("/selection/probe-cache/opens-only-cached-head", alpha_beta,
       test_probe_cache_opens_only_the_cached_head);
  ADD ("/selection/probe-cache/changed-chain-opens-all", alpha_beta,
       test_probe_cache_changed_chain_opens_all);
#ifdef __linux__
  ADD ("/selection/probe-cache/unchanged-dirs-not-listed", alpha_beta,
       test_probe_cache_unchanged_dirs_not_listed);
  ADD ("/selection/probe-cache/dir-identity-holds", alpha_beta,
       test_probe_cache_dir_identity_holds);
#endif
  ADD ("/selection/confine-names-checked-runner", alpha_beta,
       test_confine_names_the_checked_runner);
  ADD ("/selection/untrusted-runner-refused", alpha_beta, test_untrusted_runner_refused);
  ADD ("/selection/argv-must-wrap", alpha_only, test_argv_must_wrap_the_command);
  ADD ("/selection/cut-runner-refused", alpha_beta, test_cut_runner_refused);
  ADD ("/selection/thread-safe", alpha_beta, test_selection_thread_safe);
  ADD ("/selection/result-outlives-provider", alpha_only, test_confined_argv_outlives_provider);
  ADD ("/selection/refuses-unconfined", alpha_only, test_refuses_unconfined_requests);
  ADD ("/selection/denial-exclusions/abi-1.1", excluding_only,
       test_denial_exclusions_gated_by_abi);
  ADD ("/selection/denial-exclusions/empty-refused", alpha_emptyexclusion,
       test_empty_denial_exclusion_refused);
  ADD ("/selection/denial-exclusions/abi-1.0-padding-unread", abiold_only,
       test_denial_exclusions_gated_by_abi);
  g_test_add_func ("/selection/silent-provider", test_silent_provider_fails_closed);
  return g_test_run ();
}
