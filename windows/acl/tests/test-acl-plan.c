/* test-acl-plan.c — the ACL planner on any host: SHA-256 against the FIPS vectors, the workspace
 * SID (pinned, so a change of derivation cannot slip through), random session identities, the
 * root rules, the runner argv for both modes, the runner's own option parsing, its PATH search
 * for a bare program name, and Windows command-line quoting against the C runtime's documented
 * splits and random argvs.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <glib.h>
#include <string.h>

#include "dsh-acl-cmdline.h"
#include "dsh-acl-plan.h"
#include "dsh-acl-program-search.h"
#include "dsh-acl-roots.h"
#include "dsh-acl-runner-args.h"
#include "dsh-acl-runner-plan.h"
#include "dsh-acl-session.h"
#include "dsh-acl-sha256.h"
#include "dsh-acl-sid.h"

static char *
hex (const guint8 *bytes, gsize len)
{
  GString *out = g_string_new (NULL);

  for (gsize i = 0; i < len; i++)
    g_string_append_printf (out, "%02x", bytes[i]);
  return g_string_free (out, FALSE);
}

static void
assert_sha256 (const char *input, const char *expected)
{
  guint8 digest[DSH_ACL_SHA256_LEN];
  g_autofree char *got = NULL;

  dsh_acl_sha256 (input, strlen (input), digest);
  got = hex (digest, sizeof (digest));
  g_assert_cmpstr (got, ==, expected);
}

static void
test_sha256_vectors (void)
{
  guint8 digest[DSH_ACL_SHA256_LEN];
  g_autofree char *million = NULL;
  char block[1000];
  DshAclSha256 ctx;

  assert_sha256 ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  assert_sha256 ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  assert_sha256 ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                 "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  /* Padding that spills into a second block, and a long message fed in pieces. */
  assert_sha256 ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
                 "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
                 "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  memset (block, 'a', sizeof (block));
  dsh_acl_sha256_init (&ctx);
  for (int i = 0; i < 1000; i++)
    dsh_acl_sha256_update (&ctx, block, sizeof (block));
  dsh_acl_sha256_final (&ctx, digest);
  million = hex (digest, sizeof (digest));
  g_assert_cmpstr (million, ==,
                   "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

static void
test_workspace_sid (void)
{
  char a[DSH_ACL_SID_SIZE], b[DSH_ACL_SID_SIZE], c[DSH_ACL_SID_SIZE];

  dsh_acl_workspace_sid ("C:\\Users\\me\\project", a);
  dsh_acl_workspace_sid ("C:\\Users\\me\\project", b);
  dsh_acl_workspace_sid ("C:\\Users\\me\\Project", c);
  g_assert_true (dsh_acl_sid_is_valid (a));
  g_assert_cmpstr (a, ==, b);
  /* A different spelling is a different SID: its writes fail, nothing is shared. */
  g_assert_cmpstr (a, !=, c);
  /* Pinned: a standing ACE written by an earlier version must keep matching after a reboot or
   * an upgrade. */
  g_assert_cmpstr (a, ==, "S-1-5-21-4104203572-1634123296-1951190470-3003862233");
}

/* One fixed SID for the NUL device, whatever the session or workspace: granted once, it is the
 * only ACE confined calls ever add to the device, however many sessions come and go. */
static void
test_null_device_sid (void)
{
  char a[DSH_ACL_SID_SIZE], b[DSH_ACL_SID_SIZE], workspace[DSH_ACL_SID_SIZE];

  dsh_acl_null_device_sid (a);
  dsh_acl_null_device_sid (b);
  g_assert_true (dsh_acl_sid_is_valid (a));
  g_assert_cmpstr (a, ==, b);
  g_assert_cmpstr (a, ==, "S-1-5-21-2952758600-3458793800-606269286-637955805");
  /* Its own domain: no workspace path, the empty one included, derives it. */
  dsh_acl_workspace_sid ("", workspace);
  g_assert_cmpstr (workspace, !=, a);
}

static void
test_random_sid (void)
{
  char a[DSH_ACL_SID_SIZE], b[DSH_ACL_SID_SIZE];

  g_assert_cmpint (dsh_acl_random_sid (a), ==, 0);
  g_assert_cmpint (dsh_acl_random_sid (b), ==, 0);
  g_assert_true (dsh_acl_sid_is_valid (a));
  g_assert_true (dsh_acl_sid_is_valid (b));
  g_assert_cmpstr (a, !=, b);
}

static void
test_sid_syntax (void)
{
  const char *bad[] = { "", "S-1-5-21", "S-1-5-21-1-2-3", "S-1-5-21-1-2-3-4-5", "S-1-5-21-01-2-3-4",
                        "S-1-5-21-1-2-3-4294967296", "S-1-5-21-1-2-3-4 ", "S-1-5-18",
                        "S-1-5-21--1-2-3", "s-1-5-21-1-2-3-4", "S-1-5-21-1-2-3-x", NULL };

  g_assert_true (dsh_acl_sid_is_valid ("S-1-5-21-0-1-4294967295-42"));
  for (gsize i = 0; bad[i] != NULL; i++)
    {
      g_test_message ("SID %s", bad[i]);
      g_assert_false (dsh_acl_sid_is_valid (bad[i]));
    }
}

static void
test_root_refusals (void)
{
  const char *profile = "C:\\Users\\me";
  const struct {
    const char *root;
    const char *refusal;
  } cases[] = {
    { "C:\\", "it is the root of a drive or share" },
    { "c:", "it is the root of a drive or share" },
    { "C:/", "it is the root of a drive or share" },
    { "\\\\?\\C:\\", "it is the root of a drive or share" },
    { "\\\\server\\share", "it is the root of a drive or share" },
    { "\\\\server\\share\\", "it is the root of a drive or share" },
    { "\\\\?\\UNC\\server\\share", "it is the root of a drive or share" },
    { "/", "it is the root of a drive or share" },
    { "\\", "it is the root of a drive or share" },
    { "C:\\Users\\me", "it is the user's profile directory" },
    { "c:\\users\\ME\\", "it is the user's profile directory" },
    { "\\\\?\\C:\\Users\\me", "it is the user's profile directory" },
    { "C:\\Users", "it contains the user's profile directory" },
    { "project", "it is not an absolute path" },
    { "C:project", "it is not an absolute path" },
    { "", "it is not an absolute path" },
    { "C:\\Users\\me\\project\\..\\..", "it has a . or .. component" },
    { "C:\\work\\.", "it has a . or .. component" },
    { "/home/me/..", "it has a . or .. component" },
    { "C:\\work:stream", "it names a stream or device, not a directory" },
    { "C:\\work\\::$INDEX_ALLOCATION", "it names a stream or device, not a directory" },
    { "C:\\work\\..hidden", NULL },
    { "C:\\work\\a.b", NULL },
    { "C:\\Users\\me\\project", NULL },
    { "C:\\Users\\meadow", NULL },
    { "\\\\server\\share\\work", NULL },
    { "D:\\work", NULL },
    { "/home/me/work", NULL },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_test_message ("root %s", cases[i].root);
      g_assert_cmpstr (dsh_acl_root_refusal (cases[i].root, profile), ==, cases[i].refusal);
    }
  g_assert_cmpstr (dsh_acl_root_refusal ("/home/me", "/home/me"), ==,
                   "it is the user's profile directory");
  g_assert_null (dsh_acl_root_refusal ("C:\\Users\\me", NULL));
}

static DshAclPlanInput
plan_input (gboolean workspace_write, const char *const *roots)
{
  static const char *const temp_roots[] = { "C:\\Users\\me\\AppData\\Local\\Temp", "/tmp", NULL };
  DshAclPlanInput input = {
    .workspace_write = workspace_write,
    .workspace_root = "C:\\work\\project",
    .writable_roots = roots,
    .runner = "C:\\dsh\\libexec\\dsh-acl-exec.exe",
    .temp_base = "C:\\Users\\me\\AppData\\Local\\Temp",
    .temp_roots = temp_roots,
    .profile_dir = "C:\\Users\\me",
  };

  strcpy (input.session.sid, "S-1-5-21-1-2-3-4");
  strcpy (input.session.tag, "00112233445566778899aabbccddeeff");
  return input;
}

static char *
joined (const DshAclPlan *plan)
{
  return g_strjoinv ("|", (char **) plan->argv);
}

static void
test_plan_read_only (void)
{
  const char *const command[] = { "git", "status", NULL };
  DshAclPlanInput input = plan_input (FALSE, NULL);
  g_autofree char *argv = NULL;
  DshAclPlan plan;

  g_assert_cmpint (dsh_acl_plan (&plan, &input, command), ==, 0);
  argv = joined (&plan);
  /* No workspace SID, no write, no temp directory: nothing grants the token a write. */
  g_assert_cmpstr (argv, ==, "C:\\dsh\\libexec\\dsh-acl-exec.exe|--session-sid|S-1-5-21-1-2-3-4|"
                             "--|git|status");
  g_assert_cmpuint (plan.argc, ==, 6);
  g_assert_true (plan.reasons[0] == dsh_acl_reason_everyone);
  g_assert_null (plan.reasons[1]);
  dsh_acl_plan_clear (&plan);
}

static void
test_plan_workspace_write (void)
{
  const char *const roots[] = { "C:\\work\\project", "/tmp", "C:\\Users\\me\\AppData\\Local\\Temp",
                                "D:\\cache", NULL };
  const char *const extra[] = { "D:\\cache", NULL };
  const char *const command[] = { "cmd.exe", "/c", "echo hi > out.txt", NULL };
  DshAclPlanInput input = plan_input (TRUE, roots);
  g_autofree char *argv = NULL;
  g_autofree char *expected = NULL;
  char workspace_sid[DSH_ACL_SID_SIZE];
  DshAclPlan plan;

  g_assert_cmpint (dsh_acl_plan (&plan, &input, command), ==, 0);
  /* The roots go to the SID of the workspace with its extra root, not of the workspace alone;
   * pinned, so that a change of derivation cannot slip through. */
  dsh_acl_grant_sid ("C:\\work\\project", extra, 1, workspace_sid);
  g_assert_cmpstr (plan.workspace_sid, ==, workspace_sid);
  g_assert_cmpstr (workspace_sid, ==, "S-1-5-21-2354045835-3382470279-3376834356-2341772633");
  argv = joined (&plan);
  /* The temp roots give way to the session's private directory. */
  expected = g_strdup_printf ("C:\\dsh\\libexec\\dsh-acl-exec.exe|--workspace-sid|%s|"
                              "--write|C:\\work\\project|--write|D:\\cache|"
                              "--session-sid|S-1-5-21-1-2-3-4|"
                              "--temp-dir|C:\\Users\\me\\AppData\\Local\\Temp\\dsh-acl-"
                              "00112233445566778899aabbccddeeff|--|cmd.exe|/c|echo hi > out.txt",
                              workspace_sid);
  g_assert_cmpstr (argv, ==, expected);
  g_assert_true (plan.reasons[0] == dsh_acl_reason_everyone);
  g_assert_true (plan.reasons[1] == dsh_acl_reason_hard_links);
  g_assert_true (plan.reasons[2] == dsh_acl_reason_git);
  g_assert_null (plan.reasons[3]);
  dsh_acl_plan_clear (&plan);
}

/* The grant of a --write root is a standing ACE: it stays on the root after the call. A later
 * call of the same workspace that was not given that root must not hold the SID it was granted
 * to, or the extra root of one call stays writable for every call after it. */
static void
test_plan_extra_root_grant_ends_with_its_roots (void)
{
  const char *const with_cache[] = { "C:\\work\\project", "D:\\cache", NULL };
  const char *const reordered[] = { "D:\\cache", "C:\\work\\project", NULL };
  const char *const workspace_only[] = { "C:\\work\\project", NULL };
  const char *const with_other[] = { "C:\\work\\project", "D:\\other", NULL };
  const char *const with_temp[] = { "C:\\work\\project", "C:\\Users\\me\\AppData\\Local\\Temp",
                                    "/tmp", NULL };
  const char *const command[] = { "git", "status", NULL };
  DshAclPlanInput input = plan_input (TRUE, with_cache);
  char workspace_sid[DSH_ACL_SID_SIZE];
  DshAclPlan first, again, later, other, temp_only;

  g_assert_cmpint (dsh_acl_plan (&first, &input, command), ==, 0);
  input.writable_roots = reordered;
  g_assert_cmpint (dsh_acl_plan (&again, &input, command), ==, 0);
  input.writable_roots = workspace_only;
  g_assert_cmpint (dsh_acl_plan (&later, &input, command), ==, 0);
  input.writable_roots = with_other;
  g_assert_cmpint (dsh_acl_plan (&other, &input, command), ==, 0);
  input.writable_roots = with_temp;
  g_assert_cmpint (dsh_acl_plan (&temp_only, &input, command), ==, 0);

  /* D:\cache carries the first call's SID; the later call without it must not hold that SID. */
  g_assert_cmpstr (later.workspace_sid, !=, first.workspace_sid);
  g_assert_cmpstr (other.workspace_sid, !=, first.workspace_sid);
  g_assert_cmpstr (other.workspace_sid, !=, later.workspace_sid);
  /* The same roots in another order are the same grant: one standing ACE, not one per call. */
  g_assert_cmpstr (again.workspace_sid, ==, first.workspace_sid);
  /* The workspace alone keeps the SID its path derives, so existing standing ACEs still match;
   * withheld temp roots are no grant and change nothing. */
  dsh_acl_workspace_sid ("C:\\work\\project", workspace_sid);
  g_assert_cmpstr (later.workspace_sid, ==, workspace_sid);
  g_assert_cmpstr (temp_only.workspace_sid, ==, workspace_sid);
  g_assert_true (dsh_acl_sid_is_valid (first.workspace_sid));

  dsh_acl_plan_clear (&first);
  dsh_acl_plan_clear (&again);
  dsh_acl_plan_clear (&later);
  dsh_acl_plan_clear (&other);
  dsh_acl_plan_clear (&temp_only);
}

/* SPEC §7: .git/hooks and .git/config stay read-only under workspace-write, or a backend that
 * cannot express it says so. The standing ACE is inheritable on the whole workspace, so they
 * are writable: the reasons must name that. */
static void
test_plan_names_git_boundary (void)
{
  const char *const roots[] = { "C:\\work\\project", NULL };
  const char *const command[] = { "git", "status", NULL };
  DshAclPlanInput input = plan_input (TRUE, roots);
  gboolean named = FALSE;
  DshAclPlan plan;

  g_assert_cmpint (dsh_acl_plan (&plan, &input, command), ==, 0);
  for (gsize i = 0; plan.reasons[i] != NULL; i++)
    named = named || (strstr (plan.reasons[i], ".git/hooks") != NULL &&
                      strstr (plan.reasons[i], ".git/config") != NULL);
  g_assert_true (named);
  dsh_acl_plan_clear (&plan);

  /* Read-only grants nothing: no such reason there. */
  input = plan_input (FALSE, NULL);
  g_assert_cmpint (dsh_acl_plan (&plan, &input, command), ==, 0);
  for (gsize i = 0; plan.reasons[i] != NULL; i++)
    g_assert_null (strstr (plan.reasons[i], ".git/hooks"));
  dsh_acl_plan_clear (&plan);
}

/* The planner withholds the shared temp area by its spelling in TEMP and TMP; the core hands it
 * the root as GetFinalPathNameByHandle spells it. TEMP often holds a short name
 * (C:\\Users\\RUNNER~1\\...), and then the two never match: the shared temp area arrives at the
 * runner as a --write root. The runner must tell it by what it opens: the directory the private
 * temp directory is made in. */
static void
test_runner_withholds_temp_area (void)
{
  const char *const roots[] = { "C:\\work\\project", "C:\\Users\\runneradmin\\AppData\\Local\\Temp",
                                NULL };
  const char *const command[] = { "git", "status", NULL };
  static const char *const short_temp[] = { "C:\\Users\\RUNNER~1\\AppData\\Local\\Temp", NULL };
  DshAclPlanInput input = plan_input (TRUE, roots);
  g_autofree char *argv = NULL;
  char *area;
  DshAclPlan plan;

  /* What the planner cannot see: the long spelling passes as an ordinary root. */
  input.temp_base = short_temp[0];
  input.temp_roots = short_temp;
  g_assert_cmpint (dsh_acl_plan (&plan, &input, command), ==, 0);
  argv = joined (&plan);
  g_assert_nonnull (strstr (argv, "|--write|C:\\Users\\runneradmin\\AppData\\Local\\Temp|"));
  dsh_acl_plan_clear (&plan);

  /* The runner opens the temp directory's parent and the root, and compares what Windows says. */
  area = dsh_acl_temp_area ("C:\\Users\\RUNNER~1\\AppData\\Local\\Temp\\dsh-acl-"
                            "00112233445566778899aabbccddeeff");
  g_assert_cmpstr (area, ==, "C:\\Users\\RUNNER~1\\AppData\\Local\\Temp");
  free (area);
  area = dsh_acl_temp_area ("D:/t/dsh-acl-00112233445566778899aabbccddeeff");
  g_assert_cmpstr (area, ==, "D:/t");
  free (area);
  /* Beneath a drive's root the area is that root, never "C:" (the drive's current directory,
   * the workspace, whose grant would then be withheld). */
  area = dsh_acl_temp_area ("C:\\dsh-acl-00112233445566778899aabbccddeeff");
  g_assert_cmpstr (area, ==, "C:\\");
  free (area);
  /* A relative name has no parent a grant could widen: nothing to withhold. */
  g_assert_null (dsh_acl_temp_area ("dsh-acl-00112233445566778899aabbccddeeff"));
  g_assert_true (dsh_acl_is_temp_area ("\\\\?\\C:\\Users\\runneradmin\\AppData\\Local\\Temp",
                                       "\\\\?\\C:\\Users\\RunnerAdmin\\AppData\\Local\\Temp\\"));
  g_assert_false (dsh_acl_is_temp_area ("\\\\?\\C:\\work\\project",
                                        "\\\\?\\C:\\Users\\runneradmin\\AppData\\Local\\Temp"));
  g_assert_false (dsh_acl_is_temp_area ("\\\\?\\C:\\Users\\runneradmin\\AppData\\Local\\Temp",
                                        NULL));
}

/* The runner opens a root's last name without following it, but Windows follows a junction
 * on the way. A concurrent confined command that can write an ancestor (C:\\ws, for the
 * workspace C:\\ws\\a\\proj) can swap "a" for a junction to the profile's Documents after the
 * core resolved the root: the open then reaches C:\\Users\\me\\Documents\\proj, which passes
 * every rule, and the standing grant would land there. */
static void
test_opened_root_must_be_the_root (void)
{
  const char *root = "C:\\ws\\a\\proj";
  const char *elsewhere = "\\\\?\\C:\\Users\\me\\Documents\\proj";

  /* What the rules alone say of where the open led: nothing. */
  g_assert_null (dsh_acl_root_refusal (elsewhere, "C:\\Users\\me"));
  g_assert_nonnull (dsh_acl_opened_root_refusal (root, elsewhere, "C:\\Users\\me"));
  /* The root itself, as Windows reports it, passes. */
  g_assert_null (dsh_acl_opened_root_refusal (root, "\\\\?\\C:\\ws\\a\\proj", "C:\\Users\\me"));
  g_assert_null (dsh_acl_opened_root_refusal (root, "\\\\?\\c:\\WS\\a\\proj\\", NULL));
  g_assert_null (dsh_acl_opened_root_refusal ("\\\\server\\share\\w",
                                              "\\\\?\\UNC\\server\\share\\w", NULL));
  /* The rules still come first: the profile reached by another spelling is named as such. */
  g_assert_cmpstr (dsh_acl_opened_root_refusal ("C:\\Users\\ME~1", "\\\\?\\C:\\Users\\me",
                                                "C:\\Users\\me"),
                   ==, "it is the user's profile directory");
}

/* An agentless call's session lives for one call: the runner removes its temp directory when
 * the command ends; a session's stays for the session's later calls. */
static void
test_plan_per_call (void)
{
  const char *const roots[] = { "C:\\work\\project", NULL };
  const char *const command[] = { "git", "status", NULL };
  DshAclPlanInput input = plan_input (TRUE, roots);
  g_autofree char *argv = NULL;
  DshAclPlan plan;

  input.per_call = 1;
  g_assert_cmpint (dsh_acl_plan (&plan, &input, command), ==, 0);
  argv = joined (&plan);
  g_assert_true (g_str_has_suffix (argv, "|--temp-dir|C:\\Users\\me\\AppData\\Local\\Temp\\dsh-acl-"
                                         "00112233445566778899aabbccddeeff|--remove-temp-dir|--|"
                                         "git|status"));
  dsh_acl_plan_clear (&plan);
  g_clear_pointer (&argv, g_free);

  /* Read-only has no temp directory to remove. */
  input = plan_input (FALSE, NULL);
  input.per_call = 1;
  g_assert_cmpint (dsh_acl_plan (&plan, &input, command), ==, 0);
  argv = joined (&plan);
  g_assert_null (strstr (argv, "--remove-temp-dir"));
  g_assert_null (strstr (argv, "--temp-dir"));
  dsh_acl_plan_clear (&plan);
}

static void
assert_plan_fails (const DshAclPlanInput *input, const char *const *command, const char *needle)
{
  DshAclPlan plan;

  g_assert_cmpint (dsh_acl_plan (&plan, input, command), ==, -1);
  g_test_message ("%s", plan.error);
  g_assert_nonnull (strstr (plan.error, needle));
  dsh_acl_plan_clear (&plan);
}

static void
test_plan_refusals (void)
{
  const char *const command[] = { "git", "status", NULL };
  const char *const quoted_program[] = { "C:\\a\"b.exe", NULL };
  const char *const empty[] = { NULL };
  const char *const empty_program[] = { "", "arg", NULL };
  const char *const drive[] = { "C:\\work\\project", "C:\\", NULL };
  const char *const profile[] = { "C:\\work\\project", "c:\\users\\me", NULL };
  g_autofree char *huge = g_strnfill (DSH_ACL_CMDLINE_MAX, 'x');
  const char *const long_command[] = { "prog", huge, NULL };
  DshAclPlanInput input = plan_input (TRUE, drive);

  assert_plan_fails (&input, command, "refusing to grant write access to C:\\: it is the root");
  input = plan_input (TRUE, profile);
  assert_plan_fails (&input, command, "c:\\users\\me: it is the user's profile directory");
  input = plan_input (FALSE, NULL);
  assert_plan_fails (&input, quoted_program, "the program name contains a double quote");
  assert_plan_fails (&input, empty, "there is no command to run");
  /* The runner would refuse it only once started. */
  assert_plan_fails (&input, empty_program, "there is no command to run");
  assert_plan_fails (&input, long_command, "more than the 32766 Windows allows");
  strcpy (input.session.sid, "S-1-5-18");
  assert_plan_fails (&input, command, "the session SID \"S-1-5-18\" is malformed");
  input = plan_input (TRUE, drive);
  input.temp_base = NULL;
  assert_plan_fails (&input, command, "neither TEMP nor TMP");
  input = plan_input (TRUE, NULL);
  input.workspace_root = NULL;
  assert_plan_fails (&input, command, "workspace-write needs a workspace root");
  /* A temp directory the runner would refuse to grant: relative, or beneath a ".." spelling. */
  input = plan_input (TRUE, NULL);
  input.temp_base = "Temp";
  assert_plan_fails (&input, command, "the private temp directory Temp\\dsh-acl-"
                     "00112233445566778899aabbccddeeff beneath TEMP: it is not an absolute path");
  input.temp_base = "C:\\Users\\me\\..\\Temp";
  assert_plan_fails (&input, command, "it has a . or .. component");
}

/* CreateProcess starts a batch file through cmd.exe, which splits the command line by rules of
 * its own: "a&b" runs b, "%PATH%" expands. The core's spawn refuses batch files for that
 * reason, but a confined call reaches CreateProcess in the runner, so the planner refuses them
 * as Windows would open the name (trailing dots and spaces dropped, a stream cut), and so does
 * the runner. */
static const char *const batch_programs[] = {
  "run.bat", "RUN.CMD", "C:\\tools\\run.bat", "C:/tools/Run.Cmd", "run.bat.", "run.bat ",
  "run.bat. .", "C:\\tools\\run.cmd...", "run.bat::$DATA", "run.bat:x", "RUN~1.BAT",
  "run.batch", "run.cmdx", "C:\\dir with space\\x.bat",
  /* Drive-relative: the file in that drive's current directory, the colon the drive's. */
  "C:run.bat", "c:RUN.CMD", "C:run.bat.", "C:run.bat:x",
  /* A stream named like a batch file: never a program anyone means, so refused too. */
  "run:x.bat", "C:\\tools\\run:x.cmd", NULL,
};
static const char *const plain_programs[] = {
  "git", "git.exe", "C:\\tools\\bat", "C:\\run.bat\\tool.exe", "run.bat.exe", "cmd.exe",
  "C:\\Windows\\System32\\cmd.exe", "bat", ".bat\\x", "run.ba", "run.exe. ", NULL,
};

static void
test_plan_refuses_batch_files (void)
{
  DshAclPlanInput input = plan_input (FALSE, NULL);

  for (gsize i = 0; batch_programs[i] != NULL; i++)
    {
      const char *const command[] = { batch_programs[i], "a&calc.exe", NULL };

      g_test_message ("batch: [%s]", batch_programs[i]);
      assert_plan_fails (&input, command, "is a batch file");
    }
  for (gsize i = 0; plain_programs[i] != NULL; i++)
    {
      const char *const command[] = { plain_programs[i], "a&calc.exe", NULL };
      DshAclPlan plan;

      g_test_message ("not batch: [%s]", plain_programs[i]);
      g_assert_cmpint (dsh_acl_plan (&plan, &input, command), ==, 0);
      dsh_acl_plan_clear (&plan);
    }
}

static void
test_runner_args_refuse_batch_files (void)
{
  for (gsize i = 0; batch_programs[i] != NULL; i++)
    {
      const char *const argv[] = { "r", "--session-sid", "S-1-5-21-1-2-3-4", "--",
                                   batch_programs[i], "a&calc.exe", NULL };
      DshAclRunnerArgs args;

      g_test_message ("batch: [%s]", batch_programs[i]);
      g_assert_cmpint (dsh_acl_runner_args_parse (&args, argv, "C:\\Users\\me"), ==, -1);
      g_assert_nonnull (strstr (args.error, "is a batch file"));
      dsh_acl_runner_args_clear (&args);
    }
  for (gsize i = 0; plain_programs[i] != NULL; i++)
    {
      const char *const argv[] = { "r", "--session-sid", "S-1-5-21-1-2-3-4", "--",
                                   plain_programs[i], NULL };
      DshAclRunnerArgs args;

      g_assert_cmpint (dsh_acl_runner_args_parse (&args, argv, "C:\\Users\\me"), ==, 0);
      dsh_acl_runner_args_clear (&args);
    }
}

static void
test_program_is_bare (void)
{
  const char *const bare[] = { "git", "git.exe", "python3.11", "tool.", "my tool", "ab:c", NULL };
  /* A separator or a drive says where the file is: CreateProcess does not search for it. */
  const char *const located[] = { ".\\git", "./git", "sub\\git.exe", "sub/git", "\\git",
                                  "C:git", "c:git.exe", "C:\\bin\\git.exe", "\\\\s\\sh\\git",
                                  NULL };

  for (gsize i = 0; bare[i] != NULL; i++)
    g_assert_true (dsh_acl_program_is_bare (bare[i]));
  for (gsize i = 0; located[i] != NULL; i++)
    g_assert_false (dsh_acl_program_is_bare (located[i]));
}

static void
test_path_entry_is_usable (void)
{
  const char *const usable[] = { "C:\\bin", "c:/bin", "C:\\", "D:\\Program Files\\Git\\cmd\\",
                                 "\\\\server\\share", "\\\\server\\share\\bin", NULL };
  /* Each depends on the current directory or drive, or is no directory at all. */
  const char *const skipped[] = { "", ".", "..", "bin", ".\\bin", "C:", "C:bin", "\\bin", "/bin",
                                  "\\\\", "\\\\server", "\\\\server\\", "\\\\?\\C:\\bin",
                                  "\\\\.\\C:\\bin", "\"C:\\bin\"", " C:\\bin", NULL };

  for (gsize i = 0; usable[i] != NULL; i++)
    g_assert_true (dsh_acl_path_entry_is_usable (usable[i]));
  for (gsize i = 0; skipped[i] != NULL; i++)
    {
      g_test_message ("skipped: [%s]", skipped[i]);
      g_assert_false (dsh_acl_path_entry_is_usable (skipped[i]));
    }
}

/* The file test of a search: the files there are, and every path it was asked about. */
typedef struct {
  const char *const *files;
  GPtrArray *asked;
} FakeFiles;

static int
fake_is_file (const char *path, void *data)
{
  FakeFiles *fake = data;

  g_ptr_array_add (fake->asked, g_strdup (path));
  for (gsize i = 0; fake->files[i] != NULL; i++)
    {
      if (strcmp (fake->files[i], path) == 0)
        return 1;
    }
  return 0;
}

/* Searches program on path; returns what was found (or NULL) and sets *asked to the paths
 * looked at, joined by '|'. */
static char *
search (const char *program, const char *path, const char *const *files, char **asked)
{
  g_autoptr (GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  FakeFiles fake = { files, paths };
  char *found = NULL;
  char *copy;
  int rc;

  rc = dsh_acl_program_search (program, path, fake_is_file, &fake, &found);
  g_assert_cmpint (rc, ==, found != NULL ? 0 : 1);
  g_ptr_array_add (paths, NULL);
  *asked = g_strjoinv ("|", (char **) paths->pdata);
  copy = g_strdup (found);
  free (found);
  return copy;
}

static void
test_program_search (void)
{
  const char *const files[] = { "C:\\work\\git.exe", "C:\\bin\\git.exe", "D:\\git\\git.exe",
                                "C:\\bin\\tool.v2", "C:\\bin\\tool.v2.exe", "C:\\bin\\run.com",
                                "C:\\bin\\run.exe", NULL };
  const char *const none[] = { NULL };
  g_autofree char *found = NULL;
  g_autofree char *asked = NULL;

  /* The first absolute entry with the file wins; empty, ".", relative and drive-relative
   * entries are never asked about, so a planted C:\work\git.exe (the current directory) is not
   * found through them. */
  found = search ("git", ";.;work;C:work;\\work;C:\\bin;D:\\git", files, &asked);
  g_assert_cmpstr (found, ==, "C:\\bin\\git.exe");
  g_assert_cmpstr (asked, ==, "C:\\bin\\git.exe");
  g_clear_pointer (&found, g_free);
  g_clear_pointer (&asked, g_free);

  /* A trailing separator is not doubled; forward slashes stay as written. */
  found = search ("git", "C:\\nothing\\;D:/git/", files, &asked);
  g_assert_null (found);
  g_assert_cmpstr (asked, ==, "C:\\nothing\\git.exe|D:/git/git.exe");
  g_clear_pointer (&asked, g_free);
  found = search ("git", "C:\\nothing\\;D:\\git\\", files, &asked);
  g_assert_cmpstr (found, ==, "D:\\git\\git.exe");
  g_clear_pointer (&found, g_free);
  g_clear_pointer (&asked, g_free);

  /* .exe only when the name has no '.' at all, as CreateProcess appends it: never .com, never
   * PATHEXT, and "tool.v2" is searched as written. */
  found = search ("git.exe", "C:\\bin", files, &asked);
  g_assert_cmpstr (found, ==, "C:\\bin\\git.exe");
  g_clear_pointer (&found, g_free);
  g_clear_pointer (&asked, g_free);
  found = search ("tool.v2", "C:\\bin", files, &asked);
  g_assert_cmpstr (found, ==, "C:\\bin\\tool.v2");
  g_clear_pointer (&found, g_free);
  g_clear_pointer (&asked, g_free);
  found = search ("run", "C:\\bin", files, &asked);
  g_assert_cmpstr (found, ==, "C:\\bin\\run.exe");
  g_clear_pointer (&found, g_free);
  g_clear_pointer (&asked, g_free);
  found = search ("run", "C:\\bin", (const char *const[]) { "C:\\bin\\run.com", NULL }, &asked);
  g_assert_null (found);
  g_assert_cmpstr (asked, ==, "C:\\bin\\run.exe");
  g_clear_pointer (&asked, g_free);

  /* Nothing on PATH, or no PATH at all: not found, whatever the current directory holds. */
  found = search ("git", "", files, &asked);
  g_assert_null (found);
  g_assert_cmpstr (asked, ==, "");
  g_clear_pointer (&asked, g_free);
  found = search ("git", NULL, files, &asked);
  g_assert_null (found);
  g_clear_pointer (&asked, g_free);
  found = search ("git", "C:\\a;\\\\server\\share\\bin", none, &asked);
  g_assert_null (found);
  g_assert_cmpstr (asked, ==, "C:\\a\\git.exe|\\\\server\\share\\bin\\git.exe");
}

static void
test_sessions (void)
{
  DshAclSessions *first = dsh_acl_sessions_new ();
  DshAclSessions *second = dsh_acl_sessions_new ();
  DshAclSession a, again, other_session, other_workspace, agentless1, agentless2, renewed;
  g_autofree char *dir = NULL;

  g_assert_cmpint (dsh_acl_sessions_get (first, "s1", "C:\\w", &a), ==, 0);
  g_assert_cmpint (dsh_acl_sessions_get (first, "s1", "C:\\w", &again), ==, 0);
  g_assert_cmpint (dsh_acl_sessions_get (first, "s2", "C:\\w", &other_session), ==, 0);
  g_assert_cmpint (dsh_acl_sessions_get (first, "s1", "C:\\v", &other_workspace), ==, 0);
  g_assert_cmpint (dsh_acl_sessions_get (first, NULL, "C:\\w", &agentless1), ==, 0);
  g_assert_cmpint (dsh_acl_sessions_get (first, NULL, "C:\\w", &agentless2), ==, 0);
  /* A new provider's instance: a resumed session starts afresh. */
  g_assert_cmpint (dsh_acl_sessions_get (second, "s1", "C:\\w", &renewed), ==, 0);

  g_assert_true (dsh_acl_sid_is_valid (a.sid));
  g_assert_cmpuint (strlen (a.tag), ==, 32);
  g_assert_cmpstr (a.sid, ==, again.sid);
  g_assert_cmpstr (a.tag, ==, again.tag);
  {
    const DshAclSession *others[] = { &other_session, &other_workspace, &agentless1, &agentless2,
                                      &renewed };

    for (gsize i = 0; i < G_N_ELEMENTS (others); i++)
      {
        g_assert_cmpstr (others[i]->sid, !=, a.sid);
        g_assert_cmpstr (others[i]->tag, !=, a.tag);
      }
  }
  g_assert_cmpstr (agentless1.sid, !=, agentless2.sid);

  dir = dsh_acl_session_temp_dir (&a, "C:\\Temp\\");
  g_assert_true (g_str_has_prefix (dir, "C:\\Temp\\dsh-acl-"));
  g_assert_true (g_str_has_suffix (dir, a.tag));
  g_clear_pointer (&dir, g_free);
  dir = dsh_acl_session_temp_dir (&a, "/tmp");
  g_assert_true (g_str_has_prefix (dir, "/tmp/dsh-acl-"));
  dsh_acl_sessions_free (first);
  dsh_acl_sessions_free (second);
}

typedef struct {
  GPtrArray *removed;
} Removals;

static void
record_removal (const char *dir, void *data)
{
  g_ptr_array_add (((Removals *) data)->removed, g_strdup (dir));
}

/* The temp directories a provider's sessions were given go when the provider ends, each once;
 * a provider that planned none removes nothing. */
static void
test_sessions_remove_temp_dirs (void)
{
  Removals removals = { g_ptr_array_new_with_free_func (g_free) };
  DshAclSessions *sessions = dsh_acl_sessions_new ();

  g_assert_cmpint (dsh_acl_sessions_keep_temp_dir (sessions, "C:\\T\\dsh-acl-1"), ==, 0);
  g_assert_cmpint (dsh_acl_sessions_keep_temp_dir (sessions, "C:\\T\\dsh-acl-2"), ==, 0);
  g_assert_cmpint (dsh_acl_sessions_keep_temp_dir (sessions, "C:\\T\\dsh-acl-1"), ==, 0);
  dsh_acl_sessions_free_full (sessions, record_removal, &removals);
  g_assert_cmpuint (removals.removed->len, ==, 2);
  g_assert_true (g_ptr_array_find_with_equal_func (removals.removed, "C:\\T\\dsh-acl-1",
                                                   g_str_equal, NULL));
  g_assert_true (g_ptr_array_find_with_equal_func (removals.removed, "C:\\T\\dsh-acl-2",
                                                   g_str_equal, NULL));

  g_ptr_array_set_size (removals.removed, 0);
  sessions = dsh_acl_sessions_new ();
  dsh_acl_sessions_free_full (sessions, record_removal, &removals);
  g_assert_cmpuint (removals.removed->len, ==, 0);
  g_ptr_array_unref (removals.removed);
}

/* What the runner grants and restricts with. The NUL device is one object for the whole machine:
 * its grant goes to the fixed SID for every session, never to a session's SID, so sessions add
 * no ACE to it; only the session's own temp directory is granted to the session SID. */
static void
test_runner_plan (void)
{
  const char *const first[] = { "r", "--workspace-sid", "S-1-5-21-1-2-3-4", "--write", "C:\\work",
                                "--write", "D:\\cache", "--session-sid", "S-1-5-21-5-6-7-8",
                                "--temp-dir", "C:\\Temp\\dsh-acl-00112233445566778899aabbccddeeff",
                                "--", "git", NULL };
  const char *const second[] = { "r", "--session-sid", "S-1-5-21-9-10-11-12", "--", "cmd",
                                 NULL };
  char null_device_sid[DSH_ACL_SID_SIZE];
  DshAclRunnerArgs args_a, args_b;
  DshAclRunnerPlan a, b;

  dsh_acl_null_device_sid (null_device_sid);
  g_assert_cmpint (dsh_acl_runner_args_parse (&args_a, first, "C:\\Users\\me"), ==, 0);
  g_assert_cmpint (dsh_acl_runner_args_parse (&args_b, second, "C:\\Users\\me"), ==, 0);
  g_assert_cmpint (dsh_acl_runner_plan (&a, &args_a), ==, 0);
  g_assert_cmpint (dsh_acl_runner_plan (&b, &args_b), ==, 0);

  g_assert_cmpuint (a.n_grants, ==, 4);
  g_assert_cmpint (a.grants[0].kind, ==, DSH_ACL_GRANT_ROOT);
  g_assert_cmpstr (a.grants[0].path, ==, "C:\\work");
  g_assert_cmpstr (a.grants[0].sid, ==, "S-1-5-21-1-2-3-4");
  g_assert_cmpint (a.grants[1].kind, ==, DSH_ACL_GRANT_ROOT);
  g_assert_cmpstr (a.grants[1].path, ==, "D:\\cache");
  g_assert_cmpint (a.grants[2].kind, ==, DSH_ACL_GRANT_TEMP_DIR);
  g_assert_cmpstr (a.grants[2].sid, ==, "S-1-5-21-5-6-7-8");
  g_assert_cmpint (a.grants[3].kind, ==, DSH_ACL_GRANT_NULL_DEVICE);
  g_assert_null (a.grants[3].path);
  g_assert_cmpstr (a.grants[3].sid, ==, null_device_sid);

  g_assert_cmpuint (b.n_grants, ==, 1);
  g_assert_cmpint (b.grants[0].kind, ==, DSH_ACL_GRANT_NULL_DEVICE);
  g_assert_cmpstr (b.grants[0].sid, ==, null_device_sid);
  for (gsize i = 0; i < a.n_grants; i++)
    {
      if (a.grants[i].kind != DSH_ACL_GRANT_TEMP_DIR)
        g_assert_cmpstr (a.grants[i].sid, !=, args_a.session_sid);
    }

  g_assert_cmpuint (a.n_restricting_sids, ==, 3);
  g_assert_cmpstr (a.restricting_sids[0], ==, "S-1-5-21-5-6-7-8");
  g_assert_cmpstr (a.restricting_sids[1], ==, "S-1-5-21-1-2-3-4");
  g_assert_cmpstr (a.restricting_sids[2], ==, null_device_sid);
  g_assert_cmpuint (b.n_restricting_sids, ==, 2);
  g_assert_cmpstr (b.restricting_sids[0], ==, "S-1-5-21-9-10-11-12");
  g_assert_cmpstr (b.restricting_sids[1], ==, null_device_sid);

  dsh_acl_runner_plan_clear (&a);
  dsh_acl_runner_plan_clear (&b);
  dsh_acl_runner_args_clear (&args_a);
  dsh_acl_runner_args_clear (&args_b);
}

static void
test_runner_args_good (void)
{
  const char *const argv[] = { "dsh-acl-exec.exe", "--workspace-sid", "S-1-5-21-1-2-3-4",
                               "--write", "C:\\work", "--write", "D:\\cache",
                               "--session-sid", "S-1-5-21-5-6-7-8", "--temp-dir",
                               "C:\\Temp\\dsh-acl-00112233445566778899aabbccddeeff", "--", "git",
                               "--write", NULL };
  const char *const minimal[] = { "r", "--session-sid", "S-1-5-21-5-6-7-8", "--", "cmd", NULL };
  const char *const per_call[] = { "r", "--session-sid", "S-1-5-21-5-6-7-8", "--temp-dir",
                                   "C:\\Temp\\dsh-acl-00112233445566778899aabbccddeeff",
                                   "--remove-temp-dir", "--", "cmd", NULL };
  DshAclRunnerArgs args;

  g_assert_cmpint (dsh_acl_runner_args_parse (&args, argv, "C:\\Users\\me"), ==, 0);
  g_assert_cmpstr (args.workspace_sid, ==, "S-1-5-21-1-2-3-4");
  g_assert_cmpstr (args.session_sid, ==, "S-1-5-21-5-6-7-8");
  g_assert_cmpstr (args.temp_dir, ==, "C:\\Temp\\dsh-acl-00112233445566778899aabbccddeeff");
  g_assert_cmpuint (args.n_write_roots, ==, 2);
  g_assert_cmpstr (args.write_roots[1], ==, "D:\\cache");
  /* What follows "--" is the command's, options or not. */
  g_assert_cmpstr (args.command[0], ==, "git");
  g_assert_cmpstr (args.command[1], ==, "--write");
  g_assert_null (args.command[2]);
  dsh_acl_runner_args_clear (&args);

  g_assert_false (args.remove_temp_dir);
  dsh_acl_runner_args_clear (&args);

  g_assert_cmpint (dsh_acl_runner_args_parse (&args, minimal, NULL), ==, 0);
  g_assert_null (args.workspace_sid);
  g_assert_cmpuint (args.n_write_roots, ==, 0);
  dsh_acl_runner_args_clear (&args);

  g_assert_cmpint (dsh_acl_runner_args_parse (&args, per_call, NULL), ==, 0);
  g_assert_true (args.remove_temp_dir);
  dsh_acl_runner_args_clear (&args);
}

static void
test_runner_args_bad (void)
{
  const struct {
    const char *argv[12];
    const char *error;
  } cases[] = {
    { { "r", NULL }, "no command given" },
    { { "r", "--session-sid", "S-1-5-21-1-2-3-4", NULL }, "no command given" },
    { { "r", "--session-sid", "S-1-5-21-1-2-3-4", "--", NULL },
      "the command after \"--\" is empty" },
    { { "r", "--session-sid", "S-1-5-21-1-2-3-4", "--", "", NULL }, "is empty" },
    { { "r", "--", "cmd", NULL }, "--session-sid is required" },
    { { "r", "--session-sid", NULL }, "--session-sid needs a value" },
    { { "r", "--session-sid", "S-1-5-21-1-2-3-4", "--session-sid", "S-1-5-21-1-2-3-5", "--",
        "cmd", NULL }, "--session-sid was given twice" },
    { { "r", "--session-sid", "S-1-5-18", "--", "cmd", NULL },
      "--session-sid \"S-1-5-18\" is not a SID" },
    { { "r", "--session-sid", "S-1-5-21-1-2-3-4", "--workspace-sid", "bogus", "--", "cmd", NULL },
      "--workspace-sid \"bogus\" is not a SID" },
    { { "r", "--session-sid", "S-1-5-21-1-2-3-4", "--workspace-sid", "S-1-5-21-1-2-3-4", "--",
        "cmd", NULL }, "must differ" },
    { { "r", "--session-sid", "S-1-5-21-1-2-3-4", "--write", "C:\\work", "--", "cmd", NULL },
      "--write needs --workspace-sid" },
    { { "r", "--session-sid", "S-1-5-21-1-2-3-4", "--workspace-sid", "S-1-5-21-9-9-9-9", "--write",
        "C:\\", "--", "cmd", NULL }, "C:\\: it is the root of a drive or share" },
    { { "r", "--session-sid", "S-1-5-21-1-2-3-4", "--workspace-sid", "S-1-5-21-9-9-9-9", "--write",
        "C:\\Users\\me", "--", "cmd", NULL }, "it is the user's profile directory" },
    { { "r", "--session-sid", "S-1-5-21-1-2-3-4", "--temp-dir", "relative", "--", "cmd", NULL },
      "refusing the temp directory relative: it is not an absolute path" },
    { { "r", "--session-sid", "S-1-5-21-1-2-3-4", "--temp-dir", "C:\\Users\\me\\Documents", "--",
        "cmd", NULL }, "its name is not dsh-acl- and 32 hex digits" },
    { { "r", "--session-sid", "S-1-5-21-1-2-3-4", "--temp-dir",
        "C:\\Temp\\dsh-acl-00112233445566778899AABBCCDDEEFF", "--", "cmd", NULL },
      "its name is not dsh-acl- and 32 hex digits" },
    { { "r", "--session-sid", "S-1-5-21-1-2-3-4", "--verbose", "--", "cmd", NULL },
      "unknown option \"--verbose\"" },
    { { "r", "cmd", NULL }, "unknown option \"cmd\"" },
    { { "r", "--session-sid", "S-1-5-21-1-2-3-4", "--remove-temp-dir", "--", "cmd", NULL },
      "--remove-temp-dir needs --temp-dir" },
    { { "r", "--session-sid", "S-1-5-21-1-2-3-4", "--temp-dir",
        "C:\\Temp\\dsh-acl-00112233445566778899aabbccddeeff", "--remove-temp-dir",
        "--remove-temp-dir", "--", "cmd", NULL }, "--remove-temp-dir was given twice" },
    { { "r", "--session-sid", "S-1-5-21-2952758600-3458793800-606269286-637955805", "--", "cmd",
        NULL }, "is the NUL device's SID" },
    { { "r", "--session-sid", "S-1-5-21-1-2-3-4", "--workspace-sid",
        "S-1-5-21-2952758600-3458793800-606269286-637955805", "--", "cmd", NULL },
      "is the NUL device's SID" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      DshAclRunnerArgs args;

      g_assert_cmpint (dsh_acl_runner_args_parse (&args, cases[i].argv, "C:\\Users\\me"), ==, -1);
      g_test_message ("%s", args.error);
      g_assert_nonnull (strstr (args.error, cases[i].error));
      dsh_acl_runner_args_clear (&args);
    }
}

static char *
encode (const char *const *argv)
{
  const char *error = NULL;
  char *line = dsh_acl_cmdline_encode (argv, &error);

  g_assert_cmpstr (error, ==, NULL);
  g_assert_nonnull (line);
  return line;
}

static void
assert_splits_to (const char *line, const char *const *expected)
{
  char **argv = dsh_acl_cmdline_decode (line);

  g_test_message ("line [%s]", line);
  g_assert_nonnull (argv);
  g_assert_cmpstrv (argv, expected);
  free (argv);
}

static void
test_cmdline_known_encodings (void)
{
  const struct {
    const char *argv[6];
    const char *line;
  } cases[] = {
    { { "prog", "plain", NULL }, "prog plain" },
    { { "C:\\Program Files\\x.exe", "a b", NULL }, "\"C:\\Program Files\\x.exe\" \"a b\"" },
    { { "p", "", "", NULL }, "p \"\" \"\"" },
    { { "p", "a\"b", NULL }, "p \"a\\\"b\"" },
    { { "p", "a\\b", NULL }, "p a\\b" },
    { { "p", "a\\", NULL }, "p a\\" },
    { { "p", "a b\\", NULL }, "p \"a b\\\\\"" },
    { { "p", "a\\\\\"b", NULL }, "p \"a\\\\\\\\\\\"b\"" },
    { { "p", "\t", NULL }, "p \"\t\"" },
    { { "", NULL }, "\"\"" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *line = encode (cases[i].argv);

      g_assert_cmpstr (line, ==, cases[i].line);
      assert_splits_to (line, cases[i].argv);
    }
}

/* The splits Microsoft documents for its C runtime, after a program name. */
static void
test_cmdline_documented_splits (void)
{
  const char *const e1[] = { "p", "a b c", "d", "e", NULL };
  const char *const e2[] = { "p", "ab\"c", "\\", "d", NULL };
  const char *const e3[] = { "p", "a\\\\\\b", "de fg", "h", NULL };
  const char *const e4[] = { "p", "a\\\"b", "c", "d", NULL };
  const char *const e5[] = { "p", "a\\\\b c", "d", "e", NULL };
  const char *const e6[] = { "p", "ab\" c d", NULL };
  const char *const e7[] = { "C:\\Program Files\\a\\", "x", NULL };
  const char *const none[] = { NULL };

  assert_splits_to ("p \"a b c\" d e", e1);
  assert_splits_to ("p \"ab\\\"c\" \"\\\\\" d", e2);
  assert_splits_to ("p a\\\\\\b d\"e f\"g h", e3);
  assert_splits_to ("p a\\\\\\\"b c d", e4);
  assert_splits_to ("p a\\\\\\\\\"b c\" d e", e5);
  assert_splits_to ("p a\"b\"\" c d", e6);
  /* The program name takes backslashes literally, even before its closing quote. */
  assert_splits_to ("\"C:\\Program Files\\a\\\" x", e7);
  assert_splits_to ("", none);
  assert_splits_to ("p \t ", (const char *const[]){ "p", NULL });
}

static void
test_cmdline_refuses_quoted_program (void)
{
  const char *const argv[] = { "a\"b", "c", NULL };
  const char *error = NULL;

  g_assert_null (dsh_acl_cmdline_encode (argv, &error));
  g_assert_nonnull (strstr (error, "double quote"));
}

static char *
random_item (GRand *rand, gboolean program)
{
  static const char alphabet[] = " \t\"\\\\\\a\n\vb";
  static const char *const wide[] = { "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80" };
  GString *item = g_string_new (NULL);
  gint32 len = g_rand_int_range (rand, 0, 12);

  for (gint32 i = 0; i < len; i++)
    {
      if (g_rand_int_range (rand, 0, 8) == 0)
        g_string_append (item, wide[g_rand_int_range (rand, 0, G_N_ELEMENTS (wide))]);
      else
        g_string_append_c (item, alphabet[g_rand_int_range (rand, 0, sizeof (alphabet) - 1)]);
    }
  if (program)
    g_strdelimit (item->str, "\"", '_');
  return g_string_free (item, FALSE);
}

static void
test_cmdline_random_round_trip (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (20261201);

  for (int round = 0; round < 20000; round++)
    {
      g_autoptr (GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
      gint32 n = g_rand_int_range (rand, 1, 7);
      g_autofree char *line = NULL;
      char **split;

      for (gint32 i = 0; i < n; i++)
        g_ptr_array_add (argv, random_item (rand, i == 0));
      g_ptr_array_add (argv, NULL);
      line = encode ((const char *const *) argv->pdata);
      split = dsh_acl_cmdline_decode (line);
      if (!g_strv_equal ((const char *const *) split, (const char *const *) argv->pdata))
        {
          g_autofree char *want = g_strjoinv ("|", (char **) argv->pdata);
          g_autofree char *got = g_strjoinv ("|", split);

          g_error ("round %d: [%s] encoded as [%s] split into [%s]", round, want, line, got);
        }
      free (split);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/acl/sha256/vectors", test_sha256_vectors);
  g_test_add_func ("/acl/sid/workspace", test_workspace_sid);
  g_test_add_func ("/acl/sid/random", test_random_sid);
  g_test_add_func ("/acl/sid/null-device", test_null_device_sid);
  g_test_add_func ("/acl/sid/syntax", test_sid_syntax);
  g_test_add_func ("/acl/roots/refusals", test_root_refusals);
  g_test_add_func ("/acl/plan/read-only", test_plan_read_only);
  g_test_add_func ("/acl/plan/workspace-write", test_plan_workspace_write);
  g_test_add_func ("/acl/plan/refusals", test_plan_refusals);
  g_test_add_func ("/acl/plan/refuses-batch-files", test_plan_refuses_batch_files);
  g_test_add_func ("/acl/plan/per-call", test_plan_per_call);
  g_test_add_func ("/acl/plan/extra-root-grant-ends-with-its-roots",
                   test_plan_extra_root_grant_ends_with_its_roots);
  g_test_add_func ("/acl/plan/names-git-boundary", test_plan_names_git_boundary);
  g_test_add_func ("/acl/runner/withholds-temp-area", test_runner_withholds_temp_area);
  g_test_add_func ("/acl/runner/opened-root-must-be-the-root", test_opened_root_must_be_the_root);
  g_test_add_func ("/acl/sessions", test_sessions);
  g_test_add_func ("/acl/sessions/remove-temp-dirs", test_sessions_remove_temp_dirs);
  g_test_add_func ("/acl/runner-plan", test_runner_plan);
  g_test_add_func ("/acl/runner-args/good", test_runner_args_good);
  g_test_add_func ("/acl/runner-args/bad", test_runner_args_bad);
  g_test_add_func ("/acl/runner-args/refuse-batch-files", test_runner_args_refuse_batch_files);
  g_test_add_func ("/acl/program/is-bare", test_program_is_bare);
  g_test_add_func ("/acl/program/path-entry-is-usable", test_path_entry_is_usable);
  g_test_add_func ("/acl/program/search", test_program_search);
  g_test_add_func ("/acl/cmdline/known-encodings", test_cmdline_known_encodings);
  g_test_add_func ("/acl/cmdline/documented-splits", test_cmdline_documented_splits);
  g_test_add_func ("/acl/cmdline/refuses-quoted-program", test_cmdline_refuses_quoted_program);
  g_test_add_func ("/acl/cmdline/random-round-trip", test_cmdline_random_round_trip);
  return g_test_run ();
}
