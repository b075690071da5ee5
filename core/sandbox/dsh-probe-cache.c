/* dsh-probe-cache.c — a small per-user key file recording that the first candidate of a chain
 * passed its functional probe, keyed by everything that outcome depends on: the host's kernel,
 * the exact module files of the chain and the runner files the candidate found; when that
 * candidate heads the chain, the entry also lists the chain's module files in order.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-probe-cache-private.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>

#include "dsh-child-path-private.h"
#include "dsh-number-text-private.h"
#include "dsh-platform-private.h"
#include "dsh-root-grants-private.h"

char *
dsh_probe_cache_default_path (void)
{
  /* Inside the record of granted roots, which no call's writable roots may reach: a cache a
   * confined command of an earlier call could write would let it make the first candidate
   * skip its probe in the calls after it. */
  g_autofree char *dir = dsh_root_grants_default_dir ();

  /* Only a real directory of our own that nobody else can write: never a link someone put
   * there to have this process write elsewhere. It exists on every call but the first. */
  if (!dsh_platform_is_private_dir (dir) &&
      (g_mkdir_with_parents (dir, 0700) != 0 || !dsh_platform_is_private_dir (dir)))
    return NULL;
  return dsh_child_path (dir, "probe-cache-v5");
}

void
dsh_probe_cache_add_member (GString *key, const char *name, const char *module_path)
{
  g_string_append (key, "module=");
  g_string_append (key, name);
  g_string_append_c (key, '|');
  dsh_platform_append_file_identity (key, module_path);
}

void
dsh_probe_cache_add_file (GString *key, const char *path)
{
  g_string_append (key, "runner=");
  dsh_platform_append_file_identity (key, path);
}

void
dsh_probe_cache_add_host_values (GString *key, const char *kernel_release, long landlock_abi)
{
  g_string_append (key, "kernel=");
  g_string_append (key, kernel_release);
  g_string_append (key, ";landlock=");
  dsh_number_text_append_signed (key, landlock_abi);
  g_string_append_c (key, ';');
}

void
dsh_probe_cache_add_host (GString *key)
{
  g_autofree char *release = dsh_platform_kernel_release ();

  /* Booting the same kernel with Landlock disabled changes what a probe would find. */
  dsh_probe_cache_add_host_values (key, release, dsh_platform_landlock_abi ());
}

/* The file: this line, then records of "<name> <length>\n<that many bytes>\n": the key, then
 * the chain's files in order, then the identities of the module directories they were found
 * in. Lengths make any bytes but NUL safe in a value, and reading it is a few comparisons,
 * where a key file parser was a tenth of a call's own work. */
#define MAGIC "dsh-probe-cache 5\n"
/* Seconds a directory must have been left alone before its times can vouch for its entries. */
#define DIR_TIME_SLACK 3
/* An entry is a key of a few hundred bytes per module and runner file. */
#define PROBE_CACHE_MAX_SIZE 16384

/* The value of a record named name at *at, advancing *at past it; NULL when the bytes there are
 * no such record. */
static char *
read_record (const char *text, gsize len, gsize *at, const char *name)
{
  gsize name_len = strlen (name);
  gsize p = *at;
  gsize n = 0;
  char *value;

  if (len - p < name_len + 1 || memcmp (text + p, name, name_len) != 0 ||
      text[p + name_len] != ' ')
    return NULL;
  p += name_len + 1;
  if (p >= len || !g_ascii_isdigit (text[p]))
    return NULL;
  while (p < len && g_ascii_isdigit (text[p]))
    {
      n = n * 10 + (gsize) (text[p++] - '0');
      /* Bounded by the text itself, so it never wraps. */
      if (n > len)
        return NULL;
    }
  if (p >= len || text[p++] != '\n' || len - p < n + 1 || text[p + n] != '\n' ||
      memchr (text + p, '\0', n) != NULL)
    return NULL;
  value = g_strndup (text + p, n);
  *at = p + n + 1;
  return value;
}

static void
append_record (GString *text, const char *name, const char *value)
{
  gsize len = strlen (value);

  g_string_append (text, name);
  g_string_append_c (text, ' ');
  dsh_number_text_append_unsigned (text, len);
  g_string_append_c (text, '\n');
  g_string_append_len (text, value, (gssize) len);
  g_string_append_c (text, '\n');
}

