/* dsh-seatbelt-profile.c — a backend policy as a Seatbelt profile and its -D parameters.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-seatbelt-profile.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* What every confined command may do, whatever the mode. Reads are not confined (the policy
 * governs file effects); writes go only to the sinks and terminals; the rest is what bash, git,
 * python3 and cc touch while they start: the C library's sysctl reads, user and group lookups
 * through opendirectoryd, notifications, logging, the per-user temp directory and preferences. */
static const char profile_head[] =
  "(version 1)\n"
  "(deny default)\n"
  "\n"
  "; Commands run others and see or signal only processes of their own sandbox.\n"
  "(allow process-exec)\n"
  "(allow process-fork)\n"
  "(allow signal (target same-sandbox))\n"
  "(allow process-info* (target same-sandbox))\n"
  "\n"
  "; Reading is not confined; dyld maps libraries with an operation of its own.\n"
  "(allow file-read*)\n"
  "(allow file-map-executable)\n"
  "\n"
  "; The sinks every mode keeps writable, and the terminal and new ptys.\n"
  "(allow pseudo-tty)\n"
  "(allow file-write-data file-ioctl\n"
  "  (literal \"/dev/null\")\n"
  "  (literal \"/dev/zero\")\n"
  "  (literal \"/dev/tty\")\n"
  "  (literal \"/dev/ptmx\")\n"
  "  (regex #\"^/dev/ttys[0-9]+$\")\n"
  "  (regex #\"^/dev/fd/[0-9]+$\"))\n"
  "\n"
  "; What the C library, dyld and the toolchain read while a program starts.\n"
  "(allow sysctl-read\n"
  "  (sysctl-name \"hw.activecpu\")\n"
  "  (sysctl-name \"hw.byteorder\")\n"
  "  (sysctl-name \"hw.cachelinesize\")\n"
  "  (sysctl-name \"hw.cpufamily\")\n"
  "  (sysctl-name \"hw.cpusubtype\")\n"
  "  (sysctl-name \"hw.cputype\")\n"
  "  (sysctl-name \"hw.l1dcachesize\")\n"
  "  (sysctl-name \"hw.l1icachesize\")\n"
  "  (sysctl-name \"hw.l2cachesize\")\n"
  "  (sysctl-name \"hw.l3cachesize\")\n"
  "  (sysctl-name \"hw.logicalcpu\")\n"
  "  (sysctl-name \"hw.logicalcpu_max\")\n"
  "  (sysctl-name \"hw.machine\")\n"
  "  (sysctl-name \"hw.memsize\")\n"
  "  (sysctl-name \"hw.model\")\n"
  "  (sysctl-name \"hw.ncpu\")\n"
  "  (sysctl-name \"hw.nperflevels\")\n"
  "  (sysctl-name \"hw.pagesize\")\n"
  "  (sysctl-name \"hw.pagesize_compat\")\n"
  "  (sysctl-name \"hw.physicalcpu\")\n"
  "  (sysctl-name \"hw.physicalcpu_max\")\n"
  "  (sysctl-name-prefix \"hw.optional.\")\n"
  "  (sysctl-name-prefix \"hw.perflevel\")\n"
  "  (sysctl-name \"kern.argmax\")\n"
  "  (sysctl-name \"kern.hostname\")\n"
  "  (sysctl-name \"kern.maxfilesperproc\")\n"
  "  (sysctl-name \"kern.ngroups\")\n"
  "  (sysctl-name \"kern.osproductversion\")\n"
  "  (sysctl-name \"kern.osrelease\")\n"
  "  (sysctl-name \"kern.ostype\")\n"
  "  (sysctl-name \"kern.osvariant_status\")\n"
  "  (sysctl-name \"kern.osversion\")\n"
  "  (sysctl-name \"kern.secure_kernel\")\n"
  "  (sysctl-name \"kern.usrstack64\")\n"
  "  (sysctl-name \"kern.version\")\n"
  "  (sysctl-name-prefix \"machdep.cpu.\")\n"
  "  (sysctl-name \"sysctl.proc_cputype\")\n"
  "  (sysctl-name \"sysctl.proc_native\")\n"
  "  (sysctl-name \"sysctl.proc_translated\"))\n"
  "(allow mach-lookup\n"
  "  (global-name \"com.apple.bsd.dirhelper\")\n"
  "  (global-name \"com.apple.cfprefsd.agent\")\n"
  "  (global-name \"com.apple.cfprefsd.daemon\")\n"
  "  (global-name \"com.apple.logd\")\n"
  "  (global-name \"com.apple.system.logger\")\n"
  "  (global-name \"com.apple.system.notification_center\")\n"
  "  (global-name \"com.apple.system.opendirectoryd.libinfo\")\n"
  "  (global-name \"com.apple.system.opendirectoryd.membership\"))\n"
  "(allow ipc-posix-shm-read-data (ipc-posix-name \"apple.shm.notification_center\"))\n"
  "(allow user-preference-read)\n";

