/* dsh-bwrap-exec.h — what the parts of the bubblewrap launcher share: its one fatal exit, the
 * argv it builds for bwrap, the writable roots, and what the sandbox must look like. The
 * launcher program and the backend module (doing the launcher's first step in a caller that
 * exits after the command) each define fatal() and hand_to_bwrap() their own way.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <stddef.h>
#include <sys/types.h>

/* The launcher's file name, its one fatal line's start and its exit status then: the backend
 * module publishes the last two as its runner-failure rule, so all change together. */
#define LAUNCHER_NAME "dsh-bwrap-exec"
#define FATAL_PREFIX LAUNCHER_NAME ": fatal: "
#define EXIT_RUNNER_FAILURE 125

/* From this Landlock ABI on (cross-directory renames inside the roots work), the command also
 * runs in a Landlock domain that allows writing only beneath the mounts checked inside. */
#define DSH_BWRAP_HOLD_WRITES_ABI 2

/* Does the running kernel have that ABI (asked once)? */
int kernel_holds_writes (void);

/* Prints one "dsh-bwrap-exec: fatal: " line and exits 125: nothing ran. (In the module: the
 * step fails with that line.) */
_Noreturn void fatal (const char *format, ...) __attribute__ ((format (printf, 1, 2)));
void *checked (void *p);
char *format (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));

/* The argv handed to bwrap, NULL-terminated. */
typedef struct {
  char **items;
  size_t len;
  size_t cap;
} Argv;

void argv_add (Argv *argv, char *item);

/* From our argv ([--write PATH]... -- BWRAP PROFILE... -- ARGV...), bwrap's. */
void build_bwrap_argv (int argc, char **argv, Argv *out);

/* fd (opened for bwrap, not close-on-exec) must reach bwrap's process, and nothing else. */
void hand_to_bwrap (int fd);

typedef struct {
  dev_t dev;
  ino_t ino;
} Identity;

typedef struct {
  Identity id; /* {0, 0}: made by bwrap, only read-only-ness is checked */
  char *path;
} Protected;

/* What the step inside the sandbox checks: the directories that may be mounted writable, the
 * paths that must be read-only. */
extern Identity *writable;
extern size_t n_writable;
extern Protected *protected_paths;
extern size_t n_protected;

void expect_writable (Identity id);
void expect_protected (Identity id, const char *path);
Identity identity_of (int fd, const char *path);
/* `--bind-fd` (writable) or `--ro-bind-fd` (protected) FD on DEST, with its expectation. */
void add_fd_mount (Argv *argv, const char *option, int fd, const char *dest);

int open_beneath_nofollow (int dirfd, const char *path, int flags);

/* The writable roots as given, canonical. */
extern char **roots;
extern size_t n_roots;
int is_writable (const char *path);

/* dsh-bwrap-git.c: git's own files inside the roots. The binds that hold the work trees below a
 * root in place, which must come before every protection, are added by hold_work_trees(). */
void protect_repository_of (Argv *argv, int root_fd, const char *root);
void hold_work_trees (Argv *argv);
/* dsh-bwrap-git-index.c: calls visit with the path of every submodule (gitlink; with
 * all_entries, of every entry) the index index_name (index, or a split index's sharedindex.*) of
 * the git directory gitdir_fd records. *replaced (if given) is set when a nameless gitlink
 * replaces an entry of the shared index. */
void for_each_gitlink (int gitdir_fd, const char *gitdir_path, const char *index_name,
                       size_t hash_size, int all_entries, int *replaced,
                       void (*visit) (const char *path, void *data), void *data);
/* Config names to look at once the call is over: missing ones, and those held read-only. */
extern size_t n_watched;
int watched_dirfd (size_t i);
void undo_planted_config (void);

/* dsh-bwrap-undo-keeper.c: with config names to watch, a process that undoes the call if the
 * one starting bwrap dies first; that one releases it once it has undone the call itself. */
void start_undo_keeper (Argv *argv);
void release_undo_keeper (void);
/* Forgets every git directory seen and expectation made, for a process that protects more than
 * one tree (the fuzz target); the launcher protects one. */
void protect_repository_reset (void);

/* dsh-bwrap-inside.c: the check inside the sandbox, which also carries the command's argv.
 * bwrap runs the launcher file at launcher_file again ("/proc/self/exe": this very program). */
extern const char *launcher_file;
void note_host_mounts (void);
void add_inside_step (Argv *argv, char **command, int n_command);
int run_inside (int data, int self);
