/* A minimal streaming JSON writer for --json output. */
#include <inttypes.h>
#include <math.h>

#include "cli.h"

void json_init(json_writer *w, FILE *out) {
    w->out = out;
    w->depth = 0;
    w->need_comma[0] = false;
    w->after_key = false;
}

/* Writes the separator a new value needs at the current position. */
static void value_prefix(json_writer *w) {
    if (w->after_key) {
        w->after_key = false;
        return;
    }
    if (w->need_comma[w->depth])
        fputc(',', w->out);
    w->need_comma[w->depth] = true;
}

static void open_container(json_writer *w, char c) {
    value_prefix(w);
    fputc(c, w->out);
    if (w->depth + 1 < (int)(sizeof w->need_comma / sizeof w->need_comma[0]))
        w->depth++;
    w->need_comma[w->depth] = false;
}

static void close_container(json_writer *w, char c) {
    fputc(c, w->out);
    if (w->depth > 0)
        w->depth--;
}

void json_begin_object(json_writer *w) {
    open_container(w, '{');
}
void json_end_object(json_writer *w) {
    close_container(w, '}');
}
void json_begin_array(json_writer *w) {
    open_container(w, '[');
}
void json_end_array(json_writer *w) {
    close_container(w, ']');
}

static void write_escaped(FILE *out, const char *s) {
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"':
            fputs("\\\"", out);
            break;
        case '\\':
            fputs("\\\\", out);
            break;
        case '\n':
            fputs("\\n", out);
            break;
        case '\r':
            fputs("\\r", out);
            break;
        case '\t':
            fputs("\\t", out);
            break;
        default:
            if (*p < 0x20)
                fprintf(out, "\\u%04x", *p);
            else
                fputc(*p, out);
        }
    }
    fputc('"', out);
}

void json_key(json_writer *w, const char *key) {
    value_prefix(w);
    write_escaped(w->out, key);
    fputc(':', w->out);
    w->after_key = true;
}

void json_string(json_writer *w, const char *value) {
    if (value == NULL) {
        json_null(w);
        return;
    }
    value_prefix(w);
    write_escaped(w->out, value);
}

void json_int(json_writer *w, int64_t value) {
    value_prefix(w);
    fprintf(w->out, "%" PRId64, value);
}

void json_uint(json_writer *w, uint64_t value) {
    value_prefix(w);
    fprintf(w->out, "%" PRIu64, value);
}

void json_double(json_writer *w, double value) {
    if (!isfinite(value)) {
        json_null(w);
        return;
    }
    value_prefix(w);
    fprintf(w->out, "%.6g", value);
}

void json_bool(json_writer *w, bool value) {
    value_prefix(w);
    fputs(value ? "true" : "false", w->out);
}

void json_null(json_writer *w) {
    value_prefix(w);
    fputs("null", w->out);
}

void json_field_string(json_writer *w, const char *key, const char *value) {
    json_key(w, key);
    json_string(w, value);
}

void json_field_int(json_writer *w, const char *key, int64_t value) {
    json_key(w, key);
    json_int(w, value);
}

void json_field_bool(json_writer *w, const char *key, bool value) {
    json_key(w, key);
    json_bool(w, value);
}

void json_finish(json_writer *w) {
    fputc('\n', w->out);
    fflush(w->out);
}
