/*
 * ze_sim: the command engine. Each command queue (and each immediate
 * command list) has a worker thread that runs its jobs in submission order:
 * for each command it waits for the command's wait events, sleeps the
 * configured delay (ZE_SIM_DELAY_US), does the work in host memory (f) and
 * signals the command's event; after a job it signals the job's fence. So
 * events and fences complete later than the call that queued them.
 *
 * Fork: a child process has none of the parent's threads, but Intel's
 * runtime keeps command lists and queues cached across clients (and
 * `pjrt-dlpack check` forks after releasing a client). So ze_sim holds its
 * lock across fork() and, in the child, starts a new worker for every
 * queue, putting back first the job the parent's worker was running (it
 * resumes at the command that was in progress).
 */
#include "zs.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

struct zs_job {
    struct zs_job *next;
    struct zs_cmd *cmds;
    size_t n;
    ze_fence_handle_t fence;
    size_t ran; /* commands done, under zs_lock */
};

struct ze_sim_queue {
    uint32_t magic;
    ze_device_handle_t device;
    pthread_t thread;
    struct zs_job *head, *tail;   /* under zs_lock */
    struct zs_job *running;       /* popped, not finished */
    struct zs_cl_queue *cl_queue; /* the worker's OpenCL queue, for launches */
    uint64_t submitted, completed;
    bool stop;
    struct ze_sim_queue *next_queue; /* every live queue, for fork */
};

static struct ze_sim_queue *zs_queues; /* under zs_lock */

bool zs_queue_ok(const struct ze_sim_queue *q) {
    return q && q->magic == ZS_MAGIC_QUEUE;
}

static void zs_sleep_ns(uint64_t ns) {
    struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    while (ns && nanosleep(&ts, &ts))
        ;
}

static void zs_copy_region(const struct zs_cmd *c) {
    const struct zs_region *d = &c->dst_region, *s = &c->src_region;
    for (uint32_t z = 0; z < d->box.depth; z++) {
        for (uint32_t y = 0; y < d->box.height; y++) {
            size_t doff = (size_t)(d->box.originZ + z) * d->slice_pitch +
                          (size_t)(d->box.originY + y) * d->pitch + d->box.originX;
            size_t soff = (size_t)(s->box.originZ + z) * s->slice_pitch +
                          (size_t)(s->box.originY + y) * s->pitch + s->box.originX;
            memmove((char *)c->dst + doff, (const char *)c->src + soff, d->box.width);
        }
    }
}

static void zs_fill(const struct zs_cmd *c) {
    unsigned char *dst = c->dst;
    for (size_t i = 0; i < c->size; i += c->pattern_size) {
        size_t n = c->size - i < c->pattern_size ? c->size - i : c->pattern_size;
        memcpy(dst + i, c->pattern, n);
    }
}

static void zs_query_timestamps(const struct zs_cmd *c) {
    for (uint32_t i = 0; i < c->num_targets; i++) {
        ze_kernel_timestamp_result_t r;
        if (zeEventQueryKernelTimestamp(c->targets[i], &r) != ZE_RESULT_SUCCESS)
            memset(&r, 0, sizeof r);
        size_t off = c->offsets ? c->offsets[i] : i * sizeof r;
        memcpy((char *)c->dst + off, &r, sizeof r);
    }
}

static void zs_cmd_run(const struct zs_cmd *c, struct ze_sim_queue *q) {
    for (uint32_t i = 0; i < c->num_waits; i++)
        zs_wait_flag(&c->waits[i]->signaled, UINT64_MAX);
    zs_sleep_ns(zs_config.delay_ns);
    switch (c->kind) {
    case ZS_CMD_COPY:
        memmove(c->dst, c->src, c->size);
        break;
    case ZS_CMD_COPY_REGION:
        zs_copy_region(c);
        break;
    case ZS_CMD_FILL:
        zs_fill(c);
        break;
    case ZS_CMD_BARRIER:
        break;
    case ZS_CMD_RESET_EVENT:
        zs_event_set(c->target, false);
        break;
    case ZS_CMD_WRITE_TIMESTAMP: {
        uint64_t t = zs_ticks(zs_now_ns(), ZS_TIMESTAMP_BITS);
        memcpy(c->dst, &t, sizeof t);
        break;
    }
    case ZS_CMD_QUERY_TIMESTAMPS:
        zs_query_timestamps(c);
        break;
    case ZS_CMD_LAUNCH:
        zs_launch_run(&c->launch, &q->cl_queue);
        break;
    }
    if (c->signal)
        zs_event_set(c->signal, true);
}

