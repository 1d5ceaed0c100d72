/* Helpers of the hostile-plugin tests: loading the hostile plugin, its
 * control block, and the reference plugin's allocation accounting. */
#ifndef PJDL_TESTS_HOSTILE_TEST_H_
#define PJDL_TESTS_HOSTILE_TEST_H_

#include <dlfcn.h>
#include <time.h>

#include "hostile.h"
#include "lib_util.h"

/* Fails unless `text` contains `part`. */
#define HOSTILE_SAYS(text, part)                                                                   \
    do {                                                                                           \
        const char *says_text_ = (text);                                                           \
        if (strstr(says_text_, (part)) == NULL)                                                    \
            fail_msg("message \"%s\" does not mention \"%s\"", says_text_, (part));                \
    } while (0)

static inline void hostile_sleep_ms(int ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Loads the hostile plugin and finds its control block. */
static inline pjdl_plugin *hostile_load(hostile_config **control) {
    pjdl_plugin *plugin = NULL;
    LIB_OK(pjdl_plugin_load(HOSTILE_PLUGIN, &plugin));
    void *h = dlopen(HOSTILE_PLUGIN, RTLD_NOW | RTLD_NOLOAD);
    assert_non_null(h);
    hostile_control_fn *fn;
    void *sym = dlsym(h, "hostile_control");
    assert_non_null(sym);
    memcpy(&fn, &sym, sizeof fn);
    *control = fn();
    dlclose(h); /* the plugin object keeps it loaded */
    return plugin;
}

static inline void hostile_reset(hostile_config *c) {
    atomic_store(&c->fail_at, 0);
    atomic_store(&c->fault, HOSTILE_NONE);
    atomic_store(&c->calls, 0);
    c->failed[0] = '\0';
}

/* The hostile plugin loaded and reset, and the reference plugin's live
 * allocations when it opens: what a test must come back to. */
typedef struct hostile_fixture {
    pjdl_plugin *plugin;
    hostile_config *ctl;
    int64_t baseline;
} hostile_fixture;

static inline void hostile_open(hostile_fixture *f) {
    f->plugin = hostile_load(&f->ctl);
    hostile_reset(f->ctl);
    f->baseline = lib_live_process(f->plugin);
}

/* A cmocka test that runs `test` on `platform` ("cpu" or "xpu", its initial
 * state), named test_platform; `setup` and `teardown` may be NULL. */
#define HOSTILE_ON(test, platform, setup, teardown)                                                \
    { #test "_" platform, test, setup, teardown, (void *)platform }

/* A client of the hostile plugin; `platform` "cpu" or "xpu". */
static inline pjdl_code hostile_client(pjdl_plugin *plugin, const char *platform,
                                       pjdl_client **out) {
    pjdl_option opts[2] = {{.name = "platform", .type = PJDL_OPTION_STRING},
                           {.name = "transfer_delay_us", .type = PJDL_OPTION_INT64}};
    opts[0].value.string_value = platform;
    opts[1].value.int64_value = 200;
    return pjdl_client_create(plugin, opts, strcmp(platform, "xpu") == 0 ? 2 : 1, out);
}

#endif
