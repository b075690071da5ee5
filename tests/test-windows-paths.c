/* test-windows-paths.c — the plain logic of the core's Windows side, on any host: how a Windows
 * path is read (absolute or not, beneath what), which writable roots are refused, which reparse
 * points count as links, and the command line that hands a program its argv exactly.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include <string.h>

#include "dsh-windows-acl-private.h"
#include "dsh-windows-command-line-private.h"
#include "dsh-windows-paths-private.h"
#include "dsh-windows-way-private.h"

static void
test_strip_prefix (void)
{
  static const struct {
    const char *path;
    const char *stripped;
  } cases[] = {
    { "\\\\?\\C:\\work", "C:\\work" },
    { "\\\\.\\C:\\work", "C:\\work" },
    { "\\\\?\\UNC\\server\\share\\x", "\\\\server\\share\\x" },
    { "\\\\?\\unc\\server\\share", "\\\\server\\share" },
    { "//?/C:/work", "C:/work" },
    { "C:\\work", "C:\\work" },
    { "\\\\server\\share", "\\\\server\\share" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *stripped = dsh_windows_path_strip_prefix (cases[i].path);

      g_assert_cmpstr (stripped, ==, cases[i].stripped);
    }
}

static void
test_root_length (void)
{
  static const struct {
    const char *path;
    gsize length;
  } cases[] = {
    { "C:\\", 3 },
    { "c:/work", 3 },
    { "C:\\work\\x", 3 },
    { "\\\\server\\share", 14 },
    { "\\\\server\\share\\x", 14 },
    { "//server/share/x", 14 },
    /* Relative to a drive's current directory, or to the current drive: no one directory. */
    { "C:", 0 },
    { "C:work", 0 },
    { "\\work", 0 },
    { "/work", 0 },
    { "work", 0 },
    { "", 0 },
    /* Incomplete shares and device namespaces. */
    { "\\\\server", 0 },
    { "\\\\server\\", 0 },
    { "\\\\\\share", 0 },
    { "\\\\?\\C:\\work", 0 },
    { "\\\\.\\pipe\\x", 0 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_test_message ("%s", cases[i].path);
      g_assert_cmpuint (dsh_windows_path_root_length (cases[i].path), ==, cases[i].length);
    }
}

static void
test_is_beneath (void)
{
  g_assert_true (dsh_windows_path_is_beneath ("C:\\work", "C:\\work"));
  g_assert_true (dsh_windows_path_is_beneath ("C:\\work\\a\\b", "C:\\work"));
  g_assert_true (dsh_windows_path_is_beneath ("C:\\work\\a", "C:\\work\\"));
  g_assert_true (dsh_windows_path_is_beneath ("c:/WORK/a", "C:\\work"));
  g_assert_true (dsh_windows_path_is_beneath ("C:\\work", "C:\\"));
  g_assert_true (dsh_windows_path_is_beneath ("\\\\srv\\share\\x", "\\\\SRV\\share"));
  g_assert_false (dsh_windows_path_is_beneath ("C:\\workshop", "C:\\work"));
  g_assert_false (dsh_windows_path_is_beneath ("C:\\wor", "C:\\work"));
  g_assert_false (dsh_windows_path_is_beneath ("D:\\work", "C:\\work"));
  g_assert_false (dsh_windows_path_is_beneath ("C:work", "C:\\"));
  g_assert_false (dsh_windows_path_is_beneath ("C:\\work", ""));
  g_assert_false (dsh_windows_path_is_beneath ("C:\\work", "\\"));
}

/* why is NULL when expected is, else a reason containing expected. */
static void
assert_reason (const char *why, const char *expected)
{
  if (expected == NULL)
    g_assert_null (why);
  else
    {
      g_assert_nonnull (why);
      g_assert_nonnull (strstr (why, expected));
    }
}

/* NULL when the root is accepted, else a substring of the reason. */
static void
assert_refusal (const char *root, const char *workspace, const char *expected)
{
  static const char *const trees[] = { "C:\\Windows", "C:\\Program Files", NULL };
  g_autofree char *why = dsh_windows_root_refusal (root, workspace, "C:\\Users\\me", trees);

  g_test_message ("%s: %s", root, why != NULL ? why : "accepted");
  assert_reason (why, expected);
}

