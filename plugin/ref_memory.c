/* Memories: owned storage blocks with per-memory accounting and a registry
 * of live allocations, foreign storage wrappers, and the PJRT_Memory_*
 * queries. */
#include <string.h>

#include "ref_internal.h"

static ref_mem *mem_new(ref_memory *memory) {
    ref_mem *mem = ref_alloc(memory->client, sizeof(*mem));
    if (mem == NULL)
        return NULL;
    atomic_init(&mem->refs, 1);
    mem->client = memory->client; /* held by the allocation (PJRT_Client.hold) */
    mem->memory = memory;
    return mem;
}

/* Takes a cached block of exactly `size` bytes, the one kept last (a
 * buffer's block freed just before is the one reused, not a transfer's
 * staging block), or returns NULL. */
static void *cache_take(ref_memory *memory, size_t size) {
    void *data = NULL;
    if (size < REF_CACHE_MIN_BYTES)
        return NULL;
    pthread_mutex_lock(&memory->mu);
    for (size_t i = memory->cache_count; i-- > 0 && data == NULL;) {
        if (memory->cache_size[i] == size) {
            data = memory->cache_data[i];
            memory->cache_count--;
            memory->cache_data[i] = memory->cache_data[memory->cache_count];
            memory->cache_size[i] = memory->cache_size[memory->cache_count];
        }
    }
    pthread_mutex_unlock(&memory->mu);
    if (data != NULL)
        ref_alloc_reattribute(NULL, memory->client);
    return data;
}

/* Keeps a large freed block for reuse; false if it should be freed. */
static bool cache_put(ref_memory *memory, void *data, size_t size) {
    if (size < REF_CACHE_MIN_BYTES)
        return false;
    bool kept = false;
    pthread_mutex_lock(&memory->mu);
    if (memory->cache_count < REF_CACHE_BLOCKS) {
        memory->cache_data[memory->cache_count] = data;
        memory->cache_size[memory->cache_count] = size;
        memory->cache_count++;
        kept = true;
    }
    pthread_mutex_unlock(&memory->mu);
    if (kept)
        ref_alloc_reattribute(memory->client, NULL);
    return kept;
}

void *ref_memory_block_take(ref_memory *memory, size_t size) {
    void *data = cache_take(memory, size);
    return data != NULL ? data : ref_alloc_data(memory->client, size);
}

void ref_memory_block_give(ref_memory *memory, void *data, size_t size) {
    if (data != NULL && !cache_put(memory, data, size))
        ref_free_data(memory->client, data);
}

size_t ref_memory_flush_cache(ref_memory *memory) {
    pthread_mutex_lock(&memory->mu);
    size_t n = memory->cache_count;
    void *blocks[REF_CACHE_BLOCKS];
    memcpy(blocks, memory->cache_data, n * sizeof(void *));
    memory->cache_count = 0;
    pthread_mutex_unlock(&memory->mu);
    for (size_t i = 0; i < n; i++)
        ref_free_data(NULL, blocks[i]);
    return n;
}

PJRT_Error *ref_mem_alloc(ref_memory *memory, size_t size, ref_mem **out) {
    pthread_mutex_lock(&memory->mu);
    bool over = memory->capacity > 0 && (size > (uint64_t)memory->capacity ||
                                         (int64_t)size > memory->capacity - memory->bytes_in_use);
    int64_t in_use = memory->bytes_in_use;
    if (!over)
        memory->bytes_in_use += (int64_t)size; /* reserve */
    pthread_mutex_unlock(&memory->mu);
    if (over)
        return ref_error(PJRT_Error_Code_RESOURCE_EXHAUSTED,
                         "out of device memory on %s: %zu bytes requested, %lld of %lld in use",
                         memory->debug_string, size, (long long)in_use,
                         (long long)memory->capacity);
    ref_mem *mem = mem_new(memory);
    void *data = mem ? cache_take(memory, size) : NULL;
    if (mem != NULL && data == NULL)
        data = ref_alloc_data(memory->client, size);
    if (mem != NULL && data == NULL && ref_memory_flush_cache(memory) > 0) {
        /* Out of host memory: the cached blocks were given back; try again. */
        data = ref_alloc_data(memory->client, size);
    }
    if (data == NULL) {
        pthread_mutex_lock(&memory->mu);
        memory->bytes_in_use -= (int64_t)size;
        pthread_mutex_unlock(&memory->mu);
        if (mem != NULL)
            ref_free(memory->client, mem);
        return ref_error(PJRT_Error_Code_RESOURCE_EXHAUSTED,
                         "out of host memory allocating %zu bytes in %s", size,
                         memory->debug_string);
    }
    mem->data = data;
    mem->size = size;
    mem->owned = true;
    pthread_mutex_lock(&memory->mu);
    memory->num_allocs++;
    if (memory->bytes_in_use > memory->peak_bytes_in_use)
        memory->peak_bytes_in_use = memory->bytes_in_use;
    if ((int64_t)size > memory->largest_alloc)
        memory->largest_alloc = (int64_t)size;
    mem->next = memory->live;
    if (memory->live != NULL)
        memory->live->prev = mem;
    memory->live = mem;
    pthread_mutex_unlock(&memory->mu);
    *out = mem;
    return NULL;
}

PJRT_Error *ref_mem_wrap(ref_memory *memory, void *data, size_t size,
                         void (*on_delete)(void *, void *), void *on_delete_arg,
                         PJRT_Event *release_event, ref_mem **out) {
    ref_mem *mem = mem_new(memory);
    if (mem == NULL)
        return ref_error_oom("wrapping external memory");
    mem->data = data;
    mem->size = size;
    mem->on_delete = on_delete;
    mem->on_delete_arg = on_delete_arg;
    mem->release_event = release_event ? ref_event_retain(release_event) : NULL;
    *out = mem;
    return NULL;
}

