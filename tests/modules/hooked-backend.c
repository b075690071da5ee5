/* hooked-backend.c — a test-only ABI 1.1 backend that uses the per-provider instance hooks and the
 * metadata strings, written with DSH_BACKEND_DEFINE().
 *
 * Each instance gets the next serial number of this loaded copy of the module. Its confine()
 * puts "hooked-<serial>" into the argv it builds, so a test sees which instance served a call,
 * and instance_new() and instance_free() append "new <serial>" and "free <serial>" lines to
 * $DSH_FAKE_INSTANCE_LOG. The "runner" is /bin/sh, which runs the command unconfined. It is never
 * installed.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include "dsh-backend.h"

typedef struct {
  unsigned serial;
  char label[32];
} Instance;

static const char *const denial_signatures[] = { "hooked: denied by policy", NULL };
static const char *const fatal_signatures[] = { "hooked: fatal:", NULL };
static const DshBackendFailureRule failure_rules[] = {
  { .fatal_signatures = fatal_signatures },
};

static void
log_event (const char *event, unsigned serial)
{
  const char *path = getenv ("DSH_FAKE_INSTANCE_LOG");
  FILE *log;

  if (path == NULL)
    return;
  log = fopen (path, "a");
  if (log == NULL)
    return;
  fprintf (log, "%s %u\n", event, serial);
  fclose (log);
}

/* How many instances the log has seen made: each provider loads its own copy of the module, so
 * a copy's own counter alone would start again at 1. */
static unsigned
instances_logged (void)
{
  const char *path = getenv ("DSH_FAKE_INSTANCE_LOG");
  char line[64];
  unsigned n = 0;
  FILE *log;

  if (path == NULL || (log = fopen (path, "r")) == NULL)
    return 0;
  while (fgets (line, sizeof line, log) != NULL)
    n += strncmp (line, "new ", 4) == 0;
  fclose (log);
  return n;
}

static void *
hooked_instance_new (DshBackendHost *host)
{
  /* Serial numbers only ever grow, whichever provider (and loaded copy) asks. */
  static unsigned last_serial;
  unsigned logged;
  Instance *instance;
  const char *refuse = host->get_env (host, "DSH_FAKE_INSTANCE_REFUSE");

  if (refuse != NULL && refuse[0] == '1')
    {
      host->set_error (host, "hooked: refused to make an instance");
      return NULL;
    }
  instance = calloc (1, sizeof (Instance));
  if (instance == NULL)
    return NULL;
  logged = instances_logged ();
  if (last_serial < logged)
    last_serial = logged;
  instance->serial = __atomic_add_fetch (&last_serial, 1, __ATOMIC_SEQ_CST);
  snprintf (instance->label, sizeof (instance->label), "hooked-%u", instance->serial);
  log_event ("new", instance->serial);
  return instance;
}

static void
hooked_instance_free (void *state)
{
  Instance *instance = state;

  log_event ("free", instance->serial);
  free (instance);
}

static const Instance *
instance_of (DshBackendHost *host)
{
  return DSH_BACKEND_ABI_AT_LEAST (host, 1) ? host->instance : NULL;
}

static int
hooked_check (DshBackendHost *host)
{
  if (instance_of (host) == NULL)
    {
      host->set_error (host, "hooked: check() was called without the instance");
      return -1;
    }
  return 0;
}

static int
hooked_confine (DshBackendHost *host, const DshBackendPolicy *policy, const char *const *argv)
{
  static const char *const runner[] = { "/bin/sh", "-c", "exec \"$@\"", NULL };
  const Instance *instance = instance_of (host);

  if (instance == NULL)
    {
      host->set_error (host, "hooked: confine() was called without the instance");
      return -1;
    }
  dsh_backend_push_args (host, runner);
  host->push_arg (host, instance->label);
  dsh_backend_push_args (host, argv);
  host->set_enforcement (host, DSH_BACKEND_ENFORCEMENT_PARTIAL);
  host->add_reason (host, "the hooked test backend enforces nothing");
  return 0;
}

DSH_BACKEND_DEFINE (hooked,
                    .description = "test-only backend with per-provider instances",
                    .os = DSH_BACKEND_OS_LINUX,
                    .priority = 1,
                    .confine = hooked_confine,
                    .check = hooked_check,
                    .denial_signatures = denial_signatures,
                    .runner_failure_rules = failure_rules,
                    .n_runner_failure_rules = 1,
                    .instance_new = hooked_instance_new,
                    .instance_free = hooked_instance_free,
                    .version = "1.1.0",
                    .license = "LGPL-2.1-or-later",
                    .origin = "dsh-sandbox tests")
