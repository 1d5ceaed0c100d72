/* Buffers on platform cpu: element types, shapes, byte strides, device and
 * host layouts, host-buffer semantics, copies, deletion. Transfers are
 * checked element by element. */
#include "plugin_util.h"

static PJRT_Client *client; /* cpu, two devices: shared by the tests */

/* Asserts that BufferFromHostBuffer of the args `a` fails with `code` and a
 * message that contains `needle`. */
#define H2D_FAILS(a, code, needle)                                                                 \
    PU_EXPECT_ERROR(pu_api->PJRT_Client_BufferFromHostBuffer(&(a)), code, needle)

static const struct {
    PJRT_Buffer_Type type;
    size_t size;
} types[] = {
    {PJRT_Buffer_Type_PRED, 1},       {PJRT_Buffer_Type_S8, 1},
    {PJRT_Buffer_Type_S16, 2},        {PJRT_Buffer_Type_S32, 4},
    {PJRT_Buffer_Type_S64, 8},        {PJRT_Buffer_Type_U8, 1},
    {PJRT_Buffer_Type_U16, 2},        {PJRT_Buffer_Type_U32, 4},
    {PJRT_Buffer_Type_U64, 8},        {PJRT_Buffer_Type_F16, 2},
    {PJRT_Buffer_Type_F32, 4},        {PJRT_Buffer_Type_F64, 8},
    {PJRT_Buffer_Type_BF16, 2},       {PJRT_Buffer_Type_C64, 8},
    {PJRT_Buffer_Type_C128, 16},      {PJRT_Buffer_Type_F8E5M2, 1},
    {PJRT_Buffer_Type_F8E4M3FN, 1},   {PJRT_Buffer_Type_F8E4M3B11FNUZ, 1},
    {PJRT_Buffer_Type_F8E5M2FNUZ, 1}, {PJRT_Buffer_Type_F8E4M3FNUZ, 1},
    {PJRT_Buffer_Type_F8E4M3, 1},     {PJRT_Buffer_Type_F8E3M4, 1},
    {PJRT_Buffer_Type_F8E8M0FNU, 1},
};

static void test_every_type_round_trips(void **state) {
    (void)state;
    for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
        int64_t dims[2] = {3, 5};
        size_t bytes = 15 * types[t].size;
        unsigned char src[15 * 16], dst[15 * 16 + 1];
        for (size_t i = 0; i < bytes; i++)
            src[i] = (unsigned char)(i * 7 + t);
        PJRT_Client_BufferFromHostBuffer_Args a = pu_h2d_args(client, src, types[t].type, dims, 2);
        PJRT_Buffer *b = pu_h2d(&a);
        PJRT_Buffer_ElementType_Args et = {.struct_size = PJRT_Buffer_ElementType_Args_STRUCT_SIZE,
                                           .buffer = b};
        PU_OK(pu_api->PJRT_Buffer_ElementType(&et));
        assert_int_equal(et.type, types[t].type);
        PJRT_Buffer_OnDeviceSizeInBytes_Args sz = {
            .struct_size = PJRT_Buffer_OnDeviceSizeInBytes_Args_STRUCT_SIZE, .buffer = b};
        PU_OK(pu_api->PJRT_Buffer_OnDeviceSizeInBytes(&sz));
        assert_int_equal(sz.on_device_size_in_bytes, bytes);
        memset(dst, 0xEE, sizeof(dst));
        PU_OK(pu_to_host(b, dst, bytes, NULL));
        assert_memory_equal(src, dst, bytes);
        assert_int_equal(dst[bytes], 0xEE); /* nothing written past the end */
        assert_int_equal((uintptr_t)pu_pointer(b) % 64, 0);
        pu_destroy_buffer(b);
    }
}

/* Sub-byte types as XLA's CPU plugin holds them (found by trying it, see
 * docs/design.md "Sub-byte types"): the host form is one element per byte,
 * in its low bits; device memory packs 1, 2 and 4 bits little-bit-endian
 * (9 S4 elements take 5 bytes) and keeps the 6-bit floats one per byte.
 * The expected bytes are written out by hand. Device-to-device copies and
 * views keep the packed form. */
