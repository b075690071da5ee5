/* test-confine-preview.c — "dsh-sandbox confine --target-os": another OS's backend answers for
 * this host's policy, marked as a preview; this host's OS answers as plain confine does; an OS
 * whose logic is not built in, or an unknown one, is refused with a clear message.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>

#include "dsh-test-util.h"

static JsonNode *
confine_preview (const char *mode, const char *workspace, const char *const *command)
{
  g_autoptr (GPtrArray) args = g_ptr_array_new ();
  g_auto (DshTestRun) run = { 0 };
  JsonNode *node;

  g_ptr_array_add (args, (gpointer) "confine");
  g_ptr_array_add (args, (gpointer) "--target-os");
  g_ptr_array_add (args, (gpointer) "macos");
  g_ptr_array_add (args, (gpointer) "--mode");
  g_ptr_array_add (args, (gpointer) mode);
  g_ptr_array_add (args, (gpointer) "--workspace");
  g_ptr_array_add (args, (gpointer) workspace);
  g_ptr_array_add (args, (gpointer) "--");
  for (gsize i = 0; command[i] != NULL; i++)
    g_ptr_array_add (args, (gpointer) command[i]);
  g_ptr_array_add (args, NULL);

  dsh_test_run_cli (&run, (const char *const *) args->pdata, NULL, "/");
  g_assert_cmpstr (run.err, ==, "");
  g_assert_cmpint (run.exit_code, ==, 0);
  node = dsh_test_parse_valid_json (run.out, "confined-argv.schema.json");
  g_assert_true (json_object_get_boolean_member (json_node_get_object (node), "preview"));
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (node), "backend"), ==,
                   "seatbelt");
  return node;
}

static JsonArray *
argv_of (JsonNode *node)
{
  return json_object_get_array_member (json_node_get_object (node), "argv");
}

static const char *
item (JsonNode *node, guint i)
{
  return json_array_get_string_element (argv_of (node), i);
}

static void
test_macos_read_only (void)
{
  g_autofree char *ws = dsh_test_scratch_dir ("preview-ro");
  const char *command[] = { "git", "status", "--", "-p", NULL };
  g_autoptr (JsonNode) node = confine_preview ("read-only", ws, command);
  JsonObject *object = json_node_get_object (node);

  g_assert_cmpuint (json_array_get_length (argv_of (node)), ==, 4 + 4);
  g_assert_cmpstr (item (node, 0), ==, "/usr/bin/sandbox-exec");
  g_assert_cmpstr (item (node, 1), ==, "-p");
  g_assert_true (g_str_has_prefix (item (node, 2), "(version 1)\n(deny default)\n"));
  g_assert_cmpstr (item (node, 3), ==, "--");
  for (guint i = 0; command[i] != NULL; i++)
    g_assert_cmpstr (item (node, 4 + i), ==, command[i]);
  /* The terminal it shares with its caller (TIOCSTI) keeps every Seatbelt call partial. */
  g_assert_cmpstr (json_object_get_string_member (object, "enforcement"), ==, "partial");
  g_assert_cmpstr (json_array_get_string_element (
                     json_object_get_array_member (object, "denialSignatures"), 0), ==,
                   "Operation not permitted");
  dsh_test_remove_tree (ws);
}

/* The -D values for a workspace; the profile is returned in *profile. */
static GPtrArray *
workspace_write_defines (const char *ws, char **profile)
{
  const char *command[] = { "true", NULL };
  g_autoptr (JsonNode) node = confine_preview ("workspace-write", ws, command);
  JsonArray *argv = argv_of (node);
  GPtrArray *defines = g_ptr_array_new_with_free_func (g_free);
  guint n = json_array_get_length (argv);

  g_assert_cmpstr (item (node, n - 2), ==, "--");
  for (guint i = 3; i + 2 < n; i++)
    g_ptr_array_add (defines, g_strdup (item (node, i)));
  *profile = g_strdup (item (node, 2));
  return defines;
}

/* path as macOS spells it: /tmp, /var and /etc are symlinks into /private there, and Seatbelt
 * matches the resolved path (a scratch directory under /var/tmp included). */
static char *
macos_spelling (const char *path)
{
  const char *const private_links[] = { "/tmp", "/var", "/etc" };

  for (guint i = 0; i < G_N_ELEMENTS (private_links); i++)
    {
      if (g_str_has_prefix (path, private_links[i]) &&
          (path[strlen (private_links[i])] == '/' || path[strlen (private_links[i])] == '\0'))
        return g_strconcat ("/private", path, NULL);
    }
  return g_strdup (path);
}

