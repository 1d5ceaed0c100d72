/* The reference plugin's table, errors, events, client options, devices and
 * memories. */
#include "plugin_util.h"

static void test_table_complete(void **state) {
    (void)state;
    const PJRT_Api *api = pu_load();
    assert_int_equal(api->struct_size, PJRT_Api_STRUCT_SIZE);
    assert_int_equal(api->pjrt_api_version.major_version, PJRT_API_MAJOR);
    assert_int_equal(api->pjrt_api_version.minor_version, PJRT_API_MINOR);
    /* No slot is NULL. */
    const char *start = (const char *)&api->PJRT_Error_Destroy;
    const char *end = (const char *)api + api->struct_size;
    size_t n = 0;
    for (const char *p = start; p < end; p += sizeof(void (*)(void)), n++) {
        void (*fn)(void);
        memcpy(&fn, p, sizeof(fn));
        assert_non_null(fn);
    }
    assert_int_equal(n, PJDL_PJRT_API_NUM_SLOTS);
    assert_non_null(pu_ext);
    assert_non_null(pu_stream_ext);
    assert_int_equal(pu_ext->version, PJRT_REF_EXTENSION_VERSION);
    assert_true(pu_ext->base.struct_size >= PJRT_Ref_Extension_STRUCT_SIZE);
}

static void test_unimplemented_slots_name_themselves(void **state) {
    (void)state;
    const PJRT_Api *api = pu_load();
    PJRT_Executable_Name_Args a = {.struct_size = PJRT_Executable_Name_Args_STRUCT_SIZE};
    PU_EXPECT_ERROR(api->PJRT_Executable_Name(&a), PJRT_Error_Code_UNIMPLEMENTED,
                    "PJRT_Executable_Name");
    PJRT_LoadedExecutable_Execute_Args e = {.struct_size =
                                                PJRT_LoadedExecutable_Execute_Args_STRUCT_SIZE};
    PU_EXPECT_ERROR(api->PJRT_LoadedExecutable_Execute(&e), PJRT_Error_Code_UNIMPLEMENTED,
                    "PJRT_LoadedExecutable_Execute");
    PJRT_Buffer_Bitcast_Args r = {.struct_size = PJRT_Buffer_Bitcast_Args_STRUCT_SIZE};
    PU_EXPECT_ERROR(api->PJRT_Buffer_Bitcast(&r), PJRT_Error_Code_UNIMPLEMENTED,
                    "PJRT_Buffer_Bitcast");
    PU_EXPECT_ERROR(api->PJRT_TopologyDescription_GetMemorySpaceKindIds(NULL),
                    PJRT_Error_Code_UNIMPLEMENTED,
                    "PJRT_TopologyDescription_GetMemorySpaceKindIds");
    PJRT_Client *c = pu_cpu_client();
    PJRT_Program program = {.struct_size = PJRT_Program_STRUCT_SIZE};
    PJRT_Client_Compile_Args cc = {
        .struct_size = PJRT_Client_Compile_Args_STRUCT_SIZE, .client = c, .program = &program};
    PU_EXPECT_ERROR(api->PJRT_Client_Compile(&cc), PJRT_Error_Code_UNIMPLEMENTED,
                    "PJRT_Client_Compile");
    pu_destroy_client(c);
}

