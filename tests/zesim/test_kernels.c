/* ze_sim's kernels (zesim/module.c, kernel.c, launch.c, spirv.c), called
 * directly, over Intel's OpenCL CPU runtime (its folder on LD_LIBRARY_PATH;
 * a missing runtime fails every test): a SPIR-V module assembled here, its
 * kernels' arguments, group sizes and global offset, launches that wait for
 * and signal events like every other command, arguments captured when the
 * launch is appended, the simulated GPU's sub-group size, and what ze_sim
 * refuses (malformed SPIR-V, native binaries, a forked child). */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "ze_abi.h"

#define ZE_OK(expr) assert_int_equal((expr), ZE_RESULT_SUCCESS)

/* ------------------------------------------------ a SPIR-V assembler */

typedef struct {
    uint32_t w[512];
    size_t n;
} zt_spirv;

/* An instruction: opcode and its operand words (up to 8). */
static void zt_op(zt_spirv *s, uint32_t op, int n, ...) {
    va_list ap;
    va_start(ap, n);
    s->w[s->n++] = (uint32_t)(n + 1) << 16 | op;
    for (int i = 0; i < n; i++)
        s->w[s->n++] = va_arg(ap, uint32_t);
    va_end(ap);
}

/* An instruction whose operands are a, a string, then b (count of them). */
static void zt_op_str(zt_spirv *s, uint32_t op, uint32_t a, uint32_t b, const char *str, int count,
                      const uint32_t *rest) {
    size_t at = s->n++, len = strlen(str) + 1;
    s->w[s->n++] = a;
    s->w[s->n++] = b;
    uint32_t words = (uint32_t)((len + 3) / 4);
    memset(&s->w[s->n], 0, words * 4);
    memcpy(&s->w[s->n], str, len);
    s->n += words;
    for (int i = 0; i < count; i++)
        s->w[s->n++] = rest[i];
    s->w[at] = (uint32_t)(s->n - at) << 16 | op;
}

enum {
    ID_VOID = 1,
    ID_FLOAT,
    ID_UINT,
    ID_ULONG,
    ID_V3,
    ID_PIN,
    ID_PG,
    ID_PL,
    ID_FN_ADD,
    ID_FN_SHF,
    ID_U3,
    ID_U8,
    ID_GID,
    ID_LID,
    ID_ADD,
    ID_OUT,
    ID_IN,
    ID_C,
    ID_Z,
    ID_TMP,
    ID_L1,
    ID_G,
    ID_I,
    ID_LV,
    ID_LI,
    ID_PI,
    ID_X,
    ID_Y,
    ID_ZF,
    ID_Y2,
    ID_PT,
    ID_Y3,
    ID_PO,
    ID_SHF,
    ID_SOUT,
    ID_L2,
    ID_LV2,
    ID_LI2,
    ID_F,
    ID_S,
    ID_PO2,
    ID_BOUND
};

/* Two kernels: add(out, in, float c, ulong z, local float *tmp) writes
 * out[i] = in[i] + c + z through tmp, i the global id; shuffle_down(out)
 * writes out[l] = the local id of lane l + 8 (OpGroupNonUniformShuffleDown
 * by 8 in the sub-group), l the local id. */
