/* test-landlock-module.c — the Landlock backend module through the shared fake host: its
 * descriptor, the argv it builds, its refusals, and that its failure rule and dialect match what
 * the real launcher and kernel print.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define _GNU_SOURCE

#include <gmodule.h>
#include <string.h>

#include "dsh-backend.h"
#include "dsh-backend-fake-host-private.h"
#include "dsh-landlock-exec.h"
#include "dsh-test-linux.h"

/* A fake host whose only answer is the launcher (none when launcher is NULL). */
static DshBackendFakeHost *
fake_new (const char *launcher)
{
  DshBackendFakeHost *fake = dsh_backend_fake_host_new ();

  dsh_backend_fake_host_set_helper (fake, DSH_LANDLOCK_EXEC_NAME, launcher);
  return fake;
}

static DshBackendHost *
host_of (DshBackendFakeHost *fake)
{
  return dsh_backend_fake_host_get_host (fake);
}

static const DshBackendDescriptor *
describe (void)
{
  static GModule *module;
  static const DshBackendDescriptor *desc;
  DshBackendDescribeFunc func = NULL;

  if (desc != NULL)
    return desc;
  module = dsh_test_open_module ("DSH_LANDLOCK_MODULE", "dsh_backend_landlock_describe",
                                 (gpointer *) &func);
  g_assert_false (g_module_symbol (module, "dsh_backend_describe", &(gpointer){ NULL }));
  desc = func ();
  return desc;
}

static void
test_descriptor (void)
{
  const DshBackendDescriptor *desc = describe ();
  const DshBackendFailureRule *rule;

  g_assert_cmpuint (desc->abi_major, ==, DSH_BACKEND_ABI_MAJOR);
  g_assert_cmpuint (desc->abi_minor, <=, DSH_BACKEND_ABI_MINOR);
  g_assert_cmpstr (desc->name, ==, "landlock");
  g_assert_cmpint (desc->os, ==, DSH_BACKEND_OS_LINUX);
  /* Below bwrap's 100: Linux prefers a working bwrap. */
  g_assert_cmpint (desc->priority, ==, 50);
  g_assert_nonnull (desc->confine);
  g_assert_nonnull (desc->check);

  g_assert_cmpstr (desc->denial_signatures[0], ==, "Permission denied");
  g_assert_cmpstr (desc->denial_signatures[1], ==, "code EACCES");
  g_assert_cmpstr (desc->denial_signatures[2], ==, "java.nio.file.AccessDeniedException");
  g_assert_cmpstr (desc->denial_signatures[3], ==, "Read-only file system");
  /* ABI 1 refuses reparenting with EXDEV, so there its text is a denial too. */
  if (dsh_test_landlock_abi () == 1)
    {
      g_assert_cmpstr (desc->denial_signatures[4], ==, "Invalid cross-device link");
      g_assert_null (desc->denial_signatures[5]);
    }
  else
    g_assert_null (desc->denial_signatures[4]);
  /* The exclusions are a 1.1 field: an older descriptor's would not be read. */
  g_assert_cmpuint (desc->abi_minor, >=, 1);
  g_assert_cmpstr (desc->denial_exclusions[0], ==, "Permission denied (publickey");

  g_assert_cmpuint (desc->n_runner_failure_rules, ==, 1);
  rule = &desc->runner_failure_rules[0];
  g_assert_cmpuint (rule->n_allowed_exit_codes, ==, 1);
  g_assert_cmpint (rule->allowed_exit_codes[0], ==, DSH_LANDLOCK_EXIT_FAILURE);
  g_assert_cmpstr (rule->fatal_signatures[0], ==, DSH_LANDLOCK_FATAL_PREFIX);
  g_assert_null (rule->fatal_signatures[1]);
}

/* The reason that contains needle, or NULL. */
static const char *
find_reason (const DshBackendFakeHost *fake, const char *needle)
{
  for (guint i = 0; i < fake->call.reasons->len; i++)
    if (strstr (fake->call.reasons->pdata[i], needle) != NULL)
      return fake->call.reasons->pdata[i];
  return NULL;
}

/* Partial on every ABI so far, with the metadata reason first (file flags included); reparenting
 * below ABI 2; signals below ABI 6. Truncation is never a reason: below ABI 3 the launcher's
 * filter closes it. */
static void
assert_reasons (const DshBackendFakeHost *fake)
{
  long abi = dsh_test_landlock_abi ();
  const char *reparenting = find_reason (fake, "reparenting");
  const char *signals = find_reason (fake, "cannot scope signals");

  g_assert_true (fake->enforcement_set);
  g_assert_cmpint (fake->backend_enforcement, ==, DSH_BACKEND_ENFORCEMENT_PARTIAL);
  g_assert_cmpuint (fake->call.reasons->len, >=, 1);
  g_assert_nonnull (strstr (fake->call.reasons->pdata[0], "metadata"));
  g_assert_nonnull (strstr (fake->call.reasons->pdata[0], "the caller's own files"));
  g_assert_cmpint (reparenting != NULL, ==, abi < 2);
  if (reparenting != NULL)
    g_assert_nonnull (strstr (reparenting, "EXDEV"));
  g_assert_cmpint (signals != NULL, ==, abi < 6);
  if (signals != NULL)
    g_assert_nonnull (strstr (signals, "stop or kill"));
  g_assert_null (find_reason (fake, "truncat"));
}

