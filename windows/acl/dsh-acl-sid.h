/* dsh-acl-sid.h — the SIDs a confined call runs with: one derived from the workspace path (the
 * same in every process and after a reboot, so its standing ACE keeps working), one drawn at
 * random for each live session, and one fixed SID for the NUL device.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* "S-1-5-21-" and four 10-digit sub-authorities with their dashes, and the NUL. */
#define DSH_ACL_SID_SIZE 64

/* The workspace SID of a canonical path, byte for byte: a path spelled differently names a
 * different SID (whose writes fail), never a shared one. */
void dsh_acl_workspace_sid   (const char *canonical_path,
                              char        sid[DSH_ACL_SID_SIZE]);

/* The SID a call's --write roots are granted to: the workspace SID when the workspace is the
 * only root, else one derived from the workspace and the other roots (n_roots of them, sorted
 * and without repeats, byte for byte). A root's grant is a standing ACE that outlives the call,
 * so it must go to a SID only calls given that same set of roots hold. */
void dsh_acl_grant_sid       (const char        *canonical_workspace,
                              const char *const *sorted_roots,
                              size_t             n_roots,
                              char               sid[DSH_ACL_SID_SIZE]);

/* The one SID every confined command holds so that it may write the NUL device: the device is
 * granted to it once, never once per session, so its ACL does not grow with every session. */
void dsh_acl_null_device_sid (char        sid[DSH_ACL_SID_SIZE]);

/* A fresh random SID. Returns 0, or -1 when the system's random source failed. */
int  dsh_acl_random_sid      (char        sid[DSH_ACL_SID_SIZE]);

/* The SID built from 16 bytes, as S-1-5-21-a-b-c-d with little-endian 32-bit parts. */
void dsh_acl_sid_from_bytes  (const uint8_t bytes[16],
                              char          sid[DSH_ACL_SID_SIZE]);

/* Is text exactly a SID as this library writes them (S-1-5-21- and four decimal 32-bit parts,
 * no leading zeros)? */
int  dsh_acl_sid_is_valid    (const char *text);

/* Fills buf from the system's random source (BCryptGenRandom, getrandom). 0 or -1. */
int  dsh_acl_random_bytes    (void       *buf,
                              size_t      len);