static void test_sub_byte_types(void **state) {
    (void)state;
    const uint8_t host[9] = {0, 1, 2, 3, 0xf, 0xe, 6, 7, 5};
    const int64_t dims[1] = {9};
    static const struct {
        PJRT_Buffer_Type type;
        size_t size;
        uint8_t device[9];
        uint8_t back[9];
    } cases[] = {
        {PJRT_Buffer_Type_S4, 5, {0x10, 0x32, 0xef, 0x76, 0x05}, {0, 1, 2, 3, 0xf, 0xe, 6, 7, 5}},
        {PJRT_Buffer_Type_F4E2M1FN,
         5,
         {0x10, 0x32, 0xef, 0x76, 0x05},
         {0, 1, 2, 3, 0xf, 0xe, 6, 7, 5}},
        {PJRT_Buffer_Type_U2, 3, {0xe4, 0xeb, 0x01}, {0, 1, 2, 3, 3, 2, 2, 3, 1}},
        {PJRT_Buffer_Type_U1, 2, {0x9a, 0x01}, {0, 1, 0, 1, 1, 0, 0, 1, 1}},
        {PJRT_Buffer_Type_F6E2M3FN,
         9,
         {0, 1, 2, 3, 0xf, 0xe, 6, 7, 5},
         {0, 1, 2, 3, 0xf, 0xe, 6, 7, 5}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        PJRT_Client_BufferFromHostBuffer_Args a = pu_h2d_args(client, host, cases[i].type, dims, 1);
        PJRT_Buffer *b = pu_h2d(&a);
        PJRT_Buffer_OnDeviceSizeInBytes_Args sz = {
            .struct_size = PJRT_Buffer_OnDeviceSizeInBytes_Args_STRUCT_SIZE, .buffer = b};
        PU_OK(pu_api->PJRT_Buffer_OnDeviceSizeInBytes(&sz));
        assert_int_equal(sz.on_device_size_in_bytes, cases[i].size);
        assert_memory_equal(pu_pointer(b), cases[i].device, cases[i].size);
        uint8_t out[10];
        memset(out, 0xEE, sizeof out);
        PU_OK(pu_to_host(b, out, 9, NULL));
        assert_memory_equal(out, cases[i].back, 9);
        assert_int_equal(out[9], 0xEE);
        /* A copy to the other device, and a view of the packed memory. */
        PJRT_Buffer_CopyToDevice_Args c = {.struct_size = PJRT_Buffer_CopyToDevice_Args_STRUCT_SIZE,
                                           .buffer = b,
                                           .dst_device = pu_device(client, 1)};
        PU_OK(pu_api->PJRT_Buffer_CopyToDevice(&c));
        PU_OK(pu_buffer_await(c.dst_buffer));
        assert_memory_equal(pu_pointer(c.dst_buffer), cases[i].device, cases[i].size);
        PJRT_Client_CreateViewOfDeviceBuffer_Args v =
            pu_view_args(client, pu_pointer(c.dst_buffer), cases[i].type, dims, 1, NULL);
        PU_OK(pu_api->PJRT_Client_CreateViewOfDeviceBuffer(&v));
        memset(out, 0xEE, sizeof out);
        PU_OK(pu_to_host(v.buffer, out, 9, NULL));
        assert_memory_equal(out, cases[i].back, 9);
        pu_destroy_buffer(v.buffer);
        pu_destroy_buffer(c.dst_buffer);
        pu_destroy_buffer(b);
    }
}

static void test_rejected_types_and_shapes(void **state) {
    (void)state;
    char data[64] = {0};
    int64_t dims[2] = {2, 2};
    PJRT_Client_BufferFromHostBuffer_Args a =
        pu_h2d_args(client, data, PJRT_Buffer_Type_TOKEN, dims, 2);
    H2D_FAILS(a, PJRT_Error_Code_INVALID_ARGUMENT, "TOKEN");
    a.type = (PJRT_Buffer_Type)999;
    H2D_FAILS(a, PJRT_Error_Code_INVALID_ARGUMENT, "unknown element type 999");
    a.type = PJRT_Buffer_Type_F32;
    int64_t neg[2] = {2, -1};
    a.dims = neg;
    H2D_FAILS(a, PJRT_Error_Code_INVALID_ARGUMENT, "dimension 1 is negative");
    int64_t huge[3] = {INT64_MAX / 2, 4, 4};
    a.dims = huge;
    a.num_dims = 3;
    H2D_FAILS(a, PJRT_Error_Code_INVALID_ARGUMENT, "overflows");
    int64_t many[65];
    for (int i = 0; i < 65; i++)
        many[i] = 1;
    a.dims = many;
    a.num_dims = 65;
    H2D_FAILS(a, PJRT_Error_Code_INVALID_ARGUMENT, "at most 64");
    a.dims = NULL;
    a.num_dims = 2;
    H2D_FAILS(a, PJRT_Error_Code_INVALID_ARGUMENT, "dims is NULL");
    a.dims = dims;
    a.data = NULL;
    H2D_FAILS(a, PJRT_Error_Code_INVALID_ARGUMENT, "data is NULL");
    a.data = data;
    a.host_buffer_semantics = (PJRT_HostBufferSemantics)17;
    H2D_FAILS(a, PJRT_Error_Code_INVALID_ARGUMENT, "host_buffer_semantics");
    a.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableOnlyDuringCall;
    a.device = NULL;
    H2D_FAILS(a, PJRT_Error_Code_INVALID_ARGUMENT, "neither device nor memory");
    /* A memory of another device than the one named. */
    a.device = pu_device(client, 0);
    a.memory = pu_memory(pu_device(client, 1), "device");
    H2D_FAILS(a, PJRT_Error_Code_INVALID_ARGUMENT, "is not a memory of device");
    /* A device of another client. */
    PJRT_Client *other = pu_cpu_client();
    a.memory = NULL;
    a.device = pu_device(other, 0);
    H2D_FAILS(a, PJRT_Error_Code_INVALID_ARGUMENT, "another client");
    pu_destroy_client(other);
}

static void test_scalar_and_empty(void **state) {
    (void)state;
    double x = 2.5, y = 0;
    PJRT_Client_BufferFromHostBuffer_Args a =
        pu_h2d_args(client, &x, PJRT_Buffer_Type_F64, NULL, 0);
    PJRT_Buffer *b = pu_h2d(&a);
    PU_OK(pu_to_host(b, &y, sizeof(y), NULL));
    assert_true(y == 2.5);
    PJRT_Buffer_Dimensions_Args d = {.struct_size = PJRT_Buffer_Dimensions_Args_STRUCT_SIZE,
                                     .buffer = b};
    PU_OK(pu_api->PJRT_Buffer_Dimensions(&d));
    assert_int_equal(d.num_dims, 0);
    pu_destroy_buffer(b);

    int64_t dims[3] = {4, 0, 3};
    a = pu_h2d_args(client, NULL, PJRT_Buffer_Type_F32, dims, 3);
    b = pu_h2d(&a);
    PJRT_Buffer_ToHostBuffer_Args q = {.struct_size = PJRT_Buffer_ToHostBuffer_Args_STRUCT_SIZE,
                                       .src = b};
    PU_OK(pu_api->PJRT_Buffer_ToHostBuffer(&q));
    assert_int_equal(q.dst_size, 0);
    pu_destroy_buffer(b);
}

static void test_metadata(void **state) {
    (void)state;
    int32_t data[6] = {1, 2, 3, 4, 5, 6};
    int64_t dims[2] = {2, 3};
    PJRT_Client_BufferFromHostBuffer_Args a =
        pu_h2d_args(client, data, PJRT_Buffer_Type_S32, dims, 2);
    a.device = pu_device(client, 1);
    PJRT_Buffer *b = pu_h2d(&a);
    const PJRT_Api *api = pu_api;
    PJRT_Buffer_Dimensions_Args d = {.struct_size = PJRT_Buffer_Dimensions_Args_STRUCT_SIZE,
                                     .buffer = b};
    PU_OK(api->PJRT_Buffer_Dimensions(&d));
    assert_int_equal(d.num_dims, 2);
    assert_int_equal(d.dims[0], 2);
    assert_int_equal(d.dims[1], 3);
    PJRT_Buffer_UnpaddedDimensions_Args u = {
        .struct_size = PJRT_Buffer_UnpaddedDimensions_Args_STRUCT_SIZE, .buffer = b};
    PU_OK(api->PJRT_Buffer_UnpaddedDimensions(&u));
    assert_int_equal(u.num_dims, 2);
    assert_int_equal(u.unpadded_dims[1], 3);
    PJRT_Buffer_DynamicDimensionIndices_Args dd = {
        .struct_size = PJRT_Buffer_DynamicDimensionIndices_Args_STRUCT_SIZE, .buffer = b};
    PU_OK(api->PJRT_Buffer_DynamicDimensionIndices(&dd));
    assert_int_equal(dd.num_dynamic_dims, 0);
    assert_ptr_equal(pu_buffer_device(b), pu_device(client, 1));
    PJRT_Buffer_Memory_Args m = {.struct_size = PJRT_Buffer_Memory_Args_STRUCT_SIZE, .buffer = b};
    PU_OK(api->PJRT_Buffer_Memory(&m));
    assert_ptr_equal(m.memory, pu_memory(pu_device(client, 1), "device"));
    PJRT_Buffer_IsOnCpu_Args oc = {.struct_size = PJRT_Buffer_IsOnCpu_Args_STRUCT_SIZE,
                                   .buffer = b};
    PU_OK(api->PJRT_Buffer_IsOnCpu(&oc));
    assert_true(oc.is_on_cpu);
    PJRT_Buffer_GetMemoryLayout_Args l = {
        .struct_size = PJRT_Buffer_GetMemoryLayout_Args_STRUCT_SIZE, .buffer = b};
    PU_OK(api->PJRT_Buffer_GetMemoryLayout(&l));
    assert_int_equal(l.layout.type, PJRT_Buffer_MemoryLayout_Type_Tiled);
    assert_int_equal(l.layout.tiled.minor_to_major_size, 2);
    assert_int_equal(l.layout.tiled.minor_to_major[0], 1);
    assert_int_equal(l.layout.tiled.minor_to_major[1], 0);
    assert_int_equal(l.layout.tiled.num_tiles, 0);
    PJRT_Buffer_UnsafePointer_Args up = {.struct_size = PJRT_Buffer_UnsafePointer_Args_STRUCT_SIZE,
                                         .buffer = b};
    PU_OK(api->PJRT_Buffer_UnsafePointer(&up));
    assert_ptr_equal((void *)up.buffer_pointer, pu_pointer(b));
    assert_memory_equal(pu_pointer(b), data, sizeof(data));
    PJRT_Event *e = pu_ready_event(b);
    assert_true(pu_is_ready(e));
    PU_OK(pu_await(e));
    pu_destroy_event(e);
    pu_destroy_buffer(b);
}

/* Reads element (i, j) of a 2-D int32 array at `base` with byte strides. */
static int32_t at(const void *base, int64_t s0, int64_t s1, int64_t i, int64_t j) {
    int32_t v;
    memcpy(&v, (const char *)base + i * s0 + j * s1, sizeof(v));
    return v;
}

static void check_strided_h2d(const int32_t *src_base, const int32_t *data, int64_t s0, int64_t s1,
                              int64_t rows, int64_t cols) {
    int64_t dims[2] = {rows, cols};
    int64_t strides[2] = {s0, s1};
    PJRT_Client_BufferFromHostBuffer_Args a =
        pu_h2d_args(client, data, PJRT_Buffer_Type_S32, dims, 2);
    a.byte_strides = strides;
    a.num_byte_strides = 2;
    PJRT_Buffer *b = pu_h2d(&a);
    int32_t out[64];
    PU_OK(pu_to_host(b, out, sizeof(out), NULL));
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++)
            assert_int_equal(out[i * cols + j], at(data, s0, s1, i, j));
    (void)src_base;
    pu_destroy_buffer(b);
}

