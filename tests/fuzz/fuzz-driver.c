/* fuzz-driver.c — a plain main() for any fuzz target: feeds every file of the given corpus
 * directories (or single files) to LLVMFuzzerTestOneInput, so each target also runs as an
 * ordinary test over its seed corpus without libFuzzer.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <glib.h>
#include <stdio.h>

#include "fuzz-target.h"

static guint
run_file (const char *path)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *contents = NULL;
  gsize length;

  if (!g_file_get_contents (path, &contents, &length, &error))
    {
      fprintf (stderr, "fuzz-driver: %s\n", error->message);
      return 1;
    }
  LLVMFuzzerTestOneInput ((const uint8_t *) contents, length);
  return 0;
}

static gint
compare_paths (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(const char *const *) a, *(const char *const *) b);
}

static guint
run_path (const char *path, guint *count)
{
  g_autoptr (GDir) dir = NULL;
  g_autoptr (GPtrArray) names = NULL;
  const char *name;
  guint failures = 0;

  if (!g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      (*count)++;
      return run_file (path);
    }

  dir = g_dir_open (path, 0, NULL);
  names = g_ptr_array_new_with_free_func (g_free);
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    g_ptr_array_add (names, g_build_filename (path, name, NULL));
  /* A stable order makes a failing input easy to name. */
  g_ptr_array_sort (names, compare_paths);
  for (guint i = 0; i < names->len; i++)
    {
      const char *child = g_ptr_array_index (names, i);

      if (g_file_test (child, G_FILE_TEST_IS_REGULAR))
        {
          (*count)++;
          failures += run_file (child);
        }
    }
  return failures;
}

int
main (int argc, char **argv)
{
  guint count = 0;
  guint failures = 0;

  if (argc < 2)
    {
      fprintf (stderr, "usage: %s CORPUS-DIR|FILE...\n", argv[0]);
      return 2;
    }
  for (int i = 1; i < argc; i++)
    failures += run_path (argv[i], &count);

  printf ("%u inputs, %u unreadable\n", count, failures);
  /* An empty corpus would make the test pass for nothing. */
  return failures == 0 && count > 0 ? 0 : 1;
}
