/* dsh-fs-fence-windows.c — the filesystem fence on Windows. Windows has no openat2, but the NT
 * layer opens a name relative to a directory handle (NtCreateFile with a RootDirectory): the
 * fence opens the root, then each name below it from the previous handle, with
 * FILE_OPEN_REPARSE_POINT so that no symbolic link, junction or mount point is ever followed,
 * and refuses every one it meets. Each step is relative to the handle of the one before, so
 * there is no window between a check and the use.
 *
 * What the POSIX fence takes from open(2) it takes from the C runtime here: the O_ flags of
 * <fcntl.h> and a descriptor made with _open_osfhandle(), binary unless O_TEXT is asked for.
 * Mode bits have no meaning on Windows, so what they ask for is done with an ACL: a mode that
 * gives group and others nothing (0600, 0700) makes the new file or directory the user's alone
 * (a protected DACL with one entry); any other mode lets it inherit its directory's ACL, as
 * Windows does; a file mode without the owner's write bit makes it read-only.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-fs-fence.h"
#include "dsh-fs-fence-private.h"
#include "dsh-fs-fence-windows-path-private.h"

#include <windows.h>
#include <winternl.h>
#include <fcntl.h>
#include <errno.h>
#include <io.h>
#include <string.h>

#include <gio/gio.h>

#include "dsh-owner-only-windows-private.h"
#include "dsh-roots.h"

void
dsh_fs_fence_set_portable_walk_for_testing (gboolean enabled)
{
  /* There is one walk on Windows: the handle-relative one. */
}

/* ---- errors ------------------------------------------------------------------------------ */

static void
set_win32_error (GError **error, DWORD code, const char *what, const char *path)
{
  g_autofree char *reason = g_win32_error_message ((gint) code);

  g_set_error (error, G_IO_ERROR, g_io_error_from_win32_error ((gint) code), "cannot %s %s: %s",
               what, dsh_fs_fence_printable (path), reason);
}

static wchar_t *
to_wide (const char *text)
{
  return g_utf8_to_utf16 (text, -1, NULL, NULL, NULL);
}

static char *
from_wide (const wchar_t *text)
{
  return g_utf16_to_utf8 (text, -1, NULL, NULL, NULL);
}

/* ---- resolution beneath one root --------------------------------------------------------- */

/* DENIED: the path escapes this root, why says how (another root may contain it); FAILED: a
 * real error (code) that no other root would change. */
typedef enum {
  BENEATH_OK,
  BENEATH_DENIED,
  BENEATH_FAILED,
} BeneathResult;

typedef struct {
  DWORD code;
  /* Set when the error is better told by GIO's code than by code's own (a directory). */
  gboolean is_directory;
  const char *why;
} BeneathWhy;

/* What the fence refuses to open through, or NULL. A name surrogate (symbolic link, junction,
 * mount point) leads elsewhere; any other reparse point (a cloud placeholder, a deduplicated or
 * compressed file) is a file system filter's business, which the fence cannot vouch for: it is
 * refused too rather than opened as something it is not. Unreadable attributes count as a link. */
static const char *
reparse_refusal (HANDLE handle)
{
  FILE_ATTRIBUTE_TAG_INFO tag;

  if (!GetFileInformationByHandleEx (handle, FileAttributeTagInfo, &tag, sizeof tag))
    return "its attributes cannot be read, so it may be a link";
  if ((tag.FileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) == 0)
    return NULL;
  if (IsReparseTagNameSurrogate (tag.ReparseTag))
    return "a symbolic link, junction or mount point leads elsewhere";
  return "a reparse point (a cloud placeholder, a deduplicated file...) the fence does not "
         "open through";
}

static gboolean
is_reparse_point (HANDLE handle)
{
  return reparse_refusal (handle) != NULL;
}

static gboolean
is_directory (HANDLE handle)
{
  FILE_ATTRIBUTE_TAG_INFO tag;

  return GetFileInformationByHandleEx (handle, FileAttributeTagInfo, &tag, sizeof tag) &&
         (tag.FileAttributes & FILE_ATTRIBUTE_DIRECTORY) != 0;
}

/* Opens name (one plain name) in the directory dir, never following a reparse point; the NT
 * status turned into a Win32 error code. security (nullable) is for a file it creates. */
