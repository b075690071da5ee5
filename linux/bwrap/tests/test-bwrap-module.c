/* test-bwrap-module.c — the built bwrap module through the shared fake host: its descriptor,
 * check() and confine() failing closed without bwrap or its launcher, and the argv of each
 * mode, with the command's own words kept after the last "--".
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <fcntl.h>
#include <gmodule.h>
#include <stdlib.h>
#include <string.h>

#include "dsh-backend-fake-host-private.h"
#include "dsh-policy.h"
#include "dsh-test-linux.h"

#define LAUNCHER_PATH "/usr/libexec/dsh-sandbox-1/dsh-bwrap-exec"

static DshBackendFakeHost *
new_linux_host (void)
{
  DshBackendFakeHost *fake = dsh_backend_fake_host_new ();

  dsh_backend_fake_host_set_program (fake, "bwrap", "/usr/bin/bwrap");
  dsh_backend_fake_host_set_helper (fake, "dsh-bwrap-exec", LAUNCHER_PATH);
  return fake;
}

static const DshBackendDescriptor *
describe (void)
{
  static const DshBackendDescriptor *desc;
  DshBackendDescribeFunc func = NULL;

  if (desc != NULL)
    return desc;
  dsh_test_open_module ("DSH_BWRAP_MODULE", "dsh_backend_bwrap_describe", (gpointer *) &func);
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
  g_assert_cmpstr (desc->name, ==, "bwrap");
  g_assert_cmpint (desc->os, ==, DSH_BACKEND_OS_LINUX);
  /* Above Landlock's 50: Linux prefers a working bwrap. */
  g_assert_cmpint (desc->priority, ==, 100);
  g_assert_cmpstr (desc->denial_signatures[0], ==, "Read-only file system");
  g_assert_null (desc->denial_signatures[1]);

  g_assert_cmpuint (desc->n_runner_failure_rules, ==, 2);
  rule = &desc->runner_failure_rules[0];
  g_assert_cmpuint (rule->n_allowed_exit_codes, ==, 1);
  g_assert_cmpint (rule->allowed_exit_codes[0], ==, 1);
  /* A failed execvp of the command is the command's failure, never the runner's. */
  for (guint i = 0; rule->fatal_signatures[i] != NULL; i++)
    {
      g_assert_true (g_str_has_prefix (rule->fatal_signatures[i], "bwrap: "));
      g_assert_false (g_str_has_prefix ("bwrap: execvp sh: No such file or directory",
                                        rule->fatal_signatures[i]));
    }
  /* The launcher's own fatal line, with its own status. */
  rule = &desc->runner_failure_rules[1];
  g_assert_cmpuint (rule->n_allowed_exit_codes, ==, 1);
  g_assert_cmpint (rule->allowed_exit_codes[0], ==, 125);
  g_assert_cmpstr (rule->fatal_signatures[0], ==, "dsh-bwrap-exec: fatal: ");
  g_assert_null (rule->fatal_signatures[1]);
}

/* bwrap's own refusal of too many arguments, as the real bwrap words it, is a runner failure
 * under the module's first rule (the launcher refuses such an argv first, see
 * /first-step/too-many-mounts). */
static void
test_too_many_arguments_is_runner_failure (void)
{
  const DshBackendFailureRule *rule = &describe ()->runner_failure_rules[0];
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_auto (DshTestRun) run = { 0 };
  gboolean matched = FALSE;

  if (!dsh_test_require_bwrap ())
    return;
  g_ptr_array_add (argv, (char *) "bwrap");
  g_ptr_array_add (argv, (char *) "--dev-bind");
  g_ptr_array_add (argv, (char *) "/");
  g_ptr_array_add (argv, (char *) "/");
  for (guint i = 0; i < 3000; i++)
    {
      g_ptr_array_add (argv, (char *) "--setenv");
      g_ptr_array_add (argv, (char *) "A");
      g_ptr_array_add (argv, (char *) "b");
    }
  g_ptr_array_add (argv, (char *) "true");
  g_ptr_array_add (argv, NULL);
  dsh_test_run (&run, (const char *const *) argv->pdata, NULL, NULL, NULL);
  g_assert_cmpint (run.exit_code, ==, rule->allowed_exit_codes[0]);
  for (guint i = 0; rule->fatal_signatures[i] != NULL; i++)
    matched = matched || strstr (run.err, rule->fatal_signatures[i]) != NULL;
  if (!matched)
    g_error ("no runner-failure signature in bwrap's words: %s", run.err);
}

