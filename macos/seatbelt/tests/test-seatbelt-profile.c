/* test-seatbelt-profile.c — the Seatbelt profile logic: macOS spellings, the -D parameters of
 * each mode, the git parameters of roots with and without a repository, refused roots, and a
 * profile text that no path ever changes.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <glib.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dsh-seatbelt-profile.h"
#include "seatbelt-expected-defines.h"

static void
assert_spelling (const char *path, const char *expected)
{
  char *spelled = dsh_seatbelt_macos_spelling (path);

  g_assert_cmpstr (spelled, ==, expected);
  free (spelled);
}

static void
test_spelling (void)
{
  assert_spelling ("/tmp", "/private/tmp");
  assert_spelling ("/tmp/", "/private/tmp");
  assert_spelling ("/tmp/ws", "/private/tmp/ws");
  assert_spelling ("/var/folders/zz/abc123/T/", "/private/var/folders/zz/abc123/T");
  assert_spelling ("/var/folders/zz/abc123/T", "/private/var/folders/zz/abc123/T");
  assert_spelling ("/etc", "/private/etc");
  assert_spelling ("/var", "/private/var");
  /* Already resolved, or not a /private link at all. */
  assert_spelling ("/private/tmp", "/private/tmp");
  assert_spelling ("/private/var/folders/zz/T", "/private/var/folders/zz/T");
  assert_spelling ("/Users/me/ws", "/Users/me/ws");
  assert_spelling ("/tmpfoo", "/tmpfoo");
  assert_spelling ("/variable/x", "/variable/x");
  assert_spelling ("/home/me/tmp", "/home/me/tmp");
  assert_spelling ("/", "/");
  /* A firmlinked directory spelled through the data volume is one directory with one
   * spelling, so a workspace named that way inside /tmp keeps its .git rules. */
  assert_spelling ("/System/Volumes/Data/private/tmp/ws", "/private/tmp/ws");
  assert_spelling ("/System/Volumes/Data/Users/me/ws/", "/Users/me/ws");
  assert_spelling ("/System/Volumes/Data/private", "/private");
  assert_spelling ("/System/Volumes/Data/System/Library/Caches/x", "/System/Library/Caches/x");
  assert_spelling ("/System/Volumes/Data/Usersx", "/System/Volumes/Data/Usersx");
  assert_spelling ("/System/Volumes/Data", "/System/Volumes/Data");
  /* A case-insensitive volume takes these in any letter case, and a program writing the
   * directory spells it as everything else does: /private/tmp/ws. (On a case-sensitive
   * install no such other spelling exists at the top of the sealed system volume.) */
  assert_spelling ("/system/volumes/data/private/tmp/ws", "/private/tmp/ws");
  assert_spelling ("/SYSTEM/Volumes/DATA/Users/me/ws", "/Users/me/ws");
  assert_spelling ("/System/Volumes/Data/PRIVATE/tmp/ws", "/private/tmp/ws");
  assert_spelling ("/TMP/ws", "/private/tmp/ws");
  assert_spelling ("/Var/folders/zz/T", "/private/var/folders/zz/T");
  assert_spelling ("/system/volumes/data/TMP/ws", "/system/volumes/data/TMP/ws");
  assert_spelling ("/TMPfoo", "/TMPfoo");
}

static void
build (DshBackendMode mode, const char *const *roots, DshSeatbeltPlan *plan)
{
  DshBackendPolicy policy = { .mode = mode, .workspace_root = roots ? roots[0] : "/Users/me/ws",
                              .writable_roots = roots };
  char error[256];

  g_assert_cmpint (dsh_seatbelt_plan_build (&policy, plan, error, sizeof error), ==, 0);
  g_assert_cmpstr (error, ==, "");
}

static void
assert_defines (const DshSeatbeltPlan *plan, const char *const *expected)
{
  g_assert_cmpuint (plan->n_defines, ==, g_strv_length ((char **) expected));
  for (size_t i = 0; expected[i] != NULL; i++)
    g_assert_cmpstr (plan->defines[i], ==, expected[i]);
  g_assert_null (plan->defines[plan->n_defines]);
}