static void
test_root_refusal (void)
{
  const char *ws = "C:\\Users\\me\\src\\project";

  assert_refusal ("C:\\Users\\me\\src\\project", NULL, NULL);
  assert_refusal ("C:\\Users\\me\\AppData\\Local\\Temp", ws, NULL);
  assert_refusal ("\\\\?\\D:\\scratch", ws, NULL);
  assert_refusal ("\\\\server\\share\\build", ws, NULL);
  assert_refusal ("C:\\", ws, "root of a drive or share");
  assert_refusal ("c:/", ws, "root of a drive or share");
  assert_refusal ("\\\\?\\C:\\", ws, "root of a drive or share");
  assert_refusal ("\\\\server\\share", ws, "root of a drive or share");
  assert_refusal ("\\\\server\\share\\", ws, "root of a drive or share");
  assert_refusal ("\\\\?\\UNC\\server\\share", ws, "root of a drive or share");
  assert_refusal ("C:\\Users\\me", ws, "the user's profile directory");
  assert_refusal ("c:\\users\\ME\\", ws, "the user's profile directory");
  assert_refusal ("C:\\Users", ws, "ancestor of the user's profile directory");
  assert_refusal ("C:\\Windows", ws, "system directory");
  assert_refusal ("C:\\WINDOWS\\Temp", ws, "system directory");
  assert_refusal ("C:\\Program Files\\Tool", ws, "system directory");
  assert_refusal ("C:\\Users\\me\\src", ws, "ancestor of the workspace");
  assert_refusal ("C:work", ws, "not an absolute path");
  assert_refusal ("\\work", ws, "not an absolute path");
  assert_refusal ("work", ws, "not an absolute path");
  assert_refusal ("C:\\work\\..\\Users", ws, ". or ..");
  assert_refusal ("C:\\work\\.", ws, ". or ..");
  assert_refusal ("C:\\work:stream", ws, "stream");
  assert_refusal ("C:\\work\\CON:", ws, "stream");
  /* Without a profile or system trees, only the drive and workspace rules stand. */
  {
    g_autofree char *why = dsh_windows_root_refusal ("C:\\Users\\me", NULL, NULL, NULL);

    g_assert_null (why);
  }
}

static void
test_reparse_tags (void)
{
  /* Symbolic links, junctions and mount points, and any other name surrogate. */
  g_assert_true (dsh_windows_reparse_tag_redirects (0xA000000Cu));
  g_assert_true (dsh_windows_reparse_tag_redirects (0xA0000003u));
  g_assert_true (dsh_windows_reparse_tag_redirects (0xA0000019u)); /* LX_SYMLINK */
  g_assert_true (dsh_windows_reparse_tag_redirects (0x20000001u));
  /* Unknown tags and execution aliases are taken for links. */
  g_assert_true (dsh_windows_reparse_tag_redirects (0x8000001Bu)); /* APPEXECLINK */
  g_assert_true (dsh_windows_reparse_tag_redirects (0x80000099u));
  g_assert_true (dsh_windows_reparse_tag_redirects (0u));
  /* Placeholders that keep the name where it is. */
  g_assert_false (dsh_windows_reparse_tag_redirects (0x9000001Au)); /* CLOUD */
  g_assert_false (dsh_windows_reparse_tag_redirects (0x9000F01Au)); /* CLOUD_F */
  g_assert_false (dsh_windows_reparse_tag_redirects (0x80000013u)); /* DEDUP */
  g_assert_false (dsh_windows_reparse_tag_redirects (0x80000017u)); /* WOF */
  g_assert_false (dsh_windows_reparse_tag_redirects (0xC0000004u)); /* HSM */
}

/* Splits a command line the way the Microsoft C runtime does: the program name up to the next
 * quote or blank without escapes, then arguments where 2n backslashes before a quote are n and
 * the quote toggles quoting, 2n+1 are n and a literal quote, and other backslashes are kept. */
