/* test-module-watch.c — hot reload for library users who opt in: a watching provider notices
 * modules added, replaced by rename, rewritten in place and removed, by itself; a call in flight
 * inside the old module's code finishes on its generation; and an old generation's module copy
 * is unmapped once its last call has ended. A reload without a watch keeps the settings.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "dsh-test-util.h"

/* Generous: the watch is asynchronous, and the machine may be loaded. */
#define WAIT_US (30 * G_USEC_PER_SEC)

typedef struct {
  char *modules_dir;
  char *workspace;
} Fixture;

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  f->modules_dir = dsh_test_scratch_dir ("module-watch");
  f->workspace = dsh_test_scratch_dir ("module-watch-workspace");
  g_unsetenv ("DSH_SANDBOX_BACKEND");
  g_unsetenv ("DSH_SANDBOX_BACKEND_DIR");
  g_unsetenv ("DSH_FAKE_ALPHA_CONFINE_GATE");
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  g_unsetenv ("DSH_FAKE_ALPHA_CONFINE_GATE");
  dsh_test_remove_tree (f->modules_dir);
  dsh_test_remove_tree (f->workspace);
  g_free (f->modules_dir);
  g_free (f->workspace);
}

static char *
installed_path (Fixture *f, const char *name)
{
  g_autofree char *file = g_strdup_printf ("libdsh-backend-%s.%s", name, G_MODULE_SUFFIX);

  return g_build_filename (f->modules_dir, file, NULL);
}

/* What an operator's package manager does: write beside, then rename over. */
static void
install_by_rename (Fixture *f, const char *name)
{
  g_autofree char *built = dsh_test_module_path (name);
  g_autofree char *staging_dir = g_build_filename (f->modules_dir, ".staging", NULL);
  g_autofree char *staged = NULL;
  g_autofree char *target = installed_path (f, name);

  g_assert_cmpint (g_mkdir_with_parents (staging_dir, 0755), ==, 0);
  staged = dsh_test_copy_module (built, staging_dir);
  g_assert_cmpint (rename (staged, target), ==, 0);
}

/* What `cat new.so > module.so` does: the same inode, its bytes rewritten. */
static void
rewrite_in_place (Fixture *f, const char *name)
{
  g_autofree char *built = dsh_test_module_path (name);
  g_autofree char *target = installed_path (f, name);
  g_autofree char *bytes = NULL;
  gsize length;
  int fd;

  g_assert_true (g_file_get_contents (built, &bytes, &length, NULL));
  fd = open (target, O_WRONLY | O_TRUNC | O_CLOEXEC);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (write (fd, bytes, length), ==, (gssize) length);
  g_assert_cmpint (close (fd), ==, 0);
}

static void
remove_module (Fixture *f, const char *name)
{
  g_autofree char *target = installed_path (f, name);

  g_assert_cmpint (unlink (target), ==, 0);
}

/* The inodes of this process's private copies of module name (as the loader maps them), as one
 * sorted, comma-separated string ("" when none is mapped). */
static char *
mapped_copies (const char *name)
{
  g_autofree char *maps = dsh_test_read_file ("/proc/self/maps");
  g_autofree char *needle = g_strdup_printf ("/memfd:dsh-backend-%s ", name);
  g_auto (GStrv) lines = g_strsplit (maps, "\n", -1);
  g_autoptr (GPtrArray) inodes = g_ptr_array_new ();
  g_autoptr (GString) joined = g_string_new (NULL);

  for (gsize i = 0; lines[i] != NULL; i++)
    {
      g_auto (GStrv) fields = NULL;

      if (strstr (lines[i], needle) == NULL)
        continue;
      fields = g_strsplit_set (lines[i], " ", -1);
      for (gsize j = 0, n = 0; fields[j] != NULL; j++)
        {
          if (fields[j][0] == '\0' || ++n != 5)
            continue;
          if (!g_ptr_array_find_with_equal_func (inodes, fields[j], g_str_equal, NULL))
            g_ptr_array_add (inodes, g_strdup (fields[j]));
        }
    }
  g_ptr_array_sort (inodes, (GCompareFunc) g_strcmp0);
  for (guint i = 0; i < inodes->len; i++)
    {
      g_string_append_printf (joined, "%s%s", i > 0 ? "," : "", (char *) inodes->pdata[i]);
      g_free (inodes->pdata[i]);
    }
  return g_string_free (g_steal_pointer (&joined), FALSE);
}

