/* Version negotiation and missing entry points, with PJRT_Api tables built
 * by the test: older struct_size, NULL slots, another major version, and
 * plugin errors passed through and destroyed; libraries for other systems
 * named. */
#include <dlfcn.h>
#include <unistd.h>

#include "fake_api.h"
#include "lib_util.h"

/* Fake errors: a code and a message; live ones are counted. */
typedef struct fake_error {
    PJRT_Error base;
    PJRT_Error_Code code;
    const char *message;
} fake_error;
static int live_errors;

static PJRT_Error *make_error(PJRT_Error_Code code, const char *message) {
    fake_error *e = calloc(1, sizeof *e);
    e->code = code;
    e->message = message;
    live_errors++;
    return &e->base;
}

static const fake_error *as_fake(const PJRT_Error *e) {
    return (const fake_error *)e;
}

static void error_destroy(PJRT_Error_Destroy_Args *args) {
    if (args->error) {
        live_errors--;
        free(args->error);
    }
}

static void error_message(PJRT_Error_Message_Args *args) {
    args->message = as_fake(args->error)->message;
    args->message_size = strlen(as_fake(args->error)->message);
}

static PJRT_Error *error_code(PJRT_Error_GetCode_Args *args) {
    assert_true(args->struct_size >= PJRT_Error_GetCode_Args_STRUCT_SIZE);
    args->code = as_fake(args->error)->code;
    return NULL;
}

static PJRT_Error *client_create_fails(PJRT_Client_Create_Args *args) {
    assert_int_equal(args->struct_size, PJRT_Client_Create_Args_STRUCT_SIZE);
    return make_error(PJRT_Error_Code_RESOURCE_EXHAUSTED, "the fake device is full");
}

/* Present so that the library agrees to create clients and events; never
 * reached, since client creation fails. */
static PJRT_Error *client_destroy(PJRT_Client_Destroy_Args *args) {
    (void)args;
    return NULL;
}

static PJRT_Error *event_destroy(PJRT_Event_Destroy_Args *args) {
    (void)args;
    return NULL;
}

static PJRT_Api base_api(void) {
    PJRT_Api api;
    fake_api_init(&api, 40, error_destroy, error_message, error_code);
    api.PJRT_Client_Create = client_create_fails;
    api.PJRT_Client_Destroy = client_destroy;
    api.PJRT_Event_Destroy = event_destroy;
    return api;
}

static void other_major(void **state) {
    (void)state;
    PJRT_Api api = base_api();
    api.pjrt_api_version.major_version = PJRT_API_MAJOR + 1;
    pjdl_plugin *plugin = NULL;
    LIB_FAILS(PJDL_FAILED_PRECONDITION, pjdl_plugin_from_api(&api, &plugin));
    assert_non_null(strstr(pjdl_last_error(), "major"));
    assert_null(plugin);
}

static void malformed(void **state) {
    (void)state;
    PJRT_Api api = base_api();
    api.struct_size = 8;
    pjdl_plugin *plugin = NULL;
    LIB_FAILS(PJDL_INVALID_ARGUMENT, pjdl_plugin_from_api(&api, &plugin));
    api = base_api();
    api.PJRT_Error_Message = NULL;
    LIB_FAILS(PJDL_INVALID_ARGUMENT, pjdl_plugin_from_api(&api, &plugin));
    LIB_FAILS(PJDL_INVALID_ARGUMENT, pjdl_plugin_from_api(NULL, &plugin));
}

static void short_table(void **state) {
    (void)state;
    PJRT_Api api = base_api();
    /* An old plugin whose table ends before PJRT_Client_Create. The slot
     * holds a value that must never be called. */
    api.struct_size = offsetof(PJRT_Api, PJRT_Client_Create);
    pjdl_plugin *plugin = NULL;
    LIB_OK(pjdl_plugin_from_api(&api, &plugin));
    assert_false(pjdl_plugin_provides(plugin, "PJRT_Client_Create"));
    assert_true(pjdl_plugin_provides(plugin, "PJRT_Error_Destroy"));
    pjdl_client *client = NULL;
    LIB_FAILS(PJDL_UNIMPLEMENTED, pjdl_client_create(plugin, NULL, 0, &client));
    assert_non_null(strstr(pjdl_last_error(), "PJRT_Client_Create"));
    assert_non_null(strstr(pjdl_last_error(), "ends before"));
    assert_null(client);
    pjdl_plugin_release(plugin);
}

static void null_slot(void **state) {
    (void)state;
    PJRT_Api api = base_api();
    api.PJRT_Client_Create = NULL;
    pjdl_plugin *plugin = NULL;
    LIB_OK(pjdl_plugin_from_api(&api, &plugin));
    assert_false(pjdl_plugin_provides(plugin, "PJRT_Client_Create"));
    assert_false(pjdl_plugin_provides(plugin, "PJRT_Client_CreateViewOfDeviceBuffer"));
    pjdl_client *client = NULL;
    LIB_FAILS(PJDL_UNIMPLEMENTED, pjdl_client_create(plugin, NULL, 0, &client));
    assert_non_null(strstr(pjdl_last_error(), "PJRT_Client_Create"));
    assert_non_null(strstr(pjdl_last_error(), "NULL"));
    int major, minor;
    pjdl_plugin_abi_version(plugin, &major, &minor);
    assert_int_equal(minor, 40);
    assert_null(pjdl_plugin_path(plugin));
    assert_null(pjdl_plugin_extension(plugin, PJRT_Extension_Type_Stream));
    pjdl_plugin_release(plugin);
}