static void
test_fails_closed_without_bwrap (void)
{
  const DshBackendDescriptor *desc = describe ();
  g_autoptr (DshBackendFakeHost) fake = dsh_backend_fake_host_new ();
  g_autoptr (DshSandboxPolicy) policy = dsh_sandbox_policy_new (DSH_SANDBOX_MODE_READ_ONLY,
                                                                "/home/me/ws", NULL);
  const char *argv[] = { "true", NULL };
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (desc->check (dsh_backend_fake_host_get_host (fake)), !=, 0);
  g_assert_cmpstr (fake->call.error, ==, "bwrap was not found on PATH");

  dsh_backend_fake_host_reset (fake);
  g_assert_false (dsh_backend_call_confine (&fake->call, "bwrap", desc, argv, policy, &error));
  g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_UNAVAILABLE);
  g_assert_nonnull (strstr (error->message, "bwrap was not found on PATH"));

  /* bwrap without its launcher is refused as well. */
  dsh_backend_fake_host_reset (fake);
  dsh_backend_fake_host_set_program (fake, "bwrap", "/usr/bin/bwrap");
  g_assert_cmpint (desc->check (dsh_backend_fake_host_get_host (fake)), !=, 0);
  g_assert_cmpstr (fake->call.error, ==, "the bwrap launcher dsh-bwrap-exec was not found");

  /* The check is a lookup, never a run. */
  dsh_backend_fake_host_reset (fake);
  dsh_backend_fake_host_set_helper (fake, "dsh-bwrap-exec", LAUNCHER_PATH);
  g_assert_cmpint (desc->check (dsh_backend_fake_host_get_host (fake)), ==, 0);
  g_assert_null (fake->call.error);
  g_assert_cmpuint (fake->probes->len, ==, 0);
}

/* The index of the "--" that ends bwrap's own options; the command follows it exactly. */
static guint
assert_command_after_separator (GPtrArray *got, const char *const *command)
{
  guint n_command = g_strv_length ((char **) command);
  guint separator;

  g_assert_cmpuint (got->len, >, n_command + 1);
  /* NULL-terminated: len counts the terminator. */
  g_assert_null (got->pdata[got->len - 1]);
  separator = got->len - 2 - n_command;
  g_assert_cmpstr (got->pdata[separator], ==, "--");
  for (guint k = 0; k < n_command; k++)
    g_assert_cmpstr (got->pdata[separator + 1 + k], ==, command[k]);
  return separator;
}

static gboolean
has_option (GPtrArray *got, guint end, const char *option)
{
  for (guint i = 0; i < end; i++)
    if (g_str_equal (got->pdata[i], option))
      return TRUE;
  return FALSE;
}

static void
test_read_only_argv (void)
{
  const DshBackendDescriptor *desc = describe ();
  g_autoptr (DshBackendFakeHost) fake = new_linux_host ();
  g_autoptr (DshSandboxPolicy) policy = dsh_sandbox_policy_new (DSH_SANDBOX_MODE_READ_ONLY,
                                                                "/home/me/ws", NULL);
  /* Words bwrap could take for its own options stay the command's, after "--". */
  const char *command[] = { "/bin/sh", "--bind", "/", "/", "--", NULL };
  g_autoptr (GError) error = NULL;
  guint separator;

  g_assert_true (dsh_backend_call_confine (&fake->call, "bwrap", desc, command, policy, &error));
  g_assert_no_error (error);
  /* Nothing writable to bind, but the launcher all the same: its step inside refuses typing
   * into a terminal, whatever the Landlock ABI. */
  g_assert_cmpstr (fake->call.argv->pdata[0], ==, LAUNCHER_PATH);
  separator = assert_command_after_separator (fake->call.argv, command);
  g_assert_true (has_option (fake->call.argv, separator, "--unshare-user"));
  g_assert_true (has_option (fake->call.argv, separator, "--die-with-parent"));
  g_assert_false (has_option (fake->call.argv, separator, "--write"));
  g_assert_false (has_option (fake->call.argv, separator, "--tmpfs"));
  g_assert_cmpint (fake->call.enforcement, ==, DSH_ENFORCEMENT_FULL);
}

