/* test-denial-scanner.c — the scanner that looks through a flood of stderr finds the first line
 * proving a denial however the stream is cut into chunks, and never one the classifier would
 * not take: excluded lines, lines with a runner's fatal signature and overlong lines prove
 * nothing. Built three times: as shipped (AVX2 where the processor has it), with SSE2 only,
 * and with the portable vectors.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-denial-scanner-private.h"

#include <string.h>

static DshConfinement *
make_confinement (void)
{
  const char *argv[] = { "true", NULL };
  const char *signatures[] = { "Permission denied", "code EACCES",
                               "java.nio.file.AccessDeniedException", "Read-only file system",
                               "", NULL };
  const char *exclusions[] = { "Permission denied (publickey", NULL };
  const char *fatal[] = { "dsh-landlock-exec: ", NULL };
  const int codes[] = { 125 };
  g_autoptr (GPtrArray) rules = g_ptr_array_new_with_free_func (
    (GDestroyNotify) dsh_runner_failure_rule_free);

  g_ptr_array_add (rules, dsh_runner_failure_rule_new (codes, 1, fatal, NULL));
  return dsh_confinement_new (argv, "landlock", DSH_ENFORCEMENT_FULL, NULL, signatures,
                              exclusions, rules);
}

/* Feeds text in chunks of the sizes given (cycled); the evidence, or NULL. */
static GString *
scan_in_chunks (const DshConfinement *confinement, const char *text, gsize len,
                const gsize *sizes, guint n_sizes)
{
  g_autoptr (DshDenialScanner) scanner = dsh_denial_scanner_new (confinement);
  const char *evidence;
  gsize evidence_len;

  for (gsize pos = 0, i = 0; pos < len; i++)
    {
      gsize n = MIN (sizes[i % n_sizes], len - pos);

      dsh_denial_scanner_feed (scanner, text + pos, n);
      pos += n;
    }
  evidence = dsh_denial_scanner_get_evidence (scanner, &evidence_len);
  return evidence != NULL ? g_string_new_len (evidence, (gssize) evidence_len) : NULL;
}

static const gsize chunkings[][3] = {
  { 1, 1, 1 }, { 7, 13, 64 }, { 63, 64, 65 }, { 4096, 1, 4095 }, { 65539, 17, 262144 },
  { G_MAXSIZE, 0, 0 },
};

/* expected: NULL for none. */
static void
assert_evidence (const DshConfinement *confinement, const GString *text, const GString *expected)
{
  for (guint c = 0; c < G_N_ELEMENTS (chunkings); c++)
    {
      guint n = chunkings[c][1] == 0 ? 1 : 3;
      g_autoptr (GString) found = scan_in_chunks (confinement, text->str, text->len,
                                                  chunkings[c], n);

      if (expected == NULL)
        g_assert_null (found);
      else
        {
          g_assert_nonnull (found);
          g_assert_cmpmem (found->str, found->len, expected->str, expected->len);
        }
    }
}

static void
append_filler (GString *text, gsize lines)
{
  /* Words with the signatures' first and last bytes, never the signatures. */
  for (gsize i = 0; i < lines; i++)
    g_string_append (text, "Rem ipsum per mission denie code EACCE java.nio.file Read-only fil\n");
}

/* Wherever the line stands, after any prefix (a NUL byte too), it is found whole. */
static void
test_found_anywhere (void)
{
  g_autoptr (DshConfinement) confinement = make_confinement ();

  for (gsize before = 0; before < 3000; before += 997)
    for (gsize offset = 0; offset < 4; offset++)
      {
        g_autoptr (GString) text = g_string_new (NULL);
        g_autoptr (GString) line = g_string_new_len ("xyz", (gssize) offset);

        g_string_append_len (line, "\0", 1);
        g_string_append (line, "sh: 1: cannot create /etc/x: READ-ONLY FILE SYSTEM\n");
        append_filler (text, before);
        g_string_append_len (text, line->str, (gssize) line->len);
        append_filler (text, 3);
        assert_evidence (confinement, text, line);
      }
}

static void
test_first_line_whole (void)
{
  g_autoptr (DshConfinement) confinement = make_confinement ();
  g_autoptr (GString) text = g_string_new (NULL);
  g_autoptr (GString) expected = g_string_new ("open: Permission denied\n");

  append_filler (text, 2000);
  g_string_append (text, "ssh: Permission denied (publickey).\n");
  g_string_append (text, "dsh-landlock-exec: fatal: Permission denied\n");
  g_string_append (text, "open: Permission denied\n");
  g_string_append (text, "open: code EACCES\n");
  assert_evidence (confinement, text, expected);
}

