/* What framework clients need from the plugin. XLA's C-API client (the one
 * JAX uses for every plugin platform) reads the platform, the devices, their
 * descriptions and attributes and the memories when it is created, and ends
 * the process when one of those calls fails or returns a value it cannot
 * represent. These tests make the same calls on both platforms and check
 * the values against what that client accepts; and they pin behaviour JAX
 * relies on later (copies into a buffer's own memory). */
#include "plugin_util.h"

static PJRT_Client *client_for(const char *platform) {
    PJRT_NamedValue o = pu_opt_string("platform", platform);
    return pu_client(&o, 1);
}

/* XLA turns device attributes into its own variant, which has strings,
 * int64 and int64 lists only: any other type (kBool, kFloat) aborts the
 * process in JAX ("Attribute ... has unsupported type"). */
static void check_device_attribute_types(const PJRT_NamedValue *attrs, size_t n) {
    for (size_t i = 0; i < n; i++) {
        const PJRT_NamedValue *v = &attrs[i];
        assert_true(v->name != NULL && v->name_size > 0);
        if (v->type != PJRT_NamedValue_kString && v->type != PJRT_NamedValue_kInt64 &&
            v->type != PJRT_NamedValue_kInt64List)
            fail_msg("device attribute '%.*s' has type %d; XLA's client accepts only string, "
                     "int64 and int64 list",
                     (int)v->name_size, v->name, (int)v->type);
    }
}

static int64_t attribute_int64(const PJRT_NamedValue *attrs, size_t n, const char *name) {
    for (size_t i = 0; i < n; i++)
        if (attrs[i].name_size == strlen(name) && memcmp(attrs[i].name, name, strlen(name)) == 0) {
            assert_int_equal(attrs[i].type, PJRT_NamedValue_kInt64);
            return attrs[i].int64_value;
        }
    fail_msg("no device attribute '%s'", name);
    return -1;
}

/* The calls XLA's C-API client makes when it is created, in its order, all
 * of which must succeed. */
