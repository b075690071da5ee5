/* test-acl-module.c — the ACL backend module through a fake host on any host: its descriptor,
 * its instance hooks (a session keeps its SID and temp directory for one provider lifetime, a new
 * provider draws new ones, agentless calls draw them per call, the workspace SID never changes),
 * the argv it pushes for each mode, and its refusals.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <glib.h>
#include <string.h>

#include "dsh-acl-plan.h"
#include "dsh-backend.h"
#include "dsh-backend-fake-host-private.h"

const DshBackendDescriptor *dsh_backend_acl_describe (void);

/* The runner and a Windows user's environment; nothing else. */
static DshBackendFakeHost *
fake_new (void)
{
  DshBackendFakeHost *fake = dsh_backend_fake_host_new ();

  dsh_backend_fake_host_set_helper (fake, DSH_ACL_RUNNER, "C:\\dsh\\libexec\\dsh-acl-exec.exe");
  dsh_backend_fake_host_set_env (fake, "TEMP", "C:\\Users\\me\\AppData\\Local\\Temp");
  dsh_backend_fake_host_set_env (fake, "TMP", "C:\\Users\\me\\AppData\\Local\\Temp");
  dsh_backend_fake_host_set_env (fake, "USERPROFILE", "C:\\Users\\me");
  return fake;
}

/* Starts a call afresh, with the module's instance. */
static DshBackendHost *
fake_reset (DshBackendFakeHost *fake, void *instance)
{
  DshBackendHost *host;

  dsh_backend_fake_host_reset (fake);
  host = dsh_backend_fake_host_get_host (fake);
  host->instance = instance;
  return host;
}

/* The value after option in the last argv pushed, or NULL. */
static const char *
option_value (DshBackendFakeHost *fake, const char *option)
{
  for (guint i = 0; i + 1 < fake->call.argv->len; i++)
    {
      if (g_str_equal (fake->call.argv->pdata[i], "--"))
        break;
      if (g_str_equal (fake->call.argv->pdata[i], option))
        return fake->call.argv->pdata[i + 1];
    }
  return NULL;
}

typedef struct {
  char *session_sid;
  char *temp_dir;
  char *workspace_sid;
} Identity;

static void
identity_clear (Identity *id)
{
  g_free (id->session_sid);
  g_free (id->temp_dir);
  g_free (id->workspace_sid);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Identity, identity_clear)

/* Confines `cmd /c ver` with instance under workspace-write and returns the identity it used. */
static void
confine_identity (DshBackendFakeHost *fake, void *instance, const char *session,
                  const char *workspace, Identity *out)
{
  const char *roots[] = { workspace, "C:\\Users\\me\\AppData\\Local\\Temp", NULL };
  const DshBackendPolicy policy = { .mode = DSH_BACKEND_MODE_WORKSPACE_WRITE,
                                    .workspace_root = workspace,
                                    .session_id = session,
                                    .writable_roots = roots };
  const char *argv[] = { "cmd", "/c", "ver", NULL };
  DshBackendHost *host;

  host = fake_reset (fake, instance);
  g_assert_cmpint (dsh_backend_acl_describe ()->confine (host, &policy, argv), ==, 0);
  g_assert_null (fake->call.error);
  out->session_sid = g_strdup (option_value (fake, "--session-sid"));
  out->temp_dir = g_strdup (option_value (fake, "--temp-dir"));
  out->workspace_sid = g_strdup (option_value (fake, "--workspace-sid"));
}

static void
test_descriptor (void)
{
  const DshBackendDescriptor *desc = dsh_backend_acl_describe ();

  g_assert_cmpuint (desc->abi_major, ==, 1);
  g_assert_cmpuint (desc->abi_minor, ==, DSH_BACKEND_ABI_MINOR);
  g_assert_cmpstr (desc->name, ==, "acl");
  g_assert_cmpint (desc->os, ==, DSH_BACKEND_OS_WINDOWS);
  g_assert_nonnull (desc->instance_new);
  g_assert_nonnull (desc->instance_free);
  g_assert_nonnull (desc->version);
  g_assert_cmpstr (desc->license, ==, "LGPL-2.1-or-later");
  g_assert_cmpstr (desc->denial_signatures[0], ==, "Access is denied");
  g_assert_null (desc->denial_signatures[1]);
  g_assert_cmpuint (desc->n_runner_failure_rules, ==, 1);
  g_assert_cmpuint (desc->runner_failure_rules[0].n_allowed_exit_codes, ==, 1);
  g_assert_cmpint (desc->runner_failure_rules[0].allowed_exit_codes[0], ==, 125);
  g_assert_cmpstr (desc->runner_failure_rules[0].fatal_signatures[0], ==, "dsh-acl-exec: fatal: ");
}

