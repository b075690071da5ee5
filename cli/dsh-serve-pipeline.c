/* dsh-serve-pipeline.c — serve's confines answered on more than one thread when a client sends
 * them faster than one core answers, the answers still written in the order of the requests.
 *
 * The thread that reads the requests is one of the threads answering them: it hands a request
 * to a worker while the workers have room for it, and answers it itself otherwise, so that as
 * many threads run as there are cores meant to answer, none of them only waiting to hand over.
 * Each request is queued in order before it is answered; whichever thread finishes the oldest
 * one writes every finished answer at the head of the queue, and the answers reach the client
 * once no request is left unanswered (its own buffer full, at the latest). One lock guards it
 * all, and a thread is woken only when it waits. A call's roots are resolved on its own thread
 * as on any other: nothing of one call is shared with another.
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

/* Requests handed to each worker and not answered yet, at most: enough that a worker does not
 * run dry while the reading thread answers one itself or is descheduled. */
#define PER_WORKER 24

/* Jobs kept for the next requests once written, at most: their answer buffers are reused. */
#define SPARE_JOBS MAX_QUEUED

typedef struct {
  DshServeRequest request;
  DshServeGeneration *generation;
  /* Kept from one request to the next. */
  GString *answer;
  gboolean answered;
} Job;

struct _DshServePipeline {
  GMutex lock;
  /* For the reading thread: the queue shrank to RESUME_QUEUED, or emptied with nothing left
   * being written. */
  GCond changed;
  gboolean reader_waits;
  /* For the workers: a job was handed to them, or they are to end. */
  GCond work;
  guint workers_waiting;
  gboolean ending;
  /* Jobs in the order of their requests; the head is the oldest unwritten one. */
  GQueue jobs;
  /* The jobs handed to the workers that none has started, oldest first. */
  GQueue handed;
  /* Jobs handed to the workers and not answered yet. */
  guint on_workers;
  /* A thread is writing answers it took from the head (outside the lock, so that a write that
   * waits for the client holds up no other thread); no other thread writes meanwhile. */
  gboolean writing;
  /* Written jobs, for the next requests. */
  GQueue spare;
  GPtrArray *threads;
  FILE *out;
  DshServeAnswerFunc answer;
};

static void
job_free (Job *job)
{
  dsh_serve_request_clear (&job->request);
  g_clear_pointer (&job->generation, dsh_serve_generation_unref);
  g_string_free (job->answer, TRUE);
  g_free (job);
}

/* A written job done with: kept for a next request, or freed. Called locked. */
static void
job_recycle (DshServePipeline *self, Job *job)
{
  if (self->spare.length >= SPARE_JOBS)
    {
      job_free (job);
      return;
    }
  g_string_truncate (job->answer, 0);
  job->answered = FALSE;
  g_queue_push_head (&self->spare, job);
}

/* Nothing queued and nothing being written. Called locked. */
static gboolean
is_idle (DshServePipeline *self)
{
  return g_queue_is_empty (&self->jobs) && !self->writing;
}

static void
wake_reader (DshServePipeline *self)
{
  if (self->reader_waits)
    g_cond_signal (&self->changed);
}

/* Called locked, a job's answer just set: unless another thread is writing already, writes
 * every finished answer at the head of the queue, in order, and returns locked. */
static void
write_finished (DshServePipeline *self)
{
  if (self->writing)
    return; /* that thread finds this answer when it looks again */
  self->writing = TRUE;
  for (;;)
    {
      GQueue finished = G_QUEUE_INIT;
      guint before = self->jobs.length;
      gboolean emptied;
      Job *job;

      while ((job = g_queue_peek_head (&self->jobs)) != NULL && job->answered)
        g_queue_push_tail (&finished, g_queue_pop_head (&self->jobs));
      if (g_queue_is_empty (&finished))
        break;
      emptied = g_queue_is_empty (&self->jobs);
      if (before > RESUME_QUEUED && self->jobs.length <= RESUME_QUEUED)
        wake_reader (self);
      g_mutex_unlock (&self->lock);

      for (GList *l = finished.head; l != NULL; l = l->next)
        {
          job = l->data;
          g_string_append_c (job->answer, '\n');
          fwrite (job->answer->str, 1, job->answer->len, self->out);
          /* Its request and generation go now, not when a next request reuses it. */
          dsh_serve_request_clear (&job->request);
          g_clear_pointer (&job->generation, dsh_serve_generation_unref);
        }
      /* Every answer still buffered is followed by one still being made, whose thread writes
       * again; the last one sends them all. */
      if (emptied)
        fflush (self->out);
      g_mutex_lock (&self->lock);
      while ((job = g_queue_pop_head (&finished)) != NULL)
        job_recycle (self, job);
    }
  self->writing = FALSE;
  if (g_queue_is_empty (&self->jobs))
    wake_reader (self);
}

