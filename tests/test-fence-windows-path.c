/* test-fence-windows-path.c — how the fence reads Windows paths, on any host: which root a path
 * lies below (drives and shares, either slash, case, "." and ".."), that verbatim, device and
 * relative paths lie below none, and which names it refuses to open or create.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <glib.h>

#include "dsh-fs-fence-windows-path-private.h"

/* below is "a|b" for ["a", "b"], "" for [], NULL for NULL. */
static void
assert_below (const char *path, const char *root, const char *below)
{
  g_auto (GStrv) names = dsh_fence_windows_names_below (path, root);
  g_autofree char *joined = names != NULL ? g_strjoinv ("|", names) : NULL;

  if (g_strcmp0 (joined, below) != 0)
    g_error ("below (%s, %s): expected %s, got %s", path, root, below ? below : "NULL",
             joined ? joined : "NULL");
}

static void
test_drive_paths (void)
{
  assert_below ("C:\\ws\\a\\b.txt", "C:\\ws", "a|b.txt");
  assert_below ("C:\\ws", "C:\\ws", "");
  assert_below ("C:\\ws\\", "C:\\ws", "");
  assert_below ("C:\\ws\\a", "C:\\ws\\", "a");
  assert_below ("C:\\a", "C:\\", "a");
  /* Either slash, doubled or not. */
  assert_below ("C:/ws//a/b", "C:\\ws", "a|b");
  assert_below ("C:\\ws\\a", "C:/ws", "a");
  /* A prefix that is not a whole name is another folder. */
  assert_below ("C:\\wsx\\a", "C:\\ws", NULL);
  assert_below ("C:\\ws", "C:\\ws\\a", NULL);
  assert_below ("D:\\ws\\a", "C:\\ws", NULL);
}

static void
test_case (void)
{
  /* Windows opens names whatever their case; the spelling below the root is kept. */
  assert_below ("c:\\WS\\File.TXT", "C:\\ws", "File.TXT");
  assert_below ("C:\\\xc3\x9cNI\\f", "C:\\\xc3\xbcni", "f");
  assert_below ("C:\\\xcf\x83\\f", "C:\\\xce\xa3", "f");
}

/* NTFS compares names by upcasing each UTF-16 unit through its table, one character for one:
 * never the full case folding that turns "\xc3\x9f" into "ss" or the ligature "\xef\xac\x81"
 * into "fi", and nothing outside the BMP. A folder those name differently is another folder,
 * and a path in it lies below no root spelled the other way. */
static void
test_case_as_ntfs (void)
{
  /* w\xc3\x9f (sharp s) and wss are two folders on NTFS. */
  assert_below ("C:\\w\xc3\x9f\\secret", "C:\\wss", NULL);
  assert_below ("C:\\wss\\f", "C:\\w\xc3\x9f", NULL);
  /* The ligature fi, and "fi". */
  assert_below ("C:\\\xef\xac\x81le\\f", "C:\\file", NULL);
  /* The Kelvin sign is upper case already: NTFS keeps it apart from k. */
  assert_below ("C:\\\xe2\x84\xaa\\f", "C:\\k", NULL);
  /* Deseret small and capital long i: outside the BMP, which NTFS does not upcase. */
  assert_below ("C:\\\xf0\x90\x90\xa8\\f", "C:\\\xf0\x90\x90\x80", NULL);
  /* Shares are compared the same way. */
  assert_below ("\\\\srv\\w\xc3\x9f\\f", "\\\\srv\\wss", NULL);
  assert_below ("\\\\SRV\\\xc3\x9cni\\f", "\\\\srv\\\xc3\xbcNI", "f");
}

static void
test_dots (void)
{
  assert_below ("C:\\ws\\.\\a\\.", "C:\\ws", "a");
  assert_below ("C:\\ws\\sub\\..\\f", "C:\\ws", "f");
  assert_below ("C:\\ws\\..\\other\\f", "C:\\ws", NULL);
  assert_below ("C:\\ws\\..", "C:\\ws", NULL);
  /* ".." stops at the drive, as Win32 reads it. */
  assert_below ("C:\\..\\..\\ws\\f", "C:\\ws", "f");
}

