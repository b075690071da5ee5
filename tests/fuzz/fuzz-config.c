/* fuzz-config.c — libFuzzer target for the deployment configuration ($DSH_SANDBOX_CONFIG): any
 * bytes either load as a preset table that keeps its promises ("custom" never defined, no
 * empty or doubled name, the default preset in the table) or are refused with an error naming
 * the file; the table written back as a configuration loads to the same table; the file and the
 * in-memory parser agree.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <string.h>

#include "dsh-cli-session.h"
#include "fuzz-target.h"
#include "fuzz-util.h"

/* The table as a configuration document, in the schema's own terms. */
static char *
write_config (DshPermissionPresets *presets)
{
  g_autoptr (JsonBuilder) builder = json_builder_new ();
  g_autoptr (JsonNode) root = NULL;
  g_auto (GStrv) names = dsh_permission_presets_dup_names (presets);
  const char *preset = dsh_permission_presets_get_default_preset (presets);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "defaultMode");
  json_builder_add_string_value (
    builder, dsh_sandbox_mode_to_string (dsh_permission_presets_get_default_mode (presets)));
  json_builder_set_member_name (builder, "defaultApprovalPolicy");
  json_builder_add_string_value (builder, dsh_approval_policy_to_string (
                                            dsh_permission_presets_get_default_approval_policy (
                                              presets)));
  if (preset != NULL)
    {
      json_builder_set_member_name (builder, "defaultPreset");
      json_builder_add_string_value (builder, preset);
    }
  json_builder_set_member_name (builder, "presets");
  json_builder_begin_array (builder);
  for (gsize i = 0; names[i] != NULL; i++)
    {
      DshSandboxMode mode;
      DshApprovalPolicy policy;

      g_assert_true (dsh_permission_presets_lookup (presets, names[i], &mode, &policy));
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "name");
      json_builder_add_string_value (builder, names[i]);
      json_builder_set_member_name (builder, "mode");
      json_builder_add_string_value (builder, dsh_sandbox_mode_to_string (mode));
      json_builder_set_member_name (builder, "approvalPolicy");
      json_builder_add_string_value (builder, dsh_approval_policy_to_string (policy));
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  json_builder_end_object (builder);
  root = json_builder_get_root (builder);
  return json_to_string (root, FALSE);
}

static void
assert_same_table (DshPermissionPresets *a, DshPermissionPresets *b)
{
  g_auto (GStrv) names_a = dsh_permission_presets_dup_names (a);
  g_auto (GStrv) names_b = dsh_permission_presets_dup_names (b);

  g_assert_true (g_strv_equal ((const char *const *) names_a, (const char *const *) names_b));
  for (gsize i = 0; names_a[i] != NULL; i++)
    {
      DshSandboxMode mode_a, mode_b;
      DshApprovalPolicy policy_a, policy_b;

      g_assert_true (dsh_permission_presets_lookup (a, names_a[i], &mode_a, &policy_a));
      g_assert_true (dsh_permission_presets_lookup (b, names_a[i], &mode_b, &policy_b));
      g_assert_cmpint (mode_a, ==, mode_b);
      g_assert_cmpint (policy_a, ==, policy_b);
    }
  g_assert_cmpint (dsh_permission_presets_get_default_mode (a), ==,
                   dsh_permission_presets_get_default_mode (b));
  g_assert_cmpint (dsh_permission_presets_get_default_approval_policy (a), ==,
                   dsh_permission_presets_get_default_approval_policy (b));
  g_assert_cmpstr (dsh_permission_presets_get_default_preset (a), ==,
                   dsh_permission_presets_get_default_preset (b));
}

static void
assert_promises (DshPermissionPresets *presets)
{
  g_auto (GStrv) names = dsh_permission_presets_dup_names (presets);
  g_autoptr (GPtrArray) no_events = g_ptr_array_new ();
  g_autofree char *current = dsh_permission_presets_current (presets, no_events);
  const char *preset = dsh_permission_presets_get_default_preset (presets);
  DshSandboxMode mode;
  DshApprovalPolicy policy;

  for (gsize i = 0; names[i] != NULL; i++)
    {
      g_assert_cmpstr (names[i], !=, "");
      g_assert_cmpstr (names[i], !=, "custom");
      for (gsize j = 0; j < i; j++)
        g_assert_cmpstr (names[i], !=, names[j]);
    }
  g_assert_false (dsh_permission_presets_lookup (presets, "custom", &mode, &policy));
  g_assert_true (preset == NULL || g_strv_contains ((const char *const *) names, preset));
  g_assert_true (g_str_equal (current, "custom") ||
                 g_strv_contains ((const char *const *) names, current));
  g_assert_nonnull (dsh_sandbox_mode_to_string (dsh_permission_presets_get_default_mode (presets)));
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static char *path = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GError) file_error = NULL;
  g_autoptr (DshPermissionPresets) presets = NULL;
  g_autoptr (DshPermissionPresets) from_file = NULL;

  if (path == NULL)
    {
      path = g_build_filename (fuzz_scratch_dir (), "config.json", NULL);
      g_setenv ("DSH_SANDBOX_CONFIG", path, TRUE);
    }

  presets = dsh_permission_presets_new_from_json ((const char *) data, (gssize) size, &error);
  g_assert_true ((presets == NULL) == (error != NULL));

  /* The same bytes through the file, the way the commands read $DSH_SANDBOX_CONFIG. */
  fuzz_write_file (path, (const char *) data, (gssize) size);
  from_file = dsh_cli_load_presets (&file_error);
  g_assert_true ((from_file == NULL) == (file_error != NULL));
  g_assert_true ((from_file == NULL) == (presets == NULL));

  if (presets == NULL)
    {
      g_assert_true (g_error_matches (error, DSH_SANDBOX_ERROR,
                                      DSH_SANDBOX_ERROR_INVALID_ARGUMENT));
      g_assert_true (g_utf8_validate (error->message, -1, NULL));
      g_assert_true (g_str_has_prefix (file_error->message, path));
      return 0;
    }

  assert_promises (presets);
  assert_same_table (presets, from_file);
  {
    g_autofree char *written = write_config (presets);
    g_autoptr (GError) again_error = NULL;
    g_autoptr (DshPermissionPresets) again =
      dsh_permission_presets_new_from_json (written, -1, &again_error);

    g_assert_no_error (again_error);
    assert_same_table (presets, again);
  }
  return 0;
}