/* Roots that hold no repository on this host (none exists): their git parameters name paths
 * beneath /dev/null, which match nothing. */
static void
test_workspace_write_parameters (void)
{
  const char *roots[] = { "/Users/me/ws", "/tmp", "/var/folders/zz/abc/T/", NULL };
  DshSeatbeltPlan plan;
  size_t inner, outer;

  g_assert_false (g_file_test ("/tmp/.git", G_FILE_TEST_EXISTS));
  build (DSH_BACKEND_MODE_WORKSPACE_WRITE, roots, &plan);
  assert_defines (&plan, workspace_write_defines);
  g_assert_cmpuint (plan.n_roots, ==, 3);
  for (size_t i = 0; i < 3; i++)
    g_assert_false (plan.has_repository[i]);
  g_assert_cmpstr (plan.roots[1], ==, "/private/tmp");
  g_assert_false (dsh_seatbelt_plan_find_nested_root (&plan, &inner, &outer));
  for (size_t i = 0; i < 3; i++)
    {
      g_autofree char *subpath = g_strdup_printf ("(subpath (param \"WRITABLE_ROOT_%zu\"))", i);
      g_autofree char *hooks = g_strdup_printf ("(subpath (param \"WRITABLE_ROOT_%zu_GIT_HOOKS\"))",
                                                i);

      g_assert_nonnull (strstr (plan.profile, subpath));
      g_assert_nonnull (strstr (plan.profile, hooks));
    }
  g_assert_null (strstr (plan.profile, "WRITABLE_ROOT_3"));
  dsh_seatbelt_plan_clear (&plan);
}

static char *
make_dir (const char *parent, const char *name)
{
  char *path = g_build_filename (parent, name, NULL);

  g_assert_no_errno (g_mkdir (path, 0700));
  return path;
}

static void
assert_git_defines (const DshSeatbeltPlan *plan, size_t i, const char *base)
{
  g_autofree char *git = g_strdup_printf ("-DWRITABLE_ROOT_%zu_GIT=%s/.git", i, base);
  g_autofree char *hooks = g_strdup_printf ("-DWRITABLE_ROOT_%zu_GIT_HOOKS=%s/.git/hooks", i,
                                            base);
  g_autofree char *config = g_strdup_printf ("-DWRITABLE_ROOT_%zu_GIT_CONFIG=%s/.git/config", i,
                                             base);
  g_autofree char *worktree = g_strdup_printf (
    "-DWRITABLE_ROOT_%zu_GIT_CONFIG_WORKTREE=%s/.git/config.worktree", i, base);
  g_autofree char *commondir = g_strdup_printf ("-DWRITABLE_ROOT_%zu_GIT_COMMONDIR=%s/.git/commondir",
                                                i, base);
  g_autofree char *head = g_strdup_printf ("-DWRITABLE_ROOT_%zu_HEAD=%s/HEAD", i, base);

  g_assert_cmpstr (plan->defines[7 * i + 1], ==, git);
  g_assert_cmpstr (plan->defines[7 * i + 2], ==, hooks);
  g_assert_cmpstr (plan->defines[7 * i + 3], ==, config);
  g_assert_cmpstr (plan->defines[7 * i + 4], ==, worktree);
  g_assert_cmpstr (plan->defines[7 * i + 5], ==, commondir);
  g_assert_cmpstr (plan->defines[7 * i + 6], ==, head);
}

/* A workspace that is itself a git directory (a bare repository: HEAD, objects, refs, no .git)
 * is the repository git finds there: git log run there later takes ROOT/config's core.pager, so
 * its own hooks, config, config.worktree and commondir are protected, and a .git beside them
 * (which git would find first) cannot be made. One with linked worktrees has parts the profile
 * cannot name. */
