/* ze_sim, the simulated Level Zero GPU (zesim/), called directly: what
 * Intel's plugin and runtime rely on, behaviours (a)-(f) of issue 22, work
 * that completes later than the call that queued it, fork, and the
 * documented answers of what it cannot do. Run with ZE_SIM_DEVICES=2. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "ze_abi.h"

#define ZE_OK(expr) assert_int_equal((expr), ZE_RESULT_SUCCESS)

typedef struct {
    ze_driver_handle_t driver;
    ze_device_handle_t dev;
    ze_context_handle_t ctx;
} zt_fixture;

static int zt_setup(void **state) {
    zt_fixture *f = calloc(1, sizeof *f);
    ZE_OK(zeInit(0));
    uint32_t n = 1;
    ZE_OK(zeDriverGet(&n, &f->driver));
    n = 1;
    ZE_OK(zeDeviceGet(f->driver, &n, &f->dev));
    ze_context_desc_t cd = {.stype = 0xd};
    ZE_OK(zeContextCreate(f->driver, &cd, &f->ctx));
    *state = f;
    return 0;
}

static int zt_teardown(void **state) {
    zt_fixture *f = *state;
    ZE_OK(zeContextDestroy(f->ctx));
    free(f);
    return 0;
}

static void devices_from_the_environment(void **state) {
    zt_fixture *f = *state;
    uint32_t n = 0;
    ZE_OK(zeDriverGet(&n, NULL));
    assert_int_equal(n, 1);
    n = 0;
    ZE_OK(zeDeviceGet(f->driver, &n, NULL));
    assert_int_equal(n, 2); /* ZE_SIM_DEVICES=2 */
    ze_device_handle_t devs[4] = {0};
    n = 4;
    ZE_OK(zeDeviceGet(f->driver, &n, devs));
    assert_int_equal(n, 2);
    assert_ptr_not_equal(devs[0], devs[1]);
    ze_device_properties_t p0 = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    ze_device_properties_t p1 = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    ZE_OK(zeDeviceGetProperties(devs[0], &p0));
    ZE_OK(zeDeviceGetProperties(devs[1], &p1));
    assert_memory_not_equal(p0.uuid.id, p1.uuid.id, ZE_MAX_UUID);
}

/* (a) no root device, (b) the IP version filled anywhere in the chain,
 * (c) read-write device memory, (e) a queue group with queues. */
static void reports_a_plausible_gpu(void **state) {
    zt_fixture *f = *state;
    ze_device_ip_version_ext_t ip = {.stype = ZE_STRUCTURE_TYPE_DEVICE_IP_VERSION_EXT};
    ze_base_properties_t unknown = {.stype = 0x7777, .pNext = &ip};
    ze_device_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES, .pNext = &unknown};
    ZE_OK(zeDeviceGetProperties(f->dev, &p));
    assert_int_equal(p.type, ZE_DEVICE_TYPE_GPU);
    assert_int_equal(p.vendorId, 0x8086);
    assert_ptr_equal(p.pNext, &unknown);
    assert_int_equal(unknown.stype, 0x7777);
    assert_int_not_equal(ip.ipVersion, 0);
    ze_device_handle_t root = f->dev;
    ZE_OK(zeDeviceGetRootDevice(f->dev, &root));
    assert_null(root);
    uint32_t n = 5;
    ZE_OK(zeDeviceGetSubDevices(f->dev, &n, NULL));
    assert_int_equal(n, 0);
    ze_device_memory_access_properties_t ma = {
        .stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_ACCESS_PROPERTIES};
    ZE_OK(zeDeviceGetMemoryAccessProperties(f->dev, &ma));
    assert_true(ma.deviceAllocCapabilities & ZE_MEMORY_ACCESS_CAP_FLAG_RW);
    n = 0;
    ZE_OK(zeDeviceGetCommandQueueGroupProperties(f->dev, &n, NULL));
    assert_true(n >= 1);
    ze_command_queue_group_properties_t g = {.stype =
                                                 ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES};
    n = 1;
    ZE_OK(zeDeviceGetCommandQueueGroupProperties(f->dev, &n, &g));
    assert_true(g.numQueues >= 1);
    assert_true(g.flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE);
    assert_true(g.flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY);
}

