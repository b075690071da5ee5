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

/* The index, read in turns into a buffer of its own. It is not mapped: a confined command may
 * truncate it meanwhile, and a mapped page past the new end would kill this process with
 * SIGBUS; a read just ends early. */
typedef struct {
  int fd;
  const char *gitdir_path, *index_name;
  unsigned char *buffer;
  size_t cap, at, len; /* the bytes not yet consumed: buffer[at, at + len) */
  uint64_t left;       /* of the file's size when opened, what is not read yet */
} IndexReader;

#define INDEX_CHUNK (256u << 10)

/* Makes `n` bytes from the current position available, fewer only at the end of the file;
 * returns how many are. */
static size_t
index_have (IndexReader *r, size_t n)
{
  if (r->len >= n || r->left == 0)
    return r->len;
  if (r->at + n > r->cap)
    {
      memmove (r->buffer, r->buffer + r->at, r->len);
      r->at = 0;
      if (n > r->cap)
        {
          r->cap = n > r->cap * 2 ? n : r->cap * 2;
          r->buffer = checked (realloc (r->buffer, r->cap));
        }
    }
  while (r->len < n && r->left > 0)
    {
      size_t room = r->cap - r->at - r->len;
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

/* Where the first NUL at or after offset `from` of the current position is, or -1 when the rest
 * of the file has none (as git reads a name: up to its NUL, however far). */
static ssize_t
index_find_nul (IndexReader *r, size_t from)
{
  for (;;)
    {
      size_t have = r->len;

      if (from < have)
        {
          const unsigned char *nul = memchr (r->buffer + r->at + from, '\0', have - from);

          if (nul != NULL)
            return nul - (r->buffer + r->at);
          from = have;
        }
      if (index_have (r, have + INDEX_CHUNK) == have)
        return -1;
    }
}

static void
index_consume (IndexReader *r, size_t n)
{
  r->at += n;
  r->len -= n;
}

void
for_each_gitlink (int gitdir_fd, const char *gitdir_path, const char *index_name,
                  size_t hash_size, int all_entries, int *replaced,
                  void (*visit) (const char *path, void *data), void *data)
{
  IndexReader r = { .gitdir_path = gitdir_path, .index_name = index_name };
  char *name = NULL;
  size_t name_len = 0, name_cap = 0;
  uint32_t version = 0, count = 0;
  struct stat st;

  r.fd = openat (gitdir_fd, index_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (r.fd < 0)
    return; /* no index: nothing recorded */
  if (fstat (r.fd, &st) != 0 || !S_ISREG (st.st_mode) || st.st_size < 12)
    {
      close (r.fd);
      return;
    }
  if ((uint64_t) st.st_size > MAX_INDEX_SIZE)
    fatal ("'%s/%s' is too large to find its submodules", gitdir_path, index_name);
  r.left = (uint64_t) st.st_size;
  r.cap = INDEX_CHUNK;
  r.buffer = checked (malloc (r.cap));
  if (index_have (&r, 12) >= 12)
    {
      version = be32 (r.buffer + 4);
      count = be32 (r.buffer + 8);
      if (memcmp (r.buffer, "DIRC", 4) != 0 || version < 2 || version > 4)
        count = 0;
      index_consume (&r, 12);
    }
  for (uint32_t i = 0; i < count; i++)
    {
      /* Enough for the fixed part, its extended flags and a version 4 prefix length. */
      size_t fixed = 40 + hash_size + 2;
      size_t have = index_have (&r, fixed + 2 + 16);
      const unsigned char *entry = r.buffer + r.at;
      uint32_t mode;
      unsigned flags;
      ssize_t nul = -1;
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
          const unsigned char *suffix = entry + fixed;
          size_t strip;

          if (!read_varint (&suffix, entry + have, &strip) || strip > name_len)
            break;
          name_len -= strip;
          fixed = (size_t) (suffix - entry);
          if ((nul = index_find_nul (&r, fixed)) < 0)
            break;
          entry = r.buffer + r.at;
          /* Every name is kept: the next one starts with part of it. */
          name = name_append (name, &name_cap, name_len, entry + fixed, (size_t) nul - fixed);
          name_len += (size_t) nul - fixed;
          index_consume (&r, (size_t) nul + 1);
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

          if (wanted || name_field == NAME_MASK)
            {
              if ((nul = index_find_nul (&r, fixed)) < 0)
                break;
              if (name_field == NAME_MASK)
                name_field = (size_t) nul - fixed;
            }
          size = (fixed + name_field + 8) & ~(size_t) 7;
          if (index_have (&r, size) < size)
            break;
          entry = r.buffer + r.at;
          /* A name that ends before the length the flags give is as short as its NUL says. */
          if (wanted)
            name = name_append (name, &name_cap, 0, entry + fixed,
                                (size_t) nul - fixed < name_field ? (size_t) nul - fixed
                                                                  : name_field);
          index_consume (&r, size);
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
  free (r.buffer);
  close (r.fd);
}
