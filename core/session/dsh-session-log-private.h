/* dsh-session-log-private.h — the session log's insides, shared by the files that make it up:
 * the fold it keeps, the object, the consuming of lines, the hash of the committed bytes, and
 * the file operations under the log and its fold cache.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib/gstdio.h>
#include <sys/types.h>

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

struct _DshSessionLog {
  GObject parent_instance;

  GMutex lock;
  /* NULL for a log parsed from memory. */
  char *path;
  /* The name used in messages: the path, or the caller's name for a parsed log. */
  char *name;
  /* Identity of the file loaded, so an append never lands in a file that replaced it. */
  dev_t dev;
  ino_t ino;

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

/* A log of the file at path, whose identity st holds; nothing consumed yet. */
DshSessionLog *dsh_session_log_new_for_file   (const char        *path,
                                               const GStatBuf    *st);

/* Consumes complete lines of buf (the file's bytes from self->committed on) into the log.
 * Transactional: on error nothing changes. *out_consumed is the length of the accepted
 * prefix; the rest, if any, is a torn tail. Caller holds the lock (or owns a fresh object). */
gboolean       dsh_session_log_consume_lines  (DshSessionLog     *self,
                                               const char        *buf,
                                               gsize              length,
                                               gsize             *out_consumed,
                                               GError           **error);

/* dsh_session_log_consume_lines(), with a torn tail dropped in memory. */
gboolean       dsh_session_log_consume_all    (DshSessionLog     *self,
                                               const char        *buf,
                                               gsize              length,
                                               GError           **error);

/* Best effort: writes the fold of the committed bytes to self->fold_cache. Under the file lock
 * (or right after a load) on fd, the log's open file. */
void           dsh_session_log_store_fold_cache (DshSessionLog   *self,
                                                 int              fd);

/* FNV-1a over the committed bytes: cheap to extend by each appended line, and enough to tell
 * a cached prefix from a file whose prefix changed. */
#define DSH_SESSION_LOG_HASH_INIT G_GUINT64_CONSTANT (0xcbf29ce484222325)

guint64        dsh_session_log_hash_update    (guint64            hash,
                                               const char        *data,
                                               gsize              length);

/* ---- the file operations ----------------------------------------------------------------- */

/* Sets "NAME: cannot WHAT: strerror" and returns FALSE. */
gboolean dsh_session_io_error          (GError      **error,
                                        int           saved_errno,
                                        const char   *name,
                                        const char   *what);

/* Opens path, refusing anything but a regular file (a FIFO planted there does not hang us). */
int      dsh_session_open_regular      (const char   *path,
                                        int           flags,
                                        GStatBuf     *st,
                                        GError      **error);

/* Reads from fd's current position to EOF; the result is NUL-terminated. */
char    *dsh_session_read_to_end       (int           fd,
                                        gsize        *out_length,
                                        const char   *name,
                                        GError      **error);

/* FALSE with errno set unless every byte was written. */
gboolean dsh_session_write_all         (int           fd,
                                        const char   *data,
                                        gsize         length);

/* Best effort: makes a new name in path's directory durable. */
void     dsh_session_sync_directory_of (const char   *path);

G_END_DECLS
