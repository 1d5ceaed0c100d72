/* Executables: compile a program on a client, run it on one device with
 * pjdl_buffer arguments, hand its results out as pjdl_buffers.
 *
 * Results come back from PJRT_LoadedExecutable_Execute before they are
 * computed (a real plugin runs the program on its own threads); each result
 * is wrapped as it is, not ready, and every later reader (export, to_host,
 * await) waits for its ready event, as for any other buffer. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct pjdl_executable {
    atomic_long refs;
    pjdl_client *client; /* held reference */
    PJRT_LoadedExecutable *executable;
    pjdl_device *device; /* the one device it runs on; borrowed from client */
    size_t num_outputs;
};

/* A serialized xla.CompileOptionsProto, written by hand (the library does
 * not link protobuf). XLA needs both counts: with either left at proto3's 0
 * (an empty message included) its CPU plugin CHECK-fails and aborts the
 * process; bytes that do not parse are INVALID_ARGUMENT. Protobuf wire
 * format: a key byte is (field number << 3) | wire type, wire type 0 a
 * varint, 2 a length-delimited field. */
static const char compile_options[] = {
    /* CompileOptionsProto.executable_build_options: field 3, wire type 2
     * (a message), 4 bytes long. */
    0x1A, 0x04,
    /* ExecutableBuildOptionsProto.num_replicas: field 4, varint, 1. */
    0x20, 0x01,
    /* ExecutableBuildOptionsProto.num_partitions: field 5, varint, 1. */
    0x28, 0x01,
    /* device_ordinal (field 1) is left out, so proto3 reads 0; with no
     * device_assignment (field 9) XLA gives the one replica the client's
     * default assignment, its first device, which AddressableDevices then
     * reports. */
};

void pjdl_executable_retain(pjdl_executable *exe) {
    if (exe)
        atomic_fetch_add_explicit(&exe->refs, 1, memory_order_relaxed);
}

static void destroy_loaded(const pjdl_plugin *p, PJRT_LoadedExecutable *exe) {
    if (exe == NULL || !PJDL_HAS(p, PJRT_LoadedExecutable_Destroy))
        return;
    PJRT_LoadedExecutable_Destroy_Args args = {
        .struct_size = PJRT_LoadedExecutable_Destroy_Args_STRUCT_SIZE, .executable = exe};
    pjdl__drop_error(p->api, p->api->PJRT_LoadedExecutable_Destroy(&args));
}

void pjdl_executable_release(pjdl_executable *exe) {
    if (exe == NULL || atomic_fetch_sub_explicit(&exe->refs, 1, memory_order_acq_rel) != 1)
        return;
    /* Results already handed out are buffers of their own: XLA keeps their
     * memory and any execution still running alive without the executable. */
    destroy_loaded(exe->client->plugin, exe->executable);
    pjdl__client_unref(exe->client);
    free(exe);
}

/* The number of results, asked of the unloaded executable (the C API has
 * no loaded-executable query for it). */
static pjdl_code read_num_outputs(const pjdl_plugin *p, PJRT_LoadedExecutable *loaded,
                                  size_t *out) {
    PJDL_TRY(PJDL_NEED(p, PJRT_LoadedExecutable_GetExecutable));
    PJDL_TRY(PJDL_NEED(p, PJRT_Executable_NumOutputs));
    PJDL_TRY(PJDL_NEED(p, PJRT_Executable_Destroy));
    PJRT_LoadedExecutable_GetExecutable_Args g = {
        .struct_size = PJRT_LoadedExecutable_GetExecutable_Args_STRUCT_SIZE,
        .loaded_executable = loaded};
    PJDL_TRY(PJDL_CALL(p->api, PJRT_LoadedExecutable_GetExecutable, &g));
    PJRT_Executable_NumOutputs_Args n = {.struct_size = PJRT_Executable_NumOutputs_Args_STRUCT_SIZE,
                                         .executable = g.executable};
    pjdl_code code = PJDL_CALL(p->api, PJRT_Executable_NumOutputs, &n);
    PJRT_Executable_Destroy_Args d = {.struct_size = PJRT_Executable_Destroy_Args_STRUCT_SIZE,
                                      .executable = g.executable};
    pjdl__drop_error(p->api, p->api->PJRT_Executable_Destroy(&d));
    if (code == PJDL_OK)
        *out = n.num_outputs;
    return code;
}

