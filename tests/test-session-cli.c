/* test-session-cli.c — `dsh-sandbox session` and `dsh-sandbox policy`: every JSON they print
 * and every line they write validated against schemas/, bad input refused with exit 125 and
 * one "dsh-sandbox:" line, switches appended as events, presets from $DSH_SANDBOX_CONFIG.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <glib/gstdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dsh-test-linux.h"
#include "dsh-test-util.h"
#include "dsh-test-seed-texts.h"

static void
cli_valist (DshTestRun *run, const char *const *env, const char *first, va_list ap)
{
  g_autoptr (GPtrArray) args = g_ptr_array_new ();

  for (const char *arg = first; arg != NULL; arg = va_arg (ap, const char *))
    g_ptr_array_add (args, (gpointer) arg);
  g_ptr_array_add (args, NULL);
  dsh_test_run_cli (run, (const char *const *) args->pdata, env, NULL);
}

/* dsh-sandbox with the arguments that follow, NULL-terminated. */
static void
cli (DshTestRun *run, const char *const *env, const char *first, ...) G_GNUC_NULL_TERMINATED;

static void
cli (DshTestRun *run, const char *const *env, const char *first, ...)
{
  va_list ap;

  va_start (ap, first);
  cli_valist (run, env, first, ap);
  va_end (ap);
}

static void
assert_ok (DshTestRun *run)
{
  if (run->exit_code != 0)
    g_error ("exit %d\nstdout: %s\nstderr: %s", run->exit_code, run->out, run->err);
  g_assert_cmpstr (run->err, ==, "");
}

/* Every line of a session file validates: the header, then each event. */
static void
assert_log_valid (const char *path)
{
  g_autofree char *contents = dsh_test_read_file (path);
  g_auto (GStrv) lines = NULL;

  g_assert_nonnull (contents);
  g_assert_true (g_str_has_suffix (contents, "\n"));
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL && *lines[i] != '\0'; i++)
    dsh_test_assert_valid_json (lines[i], i == 0 ? "session-header.schema.json"
                                                 : "session-event.schema.json");
}

/* cli() that must succeed and print an object valid against schema; returns the object. */
static JsonObject *
cli_json (DshTestRun *run, const char *const *env, const char *schema, const char *first, ...)
  G_GNUC_NULL_TERMINATED;

static JsonObject *
cli_json (DshTestRun *run, const char *const *env, const char *schema, const char *first, ...)
{
  g_autoptr (JsonNode) node = NULL;
  va_list ap;

  va_start (ap, first);
  cli_valist (run, env, first, ap);
  va_end (ap);
  assert_ok (run);
  node = dsh_test_parse_valid_json (run->out, schema);
  return json_object_ref (json_node_get_object (node));
}

static JsonObject *
show_json (DshTestRun *run, const char *const *env, const char *path)
{
  return cli_json (run, env, "session-show.schema.json", "session", "show", path, "--json", NULL);
}

static void
test_session_lifecycle (void)
{
  g_autofree char *dir = dsh_test_make_tmp_dir ();
  g_autofree char *canonical_dir = dsh_canonical_path (dir);
  g_autofree char *path = dsh_test_log_path ("s.jsonl");
  g_auto (DshTestRun) run = { 0 };
  g_autoptr (JsonObject) shown = NULL;
  g_autofree char *id = NULL;
  JsonObject *policy;

  cli (&run, NULL, "session", "new", path, "--cwd", dir, "--preset", "workspace-write", NULL);
  assert_ok (&run);
  id = g_strstrip (g_strdup (run.out));
  g_assert_true (g_uuid_string_is_valid (id));
  assert_log_valid (path);
  g_assert_cmpuint (dsh_test_count_lines (path), ==, 4);

  shown = show_json (&run, NULL, path);
  policy = json_object_get_object_member (shown, "policy");
  g_assert_cmpstr (json_object_get_string_member (policy, "mode"), ==, "workspace-write");
  g_assert_cmpstr (json_object_get_string_member (policy, "workspaceRoot"), ==, canonical_dir);
  g_assert_cmpstr (json_object_get_string_member (policy, "sessionId"), ==, id);
  g_assert_cmpstr (json_object_get_string_member (shown, "preset"), ==, "workspace-write");
  g_assert_cmpstr (json_object_get_string_member (shown, "approvalPolicy"), ==, "ask");
  g_assert_false (json_object_get_boolean_member (shown, "openTurn"));
  g_clear_pointer (&shown, json_object_unref);

  /* Each switch is exactly its event. */
  cli (&run, NULL, "session", "set-mode", path, "read-only", NULL);
  assert_ok (&run);
  g_assert_cmpuint (dsh_test_count_lines (path), ==, 5);
  cli (&run, NULL, "session", "set-approval", path, "never", NULL);
  assert_ok (&run);
  g_assert_cmpuint (dsh_test_count_lines (path), ==, 6);
  {
    /* The notice the host injects for the model. */
    g_assert_cmpstr (run.out, ==, SEED_APPROVAL_POLICY_CHANGED ("ask", "never") "\n");
  }
  cli (&run, NULL, "session", "set-approval", path, "never", NULL);
  assert_ok (&run);
  g_assert_cmpstr (run.out, ==, "");
  g_assert_cmpuint (dsh_test_count_lines (path), ==, 7);
  shown = show_json (&run, NULL, path);
  g_assert_cmpstr (json_object_get_string_member (shown, "preset"), ==, "custom");
  g_assert_cmpstr (json_object_get_string_member (shown, "recordedPreset"), ==,
                   "workspace-write");
  g_clear_pointer (&shown, json_object_unref);

  cli (&run, NULL, "session", "set-preset", path, "danger-full-access", NULL);
  assert_ok (&run);
  g_assert_cmpuint (dsh_test_count_lines (path), ==, 9); /* preset + mode; policy was already never */
  cli (&run, NULL, "session", "set-preset", path, "danger-full-access", NULL);
  assert_ok (&run);
  g_assert_cmpuint (dsh_test_count_lines (path), ==, 9); /* net zero */
  assert_log_valid (path);

  cli (&run, NULL, "session", "show", path, NULL);
  assert_ok (&run);
  g_assert_nonnull (strstr (run.out, "mode: danger-full-access\n"));
  g_assert_nonnull (strstr (run.out, "preset: danger-full-access\n"));
}

