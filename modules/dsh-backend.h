/* dsh-backend.h — the stable plain-C ABI between libdsh-sandbox-1 and its backend modules.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Nothing here uses GLib and no heap memory crosses the boundary in either direction: the core
 * hands the module a host table (argv push, error and reason reporting, program and helper lookup,
 * environment, probe spawning) and the module hands back pointers to its own static data only.
 * That keeps third-party modules buildable with any toolchain and keeps C runtimes apart on
 * Windows.
 *
 * A module exports exactly one entry point, `dsh_backend_<name>_describe` (or the generic
 * `dsh_backend_describe`), returning a static descriptor. Build it with hidden visibility and the
 * version script from `pkg-config --variable=mapfile dsh-backend-1` so nothing else is exported.
 *
 * Compatibility: the core refuses a module whose abi_major differs from its own or whose
 * abi_minor is newer than its own. Minor bumps only ever append fields, taking them from the
 * reserved padding, so an older module keeps loading. The rule both sides follow: the core reads
 * a descriptor field added in 1.N only when the descriptor's abi_minor >= N, and a module calls a
 * host function (or reads a host field) added in 1.N only when host->abi_minor >= N.
 * DSH_BACKEND_ABI_AT_LEAST() spells that check.
 *
 * 1.1: enum-typed fields are int32_t (the enums still name the values); optional per-provider
 * instance hooks; optional version, license and origin strings; DSH_BACKEND_DEFINE();
 * dsh_backend_push_args().
 * 1.2: optional take_first_step() and first_step_done(), and the host's keep_fd(): a caller
 * that exits after the command lets the module do its runner's first step in the caller.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DSH_BACKEND_ABI_MAJOR 1
/* 1.1 added DshBackendDescriptor.denial_exclusions, 1.2 take_first_step. */
#define DSH_BACKEND_ABI_MINOR 2

#if defined(_WIN32)
#define DSH_BACKEND_EXPORT __declspec (dllexport)
#else
#define DSH_BACKEND_EXPORT __attribute__ ((visibility ("default")))
#endif

/* True when obj (a DshBackendDescriptor or a DshBackendHost) has the fields of ABI 1.minor. */
#define DSH_BACKEND_ABI_AT_LEAST(obj, minor) \
  ((obj)->abi_major == DSH_BACKEND_ABI_MAJOR && (obj)->abi_minor >= (minor))

/* The host operating system a backend is for; the core only keeps modules for its own. */
typedef enum {
  DSH_BACKEND_OS_LINUX = 1,
  DSH_BACKEND_OS_MACOS = 2,
  DSH_BACKEND_OS_WINDOWS = 3,
} DshBackendOs;

/* The confined modes: danger-full-access never reaches a backend. */
typedef enum {
  DSH_BACKEND_MODE_READ_ONLY = 0,
  DSH_BACKEND_MODE_WORKSPACE_WRITE = 1,
} DshBackendMode;

typedef enum {
  DSH_BACKEND_ENFORCEMENT_FULL = 0,
  DSH_BACKEND_ENFORCEMENT_PARTIAL = 1,
} DshBackendEnforcement;

/* One confined execution's policy, fully resolved by the core. */
typedef struct {
  /* A DshBackendMode. */
  int32_t mode;
  /* Absolute and canonical. */
  const char *workspace_root;
  /* Opaque session identity, or NULL for agentless calls. */
  const char *session_id;
  /* NULL-terminated; empty unless workspace-write. Canonical and de-duplicated: the workspace
   * root, /tmp and the temp directory. Backends may keep honest differences (a private /tmp). */
  const char *const *writable_roots;
  void *reserved[8];
} DshBackendPolicy;

/* Evidence that the runner failed before it ran the command, so that the failure is never taken
 * for the command's own. */
typedef struct {
  /* Exit codes this rule may match on; NULL (or 0 of them) permits any nonzero exit. */
  const int *allowed_exit_codes;
  size_t n_allowed_exit_codes;
  /* NULL-terminated, non-empty: case-insensitive substrings of one fatal stderr line. */
  const char *const *fatal_signatures;
  /* NULL-terminated or NULL: benign lines removed first by case-insensitive whole-line equality. */
  const char *const *informational_lines;
  void *reserved[4];
} DshBackendFailureRule;

typedef struct _DshBackendHost DshBackendHost;

/* Services the core offers a module for the duration of one call. Every string the host returns
 * stays valid until that call returns; copy it if needed later. */
struct _DshBackendHost {
  uint32_t abi_major;
  uint32_t abi_minor;
  /* The core's private state; modules never touch it. */
  void *host_data;

  /* Append one item to the wrapped argv being built. */
  void (*push_arg) (DshBackendHost *host, const char *arg);
  /* Report why the call failed; the module then returns nonzero. */
  void (*set_error) (DshBackendHost *host, const char *message);
  /* Report enforcement completeness (a DshBackendEnforcement) for this confine() call (default
   * full). */
  void (*set_enforcement) (DshBackendHost *host, int32_t enforcement);
  /* Add one human-readable reason, required for partial enforcement. */
  void (*add_reason) (DshBackendHost *host, const char *reason);
  /* Absolute path of a program found on PATH, or NULL. */
  const char *(*find_program) (DshBackendHost *host, const char *name);
  /* Absolute path of one of the project's helper executables (e.g. dsh-landlock-exec), or NULL. */
  const char *(*find_helper) (DshBackendHost *host, const char *name);
  /* The caller's environment variable, or NULL. */
  const char *(*get_env) (DshBackendHost *host, const char *name);
  /* Run argv (NULL-terminated) with no stdin, a timeout and captured stderr. Returns 0 when it
   * ran; then *exit_status holds its exit code (128+N for a signal) and stderr_buf (if given)
   * its first stderr line. Returns nonzero when it could not be started. */
  int (*spawn_probe) (DshBackendHost *host,
                      const char *const *argv,
                      int *exit_status,
                      char *stderr_buf,
                      size_t stderr_buf_len);

