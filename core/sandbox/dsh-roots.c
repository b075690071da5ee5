/* dsh-roots.c — canonical paths and the writable roots every enforcing layer derives from:
 * resolved once per call, checked on exactly those strings, and handed down as they are.
 *
 * The order matters for security: resolving symlinks before lexical normalisation makes
 * "a/link/../b" name the directory chdir would reach, not the lexical "a/b" the kernel never
 * visits.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define _GNU_SOURCE /* O_PATH, dladdr */

#include "dsh-roots.h"
#include "dsh-roots-private.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef __linux__
#include <linux/openat2.h>
#include <sys/syscall.h>
#endif

#include "dsh-config.h"
#include "dsh-error.h"
#include "dsh-root-grants-private.h"

/**
 * dsh_workspace_root:
 * @session_cwd: (nullable): the session's working directory
 * @fallback_root: (nullable): the workspace of a call without a session (%NULL: the current
 *   directory)
 *
 * A symlink on the way that a confined command could have planted (one made beneath a
 * directory after it was granted as a writable root) is not followed: the path of that symlink
 * comes back instead, and every layer refuses to open it.
 *
 * Returns: (transfer full) (type filename): the canonical @session_cwd or, without one, the
 *   canonical @fallback_root
 *
 * Since: 0.1
 */
char *
dsh_workspace_root (const char *session_cwd, const char *fallback_root)
{
  const char *root = session_cwd != NULL ? session_cwd : fallback_root;

  g_return_val_if_fail (root != NULL, NULL);

  return dsh_roots_unplanted_root (root, NULL, NULL);
}

/**
 * dsh_path_is_beneath:
 * @path: a canonical path
 * @root: a canonical root
 *
 * Both are compared as spelled.
 *
 * Returns: %TRUE when @path is @root itself or lies beneath it
 *
 * Since: 0.1
 */
gboolean
dsh_path_is_beneath (const char *path, const char *root)
{
  gsize len;

  g_return_val_if_fail (path != NULL && root != NULL, FALSE);

  len = strlen (root);
  while (len > 1 && root[len - 1] == '/')
    len--;
  if (len == 1 && root[0] == '/')
    return path[0] == '/';
  return strncmp (path, root, len) == 0 && (path[len] == '\0' || path[len] == '/');
}

char *
dsh_absolute_path_as_spelled (const char *path)
{
  g_autofree char *here = NULL;

  if (g_path_is_absolute (path))
    return g_strdup (path);
  here = g_get_current_dir ();
  return g_build_filename (here, path, NULL);
}

/* Is path absolute and already what g_canonicalize_filename() makes of it? */
static gboolean
is_lexically_canonical (const char *path)
{
  const char *p = path;

  if (p[0] != '/')
    return FALSE;
  if (p[1] == '\0')
    return TRUE;
  while (*p == '/')
    {
      p++;
      /* An empty component: a doubled or a trailing slash. */
      if (*p == '\0' || *p == '/')
        return FALSE;
      if (p[0] == '.' && (p[1] == '\0' || p[1] == '/' ||
                          (p[1] == '.' && (p[2] == '\0' || p[2] == '/'))))
        return FALSE;
      p += strcspn (p, "/");
    }
  return TRUE;
}

char *
dsh_lexically_canonical (const char *path)
{
  return is_lexically_canonical (path) ? g_strdup (path) : g_canonicalize_filename (path, NULL);
}

int
dsh_open_directory_no_symlinks (const char *path, gboolean portable)
{
  g_auto (GStrv) parts = NULL;
  int fd;

  if (!g_path_is_absolute (path))
    {
      errno = EINVAL;
      return -1;
    }
#ifdef __linux__
  if (!portable)
    {
      struct open_how how = { 0 };

      how.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
      how.resolve = RESOLVE_NO_SYMLINKS;
      fd = (int) syscall (SYS_openat2, AT_FDCWD, path, &how, sizeof how);
      if (fd >= 0 || (errno != ENOSYS && errno != EPERM))
        return fd;
    }
#endif
  /* Without openat2: one component at a time from /, never following a symlink. */
#ifdef O_PATH
#define ANCHOR_FLAGS (O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
#else
#define ANCHOR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
#endif
  fd = open ("/", ANCHOR_FLAGS);
  parts = g_strsplit (path, "/", -1);
  for (gsize i = 0; fd >= 0 && parts[i] != NULL; i++)
    {
      int next;

      if (parts[i][0] == '\0' || g_str_equal (parts[i], "."))
        continue;
      if (g_str_equal (parts[i], ".."))
        {
          close (fd);
          errno = ELOOP;
          return -1;
        }
      next = openat (fd, parts[i], ANCHOR_FLAGS);
      close (fd);
      fd = next;
    }
  /* O_NOFOLLOW on a symlink fails with ELOOP, or ENOTDIR with O_DIRECTORY. */
  if (fd < 0 && errno == ENOTDIR)
    errno = ELOOP;
  return fd;
#undef ANCHOR_FLAGS
}

/* ---- the walk ------------------------------------------------------------------------------ */

/* created (ISO 8601, nullable) in Unix microseconds; 0 when there is none to compare with. */
static gint64
unix_us_of (const char *created)
{
  g_autoptr (GDateTime) when = created != NULL ? g_date_time_new_from_iso8601 (created, NULL)
                                               : NULL;

  if (when == NULL)
    return 0;
  return g_date_time_to_unix (when) * G_USEC_PER_SEC + g_date_time_get_microsecond (when);
}

/* File timestamps come from the kernel's coarse clock, which lags the clock a grant or a
 * session's creation was stamped with by up to a tick (more on a network filesystem): a symlink
 * made right afterwards must still count as made afterwards, so comparisons keep a margin. A
 * symlink the user made within that margin before is refused too. */
#define CLOCK_MARGIN_US G_USEC_PER_SEC

/* What the walk holds against a symlink it meets. */
typedef struct {
  /* Symlinks changed after this (Unix time, microseconds; 0: none) are refused: a session's
   * cwd was fixed at its creation. */
  gint64 not_before;
  /* Symlinks made beneath a directory after it was granted are refused (NULL: no record). */
  DshRootGrants *grants;
  /* Every symlink beneath a granted directory is refused, however old (where it leads is for
   * that grant's commands to choose), and the nearest granted directory at or above where the
   * walk stops is noted. */
  gboolean within_grants;
  /* No record could be read: every symlink is refused. */
  gboolean untold;
} WalkRules;

typedef enum {
  PLANTED_NONE,
  PLANTED_SINCE_SESSION,
  PLANTED_SINCE_GRANT,
  /* Without a record: any symlink could have been. */
  PLANTED_UNTOLD,
} PlantedKind;

typedef struct {
  /* Every symlink followed and the (resolved) directory holding it, for the check against the
   * call's own roots once they are known (NULL when the walk met none). */
  GPtrArray *links;
  GPtrArray *link_dirs;
  /* The first symlink refused by the rules, and for a grant the directory granted. */
  PlantedKind planted_kind;
  char *planted;
  char *granted_dir;
  /* With within_grants and no symlink refused: the nearest granted directory at or above where
   * the walk stopped. */
  char *granted_above;
  /* Where the walk ended when it went all the way, else NULL. */
  char *resolved;
  /* Without resolved, when a component was missing: the directory the walk stood in (canonical)
   * and the rest from that component on, as the kernel would have gone on through it. */
  char *stood_in;
  char *unresolved;
  /* A directory the walk came through was moved while it walked. */
  gboolean moved;
  /* With resolved: where the walk ended, still open (O_PATH), so that what is recorded as
   * granted is the very directory the walk reached. */
  gboolean has_fd;
  int fd;
} Walk;