static void test_host_byte_strides(void **state) {
    (void)state;
    int32_t grid[5 * 6];
    for (int i = 0; i < 30; i++)
        grid[i] = 100 + i;
    /* A 3x4 block of a 5x6 array (non-compact rows). */
    check_strided_h2d(grid, grid + 7, 24, 4, 3, 4);
    /* Every other column: gaps inside rows. */
    check_strided_h2d(grid, grid, 24, 8, 5, 3);
    /* Transposed: a 6x5 view of the 5x6 array. */
    check_strided_h2d(grid, grid, 4, 24, 6, 5);
    /* Negative strides: rows and columns reversed; data points inside. */
    check_strided_h2d(grid, grid + 29, -24, -4, 5, 6);
    /* Broadcast: a zero stride repeats a row. */
    check_strided_h2d(grid, grid, 0, 4, 4, 6);

    int64_t dims[2] = {5, 6};
    int64_t bad[1] = {4};
    PJRT_Client_BufferFromHostBuffer_Args a =
        pu_h2d_args(client, grid, PJRT_Buffer_Type_S32, dims, 2);
    a.byte_strides = bad;
    a.num_byte_strides = 1;
    H2D_FAILS(a, PJRT_Error_Code_INVALID_ARGUMENT, "1 byte strides for an array of 2 dimensions");
    int64_t overflow[2] = {INT64_MAX / 2, 4};
    a.byte_strides = overflow;
    a.num_byte_strides = 2;
    H2D_FAILS(a, PJRT_Error_Code_INVALID_ARGUMENT, "overflow");
    a.byte_strides = NULL;
    H2D_FAILS(a, PJRT_Error_Code_INVALID_ARGUMENT, "byte_strides is NULL");
}