static void zt_module(zt_spirv *s, const char *add, const char *shuffle) {
    s->n = 0;
    const uint32_t header[5] = {0x07230203u, 0x00010400u, 0, ID_BOUND, 0};
    memcpy(s->w, header, sizeof header);
    s->n = 5;
    zt_op(s, 17, 1, 4u);     /* OpCapability Addresses */
    zt_op(s, 17, 1, 6u);     /* Kernel */
    zt_op(s, 17, 1, 11u);    /* Int64 */
    zt_op(s, 17, 1, 61u);    /* GroupNonUniform */
    zt_op(s, 17, 1, 66u);    /* GroupNonUniformShuffleRelative */
    zt_op(s, 14, 2, 2u, 2u); /* OpMemoryModel Physical64 OpenCL */
    const uint32_t both[2] = {ID_GID, ID_LID};
    zt_op_str(s, 15, 6u, ID_ADD, add, 2, both); /* OpEntryPoint Kernel */
    zt_op_str(s, 15, 6u, ID_SHF, shuffle, 1, &both[1]);
    zt_op(s, 71, 3, ID_GID, 11u, 28u); /* OpDecorate BuiltIn GlobalInvocationId */
    zt_op(s, 71, 3, ID_LID, 11u, 27u); /* BuiltIn LocalInvocationId */
    zt_op(s, 19, 1, ID_VOID);
    zt_op(s, 22, 2, ID_FLOAT, 32u);
    zt_op(s, 21, 3, ID_UINT, 32u, 0u);
    zt_op(s, 21, 3, ID_ULONG, 64u, 0u);
    zt_op(s, 23, 3, ID_V3, ID_ULONG, 3u);
    zt_op(s, 32, 3, ID_PIN, 1u, ID_V3);   /* Input */
    zt_op(s, 32, 3, ID_PG, 5u, ID_FLOAT); /* CrossWorkgroup */
    zt_op(s, 32, 3, ID_PL, 4u, ID_FLOAT); /* Workgroup */
    zt_op(s, 33, 7, ID_FN_ADD, ID_VOID, ID_PG, ID_PG, ID_FLOAT, ID_ULONG, ID_PL);
    zt_op(s, 33, 3, ID_FN_SHF, ID_VOID, ID_PG);
    zt_op(s, 43, 3, ID_UINT, ID_U3, 3u); /* OpConstant */
    zt_op(s, 43, 3, ID_UINT, ID_U8, 8u);
    zt_op(s, 59, 3, ID_PIN, ID_GID, 1u); /* OpVariable Input */
    zt_op(s, 59, 3, ID_PIN, ID_LID, 1u);
}

static void zt_kernel_add(zt_spirv *s) {
    zt_op(s, 54, 4, ID_VOID, ID_ADD, 0u, ID_FN_ADD); /* OpFunction */
    zt_op(s, 55, 2, ID_PG, ID_OUT);                  /* OpFunctionParameter */
    zt_op(s, 55, 2, ID_PG, ID_IN);
    zt_op(s, 55, 2, ID_FLOAT, ID_C);
    zt_op(s, 55, 2, ID_ULONG, ID_Z);
    zt_op(s, 55, 2, ID_PL, ID_TMP);
    zt_op(s, 248, 1, ID_L1);                   /* OpLabel */
    zt_op(s, 61, 3, ID_V3, ID_G, ID_GID);      /* OpLoad */
    zt_op(s, 81, 4, ID_ULONG, ID_I, ID_G, 0u); /* OpCompositeExtract */
    zt_op(s, 61, 3, ID_V3, ID_LV, ID_LID);
    zt_op(s, 81, 4, ID_ULONG, ID_LI, ID_LV, 0u);
    zt_op(s, 70, 4, ID_PG, ID_PI, ID_IN, ID_I); /* OpInBoundsPtrAccessChain */
    zt_op(s, 61, 3, ID_FLOAT, ID_X, ID_PI);
    zt_op(s, 129, 4, ID_FLOAT, ID_Y, ID_X, ID_C); /* OpFAdd */
    zt_op(s, 112, 3, ID_FLOAT, ID_ZF, ID_Z);      /* OpConvertUToF */
    zt_op(s, 129, 4, ID_FLOAT, ID_Y2, ID_Y, ID_ZF);
    zt_op(s, 70, 4, ID_PL, ID_PT, ID_TMP, ID_LI);
    zt_op(s, 62, 2, ID_PT, ID_Y2); /* OpStore */
    zt_op(s, 61, 3, ID_FLOAT, ID_Y3, ID_PT);
    zt_op(s, 70, 4, ID_PG, ID_PO, ID_OUT, ID_I);
    zt_op(s, 62, 2, ID_PO, ID_Y3);
    zt_op(s, 253, 0); /* OpReturn */
    zt_op(s, 56, 0);  /* OpFunctionEnd */
}

