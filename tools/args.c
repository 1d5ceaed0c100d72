/* Command-line parsing of pjrt-dlpack. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

const char *cli_command_name(cli_command command) {
    switch (command) {
    case CLI_CMD_INFO:
        return "info";
    case CLI_CMD_CHECK:
        return "check";
    case CLI_CMD_BENCH:
        return "bench";
    default:
        return "";
    }
}

static cli_command command_from_name(const char *name) {
    if (strcmp(name, "info") == 0)
        return CLI_CMD_INFO;
    if (strcmp(name, "check") == 0)
        return CLI_CMD_CHECK;
    if (strcmp(name, "bench") == 0)
        return CLI_CMD_BENCH;
    return CLI_CMD_NONE;
}

static bool usage_error(const cli_args *args, const char *fmt, const char *what) {
    fprintf(stderr, "pjrt-dlpack: ");
    fprintf(stderr, fmt, what);
    fputc('\n', stderr);
    cli_print_usage_hint(stderr, args->command);
    return false;
}

/* Parses a positive integer with an optional k/M/G suffix (powers of 1024
 * when allow_suffix). */
static bool parse_count(const char *text, bool allow_suffix, int64_t *out) {
    if (text == NULL || *text == '\0' || *text == '-')
        return false;
    errno = 0;
    char *end = NULL;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno != 0 || end == text)
        return false;
    unsigned long long mult = 1;
    if (allow_suffix && *end != '\0') {
        switch (*end) {
        case 'k':
        case 'K':
            mult = 1ull << 10;
            break;
        case 'm':
        case 'M':
            mult = 1ull << 20;
            break;
        case 'g':
        case 'G':
            mult = 1ull << 30;
            break;
        default:
            return false;
        }
        end++;
    }
    if (*end != '\0' || v == 0 || v > (unsigned long long)INT64_MAX / mult)
        return false;
    *out = (int64_t)(v * mult);
    return true;
}

/* Copies a parsed option; lists are copied because the library's parse keeps
 * them in thread-local storage that the next parse overwrites. */
static bool add_option(cli_args *args, const char *text) {
    if (args->num_options == CLI_MAX_OPTIONS)
        return usage_error(args, "too many --option values (at most %s)", "64");
    pjdl_option opt;
    if (pjdl_option_parse(text, &opt) != PJDL_OK) {
        fprintf(stderr, "pjrt-dlpack: bad --option '%s': %s\n", text, pjdl_last_error());
        cli_print_usage_hint(stderr, args->command);
        return false;
    }
    size_t i = args->num_options;
    /* The parse result points into thread-local storage the next parse
     * reuses: keep copies. */
    args->names[i] = strdup(opt.name);
    if (args->names[i] == NULL) {
        fprintf(stderr, "pjrt-dlpack: out of memory\n");
        return false;
    }
    opt.name = args->names[i];
    if (opt.type == PJDL_OPTION_STRING) {
        args->strings[i] = strdup(opt.value.string_value ? opt.value.string_value : "");
        if (args->strings[i] == NULL) {
            fprintf(stderr, "pjrt-dlpack: out of memory\n");
            return false;
        }
        opt.value.string_value = args->strings[i];
    }
    if (opt.type == PJDL_OPTION_INT64_LIST) {
        size_t n = opt.value.int64_list.count;
        int64_t *copy = malloc((n ? n : 1) * sizeof *copy);
        if (copy == NULL) {
            fprintf(stderr, "pjrt-dlpack: out of memory\n");
            return false;
        }
        if (n)
            memcpy(copy, opt.value.int64_list.values, n * sizeof *copy);
        args->lists[i] = copy;
        opt.value.int64_list.values = copy;
    }
    args->options[i] = opt;
    args->num_options++;
    return true;
}

/* The value of "--name VALUE" or "--name=VALUE"; advances *i. */
static const char *option_value(int argc, char **argv, int *i, const char *arg, size_t name_len) {
    if (arg[name_len] == '=')
        return arg + name_len + 1;
    if (*i + 1 >= argc)
        return NULL;
    (*i)++;
    return argv[*i];
}

static bool is_opt(const char *arg, const char *name) {
    size_t n = strlen(name);
    return strncmp(arg, name, n) == 0 && (arg[n] == '\0' || arg[n] == '=');
}