static void
test_nothing_to_prove (void)
{
  g_autoptr (DshConfinement) confinement = make_confinement ();
  g_autoptr (GString) text = g_string_new (NULL);
  g_autoptr (GString) long_line = g_string_new (NULL);

  append_filler (text, 5000);
  assert_evidence (confinement, text, NULL);
  /* Excluded, fatal, unfinished (no newline yet) or over 64 KiB: proves nothing. */
  g_string_append (text, "ssh: Permission denied (publickey).\n");
  g_string_append (text, "dsh-landlock-exec: fatal: Permission denied\n");
  g_string_append (long_line, "Permission denied ");
  while (long_line->len <= 64 * 1024)
    g_string_append (long_line, "xxxxxxxxxxxxxxxx");
  g_string_append_printf (text, "%s\n", long_line->str);
  g_string_append (text, "Permission denie\nd\n");
  g_string_append (text, "open: Permission denied");
  assert_evidence (confinement, text, NULL);
}

/* The scanner finds the first line of text the classifier's own rule takes as proof. */
static void
assert_agrees_with_classifier (const DshConfinement *confinement, const GString *text)
{
  g_autoptr (GString) expected = NULL;
  gsize start = 0;

  for (gsize pos = 0; pos < text->len && expected == NULL; pos++)
    {
      if (text->str[pos] != '\n')
        continue;
      if (dsh_confinement_is_denial_evidence (confinement, text->str + start, pos - start))
        expected = g_string_new_len (text->str + start, (gssize) (pos - start + 1));
      start = pos + 1;
    }
  assert_evidence (confinement, text, expected);
}

/* Random lines mixing the signatures' pieces: the scanner agrees with the classifier's own
 * judgement of each line, however the stream is cut. */
static void
test_agrees_with_classifier (void)
{
  g_autoptr (DshConfinement) confinement = make_confinement ();
  const char *pieces[] = { "Permission", " denied", "Permission denied", "PERMISSION DENIED",
                           " (publickey", "code ", "EACCES", "Read-only", " file system",
                           "java.nio.file.AccessDeniedException", "dsh-landlock-exec: ", "x",
                           "\n", "\n", "\r\n", "rEAD-ONLY FILE SYSTEM", "Denied", "Access",
                           "java.nio.file.", "Exception" };

  for (guint round = 0; round < 300; round++)
    {
      g_autoptr (GString) text = g_string_new (NULL);
      guint n = (guint) g_test_rand_int_range (1, 60);

      for (guint i = 0; i < n; i++)
        g_string_append (text, pieces[g_test_rand_int_range (0, G_N_ELEMENTS (pieces))]);
      assert_agrees_with_classifier (confinement, text);
    }
}

/* n distinct signatures of varied first bytes, anchor bytes and lengths, some sharing a nibble
 * with another's, so that each way of scanning (by comparison with each signature, by nibble
 * lookup, and the SSE2 one past sixteen) meets bytes that nearly match. */
static GStrv
make_signatures (guint n)
{
  GStrv signatures = g_new0 (char *, n + 1);

  for (guint i = 0; i < n; i++)
    signatures[i] = g_strdup_printf ("%c%c%s denied %u", "PpAaQqCcSsjJRr0@"[i % 16],
                                     'a' + (char) ((i * 7) % 26), i % 3 == 0 ? "" : "ermission",
                                     i);
  return signatures;
}

/* However many signatures a backend has, the scanner agrees with the classifier's own
 * judgement of each line, however the stream is cut. */
