/* dsh-roots-windows.c — canonical paths and the writable roots of a call on Windows: resolved
 * once per call, checked on exactly those strings, and handed down as they are.
 *
 * The Win32 layer takes "." and ".." away lexically before any lookup, so the lexical form is
 * what Windows reaches; what a lookup then resolves is junctions, symbolic links and mount
 * points. A confined command can plant those, and telling one it planted from one the user made
 * would need their history: so no writable root is reached through any of them. Each name on
 * the way is opened as itself and held open, unshared for deletion, until the root's own path
 * is read from its handle: nothing on the way can be swapped between the check and the answer.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-roots.h"
#include "dsh-roots-private.h"

#include <errno.h>
#include <io.h>
#include <string.h>

#include "dsh-error.h"
#include "dsh-root-grants-private.h"
#include "dsh-files-windows-private.h"
#include "dsh-windows-paths-private.h"

char *
dsh_workspace_root (const char *session_cwd, const char *fallback_root)
{
  const char *root = session_cwd != NULL ? session_cwd : fallback_root;

  g_autofree char *canonical = NULL;

  g_return_val_if_fail (root != NULL, NULL);

  /* A root that does not exist keeps its spelling, made absolute. */
  canonical = dsh_canonical_path (root);
  if (dsh_windows_path_root_length (canonical) == 0)
    {
      char *full = dsh_windows_full_path (canonical);

      if (full != NULL)
        {
          g_free (canonical);
          canonical = full;
        }
    }
  return g_steal_pointer (&canonical);
}

gboolean
dsh_path_is_beneath (const char *path, const char *root)
{
  g_return_val_if_fail (path != NULL && root != NULL, FALSE);

  return dsh_windows_path_is_beneath (path, root);
}

char *
dsh_absolute_path_as_spelled (const char *path)
{
  char *full = dsh_windows_full_path (path);

  return full != NULL ? full : g_strdup (path);
}

int
dsh_open_directory_no_symlinks (const char *path, gboolean portable)
{
  g_autofree char *redirect = NULL;
  DWORD code;
  HANDLE handle;
  int fd;

  if (dsh_windows_path_root_length (path) == 0)
    {
      errno = EINVAL;
      return -1;
    }
  handle = dsh_windows_open_directory (path, &redirect, &code);
  if (handle == INVALID_HANDLE_VALUE)
    {
      errno = redirect != NULL                                               ? ELOOP
              : code == ERROR_FILE_NOT_FOUND || code == ERROR_PATH_NOT_FOUND ? ENOENT
              : code == ERROR_DIRECTORY                                      ? ENOTDIR
                                                                             : EACCES;
      return -1;
    }
  /* A C runtime descriptor owning the handle (flags 0: read-only), as the callers expect. */
  fd = _open_osfhandle ((intptr_t) handle, 0);
  if (fd < 0)
    CloseHandle (handle);
  return fd;
}

char *
dsh_canonical_path (const char *path)
{
  g_autofree char *full = NULL;
  g_autofree wchar_t *wide = NULL;
  char *canonical;
  HANDLE handle;

  g_return_val_if_fail (path != NULL, NULL);

  full = dsh_windows_full_path (path);
  wide = full != NULL ? dsh_windows_wide (full, NULL) : NULL;
  if (wide == NULL)
    return g_strdup (path);
  /* Followed, as realpath follows: this names what the path reaches now. */
  handle = CreateFileW (wide, FILE_READ_ATTRIBUTES,
                        FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
                        FILE_FLAG_BACKUP_SEMANTICS, NULL);
  if (handle == INVALID_HANDLE_VALUE)
    return g_strdup (path);
  canonical = dsh_windows_final_path (handle);
  CloseHandle (handle);
  return canonical != NULL ? canonical : g_strdup (path);
}

/* Links are held against the rules where the roots are pinned (resolve_root()); what a root
 * leads to before that is its resolution alone. */
char *
dsh_roots_unplanted_root (const char *path, const char *session_created, gboolean *out_planted)
{
  if (out_planted != NULL)
    *out_planted = FALSE;
  return dsh_workspace_root (path, NULL);
}

char *
dsh_roots_granted_on_the_way (DshRootGrants *grants, const char *spelled)
{
  g_autofree char *canonical = NULL;
  char *granted;

  /* As spelled first: a link on the way that lies in a granted directory could have been
   * pointed elsewhere by a command of that grant. Then where it leads. */
  granted = dsh_root_grants_granted_at_or_above (grants, spelled, NULL);
  if (granted != NULL)
    return granted;
  canonical = dsh_canonical_path (spelled);
  if (g_str_equal (canonical, spelled))
    return NULL;
  return dsh_root_grants_granted_at_or_above (grants, canonical, NULL);
}

GStrv
dsh_roots_granted_above_dirs (DshRootGrants *grants, const char *const *dirs)
{
  g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();

  for (gsize i = 0; dirs != NULL && dirs[i] != NULL; i++)
    {
      g_autofree char *granted = dsh_roots_granted_on_the_way (grants, dirs[i]);

      if (granted != NULL)
        g_strv_builder_add (builder, granted);
    }
  return g_strv_builder_end (builder);
}

