/* Plugins that implement less: the table of the plugin under test (the
 * reference plugin's or XLA's) copied into a test-owned PJRT_Api with a
 * shorter struct_size, NULL entry points and no extensions. The library must take the next correct
 * path or say which capability is missing. */
#include "lib_util.h"

typedef struct degraded {
    pjdl_plugin *real; /* keeps the library loaded and initialized */
    PJRT_Api api;
    pjdl_plugin *plugin;
    pjdl_client *client;
} degraded;

static degraded *degrade(void (*edit)(PJRT_Api *)) {
    degraded *d = calloc(1, sizeof *d);
    d->real = lib_load_selected();
    /* A plugin built against other headers has a longer or shorter table
     * (XLA's): copy what both have, and say so in struct_size. */
    const PJRT_Api *api = pjdl_plugin_api(d->real);
    size_t n = api->struct_size < sizeof d->api ? api->struct_size : sizeof d->api;
    memcpy(&d->api, api, n);
    d->api.struct_size = n;
    d->api.extension_start = NULL;
    edit(&d->api);
    LIB_OK(pjdl_plugin_from_api(&d->api, &d->plugin));
    d->client = lib_cpu_client(d->plugin, 0);
    return d;
}

static void undegrade(degraded *d) {
    pjdl_client_release(d->client);
    pjdl_plugin_release(d->plugin);
    pjdl_plugin_release(d->real);
    free(d);
}

static pjdl_buffer *upload(pjdl_client *client, float *data) {
    const int64_t dims[] = {2, 3};
    for (int i = 0; i < 6; i++)
        data[i] = (float)i + 0.25f;
    pjdl_buffer *b = NULL;
    LIB_OK(pjdl_buffer_from_host(client, data, PJRT_Buffer_Type_F32, dims, 2, NULL, NULL, &b));
    return b;
}

static void no_views(PJRT_Api *api) {
    api->struct_size = offsetof(PJRT_Api, PJRT_Client_CreateViewOfDeviceBuffer);
}

static void old_table_without_views(void **state) {
    (void)state;
    degraded *d = degrade(no_views);
    assert_false(pjdl_plugin_provides(d->plugin, "PJRT_Client_CreateViewOfDeviceBuffer"));
    float data[6], back[6];
    const int64_t shape[] = {2, 3};
    lib_tensor t;
    lib_tensor_init(&t, data, lib_dtype(kDLFloat, 32), 2, shape, NULL);
    pjdl_import_options o = lib_import_options(PJDL_COPY_NEVER);
    pjdl_buffer *b = NULL;
    LIB_FAILS(PJDL_UNIMPLEMENTED, pjdl_import(&d->client, 1, &t.v, &o, &b));
    assert_non_null(strstr(pjdl_last_error(), "PJRT_Client_CreateViewOfDeviceBuffer"));
    assert_int_equal(t.deleted, 0);
    for (int i = 0; i < 6; i++)
        data[i] = (float)i;
    LIB_OK(pjdl_import(&d->client, 1, &t.v, NULL, &b)); /* copied instead */
    LIB_OK(pjdl_buffer_to_host(b, back, sizeof back));
    assert_memory_equal(back, data, sizeof data);
    pjdl_buffer_release(b);
    assert_int_equal(t.deleted, 1);
    undegrade(d);
}

static void no_opaque_pointer(PJRT_Api *api) {
    api->PJRT_Buffer_OpaqueDeviceMemoryDataPointer = NULL;
    api->PJRT_Buffer_GetMemoryLayout = NULL;
}

static void unsafe_pointer_fallback(void **state) {
    (void)state;
    degraded *d = degrade(no_opaque_pointer);
    float data[6];
    pjdl_buffer *b = upload(d->client, data);
    DLManagedTensorVersioned *t = NULL;
    LIB_OK(pjdl_buffer_export(b, NULL, &t));
    assert_memory_equal(t->dl_tensor.data, data, sizeof data);
    assert_int_equal(t->dl_tensor.strides[0], 3); /* no layouts: row-major */
    t->deleter(t);
    pjdl_buffer_release(b);
    undegrade(d);
}

static void no_external_references(PJRT_Api *api) {
    api->PJRT_Buffer_IncreaseExternalReferenceCount = NULL;
}

static void export_needs_pinning(void **state) {
    (void)state;
    degraded *d = degrade(no_external_references);
    float data[6];
    pjdl_buffer *b = upload(d->client, data);
    DLManagedTensorVersioned *t = NULL;
    LIB_FAILS(PJDL_UNIMPLEMENTED, pjdl_buffer_export(b, NULL, &t));
    assert_non_null(strstr(pjdl_last_error(), "IncreaseExternalReferenceCount"));
    pjdl_export_options o = PJDL_EXPORT_OPTIONS_INIT;
    o.copy = PJDL_COPY_ALWAYS; /* a copy needs no pin */
    LIB_OK(pjdl_buffer_export(b, &o, &t));
    assert_memory_equal(t->dl_tensor.data, data, sizeof data);
    t->deleter(t);
    o = (pjdl_export_options)PJDL_EXPORT_OPTIONS_INIT;
    o.mode = PJDL_EXPORT_TRANSFER;
    LIB_FAILS(PJDL_UNIMPLEMENTED, pjdl_buffer_export(b, &o, &t));
    assert_false(pjdl_buffer_is_deleted(b)); /* a failed transfer changes nothing */
    pjdl_buffer_release(b);
    undegrade(d);
}

static void no_on_ready(PJRT_Api *api) {
    api->PJRT_Event_OnReady = NULL;
}

