/* dsh-root-reach.c — whether a confined command of a workspace could change what a path names:
 * the kernel's own walk of the path, one name at a time, against everything that command may
 * write under any confined mode (dsh-roots-widest.c).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define _GNU_SOURCE /* O_PATH */

#include "dsh-roots.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A root as its components, and how many leading components the walk's directory shares with
 * it: the root is reached when that is all of its own. Each step moves the count by one
 * component's work, so no check rereads the way walked so far. */
typedef struct {
  const char *root;
  char **names; /* NULL: a relative root, which no walk from / reaches */
  guint depth;
  guint shared;
} RootMatch;

static void
root_match_clear (RootMatch *match)
{
  g_clear_pointer (&match->names, g_strfreev);
}

typedef struct {
  dev_t dev;
  ino_t ino;
} DirIdentity;

/* Where the walk stands: the names from / it has taken, of which all but the last `beyond` are
 * directories it opened one beneath the other (fd the deepest, -1 when not even / opens;
 * opened their identities, / first); the others are names that are no directory (yet), judged
 * where they would be created. */
typedef struct {
  GPtrArray *names;
  guint beyond;
  int fd;
  GArray *opened;
  GArray *matches;
} Way;

static void
way_clear (Way *way)
{
  g_clear_pointer (&way->names, g_ptr_array_unref);
  g_clear_pointer (&way->opened, g_array_unref);
  g_clear_pointer (&way->matches, g_array_unref);
  if (way->fd >= 0)
    close (way->fd);
  way->fd = -1;
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Way, way_clear)

/* A name opened as it is: a symlink itself, not what it points to. */
#ifdef O_PATH
#define LOOK_FLAGS (O_PATH | O_NOFOLLOW | O_CLOEXEC)
#else
#define LOOK_FLAGS (O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
#endif

static gboolean
directory_identity (int fd, DirIdentity *identity)
{
  struct stat st;

  if (fstat (fd, &st) != 0 || !S_ISDIR (st.st_mode))
    return FALSE;
  identity->dev = st.st_dev;
  identity->ino = st.st_ino;
  return TRUE;
}

/* Stands in fd (taken), a directory one beneath the current one; FALSE (fd closed) when it is
 * not a directory. */
static gboolean
way_descend (Way *way, int fd)
{
  DirIdentity identity;

  if (!directory_identity (fd, &identity))
    {
      close (fd);
      return FALSE;
    }
  if (way->fd >= 0)
    close (way->fd);
  way->fd = fd;
  g_array_append_val (way->opened, identity);
  return TRUE;
}

static void
way_add_name (Way *way, const char *name)
{
  guint depth = way->names->len;

  for (guint i = 0; i < way->matches->len; i++)
    {
      RootMatch *match = &g_array_index (way->matches, RootMatch, i);

      if (match->shared == depth && depth < match->depth &&
          g_str_equal (match->names[depth], name))
        match->shared++;
    }
  g_ptr_array_add (way->names, g_strdup (name));
}

/* Opens the directories the names say from / again, as far as they go. */
static void
way_reopen (Way *way)
{
  if (way->fd >= 0)
    close (way->fd);
  way->fd = -1;
  g_array_set_size (way->opened, 0);
  way->beyond = way->names->len;
  if (!way_descend (way, open ("/", LOOK_FLAGS | O_DIRECTORY)))
    return;
  for (guint i = 0; i < way->names->len; i++)
    {
      int next = openat (way->fd, way->names->pdata[i], LOOK_FLAGS | O_DIRECTORY);

      if (next < 0 || !way_descend (way, next))
        return;
      way->beyond--;
    }
}

/* Back to /, where an absolute symlink sends the kernel. */
static void
way_restart (Way *way)
{
  g_ptr_array_set_size (way->names, 0);
  for (guint i = 0; i < way->matches->len; i++)
    g_array_index (way->matches, RootMatch, i).shared = 0;
  way_reopen (way);
}

