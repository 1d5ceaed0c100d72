/* Whether a plugin honours the memory layouts it is given, found by a
 * probe on the client the first time it matters.
 *
 * Older builds of XLA's CPU plugin do not, and say nothing: ABI 0.106 and
 * 0.81 keep the row-major bytes of a PJRT_Client_BufferFromHostBuffer given
 * a column-major device_layout while PJRT_Buffer_GetMemoryLayout reports
 * that layout, so the layout an export would describe is wrong; on 0.81 a
 * view made with a permuted layout also reads back in row-major order.
 * Neither follows from the ABI version alone (0.115 honours both), so the
 * client is asked, with a [2,3] f32 buffer of 0..5:
 *   views: its memory viewed as [3,2] column-major (the transpose) must
 *     read back (ToHostBuffer, row-major host layout) as 0 3 1 4 2 5;
 *   device layouts: made with a column-major device_layout, a buffer whose
 *     layout reads back column-major must hold 0 3 1 4 2 5 (read through a
 *     one-dimensional view of its memory, or else ToHostBuffer must give
 *     0..5 back). A plugin that refuses such a buffer cannot lie about one.
 * A probe that cannot be made (an entry point missing or refusing) trusts
 * the plugin for what it could not test: the import then fails or copies
 * as it would have. Concurrent first uses may both probe; they find the
 * same answer. */
#include <string.h>

#include "internal.h"

#define TRUST_KNOWN 1u
#define PROBE_ROWS 2
#define PROBE_COLS 3
#define PROBE_N (PROBE_ROWS * PROBE_COLS)

static const float probe_data[PROBE_N] = {0, 1, 2, 3, 4, 5};
static const float probe_transposed[PROBE_N] = {0, 3, 1, 4, 2, 5};

static void set_layout(PJRT_Buffer_MemoryLayout *l, const int64_t *m2m, size_t n) {
    memset(l, 0, sizeof *l);
    l->struct_size = PJRT_Buffer_MemoryLayout_STRUCT_SIZE;
    l->type = PJRT_Buffer_MemoryLayout_Type_Tiled;
    l->tiled.struct_size = PJRT_Buffer_MemoryLayout_Tiled_STRUCT_SIZE;
    l->tiled.minor_to_major = m2m;
    l->tiled.minor_to_major_size = n;
}

static void destroy(const PJRT_Api *api, PJRT_Buffer *b) {
    if (b != NULL)
        pjdl__pjrt_buffer_destroy(api, b);
}

/* Waits for `event` (NULL: none) and destroys it; true if it completed. */
static bool settled(pjdl_client *c, PJRT_Event *event) {
    pjdl_code code = event ? pjdl__event_wait(c->plugin, event, 0) : PJDL_OK;
    pjdl__event_destroy(c->plugin->api, event);
    return code == PJDL_OK;
}

/* Waits until `b` holds its data (a GPU's copy lands after the host
 * buffer is released); false if it cannot tell. */
static bool ready(pjdl_client *c, PJRT_Buffer *b) {
    const PJRT_Api *api = c->plugin->api;
    PJRT_Buffer_ReadyEvent_Args a = {.struct_size = PJRT_Buffer_ReadyEvent_Args_STRUCT_SIZE,
                                     .buffer = b};
    if (!PJDL_HAS(c->plugin, PJRT_Buffer_ReadyEvent) ||
        pjdl__take_error(api, api->PJRT_Buffer_ReadyEvent(&a)) != PJDL_OK || a.event == NULL)
        return false;
    return settled(c, a.event);
}

/* The [2,3] probe buffer on the client's first device, with `layout`
 * (NULL: the default), its data there; NULL when the plugin did not make
 * it. */
static PJRT_Buffer *probe_buffer(pjdl_client *c, PJRT_Buffer_MemoryLayout *layout) {
    const PJRT_Api *api = c->plugin->api;
    const int64_t dims[2] = {PROBE_ROWS, PROBE_COLS};
    PJRT_Client_BufferFromHostBuffer_Args a = {
        .struct_size = PJRT_Client_BufferFromHostBuffer_Args_STRUCT_SIZE,
        .client = c->client,
        .data = probe_data,
        .type = PJRT_Buffer_Type_F32,
        .dims = dims,
        .num_dims = 2,
        .host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableUntilTransferCompletes,
        .device = c->devices[0].device,
        .device_layout = layout};
    if (!PJDL_HAS(c->plugin, PJRT_Client_BufferFromHostBuffer) ||
        pjdl__take_error(api, api->PJRT_Client_BufferFromHostBuffer(&a)) != PJDL_OK)
        return NULL;
    settled(c, a.done_with_host_buffer);
    if (!ready(c, a.buffer)) {
        pjdl__pjrt_buffer_destroy(api, a.buffer);
        return NULL;
    }
    return a.buffer;
}

/* Reads `n` floats of `b` in row-major order into out. */
static bool read_back(pjdl_client *c, PJRT_Buffer *b, size_t ndim, float *out, size_t n) {
    const PJRT_Api *api = c->plugin->api;
    int64_t m2m[2];
    PJRT_Buffer_MemoryLayout host;
    pjdl__c_order(m2m, (int32_t)ndim);
    set_layout(&host, m2m, ndim);
    PJRT_Buffer_ToHostBuffer_Args a = {.struct_size = PJRT_Buffer_ToHostBuffer_Args_STRUCT_SIZE,
                                       .src = b,
                                       .host_layout = &host,
                                       .dst = out,
                                       .dst_size = n * sizeof *out};
    if (!PJDL_HAS(c->plugin, PJRT_Buffer_ToHostBuffer) ||
        pjdl__take_error(api, api->PJRT_Buffer_ToHostBuffer(&a)) != PJDL_OK)
        return false;
    return settled(c, a.event);
}