static void
walk_clear (Walk *walk)
{
  g_clear_pointer (&walk->links, g_ptr_array_unref);
  g_clear_pointer (&walk->link_dirs, g_ptr_array_unref);
  g_clear_pointer (&walk->planted, g_free);
  g_clear_pointer (&walk->granted_dir, g_free);
  g_clear_pointer (&walk->granted_above, g_free);
  g_clear_pointer (&walk->resolved, g_free);
  g_clear_pointer (&walk->stood_in, g_free);
  g_clear_pointer (&walk->unresolved, g_free);
  if (walk->has_fd)
    close (walk->fd);
  walk->has_fd = FALSE;
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Walk, walk_clear)

/* The first n components of resolved ("/" for none). */
static char *
leading_components (const char *resolved, guint n)
{
  const char *p = resolved;

  if (n == 0)
    return g_strdup ("/");
  for (guint seen = 0; *p != '\0'; p++)
    {
      if (*p == '/' && seen++ == n)
        break;
    }
  return g_strndup (resolved, (gsize) (p - resolved));
}

/* A directory on the way: who it is, and when it last changed (ctime, microseconds). */
typedef struct {
  DshRootIdentity identity;
  gint64 changed_us;
} Ancestor;

/* Is the symlink (ctime changed_us) beneath a granted directory of ancestors ("/" and each
 * component of resolved), with the symlink or any directory between them changed since the
 * grant? A directory renamed into a granted one changes (its ctime), so an old symlink moved in
 * inside it counts as new. Sets walk->granted_dir. */
static gboolean
made_after_a_grant (Walk *walk, const WalkRules *rules, GArray *ancestors, const char *resolved,
                    gint64 changed_us)
{
  gint64 newest = changed_us;

  /* From the innermost directory out, carrying the newest change seen below each. */
  for (guint i = ancestors->len; rules->grants != NULL && i > 0; i--)
    {
      const Ancestor *ancestor = &g_array_index (ancestors, Ancestor, i - 1);
      gint64 since = 0;

      if (dsh_root_grants_lookup (rules->grants, &ancestor->identity, &since) &&
          (rules->within_grants || newest >= since - CLOCK_MARGIN_US))
        {
          walk->granted_dir = leading_components (resolved, i - 1);
          return TRUE;
        }
      newest = MAX (newest, ancestor->changed_us);
    }
  return FALSE;
}

/* The nearest of ancestors (as in made_after_a_grant()) that grants holds, as a path. */
static char *
granted_at_or_above (DshRootGrants *grants, GArray *ancestors, const char *resolved)
{
  for (guint i = ancestors->len; grants != NULL && i > 0; i--)
    {
      gint64 since;

      if (dsh_root_grants_lookup (grants, &g_array_index (ancestors, Ancestor, i - 1).identity,
                                  &since))
        return leading_components (resolved, i - 1);
    }
  return NULL;
}

/* The names still to walk are the rest of one string, from *at on: a symlink's target is put
 * in front of that rest, as the kernel goes on through it. Takes the next non-empty name into
 * name (reused, so that a walk allocates nothing per component); FALSE when none is left. */
static gboolean
next_name (GString *pending, gsize *at, GString *name)
{
  const char *p = pending->str + *at;
  gsize len;

  while (*p == '/')
    p++;
  if (*p == '\0')
    {
      *at = pending->len;
      return FALSE;
    }
  len = strcspn (p, "/");
  g_string_truncate (name, 0);
  g_string_append_len (name, p, (gssize) len);
  *at = (gsize) (p + len - pending->str);
  return TRUE;
}

/* The rest of pending from at on, with target (a symlink's) in front of it. */
static void
put_in_front (GString *pending, gsize *at, const char *target)
{
  g_string_erase (pending, 0, (gssize) *at);
  g_string_prepend_c (pending, '/');
  g_string_prepend (pending, target);
  *at = 0;
}

/* The directory a walk stands in, opened without following a symlink. */
#ifdef O_PATH
#define STEP_FLAGS (O_PATH | O_NOFOLLOW | O_CLOEXEC)
#else
#define STEP_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
#endif

/* The target of the symlink name beneath dir_fd (fd: the link itself where O_PATH opened it). */
static char *
read_link_at (int dir_fd, const char *name, int fd)
{
  gsize size = 256;

  for (;;)
    {
      g_autofree char *buffer = g_malloc (size);
      ssize_t n = fd >= 0 ? readlinkat (fd, "", buffer, size) : readlinkat (dir_fd, name, buffer, size);

      if (n < 0)
        return NULL;
      if ((gsize) n < size)
        return g_strndup (buffer, (gsize) n);
      if (size >= 65536)
        return NULL;
      size *= 2;
    }
}

/* One component: opens name beneath dir_fd without following it. *out_fd is the opened
 * directory (-1 for a symlink, or a file a later component cannot lie beneath). FALSE when
 * nothing can be reached there. */
static gboolean
step (int dir_fd, const char *name, int *out_fd, DshRootIdentity *identity, gboolean *is_link,
      gint64 *changed_us)
{
  int fd;

  *out_fd = -1;
#ifdef O_PATH
  /* O_PATH with O_NOFOLLOW opens a symlink itself: what is inspected is what was opened. */
  fd = openat (dir_fd, name, STEP_FLAGS);
  if (fd < 0)
    return FALSE;
  if (!dsh_root_identity_at (fd, "", identity, is_link, changed_us))
    {
      close (fd);
      return FALSE;
    }
  *out_fd = fd;
  return TRUE;
#else
  if (!dsh_root_identity_at (dir_fd, name, identity, is_link, changed_us))
    return FALSE;
  if (*is_link)
    return TRUE;
  fd = openat (dir_fd, name, STEP_FLAGS);
  if (fd >= 0)
    {
      DshRootIdentity opened;

      /* The directory opened must be the one inspected. */
      if (!dsh_root_identity_at (fd, "", &opened, NULL, changed_us) ||
          opened.dev != identity->dev || opened.ino != identity->ino)
        {
          close (fd);
          return FALSE;
        }
      *out_fd = fd;
    }
  return TRUE;
#endif
}

static void
close_fd (int *fd)
{
  if (*fd >= 0)
    close (*fd);
  *fd = -1;
}

/* A path with no ".." component, whose lexical form is then what the kernel reaches. */
static gboolean
has_no_dotdot (const char *path)
{
  for (const char *p = path; (p = strstr (p, "..")) != NULL; p += 2)
    {
      if ((p == path || p[-1] == '/') && (p[2] == '\0' || p[2] == '/'))
        return FALSE;
    }
  return TRUE;
}

/* path (absolute, no "..") with empty and "." components dropped: "/" for none. */
static char *
lexical_join (const char *path)
{
  GString *joined = g_string_sized_new (strlen (path));

  for (const char *p = path; *p != '\0';)
    {
      const char *slash = strchr (p, '/');
      const char *end = slash != NULL ? slash : p + strlen (p);
      gsize len = (gsize) (end - p);

      if (len > 0 && !(len == 1 && *p == '.'))
        {
          g_string_append_c (joined, '/');
          g_string_append_len (joined, p, (gssize) len);
        }
      p = *end == '/' ? end + 1 : end;
    }
  if (joined->len == 0)
    g_string_append_c (joined, '/');
  return g_string_free (joined, FALSE);
}

/* One kernel lookup of path that refuses every symlink on the way: when it succeeds, path has
 * none, and (without "..") its lexical form is where the walk would end. 1 when it did (*out_fd
 * is what it reached, O_PATH), 0 when a symlink is on the way (or the lookup is not available),
 * -1 when nothing is there. */
