/* Element types: DLPack dtypes, PJRT element types, and the names used for
 * both in error messages. The public half (pjdl_dtype_from_pjrt and friends)
 * is declared in pjrt_dlpack.h. */
#ifndef PJDL_SRC_DTYPE_H_
#define PJDL_SRC_DTYPE_H_

#include <stdbool.h>
#include <stddef.h>

#include "pjrt_dlpack.h"

/* Room for any string pjdl__dl_dtype_format writes. */
#define PJDL_DTYPE_NAME_MAX 48

/* Checks that `dtype` is one the library can hold: a known type code,
 * lanes 1, bits a positive multiple of 8 or below 8 (bool and float8 exactly
 * 8, float6 6, float4 4). On success *elem_size is bits / 8, and 1 for a
 * sub-byte dtype (its size one element per byte, padded; packed tensors are
 * measured by the caller). INVALID_ARGUMENT for values no DLPack producer
 * may use (unknown code, 0 bits or lanes, bool of 16 bits, 12 bits, ...);
 * UNIMPLEMENTED for lanes > 1. The message names the dtype. Does not clear
 * or set anything on success. */
pjdl_code pjdl__dl_dtype_check(DLDataType dtype, size_t *elem_size);

/* Whether pjdl__dl_dtype_check accepts `dtype` with whole bytes per
 * element (bits 8 or more): its elements are then bits / 8 bytes. Sets no
 * error: the common case's quick test, the full check decides the rest. */
bool pjdl__dl_dtype_whole_bytes(DLDataType dtype);

/* The PJRT element type of a dtype of lanes 1 and 8, 16, 32, 64 or 128
 * bits that has one: such a dtype also passes pjdl__dl_dtype_check (a
 * whole-byte dtype). false for anything else; sets no error. */
bool pjdl__dtype_to_pjrt_whole(DLDataType dtype, PJRT_Buffer_Type *out);

/* pjdl_dtype_to_pjrt for a dtype pjdl__dl_dtype_check accepted: no second
 * check, and the thread's error is set only on failure (UNIMPLEMENTED: no
 * PJRT element type). */
pjdl_code pjdl__dtype_to_pjrt_checked(DLDataType dtype, PJRT_Buffer_Type *out);

/* Writes a readable name of `dtype` into buf (PJDL_DTYPE_NAME_MAX bytes):
 * "float32", "bfloat16", "bool", "float8_e4m3fn", "int4", "float32x4" for
 * lanes, "dtype(code=99, bits=8, lanes=1)" for unknown codes. Returns buf. */
const char *pjdl__dl_dtype_format(DLDataType dtype, char *buf);

#endif