/* Switching presets can move the approval policy: the notice is printed then, verbatim. */
static void
test_set_preset_prints_notice (void)
{
  /* Out of reach of the session's own commands: the log beside its cwd, not inside it. */
  g_autofree char *dir = dsh_test_scratch_dir ("notice");
  g_autofree char *cwd = g_build_filename (dir, "ws", NULL);
  g_autofree char *path = g_build_filename (dir, "s.jsonl", NULL);
  g_auto (DshTestRun) run = { 0 };

  g_assert_cmpint (g_mkdir (cwd, 0755), ==, 0);
  cli (&run, NULL, "session", "new", path, "--cwd", cwd, NULL);
  assert_ok (&run);
  cli (&run, NULL, "session", "set-preset", path, "danger-full-access", NULL);
  assert_ok (&run);
  g_assert_cmpstr (run.out, ==,
                   "The approval policy changed from \"ask\" to \"never\" (changed by the "
                   "user).\n");
  cli (&run, NULL, "session", "set-preset", path, "danger-full-access", NULL);
  assert_ok (&run);
  g_assert_cmpstr (run.out, ==, "");
  cli (&run, NULL, "session", "set-preset", path, "workspace-write", NULL);
  assert_ok (&run);
  g_assert_cmpstr (run.out, ==,
                   "The approval policy changed from \"never\" to \"ask\" (changed by the "
                   "user).\n");
  /* The mode moves, the approval policy does not: nothing to tell. */
  cli (&run, NULL, "session", "set-mode", path, "read-only", NULL);
  assert_ok (&run);
  g_assert_cmpstr (run.out, ==, "");
  dsh_test_remove_tree (dir);
}

/* A resumed session that lacks its pinned facts (a header only, or a log written before
 * pinning) keeps what it had at its first use: the missing facts are filled in then, once,
 * and a later change of the deployment defaults never moves it. Each first use is tried:
 * confine, policy context, policy resolve and a switch. */
static void
test_resumed_session_keeps_permissions (void)
{
  static const char *const first_uses[] = { "confine", "context", "resolve", "set-mode" };
  /* Out of reach of the session's own commands: the log beside its cwd, not inside it. */
  g_autofree char *dir = dsh_test_scratch_dir ("resumed");
  g_autofree char *cwd = g_build_filename (dir, "ws", NULL);
  g_autofree char *config_dir = dsh_test_scratch_dir ("config");
  g_autofree char *config = g_build_filename (config_dir, "config.json", NULL);
  g_autofree char *env_config = g_strdup_printf ("DSH_SANDBOX_CONFIG=%s", config);
  const char *env[] = { env_config, NULL };

  g_assert_cmpint (g_mkdir (cwd, 0755), ==, 0);
  dsh_test_write_file (config, "{\"defaultMode\":\"workspace-write\","
                               "\"defaultApprovalPolicy\":\"never\"}");
  for (guint i = 0; i < G_N_ELEMENTS (first_uses); i++)
    {
      g_autofree char *name = g_strdup_printf ("resumed-%u.jsonl", i);
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_auto (DshTestRun) run = { 0 };
      g_autoptr (JsonObject) shown = NULL;
      guint lines;

      g_test_message ("first use: %s", first_uses[i]);
      g_object_unref (dsh_test_create_session_log (path, cwd));
      g_assert_cmpuint (dsh_test_count_lines (path), ==, 1);

      /* The first use, under the built-in defaults (read-only, ask). */
      if (g_str_equal (first_uses[i], "confine"))
        cli (&run, NULL, "confine", "--session", path, "--", "true", NULL);
      else if (g_str_equal (first_uses[i], "context"))
        cli (&run, NULL, "policy", "context", "--session", path, NULL);
      else if (g_str_equal (first_uses[i], "resolve"))
        cli (&run, NULL, "policy", "resolve", "--session", path, NULL);
      else
        cli (&run, NULL, "session", "set-mode", path, "read-only", NULL);
      assert_ok (&run);
      assert_log_valid (path);
      lines = dsh_test_count_lines (path);
      g_assert_cmpuint (lines, >=, 3);

      /* The operator changes the defaults: the session stays as it was. */
      shown = show_json (&run, env, path);
      g_assert_cmpstr (json_object_get_string_member (
                         json_object_get_object_member (shown, "policy"), "mode"), ==,
                       "read-only");
      g_assert_cmpstr (json_object_get_string_member (shown, "approvalPolicy"), ==, "ask");
      cli (&run, env, "policy", "context", "--session", path, NULL);
      assert_ok (&run);
      g_assert_true (g_str_has_prefix (run.out, "Current DSH file policy: read-only."));
      g_assert_null (strstr (run.out, "Approval prompts are disabled"));
      /* Filled in once: later uses append nothing. */
      g_assert_cmpuint (dsh_test_count_lines (path), ==, lines);
    }

  /* Written before pinning: a mode but no approval policy. The mode is kept, the policy is
   * the one in force at the first use. */
  {
    g_autofree char *path = g_build_filename (dir, "half.jsonl", NULL);
    g_autoptr (DshSessionLog) log = dsh_test_create_session_log (path, cwd);
    g_autoptr (GError) error = NULL;
    g_auto (DshTestRun) run = { 0 };
    g_autoptr (JsonObject) shown = NULL;

    g_assert_true (dsh_session_log_append_mode (log, DSH_SANDBOX_MODE_DANGER_FULL_ACCESS,
                                                &error));
    g_assert_no_error (error);
    cli (&run, NULL, "policy", "resolve", "--session", path, NULL);
    assert_ok (&run);
    shown = show_json (&run, env, path);
    g_assert_cmpstr (json_object_get_string_member (
                       json_object_get_object_member (shown, "policy"), "mode"), ==,
                     "danger-full-access");
    g_assert_cmpstr (json_object_get_string_member (shown, "approvalPolicy"), ==, "ask");
  }
  dsh_test_remove_tree (dir);
  dsh_test_remove_tree (config_dir);
}

/* Is `path` a writable root in a bwrap argv (ConfinedArgv JSON)? The launcher binds it. */
static gboolean
argv_binds_writable (const char *confined_json, const char *path)
{
  g_autoptr (JsonNode) node = dsh_test_parse_json (confined_json);
  JsonArray *argv = json_object_get_array_member (json_node_get_object (node), "argv");

  for (guint i = 0; i + 1 < json_array_get_length (argv); i++)
    {
      const char *arg = json_array_get_string_element (argv, i);

      if (g_str_equal (arg, "--write") &&
          g_str_equal (json_array_get_string_element (argv, i + 1), path))
        return TRUE;
    }
  return FALSE;
}

/* confine --session takes the mode and the workspace from the session, like exec, and appends
 * nothing: confining runs nothing. */
