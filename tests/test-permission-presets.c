/* test-permission-presets.c — the preset tables as cases: selection events in
 * order and only on change, net-zero selections, current() preference, custom never selectable,
 * sessions pinned at creation, and the configuration file.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-test-util.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include <glib/gstdio.h>

#include "dsh-permission-presets-cache-private.h"

/* A new session log in a fresh temporary directory, which is also its cwd. */
static DshSessionLog *
new_session (const char *name)
{
  g_autofree char *dir = dsh_test_make_tmp_dir ();
  g_autofree char *path = g_build_filename (dir, name, NULL);

  return dsh_test_create_session_log (path, dir);
}

/* The types appended since the event count `since`, comma-separated. */
static char *
types_since (DshSessionLog *log, guint since)
{
  g_autoptr (GPtrArray) events = dsh_session_log_dup_events (log);
  g_autoptr (GString) out = g_string_new (NULL);

  for (guint i = since; i < events->len; i++)
    {
      const DshSessionEvent *event = g_ptr_array_index (events, i);

      if (out->len > 0)
        g_string_append_c (out, ',');
      g_string_append (out, dsh_session_event_get_type_name (event));
      if (dsh_session_event_get_kind (event) == DSH_SESSION_EVENT_PERMISSION_PRESET)
        g_string_append_printf (out, "=%s", dsh_session_event_get_string (event, "preset"));
      else if (dsh_session_event_get_kind (event) == DSH_SESSION_EVENT_SANDBOX_MODE)
        g_string_append_printf (out, "=%s", dsh_session_event_get_string (event, "mode"));
      else if (dsh_session_event_get_kind (event) == DSH_SESSION_EVENT_APPROVAL_POLICY)
        g_string_append_printf (out, "=%s", dsh_session_event_get_string (event, "policy"));
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

static guint
event_count (DshSessionLog *log)
{
  g_autoptr (GPtrArray) events = dsh_session_log_dup_events (log);

  return events->len;
}

static char *
current (DshPermissionPresets *presets, DshSessionLog *log)
{
  g_autoptr (GPtrArray) events = dsh_session_log_dup_events (log);

  return dsh_permission_presets_current (presets, events);
}

static void
test_default_table (void)
{
  g_autoptr (DshPermissionPresets) presets = dsh_permission_presets_new ();
  g_auto (GStrv) names = dsh_permission_presets_dup_names (presets);
  DshSandboxMode mode;
  DshApprovalPolicy policy;

  /* The defaults: workspace-write = workspace-write + ask; danger-full-access = dfa + never. */
  g_assert_cmpuint (g_strv_length (names), ==, 2);
  g_assert_cmpstr (names[0], ==, "workspace-write");
  g_assert_cmpstr (names[1], ==, "danger-full-access");
  g_assert_true (dsh_permission_presets_lookup (presets, "workspace-write", &mode, &policy));
  g_assert_cmpint (mode, ==, DSH_SANDBOX_MODE_WORKSPACE_WRITE);
  g_assert_cmpint (policy, ==, DSH_APPROVAL_POLICY_ASK);
  g_assert_true (dsh_permission_presets_lookup (presets, "danger-full-access", &mode, &policy));
  g_assert_cmpint (mode, ==, DSH_SANDBOX_MODE_DANGER_FULL_ACCESS);
  g_assert_cmpint (policy, ==, DSH_APPROVAL_POLICY_NEVER);
  g_assert_false (dsh_permission_presets_lookup (presets, "custom", NULL, NULL));
  g_assert_cmpint (dsh_permission_presets_get_default_mode (presets), ==,
                   DSH_SANDBOX_MODE_READ_ONLY);
  g_assert_cmpint (dsh_permission_presets_get_default_approval_policy (presets), ==,
                   DSH_APPROVAL_POLICY_ASK);
  g_assert_null (dsh_permission_presets_get_default_preset (presets));
}

/* One step of a table case: a selection (or a manual knob switch) and what it must append. */
typedef struct {
  const char *action;   /* "preset NAME", "mode MODE", "policy POLICY" */
  const char *appended; /* the types appended, "" for a net-zero step */
  const char *current;  /* current() afterwards */
} Step;

typedef struct {
  const char *name;
  const char *config;   /* NULL: the default table */
  Step steps[6];
} PresetCase;

static const PresetCase cases[] = {
  { "select-from-fresh-session", NULL, {
      /* Effective approval policy is already ask (the default): no approval/policy event. */
      { "preset workspace-write",
        "permissionPresets/preset=workspace-write,sandbox/mode=workspace-write",
        "workspace-write" },
      { "preset workspace-write", "", "workspace-write" },
      { "preset danger-full-access",
        "permissionPresets/preset=danger-full-access,sandbox/mode=danger-full-access,"
        "approval/policy=never", "danger-full-access" },
      { "preset danger-full-access", "", "danger-full-access" },
      { "preset workspace-write",
        "permissionPresets/preset=workspace-write,sandbox/mode=workspace-write,"
        "approval/policy=ask", "workspace-write" },
      { NULL } } },
  { "manual-knob-makes-custom", NULL, {
      { "preset workspace-write",
        "permissionPresets/preset=workspace-write,sandbox/mode=workspace-write",
        "workspace-write" },
      { "mode read-only", "sandbox/mode=read-only", "custom" },
      /* The recorded selection is still workspace-write: only the knob moves back. */
      { "preset workspace-write", "sandbox/mode=workspace-write", "workspace-write" },
      { "policy never", "approval/policy=never", "custom" },
      { "mode danger-full-access", "sandbox/mode=danger-full-access", "danger-full-access" },
      { NULL } } },
  { "unrecorded-knobs-match-first-entry", NULL, {
      { "mode danger-full-access", "sandbox/mode=danger-full-access", "custom" },
      { "policy never", "approval/policy=never", "danger-full-access" },
      { "preset danger-full-access", "permissionPresets/preset=danger-full-access",
        "danger-full-access" },
      { NULL } } },
  { "shared-bundle-keeps-intent",
    "{\"presets\":[{\"name\":\"team\",\"mode\":\"workspace-write\",\"approvalPolicy\":\"ask\"},"
    "{\"name\":\"solo\",\"mode\":\"workspace-write\",\"approvalPolicy\":\"ask\"}]}", {
      { "preset solo", "permissionPresets/preset=solo,sandbox/mode=workspace-write", "solo" },
      /* Same bundle: the selection is recorded, the knobs are untouched. */
      { "preset team", "permissionPresets/preset=team", "team" },
      { "preset team", "", "team" },
      { "preset solo", "permissionPresets/preset=solo", "solo" },
      { "mode read-only", "sandbox/mode=read-only", "custom" },
      { NULL } } },
  { "read-only-preset-from-config",
    "{\"defaultMode\":\"workspace-write\",\"presets\":[{\"name\":\"look\",\"mode\":\"read-only\","
    "\"approvalPolicy\":\"never\"},{\"name\":\"work\",\"mode\":\"workspace-write\","
    "\"approvalPolicy\":\"ask\"}]}", {
      { "preset work", "permissionPresets/preset=work", "work" },
      { "preset look", "permissionPresets/preset=look,sandbox/mode=read-only,approval/policy=never",
        "look" },
      { NULL } } },
};

static void
apply_action (DshPermissionPresets *presets, DshSessionLog *log, const char *action)
{
  g_auto (GStrv) words = g_strsplit (action, " ", 2);
  g_autoptr (GError) error = NULL;

  if (g_str_equal (words[0], "preset"))
    g_assert_true (dsh_permission_presets_set (presets, log, words[1], NULL, &error));
  else if (g_str_equal (words[0], "mode"))
    {
      DshSandboxMode mode;

      g_assert_true (dsh_sandbox_mode_from_string (words[1], &mode, &error));
      g_assert_true (dsh_session_log_append_mode (log, mode, &error));
    }
  else
    {
      DshApprovalPolicy policy;

      g_assert_true (dsh_approval_policy_from_string (words[1], &policy, &error));
      g_assert_true (dsh_session_log_append_approval_policy (log, policy, &error));
    }
  g_assert_no_error (error);
}

static void
run_case (gconstpointer data)
{
  const PresetCase *c = data;
  g_autoptr (DshPermissionPresets) presets = NULL;
  g_autoptr (DshSessionLog) log = new_session ("case.jsonl");
  g_autoptr (GError) error = NULL;

  if (c->config != NULL)
    presets = dsh_permission_presets_new_from_json (c->config, -1, &error);
  else
    presets = dsh_permission_presets_new ();
  g_assert_no_error (error);

  for (guint i = 0; c->steps[i].action != NULL; i++)
    {
      guint before = event_count (log);
      g_autofree char *appended = NULL;
      g_autofree char *now = NULL;

      apply_action (presets, log, c->steps[i].action);
      appended = types_since (log, before);
      now = current (presets, log);
      g_test_message ("step %u: %s -> [%s], current %s", i, c->steps[i].action, appended, now);
      g_assert_cmpstr (appended, ==, c->steps[i].appended);
      g_assert_cmpstr (now, ==, c->steps[i].current);

      /* current() is a fold: a restart agrees. */
      {
        g_autoptr (DshSessionLog) restarted =
          dsh_test_load_session_log (dsh_session_log_get_path (log));
        g_autofree char *again = current (presets, restarted);

        g_assert_cmpstr (again, ==, now);
      }
    }
}

static void
test_custom_and_unknown_never_selectable (void)
{
  g_autoptr (DshPermissionPresets) presets = dsh_permission_presets_new ();
  g_autoptr (DshSessionLog) log = new_session ("s.jsonl");
  g_autoptr (GError) error = NULL;
  static const char *const refused[] = { "custom", "Custom", "", "workspace_write", "root" };

  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      g_assert_false (dsh_permission_presets_set (presets, log, refused[i], NULL, &error));
      g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT);
      g_clear_error (&error);
    }
  g_assert_cmpuint (event_count (log), ==, 0);

  g_assert_false (dsh_permission_presets_add (presets, "custom", DSH_SANDBOX_MODE_READ_ONLY,
                                              DSH_APPROVAL_POLICY_ASK, &error));
  g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (dsh_permission_presets_add (presets, "workspace-write",
                                              DSH_SANDBOX_MODE_READ_ONLY,
                                              DSH_APPROVAL_POLICY_ASK, &error));
  g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (dsh_permission_presets_set_default_preset (presets, "custom", &error));
  g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT);
}