/* "..": the kernel climbs to the parent of the directory it stands in. That is the directory
 * the walk came through, unless something moved it meanwhile: then the names are opened again
 * from / (rare, and only who may write those directories can cause it). */
static void
way_climb (Way *way)
{
  DirIdentity parent_identity;
  const DirIdentity *came_through;
  int parent;

  if (way->names->len == 0)
    return; /* ".." of / is / */
  g_ptr_array_set_size (way->names, way->names->len - 1);
  for (guint i = 0; i < way->matches->len; i++)
    {
      RootMatch *match = &g_array_index (way->matches, RootMatch, i);

      match->shared = MIN (match->shared, way->names->len);
    }
  if (way->beyond > 0)
    {
      way->beyond--;
      return;
    }
  came_through = &g_array_index (way->opened, DirIdentity, way->opened->len - 2);
  parent = openat (way->fd, "..", LOOK_FLAGS | O_DIRECTORY);
  if (parent >= 0 && directory_identity (parent, &parent_identity) &&
      parent_identity.dev == came_through->dev && parent_identity.ino == came_through->ino)
    {
      close (way->fd);
      way->fd = parent;
      g_array_set_size (way->opened, way->opened->len - 1);
      return;
    }
  if (parent >= 0)
    close (parent);
  way_reopen (way);
}

/* The target of the symlink name beneath dir_fd (link_fd: the link itself, where it could be
 * opened as such). */
static char *
read_link (int dir_fd, const char *name, int link_fd)
{
  for (gsize size = 256; size <= 65536; size *= 2)
    {
      g_autofree char *buffer = g_malloc (size);
      ssize_t n = link_fd >= 0 ? readlinkat (link_fd, "", buffer, size)
                               : readlinkat (dir_fd, name, buffer, size);

      if (n < 0)
        return NULL;
      if ((gsize) n < size)
        return g_strndup (buffer, (gsize) n);
    }
  return NULL;
}

/* One name looked up where the walk stands: a directory is entered, a symlink's target is
 * returned for the walk to take next, anything else is passed beyond. */
