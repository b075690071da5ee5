/* dsh-backend-descriptor.c — what a backend module's descriptor must hold before the core uses
 * any of it, what the core keeps of it, and the module's state for one provider: the same on
 * every platform, whichever way the platform's loader checked and opened the module's file.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-module-loader-private.h"

#include <string.h>

#include "dsh-backend-host-private.h"

static int32_t
host_backend_os (void)
{
#if defined(__linux__)
  return DSH_BACKEND_OS_LINUX;
#elif defined(__APPLE__)
  return DSH_BACKEND_OS_MACOS;
#elif defined(_WIN32)
  return DSH_BACKEND_OS_WINDOWS;
#else
  return 0;
#endif
}

static const char *
backend_os_name (int32_t os)
{
  switch (os)
    {
    case DSH_BACKEND_OS_LINUX:
      return "linux";
    case DSH_BACKEND_OS_MACOS:
      return "macos";
    case DSH_BACKEND_OS_WINDOWS:
      return "windows";
    default:
      return "an unknown OS";
    }
}

static gboolean
is_valid_name (const char *name)
{
  if (name == NULL || name[0] == '\0' || strlen (name) > 64)
    return FALSE;
  for (const char *p = name; *p != '\0'; p++)
    {
      if (!g_ascii_islower (*p) && !g_ascii_isdigit (*p) && *p != '-')
        return FALSE;
    }
  return TRUE;
}

const char *const *
dsh_backend_descriptor_denial_exclusions (const DshBackendDescriptor *desc)
{
  return desc->abi_minor >= 1 ? desc->denial_exclusions : NULL;
}

static char *
check_descriptor (const DshBackendDescriptor *desc)
{
  const char *const *exclusions;

  if (desc == NULL)
    return g_strdup ("the entry point returned no descriptor");
  if (desc->abi_major != DSH_BACKEND_ABI_MAJOR)
    return g_strdup_printf ("backend ABI %u.%u is incompatible with the core's ABI %u.%u "
                            "(major version differs)",
                            desc->abi_major, desc->abi_minor,
                            DSH_BACKEND_ABI_MAJOR, DSH_BACKEND_ABI_MINOR);
  if (desc->abi_minor > DSH_BACKEND_ABI_MINOR)
    return g_strdup_printf ("backend ABI %u.%u is newer than the core's ABI %u.%u",
                            desc->abi_major, desc->abi_minor,
                            DSH_BACKEND_ABI_MAJOR, DSH_BACKEND_ABI_MINOR);
  if (!is_valid_name (desc->name))
    return g_strdup ("the descriptor's name is missing or not made of [a-z0-9-]");
  if (desc->confine == NULL)
    return g_strdup ("the descriptor has no confine function");
  if (desc->denial_signatures == NULL || desc->denial_signatures[0] == NULL)
    return g_strdup ("the descriptor has no denial signatures");
  exclusions = dsh_backend_descriptor_denial_exclusions (desc);
  for (size_t i = 0; exclusions != NULL && exclusions[i] != NULL; i++)
    {
      if (exclusions[i][0] == '\0')
        return g_strdup ("the descriptor has an empty denial exclusion");
    }
  if (desc->runner_failure_rules == NULL || desc->n_runner_failure_rules == 0)
    return g_strdup ("the descriptor has no runner-failure rules");
  if (DSH_BACKEND_ABI_AT_LEAST (desc, 1) &&
      (desc->instance_new == NULL) != (desc->instance_free == NULL))
    return g_strdup ("the descriptor has only one of instance_new and instance_free");
  for (size_t i = 0; i < desc->n_runner_failure_rules; i++)
    {
      const char *const *fatal = desc->runner_failure_rules[i].fatal_signatures;

      if (fatal == NULL || fatal[0] == NULL)
        return g_strdup_printf ("runner-failure rule %zu has no fatal signatures", i);
      for (size_t j = 0; fatal[j] != NULL; j++)
        {
          if (fatal[j][0] == '\0')
            return g_strdup_printf ("runner-failure rule %zu has an empty fatal signature", i);
        }
    }
  if (desc->os != host_backend_os ())
    return g_strdup_printf ("the backend is for %s, not this host", backend_os_name (desc->os));
  return NULL;
}

static char *
optional_text (const char *text)
{
  return text != NULL && text[0] != '\0' ? g_utf8_make_valid (text, -1) : NULL;
}

void
dsh_backend_module_describe (DshBackendModule *module, GModule *handle)
{
  g_autofree char *specific = NULL;
  DshBackendDescribeFunc describe = NULL;
  const DshBackendDescriptor *desc;

  /* The scan only keeps files whose name gives a backend name. */
  specific = g_strdup_printf ("dsh_backend_%s_describe", module->name);
  g_strdelimit (specific, "-", '_');
  if (!g_module_symbol (handle, specific, (gpointer *) &describe) &&
      !g_module_symbol (handle, "dsh_backend_describe", (gpointer *) &describe))
    describe = NULL;
  if (describe == NULL)
    {
      module->refused_reason = g_strdup_printf ("the module exports neither %s nor "
                                                "dsh_backend_describe",
                                                specific);
      g_module_close (handle);
      return;
    }

  desc = describe ();
  module->refused_reason = check_descriptor (desc);
  /* DSH_SANDBOX_BACKEND picks modules by file name, before opening them: the names must agree. */
  if (module->refused_reason == NULL && !g_str_equal (desc->name, module->name))
    module->refused_reason = g_strdup_printf ("the descriptor names the backend \"%s\", but the "
                                              "file is named for \"%s\"",
                                              desc->name, module->name);
  if (module->refused_reason != NULL)
    {
      g_module_close (handle);
      return;
    }

  module->description = g_utf8_make_valid (desc->description != NULL ? desc->description : "", -1);
  if (DSH_BACKEND_ABI_AT_LEAST (desc, 1))
    {
      module->version = optional_text (desc->version);
      module->license = optional_text (desc->license);
      module->origin = optional_text (desc->origin);
    }
  module->priority = desc->priority;
  module->descriptor = desc;
  module->module = handle;
}

gboolean
dsh_backend_module_bind_instance (DshBackendModule *module, DshBackendCall *call)
{
  DshBackendHost *host = &call->host;
  const DshBackendDescriptor *desc = module->descriptor;

  if (!DSH_BACKEND_ABI_AT_LEAST (desc, 1) || desc->instance_new == NULL)
    return TRUE;
  /* Concurrent first calls of one provider must agree on one instance. */
  g_mutex_lock (&module->instance_lock);
  if (module->instance == NULL)
    module->instance = desc->instance_new (host);
  host->instance = module->instance;
  g_mutex_unlock (&module->instance_lock);
  if (host->instance == NULL && call->error == NULL)
    call->error = g_strdup ("the backend could not create its per-provider state");
  return host->instance != NULL;
}
