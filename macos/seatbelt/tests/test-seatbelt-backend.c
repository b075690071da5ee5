/* test-seatbelt-backend.c — the Seatbelt module's descriptor through the fake host: the runner
 * only at /usr/bin/sandbox-exec, check() failing closed, the argv shape of each mode, refusals,
 * and its dialect and runner-failure rules applied to the lines sandbox-exec is reported to print.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "dsh-backend-fake-host-private.h"
#include "dsh-policy.h"
#include "dsh-roots.h"
#include "dsh-seatbelt-profile.h"
#include "seatbelt-expected-defines.h"

const DshBackendDescriptor *dsh_backend_seatbelt_describe (void);

static DshBackendFakeHost *
new_mac_host (void)
{
  DshBackendFakeHost *fake = dsh_backend_fake_host_new ();

  dsh_backend_fake_host_set_program (fake, "sandbox-exec", "/usr/bin/sandbox-exec");
  return fake;
}

/* Every call is partial for the terminal a command shares with its caller: through TIOCSTI it
 * could type into the caller's shell, which runs that unconfined once the command ends. */
static const char terminal_reason[] =
  "a command whose controlling terminal is the caller's can push input into it (TIOCSTI), which "
  "the caller's shell reads and runs unconfined after the command ends: the profile allows "
  "ioctls on terminals and sandbox-exec keeps the caller's session";

/* Partial for reason (NULL: for nothing else) and then for the terminal. The core's own call
 * ends the reasons with a NULL. */
static void
assert_partial (DshBackendFakeHost *fake, const char *reason)
{
  guint n = reason != NULL ? 2 : 1;
  guint len = fake->call.reasons->len;

  if (len > 0 && fake->call.reasons->pdata[len - 1] == NULL)
    len--;
  g_assert_cmpint (fake->call.enforcement, ==, DSH_ENFORCEMENT_PARTIAL);
  g_assert_cmpuint (len, ==, n);
  if (reason != NULL)
    g_assert_cmpstr (fake->call.reasons->pdata[0], ==, reason);
  g_assert_cmpstr (fake->call.reasons->pdata[n - 1], ==, terminal_reason);
}

static void
test_descriptor (void)
{
  const DshBackendDescriptor *desc = dsh_backend_seatbelt_describe ();

  g_assert_cmpuint (desc->abi_major, ==, DSH_BACKEND_ABI_MAJOR);
  g_assert_cmpuint (desc->abi_minor, ==, DSH_BACKEND_ABI_MINOR);
  g_assert_cmpstr (desc->name, ==, "seatbelt");
  g_assert_cmpint (desc->os, ==, DSH_BACKEND_OS_MACOS);
  g_assert_nonnull (desc->check);
  g_assert_cmpstr (desc->denial_signatures[0], ==, "Operation not permitted");
  g_assert_null (desc->denial_signatures[1]);
  g_assert_cmpuint (desc->n_runner_failure_rules, ==, 2);
}

static void
test_check_fails_closed (void)
{
  const DshBackendDescriptor *desc = dsh_backend_seatbelt_describe ();
  g_autoptr (DshBackendFakeHost) fake = dsh_backend_fake_host_new ();
  DshBackendHost *host = dsh_backend_fake_host_get_host (fake);

  /* Absent. */
  g_assert_cmpint (desc->check (host), !=, 0);
  g_assert_cmpstr (fake->call.error, ==,
                   "/usr/bin/sandbox-exec was not found (a sandbox-exec elsewhere is never used)");

  /* Only elsewhere on PATH, where a confined command may have planted it. */
  dsh_backend_fake_host_reset (fake);
  dsh_backend_fake_host_set_program (fake, "sandbox-exec", "/opt/homebrew/bin/sandbox-exec");
  g_assert_cmpint (desc->check (host), !=, 0);
  g_assert_nonnull (fake->call.error);

  dsh_backend_fake_host_reset (fake);
  dsh_backend_fake_host_set_program (fake, "sandbox-exec", "/usr/bin/sandbox-exec");
  g_assert_cmpint (desc->check (host), ==, 0);
  g_assert_null (fake->call.error);
  /* The check is a lookup, never a run. */
  g_assert_cmpuint (fake->probes->len, ==, 0);
}