static char *
way_step (Way *way, const char *name)
{
  struct stat st;
  gboolean is_link;
  int fd;

  if (way->beyond == 0 && way->fd >= 0)
    {
#ifdef O_PATH
      fd = openat (way->fd, name, LOOK_FLAGS);
      is_link = fd >= 0 && fstat (fd, &st) == 0 && S_ISLNK (st.st_mode);
#else
      /* Without O_PATH a symlink cannot be opened itself: read the name the lookup saw. */
      is_link = fstatat (way->fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK (st.st_mode);
      fd = is_link ? -1 : openat (way->fd, name, LOOK_FLAGS | O_DIRECTORY);
#endif
      if (is_link)
        {
          char *target = read_link (way->fd, name, fd);

          if (fd >= 0)
            close (fd);
          if (target != NULL)
            return target;
        }
      else if (fd >= 0 && way_descend (way, fd))
        {
          way_add_name (way, name);
          return NULL;
        }
    }
  way_add_name (way, name);
  way->beyond++;
  return NULL;
}

/* The first root the walk's directory lies in, or NULL. */
static const char *
root_reached (GArray *matches)
{
  for (guint i = 0; i < matches->len; i++)
    {
      const RootMatch *match = &g_array_index (matches, RootMatch, i);

      if (match->names != NULL && match->shared == match->depth)
        return match->root;
    }
  return NULL;
}

/**
 * dsh_writable_root_on_way:
 * @path: (type filename): a path, absolute or relative to the current directory
 * @workspace_root: (type filename): the canonical workspace root (it is not resolved again)
 * @extra_roots: (nullable) (array zero-terminated=1) (element-type filename): the extra writable
 *   roots, or %NULL
 *
 * The root of dsh_writable_roots_widest() for that workspace that @path lies in, or that its way
 * passes through, as the kernel would walk it now: whoever may write a directory on the way may
 * swap the name looked up in it, whatever it names today.
 *
 * Returns: (transfer full) (nullable) (type filename): that root, or %NULL when no confined
 *   command could change what @path names
 *
 * Since: 0.1
 */
char *
dsh_writable_root_on_way (const char *path,
                          const char *workspace_root,
                          const char *const *extra_roots)
{
  /* Canonical already: resolving it again could follow a directory swapped since. */
  g_autofree char *root = g_canonicalize_filename (workspace_root, "/");
  DshSandboxPolicy policy = {
    .mode = DSH_SANDBOX_MODE_WORKSPACE_WRITE,
    .workspace_root = root,
    .extra_writable_roots = (char **) extra_roots,
  };
  g_auto (GStrv) roots = dsh_writable_roots_widest (&policy);
  g_autofree char *absolute = NULL;
  g_auto (GStrv) parts = NULL;
  g_auto (Way) way = { .fd = -1 };
  GQueue pending = G_QUEUE_INIT;
  const char *hit = NULL;
  guint links = 0;

  g_return_val_if_fail (path != NULL, NULL);

  way.names = g_ptr_array_new_with_free_func (g_free);
  way.opened = g_array_new (FALSE, FALSE, sizeof (DirIdentity));
  way.matches = g_array_new (FALSE, TRUE, sizeof (RootMatch));
  g_array_set_clear_func (way.matches, (GDestroyNotify) root_match_clear);
  for (gsize i = 0; roots[i] != NULL; i++)
    {
      RootMatch match = { roots[i], NULL, 0, 0 };
      gsize len = strlen (roots[i]);

      /* As dsh_path_is_beneath() reads a root: trailing slashes do not count, and an empty
       * component, "." or ".." matches no name the walk takes. */
      while (len > 1 && roots[i][len - 1] == '/')
        len--;
      if (roots[i][0] == '/')
        {
          g_autofree char *trimmed = g_strndup (roots[i] + 1, len - 1);

          match.names = trimmed[0] == '\0' ? g_new0 (char *, 1) : g_strsplit (trimmed, "/", -1);
          match.depth = g_strv_length (match.names);
        }
      g_array_append_val (way.matches, match);
    }
  way_restart (&way);

  if (g_path_is_absolute (path))
    absolute = g_strdup (path);
  else
    {
      g_autofree char *here = g_get_current_dir ();

      absolute = g_build_filename (here, path, NULL);
    }
  parts = g_strsplit (absolute, "/", -1);
  for (gsize i = 0; parts[i] != NULL; i++)
    g_queue_push_tail (&pending, g_strdup (parts[i]));

  /* One name at a time from where the walk stands, as the kernel resolves it: every lookup is
   * one component beneath an open directory, so the work grows with the path's depth, not its
   * square, and no length limit of a whole path applies. */
  while (!g_queue_is_empty (&pending))
    {
      g_autofree char *part = g_queue_pop_head (&pending);
      g_autofree char *target = NULL;

      if (part[0] == '\0' || g_str_equal (part, "."))
        continue;
      /* ".." is no name a command could swap: climbing out of a root leaves its reach. */
      if (g_str_equal (part, ".."))
        {
          way_climb (&way);
          continue;
        }
      hit = root_reached (way.matches);
      if (hit != NULL)
        break;
      target = way_step (&way, part);
      if (target == NULL)
        continue;
      if (++links > 40)
        {
          /* Too many for the kernel too: the name leads nowhere. */
          way_add_name (&way, part);
          way.beyond++;
          continue;
        }
      {
        g_auto (GStrv) target_parts = g_strsplit (target, "/", -1);

        for (gsize i = g_strv_length (target_parts); i > 0; i--)
          g_queue_push_head (&pending, g_strdup (target_parts[i - 1]));
      }
      if (target[0] == '/')
        way_restart (&way);
    }
  g_queue_clear_full (&pending, g_free);
  if (hit == NULL)
    hit = root_reached (way.matches);
  return g_strdup (hit);
}
