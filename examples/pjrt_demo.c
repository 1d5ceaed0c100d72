/*
 * pjrt-demo: drives a PJRT plugin through the raw C API, as any framework
 * would. Loads the plugin with dlopen, creates a client, lists its devices and
 * memories, moves an array to the first device and back, and checks it.
 *
 *   pjrt-demo PLUGIN.so [platform]
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pjrt_dlpack/pjrt_abi.h"

static const PJRT_Api *api;

/* Prints a PJRT error, destroys it, and returns 1; returns 0 for no error. */
static int report(const char *what, PJRT_Error *err) {
    if (err == NULL)
        return 0;
    PJRT_Error_Message_Args m = {.struct_size = PJRT_Error_Message_Args_STRUCT_SIZE, .error = err};
    api->PJRT_Error_Message(&m);
    fprintf(stderr, "pjrt-demo: %s failed: %.*s\n", what, (int)m.message_size, m.message);
    PJRT_Error_Destroy_Args d = {.struct_size = PJRT_Error_Destroy_Args_STRUCT_SIZE, .error = err};
    api->PJRT_Error_Destroy(&d);
    return 1;
}

static int await_event(const char *what, PJRT_Event *event) {
    PJRT_Event_Await_Args a = {.struct_size = PJRT_Event_Await_Args_STRUCT_SIZE, .event = event};
    int failed = report(what, api->PJRT_Event_Await(&a));
    PJRT_Event_Destroy_Args d = {.struct_size = PJRT_Event_Destroy_Args_STRUCT_SIZE,
                                 .event = event};
    failed |= report("PJRT_Event_Destroy", api->PJRT_Event_Destroy(&d));
    return failed;
}

static void list_memories(PJRT_Device *device) {
    PJRT_Device_AddressableMemories_Args m = {
        .struct_size = PJRT_Device_AddressableMemories_Args_STRUCT_SIZE, .device = device};
    if (report("PJRT_Device_AddressableMemories", api->PJRT_Device_AddressableMemories(&m)))
        return;
    for (size_t i = 0; i < m.num_memories; i++) {
        PJRT_Memory_Kind_Args k = {.struct_size = PJRT_Memory_Kind_Args_STRUCT_SIZE,
                                   .memory = m.memories[i]};
        if (report("PJRT_Memory_Kind", api->PJRT_Memory_Kind(&k)))
            continue;
        printf("    memory %zu: kind %.*s\n", i, (int)k.kind_size, k.kind);
    }
}

static int list_devices(PJRT_Client *client, PJRT_Device **first) {
    PJRT_Client_AddressableDevices_Args a = {
        .struct_size = PJRT_Client_AddressableDevices_Args_STRUCT_SIZE, .client = client};
    if (report("PJRT_Client_AddressableDevices", api->PJRT_Client_AddressableDevices(&a)))
        return 1;
    printf("addressable devices: %zu\n", a.num_addressable_devices);
    for (size_t i = 0; i < a.num_addressable_devices; i++) {
        PJRT_Device_GetDescription_Args g = {.struct_size =
                                                 PJRT_Device_GetDescription_Args_STRUCT_SIZE,
                                             .device = a.addressable_devices[i]};
        if (report("PJRT_Device_GetDescription", api->PJRT_Device_GetDescription(&g)))
            return 1;
        PJRT_DeviceDescription_Kind_Args k = {.struct_size =
                                                  PJRT_DeviceDescription_Kind_Args_STRUCT_SIZE,
                                              .device_description = g.device_description};
        PJRT_DeviceDescription_Id_Args id = {.struct_size =
                                                 PJRT_DeviceDescription_Id_Args_STRUCT_SIZE,
                                             .device_description = g.device_description};
        if (report("PJRT_DeviceDescription_Kind", api->PJRT_DeviceDescription_Kind(&k)) ||
            report("PJRT_DeviceDescription_Id", api->PJRT_DeviceDescription_Id(&id)))
            return 1;
        printf("  device %d: kind %.*s\n", id.id, (int)k.device_kind_size, k.device_kind);
        list_memories(a.addressable_devices[i]);
    }
    if (a.num_addressable_devices == 0) {
        fprintf(stderr, "pjrt-demo: the client has no addressable device\n");
        return 1;
    }
    *first = a.addressable_devices[0];
    return 0;
}

