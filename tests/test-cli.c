/* test-cli.c — the dsh-sandbox command end to end: bad input is one clear line and exit 125,
 * no usable backend never runs the command, a real bwrap failure is a runner failure, module
 * fixtures are refused with a reason in probe --json, and every JSON it prints validates.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <glib/gstdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dsh-test-linux.h"
#include "dsh-test-seed-texts.h"

/* Exactly one line, "dsh-sandbox: <text>". */
static void
assert_one_error_line (const char *err, const char *text)
{
  g_autofree char *expected = g_strdup_printf ("dsh-sandbox: %s\n", text);

  g_assert_cmpstr (err, ==, expected);
}

static void
assert_one_error_line_matching (const char *err, const char *pattern)
{
  dsh_test_assert_one_line (err, "dsh-sandbox: ", NULL);
  if (!g_pattern_match_simple (pattern, err))
    g_error ("stderr \"%s\" does not match \"%s\"", err, pattern);
}

typedef struct {
  const char *name;
  const char *args[12];
  const char *expected_pattern;
} BadInput;

static void
test_bad_input (void)
{
  g_autofree char *ws = dsh_test_make_tmp_dir ();
  g_autofree char *marker = g_build_filename (ws, "ran", NULL);
  g_autofree char *touch = g_strdup_printf ("touch %s", marker);
  g_autofree char *file = g_build_filename (ws, "plain-file", NULL);
  g_autofree char *dangling = g_build_filename (ws, "dangling", NULL);
  const BadInput cases[] = {
    { "no command", { "exec", NULL }, "dsh-sandbox: no command given*" },
    { "empty argv", { "exec", "--", NULL }, "dsh-sandbox: no command given*" },
    { "empty program", { "exec", "--", "", NULL }, "dsh-sandbox: no command given*" },
    { "no separator", { "exec", "sh", NULL }, "dsh-sandbox: unexpected argument \"sh\"*" },
    { "no separator with options", { "exec", "sh", "-c", touch, NULL },
      "dsh-sandbox: Unknown option -c\n" },
    { "unknown mode", { "exec", "--mode", "read_only", "--", "sh", "-c", touch, NULL },
      "dsh-sandbox: unknown sandbox mode \"read_only\": expected one of read-only, "
      "workspace-write, danger-full-access\n" },
    { "empty mode", { "exec", "--mode", "", "--", "sh", "-c", touch, NULL },
      "dsh-sandbox: unknown sandbox mode \"\"*" },
    { "non-UTF-8 mode", { "exec", "--mode", "\xff", "--", "sh", "-c", touch, NULL },
      "dsh-sandbox: unknown sandbox mode \"(not UTF-8)\"*" },
    { "relative workspace", { "exec", "--workspace", "rel/dir", "--", "sh", "-c", touch, NULL },
      "dsh-sandbox: the workspace \"rel/dir\" is not an absolute path\n" },
    { "missing workspace", { "exec", "--workspace", "/nonexistent-dsh", "--", "sh", "-c", touch,
                             NULL },
      "dsh-sandbox: the workspace \"/nonexistent-dsh\" is not an existing directory\n" },
    { "file workspace", { "exec", "--workspace", file, "--", "sh", "-c", touch, NULL },
      "dsh-sandbox: the workspace * is not an existing directory\n" },
    { "non-UTF-8 workspace", { "exec", "--workspace", "/tmp/\xff\xfe", "--", "sh", "-c", touch,
                               NULL },
      "dsh-sandbox: the workspace path is not valid UTF-8\n" },
    { "unknown option", { "exec", "--frobnicate", "--", "sh", "-c", touch, NULL },
      "dsh-sandbox: Unknown option --frobnicate\n" },
    { "unknown command", { "frobnicate", NULL }, "dsh-sandbox: unknown command \"frobnicate\"*" },
    { "confine non-UTF-8 argv", { "confine", "--", "echo", "\xff", NULL },
      "dsh-sandbox: argument 1 of the command is not valid UTF-8*" },
    { "confine danger", { "confine", "--mode", "danger-full-access", "--", "true", NULL },
      "dsh-sandbox: danger-full-access is not confined*" },
    /* Confines resolve a workspace by the roots' one walk: what it refuses keeps the words and
     * the order of the checks before it. */
    { "confine missing workspace", { "confine", "--mode", "workspace-write", "--workspace",
                                     "/nonexistent-dsh", "--", "true", NULL },
      "dsh-sandbox: the workspace \"/nonexistent-dsh\" is not an existing directory\n" },
    { "confine file workspace", { "confine", "--mode", "workspace-write", "--workspace", file,
                                  "--", "true", NULL },
      "dsh-sandbox: the workspace * is not an existing directory\n" },
    { "confine dangling workspace", { "confine", "--mode", "workspace-write", "--workspace",
                                      dangling, "--", "true", NULL },
      "dsh-sandbox: the workspace * is not an existing directory\n" },
    { "confine root workspace", { "confine", "--mode", "workspace-write", "--workspace", "/",
                                  "--", "true", NULL },
      "dsh-sandbox: the workspace root / would make the whole host writable*" },
    { "confine bad extra root", { "confine", "--mode", "workspace-write", "--workspace",
                                  "/nonexistent-dsh", "--writable-root", "", "--", "true", NULL },
      "dsh-sandbox: the workspace \"/nonexistent-dsh\" is not an existing directory\n" },
  };

  dsh_test_write_file (file, "");
  g_assert_no_errno (symlink ("/nonexistent-dsh", dangling));
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto (DshTestRun) run = { 0 };

      g_test_message ("case: %s", cases[i].name);
      dsh_test_run_cli (&run, cases[i].args, NULL, ws);
      dsh_test_assert_never_ran (&run, marker);
      assert_one_error_line_matching (run.err, cases[i].expected_pattern);
    }
}