static void
test_confine_fails_closed_without_runner (void)
{
  const DshBackendDescriptor *desc = dsh_backend_seatbelt_describe ();
  g_autoptr (DshBackendFakeHost) fake = dsh_backend_fake_host_new ();
  const char *argv[] = { "/bin/echo", "hi", NULL };
  DshBackendPolicy policy = { .mode = DSH_BACKEND_MODE_READ_ONLY, .workspace_root = "/Users/me" };

  dsh_backend_fake_host_set_program (fake, "sandbox-exec", "/usr/local/bin/sandbox-exec");
  g_assert_cmpint (desc->confine (dsh_backend_fake_host_get_host (fake), &policy, argv), !=, 0);
  g_assert_nonnull (fake->call.error);
  g_assert_cmpuint (fake->call.argv->len, ==, 0);
}

/* argv: runner, -p, profile, the -D parameters, --, then the command exactly. */
static void
assert_argv_shape (GPtrArray *got, const char *const *defines, const char *const *command)
{
  guint n_defines = g_strv_length ((char **) defines);
  guint n_command = g_strv_length ((char **) command);
  guint i = 0;

  g_assert_cmpuint (got->len, ==, 3 + n_defines + 1 + n_command + 1);
  g_assert_cmpstr (got->pdata[i++], ==, "/usr/bin/sandbox-exec");
  g_assert_cmpstr (got->pdata[i++], ==, "-p");
  g_assert_true (g_str_has_prefix (got->pdata[i++], "(version 1)\n(deny default)\n"));
  for (guint k = 0; k < n_defines; k++)
    g_assert_cmpstr (got->pdata[i++], ==, defines[k]);
  g_assert_cmpstr (got->pdata[i++], ==, "--");
  for (guint k = 0; k < n_command; k++)
    g_assert_cmpstr (got->pdata[i++], ==, command[k]);
  g_assert_null (got->pdata[i]);
}

static void
test_read_only_argv (void)
{
  const DshBackendDescriptor *desc = dsh_backend_seatbelt_describe ();
  g_autoptr (DshBackendFakeHost) fake = new_mac_host ();
  g_autoptr (DshSandboxPolicy) policy = dsh_sandbox_policy_new (DSH_SANDBOX_MODE_READ_ONLY,
                                                                "/Users/me/ws", NULL);
  /* Words a runner could take for its own options stay the command's, after "--". */
  const char *command[] = { "/bin/sh", "-p", "--", "-Dx=y", NULL };
  const char *no_defines[] = { NULL };
  g_autoptr (GError) error = NULL;

  g_assert_true (dsh_backend_call_confine (&fake->call, "seatbelt", desc, command, policy,
                                           &error));
  g_assert_no_error (error);
  assert_argv_shape (fake->call.argv, no_defines, command);
  assert_partial (fake, NULL);
  g_assert_cmpuint (fake->probes->len, ==, 0);
}

static void
test_workspace_write_argv (void)
{
  const DshBackendDescriptor *desc = dsh_backend_seatbelt_describe ();
  g_autoptr (DshBackendFakeHost) fake = new_mac_host ();
  const char *roots[] = { "/Users/me/ws", "/tmp", "/var/folders/zz/abc/T", NULL };
  DshBackendPolicy policy = { .mode = DSH_BACKEND_MODE_WORKSPACE_WRITE,
                              .workspace_root = "/Users/me/ws", .writable_roots = roots };
  const char *command[] = { "git", "commit", "-m", "x", NULL };

  g_assert_false (g_file_test ("/tmp/.git", G_FILE_TEST_EXISTS));
  g_assert_cmpint (desc->confine (dsh_backend_fake_host_get_host (fake), &policy, command), ==, 0);
  g_assert_null (fake->call.error);
  g_ptr_array_add (fake->call.argv, NULL);
  /* None of them holds a repository here: their git parameters match nothing. */
  assert_argv_shape (fake->call.argv, workspace_write_defines, command);
  assert_partial (fake, NULL);
}

/* top_base: where the root's own .git and HEAD are protected: git_base, or the root itself when
 * it holds no repository but a root beneath it does. */