/* On a case-insensitive volume ROOT/.GIT/config is ROOT/.git/config, and whether Seatbelt sees
 * the spelling on disk or the one a program used is not documented: every other letter case of
 * .git, and of the protected names beneath a .git, is refused wherever it occurs. No one names
 * a directory .Git on purpose. Each is (prefix, word, suffix) of a regex. */
static const char *const case_variant_rules[][3] = {
  { "/\\.", "git", "(/|$)" },
  { "/\\.git/", "hooks", "(/|$)" },
  { "/\\.git/", "config", "$" },
  { "/\\.git/", "config.worktree", "$" },
  { "/\\.git/", "commondir", "$" },
};

/* Spellings with a byte outside printable ASCII that a volume may take for .git or for a name
 * beneath it: case folding maps U+212A KELVIN SIGN to k and U+017F LONG S to s (hoo\u212As is
 * hooks), and HFS+ ignores U+200C and its kin when it compares names (.g\u200Cit is .git).
 * Such names are refused outright, by ASCII-only regexes: a name beneath a .git with any such
 * byte (git makes none), and a dot name made of nothing but the letters of "git" and such
 * bytes, in any case, also after a run of such bytes before the dot (\u200C.git is .git on
 * HFS+). The regexes cannot tell U+200C from other such bytes, so a name of another script
 * before ".git" (a bare repository named in Japanese) is refused too. */
static const char *const non_ascii_rules[] = {
  "/\\.git/[^/]*[^ -~]",
  "/\\.([GgIiTt]|[^ -~])*[^ -~]([GgIiTt]|[^ -~])*(/|$)",
  "/[^ -~]+\\.([GgIiTt]|[^ -~])*(/|$)",
};

/* The same for the HEAD beside a .git (ROOT/head is ROOT/HEAD): every other letter case of
 * HEAD as a whole name, and its letters in order with bytes outside printable ASCII between
 * them (HE\u200CAD is HEAD on HFS+). Not beneath a .git, where git's sequencer writes a head
 * of its own and what git reads is protected by name. */
#define HEAD_WORD "HEAD"
static const char head_non_ascii_rule[] =
  "/([^ -~]+[Hh][^ -~]*[Ee][^ -~]*[Aa][^ -~]*[Dd]|[Hh][^ -~]+[Ee][^ -~]*[Aa][^ -~]*[Dd]|"
  "[Hh][Ee][^ -~]+[Aa][^ -~]*[Dd]|[Hh][Ee][Aa][^ -~]+[Dd]|[Hh][Ee][Aa][Dd][^ -~])[^ -~]*$";

/* Parameter names: root i and the paths of its repository that run code later: its hooks, its
 * config, and the two files that make git read another config (config.worktree, and commondir,
 * which names a whole other git directory); and a HEAD beside the .git: once .git is no git
 * directory (the command may garble .git/HEAD), git takes the directory holding it for a bare
 * repository when it has a HEAD, objects and refs, with the config the command put beside
 * them. Without that HEAD it cannot. */
static const char *const root_param_suffixes[] = {
  "", "_GIT", "_GIT_HOOKS", "_GIT_CONFIG", "_GIT_CONFIG_WORKTREE", "_GIT_COMMONDIR", "_HEAD",
};
/* Each beside the .git, or (when in_git_dir) in the git directory: the .git, or the directory
 * itself when it is a bare repository. */
static const struct {
  const char *path;
  int in_git_dir;
} root_param_paths[] = {
  { "", 0 }, { "/.git", 0 }, { "/hooks", 1 }, { "/config", 1 }, { "/config.worktree", 1 },
  { "/commondir", 1 }, { "/HEAD", 0 },
};
#define N_PARAMS_PER_ROOT 7

/* Where the git parameters of a root without a repository point: beneath /dev/null, which is
 * no directory, so no path the command can reach matches them. git init works in such a root
 * (as on Linux); the next call finds the repository and protects it. */
