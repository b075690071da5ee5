/* dsh-acl-session.h — the per-session half of a call's identity: a random SID and a random
 * private temp directory name for each live (provider, session, workspace), kept in the module's
 * per-provider instance so that a new provider never reuses them; agentless calls draw new ones.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <stddef.h>

#include "dsh-acl-sid.h"

/* 16 random bytes in hex, and the NUL. */
#define DSH_ACL_TAG_SIZE 33

typedef struct {
  char sid[DSH_ACL_SID_SIZE];
  /* Names the private temp directory: dsh-acl-<tag> beneath the temp base. */
  char tag[DSH_ACL_TAG_SIZE];
} DshAclSession;

typedef struct _DshAclSessions DshAclSessions;

/* Removes one private temp directory and everything in it. */
typedef void (*DshAclRemoveFunc) (const char *dir, void *data);

/* NULL when out of memory. Safe to use from several threads at once. */
DshAclSessions *dsh_acl_sessions_new  (void);
void            dsh_acl_sessions_free (DshAclSessions *self);
/* Ends self as its provider ends: remove (may be NULL) is called on every temp directory kept
 * with dsh_acl_sessions_keep_temp_dir(), once each, then self is freed. */
void            dsh_acl_sessions_free_full (DshAclSessions   *self,
                                            DshAclRemoveFunc  remove,
                                            void             *data);

/* Remembers dir, the private temp directory of one of self's sessions, for removal when self
 * ends; a directory kept already is kept once. 0, or -1 when out of memory. */
int             dsh_acl_sessions_keep_temp_dir (DshAclSessions *self,
                                                const char     *dir);

/* The identity of (session_id, workspace) in self, drawn on first use; with session_id NULL (an
 * agentless call) a fresh one each time, remembered nowhere. 0, or -1 when the random source or
 * memory failed. */
int             dsh_acl_sessions_get  (DshAclSessions *self,
                                       const char     *session_id,
                                       const char     *workspace,
                                       DshAclSession  *out);

/* A fresh random identity. 0 or -1. */
int             dsh_acl_session_draw  (DshAclSession  *out);

/* The private temp directory of session beneath base: base, its separator, "dsh-acl-" and the
 * tag; malloc()ed, NULL when out of memory. */
char           *dsh_acl_session_temp_dir (const DshAclSession *session,
                                          const char          *base);
