/* The PJRT_Api table: every slot filled, implemented entry points from their
 * files, every other slot a function returning UNIMPLEMENTED with its name. */
#include "ref_internal.h"

#define REF_EXPORT __attribute__((visibility("default")))

/* ------------------------------------------------------------ plugin */

PJRT_Error *ref_PJRT_Plugin_Initialize(PJRT_Plugin_Initialize_Args *args) {
    REF_CHECK_ARGS(args, PJRT_Plugin_Initialize_Args);
    return NULL;
}

#define STRING_ATTRIBUTE(n, v)                                                                     \
    {                                                                                              \
        .struct_size = PJRT_NamedValue_STRUCT_SIZE, .name = n, .name_size = sizeof(n) - 1,         \
        .type = PJRT_NamedValue_kString, .string_value = v, .value_size = sizeof(v) - 1            \
    }

/* pjrt_dlpack_sync_views = 1 (an int64: XLA's C-API client aborts on
 * other attribute types than strings and int64s): the promise that CreateViewOfDeviceBuffer and
 * Buffer_Destroy never wait on another thread and run no foreign code but
 * the on-delete callback (docs/plugin-authors.md): a view is a few
 * allocations, and Destroy drops references (the xpu stream thread frees
 * memory it still uses when it is done). */
static const PJRT_NamedValue plugin_attributes[] = {
    STRING_ATTRIBUTE("pjrt_ref_version", REF_VERSION),
    STRING_ATTRIBUTE("pjrt_ref_platforms", "cpu,xpu"),
    {.struct_size = PJRT_NamedValue_STRUCT_SIZE,
     .name = "pjrt_dlpack_sync_views",
     .name_size = sizeof("pjrt_dlpack_sync_views") - 1,
     .type = PJRT_NamedValue_kInt64,
     .int64_value = 1,
     .value_size = 1},
};

/* Until after API 0.60 the header's PJRT_Plugin_Attributes_Args_STRUCT_SIZE
 * ended at `attributes` (24 bytes) although the struct always held
 * num_attributes, and clients built then (JAX 0.4.35 to 0.6.2) pass 24 and
 * read num_attributes: both sizes are accepted, and both fields written. */
PJRT_Error *ref_PJRT_Plugin_Attributes(PJRT_Plugin_Attributes_Args *args) {
    REF_CHECK_ARGS_UPTO(args, PJRT_Plugin_Attributes_Args, attributes);
    args->attributes = plugin_attributes;
    args->num_attributes = sizeof(plugin_attributes) / sizeof(plugin_attributes[0]);
    return NULL;
}

/* ------------------------------------------------------- unimplemented */

static PJRT_Error *unimplemented(const char *name) {
    return ref_error(PJRT_Error_Code_UNIMPLEMENTED,
                     "%s is not implemented by the pjrt_ref plugin (it implements buffers, "
                     "devices, memories and events, not programs)",
                     name);
}

/* A stub for every slot of the table. The argument is not read: the caller
 * may pass any layout of it. */
#define UNIMPLEMENTED_STUB(name)                                                                   \
    static PJRT_Error *unimplemented_##name(name##_Args *args) {                                   \
        (void)args;                                                                                \
        return unimplemented(#name);                                                               \
    }
PJDL_PJRT_API_FOREACH_SLOT(UNIMPLEMENTED_STUB)
#undef UNIMPLEMENTED_STUB

/* The stub for slot `name` of `api`. The two slots that return void
 * (PJRT_Error_Destroy and PJRT_Error_Message) cannot report UNIMPLEMENTED
 * and have none: both are implemented. (clang-format would break _Generic's
 * associations apart.) */
/* clang-format off */
#define STUB_OF(api, name)                                                                         \
    _Generic((api)->name,                                                                          \
             PJRT_Error_Destroy *: NULL,                                                           \
             PJRT_Error_Message *: NULL,                                                           \
             default: unimplemented_##name)
/* clang-format on */

/* Every slot gets its stub, then the implemented ones their function: no slot
 * is left NULL. */
static void fill_slots(PJRT_Api *api) {
#define SET_STUB(name) api->name = STUB_OF(api, name);
#define SET_IMPLEMENTED(name) api->name = ref_##name;
    PJDL_PJRT_API_FOREACH_SLOT(SET_STUB)
    REF_IMPLEMENTED_SLOTS(SET_IMPLEMENTED)
#undef SET_STUB
#undef SET_IMPLEMENTED
}

static PJRT_Api api;
static pthread_once_t api_once = PTHREAD_ONCE_INIT;

static void api_init(void) {
    api.struct_size = PJRT_Api_STRUCT_SIZE;
    api.extension_start = ref_extension_chain();
    api.pjrt_api_version.struct_size = PJRT_Api_Version_STRUCT_SIZE;
    api.pjrt_api_version.major_version = PJRT_API_MAJOR;
    api.pjrt_api_version.minor_version = PJRT_API_MINOR;
    fill_slots(&api);
}

/* The plugin's one exported symbol; no header declares it (a plugin is
 * found with dlsym). */
REF_EXPORT const PJRT_Api *GetPjrtApi(void);

REF_EXPORT const PJRT_Api *GetPjrtApi(void) {
    pthread_once(&api_once, api_init);
    return &api;
}
