/* Broken: the stream extension's get_stream never returns. The extension is
 * not in the PJRT_Api table: `info` and `check` must still give up after
 * --timeout-ms and name it (watch.c wraps the extension's functions too). */
#include <unistd.h>

#include "shim.h"

static PJRT_Error *get_stream(PJRT_Get_Stream_For_External_Ready_Events_Args *args) {
    (void)args;
    for (;;)
        pause();
    return NULL;
}

const PJRT_Api *shim_install(PJRT_Api *api) {
    PJRT_Stream_Extension *stream = shim_own_stream_extension(api);
    if (stream != NULL)
        stream->get_stream = get_stream;
    return api;
}