#define NO_REPOSITORY "/dev/null"

/* A workspace-write policy has three roots (the workspace, /tmp and the temp directory), fewer
 * when a workspace is one of the others. The profile must not tell: fewer distinct roots fill
 * the slots by repeating the last one. */
#define MIN_ROOT_SLOTS 3

typedef struct {
  char *data;
  size_t len;
  size_t allocated;
  int failed;
} Buffer;

/* Lets the compiler check the format strings handed to the printf-like helpers below. */
#if defined(__GNUC__) || defined(__clang__)
#define PRINTF_LIKE(format_index, first_arg) \
  __attribute__ ((format (printf, format_index, first_arg)))
#else
#define PRINTF_LIKE(format_index, first_arg)
#endif

static void
buffer_append (Buffer *buffer, const char *format, ...) PRINTF_LIKE (2, 3);

static void
buffer_append (Buffer *buffer, const char *format, ...)
{
  va_list args;
  int needed;

  if (buffer->failed)
    return;
  va_start (args, format);
  needed = vsnprintf (NULL, 0, format, args);
  va_end (args);
  if (needed < 0)
    {
      buffer->failed = 1;
      return;
    }
  if (buffer->len + (size_t) needed + 1 > buffer->allocated)
    {
      size_t allocated = (buffer->allocated + (size_t) needed + 1) * 2;
      char *data = realloc (buffer->data, allocated);

      if (data == NULL)
        {
          buffer->failed = 1;
          return;
        }
      buffer->data = data;
      buffer->allocated = allocated;
    }
  va_start (args, format);
  vsnprintf (buffer->data + buffer->len, buffer->allocated - buffer->len, format, args);
  va_end (args);
  buffer->len += (size_t) needed;
}

static int
is_lower_letter (char c)
{
  return c >= 'a' && c <= 'z';
}

/* A regex character for c of a word: itself, or \. for a dot. */
static void
append_regex_char (Buffer *buffer, char c)
{
  buffer_append (buffer, c == '.' ? "\\." : "%c", c);
}

static int
is_upper_letter (char c)
{
  return c >= 'A' && c <= 'Z';
}

static int
ascii_lower (char c)
{
  return is_upper_letter (c) ? c - 'A' + 'a' : c;
}

static int
ascii_upper (char c)
{
  return is_lower_letter (c) ? c - 'a' + 'A' : c;
}

/* Every spelling of word but its own, in ASCII letter case: the first letter that differs is in
 * the other case, those before it as in word, those after it either case. */
static void
append_case_variants (Buffer *buffer, const char *word)
{
  const char *separator = "";

  buffer_append (buffer, "(");
  for (size_t i = 0; word[i] != '\0'; i++)
    {
      if (!is_lower_letter (word[i]) && !is_upper_letter (word[i]))
        continue;
      buffer_append (buffer, "%s", separator);
      separator = "|";
      for (size_t j = 0; j < i; j++)
        append_regex_char (buffer, word[j]);
      buffer_append (buffer, "%c", is_lower_letter (word[i]) ? ascii_upper (word[i])
                                                              : ascii_lower (word[i]));
      for (size_t j = i + 1; word[j] != '\0'; j++)
        {
          if (is_lower_letter (word[j]) || is_upper_letter (word[j]))
            buffer_append (buffer, "[%c%c]", ascii_upper (word[j]), ascii_lower (word[j]));
          else
            append_regex_char (buffer, word[j]);
        }
    }
  buffer_append (buffer, ")");
}

/* Closes the profile's one write rule: beneath any root, but never a root itself (renaming it
 * would carry its .git along), nor the .git, .git/hooks/, .git/config, .git/config.worktree,
 * .git/commondir or the HEAD beside .git of a root that holds a repository (the parameters of
 * one that holds none match nothing). Every root's exclusions
 * apply to every root, so a root nested in another stays protected. */
