/* dsh-platform-unix.c — the platform facts on POSIX systems.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-platform-private.h"

#include "dsh-number-text-private.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#ifdef __linux__
#include <link.h>
#include <linux/landlock.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#endif

gboolean
dsh_platform_is_privileged (void)
{
#ifdef __linux__
  return getauxval (AT_SECURE) != 0;
#else
  return getuid () != geteuid () || getgid () != getegid ();
#endif
}

void
dsh_platform_append_user (GString *key)
{
  g_string_append (key, "uid=");
  dsh_number_text_append_unsigned (key, (guint) getuid ());
  g_string_append_c (key, ';');
}

gboolean
dsh_platform_is_private_dir (const char *dir)
{
  struct stat st;

  /* lstat: a link someone put there to have this process write elsewhere is not a directory. */
  return lstat (dir, &st) == 0 && S_ISDIR (st.st_mode) && st.st_uid == getuid () &&
         (st.st_mode & 077) == 0;
}

gboolean
dsh_platform_is_private_file (const char *path)
{
  struct stat st;

  return stat (path, &st) == 0 && st.st_uid == getuid () &&
         (st.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

gboolean
dsh_platform_read_private_file (const char *path, char *buf, gsize size, gsize *out_len)
{
  struct stat st;
  gsize len = 0;
  int fd = open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

  if (fd < 0)
    return FALSE;
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode) || st.st_uid != getuid () ||
      (st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    {
      close (fd);
      return FALSE;
    }
  while (len < size)
    {
      ssize_t n = read (fd, buf + len, size - len);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      len += (gsize) n;
    }
  close (fd);
  if (len == size)
    return FALSE;
  *out_len = len;
  return TRUE;
}

/* One time as "%lld.%09ld". */
static void
append_time (GString *key, const struct timespec *time)
{
  dsh_number_text_append_signed (key, (long long) time->tv_sec);
  g_string_append_c (key, '.');
  dsh_number_text_append_padded (key, time->tv_nsec, 9);
}

void
dsh_platform_append_file_identity (GString *key, const char *path)
{
  struct stat st;

  if (stat (path, &st) != 0)
    memset (&st, 0, sizeof (st));
  /* "%s|%lu|%lu|%o|%u|%lld|%lld.%09ld|%lld.%09ld;" with the same casts, byte for byte: entries
   * written by earlier builds of this version must still match. */
  g_string_append (key, path);
  g_string_append_c (key, '|');
  dsh_number_text_append_unsigned (key, (gulong) st.st_dev);
  g_string_append_c (key, '|');
  dsh_number_text_append_unsigned (key, (gulong) st.st_ino);
  g_string_append_c (key, '|');
  dsh_number_text_append_octal (key, (guint) st.st_mode);
  g_string_append_c (key, '|');
  dsh_number_text_append_unsigned (key, (guint) st.st_uid);
  g_string_append_c (key, '|');
  dsh_number_text_append_signed (key, (long long) st.st_size);
  g_string_append_c (key, '|');
  append_time (key, &st.st_mtim);
  g_string_append_c (key, '|');
  append_time (key, &st.st_ctim);
  g_string_append_c (key, ';');
}

char *
dsh_platform_kernel_release (void)
{
  struct utsname names;

  return g_strdup (uname (&names) == 0 ? names.release : "");
}

/* A file caught while it was being written may end before its segments do; mapping those would
 * fault (SIGBUS) inside the dynamic loader. Every loadable segment must lie in the copy. */
gboolean
dsh_platform_elf_is_complete (int fd, off_t size)
{
#ifdef __linux__
  /* The header and, in the same read, the program headers that follow it in every module a
   * linker makes (about ten of them); others are read a batch at a time. */
  union {
    ElfW (Ehdr) header;
    char bytes[sizeof (ElfW (Ehdr)) + 32 * sizeof (ElfW (Phdr))];
  } start;
  ElfW (Phdr) segments[32];
  ssize_t got = pread (fd, &start, sizeof (start), 0);
  const ElfW (Ehdr) *header = &start.header;

  if (got < (ssize_t) sizeof (*header) || memcmp (header->e_ident, ELFMAG, SELFMAG) != 0 ||
      header->e_phentsize != sizeof (segments[0]))
    return FALSE;
  for (guint first = 0; first < header->e_phnum; first += G_N_ELEMENTS (segments))
    {
      guint n = MIN (header->e_phnum - first, G_N_ELEMENTS (segments));
      guint64 at = (guint64) header->e_phoff + (guint64) first * sizeof (segments[0]);
      gsize want = n * sizeof (segments[0]);

      if (at <= (guint64) got && want <= (guint64) got - at)
        memcpy (segments, start.bytes + at, want);
      else if (pread (fd, segments, want, (off_t) at) != (ssize_t) want)
        return FALSE;
      for (guint i = 0; i < n; i++)
        {
          const ElfW (Phdr) *segment = &segments[i];

          if (segment->p_type == PT_LOAD &&
              (segment->p_offset > (guint64) size ||
               segment->p_filesz > (guint64) size - segment->p_offset))
            return FALSE;
        }
    }
  return TRUE;
#else
  /* Mach-O and others: their loaders check what they map. */
  return TRUE;
#endif
}

char *
dsh_platform_owner_refusal (const char *what, guint uid, guint mode)
{
  if (uid != 0 && uid != getuid ())
    return g_strdup_printf ("%s is owned by uid %u, neither root nor the current user", what,
                            uid);
  if ((mode & (S_IWGRP | S_IWOTH)) != 0)
    return g_strdup_printf ("%s is writable by %s (mode %04o)", what,
                            (mode & S_IWOTH) ? "others" : "its group", mode & 07777);
  return NULL;
}

/* Owned by root or the current user, and writable by neither group nor others; st (nullable)
 * gets what stat(2) said. */
static char *
entry_refusal (const char *path, const char *what, struct stat *st)
{
  g_autofree char *named = NULL;
  struct stat local;

  if (st == NULL)
    st = &local;
  if (stat (path, st) != 0)
    return g_strdup_printf ("cannot stat %s %s: %s", what, path, g_strerror (errno));
  named = g_strdup_printf ("%s %s", what, path);
  return dsh_platform_owner_refusal (named, (guint) st->st_uid, (guint) st->st_mode);
}

/* Not empty, and whole if it is an ELF file (an ELF file at all with must_be_elf). */
static char *
content_refusal (const char *path, gboolean must_be_elf)
{
  static const char elf_magic[] = { 0x7f, 'E', 'L', 'F' };
  char magic[sizeof (elf_magic)];
  struct stat st;
  gboolean elf;
  gboolean whole;
  int fd;

#ifndef __linux__
  /* Programs are Mach-O files there. */
  must_be_elf = FALSE;
#endif
  fd = open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0)
    return g_strdup_printf ("cannot open %s: %s", path, g_strerror (errno));
  elf = pread (fd, magic, sizeof (magic), 0) == (ssize_t) sizeof (magic) &&
        memcmp (magic, elf_magic, sizeof (magic)) == 0;
  whole = fstat (fd, &st) == 0 && S_ISREG (st.st_mode) && st.st_size > 0 &&
          (elf ? dsh_platform_elf_is_complete (fd, st.st_size) : !must_be_elf);
  close (fd);
  if (!whole)
    return g_strdup_printf ("%s is no complete program (empty, cut short%s)", path,
                            must_be_elf ? " or not ELF" : "");
  return NULL;
}

/* Files found whole, by what stat(2) says of them: every write moves size or times, so a
 * program asked about on every call is read once, not once a call. */
typedef struct {
  dev_t dev;
  ino_t ino;
  off_t size;
  struct timespec modified, changed;
  gboolean must_be_elf;
} WholeFile;

static GMutex whole_lock;
static WholeFile whole_files[8];
static guint n_whole_files;

static gboolean
same_whole (const WholeFile *a, const WholeFile *b)
{
  return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
         a->modified.tv_sec == b->modified.tv_sec && a->modified.tv_nsec == b->modified.tv_nsec &&
         a->changed.tv_sec == b->changed.tv_sec && a->changed.tv_nsec == b->changed.tv_nsec &&
         a->must_be_elf == b->must_be_elf;
}

static char *
content_refusal_of (const char *path, const struct stat *st, gboolean must_be_elf)
{
  WholeFile file = { st->st_dev, st->st_ino, st->st_size, st->st_mtim, st->st_ctim,
                     must_be_elf };
  char *reason = NULL;
  gboolean known = FALSE;

  g_mutex_lock (&whole_lock);
  for (guint i = 0; !known && i < G_N_ELEMENTS (whole_files) && i < n_whole_files; i++)
    known = same_whole (&whole_files[i], &file);
  if (!known && (reason = content_refusal (path, must_be_elf)) == NULL)
    whole_files[n_whole_files++ % G_N_ELEMENTS (whole_files)] = file;
  g_mutex_unlock (&whole_lock);
  return reason;
}

char *
dsh_platform_program_refusal (const char *path, gboolean must_be_elf)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *real = NULL;
  g_autofree char *real_dir = NULL;
  struct stat st;
  char *reason;

  /* A name that is no symlink is the file, in the directory it names (stat follows the links
   * above it to the same directory realpath would): only a symlink needs resolving. */
  if (lstat (path, &st) != 0)
    return g_strdup_printf ("cannot stat %s: %s", path, g_strerror (errno));
  if (S_ISLNK (st.st_mode))
    {
      real = realpath (path, NULL);
      if (real == NULL)
        return g_strdup_printf ("cannot resolve %s: %s", path, g_strerror (errno));
      real_dir = g_path_get_dirname (real);
    }
  if ((reason = entry_refusal (real != NULL ? real : path, "the file", &st)) != NULL ||
      (reason = entry_refusal (real != NULL ? real_dir : dir, "the directory", NULL)) != NULL)
    return reason;
  /* Whoever may write where path names it could point that name elsewhere. */
  if (real != NULL && !g_str_equal (dir, real_dir) &&
      (reason = entry_refusal (dir, "the directory", NULL)) != NULL)
    return reason;
  return content_refusal_of (real != NULL ? real : path, &st, must_be_elf);
}

/* What g_file_test() says for IS_EXECUTABLE and not IS_DIR, in one stat and one access: an
 * execute bit is asked for too, since on some systems root's access() passes any file. */
gboolean
dsh_platform_is_program_file (const char *path)
{
  struct stat st;

  return stat (path, &st) == 0 && !S_ISDIR (st.st_mode) &&
         (st.st_mode & (S_IXUSR | S_IXGRP | S_IXOTH)) != 0 && access (path, X_OK) == 0;
}

long
dsh_platform_landlock_abi (void)
{
#if defined(__linux__) && defined(SYS_landlock_create_ruleset)
  return syscall (SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
#else
  return -1;
#endif
}
