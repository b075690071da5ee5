/* test-number-text.c — the printf-free number appenders spell every value as printf does (zero,
 * the extremes, every width and digit count), and the file identities and probe cache key
 * fields built with them are byte for byte the printf texts earlier builds wrote.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dsh-number-text-private.h"
#include "dsh-platform-private.h"
#include "dsh-probe-cache-private.h"
#include "dsh-test-util.h"

/* Zero, every power of two and of ten with its neighbours, and the extremes. */
static GArray *
edge_values (void)
{
  GArray *values = g_array_new (FALSE, FALSE, sizeof (guint64));
  guint64 v;

  v = 0;
  g_array_append_val (values, v);
  for (guint shift = 0; shift < 64; shift++)
    {
      for (gint delta = -1; delta <= 1; delta++)
        {
          v = ((guint64) 1 << shift) + (guint64) (gint64) delta;
          g_array_append_val (values, v);
        }
    }
  v = 1;
  for (guint i = 0; i < 20; i++, v *= 10)
    {
      for (gint delta = -1; delta <= 1; delta++)
        {
          guint64 near = v + (guint64) (gint64) delta;

          g_array_append_val (values, near);
        }
    }
  v = G_MAXUINT64;
  g_array_append_val (values, v);
  v = G_MAXINT64;
  g_array_append_val (values, v);
  v = (guint64) G_MININT64;
  g_array_append_val (values, v);
  return values;
}

static void
assert_appended (void (*append) (GString *, guint64), guint64 value, const char *expected)
{
  /* Appended after text already there, as the key builders do. */
  g_autoptr (GString) text = g_string_new ("x");

  append (text, value);
  g_assert_cmpstr (text->str + 1, ==, expected);
}

static void
test_unsigned_and_octal (void)
{
  g_autoptr (GArray) values = edge_values ();

  for (guint i = 0; i < values->len; i++)
    {
      guint64 v = g_array_index (values, guint64, i);
      g_autofree char *decimal = g_strdup_printf ("%" G_GUINT64_FORMAT, v);
      g_autofree char *octal = g_strdup_printf ("%" G_GINT64_MODIFIER "o", v);
      g_autofree char *as_uint = g_strdup_printf ("%u", (guint) v);
      g_autofree char *as_ulong = g_strdup_printf ("%lu", (gulong) v);
      g_autofree char *as_octal_uint = g_strdup_printf ("%o", (guint) v);

      assert_appended (dsh_number_text_append_unsigned, v, decimal);
      assert_appended (dsh_number_text_append_octal, v, octal);
      assert_appended (dsh_number_text_append_unsigned, (guint) v, as_uint);
      assert_appended (dsh_number_text_append_unsigned, (gulong) v, as_ulong);
      assert_appended (dsh_number_text_append_octal, (guint) v, as_octal_uint);
    }
}

static void
test_signed_and_padded (void)
{
  g_autoptr (GArray) values = edge_values ();

  for (guint i = 0; i < values->len; i++)
    {
      for (gint sign = 0; sign < 2; sign++)
        {
          gint64 v = (gint64) g_array_index (values, guint64, i);
          g_autofree char *decimal = NULL;
          g_autofree char *as_long = NULL;
          g_autoptr (GString) text = g_string_new (NULL);

          if (sign == 1)
            v = v == G_MININT64 ? v : -v;
          decimal = g_strdup_printf ("%" G_GINT64_FORMAT, v);
          as_long = g_strdup_printf ("%ld", (long) v);
          dsh_number_text_append_signed (text, v);
          g_assert_cmpstr (text->str, ==, decimal);
          g_string_truncate (text, 0);
          dsh_number_text_append_signed (text, (long) v);
          g_assert_cmpstr (text->str, ==, as_long);
          /* Every width from none to past the longest value. */
          for (guint width = 0; width <= 24; width++)
            {
              g_autofree char *padded = g_strdup_printf ("%0*" G_GINT64_FORMAT, (int) width, v);

              g_string_truncate (text, 0);
              dsh_number_text_append_padded (text, v, width);
              g_assert_cmpstr (text->str, ==, padded);
            }
          {
            g_autofree char *nanoseconds = g_strdup_printf ("%09ld", (long) v);

            g_string_truncate (text, 0);
            dsh_number_text_append_padded (text, (long) v, 9);
            g_assert_cmpstr (text->str, ==, nanoseconds);
          }
        }
    }
}

