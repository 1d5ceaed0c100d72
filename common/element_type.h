/* PJRT element types: what each PJRT_Buffer_Type is, independent of any
 * exchange format. Shared by libpjrt_dlpack (src/dtype.c adds the DLPack
 * mapping), the reference plugin (plugin/ref_layout.c) and the fuzz targets,
 * which compile element_type.c into themselves: it depends on nothing but
 * the PJRT ABI header. Read-only data; safe from any thread. */
#ifndef PJDL_COMMON_ELEMENT_TYPE_H_
#define PJDL_COMMON_ELEMENT_TYPE_H_

#include <stddef.h>

#include "pjrt_dlpack/pjrt_abi.h"

/* One past the largest PJRT_Buffer_Type value the table knows. */
#define PJDL_ELEMENT_TYPE_COUNT ((unsigned)PJRT_Buffer_Type_F6E3M2FN + 1)

typedef struct {
    const char *pjrt_name; /* "F32": PJRT's spelling (PJRT_Buffer_Type_F32) */
    const char *name;      /* "f32": XLA's short name */
    unsigned bits;         /* bits per element; 0 for no data (INVALID, TOKEN) */
} pjdl__element_type;

/* The facts about `type`, NULL for a value this table does not know (a
 * newer ABI's type, or garbage). */
const pjdl__element_type *pjdl__element_type_of(PJRT_Buffer_Type type);

/* Bytes per element of a type stored in whole bytes (1, 2, 4, 8 or 16: a
 * power of two); 0 for a type without data, a sub-byte type or an unknown
 * value. */
size_t pjdl__element_type_size(PJRT_Buffer_Type type);

#endif