static int
resolves_without_symlinks (const char *path, int *out_fd)
{
#ifdef __linux__
  struct open_how how = { 0 };
  int fd;

  if (!has_no_dotdot (path))
    return 0;
  how.flags = O_PATH | O_CLOEXEC;
  how.resolve = RESOLVE_NO_SYMLINKS;
  fd = (int) syscall (SYS_openat2, AT_FDCWD, path, &how, sizeof how);
  if (fd >= 0)
    {
      *out_fd = fd;
      return 1;
    }
  return errno == ENOENT || errno == ENOTDIR || errno == EACCES ? -1 : 0;
#else
  return 0;
#endif
}

/* The walk stops at part, which cannot be reached from resolved: what is left of the path. */
static void
stop_at_missing (Walk *walk, const GString *resolved, const GString *part,
                 const GString *pending, gsize at)
{
  walk->stood_in = g_strdup (resolved->len > 0 ? resolved->str : "/");
  walk->unresolved = g_strconcat (part->str, pending->str + at, NULL);
}

/* Where a root that did not resolve is left: the directory its walk stood in, then the rest
 * from the missing component on, tidied (it matches nothing until it exists); the spelling
 * itself, tidied, when the walk did not say where it stopped. Tidying a rest that goes up (..)
 * would name a directory the path does not reach (missing/../x is not x), so such a root names
 * none: NULL. */
static char *
missing_root_spelling (const Walk *walk, const char *spelled)
{
  g_autofree char *joined = NULL;

  if (walk->stood_in == NULL)
    return has_no_dotdot (spelled) ? dsh_lexically_canonical (spelled) : NULL;
  if (!has_no_dotdot (walk->unresolved))
    return NULL;
  joined = g_strconcat (walk->stood_in, "/", walk->unresolved, NULL);
  return lexical_join (joined);
}

/* Walks path (absolute) the way the kernel resolves it, component by component through every
 * symlink, holding each symlink it meets against rules. Each step opens one name beneath the
 * directory the walk stands in, so the cost grows with the number of components, not their
 * square, and every directory passed through is one that was a directory when it was reached.
 * A missing component ends the walk: nothing lies beyond it, and walk->resolved stays NULL (the
 * path matches nothing until it exists). */
static void
walk_components (const char *path, const WalkRules *rules, Walk *walk)
{
  g_autoptr (GString) pending = g_string_new (path);
  g_autoptr (GString) part = g_string_sized_new (256);
  g_autoptr (GString) resolved = g_string_sized_new (pending->len + 1);
  g_autoptr (GArray) ancestors = g_array_sized_new (FALSE, FALSE, sizeof (Ancestor), 16);
  DshRootIdentity identity;
  gsize at = 0;
  guint links = 0;
  int here = -1;

  here = open ("/", STEP_FLAGS | O_DIRECTORY);
  {
    Ancestor root;

    if (here < 0 || !dsh_root_identity_at (here, "", &root.identity, NULL, &root.changed_us))
      goto out;
    g_array_append_val (ancestors, root);
  }

  while (next_name (pending, &at, part))
    {
      g_autofree char *candidate = NULL;
      g_autofree char *target = NULL;
      gboolean is_link = FALSE;
      gint64 changed_us = 0;
      int next;

      if (g_str_equal (part->str, "."))
        continue;
      if (here < 0)
        {
          stop_at_missing (walk, resolved, part, pending, at);
          goto out; /* a file, and something beneath it */
        }
      if (g_str_equal (part->str, ".."))
        {
          char *slash = strrchr (resolved->str, '/');
          DshRootIdentity parent;

          if (ancestors->len <= 1)
            continue; /* ".." of / is / */
          /* The parent the kernel climbs to must be the directory the walk came through. */
          next = openat (here, "..", STEP_FLAGS | O_DIRECTORY);
          if (next < 0 || !dsh_root_identity_at (next, "", &parent, NULL, NULL) ||
              parent.dev != g_array_index (ancestors, Ancestor, ancestors->len - 2).identity.dev ||
              parent.ino != g_array_index (ancestors, Ancestor, ancestors->len - 2).identity.ino)
            {
              if (next >= 0)
                close (next);
              walk->moved = TRUE;
              goto out;
            }
          close_fd (&here);
          here = next;
          g_string_truncate (resolved, slash != NULL ? (gsize) (slash - resolved->str) : 0);
          g_array_set_size (ancestors, ancestors->len - 1);
          continue;
        }

      if (!step (here, part->str, &next, &identity, &is_link, &changed_us))
        {
          stop_at_missing (walk, resolved, part, pending, at);
          goto out;
        }
      if (!is_link)
        {
          Ancestor ancestor = { identity, changed_us };

          g_string_append_c (resolved, '/');
          g_string_append_len (resolved, part->str, (gssize) part->len);
          g_array_append_val (ancestors, ancestor);
          close_fd (&here);
          here = next;
          continue;
        }

      candidate = g_strconcat (resolved->str, "/", part->str, NULL);
      if (rules->not_before > 0 && changed_us >= rules->not_before - CLOCK_MARGIN_US)
        walk->planted_kind = PLANTED_SINCE_SESSION;
      else if (made_after_a_grant (walk, rules, ancestors, resolved->str, changed_us))
        walk->planted_kind = PLANTED_SINCE_GRANT;
      else if (rules->untold)
        walk->planted_kind = PLANTED_UNTOLD;
      if (walk->planted_kind != PLANTED_NONE)
        {
          walk->planted = g_steal_pointer (&candidate);
          close_fd (&next);
          goto out;
        }
      g_ptr_array_add (walk->links, g_strdup (candidate));
      g_ptr_array_add (walk->link_dirs, g_strdup (resolved->len > 0 ? resolved->str : "/"));

      /* The target of the very link inspected. */
      target = read_link_at (here, part->str, next);
      close_fd (&next);
      if (target == NULL || ++links > 40)
        goto out;
      /* Continue through the link's target, as the kernel does. */
      put_in_front (pending, &at, target);
      if (target[0] == '/')
        {
          close_fd (&here);
          here = open ("/", STEP_FLAGS | O_DIRECTORY);
          g_string_truncate (resolved, 0);
          g_array_set_size (ancestors, MIN (ancestors->len, 1));
        }
    }

  walk->resolved = g_strdup (resolved->len > 0 ? resolved->str : "/");
  walk->has_fd = here >= 0;
  walk->fd = here;
  here = -1;
out:
  if (rules->within_grants && walk->planted == NULL)
    walk->granted_above = granted_at_or_above (rules->grants, ancestors, resolved->str);
  close_fd (&here);
}

static void
walk_path (const char *path, const WalkRules *rules, Walk *walk)
{
  /* No symlink on the way: nothing to hold against the rules (and no symlink to list), and
   * one lookup says so. */
  switch (resolves_without_symlinks (path, &walk->fd))
    {
    case 1:
      walk->has_fd = TRUE;
      walk->resolved = is_lexically_canonical (path) ? g_strdup (path) : lexical_join (path);
      return;
    case -1:
      return;
    default:
      walk->links = g_ptr_array_new_with_free_func (g_free);
      walk->link_dirs = g_ptr_array_new_with_free_func (g_free);
      walk_components (path, rules, walk);
    }
}

/* ---- what a path passes on its way --------------------------------------------------------- */

/* Always component by component, even without a symlink: whether a directory was granted is
 * asked of the very directory the walk stood in, never of a path looked up again. */
static void
walk_within_grants (DshRootGrants *grants, const char *path, Walk *walk)
{
  const WalkRules rules = { .grants = grants, .within_grants = TRUE, .untold = FALSE };

  walk->links = g_ptr_array_new_with_free_func (g_free);
  walk->link_dirs = g_ptr_array_new_with_free_func (g_free);
  walk_components (path, &rules, walk);
}