static void test_plugin_initialize_and_attributes(void **state) {
    (void)state;
    const PJRT_Api *api = pu_load();
    PJRT_Plugin_Initialize_Args i = {.struct_size = PJRT_Plugin_Initialize_Args_STRUCT_SIZE};
    PU_OK(api->PJRT_Plugin_Initialize(&i));
    PJRT_Plugin_Attributes_Args a = {.struct_size = PJRT_Plugin_Attributes_Args_STRUCT_SIZE};
    PU_OK(api->PJRT_Plugin_Attributes(&a));
    bool found = false, sync_views = false;
    for (size_t k = 0; k < a.num_attributes; k++) {
        const PJRT_NamedValue *v = &a.attributes[k];
        if (v->name_size == strlen("pjrt_ref_version") &&
            memcmp(v->name, "pjrt_ref_version", v->name_size) == 0) {
            assert_int_equal(v->type, PJRT_NamedValue_kString);
            assert_true(v->value_size > 0);
            found = true;
        }
        /* The promise the Python module keeps the GIL on (an int64 1). */
        if (v->name_size == strlen("pjrt_dlpack_sync_views") &&
            memcmp(v->name, "pjrt_dlpack_sync_views", v->name_size) == 0) {
            assert_int_equal(v->type, PJRT_NamedValue_kInt64);
            assert_int_equal(v->int64_value, 1);
            sync_views = true;
        }
    }
    assert_true(found);
    assert_true(sync_views);
}

/* Clients built against older headers: PJRT_Plugin_Attributes_Args_STRUCT_SIZE
 * ended at `attributes` (24) until after API 0.60 (JAX 0.6.2 passes it, and
 * aborts on an error) although num_attributes was there; Client_Create_Args
 * ended at `client` before kv_try_get_callback (API 0.55). */
static void test_older_layouts(void **state) {
    (void)state;
    const PJRT_Api *api = pu_load();
    PJRT_Plugin_Attributes_Args a = {.struct_size =
                                         offsetof(PJRT_Plugin_Attributes_Args, num_attributes)};
    assert_int_equal(a.struct_size, 24);
    PU_OK(api->PJRT_Plugin_Attributes(&a));
    assert_non_null(a.attributes);
    assert_int_equal(a.num_attributes, 3);
    a.struct_size = offsetof(PJRT_Plugin_Attributes_Args, attributes);
    PU_EXPECT_ERROR(api->PJRT_Plugin_Attributes(&a), PJRT_Error_Code_INVALID_ARGUMENT,
                    "PJRT_Plugin_Attributes_Args: struct_size 16");
    PJRT_Client_Create_Args c = {.struct_size =
                                     offsetof(PJRT_Client_Create_Args, kv_try_get_callback)};
    PU_OK(api->PJRT_Client_Create(&c));
    assert_non_null(c.client);
    pu_destroy_client(c.client);
}

static void test_struct_size_checked(void **state) {
    (void)state;
    const PJRT_Api *api = pu_load();
    PJRT_Client *c = pu_cpu_client();
    PJRT_Client_PlatformName_Args p = {.struct_size = 8, .client = c};
    PU_EXPECT_ERROR(api->PJRT_Client_PlatformName(&p), PJRT_Error_Code_INVALID_ARGUMENT,
                    "PJRT_Client_PlatformName_Args");
    PU_EXPECT_ERROR(api->PJRT_Client_PlatformName(NULL), PJRT_Error_Code_INVALID_ARGUMENT,
                    "PJRT_Client_PlatformName_Args is NULL");
    PJRT_Client_BufferFromHostBuffer_Args h = {
        .struct_size = PJRT_Client_BufferFromHostBuffer_Args_STRUCT_SIZE - 1, .client = c};
    PU_EXPECT_ERROR(api->PJRT_Client_BufferFromHostBuffer(&h), PJRT_Error_Code_INVALID_ARGUMENT,
                    "PJRT_Client_BufferFromHostBuffer_Args: struct_size");
    PJRT_Event_Create_Args e = {.struct_size = 0};
    PU_EXPECT_ERROR(api->PJRT_Event_Create(&e), PJRT_Error_Code_INVALID_ARGUMENT,
                    "PJRT_Event_Create_Args");
    /* A larger struct (a newer caller) is accepted. */
    struct {
        PJRT_Client_PlatformName_Args args;
        char newer_fields[32];
    } big = {.args = {.struct_size = sizeof(big), .client = c}};
    PU_OK(api->PJRT_Client_PlatformName(&big.args));
    /* NULL handles are errors naming the handle. */
    PJRT_Client_PlatformName_Args nul = {.struct_size = PJRT_Client_PlatformName_Args_STRUCT_SIZE};
    PU_EXPECT_ERROR(api->PJRT_Client_PlatformName(&nul), PJRT_Error_Code_INVALID_ARGUMENT,
                    "client is NULL");
    PJRT_Buffer_ElementType_Args bt = {.struct_size = PJRT_Buffer_ElementType_Args_STRUCT_SIZE};
    PU_EXPECT_ERROR(api->PJRT_Buffer_ElementType(&bt), PJRT_Error_Code_INVALID_ARGUMENT,
                    "buffer is NULL");
    PJRT_Device_GetDescription_Args dd = {.struct_size =
                                              PJRT_Device_GetDescription_Args_STRUCT_SIZE};
    PU_EXPECT_ERROR(api->PJRT_Device_GetDescription(&dd), PJRT_Error_Code_INVALID_ARGUMENT,
                    "device is NULL");
    pu_destroy_client(c);
}

