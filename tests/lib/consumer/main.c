/* Loads the plugin named on the command line ("default": the one installed
 * next to the library) through the installed library. */
#include <stdio.h>
#include <string.h>

#include "pjrt_dlpack.h"

#define STR_(x) #x
#define STR(x) STR_(x)

int main(int argc, char **argv) {
    pjdl_plugin *plugin = NULL;
    /* The installed header and the installed library agree. */
    const char *header_version =
        STR(PJDL_VERSION_MAJOR) "." STR(PJDL_VERSION_MINOR) "." STR(PJDL_VERSION_PATCH);
    if (strcmp(pjdl_version(), header_version) != 0 || argc < 2)
        return 1;
    const char *path = strcmp(argv[1], "default") == 0 ? NULL : argv[1];
    if (pjdl_plugin_load(path, &plugin) != PJDL_OK) {
        fprintf(stderr, "%s\n", pjdl_last_error());
        return 1;
    }
    pjdl_plugin_release(plugin);
    printf("ok\n");
    return 0;
}