/* ---- the rules ----------------------------------------------------------------------------- */

/* The user's profile directory as Windows spells it, or NULL when the environment names none. */
static char *
profile_directory (void)
{
  const char *profile = g_getenv ("USERPROFILE");

  return profile != NULL && *profile != '\0' ? dsh_canonical_path (profile) : NULL;
}

/* Directories of Windows itself and of installed programs (canonical). */
static GStrv
system_trees (void)
{
  static const char *const variables[] = {
    "SystemRoot", "windir", "ProgramFiles", "ProgramFiles(x86)", "ProgramW6432", "ProgramData",
  };
  g_autoptr (GPtrArray) trees = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < G_N_ELEMENTS (variables); i++)
    {
      const char *value = g_getenv (variables[i]);

      if (value != NULL && dsh_windows_path_root_length (value) > 0)
        g_ptr_array_add (trees, dsh_canonical_path (value));
    }
  g_ptr_array_add (trees, NULL);
  return (GStrv) g_ptr_array_steal (trees, NULL);
}

/* Why root (canonical) may not be a writable root next to workspace_root, or NULL. */
static char *
root_refusal (const char *root, const char *workspace_root)
{
  g_autofree char *profile = profile_directory ();
  g_auto (GStrv) trees = system_trees ();

  return dsh_windows_root_refusal (root, workspace_root, profile, (const char *const *) trees);
}

gboolean
dsh_roots_check_workspace (const char *workspace_root, GError **error)
{
  g_autofree char *profile = profile_directory ();
  g_autofree char *why = NULL;
  g_autofree char *shown = NULL;

  why = dsh_windows_root_refusal (workspace_root, NULL, profile, NULL);
  if (why == NULL)
    return TRUE;
  shown = g_utf8_make_valid (workspace_root, -1);
  g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_ROOT_REFUSED,
               "the workspace root %s %s: under workspace-write confined commands would write "
               "all of it; refusing to run the command (choose the project's directory as the "
               "workspace)",
               shown, why);
  return FALSE;
}

static gboolean
refuse_link (GError **error, const char *what, const char *spelled, const char *link)
{
  g_autofree char *valid = g_utf8_make_valid (spelled, -1);
  g_autofree char *valid_link = g_utf8_make_valid (link, -1);

  g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_ROOT_REFUSED,
               "the %s %s is reached through the junction or symbolic link %s: a confined "
               "command could have planted it to move the writable roots, and on Windows no "
               "writable root is reached through one; refusing to run the command (name the "
               "directory it points to instead)",
               what, valid, valid_link);
  return FALSE;
}

/* Resolves spelled the one time this call does: *out_root is the path Windows has for the
 * directory reached without a link on the way, or the normalised spelling when it does not
 * exist yet (it matches nothing until it does). */
static gboolean
resolve_root (const char *what, const char *spelled, char **out_root, gboolean *out_exists,
              GError **error)
{
  g_autofree char *full = dsh_windows_full_path (spelled);
  g_autofree char *redirect = NULL;
  DWORD code;
  HANDLE handle;

  if (out_exists != NULL)
    *out_exists = FALSE;
  if (full == NULL || dsh_windows_path_root_length (full) == 0)
    return dsh_roots_refuse_root (error, what, spelled, spelled,
                                  "is not an absolute path Windows can open");
  handle = dsh_windows_open_directory (full, &redirect, &code);
  if (handle == INVALID_HANDLE_VALUE)
    {
      g_autofree char *why = NULL;

      if (redirect != NULL)
        return refuse_link (error, what, spelled, redirect);
      if (code == ERROR_FILE_NOT_FOUND || code == ERROR_PATH_NOT_FOUND)
        {
          *out_root = g_steal_pointer (&full);
          return TRUE;
        }
      why = dsh_windows_error_text (code);
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_ROOT_REFUSED,
                   "the %s %s cannot be opened one name at a time without following a link (%s); "
                   "refusing to run the command",
                   what, full, why);
      return FALSE;
    }
  *out_root = dsh_windows_final_path (handle);
  CloseHandle (handle);
  if (out_exists != NULL)
    *out_exists = TRUE;
  if (*out_root == NULL)
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_ROOT_REFUSED,
                   "Windows cannot say which directory the %s %s is; refusing to run the command",
                   what, full);
      return FALSE;
    }
  return TRUE;
}

static void
add_unique (GPtrArray *roots, const char *root)
{
  for (guint i = 0; i < roots->len; i++)
    {
      if (dsh_windows_path_is_beneath (roots->pdata[i], root) &&
          dsh_windows_path_is_beneath (root, roots->pdata[i]))
        return;
    }
  g_ptr_array_add (roots, g_strdup (root));
}

/* No link is allowed on the way to any root, whenever it was made, so a session's creation time
 * adds nothing to tell apart. */