static bool zs_queue_has_work(const void *arg) {
    const struct ze_sim_queue *q = arg;
    return q->head || q->stop;
}

static void zs_job_free(struct zs_job *job) {
    for (size_t i = 0; i < job->n; i++)
        zs_cmd_free(&job->cmds[i]);
    free(job->cmds);
    free(job);
}

/* Runs jobs in order, one command at a time: job->ran counts the commands
 * done (under zs_lock), so that a forked child's worker resumes the job at
 * the command that was in progress, and a job is freed only once it is no
 * longer the queue's running job. */
static void *zs_worker(void *arg) {
    struct ze_sim_queue *q = arg;
    pthread_mutex_lock(&zs_lock);
    for (;;) {
        zs_wait_locked(zs_queue_has_work, q, UINT64_MAX);
        struct zs_job *job = q->head;
        if (!job)
            break; /* stop, and nothing left */
        q->head = job->next;
        if (!q->head)
            q->tail = NULL;
        q->running = job;
        while (job->ran < job->n) {
            const struct zs_cmd *cmd = &job->cmds[job->ran];
            pthread_mutex_unlock(&zs_lock);
            zs_cmd_run(cmd, q);
            pthread_mutex_lock(&zs_lock);
            job->ran++;
        }
        if (job->fence) {
            job->fence->signaled = true;
            if (--job->fence->holds == 0 && job->fence->destroyed)
                free(job->fence);
        }
        q->completed++;
        q->running = NULL;
        pthread_cond_broadcast(&zs_changed);
        pthread_mutex_unlock(&zs_lock);
        zs_job_free(job);
        pthread_mutex_lock(&zs_lock);
    }
    pthread_mutex_unlock(&zs_lock);
    return NULL;
}