int
dsh_roots_open_within_grants (DshRootGrants *grants, const char *path, char **out_granted)
{
  g_auto (Walk) walk = { 0 };
  int saved;

  walk_within_grants (grants, path, &walk);
  saved = errno;
  *out_granted = NULL;
  if (walk.planted != NULL)
    {
      *out_granted = g_steal_pointer (&walk.granted_dir);
      errno = ELOOP;
      return -1;
    }
  if (!walk.has_fd)
    {
      errno = walk.moved ? ESTALE : saved != 0 ? saved : ENOENT;
      return -1;
    }
  walk.has_fd = FALSE;
  return walk.fd;
}

char *
dsh_roots_granted_on_the_way (DshRootGrants *grants, const char *spelled)
{
  g_auto (Walk) walk = { 0 };

  walk_within_grants (grants, spelled, &walk);
  /* A directory moved while it was walked: nothing on the way can be vouched for. */
  if (walk.moved)
    return g_strdup (spelled);
  if (walk.planted != NULL)
    return g_steal_pointer (&walk.granted_dir);
  return g_steal_pointer (&walk.granted_above);
}

/* ---- where a root leads -------------------------------------------------------------------- */

char *
dsh_roots_unplanted_root (const char *path, const char *session_created, gboolean *out_planted)
{
  g_autofree char *absolute = dsh_absolute_path_as_spelled (path);
  g_autofree char *record = NULL;
  g_autoptr (DshRootGrants) grants = NULL;
  g_auto (Walk) walk = { 0 };
  WalkRules rules = { unix_us_of (session_created), NULL, FALSE, FALSE };
  int fd;

  if (out_planted != NULL)
    *out_planted = FALSE;
  /* Without a symlink on the way nothing can have been planted, and the record is not read. */
  switch (resolves_without_symlinks (absolute, &fd))
    {
    case 1:
      close (fd);
      return is_lexically_canonical (absolute) ? g_steal_pointer (&absolute)
                                               : lexical_join (absolute);
    case -1:
      return dsh_lexically_canonical (absolute);
    default:
      break;
    }
  record = dsh_root_grants_default_dir ();
  rules.grants = grants = dsh_root_grants_open (record, NULL);
  /* Without a record no symlink can be told apart from a planted one: none is followed. */
  rules.untold = grants == NULL;
  walk.links = g_ptr_array_new_with_free_func (g_free);
  walk.link_dirs = g_ptr_array_new_with_free_func (g_free);
  walk_components (absolute, &rules, &walk);
  /* The symlink itself, canonical: no layer opens a root through a symlink, and the spelling
   * normalised instead would have a ".." after it name another, real directory. */
  if (walk.planted != NULL)
    {
      if (out_planted != NULL)
        *out_planted = TRUE;
      return g_steal_pointer (&walk.planted);
    }
  if (walk.moved)
    {
      if (out_planted != NULL)
        *out_planted = TRUE;
    }
  /* Moved while walked: the spelling, which matches nothing until it exists. */
  if (walk.moved)
    return dsh_lexically_canonical (absolute);
  /* Missing: where its walk stopped. One that goes up from there names no directory: kept as
   * spelled, and left out like a planted one. */
  if (walk.resolved == NULL)
    {
      char *missing = missing_root_spelling (&walk, absolute);

      if (missing != NULL)
        return missing;
      if (out_planted != NULL)
        *out_planted = TRUE;
      return g_steal_pointer (&absolute);
    }
  return g_steal_pointer (&walk.resolved);
}

GStrv
dsh_roots_granted_above_dirs (DshRootGrants *grants, const char *const *dirs)
{
  g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();
  g_autoptr (GHashTable) asked = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (gsize i = 0; dirs != NULL && dirs[i] != NULL; i++)
    {
      g_autofree char *granted = NULL;
      int fd;

      switch (g_path_is_absolute (dirs[i]) ? resolves_without_symlinks (dirs[i], &fd) : 0)
        {
        case 1:
          {
            g_autofree char *physical = is_lexically_canonical (dirs[i]) ? g_strdup (dirs[i])
                                                                          : lexical_join (dirs[i]);

            close (fd);
            granted = dsh_root_grants_granted_at_or_above (grants, physical, asked);
            break;
          }
        case -1:
          break; /* nothing there to load */
        default:
          {
            g_autofree char *absolute = dsh_absolute_path_as_spelled (dirs[i]);

            granted = dsh_roots_granted_on_the_way (grants, absolute);
          }
        }
      if (granted != NULL)
        g_strv_builder_add (builder, granted);
    }
  return g_strv_builder_end (builder);
}

/**
 * dsh_canonical_path:
 * @path: a path, absolute or relative to the current directory
 *
 * Resolves @path through the filesystem (the kernel's own component-by-component lookup), then
 * normalises it lexically. When resolution fails the spelling is returned as it is: a missing root
 * matches nothing until it exists.
 *
 * Returns: (transfer full) (type filename): the canonical path, never %NULL
 *
 * Since: 0.1
 */
char *
dsh_canonical_path (const char *path)
{
  g_autofree char *absolute = NULL;
  g_auto (Walk) walk = { 0 };
  const WalkRules no_rules = { 0 };

  g_return_val_if_fail (path != NULL, NULL);

  /* The walk goes one component at a time as the kernel does, so a ".." after a symlink climbs
   * from the symlink's target, exactly as chdir does. An absolute path is walked as it is, not
   * copied first. */
  if (!g_path_is_absolute (path))
    absolute = dsh_absolute_path_as_spelled (path);
  walk_path (absolute != NULL ? absolute : path, &no_rules, &walk);
  if (walk.resolved == NULL || walk.moved)
    return g_strdup (path);
  return g_steal_pointer (&walk.resolved);
}

/* ---- refusals ------------------------------------------------------------------------------ */

static gboolean
refuse_planted (GError **error, const char *root, const Walk *walk, const char *link)
{
  g_autofree char *valid_root = g_utf8_make_valid (root, -1);
  g_autofree char *valid = g_utf8_make_valid (link, -1);

  if (walk != NULL && walk->planted_kind == PLANTED_SINCE_SESSION)
    g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_ROOT_REFUSED,
                 "the session's cwd %s is reached through the symlink %s, made after the "
                 "session was created: a command could have planted it to move the "
                 "session's workspace; refusing to run the command",
                 valid_root, valid);
  else if (walk != NULL && walk->planted_kind == PLANTED_SINCE_GRANT)
    {
      g_autofree char *granted = g_utf8_make_valid (walk->granted_dir, -1);

      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_ROOT_REFUSED,
                   "the writable root %s is reached through the symlink %s, made inside %s "
                   "after confined commands were allowed to write there: a command could have "
                   "planted it to move this call's writable roots; refusing to run the command",
                   valid_root, valid, granted);
    }
  else
    g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_ROOT_REFUSED,
                 "the writable root %s is reached through the symlink %s, which lies where "
                 "confined commands may write: a command could have planted it to move this "
                 "call's writable roots; refusing to run the command",
                 valid_root, valid);
  return FALSE;
}

/**
 * dsh_roots_check_workspace:
 * @workspace_root: a canonical workspace root
 * @error: return location for a #GError
 *
 * Under `workspace-write` a workspace of `/` would make the whole host writable.
 *
 * Returns: %FALSE with %DSH_SANDBOX_ERROR_ROOT_REFUSED for `/`, else %TRUE
 *
 * Since: 0.1
 */