  /* Since 1.1: what this provider's instance_new() returned for this module, in every call the
   * provider makes into it after that; NULL for a module without instance hooks. */
  void *instance;

  /* Since 1.2, only during take_first_step(): fd, opened close-on-exec by the module, is one the
   * argv it pushes needs open. The command's process gets it (and, above 2, only what was kept
   * this way); the core closes it here once that process is gone. */
  void (*keep_fd) (DshBackendHost *host, int fd);

  void *reserved[14];
};

typedef struct {
  uint32_t abi_major;
  uint32_t abi_minor;
  /* Short unique name, the one DSH_SANDBOX_BACKEND selects ("bwrap"). */
  const char *name;
  const char *description;
  /* A DshBackendOs. */
  int32_t os;
  /* Higher is tried first. */
  int32_t priority;

  /* Wrap argv (NULL-terminated) for policy by pushing the whole replacement argv through the
   * host. Return 0 on success; on failure call set_error and return nonzero. Must not spawn. */
  int (*confine) (DshBackendHost *host, const DshBackendPolicy *policy, const char *const *argv);

  /* Optional. Decide usability before the core's functional probe (which runs the confined
   * argv of a trivial command). Return 0 when usable; otherwise set_error and return nonzero. */
  int (*check) (DshBackendHost *host);

  /* NULL-terminated: this backend's denial dialect (case-insensitive stderr substrings). */
  const char *const *denial_signatures;
  /* This backend's runner-failure rules. */
  const DshBackendFailureRule *runner_failure_rules;
  size_t n_runner_failure_rules;

  /* Since 1.1, optional. NULL-terminated or NULL: case-insensitive substrings that take a stderr line out of
   * denial matching, for lines in the dialect's words that are no file effect (an SSH login's
   * "Permission denied (publickey)."). Substrings, not whole lines: the part that tells such a
   * line apart is fixed, while what precedes it (user@host, a tool's prefix) is not. */
  const char *const *denial_exclusions;

  /* Since 1.1, optional, both or neither. A provider (one generation of loaded modules) calls
   * instance_new() once, on its first call into this module, and instance_free() when the
   * provider's lifetime ends, before the module is closed. The state belongs to the module and
   * reaches every later call of that provider as host->instance. Calls may come from several
   * threads at once: guard what the state holds. instance_new() returns NULL after set_error
   * when it cannot make one; that call then fails and the next one asks again. The host passed
   * to instance_new() is valid only until it returns. */
  void *(*instance_new) (DshBackendHost *host);
  void (*instance_free) (void *instance);

  /* Since 1.1, optional: shown by `dsh-sandbox probe`. */
  const char *version;
  /* An SPDX license expression. */
  const char *license;
  /* Who ships the module, e.g. a URL or a vendor name. */
  const char *origin;

  /* Since 1.2, optional, both or neither. For a caller that exits after the command (the
   * command line's exec), the first step of the runner that confine()'s argv starts, done in
   * that caller's process: one exec fewer. argv is what confine() pushed. Either push through
   * host->push_arg the argv to start instead (naming its descriptors with host->keep_fd) and
   * return 0; or push nothing and return 0, and argv starts as it is; or, where the runner
   * would have failed, set_error with the one stderr line it would have printed, set
   * *exit_status to the status it would have exited with, and return nonzero: the core then
   * classifies that as it would the runner's own failure. After the
   * command's process is gone, first_step_done() is called once whenever take_first_step()
   * pushed an argv. Called from one thread, at most once per process. */
  int (*take_first_step) (DshBackendHost *host, const char *const *argv, int32_t *exit_status);
  void (*first_step_done) (DshBackendHost *host);

  void *reserved[8];
} DshBackendDescriptor;

typedef const DshBackendDescriptor *(*DshBackendDescribeFunc) (void);

/* Pushes every item of a NULL-terminated array through host->push_arg. */
static inline void
dsh_backend_push_args (DshBackendHost *host, const char *const *args)
{
  for (size_t i = 0; args[i] != NULL; i++)
    host->push_arg (host, args[i]);
}

/* Emits this ABI's descriptor for `backend` (an identifier made of [a-z0-9], which is also the
 * backend's name) and its entry point dsh_backend_<name>_describe, exported. The
 * remaining arguments are designated initializers for the other fields:
 *
 *   DSH_BACKEND_DEFINE (mine,
 *                       .description = "my runner",
 *                       .os = DSH_BACKEND_OS_LINUX,
 *                       .confine = mine_confine, ...)
 *
 * with no semicolon after it. A backend whose name has a '-' writes its descriptor and entry point
 * out by hand. */
#define DSH_BACKEND_DEFINE(backend, ...) \
  DSH_BACKEND_EXPORT const DshBackendDescriptor *dsh_backend_##backend##_describe (void); \
  static const DshBackendDescriptor dsh_backend_##backend##_descriptor = { \
    .abi_major = DSH_BACKEND_ABI_MAJOR, \
    .abi_minor = DSH_BACKEND_ABI_MINOR, \
    .name = #backend, \
    __VA_ARGS__ \
  }; \
  const DshBackendDescriptor *dsh_backend_##backend##_describe (void) \
  { \
    return &dsh_backend_##backend##_descriptor; \
  }

#ifdef __cplusplus
}
#endif
