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
 * reserved padding, so an older module keeps loading.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DSH_BACKEND_ABI_MAJOR 1
#define DSH_BACKEND_ABI_MINOR 0

#if defined(_WIN32)
#define DSH_BACKEND_EXPORT __declspec (dllexport)
#else
#define DSH_BACKEND_EXPORT __attribute__ ((visibility ("default")))
#endif

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
  DshBackendMode mode;
  /* Absolute and canonical. */
  const char *workspace_root;
  /* Opaque session identity, or NULL for agentless calls. */
  const char *session_id;
  /* NULL-terminated; empty unless workspace-write. Canonical and de-duplicated: the workspace
   * root, /tmp and the temp directory. Backends may keep honest differences (a private /tmp). */
  const char *const *writable_roots;
  void *reserved[8];
} DshBackendPolicy;

/* Evidence that the runner failed before it ran the command; see SPEC §8. */
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
  /* Report enforcement completeness for this confine() call (default full). */
  void (*set_enforcement) (DshBackendHost *host, DshBackendEnforcement enforcement);
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

  void *reserved[16];
};

typedef struct {
  uint32_t abi_major;
  uint32_t abi_minor;
  /* Short unique name, the one DSH_SANDBOX_BACKEND selects ("bwrap"). */
  const char *name;
  const char *description;
  DshBackendOs os;
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

  void *reserved[16];
} DshBackendDescriptor;

typedef const DshBackendDescriptor *(*DshBackendDescribeFunc) (void);

#ifdef __cplusplus
}
#endif
