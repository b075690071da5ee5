/* dsh-roots-refusals.c — the words in which every platform refuses a writable root: one that
 * would let confined commands write where they must not, and one that moved while it was being
 * checked. Paths are shown made valid UTF-8, as every refusal shows them.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-roots-private.h"

#include "dsh-config.h"
#include "dsh-error.h"
#include "dsh-roots.h"

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

/* ---- this process's own code ---------------------------------------------------------------- */

typedef struct {
  char *file;
  const char *what;
  gboolean uninstalled;
} OwnCode;

static GArray *own_code;
G_LOCK_DEFINE_STATIC (own_code);

static void
add_own_code (const char *file, const char *what, gboolean uninstalled)
{
  OwnCode entry = { g_strdup (file), what, uninstalled };

  if (own_code == NULL)
    own_code = g_array_new (FALSE, FALSE, sizeof (OwnCode));
  for (guint i = 0; i < own_code->len; i++)
    {
      if (g_str_equal (g_array_index (own_code, OwnCode, i).file, file))
        {
          g_free (entry.file);
          return;
        }
    }
  g_array_append_val (own_code, entry);
}

void
dsh_roots_protect_own_code (const char *file, const char *what, gboolean uninstalled)
{
  g_return_if_fail (file != NULL && g_path_is_absolute (file));

  G_LOCK (own_code);
  add_own_code (file, what, uninstalled);
  G_UNLOCK (own_code);
}

static gsize own_library_done;

gboolean
dsh_roots_check_own_code (const char *const *roots,
                          const char *tmp_root,
                          const char *tmpdir_root,
                          GError **error)
{
  gboolean ok = TRUE;

  if (g_once_init_enter (&own_library_done))
    {
      gboolean uninstalled = FALSE;
      g_autofree char *library = dsh_roots_own_library_file (&uninstalled);

      /* The installed typelib names the library GI programs load: a planted one would have
       * them run a command's code, whichever way this process has the library. */
      g_autofree char *typelib = g_file_test (DSH_TYPELIB_FILE, G_FILE_TEST_EXISTS)
                                   ? dsh_canonical_path (DSH_TYPELIB_FILE)
                                   : NULL;

      if (library != NULL)
        dsh_roots_protect_own_code (library, "library", uninstalled);
      if (typelib != NULL)
        dsh_roots_protect_own_code (typelib, "introspection data", FALSE);
      g_once_init_leave (&own_library_done, 1);
    }
  G_LOCK (own_code);
  for (guint i = 0; ok && own_code != NULL && i < own_code->len; i++)
    {
      const OwnCode *code = &g_array_index (own_code, OwnCode, i);

      for (guint r = 0; ok && roots[r] != NULL; r++)
        {
          g_autofree char *valid_root = NULL;
          g_autofree char *valid_file = NULL;

          if (!dsh_path_is_beneath (code->file, roots[r]))
            continue;
          /* A development build under /tmp or the temp directory trusts its own tree there. */
          if (r > 0 && code->uninstalled &&
              (g_strcmp0 (roots[r], tmp_root) == 0 || g_strcmp0 (roots[r], tmpdir_root) == 0))
            continue;
          valid_root = g_utf8_make_valid (roots[r], -1);
          valid_file = g_utf8_make_valid (code->file, -1);
          g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_ROOT_REFUSED,
                       "the writable root %s holds the dsh-sandbox %s %s: a confined command "
                       "could replace it, and the next call would run its code unconfined; "
                       "refusing to run the command (grant a directory that does not hold "
                       "dsh-sandbox)",
                       valid_root, code->what, valid_file);
          ok = FALSE;
        }
    }
  G_UNLOCK (own_code);
  return ok;
}