static void test_device_layouts(void **state) {
    (void)state;
    /* A 2x3x4 int32 array stored with minor_to_major {1, 0, 2}. */
    int32_t data[24];
    for (int i = 0; i < 24; i++)
        data[i] = i;
    int64_t dims[3] = {2, 3, 4};
    int64_t m2m[3] = {1, 0, 2};
    PJRT_Buffer_MemoryLayout layout = pu_tiled(m2m, 3);
    PJRT_Client_BufferFromHostBuffer_Args a =
        pu_h2d_args(client, data, PJRT_Buffer_Type_S32, dims, 3);
    a.device_layout = &layout;
    PJRT_Buffer *b = pu_h2d(&a);
    PJRT_Buffer_GetMemoryLayout_Args l = {
        .struct_size = PJRT_Buffer_GetMemoryLayout_Args_STRUCT_SIZE, .buffer = b};
    PU_OK(pu_api->PJRT_Buffer_GetMemoryLayout(&l));
    assert_memory_equal(l.layout.tiled.minor_to_major, m2m, sizeof(m2m));
    /* Device strides: dim1 = 4 bytes, dim0 = 12, dim2 = 24. */
    const int32_t *dev = pu_pointer(b);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 4; k++)
                assert_int_equal(dev[(i * 12 + j * 4 + k * 24) / 4], data[i * 12 + j * 4 + k]);
    /* To host with no layout: the buffer's own layout. */
    int32_t out[24];
    PU_OK(pu_to_host(b, out, sizeof(out), NULL));
    assert_memory_equal(out, dev, sizeof(out));
    /* To host row-major. */
    int64_t row_major[3] = {2, 1, 0};
    PJRT_Buffer_MemoryLayout rm = pu_tiled(row_major, 3);
    PU_OK(pu_to_host(b, out, sizeof(out), &rm));
    assert_memory_equal(out, data, sizeof(out));
    pu_destroy_buffer(b);

    /* The same layout given as dense byte strides. */
    int64_t strides[3] = {12, 4, 24};
    PJRT_Buffer_MemoryLayout sl = pu_strided(strides, 3);
    a.device_layout = &sl;
    b = pu_h2d(&a);
    l.buffer = b;
    PU_OK(pu_api->PJRT_Buffer_GetMemoryLayout(&l));
    assert_memory_equal(l.layout.tiled.minor_to_major, m2m, sizeof(m2m));
    PU_OK(pu_to_host(b, out, sizeof(out), &rm));
    assert_memory_equal(out, data, sizeof(out));
    pu_destroy_buffer(b);

    /* Rejected: gaps, wrong count, not a permutation, tiles. */
    int64_t gaps[3] = {64, 16, 4};
    sl = pu_strided(gaps, 3);
    H2D_FAILS(a, PJRT_Error_Code_INVALID_ARGUMENT, "dense layout");
    sl.strides.num_byte_strides = 2;
    H2D_FAILS(a, PJRT_Error_Code_INVALID_ARGUMENT, "2 byte strides");
    int64_t dup[3] = {0, 0, 2};
    layout = pu_tiled(dup, 3);
    a.device_layout = &layout;
    H2D_FAILS(a, PJRT_Error_Code_INVALID_ARGUMENT, "not a permutation");
    layout = pu_tiled(m2m, 2);
    H2D_FAILS(a, PJRT_Error_Code_INVALID_ARGUMENT, "minor_to_major has 2 entries");
    int64_t tile_dims[1] = {8};
    size_t tile_sizes[1] = {1};
    layout = pu_tiled(m2m, 3);
    layout.tiled.tile_dims = tile_dims;
    layout.tiled.tile_dim_sizes = tile_sizes;
    layout.tiled.num_tiles = 1;
    H2D_FAILS(a, PJRT_Error_Code_UNIMPLEMENTED, "tiled layouts");
    /* The layout's struct_size is not checked (XLA's client leaves it unset:
     * test_plugin_frameworks): the fields are read whatever it says. */
    layout.struct_size = 8;
    H2D_FAILS(a, PJRT_Error_Code_UNIMPLEMENTED, "tiled layouts");
}

