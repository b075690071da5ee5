/* dsh-permission-presets.c — the config-driven preset table, preset selection as log events and
 * the derived current preset.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-permission-presets.h"

#include <glib/gstdio.h>
#include <string.h>

#include "dsh-error.h"
#include "dsh-texts.h"
#include "dsh-vocabulary-private.h"
#include "dsh-json-strict-private.h"
#include "dsh-policy-file-reach-private.h"
#include "dsh-roots.h"

/**
 * DshPermissionPresets:
 *
 * Named bundles of the two knobs (sandbox mode, approval policy), selected per session through
 * the session log. `custom` is reserved: it names a session no entry matches.
 *
 * Since: 0.1
 */

typedef struct {
  char *name;
  DshSandboxMode mode;
  DshApprovalPolicy policy;
} PresetEntry;

struct _DshPermissionPresets {
  GObject parent_instance;

  /* Configuration: built before the object is shared, read-only afterwards. */
  GPtrArray *entries;
  DshSandboxMode default_mode;
  DshApprovalPolicy default_policy;
  char *default_preset;
  /* Absolute, "~/" already expanded; NULL for none. */
  GStrv extra_writable_roots;
};

G_DEFINE_FINAL_TYPE (DshPermissionPresets, dsh_permission_presets, G_TYPE_OBJECT)

static void
preset_entry_free (PresetEntry *entry)
{
  g_free (entry->name);
  g_free (entry);
}

static void
dsh_permission_presets_finalize (GObject *object)
{
  DshPermissionPresets *self = DSH_PERMISSION_PRESETS (object);

  g_ptr_array_unref (self->entries);
  g_free (self->default_preset);
  g_strfreev (self->extra_writable_roots);
  G_OBJECT_CLASS (dsh_permission_presets_parent_class)->finalize (object);
}

static void
dsh_permission_presets_class_init (DshPermissionPresetsClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = dsh_permission_presets_finalize;
}

static void
dsh_permission_presets_init (DshPermissionPresets *self)
{
  self->entries = g_ptr_array_new_with_free_func ((GDestroyNotify) preset_entry_free);
  self->default_mode = DSH_SANDBOX_MODE_DEFAULT;
  self->default_policy = DSH_APPROVAL_POLICY_DEFAULT;
}

/**
 * dsh_permission_presets_new_empty:
 *
 * Returns: (transfer full): an empty table; add entries with dsh_permission_presets_add()
 *
 * Since: 0.1
 */
DshPermissionPresets *
dsh_permission_presets_new_empty (void)
{
  return g_object_new (DSH_TYPE_PERMISSION_PRESETS, NULL);
}

static void
add_default_table (DshPermissionPresets *self)
{
  dsh_permission_presets_add (self, "workspace-write", DSH_SANDBOX_MODE_WORKSPACE_WRITE,
                              DSH_APPROVAL_POLICY_ASK, NULL);
  dsh_permission_presets_add (self, "danger-full-access", DSH_SANDBOX_MODE_DANGER_FULL_ACCESS,
                              DSH_APPROVAL_POLICY_NEVER, NULL);
}

/**
 * dsh_permission_presets_new:
 *
 * Returns: (transfer full): the default table (`workspace-write` and `danger-full-access`), with
 *   deployment defaults `read-only` and `ask` and no default preset
 *
 * Since: 0.1
 */
DshPermissionPresets *
dsh_permission_presets_new (void)
{
  DshPermissionPresets *self = dsh_permission_presets_new_empty ();

  add_default_table (self);
  return self;
}

static const PresetEntry *
find_entry (DshPermissionPresets *self, const char *name)
{
  for (guint i = 0; i < self->entries->len; i++)
    {
      const PresetEntry *entry = g_ptr_array_index (self->entries, i);

      if (g_strcmp0 (entry->name, name) == 0)
        return entry;
    }
  return NULL;
}

/**
 * dsh_permission_presets_add:
 * @self: a #DshPermissionPresets
 * @name: the preset's name
 * @mode: its sandbox mode
 * @policy: its approval policy
 * @error: return location for a #GError
 *
 * Returns: %TRUE when it was added; %FALSE with %DSH_SANDBOX_ERROR_INVALID_ARGUMENT for `custom`,
 *   a duplicate or an empty name
 *
 * Since: 0.1
 */
