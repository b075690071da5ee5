/* test-seatbelt-profile.c — the Seatbelt profile logic: macOS spellings, the -D parameters of
 * each mode, refused roots, and a profile text that no path ever changes.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <glib.h>
#include <stdlib.h>
#include <string.h>

#include "dsh-seatbelt-profile.h"

static void
assert_spelling (const char *path, const char *expected)
{
  char *spelled = dsh_seatbelt_macos_spelling (path);

  g_assert_cmpstr (spelled, ==, expected);
  free (spelled);
}

static void
test_spelling (void)
{
  assert_spelling ("/tmp", "/private/tmp");
  assert_spelling ("/tmp/", "/private/tmp");
  assert_spelling ("/tmp/ws", "/private/tmp/ws");
  assert_spelling ("/var/folders/zz/abc123/T/", "/private/var/folders/zz/abc123/T");
  assert_spelling ("/var/folders/zz/abc123/T", "/private/var/folders/zz/abc123/T");
  assert_spelling ("/etc", "/private/etc");
  assert_spelling ("/var", "/private/var");
  /* Already resolved, or not a /private link at all. */
  assert_spelling ("/private/tmp", "/private/tmp");
  assert_spelling ("/private/var/folders/zz/T", "/private/var/folders/zz/T");
  assert_spelling ("/Users/me/ws", "/Users/me/ws");
  assert_spelling ("/tmpfoo", "/tmpfoo");
  assert_spelling ("/variable/x", "/variable/x");
  assert_spelling ("/home/me/tmp", "/home/me/tmp");
  assert_spelling ("/", "/");
}

static void
build (DshBackendMode mode, const char *const *roots, DshSeatbeltPlan *plan)
{
  DshBackendPolicy policy = { .mode = mode, .workspace_root = roots ? roots[0] : "/Users/me/ws",
                              .writable_roots = roots };
  char error[256];

  g_assert_cmpint (dsh_seatbelt_plan_build (&policy, plan, error, sizeof error), ==, 0);
  g_assert_cmpstr (error, ==, "");
}

static void
assert_defines (const DshSeatbeltPlan *plan, const char *const *expected)
{
  g_assert_cmpuint (plan->n_defines, ==, g_strv_length ((char **) expected));
  for (size_t i = 0; expected[i] != NULL; i++)
    g_assert_cmpstr (plan->defines[i], ==, expected[i]);
  g_assert_null (plan->defines[plan->n_defines]);
}

static void
test_workspace_write_parameters (void)
{
  const char *roots[] = { "/Users/me/ws", "/tmp", "/var/folders/zz/abc/T/", NULL };
  const char *expected[] = {
    "-DWRITABLE_ROOT_0=/Users/me/ws",
    "-DWRITABLE_ROOT_0_GIT=/Users/me/ws/.git",
    "-DWRITABLE_ROOT_0_GIT_HOOKS=/Users/me/ws/.git/hooks",
    "-DWRITABLE_ROOT_0_GIT_CONFIG=/Users/me/ws/.git/config",
    "-DWRITABLE_ROOT_1=/private/tmp",
    "-DWRITABLE_ROOT_1_GIT=/private/tmp/.git",
    "-DWRITABLE_ROOT_1_GIT_HOOKS=/private/tmp/.git/hooks",
    "-DWRITABLE_ROOT_1_GIT_CONFIG=/private/tmp/.git/config",
    "-DWRITABLE_ROOT_2=/private/var/folders/zz/abc/T",
    "-DWRITABLE_ROOT_2_GIT=/private/var/folders/zz/abc/T/.git",
    "-DWRITABLE_ROOT_2_GIT_HOOKS=/private/var/folders/zz/abc/T/.git/hooks",
    "-DWRITABLE_ROOT_2_GIT_CONFIG=/private/var/folders/zz/abc/T/.git/config",
    NULL,
  };
  DshSeatbeltPlan plan;
  size_t inner, outer;

  build (DSH_BACKEND_MODE_WORKSPACE_WRITE, roots, &plan);
  assert_defines (&plan, expected);
  g_assert_cmpuint (plan.n_roots, ==, 3);
  g_assert_cmpstr (plan.roots[1], ==, "/private/tmp");
  g_assert_false (dsh_seatbelt_plan_find_nested_root (&plan, &inner, &outer));
  for (size_t i = 0; i < 3; i++)
    {
      g_autofree char *subpath = g_strdup_printf ("(subpath (param \"WRITABLE_ROOT_%zu\"))", i);
      g_autofree char *hooks = g_strdup_printf ("(subpath (param \"WRITABLE_ROOT_%zu_GIT_HOOKS\"))",
                                                i);

      g_assert_nonnull (strstr (plan.profile, subpath));
      g_assert_nonnull (strstr (plan.profile, hooks));
    }
  g_assert_null (strstr (plan.profile, "WRITABLE_ROOT_3"));
  dsh_seatbelt_plan_clear (&plan);
}