static void
test_confine_with_session (void)
{
  const char *env[] = { "DSH_SANDBOX_BACKEND=bwrap", "DSH_SANDBOX_PROBE_CACHE=off", NULL };
  g_autofree char *dir = dsh_test_scratch_dir ("session-cli");
  g_autofree char *workspace = g_build_filename (dir, "ws", NULL);
  g_autofree char *canonical = NULL;
  g_autofree char *path = dsh_test_log_path ("s.jsonl");
  g_auto (DshTestRun) run = { 0 };
  guint lines;

  if (!dsh_test_require_bwrap ())
    return;
  g_assert_cmpint (g_mkdir (workspace, 0700), ==, 0);
  canonical = dsh_canonical_path (workspace);
  cli (&run, NULL, "session", "new", path, "--cwd", workspace, "--preset", "workspace-write",
       NULL);
  assert_ok (&run);
  lines = dsh_test_count_lines (path);

  cli (&run, env, "confine", "--session", path, "--", "true", NULL);
  assert_ok (&run);
  dsh_test_assert_valid_json (run.out, "confined-argv.schema.json");
  g_assert_true (argv_binds_writable (run.out, canonical));

  /* --mode is this call's explicit mode, as for exec. */
  cli (&run, env, "confine", "--session", path, "--mode", "read-only", "--", "true", NULL);
  assert_ok (&run);
  g_assert_false (argv_binds_writable (run.out, canonical));
  g_assert_cmpuint (dsh_test_count_lines (path), ==, lines);

  /* The session's last mode decides without --mode. */
  cli (&run, NULL, "session", "set-mode", path, "read-only", NULL);
  assert_ok (&run);
  lines = dsh_test_count_lines (path);
  cli (&run, env, "confine", "--session", path, "--", "true", NULL);
  assert_ok (&run);
  g_assert_false (argv_binds_writable (run.out, canonical));
  g_assert_cmpuint (dsh_test_count_lines (path), ==, lines);

  cli (&run, env, "confine", "--session", path, "--workspace", workspace, "--", "true", NULL);
  dsh_test_assert_refused (&run, "--workspace cannot be combined with --session");
  cli (&run, env, "confine", "--session", path, "--mode", "read-0nly", "--", "true", NULL);
  dsh_test_assert_refused (&run, "read-only");
  dsh_test_remove_tree (dir);
}

/* A session log a confined command of its workspace could rewrite is refused by confine too. */
static void
test_confine_refuses_reachable_session (void)
{
  const char *env[] = { "DSH_SANDBOX_BACKEND=bwrap", "DSH_SANDBOX_PROBE_CACHE=off", NULL };
  g_autofree char *dir = dsh_test_scratch_dir ("session-cli");
  g_autofree char *path = g_build_filename (dir, "s.jsonl", NULL);
  g_auto (DshTestRun) run = { 0 };
  g_autoptr (DshSessionLog) log = NULL;

  /* "session new" itself refuses it; a log made some other way is refused at each use. */
  cli (&run, NULL, "session", "new", path, "--cwd", dir, "--preset", "workspace-write", NULL);
  dsh_test_assert_refused (&run, "session log");
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  log = dsh_test_create_session_log (path, dir);
  cli (&run, env, "confine", "--session", path, "--", "true", NULL);
  dsh_test_assert_refused (&run, "session log");
  dsh_test_remove_tree (dir);
}

/* A log named by a way that climbs out of the workspace ("ws/../logs/s.jsonl", "../logs/..." from
 * the workspace) is outside it: ".." is no name a command could swap. A way through a name
 * inside the workspace is refused, whatever it climbs to afterwards: that name could be a
 * symlink by then. */