static void
append_write_rule (Buffer *buffer, size_t n_roots)
{
  if (n_roots == 0)
    return;
  buffer_append (buffer,
                 "\n"
                 "; Writes beneath the writable roots, except each root itself and the .git,\n"
                 "; .git/hooks/, .git/config, .git/config.worktree and .git/commondir of a\n"
                 "; repository it holds, and a HEAD beside that .git (which would make its\n"
                 "; directory a bare repository): code a later unconfined program would run.\n"
                 "(allow file-write*\n"
                 "  (require-all\n"
                 "    (require-any");
  for (size_t i = 0; i < n_roots; i++)
    buffer_append (buffer, "\n      (subpath (param \"WRITABLE_ROOT_%zu\"))", i);
  buffer_append (buffer, ")\n    (require-not\n      (require-any");
  for (size_t i = 0; i < n_roots; i++)
    {
      buffer_append (buffer, "\n        (literal (param \"WRITABLE_ROOT_%zu\"))", i);
      buffer_append (buffer, "\n        (literal (param \"WRITABLE_ROOT_%zu_GIT\"))", i);
      buffer_append (buffer, "\n        (subpath (param \"WRITABLE_ROOT_%zu_GIT_HOOKS\"))", i);
      buffer_append (buffer, "\n        (literal (param \"WRITABLE_ROOT_%zu_GIT_CONFIG\"))", i);
      buffer_append (buffer,
                     "\n        (literal (param \"WRITABLE_ROOT_%zu_GIT_CONFIG_WORKTREE\"))", i);
      buffer_append (buffer, "\n        (literal (param \"WRITABLE_ROOT_%zu_GIT_COMMONDIR\"))", i);
      buffer_append (buffer, "\n        (literal (param \"WRITABLE_ROOT_%zu_HEAD\"))", i);
    }
  for (size_t i = 0; i < sizeof case_variant_rules / sizeof case_variant_rules[0]; i++)
    {
      buffer_append (buffer, "\n        (regex #\"%s", case_variant_rules[i][0]);
      append_case_variants (buffer, case_variant_rules[i][1]);
      buffer_append (buffer, "%s\")", case_variant_rules[i][2]);
    }
  for (size_t i = 0; i < sizeof non_ascii_rules / sizeof non_ascii_rules[0]; i++)
    buffer_append (buffer, "\n        (regex #\"%s\")", non_ascii_rules[i]);
  buffer_append (buffer, "\n        (require-all\n          (require-any\n            (regex #\"/");
  append_case_variants (buffer, HEAD_WORD);
  buffer_append (buffer, "$\")\n            (regex #\"%s\"))\n", head_non_ascii_rule);
  buffer_append (buffer, "          (require-not (regex #\"/\\.git/\")))");
  buffer_append (buffer, "))))\n");
}

static void
set_error (char *error, size_t error_len, const char *format, ...) PRINTF_LIKE (3, 4);

static void
set_error (char *error, size_t error_len, const char *format, ...)
{
  va_list args;

  if (error == NULL || error_len == 0)
    return;
  va_start (args, format);
  vsnprintf (error, error_len, format, args);
  va_end (args);
}

/* Absolute, without empty, "." or ".." components: Seatbelt compares resolved paths, so any
 * other spelling would silently match nothing. */
static const char *
root_problem (const char *root)
{
  const char *p;

  if (root[0] != '/')
    return "it is not absolute";
  if (root[1] == '\0')
    return "it would make every path writable";
  for (p = root; *p != '\0';)
    {
      const char *component = p + 1;
      size_t len = strcspn (component, "/");

      if (len == 0 && component[0] == '/')
        return "it has an empty component";
      if ((len == 1 && component[0] == '.') || (len == 2 && strncmp (component, "..", 2) == 0))
        return "it has a \".\" or \"..\" component";
      p = component + len;
    }
  return NULL;
}

static int
has_root (const DshSeatbeltPlan *plan, const char *root)
{
  for (size_t i = 0; i < plan->n_roots; i++)
    {
      if (strcmp (plan->roots[i], root) == 0)
        return 1;
    }
  return 0;
}

/* guards: the root holds no repository but a root beneath it does, so its own .git and HEAD
 * (where git looks next) are protected and its other git parameters match nothing. */
static int
add_defines (DshSeatbeltPlan *plan, size_t slot, size_t root_index, int guards)
{
  const char *root = plan->roots[root_index];

  for (size_t k = 0; k < N_PARAMS_PER_ROOT; k++)
    {
      const char *git_dir = plan->git_dirs[root_index];
      const char *base = k == 0 ? root
                         : git_dir != NULL ? git_dir
                         : guards && !root_param_paths[k].in_git_dir ? root
                         : NO_REPOSITORY;
      int beneath_dot_git = root_param_paths[k].in_git_dir && !(git_dir != NULL &&
                                                                plan->bare[root_index]);
      Buffer define = { 0 };

      buffer_append (&define, "-DWRITABLE_ROOT_%zu%s=%s%s%s", slot, root_param_suffixes[k], base,
                     beneath_dot_git ? "/.git" : "", root_param_paths[k].path);
      if (define.failed)
        {
          free (define.data);
          return -1;
        }
      plan->defines[plan->n_defines++] = define.data;
    }
  return 0;
}

