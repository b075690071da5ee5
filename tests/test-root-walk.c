/* test-root-walk.c — the roots walk at any depth: deep paths, components of the longest allowed
 * length, symlinks and ".." far down, planted symlinks refused there too, and the writable root
 * on a path's way found beyond any whole-path length; and the kept record of granted roots,
 * taken again only while its path still names that very private directory.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dsh-root-grants-private.h"
#include "dsh-roots-private.h"
#include "dsh-test-util.h"

/* Makes depth nested directories named name beneath root, one mkdirat at a time (the whole path
 * may be longer than the kernel takes in one call). Returns the deepest one's path. */
static char *
make_chain (const char *root, const char *name, guint depth)
{
  GString *path = g_string_new (root);
  int fd = open (root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  g_assert_cmpint (fd, >=, 0);
  for (guint i = 0; i < depth; i++)
    {
      int next;

      g_assert_cmpint (mkdirat (fd, name, 0755), ==, 0);
      next = openat (fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      g_assert_cmpint (next, >=, 0);
      close (fd);
      fd = next;
      g_string_append_printf (path, "/%s", name);
    }
  close (fd);
  return g_string_free (path, FALSE);
}

/* rm copes with trees deeper and longer than PATH_MAX. */
static void
remove_tree (const char *path)
{
  const char *argv[] = { "rm", "-rf", "--", path, NULL };
  int status = -1;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL,
                               NULL, &status, NULL));
  g_assert_cmpint (status, ==, 0);
}

/* A private record for this process's calls. */
static char *
use_private_state (const char *scratch)
{
  g_autofree char *state = g_build_filename (scratch, "state", NULL);

  g_assert_cmpint (g_mkdir_with_parents (state, 0700), ==, 0);
  g_setenv ("DSH_SANDBOX_STATE_DIR", state, TRUE);
  return g_steal_pointer (&state);
}