static void
test_bare_repository_at_root (void)
{
  g_autofree char *base = g_dir_make_tmp ("seatbelt-bare-XXXXXX", NULL);
  g_autofree char *bare = make_dir (base, "bare.git");
  g_autofree char *objects = make_dir (bare, "objects");
  g_autofree char *refs = make_dir (bare, "refs");
  g_autofree char *head = g_build_filename (bare, "HEAD", NULL);
  g_autofree char *linked = make_dir (base, "linked.git");
  g_autofree char *linked_objects = make_dir (linked, "objects");
  g_autofree char *linked_refs = make_dir (linked, "refs");
  g_autofree char *linked_worktrees = make_dir (linked, "worktrees");
  g_autofree char *linked_head = g_build_filename (linked, "HEAD", NULL);
  g_autofree char *spelled = NULL;
  const char *roots[] = { bare, linked, NULL };
  DshSeatbeltPlan plan;

  g_assert_true (g_file_set_contents (head, "ref: refs/heads/main\n", -1, NULL));
  g_assert_true (g_file_set_contents (linked_head, "ref: refs/heads/main\n", -1, NULL));
  build (DSH_BACKEND_MODE_WORKSPACE_WRITE, roots, &plan);
  spelled = dsh_seatbelt_macos_spelling (bare);
  g_assert_cmpint (plan.has_repository[0], ==, DSH_SEATBELT_REPOSITORY_PROTECTED);
  g_assert_cmpint (plan.has_repository[1], ==, DSH_SEATBELT_REPOSITORY_ELSEWHERE);
  {
    g_autofree char *git = g_strdup_printf ("-DWRITABLE_ROOT_0_GIT=%s/.git", spelled);
    g_autofree char *hooks = g_strdup_printf ("-DWRITABLE_ROOT_0_GIT_HOOKS=%s/hooks", spelled);
    g_autofree char *config = g_strdup_printf ("-DWRITABLE_ROOT_0_GIT_CONFIG=%s/config", spelled);
    g_autofree char *worktree = g_strdup_printf (
      "-DWRITABLE_ROOT_0_GIT_CONFIG_WORKTREE=%s/config.worktree", spelled);
    g_autofree char *commondir = g_strdup_printf ("-DWRITABLE_ROOT_0_GIT_COMMONDIR=%s/commondir",
                                                  spelled);
    g_autofree char *head_define = g_strdup_printf ("-DWRITABLE_ROOT_0_HEAD=%s/HEAD", spelled);

    g_assert_cmpstr (plan.defines[1], ==, git);
    g_assert_cmpstr (plan.defines[2], ==, hooks);
    g_assert_cmpstr (plan.defines[3], ==, config);
    g_assert_cmpstr (plan.defines[4], ==, worktree);
    g_assert_cmpstr (plan.defines[5], ==, commondir);
    g_assert_cmpstr (plan.defines[6], ==, head_define);
  }
  dsh_seatbelt_plan_clear (&plan);
  g_assert_no_errno (g_unlink (head));
  g_assert_no_errno (g_unlink (linked_head));
  for (const char *const *dir = (const char *const[]) { objects, refs, bare, linked_objects,
                                                        linked_refs, linked_worktrees, linked,
                                                        base, NULL };
       *dir != NULL; dir++)
    g_assert_no_errno (g_rmdir (*dir));
}

/* A repository's root directly inside a root that holds none (ws/.git in /tmp): once the
 * command garbles ws/.git/HEAD, git run in ws goes on looking above it, and /tmp's rule would
 * let the command make a repository there (OUTER/.git, or OUTER itself a bare one). The outer
 * root's .git and HEAD are protected; its other git parameters still match nothing. */