gboolean
dsh_roots_check_workspace (const char *workspace_root, GError **error)
{
  if (g_strcmp0 (workspace_root, "/") != 0)
    return TRUE;
  g_set_error_literal (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_ROOT_REFUSED,
                       "the workspace root / would make the whole host writable under "
                       "workspace-write; refusing to run the command (choose the project's "
                       "directory as the workspace)");
  return FALSE;
}

/* Directories of the operating system itself: a temp root there, or beneath the first group,
 * would hand the system to confined commands. */
static const char *const system_trees[] = {
  "/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/libx32", "/proc", "/sbin",
  "/sys", "/usr", "/System", "/private/etc",
  /* What the system runs or trusts later: crontabs and at jobs, package and service state,
   * runtime units, launch daemons. */
  "/var/spool", "/var/lib", "/var/db", "/var/cache", "/var/backups", "/run/systemd",
  "/Library/LaunchDaemons", "/Library/LaunchAgents", "/private/var/db",
};
static const char *const system_dirs[] = {
  "/home", "/media", "/mnt", "/opt", "/root", "/run", "/srv", "/var", "/Applications",
  "/Library", "/Users", "/Volumes", "/private", "/private/var",
};

/* Why a temp directory or an extra root (canonical) may not be a writable root next to
 * workspace_root, or NULL when it may. */
static char *
root_refusal (const char *temp, const char *workspace_root)
{
  const char *home_env = g_getenv ("HOME");
  g_autofree char *home = dsh_canonical_path (home_env != NULL && *home_env != '\0'
                                                ? home_env
                                                : g_get_home_dir ());

  if (g_str_equal (temp, "/"))
    return g_strdup ("is /");
  if (g_path_is_absolute (home) && g_str_equal (temp, home))
    return g_strdup ("is $HOME");
  if (g_path_is_absolute (home) && dsh_path_is_beneath (home, temp))
    return g_strdup_printf ("is an ancestor of $HOME (%s)", home);
  for (guint i = 0; i < G_N_ELEMENTS (system_dirs); i++)
    {
      if (g_str_equal (temp, system_dirs[i]))
        return g_strdup ("is a system directory");
    }
  for (guint i = 0; i < G_N_ELEMENTS (system_trees); i++)
    {
      /* /dev/shm is a temp area of its own. */
      if (dsh_path_is_beneath (temp, system_trees[i]) && !dsh_path_is_beneath (temp, "/dev/shm"))
        return g_strdup ("is a system directory");
    }
  if (workspace_root != NULL && dsh_path_is_beneath (workspace_root, temp) &&
      !g_str_equal (workspace_root, temp))
    return g_strdup_printf ("is an ancestor of the workspace %s", workspace_root);
  return NULL;
}

static gboolean
refuse_temp_root (GError **error, const char *spelled, const char *temp, const char *why)
{
  g_autofree char *valid_spelled = g_utf8_make_valid (spelled, -1);
  g_autofree char *valid = g_utf8_make_valid (temp, -1);

  g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_ROOT_REFUSED,
               "the temp directory %s (TMPDIR, resolved to %s) %s: confined commands would "
               "write there under workspace-write; refusing to run the command (set TMPDIR to "
               "a directory of its own)",
               valid_spelled, valid, why);
  return FALSE;
}

/* The temp roots of workspace-write: /tmp and the temp directory, as spelled. */
static void
temp_areas (const char **out_tmp, const char **out_tmpdir)
{
  *out_tmp = "/tmp";
  *out_tmpdir = g_get_tmp_dir ();
}

static void
add_unique (GPtrArray *roots, const char *root)
{
  if (!g_ptr_array_find_with_equal_func (roots, root, g_str_equal, NULL))
    g_ptr_array_add (roots, g_strdup (root));
}

/* add_unique() taking root. */
static void
add_unique_take (GPtrArray *roots, char *root)
{
  if (g_ptr_array_find_with_equal_func (roots, root, g_str_equal, NULL))
    g_free (root);
  else
    g_ptr_array_add (roots, root);
}

/* A directory root_refusal() refuses by path, known by identity, and why (its reason). */
typedef struct {
  DshRootIdentity identity;
  char *why;
} RefusedIdentity;

static void
refused_identity_clear (RefusedIdentity *refused)
{
  g_free (refused->why);
}

/* Appends the directory open as fd (taken, closed here) unless skip_first, then every one above
 * it, climbing "..": what the path form calls an ancestor, whatever its path now. */
static void
append_chain (GArray *refused, int fd, gboolean skip_first, const char *why, const char *why_above)
{
  g_autoptr (GArray) chain = dsh_root_identity_chain (fd);

  for (guint depth = skip_first ? 1 : 0; depth < chain->len; depth++)
    {
      RefusedIdentity entry = { g_array_index (chain, DshRootIdentity, depth), NULL };

      entry.why = g_strdup (depth == 0 ? why : why_above);
      g_array_append_val (refused, entry);
    }
}

