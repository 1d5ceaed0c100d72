/* pjdl_option_parse: inferred and forced types, malformed input. */
#include <locale.h>
#include <pthread.h>

#include "layout_test.h"

static pjdl_option parse_ok(const char *text) {
    pjdl_option o;
    memset(&o, 0, sizeof o);
    assert_code(pjdl_option_parse(text, &o), PJDL_OK, NULL);
    return o;
}

static void test_inferred(void **state) {
    (void)state;
    pjdl_option o = parse_ok("visible=true");
    assert_string_equal(o.name, "visible");
    assert_int_equal(o.type, PJDL_OPTION_BOOL);
    assert_true(o.value.bool_value);
    o = parse_ok("flag=false");
    assert_int_equal(o.type, PJDL_OPTION_BOOL);
    assert_false(o.value.bool_value);

    o = parse_ok("count=42");
    assert_string_equal(o.name, "count");
    assert_int_equal(o.type, PJDL_OPTION_INT64);
    assert_int_equal(o.value.int64_value, 42);
    o = parse_ok("n=-9223372036854775808");
    assert_int_equal(o.value.int64_value, INT64_MIN);
    o = parse_ok("n=+9223372036854775807");
    assert_int_equal(o.value.int64_value, INT64_MAX);

    o = parse_ok("fraction=0.75");
    assert_int_equal(o.type, PJDL_OPTION_FLOAT);
    assert_true(o.value.float_value == 0.75f);
    o = parse_ok("f=1e3");
    assert_int_equal(o.type, PJDL_OPTION_FLOAT);
    assert_true(o.value.float_value == 1000.0f);
    o = parse_ok("f=-.5");
    assert_true(o.value.float_value == -0.5f);

    const char *text = "ids=[1, 2,-3 ,4]";
    o = parse_ok(text);
    assert_string_equal(o.name, "ids");
    assert_int_equal(o.type, PJDL_OPTION_INT64_LIST);
    assert_int_equal(o.value.int64_list.count, 4);
    assert_int_equal(o.value.int64_list.values[0], 1);
    assert_int_equal(o.value.int64_list.values[2], -3);
    assert_int_equal(o.value.int64_list.values[3], 4);
    o = parse_ok("ids=[]");
    assert_int_equal(o.type, PJDL_OPTION_INT64_LIST);
    assert_int_equal(o.value.int64_list.count, 0);

    /* Strings point into the text. */
    text = "version=1.2.3";
    o = parse_ok(text);
    assert_int_equal(o.type, PJDL_OPTION_STRING);
    assert_ptr_equal(o.value.string_value, text + 8);
    assert_string_equal(o.value.string_value, "1.2.3");
    o = parse_ok("empty=");
    assert_int_equal(o.type, PJDL_OPTION_STRING);
    assert_string_equal(o.value.string_value, "");
    o = parse_ok("url=a=b");
    assert_string_equal(o.name, "url");
    assert_string_equal(o.value.string_value, "a=b");
    o = parse_ok("name=inf");
    assert_int_equal(o.type, PJDL_OPTION_STRING);
    o = parse_ok("name=True");
    assert_int_equal(o.type, PJDL_OPTION_STRING);
    o = parse_ok("name=0x10");
    assert_int_equal(o.type, PJDL_OPTION_STRING);
}

static void test_forced(void **state) {
    (void)state;
    pjdl_option o = parse_ok("id:string=42");
    assert_string_equal(o.name, "id");
    assert_int_equal(o.type, PJDL_OPTION_STRING);
    assert_string_equal(o.value.string_value, "42");
    o = parse_ok("x:float=3");
    assert_int_equal(o.type, PJDL_OPTION_FLOAT);
    assert_true(o.value.float_value == 3.0f);
    o = parse_ok("x:int64=-7");
    assert_int_equal(o.type, PJDL_OPTION_INT64);
    assert_int_equal(o.value.int64_value, -7);
    o = parse_ok("x:bool=1");
    assert_int_equal(o.type, PJDL_OPTION_BOOL);
    assert_true(o.value.bool_value);
    o = parse_ok("x:bool=0");
    assert_false(o.value.bool_value);
    o = parse_ok("x:int64_list=5,6");
    assert_int_equal(o.type, PJDL_OPTION_INT64_LIST);
    assert_int_equal(o.value.int64_list.count, 2);
    assert_int_equal(o.value.int64_list.values[1], 6);
    o = parse_ok("x:int64_list=");
    assert_int_equal(o.value.int64_list.count, 0);
    o = parse_ok("x:string=[1,2]");
    assert_int_equal(o.type, PJDL_OPTION_STRING);
}

