/* dsh-backend-selector.c — selects one backend per selector lifetime: load this host's modules,
 * order them by priority, probe a chain of several functionally (really run the runner on a
 * trivial command), take a sole candidate without a probe, and fail closed when nothing is left.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-backend-selector-private.h"

#include <string.h>

#include "dsh-error.h"
#include "dsh-platform-private.h"
#include "dsh-probe-cache-private.h"
#include "dsh-root-grants-private.h"
#include "dsh-roots-private.h"
#include "dsh-roots.h"
#include "dsh-texts.h"

static void
candidate_free (Candidate *candidate)
{
  g_free (candidate->probe_detail);
  g_strfreev (candidate->runner_files);
  g_clear_pointer (&candidate->lookups, g_ptr_array_unref);
  dsh_dialect_unref (candidate->dialect);
  g_free (candidate);
}

static int
compare_priority (gconstpointer a, gconstpointer b)
{
  const Candidate *ca = *(Candidate *const *) a;
  const Candidate *cb = *(Candidate *const *) b;

  if (ca->module->priority != cb->module->priority)
    return ca->module->priority > cb->module->priority ? -1 : 1;
  return strcmp (ca->module->name, cb->module->name);
}

static void
print_backend_help (DshBackendSelector *self)
{
  g_printerr ("Supported arguments for the DSH_SANDBOX_BACKEND environment variable:\n");
  for (guint i = 0; i < self->candidates->len; i++)
    {
      const Candidate *c = self->candidates->pdata[i];

      g_printerr ("  %s - %s\n", c->module->name, c->module->description);
    }
}

/* Candidates for the usable modules of self->modules in priority order; kept (nullable) stands
 * for its own module. */
static void
make_candidates (DshBackendSelector *self, Candidate *kept)
{
  self->candidates = g_ptr_array_new_with_free_func ((GDestroyNotify) candidate_free);
  for (guint i = 0; i < self->modules->len; i++)
    {
      DshBackendModule *module = self->modules->pdata[i];
      Candidate *candidate;

      if (module->refused_reason != NULL || module->excluded)
        continue;
      if (kept != NULL && module == kept->module)
        candidate = kept;
      else
        {
          candidate = g_new0 (Candidate, 1);
          candidate->module = module;
        }
      g_ptr_array_add (self->candidates, candidate);
    }
  g_ptr_array_sort (self->candidates, compare_priority);
}

const char *
dsh_backend_override_pins (const char *override)
{
  return override != NULL && override[0] != '\0' && !g_str_equal (override, "help") ? override
                                                                                    : NULL;
}

/* The backend DSH_SANDBOX_BACKEND pins, or NULL. */
static const char *
pinned_backend (DshBackendSelector *self)
{
  return dsh_backend_override_pins (self->backend_override);
}

/* After a selection that opened only the selected module (from the probe cache, or the one a
 * pinned backend names): the rest of the chain, for whatever reports or lists it. The selected
 * candidate and its module stay as they are, whatever the files say now: this selector's
 * lifetime runs on them. */
static void
load_rest_of_chain (DshBackendSelector *self)
{
  Candidate *kept = self->selected;
  DshBackendModule *kept_module = kept->module;
  GPtrArray *all = dsh_module_loader_scan ((const char *const *) self->backend_dirs,
                                           (const char *const *) self->untrusted_roots,
                                           pinned_backend (self));
  gboolean placed = FALSE;

  /* Out of the old arrays without freeing: the candidate and its module move over. */
  g_ptr_array_set_free_func (self->candidates, NULL);
  g_clear_pointer (&self->candidates, g_ptr_array_unref);
  for (guint i = 0; i < self->modules->len; i++)
    {
      if (self->modules->pdata[i] == kept_module)
        self->modules->pdata[i] = NULL;
    }
  g_clear_pointer (&self->modules, g_ptr_array_unref);

  for (guint i = 0; i < all->len; i++)
    {
      DshBackendModule *module = all->pdata[i];

      if (!placed && g_str_equal (module->path, kept_module->path))
        {
          dsh_backend_module_free (module);
          all->pdata[i] = kept_module;
          placed = TRUE;
        }
      else if (module->module != NULL && g_str_equal (module->name, kept_module->name))
        {
          /* A file of the same name that appeared since: the selected one stays the one. */
          module->refused_reason = g_strdup_printf ("a backend named \"%s\" was already "
                                                    "loaded from another file", module->name);
          g_clear_pointer (&module->module, g_module_close);
          module->descriptor = NULL;
        }
    }
  if (!placed)
    g_ptr_array_add (all, kept_module);
  self->modules = all;
  make_candidates (self, kept);
  self->only_selected_loaded = FALSE;
}