static void zt_kernel_shuffle(zt_spirv *s) {
    zt_op(s, 54, 4, ID_VOID, ID_SHF, 0u, ID_FN_SHF);
    zt_op(s, 55, 2, ID_PG, ID_SOUT);
    zt_op(s, 248, 1, ID_L2);
    zt_op(s, 61, 3, ID_V3, ID_LV2, ID_LID);
    zt_op(s, 81, 4, ID_ULONG, ID_LI2, ID_LV2, 0u);
    zt_op(s, 112, 3, ID_FLOAT, ID_F, ID_LI2);
    zt_op(s, 348, 5, ID_FLOAT, ID_S, ID_U3, ID_F, ID_U8); /* ShuffleDown, Subgroup */
    zt_op(s, 70, 4, ID_PG, ID_PO2, ID_SOUT, ID_LI2);
    zt_op(s, 62, 2, ID_PO2, ID_S);
    zt_op(s, 253, 0);
    zt_op(s, 56, 0);
}

static void zt_assemble(zt_spirv *s, const char *add, const char *shuffle) {
    zt_module(s, add, shuffle);
    zt_kernel_add(s);
    zt_kernel_shuffle(s);
}

static const zt_spirv *zt_code(void) {
    static zt_spirv s;
    if (!s.n)
        zt_assemble(&s, "add", "shuffle_down");
    return &s;
}

/* ----------------------------------------------------------- fixture */

typedef struct {
    ze_driver_handle_t driver;
    ze_device_handle_t dev;
    ze_context_handle_t ctx;
    ze_module_handle_t module;
    ze_kernel_handle_t add, shuffle;
    float *in, *out; /* device memory, ZT_N floats each */
} zt_fixture;

#define ZT_N 256

static ze_result_t zt_build(zt_fixture *f, const void *code, size_t size, uint32_t format,
                            ze_module_handle_t *m, char *log, size_t log_size) {
    ze_module_desc_t md = {.stype = ZE_STRUCTURE_TYPE_MODULE_DESC,
                           .format = format,
                           .inputSize = size,
                           .pInputModule = code,
                           .pBuildFlags = "-ze-opt-level=2"};
    ze_module_build_log_handle_t bl = NULL;
    ze_result_t rc = zeModuleCreate(f->ctx, f->dev, &md, m, &bl);
    size_t n = log_size;
    ZE_OK(zeModuleBuildLogGetString(bl, &n, log));
    ZE_OK(zeModuleBuildLogDestroy(bl));
    return rc;
}

static ze_kernel_handle_t zt_kernel(ze_module_handle_t m, const char *name) {
    ze_kernel_desc_t kd = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = name};
    ze_kernel_handle_t k = NULL;
    ZE_OK(zeKernelCreate(m, &kd, &k));
    return k;
}

static int zt_setup(void **state) {
    zt_fixture *f = calloc(1, sizeof *f);
    ZE_OK(zeInit(0));
    uint32_t n = 1;
    ZE_OK(zeDriverGet(&n, &f->driver));
    n = 1;
    ZE_OK(zeDeviceGet(f->driver, &n, &f->dev));
    ze_context_desc_t cd = {.stype = 0xd};
    ZE_OK(zeContextCreate(f->driver, &cd, &f->ctx));
    char log[4096];
    const zt_spirv *s = zt_code();
    ze_result_t rc =
        zt_build(f, s->w, s->n * 4, ZE_MODULE_FORMAT_IL_SPIRV, &f->module, log, sizeof log);
    if (rc != ZE_RESULT_SUCCESS)
        fail_msg("the module did not build (0x%x): %s", rc, log);
    f->add = zt_kernel(f->module, "add");
    f->shuffle = zt_kernel(f->module, "shuffle_down");
    ze_device_mem_alloc_desc_t dd = {.stype = 0x15};
    ZE_OK(zeMemAllocDevice(f->ctx, &dd, ZT_N * sizeof(float), 0, f->dev, (void **)&f->in));
    ZE_OK(zeMemAllocDevice(f->ctx, &dd, ZT_N * sizeof(float), 0, f->dev, (void **)&f->out));
    for (int i = 0; i < ZT_N; i++) {
        f->in[i] = (float)i;
        f->out[i] = -1.0f;
    }
    *state = f;
    return 0;
}

static int zt_teardown(void **state) {
    zt_fixture *f = *state;
    ZE_OK(zeMemFree(f->ctx, f->in));
    ZE_OK(zeMemFree(f->ctx, f->out));
    ZE_OK(zeKernelDestroy(f->add));
    ZE_OK(zeKernelDestroy(f->shuffle));
    if (f->module)
        ZE_OK(zeModuleDestroy(f->module));
    ZE_OK(zeContextDestroy(f->ctx));
    free(f);
    return 0;
}