static GStrv
split_like_msvcrt (const char *line)
{
  g_autoptr (GPtrArray) args = g_ptr_array_new_with_free_func (g_free);
  const char *p = line;

  if (*p == '"')
    {
      const char *end = strchr (p + 1, '"');

      g_assert_nonnull (end);
      g_ptr_array_add (args, g_strndup (p + 1, (gsize) (end - p - 1)));
      p = end + 1;
    }
  else
    {
      gsize n = strcspn (p, " \t");

      g_ptr_array_add (args, g_strndup (p, n));
      p += n;
    }
  for (;;)
    {
      GString *arg;
      gboolean quoted = FALSE;

      while (*p == ' ' || *p == '\t')
        p++;
      if (*p == '\0')
        break;
      arg = g_string_new (NULL);
      for (;;)
        {
          gsize backslashes = 0;

          while (*p == '\\')
            {
              backslashes++;
              p++;
            }
          if (*p == '"')
            {
              for (gsize i = 0; i < backslashes / 2; i++)
                g_string_append_c (arg, '\\');
              if (backslashes % 2 == 1)
                g_string_append_c (arg, '"');
              else if (quoted && p[1] == '"')
                {
                  g_string_append_c (arg, '"');
                  p++;
                }
              else
                quoted = !quoted;
              p++;
              continue;
            }
          for (gsize i = 0; i < backslashes; i++)
            g_string_append_c (arg, '\\');
          if (*p == '\0' || (!quoted && (*p == ' ' || *p == '\t')))
            break;
          g_string_append_c (arg, *p++);
        }
      g_ptr_array_add (args, g_string_free (arg, FALSE));
    }
  g_ptr_array_add (args, NULL);
  return (GStrv) g_ptr_array_steal (args, NULL);
}

static void
assert_round_trip (const char *const *argv)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *line = dsh_windows_command_line (argv, &error);
  g_auto (GStrv) split = NULL;

  g_assert_no_error (error);
  split = split_like_msvcrt (line);
  if (!g_strv_equal ((const char *const *) split, argv))
    {
      g_autofree char *want = g_strjoinv ("|", (char **) argv);
      g_autofree char *got = g_strjoinv ("|", split);

      g_error ("%s did not round-trip: %s became %s", line, want, got);
    }
}

static void
test_command_line (void)
{
  static const char *const tricky[] = {
    "", " ", "a b", "a\\", "a\\ b\\", "\\\"", "\"\"", "\"", "tab\there", "new\nline",
    "back\\\\slashes\\\\", "C:\\Program Files\\x\\", "a\"b\"c", "\\\\server\\share", "--x=\"y z\"",
    "%PATH%", "^&|<>", NULL,
  };
  const char *argv[4] = { "C:\\Program Files\\dsh\\dsh-acl-exec.exe", NULL, NULL, NULL };
  g_autoptr (GRand) rand = g_rand_new_with_seed (13);
  static const char alphabet[] = { 'a', ' ', '\t', '"', '\\' };

  for (guint i = 0; tricky[i] != NULL; i++)
    {
      argv[1] = tricky[i];
      argv[2] = tricky[(i + 1) % (G_N_ELEMENTS (tricky) - 1)];
      assert_round_trip (argv);
    }
  /* Every short mix of letters, blanks, quotes and backslashes. */
  for (guint i = 0; i < 5000; i++)
    {
      char one[9] = { 0 }, two[9] = { 0 };
      guint n = (guint) g_rand_int_range (rand, 0, 9), m = (guint) g_rand_int_range (rand, 0, 9);

      for (guint k = 0; k < n; k++)
        one[k] = alphabet[g_rand_int_range (rand, 0, G_N_ELEMENTS (alphabet))];
      for (guint k = 0; k < m; k++)
        two[k] = alphabet[g_rand_int_range (rand, 0, G_N_ELEMENTS (alphabet))];
      argv[1] = one;
      argv[2] = two;
      assert_round_trip (argv);
    }

  /* Spelled plainly where nothing needs quoting. */
  {
    const char *const plain[] = { "prog.exe", "a", "C:\\x\\", NULL };
    g_autofree char *line = dsh_windows_command_line (plain, NULL);

    g_assert_cmpstr (line, ==, "prog.exe a C:\\x\\");
  }
  {
    const char *const spaced[] = { "C:\\a b\\prog.exe", "C:\\a b\\", "", NULL };
    g_autofree char *line = dsh_windows_command_line (spaced, NULL);

    g_assert_cmpstr (line, ==, "\"C:\\a b\\prog.exe\" \"C:\\a b\\\\\" \"\"");
  }
}

