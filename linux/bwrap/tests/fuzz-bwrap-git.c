/* fuzz-bwrap-git.c — libFuzzer target for the bwrap launcher's git protection over a hostile
 * workspace: .git files and directories, gitdir and commondir pointers, core.worktree lines,
 * submodules and worktrees, symlinks anywhere, all written by an earlier confined command. The
 * code reads what such a command wrote, now in the front's own process, so whatever the tree:
 *   - it either finishes or refuses with a message (fatal()), and never crashes;
 *   - every mount it asks for lies at or beneath the writable root, never outside it;
 *   - every descriptor it binds is the very file its destination names, reached without
 *     following a symlink;
 *   - it changes nothing in the tree.
 *
 * Layout: NUL-separated entries "T:PATH=CONTENT": T is d (directory), f (file holding CONTENT),
 * x (file holding the bytes CONTENT spells in hexadecimal: a git index, say) or l (symlink to
 * CONTENT); PATH is relative to the writable root "ws", or starts with
 * "../out/" for its sibling outside the roots; an entry that is anything else is skipped.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dsh-bwrap-exec.h"
#include "fuzz-target.h"
#include "fuzz-util.h"

/* A refusal ends the launcher's process with what it had allocated (here: jumps out of it), so
 * leaks are no finding; the build's test environment says the same. */
const char *__asan_default_options (void);
const char *
__asan_default_options (void)
{
  return "detect_leaks=0";
}

static jmp_buf refused;
static char refusal[4096];

_Noreturn void
fatal (const char *format, ...)
{
  va_list args;

  va_start (args, format);
  vsnprintf (refusal, sizeof refusal, format, args);
  va_end (args);
  longjmp (refused, 1);
}

void
hand_to_bwrap (int fd)
{
  (void) fd;
}

static void
violated (const char *what, const char *detail)
{
  fprintf (stderr, "fuzz-bwrap-git: %s: %s\n", what, detail != NULL ? detail : "");
  abort ();
}

/* A creatable path: relative, inside ws or ../out/, without "." or ".." components. */
static const char *
place_of (const char *path, const char *ws, const char *out, char **owned)
{
  const char *base = ws;
  const char *rest = path;

  if (g_str_has_prefix (path, "../out/"))
    {
      base = out;
      rest = path + strlen ("../out/");
    }
  if (*rest == '\0' || *rest == '/')
    return NULL;
  for (const char *part = rest; part != NULL; part = strchr (part, '/'))
    {
      if (*part == '/')
        part++;
      if (strncmp (part, "..", 2) == 0 && (part[2] == '/' || part[2] == '\0'))
        return NULL;
      if (part[0] == '.' && (part[1] == '/' || part[1] == '\0'))
        return NULL;
      if (*part == '/' || *part == '\0')
        return NULL;
    }
  *owned = g_build_filename (base, rest, NULL);
  return *owned;
}

static void
make_entry (const char *entry, const char *ws, const char *out)
{
  g_autofree char *path = NULL;
  g_autofree char *parent = NULL;
  const char *equals = NULL;
  g_autofree char *name = NULL;
  const char *where;

  if (strlen (entry) < 3 || entry[1] != ':' || (equals = strchr (entry + 2, '=')) == NULL)
    return;
  name = g_strndup (entry + 2, (gsize) (equals - entry - 2));
  where = place_of (name, ws, out, &path);
  if (where == NULL)
    return;
  parent = g_path_get_dirname (where);
  /* Entries whose parent is missing or not a directory fail here, like a command's would. */
  switch (entry[0])
    {
    case 'd':
      (void) g_mkdir (where, 0755);
      break;
    case 'f':
      (void) g_file_set_contents (where, equals + 1, -1, NULL);
      break;
    case 'x':
      {
        g_autoptr (GByteArray) bytes = g_byte_array_new ();

        for (const char *h = equals + 1; g_ascii_isxdigit (h[0]) && g_ascii_isxdigit (h[1]); h += 2)
          {
            guint8 byte = (guint8) (g_ascii_xdigit_value (h[0]) << 4 | g_ascii_xdigit_value (h[1]));

            g_byte_array_append (bytes, &byte, 1);
          }
        (void) g_file_set_contents (where, (const char *) bytes->data, (gssize) bytes->len, NULL);
      }
      break;
    case 'l':
      (void) !symlink (equals + 1, where);
      break;
    default:
      break;
    }
}

/* g_ptr_array_sort hands over pointers to the elements. */
static int
compare_names (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(const char *const *) a, *(const char *const *) b);
}

/* Every name, kind, size and content (of files) beneath dir, in order. */
static void
describe_tree (GString *out, const char *dir)
{
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GDir) listing = g_dir_open (dir, 0, NULL);
  const char *name;

  while (listing != NULL && (name = g_dir_read_name (listing)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);
  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *path = g_build_filename (dir, names->pdata[i], NULL);
      struct stat st;

      if (lstat (path, &st) != 0)
        continue;
      g_string_append_printf (out, "%s %o %lld\n", path, (unsigned) st.st_mode,
                              (long long) st.st_size);
      if (S_ISDIR (st.st_mode))
        describe_tree (out, path);
      else if (S_ISREG (st.st_mode) && st.st_size < 4096)
        {
          g_autofree char *contents = NULL;
          gsize len = 0;

          if (g_file_get_contents (path, &contents, &len, NULL))
            g_string_append_len (out, contents, (gssize) len);
        }
    }
}

