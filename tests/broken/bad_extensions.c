/* Broken: the extension chain has no end (its last extension points back to
 * the first). Caught by abi.extensions. */
#include "shim.h"

const PJRT_Api *shim_install(PJRT_Api *api) {
    shim_own_stream_extension(api); /* the chain is now ours to modify */
    PJRT_Extension_Base *last = api->extension_start;
    while (last != NULL && last->next != NULL)
        last = last->next;
    if (last != NULL)
        last->next = api->extension_start;
    return api;
}