static void check_creation_calls(const char *platform, int64_t simulated) {
    const PJRT_Api *api = pu_load();
    PJRT_Plugin_Attributes_Args pa = {.struct_size = PJRT_Plugin_Attributes_Args_STRUCT_SIZE};
    PU_OK(api->PJRT_Plugin_Attributes(&pa));
    PJRT_Client *c = client_for(platform);
    PJRT_Client_PlatformName_Args pn = {.struct_size = PJRT_Client_PlatformName_Args_STRUCT_SIZE,
                                        .client = c};
    PU_OK(api->PJRT_Client_PlatformName(&pn));
    assert_int_equal(pn.platform_name_size, strlen(platform));
    PJRT_Client_PlatformVersion_Args pv = {
        .struct_size = PJRT_Client_PlatformVersion_Args_STRUCT_SIZE, .client = c};
    PU_OK(api->PJRT_Client_PlatformVersion(&pv));
    assert_true(pv.platform_version_size > 0);
    PJRT_Client_ProcessIndex_Args pi = {.struct_size = PJRT_Client_ProcessIndex_Args_STRUCT_SIZE,
                                        .client = c};
    PU_OK(api->PJRT_Client_ProcessIndex(&pi));
    assert_int_equal(pi.process_index, 0);

    PJRT_Client_Devices_Args d = {.struct_size = PJRT_Client_Devices_Args_STRUCT_SIZE, .client = c};
    PU_OK(api->PJRT_Client_Devices(&d));
    PJRT_Client_AddressableDevices_Args ad = {
        .struct_size = PJRT_Client_AddressableDevices_Args_STRUCT_SIZE, .client = c};
    PU_OK(api->PJRT_Client_AddressableDevices(&ad));
    assert_int_equal(ad.num_addressable_devices, d.num_devices);
    for (size_t i = 0; i < d.num_devices; i++) {
        PJRT_Device *dev = d.devices[i];
        PJRT_Device_GetDescription_Args gd = {
            .struct_size = PJRT_Device_GetDescription_Args_STRUCT_SIZE, .device = dev};
        PU_OK(api->PJRT_Device_GetDescription(&gd));
        PJRT_DeviceDescription_Attributes_Args at = {
            .struct_size = PJRT_DeviceDescription_Attributes_Args_STRUCT_SIZE,
            .device_description = gd.device_description};
        PU_OK(api->PJRT_DeviceDescription_Attributes(&at));
        check_device_attribute_types(at.attributes, at.num_attributes);
        assert_int_equal(attribute_int64(at.attributes, at.num_attributes, "simulated"), simulated);
        PJRT_Device_GetAttributes_Args ga = {
            .struct_size = PJRT_Device_GetAttributes_Args_STRUCT_SIZE, .device = dev};
        PU_OK(api->PJRT_Device_GetAttributes(&ga));
        check_device_attribute_types(ga.attributes, ga.num_attributes);
        ga.attributes_deleter(ga.device_attributes);
        PJRT_DeviceDescription_ProcessIndex_Args dp = {
            .struct_size = PJRT_DeviceDescription_ProcessIndex_Args_STRUCT_SIZE,
            .device_description = gd.device_description};
        PU_OK(api->PJRT_DeviceDescription_ProcessIndex(&dp));
        assert_int_equal(dp.process_index, 0);
        PJRT_Device_IsAddressable_Args ia = {
            .struct_size = PJRT_Device_IsAddressable_Args_STRUCT_SIZE, .device = dev};
        PU_OK(api->PJRT_Device_IsAddressable(&ia));
        assert_true(ia.is_addressable);
        PJRT_Device_AddressableMemories_Args am = {
            .struct_size = PJRT_Device_AddressableMemories_Args_STRUCT_SIZE, .device = dev};
        PU_OK(api->PJRT_Device_AddressableMemories(&am));
        assert_true(am.num_memories >= 1);
        for (size_t m = 0; m < am.num_memories; m++) {
            /* XLA links each memory to the devices that address it: every
             * memory a device lists must list that device back. */
            PJRT_Memory_AddressableByDevices_Args ab = {
                .struct_size = PJRT_Memory_AddressableByDevices_Args_STRUCT_SIZE,
                .memory = am.memories[m]};
            PU_OK(api->PJRT_Memory_AddressableByDevices(&ab));
            bool back = false;
            for (size_t k = 0; k < ab.num_devices; k++)
                back = back || ab.devices[k] == dev;
            assert_true(back);
        }
    }
    PJRT_Client_AddressableMemories_Args cm = {
        .struct_size = PJRT_Client_AddressableMemories_Args_STRUCT_SIZE, .client = c};
    PU_OK(api->PJRT_Client_AddressableMemories(&cm));
    assert_true(cm.num_addressable_memories >= d.num_devices);
    /* No topology: XLA's client accepts UNIMPLEMENTED here (and only
     * that). */
    PJRT_Client_TopologyDescription_Args td = {
        .struct_size = PJRT_Client_TopologyDescription_Args_STRUCT_SIZE, .client = c};
    PU_EXPECT_ERROR(api->PJRT_Client_TopologyDescription(&td), PJRT_Error_Code_UNIMPLEMENTED,
                    "PJRT_Client_TopologyDescription");
    pu_destroy_client(c);
}

static void test_client_creation_cpu(void **state) {
    (void)state;
    check_creation_calls("cpu", 0);
}

static void test_client_creation_xpu(void **state) {
    (void)state;
    check_creation_calls("xpu", 1);
}

/* JAX's device_put(x, x.device, may_alias=False) (and jnp.array(x,
 * copy=True) without a compiler) copies a buffer into the memory it is
 * already in. XLA makes a new buffer; so does the reference plugin, on every
 * memory of both platforms. */