static void
test_read_only_argv (void)
{
  const DshBackendDescriptor *desc = dsh_backend_acl_describe ();
  const DshBackendPolicy policy = { .mode = DSH_BACKEND_MODE_READ_ONLY,
                                    .workspace_root = "C:\\work",
                                    .session_id = "s1" };
  const char *argv[] = { "git", "status", NULL };
  g_autoptr (DshBackendFakeHost) fake = fake_new ();
  DshBackendHost *host;
  void *instance;

  instance = desc->instance_new (dsh_backend_fake_host_get_host (fake));
  g_assert_nonnull (instance);
  host = fake_reset (fake, instance);
  g_assert_cmpint (desc->check (host), ==, 0);
  g_assert_cmpint (desc->confine (host, &policy, argv), ==, 0);
  g_assert_cmpuint (fake->call.argv->len, ==, 6);
  g_assert_cmpstr (fake->call.argv->pdata[0], ==, "C:\\dsh\\libexec\\dsh-acl-exec.exe");
  g_assert_cmpstr (fake->call.argv->pdata[1], ==, "--session-sid");
  g_assert_cmpstr (fake->call.argv->pdata[3], ==, "--");
  g_assert_cmpstr (fake->call.argv->pdata[4], ==, "git");
  g_assert_null (option_value (fake, "--workspace-sid"));
  g_assert_null (option_value (fake, "--write"));
  g_assert_null (option_value (fake, "--temp-dir"));
  g_assert_cmpint (fake->backend_enforcement, ==, DSH_BACKEND_ENFORCEMENT_PARTIAL);
  g_assert_cmpuint (fake->call.reasons->len, ==, 1);
  g_assert_true (g_str_has_prefix (fake->call.reasons->pdata[0], "Everyone boundary"));
  desc->instance_free (instance);
}

static void
test_workspace_write_argv (void)
{
  const DshBackendDescriptor *desc = dsh_backend_acl_describe ();
  const char *roots[] = { "C:\\work", "/tmp", "C:\\Users\\me\\AppData\\Local\\Temp", "D:\\extra",
                          NULL };
  const char *const extra[] = { "D:\\extra", NULL };
  const DshBackendPolicy policy = { .mode = DSH_BACKEND_MODE_WORKSPACE_WRITE,
                                    .workspace_root = "C:\\work",
                                    .writable_roots = roots };
  const char *argv[] = { "cmd", NULL };
  g_autofree char *joined = NULL;
  char sid[DSH_ACL_SID_SIZE];
  g_autoptr (DshBackendFakeHost) fake = fake_new ();
  DshBackendHost *host;
  void *instance;

  instance = desc->instance_new (dsh_backend_fake_host_get_host (fake));
  host = fake_reset (fake, instance);
  g_assert_cmpint (desc->confine (host, &policy, argv), ==, 0);
  g_ptr_array_add (fake->call.argv, NULL);
  joined = g_strjoinv (" ", (char **) fake->call.argv->pdata);
  g_test_message ("%s", joined);
  /* The extra root's standing grant goes to the SID of these roots, not the workspace's own. */
  dsh_acl_grant_sid ("C:\\work", extra, 1, sid);
  g_assert_cmpstr (option_value (fake, "--workspace-sid"), ==, sid);
  /* Only the workspace and the extra root: the temp area is the session's own directory. */
  g_assert_nonnull (strstr (joined, " --write C:\\work --write D:\\extra --session-sid "));
  g_assert_true (g_str_has_prefix (option_value (fake, "--temp-dir"),
                                   "C:\\Users\\me\\AppData\\Local\\Temp\\dsh-acl-"));
  g_assert_cmpuint (fake->call.reasons->len, ==, 3);
  g_assert_true (g_str_has_prefix (fake->call.reasons->pdata[1], "hard-link boundary"));
  g_assert_true (g_str_has_prefix (fake->call.reasons->pdata[2], "git boundary"));
  desc->instance_free (instance);
}

