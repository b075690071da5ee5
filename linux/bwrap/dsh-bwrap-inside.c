/* dsh-bwrap-inside.c — the launcher's step inside the sandbox: before the command runs, check
 * that bwrap mounted writable only what was asked for and kept the protected paths read-only,
 * then exec the command, whose argv came in a memfd.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define _GNU_SOURCE

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <linux/filter.h>
#include <linux/magic.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "dsh-bwrap-exec.h"
#include "dsh-seccomp-arch.h"
#include "dsh-terminal-typing.h"
#include "dsh-execvp.h"
#include "dsh-landlock-uapi.h"

#ifndef STATX_TYPE
/* A C library without statx (musl before 1.2.5): the kernel's own structure and call. */
#include <linux/stat.h>

static int
statx (int dirfd, const char *path, int flags, unsigned int mask, struct statx *buffer)
{
  return (int) syscall (SYS_statx, dirfd, path, flags, mask, buffer);
}
#endif
#ifndef STATX_ATTR_MOUNT_ROOT
#define STATX_ATTR_MOUNT_ROOT 0x00002000
#endif

/* ---- the step inside the sandbox ----------------------------------------------------------- */

/* Device numbers of the host's filesystems: a writable mount of anything else inside the
 * sandbox is a filesystem bwrap made fresh there. */
static dev_t *host_devs;
static size_t n_host_devs;
static size_t cap_host_devs;

static void
add_host_dev (dev_t dev)
{
  if (n_host_devs == cap_host_devs)
    {
      cap_host_devs = cap_host_devs < 64 ? 64 : cap_host_devs * 2;
      host_devs = checked (realloc (host_devs, cap_host_devs * sizeof *host_devs));
    }
  host_devs[n_host_devs++] = dev;
}

typedef struct {
  unsigned long id;
  unsigned long parent;
  dev_t dev;
  char *mount_point;
  int writable;
} MountLine;

/* Undoes mountinfo's octal escapes (space, tab, newline, backslash) in place. */
static void
unescape (char *text)
{
  char *out = text;

  for (char *in = text; *in != '\0'; in++)
    {
      if (in[0] == '\\' && in[1] >= '0' && in[1] <= '3' && in[2] >= '0' && in[2] <= '7' &&
          in[3] >= '0' && in[3] <= '7')
        {
          *out++ = (char) ((in[1] - '0') * 64 + (in[2] - '0') * 8 + (in[3] - '0'));
          in += 3;
        }
      else
        *out++ = *in;
    }
  *out = '\0';
}

/* "ID PARENT MAJOR:MINOR ROOT MOUNT-POINT OPTIONS ..." */
static int
parse_mount_line (char *line, MountLine *mount)
{
  unsigned int major, minor;
  char *fields[6];
  char *save = NULL;

  for (int i = 0; i < 6; i++)
    if ((fields[i] = strtok_r (i == 0 ? line : NULL, " ", &save)) == NULL)
      return 0;
  if (sscanf (fields[2], "%u:%u", &major, &minor) != 2)
    return 0;
  mount->id = strtoul (fields[0], NULL, 10);
  mount->parent = strtoul (fields[1], NULL, 10);
  mount->dev = makedev (major, minor);
  unescape (fields[4]);
  mount->mount_point = fields[4];
  mount->writable = strncmp (fields[5], "rw", 2) == 0 && (fields[5][2] == ',' ||
                                                         fields[5][2] == '\0');
  return 1;
}

static char *read_all (int fd, const char *what, char *buffer, size_t size, size_t *length);

/* Reads /proc/self/mountinfo whole into buffer (or the heap past its size), in one or two reads
 * (closed again before anything is started, so no O_CLOEXEC, which costs musl an fcntl), and
 * gives `visit` each line until it returns nonzero: whether one did. */
static int
scan_mount_table (char *buffer, size_t size, int (*visit) (MountLine *mount, void *data),
                  void *data)
{
  int fd = open ("/proc/self/mountinfo", O_RDONLY);
  size_t len;
  char *table;
  int stopped = 0;

  if (fd < 0)
    fatal ("cannot read /proc/self/mountinfo: %s", strerror (errno));
  table = read_all (fd, "/proc/self/mountinfo", buffer, size, &len);
  close (fd);
  for (char *line = table, *end; line < table + len && !stopped; line = end + 1)
    {
      MountLine mount;

      end = memchr (line, '\n', (size_t) (table + len - line));
      if (end == NULL)
        end = table + len;
      *end = '\0';
      stopped = parse_mount_line (line, &mount) && visit (&mount, data);
    }
  if (table != buffer)
    free (table);
  return stopped;
}

