/* test-setuid-override.c — DSH_SANDBOX_BACKEND_DIR is honoured for an ordinary process and
 * ignored when the process is setuid, so an unprivileged invoker cannot make a privileged one
 * load modules of its choosing.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <glib/gstdio.h>
#include <unistd.h>

#include "dsh-test-util.h"

static char *
install_probe (gboolean setuid)
{
  g_autofree char *dir = dsh_test_make_tmp_dir ();
  g_autofree char *copy = NULL;

  /* The unprivileged user must reach and run the copy. */
  g_assert_cmpint (g_chmod (dir, 0755), ==, 0);
  copy = dsh_test_copy_module (dsh_test_getenv_required ("DSH_TEST_SETUID_PROBE"), dir);
  g_assert_cmpint (chown (copy, 0, 0), ==, 0);
  g_assert_cmpint (g_chmod (copy, setuid ? 04755 : 0755), ==, 0);
  return g_steal_pointer (&copy);
}

static void
run_as_nobody (DshTestRun *run, const char *program)
{
  const char *argv[] = { "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--",
                         program, NULL };
  const char *env[] = { "DSH_SANDBOX_BACKEND_DIR=/tmp/modules-chosen-by-the-invoker", NULL };

  dsh_test_run (run, argv, env, "/", NULL);
}

static void
test_override_honoured_without_setuid (void)
{
  g_autofree char *program = NULL;
  g_auto (DshTestRun) run = { 0 };

  if (!dsh_test_require (getuid () == 0, "root (to run a test program as another user)"))
    return;
  program = install_probe (FALSE);
  run_as_nobody (&run, program);
  g_assert_cmpint (run.exit_code, ==, 0);
  g_assert_cmpstr (run.out, ==, "ignored=no dir=/tmp/modules-chosen-by-the-invoker\n");
}

static void
test_override_ignored_when_setuid (void)
{
  g_autofree char *program = NULL;
  g_auto (DshTestRun) run = { 0 };

  if (!dsh_test_require (getuid () == 0, "root (to make a setuid-root test program)"))
    return;
  program = install_probe (TRUE);
  run_as_nobody (&run, program);
  g_assert_cmpint (run.exit_code, ==, 0);
  g_assert_true (g_str_has_prefix (run.out, "ignored=yes dir="));
  g_assert_null (strstr (run.out, "modules-chosen-by-the-invoker"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/setuid/override-honoured", test_override_honoured_without_setuid);
  g_test_add_func ("/setuid/override-ignored", test_override_ignored_when_setuid);
  return g_test_run ();
}