ze_result_t zs_queue_new(ze_device_handle_t device, struct ze_sim_queue **out) {
    struct ze_sim_queue *q = calloc(1, sizeof *q);
    if (!q)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    q->magic = ZS_MAGIC_QUEUE;
    q->device = device;
    pthread_mutex_lock(&zs_lock);
    int err = pthread_create(&q->thread, NULL, zs_worker, q);
    if (!err) {
        q->next_queue = zs_queues;
        zs_queues = q;
    }
    pthread_mutex_unlock(&zs_lock);
    if (err) {
        free(q);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    *out = q;
    return ZE_RESULT_SUCCESS;
}

ze_result_t zs_queue_submit(struct ze_sim_queue *q, struct zs_cmd *cmds, size_t n,
                            ze_fence_handle_t fence) {
    struct zs_job *job = calloc(1, sizeof *job);
    if (!job) {
        for (size_t i = 0; i < n; i++)
            zs_cmd_free(&cmds[i]);
        free(cmds);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    *job = (struct zs_job){NULL, cmds, n, fence, 0};
    pthread_mutex_lock(&zs_lock);
    if (fence) {
        fence->signaled = false;
        fence->holds++; /* let go by the worker, after it signals it */
    }
    if (q->tail)
        q->tail->next = job;
    else
        q->head = job;
    q->tail = job;
    q->submitted++;
    pthread_cond_broadcast(&zs_changed);
    pthread_mutex_unlock(&zs_lock);
    return ZE_RESULT_SUCCESS;
}

static bool zs_queue_idle(const void *arg) {
    const struct ze_sim_queue *q = arg;
    return q->completed == q->submitted;
}

ze_result_t zs_queue_sync(struct ze_sim_queue *q, uint64_t timeout_ns) {
    pthread_mutex_lock(&zs_lock);
    ze_result_t rc = zs_wait_locked(zs_queue_idle, q, timeout_ns);
    pthread_mutex_unlock(&zs_lock);
    return rc;
}

/* Finishes what was submitted, then ends the worker. */
void zs_queue_free(struct ze_sim_queue *q) {
    pthread_mutex_lock(&zs_lock);
    for (struct ze_sim_queue **p = &zs_queues; *p; p = &(*p)->next_queue) {
        if (*p == q) {
            *p = q->next_queue;
            break;
        }
    }
    q->stop = true;
    pthread_cond_broadcast(&zs_changed);
    pthread_mutex_unlock(&zs_lock);
    pthread_join(q->thread, NULL);
    zs_launch_queue_free(q->cl_queue);
    q->magic = 0;
    free(q);
}

static void zs_fork_prepare(void) {
    pthread_mutex_lock(&zs_lock);
}

static void zs_fork_parent(void) {
    pthread_mutex_unlock(&zs_lock);
}

static void zs_fork_child(void) {
    pthread_cond_init(&zs_changed, NULL);
    for (struct ze_sim_queue *q = zs_queues; q; q = q->next_queue) {
        if (q->running) {
            q->running->next = q->head;
            q->head = q->running;
            if (!q->tail)
                q->tail = q->running;
            q->running = NULL;
        }
        if (pthread_create(&q->thread, NULL, zs_worker, q))
            q->stop = true; /* no worker: its work never completes */
    }
    pthread_mutex_unlock(&zs_lock);
}

void zs_engine_init(void) {
    pthread_atfork(zs_fork_prepare, zs_fork_parent, zs_fork_child);
}

/* Holds (delta 1) or lets go of (-1) every event the command names; an
 * event destroyed meanwhile goes with its last hold (zs.h). */
static void zs_cmd_hold(const struct zs_cmd *c, int delta) {
    ze_event_handle_t one[2] = {c->signal, c->target};
    pthread_mutex_lock(&zs_lock);
    for (uint32_t i = 0; i < 2 + c->num_waits + c->num_targets; i++) {
        ze_event_handle_t e = i < 2                  ? one[i]
                              : i < 2 + c->num_waits ? c->waits[i - 2]
                                                     : c->targets[i - 2 - c->num_waits];
        if (!e)
            continue;
        e->holds += (uint32_t)delta;
        if (e->holds == 0 && e->destroyed)
            free(e);
    }
    pthread_mutex_unlock(&zs_lock);
}

ze_result_t zs_cmd_clone(struct zs_cmd *dst, const struct zs_cmd *src) {
    *dst = *src;
    dst->waits = NULL;
    dst->targets = NULL;
    dst->offsets = NULL;
    bool offsets = src->offsets && src->num_targets;
    if ((src->num_waits && !(dst->waits = malloc(src->num_waits * sizeof *dst->waits))) ||
        (src->num_targets && !(dst->targets = malloc(src->num_targets * sizeof *dst->targets))) ||
        (offsets && !(dst->offsets = malloc(src->num_targets * sizeof *dst->offsets)))) {
        free(dst->waits);
        free(dst->targets);
        *dst = (struct zs_cmd){0};
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    if (src->num_waits)
        memcpy(dst->waits, src->waits, src->num_waits * sizeof *dst->waits);
    if (src->num_targets)
        memcpy(dst->targets, src->targets, src->num_targets * sizeof *dst->targets);
    if (offsets)
        memcpy(dst->offsets, src->offsets, src->num_targets * sizeof *dst->offsets);
    if (src->kind == ZS_CMD_LAUNCH)
        zs_launch_retain(&src->launch); /* released by zs_cmd_free */
    zs_cmd_hold(dst, 1);
    return ZE_RESULT_SUCCESS;
}

void zs_cmd_free(struct zs_cmd *cmd) {
    zs_cmd_hold(cmd, -1);
    if (cmd->kind == ZS_CMD_LAUNCH)
        zs_launch_release(&cmd->launch);
    free(cmd->waits);
    free(cmd->targets);
    free(cmd->offsets);
    *cmd = (struct zs_cmd){0};
}