static void test_errors(void **state) {
    (void)state;
    const PJRT_Api *api = pu_load();
    /* Destroying NULL is fine; GetCode of NULL is an error. */
    PJRT_Error_Destroy_Args d = {.struct_size = PJRT_Error_Destroy_Args_STRUCT_SIZE};
    api->PJRT_Error_Destroy(&d);
    PJRT_Error_GetCode_Args g = {.struct_size = PJRT_Error_GetCode_Args_STRUCT_SIZE};
    PU_EXPECT_ERROR(api->PJRT_Error_GetCode(&g), PJRT_Error_Code_INVALID_ARGUMENT, "error");
    /* The vtable of an error agrees with the entry points. */
    PJRT_NamedValue bad = pu_opt_string("platform", "tpu");
    PJRT_Client_Create_Args ca = {.struct_size = PJRT_Client_Create_Args_STRUCT_SIZE,
                                  .create_options = &bad,
                                  .num_options = 1};
    PJRT_Error *err = api->PJRT_Client_Create(&ca);
    assert_non_null(err);
    assert_non_null(err->vtable);
    assert_int_equal(err->vtable->get_code(err), PJRT_Error_Code_INVALID_ARGUMENT);
    const char *m;
    size_t n;
    err->vtable->message(err, &m, &n);
    PJRT_Error_ForEachPayload_Args fp = {.struct_size = PJRT_Error_ForEachPayload_Args_STRUCT_SIZE,
                                         .error = err};
    PU_EXPECT_ERROR(api->PJRT_Error_ForEachPayload(&fp), PJRT_Error_Code_INVALID_ARGUMENT,
                    "visitor");
    assert_int_equal(n, strlen(pu_take(err).msg)); /* read through the API, then destroyed */
}