static DshLocalProvider *
new_watching_provider (Fixture *f)
{
  const char *dirs[] = { f->modules_dir, NULL };
  DshLocalProvider *provider = dsh_local_provider_new_for_dirs (dirs, NULL);
  g_autoptr (GError) error = NULL;

  g_assert_true (dsh_local_provider_watch_modules (provider, &error));
  g_assert_no_error (error);
  /* A second opt-in changes nothing. */
  g_assert_true (dsh_local_provider_watch_modules (provider, &error));
  g_assert_no_error (error);
  return provider;
}

/* The selected backend's name, or "" when none is usable. */
static const char *
selected (DshLocalProvider *provider)
{
  const char *name = dsh_local_provider_get_selected (provider, NULL);

  return name != NULL ? name : "";
}

/* Waits until the provider is past generation `after` and selects `name` ("" for none). */
static guint
wait_for_selection (DshLocalProvider *provider, guint after, const char *name)
{
  gint64 deadline = g_get_monotonic_time () + WAIT_US;

  while (g_get_monotonic_time () < deadline)
    {
      guint generation = dsh_local_provider_get_generation (provider);

      if (generation > after && g_str_equal (selected (provider), name))
        return generation;
      g_usleep (20 * 1000);
    }
  g_error ("after generation %u the provider is at generation %u and selects \"%s\", not "
           "\"%s\"", after, dsh_local_provider_get_generation (provider), selected (provider),
           name);
}

/* The copies of `name` mapped once at most `most` (0 or 1) remain: the watch publishes a new
 * generation before it releases the old one, whose modules go when it does. */
static char *
settled_copies (const char *name, guint most)
{
  gint64 deadline = g_get_monotonic_time () + WAIT_US;

  for (;;)
    {
      char *copies = mapped_copies (name);

      if ((most == 0 ? copies[0] == '\0' : strchr (copies, ',') == NULL) ||
          g_get_monotonic_time () >= deadline)
        return copies;
      g_free (copies);
      g_usleep (20 * 1000);
    }
}

static gboolean
confine_true (Fixture *f, DshLocalProvider *provider, GError **error)
{
  g_autoptr (DshSandboxPolicy) policy = dsh_sandbox_policy_new (DSH_SANDBOX_MODE_READ_ONLY,
                                                                f->workspace, NULL);
  g_autoptr (DshConfinedArgv) confined = NULL;
  const char *argv[] = { "true", NULL };

  confined = dsh_sandbox_provider_confine (DSH_SANDBOX_PROVIDER (provider), argv, policy, error);
  return confined != NULL && g_str_equal (dsh_confined_argv_get_argv (confined)[0], "/bin/sh");
}