static void
test_identity_lifetimes (void)
{
  const DshBackendDescriptor *desc = dsh_backend_acl_describe ();
  g_auto (Identity) a = { 0 }, again = { 0 }, other = { 0 }, agentless1 = { 0 },
                    agentless2 = { 0 }, resumed = { 0 };
  g_autoptr (DshBackendFakeHost) fake = fake_new ();
  void *first, *second;

  first = desc->instance_new (dsh_backend_fake_host_get_host (fake));
  second = desc->instance_new (dsh_backend_fake_host_get_host (fake));
  confine_identity (fake, first, "s1", "C:\\work", &a);
  confine_identity (fake, first, "s1", "C:\\work", &again);
  confine_identity (fake, first, "s2", "C:\\work", &other);
  confine_identity (fake, first, NULL, "C:\\work", &agentless1);
  confine_identity (fake, first, NULL, "C:\\work", &agentless2);
  /* A new provider: the same session resumed gets nothing its predecessor had. */
  confine_identity (fake, second, "s1", "C:\\work", &resumed);

  g_assert_cmpstr (a.session_sid, ==, again.session_sid);
  g_assert_cmpstr (a.temp_dir, ==, again.temp_dir);
  g_assert_cmpstr (a.session_sid, !=, other.session_sid);
  g_assert_cmpstr (a.temp_dir, !=, other.temp_dir);
  g_assert_cmpstr (agentless1.session_sid, !=, agentless2.session_sid);
  g_assert_cmpstr (agentless1.temp_dir, !=, agentless2.temp_dir);
  g_assert_cmpstr (a.session_sid, !=, resumed.session_sid);
  g_assert_cmpstr (a.temp_dir, !=, resumed.temp_dir);
  /* The workspace's SID is the workspace's, whoever asks. */
  g_assert_cmpstr (a.workspace_sid, ==, other.workspace_sid);
  g_assert_cmpstr (a.workspace_sid, ==, agentless1.workspace_sid);
  g_assert_cmpstr (a.workspace_sid, ==, resumed.workspace_sid);
  desc->instance_free (first);
  desc->instance_free (second);
}

/* A session's temp directory is granted to its session SID and outlives the call. Read-only
 * grants nothing, so its token must hold no SID anything was granted to: a read-only call of a
 * session that ran under workspace-write before must not hold that session's SID, or it could
 * write the session's temp directory. */
static void
test_read_only_holds_no_session_grant (void)
{
  const DshBackendDescriptor *desc = dsh_backend_acl_describe ();
  const DshBackendPolicy read_only = { .mode = DSH_BACKEND_MODE_READ_ONLY,
                                       .workspace_root = "C:\\work",
                                       .session_id = "s1" };
  const char *argv[] = { "cmd", "/c", "ver", NULL };
  g_auto (Identity) writing = { 0 }, writing_again = { 0 };
  g_autofree char *reading = NULL;
  g_autoptr (DshBackendFakeHost) fake = fake_new ();
  DshBackendHost *host;
  void *instance;

  instance = desc->instance_new (dsh_backend_fake_host_get_host (fake));
  confine_identity (fake, instance, "s1", "C:\\work", &writing);
  g_assert_nonnull (writing.temp_dir);
  host = fake_reset (fake, instance);
  g_assert_cmpint (desc->confine (host, &read_only, argv), ==, 0);
  reading = g_strdup (option_value (fake, "--session-sid"));
  g_assert_nonnull (reading);
  g_assert_cmpstr (reading, !=, writing.session_sid);
  /* The session keeps its own SID and temp directory for its next workspace-write call. */
  confine_identity (fake, instance, "s1", "C:\\work", &writing_again);
  g_assert_cmpstr (writing_again.session_sid, ==, writing.session_sid);
  g_assert_cmpstr (writing_again.temp_dir, ==, writing.temp_dir);
  desc->instance_free (instance);
}

