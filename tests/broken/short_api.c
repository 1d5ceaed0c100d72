/* Broken: PJRT_Api.struct_size ends before PJRT_Client_Create, so the table
 * lacks entry points every client needs. Caught by abi.table. */
#include "shim.h"

const PJRT_Api *shim_install(PJRT_Api *api) {
    api->struct_size = offsetof(PJRT_Api, PJRT_Client_Create);
    return api;
}
