/* The platform registry: built-ins, memory kinds, registration, threads. */
#include <pthread.h>
#include <stdatomic.h>

#include "layout_test.h"

#include "platform.h"

static DLDeviceType dl_type(const char *platform, const char *kind) {
    DLDeviceType t = (DLDeviceType)-1;
    assert_code(pjdl_platform_dl_type(platform, kind, &t), PJDL_OK, NULL);
    return t;
}

static void test_builtins(void **state) {
    (void)state;
    static const struct {
        const char *name;
        DLDeviceType device, host;
    } builtins[] = {
        {"cpu", kDLCPU, kDLCPU},         {"cuda", kDLCUDA, kDLCUDAHost},
        {"rocm", kDLROCM, kDLROCMHost},  {"xpu", kDLOneAPI, kDLCPU},
        {"oneapi", kDLOneAPI, kDLCPU},   {"sycl", kDLOneAPI, kDLCPU},
        {"metal", kDLMetal, kDLCPU},     {"vulkan", kDLVulkan, kDLCPU},
        {"opencl", kDLOpenCL, kDLCPU},   {"webgpu", kDLWebGPU, kDLCPU},
        {"hexagon", kDLHexagon, kDLCPU}, {"maia", kDLMAIA, kDLCPU},
        {"trn", kDLTrn, kDLCPU},         {"tpu", kDLTPU, kDLTPUHost},
        {"mps", kDLMetal, kDLCPU},       {"mtl", kDLMetal, kDLCPU},
    };
    for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++) {
        const char *n = builtins[i].name;
        assert_int_equal(dl_type(n, NULL), builtins[i].device);
        assert_int_equal(dl_type(n, "device"), builtins[i].device);
        assert_int_equal(dl_type(n, "pinned_host"), builtins[i].host);
        assert_int_equal(dl_type(n, "unpinned_host"), kDLCPU);
        DLDeviceType d, h;
        assert_code(pjdl__platform_lookup(n, &d, &h), PJDL_OK, NULL);
        assert_int_equal(d, builtins[i].device);
        assert_int_equal(h, builtins[i].host);
    }
    /* Either out-pointer of the internal lookup may be NULL. */
    assert_code(pjdl__platform_lookup("cuda", NULL, NULL), PJDL_OK, NULL);
}

static void test_case_insensitive(void **state) {
    (void)state;
    assert_int_equal(dl_type("METAL", NULL), kDLMetal);
    assert_int_equal(dl_type("MPS", NULL), kDLMetal);
    assert_int_equal(dl_type("Mtl", "pinned_host"), kDLCPU);
    assert_int_equal(dl_type("TPU", "pinned_host"), kDLTPUHost);
    assert_int_equal(dl_type("Cuda", "pinned_host"), kDLCUDAHost);
    /* Memory kinds are exact. */
    assert_int_equal(dl_type("cuda", "PINNED_HOST"), kDLCUDA);
}

static void test_unknown_and_invalid(void **state) {
    (void)state;
    DLDeviceType t = kDLVPI;
    assert_code(pjdl_platform_dl_type("acme", NULL, &t), PJDL_UNIMPLEMENTED,
                "platform 'acme' is not known; call pjdl_register_platform");
    assert_code(pjdl_platform_dl_type("acme", "pinned_host", &t), PJDL_UNIMPLEMENTED, "'acme'");
    assert_int_equal(t, kDLVPI);
    /* Unpinned host memory is CPU memory even on an unknown platform. */
    assert_int_equal(dl_type("acme", "unpinned_host"), kDLCPU);
    assert_code(pjdl_platform_dl_type(NULL, NULL, &t), PJDL_INVALID_ARGUMENT,
                "platform_name is NULL");
    assert_code(pjdl_platform_dl_type("", "unpinned_host", &t), PJDL_INVALID_ARGUMENT,
                "platform_name is empty");
    assert_code(pjdl_platform_dl_type("cpu", NULL, NULL), PJDL_INVALID_ARGUMENT, "out is NULL");
    assert_code(pjdl__platform_lookup(NULL, &t, NULL), PJDL_INVALID_ARGUMENT, "NULL");

    assert_code(pjdl_register_platform(NULL, kDLCPU, kDLCPU), PJDL_INVALID_ARGUMENT,
                "platform_name is NULL");
    assert_code(pjdl_register_platform("", kDLCPU, kDLCPU), PJDL_INVALID_ARGUMENT,
                "platform_name is empty");
    assert_code(pjdl_register_platform("x", (DLDeviceType)5, kDLCPU), PJDL_INVALID_ARGUMENT,
                "device_type is 5: not a DLPack device type");
    assert_code(pjdl_register_platform("x", kDLCPU, (DLDeviceType)99), PJDL_INVALID_ARGUMENT,
                "host_memory_type is 99");
    assert_code(pjdl_register_platform("x", (DLDeviceType)0, kDLCPU), PJDL_INVALID_ARGUMENT,
                "device_type is 0");
    /* No PJRT plugin is known to report these: no built-in name. */
    assert_code(pjdl_platform_dl_type("npu", NULL, &t), PJDL_UNIMPLEMENTED, "'npu'");
    assert_code(pjdl_platform_dl_type("ascend", NULL, &t), PJDL_UNIMPLEMENTED, "'ascend'");
    /* Failed registrations registered nothing. */
    assert_code(pjdl_platform_dl_type("x", NULL, &t), PJDL_UNIMPLEMENTED, "'x'");
}