static DWORD
open_relative (HANDLE dir, const char *name, ACCESS_MASK access, ULONG attributes,
               ULONG disposition, ULONG options, PSECURITY_DESCRIPTOR security, HANDLE *out)
{
  g_autofree wchar_t *wide = to_wide (name);
  UNICODE_STRING unicode;
  OBJECT_ATTRIBUTES object;
  IO_STATUS_BLOCK io;
  NTSTATUS status;
  gsize length;

  *out = INVALID_HANDLE_VALUE;
  if (wide == NULL || (length = wcslen (wide)) > 32767)
    return ERROR_INVALID_NAME;
  unicode.Buffer = wide;
  unicode.Length = unicode.MaximumLength = (USHORT) (length * sizeof (wchar_t));
  /* Case-insensitive, as CreateFileW opens names. */
  InitializeObjectAttributes (&object, &unicode, OBJ_CASE_INSENSITIVE, dir, security);
  status = NtCreateFile (out, access | SYNCHRONIZE, &object, &io, NULL, attributes,
                         FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, disposition,
                         options | FILE_OPEN_REPARSE_POINT | FILE_SYNCHRONOUS_IO_NONALERT, NULL,
                         0);
  if (!NT_SUCCESS (status))
    {
      *out = INVALID_HANDLE_VALUE;
      return RtlNtStatusToDosError (status);
    }
  return ERROR_SUCCESS;
}

/* The path of an open file as Windows resolved it, in its plain form ("C:\...", "\\server\..."). */
static char *
final_path (HANDLE handle)
{
  wchar_t buf[MAX_PATH + 1];
  g_autofree wchar_t *big = NULL;
  const wchar_t *path = buf;
  DWORD n = GetFinalPathNameByHandleW (handle, buf, G_N_ELEMENTS (buf), FILE_NAME_NORMALIZED);

  if (n == 0)
    return NULL;
  if (n >= G_N_ELEMENTS (buf))
    {
      big = g_new0 (wchar_t, n + 1);
      if (GetFinalPathNameByHandleW (handle, big, n + 1, FILE_NAME_NORMALIZED) == 0)
        return NULL;
      path = big;
    }
  if (wcsncmp (path, L"\\\\?\\UNC\\", 8) == 0)
    {
      g_autofree char *rest = from_wide (path + 8);

      return rest != NULL ? g_strconcat ("\\\\", rest, NULL) : NULL;
    }
  if (wcsncmp (path, L"\\\\?\\", 4) == 0)
    path += 4;
  return from_wide (path);
}

/* Is a the same path as b, as Windows compares names? */
static gboolean
same_path (const char *a, const char *b)
{
  g_auto (GStrv) below = dsh_fence_windows_names_below (a, b);

  return below != NULL && below[0] == NULL;
}

/* Opens a writable root itself. The root is canonical: if what Windows reaches is not the root
 * itself (a link or junction appeared on the way since it was resolved), it matches nothing. */
static HANDLE
open_root (const char *root)
{
  g_autofree wchar_t *wide = to_wide (root);
  g_autofree char *reached = NULL;
  HANDLE handle;

  if (wide == NULL)
    return INVALID_HANDLE_VALUE;
  handle = CreateFileW (wide,
                        FILE_TRAVERSE | FILE_READ_ATTRIBUTES | SYNCHRONIZE,
                        FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                        OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT,
                        NULL);
  if (handle == INVALID_HANDLE_VALUE)
    return handle;
  reached = final_path (handle);
  if (!is_directory (handle) || is_reparse_point (handle) || reached == NULL ||
      !same_path (reached, root))
    {
      CloseHandle (handle);
      return INVALID_HANDLE_VALUE;
    }
  return handle;
}

/* Walks names[0 .. n) from root, each a directory that is no reparse point; *out_dir is the
 * last one's handle (a new handle to the root when n is 0). */