/* Called with the lock held. */
static void
scan_modules (DshBackendSelector *self)
{
  if (self->only_selected_loaded)
    load_rest_of_chain (self);
  if (self->modules != NULL)
    return;

  self->scanned_at = g_get_real_time () / G_USEC_PER_SEC;
  /* A backend pinned by DSH_SANDBOX_BACKEND is the only module opened: none of the others'
   * code runs, and the call does not pay for loading them. */
  self->modules = dsh_module_loader_scan ((const char *const *) self->backend_dirs,
                                         (const char *const *) self->untrusted_roots,
                                         pinned_backend (self));
  make_candidates (self, NULL);
}

static GStrv granted_code_dirs (DshBackendSelector *self);
static char *record_stamp (const char *record);

/* A selector kept across calls (serve, a library's provider) chose its modules and helpers
 * while no call had granted their directories; one a later call grants could have had them
 * rewritten since, by that call's command. So when the record changed, the code directories are
 * asked again, and one granted since fails the call: nothing found there may run. */
static gboolean
code_still_trusted (DshBackendSelector *self, GError **error)
{
  g_autofree char *record = dsh_root_grants_default_dir ();
  g_autofree char *stamp = record_stamp (record);
  g_auto (GStrv) granted = NULL;
  gboolean trusted = TRUE;

  g_mutex_lock (&self->trust_lock);
  if (g_strcmp0 (stamp, self->record_stamp) != 0)
    {
      /* Asked again (it takes the new stamp); the list the selector chose with stays. */
      granted = granted_code_dirs (self);
      for (guint i = 0; granted[i] != NULL && trusted; i++)
        trusted = g_strv_contains ((const char *const *) self->granted_code_dirs, granted[i]);
      /* Failing from now on: nothing found there may run until the provider starts again. */
      if (!trusted)
        g_clear_pointer (&self->record_stamp, g_free);
    }
  g_mutex_unlock (&self->trust_lock);
  if (!trusted)
    g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_UNAVAILABLE,
                 "a directory of the backend modules or helpers was granted to a confined "
                 "command since they were chosen: what is there now may be that command's; "
                 "start the provider again");
  return trusted;
}

/* Runs the module's confine() and checks what it produced is a wrapping, never a passthrough.
 * The runner and helper lookups the candidate's check made (when given) answer the module's
 * lookups again: it is confined with what was checked, without a second search. */
static gboolean
call_confine_as_checked (DshBackendSelector *self,
                         DshBackendModule *module,
                         const Candidate *checked,
                         const char *const *argv,
                         const DshSandboxPolicy *policy,
                         DshBackendCall *call,
                         GError **error)
{
  dsh_backend_call_init (call, (const char *const *) self->helper_dirs,
                         (const char *const *) self->untrusted_roots);
  call->remembered = checked != NULL ? checked->lookups : NULL;
  if (!code_still_trusted (self, error))
    return FALSE;
  if (!dsh_backend_module_bind_instance (module, call))
    {
      g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_UNAVAILABLE,
                   "backend \"%s\" could not confine the command: %s", module->name,
                   call->error != NULL ? call->error : "no reason given");
      return FALSE;
    }
  return dsh_backend_call_confine (call, module->name, module->descriptor, argv, policy, error);
}

gboolean
dsh_backend_selector_call_confine (DshBackendSelector *self,
                                   DshBackendModule *module,
                                   const char *const *argv,
                                   const DshSandboxPolicy *policy,
                                   DshBackendCall *call,
                                   GError **error)
{
  /* Set once, under the lock, before any caller gets here with the selected module; the
   * candidate outlives every later change of the candidate list. */
  const Candidate *selected = self->selected;

  return call_confine_as_checked (self, module,
                                  selected != NULL && selected->module == module ? selected : NULL,
                                  argv, policy, call, error);
}

static gboolean
run_check (DshBackendSelector *self, Candidate *candidate)
{
  DshBackendCall call;
  int rc;

  if (candidate->module->descriptor->check == NULL)
    return TRUE;

  dsh_backend_call_init (&call, (const char *const *) self->helper_dirs,
                         (const char *const *) self->untrusted_roots);
  rc = dsh_backend_module_bind_instance (candidate->module, &call)
         ? candidate->module->descriptor->check (&call.host)
         : -1;
  g_ptr_array_add (call.programs, NULL);
  g_strfreev (candidate->runner_files);
  candidate->runner_files = g_strdupv ((char **) call.programs->pdata);
  g_clear_pointer (&candidate->lookups, g_ptr_array_unref);
  candidate->lookups = g_steal_pointer (&call.lookups);
  if (rc != 0 || call.error != NULL)
    {
      candidate->probe = PROBE_FAILED;
      candidate->probe_detail = g_strdup (call.error != NULL ? call.error
                                                             : "the backend's check failed");
    }
  dsh_backend_call_clear (&call);
  return candidate->probe != PROBE_FAILED;
}