static void
test_create_session_pins (void)
{
  /* The logs beside the session's cwd, out of its commands' reach. */
  g_autofree char *dir = dsh_test_scratch_dir ("presets");
  g_autofree char *ws = dsh_test_make_dir (dir, "ws");
  g_autofree char *with_preset = g_build_filename (dir, "a.jsonl", NULL);
  g_autofree char *without = g_build_filename (dir, "b.jsonl", NULL);
  g_autofree char *refused = g_build_filename (dir, "c.jsonl", NULL);
  g_autoptr (DshPermissionPresets) presets = dsh_permission_presets_new ();
  g_autoptr (DshSessionLog) a = NULL;
  g_autoptr (DshSessionLog) b = NULL;
  g_autoptr (DshSessionLog) c = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *a_types = NULL;
  g_autofree char *b_types = NULL;
  g_autofree char *b_current = NULL;

  a = dsh_permission_presets_create_session (presets, with_preset, ws, "danger-full-access",
                                             &error);
  g_assert_no_error (error);
  a_types = types_since (a, 0);
  g_assert_cmpstr (a_types, ==,
                   "permissionPresets/preset=danger-full-access,sandbox/mode=danger-full-access,"
                   "approval/policy=never");

  /* No preset and no default preset: the knobs are still pinned (read-only, ask). */
  b = dsh_permission_presets_create_session (presets, without, ws, NULL, &error);
  g_assert_no_error (error);
  b_types = types_since (b, 0);
  g_assert_cmpstr (b_types, ==, "sandbox/mode=read-only,approval/policy=ask");
  b_current = current (presets, b);
  g_assert_cmpstr (b_current, ==, "custom");

  /* An unselectable preset creates nothing at all. */
  c = dsh_permission_presets_create_session (presets, refused, ws, "custom", &error);
  g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT);
  g_assert_null (c);
  g_assert_false (g_file_test (refused, G_FILE_TEST_EXISTS));
  dsh_test_remove_tree (dir);
}