static void
test_confine_workspace_write (void)
{
  const char *roots[] = { "/work/ws", "/tmp", "/var/tmp/t", NULL };
  const char *argv[] = { "sh", "-c", "echo hi", NULL };
  const char *expected[] = { "/opt/launcher", "--write", "/work/ws", "--write", "/tmp", "--write",
                             "/var/tmp/t", "--", "sh", "-c", "echo hi" };
  DshBackendPolicy policy = { .mode = DSH_BACKEND_MODE_WORKSPACE_WRITE,
                              .workspace_root = "/work/ws", .writable_roots = roots };
  g_autoptr (DshBackendFakeHost) fake = NULL;

  if (!dsh_test_require_landlock ())
    return;

  fake = fake_new ("/opt/launcher");
  g_assert_cmpint (describe ()->confine (host_of (fake), &policy, argv), ==, 0);
  g_assert_null (fake->call.error);
  g_assert_cmpuint (fake->call.argv->len, ==, G_N_ELEMENTS (expected));
  for (gsize i = 0; i < G_N_ELEMENTS (expected); i++)
    g_assert_cmpstr (fake->call.argv->pdata[i], ==, expected[i]);

  assert_reasons (fake);
  /* The git files stay writable inside a workspace: Landlock cannot carve them out. */
  g_assert_nonnull (find_reason (fake, ".git/hooks"));
}

/* Read-only grants no roots, even if a caller passes some. */
static void
test_confine_read_only (void)
{
  const char *roots[] = { "/work/ws", NULL };
  const char *argv[] = { "true", NULL };
  DshBackendPolicy policy = { .mode = DSH_BACKEND_MODE_READ_ONLY, .workspace_root = "/work/ws",
                              .writable_roots = roots };
  g_autoptr (DshBackendFakeHost) fake = NULL;

  if (!dsh_test_require_landlock ())
    return;

  fake = fake_new ("/opt/launcher");
  g_assert_cmpint (describe ()->confine (host_of (fake), &policy, argv), ==, 0);
  g_assert_cmpuint (fake->call.argv->len, ==, 3);
  g_assert_cmpstr (fake->call.argv->pdata[0], ==, "/opt/launcher");
  g_assert_cmpstr (fake->call.argv->pdata[1], ==, "--");
  g_assert_cmpstr (fake->call.argv->pdata[2], ==, "true");
}

static void
test_refusals (void)
{
  const char *relative[] = { "ws", NULL };
  const char *argv[] = { "true", NULL };
  DshBackendPolicy policy = { .mode = DSH_BACKEND_MODE_WORKSPACE_WRITE, .workspace_root = "ws",
                              .writable_roots = relative };
  g_autoptr (DshBackendFakeHost) fake = NULL;

  /* No launcher: both the check and confine refuse, with a reason. */
  fake = fake_new (NULL);
  g_assert_cmpint (describe ()->check (host_of (fake)), !=, 0);
  g_assert_nonnull (strstr (fake->call.error, DSH_LANDLOCK_EXEC_NAME));
  g_clear_pointer (&fake->call.error, g_free);
  g_assert_cmpint (describe ()->confine (host_of (fake), &policy, argv), !=, 0);
  g_assert_nonnull (fake->call.error);
  g_clear_pointer (&fake, dsh_backend_fake_host_free);

  if (!dsh_test_require_landlock ())
    return;

  /* A relative root would be resolved against the command's directory: refuse it. */
  fake = fake_new ("/opt/launcher");
  g_assert_cmpint (describe ()->check (host_of (fake)), ==, 0);
  g_assert_cmpint (describe ()->confine (host_of (fake), &policy, argv), !=, 0);
  g_assert_nonnull (fake->call.error);
}

/* Without Landlock in the kernel (the query fails in a child under a seccomp filter), the check
 * refuses with a reason that names the errno and its usual cause. */
static void
test_check_without_landlock (void)
{
  struct {
    const char *errno_name;
    const char *text;
    const char *cause;
  } cases[] = {
    { "ENOSYS", "ENOSYS, Function not implemented", "lacks Landlock" },
    { "EOPNOTSUPP", "EOPNOTSUPP, Operation not supported", "disabled" },
    { "EPERM", "EPERM, Operation not permitted", "seccomp profile" },
  };

  if (g_test_subprocess ())
    {
      g_autoptr (DshBackendFakeHost) fake = fake_new ("/opt/launcher");

      g_assert_cmpint (describe ()->check (host_of (fake)), !=, 0);
      g_printerr ("%s\n", fake->call.error);
      return;
    }

  /* Re-run this one case under the deny helper. */
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto (DshTestRun) run = { 0 };
      g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);
      const char *argv[] = { dsh_test_getenv_required ("DSH_TEST_DENY_SYSCALLS"), "--errno",
                             cases[i].errno_name, "--syscall", "landlock_create_ruleset", "--",
                             self, "-p", "/landlock-module/check-without-landlock",
                             "--GTestSubprocess", NULL };

      dsh_test_run (&run, argv, NULL, NULL, NULL);
      g_assert_cmpint (run.exit_code, ==, 0);
      g_assert_nonnull (strstr (run.err, "this kernel does not enforce Landlock"));
      g_assert_nonnull (strstr (run.err, cases[i].text));
      g_assert_nonnull (strstr (run.err, cases[i].cause));
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/landlock-module/descriptor", test_descriptor);
  g_test_add_func ("/landlock-module/confine-workspace-write", test_confine_workspace_write);
  g_test_add_func ("/landlock-module/confine-read-only", test_confine_read_only);
  g_test_add_func ("/landlock-module/refusals", test_refusals);
  g_test_add_func ("/landlock-module/check-without-landlock", test_check_without_landlock);

  return g_test_run ();
}