static void
test_unavailable_never_runs (void)
{
  g_autofree char *ws = dsh_test_make_tmp_dir ();
  g_autofree char *empty = dsh_test_make_tmp_dir ();
  g_autofree char *marker = g_build_filename (ws, "ran", NULL);
  g_autofree char *report = g_build_filename (ws, "report.json", NULL);
  g_autofree char *touch = g_strdup_printf ("touch %s", marker);
  g_autofree char *env_dir = g_strdup_printf ("DSH_SANDBOX_BACKEND_DIR=%s", empty);
  const char *env[] = { env_dir, NULL };
  const char *modes[] = { "read-only", "workspace-write" };

  for (guint i = 0; i < G_N_ELEMENTS (modes); i++)
    {
      const char *args[] = { "exec", "--mode", modes[i], "--workspace", ws, "--report", report,
                             "--", "sh", "-c", touch, NULL };
      g_auto (DshTestRun) run = { 0 };
      g_autofree char *text = g_strdup_printf (SEED_UNAVAILABLE_FMT, modes[i]);
      g_autofree char *pattern = g_strdup_printf ("dsh-sandbox: %s Cause: ?*\n", text);
      g_autofree char *json = NULL;
      g_autoptr (JsonNode) node = NULL;

      dsh_test_run_cli (&run, args, env, ws);
      dsh_test_assert_never_ran (&run, marker);
      /* The exact text, then why each candidate was not usable. */
      assert_one_error_line_matching (run.err, pattern);

      json = dsh_test_read_file (report);
      g_assert_nonnull (json);
      node = dsh_test_parse_valid_json (json, "exec-report.schema.json");
      g_assert_cmpstr (json_object_get_string_member (json_node_get_object (node), "outcome"), ==,
                       "unavailable");
      g_assert_false (json_object_get_boolean_member (json_node_get_object (node), "commandRan"));
    }
}

static void
test_danger_full_access_runs_raw (void)
{
  g_autofree char *ws = dsh_test_make_tmp_dir ();
  g_autofree char *outside = dsh_test_make_tmp_dir ();
  g_autofree char *empty = dsh_test_make_tmp_dir ();
  g_autofree char *target = g_build_filename (outside, "written", NULL);
  g_autofree char *script = g_strdup_printf ("echo raw > %s; exit 7", target);
  g_autofree char *env_dir = g_strdup_printf ("DSH_SANDBOX_BACKEND_DIR=%s", empty);
  /* No backend at all: danger-full-access must not need one. */
  const char *env[] = { env_dir, NULL };
  const char *args[] = { "exec", "--mode", "danger-full-access", "--workspace", ws, "--", "sh",
                         "-c", script, NULL };
  g_auto (DshTestRun) run = { 0 };

  dsh_test_run_cli (&run, args, env, ws);
  g_assert_cmpint (run.exit_code, ==, 7);
  g_assert_cmpstr (run.err, ==, "");
  dsh_test_assert_file_is (target, "raw\n");
}