static int
open_directory_followed (const char *path)
{
#ifdef O_PATH
  return open (path, O_PATH | O_DIRECTORY | O_CLOEXEC);
#else
  return open (path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
#endif
}

/* The identities of what root_refusal() names by path, in its order: /, $HOME and the
 * directories above it, the system directories it names (not what lies beneath the trees), the
 * directories above workspace_root (open as workspace_fd, borrowed; -1: none). Taken fresh for
 * each call that needs them: a cache would answer for directories moved or mounted since. */
static GArray *
refused_identities (int workspace_fd, const char *workspace_root)
{
  GArray *refused = g_array_new (FALSE, TRUE, sizeof (RefusedIdentity));
  const char *home_env = g_getenv ("HOME");
  g_autofree char *home = dsh_canonical_path (home_env != NULL && *home_env != '\0'
                                                ? home_env
                                                : g_get_home_dir ());

  g_array_set_clear_func (refused, (GDestroyNotify) refused_identity_clear);
  append_chain (refused, open_directory_followed ("/"), FALSE, "is /", NULL);
  if (g_path_is_absolute (home))
    {
      g_autofree char *above = g_strdup_printf ("is an ancestor of $HOME (%s)", home);

      append_chain (refused, open_directory_followed (home), FALSE, "is $HOME", above);
    }
  for (guint list = 0; list < 2; list++)
    {
      const char *const *dirs = list == 0 ? system_dirs : system_trees;
      guint n = list == 0 ? G_N_ELEMENTS (system_dirs) : G_N_ELEMENTS (system_trees);

      for (guint i = 0; i < n; i++)
        {
          RefusedIdentity entry = { 0 };
          gboolean is_directory;
          int fd = open_directory_followed (dirs[i]);

          if (fd < 0)
            continue;
          if (dsh_root_identity_of_opened (fd, &entry.identity, &is_directory))
            {
              entry.why = g_strdup ("is a system directory");
              g_array_append_val (refused, entry);
            }
          close (fd);
        }
    }
  if (workspace_fd >= 0)
    {
      g_autofree char *above = g_strdup_printf ("is an ancestor of the workspace %s",
                                                workspace_root);

      append_chain (refused, fcntl (workspace_fd, F_DUPFD_CLOEXEC, 3), TRUE, NULL, above);
    }
  return refused;
}

/* Why the directory of that identity may not be a writable root although its path passed
 * root_refusal(): it is one that function refuses, reached by another path. NULL when not. */
static char *
identity_refusal (GArray *refused, const DshRootIdentity *identity)
{
  for (guint i = 0; i < refused->len; i++)
    {
      const RefusedIdentity *entry = &g_array_index (refused, RefusedIdentity, i);

      if (entry->identity.dev == identity->dev && entry->identity.ino == identity->ino)
        return g_strconcat (entry->why, " (reached by another path, a bind mount say)", NULL);
    }
  return NULL;
}

/* For a root no walk holds: is root (canonical) one of refused by identity? refused is taken
 * (with the workspace's ancestors) on the first call that needs it. */
static gboolean
refused_by_identity (GArray **refused, const char *workspace_root, const char *root)
{
  DshRootIdentity identity;
  gboolean is_directory = FALSE;
  g_autofree char *why = NULL;
  int fd = dsh_open_directory_no_symlinks (root, FALSE);

  if (fd < 0)
    return FALSE;
  if (!dsh_root_identity_of_opened (fd, &identity, &is_directory))
    {
      close (fd);
      return FALSE;
    }
  close (fd);
  if (*refused == NULL)
    {
      int workspace_fd = dsh_open_directory_no_symlinks (workspace_root, FALSE);

      *refused = refused_identities (workspace_fd, workspace_root);
      if (workspace_fd >= 0)
        close (workspace_fd);
    }
  why = identity_refusal (*refused, &identity);
  return why != NULL;
}

/* ---- the roots of a call ------------------------------------------------------------------- */

GStrv
dsh_roots_unpinned (const DshSandboxPolicy *policy)
{
  g_autoptr (GPtrArray) roots = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GArray) refused = NULL;
  const char *tmp, *tmpdir;

  /* Not pinned: the workspace root is the policy's own string, canonical already — resolving
   * it again would follow whatever was swapped in since. The temp directory is listed on its
   * own (mkstemp-family tools write there) unless it would widen the roots. */
  temp_areas (&tmp, &tmpdir);
  /* One that goes up (..) is a root kept as spelled, as dsh_workspace_root() keeps one that goes
   * up from a missing directory: it names no directory, and tidied it would name another. */
  if (has_no_dotdot (policy->workspace_root))
    g_ptr_array_add (roots, dsh_lexically_canonical (policy->workspace_root));
  {
    /* Through a symlink that could have been planted a temp root is left out: the fence and
     * the runners then refuse what would lie there. */
    gboolean tmp_planted = FALSE;
    gboolean tmpdir_planted = FALSE;
    g_autofree char *canonical_tmp = dsh_roots_unplanted_root (tmp, NULL, &tmp_planted);
    /* The same spelling resolves once. */
    g_autofree char *canonical_tmpdir =
      !g_path_is_absolute (tmpdir) ? NULL
      : g_str_equal (tmpdir, tmp)  ? (tmpdir_planted = tmp_planted, g_strdup (canonical_tmp))
                                   : dsh_roots_unplanted_root (tmpdir, NULL, &tmpdir_planted);
    gboolean tmp_added = !tmp_planted && !g_str_equal (canonical_tmp, "/");

    if (tmp_added)
      add_unique (roots, canonical_tmp);
    /* A temp directory that is /tmp itself, added already, needs no check. */
    if (canonical_tmpdir != NULL && !tmpdir_planted &&
        !(tmp_added && g_str_equal (canonical_tmpdir, canonical_tmp)))
      {
        g_autofree char *why = root_refusal (canonical_tmpdir, policy->workspace_root);

        if (why == NULL &&
            !refused_by_identity (&refused, policy->workspace_root, canonical_tmpdir))
          add_unique (roots, canonical_tmpdir);
      }
  }
  for (gsize i = 0; policy->extra_writable_roots != NULL && policy->extra_writable_roots[i];
       i++)
    {
      const char *extra = policy->extra_writable_roots[i];
      /* Not resolved here, so one that goes up is left out: tidied, a/missing/../b would be
       * a/b, which the path need not reach. */
      g_autofree char *root = g_path_is_absolute (extra) && has_no_dotdot (extra)
                                ? dsh_lexically_canonical (extra)
                                : NULL;
      g_autofree char *why = root != NULL ? root_refusal (root, policy->workspace_root) : NULL;

      if (root != NULL && why == NULL &&
          !refused_by_identity (&refused, policy->workspace_root, root))
        add_unique (roots, root);
    }
  g_ptr_array_add (roots, NULL);
  return (GStrv) g_ptr_array_steal (roots, NULL);
}

/* Why a root that did not resolve and goes up from there is refused: tidying its spelling
 * (ws/missing/../../x is x) would grant a directory the path does not reach. */
#define GOES_UP_FROM_MISSING \
  "goes up (..) from a directory that does not exist: it names no directory, and which one " \
  "it would name depends on what is made there"

/* Adds /tmp and the temp directory where their walks ended (a missing one keeps its spelling:
 * it matches nothing until it exists), unless one would widen the roots. */
static gboolean
add_temp_roots (GPtrArray *roots,
                const char *tmp,
                const Walk *tmp_walk,
                const char *tmpdir,
                const Walk *tmpdir_walk,
                const char *workspace_root,
                char **out_tmp_root,
                char **out_tmpdir_root,
                GError **error)
{
  g_autofree char *tmp_root = tmp_walk->resolved != NULL
                                ? dsh_lexically_canonical (tmp_walk->resolved)
                                : missing_root_spelling (tmp_walk, tmp);
  g_autofree char *tmpdir_root = tmpdir_walk->resolved != NULL
                                   ? dsh_lexically_canonical (tmpdir_walk->resolved)
                                   : missing_root_spelling (tmpdir_walk, tmpdir);
  g_autofree char *why = NULL;

  if (tmp_root == NULL)
    return refuse_temp_root (error, tmp, tmp, GOES_UP_FROM_MISSING);
  if (tmpdir_root == NULL)
    return refuse_temp_root (error, tmpdir, tmpdir, GOES_UP_FROM_MISSING);
  if (g_str_equal (tmp_root, "/"))
    return refuse_temp_root (error, tmp, tmp_root, "is /");
  /* A temp directory that is /tmp itself adds nothing, so nothing needs checking (nor $HOME
   * resolving). */
  if (!g_str_equal (tmpdir_root, tmp_root) &&
      (why = root_refusal (tmpdir_root, workspace_root)) != NULL)
    return refuse_temp_root (error, tmpdir, tmpdir_root, why);
  *out_tmp_root = g_strdup (tmp_root);
  *out_tmpdir_root = g_strdup (tmpdir_root);
  add_unique_take (roots, g_steal_pointer (&tmp_root));
  add_unique_take (roots, g_steal_pointer (&tmpdir_root));
  return TRUE;
}

/* Walks one extra root (as given) and adds where it ends, unless it would widen the roots. */
static gboolean
add_extra_root (GPtrArray *roots,
                const char *extra,
                Walk *walk,
                const WalkRules *rules,
                const char *workspace_root,
                GError **error)
{
  g_autofree char *root = NULL;
  g_autofree char *why = NULL;

  if (!g_path_is_absolute (extra))
    return dsh_roots_refuse_root (error, "extra writable root", extra, extra,
                                  "is not an absolute path");
  walk_path (extra, rules, walk);
  if (walk->moved)
    return dsh_roots_refuse_moved (error, "writable root", extra);
  if (walk->planted != NULL)
    return refuse_planted (error, extra, walk, walk->planted);
  root = walk->resolved != NULL ? dsh_lexically_canonical (walk->resolved)
                                : missing_root_spelling (walk, extra);
  if (root == NULL)
    return dsh_roots_refuse_root (error, "extra writable root", extra, extra,
                                  GOES_UP_FROM_MISSING);
  why = root_refusal (root, workspace_root);
  if (why != NULL)
    return dsh_roots_refuse_root (error, "extra writable root", extra, root, why);
  add_unique_take (roots, g_steal_pointer (&root));
  return TRUE;
}