static void test_host_layouts(void **state) {
    (void)state;
    int32_t data[12];
    for (int i = 0; i < 12; i++)
        data[i] = i * 3;
    int64_t dims[2] = {3, 4};
    PJRT_Client_BufferFromHostBuffer_Args a =
        pu_h2d_args(client, data, PJRT_Buffer_Type_S32, dims, 2);
    PJRT_Buffer *b = pu_h2d(&a);
    /* Column-major with padding: rows 4 bytes apart, columns 16 bytes. */
    int64_t strides[2] = {4, 16};
    PJRT_Buffer_MemoryLayout hl = pu_strided(strides, 2);
    PJRT_Buffer_ToHostBuffer_Args q = {
        .struct_size = PJRT_Buffer_ToHostBuffer_Args_STRUCT_SIZE, .src = b, .host_layout = &hl};
    PU_OK(pu_api->PJRT_Buffer_ToHostBuffer(&q));
    /* Last element at (2, 3): 2 * 4 + 3 * 16 = 56, plus 4 bytes. */
    assert_int_equal(q.dst_size, 60);
    int32_t out[16];
    memset(out, 0x5A, sizeof(out));
    PU_OK(pu_to_host(b, out, q.dst_size, &hl));
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++)
            assert_int_equal(at(out, 4, 16, i, j), data[i * 4 + j]);
    int32_t pad;
    memset(&pad, 0x5A, sizeof(pad));
    assert_int_equal(out[3], pad); /* the gap is untouched */
    /* Too small, negative, overlapping. */
    PU_EXPECT_ERROR(pu_to_host(b, out, q.dst_size - 1, &hl), PJRT_Error_Code_INVALID_ARGUMENT,
                    "dst_size");
    int64_t negative[2] = {-16, 4};
    hl = pu_strided(negative, 2);
    PU_EXPECT_ERROR(pu_to_host(b, out, sizeof(out), &hl), PJRT_Error_Code_INVALID_ARGUMENT,
                    "negative");
    int64_t overlap[2] = {4, 4};
    hl = pu_strided(overlap, 2);
    PU_EXPECT_ERROR(pu_to_host(b, out, sizeof(out), &hl), PJRT_Error_Code_INVALID_ARGUMENT,
                    "overlap");
    PU_EXPECT_ERROR(pu_to_host(NULL, out, sizeof(out), NULL), PJRT_Error_Code_INVALID_ARGUMENT,
                    "src is NULL");
    pu_destroy_buffer(b);
}

