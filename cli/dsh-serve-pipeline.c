/* dsh-serve-pipeline.c — serve's confines answered on more than one thread when a client sends
 * them faster than one core answers, the answers still written in the order of the requests.
 *
 * The thread that reads the requests is one of the threads answering them: it hands a request
 * to a worker while a worker has room for it, and answers it itself otherwise, so that as many
 * threads run as there are cores meant to answer, none of them only waiting to hand over. Each
 * request is queued in order before it is answered; whichever thread finishes the oldest one
 * writes every finished answer at the head of the queue, and the answers reach the client once
 * no request is left unanswered (its own buffer full, at the latest). A call's roots are
 * resolved on its own thread as on any other: nothing of one call is shared with another.
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "dsh-serve-pipeline.h"

#include <string.h>

/* Requests queued but not written yet, at most: a client that writes faster than the answers
 * are read waits instead of filling memory. It reads on once half of them are written, not
 * after each one. */
#define MAX_QUEUED 64
#define RESUME_QUEUED (MAX_QUEUED / 2)

/* Requests handed to each worker and not answered yet, at most: one being answered and the
 * next, so that a worker finishing one finds another without waiting for the reader. */
#define PER_WORKER 16

typedef struct {
  DshServeRequest request;
  DshServeGeneration *generation;
  char *answer;
} Job;

struct _DshServePipeline {
  GMutex lock;
  /* The queue shrank to RESUME_QUEUED, or emptied. */
  GCond changed;
  /* Jobs in the order of their requests; the head is the oldest unwritten one. */
  GQueue jobs;
  /* Jobs handed to the workers and not answered yet. */
  guint on_workers;
  guint workers;
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
  guint before = self->jobs.length;
  Job *job;

  while ((job = g_queue_peek_head (&self->jobs)) != NULL && job->answer != NULL)
    {
      fputs (job->answer, self->out);
      fputc ('\n', self->out);
      g_queue_pop_head (&self->jobs);
      job_free (job);
    }
  if (self->jobs.length == before)
    return;
  /* Every answer still buffered is followed by one still being made, whose thread writes
   * again; the last one sends them all. */
  if (g_queue_is_empty (&self->jobs))
    fflush (self->out);
  if (g_queue_is_empty (&self->jobs) ||
      (before > RESUME_QUEUED && self->jobs.length <= RESUME_QUEUED))
    g_cond_broadcast (&self->changed);
}

static void
finish (DshServePipeline *self, Job *job)
{
  char *answer = self->answer (job->generation, &job->request);

  g_mutex_lock (&self->lock);
  job->answer = answer;
  write_finished (self);
  g_mutex_unlock (&self->lock);
}

static void
run_job (gpointer data, gpointer user_data)
{
  DshServePipeline *self = user_data;
  Job *job = data;
  char *answer = self->answer (job->generation, &job->request);

  g_mutex_lock (&self->lock);
  job->answer = answer;
  self->on_workers--;
  write_finished (self);
  g_mutex_unlock (&self->lock);
}

DshServePipeline *
dsh_serve_pipeline_new (FILE *out, guint threads, DshServeAnswerFunc answer)
{
  DshServePipeline *self = g_new0 (DshServePipeline, 1);

  g_return_val_if_fail (threads >= 2, NULL);

  g_mutex_init (&self->lock);
  g_cond_init (&self->changed);
  g_queue_init (&self->jobs);
  self->out = out;
  self->answer = answer;
  /* The reading thread answers too. */
  self->workers = threads - 1;
  self->pool = g_thread_pool_new (run_job, self, (int) self->workers, FALSE, NULL);
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
  gboolean to_worker;

  job->request = *request;
  memset (request, 0, sizeof (*request));
  job->generation = dsh_serve_generation_ref (generation);

  g_mutex_lock (&self->lock);
  if (self->jobs.length >= MAX_QUEUED)
    {
      while (self->jobs.length > RESUME_QUEUED)
        g_cond_wait (&self->changed, &self->lock);
    }
  g_queue_push_tail (&self->jobs, job);
  to_worker = self->on_workers < self->workers * PER_WORKER;
  if (to_worker)
    self->on_workers++;
  g_mutex_unlock (&self->lock);
  if (to_worker)
    g_thread_pool_push (self->pool, job, NULL);
  else
    finish (self, job);
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
