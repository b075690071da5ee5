/* dsh-local-provider-describe.c — the probe document of a local provider: every module seen,
 * refusals with their reasons, each probe result, and the selected backend's enforcement.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-local-provider-private.h"

#include "dsh-config.h"
#include "dsh-roots.h"

static const char *
probe_state_to_string (ProbeState state)
{
  switch (state)
    {
    case PROBE_SKIPPED:
      return "skipped";
    case PROBE_PASSED:
      return "passed";
    case PROBE_FAILED:
      return "failed";
    case PROBE_CACHED:
      return "cached";
    case PROBE_NOT_RUN:
    default:
      return "not-run";
    }
}

static Candidate *
candidate_of (DshBackendSelector *self, DshBackendModule *module)
{
  for (guint i = 0; i < self->candidates->len; i++)
    {
      Candidate *c = self->candidates->pdata[i];

      if (c->module == module)
        return c;
    }
  return NULL;
}

static void
add_string_member (JsonBuilder *builder, const char *name, const char *value)
{
  json_builder_set_member_name (builder, name);
  if (value != NULL)
    json_builder_add_string_value (builder, value);
  else
    json_builder_add_null_value (builder);
}

/* Metadata a module may leave out is left out of the report too. */
static void
add_optional_string_member (JsonBuilder *builder, const char *name, const char *value)
{
  if (value != NULL)
    add_string_member (builder, name, value);
}

static void
add_string_array (JsonBuilder *builder, const char *name, const char *const *values)
{
  json_builder_set_member_name (builder, name);
  json_builder_begin_array (builder);
  for (gsize i = 0; values != NULL && values[i] != NULL; i++)
    json_builder_add_string_value (builder, values[i]);
  json_builder_end_array (builder);
}

static void
add_candidate (DshBackendSelector *self, JsonBuilder *builder, DshBackendModule *module)
{
  Candidate *candidate = candidate_of (self, module);
  const char *status;
  const char *reason = NULL;

  if (module->refused_reason != NULL)
    {
      status = "refused";
      reason = module->refused_reason;
    }
  else if (module->excluded)
    {
      status = "excluded";
      reason = "not named by DSH_SANDBOX_BACKEND, so not loaded";
    }
  else if (candidate == self->selected)
    status = "selected";
  else if (candidate->probe == PROBE_FAILED)
    {
      status = "unusable";
      reason = candidate->probe_detail;
    }
  else
    status = "not-needed";

  json_builder_begin_object (builder);
  add_string_member (builder, "name", module->name);
  add_string_member (builder, "path", module->path);
  add_string_member (builder, "status", status);
  if (reason != NULL)
    add_string_member (builder, "reason", reason);
  if (candidate != NULL)
    {
      json_builder_set_member_name (builder, "priority");
      json_builder_add_int_value (builder, module->priority);
      add_string_member (builder, "description", module->description);
      add_optional_string_member (builder, "version", module->version);
      add_optional_string_member (builder, "license", module->license);
      add_optional_string_member (builder, "origin", module->origin);
      add_string_member (builder, "probe", probe_state_to_string (candidate->probe));
    }
  else if (module->excluded)
    add_string_member (builder, "probe", probe_state_to_string (PROBE_NOT_RUN));
  json_builder_end_object (builder);
}

/* Describes the selected backend for a read-only and a workspace-write confine, since a backend
 * may enforce the two differently. Called with the lock held. */
static void
add_selected (DshBackendSelector *self, JsonBuilder *builder)
{
  const char *modes[] = { "read-only", "workspace-write" };
  g_autofree char *cwd = g_get_current_dir ();

  json_builder_set_member_name (builder, "enforcement");
  json_builder_begin_object (builder);
  for (guint i = 0; i < G_N_ELEMENTS (modes); i++)
    {
      g_autoptr (DshSandboxPolicy) policy = NULL;
      g_autoptr (GError) error = NULL;
      const char *argv[] = { "true", NULL };
      DshBackendCall call;

      policy = dsh_sandbox_policy_new (i == 0 ? DSH_SANDBOX_MODE_READ_ONLY
                                              : DSH_SANDBOX_MODE_WORKSPACE_WRITE,
                                       cwd, NULL);
      json_builder_set_member_name (builder, modes[i]);
      json_builder_begin_object (builder);
      if (dsh_backend_selector_call_confine (self, self->selected->module, argv, policy, &call,
                                             &error))
        {
          add_string_member (builder, "enforcement", dsh_enforcement_to_string (call.enforcement));
          add_string_array (builder, "reasons", (const char *const *) call.reasons->pdata);
        }
      else
        add_string_member (builder, "error", error->message);
      json_builder_end_object (builder);
      dsh_backend_call_clear (&call);
    }
  json_builder_end_object (builder);
}

/**
 * dsh_local_provider_describe:
 * @self: a #DshLocalProvider
 *
 * Returns: (transfer full): the probe document (`schemas/probe.schema.json`): every candidate,
 *   refused ones with their reason, each probe result, and the chosen backend with its
 *   enforcement and reasons
 *
 * Since: 0.1
 */
JsonNode *
dsh_local_provider_describe (DshLocalProvider *provider)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  g_autoptr (DshProviderGeneration) generation = NULL;
  DshBackendSelector *self;

  g_return_val_if_fail (DSH_IS_LOCAL_PROVIDER (provider), NULL);

  generation = dsh_local_provider_acquire (provider);
  self = generation->selector;
  g_mutex_lock (&self->lock);
  dsh_backend_selector_select_locked (self);

  json_builder_begin_object (builder);
  add_string_member (builder, "os", DSH_HOST_OS);
  add_string_array (builder, "backendDirs", (const char *const *) self->backend_dirs);
  add_string_member (builder, "backendOverride", self->backend_override);
  json_builder_set_member_name (builder, "backendDirOverrideIgnored");
  json_builder_add_boolean_value (builder, self->backend_dir_ignored);

  json_builder_set_member_name (builder, "candidates");
  json_builder_begin_array (builder);
  /* Usable candidates in the order they are tried, then files not opened, then refused ones. */
  for (guint i = 0; i < self->candidates->len; i++)
    add_candidate (self, builder, ((Candidate *) self->candidates->pdata[i])->module);
  for (guint i = 0; i < self->modules->len; i++)
    {
      DshBackendModule *module = self->modules->pdata[i];

      if (module->excluded)
        add_candidate (self, builder, module);
    }
  for (guint i = 0; i < self->modules->len; i++)
    {
      DshBackendModule *module = self->modules->pdata[i];

      if (module->refused_reason != NULL)
        add_candidate (self, builder, module);
    }
  json_builder_end_array (builder);

  add_string_member (builder, "selected",
                     self->selected != NULL ? self->selected->module->name : NULL);
  if (self->selected != NULL)
    add_selected (self, builder);
  else
    add_string_member (builder, "error", self->selection_failure);
  json_builder_end_object (builder);
  g_mutex_unlock (&self->lock);

  return json_builder_get_root (builder);
}