/* Sets *found when dir followed by name exists, without following a final symlink; a path that
 * cannot be looked at counts as existing (with *st zeroed). Returns -1 when out of memory. */
static int
path_exists (const char *dir, const char *name, struct stat *st, int *found)
{
  size_t len = strlen (dir);
  char *path = malloc (len + strlen (name) + 1);

  if (path == NULL)
    return -1;
  memcpy (path, dir, len);
  memcpy (path + len, name, strlen (name) + 1);
  *found = lstat (path, st) == 0 || (errno != ENOENT && errno != ENOTDIR);
  if (!*found)
    memset (st, 0, sizeof *st);
  free (path);
  return 0;
}

/* In a git directory: directories that exist, then protected names that are symlinks: git runs
 * code from a place the profile does not name. */
static const char *const elsewhere_names[] = {
  "/modules", "/worktrees", "/hooks", "/config", "/config.worktree", "/commondir",
};

/* What git needs to take a directory for a git directory (beside HEAD, which it checks first):
 * objects and refs, or a commondir that holds them. */
static const char *const bare_names[] = { "/objects", "/refs", "/commondir" };

/* Does dir, without a .git, look like a git directory to git: a bare repository? A name that
 * cannot be looked at counts as present. Returns -1 when out of memory. */
static int
is_bare_repository (const char *dir, int *bare)
{
  struct stat st;
  int found[3];

  if (path_exists (dir, "/HEAD", &st, bare) != 0)
    return -1;
  for (size_t i = 0; *bare && i < 3; i++)
    {
      if (path_exists (dir, bare_names[i], &st, &found[i]) != 0)
        return -1;
    }
  *bare = *bare && ((found[0] && found[1]) || found[2]);
  return 0;
}

/* Which repository git finds at root now (a DshSeatbeltRepository), or -1 when out of memory;
 * *bare tells whether root is the git directory itself. A .git that cannot be looked at counts
 * as one whose parts lie elsewhere. */
static int
find_repository (const char *root, int *bare)
{
  struct stat st;
  int found;
  char *git_dir;

  *bare = 0;
  if (path_exists (root, "/.git", &st, &found) != 0)
    return -1;
  if (!found)
    {
      if (is_bare_repository (root, bare) != 0)
        return -1;
      if (!*bare)
        return DSH_SEATBELT_REPOSITORY_NONE;
    }
  else if (!S_ISDIR (st.st_mode))
    return DSH_SEATBELT_REPOSITORY_ELSEWHERE;
  git_dir = malloc (strlen (root) + sizeof "/.git");
  if (git_dir == NULL)
    return -1;
  strcpy (git_dir, root);
  if (!*bare)
    strcat (git_dir, "/.git");
  /* Submodules and linked worktrees have git directories of their own; a protected name that is
   * a symlink is checked by Seatbelt as the path it leads to. */
  for (size_t i = 0; i < sizeof elsewhere_names / sizeof elsewhere_names[0]; i++)
    {
      if (path_exists (git_dir, elsewhere_names[i], &st, &found) != 0)
        {
          free (git_dir);
          return -1;
        }
      if (found && (i < 2 || S_ISLNK (st.st_mode)))
        {
          free (git_dir);
          return DSH_SEATBELT_REPOSITORY_ELSEWHERE;
        }
    }
  free (git_dir);
  return DSH_SEATBELT_REPOSITORY_PROTECTED;
}

/* Where root continues below outer ("" when it is outer) if it lies at or beneath it in any
 * ASCII letter case, else NULL: the core keeps a root as it was spelled, and on a
 * case-insensitive volume /private/TMP/ws lies in /private/tmp. (Other Unicode spellings of the
 * part above are not recognised.) */
static const char *
at_or_beneath_in_any_case (const char *root, const char *outer)
{
  size_t len = strlen (outer);

  for (size_t k = 0; k < len; k++)
    {
      if (ascii_lower (root[k]) != ascii_lower (outer[k]))
        return NULL;
    }
  return root[len] == '\0' || root[len] == '/' ? root + len : NULL;
}

