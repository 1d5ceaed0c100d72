/*
 * hostile.h — the control block of the hostile test plugin (libhostile_plugin.so).
 *
 * The hostile plugin wraps the reference plugin (tests/broken/shim.c) and
 * misbehaves on demand: a test loads it with pjdl_plugin_load, finds
 * hostile_control() with dlsym and sets `fault` (one misbehaviour at a time)
 * or `fail_at` (the Nth call of any wrapped entry point returns an error).
 * Everything else is passed to the reference plugin unchanged.
 */
#ifndef PJDL_TESTS_HOSTILE_H_
#define PJDL_TESTS_HOSTILE_H_

#include <stdatomic.h>
#include <stdint.h>

typedef enum hostile_fault {
    HOSTILE_NONE = 0,
    HOSTILE_CLIENT_NULL,       /* Client_Create: OK but no client */
    HOSTILE_DEVICES_NULL,      /* Client_AddressableDevices: NULL list, count 1 */
    HOSTILE_DESCRIPTION_NULL,  /* Device_GetDescription: OK but no description */
    HOSTILE_MEMORIES_NULL,     /* Device_AddressableMemories: NULL list, count 2 */
    HOSTILE_FROM_HOST_NULL,    /* Client_BufferFromHostBuffer: OK but no buffer */
    HOSTILE_VIEW_NULL,         /* Client_CreateViewOfDeviceBuffer: OK but no buffer */
    HOSTILE_DIMS_NULL,         /* Buffer_Dimensions: dims NULL, num_dims kept */
    HOSTILE_DIMS_NEGATIVE,     /* Buffer_Dimensions: dims[0] = -3 */
    HOSTILE_DIMS_HUGE,         /* Buffer_Dimensions: every dim INT64_MAX */
    HOSTILE_DIMS_TOO_MANY,     /* Buffer_Dimensions: 65 dims of 1 */
    HOSTILE_TYPE_BOGUS,        /* Buffer_ElementType: 9999 */
    HOSTILE_LAYOUT_SHORT,      /* GetMemoryLayout: minor_to_major one entry short */
    HOSTILE_LAYOUT_NOT_PERM,   /* GetMemoryLayout: minor_to_major {0, 0} */
    HOSTILE_LAYOUT_OUT_RANGE,  /* GetMemoryLayout: minor_to_major {7, 0} */
    HOSTILE_LAYOUT_M2M_NULL,   /* GetMemoryLayout: minor_to_major NULL */
    HOSTILE_LAYOUT_TILES_NULL, /* GetMemoryLayout: 2 tiles, tile arrays NULL */
    HOSTILE_LAYOUT_TILE_ZERO,  /* GetMemoryLayout: a (0, -5) tile */
    HOSTILE_LAYOUT_TILED_REAL, /* GetMemoryLayout: a (2, 2) tile that reorders */
    HOSTILE_LAYOUT_BAD_TYPE,   /* GetMemoryLayout: layout type 77 */
    HOSTILE_LAYOUT_STRIDES,    /* GetMemoryLayout: Strides, count 1, NULL array */
    HOSTILE_DATA_NULL,         /* OpaqueDeviceMemoryDataPointer / UnsafePointer: NULL */
    HOSTILE_READY_NULL,        /* Buffer_ReadyEvent: OK but no event */
    HOSTILE_READY_NEVER,       /* Buffer_ReadyEvent: an event that is never set */
    HOSTILE_TO_HOST_NEVER,     /* Buffer_ToHostBuffer: its event is never set */
    HOSTILE_ERROR_NO_TEXT,     /* injected errors: bad code, NULL message */
    HOSTILE_DONE_NEVER,        /* BufferFromHostBuffer: done_with_host_buffer never set */
    HOSTILE_FAULT_COUNT
} hostile_fault;

typedef struct hostile_config {
    /* Calls of wrapped entry points since the test last reset it. */
    atomic_long calls;
    /* The call (1-based, counted in `calls`) that fails; 0: none. The failed
     * call returns INTERNAL "hostile plugin: injected failure", without the
     * entry point's name (the library must add it). Entry points that
     * destroy or release something do their work first, then fail. */
    atomic_long fail_at;
    /* The entry point that failed (set once per fail_at). */
    char failed[96];
    /* Faults that are not a failed call. */
    _Atomic int fault;
    /* Events handed out that are never set. PJRT_Event_Destroy of them only
     * marks them; PJRT_Client_Destroy sets them to CANCELLED (as a plugin
     * that cancels outstanding work at shutdown), which runs their
     * callbacks, and destroys the marked ones. */
    atomic_long stuck_events;
} hostile_config;

/* The plugin's control block (process-wide). */
typedef hostile_config *hostile_control_fn(void);

#endif