static void test_client_options(void **state) {
    (void)state;
    PJRT_Client *c = NULL;
    PJRT_NamedValue o[3];
    o[0] = pu_opt_string("platform", "tpu");
    PU_EXPECT_ERROR(pu_try_client(o, 1, &c), PJRT_Error_Code_INVALID_ARGUMENT,
                    "unknown platform 'tpu'");
    o[0] = pu_opt_int("num_devices", 0);
    PU_EXPECT_ERROR(pu_try_client(o, 1, &c), PJRT_Error_Code_INVALID_ARGUMENT, "num_devices");
    o[0] = pu_opt_int("num_devices", 65);
    PU_EXPECT_ERROR(pu_try_client(o, 1, &c), PJRT_Error_Code_INVALID_ARGUMENT, "[1, 64]");
    o[0] = pu_opt_string("num_devices", "2");
    PU_EXPECT_ERROR(pu_try_client(o, 1, &c), PJRT_Error_Code_INVALID_ARGUMENT, "must be an int64");
    o[0] = pu_opt_int("colour", 3);
    PU_EXPECT_ERROR(pu_try_client(o, 1, &c), PJRT_Error_Code_INVALID_ARGUMENT,
                    "unknown option 'colour'");
    o[0] = pu_opt_string("platform", "cpu");
    o[1] = pu_opt_int("transfer_delay_us", 10);
    PU_EXPECT_ERROR(pu_try_client(o, 2, &c), PJRT_Error_Code_INVALID_ARGUMENT,
                    "only to platform 'xpu'");
    PJRT_Client_Create_Args a = {.struct_size = PJRT_Client_Create_Args_STRUCT_SIZE,
                                 .num_options = 1};
    PU_EXPECT_ERROR(pu_api->PJRT_Client_Create(&a), PJRT_Error_Code_INVALID_ARGUMENT,
                    "create_options is NULL");

    /* Defaults: cpu, one device. */
    c = pu_client(NULL, 0);
    PJRT_Client_PlatformName_Args pn = {.struct_size = PJRT_Client_PlatformName_Args_STRUCT_SIZE,
                                        .client = c};
    PU_OK(pu_api->PJRT_Client_PlatformName(&pn));
    assert_int_equal(pn.platform_name_size, 3);
    assert_memory_equal(pn.platform_name, "cpu", 3);
    PJRT_Client_Devices_Args d = {.struct_size = PJRT_Client_Devices_Args_STRUCT_SIZE, .client = c};
    PU_OK(pu_api->PJRT_Client_Devices(&d));
    assert_int_equal(d.num_devices, 1);
    pu_destroy_client(c);

    o[0] = pu_opt_string("platform", "cpu");
    o[1] = pu_opt_int("num_devices", 64);
    c = pu_client(o, 2);
    d.client = c;
    PU_OK(pu_api->PJRT_Client_Devices(&d));
    assert_int_equal(d.num_devices, 64);
    pu_destroy_client(c);

    /* Destroying NULL is fine. */
    PJRT_Client_Destroy_Args des = {.struct_size = PJRT_Client_Destroy_Args_STRUCT_SIZE};
    PU_OK(pu_api->PJRT_Client_Destroy(&des));
}

static void test_client_queries(void **state) {
    (void)state;
    const PJRT_Api *api = pu_load();
    PJRT_NamedValue o[2] = {pu_opt_string("platform", "cpu"), pu_opt_int("num_devices", 3)};
    PJRT_Client *c = pu_client(o, 2);
    PJRT_Client_ProcessIndex_Args pi = {.struct_size = PJRT_Client_ProcessIndex_Args_STRUCT_SIZE,
                                        .client = c};
    PU_OK(api->PJRT_Client_ProcessIndex(&pi));
    assert_int_equal(pi.process_index, 0);
    PJRT_Client_PlatformVersion_Args pv = {
        .struct_size = PJRT_Client_PlatformVersion_Args_STRUCT_SIZE, .client = c};
    PU_OK(api->PJRT_Client_PlatformVersion(&pv));
    assert_true(pv.platform_version_size > 0);
    assert_non_null(strstr(pv.platform_version, "pjrt_ref"));

    PJRT_Client_AddressableDevices_Args ad = {
        .struct_size = PJRT_Client_AddressableDevices_Args_STRUCT_SIZE, .client = c};
    PU_OK(api->PJRT_Client_AddressableDevices(&ad));
    assert_int_equal(ad.num_addressable_devices, 3);
    for (int i = 0; i < 3; i++) {
        PJRT_Client_LookupDevice_Args l = {
            .struct_size = PJRT_Client_LookupDevice_Args_STRUCT_SIZE, .client = c, .id = i};
        PU_OK(api->PJRT_Client_LookupDevice(&l));
        assert_ptr_equal(l.device, ad.addressable_devices[i]);
        PJRT_Client_LookupAddressableDevice_Args la = {
            .struct_size = PJRT_Client_LookupAddressableDevice_Args_STRUCT_SIZE,
            .client = c,
            .local_hardware_id = i};
        PU_OK(api->PJRT_Client_LookupAddressableDevice(&la));
        assert_ptr_equal(la.addressable_device, l.device);
    }
    PJRT_Client_LookupDevice_Args bad = {
        .struct_size = PJRT_Client_LookupDevice_Args_STRUCT_SIZE, .client = c, .id = 3};
    PU_EXPECT_ERROR(api->PJRT_Client_LookupDevice(&bad), PJRT_Error_Code_INVALID_ARGUMENT,
                    "no device with id 3");
    bad.id = -1;
    PU_EXPECT_ERROR(api->PJRT_Client_LookupDevice(&bad), PJRT_Error_Code_INVALID_ARGUMENT, "id -1");
    PJRT_Client_LookupAddressableDevice_Args lb = {
        .struct_size = PJRT_Client_LookupAddressableDevice_Args_STRUCT_SIZE,
        .client = c,
        .local_hardware_id = 99};
    PU_EXPECT_ERROR(api->PJRT_Client_LookupAddressableDevice(&lb), PJRT_Error_Code_INVALID_ARGUMENT,
                    "local_hardware_id 99");

    PJRT_Client_AddressableMemories_Args am = {
        .struct_size = PJRT_Client_AddressableMemories_Args_STRUCT_SIZE, .client = c};
    PU_OK(api->PJRT_Client_AddressableMemories(&am));
    assert_int_equal(am.num_addressable_memories, 3);
    pu_destroy_client(c);
}