static int
visit_every (MountLine *mount, void *data)
{
  void (**visit) (MountLine *mount) = data;

  (*visit) (mount);
  return 0;
}

/* Calls `visit` for each line of the mount table. */
static void
for_each_mount (void (*visit) (MountLine *mount))
{
  static char buffer[1 << 16];

  scan_mount_table (buffer, sizeof buffer, visit_every, &visit);
}

static int is_host_dev (dev_t dev);
static int is_root_of_mount (int fd, unsigned long id);

/* Outside: remember the host's filesystems, and allow host mounts beneath a writable root (a
 * recursive bind brings them along). */
static void
note_host_mount (MountLine *mount)
{
  int fd;

  if (!is_host_dev (mount->dev))
    {
      add_host_dev (mount->dev);
    }
  if (!is_writable (mount->mount_point))
    return;
  fd = open_beneath_nofollow (AT_FDCWD, mount->mount_point, O_PATH | O_CLOEXEC);
  if (fd < 0)
    return; /* not reachable by this path: not reachable inside either */
  expect_writable (identity_of (fd, mount->mount_point));
  close (fd);
}

static int
is_host_dev (dev_t dev)
{
  for (size_t i = 0; i < n_host_devs; i++)
    if (host_devs[i] == dev)
      return 1;
  return 0;
}

static int
is_expected_writable (Identity id)
{
  for (size_t i = 0; i < n_writable; i++)
    if (writable[i].dev == id.dev && writable[i].ino == id.ino)
      return 1;
  return 0;
}

/* What `path` (its last component not followed) is, its identity and which mount it is on, in
 * one call; -1 with errno set if it cannot be reached. */
static int
statx_with_mount (const char *path, struct statx *stx)
{
  const unsigned int wanted = STATX_MNT_ID | STATX_TYPE | STATX_INO;

  if (statx (AT_FDCWD, path, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, wanted, stx) != 0)
    return -1;
  if ((stx->stx_mask & wanted) != wanted ||
      (stx->stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) == 0)
    fatal ("cannot tell which mount '%s' is on: the kernel does not say", path);
  return 0;
}

/* Whether some line of a fresh read of the mount table matches: read into a buffer of its own,
 * since for_each_mount() is walking its own meanwhile. */
static int
any_mount (int (*matches) (MountLine *mount, void *data), void *data)
{
  static char buffer[1 << 16];

  return scan_mount_table (buffer, sizeof buffer, matches, data);
}

typedef struct {
  unsigned long id;
  const char *point;
} MountAt;

static int
is_mount_at (MountLine *mount, void *data)
{
  const MountAt *wanted = data;

  return mount->id == wanted->id && strcmp (mount->mount_point, wanted->point) == 0;
}

/* Whether the mount `reached`, whose root a lookup of `point` ended at, is mounted on that very
 * point: then any other mount there lies beneath it (mounted twice, an automount point with its
 * filesystem on top, or a host mount on a point that a bind of the workspace covers), and no
 * path reaches anything of that one, the command's neither; a mount namespace the command makes
 * cannot uncover it (the kernel locks mounts it copies for a less privileged one). */
static int
mounted_on (unsigned long reached, const char *point)
{
  MountAt wanted = { reached, point };

  return any_mount (is_mount_at, &wanted);
}

/* Where bwrap mounts fresh filesystems over the host's: /tmp only while it is private (told by
 * the outside in the checks). */
static const char *shadowed_by_bwrap[] = { "/dev", "/proc", NULL, NULL };

static int
is_beneath_any (const char *path, const char *const *dirs)
{
  for (size_t i = 0; dirs[i] != NULL; i++)
    {
      size_t len = strlen (dirs[i]);

      if (strncmp (path, dirs[i], len) == 0 && (path[len] == '\0' || path[len] == '/'))
        return 1;
    }
  return 0;
}

