/* abi-layout-1.0.c — the layout of ABI 1.0, compiled against the header as 1.0 released it.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "abi-layout.h"

#include "dsh-backend.h"

void
dsh_abi_layout_1_0 (DshAbiLayout *layout)
{
  layout->descriptor_size = sizeof (DshBackendDescriptor);
  layout->descriptor_n_rules = offsetof (DshBackendDescriptor, n_runner_failure_rules);
  layout->descriptor_reserved = offsetof (DshBackendDescriptor, reserved);
  layout->host_size = sizeof (DshBackendHost);
  layout->host_spawn_probe = offsetof (DshBackendHost, spawn_probe);
  layout->host_reserved = offsetof (DshBackendHost, reserved);
  layout->policy_size = sizeof (DshBackendPolicy);
  layout->policy_writable_roots = offsetof (DshBackendPolicy, writable_roots);
  layout->rule_size = sizeof (DshBackendFailureRule);
}