/* The device description's id, process, kind, strings and attributes; the
 * attributes are returned for the device's own to be compared with. */
static PJRT_DeviceDescription_Attributes_Args check_description(PJRT_DeviceDescription *desc,
                                                                int id, const char *kind) {
    const PJRT_Api *api = pu_api;
    PJRT_DeviceDescription_Id_Args i = {.struct_size = PJRT_DeviceDescription_Id_Args_STRUCT_SIZE,
                                        .device_description = desc};
    PU_OK(api->PJRT_DeviceDescription_Id(&i));
    assert_int_equal(i.id, id);
    PJRT_DeviceDescription_ProcessIndex_Args p = {
        .struct_size = PJRT_DeviceDescription_ProcessIndex_Args_STRUCT_SIZE,
        .device_description = desc};
    PU_OK(api->PJRT_DeviceDescription_ProcessIndex(&p));
    assert_int_equal(p.process_index, 0);
    PJRT_DeviceDescription_Kind_Args k = {
        .struct_size = PJRT_DeviceDescription_Kind_Args_STRUCT_SIZE, .device_description = desc};
    PU_OK(api->PJRT_DeviceDescription_Kind(&k));
    assert_int_equal(k.device_kind_size, strlen(kind));
    assert_memory_equal(k.device_kind, kind, k.device_kind_size);
    PJRT_DeviceDescription_DebugString_Args ds = {
        .struct_size = PJRT_DeviceDescription_DebugString_Args_STRUCT_SIZE,
        .device_description = desc};
    PU_OK(api->PJRT_DeviceDescription_DebugString(&ds));
    assert_true(ds.debug_string_size > 0);
    PJRT_DeviceDescription_ToString_Args ts = {.struct_size =
                                                   PJRT_DeviceDescription_ToString_Args_STRUCT_SIZE,
                                               .device_description = desc};
    PU_OK(api->PJRT_DeviceDescription_ToString(&ts));
    char want[32];
    snprintf(want, sizeof(want), "(id=%d)", id);
    assert_non_null(strstr(ts.to_string, want));
    PJRT_DeviceDescription_Attributes_Args at = {
        .struct_size = PJRT_DeviceDescription_Attributes_Args_STRUCT_SIZE,
        .device_description = desc};
    PU_OK(api->PJRT_DeviceDescription_Attributes(&at));
    assert_true(at.num_attributes >= 1);
    return at;
}