static bool parse_one_option(int argc, char **argv, int *i, cli_args *args) {
    const char *arg = argv[*i];
    if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
        args->help = true;
    } else if (strcmp(arg, "--version") == 0) {
        args->version = true;
    } else if (strcmp(arg, "--json") == 0) {
        args->json = true;
    } else if (strcmp(arg, "--list") == 0) {
        args->list_checks = true;
    } else if (strcmp(arg, "--no-fork") == 0) {
        args->no_fork = true;
    } else if (strcmp(arg, "-o") == 0 || is_opt(arg, "--option")) {
        size_t len = arg[1] == 'o' ? 2 : strlen("--option");
        const char *v = option_value(argc, argv, i, arg, len);
        if (v == NULL)
            return usage_error(args, "%s needs a value NAME=VALUE", arg);
        return add_option(args, v);
    } else if (is_opt(arg, "--only")) {
        const char *v = option_value(argc, argv, i, arg, strlen("--only"));
        if (v == NULL || *v == '\0')
            return usage_error(args, "%s needs a check name or prefix", "--only");
        if (args->num_only == sizeof args->only / sizeof args->only[0])
            return usage_error(args, "too many --only values (at most %s)", "16");
        args->only[args->num_only++] = v;
    } else if (is_opt(arg, "--iterations") || strcmp(arg, "-n") == 0) {
        size_t len = arg[1] == 'n' ? 2 : strlen("--iterations");
        const char *v = option_value(argc, argv, i, arg, len);
        if (!parse_count(v, false, &args->iterations))
            return usage_error(args, "--iterations needs a positive integer, not '%s'", v ? v : "");
    } else if (is_opt(arg, "--size")) {
        const char *v = option_value(argc, argv, i, arg, strlen("--size"));
        if (!parse_count(v, true, &args->size_bytes))
            return usage_error(
                args, "--size needs a positive byte count (suffix k, M, G), not '%s'", v ? v : "");
    } else if (is_opt(arg, "--timeout-ms")) {
        const char *v = option_value(argc, argv, i, arg, strlen("--timeout-ms"));
        if (!parse_count(v, false, &args->timeout_ms))
            return usage_error(args, "--timeout-ms needs a positive integer, not '%s'", v ? v : "");
    } else if (is_opt(arg, "--check-limit-s")) {
        const char *v = option_value(argc, argv, i, arg, strlen("--check-limit-s"));
        if (!parse_count(v, false, &args->check_limit_s) || args->check_limit_s > 86400)
            return usage_error(args, "--check-limit-s needs an integer from 1 to 86400, not '%s'",
                               v ? v : "");
    } else if (is_opt(arg, "--threads")) {
        const char *v = option_value(argc, argv, i, arg, strlen("--threads"));
        int64_t t = 0;
        if (!parse_count(v, false, &t) || t > 64)
            return usage_error(args, "--threads needs an integer from 1 to 64, not '%s'",
                               v ? v : "");
        args->threads = (int)t;
    } else {
        return usage_error(args, "unknown option '%s'", arg);
    }
    return true;
}

static bool take_positional(cli_args *args, const char *arg) {
    if (args->command == CLI_CMD_NONE) {
        if (strcmp(arg, "help") == 0) {
            args->help = true;
            return true;
        }
        args->command = command_from_name(arg);
        if (args->command == CLI_CMD_NONE)
            return usage_error(args, "unknown command '%s' (expected info, check or bench)", arg);
        return true;
    }
    if (args->plugin != NULL)
        return usage_error(args, "unexpected argument '%s' (only one PLUGIN is allowed)", arg);
    if (*arg == '\0')
        return usage_error(args, "the PLUGIN argument is empty%s", "");
    args->plugin = arg;
    return true;
}

/* Options that make sense only for some commands are refused elsewhere, so
 * that a typo does not silently change nothing. */
static bool check_applicable(cli_args *args) {
    if (args->help || args->version)
        return true;
    if (args->command == CLI_CMD_NONE)
        return usage_error(args, "missing command (info, check or bench)%s", "");
    bool check = args->command == CLI_CMD_CHECK, bench = args->command == CLI_CMD_BENCH;
    if (!check && (args->list_checks || args->num_only || args->threads || args->no_fork ||
                   args->check_limit_s))
        return usage_error(
            args, "--list, --only, --threads, --check-limit-s and --no-fork belong to 'check'%s",
            "");
    if (!bench && (args->iterations || args->size_bytes))
        return usage_error(args, "--iterations and --size belong to 'bench'%s", "");
    return true;
}

bool cli_args_parse(int argc, char **argv, cli_args *args) {
    memset(args, 0, sizeof *args);
    bool only_positional = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        bool ok;
        if (!only_positional && strcmp(arg, "--") == 0) {
            only_positional = true;
            continue;
        }
        if (!only_positional && arg[0] == '-' && arg[1] != '\0')
            ok = parse_one_option(argc, argv, &i, args);
        else
            ok = take_positional(args, arg);
        if (!ok) {
            cli_args_free(args);
            return false;
        }
    }
    if (!check_applicable(args)) {
        cli_args_free(args);
        return false;
    }
    args->progress = !args->json && isatty(STDERR_FILENO);
    return true;
}

int64_t cli_timeout_ms(const cli_args *args) {
    return args->timeout_ms > 0 ? args->timeout_ms : CLI_DEFAULT_TIMEOUT_MS;
}

int64_t cli_check_limit_ms(const cli_args *args) {
    return (args->check_limit_s > 0 ? args->check_limit_s : 120) * 1000;
}

void cli_args_free(cli_args *args) {
    for (size_t i = 0; i < CLI_MAX_OPTIONS; i++) {
        free(args->lists[i]);
        free(args->names[i]);
        free(args->strings[i]);
        args->lists[i] = NULL;
        args->names[i] = NULL;
        args->strings[i] = NULL;
    }
    args->num_options = 0;
}