/* Refuses a root reached through a symlink that lies inside one of roots (NULL-terminated). */
static gboolean
check_links_outside (const Walk *walk, const char *spelled, GPtrArray *roots, GError **error)
{
  for (guint i = 0; walk->links != NULL && i < walk->links->len; i++)
    {
      for (guint r = 0; roots->pdata[r] != NULL; r++)
        {
          if (dsh_path_is_beneath (walk->link_dirs->pdata[i], roots->pdata[r]))
            return refuse_planted (error, spelled, NULL, walk->links->pdata[i]);
        }
    }
  return TRUE;
}

/* The walk of walks or extra_walks that ended at root and still holds what it reached. */
static const Walk *
walk_reaching (const Walk *const *walks, guint n_walks, GArray *extra_walks, const char *root)
{
  for (guint w = 0; w < n_walks; w++)
    {
      if (walks[w]->has_fd && g_strcmp0 (walks[w]->resolved, root) == 0)
        return walks[w];
    }
  for (guint i = 0; i < extra_walks->len; i++)
    {
      const Walk *walk = &g_array_index (extra_walks, Walk, i);

      if (walk->has_fd && g_strcmp0 (walk->resolved, root) == 0)
        return walk;
    }
  return NULL;
}

/* A root of a call as the checks after its walk see it: the descriptor its walk holds
 * (borrowed) or one opened for them (owned), -1 with error when it could not be opened; and,
 * taken once from it, its identity. */
typedef struct {
  int fd;
  int error;
  gboolean owned;
  gboolean known;
  gboolean is_directory;
  DshRootIdentity identity;
} RootOpened;

/* The walks of the roots of a call: each walk's end is the root, and what it held open is what
 * is recorded as granted. */
gboolean
dsh_roots_resolve (const char *spelled_workspace,
                   const char *workspace_root,
                   const char *session_created,
                   const char *const *extra,
                   DshRootsResolveFlags flags,
                   GStrv *out_roots,
                   GError **error)
{
  gboolean record = (flags & DSH_ROOTS_RESOLVE_RECORD) != 0;
  g_autoptr (GPtrArray) roots = g_ptr_array_new_full (4, g_free);
  g_autoptr (DshRootGrants) grants = NULL;
  g_autofree char *grants_dir = NULL;
  g_autofree char *absolute = NULL;
  g_auto (Walk) workspace_walk = { 0 };
  g_auto (Walk) tmp_walk = { 0 };
  g_auto (Walk) tmpdir_walk = { 0 };
  g_autoptr (GArray) extra_walks = g_array_new (FALSE, TRUE, sizeof (Walk));
  const Walk *walks[3] = { &workspace_walk, &tmp_walk, &tmpdir_walk };
  const char *spelled[3];
  WalkRules rules = { 0 };
  const char *tmp, *tmpdir;
  guint n_roots;
  RootOpened *opened;
  g_autofree char *tmp_root = NULL;
  g_autofree char *tmpdir_root = NULL;
  gboolean ok;

  /* Only recording the workspace root checks that it is a directory. */
  g_return_val_if_fail (workspace_root != NULL || record, FALSE);

  if (!dsh_roots_check_workspace (workspace_root, error))
    return FALSE;
  temp_areas (&tmp, &tmpdir);
  if ((flags & DSH_ROOTS_RESOLVE_TEMP_ROOTS) == 0)
    tmp = tmpdir = NULL;
  else if (!g_path_is_absolute (tmpdir))
    {
      g_autofree char *valid = g_utf8_make_valid (tmpdir, -1);

      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_ROOT_REFUSED,
                   "the temp directory %s (TMPDIR) is not an absolute path; refusing to run the "
                   "command",
                   valid);
      return FALSE;
    }

  grants_dir = dsh_root_grants_default_dir ();
  grants = dsh_root_grants_open (grants_dir, error);
  if (grants == NULL)
    return FALSE;
  rules.grants = grants;

  /* As spelled, made absolute but not normalised: ".." must be walked the kernel's way. This
   * walk is the resolution: its end is the string every later step receives. */
  absolute = dsh_absolute_path_as_spelled (spelled_workspace);
  rules.not_before = unix_us_of (session_created);
  walk_path (absolute, &rules, &workspace_walk);
  rules.not_before = 0;
  if (workspace_walk.moved)
    return dsh_roots_refuse_moved (error, "workspace", spelled_workspace);
  if (workspace_walk.planted != NULL)
    return refuse_planted (error, spelled_workspace, &workspace_walk, workspace_walk.planted);
  if (workspace_root == NULL)
    {
      /* No earlier resolution: where this walk ends is the workspace root, an existing
       * directory (its record below says whether it is one), valid UTF-8, not /. */
      if (workspace_walk.resolved == NULL || !workspace_walk.has_fd ||
          !g_utf8_validate (workspace_walk.resolved, -1, NULL))
        return dsh_roots_refuse_moved (error, "workspace", spelled_workspace);
      workspace_root = workspace_walk.resolved;
      if (!dsh_roots_check_workspace (workspace_root, error))
        return FALSE;
    }
  /* The caller resolved workspace_root a moment ago; this walk must land in the same place, or
   * something is moving it right now. */
  else if (workspace_walk.resolved != NULL &&
           !g_str_equal (workspace_walk.resolved, workspace_root))
    return dsh_roots_refuse_moved (error, "workspace", spelled_workspace);

  spelled[0] = spelled_workspace;
  spelled[1] = tmp;
  spelled[2] = tmpdir;
  if (tmp != NULL)
    {
      walk_path (tmp, &rules, &tmp_walk);
      /* The same spelling walks the same way: one walk answers for both. */
      if (g_str_equal (tmpdir, tmp))
        walks[2] = &tmp_walk;
      else
        walk_path (tmpdir, &rules, &tmpdir_walk);
    }
  for (guint i = 1; tmp != NULL && i < G_N_ELEMENTS (walks); i++)
    {
      if (walks[i]->moved)
        return dsh_roots_refuse_moved (error, "writable root", spelled[i]);
      if (walks[i]->planted != NULL)
        return refuse_planted (error, spelled[i], walks[i], walks[i]->planted);
    }

  g_ptr_array_add (roots, g_strdup (workspace_root));
  if (tmp != NULL &&
      !add_temp_roots (roots, tmp, &tmp_walk, tmpdir, walks[2], workspace_root, &tmp_root,
                       &tmpdir_root, error))
    return FALSE;
  g_array_set_clear_func (extra_walks, (GDestroyNotify) walk_clear);
  g_array_set_size (extra_walks, extra != NULL ? g_strv_length ((char **) extra) : 0);
  for (guint i = 0; i < extra_walks->len; i++)
    {
      if (!add_extra_root (roots, extra[i], &g_array_index (extra_walks, Walk, i), &rules,
                           workspace_root, error))
        return FALSE;
    }
  g_ptr_array_add (roots, NULL);

  /* Now that the roots are known: a symlink followed on the way to any of them that lies inside
   * one of them is what this call's own commands could plant for the next one. */
  for (guint w = 0; w < G_N_ELEMENTS (walks); w++)
    {
      if (!check_links_outside (walks[w], spelled[w], roots, error))
        return FALSE;
    }
  for (guint i = 0; i < extra_walks->len; i++)
    {
      if (!check_links_outside (&g_array_index (extra_walks, Walk, i), extra[i], roots, error))
        return FALSE;
    }

  if (!dsh_root_grants_check_out_of_reach (grants, (const char *const *) roots->pdata, error))
    return FALSE;
  if (!dsh_roots_check_own_code ((const char *const *) roots->pdata, tmp_root, tmpdir_root,
                                 error))
    return FALSE;
  /* Each root as its walk holds it, else opened once here (-1 and its errno when it cannot
   * be): what the identity check and the record below both look at. */
  n_roots = roots->len - 1;
  opened = g_new0 (RootOpened, n_roots);
  for (guint r = 0; r < n_roots; r++)
    {
      const Walk *reached = walk_reaching (walks, G_N_ELEMENTS (walks), extra_walks,
                                           roots->pdata[r]);

      opened[r].owned = reached == NULL;
      opened[r].fd = reached != NULL ? reached->fd
                                     : dsh_open_directory_no_symlinks (roots->pdata[r], FALSE);
      opened[r].error = opened[r].fd < 0 ? errno : 0;
      opened[r].known = opened[r].fd >= 0 &&
                        dsh_root_identity_of_opened (opened[r].fd, &opened[r].identity,
                                                     &opened[r].is_directory);
    }
  ok = TRUE;
  /* A root that cannot be opened reaches nothing through it. */
  for (guint r = 0; ok && r < n_roots; r++)
    ok = !opened[r].known || dsh_root_grants_check_identity_out_of_reach (
                               grants, roots->pdata[r], &opened[r].identity, error);
  /* What root_refusal() refused by path, refused by identity too: a bind mount gives $HOME or a
   * system directory an innocent path. Only a temp directory other than /tmp and the extra
   * roots are checked (as by path), so the usual call, with neither, takes no identities. */
  {
    g_autoptr (GArray) refused = NULL;

    for (guint r = 1; ok && r < n_roots; r++)
      {
        const char *root = roots->pdata[r];
        g_autofree char *why = NULL;
        gboolean is_tmpdir = tmpdir_root != NULL && g_str_equal (root, tmpdir_root);

        if (!opened[r].known || (tmp_root != NULL && g_str_equal (root, tmp_root)))
          continue;
        if (refused == NULL)
          refused = refused_identities (opened[0].known ? opened[0].fd : -1, workspace_root);
        why = identity_refusal (refused, &opened[r].identity);
        if (why == NULL)
          continue;
        if (is_tmpdir)
          ok = refuse_temp_root (error, tmpdir, root, why);
        else
          {
            /* The extra root as given that resolved here. */
            const char *spelled_extra = root;

            for (guint i = 0; i < extra_walks->len; i++)
              {
                const Walk *walk = &g_array_index (extra_walks, Walk, i);
                g_autofree char *reached = dsh_lexically_canonical (
                  walk->resolved != NULL ? walk->resolved : extra[i]);

                if (g_str_equal (reached, root))
                  {
                    spelled_extra = extra[i];
                    break;
                  }
              }
            ok = dsh_roots_refuse_root (error, "extra writable root", spelled_extra, root, why);
          }
      }
  }
  if (ok && record)
    {
      /* A root that is missing now is not handed down: nothing recorded its grant, so if it
       * appeared before the runner opens it (made by the user or a tool), a symlink its command
       * planted there would pass for the user's own in later calls. It matches nothing in this
       * call, and is recorded by the first call that finds it there. */
      g_autoptr (GPtrArray) present = g_ptr_array_new_full (roots->len, g_free);

      for (guint r = 0; ok && r < n_roots; r++)
        {
          if (opened[r].fd < 0 && r > 0 &&
              (opened[r].error == ENOENT || opened[r].error == ENOTDIR))
            continue;
          ok = opened[r].known ? dsh_root_grants_record_opened (grants, roots->pdata[r],
                                                                &opened[r].identity,
                                                                opened[r].is_directory, error)
               : opened[r].fd >= 0 ? dsh_root_grants_record_at (grants, roots->pdata[r],
                                                                opened[r].fd, error)
                                   : dsh_root_grants_record (grants, roots->pdata[r], error);
          g_ptr_array_add (present, g_strdup (roots->pdata[r]));
        }
      g_ptr_array_add (present, NULL);
      g_ptr_array_unref (roots);
      roots = g_steal_pointer (&present);
    }
  for (guint r = 0; r < n_roots; r++)
    if (opened[r].owned && opened[r].fd >= 0)
      close (opened[r].fd);
  g_free (opened);
  if (!ok)
    return FALSE;
  *out_roots = (GStrv) g_ptr_array_steal (roots, NULL);
  return TRUE;
}