/* Really runs the runner on a trivial command under read-only. */
static void
run_functional_probe (DshBackendSelector *self, Candidate *candidate)
{
  g_autoptr (DshSandboxPolicy) policy = dsh_sandbox_policy_new (DSH_SANDBOX_MODE_READ_ONLY, "/",
                                                                NULL);
  g_autofree char *true_path = dsh_backend_find_program ("true");
  const char *argv[] = { true_path != NULL ? true_path : "/bin/true", NULL };
  g_autoptr (GError) error = NULL;
  g_autofree char *stderr_text = NULL;
  DshBackendCall call;
  int exit_code = -1;

  if (!call_confine_as_checked (self, candidate->module, candidate, argv, policy, &call, &error) ||
      !dsh_backend_run_probe ((const char *const *) call.argv->pdata, DSH_PROBE_TIMEOUT_MS,
                              &exit_code, &stderr_text, &error))
    {
      candidate->probe = PROBE_FAILED;
      candidate->probe_detail = g_strdup (error->message);
    }
  else if (exit_code != 0)
    {
      g_auto (GStrv) lines = g_strsplit (stderr_text, "\n", 2);

      candidate->probe = PROBE_FAILED;
      candidate->probe_detail = g_strdup_printf ("the probe command exited with status %d%s%s",
                                                 exit_code, lines[0] && lines[0][0] ? ": " : "",
                                                 lines[0] ? lines[0] : "");
    }
  else
    {
      candidate->probe = PROBE_PASSED;
    }
  dsh_backend_call_clear (&call);
}

/* chain: the chain's modules (DshBackendModule) in priority order. */
static char *
probe_cache_key (GPtrArray *chain, const Candidate *passed)
{
  /* A key is a few hundred bytes per module and runner file: grown once or not at all. */
  GString *key = g_string_sized_new (1024);

  /* Everything the probe's outcome depends on, and nothing else: no age. The entry holds as
   * long as the host, the module set and the passed candidate's runner files are the same. */
  dsh_platform_append_user (key);
  dsh_probe_cache_add_host (key);
  for (guint i = 0; i < chain->len; i++)
    {
      const DshBackendModule *module = chain->pdata[i];

      dsh_probe_cache_add_member (key, module->name, module->path);
    }
  g_string_append (key, "passed=");
  g_string_append (key, passed->module->name);
  g_string_append_c (key, ';');
  for (gsize i = 0; passed->runner_files != NULL && passed->runner_files[i] != NULL; i++)
    dsh_probe_cache_add_file (key, passed->runner_files[i]);
  return g_string_free (key, FALSE);
}

/* The modules of the candidates, in chain order. */
static GPtrArray *
chain_modules (DshBackendSelector *self)
{
  GPtrArray *chain = g_ptr_array_sized_new (self->candidates->len);

  for (guint i = 0; i < self->candidates->len; i++)
    g_ptr_array_add (chain, ((Candidate *) self->candidates->pdata[i])->module);
  return chain;
}

/* Runs the cheap checks in chain order up to the first that passes (the earlier ones are then
 * marked failed): the candidate a full selection would probe first. */
static Candidate *
first_passing_check (DshBackendSelector *self)
{
  for (guint i = 0; i < self->candidates->len; i++)
    {
      if (run_check (self, self->candidates->pdata[i]))
        return self->candidates->pdata[i];
    }
  return NULL;
}

/* A matching cache entry only ever says "the first candidate of this exact chain that passes its
 * cheap check passed its functional probe". The checks run on every call, so a forged or stale
 * entry can skip that one candidate's probe (and end in a runner failure), but never steer the
 * choice past a preferred candidate whose check passes — a runner that is installed but broken
 * is probed again on every call, never remembered. */
static gboolean
select_from_probe_cache (DshBackendSelector *self, const char *cache, Candidate *first_usable)
{
  g_autofree char *key = NULL;
  g_autoptr (GPtrArray) chain = NULL;

  if (cache == NULL)
    return FALSE;
  chain = chain_modules (self);
  key = probe_cache_key (chain, first_usable);
  if (!dsh_probe_cache_lookup (cache, key))
    return FALSE;
  first_usable->probe = PROBE_CACHED;
  self->selected = first_usable;
  return TRUE;
}

/* The identities of the module directories, NULL-terminated, when the scan that found the
 * chain saw nothing else in them and none had changed shortly before: then a later call that
 * finds the same identities finds the same files without listing the directories. NULL
 * otherwise. */
static GStrv
module_dir_identities (DshBackendSelector *self, GPtrArray *chain)
{
  g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();

  if (self->modules->len != chain->len || self->scanned_at <= 0)
    return NULL;
  for (gsize d = 0; self->backend_dirs != NULL && self->backend_dirs[d] != NULL; d++)
    {
      g_autofree char *identity = dsh_probe_cache_dir_identity (self->backend_dirs[d],
                                                                self->scanned_at);

      if (identity == NULL)
        return NULL;
      g_strv_builder_add (builder, identity);
    }
  return g_strv_builder_end (builder);
}

