/*
 * pjrt_ref_ext.h - the test extension of the reference PJRT plugin
 * (libpjrt_ref.so).
 *
 * The reference plugin links two extensions into PJRT_Api.extension_start:
 *
 *   1. the standard stream extension (PJRT_Extension_Type_Stream,
 *      PJRT_Stream_Extension in pjrt_dlpack/pjrt_abi.h), and
 *   2. this one, PJRT_Ref_Extension, which lets a test act like a consumer
 *      framework with its own streams, and inspect the plugin's allocation
 *      accounting.
 *
 * Find it by walking the chain from PJRT_Api.extension_start and comparing
 * `base.type` with PJRT_REF_EXTENSION_TYPE. The value is far outside the range
 * upstream assigns to PJRT_Extension_Type (small consecutive integers from 0),
 * so it cannot collide with a present or future upstream extension.
 *
 * Every function takes an args struct whose first field is struct_size; pass
 * the matching *_STRUCT_SIZE. A function returns NULL on success, otherwise a
 * PJRT_Error that the caller frees with PJRT_Api.PJRT_Error_Destroy.
 *
 * Streams exist only on platform "xpu". A stream handle (intptr_t) is either
 * a device's default stream (from the stream extension's get_stream) or an
 * extra stream made by create_stream; an unknown handle is INVALID_ARGUMENT.
 * Every stream is a worker thread that runs its queue in order. A stream has
 * a sticky error: the first failed wait queued on it (wait_stream on a buffer
 * whose ready event failed) is recorded, passed to every later host callback
 * and returned (then cleared) by synchronize_stream.
 */
#ifndef PJRT_REF_EXT_H
#define PJRT_REF_EXT_H

#include <stddef.h>
#include <stdint.h>

#include "pjrt_dlpack/pjrt_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ASCII "PJRF": the PJRT_Extension_Type of PJRT_Ref_Extension. */
#define PJRT_REF_EXTENSION_TYPE ((PJRT_Extension_Type)0x504A5246)
#define PJRT_REF_EXTENSION_VERSION 1

#define PJRT_REF_STRUCT_SIZE(type, last) (offsetof(type, last) + sizeof(((type *)0)->last))

/* Creates an extra stream on an xpu device. The stream lives until
 * destroy_stream or until its client is destroyed. */
typedef struct PJRT_Ref_CreateStream_Args {
    size_t struct_size;
    PJRT_Device *device;
    intptr_t stream; /* out */
} PJRT_Ref_CreateStream_Args;
#define PJRT_Ref_CreateStream_Args_STRUCT_SIZE                                                     \
    PJRT_REF_STRUCT_SIZE(PJRT_Ref_CreateStream_Args, stream)
typedef PJRT_Error *PJRT_Ref_CreateStream(PJRT_Ref_CreateStream_Args *args);

/* Runs the stream's queued work, then destroys it. Default streams cannot be
 * destroyed. Must not be called from the stream's own host callback. */
typedef struct PJRT_Ref_DestroyStream_Args {
    size_t struct_size;
    intptr_t stream;
} PJRT_Ref_DestroyStream_Args;
#define PJRT_Ref_DestroyStream_Args_STRUCT_SIZE                                                    \
    PJRT_REF_STRUCT_SIZE(PJRT_Ref_DestroyStream_Args, stream)
typedef PJRT_Error *PJRT_Ref_DestroyStream(PJRT_Ref_DestroyStream_Args *args);

/* A host callback runs on the stream's worker thread when the stream reaches
 * it. `status` is the stream's sticky error (PJRT_Error_Code_OK if none) and
 * `message` its text ("" if none), valid during the call only. */
typedef void (*PJRT_Ref_HostCallback)(PJRT_Error_Code status, const char *message, void *user_arg);

/* Queues `callback(…, user_arg)` on the stream, after all work queued so far
 * (including waits queued with the stream extension's wait_stream). */