/* The filesystems bwrap makes fresh, where, and of which type. */
static const struct {
  const char *point;
  long type;
} fresh_by_bwrap[] = {
  { "/dev", TMPFS_MAGIC },
  { "/dev/pts", DEVPTS_SUPER_MAGIC },
  { "/proc", PROC_SUPER_MAGIC },
  { "/tmp", TMPFS_MAGIC }, /* only while private */
};

/* The mount table's tree, by id, parent and device. */
typedef struct {
  unsigned long id;
  unsigned long parent;
  dev_t dev;
} MountNode;

typedef struct {
  MountNode *nodes;
  size_t n;
  size_t cap;
} MountTree;

static int
add_to_tree (MountLine *mount, void *data)
{
  MountTree *tree = data;

  if (tree->n == tree->cap)
    {
      tree->cap = tree->cap < 64 ? 64 : tree->cap * 2;
      tree->nodes = checked (realloc (tree->nodes, tree->cap * sizeof *tree->nodes));
    }
  tree->nodes[tree->n++] = (MountNode) { mount->id, mount->parent, mount->dev };
  return 0; /* on to the next line */
}

/* Whether node lies on `top` or beneath it in the tree. */
static int
is_on_or_beneath (const MountTree *tree, const MountNode *node, unsigned long top)
{
  unsigned long id = node->id;

  for (size_t steps = 0; steps <= tree->n; steps++)
    {
      size_t i;

      if (id == top)
        return 1;
      for (i = 0; i < tree->n && tree->nodes[i].id != id; i++)
        ;
      if (i == tree->n || tree->nodes[i].parent == id)
        return 0;
      id = tree->nodes[i].parent;
    }
  return 0;
}

/* Whether a mount of the filesystem of `mount` (its device) lies outside what is mounted on it:
 * a host filesystem's copy from the root bind. bwrap binds parts of its fresh /proc read-only
 * over themselves, beneath it. The tree is read once, for every fresh point checked. */
static int
has_device_elsewhere (const MountLine *mount)
{
  static MountTree tree;
  static int read_once;
  int elsewhere = 0;

  if (!read_once)
    {
      any_mount (add_to_tree, &tree);
      read_once = 1;
    }
  for (size_t i = 0; i < tree.n && !elsewhere; i++)
    elsewhere = tree.nodes[i].dev == mount->dev && !is_on_or_beneath (&tree, &tree.nodes[i],
                                                                      mount->id);
  return elsewhere;
}

/* Is the mount, reached at its own point, one of the fresh filesystems bwrap made there, its
 * device number among the host's or not? Each gets a device number of its own, and the kernel
 * hands out the lowest one free: one a host filesystem had when the outside noted the host's,
 * unmounted since. The host's filesystem, were it still mounted, would also be mounted outside
 * this one (the root bind brought every host mount along, and the mounts propagated since); the
 * number cannot be handed out again before every mount of it is gone, the sandbox's copies
 * included. */
static int
is_fresh_filesystem (const MountLine *mount)
{
  struct statfs fs;
  int fd;
  int fresh;

  for (size_t i = 0; i < sizeof fresh_by_bwrap / sizeof fresh_by_bwrap[0]; i++)
    {
      if (strcmp (mount->mount_point, fresh_by_bwrap[i].point) != 0 ||
          (strcmp (mount->mount_point, "/tmp") == 0 && shadowed_by_bwrap[2] == NULL))
        continue;
      fd = open_beneath_nofollow (AT_FDCWD, mount->mount_point, O_PATH | O_CLOEXEC);
      if (fd < 0)
        return 0;
      fresh = is_root_of_mount (fd, mount->id) && fstatfs (fd, &fs) == 0 &&
              (long) fs.f_type == fresh_by_bwrap[i].type;
      close (fd);
      return fresh && !has_device_elsewhere (mount);
    }
  return 0;
}

/* ---- writes held to the mounts checked ----------------------------------------------------
 *
 * bwrap's read-only mounts stop writes made through paths in the sandbox, not two others: a
 * descriptor of a host directory handed in from outside (a command under Landlock runs in the
 * host's mount namespace and may open any directory it may read, and the descriptor is on the
 * host's writable mount), and a file system the host mounts while the command runs (it reaches
 * the sandbox's slave copy of the tree without the read-only flag). So where the kernel has
 * Landlock from ABI 2 (cross-directory renames inside the roots keep working), the command also
 * runs in a Landlock domain that allows writing only beneath the writable mounts just checked:
 * neither reaches one of them. */