ref_mem *ref_mem_retain(ref_mem *mem) {
    atomic_fetch_add(&mem->refs, 1);
    return mem;
}

void ref_mem_release(ref_mem *mem) {
    /* Seeing 1, the caller holds the only reference and nobody can take
     * another (that needs one): no atomic write needed. */
    if (mem == NULL || (atomic_load_explicit(&mem->refs, memory_order_acquire) != 1 &&
                        atomic_fetch_sub_explicit(&mem->refs, 1, memory_order_acq_rel) != 1))
        return;
    ref_memory *memory = mem->memory;
    PJRT_Client *client = mem->client;
    if (mem->owned) {
        pthread_mutex_lock(&memory->mu);
        if (mem->prev != NULL)
            mem->prev->next = mem->next;
        else
            memory->live = mem->next;
        if (mem->next != NULL)
            mem->next->prev = mem->prev;
        memory->bytes_in_use -= (int64_t)mem->size;
        pthread_mutex_unlock(&memory->mu);
        if (!cache_put(memory, mem->data, mem->size))
            ref_free_data(client, mem->data);
    }
    if (mem->on_delete != NULL)
        mem->on_delete(mem->data, mem->on_delete_arg);
    if (mem->release_event != NULL) {
        ref_event_complete(mem->release_event, PJRT_Error_Code_OK, NULL);
        ref_event_release(mem->release_event);
    }
    if (mem->container != NULL) {
        ref_buffer_release_part(mem->container);
        return;
    }
    ref_free(client, mem);
}

bool ref_memory_contains(ref_memory *memory, const void *ptr, size_t size) {
    uintptr_t p = (uintptr_t)ptr;
    bool found = false;
    pthread_mutex_lock(&memory->mu);
    for (ref_mem *m = memory->live; m != NULL && !found; m = m->next) {
        uintptr_t base = (uintptr_t)m->data;
        found = p >= base && p - base <= m->size && size <= m->size - (p - base);
    }
    pthread_mutex_unlock(&memory->mu);
    return found;
}

/* ---------------------------------------------------------- entry points */

REF_DEFINE_QUERY(PJRT_Memory_Id, memory, args->id = REF_MEMORY(self)->id;)
REF_DEFINE_QUERY(PJRT_Memory_Kind, memory, REF_SET_STRING(args->kind, REF_MEMORY(self)->kind_name);)
REF_DEFINE_QUERY(PJRT_Memory_Kind_Id, memory, args->kind_id = (int)REF_MEMORY(self)->kind;)
REF_DEFINE_QUERY(PJRT_Memory_DebugString, memory,
                 REF_SET_STRING(args->debug_string, REF_MEMORY(self)->debug_string);)
REF_DEFINE_QUERY(PJRT_Memory_ToString, memory,
                 REF_SET_STRING(args->to_string, REF_MEMORY(self)->to_string);)

/* Each memory belongs to exactly one device; the client's device array holds
 * the pointer the caller gets a view of. */
REF_DEFINE_QUERY(PJRT_Memory_AddressableByDevices, memory,
                 args->devices = &REF_MEMORY(self)->client->devices[REF_MEMORY(self)->device->id];
                 args->num_devices = 1;)

/* --------------------------------------------------------- user data */

struct ref_user_data {
    struct ref_user_data *next;
    const void *key;
    void *data;
    void (*dtor)(void *);
};

static void *get_user_data(PJRT_Memory *handle, const void *key) {
    ref_memory *m = REF_MEMORY(handle);
    void *data = NULL;
    pthread_mutex_lock(&m->mu);
    for (struct ref_user_data *u = m->user_data; u != NULL; u = u->next)
        if (u->key == key)
            data = u->data;
    pthread_mutex_unlock(&m->mu);
    return data;
}

/* Replaces the value for `key` (running the old value's destructor). The
 * table gives no way to report failure: out of memory, the new value is
 * destroyed at once rather than leaked. */
static void set_user_data(PJRT_Memory *handle, const void *key, void *data, void (*dtor)(void *)) {
    ref_memory *m = REF_MEMORY(handle);
    void *old = NULL;
    void (*old_dtor)(void *) = NULL;
    pthread_mutex_lock(&m->mu);
    struct ref_user_data *u = m->user_data;
    while (u != NULL && u->key != key)
        u = u->next;
    if (u == NULL) {
        u = ref_alloc(NULL, sizeof(*u));
        if (u == NULL) {
            pthread_mutex_unlock(&m->mu);
            if (dtor != NULL)
                dtor(data);
            return;
        }
        u->key = key;
        u->next = m->user_data;
        m->user_data = u;
    } else {
        old = u->data;
        old_dtor = u->dtor;
    }
    u->data = data;
    u->dtor = dtor;
    pthread_mutex_unlock(&m->mu);
    if (old_dtor != NULL)
        old_dtor(old);
}

const PJRT_Memory_FunctionTable ref_memory_vtable = {
    .struct_size = PJRT_Memory_FunctionTable_STRUCT_SIZE,
    .extension_start = NULL,
    .instance_struct_size = sizeof(ref_memory),
    .get_user_data = get_user_data,
    .set_user_data = set_user_data,
};

void ref_memory_free_user_data(ref_memory *m) {
    struct ref_user_data *u = m->user_data;
    m->user_data = NULL;
    while (u != NULL) {
        struct ref_user_data *next = u->next;
        if (u->dtor != NULL)
            u->dtor(u->data);
        ref_free(NULL, u);
        u = next;
    }
}