static void
test_command_line_refused (void)
{
  const char *const quoted[] = { "C:\\a\"b.exe", "x", NULL };
  const char *const unnamed[] = { "", "x", NULL };
  const char *const empty[] = { NULL };
  g_autoptr (GError) error = NULL;
  g_autofree char *line = dsh_windows_command_line (quoted, &error);

  g_assert_null (line);
  g_assert_error (error, G_SPAWN_ERROR, G_SPAWN_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, "C:\\a\"b.exe"));
  g_clear_error (&error);
  g_assert_null (dsh_windows_command_line (unnamed, &error));
  g_assert_error (error, G_SPAWN_ERROR, G_SPAWN_ERROR_FAILED);
  g_clear_error (&error);
  g_assert_null (dsh_windows_command_line (empty, &error));
  g_assert_error (error, G_SPAWN_ERROR, G_SPAWN_ERROR_FAILED);
}

/* Reparse data as the file system returns it: little-endian, the substitute name first in the
 * path buffer, then the print name. */
static GByteArray *
reparse_data (guint32 tag, guint32 flags, const char *substitute, const char *print)
{
  g_autofree gunichar2 *sub = g_utf8_to_utf16 (substitute, -1, NULL, NULL, NULL);
  g_autofree gunichar2 *shown = g_utf8_to_utf16 (print, -1, NULL, NULL, NULL);
  gsize sub_len = 0, shown_len = 0;
  GByteArray *data = g_byte_array_new ();
  guint8 header[20];
  gsize header_len = tag == 0xA000000Cu ? 20 : 16;

  while (sub[sub_len] != 0)
    sub_len++;
  while (shown[shown_len] != 0)
    shown_len++;
#define PUT16(at, v) (header[at] = (guint8) ((v) & 0xff), header[(at) + 1] = (guint8) ((v) >> 8))
  PUT16 (0, tag & 0xffff);
  PUT16 (2, tag >> 16);
  PUT16 (4, header_len - 8 + 2 * (sub_len + shown_len));
  PUT16 (6, 0);
  PUT16 (8, 0);
  PUT16 (10, 2 * sub_len);
  PUT16 (12, 2 * sub_len);
  PUT16 (14, 2 * shown_len);
  PUT16 (16, flags & 0xffff);
  PUT16 (18, flags >> 16);
#undef PUT16
  g_byte_array_append (data, header, (guint) header_len);
  for (gsize i = 0; i < sub_len; i++)
    {
      guint8 unit[2] = { (guint8) (sub[i] & 0xff), (guint8) (sub[i] >> 8) };

      g_byte_array_append (data, unit, 2);
    }
  for (gsize i = 0; i < shown_len; i++)
    {
      guint8 unit[2] = { (guint8) (shown[i] & 0xff), (guint8) (shown[i] >> 8) };

      g_byte_array_append (data, unit, 2);
    }
  return data;
}

static void
assert_target (guint32 tag, guint32 flags, const char *substitute, const char *expected)
{
  g_autoptr (GByteArray) data = reparse_data (tag, flags, substitute, "shown");
  g_autofree char *target = dsh_windows_reparse_target (data->data, data->len);

  g_test_message ("%08x %s: %s", tag, substitute, target != NULL ? target : "(none)");
  g_assert_cmpstr (target, ==, expected);
  /* Cut short anywhere, the same data names nothing. */
  for (guint cut = 0; cut < data->len; cut++)
    {
      g_autofree char *part = dsh_windows_reparse_target (data->data, cut);

      g_assert_null (part);
    }
}