static void
store_in_probe_cache (DshBackendSelector *self, const char *cache, Candidate *first_usable)
{
  g_autofree char *key = NULL;
  g_autoptr (GPtrArray) chain = NULL;
  g_autoptr (GPtrArray) paths = NULL;
  g_auto (GStrv) dirs = NULL;

  /* Only the outcome that costs nothing to trust is remembered. */
  if (cache == NULL || self->selected != first_usable)
    return;
  chain = chain_modules (self);
  key = probe_cache_key (chain, first_usable);
  /* The chain's files, when the passed candidate heads it: the next call may then open that
   * module alone (select_head_of_cached_chain()). */
  if (first_usable == self->candidates->pdata[0])
    {
      paths = g_ptr_array_new ();
      for (guint i = 0; i < chain->len; i++)
        g_ptr_array_add (paths, ((DshBackendModule *) chain->pdata[i])->path);
      g_ptr_array_add (paths, NULL);
      dirs = module_dir_identities (self, chain);
    }
  dsh_probe_cache_store (cache, key, paths != NULL ? (const char *const *) paths->pdata : NULL,
                         (const char *const *) dirs);
}

/* The probe cache, unless a confined command could write it (HOME inside the workspace, say):
 * then it is neither believed nor written. */
static const char *
usable_probe_cache (DshBackendSelector *self)
{
  if (self->probe_cache_path == NULL || self->probe_cache_granted ||
      dsh_backend_path_is_untrusted (self->probe_cache_path,
                                     (const char *const *) self->untrusted_roots))
    return NULL;
  return self->probe_cache_path;
}

/* Drops a selection attempt's modules and candidates: the whole chain is scanned next. */
static void
forget_modules (DshBackendSelector *self)
{
  g_clear_pointer (&self->candidates, g_ptr_array_unref);
  g_clear_pointer (&self->modules, g_ptr_array_unref);
}

/* Do the module directories have the identities an entry recorded (NULL: none)? */
static gboolean
module_dirs_unchanged (DshBackendSelector *self, const char *const *dirs)
{
  gsize d = 0;

  if (dirs == NULL || self->backend_dirs == NULL)
    return FALSE;
  for (; self->backend_dirs[d] != NULL; d++)
    {
      g_autofree char *identity = dsh_probe_cache_dir_identity (self->backend_dirs[d], 0);

      if (dirs[d] == NULL || identity == NULL || !g_str_equal (identity, dirs[d]))
        return FALSE;
    }
  return dirs[d] == NULL;
}

/* An entry whose candidate heads its chain also lists the chain's module files. When exactly
 * those files are found now (listed, or vouched for by directories unchanged since the entry's
 * scan saw only them there), only the head's is opened (vetted as always) and checked, and the
 * entry's key, which names every one of those files' identity, the runner files the check found
 * and the host, must match as it stands: any difference (a file added, removed or changed, a
 * failed check, another kernel) falls back to opening the whole chain. */
static gboolean
select_head_of_cached_chain (DshBackendSelector *self)
{
  const char *cache = self->backend_override == NULL ? usable_probe_cache (self) : NULL;
  g_autofree char *stored_key = NULL;
  g_auto (GStrv) chain_paths = NULL;
  g_auto (GStrv) dirs = NULL;
  g_autofree char *head_name = NULL;
  g_autoptr (GPtrArray) chain = NULL;
  g_autofree char *key = NULL;
  Candidate *head;
  guint n;

  if (cache == NULL || !dsh_probe_cache_read (cache, &stored_key, &chain_paths, &dirs) ||
      chain_paths == NULL || (n = g_strv_length (chain_paths)) < 2 ||
      (head_name = dsh_module_loader_name_from_path (chain_paths[0])) == NULL)
    return FALSE;

  /* Every module file is listed, unless the directories are as they were when the entry's scan
   * found these files and nothing else there; only the head's name is opened. */
  if (module_dirs_unchanged (self, (const char *const *) dirs))
    self->modules = dsh_module_loader_open_listed ((const char *const *) self->backend_dirs,
                                                   (const char *const *) self->untrusted_roots,
                                                   (const char *const *) chain_paths, head_name);
  else
    g_clear_pointer (&dirs, g_strfreev);
  if (self->modules == NULL)
    {
      self->scanned_at = g_get_real_time () / G_USEC_PER_SEC;
      self->modules = dsh_module_loader_scan ((const char *const *) self->backend_dirs,
                                             (const char *const *) self->untrusted_roots,
                                             head_name);
    }
  chain = g_ptr_array_sized_new (n);
  for (guint i = 0; i < n && self->modules->len == n; i++)
    {
      for (guint j = 0; j < n; j++)
        {
          DshBackendModule *module = self->modules->pdata[j];

          /* The head loaded, every other file listed and left closed, each file once. */
          if (g_str_equal (module->path, chain_paths[i]) &&
              !g_ptr_array_find (chain, module, NULL) &&
              (i == 0 ? module->refused_reason == NULL && !module->excluded : module->excluded))
            {
              g_ptr_array_add (chain, module);
              break;
            }
        }
    }
  if (chain->len != n)
    {
      forget_modules (self);
      return FALSE;
    }

  make_candidates (self, NULL);
  head = self->candidates->pdata[0];
  if (run_check (self, head))
    key = probe_cache_key (chain, head);
  if (key == NULL || !g_str_equal (key, stored_key))
    {
      forget_modules (self);
      return FALSE;
    }
  head->probe = PROBE_CACHED;
  self->selected = head;
  self->only_selected_loaded = TRUE;
  /* An entry written while the directories had just changed (a fresh build, an install) holds
   * no identities for them; once this listing found exactly its files in directories left
   * alone long enough, the next call need not list them. */
  if (dirs == NULL)
    {
      g_auto (GStrv) identities = module_dir_identities (self, chain);

      if (identities != NULL)
        dsh_probe_cache_store (cache, stored_key, (const char *const *) chain_paths,
                               (const char *const *) identities);
    }
  return TRUE;
}