static void
test_deep_path (void)
{
  g_autofree char *scratch = dsh_test_scratch_dir ("walk-deep");
  g_autofree char *deep = make_chain (scratch, "d", 1900);
  g_autofree char *canonical = dsh_canonical_path (deep);
  g_autoptr (DshSandboxPolicy) policy = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *state = use_private_state (scratch);

  g_assert_cmpstr (canonical, ==, deep);
  policy = dsh_sandbox_policy_new (DSH_SANDBOX_MODE_WORKSPACE_WRITE, canonical, NULL);
  g_assert_true (dsh_roots_pin (policy, deep, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (policy->writable_roots[0], ==, deep);
  remove_tree (scratch);
}

/* Empty and "." components and a trailing slash are dropped, as the kernel skips them. */
static void
test_spelling_normalised (void)
{
  g_autofree char *scratch = dsh_test_scratch_dir ("walk-spelling");
  g_autofree char *sub = g_build_filename (scratch, "sub", NULL);
  g_autofree char *spelled = g_strconcat (scratch, "//./sub/.//", NULL);
  g_autofree char *canonical = NULL;

  g_assert_cmpint (g_mkdir (sub, 0755), ==, 0);
  canonical = dsh_canonical_path (spelled);
  g_assert_cmpstr (canonical, ==, sub);
  remove_tree (scratch);
}

/* The copy taken for a spelling that is canonical already is what normalising it gives, and
 * every other spelling is normalised. */
static void
test_spelling_lexical (void)
{
  const char *const spellings[] = {
    "/", "//", "///", "/a", "/a/", "/a//b", "//a/b", "/a/./b", "/a/.", "/.", "/..", "/a/..",
    "/a/../b", "/a/b/..", "/.a", "/..a", "/a.", "/a..", "/...", "/a/.../b", "/a/.b/c",
    "/a/b./c", "/a/b/c/", "/a/b/c/.", "/a b/ c", "/é/ü",
  };

  for (gsize i = 0; i < G_N_ELEMENTS (spellings); i++)
    {
      g_autofree char *expected = g_canonicalize_filename (spellings[i], NULL);
      g_autofree char *got = dsh_lexically_canonical (spellings[i]);

      g_assert_cmpstr (got, ==, expected);
    }
}

/* Longer than PATH_MAX in all: no single lookup can take it, the walk still does. */
static void
test_long_components (void)
{
  g_autofree char *scratch = dsh_test_scratch_dir ("walk-long");
  g_autofree char *name = g_strnfill (255, 'n');
  g_autofree char *deep = make_chain (scratch, name, 24);
  g_autofree char *canonical = dsh_canonical_path (deep);
  g_autofree char *missing = g_strconcat (deep, "/absent", NULL);
  g_autofree char *kept = dsh_canonical_path (missing);

  g_assert_cmpuint (strlen (deep), >, 4096);
  g_assert_cmpstr (canonical, ==, deep);
  g_assert_cmpstr (kept, ==, missing);
  remove_tree (scratch);
}

/* A symlink 500 components down, relative and absolute, and ".." climbing from its target. */
static void
test_symlinks_at_depth (void)
{
  g_autofree char *scratch = dsh_test_scratch_dir ("walk-links");
  g_autofree char *middle = make_chain (scratch, "d", 500);
  g_autofree char *real = g_build_filename (middle, "real", NULL);
  g_autofree char *below = NULL;
  g_autofree char *relative_link = g_build_filename (middle, "rel", NULL);
  g_autofree char *absolute_link = g_build_filename (middle, "abs", NULL);
  g_autofree char *through_relative = NULL;
  g_autofree char *through_absolute = NULL;
  g_autofree char *dotdot = NULL;
  g_autofree char *expected_dotdot = NULL;
  g_autofree char *c1 = NULL, *c2 = NULL, *c3 = NULL;

  g_assert_cmpint (g_mkdir (real, 0755), ==, 0);
  below = make_chain (real, "e", 100);
  g_assert_cmpint (symlink ("real/e/e", relative_link), ==, 0);
  g_assert_cmpint (symlink (real, absolute_link), ==, 0);

  /* rel/e... reaches real/e/e/e...: the two extra e's the link names plus the rest. */
  through_relative = g_strconcat (relative_link, strstr (below, "/e/e/") + 4, NULL);
  through_absolute = g_strconcat (absolute_link, strstr (below, "/e"), NULL);
  dotdot = g_strconcat (relative_link, "/../../x", NULL);
  expected_dotdot = g_build_filename (real, "x", NULL);
  g_assert_cmpint (g_mkdir (expected_dotdot, 0755), ==, 0);

  c1 = dsh_canonical_path (through_relative);
  c2 = dsh_canonical_path (through_absolute);
  c3 = dsh_canonical_path (dotdot);
  g_assert_cmpstr (c1, ==, below);
  g_assert_cmpstr (c2, ==, below);
  /* real/e/e, then .. twice: real, not the lexical middle. */
  g_assert_cmpstr (c3, ==, expected_dotdot);
  remove_tree (scratch);
}

/* A confined command of a deep workspace plants a symlink deep inside it; a later call whose
 * workspace runs through that symlink is refused, however far down it lies. */
static void
test_planted_at_depth (void)
{
  g_autofree char *scratch = dsh_test_scratch_dir ("walk-planted");
  g_autofree char *state = use_private_state (scratch);
  g_autofree char *outer = make_chain (scratch, "w", 300);
  g_autofree char *inner = make_chain (outer, "p", 300);
  g_autofree char *victim = g_build_filename (scratch, "victim", NULL);
  g_autofree char *link = g_build_filename (inner, "pkg", NULL);
  g_autoptr (DshSandboxPolicy) first = NULL;
  g_autoptr (DshSandboxPolicy) later = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (g_mkdir (victim, 0755), ==, 0);
  first = dsh_sandbox_policy_new (DSH_SANDBOX_MODE_WORKSPACE_WRITE, outer, NULL);
  g_assert_true (dsh_roots_pin (first, outer, NULL, &error));
  g_assert_no_error (error);
  /* What the granted call's command does. */
  g_assert_cmpint (symlink (victim, link), ==, 0);

  later = dsh_sandbox_policy_new (DSH_SANDBOX_MODE_WORKSPACE_WRITE, victim, NULL);
  g_assert_false (dsh_roots_pin (later, link, NULL, &error));
  g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_ROOT_REFUSED);
  g_assert_nonnull (strstr (error->message, "pkg"));
  remove_tree (scratch);
}

/* The directory at path (absolute, of any length), opened one component at a time. */
static int
open_deep (const char *path)
{
  g_auto (GStrv) parts = g_strsplit (path, "/", -1);
  int fd = open ("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  for (gsize i = 0; fd >= 0 && parts[i] != NULL; i++)
    {
      int next;

      if (parts[i][0] == '\0')
        continue;
      next = openat (fd, parts[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      close (fd);
      fd = next;
    }
  g_assert_cmpint (fd, >=, 0);
  return fd;
}

/* The writable root on a path's way, 2,100 directories down: longer than any path the kernel
 * takes whole, so only a walk that looks up one name beneath the directory it stands in
 * (work linear in the depth) can tell where the symlinks there lead; one that hands the kernel
 * the path so far at each step (quadratic) loses them. */
static void
test_reach_beyond_path_max (void)
{
  g_autofree char *scratch = dsh_test_scratch_dir ("walk-reach");
  g_autofree char *workspace = g_build_filename (scratch, "ws", NULL);
  g_autofree char *deep = make_chain (scratch, "d", 2100);
  g_autoptr (GString) up = g_string_new (NULL);
  g_autoptr (GString) climbing = g_string_new (deep);
  g_autofree char *through_absolute = g_strconcat (deep, "/abs/new-file", NULL);
  g_autofree char *through_relative = NULL;
  g_autofree char *plain = g_strconcat (deep, "/plain/new-file", NULL);
  g_autofree char *root = NULL;
  int fd;

  g_assert_cmpint (g_mkdir (workspace, 0755), ==, 0);
  g_assert_cmpuint (strlen (deep), >, 4096);
  /* "rel" climbs 1,300 of the chain in its target, the path the other 800 back to scratch. */
  for (guint i = 0; i < 1300; i++)
    g_string_append (up, i == 0 ? ".." : "/..");
  fd = open_deep (deep);
  g_assert_cmpint (symlinkat (workspace, fd, "abs"), ==, 0);
  g_assert_cmpint (symlinkat (up->str, fd, "rel"), ==, 0);
  g_assert_cmpint (mkdirat (fd, "plain", 0755), ==, 0);
  close (fd);
  g_string_append (climbing, "/rel");
  for (guint i = 0; i < 2100 - 1300; i++)
    g_string_append (climbing, "/..");
  g_string_append (climbing, "/ws/new-file");
  through_relative = g_string_free (g_steal_pointer (&climbing), FALSE);

  root = dsh_writable_root_on_way (through_absolute, workspace, NULL);
  g_assert_cmpstr (root, ==, workspace);
  g_clear_pointer (&root, g_free);
  root = dsh_writable_root_on_way (through_relative, workspace, NULL);
  g_assert_cmpstr (root, ==, workspace);
  g_clear_pointer (&root, g_free);
  /* Without a symlink the deep path stays where it is, outside every root. */
  root = dsh_writable_root_on_way (plain, workspace, NULL);
  g_assert_null (root);
  remove_tree (scratch);
}

/* The kept record is the directory at the path now: replaced, it is the new one that records. */
static void
test_record_replaced (void)
{
  g_autofree char *scratch = dsh_test_scratch_dir ("walk-record");
  g_autofree char *record = g_build_filename (scratch, "record", NULL);
  g_autofree char *moved = g_build_filename (scratch, "record-old", NULL);
  g_autofree char *root = g_build_filename (scratch, "root", NULL);
  g_autoptr (DshRootGrants) first = NULL;
  g_autoptr (DshRootGrants) second = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (g_mkdir (root, 0755), ==, 0);
  first = dsh_root_grants_open (record, &error);
  g_assert_no_error (error);
  g_clear_pointer (&first, dsh_root_grants_free);

  g_assert_cmpint (g_rename (record, moved), ==, 0);
  g_assert_cmpint (g_mkdir (record, 0700), ==, 0);
  second = dsh_root_grants_open (record, &error);
  g_assert_no_error (error);
  g_assert_true (dsh_root_grants_record (second, root, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (dsh_test_count_entries (record), >, 0);
  g_assert_cmpuint (dsh_test_count_entries (moved), ==, 0);
  remove_tree (scratch);
}

/* Opened and kept, then opened to others or swapped for a symlink: refused like a first open. */
static void
test_record_loosened (void)
{
  g_autofree char *scratch = dsh_test_scratch_dir ("walk-record");
  g_autofree char *record = g_build_filename (scratch, "record", NULL);
  g_autofree char *elsewhere = g_build_filename (scratch, "elsewhere", NULL);
  g_autoptr (DshRootGrants) grants = NULL;
  g_autoptr (GError) error = NULL;

  grants = dsh_root_grants_open (record, &error);
  g_assert_no_error (error);
  g_clear_pointer (&grants, dsh_root_grants_free);

  g_assert_cmpint (g_chmod (record, 0755), ==, 0);
  g_assert_null (dsh_root_grants_open (record, &error));
  g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_ROOT_REFUSED);
  g_clear_error (&error);

  g_assert_cmpint (g_chmod (record, 0700), ==, 0);
  grants = dsh_root_grants_open (record, &error);
  g_assert_no_error (error);
  g_clear_pointer (&grants, dsh_root_grants_free);
  g_assert_cmpint (g_rename (record, elsewhere), ==, 0);
  g_assert_cmpint (symlink (elsewhere, record), ==, 0);
  g_assert_null (dsh_root_grants_open (record, &error));
  g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_ROOT_REFUSED);
  remove_tree (scratch);
}

/* The kept record's canonical path is where it is now: moved into a writable root (its path
 * still leading to it through a symlink), it is refused as within reach. */
static void
test_record_moved_into_reach (void)
{
  g_autofree char *scratch = dsh_test_scratch_dir ("walk-record");
  g_autofree char *parent = g_build_filename (scratch, "parent", NULL);
  g_autofree char *record = g_build_filename (parent, "record", NULL);
  g_autofree char *workspace = g_build_filename (scratch, "workspace", NULL);
  g_autofree char *inside = g_build_filename (workspace, "parent", NULL);
  const char *roots[] = { workspace, NULL };
  g_autoptr (DshRootGrants) grants = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_cmpint (g_mkdir_with_parents (parent, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (workspace, 0755), ==, 0);
  grants = dsh_root_grants_open (record, &error);
  g_assert_no_error (error);
  g_assert_true (dsh_root_grants_check_out_of_reach (grants, roots, &error));
  g_clear_pointer (&grants, dsh_root_grants_free);

  g_assert_cmpint (g_rename (parent, inside), ==, 0);
  g_assert_cmpint (symlink (inside, parent), ==, 0);
  grants = dsh_root_grants_open (record, &error);
  g_assert_no_error (error);
  g_assert_false (dsh_root_grants_check_out_of_reach (grants, roots, &error));
  g_assert_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_ROOT_REFUSED);
  remove_tree (scratch);
}

/* The kept record, taken again, keeps its canonical path: reached through a symlink on the way
 * (asked where the descriptor is) or spelled with a "." and a doubled slash (normalised). */
static void
test_record_kept_canonical (void)
{
  g_autofree char *scratch = dsh_test_scratch_dir ("walk-record");
  g_autofree char *real = g_build_filename (scratch, "real", NULL);
  g_autofree char *link = g_build_filename (scratch, "link", NULL);
  g_autofree char *canonical_scratch = dsh_canonical_path (scratch);
  g_autofree char *expected = g_build_filename (canonical_scratch, "real", "record", NULL);
  g_autofree char *through_link = g_build_filename (link, "record", NULL);
  g_autofree char *odd_spelling = g_strconcat (real, "/.//record", NULL);
  const char *spellings[] = { through_link, odd_spelling };

  g_assert_cmpint (g_mkdir (real, 0755), ==, 0);
  g_assert_cmpint (symlink (real, link), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (spellings); i++)
    {
      for (guint round = 0; round < 2; round++)
        {
          g_autoptr (GError) error = NULL;
          g_autoptr (DshRootGrants) grants = dsh_root_grants_open (spellings[i], &error);

          g_assert_no_error (error);
          g_assert_cmpstr (dsh_root_grants_dir (grants), ==, expected);
        }
    }
  remove_tree (scratch);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/root-walk/deep", test_deep_path);
  g_test_add_func ("/root-walk/spelling", test_spelling_normalised);
  g_test_add_func ("/root-walk/spelling/lexical", test_spelling_lexical);
  g_test_add_func ("/root-walk/long-components", test_long_components);
  g_test_add_func ("/root-walk/symlinks-at-depth", test_symlinks_at_depth);
  g_test_add_func ("/root-walk/planted-at-depth", test_planted_at_depth);
  g_test_add_func ("/root-walk/reach-beyond-path-max", test_reach_beyond_path_max);
  g_test_add_func ("/root-walk/record/replaced", test_record_replaced);
  g_test_add_func ("/root-walk/record/loosened", test_record_loosened);
  g_test_add_func ("/root-walk/record/moved-into-reach", test_record_moved_into_reach);
  g_test_add_func ("/root-walk/record/kept-canonical", test_record_kept_canonical);
  return g_test_run ();
}