static void test_semantics(void **state) {
    (void)state;
    _Alignas(64) float data[16];
    for (int i = 0; i < 16; i++)
        data[i] = (float)i;
    int64_t dims[2] = {4, 4};
    PJRT_Client_BufferFromHostBuffer_Args a =
        pu_h2d_args(client, data, PJRT_Buffer_Type_F32, dims, 2);
    /* Copying semantics: the caller's memory can change afterwards. */
    PJRT_HostBufferSemantics copying[] = {
        PJRT_HostBufferSemantics_kImmutableOnlyDuringCall,
        PJRT_HostBufferSemantics_kImmutableUntilTransferCompletes};
    for (int s = 0; s < 2; s++) {
        a.host_buffer_semantics = copying[s];
        PU_OK(pu_api->PJRT_Client_BufferFromHostBuffer(&a));
        assert_true(pu_is_ready(a.done_with_host_buffer));
        pu_destroy_event(a.done_with_host_buffer);
        assert_ptr_not_equal(pu_pointer(a.buffer), data);
        data[0] = 42;
        float out[16];
        PU_OK(pu_to_host(a.buffer, out, sizeof(out), NULL));
        assert_true(out[0] == 0);
        data[0] = 0;
        pu_destroy_buffer(a.buffer);
    }
    /* Zero-copy: the buffer aliases the caller's memory until destroyed. */
    PJRT_HostBufferSemantics zc[] = {PJRT_HostBufferSemantics_kImmutableZeroCopy,
                                     PJRT_HostBufferSemantics_kMutableZeroCopy};
    for (int s = 0; s < 2; s++) {
        a.host_buffer_semantics = zc[s];
        PU_OK(pu_api->PJRT_Client_BufferFromHostBuffer(&a));
        assert_ptr_equal(pu_pointer(a.buffer), data);
        PJRT_Event *done = a.done_with_host_buffer;
        assert_false(pu_is_ready(done));
        PU_OK(pu_pin(a.buffer));
        PU_OK(pu_delete_buffer(a.buffer));
        assert_false(pu_is_ready(done)); /* pinned */
        PU_OK(pu_unpin(a.buffer));
        assert_true(pu_is_ready(done));
        PU_OK(pu_await(done));
        pu_destroy_event(done);
        pu_destroy_buffer(a.buffer);
    }
    /* Zero-copy falls back to a copy when the memory is not laid out as the
     * buffer or is misaligned. */
    int64_t t_strides[2] = {4, 16};
    a.byte_strides = t_strides;
    a.num_byte_strides = 2;
    a.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableZeroCopy;
    PU_OK(pu_api->PJRT_Client_BufferFromHostBuffer(&a));
    assert_ptr_not_equal(pu_pointer(a.buffer), data);
    assert_true(pu_is_ready(a.done_with_host_buffer));
    float out[16];
    PU_OK(pu_to_host(a.buffer, out, sizeof(out), NULL));
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            assert_true(out[i * 4 + j] == data[j * 4 + i]);
    pu_destroy_event(a.done_with_host_buffer);
    pu_destroy_buffer(a.buffer);
    a.byte_strides = NULL;
    a.num_byte_strides = 0;
    int64_t d1[1] = {3};
    a.dims = d1;
    a.num_dims = 1;
    a.data = data + 1; /* 4-byte aligned only */
    PU_OK(pu_api->PJRT_Client_BufferFromHostBuffer(&a));
    assert_ptr_not_equal(pu_pointer(a.buffer), data + 1);
    pu_destroy_event(a.done_with_host_buffer);
    pu_destroy_buffer(a.buffer);
}