/* The chain's sole candidate is taken without a functional probe: its own refusal at run time
 * is the fail-closed end. Its cheap static check still runs; FALSE when that fails. */
static gboolean
select_sole_candidate (DshBackendSelector *self)
{
  Candidate *only = self->candidates->pdata[0];

  if (!run_check (self, only))
    return FALSE;
  only->probe = PROBE_SKIPPED;
  self->selected = only;
  return TRUE;
}

/* A pinned backend's selection opens its file alone, found by name: no directory is read. It is
 * the chain's sole candidate, so it is selected without a probe once its check passes. Anything
 * else (no such file, a refused one, a failed check) goes the whole way again, for its report. */
static gboolean
select_pinned (DshBackendSelector *self)
{
  const char *name = pinned_backend (self);

  if (name == NULL)
    return FALSE;
  self->modules = dsh_module_loader_open_named ((const char *const *) self->backend_dirs,
                                                (const char *const *) self->untrusted_roots,
                                                name);
  make_candidates (self, NULL);
  if (self->candidates->len != 1 || !select_sole_candidate (self))
    {
      forget_modules (self);
      return FALSE;
    }
  self->only_selected_loaded = TRUE;
  return TRUE;
}

/* Called with the lock held; runs once per selector lifetime. */
static void
select_with_whole_chain (DshBackendSelector *self)
{
  GPtrArray *chain;
  Candidate *first_usable;
  const char *cache;

  scan_modules (self);
  if (g_strcmp0 (self->backend_override, "help") == 0)
    print_backend_help (self);
  /* Modules DSH_SANDBOX_BACKEND does not name were never opened: every candidate is in. */
  chain = self->candidates;

  if (chain->len == 0)
    {
      self->selection_failure =
        self->backend_override != NULL && !g_str_equal (self->backend_override, "help")
          ? g_strdup_printf ("DSH_SANDBOX_BACKEND=%s names no usable backend module",
                             self->backend_override)
          : g_strdup ("no backend module for this host could be loaded");
      return;
    }

  /* A sole candidate is taken without a functional probe. */
  if (chain->len == 1)
    {
      Candidate *only = chain->pdata[0];

      if (!select_sole_candidate (self))
        self->selection_failure = g_strdup_printf ("backend \"%s\": %s", only->module->name,
                                                   only->probe_detail);
      return;
    }

  first_usable = first_passing_check (self);
  cache = first_usable != NULL ? usable_probe_cache (self) : NULL;
  if (select_from_probe_cache (self, cache, first_usable))
    return;

  for (guint i = 0; first_usable != NULL && i < chain->len; i++)
    {
      Candidate *candidate = chain->pdata[i];

      /* Those before the first usable one have failed their check already. */
      if (candidate->probe == PROBE_FAILED)
        continue;
      if (candidate == first_usable || run_check (self, candidate))
        run_functional_probe (self, candidate);
      if (candidate->probe == PROBE_PASSED)
        {
          self->selected = candidate;
          store_in_probe_cache (self, cache, first_usable);
          return;
        }
    }
  self->selection_failure = g_strdup ("every backend candidate failed its probe");
}

/* Called with the lock held; selects once per selector lifetime, opening no more modules than
 * the selection needs. */
static void
select_lean_locked (DshBackendSelector *self)
{
  if (self->selection_done)
    return;
  self->selection_done = TRUE;
  if (self->modules == NULL && (select_pinned (self) || select_head_of_cached_chain (self)))
    return;
  select_with_whole_chain (self);
}

void
dsh_backend_selector_select_locked (DshBackendSelector *self)
{
  select_lean_locked (self);
  scan_modules (self);
}

/* Why nothing was selected: the failure, then each module's own reason (a refused file, a
 * failed check or probe). */