static void
test_read_only_has_no_parameters (void)
{
  /* read-only ignores roots even when a caller hands some over. */
  const char *roots[] = { "/Users/me/ws", NULL };
  DshSeatbeltPlan plan;

  build (DSH_BACKEND_MODE_READ_ONLY, roots, &plan);
  g_assert_cmpuint (plan.n_defines, ==, 0);
  g_assert_cmpuint (plan.n_roots, ==, 0);
  g_assert_null (plan.defines[0]);
  g_assert_null (strstr (plan.profile, "param"));
  g_assert_null (strstr (plan.profile, "(allow file-write*"));
  g_assert_true (g_str_has_prefix (plan.profile, "(version 1)\n(deny default)\n"));
  g_assert_nonnull (strstr (plan.profile, "(literal \"/dev/null\")"));
  dsh_seatbelt_plan_clear (&plan);
}

static void
test_duplicates_after_spelling (void)
{
  const char *roots[] = { "/private/tmp/ws", "/tmp", "/private/tmp", "/tmp/ws/", NULL };
  DshSeatbeltPlan plan;
  size_t inner, outer;

  build (DSH_BACKEND_MODE_WORKSPACE_WRITE, roots, &plan);
  g_assert_cmpuint (plan.n_roots, ==, 2);
  g_assert_cmpstr (plan.roots[0], ==, "/private/tmp/ws");
  g_assert_cmpstr (plan.roots[1], ==, "/private/tmp");
  g_assert_cmpuint (plan.n_defines, ==, 8);
  /* Directly inside /private/tmp: nothing between them to rename. */
  g_assert_false (dsh_seatbelt_plan_find_nested_root (&plan, &inner, &outer));
  dsh_seatbelt_plan_clear (&plan);

  {
    const char *deeper[] = { "/Users/me/ws", "/private/var/t", "/var/t/x/ws", NULL };

    build (DSH_BACKEND_MODE_WORKSPACE_WRITE, deeper, &plan);
    g_assert_true (dsh_seatbelt_plan_find_nested_root (&plan, &inner, &outer));
    g_assert_cmpuint (inner, ==, 2);
    g_assert_cmpuint (outer, ==, 1);
    dsh_seatbelt_plan_clear (&plan);
  }
}

static void
test_profile_independent_of_paths (void)
{
  const char *plain[] = { "/Users/me/ws", "/tmp", NULL };
  const char *hostile[] = { "/Users/me/a \"b\" (allow file-write* (subpath \"/\"))\n;x",
                            "/Users/\xff\xfe=\\/ws=1", NULL };
  DshSeatbeltPlan a, b;

  build (DSH_BACKEND_MODE_WORKSPACE_WRITE, plain, &a);
  build (DSH_BACKEND_MODE_WORKSPACE_WRITE, hostile, &b);
  g_assert_cmpstr (a.profile, ==, b.profile);
  /* Each root arrives whole as one value, '=' and all: sandbox-exec splits at the first '='. */
  g_assert_cmpstr (b.defines[0], ==,
                   "-DWRITABLE_ROOT_0=/Users/me/a \"b\" (allow file-write* (subpath \"/\"))\n;x");
  g_assert_cmpstr (b.defines[4], ==, "-DWRITABLE_ROOT_1=/Users/\xff\xfe=\\/ws=1");
  g_assert_cmpstr (b.defines[7], ==,
                   "-DWRITABLE_ROOT_1_GIT_CONFIG=/Users/\xff\xfe=\\/ws=1/.git/config");
  dsh_seatbelt_plan_clear (&a);
  dsh_seatbelt_plan_clear (&b);
}