gboolean
dsh_permission_presets_add (DshPermissionPresets *self, const char *name, DshSandboxMode mode,
                            DshApprovalPolicy policy, GError **error)
{
  PresetEntry *entry;

  g_return_val_if_fail (DSH_IS_PERMISSION_PRESETS (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  if (*name == '\0' || !g_utf8_validate (name, -1, NULL))
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                   "a preset name must be a non-empty UTF-8 string");
      return FALSE;
    }
  if (g_str_equal (name, DSH_PERMISSION_PRESET_CUSTOM))
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                   "the preset name \"custom\" is reserved for the derived non-preset state");
      return FALSE;
    }
  if (find_entry (self, name) != NULL)
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                   "the preset \"%s\" is defined twice", name);
      return FALSE;
    }
  if (!dsh_sandbox_mode_is_valid (mode) || !dsh_approval_policy_is_valid (policy))
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                   "the preset \"%s\" has a knob outside its vocabulary", name);
      return FALSE;
    }

  entry = g_new0 (PresetEntry, 1);
  entry->name = g_strdup (name);
  entry->mode = mode;
  entry->policy = policy;
  g_ptr_array_add (self->entries, entry);
  return TRUE;
}

/**
 * dsh_permission_presets_lookup:
 * @self: a #DshPermissionPresets
 * @name: a preset's name
 * @out_mode: (out) (optional): its sandbox mode
 * @out_policy: (out) (optional): its approval policy
 *
 * Returns: %TRUE when the table has the preset
 *
 * Since: 0.1
 */
gboolean
dsh_permission_presets_lookup (DshPermissionPresets *self, const char *name,
                               DshSandboxMode *out_mode, DshApprovalPolicy *out_policy)
{
  const PresetEntry *entry;

  g_return_val_if_fail (DSH_IS_PERMISSION_PRESETS (self), FALSE);

  entry = find_entry (self, name);
  if (entry == NULL)
    return FALSE;
  if (out_mode != NULL)
    *out_mode = entry->mode;
  if (out_policy != NULL)
    *out_policy = entry->policy;
  return TRUE;
}

/**
 * dsh_permission_presets_dup_names:
 * @self: a #DshPermissionPresets
 *
 * Returns: (transfer full) (array zero-terminated=1): the preset names in table order
 *
 * Since: 0.1
 */
GStrv
dsh_permission_presets_dup_names (DshPermissionPresets *self)
{
  g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();

  g_return_val_if_fail (DSH_IS_PERMISSION_PRESETS (self), NULL);
  for (guint i = 0; i < self->entries->len; i++)
    g_strv_builder_add (builder, ((PresetEntry *) g_ptr_array_index (self->entries, i))->name);
  return g_strv_builder_end (builder);
}

/**
 * dsh_permission_presets_get_default_mode:
 * @self: a #DshPermissionPresets
 *
 * Returns: the mode a session without a `sandbox/mode` runs under
 *
 * Since: 0.1
 */
DshSandboxMode
dsh_permission_presets_get_default_mode (DshPermissionPresets *self)
{
  g_return_val_if_fail (DSH_IS_PERMISSION_PRESETS (self), DSH_SANDBOX_MODE_DEFAULT);
  return self->default_mode;
}

/**
 * dsh_permission_presets_set_default_mode:
 * @self: a #DshPermissionPresets
 * @mode: the mode a session without a `sandbox/mode` runs under
 *
 * Since: 0.1
 */
void
dsh_permission_presets_set_default_mode (DshPermissionPresets *self, DshSandboxMode mode)
{
  g_return_if_fail (DSH_IS_PERMISSION_PRESETS (self));
  g_return_if_fail (dsh_sandbox_mode_is_valid (mode));
  self->default_mode = mode;
}

/**
 * dsh_permission_presets_get_default_approval_policy:
 * @self: a #DshPermissionPresets
 *
 * Returns: the approval policy of a session without an `approval/policy`
 *
 * Since: 0.1
 */