static void
test_report_unwritable_never_runs (void)
{
  g_autofree char *ws = dsh_test_make_tmp_dir ();
  g_autofree char *marker = g_build_filename (ws, "ran", NULL);
  g_autofree char *touch = g_strdup_printf ("touch %s", marker);
  const char *args[] = { "exec", "--mode", "danger-full-access", "--report",
                         "/nonexistent-dsh/report.json", "--", "sh", "-c", touch, NULL };
  g_auto (DshTestRun) run = { 0 };

  dsh_test_run_cli (&run, args, NULL, ws);
  dsh_test_assert_never_ran (&run, marker);
  assert_one_error_line (run.err, "cannot open the report file /nonexistent-dsh/report.json: "
                                  "No such file or directory");
}

static void
test_bwrap_runner_failure (void)
{
  g_autofree char *ws = dsh_test_make_tmp_dir ();
  g_autofree char *marker = g_build_filename (ws, "ran", NULL);
  g_autofree char *report = g_build_filename (ws, "report.json", NULL);
  g_autofree char *touch = g_strdup_printf ("touch %s", marker);
  const char *env[] = { "DSH_SANDBOX_BACKEND=bwrap", NULL };
  const char *argv[] = { dsh_test_getenv_required ("DSH_TEST_DENY_SYSCALLS"), "--errno", "EPERM",
                         "--syscall", "unshare,clone", "--", dsh_test_cli (), "exec", "--mode",
                         "workspace-write", "--workspace", ws, "--report", report, "--", "sh",
                         "-c", touch, NULL };
  g_auto (DshTestRun) run = { 0 };
  g_autofree char *json = NULL;
  g_autoptr (JsonNode) node = NULL;
  const char *prefix = SEED_UNAVAILABLE ("workspace-write");
  const char *last_line;
  JsonObject *object;

  if (!dsh_test_require_bwrap ())
    return;

  dsh_test_run (&run, argv, env, ws, NULL);
  dsh_test_assert_never_ran (&run, marker);

  /* bwrap's own fatal line streams through, then exactly one dsh-sandbox line. */
  g_assert_true (g_str_has_prefix (run.err, "bwrap: "));
  last_line = strstr (run.err, "\ndsh-sandbox: ");
  g_assert_nonnull (last_line);
  assert_one_error_line_matching (last_line + 1, "*Runner failure: bwrap: *namespace*");
  g_assert_true (g_str_has_prefix (last_line + 1 + strlen ("dsh-sandbox: "), prefix));
  /* Not a denial. */
  g_assert_null (strstr (run.err, "[sandbox: file access denied"));

  json = dsh_test_read_file (report);
  node = dsh_test_parse_valid_json (json, "exec-report.schema.json");
  object = json_node_get_object (node);
  g_assert_cmpstr (json_object_get_string_member (object, "outcome"), ==, "runner-failure");
  g_assert_false (json_object_get_boolean_member (object, "commandRan"));
  g_assert_true (g_str_has_prefix (json_object_get_string_member (object, "detail"), prefix));
}

static void
test_bwrap_command_exec_failure_is_not_runner_failure (void)
{
  g_autofree char *ws = dsh_test_make_tmp_dir ();
  const char *env[] = { "DSH_SANDBOX_BACKEND=bwrap", NULL };
  const char *args[] = { "exec", "--workspace", ws, "--", "/nonexistent-dsh-program", NULL };
  g_auto (DshTestRun) run = { 0 };

  if (!dsh_test_require_bwrap ())
    return;
  dsh_test_run_cli (&run, args, env, ws);
  /* The command's own failure to exist passes through as the runner reports it: the launcher's
   * step inside, where a Landlock domain is made there, else bwrap itself. */
  g_assert_null (strstr (run.err, "dsh-sandbox:"));
  if (dsh_test_landlock_abi () >= 2)
    {
      g_assert_cmpint (run.exit_code, ==, 127);
      g_assert_nonnull (strstr (run.err, "cannot execute '/nonexistent-dsh-program'"));
      return;
    }
  g_assert_cmpint (run.exit_code, ==, 1);
  g_assert_nonnull (strstr (run.err, "execvp /nonexistent-dsh-program"));
}