/* What every later call would refuse, creation refuses, with the reason, for a harness on the
 * library as for `session new`: a cwd that is no directory, a cwd of /, and a log the session's
 * own commands could write (beneath its workspace, or /tmp). */
static void
test_create_session_refusals (void)
{
  g_autofree char *dir = dsh_test_scratch_dir ("presets");
  g_autofree char *ws = dsh_test_make_dir (dir, "ws");
  g_autofree char *log = g_build_filename (dir, "log.jsonl", NULL);
  g_autofree char *inside = g_build_filename (ws, "log.jsonl", NULL);
  g_autofree char *missing = g_build_filename (dir, "missing", NULL);
  g_autofree char *tmp_dir = dsh_test_make_tmp_dir ();
  g_autofree char *in_tmp = g_build_filename (tmp_dir, "log.jsonl", NULL);
  g_autoptr (DshPermissionPresets) presets = dsh_permission_presets_new ();
  const struct {
    const char *log;
    const char *cwd;
    int code;
  } refusals[] = {
    { log, missing, DSH_SANDBOX_ERROR_INVALID_ARGUMENT },
    { log, "/", DSH_SANDBOX_ERROR_ROOT_REFUSED },
    { inside, ws, DSH_SANDBOX_ERROR_SESSION_LOG },
    { in_tmp, ws, DSH_SANDBOX_ERROR_SESSION_LOG },
  };

  for (guint i = 0; i < G_N_ELEMENTS (refusals); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (DshSessionLog) session =
        dsh_permission_presets_create_session (presets, refusals[i].log, refusals[i].cwd, NULL,
                                               &error);

      g_test_message ("%s in %s: %s", refusals[i].log, refusals[i].cwd,
                      error != NULL ? error->message : "created");
      g_assert_error (error, DSH_SANDBOX_ERROR, refusals[i].code);
      g_assert_null (session);
      g_assert_false (g_file_test (refusals[i].log, G_FILE_TEST_EXISTS));
    }
  dsh_test_remove_tree (dir);
}