/* A session's temp directory outlives the call, for the session's next one; an agentless call's
 * is the runner's to remove when the command ends. */
static void
test_temp_dir_lifetimes (void)
{
  const DshBackendDescriptor *desc = dsh_backend_acl_describe ();
  g_auto (Identity) session = { 0 }, agentless = { 0 };
  g_autoptr (DshBackendFakeHost) fake = fake_new ();
  void *instance;

  instance = desc->instance_new (dsh_backend_fake_host_get_host (fake));
  confine_identity (fake, instance, "s1", "C:\\work", &session);
  g_assert_nonnull (session.temp_dir);
  g_assert_null (option_value (fake, "--remove-temp-dir"));
  confine_identity (fake, instance, NULL, "C:\\work", &agentless);
  g_assert_nonnull (agentless.temp_dir);
  g_assert_cmpstr (option_value (fake, "--remove-temp-dir"), ==, "--");
  desc->instance_free (instance);
}

static void
assert_refused (DshBackendFakeHost *fake, void *instance, const DshBackendPolicy *policy,
                const char *needle)
{
  const char *argv[] = { "cmd", NULL };
  DshBackendHost *host;

  host = fake_reset (fake, instance);
  g_assert_cmpint (dsh_backend_acl_describe ()->confine (host, policy, argv), !=, 0);
  g_test_message ("%s", fake->call.error);
  g_assert_nonnull (fake->call.error);
  g_assert_nonnull (strstr (fake->call.error, needle));
  g_assert_cmpuint (fake->call.argv->len, ==, 0);
}

static void
test_refusals (void)
{
  const DshBackendDescriptor *desc = dsh_backend_acl_describe ();
  const char *profile_roots[] = { "C:\\Users\\me", NULL };
  const char *drive_roots[] = { "C:\\work", "C:\\", NULL };
  DshBackendPolicy policy = { .mode = DSH_BACKEND_MODE_WORKSPACE_WRITE,
                              .workspace_root = "C:\\Users\\me",
                              .writable_roots = profile_roots };
  g_autoptr (DshBackendFakeHost) fake = fake_new ();
  DshBackendHost *host;
  void *instance;

  instance = desc->instance_new (dsh_backend_fake_host_get_host (fake));
  assert_refused (fake, instance, &policy, "C:\\Users\\me: it is the user's profile directory");
  policy.workspace_root = "C:\\work";
  policy.writable_roots = drive_roots;
  assert_refused (fake, instance, &policy, "C:\\: it is the root of a drive or share");
  /* Without its instance the module refuses rather than keep no session state. */
  assert_refused (fake, NULL, &policy, "per-provider instance");
  dsh_backend_fake_host_set_env (fake, "TEMP", NULL);
  dsh_backend_fake_host_set_env (fake, "TMP", NULL);
  policy.writable_roots = NULL;
  assert_refused (fake, instance, &policy, "neither TEMP nor TMP");
  dsh_backend_fake_host_set_helper (fake, DSH_ACL_RUNNER, NULL);
  assert_refused (fake, instance, &policy, "dsh-acl-exec.exe was not found");
  host = fake_reset (fake, instance);
  g_assert_cmpint (desc->check (host), !=, 0);
  g_assert_nonnull (strstr (fake->call.error, "dsh-acl-exec.exe was not found"));
  desc->instance_free (instance);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/acl-module/descriptor", test_descriptor);
  g_test_add_func ("/acl-module/read-only-argv", test_read_only_argv);
  g_test_add_func ("/acl-module/workspace-write-argv", test_workspace_write_argv);
  g_test_add_func ("/acl-module/identity-lifetimes", test_identity_lifetimes);
  g_test_add_func ("/acl-module/temp-dir-lifetimes", test_temp_dir_lifetimes);
  g_test_add_func ("/acl-module/read-only-holds-no-session-grant",
                   test_read_only_holds_no_session_grant);
  g_test_add_func ("/acl-module/refusals", test_refusals);
  return g_test_run ();
}