static void test_uninitialized(void **state) {
    (void)state;
    int64_t dims[2] = {4, 8};
    PJRT_Client_CreateUninitializedBuffer_Args u = {
        .struct_size = PJRT_Client_CreateUninitializedBuffer_Args_STRUCT_SIZE,
        .client = client,
        .shape_dims = dims,
        .shape_num_dims = 2,
        .shape_element_type = PJRT_Buffer_Type_U16,
        .memory = pu_memory(pu_device(client, 1), "device")};
    PU_OK(pu_api->PJRT_Client_CreateUninitializedBuffer(&u));
    uint16_t out[32];
    PU_OK(pu_to_host(u.buffer, out, sizeof(out), NULL));
    assert_ptr_equal(pu_buffer_device(u.buffer), pu_device(client, 1));
    pu_destroy_buffer(u.buffer);
    u.shape_element_type = PJRT_Buffer_Type_TOKEN;
    PU_EXPECT_ERROR(pu_api->PJRT_Client_CreateUninitializedBuffer(&u),
                    PJRT_Error_Code_INVALID_ARGUMENT, "TOKEN");
    u.client = NULL;
    PU_EXPECT_ERROR(pu_api->PJRT_Client_CreateUninitializedBuffer(&u),
                    PJRT_Error_Code_INVALID_ARGUMENT, "client is NULL");
}

static void test_copies(void **state) {
    (void)state;
    int64_t data[6] = {-1, 2, -3, 4, -5, 6};
    int64_t dims[2] = {3, 2};
    int64_t m2m[2] = {0, 1};
    PJRT_Buffer_MemoryLayout cm = pu_tiled(m2m, 2);
    PJRT_Client_BufferFromHostBuffer_Args a =
        pu_h2d_args(client, data, PJRT_Buffer_Type_S64, dims, 2);
    a.device_layout = &cm;
    PJRT_Buffer *b = pu_h2d(&a);
    PJRT_Buffer_CopyToDevice_Args cd = {.struct_size = PJRT_Buffer_CopyToDevice_Args_STRUCT_SIZE,
                                        .buffer = b,
                                        .dst_device = pu_device(client, 1)};
    PU_OK(pu_api->PJRT_Buffer_CopyToDevice(&cd));
    assert_ptr_equal(pu_buffer_device(cd.dst_buffer), pu_device(client, 1));
    int64_t row_major[2] = {1, 0};
    PJRT_Buffer_MemoryLayout rm = pu_tiled(row_major, 2);
    int64_t out[6];
    PU_OK(pu_to_host(cd.dst_buffer, out, sizeof(out), &rm));
    assert_memory_equal(out, data, sizeof(data));
    /* The copy keeps the layout. */
    PJRT_Buffer_GetMemoryLayout_Args l = {
        .struct_size = PJRT_Buffer_GetMemoryLayout_Args_STRUCT_SIZE, .buffer = cd.dst_buffer};
    PU_OK(pu_api->PJRT_Buffer_GetMemoryLayout(&l));
    assert_int_equal(l.layout.tiled.minor_to_major[0], 0);
    PJRT_Buffer_CopyToMemory_Args cmm = {.struct_size = PJRT_Buffer_CopyToMemory_Args_STRUCT_SIZE,
                                         .buffer = cd.dst_buffer,
                                         .dst_memory = pu_memory(pu_device(client, 0), "device")};
    PU_OK(pu_api->PJRT_Buffer_CopyToMemory(&cmm));
    PU_OK(pu_to_host(cmm.dst_buffer, out, sizeof(out), &rm));
    assert_memory_equal(out, data, sizeof(data));
    /* Copying to where it already is makes a new buffer there, as XLA does
     * (JAX: device_put(x, x.device, may_alias=False)). */
    PJRT_Buffer *first = cd.dst_buffer;
    cd.buffer = b;
    cd.dst_device = pu_device(client, 0);
    PU_OK(pu_api->PJRT_Buffer_CopyToDevice(&cd));
    assert_ptr_not_equal(cd.dst_buffer, b);
    assert_ptr_not_equal(pu_pointer(cd.dst_buffer), pu_pointer(b));
    memset(out, 0, sizeof(out));
    PU_OK(pu_to_host(cd.dst_buffer, out, sizeof(out), &rm));
    assert_memory_equal(out, data, sizeof(data));
    pu_destroy_buffer(cd.dst_buffer);
    cd.dst_buffer = first;
    cmm.dst_memory = NULL;
    PU_EXPECT_ERROR(pu_api->PJRT_Buffer_CopyToMemory(&cmm), PJRT_Error_Code_INVALID_ARGUMENT,
                    "memory is NULL");
    pu_destroy_buffer(cmm.dst_buffer);
    pu_destroy_buffer(cd.dst_buffer);
    pu_destroy_buffer(b);
}

