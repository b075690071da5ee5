/* dsh-windows-acl-private.h — when a Windows file may be trusted, read from its owner and DACL:
 * the stand-in for a POSIX file's owner and mode bits. Plain logic over SIDs spelled as
 * strings, built and tested on every host.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The values Windows gives these in winnt.h. */
#define DSH_WINDOWS_ACE_ALLOWED 0x00
#define DSH_WINDOWS_ACE_DENIED 0x01
#define DSH_WINDOWS_ACE_DENIED_OBJECT 0x06
#define DSH_WINDOWS_ACE_DENIED_CALLBACK 0x0A
#define DSH_WINDOWS_ACE_DENIED_CALLBACK_OBJECT 0x0C
#define DSH_WINDOWS_ACE_INHERIT_ONLY 0x08

/* One entry of a DACL. */
typedef struct {
  guint8 type;
  guint8 flags;
  guint32 mask;
  /* "S-1-5-...", or NULL when it could not be read. */
  const char *sid;
} DshWindowsAce;

typedef enum {
  /* Only this user may own it and write it (SYSTEM and the administrators aside, who may do
   * anything anyway): a record of this user's. */
  DSH_WINDOWS_TRUST_OWNER_ONLY,
  /* This user, the administrators, SYSTEM or TrustedInstaller may own and write it: the "root
   * or the current user" of a module file. */
  DSH_WINDOWS_TRUST_USER_OR_ADMINS,
} DshWindowsTrust;

/* Why an object with this owner and DACL (n entries; has_dacl FALSE: none, so everyone may do
 * anything) is not to be trusted by user, whose new objects are owned by default_owner (may be
 * NULL), or NULL when it is: an owner outside the rule, an entry that lets anyone else write
 * it, delete it or change its DACL or owner, or an entry of a kind not read here. A new
 * string. */
char *dsh_windows_acl_refusal (const char          *owner,
                               gboolean             has_dacl,
                               const DshWindowsAce *dacl,
                               gsize                n,
                               const char          *user,
                               const char          *default_owner,
                               DshWindowsTrust      trust);

G_END_DECLS