static void
test_outer_root_guards_repository_below (void)
{
  g_autofree char *outer = g_dir_make_tmp ("seatbelt-guard-XXXXXX", NULL);
  g_autofree char *ws = make_dir (outer, "ws");
  g_autofree char *ws_git = make_dir (ws, ".git");
  g_autofree char *plain = make_dir (outer, "plain");
  g_autofree char *spelled = dsh_seatbelt_macos_spelling (outer);
  g_autofree char *git = g_strdup_printf ("-DWRITABLE_ROOT_1_GIT=%s/.git", spelled);
  g_autofree char *head = g_strdup_printf ("-DWRITABLE_ROOT_1_HEAD=%s/HEAD", spelled);
  const char *roots[] = { ws, outer, NULL };
  const char *unguarded[] = { plain, outer, NULL };
  DshSeatbeltPlan plan;

  build (DSH_BACKEND_MODE_WORKSPACE_WRITE, roots, &plan);
  g_assert_cmpint (plan.has_repository[1], ==, DSH_SEATBELT_REPOSITORY_NONE);
  g_assert_cmpstr (plan.defines[8], ==, git);
  g_assert_cmpstr (plan.defines[9], ==, "-DWRITABLE_ROOT_1_GIT_HOOKS=/dev/null/.git/hooks");
  g_assert_cmpstr (plan.defines[10], ==, "-DWRITABLE_ROOT_1_GIT_CONFIG=/dev/null/.git/config");
  g_assert_cmpstr (plan.defines[13], ==, head);
  dsh_seatbelt_plan_clear (&plan);
  /* Without a repository below, git init works in the outer root as in any other. */
  build (DSH_BACKEND_MODE_WORKSPACE_WRITE, unguarded, &plan);
  g_assert_cmpstr (plan.defines[8], ==, "-DWRITABLE_ROOT_1_GIT=/dev/null/.git");
  g_assert_cmpstr (plan.defines[13], ==, "-DWRITABLE_ROOT_1_HEAD=/dev/null/HEAD");
  dsh_seatbelt_plan_clear (&plan);
  g_assert_no_errno (g_rmdir (ws_git));
  g_assert_no_errno (g_rmdir (ws));
  g_assert_no_errno (g_rmdir (plain));
  g_assert_no_errno (g_rmdir (outer));
}

/* A root's .git, hooks and config are protected when it holds a repository as the call is
 * planned: a .git directory, a .git file (a linked worktree, a submodule) or a .git symlink.
 * A root without one may get one in this call (git init, git clone), as on Linux; the next call
 * finds it and protects it. The profile text is the same either way. */
static void
test_repository_decides_git_parameters (void)
{
  g_autofree char *base = g_dir_make_tmp ("seatbelt-repo-XXXXXX", NULL);
  g_autofree char *repo = make_dir (base, "repo");
  g_autofree char *repo_git = make_dir (repo, ".git");
  g_autofree char *worktree = make_dir (base, "worktree");
  g_autofree char *worktree_git = g_build_filename (worktree, ".git", NULL);
  g_autofree char *linked = make_dir (base, "linked");
  g_autofree char *linked_git = g_build_filename (linked, ".git", NULL);
  g_autofree char *plain = make_dir (base, "plain");
  g_autofree char *plain_git = g_build_filename (plain, ".git", NULL);
  g_autofree char *file_root = g_build_filename (base, "file", NULL);
  const char *roots[] = { repo, worktree, linked, plain, file_root, NULL };
  const char *absent[] = { "/r0", "/r1", "/r2", "/r3", "/r4", NULL };
  DshSeatbeltPlan plan, next, reference;

  g_assert_nonnull (base);
  g_assert_true (g_file_set_contents (worktree_git, "gitdir: /elsewhere\n", -1, NULL));
  g_assert_no_errno (symlink ("/nowhere", linked_git));
  g_assert_true (g_file_set_contents (file_root, "", -1, NULL));

  build (DSH_BACKEND_MODE_WORKSPACE_WRITE, roots, &plan);
  build (DSH_BACKEND_MODE_WORKSPACE_WRITE, absent, &reference);
  g_assert_cmpstr (plan.profile, ==, reference.profile);
  g_assert_cmpuint (plan.n_roots, ==, 5);
  for (size_t i = 0; i < 5; i++)
    {
      static const DshSeatbeltRepository kinds[] = {
        DSH_SEATBELT_REPOSITORY_PROTECTED,
        /* A .git file or symlink leads to a git directory the profile does not name. */
        DSH_SEATBELT_REPOSITORY_ELSEWHERE,
        DSH_SEATBELT_REPOSITORY_ELSEWHERE,
        DSH_SEATBELT_REPOSITORY_NONE,
        DSH_SEATBELT_REPOSITORY_NONE,
      };
      g_autofree char *spelled = dsh_seatbelt_macos_spelling (roots[i]);

      g_assert_cmpint (plan.has_repository[i], ==, kinds[i]);
      assert_git_defines (&plan, i, i < 3 ? spelled : "/dev/null");
    }

  /* What the call's git init made is protected from the next call on. */
  g_assert_no_errno (g_mkdir (plain_git, 0700));
  build (DSH_BACKEND_MODE_WORKSPACE_WRITE, roots, &next);
  g_assert_cmpstr (next.profile, ==, reference.profile);
  g_assert_cmpint (next.has_repository[3], ==, DSH_SEATBELT_REPOSITORY_PROTECTED);
  {
    g_autofree char *spelled = dsh_seatbelt_macos_spelling (plain);

    assert_git_defines (&next, 3, spelled);
  }

  dsh_seatbelt_plan_clear (&plan);
  dsh_seatbelt_plan_clear (&next);
  dsh_seatbelt_plan_clear (&reference);
  g_assert_no_errno (g_rmdir (plain_git));
  g_assert_no_errno (g_rmdir (repo_git));
  g_assert_no_errno (g_unlink (worktree_git));
  g_assert_no_errno (g_unlink (linked_git));
  g_assert_no_errno (g_unlink (file_root));
  for (size_t i = 0; i < 4; i++)
    g_assert_no_errno (g_rmdir (roots[i]));
  g_assert_no_errno (g_rmdir (base));
}

