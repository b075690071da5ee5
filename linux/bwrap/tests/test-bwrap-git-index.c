/* test-bwrap-git-index.c — the launcher's scan of a git index for gitlinks, over an index that
 * a confined command rewrites while it is read or wrote to be read slowly: whatever happens to
 * the file, the scan ends with what it read, never with a signal, and in time linear in it.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define _GNU_SOURCE

#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dsh-bwrap-exec.h"

_Noreturn void
fatal (const char *format, ...)
{
  va_list args;

  va_start (args, format);
  vfprintf (stderr, format, args);
  va_end (args);
  abort ();
}

void *
checked (void *p)
{
  g_assert_nonnull (p);
  return p;
}

#define GITLINK 0160000u
#define REGULAR 0100644u

static void
put_be32 (GByteArray *out, guint32 value)
{
  guint8 bytes[4] = { value >> 24, value >> 16, value >> 8, value };

  g_byte_array_append (out, bytes, 4);
}

/* One version 2 entry, SHA-1 names: stat data, mode, object name, flags, name, NUL padding. */
static void
put_entry (GByteArray *out, guint32 mode, const char *name)
{
  guint8 zeros[40] = { 0 };
  gsize len = strlen (name);
  gsize size = (62 + len + 8) & ~(gsize) 7;
  guint8 flags[2] = { len >> 8, len & 0xff };

  g_byte_array_append (out, zeros, 24);
  put_be32 (out, mode);
  g_byte_array_append (out, zeros, 12 + 20);
  g_byte_array_append (out, flags, 2);
  g_byte_array_append (out, (const guint8 *) name, len);
  g_byte_array_append (out, zeros, size - 62 - len);
}

typedef struct {
  char *index;
  GPtrArray *seen;
  gsize cut_to;
} Scan;

static void
visit (const char *path, void *data)
{
  Scan *scan = data;

  g_ptr_array_add (scan->seen, g_strdup (path));
  /* The command's turn: the index shrinks to its first page. */
  if (scan->cut_to > 0)
    g_assert_no_errno (truncate (scan->index, (off_t) scan->cut_to));
}

/* The header of a version 2 index (SHA-1 names) of n entries, the entries to follow. */
static GByteArray *
new_index (guint32 n)
{
  GByteArray *index = g_byte_array_new ();

  g_byte_array_append (index, (const guint8 *) "DIRC", 4);
  put_be32 (index, 2);
  put_be32 (index, n);
  return index;
}

/* The names for_each_gitlink() visits in index, written as a git directory's index; with cut_to,
 * the file is cut to that size at each visit. */
static GPtrArray *
scan_index (GByteArray *index, gsize cut_to)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("dsh-git-index-XXXXXX", &error);
  Scan scan = { .seen = g_ptr_array_new_with_free_func (g_free), .cut_to = cut_to };
  int dir_fd;

  g_assert_no_error (error);
  scan.index = g_build_filename (dir, "index", NULL);
  g_file_set_contents (scan.index, (const char *) index->data, index->len, &error);
  g_assert_no_error (error);
  dir_fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  g_assert_cmpint (dir_fd, >=, 0);
  for_each_gitlink (dir_fd, dir, "index", 20, 0, NULL, visit, &scan);
  close (dir_fd);
  g_unlink (scan.index);
  g_rmdir (dir);
  g_free (scan.index);
  return scan.seen;
}

/* An index of 40 000 entries (about 3 MiB, far more than one read) with gitlinks first and
 * last; scanned whole (data NULL) or cut to its first page as soon as the first gitlink is
 * seen. */
static void
test_index_read (gconstpointer data)
{
  const guint32 n = 40000;
  g_autoptr (GByteArray) index = new_index (n);
  g_autoptr (GPtrArray) seen = NULL;

  for (guint32 i = 0; i < n; i++)
    {
      g_autofree char *name = g_strdup_printf ("dir/sub/file-%06u", i);

      put_entry (index, i == 0 || i == n - 1 ? GITLINK : REGULAR, i == 0 ? "first" : name);
    }
  seen = scan_index (index, data != NULL ? 4096 : 0);

  /* Cut: what was read before still counts, nothing after it is made up. */
  g_assert_cmpuint (seen->len, ==, data ? 1 : 2);
  g_assert_cmpstr (g_ptr_array_index (seen, 0), ==, "first");
  if (!data)
    g_assert_cmpstr (g_ptr_array_index (seen, 1), ==, "dir/sub/file-039999");
}

/* Entries written to be read slowly: every one a gitlink whose name and padding hold no NUL, the
 * file's only NUL at its very end (32 MiB). git takes each name's length from its flags; a scan
 * that looked for each name's NUL through the rest of the file took minutes, holding up the
 * call. Each byte is looked at once now, and every entry is visited as git reads it. */
static void
test_index_without_nuls (void)
{
  const guint32 n = (32u << 20) / 320;
  g_autoptr (GByteArray) index = new_index (n);
  g_autoptr (GPtrArray) seen = NULL;
  guint8 entry[320];
  char name[258];

  memset (entry, 'a', sizeof entry);
  memcpy (entry + 24, "\xff\xff\xe0\x01", 4); /* a gitlink's type bits, no NUL byte */
  memcpy (entry + 60, "\x01\x01", 2);         /* a name of 257 bytes */
  memset (name, 'a', 257);
  name[257] = '\0';
  for (guint32 i = 0; i < n; i++)
    g_byte_array_append (index, entry, sizeof entry);
  g_byte_array_append (index, (const guint8 *) "", 1);
  seen = scan_index (index, 0);

  g_assert_cmpuint (seen->len, ==, n);
  g_assert_cmpstr (g_ptr_array_index (seen, n - 1), ==, name);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_data_func ("/bwrap-git-index/whole", NULL, test_index_read);
  g_test_add_data_func ("/bwrap-git-index/truncated-while-read", "cut", test_index_read);
  g_test_add_func ("/bwrap-git-index/without-nuls", test_index_without_nuls);
  return g_test_run ();
}
