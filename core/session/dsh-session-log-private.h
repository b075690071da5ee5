/* dsh-session-log-private.h — the session log's insides, shared by the files that make it up:
 * the fold it keeps, the object, the consuming of lines, the hash of the committed bytes, and
 * the file operations under the log and its fold cache.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include "dsh-session-log.h"

G_BEGIN_DECLS

/* ---- the fold ---------------------------------------------------------------------------- */

/* What events fold to: kept up to date as lines are consumed and appended, so that neither a
 * query nor an append folds the whole history again. Everything here is derived from the
 * lines in order; the fold cache stores exactly this. */
typedef struct {
  /* Open turns' ids, most recent last ("" for a turn/start without an id); owned. */
  GPtrArray *open_turns;
  /* The last sandbox/mode, approval/policy and permissionPresets/preset values, or NULL. */
  char *mode;
  char *policy;
  char *preset;
} DshSessionFold;

void     dsh_session_fold_init      (DshSessionFold        *fold);
void     dsh_session_fold_clear     (DshSessionFold        *fold);
void     dsh_session_fold_copy      (DshSessionFold        *to,
                                     const DshSessionFold  *from);
gboolean dsh_session_fold_find_turn (const DshSessionFold  *fold,
                                     const char            *id,
                                     guint                 *index);
/* FALSE for crash residue (a turn-scoped event, or a turn/end, with no open turn to belong
 * to), which is not part of the fold. */
gboolean dsh_session_fold_accepts   (const DshSessionFold  *fold,
                                     const DshSessionEvent *event);
/* Applies the event when the fold accepts it. */
gboolean dsh_session_fold_step      (DshSessionFold        *fold,
                                     const DshSessionEvent *event);

/* ---- the object -------------------------------------------------------------------------- */

typedef struct _DshSessionFileInfo DshSessionFileInfo;

/* What the log and its cache know of an open file: what identifies it while it exists (device
 * and inode; volume serial number and file index), its size, and its change and modification
 * times, which every write moves — to a later tick of the file system's clock. settled: no
 * later write can leave them as they were read, because the last change was a whole granule
 * old then, or because the file system stamps a change after a read of the times with a
 * fine-grained time (Linux's multigrain timestamps). A write within the same coarse tick as the
 * last one keeps size and times as they were: unsettled times prove nothing. */
struct _DshSessionFileInfo {
  guint64 volume;
  guint64 index;
  goffset size;
  gint64  change_sec;
  guint32 change_nsec;
  gint64  modify_sec;
  guint32 modify_nsec;
  gboolean settled;
};

/* Sets info->settled from the age of its times, against the coarsest clock they may come from:
 * times in whole seconds may be a second's or FAT's two (3 s covers both); times with a
 * fraction come from a clock that ticks at least every 16 ms (a Linux jiffy, NTFS's tick). */
#define DSH_SESSION_TIME_GRANULE_USEC (3 * G_USEC_PER_SEC)
#define DSH_SESSION_TIME_TICK_USEC (100 * 1000)
void            dsh_session_file_info_settle (DshSessionFileInfo *info);

struct _DshSessionLog {
  GObject parent_instance;

  GMutex lock;
  /* NULL for a log parsed from memory. */
  char *path;
  /* The name used in messages: the path, or the caller's name for a parsed log. */
  char *name;
  /* The file as this log last knew it (its identity and times before a load read it, or
   * right after an append of ours): an append never lands in a file that replaced it, and a
   * file whose times moved since was written by someone else, whose bytes are proved again. */
  DshSessionFileInfo known;
  /* The file's times were found fine-grained (dsh_session_file_times_are_fine): every time
   * this log reads them, they are settled. */
  gboolean times_fine;

  JsonObject *header;
  GPtrArray *events;
  /* Out-of-turn residue dropped (part of the fold), and a torn last line dropped (not). */
  guint dropped;
  guint torn;
  /* Lines consumed so far (header included), and the byte offset just past the last one. */
  guint lines;
  goffset committed;
  /* The fold of the events, and the hash of the committed bytes. */
  DshSessionFold fold;
  guint64 hash;
  /* Where this log's fold is cached (NULL: not cached). */
  char *fold_cache;
};

typedef struct _DshSessionFile DshSessionFile;

/* A log of the file at path, whose identity info holds; nothing consumed yet. */
DshSessionLog *dsh_session_log_new_for_file   (const char                *path,
                                               const DshSessionFileInfo  *info);

/* Consumes complete lines of buf (the file's bytes from self->committed on) into the log.
 * Transactional: on error nothing changes. *out_consumed is the length of the accepted
 * prefix; the rest, if any, is a torn tail. Caller holds the lock (or owns a fresh object). */
gboolean       dsh_session_log_consume_lines  (DshSessionLog     *self,
                                               const char        *buf,
                                               gsize              length,
                                               gsize             *out_consumed,
                                               GError           **error);

/* dsh_session_log_append_approval_decided(), with why nobody could grant it (cause: an
 * answerer's failure, for the operator; NULL for none) as the event's "cause", its first
 * DSH_APPROVAL_CAUSE_MAX bytes at most. */