static void copy_into_own_memory(const char *platform, const char *kind) {
    const PJRT_Api *api = pu_load();
    PJRT_Client *c = client_for(platform);
    PJRT_Memory *mem = pu_memory(pu_device(c, 0), kind);
    float data[6] = {1, -2, 3, -4, 5, -6};
    int64_t dims[2] = {2, 3};
    PJRT_Client_BufferFromHostBuffer_Args h = pu_h2d_args(c, data, PJRT_Buffer_Type_F32, dims, 2);
    h.device = NULL;
    h.memory = mem;
    PJRT_Buffer *b = pu_h2d(&h);
    PJRT_Buffer_CopyToMemory_Args cm = {
        .struct_size = PJRT_Buffer_CopyToMemory_Args_STRUCT_SIZE, .buffer = b, .dst_memory = mem};
    PU_OK(api->PJRT_Buffer_CopyToMemory(&cm));
    assert_non_null(cm.dst_buffer);
    assert_ptr_not_equal(cm.dst_buffer, b);
    PJRT_Buffer_Memory_Args bm = {.struct_size = PJRT_Buffer_Memory_Args_STRUCT_SIZE,
                                  .buffer = cm.dst_buffer};
    PU_OK(api->PJRT_Buffer_Memory(&bm));
    assert_ptr_equal(bm.memory, mem);
    assert_ptr_not_equal(pu_pointer(cm.dst_buffer), pu_pointer(b));
    /* The copy is independent of the source: deleting the source first
     * must not disturb it. */
    PU_OK(pu_delete_buffer(b));
    float out[6] = {0};
    PU_OK(pu_to_host(cm.dst_buffer, out, sizeof(out), NULL));
    assert_memory_equal(out, data, sizeof(data));
    PJRT_Buffer_CopyToDevice_Args cd = {.struct_size = PJRT_Buffer_CopyToDevice_Args_STRUCT_SIZE,
                                        .buffer = cm.dst_buffer,
                                        .dst_device = pu_device(c, 0)};
    PU_OK(api->PJRT_Buffer_CopyToDevice(&cd));
    memset(out, 0, sizeof(out));
    PU_OK(pu_to_host(cd.dst_buffer, out, sizeof(out), NULL));
    assert_memory_equal(out, data, sizeof(data));
    pu_destroy_buffer(cd.dst_buffer);
    pu_destroy_buffer(cm.dst_buffer);
    pu_destroy_buffer(b);
    pu_destroy_client(c);
}

static void test_copy_into_own_memory(void **state) {
    (void)state;
    copy_into_own_memory("cpu", "device");
    copy_into_own_memory("xpu", "device");
    copy_into_own_memory("xpu", "pinned_host");
}

/* XLA's C-API client passes layouts (PJRT_Buffer_MemoryLayout, and its
 * tiled member) without setting their struct_size: JAX's view of a DLPack
 * tensor reached the plugin with struct_size 1. XLA's plugins do not read
 * it; neither does the reference plugin. */
static void layouts_without_struct_size(const char *platform) {
    const PJRT_Api *api = pu_load();
    PJRT_Client *c = client_for(platform);
    float data[6] = {1, 2, 3, 4, 5, 6};
    int64_t dims[2] = {2, 3};
    PJRT_Buffer *src = pu_f32(c, data, dims, 2);
    static const size_t garbage[] = {0, 1, 8, (size_t)0xdeadbeef};
    for (size_t g = 0; g < sizeof garbage / sizeof garbage[0]; g++) {
        int64_t m2m[2] = {1, 0};
        PJRT_Buffer_MemoryLayout layout;
        memset(&layout, 0, sizeof layout);
        layout.struct_size = garbage[g];
        layout.type = PJRT_Buffer_MemoryLayout_Type_Tiled;
        layout.tiled.struct_size = garbage[g];
        layout.tiled.minor_to_major = m2m;
        layout.tiled.minor_to_major_size = 2;
        int deleted = 0;
        PJRT_Client_CreateViewOfDeviceBuffer_Args v =
            pu_view_args(c, pu_pointer(src), PJRT_Buffer_Type_F32, dims, 2, &deleted);
        v.layout = &layout;
        PU_OK(api->PJRT_Client_CreateViewOfDeviceBuffer(&v));
        float out[6] = {0};
        PU_OK(pu_to_host(v.buffer, out, sizeof(out), &layout));
        assert_memory_equal(out, data, sizeof(data));
        pu_destroy_buffer(v.buffer);
        assert_int_equal(deleted, 1);
        PJRT_Client_BufferFromHostBuffer_Args h =
            pu_h2d_args(c, data, PJRT_Buffer_Type_F32, dims, 2);
        h.device_layout = &layout;
        PJRT_Buffer *b = pu_h2d(&h);
        memset(out, 0, sizeof(out));
        PU_OK(pu_to_host(b, out, sizeof(out), NULL));
        assert_memory_equal(out, data, sizeof(data));
        pu_destroy_buffer(b);
    }
    pu_destroy_buffer(src);
    pu_destroy_client(c);
}

static void test_layouts_without_struct_size(void **state) {
    (void)state;
    layouts_without_struct_size("cpu");
    layouts_without_struct_size("xpu");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_client_creation_cpu),
        cmocka_unit_test(test_client_creation_xpu),
        cmocka_unit_test(test_copy_into_own_memory),
        cmocka_unit_test(test_layouts_without_struct_size),
    };
    return PU_RUN_TESTS(tests, NULL);
}