static void
add_slot_defines (GPtrArray *defines, guint slot, const char *root, const char *git_base,
                  const char *top_base)
{
  g_ptr_array_add (defines, g_strdup_printf ("-DWRITABLE_ROOT_%u=%s", slot, root));
  g_ptr_array_add (defines, g_strdup_printf ("-DWRITABLE_ROOT_%u_GIT=%s/.git", slot, top_base));
  g_ptr_array_add (defines, g_strdup_printf ("-DWRITABLE_ROOT_%u_GIT_HOOKS=%s/.git/hooks", slot,
                                             git_base));
  g_ptr_array_add (defines, g_strdup_printf ("-DWRITABLE_ROOT_%u_GIT_CONFIG=%s/.git/config", slot,
                                             git_base));
  g_ptr_array_add (defines, g_strdup_printf (
                              "-DWRITABLE_ROOT_%u_GIT_CONFIG_WORKTREE=%s/.git/config.worktree",
                              slot, git_base));
  g_ptr_array_add (defines, g_strdup_printf ("-DWRITABLE_ROOT_%u_GIT_COMMONDIR=%s/.git/commondir",
                                             slot, git_base));
  g_ptr_array_add (defines, g_strdup_printf ("-DWRITABLE_ROOT_%u_HEAD=%s/HEAD", slot, top_base));
}

/* Through the core's own call, with this host's writable roots: whatever they are, each is one
 * -D value in the macOS spelling, and fewer than three distinct ones repeat the last. */
static void
test_workspace_write_with_core_roots (void)
{
  const DshBackendDescriptor *desc = dsh_backend_seatbelt_describe ();
  g_autoptr (DshBackendFakeHost) fake = new_mac_host ();
  g_autoptr (DshSandboxPolicy) policy = dsh_sandbox_policy_new (DSH_SANDBOX_MODE_WORKSPACE_WRITE,
                                                                "/Users/me/ws", NULL);
  g_auto (GStrv) roots = dsh_writable_roots (policy);
  const char *command[] = { "true", NULL };
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) defines = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) distinct = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) git_bases = g_ptr_array_new_with_free_func (g_free);
  guint slot = 0;

  for (guint i = 0; roots[i] != NULL; i++)
    {
      char *spelled = dsh_seatbelt_macos_spelling (roots[i]);
      g_autofree char *dotgit = g_build_filename (roots[i], ".git", NULL);
      GStatBuf st;

      if (g_ptr_array_find_with_equal_func (distinct, spelled, g_str_equal, NULL))
        {
          free (spelled);
          continue;
        }
      g_ptr_array_add (distinct, g_strdup (spelled));
      g_ptr_array_add (git_bases, g_strdup (g_lstat (dotgit, &st) == 0 ? spelled : "/dev/null"));
      free (spelled);
    }
  for (; slot < MAX (distinct->len, 3); slot++)
    {
      guint r = MIN (slot, distinct->len - 1);

      add_slot_defines (defines, slot, distinct->pdata[r], git_bases->pdata[r],
                        git_bases->pdata[r]);
    }
  g_ptr_array_add (defines, NULL);

  g_assert_true (dsh_backend_call_confine (&fake->call, "seatbelt", desc, command, policy,
                                           &error));
  g_assert_no_error (error);
  assert_argv_shape (fake->call.argv, (const char *const *) defines->pdata, command);
  g_assert_cmpstr (fake->call.argv->pdata[3], ==, "-DWRITABLE_ROOT_0=/Users/me/ws");
}

/* A workspace holding a repository gets its .git, hooks and config protected; one that holds
 * none gets parameters that match nothing, so git init and git clone work there. */
