/* Reading a fuzzer's input as a stream of small fields (missing bytes read
 * as 0), and the overflow-checked arithmetic the harnesses' own verdicts
 * use; shared by the fuzz targets. */
#ifndef PJDL_FUZZ_READER_H_
#define PJDL_FUZZ_READER_H_

#include <stdbool.h>
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

/* The element count of an array of `n` dimensions `dims` into *count (0
 * with a zero dimension); false when a dimension is negative or the count
 * overflows. */
static inline bool fz_count(const int64_t *dims, size_t n, uint64_t *count) {
    bool empty = false;
    for (size_t i = 0; i < n; i++) {
        if (dims[i] < 0)
            return false;
        empty = empty || dims[i] == 0;
    }
    *count = empty ? 0 : 1;
    for (size_t i = 0; i < n && !empty; i++)
        if (fz_mul(count, (uint64_t)dims[i]))
            return false;
    return true;
}

/* The byte span [lo, hi) that an array of `n` dimensions `dims` with byte
 * `strides` and elements of `es` bytes covers from its first element
 * (empty [0, 0) with a zero dimension); false when it overflows. */
static inline bool fz_span(const int64_t *dims, size_t n, const int64_t *strides, size_t es,
                           int64_t *lo, int64_t *hi) {
    *lo = 0;
    *hi = (int64_t)es;
    for (size_t i = 0; i < n; i++) {
        if (dims[i] == 0) {
            *hi = 0;
            return true;
        }
    }
    for (size_t i = 0; i < n; i++) {
        int64_t ext;
        if (__builtin_mul_overflow(dims[i] - 1, strides[i], &ext))
            return false;
        if (__builtin_add_overflow(ext < 0 ? *lo : *hi, ext, ext < 0 ? lo : hi))
            return false;
    }
    return true;
}

/* The byte offset from the first element of the element at row-major index
 * `lin` of an array of `n` dimensions `dims` (all > 0) with byte `strides`. */
static inline int64_t fz_offset(uint64_t lin, const int64_t *dims, size_t n,
                                const int64_t *strides) {
    int64_t off = 0;
    for (size_t i = n; i-- > 0;) {
        off += (int64_t)(lin % (uint64_t)dims[i]) * strides[i];
        lin /= (uint64_t)dims[i];
    }
    return off;
}

#endif