static void test_register_and_replace(void **state) {
    (void)state;
    assert_code(pjdl_register_platform("acme", kDLExtDev, kDLCPU), PJDL_OK, NULL);
    assert_int_equal(dl_type("acme", NULL), kDLExtDev);
    assert_int_equal(dl_type("ACME", "pinned_host"), kDLCPU);
    /* Replacing, in another case. */
    assert_code(pjdl_register_platform("Acme", kDLExtDev, kDLCUDAHost), PJDL_OK, NULL);
    assert_int_equal(dl_type("acme", "pinned_host"), kDLCUDAHost);
    /* Built-ins can be overridden, and put back. */
    assert_code(pjdl_register_platform("cuda", kDLCUDAManaged, kDLCUDAManaged), PJDL_OK, NULL);
    assert_int_equal(dl_type("cuda", NULL), kDLCUDAManaged);
    assert_int_equal(dl_type("cuda", "pinned_host"), kDLCUDAManaged);
    assert_code(pjdl_register_platform("cuda", kDLCUDA, kDLCUDAHost), PJDL_OK, NULL);
    assert_int_equal(dl_type("cuda", NULL), kDLCUDA);
    assert_int_equal(dl_type("cuda", "pinned_host"), kDLCUDAHost);
    /* Long names are fine. */
    char longname[1000];
    memset(longname, 'q', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    assert_code(pjdl_register_platform(longname, kDLVulkan, kDLCPU), PJDL_OK, NULL);
    assert_int_equal(dl_type(longname, NULL), kDLVulkan);
}

static void test_device_type_helpers(void **state) {
    (void)state;
    int valid = 0;
    for (int t = -2; t < 40; t++) {
        if (pjdl__dl_device_type_valid((DLDeviceType)t)) {
            valid++;
            assert_string_not_equal(pjdl_dl_device_type_name((DLDeviceType)t),
                                    "unknown device type");
        } else {
            assert_string_equal(pjdl_dl_device_type_name((DLDeviceType)t), "unknown device type");
        }
    }
    assert_int_equal(valid, 19);
    assert_string_equal(pjdl_dl_device_type_name(kDLTPUHost), "kDLTPUHost");
    assert_string_equal(pjdl_dl_device_type_name(kDLAscend), "kDLAscend");
    assert_string_equal(pjdl_dl_device_type_name(kDLCUDAHost), "kDLCUDAHost");
    assert_true(pjdl_dl_device_type_host_reachable(kDLCPU));
    assert_true(pjdl_dl_device_type_host_reachable(kDLCUDAHost));
    assert_true(pjdl_dl_device_type_host_reachable(kDLROCMHost));
    assert_true(pjdl_dl_device_type_host_reachable(kDLTPUHost));
    assert_false(pjdl_dl_device_type_host_reachable(kDLTPU));
    assert_false(pjdl_dl_device_type_host_reachable(kDLMetal));
    assert_false(pjdl_dl_device_type_host_reachable(kDLCUDA));
    assert_false(pjdl_dl_device_type_host_reachable(kDLCUDAManaged));
}

/* Writers register and re-register platforms while readers look up
 * built-ins and the platforms being written: every answer a reader sees
 * must be one a writer wrote (or "unknown" before the first write). */
#define WRITERS 4
#define READERS 4
#define ROUNDS 2000

static atomic_int failures;

static void *writer(void *arg) {
    int id = (int)(intptr_t)arg;
    char name[32];
    for (int r = 0; r < ROUNDS; r++) {
        snprintf(name, sizeof name, "threaded%d", (id * 7 + r) % 16);
        DLDeviceType dev = (r & 1) ? kDLVulkan : kDLOpenCL;
        if (pjdl_register_platform(name, dev, kDLCPU) != PJDL_OK)
            atomic_fetch_add(&failures, 1);
    }
    return NULL;
}

static void *reader(void *arg) {
    int id = (int)(intptr_t)arg;
    char name[32];
    for (int r = 0; r < ROUNDS * 2; r++) {
        DLDeviceType t;
        if (pjdl_platform_dl_type("rocm", "pinned_host", &t) != PJDL_OK || t != kDLROCMHost)
            atomic_fetch_add(&failures, 1);
        snprintf(name, sizeof name, "threaded%d", (id + r) % 16);
        pjdl_code c = pjdl_platform_dl_type(name, NULL, &t);
        if (c == PJDL_OK ? (t != kDLVulkan && t != kDLOpenCL) : c != PJDL_UNIMPLEMENTED)
            atomic_fetch_add(&failures, 1);
        /* Each thread's error message is its own. */
        if (c == PJDL_UNIMPLEMENTED && strstr(pjdl_last_error(), name) == NULL)
            atomic_fetch_add(&failures, 1);
    }
    return NULL;
}

static void test_threads(void **state) {
    (void)state;
    pthread_t threads[WRITERS + READERS];
    for (int i = 0; i < WRITERS; i++)
        assert_int_equal(pthread_create(&threads[i], NULL, writer, (void *)(intptr_t)i), 0);
    for (int i = 0; i < READERS; i++)
        assert_int_equal(pthread_create(&threads[WRITERS + i], NULL, reader, (void *)(intptr_t)i),
                         0);
    for (int i = 0; i < WRITERS + READERS; i++)
        pthread_join(threads[i], NULL);
    assert_int_equal(atomic_load(&failures), 0);
    for (int i = 0; i < 16; i++) {
        char name[32];
        snprintf(name, sizeof name, "threaded%d", i);
        DLDeviceType t = dl_type(name, NULL);
        assert_true(t == kDLVulkan || t == kDLOpenCL);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builtins),
        cmocka_unit_test(test_case_insensitive),
        cmocka_unit_test(test_unknown_and_invalid),
        cmocka_unit_test(test_register_and_replace),
        cmocka_unit_test(test_device_type_helpers),
        cmocka_unit_test(test_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