/* add's arguments: out, in, c, z (no value: zero), a local buffer. */
static void zt_add_args(zt_fixture *f, float c, uint32_t group) {
    ZE_OK(zeKernelSetArgumentValue(f->add, 0, sizeof f->out, &f->out));
    ZE_OK(zeKernelSetArgumentValue(f->add, 1, sizeof f->in, &f->in));
    ZE_OK(zeKernelSetArgumentValue(f->add, 2, sizeof c, &c));
    ZE_OK(zeKernelSetArgumentValue(f->add, 3, sizeof(uint64_t), NULL));
    ZE_OK(zeKernelSetArgumentValue(f->add, 4, group * sizeof(float), NULL));
    ZE_OK(zeKernelSetGroupSize(f->add, group, 1, 1));
}

/* ------------------------------------------------------------- tests */

/* The module's kernels, their arguments and sub-group size. */
static void module_and_kernel_facts(void **state) {
    zt_fixture *f = *state;
    uint32_t n = 0;
    ZE_OK(zeModuleGetKernelNames(f->module, &n, NULL));
    assert_int_equal(n, 2);
    const char *names[2] = {NULL, NULL};
    ZE_OK(zeModuleGetKernelNames(f->module, &n, names));
    assert_string_equal(names[0], "add");
    assert_string_equal(names[1], "shuffle_down");
    ze_module_properties_t mp = {.stype = ZE_STRUCTURE_TYPE_MODULE_PROPERTIES};
    ZE_OK(zeModuleGetProperties(f->module, &mp));
    assert_int_equal(mp.flags, 0); /* built-ins are no imports */
    ze_kernel_max_group_size_ext_properties_t mg = {
        .stype = ZE_STRUCTURE_TYPE_KERNEL_MAX_GROUP_SIZE_EXT_PROPERTIES};
    ze_kernel_properties_t kp = {.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES, .pNext = &mg};
    ZE_OK(zeKernelGetProperties(f->add, &kp));
    assert_int_equal(kp.numKernelArgs, 5);
    assert_int_equal(kp.requiredGroupSizeX, 0);
    assert_true(mg.maxGroupSize >= 1024);
    ZE_OK(zeKernelGetProperties(f->shuffle, &kp));
    assert_int_equal(kp.numKernelArgs, 1);
    /* Built for the largest sub-group size the device reports. */
    ze_device_compute_properties_t cp = {.stype = ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES};
    ZE_OK(zeDeviceGetComputeProperties(f->dev, &cp));
    assert_int_equal(kp.maxSubgroupSize, cp.subGroupSizes[cp.numSubGroupSizes - 1]);
    assert_int_equal(kp.maxSubgroupSize, 32);
    char name[16];
    size_t size = 0;
    ZE_OK(zeKernelGetName(f->shuffle, &size, NULL));
    assert_int_equal(size, sizeof "shuffle_down");
    ZE_OK(zeKernelGetName(f->shuffle, &size, name));
    assert_string_equal(name, "shuffle_down");
}

