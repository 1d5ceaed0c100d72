/* pjdl_platform_id: XLA's platform ids (farmhash Fingerprint64). */
#include "layout_test.h"

/* farmhash Fingerprint64 of the first n bytes of the pattern
 * (char)(i * 7 + 3), n = 0..130: every code path and boundary. Computed
 * independently with the reference implementation. */
static const uint64_t pattern_vectors[131] = {
    0x9ae16a3b2f90404fULL, 0xbec09cc447469d8bULL, 0x16f8263645a8ecf5ULL, 0x40b4412e33eefd64ULL,
    0xf3c7ee05197a7b92ULL, 0x156112f7c93e5cb3ULL, 0xef229596dacad054ULL, 0x4fef0b39c12aa9a4ULL,
    0x0c97ecbc1e9d2626ULL, 0xe51cf38098a5bfffULL, 0x2501af8af986b740ULL, 0xd9e8c6a651b8b7ffULL,
    0x07e11fa045e761bcULL, 0xd21c49e0843534d8ULL, 0x5a2ce54e0c6b8580ULL, 0x2ca35f0a039b4f1bULL,
    0x7eda0ed8c837a168ULL, 0xc9518fe63ebf6127ULL, 0x8c8e706b08d21872ULL, 0x7cafb1ba5e879cb6ULL,
    0x7dab3f979fd30094ULL, 0x64d9bb7765bcd511ULL, 0x5a0d33d2a73ed480ULL, 0xef7b2f5749ed58d3ULL,
    0x310064a8de2c42d2ULL, 0xa00ae1d499d0de96ULL, 0x15de8d2d17d808b5ULL, 0xb9c298c31aea285fULL,
    0x206480a68a6e2348ULL, 0x1fa6758ff54f7ad1ULL, 0xd48bb943c1a0db0dULL, 0xbd5ca6ee28fc43cbULL,
    0xa53f806f23a314e8ULL, 0xc24f9d7ce864f0e9ULL, 0x1be45182db712bf4ULL, 0x82d7f3adcc354959ULL,
    0x31e0f74e558b258eULL, 0xb1c2799299b18079ULL, 0xa41d80b258f15b9eULL, 0x9247647663c5f78dULL,
    0xb3987ba065f59b3aULL, 0x185e33950726329eULL, 0xe3342e11ae38bef3ULL, 0x691cddff896dffb1ULL,
    0x6db88e75278a470bULL, 0xc78e469a42f54f34ULL, 0x40e948fb56875b77ULL, 0xbd4bed86e2f1eedeULL,
    0xa77873935894901fULL, 0xb2883556ce1c943cULL, 0xc6fcd3ab3ad5bb2fULL, 0xdd58b7fd6e46a3b7ULL,
    0x0058b7da57b082b7ULL, 0xaaead876dde0c793ULL, 0x3e79a7b46c2e66a1ULL, 0xed9b14dee1ad0fb4ULL,
    0xd3441add449cc7d8ULL, 0x541e0162f24c2fa1ULL, 0x6f8adc759d54ff1aULL, 0x95a993bee869ed99ULL,
    0x4b8c18439c5d0c6eULL, 0x2390b18dc0acd2e4ULL, 0x60c510f377813fceULL, 0x9643c13fc68d469cULL,
    0x0566266cb579eca2ULL, 0x77e0867714e6b0e4ULL, 0xf315f68a10b48cf3ULL, 0x2e5b26cc23c72a1bULL,
    0xb5b6a21f2bb76a01ULL, 0x1b681ac78d212cb2ULL, 0x6520fe98bf5e4f9dULL, 0x6672765e528c59bcULL,
    0x1c4b2076535a3457ULL, 0xa8c5e20446767334ULL, 0x79c255c1dcade590ULL, 0x0de4c1b636a11793ULL,
    0x94f56ed64923f739ULL, 0x2e6bab9cf35f6b79ULL, 0x661e7300ec708862ULL, 0x0b5c482666de7065ULL,
    0x4ad1fb0957da7cc5ULL, 0x0f087a34a16c3519ULL, 0x7c7034605d3a9d06ULL, 0x2b00ce580c21c292ULL,
    0x0c435588f6ba4293ULL, 0x784b48397847b7f7ULL, 0x6f44d9ba51acdf93ULL, 0xc45cfdd93260c9aeULL,
    0xae8bef8352e47d29ULL, 0x703aae409bec8a6eULL, 0xe18353fcfcb99fb8ULL, 0x2cbc633b84cd2908ULL,
    0x6052cdb3f3490e7dULL, 0x5c26c27a8ebd09c5ULL, 0xceef825f86160d25ULL, 0x70a0ca9e820142fbULL,
    0xb0592e4ba7dc0af7ULL, 0x92f956472ef631efULL, 0xd2f6073de6487d0aULL, 0xebe64527f46e3b81ULL,
    0x9e17c36fe4a61b08ULL, 0xbdcf57ade72e77d0ULL, 0x399ec3a66f7cc9d0ULL, 0x4691de961ca8eff5ULL,
    0x4ae460f7494d2495ULL, 0xd267cda04f9446c8ULL, 0xafcd269c911ca3abULL, 0xa3f3fb7a4553bf3aULL,
    0x2ac033f3e2fd5a88ULL, 0xc3b434b416ae08a1ULL, 0xaa69d47bbc267893ULL, 0xaa433f57b295dcb1ULL,
    0x9d911297b19a9860ULL, 0xf6b049e51c623b9cULL, 0x87a0505a85e1009aULL, 0x1f50d7e445a53680ULL,
    0xb50a7194066758c9ULL, 0x267e48378582c15bULL, 0xdd7e4b1e77cd1c2bULL, 0xb9747b6a31364656ULL,
    0xa4ccc1da0bd0277fULL, 0xa1c7e4a4e71d0666ULL, 0xad2b98650c7f6464ULL, 0xaf07c284701a7548ULL,
    0x81c9362e13efa6fcULL, 0xc19dc38b48f6d08eULL, 0x9adebb0420d319afULL, 0xcaa19a12c8273b7eULL,
    0x666823960b3ac271ULL, 0x98206b8579bca083ULL, 0xf08adffbba91fa65ULL,
};