/* The executable's one addressable device, as this client's object. */
static pjdl_code read_device(pjdl_client *client, PJRT_LoadedExecutable *loaded,
                             pjdl_device **out) {
    const pjdl_plugin *p = client->plugin;
    PJDL_TRY(PJDL_NEED(p, PJRT_LoadedExecutable_AddressableDevices));
    PJRT_LoadedExecutable_AddressableDevices_Args a = {
        .struct_size = PJRT_LoadedExecutable_AddressableDevices_Args_STRUCT_SIZE,
        .executable = loaded};
    PJDL_TRY(PJDL_CALL(p->api, PJRT_LoadedExecutable_AddressableDevices, &a));
    if (a.num_addressable_devices != 1 || a.addressable_devices == NULL)
        return pjdl__fail(PJDL_INTERNAL,
                          "the compiled executable runs on %zu devices; one was asked for",
                          a.num_addressable_devices);
    *out = pjdl__client_lookup_device(client, a.addressable_devices[0]);
    if (*out == NULL)
        return pjdl__fail(PJDL_INTERNAL,
                          "the compiled executable's device is not an addressable device of "
                          "this client");
    return PJDL_OK;
}

static pjdl_code compile_program(pjdl_client *client, const char *code_text, size_t code_size,
                                 const char *format, PJRT_LoadedExecutable **out) {
    const pjdl_plugin *p = client->plugin;
    PJDL_TRY(PJDL_NEED(p, PJRT_Client_Compile));
    /* The C API's program text is in/out for other calls; Compile only
     * reads it. */
    PJRT_Program program = {.struct_size = PJRT_Program_STRUCT_SIZE,
                            .code = (char *)(uintptr_t)code_text,
                            .code_size = code_size,
                            .format = format,
                            .format_size = strlen(format)};
    PJRT_Client_Compile_Args args = {.struct_size = PJRT_Client_Compile_Args_STRUCT_SIZE,
                                     .client = client->client,
                                     .program = &program,
                                     .compile_options = compile_options,
                                     .compile_options_size = sizeof compile_options};
    PJDL_TRY(PJDL_CALL(p->api, PJRT_Client_Compile, &args));
    if (args.executable == NULL)
        return pjdl__fail(PJDL_INTERNAL,
                          "PJRT_Client_Compile succeeded but returned no executable");
    *out = args.executable;
    return PJDL_OK;
}

pjdl_code pjdl_executable_compile(pjdl_client *client, const char *code_text, size_t code_size,
                                  const char *format, pjdl_executable **out) {
    pjdl__clear_error();
    if (client == NULL || code_text == NULL || out == NULL)
        return pjdl__fail(PJDL_INVALID_ARGUMENT,
                          "pjdl_executable_compile: client, code and out must not be NULL");
    if (format == NULL)
        format = "mlir";
    pjdl_executable *exe = NULL;
    PJDL_TRY(pjdl__alloc(sizeof *exe, "an executable", &exe));
    PJRT_LoadedExecutable *loaded = NULL;
    pjdl_code code = compile_program(client, code_text, code_size, format, &loaded);
    if (code == PJDL_OK)
        code = read_num_outputs(client->plugin, loaded, &exe->num_outputs);
    if (code == PJDL_OK)
        code = read_device(client, loaded, &exe->device);
    if (code != PJDL_OK) {
        destroy_loaded(client->plugin, loaded);
        free(exe);
        return code;
    }
    atomic_init(&exe->refs, 1);
    exe->client = client;
    exe->executable = loaded;
    pjdl__client_ref(client);
    *out = exe;
    return PJDL_OK;
}

size_t pjdl_executable_output_count(const pjdl_executable *exe) {
    return exe ? exe->num_outputs : 0;
}

pjdl_client *pjdl_executable_client(const pjdl_executable *exe) {
    return exe ? exe->client : NULL;
}

pjdl_device *pjdl_executable_device(const pjdl_executable *exe) {
    return exe ? exe->device : NULL;
}

PJRT_LoadedExecutable *pjdl_executable_pjrt(const pjdl_executable *exe) {
    return exe ? exe->executable : NULL;
}

/* The PJRT buffers of the arguments, each checked live and of this
 * executable's client. A buffer deleted after the check is the plugin's to
 * reject: its PJRT_Buffer stays valid while the caller holds the reference. */
static pjdl_code gather_args(const pjdl_executable *exe, pjdl_buffer *const *inputs, size_t n,
                             PJRT_Buffer **args) {
    for (size_t i = 0; i < n; i++) {
        pjdl_buffer *b = inputs[i];
        if (b == NULL)
            return pjdl__fail(PJDL_INVALID_ARGUMENT, "pjdl_executable_execute: input %zu is NULL",
                              i);
        if (b->client->client != exe->client->client)
            return pjdl__fail(PJDL_INVALID_ARGUMENT,
                              "pjdl_executable_execute: input %zu belongs to another client", i);
        pthread_mutex_lock(&b->mu);
        pjdl_code code = pjdl__buffer_check_live_locked(b);
        pthread_mutex_unlock(&b->mu);
        if (code != PJDL_OK)
            return pjdl__fail_context(code, "pjdl_executable_execute: input %zu: ", i);
        args[i] = b->buffer;
    }
    return PJDL_OK;
}

