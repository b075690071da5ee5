/* dsh-acl-sha256.h — SHA-256 (FIPS 180-4) in plain C, so the workspace SID is derived the same way
 * by every build on every host, with no crypto library to link on Windows.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define DSH_ACL_SHA256_LEN 32

typedef struct {
  uint32_t state[8];
  uint64_t length;
  uint8_t block[64];
  size_t used;
} DshAclSha256;

void dsh_acl_sha256_init   (DshAclSha256 *ctx);
void dsh_acl_sha256_update (DshAclSha256 *ctx,
                            const void   *data,
                            size_t        len);
void dsh_acl_sha256_final  (DshAclSha256 *ctx,
                            uint8_t       digest[DSH_ACL_SHA256_LEN]);
/* The digest of one buffer. */
void dsh_acl_sha256        (const void   *data,
                            size_t        len,
                            uint8_t       digest[DSH_ACL_SHA256_LEN]);