static void await_without_on_ready(void **state) {
    (void)state;
    degraded *d = degrade(no_on_ready);
    float data[6];
    pjdl_buffer *b = upload(d->client, data);
    DLManagedTensorVersioned *t = NULL;
    LIB_OK(pjdl_buffer_export(b, NULL, &t)); /* PJRT_Event_Await instead */
    t->deleter(t);
    pjdl_buffer *b2 = upload(d->client, data);
    pjdl_client_set_wait_timeout(d->client, 100);
    /* A deadline needs OnReady; a ready-known buffer needs no wait at all. */
    LIB_OK(pjdl_buffer_export(b, NULL, &t));
    t->deleter(t);
    pjdl_code code = pjdl_buffer_await(b2);
    if (code != PJDL_OK) {
        assert_int_equal(code, PJDL_UNIMPLEMENTED);
        assert_non_null(strstr(pjdl_last_error(), "PJRT_Event_OnReady"));
    }
    pjdl_buffer_release(b2);
    pjdl_buffer_release(b);
    undegrade(d);
}

static void keep(PJRT_Api *api) {
    (void)api;
}

static void no_stream_extension(void **state) {
    (void)state;
    degraded *d = degrade(keep);
    float data[6];
    pjdl_buffer *b = upload(d->client, data);
    pjdl_export_options o = PJDL_EXPORT_OPTIONS_INIT;
    o.has_stream = true;
    o.stream = 1;
    DLManagedTensorVersioned *t = NULL;
    LIB_FAILS(PJDL_UNIMPLEMENTED, pjdl_buffer_export(b, &o, &t));
    assert_non_null(strstr(pjdl_last_error(), "stream extension"));
    intptr_t stream;
    LIB_FAILS(PJDL_UNIMPLEMENTED, pjdl_device_stream(pjdl_client_device(d->client, 0), &stream));
    pjdl_buffer_release(b);
    undegrade(d);
}

/* CreateViewOfDeviceBuffer counted, and handed a data pointer one byte off,
 * which plugins refuse to view (not aligned to the element). */
static PJRT_Client_CreateViewOfDeviceBuffer *real_view;
static int view_calls;

static PJRT_Error *misaligned_view(PJRT_Client_CreateViewOfDeviceBuffer_Args *args) {
    view_calls++;
    PJRT_Client_CreateViewOfDeviceBuffer_Args a = *args;
    a.device_buffer_ptr = (char *)a.device_buffer_ptr + 1;
    PJRT_Error *error = real_view(&a);
    args->buffer = a.buffer;
    return error;
}

static void counted_views(PJRT_Api *api) {
    real_view = api->PJRT_Client_CreateViewOfDeviceBuffer;
    api->PJRT_Client_CreateViewOfDeviceBuffer = misaligned_view;
}

/* A view the plugin refuses is asked for once per import: the common path
 * (pjdl__import_fast) hands the plugin's refusal to the general one, which
 * fails with it under copy=NEVER and copies otherwise. On Intel's plugin a
 * host tensor is not on the client's default memory (no common path), and
 * the plugin views misaligned host memory: there the view is made, also
 * asked for once. */
static void refused_view_asked_once(void **state) {
    (void)state;
    degraded *d = degrade(counted_views);
    if (LIB_EXPORT_DEVICE_TYPE != kDLCPU) {
        float *data = lib_aligned(8 * sizeof *data);
        const int64_t shape[] = {4};
        lib_tensor t;
        lib_tensor_init(&t, data, lib_dtype(kDLFloat, 32), 1, shape, NULL);
        pjdl_buffer *b = NULL;
        view_calls = 0;
        LIB_OK(pjdl_import(&d->client, 1, &t.v, NULL, &b));
        assert_int_equal(view_calls, 1);
        pjdl_buffer_release(b);
        assert_int_equal(t.deleted, 1);
        free(data);
        undegrade(d);
        return;
    }
    float *data = lib_aligned(6 * sizeof *data), back[6];
    for (int i = 0; i < 6; i++)
        data[i] = (float)i + 0.5f;
    const int64_t shape[] = {2, 3};
    lib_tensor t;
    lib_tensor_init(&t, data, lib_dtype(kDLFloat, 32), 2, shape, NULL);
    pjdl_import_options o = lib_import_options(PJDL_COPY_NEVER);
    pjdl_buffer *b = NULL;
    view_calls = 0;
    LIB_FAILS(PJDL_INVALID_ARGUMENT, pjdl_import(&d->client, 1, &t.v, &o, &b));
    assert_int_equal(view_calls, 1);
    assert_non_null(strstr(pjdl_last_error(), "copy=NEVER"));
    assert_int_equal(t.deleted, 0);
    view_calls = 0;
    LIB_OK(pjdl_import(&d->client, 1, &t.v, NULL, &b)); /* copied instead */
    assert_int_equal(view_calls, 1);
    LIB_OK(pjdl_buffer_to_host(b, back, sizeof back));
    assert_memory_equal(back, data, sizeof back);
    pjdl_buffer_release(b);
    assert_int_equal(t.deleted, 1);
    free(data);
    undegrade(d);
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(old_table_without_views), cmocka_unit_test(unsafe_pointer_fallback),
        cmocka_unit_test(export_needs_pinning),    cmocka_unit_test(await_without_on_ready),
        cmocka_unit_test(no_stream_extension),     cmocka_unit_test(refused_view_asked_once),
    };
    return LIB_RUN(argc, argv, tests);
}