#define DSH_APPROVAL_CAUSE_MAX 1024
gboolean       dsh_session_log_append_approval_decided_because (DshSessionLog      *self,
                                                                const char         *request_id,
                                                                DshApprovalOutcome  outcome,
                                                                const char         *cause,
                                                                GError            **error);

/* dsh_session_log_consume_lines(), with a torn tail dropped in memory. */
gboolean       dsh_session_log_consume_all    (DshSessionLog     *self,
                                               const char        *buf,
                                               gsize              length,
                                               GError           **error);

/* Best effort: writes the fold of the committed bytes to self->fold_cache, vouched for by
 * self->known. Under the file lock (or right after a load). */
void           dsh_session_log_store_fold_cache (DshSessionLog   *self);

/* Whether the file's bytes [0, length) hash to hash: proof, where its times moved, that a
 * prefix is still what was folded. */
gboolean       dsh_session_file_prefix_hashes_to (DshSessionFile *file,
                                                  goffset         length,
                                                  guint64         hash);

/* FNV-1a over the committed bytes: cheap to extend by each appended line, and enough to tell
 * a cached prefix from a file whose prefix changed. */
#define DSH_SESSION_LOG_HASH_INIT G_GUINT64_CONSTANT (0xcbf29ce484222325)

guint64        dsh_session_log_hash_update    (guint64            hash,
                                               const char        *data,
                                               gsize              length);

/* ---- the file operations ----------------------------------------------------------------- */

/* The file operations under the log and its fold cache, the one part of the log that differs
 * between POSIX (dsh-session-log-io.c) and Windows (dsh-session-log-io-windows.c). Errors are
 * DSH_SANDBOX_ERROR_SESSION_LOG: "PATH: cannot WHAT: REASON". */

typedef enum {
  DSH_SESSION_FILE_READ,
  /* Reading, and writing at the end only. */
  DSH_SESSION_FILE_APPEND,
} DshSessionFileAccess;

/* Opens path, refusing anything but a regular file (a FIFO planted there does not hang us). */
DshSessionFile *dsh_session_file_open     (const char            *path,
                                           DshSessionFileAccess   access,
                                           DshSessionFileInfo    *info,
                                           GError               **error);

/* Creates path, which must not exist yet, for the user alone to read and write. */
DshSessionFile *dsh_session_file_create   (const char            *path,
                                           GError               **error);

/* Whether the file system stamps file's changes finely enough that a write after a read of its
 * times always moves them (probed with two metadata changes that keep the mode). */
gboolean        dsh_session_file_times_are_fine (DshSessionFile  *file);
gboolean        dsh_session_file_query    (DshSessionFile        *file,
                                           DshSessionFileInfo    *info,
                                           GError               **error);

/* Waits for the exclusive lock that every writer of the log holds while it appends; it never
 * keeps a reader out, and closing the file releases it. Whoever can read the log can take that
 * lock, a command confined in the session too, so the wait ends after
 * dsh_session_file_lock_patience() with an error rather than never. */
gboolean        dsh_session_file_lock     (DshSessionFile        *file,
                                           GError               **error);
/* One try of the platform's lock: 1 taken, 0 held by another, -1 failed (error set). */
typedef int (*DshSessionFileTryLock) (DshSessionFile *file, GError **error);

/* dsh_session_file_lock() on the platform's try_lock, retried in short pauses until the lock is
 * taken or the wait ends. */
gboolean        dsh_session_file_lock_patiently (DshSessionFile        *file,
                                                 const char            *path,
                                                 DshSessionFileTryLock  try_lock,
                                                 GError               **error);

/* Reads from offset to the end; the result is NUL-terminated. */
char           *dsh_session_file_read_from (DshSessionFile       *file,
                                            goffset               offset,
                                            gsize                *out_length,
                                            GError              **error);

/* Reads up to size bytes at offset: how many were read, 0 at the end, -1 on an error. */
gssize          dsh_session_file_read_at  (DshSessionFile        *file,
                                           char                  *buf,
                                           gsize                  size,
                                           goffset                offset);

/* Writes data whole at the end of the file and makes it durable; what names the operation in
 * the error. */
gboolean        dsh_session_file_append   (DshSessionFile        *file,
                                           const char            *data,
                                           gsize                  length,
                                           const char            *what,
                                           GError               **error);

/* Cuts the file back to length and makes that durable. */
gboolean        dsh_session_file_truncate (DshSessionFile        *file,
                                           goffset                length,
                                           const char            *what,
                                           GError               **error);

void            dsh_session_file_close    (DshSessionFile        *file);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (DshSessionFile, dsh_session_file_close)

/* Best effort: makes a new name in path's directory durable. */
void            dsh_session_sync_directory_of (const char        *path);

/* The fold cache's own files. Reads path whole when it is a regular file (not a link) of the
 * user's own that nobody else may read or write, shorter than limit; NULL otherwise. */
char           *dsh_session_read_private_file  (const char       *path,
                                                gsize             limit,
                                                gsize            *out_length);

/* Best effort: replaces path with data, written whole under a fresh private name beside it and
 * renamed into place. */
void            dsh_session_write_private_file (const char       *path,
                                                const char       *data,
                                                gsize             length);

G_END_DECLS