/* (d) 4096-aligned allocations that the table knows by any inner address. */
static void memory_table(void **state) {
    zt_fixture *f = *state;
    ze_device_mem_alloc_desc_t dd = {.stype = 0x15};
    ze_host_mem_alloc_desc_t hd = {.stype = 0x16};
    void *d = NULL, *h = NULL;
    ZE_OK(zeMemAllocDevice(f->ctx, &dd, 1000, 64, f->dev, &d));
    ZE_OK(zeMemAllocHost(f->ctx, &hd, 10, 0, &h));
    assert_int_equal((uintptr_t)d % 4096, 0);
    assert_int_equal((uintptr_t)h % 4096, 0);
    ze_memory_allocation_properties_t mp = {.stype =
                                                ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES};
    ze_device_handle_t owner = NULL;
    ZE_OK(zeMemGetAllocProperties(f->ctx, (char *)d + 999, &mp, &owner));
    assert_int_equal(mp.type, ZE_MEMORY_TYPE_DEVICE);
    assert_ptr_equal(owner, f->dev);
    ZE_OK(zeMemGetAllocProperties(f->ctx, h, &mp, &owner));
    assert_int_equal(mp.type, ZE_MEMORY_TYPE_HOST);
    int local = 0;
    ZE_OK(zeMemGetAllocProperties(f->ctx, &local, &mp, &owner));
    assert_int_equal(mp.type, ZE_MEMORY_TYPE_UNKNOWN);
    void *base = NULL;
    size_t size = 0;
    ZE_OK(zeMemGetAddressRange(f->ctx, (char *)d + 10, &base, &size));
    assert_ptr_equal(base, d);
    assert_int_equal(size, 1000);
    assert_int_equal(zeMemAllocDevice(f->ctx, &dd, 100, 3, f->dev, &base),
                     ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT);
    assert_int_equal(zeMemAllocDevice(f->ctx, &dd, (size_t)1 << 50, 0, f->dev, &base),
                     ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
    ZE_OK(zeMemFree(f->ctx, d));
    ZE_OK(zeMemFree(f->ctx, h));
    assert_int_equal(zeMemFree(f->ctx, d), ZE_RESULT_ERROR_INVALID_ARGUMENT);
}

typedef struct {
    ze_command_queue_handle_t queue;
    ze_command_list_handle_t list;
    ze_event_pool_handle_t pool;
    ze_event_handle_t ev[2];
} zt_work;

static void zt_work_open(zt_fixture *f, zt_work *w) {
    ze_command_queue_desc_t qd = {.stype = 0xe};
    ZE_OK(zeCommandQueueCreate(f->ctx, f->dev, &qd, &w->queue));
    ze_command_list_desc_t ld = {.stype = 0xf};
    ZE_OK(zeCommandListCreate(f->ctx, f->dev, &ld, &w->list));
    ze_event_pool_desc_t pd = {.stype = 0x10, .count = 2};
    ZE_OK(zeEventPoolCreate(f->ctx, &pd, 1, &f->dev, &w->pool));
    for (uint32_t i = 0; i < 2; i++) {
        ze_event_desc_t ed = {.stype = 0x11, .index = i};
        ZE_OK(zeEventCreate(w->pool, &ed, &w->ev[i]));
    }
}

static void zt_work_close(zt_work *w) {
    assert_int_equal(zeEventPoolDestroy(w->pool), ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE);
    ZE_OK(zeEventDestroy(w->ev[0]));
    ZE_OK(zeEventDestroy(w->ev[1]));
    ZE_OK(zeEventPoolDestroy(w->pool));
    ZE_OK(zeCommandListDestroy(w->list));
    ZE_OK(zeCommandQueueDestroy(w->queue));
}

/* (f) fill and copy run in host memory on the worker, after the events they
 * wait for: nothing happens until the host signals the gate. */
static void work_completes_later(void **state) {
    zt_fixture *f = *state;
    zt_work w;
    zt_work_open(f, &w);
    ze_device_mem_alloc_desc_t dd = {.stype = 0x15};
    void *dev = NULL;
    ZE_OK(zeMemAllocDevice(f->ctx, &dd, 64, 0, f->dev, &dev));
    unsigned char host[64];
    memset(host, 0, sizeof host);
    uint16_t pattern = 0xa55a;
    ze_event_handle_t gate = w.ev[0], done = w.ev[1];
    ZE_OK(zeCommandListAppendMemoryFill(w.list, dev, &pattern, sizeof pattern, 64, NULL, 1, &gate));
    ZE_OK(zeCommandListAppendMemoryCopy(w.list, host, dev, 64, done, 0, NULL));
    ZE_OK(zeCommandListClose(w.list));
    ze_fence_desc_t fd = {.stype = 0x12};
    ze_fence_handle_t fence = NULL;
    ZE_OK(zeFenceCreate(w.queue, &fd, &fence));
    ZE_OK(zeCommandQueueExecuteCommandLists(w.queue, 1, &w.list, fence));
    assert_int_equal(zeFenceQueryStatus(fence), ZE_RESULT_NOT_READY);
    assert_int_equal(zeEventQueryStatus(done), ZE_RESULT_NOT_READY);
    assert_int_equal(zeEventHostSynchronize(done, 1000000), ZE_RESULT_NOT_READY);
    assert_int_equal(host[0], 0);
    ZE_OK(zeEventHostSignal(gate));
    ZE_OK(zeFenceHostSynchronize(fence, UINT64_MAX));
    ZE_OK(zeEventQueryStatus(done));
    for (size_t i = 0; i < sizeof host; i += 2)
        assert_int_equal(host[i] | host[i + 1] << 8, 0xa55a);
    ze_kernel_timestamp_result_t ts;
    ZE_OK(zeEventQueryKernelTimestamp(done, &ts));
    assert_true(ts.global.kernelEnd >= ts.global.kernelStart);
    ZE_OK(zeCommandQueueSynchronize(w.queue, UINT64_MAX));
    ZE_OK(zeFenceDestroy(fence));
    ZE_OK(zeMemFree(f->ctx, dev));
    zt_work_close(&w);
}

/* A client that destroys an event or a fence while commands that name them
 * are still queued (Intel's Unified Runtime does, under load) costs no
 * corrupted heap: on hardware the device's late signal lands in memory the
 * driver keeps, here the last command to let go frees them (memcheck and
 * ASan see any write to freed memory). The work still runs. */
static void destroyed_while_pending(void **state) {
    zt_fixture *f = *state;
    zt_work w;
    zt_work_open(f, &w);
    ze_event_pool_desc_t pd = {.stype = 0x10, .count = 1};
    ze_event_pool_handle_t pool = NULL;
    ZE_OK(zeEventPoolCreate(f->ctx, &pd, 1, &f->dev, &pool));
    ze_event_desc_t ed = {.stype = 0x11, .index = 0};
    ze_event_handle_t late = NULL;
    ZE_OK(zeEventCreate(pool, &ed, &late));
    unsigned char src[32], dst[32];
    memset(src, 7, sizeof src);
    memset(dst, 0, sizeof dst);
    ze_event_handle_t gate = w.ev[0];
    ZE_OK(zeCommandListAppendMemoryCopy(w.list, dst, src, sizeof dst, late, 1, &gate));
    ZE_OK(zeCommandListClose(w.list));
    ze_fence_desc_t fd = {.stype = 0x12};
    ze_fence_handle_t fence = NULL;
    ZE_OK(zeFenceCreate(w.queue, &fd, &fence));
    ZE_OK(zeCommandQueueExecuteCommandLists(w.queue, 1, &w.list, fence));
    ZE_OK(zeCommandListReset(w.list)); /* the queued job holds its own copy */
    ZE_OK(zeEventDestroy(late));
    ZE_OK(zeEventPoolDestroy(pool));
    ZE_OK(zeFenceDestroy(fence));
    assert_int_equal(dst[0], 0);
    ZE_OK(zeEventHostSignal(gate));
    ZE_OK(zeCommandQueueSynchronize(w.queue, UINT64_MAX));
    assert_int_equal(dst[31], 7);
    zt_work_close(&w);
}

/* An immediate list runs each command as it is appended; a region copy
 * moves a 2x3 block between differently pitched rows. */
static void immediate_region_copy(void **state) {
    zt_fixture *f = *state;
    ze_command_queue_desc_t qd = {.stype = 0xe};
    ze_command_list_handle_t il = NULL;
    ZE_OK(zeCommandListCreateImmediate(f->ctx, f->dev, &qd, &il));
    unsigned char src[4 * 8], dst[3 * 5];
    for (size_t i = 0; i < sizeof src; i++)
        src[i] = (unsigned char)i;
    memset(dst, 0xff, sizeof dst);
    ze_copy_region_t sr = {.originX = 1, .originY = 1, .width = 3, .height = 2, .depth = 1};
    ze_copy_region_t dr = {.originX = 2, .originY = 0, .width = 3, .height = 2, .depth = 1};
    ZE_OK(zeCommandListAppendMemoryCopyRegion(il, dst, &dr, 5, 0, src, &sr, 8, 0, NULL, 0, NULL));
    ZE_OK(zeCommandListHostSynchronize(il, UINT64_MAX));
    const unsigned char want[15] = {0xff, 0xff, 9,    10,   11,   0xff, 0xff, 17,
                                    18,   19,   0xff, 0xff, 0xff, 0xff, 0xff};
    assert_memory_equal(dst, want, sizeof want);
    ZE_OK(zeCommandListDestroy(il));
}

/* A child process gets workers for the parent's queues and lists. The
 * child's verdict comes through a pipe: under valgrind its exit status is
 * valgrind's (the leak check of a child that leaves the test's memory). */
static void queues_survive_fork(void **state) {
    zt_fixture *f = *state;
    zt_work w;
    zt_work_open(f, &w);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int a = 7, b = 0;
        char ok = zeCommandListAppendMemoryCopy(w.list, &b, &a, sizeof a, w.ev[1], 0, NULL) == 0 &&
                  zeCommandListClose(w.list) == 0 &&
                  zeCommandQueueExecuteCommandLists(w.queue, 1, &w.list, NULL) == 0 &&
                  zeEventHostSynchronize(w.ev[1], 20000000000u) == 0 && b == 7;
        _exit(write(fds[1], &ok, 1) == 1 ? 0 : 1);
    }
    close(fds[1]);
    char ok = 0;
    assert_int_equal(read(fds[0], &ok, 1), 1);
    close(fds[0]);
    assert_int_equal(waitpid(pid, NULL, 0), pid);
    assert_true(ok);
    zt_work_close(&w);
}