static void
test_any_number_of_signatures (void)
{
  const guint counts[] = { 1, 2, 3, 4, 8, 9, 16, 17, 24 };
  const char *argv[] = { "true", NULL };
  const char *exclusions[] = { "Permission denied (publickey", NULL };

  for (guint c = 0; c < G_N_ELEMENTS (counts); c++)
    {
      g_auto (GStrv) signatures = make_signatures (counts[c]);
      g_autoptr (GPtrArray) rules = g_ptr_array_new ();
      g_autoptr (DshConfinement) confinement = dsh_confinement_new (
        argv, "runner", DSH_ENFORCEMENT_FULL, NULL, (const char *const *) signatures,
        exclusions, rules);

      for (guint round = 0; round < 60; round++)
        {
          g_autoptr (GString) text = g_string_new (NULL);
          guint n = (guint) g_test_rand_int_range (1, 80);

          for (guint i = 0; i < n; i++)
            {
              const char *signature = signatures[g_test_rand_int_range (0, (gint32) counts[c])];
              gsize len = strlen (signature);

              switch (g_test_rand_int_range (0, 6))
                {
                case 0:
                  g_string_append (text, signature);
                  break;
                case 1: /* all but its last byte, or all but its first */
                  g_string_append_len (text, signature, (gssize) len - 1);
                  break;
                case 2:
                  g_string_append (text, signature + 1);
                  break;
                case 3:
                  {
                    g_autofree char *upper = g_ascii_strup (signature, -1);

                    g_string_append (text, upper);
                    break;
                  }
                case 4:
                  g_string_append_c (text, '\n');
                  break;
                default:
                  g_string_append (text, "filler text of some length ");
                }
            }
          g_string_append_c (text, '\n');
          assert_agrees_with_classifier (confinement, text);
        }
    }
}

static gboolean
naive_contains (const char *haystack, gsize len, const char *needle)
{
  gsize n = strlen (needle);

  for (gsize i = 0; i + n <= len; i++)
    {
      gsize j = 0;

      while (j < n && haystack[i + j] != '\0' &&
             g_ascii_tolower (haystack[i + j]) == g_ascii_tolower (needle[j]))
        j++;
      if (j == n)
        return TRUE;
    }
  return FALSE;
}

/* The classifier's own search (which judges each line the scanner points at) finds a
 * signature exactly where a byte-by-byte search does, in either case, after a NUL too. */
static void
test_classifier_search (void)
{
  const char *argv[] = { "true", NULL };
  const char *signatures[] = { "Read-only file system", NULL };
  g_autoptr (GPtrArray) rules = g_ptr_array_new ();
  g_autoptr (DshConfinement) confinement = dsh_confinement_new (
    argv, "bwrap", DSH_ENFORCEMENT_FULL, NULL, signatures, NULL, rules);
  const char *pieces[] = { "Read-only", "READ-ONLY", "read-", "R", "r", " file system",
                           " FILE SYSTEM", " file", "x", "\0", "system" };

  for (guint round = 0; round < 2000; round++)
    {
      g_autoptr (GString) text = g_string_new (NULL);
      guint n = (guint) g_test_rand_int_range (0, 12);

      for (guint i = 0; i < n; i++)
        {
          const char *piece = pieces[g_test_rand_int_range (0, G_N_ELEMENTS (pieces))];

          g_string_append_len (text, piece, (gssize) MAX (strlen (piece), 1));
        }
      g_assert_cmpint (dsh_confinement_classify (confinement, 1, text->str, text->len, NULL) ==
                         DSH_OUTCOME_DENIED,
                       ==, naive_contains (text->str, text->len, signatures[0]));
    }
}

/* Each build looks the way it was built to, and the shipped one uses AVX2 exactly where the
 * processor has it (asked here through libgcc, not the way the scanner asks). */
static void
test_method (void)
{
  g_autoptr (DshConfinement) confinement = make_confinement ();
  g_autoptr (DshDenialScanner) scanner = dsh_denial_scanner_new (confinement);
  const char *expected;

#if defined(DSH_DENIAL_SCANNER_PORTABLE) || !defined(__SSE2__)
  expected = "portable";
#elif defined(DSH_DENIAL_SCANNER_NO_AVX2) || !defined(__x86_64__)
  expected = "sse2";
#else
  /* Four signatures: the nibble lookup. */
  expected = __builtin_cpu_supports ("avx2") ? "avx2-nibbles" : "sse2";
#endif
  g_assert_cmpstr (dsh_denial_scanner_get_method (scanner), ==, expected);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/denial-scanner/found-anywhere", test_found_anywhere);
  g_test_add_func ("/denial-scanner/first-line-whole", test_first_line_whole);
  g_test_add_func ("/denial-scanner/nothing-to-prove", test_nothing_to_prove);
  g_test_add_func ("/denial-scanner/agrees-with-classifier", test_agrees_with_classifier);
  g_test_add_func ("/denial-scanner/any-number-of-signatures", test_any_number_of_signatures);
  g_test_add_func ("/denial-scanner/classifier-search", test_classifier_search);
  g_test_add_func ("/denial-scanner/method", test_method);
  return g_test_run ();
}