static void
test_workspace_write_argv (void)
{
  const DshBackendDescriptor *desc = describe ();
  g_autoptr (DshBackendFakeHost) fake = new_linux_host ();
  g_autoptr (DshSandboxPolicy) policy = dsh_sandbox_policy_new (DSH_SANDBOX_MODE_WORKSPACE_WRITE,
                                                                "/home/me/ws", NULL);
  const char *command[] = { "make", "-j2", NULL };
  g_autoptr (GError) error = NULL;
  GPtrArray *got;
  gboolean workspace_bound = FALSE;
  guint separator;
  guint i = 1;

  g_assert_true (dsh_backend_call_confine (&fake->call, "bwrap", desc, command, policy, &error));
  g_assert_no_error (error);
  got = fake->call.argv;
  separator = assert_command_after_separator (got, command);
  /* The launcher takes the roots ("--write ROOT"...) and binds them from descriptors; then
   * bwrap with its profile. */
  g_assert_cmpstr (got->pdata[0], ==, LAUNCHER_PATH);
  for (; i + 1 < separator && g_str_equal (got->pdata[i], "--write"); i += 2)
    {
      /* /tmp is a private tmpfs, never the host's /tmp bound back. */
      g_assert_cmpstr (got->pdata[i + 1], !=, "/tmp");
      workspace_bound |= g_str_equal (got->pdata[i + 1], "/home/me/ws");
    }
  g_assert_true (workspace_bound);
  g_assert_cmpstr (got->pdata[i], ==, "--");
  g_assert_cmpstr (got->pdata[i + 1], ==, "/usr/bin/bwrap");
  g_assert_true (has_option (got, separator, "--tmpfs"));
  g_assert_cmpint (fake->call.enforcement, ==, DSH_ENFORCEMENT_FULL);
}

static gboolean
is_kept (const DshBackendFakeHost *fake, const char *fd_text)
{
  int fd = atoi (fd_text);

  for (guint i = 0; fake->call.kept_fds != NULL && i < fake->call.kept_fds->len; i++)
    if (g_array_index (fake->call.kept_fds, int, i) == fd)
      return fcntl (fd, F_GETFD) == FD_CLOEXEC;
  return FALSE;
}

/* The launcher's first step in the caller: a read-only argv (bwrap itself) is left alone; the
 * launcher's argv becomes bwrap's, each root bound from a descriptor the host keeps
 * (close-on-exec here), the command behind the launcher's inside step; only once a process. */
static void
test_first_step (void)
{
  const DshBackendDescriptor *desc = describe ();
  g_autoptr (DshBackendFakeHost) fake = new_linux_host ();
  g_autofree char *ws = dsh_test_make_tmp_dir ();
  g_autofree char *launcher = g_build_filename (g_getenv ("DSH_BWRAP_LAUNCHER_DIR"),
                                                "dsh-bwrap-exec", NULL);
  const char *direct[] = { "/usr/bin/bwrap", "--ro-bind", "/", "/", "--", "true", NULL };
  const char *wrapped[] = { launcher, "--write", ws, "--", "/usr/bin/bwrap", "--ro-bind", "/",
                            "/", "--", "make", "-j2", NULL };
  GPtrArray *got;
  int32_t status = 0;
  guint i;

  g_assert_true (DSH_BACKEND_ABI_AT_LEAST (desc, 2));
  g_assert_cmpint (desc->take_first_step (&fake->call.host, direct, &status), ==, 0);
  g_assert_cmpuint (fake->call.argv->len, ==, 0);

  g_assert_cmpint (desc->take_first_step (&fake->call.host, wrapped, &status), ==, 0);
  got = fake->call.argv;
  g_assert_cmpuint (got->len, >, 0);
  g_assert_cmpstr (got->pdata[0], ==, "/usr/bin/bwrap");
  for (i = 1; i < got->len && !g_str_equal (got->pdata[i], "--"); i++)
    if (g_str_equal (got->pdata[i], "--bind-fd") && g_str_equal (got->pdata[i + 2], ws))
      break;
  g_assert_cmpuint (i, <, got->len);
  g_assert_true (is_kept (fake, got->pdata[i + 1]));
  for (; i < got->len && !g_str_equal (got->pdata[i], "--"); i++)
    ;
  /* bwrap runs the launcher from a kept descriptor, with the checks in another. */
  g_assert_cmpuint (i + 4, <, got->len);
  g_assert_true (g_str_has_prefix (got->pdata[i + 1], "/proc/self/fd/"));
  g_assert_cmpstr (got->pdata[i + 2], ==, "--inside");
  g_assert_true (is_kept (fake, got->pdata[i + 3]));
  g_assert_true (is_kept (fake, got->pdata[i + 4]));
  desc->first_step_done (&fake->call.host);

  dsh_backend_fake_host_reset (fake);
  g_assert_cmpint (desc->take_first_step (&fake->call.host, wrapped, &status), ==, 0);
  g_assert_cmpuint (fake->call.argv->len, ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/bwrap-module/first-step", test_first_step);
  g_test_add_func ("/bwrap-module/descriptor", test_descriptor);
  g_test_add_func ("/bwrap-module/too-many-arguments-is-runner-failure",
                   test_too_many_arguments_is_runner_failure);
  g_test_add_func ("/bwrap-module/fails-closed-without-runner", test_fails_closed_without_bwrap);
  g_test_add_func ("/bwrap-module/read-only-argv", test_read_only_argv);
  g_test_add_func ("/bwrap-module/workspace-write-argv", test_workspace_write_argv);
  return g_test_run ();
}