/* The writable mounts, by id and mount point as mountinfo names them. */
typedef struct {
  unsigned long id;
  char *point;
} WritablePoint;

static WritablePoint *writable_points;
static size_t n_writable_points;
static size_t cap_writable_points;

/* Told by the outside: the kernel has Landlock ABI 2 or later, so the domain must be made. */
static int hold_writes;

static void
note_writable_point (const MountLine *mount)
{
  if (n_writable_points == cap_writable_points)
    {
      cap_writable_points = cap_writable_points < 32 ? 32 : cap_writable_points * 2;
      writable_points = checked (realloc (writable_points,
                                          cap_writable_points * sizeof *writable_points));
    }
  writable_points[n_writable_points].id = mount->id;
  writable_points[n_writable_points].point = checked (strdup (mount->mount_point));
  n_writable_points++;
}

/* Is fd (opened at a mount point) the root of that very mount? A Landlock rule holds for the
 * directory, whatever mount it is reached through: one on the root of another mount stacked on
 * the same point (read-only, say, over a writable one it covers) would let writes through that
 * one, by any way that reaches it but its read-only mount. */
static int
is_root_of_mount (int fd, unsigned long id)
{
  struct statx stx;

  return statx (fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &stx) == 0 &&
         (stx.stx_mask & STATX_MNT_ID) && stx.stx_mnt_id == id &&
         (stx.stx_attributes & STATX_ATTR_MOUNT_ROOT);
}

int
kernel_holds_writes (void)
{
  static int holds = -1;

  if (holds < 0)
    holds = dsh_landlock_abi () >= DSH_BWRAP_HOLD_WRITES_ABI;
  return holds;
}

static void
allow_beneath (int ruleset, int fd, uint64_t rights, const char *path)
{
  struct ll_path_beneath_attr rule = { 0 };
  struct stat st;

  if ((rights & ~LL_FS_FILE_RIGHTS) != 0 && (fstat (fd, &st) != 0 || !S_ISDIR (st.st_mode)))
    rights &= LL_FS_FILE_RIGHTS;
  rule.allowed_access = rights;
  rule.parent_fd = fd;
  if (syscall (__NR_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &rule, 0) != 0)
    fatal ("cannot hold writes to '%s': landlock_add_rule: %s", path, strerror (errno));
}

static void
hold_writes_to_checked_mounts (void)
{
  struct ll_ruleset_attr attr = { 0 };
  uint64_t handled;
  long abi = dsh_landlock_abi ();
  int ruleset, root;

  if (abi < DSH_BWRAP_HOLD_WRITES_ABI)
    fatal ("Landlock is missing inside the sandbox, though the kernel has it outside: %s",
           abi < 0 ? strerror (errno) : "ABI 1");
  handled = dsh_landlock_handled_rights (abi);
  attr.handled_access_fs = handled;
  ruleset = (int) syscall (__NR_landlock_create_ruleset, &attr, sizeof attr, 0);
  if (ruleset < 0)
    fatal ("cannot hold writes to the mounts: landlock_create_ruleset: %s", strerror (errno));
  if ((root = open ("/", O_PATH | O_CLOEXEC)) < 0)
    fatal ("cannot open '/': %s", strerror (errno));
  allow_beneath (ruleset, root, dsh_landlock_read_rights (handled), "/");
  close (root);
  for (size_t i = 0; i < n_writable_points; i++)
    {
      /* Only the writable mounts the check told apart, each the root its point reached then;
       * one gone or covered since is reached by no path here, and gets no rule. */
      const char *point = writable_points[i].point;
      int fd = open_beneath_nofollow (AT_FDCWD, point, O_PATH | O_CLOEXEC);

      if (fd < 0 && (errno == ENOENT || errno == ENOTDIR || errno == ELOOP))
        continue;
      if (fd < 0)
        fatal ("cannot open '%s': %s", point, strerror (errno));
      if (is_root_of_mount (fd, writable_points[i].id))
        allow_beneath (ruleset, fd, dsh_landlock_write_rights (handled), point);
      close (fd);
    }
  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
      syscall (__NR_landlock_restrict_self, ruleset, 0) != 0)
    fatal ("cannot hold writes to the mounts: landlock_restrict_self: %s", strerror (errno));
  close (ruleset);
}

