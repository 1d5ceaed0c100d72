/* Reading a fuzzer's input as a stream of small fields (missing bytes read
 * as 0), shared by the fuzz targets. */
#ifndef PJDL_FUZZ_READER_H_
#define PJDL_FUZZ_READER_H_

#include <stddef.h>
#include <stdint.h>

typedef struct fz_reader {
    const uint8_t *p;
    size_t n;
} fz_reader;

static inline uint8_t fz_u8(fz_reader *r) {
    if (r->n == 0)
        return 0;
    r->n--;
    return *r->p++;
}

static inline uint64_t fz_u64(fz_reader *r) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)fz_u8(r) << (8 * i);
    return v;
}

/* An extreme value for escape bytes 0xF0..0xFF. */
static inline int64_t fz_escape(fz_reader *r, uint8_t b) {
    switch (b) {
    case 0xF0:
        return (int64_t)fz_u64(r);
    case 0xF1:
        return -1;
    case 0xF2:
        return INT64_MAX;
    case 0xF3:
        return INT64_MIN;
    case 0xF4:
        return (int64_t)1 << 31;
    case 0xF5:
        return (int64_t)1 << 62;
    case 0xF6:
        return (int64_t)1 << 40;
    case 0xF7:
        return -((int64_t)1 << 40);
    default:
        return 1000 + b;
    }
}

/* A dimension: mostly 0..8, sometimes 9..150, rarely extreme. */
static inline int64_t fz_dim(fz_reader *r) {
    uint8_t b = fz_u8(r);
    if (b < 0xC0)
        return b % 9;
    return b < 0xF0 ? 9 + (b - 0xC0) * 3 : fz_escape(r, b);
}

/* Multiplies with overflow detection into *acc (unsigned). */
static inline int fz_mul(uint64_t *acc, uint64_t v) {
    return __builtin_mul_overflow(*acc, v, acc);
}

#endif
