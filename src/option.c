/* Options: pjdl_option_parse ("name=value" and "name:type=value" into a
 * pjdl_option), and the copying of a caller's versioned options struct
 * (pjdl__copy_options). */
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define OPTION_NAME_MAX 256
#define OPTION_LIST_MAX 256

/* Thread-local storage the parsed option points into: the name (which is
 * not NUL-terminated inside `text`) and the values of a list. */
static _Thread_local char option_name[OPTION_NAME_MAX];
static _Thread_local int64_t option_list[OPTION_LIST_MAX];

static bool is_space(char c) {
    return c == ' ' || c == '\t';
}

/* Parses the whole of [s, end) as a decimal int64 (optional sign). */
static bool parse_int64(const char *s, const char *end, int64_t *out, bool *overflow) {
    *overflow = false;
    bool neg = false;
    if (s < end && (*s == '+' || *s == '-'))
        neg = *s++ == '-';
    if (s == end)
        return false;
    uint64_t v = 0;
    const uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; s < end; s++) {
        if (*s < '0' || *s > '9')
            return false;
        unsigned d = (unsigned)(*s - '0');
        if (v > (limit - d) / 10)
            *overflow = true;
        else
            v = v * 10 + d;
    }
    if (*overflow)
        return true;
    *out = neg ? (v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v) : (int64_t)v;
    return true;
}

/* Whether s (NUL-terminated) is a decimal floating-point literal:
 * [sign] digits [. digits] [(e|E) [sign] digits], with at least one mantissa
 * digit. *has_point_or_exp tells whether it has a '.' or an exponent. */
static bool is_decimal_float(const char *s, bool *has_point_or_exp) {
    size_t digits = 0;
    *has_point_or_exp = false;
    if (*s == '+' || *s == '-')
        s++;
    for (; *s >= '0' && *s <= '9'; s++)
        digits++;
    if (*s == '.') {
        *has_point_or_exp = true;
        for (s++; *s >= '0' && *s <= '9'; s++)
            digits++;
    }
    if (digits == 0)
        return false;
    if (*s == 'e' || *s == 'E') {
        *has_point_or_exp = true;
        s++;
        if (*s == '+' || *s == '-')
            s++;
        if (*s < '0' || *s > '9')
            return false;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    return *s == '\0';
}

/* strtof in the C locale, whatever the process's locale is. */
static float strtof_c(const char *s) {
    locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    locale_t old = c != (locale_t)0 ? uselocale(c) : (locale_t)0;
    float f = strtof(s, NULL);
    if (c != (locale_t)0) {
        uselocale(old);
        freelocale(c);
    }
    return f;
}

static pjdl_code parse_float(const char *name, const char *value, float *out) {
    bool point;
    if (!is_decimal_float(value, &point))
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "option '%s': '%s' is not a number", name, value);
    float f = strtof_c(value);
    if (!isfinite(f))
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "option '%s': %s is out of range for a float",
                          name, value);
    *out = f;
    return PJDL_OK;
}

static pjdl_code parse_int(const char *name, const char *value, int64_t *out) {
    bool overflow;
    if (!parse_int64(value, value + strlen(value), out, &overflow))
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "option '%s': '%s' is not an integer", name,
                          value);
    if (overflow)
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "option '%s': %s is out of range for int64", name,
                          value);
    return PJDL_OK;
}

/* "[1, 2, 3]", "[]", and (bare) "1,2,3" or "". */
static pjdl_code parse_list(const char *name, const char *value, int64_t *values, size_t *count) {
    const char *s = value, *end = value + strlen(value);
    if (s < end && *s == '[') {
        if (end[-1] != ']')
            return pjdl__fail(PJDL_INVALID_ARGUMENT, "option '%s': list '%s' has no closing ']'",
                              name, value);
        s++;
        end--;
    }
    while (s < end && is_space(*s))
        s++;
    size_t n = 0;
    if (s == end) {
        *count = 0;
        return PJDL_OK;
    }
    for (;;) {
        const char *comma = memchr(s, ',', (size_t)(end - s));
        const char *item_end = comma ? comma : end;
        const char *a = s, *b = item_end;
        while (a < b && is_space(*a))
            a++;
        while (b > a && is_space(b[-1]))
            b--;
        if (n == OPTION_LIST_MAX)
            return pjdl__fail(PJDL_INVALID_ARGUMENT, "option '%s': list has more than %d values",
                              name, OPTION_LIST_MAX);
        bool overflow;
        int64_t v = 0;
        if (!parse_int64(a, b, &v, &overflow))
            return pjdl__fail(PJDL_INVALID_ARGUMENT,
                              "option '%s': list element %zu '%.*s' is not an integer", name, n,
                              (int)(b - a), a);
        if (overflow)
            return pjdl__fail(PJDL_INVALID_ARGUMENT,
                              "option '%s': list element %zu (%.*s) is out of range for int64",
                              name, n, (int)(b - a), a);
        values[n++] = v;
        if (comma == NULL)
            break;
        s = comma + 1;
    }
    *count = n;
    return PJDL_OK;
}