/* Inside: a writable mount of a host filesystem must be a directory this call asked for (or a
 * device node of bwrap's /dev); anything else is what a raced symlink made bwrap mount. The
 * Landlock domain allows writes only beneath the writable mounts this tells apart positively:
 * a root asked for (or a host mount beneath one), a filesystem bwrap made fresh on its point, a
 * device node. A writable mount of a filesystem the outside never saw is not bwrap's for that
 * alone: the host may have mounted it since the outside noted the host's (a USB stick, an sshfs,
 * an automount), after bwrap's root bind was made read-only, and it reached the sandbox's slave
 * copy of the tree writable. Such a one gets no rule, as one mounted once the command runs. */
static void
check_sandbox_mount (MountLine *mount)
{
  struct statx stx;

  /* The host's own mounts below /dev, /proc and /tmp come along with the root bind and lie
   * under the fresh ones bwrap mounts there first, out of reach (their path may not even exist
   * in the fresh ones); anything mounted later lands on top of those, so it is reached.
   * Elsewhere a path that leads to another mount moved under us: refuse. */
  int shadowed = is_beneath_any (mount->mount_point, shadowed_by_bwrap);
  int host = is_host_dev (mount->dev);

  if (!mount->writable)
    return;
  if (statx_with_mount (mount->mount_point, &stx) != 0)
    {
      /* Reached by no path here: nothing beneath it is writable, and it gets no rule. */
      if (!host || (shadowed && (errno == ENOENT || errno == ENOTDIR || errno == ELOOP)))
        return;
      fatal ("cannot check the writable mount at '%s': %s", mount->mount_point, strerror (errno));
    }
  /* What is checked must be this mount itself (its root), however the path got there. */
  if (stx.stx_mnt_id != mount->id || !(stx.stx_attributes & STATX_ATTR_MOUNT_ROOT))
    {
      if (host && !shadowed && !((stx.stx_attributes & STATX_ATTR_MOUNT_ROOT) &&
                                 mounted_on (stx.stx_mnt_id, mount->mount_point)))
        fatal ("the writable mount at '%s' is not the one reached by that path",
               mount->mount_point);
      return; /* covered: no rule */
    }
  if (S_ISCHR (stx.stx_mode) ||
      is_expected_writable ((Identity) { makedev (stx.stx_dev_major, stx.stx_dev_minor),
                                         stx.stx_ino }) ||
      is_fresh_filesystem (mount))
    {
      note_writable_point (mount);
      return;
    }
  if (host)
    fatal ("a writable mount at '%s' is not one this call asked for", mount->mount_point);
}

static void
check_protected (const Protected *p)
{
  struct statfs fs;
  struct stat st;
  int fd = open_beneath_nofollow (AT_FDCWD, p->path, O_PATH | O_CLOEXEC);

  if (fd < 0)
    fatal ("cannot check '%s': %s", p->path, strerror (errno));
  if (fstatfs (fd, &fs) != 0 || fstat (fd, &st) != 0)
    fatal ("cannot check '%s': %s", p->path, strerror (errno));
  if (!(fs.f_flags & ST_RDONLY))
    fatal ("'%s' is not read-only in the sandbox", p->path);
  if ((p->id.dev != 0 || p->id.ino != 0) && (st.st_dev != p->id.dev || st.st_ino != p->id.ino))
    fatal ("'%s' in the sandbox is not the file that was protected", p->path);
  close (fd);
}

static void
write_all (int fd, const char *data, size_t len)
{
  while (len > 0)
    {
      ssize_t n = write (fd, data, len);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        fatal ("cannot hand the sandbox its checks: %s", strerror (errno));
      data += n;
      len -= (size_t) n;
    }
}

/* bwrap runs this very launcher again, from a descriptor (our path may be hidden in the
 * sandbox), with what to check and the command's argv in a memfd: no argv limit applies. The
 * checks are put together here and written in one go. */
const char *launcher_file = "/proc/self/exe";

