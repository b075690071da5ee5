/* dsh-acl-sid.c — workspace, session and NUL device SIDs. All sit in the S-1-5-21 (machine or
 * domain) space with four sub-authorities, 128 bits: a random one cannot be guessed, and a
 * derived one collides with an account SID only by a SHA-256 collision.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-acl-sid.h"

#include <stdio.h>
#include <string.h>

#ifdef _WIN32
#include <windows.h>
#include <bcrypt.h>
#else
#include <errno.h>
#include <sys/random.h>
#endif

#include "dsh-acl-sha256.h"

/* Keeps a later change of derivation from silently re-using the SIDs of this one. */
static const char workspace_sid_domain[] = "dsh-sandbox workspace SID v1";
static const char grant_sid_domain[] = "dsh-sandbox workspace and roots SID v1";
static const char null_device_sid_domain[] = "dsh-sandbox NUL device SID v1";

void
dsh_acl_sid_from_bytes (const uint8_t bytes[16], char sid[DSH_ACL_SID_SIZE])
{
  uint32_t part[4];

  for (int i = 0; i < 4; i++)
    part[i] = (uint32_t) bytes[4 * i] | (uint32_t) bytes[4 * i + 1] << 8 |
              (uint32_t) bytes[4 * i + 2] << 16 | (uint32_t) bytes[4 * i + 3] << 24;
  snprintf (sid, DSH_ACL_SID_SIZE, "S-1-5-21-%lu-%lu-%lu-%lu", (unsigned long) part[0],
            (unsigned long) part[1], (unsigned long) part[2], (unsigned long) part[3]);
}

static void
derived_sid (const char *domain, size_t domain_size, const char *name, char sid[DSH_ACL_SID_SIZE])
{
  uint8_t digest[DSH_ACL_SHA256_LEN];
  DshAclSha256 ctx;

  dsh_acl_sha256_init (&ctx);
  /* The NUL ends the domain, so no name can extend it into another domain. */
  dsh_acl_sha256_update (&ctx, domain, domain_size);
  dsh_acl_sha256_update (&ctx, name, strlen (name));
  dsh_acl_sha256_final (&ctx, digest);
  dsh_acl_sid_from_bytes (digest, sid);
}

void
dsh_acl_workspace_sid (const char *canonical_path, char sid[DSH_ACL_SID_SIZE])
{
  derived_sid (workspace_sid_domain, sizeof (workspace_sid_domain), canonical_path, sid);
}

void
dsh_acl_grant_sid (const char        *canonical_workspace,
                   const char *const *sorted_roots,
                   size_t             n_roots,
                   char               sid[DSH_ACL_SID_SIZE])
{
  uint8_t digest[DSH_ACL_SHA256_LEN];
  DshAclSha256 ctx;

  /* The workspace alone keeps its own SID, so the ACEs earlier versions wrote still match. */
  if (n_roots == 0)
    {
      dsh_acl_workspace_sid (canonical_workspace, sid);
      return;
    }
  dsh_acl_sha256_init (&ctx);
  dsh_acl_sha256_update (&ctx, grant_sid_domain, sizeof (grant_sid_domain));
  /* Each path with its NUL: no path holds one, so no two lists hash the same input. */
  dsh_acl_sha256_update (&ctx, canonical_workspace, strlen (canonical_workspace) + 1);
  for (size_t i = 0; i < n_roots; i++)
    dsh_acl_sha256_update (&ctx, sorted_roots[i], strlen (sorted_roots[i]) + 1);
  dsh_acl_sha256_final (&ctx, digest);
  dsh_acl_sid_from_bytes (digest, sid);
}

void
dsh_acl_null_device_sid (char sid[DSH_ACL_SID_SIZE])
{
  derived_sid (null_device_sid_domain, sizeof (null_device_sid_domain), "", sid);
}

int
dsh_acl_random_bytes (void *buf, size_t len)
{
#ifdef _WIN32
  return BCryptGenRandom (NULL, buf, (ULONG) len, BCRYPT_USE_SYSTEM_PREFERRED_RNG) == 0 ? 0 : -1;
#else
  uint8_t *bytes = buf;

  while (len > 0)
    {
      ssize_t n = getrandom (bytes, len, 0);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return -1;
      bytes += n;
      len -= (size_t) n;
    }
  return 0;
#endif
}

int
dsh_acl_random_sid (char sid[DSH_ACL_SID_SIZE])
{
  uint8_t bytes[16];

  if (dsh_acl_random_bytes (bytes, sizeof (bytes)) != 0)
    return -1;
  dsh_acl_sid_from_bytes (bytes, sid);
  return 0;
}

/* One decimal 32-bit sub-authority without leading zeros; advances *p past it. */
static int
parse_part (const char **p)
{
  const char *s = *p;
  uint64_t value = 0;
  size_t digits = 0;

  while (s[digits] >= '0' && s[digits] <= '9')
    {
      value = value * 10 + (uint64_t) (s[digits] - '0');
      if (++digits > 10)
        return -1;
    }
  if (digits == 0 || (digits > 1 && s[0] == '0') || value > UINT32_MAX)
    return -1;
  *p = s + digits;
  return 0;
}

int
dsh_acl_sid_is_valid (const char *text)
{
  static const char prefix[] = "S-1-5-21-";
  const char *p = text;

  if (text == NULL || strncmp (text, prefix, strlen (prefix)) != 0)
    return 0;
  p += strlen (prefix);
  for (int i = 0; i < 4; i++)
    {
      if (parse_part (&p) != 0)
        return 0;
      if (i < 3 && *p++ != '-')
        return 0;
    }
  return *p == '\0';
}