/* Arguments and group sizes the kernel cannot take are refused. */
static void arguments_and_group_sizes_checked(void **state) {
    zt_fixture *f = *state;
    float c = 1;
    assert_int_equal(zeKernelSetArgumentValue(f->add, 5, sizeof c, &c),
                     ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX);
    assert_int_equal(zeKernelSetArgumentValue(f->add, 0, 4, &f->out),
                     ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
    assert_int_equal(zeKernelSetArgumentValue(f->add, 2, 2, &c),
                     ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
    assert_int_equal(zeKernelSetArgumentValue(f->add, 4, 0, NULL),
                     ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
    assert_int_equal(zeKernelSetGroupSize(f->add, 0, 1, 1),
                     ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION);
    assert_int_equal(zeKernelSetGroupSize(f->add, 1u << 20, 1u << 20, 1),
                     ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION);
    uint32_t x = 0, y = 0, z = 0;
    ZE_OK(zeKernelSuggestGroupSize(f->add, 1000, 3, 1, &x, &y, &z));
    assert_true(x >= 100 && 1000 % x == 0 && 3 % y == 0 && z == 1);
    ze_kernel_desc_t kd = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = "absent"};
    ze_kernel_handle_t k = NULL;
    assert_int_equal(zeKernelCreate(f->module, &kd, &k), ZE_RESULT_ERROR_INVALID_KERNEL_NAME);
    assert_int_equal(zeKernelCreate((ze_module_handle_t)(void *)f->ctx, &kd, &k),
                     ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
    assert_int_equal(zeKernelSetGroupSize((ze_kernel_handle_t)(void *)f->ctx, 1, 1, 1),
                     ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

static void zt_sleep_ms(long ms) {
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

/* A launch waits for its wait event and signals its own only once the
 * kernel ran; its arguments are the ones set when it was appended; a
 * regular list runs it again; the global offset moves it. */
static void launches_are_ordered_commands(void **state) {
    zt_fixture *f = *state;
    zt_add_args(f, 1.5f, 64);
    ZE_OK(zeKernelSetGlobalOffsetExp(f->add, 64, 0, 0));
    ze_command_queue_desc_t qd = {.stype = 0xe};
    ze_command_queue_handle_t q = NULL;
    ZE_OK(zeCommandQueueCreate(f->ctx, f->dev, &qd, &q));
    ze_command_list_desc_t ld = {.stype = 0xf};
    ze_command_list_handle_t l = NULL;
    ZE_OK(zeCommandListCreate(f->ctx, f->dev, &ld, &l));
    ze_event_pool_desc_t pd = {.stype = 0x10, .count = 2};
    ze_event_pool_handle_t pool = NULL;
    ZE_OK(zeEventPoolCreate(f->ctx, &pd, 1, &f->dev, &pool));
    ze_event_handle_t gate = NULL, done = NULL;
    ze_event_desc_t ed = {.stype = 0x11, .index = 0};
    ZE_OK(zeEventCreate(pool, &ed, &gate));
    ed.index = 1;
    ZE_OK(zeEventCreate(pool, &ed, &done));
    ze_group_count_t groups = {2, 1, 1};
    ZE_OK(zeCommandListAppendLaunchKernel(l, f->add, &groups, done, 1, &gate));
    float later = 100.0f; /* set after the append: not this launch's */
    ZE_OK(zeKernelSetArgumentValue(f->add, 2, sizeof later, &later));
    ZE_OK(zeCommandListClose(l));
    ZE_OK(zeCommandQueueExecuteCommandLists(q, 1, &l, NULL));
    zt_sleep_ms(20);
    assert_int_equal(zeEventQueryStatus(done), ZE_RESULT_NOT_READY);
    assert_true(f->out[64] == -1.0f); /* not run before its gate */
    ZE_OK(zeEventHostSignal(gate));
    ZE_OK(zeEventHostSynchronize(done, UINT64_MAX));
    for (int i = 0; i < ZT_N; i++) {
        float want = i >= 64 && i < 192 ? (float)i + 1.5f : -1.0f;
        if (f->out[i] != want)
            fail_msg("out[%d] = %g, want %g", i, (double)f->out[i], (double)want);
    }
    /* Again, after the module is gone: kernels and launches outlive it. */
    ZE_OK(zeModuleDestroy(f->module));
    f->module = NULL;
    f->out[100] = -1.0f;
    ZE_OK(zeEventHostReset(done));
    ZE_OK(zeCommandQueueExecuteCommandLists(q, 1, &l, NULL));
    ZE_OK(zeEventHostSynchronize(done, UINT64_MAX));
    assert_true(f->out[100] == 101.5f);
    ZE_OK(zeCommandQueueSynchronize(q, UINT64_MAX));
    ZE_OK(zeEventDestroy(gate));
    ZE_OK(zeEventDestroy(done));
    ZE_OK(zeEventPoolDestroy(pool));
    ZE_OK(zeCommandListDestroy(l));
    ZE_OK(zeCommandQueueDestroy(q));
}

/* Lane l of a sub-group of 32 gets lane l + 8's value: the width the
 * device reports, and ShuffleDown's direction, which Intel's CPU runtime
 * reverses at 32 lanes when ze_sim does not rewrite it. */
static void shuffle_down_across_32_lanes(void **state) {
    zt_fixture *f = *state;
    ZE_OK(zeKernelSetArgumentValue(f->shuffle, 0, sizeof f->out, &f->out));
    ZE_OK(zeKernelSetGroupSize(f->shuffle, 32, 1, 1));
    ze_command_queue_desc_t qd = {.stype = 0xe, .mode = ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS};
    ze_command_list_handle_t il = NULL;
    ZE_OK(zeCommandListCreateImmediate(f->ctx, f->dev, &qd, &il));
    ze_group_count_t one = {1, 1, 1};
    ZE_OK(zeCommandListAppendLaunchKernel(il, f->shuffle, &one, NULL, 0, NULL));
    for (int i = 0; i < 24; i++) {
        if (f->out[i] != (float)(i + 8))
            fail_msg("lane %d got %g, want %d", i, (double)f->out[i], i + 8);
    }
    ZE_OK(zeCommandListDestroy(il));
}

/* Builds `size` bytes of code as `format`: a failure whose log holds `why`. */
static void zt_refused(zt_fixture *f, const void *code, size_t size, uint32_t format,
                       const char *why) {
    ze_module_handle_t m = (ze_module_handle_t)(void *)f; /* must be cleared */
    char log[4096];
    assert_int_equal(zt_build(f, code, size, format, &m, log, sizeof log),
                     ZE_RESULT_ERROR_MODULE_BUILD_FAILURE);
    assert_null(m);
    if (!strstr(log, why))
        fail_msg("the build log does not say '%s': %s", why, log);
}

/* Two modules built as one program (ZE_experimental_module_program, as
 * SYCL links a kernel with its device libraries): each compiled, then
 * linked; the program has both modules' kernels. A scalar argument given
 * in more bytes than it has is its first bytes (oneMKL sets 32-bit
 * arguments from 64-bit values, which Intel's GPU driver takes). */
static void linked_modules_and_wide_scalars(void **state) {
    zt_fixture *f = *state;
    static zt_spirv other;
    zt_assemble(&other, "add_too", "shuffle_too");
    const zt_spirv *s = zt_code();
    const size_t sizes[2] = {s->n * 4, other.n * 4};
    const uint8_t *codes[2] = {(const uint8_t *)s->w, (const uint8_t *)other.w};
    const char *flags[2] = {"-ze-opt-level=2", NULL};
    ze_module_program_exp_desc_t prog = {.stype = ZE_STRUCTURE_TYPE_MODULE_PROGRAM_EXP_DESC,
                                         .count = 2,
                                         .inputSizes = sizes,
                                         .pInputModules = codes,
                                         .pBuildFlags = flags};
    ze_module_desc_t md = {.stype = ZE_STRUCTURE_TYPE_MODULE_DESC,
                           .pNext = &prog,
                           .format = ZE_MODULE_FORMAT_IL_SPIRV};
    ze_module_handle_t m = NULL;
    ZE_OK(zeModuleCreate(f->ctx, f->dev, &md, &m, NULL));
    uint32_t n = 0;
    ZE_OK(zeModuleGetKernelNames(m, &n, NULL));
    assert_int_equal(n, 4);
    ze_kernel_handle_t k = zt_kernel(m, "add_too");
    ZE_OK(zeKernelSetArgumentValue(k, 0, sizeof f->out, &f->out));
    ZE_OK(zeKernelSetArgumentValue(k, 1, sizeof f->in, &f->in));
    union {
        float c;
        uint64_t wide;
    } c = {.wide = 0};
    c.c = 0.25f;
    ZE_OK(zeKernelSetArgumentValue(k, 2, sizeof c.wide, &c.wide)); /* a float in 8 bytes */
    ZE_OK(zeKernelSetArgumentValue(k, 3, sizeof(uint64_t), NULL));
    ZE_OK(zeKernelSetArgumentValue(k, 4, 32 * sizeof(float), NULL));
    ZE_OK(zeKernelSetGroupSize(k, 32, 1, 1));
    ze_command_queue_desc_t qd = {.stype = 0xe, .mode = ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS};
    ze_command_list_handle_t il = NULL;
    ZE_OK(zeCommandListCreateImmediate(f->ctx, f->dev, &qd, &il));
    ze_group_count_t one = {1, 1, 1};
    ZE_OK(zeCommandListAppendLaunchKernel(il, k, &one, NULL, 0, NULL));
    for (int i = 0; i < 32; i++)
        assert_true(f->out[i] == (float)i + 0.25f);
    ZE_OK(zeCommandListDestroy(il));
    ZE_OK(zeKernelDestroy(k));
    ZE_OK(zeModuleDestroy(m));
}

/* Malformed SPIR-V and GPU machine code are refused, the log saying why;
 * a module OpenCL cannot build comes with OpenCL's log. */
static void modules_refused_with_a_log(void **state) {
    zt_fixture *f = *state;
    const zt_spirv *s = zt_code();
    static zt_spirv bad;
    bad = *s;
    zt_refused(f,
               "\x7f"
               "ELF",
               4, ZE_MODULE_FORMAT_NATIVE, "native binary");
    zt_refused(f, "nonsense", 8, ZE_MODULE_FORMAT_IL_SPIRV, "shorter than its header");
    bad.w[0] = 0x12345678u;
    zt_refused(f, bad.w, bad.n * 4, ZE_MODULE_FORMAT_IL_SPIRV, "no SPIR-V magic");
    bad = *s;
    bad.w[3] = 0x7fffffffu; /* the id bound */
    zt_refused(f, bad.w, bad.n * 4, ZE_MODULE_FORMAT_IL_SPIRV, "id bound");
    bad = *s;
    bad.w[5] = 0xffffu << 16 | 17u; /* the first OpCapability's length */
    zt_refused(f, bad.w, bad.n * 4, ZE_MODULE_FORMAT_IL_SPIRV, "runs past the end");
    bad = *s;
    bad.w[bad.n - 1] = 1u << 16 | 0xfffeu; /* the last OpFunctionEnd */
    zt_refused(f, bad.w, bad.n * 4, ZE_MODULE_FORMAT_IL_SPIRV, "opcode SPIR-V does not define");
    bad = *s;
    bad.w[6] = 1u; /* the first capability, Shader: read by ze_sim, refused by OpenCL */
    zt_refused(f, bad.w, bad.n * 4, ZE_MODULE_FORMAT_IL_SPIRV, "unsupported capability");
    assert_int_equal(zeModuleDestroy((ze_module_handle_t)(void *)f->ctx),
                     ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
}

/* A child forked after the OpenCL runtime was loaded has none of its
 * threads: modules are refused, saying so, and launches too. */
static void forked_child_refuses_kernels(void **state) {
    zt_fixture *f = *state;
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        const zt_spirv *s = zt_code();
        ze_module_handle_t m = NULL;
        char log[4096] = "";
        ze_command_queue_desc_t qd = {.stype = 0xe};
        ze_command_list_handle_t il = NULL;
        ze_group_count_t one = {1, 1, 1};
        char ok = zt_build(f, s->w, s->n * 4, 0, &m, log, sizeof log) ==
                      ZE_RESULT_ERROR_MODULE_BUILD_FAILURE &&
                  strstr(log, "forked") &&
                  zeCommandListCreateImmediate(f->ctx, f->dev, &qd, &il) == 0 &&
                  zeCommandListAppendLaunchKernel(il, f->add, &one, NULL, 0, NULL) ==
                      ZE_RESULT_ERROR_DEVICE_LOST;
        _exit(write(fds[1], &ok, 1) == 1 ? 0 : 1);
    }
    close(fds[1]);
    char ok = 0;
    assert_int_equal(read(fds[0], &ok, 1), 1);
    close(fds[0]);
    assert_int_equal(waitpid(pid, NULL, 0), pid);
    assert_true(ok);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(module_and_kernel_facts, zt_setup, zt_teardown),
        cmocka_unit_test_setup_teardown(arguments_and_group_sizes_checked, zt_setup, zt_teardown),
        cmocka_unit_test_setup_teardown(launches_are_ordered_commands, zt_setup, zt_teardown),
        cmocka_unit_test_setup_teardown(shuffle_down_across_32_lanes, zt_setup, zt_teardown),
        cmocka_unit_test_setup_teardown(linked_modules_and_wide_scalars, zt_setup, zt_teardown),
        cmocka_unit_test_setup_teardown(modules_refused_with_a_log, zt_setup, zt_teardown),
        cmocka_unit_test_setup_teardown(forked_child_refuses_kernels, zt_setup, zt_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
