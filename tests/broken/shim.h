/*
 * shim.h — deliberately broken PJRT plugins for testing `pjrt-dlpack check`.
 *
 * Each shim is a shared library exporting GetPjrtApi. It dlopens the real
 * reference plugin (the path in the environment variable PJRT_REF_PLUGIN,
 * else the one it was built against), copies its PJRT_Api table and lets
 * the shim's shim_install() override a few slots: the result is a plugin
 * that is correct except for one mistake, which `check` must catch.
 */
#ifndef PJDL_BROKEN_SHIM_H
#define PJDL_BROKEN_SHIM_H

#include <stddef.h>

#include "pjrt_dlpack/pjrt_abi.h"

/* The real plugin's table. */
const PJRT_Api *shim_real(void);

/* Implemented by each shim: patches `copy` (a copy of the real table) and
 * returns what GetPjrtApi should return. */
const PJRT_Api *shim_install(PJRT_Api *copy);

/* Copies the extension chain of `copy` so that the returned stream
 * extension (NULL if none) can be patched without touching the real one. */
PJRT_Stream_Extension *shim_own_stream_extension(PJRT_Api *copy);

/* A new PJRT_Error made by the real plugin, with code `code`; built from an
 * event that is set to that error. */
PJRT_Error *shim_error(PJRT_Error_Code code, const char *message);

#endif /* PJDL_BROKEN_SHIM_H */