static void test_platform_names(void **state) {
    (void)state;
    static const struct {
        const char *name;
        uint64_t id;
    } known[] = {
        {"cpu", 0xf88da91c978c8500ULL},  {"cuda", 0x3ab2a1e53d4a80a1ULL},
        {"rocm", 0x344f7353d6ea420dULL}, {"tpu", 0x83d71adba77968aaULL},
        {"xpu", 0xac4b42972bd25347ULL},  {"", 0x9ae16a3b2f90404fULL},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        assert_int_equal(pjdl_platform_id(known[i].name, strlen(known[i].name)), known[i].id);
    /* A NULL name of length 0 is the empty name. */
    assert_int_equal(pjdl_platform_id(NULL, 0), 0x9ae16a3b2f90404fULL);
    /* Only `len` bytes count. */
    assert_int_equal(pjdl_platform_id("cpu-and-more", 3), 0xf88da91c978c8500ULL);
}

static void test_every_length(void **state) {
    (void)state;
    char buf[131];
    for (int i = 0; i < 131; i++)
        buf[i] = (char)(i * 7 + 3);
    for (size_t n = 0; n <= 130; n++)
        if (pjdl_platform_id(buf, n) != pattern_vectors[n])
            fail_msg("length %zu: got 0x%016llx, expected 0x%016llx", n,
                     (unsigned long long)pjdl_platform_id(buf, n),
                     (unsigned long long)pattern_vectors[n]);
}

/* The hash must not depend on the alignment of the input. */
static void test_unaligned(void **state) {
    (void)state;
    char buf[140];
    for (size_t off = 0; off < 8; off++) {
        for (int i = 0; i < 131; i++)
            buf[off + (size_t)i] = (char)(i * 7 + 3);
        for (size_t n = 0; n <= 130; n += 13)
            assert_int_equal(pjdl_platform_id(buf + off, n), pattern_vectors[n]);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_platform_names),
        cmocka_unit_test(test_every_length),
        cmocka_unit_test(test_unaligned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
