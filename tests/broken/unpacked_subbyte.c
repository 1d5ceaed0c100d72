/* Broken: keeps S4 buffers one element per byte in device memory (it makes
 * them as U8 buffers and reports S4), where XLA packs them, so DLPack
 * consumers of its exports read the wrong values. Caught by
 * subbyte.storage. */
#include <pthread.h>

#include "shim.h"

#define SHIM_MAX 256
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static PJRT_Buffer *unpacked[SHIM_MAX]; /* buffers made as U8 for S4 */

static PJRT_Error *from_host(PJRT_Client_BufferFromHostBuffer_Args *args) {
    bool s4 = args->type == PJRT_Buffer_Type_S4;
    if (s4)
        args->type = PJRT_Buffer_Type_U8;
    PJRT_Error *err = shim_real()->PJRT_Client_BufferFromHostBuffer(args);
    if (s4) {
        args->type = PJRT_Buffer_Type_S4;
        pthread_mutex_lock(&mu);
        for (size_t i = 0; err == NULL && i < SHIM_MAX; i++)
            if (unpacked[i] == NULL) {
                unpacked[i] = args->buffer;
                break;
            }
        pthread_mutex_unlock(&mu);
    }
    return err;
}

static PJRT_Error *element_type(PJRT_Buffer_ElementType_Args *args) {
    PJRT_Error *err = shim_real()->PJRT_Buffer_ElementType(args);
    pthread_mutex_lock(&mu);
    for (size_t i = 0; err == NULL && i < SHIM_MAX; i++)
        if (unpacked[i] == args->buffer)
            args->type = PJRT_Buffer_Type_S4;
    pthread_mutex_unlock(&mu);
    return err;
}

static PJRT_Error *destroy(PJRT_Buffer_Destroy_Args *args) {
    pthread_mutex_lock(&mu);
    for (size_t i = 0; i < SHIM_MAX; i++)
        if (unpacked[i] == args->buffer)
            unpacked[i] = NULL;
    pthread_mutex_unlock(&mu);
    return shim_real()->PJRT_Buffer_Destroy(args);
}

const PJRT_Api *shim_install(PJRT_Api *api) {
    api->PJRT_Client_BufferFromHostBuffer = from_host;
    api->PJRT_Buffer_ElementType = element_type;
    api->PJRT_Buffer_Destroy = destroy;
    return api;
}