static void
test_reparse_target (void)
{
  const guint32 symlink = 0xA000000Cu, junction = 0xA0000003u;

  assert_target (symlink, 0, "\\??\\C:\\target", "C:\\target");
  assert_target (symlink, 0, "\\??\\UNC\\srv\\share\\x", "\\\\srv\\share\\x");
  assert_target (symlink, 1, "..\\other\\x", "..\\other\\x");
  assert_target (symlink, 1, "sibling", "sibling");
  assert_target (junction, 0, "\\??\\D:\\data\\", "D:\\data\\");
  /* Names no walk can follow from here. */
  assert_target (symlink, 1, "\\rooted", NULL);
  assert_target (symlink, 1, "C:relative", NULL);
  assert_target (symlink, 0, "C:\\no-nt-prefix", NULL);
  assert_target (junction, 0, "\\??\\Volume{2d9c5e3a-0000-0000-0000-100000000000}\\", NULL);
  assert_target (0x9000001Au, 0, "\\??\\C:\\cloud", NULL);
  assert_target (0x8000001Bu, 0, "\\??\\C:\\alias", NULL);

  /* A name with a NUL inside names more than its text up to it. */
  {
    g_autoptr (GByteArray) data = reparse_data (symlink, 0, "\\??\\C:\\ab", "");
    g_autofree char *target = NULL;

    data->data[20 + 2 * 8] = 0; /* the low byte of the "b" */
    target = dsh_windows_reparse_target (data->data, data->len);
    g_assert_null (target);
  }
  /* Lengths that do not fit the data, or split a UTF-16 unit. */
  {
    g_autoptr (GByteArray) data = reparse_data (symlink, 0, "\\??\\C:\\x", "");
    g_autofree char *odd = NULL;
    g_autofree char *long_name = NULL;
    g_autofree char *long_data = NULL;

    data->data[10] = 7;
    odd = dsh_windows_reparse_target (data->data, data->len);
    g_assert_null (odd);
    data->data[10] = 200;
    long_name = dsh_windows_reparse_target (data->data, data->len);
    g_assert_null (long_name);
    data->data[10] = 16;
    data->data[4] = 0xff;
    long_data = dsh_windows_reparse_target (data->data, data->len);
    g_assert_null (long_data);
  }
}

/* A file system of links: path -> target ("" for one that cannot be read). */
static DshWindowsName
look_in_table (const char *path, char **out_target, gpointer data)
{
  const char *target = g_hash_table_lookup (data, path);

  *out_target = NULL;
  if (target == NULL)
    return DSH_WINDOWS_NAME_PLAIN;
  if (*target == '\0')
    return DSH_WINDOWS_NAME_UNREADABLE_LINK;
  *out_target = g_strdup (target);
  return DSH_WINDOWS_NAME_LINK;
}

static void
assert_on_way (GHashTable *links, const char *path, const char *expected)
{
  static const char *const roots[] = { "C:\\ws", "C:\\Temp", "\\\\srv\\share\\build", NULL };
  g_autofree char *hit = dsh_windows_root_on_way (path, roots, look_in_table, links);

  g_test_message ("%s: %s", path, hit != NULL ? hit : "(none)");
  g_assert_cmpstr (hit, ==, expected);
}