static void
test_refused_roots (void)
{
  static const struct {
    const char *root;
    const char *message;
  } cases[] = {
    { "relative/ws", "writable root \"relative/ws\" is refused: it is not absolute" },
    { "", "writable root \"\" is refused: it is not absolute" },
    { "/", "writable root \"/\" is refused: it would make every path writable" },
    { "//", "writable root \"//\" is refused: it has an empty component" },
    { "/Users//ws", "writable root \"/Users//ws\" is refused: it has an empty component" },
    { "/Users/me/../ws", "writable root \"/Users/me/../ws\" is refused: it has a \".\" or \"..\" "
                         "component" },
    { "/Users/./ws", "writable root \"/Users/./ws\" is refused: it has a \".\" or \"..\" "
                     "component" },
    { "/tmp/..", "writable root \"/tmp/..\" is refused: it has a \".\" or \"..\" component" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char *roots[] = { "/Users/me/ws", cases[i].root, NULL };
      DshBackendPolicy policy = { .mode = DSH_BACKEND_MODE_WORKSPACE_WRITE,
                                  .workspace_root = "/Users/me/ws", .writable_roots = roots };
      DshSeatbeltPlan plan;
      char error[256];

      g_assert_cmpint (dsh_seatbelt_plan_build (&policy, &plan, error, sizeof error), !=, 0);
      g_assert_cmpstr (error, ==, cases[i].message);
      g_assert_null (plan.profile);
      g_assert_null (plan.defines);
      dsh_seatbelt_plan_clear (&plan);
    }

  /* Names with dots are ordinary components. */
  {
    const char *roots[] = { "/Users/me/.ws/..x/...", NULL };
    DshSeatbeltPlan plan;

    build (DSH_BACKEND_MODE_WORKSPACE_WRITE, roots, &plan);
    g_assert_cmpstr (plan.roots[0], ==, "/Users/me/.ws/..x/...");
    dsh_seatbelt_plan_clear (&plan);
  }
}

static void
test_unknown_mode_refused (void)
{
  DshBackendPolicy policy = { .mode = (DshBackendMode) 7, .workspace_root = "/Users/me/ws" };
  DshSeatbeltPlan plan;
  char error[256];

  g_assert_cmpint (dsh_seatbelt_plan_build (&policy, &plan, error, sizeof error), !=, 0);
  g_assert_cmpstr (error, ==, "unknown sandbox mode 7");
  dsh_seatbelt_plan_clear (&plan);
}

static void
test_workspace_write_without_roots (void)
{
  DshBackendPolicy policy = { .mode = DSH_BACKEND_MODE_WORKSPACE_WRITE,
                              .workspace_root = "/Users/me/ws" };
  DshSeatbeltPlan plan, read_only;
  const char *none[] = { NULL };

  build (DSH_BACKEND_MODE_READ_ONLY, none, &read_only);
  g_assert_cmpint (dsh_seatbelt_plan_build (&policy, &plan, NULL, 0), ==, 0);
  g_assert_cmpstr (plan.profile, ==, read_only.profile);
  g_assert_cmpuint (plan.n_defines, ==, 0);
  dsh_seatbelt_plan_clear (&plan);
  dsh_seatbelt_plan_clear (&read_only);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/seatbelt/spelling", test_spelling);
  g_test_add_func ("/seatbelt/workspace-write-parameters", test_workspace_write_parameters);
  g_test_add_func ("/seatbelt/read-only-has-no-parameters", test_read_only_has_no_parameters);
  g_test_add_func ("/seatbelt/duplicates-after-spelling", test_duplicates_after_spelling);
  g_test_add_func ("/seatbelt/profile-independent-of-paths", test_profile_independent_of_paths);
  g_test_add_func ("/seatbelt/refused-roots", test_refused_roots);
  g_test_add_func ("/seatbelt/unknown-mode-refused", test_unknown_mode_refused);
  g_test_add_func ("/seatbelt/workspace-write-without-roots", test_workspace_write_without_roots);
  return g_test_run ();
}
