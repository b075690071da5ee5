/* test-root-races.c — roots are resolved once and what was checked is what is enforced: a racer
 * swapping a directory for a symlink to a victim as fast as it can, against many confine calls
 * and many fence opens, never gets the victim handed out as a root or a file created in it.
 * Each race is bounded to a few seconds.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dsh-fs-fence-private.h"
#include "dsh-test-swapper.h"
#include "dsh-test-util.h"

#define RACE_SECONDS 3

typedef struct {
  char *dir;
  char *outer;
  char *pkg;
  char *victim;
  char *alt;
  DshTestSwapper *swapper;
} Race;

static void
race_setup (Race *r)
{
  r->dir = dsh_test_scratch_dir ("races");
  r->outer = g_build_filename (r->dir, "A", NULL);
  r->pkg = g_build_filename (r->outer, "pkg", NULL);
  r->victim = g_build_filename (r->dir, "victim", NULL);
  r->alt = g_build_filename (r->outer, "alt", NULL);
  g_assert_cmpint (g_mkdir_with_parents (r->pkg, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (r->victim, 0755), ==, 0);
  g_assert_cmpint (symlink (r->victim, r->alt), ==, 0);
}

static void
race_start (Race *r)
{
  r->swapper = dsh_test_swapper_start (r->pkg, r->alt);
}

static void
race_stop (Race *r)
{
  dsh_test_swapper_stop (g_steal_pointer (&r->swapper));
}

static void
race_teardown (Race *r)
{
  dsh_test_remove_tree (r->dir);
  g_free (r->dir);
  g_free (r->outer);
  g_free (r->pkg);
  g_free (r->victim);
  g_free (r->alt);
}

/* A confined command of A swaps A/pkg for a symlink to the victim in a loop while the caller asks
 * confine for A/pkg: no answer may name the victim. */
static void
test_confine_race (void)
{
  Race r = { 0 };
  g_autofree char *state = NULL;
  gint64 deadline;
  guint calls = 0, granted = 0, escapes = 0;

  race_setup (&r);
  state = g_strdup_printf ("DSH_SANDBOX_STATE_DIR=%s/state", r.dir);
  {
    const char *env[] = { state, NULL };
    const char *grant[] = { "confine", "--mode", "workspace-write", "--workspace", r.outer, "--",
                            "true", NULL };
    g_auto (DshTestRun) run = { 0 };

    /* A is handed to confined commands first: the racer stands for one of them. */
    dsh_test_run_cli (&run, grant, env, r.dir);
    g_assert_cmpint (run.exit_code, ==, 0);
  }

  race_start (&r);
  deadline = g_get_monotonic_time () + RACE_SECONDS * G_USEC_PER_SEC;
  while (g_get_monotonic_time () < deadline && calls < 400)
    {
      const char *env[] = { state, "DSH_SANDBOX_BACKEND=landlock", NULL };
      const char *args[] = { "confine", "--mode", "workspace-write", "--workspace", r.pkg, "--",
                             "true", NULL };
      g_auto (DshTestRun) run = { 0 };

      dsh_test_run_cli (&run, args, env, r.dir);
      calls++;
      if (run.exit_code == 0)
        {
          granted++;
          if (strstr (run.out, r.victim) != NULL)
            {
              escapes++;
              g_test_message ("escape: %s", run.out);
            }
        }
      else
        g_assert_cmpint (run.exit_code, ==, 125);
    }
  race_stop (&r);
  g_test_message ("%u confine calls, %u granted, %u named the victim", calls, granted, escapes);
  g_assert_cmpuint (escapes, ==, 0);
  race_teardown (&r);
}

/* A library user's policy for A/pkg (canonical once) while the racer swaps A/pkg: the fence
 * never creates a file in the victim, with openat2 and with the portable walk. */
static void
fence_race (gboolean portable)
{
  Race r = { 0 };
  g_autoptr (DshSandboxPolicy) policy = NULL;
  g_autofree char *root = NULL;
  gint64 deadline;
  guint opens = 0, tries = 0;

  race_setup (&r);
  root = dsh_workspace_root (r.pkg, NULL);
  policy = dsh_sandbox_policy_new (DSH_SANDBOX_MODE_WORKSPACE_WRITE, root, NULL);
  dsh_fs_fence_set_portable_walk_for_testing (portable);

  race_start (&r);
  deadline = g_get_monotonic_time () + RACE_SECONDS * G_USEC_PER_SEC;
  while (g_get_monotonic_time () < deadline && tries < 200000)
    {
      g_autofree char *path = g_strdup_printf ("%s/f%u", r.pkg, tries++);
      g_autoptr (GError) error = NULL;
      int fd = dsh_fs_fence_open (policy, path, O_WRONLY | O_CREAT | O_EXCL, 0644, &error);

      if (fd >= 0)
        {
          opens++;
          close (fd);
        }
    }
  race_stop (&r);
  dsh_fs_fence_set_portable_walk_for_testing (FALSE);
  g_test_message ("%u fence opens tried, %u succeeded, %u files in the victim", tries, opens,
                  dsh_test_count_entries (r.victim));
  g_assert_cmpuint (dsh_test_count_entries (r.victim), ==, 0);
  race_teardown (&r);
}

static void
test_fence_race (void)
{
  fence_race (FALSE);
}

static void
test_fence_race_portable (void)
{
  fence_race (TRUE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/root-races/confine", test_confine_race);
  g_test_add_func ("/root-races/fence", test_fence_race);
  g_test_add_func ("/root-races/fence-portable", test_fence_race_portable);
  return g_test_run ();
}