void
add_inside_step (Argv *argv, char **command, int n_command)
{
  int self = open (launcher_file, O_RDONLY);
  int data = (int) syscall (SYS_memfd_create, "dsh-bwrap-exec", MFD_ALLOW_SEALING);
  char *text = NULL;
  size_t len = 0;
  FILE *checks;

  if (self < 0 || data < 0 || (checks = open_memstream (&text, &len)) == NULL)
    fatal ("cannot prepare the check inside the sandbox: %s", strerror (errno));
  for (size_t i = 0; i < n_writable; i++)
    fprintf (checks, "W %llu %llu\n", (unsigned long long) writable[i].dev,
             (unsigned long long) writable[i].ino);
  for (size_t i = 0; i < n_host_devs; i++)
    fprintf (checks, "H %llu\n", (unsigned long long) host_devs[i]);
  if (!is_writable ("/tmp"))
    fputs ("T\n", checks);
  if (kernel_holds_writes ())
    fputs ("L\n", checks);
  for (size_t i = 0; i < n_protected; i++)
    fprintf (checks, "P %llu %llu %s\n", (unsigned long long) protected_paths[i].id.dev,
             (unsigned long long) protected_paths[i].id.ino, protected_paths[i].path);
  fputc ('\n', checks);
  for (int i = 0; i < n_command; i++)
    fwrite (command[i], 1, strlen (command[i]) + 1, checks);
  if (ferror (checks) || fclose (checks) != 0)
    fatal ("out of memory");
  write_all (data, text, len);
  free (text);
  /* Sealed: nothing can change the checks between here and there. */
  if (fcntl (data, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) != 0 ||
      lseek (data, 0, SEEK_SET) != 0)
    fatal ("cannot prepare the check inside the sandbox: %s", strerror (errno));
  hand_to_bwrap (self);
  hand_to_bwrap (data);
  argv_add (argv, format ("/proc/self/fd/%d", self));
  argv_add (argv, "--inside");
  argv_add (argv, format ("%d", data));
  argv_add (argv, format ("%d", self));
}

/* All of fd, NUL-terminated, in `buffer` (of `size` bytes) while it fits, else on the heap;
 * `what` names it in the error. */
static char *
read_all (int fd, const char *what, char *buffer, size_t size, size_t *length)
{
  size_t len = 0, cap = size;
  ssize_t n;

  while ((n = read (fd, buffer + len, cap - len - 1)) != 0)
    {
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        fatal ("cannot read %s: %s", what, strerror (errno));
      len += (size_t) n;
      if (len + 1 < cap)
        continue;
      if (cap == size)
        buffer = memcpy (checked (malloc (cap * 2)), buffer, len);
      else
        buffer = checked (realloc (buffer, cap * 2));
      cap *= 2;
    }
  buffer[len] = '\0';
  *length = len;
  return buffer;
}

/* bwrap's --new-session leaves the command no controlling terminal, so the kernel refuses
 * TIOCSTI on the terminal the command was handed, as long as that terminal is some session's.
 * One that is no session's yet (a pty a harness opened and hands its commands, a terminal whose
 * session leader is gone; bwrap also binds the caller's terminal at /dev/console) the command
 * can take as its own with setsid and TIOCSCTTY, and then type into. So the requests of
 * dsh-terminal-typing.h are refused here, for the command and everything it starts, as the
 * Landlock launcher refuses them; a request is compared on its low 32 bits, all the kernel
 * reads of it. The architecture's numbers are the Landlock launcher's too (dsh-seccomp-arch.h).
 */

/* Where the filter's jumps go, as instruction indexes. */
enum {
  AT_NATIVE = 3,
  AT_COMPAT = 7,
  AT_IOCTL = 9,
  AT_ALLOW = AT_IOCTL + 1 + DSH_N_TERMINAL_TYPING_REQUESTS,
  AT_REFUSE = AT_ALLOW + 1,
  FILTER_LEN = AT_REFUSE + 1,
};

/* A conditional jump at index `at` to index jt if A == k, else to index jf. */
static struct sock_filter
jump_to (unsigned int at, uint32_t k, unsigned int jt, unsigned int jf)
{
  return (struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, k, jt - at - 1, jf - at - 1);
}

static void
refuse_terminal_typing (void)
{
  struct sock_filter code[FILTER_LEN] = {
    BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, arch)),
#ifdef DSH_SECCOMP_COMPAT_ARCH
    jump_to (1, DSH_SECCOMP_COMPAT_ARCH, AT_COMPAT, 2),
#else
    BPF_STMT (BPF_JMP | BPF_JA, 0),
#endif
    jump_to (2, DSH_SECCOMP_NATIVE_ARCH, AT_NATIVE, AT_ALLOW),
    /* AT_NATIVE */
    BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, nr)),