/* What a simulated GPU cannot do answers so, and bad handles are refused.
 * Without the OpenCL runtime (ZE_SIM_OPENCL names a file that is not
 * there) modules are refused, the build log saying why and what to do. */
static void documented_refusals(void **state) {
    zt_fixture *f = *state;
    ze_module_desc_t md = {.stype = 0x1b};
    ze_module_handle_t m = NULL;
    ze_module_build_log_handle_t log = NULL;
    assert_int_equal(zeModuleCreate(f->ctx, f->dev, &md, &m, &log),
                     ZE_RESULT_ERROR_MODULE_BUILD_FAILURE);
    assert_null(m);
    size_t n = 0;
    ZE_OK(zeModuleBuildLogGetString(log, &n, NULL));
    char text[2048];
    assert_true(n > 0 && n <= sizeof text);
    ZE_OK(zeModuleBuildLogGetString(log, &n, text));
    assert_non_null(strstr(text, "runs no kernels"));
    assert_non_null(strstr(text, "/nonexistent/libintelocl.so"));
    assert_non_null(strstr(text, "LD_LIBRARY_PATH"));
    ZE_OK(zeModuleBuildLogDestroy(log));
    ze_image_handle_t img = NULL;
    assert_int_equal(zeImageCreate(f->ctx, f->dev, NULL, &img),
                     ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
    void *fn = &n;
    assert_int_equal(
        zeDriverGetExtensionFunctionAddress(f->driver, "zexDriverImportExternalPointer", &fn),
        ZE_RESULT_ERROR_INVALID_FUNCTION_NAME);
    assert_null(fn);
    ZE_OK(zeDriverGetExtensionFunctionAddress(f->driver, "zeKernelSetGlobalOffsetExp", &fn));
    assert_ptr_equal(fn, (void *)zeKernelSetGlobalOffsetExp);
    ze_init_driver_type_desc_t td = {.stype = 0x00020021, .flags = ZE_INIT_DRIVER_TYPE_FLAG_GPU};
    ze_driver_handle_t driver = NULL;
    uint32_t drivers = 1;
    ZE_OK(zeInitDrivers(&drivers, &driver, &td));
    assert_true(drivers == 1 && driver == f->driver);
    td.flags = 1u << 1; /* NPU drivers: none */
    ZE_OK(zeInitDrivers(&drivers, NULL, &td));
    assert_int_equal(drivers, 0);
    ze_device_properties_t p = {.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    assert_int_equal(zeDeviceGetProperties(NULL, &p), ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    assert_int_equal(zeDeviceGetProperties((ze_device_handle_t)(void *)f->ctx, &p),
                     ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    assert_int_equal(zeEventHostSynchronize((ze_event_handle_t)(void *)f->ctx, 0),
                     ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    uint32_t count = 3;
    ZE_OK(zesDeviceEnumMemoryModules(f->dev, &count, NULL));
    assert_int_equal(count, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(devices_from_the_environment, zt_setup, zt_teardown),
        cmocka_unit_test_setup_teardown(reports_a_plausible_gpu, zt_setup, zt_teardown),
        cmocka_unit_test_setup_teardown(memory_table, zt_setup, zt_teardown),
        cmocka_unit_test_setup_teardown(work_completes_later, zt_setup, zt_teardown),
        cmocka_unit_test_setup_teardown(destroyed_while_pending, zt_setup, zt_teardown),
        cmocka_unit_test_setup_teardown(immediate_region_copy, zt_setup, zt_teardown),
        cmocka_unit_test_setup_teardown(queues_survive_fork, zt_setup, zt_teardown),
        cmocka_unit_test_setup_teardown(documented_refusals, zt_setup, zt_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