/* Does root j hold no repository while a root strictly beneath it does (its own or one above
 * it)? Once the command garbles that repository's .git/HEAD, git run there takes the .git
 * directory for none and looks further up: in root j, whose rule would let the command make a
 * repository of its own there (ROOT/.git, or ROOT itself a bare one). */
static int
guards_repository_below (const DshSeatbeltPlan *plan, size_t j)
{
  if (plan->git_dirs[j] != NULL)
    return 0;
  for (size_t i = 0; i < plan->n_roots; i++)
    {
      const char *rest = at_or_beneath_in_any_case (plan->roots[i], plan->roots[j]);

      if (i != j && plan->git_dirs[i] != NULL && rest != NULL && rest[0] == '/')
        return 1;
    }
  return 0;
}

/* Is path (spelled) at or beneath a root of plan other than root i? */
static int
inside_another_root (const DshSeatbeltPlan *plan, size_t i, const char *path)
{
  for (size_t j = 0; j < plan->n_roots; j++)
    {
      if (j != i && at_or_beneath_in_any_case (path, plan->roots[j]) != NULL)
        return 1;
    }
  return 0;
}

/* A root without a .git of its own below the top of a repository (ROOT is repo/sub): git run
 * there later takes repo's hooks and config, and another root may make them writable. Its git
 * parameters then name that repository, the nearest one above it that lies inside another
 * root; one above every root is out of reach anyway. Returns -1 when out of memory. */
static int
find_repository_above (DshSeatbeltPlan *plan, size_t i, const char *given)
{
  char *dir = strdup (given);
  int rc = 0;

  if (dir == NULL)
    return -1;
  for (;;)
    {
      char *slash = strrchr (dir, '/');
      char *spelled;
      int found;

      if (slash == NULL || slash == dir)
        break;
      *slash = '\0';
      spelled = dsh_seatbelt_macos_spelling (dir);
      if (spelled == NULL)
        {
          rc = -1;
          break;
        }
      if (!inside_another_root (plan, i, spelled))
        {
          free (spelled);
          break;
        }
      found = find_repository (dir, &plan->bare[i]);
      if (found != DSH_SEATBELT_REPOSITORY_NONE)
        {
          if (found < 0)
            free (spelled);
          else
            {
              plan->git_dirs[i] = spelled;
              plan->has_repository[i] = found;
            }
          rc = found < 0 ? -1 : 0;
          break;
        }
      free (spelled);
    }
  free (dir);
  return rc;
}

static int
collect_roots (const DshBackendPolicy *policy, DshSeatbeltPlan *plan, char *error,
               size_t error_len)
{
  size_t n_given = 0;
  const char **givens = NULL;

  if (policy->mode == DSH_BACKEND_MODE_READ_ONLY || policy->writable_roots == NULL)
    return 0;
  while (policy->writable_roots[n_given] != NULL)
    n_given++;
  plan->roots = calloc (n_given + 1, sizeof (char *));
  plan->git_dirs = calloc (n_given + 1, sizeof (char *));
  plan->has_repository = calloc (n_given + 1, sizeof (int));
  plan->bare = calloc (n_given + 1, sizeof (int));
  givens = calloc (n_given + 1, sizeof (char *));
  if (plan->roots == NULL || plan->git_dirs == NULL || plan->has_repository == NULL ||
      plan->bare == NULL || givens == NULL)
    goto fail;

  for (size_t i = 0; i < n_given; i++)
    {
      const char *given = policy->writable_roots[i];
      const char *problem = root_problem (given);
      char *root;

      if (problem != NULL)
        {
          set_error (error, error_len, "writable root \"%s\" is refused: %s", given, problem);
          goto fail;
        }
      root = dsh_seatbelt_macos_spelling (given);
      if (root == NULL)
        goto fail;
      if (has_root (plan, root))
        {
          free (root);
          continue;
        }
      givens[plan->n_roots] = given;
      plan->roots[plan->n_roots] = root;
      plan->has_repository[plan->n_roots] = find_repository (given, &plan->bare[plan->n_roots]);
      if (plan->has_repository[plan->n_roots++] < 0)
        goto fail;
    }
  /* Every root is known now: which repository git finds from each. */
  for (size_t i = 0; i < plan->n_roots; i++)
    {
      if (plan->has_repository[i] != DSH_SEATBELT_REPOSITORY_NONE)
        plan->git_dirs[i] = strdup (plan->roots[i]);
      else if (find_repository_above (plan, i, givens[i]) != 0)
        goto fail;
      if (plan->has_repository[i] != DSH_SEATBELT_REPOSITORY_NONE && plan->git_dirs[i] == NULL)
        goto fail;
    }
  free (givens);
  return 0;

fail:
  free (givens);
  return -1;
}