static void
test_root_on_way (void)
{
  g_autoptr (GHashTable) links = g_hash_table_new (g_str_hash, g_str_equal);

  g_hash_table_insert (links, "C:\\into-ws", "C:\\ws\\sub");
  g_hash_table_insert (links, "C:\\is-ws", "C:\\ws");
  g_hash_table_insert (links, "C:\\other\\rel-ws", "..\\ws");
  g_hash_table_insert (links, "C:\\other\\rel-away", "..\\elsewhere");
  g_hash_table_insert (links, "C:\\deep\\up", "..\\..\\..\\ws\\x");
  g_hash_table_insert (links, "C:\\a", "C:\\b");
  g_hash_table_insert (links, "C:\\b", "C:\\ws");
  g_hash_table_insert (links, "C:\\loop", "C:\\loop");
  g_hash_table_insert (links, "C:\\bad", "");
  g_hash_table_insert (links, "C:\\unc", "\\\\srv\\share\\build\\out");
  g_hash_table_insert (links, "C:\\away", "D:\\data");
  /* A link inside a root, on the way to a directory outside: swappable by confined commands. */
  g_hash_table_insert (links, "C:\\ws\\tools", "C:\\opt\\tools");

  assert_on_way (links, "C:\\ws", "C:\\ws");
  assert_on_way (links, "C:\\ws\\a\\b", "C:\\ws");
  assert_on_way (links, "c:\\WS\\a", "C:\\ws");
  assert_on_way (links, "C:\\wss\\a", NULL);
  assert_on_way (links, "C:\\other\\a", NULL);
  assert_on_way (links, "C:\\", NULL);
  assert_on_way (links, "C:\\nothing\\deeper\\yet", NULL);
  assert_on_way (links, "C:\\into-ws\\x", "C:\\ws");
  assert_on_way (links, "C:\\is-ws", "C:\\ws");
  assert_on_way (links, "C:\\other\\rel-ws\\x", "C:\\ws");
  assert_on_way (links, "C:\\other\\rel-away\\x", NULL);
  assert_on_way (links, "C:\\deep\\up", "C:\\ws");
  assert_on_way (links, "C:\\a\\x", "C:\\ws");
  assert_on_way (links, "C:\\unc", "\\\\srv\\share\\build");
  assert_on_way (links, "C:\\away\\x", NULL);
  assert_on_way (links, "C:\\ws\\tools\\bin\\tool.exe", "C:\\ws");
  /* What cannot be told answers with the link itself. */
  assert_on_way (links, "C:\\bad\\x", "C:\\bad");
  assert_on_way (links, "C:\\loop\\x", "C:\\loop");
  /* Not absolute: only what it spells is judged. */
  assert_on_way (links, "relative\\x", NULL);
}

#define ME "S-1-5-21-1-2-3-1001"
#define OTHER "S-1-5-21-1-2-3-1002"
#define SYSTEM "S-1-5-18"
#define ADMINS "S-1-5-32-544"
#define TRUSTED_INSTALLER "S-1-5-80-956008885-3418522649-1831038044-1853292631-2271478464"
#define EVERYONE "S-1-1-0"
#define USERS "S-1-5-32-545"
#define AUTHENTICATED "S-1-5-11"
#define OWNER_RIGHTS "S-1-3-4"
#define CREATOR_OWNER "S-1-3-0"
/* winnt.h: FILE_ALL_ACCESS, FILE_GENERIC_READ | FILE_GENERIC_EXECUTE, and single rights. */
#define FULL 0x001F01FFu
#define READ_EXECUTE 0x001200A9u
#define WRITE_DATA 0x00000002u
#define APPEND_DATA 0x00000004u
#define WRITE_EA 0x00000010u
#define DELETE_CHILD 0x00000040u
#define DELETE 0x00010000u
#define WRITE_DAC 0x00040000u
#define WRITE_OWNER 0x00080000u
#define GENERIC_ALL 0x10000000u
#define GENERIC_WRITE 0x40000000u
#define WRITE_ATTRIBUTES 0x00000100u

static char *
refusal (DshWindowsTrust trust, const char *owner, const DshWindowsAce *aces, gsize n)
{
  return dsh_windows_acl_refusal (owner, TRUE, aces, n, ME, ME, trust);
}

static void
assert_acl (DshWindowsTrust trust, const char *owner, const DshWindowsAce *aces, gsize n,
            const char *expected)
{
  g_autofree char *why = refusal (trust, owner, aces, n);

  g_test_message ("%s", why != NULL ? why : "trusted");
  assert_reason (why, expected);
}