static BeneathResult
walk_directories (HANDLE root, char **names, guint n, HANDLE *out_dir, BeneathWhy *why)
{
  HANDLE dir = INVALID_HANDLE_VALUE;

  if (!DuplicateHandle (GetCurrentProcess (), root, GetCurrentProcess (), &dir, 0, FALSE,
                        DUPLICATE_SAME_ACCESS))
    {
      why->code = GetLastError ();
      return BENEATH_FAILED;
    }
  for (guint i = 0; i < n; i++)
    {
      HANDLE next;
      DWORD code;

      if ((why->why = dsh_fence_windows_name_refusal (names[i])) != NULL)
        {
          CloseHandle (dir);
          return BENEATH_DENIED;
        }
      /* Traversal only, as O_PATH: a directory the user may pass through but not list is
       * walked as on POSIX. */
      code = open_relative (dir, names[i], FILE_TRAVERSE | FILE_READ_ATTRIBUTES, 0, FILE_OPEN,
                            FILE_DIRECTORY_FILE, NULL, &next);
      CloseHandle (dir);
      if (code != ERROR_SUCCESS)
        {
          why->code = code;
          return BENEATH_FAILED;
        }
      if ((why->why = reparse_refusal (next)) != NULL)
        {
          CloseHandle (next);
          return BENEATH_DENIED;
        }
      dir = next;
    }
  *out_dir = dir;
  return BENEATH_OK;
}

/* The parent of the entry names[n - 1] beneath root, and that entry's name. */
static BeneathResult
parent_beneath (HANDLE root, char **names, HANDLE *out_parent, const char **out_leaf,
                BeneathWhy *why)
{
  guint n = g_strv_length (names);

  if (n == 0)
    {
      /* The root itself: never an entry a write tool may create, open or remove. */
      why->why = "a writable root itself is not a file";
      return BENEATH_DENIED;
    }
  if ((why->why = dsh_fence_windows_name_refusal (names[n - 1])) != NULL)
    return BENEATH_DENIED;
  *out_leaf = names[n - 1];
  return walk_directories (root, names, n - 1, out_parent, why);
}

/* The name an existing entry has on disk ("GIT~1" and ".GIT" open ".git"), and whether it is a
 * directory; FALSE when there is no such entry. *out_name is NULL when it cannot be read. */
static gboolean
stored_name (HANDLE parent, const char *leaf, char **out_name, gboolean *out_directory)
{
  g_autofree char *path = NULL;
  HANDLE entry;
  const char *last;

  *out_name = NULL;
  *out_directory = FALSE;
  if (open_relative (parent, leaf, FILE_READ_ATTRIBUTES, 0, FILE_OPEN, 0, NULL, &entry) !=
      ERROR_SUCCESS)
    return FALSE;
  *out_directory = is_directory (entry);
  path = final_path (entry);
  CloseHandle (entry);
  last = path != NULL ? strrchr (path, '\\') : NULL;
  if (last != NULL && last[1] != '\0')
    *out_name = g_strdup (last + 1);
  return TRUE;
}

/* Why the entry leaf of parent is one of git's own files, kept read-only as bwrap keeps them
 * (a write tool must not plant what a later unconfined git runs), or NULL. Judged by the long
 * names Windows resolved the parent to below the root and, when the entry exists, by the name
 * it has on disk, so no short name (GIT~1) or letter case gets around it; a path that cannot be
 * read back is refused. An existing directory taken away is moved, whatever use says. */
static const char *
git_refusal (HANDLE root, HANDLE parent, const char *leaf, DshFenceWindowsUse use)
{
  g_autofree char *root_path = final_path (root);
  g_autofree char *parent_path = final_path (parent);
  g_autofree char *stored = NULL;
  g_auto (GStrv) names = NULL;
  g_autoptr (GPtrArray) entry = g_ptr_array_new ();
  gboolean directory = FALSE;

  if (root_path == NULL || parent_path == NULL ||
      (names = dsh_fence_windows_names_below (parent_path, root_path)) == NULL)
    return "cannot tell whether it is one of git's own files";
  if (stored_name (parent, leaf, &stored, &directory) && stored == NULL)
    return "cannot tell whether it is one of git's own files";
  if (directory && use == DSH_FENCE_WINDOWS_USE_REMOVE)
    use = DSH_FENCE_WINDOWS_USE_MOVE_DIR;
  for (guint i = 0; names[i] != NULL; i++)
    g_ptr_array_add (entry, names[i]);
  g_ptr_array_add (entry, (gpointer) leaf);
  if (dsh_fence_windows_git_refusal ((const char *const *) entry->pdata, entry->len, use) != NULL)
    return dsh_fence_windows_git_refusal ((const char *const *) entry->pdata, entry->len, use);
  if (stored == NULL)
    return NULL;
  entry->pdata[entry->len - 1] = stored;
  return dsh_fence_windows_git_refusal ((const char *const *) entry->pdata, entry->len, use);
}