static char *
selection_cause (DshBackendSelector *self)
{
  GString *cause;

  g_mutex_lock (&self->lock);
  cause = g_string_new (self->selection_failure != NULL ? self->selection_failure
                                                        : "no backend was selected");
  if (self->modules != NULL && self->modules->len == 0 && self->backend_dirs != NULL)
    {
      g_autofree char *dirs = g_strjoinv (", ", self->backend_dirs);

      g_string_append_printf (cause, " (no module file in %s)", dirs);
    }
  for (guint i = 0; self->modules != NULL && i < self->modules->len; i++)
    {
      const DshBackendModule *module = self->modules->pdata[i];

      if (module->refused_reason != NULL)
        g_string_append_printf (cause, "; %s: refused: %s",
                                module->name != NULL ? module->name : module->path,
                                module->refused_reason);
    }
  for (guint i = 0; self->candidates != NULL && i < self->candidates->len; i++)
    {
      const Candidate *c = self->candidates->pdata[i];

      if (c->probe == PROBE_FAILED && c->probe_detail != NULL &&
          (self->selection_failure == NULL || strstr (self->selection_failure,
                                                      c->probe_detail) == NULL))
        g_string_append_printf (cause, "; %s: %s", c->module->name, c->probe_detail);
    }
  g_mutex_unlock (&self->lock);
  return g_string_free (cause, FALSE);
}

static Candidate *
ensure_selected (DshBackendSelector *self, const char *mode, GError **error)
{
  Candidate *selected;

  g_mutex_lock (&self->lock);
  select_lean_locked (self);
  selected = self->selected;
  g_mutex_unlock (&self->lock);

  if (selected == NULL)
    {
      g_autofree char *cause = selection_cause (self);
      g_autofree char *text = dsh_text_unavailable_cause (mode, cause);

      g_set_error_literal (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_UNAVAILABLE, text);
    }
  return selected;
}

/* The candidate's dialect, copied out of its module once (by whichever thread comes first). */
static DshDialect *
candidate_dialect (Candidate *candidate)
{
  DshDialect *dialect = g_atomic_pointer_get (&candidate->dialect);

  if (dialect == NULL)
    {
      dialect = dsh_backend_descriptor_dialect_new (candidate->module->descriptor);
      if (!g_atomic_pointer_compare_and_exchange (&candidate->dialect, NULL, dialect))
        {
          dsh_dialect_unref (dialect);
          dialect = g_atomic_pointer_get (&candidate->dialect);
        }
    }
  return dialect;
}

DshConfinement *
dsh_backend_selector_confine (DshBackendSelector *self,
                              const char *const *argv,
                              const DshSandboxPolicy *policy,
                              GError **error)
{
  const char *mode = dsh_sandbox_mode_to_string (policy->mode);
  g_autoptr (GError) local_error = NULL;
  DshConfinement *confinement;
  g_autoptr (DshSandboxPolicy) pinned = NULL;
  Candidate *selected;
  DshBackendCall call;

  /* A caller that has not resolved and checked the roots of this call gets that done here,
   * once: the backend receives exactly the strings that were checked. */
  if (policy->mode == DSH_SANDBOX_MODE_WORKSPACE_WRITE && policy->writable_roots == NULL)
    {
      pinned = dsh_sandbox_policy_copy (policy);
      if (!dsh_roots_pin (pinned, NULL, NULL, error))
        return NULL;
      policy = pinned;
    }

  selected = ensure_selected (self, mode, error);
  if (selected == NULL)
    return NULL;

  if (!dsh_backend_selector_call_confine (self, selected->module, argv, policy, &call,
                                          &local_error))
    {
      g_autofree char *text = dsh_text_unavailable_cause (mode, local_error->message);

      g_set_error_literal (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_UNAVAILABLE, text);
      dsh_backend_call_clear (&call);
      return NULL;
    }

  confinement = dsh_backend_call_to_confinement_in (&call, selected->module->name,
                                                    candidate_dialect (selected));
  dsh_backend_call_clear (&call);
  return confinement;
}

const char *
dsh_backend_selector_get_selected (DshBackendSelector *self, const char *mode, GError **error)
{
  Candidate *selected = ensure_selected (self, mode, error);

  return selected != NULL ? selected->module->name : NULL;
}

DshBackendModule *
dsh_backend_selector_selected_module (DshBackendSelector *self)
{
  DshBackendModule *module;

  g_mutex_lock (&self->lock);
  module = self->selected != NULL ? self->selected->module : NULL;
  g_mutex_unlock (&self->lock);
  return module;
}

GStrv
dsh_backend_selector_list_backends (DshBackendSelector *self)
{
  g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();

  g_mutex_lock (&self->lock);
  scan_modules (self);
  for (guint i = 0; i < self->candidates->len; i++)
    g_strv_builder_add (builder, ((Candidate *) self->candidates->pdata[i])->module->name);
  g_mutex_unlock (&self->lock);
  return g_strv_builder_end (builder);
}