/* The destination, reached from / without following a symlink, is the file fd holds. */
static void
check_bound (int fd, const char *dest)
{
  struct stat bound, named;
  int named_fd;

  if (fstat (fd, &bound) != 0)
    violated ("a bound descriptor is not open", dest);
  named_fd = open_beneath_nofollow (AT_FDCWD, dest, O_PATH | O_CLOEXEC);
  if (named_fd < 0 || fstat (named_fd, &named) != 0)
    violated ("a bound destination cannot be reached without a symlink", dest);
  close (named_fd);
  if (bound.st_dev != named.st_dev || bound.st_ino != named.st_ino)
    violated ("a bound descriptor is not the file its destination names", dest);
}

/* Each option the protection makes, with its arguments: every one names a place beneath the
 * writable root, and a bound descriptor is the file there. */
static void
check_mounts (const Argv *argv)
{
  for (size_t i = 0; i < argv->len; i++)
    {
      const char *option = argv->items[i];
      int bind = strcmp (option, "--bind-fd") == 0 || strcmp (option, "--ro-bind-fd") == 0;
      int tmpfs = strcmp (option, "--tmpfs") == 0 || strcmp (option, "--remount-ro") == 0;
      size_t n_args = bind ? 2 : 1;
      const char *dest;

      if (!bind && !tmpfs)
        violated ("an option the git protection does not make", option);
      if (i + n_args >= argv->len)
        violated ("an option without its arguments", option);
      dest = argv->items[i + n_args];
      /* bwrap walks "..", so a destination beneath the root only as spelled is not enough. */
      if (!is_writable (dest) || strstr (dest, "/../") != NULL || strstr (dest, "/./") != NULL ||
          g_str_has_suffix (dest, "/..") || g_str_has_suffix (dest, "/.") ||
          strstr (dest, "//") != NULL)
        violated ("a mount outside the writable root", dest);
      if (bind)
        check_bound (atoi (argv->items[i + 1]), dest);
      i += n_args;
    }
}

/* What the protection opened and wrote for bwrap goes with the input: a descriptor and a
 * destination after each bind, a destination shared by a tmpfs and its remount. */
static void
release_mounts (const Argv *argv)
{
  for (size_t i = 0; i + 1 < argv->len; i++)
    if (strcmp (argv->items[i], "--bind-fd") == 0 || strcmp (argv->items[i], "--ro-bind-fd") == 0)
      {
        close (atoi (argv->items[i + 1]));
        free (argv->items[i + 1]);
        free (argv->items[i + 2]);
        i += 2;
      }
    else if (strcmp (argv->items[i], "--tmpfs") == 0)
      free (argv->items[++i]);
    else if (strcmp (argv->items[i], "--remount-ro") == 0)
      i++; /* the tmpfs's destination, freed with it */
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static char *ws, *out;
  static char *root_list[2];
  /* The entries are NUL-separated: a copy of every byte, not g_strndup's (which stops at the
   * first NUL). */
  g_autofree char *text = g_malloc (size + 1);
  g_autoptr (GString) before = g_string_new (NULL);
  g_autoptr (GString) after = g_string_new (NULL);
  Argv argv = { 0 }, held = { 0 };
  int root_fd;

  memcpy (text, data, size);
  text[size] = '\0';
  if (ws == NULL)
    {
      g_autofree char *scratch = realpath (fuzz_scratch_dir (), NULL);

      ws = g_build_filename (scratch, "ws", NULL);
      out = g_build_filename (scratch, "out", NULL);
      root_list[0] = ws;
      roots = root_list;
      n_roots = 1;
    }
  fuzz_remove_tree (ws);
  fuzz_remove_tree (out);
  g_assert_cmpint (g_mkdir (ws, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (out, 0755), ==, 0);
  for (const char *entry = text; entry < text + size; entry += strlen (entry) + 1)
    make_entry (entry, ws, out);
  describe_tree (before, ws);
  describe_tree (before, out);

  root_fd = open_beneath_nofollow (AT_FDCWD, ws, O_PATH | O_DIRECTORY | O_CLOEXEC);
  g_assert_cmpint (root_fd, >=, 0);
  protect_repository_reset ();
  if (setjmp (refused) == 0)
    {
      protect_repository_of (&argv, root_fd, ws);
      hold_work_trees (&held);
      check_mounts (&held);
      check_mounts (&argv);
    }
  else if (refusal[0] == '\0')
    violated ("a refusal without a message", NULL);

  describe_tree (after, ws);
  describe_tree (after, out);
  if (strcmp (before->str, after->str) != 0)
    violated ("the protection changed the tree", NULL);
  release_mounts (&held);
  release_mounts (&argv);
  close (root_fd);
  free (held.items);
  free (argv.items);
  refusal[0] = '\0';
  return 0;
}
