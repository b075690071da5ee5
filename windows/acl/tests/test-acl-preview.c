/* test-acl-preview.c — `dsh-sandbox confine --target-os windows` on this host: the ACL backend's
 * runner argv for the policy, marked as a preview. Two processes confining for one workspace
 * agree on its SID and never share a session SID or temp directory.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-test-util.h"

#include <glib/gstdio.h>

typedef struct {
  char *sid;
  char *session_sid;
  char *temp_dir;
  GStrv argv;
} Preview;

static void
preview_clear (Preview *p)
{
  g_free (p->sid);
  g_free (p->session_sid);
  g_free (p->temp_dir);
  g_strfreev (p->argv);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Preview, preview_clear)

static char *
value_after (const char *const *argv, const char *option)
{
  for (gsize i = 0; argv[i] != NULL && argv[i + 1] != NULL; i++)
    {
      if (g_str_equal (argv[i], "--"))
        break;
      if (g_str_equal (argv[i], option))
        return g_strdup (argv[i + 1]);
    }
  return NULL;
}

static void
run_preview (const char *mode, const char *workspace, const char *const *env, Preview *out)
{
  const char *args[] = { "confine", "--target-os", "windows", "--mode", mode, "--workspace",
                         workspace, "--", "cmd", "/c", "echo hi > out.txt", NULL };
  g_auto (DshTestRun) run = { 0 };
  g_autoptr (JsonNode) json = NULL;
  JsonObject *object;
  JsonArray *argv;

  dsh_test_run_cli (&run, args, env, NULL);
  g_assert_cmpstr (run.err, ==, "");
  g_assert_cmpint (run.exit_code, ==, 0);
  json = dsh_test_parse_valid_json (run.out, "confined-argv.schema.json");
  object = json_node_get_object (json);
  g_assert_true (json_object_get_boolean_member (object, "preview"));
  g_assert_cmpstr (json_object_get_string_member (object, "backend"), ==, "acl");
  g_assert_cmpstr (json_object_get_string_member (object, "enforcement"), ==, "partial");
  argv = json_object_get_array_member (object, "argv");
  out->argv = g_new0 (char *, json_array_get_length (argv) + 1);
  for (guint i = 0; i < json_array_get_length (argv); i++)
    out->argv[i] = g_strdup (json_array_get_string_element (argv, i));
  out->sid = value_after ((const char *const *) out->argv, "--workspace-sid");
  out->session_sid = value_after ((const char *const *) out->argv, "--session-sid");
  out->temp_dir = value_after ((const char *const *) out->argv, "--temp-dir");
}

static void
test_two_processes (void)
{
  g_autofree char *workspace = dsh_test_scratch_dir ("acl-preview");
  g_auto (Preview) first = { 0 };
  g_auto (Preview) second = { 0 };
  g_autofree char *write = NULL;
  guint n;

  run_preview ("workspace-write", workspace, NULL, &first);
  run_preview ("workspace-write", workspace, NULL, &second);
  g_assert_cmpstr (first.argv[0], ==, "dsh-acl-exec.exe");
  g_assert_nonnull (first.sid);
  g_assert_cmpstr (first.sid, ==, second.sid);
  g_assert_nonnull (first.session_sid);
  g_assert_cmpstr (first.session_sid, !=, second.session_sid);
  g_assert_nonnull (first.temp_dir);
  g_assert_cmpstr (first.temp_dir, !=, second.temp_dir);
  write = value_after ((const char *const *) first.argv, "--write");
  g_assert_cmpstr (write, ==, workspace);
  n = g_strv_length (first.argv);
  g_assert_cmpstr (first.argv[n - 4], ==, "--");
  g_assert_cmpstr (first.argv[n - 1], ==, "echo hi > out.txt");
  dsh_test_remove_tree (workspace);
}

static void
test_read_only (void)
{
  g_autofree char *workspace = dsh_test_scratch_dir ("acl-preview");
  g_auto (Preview) p = { 0 };

  run_preview ("read-only", workspace, NULL, &p);
  g_assert_nonnull (p.session_sid);
  g_assert_null (p.sid);
  g_assert_null (p.temp_dir);
  g_assert_null (value_after ((const char *const *) p.argv, "--write"));
  dsh_test_remove_tree (workspace);
}

static void
test_refusals (void)
{
  g_autofree char *workspace = dsh_test_scratch_dir ("acl-preview");
  g_autofree char *home = g_strdup_printf ("HOME=%s", workspace);
  /* This host's record of granted roots must stay out of that workspace-home. */
  g_autofree char *state = dsh_test_scratch_dir ("acl-preview-state");
  g_autofree char *state_env = g_strdup_printf ("DSH_SANDBOX_STATE_DIR=%s", state);
  const char *profile_env[] = { home, state_env, "USERPROFILE", NULL };

  g_assert_cmpint (g_chmod (state, 0700), ==, 0);
  const char *profile_args[] = { "confine", "--target-os", "windows", "--mode", "workspace-write",
                                 "--workspace", workspace, "--", "cmd", NULL };
  const char *unknown_args[] = { "confine", "--target-os", "plan9", "--", "true", NULL };
  g_auto (DshTestRun) run = { 0 };

  /* The Windows backend never grants the profile directory. */
  dsh_test_run_cli (&run, profile_args, profile_env, NULL);
  dsh_test_assert_refused (&run, "it is the user's profile directory");
  dsh_test_run_cli (&run, unknown_args, NULL, NULL);
  dsh_test_assert_refused (&run, "unknown --target-os \"plan9\": expected linux, macos or windows");
  dsh_test_remove_tree (workspace);
  dsh_test_remove_tree (state);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/acl-preview/two-processes", test_two_processes);
  g_test_add_func ("/acl-preview/read-only", test_read_only);
  g_test_add_func ("/acl-preview/refusals", test_refusals);
  return g_test_run ();
}
