/* dlclose of libpjrt_dlpack.so while threads that used it live on: code of
 * the library can still be run after that (a thread's exit runs the
 * destructor of the thread's stock of view blocks; a client released inside
 * a plugin's callback is destroyed on a thread of the library's), so the
 * library must stay mapped, and so must a shared object the static library
 * was linked into. Both are dlopen'ed here, never linked.
 * Usage: test_unload LIBPJRT_DLPACK_SO EMBEDDING_SO (the reference plugin
 * from PJRT_REF_PLUGIN). */
#include <dlfcn.h>
#include <pthread.h>
#include <semaphore.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "pjrt_dlpack.h"

static const char *lib_path; /* the one under test */
static void *lib;
static sem_t imported, unloaded;

#define SYM(name) ((__typeof__(name) *)sym(#name))

static void *sym(const char *name) {
    void *f = dlsym(lib, name);
    assert_non_null(f);
    return f;
}

/* A view import and its release on this thread, which keeps the view's
 * block in the thread's stock (its destructor runs at thread exit). */
static void import_and_release(void) {
    const char *plugin_path = getenv("PJRT_REF_PLUGIN");
    assert_non_null(plugin_path);
    pjdl_plugin *plugin = NULL;
    pjdl_client *client = NULL;
    pjdl_buffer *buffer = NULL;
    assert_int_equal(SYM(pjdl_plugin_load)(plugin_path, &plugin), PJDL_OK);
    assert_int_equal(SYM(pjdl_client_create)(plugin, NULL, 0, &client), PJDL_OK);
    static float data[16];
    static int64_t shape[2] = {4, 4};
    DLManagedTensorVersioned t = {.version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION},
                                  .dl_tensor = {.data = data,
                                                .device = {kDLCPU, 0},
                                                .ndim = 2,
                                                .dtype = {kDLFloat, 32, 1},
                                                .shape = shape}};
    pjdl_import_options opts = PJDL_IMPORT_OPTIONS_INIT;
    opts.copy = PJDL_COPY_NEVER;
    assert_int_equal(SYM(pjdl_import)(&client, 1, &t, &opts, &buffer), PJDL_OK);
    SYM(pjdl_buffer_release)(buffer);
    SYM(pjdl_client_release)(client);
    SYM(pjdl_plugin_release)(plugin);
}

static void *worker(void *arg) {
    (void)arg;
    import_and_release();
    sem_post(&imported);
    sem_wait(&unloaded); /* exits after the dlclose: its TLS destructors run then */
    return NULL;
}

static void thread_outlives_dlclose(void **state) {
    lib_path = *state;
    lib = dlopen(lib_path, RTLD_NOW | RTLD_LOCAL);
    assert_non_null(lib);
    assert_int_equal(sem_init(&imported, 0, 0), 0);
    assert_int_equal(sem_init(&unloaded, 0, 0), 0);
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, worker, NULL), 0);
    sem_wait(&imported);
    assert_int_equal(dlclose(lib), 0);
    /* Still mapped: the library pinned the object it is in. */
    void *again = dlopen(lib_path, RTLD_NOW | RTLD_NOLOAD);
    assert_non_null(again);
    dlclose(again);
    sem_post(&unloaded);
    assert_int_equal(pthread_join(thread, NULL), 0); /* its exit did not crash */
    sem_destroy(&imported);
    sem_destroy(&unloaded);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s LIBPJRT_DLPACK_SO EMBEDDING_SO\n", argv[0]);
        return 2;
    }
    const struct CMUnitTest tests[] = {
        {"the_shared_library", thread_outlives_dlclose, NULL, NULL, argv[1]},
        {"the_static_library_in_a_shared_object", thread_outlives_dlclose, NULL, NULL, argv[2]},
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
