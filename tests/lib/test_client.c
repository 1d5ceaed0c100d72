/* Clients, devices, memories and the DLDevice mapping on the cpu platform,
 * of both plugins (on Intel's oneAPI plugin, tests/oneapi, its GPUs);
 * re-registering a platform on the reference plugin's xpu. */
#include "lib_util.h"

static void cpu_client(void **state) {
    (void)state;
    pjdl_plugin *plugin = lib_load_selected();
    pjdl_client *client = lib_cpu_client(plugin, 0);
    pjdl_plugin_release(plugin); /* the client keeps it alive */
    assert_string_equal(pjdl_client_platform_name(client), lib_cpu_platform());
    assert_non_null(pjdl_client_platform_version(client));
    assert_true(pjdl_client_platform_id(client) == lib_cpu_platform_id());
    assert_true(pjdl_client_device_count(client) >= 1);
    if (lib_on_oneapi()) /* Intel's: those of the process's first client */
        assert_int_equal(pjdl_client_device_count(client), 3);
    assert_null(pjdl_client_device(client, pjdl_client_device_count(client)));
    pjdl_device *dev = pjdl_client_device(client, 0);
    assert_non_null(dev);
    assert_ptr_equal(pjdl_device_client(dev), client);
    assert_non_null(pjdl_device_pjrt(dev));
    assert_non_null(pjdl_device_kind(dev));
    assert_non_null(pjdl_device_debug_string(dev));
    pjdl_memory *mem = pjdl_device_default_memory(dev);
    assert_non_null(mem);
    assert_true(pjdl_device_memory_count(dev) >= 1);
    assert_non_null(pjdl_memory_kind(mem));
    DLDevice dl;
    LIB_OK(pjdl_device_dl(dev, NULL, &dl));
    assert_int_equal(dl.device_type, LIB_EXPORT_DEVICE_TYPE);
    pjdl_device *found = NULL;
    pjdl_memory *found_mem = NULL;
    LIB_OK(pjdl_client_find_dl(client, dl, &found, &found_mem));
    assert_ptr_equal(found, dev);
    assert_ptr_equal(found_mem, mem);
    DLDevice cuda = {kDLCUDA, 0};
    LIB_FAILS(PJDL_NOT_FOUND, pjdl_client_find_dl(client, cuda, &found, NULL));
    intptr_t stream = 0;
    pjdl_code code = pjdl_device_stream(dev, &stream);
    if (lib_has_streams()) {
        LIB_OK(code);
        assert_true(stream != 0);
    } else {
        assert_int_not_equal(code, PJDL_OK); /* cpu has no streams */
    }
    pjdl_client_retain(client);
    pjdl_client_release(client);
    pjdl_client_release(client);
}

/* Intel's plugin fixes the devices of a process at its first client: a
 * later client has those, whatever its visible_devices (seen on ze_sim's
 * four GPUs: after a first client of [0,2], every client has GPUs 0 and 2;
 * after a default first client, all four). So on it this group's set-up
 * makes the process's first client, of three of ze_sim's GPUs, and holds
 * it while the cases run; elsewhere it does nothing. */
static pjdl_client *first_client;

static int group_setup(void **state) {
    (void)state;
    if (lib_on_oneapi()) {
        pjdl_plugin *plugin = lib_load_selected();
        first_client = lib_cpu_client(plugin, 3);
        pjdl_plugin_release(plugin);
    }
    return 0;
}

static int group_teardown(void **state) {
    (void)state;
    if (first_client != NULL)
        pjdl_client_release(first_client);
    return 0;
}

/* On Intel's plugin: visible_devices took effect in the first client (three
 * of ze_sim's more than three GPUs), and a later client has its GPUs 0, 1
 * and 2, whatever it asks. */
static void expect_first_client_devices(pjdl_plugin *plugin) {
    assert_true(lib_zesim_devices() > 3); /* else three would be the default */
    assert_int_equal(pjdl_client_device_count(first_client), 3);
    pjdl_option later;
    LIB_OK(pjdl_option_parse("visible_devices=[3]", &later));
    pjdl_client *client = NULL;
    LIB_OK(pjdl_client_create(plugin, &later, 1, &client));
    assert_int_equal(pjdl_client_device_count(client), 3);
    for (size_t i = 0; i < 3; i++)
        assert_int_equal(pjdl_device_local_hardware_id(pjdl_client_device(client, i)), i);
    pjdl_client_release(client);
}

