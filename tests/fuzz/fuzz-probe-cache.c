/* fuzz-probe-cache.c — libFuzzer target for the probe-cache file: whatever a cache file holds
 * (a torn write, a forged entry, garbage, invalid UTF-8), lookup answers yes or no and read
 * gives an entry or none, never crashing; and an entry just stored is found again for its key,
 * and only for its key, with the chain and directories it was stored with.
 *
 * Layout: the key, a NUL, then the cache file's contents.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <string.h>

#include "dsh-probe-cache-private.h"
#include "fuzz-target.h"
#include "fuzz-util.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static char *path = NULL;
  g_autoptr (GPtrArray) fields = fuzz_split_fields (data, size, 2);
  const char *key = g_ptr_array_index (fields, 0);
  const char *contents = fields->len > 1 ? (const char *) data + strlen (key) + 1 : "";
  gsize contents_len = fields->len > 1 ? size - strlen (key) - 1 : 0;
  g_autofree char *other_key = g_strconcat (key, "|other", NULL);
  const char *const chain[] = { "/lib/dsh/libdsh-backend-a.so", "/lib/dsh/libdsh-backend-b.so",
                                NULL };
  const char *const dirs[] = { "/lib/dsh|1|2|40755|0|4096|1.0|1.0;", NULL };
  g_autofree char *read_key = NULL;
  g_auto (GStrv) read_chain = NULL;
  g_auto (GStrv) read_dirs = NULL;

  if (path == NULL)
    path = g_build_filename (fuzz_scratch_dir (), "probe-cache.ini", NULL);
  fuzz_write_file (path, contents, (gssize) contents_len);

  /* Any answer is fine here; only a crash, a hang or a leak is a finding. */
  (void) dsh_probe_cache_lookup (path, key);
  (void) dsh_probe_cache_read (path, &read_key, &read_chain, &read_dirs);
  g_clear_pointer (&read_key, g_free);
  g_clear_pointer (&read_chain, g_strfreev);
  g_clear_pointer (&read_dirs, g_strfreev);

  dsh_probe_cache_store (path, key, chain, dirs);
  /* Every key comes back as it was, whatever bytes it holds (white space, newlines, invalid
   * UTF-8), unless the entry would be too large to be read back: then none is written. */
  if (strlen (key) < 8192)
    {
      g_assert_true (dsh_probe_cache_lookup (path, key));
      g_assert_true (dsh_probe_cache_read (path, &read_key, &read_chain, &read_dirs));
      g_assert_nonnull (read_chain);
      g_assert_true (g_strv_equal ((const char *const *) read_chain, chain));
      g_assert_nonnull (read_dirs);
      g_assert_true (g_strv_equal ((const char *const *) read_dirs, dirs));
    }
  g_assert_false (dsh_probe_cache_lookup (path, other_key));
  g_assert_false (dsh_probe_cache_lookup (NULL, key));
  return 0;
}