/* Called locked; unlocks while the answer is made. */
static void
answer_job (DshServePipeline *self, Job *job)
{
  g_mutex_unlock (&self->lock);
  self->answer (job->generation, &job->request, job->answer);
  g_mutex_lock (&self->lock);
  job->answered = TRUE;
  write_finished (self);
}

static gpointer
work (gpointer data)
{
  DshServePipeline *self = data;

  g_mutex_lock (&self->lock);
  for (;;)
    {
      Job *job = g_queue_pop_head (&self->handed);

      if (job == NULL)
        {
          if (self->ending)
            break;
          self->workers_waiting++;
          g_cond_wait (&self->work, &self->lock);
          self->workers_waiting--;
          continue;
        }
      answer_job (self, job);
      self->on_workers--;
    }
  g_mutex_unlock (&self->lock);
  return NULL;
}

DshServePipeline *
dsh_serve_pipeline_new (FILE *out, guint threads, DshServeAnswerFunc answer)
{
  DshServePipeline *self = g_new0 (DshServePipeline, 1);

  g_return_val_if_fail (threads >= 2, NULL);

  g_mutex_init (&self->lock);
  g_cond_init (&self->changed);
  g_cond_init (&self->work);
  g_queue_init (&self->jobs);
  g_queue_init (&self->handed);
  g_queue_init (&self->spare);
  self->out = out;
  self->answer = answer;
  /* The reading thread answers too. */
  self->threads = g_ptr_array_new ();
  for (guint i = 0; i + 1 < threads; i++)
    g_ptr_array_add (self->threads, g_thread_new ("dsh-serve-worker", work, self));
  return self;
}

gboolean
dsh_serve_pipeline_is_idle (DshServePipeline *self)
{
  gboolean idle;

  g_mutex_lock (&self->lock);
  idle = is_idle (self);
  g_mutex_unlock (&self->lock);
  return idle;
}

void
dsh_serve_pipeline_push (DshServePipeline *self,
                         DshServeGeneration *generation,
                         DshServeRequest *request)
{
  Job *job;

  g_mutex_lock (&self->lock);
  job = g_queue_pop_head (&self->spare);
  if (job == NULL)
    {
      job = g_new0 (Job, 1);
      job->answer = g_string_sized_new (4096);
    }
  job->request = *request;
  memset (request, 0, sizeof (*request));
  job->generation = dsh_serve_generation_ref (generation);
  if (self->jobs.length >= MAX_QUEUED)
    {
      self->reader_waits = TRUE;
      while (self->jobs.length > RESUME_QUEUED)
        g_cond_wait (&self->changed, &self->lock);
      self->reader_waits = FALSE;
    }
  g_queue_push_tail (&self->jobs, job);
  if (self->on_workers < self->threads->len * PER_WORKER)
    {
      self->on_workers++;
      g_queue_push_tail (&self->handed, job);
      if (self->workers_waiting > 0)
        g_cond_signal (&self->work);
    }
  else
    answer_job (self, job);
  g_mutex_unlock (&self->lock);
}

void
dsh_serve_pipeline_drain (DshServePipeline *self)
{
  g_mutex_lock (&self->lock);
  self->reader_waits = TRUE;
  while (!is_idle (self))
    g_cond_wait (&self->changed, &self->lock);
  self->reader_waits = FALSE;
  g_mutex_unlock (&self->lock);
}

void
dsh_serve_pipeline_free (DshServePipeline *self)
{
  if (self == NULL)
    return;
  dsh_serve_pipeline_drain (self);
  g_mutex_lock (&self->lock);
  self->ending = TRUE;
  g_cond_broadcast (&self->work);
  g_mutex_unlock (&self->lock);
  for (guint i = 0; i < self->threads->len; i++)
    g_thread_join (self->threads->pdata[i]);
  g_ptr_array_unref (self->threads);
  g_queue_clear_full (&self->spare, (GDestroyNotify) job_free);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->changed);
  g_cond_clear (&self->work);
  g_free (self);
}