/* The plugin's own code and message come through for an option it
 * refuses, and a device-count option is passed on: the reference plugin
 * knows "platform" (not "gpu") and "num_devices"; XLA's knows no
 * "platform" at all, and counts devices with "cpu_device_count"; nor does
 * Intel's, which takes "visible_devices" of the GPUs there are (ze_sim's
 * ZE_SIM_DEVICES, four in tests/oneapi) in the process's first client. */
static void bad_options(void **state) {
    (void)state;
    pjdl_plugin *plugin = lib_load_selected();
    pjdl_option opt = {.name = "platform", .type = PJDL_OPTION_STRING};
    opt.value.string_value = "gpu";
    pjdl_client *client = NULL;
    if (lib_refuses_unknown_options()) {
        LIB_FAILS(PJDL_INVALID_ARGUMENT, pjdl_client_create(plugin, &opt, 1, &client));
        assert_non_null(strstr(pjdl_last_error(), lib_on_xla() ? "platform" : "gpu"));
    } else {
        LIB_OK(pjdl_client_create(plugin, &opt, 1, &client));
        pjdl_client_release(client);
        client = NULL;
    }
    pjdl_option parsed;
    const char *three = !lib_on_xla()     ? "num_devices=3"
                        : lib_on_oneapi() ? "visible_devices=[0,1,2]"
                                          : "cpu_device_count=3";
    LIB_OK(pjdl_option_parse(three, &parsed));
    LIB_OK(pjdl_client_create(plugin, &parsed, 1, &client));
    assert_int_equal(pjdl_client_device_count(client), 3);
    pjdl_client_release(client);
    if (lib_on_oneapi())
        expect_first_client_devices(plugin);
    LIB_FAILS(PJDL_INVALID_ARGUMENT, pjdl_client_create(plugin, NULL, 2, &client));
    pjdl_plugin_release(plugin);
}

/* A plugin error passes through with the entry point named once: the
 * reference plugin starts its messages with the entry point's name, and the
 * library does not put it before them again; XLA's messages do not, and
 * the library puts it before them once. Each plugin is given a request it
 * refuses that the library passes on: the reference plugin a TOKEN host
 * buffer, XLA a client option it does not know (a negative dimension, which
 * XLA refused, the library now refuses itself). */
static void plugin_error_named_once(void **state) {
    (void)state;
    pjdl_plugin *plugin = lib_load_selected();
    pjdl_client *client = lib_cpu_client(plugin, 0);
    pjdl_plugin_release(plugin);
    const uint8_t data[4] = {0};
    const int64_t dims[1] = {lib_on_xla() ? -3 : 8};
    pjdl_buffer *buf = NULL;
    if (lib_on_xla()) {
        /* The old ABIs (0.106, 0.81) take an unknown option silently. */
        if (lib_refuses_unknown_options()) {
            pjdl_option unknown;
            LIB_OK(pjdl_option_parse("pjdl_no_such_option=1", &unknown));
            pjdl_plugin *again = lib_load_selected();
            pjdl_client *refused = NULL;
            LIB_FAILS(PJDL_INVALID_ARGUMENT, pjdl_client_create(again, &unknown, 1, &refused));
            pjdl_plugin_release(again);
            assert_null(refused);
            assert_non_null(strstr(pjdl_last_error(), "PJRT_Client_Create: Unexpected option"));
            assert_null(strstr(pjdl_last_error(), "PJRT_Client_Create: PJRT_Client_Create"));
        }
        LIB_FAILS(PJDL_INVALID_ARGUMENT, pjdl_buffer_from_host(client, data, PJRT_Buffer_Type_F32,
                                                               dims, 1, NULL, NULL, &buf));
        assert_non_null(strstr(pjdl_last_error(), "dims[0] is -3"));
    } else {
        LIB_FAILS(PJDL_INVALID_ARGUMENT, pjdl_buffer_from_host(client, data, PJRT_Buffer_Type_TOKEN,
                                                               dims, 1, NULL, NULL, &buf));
        assert_non_null(
            strstr(pjdl_last_error(), "PJRT_Client_BufferFromHostBuffer: element type TOKEN"));
    }
    const char *message = pjdl_last_error();
    assert_null(
        strstr(message, "PJRT_Client_BufferFromHostBuffer: PJRT_Client_BufferFromHostBuffer"));
    assert_null(buf);
    pjdl_client_release(client);
}

