/*
 * raw.h — direct PJRT C API calls, the one home of that layer: the command
 * (tools/), the plugin's tests (tests/common/plugin_util.h) and the plugin's
 * fuzz target (fuzz/fuzz_host_buffer.c) compile tools/raw.c in.
 *
 * Every call checks that its slot exists first (a missing slot is
 * UNIMPLEMENTED, never a call), never aborts, and turns a PJRT_Error into a
 * pjdl_code and a message written to msg (may be NULL) of size n; the
 * caller decides what a failure means. Only the pjdl_code enum is taken from
 * pjrt_dlpack.h: raw.c calls no function of the library.
 */
#ifndef PJDL_RAW_H
#define PJDL_RAW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pjrt_dlpack.h"

/* True if the table is long enough for the slot at `offset` and the slot is
 * not NULL. */
bool raw_has_slot(const PJRT_Api *api, size_t offset);
#define RAW_HAS(api, slot) raw_has_slot((api), offsetof(PJRT_Api, slot))

/* Turns a PJRT_Error into a code and message (written to msg, may be NULL)
 * and destroys it; NULL is PJDL_OK. */
pjdl_code raw_take_error(const PJRT_Api *api, PJRT_Error *error, char *msg, size_t msg_size);

/* The plugin's stream extension, or NULL. */
const PJRT_Stream_Extension *raw_stream_extension(const PJRT_Api *api);

/* The plugin's table read ourselves, before the library judges it:
 * raw_get_api calls the GetPjrtApi of a handle dlopen()ed by the caller and
 * says whether the symbol exists (*api is NULL when it does not; has_symbol
 * may be NULL). Two steps, so that `info` can tell a crash in the plugin's
 * loading from one in GetPjrtApi. */
void raw_get_api(void *handle, bool *has_symbol, const PJRT_Api **api);

/* PJRT_Plugin_Initialize. */
pjdl_code raw_plugin_initialize(const PJRT_Api *api, char *msg, size_t n);

/* PJRT_Client_Create with `num_options` options; the client is *out. */
pjdl_code raw_client_create(const PJRT_Api *api, const PJRT_NamedValue *options, size_t num_options,
                            PJRT_Client **out, char *msg, size_t n);
pjdl_code raw_client_destroy(const PJRT_Api *api, PJRT_Client *client, char *msg, size_t n);
/* The client's addressable device `index` (OUT_OF_RANGE past the last). */
pjdl_code raw_client_device(const PJRT_Api *api, PJRT_Client *client, size_t index,
                            PJRT_Device **out, char *msg, size_t n);

/* Events. raw_event_finish awaits `ev` where the plugin can, then destroys
 * it, and returns the await's result. */
pjdl_code raw_event_await(const PJRT_Api *api, PJRT_Event *ev, char *msg, size_t n);
pjdl_code raw_event_destroy(const PJRT_Api *api, PJRT_Event *ev, char *msg, size_t n);
pjdl_code raw_event_finish(const PJRT_Api *api, PJRT_Event *ev, char *msg, size_t n);
pjdl_code raw_event_is_ready(const PJRT_Api *api, PJRT_Event *ev, bool *ready, char *msg, size_t n);

/* The wide calls take PJRT's own arguments struct: the caller sets the
 * fields it needs and zeroes the rest; the call sets struct_size.
 * PJRT_Client_BufferFromHostBuffer with a->host_buffer_semantics (zeroed:
 * kImmutableOnlyDuringCall); waits for nothing but the host data's release
 * (done_with_host_buffer), whose error fails the call (the buffer is then
 * destroyed). The new buffer is a->buffer;
 * a->done_with_host_buffer is left as the plugin set it, already destroyed
 * (compare it with NULL, nothing else). */
pjdl_code raw_buffer_from_host(const PJRT_Api *api, PJRT_Client_BufferFromHostBuffer_Args *a,
                               char *msg, size_t msg_size);
/* PJRT_Buffer_ToHostBuffer of a->src into a->dst (a->dst_size bytes, with
 * a->host_layout if set); awaits and destroys the copy's event and returns
 * its result. */
pjdl_code raw_buffer_to_host(const PJRT_Api *api, PJRT_Buffer_ToHostBuffer_Args *a, char *msg,
                             size_t n);
/* PJRT_Client_CreateViewOfDeviceBuffer; a NULL on_delete_callback becomes
 * one that does nothing (XLA calls it unconditionally). The view is
 * a->buffer. */
pjdl_code raw_create_view(const PJRT_Api *api, PJRT_Client_CreateViewOfDeviceBuffer_Args *a,
                          char *msg, size_t n);

/* Calls on one buffer. raw_buffer_destroy takes NULL (and a missing slot)
 * as nothing to do. */
pjdl_code raw_buffer_destroy(const PJRT_Api *api, PJRT_Buffer *buffer);
pjdl_code raw_buffer_delete(const PJRT_Api *api, PJRT_Buffer *buffer, char *msg, size_t n);
pjdl_code raw_buffer_increase(const PJRT_Api *api, PJRT_Buffer *buffer, char *msg, size_t n);
pjdl_code raw_buffer_decrease(const PJRT_Api *api, PJRT_Buffer *buffer, char *msg, size_t n);
pjdl_code raw_buffer_opaque_pointer(const PJRT_Api *api, PJRT_Buffer *buffer, void **out, char *msg,
                                    size_t n);
pjdl_code raw_buffer_unsafe_pointer(const PJRT_Api *api, PJRT_Buffer *buffer, uintptr_t *out,
                                    char *msg, size_t n);
pjdl_code raw_buffer_layout(const PJRT_Api *api, PJRT_Buffer *buffer, PJRT_Buffer_MemoryLayout *out,
                            char *msg, size_t n);
pjdl_code raw_buffer_device(const PJRT_Api *api, PJRT_Buffer *buffer, PJRT_Device **out, char *msg,
                            size_t n);
/* The buffer's ready event; the caller destroys it. */
pjdl_code raw_buffer_ready_event(const PJRT_Api *api, PJRT_Buffer *buffer, PJRT_Event **out,
                                 char *msg, size_t n);
/* The device address: OpaqueDeviceMemoryDataPointer, or UnsafePointer where
 * that is missing or UNIMPLEMENTED. */
pjdl_code raw_buffer_pointer(const PJRT_Api *api, PJRT_Buffer *buffer, void **out, char *msg,
                             size_t n);
pjdl_code raw_buffer_await(const PJRT_Api *api, PJRT_Buffer *buffer, char *msg, size_t n);
/* Whether the buffer's ready event reports ready right now. */
pjdl_code raw_buffer_is_ready(const PJRT_Api *api, PJRT_Buffer *buffer, bool *ready, char *msg,
                              size_t n);

#endif /* PJDL_RAW_H */
