/* dsh-platform-windows.c — the platform facts on Windows, until the core is ported. Whatever this
 * file cannot check is answered closed: no file or directory is trusted as private, so the
 * cross-process caches are neither believed nor used, and a file's identity is only its path
 * (which never makes a cache entry believed, since the cache file is not trusted either).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-platform-private.h"

/* Windows has no setuid: a process runs with its own token, never with its invoker's rights
 * raised, so there is no override to ignore. */
gboolean
dsh_platform_is_privileged (void)
{
  return FALSE;
}

void
dsh_platform_append_user (GString *key)
{
  g_string_append (key, "user=unverified;");
}

/* Owner and ACL checks are not written yet: nothing is private. */
gboolean
dsh_platform_is_private_dir (const char *dir)
{
  return FALSE;
}

gboolean
dsh_platform_is_private_file (const char *path)
{
  return FALSE;
}

gboolean
dsh_platform_read_private_file (const char *path, char *buf, gsize size, gsize *out_len)
{
  return FALSE;
}

void
dsh_platform_append_file_identity (GString *key, const char *path)
{
  g_string_append_printf (key, "%s|unverified;", path);
}

char *
dsh_platform_kernel_release (void)
{
  return g_strdup ("");
}

gboolean
dsh_platform_is_program_file (const char *path)
{
  return g_file_test (path, G_FILE_TEST_IS_EXECUTABLE) && !g_file_test (path, G_FILE_TEST_IS_DIR);
}

char *
dsh_platform_owner_refusal (const char *what, guint uid, guint mode)
{
  /* Owners and modes are no Windows notion; nothing is vouched for by them (fail closed). */
  return g_strdup_printf ("%s: ownership is not checked on Windows yet", what);
}

char *
dsh_platform_program_refusal (const char *path, gboolean must_be_elf)
{
  /* Helpers come from the installation's own directories; ACL checks are not done here yet. */
  return NULL;
}

gboolean
dsh_platform_elf_is_complete (int fd, off_t size)
{
  /* No ELF files here: Windows refuses to map a cut-short image itself. */
  return TRUE;
}

long
dsh_platform_landlock_abi (void)
{
  return -1;
}
