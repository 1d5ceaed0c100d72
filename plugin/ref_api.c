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

static const PJRT_NamedValue plugin_attributes[] = {
    STRING_ATTRIBUTE("pjrt_ref_version", REF_VERSION),
    STRING_ATTRIBUTE("pjrt_ref_platforms", "cpu,xpu"),
};

PJRT_Error *ref_PJRT_Plugin_Attributes(PJRT_Plugin_Attributes_Args *args) {
    REF_CHECK_ARGS(args, PJRT_Plugin_Attributes_Args);
    args->attributes = plugin_attributes;
    args->num_attributes = sizeof(plugin_attributes) / sizeof(plugin_attributes[0]);
    return NULL;
}

/* ------------------------------------------------------- unimplemented */

/* A stub for a slot the plugin does not implement. The argument is not
 * read: the caller may pass any layout of it. */
#define UNIMPLEMENTED_SLOT(name)                                                                   \
    static PJRT_Error *unimplemented_##name(name##_Args *args) {                                   \
        (void)args;                                                                                \
        return ref_error(PJRT_Error_Code_UNIMPLEMENTED,                                            \
                         #name " is not implemented by the pjrt_ref plugin (it implements "        \
                               "buffers, devices, memories and events, not programs)");            \
    }

/* The implemented slots; every other one is generated. */
#define IMPLEMENTED_SLOTS(X)                                                                       \
    X(PJRT_Error_Destroy)                                                                          \
    X(PJRT_Error_Message)                                                                          \
    X(PJRT_Error_GetCode)                                                                          \
    X(PJRT_Error_ForEachPayload)                                                                   \
    X(PJRT_Plugin_Initialize)                                                                      \
    X(PJRT_Plugin_Attributes)                                                                      \
    X(PJRT_Event_Destroy)                                                                          \
    X(PJRT_Event_IsReady)                                                                          \
    X(PJRT_Event_Error)                                                                            \
    X(PJRT_Event_Await)                                                                            \
    X(PJRT_Event_OnReady)                                                                          \
    X(PJRT_Event_Create)                                                                           \
    X(PJRT_Event_Set)                                                                              \
    X(PJRT_Client_Create)                                                                          \
    X(PJRT_Client_Destroy)                                                                         \
    X(PJRT_Client_PlatformName)                                                                    \
    X(PJRT_Client_ProcessIndex)                                                                    \
    X(PJRT_Client_PlatformVersion)                                                                 \
    X(PJRT_Client_Devices)                                                                         \
    X(PJRT_Client_AddressableDevices)                                                              \
    X(PJRT_Client_LookupDevice)                                                                    \
    X(PJRT_Client_LookupAddressableDevice)                                                         \
    X(PJRT_Client_AddressableMemories)                                                             \
    X(PJRT_Client_Compile)                                                                         \
    X(PJRT_Client_BufferFromHostBuffer)                                                            \
    X(PJRT_Client_CreateViewOfDeviceBuffer)                                                        \
    X(PJRT_Client_CreateUninitializedBuffer)                                                       \
    X(PJRT_DeviceDescription_Id)                                                                   \
    X(PJRT_DeviceDescription_ProcessIndex)                                                         \
    X(PJRT_DeviceDescription_Attributes)                                                           \
    X(PJRT_DeviceDescription_Kind)                                                                 \
    X(PJRT_DeviceDescription_DebugString)                                                          \
    X(PJRT_DeviceDescription_ToString)                                                             \
    X(PJRT_Device_GetDescription)                                                                  \
    X(PJRT_Device_IsAddressable)                                                                   \
    X(PJRT_Device_LocalHardwareId)                                                                 \
    X(PJRT_Device_AddressableMemories)                                                             \
    X(PJRT_Device_DefaultMemory)                                                                   \
    X(PJRT_Device_MemoryStats)                                                                     \
    X(PJRT_Device_GetAttributes)                                                                   \
    X(PJRT_Device_ClearMemoryStats)                                                                \
    X(PJRT_Memory_Id)                                                                              \
    X(PJRT_Memory_Kind)                                                                            \
    X(PJRT_Memory_Kind_Id)                                                                         \
    X(PJRT_Memory_DebugString)                                                                     \
    X(PJRT_Memory_ToString)                                                                        \
    X(PJRT_Memory_AddressableByDevices)                                                            \
    X(PJRT_Buffer_Destroy)                                                                         \
    X(PJRT_Buffer_ElementType)                                                                     \
    X(PJRT_Buffer_Dimensions)                                                                      \
    X(PJRT_Buffer_UnpaddedDimensions)                                                              \
    X(PJRT_Buffer_DynamicDimensionIndices)                                                         \
    X(PJRT_Buffer_GetMemoryLayout)                                                                 \
    X(PJRT_Buffer_OnDeviceSizeInBytes)                                                             \
    X(PJRT_Buffer_Device)                                                                          \
    X(PJRT_Buffer_Memory)                                                                          \
    X(PJRT_Buffer_Delete)                                                                          \
    X(PJRT_Buffer_IsDeleted)                                                                       \
    X(PJRT_Buffer_CopyToDevice)                                                                    \
    X(PJRT_Buffer_CopyToMemory)                                                                    \
    X(PJRT_Buffer_ToHostBuffer)                                                                    \
    X(PJRT_Buffer_CopyRawToHost)                                                                   \
    X(PJRT_Buffer_IsOnCpu)                                                                         \
    X(PJRT_Buffer_ReadyEvent)                                                                      \
    X(PJRT_Buffer_UnsafePointer)                                                                   \
    X(PJRT_Buffer_IncreaseExternalReferenceCount)                                                  \
    X(PJRT_Buffer_DecreaseExternalReferenceCount)                                                  \
    X(PJRT_Buffer_OpaqueDeviceMemoryDataPointer)