static void
test_default_change_leaves_existing_sessions (void)
{
  g_autofree char *dir = dsh_test_scratch_dir ("presets");
  g_autofree char *ws = dsh_test_make_dir (dir, "ws");
  g_autofree char *old_path = g_build_filename (dir, "old.jsonl", NULL);
  g_autofree char *new_path = g_build_filename (dir, "new.jsonl", NULL);
  g_autoptr (DshPermissionPresets) before = dsh_permission_presets_new ();
  g_autoptr (DshPermissionPresets) after = NULL;
  g_autoptr (DshSessionLog) old_session = NULL;
  g_autoptr (DshSessionLog) new_session_log = NULL;
  g_autoptr (DshSessionLog) reloaded = NULL;
  g_autoptr (DshPolicyService) service = NULL;
  g_autoptr (DshSandboxPolicy) old_policy = NULL;
  g_autoptr (DshSandboxPolicy) new_policy = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *old_current = NULL;

  old_session = dsh_permission_presets_create_session (before, old_path, ws, NULL, &error);
  g_assert_no_error (error);

  /* The operator widens the defaults afterwards. */
  after = dsh_permission_presets_new_from_json (
    "{\"defaultMode\":\"danger-full-access\",\"defaultApprovalPolicy\":\"never\","
    "\"defaultPreset\":\"danger-full-access\"}", -1, &error);
  g_assert_no_error (error);
  service = dsh_policy_service_new (dsh_permission_presets_get_default_mode (after), ws);

  reloaded = dsh_test_load_session_log (old_path);
  old_policy = dsh_policy_service_resolve (service, reloaded);
  g_assert_cmpint (old_policy->mode, ==, DSH_SANDBOX_MODE_READ_ONLY);
  {
    g_autoptr (GPtrArray) events = dsh_session_log_dup_events (reloaded);

    g_assert_cmpint (dsh_permission_presets_effective_approval_policy (after, events), ==,
                     DSH_APPROVAL_POLICY_ASK);
  }
  old_current = current (after, reloaded);
  g_assert_cmpstr (old_current, ==, "custom");

  /* New sessions get the new defaults. */
  new_session_log = dsh_permission_presets_create_session (after, new_path, ws, NULL, &error);
  g_assert_no_error (error);
  new_policy = dsh_policy_service_resolve (service, new_session_log);
  g_assert_cmpint (new_policy->mode, ==, DSH_SANDBOX_MODE_DANGER_FULL_ACCESS);
  dsh_test_remove_tree (dir);
}

