/* dsh-root-grants.c — the record of granted writable roots: one small file per granted
 * directory, named by its identity (under each name that a later mount, which may change the
 * device number, or an overlay's copy-up, which changes the birth time, or both, leave as it
 * is), holding the time of its first grant and its path then.
 *
 * One file per directory and name keeps every step a few system calls: a lookup (needed only
 * when a walk meets a symlink) opens each name until one is there, a grant creates each missing
 * name with O_EXCL, and concurrent calls never rewrite each other's entries.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define _GNU_SOURCE /* statx */

#include "dsh-root-grants-private.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#ifdef __linux__
#include <sys/vfs.h>
#else
#include <sys/param.h>
#include <sys/mount.h> /* statfs on macOS and the BSDs */
#endif
#include <unistd.h>

#include "dsh-error.h"
#include "dsh-roots.h"
#include "dsh-roots-private.h"

/* An opened record directory, shared by the calls that found it still in place. */
typedef struct {
  int refs;
  int fd;
  /* Who fd is: an open descriptor's directory never changes. */
  dev_t dev;
  ino_t ino;
  /* As the caller named it. */
  char *spelled;
  /* The identities of the directory and each one above it up to /, asked once (under
   * chain_lock): a root that is one of them holds the record, by whatever path. */
  GArray *chain;
} RecordDir;

static GMutex chain_lock;

struct _DshRootGrants {
  RecordDir *record;
  /* Borrowed from record. */
  int dir_fd;
  /* Canonical, for the reach check and for messages. */
  char *dir;
};

/* The record this process opened last, kept open: a later call takes it again after one stat
 * of its path says it is still that very directory, still private to this user. Its canonical
 * path is read again from the descriptor each time, so a move is seen too. */
static GMutex last_lock;
static RecordDir *last_record;

static RecordDir *
record_ref (RecordDir *record)
{
  g_atomic_int_inc (&record->refs);
  return record;
}

static void
record_unref (RecordDir *record)
{
  if (record == NULL || !g_atomic_int_dec_and_test (&record->refs))
    return;
  if (record->fd >= 0)
    close (record->fd);
  g_free (record->spelled);
  if (record->chain != NULL)
    g_array_unref (record->chain);
  g_free (record);
}

/* The kernel's own name of the directory open as fd, or NULL. */
static char *
path_of_fd (int fd)
{
#ifdef __linux__
  char link[32];
  g_autofree char *target = NULL;

  g_snprintf (link, sizeof link, "/proc/self/fd/%d", fd);
  target = g_file_read_link (link, NULL);

  if (target == NULL || !g_path_is_absolute (target) || g_str_has_suffix (target, " (deleted)"))
    return NULL;
  return g_steal_pointer (&target);
#else
  return NULL;
#endif
}

/* Is st the kept record's directory, still a real one of this user that nobody else can
 * write? */
static gboolean
is_kept_directory (const RecordDir *record, const struct stat *st)
{
  return S_ISDIR (st->st_mode) && st->st_uid == getuid () && (st->st_mode & 077) == 0 &&
         record->dev == st->st_dev && record->ino == st->st_ino;
}

/* The canonical path of the kept record when dir, free of symlinks and "..", still names it:
 * then it is dir itself, lexically normalised (no readlink of the descriptor needed). NULL
 * when that cannot be told so. */
static char *
path_without_symlinks (const RecordDir *record, const char *dir)
{
#ifdef __linux__
  struct stat st;
  gboolean same;
  int fd;

  if (strstr (dir, "..") != NULL)
    return NULL;
  fd = dsh_open_directory_no_symlinks (dir, FALSE);
  if (fd < 0)
    return NULL;
  same = fstat (fd, &st) == 0 && is_kept_directory (record, &st);
  close (fd);
  return same ? dsh_lexically_canonical (dir) : NULL;
#else
  return NULL;
#endif
}

/* The kept record, when dir still names it: the same directory, a real one of this user that
 * nobody else can write, with no symlink in its last component. */
