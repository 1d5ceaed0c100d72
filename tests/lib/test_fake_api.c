/* Version negotiation and missing entry points, with PJRT_Api tables built
 * by the test: older struct_size, NULL slots, another major version, and
 * plugin errors passed through and destroyed. */
#include <dlfcn.h>

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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(other_major),
        cmocka_unit_test(malformed),
        cmocka_unit_test(short_table),
        cmocka_unit_test(null_slot),
        cmocka_unit_test(plugin_error_passes_through),
        cmocka_unit_test(initialize_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