typedef struct PJRT_Ref_EnqueueHostCallback_Args {
    size_t struct_size;
    intptr_t stream;
    PJRT_Ref_HostCallback callback;
    void *user_arg;
} PJRT_Ref_EnqueueHostCallback_Args;
#define PJRT_Ref_EnqueueHostCallback_Args_STRUCT_SIZE                                              \
    PJRT_REF_STRUCT_SIZE(PJRT_Ref_EnqueueHostCallback_Args, user_arg)
typedef PJRT_Error *PJRT_Ref_EnqueueHostCallback(PJRT_Ref_EnqueueHostCallback_Args *args);

/* Blocks until everything queued on the stream so far has run. Returns the
 * sticky error, if any, and clears it. */
typedef struct PJRT_Ref_SynchronizeStream_Args {
    size_t struct_size;
    intptr_t stream;
} PJRT_Ref_SynchronizeStream_Args;
#define PJRT_Ref_SynchronizeStream_Args_STRUCT_SIZE                                                \
    PJRT_REF_STRUCT_SIZE(PJRT_Ref_SynchronizeStream_Args, stream)
typedef PJRT_Error *PJRT_Ref_SynchronizeStream(PJRT_Ref_SynchronizeStream_Args *args);

/* Allocation accounting. `client_allocations` counts the live allocations
 * made for `client`'s buffers, their storage and queued work: it is 0 once
 * every buffer of the client is destroyed and its streams are idle.
 * `process_allocations` counts every live allocation of the plugin (clients,
 * devices, events, errors and the above). `client` may be NULL. */
typedef struct PJRT_Ref_LiveAllocations_Args {
    size_t struct_size;
    PJRT_Client *client;
    int64_t client_allocations;  /* out */
    int64_t process_allocations; /* out */
} PJRT_Ref_LiveAllocations_Args;
#define PJRT_Ref_LiveAllocations_Args_STRUCT_SIZE                                                  \
    PJRT_REF_STRUCT_SIZE(PJRT_Ref_LiveAllocations_Args, process_allocations)
typedef PJRT_Error *PJRT_Ref_LiveAllocations(PJRT_Ref_LiveAllocations_Args *args);

/* Test-only fault injection: the `nth` allocation from now (1-based, counted
 * process-wide) fails as if the host were out of memory; 0 disables it.
 * `allocations_since_last` reports how many allocations happened since the
 * previous call, which lets a test walk n over every allocation of a scenario.
 * Allocations are counted from the first call on (that call reports 0). */
typedef struct PJRT_Ref_FailAllocation_Args {
    size_t struct_size;
    int64_t nth;
    int64_t allocations_since_last; /* out */
} PJRT_Ref_FailAllocation_Args;
#define PJRT_Ref_FailAllocation_Args_STRUCT_SIZE                                                   \
    PJRT_REF_STRUCT_SIZE(PJRT_Ref_FailAllocation_Args, allocations_since_last)
typedef PJRT_Error *PJRT_Ref_FailAllocation(PJRT_Ref_FailAllocation_Args *args);

typedef struct PJRT_Ref_Extension {
    PJRT_Extension_Base base; /* type == PJRT_REF_EXTENSION_TYPE */
    int version;              /* PJRT_REF_EXTENSION_VERSION */
    PJRT_Ref_CreateStream *create_stream;
    PJRT_Ref_DestroyStream *destroy_stream;
    PJRT_Ref_EnqueueHostCallback *enqueue_host_callback;
    PJRT_Ref_SynchronizeStream *synchronize_stream;
    PJRT_Ref_LiveAllocations *live_allocations;
    PJRT_Ref_FailAllocation *fail_allocation;
} PJRT_Ref_Extension;
#define PJRT_Ref_Extension_STRUCT_SIZE PJRT_REF_STRUCT_SIZE(PJRT_Ref_Extension, fail_allocation)

#ifdef __cplusplus
}
#endif

#endif /* PJRT_REF_EXT_H */