/* ---- choosing the roots ------------------------------------------------------------------ */

/* The names of path below root, to open one at a time from the root's handle. */
static gpointer
names_below (const char *path, const char *root)
{
  return dsh_fence_windows_names_below (path, root);
}

/* path made absolute as Win32 makes it (lexically, against the current directory of its
 * drive); NULL when it cannot be. */
static char *
full_path (const char *path)
{
  g_autofree wchar_t *wide = to_wide (path);
  g_autofree wchar_t *full = NULL;
  DWORD n;

  if (wide == NULL || (n = GetFullPathNameW (wide, 0, NULL, NULL)) == 0)
    return NULL;
  full = g_new0 (wchar_t, n + 1);
  if (GetFullPathNameW (wide, n + 1, full, NULL) == 0)
    return NULL;
  return from_wide (full);
}

/* Where the directory at dir really is (its links and junctions followed), or NULL. */
static char *
resolved_directory (const char *dir)
{
  g_autofree wchar_t *wide = to_wide (dir);
  HANDLE handle;
  char *resolved;

  if (wide == NULL)
    return NULL;
  handle = CreateFileW (wide, FILE_READ_ATTRIBUTES,
                        FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                        OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
  if (handle == INVALID_HANDLE_VALUE)
    return NULL;
  resolved = final_path (handle);
  CloseHandle (handle);
  return resolved;
}

/* Routes path to the roots that may contain it: as spelled, then with its directory resolved
 * (callers spell paths through linked folders). A route only chooses a root and never grants:
 * every open is still made from the root's handle, one name at a time. */
static GArray *
route (GStrv roots, const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *base = g_path_get_basename (path);
  g_autofree char *real = resolved_directory (dir);
  g_autofree char *resolved = real != NULL ? g_build_filename (real, base, NULL) : NULL;

  return dsh_fs_fence_route (roots, path,
                             resolved != NULL && !same_path (resolved, path) ? resolved : NULL,
                             names_below, (GDestroyNotify) g_strfreev);
}

typedef BeneathResult (*BeneathOp) (HANDLE root, char **names, gpointer data, BeneathWhy *why);

/* Runs op beneath each route of path until one succeeds. */
static gboolean
fenced (const DshSandboxPolicy *policy, const char *path, const char *what, BeneathOp op,
        gpointer data, GError **error)
{
  g_auto (GStrv) roots = NULL;
  g_autoptr (GArray) routes = NULL;
  g_autofree char *absolute = NULL;
  const char *last_why = NULL;

  if (policy->mode == DSH_SANDBOX_MODE_READ_ONLY)
    {
      dsh_fs_fence_set_denied (error, policy, path, "no file is writable under read-only mode");
      return FALSE;
    }

  absolute = full_path (path);
  if (absolute == NULL)
    {
      dsh_fs_fence_set_denied (error, policy, path, "not a path Windows can make absolute");
      return FALSE;
    }
  roots = dsh_writable_roots (policy);
  routes = route (roots, absolute);
  if (routes->len == 0)
    {
      dsh_fs_fence_set_denied (error, policy, path, "outside the writable roots");
      return FALSE;
    }

  for (guint i = 0; i < routes->len; i++)
    {
      const DshFenceRoute *r = &g_array_index (routes, DshFenceRoute, i);
      HANDLE root = open_root (r->root);
      BeneathWhy why = { ERROR_SUCCESS, FALSE, NULL };
      BeneathResult result;

      /* A missing root matches nothing until it exists. */
      if (root == INVALID_HANDLE_VALUE)
        continue;
      result = op (root, r->below, data, &why);
      CloseHandle (root);

      if (result == BENEATH_OK)
        return TRUE;
      if (result == BENEATH_FAILED && why.is_directory)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_IS_DIRECTORY, "cannot %s %s: a directory",
                       what, dsh_fs_fence_printable (path));
          return FALSE;
        }
      if (result == BENEATH_FAILED)
        {
          set_win32_error (error, why.code, what, path);
          return FALSE;
        }
      last_why = why.why;
    }
  dsh_fs_fence_set_denied (error, policy, path,
                           last_why != NULL ? last_why : "resolves outside the writable roots");
  return FALSE;
}

