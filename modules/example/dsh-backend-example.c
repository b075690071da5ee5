/* dsh-backend-example.c — a small, complete backend module to copy from when writing your own.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * It confines read-only commands with bubblewrap (a read-only bind of / with fresh /dev and
 * /proc) and refuses workspace-write, which shows both halves of the contract: push the whole
 * replacement argv through the host, or call set_error and return nonzero — never hand the
 * command back unwrapped. It is not installed, and its check() keeps it out of every chain
 * unless DSH_EXAMPLE_BACKEND=1, so it can never be chosen by accident.
 *
 * Build it out of tree against an installed SDK:
 *   cc -shared -fPIC -fvisibility=hidden $(pkg-config --cflags dsh-backend-1) \
 *      -Wl,--version-script=$(pkg-config --variable=mapfile dsh-backend-1) \
 *      -o libdsh-backend-example.so dsh-backend-example.c
 * The file name gives the entry point: libdsh-backend-example.so exports
 * dsh_backend_example_describe.
 */
#include <stddef.h>

#include "dsh-backend.h"

/* What a write refused by this backend prints: the EROFS text of a read-only bind. */
static const char *const denial_signatures[] = { "Read-only file system", NULL };

/* How the runner reports failing before the command ran: bwrap's fatal lines, exit 1. */
static const char *const fatal_signatures[] = { "bwrap: Creating new namespace failed",
                                                "bwrap: No permissions to create",
                                                "bwrap: Can't ", NULL };
static const int fatal_exit_codes[] = { 1 };
static const DshBackendFailureRule failure_rules[] = {
  { .allowed_exit_codes = fatal_exit_codes, .n_allowed_exit_codes = 1,
    .fatal_signatures = fatal_signatures },
};

static int
example_check (DshBackendHost *host)
{
  const char *enabled = host->get_env (host, "DSH_EXAMPLE_BACKEND");

  if (enabled == NULL || enabled[0] != '1')
    {
      host->set_error (host, "the example backend is enabled only with DSH_EXAMPLE_BACKEND=1");
      return -1;
    }
  if (host->find_program (host, "bwrap") == NULL)
    {
      host->set_error (host, "bwrap was not found");
      return -1;
    }
  return 0;
}

static int
example_confine (DshBackendHost *host, const DshBackendPolicy *policy, const char *const *argv)
{
  static const char *const profile[] = { "--unshare-user", "--unshare-pid", "--die-with-parent",
                                         "--ro-bind", "/", "/", "--dev", "/dev",
                                         "--proc", "/proc", "--", NULL };
  const char *bwrap;

  if (policy->mode != DSH_BACKEND_MODE_READ_ONLY)
    {
      host->set_error (host, "the example backend only supports read-only");
      return -1;
    }
  bwrap = host->find_program (host, "bwrap");
  if (bwrap == NULL)
    {
      host->set_error (host, "bwrap was not found");
      return -1;
    }

  host->push_arg (host, bwrap);
  dsh_backend_push_args (host, profile);
  dsh_backend_push_args (host, argv);
  host->set_enforcement (host, DSH_BACKEND_ENFORCEMENT_FULL);
  return 0;
}

/* The descriptor and the exported entry point dsh_backend_example_describe, in one go. */
DSH_BACKEND_DEFINE (example,
                    .description = "example backend from the SDK (read-only through bwrap)",
                    .os = DSH_BACKEND_OS_LINUX,
                    .priority = 1,
                    .confine = example_confine,
                    .check = example_check,
                    .denial_signatures = denial_signatures,
                    .runner_failure_rules = failure_rules,
                    .n_runner_failure_rules = 1,
                    .version = "1.0",
                    .license = "LGPL-2.1-or-later",
                    .origin = "the dsh-sandbox SDK")
