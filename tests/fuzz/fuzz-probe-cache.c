/* fuzz-probe-cache.c — libFuzzer target for the probe-cache file parser: whatever a cache file
 * holds (a torn write, a forged entry, garbage, invalid UTF-8), lookup answers yes or no; never
 * a crash.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <glib/gstdio.h>
#include <unistd.h>

#include "dsh-probe-cache-private.h"
#include "fuzz-target.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static char *path = NULL;

  if (path == NULL)
    {
      int fd = g_file_open_tmp ("dsh-fuzz-probe-cache-XXXXXX", &path, NULL);

      g_assert (fd >= 0);
      close (fd);
    }
  g_assert (g_file_set_contents_full (path, (const char *) data, (gssize) size,
                                      G_FILE_SET_CONTENTS_NONE, 0600, NULL));

  /* Any answer is fine; only a crash, a hang or a leak is a finding. */
  (void) dsh_probe_cache_lookup (path, "fuzz-key");
  return 0;
}