static void
test_macos_workspace_write (void)
{
  g_autofree char *plain = dsh_test_scratch_dir ("preview-ws");
  g_autofree char *parent = dsh_test_scratch_dir ("preview-hostile");
  g_autofree char *hostile = g_build_filename (parent, "a \"b\" (allow file-write*)\n;=c", NULL);
  g_autofree char *hostile_canonical = NULL;
  g_autofree char *hostile_on_macos = NULL;
  g_autofree char *plain_profile = NULL;
  g_autofree char *hostile_profile = NULL;
  g_autofree char *want = NULL;
  g_autoptr (GPtrArray) plain_defines = NULL;
  g_autoptr (GPtrArray) hostile_defines = NULL;
  gboolean saw_tmp = FALSE;

  g_assert_no_errno (g_mkdir (hostile, 0700));
  hostile_canonical = realpath (hostile, NULL);
  plain_defines = workspace_write_defines (plain, &plain_profile);
  hostile_defines = workspace_write_defines (hostile, &hostile_profile);

  /* The same roots but the workspace: the same profile, the path only as a -D value. */
  g_assert_cmpuint (plain_defines->len, ==, hostile_defines->len);
  g_assert_cmpstr (plain_profile, ==, hostile_profile);
  g_assert_null (strstr (hostile_profile, "allow file-write*)\n;=c"));
  hostile_on_macos = macos_spelling (hostile_canonical);
  want = g_strconcat ("-DWRITABLE_ROOT_0=", hostile_on_macos, NULL);
  g_assert_cmpstr (hostile_defines->pdata[0], ==, want);
  for (guint i = 0; i < plain_defines->len; i++)
    saw_tmp = saw_tmp || g_str_equal (plain_defines->pdata[i], "-DWRITABLE_ROOT_1=/private/tmp");
  /* This host's /tmp, in the spelling macOS resolves it to. */
  g_assert_true (saw_tmp);
  dsh_test_remove_tree (plain);
  dsh_test_remove_tree (parent);
}

static void
test_this_host_is_no_preview (void)
{
  /* Not beneath the build tree: the modules there would be refused as writable. */
  g_autofree char *ws = dsh_test_make_tmp_dir ();
  const char *args[] = { "confine", "--target-os", "linux", "--workspace", ws, "--", "true",
                         NULL };
  const char *env[] = { "DSH_SANDBOX_BACKEND=bwrap", NULL };
  g_auto (DshTestRun) run = { 0 };
  g_autoptr (JsonNode) node = NULL;

  if (!dsh_test_require_bwrap ())
    return;
  dsh_test_run_cli (&run, args, env, "/");
  g_assert_cmpint (run.exit_code, ==, 0);
  node = dsh_test_parse_valid_json (run.out, "confined-argv.schema.json");
  g_assert_false (json_object_has_member (json_node_get_object (node), "preview"));
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (node), "backend"), ==,
                   "bwrap");
}

static void
test_refusals (void)
{
  g_autofree char *ws = dsh_test_scratch_dir ("preview-refused");
  const char *unknown[] = { "confine", "--target-os", "beos", "--", "true", NULL };
  const char *danger[] = { "confine", "--target-os", "macos", "--mode", "danger-full-access",
                           "--workspace", ws, "--", "true", NULL };
  const char *windows[] = { "confine", "--target-os", "windows", "--workspace", ws, "--", "true",
                            NULL };
  g_auto (DshTestRun) run = { 0 };

  dsh_test_run_cli (&run, unknown, NULL, "/");
  dsh_test_assert_refused (&run, "unknown --target-os \"beos\": expected linux, macos or windows");
  dsh_test_run_cli (&run, danger, NULL, "/");
  dsh_test_assert_refused (&run, "danger-full-access is not confined");

  /* Every OS's logic is linked in: the Windows preview is a valid one, never a stand-in. */
  dsh_test_run_cli (&run, windows, NULL, "/");
  g_assert_cmpint (run.exit_code, ==, 0);
  {
    g_autoptr (JsonNode) node = dsh_test_parse_valid_json (run.out, "confined-argv.schema.json");
    JsonObject *object = json_node_get_object (node);

    g_assert_true (json_object_get_boolean_member (object, "preview"));
    g_assert_cmpstr (json_object_get_string_member (object, "backend"), ==, "acl");
    g_assert_true (g_str_has_suffix (
      json_array_get_string_element (json_object_get_array_member (object, "argv"), 0),
      "dsh-acl-exec.exe"));
  }
  dsh_test_remove_tree (ws);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/confine-preview/macos-read-only", test_macos_read_only);
  g_test_add_func ("/confine-preview/macos-workspace-write", test_macos_workspace_write);
  g_test_add_func ("/confine-preview/this-host-is-no-preview", test_this_host_is_no_preview);
  g_test_add_func ("/confine-preview/refusals", test_refusals);
  return g_test_run ();
}
