/* Loading plugins: by path, by name, from the environment, and failures;
 * the plugin under test is either plugin. */
#include "lib_util.h"

static void load_by_path(void **state) {
    (void)state;
    pjdl_plugin *plugin = lib_load_selected();
    int major = -1, minor = -1;
    pjdl_plugin_abi_version(plugin, &major, &minor);
    assert_int_equal(major, PJRT_API_MAJOR);
    assert_true(minor >= 0);
    assert_string_equal(pjdl_plugin_path(plugin), lib_selected_path());
    assert_non_null(pjdl_plugin_api(plugin));
    assert_true(pjdl_plugin_provides(plugin, "PJRT_Client_Create"));
    assert_true(pjdl_plugin_provides(plugin, "PJRT_Buffer_IncreaseExternalReferenceCount"));
    assert_false(pjdl_plugin_provides(plugin, "PJRT_No_Such_Entry"));
    assert_false(pjdl_plugin_provides(plugin, NULL));
    /* The reference plugin has the stream extension (its xpu streams), and
     * so has Intel's (XLA's GPU client; tests/oneapi builds this file for
     * it); XLA's CPU plugin has no streams and no such extension. */
    const bool streams = !lib_on_xla() || lib_on_oneapi();
    if (streams)
        assert_non_null(pjdl_plugin_extension(plugin, PJRT_Extension_Type_Stream));
    else
        assert_null(pjdl_plugin_extension(plugin, PJRT_Extension_Type_Stream));
    /* A second load shares the library and does not initialize it again. */
    pjdl_plugin *again = lib_load_selected();
    assert_ptr_equal(pjdl_plugin_api(again), pjdl_plugin_api(plugin));
    pjdl_plugin_release(again);
    pjdl_plugin_release(plugin);
    pjdl_plugin_release(NULL);
}

static void load_by_name(void **state) {
    (void)state;
    char env[4200];
    snprintf(env, sizeof env, "other:/nonexistent/x.so,ref:%s", lib_selected_path());
    setenv("PJRT_NAMES_AND_LIBRARY_PATHS", env, 1);
    const char *path = NULL;
    LIB_OK(pjdl_plugin_find("ref", &path));
    assert_string_equal(path, lib_selected_path());
    LIB_FAILS(PJDL_NOT_FOUND, pjdl_plugin_find("nope", &path));
    assert_non_null(strstr(pjdl_last_error(), "nope"));
    pjdl_plugin *plugin = NULL;
    LIB_OK(pjdl_plugin_load("ref", &plugin));
    pjdl_plugin_release(plugin);
    LIB_FAILS(PJDL_NOT_FOUND, pjdl_plugin_load("other", &plugin));
    unsetenv("PJRT_NAMES_AND_LIBRARY_PATHS");
    LIB_FAILS(PJDL_NOT_FOUND, pjdl_plugin_load("ref", &plugin));
}

static void load_from_environment(void **state) {
    (void)state;
    setenv("PJRT_DLPACK_PLUGIN", lib_selected_path(), 1);
    pjdl_plugin *plugin = NULL;
    LIB_OK(pjdl_plugin_load(NULL, &plugin));
    assert_string_equal(pjdl_plugin_path(plugin), lib_selected_path());
    pjdl_plugin_release(plugin);
    setenv("PJRT_DLPACK_PLUGIN", "/nonexistent/libnothing.so", 1);
    LIB_FAILS(PJDL_NOT_FOUND, pjdl_plugin_load(NULL, &plugin));
    assert_non_null(strstr(pjdl_last_error(), "/nonexistent/libnothing.so"));
    unsetenv("PJRT_DLPACK_PLUGIN");
    /* Default: libpjrt_ref.so next to the library; the build tree does not
     * put it there, so either outcome is fine, but it must not crash. */
    if (pjdl_plugin_load(NULL, &plugin) == PJDL_OK)
        pjdl_plugin_release(plugin);
    else
        assert_non_null(strstr(pjdl_last_error(), "libpjrt_ref.so"));
}

static void not_a_plugin(void **state) {
    (void)state;
    pjdl_plugin *plugin = (pjdl_plugin *)0x1;
    /* The test's own library is a shared object without GetPjrtApi. */
    const char *candidates[] = {"/lib/x86_64-linux-gnu/libm.so.6", "/usr/lib/libm.so.6",
                                "/lib64/libm.so.6", "/lib/aarch64-linux-gnu/libm.so.6"};
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
        FILE *f = fopen(candidates[i], "r");
        if (f == NULL)
            continue;
        fclose(f);
        LIB_FAILS(PJDL_INVALID_ARGUMENT, pjdl_plugin_load(candidates[i], &plugin));
        assert_non_null(strstr(pjdl_last_error(), "GetPjrtApi"));
    }
    LIB_FAILS(PJDL_INVALID_ARGUMENT, pjdl_plugin_load("", &plugin));
    LIB_FAILS(PJDL_NOT_FOUND, pjdl_plugin_load("libpjdl_no_such_plugin.so", &plugin));
    LIB_FAILS(PJDL_INVALID_ARGUMENT, pjdl_plugin_load(lib_selected_path(), NULL));
    assert_ptr_equal(plugin, (pjdl_plugin *)0x1); /* untouched on failure */
}

static void versions_and_codes(void **state) {
    (void)state;
    assert_string_equal(pjdl_version(), PJDL_EXPECTED_VERSION); /* the build's */
    assert_string_equal(pjdl_code_name(PJDL_FAILED_PRECONDITION), "FAILED_PRECONDITION");
    assert_string_equal(pjdl_code_name(PJDL_OK), "OK");
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(load_by_path),          cmocka_unit_test(load_by_name),
        cmocka_unit_test(load_from_environment), cmocka_unit_test(not_a_plugin),
        cmocka_unit_test(versions_and_codes),
    };
    return LIB_RUN(argc, argv, tests);
}
