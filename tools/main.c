/* pjrt-dlpack: entry point, help texts and exit codes. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "diff.h"

static const char exit_codes[] =
    "Exit status:\n"
    "  0  success (every check passed or is unsupported by the plugin)\n"
    "  1  at least one check failed; info, bench: the plugin crashed or did not\n"
    "     return after its client was created (info prints what it read first)\n"
    "  2  usage error (bad command, option or value)\n"
    "  3  the plugin could not be found or loaded, or no client could be created:\n"
    "     the plugin's error, or its load (PJRT_Plugin_Initialize) or client\n"
    "     creation crashed or did not return within --timeout-ms\n"
    "  4  internal error of the command (e.g. out of memory)\n";

static const char plugin_text[] =
    "PLUGIN is a path to a PJRT plugin (it contains '/' or ends in .so), or a\n"
    "name listed in PJRT_NAMES_AND_LIBRARY_PATHS (\"name:path,name:path\").\n"
    "Without PLUGIN: the PJRT_DLPACK_PLUGIN environment variable, else the\n"
    "reference plugin bundled with libpjrt_dlpack.\n";

static const char common_options[] =
    "Common options:\n"
    "  -o, --option NAME=VALUE  client-creation option, repeatable; the type is\n"
    "                           inferred (true/false, integer, [1,2], 1.5, text)\n"
    "                           or forced: NAME:string=VALUE (:int64, :float,\n"
    "                           :bool, :int64_list)\n"
    "      --json               machine-readable output on stdout\n"
    "      --timeout-ms N       the longest any one call into the plugin, or any\n"
    "                           wait, may take (default 30000); the entry point\n"
    "                           that did not return is named\n"
    "  -h, --help               this help\n";

static void print_main_help(FILE *out) {
    fprintf(out,
            "Usage: pjrt-dlpack COMMAND [OPTIONS] [PLUGIN]\n"
            "\n"
            "DLPack exchange with a PJRT plugin: inspect it, check it, measure it.\n"
            "\n"
            "Commands:\n"
            "  info    the plugin's ABI version, platform, devices, memories and the\n"
            "          DLPack entry points it provides\n"
            "  check   the DLPack conformance suite; exits 1 if any check fails\n"
            "  bench   export/import latency and copy bandwidth, as a table\n"
            "  diff    the checks whose outcome differs between two 'check --json'\n"
            "          reports (pjrt-dlpack diff A.json B.json)\n"
            "\n"
            "'pjrt-dlpack COMMAND --help' describes a command.\n"
            "\n%s\n%s      --version            the version of the command and library\n\n%s",
            plugin_text, common_options, exit_codes);
}

static void print_info_help(FILE *out) {
    fprintf(out,
            "Usage: pjrt-dlpack info [OPTIONS] [PLUGIN]\n"
            "\n"
            "Prints the plugin's PJRT ABI version, the number of entry points in its\n"
            "table, its plugin attributes and extensions (type names and numbers);\n"
            "then, with a client, the platform name, version and id, every device\n"
            "(id, kind, local hardware id) with its memories and the DLDevice each\n"
            "maps to, and a capability table: for each DLPack-relevant entry point\n"
            "and extension, whether the plugin's table has it and what it answers\n"
            "when probed (ok, UNIMPLEMENTED, or another error).\n"
            "\n"
            "The plugin runs in a child process, which hands each fact to the\n"
            "command as soon as it has read it. When no client can be created (the\n"
            "plugin's error, a crash, or an entry point that does not return within\n"
            "--timeout-ms), info prints what it read, then the reason on a 'client:'\n"
            "line (in --json: \"client_error\"), and exits 3. When the plugin crashes\n"
            "or hangs later, info prints everything read until then, then the reason\n"
            "on a 'stopped:' line (in --json: \"stopped\"), and exits 1.\n"
            "\n%s\n%s\n%s",
            plugin_text, common_options, exit_codes);
}

static void print_check_help(FILE *out) {
    fprintf(out,
            "Usage: pjrt-dlpack check [OPTIONS] [PLUGIN]\n"
            "\n"
            "Runs the DLPack conformance suite against the plugin. Every check\n"
            "prints PASS, FAIL (with what was expected and what happened),\n"
            "UNSUPPORTED (the plugin lacks an optional feature) or SKIPPED (the\n"
            "library could not load the plugin, or no client could be created).\n"
            "Areas: ABI and versions, export of every type and of 0-d, zero-size\n"
            "and strided buffers, import as views, readiness with and without\n"
            "streams, pinning, the on-delete callback, transfer mode, rejection of\n"
            "bad tensors, concurrent use.\n"
            "\n"
            "The set-up (loading the plugin, a first client) and each check run in\n"
            "a child process: a check that crashes, or whose call into the plugin\n"
            "does not return within --timeout-ms, fails alone, naming the entry\n"
            "point; a set-up that does is reported on the 'platform:' line, and the\n"
            "checks that need a client are SKIPPED (exit 3). When the ABI checks\n"
            "show why the plugin cannot be used, check exits 1, not 3.\n"
            "\n"
            "Check options:\n"
            "      --list               list the checks and exit\n"
            "      --only NAME          run only the checks whose name starts with\n"
            "                           NAME (repeatable; e.g. --only pin)\n"
            "      --threads N          threads of the concurrency check (default 4)\n"
            "      --check-limit-s N    the longest one check may run, all its calls\n"
            "                           together (default 120); a check stopped by it\n"
            "                           names the entry point it was in\n"
            "      --no-fork            run the checks in this process (for a debugger);\n"
            "                           by default each runs in a child process, so that a\n"
            "                           crash or a hang fails that check only; without a\n"
            "                           child no call is timed (waits still are)\n"
            "\n%s\n%s\n%s",
            plugin_text, common_options, exit_codes);
}

static void print_bench_help(FILE *out) {
    fprintf(out,
            "Usage: pjrt-dlpack bench [OPTIONS] [PLUGIN]\n"
            "\n"
            "Measures, on the first device: export + deleter round trip (share\n"
            "mode, ready buffer), import as a view + release, and the copy\n"
            "fallback of an import against memcpy of the same bytes. Latencies are\n"
            "medians in nanoseconds; bandwidths in GB/s. The plugin runs in a child\n"
            "process: a crash, or a call into it that does not return within\n"
            "--timeout-ms, ends the run naming the entry point (exit 1, or 3 before\n"
            "a client exists).\n"
            "\n"
            "Bench options:\n"
            "  -n, --iterations N       timed repetitions of each latency (default 200)\n"
            "      --size BYTES         bytes of the bandwidth test (default 4M;\n"
            "                           suffixes k, M, G)\n"
            "\n%s\n%s\n%s",
            plugin_text, common_options, exit_codes);
}

void cli_print_help(FILE *out, cli_command command) {
    switch (command) {
    case CLI_CMD_INFO:
        print_info_help(out);
        break;
    case CLI_CMD_CHECK:
        print_check_help(out);
        break;
    case CLI_CMD_BENCH:
        print_bench_help(out);
        break;
    default:
        print_main_help(out);
        break;
    }
}

void cli_print_usage_hint(FILE *err, cli_command command) {
    if (command == CLI_CMD_NONE)
        fprintf(err, "Try 'pjrt-dlpack --help'.\n");
    else
        fprintf(err, "Try 'pjrt-dlpack %s --help'.\n", cli_command_name(command));
}

int main(int argc, char **argv) {
    if (argc >= 2 && strcmp(argv[1], "diff") == 0) /* two report files, no plugin */
        return cli_diff(argc - 2, argv + 2);
    cli_args args;
    if (!cli_args_parse(argc, argv, &args))
        return CLI_EXIT_USAGE;
    int rc = CLI_EXIT_OK;
    if (args.help) {
        cli_print_help(stdout, args.command);
    } else if (args.version) {
        printf("pjrt-dlpack %s (PJRT C API %d.%d, DLPack %d.%d)\n", pjdl_version(), PJRT_API_MAJOR,
               PJRT_API_MINOR, DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION);
    } else if (args.command == CLI_CMD_INFO) {
        rc = cli_info(&args);
    } else if (args.command == CLI_CMD_CHECK) {
        rc = cli_check(&args);
    } else {
        rc = cli_bench(&args);
    }
    cli_args_free(&args);
    return rc;
}