static void
test_repository_in_workspace (void)
{
  const DshBackendDescriptor *desc = dsh_backend_seatbelt_describe ();
  g_autofree char *ws = g_dir_make_tmp ("seatbelt-ws-XXXXXX", NULL);
  g_autofree char *dotgit = g_build_filename (ws, ".git", NULL);
  g_autofree char *spelled = dsh_seatbelt_macos_spelling (ws);
  const char *roots[] = { ws, NULL };
  DshBackendPolicy policy = { .mode = DSH_BACKEND_MODE_WORKSPACE_WRITE, .workspace_root = ws,
                              .writable_roots = roots };
  const char *command[] = { "git", "init", NULL };
  g_autofree char *open_profile = NULL;

  for (int with_repository = 0; with_repository < 2; with_repository++)
    {
      g_autoptr (DshBackendFakeHost) fake = new_mac_host ();
      g_autoptr (GPtrArray) defines = g_ptr_array_new_with_free_func (g_free);
      const char *git_base = with_repository ? spelled : "/dev/null";

      /* One root fills the profile's three slots. */
      for (guint slot = 0; slot < 3; slot++)
        add_slot_defines (defines, slot, spelled, git_base, git_base);
      g_ptr_array_add (defines, NULL);
      g_assert_cmpint (desc->confine (dsh_backend_fake_host_get_host (fake), &policy, command),
                       ==, 0);
      g_ptr_array_add (fake->call.argv, NULL);
      assert_argv_shape (fake->call.argv, (const char *const *) defines->pdata, command);
      assert_partial (fake, NULL);
      if (open_profile == NULL)
        open_profile = g_strdup (fake->call.argv->pdata[2]);
      else
        g_assert_cmpstr (fake->call.argv->pdata[2], ==, open_profile);
      /* The call's git init, as the next call finds it. */
      if (!with_repository)
        g_assert_no_errno (g_mkdir (dotgit, 0700));
    }
  g_assert_no_errno (g_rmdir (dotgit));
  g_assert_no_errno (g_rmdir (ws));
}

/* What the profile cannot name is reported: the git directory a .git file leads to, those of
 * submodules and linked worktrees, and where a hooks symlink points. */
static void
test_repository_parts_elsewhere_are_partial (void)
{
  const DshBackendDescriptor *desc = dsh_backend_seatbelt_describe ();
  g_autofree char *ws = g_dir_make_tmp ("seatbelt-parts-XXXXXX", NULL);
  g_autofree char *dotgit = g_build_filename (ws, ".git", NULL);
  g_autofree char *modules = g_build_filename (dotgit, "modules", NULL);
  g_autofree char *spelled = dsh_seatbelt_macos_spelling (ws);
  g_autofree char *want = g_strdup_printf (
    "the repository at %s is a .git file or symlink, has submodules or linked worktrees, or its "
    "hooks or config are symlinks: what git runs from where they lead stays writable where that "
    "lies inside a writable root", spelled);
  const char *roots[] = { ws, NULL };
  DshBackendPolicy policy = { .mode = DSH_BACKEND_MODE_WORKSPACE_WRITE, .workspace_root = ws,
                              .writable_roots = roots };
  const char *command[] = { "true", NULL };

  g_autofree char *hooks = g_build_filename (dotgit, "hooks", NULL);

  for (int step = 0; step < 4; step++)
    {
      g_autoptr (DshBackendFakeHost) fake = new_mac_host ();

      if (step == 0)
        g_assert_true (g_file_set_contents (dotgit, "gitdir: ../elsewhere\n", -1, NULL));
      else if (step == 1)
        {
          g_assert_no_errno (g_unlink (dotgit));
          g_assert_no_errno (g_mkdir (dotgit, 0700));
          g_assert_no_errno (g_mkdir (modules, 0700));
        }
      else if (step == 2)
        {
          g_assert_no_errno (g_rmdir (modules));
          g_assert_no_errno (symlink ("../evil-hooks", hooks));
        }
      else
        {
          g_assert_no_errno (g_unlink (hooks));
          g_assert_no_errno (g_mkdir (hooks, 0700));
        }

      g_assert_cmpint (desc->confine (dsh_backend_fake_host_get_host (fake), &policy, command),
                       ==, 0);
      if (step < 3)
        {
          assert_partial (fake, want);
        }
      else
        {
          /* A plain .git directory: everything git runs from it is protected. */
          assert_partial (fake, NULL);
        }
    }
  g_assert_no_errno (g_rmdir (hooks));
  g_assert_no_errno (g_rmdir (dotgit));
  g_assert_no_errno (g_rmdir (ws));
}