static DshRootGrants *
take_kept (const char *dir)
{
  RecordDir *record = NULL;
  DshRootGrants *grants;
  struct stat st;
  char *canonical;

  g_mutex_lock (&last_lock);
  if (last_record != NULL && g_str_equal (last_record->spelled, dir))
    record = record_ref (last_record);
  g_mutex_unlock (&last_lock);
  if (record == NULL)
    return NULL;
  /* A path with a symlink on the way is asked the long way: where the descriptor is now. */
  if ((canonical = path_without_symlinks (record, dir)) == NULL &&
      (fstatat (AT_FDCWD, dir, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
       !is_kept_directory (record, &st) || (canonical = path_of_fd (record->fd)) == NULL))
    {
      record_unref (record);
      return NULL;
    }
  grants = g_new0 (DshRootGrants, 1);
  grants->record = record;
  grants->dir_fd = record->fd;
  grants->dir = canonical;
  return grants;
}

static void
keep (RecordDir *record)
{
  RecordDir *old;

  g_mutex_lock (&last_lock);
  old = last_record;
  last_record = record_ref (record);
  g_mutex_unlock (&last_lock);
  record_unref (old);
}

static void give_entries_stable_names (DshRootGrants *grants);
static gboolean create_entry (DshRootGrants *grants, const char *name, const char *text,
                              gboolean *created, GError **error);

/* The record's directory itself, never a link to one. */
#define RECORD_DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

DshRootGrants *
dsh_root_grants_open (const char *dir, GError **error)
{
  g_autoptr (DshRootGrants) grants = NULL;
  RecordDir *record;
  struct stat st;

  if (!g_path_is_absolute (dir))
    {
      dsh_root_grants_refuse (error, dir, "is not an absolute path");
      return NULL;
    }
  grants = take_kept (dir);
  if (grants != NULL)
    return g_steal_pointer (&grants);

  record = g_new0 (RecordDir, 1);
  record->refs = 1;
  record->fd = -1;
  record->spelled = g_strdup (dir);
  grants = g_new0 (DshRootGrants, 1);
  grants->record = record;
  grants->dir_fd = -1;
  /* Only a real directory of our own that nobody else can write is believed. It is there
   * after the first call: creating it is only tried when it cannot be opened, and then as
   * before, so that what is refused is refused in the same words. */
  record->fd = grants->dir_fd = open (dir, RECORD_DIR_FLAGS);
  if (grants->dir_fd < 0)
    {
      if (g_mkdir_with_parents (dir, 0700) != 0)
        {
          g_autofree char *why = g_strdup_printf ("cannot be created (%s)", g_strerror (errno));

          dsh_root_grants_refuse (error, dir, why);
          return NULL;
        }
      record->fd = grants->dir_fd = open (dir, RECORD_DIR_FLAGS);
    }
  if (grants->dir_fd < 0 || fstat (grants->dir_fd, &st) != 0 || !S_ISDIR (st.st_mode))
    {
      dsh_root_grants_refuse (error, dir, "is not a directory");
      return NULL;
    }
  if (st.st_uid != getuid () || (st.st_mode & 077) != 0)
    {
      dsh_root_grants_refuse (error, dir, "is not a private directory of this user (mode 0700)");
      return NULL;
    }
  record->dev = st.st_dev;
  record->ino = st.st_ino;
  grants->dir = dsh_canonical_path (dir);
  give_entries_stable_names (grants);
  keep (record);
  return g_steal_pointer (&grants);
}

const char *
dsh_root_grants_dir (DshRootGrants *grants)
{
  return grants->dir;
}

static gboolean identity_and_mode_at (int dir_fd, const char *path, DshRootIdentity *identity,
                                      mode_t *out_mode, gint64 *out_changed_us);

/* The record's directory and every one above it, climbing "..": through a bind mount, a root
 * may name one of them by another path (a container's volume holding the state directory). */
static GArray *
record_chain (RecordDir *record)
{
  GArray *chain;

  g_mutex_lock (&chain_lock);
  if (record->chain != NULL)
    {
      chain = g_array_ref (record->chain);
      g_mutex_unlock (&chain_lock);
      return chain;
    }
  chain = dsh_root_identity_chain (fcntl (record->fd, F_DUPFD_CLOEXEC, 3));
  record->chain = g_array_ref (chain);
  g_mutex_unlock (&chain_lock);
  return chain;
}

gboolean
dsh_root_grants_check_identity_out_of_reach (DshRootGrants *grants,
                                             const char *root,
                                             const DshRootIdentity *identity,
                                             GError **error)
{
  g_autoptr (GArray) chain = record_chain (grants->record);

  for (guint i = 0; i < chain->len; i++)
    {
      const DshRootIdentity *id = &g_array_index (chain, DshRootIdentity, i);

      if (id->dev == identity->dev && id->ino == identity->ino)
        {
          g_autofree char *shown = g_utf8_make_valid (root, -1);
          g_autofree char *why = g_strdup_printf (
            "is reached through the writable root %s (%s), where a confined command could "
            "erase it",
            shown, i == 0 ? "the record's own directory by another path"
                          : "a directory above it by another path, a bind mount say");

          return dsh_root_grants_refuse (error, grants->dir, why);
        }
    }
  return TRUE;
}

void
dsh_root_grants_free (DshRootGrants *grants)
{
  if (grants == NULL)
    return;
  record_unref (grants->record);
  g_free (grants->dir);
  g_free (grants);
}

/* How many names one entry has at most (entry_names()). */
#define MAX_ENTRY_NAMES 4

/* The name of the entry that finds the directory again whatever device number its file system
 * has then: a number the kernel hands out at each mount (an overlay, a btrfs subvolume, a loop
 * device, a disk found in another order at boot), where the inode and its birth time stay. Two
 * file systems cloned from one image share such names: a grant of one then counts for both,
 * refusing more, never less. Without a birth time the inode alone would name directories of
 * every file system: the entry keeps the name with the device number
 * (dsh_root_grants_entry_name()) and the one with the file system's id (fsid_entry_name()). */
static gboolean
stable_entry_name (const DshRootIdentity *identity, char name[DSH_ROOT_GRANTS_ENTRY_NAME_SIZE])
{
  DshRootIdentity without_device = *identity;

  if (identity->birth_ns == 0)
    return FALSE;
  /* "i-INO-BIRTH": where the device number would be, a letter no hexadecimal number has. */
  without_device.dev = 0;
  dsh_root_grants_entry_name (&without_device, name);
  name[0] = 'i';
  return TRUE;
}

/* On an overlay the birth time may not stay the directory's: copying a directory up from its
 * lower layer, as it does when a command first writes in it, keeps its inode number and device
 * but gives it the upper copy's birth time. There the entry is also named "d-DEV-INO-0",
 * without it: a reused inode number then reads as granted, refusing more, never less. (Only
 * there: on a tmpfs, whose device numbers the next boot hands out again to others, such names
 * would make directories that were never granted read as granted.) */
static gboolean
device_entry_name (const DshRootIdentity *identity, char name[DSH_ROOT_GRANTS_ENTRY_NAME_SIZE])
{
  DshRootIdentity without_birth = *identity;
  char plain[DSH_ROOT_GRANTS_ENTRY_NAME_SIZE];

  if (!identity->birth_may_change || identity->birth_ns == 0)
    return FALSE;
  without_birth.birth_ns = 0;
  dsh_root_grants_entry_name (&without_birth, plain);
  g_snprintf (name, DSH_ROOT_GRANTS_ENTRY_NAME_SIZE, "d-%s", plain);
  return TRUE;
}

/* Where a mount may change the device number and nothing else names the directory for sure
 * (an overlay copied up and mounted again, as a restarted container's is; a file system without
 * birth times, such as NFS, mounted again), the entry is also named "o-FSID-INO-0", by the file
 * system's own id and the inode, which both stay. */
static gboolean
fsid_entry_name (const DshRootIdentity *identity, char name[DSH_ROOT_GRANTS_ENTRY_NAME_SIZE])
{
  DshRootIdentity by_fsid = *identity;
  char plain[DSH_ROOT_GRANTS_ENTRY_NAME_SIZE];

  if (identity->fsid == 0)
    return FALSE;
  by_fsid.dev = identity->fsid;
  by_fsid.birth_ns = 0;
  dsh_root_grants_entry_name (&by_fsid, plain);
  g_snprintf (name, DSH_ROOT_GRANTS_ENTRY_NAME_SIZE, "o-%s", plain);
  return TRUE;
}

/* Every name the entry of identity has, in the order a lookup asks them: the one that survives
 * a new device number, the one by the file system's id (on an overlay, or without a birth time),
 * on an overlay the one that survives a new birth time, and the one with all three, which
 * earlier versions read and wrote alone. Returns how many. */
static guint
entry_names (const DshRootIdentity *identity,
             char names[MAX_ENTRY_NAMES][DSH_ROOT_GRANTS_ENTRY_NAME_SIZE])
{
  guint n = 0;

  if (stable_entry_name (identity, names[n]))
    n++;
  if (fsid_entry_name (identity, names[n]))
    n++;
  if (device_entry_name (identity, names[n]))
    n++;
  dsh_root_grants_entry_name (identity, names[n++]);
  return n;
}

/* The entry's first bytes into text (NUL-terminated): their length, 0 for none, -1 with errno
 * when the entry cannot be opened. */
static ssize_t
read_entry (DshRootGrants *grants, const char *name, char text[64])
{
  ssize_t n;
  int fd = openat (grants->dir_fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);

  memset (text, 0, 64);
  if (fd < 0)
    return -1;
  n = read (fd, text, 63);
  close (fd);
  /* Read but unreadable (a directory, say): granted since ever. */
  return MAX (n, 0);
}

/* Present once every entry with a birth time also has its name without the device. */
#define STABLE_NAMES_MARKER "stable-names"

/* The identity an entry's name (dsh_root_grants_entry_name()) spells; FALSE for another name. */
static gboolean
identity_of_entry_name (const char *name, DshRootIdentity *identity)
{
  g_auto (GStrv) parts = g_strsplit (name, "-", 4);
  guint64 values[3];

  if (g_strv_length (parts) != 3)
    return FALSE;
  for (guint i = 0; i < 3; i++)
    {
      if (!g_ascii_isxdigit (parts[i][0]) ||
          !g_ascii_string_to_unsigned (parts[i], 16, 0, G_MAXUINT64, &values[i], NULL))
        return FALSE;
    }
  identity->dev = values[0];
  identity->ino = values[1];
  identity->birth_ns = (gint64) values[2];
  /* Which file system it was on is not in the name: only the name without the device. */
  identity->birth_may_change = FALSE;
  identity->fsid = 0;
  return TRUE;
}

/* A record written before entries had stable names holds each grant under its device number
 * and birth time then only: once, each such entry gets its name without the device too, with
 * the earliest time of any entry of that directory, so that a grant made before this version
 * still counts after its file system comes back under another device number. Best effort: a
 * record that cannot be written is tried again at its next opening (its grants still count
 * where the device number stayed). */
static void
give_entries_stable_names (DshRootGrants *grants)
{
  g_autoptr (GHashTable) earliest = NULL;
  GHashTableIter iter;
  gpointer name, text;
  gboolean complete = TRUE;
  gboolean any = FALSE;
  struct dirent *entry;
  struct stat st;
  DIR *dir;
  int fd;

  if (fstatat (grants->dir_fd, STABLE_NAMES_MARKER, &st, AT_SYMLINK_NOFOLLOW) == 0 ||
      (fd = openat (grants->dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
    return;
  if ((dir = fdopendir (fd)) == NULL)
    {
      close (fd);
      return;
    }
  earliest = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  while ((entry = readdir (dir)) != NULL)
    {
      char names[MAX_ENTRY_NAMES][DSH_ROOT_GRANTS_ENTRY_NAME_SIZE];
      DshRootIdentity identity;
      guint n_names;
      char found[64];

      if (!identity_of_entry_name (entry->d_name, &identity))
        continue;
      any = TRUE;
      /* An entry that cannot be read counts since ever, as a lookup reads it. */
      if (read_entry (grants, entry->d_name, found) < 0)
        found[0] = '\0';
      /* Every name but the last, the one it has. */
      n_names = entry_names (&identity, names);
      for (guint i = 0; i + 1 < n_names; i++)
        {
          const char *known = g_hash_table_lookup (earliest, names[i]);

          if (known == NULL || dsh_root_grants_entry_since (found, (gssize) strlen (found)) <
                                 dsh_root_grants_entry_since (known, (gssize) strlen (known)))
            g_hash_table_insert (earliest, g_strdup (names[i]), g_strdup (found));
        }
    }
  closedir (dir);
  g_hash_table_iter_init (&iter, earliest);
  while (g_hash_table_iter_next (&iter, &name, &text))
    complete = create_entry (grants, name, text, NULL, NULL) && complete;
  /* An empty record is left as it is: nothing in it needs another name yet. */
  if (any && complete &&
      (fd = openat (grants->dir_fd, STABLE_NAMES_MARKER,
                    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)) >= 0)
    close (fd);
}

gboolean
dsh_root_grants_lookup (DshRootGrants *grants, const DshRootIdentity *identity, gint64 *out_since)
{
  char names[MAX_ENTRY_NAMES][DSH_ROOT_GRANTS_ENTRY_NAME_SIZE];
  guint n_names = entry_names (identity, names);
  char text[64];
  ssize_t n = -1;

  for (guint i = 0; i < n_names && n < 0; i++)
    {
      n = read_entry (grants, names[i], text);
      /* Not granted under this name; any other failure reads as granted since ever. */
      if (n < 0 && errno != ENOENT)
        {
          *out_since = 0;
          return TRUE;
        }
    }
  if (n < 0)
    {
      *out_since = 0;
      return FALSE;
    }
  *out_since = dsh_root_grants_entry_since (text, n);
  return TRUE;
}

gboolean
dsh_root_identity_of_path (const char *path, DshRootIdentity *identity)
{
  return dsh_root_identity_at (AT_FDCWD, path, identity, NULL, NULL);
}

#ifndef OVERLAYFS_SUPER_MAGIC
#define OVERLAYFS_SUPER_MAGIC 0x794c7630
#endif

/* The type and id of the file system path below dir_fd (dir_fd itself for "") is on. Beneath a
 * descriptor, the file system of the descriptor is asked: a name beneath it is on another only
 * at a mount point. */
static gboolean
file_system_of (int dir_fd, const char *path, long *type, guint64 *fsid)
{
  struct statfs fs;
  int result = *path == '\0' || dir_fd != AT_FDCWD ? fstatfs (dir_fd, &fs) : statfs (path, &fs);
  guint32 halves[2];

  if (result != 0)
    return FALSE;
  G_STATIC_ASSERT (sizeof fs.f_fsid == sizeof halves);
  memcpy (halves, &fs.f_fsid, sizeof halves);
  *type = (long) fs.f_type;
  *fsid = ((guint64) halves[0] << 32) | halves[1];
  return TRUE;
}

/* The identity of path below dir_fd (dir_fd itself for ""), never following a symlink, and its
 * mode; *out_changed_us (nullable) its ctime. */
static gboolean
identity_and_mode_at (int dir_fd, const char *path, DshRootIdentity *identity, mode_t *out_mode,
                      gint64 *out_changed_us)
{
#ifdef STATX_BTIME
  int flags = *path == '\0' ? AT_EMPTY_PATH : AT_SYMLINK_NOFOLLOW;
  struct statx stx;

  if (statx (dir_fd, path, flags, STATX_BASIC_STATS | STATX_BTIME, &stx) != 0)
    return FALSE;
  identity->dev = ((guint64) stx.stx_dev_major << 32) | stx.stx_dev_minor;
  identity->ino = stx.stx_ino;
  identity->birth_ns = (stx.stx_mask & STATX_BTIME) != 0
                         ? (gint64) stx.stx_btime.tv_sec * 1000000000 + stx.stx_btime.tv_nsec
                         : 0;
  identity->birth_may_change = FALSE;
  identity->fsid = 0;
  /* An overlay has no device of its own: only such a device, or one without birth times, is
   * asked what it is. */
  if (stx.stx_dev_major == 0 || identity->birth_ns == 0)
    {
      long type;
      guint64 fsid;

      if (file_system_of (dir_fd, path, &type, &fsid))
        {
          identity->birth_may_change = stx.stx_dev_major == 0 && type == OVERLAYFS_SUPER_MAGIC;
          if (identity->birth_may_change || identity->birth_ns == 0)
            identity->fsid = fsid;
        }
    }
  *out_mode = stx.stx_mode;
  if (out_changed_us != NULL)
    *out_changed_us = (gint64) stx.stx_ctime.tv_sec * G_USEC_PER_SEC +
                      stx.stx_ctime.tv_nsec / 1000;
#else
  struct stat st;

  if ((*path == '\0' ? fstat (dir_fd, &st) : fstatat (dir_fd, path, &st, AT_SYMLINK_NOFOLLOW)) !=
      0)
    return FALSE;
  identity->dev = st.st_dev;
  identity->ino = st.st_ino;
  identity->birth_ns = 0;
  identity->birth_may_change = FALSE;
  {
    long type;

    if (!file_system_of (dir_fd, path, &type, &identity->fsid))
      identity->fsid = 0;
  }
  *out_mode = st.st_mode;
  if (out_changed_us != NULL)
    *out_changed_us = (gint64) st.st_ctime * G_USEC_PER_SEC;
#endif
  return TRUE;
}

/* The identity of what fd is open on, and whether it is a directory, in one call. */
GArray *
dsh_root_identity_chain (int fd)
{
  GArray *chain = g_array_new (FALSE, FALSE, sizeof (DshRootIdentity));

  for (guint depth = 0; fd >= 0 && depth < 4096; depth++)
    {
      DshRootIdentity id;
      mode_t mode;
      int parent;

      if (!identity_and_mode_at (fd, "", &id, &mode, NULL))
        break;
      if (chain->len > 0 && g_array_index (chain, DshRootIdentity, chain->len - 1).dev == id.dev &&
          g_array_index (chain, DshRootIdentity, chain->len - 1).ino == id.ino)
        break; /* "/" is its own parent */
      g_array_append_val (chain, id);
      /* With O_PATH an ancestor this user cannot list still has an identity. */
#ifdef O_PATH
      parent = openat (fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
#else
      parent = openat (fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
#endif
      close (fd);
      fd = parent;
    }
  if (fd >= 0)
    close (fd);
  return chain;
}

gboolean
dsh_root_identity_of_opened (int fd, DshRootIdentity *identity, gboolean *out_is_directory)
{
  mode_t mode;

  if (!identity_and_mode_at (fd, "", identity, &mode, NULL))
    return FALSE;
  *out_is_directory = S_ISDIR (mode);
  return TRUE;
}

/* Creates the entry name holding text unless there is one already. */
static gboolean
create_entry (DshRootGrants *grants, const char *name, const char *text, gboolean *created,
              GError **error)
{
  gsize len = strlen (text);
  int fd;

  fd = openat (grants->dir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0 && errno == EEXIST)
    return TRUE;
  if (fd >= 0 && created != NULL)
    *created = TRUE;
  if (fd < 0)
    {
      g_autofree char *why = g_strdup_printf ("cannot be written (%s)", g_strerror (errno));

      return dsh_root_grants_refuse (error, grants->dir, why);
    }
  /* A torn entry reads as granted since ever: refusing more, never less. */
  if (write (fd, text, len) != (ssize_t) len)
    {
      close (fd);
      return dsh_root_grants_refuse (error, grants->dir, "cannot be written");
    }
  close (fd);
  return TRUE;
}

/* Creates the entries of the directory with this identity unless they are there already, each
 * under every name it has (entry_names()). One that is there already (an earlier version's, or
 * one made before the birth time or the device number changed) gives its time to the others. */
static gboolean
record_identity (DshRootGrants *grants, const DshRootIdentity *identity, const char *root,
                 GError **error)
{
  char names[MAX_ENTRY_NAMES][DSH_ROOT_GRANTS_ENTRY_NAME_SIZE];
  guint n_names = entry_names (identity, names);
  gboolean missing[MAX_ENTRY_NAMES] = { FALSE };
  gboolean created[MAX_ENTRY_NAMES] = { FALSE };
  g_autofree char *text = NULL;
  gboolean any_missing = FALSE;
  struct stat st;

  /* Most roots were granted before: a lookup says so without the creating open's locks. */
  for (guint i = 0; i < n_names; i++)
    {
      missing[i] = fstatat (grants->dir_fd, names[i], &st, AT_SYMLINK_NOFOLLOW) != 0;
      any_missing = any_missing || missing[i];
    }
  if (!any_missing)
    return TRUE;
  for (guint i = 0; i < n_names && text == NULL; i++)
    {
      char earlier[64];

      if (!missing[i] && read_entry (grants, names[i], earlier) >= 0)
        text = g_strdup (earlier);
    }
  if (text == NULL)
    text = dsh_root_grants_entry_text (root);
  /* All with one time: the first grant's, wherever it was found. */
  for (guint i = n_names; i > 0; i--)
    {
      if (missing[i - 1] && !create_entry (grants, names[i - 1], text, &created[i - 1], error))
        return FALSE;
    }
  /* On disk before the command runs: a grant lost in a crash would let a symlink the command
   * planted beneath the root widen a call made after the reboot. Where that cannot be promised
   * the call is refused and the names it made go again, so that a later call tries anew
   * (nothing ran with them; one a concurrent call made is that call's to sync). */
  if (fsync (grants->dir_fd) != 0 && errno != EINVAL)
    {
      g_autofree char *why = g_strdup_printf ("cannot be written to disk (%s)",
                                              g_strerror (errno));

      for (guint i = 0; i < n_names; i++)
        if (created[i])
          (void) unlinkat (grants->dir_fd, names[i], 0);
      return dsh_root_grants_refuse (error, grants->dir, why);
    }
  return TRUE;
}

static gboolean
refuse_unopenable (GError **error, const char *root, int errsv)
{
  g_autofree char *shown = g_utf8_make_valid (root, -1);

  g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_ROOT_REFUSED,
               "the writable root %s cannot be opened without following a symlink (%s): "
               "it changed while it was being checked; refusing to run the command",
               shown, g_strerror (errsv));
  return FALSE;
}

gboolean
dsh_root_grants_record (DshRootGrants *grants, const char *root, GError **error)
{
  DshRootIdentity identity;
  gboolean known;
  int root_fd = dsh_open_directory_no_symlinks (root, FALSE);

  if (root_fd < 0)
    {
      /* Missing: nothing there to write into until it exists (it is recorded then). */
      if (errno == ENOENT)
        return TRUE;
      return refuse_unopenable (error, root, errno);
    }
  known = dsh_root_identity_at (root_fd, "", &identity, NULL, NULL);
  close (root_fd);
  if (!known)
    return dsh_root_grants_refuse (error, grants->dir,
                                   "cannot take the identity of a writable root");
  return record_identity (grants, &identity, root, error);
}

gboolean
dsh_root_grants_record_opened (DshRootGrants *grants,
                               const char *root,
                               const DshRootIdentity *identity,
                               gboolean is_directory,
                               GError **error)
{
  /* What opening it as a directory would have said, but not that it changed: a file named as a
   * root is refused for being one. */
  if (!is_directory)
    {
      g_autofree char *shown = g_utf8_make_valid (root, -1);

      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_ROOT_REFUSED,
                   "the writable root %s is no directory (%s); refusing to run the command",
                   shown, g_strerror (ENOTDIR));
      return FALSE;
    }
  return record_identity (grants, identity, root, error);
}

gboolean
dsh_root_grants_record_at (DshRootGrants *grants, const char *root, int root_fd, GError **error)
{
  DshRootIdentity identity;
  gboolean is_directory;

  if (!dsh_root_identity_of_opened (root_fd, &identity, &is_directory))
    return dsh_root_grants_refuse (error, grants->dir,
                                   "cannot take the identity of a writable root");
  return dsh_root_grants_record_opened (grants, root, &identity, is_directory, error);
}

gboolean
dsh_root_identity_at (int dir_fd,
                      const char *path,
                      DshRootIdentity *identity,
                      gboolean *out_is_link,
                      gint64 *out_changed_us)
{
  mode_t mode;

  if (!identity_and_mode_at (dir_fd, path, identity, &mode, out_changed_us))
    return FALSE;
  if (out_is_link != NULL)
    *out_is_link = S_ISLNK (mode);
  return TRUE;
}
