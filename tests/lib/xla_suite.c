/* Every library test's XLA run in one process, for valgrind
 * (tests/lib/CMakeLists.txt, test_lib_xla_suite.memcheck): each test file
 * is compiled with its main renamed lib_main_<name>, and called here in
 * turn with the argument "xla". The exit status is the number of failed
 * tests, as each main's. */
#include <stdio.h>
#include <time.h>

/* CPU seconds of the process so far (valgrind's included): printed per
 * test, to see where the suite's time goes; nothing is asserted on it. */
static double cpu_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#define LIB_SUITE_ENTRY(name) int lib_main_##name(int argc, char **argv);
#include "xla_suite_list.h"
#undef LIB_SUITE_ENTRY

int main(int argc, char **argv) {
    (void)argc;
    char xla[] = "xla";
    char *args[] = {argv[0], xla, NULL};
    int failed = 0;
#define LIB_SUITE_ENTRY(name)                                                                      \
    do {                                                                                           \
        double start = cpu_seconds();                                                              \
        int n = lib_main_##name(2, args);                                                          \
        printf("test_lib_xla_suite: %s: %d failed (%.1f s of CPU)\n", #name, n,                    \
               cpu_seconds() - start);                                                             \
        failed += n;                                                                               \
    } while (0);
#include "xla_suite_list.h"
    return failed;
}