/* ---- operations ---------------------------------------------------------------------------- */

typedef struct {
  int flags;
  mode_t mode;
  HANDLE handle;
} OpenData;

/* Whether open flags may change the file (or make one). */
static gboolean
writes (int flags)
{
  return (flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC)) != 0;
}

static ACCESS_MASK
access_for (int flags)
{
  ACCESS_MASK read = (flags & O_ACCMODE) != O_WRONLY ? FILE_GENERIC_READ : FILE_READ_ATTRIBUTES;

  if ((flags & O_ACCMODE) == O_RDONLY)
    return read;
  /* FILE_APPEND_DATA without FILE_WRITE_DATA: every write lands at the end, as O_APPEND. */
  if ((flags & O_APPEND) != 0)
    return read | FILE_APPEND_DATA | FILE_WRITE_ATTRIBUTES | FILE_WRITE_EA | READ_CONTROL;
  return read | FILE_GENERIC_WRITE;
}

static ULONG
disposition_for (int flags)
{
  if ((flags & O_CREAT) != 0 && (flags & O_EXCL) != 0)
    return FILE_CREATE;
  if ((flags & O_CREAT) != 0)
    return (flags & O_TRUNC) != 0 ? FILE_OVERWRITE_IF : FILE_OPEN_IF;
  return (flags & O_TRUNC) != 0 ? FILE_OVERWRITE : FILE_OPEN;
}

static BeneathResult
open_op (HANDLE root, char **names, gpointer data, BeneathWhy *why)
{
  OpenData *d = data;
  const char *leaf = NULL;
  BeneathResult result;
  HANDLE parent;
  HANDLE existing;
  DWORD code;
  ULONG attributes = FILE_ATTRIBUTE_NORMAL;
  PSECURITY_DESCRIPTOR security = NULL;

  result = parent_beneath (root, names, &parent, &leaf, why);
  if (result != BENEATH_OK)
    return result;
  if (writes (d->flags) &&
      (why->why = git_refusal (root, parent, leaf, DSH_FENCE_WINDOWS_USE_WRITE)) != NULL)
    {
      CloseHandle (parent);
      return BENEATH_DENIED;
    }
  /* A link at the leaf is refused before anything (a truncation) could touch it, and a
   * directory is told as one. */
  if (open_relative (parent, leaf, FILE_READ_ATTRIBUTES, 0, FILE_OPEN, 0, NULL, &existing) ==
      ERROR_SUCCESS)
    {
      const char *refusal = reparse_refusal (existing);
      gboolean directory = refusal == NULL && is_directory (existing);

      CloseHandle (existing);
      if (refusal != NULL || directory)
        {
          CloseHandle (parent);
          why->why = refusal;
          why->is_directory = directory;
          why->code = ERROR_DIRECTORY;
          return refusal != NULL ? BENEATH_DENIED : BENEATH_FAILED;
        }
    }
  if ((d->flags & O_CREAT) != 0 && (d->mode & 0200) == 0)
    attributes = FILE_ATTRIBUTE_READONLY;
  if ((d->flags & O_CREAT) != 0 && (d->mode & 077) == 0 &&
      (security = dsh_owner_only_descriptor (FALSE)) == NULL)
    {
      /* Asked to be private and cannot be made so: not made at all. */
      why->code = GetLastError ();
      CloseHandle (parent);
      return BENEATH_FAILED;
    }
  /* Write tools write files: a directory at the path is refused. */
  code = open_relative (parent, leaf, access_for (d->flags), attributes,
                        disposition_for (d->flags), FILE_NON_DIRECTORY_FILE, security, &d->handle);
  if (security != NULL)
    LocalFree (security);
  CloseHandle (parent);
  if (code != ERROR_SUCCESS)
    {
      why->code = code;
      return BENEATH_FAILED;
    }
  /* Swapped in since the check above: opened as itself, never followed, and refused. */
  if ((why->why = reparse_refusal (d->handle)) != NULL)
    {
      CloseHandle (d->handle);
      d->handle = INVALID_HANDLE_VALUE;
      return BENEATH_DENIED;
    }
  return BENEATH_OK;
}