static void
test_confine_json (void)
{
  g_autofree char *ws = dsh_test_make_tmp_dir ();
  const char *env[] = { "DSH_SANDBOX_BACKEND=bwrap", NULL };
  const char *args[] = { "confine", "--mode", "workspace-write", "--workspace", ws, "--", "bash",
                         "-c", "echo hi", NULL };
  g_auto (DshTestRun) run = { 0 };
  g_autoptr (JsonNode) node = NULL;
  JsonArray *argv;
  guint n;
  g_autofree char *canonical = realpath (ws, NULL);
  gboolean saw_ro_root = FALSE, saw_proc = FALSE, saw_bind = FALSE;

  if (!dsh_test_require_bwrap ())
    return;
  dsh_test_run_cli (&run, args, env, ws);
  g_assert_cmpint (run.exit_code, ==, 0);
  node = dsh_test_parse_valid_json (run.out, "confined-argv.schema.json");
  argv = json_object_get_array_member (json_node_get_object (node), "argv");
  n = json_array_get_length (argv);
  g_assert_cmpstr (json_array_get_string_element (argv, n - 4), ==, "--");
  g_assert_cmpstr (json_array_get_string_element (argv, n - 3), ==, "bash");
  g_assert_cmpstr (json_array_get_string_element (argv, n - 1), ==, "echo hi");
  for (guint i = 0; i + 2 < n; i++)
    {
      const char *arg = json_array_get_string_element (argv, i);

      if (g_str_equal (arg, "--ro-bind"))
        saw_ro_root = TRUE;
      /* A fresh /proc must come after the root bind, or the host's /proc shows through. */
      if (g_str_equal (arg, "--proc"))
        {
          g_assert_true (saw_ro_root);
          saw_proc = TRUE;
        }
      /* The launcher binds each writable root from a descriptor it opens itself. */
      if (g_str_equal (arg, "--write") &&
          g_str_equal (json_array_get_string_element (argv, i + 1), canonical))
        saw_bind = TRUE;
    }
  g_assert_true (saw_proc);
  g_assert_true (saw_bind);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (node), "enforcement"), ==,
                   "full");
}

static void
test_probe_json_real (void)
{
  const char *args[] = { "probe", "--json", NULL };
  g_auto (DshTestRun) run = { 0 };
  g_autoptr (JsonNode) node = NULL;

  if (!dsh_test_require_bwrap ())
    return;
  dsh_test_run_cli (&run, args, NULL, NULL);
  g_assert_cmpint (run.exit_code, ==, 0);
  node = dsh_test_parse_valid_json (run.out, "probe.schema.json");
  /* Linux prefers a working bwrap. */
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (node), "selected"), ==,
                   "bwrap");
}