static void
test_shares (void)
{
  assert_below ("\\\\Server\\Share\\ws\\f", "\\\\server\\share\\ws", "f");
  assert_below ("//server/share/ws/f", "\\\\server\\share\\ws", "f");
  assert_below ("\\\\server\\other\\ws\\f", "\\\\server\\share\\ws", NULL);
  assert_below ("\\\\server\\share\\..\\..\\other\\ws", "\\\\server\\share\\ws", NULL);
  assert_below ("\\\\server", "\\\\server\\share", NULL);
  assert_below ("\\\\server\\share\\ws\\f", "C:\\ws", NULL);
}

static void
test_never_below (void)
{
  /* Verbatim and device paths bypass Win32's reading of names: never routed. */
  assert_below ("\\\\?\\C:\\ws\\f", "C:\\ws", NULL);
  assert_below ("\\\\.\\C:\\ws\\f", "C:\\ws", NULL);
  assert_below ("\\\\?\\UNC\\server\\share\\ws\\f", "\\\\server\\share\\ws", NULL);
  /* Not even below a root spelled the same way: Win32 does not read them as it reads paths. */
  assert_below ("\\\\?\\C:\\ws\\f", "\\\\?\\C:\\ws", NULL);
  assert_below ("\\\\.\\pipe\\ws\\f", "\\\\.\\pipe\\ws", NULL);
  /* Relative, drive-relative and root-relative: the caller makes them absolute first. */
  assert_below ("ws\\f", "C:\\ws", NULL);
  assert_below ("C:ws\\f", "C:\\ws", NULL);
  assert_below ("\\ws\\f", "C:\\ws", NULL);
  assert_below ("", "C:\\ws", NULL);
  assert_below ("C:\\ws\\f", "", NULL);
  assert_below ("C:\\ws\\\xff", "C:\\ws", NULL);
}

static void
test_name_refusals (void)
{
  static const char *const fine[] = { "a.txt", "CONSOLE", "COM10", "com", "lpt", "nul-x",
                                      ".hidden", "a b", "\xc3\xa9t\xc3\xa9", NULL };
  static const char *const refused[] = {
    "", ".", "..",
    "a:stream", "a::$DATA", "a.txt:$INDEX_ALLOCATION",
    "a.", "a ", "a. .",
    "CON", "con.txt", "Nul", "nul .txt", "AUX", "prn.log", "COM1", "com9.x", "LPT1", "lpt0",
    "CONIN$", "conout$", "COM\xc2\xb9", "lpt\xc2\xb3.txt",
    "a<b", "a>b", "a|b", "a?", "a*", "a\"b", "a\x01", "\t",
    NULL,
  };

  for (guint i = 0; fine[i] != NULL; i++)
    if (dsh_fence_windows_name_refusal (fine[i]) != NULL)
      g_error ("\"%s\" refused: %s", fine[i], dsh_fence_windows_name_refusal (fine[i]));
  for (guint i = 0; refused[i] != NULL; i++)
    if (dsh_fence_windows_name_refusal (refused[i]) == NULL)
      g_error ("\"%s\" is not refused", refused[i]);
  g_assert_cmpstr (dsh_fence_windows_name_refusal ("a:b"), ==,
                   "names an alternate data stream (\":\")");
}

/* Names below a root, separated by '/', for the git check of use. */
static const char *
git_refusal_for (const char *below, DshFenceWindowsUse use)
{
  g_auto (GStrv) names = g_strsplit (below, "/", -1);

  return dsh_fence_windows_git_refusal ((const char *const *) names, g_strv_length (names), use);
}

static const char *
git_refusal_of (const char *below)
{
  return git_refusal_for (below, DSH_FENCE_WINDOWS_USE_WRITE);
}

static void
test_git_files (void)
{
  static const char *const writable[] = {
    "src/main.c", ".git/HEAD", ".git/index", ".git/objects/ab/cdef", ".git/refs/heads/x",
    ".git/config.lock", ".gitignore", "hooks/pre-commit", "config", "sub/.git/info/exclude",
    ".git/modules/lib/HEAD", ".gitmodules", "x.git", ".git-blame-ignore-revs", NULL,
  };
  static const char *const protected[] = {
    ".git/hooks", ".git/hooks/pre-commit", ".git/hooks/a/b", ".GIT/HOOKS/pre-commit",
    ".git/config", ".Git/Config", ".git/config.worktree", ".git/commondir",
    "sub/.git/hooks/post-checkout", "sub/.git/config", ".git/CONFIG~1.WOR", ".git/COMMON~1",
    NULL,
  };

  for (guint i = 0; writable[i] != NULL; i++)
    if (git_refusal_of (writable[i]) != NULL)
      g_error ("\"%s\" refused: %s", writable[i], git_refusal_of (writable[i]));
  for (guint i = 0; protected[i] != NULL; i++)
    if (git_refusal_of (protected[i]) == NULL)
      g_error ("\"%s\" is not refused", protected[i]);
}

