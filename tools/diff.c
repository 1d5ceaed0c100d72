/*
 * diff.c — `pjrt-dlpack diff A.json B.json`: the checks whose outcome
 * differs between two reports of `pjrt-dlpack check --json` (a plugin
 * author's against XLA's, say). A check in one report only counts as a
 * difference ("absent" in the other). Exit 0 when every outcome is the
 * same, 1 when some differ, 2 for a bad command line or a file that is not
 * such a report.
 *
 * The reports are read with a small JSON reader of its own (dif_*): values
 * nest at most DIF_MAX_DEPTH deep; strings are kept with their escapes
 * decoded (\uXXXX as UTF-8).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"

#define DIF_MAX_DEPTH 32
#define DIF_MAX_CHECKS 256

typedef struct dif_check {
    char *name, *status, *detail;
} dif_check;

typedef struct dif_report {
    const char *path;
    char *plugin, *platform;
    dif_check checks[DIF_MAX_CHECKS];
    size_t n;
} dif_report;

typedef struct dif_parser {
    const char *p, *end;
    const char *error; /* first error, static */
} dif_parser;

static void dif_ws(dif_parser *ps) {
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\n' || *ps->p == '\r' || *ps->p == '\t'))
        ps->p++;
}

static bool dif_fail(dif_parser *ps, const char *why) {
    if (ps->error == NULL)
        ps->error = why;
    return false;
}

static bool dif_lit(dif_parser *ps, char c) {
    dif_ws(ps);
    if (ps->p < ps->end && *ps->p == c) {
        ps->p++;
        return true;
    }
    return false;
}

/* Appends the UTF-8 form of code point `cp` (below 0x10000). */
static size_t dif_utf8(char *out, unsigned cp) {
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | cp >> 6);
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    out[0] = (char)(0xE0 | cp >> 12);
    out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
}

/* One escape after the backslash at ps->p; appends its bytes to out. */
static bool dif_escape(dif_parser *ps, char *out, size_t *n) {
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    const char *hit = ps->p < ps->end && *ps->p ? strchr(from, *ps->p) : NULL;
    if (hit != NULL) {
        out[(*n)++] = to[hit - from];
        ps->p++;
        return true;
    }
    unsigned cp = 0;
    if (ps->p >= ps->end || *ps->p != 'u' || ps->end - ps->p < 5)
        return dif_fail(ps, "a bad escape in a string");
    for (int i = 1; i <= 4; i++) {
        char c = ps->p[i];
        unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
                     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                     : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
                                            : 16;
        if (d == 16)
            return dif_fail(ps, "a bad \\u escape in a string");
        cp = cp * 16 + d;
    }
    ps->p += 5;
    *n += dif_utf8(out + *n, cp);
    return true;
}

/* A string; *out is a new allocation (NULL to skip it). */
static bool dif_string(dif_parser *ps, char **out) {
    if (!dif_lit(ps, '"'))
        return dif_fail(ps, "expected a string");
    /* Decoded, a string is never longer than its source. */
    char *s = malloc((size_t)(ps->end - ps->p) + 1);
    if (s == NULL)
        return dif_fail(ps, "out of memory");
    size_t n = 0;
    while (ps->p < ps->end && *ps->p != '"') {
        if ((unsigned char)*ps->p < 0x20) {
            free(s);
            return dif_fail(ps, "a control character in a string");
        }
        if (*ps->p != '\\') {
            s[n++] = *ps->p++;
            continue;
        }
        ps->p++;
        if (!dif_escape(ps, s, &n)) {
            free(s);
            return false;
        }
    }
    if (ps->p >= ps->end) {
        free(s);
        return dif_fail(ps, "an unterminated string");
    }
    ps->p++;
    s[n] = '\0';
    if (out != NULL)
        *out = s;
    else
        free(s);
    return true;
}

static bool dif_value(dif_parser *ps, int depth);

/* An object or array whose members are skipped. */
static bool dif_skip_container(dif_parser *ps, int depth, bool object) {
    char close = object ? '}' : ']';
    if (dif_lit(ps, close))
        return true;
    do {
        if (object && (!dif_string(ps, NULL) || !dif_lit(ps, ':')))
            return dif_fail(ps, "expected \"key\": in an object");
        if (!dif_value(ps, depth + 1))
            return false;
    } while (dif_lit(ps, ','));
    return dif_lit(ps, close) ? true : dif_fail(ps, "expected , or the end of a container");
}