/* What dsh_platform_append_file_identity() appended when it was one g_string_append_printf(). */
static char *
printf_identity (const char *path)
{
  struct stat st;

  if (stat (path, &st) != 0)
    memset (&st, 0, sizeof (st));
  return g_strdup_printf ("%s|%lu|%lu|%o|%u|%lld|%lld.%09ld|%lld.%09ld;", path,
                          (gulong) st.st_dev, (gulong) st.st_ino, (guint) st.st_mode,
                          (guint) st.st_uid, (long long) st.st_size,
                          (long long) st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
                          (long long) st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
}

static void
assert_identity_as_printed (const char *path)
{
  g_autoptr (GString) key = g_string_new (NULL);
  g_autofree char *expected = printf_identity (path);

  dsh_platform_append_file_identity (key, path);
  g_assert_cmpstr (key->str, ==, expected);
}

/* Every file of a few system directories (programs, devices, links, directories), a missing
 * one, and files given times printf spells at their edges: before 1970, whole seconds, the
 * last nanosecond of a second. */
static void
test_file_identities (void)
{
  const char *const dirs[] = { "/", "/usr/bin", "/dev", "/etc", "/proc/self" };
  g_autofree char *scratch = dsh_test_scratch_dir ("number-text");
  g_autofree char *file = g_build_filename (scratch, "stamped", NULL);
  const struct timespec stamps[][2] = {
    { { 0, 0 }, { 0, 0 } },
    { { -1, 999999999 }, { -86400 * 365, 1 } },
    { { 1, 0 }, { 1234567890, 5 } },
    { { G_MAXINT32, 999999999 }, { 4102444800, 100000000 } },
  };
  guint count = 0;

  for (gsize d = 0; d < G_N_ELEMENTS (dirs); d++)
    {
      g_autoptr (GDir) dir = g_dir_open (dirs[d], 0, NULL);
      const char *name;

      assert_identity_as_printed (dirs[d]);
      while (dir != NULL && (name = g_dir_read_name (dir)) != NULL && count < 2000)
        {
          g_autofree char *path = g_build_filename (dirs[d], name, NULL);

          assert_identity_as_printed (path);
          count++;
        }
    }
  g_assert_cmpuint (count, >, 100);
  assert_identity_as_printed ("/nonexistent/dsh-number-text");
  assert_identity_as_printed ("");

  g_assert_true (g_file_set_contents (file, "x", 1, NULL));
  for (gsize i = 0; i < G_N_ELEMENTS (stamps); i++)
    {
      g_assert_cmpint (utimensat (AT_FDCWD, file, stamps[i], 0), ==, 0);
      assert_identity_as_printed (file);
    }
  g_unlink (file);
  dsh_test_remove_tree (scratch);
}

/* The other fields of the probe cache key, as their printf formats spelled them. */
static void
test_key_fields (void)
{
  const long abis[] = { -1, 0, 1, 7, G_MAXLONG, G_MINLONG };
  g_autoptr (GString) key = g_string_new (NULL);
  g_autoptr (GString) expected = g_string_new (NULL);

  for (gsize i = 0; i < G_N_ELEMENTS (abis); i++)
    {
      g_string_truncate (key, 0);
      g_string_truncate (expected, 0);
      dsh_probe_cache_add_host_values (key, "6.18.0-1-amd64", abis[i]);
      g_string_append_printf (expected, "kernel=%s;landlock=%ld;", "6.18.0-1-amd64", abis[i]);
      g_assert_cmpstr (key->str, ==, expected->str);
    }
  g_string_truncate (key, 0);
  g_string_truncate (expected, 0);
  dsh_platform_append_user (key);
  g_string_append_printf (expected, "uid=%u;", (guint) getuid ());
  g_assert_cmpstr (key->str, ==, expected->str);

  g_string_truncate (key, 0);
  g_string_truncate (expected, 0);
  dsh_probe_cache_add_member (key, "bwrap", "/usr/bin/env");
  g_string_append_printf (expected, "module=%s|", "bwrap");
  {
    g_autofree char *identity = printf_identity ("/usr/bin/env");

    g_string_append (expected, identity);
  }
  g_assert_cmpstr (key->str, ==, expected->str);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/number-text/unsigned-and-octal", test_unsigned_and_octal);
  g_test_add_func ("/number-text/signed-and-padded", test_signed_and_padded);
  g_test_add_func ("/number-text/file-identities", test_file_identities);
  g_test_add_func ("/number-text/key-fields", test_key_fields);
  return g_test_run ();
}