static void
test_read_only_has_no_parameters (void)
{
  /* read-only ignores roots even when a caller hands some over. */
  const char *roots[] = { "/Users/me/ws", NULL };
  DshSeatbeltPlan plan;

  build (DSH_BACKEND_MODE_READ_ONLY, roots, &plan);
  g_assert_cmpuint (plan.n_defines, ==, 0);
  g_assert_cmpuint (plan.n_roots, ==, 0);
  g_assert_null (plan.defines[0]);
  g_assert_null (strstr (plan.profile, "param"));
  g_assert_null (strstr (plan.profile, "(allow file-write*"));
  g_assert_true (g_str_has_prefix (plan.profile, "(version 1)\n(deny default)\n"));
  g_assert_nonnull (strstr (plan.profile, "(literal \"/dev/null\")"));
  dsh_seatbelt_plan_clear (&plan);
}

static void
test_duplicates_after_spelling (void)
{
  const char *roots[] = { "/private/tmp/ws", "/tmp", "/private/tmp", "/tmp/ws/", NULL };
  DshSeatbeltPlan plan;
  size_t inner, outer;

  build (DSH_BACKEND_MODE_WORKSPACE_WRITE, roots, &plan);
  g_assert_cmpuint (plan.n_roots, ==, 2);
  g_assert_cmpstr (plan.roots[0], ==, "/private/tmp/ws");
  g_assert_cmpstr (plan.roots[1], ==, "/private/tmp");
  /* Three slots still, the last root filling the third: a workspace that is /tmp, or one root
   * alone, gets the profile every workspace gets. */
  g_assert_cmpuint (plan.n_slots, ==, 3);
  g_assert_cmpuint (plan.n_defines, ==, 21);
  g_assert_cmpstr (plan.defines[14], ==, "-DWRITABLE_ROOT_2=/private/tmp");
  g_assert_cmpstr (plan.defines[17], ==, "-DWRITABLE_ROOT_2_GIT_CONFIG=/dev/null/.git/config");
  {
    const char *three[] = { "/Users/me/ws", "/tmp", "/var/folders/zz/abc/T", NULL };
    const char *one[] = { "/tmp", NULL };
    DshSeatbeltPlan a, b;

    build (DSH_BACKEND_MODE_WORKSPACE_WRITE, three, &a);
    build (DSH_BACKEND_MODE_WORKSPACE_WRITE, one, &b);
    g_assert_cmpstr (plan.profile, ==, a.profile);
    g_assert_cmpstr (b.profile, ==, a.profile);
    g_assert_cmpuint (b.n_roots, ==, 1);
    g_assert_cmpuint (b.n_defines, ==, 21);
    for (size_t i = 0; i < 3; i++)
      {
        g_autofree char *want = g_strdup_printf ("-DWRITABLE_ROOT_%zu=/private/tmp", i);

        g_assert_cmpstr (b.defines[7 * i], ==, want);
      }
    dsh_seatbelt_plan_clear (&a);
    dsh_seatbelt_plan_clear (&b);
  }
  /* Directly inside /private/tmp: nothing between them to rename. */
  g_assert_false (dsh_seatbelt_plan_find_nested_root (&plan, &inner, &outer));
  dsh_seatbelt_plan_clear (&plan);

  {
    const char *deeper[] = { "/Users/me/ws", "/private/var/t", "/var/t/x/ws", NULL };

    build (DSH_BACKEND_MODE_WORKSPACE_WRITE, deeper, &plan);
    g_assert_true (dsh_seatbelt_plan_find_nested_root (&plan, &inner, &outer));
    g_assert_cmpuint (inner, ==, 2);
    g_assert_cmpuint (outer, ==, 1);
    dsh_seatbelt_plan_clear (&plan);
  }
}