/* Wraps every result; on failure releases the wrapped ones and destroys the
 * rest, so nothing leaks and the caller's array is untouched. */
static pjdl_code wrap_outputs(pjdl_executable *exe, PJRT_Buffer **raw, size_t n,
                              pjdl_buffer **outputs) {
    const PJRT_Api *api = pjdl__client_api(exe->client);
    pjdl_buffer **wrapped = NULL;
    pjdl_code code = pjdl__alloc((n ? n : 1) * sizeof *wrapped, "the results", &wrapped);
    size_t done = 0;
    for (; code == PJDL_OK && done < n; done++) {
        code = pjdl__buffer_adopt(exe->client, raw[done], &wrapped[done]);
        if (code != PJDL_OK)
            break;
    }
    if (code != PJDL_OK) {
        for (size_t i = 0; wrapped != NULL && i < done; i++)
            pjdl_buffer_release(wrapped[i]);
        for (size_t i = wrapped != NULL ? done : 0; i < n; i++)
            pjdl__pjrt_buffer_destroy(api, raw[i]);
        free(wrapped);
        return code;
    }
    if (n)
        memcpy(outputs, wrapped, n * sizeof *wrapped);
    free(wrapped);
    return PJDL_OK;
}

static pjdl_code run(pjdl_executable *exe, PJRT_Buffer **args, size_t n_args, PJRT_Buffer **raw) {
    const pjdl_plugin *p = exe->client->plugin;
    PJDL_TRY(PJDL_NEED(p, PJRT_LoadedExecutable_Execute));
    PJRT_ExecuteOptions options = {.struct_size = PJRT_ExecuteOptions_STRUCT_SIZE};
    PJRT_Buffer *const *arg_list = args;
    PJRT_Buffer **out_list = raw;
    /* The completion event only says the program finished; each result's
     * own ready event is what readers wait for, so it is dropped at once. */
    PJRT_Event *complete = NULL;
    PJRT_LoadedExecutable_Execute_Args e = {.struct_size =
                                                PJRT_LoadedExecutable_Execute_Args_STRUCT_SIZE,
                                            .executable = exe->executable,
                                            .options = &options,
                                            .argument_lists = &arg_list,
                                            .num_devices = 1,
                                            .num_args = n_args,
                                            .output_lists = &out_list,
                                            .device_complete_events = &complete};
    pjdl_code code = PJDL_CALL(p->api, PJRT_LoadedExecutable_Execute, &e);
    pjdl__event_destroy(p->api, complete);
    if (code != PJDL_OK)
        return code;
    for (size_t i = 0; i < exe->num_outputs; i++)
        if (raw[i] == NULL) {
            for (size_t j = 0; j < exe->num_outputs; j++)
                pjdl__pjrt_buffer_destroy(p->api, raw[j]);
            return pjdl__fail(PJDL_INTERNAL,
                              "PJRT_LoadedExecutable_Execute succeeded but left result %zu NULL",
                              i);
        }
    return PJDL_OK;
}

pjdl_code pjdl_executable_execute(pjdl_executable *exe, pjdl_buffer *const *inputs, size_t n_inputs,
                                  pjdl_buffer **outputs, size_t max_outputs, size_t *n_outputs) {
    pjdl__clear_error();
    if (exe == NULL || (inputs == NULL && n_inputs > 0) || n_outputs == NULL ||
        (outputs == NULL && max_outputs > 0))
        return pjdl__fail(PJDL_INVALID_ARGUMENT,
                          "pjdl_executable_execute: exe, n_outputs, and inputs / outputs when "
                          "their counts are not 0, must not be NULL");
    if (max_outputs < exe->num_outputs)
        return pjdl__fail(PJDL_OUT_OF_RANGE,
                          "pjdl_executable_execute: the executable has %zu results; room was "
                          "given for %zu",
                          exe->num_outputs, max_outputs);
    PJRT_Buffer **args = NULL, **raw = NULL;
    pjdl_code code = pjdl__alloc((n_inputs ? n_inputs : 1) * sizeof *args, "the arguments", &args);
    if (code == PJDL_OK)
        code = pjdl__alloc((exe->num_outputs ? exe->num_outputs : 1) * sizeof *raw, "the results",
                           &raw);
    if (code == PJDL_OK) {
        memset(raw, 0, (exe->num_outputs ? exe->num_outputs : 1) * sizeof *raw);
        code = gather_args(exe, inputs, n_inputs, args);
    }
    if (code == PJDL_OK)
        code = run(exe, args, n_inputs, raw);
    if (code == PJDL_OK)
        code = wrap_outputs(exe, raw, exe->num_outputs, outputs);
    free(args);
    free(raw);
    if (code == PJDL_OK)
        *n_outputs = exe->num_outputs;
    return code;
}
