/* dsh-module-loader-private.h — finding, vetting and opening backend modules.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gmodule.h>

#include "dsh-backend.h"
#include "dsh-backend-host-private.h"

G_BEGIN_DECLS

/* One module file seen during a scan, loaded or refused. */
typedef struct {
  char *path;
  /* The backend name the file name gives (a loaded descriptor must carry the same). */
  char *name;
  char *description;
  /* Optional metadata of an ABI 1.1 module, or NULL. */
  char *version;
  char *license;
  char *origin;
  int priority;
  /* Open while the descriptor is in use; NULL when refused. */
  GModule *module;
  /* The private copy of the checked bytes the module was loaded from (-1: none), kept open as
   * long as the module is. */
  int content_fd;
  const DshBackendDescriptor *descriptor;
  /* Why this module was refused, or NULL. */
  char *refused_reason;
  /* Not opened: its file names another backend than the one asked for. */
  gboolean excluded;
  /* The module's state for the provider that scanned it (instance hooks), made on first use and
   * ended when the module is freed with that provider. */
  GMutex instance_lock;
  void *instance;
} DshBackendModule;

void       dsh_backend_module_free   (DshBackendModule   *module);

/* Hands the module's per-provider state to the call (call->host.instance), asking the module to
 * make it on the first call. FALSE, with call->error set, when the module could not. */
gboolean   dsh_backend_module_bind_instance (DshBackendModule *module,
                                             DshBackendCall   *call);

/* Opens module->path as this platform's loader checks and opens a module file, then has
 * dsh_backend_module_describe() take its descriptor; module->refused_reason says why not. */
void       dsh_backend_module_load   (DshBackendModule   *module,
                                      const char *const  *untrusted_roots);

/* Takes the descriptor of a module opened as handle: finds its entry point, checks what the
 * descriptor holds and that it names the backend its file is named for, and keeps handle, the
 * descriptor and its texts in module. Otherwise closes handle and sets module->refused_reason. */
void       dsh_backend_module_describe (DshBackendModule *module,
                                        GModule          *handle);

/* Scans each directory for module files in name order and returns every one seen (element type
 * DshBackendModule), loaded or refused with a reason; a name seen twice is refused the second
 * time, and so is a module whose descriptor names another backend than its file name. Modules
 * for another OS are refused too, and so are files beneath untrusted_roots (directories
 * confined commands may write), before any of their code runs. With only_name, files named for
 * other backends are listed as excluded and never opened. */
GPtrArray *dsh_module_loader_scan    (const char *const  *dirs,
                                      const char *const  *untrusted_roots,
                                      const char         *only_name);

/* What dsh_module_loader_scan() with only_name = name would load, without listing any directory:
 * the file named for name in each directory in turn, up to the first that loads (refused ones
 * are kept, with their reason). A file that is not there is not listed; other files are neither
 * listed nor opened. */
GPtrArray *dsh_module_loader_open_named (const char *const  *dirs,
                                         const char *const  *untrusted_roots,
                                         const char         *name);

/* What dsh_module_loader_scan() with only_name would give if paths were exactly the module
 * files in dirs, in that order, without listing any directory; NULL when a path is no module
 * file right inside one of dirs, or two name the same backend or file. */
GPtrArray *dsh_module_loader_open_listed (const char *const  *dirs,
                                          const char *const  *untrusted_roots,
                                          const char *const  *paths,
                                          const char         *only_name);

/* The backend name a module file's name gives ("libdsh-backend-foo.so" -> "foo"), or NULL for
 * a file that is no backend module. */
char      *dsh_module_loader_name_from_path (const char *path);

/* The descriptor's denial exclusions, or NULL for a module older than ABI 1.1 (whose padding
 * the field now occupies is not ours to read). */
const char *const *dsh_backend_descriptor_denial_exclusions (const DshBackendDescriptor *desc);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (DshBackendModule, dsh_backend_module_free)

G_END_DECLS