static void
test_acl_trust (void)
{
  const DshWindowsTrust owner_only = DSH_WINDOWS_TRUST_OWNER_ONLY;
  const DshWindowsTrust admins = DSH_WINDOWS_TRUST_USER_OR_ADMINS;
  /* The record's own DACL, and what Program Files gives an installed DLL. */
  const DshWindowsAce private_dir[] = {
    { 0, 0x03, FULL, ME }, { 0, 0x03, FULL, SYSTEM },
  };
  const DshWindowsAce installed[] = {
    { 0, 0x10, FULL, TRUSTED_INSTALLER }, { 0, 0x10, FULL, SYSTEM }, { 0, 0x10, FULL, ADMINS },
    { 0, 0x10, READ_EXECUTE, USERS }, { 0, 0x10, READ_EXECUTE, EVERYONE },
  };
  const DshWindowsAce denied_everyone[] = {
    { 1, 0, FULL, EVERYONE }, { 0, 0, FULL, ME },
  };
  const DshWindowsAce inherit_only[] = {
    { 0, 0x0B, FULL, CREATOR_OWNER }, { 0, 0x0B, FULL, EVERYONE }, { 0, 0x03, FULL, ME },
  };
  const DshWindowsAce owner_rights[] = { { 0, 0, FULL, OWNER_RIGHTS } };
  const DshWindowsAce attributes_only[] = { { 0, 0, WRITE_ATTRIBUTES | READ_EXECUTE, EVERYONE } };
  const guint32 each_write_right[] = {
    WRITE_DATA, APPEND_DATA, WRITE_EA, DELETE_CHILD, DELETE, WRITE_DAC, WRITE_OWNER, GENERIC_ALL,
    GENERIC_WRITE, FULL,
  };

  assert_acl (owner_only, ME, private_dir, G_N_ELEMENTS (private_dir), NULL);
  assert_acl (admins, ME, private_dir, G_N_ELEMENTS (private_dir), NULL);
  assert_acl (admins, TRUSTED_INSTALLER, installed, G_N_ELEMENTS (installed), NULL);
  assert_acl (admins, ADMINS, installed, G_N_ELEMENTS (installed), NULL);
  assert_acl (admins, SYSTEM, installed, G_N_ELEMENTS (installed), NULL);
  /* A record of this user's is this user's alone: TrustedInstaller has no business there. */
  assert_acl (owner_only, ME, installed, G_N_ELEMENTS (installed), "lets " TRUSTED_INSTALLER);
  assert_acl (owner_only, ADMINS, private_dir, G_N_ELEMENTS (private_dir), "is owned by " ADMINS);
  assert_acl (owner_only, OTHER, private_dir, G_N_ELEMENTS (private_dir), "is owned by " OTHER);
  assert_acl (admins, OTHER, private_dir, G_N_ELEMENTS (private_dir), "is owned by " OTHER);
  assert_acl (admins, NULL, private_dir, G_N_ELEMENTS (private_dir), "is owned by nobody");
  /* An elevated process owns what it makes as the administrators. */
  {
    g_autofree char *why = dsh_windows_acl_refusal (ADMINS, TRUE, private_dir,
                                                    G_N_ELEMENTS (private_dir), ME, ADMINS,
                                                    owner_only);

    g_assert_null (why);
  }
  {
    g_autofree char *why = dsh_windows_acl_refusal (ME, FALSE, NULL, 0, ME, ME, admins);

    g_assert_nonnull (strstr (why, "has no DACL"));
  }
  {
    g_autofree char *why = dsh_windows_acl_refusal (ME, TRUE, private_dir, 2, NULL, NULL, admins);

    g_assert_nonnull (strstr (why, "which user"));
  }
  /* Any right to change the object, its DACL or its owner, for anyone else. */
  for (guint i = 0; i < G_N_ELEMENTS (each_write_right); i++)
    {
      const DshWindowsAce everyone[] = {
        { 0, 0, FULL, ME }, { 0, 0, each_write_right[i], EVERYONE },
      };
      const DshWindowsAce other[] = { { 0, 0x03, each_write_right[i], OTHER } };
      const DshWindowsAce users[] = { { 0, 0x10, each_write_right[i], AUTHENTICATED } };

      assert_acl (admins, ME, everyone, 2, "lets " EVERYONE " write it (entry 1)");
      assert_acl (owner_only, ME, everyone, 2, "lets " EVERYONE);
      assert_acl (admins, ME, other, 1, "lets " OTHER);
      assert_acl (admins, TRUSTED_INSTALLER, users, 1, "lets " AUTHENTICATED);
    }
  assert_acl (admins, ME, attributes_only, 1, NULL);
  assert_acl (admins, ME, denied_everyone, 2, NULL);
  assert_acl (owner_only, ME, inherit_only, 3, NULL);
  assert_acl (owner_only, ME, owner_rights, 1, NULL);
  /* Kinds whose rights are not read here: object and callback grants, compound entries. */
  {
    const DshWindowsAce object[] = { { 5, 0, 0, NULL } };
    const DshWindowsAce callback[] = { { 9, 0, 0, NULL } };
    const DshWindowsAce compound[] = { { 4, 0, 0, NULL } };
    const DshWindowsAce denied_object[] = { { 6, 0, 0, NULL }, { 0x0C, 0, 0, NULL } };
    const DshWindowsAce unreadable_writer[] = { { 0, 0, WRITE_DATA, NULL } };
    const DshWindowsAce unreadable_reader[] = { { 0, 0, READ_EXECUTE, NULL } };
    const DshWindowsAce lower_case[] = { { 0, 0, FULL, "s-1-5-18" } };

    assert_acl (admins, ME, object, 1, "kind not checked here (entry 0, type 5)");
    assert_acl (admins, ME, callback, 1, "type 9");
    assert_acl (admins, ME, compound, 1, "type 4");
    assert_acl (admins, ME, denied_object, 2, NULL);
    assert_acl (admins, ME, unreadable_writer, 1, "unreadable SID");
    assert_acl (admins, ME, unreadable_reader, 1, NULL);
    assert_acl (owner_only, ME, lower_case, 1, NULL);
  }
}