DshApprovalPolicy
dsh_permission_presets_get_default_approval_policy (DshPermissionPresets *self)
{
  g_return_val_if_fail (DSH_IS_PERMISSION_PRESETS (self), DSH_APPROVAL_POLICY_DEFAULT);
  return self->default_policy;
}

/**
 * dsh_permission_presets_set_default_approval_policy:
 * @self: a #DshPermissionPresets
 * @policy: the approval policy of a session without an `approval/policy`
 *
 * Since: 0.1
 */
void
dsh_permission_presets_set_default_approval_policy (DshPermissionPresets *self,
                                                    DshApprovalPolicy policy)
{
  g_return_if_fail (DSH_IS_PERMISSION_PRESETS (self));
  g_return_if_fail (dsh_approval_policy_is_valid (policy));
  self->default_policy = policy;
}

/**
 * dsh_permission_presets_get_default_preset:
 * @self: a #DshPermissionPresets
 *
 * Returns: (transfer none) (nullable): the preset new sessions start with
 *
 * Since: 0.1
 */
const char *
dsh_permission_presets_get_default_preset (DshPermissionPresets *self)
{
  g_return_val_if_fail (DSH_IS_PERMISSION_PRESETS (self), NULL);
  return self->default_preset;
}

static gboolean
check_selectable (DshPermissionPresets *self, const char *name, GError **error)
{
  if (g_strcmp0 (name, DSH_PERMISSION_PRESET_CUSTOM) == 0)
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                   "the preset \"custom\" is derived from the knobs and cannot be selected");
      return FALSE;
    }
  if (name == NULL || find_entry (self, name) == NULL)
    {
      g_autofree char *names = NULL;
      g_auto (GStrv) list = dsh_permission_presets_dup_names (self);

      names = g_strjoinv (", ", list);
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                   "unknown preset \"%s\": expected one of %s", dsh_vocabulary_printable (name),
                   *names != '\0' ? names : "(none configured)");
      return FALSE;
    }
  return TRUE;
}

/**
 * dsh_permission_presets_set_default_preset:
 * @self: a #DshPermissionPresets
 * @name: (nullable): a preset of the table, or %NULL for none
 * @error: return location for a #GError
 *
 * Returns: %TRUE when it was set; %FALSE with %DSH_SANDBOX_ERROR_INVALID_ARGUMENT for a name the
 *   table lacks
 *
 * Since: 0.1
 */
gboolean
dsh_permission_presets_set_default_preset (DshPermissionPresets *self, const char *name,
                                           GError **error)
{
  g_return_val_if_fail (DSH_IS_PERMISSION_PRESETS (self), FALSE);

  if (name != NULL && !check_selectable (self, name, error))
    return FALSE;
  g_free (self->default_preset);
  self->default_preset = g_strdup (name);
  return TRUE;
}

/* ---- configuration file ------------------------------------------------------------------ */

static gboolean
only_members (JsonObject *object, const char *const *allowed, const char *where, GError **error)
{
  JsonObjectIter iter;
  const char *member;
  JsonNode *node;

  /* Unknown keys are refused: a misspelt key must not silently fall back to a default. */
  json_object_iter_init (&iter, object);
  while (json_object_iter_next (&iter, &member, &node))
    {
      if (!g_strv_contains (allowed, member))
        {
          g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                       "%s: unknown member \"%s\"", where, member);
          return FALSE;
        }
    }
  return TRUE;
}

static const char *
string_member (JsonObject *object, const char *member, const char *where, GError **error)
{
  JsonNode *node = json_object_get_member (object, member);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_STRING)
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                   "%s: \"%s\" must be a string", where, member);
      return NULL;
    }
  return json_node_get_string (node);
}