/* Client and buffer made with the raw C API, then wrapped. */
static void wrap_foreign(void **state) {
    (void)state;
    pjdl_plugin *plugin = lib_load_selected();
    const PJRT_Api *api = pjdl_plugin_api(plugin);
    PJRT_NamedValue opt = {.struct_size = PJRT_NamedValue_STRUCT_SIZE,
                           .name = "platform",
                           .name_size = 8,
                           .type = PJRT_NamedValue_kString,
                           .string_value = "cpu",
                           .value_size = 3};
    PJRT_Client_Create_Args ca = {.struct_size = PJRT_Client_Create_Args_STRUCT_SIZE,
                                  .create_options = &opt,
                                  .num_options =
                                      lib_on_xla() ? 0 : 1}; /* XLA, Intel: no "platform" */
    assert_null(api->PJRT_Client_Create(&ca));
    pjdl_client *client = NULL;
    LIB_OK(pjdl_client_wrap(plugin, ca.client, &client));
    assert_ptr_equal(pjdl_client_pjrt(client), ca.client);
    int32_t data[3] = {7, 8, 9}, back[3];
    int64_t dims[1] = {3};
    PJRT_Client_BufferFromHostBuffer_Args ba = {
        .struct_size = PJRT_Client_BufferFromHostBuffer_Args_STRUCT_SIZE,
        .client = ca.client,
        .data = data,
        .type = PJRT_Buffer_Type_S32,
        .dims = dims,
        .num_dims = 1,
        .host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableOnlyDuringCall,
        .device = pjdl_device_pjrt(pjdl_client_device(client, 0))};
    assert_null(api->PJRT_Client_BufferFromHostBuffer(&ba));
    PJRT_Event_Destroy_Args ed = {.struct_size = PJRT_Event_Destroy_Args_STRUCT_SIZE,
                                  .event = ba.done_with_host_buffer};
    assert_null(api->PJRT_Event_Destroy(&ed));
    pjdl_buffer *b = NULL;
    LIB_OK(pjdl_buffer_wrap(client, ba.buffer, &b)); /* b owns it now */
    PJRT_Buffer *raw = NULL;
    LIB_OK(pjdl_buffer_pjrt(b, &raw));
    assert_ptr_equal(raw, ba.buffer);
    assert_int_equal(pjdl_buffer_type(b), PJRT_Buffer_Type_S32);
    assert_int_equal(pjdl_buffer_ndim(b), 1);
    assert_int_equal(pjdl_buffer_dims(b)[0], 3);
    assert_int_equal(pjdl_buffer_size_bytes(b), 12);
    assert_ptr_equal(pjdl_buffer_device(b), pjdl_client_device(client, 0));
    assert_non_null(pjdl_buffer_memory(b));
    LIB_OK(pjdl_buffer_await(b));
    LIB_OK(pjdl_buffer_to_host(b, back, sizeof back));
    assert_memory_equal(back, data, sizeof data);
    LIB_FAILS(PJDL_INVALID_ARGUMENT, pjdl_buffer_to_host(b, back, 4));
    pjdl_buffer_release(b);
    pjdl_client_release(client);
    /* The wrapped client is still ours to destroy. */
    PJRT_Client_Destroy_Args da = {.struct_size = PJRT_Client_Destroy_Args_STRUCT_SIZE,
                                   .client = ca.client};
    assert_null(api->PJRT_Client_Destroy(&da));
    pjdl_plugin_release(plugin);
}

/* `buf`'s DLDevice, and that of an export of it, are of `type`. */
static void expect_dl_device_type(pjdl_buffer *buf, DLDeviceType type) {
    DLDevice dl;
    LIB_OK(pjdl_buffer_dl_device(buf, &dl));
    assert_int_equal(dl.device_type, type);
    DLManagedTensorVersioned *t = NULL;
    LIB_OK(pjdl_buffer_export(buf, NULL, &t));
    assert_int_equal(t->dl_tensor.device.device_type, type);
    t->deleter(t);
}