/* Every other slot of the table, in table order. */
#define UNIMPLEMENTED_SLOTS(X)                                                                     \
    X(PJRT_Client_DefaultDeviceAssignment)                                                         \
    X(PJRT_Executable_Destroy)                                                                     \
    X(PJRT_Executable_Name)                                                                        \
    X(PJRT_Executable_NumReplicas)                                                                 \
    X(PJRT_Executable_NumPartitions)                                                               \
    X(PJRT_Executable_NumOutputs)                                                                  \
    X(PJRT_Executable_SizeOfGeneratedCodeInBytes)                                                  \
    X(PJRT_Executable_GetCostAnalysis)                                                             \
    X(PJRT_Executable_OutputMemoryKinds)                                                           \
    X(PJRT_Executable_OptimizedProgram)                                                            \
    X(PJRT_Executable_Serialize)                                                                   \
    X(PJRT_LoadedExecutable_Destroy)                                                               \
    X(PJRT_LoadedExecutable_GetExecutable)                                                         \
    X(PJRT_LoadedExecutable_AddressableDevices)                                                    \
    X(PJRT_LoadedExecutable_Delete)                                                                \
    X(PJRT_LoadedExecutable_IsDeleted)                                                             \
    X(PJRT_LoadedExecutable_Execute)                                                               \
    X(PJRT_Executable_DeserializeAndLoad)                                                          \
    X(PJRT_LoadedExecutable_Fingerprint)                                                           \
    X(PJRT_CopyToDeviceStream_Destroy)                                                             \
    X(PJRT_CopyToDeviceStream_AddChunk)                                                            \
    X(PJRT_CopyToDeviceStream_TotalBytes)                                                          \
    X(PJRT_CopyToDeviceStream_GranuleSize)                                                         \
    X(PJRT_CopyToDeviceStream_CurrentBytes)                                                        \
    X(PJRT_TopologyDescription_Create)                                                             \
    X(PJRT_TopologyDescription_Destroy)                                                            \
    X(PJRT_TopologyDescription_PlatformName)                                                       \
    X(PJRT_TopologyDescription_PlatformVersion)                                                    \
    X(PJRT_TopologyDescription_GetDeviceDescriptions)                                              \
    X(PJRT_TopologyDescription_Serialize)                                                          \
    X(PJRT_TopologyDescription_Attributes)                                                         \
    X(PJRT_Compile)                                                                                \
    X(PJRT_Executable_OutputElementTypes)                                                          \
    X(PJRT_Executable_OutputDimensions)                                                            \
    X(PJRT_Executable_Fingerprint)                                                                 \
    X(PJRT_Client_TopologyDescription)                                                             \
    X(PJRT_Executable_GetCompiledMemoryStats)                                                      \
    X(PJRT_ExecuteContext_Create)                                                                  \
    X(PJRT_ExecuteContext_Destroy)                                                                 \
    X(PJRT_AsyncHostToDeviceTransferManager_Destroy)                                               \
    X(PJRT_AsyncHostToDeviceTransferManager_TransferData)                                          \
    X(PJRT_Client_CreateBuffersForAsyncHostToDevice)                                               \
    X(PJRT_AsyncHostToDeviceTransferManager_RetrieveBuffer)                                        \
    X(PJRT_AsyncHostToDeviceTransferManager_Device)                                                \
    X(PJRT_AsyncHostToDeviceTransferManager_BufferCount)                                           \
    X(PJRT_AsyncHostToDeviceTransferManager_BufferSize)                                            \
    X(PJRT_AsyncHostToDeviceTransferManager_SetBufferError)                                        \
    X(PJRT_AsyncHostToDeviceTransferManager_AddMetadata)                                           \
    X(PJRT_Client_DmaMap)                                                                          \
    X(PJRT_Client_DmaUnmap)                                                                        \
    X(PJRT_Client_UpdateGlobalProcessInfo)                                                         \
    X(PJRT_TopologyDescription_Deserialize)                                                        \
    X(PJRT_Client_CreateAliasBuffer)                                                               \
    X(PJRT_Client_FulfillAliasBuffer)                                                              \
    X(PJRT_LoadedExecutable_GetDeviceAssignment)                                                   \
    X(PJRT_Client_CreateErrorBuffer)                                                               \
    X(PJRT_AsyncHostToDeviceTransferManager_TransferLiteral)                                       \
    X(PJRT_Buffer_CopyRawToHostFuture)                                                             \
    X(PJRT_Device_PoisonExecution)                                                                 \
    X(PJRT_Device_CreateAsyncTrackingEvent)                                                        \
    X(PJRT_AsyncTrackingEvent_Destroy)                                                             \
    X(PJRT_Executable_GetCompileOptions)                                                           \
    X(PJRT_Buffer_DonateWithControlDependency)                                                     \
    X(PJRT_Client_Load)                                                                            \
    X(PJRT_LoadedExecutable_AddressableDeviceLogicalIds)                                           \
    X(PJRT_Buffer_Bitcast)                                                                         \
    X(PJRT_TopologyDescription_Fingerprint)                                                        \
    X(PJRT_Executable_ParameterMemoryKinds)                                                        \
    X(PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace)                                   \
    X(PJRT_TopologyDescription_GetMemorySpaceKindIds)

UNIMPLEMENTED_SLOTS(UNIMPLEMENTED_SLOT)

/* Together the two lists cover the whole table (no slot is left NULL). */
#define COUNT_SLOT(name) +1
_Static_assert(0 IMPLEMENTED_SLOTS(COUNT_SLOT)
                       UNIMPLEMENTED_SLOTS(COUNT_SLOT) == PJDL_PJRT_API_NUM_SLOTS,
               "every PJRT_Api slot must be listed as implemented or unimplemented");

static void fill_slots(PJRT_Api *api) {
#define SET_IMPLEMENTED(name) api->name = ref_##name;
#define SET_UNIMPLEMENTED(name) api->name = unimplemented_##name;
    IMPLEMENTED_SLOTS(SET_IMPLEMENTED)
    UNIMPLEMENTED_SLOTS(SET_UNIMPLEMENTED)
#undef SET_IMPLEMENTED
#undef SET_UNIMPLEMENTED
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