/* Memory `j` of device `dev` (of `num_memories`, device `id`). */
static void check_memory(PJRT_Device *dev, PJRT_Memory *mem, int id, size_t j,
                         size_t num_memories) {
    const PJRT_Api *api = pu_api;
    PJRT_Memory_AddressableByDevices_Args ab = {
        .struct_size = PJRT_Memory_AddressableByDevices_Args_STRUCT_SIZE, .memory = mem};
    PU_OK(api->PJRT_Memory_AddressableByDevices(&ab));
    assert_int_equal(ab.num_devices, 1);
    assert_ptr_equal(ab.devices[0], dev);
    PJRT_Memory_Kind_Args mk = {.struct_size = PJRT_Memory_Kind_Args_STRUCT_SIZE, .memory = mem};
    PU_OK(api->PJRT_Memory_Kind(&mk));
    const char *want_kind = j == 0 ? "device" : "pinned_host";
    assert_int_equal(mk.kind_size, strlen(want_kind));
    assert_memory_equal(mk.kind, want_kind, mk.kind_size);
    PJRT_Memory_Kind_Id_Args mki = {.struct_size = PJRT_Memory_Kind_Id_Args_STRUCT_SIZE,
                                    .memory = mem};
    PU_OK(api->PJRT_Memory_Kind_Id(&mki));
    assert_int_equal(mki.kind_id, (int)j);
    PJRT_Memory_Id_Args mi = {.struct_size = PJRT_Memory_Id_Args_STRUCT_SIZE, .memory = mem};
    PU_OK(api->PJRT_Memory_Id(&mi));
    assert_int_equal(mi.id, (int)(id * num_memories + j));
    PJRT_Memory_DebugString_Args md = {.struct_size = PJRT_Memory_DebugString_Args_STRUCT_SIZE,
                                       .memory = mem};
    PU_OK(api->PJRT_Memory_DebugString(&md));
    assert_true(md.debug_string_size > 0);
    PJRT_Memory_ToString_Args mt = {.struct_size = PJRT_Memory_ToString_Args_STRUCT_SIZE,
                                    .memory = mem};
    PU_OK(api->PJRT_Memory_ToString(&mt));
    assert_true(mt.to_string_size > 0);
    /* The memory's function table: user data by key. */
    static int key;
    assert_non_null(mem->vtable);
    assert_null(mem->vtable->get_user_data(mem, &key));
    mem->vtable->set_user_data(mem, &key, &key, NULL);
    assert_ptr_equal(mem->vtable->get_user_data(mem, &key), &key);
}

static void check_device(PJRT_Device *dev, int id, const char *kind, size_t num_memories) {
    const PJRT_Api *api = pu_api;
    PJRT_Device_GetDescription_Args g = {.struct_size = PJRT_Device_GetDescription_Args_STRUCT_SIZE,
                                         .device = dev};
    PU_OK(api->PJRT_Device_GetDescription(&g));
    PJRT_DeviceDescription_Attributes_Args at = check_description(g.device_description, id, kind);
    PJRT_Device_GetAttributes_Args ga = {.struct_size = PJRT_Device_GetAttributes_Args_STRUCT_SIZE,
                                         .device = dev};
    PU_OK(api->PJRT_Device_GetAttributes(&ga));
    assert_int_equal(ga.num_attributes, at.num_attributes);
    assert_ptr_equal(ga.attributes, at.attributes);
    assert_non_null(ga.attributes_deleter);
    ga.attributes_deleter(ga.device_attributes);
    PJRT_Device_IsAddressable_Args ia = {.struct_size = PJRT_Device_IsAddressable_Args_STRUCT_SIZE,
                                         .device = dev};
    PU_OK(api->PJRT_Device_IsAddressable(&ia));
    assert_true(ia.is_addressable);
    PJRT_Device_LocalHardwareId_Args lh = {
        .struct_size = PJRT_Device_LocalHardwareId_Args_STRUCT_SIZE, .device = dev};
    PU_OK(api->PJRT_Device_LocalHardwareId(&lh));
    assert_int_equal(lh.local_hardware_id, id);

    PJRT_Device_AddressableMemories_Args m = {
        .struct_size = PJRT_Device_AddressableMemories_Args_STRUCT_SIZE, .device = dev};
    PU_OK(api->PJRT_Device_AddressableMemories(&m));
    assert_int_equal(m.num_memories, num_memories);
    PJRT_Device_DefaultMemory_Args dm = {.struct_size = PJRT_Device_DefaultMemory_Args_STRUCT_SIZE,
                                         .device = dev};
    PU_OK(api->PJRT_Device_DefaultMemory(&dm));
    assert_ptr_equal(dm.memory, m.memories[0]);
    for (size_t j = 0; j < m.num_memories; j++)
        check_memory(dev, m.memories[j], id, j, num_memories);
}