gboolean
dsh_roots_resolve (const char *spelled_workspace,
                   const char *workspace_root,
                   const char *session_created,
                   const char *const *extra,
                   DshRootsResolveFlags flags,
                   GStrv *out_roots,
                   GError **error)
{
  g_autoptr (GPtrArray) roots = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (DshRootGrants) grants = NULL;
  g_autofree char *grants_dir = NULL;
  g_autofree char *workspace = NULL;
  gboolean exists;

  /* Taking the workspace root from the walk alone is the unix side's only. */
  g_return_val_if_fail (workspace_root != NULL, FALSE);

  if (!dsh_roots_check_workspace (workspace_root, error))
    return FALSE;
  grants_dir = dsh_root_grants_default_dir ();
  grants = dsh_root_grants_open (grants_dir, error);
  if (grants == NULL)
    return FALSE;

  if (!resolve_root ("workspace", spelled_workspace, &workspace, &exists, error))
    return FALSE;
  /* The caller resolved workspace_root a moment ago: landing elsewhere now means it moved. */
  if (exists &&
      (!dsh_windows_path_is_beneath (workspace_root, workspace) ||
       !dsh_windows_path_is_beneath (workspace, workspace_root)))
    return dsh_roots_refuse_moved (error, "workspace", spelled_workspace);
  g_ptr_array_add (roots, g_strdup (workspace_root));

  if ((flags & DSH_ROOTS_RESOLVE_TEMP_ROOTS) != 0)
    {
      const char *tmpdir = g_get_tmp_dir ();
      g_autofree char *temp = NULL;
      g_autofree char *why = NULL;

      if (!resolve_root ("temp directory", tmpdir, &temp, NULL, error))
        return FALSE;
      why = root_refusal (temp, workspace_root);
      if (why != NULL)
        return dsh_roots_refuse_root (error, "temp directory (TMP, TEMP)", tmpdir, temp, why);
      add_unique (roots, temp);
    }
  for (gsize i = 0; extra != NULL && extra[i] != NULL; i++)
    {
      g_autofree char *root = NULL;
      g_autofree char *why = NULL;

      if (dsh_windows_path_root_length (extra[i]) == 0)
        return dsh_roots_refuse_root (error, "extra writable root", extra[i], extra[i],
                                      "is not an absolute path");
      if (!resolve_root ("extra writable root", extra[i], &root, NULL, error))
        return FALSE;
      why = root_refusal (root, workspace_root);
      if (why != NULL)
        return dsh_roots_refuse_root (error, "extra writable root", extra[i], root, why);
      add_unique (roots, root);
    }
  g_ptr_array_add (roots, NULL);

  if (!dsh_root_grants_check_out_of_reach (grants, (const char *const *) roots->pdata, error))
    return FALSE;
  for (guint r = 0; (flags & DSH_ROOTS_RESOLVE_RECORD) != 0 && roots->pdata[r] != NULL; r++)
    {
      if (!dsh_root_grants_record (grants, roots->pdata[r], error))
        return FALSE;
    }
  *out_roots = (GStrv) g_ptr_array_steal (roots, NULL);
  return TRUE;
}

GStrv
dsh_roots_unpinned (const DshSandboxPolicy *policy)
{
  g_autoptr (GPtrArray) roots = g_ptr_array_new_with_free_func (g_free);

  /* Not pinned: the workspace root is the policy's own canonical string, never resolved again;
   * a temp directory or extra root that would widen the roots is left out. */
  g_ptr_array_add (roots, g_strdup (policy->workspace_root));
  {
    g_autofree char *temp = dsh_canonical_path (g_get_tmp_dir ());
    g_autofree char *why = root_refusal (temp, policy->workspace_root);

    if (why == NULL)
      add_unique (roots, temp);
  }
  for (gsize i = 0; policy->extra_writable_roots != NULL && policy->extra_writable_roots[i]; i++)
    {
      const char *extra = policy->extra_writable_roots[i];
      g_autofree char *root = dsh_windows_path_root_length (extra) > 0
                                ? dsh_canonical_path (extra)
                                : NULL;
      g_autofree char *why = root != NULL ? root_refusal (root, policy->workspace_root) : NULL;

      if (root != NULL && why == NULL)
        add_unique (roots, root);
    }
  g_ptr_array_add (roots, NULL);
  return (GStrv) g_ptr_array_steal (roots, NULL);
}

/* No link is allowed on the way to any root, whenever it was made, so a session's creation
 * time adds nothing to tell apart: the cwd is refused as any root would be. */
gboolean
dsh_roots_check_session_cwd (const char *cwd, const char *created, GError **error)
{
  g_autofree char *root = NULL;

  g_return_val_if_fail (cwd != NULL, FALSE);

  if (dsh_windows_path_root_length (cwd) == 0)
    return TRUE;
  return resolve_root ("session's cwd", cwd, &root, NULL, error);
}

/* A Windows build names no library file yet (GetModuleHandleEx would). */
char *
dsh_roots_own_library_file (gboolean *out_uninstalled)
{
  *out_uninstalled = FALSE;
  return NULL;
}
