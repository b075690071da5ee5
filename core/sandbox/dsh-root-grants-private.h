/* dsh-root-grants-private.h — the per-user record of which directories were handed to confined
 * commands as writable roots, and since when, kept where no confined command can write.
 *
 * A symlink found on the way to a later call's root, beneath a directory granted before the
 * symlink was made, is what a confined command of that earlier call could have planted: the
 * roots code refuses it. Directories are known by identity (device, inode, birth time), not by
 * path, so a granted directory the user renames later is still recognised.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  guint64 dev;
  guint64 ino;
  /* Birth time in nanoseconds where the filesystem reports it, else 0: a reused inode number
   * then reads as granted (refusing more, never less). */
  gint64 birth_ns;
  /* The birth time may change while the directory stays (POSIX: on an overlay, which copies a
   * directory up from its lower layer with a new one); then dev and ino alone also name it. */
  gboolean birth_may_change;
  /* The file system's id (statfs) where the other names may not survive its next mount: on an
   * overlay (which keeps the id in its upper layer) and where there is no birth time (NFS, ext4
   * with small inodes). Its device number may change at the next mount, this id stays. Else 0. */
  guint64 fsid;
} DshRootIdentity;

typedef struct _DshRootGrants DshRootGrants;

/* The record's directory: $DSH_SANDBOX_STATE_DIR, else dsh-sandbox/granted-roots under the
 * user's state directory ($XDG_STATE_HOME, ~/.local/state). */
char          *dsh_root_grants_default_dir      (void);

/* The session fold caches' directory: $DSH_SANDBOX_FOLD_CACHE when it names one, else
 * session-folds inside the record's default directory; NULL when it is "off". Later calls
 * trust what is kept there, so no call's writable roots may reach it (see
 * dsh_root_grants_check_out_of_reach()). */
char          *dsh_fold_cache_dir               (void);

/* Opens (creating it) the record at dir; it must be a real directory of this user that nobody
 * else can write. NULL with DSH_SANDBOX_ERROR_ROOT_REFUSED otherwise: without a trustworthy
 * record no root may be granted. */
DshRootGrants *dsh_root_grants_open             (const char            *dir,
                                                 GError               **error);
void           dsh_root_grants_free             (DshRootGrants         *grants);

/* Where the record opened as grants is (for messages and the reach check). */
const char    *dsh_root_grants_dir              (DshRootGrants         *grants);

/* Sets error to DSH_SANDBOX_ERROR_ROOT_REFUSED for the record at dir, saying why (a phrase
 * such as "is not an absolute path"); returns FALSE. */
gboolean       dsh_root_grants_refuse           (GError               **error,
                                                 const char            *dir,
                                                 const char            *why);

/* Refuses a record that lies beneath one of roots (canonical): a confined command could erase
 * what it says. */
/* Refuses root, of that identity, when it is the record's directory or one above it, whatever
 * its path: a bind mount makes another path of either. */
gboolean       dsh_root_grants_check_identity_out_of_reach (DshRootGrants          *grants,
                                                            const char             *root,
                                                            const DshRootIdentity  *identity,
                                                            GError                **error);
gboolean       dsh_root_grants_check_out_of_reach (DshRootGrants       *grants,
                                                   const char *const   *roots,
                                                   GError             **error);

/* Was the directory with this identity granted, and since when (Unix time, microseconds)? An
 * entry that cannot be read counts as granted since the beginning of time. */
gboolean       dsh_root_grants_lookup           (DshRootGrants         *grants,
                                                 const DshRootIdentity *identity,
                                                 gint64                *out_since);

/* The nearest of path (absolute) and the directories above it, walking up its spelling, that
 * grants holds, or NULL. asked (nullable; path -> whether it was granted) keeps the answers for
 * further paths, so that an ancestor they share is asked once. */
char          *dsh_root_grants_granted_at_or_above (DshRootGrants     *grants,
                                                    const char        *path,
                                                    GHashTable        *asked);