static void test_devices_and_memories(void **state) {
    (void)state;
    PJRT_NamedValue o[2] = {pu_opt_string("platform", "cpu"), pu_opt_int("num_devices", 2)};
    PJRT_Client *c = pu_client(o, 2);
    check_device(pu_device(c, 0), 0, "cpu", 1);
    check_device(pu_device(c, 1), 1, "cpu", 1);
    pu_destroy_client(c);
    o[0] = pu_opt_string("platform", "xpu");
    c = pu_client(o, 2);
    check_device(pu_device(c, 0), 0, "pjrt_ref simulated xpu", 2);
    check_device(pu_device(c, 1), 1, "pjrt_ref simulated xpu", 2);
    pu_destroy_client(c);
}

static void test_memory_stats(void **state) {
    (void)state;
    PJRT_Client *c = pu_cpu_client();
    PJRT_Device_MemoryStats_Args s = {.struct_size = PJRT_Device_MemoryStats_Args_STRUCT_SIZE,
                                      .device = pu_device(c, 0)};
    PU_OK(pu_api->PJRT_Device_MemoryStats(&s));
    assert_int_equal(s.bytes_in_use, 0);
    float data[256] = {0};
    int64_t dims[1] = {256};
    PJRT_Buffer *b = pu_f32(c, data, dims, 1);
    PU_OK(pu_api->PJRT_Device_MemoryStats(&s));
    assert_int_equal(s.bytes_in_use, 1024);
    assert_true(s.num_allocs_is_set);
    assert_int_equal(s.num_allocs, 1);
    assert_int_equal(s.largest_alloc_size, 1024);
    assert_false(s.bytes_limit_is_set);
    assert_false(s.pool_bytes_is_set);
    pu_destroy_buffer(b);
    PU_OK(pu_api->PJRT_Device_MemoryStats(&s));
    assert_int_equal(s.bytes_in_use, 0);
    assert_int_equal(s.peak_bytes_in_use, 1024);
    PJRT_Device_ClearMemoryStats_Args cl = {
        .struct_size = PJRT_Device_ClearMemoryStats_Args_STRUCT_SIZE, .device = pu_device(c, 0)};
    PU_OK(pu_api->PJRT_Device_ClearMemoryStats(&cl));
    PU_OK(pu_api->PJRT_Device_MemoryStats(&s));
    assert_int_equal(s.peak_bytes_in_use, 0);
    assert_int_equal(s.num_allocs, 0);
    /* An older caller's struct, ending at bytes_limit_is_set, is accepted. */
    s.struct_size = offsetof(PJRT_Device_MemoryStats_Args, bytes_limit_is_set) + sizeof(bool);
    PU_OK(pu_api->PJRT_Device_MemoryStats(&s));
    s.struct_size = offsetof(PJRT_Device_MemoryStats_Args, bytes_in_use);
    PU_EXPECT_ERROR(pu_api->PJRT_Device_MemoryStats(&s), PJRT_Error_Code_INVALID_ARGUMENT,
                    "PJRT_Device_MemoryStats_Args");
    pu_destroy_client(c);
}

static int on_ready_calls;
static PJRT_Error_Code on_ready_code;

static void on_ready(PJRT_Error *err, void *arg) {
    on_ready_calls++;
    on_ready_code = (PJRT_Error_Code)pu_take(err).code;
    assert_ptr_equal(arg, &on_ready_calls);
}