static void
test_nested_root_is_partial (void)
{
  const DshBackendDescriptor *desc = dsh_backend_seatbelt_describe ();
  g_autoptr (DshBackendFakeHost) fake = new_mac_host ();
  const char *roots[] = { "/tmp/a/ws", "/tmp", NULL };
  const char *direct[] = { "/tmp/ws", "/tmp", NULL };
  DshBackendPolicy policy = { .mode = DSH_BACKEND_MODE_WORKSPACE_WRITE,
                              .workspace_root = "/tmp/a/ws", .writable_roots = roots };
  const char *command[] = { "true", NULL };

  g_assert_cmpint (desc->confine (dsh_backend_fake_host_get_host (fake), &policy, command), ==, 0);
  assert_partial (fake,
                  "writable root /private/tmp/a/ws lies inside writable root /private/tmp below a "
                  "directory that can be renamed, which would carry its .git past the "
                  "protected-path rules (they match paths), and in which a repository of the "
                  "command's making is the one git finds from it once the command garbles its "
                  "own .git/HEAD");

  /* Directly inside: the root itself is what would have to be renamed, and that is refused. */
  dsh_backend_fake_host_reset (fake);
  policy.writable_roots = direct;
  g_assert_cmpint (desc->confine (dsh_backend_fake_host_get_host (fake), &policy, command), ==, 0);
  assert_partial (fake, NULL);
}

/* A repository inside another root: on a case-insensitive volume OUTER/WS/.git/config is
 * OUTER/ws/.git/config, allowed by the outer root's rule and not matched by the inner root's
 * exactly spelled .git rules; on HFS+ even a name of digits has other spellings. */
/* The partial reason for a repository's root inside another (spelled as macOS does). */
static char *
respelled_reason (const char *inner, const char *outer)
{
  return g_strdup_printf (
    "writable root %s holds a repository and lies at or inside writable root %s, and has other "
    "spellings on a case- or normalisation-insensitive volume (another letter case, another "
    "Unicode form, on HFS+ an ignored code point): the outer root's rule allows them, and its "
    ".git rules match only the exact one", inner, outer);
}

static void
test_respellable_nested_root_is_partial (void)
{
  const DshBackendDescriptor *desc = dsh_backend_seatbelt_describe ();
  g_autofree char *outer = g_dir_make_tmp ("seatbelt-outer-XXXXXX", NULL);
  g_autofree char *lettered = g_build_filename (outer, "ws", NULL);
  g_autofree char *numbered = g_build_filename (outer, "2026", NULL);
  g_autofree char *lettered_git = g_build_filename (lettered, ".git", NULL);
  g_autofree char *numbered_git = g_build_filename (numbered, ".git", NULL);
  g_autofree char *outer_spelled = dsh_seatbelt_macos_spelling (outer);
  g_autofree char *lettered_spelled = dsh_seatbelt_macos_spelling (lettered);
  g_autofree char *want = respelled_reason (lettered_spelled, outer_spelled);
  g_autofree char *numbered_spelled = dsh_seatbelt_macos_spelling (numbered);
  g_autofree char *want_numbered = respelled_reason (numbered_spelled, outer_spelled);
  const char *command[] = { "true", NULL };

  g_assert_no_errno (g_mkdir (lettered, 0700));
  g_assert_no_errno (g_mkdir (numbered, 0700));
  for (int step = 0; step < 3; step++)
    {
      g_autoptr (DshBackendFakeHost) fake = new_mac_host ();
      const char *roots[] = { step == 2 ? numbered : lettered, outer, NULL };
      DshBackendPolicy policy = { .mode = DSH_BACKEND_MODE_WORKSPACE_WRITE,
                                  .workspace_root = roots[0], .writable_roots = roots };

      /* Without a repository there is nothing to protect; with one, that is a reason too. */
      if (step == 1)
        g_assert_no_errno (g_mkdir (lettered_git, 0700));
      else if (step == 2)
        g_assert_no_errno (g_mkdir (numbered_git, 0700));
      g_assert_cmpint (desc->confine (dsh_backend_fake_host_get_host (fake), &policy, command),
                       ==, 0);
      assert_partial (fake, step == 0 ? NULL : step == 1 ? want : want_numbered);
    }
  g_assert_no_errno (g_rmdir (lettered_git));
  g_assert_no_errno (g_rmdir (numbered_git));
  g_assert_no_errno (g_rmdir (lettered));
  g_assert_no_errno (g_rmdir (numbered));
  g_assert_no_errno (g_rmdir (outer));
}

