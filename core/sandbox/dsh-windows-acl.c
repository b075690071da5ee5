/* dsh-windows-acl.c — trusting a Windows file by its owner and DACL. Only the entries that
 * grant apply: denials can only take rights away, and entries inherited by what a directory
 * will hold do not apply to the directory itself. Any entry that grants a right to change the
 * object, its DACL or its owner to a SID outside the rule makes it untrusted, and so does an
 * entry of a kind (object, callback, compound) whose rights are not read here.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-windows-acl-private.h"

#include <string.h>

/* SYSTEM and the administrators may do anything anyway; TrustedInstaller owns what Windows
 * installs; OWNER RIGHTS stands for whoever owns the object, itself checked. */
#define SID_SYSTEM "S-1-5-18"
#define SID_ADMINISTRATORS "S-1-5-32-544"
#define SID_TRUSTED_INSTALLER "S-1-5-80-956008885-3418522649-1831038044-1853292631-2271478464"
#define SID_OWNER_RIGHTS "S-1-3-4"

/* Rights that change what the object holds or who may change it (winnt.h values):
 * FILE_WRITE_DATA (and FILE_ADD_FILE), FILE_APPEND_DATA (FILE_ADD_SUBDIRECTORY), FILE_WRITE_EA,
 * FILE_DELETE_CHILD, DELETE, WRITE_DAC, WRITE_OWNER, MAXIMUM_ALLOWED, GENERIC_ALL,
 * GENERIC_WRITE. */
#define WRITE_RIGHTS (0x00000002u | 0x00000004u | 0x00000010u | 0x00000040u | 0x00010000u | \
                      0x00040000u | 0x00080000u | 0x02000000u | 0x10000000u | 0x40000000u)

static gboolean
sid_equal (const char *a, const char *b)
{
  return a != NULL && b != NULL && g_ascii_strcasecmp (a, b) == 0;
}

static gboolean
trusted (const char *sid, const char *user, const char *default_owner, DshWindowsTrust trust)
{
  if (sid_equal (sid, user) || sid_equal (sid, default_owner) || sid_equal (sid, SID_SYSTEM) ||
      sid_equal (sid, SID_ADMINISTRATORS))
    return TRUE;
  return trust == DSH_WINDOWS_TRUST_USER_OR_ADMINS && sid_equal (sid, SID_TRUSTED_INSTALLER);
}

static gboolean
is_denial (guint8 type)
{
  return type == DSH_WINDOWS_ACE_DENIED || type == DSH_WINDOWS_ACE_DENIED_OBJECT ||
         type == DSH_WINDOWS_ACE_DENIED_CALLBACK || type == DSH_WINDOWS_ACE_DENIED_CALLBACK_OBJECT;
}

char *
dsh_windows_acl_refusal (const char *owner,
                         gboolean has_dacl,
                         const DshWindowsAce *dacl,
                         gsize n,
                         const char *user,
                         const char *default_owner,
                         DshWindowsTrust trust)
{
  gboolean owner_ok;

  if (user == NULL)
    return g_strdup ("cannot tell which user this process runs as");
  /* A record of this user's is owned by this user (or by the owner its new objects get). */
  owner_ok = trust == DSH_WINDOWS_TRUST_OWNER_ONLY
               ? sid_equal (owner, user) || sid_equal (owner, default_owner)
               : trusted (owner, user, default_owner, trust);
  if (!owner_ok)
    return trust == DSH_WINDOWS_TRUST_OWNER_ONLY
             ? g_strdup_printf ("is owned by %s, not by this user (%s)",
                                owner != NULL ? owner : "nobody", user)
             : g_strdup_printf ("is owned by %s, neither this user (%s) nor the administrators",
                                owner != NULL ? owner : "nobody", user);
  if (!has_dacl)
    return g_strdup ("has no DACL, so everyone may write it");
  for (gsize i = 0; i < n; i++)
    {
      const DshWindowsAce *ace = &dacl[i];

      if ((ace->flags & DSH_WINDOWS_ACE_INHERIT_ONLY) != 0 || is_denial (ace->type))
        continue;
      if (ace->type != DSH_WINDOWS_ACE_ALLOWED)
        return g_strdup_printf ("has a DACL entry of a kind not checked here (entry %"
                                G_GSIZE_FORMAT ", type %u)",
                                i, (guint) ace->type);
      if ((ace->mask & WRITE_RIGHTS) == 0)
        continue;
      if (ace->sid == NULL)
        return g_strdup_printf ("lets an unreadable SID write it (entry %" G_GSIZE_FORMAT ")", i);
      if (sid_equal (ace->sid, SID_OWNER_RIGHTS) ||
          trusted (ace->sid, user, default_owner, trust))
        continue;
      return g_strdup_printf ("lets %s write it (entry %" G_GSIZE_FORMAT ")", ace->sid, i);
    }
  return NULL;
}
