/* abi-layout.h — where the fields of the backend ABI lie, measured by one file compiled against
 * the ABI 1.0 header and compared by test-backend-abi.c with the current header.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <stddef.h>

typedef struct {
  size_t descriptor_size;
  size_t descriptor_n_rules;
  size_t descriptor_reserved;
  size_t host_size;
  size_t host_spawn_probe;
  size_t host_reserved;
  size_t policy_size;
  size_t policy_writable_roots;
  size_t rule_size;
} DshAbiLayout;

void dsh_abi_layout_1_0 (DshAbiLayout *layout);