static void
test_profile_independent_of_paths (void)
{
  const char *plain[] = { "/Users/me/ws", "/tmp", NULL };
  const char *hostile[] = { "/Users/me/a \"b\" (allow file-write* (subpath \"/\"))\n;x",
                            "/Users/\xff\xfe=\\/ws=1", NULL };
  /* The same bytes as real directories holding a repository, so that every git parameter
   * carries them too. */
  g_autofree char *base = g_dir_make_tmp ("seatbelt-hostile-XXXXXX", NULL);
  g_autofree char *quoted = make_dir (base, "a \"b\" (allow file-write*))\n;x");
  g_autofree char *quoted_git = make_dir (quoted, ".git");
  g_autofree char *bytes_parent = make_dir (base, "\xff\xfe=\\");
  g_autofree char *bytes = make_dir (bytes_parent, "ws=1");
  g_autofree char *bytes_git = make_dir (bytes, ".git");
  g_autofree char *bytes_spelled = dsh_seatbelt_macos_spelling (bytes);
  const char *repositories[] = { quoted, bytes, NULL };
  DshSeatbeltPlan a, b, c;

  build (DSH_BACKEND_MODE_WORKSPACE_WRITE, plain, &a);
  build (DSH_BACKEND_MODE_WORKSPACE_WRITE, hostile, &b);
  build (DSH_BACKEND_MODE_WORKSPACE_WRITE, repositories, &c);
  g_assert_cmpstr (a.profile, ==, b.profile);
  g_assert_cmpstr (a.profile, ==, c.profile);
  /* Each root arrives whole as one value, '=' and all: sandbox-exec splits at the first '='. */
  g_assert_cmpstr (b.defines[0], ==,
                   "-DWRITABLE_ROOT_0=/Users/me/a \"b\" (allow file-write* (subpath \"/\"))\n;x");
  g_assert_cmpstr (b.defines[7], ==, "-DWRITABLE_ROOT_1=/Users/\xff\xfe=\\/ws=1");
  g_assert_true (c.has_repository[0] && c.has_repository[1]);
  {
    g_autofree char *want = g_strdup_printf ("-DWRITABLE_ROOT_1_GIT_CONFIG=%s/.git/config",
                                             bytes_spelled);

    g_assert_cmpstr (c.defines[10], ==, want);
    g_assert_nonnull (strstr (c.defines[10], "/\xff\xfe=\\/ws=1/.git/config"));
  }
  for (size_t i = 0; i < c.n_roots; i++)
    {
      g_autofree char *spelled = dsh_seatbelt_macos_spelling (repositories[i]);

      assert_git_defines (&c, i, spelled);
    }
  dsh_seatbelt_plan_clear (&a);
  dsh_seatbelt_plan_clear (&b);
  dsh_seatbelt_plan_clear (&c);
  g_assert_no_errno (g_rmdir (quoted_git));
  g_assert_no_errno (g_rmdir (quoted));
  g_assert_no_errno (g_rmdir (bytes_git));
  g_assert_no_errno (g_rmdir (bytes));
  g_assert_no_errno (g_rmdir (bytes_parent));
  g_assert_no_errno (g_rmdir (base));
}