/* The C runtime's descriptor for the handle: binary unless O_TEXT was asked for. */
static int
descriptor_for (HANDLE handle, int flags, const char *path, GError **error)
{
  int crt_flags = (flags & (O_APPEND | O_TEXT)) | ((flags & O_TEXT) == 0 ? O_BINARY : 0);
  int fd;

  if ((flags & O_ACCMODE) == O_RDONLY)
    crt_flags |= O_RDONLY;
  fd = _open_osfhandle ((intptr_t) handle, crt_flags);
  if (fd < 0)
    {
      CloseHandle (handle);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_TOO_MANY_OPEN_FILES,
                   "cannot open %s: the C runtime has no descriptor left",
                   dsh_fs_fence_printable (path));
    }
  return fd;
}

int
dsh_fs_fence_open (const DshSandboxPolicy *policy, const char *path, int flags, mode_t mode,
                   GError **error)
{
  OpenData data = { flags, mode, INVALID_HANDLE_VALUE };

  g_return_val_if_fail (policy != NULL, -1);
  g_return_val_if_fail (path != NULL, -1);

  if (policy->mode == DSH_SANDBOX_MODE_DANGER_FULL_ACCESS)
    {
      g_autofree wchar_t *wide = to_wide (path);
      int fd = wide != NULL ? _wopen (wide, flags | O_NOINHERIT, mode) : -1;

      if (fd < 0)
        dsh_fs_fence_set_io_error (error, wide != NULL ? errno : EINVAL, "open", path);
      return fd;
    }
  if (!fenced (policy, path, "open", open_op, &data, error))
    return -1;
  return descriptor_for (data.handle, flags, path, error);
}

/* FileDispositionInfoEx and its flags (Windows 10 1809), spelled out: the mingw-w64 headers
 * declare them only for a _WIN32_WINNT beyond the values it takes. */
#define DISPOSITION_INFO_EX         ((FILE_INFO_BY_HANDLE_CLASS) 21)
#define DISPOSITION_DELETE          0x00000001
#define DISPOSITION_POSIX_SEMANTICS 0x00000002
#define DISPOSITION_IGNORE_READONLY 0x00000010

typedef struct {
  DWORD Flags;
} DispositionInfoEx;

typedef enum {
  ENTRY_MKDIR,
  ENTRY_UNLINK,
  ENTRY_RMDIR,
} EntryAction;

/* Deletes the open entry. As unlink(2) does: its name goes at once even while others hold it
 * open, and a read-only file goes too (Windows 10 1809 and later); older systems get the
 * classic deletion, when the last handle closes. */
static DWORD
delete_entry (HANDLE handle)
{
  DispositionInfoEx posix = { DISPOSITION_DELETE | DISPOSITION_POSIX_SEMANTICS |
                              DISPOSITION_IGNORE_READONLY };
  FILE_DISPOSITION_INFO classic = { TRUE };
  DWORD code;

  if (SetFileInformationByHandle (handle, DISPOSITION_INFO_EX, &posix, sizeof posix))
    return ERROR_SUCCESS;
  code = GetLastError ();
  /* Only a system or file system without the extended call falls back. */
  if (code != ERROR_INVALID_PARAMETER && code != ERROR_NOT_SUPPORTED &&
      code != ERROR_INVALID_FUNCTION)
    return code;
  return SetFileInformationByHandle (handle, FileDispositionInfo, &classic, sizeof classic)
           ? ERROR_SUCCESS : GetLastError ();
}

typedef struct {
  EntryAction action;
  mode_t mode;
} EntryData;

/* An operation on the entry leaf of the directory parent: ERROR_SUCCESS or the Win32 error;
 * it may set why->is_directory instead. */
typedef DWORD (*AtParentOp) (HANDLE parent, const char *leaf, gpointer data, BeneathWhy *why);

/* Runs op on the last name of names in its parent, opened beneath root and closed after; use
 * is what op does to it, for the git judgement. */
