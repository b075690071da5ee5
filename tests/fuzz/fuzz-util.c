/* fuzz-util.c — shared helpers of the fuzz targets.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fuzz-util.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* Provided by the sanitizer runtimes when the target is built with them. */
void __sanitizer_set_report_fd (void *fd) __attribute__ ((weak));

static char *scratch;

void
fuzz_remove_tree (const char *path)
{
  GDir *dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
        fuzz_remove_tree (child);
      else
        g_unlink (child);
    }
  if (dir != NULL)
    g_dir_close (dir);
  g_rmdir (path);
}

static void
remove_scratch (void)
{
  if (scratch != NULL)
    fuzz_remove_tree (scratch);
}

const char *
fuzz_scratch_dir (void)
{
  const char *base = g_getenv ("DSH_TEST_SCRATCH");

  if (scratch != NULL)
    return scratch;
  scratch = g_build_filename (base != NULL && g_path_is_absolute (base) ? base : "/var/tmp",
                              "dsh-fuzz-XXXXXX", NULL);
  if (g_mkdtemp_full (scratch, 0700) == NULL)
    g_error ("cannot make a scratch directory %s: %s", scratch, g_strerror (errno));
  atexit (remove_scratch);
  /* A record of granted roots of its own, as each test has: the user's would gain this run's
   * grants, and its earlier grants (a temp directory, say) would refuse this run's files. */
  if (g_getenv ("DSH_SANDBOX_STATE_DIR") == NULL)
    {
      g_autofree char *state = g_build_filename (scratch, "state", NULL);

      g_setenv ("DSH_SANDBOX_STATE_DIR", state, TRUE);
    }
  return scratch;
}

/* Warnings (crash residue, refused entries) are expected output; an error or a critical is a
 * finding, and abort() (unlike GLib's breakpoint trap) makes libFuzzer keep the input. */
static GLogWriterOutput
write_log (GLogLevelFlags log_level, const GLogField *fields, gsize n_fields, gpointer user_data)
{
  if ((log_level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL)) == 0)
    return G_LOG_WRITER_HANDLED;
  g_log_writer_standard_streams (log_level, fields, n_fields, user_data);
  abort ();
}

__attribute__ ((constructor)) static void
install_log_writer (void)
{
  g_log_set_writer_func (write_log, NULL, NULL);
}

GPtrArray *
fuzz_split_fields (const uint8_t *data, size_t size, guint max_fields)
{
  GPtrArray *fields = g_ptr_array_new_with_free_func (g_free);
  const char *cursor = (const char *) data;
  const char *end = cursor + size;

  while (max_fields > 0 && fields->len + 1 < max_fields)
    {
      const char *nul = memchr (cursor, '\0', (size_t) (end - cursor));

      if (nul == NULL)
        break;
      g_ptr_array_add (fields, g_strndup (cursor, (gsize) (nul - cursor)));
      cursor = nul + 1;
    }
  if (max_fields > 0)
    g_ptr_array_add (fields, g_strndup (cursor, (gsize) (end - cursor)));
  return fields;
}

void
fuzz_write_file (const char *path, const char *contents, gssize length)
{
  /* Not g_file_set_contents_full (NONE): GLib 2.74 leaves the old tail of a longer file. */
  int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  gsize left = length < 0 ? strlen (contents) : (gsize) length;

  if (fd < 0)
    g_error ("cannot write %s: %s", path, g_strerror (errno));
  while (left > 0)
    {
      gssize n = write (fd, contents, left);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        g_error ("cannot write %s: %s", path, g_strerror (errno));
      contents += n;
      left -= (gsize) n;
    }
  close (fd);
}

static int saved_stderr = -1;
static int null_fd = -1;

void
fuzz_silence_stderr (void)
{
  if (saved_stderr < 0)
    {
      saved_stderr = fcntl (2, F_DUPFD_CLOEXEC, 3);
      null_fd = open ("/dev/null", O_WRONLY | O_CLOEXEC);
      g_assert_true (saved_stderr >= 0 && null_fd >= 0);
      if (__sanitizer_set_report_fd != NULL)
        __sanitizer_set_report_fd ((void *) (gintptr) saved_stderr);
    }
  fflush (stderr);
  dup2 (null_fd, 2);
}

void
fuzz_restore_stderr (void)
{
  fflush (stderr);
  if (saved_stderr >= 0)
    dup2 (saved_stderr, 2);
}

int
fuzz_enter_dir (const char *dir)
{
  int saved = open (".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  g_assert_true (saved >= 0);
  if (chdir (dir) != 0)
    g_error ("cannot enter %s: %s", dir, g_strerror (errno));
  return saved;
}

void
fuzz_leave_dir (int saved)
{
  g_assert_cmpint (fchdir (saved), ==, 0);
  close (saved);
}