static void
test_config_errors (void)
{
  static const char *const bad[] = {
    "",
    "[]",
    "{\"defaultmode\":\"read-only\"}",
    "{\"defaultMode\":\"root\"}",
    "{\"defaultApprovalPolicy\":\"always\"}",
    "{\"defaultPreset\":\"custom\"}",
    "{\"defaultPreset\":\"nope\"}",
    "{\"presets\":{}}",
    "{\"presets\":[{\"name\":\"custom\",\"mode\":\"read-only\",\"approvalPolicy\":\"ask\"}]}",
    "{\"presets\":[{\"name\":\"a\",\"mode\":\"read-only\",\"approvalPolicy\":\"ask\"},"
    "{\"name\":\"a\",\"mode\":\"read-only\",\"approvalPolicy\":\"ask\"}]}",
    "{\"presets\":[{\"name\":\"a\",\"mode\":\"read-only\"}]}",
    "{\"presets\":[{\"name\":\"a\",\"mode\":\"read-only\",\"approvalPolicy\":\"ask\",\"x\":1}]}",
    "{\"presets\":[],}",
    "{\"defaultMode\":\"read-only\",\"defaultMode\":\"danger-full-access\"}",
    "{\"extraWritableRoots\":\"/a\"}",
    "{\"extraWritableRoots\":[\"relative\"]}",
    "{\"extraWritableRoots\":[\"~user/x\"]}",
    "{\"extraWritableRoots\":[1]}",
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (DshPermissionPresets) presets = dsh_permission_presets_new_from_json (bad[i], -1,
                                                                                       &error);

      g_test_message ("config %s", bad[i]);
      g_assert_nonnull (error);
      g_assert_null (presets);
    }
}

/* extraWritableRoots: absolute paths and "~/" under $HOME, in order. */
static void
test_config_extra_roots (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (DshPermissionPresets) presets = NULL;
  g_autoptr (DshPermissionPresets) none = dsh_permission_presets_new ();
  g_autofree char *npm = g_build_filename (g_getenv ("HOME"), ".npm", NULL);
  const char *const *roots;

  presets = dsh_permission_presets_new_from_json (
    "{\"extraWritableRoots\":[\"/srv/cache\",\"~/.npm\"]}", -1, &error);
  g_assert_no_error (error);
  roots = dsh_permission_presets_get_extra_writable_roots (presets);
  g_assert_nonnull (roots);
  g_assert_cmpstr (roots[0], ==, "/srv/cache");
  g_assert_cmpstr (roots[1], ==, npm);
  g_assert_null (roots[2]);
  g_assert_null (dsh_permission_presets_get_extra_writable_roots (none));
}

static void
test_config_file (void)
{
  g_autofree char *dir = dsh_test_make_tmp_dir ();
  g_autofree char *path = g_build_filename (dir, "config.json", NULL);
  g_autoptr (DshPermissionPresets) presets = NULL;
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) names = NULL;

  dsh_test_write_file (path,
    "{\"defaultMode\":\"workspace-write\",\"defaultApprovalPolicy\":\"never\","
    "\"defaultPreset\":\"b\",\"presets\":["
    "{\"name\":\"a\",\"mode\":\"read-only\",\"approvalPolicy\":\"ask\"},"
    "{\"name\":\"b\",\"mode\":\"workspace-write\",\"approvalPolicy\":\"never\"}]}");
  {
    g_autofree char *text = dsh_test_read_file (path);

    dsh_test_assert_valid_json (text, "config.schema.json");
  }
  presets = dsh_permission_presets_new_from_file (path, &error);
  g_assert_no_error (error);
  names = dsh_permission_presets_dup_names (presets);
  g_assert_cmpuint (g_strv_length (names), ==, 2);
  g_assert_cmpstr (dsh_permission_presets_get_default_preset (presets), ==, "b");
  g_assert_cmpint (dsh_permission_presets_get_default_mode (presets), ==,
                   DSH_SANDBOX_MODE_WORKSPACE_WRITE);
  g_assert_cmpint (dsh_permission_presets_get_default_approval_policy (presets), ==,
                   DSH_APPROVAL_POLICY_NEVER);
}

