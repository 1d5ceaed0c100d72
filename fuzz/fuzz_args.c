/* libFuzzer target: the command's option parsing. The input is split at NUL
 * bytes into up to 64 arguments. Each argument goes through
 * pjdl_option_parse (the library's NAME[:TYPE]=VALUE parser) and the whole
 * list, after argv[0], through cli_args_parse of tools/args.c (compiled into
 * this target; its usage messages go to /dev/null, see fuzz_quiet.h).
 *
 * Checked: no crash, leak or undefined behaviour; a failed option parse is
 * INVALID_ARGUMENT with a message; a parsed option has a non-empty name, a
 * known type, a STRING value inside the text, and a list of sane size; a
 * parsed command line has a command (unless help or version), at most 64
 * options, and survives cli_args_free. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define MAX_ARGS 64

FILE *fz_quiet;

/* main.c is not linked (it has main); this is its only function args.c uses. */
void cli_print_usage_hint(FILE *err, cli_command command) {
    fprintf(err, "usage hint for %d\n", (int)command);
}

static void fail(const char *what, const char *text) {
    fprintf(stderr, "fuzz_args: %s: '%s' (last error: %s)\n", what, text, pjdl_last_error());
    abort();
}

static void check_option(const char *text) {
    pjdl_option opt;
    memset(&opt, 0xA5, sizeof opt);
    pjdl_code code = pjdl_option_parse(text, &opt);
    if (code != PJDL_OK) {
        if (code != PJDL_INVALID_ARGUMENT)
            fail("pjdl_option_parse: unexpected code", text);
        if (pjdl_last_error()[0] == '\0')
            fail("pjdl_option_parse: error without a message", text);
        return;
    }
    if (opt.name == NULL || opt.name[0] == '\0')
        fail("pjdl_option_parse: empty name accepted", text);
    if (strchr(text, '=') == NULL)
        fail("pjdl_option_parse: accepted text without '='", text);
    switch (opt.type) {
    case PJDL_OPTION_STRING: {
        const char *v = opt.value.string_value;
        if (v == NULL || v < text || v > text + strlen(text))
            fail("pjdl_option_parse: string value outside the text", text);
        break;
    }
    case PJDL_OPTION_INT64_LIST:
        if (opt.value.int64_list.count > strlen(text) ||
            (opt.value.int64_list.count > 0 && opt.value.int64_list.values == NULL))
            fail("pjdl_option_parse: implausible list", text);
        break;
    case PJDL_OPTION_INT64:
    case PJDL_OPTION_FLOAT:
    case PJDL_OPTION_BOOL:
        break;
    default:
        fail("pjdl_option_parse: unknown type", text);
    }
}

/* libFuzzer's entry point (it declares none for C). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (fz_quiet == NULL) {
        fz_quiet = fopen("/dev/null", "w");
        if (fz_quiet == NULL)
            abort();
    }
    /* A private NUL-terminated copy, so that every argument ends inside it. */
    char *text = malloc(size + 1);
    if (text == NULL)
        abort();
    memcpy(text, data, size);
    text[size] = '\0';
    char *argv[MAX_ARGS + 2];
    int argc = 0;
    argv[argc++] = (char *)"pjrt-dlpack";
    for (char *p = text; argc <= MAX_ARGS && p <= text + size; p += strlen(p) + 1) {
        argv[argc++] = p;
        check_option(p);
    }
    argv[argc] = NULL;

    cli_args args;
    if (cli_args_parse(argc, argv, &args)) {
        if (args.command == CLI_CMD_NONE && !args.help && !args.version)
            fail("cli_args_parse: accepted no command", text);
        if (args.num_options > CLI_MAX_OPTIONS)
            fail("cli_args_parse: too many options", text);
        for (size_t i = 0; i < args.num_options; i++)
            if (args.options[i].name == NULL || args.options[i].name[0] == '\0')
                fail("cli_args_parse: an option without a name", text);
        cli_args_free(&args);
    }
    free(text);
    return 0;
}