/* Malformed text is refused with the reason, and leaves the result alone. */
static void test_malformed(void **state) {
    (void)state;
    char longname[400];
    memset(longname, 'n', 300);
    strcpy(longname + 300, "=1");
    char list[4000]; /* a list with too many values */
    strcpy(list, "a=[");
    for (int i = 0; i < 300; i++)
        strcat(list, i ? ",1" : "1");
    strcat(list, "]");
    const struct {
        const char *text;
        const char *why;
    } cases[] = {
        {NULL, "text is NULL"},
        {"novalue", "option 'novalue' has no '='"},
        {"=5", "empty name"},
        {":int64=5", "empty name"},
        {"a:double=5", "unknown type 'double'"},
        {"a:=5", "unknown type ''"},
        {"a:int64=5x", "option 'a': '5x' is not an integer"},
        {"a:int64=", "not an integer"},
        {"a=9223372036854775808", "out of range for int64"},
        {"a=-9223372036854775809", "out of range"},
        {"a:float=x", "not a number"},
        {"a=1e99", "out of range for a float"},
        {"a:bool=yes", "not a bool"},
        {"a=[1,2", "no closing ']'"},
        {"a=[1,x]", "list element 1 'x' is not an integer"},
        {"a=[1,,2]", "list element 1"},
        {"a=[1,]", "list element 1"},
        {"a=[99999999999999999999]", "out of range"},
        {longname, "longer than 255"},
        {list, "more than 256 values"},
    };
    pjdl_option o;
    memset(&o, 0x11, sizeof o);
    pjdl_option before = o;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_code(pjdl_option_parse(cases[i].text, &o), PJDL_INVALID_ARGUMENT, cases[i].why);
        assert_memory_equal(&o, &before, sizeof o); /* untouched on failure */
    }
    assert_code(pjdl_option_parse("a=1", NULL), PJDL_INVALID_ARGUMENT, "out is NULL");
}

/* A failed parse does not clobber the previous result's storage. */
static void test_failure_keeps_previous(void **state) {
    (void)state;
    pjdl_option o = parse_ok("ids=[7,8,9]");
    pjdl_option bad;
    assert_code(pjdl_option_parse("other=[1,2,x]", &bad), PJDL_INVALID_ARGUMENT, NULL);
    assert_string_equal(o.name, "ids");
    assert_int_equal(o.value.int64_list.values[0], 7);
    assert_int_equal(o.value.int64_list.values[2], 9);
}

/* Floats parse the same whatever the process locale. */
static void test_locale(void **state) {
    (void)state;
    const char *locales[] = {"de_DE.UTF-8", "fr_FR.UTF-8", "de_DE", "C.UTF-8"};
    for (size_t i = 0; i < sizeof locales / sizeof locales[0]; i++) {
        if (setlocale(LC_NUMERIC, locales[i]) == NULL)
            continue;
        pjdl_option o = parse_ok("f=2.5");
        assert_true(o.value.float_value == 2.5f);
    }
    setlocale(LC_NUMERIC, "C");
}

static void *parse_in_thread(void *arg) {
    (void)arg;
    pjdl_option o;
    for (int i = 0; i < 1000; i++) {
        if (pjdl_option_parse("thread_list=[1,2,3]", &o) != PJDL_OK ||
            strcmp(o.name, "thread_list") != 0 || o.value.int64_list.count != 3 ||
            o.value.int64_list.values[2] != 3)
            return (void *)1;
    }
    return NULL;
}

static void test_threads(void **state) {
    (void)state;
    pjdl_option mine = parse_ok("main=[4,5]");
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&t[i], NULL, parse_in_thread, NULL), 0);
    for (int i = 0; i < 4; i++) {
        void *r;
        pthread_join(t[i], &r);
        assert_null(r);
    }
    /* Other threads' parses do not touch this thread's storage. */
    assert_string_equal(mine.name, "main");
    assert_int_equal(mine.value.int64_list.values[1], 5);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inferred),  cmocka_unit_test(test_forced),
        cmocka_unit_test(test_malformed), cmocka_unit_test(test_failure_keeps_previous),
        cmocka_unit_test(test_locale),    cmocka_unit_test(test_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