/* Module fixtures: each refused with its reason, none able to take the host down. */
static void
test_probe_refuses_fixtures (void)
{
  /* Outside /tmp, which workspace-write calls grant: no module there is trusted. */
  g_autofree char *dir = dsh_test_scratch_dir ("fixtures");
  const char *fixtures[] = { "fake-alpha", "noentry", "fake-abimajor", "fake-abiminor",
                             "fake-norules", "fake-broken", "fake-beta" };
  g_autofree char *env_dir = g_strdup_printf ("DSH_SANDBOX_BACKEND_DIR=%s", dir);
  const char *env[] = { env_dir, NULL };
  const char *args[] = { "probe", "--json", NULL };
  g_auto (DshTestRun) run = { 0 };
  g_autoptr (JsonNode) node = NULL;
  struct {
    const char *name;
    const char *status;
    const char *reason;
  } expected[] = {
    { "fake-broken", "unusable", "*fake-broken: fatal: this runner never works*" },
    { "fake-alpha", "selected", NULL },
    { "fake-beta", "not-needed", NULL },
    { "noentry", "refused",
      "the module exports neither dsh_backend_noentry_describe nor dsh_backend_describe" },
    { "fake-abimajor", "refused",
      "backend ABI 2.0 is incompatible with the core's ABI 1.2 (major version differs)" },
    { "fake-abiminor", "refused", "backend ABI 1.99 is newer than the core's ABI 1.2" },
    { "fake-norules", "refused", "the descriptor has no runner-failure rules" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (fixtures); i++)
    {
      g_autofree char *path = dsh_test_module_path (fixtures[i]);
      g_autofree char *copy = dsh_test_copy_module (path, dir);
    }

  dsh_test_run_cli (&run, args, env, NULL);
  g_assert_cmpint (run.exit_code, ==, 0);
  node = dsh_test_parse_valid_json (run.out, "probe.schema.json");
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      const char *name = expected[i].name;

      g_test_message ("fixture %s", name);
      g_assert_cmpstr (dsh_test_candidate_string (node, name, "status"), ==, expected[i].status);
      if (expected[i].reason != NULL)
        g_assert_true (g_pattern_match_simple (expected[i].reason,
                                               dsh_test_candidate_string (node, name, "reason")));
    }
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (node), "selected"), ==,
                   "fake-alpha");
}

static void
test_probe_refuses_untrusted_files (void)
{
  /* Outside /tmp, which workspace-write calls grant, so that each file's own fault shows. */
  g_autofree char *dir = dsh_test_scratch_dir ("untrusted");
  g_autofree char *shared_dir = dsh_test_scratch_dir ("untrusted-shared");
  g_autofree char *alpha = dsh_test_module_path ("fake-alpha");
  g_autofree char *copy = dsh_test_copy_module (alpha, dir);
  g_autofree char *shared_copy = dsh_test_copy_module (alpha, shared_dir);
  const char *args[] = { "probe", "--json", NULL };

  /* A world-writable module file. */
  {
    g_autofree char *env_dir = g_strdup_printf ("DSH_SANDBOX_BACKEND_DIR=%s", dir);
    const char *env[] = { env_dir, NULL };
    g_auto (DshTestRun) run = { 0 };
    g_autoptr (JsonNode) node = NULL;
    JsonObject *c;

    g_assert_cmpint (g_chmod (copy, 0666), ==, 0);
    dsh_test_run_cli (&run, args, env, NULL);
    g_assert_cmpint (run.exit_code, ==, 1);
    node = dsh_test_parse_valid_json (run.out, "probe.schema.json");
    c = json_array_get_object_element (
      json_object_get_array_member (json_node_get_object (node), "candidates"), 0);
    g_assert_cmpstr (json_object_get_string_member (c, "status"), ==, "refused");
    g_assert_cmpstr (json_object_get_string_member (c, "reason"), ==,
                     "the module file is writable by others (mode 0666)");
    g_assert_true (json_object_get_null_member (json_node_get_object (node), "selected"));
  }

  /* A module in a group-writable directory. */
  {
    g_autofree char *env_dir = g_strdup_printf ("DSH_SANDBOX_BACKEND_DIR=%s", shared_dir);
    const char *env[] = { env_dir, NULL };
    g_auto (DshTestRun) run = { 0 };
    g_autoptr (JsonNode) node = NULL;
    JsonObject *c;

    g_assert_cmpint (g_chmod (shared_dir, 0775), ==, 0);
    dsh_test_run_cli (&run, args, env, NULL);
    g_assert_cmpint (run.exit_code, ==, 1);
    node = dsh_test_parse_json (run.out);
    c = json_array_get_object_element (
      json_object_get_array_member (json_node_get_object (node), "candidates"), 0);
    g_assert_cmpstr (json_object_get_string_member (c, "status"), ==, "refused");
    g_assert_cmpstr (json_object_get_string_member (c, "reason"), ==,
                     "the module directory is writable by its group (mode 0775)");
  }
}

/* The hot path must not pay for JSON: a plain exec loads neither json-glib nor GIO, while a
 * command with a session (or any other subcommand) is handed to the full command. */