static void test_events(void **state) {
    (void)state;
    const PJRT_Api *api = pu_load();
    PJRT_Event_Create_Args c = {.struct_size = PJRT_Event_Create_Args_STRUCT_SIZE};
    PU_OK(api->PJRT_Event_Create(&c));
    PJRT_Event *e = c.event;
    assert_false(pu_is_ready(e));
    PJRT_Event_Error_Args ee = {.struct_size = PJRT_Event_Error_Args_STRUCT_SIZE, .event = e};
    PU_EXPECT_ERROR(api->PJRT_Event_Error(&ee), PJRT_Error_Code_FAILED_PRECONDITION, "not ready");
    on_ready_calls = 0;
    PJRT_Event_OnReady_Args o = {.struct_size = PJRT_Event_OnReady_Args_STRUCT_SIZE,
                                 .event = e,
                                 .callback = on_ready,
                                 .user_arg = &on_ready_calls};
    PU_OK(api->PJRT_Event_OnReady(&o));
    assert_int_equal(on_ready_calls, 0);
    PJRT_Event_Set_Args s = {.struct_size = PJRT_Event_Set_Args_STRUCT_SIZE,
                             .event = e,
                             .error_code = PJRT_Error_Code_ABORTED,
                             .error_message = "stopped by test",
                             .error_message_size = strlen("stopped by test")};
    PU_OK(api->PJRT_Event_Set(&s));
    assert_int_equal(on_ready_calls, 1);
    assert_int_equal(on_ready_code, PJRT_Error_Code_ABORTED);
    assert_true(pu_is_ready(e));
    PU_EXPECT_ERROR(api->PJRT_Event_Error(&ee), PJRT_Error_Code_ABORTED, "stopped by test");
    PU_EXPECT_ERROR(pu_await(e), PJRT_Error_Code_ABORTED, "stopped by test");
    PU_EXPECT_ERROR(api->PJRT_Event_Set(&s), PJRT_Error_Code_FAILED_PRECONDITION, "already set");
    /* OnReady on a ready event runs at once. */
    PU_OK(api->PJRT_Event_OnReady(&o));
    assert_int_equal(on_ready_calls, 2);
    o.callback = NULL;
    PU_EXPECT_ERROR(api->PJRT_Event_OnReady(&o), PJRT_Error_Code_INVALID_ARGUMENT, "callback");
    pu_destroy_event(e);

    PU_OK(api->PJRT_Event_Create(&c));
    s.event = c.event;
    s.error_code = PJRT_Error_Code_OK;
    PU_OK(api->PJRT_Event_Set(&s));
    PU_OK(pu_await(c.event));
    ee.event = c.event;
    PU_OK(api->PJRT_Event_Error(&ee));
    pu_destroy_event(c.event);

    /* Only events from PJRT_Event_Create can be set. */
    PJRT_Client *cl = pu_cpu_client();
    float x = 1;
    PJRT_Buffer *b = pu_f32(cl, &x, NULL, 0);
    PJRT_Event *ready = pu_ready_event(b);
    s.event = ready;
    PU_EXPECT_ERROR(api->PJRT_Event_Set(&s), PJRT_Error_Code_INVALID_ARGUMENT,
                    "not created by PJRT_Event_Create");
    pu_destroy_event(ready);
    pu_destroy_buffer(b);
    pu_destroy_client(cl);
    /* Destroying NULL is fine. */
    pu_destroy_event(NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_complete),
        cmocka_unit_test(test_unimplemented_slots_name_themselves),
        cmocka_unit_test(test_plugin_initialize_and_attributes),
        cmocka_unit_test(test_older_layouts),
        cmocka_unit_test(test_struct_size_checked),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_client_options),
        cmocka_unit_test(test_client_queries),
        cmocka_unit_test(test_devices_and_memories),
        cmocka_unit_test(test_memory_stats),
        cmocka_unit_test(test_events),
    };
    return PU_RUN_TESTS(tests, NULL);
}