#ifdef DSH_SECCOMP_X32_BIT
    BPF_STMT (BPF_ALU | BPF_AND | BPF_K, ~DSH_SECCOMP_X32_BIT),
    jump_to (5, DSH_SECCOMP_X32_IOCTL, AT_IOCTL, 6),
#else
    BPF_STMT (BPF_JMP | BPF_JA, 0),
    BPF_STMT (BPF_JMP | BPF_JA, 0),
#endif
    jump_to (6, __NR_ioctl, AT_IOCTL, AT_ALLOW),
    /* AT_COMPAT */
    BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, nr)),
#ifdef DSH_SECCOMP_COMPAT_IOCTL
    jump_to (8, DSH_SECCOMP_COMPAT_IOCTL, AT_IOCTL, AT_ALLOW),
#else
    BPF_STMT (BPF_JMP | BPF_JA, AT_ALLOW - 8 - 1),
#endif
    /* AT_IOCTL */
    BPF_STMT (BPF_LD | BPF_W | BPF_ABS, DSH_SECCOMP_ARG_LOW (1)),
  };
  struct sock_fprog program = { .len = FILTER_LEN, .filter = code };

  for (unsigned int i = 0; i < DSH_N_TERMINAL_TYPING_REQUESTS; i++)
    code[AT_IOCTL + 1 + i] = jump_to (AT_IOCTL + 1 + i, dsh_terminal_typing_requests[i],
                                      AT_REFUSE, AT_IOCTL + 2 + i);
  code[AT_ALLOW] = (struct sock_filter) BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  code[AT_REFUSE] = (struct sock_filter) BPF_STMT (BPF_RET | BPF_K,
                                                   SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA));
  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
      syscall (__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &program) != 0)
    fatal ("cannot refuse typing into the terminal: seccomp: %s", strerror (errno));
}

/* Inside the sandbox, before the command: check the mounts, then become the command. Failing to
 * run it is the command's failure, as a shell reports it. */
int
run_inside (int data, int self)
{
  static char checks[1 << 16];
  size_t len = 0, n_items = 0, at = 0;
  char *buffer;
  char **items;

  close (self);
  buffer = read_all (data, "the checks", checks, sizeof checks, &len);
  close (data);

  /* The header: one check a line, up to an empty line. */
  while (at < len && buffer[at] != '\n')
    {
      char *line = buffer + at;
      char *end = strchr (line, '\n');
      unsigned long long dev, ino;
      int consumed = 0;

      if (end == NULL)
        fatal ("malformed checks");
      *end = '\0';
      at = (size_t) (end - buffer) + 1;
      if (sscanf (line, "W %llu %llu", &dev, &ino) == 2)
        expect_writable ((Identity) { (dev_t) dev, (ino_t) ino });
      else if (strcmp (line, "T") == 0)
        shadowed_by_bwrap[2] = "/tmp";
      else if (strcmp (line, "L") == 0)
        hold_writes = 1;
      else if (sscanf (line, "H %llu", &dev) == 1)
        add_host_dev ((dev_t) dev);
      else if (sscanf (line, "P %llu %llu %n", &dev, &ino, &consumed) == 2 && consumed > 0)
        expect_protected ((Identity) { (dev_t) dev, (ino_t) ino }, line + consumed);
      else
        fatal ("malformed checks");
    }
  at++;

  for_each_mount (check_sandbox_mount);
  for (size_t i = 0; i < n_protected; i++)
    check_protected (&protected_paths[i]);
  if (hold_writes)
    hold_writes_to_checked_mounts ();
  refuse_terminal_typing ();

  for (size_t i = at; i < len; i++)
    n_items += buffer[i] == '\0';
  if (n_items == 0)
    fatal ("malformed checks: no command");
  items = checked (calloc (n_items + 1, sizeof *items));
  for (size_t i = 0; i < n_items; i++)
    {
      items[i] = buffer + at;
      at += strlen (buffer + at) + 1;
    }
  fflush (stderr);
  dsh_execvp (items[0], items);
  fprintf (stderr, "dsh-bwrap-exec: cannot execute '%s': %s\n", items[0], strerror (errno));
  return errno == ENOENT ? 127 : 126;
}

void
note_host_mounts (void)
{
  for_each_mount (note_host_mount);
}