/* A root spelled in another letter case than the root it lies in (/private/TMP/ws inside
 * /private/tmp): the same directory on a case-insensitive volume, so it is nested all the
 * same. This host's volume is case-sensitive: two directories stand in for the spellings. */
static void
test_nested_root_in_another_case_is_partial (void)
{
  const DshBackendDescriptor *desc = dsh_backend_seatbelt_describe ();
  g_autofree char *base = g_dir_make_tmp ("seatbelt-case-XXXXXX", NULL);
  g_autofree char *outer = g_build_filename (base, "tmp", NULL);
  g_autofree char *upper = g_build_filename (base, "TMP", NULL);
  g_autofree char *between = g_build_filename (upper, "a", NULL);
  g_autofree char *ws = g_build_filename (between, "ws", NULL);
  g_autofree char *dotgit = g_build_filename (ws, ".git", NULL);
  g_autofree char *outer_spelled = dsh_seatbelt_macos_spelling (outer);
  g_autofree char *upper_spelled = dsh_seatbelt_macos_spelling (upper);
  g_autofree char *ws_spelled = dsh_seatbelt_macos_spelling (ws);
  g_autofree char *renamed = g_strdup_printf (
    "writable root %s lies inside writable root %s below a directory that can be renamed, "
    "which would carry its .git past the protected-path rules (they match paths), and in which "
    "a repository of the command's making is the one git finds from it once the command "
    "garbles its own .git/HEAD",
    ws_spelled, outer_spelled);
  g_autofree char *respelled = respelled_reason (ws_spelled, outer_spelled);
  g_autofree char *same_respelled = respelled_reason (upper_spelled, outer_spelled);
  g_autofree char *upper_git = g_build_filename (upper, ".git", NULL);
  const char *command[] = { "true", NULL };

  g_assert_no_errno (g_mkdir (outer, 0700));
  g_assert_no_errno (g_mkdir_with_parents (dotgit, 0700));
  {
    g_autoptr (DshBackendFakeHost) fake = new_mac_host ();
    const char *roots[] = { ws, outer, NULL };
    DshBackendPolicy policy = { .mode = DSH_BACKEND_MODE_WORKSPACE_WRITE, .workspace_root = ws,
                                .writable_roots = roots };

    g_assert_cmpint (desc->confine (dsh_backend_fake_host_get_host (fake), &policy, command),
                     ==, 0);
    g_assert_cmpint (fake->call.enforcement, ==, DSH_ENFORCEMENT_PARTIAL);
    g_assert_cmpuint (fake->call.reasons->len, ==, 3);
    g_assert_cmpstr (fake->call.reasons->pdata[0], ==, renamed);
    g_assert_cmpstr (fake->call.reasons->pdata[1], ==, respelled);
  }
  /* The workspace is the outer root itself, spelled otherwise. */
  g_assert_no_errno (g_mkdir (upper_git, 0700));
  {
    g_autoptr (DshBackendFakeHost) fake = new_mac_host ();
    const char *roots[] = { upper, outer, NULL };
    DshBackendPolicy policy = { .mode = DSH_BACKEND_MODE_WORKSPACE_WRITE,
                                .workspace_root = upper, .writable_roots = roots };

    g_assert_cmpint (desc->confine (dsh_backend_fake_host_get_host (fake), &policy, command),
                     ==, 0);
    assert_partial (fake, same_respelled);
  }
  g_assert_no_errno (g_rmdir (upper_git));
  g_assert_no_errno (g_rmdir (dotgit));
  g_assert_no_errno (g_rmdir (ws));
  g_assert_no_errno (g_rmdir (between));
  g_assert_no_errno (g_rmdir (upper));
  g_assert_no_errno (g_rmdir (outer));
  g_assert_no_errno (g_rmdir (base));
}

/* A workspace below the top of a repository (OUTER/repo/sub, the repository at OUTER/repo),
 * inside another root: git run later in the workspace takes its hooks and config from
 * OUTER/repo/.git, which the outer root makes writable. Its git parameters name that .git. */