/* Host -> device -> host for a 3x4 f32 array; returns 0 when it came back intact. */
static int round_trip(PJRT_Client *client, PJRT_Device *device) {
    float in[3][4], out[3][4];
    int64_t dims[2] = {3, 4};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++)
            in[i][j] = (float)(i * 10 + j) + 0.5f;

    PJRT_Client_BufferFromHostBuffer_Args h = {
        .struct_size = PJRT_Client_BufferFromHostBuffer_Args_STRUCT_SIZE,
        .client = client,
        .data = in,
        .type = PJRT_Buffer_Type_F32,
        .dims = dims,
        .num_dims = 2,
        .host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableUntilTransferCompletes,
        .device = device,
    };
    if (report("PJRT_Client_BufferFromHostBuffer", api->PJRT_Client_BufferFromHostBuffer(&h)))
        return 1;
    int failed = await_event("host-to-device transfer", h.done_with_host_buffer);
    printf("moved a 3x4 f32 array (%zu bytes) to device 0\n", sizeof in);

    PJRT_Buffer_ToHostBuffer_Args t = {
        .struct_size = PJRT_Buffer_ToHostBuffer_Args_STRUCT_SIZE,
        .src = h.buffer,
        .dst = out,
        .dst_size = sizeof out,
    };
    if (!failed && !report("PJRT_Buffer_ToHostBuffer", api->PJRT_Buffer_ToHostBuffer(&t)))
        failed = await_event("device-to-host transfer", t.event);
    else
        failed = 1;

    PJRT_Buffer_Destroy_Args d = {.struct_size = PJRT_Buffer_Destroy_Args_STRUCT_SIZE,
                                  .buffer = h.buffer};
    failed |= report("PJRT_Buffer_Destroy", api->PJRT_Buffer_Destroy(&d));
    if (failed)
        return 1;
    if (memcmp(in, out, sizeof in) != 0) {
        fprintf(stderr, "pjrt-demo: the array came back different\n");
        return 1;
    }
    printf("copied it back to the host: all %zu elements equal (out[2][3] = %.1f)\n",
           sizeof in / sizeof in[0][0], out[2][3]);
    return 0;
}

static int run(const char *platform) {
    PJRT_Plugin_Initialize_Args init = {.struct_size = PJRT_Plugin_Initialize_Args_STRUCT_SIZE};
    if (report("PJRT_Plugin_Initialize", api->PJRT_Plugin_Initialize(&init)))
        return 1;
    PJRT_NamedValue option = {
        .struct_size = PJRT_NamedValue_STRUCT_SIZE,
        .name = "platform",
        .name_size = strlen("platform"),
        .type = PJRT_NamedValue_kString,
        .string_value = platform,
        .value_size = strlen(platform),
    };
    PJRT_Client_Create_Args c = {.struct_size = PJRT_Client_Create_Args_STRUCT_SIZE,
                                 .create_options = &option,
                                 .num_options = 1};
    if (report("PJRT_Client_Create", api->PJRT_Client_Create(&c)))
        return 1;
    PJRT_Client_PlatformName_Args p = {.struct_size = PJRT_Client_PlatformName_Args_STRUCT_SIZE,
                                       .client = c.client};
    int failed = report("PJRT_Client_PlatformName", api->PJRT_Client_PlatformName(&p));
    if (!failed)
        printf("client created: platform %.*s\n", (int)p.platform_name_size, p.platform_name);
    PJRT_Device *device = NULL;
    failed = failed || list_devices(c.client, &device) || round_trip(c.client, device);
    PJRT_Client_Destroy_Args d = {.struct_size = PJRT_Client_Destroy_Args_STRUCT_SIZE,
                                  .client = c.client};
    failed |= report("PJRT_Client_Destroy", api->PJRT_Client_Destroy(&d));
    return failed;
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: pjrt-demo PLUGIN.so [platform]\n");
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        fprintf(stderr, "pjrt-demo: cannot load %s: %s\n", argv[1], dlerror());
        return 1;
    }
    const PJRT_Api *(*get_api)(void) = (const PJRT_Api *(*)(void))dlsym(lib, "GetPjrtApi");
    api = get_api ? get_api() : NULL;
    if (api == NULL) {
        fprintf(stderr, "pjrt-demo: %s has no usable GetPjrtApi\n", argv[1]);
        dlclose(lib);
        return 1;
    }
    printf("loaded %s: PJRT C API %d.%d\n", argv[1], api->pjrt_api_version.major_version,
           api->pjrt_api_version.minor_version);
    int failed = run(argc == 3 ? argv[2] : "cpu");
    dlclose(lib);
    printf(failed ? "demo FAILED\n" : "demo OK\n");
    return failed;
}