static void *data_of(pjdl_client *c, PJRT_Buffer *b) {
    const PJRT_Api *api = c->plugin->api;
    if (PJDL_HAS(c->plugin, PJRT_Buffer_OpaqueDeviceMemoryDataPointer)) {
        PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args a = {
            .struct_size = PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args_STRUCT_SIZE, .buffer = b};
        if (pjdl__take_error(api, api->PJRT_Buffer_OpaqueDeviceMemoryDataPointer(&a)) == PJDL_OK)
            return a.device_memory_ptr;
    }
    if (PJDL_HAS(c->plugin, PJRT_Buffer_UnsafePointer)) {
        PJRT_Buffer_UnsafePointer_Args a = {
            .struct_size = PJRT_Buffer_UnsafePointer_Args_STRUCT_SIZE, .buffer = b};
        if (pjdl__take_error(api, api->PJRT_Buffer_UnsafePointer(&a)) == PJDL_OK)
            return (void *)a.buffer_pointer;
    }
    return NULL;
}

static void probe_view_deleted(void *device_buffer_ptr, void *user_arg) {
    (void)device_buffer_ptr;
    (void)user_arg;
}

/* A view of `data` with `dims` and `layout` (NULL: row-major). */
static PJRT_Buffer *view_of(pjdl_client *c, void *data, const int64_t *dims, size_t n,
                            PJRT_Buffer_MemoryLayout *layout) {
    const PJRT_Api *api = c->plugin->api;
    PJRT_Client_CreateViewOfDeviceBuffer_Args a = {
        .struct_size = PJRT_Client_CreateViewOfDeviceBuffer_Args_STRUCT_SIZE,
        .client = c->client,
        .device_buffer_ptr = data,
        .dims = dims,
        .num_dims = n,
        .element_type = PJRT_Buffer_Type_F32,
        .layout = layout,
        .device = c->devices[0].device,
        .on_delete_callback = probe_view_deleted};
    if (data == NULL || !c->plugin->views ||
        pjdl__take_error(api, api->PJRT_Client_CreateViewOfDeviceBuffer(&a)) != PJDL_OK)
        return NULL;
    return a.buffer;
}

/* Whether a transposed view reads back transposed (true when untestable). */
static bool views_honour_layouts(pjdl_client *c) {
    const PJRT_Api *api = c->plugin->api;
    PJRT_Buffer *src = probe_buffer(c, NULL);
    const int64_t dims[2] = {PROBE_COLS, PROBE_ROWS}, m2m[2] = {0, 1};
    PJRT_Buffer_MemoryLayout layout;
    set_layout(&layout, m2m, 2);
    PJRT_Buffer *view = src ? view_of(c, data_of(c, src), dims, 2, &layout) : NULL;
    float got[PROBE_N];
    bool ok = view == NULL || !read_back(c, view, 2, got, PROBE_N) ||
              memcmp(got, probe_transposed, sizeof got) == 0;
    destroy(api, view);
    destroy(api, src);
    return ok;
}

/* Whether the layout of `b` is the column-major one it was made with. */
static bool reports_column_major(pjdl_client *c, PJRT_Buffer *b) {
    const PJRT_Api *api = c->plugin->api;
    PJRT_Buffer_GetMemoryLayout_Args a = {
        .struct_size = PJRT_Buffer_GetMemoryLayout_Args_STRUCT_SIZE, .buffer = b};
    if (!PJDL_HAS(c->plugin, PJRT_Buffer_GetMemoryLayout) ||
        pjdl__take_error(api, api->PJRT_Buffer_GetMemoryLayout(&a)) != PJDL_OK)
        return false;
    const PJRT_Buffer_MemoryLayout_Tiled *t = &a.layout.tiled;
    return a.layout.type == PJRT_Buffer_MemoryLayout_Type_Tiled && t->minor_to_major_size == 2 &&
           t->minor_to_major != NULL && t->minor_to_major[0] == 0 && t->minor_to_major[1] == 1;
}

/* Whether a buffer made with a column-major device layout holds it (true
 * when refused or untestable). */
static bool device_layouts_honoured(pjdl_client *c) {
    const PJRT_Api *api = c->plugin->api;
    const int64_t m2m[2] = {0, 1}, flat[1] = {PROBE_N};
    PJRT_Buffer_MemoryLayout layout;
    set_layout(&layout, m2m, 2);
    PJRT_Buffer *b = probe_buffer(c, &layout);
    if (b == NULL || !reports_column_major(c, b)) {
        destroy(api, b);
        return true;
    }
    float got[PROBE_N];
    bool ok = true;
    PJRT_Buffer *raw = view_of(c, data_of(c, b), flat, 1, NULL);
    if (raw != NULL)
        ok = !read_back(c, raw, 1, got, PROBE_N) || memcmp(got, probe_transposed, sizeof got) == 0;
    else
        ok = !read_back(c, b, 2, got, PROBE_N) || memcmp(got, probe_data, sizeof got) == 0;
    destroy(api, raw);
    destroy(api, b);
    return ok;
}

unsigned pjdl__client_layout_trust(pjdl_client *client) {
    unsigned known = (unsigned)atomic_load_explicit(&client->layout_trust, memory_order_acquire);
    if (known & TRUST_KNOWN)
        return known;
    unsigned trust = TRUST_KNOWN;
    if (client->num_devices == 0 || views_honour_layouts(client))
        trust |= PJDL_TRUST_VIEW_LAYOUTS;
    if (client->num_devices == 0 || device_layouts_honoured(client))
        trust |= PJDL_TRUST_DEVICE_LAYOUTS;
    atomic_store_explicit(&client->layout_trust, (int)trust, memory_order_release);
    return trust;
}
