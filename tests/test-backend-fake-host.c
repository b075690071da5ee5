/* test-backend-fake-host.c — the fake backend host answers only what it was told, records what
 * a module reports and every probe it was asked to run, and starts each call afresh on reset.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-backend-fake-host-private.h"

static void
test_answers (void)
{
  g_autoptr (DshBackendFakeHost) fake = dsh_backend_fake_host_new ();
  DshBackendHost *host = dsh_backend_fake_host_get_host (fake);

  /* Nothing from the real system: not even a program every host has. */
  g_assert_null (host->find_program (host, "sh"));
  g_assert_null (host->find_helper (host, "dsh-landlock-exec"));
  g_assert_null (host->get_env (host, "PATH"));

  dsh_backend_fake_host_set_program (fake, "runner", "/opt/runner");
  dsh_backend_fake_host_set_helper (fake, "helper", "/usr/libexec/helper");
  dsh_backend_fake_host_set_env (fake, "HOME", "/Users/me");
  g_assert_cmpstr (host->find_program (host, "runner"), ==, "/opt/runner");
  g_assert_cmpstr (host->find_helper (host, "helper"), ==, "/usr/libexec/helper");
  g_assert_cmpstr (host->get_env (host, "HOME"), ==, "/Users/me");
  g_assert_null (host->find_program (host, "helper"));

  dsh_backend_fake_host_set_program (fake, "runner", NULL);
  g_assert_null (host->find_program (host, "runner"));
}

static void
test_probes (void)
{
  g_autoptr (DshBackendFakeHost) fake = dsh_backend_fake_host_new ();
  DshBackendHost *host = dsh_backend_fake_host_get_host (fake);
  const char *argv[] = { "/opt/runner", "--", "true", NULL };
  char line[8];
  int status = -1;

  g_assert_cmpint (host->spawn_probe (host, argv, &status, line, sizeof line), !=, 0);
  g_assert_cmpint (status, ==, -1);

  dsh_backend_fake_host_set_probe (fake, TRUE, 71, "runner: a long first line");
  g_assert_cmpint (host->spawn_probe (host, argv, &status, line, sizeof line), ==, 0);
  g_assert_cmpint (status, ==, 71);
  /* Cut to the caller's buffer, NUL-terminated. */
  g_assert_cmpstr (line, ==, "runner:");
  g_assert_cmpuint (fake->probes->len, ==, 2);
  g_assert_cmpstrv ((const char *const *) fake->probes->pdata[1], argv);
}

static void
test_reports_and_reset (void)
{
  g_autoptr (DshBackendFakeHost) fake = dsh_backend_fake_host_new ();
  DshBackendHost *host = dsh_backend_fake_host_get_host (fake);
  const char *argv[] = { "x", NULL };

  dsh_backend_fake_host_set_program (fake, "runner", "/opt/runner");
  host->push_arg (host, "/opt/runner");
  host->set_error (host, "bad \xff");
  host->set_enforcement (host, DSH_BACKEND_ENFORCEMENT_PARTIAL);
  host->add_reason (host, "why");
  host->spawn_probe (host, argv, NULL, NULL, 0);
  g_assert_cmpuint (fake->call.argv->len, ==, 1);
  g_assert_true (g_utf8_validate (fake->call.error, -1, NULL));
  g_assert_cmpint (fake->call.enforcement, ==, DSH_ENFORCEMENT_PARTIAL);
  g_assert_cmpuint (fake->call.reasons->len, ==, 1);
  /* The value as the module passed it, beside what the core makes of it. */
  g_assert_true (fake->enforcement_set);
  g_assert_cmpint (fake->backend_enforcement, ==, DSH_BACKEND_ENFORCEMENT_PARTIAL);

  dsh_backend_fake_host_reset (fake);
  host = dsh_backend_fake_host_get_host (fake);
  g_assert_cmpuint (fake->call.argv->len, ==, 0);
  g_assert_null (fake->call.error);
  g_assert_cmpint (fake->call.enforcement, ==, DSH_ENFORCEMENT_FULL);
  g_assert_cmpuint (fake->call.reasons->len, ==, 0);
  g_assert_false (fake->enforcement_set);
  g_assert_cmpuint (fake->probes->len, ==, 0);
  /* The answers outlive a reset. */
  g_assert_cmpstr (host->find_program (host, "runner"), ==, "/opt/runner");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/backend-fake-host/answers", test_answers);
  g_test_add_func ("/backend-fake-host/probes", test_probes);
  g_test_add_func ("/backend-fake-host/reports-and-reset", test_reports_and_reset);
  return g_test_run ();
}