/* The kept table is handed out again only while the file is the very file it was read from:
 * rewritten in place (same size, its modification time put back), replaced by a rename or
 * removed, the next load reads it again and says what it says now. */
static void
test_config_cache (void)
{
  g_autofree char *dir = dsh_test_make_tmp_dir ();
  g_autofree char *path = g_build_filename (dir, "config.json", NULL);
  g_autofree char *other = g_build_filename (dir, "other.json", NULL);
  g_autoptr (DshPermissionPresets) first = NULL;
  g_autoptr (DshPermissionPresets) again = NULL;
  g_autoptr (DshPermissionPresets) changed = NULL;
  g_autoptr (DshPermissionPresets) replaced = NULL;
  g_autoptr (GError) error = NULL;
  struct stat st;
  struct timespec times[2];

  dsh_test_write_file (path, "{\"defaultMode\":\"workspace-write\"}");
  first = dsh_permission_presets_load_cached (path, &error);
  g_assert_no_error (error);
  g_assert_cmpint (dsh_permission_presets_get_default_mode (first), ==,
                   DSH_SANDBOX_MODE_WORKSPACE_WRITE);
  /* Just written: a second change in the same clock tick would keep its times, so nothing is
   * kept yet. */
  g_assert_false (dsh_permission_presets_cache_holds (path));

  /* Once it has stopped changing, it is read once and then kept. */
  g_usleep (2100 * 1000);
  g_clear_object (&first);
  first = dsh_permission_presets_load_cached (path, &error);
  g_assert_no_error (error);
  g_assert_true (dsh_permission_presets_cache_holds (path));
  again = dsh_permission_presets_load_cached (path, &error);
  g_assert_no_error (error);
  g_assert_true (again == first);

  /* The same size, the modification time put back: the change time still moves. */
  g_assert_cmpint (stat (path, &st), ==, 0);
  dsh_test_write_file (path, "{\"defaultMode\":\"read-only\"      }");
  g_assert_cmpint (strlen ("{\"defaultMode\":\"read-only\"      }"), ==, st.st_size);
  times[0] = st.st_atim;
  times[1] = st.st_mtim;
  g_assert_cmpint (utimensat (AT_FDCWD, path, times, 0), ==, 0);
  g_assert_false (dsh_permission_presets_cache_holds (path));
  changed = dsh_permission_presets_load_cached (path, &error);
  g_assert_no_error (error);
  g_assert_true (changed != first);
  g_assert_cmpint (dsh_permission_presets_get_default_mode (changed), ==,
                   DSH_SANDBOX_MODE_READ_ONLY);

  /* Replaced by a rename. */
  dsh_test_write_file (other, "{\"defaultMode\":\"workspace-write\"}");
  g_assert_cmpint (g_rename (other, path), ==, 0);
  replaced = dsh_permission_presets_load_cached (path, &error);
  g_assert_no_error (error);
  g_assert_cmpint (dsh_permission_presets_get_default_mode (replaced), ==,
                   DSH_SANDBOX_MODE_WORKSPACE_WRITE);

  /* Gone: the same error as reading it without the cache. */
  g_assert_cmpint (g_unlink (path), ==, 0);
  g_assert_null (dsh_permission_presets_load_cached (path, &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
  {
    g_autoptr (GError) uncached = NULL;

    g_assert_null (dsh_permission_presets_new_from_file (path, &uncached));
    g_assert_cmpstr (error->message, ==, uncached->message);
  }

  /* The built-in table needs no file. */
  g_clear_error (&error);
  g_clear_object (&again);
  again = dsh_permission_presets_load_cached (NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (dsh_permission_presets_get_default_mode (again), ==, DSH_SANDBOX_MODE_DEFAULT);
}

/* A resumed session keeps what it is under at its first use, whatever the defaults do next. */
static void
test_pin_resumed_session (void)
{
  g_autoptr (DshPermissionPresets) first = dsh_permission_presets_new ();
  g_autoptr (DshPermissionPresets) later = NULL;
  g_autoptr (DshSessionLog) log = new_session ("resumed.jsonl");
  g_autoptr (GPtrArray) events = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *appended = NULL;

  /* Header only: both knobs are filled in, no preset is invented (none is the default). */
  g_assert_true (dsh_permission_presets_pin_session (first, log, &error));
  g_assert_no_error (error);
  appended = types_since (log, 0);
  g_assert_cmpstr (appended, ==, "sandbox/mode=read-only,approval/policy=ask");
  /* Once only. */
  g_assert_true (dsh_permission_presets_pin_session (first, log, &error));
  g_assert_cmpuint (event_count (log), ==, 2);

  later = dsh_permission_presets_new_from_json (
    "{\"defaultMode\":\"danger-full-access\",\"defaultApprovalPolicy\":\"never\","
    "\"defaultPreset\":\"danger-full-access\"}", -1, &error);
  g_assert_no_error (error);
  g_assert_true (dsh_permission_presets_pin_session (later, log, &error));
  g_assert_cmpuint (event_count (log), ==, 2);
  events = dsh_session_log_dup_events (log);
  g_assert_cmpint (dsh_permission_presets_effective_mode (later, events), ==,
                   DSH_SANDBOX_MODE_READ_ONLY);
  g_assert_cmpint (dsh_permission_presets_effective_approval_policy (later, events), ==,
                   DSH_APPROVAL_POLICY_ASK);
}

/* The default preset is recorded when it is what a header-only session is under. */
static void
test_pin_records_matching_default_preset (void)
{
  g_autoptr (DshPermissionPresets) presets = NULL;
  g_autoptr (DshSessionLog) log = new_session ("preset.jsonl");
  g_autoptr (GError) error = NULL;
  g_autofree char *appended = NULL;

  presets = dsh_permission_presets_new_from_json (
    "{\"defaultMode\":\"workspace-write\",\"defaultPreset\":\"workspace-write\"}", -1,
    &error);
  g_assert_no_error (error);
  g_assert_true (dsh_permission_presets_pin_session (presets, log, &error));
  g_assert_no_error (error);
  appended = types_since (log, 0);
  g_assert_cmpstr (appended, ==,
                   "permissionPresets/preset=workspace-write,sandbox/mode=workspace-write,"
                   "approval/policy=ask");
}

/* A selection that moves the effective approval policy hands back the notice for the model,
 * verbatim; one that leaves it alone hands back nothing. */
static void
test_set_returns_notice (void)
{
  static const struct {
    const char *preset;
    const char *notice;
  } steps[] = {
    { "danger-full-access",
      "The approval policy changed from \"ask\" to \"never\" (changed by the user)." },
    { "danger-full-access", NULL },
    { "workspace-write",
      "The approval policy changed from \"never\" to \"ask\" (changed by the user)." },
    { "workspace-write", NULL },
  };
  g_autoptr (DshPermissionPresets) presets = dsh_permission_presets_new ();
  g_autoptr (DshSessionLog) log = new_session ("notice.jsonl");

  for (guint i = 0; i < G_N_ELEMENTS (steps); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autofree char *notice = g_strdup ("stale");

      g_assert_true (dsh_permission_presets_set (presets, log, steps[i].preset, &notice,
                                                 &error));
      g_assert_no_error (error);
      g_assert_cmpstr (notice, ==, steps[i].notice);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/permission-presets/default-table", test_default_table);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *name = g_strdup_printf ("/permission-presets/table/%s", cases[i].name);

      g_test_add_data_func (name, &cases[i], run_case);
    }
  g_test_add_func ("/permission-presets/custom-never-selectable",
                   test_custom_and_unknown_never_selectable);
  g_test_add_func ("/permission-presets/create-session-pins", test_create_session_pins);
  g_test_add_func ("/permission-presets/create-session-refusals", test_create_session_refusals);
  g_test_add_func ("/permission-presets/set-returns-notice", test_set_returns_notice);
  g_test_add_func ("/permission-presets/pin-resumed-session", test_pin_resumed_session);
  g_test_add_func ("/permission-presets/pin-records-matching-default-preset",
                   test_pin_records_matching_default_preset);
  g_test_add_func ("/permission-presets/default-change-leaves-existing",
                   test_default_change_leaves_existing_sessions);
  g_test_add_func ("/permission-presets/config-errors", test_config_errors);
  g_test_add_func ("/permission-presets/config-file", test_config_file);
  g_test_add_func ("/permission-presets/config-extra-roots", test_config_extra_roots);
  g_test_add_func ("/permission-presets/config-cache", test_config_cache);

  return g_test_run ();
}