DshConfinement *
dsh_backend_selector_dialect (DshBackendSelector *self, const char *name, GError **error)
{
  const char *const no_argv[] = { NULL };
  DshConfinement *confinement = NULL;
  Candidate *found = NULL;

  g_mutex_lock (&self->lock);
  /* The selected backend's own dialect needs none of the modules it was selected without. */
  if (self->only_selected_loaded && g_str_equal (self->selected->module->name, name))
    found = self->selected;
  else
    scan_modules (self);
  for (guint i = 0; i < self->candidates->len && found == NULL; i++)
    {
      Candidate *c = self->candidates->pdata[i];

      if (g_str_equal (c->module->name, name))
        found = c;
    }
  if (found != NULL)
    confinement = dsh_confinement_new_in_dialect (no_argv, name, DSH_ENFORCEMENT_FULL, NULL,
                                                  candidate_dialect (found));
  g_mutex_unlock (&self->lock);
  if (confinement == NULL)
    g_set_error (error, DSH_SANDBOX_ERROR, DSH_SANDBOX_ERROR_INVALID_ARGUMENT,
                 "no backend \"%s\" is loaded here", name);
  return confinement;
}

/* Whether the cache file at path lies beneath a directory some call granted: that call's command
 * could have written an entry listing the chain in another order, steering later calls to
 * another module. Without a record only the default place, inside the record's own directory,
 * is trusted, as an overridden module directory is not. */
static gboolean
probe_cache_is_granted (const char *path)
{
  g_autofree char *record = dsh_root_grants_default_dir ();
  g_autoptr (DshRootGrants) grants = dsh_root_grants_open (record, NULL);
  g_autofree char *dir = g_path_get_dirname (path);
  const char *dirs[] = { dir, NULL };
  g_auto (GStrv) granted = NULL;

  if (grants == NULL)
    {
      g_autofree char *usual = dsh_probe_cache_default_path ();

      return usual == NULL || !g_str_equal (usual, path);
    }
  granted = dsh_roots_granted_above_dirs (grants, dirs);
  return granted[0] != NULL;
}

void
dsh_backend_selector_set_probe_cache (DshBackendSelector *self, const char *path)
{
  gboolean granted = path != NULL && probe_cache_is_granted (path);

  g_mutex_lock (&self->lock);
  g_free (self->probe_cache_path);
  self->probe_cache_path = g_strdup (path);
  self->probe_cache_granted = granted;
  g_mutex_unlock (&self->lock);
}

/* The module and helper directories beneath a directory some call granted: that call's command
 * could have put a module or a helper there, so they are as untrusted as the caller's own
 * roots. The installed directories too: this installation refuses no root above them when
 * another installation's call, or an uninstalled build's, grants one. Without a record a
 * directory named by DSH_SANDBOX_BACKEND_DIR is untrusted as a whole; the installed ones stay
 * trusted then, for read-only calls run without a record (no call can grant while it is
 * unreadable). The files are then opened without following a symlink, so a path asked about
 * is the path loaded. */
static char *
record_stamp (const char *record)
{
  GString *stamp = g_string_new (NULL);

  dsh_platform_append_file_identity (stamp, record);
  return g_string_free (stamp, FALSE);
}

static GStrv
granted_code_dirs (DshBackendSelector *self)
{
  g_autofree char *record = dsh_root_grants_default_dir ();
  g_autoptr (DshRootGrants) grants = NULL;
  g_autoptr (GStrvBuilder) dirs = g_strv_builder_new ();

  /* Taken before the record is read: a grant made meanwhile moves it, and is asked again. */
  g_free (self->record_stamp);
  self->record_stamp = record_stamp (record);
  grants = dsh_root_grants_open (record, NULL);

  if (grants == NULL)
    {
      g_autoptr (GStrvBuilder) untrusted = g_strv_builder_new ();

      g_autofree char *canonical = self->backend_dir_overridden
                                     ? dsh_canonical_path (self->backend_dirs[0])
                                     : NULL;

      if (canonical != NULL)
        g_strv_builder_add (untrusted, canonical);
      return g_strv_builder_end (untrusted);
    }
  if (self->backend_dirs != NULL)
    g_strv_builder_addv (dirs, (const char **) self->backend_dirs);
  if (self->helper_dirs != NULL)
    g_strv_builder_addv (dirs, (const char **) self->helper_dirs);
  {
    g_auto (GStrv) all = g_strv_builder_end (dirs);

    return dsh_roots_granted_above_dirs (grants, (const char *const *) all);
  }
}

/* caller_roots (taken), then the granted code directories. */
static GStrv
with_granted_code_dirs (DshBackendSelector *self, GStrv caller_roots)
{
  g_autoptr (GStrvBuilder) builder = NULL;

  if (self->granted_code_dirs[0] == NULL)
    return caller_roots != NULL ? caller_roots : g_new0 (char *, 1);
  builder = g_strv_builder_new ();
  if (caller_roots != NULL)
    g_strv_builder_addv (builder, (const char **) caller_roots);
  g_strv_builder_addv (builder, (const char **) self->granted_code_dirs);
  g_strfreev (caller_roots);
  return g_strv_builder_end (builder);
}