static pu_result copy_raw_to_host(PJRT_Buffer *b, void *dst, int64_t offset, int64_t size) {
    PJRT_Buffer_CopyRawToHost_Args r = {.struct_size = PJRT_Buffer_CopyRawToHost_Args_STRUCT_SIZE,
                                        .buffer = b,
                                        .dst = dst,
                                        .offset = offset,
                                        .transfer_size = size};
    return pu_finish(pu_api->PJRT_Buffer_CopyRawToHost(&r), &r.event);
}

static void test_copy_raw_to_host(void **state) {
    (void)state;
    int32_t data[8] = {10, 11, 12, 13, 14, 15, 16, 17};
    int64_t dims[1] = {8};
    PJRT_Client_BufferFromHostBuffer_Args a =
        pu_h2d_args(client, data, PJRT_Buffer_Type_S32, dims, 1);
    PJRT_Buffer *b = pu_h2d(&a);
    int32_t out[3] = {0};
    PU_OK(copy_raw_to_host(b, out, 8, 12));
    assert_int_equal(out[0], 12);
    assert_int_equal(out[2], 14);
    PU_EXPECT_ERROR(copy_raw_to_host(b, out, 28, 8), PJRT_Error_Code_INVALID_ARGUMENT, "outside");
    PU_EXPECT_ERROR(copy_raw_to_host(b, out, -4, 4), PJRT_Error_Code_INVALID_ARGUMENT, "outside");
    PU_EXPECT_ERROR(copy_raw_to_host(b, NULL, 0, 4), PJRT_Error_Code_INVALID_ARGUMENT,
                    "dst is NULL");
    pu_destroy_buffer(b);
}

static void test_deleted_buffer(void **state) {
    (void)state;
    float x[4] = {1, 2, 3, 4};
    int64_t dims[1] = {4};
    PJRT_Buffer *b = pu_f32(client, x, dims, 1);
    PJRT_Buffer_IsDeleted_Args d = {.struct_size = PJRT_Buffer_IsDeleted_Args_STRUCT_SIZE,
                                    .buffer = b};
    PU_OK(pu_api->PJRT_Buffer_IsDeleted(&d));
    assert_false(d.is_deleted);
    PU_OK(pu_delete_buffer(b));
    PU_OK(pu_delete_buffer(b)); /* twice is harmless */
    PU_OK(pu_api->PJRT_Buffer_IsDeleted(&d));
    assert_true(d.is_deleted);
    float out[4];
    PU_EXPECT_ERROR(pu_to_host(b, out, sizeof(out), NULL), PJRT_Error_Code_FAILED_PRECONDITION,
                    "deleted");
    PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args p = {
        .struct_size = PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args_STRUCT_SIZE, .buffer = b};
    PU_EXPECT_ERROR(pu_api->PJRT_Buffer_OpaqueDeviceMemoryDataPointer(&p),
                    PJRT_Error_Code_FAILED_PRECONDITION, "deleted");
    PU_EXPECT_ERROR(pu_pin(b), PJRT_Error_Code_FAILED_PRECONDITION, "deleted");
    PJRT_Buffer_CopyToDevice_Args cd = {.struct_size = PJRT_Buffer_CopyToDevice_Args_STRUCT_SIZE,
                                        .buffer = b,
                                        .dst_device = pu_device(client, 1)};
    PU_EXPECT_ERROR(pu_api->PJRT_Buffer_CopyToDevice(&cd), PJRT_Error_Code_FAILED_PRECONDITION,
                    "deleted");
    PU_EXPECT_ERROR(pu_buffer_await(b), PJRT_Error_Code_FAILED_PRECONDITION, "deleted");
    /* Metadata stays readable. */
    PJRT_Buffer_Dimensions_Args dm = {.struct_size = PJRT_Buffer_Dimensions_Args_STRUCT_SIZE,
                                      .buffer = b};
    PU_OK(pu_api->PJRT_Buffer_Dimensions(&dm));
    assert_int_equal(dm.dims[0], 4);
    pu_destroy_buffer(b);
    pu_destroy_buffer(NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_type_round_trips),
        cmocka_unit_test(test_sub_byte_types),
        cmocka_unit_test(test_rejected_types_and_shapes),
        cmocka_unit_test(test_scalar_and_empty),
        cmocka_unit_test(test_metadata),
        cmocka_unit_test(test_host_byte_strides),
        cmocka_unit_test(test_device_layouts),
        cmocka_unit_test(test_host_layouts),
        cmocka_unit_test(test_semantics),
        cmocka_unit_test(test_uninitialized),
        cmocka_unit_test(test_copies),
        cmocka_unit_test(test_copy_raw_to_host),
        cmocka_unit_test(test_deleted_buffer),
    };
    return PU_RUN_TESTS(tests, &client);
}