static int type_from_name(const char *s, size_t len) {
    static const struct {
        const char *name;
        pjdl_option_type type;
    } types[] = {
        {"string", PJDL_OPTION_STRING},
        {"int64", PJDL_OPTION_INT64},
        {"int64_list", PJDL_OPTION_INT64_LIST},
        {"float", PJDL_OPTION_FLOAT},
        {"bool", PJDL_OPTION_BOOL},
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strlen(types[i].name) == len && memcmp(types[i].name, s, len) == 0)
            return (int)types[i].type;
    return -2;
}

/* Guesses the type of an unannotated value (see the header). */
static int infer_type(const char *value) {
    if (strcmp(value, "true") == 0 || strcmp(value, "false") == 0)
        return PJDL_OPTION_BOOL;
    if (value[0] == '[')
        return PJDL_OPTION_INT64_LIST;
    bool point;
    if (is_decimal_float(value, &point))
        return point ? PJDL_OPTION_FLOAT : PJDL_OPTION_INT64;
    return PJDL_OPTION_STRING;
}

pjdl_code pjdl_option_parse(const char *text, pjdl_option *out) {
    pjdl__clear_error();
    if (text == NULL || out == NULL)
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "pjdl_option_parse: %s is NULL",
                          text == NULL ? "text" : "out");
    const char *eq = strchr(text, '=');
    if (eq == NULL)
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "option '%s' has no '=': expected name=value",
                          text);
    const char *colon = memchr(text, ':', (size_t)(eq - text));
    const char *name_end = colon ? colon : eq;
    size_t name_len = (size_t)(name_end - text);
    if (name_len == 0)
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "option '%s' has an empty name", text);
    if (name_len >= OPTION_NAME_MAX)
        return pjdl__fail(PJDL_INVALID_ARGUMENT, "option name '%.*s...' is longer than %d bytes",
                          32, text, OPTION_NAME_MAX - 1);
    char name[OPTION_NAME_MAX];
    memcpy(name, text, name_len);
    name[name_len] = '\0';

    const char *value = eq + 1;
    int type;
    if (colon != NULL) {
        type = type_from_name(colon + 1, (size_t)(eq - colon - 1));
        if (type < 0)
            return pjdl__fail(PJDL_INVALID_ARGUMENT,
                              "option '%s': unknown type '%.*s' (expected string, int64, float, "
                              "bool or int64_list)",
                              name, (int)(eq - colon - 1), colon + 1);
    } else {
        type = infer_type(value);
    }

    int64_t list[OPTION_LIST_MAX];
    pjdl_option opt;
    memset(&opt, 0, sizeof opt);
    opt.type = (pjdl_option_type)type;
    pjdl_code code = PJDL_OK;
    switch (opt.type) {
    case PJDL_OPTION_STRING:
        opt.value.string_value = value;
        break;
    case PJDL_OPTION_INT64:
        code = parse_int(name, value, &opt.value.int64_value);
        break;
    case PJDL_OPTION_FLOAT:
        code = parse_float(name, value, &opt.value.float_value);
        break;
    case PJDL_OPTION_BOOL:
        if (strcmp(value, "true") == 0 || strcmp(value, "1") == 0)
            opt.value.bool_value = true;
        else if (strcmp(value, "false") == 0 || strcmp(value, "0") == 0)
            opt.value.bool_value = false;
        else
            code = pjdl__fail(PJDL_INVALID_ARGUMENT,
                              "option '%s': '%s' is not a bool (true, false, 1 or 0)", name, value);
        break;
    case PJDL_OPTION_INT64_LIST:
        code = parse_list(name, value, list, &opt.value.int64_list.count);
        break;
    }
    if (code != PJDL_OK)
        return code;
    /* Only now overwrite what the previous successful call handed out. */
    if (opt.type == PJDL_OPTION_INT64_LIST) {
        if (opt.value.int64_list.count > 0)
            memcpy(option_list, list, opt.value.int64_list.count * sizeof list[0]);
        opt.value.int64_list.values = option_list;
    }
    memcpy(option_name, name, name_len + 1);
    opt.name = option_name;
    *out = opt;
    return PJDL_OK;
}

pjdl_code pjdl__copy_options(const void *options, size_t struct_size, size_t min_size, void *out,
                             size_t out_size, const char *what) {
    if (options == NULL)
        return PJDL_OK;
    if (struct_size < min_size)
        return pjdl__fail(
            PJDL_INVALID_ARGUMENT,
            "%s.struct_size is %zu, less than the smallest layout (%zu bytes); set it "
            "to sizeof(%s)",
            what, struct_size, min_size, what);
    /* A newer caller's larger struct: its extra fields are not understood. */
    memcpy(out, options, struct_size < out_size ? struct_size : out_size);
    return PJDL_OK;
}