/* The attack on a name-only judgement: move .git away, write hooks into what is no longer
 * named .git, move it back; or write a .git file that hands git a repository the tool made.
 * The .git entry itself stays as it is, whatever is done to it, but making a new one. */
static void
test_git_entry_itself (void)
{
  static const DshFenceWindowsUse refused[] = {
    DSH_FENCE_WINDOWS_USE_WRITE, DSH_FENCE_WINDOWS_USE_REMOVE, DSH_FENCE_WINDOWS_USE_MOVE_DIR,
  };
  static const char *const entries[] = { ".git", ".GIT", "sub/.git", "a/b/.Git", NULL };

  for (guint i = 0; entries[i] != NULL; i++)
    {
      for (gsize u = 0; u < G_N_ELEMENTS (refused); u++)
        if (git_refusal_for (entries[i], refused[u]) == NULL)
          g_error ("\"%s\" is not refused for use %d", entries[i], (int) refused[u]);
      g_assert_null (git_refusal_for (entries[i], DSH_FENCE_WINDOWS_USE_MAKE_DIR));
      g_assert_null (git_refusal_for (entries[i], DSH_FENCE_WINDOWS_USE_REMOVE_EMPTY_DIR));
    }
  g_assert_null (git_refusal_for ("x", DSH_FENCE_WINDOWS_USE_MOVE_DIR));
  g_assert_null (git_refusal_for ("sub/.gitx", DSH_FENCE_WINDOWS_USE_REMOVE));
}

/* A submodule's git directory lives in .git/modules/NAME and a linked worktree's in
 * .git/worktrees/NAME: git runs and obeys their hooks and config as the top one's, and the
 * POSIX fence protects every git directory beneath .git. A directory beneath .git moved away
 * (or in) would carry hooks past a judgement by names. */
static void
test_git_nested_directories (void)
{
  static const char *const protected[] = {
    ".git/modules/lib/hooks/post-checkout", ".git/modules/lib/hooks", ".git/modules/lib/config",
    ".git/modules/a/modules/b/hooks/pre-commit", ".git/worktrees/wt/config.worktree",
    ".git/worktrees/wt/commondir", ".git/modules/lib/CONFIG~1.WOR", "sub/.git/modules/x/config",
    NULL,
  };
  static const char *const moved[] = { ".git/modules/lib", ".git/worktrees/wt", ".git/modules",
                                       ".git/info", NULL };

  for (guint i = 0; protected[i] != NULL; i++)
    if (git_refusal_of (protected[i]) == NULL)
      g_error ("\"%s\" is not refused", protected[i]);
  for (guint i = 0; moved[i] != NULL; i++)
    {
      if (git_refusal_for (moved[i], DSH_FENCE_WINDOWS_USE_MOVE_DIR) == NULL)
        g_error ("moving \"%s\" is not refused", moved[i]);
      g_assert_null (git_refusal_for (moved[i], DSH_FENCE_WINDOWS_USE_MAKE_DIR));
      g_assert_null (git_refusal_for (moved[i], DSH_FENCE_WINDOWS_USE_REMOVE_EMPTY_DIR));
    }
  g_assert_null (git_refusal_of (".git/modules/lib/objects/ab/cd"));
  g_assert_null (git_refusal_for (".git/index.lock", DSH_FENCE_WINDOWS_USE_REMOVE));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/fence-windows-path/drive-paths", test_drive_paths);
  g_test_add_func ("/fence-windows-path/case", test_case);
  g_test_add_func ("/fence-windows-path/case-as-ntfs", test_case_as_ntfs);
  g_test_add_func ("/fence-windows-path/dots", test_dots);
  g_test_add_func ("/fence-windows-path/shares", test_shares);
  g_test_add_func ("/fence-windows-path/never-below", test_never_below);
  g_test_add_func ("/fence-windows-path/name-refusals", test_name_refusals);
  g_test_add_func ("/fence-windows-path/git-files", test_git_files);
  g_test_add_func ("/fence-windows-path/git-entry-itself", test_git_entry_itself);
  g_test_add_func ("/fence-windows-path/git-nested-directories", test_git_nested_directories);
  return g_test_run ();
}
