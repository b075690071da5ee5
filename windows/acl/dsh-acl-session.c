/* dsh-acl-session.c — the table of live sessions a provider has seen, and the private temp
 * directories planned for them, behind one lock: a handful of entries per provider, so lists are
 * all it needs.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-acl-session.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include <windows.h>
typedef SRWLOCK Lock;
#define LOCK_INIT(l) InitializeSRWLock (l)
#define LOCK(l) AcquireSRWLockExclusive (l)
#define UNLOCK(l) ReleaseSRWLockExclusive (l)
#define LOCK_CLEAR(l) ((void) (l))
#else
#include <pthread.h>
typedef pthread_mutex_t Lock;
#define LOCK_INIT(l) pthread_mutex_init (l, NULL)
#define LOCK(l) pthread_mutex_lock (l)
#define UNLOCK(l) pthread_mutex_unlock (l)
#define LOCK_CLEAR(l) pthread_mutex_destroy (l)
#endif

typedef struct _Entry Entry;
struct _Entry {
  Entry *next;
  char *session_id;
  char *workspace;
  DshAclSession session;
};

typedef struct _TempDir TempDir;
struct _TempDir {
  TempDir *next;
  char *path;
};

struct _DshAclSessions {
  Lock lock;
  Entry *entries;
  TempDir *temp_dirs;
};

DshAclSessions *
dsh_acl_sessions_new (void)
{
  DshAclSessions *self = calloc (1, sizeof (DshAclSessions));

  if (self != NULL)
    LOCK_INIT (&self->lock);
  return self;
}

void
dsh_acl_sessions_free (DshAclSessions *self)
{
  dsh_acl_sessions_free_full (self, NULL, NULL);
}

void
dsh_acl_sessions_free_full (DshAclSessions *self, DshAclRemoveFunc remove, void *data)
{
  if (self == NULL)
    return;
  while (self->temp_dirs != NULL)
    {
      TempDir *next = self->temp_dirs->next;

      if (remove != NULL)
        remove (self->temp_dirs->path, data);
      free (self->temp_dirs->path);
      free (self->temp_dirs);
      self->temp_dirs = next;
    }
  while (self->entries != NULL)
    {
      Entry *next = self->entries->next;

      free (self->entries->session_id);
      free (self->entries->workspace);
      free (self->entries);
      self->entries = next;
    }
  LOCK_CLEAR (&self->lock);
  free (self);
}

int
dsh_acl_session_draw (DshAclSession *out)
{
  uint8_t bytes[16];

  if (dsh_acl_random_sid (out->sid) != 0 || dsh_acl_random_bytes (bytes, sizeof (bytes)) != 0)
    return -1;
  for (size_t i = 0; i < sizeof (bytes); i++)
    snprintf (out->tag + 2 * i, 3, "%02x", bytes[i]);
  return 0;
}

static Entry *
find_entry (DshAclSessions *self, const char *session_id, const char *workspace)
{
  for (Entry *e = self->entries; e != NULL; e = e->next)
    {
      if (strcmp (e->session_id, session_id) == 0 && strcmp (e->workspace, workspace) == 0)
        return e;
    }
  return NULL;
}

static Entry *
add_entry (DshAclSessions *self, const char *session_id, const char *workspace)
{
  Entry *e = calloc (1, sizeof (Entry));

  if (e == NULL)
    return NULL;
  e->session_id = strdup (session_id);
  e->workspace = strdup (workspace);
  if (e->session_id == NULL || e->workspace == NULL || dsh_acl_session_draw (&e->session) != 0)
    {
      free (e->session_id);
      free (e->workspace);
      free (e);
      return NULL;
    }
  e->next = self->entries;
  self->entries = e;
  return e;
}

int
dsh_acl_sessions_get (DshAclSessions *self,
                      const char *session_id,
                      const char *workspace,
                      DshAclSession *out)
{
  Entry *e;

  if (session_id == NULL)
    return dsh_acl_session_draw (out);
  LOCK (&self->lock);
  e = find_entry (self, session_id, workspace);
  if (e == NULL)
    e = add_entry (self, session_id, workspace);
  if (e != NULL)
    *out = e->session;
  UNLOCK (&self->lock);
  return e != NULL ? 0 : -1;
}

int
dsh_acl_sessions_keep_temp_dir (DshAclSessions *self, const char *dir)
{
  TempDir *kept = NULL;
  int rc = 0;

  LOCK (&self->lock);
  for (TempDir *t = self->temp_dirs; t != NULL && kept == NULL; t = t->next)
    {
      if (strcmp (t->path, dir) == 0)
        kept = t;
    }
  if (kept == NULL)
    {
      kept = calloc (1, sizeof (TempDir));
      if (kept != NULL && (kept->path = strdup (dir)) != NULL)
        {
          kept->next = self->temp_dirs;
          self->temp_dirs = kept;
        }
      else
        {
          free (kept);
          rc = -1;
        }
    }
  UNLOCK (&self->lock);
  return rc;
}

char *
dsh_acl_session_temp_dir (const DshAclSession *session, const char *base)
{
  size_t len = strlen (base);
  /* A POSIX-spelled base (a preview on another host) keeps its own separator. */
  char separator = strchr (base, '\\') == NULL && strchr (base, '/') != NULL ? '/' : '\\';
  int has_separator = len > 0 && (base[len - 1] == '\\' || base[len - 1] == '/');
  size_t size = len + 1 + strlen ("dsh-acl-") + DSH_ACL_TAG_SIZE;
  char *dir = malloc (size);

  if (dir == NULL)
    return NULL;
  snprintf (dir, size, "%s%s%s%s", base, has_separator ? "" : (separator == '/' ? "/" : "\\"),
            "dsh-acl-", session->tag);
  return dir;
}
