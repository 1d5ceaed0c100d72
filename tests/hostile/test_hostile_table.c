/* PJRT_Api tables that are shorter than the header's, or have NULL slots:
 * for every slot in turn, the table ends right before it (struct_size
 * smaller), or the slot is NULL, and a full export / import scenario runs.
 * The library must never call the missing slot: it either does without it
 * or fails with UNIMPLEMENTED naming it, or refuses the table, and it never
 * leaks (objects it cannot destroy without the slot are never created). */
#include "hostile_test.h"

#define NUM_SLOTS ((sizeof(PJRT_Api) - offsetof(PJRT_Api, PJRT_Error_Destroy)) / sizeof(void *))

static const PJRT_Api *real_api(void) {
    void *h = dlopen(lib_plugin_path(), RTLD_NOW | RTLD_LOCAL);
    assert_non_null(h);
    const PJRT_Api *(*get)(void);
    void *sym = dlsym(h, "GetPjrtApi");
    assert_non_null(sym);
    memcpy(&get, &sym, sizeof get);
    const PJRT_Api *api = get();
    dlclose(h); /* the library's own handle (below) keeps it loaded */
    return api;
}

typedef struct result {
    pjdl_code code;
    char message[1100];
} result;

#define TRY(expr)                                                                                  \
    do {                                                                                           \
        pjdl_code try_code_ = (expr);                                                              \
        if (try_code_ != PJDL_OK) {                                                                \
            r->code = try_code_;                                                                   \
            snprintf(r->message, sizeof r->message, "%s", pjdl_last_error());                      \
            goto done;                                                                             \
        }                                                                                          \
    } while (0)

/* Loads `api`, then: client, buffer, export, import, host copy. */
static void scenario(const PJRT_Api *api, lib_tensor *host, bool *host_imported, result *r) {
    float data[12], back[12], strided_src[12];
    for (int i = 0; i < 12; i++)
        data[i] = strided_src[i] = (float)i;
    const int64_t dims[] = {3, 4};
    const int64_t shape[] = {2, 3}, strides[] = {1, 4};
    lib_tensor_init(host, strided_src, lib_dtype(kDLFloat, 32), 2, shape, strides);
    *host_imported = false;
    memset(r, 0, sizeof *r);
    pjdl_plugin *plugin = NULL;
    pjdl_client *client = NULL;
    pjdl_buffer *b = NULL, *view = NULL, *copied = NULL;
    TRY(pjdl_plugin_from_api(api, &plugin));
    pjdl_option opt = {.name = "platform", .type = PJDL_OPTION_STRING};
    opt.value.string_value = "cpu";
    TRY(pjdl_client_create(plugin, &opt, 1, &client));
    pjdl_client_set_wait_timeout(client, 20000);
    TRY(pjdl_buffer_from_host(client, data, PJRT_Buffer_Type_F32, dims, 2, NULL, NULL, &b));
    DLManagedTensorVersioned *t = NULL;
    TRY(pjdl_buffer_export(b, NULL, &t));
    pjdl_code code = pjdl_import(&client, 1, t, NULL, &view);
    if (code != PJDL_OK)
        t->deleter(t);
    TRY(code);
    TRY(pjdl_buffer_to_host(view, back, sizeof back));
    assert_memory_equal(back, data, sizeof data);
    pjdl_import_options o = PJDL_IMPORT_OPTIONS_INIT;
    o.device = pjdl_client_device(client, 0);
    TRY(pjdl_import(&client, 1, &host->v, &o, &copied));
    *host_imported = true;
    TRY(pjdl_buffer_delete(b));
done:
    pjdl_buffer_release(copied);
    pjdl_buffer_release(view);
    pjdl_buffer_release(b);
    pjdl_client_release(client);
    pjdl_plugin_release(plugin);
}