/* The directory ever granted as a writable root that path (made absolute as spelled) lies
 * beneath, or passes a symlink beneath on its way, or NULL (dsh_roots_granted_on_the_way()).
 * What lies beneath it a confined command of that grant could have changed: a session log, a
 * configuration, an approver, a module or a runner found there is not to be trusted. */
char          *dsh_root_grants_granted_ancestor (DshRootGrants         *grants,
                                                 const char            *path);

/* The same, asked of the default record: FALSE with error when that cannot be opened, else TRUE
 * with *out_granted the directory or NULL. */
gboolean       dsh_root_grants_find_granted_above (const char          *path,
                                                   char               **out_granted,
                                                   GError             **error);

/* The directory at or above path that no trust may come from: the granted one, or path itself
 * when the record cannot be opened; NULL when nothing above path was granted. */
char          *dsh_root_grants_untrusted_above  (const char            *path);

/* The identity of the directory path (absolute) names; FALSE when it cannot be read. */
gboolean       dsh_root_identity_of_path        (const char            *path,
                                                 DshRootIdentity       *identity);

/* Records root (canonical, opened without following any symlink) as granted now, unless it
 * already was (the first grant's time stays). A missing root is granted nothing. */
gboolean       dsh_root_grants_record           (DshRootGrants         *grants,
                                                 const char            *root,
                                                 GError               **error);

/* The same for root as reached by the caller's own walk, open as root_fd (O_PATH is enough):
 * what is recorded is the directory that walk resolved, not whatever the path names a moment
 * later. A root_fd that is not a directory is refused as dsh_root_grants_record() refuses it. */
gboolean       dsh_root_grants_record_at        (DshRootGrants         *grants,
                                                 const char            *root,
                                                 int                    root_fd,
                                                 GError               **error);

/* The identity of the file open as fd, and whether it is a directory; FALSE when it cannot be
 * read. */
gboolean       dsh_root_identity_of_opened      (int                    fd,
                                                 DshRootIdentity       *identity,
                                                 gboolean              *out_is_directory);

/* The identity of the directory open as fd (taken, closed here) and of every one above it,
 * climbing "..", up to "/": its ancestors, whatever their paths now. */
GArray        *dsh_root_identity_chain          (int                    fd);

/* dsh_root_grants_record_at() for a root whose identity the caller took already. */
gboolean       dsh_root_grants_record_opened    (DshRootGrants         *grants,
                                                 const char            *root,
                                                 const DshRootIdentity *identity,
                                                 gboolean               is_directory,
                                                 GError               **error);

/* The identity of path beneath dir_fd itself, not following a final symlink ("" for dir_fd
 * itself); FALSE when it cannot be read. *out_is_link and *out_changed_us (if given): whether it
 * is a symlink, and when it last changed (ctime, microseconds). */
gboolean       dsh_root_identity_at             (int                    dir_fd,
                                                 const char            *path,
                                                 DshRootIdentity       *identity,
                                                 gboolean              *out_is_link,
                                                 gint64                *out_changed_us);

/* An entry's name: "dev-ino-birth" in hexadecimal, at most 50 bytes with its NUL. Where the
 * birth time is known, the POSIX record also names the entry "i-ino-birth", which a new device
 * number of the file system leaves as it is, and on an overlay, which gives a directory it copies
 * up a new birth time, "d-dev-ino-0". */
#define DSH_ROOT_GRANTS_ENTRY_NAME_SIZE 52

void           dsh_root_grants_entry_name       (const DshRootIdentity *identity,
                                                 char                   name[DSH_ROOT_GRANTS_ENTRY_NAME_SIZE]);

/* What a new entry for root holds: the time of the grant (Unix time, microseconds) and root. */
char          *dsh_root_grants_entry_text       (const char            *root);

/* The time of the grant in an entry's first length bytes (text NUL-terminated): 0, since ever,
 * for an entry torn or unreadable. */
gint64         dsh_root_grants_entry_since      (const char            *text,
                                                 gssize                 length);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (DshRootGrants, dsh_root_grants_free)

G_END_DECLS