/* Any value, skipped. */
static bool dif_value(dif_parser *ps, int depth) {
    if (depth > DIF_MAX_DEPTH)
        return dif_fail(ps, "values nest too deep");
    dif_ws(ps);
    if (ps->p >= ps->end)
        return dif_fail(ps, "unexpected end of the file");
    if (*ps->p == '"')
        return dif_string(ps, NULL);
    if (dif_lit(ps, '{'))
        return dif_skip_container(ps, depth, true);
    if (dif_lit(ps, '['))
        return dif_skip_container(ps, depth, false);
    const char *start = ps->p;
    while (ps->p < ps->end && strchr("+-.0123456789eEtruefalsn", *ps->p) != NULL && *ps->p)
        ps->p++;
    return ps->p > start ? true : dif_fail(ps, "expected a value");
}

/* A string value for a key we keep, or null (kept as NULL). */
static bool dif_string_or_null(dif_parser *ps, char **out) {
    dif_ws(ps);
    if (ps->end - ps->p >= 4 && strncmp(ps->p, "null", 4) == 0) {
        ps->p += 4;
        return true;
    }
    return dif_string(ps, out);
}

/* One object of the "checks" array. */
static bool dif_check_object(dif_parser *ps, dif_check *c) {
    if (!dif_lit(ps, '{'))
        return dif_fail(ps, "a check is not an object");
    if (dif_lit(ps, '}'))
        return dif_fail(ps, "a check has no name");
    do {
        char *key = NULL;
        if (!dif_string(ps, &key) || !dif_lit(ps, ':')) {
            free(key);
            return dif_fail(ps, "expected \"key\": in a check");
        }
        char **slot = strcmp(key, "name") == 0     ? &c->name
                      : strcmp(key, "status") == 0 ? &c->status
                      : strcmp(key, "detail") == 0 ? &c->detail
                                                   : NULL;
        free(key);
        if (slot != NULL && *slot != NULL)
            return dif_fail(ps, "a check repeats a key");
        if (!(slot ? dif_string_or_null(ps, slot) : dif_value(ps, 2)))
            return false;
    } while (dif_lit(ps, ','));
    if (!dif_lit(ps, '}'))
        return dif_fail(ps, "expected , or } in a check");
    return c->name != NULL && c->status != NULL ? true
                                                : dif_fail(ps, "a check lacks name or status");
}

static bool dif_checks(dif_parser *ps, dif_report *r) {
    if (!dif_lit(ps, '['))
        return dif_fail(ps, "\"checks\" is not an array");
    if (dif_lit(ps, ']'))
        return true;
    do {
        if (r->n == DIF_MAX_CHECKS)
            return dif_fail(ps, "more checks than a report has");
        if (!dif_check_object(ps, &r->checks[r->n++]))
            return false;
    } while (dif_lit(ps, ','));
    return dif_lit(ps, ']') ? true : dif_fail(ps, "expected , or ] in \"checks\"");
}

/* The report object: "plugin", "platform", "checks"; other keys skipped. */
static bool dif_report_object(dif_parser *ps, dif_report *r) {
    bool seen_checks = false;
    if (!dif_lit(ps, '{'))
        return dif_fail(ps, "the file is not a JSON object");
    if (!dif_lit(ps, '}')) {
        do {
            char *key = NULL;
            if (!dif_string(ps, &key) || !dif_lit(ps, ':')) {
                free(key);
                return dif_fail(ps, "expected \"key\": in the report");
            }
            bool ok;
            if (strcmp(key, "checks") == 0 && !seen_checks)
                ok = seen_checks = dif_checks(ps, r);
            else if (strcmp(key, "plugin") == 0 && r->plugin == NULL)
                ok = dif_string_or_null(ps, &r->plugin);
            else if (strcmp(key, "platform") == 0 && r->platform == NULL)
                ok = dif_string_or_null(ps, &r->platform);
            else
                ok = dif_value(ps, 1);
            free(key);
            if (!ok)
                return false;
        } while (dif_lit(ps, ','));
        if (!dif_lit(ps, '}'))
            return dif_fail(ps, "expected , or } in the report");
    }
    dif_ws(ps);
    if (ps->p != ps->end)
        return dif_fail(ps, "text after the report");
    return seen_checks ? true : dif_fail(ps, "no \"checks\" array: not a check --json report");
}

