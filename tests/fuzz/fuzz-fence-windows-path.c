/* fuzz-fence-windows-path.c — libFuzzer target for how the Windows side of the filesystem fence
 * reads a path (pure string logic, so every host fuzzes what Windows decides):
 *   - a path below a root yields names the fence can open one at a time: none empty, ".", ".."
 *     or holding a separator, and the root is below itself with no names;
 *   - a path that is below a root is below it in any ASCII letter case, as Windows opens names;
 *   - the name and git refusals never crash, and a refused name is refused in any letter case
 *     where git's own files are concerned.
 *
 * Layout: NUL-separated: the path, the root.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <string.h>

#include "dsh-fs-fence-windows-path-private.h"
#include "fuzz-target.h"
#include "fuzz-util.h"

static void
assert_openable_names (GStrv names)
{
  for (guint i = 0; names[i] != NULL; i++)
    {
      g_assert_cmpstr (names[i], !=, "");
      g_assert_cmpstr (names[i], !=, ".");
      g_assert_cmpstr (names[i], !=, "..");
      g_assert_null (strpbrk (names[i], "\\/"));
      (void) dsh_fence_windows_name_refusal (names[i]);
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *path = g_strndup ((const char *) data, size);
  gsize root_at = MIN (strlen (path) + 1, size);
  g_autofree char *root_copy = g_strndup ((const char *) data + root_at, size - root_at);
  g_autofree char *upper = g_ascii_strup (path, -1);
  g_auto (GStrv) names = dsh_fence_windows_names_below (path, root_copy);
  g_auto (GStrv) upper_names = NULL;
  g_auto (GStrv) itself = NULL;

  if (names == NULL)
    return 0;
  assert_openable_names (names);
  for (int use = DSH_FENCE_WINDOWS_USE_WRITE; use <= DSH_FENCE_WINDOWS_USE_MOVE_DIR; use++)
    (void) dsh_fence_windows_git_refusal ((const char *const *) names, g_strv_length (names),
                                          (DshFenceWindowsUse) use);

  upper_names = dsh_fence_windows_names_below (upper, root_copy);
  g_assert_nonnull (upper_names);
  g_assert_cmpuint (g_strv_length (upper_names), ==, g_strv_length (names));
  /* git's own files are refused in every letter case. */
  g_assert_true ((dsh_fence_windows_git_refusal ((const char *const *) names,
                                                 g_strv_length (names),
                                                 DSH_FENCE_WINDOWS_USE_WRITE) == NULL) ==
                 (dsh_fence_windows_git_refusal ((const char *const *) upper_names,
                                                 g_strv_length (upper_names),
                                                 DSH_FENCE_WINDOWS_USE_WRITE) == NULL));

  itself = dsh_fence_windows_names_below (root_copy, root_copy);
  g_assert_nonnull (itself);
  g_assert_cmpuint (g_strv_length (itself), ==, 0);
  return 0;
}