/* Windows drops trailing dots and spaces from the name it opens, so "run.bat." and "run.bat "
 * start run.bat through cmd.exe, which splits the command line by its own rules ("a&b" runs b).
 * The spawn's refusal must see the name as Windows will open it. */
static void
test_program_is_batch (void)
{
  static const char *const batch[] = {
    "run.bat", "RUN.CMD", "C:\\tools\\run.bat", "C:/tools/Run.Cmd", "run.bat.", "run.bat ",
    "run.bat. .", "run.bat . . .", "C:\\tools\\run.cmd...", "run.bat::$DATA", "run.bat:x",
    "RUN~1.BAT", "run.batch", "run.cmdx",
    NULL,
  };
  static const char *const not_batch[] = {
    "git", "git.exe", "C:\\tools\\bat", "C:\\run.bat\\tool.exe", "run.bat.exe", "cmd.exe",
    "C:\\Windows\\System32\\cmd.exe", "bat", ".bat\\x", "run.ba", "run.exe. ",
    NULL,
  };

  for (gsize i = 0; batch[i] != NULL; i++)
    {
      g_test_message ("batch: [%s]", batch[i]);
      g_assert_true (dsh_windows_program_is_batch (batch[i]));
    }
  for (gsize i = 0; not_batch[i] != NULL; i++)
    {
      g_test_message ("not batch: [%s]", not_batch[i]);
      g_assert_false (dsh_windows_program_is_batch (not_batch[i]));
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/windows-paths/strip-prefix", test_strip_prefix);
  g_test_add_func ("/windows-paths/root-length", test_root_length);
  g_test_add_func ("/windows-paths/is-beneath", test_is_beneath);
  g_test_add_func ("/windows-paths/root-refusal", test_root_refusal);
  g_test_add_func ("/windows-paths/reparse-tags", test_reparse_tags);
  g_test_add_func ("/windows-paths/reparse-target", test_reparse_target);
  g_test_add_func ("/windows-paths/root-on-way", test_root_on_way);
  g_test_add_func ("/windows-paths/acl-trust", test_acl_trust);
  g_test_add_func ("/windows-paths/command-line", test_command_line);
  g_test_add_func ("/windows-paths/command-line-refused", test_command_line_refused);
  g_test_add_func ("/windows-paths/program-is-batch", test_program_is_batch);
  return g_test_run ();
}