/* The values of the records named name from *at on, NULL-terminated, or NULL when there are
 * none. */
static GStrv
read_records (const char *text, gsize len, gsize *at, const char *name)
{
  g_autoptr (GPtrArray) values = g_ptr_array_new_with_free_func (g_free);
  char *value;

  while (*at < len && (value = read_record (text, len, at, name)) != NULL)
    g_ptr_array_add (values, value);
  if (values->len == 0)
    return NULL;
  g_ptr_array_add (values, NULL);
  return (GStrv) g_ptr_array_free (g_steal_pointer (&values), FALSE);
}

gboolean
dsh_probe_cache_read (const char *path, char **key, GStrv *chain, GStrv *dirs)
{
  char text[PROBE_CACHE_MAX_SIZE];
  g_auto (GStrv) files = NULL;
  g_auto (GStrv) dir_identities = NULL;
  gsize len = 0;
  gsize at = strlen (MAGIC);

  *key = NULL;
  if (chain != NULL)
    *chain = NULL;
  if (dirs != NULL)
    *dirs = NULL;
  /* Only the user's own, private, regular file is believed, checked on the descriptor that is
   * then read (no FIFO stalls the call); anything larger than an entry this code writes is not
   * one of ours. */
  if (path == NULL || !dsh_platform_read_private_file (path, text, sizeof (text), &len))
    return FALSE;
  if (len < at || memcmp (text, MAGIC, at) != 0)
    return FALSE;
  *key = read_record (text, len, &at, "key");
  if (*key == NULL)
    return FALSE;
  files = read_records (text, len, &at, "chain");
  dir_identities = read_records (text, len, &at, "dir");
  /* All of it, or no entry: a torn or forged tail is not half believed. */
  if (at != len)
    {
      g_clear_pointer (key, g_free);
      return FALSE;
    }
  if (chain != NULL)
    *chain = g_steal_pointer (&files);
  if (dirs != NULL)
    *dirs = g_steal_pointer (&dir_identities);
  return TRUE;
}

char *
dsh_probe_cache_dir_identity (const char *dir, gint64 unchanged_since)
{
  g_autoptr (GString) identity = g_string_new (NULL);
  GStatBuf st;

  dsh_platform_append_file_identity (identity, dir);
  if (unchanged_since <= 0)
    return g_string_free (g_steal_pointer (&identity), FALSE);
  /* A file system may stamp times coarsely (a clock tick, two seconds): an entry added or
   * removed just before the scan, or since, could be followed by another that leaves the times
   * as they are. Checked after the identity was taken, so a change in between is seen here.
   * Mode and owner changes are compared as they are. */
  if (g_stat (dir, &st) != 0 || !S_ISDIR (st.st_mode) ||
      st.st_mtime >= unchanged_since - DIR_TIME_SLACK)
    return NULL;
  return g_string_free (g_steal_pointer (&identity), FALSE);
}

gboolean
dsh_probe_cache_lookup (const char *path, const char *key)
{
  g_autofree char *stored_key = NULL;

  return dsh_probe_cache_read (path, &stored_key, NULL, NULL) && g_str_equal (stored_key, key);
}

void
dsh_probe_cache_store (const char *path, const char *key, const char *const *chain,
                       const char *const *dirs)
{
  g_autoptr (GString) text = g_string_new (MAGIC);

  if (path == NULL)
    return;

  append_record (text, "key", key);
  for (gsize i = 0; chain != NULL && chain[i] != NULL; i++)
    append_record (text, "chain", chain[i]);
  for (gsize i = 0; chain != NULL && dirs != NULL && dirs[i] != NULL; i++)
    append_record (text, "dir", dirs[i]);
  /* Too large to be read back: not worth writing. */
  if (text->len >= PROBE_CACHE_MAX_SIZE)
    return;
  /* Written whole and renamed into place, so a reader never sees half an entry. */
  if (!g_file_set_contents_full (path, text->str, (gssize) text->len,
                                 G_FILE_SET_CONTENTS_CONSISTENT, 0600, NULL))
    g_debug ("cannot write the probe cache %s", path);
}