static const char *slot_name(size_t offset) {
    static const struct {
        const char *name;
        size_t offset;
    } names[] = {
#define N(s) {#s, offsetof(PJRT_Api, s)},
        N(PJRT_Error_Destroy) N(PJRT_Error_Message) N(PJRT_Error_GetCode) N(PJRT_Event_Destroy)
            N(PJRT_Event_OnReady) N(PJRT_Event_Await) N(PJRT_Client_Create) N(PJRT_Client_Destroy)
                N(PJRT_Client_PlatformName) N(PJRT_Client_AddressableDevices)
                    N(PJRT_Device_GetDescription) N(PJRT_Client_BufferFromHostBuffer)
                        N(PJRT_Buffer_Destroy) N(PJRT_Buffer_ElementType) N(PJRT_Buffer_Dimensions)
                            N(PJRT_Buffer_Device) N(PJRT_Buffer_ToHostBuffer)
                                N(PJRT_Buffer_ReadyEvent)
                                    N(PJRT_Buffer_IncreaseExternalReferenceCount)
                                        N(PJRT_Buffer_DecreaseExternalReferenceCount)
                                            N(PJRT_Client_CreateViewOfDeviceBuffer)
#undef N
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].offset == offset)
            return names[i].name;
    return NULL;
}

/* Runs the scenario on `table` and checks what a failure says. `missing` is
 * the offset of the slot taken away. */
static int check(const PJRT_Api *table, size_t missing, pjdl_plugin *ref, int64_t baseline,
                 const char *how, int *refused, bool names_slot) {
    lib_tensor host;
    bool imported = false;
    result r;
    scenario(table, &host, &imported, &r);
    int bad = 0;
    const char *name = slot_name(missing);
    *refused += r.code != PJDL_OK;
    if (r.code != PJDL_OK) {
        bool said = strstr(r.message, "does not implement") != NULL ||
                    strstr(r.message, "malformed PJRT_Api table") != NULL;
        if (!said || r.message[0] == '\0') {
            print_message("%s slot at offset %zu (%s): %s: %s\n", how, missing, name ? name : "?",
                          pjdl_code_name(r.code), r.message);
            bad++;
        }
        if (names_slot && name != NULL && strstr(r.message, name) == NULL &&
            strstr(r.message, "malformed") == NULL) {
            print_message("%s %s: the message does not name it: %s\n", how, name, r.message);
            bad++;
        }
    }
    int want = imported ? 1 : 0;
    for (int i = 0; i < 5000 && __atomic_load_n(&host.deleted, __ATOMIC_SEQ_CST) != want; i++)
        hostile_sleep_ms(1);
    if (host.deleted != want) {
        print_message("%s slot at offset %zu: deleter ran %d times, expected %d\n", how, missing,
                      host.deleted, want);
        bad++;
    }
    int64_t live = lib_settled_process(ref, baseline, 5000);
    if (live != baseline) {
        print_message("%s slot at offset %zu (%s): the plugin has %lld live allocations, %lld "
                      "before (%s)\n",
                      how, missing, name ? name : "?", (long long)live, (long long)baseline,
                      r.message);
        bad++;
    }
    return bad;
}

static PJRT_Api table;

/* The table ends right before each slot in turn. */
static void short_tables(void **state) {
    (void)state;
    pjdl_plugin *ref = lib_load(); /* initializes the plugin; gives its accounting */
    const PJRT_Api *api = real_api();
    int64_t baseline = lib_live_process(ref);
    int bad = 0, refused = 0;
    for (size_t i = 0; i <= NUM_SLOTS; i++) {
        size_t offset = offsetof(PJRT_Api, PJRT_Error_Destroy) + i * sizeof(void *);
        memcpy(&table, api, sizeof table);
        table.struct_size = offset;
        bad += check(&table, offset, ref, baseline, "table ending before the", &refused, false);
        baseline = lib_live_process(ref); /* report each leak once */
    }
    print_message("%zu table lengths, %d refused cleanly\n", NUM_SLOTS + 1, refused);
    assert_int_equal(bad, 0);
    pjdl_plugin_release(ref);
}

/* Each slot in turn is NULL in a full-length table. */
static void null_slots(void **state) {
    (void)state;
    pjdl_plugin *ref = lib_load();
    const PJRT_Api *api = real_api();
    int64_t baseline = lib_live_process(ref);
    int bad = 0, refused = 0;
    for (size_t i = 0; i < NUM_SLOTS; i++) {
        size_t offset = offsetof(PJRT_Api, PJRT_Error_Destroy) + i * sizeof(void *);
        memcpy(&table, api, sizeof table);
        memset((char *)&table + offset, 0, sizeof(void *));
        bad += check(&table, offset, ref, baseline, "NULL", &refused, true);
        baseline = lib_live_process(ref);
    }
    print_message("%zu NULL slots, %d refused cleanly\n", NUM_SLOTS, refused);
    assert_int_equal(bad, 0);
    pjdl_plugin_release(ref);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(short_tables),
        cmocka_unit_test(null_slots),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
