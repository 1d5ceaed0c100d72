/* PJRT element types: what each PJRT_Buffer_Type is, independent of any
 * exchange format. Shared by libpjrt_dlpack (src/dtype.c adds the DLPack
 * mapping), the reference plugin (plugin/ref_layout.c) and the fuzz targets,
 * which compile element_type.c into themselves: it depends on nothing but
 * the PJRT ABI header. Read-only data; safe from any thread. */
#ifndef PJDL_COMMON_ELEMENT_TYPE_H_
#define PJDL_COMMON_ELEMENT_TYPE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pjrt_dlpack/pjrt_abi.h"

/* One past the largest PJRT_Buffer_Type value the table knows. */
#define PJDL_ELEMENT_TYPE_COUNT ((unsigned)PJRT_Buffer_Type_F6E3M2FN + 1)

typedef struct {
    const char *pjrt_name; /* "F32": PJRT's spelling (PJRT_Buffer_Type_F32) */
    const char *name;      /* "f32": XLA's short name */
    unsigned bits;         /* bits per element; 0 for no data (INVALID, TOKEN) */
    int minor;             /* the first PJRT C API minor version (0.minor) that has it */
} pjdl__element_type;

/* The facts about `type`, NULL for a value this table does not know (a
 * newer ABI's type, or garbage). */
const pjdl__element_type *pjdl__element_type_of(PJRT_Buffer_Type type);

/* Bytes per element of a type stored in whole bytes (1, 2, 4, 8 or 16: a
 * power of two); 0 for a type without data, a sub-byte type or an unknown
 * value. */
size_t pjdl__element_type_size(PJRT_Buffer_Type type);

/* Whether a PJRT buffer of `type` keeps its elements packed in device
 * memory: the types of 1, 2 and 4 bits, element i in bits [i*bits,
 * (i+1)*bits) of the buffer's bytes, the first in the lowest bits, in the
 * order of the buffer's layout. Every other type, the 6-bit floats among
 * them, takes whole bytes per element. This is XLA's rule (its CPU plugin
 * reports 5 bytes for 9 S4 elements and 9 bytes for 9 F6E2M3FN elements),
 * and the PJRT C API's layouts cannot say otherwise (they have no element
 * size). Host transfers (BufferFromHostBuffer, ToHostBuffer) hold every
 * sub-byte element in a byte of its own, in its low bits. */
bool pjdl__element_type_packed(PJRT_Buffer_Type type);

/* Bytes that `n` elements of `bits` bits take packed: ceil(n * bits / 8),
 * without overflow for any n. */
size_t pjdl__packed_size(size_t n, unsigned bits);

/* Packs n elements of `bits` bits (1..7), one per byte in src (low bits;
 * the rest ignored), into dst, little-bit-endian: ceil(n * bits / 8) bytes,
 * the unused high bits of the last byte zero. dst may be src (each output
 * byte is complete before it is written, and only reads later inputs). */
void pjdl__bits_pack(uint8_t *dst, const uint8_t *src, size_t n, unsigned bits);

/* Unpacks: element i of the packed src (bits at i*bits) into dst[i], zero
 * extended. src and dst must not overlap. */
void pjdl__bits_unpack(uint8_t *dst, const uint8_t *src, size_t n, unsigned bits);

/* Element `index` of packed memory `src` of `bits`-bit elements. */
static inline uint8_t pjdl__bits_get(const uint8_t *src, uint64_t index, unsigned bits) {
    uint64_t bit = index * bits;
    unsigned word = src[bit / 8];
    if (bit % 8 + bits > 8) /* straddles two bytes (6-bit elements) */
        word |= (unsigned)src[bit / 8 + 1] << 8;
    return (uint8_t)((word >> (bit % 8)) & ((1u << bits) - 1));
}

#endif