static void
test_repository_above_the_root_is_protected (void)
{
  const DshBackendDescriptor *desc = dsh_backend_seatbelt_describe ();
  g_autofree char *outer = g_dir_make_tmp ("seatbelt-above-XXXXXX", NULL);
  g_autofree char *repo = g_build_filename (outer, "repo", NULL);
  g_autofree char *dotgit = g_build_filename (repo, ".git", NULL);
  g_autofree char *ws = g_build_filename (repo, "sub", NULL);
  g_autofree char *outer_spelled = dsh_seatbelt_macos_spelling (outer);
  g_autofree char *repo_spelled = dsh_seatbelt_macos_spelling (repo);
  g_autofree char *ws_spelled = dsh_seatbelt_macos_spelling (ws);
  const char *roots[] = { ws, outer, NULL };
  DshBackendPolicy policy = { .mode = DSH_BACKEND_MODE_WORKSPACE_WRITE, .workspace_root = ws,
                              .writable_roots = roots };
  const char *command[] = { "git", "commit", NULL };
  g_autoptr (DshBackendFakeHost) fake = new_mac_host ();
  g_autoptr (GPtrArray) defines = g_ptr_array_new_with_free_func (g_free);

  g_assert_no_errno (g_mkdir_with_parents (dotgit, 0700));
  g_assert_no_errno (g_mkdir (ws, 0700));
  add_slot_defines (defines, 0, ws_spelled, repo_spelled, repo_spelled);
  /* Where git looks once repo/.git/HEAD is garbled: the outer root holds no .git or HEAD. */
  add_slot_defines (defines, 1, outer_spelled, "/dev/null", outer_spelled);
  add_slot_defines (defines, 2, outer_spelled, "/dev/null", outer_spelled);
  g_ptr_array_add (defines, NULL);

  g_assert_cmpint (desc->confine (dsh_backend_fake_host_get_host (fake), &policy, command), ==, 0);
  g_ptr_array_add (fake->call.argv, NULL);
  assert_argv_shape (fake->call.argv, (const char *const *) defines->pdata, command);

  /* Not when the repository lies outside every root: nothing makes it writable. */
  {
    g_autoptr (DshBackendFakeHost) alone = new_mac_host ();
    const char *only_ws[] = { ws, NULL };
    g_autoptr (GPtrArray) open_defines = g_ptr_array_new_with_free_func (g_free);

    policy.writable_roots = only_ws;
    for (guint slot = 0; slot < 3; slot++)
      add_slot_defines (open_defines, slot, ws_spelled, "/dev/null", "/dev/null");
    g_ptr_array_add (open_defines, NULL);
    g_assert_cmpint (desc->confine (dsh_backend_fake_host_get_host (alone), &policy, command),
                     ==, 0);
    g_ptr_array_add (alone->call.argv, NULL);
    assert_argv_shape (alone->call.argv, (const char *const *) open_defines->pdata, command);
  }
  g_assert_no_errno (g_rmdir (ws));
  g_assert_no_errno (g_rmdir (dotgit));
  g_assert_no_errno (g_rmdir (repo));
  g_assert_no_errno (g_rmdir (outer));
}

static void
test_refused_root_is_an_error (void)
{
  const DshBackendDescriptor *desc = dsh_backend_seatbelt_describe ();
  g_autoptr (DshBackendFakeHost) fake = new_mac_host ();
  const char *roots[] = { "/Users/me/ws", "/", NULL };
  DshBackendPolicy policy = { .mode = DSH_BACKEND_MODE_WORKSPACE_WRITE,
                              .workspace_root = "/Users/me/ws", .writable_roots = roots };
  const char *command[] = { "true", NULL };

  g_assert_cmpint (desc->confine (dsh_backend_fake_host_get_host (fake), &policy, command), !=, 0);
  g_assert_cmpstr (fake->call.error, ==,
                   "writable root \"/\" is refused: it would make every path writable");
  g_assert_cmpuint (fake->call.argv->len, ==, 0);
}

static DshOutcome
classify (DshConfinement *confinement, int exit_code, const char *stderr_text)
{
  g_autofree char *detail = NULL;

  return dsh_confinement_classify (confinement, exit_code, stderr_text, strlen (stderr_text),
                                   &detail);
}

/* The lines are those reported from real Macs (see macos/README.md); they are not reproduced
 * on this machine. */
