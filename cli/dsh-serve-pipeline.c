/* dsh-serve-pipeline.c — serve's confines answered on more than one thread when a client sends
 * them faster than one core answers, the answers still written in the order of the requests.
 *
 * Each request is queued in order before a worker takes it; whichever thread finishes the
 * oldest one writes every finished answer at the head of the queue. A call's roots are resolved
 * on its own worker as they are on the main thread: nothing of one call is shared with another.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-serve-pipeline.h"

#include <string.h>

/* Requests queued but not answered yet, at most: a client that writes faster than the answers
 * are read waits instead of filling memory. */
#define MAX_QUEUED 64

typedef struct {
  DshServeRequest request;
  DshServeGeneration *generation;
  char *answer;
} Job;

struct _DshServePipeline {
  GMutex lock;
  GCond changed;
  /* Jobs in the order of their requests; the head is the oldest unwritten one. */
  GQueue jobs;
  GThreadPool *pool;
  FILE *out;
  DshServeAnswerFunc answer;
};

static void
job_free (Job *job)
{
  dsh_serve_request_clear (&job->request);
  dsh_serve_generation_unref (job->generation);
  g_free (job->answer);
  g_free (job);
}

/* Writes the finished answers at the head of the queue. Called locked. */
static void
write_finished (DshServePipeline *self)
{
  gboolean wrote = FALSE;
  Job *job;

  while ((job = g_queue_peek_head (&self->jobs)) != NULL && job->answer != NULL)
    {
      fputs (job->answer, self->out);
      fputc ('\n', self->out);
      g_queue_pop_head (&self->jobs);
      job_free (job);
      wrote = TRUE;
    }
  if (wrote)
    {
      fflush (self->out);
      g_cond_broadcast (&self->changed);
    }
}

static void
run_job (gpointer data, gpointer user_data)
{
  DshServePipeline *self = user_data;
  Job *job = data;
  char *answer = self->answer (job->generation, &job->request);

  g_mutex_lock (&self->lock);
  job->answer = answer;
  write_finished (self);
  g_mutex_unlock (&self->lock);
}

DshServePipeline *
dsh_serve_pipeline_new (FILE *out, guint threads, DshServeAnswerFunc answer)
{
  DshServePipeline *self = g_new0 (DshServePipeline, 1);

  g_mutex_init (&self->lock);
  g_cond_init (&self->changed);
  g_queue_init (&self->jobs);
  self->out = out;
  self->answer = answer;
  self->pool = g_thread_pool_new (run_job, self, (int) threads, FALSE, NULL);
  return self;
}

gboolean
dsh_serve_pipeline_is_idle (DshServePipeline *self)
{
  gboolean idle;

  g_mutex_lock (&self->lock);
  idle = g_queue_is_empty (&self->jobs);
  g_mutex_unlock (&self->lock);
  return idle;
}

void
dsh_serve_pipeline_push (DshServePipeline *self,
                         DshServeGeneration *generation,
                         DshServeRequest *request)
{
  Job *job = g_new0 (Job, 1);

  job->request = *request;
  memset (request, 0, sizeof (*request));
  job->generation = dsh_serve_generation_ref (generation);

  g_mutex_lock (&self->lock);
  while (self->jobs.length >= MAX_QUEUED)
    g_cond_wait (&self->changed, &self->lock);
  g_queue_push_tail (&self->jobs, job);
  g_mutex_unlock (&self->lock);
  g_thread_pool_push (self->pool, job, NULL);
}

void
dsh_serve_pipeline_drain (DshServePipeline *self)
{
  g_mutex_lock (&self->lock);
  while (!g_queue_is_empty (&self->jobs))
    g_cond_wait (&self->changed, &self->lock);
  g_mutex_unlock (&self->lock);
}

void
dsh_serve_pipeline_free (DshServePipeline *self)
{
  if (self == NULL)
    return;
  dsh_serve_pipeline_drain (self);
  g_thread_pool_free (self->pool, FALSE, TRUE);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->changed);
  g_free (self);
}
