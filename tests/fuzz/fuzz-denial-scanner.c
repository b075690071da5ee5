/* fuzz-denial-scanner.c — libFuzzer target for the scanner that looks through a flood of
 * stderr for a denial: whatever the bytes and however they are cut into chunks, it finds
 * exactly the first whole line (ended, at most 64 KiB) that the classifier's own rule takes
 * as proof, or none. A difference aborts.
 *
 * Layout: byte 0 picks the chunk sizes, and its top two bits the signatures (one, four or
 * nine: each count is scanned its own way); the rest is the stream.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-denial-scanner-private.h"

#include <stdlib.h>
#include <string.h>

#include "fuzz-target.h"

#define LINE_LIMIT (64 * 1024)

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  const char *argv[] = { "runner", NULL };
  const char *four[] = { "Permission denied", "code EACCES", "Read-only file system", "ied",
                         NULL };
  const char *one[] = { "Read-only file system", NULL };
  const char *nine[] = { "Permission denied", "code EACCES", "Read-only file system", "ied",
                         "Operation not permitted", "EPERM", "deny file-write", "Access denied",
                         "sandbox", NULL };
  const char *const *sets[] = { four, one, nine, four };
  const char *exclusions[] = { "Permission denied (publickey", NULL };
  const char *fatal[] = { "runner: fatal: ", NULL };
  const int gate[] = { 125 };
  const gsize sizes[] = { 1, 3, 16, 63, 64, 65, 100, 4096 };
  g_autoptr (GPtrArray) rules = g_ptr_array_new_with_free_func (
    (GDestroyNotify) dsh_runner_failure_rule_free);
  g_autoptr (DshConfinement) confinement = NULL;
  g_autoptr (DshDenialScanner) scanner = NULL;
  const char *text;
  const char *expected = NULL;
  gsize expected_len = 0;
  const char *found;
  gsize found_len;
  gsize len;

  if (size == 0)
    return 0;
  g_ptr_array_add (rules, dsh_runner_failure_rule_new (gate, 1, fatal, NULL));
  confinement = dsh_confinement_new (argv, "runner", DSH_ENFORCEMENT_FULL, NULL,
                                     sets[data[0] >> 6], exclusions, rules);
  text = (const char *) data + 1;
  len = size - 1;

  for (gsize start = 0, pos = 0; pos < len && expected == NULL; pos++)
    {
      if (text[pos] != '\n')
        continue;
      if (pos - start <= LINE_LIMIT &&
          dsh_confinement_is_denial_evidence (confinement, text + start, pos - start))
        {
          expected = text + start;
          expected_len = pos - start + 1;
        }
      start = pos + 1;
    }

  scanner = dsh_denial_scanner_new (confinement);
  for (gsize pos = 0, i = data[0]; pos < len; i = i * 7 + 3)
    {
      gsize n = MIN (sizes[i % G_N_ELEMENTS (sizes)], len - pos);

      dsh_denial_scanner_feed (scanner, text + pos, n);
      pos += n;
    }
  found = dsh_denial_scanner_get_evidence (scanner, &found_len);
  if ((found == NULL) != (expected == NULL) ||
      (found != NULL && (found_len != expected_len || memcmp (found, expected, found_len) != 0)))
    abort ();
  return 0;
}