static void
test_log_reached_up_from_workspace (void)
{
  const char *env[] = { "DSH_SANDBOX_BACKEND=bwrap", NULL };
  g_autofree char *dir = dsh_test_scratch_dir ("session-cli");
  g_autofree char *ws = g_build_filename (dir, "ws", NULL);
  g_autofree char *sub = g_build_filename (ws, "sub", NULL);
  g_autofree char *logs = g_build_filename (dir, "logs", NULL);
  g_autofree char *path = g_build_filename (logs, "s.jsonl", NULL);
  g_autofree char *climbing = g_build_filename (ws, "..", "logs", "s.jsonl", NULL);
  g_autofree char *through_sub = g_build_filename (sub, "..", "..", "logs", "s.jsonl", NULL);
  g_auto (DshTestRun) run = { 0 };

  g_assert_cmpint (g_mkdir_with_parents (sub, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (logs, 0755), ==, 0);
  cli (&run, NULL, "session", "new", path, "--cwd", ws, "--preset", "workspace-write", NULL);
  assert_ok (&run);
  cli (&run, env, "exec", "--session", climbing, "--", "true", NULL);
  assert_ok (&run);
  cli (&run, env, "policy", "context", "--session", climbing, NULL);
  assert_ok (&run);
  cli (&run, env, "exec", "--session", through_sub, "--", "true", NULL);
  dsh_test_assert_refused (&run, "which confined commands may write");
  g_assert_nonnull (strstr (run.err, "reached through"));
  dsh_test_remove_tree (dir);
}

/* A fresh directory where a fold cache can be kept: the scratch directory, unless that lies in
 * /var/tmp (a build from a checkout in /tmp), shared space where no fold cache is ever kept;
 * then one beneath the user's runtime directory. */
static char *
fold_cache_scratch_dir (void)
{
  g_autofree char *scratch = dsh_test_scratch_dir ("session-cli");
  g_autofree char *template = NULL;

  if (!g_str_has_prefix (scratch, "/var/tmp/"))
    return g_steal_pointer (&scratch);
  dsh_test_remove_tree (scratch);
  g_assert_cmpint (g_mkdir_with_parents (g_get_user_runtime_dir (), 0700), ==, 0);
  template = g_build_filename (g_get_user_runtime_dir (), "dsh-test-session-cli-XXXXXX", NULL);
  g_assert_nonnull (g_mkdtemp_full (template, 0700));
  return realpath (template, NULL);
}

/* A fold cache directory inside a writable root is refused outright: a confined command could
 * forge it there, and a later call without that root would trust it. */
static void
test_exec_refuses_reachable_fold_cache (void)
{
  g_autofree char *dir = fold_cache_scratch_dir ();
  g_autofree char *ws = g_build_filename (dir, "ws", NULL);
  g_autofree char *logs = g_build_filename (dir, "logs", NULL);
  g_autofree char *folds = g_build_filename (ws, "folds", NULL);
  g_autofree char *path = g_build_filename (logs, "s.jsonl", NULL);
  g_autofree char *marker = g_build_filename (ws, "marker", NULL);
  g_autofree char *script = g_strdup_printf ("echo x > '%s'", marker);
  g_autofree char *cache_env = g_strdup_printf ("DSH_SANDBOX_FOLD_CACHE=%s", folds);
  const char *env[] = { "DSH_SANDBOX_BACKEND=bwrap", "DSH_SANDBOX_PROBE_CACHE=off", cache_env,
                        NULL };
  g_auto (DshTestRun) run = { 0 };
  g_auto (DshTestRun) again = { 0 };

  if (!dsh_test_require_bwrap ())
    return;
  g_assert_cmpint (g_mkdir_with_parents (folds, 0700), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (logs, 0700), ==, 0);
  cli (&run, NULL, "session", "new", path, "--cwd", ws, "--preset", "workspace-write", NULL);
  assert_ok (&run);
  cli (&again, env, "exec", "--session", path, "--", "sh", "-c", script, NULL);
  dsh_test_assert_never_ran (&again, marker);
  g_assert_nonnull (strstr (again.err, "the session fold cache"));
  g_assert_nonnull (strstr (again.err, "DSH_SANDBOX_FOLD_CACHE"));
  dsh_test_remove_tree (dir);
}

/* No call can forge the fold cache another call trusts. One call with an extra writable root
 * holding where caches were once kept by default (the runtime and cache directories) rewrites
 * every cache it can reach to danger-full-access; the next call, without that root, still runs
 * under the session's workspace-write. The caches now live inside the record of granted roots,
 * and a root at or inside that is refused. */
static void
test_fold_cache_out_of_every_call_reach (void)
{
  g_autofree char *dir = fold_cache_scratch_dir ();
  g_autofree char *ws = g_build_filename (dir, "ws", NULL);
  g_autofree char *logs = g_build_filename (dir, "logs", NULL);
  g_autofree char *state = g_build_filename (dir, "state", NULL);
  g_autofree char *runtime = g_build_filename (dir, "runtime", NULL);
  g_autofree char *cache_home = g_build_filename (dir, "cache", NULL);
  g_autofree char *kept = g_build_filename (state, "session-folds", NULL);
  g_autofree char *path = g_build_filename (logs, "s.jsonl", NULL);
  g_autofree char *marker = g_build_filename (logs, "marker", NULL);
  g_autofree char *escape = g_strdup_printf ("echo x > '%s'", marker);
  g_autofree char *forge = g_strdup_printf (
    "for f in '%s'/*/*/*.json '%s'/*/*/*.json '%s'/*/*.json; do [ -f \"$f\" ] && "
    "sed -i 's/\"mode\":\"workspace-write\"/\"mode\":\"danger-full-access\"/' \"$f\"; "
    "done; true",
    runtime, cache_home, state);
  g_autofree char *state_env = g_strdup_printf ("DSH_SANDBOX_STATE_DIR=%s", state);
  g_autofree char *runtime_env = g_strdup_printf ("XDG_RUNTIME_DIR=%s", runtime);
  g_autofree char *cache_env = g_strdup_printf ("XDG_CACHE_HOME=%s", cache_home);
  const char *env[] = { "DSH_SANDBOX_BACKEND=bwrap", "DSH_SANDBOX_PROBE_CACHE=off",
                        state_env, runtime_env, cache_env, NULL };
  g_auto (DshTestRun) made = { 0 };
  g_auto (DshTestRun) first = { 0 };
  g_auto (DshTestRun) forged = { 0 };
  g_auto (DshTestRun) inside = { 0 };
  g_auto (DshTestRun) later = { 0 };
  g_autoptr (GDir) listing = NULL;

  if (!dsh_test_require_bwrap ())
    return;
  for (const char *const *d = (const char *const[]) { ws, logs, state, runtime, cache_home, NULL };
       *d != NULL; d++)
    g_assert_cmpint (g_mkdir_with_parents (*d, 0700), ==, 0);
  cli (&made, NULL, "session", "new", path, "--cwd", ws, "--preset", "workspace-write", NULL);
  assert_ok (&made);
  cli (&first, env, "exec", "--session", path, "--", "true", NULL);
  g_assert_cmpint (first.exit_code, ==, 0);
  /* The call kept a cache, inside the record. */
  listing = g_dir_open (kept, 0, NULL);
  g_assert_nonnull (listing);
  g_assert_nonnull (g_dir_read_name (listing));

  cli (&forged, env, "exec", "--session", path, "--writable-root", runtime, "--writable-root",
       cache_home, "--", "sh", "-c", forge, NULL);
  g_assert_cmpint (forged.exit_code, ==, 0);
  cli (&inside, env, "exec", "--session", path, "--writable-root", kept, "--", "sh", "-c", forge,
       NULL);
  dsh_test_assert_refused (&inside, "holds the writable root");

  cli (&later, env, "exec", "--session", path, "--", "sh", "-c", escape, NULL);
  g_assert_cmpint (later.exit_code, !=, 0);
  g_assert_false (g_file_test (marker, G_FILE_TEST_EXISTS));
  dsh_test_remove_tree (dir);
}

/* A fold cache directory (DSH_SANDBOX_FOLD_CACHE) beneath a directory an earlier call granted
 * is not believed: that call's command could have left a fold there for the session's log. Here
 * it copies a true fold of the log (the bytes it could compute itself, having read the log) in,
 * saying danger-full-access; the session's next call with that cache directory still runs
 * under workspace-write, and writes nothing to a cache there, on both backends. */
static void
test_fold_cache_beneath_granted_dir (void)
{
  const char *backends[] = { "bwrap", "landlock" };
  g_autofree char *dir = fold_cache_scratch_dir ();

  if (!dsh_test_require_bwrap ())
    return;
  for (guint b = 0; b < G_N_ELEMENTS (backends); b++)
    {
      g_autofree char *top = g_build_filename (dir, backends[b], NULL);
      g_autofree char *ws = g_build_filename (top, "ws", NULL);
      g_autofree char *logs = g_build_filename (top, "logs", NULL);
      g_autofree char *own = g_build_filename (top, "own-folds", NULL);
      g_autofree char *shared = g_build_filename (top, "shared", NULL);
      g_autofree char *folds = g_build_filename (shared, "folds", NULL);
      g_autofree char *path = g_build_filename (logs, "s.jsonl", NULL);
      g_autofree char *victim = g_build_filename (top, "victim", NULL);
      g_autofree char *escape = g_strdup_printf ("echo x > '%s'", victim);
      g_autofree char *forge = g_strdup_printf (
        "mkdir -p -m 700 '%s' && for f in '%s'/*.json; do "
        "sed 's/\"mode\":\"workspace-write\"/\"mode\":\"danger-full-access\"/' \"$f\" "
        "> '%s'/\"${f##*/}\" && chmod 600 '%s'/\"${f##*/}\"; done",
        folds, own, folds, folds);
      g_autofree char *backend_env = g_strdup_printf ("DSH_SANDBOX_BACKEND=%s", backends[b]);
      g_autofree char *own_env = g_strdup_printf ("DSH_SANDBOX_FOLD_CACHE=%s", own);
      g_autofree char *folds_env = g_strdup_printf ("DSH_SANDBOX_FOLD_CACHE=%s", folds);
      const char *with_own[] = { backend_env, "DSH_SANDBOX_PROBE_CACHE=off", own_env, NULL };
      const char *with_folds[] = { backend_env, "DSH_SANDBOX_PROBE_CACHE=off", folds_env, NULL };
      g_auto (DshTestRun) made = { 0 };
      g_auto (DshTestRun) first = { 0 };
      g_auto (DshTestRun) forged = { 0 };
      g_auto (DshTestRun) later = { 0 };
      g_autofree char *forged_fold = NULL;

      for (const char *const *d = (const char *const[]) { ws, logs, own, shared, NULL };
           *d != NULL; d++)
        g_assert_cmpint (g_mkdir_with_parents (*d, 0700), ==, 0);
      cli (&made, NULL, "session", "new", path, "--cwd", ws, "--preset", "workspace-write",
           NULL);
      assert_ok (&made);
      cli (&first, with_own, "exec", "--session", path, "--", "true", NULL);
      g_assert_cmpint (first.exit_code, ==, 0);
      /* An earlier call, with no cache there yet, granted shared. */
      cli (&forged, with_own, "exec", "--mode", "workspace-write", "--workspace", shared, "--",
           "sh", "-c", forge, NULL);
      g_assert_cmpint (forged.exit_code, ==, 0);
      {
        g_autoptr (GDir) listing = g_dir_open (folds, 0, NULL);
        g_autofree char *name = NULL;

        g_assert_nonnull (listing);
        name = g_build_filename (folds, g_dir_read_name (listing), NULL);
        forged_fold = dsh_test_read_file (name);
        g_assert_nonnull (strstr (forged_fold, "danger-full-access"));
      }

      cli (&later, with_folds, "exec", "--session", path, "--", "sh", "-c", escape, NULL);
      g_test_message ("%s: exit %d: %s", backends[b], later.exit_code, later.err);
      g_assert_cmpint (later.exit_code, !=, 0);
      g_assert_false (g_file_test (victim, G_FILE_TEST_EXISTS));
      /* Nor was a fold written there for a later call to find. */
      {
        g_autoptr (GDir) listing = g_dir_open (folds, 0, NULL);
        g_autofree char *name = g_build_filename (folds, g_dir_read_name (listing), NULL);
        g_autofree char *now = dsh_test_read_file (name);

        g_assert_null (g_dir_read_name (listing));
        g_assert_cmpstr (now, ==, forged_fold);
      }
    }
  dsh_test_remove_tree (dir);
}

/* A session log is out of reach of every call, not only of its session's: a sessionless call
 * with the log's directory as an extra writable root appends a forged danger-full-access; the
 * session's next call refuses the log instead of running under it. */
static void
test_session_log_out_of_every_call_reach (void)
{
  g_autofree char *dir = fold_cache_scratch_dir ();
  g_autofree char *ws = g_build_filename (dir, "ws", NULL);
  g_autofree char *logs = g_build_filename (dir, "logs", NULL);
  g_autofree char *path = g_build_filename (logs, "s.jsonl", NULL);
  g_autofree char *marker = g_build_filename (dir, "marker", NULL);
  g_autofree char *escape = g_strdup_printf ("echo x > '%s'", marker);
  g_autofree char *forge = g_strdup_printf (
    "printf '%%s\\n' '{\"type\":\"sandbox/mode\",\"data\":{\"mode\":"
    "\"danger-full-access\"},\"time\":\"2026-12-02T00:00:00.000Z\"}' >> '%s'",
    path);
  const char *env[] = { "DSH_SANDBOX_BACKEND=bwrap", "DSH_SANDBOX_PROBE_CACHE=off",
                        "DSH_SANDBOX_FOLD_CACHE=off", NULL };
  g_auto (DshTestRun) made = { 0 };
  g_auto (DshTestRun) forged = { 0 };
  g_auto (DshTestRun) later = { 0 };
  g_autofree char *contents = NULL;

  if (!dsh_test_require_bwrap ())
    return;
  g_assert_cmpint (g_mkdir_with_parents (ws, 0700), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (logs, 0700), ==, 0);
  cli (&made, NULL, "session", "new", path, "--cwd", ws, "--preset", "workspace-write", NULL);
  assert_ok (&made);
  cli (&forged, env, "exec", "--mode", "workspace-write", "--workspace", ws, "--writable-root",
       logs, "--", "sh", "-c", forge, NULL);
  g_assert_cmpint (forged.exit_code, ==, 0);
  contents = dsh_test_read_file (path);
  g_assert_nonnull (strstr (contents, "danger-full-access"));

  cli (&later, env, "exec", "--session", path, "--", "sh", "-c", escape, NULL);
  dsh_test_assert_refused (&later, "which was granted to confined commands as a writable root");
  g_assert_false (g_file_test (marker, G_FILE_TEST_EXISTS));

  /* Nor through a symlink in that directory, which a command there could point at another
   * session's log: the log is judged as spelled too, not only where the link leads. */
  {
    g_autofree char *other_logs = g_build_filename (dir, "other-logs", NULL);
    g_autofree char *other = g_build_filename (other_logs, "t.jsonl", NULL);
    g_autofree char *link = g_build_filename (logs, "link.jsonl", NULL);
    g_auto (DshTestRun) other_made = { 0 };
    g_auto (DshTestRun) through = { 0 };

    g_assert_cmpint (g_mkdir (other_logs, 0700), ==, 0);
    cli (&other_made, NULL, "session", "new", other, "--cwd", ws, NULL);
    assert_ok (&other_made);
    g_assert_cmpint (symlink (other, link), ==, 0);
    cli (&through, env, "exec", "--session", link, "--", "true", NULL);
    dsh_test_assert_refused (&through, "which was granted to confined commands as a writable root");
  }
  dsh_test_remove_tree (dir);
}

static guint
count_of (const char *text, const char *needle)
{
  guint n = 0;

  for (const char *at = strstr (text, needle); at != NULL; at = strstr (at + 1, needle))
    n++;
  return n;
}

/* A command confined in a session can read its log, and so take the lock every writer of the
 * log takes (flock needs no write access). The session's next call must not wait for it as
 * long as that command runs: after the writers' wait it is refused, with why, and its command
 * never runs; the holder's own call still ends its turn once its command is gone. */
static void
test_lock_held_by_confined_command (gconstpointer data)
{
  const char *backend = data;
  g_autofree char *dir = fold_cache_scratch_dir ();
  g_autofree char *ws = g_build_filename (dir, "ws", NULL);
  g_autofree char *path = g_build_filename (dir, "s.jsonl", NULL);
  g_autofree char *locked = g_build_filename (ws, "locked", NULL);
  g_autofree char *ran = g_build_filename (ws, "ran", NULL);
  g_autofree char *backend_env = g_strdup_printf ("DSH_SANDBOX_BACKEND=%s", backend);
  g_autofree char *hold = g_strdup_printf (
    "exec 9<'%s'; flock -x 9; touch '%s'; sleep 13", path, locked);
  const char *env[] = { backend_env, "DSH_SANDBOX_PROBE_CACHE=off", NULL };
  g_autoptr (GSubprocessLauncher) launcher = NULL;
  g_autoptr (GSubprocess) holder = NULL;
  g_autoptr (GError) error = NULL;
  g_auto (DshTestRun) made = { 0 };
  g_auto (DshTestRun) next = { 0 };
  g_autofree char *contents = NULL;
  gint64 started;

  if (g_str_equal (backend, "bwrap") ? !dsh_test_require_bwrap ()
                                     : !dsh_test_require_landlock ())
    return;
  g_assert_cmpint (g_mkdir_with_parents (ws, 0700), ==, 0);
  cli (&made, NULL, "session", "new", path, "--cwd", ws, "--preset", "workspace-write", NULL);
  assert_ok (&made);

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE |
                                        G_SUBPROCESS_FLAGS_STDERR_PIPE);
  dsh_test_launcher_set_env (launcher, env);
  holder = g_subprocess_launcher_spawn (launcher, &error, dsh_test_cli (), "exec", "--session",
                                        path, "--", "sh", "-c", hold, NULL);
  g_assert_no_error (error);
  started = g_get_monotonic_time ();
  while (!g_file_test (locked, G_FILE_TEST_EXISTS))
    {
      g_assert_cmpint (g_get_monotonic_time () - started, <, 30 * G_USEC_PER_SEC);
      g_usleep (20 * 1000);
    }

  started = g_get_monotonic_time ();
  cli (&next, env, "exec", "--session", path, "--", "touch", ran, NULL);
  dsh_test_assert_refused (&next, "cannot lock the session log");
  g_assert_cmpint (g_get_monotonic_time () - started, <, 12 * G_USEC_PER_SEC);
  g_assert_false (g_file_test (ran, G_FILE_TEST_EXISTS));

  g_assert_true (g_subprocess_wait (holder, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_subprocess_get_exit_status (holder), ==, 0);
  contents = dsh_test_read_file (path);
  g_assert_cmpuint (count_of (contents, "\"turn/start\""), ==, 1);
  g_assert_cmpuint (count_of (contents, "\"turn/end\""), ==, 1);
  assert_log_valid (path);
  dsh_test_remove_tree (dir);
}

/* The deployment configuration names extra writable roots for every later call, so no call's
 * commands may rewrite it: one inside a sessionless call's workspace is refused, and so is one
 * inside a directory an earlier call (run without the configuration) granted, whose command
 * made its own directory writable through it. */
static void
test_config_out_of_every_call_reach (void)
{
  g_autofree char *dir = fold_cache_scratch_dir ();
  g_autofree char *ws = g_build_filename (dir, "ws", NULL);
  g_autofree char *etc = g_build_filename (dir, "etc", NULL);
  g_autofree char *outside = g_build_filename (dir, "outside", NULL);
  g_autofree char *inner = g_build_filename (ws, "config.json", NULL);
  g_autofree char *config = g_build_filename (etc, "config.json", NULL);
  g_autofree char *marker = g_build_filename (outside, "marker", NULL);
  g_autofree char *escape = g_strdup_printf ("echo x > '%s'", marker);
  g_autofree char *forge = g_strdup_printf ("echo '{\"extraWritableRoots\": [\"%s\"]}' > '%s'",
                                            outside, config);
  g_autofree char *inner_env = g_strdup_printf ("DSH_SANDBOX_CONFIG=%s", inner);
  g_autofree char *config_env = g_strdup_printf ("DSH_SANDBOX_CONFIG=%s", config);
  const char *plain[] = { "DSH_SANDBOX_BACKEND=bwrap", "DSH_SANDBOX_PROBE_CACHE=off",
                          "DSH_SANDBOX_CONFIG", NULL };
  const char *with_inner[] = { "DSH_SANDBOX_BACKEND=bwrap", "DSH_SANDBOX_PROBE_CACHE=off",
                               inner_env, NULL };
  const char *with_config[] = { "DSH_SANDBOX_BACKEND=bwrap", "DSH_SANDBOX_PROBE_CACHE=off",
                                config_env, NULL };
  g_auto (DshTestRun) refused = { 0 };
  g_auto (DshTestRun) reading = { 0 };
  g_auto (DshTestRun) forged = { 0 };
  g_auto (DshTestRun) later = { 0 };
  g_autofree char *contents = NULL;

  if (!dsh_test_require_bwrap ())
    return;
  for (const char *const *d = (const char *const[]) { ws, etc, outside, NULL }; *d != NULL; d++)
    g_assert_cmpint (g_mkdir_with_parents (*d, 0700), ==, 0);
  dsh_test_write_file (inner, "{}");
  dsh_test_write_file (config, "{}");

  cli (&refused, with_inner, "exec", "--mode", "workspace-write", "--workspace", ws, "--", "sh",
       "-c", escape, NULL);
  dsh_test_assert_refused (&refused, "the deployment configuration");
  /* A read-only call cannot write it: nothing to refuse. */
  cli (&reading, with_inner, "exec", "--mode", "read-only", "--workspace", ws, "--", "true", NULL);
  g_assert_cmpint (reading.exit_code, ==, 0);

  cli (&forged, plain, "exec", "--mode", "workspace-write", "--workspace", ws, "--writable-root",
       etc, "--", "sh", "-c", forge, NULL);
  g_assert_cmpint (forged.exit_code, ==, 0);
  contents = dsh_test_read_file (config);
  g_assert_nonnull (strstr (contents, outside));
  cli (&later, with_config, "exec", "--mode", "workspace-write", "--workspace", ws, "--", "sh",
       "-c", escape, NULL);
  dsh_test_assert_refused (&later, "which was granted to confined commands as a writable root");
  g_assert_false (g_file_test (marker, G_FILE_TEST_EXISTS));
  dsh_test_remove_tree (dir);
}

static void
test_policy_resolve_and_context (void)
{
  g_autofree char *dir = dsh_test_make_tmp_dir ();
  g_autofree char *canonical_dir = dsh_canonical_path (dir);
  g_autofree char *path = dsh_test_log_path ("s.jsonl");
  const char *schema = "policy-resolve.schema.json";
  g_auto (DshTestRun) run = { 0 };
  g_autoptr (JsonObject) resolved = NULL;
  g_autofree char *expected_context = NULL;

  cli (&run, NULL, "session", "new", path, "--cwd", dir, NULL);
  assert_ok (&run);

  resolved = cli_json (&run, NULL, schema, "policy", "resolve", "--session", path, "--json",
                       NULL);
  g_assert_cmpstr (json_object_get_string_member (resolved, "mode"), ==, "read-only");
  g_clear_pointer (&resolved, json_object_unref);

  resolved = cli_json (&run, NULL, schema, "policy", "resolve", "--session", path, "--mode",
                       "workspace-write", "--json", NULL);
  g_assert_cmpstr (json_object_get_string_member (resolved, "mode"), ==, "workspace-write");
  g_clear_pointer (&resolved, json_object_unref);

  /* Agentless: no sessionId. */
  resolved = cli_json (&run, NULL, schema, "policy", "resolve", "--json", NULL);
  g_assert_false (json_object_has_member (resolved, "sessionId"));

  cli (&run, NULL, "policy", "context", "--session", path, NULL);
  assert_ok (&run);
  expected_context = seed_policy_context (DSH_SANDBOX_MODE_READ_ONLY, canonical_dir);
  g_assert_true (g_str_has_prefix (run.out, expected_context));
  g_assert_cmpstr (run.out + strlen (expected_context), ==, "\n");

  cli (&run, NULL, "session", "set-mode", path, "workspace-write", NULL);
  assert_ok (&run);
  cli (&run, NULL, "policy", "context", "--session", path, NULL);
  assert_ok (&run);
  g_free (expected_context);
  expected_context = seed_policy_context (DSH_SANDBOX_MODE_WORKSPACE_WRITE, canonical_dir);
  g_assert_true (g_str_has_prefix (run.out, expected_context));
  g_assert_cmpstr (run.out + strlen (expected_context), ==, "\n");
}

static void
test_bad_input (void)
{
  g_autofree char *dir = dsh_test_make_tmp_dir ();
  g_autofree char *path = dsh_test_log_path ("s.jsonl");
  g_autofree char *forged = dsh_test_log_path ("forged.jsonl");
  g_autofree char *missing_cwd = g_build_filename (dir, "nope", NULL);
  g_auto (DshTestRun) run = { 0 };
  guint lines;

  cli (&run, NULL, "session", "new", path, "--cwd", dir, NULL);
  assert_ok (&run);
  lines = dsh_test_count_lines (path);

  cli (&run, NULL, "session", NULL);
  dsh_test_assert_refused (&run, "no subcommand");
  cli (&run, NULL, "session", "frobnicate", NULL);
  dsh_test_assert_refused (&run, "unknown subcommand");
  cli (&run, NULL, "session", "new", path, "--cwd", dir, NULL);
  dsh_test_assert_refused (&run, "File exists");
  cli (&run, NULL, "session", "new", forged, "--cwd", missing_cwd, NULL);
  dsh_test_assert_refused (&run, "not an existing directory");
  cli (&run, NULL, "session", "new", forged, "--cwd", dir, "--preset", "custom", NULL);
  dsh_test_assert_refused (&run, "custom");
  g_assert_false (g_file_test (forged, G_FILE_TEST_EXISTS));
  cli (&run, NULL, "session", "set-mode", path, "root-access", NULL);
  dsh_test_assert_refused (&run, "unknown sandbox mode \"root-access\"");
  cli (&run, NULL, "session", "set-mode", path, NULL);
  dsh_test_assert_refused (&run, "expected session set-mode FILE MODE");
  cli (&run, NULL, "session", "set-approval", path, "always", NULL);
  dsh_test_assert_refused (&run, "unknown approval policy");
  cli (&run, NULL, "session", "set-preset", path, "custom", NULL);
  dsh_test_assert_refused (&run, "cannot be selected");
  cli (&run, NULL, "session", "set-preset", path, "nope", NULL);
  dsh_test_assert_refused (&run, "unknown preset");
  cli (&run, NULL, "session", "show", path, "--bogus", NULL);
  dsh_test_assert_refused (&run, NULL);
  cli (&run, NULL, "policy", "resolve", "--mode", "rw", NULL);
  dsh_test_assert_refused (&run, "unknown sandbox mode");
  cli (&run, NULL, "policy", "resolve", "extra", NULL);
  dsh_test_assert_refused (&run, "unexpected argument");
  cli (&run, NULL, "policy", NULL);
  dsh_test_assert_refused (&run, "no subcommand");
  g_assert_cmpuint (dsh_test_count_lines (path), ==, lines);

  /* A forged event in the file: every command refuses the session, naming the line. */
  dsh_test_write_file (forged,
    "{\"id\":\"x\",\"cwd\":\"/\",\"created\":\"2025-01-01T00:00:00Z\"}\n"
    "{\"type\":\"sandbox/mode\",\"data\":{\"mode\":\"everything\"},"
    "\"time\":\"2025-01-01T00:00:00Z\"}\n");
  cli (&run, NULL, "session", "show", forged, NULL);
  dsh_test_assert_refused (&run, "forged.jsonl:2:");
  cli (&run, NULL, "policy", "resolve", "--session", forged, NULL);
  dsh_test_assert_refused (&run, "forged.jsonl:2:");
  cli (&run, NULL, "session", "set-mode", forged, "read-only", NULL);
  dsh_test_assert_refused (&run, "forged.jsonl:2:");
}

static void
test_config_defaults_and_pinning (void)
{
  g_autofree char *dir = dsh_test_make_tmp_dir ();
  /* The configuration decides policy: it lives where no session's commands may write. */
  g_autofree char *config_dir = dsh_test_scratch_dir ("config");
  g_autofree char *config = g_build_filename (config_dir, "config.json", NULL);
  g_autofree char *bad_config = g_build_filename (config_dir, "bad.json", NULL);
  g_autofree char *old_path = dsh_test_log_path ("old.jsonl");
  g_autofree char *new_path = dsh_test_log_path ("new.jsonl");
  g_autofree char *env_config = NULL;
  g_autofree char *env_bad = NULL;
  g_auto (DshTestRun) run = { 0 };
  g_autoptr (JsonObject) old_shown = NULL;
  g_autoptr (JsonObject) new_shown = NULL;
  const char *env[2] = { NULL, NULL };

  /* A session made under the built-in defaults... */
  cli (&run, NULL, "session", "new", old_path, "--cwd", dir, NULL);
  assert_ok (&run);

  /* ...then the operator changes the defaults. */
  dsh_test_write_file (config,
    "{\"defaultMode\":\"workspace-write\",\"defaultPreset\":\"build\",\"presets\":["
    "{\"name\":\"build\",\"mode\":\"workspace-write\",\"approvalPolicy\":\"never\"},"
    "{\"name\":\"review\",\"mode\":\"read-only\",\"approvalPolicy\":\"ask\"}]}");
  {
    g_autofree char *text = dsh_test_read_file (config);

    dsh_test_assert_valid_json (text, "config.schema.json");
  }
  env_config = g_strdup_printf ("DSH_SANDBOX_CONFIG=%s", config);
  env[0] = env_config;

  cli (&run, env, "session", "new", new_path, "--cwd", dir, NULL);
  assert_ok (&run);
  assert_log_valid (new_path);

  old_shown = show_json (&run, env, old_path);
  new_shown = show_json (&run, env, new_path);

  /* The old session kept its pinned read-only/ask; the new one starts as "build". */
  g_assert_cmpstr (json_object_get_string_member (
                     json_object_get_object_member (old_shown, "policy"), "mode"), ==,
                   "read-only");
  g_assert_cmpstr (json_object_get_string_member (old_shown, "approvalPolicy"), ==, "ask");
  g_assert_cmpstr (json_object_get_string_member (old_shown, "preset"), ==, "review");
  g_assert_cmpstr (json_object_get_string_member (
                     json_object_get_object_member (new_shown, "policy"), "mode"), ==,
                   "workspace-write");
  g_assert_cmpstr (json_object_get_string_member (new_shown, "approvalPolicy"), ==, "never");
  g_assert_cmpstr (json_object_get_string_member (new_shown, "preset"), ==, "build");

  /* The agentless default follows the configuration. */
  cli (&run, env, "policy", "resolve", "--json", NULL);
  assert_ok (&run);
  dsh_test_assert_valid_json (run.out, "policy-resolve.schema.json");
  g_assert_nonnull (strstr (run.out, "\"workspace-write\""));

  /* A broken configuration is an error, never a silent fallback to defaults. */
  dsh_test_write_file (bad_config, "{\"defaultMode\":\"everything\"}");
  env_bad = g_strdup_printf ("DSH_SANDBOX_CONFIG=%s", bad_config);
  env[0] = env_bad;
  cli (&run, env, "policy", "resolve", NULL);
  dsh_test_assert_refused (&run, "defaultMode");

  /* A configuration the new session's own commands could rewrite is refused. */
  {
    g_autofree char *reachable = g_build_filename (dir, "config.json", NULL);
    g_autofree char *env_reachable = g_strdup_printf ("DSH_SANDBOX_CONFIG=%s", reachable);
    g_autofree char *third = dsh_test_log_path ("third.jsonl");

    dsh_test_write_file (reachable, "{}");
    env[0] = env_reachable;
    cli (&run, env, "session", "new", third, "--cwd", dir, NULL);
    dsh_test_assert_refused (&run, "which confined commands may write");
    g_assert_false (g_file_test (third, G_FILE_TEST_EXISTS));
    /* Nor may it decide what a switch of an existing session appends. */
    cli (&run, env, "session", "set-preset", new_path, "review", NULL);
    dsh_test_assert_refused (&run, "which confined commands may write");
  }
  dsh_test_remove_tree (config_dir);
}

static void
test_crash_tail_via_cli (void)
{
  g_autofree char *dir = dsh_test_make_tmp_dir ();
  g_autofree char *path = dsh_test_log_path ("s.jsonl");
  g_auto (DshTestRun) run = { 0 };
  g_autoptr (JsonObject) shown = NULL;
  g_autofree char *contents = NULL;
  gsize length;

  cli (&run, NULL, "session", "new", path, "--cwd", dir, "--preset", "workspace-write", NULL);
  assert_ok (&run);
  cli (&run, NULL, "session", "set-mode", path, "danger-full-access", NULL);
  assert_ok (&run);
  contents = dsh_test_read_file (path);
  length = strlen (contents);
  /* Tear the last append. */
  g_assert_cmpint (truncate (path, (off_t) (length - 10)), ==, 0);

  shown = show_json (&run, NULL, path);
  g_assert_cmpint (json_object_get_int_member (shown, "droppedLines"), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (
                     json_object_get_object_member (shown, "policy"), "mode"), ==,
                   "workspace-write");

  cli (&run, NULL, "session", "set-mode", path, "read-only", NULL);
  assert_ok (&run);
  assert_log_valid (path);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/session-cli/lifecycle", test_session_lifecycle);
  g_test_add_func ("/session-cli/exec-refuses-reachable-fold-cache",
                   test_exec_refuses_reachable_fold_cache);
  g_test_add_func ("/session-cli/fold-cache-out-of-every-call-reach",
                   test_fold_cache_out_of_every_call_reach);
  g_test_add_func ("/session-cli/fold-cache-beneath-granted-dir",
                   test_fold_cache_beneath_granted_dir);
  g_test_add_func ("/session-cli/session-log-out-of-every-call-reach",
                   test_session_log_out_of_every_call_reach);
  g_test_add_func ("/session-cli/config-out-of-every-call-reach",
                   test_config_out_of_every_call_reach);
  g_test_add_func ("/session-cli/policy-resolve-and-context", test_policy_resolve_and_context);
  g_test_add_func ("/session-cli/bad-input", test_bad_input);
  g_test_add_func ("/session-cli/resumed-session-keeps-permissions",
                   test_resumed_session_keeps_permissions);
  g_test_add_func ("/session-cli/set-preset-prints-notice", test_set_preset_prints_notice);
  g_test_add_func ("/session-cli/config-defaults-and-pinning", test_config_defaults_and_pinning);
  g_test_add_func ("/session-cli/crash-tail", test_crash_tail_via_cli);
  g_test_add_data_func ("/session-cli/lock-held-by-confined-command/bwrap", "bwrap",
                        test_lock_held_by_confined_command);
  g_test_add_data_func ("/session-cli/lock-held-by-confined-command/landlock", "landlock",
                        test_lock_held_by_confined_command);
  g_test_add_func ("/session-cli/confine-with-session", test_confine_with_session);
  g_test_add_func ("/session-cli/confine-refuses-reachable-session",
                   test_confine_refuses_reachable_session);
  g_test_add_func ("/session-cli/log-reached-up-from-workspace",
                   test_log_reached_up_from_workspace);

  return g_test_run ();
}