static void plugin_error_passes_through(void **state) {
    (void)state;
    PJRT_Api api = base_api();
    pjdl_plugin *plugin = NULL;
    LIB_OK(pjdl_plugin_from_api(&api, &plugin));
    pjdl_client *client = NULL;
    LIB_FAILS(PJDL_RESOURCE_EXHAUSTED, pjdl_client_create(plugin, NULL, 0, &client));
    assert_non_null(strstr(pjdl_last_error(), "the fake device is full"));
    assert_int_equal(live_errors, 0);
    pjdl_plugin_release(plugin);
}

static int init_calls(void) {
    void *self = dlopen(LIB_FAKE_PLUGIN, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    assert_non_null(self); /* only called while loaded */
    int *calls = dlsym(self, "lib_fake_init_calls");
    assert_non_null(calls);
    int n = *calls;
    dlclose(self);
    return n;
}

static void initialize_once(void **state) {
    (void)state;
    pjdl_plugin *a = NULL, *b = NULL;
    for (int round = 0; round < 2; round++) {
        LIB_OK(pjdl_plugin_load(LIB_FAKE_PLUGIN, &a));
        LIB_OK(pjdl_plugin_load(LIB_FAKE_PLUGIN, &b));
        assert_int_equal(init_calls(), 1);
        pjdl_plugin_release(a);
        assert_int_equal(init_calls(), 1);
        LIB_OK(pjdl_plugin_load(LIB_FAKE_PLUGIN, &a));
        assert_int_equal(init_calls(), 1);
        pjdl_plugin_release(a);
        pjdl_plugin_release(b);
        /* The last release does not unload it: real plugins must not be
         * unmapped, and the next round finds it initialized already. */
        void *still = dlopen(LIB_FAKE_PLUGIN, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
        assert_non_null(still);
        dlclose(still);
    }
}

/* A file of `n` bytes at a new temporary path (out, PATH_MAX bytes). */
static void temp_file(const unsigned char *bytes, size_t n, char *out) {
    const char *tmp = getenv("TMPDIR");
    snprintf(out, 4096, "%s/pjdl-foreign-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    int fd = mkstemp(out);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, bytes, n), (ssize_t)n);
    close(fd);
}

static void put32(unsigned char *p, uint32_t v) {
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* Loads `bytes` as a plugin: FAILED_PRECONDITION, the message `says`. */
static void expect_foreign(const unsigned char *bytes, size_t n, const char *says) {
    char path[4096];
    temp_file(bytes, n, path);
    pjdl_plugin *plugin = NULL;
    LIB_FAILS(PJDL_FAILED_PRECONDITION, pjdl_plugin_load(path, &plugin));
    if (strstr(pjdl_last_error(), says) == NULL)
        fail_msg("expected \"%s\" in: %s", says, pjdl_last_error());
    unlink(path);
}

/* A Windows DLL for ARM64 (PE32+) exporting GetPjRtApi, as jax-qnn's, and
 * a macOS arm64 library (Mach-O) exporting _GetPjrtApi: what they are, for
 * which CPU, and their PJRT entry symbol; not "invalid ELF header". */
static void foreign_libraries(void **state) {
    (void)state;
    unsigned char pe[1024] = {'M', 'Z'};
    put32(pe + 60, 64);                         /* e_lfanew */
    memcpy(pe + 64, "PE\0\0\x64\xaa\x01\0", 8); /* ARM64, one section */
    pe[64 + 20] = 240;                          /* SizeOfOptionalHeader (PE32+) */
    pe[88] = 0x0b, pe[89] = 0x02;               /* optional header magic 0x20b */
    put32(pe + 88 + 112, 0x1000);               /* export directory RVA */
    unsigned char *sec = pe + 88 + 240;         /* the section: VA 0x1000 at file 512 */
    put32(sec + 8, 512), put32(sec + 12, 0x1000), put32(sec + 16, 512), put32(sec + 20, 512);
    put32(pe + 512 + 24, 1);           /* one name */
    put32(pe + 512 + 32, 0x1000 + 64); /* AddressOfNames */
    put32(pe + 512 + 64, 0x1000 + 80); /* the name's RVA */
    memcpy(pe + 512 + 80, "GetPjRtApi", 11);
    expect_foreign(pe, sizeof pe,
                   "it is a Windows DLL for ARM64, not a library for this "
                   "system (Linux x86-64); it exports GetPjRtApi instead of "
                   "GetPjrtApi");
    unsigned char mo[256] = {0};
    put32(mo, 0xfeedfacf), put32(mo + 4, 0x0100000c), put32(mo + 16, 1);
    put32(mo + 32, 0x2), put32(mo + 36, 24); /* LC_SYMTAB */
    put32(mo + 40, 64), put32(mo + 44, 1);   /* symoff, nsyms */
    put32(mo + 48, 96), put32(mo + 52, 16);  /* stroff, strsize */
    put32(mo + 64, 1), mo[68] = 0x0f;        /* n_strx, N_SECT | N_EXT */
    memcpy(mo + 97, "_GetPjrtApi", 12);
    expect_foreign(mo, sizeof mo,
                   "it is a macOS library (Mach-O) for arm64, not a library for "
                   "this system (Linux x86-64); it exports GetPjrtApi");
    /* Not an executable format at all: dlopen's own words, the path once. */
    char path[4096];
    temp_file((const unsigned char *)"MZ", 2, path);
    pjdl_plugin *plugin = NULL;
    LIB_FAILS(PJDL_INVALID_ARGUMENT, pjdl_plugin_load(path, &plugin));
    assert_null(strstr(strstr(pjdl_last_error(), path) + strlen(path), path));
    unlink(path);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(other_major),
        cmocka_unit_test(malformed),
        cmocka_unit_test(short_table),
        cmocka_unit_test(null_slot),
        cmocka_unit_test(plugin_error_passes_through),
        cmocka_unit_test(initialize_once),
        cmocka_unit_test(foreign_libraries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
