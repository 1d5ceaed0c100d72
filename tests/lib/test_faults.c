/* Every allocation of the plugin fails once, in turn, during a full
 * export / import scenario: the library must report an error, leak nothing
 * and call each deleter at most once (exactly once when it owns it). */
#include <time.h>

#include "lib_util.h"

static void sleep_ms(int ms) {
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

/* The scenario; returns whether everything succeeded. */
static bool scenario(pjdl_client *client, lib_tensor *host) {
    float data[12], back[12];
    for (int i = 0; i < 12; i++)
        data[i] = (float)i;
    const int64_t dims[] = {3, 4};
    pjdl_buffer *b = NULL, *view = NULL, *imported = NULL;
    DLManagedTensorVersioned *t = NULL;
    bool ok = pjdl_buffer_from_host(client, data, PJRT_Buffer_Type_F32, dims, 2, NULL, NULL, &b) ==
              PJDL_OK;
    ok = ok && pjdl_buffer_export(b, NULL, &t) == PJDL_OK;
    if (ok && pjdl_import(&client, 1, t, NULL, &view) != PJDL_OK) {
        t->deleter(t); /* still ours after a failed import */
        ok = false;
    }
    ok = ok && pjdl_buffer_to_host(view, back, sizeof back) == PJDL_OK &&
         memcmp(back, data, sizeof data) == 0;
    /* A strided host tensor: copied. */
    const int64_t shape[] = {2, 3};
    const int64_t strides[] = {1, 4};
    lib_tensor_init(host, data, lib_dtype(kDLFloat, 32), 2, shape, strides);
    bool tried = ok;
    bool copied = tried && pjdl_import(&client, 1, &host->v, NULL, &imported) == PJDL_OK;
    if (tried && !copied)
        assert_int_equal(host->deleted, 0); /* the caller keeps it */
    ok = ok && copied;
    pjdl_buffer_release(imported);
    /* The copy's deleter comes once the transfer has read the source. */
    for (int i = 0; copied && i < 2000 && __atomic_load_n(&host->deleted, __ATOMIC_SEQ_CST) == 0;
         i++)
        sleep_ms(1);
    pjdl_buffer_release(view);
    pjdl_buffer_release(b);
    return ok;
}

static void walk(const char *platform) {
    pjdl_plugin *plugin = lib_load();
    pjdl_client *client = lib_client(plugin, platform);
    lib_tensor host;
    lib_fail_allocation(plugin, 0);
    assert_true(scenario(client, &host));
    assert_int_equal(host.deleted, 1);
    int64_t count = lib_fail_allocation(plugin, 0);
    assert_true(count > 0);
    int failures = 0;
    for (int64_t n = 1; n <= count + 2; n++) {
        lib_fail_allocation(plugin, n);
        bool ok = scenario(client, &host);
        lib_fail_allocation(plugin, 0);
        if (!ok) {
            failures++;
            assert_true(pjdl_last_error()[0] != '\0');
        }
        assert_true(host.deleted <= 1);
        assert_int_equal(lib_settled(client, 2000), 0);
    }
    assert_true(failures > 0);
    pjdl_client_release(client);
    pjdl_plugin_release(plugin);
}

static void cpu_faults(void **state) {
    (void)state;
    walk("cpu");
}

static void xpu_faults(void **state) {
    (void)state;
    walk("xpu");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cpu_faults),
        cmocka_unit_test(xpu_faults),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