static BeneathResult
at_parent (HANDLE root, char **names, DshFenceWindowsUse use, AtParentOp op, gpointer data,
           BeneathWhy *why)
{
  const char *leaf = NULL;
  BeneathResult result;
  HANDLE parent;
  DWORD code;

  result = parent_beneath (root, names, &parent, &leaf, why);
  if (result != BENEATH_OK)
    return result;
  /* Making, removing or moving hooks or a config rewrites them as surely as writing them. */
  if ((why->why = git_refusal (root, parent, leaf, use)) != NULL)
    {
      CloseHandle (parent);
      return BENEATH_DENIED;
    }
  code = op (parent, leaf, data, why);
  CloseHandle (parent);
  if (code != ERROR_SUCCESS || why->is_directory)
    {
      why->code = code;
      return BENEATH_FAILED;
    }
  return BENEATH_OK;
}

static DWORD
entry_at (HANDLE parent, const char *leaf, gpointer data, BeneathWhy *why)
{
  EntryData *d = data;
  PSECURITY_DESCRIPTOR security = NULL;
  HANDLE entry;
  DWORD code;

  switch (d->action)
    {
    case ENTRY_MKDIR:
      if ((d->mode & 077) == 0 && (security = dsh_owner_only_descriptor (TRUE)) == NULL)
        {
          code = GetLastError ();
          entry = INVALID_HANDLE_VALUE;
          break;
        }
      code = open_relative (parent, leaf, FILE_LIST_DIRECTORY, FILE_ATTRIBUTE_NORMAL, FILE_CREATE,
                            FILE_DIRECTORY_FILE, security, &entry);
      if (security != NULL)
        LocalFree (security);
      break;
    case ENTRY_UNLINK:
      /* The entry itself, a link included (never what it points to), as unlink(2). */
      code = open_relative (parent, leaf, DELETE | FILE_READ_ATTRIBUTES | FILE_WRITE_ATTRIBUTES, 0,
                            FILE_OPEN, 0, NULL, &entry);
      if (code == ERROR_SUCCESS && is_directory (entry) && !is_reparse_point (entry))
        why->is_directory = TRUE;
      else if (code == ERROR_SUCCESS)
        code = delete_entry (entry);
      break;
    case ENTRY_RMDIR:
    default:
      code = open_relative (parent, leaf, DELETE | FILE_READ_ATTRIBUTES | FILE_WRITE_ATTRIBUTES, 0,
                            FILE_OPEN, FILE_DIRECTORY_FILE, NULL, &entry);
      /* rmdir(2) of a link fails too: only a real, empty directory goes. */
      if (code == ERROR_SUCCESS && is_reparse_point (entry))
        code = ERROR_DIRECTORY;
      else if (code == ERROR_SUCCESS)
        code = delete_entry (entry);
      break;
    }
  if (entry != INVALID_HANDLE_VALUE)
    CloseHandle (entry);
  return code;
}

static BeneathResult
entry_op (HANDLE root, char **names, gpointer data, BeneathWhy *why)
{
  EntryData *d = data;
  DshFenceWindowsUse use = d->action == ENTRY_MKDIR   ? DSH_FENCE_WINDOWS_USE_MAKE_DIR
                           : d->action == ENTRY_RMDIR ? DSH_FENCE_WINDOWS_USE_REMOVE_EMPTY_DIR
                                                      : DSH_FENCE_WINDOWS_USE_REMOVE;

  return at_parent (root, names, use, entry_at, data, why);
}

gboolean
dsh_fs_fence_mkdir (const DshSandboxPolicy *policy, const char *path, mode_t mode,
                    GError **error)
{
  EntryData data = { ENTRY_MKDIR, mode };

  g_return_val_if_fail (policy != NULL && path != NULL, FALSE);

  if (policy->mode == DSH_SANDBOX_MODE_DANGER_FULL_ACCESS)
    {
      g_autofree wchar_t *wide = to_wide (path);

      if (wide != NULL && CreateDirectoryW (wide, NULL))
        return TRUE;
      set_win32_error (error, wide != NULL ? GetLastError () : ERROR_INVALID_NAME,
                       "create directory", path);
      return FALSE;
    }
  return fenced (policy, path, "create directory", entry_op, &data, error);
}

