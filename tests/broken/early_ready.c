/* Broken: a buffer's ready event is ready at once, before the data has
 * arrived (run the xpu platform with transfer_delay_us to see it), and
 * waiting a stream on a buffer does nothing. Caught by ready.no_stream and
 * ready.stream (the latter through the reference plugin's test extension,
 * which gives the check a consumer stream). */
#include "shim.h"

static PJRT_Error *early_ready_event(PJRT_Buffer_ReadyEvent_Args *args) {
    const PJRT_Api *real = shim_real();
    PJRT_Error *err = real->PJRT_Buffer_ReadyEvent(args);
    if (err != NULL)
        return err;
    PJRT_Event_Destroy_Args d = {0};
    d.struct_size = PJRT_Event_Destroy_Args_STRUCT_SIZE;
    d.event = args->event;
    real->PJRT_Event_Destroy(&d);
    PJRT_Event_Create_Args c = {0};
    c.struct_size = PJRT_Event_Create_Args_STRUCT_SIZE;
    if ((err = real->PJRT_Event_Create(&c)) != NULL)
        return err;
    PJRT_Event_Set_Args s = {0};
    s.struct_size = PJRT_Event_Set_Args_STRUCT_SIZE;
    s.event = c.event;
    s.error_code = PJRT_Error_Code_OK;
    if ((err = real->PJRT_Event_Set(&s)) != NULL)
        return err;
    args->event = c.event;
    return NULL;
}

static PJRT_Error *no_wait(PJRT_Wait_Until_Buffer_Ready_On_Stream_Args *args) {
    (void)args;
    return NULL;
}

const PJRT_Api *shim_install(PJRT_Api *api) {
    api->PJRT_Buffer_ReadyEvent = early_ready_event;
    PJRT_Stream_Extension *stream = shim_own_stream_extension(api);
    if (stream != NULL)
        stream->wait_stream = no_wait;
    return api;
}
