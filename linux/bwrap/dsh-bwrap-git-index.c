/* dsh-bwrap-git-index.c — the submodules a repository's index records (gitlinks): a later
 * `git status` of the superproject enters each one whose work tree is there, wherever its git
 * directory lies (an old-style submodule keeps it in its own work tree, not in .git/modules).
 * The index is read as git writes it (versions 2 to 4, SHA-1 or SHA-256 object names); one that
 * cannot be read that way names no submodule to git either. A split index keeps most entries in
 * a sharedindex.* file beside it, read the same way.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dsh-bwrap-exec.h"

/* Larger than any index git writes for a work tree this launcher protects in reasonable time. */
#define MAX_INDEX_SIZE (512u << 20)
#define GITLINK_MODE 0160000u
#define EXTENDED_FLAG 0x4000u
#define NAME_MASK 0x0fffu

static uint32_t
be32 (const unsigned char *p)
{
  return (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16 | (uint32_t) p[2] << 8 | p[3];
}

/* git's offset varint (version 4 path compression); 0 when it runs past end. */
static int
read_varint (const unsigned char **p, const unsigned char *end, size_t *out)
{
  size_t value;
  unsigned char c;

  if (*p >= end)
    return 0;
  c = *(*p)++;
  value = c & 127;
  while (c & 128)
    {
      if (*p >= end || value > (SIZE_MAX >> 8))
        return 0;
      c = *(*p)++;
      value = ((value + 1) << 7) + (c & 127);
    }
  *out = value;
  return 1;
}

/* name with `len` bytes of `text` put at `at` and a NUL after them, grown as needed. */
static char *
name_append (char *name, size_t *cap, size_t at, const unsigned char *text, size_t len)
{
  if (at + len + 1 > *cap)
    {
      *cap = at + len + 1 > *cap * 2 ? at + len + 1 : *cap * 2;
      name = checked (realloc (name, *cap));
    }
  memcpy (name + at, text, len);
  name[at + len] = '\0';
  return name;
}

void
for_each_gitlink (int gitdir_fd, const char *gitdir_path, const char *index_name,
                  size_t hash_size, int all_entries, int *replaced,
                  void (*visit) (const char *path, void *data), void *data)
{
  int fd = openat (gitdir_fd, index_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  const unsigned char *map, *p, *end;
  char *name = NULL;
  size_t name_len = 0, name_cap = 0;
  uint32_t version, count;
  struct stat st;

  if (fd < 0)
    return; /* no index: nothing recorded */
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode) || st.st_size < 12)
    {
      close (fd);
      return;
    }
  if ((uint64_t) st.st_size > MAX_INDEX_SIZE)
    fatal ("'%s/%s' is too large to find its submodules", gitdir_path, index_name);
  map = mmap (NULL, (size_t) st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close (fd);
  if (map == MAP_FAILED)
    fatal ("cannot read '%s/%s': %s", gitdir_path, index_name, strerror (errno));
  end = map + st.st_size;
  version = be32 (map + 4);
  count = be32 (map + 8);
  p = map + 12;
  if (memcmp (map, "DIRC", 4) != 0 || version < 2 || version > 4)
    count = 0;
  for (uint32_t i = 0; i < count; i++)
    {
      const unsigned char *entry = p;
      size_t fixed = 40 + hash_size + 2;
      uint32_t mode;
      unsigned flags;
      const unsigned char *suffix, *nul;
      int wanted;

      if ((size_t) (end - p) < fixed)
        break;
      mode = be32 (p + 24);
      flags = (unsigned) p[40 + hash_size] << 8 | p[40 + hash_size + 1];
      /* As git reads it: the extended flags follow whatever the version says. */
      if (flags & EXTENDED_FLAG)
        fixed += 2;
      if ((size_t) (end - p) < fixed)
        break;
      p += fixed;
      wanted = all_entries || (mode & 0170000u) == GITLINK_MODE;
      if (version == 4)
        {
          size_t strip;

          if (!read_varint (&p, end, &strip) || strip > name_len)
            break;
          name_len -= strip;
          suffix = p;
          nul = memchr (suffix, '\0', (size_t) (end - suffix));
          if (nul == NULL)
            break;
          /* Every name is kept: the next one starts with part of it. */
          name = name_append (name, &name_cap, name_len, suffix, (size_t) (nul - suffix));
          name_len += (size_t) (nul - suffix);
          p = nul + 1;
        }
      else
        {
          /* Entries are padded with NULs to a multiple of 8 bytes, counted as git counts them:
           * from the name's length in the flags, or up to its NUL when the flags say 0xfff (too
           * long for them). Only a name that is visited, or one that long, is looked at: an
           * entry past a name without its NUL is never visited either, since that name's NUL
           * is missing from all that follows too. */
          size_t name_field = flags & NAME_MASK;
          size_t size;

          suffix = p;
          nul = NULL;
          if (wanted || name_field == NAME_MASK)
            {
              nul = memchr (suffix, '\0', (size_t) (end - suffix));
              if (nul == NULL)
                break;
              if (name_field == NAME_MASK)
                name_field = (size_t) (nul - suffix);
            }
          size = (fixed + name_field + 8) & ~(size_t) 7;
          if ((size_t) (end - entry) < size)
            break;
          /* A name that ends before the length the flags give is as short as its NUL says. */
          if (wanted)
            name = name_append (name, &name_cap, 0, suffix,
                                (size_t) (nul - suffix) < name_field ? (size_t) (nul - suffix)
                                                                     : name_field);
          p = entry + size;
        }
      if (!wanted)
        continue;
      /* A split index's entry that replaces one of the shared index has no name: the shared
       * entry it replaces may become a gitlink, so every entry there counts. */
      if ((mode & 0170000u) == GITLINK_MODE && name[0] == '\0' && replaced != NULL)
        *replaced = 1;
      visit (name, data);
    }
  free (name);
  munmap ((void *) map, (size_t) st.st_size);
}
