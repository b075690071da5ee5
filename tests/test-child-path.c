/* test-child-path.c — dsh_child_path() returns what g_build_filename() returns for every
 * combination of edge directories and names: empty, "/", doubled and trailing separators,
 * relative, "." and "..", and a name with separators inside or at its ends.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-child-path-private.h"
#include "dsh-test-util.h"

static void
test_as_g_build_filename (void)
{
  const char *const dirs[] = {
    "", "/", "//", "///", "/usr", "/usr/", "/usr//", "//usr", "/usr/lib/x86_64-linux-gnu",
    "/a//b", "usr", "usr/", ".", "./", "..", "/.", "/..", "/usr/./lib", "/usr/../lib",
    "/with space", "/ü", "/usr\\lib",
  };
  const char *const names[] = {
    "", "/", "//", "x", "/x", "x/", "//x//", "x/y", "x//y", ".", "..", "libdsh-backend-bwrap.so",
    "probe-cache-v5", "a b", "ü", "x\\y",
  };
  guint compared = 0;

  for (gsize d = 0; d < G_N_ELEMENTS (dirs); d++)
    {
      for (gsize n = 0; n < G_N_ELEMENTS (names); n++)
        {
          g_autofree char *expected = g_build_filename (dirs[d], names[n], NULL);
          g_autofree char *joined = dsh_child_path (dirs[d], names[n]);

          g_assert_cmpstr (joined, ==, expected);
          compared++;
        }
    }
  g_assert_cmpuint (compared, ==, G_N_ELEMENTS (dirs) * G_N_ELEMENTS (names));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/child-path/as-g-build-filename", test_as_g_build_filename);
  return g_test_run ();
}