gboolean
dsh_roots_pin_walked (DshSandboxPolicy *policy, const char *spelled_workspace, GError **error)
{
  GStrv roots = NULL;

  g_return_val_if_fail (policy->mode == DSH_SANDBOX_MODE_WORKSPACE_WRITE, FALSE);
  g_return_val_if_fail (g_path_is_absolute (spelled_workspace), FALSE);

  if (!dsh_roots_resolve (spelled_workspace, NULL, NULL,
                          (const char *const *) policy->extra_writable_roots,
                          DSH_ROOTS_RESOLVE_RECORD | DSH_ROOTS_RESOLVE_TEMP_ROOTS, &roots, error))
    return FALSE;
  g_free (policy->workspace_root);
  policy->workspace_root = g_strdup (roots[0]);
  g_strfreev (policy->writable_roots);
  policy->writable_roots = roots;
  return TRUE;
}

/**
 * dsh_roots_check_session_cwd:
 * @cwd: the session's working directory
 * @created: the session's creation time (ISO 8601)
 * @error: return location for a #GError
 *
 * Refuses a session whose working directory is reached through a symlink made since @created, which
 * is what a command of an enclosing workspace would plant to move this session's workspace.
 *
 * Returns: %TRUE when there is none; %FALSE with %DSH_SANDBOX_ERROR_ROOT_REFUSED otherwise
 *
 * Since: 0.1
 */
gboolean
dsh_roots_check_session_cwd (const char *cwd, const char *created, GError **error)
{
  g_auto (Walk) walk = { 0 };
  WalkRules rules = { 0 };

  g_return_val_if_fail (cwd != NULL, FALSE);

  rules.not_before = unix_us_of (created);
  /* No creation time to compare with: nothing can be told apart, so nothing is refused here. */
  if (rules.not_before == 0 || !g_path_is_absolute (cwd))
    return TRUE;
  walk_path (cwd, &rules, &walk);
  if (walk.planted != NULL)
    return refuse_planted (error, cwd, &walk, walk.planted);
  return TRUE;
}

/* An object of this file's: the address dladdr is asked about. */
static const char own_code_anchor = 1;

/* The shared library this code is in, canonical, or NULL: none when it is linked into the
 * executable (which is the command's to name, and a harness's interpreter is no code of ours). */
char *
dsh_roots_own_library_file (gboolean *out_uninstalled)
{
  Dl_info info = { 0 };
  g_autofree char *library = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *build_dir = NULL;
  struct stat library_st, exe_st;

  if (dladdr (&own_code_anchor, &info) == 0 || info.dli_fname == NULL ||
      !g_path_is_absolute (info.dli_fname))
    return NULL;
  library = realpath (info.dli_fname, NULL);
  if (library == NULL || stat (library, &library_st) != 0)
    return NULL;
  /* glibc names the executable by its argv[0]; its identity tells it apart. */
  if (stat ("/proc/self/exe", &exe_st) == 0 && exe_st.st_dev == library_st.st_dev &&
      exe_st.st_ino == library_st.st_ino)
    return NULL;
#ifdef __APPLE__
  if (!g_str_has_suffix (library, ".dylib"))
    return NULL;
#endif
  dir = g_path_get_dirname (library);
  build_dir = realpath (DSH_BUILD_LIBRARY_DIR, NULL);
  *out_uninstalled = build_dir != NULL && g_str_equal (dir, build_dir);
  return g_steal_pointer (&library);
}
