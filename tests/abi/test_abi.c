/*
 * Checks the project's ABI headers against facts recorded from the official
 * PJRT C API 0.114 and DLPack 1.3 headers (the .abi files here): the size and
 * alignment of every struct and enum type, the offset and size of every field,
 * the value of every enum constant, *_STRUCT_SIZE constant and version macro,
 * and the number of PJRT_Api slots. A missing name fails the build; a wrong
 * layout or value fails the test with a message naming it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "pjrt_dlpack/dlpack_abi.h"
#include "pjrt_dlpack/pjrt_abi.h"

enum abi_kind { ABI_SIZE, ABI_ALIGN, ABI_OFFSET, ABI_FIELD_SIZE, ABI_VALUE };

struct abi_fact {
    int line;           /* line in the facts file */
    enum abi_kind kind; /* what is compared */
    const char *name;   /* type or constant */
    const char *field;  /* member, or NULL */
    long long actual;   /* measured on our headers */
    long long expected; /* recorded from the official headers */
};

#include "dlpack_facts.inc"
#include "pjrt_facts.inc"

static const char *kind_name(enum abi_kind kind) {
    switch (kind) {
    case ABI_SIZE:
        return "size";
    case ABI_ALIGN:
        return "alignment";
    case ABI_OFFSET:
        return "offset";
    case ABI_FIELD_SIZE:
        return "size";
    case ABI_VALUE:
        return "value";
    }
    return "?";
}

/* Prints every mismatch and returns how many there were. */
static int check_facts(const char *source, const struct abi_fact *facts, size_t count) {
    int bad = 0;
    for (size_t i = 0; i < count; i++) {
        const struct abi_fact *f = &facts[i];
        if (f->actual == f->expected) {
            continue;
        }
        bad++;
        if (f->field != NULL) {
            printf("%s:%d: %s.%s: %s is %lld, the official header has %lld\n", source, f->line,
                   f->name, f->field, kind_name(f->kind), f->actual, f->expected);
        } else {
            printf("%s:%d: %s: %s is %lld, the official header has %lld\n", source, f->line,
                   f->name, kind_name(f->kind), f->actual, f->expected);
        }
    }
    return bad;
}

/* The recorded facts are those of an LP64 platform (x86_64, aarch64). */
static int skip_unless_lp64(void) {
    if (sizeof(void *) != 8 || sizeof(long) != 8) {
        printf("the recorded facts are for LP64 platforms; skipped\n");
        return 1;
    }
    return 0;
}

static void test_pjrt_layout_matches_0_114(void **state) {
    (void)state;
    if (skip_unless_lp64()) {
        skip();
    }
    size_t count = sizeof(pjrt_facts) / sizeof(pjrt_facts[0]);
    assert_int_equal(count, pjrt_fact_count);
    assert_true(count > 1000); /* the facts file was really read */
    int bad = check_facts(pjrt_source, pjrt_facts, count);
    if (bad != 0) {
        fail_msg("%d of %zu PJRT C API facts differ from %s (see above)", bad, count, pjrt_source);
    }
}

static void test_dlpack_layout_matches_1_3(void **state) {
    (void)state;
    if (skip_unless_lp64()) {
        skip();
    }
    size_t count = sizeof(dlpack_facts) / sizeof(dlpack_facts[0]);
    assert_int_equal(count, dlpack_fact_count);
    assert_true(count > 50);
    int bad = check_facts(dlpack_source, dlpack_facts, count);
    if (bad != 0) {
        fail_msg("%d of %zu DLPack facts differ from %s (see above)", bad, count, dlpack_source);
    }
}

static void test_pjrt_api_slot_count(void **state) {
    (void)state;
    /* Every slot is a function pointer; they follow pjrt_api_version. */
    size_t slots =
        (sizeof(PJRT_Api) - offsetof(PJRT_Api, PJRT_Error_Destroy)) / sizeof(PJRT_Error_Destroy *);
    assert_int_equal(pjrt_expected_slots, 138);
    if (slots != (size_t)pjrt_expected_slots) {
        fail_msg("PJRT_Api has %zu function slots, the official 0.114 header has %d", slots,
                 (int)pjrt_expected_slots);
    }
    assert_int_equal(PJDL_PJRT_API_NUM_SLOTS, pjrt_expected_slots);
#define PJDL_COUNT_SLOT(name) +1
    assert_int_equal(0 PJDL_PJRT_API_FOREACH_SLOT(PJDL_COUNT_SLOT), pjrt_expected_slots);
#undef PJDL_COUNT_SLOT
    /* The last slot ends the struct: nothing was left out at the end. */
    assert_int_equal(PJRT_Api_STRUCT_SIZE, sizeof(PJRT_Api));
}

/* The slot list helper names the slots in table order. */
static void test_pjrt_slot_list_is_in_table_order(void **state) {
    (void)state;
    static const size_t offsets[] = {
#define PJDL_SLOT_OFFSET(name) offsetof(PJRT_Api, name),
        PJDL_PJRT_API_FOREACH_SLOT(PJDL_SLOT_OFFSET)
#undef PJDL_SLOT_OFFSET
    };
    static const char *const names[] = {
#define PJDL_SLOT_NAME(name) #name,
        PJDL_PJRT_API_FOREACH_SLOT(PJDL_SLOT_NAME)
#undef PJDL_SLOT_NAME
    };
    size_t first = offsetof(PJRT_Api, PJRT_Error_Destroy);
    for (size_t i = 0; i < sizeof(offsets) / sizeof(offsets[0]); i++) {
        if (offsets[i] != first + i * sizeof(void (*)(void))) {
            fail_msg("PJDL_PJRT_API_FOREACH_SLOT lists %s as slot %zu, but it is at offset %zu",
                     names[i], i, offsets[i]);
        }
    }
}

/* Versions the rest of the project relies on. */
static void test_versions(void **state) {
    (void)state;
    assert_int_equal(PJRT_API_MAJOR, 0);
    assert_int_equal(PJRT_API_MINOR, 114);
    assert_int_equal(PJRT_API_STREAM_EXTENSION_VERSION, 0);
    assert_int_equal(DLPACK_MAJOR_VERSION, 1);
    assert_int_equal(DLPACK_MINOR_VERSION, 3);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pjrt_layout_matches_0_114),
        cmocka_unit_test(test_dlpack_layout_matches_1_3),
        cmocka_unit_test(test_pjrt_api_slot_count),
        cmocka_unit_test(test_pjrt_slot_list_is_in_table_order),
        cmocka_unit_test(test_versions),
    };
    return cmocka_run_group_tests_name("abi", tests, NULL, NULL);
}
