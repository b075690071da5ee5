/* dsh-roots-refusals.c — the words in which every platform refuses a writable root: one that
 * would let confined commands write where they must not, and one that moved while it was being
 * checked. Paths are shown made valid UTF-8, as every refusal shows them.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-roots-private.h"

#include "dsh-error.h"

gboolean
dsh_roots_refuse_root (GError **error, const char *what, const char *spelled, const char *root,
                       const char *why)
{
  g_autofree char *valid_spelled = g_utf8_make_valid (spelled, -1);
  g_autofree char *valid = g_utf8_make_valid (root, -1);

  g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_ROOT_REFUSED,
               "the %s %s (resolved to %s) %s: confined commands would write there under "
               "workspace-write; refusing to run the command",
               what, valid_spelled, valid, why);
  return FALSE;
}

gboolean
dsh_roots_refuse_moved (GError **error, const char *what, const char *spelled)
{
  g_autofree char *valid = g_utf8_make_valid (spelled, -1);

  g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_ROOT_REFUSED,
               "the %s %s changed while it was being checked; refusing to run the command",
               what, valid);
  return FALSE;
}