static void
test_notices_changes (Fixture *f, gconstpointer data)
{
  g_autoptr (DshLocalProvider) provider = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *first_copy = NULL;
  g_autofree char *second_copy = NULL;
  g_autofree char *third_copy = NULL;
  guint generation;

  install_by_rename (f, "fake-beta");
  provider = new_watching_provider (f);
  g_assert_cmpuint (dsh_local_provider_get_generation (provider), ==, 1);
  g_assert_cmpstr (selected (provider), ==, "fake-beta");

  /* Added: alpha has the higher priority. */
  install_by_rename (f, "fake-alpha");
  generation = wait_for_selection (provider, 1, "fake-alpha");
  g_assert_true (confine_true (f, provider, &error));
  g_assert_no_error (error);
  first_copy = mapped_copies ("fake-alpha");
  g_assert_cmpstr (first_copy, !=, "");
  g_assert_null (strchr (first_copy, ','));

  /* Replaced by rename: a new copy is loaded, and the old one, with no call left, is gone. */
  install_by_rename (f, "fake-alpha");
  generation = wait_for_selection (provider, generation, "fake-alpha");
  g_assert_true (confine_true (f, provider, &error));
  g_assert_no_error (error);
  second_copy = settled_copies ("fake-alpha", 1);
  g_assert_cmpstr (second_copy, !=, "");
  g_assert_null (strchr (second_copy, ','));
  g_assert_cmpstr (second_copy, !=, first_copy);

  /* Rewritten in place. */
  rewrite_in_place (f, "fake-alpha");
  generation = wait_for_selection (provider, generation, "fake-alpha");
  g_assert_true (confine_true (f, provider, &error));
  g_assert_no_error (error);
  third_copy = settled_copies ("fake-alpha", 1);
  g_assert_null (strchr (third_copy, ','));
  g_assert_cmpstr (third_copy, !=, second_copy);

  /* Removed: back to beta, and alpha's code is no longer mapped at all. */
  remove_module (f, "fake-alpha");
  generation = wait_for_selection (provider, generation, "fake-beta");
  g_assert_true (confine_true (f, provider, &error));
  g_assert_no_error (error);
  {
    g_autofree char *gone = settled_copies ("fake-alpha", 0);

    g_assert_cmpstr (gone, ==, "");
  }

  /* The last one removed: nothing is usable, and the provider says so rather than pass
   * through. */
  remove_module (f, "fake-beta");
  wait_for_selection (provider, generation, "");
  g_assert_false (confine_true (f, provider, &error));
  g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_UNAVAILABLE);
  {
    g_autofree char *gone = settled_copies ("fake-beta", 0);

    g_assert_cmpstr (gone, ==, "");
  }
}

/* The directory itself made writable by others: a fresh provider refuses every module in it,
 * so a watching one must start a generation that does too, and recover once it is fixed. */
static void
test_notices_directory_mode (Fixture *f, gconstpointer data)
{
  g_autoptr (DshLocalProvider) provider = NULL;
  g_autoptr (GError) error = NULL;
  guint generation;

  g_assert_cmpint (g_chmod (f->modules_dir, 0755), ==, 0);
  install_by_rename (f, "fake-alpha");
  provider = new_watching_provider (f);
  g_assert_cmpstr (selected (provider), ==, "fake-alpha");

  g_assert_cmpint (g_chmod (f->modules_dir, 0775), ==, 0);
  generation = wait_for_selection (provider, 1, "");
  g_assert_false (confine_true (f, provider, &error));
  g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_UNAVAILABLE);
  g_assert_nonnull (strstr (error->message, "the module directory is writable by its group"));

  g_assert_cmpint (g_chmod (f->modules_dir, 0755), ==, 0);
  wait_for_selection (provider, generation, "fake-alpha");
}

static gpointer
confine_in_thread (gpointer data)
{
  gpointer *args = data;
  g_autoptr (GError) error = NULL;
  gboolean ok = confine_true (args[0], args[1], &error);

  g_assert_no_error (error);
  return GINT_TO_POINTER (ok);
}

static gboolean
file_exists (const char *path)
{
  return g_file_test (path, G_FILE_TEST_EXISTS);
}

