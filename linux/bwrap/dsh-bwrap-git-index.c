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

/* The index, read forward in turns through a buffer of its own, each byte looked at once,
 * whatever the command wrote there. It is not mapped: a confined command may truncate it
 * meanwhile, and a mapped page past the new end would kill this process with SIGBUS; a read
 * just ends early. */
typedef struct {
  int fd;
  const char *gitdir_path, *index_name;
  unsigned char buffer[256u << 10];
  size_t at, len;  /* the bytes not yet consumed: buffer[at, at + len) */
  uint64_t left;   /* of the file's size when opened, what is not read yet */
} IndexReader;

/* Makes `n` bytes (at most the buffer's size) from the current position available, fewer only
 * at the end of the file; returns how many are. */
static size_t
index_have (IndexReader *r, size_t n)
{
  if (r->len >= n || r->left == 0)
    return r->len;
  if (r->at + n > sizeof r->buffer)
    {
      memmove (r->buffer, r->buffer + r->at, r->len);
      r->at = 0;
    }
  while (r->len < n && r->left > 0)
    {
      size_t room = sizeof r->buffer - r->at - r->len;
      ssize_t got = read (r->fd, r->buffer + r->at + r->len,
                          room < r->left ? room : (size_t) r->left);

      if (got < 0 && errno == EINTR)
        continue;
      if (got < 0)
        fatal ("cannot read '%s/%s': %s", r->gitdir_path, r->index_name, strerror (errno));
      if (got == 0)
        r->left = 0; /* shorter now than when opened: what was read is all of it */
      r->len += (size_t) got;
      r->left -= (uint64_t) got;
    }
  return r->len;
}

static void
index_consume (IndexReader *r, size_t n)
{
  r->at += n;
  r->len -= n;
}

/* An entry's name as far as it is kept, and its whole length. git opens a name as a path from
 * the top of the work tree, so one longer than PATH_MAX names nothing git can enter: beyond
 * NAME_LIMIT the bytes are only counted, and such a name is never visited. */
#define NAME_LIMIT (64u << 10)

typedef struct {
  char text[NAME_LIMIT + 1];
  size_t kept, len;
} EntryName;

static void
name_keep (EntryName *name, const unsigned char *bytes, size_t n)
{
  if (name->kept == name->len && name->kept < NAME_LIMIT)
    {
      size_t k = n < NAME_LIMIT - name->kept ? n : NAME_LIMIT - name->kept;

      memcpy (name->text + name->kept, bytes, k);
      name->kept += k;
      name->text[name->kept] = '\0';
    }
  name->len += n;
}

/* Appends the bytes up to the next NUL to name and consumes them and the NUL; 0 when the file
 * ends first (git reads such a name up to a NUL it never finds). */
static int
index_take_name (IndexReader *r, EntryName *name)
{
  for (;;)
    {
      const unsigned char *at, *nul;
      size_t take;

      if (index_have (r, 1) == 0)
        return 0;
      at = r->buffer + r->at;
      nul = memchr (at, '\0', r->len);
      take = nul != NULL ? (size_t) (nul - at) : r->len;
      name_keep (name, at, take);
      index_consume (r, take + (nul != NULL));
      if (nul != NULL)
        return 1;
    }
}

void
for_each_gitlink (int gitdir_fd, const char *gitdir_path, const char *index_name,
                  size_t hash_size, int all_entries, int *replaced,
                  void (*visit) (const char *path, void *data), void *data)
{
  IndexReader *r;
  EntryName *name;
  uint32_t version = 0, count = 0;
  struct stat st;
  int fd = openat (gitdir_fd, index_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

  if (fd < 0)
    return; /* no index: nothing recorded */
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode) || st.st_size < 12)
    {
      close (fd);
      return;
    }
  if ((uint64_t) st.st_size > MAX_INDEX_SIZE)
    fatal ("'%s/%s' is too large to find its submodules", gitdir_path, index_name);
  r = checked (malloc (sizeof *r));
  r->fd = fd;
  r->gitdir_path = gitdir_path;
  r->index_name = index_name;
  r->at = r->len = 0;
  r->left = (uint64_t) st.st_size;
  name = checked (calloc (1, sizeof *name));
  if (index_have (r, 12) >= 12)
    {
      version = be32 (r->buffer + r->at + 4);
      count = be32 (r->buffer + r->at + 8);
      if (memcmp (r->buffer + r->at, "DIRC", 4) != 0 || version < 2 || version > 4)
        count = 0;
      index_consume (r, 12);
    }
  for (uint32_t i = 0; i < count; i++)
    {
      /* Enough for the fixed part, its extended flags and a version 4 prefix length. */
      size_t fixed = 40 + hash_size + 2;
      size_t have = index_have (r, fixed + 2 + 16);
      const unsigned char *entry = r->buffer + r->at;
      uint32_t mode;
      unsigned flags;
      int wanted;

      if (have < fixed)
        break;
      mode = be32 (entry + 24);
      flags = (unsigned) entry[40 + hash_size] << 8 | entry[40 + hash_size + 1];
      /* As git reads it: the extended flags follow whatever the version says. */
      if (flags & EXTENDED_FLAG)
        fixed += 2;
      if (have < fixed)
        break;
      wanted = all_entries || (mode & 0170000u) == GITLINK_MODE;
      if (version == 4)
        {
          /* Path compression: the previous name less its last `strip` bytes, then this one's. */
          const unsigned char *suffix = entry + fixed;
          size_t strip;

          if (!read_varint (&suffix, entry + have, &strip) || strip > name->len)
            break;
          index_consume (r, (size_t) (suffix - entry));
          name->len -= strip;
          if (name->kept > name->len)
            name->kept = name->len;
          name->text[name->kept] = '\0';
          if (!index_take_name (r, name))
            break;
        }
      else
        {
          /* Entries are padded with NULs to a multiple of 8 bytes, counted as git counts them:
           * from the name's length in the flags, of which git takes exactly that many bytes,
           * or up to its NUL when the flags say 0xfff (too long for them). */
          size_t name_field = flags & NAME_MASK;
          size_t rest;

          index_consume (r, fixed);
          name->kept = name->len = 0;
          if (name_field == NAME_MASK)
            {
              if (!index_take_name (r, name))
                break;
              /* The padding after its NUL. */
              rest = ((fixed + name->len + 8) & ~(size_t) 7) - fixed - name->len - 1;
              if (index_have (r, rest) < rest)
                break;
            }
          else
            {
              rest = ((fixed + name_field + 8) & ~(size_t) 7) - fixed;
              if (index_have (r, rest) < rest)
                break;
              /* A name with a NUL inside is as short as that NUL says. */
              if (wanted)
                {
                  const unsigned char *text = r->buffer + r->at;
                  const unsigned char *nul = memchr (text, '\0', name_field);

                  name_keep (name, text, nul != NULL ? (size_t) (nul - text) : name_field);
                }
            }
          index_consume (r, rest);
        }
      if (!wanted || name->kept < name->len)
        continue;
      /* A split index's entry that replaces one of the shared index has no name: the shared
       * entry it replaces may become a gitlink, so every entry there counts. */
      if ((mode & 0170000u) == GITLINK_MODE && name->len == 0 && replaced != NULL)
        *replaced = 1;
      visit (name->text, data);
    }
  free (name);
  free (r);
  close (fd);
}