/* Registering a platform again is seen by buffers that already exist: their
 * DLDevice and the next export follow the registry (it is cached per memory,
 * so the cache must notice). */
static void reregister_platform(void **state) {
    (void)state;
    pjdl_plugin *plugin = lib_load();
    pjdl_client *client = lib_client(plugin, "xpu");
    pjdl_plugin_release(plugin);
    float data[4] = {1, 2, 3, 4};
    int64_t dims[1] = {4};
    pjdl_buffer *buf = NULL;
    LIB_OK(pjdl_buffer_from_host(client, data, PJRT_Buffer_Type_F32, dims, 1, NULL, NULL, &buf));
    expect_dl_device_type(buf, kDLOneAPI);
    LIB_OK(pjdl_register_platform("xpu", kDLExtDev, kDLCPU));
    expect_dl_device_type(buf, kDLExtDev);
    LIB_OK(pjdl_register_platform("xpu", kDLOneAPI, kDLCPU));
    expect_dl_device_type(buf, kDLOneAPI);
    pjdl_buffer_release(buf);
    pjdl_client_release(client);
}

/* The registry's generation changes with every successful registration,
 * a replacement included, and with nothing else: a failed registration and
 * lookups leave it. */
static void platform_generation(void **state) {
    (void)state;
    unsigned g0 = pjdl_platform_generation();
    DLDeviceType type;
    LIB_OK(pjdl_platform_dl_type("xpu", NULL, &type));
    assert_int_equal(pjdl_platform_generation(), g0);
    assert_int_equal(pjdl_register_platform("gen-test", (DLDeviceType)12345, kDLCPU),
                     PJDL_INVALID_ARGUMENT);
    assert_int_equal(pjdl_platform_generation(), g0);
    LIB_OK(pjdl_register_platform("gen-test", kDLExtDev, kDLCPU));
    unsigned g1 = pjdl_platform_generation();
    assert_int_not_equal(g1, g0);
    LIB_OK(pjdl_register_platform("gen-test", kDLExtDev, kDLCPU)); /* the same again */
    assert_int_not_equal(pjdl_platform_generation(), g1);
}

/* Clients destroyed right after an upload and a copy import of host
 * memory, each released first: Intel's plugin goes on scheduling a
 * transfer's device copy from a worker of XLA's work queue after it is done
 * with the host memory, and a client destroyed meanwhile deadlocked in the
 * queue's destructor (the release now awaits such a buffer:
 * pjdl__host_transfer_destroy). A hang is ctest's timeout. */
static void destroyed_after_upload(void **state) {
    (void)state;
    pjdl_plugin *plugin = lib_load_selected();
    static float data[128 * 128];
    const int64_t dims[] = {128, 128};
    for (int round = 0; round < 25; round++) {
        pjdl_client *client = lib_cpu_client(plugin, 0);
        pjdl_buffer *b = NULL;
        LIB_OK(pjdl_buffer_from_host(client, data, PJRT_Buffer_Type_F32, dims, 2, NULL, NULL, &b));
        pjdl_buffer_release(b);
        lib_tensor t;
        lib_tensor_init(&t, data, lib_dtype(kDLFloat, 32), 2, dims, NULL);
        pjdl_import_options o = PJDL_IMPORT_OPTIONS_INIT;
        o.copy = PJDL_COPY_ALWAYS;
        LIB_OK(pjdl_import(&client, 1, &t.v, &o, &b));
        pjdl_buffer_release(b);
        pjdl_client_release(client);
    }
    pjdl_plugin_release(plugin);
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cpu_client),
        cmocka_unit_test(bad_options),
        cmocka_unit_test(plugin_error_named_once),
        cmocka_unit_test(wrap_foreign),
        cmocka_unit_test(destroyed_after_upload),
    };
    /* The registry tests touch no plugin: once, with the reference plugin. */
    const struct CMUnitTest ref_only[] = {cmocka_unit_test(reregister_platform),
                                          cmocka_unit_test(platform_generation)};
    return lib_run(argc, argv, tests, LIB_COUNT(tests), ref_only, LIB_COUNT(ref_only), group_setup,
                   group_teardown);
}