static gboolean
load_table (DshPermissionPresets *self, JsonNode *presets, GError **error)
{
  static const char *const entry_members[] = { "name", "mode", "approvalPolicy", NULL };
  JsonArray *array;

  if (!JSON_NODE_HOLDS_ARRAY (presets))
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                   "\"presets\" must be an array");
      return FALSE;
    }
  array = json_node_get_array (presets);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *node = json_array_get_element (array, i);
      g_autofree char *where = g_strdup_printf ("presets[%u]", i);
      JsonObject *entry;
      const char *name, *mode_text, *policy_text;
      DshSandboxMode mode;
      DshApprovalPolicy policy;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        {
          g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                       "%s must be an object", where);
          return FALSE;
        }
      entry = json_node_get_object (node);
      if (!only_members (entry, entry_members, where, error) ||
          (name = string_member (entry, "name", where, error)) == NULL ||
          (mode_text = string_member (entry, "mode", where, error)) == NULL ||
          (policy_text = string_member (entry, "approvalPolicy", where, error)) == NULL)
        return FALSE;
      if (!dsh_sandbox_mode_from_string (mode_text, &mode, error) ||
          !dsh_approval_policy_from_string (policy_text, &policy, error) ||
          !dsh_permission_presets_add (self, name, mode, policy, error))
        {
          g_prefix_error (error, "%s: ", where);
          return FALSE;
        }
    }
  return TRUE;
}

/* extraWritableRoots: absolute paths, or "~/..." for the home directory; nothing else. */
static gboolean
load_extra_roots (DshPermissionPresets *self, JsonNode *node, GError **error)
{
  g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();
  JsonArray *array;

  if (!JSON_NODE_HOLDS_ARRAY (node))
    {
      g_set_error_literal (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                           "extraWritableRoots must be an array of paths");
      return FALSE;
    }
  array = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      const char *text = JSON_NODE_HOLDS_VALUE (element) &&
                             json_node_get_value_type (element) == G_TYPE_STRING
                           ? json_node_get_string (element)
                           : NULL;
      const char *home = g_getenv ("HOME");

      if (text != NULL && g_str_has_prefix (text, "~/") && home != NULL &&
          g_path_is_absolute (home))
        {
          g_autofree char *expanded = g_build_filename (home, text + 2, NULL);

          g_strv_builder_add (builder, expanded);
        }
      else if (text != NULL && g_path_is_absolute (text))
        g_strv_builder_add (builder, text);
      else
        {
          g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                       "extraWritableRoots[%u] must be an absolute path or start with \"~/\"",
                       i);
          return FALSE;
        }
    }
  self->extra_writable_roots = g_strv_builder_end (builder);
  return TRUE;
}

/**
 * dsh_permission_presets_new_from_json:
 * @json: a configuration document (`schemas/config.schema.json`)
 * @length: its length, or -1 when it is NUL-terminated
 * @error: return location for a #GError
 *
 * A `presets` member replaces the default table.
 *
 * Returns: (transfer full): the configured table, or %NULL with @error set
 *
 * Since: 0.1
 */
DshPermissionPresets *
dsh_permission_presets_new_from_json (const char *json, gssize length, GError **error)
{
  static const char *const members[] = {
    "defaultMode", "defaultApprovalPolicy", "defaultPreset", "presets", "extraWritableRoots",
    NULL
  };
  g_autoptr (DshPermissionPresets) self = dsh_permission_presets_new_empty ();
  g_autoptr (JsonObject) config = NULL;
  gboolean syntax_error;
  gsize size;

  g_return_val_if_fail (json != NULL, NULL);
  size = length < 0 ? strlen (json) : (gsize) length;

  config = dsh_json_strict_parse_object (json, size, "the document must be an object",
                                         &syntax_error, error);
  if (config == NULL)
    {
      g_prefix_error (error, "permission presets configuration: ");
      return NULL;
    }
  if (!only_members (config, members, "permission presets configuration", error))
    return NULL;

  if (json_object_has_member (config, "presets"))
    {
      if (!load_table (self, json_object_get_member (config, "presets"), error))
        {
          g_prefix_error (error, "permission presets configuration: ");
          return NULL;
        }
    }
  else
    add_default_table (self);

  if (json_object_has_member (config, "defaultMode"))
    {
      const char *text = string_member (config, "defaultMode", "configuration", error);

      if (text == NULL || !dsh_sandbox_mode_from_string (text, &self->default_mode, error))
        {
          g_prefix_error (error, "permission presets configuration: defaultMode: ");
          return NULL;
        }
    }
  if (json_object_has_member (config, "defaultApprovalPolicy"))
    {
      const char *text = string_member (config, "defaultApprovalPolicy", "configuration", error);

      if (text == NULL || !dsh_approval_policy_from_string (text, &self->default_policy, error))
        {
          g_prefix_error (error, "permission presets configuration: defaultApprovalPolicy: ");
          return NULL;
        }
    }
  if (json_object_has_member (config, "defaultPreset"))
    {
      const char *text = string_member (config, "defaultPreset", "configuration", error);

      if (text == NULL || !dsh_permission_presets_set_default_preset (self, text, error))
        {
          g_prefix_error (error, "permission presets configuration: defaultPreset: ");
          return NULL;
        }
    }
  if (json_object_has_member (config, "extraWritableRoots") &&
      !load_extra_roots (self, json_object_get_member (config, "extraWritableRoots"), error))
    {
      g_prefix_error (error, "permission presets configuration: ");
      return NULL;
    }
  return g_steal_pointer (&self);
}

