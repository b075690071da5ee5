/* dsh-cli-preview.c — "confine --target-os OS" for an OS other than this host's: that OS's
 * backend, compiled into the command, confines against a host table that answers as that OS's
 * host would (its runner by name; the temp area and the profile from this host's own), within
 * one provider lifetime per process. Nothing is loaded and nothing runs.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-cli.h"

#include "dsh-backend.h"

const DshBackendDescriptor *dsh_backend_acl_describe (void);

typedef struct {
  const char *os;
  DshBackendDescribeFunc describe;
} Preview;

/* One entry per OS whose backend logic every host builds. */
static const Preview previews[] = {
  { "windows", dsh_backend_acl_describe },
};

static const char *
preview_find_helper (DshBackendHost *host, const char *name)
{
  return name;
}

static const char *
preview_get_env (DshBackendHost *host, const char *name)
{
  const char *value = g_getenv (name);

  if (value != NULL)
    return value;
  /* This host's spellings stand in for the target's. */
  if (g_str_equal (name, "TEMP"))
    return g_get_tmp_dir ();
  if (g_str_equal (name, "USERPROFILE"))
    return g_get_home_dir ();
  return NULL;
}

gboolean
dsh_cli_preview_is_known (const char *os)
{
  for (gsize i = 0; i < G_N_ELEMENTS (previews); i++)
    {
      if (g_str_equal (previews[i].os, os))
        return TRUE;
    }
  return FALSE;
}

static DshConfinement *
preview_confine (const DshBackendDescriptor *desc,
                 const char *const *argv,
                 const DshSandboxPolicy *policy,
                 GError **error)
{
  DshBackendModule module = { .name = (char *) desc->name, .descriptor = desc };
  DshConfinement *confinement = NULL;
  DshBackendCall call;

  g_mutex_init (&module.instance_lock);
  dsh_backend_call_init (&call, NULL, NULL);
  call.host.find_helper = preview_find_helper;
  call.host.get_env = preview_get_env;
  if (dsh_backend_call_confine (&call, &module, argv, policy, error))
    confinement = dsh_backend_call_to_confinement (&call, desc->name, desc);
  dsh_backend_call_clear (&call);
  /* This process was the provider's whole lifetime. */
  if (module.instance != NULL)
    desc->instance_free (module.instance);
  g_mutex_clear (&module.instance_lock);
  return confinement;
}

JsonNode *
dsh_cli_preview_confine (const char *os,
                         const char *const *argv,
                         const DshSandboxPolicy *policy,
                         GError **error)
{
  g_autoptr (DshConfinedArgv) confined = NULL;
  DshConfinement *confinement = NULL;
  JsonNode *json;

  for (gsize i = 0; i < G_N_ELEMENTS (previews) && confinement == NULL; i++)
    {
      if (g_str_equal (previews[i].os, os))
        {
          confinement = preview_confine (previews[i].describe (), argv, policy, error);
          if (confinement == NULL)
            return NULL;
        }
    }
  g_return_val_if_fail (confinement != NULL, NULL);
  confined = dsh_confined_argv_new_take (confinement);
  json = dsh_confined_argv_to_json (confined);
  json_object_set_boolean_member (json_node_get_object (json), "preview", TRUE);
  return json;
}