static void
test_dialect_and_failure_rules (void)
{
  const DshBackendDescriptor *desc = dsh_backend_seatbelt_describe ();
  g_autoptr (DshBackendFakeHost) fake = new_mac_host ();
  g_autoptr (DshSandboxPolicy) policy = dsh_sandbox_policy_new (DSH_SANDBOX_MODE_READ_ONLY,
                                                                "/Users/me/ws", NULL);
  const char *command[] = { "true", NULL };
  g_autoptr (GError) error = NULL;
  g_autoptr (DshConfinement) confinement = NULL;

  g_assert_true (dsh_backend_call_confine (&fake->call, "seatbelt", desc, command, policy,
                                           &error));
  confinement = dsh_backend_call_to_confinement (&fake->call, "seatbelt", desc);

  g_assert_cmpint (classify (confinement, 65,
                             "sandbox-exec: unbound variable: frobnicate at <input string>, "
                             "line 5\n"), ==, DSH_OUTCOME_RUNNER_FAILURE);
  g_assert_cmpint (classify (confinement, 71, "sandbox-exec: sandbox_apply: Operation not "
                                              "permitted\n"), ==, DSH_OUTCOME_RUNNER_FAILURE);
  /* The same lines under another exit status are not the runner's. */
  g_assert_cmpint (classify (confinement, 1, "sandbox-exec: unbound variable: x\n"), !=,
                   DSH_OUTCOME_RUNNER_FAILURE);
  g_assert_cmpint (classify (confinement, 65, "sandbox-exec: sandbox_apply: Operation not "
                                              "permitted\n"), ==, DSH_OUTCOME_RUNNER_FAILURE);
  g_assert_cmpint (classify (confinement, 1, "sandbox-exec: sandbox_apply: Operation not "
                                             "permitted\n"), ==, DSH_OUTCOME_DENIED);
  /* A command sandbox-exec could not start is the command's failure, or a denial. */
  g_assert_cmpint (classify (confinement, 71, "sandbox-exec: execvp() of 'nope' failed: No such "
                                              "file or directory\n"), ==, DSH_OUTCOME_COMPLETED);
  g_assert_cmpint (classify (confinement, 71, "sandbox-exec: execvp() of '/x' failed: Operation "
                                              "not permitted\n"), ==, DSH_OUTCOME_DENIED);
  /* A command's own exit 65 is its own. */
  g_assert_cmpint (classify (confinement, 65, "usage error\n"), ==, DSH_OUTCOME_COMPLETED);
  g_assert_cmpint (classify (confinement, 1, "touch: /Users/me/x: Operation not permitted\n"), ==,
                   DSH_OUTCOME_DENIED);
  g_assert_cmpint (classify (confinement, 0, "Operation not permitted\n"), ==,
                   DSH_OUTCOME_COMPLETED);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/seatbelt-backend/descriptor", test_descriptor);
  g_test_add_func ("/seatbelt-backend/check-fails-closed", test_check_fails_closed);
  g_test_add_func ("/seatbelt-backend/confine-fails-closed-without-runner",
                   test_confine_fails_closed_without_runner);
  g_test_add_func ("/seatbelt-backend/read-only-argv", test_read_only_argv);
  g_test_add_func ("/seatbelt-backend/workspace-write-argv", test_workspace_write_argv);
  g_test_add_func ("/seatbelt-backend/workspace-write-with-core-roots",
                   test_workspace_write_with_core_roots);
  g_test_add_func ("/seatbelt-backend/repository-in-workspace", test_repository_in_workspace);
  g_test_add_func ("/seatbelt-backend/repository-parts-elsewhere-are-partial",
                   test_repository_parts_elsewhere_are_partial);
  g_test_add_func ("/seatbelt-backend/nested-root-is-partial", test_nested_root_is_partial);
  g_test_add_func ("/seatbelt-backend/respellable-nested-root-is-partial",
                   test_respellable_nested_root_is_partial);
  g_test_add_func ("/seatbelt-backend/nested-root-in-another-case-is-partial",
                   test_nested_root_in_another_case_is_partial);
  g_test_add_func ("/seatbelt-backend/repository-above-the-root-is-protected",
                   test_repository_above_the_root_is_protected);
  g_test_add_func ("/seatbelt-backend/refused-root-is-an-error", test_refused_root_is_an_error);
  g_test_add_func ("/seatbelt-backend/dialect-and-failure-rules", test_dialect_and_failure_rules);
  return g_test_run ();
}