/**
 * dsh_permission_presets_new_from_file:
 * @path: (type filename): a configuration file
 * @error: return location for a #GError
 *
 * Returns: (transfer full): the configured table, or %NULL with @error set
 *
 * Since: 0.1
 */
DshPermissionPresets *
dsh_permission_presets_new_from_file (const char *path, GError **error)
{
  g_autofree char *contents = NULL;
  gsize length;
  DshPermissionPresets *self;

  g_return_val_if_fail (path != NULL, NULL);

  if (!g_file_get_contents (path, &contents, &length, error))
    return NULL;
  self = dsh_permission_presets_new_from_json (contents, (gssize) length, error);
  if (self == NULL)
    g_prefix_error (error, "%s: ", path);
  return self;
}

/* ---- folds and selection ----------------------------------------------------------------- */

/**
 * dsh_permission_presets_effective_mode:
 * @self: a #DshPermissionPresets
 * @events: (element-type DshSessionEvent): a session's events
 *
 * Returns: the last `sandbox/mode`, else the deployment default
 *
 * Since: 0.1
 */
DshSandboxMode
dsh_permission_presets_effective_mode (DshPermissionPresets *self, GPtrArray *events)
{
  DshSandboxMode mode = self->default_mode;

  dsh_session_events_last_mode (events, &mode);
  return mode;
}

/**
 * dsh_permission_presets_effective_approval_policy:
 * @self: a #DshPermissionPresets
 * @events: (element-type DshSessionEvent): a session's events
 *
 * Returns: the last `approval/policy`, else the deployment default
 *
 * Since: 0.1
 */
DshApprovalPolicy
dsh_permission_presets_effective_approval_policy (DshPermissionPresets *self, GPtrArray *events)
{
  DshApprovalPolicy policy = self->default_policy;

  dsh_session_events_last_approval_policy (events, &policy);
  return policy;
}

/**
 * dsh_permission_presets_current:
 * @self: a #DshPermissionPresets
 * @events: (element-type DshSessionEvent): a session's events
 *
 * Returns: (transfer full): the last recorded selection if it still matches the effective knobs,
 *   else the first matching table entry, else `custom`
 *
 * Since: 0.1
 */
char *
dsh_permission_presets_current (DshPermissionPresets *self, GPtrArray *events)
{
  DshSandboxMode mode;
  DshApprovalPolicy policy;
  const PresetEntry *recorded;

  g_return_val_if_fail (DSH_IS_PERMISSION_PRESETS (self), NULL);
  g_return_val_if_fail (events != NULL, NULL);

  mode = dsh_permission_presets_effective_mode (self, events);
  policy = dsh_permission_presets_effective_approval_policy (self, events);

  /* The recorded selection keeps the user's intent when two presets share a bundle. */
  recorded = find_entry (self, dsh_session_events_last_preset (events));
  if (recorded != NULL && recorded->mode == mode && recorded->policy == policy)
    return g_strdup (recorded->name);

  for (guint i = 0; i < self->entries->len; i++)
    {
      const PresetEntry *entry = g_ptr_array_index (self->entries, i);

      if (entry->mode == mode && entry->policy == policy)
        return g_strdup (entry->name);
    }
  return g_strdup (DSH_PERMISSION_PRESET_CUSTOM);
}