int
dsh_seatbelt_plan_build (const DshBackendPolicy *policy,
                         DshSeatbeltPlan *plan,
                         char *error,
                         size_t error_len)
{
  Buffer profile = { 0 };

  memset (plan, 0, sizeof (*plan));
  set_error (error, error_len, "out of memory");

  if (policy->mode != DSH_BACKEND_MODE_READ_ONLY &&
      policy->mode != DSH_BACKEND_MODE_WORKSPACE_WRITE)
    {
      set_error (error, error_len, "unknown sandbox mode %d", (int) policy->mode);
      return -1;
    }
  if (collect_roots (policy, plan, error, error_len) != 0)
    goto fail;

  plan->n_slots = plan->n_roots == 0 || plan->n_roots >= MIN_ROOT_SLOTS ? plan->n_roots
                                                                         : MIN_ROOT_SLOTS;
  plan->defines = calloc (plan->n_slots * N_PARAMS_PER_ROOT + 1, sizeof (char *));
  if (plan->defines == NULL)
    goto fail;
  for (size_t slot = 0; slot < plan->n_slots; slot++)
    {
      size_t root_index = slot < plan->n_roots ? slot : plan->n_roots - 1;

      if (add_defines (plan, slot, root_index, guards_repository_below (plan, root_index)) != 0)
        goto fail;
    }

  buffer_append (&profile, "%s", profile_head);
  append_write_rule (&profile, plan->n_slots);
  if (profile.failed)
    {
      free (profile.data);
      goto fail;
    }
  plan->profile = profile.data;
  if (error != NULL && error_len > 0)
    error[0] = '\0';
  return 0;

fail:
  dsh_seatbelt_plan_clear (plan);
  return -1;
}

void
dsh_seatbelt_plan_clear (DshSeatbeltPlan *plan)
{
  for (size_t i = 0; plan->roots != NULL && i < plan->n_roots; i++)
    free (plan->roots[i]);
  for (size_t i = 0; plan->git_dirs != NULL && i < plan->n_roots; i++)
    free (plan->git_dirs[i]);
  free (plan->git_dirs);
  for (size_t i = 0; plan->defines != NULL && i < plan->n_defines; i++)
    free (plan->defines[i]);
  free (plan->roots);
  free (plan->has_repository);
  free (plan->bare);
  free (plan->defines);
  free (plan->profile);
  memset (plan, 0, sizeof (*plan));
}

int
dsh_seatbelt_plan_find_nested_root (const DshSeatbeltPlan *plan, size_t *inner, size_t *outer)
{
  for (size_t i = 0; i < plan->n_roots; i++)
    {
      for (size_t j = 0; j < plan->n_roots; j++)
        {
          const char *rest = at_or_beneath_in_any_case (plan->roots[i], plan->roots[j]);

          /* A root directly inside another cannot be renamed (each root itself is refused),
           * but a directory between them can. */
          if (i != j && rest != NULL && rest[0] == '/' && strchr (rest + 1, '/') != NULL)
            {
              *inner = i;
              *outer = j;
              return 1;
            }
        }
    }
  return 0;
}

/* On HFS+, which ignores U+200C and its kin when it compares names, every name has other
 * spellings (2026 is 20\u200C26), and on APFS every name with a letter or a non-ASCII byte
 * does; a root that is another in another letter case is one already. */
int
dsh_seatbelt_plan_find_respellable_root (const DshSeatbeltPlan *plan, size_t *inner,
                                         size_t *outer)
{
  for (size_t i = 0; i < plan->n_roots; i++)
    {
      if (plan->has_repository[i] == DSH_SEATBELT_REPOSITORY_NONE)
        continue;
      for (size_t j = 0; j < plan->n_roots; j++)
        {
          /* Roots are distinct as spelled: one that is another in another letter case
           * counts. */
          if (i != j && at_or_beneath_in_any_case (plan->roots[i], plan->roots[j]) != NULL)
            {
              *inner = i;
              *outer = j;
              return 1;
            }
        }
    }
  return 0;
}