void
dsh_backend_selector_take_untrusted_roots (DshBackendSelector *self, GStrv canonical_roots)
{
  canonical_roots = with_granted_code_dirs (self, canonical_roots);
  g_mutex_lock (&self->lock);
  g_strfreev (self->untrusted_roots);
  self->untrusted_roots = canonical_roots;
  g_mutex_unlock (&self->lock);
}

void
dsh_backend_selector_set_untrusted_roots (DshBackendSelector *self, const char *const *roots)
{
  g_autoptr (GStrvBuilder) builder = NULL;

  if (roots == NULL)
    {
      dsh_backend_selector_take_untrusted_roots (self, NULL);
      return;
    }
  builder = g_strv_builder_new ();
  for (gsize i = 0; roots[i] != NULL; i++)
    {
      g_autofree char *canonical = dsh_canonical_path (roots[i]);

      g_strv_builder_add (builder, canonical);
    }
  dsh_backend_selector_take_untrusted_roots (self, g_strv_builder_end (builder));
}

DshBackendSelector *
dsh_backend_selector_new (const char *const *backend_dirs, const char *const *helper_dirs)
{
  DshBackendSelector *self = g_new0 (DshBackendSelector, 1);
  const char *dir_override = g_getenv ("DSH_SANDBOX_BACKEND_DIR");
  const char *backend = g_getenv ("DSH_SANDBOX_BACKEND");

  g_mutex_init (&self->lock);
  g_mutex_init (&self->trust_lock);
  if (dir_override != NULL && dir_override[0] != '\0' && dsh_platform_is_privileged ())
    {
      /* A setuid caller must not let its invoker choose the code it loads. */
      self->backend_dir_ignored = TRUE;
      dir_override = NULL;
    }
  if (dir_override != NULL && dir_override[0] != '\0')
    {
      const char *dirs[] = { dir_override, NULL };

      self->backend_dirs = g_strdupv ((char **) dirs);
      self->backend_dir_overridden = TRUE;
    }
  else
    self->backend_dirs = g_strdupv ((char **) backend_dirs);

  self->helper_dirs = g_strdupv ((char **) helper_dirs);
  if (backend != NULL && backend[0] != '\0')
    self->backend_override = g_strdup (backend);
  /* A caller that never names roots of its own still must not load a module an earlier call's
   * command could have planted. */
  self->granted_code_dirs = granted_code_dirs (self);
  self->untrusted_roots = with_granted_code_dirs (self, NULL);
  return self;
}

DshBackendSelector *
dsh_backend_selector_new_like (DshBackendSelector *self)
{
  DshBackendSelector *like = g_new0 (DshBackendSelector, 1);

  /* The environment is not read again: a generation changes the modules, not the settings. */
  g_mutex_init (&like->lock);
  g_mutex_init (&like->trust_lock);
  g_mutex_lock (&self->lock);
  like->backend_dirs = g_strdupv (self->backend_dirs);
  like->helper_dirs = g_strdupv (self->helper_dirs);
  like->backend_override = g_strdup (self->backend_override);
  like->backend_dir_ignored = self->backend_dir_ignored;
  like->backend_dir_overridden = self->backend_dir_overridden;
  like->probe_cache_path = g_strdup (self->probe_cache_path);
  like->probe_cache_granted = self->probe_cache_granted;
  /* The caller's roots as they are; the code directories asked again, since a generation
   * loads its modules anew. */
  like->granted_code_dirs = granted_code_dirs (like);
  {
    g_autoptr (GStrvBuilder) caller = g_strv_builder_new ();
    guint n = g_strv_length (self->untrusted_roots) - g_strv_length (self->granted_code_dirs);

    for (guint i = 0; i < n; i++)
      g_strv_builder_add (caller, self->untrusted_roots[i]);
    like->untrusted_roots = with_granted_code_dirs (like, g_strv_builder_end (caller));
  }
  g_mutex_unlock (&self->lock);
  return like;
}

void
dsh_backend_selector_free (DshBackendSelector *self)
{
  if (self == NULL)
    return;
  /* Candidates borrow modules, so they go first; closing the modules comes last. */
  g_clear_pointer (&self->candidates, g_ptr_array_unref);
  g_clear_pointer (&self->modules, g_ptr_array_unref);
  g_strfreev (self->backend_dirs);
  g_strfreev (self->helper_dirs);
  g_free (self->backend_override);
  g_free (self->selection_failure);
  g_free (self->probe_cache_path);
  g_strfreev (self->untrusted_roots);
  g_strfreev (self->granted_code_dirs);
  g_free (self->record_stamp);
  g_mutex_clear (&self->lock);
  g_mutex_clear (&self->trust_lock);
  g_free (self);
}