/**
 * dsh_permission_presets_set:
 * @self: a #DshPermissionPresets
 * @session: a session
 * @name: a preset of the table
 * @out_notice: (out) (optional) (nullable) (transfer full): the notice the host injects for the
 *   model when the effective approval policy changed, else %NULL
 * @error: return location for a #GError
 *
 * Appends `permissionPresets/preset` when the recorded selection differs, then `sandbox/mode` and
 * `approval/policy` each only when its effective value changes. Unknown names and `custom` are
 * refused.
 *
 * Returns: %TRUE once it is appended, else %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
dsh_permission_presets_set (DshPermissionPresets *self, DshSessionLog *session, const char *name,
                            char **out_notice, GError **error)
{
  g_autofree char *recorded = NULL;
  const PresetEntry *entry;
  DshApprovalPolicy previous = self->default_policy;
  DshSandboxMode mode = self->default_mode;

  g_return_val_if_fail (DSH_IS_PERMISSION_PRESETS (self), FALSE);
  g_return_val_if_fail (DSH_IS_SESSION_LOG (session), FALSE);

  if (out_notice != NULL)
    *out_notice = NULL;
  if (!check_selectable (self, name, error))
    return FALSE;
  entry = find_entry (self, name);
  /* The log's own folds: the whole file's, however much of it this object read. */
  dsh_session_log_last_approval_policy (session, &previous);
  dsh_session_log_last_mode (session, &mode);
  recorded = dsh_session_log_dup_last_preset (session);

  /* Intent first, then mechanism; each only when it changes, so re-selecting is a no-op. */
  if (g_strcmp0 (recorded, name) != 0 &&
      !dsh_session_log_append_preset (session, name, error))
    return FALSE;
  if (mode != entry->mode &&
      !dsh_session_log_append_mode (session, entry->mode, error))
    return FALSE;
  if (previous != entry->policy)
    {
      if (!dsh_session_log_append_approval_policy (session, entry->policy, error))
        return FALSE;
      /* The model must learn of it as when the policy alone is switched. */
      if (out_notice != NULL)
        *out_notice = dsh_text_approval_policy_changed (
          dsh_approval_policy_to_string (previous), dsh_approval_policy_to_string (entry->policy));
    }
  return TRUE;
}

/**
 * dsh_permission_presets_pin_session:
 * @self: a #DshPermissionPresets
 * @session: a resumed session
 * @error: return location for a #GError
 *
 * Appends the `sandbox/mode` and `approval/policy` the session lacks, with the values it is under
 * now (and the default preset when that is what it is under). Call it before a resumed session's
 * policy is used or shown to a model.
 *
 * Returns: %TRUE when the session holds them all, else %FALSE with @error set
 *
 * Since: 0.1
 */
gboolean
dsh_permission_presets_pin_session (DshPermissionPresets *self, DshSessionLog *session,
                                    GError **error)
{
  g_autofree char *recorded = NULL;
  const PresetEntry *preset;
  DshSandboxMode mode = self->default_mode;
  DshApprovalPolicy policy = self->default_policy;
  gboolean has_mode;
  gboolean has_policy;

  g_return_val_if_fail (DSH_IS_PERMISSION_PRESETS (self), FALSE);
  g_return_val_if_fail (DSH_IS_SESSION_LOG (session), FALSE);

  /* What the session runs under right now is what it keeps: the facts it lacks take the
   * values in force at this, its first use, and are never taken from the defaults again. */
  has_mode = dsh_session_log_last_mode (session, &mode);
  has_policy = dsh_session_log_last_approval_policy (session, &policy);
  recorded = dsh_session_log_dup_last_preset (session);

  /* The default preset is recorded only when it is what the session is under; an intent the
   * session never had is not invented. */
  preset = find_entry (self, self->default_preset);
  if (recorded == NULL && preset != NULL &&
      preset->mode == mode && preset->policy == policy &&
      !dsh_session_log_append_preset (session, preset->name, error))
    return FALSE;
  if (!has_mode && !dsh_session_log_append_mode (session, mode, error))
    return FALSE;
  if (!has_policy && !dsh_session_log_append_approval_policy (session, policy, error))
    return FALSE;
  return TRUE;
}

/* Refused now, with the reason, rather than by every later call: a cwd that is no directory,
 * one of /, one reached through a symlink a confined command could have planted, or a log its
 * own commands could write (they would set its policy). */