static void
test_call_in_flight_keeps_its_generation (Fixture *f, gconstpointer data)
{
  g_autoptr (DshLocalProvider) provider = NULL;
  g_autofree char *gate = g_build_filename (f->workspace, "gate", NULL);
  g_autofree char *entered = g_strconcat (gate, ".entered", NULL);
  g_autofree char *old_copy = NULL;
  g_autofree char *both = NULL;
  g_autofree char *new_copy = NULL;
  gpointer args[] = { f, NULL };
  gint64 deadline;
  GThread *call;

  /* Set before any thread runs. A sole candidate is selected without a probe: only the call
   * below meets the gate. */
  g_setenv ("DSH_FAKE_ALPHA_CONFINE_GATE", gate, TRUE);
  install_by_rename (f, "fake-alpha");
  provider = new_watching_provider (f);
  args[1] = provider;
  g_assert_cmpstr (selected (provider), ==, "fake-alpha");
  old_copy = mapped_copies ("fake-alpha");

  /* A call that stays inside generation 1's module code until the gate opens. */
  call = g_thread_new ("in-flight", confine_in_thread, args);
  deadline = g_get_monotonic_time () + WAIT_US;
  while (!file_exists (entered) && g_get_monotonic_time () < deadline)
    g_usleep (10 * 1000);
  g_assert_true (file_exists (entered));

  /* The module is replaced under it: a new generation loads the new copy beside the old. */
  install_by_rename (f, "fake-alpha");
  wait_for_selection (provider, 1, "fake-alpha");
  both = mapped_copies ("fake-alpha");
  g_assert_nonnull (strchr (both, ','));
  g_assert_nonnull (strstr (both, old_copy));

  /* The call ends well on the old code, and with it the old generation's copy goes. */
  dsh_test_write_file (gate, "");
  g_assert_true (GPOINTER_TO_INT (g_thread_join (call)));
  new_copy = mapped_copies ("fake-alpha");
  g_assert_cmpstr (new_copy, !=, "");
  g_assert_null (strchr (new_copy, ','));
  g_assert_cmpstr (new_copy, !=, old_copy);

  /* Dropping the provider ends the watch and closes the last copy. */
  g_clear_object (&provider);
  g_assert_cmpstr (mapped_copies ("fake-alpha"), ==, "");
}

static void
test_reload_without_watch (Fixture *f, gconstpointer data)
{
  const char *dirs[] = { f->modules_dir, NULL };
  g_autoptr (DshLocalProvider) provider = NULL;
  g_autoptr (DshLocalProvider) distrusting = NULL;
  g_autoptr (GError) error = NULL;

  install_by_rename (f, "fake-beta");
  provider = dsh_local_provider_new_for_dirs (dirs, NULL);
  g_assert_cmpstr (selected (provider), ==, "fake-beta");

  /* Not watching: a provider keeps what it loaded first until told. */
  install_by_rename (f, "fake-alpha");
  g_assert_cmpstr (selected (provider), ==, "fake-beta");
  g_assert_cmpuint (dsh_local_provider_get_generation (provider), ==, 1);
  dsh_local_provider_reload (provider);
  g_assert_cmpuint (dsh_local_provider_get_generation (provider), ==, 2);
  g_assert_cmpstr (selected (provider), ==, "fake-alpha");

  /* A new generation keeps the provider's settings: modules beneath an untrusted root stay
   * refused. */
  distrusting = dsh_local_provider_new_for_dirs (dirs, NULL);
  dsh_local_provider_set_untrusted_roots (distrusting, dirs);
  g_assert_null (dsh_local_provider_get_selected (distrusting, &error));
  g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_UNAVAILABLE);
  g_clear_error (&error);
  dsh_local_provider_reload (distrusting);
  g_assert_null (dsh_local_provider_get_selected (distrusting, &error));
  g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_UNAVAILABLE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/module-watch/notices-added-replaced-rewritten-removed", Fixture, NULL,
              fixture_set_up, test_notices_changes, fixture_tear_down);
  g_test_add ("/module-watch/notices-directory-mode", Fixture, NULL, fixture_set_up,
              test_notices_directory_mode, fixture_tear_down);
  g_test_add ("/module-watch/call-in-flight-keeps-its-generation", Fixture, NULL,
              fixture_set_up, test_call_in_flight_keeps_its_generation, fixture_tear_down);
  g_test_add ("/module-watch/reload-without-watch-keeps-settings", Fixture, NULL,
              fixture_set_up, test_reload_without_watch, fixture_tear_down);
  return g_test_run ();
}