static void
test_plain_exec_is_lean (void)
{
  g_autofree char *ws = dsh_test_make_tmp_dir ();
  const char *env[] = { "LD_DEBUG=libs", NULL };
  const char *plain[] = { "exec", "--mode", "danger-full-access", "--", "true", NULL };
  const char *full[] = { "probe", NULL };
  g_auto (DshTestRun) lean = { 0 };
  g_auto (DshTestRun) handed = { 0 };

  dsh_test_run_cli (&lean, plain, env, ws);
  g_assert_cmpint (lean.exit_code, ==, 0);
  /* The loader's trace is there (GLib itself may be linked in statically). */
  g_assert_nonnull (strstr (lean.err, "libc.so"));
  g_assert_null (strstr (lean.err, "libjson-glib"));
  g_assert_null (strstr (lean.err, "libgio-2.0"));

  dsh_test_run_cli (&handed, full, env, ws);
  g_assert_nonnull (strstr (handed.err, "libjson-glib"));
}

/* A denial is found whatever precedes it on stderr: a NUL byte, or more than the captured head. */
static void
test_denial_after_nul_or_flood (void)
{
  g_autofree char *ws = dsh_test_make_tmp_dir ();
  g_autofree char *report = g_build_filename (ws, "report.json", NULL);
  const char *scripts[] = {
    "printf 'x\\0y\\n' >&2; echo hi > /etc/dsh-denied; exit 2",
    "head -c 1200000 /dev/zero | tr '\\0' a >&2; echo >&2; echo hi > /etc/dsh-denied; exit 2",
    /* Far past the head: the relay then moves the flood without copying it and keeps the tail
     * aside; the denial at its end must still be seen. */
    "head -c 5000000 /dev/zero | tr '\\0' a >&2; echo >&2; echo hi > /etc/dsh-denied; exit 2",
  };

  if (!dsh_test_require_bwrap ())
    return;
  for (guint i = 0; i < G_N_ELEMENTS (scripts); i++)
    {
      const char *args[] = { "exec", "--workspace", ws, "--report", report, "--", "sh", "-c",
                             scripts[i], NULL };
      const char *env[] = { "DSH_SANDBOX_BACKEND=bwrap", NULL };
      g_auto (DshTestRun) run = { 0 };
      g_autofree char *json = NULL;
      g_autoptr (JsonNode) node = NULL;

      dsh_test_run_cli (&run, args, env, ws);
      g_assert_cmpint (run.exit_code, ==, 2);
      /* (stderr itself holds a NUL in the first case, so the report tells.) */
      json = dsh_test_read_file (report);
      node = dsh_test_parse_json (json);
      g_assert_cmpstr (json_object_get_string_member (json_node_get_object (node), "outcome"), ==,
                       "denied");
      g_assert_cmpstr (json_array_get_string_element (
                         json_object_get_array_member (json_node_get_object (node), "markers"),
                         0),
                       ==, "[sandbox: file access denied under read-only mode]");
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli/bad-input", test_bad_input);
  g_test_add_func ("/cli/unavailable-never-runs", test_unavailable_never_runs);
  g_test_add_func ("/cli/danger-full-access-runs-raw", test_danger_full_access_runs_raw);
  g_test_add_func ("/cli/plain-exec-is-lean", test_plain_exec_is_lean);
  g_test_add_func ("/cli/denial-after-nul-or-flood", test_denial_after_nul_or_flood);
  g_test_add_func ("/cli/report-unwritable", test_report_unwritable_never_runs);
  g_test_add_func ("/cli/bwrap/runner-failure", test_bwrap_runner_failure);
  g_test_add_func ("/cli/bwrap/command-exec-failure",
                   test_bwrap_command_exec_failure_is_not_runner_failure);
  g_test_add_func ("/cli/confine-json", test_confine_json);
  g_test_add_func ("/cli/probe/json", test_probe_json_real);
  g_test_add_func ("/cli/probe/fixtures", test_probe_refuses_fixtures);
  g_test_add_func ("/cli/probe/untrusted-files", test_probe_refuses_untrusted_files);
  return g_test_run ();
}