static void dif_report_free(dif_report *r) {
    for (size_t i = 0; i < r->n; i++) {
        free(r->checks[i].name);
        free(r->checks[i].status);
        free(r->checks[i].detail);
    }
    free(r->plugin);
    free(r->platform);
}

/* The whole of `f` (at most 64 MiB) in *text, its length in *len; a
 * static reason on failure. */
static const char *dif_read(FILE *f, char **text, size_t *len) {
    size_t cap = 0;
    *text = NULL;
    *len = 0;
    for (;;) {
        if (*len == cap) {
            if (cap >= ((size_t)64 << 20))
                return "larger than any report (64 MiB)";
            char *grown = realloc(*text, cap = cap ? cap * 2 : 65536);
            if (grown == NULL)
                return "out of memory";
            *text = grown;
        }
        size_t got = fread(*text + *len, 1, cap - *len, f);
        if (got == 0)
            return ferror(f) ? "a read error" : NULL;
        *len += got;
    }
}

/* Reads and parses `path`; false after printing why. */
static bool dif_load(const char *path, dif_report *r) {
    memset(r, 0, sizeof *r);
    r->path = path;
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "pjrt-dlpack diff: cannot open %s\n", path);
        return false;
    }
    char *text;
    size_t len;
    dif_parser ps = {NULL, NULL, dif_read(f, &text, &len)};
    fclose(f);
    ps.p = text;
    ps.end = text + len;
    bool ok = ps.error == NULL && dif_report_object(&ps, r);
    if (!ok)
        fprintf(stderr, "pjrt-dlpack diff: %s: %s (at byte %zu)\n", path, ps.error,
                (size_t)(ps.p - text));
    free(text);
    if (!ok)
        dif_report_free(r);
    return ok;
}

static const dif_check *dif_find(const dif_report *r, const char *name) {
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->checks[i].name, name) == 0)
            return &r->checks[i];
    return NULL;
}

/* Prints `name` when its outcome differs; returns whether it did. */
static bool dif_one(const char *name, const dif_check *a, const dif_check *b) {
    const char *sa = a ? a->status : "absent", *sb = b ? b->status : "absent";
    if (strcmp(sa, sb) == 0)
        return false;
    printf("%-18s %-11s %s\n", name, sa, sb);
    if (a && a->detail && a->detail[0])
        printf("    A: %s\n", a->detail);
    if (b && b->detail && b->detail[0])
        printf("    B: %s\n", b->detail);
    return true;
}

static int dif_compare(const dif_report *a, const dif_report *b) {
    printf("A: %s (%s)\nB: %s (%s)\n\n", a->plugin ? a->plugin : a->path,
           a->platform ? a->platform : "?", b->plugin ? b->plugin : b->path,
           b->platform ? b->platform : "?");
    printf("%-18s %-11s %s\n", "check", "A", "B");
    size_t differ = 0, same = 0;
    for (size_t i = 0; i < a->n; i++) {
        bool d = dif_one(a->checks[i].name, &a->checks[i], dif_find(b, a->checks[i].name));
        differ += d;
        same += !d;
    }
    for (size_t i = 0; i < b->n; i++)
        if (dif_find(a, b->checks[i].name) == NULL)
            differ += dif_one(b->checks[i].name, NULL, &b->checks[i]);
    printf("\n%zu differ, %zu the same\n", differ, same);
    return differ ? 1 : 0;
}

int cli_diff(int argc, char **argv) {
    if (argc == 1 && (strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0)) {
        printf("Usage: pjrt-dlpack diff A.json B.json\n\n"
               "Compares two reports of 'pjrt-dlpack check --json' and lists the checks\n"
               "whose outcome differs (a check in one report only is 'absent' in the\n"
               "other), with both details.\n\n"
               "Exit status: 0 the same outcomes, 1 some differ, 2 a bad command line\n"
               "or a file that is not such a report.\n");
        return 0;
    }
    if (argc != 2) {
        fprintf(stderr, "pjrt-dlpack diff: expected two report files (A.json B.json)\n"
                        "Try 'pjrt-dlpack diff --help'.\n");
        return 2;
    }
    static dif_report a, b; /* large: not on the stack */
    if (!dif_load(argv[0], &a))
        return 2;
    if (!dif_load(argv[1], &b)) {
        dif_report_free(&a);
        return 2;
    }
    int rc = dif_compare(&a, &b);
    dif_report_free(&a);
    dif_report_free(&b);
    return rc;
}