gboolean
dsh_fs_fence_unlink (const DshSandboxPolicy *policy, const char *path, gboolean remove_dir,
                     GError **error)
{
  EntryData data = { remove_dir ? ENTRY_RMDIR : ENTRY_UNLINK, 0 };

  g_return_val_if_fail (policy != NULL && path != NULL, FALSE);

  if (policy->mode == DSH_SANDBOX_MODE_DANGER_FULL_ACCESS)
    {
      g_autofree wchar_t *wide = to_wide (path);

      if (wide != NULL && (remove_dir ? RemoveDirectoryW (wide) : DeleteFileW (wide)))
        return TRUE;
      set_win32_error (error, wide != NULL ? GetLastError () : ERROR_INVALID_NAME, "remove",
                       path);
      return FALSE;
    }
  return fenced (policy, path, "remove", entry_op, &data, error);
}

/* rename needs two fenced ends: the source is opened first (the entry itself, a link
 * included) and kept open while the destination's parent is fenced in its own right. */
typedef struct {
  HANDLE from;
} RenameData;

static DWORD
rename_from_at (HANDLE parent, const char *leaf, gpointer data, BeneathWhy *why)
{
  RenameData *d = data;

  return open_relative (parent, leaf, DELETE | FILE_READ_ATTRIBUTES, 0, FILE_OPEN, 0, NULL,
                        &d->from);
}

static BeneathResult
rename_from_op (HANDLE root, char **names, gpointer data, BeneathWhy *why)
{
  return at_parent (root, names, DSH_FENCE_WINDOWS_USE_REMOVE, rename_from_at, data, why);
}

static DWORD
rename_to_at (HANDLE parent, const char *leaf, gpointer data, BeneathWhy *why)
{
  RenameData *d = data;
  g_autofree wchar_t *wide_leaf = to_wide (leaf);
  g_autofree FILE_RENAME_INFO *info = NULL;
  gsize bytes;

  if (wide_leaf == NULL)
    return ERROR_INVALID_NAME;
  /* The new name is relative to the destination's parent handle: nothing is looked up by path. */
  bytes = sizeof (FILE_RENAME_INFO) + wcslen (wide_leaf) * sizeof (wchar_t);
  info = g_malloc0 (bytes);
  info->ReplaceIfExists = TRUE;
  info->RootDirectory = parent;
  info->FileNameLength = (DWORD) (wcslen (wide_leaf) * sizeof (wchar_t));
  memcpy (info->FileName, wide_leaf, info->FileNameLength);
  return SetFileInformationByHandle (d->from, FileRenameInfo, info, (DWORD) bytes)
           ? ERROR_SUCCESS : GetLastError ();
}

static BeneathResult
rename_to_op (HANDLE root, char **names, gpointer data, BeneathWhy *why)
{
  RenameData *d = data;
  /* A directory moved into a git directory brings hooks and config of its own. */
  DshFenceWindowsUse use = is_directory (d->from) ? DSH_FENCE_WINDOWS_USE_MOVE_DIR
                                                  : DSH_FENCE_WINDOWS_USE_WRITE;

  return at_parent (root, names, use, rename_to_at, data, why);
}

gboolean
dsh_fs_fence_rename (const DshSandboxPolicy *policy, const char *from, const char *to,
                     GError **error)
{
  RenameData data = { INVALID_HANDLE_VALUE };
  gboolean ok;

  g_return_val_if_fail (policy != NULL && from != NULL && to != NULL, FALSE);

  if (policy->mode == DSH_SANDBOX_MODE_DANGER_FULL_ACCESS)
    {
      g_autofree wchar_t *wide_from = to_wide (from);
      g_autofree wchar_t *wide_to = to_wide (to);

      if (wide_from != NULL && wide_to != NULL &&
          MoveFileExW (wide_from, wide_to, MOVEFILE_REPLACE_EXISTING))
        return TRUE;
      set_win32_error (error, wide_from != NULL && wide_to != NULL ? GetLastError ()
                                                                   : ERROR_INVALID_NAME,
                       "rename", from);
      return FALSE;
    }
  if (!fenced (policy, from, "rename", rename_from_op, &data, error))
    return FALSE;
  ok = fenced (policy, to, "rename", rename_to_op, &data, error);
  CloseHandle (data.from);
  return ok;
}