static void
test_refused_roots (void)
{
  static const struct {
    const char *root;
    const char *message;
  } cases[] = {
    { "relative/ws", "writable root \"relative/ws\" is refused: it is not absolute" },
    { "", "writable root \"\" is refused: it is not absolute" },
    { "/", "writable root \"/\" is refused: it would make every path writable" },
    { "//", "writable root \"//\" is refused: it has an empty component" },
    { "/Users//ws", "writable root \"/Users//ws\" is refused: it has an empty component" },
    { "/Users/me/../ws", "writable root \"/Users/me/../ws\" is refused: it has a \".\" or \"..\" "
                         "component" },
    { "/Users/./ws", "writable root \"/Users/./ws\" is refused: it has a \".\" or \"..\" "
                     "component" },
    { "/tmp/..", "writable root \"/tmp/..\" is refused: it has a \".\" or \"..\" component" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char *roots[] = { "/Users/me/ws", cases[i].root, NULL };
      DshBackendPolicy policy = { .mode = DSH_BACKEND_MODE_WORKSPACE_WRITE,
                                  .workspace_root = "/Users/me/ws", .writable_roots = roots };
      DshSeatbeltPlan plan;
      char error[256];

      g_assert_cmpint (dsh_seatbelt_plan_build (&policy, &plan, error, sizeof error), !=, 0);
      g_assert_cmpstr (error, ==, cases[i].message);
      g_assert_null (plan.profile);
      g_assert_null (plan.defines);
      dsh_seatbelt_plan_clear (&plan);
    }

  /* Names with dots are ordinary components. */
  {
    const char *roots[] = { "/Users/me/.ws/..x/...", NULL };
    DshSeatbeltPlan plan;

    build (DSH_BACKEND_MODE_WORKSPACE_WRITE, roots, &plan);
    g_assert_cmpstr (plan.roots[0], ==, "/Users/me/.ws/..x/...");
    dsh_seatbelt_plan_clear (&plan);
  }
}

static void
test_unknown_mode_refused (void)
{
  DshBackendPolicy policy = { .mode = (DshBackendMode) 7, .workspace_root = "/Users/me/ws" };
  DshSeatbeltPlan plan;
  char error[256];

  g_assert_cmpint (dsh_seatbelt_plan_build (&policy, &plan, error, sizeof error), !=, 0);
  g_assert_cmpstr (error, ==, "unknown sandbox mode 7");
  dsh_seatbelt_plan_clear (&plan);
}

static void
test_workspace_write_without_roots (void)
{
  DshBackendPolicy policy = { .mode = DSH_BACKEND_MODE_WORKSPACE_WRITE,
                              .workspace_root = "/Users/me/ws" };
  DshSeatbeltPlan plan, read_only;
  const char *none[] = { NULL };

  build (DSH_BACKEND_MODE_READ_ONLY, none, &read_only);
  g_assert_cmpint (dsh_seatbelt_plan_build (&policy, &plan, NULL, 0), ==, 0);
  g_assert_cmpstr (plan.profile, ==, read_only.profile);
  g_assert_cmpuint (plan.n_defines, ==, 0);
  dsh_seatbelt_plan_clear (&plan);
  dsh_seatbelt_plan_clear (&read_only);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/seatbelt/spelling", test_spelling);
  g_test_add_func ("/seatbelt/workspace-write-parameters", test_workspace_write_parameters);
  g_test_add_func ("/seatbelt/repository-decides-git-parameters",
                   test_repository_decides_git_parameters);
  g_test_add_func ("/seatbelt/bare-repository-at-root", test_bare_repository_at_root);
  g_test_add_func ("/seatbelt/outer-root-guards-repository-below",
                   test_outer_root_guards_repository_below);
  g_test_add_func ("/seatbelt/read-only-has-no-parameters", test_read_only_has_no_parameters);
  g_test_add_func ("/seatbelt/duplicates-after-spelling", test_duplicates_after_spelling);
  g_test_add_func ("/seatbelt/profile-independent-of-paths", test_profile_independent_of_paths);
  g_test_add_func ("/seatbelt/refused-roots", test_refused_roots);
  g_test_add_func ("/seatbelt/unknown-mode-refused", test_unknown_mode_refused);
  g_test_add_func ("/seatbelt/workspace-write-without-roots", test_workspace_write_without_roots);
  return g_test_run ();
}