static gboolean
check_new_session (DshPermissionPresets *self, const char *path, const char *cwd,
                   GError **error)
{
  const char *const *extra = (const char *const *) self->extra_writable_roots;
  g_autofree char *root = NULL;
  g_autofree char *log_dir = NULL;
  g_autofree char *log_name = NULL;
  g_autofree char *canonical_dir = NULL;
  g_autofree char *log = NULL;

  /* A typo here would pin a workspace that matches nothing. */
  if (!g_file_test (cwd, G_FILE_TEST_IS_DIR))
    {
      g_autofree char *shown = g_utf8_make_valid (cwd, -1);

      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                   "the session cwd \"%s\" is not an existing directory", shown);
      return FALSE;
    }
  root = dsh_workspace_root (cwd, "/");
  log_dir = g_path_get_dirname (path);
  log_name = g_path_get_basename (path);
  canonical_dir = dsh_canonical_path (log_dir);
  log = g_build_filename (canonical_dir, log_name, NULL);
  return dsh_roots_check_new_workspace (cwd, root, extra, error) &&
         dsh_policy_file_check_out_of_reach ("session log", log, root, extra, error);
}

/**
 * dsh_permission_presets_create_session:
 * @self: a #DshPermissionPresets
 * @path: (type filename): where the log goes
 * @cwd: (type filename): the session's working directory
 * @preset: (nullable): the preset to start with, else the default preset, if any
 * @error: return location for a #GError
 *
 * Creates a session log and pins the preset, the mode and the approval policy into it, so that
 * later changes of the defaults never alter it. Refused, with the reason: a cwd that is no
 * directory (%DSH_SANDBOX_ERROR_INVALID_ARGUMENT), a cwd of `/` or one reached through a
 * symlink a confined command could have planted (%DSH_SANDBOX_ERROR_ROOT_REFUSED), and a log
 * beneath, or reached through, what the session's commands may write: the workspace, `/tmp`,
 * the temp directory, the extra writable roots, or a directory ever granted
 * (%DSH_SANDBOX_ERROR_SESSION_LOG), where they could rewrite their own policy.
 *
 * Returns: (transfer full): the new log, or %NULL with @error set
 *
 * Since: 0.1
 */
DshSessionLog *
dsh_permission_presets_create_session (DshPermissionPresets *self, const char *path,
                                       const char *cwd, const char *preset, GError **error)
{
  g_autoptr (DshSessionLog) session = NULL;
  const char *name = preset != NULL ? preset : self->default_preset;
  DshSandboxMode mode = self->default_mode;
  DshApprovalPolicy policy = self->default_policy;

  g_return_val_if_fail (DSH_IS_PERMISSION_PRESETS (self), NULL);

  if (name != NULL)
    {
      if (!check_selectable (self, name, error))
        return NULL;
      dsh_permission_presets_lookup (self, name, &mode, &policy);
    }
  if (!check_new_session (self, path, cwd, error))
    return NULL;

  session = dsh_session_log_create_with_roots (path, cwd,
                                               (const char *const *) self->extra_writable_roots,
                                               error);
  if (session == NULL)
    return NULL;

  /* Pinned unconditionally: the session keeps these even when the defaults change later. */
  if ((name != NULL && !dsh_session_log_append_preset (session, name, error)) ||
      !dsh_session_log_append_mode (session, mode, error) ||
      !dsh_session_log_append_approval_policy (session, policy, error))
    {
      /* A half-pinned session would later follow changed defaults: remove it, fail closed. */
      g_unlink (path);
      return NULL;
    }
  return g_steal_pointer (&session);
}

/**
 * dsh_permission_presets_get_extra_writable_roots:
 * @self: a #DshPermissionPresets
 *
 * Returns: (transfer none) (array zero-terminated=1) (nullable): the deployment's extra writable
 *   roots for `workspace-write` (`extraWritableRoots`, absolute, `~/` expanded), pinned into each
 *   new session
 *
 * Since: 0.1
 */
const char *const *
dsh_permission_presets_get_extra_writable_roots (DshPermissionPresets *self)
{
  g_return_val_if_fail (DSH_IS_PERMISSION_PRESETS (self), NULL);
  return (const char *const *) self->extra_writable_roots;
}
