/* Not broken: a correct plugin that, like XLA's (its thread pools), keeps
 * heap memory that only one of its own threads points to, for the whole
 * life of each client. A process forked while a client lives (the readers
 * of `pjrt-dlpack check` are) has no copy of that thread, so in the child
 * the memory is unreachable: a leak checker that follows the fork (valgrind
 * --trace-children=yes) calls it lost. `check` must pass under valgrind on
 * this plugin (the test cli_check_thread_memory.valgrind). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"

/* One holder for the one client a check creates at a time; a second client
 * while one lives gets none. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static PJRT_Client *owner;
static pthread_t holder;
static int stop;

static void *hold(void *arg) {
    (void)arg;
    char *volatile block = malloc(4096); /* on this thread's stack only */
    if (block != NULL)
        memset(block, 0x5A, 4096);
    pthread_mutex_lock(&mu);
    while (!stop)
        pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    free(block);
    return NULL;
}

static PJRT_Error *create(PJRT_Client_Create_Args *args) {
    PJRT_Error *err = shim_real()->PJRT_Client_Create(args);
    if (err != NULL)
        return err;
    pthread_mutex_lock(&mu);
    if (owner == NULL) {
        stop = 0;
        if (pthread_create(&holder, NULL, hold, NULL) == 0)
            owner = args->client;
    }
    pthread_mutex_unlock(&mu);
    return NULL;
}

static PJRT_Error *destroy(PJRT_Client_Destroy_Args *args) {
    pthread_mutex_lock(&mu);
    int mine = owner != NULL && owner == args->client;
    if (mine) {
        owner = NULL;
        stop = 1;
        pthread_cond_broadcast(&cv);
    }
    pthread_mutex_unlock(&mu);
    if (mine)
        pthread_join(holder, NULL);
    return shim_real()->PJRT_Client_Destroy(args);
}

const PJRT_Api *shim_install(PJRT_Api *api) {
    api->PJRT_Client_Create = create;
    api->PJRT_Client_Destroy = destroy;
    return api;
}
