/* XLA's platform id: farmhash's 64-bit fingerprint (the "na" variant, which
 * is what tsl::Fingerprint64 computes) of the platform name.
 *
 * Written from the published algorithm. The result must be identical on
 * every host, so words are always read little-endian and every operation is
 * on uint64_t with wrap-around. */
#include <stdint.h>
#include <string.h>

#include "pjrt_dlpack.h"

static const uint64_t k0 = 0xc3a5c85c97cb3127ULL;
static const uint64_t k1 = 0xb492b66fbe98f273ULL;
static const uint64_t k2 = 0x9ae16a3b2f90404fULL;

static uint64_t load64(const unsigned char *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

static uint64_t load32(const unsigned char *p) {
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24;
}

static uint64_t rotr(uint64_t v, unsigned s) {
    return s == 0 ? v : (v >> s) | (v << (64 - s));
}

static uint64_t shift_mix(uint64_t v) {
    return v ^ (v >> 47);
}

/* Mixes two words into one with multiplier `mul`. */
static uint64_t mix16(uint64_t u, uint64_t v, uint64_t mul) {
    uint64_t a = (u ^ v) * mul;
    a ^= a >> 47;
    uint64_t b = (v ^ a) * mul;
    b ^= b >> 47;
    return b * mul;
}

static uint64_t hash_0_to_16(const unsigned char *s, size_t len) {
    if (len >= 8) {
        uint64_t mul = k2 + len * 2;
        uint64_t a = load64(s) + k2;
        uint64_t b = load64(s + len - 8);
        uint64_t c = rotr(b, 37) * mul + a;
        uint64_t d = (rotr(a, 25) + b) * mul;
        return mix16(c, d, mul);
    }
    if (len >= 4) {
        uint64_t mul = k2 + len * 2;
        uint64_t a = load32(s);
        return mix16(len + (a << 3), load32(s + len - 4), mul);
    }
    if (len > 0) {
        uint32_t y = (uint32_t)s[0] + ((uint32_t)s[len >> 1] << 8);
        uint32_t z = (uint32_t)len + ((uint32_t)s[len - 1] << 2);
        return shift_mix(y * k2 ^ z * k0) * k2;
    }
    return k2;
}

static uint64_t hash_17_to_32(const unsigned char *s, size_t len) {
    uint64_t mul = k2 + len * 2;
    uint64_t a = load64(s) * k1;
    uint64_t b = load64(s + 8);
    uint64_t c = load64(s + len - 8) * mul;
    uint64_t d = load64(s + len - 16) * k2;
    return mix16(rotr(a + b, 43) + rotr(c, 30) + d, a + rotr(b + k2, 18) + c, mul);
}

static uint64_t hash_33_to_64(const unsigned char *s, size_t len) {
    uint64_t mul = k2 + len * 2;
    uint64_t a = load64(s) * k2;
    uint64_t b = load64(s + 8);
    uint64_t c = load64(s + len - 8) * mul;
    uint64_t d = load64(s + len - 16) * k2;
    uint64_t y = rotr(a + b, 43) + rotr(c, 30) + d;
    uint64_t z = mix16(y, a + rotr(b + k2, 18) + c, mul);
    uint64_t e = load64(s + 16) * mul;
    uint64_t f = load64(s + 24);
    uint64_t g = (y + load64(s + len - 32)) * mul;
    uint64_t h = (z + load64(s + len - 24)) * mul;
    return mix16(rotr(e + f, 43) + rotr(g, 30) + h, e + rotr(f + a, 18) + g, mul);
}

typedef struct {
    uint64_t first, second;
} pair64;

/* Hashes the 32 bytes at `s` together with two seeds into a pair. */
static pair64 weak_32(const unsigned char *s, uint64_t a, uint64_t b) {
    uint64_t w = load64(s), x = load64(s + 8), y = load64(s + 16), z = load64(s + 24);
    a += w;
    b = rotr(b + a + z, 21);
    uint64_t c = a;
    a += x;
    a += y;
    b += rotr(a, 44);
    return (pair64){a + z, b + c};
}

static uint64_t hash_long(const unsigned char *s, size_t len) {
    const uint64_t seed = 81;
    uint64_t x = seed;
    uint64_t y = seed * k1 + 113;
    uint64_t z = shift_mix(y * k2 + 113) * k2;
    pair64 v = {0, 0}, w = {0, 0};
    x = x * k2 + load64(s);

    /* Every full 64-byte block but the last one (which may be partial and is
     * handled below, overlapping the previous block). */
    const unsigned char *end = s + ((len - 1) / 64) * 64;
    const unsigned char *last64 = end + ((len - 1) & 63) - 63;
    do {
        x = rotr(x + y + v.first + load64(s + 8), 37) * k1;
        y = rotr(y + v.second + load64(s + 48), 42) * k1;
        x ^= w.second;
        y += v.first + load64(s + 40);
        z = rotr(z + w.first, 33) * k1;
        v = weak_32(s, v.second * k1, x + w.first);
        w = weak_32(s + 32, z + w.second, y + load64(s + 16));
        uint64_t t = z;
        z = x;
        x = t;
        s += 64;
    } while (s != end);

    uint64_t mul = k1 + ((z & 0xff) << 1);
    s = last64;
    w.first += ((len - 1) & 63);
    v.first += w.first;
    w.first += v.first;
    x = rotr(x + y + v.first + load64(s + 8), 37) * mul;
    y = rotr(y + v.second + load64(s + 48), 42) * mul;
    x ^= w.second * 9;
    y += v.first * 9 + load64(s + 40);
    z = rotr(z + w.first, 33) * mul;
    v = weak_32(s, v.second * mul, x + w.first);
    w = weak_32(s + 32, z + w.second, y + load64(s + 16));
    uint64_t t = z;
    z = x;
    x = t;
    return mix16(mix16(v.first, w.first, mul) + shift_mix(y) * k0 + z,
                 mix16(v.second, w.second, mul) + x, mul);
}

uint64_t pjdl_platform_id(const char *name, size_t len) {
    const unsigned char *s = (const unsigned char *)name;
    if (len == 0)
        return k2; /* also covers name == NULL */
    if (len <= 16)
        return hash_0_to_16(s, len);
    if (len <= 32)
        return hash_17_to_32(s, len);
    if (len <= 64)
        return hash_33_to_64(s, len);
    return hash_long(s, len);
}
